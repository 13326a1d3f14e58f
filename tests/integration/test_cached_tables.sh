#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The BPF walker on unwind tables loaded from the table cache (lib/unwind/table_cache.c):
# the qsort chain through libc without frame pointers, traced twice in a fresh cache of
# this test's own. The first run builds every table and saves it; the second loads every
# one of them (--debug's cache line says how many) and gives exactly the same stacks, each
# checked against a user-space unwind of a copy of the same stack (--unwind-check), and
# the exact chain (qsort_r's merge step is inlined into it: libc6-dbg's DWARF says so).
source "$(dirname "$0")/lib.sh"

RUNS=10
export STACKTAP_CACHE_DIR=$TMP/cache

cache_line() { grep -E '^stacktap: table cache: (off \(|.* tables loaded)' "$TMP/$1.err"; }

for build in nofp sframe dwarf_split; do
	bin=$W/qsort_chain_$build
	rm -rf "$STACKTAP_CACHE_DIR"
	for run in built loaded; do
		TABLES_READY=1 run_traced "$build-$run" "$bin" -n $RUNS -g -- count --debug -U \
			--unwind=table --unwind-check -p @PID@ "u:$bin:leaf" t:syscalls:sys_enter_getppid
		expect_eq "$build-$run-check" "$(grep 'unwind check' "$TMP/$build-$run.err")" \
			"stacktap: unwind check: $((2 * RUNS)) events compared, 0 differ"
	done
	n=$(cache_line "$build-built" | sed -n 's/.* 0 tables loaded, \([0-9]*\) built and saved, 0 damaged.*/\1/p')
	at_least "$build-tables-saved" "${n:-0}" 3 # the program, libc, ld.so (and the vDSO)
	expect_eq "$build-tables-loaded" "$(cache_line "$build-loaded")" \
		"stacktap: table cache: $STACKTAP_CACHE_DIR/unwind: ${n:-?} tables loaded, 0 built and saved, 0 damaged files rebuilt"
	expect_eq "$build-loaded-says-libc" \
		"$(grep -c 'unwind: /usr/lib/x86_64-linux-gnu/libc.so.6: table loaded from the cache' "$TMP/$build-loaded.err")" 1
	expect_file_eq "$build-same-stacks" "$TMP/$build-loaded.out" "$TMP/$build-built.out"
	stack_block leaf c compare msort_with_tmp.part.0 "msort_with_tmp (inlined)" qsort_r b a main \
		__libc_start_call_main __libc_start_main _start $((2 * RUNS)) > "$TMP/want"
	expect_file_eq "$build-whole-chain" "$TMP/$build-loaded.out" "$TMP/want"
done
