#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Drops of a system-wide `u:c:malloc` count under a malloc-heavy workload,
# stacktap (default settings) beside bcc's stackcount and bpftrace, in one run.
#
# The workload (bench/malloc_loop.c) runs BENCH_MALLOC_THREADS threads that
# call malloc()/free() through malloc_churn for BENCH_MALLOC_S seconds and
# says how many malloc() calls it made. Each tool counts malloc stacks of the
# whole machine while it runs:
#   stacktap count u:c:malloc
#   stackcount-bpfcc c:malloc
#   bpftrace -e 'uprobe:LIBC:malloc { @[kstack, ustack] = count(); }'
# "counted" is the sum of the counts of the stacks that contain malloc_worker
# (the workload's own calls: the kernel's frame-pointer walk of bcc and
# bpftrace misses malloc_churn, the caller of a probed first instruction: it
# takes the caller from [sp] only at push %rbp or endbr64, and glibc's malloc
# starts with push %r12; stacktap keeps it, docs/walker.md); "missed" is the
# workload's calls minus that.
# stacktap's own drop lines (stderr) are shown as it printed them. The
# workload's malloc rate under each tool, over its untraced rate, is the
# "slowdown" (a tracer that drops cheaply runs it faster).
#
# Environment: O, ST (from bench/run.sh), BENCH_MALLOC_S (5),
# BENCH_MALLOC_THREADS (2), BENCH_REPS (1 round of all tools). A peer that
# cannot run gets its reason in its row.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
SECS=${BENCH_MALLOC_S:-5}
THREADS=${BENCH_MALLOC_THREADS:-2}
REPS=${BENCH_REPS:-1}
LOOP=$O/bench/malloc_loop
BCC=/usr/sbin/stackcount-bpfcc
LIBC=$(ldconfig -p | awk '$1 == "libc.so.6" && /x86-64/ { print $NF; exit }')
ATTACH_TIMEOUT_S=120 # bcc compiles with clang first; stacktap builds unwind tables
STOP_TIMEOUT_S=120
TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
BENCH_NAME=bench_malloc
# shellcheck source=bench/lib.sh
. bench/lib.sh
declare -A RATE COUNTED MISSED SAYS REASON
TOOLS=(baseline stacktap bcc bpftrace)

trap 'kill_jobs; rm -rf "$TMP"' EXIT

build_loop() {
	[ "$LOOP" -nt bench/malloc_loop.c ] && return 0
	mkdir -p "$O/bench" &&
		gcc -O1 -g -fno-omit-frame-pointer -pthread -Wall -Wextra -Werror bench/malloc_loop.c -o "$LOOP"
}

tracer_cmd() {
	CMD=(env --default-signal=INT)
	# BANNER_IN: where the banner comes (stacktap's on stderr, the peers' on stdout)
	case $1 in
	stacktap) CMD+=("$ST" count u:c:malloc) BANNER='^Tracing' BANNER_IN=t.err ;;
	bcc) CMD+=(PYTHONUNBUFFERED=1 "$BCC" c:malloc) BANNER='^Tracing' BANNER_IN=t.out ;;
	bpftrace) CMD+=(bpftrace -e "uprobe:$LIBC:malloc { @[kstack, ustack] = count(); }")
		BANNER='^Attaching' BANNER_IN=t.out ;;
	esac
}

# Sum of the counts of the stacks holding malloc_worker, in the text output of
# stacktap / bcc (frames, then "    COUNT") and of bpftrace ("]: COUNT").
counted() {
	awk '/malloc_worker/ { hit = 1 }
		/^ +[0-9]+$/ { if (hit) s += $1; hit = 0 }
		/^\]: [0-9]+$/ { if (hit) s += $2; hit = 0 }
		END { print s + 0 }' "$1"
}

run_one() {
	local tool=$1 wpid tpid=0 i calls
	rm -f "$TMP/go" "$TMP"/t.* && mkfifo "$TMP/go"
	"$LOOP" -t "$THREADS" "$SECS" "$TMP/go" > "$TMP/w" &
	wpid=$!
	wait_for "$TMP/w" '^ready' 10 "$wpid" || { REASON[$tool]="workload did not start"; return 1; }
	if [ "$tool" != baseline ]; then
		tracer_cmd "$tool"
		"${CMD[@]}" > "$TMP/t.out" 2> "$TMP/t.err" &
		tpid=$!
		if ! wait_for "$TMP/$BANNER_IN" "$BANNER" $ATTACH_TIMEOUT_S "$tpid"; then
			REASON[$tool]="did not start: $(grep -v -e WARNING -e RLIMIT "$TMP/t.err" | tail -1)"
			kill -9 "$tpid" "$wpid" 2>/dev/null
			wait "$tpid" "$wpid" 2>/dev/null
			return 1
		fi
		# bpftrace prints its banner before it attaches
		[ "$tool" = bpftrace ] && sleep 2
	fi
	note "$tool: $SECS s of malloc"
	echo go > "$TMP/go"
	wait_for "$TMP/w" '^calls/s' $((SECS * 10 + 60)) "$wpid"
	calls=$(awk '$1 == "calls" { print $2 }' "$TMP/w")
	RATE[$tool]+="$(awk '$1 == "calls/s" { print $2 }' "$TMP/w") "
	if [ "$tool" = baseline ]; then echo "done" > "$TMP/go"; wait "$wpid"; return 0; fi
	kill -INT "$tpid" 2>/dev/null
	for ((i = 0; i < STOP_TIMEOUT_S * 20; i++)); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$tpid" 2>/dev/null; then
		# where it hangs, for whoever reads the bench's stderr
		note "$tool hangs after SIGINT, killed; its threads' stacks:"
		eu-stack -p "$tpid" 2>&1 | head -60 >&2 # env execs the tool: same pid
		kill -9 "$tpid"
	fi
	wait "$tpid"
	echo "done" > "$TMP/go"
	wait "$wpid"
	COUNTED[$tool]+="$(counted "$TMP/t.out") "
	MISSED[$tool]+="$((calls - $(counted "$TMP/t.out"))) "
	[ "$tool" = stacktap ] &&
		SAYS[$tool]+="round $ROUND: $(grep -v -e '^Tracing' "$TMP/t.err" | tr '\n' ';' | sed 's/;$//')
"
	return 0
}

main() {
	local r t base
	[ "$(id -u)" = 0 ] || { note "needs root"; exit 1; }
	[ -x "$ST" ] || { note "$ST: not built (make O=$O)"; exit 1; }
	build_loop || { note "cannot build $LOOP"; exit 1; }
	[ -n "$LIBC" ] || REASON[bpftrace]="no libc.so.6 in ldconfig -p"
	command -v bpftrace > /dev/null || REASON[bpftrace]="bpftrace missing: apt-get install bpftrace"
	BCC_REASON=
	[ -x "$BCC" ] || BCC_REASON="$BCC missing: apt-get install bpfcc-tools"
	[ -z "$BCC_REASON" ] && bcc_headers
	[ -n "$BCC_REASON" ] && REASON[bcc]=$BCC_REASON
	echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "u:c:malloc system-wide, $THREADS malloc threads for $SECS s; $REPS round(s)"
	for ((r = 0; r < REPS; r++)); do
		ROUND=$((r + 1))
		for t in "${TOOLS[@]}"; do
			[ -n "${REASON[$t]:-}" ] && [ "$t" != stacktap ] && continue
			run_one "$t"
		done
	done
	base=$(echo "${RATE[baseline]:-}" | median)
	printf '%-10s %12s %12s %12s %9s  %s\n' tool "calls/s" slowdown counted missed "missed %"
	for t in "${TOOLS[@]}"; do
		if [ -z "${RATE[$t]:-}" ]; then
			printf '%-10s not run: %s\n' "$t" "${REASON[$t]:-unknown}"
			continue
		fi
		[ "$t" = baseline ] && { printf '%-10s %12s\n' "$t" "$base"; continue; }
		printf '%-10s %12s %12s %12s %12s %9s\n' "$t" "$(echo "${RATE[$t]}" | median)" \
			"$(ratio "$base" "$(echo "${RATE[$t]}" | median)")" "$(echo "${COUNTED[$t]}" | median)" \
			"$(echo "${MISSED[$t]}" | median)" \
			"$(awk -v m="$(echo "${MISSED[$t]}" | median)" -v c="$(echo "${COUNTED[$t]}" | median)" \
				'BEGIN { if (m + c > 0) printf "%.1f%%", 100 * m / (m + c) }')"
	done
	printf 'stacktap said, each round:\n%s' "${SAYS[stacktap]:-nothing
}"
	echo "(medians of $REPS round(s); slowdown = untraced calls/s over traced; counted: stacks"
	echo "through malloc_worker; missed: the workload's calls minus counted)"
	echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${RATE[stacktap]:-}" ]
}

main
