#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# User stacks without frame pointers, unwound inside BPF by the tables of
# .eh_frame / .sframe / .debug_frame: the qsort chain through libc in five builds
# (the last two -fno-asynchronous-unwind-tables: .eh_frame for the startup code
# only, the rest from .debug_frame in the file or in its debug file), a
# 600-deep recursion, a library dlopen'ed after tracing began, processes
# that live a millisecond, and the stop reason where no table exists.
source "$(dirname "$0")/lib.sh"

LIBC_START="__libc_start_call_main __libc_start_main _start"
# qsort_r's merge step msort_with_tmp is inlined into it (DWARF of libc6-dbg says so).
QCHAIN="leaf c compare msort_with_tmp.part.0 msort_with_tmp (inlined) qsort_r b a main $LIBC_START"
RUNS=10

# trace_during NAME COUNT BINARY -- STACKTAP_ARGS: trace the runs of BINARY,
# COUNT of them (each a process of about a millisecond, started after the
# tracer attached); the runs' pids go to $TMP/NAME.pids. The runs start in a
# cgroup of their own traced with --cgroup (when cgroup v2 is mounted), so
# another process's flood of the same system call, a benchmark's getppid_loop,
# cannot fill the ring buffer with events that are not this test's.
run_cg_init
trace_during() {
	local name=$1 count=$2 bin=$3 cmd i; shift 4
	cmd=$1; shift
	"$ST" "$cmd" ${RUN_CG:+--cgroup "$RUN_CG"} "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	local spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^Tracing' || { fail "$name" "not attached: $(cat "$TMP/$name.err")"; return 1; }
	: > "$TMP/$name.pids"
	for ((i = 0; i < count; i++)); do
		"${IN_RUN_CG[@]}" "$bin" > /dev/null &
		echo $! >> "$TMP/$name.pids"
		wait $!
	done
	sleep 0.2
	kill -INT "$spid"; wait "$spid"
}

# user_chains FILE COMM_PREFIX: "N frame frame ..." per distinct user stack in
# snoop --json output, of the runs this test made only (FILE's .pids): the
# same workloads of a concurrent run, system-wide, are not this test's.
user_chains() {
	jq -r --arg c "$2" --slurpfile p "${1%.out}.pids" \
		'select((.comm | startswith($c)) and (.pid as $x | $p | index($x))) | .user | join(" ")' \
		"$1" | sort | uniq -c | sed 's/^ *//'
}

for build in fp nofp sframe dwarf dwarf_split; do
	bin=$W/qsort_chain_$build
	for mode in auto table; do
		name=qsort-$build-$mode
		trace_during "$name" $RUNS "$bin" -- snoop --json -U --unwind=$mode \
			"u:$bin:leaf" t:syscalls:sys_enter_getppid
		# Every run: one uprobe event and one syscall event, both with the whole chain. The
		# tracepoint is system-wide: a failure shows the tracer's loss lines, which name events
		# lost to another process's flood of getppid calls (a benchmark's getppid_loop).
		got=$(user_chains "$TMP/$name.out" qsort_chain)
		if [ "$got" = "$((2 * RUNS)) $QCHAIN" ]; then
			pass "$name"
		else
			fail "$name" "got:  $got" "want: $((2 * RUNS)) $QCHAIN" \
				"tracer: $(grep -v '^Tracing' "$TMP/$name.err" | head -5)"
		fi
	done
done

# Frame pointers alone cannot cross libc's frameless qsort in the no-fp build.
trace_during qsort-nofp-fp $RUNS "$W/qsort_chain_nofp" -- snoop --json -U --unwind=fp \
	"u:$W/qsort_chain_nofp:leaf"
got=$(user_chains "$TMP/qsort-nofp-fp.out" qsort_chain)
if [ "$(echo "$got" | awk '{s += $1} END {print s}')" = $RUNS ] && ! echo "$got" | grep -q "$QCHAIN"; then
	pass qsort-nofp-fp-truncated
else
	fail qsort-nofp-fp-truncated "want $RUNS events none with the whole chain, got:" "$got"
fi

# The table walk and a user-space walk of a copy of the same stack agree on every event.
for build in nofp sframe dwarf_split; do
	run_traced check-$build "$W/qsort_chain_$build" -n $RUNS -g -- count -U --unwind=table \
		--unwind-check -p @PID@ "u:$W/qsort_chain_$build:leaf" t:syscalls:sys_enter_getppid
	expect_eq table-vs-copy-$build "$(grep 'unwind check' "$TMP/check-$build.err")" \
		"stacktap: unwind check: $((2 * RUNS)) events compared, 0 differ"
done
trace_during qsort-copy $RUNS "$W/qsort_chain_nofp" -- snoop --json -U --unwind=copy \
	"u:$W/qsort_chain_nofp:leaf"
expect_eq copy-mode "$(user_chains "$TMP/qsort-copy.out" qsort_chain)" "$RUNS $QCHAIN"

# 600 frames deep, all the way to _start.
TABLES_READY=1 run_traced deep "$W/deep_nofp" 600 3 -- count --debug -U --max-user-depth 1024 \
	-p @PID@ "u:$W/deep_nofp:bottom"
{ printf '  bottom\n'; for ((i = 0; i < 600; i++)); do printf '  descend\n'; done
  printf '  %s\n' main $LIBC_START; printf '    3\n\n'; } > "$TMP/deep.want"
expect_file_eq deep-600 "$TMP/deep.out" "$TMP/deep.want"
# The walk in BPF, not a copy of the stack (16 KiB cannot hold 600 frames): its tables
# first (TABLES_READY). Cut at 100 frames: the stack ends in a [truncated] frame, counted once per event.
TABLES_READY=1 run_traced deep100 "$W/deep_nofp" 600 3 -- count --debug -U --max-user-depth 100 -p @PID@ "u:$W/deep_nofp:bottom"
{ printf '  bottom\n'; for ((i = 0; i < 99; i++)); do printf '  descend\n'; done
  printf '  [truncated]\n    3\n\n'; } > "$TMP/deep100.want"
expect_file_eq deep-cut-100 "$TMP/deep100.out" "$TMP/deep100.want"
expect_eq deep-cut-100-counted "$(grep '^stacktap: [0-9]* user stacks\{0,1\} \(truncated\|stopped early\)' "$TMP/deep100.err")" \
	"stacktap: 3 user stacks truncated at the depth limit"
TABLES_READY=1 run_traced deepdef "$W/deep_nofp" 600 3 -- count --debug -U -p @PID@ "u:$W/deep_nofp:bottom"
expect_eq deep-default-limit "$(grep -c '^  [^ []' "$TMP/deepdef.out") $(tail -3 "$TMP/deepdef.out" | head -1)" \
	"512   [truncated]"
# --unwind-check copies as much of the stack as the walk read: a 600-deep stack compares whole.
TABLES_READY=1 run_traced deepcheck "$W/deep_nofp" 600 3 -- count --debug -U --unwind-check --max-user-depth 1024 -p @PID@ \
	"u:$W/deep_nofp:bottom"
expect_eq deep-600-check "$(grep 'unwind check' "$TMP/deepcheck.err")" \
	"stacktap: unwind check: 3 events compared, 0 differ"

# A library without frame pointers, dlopen'ed after tracing began, then dlclose'd.
run_traced dl "$W/dlchain" "$W/libdlchain.so" 5 -- count -U -p @PID@ "u:$W/dlchain:callback"
expect_eq dlopen-chain "$(cat "$TMP/dl.out")" \
	"$(stack_block callback lib_leaf lib_mid lib_entry run main $LIBC_START 5)"
# Deferred, the walker meets the library before its table exists ("code not loaded
# yet") and sends a stack copy; the copy's walk gives the whole chain, so no stack is
# left counted as stopped early.
run_traced dldef "$W/dlchain" "$W/libdlchain.so" 20 -- count --user-stacks=deferred -f -U \
	-p @PID@ t:syscalls:sys_enter_getppid
expect_eq dlopen-deferred-not-stopped "$(cat "$TMP/dldef.out") | $(grep -c 'stopped early' "$TMP/dldef.err")" \
	"dlchain;_start;__libc_start_main;__libc_start_call_main;main;run;lib_entry;lib_mid;lib_leaf;callback 20 | 0"

# JIT-like code (an anonymous executable page): no table, no frame pointer, no perf
# map. Anonymous code has no file offset to name: it reads "[unknown] ([anon])", as
# perf says, and the table walk stops there. (With a perf map and frame pointers in
# the JIT code, tests/integration/test_names.sh walks through it to main.)
TABLES_READY=1 run_traced jit "$W/jit_nofp" 4 -- count --debug -U --unwind=table -p @PID@ "u:$W/jit_nofp:jit_leaf"
expect_eq jit-stops "$(cat "$TMP/jit.out") | $(grep '^stacktap: [0-9]* user stacks\{0,1\} stopped early' "$TMP/jit.err")" \
	"$(stack_block jit_leaf "[unknown] ([anon])" "[unwind stopped: no unwind table for the pc (table mode)]" 4) | stacktap: 4 user stacks stopped early: no unwind table for the pc (table mode)"

# --cgroup keeps the tasks of that cgroup only: of two chain_fp runs during the
# trace, 3 getppid() calls inside it and 5 outside, the 3 are seen.
if [ -n "$RUN_CG" ]; then
	"$ST" snoop --json -U --unwind=fp --cgroup "$RUN_CG" t:syscalls:sys_enter_getppid \
		> "$TMP/cg.out" 2> "$TMP/cg.err" &
	cgpid=$!
	ST_PIDS+=("$cgpid")
	if wait_for_line "$TMP/cg.err" '^Tracing'; then
		"$W/chain_fp" 5 > /dev/null
		"${IN_RUN_CG[@]}" "$W/chain_fp" 3 > /dev/null
		sleep 0.2
		kill -INT "$cgpid"; wait "$cgpid"
		expect_eq cgroup-only-inside "$(jq -r .comm "$TMP/cg.out" | sort | uniq -c | sed 's/^ *//')" \
			"3 chain_fp"
	else
		fail cgroup-only-inside "not attached: $(cat "$TMP/cg.err")"
	fi
fi
