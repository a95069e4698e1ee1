#!/usr/bin/env bash
# demo.sh: oltp_read_write on the embedded SQLite engine, end to end
# (DEMO_TIME: the run's seconds, 10 by default).
set -euo pipefail
bin=${1:-bin/sysbench-go}
dir=$(mktemp -d /tmp/sbgo-demo.XXXXXX)
trap 'rm -rf "$dir"' EXIT
time=${DEMO_TIME:-10}
common=(--db-driver=sqlite --sqlite-db="$dir/sbtest.db" --tables=2 --table-size=10000 --threads=4)
echo "sysbench-go demo: sysbench's oltp_read_write workload on the embedded SQLite engine, in $dir (no server)."
echo "It creates 2 tables of 10000 rows, runs $time s of transactions on 4 threads (a line every 2 s, then the"
echo "report), reads the run's results file back, and drops the tables, with the program $bin:"
echo
echo "== sysbench-go oltp_read_write ${common[*]} prepare"
"$bin" oltp_read_write "${common[@]}" prepare
echo
echo "== sysbench-go oltp_read_write ${common[*]} --time=$time --report-interval=2 --results=$dir/results.json run"
"$bin" oltp_read_write "${common[@]}" --time="$time" --report-interval=2 --results="$dir/results.json" run
# The run as data (docs/results.md): its results file, read back with
# other percentiles than the run printed.
echo
echo "== sysbench-go report --percentile=50,99,99.9 results.json   (the run's results file, other percentiles)"
"$bin" report --percentile=50,99,99.9 "$dir/results.json"
echo
echo "== sysbench-go oltp_read_write ${common[*]} cleanup"
"$bin" oltp_read_write "${common[@]}" cleanup
