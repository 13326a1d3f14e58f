#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/kernels/checks.sh: the checks of the kernel matrix, run inside each
# Debian kernel booted by tests/kernels/run.sh (from guest-init.sh) and on the
# host itself. POSIX sh for busybox's ash: the guest has nothing else, and
# the host runs it under the same busybox.
#
#   checks.sh ST W [CHECK...]   run the checks (all, by default) with the
#                               stacktap ST against the workloads in W
#   checks.sh --list            the checks, in order
#   checks.sh --workloads       the workloads they need (built in $O/workloads)
#
# Each check drives a workload of tests/workloads whose call chain is known,
# as the integration tests do (tests/integration/test_{count,profile,offcpu,
# record}.sh, tests/demo.sh), and asserts an exact outcome. It prints one line
#
#   KM-RESULT CHECK PASS|FAIL SECONDS DETAIL
#
# and, for a failure, stacktap's own stderr (KM-ERR CHECK LINE) and, where
# stacktap died before its banner (a load or attach failure), the digest of a
# second run with --debug: libbpf's failures and the tail of each verifier
# log (KM-DEBUG CHECK LINE), so the kernel's own words are in the output.
# Also KM-INFO lines (kernel, BTF, tracefs, `stacktap features`) and, for the
# record check, the recording in base64 (KM-RECORD-*), which run.sh reports
# on the host. Every stacktap run is bounded by timeout(1), and every wait,
# and each check as a whole (it runs as `checks.sh --one`). Only `set -u`:
# a failing command is what a check reports, not a reason to stop the rest.
set -u

CHECKS="features demo count-tp count-uprobe snoop profile profile-sync offcpu offcpu-sync record"
WORKLOADS="chain_fp busy_fp busy_nofp offcpu_fp"
# One stacktap run, and one whole check (a run, maybe a --debug rerun, the
# workload), at most: TCG is slow, and the BPF verifier runs under it.
ST_TIMEOUT=${KM_ST_TIMEOUT:-60}
CHECK_TIMEOUT=${KM_CHECK_TIMEOUT:-150}
N=37
LIBC_START="__libc_start_call_main __libc_start_main _start"
CHAIN_USER="leaf c b a main $LIBC_START"
BUSY_TOP="spin b3 b2 b1 main $LIBC_START"
NAP_CHAIN="offcpu_fp;_start;__libc_start_main;__libc_start_call_main;main;run_sleep;s1;s2;s3;nap;now_ns"
# The one line a command prints when its user stacks are not deferred (lib/session/cli.c),
# or that it runs the compat build, which takes them at the event too (bpf/compat.bpf.h).
NOT_DEFERRED='^stacktap: user stacks (taken at the event, not deferred|by frame pointers only)'

# result CHECK PASS|FAIL DETAIL...: the machine-readable line of CHECK.
result() {
	c=$1 r=$2
	shift 2
	echo "KM-RESULT $c $r $(($(date +%s) - T0)) $*"
}

# wait_line FILE REGEX SECONDS [PID]: until FILE has a line matching REGEX;
# fails at the deadline, or as soon as PID (the writer) is gone without it.
wait_line() {
	i=0
	while [ $i -lt $(($3 * 20)) ]; do
		grep -qE "$2" "$1" 2> /dev/null && return 0
		if [ -n "${4:-}" ] && ! kill -0 "$4" 2> /dev/null; then
			grep -qE "$2" "$1" 2> /dev/null
			return
		fi
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# subst ARG: ARG with @PID@ and @TID@ replaced by the workload's.
subst() { echo "$1" | sed "s/@PID@/$WPID/g; s/@TID@/$WTID/g"; }

# debug_digest FILE: from a --debug run's stderr, libbpf's failures and the
# last lines of each verifier log (the rejection is at its end).
debug_digest() {
	awk '
	/-- BEGIN PROG LOAD LOG --/ { inlog = 1; n = 0; prog = $3; next }
	/-- END PROG LOAD LOG --/ {
		inlog = 0; print "verifier log of " prog " (last " (n < 14 ? n : 14) " lines):"
		for (i = (n > 14 ? n - 14 : 0); i < n; i++) print "  " l[i % 14]; next }
	inlog { l[n % 14] = $0; n++; next }
	/^libbpf: / && /(fail|error|rror:|incompatible|invalid|denied|not permitted|not supported|unsupported|missing|not found|unknown|-E[A-Z]+|: -[0-9]+$)/ { print; next }
	/^stacktap: / { print }' "$1" | head -n 60
}

# st_args DEBUG ARGS...: ARGS into $TMPD/args, one a line, with @D@ dropped
# (DEBUG 0) or made --debug (DEBUG 1), and @PID@/@TID@ replaced.
st_args() {
	dbg=$1
	shift
	: > "$TMPD/args"
	for a in "$@"; do
		if [ "$a" = @D@ ]; then
			[ "$dbg" = 1 ] && echo --debug >> "$TMPD/args"
		else
			subst "$a" >> "$TMPD/args"
		fi
	done
}

# st_exec OUT ERR: exec stacktap with the arguments in $TMPD/args, bounded
# by ST_TIMEOUT (in a subshell of the caller's: it replaces the shell).
st_exec() {
	set -- "$1" "$2"
	while IFS= read -r a; do set -- "$@" "$a"; done < "$TMPD/args"
	out=$1 err=$2
	shift 2
	exec timeout "$ST_TIMEOUT" "$ST" "$@" > "$out" 2> "$err" < /dev/null
}

# report_failure CHECK NAME STARTED ARGS...: stacktap's stderr of run NAME;
# when it never started tracing, a second run with --debug (the @D@ in ARGS)
# against the same workload, started again and never released, and its
# digest, or the name of an earlier check whose digest it repeats.
report_failure() {
	c=$1 name=$2 started=$3
	shift 3
	head -n 30 "$TMPD/$name.err" | sed "s/^/KM-ERR $c /"
	[ "$started" = 1 ] && return 0
	start_workload "$name.again" "$WL" || return 0
	st_args 1 "$@"
	(st_exec /dev/null "$TMPD/$name.debug")
	kill -9 $wlpid 2> /dev/null
	wait $wlpid 2> /dev/null
	debug_digest "$TMPD/$name.debug" > "$KM_DIGESTS/$name"
	# The same rejection in another run differs in its addresses and counts only.
	sed -E 's/0x[0-9a-f]{8,}/0x_/g; s/processed [0-9]+ insns.*/processed N insns/' \
		"$KM_DIGESTS/$name" > "$KM_DIGESTS/$name.key"
	for d in "$KM_DIGESTS"/*.key; do
		[ "$d" != "$KM_DIGESTS/$name.key" ] && cmp -s "$d" "$KM_DIGESTS/$name.key" &&
			{ d=${d##*/}; echo "KM-DEBUG $c (the same as ${d%.key}'s)"; return 0; }
	done
	sed "s/^/KM-DEBUG $c /" "$KM_DIGESTS/$name"
}

# start_workload NAME WORKLOAD_ARGS: the workload, given a fifo to wait on;
# once it printed "ready PID [TID]", sets WPID and WTID (wlpid: its pid here).
start_workload() {
	rm -f "$TMPD/go"
	mkfifo "$TMPD/go"
	# shellcheck disable=SC2086
	$2 "$TMPD/go" > "$TMPD/$1.w" &
	wlpid=$!
	if ! wait_line "$TMPD/$1.w" '^ready' 20 $wlpid; then
		echo "km: workload $2 did not start" >> "$TMPD/$1.err"
		kill -9 $wlpid 2> /dev/null
		return 1
	fi
	read -r _ WPID WTID < "$TMPD/$1.w"
	WTID=${WTID:-$WPID}
}

# traced NAME WORKLOAD_ARGS... -- STACKTAP_ARGS...: as the integration tests'
# run_wl: the workload waits on a fifo until stacktap (given its PID/TID)
# has attached, then runs to its end, and stacktap with it. Sets STARTED
# (1 once stacktap printed its banner) and RC (stacktap's exit status).
traced() {
	name=$1
	shift
	WL=""
	while [ "$1" != -- ]; do WL="$WL $1"; shift; done
	shift
	STARTED=0 RC=-1
	start_workload "$name" "$WL" || return 1
	st_args 0 "$@"
	(st_exec "$TMPD/$name.out" "$TMPD/$name.err") &
	spid=$!
	if wait_line "$TMPD/$name.err" '^(Tracing|Sampling)' "$ST_TIMEOUT" $spid; then
		STARTED=1
		# A workload gone before reading the fifo would block the writer.
		# shellcheck disable=SC2016 # $1 is the inner shell's
		timeout 10 sh -c 'echo go > "$1"' _ "$TMPD/go" ||
			echo "km: workload $wlpid never read its fifo" >> "$TMPD/$name.err"
	fi
	[ $STARTED = 1 ] || kill -9 $wlpid 2> /dev/null
	wait $wlpid 2> /dev/null
	wait $spid
	RC=$?
	[ $STARTED = 1 ]
}

# blocks FILE: text output's stacks, one line each: "FRAME FRAME ... | COUNT".
blocks() {
	awk '/^    [0-9]+$/ { print s "| " $1; s = ""; next }
	     /^    --$/ { s = s "-- "; next }
	     /^  [^ ]/ { s = s $1 " " }' "$1"
}

# finish CHECK NAME OK DETAIL ARGS...: the result of CHECK from run NAME.
finish() {
	c=$1 name=$2 ok=$3 detail=$4
	shift 4
	if [ "$ok" = 1 ]; then
		result "$c" PASS "$detail"
	else
		result "$c" FAIL "$detail"
		report_failure "$c" "$name" "$STARTED" "$@"
	fi
}

# --- the checks -------------------------------------------------------------

check_features() {
	timeout 30 "$ST" features > "$TMPD/features.out" 2>&1 < /dev/null
	rc=$?
	if grep -q "unknown command\|invalid command\|Usage:" "$TMPD/features.out" && [ $rc != 0 ]; then
		echo "KM-INFO features: no 'stacktap features' command in this build"
	else
		sed 's/^/KM-INFO features: /' "$TMPD/features.out"
	fi
}

# demo: tests/demo.sh's profile of busy_nofp (no frame pointers: only the
# unwind tables reach main); its most frequent stack is the whole chain.
check_demo() {
	set -- profile @D@ -F 99 -p @PID@
	traced demo "$W/busy_nofp" 2 -- "$@"
	top=$(blocks "$TMPD/demo.out" | sort -t'|' -k2 -n | tail -n 1)
	ok=0
	[ "$RC" = 0 ] && [ "${top%|*}" = "$BUSY_TOP " ] && ok=1
	finish demo demo $ok "exit $RC, top stack: ${top:-none}" "$@"
}

# count-tp: chain_fp's N getppid() at their tracepoint: one stack, counted N
# times: the user chain exactly, the kernel's from the tracepoint to entry.
check_count_tp() {
	set -- count @D@ -d -p @PID@ t:syscalls:sys_enter_getppid
	traced count-tp "$W/chain_fp" $N -- "$@"
	all=$(blocks "$TMPD/count-tp.out")
	kern=${all%%-- *} user=${all#*-- }
	ok=0
	[ "$RC" = 0 ] && [ "$(echo "$all" | wc -l)" = 1 ] && [ "$user" = "$CHAIN_USER | $N" ] &&
		[ "${kern%% *}" = perf_syscall_enter ] &&
		[ "${kern% }" != "${kern% entry_SYSCALL_64_after_hwframe }" ] && ok=1
	finish count-tp count-tp $ok "exit $RC, stacks: $(echo "$all" | tr '\n' '/')" "$@"
}

# count-uprobe: a uprobe at chain_fp's leaf: the exact chain, N times.
check_count_uprobe() {
	set -- count @D@ -p @PID@ "u:$W/chain_fp:leaf"
	traced count-uprobe "$W/chain_fp" $N -- "$@"
	all=$(blocks "$TMPD/count-uprobe.out")
	ok=0
	[ "$RC" = 0 ] && [ "$all" = "$CHAIN_USER | $N" ] && ok=1
	finish count-uprobe count-uprobe $ok "exit $RC, stacks: $(echo "$all" | tr '\n' '/')" "$@"
}

# snoop: every one of 5 events at the uprobe, each with the exact chain.
check_snoop() {
	set -- snoop @D@ -U -p @PID@ "u:$W/chain_fp:leaf"
	traced snoop "$W/chain_fp" 5 -- "$@"
	events=$(grep -c '^[0-9.]* *chain_fp ' "$TMPD/snoop.out")
	chains=$(awk '/^  /{s=s $1 " "} /^$/{if(s)print s; s=""} END{if(s)print s}' "$TMPD/snoop.out" |
		sort | uniq -c | sed 's/^ *//')
	ok=0
	[ "$RC" = 0 ] && [ "$events" = 5 ] && [ "$chains" = "5 $CHAIN_USER " ] && ok=1
	finish snoop snoop $ok "exit $RC, $events events, chains: $(echo "$chains" | tr '\n' '/')" "$@"
}

# profile: busy_fp sampled at 199 Hz: 95% of the samples hold the chain
# down to main uncut (test_profile.sh's rule) and the most frequent stack is
# the whole chain to spin.
# user_mode NAME PROG: how run NAME took its user stacks, "deferred" or "at-event", and
# whether that is what it should be (MODE_OK 1): at the event exactly where the tests'
# switch forces it (STACKTAP_TEST_NO_TASK_WORK=1) or the kernel refuses a task_work from
# PROG programs, said in one line; deferred elsewhere, unsaid.
user_mode() {
	said=$(grep -cE "$NOT_DEFERRED" "$TMPD/$1.err")
	want_said=1
	[ -z "${STACKTAP_TEST_NO_TASK_WORK:-}" ] &&
		"$ST" features 2> /dev/null | grep -qE "^  task_work from $2 +yes" && want_said=0
	MODE=deferred
	[ "$said" = 0 ] || MODE=at-event
	MODE_OK=0
	[ "$said" = "$want_said" ] && MODE_OK=1
}

# profile (check $c): busy_fp sampled at 199 Hz: no sample in main broken, 80% of them on
# the spin chain.
profile_check() {
	set -- profile @D@ -F 199 -f -a -p @PID@
	traced "$c" "$W/busy_fp" 1 -- "$@"
	# Of the samples in main: the process's start and exit (ld.so, exit_group's
	# teardown, slow under TCG) are not what this measures.
	total=$(awk '/;main;/ {s += $NF} END {print s + 0}' "$TMPD/$c.out")
	chain=$(awk '/;main;b1(;b2(;b3(;spin)?)?)?(;[^;]*_\[k\])* [0-9]+$/ {s += $NF} END {print s + 0}' \
		"$TMPD/$c.out")
	# No sample in main with a frame unnamed or a walk cut: main's other paths (its clock
	# read after each b1(), a system call slow enough under TCG to take ~5% of the
	# samples; its printf; the wait for the go) are real, a broken stack is not.
	broken=$(awk '/;main;/ && /\[unknown\]|unwind_stopped|user_stack_lost/ {s += $NF}
		END {print s + 0}' "$TMPD/$c.out")
	top=$(sort -k2 -n "$TMPD/$c.out" | tail -n 1)
	user_mode "$c" perf_event
	ok=0
	[ "$RC" = 0 ] && [ "$total" -ge 20 ] && [ "$broken" = 0 ] &&
		[ $((chain * 100)) -ge $((total * 80)) ] &&
		[ "${top% *}" = "busy_fp;_start;__libc_start_main;__libc_start_call_main;main;b1;b2;b3;spin" ] &&
		[ "$MODE_OK" = 1 ] && ok=1
	other=$(awk '/;main;/ && !/;main;b1(;b2(;b3(;spin)?)?)?(;[^;]*_\[k\])* [0-9]+$/' "$TMPD/$c.out" |
		sort -k2 -n | tail -n 2 | tr '\n' '/')
	finish "$c" "$c" $ok "exit $RC, user stacks $MODE, $chain of $total samples in main on the chain, $broken broken, top: ${top:-none}; off the chain: ${other:-none}" "$@"
}

# forced CMD...: CMD with the fallback forced where the kernel would defer (the tests' switch).
forced() {
	STACKTAP_TEST_NO_TASK_WORK=1
	export STACKTAP_TEST_NO_TASK_WORK
	"$@"
}

check_profile() { c=profile; profile_check; }
check_profile_sync() { c=profile-sync; forced profile_check; }

# offcpu: 20 naps of 5 ms in main -> s1 -> s2 -> s3 -> nap: one line for
# the chain (run_sleep and now_ns are DWARF inline frames), its time within
# 10% of what the workload measured.
offcpu_check() {
	set -- offcpu @D@ -f -U -p @PID@
	traced "$c" "$W/offcpu_fp" sleep 20 5 -- "$@"
	got=$(awk -v c="$NAP_CHAIN" '{w = $NF; $NF = ""; sub(/ $/, ""); if ($0 == c) print w}' \
		"$TMPD/$c.out")
	lines=$(grep -c ';nap;now_ns ' "$TMPD/$c.out")
	want=$(awk '$1 == "slept_ns" {print int($2 / 1000)}' "$TMPD/$c.w")
	user_mode "$c" tp_btf
	ok=0
	[ "$RC" = 0 ] && [ "$lines" = 1 ] && [ -n "$got" ] && [ -n "$want" ] && [ "$MODE_OK" = 1 ] &&
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d * 10 <= w) }' &&
		ok=1
	finish "$c" "$c" $ok "exit $RC, user stacks $MODE, $lines nap lines, ${got:-no} us of ${want:-?} us slept: $(head -n 3 "$TMPD/$c.out" | tr '\n' '/')" "$@"
}

check_offcpu() { c=offcpu; offcpu_check; }
check_offcpu_sync() { c=offcpu-sync; forced offcpu_check; }

# record: `record --print` of count at the getppid tracepoint: the live
# output exact; the recording goes out in base64 for run.sh to report on
# the host and compare with the live lines (KM-LIVE).
check_record() {
	rec=$TMPD/rec.data
	set -- record -o "$rec" --print count @D@ -f -a -p @PID@ t:syscalls:sys_enter_getppid
	traced record "$W/chain_fp" $N -- "$@"
	want="chain_fp;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;leaf;entry_SYSCALL_64_after_hwframe_[k];"
	live=$(cat "$TMPD/record.out")
	ok=0
	[ "$RC" = 0 ] && [ "$(wc -l < "$TMPD/record.out")" = 1 ] && [ -s "$rec" ] &&
		[ "${live#"$want"}" != "$live" ] && [ "${live##* }" = $N ] && ok=1
	finish record record $ok "exit $RC, live: ${live:-none}" "$@"
	sed 's/^/KM-LIVE /' "$TMPD/record.out"
	if [ -s "$rec" ]; then
		if [ -n "${KM_RECORD_KEEP:-}" ]; then
			cp "$rec" "$KM_RECORD_KEEP"
		else
			echo "KM-RECORD-BEGIN $(wc -c < "$rec") $(md5sum < "$rec" | cut -d' ' -f1)"
			base64 < "$rec" | sed 's/^/KM-B64 /'
			echo "KM-RECORD-END"
		fi
	fi
}

# --- main -------------------------------------------------------------------

info() {
	echo "KM-INFO kernel: $(uname -r) ($(uname -v))"
	if [ -r /sys/kernel/btf/vmlinux ]; then
		echo "KM-INFO btf: /sys/kernel/btf/vmlinux $(wc -c < /sys/kernel/btf/vmlinux) bytes"
	else
		echo "KM-INFO btf: /sys/kernel/btf/vmlinux missing"
	fi
	echo "KM-INFO tracefs before: $(awk '$3 == "tracefs" {print $2}' /proc/mounts | tr '\n' ' ')"
	echo "KM-INFO stacktap: $("$ST" --version 2>&1 | head -n 1)"
}

# one CHECK: run CHECK alone (main runs each so, under timeout(1)).
one() {
	T0=$(date +%s)
	"check_$(echo "$1" | tr - _)"
}

main() {
	case ${1:-} in
	--list) echo "$CHECKS"; return 0 ;;
	--workloads) echo "$WORKLOADS"; return 0 ;;
	--one)
		ST=$2 W=$3 TMPD=$4
		one "$5"
		return 0 ;;
	esac
	[ $# -ge 2 ] || { echo "usage: checks.sh ST W [CHECK...] | --list | --workloads" >&2; return 2; }
	ST=$1 W=$2
	shift 2
	# shellcheck disable=SC2086 # a list of words
	[ $# -gt 0 ] || set -- $CHECKS
	TMPD=$(mktemp -d "${TMPDIR:-/tmp}/km-checks.XXXXXX")
	export KM_DIGESTS="$TMPD/digests"
	mkdir -p "$KM_DIGESTS"
	info
	for c in "$@"; do
		echo "KM-CHECK $c" >&2
		T0=$(date +%s)
		mkdir -p "$TMPD/$c"
		timeout "$CHECK_TIMEOUT" sh "$0" --one "$ST" "$W" "$TMPD/$c" "$c" > "$TMPD/$c.lines" 2>&1
		rc=$?
		cat "$TMPD/$c.lines"
		if ! grep -q "^KM-RESULT $c " "$TMPD/$c.lines" && [ "$c" != features ]; then
			result "$c" FAIL "no result (exit $rc$([ $rc = 124 ] && echo ": timed out after ${CHECK_TIMEOUT}s"))"
		fi
	done
	echo "KM-INFO tracefs after: $(awk '$3 == "tracefs" {print $2}' /proc/mounts | tr '\n' ' ')"
	rm -rf "$TMPD"
}

main "$@"
