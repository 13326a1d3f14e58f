#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Launch to banner: the time from a tracer's exec to its banner line, for
# `stacktap profile -F 99` system-wide and with -p of a node and of a python3
# process, beside bpftrace and bcc's profile doing the same, in one run.
#
# bench/banner_time.py starts each tool with stdout and stderr on one pipe and
# times the first banner line: stacktap "Sampling"/"Tracing" (stderr), bcc
# "Sampling at 99 Hertz" (stdout), bpftrace "Attaching 1 probe" (stdout;
# printed before bpftrace attaches), and the time until the tool first waits
# in its main loop (epoll, poll or sleep). bcc prints its banner before it
# compiles and bpftrace before it attaches, so "attached" is that first wait
# for them, and the banner for stacktap (printed once attached). Then it
# stops the tool with SIGINT. Rounds are interleaved (every tool once per
# target per round); each figure is the median of BENCH_LAUNCH_REPS rounds,
# with the spread (lowest-highest) of "attached" beside it and the ratios of
# the medians of "attached" to bpftrace and to bcc.
#
# stacktap runs three ways: "stacktap" with its unwind table cache warm (a
# cache of the bench's own, filled by one untimed run per target first),
# "st-cold" with that cache emptied before every run (the first run on a
# machine: tables built, then saved), and, when ST_MAIN names another
# stacktap build (e.g. of main), "st-main" (whatever that build does).
#
# Environment: O, ST (from bench/run.sh), ST_MAIN, BENCH_LAUNCH_REPS (5). A
# peer that cannot run gets its reason in its row.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
REPS=${BENCH_LAUNCH_REPS:-5}
BCC=/usr/sbin/profile-bpfcc
TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
BENCH_NAME=bench_launch
# shellcheck source=bench/lib.sh
. bench/lib.sh
declare -A T B L REASON
TARGETS=(system node python3)
TOOLS=(stacktap st-cold ${ST_MAIN:+st-main} bpftrace bcc)
NODE_PID='' PY_PID=''

trap 'kill_jobs; wait 2>/dev/null; rm -rf "$TMP"' EXIT

start_targets() {
	if command -v node > /dev/null; then
		node -e 'setInterval(() => {}, 1000)' &
		NODE_PID=$!
	else
		REASON[node]="node missing: apt-get install nodejs"
	fi
	python3 -c 'import time; time.sleep(100000)' &
	PY_PID=$!
	sleep 1 # both past their own start-up: mapped what they map
}

# tool_cmd TOOL TARGET: sets CMD and PAT.
tool_cmd() {
	local pid=''
	case $2 in node) pid=$NODE_PID ;; python3) pid=$PY_PID ;; esac
	case $1 in
	stacktap) CMD=(env STACKTAP_CACHE_DIR="$TMP/warm" "$ST" profile -F 99 ${pid:+-p "$pid"})
		PAT='^(Sampling|Tracing)' ;;
	st-cold) rm -rf "$TMP/cold"
		CMD=(env STACKTAP_CACHE_DIR="$TMP/cold" "$ST" profile -F 99 ${pid:+-p "$pid"})
		PAT='^(Sampling|Tracing)' ;;
	st-main) CMD=(env STACKTAP_CACHE_DIR="$TMP/main" "$ST_MAIN" profile -F 99 ${pid:+-p "$pid"})
		PAT='^(Sampling|Tracing)' ;;
	bcc) CMD=("$BCC" -F 99 ${pid:+-p "$pid"}) PAT='^Sampling' ;;
	bpftrace) CMD=(bpftrace -e "profile:hz:99 ${pid:+/pid == $pid/ }{ @[kstack, ustack] = count(); }")
		PAT='^Attaching' ;;
	esac
}

main() {
	local r t g out
	bench_preflight
	start_targets
	echo "$(date -u '+%F %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "launch to banner, profile -F 99; median of $REPS; node $(node --version 2>/dev/null)," \
		"$(python3 --version 2>&1)"
	for g in "${TARGETS[@]}"; do # fills the warm cache
		[ -n "${REASON[$g]:-}" ] && continue
		tool_cmd stacktap "$g"
		bench/banner_time.py "$PAT" "${CMD[@]}" > /dev/null
	done
	for ((r = 1; r <= REPS; r++)); do
		note "round $r/$REPS"
		for g in "${TARGETS[@]}"; do
			[ -n "${REASON[$g]:-}" ] && continue
			for t in "${TOOLS[@]}"; do
				[ -n "${REASON[$t]:-}" ] && continue
				[ -n "${REASON[$t.$g]:-}" ] && continue
				tool_cmd "$t" "$g"
				out=$(bench/banner_time.py "$PAT" "${CMD[@]}")
				case $out in
				fail:*) REASON[$t.$g]="did not start: ${out#fail: }" ;;
				*)
					B[$t.$g]+="${out% *} " L[$t.$g]+="${out#* } "
					if [ "${t#st}" != "$t" ]; then T[$t.$g]+="${out% *} "; else T[$t.$g]+="${out#* } "; fi ;;
				esac
			done
		done
	done
	printf '%-9s %-9s %8s %8s %9s %13s %12s %8s\n' target tool banner "in loop" attached spread \
		"vs bpftrace" "vs bcc"
	for g in "${TARGETS[@]}"; do
		for t in "${TOOLS[@]}"; do
			if [ -z "${T[$t.$g]:-}" ]; then
				printf '%-9s %-9s not run: %s\n' "$g" "$t" \
					"${REASON[$t.$g]:-${REASON[$t]:-${REASON[$g]:-unknown}}}"
				continue
			fi
			printf '%-9s %-9s %8s %8s %9s %13s %12s %8s\n' "$g" "$t" "$(echo "${B[$t.$g]}" | median)" \
				"$(echo "${L[$t.$g]}" | median)" "$(echo "${T[$t.$g]}" | median)" \
				"$(echo "${T[$t.$g]}" | spread)" \
				"$(ratio "$(echo "${T[$t.$g]}" | median)" "$(echo "${T[bpftrace.$g]:-}" | median)")" \
				"$(ratio "$(echo "${T[$t.$g]}" | median)" "$(echo "${T[bcc.$g]:-}" | median)")"
		done
	done
	echo "(seconds from exec: to the banner line, to the first wait in the main loop, and to"
	echo "attached = stacktap's banner, the peers' first wait; -p PID of an idle node / python3;"
	echo "stacktap: table cache warm, st-cold: emptied before each run${ST_MAIN:+, st-main: $ST_MAIN})"
	echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${T[stacktap.system]:-}" ]
}

main
