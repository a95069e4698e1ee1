#!/usr/bin/env bash
# soak.sh: memory over a long run, ours beside the reference sysbench 1.0.20.
#
#   scripts/soak.sh [BIN]     (make soak)
#
# oltp_read_write on a private PostgreSQL, SOAK_THREADS (64) threads for
# SOAK_TIME seconds (600) with --report-interval=10, ours then the
# reference; each process's RSS sampled every 10 s. Prints both series,
# then per tool: RSS at minute 1, at the end, the growth between them,
# the peak (VmHWM) and the TPS; writes soak.json. Then (SOAK_DAY=1, the
# default) the synthetic day: TestLongRunConstantMemory with 86400 report
# intervals of 1 s under a test clock, which bounds the live heap.
#
# Env: SOAK_TIME, SOAK_THREADS, SOAK_TABLES (4), SOAK_TABLE_SIZE (10000),
# SOAK_DAY (1), SOAK_REF (the reference's path; empty: ours only),
# SBTEST_SOAK_PGSQL_PORT / SBTEST_SOAK_MYSQL_PORT (45432 /
# 43306: the private servers' ports).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/sysbench-go}
secs=${SOAK_TIME:-600}
threads=${SOAK_THREADS:-64}
tables=${SOAK_TABLES:-4}
size=${SOAK_TABLE_SIZE:-10000}
ref=${SOAK_REF-$(command -v sysbench || true)}
if [ -z "$ref" ] && [ -z "${SOAK_REF+set}" ]; then
	echo "soak.sh: the reference sysbench is not installed (apt-get install -y sysbench): measuring ours only" >&2
fi

dir=$(mktemp -d /tmp/sbgo-soak.XXXXXX)
trap 'bash scripts/testdb.sh stop "$dir" >/dev/null 2>&1 || true' EXIT INT TERM
export SBTEST_MYSQL_PORT=${SBTEST_SOAK_MYSQL_PORT:-43306}
export SBTEST_PGSQL_PORT=${SBTEST_SOAK_PGSQL_PORT:-45432}
bash scripts/testdb.sh start "$dir"
. "$dir/env"
export PGSSLMODE=disable # the same plain-text connections for both (see bench.sh)
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$SBTEST_PGSQL_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
wl="oltp_read_write $pgsql_opts --tables=$tables --table-size=$size"

"$bin" $wl cleanup >/dev/null 2>&1 || true
"$bin" $wl --threads="$tables" prepare >/dev/null

# soak TOOL -> the RSS samples (KiB, one per 10 s), then "peak tps"
soak() {
	local tool=$1 extra="" out pid rss=() peak
	if [ "$tool" = "$bin" ]; then extra="--pgsql-sslmode=disable"; fi
	out=$(mktemp)
	"$tool" $wl $extra --threads="$threads" --time="$secs" --report-interval=10 run >"$out" 2>&1 &
	pid=$!
	while sleep 10 && kill -0 "$pid" 2>/dev/null; do
		rss+=("$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)")
		peak=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "$peak")
	done
	wait "$pid" || true
	echo "${rss[*]}"
	echo "$peak $(awk '$1 == "transactions:" && !n++ {gsub(/\(/,"",$3); print $3}' "$out")"
	rm -f "$out"
}

# summary NAME SAMPLES PEAK TPS: prints and records one tool's row. RSS at
# minute 1 is the 6th sample (60 s), the end the last.
json="["
summary() {
	local name=$1 peak=$3 tps=$4 first last growth
	read -r -a s <<<"$2"
	first=${s[5]:-${s[0]:-0}} last=${s[${#s[@]}-1]:-0}
	growth=$(awk -v a="$first" -v b="$last" 'BEGIN {if (a > 0) printf "%.1f", (b-a)*100/a; else print "nan"}')
	printf "%-10s %10.1f %10.1f %9s%% %10.1f %10s\n" "$name" "$(awk -v v="$first" 'BEGIN {print v/1024}')" \
		"$(awk -v v="$last" 'BEGIN {print v/1024}')" "$growth" "$(awk -v v="$peak" 'BEGIN {print v/1024}')" "$tps"
	json="$json{\"tool\":\"$name\",\"time_s\":$secs,\"threads\":$threads,\"rss_kib\":[${2// /,}],\"rss_min1_kib\":$first,\"rss_end_kib\":$last,\"growth_pct\":$growth,\"peak_kib\":$peak,\"tps\":${tps:-null}},"
}

echo "soak: oltp_read_write, PostgreSQL, $threads threads, ${secs}s each, RSS every 10 s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
mapfile -t o < <(soak "$bin")
echo "ours     RSS KiB: ${o[0]}"
if [ -n "$ref" ]; then
	mapfile -t r < <(soak "$ref")
	echo "sysbench RSS KiB: ${r[0]}"
fi
echo
printf "%-10s %10s %10s %10s %10s %10s\n" tool "MiB@1min" "MiB@end" growth "peak MiB" tps
read -r op ot <<<"${o[1]}"
summary ours "${o[0]}" "$op" "$ot"
if [ -n "$ref" ]; then
	read -r rp rt <<<"${r[1]}"
	summary sysbench "${r[0]}" "$rp" "$rt"
	printf "peak RSS ours/sysbench: %s (load: %s)\n" "$(awk -v a="$op" -v b="$rp" 'BEGIN {printf "%.2f", a/b}')" "$(cut -d' ' -f1-3 /proc/loadavg)"
fi
echo "${json%,}]" | sed 's/nan/null/g' >soak.json
"$bin" $wl cleanup >/dev/null 2>&1 || true

if [ "${SOAK_DAY:-1}" = 1 ]; then
	echo
	echo "a synthetic day: 86400 report intervals of 1 s under a test clock"
	go test -count=1 -run 'TestLongRunConstantMemory$' -v ./cli -args -longrun-intervals=86400 | grep -E 'heap|^(ok|FAIL|---)'
fi
