# SPDX-License-Identifier: GPL-2.0
# Helpers of test_profile.sh, test_offcpu.sh and test_deferred.sh. Sourced after lib.sh.

# run_wl NAME WORKLOAD_ARGS -- STACKTAP_ARGS: like lib.sh's run_traced, for
# workloads that print "ready PID [TID]": @PID@ and @TID@ are replaced in the
# stacktap arguments. The tracer's banner starts with Tracing or Sampling.
run_wl() {
	local name=$1 wpid spid pid tid
	shift
	local wargs=() sargs=()
	while [ "$1" != -- ]; do wargs+=("$1"); shift; done; shift
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"${wargs[@]}" "$TMP/go" > "$TMP/$name.w" &
	wpid=$!
	ST_PIDS+=("$wpid")
	wait_for_line "$TMP/$name.w" '^ready' || { fail "$name" "workload not ready"; return 1; }
	read -r _ pid tid < "$TMP/$name.w"
	for a in "$@"; do a=${a//@PID@/$pid}; sargs+=("${a//@TID@/${tid:-$pid}}"); done
	"$ST" "${sargs[@]}" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^(Tracing|Sampling)' ||
		{ fail "$name" "tracer not attached: $(cat "$TMP/$name.err")"; return 1; }
	wait_tables "$name" "$pid" || return 1
	release "$TMP/go"
	wait "$wpid"
	wait "$spid"
	echo $? > "$TMP/$name.rc"
}

# run_held NAME DONE WORKLOAD_ARGS -- STACKTAP_ARGS: like run_wl, for a
# workload given "GO_FIFO hold": it reads a second byte from GO_FIFO before
# it exits. The tracer is ended (SIGINT: it prints what it has; its exit
# status in $TMP/NAME.rc) once the workload printed a line matching DONE, so
# no sample of the exit itself (do_exit, the address space torn down: no
# user stack left to unwind) reaches it.
run_held() {
	local name=$1 done=$2 wpid spid pid tid
	shift 2
	local wargs=() sargs=()
	while [ "$1" != -- ]; do wargs+=("$1"); shift; done; shift
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"${wargs[@]}" "$TMP/go" hold > "$TMP/$name.w" &
	wpid=$!
	ST_PIDS+=("$wpid")
	wait_for_line "$TMP/$name.w" '^ready' || { fail "$name" "workload not ready"; return 1; }
	read -r _ pid tid < "$TMP/$name.w"
	for a in "$@"; do a=${a//@PID@/$pid}; sargs+=("${a//@TID@/${tid:-$pid}}"); done
	"$ST" "${sargs[@]}" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^(Tracing|Sampling)' ||
		{ fail "$name" "tracer not attached: $(cat "$TMP/$name.err")"; return 1; }
	release "$TMP/go"
	# CPU time: on a loaded machine the workload takes longer in wall time.
	wait_for_line "$TMP/$name.w" "$done" 300 || { fail "$name" "workload did not finish"; return 1; }
	kill -INT "$spid"
	wait "$spid"
	echo $? > "$TMP/$name.rc"
	release "$TMP/go"
	wait "$wpid"
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
