#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The footprint of a system-wide `stacktap profile -F 99` beside bcc's
# profile, bpftrace's `profile:hz:99 { @[kstack, ustack] = count(); }` and
# `perf record -F 99 -a -g` (to a temporary file; -N -B: no build-ID cache
# in ~/.debug, where it would let a later report find moved files), in one
# run: the tool's own CPU as a % of one CPU (its process's utime+stime;
# the BPF programs' run time, charged to the interrupted tasks, in a column of
# its own), its peak RSS (VmHWM) and its RSS sampled every 5 s, in two
# phases:
#   quiet  BENCH_FOOT_S seconds of whatever the machine runs;
#   churn  while BENCH_FOOT_PROCS short-lived processes (/bin/true, one after
#          the other) run: the RSS series shows whether memory stays flat.
# All tools run at once in each phase, so they see the same load over the
# same window (each also samples the others: alike for all); BENCH_FOOT_REPS
# rounds (figures: medians; the RSS series of the last round).
#
# Environment: O, ST (from bench/run.sh), BENCH_FOOT_S (10),
# BENCH_FOOT_PROCS (10000), BENCH_FOOT_REPS (1); ST_BASE: another stacktap
# binary (say, a build of main) measured in the same run as "st-base", for a
# before/after on the same machine state. A peer that cannot run gets its
# reason in its row.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
SECS=${BENCH_FOOT_S:-10}
PROCS=${BENCH_FOOT_PROCS:-10000}
REPS=${BENCH_FOOT_REPS:-1}
BCC=/usr/sbin/profile-bpfcc
ATTACH_TIMEOUT_S=120
TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
BENCH_NAME=bench_footprint
# shellcheck source=bench/lib.sh
. bench/lib.sh
declare -A CPU BPF HWM SERIES SECS_OF REASON PID SER
TOOLS=(bcc bpftrace perf stacktap)
ST_BASE=${ST_BASE:-}
[ -n "$ST_BASE" ] && TOOLS=(bcc bpftrace perf st-base stacktap)
SHOWN=(stacktap bcc bpftrace perf) # the order of the table
[ -n "$ST_BASE" ] && SHOWN=(stacktap st-base bcc bpftrace perf)
HZ=$(getconf CLK_TCK)

trap 'kill_jobs; wait 2>/dev/null; bpf_stats_restore; rm -rf "$TMP"' EXIT

tool_cmd() {
	CMD=(env --default-signal=INT)
	case $1 in
	stacktap) CMD+=("$ST" profile -F 99) PAT='^(Sampling|Tracing)' ;;
	st-base) CMD+=("$ST_BASE" profile -F 99) PAT='^(Sampling|Tracing)' ;;
	perf) CMD+=(perf record -q -N -B -F 99 -a -g -o "$TMP/perf.data") PAT='' ;;
	bcc) CMD+=(PYTHONUNBUFFERED=1 "$BCC" -F 99) PAT='^Sampling' ;;
	bpftrace) CMD+=(bpftrace -e 'profile:hz:99 { @[kstack, ustack] = count(); }') PAT='^Attaching' ;;
	esac
}

kb() { awk -v k="$2" '$1 == k ":" { print $2 }' "/proc/$1/status" 2>/dev/null; }
mb() { awk -v k="${1:-0}" 'BEGIN { printf "%.1f", k / 1024 }'; }

# churn: PROCS short processes one after the other, in the background; CHURN_PID.
churn() {
	(for ((i = 0; i < PROCS; i++)); do /bin/true; done) &
	CHURN_PID=$!
}

# start_tool TOOL: launch it in the background and wait for its banner; PID[TOOL],
# or REASON[TOOL] when it did not start.
start_tool() {
	local tool=$1 tpid err=$TMP/$1.err i
	tool_cmd "$tool"
	if [ "$tool" = bpftrace ]; then
		"${CMD[@]}" > "$err" 2>&1 & # its banner is on stdout
	else
		"${CMD[@]}" > /dev/null 2> "$err" &
	fi
	tpid=$!
	# bcc prints its banner on stdout: it goes to /dev/null, so wait for the sleep instead
	if [ "$tool" = bcc ]; then
		for ((i = 0; i < ATTACH_TIMEOUT_S * 10; i++)); do
			[ "$(cat /proc/$tpid/wchan 2>/dev/null)" = hrtimer_nanosleep ] && break
			kill -0 "$tpid" 2>/dev/null || break
			sleep 0.1
		done
	elif [ -z "$PAT" ]; then
		sleep 3 # perf record says nothing until it ends
	else
		wait_for "$err" "$PAT" $ATTACH_TIMEOUT_S "$tpid"
	fi
	if ! kill -0 "$tpid" 2>/dev/null; then
		REASON[$tool]="did not start: $(grep -v -e WARNING -e RLIMIT "$err" | tail -1)"
		wait "$tpid" 2>/dev/null
		return
	fi
	PID[$tool]=$tpid
}

# run_phase PHASE: every tool at once over the same window, so each sees the
# same load (the others' work included). The peers start first: bcc's
# compile and bpftrace's LLVM then run before stacktap samples anything.
run_phase() {
	local phase=$1 t w0 w1 next
	declare -A T0 B0 IDS
	PID=()
	for t in "${TOOLS[@]}"; do
		[ -n "${REASON[$t]:-}" ] || start_tool "$t"
	done
	sleep 1
	for t in "${!PID[@]}"; do
		IDS[$t]=$(prog_ids_of "${PID[$t]}")
		# shellcheck disable=SC2086 # one id a word
		T0[$t]=$(ticks "${PID[$t]}") B0[$t]=$(run_ns_of ${IDS[$t]})
		SER[$t]=''
	done
	w0=$(date +%s%N)
	[ "$phase" = churn ] && churn
	next=0
	while :; do
		w1=$(date +%s%N)
		if [ $(((w1 - w0) / 1000000000)) -ge "$next" ]; then
			for t in "${!PID[@]}"; do SER[$t]+="$(mb "$(kb "${PID[$t]}" VmRSS)") "; done
			next=$((next + 5))
		fi
		if [ "$phase" = churn ]; then kill -0 "$CHURN_PID" 2>/dev/null || break
		else [ $(((w1 - w0) / 1000000000)) -ge "$SECS" ] && break
		fi
		sleep 0.2
	done
	[ "$phase" = churn ] && wait "$CHURN_PID"
	w1=$(date +%s%N)
	for t in "${!PID[@]}"; do
		local tpid=${PID[$t]} t1 b1
		# shellcheck disable=SC2086
		t1=$(ticks "$tpid") b1=$(run_ns_of ${IDS[$t]})
		SERIES[$t.$phase]="${SER[$t]}$(mb "$(kb "$tpid" VmRSS)")"
		HWM[$t.$phase]+="$(mb "$(kb "$tpid" VmHWM)") "
		CPU[$t.$phase]+="$(awk -v t=$((t1 - T0[$t])) -v hz="$HZ" -v w=$((w1 - w0)) \
			'BEGIN { printf "%.2f", 100 * t * 1e9 / hz / w }') "
		BPF[$t.$phase]+="$(awk -v b=$((b1 - B0[$t])) -v w=$((w1 - w0)) \
			'BEGIN { printf "%.2f", 100 * b / w }') "
		SECS_OF[$t.$phase]=$(((w1 - w0) / 1000000000))
	done
	for t in "${!PID[@]}"; do kill -INT "${PID[$t]}" 2>/dev/null; done
	for t in "${!PID[@]}"; do wait "${PID[$t]}"; done
}

main() {
	local r t p
	bench_preflight
	bpf_stats_on
	echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "profile -F 99 system-wide: quiet $SECS s, then churn of $PROCS short processes; $REPS round(s)"
	for ((r = 1; r <= REPS; r++)); do
		for p in quiet churn; do
			note "round $r/$REPS: $p, all tools at once"
			run_phase "$p"
		done
	done
	printf '%-6s %-9s %6s %9s %10s %8s %9s %8s  %s\n' phase tool secs "CPU %" "vs bpftrace" \
		"BPF %" "peak MB" "vs bpft" "RSS MB every 5 s"
	for p in quiet churn; do
		for t in "${SHOWN[@]}"; do
			if [ -z "${CPU[$t.$p]:-}" ]; then
				printf '%-6s %-9s not run: %s\n' "$p" "$t" "${REASON[$t]:-unknown}"
				continue
			fi
			printf '%-6s %-9s %6s %9s %10s %8s %9s %8s  %s\n' "$p" "$t" "${SECS_OF[$t.$p]}" \
				"$(echo "${CPU[$t.$p]}" | median)" \
				"$(ratio "$(echo "${CPU[$t.$p]}" | median)" "$(echo "${CPU[bpftrace.$p]:-}" | median)")" \
				"$(echo "${BPF[$t.$p]}" | median)" "$(echo "${HWM[$t.$p]}" | median)" \
				"$(ratio "$(echo "${HWM[$t.$p]}" | median)" "$(echo "${HWM[bpftrace.$p]:-}" | median)")" \
				"${SERIES[$t.$p]}"
		done
	done
	echo "(CPU %: the tool process's CPU over the phase, % of one CPU; BPF %: its programs' run"
	echo "time, % of one CPU; peak MB: VmHWM at the end of the phase)"
	echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${CPU[stacktap.quiet]:-}" ]
}

main
