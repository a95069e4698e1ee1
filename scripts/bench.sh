#!/usr/bin/env bash
# bench.sh: sysbench-go against the reference sysbench 1.0.20, side by side
# on private local servers, runs alternated A B A B, medians reported.
#
#   scripts/bench.sh [BIN]     (make bench)
#
# Env: BENCH_PAIRS (default 3), BENCH_TIME (seconds per run, default 10),
# BENCH_THREADS (default 8), BENCH_TABLE_SIZE (default 10000).
# Prints a table and writes bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/sysbench-go}
pairs=${BENCH_PAIRS:-3}
secs=${BENCH_TIME:-10}
threads=${BENCH_THREADS:-8}
size=${BENCH_TABLE_SIZE:-10000}
ref=$(command -v sysbench || true)
if [ -z "$ref" ]; then
	echo "bench.sh: the reference sysbench is not installed (apt-get install -y sysbench): measuring ours only" >&2
fi

dir=$(mktemp -d /tmp/sbgo-bench.XXXXXX)
trap 'bash scripts/testdb.sh stop "$dir" >/dev/null 2>&1 || true' EXIT INT TERM
export SBTEST_MYSQL_PORT=${SBTEST_BENCH_MYSQL_PORT:-33306}
export SBTEST_PGSQL_PORT=${SBTEST_BENCH_PGSQL_PORT:-35432}
bash scripts/testdb.sh start "$dir"
. "$dir/env"

mysql_opts="--mysql-host=127.0.0.1 --mysql-port=$SBTEST_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
# Same TLS setting for both tools: libpq's default sslmode=prefer would use
# TLS if the server offered it; the private server has no certificate, so
# both run in plain text. We pass sslmode=disable to make that explicit.
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$SBTEST_PGSQL_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"

# measure TOOL DB WORKLOAD -> prints "tps p95 cpu_ms_per_1000q"
measure() {
	local tool=$1 db=$2 wl=$3 opts extra=""
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	if [ "$tool" != "$ref" ] && [ "$db" = pgsql ]; then extra="--pgsql-sslmode=disable"; fi
	local out t0 t1
	out=$(mktemp)
	/usr/bin/time -f "%U %S" -o "$out.time" "$tool" "$wl" $opts $extra --tables=1 --table-size="$size" \
		--threads="$threads" --time="$secs" run >"$out" 2>&1 || true
	local tps p95 q cpu
	tps=$(awk '/transactions:/ {gsub(/\(/,"",$3); print $3}' "$out")
	p95=$(awk '/95th percentile:/ {print $3}' "$out")
	q=$(awk '/    queries:/ {print $2}' "$out")
	cpu=$(awk -v q="$q" '{ if (q > 0) printf "%.2f", ($1+$2)*1000*1000/q; else print "nan" }' "$out.time")
	echo "$tps $p95 $cpu"
	rm -f "$out" "$out.time"
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

json="["
printf "%-8s %-18s %10s %10s %8s %8s %12s %12s %7s\n" db workload tps_ours tps_ref ratio p95_ours p95_ref cpu_ours cpu_ref
for db in mysql pgsql; do
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$bin" oltp_read_write $opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
	"$bin" oltp_read_write $opts --tables=1 --table-size="$size" prepare >/dev/null
	for wl in oltp_point_select oltp_read_write; do
		ours=() refs=()
		for i in $(seq "$pairs"); do
			ours+=("$(measure "$bin" $db $wl)")
			if [ -n "$ref" ]; then refs+=("$(measure "$ref" $db $wl)"); fi
		done
		ot=$(printf '%s\n' "${ours[@]}" | awk '{print $1}' | median)
		op=$(printf '%s\n' "${ours[@]}" | awk '{print $2}' | median)
		oc=$(printf '%s\n' "${ours[@]}" | awk '{print $3}' | median)
		rt=nan rp=nan rc=nan ratio=nan
		if [ -n "$ref" ]; then
			rt=$(printf '%s\n' "${refs[@]}" | awk '{print $1}' | median)
			rp=$(printf '%s\n' "${refs[@]}" | awk '{print $2}' | median)
			rc=$(printf '%s\n' "${refs[@]}" | awk '{print $3}' | median)
			ratio=$(awk -v a="$ot" -v b="$rt" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}')
		fi
		printf "%-8s %-18s %10s %10s %8s %8s %12s %12s %7s\n" $db $wl "$ot" "$rt" "$ratio" "$op" "$rp" "$oc" "$rc"
		json="$json{\"db\":\"$db\",\"workload\":\"$wl\",\"tps_ours\":$ot,\"tps_ref\":$rt,\"tps_ratio\":$ratio,\"p95_ours\":$op,\"p95_ref\":$rp,\"cpu_ms_per_1000q_ours\":$oc,\"cpu_ms_per_1000q_ref\":$rc},"
	done
	"$bin" oltp_read_write $opts --tables=1 cleanup >/dev/null 2>&1 || true
done
echo "${json%,}]" | sed 's/nan/null/g' > bench.json
echo "(cpu = client user+sys ms per 1000 queries; medians of $pairs alternated runs of ${secs}s, $threads threads; JSON in bench.json)"
