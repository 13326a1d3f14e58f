#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every way code gets mapped (tests/workloads/layouts.mk): the chain workload linked by GNU ld,
# gold, LLD and mold, with and without frame pointers, -z separate-code and noseparate-code,
# non-PIE, at fixed addresses; a library linked by LLD and libraries mapped at their link
# addresses as prelink did. Each must unwind exactly, in BPF (--unwind=auto,
# the default) and in user space (--unwind-check walks a copy of every stack with the same
# tables and must agree on every event).
source "$(dirname "$0")/lib.sh"

LIBC_START="__libc_start_call_main __libc_start_main _start"
RUNS=5

# chain_case NAME: chain.c built as $W/NAME, a uprobe on leaf and the getppid tracepoint.
chain_case() {
	local name=$1 bin=$W/$1
	run_traced "$name" "$bin" $RUNS -- count -U --unwind-check -p @PID@ "u:$bin:leaf" \
		t:syscalls:sys_enter_getppid || return
	expect_eq "$name" "$(cat "$TMP/$name.out")" \
		"$(stack_block leaf c b a main $LIBC_START $((2 * RUNS)))"
	expect_eq "$name-check" "$(grep -E 'unwind check|stopped early' "$TMP/$name.err")" \
		"stacktap: unwind check: $((2 * RUNS)) events compared, 0 differ"
}

for ld in bfd gold lld mold; do
	for fp in fp nofp; do
		chain_case "chain_${ld}_$fp"
	done
done
for v in bfd_nosep lld_sep mold_sep bfd_nopie gold_nopie lld_nopie bfd_fixed lld_basepie; do
	chain_case "chain_${v}_nofp"
done
# The fixed-address executable runs where it was linked.
expect_eq chain-fixed-address "$("$ST" unwind-table --summary "$W/chain_bfd_fixed_nofp" |
	sed -n 's/^base: //p')" 0x20001000

# lib_case NAME PREFIX: libNAME.so preloaded into the non-PIE dlchain (so its mappings exist
# before the tracer starts and the BPF tables hold them); its frames' addresses must start
# with PREFIX (a prelinked library runs at its link address) when one is given.
lib_case() {
	local name=$1 prefix=$2 lib=$W/lib$1.so bin=$W/dlchain_nopie got
	run_traced "$name" env LD_PRELOAD="$lib" "$bin" "$lib" $RUNS -- count -U -v --unwind-check \
		-p @PID@ "u:$bin:callback" t:syscalls:sys_enter_getppid || return
	# -v splits stacks by address; join them by name: "COUNT frame frame ...".
	got=$(awk '/^    [0-9]+$/ { n[k] += $1; k = ""; next } /^  / { k = k " " $NF }
		END { for (k in n) print n[k] k }' "$TMP/$name.out")
	expect_eq "$name" "$got" "$((2 * RUNS)) callback lib_leaf lib_mid lib_entry run main $LIBC_START"
	expect_eq "$name-check" "$(grep -E 'unwind check|stopped early' "$TMP/$name.err")" \
		"stacktap: unwind check: $((2 * RUNS)) events compared, 0 differ"
	[ -n "$prefix" ] && expect_eq "$name-address" \
		"$(awk '$2 ~ /^lib_/ { print substr($1, 1, length("'"$prefix"'")) }' "$TMP/$name.out" | sort -u)" \
		"$prefix"
}

lib_case dlchain_lld ""
lib_case dlchain_fixed_bfd 0x4000
lib_case dlchain_fixed_lld 0x5000
