#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Files named by traced processes are hostile (issue 8 §4). An unprivileged process
# (nobody) replaces its executable's path by a FIFO, or by a symbolic link to the
# root-only /etc/shadow, then exits (or execs /bin/true). stacktap reads the records
# only afterwards (it is stopped meanwhile), so /proc/PID/map_files cannot help and the
# path is all it has. It must finish on time with rc 0, never open the path
# (strace says so), and report the process's frames as unknown, with the reason.
source "$(dirname "$0")/lib.sh"

SHADOW_REASON="its path is a symbolic link"
FIFO_REASON="not a regular file (FIFO, device, socket or directory)"
N=5
# The hostile process runs in the test's own cgroup, traced with --cgroup: the
# same test running elsewhere on the machine makes hostile files of its own.
run_cg_init

# hostile_case MODE REASON
hostile_case() {
	local mode=$1 reason=$2 dir pidfile stpid tpid rc
	dir=$(mktemp -d /tmp/stacktap-hostile.XXXXXX)
	chmod 755 "$dir"
	cp "$W/hostile" "$dir/hostile"
	mkfifo -m 666 "$dir/go"
	chown -R nobody:nogroup "$dir"
	pidfile=$TMP/$mode.pid
	# strace -f sees every open of stacktap; sh writes the pid stacktap will have. The
	# ring buffer holds what the whole machine does while stacktap is stopped.
	timeout 60 strace -f -qq -o "$TMP/$mode.strace" -e trace=open,openat,openat2 \
		sh -c 'echo $$ > "$0"; exec "$@"' "$pidfile" \
		"$ST" count ${RUN_CG:+--cgroup "$RUN_CG"} -U --unwind=fp --ringbuf-kb 65536 -D 4 \
		t:syscalls:sys_enter_getpriority \
		> "$TMP/$mode.out" 2> "$TMP/$mode.err" &
	tpid=$!
	ST_PIDS+=("$tpid")
	if ! wait_for_line "$TMP/$mode.err" '^Tracing' 60; then
		fail "$mode-attached" "$(cat "$TMP/$mode.err")"
		rm -rf "$dir"
		return
	fi
	stpid=$(cat "$pidfile")
	kill -STOP "$stpid"
	"${IN_RUN_CG[@]}" setpriv --reuid=nobody --regid=nogroup --clear-groups "$dir/hostile" "$mode" $N "$dir/go" \
		> "$TMP/$mode.w" &
	release "$dir/go"
	wait $!
	kill -CONT "$stpid"
	wait "$tpid"
	rc=$?
	expect_eq "$mode-on-time-rc0" "$rc" 0
	expect_eq "$mode-nothing-dropped" "$(grep -c ' dropped: ' "$TMP/$mode.err")" 0
	# The frames in the refused file: hostile_b's syscall, main's call (fp walk: the
	# leaf hostile_a keeps no frame), named by file and offset only.
	awk 'BEGIN { RS = ""; ORS = "\n\n" } /\(hostile\+0x/' "$TMP/$mode.out" |
		python3 "$ROOT/tests/integration/offsets_to_names.py" "$W/hostile" hostile |
		head -2 > "$TMP/$mode.got"
	expect_eq "$mode-frames-unknown" "$(cat "$TMP/$mode.got") $(grep -c '^  \[unknown\] (hostile+0x' "$TMP/$mode.out")" \
		"  hostile_b
  main 2"
	expect_eq "$mode-reason" "$(grep 'mapped files not read' "$TMP/$mode.err")" \
		"stacktap: 1 mapped files not read, their frames unknown: $reason (first: $dir/hostile)"
	expect_eq "$mode-never-opened" "$(grep -c "$dir/hostile" "$TMP/$mode.strace")" 0
	rm -rf "$dir"
}

hostile_case fifo "$FIFO_REASON"
hostile_case symlink "$SHADOW_REASON"
hostile_case exec-fifo "$FIFO_REASON"
hostile_case exec-symlink "$SHADOW_REASON"
