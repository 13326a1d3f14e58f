#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every way code gets mapped (tests/workloads/layouts.mk): the chain workload linked by GNU ld,
# gold, LLD and mold, with and without frame pointers, -z separate-code and noseparate-code,
# non-PIE; libraries mapped at their link addresses as prelink did; and the vDSO. Each must
# unwind exactly, in BPF (--unwind=auto, the default) and in user space (--unwind-check walks a
# copy of every stack with the same tables and must agree on every event). One tracer run per
# case: most of a case's time is the tracer starting, so the matrix keeps to what differs.
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

# text_layout FILE: where the executable PT_LOAD starts in the file: "first-page" (offset 0,
# with the headers), "aligned" (its own page) or "unaligned" (mid-page: the mapping starts on
# a page the previous segment shares, so its pgoff is not the segment's offset).
text_layout() {
	local o
	o=$(readelf -lW "$1" | awk '$1 == "LOAD" && / R E / { print $2; exit }')
	[ -n "$o" ] || { echo none; return; }
	if ((o == 0)); then echo first-page; elif ((o % 4096)); then echo unaligned; else echo aligned; fi
}
# The matrix tests the layouts it names only while each linker still lays out so.
got=
for f in chain_bfd_nofp chain_gold_nofp chain_lld_nofp chain_mold_nofp chain_bfd_nosep_nofp \
	chain_lld_sep_nofp chain_mold_sep_nofp chain_bfd_nopie_nofp chain_lld_nopie_nofp \
	libdlchain_fixed_bfd.so libdlchain_fixed_lld.so; do
	got+="$f $(text_layout "$W/$f") "
done
expect_eq layouts-as-named "$got" "chain_bfd_nofp aligned chain_gold_nofp first-page \
chain_lld_nofp unaligned chain_mold_nofp unaligned chain_bfd_nosep_nofp first-page \
chain_lld_sep_nofp aligned chain_mold_sep_nofp aligned chain_bfd_nopie_nofp aligned \
chain_lld_nopie_nofp unaligned libdlchain_fixed_bfd.so aligned libdlchain_fixed_lld.so unaligned "

for ld in bfd gold lld mold; do
	for fp in fp nofp; do
		chain_case "chain_${ld}_$fp"
	done
done
for v in bfd_nosep lld_sep mold_sep bfd_nopie lld_nopie; do
	chain_case "chain_${v}_nofp"
done

# lib_case NAME PREFIX: libNAME.so preloaded into the non-PIE dlchain (so its mappings exist
# before the tracer starts and the BPF tables hold them); its frames' addresses must start
# with PREFIX: a prelinked library runs at its link address.
lib_case() {
	local name=$1 prefix=$2 lib=$W/lib$1.so bin=$W/dlchain_nopie got
	run_traced "$name" env LD_PRELOAD="$lib" "$bin" "$lib" $RUNS -- count -U -v --unwind-check \
		-p @PID@ "u:$bin:callback" t:syscalls:sys_enter_getppid || return
	# -v splits stacks by address; join them by name: "COUNT frame frame ...". A
	# frame reads "0xADDR NAME[ at FILE:LINE]" (-v adds lines where DWARF has them).
	got=$(awk '/^    [0-9]+$/ { n[k] += $1; k = ""; next } /^  / { k = k " " $2 }
		END { for (k in n) print n[k] k }' "$TMP/$name.out")
	expect_eq "$name" "$got" "$((2 * RUNS)) callback lib_leaf lib_mid lib_entry run main $LIBC_START"
	expect_eq "$name-check" "$(grep -E 'unwind check|stopped early' "$TMP/$name.err")" \
		"stacktap: unwind check: $((2 * RUNS)) events compared, 0 differ"
	expect_eq "$name-address" \
		"$(awk '$2 ~ /^lib_/ { print substr($1, 1, length("'"$prefix"'")) }' "$TMP/$name.out" | sort -u)" \
		"$prefix"
}

lib_case dlchain_fixed_bfd 0x4000
lib_case dlchain_fixed_lld 0x5000

# --- the vDSO -------------------------------------------------------------------

VCHAIN="main spin now_ns __clock_gettime __vdso_clock_gettime"
# A clock the vDSO cannot read: it makes the syscall itself, pc inside the vDSO. The BPF walk
# and the copy of each stack unwound in user space (--unwind-check) use the vDSO's own table.
run_traced vdso-syscall "$W/vdso_loop" -s 20 -- count -U --unwind-check -p @PID@ \
	t:syscalls:sys_enter_clock_gettime &&
	expect_eq vdso-syscall "$(cat "$TMP/vdso-syscall.out") | $(grep -E 'unwind check|stopped early' "$TMP/vdso-syscall.err")" \
		"$(stack_block __vdso_clock_gettime __clock_gettime now_ns spin main $LIBC_START 20) | stacktap: unwind check: 20 events compared, 0 differ"

# check_vdso NAME: a profile -f -U of vdso_loop (1 s of its CPU time), at 499 Hz so samples
# fall on every instruction of the vDSO (its first one and its epilogue, where frame pointers
# lie). At least 100 samples, so the test cannot pass on an empty profile.
check_vdso() {
	local name=$1 f=$TMP/$1.out total complete vdso exact
	total=$(awk '{ s += $NF } END { print s + 0 }' "$f")
	# Complete: the walk reached _start, whatever it interrupted.
	complete=$(awk '/^vdso_loop;_start;__libc_start_main;__libc_start_call_main;/ { s += $NF }
		END { print s + 0 }' "$f")
	vdso=$(awk '/__vdso_/ { s += $NF } END { print s + 0 }' "$f")
	# Exact: the chain, or the chain and one frame in a local function of the vDSO that
	# __vdso_clock_gettime calls (the vDSO exports only its entry points: a kernel whose
	# clock read is not inlined, e.g. a pvclock guest's, has one there, unnamed).
	exact=$(awk -v c="vdso_loop;_start;__libc_start_main;__libc_start_call_main;${VCHAIN// /;}" \
		'$1 == c || (index($1, c ";") == 1 &&
			     substr($1, length(c) + 2) ~ /^\[unknown\]_\(\[vdso\]\+0x[0-9a-f]+\)$/) {
			s += $NF } END { print s + 0 }' "$f")
	expect_eq "$name-complete" "$complete" "$total"
	expect_eq "$name-vdso-exact" "$exact" "$vdso"
	at_least "$name-vdso-named" $((vdso * 2)) "$total"
	expect_eq "$name-no-stops" "$(grep -c 'stopped early' "$TMP/$name.err")" 0
	at_least "$name-samples" "$total" 100
}
source "$(dirname "$0")/deferred_lib.sh" # at_least

# The profile of vdso_loop ends (SIGINT) after its loop and before it exits (run_held): samples
# of the exit itself have no user stack left to unwind, and are not what this measures.
run_held vdso-profile '^cpu_ns' "$W/vdso_loop" 1 -- profile -F 499 -f -U -p @PID@ &&
	check_vdso vdso-profile
