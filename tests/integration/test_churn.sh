#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Memory follows the live processes, and exactness survives it: 200 short
# processes each hit a uprobe once with the known chain main -> a -> b -> c
# -> leaf (tests/workloads/chain.c) and exit; a while later the registry
# forgets them, after their stacks were resolved with their mappings
# (lib/session/run.c, raw_stacks__settle()). The report, made after that,
# still names every one of them: the exact chain, exactly 200 times, all 200
# stacks resolved early (--debug says how many), and --debug (or -v) counts
# the processes forgotten (system-wide, so at least ours) and the perf-map
# entries freed with them (lib/sym/jit_maps.c).
source "$(dirname "$0")/lib.sh"

NPROC=200
LIBC_START="__libc_start_call_main __libc_start_main _start"
# A private copy: only this test's processes reach its uprobe.
cp "$W/chain_fp" "$TMP/chain_churn"

"$ST" count --debug "u:$TMP/chain_churn:leaf" > "$TMP/churn.out" 2> "$TMP/churn.err" &
spid=$!
ST_PIDS+=("$spid")
wait_for_line "$TMP/churn.err" '^Tracing' || fail churn-attach "$(cat "$TMP/churn.err")"
for ((i = 0; i < NPROC; i++)); do "$TMP/chain_churn" 1 > /dev/null; done
# Long enough for the exits to pass the grace (1 s) and the batch age (5 s)
# of lib/session/run.c, with room for a loaded machine: a wait, not a measure.
sleep 10
kill -INT "$spid"
wait "$spid"
expect_eq churn-exit "$?" 0

stack_block leaf c b a main $LIBC_START $NPROC > "$TMP/want"
expect_file_eq churn-exact-chain "$TMP/churn.out" "$TMP/want"
expect_eq churn-resolved-early "$(sed -n 's/.*named in .* ms (\([0-9]*\) of them resolved early.*/\1/p' \
	"$TMP/churn.err")" $NPROC
# Each process's perf-map entry went with it (no map, no code outside a file):
# only these 200 had events.
expect_eq churn-perf-map-entries "$(sed -n 's/.*(0 refused; \([0-9]*\) processes. entries held, \([0-9]*\) freed.*/\1 \2/p' \
	"$TMP/churn.err")" "0 $NPROC"
forgotten=$(sed -n 's/^stacktap: processes: [0-9]* known now; \([0-9]*\) exited.*/\1/p' "$TMP/churn.err")
at_least churn-forgotten "$forgotten" $NPROC
expect_nothing_left churn-nothing-left
