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
# is the loop's ns/call with the tracer minus without, median of 3 runs.
set -u
O=${O:-build}
ST=${ST:-$O/stacktap}
N=${N:-200000}
RUNS=${RUNS:-3}
LOOP=$O/bench/getppid_loop
TMP=$(mktemp -d /tmp/stacktap-bench-unwind.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

note() { echo "bench_unwind: $*" >&2; }

build_loop() {
	mkdir -p "$O/bench"
	[ "$LOOP" -nt bench/getppid_loop.c ] && return 0
	gcc -O1 -g -fno-omit-frame-pointer bench/getppid_loop.c -o "$LOOP"
}

# one_run DEPTH TOOL: prints the loop's ns/call with TOOL attached ("none": no tracer).
one_run() {
	local depth=$1 tool=$2 wpid spid
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$LOOP" -d "$depth" "$N" "$TMP/go" > "$TMP/w" &
	wpid=$!
	until grep -q '^ready' "$TMP/w" 2>/dev/null; do sleep 0.02; done
	case $tool in
	none) spid= ;;
	bpftrace)
		bpftrace -e "tracepoint:syscalls:sys_enter_getppid /pid == $wpid/ { @[ustack(127)] = count(); }" \
			> "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		until grep -q '^Attaching' "$TMP/t.out" 2>/dev/null; do sleep 0.05; done
		sleep 1 ;;
	*)
		"$ST" count -U --user-stacks=sync --unwind="$tool" --max-user-depth 127 \
			-p "$wpid" t:syscalls:sys_enter_getppid > "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		until grep -q '^Tracing' "$TMP/t.err" 2>/dev/null; do sleep 0.05; done ;;
	esac
	echo go > "$TMP/go"
	wait "$wpid"
	if [ -n "$spid" ]; then kill -INT "$spid" 2>/dev/null; wait "$spid"; fi
	awk '/^ns\/call/ {print $2}' "$TMP/w"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

cost_table() {
	local depth tool r base runs m
	printf '%-8s %10s %10s %10s %10s %10s\n' "frames" fp table copy auto bpftrace
	for depth in 6 26 96; do
		runs=""; for ((r = 0; r < RUNS; r++)); do runs+="$(one_run $depth none) "; done
		base=$(echo "$runs" | median)
		printf '%-8s' "$((depth + 4))"
		for tool in fp table copy auto bpftrace; do
			if [ "$tool" = bpftrace ] && ! command -v bpftrace > /dev/null; then
				printf ' %10s' "n/a"; continue
			fi
			runs=""; for ((r = 0; r < RUNS; r++)); do runs+="$(one_run $depth $tool) "; done
			m=$(echo "$runs" | median)
			printf ' %10.0f' "$(echo "$m - $base" | bc -l)"
		done
		printf '\n'
	done
	echo "(added ns per event; loop baseline $base ns/call at the last depth)"
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
