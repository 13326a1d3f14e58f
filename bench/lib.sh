# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers shared by the bench/bench_*.sh scripts written for issue 13 (sourced,
# not run): the floor program's build, waiting for banners, medians and
# spreads, the bcc header tree, BPF run-time accounting. Each script sets
# BENCH_NAME (its stderr prefix) and TMP before sourcing this.

note() { echo "${BENCH_NAME:-bench}: $*" >&2; }

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

# Numbers on stdin (one per word): their median / "min-max" / max.
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
spread() { tr ' ' '\n' | grep . | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) print lo "-" hi }'; }
maxof() { tr ' ' '\n' | grep . | sort -g | tail -n 1; }

# ratio A B: A/B as "1.23x", "-" when either is missing or B is not positive.
ratio() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b <= 0) print "-"; else printf "%.2fx\n", a / b }'; }

# utime+stime of PID in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# The BPF run time (ns) of every program whose id is above $1: bcc and
# bpftrace keep no fd we could find their programs by, so a tool's programs
# are the ones loaded after it started (others' programs loaded meanwhile
# would count too: the scripts warn about foreign programs where it matters).
bpf_ns_since() {
	bpftool -j prog show 2>/dev/null |
		jq --argjson min "$1" '[.[] | select(.id > $min) | .run_time_ns // 0] | add // 0'
}
max_prog_id() { bpftool -j prog show 2>/dev/null | jq '[.[].id] | max // 0'; }

# bpf_stats_on / bpf_stats_restore: run_time_ns is counted only while BPF
# statistics are on. They are held on by an fd of our own (bench/st_bpfstats.c,
# BPF_ENABLE_STATS), never by writing kernel.bpf_stats_enabled: a bench that
# put the sysctl back at its end would turn them off under another bench
# still running. The holder exits when its stdin, a fifo we keep open, closes.
STATS_HOLDER=
bpf_stats_on() {
	local held=${TMP:-/tmp}/bpfstats.$$ holder=${O:-build}/bench/st-bpfstats
	[ -n "$STATS_HOLDER" ] && return 0
	[ -x "$holder" ] || make -s "$holder" > /dev/null || return 1
	rm -f "$held.in"; mkfifo "$held.in" || return 1
	"$holder" < "$held.in" > "$held.out" &
	STATS_HOLDER=$!
	exec {STATS_FD}> "$held.in"
	rm -f "$held.in"
	wait_for "$held.out" '^held$' 10 "$STATS_HOLDER" || { echo "warning: BPF statistics not held" >&2; return 1; }
}
bpf_stats_restore() {
	[ -n "$STATS_HOLDER" ] || return 0
	exec {STATS_FD}>&-
	wait "$STATS_HOLDER" 2> /dev/null
	STATS_HOLDER=
}

# Only jobs not reaped yet: a pid we already waited for may belong to someone else now.
kill_jobs() {
	local p
	for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
}

# bcc compiles against kernel headers; this kernel ships none. The
# newest Debian linux-headers pair is merged into one tree: the -common
# package holds the sources, the -amd64 one .config, include/generated and
# arch/x86/include/generated. That tree, as BCC_KERNEL_SOURCE, is enough for
# tracepoint and uprobe tools: they take no kernel struct layouts from it.
# Rebuilt only when the pair changes. Sets BCC_REASON on failure.
BCC_HDRS=${BCC_HDRS:-/var/tmp/stacktap-bcc-headers}
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

# build_floor O: builds $O/bench/floor (bench/floor/: floor.bpf.c and its
# loader) with the project's toolchain: clang -target bpf, bpftool's skeleton,
# gcc and libbpf. Prints nothing; returns non-zero with a note on failure.
build_floor() {
	local o=$1 d=$1/bench/floor-obj
	[ "$o/bench/floor" -nt bench/floor/floor.bpf.c ] && [ "$o/bench/floor" -nt bench/floor/floor.c ] &&
		return 0
	mkdir -p "$d" || return 1
	${CLANG:-clang} -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
		-I"/usr/include/$(gcc -dumpmachine)" -c bench/floor/floor.bpf.c -o "$d/floor.bpf.o" &&
		${BPFTOOL:-bpftool} gen skeleton "$d/floor.bpf.o" name floor_bpf > "$d/floor.skel.h" &&
		gcc -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$d" bench/floor/floor.c \
			-lbpf -lelf -lz -o "$o/bench/floor" ||
		{ note "cannot build the floor program (bench/floor/)"; return 1; }
}

# The ids of the BPF programs PID holds (program and link fds name one in
# their fdinfo), one a line.
prog_ids_of() { cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -un; }

# The summed run_time_ns of the programs whose ids are given.
run_ns_of() {
	local id s=0 r
	for id in "$@"; do
		r=$(bpftool -j prog show id "$id" 2>/dev/null | jq '.run_time_ns // 0')
		s=$((s + ${r:-0}))
	done
	echo "$s"
}

# Context switches of the whole machine since boot.
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

# The BPF programs a tracer attached, their run-time statistics (held on by bpf_stats_on),
# and the cleanup at exit (bench_count.sh, bench_unwind.sh): the caller sets TP_NAME (the
# syscall tracepoint's name), and TMP.

# The BPF programs the tracer PID has attached to the tracepoint.
tracer_progs() {
	bpftool -j perf list 2>/dev/null |
		jq -r --argjson p "$1" --arg tp "$TP_NAME" \
			'.[] | select(.pid == $p and .tracepoint == $tp) | .prog_id'
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

# The EXIT trap's work: kill the jobs not reaped yet (a pid already waited for may belong to
# someone else now), let go of BPF statistics (bpf_stats_restore), remove $TMP.
bench_cleanup() {
	local p
	bpf_stats_restore
	for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$TMP"
}

# bench_preflight: root and a built $ST, else exit; a peer that cannot run gets its reason in
# the caller's REASON[bpftrace] / REASON[bcc] ($BCC is the caller's bcc tool).
bench_preflight() {
	[ "$(id -u)" = 0 ] || { note "needs root"; exit 1; }
	[ -x "$ST" ] || { note "$ST: not built (make O=$O)"; exit 1; }
	command -v bpftrace > /dev/null || REASON[bpftrace]="bpftrace missing: apt-get install bpftrace"
	BCC_REASON=
	[ -x "$BCC" ] || BCC_REASON="$BCC missing: apt-get install bpfcc-tools"
	[ -z "$BCC_REASON" ] && bcc_headers
	[ -n "$BCC_REASON" ] && REASON[bcc]=$BCC_REASON
}
