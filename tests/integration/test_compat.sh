#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The compat build of the BPF objects (bpf/compat.bpf.h), forced on this
# kernel by STACKTAP_TEST_COMPAT=1: what a kernel without bpf_loop() (5.10)
# runs. User stacks are the kernel's frame-pointer walk, so chain_fp's chain
# ends at libc's first frame (it has no frame pointers); the records and
# everything after them are the normal build's. tests/kernels/ runs the same
# objects on Debian's 5.10 itself.
source "$(dirname "$0")/lib.sh"

export STACKTAP_TEST_COMPAT=1
N=37
CHAIN=$W/chain_fp
FP_CHAIN="leaf c b a main __libc_start_call_main"
KSYSCALL="perf_syscall_enter syscall_trace_enter do_syscall_64 entry_SYSCALL_64_after_hwframe"
SAID="stacktap: user stacks by frame pointers only (STACKTAP_TEST_COMPAT=1)"

# 1. uprobe at leaf's first instruction: its caller c once, whether the
#    kernel's walk adds it from [sp] itself (6.11 on, as here) or not (5.10).
run_traced uprobe "$CHAIN" $N -- count -p @PID@ "u:$CHAIN:leaf"
stack_block $FP_CHAIN $N > "$TMP/want"
expect_file_eq compat-uprobe-chain "$TMP/uprobe.out" "$TMP/want"
expect_eq compat-uprobe-exit "$(cat "$TMP/uprobe.rc")" 0
expect_eq compat-said-once "$(grep -c "^$SAID" "$TMP/uprobe.err")" 1

# 2. syscall tracepoint: the kernel part, then the user chain; counted in
#    user space (nothing is counted in the kernel in this build), exactly.
run_traced tp "$CHAIN" $N -- count -d -p @PID@ t:syscalls:sys_enter_getppid
stack_block $KSYSCALL -- $FP_CHAIN $N | sed 's/^  --$/    --/' > "$TMP/want"
expect_file_eq compat-tracepoint-chain "$TMP/tp.out" "$TMP/want"

# 3. snoop: every event, each with the probe's name and the chain.
run_traced json "$CHAIN" $N -- snoop --json -U -p @PID@ "u:$CHAIN:leaf"
expect_eq compat-snoop-json "$(jq -c '[.probe, .user]' "$TMP/json.out" | sort | uniq -c | sed 's/^ *//')" \
	"$N [\"u:$CHAIN:leaf\",[\"leaf\",\"c\",\"b\",\"a\",\"main\",\"__libc_start_call_main\"]]"

# 4. What this build cannot do is refused in one line: two probe specs (a
#    record could not say which fired), unwind tables.
"$ST" count -p $$ "u:$CHAIN:leaf" t:syscalls:sys_enter_getppid > /dev/null 2> "$TMP/two.err"
expect_eq compat-two-specs-exit "$?" 2
expect_eq compat-two-specs-said "$(grep -c '^stacktap: one probe spec per run on this kernel' "$TMP/two.err")" 1
"$ST" count --unwind=table -p $$ "u:$CHAIN:leaf" > /dev/null 2> "$TMP/table.err"
expect_eq compat-table-exit "$?" 1
expect_eq compat-table-said "$(grep -c '^stacktap: --unwind=table: not on this kernel' "$TMP/table.err")" 1

expect_nothing_left compat-nothing-left
