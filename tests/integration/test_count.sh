#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# count and snoop against the known chain main -> a -> b -> c -> leaf of
# tests/workloads/chain.c (frame pointers): exact chains, exact counts.
source "$(dirname "$0")/lib.sh"

N=37
CHAIN=$W/chain_fp
# The default --unwind=auto walks libc by its unwind tables down to _start;
# frame pointers stop at libc's first frame (it has none).
LIBC_START="__libc_start_call_main __libc_start_main _start"
LIBC_START_FP=__libc_start_call_main
# Where a frame-pointer walk ends in libc (no frame pointers there): the mark says why.
FP_STOP="[unwind stopped: no unwind row and no valid frame pointer]"
KSYSCALL="perf_syscall_enter syscall_trace_enter do_syscall_64 entry_SYSCALL_64_after_hwframe"

# 1. uprobe at leaf: the exact user chain, exactly N times; the workload has
#    exited before count prints (count stops when -p's process is gone).
run_traced uprobe "$CHAIN" $N -- count -p @PID@ "u:$CHAIN:leaf"
stack_block leaf c b a main $LIBC_START $N > "$TMP/want"
expect_file_eq count-uprobe-chain "$TMP/uprobe.out" "$TMP/want"
expect_eq count-uprobe-exit "$(cat "$TMP/uprobe.rc")" 0

# 2. syscall tracepoint: kernel part from the tracepoint to the syscall entry, then the user chain.
run_traced tp "$CHAIN" $N -- count -d -p @PID@ t:syscalls:sys_enter_getppid
stack_block $KSYSCALL -- leaf c b a main $LIBC_START $N | sed 's/^  --$/    --/' > "$TMP/want"
expect_file_eq count-tracepoint-chain "$TMP/tp.out" "$TMP/want"

# 3. folded, with kernel annotation.
run_traced folded "$CHAIN" $N -- count -f -a -p @PID@ t:syscalls:sys_enter_getppid
expect_eq count-folded "$(cat "$TMP/folded.out")" \
	"chain_fp;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;leaf;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];syscall_trace_enter_[k];perf_syscall_enter_[k] $N"

# 4. -P: comm [pid] line; -K: kernel only; -U: user only.
run_traced perpid "$CHAIN" $N -- count -P -U -p @PID@ t:syscalls:sys_enter_getppid
wpid=$(awk '{print $2}' "$TMP/perpid.w")
expect_eq count-perpid "$(cat "$TMP/perpid.out")" \
	"$(printf '  leaf\n  c\n  b\n  a\n  main\n  %s\n  %s\n  %s\n    chain_fp [%s]\n    %s' $LIBC_START "$wpid" $N)"
run_traced konly "$CHAIN" $N -- count -K -p @PID@ t:syscalls:sys_enter_getppid
expect_eq count-kernel-only "$(cat "$TMP/konly.out")" "$(stack_block $KSYSCALL $N)"

# 5. snoop: N blocks with the chain; --json parses with jq and says the same.
run_traced snoop "$CHAIN" $N -- snoop -U -p @PID@ "u:$CHAIN:leaf"
expect_eq snoop-event-count "$(grep -c "^[0-9.]* *chain_fp " "$TMP/snoop.out")" $N
expect_eq snoop-chains "$(awk '/^  /{s=s $1 " "} /^$/{if(s)print s; s=""}' "$TMP/snoop.out" | sort | uniq -c | sed 's/^ *//')" \
	"$N leaf c b a main $LIBC_START "
run_traced json "$CHAIN" $N -- snoop --json -p @PID@ t:syscalls:sys_enter_getppid
expect_eq snoop-json "$(jq -c '[.comm, .probe, .kernel, .user]' "$TMP/json.out" | sort | uniq -c | sed 's/^ *//')" \
	"$N [\"chain_fp\",\"t:syscalls:sys_enter_getppid\",[\"perf_syscall_enter\",\"syscall_trace_enter\",\"do_syscall_64\",\"entry_SYSCALL_64_after_hwframe\"],[\"leaf\",\"c\",\"b\",\"a\",\"main\",\"__libc_start_call_main\",\"__libc_start_main\",\"_start\"]]"
run_traced snoopn "$CHAIN" $N -- snoop --json -n 5 -p @PID@ t:syscalls:sys_enter_getppid
expect_eq snoop-n "$(wc -l < "$TMP/snoopn.out")" 5

# 6. Through libc's frameless getppid() wrapper a frame-pointer walk loses
#    leaf: known to be incomplete in fp mode, as in bcc, bpftrace and perf;
#    the unwind tables (the default) keep it.
run_traced libcfp "$CHAIN" -l $N -- count --unwind=fp -U -p @PID@ t:syscalls:sys_enter_getppid
expect_eq count-libc-wrapper-fp-incomplete "$(cat "$TMP/libcfp.out")" \
	"$(stack_block getppid c b a main $LIBC_START_FP "$FP_STOP" $N)"
run_traced libc "$CHAIN" -l $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid
expect_eq count-libc-wrapper-tables "$(cat "$TMP/libc.out")" \
	"$(stack_block getppid leaf c b a main $LIBC_START $N)"
run_traced fp "$CHAIN" $N -- count --unwind=fp -U -p @PID@ "u:$CHAIN:leaf"
expect_eq count-uprobe-fp "$(cat "$TMP/fp.out")" \
	"$(stack_block leaf c b a main $LIBC_START_FP "$FP_STOP" $N)"
# A uprobe at the first instruction of a function without a frame pointer
# (libc's getppid starts with mov, not push %rbp): rbp is still the caller's,
# whose return address lies at [sp]; the fp rule from rbp lost leaf.
run_traced entryfp "$CHAIN" -l $N -- count --unwind=fp -U -p @PID@ u:c:getppid
expect_eq count-uprobe-entry-fp "$(cat "$TMP/entryfp.out")" \
	"$(stack_block getppid leaf c b a main $LIBC_START_FP "$FP_STOP" $N)"

# Two commands, one stack: a folded line names its comm, so one chain run
# under two names (the second through a symlink: a task's comm is the name
# it was exec'ed by) is two lines of NCOMM each, never one line of 2 NCOMM
# under the first name. Text names no comm without -P and merges them into
# one block, as bcc's stackcount does.
NCOMM=20
cp "$CHAIN" "$TMP/chain_one"
ln -s "$TMP/chain_one" "$TMP/chain_two"
# Both names run the chain NCOMM times.
two_comms() {
	local i
	for ((i = 0; i < NCOMM; i++)); do
		"$TMP/chain_one" 1 > /dev/null
		"$TMP/chain_two" 1 > /dev/null
	done
}
run_during comms-folded two_comms count -f "u:$TMP/chain_one:leaf"
expect_eq count-two-comms-folded "$(sort "$TMP/comms-folded.out")" \
	"$(printf '%s;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;leaf %s\n' \
		chain_one $NCOMM chain_two $NCOMM)"
run_during comms-text two_comms count "u:$TMP/chain_one:leaf"
expect_eq count-two-comms-text "$(cat "$TMP/comms-text.out")" \
	"$(stack_block leaf c b a main $LIBC_START $((2 * NCOMM)))"
