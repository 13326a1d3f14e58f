#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The met filter (bpf/met.bpf.h): system-wide, BPF sends no process records
# of a process until an event meets it, and then describes it. Its stacks
# must still resolve when it is gone before user space reads its first
# sample: stacktap is stopped (SIGSTOP) while 60 short processes run the
# known chain main -> a -> b -> c -> leaf (tests/workloads/chain.c) under
# samples and exit; once continued, every one of them is gone, and is known
# only from the description queued behind its first sample (--debug says
# how many were). Every sampled stack through the chain is then exactly a
# prefix of it, and no description came short.
source "$(dirname "$0")/lib.sh"

NPROC=60
CHAIN="_start;__libc_start_main;__libc_start_call_main;main;a;b;c;leaf"
cp "$W/chain_fp" "$TMP/chain_met" # its own comm: only these stacks are looked at
run_cg_init

"${IN_RUN_CG[@]}" true 2>/dev/null # the cgroup works (or is empty: system-wide)
"$ST" profile --debug -U -f -F 999 --ringbuf-kb 65536 ${RUN_CG:+--cgroup "$RUN_CG"} 8 \
	> "$TMP/met.out" 2> "$TMP/met.err" &
spid=$!
ST_PIDS+=("$spid")
wait_for_line "$TMP/met.err" '^Sampling' || fail met-attach "$(cat "$TMP/met.err")"
kill -STOP "$spid"
for ((i = 0; i < NPROC; i++)); do "${IN_RUN_CG[@]}" "$TMP/chain_met" 20000 > /dev/null; done
kill -CONT "$spid"
wait "$spid"
expect_eq met-exit "$?" 0

# Folded: "comm;frames count", outermost first. A stack through a (main's
# other callees, atol and printf, are not the chain) must be the chain's
# prefix exactly, unless the walk says it stopped early (at a function's
# first instructions the frame-pointer walk at the event loses the caller,
# as on main): a frame unnamed, wrong or silently missing would break it.
awk '{ n = split($1, f, ";") } f[1] == "chain_met" { for (i = 2; i <= n; i++) if (f[i] == "a") { print; next } }' \
	"$TMP/met.out" > "$TMP/in_a"
ina=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/in_a")
exact=$(awk -v chain="$CHAIN" '{ s = $1; sub(/^chain_met;/, "", s) }
	index(chain ";", s ";") == 1 || s ~ /^\[unwind_stopped:[^;]*\];__libc_start_call_main;/ { n += $NF }
	END { print n + 0 }' "$TMP/in_a")
at_least met-sampled "$ina" 10
expect_eq met-exact-prefix "$exact" "$ina"
expect_eq met-no-unknown "$(grep -c '\[unknown\]' "$TMP/in_a")" 0
described=$(sed -n 's/^stacktap: processes: \([0-9]*\) known first from their description.*/\1/p' "$TMP/met.err")
if needs_feature met-described "task_work from perf_event"; then
	at_least met-described "$described" 10
fi
# (A process sampled only past its exit_mm() is not met, nor needs to be: no user stack.)
expect_eq met-none-short "$(grep -c 'came short' "$TMP/met.err")" 0
expect_nothing_left met-nothing-left
