#!/usr/bin/env bash
# demo.sh: oltp_read_write on the embedded SQLite engine, end to end
# (DEMO_TIME: the run's seconds, 10 by default).
set -euo pipefail
bin=${1:-bin/sysbench-go}
dir=$(mktemp -d /tmp/sbgo-demo.XXXXXX)
trap 'rm -rf "$dir"' EXIT
common=(--db-driver=sqlite --sqlite-db="$dir/sbtest.db" --tables=2 --table-size=10000 --threads=4)
"$bin" oltp_read_write "${common[@]}" prepare
"$bin" oltp_read_write "${common[@]}" --time="${DEMO_TIME:-10}" --report-interval=2 --results="$dir/results.json" run
# The run as data (docs/results.md): its results file, read back with
# other percentiles than the run printed.
echo "== sysbench-go report --percentile=50,99,99.9 results.json"
"$bin" report --percentile=50,99,99.9 "$dir/results.json"
"$bin" oltp_read_write "${common[@]}" cleanup
