#!/usr/bin/env bash
# test.sh runs the whole test suite against private database servers.
# Under CI=true a server that cannot start fails the run; locally the
# integration tests skip with a message when a server is missing.
set -uo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d /tmp/sbgo-test.XXXXXX)
cleanup() { bash scripts/testdb.sh stop "$dir" >/dev/null 2>&1 || true; }
trap cleanup EXIT INT TERM

# Ports of their own, so a developer's dev instance can keep running.
export SBTEST_MYSQL_PORT=${SBTEST_TEST_MYSQL_PORT:-23306}
export SBTEST_PGSQL_PORT=${SBTEST_TEST_PGSQL_PORT:-25432}
if bash scripts/testdb.sh start "$dir"; then
	# shellcheck disable=SC1091
	. "$dir/env"
else
	if [ "${CI:-}" = "true" ]; then
		echo "test.sh: could not start the test servers" >&2
		exit 1
	fi
	echo "test.sh: no database servers: integration tests will skip" >&2
fi

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
go vet ./... || exit 1
make -s build || exit 1
export SYSBENCH_GO_BIN="$PWD/bin/sysbench-go"
go test -race -count=1 -p 4 -parallel 8 -timeout 20m ./...
