#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# CPU per context switch of a system-wide `stacktap offcpu` beside bpftrace's
# `tracepoint:sched:sched_switch { @[kstack, ustack] = count(); }` (and bcc's
# offcputime where it can run), in one run, and the physical floor: bench/floor
# with -s, a bare program on every sched_switch that calls bpf_get_stack for
# the kernel and the user stack (frame pointers) into a per-CPU buffer and
# keeps a count (bench/floor/floor.bpf.c). "vs floor" is a tool's CPU/switch
# over the floor's; when 0.5x bpftrace (issue 13's target) is below the
# floor, the honest target is the floor + 5%, as for bench_count.sh.
#
# The workload is `perf bench sched pipe -l BENCH_OFFCPU_LOOPS`: two tasks
# passing a byte back and forth through pipes, two context switches a round
# trip. While it runs, each tool traces the whole machine. "CPU/switch" is the
# tool process's CPU (utime+stime) plus the run time of the BPF programs it
# holds (BPF statistics held on), over the machine's context switches
# (/proc/stat ctxt) in the same window; "usecs/op added" is the workload's
# round trip under the tool minus untraced; "BPF/switch" the BPF part alone.
# stacktap-defer is --user-stacks=deferred: every switch-out's user stack
# walked once per kernel entry on the way back to user space (the default
# walks at the switch-out, deferring only past a page not present). Every
# tool runs once per round,
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
FLOOR=$O/bench/floor
declare -A OP PERSW BPFSW RATIO REASON
ST_BEFORE=${ST_BEFORE:-}
STACKTAPS=(stacktap stacktap-sync stacktap-defer)
[ -n "$ST_BEFORE" ] && STACKTAPS+=(stacktap-before)
TOOLS=(baseline floor "${STACKTAPS[@]}" bpftrace bcc)
HZ=$(getconf CLK_TCK)

trap 'kill_jobs; wait 2>/dev/null; bpf_stats_restore; rm -rf "$TMP"' EXIT

tool_cmd() {
	CMD=(env --default-signal=INT)
	BANNER=out
	case $1 in
	stacktap* | floor) BANNER=err ;;
	esac
	case $1 in
	floor) CMD+=("$FLOOR" -s) PAT='^Tracing' ;;
	stacktap) CMD+=("$ST" offcpu) PAT='^Tracing' ;;
	stacktap-sync) CMD+=("$ST" offcpu --user-stacks=sync) PAT='^Tracing' ;;
	stacktap-defer) CMD+=("$ST" offcpu --user-stacks=deferred) PAT='^Tracing' ;;
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
	BPFSW[$tool]+="$(awk -v b=$((b1 - b0)) -v c=$((c1 - c0)) 'BEGIN { printf "%.0f", b / c }') "
}

# The last word of $1: this round's figure.
last() { echo "$1" | tr ' ' '\n' | grep . | tail -1; }

# The floor against issue 13's target, 0.5x bpftrace, from the medians.
floor_verdict() {
	local f b
	f=$(echo "${PERSW[floor]:-}" | median) b=$(echo "${PERSW[bpftrace]:-}" | median)
	[ -n "$f" ] && [ -n "$b" ] || return 0
	awk -v f="$f" -v b="$b" 'BEGIN {
		if (f > b / 2) w = "0.5x bpftrace (" int(b / 2) " ns) is below the floor, so the target is floor + 5% (" int(f * 1.05) " ns/switch)"
		else w = "0.5x bpftrace (" int(b / 2) " ns) is above the floor"
		printf "floor: %.2fx bpftrace; %s\n", f / b, w }'
}

main() {
	local r t b f
	[ "$(id -u)" = 0 ] || { note "needs root"; exit 1; }
	[ -x "$ST" ] || { note "$ST: not built (make O=$O)"; exit 1; }
	perf bench sched pipe -l 10 > /dev/null 2>&1 || { note "perf bench does not run (make bench-deps)"; exit 1; }
	command -v bpftrace > /dev/null || REASON[bpftrace]="bpftrace missing: apt-get install bpftrace"
	build_floor "$O" || REASON[floor]="bench/floor/ did not build (clang, bpftool, libbpf-dev)"
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
		b=$(last "${PERSW[bpftrace]:-}")
		for t in floor "${STACKTAPS[@]}"; do
			RATIO[$t]+="$(awk -v a="$(last "${PERSW[$t]:-}")" -v b="$b" \
				'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }') "
		done
		# the rounds so far, in case the run is cut short: stacktap starts slowly on a busy machine
		for t in floor "${STACKTAPS[@]}" bpftrace; do
			note "after round $r: $t CPU ns/switch ${PERSW[$t]:-}, ratio to bpftrace ${RATIO[$t]:-}"
		done
	done
	b=$(echo "${OP[baseline]:-}" | median)
	f=$(echo "${PERSW[floor]:-}" | median)
	printf '%-15s %10s %14s %10s %10s %11s %9s %12s %14s\n' tool usecs/op "usecs/op added" "CPU/switch" \
		"BPF/switch" "vs bpftrace" "vs floor" "ratio spread" "CPU/sw runs"
	for t in "${TOOLS[@]}"; do
		if [ -z "${OP[$t]:-}" ]; then
			printf '%-15s not run: %s\n' "$t" "${REASON[$t]:-unknown}"
			continue
		fi
		printf '%-15s %10s %14s %10s %10s %11s %9s %12s %14s\n' "$t" "$(echo "${OP[$t]}" | median)" \
			"$(awk -v a="$(echo "${OP[$t]}" | median)" -v b="$b" 'BEGIN { printf "%.3f", a - b }')" \
			"$(echo "${PERSW[$t]:-}" | median)" "$(echo "${BPFSW[$t]:-}" | median)" \
			"$(ratio "$(echo "${PERSW[$t]:-}" | median)" "$(echo "${PERSW[bpftrace]:-}" | median)")" \
			"$(ratio "$(echo "${PERSW[$t]:-}" | median)" "$f")" \
			"$(echo "${RATIO[$t]:-}" | spread)" "${PERSW[$t]:-}"
	done
	echo "(CPU/switch: ns of tool CPU + its BPF run time per context switch of the machine;"
	echo "BPF/switch: the BPF run time alone; ratio spread: lowest-highest per-round ratio to bpftrace)"
	floor_verdict
	echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${OP[stacktap]:-}" ]
}

main
