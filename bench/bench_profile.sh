#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Overhead of `stacktap profile` and `stacktap offcpu` next to their peers, in one run.
#
# Profile: two CPU-bound workloads (tests/workloads/busy.c, one per CPU) each
# spin for BENCH_CPU_S seconds of their own CPU time while a tool samples the
# whole machine at 99 Hz: stacktap profile (deferred user stacks, and sync),
# stacktap record profile (the same capture, written to a recording: its
# cost next to perf record's), perf record -F 99 -g -a, bcc's profile. "slowdown" is the loss of the
# workloads' work rate (calls per CPU second; a tool's interrupts and
# callbacks are charged to the CPU they interrupt), "tool CPU" the tracer
# process's CPU time over the same window plus its BPF programs' run time
# (BPF statistics held on).
#
# Off-CPU: the writer thread of the pipe workload (tests/workloads/offcpu.c
# pipe: 1 MiB write()s into a slowly drained pipe, each blocking ~64 times)
# traced by stacktap offcpu (deferred and sync), bcc's offcputime -U and a
# bpftrace script that takes ustack at each switch-out (what offcputime
# does). "CPU per switch" is the tool's CPU plus the BPF run time over the
# writer's context switches; "walks per switch" counts user-stack walks.
#
# Rounds: every configuration once per round, baseline first, BENCH_REPS
# rounds; each figure is the median over the rounds (slowdown against its
# own round's baseline), so drifting machine load hits every tool alike.
#
# Environment: O, ST (from bench/run.sh), BENCH_CPU_S (3), BENCH_WRITES (20),
# BENCH_REPS (3). A peer that cannot run gets its reason in its row.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
W=$PWD/$O/workloads
CPU_S=${BENCH_CPU_S:-3}
REPS=${BENCH_REPS:-3}
WRITES=${BENCH_WRITES:-20}
HZ=99
BCC_PROFILE=/usr/sbin/profile-bpfcc
BCC_OFFCPU=/usr/sbin/offcputime-bpfcc
ATTACH_TIMEOUT_S=120 # bcc compiles its program with clang first
TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
TICK_MS=$((1000 / $(getconf CLK_TCK)))
declare -A SLOW TCPU SAMPLES PERSW WALKS REASON SW
declare -A R_SLOW R_TCPU R_SAMPLES R_PERSW R_WALKS R_SW # per round, space-separated

BENCH_NAME=bench_profile
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap bench_cleanup EXIT

# wait_sleeping PID: until bcc, done compiling and attaching, sleeps in its main loop.
wait_sleeping() {
	local i
	for ((i = 0; i < ATTACH_TIMEOUT_S * 4; i++)); do
		kill -0 "$1" 2>/dev/null || return 1
		[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = hrtimer_nanosleep ] && return 0
		sleep 0.25
	done
	return 1
}

# start_tool NAME CMD...: the tracer in the background; TPID; waits for its banner.
start_tool() {
	local name=$1
	shift
	ID0=$(max_prog_id)
	env --default-signal=INT "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	TPID=$!
	case $name in
	perf) sleep 2 ;;
	stacktap*) wait_for "$TMP/$name.err" '^(Tracing|Sampling)' $ATTACH_TIMEOUT_S $TPID ;;
	bpftrace) wait_for "$TMP/$name.out" '^Attaching' $ATTACH_TIMEOUT_S $TPID ;;
	*) wait_sleeping $TPID ;; # bcc with -f prints no banner
	esac || {
		REASON[$name]="did not start: $(grep -v -e WARNING -e RLIMIT "$TMP/$name.err" | tail -1)"
		kill -9 $TPID 2>/dev/null
		wait $TPID 2>/dev/null
		return 1
	}
	T0=$(ticks $TPID) B0=$(bpf_ns_since $ID0)
}

# stop_tool NAME: CPU ms and BPF ms since start_tool, then SIGINT and wait.
stop_tool() {
	local t1 b1
	t1=$(ticks $TPID) b1=$(bpf_ns_since $ID0)
	TCPU[$1]=$(awk -v t=$((t1 - T0)) -v b=$((b1 - B0)) -v k=$TICK_MS 'BEGIN {printf "%.0f", t * k + b / 1e6}')
	kill -INT $TPID 2>/dev/null
	wait $TPID 2>/dev/null
}

# --- profile ---------------------------------------------------------------------

# busy_run NAME: two busy workloads, one per CPU; RATE = calls per CPU second, summed.
busy_run() {
	local i rate=0 pids=()
	for i in 0 1; do
		taskset -c $i "$W/busy_fp" "$CPU_S" > "$TMP/$1.busy$i" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for i in 0 1; do
		rate=$(awk -v r="$rate" '$1 == "cpu_ns" {n = $2} $1 == "calls" {c = $2} END {printf "%.1f", r + c / (n / 1e9)}' "$TMP/$1.busy$i")
	done
	RATE=$rate
}

profile_tool() { # NAME CMD...
	local name=$1
	shift
	TPID=
	if [ "$name" != baseline ]; then
		start_tool "$name" "$@" || return
	fi
	busy_run "$name"
	[ "$name" != baseline ] && stop_tool "$name"
	if [ "$name" = baseline ]; then BASE=$RATE; return; fi
	R_SLOW[$name]+=" $(awk -v b="$BASE" -v r="$RATE" 'BEGIN {printf "%.2f", (b / r - 1) * 100}')"
	R_TCPU[$name]+=" ${TCPU[$name]}"
	case $name in
	stacktap-record) R_SAMPLES[$name]+=" $("$ST" report --no-progress -i "$TMP/stacktap.data" -f |
		awk '/^busy_fp/ {s += $NF} END {print s + 0}')" ;;
	stacktap*|bcc) R_SAMPLES[$name]+=" $(awk '/^busy_fp/ {s += $NF} END {print s + 0}' "$TMP/$name.out")" ;;
	perf) R_SAMPLES[$name]+=" $(perf report -i "$TMP/perf.data" --stdio -g none --sort comm \
		-F sample,comm 2>/dev/null | awk '$2 == "busy_fp" {print $1}')" ;;
	esac
}

bench_profile() {
	local r t
	[ -x "$BCC_PROFILE" ] && bcc_headers || REASON[bcc]="bcc profile or kernel headers missing"
	for ((r = 0; r < REPS; r++)); do
		profile_tool baseline
		profile_tool stacktap "$ST" profile -F $HZ -f
		profile_tool stacktap-sync "$ST" profile --user-stacks=sync -F $HZ -f
		profile_tool stacktap-record "$ST" record -o "$TMP/stacktap.data" profile -F $HZ
		profile_tool perf perf record -F $HZ -g -a -o "$TMP/perf.data"
		[ -z "${REASON[bcc]:-}" ] && profile_tool bcc env PYTHONUNBUFFERED=1 "$BCC_PROFILE" -F $HZ -f
	done
	for t in stacktap stacktap-sync stacktap-record perf bcc; do
		SLOW[$t]=$(echo "${R_SLOW[$t]:-}" | median)
		TCPU[$t]=$(echo "${R_TCPU[$t]:-}" | median)
		SAMPLES[$t]=$(echo "${R_SAMPLES[$t]:-}" | median)
	done
	local expect=$((CPU_S * HZ * 2))
	printf '\nprofile -F %d, system-wide, 2 x busy_fp for %d CPU-s each (expect ~%d busy samples);' \
		$HZ "$CPU_S" $expect
	printf ' medians of %d rounds\n' "$REPS"
	printf '%-16s %12s %14s %14s %16s\n' tool slowdown% 'tool CPU ms' 'vs stacktap' 'busy samples'
	local t
	for t in stacktap stacktap-sync stacktap-record perf bcc; do
		if [ -n "${REASON[$t]:-}" ] || [ -z "${TCPU[$t]}" ]; then
			printf '%-16s %s\n' $t "${REASON[$t]:-did not run}"
			continue
		fi
		printf '%-16s %12s %14s %14s %16s\n' $t "${SLOW[$t]}" "${TCPU[$t]}" \
			"$(awk -v a="${TCPU[$t]}" -v b="${TCPU[stacktap]}" 'BEGIN {printf "%.2fx", b ? a / b : 0}')" \
			"${SAMPLES[$t]:-?}"
	done
}

# --- off-CPU ---------------------------------------------------------------------

BPFTRACE_OFFCPU='tracepoint:sched:sched_switch /args->prev_pid == $1/
	{ @start[args->prev_pid] = nsecs; @stk[args->prev_pid] = ustack; @walks = count(); }
tracepoint:sched:sched_switch /@start[args->next_pid]/
	{ @us[@stk[args->next_pid]] = sum((nsecs - @start[args->next_pid]) / 1000);
	  delete(@start[args->next_pid]); }'

offcpu_tool() { # NAME CMD... (@PID@ replaced)
	local name=$1 wpid arg cmd=()
	shift
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$W/offcpu_fp" pipe "$WRITES" "$TMP/go" > "$TMP/$name.w" &
	wpid=$!
	wait_for "$TMP/$name.w" '^ready [0-9]+ [0-9]+$' 10 $wpid ||
		{ REASON[$name]="workload did not start"; return; }
	read -r _ pid tid < "$TMP/$name.w"
	for arg in "$@"; do arg=${arg//@PID@/$pid}; cmd+=("${arg//@TID@/$tid}"); done
	TPID=
	if [ "$name" != baseline ]; then
		start_tool "$name" "${cmd[@]}" || { echo go > "$TMP/go"; wait $wpid; return; }
	fi
	echo go > "$TMP/go"
	wait $wpid
	[ "$name" != baseline ] && stop_tool "$name"
	local sw walks=
	sw=$(awk '$1 == "writer_all_switches" {print $2}' "$TMP/$name.w")
	case $name in
	stacktap) walks=$(sed -n 's/.*deferred user stacks: \([0-9]*\) walks.*/\1/p' "$TMP/$name.err") ;;
	bpftrace) walks=$(sed -n 's/^@walks: \([0-9]*\)/\1/p' "$TMP/$name.out") ;;
	esac
	R_SW[$name]+=" $sw"
	R_TCPU[$name]+=" ${TCPU[$name]}"
	R_PERSW[$name]+=" $(awk -v c="${TCPU[$name]}" -v s="$sw" 'BEGIN {printf "%.0f", s ? c * 1e6 / s : 0}')"
	[ -n "$walks" ] && R_WALKS[$name]+=" $(awk -v w="$walks" -v s="$sw" 'BEGIN {printf "%.3f", w / s}')"
}

bench_offcpu() {
	local r t
	REASON[bcc]=
	for ((r = 0; r < REPS; r++)); do
		offcpu_tool stacktap "$ST" offcpu -f -t @TID@
		offcpu_tool stacktap-sync "$ST" offcpu --user-stacks=sync -f -t @TID@
		offcpu_tool bpftrace bpftrace -e "$BPFTRACE_OFFCPU" @TID@
	done
	if [ -x "$BCC_OFFCPU" ] && bcc_headers; then
		offcpu_tool bcc env PYTHONUNBUFFERED=1 "$BCC_OFFCPU" -U -f -t @TID@
		grep -q 'kprobes/blacklist' "$TMP/bcc.err" 2>/dev/null &&
			REASON[bcc]="offcputime needs kprobes (finish_task_switch): this kernel has none"
	else
		REASON[bcc]="bcc offcputime or kernel headers missing"
	fi
	for t in stacktap stacktap-sync bpftrace bcc; do
		SW[$t]=$(echo "${R_SW[$t]:-}" | median)
		TCPU[$t]=$(echo "${R_TCPU[$t]:-}" | median)
		PERSW[$t]=$(echo "${R_PERSW[$t]:-}" | median)
		WALKS[$t]=$(echo "${R_WALKS[$t]:-}" | median)
	done
	printf '\noffcpu of the pipe writer (%d x 1 MiB write() into a slow pipe); medians of %d rounds\n' \
		"$WRITES" "$REPS"
	printf '%-16s %12s %14s %16s %12s %14s\n' tool switches 'tool CPU ms' 'ns CPU/switch' \
		'vs stacktap' 'walks/switch'
	local t
	for t in stacktap stacktap-sync bcc bpftrace; do
		if [ -n "${REASON[$t]:-}" ] || [ -z "${TCPU[$t]:-}" ]; then
			printf '%-16s %s\n' $t "${REASON[$t]:-did not run: $(tail -1 "$TMP/$t.err" 2>/dev/null)}"
			continue
		fi
		printf '%-16s %12s %14s %16s %12s %14s\n' $t "${SW[$t]}" "${TCPU[$t]}" "${PERSW[$t]}" \
			"$(awk -v a="${PERSW[$t]}" -v b="${PERSW[stacktap]}" 'BEGIN {printf "%.2fx", b ? a / b : 0}')" \
			"${WALKS[$t]:-1 (at each)}"
	done
}

[ "$(id -u)" = 0 ] || { note "needs root"; exit 1; }
[ -x "$ST" ] && [ -x "$W/busy_fp" ] && [ -x "$W/offcpu_fp" ] || { note "build first: make O=$O tests"; exit 1; }
bpf_stats_on
bench_profile
bench_offcpu
