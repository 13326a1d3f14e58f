#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-event cost of `stacktap count` with kernel+user stacks at a syscall
# tracepoint, side by side with bcc's stackcount and bpftrace in one run.
# docs/bench-count.md says how to read the tables.
#
# The workload (bench/getppid_loop.c) times N raw getppid() syscalls. Each
# tool traces it filtered to its pid; "added ns/event" is the loop's ns/call
# under the tool minus the untraced baseline, the median of BENCH_REPS runs.
# The runs are interleaved round by round (baseline, stacktap, stacktap
# --unwind=fp when it has that option, bcc, bpftrace) so drifting machine load
# hits every tool alike. Every tool must count exactly N events with both
# stacks; anything short is reported as lost.
#
# The floor (bench/floor/, built here with clang, bpftool and libbpf) is a
# bare BPF program on the same tracepoint, filtered to the loop's pid, that
# calls bpf_get_stack for the kernel and the user stack and does nothing else:
# "vs floor" is a tool's added ns/event over the floor's, "over floor" the
# difference in ns.
#
# A second table splits the cost: the loop's own CPU time and its time off the
# CPU, its context switches, the machine's wakeup interrupts, the BPF
# program's run time (BPF statistics held on during the runs; set
# BENCH_BPF_STATS=0 to leave it alone) and the tracer's CPU while the loop ran.
#
# With BENCH_VARIANTS=1 the rounds also run stacktap kernel-only (-K),
# user-only (-U, with tables and with --unwind=fp), with deferred user stacks,
# and the floor kernel-only and user-only: the split table then says where
# stacktap's BPF time goes above the floor (docs/bench-count.md).
#
# With BENCH_BEFORE=PATH (another stacktap binary, e.g. one built from main) the
# rounds also run it, default and --unwind=fp, as stacktap-before and
# stacktap-before-fp: a change's before and after in one run.
#
# Environment: O, ST (from bench/run.sh), BENCH_N (2000000), BENCH_REPS (3),
# BENCH_BPF_STATS (1), BENCH_BCC (stackcount's path), BENCH_VARIANTS (0), BENCH_BEFORE. A peer tool that cannot
# run gets its reason in its row; the exit status is non-zero only when
# stacktap itself fails.
set -u
cd "$(dirname "$0")/.." || exit 1
source bench/lib.sh
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
N=${BENCH_N:-2000000}
REPS=${BENCH_REPS:-3}
BPF_STATS=${BENCH_BPF_STATS:-1}
TP_NAME=sys_enter_getppid
TP=syscalls:$TP_NAME
LOOP=$O/bench/getppid_loop
BCC=${BENCH_BCC:-/usr/sbin/stackcount-bpfcc} # Debian names bcc tools *-bpfcc

ATTACH_TIMEOUT_S=120 # bcc compiles its program with clang first: seconds on a busy box
STOP_TIMEOUT_S=120   # the tracers symbolize and print after SIGINT
VARIANTS=${BENCH_VARIANTS:-0}
BEFORE=${BENCH_BEFORE:-}
FLOOR=$O/bench/floor
TOOLS=(baseline floor stacktap bcc bpftrace)

TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
declare -A NS CPU OFF CSW IPI REASON LOST BPFNS TCPU

trap bench_cleanup EXIT

BENCH_NAME=bench_count

# --- set-up -------------------------------------------------------------------

build_loop() {
	[ "$LOOP" -nt bench/getppid_loop.c ] && return 0
	mkdir -p "$(dirname "$LOOP")"
	gcc -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra -Werror \
		bench/getppid_loop.c -o "$LOOP"
}

# Installs what the peers need when it is missing (what `make bench-deps` does).
peer_packages() {
	local p missing=()
	for p in bpftrace bpfcc-tools linux-headers-amd64; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	note "installing ${missing[*]} (as make bench-deps would)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 ||
		note "apt-get install ${missing[*]} failed"
}

# bcc compiles against kernel headers. When the running kernel ships none
# (no /lib/modules/$(uname -r)/build, no /sys/kernel/kheaders.tar.xz), the

set_up() {
	build_loop || { note "cannot build $LOOP"; exit 1; }
	build_floor "$O" || REASON[floor]="bench/floor/ did not build (clang, bpftool, libbpf-dev)"
	[ -x "$ST" ] || { note "$ST: not built (make O=$O)"; exit 1; }
	if ! command -v bpftool > /dev/null || ! command -v jq > /dev/null; then
		note "bpftool and jq are needed (make deps)"
		exit 1
	fi
	[ "$(id -u)" = 0 ] || { note "needs root"; exit 1; }
	peer_packages
	BCC_REASON='' BPFTRACE_REASON=''
	[ -x "$BCC" ] || BCC_REASON="$BCC missing: apt-get install bpfcc-tools"
	[ -z "$BCC_REASON" ] && bcc_headers
	command -v bpftrace > /dev/null || BPFTRACE_REASON="bpftrace missing: apt-get install bpftrace"
	if [ "$BPF_STATS" = 1 ]; then
		bpf_stats_on
	fi
}

# --- one traced run -------------------------------------------------------------

# tracer_cmd TOOL PID: sets CMD to the tracer's command line. SIGINT is reset
# to default: a background job of a script starts with it ignored, and Python
# then never raises KeyboardInterrupt.
tracer_cmd() {
	CMD=(env --default-signal=INT)
	case $1 in
	stacktap) CMD+=("$ST" count -d -p "$2" "t:$TP") ;;
	stacktap-fp) CMD+=("$ST" count -d --unwind=fp -p "$2" "t:$TP") ;;
	stacktap-before) CMD+=("$BEFORE" count -d -p "$2" "t:$TP") ;;
	stacktap-before-fp) CMD+=("$BEFORE" count -d --unwind=fp -p "$2" "t:$TP") ;;
	stacktap-K) CMD+=("$ST" count -d -K -p "$2" "t:$TP") ;;
	stacktap-U) CMD+=("$ST" count -d -U -p "$2" "t:$TP") ;;
	stacktap-U-fp) CMD+=("$ST" count -d -U --unwind=fp -p "$2" "t:$TP") ;;
	stacktap-defer) CMD+=("$ST" count -d --user-stacks=deferred -p "$2" "t:$TP") ;;
	floor) CMD+=("$FLOOR" "$2") ;;
	floor-k) CMD+=("$FLOOR" -k "$2") ;;
	floor-u) CMD+=("$FLOOR" -u "$2") ;;
	stacktap-rec) CMD+=("$ST" count -d --no-aggregate -p "$2" "t:$TP") ;;
	bcc) CMD+=(PYTHONUNBUFFERED=1 "$BCC" -d -p "$2" "t:$TP") ;;
	bpftrace) CMD+=(bpftrace -e "tracepoint:$TP /pid == $2/ { @[kstack, ustack] = count(); }") ;;
	esac
}

# Programs on the tracepoint that are not ours: others' tracers make every call dearer.
foreign_progs() {
	bpftool -j perf list 2>/dev/null |
		jq --argjson p "${1:-0}" --arg tp "$TP_NAME" \
			'[.[] | select(.pid != $p and .tracepoint == $tp)] | length'
}

# utime+stime of PID in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Waits until the tracer's program is on the tracepoint: the banners of
# bpftrace ("Attaching 1 probe...") come before the attach itself.
await_attach() {
	local tool=$1 spid=$2 pat file i
	case $tool in
	stacktap* | floor*) pat='^Tracing' file=$TMP/t.err ;;
	bcc) pat='^Tracing 1 functions' file=$TMP/t.out ;;
	bpftrace) pat='^Attaching 1 probe' file=$TMP/t.out ;;
	esac
	wait_for "$file" "$pat" $ATTACH_TIMEOUT_S "$spid" || return 1
	for ((i = 0; i < 200; i++)); do
		[ -n "$(tracer_progs "$spid")" ] && return 0
		sleep 0.05
	done
	return 1
}

# stop_tracer PID: SIGINT, then wait; SIGKILL when it hangs. Returns its status.
stop_tracer() {
	local i
	kill -INT "$1" 2>/dev/null
	for ((i = 0; i < STOP_TIMEOUT_S * 20; i++)); do
		kill -0 "$1" 2>/dev/null || break
		# a zombie is done too: it only waits for us
		grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null && break
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null &&
		{ note "tracer $1 hangs after SIGINT, killed"; kill -9 "$1"; }
	wait "$1"
}

# Interrupts that signal wakeups, summed over CPUs: IRQ work (a ring-buffer
# wakeup is raised as one), function-call and rescheduling IPIs.
wake_irqs() { awk '$1 ~ /^(IWI|CAL|RES):$/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }

# run_one TOOL REP: one loop run, traced by TOOL (or not: baseline). Records
# the loop's figures, or a reason, and the tracer's lost stacks and cost split.
run_one() {
	local tool=$1 rep=$2 wpid spid=0 progs='' s0='' s1='' c0=0 c1=0 i0 i1 rc f
	rm -f "$TMP/go" "$TMP"/t.* && mkfifo "$TMP/go"
	"$LOOP" "$N" "$TMP/go" > "$TMP/loop.out" &
	wpid=$!
	wait_for "$TMP/loop.out" '^ready' 10 "$wpid" || { REASON[$tool]="workload did not start"; return 1; }
	if [ "$tool" != baseline ]; then
		tracer_cmd "$tool" "$wpid"
		"${CMD[@]}" > "$TMP/t.out" 2> "$TMP/t.err" &
		spid=$!
		if ! await_attach "$tool" "$spid"; then
			kill -9 "$wpid" 2>/dev/null
			kill -0 "$spid" 2>/dev/null && kill -9 "$spid"
			wait "$spid"
			rc=$?
			f=$(cat "$TMP/t.err" "$TMP/t.out" 2>/dev/null | grep . | tail -n 1)
			REASON[$tool]="did not attach (exit status $rc)${f:+: $f}"
			wait "$wpid" 2>/dev/null
			return 1
		fi
		progs=$(tracer_progs "$spid")
	fi
	f=$(foreign_progs "$spid")
	[ "${f:-0}" -gt "$FOREIGN" ] && FOREIGN=$f
	# shellcheck disable=SC2086 # one word per program id
	[ -n "$progs" ] && s0=$(prog_stats $progs) && c0=$(cpu_ticks "$spid")
	i0=$(wake_irqs)
	echo go > "$TMP/go"
	wait "$wpid"
	i1=$(wake_irqs)
	# shellcheck disable=SC2086
	[ -n "$progs" ] && s1=$(prog_stats $progs) && c1=$(cpu_ticks "$spid")
	record_loop "$tool" $((i1 - i0))
	[ "$tool" = baseline ] && return 0
	stop_tracer "$spid"
	rc=$?
	cp "$TMP/t.out" "$TMP/$tool.$rep.out"
	cp "$TMP/t.err" "$TMP/$tool.$rep.err"
	record_split "$tool" "$s0" "$s1" "$c0" "$c1"
	record_lost "$tool" "$rep" "$rc"
}

# What the loop says of itself: wall and CPU ns per call, involuntary
# context switches; and the wakeup interrupts the machine took meanwhile.
record_loop() {
	local tool=$1 wall cpu csw
	read -r wall cpu csw < <(awk '/^ns\/call/ { w = $2 } /^cpu_ns\/call/ { c = $2 }
		/^ctxsw/ { s = $3 } END { print w, c, s }' "$TMP/loop.out")
	NS[$tool]+="$wall "
	CPU[$tool]+="$cpu "
	OFF[$tool]+="$(awk -v w="$wall" -v c="$cpu" 'BEGIN { printf "%.0f", w - c }') "
	CSW[$tool]+="$(awk -v s="$csw" -v n="$N" 'BEGIN { printf "%.1f", s * 1000 / n }') "
	IPI[$tool]+="$(awk -v i="$2" -v n="$N" 'BEGIN { printf "%.2f", i / n }') "
}

# BPF ns per program run, and tracer CPU ns per event, for this run.
record_split() {
	local tool=$1 dt dc hz
	[ "$BPF_STATS" = 1 ] && [ -n "$2" ] && [ -n "$3" ] && {
		dt=$((${3% *} - ${2% *})) dc=$((${3#* } - ${2#* }))
		[ "$dc" -gt 0 ] && BPFNS[$tool]+="$((dt / dc)) "
	}
	hz=$(getconf CLK_TCK)
	TCPU[$tool]+="$(( ($5 - $4) * 1000000000 / hz / N )) "
}

# --- counting what each tool saw ----------------------------------------------

# "total kernel_lost user_lost" from the text blocks of stacktap and bcc -d:
# kernel frames, "    --", user frames, "    COUNT", a blank line.
count_text_blocks() {
	awk '
	function flush() {
		total += cnt
		if (!k) klost += cnt
		if (!u || ulost) ulostn += cnt
		k = u = ulost = delim = cnt = 0
	}
	/^$/ { if (cnt) flush(); next }
	/^    --$/ { delim = 1; next }
	/^    [0-9]+$/ { cnt = $1; next }
	/^  [^ ]/ { if (delim) u++; else k++; if (/\[user stack lost/) ulost = 1 }
	END { if (cnt) flush(); print total + 0, klost + 0, ulostn + 0 }' "$1"
}

# The same from bpftrace's "@[ kernel frames , user frames ]: COUNT".
count_bpftrace() {
	awk '
	/^@\[/ { inb = 1; part = k = u = 0; next }
	inb && /^, *$/ { part = 1; next }
	inb && /^\]: [0-9]+$/ {
		c = $2 + 0; total += c
		if (!k) klost += c
		if (!u) ulost += c
		inb = 0; next
	}
	inb && /^    / { if (part) u++; else k++ }
	END { print total + 0, klost + 0, ulost + 0 }' "$1"
}

# Lost stacks: events not counted at all plus counted events with an empty
# kernel or user stack. stacktap also says on stderr what it dropped.
record_lost() {
	local tool=$1 rep=$2 rc=$3 out=$TMP/$1.$2.out total kl ul dropped=0 lost
	case $tool in
	bpftrace) read -r total kl ul < <(count_bpftrace "$out") ;;
	floor*) read -r total kl ul < <(awk '/^events/ { print $2, $4, $6 }' "$out") ;;
	*) read -r total kl ul < <(count_text_blocks "$out") ;;
	esac
	# a part a variant does not capture is not lost
	case $tool in
	*-K | floor-k) ul=0 ;;
	floor-u) kl=0 ;;
	*-U | *-U-fp) ul=$kl kl=0 ;; # no "--": the user frames stand where kernel ones would
	esac
	[ "${tool#stacktap}" != "$tool" ] &&
		dropped=$(awk '/events dropped/ { d += $2 } END { print d + 0 }' "$TMP/$tool.$rep.err")
	lost=$((N - total + kl + ul))
	LOST[$tool]+="$lost "
	if [ "${tool#stacktap}" != "$tool" ]; then
		[ "$rc" = 0 ] || { REASON[$tool]="exit status $rc: $(tail -n 1 "$TMP/$tool.$rep.err")"; ST_FAILED=1; }
		[ $((total + dropped)) = "$N" ] || {
			note "stacktap counted $total + dropped $dropped events of $N"
			ST_FAILED=1
		}
	fi
	[ "$total" = "$N" ] || note "$tool run $rep: counted $total of $N events"
}

# --- the table ------------------------------------------------------------------

med() { local -n a=$1; echo "${a[$2]:-}" | median; }

# added TOOL: median ns/call minus the baseline's, or nothing.
added() {
	awk -v m="$(med NS "$1")" -v b="$(med NS baseline)" \
		'BEGIN { if (m != "" && b != "") printf "%.0f", m - b }'
}

print_results() {
	local t add bcc flo ratio rfloor over lost
	bcc=$(added bcc) flo=$(added floor)
	printf '%-18s %9s %12s %8s %9s %11s %12s  %s\n' tool ns/call "added ns/ev" "vs bcc" \
		"vs floor" "over floor" "stacks lost" "runs (ns/call)"
	for t in "${TOOLS[@]}"; do
		if [ -z "${NS[$t]:-}" ]; then
			printf '%-18s %s\n' "$t" "not run: ${REASON[$t]:-unknown}"
			continue
		fi
		add=$(added "$t") ratio=- rfloor=- over=-
		[ -n "$bcc" ] && [ "$bcc" -gt 0 ] && ratio=$(ratio "$add" "$bcc")
		[ -n "$flo" ] && [ "$flo" -gt 0 ] && rfloor=$(ratio "$add" "$flo") over=$((add - flo))
		lost=$(echo "${LOST[$t]:-}" | maxof)
		[ "$t" = baseline ] && add=- ratio=- lost=- rfloor=- over=-
		printf '%-18s %9s %12s %8s %9s %11s %12s  %s\n' "$t" "$(med NS "$t")" "$add" "$ratio" \
			"$rfloor" "$over" "${lost:-?}" "${NS[$t]}${REASON[$t]:+(${REASON[$t]})}"
	done
}

# Where the added time goes (medians): the loop's own CPU and its time off the
# CPU, the context switches it suffered and the wakeup interrupts of the
# machine, the BPF program's run time, and the tracer's CPU while the loop ran.
print_split() {
	local t cb cf bb bf
	cb=$(added_cpu bcc) cf=$(added_cpu floor) bb=$(med BPFNS bcc) bf=$(med BPFNS floor)
	printf '%-18s %9s %9s %13s %8s %10s %11s %9s %9s %9s %9s\n' tool "loop CPU" "off-CPU" \
		"ctxsw/1k ev" "IPIs/ev" "BPF ns/ev" "tracer CPU" "CPU/bcc" "CPU/floor" "BPF/bcc" \
		"BPF/floor"
	for t in "${TOOLS[@]}"; do
		[ -n "${NS[$t]:-}" ] || continue
		printf '%-18s %9s %9s %13s %8s %10s %11s %9s %9s %9s %9s\n' "$t" "$(med CPU "$t")" \
			"$(med OFF "$t")" "$(med CSW "$t")" "$(med IPI "$t")" "$(med BPFNS "$t")" \
			"$(med TCPU "$t")" "$(ratio "$(added_cpu "$t")" "$cb")" \
			"$(ratio "$(added_cpu "$t")" "$cf")" "$(ratio "$(med BPFNS "$t")" "$bb")" \
			"$(ratio "$(med BPFNS "$t")" "$bf")"
	done
	echo "(ns per call or event; IPIs = IRQ work + function-call + reschedule interrupts;" \
		"BPF = run_time_ns/run_cnt; tracer CPU = utime+stime while the loop ran / N;" \
		"CPU/x = the loop's added CPU ns/call (its CPU minus the baseline's, which other" \
		"engineers' load does not inflate as it does the wall time) over x's; BPF/x = BPF ns/ev over x's)"
}

# added_cpu TOOL: the loop's median CPU ns/call under TOOL minus the baseline's.
added_cpu() {
	awk -v m="$(med CPU "$1")" -v b="$(med CPU baseline)" \
		'BEGIN { if (m != "" && b != "") printf "%.0f", m - b }'
}

verdict() {
	local t st bcc flo
	bcc=$(added bcc) flo=$(added floor)
	[ -n "$bcc" ] && [ -n "$flo" ] && awk -v f="$flo" -v c="$bcc" 'BEGIN {
		if (f / c > 0.8) w = "above 0.80x bcc, so the target is floor + 5% (" int(f * 1.05) " ns/event)"
		else w = "below 0.80x bcc, so the target is 0.80x bcc (" int(c * 0.8) " ns/event)"
		printf "floor: %.2fx bcc; %s\n", f / c, w }'
	for t in stacktap stacktap-fp; do
		st=$(added "$t")
		[ -n "$st" ] || continue
		if [ -z "$bcc" ]; then
			echo "target $t <= 0.80x bcc: not evaluated, bcc did not run"
			continue
		fi
		awk -v s="$st" -v c="$bcc" -v f="${flo:-}" -v t="$t" -v l="$(echo "${LOST[$t]:-}" | maxof)" 'BEGIN {
			r = s / c
			goal = (f != "" && f / c > 0.8) ? f * 1.05 : c * 0.8
			printf "target %s <= %d ns/event (%s), no stack lost: %.2fx bcc, %s lost: %s\n", t, goal,
				(f != "" && f / c > 0.8) ? "floor + 5%" : "0.80x bcc", r,
				l == 0 ? "none" : l, (s <= goal && l == 0) ? "met" : "NOT met"
		}'
	done
}

main() {
	local rep t
	ST_FAILED=0 FOREIGN=0
	set_up
	[ -n "$BCC_REASON" ] && REASON[bcc]=$BCC_REASON
	[ -n "$BPFTRACE_REASON" ] && REASON[bpftrace]=$BPFTRACE_REASON
	# frame pointers only: the same walk bcc and bpftrace do (feature probe)
	"$ST" count --help 2>/dev/null | grep -q -- '--unwind=' &&
		TOOLS=(baseline floor stacktap stacktap-fp bcc bpftrace)
	# every event as a record, as before in-kernel counting (feature probe)
	"$ST" count --help 2>/dev/null | grep -q -- '--no-aggregate' &&
		TOOLS=("${TOOLS[@]:0:3}" stacktap-rec "${TOOLS[@]:3}")
	if [ -n "$BEFORE" ]; then
		[ -x "$BEFORE" ] || { note "BENCH_BEFORE=$BEFORE: not an executable"; exit 1; }
		TOOLS+=(stacktap-before stacktap-before-fp)
	fi
	[ "$VARIANTS" = 1 ] &&
		TOOLS+=(floor-k floor-u stacktap-K stacktap-U stacktap-U-fp stacktap-defer)
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
	echo "$N getppid() calls per run, t:$TP, median of $REPS; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "stacktap: $ST"
	[ -n "$BEFORE" ] && echo "stacktap-before: $BEFORE"
	[ -n "${BCC_KERNEL_SOURCE:-}" ] && echo "bcc: BCC_KERNEL_SOURCE=$BCC_KERNEL_SOURCE"
	for ((rep = 1; rep <= REPS; rep++)); do
		for t in "${TOOLS[@]}"; do
			# a peer that could not run once is not retried
			[ -n "${REASON[$t]:-}" ] && [ "${t#stacktap}" = "$t" ] && continue
			run_one "$t" "$rep" || { [ "${t#stacktap}" != "$t" ] && ST_FAILED=1; }
		done
	done
	echo
	print_results
	echo
	print_split
	echo
	verdict
	echo "load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	[ "$FOREIGN" -gt 0 ] &&
		echo "warning: up to $FOREIGN other BPF programs were on $TP_NAME during the runs"
	[ "$BPF_STATS" = 1 ] && echo "(BPF run-time statistics held on during all runs)"
	return $ST_FAILED
}

main
