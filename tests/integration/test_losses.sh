#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Nothing lost silently: with a tiny ring buffer and a burst, the events
# counted plus the drops reported equal the events the workload made.
source "$(dirname "$0")/lib.sh"

N=200000
rm -f "$TMP/go"; mkfifo "$TMP/go"
"$W/chain_fp" $N "$TMP/go" > "$TMP/w" &
wpid=$!; ST_PIDS+=("$wpid")
wait_for_line "$TMP/w" '^ready' || fail overflow-setup "workload not ready"
# Every event as a record (--no-aggregate): counted in the kernel, none would overflow it.
"$ST" count --ringbuf-kb 4 --no-aggregate -p "$wpid" t:syscalls:sys_enter_getppid > "$TMP/out" 2> "$TMP/err" &
spid=$!; ST_PIDS+=("$spid")
wait_for_line "$TMP/err" '^Tracing' || fail overflow-setup "tracer not attached"
release "$TMP/go"
wait "$wpid"; wait "$spid"
counted=$(awk '/^    [0-9]+$/{s+=$1} END{print s+0}' "$TMP/out")
dropped=$(awk '/events dropped: ring buffer full/{print $2}' "$TMP/err")
dropped=${dropped:-0}
expect_eq overflow-accounted "$((counted + dropped))" $N
if [ "$dropped" -gt 0 ]; then pass overflow-did-overflow; else
	fail overflow-did-overflow "a 4 KiB ring buffer should overflow on $N events (counted $counted)"
fi
