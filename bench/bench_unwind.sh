#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-event cost of a user stack 10, 30 and 100 frames deep, by unwind mode
# (fp, table, copy, auto; sync capture), against bpftrace's ustack on the
# same syscall tracepoint in the same run; and the memory the BPF unwind maps
# use for a python3 process and for a system-wide run.
#
#   O=build ST=build/stacktap [ST_BEFORE=old/stacktap] [MODES="fp table"] \
#       [DEPTHS="26 96"] [RUNS=5] [MEMORY=0] bash bench/bench_unwind.sh
#
# MODES picks the stacktap unwind modes (default: fp table copy auto, and
# "auto 512"), DEPTHS the recursion depths (a stack is DEPTH + 4 frames deep;
# default 6 26 96), MEMORY=0 leaves out the memory table. ALT=1 runs the loop
# with -a: two callers in turn that differ only by return address, so every
# walk misses stacktap's walk cache (bpf/ucache.bpf.h) and pays its upkeep;
# the stack is one frame deeper (DEPTH + 5). Without it the loop calls from
# one place, and every walk after the first is a cache hit.
# ST_BEFORE, when given, is measured in the same runs (another build, e.g.
# of the previous commit): its rows read "before". "auto 512" is auto with
# the default depth limit (512), the other stacktap rows pass
# --max-user-depth 127, as bpftrace's ustack(127): a deeper limit must not
# cost a shallow stack anything.
#
# The workload is bench/getppid_loop.c with -d DEPTH (frame pointers, so the
# fp walk sees the whole stack too and the modes do the same work), calling
# getpgrp(): other benchmarks' getppid() loops would run our programs too. Two
# figures per cell, each the median of RUNS runs, the runs interleaved round
# by round so drifting machine load hits every tool alike:
#   wall  the loop's ns/call with the tracer minus without;
#   bpf   ns per run of the tracer's own BPF programs on the tracepoint
#         (BPF statistics held on during the runs): the in-kernel cost,
#         which other processes' load disturbs much less.
set -u
cd "$(dirname "$0")/.." || exit 1
source bench/lib.sh
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
ST_BEFORE=${ST_BEFORE:-}
N=${N:-200000}
RUNS=${RUNS:-5}
MODES=${MODES:-fp table copy auto}
DEPTHS=${DEPTHS:-6 26 96}
MEMORY=${MEMORY:-1}
ALT=${ALT:-0}
TP_NAME=sys_enter_getpgrp
LOOP=$O/bench/getppid_loop
TMP=$(mktemp -d /tmp/stacktap-bench-unwind.XXXXXX)
declare -A WALL BPF

trap bench_cleanup EXIT

note() { echo "bench_unwind: $*" >&2; }

build_loop() {
	mkdir -p "$O/bench"
	[ "$LOOP" -nt bench/getppid_loop.c ] && return 0
	gcc -O1 -g -fno-omit-frame-pointer bench/getppid_loop.c -o "$LOOP"
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

# tool_cmd TOOL PID: sets CMD. TOOL is "none", "bpftrace" or "BIN:MODE[:DEPTH]".
tool_cmd() {
	local bin mode limit
	case $1 in
	bpftrace)
		CMD=(bpftrace -e "tracepoint:syscalls:$TP_NAME /pid == $2/ { @[ustack(127)] = count(); }")
		return ;;
	esac
	IFS=: read -r bin mode limit <<< "$1"
	CMD=("$bin" count -U --user-stacks=sync --unwind="$mode" -p "$2" "t:syscalls:$TP_NAME")
	[ -n "$limit" ] && CMD+=(--max-user-depth "$limit")
}

# one_run DEPTH TOOL: prints "WALL_NS_PER_CALL BPF_NS_PER_RUN".
one_run() {
	local depth=$1 tool=$2 wpid spid= ids= i pat file
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$LOOP" $([ "$ALT" = 1 ] && echo -a) -d "$depth" -s getpgrp "$N" "$TMP/go" > "$TMP/w" &
	wpid=$!
	until grep -q '^ready' "$TMP/w" 2>/dev/null; do sleep 0.02; done
	if [ "$tool" != none ]; then
		tool_cmd "$tool" "$wpid"
		"${CMD[@]}" > "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		if [ "$tool" = bpftrace ]; then pat='^Attaching' file=$TMP/t.out; else pat='^Tracing' file=$TMP/t.err; fi
		until grep -q "$pat" "$file" 2>/dev/null; do sleep 0.05; done
		for ((i = 0; i < 200; i++)); do
			ids=$(tracer_progs "$spid")
			[ -n "$ids" ] && break
			sleep 0.05
		done
	fi
	echo go > "$TMP/go"
	wait "$wpid"
	if [ -n "$spid" ]; then
		echo "$(awk '/^ns\/call/ {print $2}' "$TMP/w") $(prog_ns $ids)"
		kill -INT "$spid" 2>/dev/null; wait "$spid"
	else
		echo "$(awk '/^ns\/call/ {print $2}' "$TMP/w") 0"
	fi
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# The configurations measured, with their row labels.
TOOLS=() LABELS=()
add_tool() { TOOLS+=("$1"); LABELS+=("$2"); }
set_tools() {
	local m
	for m in $MODES; do
		add_tool "$ST:$m:127" "$m"
		[ -n "$ST_BEFORE" ] && add_tool "$ST_BEFORE:$m:127" "$m before"
	done
	[[ " $MODES " == *" auto "* ]] && add_tool "$ST:auto" "auto 512"
	command -v bpftrace > /dev/null && add_tool bpftrace "bpftrace ustack"
}

cost_table() {
	local depth r t base k w b runs
	printf '%-16s' "mode"
	for depth in $DEPTHS; do printf ' %9s %9s' "wall@$((depth + 4))" "bpf@$((depth + 4))"; done
	printf '\n'
	for depth in $DEPTHS; do
		declare -A raw_w=() raw_b=()
		for ((r = 0; r < RUNS; r++)); do
			raw_w[none]+="$(one_run "$depth" none | cut -d' ' -f1) "
			for t in "${TOOLS[@]}"; do
				read -r w b <<< "$(one_run "$depth" "$t")"
				raw_w[$t]+="$w " raw_b[$t]+="$b "
			done
		done
		base=$(echo "${raw_w[none]}" | median)
		for t in "${TOOLS[@]}"; do
			WALL[$t,$depth]=$(echo "$(echo "${raw_w[$t]}" | median) - $base" | bc -l)
			BPF[$t,$depth]=$(echo "${raw_b[$t]}" | median)
		done
		unset raw_w raw_b
	done
	for k in "${!TOOLS[@]}"; do
		t=${TOOLS[$k]}
		printf '%-16s' "${LABELS[$k]}"
		for depth in $DEPTHS; do printf ' %9.0f %9.0f' "${WALL[$t,$depth]}" "${BPF[$t,$depth]}"; done
		printf '\n'
	done
	echo "(ns per event; wall: the loop's added ns/call, bpf: ns per run of the tracer's BPF programs)"
}

# Each stacktap row against bpftrace: by the BPF figure (the one load blurs least) with
# "bpf", by the loop's added wall time (the issue's "added ns/event") with "wall".
ratio_table() {
	local which=$1 k t depth bt v
	command -v bpftrace > /dev/null || return 0
	printf '%-16s' "$which / bpftrace"
	for depth in $DEPTHS; do printf ' %9s' "@$((depth + 4))"; done
	printf '\n'
	for k in "${!TOOLS[@]}"; do
		t=${TOOLS[$k]}
		[ "$t" = bpftrace ] && continue
		printf '%-16s' "${LABELS[$k]}"
		for depth in $DEPTHS; do
			if [ "$which" = bpf ]; then bt=${BPF[bpftrace,$depth]} v=${BPF[$t,$depth]}
			else bt=${WALL[bpftrace,$depth]} v=${WALL[$t,$depth]}; fi
			printf ' %9s' "$(awk -v v="$v" -v b="$bt" 'BEGIN { if (b > 0) printf "%.2f", v / b; else print "n/a" }')"
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
echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"$N events per run, median of $RUNS$([ "$ALT" = 1 ] && echo ', -a: two callers in turn, one frame deeper')"
cost_table
ratio_table bpf
ratio_table wall
[ "$MEMORY" = 0 ] || memory_table
