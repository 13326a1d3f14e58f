#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-event cost of a user stack 10, 30 and 100 frames deep, by unwind mode
# (fp, table, copy, auto; sync capture, count's default) on a loop built with
# frame pointers, and stacktap's default walk of the same loop built without
# them ("nofp"), against bpftrace's ustack (frame pointers) in the same run;
# and the memory the BPF unwind maps use for a python3 process and for a
# system-wide run.
#
#   O=build ST=build/stacktap [ST_BEFORE=old/stacktap] [MODES="fp table"] \
#       [NOFP_MODES="auto deferred"] [DEPTHS="26 96"] [ALTS="0 1"] [RUNS=5] \
#       [MEMORY=0] bash bench/bench_unwind.sh
#
# MODES picks the stacktap unwind modes on the frame-pointer loop (default:
# fp table copy auto, and "auto 512"; "" for none), NOFP_MODES those on the
# loop built with -fomit-frame-pointer, where only .eh_frame reaches main
# (default: auto, count's default walk; "deferred" is auto with
# --user-stacks=deferred), DEPTHS the recursion depths (a stack is DEPTH + 4
# frames deep; default 6 26 96), MEMORY=0 leaves out the memory table. ALTS
# lists the loop's call patterns, one table each (default "0 1"):
#   0  the loop calls from one place: every walk after the first is a hit of
#      stacktap's walk cache (bpf/ucache.bpf.h);
#   1  -a: two callers in turn that differ only by return address, so every
#      walk misses the cache and pays its upkeep (the stack is one frame
#      deeper, DEPTH + 5): a real program's stacks vary, so this is the walk.
# ST_BEFORE, when given, is measured in the same runs (another build, e.g.
# of the previous commit): its rows read "before". "auto 512" is auto with
# the default depth limit (512), the other fp-loop rows pass
# --max-user-depth 127, as bpftrace's ustack(127): a deeper limit must not
# cost a shallow stack anything. The nofp rows use the default limit.
#
# The workload is bench/getppid_loop.c with -d DEPTH, calling getpgrp(): other
# benchmarks' getppid() loops would run our programs too. Three figures per
# cell, each the median of RUNS runs, the runs interleaved round by round so
# drifting machine load hits every tool alike:
#   wall  the loop's ns/call with the tracer minus without (same build);
#   cpu   the loop's own user+system CPU ns/call (getrusage) with the tracer
#         minus without: the kernel's and BPF's work done on its behalf,
#         task_work callbacks included, but not the time it waited while
#         other engineers' processes ran, which blurs wall;
#   bpf   ns per run of the tracer's BPF programs on the tracepoint (BPF
#         statistics held on during the runs). It leaves out a deferred
#         walk: the kernel calls a bpf_task_work callback directly
#         (bpf_task_work_callback() in kernel/bpf/helpers.c), not through the
#         run-time accounting, so the "deferred" rows' walk shows in cpu only.
# Each stacktap row's ratio to bpftrace comes with its spread, the lowest and
# highest per-round ratio.
set -u
cd "$(dirname "$0")/.." || exit 1
BENCH_NAME=bench_unwind
source bench/lib.sh
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
ST_BEFORE=${ST_BEFORE:-}
N=${N:-200000}
RUNS=${RUNS:-5}
MODES=${MODES-fp table copy auto}
NOFP_MODES=${NOFP_MODES-auto}
DEPTHS=${DEPTHS:-6 26 96}
ALTS=${ALTS:-0 1}
MEMORY=${MEMORY:-1}
TP_NAME=sys_enter_getpgrp
LOOP=$O/bench/getppid_loop
TMP=$(mktemp -d /tmp/stacktap-bench-unwind.XXXXXX)
declare -A WALL CPU BPF RAW

trap bench_cleanup EXIT

# Both builds of the loop: with frame pointers, and without (.eh_frame only).
build_loop() {
	mkdir -p "$O/bench"
	[ "$LOOP" -nt bench/getppid_loop.c ] ||
		gcc -O1 -g -fno-omit-frame-pointer bench/getppid_loop.c -o "$LOOP" || return 1
	[ "${LOOP}_nofp" -nt bench/getppid_loop.c ] ||
		gcc -O1 -g -fomit-frame-pointer bench/getppid_loop.c -o "${LOOP}_nofp"
}

# ns per run of the programs given (0 when stats are off). The programs run for
# every getpgrp() of the machine and leave at once for other processes: when
# other processes called it too, the mean is diluted, so say by how much.
prog_ns() {
	local t c
	read -r t c <<< "$(prog_stats "$@")"
	[ "$c" -gt $((N + N / 20 + 1000)) ] && note "$c runs for $N calls: other processes' getpgrp() dilute the bpf figure"
	[ "$c" -gt 0 ] && echo $((t / c)) || echo 0
}

# A tool is "none:BUILD", "bpftrace" (the fp build) or "BIN:MODE:LIMIT:BUILD";
# BUILD is fp or nofp.
build_of() {
	case $1 in
	bpftrace) echo fp ;;
	*) echo "${1##*:}" ;;
	esac
}

# tool_cmd TOOL PID: sets CMD.
tool_cmd() {
	local bin mode limit build
	if [ "$1" = bpftrace ]; then
		CMD=(bpftrace -e "tracepoint:syscalls:$TP_NAME /pid == $2/ { @[ustack(127)] = count(); }")
		return
	fi
	IFS=: read -r bin mode limit build <<< "$1"
	CMD=("$bin" count -U -p "$2" "t:syscalls:$TP_NAME")
	if [ "$mode" = deferred ]; then
		CMD+=(--unwind=auto --user-stacks=deferred)
	else
		CMD+=(--unwind="$mode" --user-stacks=sync)
	fi
	[ -n "$limit" ] && CMD+=(--max-user-depth "$limit")
}

# The tracer's programs on the tracepoint, once it has attached them: into IDS.
await_progs() {
	local i
	IDS=
	for ((i = 0; i < 200; i++)); do
		IDS=$(tracer_progs "$1")
		[ -n "$IDS" ] && return 0
		sleep 0.05
	done
	note "no BPF programs of pid $1 on $TP_NAME: its bpf figure is 0"
}

# one_run DEPTH TOOL ALT: prints "WALL_NS CPU_NS BPF_NS", per call of the loop
# (BPF per run of the tracer's programs; 0 without a tracer).
one_run() {
	local depth=$1 tool=$2 alt=$3 wpid spid= b=0 loop=$LOOP
	[ "$(build_of "$tool")" = nofp ] && loop=${LOOP}_nofp
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$loop" $([ "$alt" = 1 ] && echo -a) -d "$depth" -s getpgrp "$N" "$TMP/go" > "$TMP/w" &
	wpid=$!
	wait_for "$TMP/w" '^ready' 10 "$wpid"
	IDS=
	if [ "${tool%%:*}" != none ]; then
		tool_cmd "$tool" "$wpid"
		"${CMD[@]}" > "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		if [ "$tool" = bpftrace ]; then
			wait_for "$TMP/t.out" '^Attaching' 60 "$spid"
		else
			wait_for "$TMP/t.err" '^Tracing' 60 "$spid"
		fi
		await_progs "$spid"
	fi
	echo go > "$TMP/go"
	wait "$wpid"
	if [ -n "$spid" ]; then
		b=$(prog_ns $IDS)
		kill -INT "$spid" 2>/dev/null; wait "$spid"
	fi
	awk -v b="$b" '/^ns\/call/ { w = $2 } /^cpu_ns\/call/ { c = $2 } END { print w, c, b }' "$TMP/w"
}

# The configurations measured, with their row labels.
TOOLS=() LABELS=()
add_tool() { TOOLS+=("$1"); LABELS+=("$2"); }
set_tools() {
	local m
	for m in $MODES; do
		add_tool "$ST:$m:127:fp" "$m"
		[ -n "$ST_BEFORE" ] && add_tool "$ST_BEFORE:$m:127:fp" "$m before"
	done
	[[ " $MODES " == *" auto "* ]] && add_tool "$ST:auto::fp" "auto 512"
	for m in $NOFP_MODES; do
		add_tool "$ST:$m::nofp" "nofp $m"
		[ -n "$ST_BEFORE" ] && add_tool "$ST_BEFORE:$m::nofp" "nofp $m before"
	done
	command -v bpftrace > /dev/null && add_tool bpftrace "bpftrace ustack"
}

# Runs RUNS rounds of every tool at DEPTH with call pattern ALT into RAW[KIND,TOOL,DEPTH]
# (per-round figures, wall and cpu less the same build's untraced loop), then the medians
# into WALL, CPU and BPF.
measure() {
	local depth=$1 alt=$2 r t w c b bld
	declare -A base_w base_c
	for ((r = 0; r < RUNS; r++)); do
		for bld in fp nofp; do
			read -r w c b <<< "$(one_run "$depth" "none:$bld" "$alt")"
			base_w[$bld]=$w base_c[$bld]=$c
		done
		for t in "${TOOLS[@]}"; do
			read -r w c b <<< "$(one_run "$depth" "$t" "$alt")"
			bld=$(build_of "$t")
			RAW[wall,$t,$depth]+="$(awk -v a="$w" -v z="${base_w[$bld]}" 'BEGIN { print a - z }') "
			RAW[cpu,$t,$depth]+="$(awk -v a="$c" -v z="${base_c[$bld]}" 'BEGIN { print a - z }') "
			RAW[bpf,$t,$depth]+="$b "
		done
	done
	for t in "${TOOLS[@]}"; do
		WALL[$t,$depth]=$(echo "${RAW[wall,$t,$depth]}" | median)
		CPU[$t,$depth]=$(echo "${RAW[cpu,$t,$depth]}" | median)
		BPF[$t,$depth]=$(echo "${RAW[bpf,$t,$depth]}" | median)
	done
}

cost_table() {
	local depth k t
	printf '%-20s' "tool"
	for depth in $DEPTHS; do
		printf ' %8s %8s %8s' "wall@$((depth + 4 + ALT))" "cpu@$((depth + 4 + ALT))" \
			"bpf@$((depth + 4 + ALT))"
	done
	printf '\n'
	for k in "${!TOOLS[@]}"; do
		t=${TOOLS[$k]}
		printf '%-20s' "${LABELS[$k]}"
		for depth in $DEPTHS; do
			printf ' %8.0f %8.0f %8.0f' "${WALL[$t,$depth]}" "${CPU[$t,$depth]}" "${BPF[$t,$depth]}"
		done
		printf '\n'
	done
	echo "(ns per event: wall and cpu are the loop's added ns/call, bpf the ns per run of the" \
		"tracer's BPF programs)"
}

# round_ratios KIND TOOL DEPTH: TOOL's per-round figures over bpftrace's of the same round.
round_ratios() {
	paste -d' ' <(echo "${RAW[$1,$2,$3]}" | tr ' ' '\n' | grep .) \
		<(echo "${RAW[$1,bpftrace,$3]}" | tr ' ' '\n' | grep .) |
		awk '$2 > 0 { printf "%.2f ", $1 / $2 }'
}

# Each stacktap row over bpftrace by one figure: the ratio of the medians, and the
# spread of the per-round ratios.
ratio_table() {
	local kind=$1 k t depth v b
	local -n med=$2
	command -v bpftrace > /dev/null || return 0
	printf '%-20s' "$kind / bpftrace"
	for depth in $DEPTHS; do printf ' %17s' "@$((depth + 4 + ALT))"; done
	printf '\n'
	for k in "${!TOOLS[@]}"; do
		t=${TOOLS[$k]}
		[ "$t" = bpftrace ] && continue
		printf '%-20s' "${LABELS[$k]}"
		for depth in $DEPTHS; do
			v=${med[$t,$depth]} b=${med[bpftrace,$depth]}
			printf ' %6s %10s' "$(ratio "$v" "$b")" "$(round_ratios "$kind" "$t" "$depth" | spread)"
		done
		printf '\n'
	done
}

# memory_line ARGS...: the --debug line with the unwind maps' figures.
memory_line() {
	"$ST" count --debug -U "$@" 2>&1 > /dev/null | grep -o 'unwind tables: .*'
}

memory_table() {
	local py
	python3 -c 'import time; time.sleep(6)' &
	py=$!
	sleep 0.5
	echo "python3 process:  $(memory_line -D 1 -p $py t:syscalls:sys_enter_getppid)"
	kill $py 2>/dev/null; wait $py 2>/dev/null
	echo "system-wide 5 s:  $(memory_line -D 5 t:sched:sched_switch)"
}

[ -x "$ST" ] || { note "$ST: not built"; exit 1; }
[ -z "$ST_BEFORE" ] || [ -x "$ST_BEFORE" ] || { note "$ST_BEFORE: not built"; exit 1; }
command -v bpftool > /dev/null && command -v jq > /dev/null || { note "bpftool and jq are needed"; exit 1; }
build_loop || { note "cannot build $LOOP"; exit 1; }
bpf_stats_on
set_tools
for ALT in $ALTS; do
	RAW=() WALL=() CPU=() BPF=()
	for depth in $DEPTHS; do measure "$depth" "$ALT"; done
	echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
		"$N events per run, median of $RUNS$([ "$ALT" = 1 ] && echo ', -a: two callers in turn (walk-cache misses), one frame deeper' || echo ', one caller (walk-cache hits)')"
	cost_table
	ratio_table cpu CPU
	ratio_table bpf BPF
	ratio_table wall WALL
	echo
done
[ "$MEMORY" = 0 ] || memory_table
