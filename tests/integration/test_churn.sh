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

# The NPROC processes, then time for the registry to forget them.
churn_procs() {
	local i
	for ((i = 0; i < NPROC; i++)); do "$TMP/chain_churn" 1 > /dev/null; done
	# Long enough for the exits to pass the grace (1 s) and the batch age (5 s)
	# of lib/session/run.c, with room for a loaded machine: a wait, not a measure.
	sleep 10
}

# The "resolved early" and "forgotten" counts of --debug in FILE.
resolved_early() { sed -n 's/.*named in .* ms (\([0-9]*\) of them resolved early.*/\1/p' "$1"; }
forgotten() { sed -n 's/^stacktap: processes: [0-9]* known now; \([0-9]*\) exited.*/\1/p' "$1"; }

run_during churn churn_procs count --debug "u:$TMP/chain_churn:leaf"
stack_block leaf c b a main $LIBC_START $NPROC > "$TMP/want"
expect_file_eq churn-exact-chain "$TMP/churn.out" "$TMP/want"
expect_eq churn-resolved-early "$(resolved_early "$TMP/churn.err")" $NPROC
# Each process's perf-map entry went with it (no map, no code outside a file):
# only these 200 had events.
perf_map_entries() {
	sed -n 's/.*(0 refused; \([0-9]*\) processes. entries held, \([0-9]*\) freed.*/\1 \2/p' "$1"
}
expect_eq churn-perf-map-entries "$(perf_map_entries "$TMP/churn.err")" "0 $NPROC"
at_least churn-forgotten "$(forgotten "$TMP/churn.err")" $NPROC
expect_nothing_left churn-nothing-left

# Recording forgets alike, and says where: `record --print` of the same churn
# forgets the processes as the live run does (so a long recording's memory
# follows the processes alive too), and its report forgets them at the same
# places, after resolving their stacks: the same exact chain, 200 times.
run_during rchurn churn_procs record --print -o "$TMP/churn.data" count --debug \
	"u:$TMP/chain_churn:leaf"
expect_file_eq rchurn-exact-chain "$TMP/rchurn.out" "$TMP/want"
forgotten=$(forgotten "$TMP/rchurn.err")
at_least rchurn-forgotten "$forgotten" $NPROC

"$ST" report --no-progress --debug -i "$TMP/churn.data" > "$TMP/rep.out" 2> "$TMP/rep.err"
expect_eq rchurn-report-exit "$?" 0
expect_file_eq rchurn-report-same "$TMP/rep.out" "$TMP/rchurn.out"
expect_eq rchurn-report-resolved-early "$(resolved_early "$TMP/rep.err")" $NPROC
expect_eq rchurn-report-forgotten "$(forgotten "$TMP/rep.err")" "$forgotten"
expect_nothing_left rchurn-nothing-left
