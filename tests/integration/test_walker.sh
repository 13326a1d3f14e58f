#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The user-stack walker (bpf/ustack.bpf.h) where stacks are not one plain
# chain: through signal frames (count at a syscall and profile, in frame
# pointer, no-frame-pointer and SFrame builds), from a sigaltstack back to
# the interrupted thread's stack, a makecontext() coroutine, Go calling C
# through cgo (system stack to goroutine stack), and return probes (ur:),
# whose trampoline the walk replaces by the real return addresses.
# Exact chains, exact counts, and no complete stack counted as stopped early.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

N=20
LIBC_START="__libc_start_call_main __libc_start_main _start"
HANDLER="h2 h1 on_alarm __restore_rt"
INTERRUPTED="spin s2 s1"

# no_early NAME: no "stopped early" line at all (every stack in the run was complete).
no_early() {
	expect_eq "$1-none-stopped-early" "$(grep '^stacktap: [0-9]* user stacks\? stopped early' "$TMP/$1.err")" ""
}

# early_matches NAME: the stopped-early lines count exactly the output stacks that end in a
# "[unwind stopped" mark (folded output of a synchronous or one-walk-per-sample run).
early_matches() {
	local lines marks
	lines=$(sed -n 's/^stacktap: \([0-9]*\) user stacks\? stopped early: .*/\1/p' "$TMP/$1.err" |
		awk '{s += $1} END {print s + 0}')
	marks=$(awk '/\[unwind_stopped:/ {s += $NF} END {print s + 0}' "$TMP/$1.out")
	expect_eq "$1-stopped-early-are-marked" "$lines" "$marks"
}

# 1. A SIGALRM handler's chain through the signal frame into the loop it
#    interrupted, down to _start: count at a syscall in the handler.
for b in fp nofp sframe; do
	run_wl "alarm-$b" "$W/sigchain_$b" alarm $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid
	expect_eq "alarm-$b-chain" "$(cat "$TMP/alarm-$b.out")" \
		"$(stack_block $HANDLER $INTERRUPTED main $LIBC_START $N)"
	no_early "alarm-$b"
done
# The same stacks deferred to the return to user space (the handler's own kernel entry).
run_wl alarm-deferred "$W/sigchain_nofp" alarm $N -- count --user-stacks=deferred -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_file_eq alarm-deferred-same "$TMP/alarm-deferred.out" "$TMP/alarm-nofp.out"
# The user-space unwinder knows the signal rule too: it agrees on every event.
run_wl alarm-check "$W/sigchain_nofp" alarm $N -- count --unwind-check -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq alarm-check "$(grep 'unwind check' "$TMP/alarm-check.err")" \
	"stacktap: unwind check: $N events compared, 0 differ"

# 2. profile: samples in the handler and in the loop it interrupts; every one of
#    them whole (a sample inside rt_sigreturn is the trampoline over the loop).
for b in fp nofp sframe; do
	name=busy-$b
	# Ended before the workload exits: a sample in exit() or in the teardown
	# of its address space (no user stack by then, marked lost by design:
	# test_profile.sh 6) is no chain through main, and not what is tested here.
	run_held "$name" '^handled' "$W/sigchain_$b" busy 250 -- profile -F 99 -f -U -p @PID@
	expect_eq "$name-rc" "$(cat "$TMP/$name.rc")" 0
	main="sigchain_$b;_start;__libc_start_main;__libc_start_call_main;main"
	handler="$main;s1;s2;spin;__restore_rt;on_alarm"
	# Every sample reaches _start; every one taken in the handler (or below it)
	# crosses the signal frame into spin.
	expect_eq "$name-all-whole" "$(awk -v m="$main" 'index($1, m) != 1 || $1 ~ /unwind_stopped/' \
		"$TMP/$name.out")" ""
	expect_eq "$name-handler-chain" "$(awk -v h="$handler" '/on_alarm/ && index($1, h) != 1' \
		"$TMP/$name.out")" ""
	at_least "$name-in-handler" "$(awk -v h="$handler;h1;h2" '$1 == h {s += $NF} END {print s + 0}' \
		"$TMP/$name.out")" 1
	no_early "$name"
done

# 3. A handler on a sigaltstack mapped above the thread's stack: the walk goes
#    down to the interrupted stack (one switch per event) and on to clone3.
run_wl altstack "$W/sigchain_nofp" altstack $N -- count --debug -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq altstack-chain "$(cat "$TMP/altstack.out")" \
	"$(stack_block $HANDLER $INTERRUPTED thread_main start_thread __GI___clone3 $N)"
expect_eq altstack-switches "$(grep -o '[0-9]* signal frames, [0-9]* stack switches' "$TMP/altstack.err")" \
	"$N signal frames, $N stack switches"
no_early altstack

# 4. A makecontext() coroutine: its stack ends at __start_context, complete.
run_wl coro "$W/coro_nofp" $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid
expect_eq coro-chain "$(cat "$TMP/coro.out")" "$(stack_block coro_leaf coro_mid coro_entry __start_context $N)"
no_early coro

# 5. Go with cgo: C runs on the system stack, the walk switches back to the
#    goroutine's stack at runtime.asmcgocall and reaches runtime.goexit.
GOCHAIN="c_leaf c_mid runtime.asmcgocall.abi0 main._Cfunc_c_mid.abi0 main.goLeaf main.goMid main.main"
GOCHAIN+=" runtime.main runtime.goexit.abi0"
run_wl go-uprobe "$W/gocgo" call $N -- count -U -p @PID@ "u:$W/gocgo:c_leaf"
expect_eq go-uprobe-chain "$(cat "$TMP/go-uprobe.out")" "$(stack_block $GOCHAIN $N)"
no_early go-uprobe
run_wl go-profile "$W/gocgo" burn 1500 -- profile -F 99 -f -U -p @PID@
total=$(awk '/;main.goLeaf;/ {s += $NF} END {print s + 0}' "$TMP/go-profile.out")
at_least go-profile-samples "$total" 10
expect_eq go-profile-reach-goexit \
	"$(awk '/;main.goLeaf;/ && $1 ~ /^gocgo;runtime.goexit.abi0;runtime.main;main.main;/ {s += $NF} END {print s + 0}' \
	   "$TMP/go-profile.out")" "$total"
early_matches go-profile

# 6. Return probes: the caller's frames exactly; pending uretprobes' trampolines
#    (b's and c's, under leaf) are replaced by the real return addresses.
CHAIN=$W/chain_fp
run_traced ret "$CHAIN" $N -- count -U -p @PID@ "ur:$CHAIN:leaf"
expect_eq uretprobe-chain "$(cat "$TMP/ret.out")" "$(stack_block c b a main $LIBC_START $N)"
run_traced nested "$CHAIN" $N -- count -U -p @PID@ "ur:$CHAIN:b" "ur:$CHAIN:c" "u:$CHAIN:leaf"
{ stack_block a main $LIBC_START $N; stack_block b a main $LIBC_START $N
  stack_block leaf c b a main $LIBC_START $N; } > "$TMP/nested.want"
expect_file_eq uretprobe-nested "$TMP/nested.out" "$TMP/nested.want"
expect_eq uretprobe-no-trampoline "$(grep -c 'uprobes\|unknown' "$TMP/nested.out")" 0
run_traced retfp "$CHAIN" $N -- count --unwind=fp -U -p @PID@ "ur:$CHAIN:c" "u:$CHAIN:leaf"
expect_eq uretprobe-fp "$(grep -c '^  b$' "$TMP/retfp.out"):$(grep -c 'uprobes\|unknown' "$TMP/retfp.out")" \
	"2:0"
run_traced retsnoop "$CHAIN" 3 -- snoop --json -U -p @PID@ "ur:$CHAIN:leaf"
expect_eq uretprobe-snoop "$(jq -c '[.probe, .user[0:3]]' "$TMP/retsnoop.out" | sort | uniq -c | sed 's/^ *//')" \
	"3 [\"ur:$CHAIN:leaf\",[\"c\",\"b\",\"a\"]]"
"$ST" count "ur:$CHAIN:no_such_symbol" > /dev/null 2> "$TMP/badret.err"
expect_eq uretprobe-bad-symbol "$?:$(cat "$TMP/badret.err")" \
	"2:stacktap: ur:$CHAIN:no_such_symbol: symbol 'no_such_symbol' not found in $CHAIN"

# 7. A frame of 40,000 bytes (CFA offset beyond 16 bits), no frame pointers:
#    the BPF walker, and the user-space unwinder of --unwind-check, walk past it.
#    One of 150,000 bytes: the BPF walker still does; the check says why it
#    cannot compare (the copy holds 64 KiB), and does not count a difference.
for b in nofp sframe huge; do
	run_wl "bigframe-$b" "$W/bigframe_$b" $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid
	expect_eq "bigframe-$b-chain" "$(cat "$TMP/bigframe-$b.out")" \
		"$(stack_block leaf big outer main $LIBC_START $N)"
	no_early "bigframe-$b"
	run_wl "bigframe-$b-check" "$W/bigframe_$b" $N -- count --unwind-check -U -p @PID@ \
		t:syscalls:sys_enter_getppid
	if [ $b = huge ]; then
		want="stacktap: unwind check: $N events not compared: their copy ends before their stack (at 64 KiB, or at a page never touched)"
	else
		want="stacktap: unwind check: $N events compared, 0 differ"
	fi
	expect_eq "bigframe-$b-check" "$(grep 'unwind check' "$TMP/bigframe-$b-check.err")" "$want"
done
