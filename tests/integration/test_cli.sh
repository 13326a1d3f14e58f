#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What a new user meets first: --help lists exactly what each command
# accepts, examples are whole lines, --version, -i's interval header and
# losses, overlapping specs merged, and "1 probe point" grammar.
source "$(dirname "$0")/lib.sh"

N=37
CHAIN=$W/chain_fp
CHAIN_LINE="leaf c b a main __libc_start_call_main __libc_start_main _start"

# 1. --help. Every long option it lists is one the command accepts (argp
#    would say "unrecognized option" otherwise); the examples are whole
#    lines; no line is wider than argp's 79 columns.
help_accepts() {
	local cmd=$1 opt arg bad=
	while read -r opt arg; do
		case $opt in --help | --usage | --version) continue ;; esac
		"$ST" "$cmd" "$opt${arg:+=1}" x y > /dev/null 2> "$TMP/opt.err"
		grep -qE "unrecognized option|doesn't allow|requires an argument" "$TMP/opt.err" &&
			bad+="$opt "
	done < <("$ST" "$cmd" --help | sed -nE 's/^ +(-[[:alnum:]?], )?(--[a-z-]+)(=([A-Z_]+))?.*/\2 \4/p')
	expect_eq "help-$cmd-options-accepted" "$bad" ""
}
for cmd in count snoop profile offcpu unwind-table features; do
	"$ST" $cmd --help > "$TMP/help.$cmd"
	help_accepts $cmd
	expect_eq "help-$cmd-examples-whole-lines" \
		"$(sed -n '/^EXAMPLES:$/,$p' "$TMP/help.$cmd" | sed 1d | grep -v '^ ' | grep -v '^$')" ""
	expect_eq "help-$cmd-examples-are-$cmd" \
		"$(sed -n '/^EXAMPLES:$/,$p' "$TMP/help.$cmd" | grep -c "^ *stacktap $cmd ")" \
		"$(sed -n '/^EXAMPLES:$/,$p' "$TMP/help.$cmd" | grep -c "^ *stacktap ")"
	at_least "help-$cmd-has-examples" "$(grep -c '^ *stacktap ' "$TMP/help.$cmd")" 3
	expect_eq "help-$cmd-width" "$(awk 'length > 79' "$TMP/help.$cmd")" ""
done
"$ST" --help > "$TMP/help.main"
expect_eq help-main-width "$(awk 'length > 79' "$TMP/help.main")" ""
# The modes and options each command accepts, and only those: count and
# snoop copy stacks (--unwind=copy, --unwind-check); profile and offcpu do
# not. (Option docs wrap, so the text is searched with its lines joined.)
joined() { tr '\n' ' ' < "$TMP/help.$1" | tr -s ' '; }
for cmd in count snoop; do
	expect_eq "help-$cmd-copy-modes" "$(joined $cmd | grep -o -e '--unwind-check ' \
		-e 'table (tables only), fp (frame pointers only), copy (' | sort -ru | tr '\n' '|')" \
		"table (tables only), fp (frame pointers only), copy (|--unwind-check |"
done
for cmd in profile offcpu; do
	expect_eq "help-$cmd-no-copy-modes" "$(joined $cmd | grep -o -e '--unwind-check' -e ', copy' \
		-e 'table (tables only), fp (frame pointers only)[^ ]*' | tr '\n' '|')" \
		"table (tables only), fp (frame pointers only)|"
done
for cmd in count profile; do
	expect_eq "help-$cmd-perpid" "$(joined $cmd | grep -c -- \
		"-P, --perpid Count stacks per process: 'comm \[PID\]', or comm-PID with -f")" 1
done

# 2. --version: the same one line from the front and from every command.
"$ST" --version > "$TMP/version" 2>&1
rc=$?
expect_eq version "$rc:$(grep -cE '^stacktap [0-9]+\.[0-9]+( \(git [^)]+\))?$' "$TMP/version"):$(wc -l < "$TMP/version")" "0:1:1"
for cmd in count profile; do
	expect_eq "version-$cmd" "$("$ST" $cmd --version 2>&1)" "$(cat "$TMP/version")"
done

# 3. Grammar.
run_traced one-point "$CHAIN" $N -- count -p @PID@ t:syscalls:sys_enter_getppid
expect_eq tracing-1-probe-point "$(head -1 "$TMP/one-point.err")" \
	"Tracing 1 probe point... Hit Ctrl-C to end."
run_traced two-points "$CHAIN" $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid "u:$CHAIN:leaf"
expect_eq tracing-2-probe-points "$(head -1 "$TMP/two-points.err")" \
	"Tracing 2 probe points... Hit Ctrl-C to end."
"$ST" profile -C 0 0.1 > /dev/null 2> "$TMP/one-cpu.err"
expect_eq sampling-1-cpu "$(grep -v "$NOT_DEFERRED" "$TMP/one-cpu.err" | head -1)" \
	"Sampling at 49 Hz on 1 CPU... Hit Ctrl-C to end."
# The fallback to user stacks at the event is said once, exactly where the kernel refuses a
# task_work from the sampler's program type, and it names that type.
if has_feature "task_work from perf_event"; then want_said=0; else want_said=1; fi
expect_eq not-deferred-said-once "$(grep -c "$NOT_DEFERRED (no task_work from perf_event programs: " \
	"$TMP/one-cpu.err")" $want_said

# 4. Overlapping specs (a glob matching a named tracepoint): one probe point,
#    each event counted once.
run_traced overlap "$CHAIN" $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid 't:syscalls:sys_enter_getpp*'
expect_eq overlap-one-point "$(head -1 "$TMP/overlap.err")" "Tracing 1 probe point... Hit Ctrl-C to end."
expect_eq overlap-counted-once "$(cat "$TMP/overlap.out")" "$(stack_block $CHAIN_LINE $N)"

# 5. -i: each interval starts with a blank line and its time (HH:MM:SS), as
#    bcc's stackcount -T prints it; every event is in exactly one interval.
# The output as tokens: B blank, H header, F frame, N count; then its grammar.
tokens() {
	awk '{ if ($0 == "") t = t "B"; else if (/^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$/) t = t "H"
	       else if (/^    [0-9]+$/) t = t "N"; else if (/^  [^ ]/) t = t "F"; else t = t "?" }
	     END { print t }' "$1"
}
# A burst right after the banner: before its tables are built every event carries a
# 16 KiB stack copy, and 2000 of them overflow the ring buffer (counted): tables first.
TABLES_READY=1 run_traced interval "$CHAIN" 2000 -- count --debug -i 0.05 -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq interval-layout "$(tokens "$TMP/interval.out" | grep -cE '^(BH(F+NB)*)+$')" 1
expect_eq interval-all-counted "$(awk '/^    [0-9]+$/ {s += $1} END {print s + 0}' "$TMP/interval.out")" 2000
# Folded: the header alone on its line, every other line a folded stack.
TABLES_READY=1 run_traced interval-f "$CHAIN" 2000 -- count --debug -f -i 0.05 -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq interval-folded-lines "$(grep -cvE '^([0-2][0-9]:[0-5][0-9]:[0-5][0-9]|chain_fp;[^ ]+ [0-9]+)$' "$TMP/interval-f.out")" 0
expect_eq interval-folded-all-counted "$(awk '/^chain_fp;/ {s += $NF} END {print s + 0}' "$TMP/interval-f.out")" 2000

# 6. -i with losses: each interval's drops on stderr after its time; they sum
#    to the run's total, and with the counts to every event made. Every event
#    as a record (--no-aggregate): counted in the kernel, none would be lost.
BURST=200000
run_traced interval-drops "$CHAIN" $BURST -- count -i 0.1 --ringbuf-kb 4 --no-aggregate -U -p @PID@ t:syscalls:sys_enter_getppid
counted=$(awk '/^    [0-9]+$/ {s += $1} END {print s + 0}' "$TMP/interval-drops.out")
per_interval=$(awk '/^stacktap: [0-2][0-9]:[0-5][0-9]:[0-5][0-9]: [0-9]+ events? dropped: ring buffer full/ {s += $3} END {print s + 0}' "$TMP/interval-drops.err")
total=$(awk '/^stacktap: [0-9]+ events? dropped: ring buffer full/ {s += $2} END {print s + 0}' "$TMP/interval-drops.err")
at_least interval-drops-reported "$per_interval" 1
expect_eq interval-drops-sum-to-total "$per_interval" "$total"
expect_eq interval-drops-accounted "$((counted + per_interval))" $BURST
