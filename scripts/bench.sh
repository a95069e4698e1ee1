#!/usr/bin/env bash
# bench.sh: sysbench-go against the reference sysbench 1.0.20, side by side
# on private local servers, runs alternated A B B A A B ..., medians reported.
#
#   scripts/bench.sh [BIN]     (make bench)
#
# Env: BENCH_PAIRS (default 3), BENCH_TIME (seconds per run, default 10),
# BENCH_THREADS (default 8), BENCH_TABLE_SIZE (default 10000), BENCH_TABLES
# (default 1), BENCH_WORKLOADS and BENCH_SERVER_THREADS (the servers
# section's runs: point_select, read_only and read_write at BENCH_THREADS
# by default), BENCH_ONLY
# (a list of sections to run: servers dry builtin scripts rss prepare rate
# results statements server metrics lua luainsn luaops wire gc many; all
# by default),
# BENCH_MANY (the thread counts of section many, default "512 1000"),
# BENCH_SCRIPTS (section scripts: the reference's Lua scripts it runs).
# Section builtin (the built-in tests' scores; `make bench-builtin` runs it
# alone): BENCH_BUILTIN_PAIRS (default 5), BENCH_BUILTIN_TIME (seconds per
# run, default 2), BENCH_BUILTIN_CASES (an extended regexp: the cases whose
# label matches), BENCH_BOOST=1 (each run in a session of its own at
# autogroup nice -20, needs root: on a shared machine a run then has a CPU).
# Prints a table and writes bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/sysbench-go}
pairs=${BENCH_PAIRS:-3}
secs=${BENCH_TIME:-10}
threads=${BENCH_THREADS:-8}
size=${BENCH_TABLE_SIZE:-10000}
ntables=${BENCH_TABLES:-1} # of the servers section
ncpu=$(nproc)
ref=$(command -v sysbench || true)
if [ -z "$ref" ]; then
	echo "bench.sh: the reference sysbench is not installed (apt-get install -y sysbench): measuring ours only" >&2
fi

# section NAME: whether BENCH_ONLY asks for the section (all without it).
section() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }

dir=$(mktemp -d /tmp/sbgo-bench.XXXXXX)
trap 'bash scripts/testdb.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT INT TERM
export SBTEST_MYSQL_PORT=${SBTEST_BENCH_MYSQL_PORT:-33306}
export SBTEST_PGSQL_PORT=${SBTEST_BENCH_PGSQL_PORT:-35432}
# The servers only for the sections that use them (dry, lua and luainsn
# need none); section many connects 1000 clients to each server.
export SBTEST_MAX_CONNECTIONS=${SBTEST_MAX_CONNECTIONS:-1100}
for s in servers scripts rss prepare rate results statements server metrics wire gc many; do
	if section $s; then
		bash scripts/testdb.sh start "$dir"
		. "$dir/env"
		break
	fi
done

mysql_opts="--mysql-host=127.0.0.1 --mysql-port=$SBTEST_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
# Same TLS setting for both tools: the private server offers TLS (a
# self-signed certificate, for the tests), which libpq's default
# sslmode=prefer would use. Both run in plain text: PGSSLMODE for libpq
# (and our driver), --pgsql-sslmode for ours as well.
export PGSSLMODE=disable
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$SBTEST_PGSQL_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"

# tps [FILE]: the transactions per second of a run's report (the first
# "transactions:" line: --server-stats prints the server's own further on).
tps() { awk '$1 == "transactions:" && !n++ {gsub(/\(/,"",$3); print $3}' "$@"; }

# measure TOOL DB WORKLOAD [THREADS] -> prints "tps p95 cpu_ms_per_1000q"
measure() {
	local tool=$1 db=$2 wl=$3 th=${4:-$threads} opts extra=""
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	if [ "$tool" != "$ref" ] && [ "$db" = pgsql ]; then extra="--pgsql-sslmode=disable"; fi
	local out t0 t1
	out=$(mktemp)
	/usr/bin/time -f "%U %S" -o "$out.time" "$tool" "$wl" $opts $extra --tables="$ntables" --table-size="$size" \
		--threads="$th" --time="$secs" run >"$out" 2>&1 || true
	local tps p95 q cpu
	tps=$(tps "$out")
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
# BENCH_WORKLOADS and BENCH_SERVER_THREADS (a list) choose the runs.
runs=()
for th in ${BENCH_SERVER_THREADS:-$threads}; do
	for wl in ${BENCH_WORKLOADS:-oltp_point_select oltp_read_only oltp_read_write}; do
		runs+=("$wl $th")
	done
done
if [ "$ncpu" -lt "$threads" ] && [ -z "${BENCH_SERVER_THREADS:-}" ]; then runs+=("oltp_point_select $ncpu"); fi
json="["
if section servers; then
printf "%-8s %-20s %10s %10s %6s %11s %8s %8s %8s %8s\n" db workload tps_ours tps_ref ratio pairs p95_ours p95_ref cpu_ours cpu_ref
for db in mysql pgsql; do
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$bin" oltp_read_write $opts --tables="$ntables" --table-size="$size" cleanup >/dev/null 2>&1 || true
	"$bin" oltp_read_write $opts --tables="$ntables" --table-size="$size" --threads="$ntables" prepare >/dev/null
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
		json="$json{\"db\":\"$db\",\"workload\":\"$wl\",\"threads\":$th,\"tables\":$ntables,\"table_size\":$size,\"tps_ours\":$ot,\"tps_ref\":$rt,\"tps_ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax,\"p95_ours\":$op,\"p95_ref\":$rp,\"cpu_ms_per_1000q_ours\":$oc,\"cpu_ms_per_1000q_ref\":$rc},"
	done
	"$bin" oltp_read_write $opts --tables="$ntables" cleanup >/dev/null 2>&1 || true
done
fi

# --- client capacity without a server: dry run events/s ------------------
# The bundled oltp_point_select and oltp_read_write (ours: lua/), and the
# reference's own scripts from /usr/share/sysbench run unchanged by both
# (the general Lua API), at 1 and 2 threads. BENCH_DRY chooses the
# workloads.
dry() { # TOOL WORKLOAD THREADS -> events/s
	"$1" "$2" --mysql-dry-run --threads="$3" --time="$secs" run 2>/dev/null |
		tps
}
if section dry; then
echo
printf "%-44s %12s %12s %7s %11s\n" "dry run, events/s" ours sysbench ratio pairs
for wl in ${BENCH_DRY:-oltp_point_select oltp_read_write /usr/share/sysbench/oltp_point_select.lua /usr/share/sysbench/oltp_read_write.lua}; do
	case $wl in /*) [ -f "$wl" ] || continue ;; esac
	for th in 1 2; do
		run_pairs dry "$wl" $th
		om=$(fmed 1 "${ours[@]}") rm=nan ratio=nan
		if [ -n "$ref" ]; then
			rm=$(fmed 1 "${refs[@]}")
			ratio=$(awk -v a="$om" -v b="$rm" 'BEGIN {printf "%.2f", a/b}')
		fi
		read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
		label=$wl key=$wl
		case $wl in /*) label="$(basename "$wl") (reference's)" key=ref_$(basename "$wl" .lua) ;; esac
		printf "%-44s %12s %12s %7s %11s\n" "$label, $th thread(s)" "$om" "$rm" "$ratio" "$pmin-$pmax"
		json="$json{\"db\":\"none\",\"workload\":\"dry_run_${key}_${th}t\",\"script\":\"$wl\",\"eps_ours\":$om,\"eps_ref\":$rm,\"eps_ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax},"
	done
done
fi

# --- the built-in tests' scores ---------------------------------------------
# cpu, memory, threads, mutex and fileio, each test in the modes that do
# different work per event (33 cases), ours and the reference alternated
# (BENCH_BUILTIN_PAIRS pairs of BENCH_BUILTIN_TIME s runs): the score each
# prints (events/s, MiB/s, operations/s; threads and mutex: events over
# total time), medians and their ratio, ours/sysbench. docs/builtin-tests.md
# says what makes an event cost what the reference's costs.
# boost CMD...: CMD, or with BENCH_BOOST=1 CMD in a new session whose
# autogroup has nice -20 (the kernel shares the CPUs between sessions).
boost() {
	if [ "${BENCH_BOOST:-0}" = 1 ]; then
		setsid --wait bash -c 'echo -20 >/proc/self/autogroup 2>/dev/null; exec "$@"' boost "$@"
	else
		"$@"
	fi
}
# builtin_score FILE: the score of a built-in test's report.
builtin_score() {
	awk '
	/events per second:/ {s = $4}
	/MiB transferred \(/ {gsub(/\(/, "", $4); s = $4}
	/^Total operations:/ {gsub(/\(/, "", $4); ops = $4}
	/read, MiB\/s:/ {r = $3; io = 1}
	/written, MiB\/s:/ {w = $3; io = 1}
	/total time:/ {tt = $3 + 0}
	/total number of events:/ {ev = $5}
	END {
		if (s != "") print s
		else if (io) print r + w
		else if (ops != "") print ops
		else if (tt > 0) printf "%.2f\n", ev / tt
		else print "nan"
	}' "$1"
}
# builtin_run TOOL TEST ARGS... -> the score (fileio runs in its prepared
# directory).
builtin_run() {
	local tool=$1 test=$2 out
	shift 2
	out=$(mktemp)
	if [ "$test" = fileio ]; then
		(cd "$dir/fileio" && boost "$tool" fileio "$@" --time="$bsecs" run) >"$out" 2>&1 || true
	elif [ "$test" = mutex ]; then
		boost "$tool" mutex "$@" run >"$out" 2>&1 || true
	else
		boost "$tool" "$test" "$@" --time="$bsecs" run >"$out" 2>&1 || true
	fi
	builtin_score "$out"
	rm -f "$out"
}
# The cases: label, unit, test and options. The labels are what
# BENCH_BUILTIN_CASES matches.
builtin_cases=(
	"cpu|events/s|cpu"
	"cpu max-prime=2000|events/s|cpu --cpu-max-prime=2000"
	"cpu max-prime=50000|events/s|cpu --cpu-max-prime=50000"
	"cpu 2 threads|events/s|cpu --threads=2"
	"memory write seq 1K|MiB/s|memory --memory-oper=write --memory-access-mode=seq"
	"memory read seq 1K|MiB/s|memory --memory-oper=read --memory-access-mode=seq"
	"memory none seq 1K|ops/s|memory --memory-oper=none --memory-access-mode=seq"
	"memory write rnd 1K|MiB/s|memory --memory-oper=write --memory-access-mode=rnd"
	"memory read rnd 1K|MiB/s|memory --memory-oper=read --memory-access-mode=rnd"
	"memory none rnd 1K|ops/s|memory --memory-oper=none --memory-access-mode=rnd"
	"memory write seq 64K|MiB/s|memory --memory-block-size=64K --memory-oper=write"
	"memory read seq 64K|MiB/s|memory --memory-block-size=64K --memory-oper=read"
	# (not 1M: the size of this machine's L2, where a few lines more or less
	# of either program's own decide whether a block stays in it)
	"memory write seq 256K|MiB/s|memory --memory-block-size=256K --memory-oper=write"
	"memory read seq 256K|MiB/s|memory --memory-block-size=256K --memory-oper=read"
	"memory write seq 4M|MiB/s|memory --memory-block-size=4M --memory-oper=write"
	"memory read seq 4M|MiB/s|memory --memory-block-size=4M --memory-oper=read"
	"memory write rnd 64K|MiB/s|memory --memory-block-size=64K --memory-oper=write --memory-access-mode=rnd"
	"memory read rnd 64K|MiB/s|memory --memory-block-size=64K --memory-oper=read --memory-access-mode=rnd"
	"memory write seq 1K 2 threads global|MiB/s|memory --threads=2 --memory-oper=write"
	"memory write seq 1K 2 threads local|MiB/s|memory --threads=2 --memory-oper=write --memory-scope=local"
	"memory read seq 1K 2 threads global|MiB/s|memory --threads=2 --memory-oper=read"
	"memory read seq 1K 2 threads local|MiB/s|memory --threads=2 --memory-oper=read --memory-scope=local"
	"memory write rnd 1K 2 threads local|MiB/s|memory --threads=2 --memory-oper=write --memory-access-mode=rnd --memory-scope=local"
	"threads|events/s|threads"
	"threads 2 threads|events/s|threads --threads=2"
	"mutex|events/s|mutex"
	"mutex 2 threads|events/s|mutex --threads=2"
	"mutex loops=100000|events/s|mutex --mutex-loops=100000"
	"fileio seqrd|MiB/s|fileio --file-test-mode=seqrd --file-num=16 --file-total-size=64M"
	"fileio rndrd|MiB/s|fileio --file-test-mode=rndrd --file-num=16 --file-total-size=64M"
	"fileio rndwr|MiB/s|fileio --file-test-mode=rndwr --file-num=16 --file-total-size=64M"
	"fileio rndrw|MiB/s|fileio --file-test-mode=rndrw --file-num=16 --file-total-size=64M"
	# last: seqwr starts its files anew, the modes above need them whole
	"fileio seqwr|MiB/s|fileio --file-test-mode=seqwr --file-num=16 --file-total-size=64M"
)
if section builtin; then
bsecs=${BENCH_BUILTIN_TIME:-2}
saved_pairs=$pairs saved_bin=$bin
pairs=${BENCH_BUILTIN_PAIRS:-5}
bin=$(realpath "$bin") # fileio runs in its own directory
mkdir -p "$dir/fileio"
(cd "$dir/fileio" && "$bin" fileio --file-num=16 --file-total-size=64M prepare >/dev/null)
echo
echo "built-in tests' scores: medians of $pairs alternated pairs of ${bsecs}s runs (mutex: one event a thread)"
printf "%-40s %-8s %12s %12s %7s %11s\n" "test and mode" unit ours sysbench ratio pairs
for c in "${builtin_cases[@]}"; do
	IFS='|' read -r label unit args <<<"$c"
	if [ -n "${BENCH_BUILTIN_CASES:-}" ] && ! [[ $label =~ ${BENCH_BUILTIN_CASES} ]]; then continue; fi
	# shellcheck disable=SC2086 # the options are words
	run_pairs builtin_run $args
	om=$(fmed 1 "${ours[@]}") rm=nan ratio=nan
	if [ -n "$ref" ]; then
		rm=$(fmed 1 "${refs[@]}")
		ratio=$(awk -v a="$om" -v b="$rm" 'BEGIN {if (b > 0) printf "%.3f", a/b; else print "nan"}')
	fi
	read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
	printf "%-40s %-8s %12s %12s %7s %11s\n" "$label" "$unit" "$om" "$rm" "$ratio" "$pmin-$pmax"
	json="$json{\"db\":\"none\",\"workload\":\"builtin $label\",\"args\":\"$args\",\"unit\":\"$unit\",\"score_ours\":$om,\"score_ref\":$rm,\"ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax},"
done
(cd "$dir/fileio" && "$bin" fileio --file-num=16 cleanup >/dev/null)
pairs=$saved_pairs bin=$saved_bin
fi

# --- the reference's own scripts, unchanged, on both servers and dry -----
# A user's Lua workload takes the Lua path (the bundled ones run as Go
# plans): the reference's oltp_point_select.lua and oltp_read_write.lua
# from /usr/share/sysbench (BENCH_SCRIPTS), run by both tools with the same
# options, alternated. Per script and server: TPS, and the client's
# user+sys CPU per transaction (microseconds); then the dry run's events/s
# at 1 thread. Ratios are ours/sysbench, medians of the pairs.
measure_tx() { # TOOL DB SCRIPT -> "tps cpu_us_per_transaction"
	local tool=$1 db=$2 wl=$3 opts extra="" out
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	if [ "$tool" != "$ref" ] && [ "$db" = pgsql ]; then extra="--pgsql-sslmode=disable"; fi
	out=$(mktemp)
	/usr/bin/time -f "%U %S" -o "$out.time" "$tool" "$wl" $opts $extra --tables="$ntables" --table-size="$size" \
		--threads="$threads" --time="$secs" run >"$out" 2>&1 || true
	local t n
	t=$(tps "$out")
	n=$(awk '$1 == "transactions:" && !n++ {print $2}' "$out")
	awk -v t="${t:-nan}" -v n="${n:-0}" '{ if (n > 0) printf "%s %.1f\n", t, ($1+$2)*1e6/n; else print "nan nan" }' "$out.time"
	rm -f "$out" "$out.time"
}
if section scripts; then
scripts=()
for wl in ${BENCH_SCRIPTS:-/usr/share/sysbench/oltp_point_select.lua /usr/share/sysbench/oltp_read_write.lua}; do
	[ -f "$wl" ] && scripts+=("$wl")
done
echo
echo "reference's scripts unchanged (Lua path), $threads threads; cpu = client user+sys us per transaction"
printf "%-8s %-24s %10s %10s %6s %11s %8s %8s %6s\n" db script tps_ours tps_ref ratio pairs cpu_ours cpu_ref ratio
for db in mysql pgsql; do
	if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$bin" oltp_read_write $opts --tables="$ntables" --table-size="$size" cleanup >/dev/null 2>&1 || true
	"$bin" oltp_read_write $opts --tables="$ntables" --table-size="$size" --threads="$ntables" prepare >/dev/null
	for wl in "${scripts[@]}"; do
		run_pairs measure_tx $db "$wl"
		ot=$(fmed 1 "${ours[@]}") oc=$(fmed 2 "${ours[@]}")
		rt=nan rc=nan ratio=nan cratio=nan
		if [ -n "$ref" ]; then
			rt=$(fmed 1 "${refs[@]}") rc=$(fmed 2 "${refs[@]}")
			ratio=$(awk -v a="$ot" -v b="$rt" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}')
			cratio=$(awk -v a="$oc" -v b="$rc" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}')
		fi
		read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
		printf "%-8s %-24s %10s %10s %6s %11s %8s %8s %6s\n" $db "$(basename "$wl")" "$ot" "$rt" "$ratio" "$pmin-$pmax" "$oc" "$rc" "$cratio"
		json="$json{\"db\":\"$db\",\"workload\":\"script_$(basename "$wl" .lua)\",\"script\":\"$wl\",\"threads\":$threads,\"tps_ours\":$ot,\"tps_ref\":$rt,\"tps_ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax,\"cpu_us_per_tx_ours\":$oc,\"cpu_us_per_tx_ref\":$rc,\"cpu_ratio\":$cratio},"
	done
	"$bin" oltp_read_write $opts --tables="$ntables" cleanup >/dev/null 2>&1 || true
done
for wl in "${scripts[@]}"; do
	run_pairs dry "$wl" 1
	om=$(fmed 1 "${ours[@]}") rm=nan ratio=nan
	if [ -n "$ref" ]; then
		rm=$(fmed 1 "${refs[@]}")
		ratio=$(awk -v a="$om" -v b="$rm" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "nan"}')
	fi
	read -r pmin pmax < <(spread "$(printf '%s\n' "${ours[@]}")" "$(printf '%s\n' "${refs[@]}")")
	printf "%-8s %-24s %10s %10s %6s %11s   (dry run, 1 thread, events/s)\n" none "$(basename "$wl")" "$om" "$rm" "$ratio" "$pmin-$pmax"
	json="$json{\"db\":\"none\",\"workload\":\"script_dry_$(basename "$wl" .lua)_1t\",\"script\":\"$wl\",\"eps_ours\":$om,\"eps_ref\":$rm,\"eps_ratio\":$ratio,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax},"
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
# hist_pcts P1 P2: reads a run's output with --histogram and prints the
# P1th and P2th percentiles of its latency histogram (the bucket where the
# running count reaches P% of the events, as sysbench computes its
# percentile), in ms.
hist_pcts() {
	awk -v p1="$1" -v p2="$2" '/distribution/ {h = 1; next} h && /\|/ {v[++n] = $1; c[n] = $NF; t += $NF; next} h && n {h = 0}
		END {for (i = 1; i <= n; i++) {s += c[i]; if (!a && s >= t * p1 / 100) a = v[i]; if (!b && s >= t * p2 / 100) b = v[i]}
			if (n) print a, b; else print "nan nan"}'
}

# lat TOOL DB -> "p95 p99", both read from one run's latency histogram.
lat() {
	local opts
	if [ "$2" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
	"$1" oltp_point_select $opts --tables=1 --table-size="$size" --threads="$threads" --rate="$rate" --time="$secs" --histogram=on run 2>/dev/null |
		hist_pcts 95 99
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
		tps
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
		tps
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
		tps
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
	tps "$out"
	rm -f "$out"
}
point_select_cost "--metrics-addr cost" metrun metrics_addr_cost_oltp_point_select
fi

# --- pure Lua: our kernels under five implementations ----------------------
# Each kernel of cli/testdata/lua-kernels run as a script file by ours, by
# plain gopher-lua 1.1.2 (a Go main built here from the module proxy, in a
# temporary module: its own parser, compiler and libraries, default
# options), by lua5.1, luajit -joff and luajit; $pairs rounds, the order of
# the five rotated each round; medians and min-max of the wall time, and
# every implementation's checksum line compared.
# BENCH_KERNELS: some of them by name (all by default).
kernels=()
for k in ${BENCH_KERNELS:-cli/testdata/lua-kernels/*.lua}; do
	kernels+=("cli/testdata/lua-kernels/$(basename "$k" .lua).lua")
done
impl_names=(ours gopher-lua lua5.1 luajit-joff luajit)
impl_cmds=("$bin" "$dir/glua/glua" lua5.1 "luajit -joff" luajit)

# build_glua: the plain gopher-lua harness, in $dir/glua.
build_glua() {
	local d=$dir/glua
	[ -x "$d/glua" ] && return 0
	mkdir -p "$d"
	cat >"$d/main.go" <<'EOF'
// glua runs a Lua file on plain gopher-lua: its own parser and compiler,
// default options, the libraries lua.NewState opens.
package main

import (
	"fmt"
	"os"

	lua "github.com/yuin/gopher-lua"
)

func main() {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoFile(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
EOF
	if ! (cd "$d" && export GOFLAGS=-mod=mod GOWORK=off &&
		go mod init benchglua && go get github.com/yuin/gopher-lua@v1.1.2 && go build -o glua .) >"$d/build.log" 2>&1; then
		echo "bench.sh: building the plain gopher-lua harness failed (see below): its column is empty" >&2
		cat "$d/build.log" >&2
		return 1
	fi
}

# impl_ok I: whether implementation I (an index of impl_cmds) can run.
impl_ok() {
	local cmd=${impl_cmds[$1]}
	command -v "${cmd%% *}" >/dev/null 2>&1
}

# kernel_run KERNEL CMD -> "wall_s cpu_s CHECKSUM LINE" (the checksum is
# the last line that starts with the kernel's name, or FAILED and the
# first line of standard error).
kernel_run() {
	local k=$1 cmd=$2 out t0 t1 rc=0 sum name
	name=$(basename "$k" .lua)
	out=$(mktemp)
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%U %S" -o "$out.time" $cmd "$k" >"$out" 2>"$out.err" || rc=$?
	t1=$EPOCHREALTIME
	sum=$(grep "^$name " "$out" | tail -n 1 || true)
	if [ $rc -ne 0 ] || [ -z "$sum" ]; then sum="FAILED (exit $rc): $(head -n 1 "$out.err")"; fi
	tail -n 1 "$out.time" | awk -v a="$t0" -v b="$t1" -v s="$sum" '{printf "%.3f %.3f %s\n", b - a, $1 + $2, s}'
	rm -f "$out" "$out.time" "$out.err"
}

# medrange FILE K: "median (min-max)" of field K of FILE's lines.
medrange() {
	local m
	m=$(awk -v k="$2" '{print $k}' "$1" | median)
	awk -v k="$2" -v m="$m" '{if (NR == 1 || $k < lo) lo = $k; if (NR == 1 || $k > hi) hi = $k}
		END {if (NR) printf "%.2f (%.2f-%.2f)", m, lo, hi; else print "-"}' "$1"
}

# ratio A B: A/B to 2 decimals ("nan" when either is missing).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a > 0 && b > 0) printf "%.2f", a / b; else print "nan"}'; }

if section lua || section luainsn; then
	build_glua || true
fi
if section lua; then
kdir=$dir/kernels
mkdir -p "$kdir"
for k in "${kernels[@]}"; do
	name=$(basename "$k" .lua)
	for r in $(seq "$pairs"); do
		for j in 0 1 2 3 4; do
			i=$(((j + r - 1) % 5))
			impl_ok $i || continue
			kernel_run "$k" "${impl_cmds[$i]}" >>"$kdir/$name.$i"
		done
	done
done
echo
echo "pure Lua kernels (cli/testdata/lua-kernels), wall s: median (min-max) of $pairs rounds, the five alternated"
printf "%-10s" kernel
for n in "${impl_names[@]}"; do printf " %-20s" "$n"; done
echo
for k in "${kernels[@]}"; do
	name=$(basename "$k" .lua)
	printf "%-10s" "$name"
	for i in 0 1 2 3 4; do
		if [ -s "$kdir/$name.$i" ]; then printf " %-20s" "$(medrange "$kdir/$name.$i" 1)"; else printf " %-20s" -; fi
	done
	echo
done
echo
printf "%-10s %8s %11s %10s %8s %8s %8s  %s\n" "ours / ..." gopher pairs cpu/gopher lua5.1 "jit -joff" luajit checksums
differ=""
for k in "${kernels[@]}"; do
	name=$(basename "$k" .lua)
	declare -A med=() cpu=()
	for i in 0 1 2 3 4; do
		med[$i]=nan cpu[$i]=nan
		if [ -s "$kdir/$name.$i" ]; then
			med[$i]=$(awk '{print $1}' "$kdir/$name.$i" | median)
			cpu[$i]=$(awk '{print $2}' "$kdir/$name.$i" | median)
		fi
	done
	# Round by round, ours against gopher-lua: the pair ran back to back.
	pmin=null pmax=null
	if [ -s "$kdir/$name.1" ]; then
		read -r pmin pmax < <(spread "$(awk '{print $1}' "$kdir/$name.0")" "$(awk '{print $1}' "$kdir/$name.1")")
	fi
	sums=$(for i in 0 1 2 3 4; do if [ -s "$kdir/$name.$i" ]; then cut -d' ' -f3- "$kdir/$name.$i"; fi; done | sort -u)
	agree=true verdict=same
	if [ "$(printf '%s\n' "$sums" | wc -l)" -ne 1 ]; then
		agree=false verdict=DIFFER
		for i in 0 1 2 3 4; do
			[ -s "$kdir/$name.$i" ] || continue
			differ="$differ$(cut -d' ' -f3- "$kdir/$name.$i" | sort -u | sed "s/^/  $name, ${impl_names[$i]}: /")"$'\n'
		done
	fi
	rg=$(ratio "${med[0]}" "${med[1]}")
	printf "%-10s %8s %11s %10s %8s %8s %8s  %s\n" "$name" "$rg" "$pmin-$pmax" "$(ratio "${cpu[0]}" "${cpu[1]}")" \
		"$(ratio "${med[0]}" "${med[2]}")" "$(ratio "${med[0]}" "${med[3]}")" "$(ratio "${med[0]}" "${med[4]}")" "$verdict"
	json="$json{\"db\":\"none\",\"workload\":\"lua_kernel_$name\",\"wall_s\":{\"ours\":${med[0]},\"gopher_lua\":${med[1]},\"lua51\":${med[2]},\"luajit_joff\":${med[3]},\"luajit\":${med[4]}},\"cpu_s\":{\"ours\":${cpu[0]},\"gopher_lua\":${cpu[1]}},\"ratio_gopher_lua\":$rg,\"pair_ratio_min\":$pmin,\"pair_ratio_max\":$pmax,\"checksums_agree\":$agree},"
	unset med cpu
done
if [ -n "$differ" ]; then
	echo "checksums that differ (the kernel did not compute the same thing everywhere):"
	printf '%s' "$differ"
fi
fi

# --- pure Lua: instructions, ours against plain gopher-lua ------------------
# The same kernels under callgrind (valgrind's instruction counts do not
# depend on the machine's load), scaled down by LUA_KERNEL_SCALE, net of
# an empty chunk's start-up: with the collector off (GOGC=off: the
# interpreter's and the libraries' own work, repeatable to 0.1%) and with
# it on (GOGC unset: the collector's share varies by a few per cent from
# run to run with its timing, so BENCH_CG_RUNS runs, median). Go's
# asynchronous preemption is off under valgrind (its signals trip
# callgrind).
cgscale=${BENCH_CG_SCALE:-0.1}
cgruns=${BENCH_CG_RUNS:-1}
# cg_count CMD FILE GOGC -> instructions ("nan" when valgrind failed).
cg_count() {
	local n
	n=$(env ${3:+GOGC=$3} GODEBUG=asyncpreemptoff=1 LUA_KERNEL_SCALE="$cgscale" \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null $1 "$2" 2>&1 >/dev/null |
		awk '/Collected :/ {print $NF}')
	echo "${n:-nan}"
}
if section luainsn; then
if ! command -v valgrind >/dev/null 2>&1 || ! impl_ok 1; then
	echo "bench.sh: luainsn needs valgrind and the gopher-lua harness: skipped" >&2
else
	echo 'local nothing = 0' >"$dir/empty.lua"
	echo
	echo "pure Lua kernels under callgrind, LUA_KERNEL_SCALE=$cgscale, millions of instructions net of an empty chunk"
	printf "%-10s %10s %10s %7s %10s %10s %7s\n" kernel "ours,GC off" gopher "ratio" "ours,GC on" gopher ratio
	declare -A base=()
	for g in off ""; do
		for i in 0 1; do base[$i$g]=$(cg_count "${impl_cmds[$i]}" "$dir/empty.lua" "$g"); done
	done
	for k in "${kernels[@]}"; do
		name=$(basename "$k" .lua)
		declare -A net=()
		for i in 0 1; do
			n=$(cg_count "${impl_cmds[$i]}" "$k" off)
			net[${i}off]=$(awk -v n="$n" -v b="${base[${i}off]}" 'BEGIN {if (n > 0) printf "%.1f", (n - b) / 1e6; else print "nan"}')
		done
		on0=() on1=()
		for r in $(seq "$cgruns"); do
			if [ $((r % 2)) -eq 0 ]; then
				on1+=("$(cg_count "${impl_cmds[1]}" "$k" "")")
				on0+=("$(cg_count "${impl_cmds[0]}" "$k" "")")
			else
				on0+=("$(cg_count "${impl_cmds[0]}" "$k" "")")
				on1+=("$(cg_count "${impl_cmds[1]}" "$k" "")")
			fi
		done
		net[0]=$(printf '%s\n' "${on0[@]}" | median | awk -v b="${base[0]}" '{if ($1 > 0) printf "%.1f", ($1 - b) / 1e6; else print "nan"}')
		net[1]=$(printf '%s\n' "${on1[@]}" | median | awk -v b="${base[1]}" '{if ($1 > 0) printf "%.1f", ($1 - b) / 1e6; else print "nan"}')
		roff=$(awk -v a="${net[0off]}" -v b="${net[1off]}" 'BEGIN {if (a > 0 && b > 0) printf "%.3f", a / b; else print "nan"}')
		ron=$(awk -v a="${net[0]}" -v b="${net[1]}" 'BEGIN {if (a > 0 && b > 0) printf "%.3f", a / b; else print "nan"}')
		printf "%-10s %10s %10s %7s %10s %10s %7s\n" "$name" "${net[0off]}" "${net[1off]}" "$roff" "${net[0]}" "${net[1]}" "$ron"
		json="$json{\"db\":\"none\",\"workload\":\"lua_insn_$name\",\"scale\":$cgscale,\"minsn_gc_off_ours\":${net[0off]},\"minsn_gc_off_gopher_lua\":${net[1off]},\"ratio_gc_off\":$roff,\"minsn_gc_on_ours\":${net[0]},\"minsn_gc_on_gopher_lua\":${net[1]},\"ratio_gc_on\":$ron},"
		unset net
	done
	echo "(start-up, the empty chunk: ours $(awk -v n="${base[0off]}" 'BEGIN {printf "%.1f", n / 1e6}') M, gopher-lua $(awk -v n="${base[1off]}" 'BEGIN {printf "%.1f", n / 1e6}') M instructions with GC off; GC on: median of $cgruns run(s))"
fi
fi

# --- client-added latency: the wire against what the client reports --------
# A loopback capture (tshark) of oltp_point_select, one query per event;
# tools/wirelat pairs each execute with its response on the wire
# (from the request's first segment to the response's last) and gives the
# wire's p50/p99; the client's own p50/p99 come from its --histogram in the
# same run. What the client adds = reported - wire, run by run; ours and
# sysbench alternated, medians.
wsecs=${BENCH_WIRE_TIME:-$secs}
wthreads=${BENCH_WIRE_THREADS:-8 512}
# wire_run TOOL DB THREADS -> "wire_p50 wire_p99 rep_p50 rep_p99 added_p50
# added_p99 paired events dropped broken"
wire_run() {
	local tool=$1 db=$2 th=$3 opts extra="" port proto cap out tp wl rp w50 w99 r50 r99 paired events dropped broken
	if [ "$db" = mysql ]; then
		opts=$mysql_opts port=$SBTEST_MYSQL_PORT proto=mysql
	else
		opts=$pgsql_opts port=$SBTEST_PGSQL_PORT proto=pgsql
		if [ "$tool" != "$ref" ]; then extra="--pgsql-sslmode=disable"; fi
	fi
	cap=$dir/wire.pcapng out=$dir/wire.out
	rm -f "$cap"
	# Ahead of the clients in the scheduler, with a large buffer: at 512
	# threads on 2 CPUs a capture at normal priority drops packets.
	nice -n -10 tshark -i lo -f "tcp port $port" -s 256 -B 128 -w "$cap" -q >/dev/null 2>"$cap.err" &
	tp=$!
	for _ in $(seq 100); do grep -q "Capturing on" "$cap.err" 2>/dev/null && break; sleep 0.1; done
	"$tool" oltp_point_select $opts $extra --tables=1 --table-size="$size" --threads="$th" --time="$wsecs" --histogram run >"$out" 2>&1 || true
	sleep 1
	kill -INT "$tp" 2>/dev/null || true
	wait "$tp" 2>/dev/null || true
	dropped=$(awk '/dropped/ {s += $1} END {print s + 0}' "$cap.err")
	wl=$("$dir/wirelat" -proto "$proto" -port "$port" "$cap")
	w50=$(tr ' ' '\n' <<<"$wl" | awk -F= '$1 == "p50" {print $2}')
	w99=$(tr ' ' '\n' <<<"$wl" | awk -F= '$1 == "p99" {print $2}')
	paired=$(tr ' ' '\n' <<<"$wl" | awk -F= '$1 == "paired" {print $2}')
	broken=$(tr ' ' '\n' <<<"$wl" | awk -F= '$1 == "broken" {print $2}')
	read -r r50 r99 < <(hist_pcts 50 99 <"$out")
	events=$(awk '/total number of events:/ {print $5}' "$out")
	awk -v w50="${w50:-nan}" -v w99="${w99:-nan}" -v r50="$r50" -v r99="$r99" -v p="${paired:-0}" -v e="${events:-0}" -v d="$dropped" -v b="${broken:-0}" \
		'BEGIN {printf "%s %s %s %s %.3f %.3f %d %d %d %d\n", w50, w99, r50, r99, r50 - w50, r99 - w99, p, e, d, b}'
	rm -f "$cap" "$cap.err" "$out"
}
if section wire; then
if ! command -v tshark >/dev/null 2>&1; then
	echo "bench.sh: the wire section needs tshark (apt-get install -y tshark): skipped" >&2
else
	go build -o "$dir/wirelat" ./tools/wirelat
	for db in mysql pgsql; do
		if [ "$db" = mysql ]; then opts=$mysql_opts; else opts=$pgsql_opts; fi
		"$bin" oltp_point_select $opts --tables=1 --table-size="$size" cleanup >/dev/null 2>&1 || true
		"$bin" oltp_point_select $opts --tables=1 --table-size="$size" prepare >/dev/null
		echo
		echo "client-added latency, $db oltp_point_select, ms: medians of $pairs alternated runs of ${wsecs}s"
		printf "%-8s %-9s %9s %9s %9s %9s %9s %9s %9s %9s\n" threads tool wire_p50 wire_p99 rep_p50 rep_p99 added_p50 added_p99 paired events
		for th in $wthreads; do
			run_pairs wire_run $db $th
			for tool in ours sysbench; do
				if [ $tool = ours ]; then lines=("${ours[@]}"); else lines=("${refs[@]}"); fi
				[ ${#lines[@]} -gt 0 ] || continue
				row=()
				for f in 1 2 3 4 5 6 7 8; do row+=("$(fmed $f "${lines[@]}")"); done
				drops=$(printf '%s\n' "${lines[@]}" | awk '{d += $9; b += $10} END {print d + 0, b + 0}')
				printf "%-8s %-9s %9s %9s %9s %9s %9s %9s %9s %9s\n" "$th" "$tool" "${row[@]}"
				json="$json{\"db\":\"$db\",\"workload\":\"wire_point_select_${th}t_$tool\",\"wire_p50\":${row[0]},\"wire_p99\":${row[1]},\"reported_p50\":${row[2]},\"reported_p99\":${row[3]},\"added_p50\":${row[4]},\"added_p99\":${row[5]},\"paired\":${row[6]},\"events\":${row[7]},\"dropped_and_broken\":\"$drops\"},"
				if [ "$drops" != "0 0" ]; then echo "  ($tool, $th threads: packets dropped by the capture, exchanges broken: $drops over all runs)"; fi
			done
			if [ -n "$ref" ]; then
				printf "%-8s %-9s %49s %9s %9s\n" "$th" "ours-ref" "added, ours - sysbench:" \
					"$(awk -v a="$(fmed 5 "${ours[@]}")" -v b="$(fmed 5 "${refs[@]}")" 'BEGIN {printf "%.3f", a - b}')" \
					"$(awk -v a="$(fmed 6 "${ours[@]}")" -v b="$(fmed 6 "${refs[@]}")" 'BEGIN {printf "%.3f", a - b}')"
			fi
		done
		"$bin" oltp_point_select $opts --tables=1 cleanup >/dev/null 2>&1 || true
	done
fi
fi

# --- the cost of the run's GC setting (engine/memory.go) ---------------------
# Ours with its heap goal (engine/memory.go: set when the workers are
# ready, 25% of the live heap + 4 MiB, kept in bytes) against
# ours with Go's default (GOGC=100, which the engine then leaves alone):
# throughput and peak RSS, alternated pairs, at 64 threads, where the
# live heap is some 20 MiB and the setting differs most. The dry run makes
# the most garbage per second (the worst case for collections); the
# PostgreSQL oltp_read_write is the soak's workload.
if section gc; then
gcrun() { # with|without dry|pgsql -> "events/s peak_rss_MiB"
	local env="" args t out
	if [ "$1" = without ]; then env="GOGC=100"; fi
	if [ "$2" = dry ]; then args="oltp_read_write --mysql-dry-run"; else args="oltp_read_write $pgsql_opts --pgsql-sslmode=disable --tables=4 --table-size=$size"; fi
	t=$(mktemp)
	out=$(env $env /usr/bin/time -f "%M" -o "$t" "$bin" $args --threads=64 --time="$secs" run 2>/dev/null |
		tps)
	echo "$out $(awk '{printf "%.1f", $1/1024}' "$t")"
	rm -f "$t"
}
echo
printf "%-28s %12s %12s %7s %11s\n" "GC setting, 64 threads" "ours" "GOGC=100" ratio pairs
"$bin" oltp_read_write $pgsql_opts --tables=4 --table-size="$size" cleanup >/dev/null 2>&1 || true
"$bin" oltp_read_write $pgsql_opts --tables=4 --table-size="$size" --threads=4 prepare >/dev/null
for what in dry pgsql; do
	ab_pairs gcrun "with $what" "without $what"
	label="dry run events/s"
	if [ $what = pgsql ]; then label="pgsql read_write tps"; fi
	cost_row "$label" "$what" gc_setting_throughput
	w=$(fmed 2 "${ours[@]}") wo=$(fmed 2 "${refs[@]}")
	printf "%-28s %12s %12s %7s\n" "  peak RSS, MiB" "$w" "$wo" "$(awk -v a="$w" -v b="$wo" 'BEGIN {if (b > 0) printf "%.3f", a/b; else print "nan"}')"
	json="$json{\"db\":\"$what\",\"workload\":\"gc_setting_peak_rss_mib\",\"with\":$w,\"without\":$wo},"
done
"$bin" oltp_read_write $pgsql_opts --tables=4 cleanup >/dev/null 2>&1 || true
fi

# --- hundreds of threads: TPS and the latency tail ------------------------
# oltp_point_select at BENCH_MANY threads (512 and 1000) on both servers,
# ours and the reference alternated; p95 and p99 read from each run's
# histogram, as in the rate section. Then one traced run of ours per cell
# (SYSBENCH_GO_TRACE) that tools/tailtrace reads: the share of
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
	echo "$(tps "$out") $(awk '/distribution/ {h = 1; next} h && /\|/ {v[++n] = $1; c[n] = $NF; t += $NF; next} h && n {h = 0}
		END {for (i = 1; i <= n; i++) {s += c[i]; if (!a && s >= t * 0.95) a = v[i]; if (!b && s >= t * 0.99) b = v[i]}
			if (n) print a, b; else print "nan nan"}' "$out")"
	rm -f "$out"
}
tracedir=$(mktemp -d /tmp/sbgo-bench-trace.XXXXXX)
go build -o "$tracedir/tailtrace" ./tools/tailtrace
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

# --- instructions per Lua operation: plain gopher-lua against ours -------
# What an event's field reads and calls cost in gopher-lua itself, and what
# ours adds around them (scripts/luaops.sh; needs valgrind).
if section luaops; then
	echo
	echo "instructions per Lua operation (callgrind), plain gopher-lua 1.1.2 and ours"
	bash scripts/luaops.sh "$bin" || echo "bench.sh: luaops failed" >&2
fi

echo "${json%,}]" | sed 's/nan/null/g' > bench.json
if section servers; then
	echo "(cpu = client user+sys ms per 1000 queries; medians of $pairs alternated runs of ${secs}s; $ntables table(s) of $size rows)"
fi
echo "(JSON in bench.json)"
