# SPDX-License-Identifier: GPL-2.0
# Shared helpers for BPF integration tests and script tests. Sourced; ST, O and
# RESULTS come from tests/run.sh, or default to a run by hand: build/, no results file.
set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
O=${O:-build}
: "${ST:=$ROOT/$O/stacktap}"
: "${RESULTS:=/dev/null}"
export ST O RESULTS
W="$ROOT/$O/workloads"
# Under the runner's RUN_DIR: two runs at once never share a file.
TMP=$(mktemp -d "${RUN_DIR:-/tmp}/stacktap-it.XXXXXX")
trap 'st_cleanup' EXIT
ST_PIDS=()

st_cleanup() {
	local p
	for p in "${ST_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -z "${RUN_CG:-}" ] || rmdir "$RUN_CG" 2>/dev/null
	rm -rf "$TMP"
}

# run_cg_init: RUN_CG, a cgroup v2 directory of this test's own (empty when
# cgroup v2 is not mounted). "${IN_RUN_CG[@]}" CMD ARGS... runs CMD as a
# process of it from its start (the same pid: $! is CMD's), and a tracer given
# ${RUN_CG:+--cgroup "$RUN_CG"} sees only such processes, whatever else the
# machine runs meanwhile (this test run elsewhere, a benchmark's flood).
run_cg_init() {
	local cg2
	cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	RUN_CG=
	[ -z "$cg2" ] || RUN_CG=$(mktemp -d "$cg2/stacktap-test.XXXXXX") || RUN_CG=
	IN_RUN_CG=(sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs"; shift; exec "$@"' _ "$RUN_CG")
}

# pass NAME / fail NAME [details...]
pass() { echo "$(basename "$0" .sh)/$1" | sed 's/^/pass /' >> "$RESULTS"; echo "    ok   $1"; }
fail() {
	local n=$1; shift
	echo "fail $(basename "$0" .sh)/$n" >> "$RESULTS"
	echo "    FAIL $n"
	[ $# -gt 0 ] && printf '      %s\n' "$@"
	return 0
}

# skip NAME REASON: a case that cannot run here; the runner counts it as a skip, never a pass.
skip() {
	echo "skip $(basename "$0" .sh)/$1" >> "$RESULTS"
	echo "    skip $1 ($2)"
}

# has_feature WHAT: `stacktap features` says yes to WHAT ("task_work from perf_event",
# "VMA iterator kfuncs (met filter)", ...): what this kernel lets the commands use. Asked
# once per script.
has_feature() {
	[ -s "$TMP/features" ] || "$ST" features > "$TMP/features" 2>&1
	grep -qE "^  $(printf '%s' "$1" | sed 's/[][().*+?^$|]/\\&/g') +yes" "$TMP/features"
}

# needs_feature NAME WHAT: true when the kernel has WHAT; else NAME is a skip (with the
# kernel's reason) and false. For cases of a mechanism this kernel refuses: the kernel
# matrix (tests/kernels) runs them on kernels that have it.
needs_feature() {
	has_feature "$2" && return 0
	skip "$1" "$(grep -E "^  $(printf '%s' "$2" | sed 's/[][().*+?^$|]/\\&/g') " "$TMP/features" |
		sed 's/^  //; s/  */ /g' | cut -c1-160)"
	return 1
}

# The line a command prints when its user stacks cannot be deferred here (lib/session/cli.c).
NOT_DEFERRED='^stacktap: user stacks taken at the event, not deferred'

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

# expect_file_eq NAME GOT_FILE WANT_FILE: exact text comparison with a diff on failure.
expect_file_eq() {
	if diff -u "$3" "$2" > "$TMP/diff" 2>&1; then pass "$1"; else
		fail "$1" "$(head -60 "$TMP/diff")"
	fi
}

# at_least NAME GOT MIN
at_least() { if [ "${2:-0}" -ge "$3" ]; then pass "$1"; else fail "$1" "got ${2:-none}, want >= $3"; fi; }

# wait_for_line FILE REGEX [TIMEOUT_S]: wait until FILE has a line matching REGEX.
wait_for_line() {
	local i
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# st_held PID: the BPF programs and links PID holds, "prog_id:N" / "link_id:N" a line.
st_held() { grep -hE '^(prog|link)_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $1 $2}' | sort -u; }

# st_left_behind: stacktap's BPF programs, and the links to them, that no live
# process holds: what a stacktap left attached. Ours by name (every stacktap
# program is named st_*) and by holder (/proc/PID/fdinfo): other tracers'
# programs are not named so, and another stacktap's are held by its live
# process, so neither counts, whenever they come and go.
st_left_behind() {
	local progs held
	held=$(grep -hE '^(prog|link)_id:' /proc/[0-9]*/fdinfo/* 2>/dev/null | awk '{print $1 $2}' | sort -u)
	progs=$(bpftool -j prog show 2>/dev/null |
		jq -r '.[] | select((.name // "") | startswith("st_")) | .id')
	{
		for id in $progs; do echo "prog_id:$id"; done
		bpftool -j link show 2>/dev/null | jq -r --argjson p "[$(echo $progs | tr ' ' ,)]" \
			'.[] | select(.prog_id as $i | $p | any(.[]; . == $i)) | "link_id:\(.id)"'
	} | sort -u | comm -23 - <(echo "$held") | tr '\n' ' ' | sed 's/ $//'
}

# expect_nothing_left NAME: nothing of stacktap's is left behind, allowing the
# kernel up to 5 s to free what the last exit released.
expect_nothing_left() {
	local left i
	for ((i = 0; i < 50; i++)); do
		left=$(st_left_behind)
		[ -z "$left" ] && break
		sleep 0.1
	done
	expect_eq "$1" "$left" ""
}

# release FIFO: tell the workload waiting on FIFO to go. A workload that died
# before reading it would leave the writer blocked in open() forever, and the
# suite with it: give up after 30 s, and fail.
release() {
	timeout 30 bash -c 'echo go > "$1"' _ "$1" ||
		{ fail "release" "no workload read $1 within 30 s"; return 1; }
}

# run_during NAME FN STACKTAP_ARGS...: stacktap STACKTAP_ARGS, output in
# $TMP/NAME.{out,err}, while the shell function FN runs; then Ctrl-C, and
# the check NAME-exit that it exits 0.
run_during() {
	local name=$1 fn=$2 spid; shift 2
	"$ST" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^Tracing' || fail "$name-attach" "$(cat "$TMP/$name.err")"
	"$fn"
	kill -INT "$spid"
	wait "$spid"
	expect_eq "$name-exit" "$?" 0
}

# run_traced NAME WORKLOAD_ARGS -- STACKTAP_ARGS: the workload waits on a fifo
# until the tracer has attached; stdout/stderr of stacktap land in $TMP/NAME.{out,err}.
# wait_tables NAME PID: unwind tables are built after attach, and until then
# a process's stacks are copies unwound in user space. A test of the BPF walk
# itself sets TABLES_READY=1 (and passes --debug, which prints the line).
wait_tables() {
	[ -n "${TABLES_READY:-}" ] || return 0
	wait_for_line "$TMP/$1.err" "tables of process $2 loaded" ||
		{ fail "$1" "tables not loaded: $(cat "$TMP/$1.err")"; return 1; }
}

run_traced() {
	local name=$1; shift
	local wargs=() sargs=()
	while [ "$1" != -- ]; do wargs+=("$1"); shift; done; shift
	sargs=("$@")
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"${wargs[@]}" "$TMP/go" > "$TMP/$name.w" &
	local wpid=$!
	ST_PIDS+=("$wpid")
	wait_for_line "$TMP/$name.w" '^ready' || { fail "$name" "workload not ready"; return 1; }
	"$ST" "${sargs[@]//@PID@/$wpid}" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	local spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^Tracing' || { fail "$name" "tracer not attached: $(cat "$TMP/$name.err")"; return 1; }
	wait_tables "$name" "$wpid" || return 1
	release "$TMP/go"
	wait "$wpid"
	wait "$spid"
	echo $? > "$TMP/$name.rc"
}

# run_jit_container NAME EXE -- STACKTAP-ARGS...: workloads/jit_fp -m 3 copied to EXE
# (outside /tmp, which the container's tmpfs hides; the caller removes it) and
# run in its own pid and mount namespaces with its own /tmp, so its perf map is
# /proc/PID/root/tmp/perf-1.map; stacktap traces it with @PID@ replaced by its
# pid as we see it. Output in $TMP/NAME.{w,out,err}.
run_jit_container() {
	local name=$1 exe=$2 fifo=/dev/shm/stacktap-jitc-$$ upid wpid spid
	shift 3
	rm -f "$fifo"; mkfifo "$fifo"
	cp "$W/jit_fp" "$exe"
	unshare --pid --fork --mount --propagation private sh -c \
		'mount -t tmpfs none /tmp && exec "$0" -m 3 "$1"' "$exe" "$fifo" > "$TMP/$name.w" &
	upid=$!
	ST_PIDS+=("$upid")
	wait_for_line "$TMP/$name.w" '^ready' || { fail "$name" "workload not ready"; rm -f "$fifo"; return 1; }
	wpid=$(pgrep -P "$upid" -f "^$exe")
	"$ST" "${@//@PID@/$wpid}" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^Tracing' || { fail "$name" "tracer not attached"; rm -f "$fifo"; return 1; }
	release "$fifo"
	wait "$upid" "$spid"
	rm -f "$fifo"
}

stack_block() { # frames... count -> the text block count prints
	local c=${!#}
	for f in "${@:1:$#-1}"; do printf '  %s\n' "$f"; done
	printf '    %s\n\n' "$c"
}

