#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# CPU per context switch of a system-wide `stacktap offcpu` beside bpftrace's
# `tracepoint:sched:sched_switch { @[kstack, ustack] = count(); }` (and bcc's
# offcputime where it can run), in one run.
#
# The workload is `perf bench sched pipe -l BENCH_OFFCPU_LOOPS`: two tasks
# passing a byte back and forth through pipes, two context switches a round
# trip. While it runs, each tool traces the whole machine. "CPU/switch" is the
# tool process's CPU (utime+stime) plus the run time of the BPF programs it
# holds (BPF statistics held on), over the machine's context switches
# (/proc/stat ctxt) in the same window; "usecs/op added" is the workload's
# round trip under the tool minus untraced. Every tool runs once per round,
# BENCH_OFFCPU_REPS rounds; figures are medians, with the spread (lowest-
# highest) of the per-round ratio to bpftrace.
#
# Environment: O, ST (from bench/run.sh), BENCH_OFFCPU_LOOPS (50000),
# BENCH_OFFCPU_REPS (5), ST_BEFORE (another stacktap build, e.g. main's, run
# in the same rounds as "before"). A peer that cannot run gets its reason in
# its row.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
LOOPS=${BENCH_OFFCPU_LOOPS:-50000}
REPS=${BENCH_OFFCPU_REPS:-5}
BCC=/usr/sbin/offcputime-bpfcc
ATTACH_TIMEOUT_S=120
TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
BENCH_NAME=bench_offcpu
# shellcheck source=bench/lib.sh
. bench/lib.sh
declare -A OP PERSW RATIO REASON
TOOLS=(baseline stacktap stacktap-sync bpftrace bcc)
ST_BEFORE=${ST_BEFORE:-}
[ -n "$ST_BEFORE" ] && TOOLS=(baseline stacktap stacktap-sync stacktap-before bpftrace bcc)
HZ=$(getconf CLK_TCK)

trap 'kill_jobs; wait 2>/dev/null; bpf_stats_restore; rm -rf "$TMP"' EXIT

tool_cmd() {
	CMD=(env --default-signal=INT)
	BANNER=out
	case $1 in
	stacktap*) BANNER=err ;;
	esac
	case $1 in
	stacktap) CMD+=("$ST" offcpu) PAT='^Tracing' ;;
	stacktap-sync) CMD+=("$ST" offcpu --user-stacks=sync) PAT='^Tracing' ;;
	stacktap-before) CMD+=("$ST_BEFORE" offcpu) PAT='^Tracing' ;;
	bpftrace) CMD+=(bpftrace -e 'tracepoint:sched:sched_switch { @[kstack, ustack] = count(); }')
		PAT='^Attaching' ;;
	bcc) CMD+=(PYTHONUNBUFFERED=1 "$BCC") PAT='^Tracing' ;;
	esac
}

# The workload's usecs/op.
workload() { perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '$2 == "usecs/op" { print $1 }'; }

run_one() {
	local tool=$1 tpid ids c0 c1 t0 t1 b0 b1 op
	if [ "$tool" = baseline ]; then
		OP[$tool]+="$(workload) "
		return
	fi
	tool_cmd "$tool"
	"${CMD[@]}" > "$TMP/t.out" 2> "$TMP/t.err" &
	tpid=$!
	# stacktap's banner is on stderr, the peers' on stdout: waited for on stdout alone,
	# every stacktap round sat out the whole timeout (the "1-3 minutes to the banner").
	if ! wait_for "$TMP/t.$BANNER" "$PAT" $ATTACH_TIMEOUT_S "$tpid"; then
		REASON[$tool]="did not start: $(grep -v -e WARNING -e RLIMIT "$TMP/t.err" | tail -1)"
		grep -q 'kprobe' "$TMP/t.err" && REASON[$tool]="needs kprobes (finish_task_switch): this kernel has none"
		kill -9 "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
		return
	fi
	sleep 2 # bpftrace's banner comes before its attach; stacktap's first records settle
	ids=$(prog_ids_of "$tpid")
	# shellcheck disable=SC2086 # one id a word
	c0=$(ctxt) t0=$(ticks "$tpid") b0=$(run_ns_of $ids)
	op=$(workload)
	# shellcheck disable=SC2086
	c1=$(ctxt) t1=$(ticks "$tpid") b1=$(run_ns_of $ids)
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	OP[$tool]+="$op "
	PERSW[$tool]+="$(awk -v t=$((t1 - t0)) -v hz="$HZ" -v b=$((b1 - b0)) -v c=$((c1 - c0)) \
		'BEGIN { printf "%.0f", (t * 1e9 / hz + b) / c }') "
}

main() {
	local r t b
	[ "$(id -u)" = 0 ] || { note "needs root"; exit 1; }
	[ -x "$ST" ] || { note "$ST: not built (make O=$O)"; exit 1; }
	perf bench sched pipe -l 10 > /dev/null 2>&1 || { note "perf bench does not run (make bench-deps)"; exit 1; }
	command -v bpftrace > /dev/null || REASON[bpftrace]="bpftrace missing: apt-get install bpftrace"
	BCC_REASON=
	[ -x "$BCC" ] || BCC_REASON="$BCC missing: apt-get install bpfcc-tools"
	[ -z "$BCC_REASON" ] && bcc_headers
	[ -n "$BCC_REASON" ] && REASON[bcc]=$BCC_REASON
	bpf_stats_on
	echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "offcpu system-wide during perf bench sched pipe -l $LOOPS; $REPS rounds"
	for ((r = 1; r <= REPS; r++)); do
		note "round $r/$REPS"
		for t in "${TOOLS[@]}"; do
			[ -n "${REASON[$t]:-}" ] && [ "${t#stacktap}" = "$t" ] && continue
			run_one "$t"
		done
		b=$(echo "${PERSW[bpftrace]:-}" | tr ' ' '\n' | grep . | tail -1)
		for t in stacktap stacktap-sync stacktap-before; do
			RATIO[$t]+="$(awk -v a="$(echo "${PERSW[$t]:-}" | tr ' ' '\n' | grep . | tail -1)" -v b="$b" \
				'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }') "
		done
		# the rounds so far, in case the run is cut short: stacktap starts slowly on a busy machine
		for t in stacktap stacktap-sync stacktap-before bpftrace; do
			note "after round $r: $t CPU ns/switch ${PERSW[$t]:-}, ratio to bpftrace ${RATIO[$t]:-}"
		done
	done
	b=$(echo "${OP[baseline]:-}" | median)
	printf '%-14s %10s %14s %11s %12s %13s %14s\n' tool usecs/op "usecs/op added" "CPU/switch" \
		"vs bpftrace" "ratio spread" "CPU/sw runs"
	for t in "${TOOLS[@]}"; do
		if [ -z "${OP[$t]:-}" ]; then
			printf '%-14s not run: %s\n' "$t" "${REASON[$t]:-unknown}"
			continue
		fi
		printf '%-14s %10s %14s %11s %12s %13s %14s\n' "$t" "$(echo "${OP[$t]}" | median)" \
			"$(awk -v a="$(echo "${OP[$t]}" | median)" -v b="$b" 'BEGIN { printf "%.3f", a - b }')" \
			"$(echo "${PERSW[$t]:-}" | median)" \
			"$(ratio "$(echo "${PERSW[$t]:-}" | median)" "$(echo "${PERSW[bpftrace]:-}" | median)")" \
			"$(echo "${RATIO[$t]:-}" | spread)" "${PERSW[$t]:-}"
	done
	echo "(CPU/switch: ns of tool CPU + its BPF run time per context switch of the machine;"
	echo "ratio spread: lowest-highest per-round ratio to bpftrace)"
	echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${OP[stacktap]:-}" ]
}

main
