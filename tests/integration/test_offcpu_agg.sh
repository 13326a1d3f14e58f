#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# offcpu pairs each switch-out with its switch-in in BPF (tools/offcpu/offcpu.bpf.c):
# one record per block, or a count in the kernel when the user stack is taken
# at the switch-out. Blocked time still matches what tests/workloads/offcpu.c
# measured itself.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

N=100
MS=5
# Inline frames as in test_offcpu.sh: run_sleep inlined into main, now_ns into nap.
NAP_CHAIN="offcpu_fp;_start;__libc_start_main;__libc_start_call_main;main;run_sleep;s1;s2;s3;nap;now_ns"
NAP_KERNEL="entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_nanosleep;hrtimer_nanosleep;do_nanosleep;schedule;__schedule"

folded_weight() { awk -v c="$2" '{w = $NF; $NF = ""; sub(/ $/, ""); if ($0 == c) print w}' "$TMP/$1.out"; }
# in_kernel NAME / as_records NAME: from offcpu's --debug line.
in_kernel() { sed -n 's/^stacktap: offcpu: \([0-9]*\) events counted in the kernel.*/\1/p' "$TMP/$1.err"; }
as_records() { sed -n 's/^stacktap: offcpu: [0-9]* events counted in the kernel, \([0-9]*\) sent.*/\1/p' "$TMP/$1.err"; }

# 1. User stacks at the switch-out: every nap is counted in the kernel but the
#    key's first, which comes as a record; the time is the workload's own.
# Every state a voluntary switch counts in (S, D, I, T), as the workload's sleep_blocks does.
# With S alone, a block in D inside the loop (likely a major fault reading the naps' code
# back under memory pressure; not caught in the act) is counted by the workload and rightly
# left out by the tool: the likely cause of the intermittent "99 of 100".
run_wl sync "$W/offcpu_fp" sleep $N $MS -- offcpu --debug -f -U --state S,D,I,T --user-stacks=sync \
	-p @PID@
expect_eq sync-one-chain "$(grep -c ';nap;now_ns ' "$TMP/sync.out")" 1
within sync-time-5pct "$(folded_weight sync "$NAP_CHAIN")" "$(( $(wl_value sync slept_ns) / 1000 ))" 5
# Every nap that slept is a block (the workload counts its voluntary switches: on a
# loaded machine a nap preempted past its end never sleeps); it may block once more.
at_least sync-naps-counted "$(( $(in_kernel sync) + $(as_records sync) ))" "$(wl_value sync sleep_blocks)"
at_least sync-merged-in-kernel "$(in_kernel sync)" $(( $(wl_value sync sleep_blocks) - 2 ))

# 2. The same with kernel stacks: the exact chain from the system call to __schedule.
run_wl synck "$W/offcpu_fp" sleep 20 $MS -- offcpu -f --state S --user-stacks=sync -p @PID@
expect_eq sync-kernel-chain "$(grep -c "^$NAP_CHAIN;$NAP_KERNEL [0-9]*$" "$TMP/synck.out")" 1
# 10% over 20 naps: the workload's clock also holds time it was preempted after
# waking (runnable, not a --state S block), a few ms on a loaded machine; a block
# paired with the wrong switch-in would be far off.
within sync-kernel-time-10pct "$(folded_weight synck "$NAP_CHAIN;$NAP_KERNEL")" \
	"$(( $(wl_value synck slept_ns) / 1000 ))" 10

# 3. Deferred user stacks (--user-stacks=deferred; the default walks these at the
#    switch-out, their pages being resident, as in 1): each nap's block is held in the kernel until its
#    entry's walk joins it to the user stack (bpf/defer_hold.bpf.h), then counted there like
#    a synchronous one: all but the key's first, which comes as a record; the time matches.
run_wl defer "$W/offcpu_fp" sleep $N $MS -- offcpu --debug -f -U --state S,D,I,T --user-stacks=deferred \
	-p @PID@
blocks=$(wl_value defer sleep_blocks)
expect_eq defer-one-chain "$(grep -c ';nap;now_ns ' "$TMP/defer.out")" 1
within defer-time-5pct "$(folded_weight defer "$NAP_CHAIN")" "$(( $(wl_value defer slept_ns) / 1000 ))" 5
at_least defer-naps-counted "$(( $(in_kernel defer) + $(as_records defer) ))" "$blocks"
at_least defer-merged-in-kernel "$(in_kernel defer)" $(( blocks - 2 ))

# 4. The same with kernel stacks: the exact chain from the system call to __schedule.
run_wl deferk "$W/offcpu_fp" sleep 20 $MS -- offcpu -f --state S --user-stacks=deferred \
	-p @PID@
expect_eq defer-kernel-chain "$(grep -c "^$NAP_CHAIN;$NAP_KERNEL [0-9]*$" "$TMP/deferk.out")" 1
within defer-kernel-time-10pct "$(folded_weight deferk "$NAP_CHAIN;$NAP_KERNEL")" \
	"$(( $(wl_value deferk slept_ns) / 1000 ))" 10


# 5. A task whose every block has another stack than its last (alternately s1..nap and
#    t1..nap): a block whose frames equal its last one's, compared in full, is counted under
#    the hash those matched (tools/offcpu/offcpu.bpf.c, offcpu__count()); here none is, and
#    each chain gets its own naps' time, none of the other's (2 ms against 6 ms naps).
ALT_A="offcpu_fp;_start;__libc_start_main;__libc_start_call_main;main;run_sleep;s1;s2;s3;nap;now_ns"
ALT_B="offcpu_fp;_start;__libc_start_main;__libc_start_call_main;main;run_sleep;t1;t2;nap;now_ns"
run_wl alt "$W/offcpu_fp" alt $N 2 6 -- offcpu --debug -f -U --state S,D,I,T -p @PID@
expect_eq alt-chain-a "$(grep -c "^$ALT_A [0-9]*$" "$TMP/alt.out")" 1
expect_eq alt-chain-b "$(grep -c "^$ALT_B [0-9]*$" "$TMP/alt.out")" 1
within alt-time-a-5pct "$(folded_weight alt "$ALT_A")" "$(( $(wl_value alt slept_ns_a) / 1000 ))" 5
within alt-time-b-5pct "$(folded_weight alt "$ALT_B")" "$(( $(wl_value alt slept_ns_b) / 1000 ))" 5
at_least alt-naps-counted "$(( $(in_kernel alt) + $(as_records alt) ))" "$(wl_value alt sleep_blocks)"
at_least alt-merged-in-kernel "$(in_kernel alt)" $(( $(wl_value alt sleep_blocks) - 4 ))
