#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: trace the bundled workload and print its stacks.
set -eu
O=${1:-build}
ST=$O/stacktap
if [ "$(id -u)" != 0 ]; then
	echo "demo: stacktap loads BPF programs: run as root (sudo make demo)" >&2
	exit 1
fi
echo "== stacktap count: every distinct kernel+user stack that reached getppid() in the demo workload"
fifo=$(mktemp -u /tmp/stacktap-demo.XXXXXX); mkfifo "$fifo"
"$O/workloads/chain_fp" 1000 "$fifo" > "$fifo.ready" &
wpid=$!
until grep -q ready "$fifo.ready" 2>/dev/null; do sleep 0.05; done
"$ST" count -d -p "$wpid" t:syscalls:sys_enter_getppid "u:$O/workloads/chain_fp:leaf" &
spid=$!
sleep 1
echo go > "$fifo"
wait "$wpid" "$spid"
rm -f "$fifo" "$fifo.ready"
