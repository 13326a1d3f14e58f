#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# stacktap features: one line a feature, each answer the one the commands use; the tests'
# switch STACKTAP_TEST_NO_TASK_WORK=1 forces every command onto the fallback of a kernel
# without task_work, which says so once and gives the same exact chain.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

"$ST" features > "$TMP/f.out" 2> "$TMP/f.err"
expect_eq features-exit "$?" 0
for what in "BTF (/sys/kernel/btf/vmlinux)" "ring buffer" "bpf_loop (table walk)" \
	"task_work kfunc" "task_work from perf_event" "task_work from tracepoint" \
	"task_work from tp_btf" "task_work from uprobe" "task_work from uprobe.s"; do
	name=${what%% (*}
	expect_eq "features-line-${name// /-}" "$(grep -cE "^  $(printf '%s' "$what" |
		sed 's/[][().*+?^$|]/\\&/g') +(yes|no: .+)$" "$TMP/f.out")" 1
done
expect_eq features-four-commands "$(sed -n '/^Commands/,$p' "$TMP/f.out" | grep -c ' user stacks ')" 4

# Forced off, every task_work line says no and why; nothing else changes.
STACKTAP_TEST_NO_TASK_WORK=1 "$ST" features > "$TMP/off.out" 2>&1
expect_eq features-forced-no "$(grep -c '^  task_work from .* no: STACKTAP_TEST_NO_TASK_WORK=1$' \
	"$TMP/off.out")" 5
expect_eq features-forced-rest-same "$(grep -v task_work "$TMP/off.out" | grep -v '^  [a-z, :.]*(.*) *user stacks')" \
	"$(grep -v task_work "$TMP/f.out" | grep -v '^  [a-z, :.]*(.*) *user stacks')"

# profile: the exact chain both ways; forced, the fallback said once, naming the switch.
HZ=99
run_wl busy "$W/busy_fp" 1 -- profile -F $HZ -f -U -p @PID@
STACKTAP_TEST_NO_TASK_WORK=1 run_wl busy-forced "$W/busy_fp" 1 -- profile -F $HZ -f -U -p @PID@
chain_share() { awk '/;main;b1;b2;b3;spin [0-9]+$/ {c += $NF} {t += $NF} END {print (t ? int(c * 100 / t) : 0)}' \
	"$TMP/$1.out"; }
at_least profile-chain "$(chain_share busy)" 95
at_least profile-forced-chain "$(chain_share busy-forced)" 95
expect_eq profile-forced-said "$(grep -c "$NOT_DEFERRED (no task_work from perf_event programs: STACKTAP_TEST_NO_TASK_WORK=1)" \
	"$TMP/busy-forced.err")" 1
expect_eq profile-forced-no-walks "$(walks busy-forced)" ""

# A kernel's refusal in its own words, never "run as root" to root.
expect_eq no-run-as-root "$(grep -c 'run as root' "$TMP/f.out" "$TMP/busy.err" "$TMP/busy-forced.err" |
	awk -F: '{s += $2} END {print s}')" 0
