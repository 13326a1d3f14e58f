#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Deferred user stacks (bpf/deferred.bpf.h + lib/session/joiner.c) against
# synchronous ones: the same stacks where no page fault is needed; a stack
# whose pages are not present is complete only when deferred; a stack that
# never comes is counted and its event still reported.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

N=37
CHAIN=$W/chain_fp
# Where a tracepoint may not schedule a task_work (this kernel refuses it from programs that
# are not sleepable), --user-stacks=deferred falls back to the event, says so once, and the
# deferred-only cases are skips here: the kernel matrix (tests/kernels) runs them.

# 1. The same events in both modes give the same output, byte for byte:
#    tables (the default) and frame pointers only.
for unwind in auto fp; do
	run_wl "chain-$unwind-deferred" "$CHAIN" $N -- count --unwind=$unwind --user-stacks=deferred \
		-p @PID@ t:syscalls:sys_enter_getppid
	run_wl "chain-$unwind-sync" "$CHAIN" $N -- count --unwind=$unwind --user-stacks=sync \
		-p @PID@ t:syscalls:sys_enter_getppid
	expect_file_eq "same-stacks-count-$unwind" "$TMP/chain-$unwind-deferred.out" \
		"$TMP/chain-$unwind-sync.out"
	if needs_feature "deferred-walked-$unwind" "task_work from tracepoint"; then
		expect_eq "deferred-walked-$unwind" "$(walks chain-$unwind-deferred)" $N
	else
		expect_eq "deferred-fallback-said-$unwind" \
			"$(grep -c "$NOT_DEFERRED (no task_work from tracepoint programs: " \
			"$TMP/chain-$unwind-deferred.err")" 1
	fi
	expect_eq "sync-no-walk-$unwind" "$(walks chain-$unwind-sync)" ""
done
expect_eq chain-count "$(tail -2 "$TMP/chain-auto-sync.out" | head -1)" "    $N"

# The off-CPU stacks of the sleep chain: same stacks, times of their own.
run_wl nap-deferred "$W/offcpu_fp" sleep 20 2 -- offcpu -f --state S -p @PID@
run_wl nap-sync "$W/offcpu_fp" sleep 20 2 -- offcpu -f --user-stacks=sync --state S -p @PID@
# (The tracepoint's own iterator, __traceiter_sched_switch, which the kernel's
# unwinder shows on some stacks and not others, is trimmed by the symbolizer.)
nap_stacks() { awk '/;nap;/ {$NF = ""; print}' "$TMP/$1.out"; }
expect_eq same-stacks-offcpu "$(nap_stacks nap-deferred)" "$(nap_stacks nap-sync)"
at_least same-stacks-offcpu-nonempty "$(grep -c ';nap;' "$TMP/nap-deferred.out")" 1

# 2. A thread whose stack pages are not present (MADV_DONTNEED on its memfd
#    stack before each getppid): the deferred walk faults them in and has the
#    whole chain; the synchronous one stops at the first absent page and says so.
# The walk in BPF, not a copy: tables first (a copy is 16 KiB of a cold stack).
TABLES_READY=1 run_wl cold-deferred "$W/offcpu_fp" cold 5 -- count --debug -U \
	--user-stacks=deferred -p @PID@ t:syscalls:sys_enter_getppid
stack_block cold4 cold3 cold2 cold1 cold_thread start_thread __GI___clone3 5 > "$TMP/want"
if needs_feature cold-deferred-complete "task_work from tracepoint"; then
	expect_file_eq cold-deferred-complete "$TMP/cold-deferred.out" "$TMP/want"
fi
TABLES_READY=1 run_wl cold-sync "$W/offcpu_fp" cold 5 -- count --debug -U --user-stacks=sync \
	-p @PID@ t:syscalls:sys_enter_getppid
stack_block cold4 "[unwind stopped: reading the stack failed]" 5 > "$TMP/want"
expect_file_eq cold-sync-cut "$TMP/cold-sync.out" "$TMP/want"
expect_eq cold-sync-counted "$(grep -c '5 user stacks stopped early: reading the stack failed' \
	"$TMP/cold-sync.err")" 1

# 3. A stack that never comes: the task is still asleep in the kernel when the
#    session ends. The event is reported with its kernel stack, and counted.
if needs_feature pending-counted "task_work from tracepoint"; then
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$W/offcpu_fp" sleep 1 3000 "$TMP/go" > "$TMP/pend.w" &
	wpid=$!; ST_PIDS+=("$wpid")
	wait_for_line "$TMP/pend.w" '^ready'
	"$ST" count --user-stacks=deferred -D 0.5 -p $wpid t:syscalls:sys_enter_nanosleep > "$TMP/pend.out" 2> "$TMP/pend.err" &
	cpid=$!
	wait_for_line "$TMP/pend.err" '^Tracing'
	release "$TMP/go"
	wait $cpid
	expect_eq pending-counted "$(grep -c '^stacktap: 1 event without its user stack: still in kernel at exit$' \
		"$TMP/pend.err")" 1
	expect_eq pending-reported "$(grep -c '^  do_syscall_64$' "$TMP/pend.out"):$(tail -2 "$TMP/pend.out" | head -1)" \
		"1:    1"
	kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
fi

# 4. The option.
"$ST" count --user-stacks=later t:syscalls:sys_enter_getppid > /dev/null 2> "$TMP/bad.err"
expect_eq user-stacks-bad "$?:$(cat "$TMP/bad.err")" \
	"2:stacktap count: user stacks 'later': want deferred or sync"
