#!/usr/bin/env bash
# bench.sh: sysbench-go against the reference sysbench 1.0.20, side by side
# on private local servers, runs alternated A B B A A B ..., medians reported.
#
#   scripts/bench.sh [BIN]     (make bench)
#
# Env: BENCH_PAIRS (default 3), BENCH_TIME (seconds per run, default 10),
# BENCH_THREADS (default 8), BENCH_TABLE_SIZE (default 10000), BENCH_ONLY
# (a list of sections to run: servers dry rss prepare rate results
# statements server metrics gc many; all by default), BENCH_MANY (the
# thread counts of section many, default "512 1000").
# Prints a table and writes bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/sysbench-go}
pairs=${BENCH_PAIRS:-3}
secs=${BENCH_TIME:-10}
threads=${BENCH_THREADS:-8}
size=${BENCH_TABLE_SIZE:-10000}
ncpu=$(nproc)
ref=$(command -v sysbench || true)
if [ -z "$ref" ]; then
	echo "bench.sh: the reference sysbench is not installed (apt-get install -y sysbench): measuring ours only" >&2
fi

dir=$(mktemp -d /tmp/sbgo-bench.XXXXXX)
trap 'bash scripts/testdb.sh stop "$dir" >/dev/null 2>&1 || true' EXIT INT TERM
export SBTEST_MYSQL_PORT=${SBTEST_BENCH_MYSQL_PORT:-33306}
export SBTEST_PGSQL_PORT=${SBTEST_BENCH_PGSQL_PORT:-35432}
# Section many connects 1000 clients to each server.
export SBTEST_MAX_CONNECTIONS=${SBTEST_MAX_CONNECTIONS:-1100}
bash scripts/testdb.sh start "$dir"
. "$dir/env"

mysql_opts="--mysql-host=127.0.0.1 --mysql-port=$SBTEST_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
# Same TLS setting for both tools: the private server offers TLS (a
# self-signed certificate, for the tests), which libpq's default
# sslmode=prefer would use. Both run in plain text: PGSSLMODE for libpq
# (and our driver), --pgsql-sslmode for ours as well.
export PGSSLMODE=disable
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$SBTEST_PGSQL_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"

# measure TOOL DB WORKLOAD [THREADS] -> prints "tps p95 cpu_ms_per_1000q"
measure() {
	local tool=$1 db=$2 wl=$3 th=${4:-$threads} opts extra=""
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	if [ "$tool" != "$ref" ] && [ "$db" = pgsql ]; then extra="--pgsql-sslmode=disable"; fi
	local out t0 t1
	out=$(mktemp)
	/usr/bin/time -f "%U %S" -o "$out.time" "$tool" "$wl" $opts $extra --tables=1 --table-size="$size" \
		--threads="$th" --time="$secs" run >"$out" 2>&1 || true
	local tps p95 q cpu
	tps=$(awk '/transactions:/ {gsub(/\(/,"",$3); print $3}' "$out")
	p95=$(awk '/95th percentile:/ {print $3}' "$out")
	q=$(awk '/    queries:/ {print $2}' "$out")
	cpu=$(awk -v q="$q" '{ if (q > 0) printf "%.2f", ($1+$2)*1000*1000/q; else print "nan" }' "$out.time")
	echo "$tps $p95 $cpu"
	rm -f "$out" "$out.time"
}

# fmed K LINES...: the median of field K of the lines.
fmed() {
	local k=$1
	shift
	printf '%s\n' "$@" | awk -v k="$k" '{print $k}' | median
}

# section NAME: whether BENCH_ONLY asks for the section (all without it).
section() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# spread OURS REFS: the lowest and highest ratio of the first fields, pair
# by pair (lines of the two lists). A pair ran back to back, so the spread
# shows the machine's drift that the medians smooth over.
spread() {
	paste -d '|' <(printf '%s\n' "$1") <(printf '%s\n' "$2") |
		awk -F'|' '{split($1, a, " "); split($2, b, " ")
			if (b[1] > 0) {r = a[1] / b[1]; if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r}}
			END {if (n) printf "%.2f %.2f\n", lo, hi; else print "null null"}'
}

# run_pairs FN ARGS...: runs "FN TOOL ARGS..." for ours and the reference,
# back to back, $pairs times, into the arrays ours and refs (line i of each
# is pair i). Even pairs run the reference first (A B, B A, A B, ...), so
# neither tool always runs first after a prepare or after the other's writes.
run_pairs() {
	local fn=$1 i
	shift
	ours=() refs=()
	for i in $(seq "$pairs"); do
		if [ -n "$ref" ] && [ $((i % 2)) -eq 0 ]; then
			refs+=("$("$fn" "$ref" "$@")")
			ours+=("$("$fn" "$bin" "$@")")
		else
			ours+=("$("$fn" "$bin" "$@")")
			if [ -n "$ref" ]; then refs+=("$("$fn" "$ref" "$@")"); fi
		fi
	done
}

# ab_pairs FN A B: runs "FN A" and "FN B" (each word of A and B an
# argument), alternated, $pairs times, into ours (A) and refs (B): the
# cost of a feature, ours with it against ours without.
ab_pairs() {
	local fn=$1 a=$2 b=$3 i
	ours=() refs=()
	for i in $(seq "$pairs"); do
		if [ $((i % 2)) -eq 0 ]; then
			refs+=("$("$fn" $b)")
			ours+=("$("$fn" $a)")
		else
			ours+=("$("$fn" $a)")
			refs+=("$("$fn" $b)")
		fi
	done
}

# cost_row LABEL DB WORKLOAD: prints and records the medians of ours
# (with) and refs (without) that ab_pairs measured, their ratio and the
# spread of the pairs' ratios.
cost_row() {
	local w wo ratio pmin pmax
	w=$(fmed 1 "${ours[@]}") wo=$(fmed 1 "${refs[@]}")
	ratio=$(awk -v a="$w" -v b="$wo" 'BEGIN {if (b > 0) printf "%.3f", a/b; else print "nan"}')
	read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
	printf "%-28s %12s %12s %7s %11s\n" "$1" "$w" "$wo" "$ratio" "$pmin-$pmax"
	json="$json{\"db\":\"$2\",\"workload\":\"$3\",\"with\":$w,\"without\":$wo,\"ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax},"
}

# Point selects with as many threads as CPUs as well, when that is fewer:
# there every worker can have a CPU, which is where the drivers' choice of
# socket calls shows most.
runs=("oltp_point_select $threads" "oltp_read_write $threads")
if [ "$ncpu" -lt "$threads" ]; then runs+=("oltp_point_select $ncpu"); fi
json="["
if section servers; then
printf "%-8s %-20s %10s %10s %6s %11s %8s %8s %8s %8s\n" db workload tps_ours tps_ref ratio pairs p95_ours p95_ref cpu_ours cpu_ref
for db in mysql pgsql; do
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$bin" oltp_read_write $opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
	"$bin" oltp_read_write $opts --tables=1 --table-size="$size" prepare >/dev/null
	for run in "${runs[@]}"; do
		read -r wl th <<<"$run"
		run_pairs measure $db $wl $th
		ot=$(fmed 1 "${ours[@]}")
		op=$(fmed 2 "${ours[@]}")
		oc=$(fmed 3 "${ours[@]}")
		rt=nan rp=nan rc=nan ratio=nan
		if [ -n "$ref" ]; then
			rt=$(fmed 1 "${refs[@]}")
			rp=$(fmed 2 "${refs[@]}")
			rc=$(fmed 3 "${refs[@]}")
			ratio=$(awk -v a="$ot" -v b="$rt" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}')
		fi
		read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
		label=$wl
		if [ "$th" != "$threads" ]; then label="$wl/${th}t"; fi
		printf "%-8s %-20s %10s %10s %6s %11s %8s %8s %8s %8s\n" $db "$label" "$ot" "$rt" "$ratio" "$pmin-$pmax" "$op" "$rp" "$oc" "$rc"
		json="$json{\"db\":\"$db\",\"workload\":\"$wl\",\"threads\":$th,\"tps_ours\":$ot,\"tps_ref\":$rt,\"tps_ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax,\"p95_ours\":$op,\"p95_ref\":$rp,\"cpu_ms_per_1000q_ours\":$oc,\"cpu_ms_per_1000q_ref\":$rc},"
	done
	"$bin" oltp_read_write $opts --tables=1 cleanup >/dev/null 2>&1 || true
done
fi

# --- client capacity without a server: dry run events/s ------------------
dry() { # TOOL THREADS -> events/s
	"$1" oltp_read_write --mysql-dry-run --threads="$2" --time="$secs" run 2>/dev/null |
		awk '/transactions:/ {gsub(/\(/,"",$3); print $3}'
}
if section dry; then
echo
printf "%-28s %12s %12s %7s %11s\n" "dry run oltp_read_write" ours sysbench ratio pairs
for th in 1 2; do
	run_pairs dry $th
	om=$(fmed 1 "${ours[@]}") rm=nan ratio=nan
	if [ -n "$ref" ]; then
		rm=$(fmed 1 "${refs[@]}")
		ratio=$(awk -v a="$om" -v b="$rm" 'BEGIN {printf "%.2f", a/b}')
	fi
	read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
	printf "%-28s %12s %12s %7s %11s\n" "events/s, $th thread(s)" "$om" "$rm" "$ratio" "$pmin-$pmax"
	json="$json{\"db\":\"none\",\"workload\":\"dry_run_oltp_read_write_${th}t\",\"eps_ours\":$om,\"eps_ref\":$rm,\"eps_ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax},"
done
fi

# --- peak RSS at 512 threads ---------------------------------------------
rss() { # TOOL ARGS... -> peak RSS in MiB
	local t
	t=$(mktemp)
	/usr/bin/time -f "%M" -o "$t" "$@" >/dev/null 2>&1 || true
	awk '{printf "%.0f", $1/1024}' "$t"
	rm -f "$t"
}
if section rss; then
echo
printf "%-28s %12s %12s %7s\n" "peak RSS, MiB" ours sysbench ratio
for what in dry pgsql; do
	if [ $what = dry ]; then args="oltp_read_write --mysql-dry-run"; else args="oltp_point_select $pgsql_opts --tables=1 --table-size=$size"; fi
	"$bin" oltp_point_select $pgsql_opts --tables=1 --table-size="$size" prepare >/dev/null 2>&1 || true
	o=$(rss "$bin" $args --threads=512 --time=5 run)
	r=nan ratio=nan
	if [ -n "$ref" ]; then
		r=$(rss "$ref" $args --threads=512 --time=5 run)
		ratio=$(awk -v a="$o" -v b="$r" 'BEGIN {printf "%.2f", a/b}')
	fi
	"$bin" oltp_point_select $pgsql_opts --tables=1 cleanup >/dev/null 2>&1 || true
	printf "%-28s %12s %12s %7s\n" "512 threads, $what" "$o" "$r" "$ratio"
	json="$json{\"db\":\"$what\",\"workload\":\"rss_512_threads\",\"rss_mib_ours\":$o,\"rss_mib_ref\":$r,\"rss_ratio\":$ratio},"
done
fi

# --- prepare wall time: --tables=10 --table-size=100000 --------------------
# Alternated pairs like the rest: on a fresh MariaDB the first big load is
# slower (sysbench first: 5.4 s, then 4.9), which one run of each always
# charged to ours.
wall() { # TOOL DB -> seconds
	local opts t0 t1
	if [ "$2" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$1" oltp_read_write $opts --tables=10 cleanup >/dev/null 2>&1 || true
	t0=$(date +%s.%N)
	"$1" oltp_read_write $opts --tables=10 --table-size=100000 --threads=10 prepare >/dev/null 2>&1
	t1=$(date +%s.%N)
	"$1" oltp_read_write $opts --tables=10 cleanup >/dev/null 2>&1 || true
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b-a}'
}
if section prepare; then
echo
printf "%-28s %12s %12s %7s %11s\n" "prepare 10x100000, s" ours sysbench ratio pairs
for db in mysql pgsql; do
	run_pairs wall $db
	o=$(fmed 1 "${ours[@]}") r=nan ratio=nan
	if [ -n "$ref" ]; then
		r=$(fmed 1 "${refs[@]}")
		ratio=$(awk -v a="$o" -v b="$r" 'BEGIN {printf "%.2f", a/b}')
	fi
	# a shorter time is better: the pair ratios are ours/reference too
	read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
	printf "%-28s %12s %12s %7s %11s\n" "$db" "$o" "$r" "$ratio" "$pmin-$pmax"
	json="$json{\"db\":\"$db\",\"workload\":\"prepare_10x100000\",\"seconds_ours\":$o,\"seconds_ref\":$r,\"ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax},"
done
fi

# --- latency at equal throughput: --rate below saturation ----------------
rate=${BENCH_RATE:-2000}
# lat TOOL DB -> "p95 p99", both read from one run's latency histogram
# (the bucket where the running count reaches 95% and 99% of the events,
# as sysbench computes its percentile).
lat() {
	local opts
	if [ "$2" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$1" oltp_point_select $opts --tables=1 --table-size="$size" --threads="$threads" --rate="$rate" --time="$secs" --histogram=on run 2>/dev/null |
		awk '/distribution/ {h = 1; next} h && /\|/ {v[++n] = $1; c[n] = $NF; t += $NF; next} h && n {h = 0}
			END {for (i = 1; i <= n; i++) {s += c[i]; if (!a && s >= t * 0.95) a = v[i]; if (!b && s >= t * 0.99) b = v[i]}
				if (n) print a, b; else print "nan nan"}'
}
if section rate; then
echo
printf "%-28s %10s %10s %10s %10s\n" "--rate=$rate point_select" p95_ours p95_ref p99_ours p99_ref
for db in mysql pgsql; do
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$bin" oltp_point_select $opts --tables=1 --table-size="$size" prepare >/dev/null 2>&1 || true
	run_pairs lat $db
	o95=$(fmed 1 "${ours[@]}")
	o99=$(fmed 2 "${ours[@]}")
	r95=nan r99=nan
	if [ -n "$ref" ]; then
		r95=$(fmed 1 "${refs[@]}")
		r99=$(fmed 2 "${refs[@]}")
	fi
	"$bin" oltp_point_select $opts --tables=1 cleanup >/dev/null 2>&1 || true
	printf "%-28s %10s %10s %10s %10s\n" "$db" "$o95" "$r95" "$o99" "$r99"
	json="$json{\"db\":\"$db\",\"workload\":\"rate_${rate}_point_select\",\"p95_ours\":$o95,\"p95_ref\":$r95,\"p99_ours\":$o99,\"p99_ref\":$r99},"
done
fi

# --- the cost of --results (and --intervals-csv) ----------------------------
# Ours with the results file and a CSV series (and a report every second,
# which both record) against ours with the same reports and no file,
# alternated pairs; the ratio is with/without.
if section results; then
resdir=$(mktemp -d /tmp/sbgo-bench-results.XXXXXX)
withres() { # with|without WHAT -> events/s (dry run) or tps (mysql)
	local files="" args
	if [ "$1" = with ]; then files="--results=$resdir/r.json --intervals-csv=$resdir/r.csv"; fi
	if [ "$2" = dry ]; then args="oltp_read_write --mysql-dry-run --threads=1"; else args="oltp_read_write $mysql_opts --tables=1 --table-size=$size --threads=$threads"; fi
	"$bin" $args --time="$secs" --report-interval=1 $files run 2>/dev/null |
		awk '/transactions:/ {gsub(/\(/,"",$3); print $3}'
}
echo
printf "%-28s %12s %12s %7s %11s\n" "--results cost" with without ratio pairs
"$bin" oltp_read_write $mysql_opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
"$bin" oltp_read_write $mysql_opts --tables=1 --table-size="$size" prepare >/dev/null
for what in dry mysql; do
	ab_pairs withres "with $what" "without $what"
	label="dry run events/s, 1 thread"
	if [ $what = mysql ]; then label="mysql read_write tps, ${threads}t"; fi
	cost_row "$label" "$what" results_cost_oltp_read_write
done
"$bin" oltp_read_write $mysql_opts --tables=1 cleanup >/dev/null 2>&1 || true
rm -rf "$resdir"
fi

# --- the cost of --statement-stats, and of the options of issue 18 off --
# Ours with --statement-stats against ours without (dry run, 1 thread),
# and ours with --max-tries=1000 --failures-detailed and a threshold that
# holds against ours without them: alternated pairs, ratio with/without.
if section statements; then
stmtrun() { # with|without|options -> events/s
	local extra=""
	case $1 in
	with) extra="--statement-stats" ;;
	options) extra="--max-tries=1000 --failures-detailed --threshold=tps>0" ;;
	esac
	"$bin" oltp_read_write --mysql-dry-run --threads=1 --time="$secs" $extra run 2>/dev/null |
		awk '/transactions:/ {gsub(/\(/,"",$3); print $3}'
}
echo
printf "%-28s %12s %12s %7s %11s\n" "dry run oltp_read_write" with without ratio pairs
for what in with options; do
	ab_pairs stmtrun "$what" without
	label="--statement-stats"
	if [ $what = options ]; then label="--max-tries etc., no error"; fi
	cost_row "$label" none "cost_$what"
done
fi

# --- the cost of --server-stats ------------------------------------------
# Ours with --server-stats against ours without, on both servers
# (oltp_point_select, CPU-bound and steadier than read_write, whose TPS
# follows the disk; alternated pairs): the sampler's queries on its own
# connection and its /proc reads every second.
# point_select_cost TITLE FN KEY: an option's cost in oltp_point_select TPS
# on each server, "FN with DB" against "FN without DB" in alternated pairs,
# recorded under KEY.
point_select_cost() {
	local title=$1 fn=$2 key=$3 db opts
	echo
	printf "%-28s %12s %12s %7s %11s\n" "$title" with without ratio pairs
	for db in mysql pgsql; do
		if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
		"$bin" oltp_read_write $opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
		"$bin" oltp_read_write $opts --tables=1 --table-size="$size" prepare >/dev/null
		ab_pairs "$fn" "with $db" "without $db"
		cost_row "$db point_select tps, ${threads}t" "$db" "$key"
		"$bin" oltp_read_write $opts --tables=1 cleanup >/dev/null 2>&1 || true
	done
}

if section server; then
srvrun() { # with|without DB -> tps
	local opts extra=""
	if [ "$2" = mysql ]; then opts=$mysql_opts; else opts="$pgsql_opts --pgsql-sslmode=disable"; fi
	if [ "$1" = with ]; then extra="--server-stats"; fi
	"$bin" oltp_point_select $opts --tables=1 --table-size="$size" --threads="$threads" --time="$secs" $extra run 2>/dev/null |
		awk '/transactions:/ {gsub(/\(/,"",$3); print $3}'
}
point_select_cost "--server-stats cost" srvrun server_stats_cost_oltp_point_select
fi

if section metrics; then
# --metrics-addr with a scrape every second (Prometheus' default is 15 s).
# The scraper (a curl a second) runs beside both sides, against a port
# nothing listens on without the option: its own CPU is not the option's.
metport=${BENCH_METRICS_PORT:-39109}
metrun() { # with|without DB -> tps
	local opts out pid extra="" port=$((metport + 1))
	if [ "$2" = mysql ]; then opts=$mysql_opts; else opts="$pgsql_opts --pgsql-sslmode=disable"; fi
	if [ "$1" = with ]; then extra="--metrics-addr=127.0.0.1:$metport" port=$metport; fi
	out=$(mktemp)
	"$bin" oltp_point_select $opts --tables=1 --table-size="$size" --threads="$threads" --time="$secs" \
		$extra run >"$out" 2>/dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true
		sleep 1
	done
	wait "$pid" || true
	awk '/transactions:/ {gsub(/\(/,"",$3); print $3}' "$out"
	rm -f "$out"
}
point_select_cost "--metrics-addr cost" metrun metrics_addr_cost_oltp_point_select
fi

# --- the cost of the run's GC setting (engine/memory.go) ---------------------
# Ours with its GC headroom (a quarter of the live heap + 4 MiB) against
# ours with Go's default (GOGC=100, which the engine then leaves alone):
# throughput and peak RSS, alternated pairs, at 64 threads, where the
# live heap is some 20 MiB and the setting differs most. The dry run makes
# the most garbage per second (the worst case for collections); the
# PostgreSQL oltp_read_write is the soak's workload.
if section gc; then
gcrun() { # with|without dry|pgsql -> "events/s peak_rss_MiB"
	local env="" args t out
	if [ "$1" = without ]; then env="GOGC=100"; fi
	if [ "$2" = dry ]; then args="oltp_read_write --mysql-dry-run"; else args="oltp_read_write $pgsql_opts --pgsql-sslmode=disable --tables=1 --table-size=$size"; fi
	t=$(mktemp)
	out=$(env $env /usr/bin/time -f "%M" -o "$t" "$bin" $args --threads=64 --time="$secs" run 2>/dev/null |
		awk '/transactions:/ {gsub(/\(/,"",$3); print $3}')
	echo "$out $(awk '{printf "%.1f", $1/1024}' "$t")"
	rm -f "$t"
}
echo
printf "%-28s %12s %12s %7s %11s\n" "GC setting, 64 threads" "ours" "GOGC=100" ratio pairs
"$bin" oltp_read_write $pgsql_opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
"$bin" oltp_read_write $pgsql_opts --tables=1 --table-size="$size" prepare >/dev/null
for what in dry pgsql; do
	ab_pairs gcrun "with $what" "without $what"
	label="dry run events/s"
	if [ $what = pgsql ]; then label="pgsql read_write tps"; fi
	cost_row "$label" "$what" gc_setting_throughput
	w=$(fmed 2 "${ours[@]}") wo=$(fmed 2 "${refs[@]}")
	printf "%-28s %12s %12s %7s\n" "  peak RSS, MiB" "$w" "$wo" "$(awk -v a="$w" -v b="$wo" 'BEGIN {if (b > 0) printf "%.3f", a/b; else print "nan"}')"
	json="$json{\"db\":\"$what\",\"workload\":\"gc_setting_peak_rss_mib\",\"with\":$w,\"without\":$wo},"
done
"$bin" oltp_read_write $pgsql_opts --tables=1 cleanup >/dev/null 2>&1 || true
fi

# --- hundreds of threads: TPS and the latency tail ------------------------
# oltp_point_select at BENCH_MANY threads (512 and 1000) on both servers,
# ours and the reference alternated; p95 and p99 read from each run's
# histogram, as in the rate section. Then one traced run of ours per cell
# (SYSBENCH_GO_TRACE) that internal/tools/tailtrace reads: the share of
# the events' time that was the client's (running, waiting for a
# processor, stopped by the collector), over all events and over those at
# p95 and above.
if section many; then
many() { # TOOL DB THREADS -> "tps p95 p99"
	local opts extra="" out
	if [ "$2" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	if [ "$1" = "$bin" ] && [ "$2" = pgsql ]; then extra="--pgsql-sslmode=disable"; fi
	out=$(mktemp)
	"$1" oltp_point_select $opts $extra --tables=1 --table-size="$size" --threads="$3" --time="$secs" --histogram=on run >"$out" 2>/dev/null || true
	echo "$(awk '/transactions:/ {gsub(/\(/,"",$3); print $3}' "$out") $(awk '/distribution/ {h = 1; next} h && /\|/ {v[++n] = $1; c[n] = $NF; t += $NF; next} h && n {h = 0}
		END {for (i = 1; i <= n; i++) {s += c[i]; if (!a && s >= t * 0.95) a = v[i]; if (!b && s >= t * 0.99) b = v[i]}
			if (n) print a, b; else print "nan nan"}' "$out")"
	rm -f "$out"
}
tracedir=$(mktemp -d /tmp/sbgo-bench-trace.XXXXXX)
go build -o "$tracedir/tailtrace" ./internal/tools/tailtrace
echo
printf "%-8s %-8s %9s %9s %6s %9s %9s %9s %9s %8s %8s\n" db threads tps_ours tps_ref ratio p95_ours p95_ref p99_ours p99_ref client client95
for db in mysql pgsql; do
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$bin" oltp_read_write $opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
	"$bin" oltp_read_write $opts --tables=1 --table-size="$size" prepare >/dev/null
	for th in ${BENCH_MANY:-512 1000}; do
		run_pairs many "$db" "$th"
		ot=$(fmed 1 "${ours[@]}") o95=$(fmed 2 "${ours[@]}") o99=$(fmed 3 "${ours[@]}")
		rt=nan r95=nan r99=nan ratio=nan
		if [ -n "$ref" ]; then
			rt=$(fmed 1 "${refs[@]}") r95=$(fmed 2 "${refs[@]}") r99=$(fmed 3 "${refs[@]}")
			ratio=$(awk -v a="$ot" -v b="$rt" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}')
		fi
		extra=""
		if [ "$db" = pgsql ]; then extra="--pgsql-sslmode=disable"; fi
		SYSBENCH_GO_TRACE="$tracedir/t.trace" "$bin" oltp_point_select $opts $extra --tables=1 --table-size="$size" \
			--threads="$th" --time="$secs" run >/dev/null 2>&1 || true
		read -r call c95 < <("$tracedir/tailtrace" "$tracedir/t.trace" | awk '$1 == "all" {a = $NF} $1 == ">=p95" {b = $NF} END {print a, b}')
		printf "%-8s %-8s %9s %9s %6s %9s %9s %9s %9s %8s %8s\n" "$db" "$th" "$ot" "$rt" "$ratio" "$o95" "$r95" "$o99" "$r99" "$call" "$c95"
		json="$json{\"db\":\"$db\",\"workload\":\"oltp_point_select\",\"threads\":$th,\"tps_ours\":$ot,\"tps_ref\":$rt,\"tps_ratio\":$ratio,\"p95_ours\":$o95,\"p95_ref\":$r95,\"p99_ours\":$o99,\"p99_ref\":$r99,\"client_share\":\"$call\",\"client_share_p95\":\"$c95\"},"
	done
	"$bin" oltp_read_write $opts --tables=1 cleanup >/dev/null 2>&1 || true
done
rm -rf "$tracedir"
echo "(client = the share of the events' time our client spent running, waiting for a processor or stopped by the collector, from an execution trace of one more run of ours; client95 the same over the events at p95 and above)"
fi

echo "${json%,}]" | sed 's/nan/null/g' > bench.json
echo "(cpu = client user+sys ms per 1000 queries; medians of $pairs alternated runs of ${secs}s, $threads threads; JSON in bench.json)"
