#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# profile against busy (main -> b1 -> b2 -> b3 -> spin, tests/workloads/busy.c):
# the known chain in at least 95% of the samples, and as many samples as the
# CPU time the workload really got (utime + stime from its /proc/PID/stat)
# times HZ, within the tolerance samples_match states.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

# A high rate, so the sample count has a tight tolerance (samples_match).
HZ=499
SECS=2

# samples_match NAME GOT: GOT samples against E = the workload's CPU seconds
# (from /proc/PID/stat) x HZ. A sample lands in the workload when it runs at
# that tick of its CPU's timer: alone on a CPU that is every tick (GOT = E);
# sharing one with other work (a loaded machine) each tick is a draw, whose
# count has a variance of at most E. Tolerance: 4 standard deviations
# (4 sqrt(E): a false failure under 1e-4), plus HZ / clk_tck for the tick
# granularity of utime + stime, plus 2 for the first and last period.
samples_match() {
	local name=$1 got=$2 ticks tck
	ticks=$(wl_value "$name" stat_ticks); tck=$(wl_value "$name" clk_tck)
	if awk -v g="$got" -v t="$ticks" -v c="$tck" -v h=$HZ 'BEGIN {
		e = t / c * h; tol = 4 * sqrt(e) + h / c + 2; d = g - e; if (d < 0) d = -d
		printf "         samples %d, want %.0f +- %.0f (%.2f CPU s x %d Hz)\n", g, e, tol, t / c, h
		exit !(t > 0 && d <= tol) }'; then
		pass "$name-samples"
	else
		fail "$name-samples" "got $got samples, CPU time $ticks/$tck s at $HZ Hz"
	fi
}

# check_busy NAME: chain share and sample count of a profile -f -U run.
check_busy() {
	local name=$1 total chain
	total=$(awk '{s += $NF} END {print s + 0}' "$TMP/$name.out")
	# The whole chain down to main: main;b1 and nothing cut between (b2, b3 where reached),
	# then (-a) the kernel frames of a sample that caught the task in the kernel: an
	# interrupt, or another tracer's deferred walk on its way back to user space.
	chain=$(awk '/;main;b1(;b2(;b3(;spin)?)?)?(;[^;]*_\[k\])* [0-9]+$/ {s += $NF} END {print s + 0}' \
		"$TMP/$name.out")
	at_least "$name-chain-95pct" $((chain * 100)) $((total * 95))
	samples_match "$name" "$total"
	expect_eq "$name-exit" "$(cat "$TMP/$name.rc")" 0
}

# 1. Frame pointers, deferred (the default) and sync.
run_wl busy-fp "$W/busy_fp" $SECS -- profile -F $HZ -f -a -p @PID@
check_busy busy-fp
# One walk per kernel entry: each sample that interrupted user code (no _[k]
# frame) is its own entry; samples that caught the task in the kernel (a
# fault, a preemption on a busy machine) may share one entry's walk.
user=$(awk '!/_\[k\]/ {s += $NF} END {print s + 0}' "$TMP/busy-fp.out")
kern=$(awk '/_\[k\]/ {s += $NF} END {print s + 0}' "$TMP/busy-fp.out")
walked=$(walks busy-fp)
if ! needs_feature busy-fp-walks "task_work from perf_event"; then :
elif [ "${walked:-0}" -ge "$user" ] && [ "${walked:-0}" -le $((user + kern)) ]; then pass busy-fp-walks
else fail busy-fp-walks "$walked walks for $user samples in user code and $kern in the kernel"; fi
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

# 5. -P keeps two processes of one name apart: folded output starts with
#    comm-PID (as stackcollapse-perf.pl --pid writes it), text output shows a
#    "comm [PID]" line. --cgroup samples only the tasks of that cgroup v2
#    directory: two busy_fp inside it, a third outside. These runs follow
#    every process of the machine (no -p), so they walk frame pointers: with
#    tables they would build one for every process the machine starts, which
#    is not what is tested here (in fp mode busy_fp's b3 is lost under its
#    frameless leaf, as test_count.sh shows for chain_fp).
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
# The walk ends early where Debian's libc keeps no frame pointer, and says so (a regex).
FP_CHAIN='\[unwind_stopped:_no_unwind_row_and_no_valid_frame_pointer\];__libc_start_call_main;main;b1;b2;spin'
# three_busy NAME -- STACKTAP_ARGS: busy_fp x3 (1 CPU s each), the first two in $CG.
three_busy() {
	local name=$1 i; shift 2
	P=()
	for i in 0 1 2; do
		rm -f "$TMP/go$i"; mkfifo "$TMP/go$i"
		"$W/busy_fp" 1 "$TMP/go$i" > "$TMP/$name.w$i" &
		P+=($!); ST_PIDS+=($!)
	done
	for i in 0 1 2; do wait_for_line "$TMP/$name.w$i" '^ready' || fail "$name" "workload not ready"; done
	echo "${P[0]}" > "$CG/cgroup.procs"; echo "${P[1]}" > "$CG/cgroup.procs"
	timeout 120 "$ST" profile --unwind=fp -F $HZ -U --cgroup "$CG" "$@" 4 \
		> "$TMP/$name.out" 2> "$TMP/$name.err" &
	local spid=$!; ST_PIDS+=($spid)
	wait_for_line "$TMP/$name.err" '^Sampling' || fail "$name" "not sampling: $(cat "$TMP/$name.err")"
	for i in 0 1 2; do release "$TMP/go$i"; done
	wait "${P[@]}"
	wait "$spid"
	expect_eq "$name-exit" "$?" 0
}
if [ -n "$cg2" ] && CG=$(mktemp -d "$cg2/stacktap-test.XXXXXX"); then
	three_busy perpid-folded -- -P -f
	expect_eq perpid-folded-apart "$(cut -d';' -f1 "$TMP/perpid-folded.out" | sort -u | tr '\n' ' ')" \
		"$(printf 'busy_fp-%s\n' "${P[0]}" "${P[1]}" | sort | tr '\n' ' ')"
	expect_eq perpid-folded-chain "$(grep -c "^busy_fp-${P[0]};$FP_CHAIN [0-9]*$" "$TMP/perpid-folded.out") $(grep -c "^busy_fp-${P[1]};$FP_CHAIN [0-9]*$" "$TMP/perpid-folded.out")" "1 1"
	three_busy merged-folded -- -f
	expect_eq no-perpid-merged "$(cut -d';' -f1 "$TMP/merged-folded.out" | sort -u)" busy_fp
	three_busy perpid-text -- -P
	expect_eq perpid-text-lines "$(grep '^    busy_fp \[' "$TMP/perpid-text.out" | sort -u | tr '\n' '|')" \
		"$(printf '    busy_fp [%s]\n' "${P[0]}" "${P[1]}" | sort | tr '\n' '|')"

	# 6. A task freeing its heap at exit runs in exit_mmap() after its mm is
	#    detached: no user context, so its samples carry the lost-user-stack
	#    mark (and are counted), never an empty stack.
	rm -f "$TMP/gobig"; mkfifo "$TMP/gobig"
	"$W/bigexit" 1024 "$TMP/gobig" > "$TMP/bigexit.w" &
	bp=$!; ST_PIDS+=($bp)
	wait_for_line "$TMP/bigexit.w" '^ready' || fail bigexit "workload not ready"
	echo "$bp" > "$CG/cgroup.procs"
	timeout 120 "$ST" profile --unwind=fp --user-stacks=sync -F $HZ -f -U --cgroup "$CG" 3 \
		> "$TMP/bigexit.out" 2> "$TMP/bigexit.err" &
	spid=$!; ST_PIDS+=($spid)
	wait_for_line "$TMP/bigexit.err" '^Sampling' || fail bigexit "not sampling: $(cat "$TMP/bigexit.err")"
	release "$TMP/gobig"
	wait "$bp"; wait "$spid"
	expect_eq bigexit-exit "$?" 0
	expect_eq bigexit-no-empty-stack "$(awk '$1 !~ /;/' "$TMP/bigexit.out")" ""
	lost=$(awk '$1 == "bigexit;[user_stack_lost:_unavailable]" {s += $2} END {print s + 0}' "$TMP/bigexit.out")
	at_least bigexit-lost-marked "$lost" 1
	expect_eq bigexit-lost-counted "$lost" \
		"$(sed -n 's/^stacktap: \([0-9]*\) user stacks\{0,1\} unavailable$/\1/p' "$TMP/bigexit.err")"

	# 7. System-wide, a process's unwind tables are loaded only once a sample
	#    meets it: a busy process is loaded, one that exec()s after the
	#    banner and then sleeps is not (at 1 Hz its ~1 ms on a CPU is all but
	#    never sampled). Its exec once loaded it at once.
	rm -f "$TMP/gomet"; mkfifo "$TMP/gomet"
	"$W/busy_fp" 3 "$TMP/gomet" > "$TMP/met.w" &
	bp=$!; ST_PIDS+=($bp)
	wait_for_line "$TMP/met.w" '^ready' || fail tables-when-met "workload not ready"
	echo "$bp" > "$CG/cgroup.procs"
	timeout 120 "$ST" profile --debug -F 1 -f --cgroup "$CG" 5 > "$TMP/met.out" 2> "$TMP/met.err" &
	spid=$!; ST_PIDS+=($spid)
	wait_for_line "$TMP/met.err" '^Sampling' || fail tables-when-met "not sampling: $(cat "$TMP/met.err")"
	sh -c 'echo $$ > "$1/cgroup.procs"; exec sleep 3' _ "$CG" &
	sp=$!; ST_PIDS+=($sp)
	release "$TMP/gomet"
	wait "$bp" "$sp"; wait "$spid"
	expect_eq tables-when-met "$(grep -c "^stacktap: unwind: tables of process \($bp\|$sp\) loaded$" \
		"$TMP/met.err") $(grep -c "^stacktap: unwind: tables of process $bp loaded$" "$TMP/met.err")" \
		"1 1"
	rmdir "$CG"
else
	skip perpid-cgroup "no cgroup v2 hierarchy to make a cgroup in"
fi
