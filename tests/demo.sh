#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: profile the bundled CPU-bound workload, built without frame
# pointers (so only unwind tables reach main), and print its stacks.
set -eu
O=${1:-build}
ST=$O/stacktap
W=$O/workloads
if [ "$(id -u)" != 0 ]; then
	echo "demo: stacktap loads BPF programs: run as root (sudo make demo)" >&2
	exit 1
fi
fifo=$(mktemp -u /tmp/stacktap-demo.XXXXXX)
mkfifo "$fifo"
trap 'rm -f "$fifo" "$fifo.ready"' EXIT
"$W/busy_nofp" 3 "$fifo" > "$fifo.ready" &
wpid=$!
until grep -q ready "$fifo.ready" 2>/dev/null; do sleep 0.05; done
echo "== stacktap profile -F 99 -p $wpid 3: where busy_nofp (no frame pointers) spends its CPU"
"$ST" profile -F 99 -p "$wpid" 3 &
spid=$!
sleep 2
echo go > "$fifo"
wait "$wpid" "$spid"
echo
echo "== the same as folded stacks for flamegraph.pl (stacktap profile -f)"
"$W/busy_nofp" 1 "$fifo" > "$fifo.ready" &
wpid=$!
until grep -q ready "$fifo.ready" 2>/dev/null; do sleep 0.05; done
"$ST" profile -f -F 99 -p "$wpid" 2 &
spid=$!
sleep 2
echo go > "$fifo"
wait "$wpid" "$spid"
