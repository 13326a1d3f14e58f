# SPDX-License-Identifier: GPL-2.0
# Helpers of test_profile.sh, test_offcpu.sh and test_deferred.sh. Sourced after lib.sh.

# wl_start NAME HOLD WORKLOAD_ARGS -- STACKTAP_ARGS: the workload, given
# "$TMP/go" (and "hold" when HOLD is 1), then, once it printed "ready PID
# [TID]", the tracer, with @PID@ and @TID@ replaced in its arguments; the
# tracer's banner starts with Tracing or Sampling. Sets WL_PID, WL_TARGET (the
# PID it printed) and WL_TRACER. Return: non-zero, recorded, when either did
# not start.
wl_start() {
	local name=$1 hold=$2 tid
	shift 2
	local wargs=() sargs=()
	while [ "$1" != -- ]; do wargs+=("$1"); shift; done; shift
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	wargs+=("$TMP/go")
	[ "$hold" = 1 ] && { printf 00 > "$TMP/go.hold"; wargs+=("$TMP/go.hold"); }
	"${wargs[@]}" > "$TMP/$name.w" &
	WL_PID=$!
	ST_PIDS+=("$WL_PID")
	wait_for_line "$TMP/$name.w" '^ready' || { fail "$name" "workload not ready"; return 1; }
	read -r _ WL_TARGET tid < "$TMP/$name.w"
	for a in "$@"; do a=${a//@PID@/$WL_TARGET}; sargs+=("${a//@TID@/${tid:-$WL_TARGET}}"); done
	"$ST" "${sargs[@]}" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	WL_TRACER=$!
	ST_PIDS+=("$WL_TRACER")
	wait_for_line "$TMP/$name.err" '^(Tracing|Sampling)' ||
		{ fail "$name" "tracer not attached: $(cat "$TMP/$name.err")"; return 1; }
}

# run_wl NAME WORKLOAD_ARGS -- STACKTAP_ARGS: like lib.sh's run_traced, for
# workloads that print "ready PID [TID]" (wl_start()); both run to their end.
run_wl() {
	local name=$1
	shift
	wl_start "$name" 0 "$@" || return 1
	wait_tables "$name" "$WL_TARGET" || return 1
	release "$TMP/go"
	wait "$WL_PID"
	wait "$WL_TRACER"
	echo $? > "$TMP/$name.rc"
}

# run_held NAME DONE WORKLOAD_ARGS -- STACKTAP_ARGS: as run_wl, for a
# workload given "GO_FIFO HOLD_FILE" (golib.h: workload_hold): when its work
# is done it marks HOLD_FILE and spins in user space. The tracer is ended
# then (SIGINT: it prints what it has; its exit status in $TMP/NAME.rc), so
# no sample of the exit itself (do_exit, the address space torn down: no
# user stack left to unwind) reaches it, and none is left in a syscall
# waiting for its user stack. Released, the workload prints a line matching
# DONE and exits.
run_held() {
	local name=$1 done=$2
	shift 2
	wl_start "$name" 1 "$@" || return 1
	release "$TMP/go"
	# CPU time: on a loaded machine the workload takes longer in wall time.
	wait_for_line "$TMP/go.hold" '^1' 300 || { fail "$name" "workload did not finish"; return 1; }
	kill -INT "$WL_TRACER"
	wait "$WL_TRACER"
	echo $? > "$TMP/$name.rc"
	printf 1 | dd of="$TMP/go.hold" bs=1 seek=1 conv=notrunc status=none
	wait "$WL_PID"
	grep -qE "$done" "$TMP/$name.w" || fail "$name" "workload printed no line matching $done"
}

# wl_value NAME KEY: the number after "KEY " in the workload's output.
wl_value() { awk -v k="$2" '$1 == k {print $2}' "$TMP/$1.w"; }

# walks NAME / deferred_events NAME: from the "deferred user stacks: W walks for E events" line.
walks() { sed -n 's/^stacktap: deferred user stacks: \([0-9]*\) walks\{0,1\} for \([0-9]*\) events\{0,1\}$/\1/p' "$TMP/$1.err"; }
deferred_events() { sed -n 's/^stacktap: deferred user stacks: \([0-9]*\) walks\{0,1\} for \([0-9]*\) events\{0,1\}$/\2/p' "$TMP/$1.err"; }

# within NAME GOT WANT PERCENT: |GOT - WANT| <= WANT * PERCENT / 100.
within() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d * 100 <= w * p) }'; then
		pass "$1"
	else
		fail "$1" "got $2, want $3 within $4%"
	fi
}
