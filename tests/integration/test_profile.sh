#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# profile against busy (main -> b1 -> b2 -> b3 -> spin, tests/workloads/busy.c):
# the known chain in at least 95% of the samples, and as many samples as
# HZ x the CPU seconds the workload measured itself, within 10%.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

HZ=49
SECS=2

# check_busy NAME: chain share and sample count of a profile -f -U run.
check_busy() {
	local name=$1 total chain cpu_ns
	total=$(awk '{s += $NF} END {print s + 0}' "$TMP/$name.out")
	# The whole chain down to main: main;b1 and nothing cut between (b2, b3 where reached).
	chain=$(awk '/;main;b1(;b2(;b3(;spin)?)?)? [0-9]+$/ {s += $NF} END {print s + 0}' "$TMP/$name.out")
	cpu_ns=$(wl_value "$name" cpu_ns)
	at_least "$name-chain-95pct" $((chain * 100)) $((total * 95))
	within "$name-samples" "$total" "$(awk -v c="$cpu_ns" -v h=$HZ 'BEGIN {printf "%d", c * h / 1e9}')" 10
	expect_eq "$name-exit" "$(cat "$TMP/$name.rc")" 0
}

# 1. Frame pointers, deferred (the default) and sync.
run_wl busy-fp "$W/busy_fp" $SECS -- profile -F $HZ -f -U -p @PID@
check_busy busy-fp
# One walk per sample: a sample interrupts user code, each is its own kernel entry.
expect_eq busy-fp-walks "$(walks busy-fp)" "$(awk '{s += $NF} END {print s + 0}' "$TMP/busy-fp.out")"
run_wl busy-fp-sync "$W/busy_fp" $SECS -- profile --user-stacks=sync -F $HZ -f -U -p @PID@
check_busy busy-fp-sync
expect_eq busy-fp-sync-no-walks "$(walks busy-fp-sync)" ""

# 2. Text output with -d: the most frequent stack (printed last) is the chain, user
#    part after the "--" line when the sample interrupted the kernel.
run_wl busy-text "$W/busy_fp" 1 -- profile -F $HZ -d -p @PID@
expect_eq busy-text-top-stack \
	"$(awk '/^    --$/ {next} /^    [0-9]+$/ {last = s; s = ""; next} /^  / {s = s $1 " "} END {print last}' \
	   "$TMP/busy-text.out")" \
	"spin b3 b2 b1 main __libc_start_call_main __libc_start_main _start "

# 3. Without frame pointers the deferred walk uses the unwind tables (.eh_frame, SFrame).
run_wl busy-nofp "$W/busy_nofp" $SECS -- profile -F $HZ -f -U -p @PID@
check_busy busy-nofp
run_wl busy-sframe "$W/busy_sframe" $SECS -- profile -F $HZ -f -U -p @PID@
check_busy busy-sframe

# 4. Usage errors.
"$ST" profile -F 0 > /dev/null 2> "$TMP/bad.err"
expect_eq profile-bad-hz "$?:$(cat "$TMP/bad.err")" "2:stacktap profile: frequency '0': want 1-100000"
