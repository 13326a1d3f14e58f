#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input: one clear line on stderr, the right exit code, nothing left attached.
source "$(dirname "$0")/lib.sh"

progs_before=$(bpf_progs); links_before=$(bpf_links)

# expect_bad NAME CODE REGEX -- ARGS: exit code CODE, exactly one stderr line matching REGEX.
expect_bad() {
	local name=$1 code=$2 re=$3; shift 4
	"$ST" "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$? lines
	lines=$(wc -l < "$TMP/err")
	if [ "$rc" = "$code" ] && [ "$lines" = 1 ] && grep -qE "$re" "$TMP/err"; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $code), $lines stderr lines (want 1):" "$(cat "$TMP/err")"
	fi
}

expect_bad unknown-tracepoint 2 't:nosuch:thing: no such tracepoint' -- count t:nosuch:thing
expect_bad missing-binary 2 "'/no/such/bin' not found" -- count u:/no/such/bin:main
expect_bad missing-symbol 2 "symbol 'no_such_symbol' not found in .*chain_fp" -- count "u:$W/chain_fp:no_such_symbol"
expect_bad missing-pid 2 'pid 4000000: no such process' -- count -p 4000000 t:syscalls:sys_enter_getppid
expect_bad malformed-spec 2 "'x:y': unknown probe type" -- count x:y
expect_bad malformed-tracepoint 2 "malformed tracepoint spec" -- count t:syscalls
expect_bad negative-duration 2 "duration '-1'" -- count -D -1 t:syscalls:sys_enter_getppid
expect_bad zero-duration 2 "duration '0'" -- snoop -D 0 t:syscalls:sys_enter_getppid
expect_bad no-probe 2 'no probe given' -- snoop
expect_bad missing-usdt 2 'no USDT probe nope:nada' -- count "usdt:$W/chain_fp:nope:nada"
expect_bad kfunc-refused 1 'k:schedule: cannot trace kernel function: fentry .*kprobe' -- count k:schedule
expect_bad unknown-kfunc 2 "no kernel function 'no_such_fn_xyz'" -- count k:no_such_fn_xyz
# A bad spec after good ones: the good ones are detached again.
expect_bad late-bad-spec 2 't:nosuch:thing: no such tracepoint' -- count t:syscalls:sys_enter_getppid t:nosuch:thing

# New since the start: other tracers on this machine may come and go meanwhile.
leftover() { comm -13 <(echo "$1") <(echo "$2") | tr '\n' ' '; }
expect_eq no-progs-left "$(leftover "$progs_before" "$(bpf_progs)")" ""
expect_eq no-links-left "$(leftover "$links_before" "$(bpf_links)")" ""

# SIGKILL mid-run: the kernel drops everything with the last fd.
"$ST" count t:syscalls:sys_enter_getppid "u:$W/chain_fp:leaf" > /dev/null 2> "$TMP/kerr" &
kpid=$!
wait_for_line "$TMP/kerr" '^Tracing' || fail sigkill-setup "not attached"
[ -n "$(leftover "$progs_before" "$(bpf_progs)")" ] && pass sigkill-was-attached || fail sigkill-was-attached
kill -9 "$kpid"; wait "$kpid" 2>/dev/null
for _ in $(seq 50); do [ -z "$(leftover "$progs_before" "$(bpf_progs)")" ] && break; sleep 0.1; done
expect_eq sigkill-no-progs-left "$(leftover "$progs_before" "$(bpf_progs)")" ""
expect_eq sigkill-no-links-left "$(leftover "$links_before" "$(bpf_links)")" ""

# Ctrl-C prints what was collected so far.
"$ST" count -U "u:$W/chain_fp:leaf" > "$TMP/iout" 2> "$TMP/ierr" &
ipid=$!
wait_for_line "$TMP/ierr" '^Tracing' || fail sigint-setup "not attached"
"$W/chain_fp" 3 > /dev/null
sleep 0.3
kill -INT "$ipid"; wait "$ipid"; rc=$?
expect_eq sigint-exit "$rc" 0
expect_eq sigint-printed "$(tail -2 "$TMP/iout" | head -1)" "    3"
