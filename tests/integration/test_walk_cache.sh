#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The exact walk cache (bpf/ucache.bpf.h): a task's walk is reused only when
# its registers and every stack word the last walk read are the same. The
# workload (tests/workloads/walkcache.c) makes its system call with the same
# registers from two chains (a a b a a b ...), told apart only by return
# addresses on the stack: each chain must be counted exactly, and exactly
# the walks that follow one of the same chain are hits (N/3), in table,
# auto and frame-pointer walks; every other walk but the first takes the
# frames from main out from the walk before (a splice: main's caller stands
# at the same place in both chains). Without task storage (the probe told to say
# so) the cache is left out: the same exact chains, no hits, one line saying so.
source "$(dirname "$0")/lib.sh"

N=3000
LIBC_START="__libc_start_call_main __libc_start_main _start"

# expect_chains NAME MODE: the two chains, a third of the calls through via_b.
# Debian's libc has no frame pointers: a frame-pointer walk ends in it.
expect_chains() {
	local name=$1 mode=$2 outer=($LIBC_START)
	[ "$mode" = fp ] &&
		outer=(__libc_start_call_main "[unwind stopped: no unwind row and no valid frame pointer]")
	expect_eq "$name-chains" "$(cat "$TMP/$name.out")" \
		"$(stack_block leaf via_b main "${outer[@]}" $((N / 3)))

$(stack_block leaf via_a main "${outer[@]}" $((2 * N / 3)))"
}

for case in nofp:table nofp:auto fp:fp fp:table; do
	build=${case%:*} mode=${case#*:}
	name=walkcache-$build-$mode
	TABLES_READY=$([ "$mode" = fp ] || echo 1) # fp mode loads no tables
	run_traced "$name" "$W/walkcache_$build" $N -- count --debug -U --user-stacks=sync \
		--unwind="$mode" -p @PID@ t:syscalls:sys_enter_getppid || continue
	expect_chains "$name" "$mode"
	expect_eq "$name-hits" "$(grep -o 'walk cache: .*' "$TMP/$name.err")" \
		"walk cache: $((N / 3)) hits, $((N - N / 3)) walks kept, 0 not keepable, $((N - N / 3 - 1)) spliced"
done

# -w: the second chain goes through via_w, whose larger frame puts the system call
# at another sp. The walks after one of the same chain are hits again, and the
# splices, now onto a walk from another sp, move the words they take over.
for case in nofp:table nofp:auto fp:fp; do
	build=${case%:*} mode=${case#*:}
	name=walkcache-wide-$build-$mode
	TABLES_READY=$([ "$mode" = fp ] || echo 1)
	run_traced "$name" "$W/walkcache_$build" -w $N -- count --debug -U --user-stacks=sync \
		--unwind="$mode" -p @PID@ t:syscalls:sys_enter_getppid || continue
	outer=($LIBC_START)
	[ "$mode" = fp ] &&
		outer=(__libc_start_call_main "[unwind stopped: no unwind row and no valid frame pointer]")
	expect_eq "$name-chains" "$(cat "$TMP/$name.out")" \
		"$(stack_block leaf via_w main "${outer[@]}" $((N / 3)))

$(stack_block leaf via_a main "${outer[@]}" $((2 * N / 3)))"
	expect_eq "$name-hits" "$(grep -o 'walk cache: .*' "$TMP/$name.err")" \
		"walk cache: $((N / 3)) hits, $((N - N / 3)) walks kept, 0 not keepable, $((N - N / 3 - 1)) spliced"
done

# The fallback: the run-time probe pretends the kernel has no task storage.
for case in nofp:table fp:fp; do
	build=${case%:*} mode=${case#*:}
	name=walkcache-off-$build-$mode
	TABLES_READY=$([ "$mode" = fp ] || echo 1)
	STACKTAP_TEST_NO_TASK_STORAGE=1 run_traced "$name" "$W/walkcache_$build" $N -- count --debug \
		-U --user-stacks=sync --unwind="$mode" -p @PID@ t:syscalls:sys_enter_getppid || continue
	expect_chains "$name" "$mode"
	expect_eq "$name-hits" "$(grep -o 'walk cache: .*' "$TMP/$name.err")" \
		"walk cache: 0 hits, 0 walks kept, 0 not keepable, 0 spliced"
	expect_eq "$name-said" "$(grep -c '^stacktap: walk cache off (STACKTAP_TEST_NO_TASK_STORAGE=1)' \
		"$TMP/$name.err")" 1
done

# Without task storage the cache's maps are not created at all: no task-storage map
# (BPF_MAP_TYPE_TASK_STORAGE, 29) among the tracer's file descriptors; with it, one.
task_storage_maps() {
	local fd n=0
	for fd in /proc/"$1"/fdinfo/*; do
		grep -q "^map_type:[[:space:]]*29$" "$fd" 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}
for fake in 0 1; do
	name=walkcache-maps-$fake
	STACKTAP_TEST_NO_TASK_STORAGE=$fake "$ST" count -U --user-stacks=sync \
		t:syscalls:sys_enter_getppid > "$TMP/$name.out" 2> "$TMP/$name.err" &
	spid=$!; ST_PIDS+=("$spid")
	if wait_for_line "$TMP/$name.err" '^Tracing'; then
		expect_eq "$name" "$(task_storage_maps "$spid")" "$((1 - fake))"
	else
		fail "$name" "tracer not attached: $(cat "$TMP/$name.err")"
	fi
	kill -INT "$spid"; wait "$spid"
done
