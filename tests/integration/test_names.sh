#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Names people read, on real traced workloads with known chains (docs/names.md):
# demangled C++ (text, folded, snoop JSON) and Rust (legacy, v0), --no-demangle;
# inline frames and --lines from DWARF; JIT code named by /tmp/perf-PID.map
# (trusted only when its owner is the process's, and found inside another pid and
# mount namespace); Go stripped of .symtab named from .gopclntab; MiniDebugInfo;
# the vDSO.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/names_lib.sh"

N=5
SRC="$ROOT/tests/workloads"
LIBC_START="__libc_start_call_main __libc_start_main _start"
chain_block() { local c=$1; shift; stack_block "$@" "$c"; } # COUNT FRAMES...
# The perf maps JIT workloads leave behind, by their pid only (others' are not ours).
rm_map() { rm -f "/tmp/perf-$1.map"; }
wl_pid() { awk '$1 == "ready" {print $2}' "$TMP/$1.w"; }

# 1. C++: a template, a virtual call, std::function and a lambda; the uprobe is
#    at app::leaf(int), the chain is exact in text, folded and snoop's JSON.
run_traced cxx "$CXX" $N -- count -U -p @PID@ "u:$CXX:$CXX_LEAF"
expect_eq cxx-text "$(cat "$TMP/cxx.out")" "$(chain_block $N "${CXX_CHAIN[@]}")"

run_traced cxxf "$CXX" $N -- count -U -f -p @PID@ "u:$CXX:$CXX_LEAF"
# Folded: root first, no " (inlined)" (-a marks them), blanks as "_" as flamegraph.pl wants.
folded=$(printf '%s\n' "${CXX_CHAIN[@]}" | sed 's/ (inlined)$//; s/ /_/g' | tac | paste -sd';')
expect_eq cxx-folded "$(cat "$TMP/cxxf.out")" "cxx_names;$folded $N"

run_traced cxxj "$CXX" $N -- snoop --json -U -p @PID@ "u:$CXX:$CXX_LEAF"
want=$(printf '%s\n' "${CXX_CHAIN[@]}" | jq -R . | jq -sc .)
expect_eq cxx-json "$(jq -c .user "$TMP/cxxj.out" | sort | uniq -c | sed 's/^ *//')" "$N $want"

# --no-demangle: the symbols as the tables have them (DWARF's inline names are not mangled).
run_traced cxxm "$CXX" $N -- count -U --no-demangle -p @PID@ "u:$CXX:$CXX_LEAF"
expect_eq cxx-no-demangle "$(cat "$TMP/cxxm.out")" "$(chain_block $N "$CXX_LEAF" \
	_ZZ4mainENKUliE_clEi \
	"__invoke_impl<long int, main(int, char**)::<lambda(int)>&, int> (inlined)" \
	"__invoke_r<long int, main(int, char**)::<lambda(int)>&, int> (inlined)" \
	_ZNSt17_Function_handlerIFliEZ4mainEUliE_E9_M_invokeERKSt9_Any_dataOi \
	"_ZNKSt8functionIFliEEclEi (inlined)" \
	_ZNK3app6Square4areaERKSt8functionIFliEE \
	_ZN3app3RecINS_5ShapeELi12EE2goERKS1_iRKSt8functionIFliEE \
	main $LIBC_START)"

# 2. Rust, legacy and v0 mangling: the fixtures linked as libraries, traced at
#    <Square as Area>::area (two squares per call).
V0_AREA=_RNvXNtCsd7U9rWHuKO9_5names6shapesNtB2_6SquareNtB2_4Area4area
LEGACY_AREA='_ZN61_$LT$names..shapes..Square$u20$as$u20$names..shapes..Area$GT$4area17h299ac83e0c87a0adE'
run_traced rustv0 "$W/rust_names" "$W/librust_v0.so" $N -- \
	count -U -p @PID@ "u:$W/librust_v0.so:$V0_AREA"
expect_eq rust-v0 "$(cat "$TMP/rustv0.out")" "$(chain_block $((2 * N)) \
	"<names::shapes::Square as names::shapes::Area>::area" \
	"names::shapes::total::<names::shapes::Square>" names_entry main $LIBC_START)"
run_traced rustlg "$W/rust_names" "$W/librust_legacy.so" $N -- \
	count -U -p @PID@ "u:$W/librust_legacy.so:$LEGACY_AREA"
expect_eq rust-legacy "$(cat "$TMP/rustlg.out")" "$(chain_block $((2 * N)) \
	"<names::shapes::Square as names::shapes::Area>::area" \
	names::shapes::total names_entry main $LIBC_START)"

# 3. Inline frames (-O2 -g): in_b2 and in_b inlined into in_a stand between
#    in_a and in_c; --lines gives each frame the line of its call.
run_traced inl "$W/inline" $N -- count -U -p @PID@ "u:$W/inline:in_leaf"
expect_eq inline-chain "$(cat "$TMP/inl.out")" \
	"$(chain_block $N in_leaf in_c "in_b2 (inlined)" "in_b (inlined)" in_a main $LIBC_START)"
run_traced inll "$W/inline" $N -- count -U --lines -p @PID@ "u:$W/inline:in_leaf"
I=$SRC/inline.c
expect_eq inline-lines "$(sed -n '1,6p' "$TMP/inll.out")" "$(printf '  %s\n' \
	"in_leaf at $I:23" "in_c at $I:28" "in_b2 (inlined) at $I:35" "in_b (inlined) at $I:42" \
	"in_a at $I:49" "main at $I:64")"
# -v shows lines too, and the address of each real frame (inline frames have none of their own).
run_traced inlv "$W/inline" 1 -- count -U -v -p @PID@ "u:$W/inline:in_leaf"
expect_eq inline-verbose "$(sed -n '3,5p' "$TMP/inlv.out" | sed 's/^  0x[0-9a-f]* /  ADDR /')" \
	"$(printf '  %s\n' "in_b2 (inlined) at $I:35" "in_b (inlined) at $I:42" "ADDR in_a at $I:49")"

# 4. JIT: code in an anonymous page, named by the /tmp/perf-PID.map the workload
#    writes; the walk goes on through it (frame pointers there) to main.
run_traced jit "$W/jit_fp" -m $N -- count -U -p @PID@ "u:$W/jit_fp:jit_leaf"
rm_map "$(wl_pid jit)"
expect_eq jit-perf-map "$(cat "$TMP/jit.out")" \
	"$(chain_block $N jit_leaf jit_inner jit_outer main $LIBC_START)"
# Each event named as it comes (snoop) reads the same.
run_traced jits "$W/jit_fp" -m 2 -- snoop --json -U -p @PID@ "u:$W/jit_fp:jit_leaf"
rm_map "$(wl_pid jits)"
expect_eq jit-snoop "$(jq -r '.user | join(" ")' "$TMP/jits.out" | sort | uniq -c | sed 's/^ *//')" \
	"2 jit_leaf jit_inner jit_outer main $LIBC_START"

# A map someone else owns is not trusted: one warning, the frames stay unknown.
jit_untrusted() {
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"$W/jit_fp" -m 2 "$TMP/go" > "$TMP/jitu.w" & local wpid=$!
	ST_PIDS+=("$wpid")
	wait_for_line "$TMP/jitu.w" '^ready' || { fail jit-untrusted "workload not ready"; return; }
	chown nobody "/tmp/perf-$wpid.map"
	"$ST" count -U -p "$wpid" "u:$W/jit_fp:jit_leaf" > "$TMP/jitu.out" 2> "$TMP/jitu.err" &
	local spid=$!
	ST_PIDS+=("$spid")
	wait_for_line "$TMP/jitu.err" '^Tracing' || { fail jit-untrusted "tracer not attached"; return; }
	release "$TMP/go"
	wait "$wpid" "$spid"
	rm_map "$wpid"
	expect_eq jit-untrusted "$(cat "$TMP/jitu.out") | $(grep -c 'perf-map: .*owned by uid' "$TMP/jitu.err")" \
		"$(chain_block 2 jit_leaf "[unknown] ([anon])" "[unknown] ([anon])" main $LIBC_START) | 1"
}
jit_untrusted

# The same inside its own pid and mount namespaces, with its own /tmp: the map is
# /proc/PID/root/tmp/perf-NSPID.map, whose pid is not the one we see.
jit_container() {
	local exe=/dev/shm/stacktap-names-jit_fp-$$
	run_jit_container jitc "$exe" -- count -U -p @PID@ "u:$exe:jit_leaf" || { rm -f "$exe"; return; }
	rm -f "$exe"
	expect_eq jit-container-nspid "$(wl_pid jitc)" 1
	expect_eq jit-container "$(cat "$TMP/jitc.out")" \
		"$(chain_block 3 jit_leaf jit_inner jit_outer main $LIBC_START)"
}
jit_container

# 5. Go stripped of .symtab, a plain executable and a PIE: names from .gopclntab.
#    Without tables the walk is by frame pointers, which main.leaf and
#    syscall.Getppid set up no frame for at the syscall: it goes from the syscall
#    stub to main.work. The unstripped build has .symtab (its ABI wrappers end in
#    .abi0) and DWARF, but Go's .debug_frame is not used (lib/unwind/sources.c):
#    it walks by frame pointers too, so main.leaf is not reached either; main.step,
#    inlined into main.work where the walk returns, is a frame of its own (DWARF).
for go in go_names_stripped go_names_pie; do
	run_traced "$go" "$W/$go" $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid
	expect_eq "$go" "$(cat "$TMP/$go.out")" "$(chain_block $N syscall.rawSyscallNoError \
		main.work main.main runtime.main runtime.goexit)"
done
run_traced go_names "$W/go_names" $N -- count -U -p @PID@ t:syscalls:sys_enter_getppid
expect_eq go_names "$(cat "$TMP/go_names.out")" "$(chain_block $N syscall.rawSyscallNoError.abi0 \
	"main.step (inlined)" main.work main.main runtime.main runtime.goexit.abi0)"

# 6. A Fedora-style stripped PIE: md_leaf from .dynsym, the static md_inner and
#    md_outer (and main) only from the MiniDebugInfo in .gnu_debugdata.
run_traced mini "$W/minidebug" $N -- count -U -p @PID@ "u:$W/minidebug:md_leaf"
expect_eq minidebug "$(cat "$TMP/mini.out")" \
	"$(chain_block $N md_leaf md_inner md_outer main $LIBC_START)"

# 7. The vDSO: a system call made from inside it, named from the vDSO image.
run_traced vdso "$W/vdso_clock" $N -- count -U -p @PID@ t:syscalls:sys_enter_clock_gettime
expect_eq vdso "$(cat "$TMP/vdso.out")" \
	"$(chain_block $N __vdso_clock_gettime __clock_gettime tick main $LIBC_START)"
