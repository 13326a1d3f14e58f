#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The process and file model (issue 9 §1-2, issue 12 §3): frames resolved with the
# mappings live at their event, named by file and offset when they have no symbol,
# and children that exec a moment after fork() unwound and named with their parent's
# code. Exact chains, exact counts.
source "$(dirname "$0")/lib.sh"

LIBC_START="__libc_start_call_main __libc_start_main _start"

# blocks_with FILE REGEX: the text blocks (stacks) of count output whose frames match.
blocks_with() {
	awk -v re="$2" 'BEGIN { RS = ""; ORS = "\n\n" } $0 ~ re' "$1"
}

# traced_while NAME -- STACKTAP_ARGS -- COMMAND...: trace COMMAND and its children (in
# the test's cgroup) while it runs
# to its end, then stop the tracer; its output lands in $TMP/NAME.{out,err}.
run_cg_init
traced_while() {
	local name=$1 sargs=(); shift 2
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done; shift
	# Only what COMMAND runs: the same test elsewhere on the machine runs the same programs.
	"$ST" "${sargs[0]}" ${RUN_CG:+--cgroup "$RUN_CG"} "${sargs[@]:1}" > "$TMP/$name.out" \
		2> "$TMP/$name.err" &
	local spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^Tracing' 60 || { fail "$name" "not attached: $(cat "$TMP/$name.err")"; return 1; }
	"${IN_RUN_CG[@]}" "$@" > "$TMP/$name.w"
	sleep 0.3
	kill -INT "$spid"; wait "$spid"
}

# --- 20 libraries at one address, in turn -------------------------------------
# Each dlopen()ed, called N times and dlclose()d before the next lands where it
# was: every library's own chain, N events each (they all read "lib19" before).
N=5
DL=$W/dlmany
run_traced dlmany "$DL/dlmany" "$DL" 20 $N -- count -U -p @PID@ "u:$DL/dlmany:callback"
expect_eq dlmany-same-address "$(awk '/^lib/ { print $2 }' "$TMP/dlmany.w" | sort -u | wc -l) \
$(grep -c '^lib' "$TMP/dlmany.w")" "1 20"
for i in $(seq 0 19); do echo "lib${i}_leaf $i"; done | LC_ALL=C sort | while read -r _ i; do
	stack_block callback "lib${i}_leaf" "lib${i}_mid" "lib${i}_entry" run one main $LIBC_START $N
done > "$TMP/dlmany.want"
expect_file_eq dlmany-each-library "$TMP/dlmany.out" "$TMP/dlmany.want"

# --- 200 runs of a stripped PIE merge into one stack --------------------------
# Frames without a symbol read "[unknown] (FILE+0xOFFSET)": the same in every run.
X=$W/exitchain_stripped
traced_while stripped -- count -U --ringbuf-kb 32768 t:syscalls:sys_enter_exit_group -- \
	bash -c "for i in \$(seq 200); do '$X'; done"
blocks_with "$TMP/stripped.out" 'exitchain_stripped' > "$TMP/stripped.blocks"
# What each offset is, by the unstripped twin's symbols.
python3 "$ROOT/tests/integration/offsets_to_names.py" "$W/exitchain" exitchain_stripped \
	< "$TMP/stripped.blocks" > "$TMP/stripped.got"
stack_block leave_b leave_a main __libc_start_call_main __libc_start_main _start 200 \
	> "$TMP/stripped.want"
expect_file_eq stripped-pie-one-stack "$TMP/stripped.got" "$TMP/stripped.want"
expect_eq stripped-pie-unknown-names "$(grep -c '^  \[unknown\] (exitchain_stripped+0x[0-9a-f]*)$' \
	"$TMP/stripped.blocks")" 4

# --- fork, then exec a moment later -------------------------------------------
# The child's stack at execve is its parent's code: the child maps what the parent
# maps from fork() on (registry and BPF walker), so every one is whole and named.
traced_while forkexec -- count -U --ringbuf-kb 32768 t:syscalls:sys_enter_execve -- \
	"$W/forkexec" 50 /bin/true
blocks_with "$TMP/forkexec.out" 'spawn_one' > "$TMP/forkexec.got"
stack_block execve spawn_one spawn_all main $LIBC_START 50 > "$TMP/forkexec.want"
expect_file_eq fork-exec-children "$TMP/forkexec.got" "$TMP/forkexec.want"

# --- a process met at its own exec --------------------------------------------
# reexec runs before stacktap starts, so its first event is its own execve, after
# an earlier exec: its frames are the image the call replaces, described before
# the exec goes on. stacktap is stopped meanwhile: a /proc read would come late.
rm -f "$TMP/go"; mkfifo "$TMP/go"
"${IN_RUN_CG[@]}" "$W/reexec" 30 "$TMP/go" > "$TMP/reexec.w" &
RPID=$!
ST_PIDS+=("$RPID")
wait_for_line "$TMP/reexec.w" '^ready' || fail exec-after-exec "workload not ready"
"$ST" count -U ${RUN_CG:+--cgroup "$RUN_CG"} --ringbuf-kb 32768 t:syscalls:sys_enter_execve \
	> "$TMP/reexec.out" 2> "$TMP/reexec.err" &
SPID=$!
ST_PIDS+=("$SPID")
wait_for_line "$TMP/reexec.err" '^Tracing' 60 || fail exec-after-exec "not attached: $(cat "$TMP/reexec.err")"
kill -STOP "$SPID"
release "$TMP/go"
wait "$RPID"
kill -CONT "$SPID"
sleep 0.3
kill -INT "$SPID"; wait "$SPID"
blocks_with "$TMP/reexec.out" 'hop' > "$TMP/reexec.got"
stack_block execve hop main $LIBC_START 30 > "$TMP/reexec.want"
# The description at the exec is the met filter's (bpf/met.bpf.h), on where a tracepoint may
# schedule a task_work; without it the first exec's frames are read from /proc too late.
if needs_feature exec-after-exec "task_work from tracepoint"; then
	expect_file_eq exec-after-exec "$TMP/reexec.got" "$TMP/reexec.want"
fi
