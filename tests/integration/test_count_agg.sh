#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# count's in-kernel aggregation (bpf/aggregate.bpf.h) is exact: every event is
# counted once whether the kernel merged it or it came as a record, through
# hash collisions, a full map and -i intervals. Workload: tests/workloads/chain.c.
source "$(dirname "$0")/lib.sh"

N=3000
CHAIN=$W/chain_fp
LIBC_START="__libc_start_call_main __libc_start_main _start"
KSYSCALL="perf_syscall_enter syscall_trace_enter do_syscall_64 entry_SYSCALL_64_after_hwframe"

# kernel_count NAME: the events count said it merged in the kernel (--debug).
kernel_count() { sed -n 's/^stacktap: count: \([0-9]*\) events counted in the kernel.*/\1/p' "$TMP/$1.err"; }

# 1. N getppid() calls: exactly N, all but the key's first merged in the kernel
#    once the walker has the target's tables (TABLES_READY: before, events come
#    with stack copies, as records, by design of the lazy start-up).
TABLES_READY=1 run_traced exact "$CHAIN" $N -- count --debug -d -p @PID@ t:syscalls:sys_enter_getppid
stack_block $KSYSCALL -- leaf c b a main $LIBC_START $N | sed 's/^  --$/    --/' > "$TMP/want"
expect_file_eq agg-exact-chain "$TMP/exact.out" "$TMP/want"
expect_eq agg-exact-in-kernel "$(kernel_count exact)" $((N - 1))
TABLES_READY=1 run_traced noagg "$CHAIN" $N -- count --no-aggregate --debug -d -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_file_eq agg-off-same-chain "$TMP/noagg.out" "$TMP/want"
expect_eq agg-off-none-in-kernel "$(kernel_count noagg)" ""
# 1b. The same with deferred user stacks: each call is its own kernel entry, its event held in
#     the kernel until the entry's walk joins it (bpf/defer_hold.bpf.h): exactly N, the same
#     chain, all but the key's first counted in the kernel, and every one joined to a walk.
TABLES_READY=1 run_traced defer "$CHAIN" $N -- count --user-stacks=deferred --debug -d -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_file_eq agg-defer-exact-chain "$TMP/defer.out" "$TMP/want"
expect_eq agg-defer-in-kernel "$(kernel_count defer)" $((N - 1))
if needs_feature agg-defer-walks "task_work from tracepoint"; then
	expect_eq agg-defer-walks "$(grep -c "^stacktap: deferred user stacks: $N walks for $N events$" "$TMP/defer.err")" 1
fi

# two_chains NAME N1 N2 STACKTAP_ARGS...: two chain processes (other pids, so
# other stacks) at a uprobe on leaf, counted per process until Ctrl-C; prints
# "comm [PID] COUNT" per process into NAME.counts. Frame pointers: a process
# met first at its event walks with tables only once user space loaded it,
# and sends stack copies until then, which is not what is tested here.
two_chains() {
	local name=$1 n1=$2 n2=$3; shift 3
	local p1 p2 spid
	rm -f "$TMP/go1" "$TMP/go2"; mkfifo "$TMP/go1" "$TMP/go2"
	"$CHAIN" "$n1" "$TMP/go1" > "$TMP/$name.w1" & p1=$!
	"$CHAIN" "$n2" "$TMP/go2" > "$TMP/$name.w2" & p2=$!
	ST_PIDS+=("$p1" "$p2")
	wait_for_line "$TMP/$name.w1" '^ready' && wait_for_line "$TMP/$name.w2" '^ready' ||
		{ fail "$name" "workloads not ready"; return 1; }
	"$ST" count -P -U --unwind=fp --debug "$@" "u:$CHAIN:leaf" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/$name.err" '^Tracing' || { fail "$name" "tracer not attached"; return 1; }
	release "$TMP/go1"; wait "$p1"
	release "$TMP/go2"; wait "$p2"
	kill -INT "$spid"; wait "$spid"
	printf 'chain_fp [%s] %s\nchain_fp [%s] %s\n' "$p1" "$n1" "$p2" "$n2" > "$TMP/$name.want"
	awk '/^    chain_fp \[/{p=$0; sub(/^ */, "", p); getline; print p, $1}' "$TMP/$name.out" |
		sort > "$TMP/$name.counts"
	sort -o "$TMP/$name.want" "$TMP/$name.want"
}

# 2. Every hash cut to 0 bits: the second process's stack meets the first's
#    under the same hash, is compared in full, and comes as records; exact.
STACKTAP_TEST_AGG_HASH_BITS=0 two_chains collide 1200 800
expect_file_eq agg-collision-exact "$TMP/collide.counts" "$TMP/collide.want"
expect_eq agg-collision-counted \
	"$(grep -c 'sent as records, not counted in the kernel: another stack holds its hash' "$TMP/collide.err")" 1
expect_eq agg-collision-first-merged "$(kernel_count collide)" 1199

# 3. Maps of one entry: the second process finds them full; its events come as records, counted.
two_chains full 700 900 --agg-entries 1
expect_file_eq agg-full-exact "$TMP/full.counts" "$TMP/full.want"
expect_eq agg-full-counted \
	"$(sed -n 's/^stacktap: \([0-9]*\) events sent as records, not counted in the kernel: its map was full.*/\1/p' "$TMP/full.err")" 900
expect_eq agg-full-first-merged "$(kernel_count full)" 699

# 4. -i: each interval reports what the kernel counted since the last read; the sum is N.
#    Tables first, as in 1: before, records with stack copies may fill the ring buffer.
TABLES_READY=1 run_traced interval "$CHAIN" $N -- count --debug -f -i 0.2 -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq agg-interval-sum "$(awk 'NF == 2 {s += $2} END {print s}' "$TMP/interval.out")" $N

# 5. The burst that overflows a 4 KiB ring buffer with records (test_losses.sh)
#    loses nothing when counted in the kernel: all 200000 counted, no drop.
#    Tables first, as in 1: a record with a stack copy does not fit in 4 KiB.
TABLES_READY=1 run_traced burst "$CHAIN" 200000 -- count --debug --ringbuf-kb 4 -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq agg-burst-exact "$(awk '/^    [0-9]+$/ {s += $1} END {print s + 0}' "$TMP/burst.out")" 200000
expect_eq agg-burst-no-drop "$(grep -c ' dropped: ' "$TMP/burst.err")" 0

# 6. The same burst before the tables are built (--fast-start): the walker meets
#    code user space has not loaded, and those events would come with 16 KiB
#    stack copies, which never fit in a 4 KiB ring buffer; each is counted in
#    the kernel instead, with the frames its walk found (st_agg_rescue()):
#    all 200000 counted, no drop.
run_traced rescue "$CHAIN" 200000 -- count --debug --fast-start --ringbuf-kb 4 -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq agg-rescue-exact "$(awk '/^    [0-9]+$/ {s += $1} END {print s + 0}' "$TMP/rescue.out")" 200000
expect_eq agg-rescue-no-drop "$(grep -c ' dropped: ' "$TMP/rescue.err")" 0

# 7. Counts of exited processes are read a last time and deleted from the
#    kernel's map (agg_reader__read_gone()), and so are their stored stacks:
#    three processes one after the other (each its own addresses, so its own
#    stack), each counted whole in maps of one entry, none finding them full;
#    each waits until the one before is settled (RUN_GONE_GRACE_NS + RUN_GONE_AGE_NS, 2 s).
rm -f "$TMP/seq.w"
"$ST" count -P -U --unwind=fp --debug --agg-entries 1 "u:$CHAIN:leaf" > "$TMP/seq.out" 2> "$TMP/seq.err" &
SEQ_ST=$!
ST_PIDS+=("$SEQ_ST")
if wait_for_line "$TMP/seq.err" '^Tracing'; then
	: > "$TMP/seq.want"
	for n in 300 500 700; do
		"$CHAIN" "$n" >> "$TMP/seq.w" & p=$!
		wait "$p"
		printf 'chain_fp [%s] %s\n' "$p" "$n" >> "$TMP/seq.want"
		[ "$n" = 700 ] || sleep 3
	done
	kill -INT "$SEQ_ST"; wait "$SEQ_ST"
	awk '/^    chain_fp \[/{p=$0; sub(/^ */, "", p); getline; print p, $1}' "$TMP/seq.out" |
		sort > "$TMP/seq.counts"
	sort -o "$TMP/seq.want" "$TMP/seq.want"
	expect_file_eq agg-gone-exact "$TMP/seq.counts" "$TMP/seq.want"
	expect_eq agg-gone-never-full "$(grep -c 'its map was full' "$TMP/seq.err")" 0
	expect_eq agg-gone-deleted \
		"$(sed -n 's/^stacktap: count: .* \([0-9]*\) counts and \([0-9]*\) stacks of exited processes deleted;.*$/\1 \2/p' "$TMP/seq.err")" "2 2"
else
	fail agg-gone "tracer not attached"
fi

# 8. Stacks too deep to store (600 user frames: deeper than ST_AGG_FRAMES) travel
#    as records, ~5 KiB each, which a 4 KiB ring buffer never takes; each is
#    counted in the kernel with its user stack cut to fit, marked truncated
#    (st_agg_cut()): all 2000 counted, no drop; all but the first, which
#    goes cut as a small record, so that user space meets the key.
TABLES_READY=1 run_traced deepcut "$W/deep_nofp" 600 2000 -- count --debug --ringbuf-kb 4 \
	--max-user-depth 1024 -p @PID@ t:syscalls:sys_enter_getppid
expect_eq agg-cut-exact "$(awk '/^    [0-9]+$/ {s += $1} END {print s + 0}' "$TMP/deepcut.out")" 2000
expect_eq agg-cut-no-drop "$(grep -c ' dropped: ' "$TMP/deepcut.err")" 0
expect_eq agg-cut-counted \
	"$(sed -n 's/^stacktap: \([0-9]*\) events of those too deep to store: user stack cut.*/\1/p' "$TMP/deepcut.err")" 1999

# 9. Maps of one entry and a 4 KiB ring buffer: the second process's events find the maps
#    full, come as records while the ring has room, and what finds neither is dropped under
#    its own reason (ST_DROP_AGG_FULL), never as a plain ring-full drop: its counted events
#    and those drops make exactly its calls.
two_chains fullring 700 20000 --agg-entries 1 --ringbuf-kb 4
# counted_of N: what count said of the process that made N calls (its pid from the want file)
counted_of() {
	local pid
	pid=$(awk -v n="$1" '$3 == n {print $2}' "$TMP/fullring.want")
	awk -v p="$pid" '$2 == p {print $3}' "$TMP/fullring.counts"
}
p2_counted=$(counted_of 20000)
agg_dropped=$(sed -n 's/^stacktap: \([0-9]*\) events\{0,1\} dropped: ring buffer full and in-kernel count maps full.*/\1/p' "$TMP/fullring.err")
expect_eq agg-fullring-p1-exact "$(counted_of 700)" 700
expect_eq agg-fullring-p2-counted-or-dropped $((${p2_counted:-0} + ${agg_dropped:-0})) 20000
expect_eq agg-fullring-no-plain-ring-drop "$(grep -c 'dropped: ring buffer full (try' "$TMP/fullring.err")" 0

# 10. Counts of a superseded mappings generation are read a last time and deleted while the
#     process lives (agg_reader__read_gone(), a settle every second): dlmany opens, calls and
#     closes 20 libraries one after the other at the same address, each mapping a new
#     generation, so each library's count is superseded by the next one's. Every call is
#     counted exactly once whichever way its count was read, and most of the 20 counts went as
#     superseded before the process ended (~0.2 s a library).
DN=50000
TABLES_READY=1 run_traced stale "$W/dlmany/dlmany" "$W/dlmany" 20 $DN -- count --debug -U -p @PID@ \
	"u:$W/dlmany/dlmany:callback"
expect_eq agg-stale-exact "$(awk '/^    [0-9]+$/ {s += $1} END {print s + 0}' "$TMP/stale.out")" $((20 * DN))
expect_eq agg-stale-no-drop "$(grep -c ' dropped: ' "$TMP/stale.err")" 0
at_least agg-stale-deleted \
	"$(sed -n 's/^stacktap: count: .* \([0-9]*\) counts of superseded mappings read a last time.*/\1/p' "$TMP/stale.err")" 5

# 11. A function that keeps data in rbp, in a file without unwind tables (workloads/fpdata.c):
#     the frame-pointer walk from it reads a word of data where a return address would be,
#     another at each call. It is no frame: the stack ends at the function, marked, and every
#     call counts under that one stack in the kernel, where each made a key of its own (a
#     stored stack and a record each) while the word was kept as a frame.
TABLES_READY=1 run_traced fpdata "$W/fpdata_nocfi" 2000 -- count --debug -U -f -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq agg-fpdata-one-stack "$(cat "$TMP/fpdata.out")" \
	"fpdata_nocfi;[unwind_stopped:_return_address_not_in_code];fpdata_call 2000"
expect_eq agg-fpdata-in-kernel "$(kernel_count fpdata)" 1999
