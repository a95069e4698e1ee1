#!/usr/bin/env bash
# test.sh runs the whole test suite against private database servers.
# Under CI=true a server that cannot start fails the run; locally the
# integration tests skip with a message when a server is missing.
set -uo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d /tmp/sbgo-test.XXXXXX)
# The servers' own users (postgres) reach their directories through it.
chmod 755 "$dir"
shared_pid= quiet_pid=
cleanup() {
	# A start still under way finishes first, so that no server outlives us.
	wait $shared_pid $quiet_pid 2>/dev/null
	bash scripts/testdb.sh stop "$dir/shared" >/dev/null 2>&1 &
	bash scripts/testdb.sh stop "$dir/quiet" >/dev/null 2>&1 &
	wait
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

# timed runs a step and says on stderr how long it took (seconds of the
# wall clock, and of CPU in this shell's children): where a run's time
# goes, cold cache or warm (docs/testing.md).
timed() {
	local name=$1 start=$SECONDS rc cpu0 cpu1
	shift
	times >"$dir/times"
	cpu0=$(child_cpu <"$dir/times")
	"$@"
	rc=$?
	times >"$dir/times"
	cpu1=$(child_cpu <"$dir/times")
	echo "test.sh: $name: $((SECONDS - start)) s, $((cpu1 - cpu0)) CPU-s" >&2
	return $rc
}
# child_cpu reads the shell's times (which a subshell cannot give: its
# children are not the shell's) and says the CPU seconds its finished
# children used.
child_cpu() { awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'; }

# Ports of their own, so a developer's dev instance can keep running; the
# quiet pair serves the tests that read a server's whole counters
# (testenv.QuietServer), on ports of its own too. The four servers start
# while vet and the build run.
export SBTEST_MYSQL_PORT=${SBTEST_TEST_MYSQL_PORT:-23306}
export SBTEST_PGSQL_PORT=${SBTEST_TEST_PGSQL_PORT:-25432}
quiet_mysql=${SBTEST_TEST_QUIET_MYSQL_PORT:-23307}
quiet_pgsql=${SBTEST_TEST_QUIET_PGSQL_PORT:-25433}
# Without a flush to disk at each commit: the tests kill servers, never
# the machine (scripts/testdb.sh).
export SBTEST_FSYNC=off
# Missing packages are installed first (as root), once, before the starts
# run side by side.
if bash scripts/testdb.sh ensure "$dir"; then
	bash scripts/testdb.sh start "$dir/shared" >"$dir/shared.log" 2>&1 &
	shared_pid=$!
	SBTEST_MYSQL_PORT=$quiet_mysql SBTEST_PGSQL_PORT=$quiet_pgsql SBTEST_ENV_PREFIX=SBTEST_QUIET_ \
		bash scripts/testdb.sh start "$dir/quiet" >"$dir/quiet.log" 2>&1 &
	quiet_pid=$!
fi

# servers waits for the four servers and exports their settings.
servers() {
	local ok=0
	if [ -n "$shared_pid" ]; then
		ok=1
		wait "$shared_pid" || ok=0
		wait "$quiet_pid" || ok=0
		shared_pid= quiet_pid=
		cat "$dir/shared.log" "$dir/quiet.log" >&2
	fi
	if [ "$ok" = 1 ]; then
		# shellcheck disable=SC1091
		. "$dir/shared/env"
		# shellcheck disable=SC1091
		. "$dir/quiet/env"
		return 0
	fi
	if [ "${CI:-}" = "true" ]; then
		echo "test.sh: could not start the test servers" >&2
		exit 1
	fi
	echo "test.sh: no database servers: integration tests will skip" >&2
}

# The HTML report's test opens it in Debian's chromium, headless.
if ! command -v chromium >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "test.sh: installing chromium with apt-get (the HTML report's browser test)" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	else
		echo "test.sh: no chromium: the HTML report's browser test will skip (sudo apt-get install -y chromium)" >&2
	fi
fi
# The progress's test runs the program in a real terminal: tmux.
if ! command -v tmux >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "test.sh: installing tmux with apt-get (the progress's terminal test)" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
	else
		echo "test.sh: no tmux: the progress's terminal test will skip (sudo apt-get install -y tmux)" >&2
	fi
fi
# Test artifacts (the HTML report's screenshot) are kept in artifacts/.
export SBTEST_ARTIFACTS=${SBTEST_ARTIFACTS:-$PWD/artifacts}

unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
# The race detector's build, without its pointer checks (checkptr) in the
# modernc.org modules alone: their SQLite, translated from C, converts
# unsafe pointers in every statement it steps, and the checks cost the
# suite's SQLite runs two thirds of their CPU (TestBundledWorkloads/sqlite,
# 19.2 CPU-s with them, 6.6 without). Our own packages keep them, and every
# package keeps the race detector. The test binaries are linked without
# DWARF (-w), which only a debugger reads: a race report or a panic names
# its functions and lines from the binary's own tables, and each of the 35
# links costs a third less. And -trimpath, as make build has: the build
# cache then knows the packages by their import paths, not by where the
# checkout is, so a fresh clone of a commit this machine has tested
# compiles nothing again (vet took 20 s of a fresh clone's run, 2 s with
# it).
race=(-race '-gcflags=modernc.org/...=-d=checkptr=0' -ldflags=-w -trimpath)
# vet with the tests' build flags: the packages it compiles for its checks
# are then the ones go test runs (a cold cache compiled every dependency
# once more for a plain vet, 375 CPU-seconds of 2 cores').
timed vet go vet "${race[@]}" ./... || exit 1
timed build make -s build || exit 1
timed servers servers
export SYSBENCH_GO_BIN="$PWD/bin/sysbench-go"
timed tests go test "${race[@]}" -count=1 -p 4 -parallel 8 -timeout 20m ./...
