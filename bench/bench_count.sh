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
# A second table splits the cost: the loop's own CPU time and its time off the
# CPU, its context switches, the machine's wakeup interrupts, the BPF
# program's run time (kernel.bpf_stats_enabled is on during the runs; set
# BENCH_BPF_STATS=0 to leave it alone) and the tracer's CPU while the loop ran.
#
# Environment: O, ST (from bench/run.sh), BENCH_N (2000000), BENCH_REPS (3),
# BENCH_BPF_STATS (1), BENCH_BCC (stackcount's path). A peer tool that cannot
# run gets its reason in its row; the exit status is non-zero only when
# stacktap itself fails.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
N=${BENCH_N:-2000000}
REPS=${BENCH_REPS:-3}
BPF_STATS=${BENCH_BPF_STATS:-1}
TP_NAME=sys_enter_getppid
TP=syscalls:$TP_NAME
LOOP=$O/bench/getppid_loop
BCC=${BENCH_BCC:-/usr/sbin/stackcount-bpfcc} # Debian names bcc tools *-bpfcc
BCC_HDRS=/var/tmp/stacktap-bcc-headers
ATTACH_TIMEOUT_S=120 # bcc compiles its program with clang first: seconds on a busy box
STOP_TIMEOUT_S=120   # the tracers symbolize and print after SIGINT
TOOLS=(baseline stacktap bcc bpftrace)

TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
STATS_WAS=
declare -A NS CPU OFF CSW IPI REASON LOST BPFNS TCPU

# Only jobs not reaped yet: a pid we already waited for may belong to someone else now.
bench_cleanup() {
	local p
	for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
	[ -n "$STATS_WAS" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	rm -rf "$TMP"
}
trap bench_cleanup EXIT

note() { echo "bench_count: $*" >&2; }

# wait_for FILE REGEX TIMEOUT_S [PID]: until FILE has a matching line; gives up
# early when PID has exited.
wait_for() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && return 1
		sleep 0.05
	done
	return 1
}

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
# newest Debian linux-headers pair is merged into one tree: the -common
# package holds the sources, the -amd64 one .config, include/generated and
# arch/x86/include/generated. That tree, as BCC_KERNEL_SOURCE, is enough for
# tracepoint and uprobe tools: they take no kernel struct layouts from it.
# Rebuilt only when the pair changes. Sets BCC_REASON on failure.
bcc_headers() {
	local common arch stamp tmp
	[ -f "/lib/modules/$(uname -r)/build/include/linux/kconfig.h" ] && return 0
	[ -f /sys/kernel/kheaders.tar.xz ] && return 0
	common=$(ls -d /usr/src/linux-headers-*-common 2>/dev/null | sort -V | tail -1)
	arch=${common%-common}-amd64
	if [ -z "$common" ] || [ ! -d "$arch" ]; then
		BCC_REASON="no kernel headers: apt-get install linux-headers-amd64"
		return 1
	fi
	stamp="$common $arch $(stat -c %Y "$arch/include/generated/autoconf.h" 2>/dev/null)"
	if [ "$(cat "$BCC_HDRS/.stacktap-stamp" 2>/dev/null)" != "$stamp" ]; then
		note "merging $common and $arch into $BCC_HDRS for bcc"
		tmp=$(mktemp -d "$BCC_HDRS.XXXXXX") &&
			cp -a "$common/." "$tmp/" && cp -a "$arch/." "$tmp/" &&
			echo "$stamp" > "$tmp/.stacktap-stamp" &&
			rm -rf "$BCC_HDRS" && mv "$tmp" "$BCC_HDRS" ||
			{ BCC_REASON="cannot merge $common and $arch into $BCC_HDRS"; rm -rf "$tmp"; return 1; }
	fi
	export BCC_KERNEL_SOURCE=$BCC_HDRS
}

set_up() {
	build_loop || { note "cannot build $LOOP"; exit 1; }
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
		STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)
		sysctl -qw kernel.bpf_stats_enabled=1 || STATS_WAS=
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
	stacktap-rec) CMD+=("$ST" count -d --no-aggregate -p "$2" "t:$TP") ;;
	bcc) CMD+=(PYTHONUNBUFFERED=1 "$BCC" -d -p "$2" "t:$TP") ;;
	bpftrace) CMD+=(bpftrace -e "tracepoint:$TP /pid == $2/ { @[kstack, ustack] = count(); }") ;;
	esac
}

# The BPF programs the tracer PID has attached to the tracepoint.
tracer_progs() {
	bpftool -j perf list 2>/dev/null |
		jq -r --argjson p "$1" --arg tp "$TP_NAME" \
			'.[] | select(.pid == $p and .tracepoint == $tp) | .prog_id'
}

# Programs on the tracepoint that are not ours: others' tracers make every call dearer.
foreign_progs() {
	bpftool -j perf list 2>/dev/null |
		jq --argjson p "${1:-0}" --arg tp "$TP_NAME" \
			'[.[] | select(.pid != $p and .tracepoint == $tp)] | length'
}

# "run_time_ns run_cnt" summed over the program ids given.
prog_stats() {
	local id t=0 c=0 r
	for id in "$@"; do
		r=$(bpftool -j prog show id "$id" 2>/dev/null | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"')
		t=$((t + ${r% *})) c=$((c + ${r#* }))
	done
	echo "$t $c"
}

# utime+stime of PID in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Waits until the tracer's program is on the tracepoint: the banners of
# bpftrace ("Attaching 1 probe...") come before the attach itself.
await_attach() {
	local tool=$1 spid=$2 pat file i
	case $tool in
	stacktap*) pat='^Tracing' file=$TMP/t.err ;;
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
	*) read -r total kl ul < <(count_text_blocks "$out") ;;
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

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
med() { local -n a=$1; echo "${a[$2]:-}" | median; }

# added TOOL: median ns/call minus the baseline's, or nothing.
added() {
	awk -v m="$(med NS "$1")" -v b="$(med NS baseline)" \
		'BEGIN { if (m != "" && b != "") printf "%.0f", m - b }'
}

print_results() {
	local t add bcc ratio lost
	bcc=$(added bcc)
	printf '%-12s %9s %12s %8s %12s  %s\n' tool ns/call "added ns/ev" "vs bcc" "stacks lost" \
		"runs (ns/call)"
	for t in "${TOOLS[@]}"; do
		if [ -z "${NS[$t]:-}" ]; then
			printf '%-12s %s\n' "$t" "not run: ${REASON[$t]:-unknown}"
			continue
		fi
		add=$(added "$t") ratio=-
		[ -n "$bcc" ] && [ "$bcc" -gt 0 ] &&
			ratio=$(awk -v a="$add" -v c="$bcc" 'BEGIN { printf "%.2fx", a / c }')
		lost=$(echo "${LOST[$t]:-}" | tr ' ' '\n' | grep . | sort -n | tail -n 1)
		[ "$t" = baseline ] && add=- ratio=- lost=-
		printf '%-12s %9s %12s %8s %12s  %s\n' "$t" "$(med NS "$t")" "$add" "$ratio" \
			"${lost:-?}" "${NS[$t]}${REASON[$t]:+(${REASON[$t]})}"
	done
}

# Where the added time goes (medians): the loop's own CPU and its time off the
# CPU, the context switches it suffered and the wakeup interrupts of the
# machine, the BPF program's run time, and the tracer's CPU while the loop ran.
print_split() {
	local t
	printf '%-12s %9s %9s %13s %8s %10s %11s\n' tool "loop CPU" "off-CPU" "ctxsw/1k ev" \
		"IPIs/ev" "BPF ns/ev" "tracer CPU"
	for t in "${TOOLS[@]}"; do
		[ -n "${NS[$t]:-}" ] || continue
		printf '%-12s %9s %9s %13s %8s %10s %11s\n' "$t" "$(med CPU "$t")" "$(med OFF "$t")" \
			"$(med CSW "$t")" "$(med IPI "$t")" "$(med BPFNS "$t")" "$(med TCPU "$t")"
	done
	echo "(ns per call or event; IPIs = IRQ work + function-call + reschedule interrupts;" \
		"BPF = run_time_ns/run_cnt; tracer CPU = utime+stime while the loop ran / N)"
}

verdict() {
	local t st bcc
	bcc=$(added bcc)
	for t in stacktap stacktap-fp; do
		st=$(added "$t")
		[ -n "$st" ] || continue
		if [ -z "$bcc" ]; then
			echo "target $t <= 0.80x bcc: not evaluated, bcc did not run"
			continue
		fi
		awk -v s="$st" -v c="$bcc" -v t="$t" -v l="$(echo "${LOST[$t]:-}" | tr ' ' '\n' | sort -n | tail -n 1)" 'BEGIN {
			r = s / c
			printf "target %s <= 0.80x bcc, no stack lost: %.2fx, %s lost: %s\n", t, r,
				l == 0 ? "none" : l, (r <= 0.8 && l == 0) ? "met" : "NOT met"
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
		TOOLS=(baseline stacktap stacktap-fp bcc bpftrace)
	# every event as a record, as before in-kernel counting (feature probe)
	"$ST" count --help 2>/dev/null | grep -q -- '--no-aggregate' &&
		TOOLS=("${TOOLS[@]:0:2}" stacktap-rec "${TOOLS[@]:2}")
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
	echo "$N getppid() calls per run, t:$TP, median of $REPS; load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "stacktap: $ST"
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
	[ "$BPF_STATS" = 1 ] && echo "(kernel.bpf_stats_enabled=1 during all runs)"
	return $ST_FAILED
}

main
