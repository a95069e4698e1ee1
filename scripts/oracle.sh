#!/usr/bin/env bash
# oracle.sh runs the differential harness (tools/oracle) over every case
# it generates: our binary beside the reference sysbench 1.0.20, stdout,
# stderr and exit status compared apart, measured figures masked. It
# prints the differences docs/differences.toml does not list (and listed
# ones no longer seen), then the counts; exit status 1 when there are any.
#
#   scripts/oracle.sh [oracle flags: -run REGEXP, -v, -list, -parallel N]
#
# The cases that need a database server run against SBTEST_MYSQL_* /
# SBTEST_PGSQL_* when set (scripts/testdb.sh writes them); otherwise
# private servers are started here and stopped afterwards.
set -uo pipefail
cd "$(dirname "$0")/.."

ref=${SYSBENCH_REF:-/usr/bin/sysbench}
if ! "$ref" --version 2>/dev/null | grep -qx 'sysbench 1.0.20'; then
	echo "oracle.sh: the reference sysbench 1.0.20 is not at $ref (apt-get install sysbench)" >&2
	exit 2
fi
bin=${SYSBENCH_GO_BIN:-bin/sysbench-go}
[ -x "$bin" ] || make -s build || exit 1

if [ -z "${SBTEST_MYSQL_HOST:-}" ] && [ -z "${SBTEST_PGSQL_HOST:-}" ]; then
	dir=$(mktemp -d /tmp/sbgo-oracle.XXXXXX)
	cleanup() { bash scripts/testdb.sh stop "$dir" >/dev/null 2>&1 || true; }
	trap cleanup EXIT INT TERM
	export SBTEST_MYSQL_PORT=${SBTEST_ORACLE_MYSQL_PORT:-23316}
	export SBTEST_PGSQL_PORT=${SBTEST_ORACLE_PGSQL_PORT:-25442}
	if bash scripts/testdb.sh start "$dir" >&2; then
		# shellcheck disable=SC1091
		. "$dir/env"
	else
		echo "oracle.sh: no database servers: the cases that need one are not run" >&2
	fi
fi

go run ./tools/oracle -ref "$ref" -ours "$bin" "$@"
