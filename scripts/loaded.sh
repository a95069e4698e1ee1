#!/usr/bin/env bash
# loaded.sh runs a command with CPU-bound processes beside it for the whole
# of its run: $LOAD of them (default: one per core), each a shell loop that
# never sleeps, at the command's own priority. It exits with the command's
# status and stops the loops however the command ends.
#
#   LOAD=2 scripts/loaded.sh bash scripts/test.sh
set -uo pipefail

n=${LOAD:-}
[ -n "$n" ] || n=$(nproc)
case $n in
'' | *[!0-9]*) echo "loaded.sh: LOAD must be a number, not '$n'" >&2; exit 2 ;;
esac

pids=()
stop() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

for ((i = 0; i < n; i++)); do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "loaded.sh: $n CPU-bound processes beside: $*" >&2
"$@"
rc=$?
stop
echo "loaded.sh: $* exited $rc" >&2
exit $rc
