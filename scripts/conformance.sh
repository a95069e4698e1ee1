#!/usr/bin/env bash
# conformance.sh runs sysbench 1.0.20's own regression suite (cram tests)
# against our binary, and against the reference sysbench when it is
# installed, and prints a pass table.
#
#   scripts/conformance.sh SYSBENCH_SRC [test ...]
#
# SYSBENCH_SRC is a checkout of akopytov/sysbench at tag 1.0.20. The suite
# is run from there (copied to a scratch directory, because cram writes its
# .err files next to the tests); nothing of it enters this repository.
#
# Environment:
#   SYSBENCH_GO_BIN   our binary (default: bin/sysbench-go, built here)
#   SYSBENCH_REF      the reference binary (default: sysbench in PATH if it
#                     says 1.0.20; "none" skips the reference column; "keep"
#                     reuses the reference's results in CONFORMANCE_OUT)
#   SBTEST_MYSQL_ARGS, SBTEST_PGSQL_ARGS
#                     connection options of servers to test against; when
#                     unset, private servers are started with testdb.sh
#   CONFORMANCE_MYSQL_SOCKET
#                     the MySQL socket the suite's `mysql -uroot sbtest`
#                     should use (a client's my.cnf socket would win over
#                     MYSQL_UNIX_PORT); PGHOST/PGPORT/PGUSER serve psql
#   CONFORMANCE_RESET 1: empty the sbtest databases before each test (the
#                     default with private servers), so no test sees the
#                     tables another one left (it needs `mysql -uroot` and
#                     `psql` as the suite does)
#   CONFORMANCE_OUT   directory for the .err files and the table
#                     (default: a temporary directory, printed at the end)
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

src=${1:-${SYSBENCH_SRC:-}}
[ -n "$src" ] || {
	echo "usage: $0 SYSBENCH_SRC [test ...]  (SYSBENCH_SRC: a checkout of sysbench 1.0.20)" >&2
	exit 2
}
[ $# -gt 0 ] && shift
given=$src
src=$(cd "$src" 2>/dev/null && pwd) || {
	echo "conformance.sh: no such directory: $given" >&2
	exit 2
}
[ -d "$src/tests/t" ] && [ -d "$src/src/lua" ] || {
	echo "conformance.sh: $src is not a sysbench source checkout (no tests/t or src/lua)" >&2
	exit 2
}
if [ -f "$src/configure.ac" ] && ! grep -q '\[1\.0\.20\]' "$src/configure.ac"; then
	echo "conformance.sh: warning: $src does not look like sysbench 1.0.20 (configure.ac)" >&2
fi

cram=$(command -v cram3 || command -v cram || true)
if [ -z "$cram" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-cram >/dev/null
		cram=$(command -v cram3 || true)
	fi
	[ -n "$cram" ] || {
		echo "conformance.sh: cram is missing: apt-get install python3-cram" >&2
		exit 1
	}
fi

ours=${SYSBENCH_GO_BIN:-}
if [ -z "$ours" ]; then
	go build -o bin/sysbench-go . || exit 1
	ours=$repo/bin/sysbench-go
fi
ref=${SYSBENCH_REF:-}
keep_ref=""
if [ "$ref" = keep ]; then
	keep_ref=1
	[ -n "${CONFORMANCE_OUT:-}" ] && [ -d "$CONFORMANCE_OUT/reference" ] || {
		echo "conformance.sh: SYSBENCH_REF=keep needs CONFORMANCE_OUT with a reference run" >&2
		exit 2
	}
fi
if [ -z "$ref" ]; then
	ref=$(command -v sysbench || true)
	# sysbench-go installed as sysbench answers --version as sysbench
	# 1.0.20 does; its banner names its Lua engine, gopher-lua.
	if [ -n "$ref" ] && { ! "$ref" --version 2>/dev/null | grep -q '^sysbench 1\.0\.20$' ||
		"$ref" --events=1 cpu run 2>/dev/null | head -n 1 | grep -q gopher-lua; }; then
		ref="" # a sysbench-go installed as sysbench, or another version
	fi
fi
[ "$ref" = none ] && ref=""

out=${CONFORMANCE_OUT:-$(mktemp -d /tmp/sbgo-conf.XXXXXX)}
mkdir -p "$out"
work=$(mktemp -d /tmp/sbgo-suite.XXXXXX)
dbdir=""
cleanup() {
	[ -n "$dbdir" ] && bash "$repo/scripts/testdb.sh" stop "$dbdir" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -z "${SBTEST_MYSQL_ARGS:-}${SBTEST_PGSQL_ARGS:-}" ]; then
	dbdir=$(mktemp -d /tmp/sbgo-cdb.XXXXXX)
	export SBTEST_MYSQL_PORT=${SBTEST_CONF_MYSQL_PORT:-33306}
	export SBTEST_PGSQL_PORT=${SBTEST_CONF_PGSQL_PORT:-35432}
	bash scripts/testdb.sh start "$dbdir" || exit 1
	# shellcheck disable=SC1091
	. "$dbdir/env"
	export SBTEST_MYSQL_ARGS="--mysql-host=$SBTEST_MYSQL_HOST --mysql-port=$SBTEST_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
	export SBTEST_PGSQL_ARGS="--pgsql-host=$SBTEST_PGSQL_HOST --pgsql-port=$SBTEST_PGSQL_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
	# The suite shows tables with `mysql -uroot sbtest` and `psql sbtest`.
	export CONFORMANCE_MYSQL_SOCKET=$SBTEST_MYSQL_SOCKET
	export PGHOST=$SBTEST_PGSQL_SOCKET PGPORT=$SBTEST_PGSQL_PORT PGUSER=postgres
	: "${CONFORMANCE_RESET:=1}"
fi

# mysql_client runs the mysql client against the suite's server.
real_mysql=$(command -v mariadb || command -v mysql || true)
mysql_client() {
	if [ -n "${CONFORMANCE_MYSQL_SOCKET:-}" ]; then
		"$real_mysql" --socket="$CONFORMANCE_MYSQL_SOCKET" "$@"
	else
		"$real_mysql" "$@"
	fi
}

# reset_db empties the sbtest databases, as freshly created.
reset_db() {
	[ "${CONFORMANCE_RESET:-}" = 1 ] || return 0
	if [ -n "${SBTEST_MYSQL_ARGS:-}" ]; then
		mysql_client -uroot -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest' >/dev/null 2>&1 ||
			echo "conformance.sh: could not reset the MySQL database sbtest" >&2
	fi
	if [ -n "${SBTEST_PGSQL_ARGS:-}" ]; then
		psql -q -d sbtest -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public; GRANT ALL ON SCHEMA public TO sbtest' >/dev/null 2>&1 ||
			echo "conformance.sh: could not reset the PostgreSQL database sbtest" >&2
	fi
}

# Tests to run: all of t/*.t, or the names given.
tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do tests+=("${t%.t}"); done
else
	for f in "$src"/tests/t/*.t; do
		t=${f##*/}
		tests+=("${t%.t}")
	done
fi

# run_suite NAME BINARY: runs every test with BINARY as sysbench first on
# PATH; leaves NAME/<test>.status (pass, fail, skip) and NAME/<test>.err.
run_suite() {
	local name=$1 bin=$2 suite
	suite=$work/$name
	mkdir -p "$suite/bin" "$out/$name"
	cp -r "$src/tests/." "$suite/"
	ln -sf "$bin" "$suite/bin/sysbench"
	if [ -n "${CONFORMANCE_MYSQL_SOCKET:-}" ] && [ -n "$real_mysql" ]; then
		printf '#!/bin/sh\nexec %s --socket=%s "$@"\n' "$real_mysql" "$CONFORMANCE_MYSQL_SOCKET" >"$suite/bin/mysql"
		chmod +x "$suite/bin/mysql"
	fi
	cat >"$suite/include/config.sh" <<EOF
export SBTEST_VERSION_STRING="sysbench 1.0.20"
export SBTEST_VERSION="1.0.20"
export SBTEST_HAS_MYSQL=${SBTEST_MYSQL_ARGS:+1}
export SBTEST_HAS_PGSQL=${SBTEST_PGSQL_ARGS:+1}
EOF
	local t rc
	for t in "${tests[@]}"; do
		reset_db
		(
			cd "$suite" || exit 1
			export SBTEST_ROOTDIR=$suite SBTEST_SCRIPTDIR=$src/src/lua SBTEST_SUITEDIR=$suite/t
			export SBTEST_CONFIG=$suite/include/config.sh SBTEST_INCDIR=$suite/include
			export PATH="$suite/bin:$PATH"
			export LUA_PATH="$SBTEST_SCRIPTDIR/?;$SBTEST_SCRIPTDIR/?.lua;$SBTEST_INCDIR/?;$SBTEST_INCDIR/?.lua"
			# shellcheck disable=SC1090
			. "$SBTEST_CONFIG"
			timeout 600 "$cram" --shell=/bin/bash "t/$t.t" >"$out/$name/$t.log" 2>&1
		)
		rc=$?
		rm -f "$out/$name/$t.err" "$out/$name/$t.diff"
		case $rc in
		0) if grep -q '^# Ran 1 tests, 1 skipped' "$out/$name/$t.log"; then echo skip; else echo pass; fi ;;
		*)
			# cram leaves the actual output in .t.err and prints its diff
			# (glob and regex lines that match are not in it).
			[ -f "$suite/t/$t.t.err" ] && cp "$suite/t/$t.t.err" "$out/$name/$t.err"
			sed -n '/^--- /,$p' "$out/$name/$t.log" | grep -v '^# Ran ' >"$out/$name/$t.diff"
			echo fail
			;;
		esac >"$out/$name/$t.status"
		printf '%-32s %-10s %s\n' "$t" "$name" "$(cat "$out/$name/$t.status")" >&2
	done
}

if [ -n "$keep_ref" ]; then
	for t in "${tests[@]}"; do
		[ -f "$out/reference/$t.status" ] || {
			echo "conformance.sh: no kept reference result for $t" >&2
			exit 2
		}
	done
elif [ -n "$ref" ]; then
	run_suite reference "$ref"
fi
run_suite sysbench-go "$ours"

# The differences this project keeps on purpose (docs/compatibility.md).
deliberate() {
	case $1 in
	drivers | opt_help) echo "the sqlite driver is listed" ;;
	script_oltp_help) echo "our wording of the OLTP options" ;;
	*) return 1 ;;
	esac
}

# masked_changes FILE.diff: the lines the diff adds or removes, with what
# varies from run to run masked (numbers, addresses, temp dirs, the banner
# where a diff hunk shows it),
# sorted so two runs' sets can be compared.
masked_changes() {
	[ -f "$1" ] || return 0
	grep -v '^+++ \|^--- ' "$1" | grep '^[+-]' |
		sed -E 's#/tmp/cramtests-[^/ ]*#TMP#g; s#/tmp/sbgo-suite[^ ]*#SUITE#g; s/^([+-] +)sysbench 1\.0\.20 \(.*\)$/\1BANNER/;
			s/0x[0-9a-fA-F]+/ADDR/g; s/[0-9]+(\.[0-9]+)?/N/g' | sort
}

# changed_lines FILE.diff: the number of lines the diff adds or removes.
changed_lines() {
	[ -f "$1" ] || {
		echo 0
		return
	}
	grep -v '^+++ \|^--- ' "$1" | grep -c '^[+-]' || true
}

table=$out/table.md
{
	if [ -n "$ref" ]; then
		echo "| test | sysbench 1.0.20 | sysbench-go | note |"
		echo "|---|---|---|---|"
	else
		echo "| test | sysbench-go | note |"
		echo "|---|---|---|"
	fi
	for t in "${tests[@]}"; do
		o=$(cat "$out/sysbench-go/$t.status")
		note=""
		if d=$(deliberate "$t"); then
			note="deliberate: $d"
		fi
		if [ -n "$ref" ]; then
			r=$(cat "$out/reference/$t.status")
			if [ "$r" = fail ] && [ "$o" = fail ] && [ -z "$note" ]; then
				# Both differ from the expected output (server version text):
				# compare how much.
				rn=$(changed_lines "$out/reference/$t.diff")
				on=$(changed_lines "$out/sysbench-go/$t.diff")
				# Lines only our diff has, numbers masked.
				extra=$(comm -23 <(masked_changes "$out/sysbench-go/$t.diff") <(masked_changes "$out/reference/$t.diff") | wc -l)
				if [ "$extra" -eq 0 ]; then
					note="differs no more than the reference ($on changed lines, reference $rn)"
				else
					note="$extra changed lines beyond the reference's ($on changed lines, reference $rn)"
				fi
			fi
			echo "| $t | $r | $o | $note |"
		else
			echo "| $t | $o | $note |"
		fi
	done
} >"$table"

cat "$table"
# count NAME STATUS: how many of the tests run have that status.
count() {
	local n=0 t
	for t in "${tests[@]}"; do
		[ "$(cat "$out/$1/$t.status")" = "$2" ] && n=$((n + 1))
	done
	echo $n
}
pass=$(count sysbench-go pass)
echo
echo "sysbench-go passes $pass of ${#tests[@]} tests"
if [ -n "$ref" ]; then
	rpass=$(count reference pass)
	both=0
	for t in "${tests[@]}"; do
		if [ "$(cat "$out/reference/$t.status")" = pass ] && [ "$(cat "$out/sysbench-go/$t.status")" = pass ]; then
			both=$((both + 1))
		fi
	done
	echo "sysbench 1.0.20 passes $rpass; sysbench-go passes $both of those"
fi
echo "details (cram diffs): $out"
