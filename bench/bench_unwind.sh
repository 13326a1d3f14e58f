#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-event cost of a user stack 10, 30 and 100 frames deep, by unwind mode
# (fp, table, copy; sync capture), against bpftrace's ustack on the same
# syscall tracepoint in the same run; and the memory the BPF unwind maps use
# for a python3 process and for a system-wide run.
#
#   O=build ST=build/stacktap bash bench/bench_unwind.sh
#
# The workload is bench/getppid_loop.c with -d DEPTH (frame pointers, so the
# fp walk sees the whole stack too and the modes do the same work). Each cell
# is the loop's ns/call with the tracer minus without, median of RUNS runs
# interleaved round by round. The "nofp" column is stacktap's default walk
# (tables) of the same loop built without frame pointers, against its own
# untraced baseline; "nofp/bpftrace" is its ratio to bpftrace's ustack of the
# frame-pointer build (issue 13: <= 0.5x at 30 and 100 frames); the spread is
# the lowest and highest of that ratio over the rounds.
#
# Environment: O, ST, N (100000 events a run), RUNS (3), BENCH_DEPTHS
# ("6 26 96": recursion levels, each stack is 4 frames more).
set -u
O=${O:-build}
ST=${ST:-$O/stacktap}
N=${N:-100000}
RUNS=${RUNS:-3}
LOOP=$O/bench/getppid_loop
LOOP_NOFP=$O/bench/getppid_loop_nofp
DEPTHS=${BENCH_DEPTHS:-6 26 96}
TMP=$(mktemp -d /tmp/stacktap-bench-unwind.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

BENCH_NAME=bench_unwind
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

build_loop() {
	mkdir -p "$O/bench"
	[ "$LOOP" -nt bench/getppid_loop.c ] && [ "$LOOP_NOFP" -nt bench/getppid_loop.c ] && return 0
	gcc -O1 -g -fno-omit-frame-pointer bench/getppid_loop.c -o "$LOOP" &&
		gcc -O1 -g -fomit-frame-pointer bench/getppid_loop.c -o "$LOOP_NOFP"
}

# one_run DEPTH TOOL: prints the loop's ns/call with TOOL attached ("none": no
# tracer; "nofp-none", "nofp": the loop without frame pointers, stacktap auto).
one_run() {
	local depth=$1 tool=$2 wpid spid loop=$LOOP
	case $tool in nofp*) loop=$LOOP_NOFP tool=${tool#nofp}; tool=${tool#-}; : "${tool:=auto}" ;; esac
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$loop" -d "$depth" "$N" "$TMP/go" > "$TMP/w" &
	wpid=$!
	until grep -q '^ready' "$TMP/w" 2>/dev/null; do sleep 0.02; done
	case $tool in
	none) spid= ;;
	bpftrace)
		bpftrace -e "tracepoint:syscalls:sys_enter_getppid /pid == $wpid/ { @[ustack(127)] = count(); }" \
			> "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		wait_for "$TMP/t.out" '^Attaching' 60 "$spid" || note "bpftrace did not start"
		sleep 1 ;;
	*)
		"$ST" count -U --user-stacks=sync --unwind="$tool" --max-user-depth 127 \
			-p "$wpid" t:syscalls:sys_enter_getppid > "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		wait_for "$TMP/t.err" '^Tracing' 60 "$spid" || note "stacktap --unwind=$tool did not start" ;;
	esac
	echo go > "$TMP/go"
	wait "$wpid"
	if [ -n "$spid" ]; then kill -INT "$spid" 2>/dev/null; wait "$spid"; fi
	awk '/^ns\/call/ {print $2}' "$TMP/w"
}


cost_table() {
	local depth tool r m b tools=(none fp table copy auto nofp-none nofp bpftrace)
	local -A runs
	command -v bpftrace > /dev/null || tools=(none fp table copy auto nofp-none nofp)
	printf '%-7s %8s %8s %8s %8s %8s %9s %14s %12s\n' frames fp table copy auto nofp bpftrace \
		nofp/bpftrace spread
	for depth in $DEPTHS; do
		runs=()
		for ((r = 0; r < RUNS; r++)); do
			note "depth $depth round $((r + 1))/$RUNS"
			for tool in "${tools[@]}"; do runs[$tool]+="$(one_run "$depth" "$tool") "; done
			# per round: nofp's added ns over bpftrace's, for the spread
			runs[ratio]+="$(awk -v a="$(echo "${runs[nofp]}" | tr ' ' '\n' | grep . | tail -1)" \
				-v an="$(echo "${runs[nofp-none]}" | tr ' ' '\n' | grep . | tail -1)" \
				-v b="$(echo "${runs[bpftrace]:-}" | tr ' ' '\n' | grep . | tail -1)" \
				-v bn="$(echo "${runs[none]}" | tr ' ' '\n' | grep . | tail -1)" \
				'BEGIN { if (b != "" && b - bn > 0) printf "%.2f", (a - an) / (b - bn) }') "
		done
		b=$(echo "${runs[none]}" | median)
		printf '%-7s' "$((depth + 4))"
		for tool in fp table copy auto nofp bpftrace; do
			if [ -z "${runs[$tool]:-}" ]; then printf ' %8s' n/a; continue; fi
			m=$(echo "${runs[$tool]}" | median)
			[ "$tool" = nofp ] && b=$(echo "${runs[nofp-none]}" | median)
			[ "$tool" = bpftrace ] && b=$(echo "${runs[none]}" | median)
			printf ' %8.0f' "$(echo "$m - $b" | bc -l)"
			eval "add_$tool=$(echo "$m - $b" | bc -l)"
		done
		# shellcheck disable=SC2154 # set by the eval above
		printf ' %14s %12s\n' "$(ratio "${add_nofp:-}" "${add_bpftrace:-}")" \
			"$(echo "${runs[ratio]}" | spread)"
	done
	echo "(added ns per event; fp..auto: the frame-pointer build, nofp: built without frame"
	echo "pointers, default walk; loop baseline $(echo "${runs[none]}" | median) ns/call at the last depth)"
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
build_loop || { note "cannot build $LOOP"; exit 1; }
echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs, $N events per run, median of $RUNS"
cost_table
memory_table
