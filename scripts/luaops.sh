#!/usr/bin/env bash
# luaops.sh: instructions per Lua operation, plain gopher-lua 1.1.2 (the
# tools/luaops host) against sysbench-go running the same operations in a
# script's event() (--mysql-dry-run, 1 thread). Each operation is measured
# as (an event with 11 copies less one with 1) / 10, each event's count as
# (instructions at HI events less at LO) / (HI - LO), under callgrind;
# medians of LUAOPS_RUNS (3). bench.sh runs it as section luaops.
#
#   scripts/luaops.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/sysbench-go}
runs=${LUAOPS_RUNS:-3}
command -v valgrind >/dev/null || { echo "luaops.sh: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
dir=$(mktemp -d /tmp/luaops.XXXXXX)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/luaops" ./tools/luaops

# The operations: a line before them, the operation, and ours' spelling
# when it differs (a parameter's set, a draw, for plain's do-nothing Go
# functions).
ops="global field chain luacall gocall method_ud method_tab"
declare -A pre op ours
pre[global]="local x";          op[global]="x = g"
pre[field]="local t, x = T";    op[field]="x = t.k5"
pre[chain]="local x";           op[chain]="x = sysbench.opt.table_size"
pre[luacall]="local h = H";     op[luacall]="h()"
pre[gocall]="local u = F";      op[gocall]="u(1, 10000)"
pre[method_ud]="local o = OUD"; op[method_ud]="o:m(1)"; ours[method_ud]="o:set(1)"
pre[method_tab]="local o = OTAB"; op[method_tab]="o:m(1)"
common='g = 1
T = {k0 = 0, k1 = 1, k2 = 2, k3 = 3, k4 = 4, k5 = 5, k6 = 6, k7 = 7, k8 = 8, k9 = 9}
H = function() return 1 end'
plain_pre="$common
OUD, OTAB, F = o_ud, o_tab, f"
ours_pre="$common
sysbench.cmdline.options = {table_size = {\"rows\", 10000}}
F = sysbench.rand.uniform
function thread_init()
  local st = sysbench.sql.driver():connect():prepare(\"SELECT ?\")
  OUD = st:bind_create(sysbench.sql.type.INT)
end"
kernel() { # FILE PRE BODY COPIES
	{
		echo "$2"
		echo "function event()"
		echo "  ${pre[$k]}"
		for ((i = 0; i < $4; i++)); do echo "  $3"; done
		echo "end"
	} >"$1"
}
ir() { awk '/Collected :/ {print $NF}'; }
plain_event() { # FILE -> instructions an event
	local lo hi
	lo=$(GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/luaops" 20000 "$1" 2>&1 | ir)
	hi=$(GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/luaops" 60000 "$1" 2>&1 | ir)
	echo $(((hi - lo) / 40000))
}
ours_event() {
	local lo hi
	lo=$(GOMAXPROCS=2 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file=/dev/null "$bin" "$1" --mysql-dry-run --threads=1 --events=10000 --time=0 run 2>&1 >/dev/null | ir)
	hi=$(GOMAXPROCS=2 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file=/dev/null "$bin" "$1" --mysql-dry-run --threads=1 --events=40000 --time=0 run 2>&1 >/dev/null | ir)
	echo $(((hi - lo) / 30000))
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
per_op() { # HOST -> median over the runs of (event11 - event1) / 10
	local host=$1 prefix=$2 r a b
	for ((r = 0; r < runs; r++)); do
		a=$("${host}_event" "$dir/${prefix}_${k}_1.lua")
		b=$("${host}_event" "$dir/${prefix}_${k}_11.lua")
		echo $(((b - a) / 10))
	done | median
}

printf "%-11s %-34s %8s %8s\n" operation "(ours: as written here)" plain ours
for k in $ops; do
	kernel "$dir/p_${k}_1.lua" "$plain_pre" "${op[$k]}" 1
	kernel "$dir/p_${k}_11.lua" "$plain_pre" "${op[$k]}" 11
	o=${ours[$k]:-${op[$k]}} om=-
	if [ "$k" != method_tab ]; then
		kernel "$dir/o_${k}_1.lua" "$ours_pre" "$o" 1
		kernel "$dir/o_${k}_11.lua" "$ours_pre" "$o" 11
		om=$(per_op ours o)
	fi
	printf "%-11s %-34s %8s %8s\n" "$k" "$o" "$(per_op plain p)" "$om"
done
# The event itself: the host's call of an empty event().
k=empty
printf '%s\nfunction event() end\n' "$plain_pre" >"$dir/p_empty.lua"
printf '%s\nfunction event() end\n' "$ours_pre" >"$dir/o_empty.lua"
pe=$(for ((r = 0; r < runs; r++)); do plain_event "$dir/p_empty.lua"; done | median)
oe=$(for ((r = 0; r < runs; r++)); do ours_event "$dir/o_empty.lua"; done | median)
printf "%-11s %-34s %8s %8s\n" event "an empty event(), called by the host" "$pe" "$oe"
