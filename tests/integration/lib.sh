# SPDX-License-Identifier: GPL-2.0
# Shared helpers for BPF integration tests. Sourced; expects ST, O, RESULTS.
set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
W="$ROOT/$O/workloads"
TMP=$(mktemp -d /tmp/stacktap-it.XXXXXX)
trap 'st_cleanup' EXIT
ST_PIDS=()

st_cleanup() {
	local p
	for p in "${ST_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$TMP"
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

# wait_for_line FILE REGEX [TIMEOUT_S]: wait until FILE has a line matching REGEX.
wait_for_line() {
	local i
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# BPF objects that exist now, one id per line: to prove nothing is left behind.
bpf_links() { bpftool -j link show 2>/dev/null | jq -r '.[].id' | sort; }
bpf_progs() { bpftool -j prog show 2>/dev/null | jq -r '.[] | select(.name != null) | .id' | sort; }

# run_traced NAME WORKLOAD_ARGS -- STACKTAP_ARGS: the workload waits on a fifo
# until the tracer has attached; stdout/stderr of stacktap land in $TMP/NAME.{out,err}.
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
	echo go > "$TMP/go"
	wait "$wpid"
	wait "$spid"
	echo $? > "$TMP/$name.rc"
}

stack_block() { # frames... count -> the text block count prints
	local c=${!#}
	for f in "${@:1:$#-1}"; do printf '  %s\n' "$f"; done
	printf '    %s\n\n' "$c"
}

