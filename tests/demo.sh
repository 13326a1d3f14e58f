#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: profile the bundled CPU-bound workload, built without frame
# pointers (so only unwind tables reach main), and print its stacks.
# The workload starts spinning only once stacktap is sampling, and stacktap
# stops when the workload exits, so no sample is lost to timing.
set -eu
O=${1:-build}
ST=$O/stacktap
W=$O/workloads
if [ "$(id -u)" != 0 ]; then
	echo "demo: stacktap loads BPF programs: run as root (sudo make demo)" >&2
	exit 1
fi
dir=$(mktemp -d /tmp/stacktap-demo.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/go"

# profile SECONDS STACKTAP_ARGS...: busy_nofp spins SECONDS of CPU under stacktap profile -p.
profile() {
	local secs=$1 wpid spid err
	shift
	"$W/busy_nofp" "$secs" "$dir/go" > "$dir/ready.$secs" &
	wpid=$!
	until grep -q ready "$dir/ready.$secs" 2>/dev/null; do sleep 0.05; done
	err=$dir/err.$wpid
	"$ST" profile "$@" -p "$wpid" 2> >(tee "$err" >&2) &
	spid=$!
	until grep -q '^Sampling' "$err" 2>/dev/null; do
		kill -0 "$spid" 2>/dev/null || { kill "$wpid"; wait "$spid"; return 1; }
		sleep 0.05
	done
	echo go > "$dir/go"
	wait "$wpid"
	wait "$spid"
}

echo "== stacktap profile -F 99 -p PID: where busy_nofp (no frame pointers) spends its CPU"
profile 2 -F 99
echo
echo "== the same as folded stacks for flamegraph.pl (stacktap profile -f)"
profile 1 -f -F 99
