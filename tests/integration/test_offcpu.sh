#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# offcpu against tests/workloads/offcpu.c: blocked time of a known chain
# within 5% of what the workload measured itself; a write() that blocks
# hundreds of times costs one user-stack walk; -m/-M and --state select.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

N=200
MS=5
# run_sleep is inlined into main, and the instruction after nap's syscall starts the
# body of now_ns inlined into nap: DWARF's inline frames (folded shows no marker).
NAP_CHAIN="offcpu_fp;_start;__libc_start_main;__libc_start_call_main;main;run_sleep;s1;s2;s3;nap;now_ns"
NAP_KERNEL="entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_nanosleep;hrtimer_nanosleep;do_nanosleep;schedule;__schedule"
PUSH_CHAIN="offcpu_fp;__GI___clone3;start_thread;writer;pw1;pw2;push"

# folded_weight NAME CHAIN: the weight of the one folded line that is exactly CHAIN.
folded_weight() { awk -v c="$2" '{w = $NF; $NF = ""; sub(/ $/, ""); if ($0 == c) print w}' "$TMP/$1.out"; }

# 1. 200 x 5 ms in main -> s1 -> s2 -> s3 -> nap: one line for that chain, its
#    time within 5% of the sum of the workload's own measurements.
run_wl sleep "$W/offcpu_fp" sleep $N $MS -- offcpu -f -U -p @PID@
got=$(folded_weight sleep "$NAP_CHAIN")
expect_eq sleep-one-chain "$(grep -c ';nap;now_ns ' "$TMP/sleep.out")" 1
within sleep-time-5pct "${got:-0}" "$(( $(wl_value sleep slept_ns) / 1000 ))" 5
expect_eq sleep-exit "$(cat "$TMP/sleep.rc")" 0

# 2. With kernel stacks: from the system call down to __schedule, nothing of the probe's own.
run_wl sleepk "$W/offcpu_fp" sleep 20 $MS -- offcpu -f --state S -p @PID@
expect_eq sleep-kernel-chain "$(grep -c "^$NAP_CHAIN;$NAP_KERNEL [0-9]*$" "$TMP/sleepk.out")" 1

# 3. One write() of 1 MiB into a slow pipe blocks hundreds of times: every
#    switch-out of the writer has the writer's exact chain, there are as many
#    as its voluntary context switches, and the user stack is walked once per write().
run_wl pipe "$W/offcpu_fp" pipe 5 -- offcpu -f -U --user-stacks=deferred --state S,D,I,T -t @TID@
expect_eq pipe-one-chain "$(cut -d' ' -f1 "$TMP/pipe.out")" "$PUSH_CHAIN"
if needs_feature pipe-walks-per-write "task_work from tp_btf"; then
	expect_eq pipe-switches "$(deferred_events pipe)" "$(wl_value pipe switches)"
	expect_eq pipe-walks-per-write "$(walks pipe)" 5
	at_least pipe-many-switches "$(deferred_events pipe)" 50
else
	expect_eq pipe-not-deferred-said "$(grep -c "$NOT_DEFERRED" "$TMP/pipe.err")" 1
fi
#    By default the same switch-outs are walked at the event (their pages are
#    resident): the same chain, no walk deferred.
run_wl pipe-now "$W/offcpu_fp" pipe 5 -- offcpu -f -U --debug --state S,D,I,T -t @TID@
expect_eq pipe-now-one-chain "$(cut -d' ' -f1 "$TMP/pipe-now.out")" "$PUSH_CHAIN"
expect_eq pipe-now-no-walk-deferred "$(walks pipe-now)" ""
#    A nap whose stack pages are not present (tests/workloads/offcpu.c cold):
#    the walk at the switch-out stops there, so each nap's walk is deferred
#    and faults them in; the whole chain, one walk a nap.
TABLES_READY=1 run_wl cold-nap "$W/offcpu_fp" cold 5 -- offcpu -f -U --debug --state S -p @PID@
if needs_feature cold-nap-walks "task_work from tp_btf"; then
	expect_eq cold-nap-chain "$(grep -c '^offcpu_fp;__GI___clone3;start_thread;cold_thread;cold1;cold2;cold3;cold4 [0-9]*$' \
		"$TMP/cold-nap.out")" 1
	expect_eq cold-nap-walks "$(walks cold-nap)" 5
else
	#    Walked at the switch-out only: each nap's stack stops at the first absent page, counted.
	expect_eq cold-nap-cut-counted "$(grep -c 'user stacks stopped early: reading the stack failed' \
		"$TMP/cold-nap.err")" 1
fi

# 4. Selection, on naps of 2 and 100 ms in turn, 20 ms the edge: -m keeps the
#    long ones, -M the short ones, by how long they really slept (the workload
#    sums its naps on either side of 20 ms as it measured them: a loaded machine
#    may wake a short nap late, and a nap just past the edge by its own clock may
#    have blocked just short of it, so the edge is far from both lengths);
#    --state D keeps none (nanosleep sleeps in S). --state S: time preempted in
#    the same functions (runnable) is not what the workload timed.
run_wl long "$W/offcpu_fp" sleep 20 2 100 -- offcpu -f -U --state S -m 20000 -p @PID@
within min-selects "$(folded_weight long "$NAP_CHAIN")" "$(( $(wl_value long slept_ns_ge20) / 1000 ))" 5
run_wl short "$W/offcpu_fp" sleep 20 2 100 -- offcpu -f -U --state S -M 20000 -p @PID@
# 10%: a short nap's own clock also holds any preemption between its wake-up and
# the clock read (a few ms on a loaded machine, next to 20 ms in all); a 100 ms
# nap wrongly kept would be +500%.
within max-selects "$(folded_weight short "$NAP_CHAIN")" "$(( $(wl_value short slept_ns_lt20) / 1000 ))" 10
run_wl stateD "$W/offcpu_fp" sleep 20 $MS -- offcpu -f -U --state D -p @PID@
expect_eq state-selects "$(folded_weight stateD "$NAP_CHAIN")" ""

# 5. Usage errors: one line, exit 2.
"$ST" offcpu -m 10 -M 5 > /dev/null 2> "$TMP/bad.err"
expect_eq offcpu-bad-range "$?:$(cat "$TMP/bad.err")" "2:stacktap offcpu: -m 10 is above -M 5"
"$ST" offcpu --state X > /dev/null 2> "$TMP/bad.err"
expect_eq offcpu-bad-state "$?:$(cat "$TMP/bad.err")" \
	"2:stacktap offcpu: states 'X': want letters of R, S, D, I, T"
