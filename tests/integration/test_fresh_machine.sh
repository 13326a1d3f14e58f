#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A fresh machine: tracefs and debugfs not mounted (tests/fresh-ns.sh makes a
# private mount namespace so; the machine's own mounts are untouched).
# `make demo`'s script prints the demo's stacks there and exits 0, mounting
# tracefs itself; and when the machine cannot be prepared, every capturing
# command says why in one line, exits 1, prints nothing else.
source "$(dirname "$0")/lib.sh"
FRESH=$ROOT/tests/fresh-ns.sh
CHAIN="busy_nofp;_start;__libc_start_main;__libc_start_call_main;main;b1;b2;b3;spin"

# 1. The demo, as `make demo` runs it.
"$FRESH" bash -c 'echo "before $(grep -c tracefs /proc/self/mounts)"
	"$1/tests/demo.sh" "$2"; echo "demo-rc $?"
	echo "after $(awk '\''$3 == "tracefs" { print $2 }'\'' /proc/self/mounts)"' \
	fresh "$ROOT" "$O" > "$TMP/demo.out" 2> "$TMP/demo.err"
expect_eq demo-fresh-no-tracefs "$(grep '^before ' "$TMP/demo.out")" "before 0"
expect_eq demo-fresh-exit "$(grep '^demo-rc ' "$TMP/demo.out")" "demo-rc 0"
expect_eq demo-fresh-mounted-tracefs "$(grep '^after ' "$TMP/demo.out")" "after /sys/kernel/tracing"
# The text profile's most frequent stack (printed last) is the whole chain; the folded one has it.
expect_eq demo-fresh-text-chain \
	"$(sed -n '1,/^== the same as folded/p' "$TMP/demo.out" |
	   awk '/^    [0-9]+$/ {last = s; s = ""; next} /^  / {s = s $1 " "} END {print last}')" \
	"spin b3 b2 b1 main __libc_start_call_main __libc_start_main _start "
expect_eq demo-fresh-folded-chain "$(grep -cE "^$CHAIN [0-9]+$" "$TMP/demo.out")" 1
# Both profiles ran (stderr also holds their loss summaries, which vary).
expect_eq demo-fresh-both-ran "$(grep -c '^Sampling at 99 Hz on ' "$TMP/demo.err")" 2

# 2. What cannot be prepared: one line naming the thing and why, exit 1,
#    nothing on stdout, for every command that loads BPF.
commands=("count t:syscalls:sys_enter_getppid" "snoop t:syscalls:sys_enter_getppid" "profile 1" "offcpu 1")
# expect_prepare NAME LINE -- WRAPPER...: each command run under WRAPPER.
expect_prepare() {
	local name=$1 line=$2 c got=; shift 3
	for c in "${commands[@]}"; do
		"$@" "$ST" $c > "$TMP/p.out" 2> "$TMP/p.err"
		got+="$? $(cat "$TMP/p.err")|$(cat "$TMP/p.out");"
	done
	expect_eq "$name" "$got" "$(for c in "${commands[@]}"; do printf '1 %s|;' "$line"; done)"
}
# setpriv gives up privileges for good before it runs stacktap.
expect_prepare unprivileged "stacktap: tracing needs root: CAP_SYS_ADMIN is missing" \
	-- setpriv --reuid=nobody --regid=nogroup --clear-groups
expect_prepare bpf-perfmon-only \
	"stacktap: tracing needs root: CAP_SYS_ADMIN is missing (CAP_BPF and CAP_PERFMON are not enough: loading lists the kernel's BTF objects, which needs it)" \
	-- setpriv --bounding-set=-sys_admin
# No kernel BTF: an empty directory bound over /sys/kernel/btf.
mkdir "$TMP/empty"
expect_prepare no-btf \
	"stacktap: /sys/kernel/btf/vmlinux: No such file or directory: the kernel has no BTF, which the BPF programs are relocated against (CONFIG_DEBUG_INFO_BTF=y)" \
	-- "$FRESH" bash -c 'mount --bind "$0" /sys/kernel/btf && exec "$@"' "$TMP/empty"
# Nowhere to mount tracefs: /sys/kernel is an empty tmpfs but for btf/.
expect_prepare no-tracefs \
	"stacktap: tracefs: not mounted at /sys/kernel/tracing or /sys/kernel/debug/tracing, and mounting it at /sys/kernel/tracing failed: No such file or directory" \
	-- "$FRESH" bash -c 'mkdir -p "$0/btf" && mount --bind /sys/kernel/btf "$0/btf" &&
		mount -t tmpfs none /sys/kernel && mkdir /sys/kernel/btf &&
		mount --bind "$0/btf" /sys/kernel/btf && exec "$@"' "$TMP/keep"
expect_nothing_left nothing-left-attached

# 3. The build says the same where it generates vmlinux.h.
"$FRESH" bash -c 'mount --bind "$0" /sys/kernel/btf && exec make -s -C "$1" O="$2" "$2/vmlinux.h"' \
	"$TMP/empty" "$ROOT" "$TMP/build" > "$TMP/make.out" 2>&1
expect_eq build-no-btf "$?:$(grep '^make: /sys' "$TMP/make.out")" \
	"2:make: /sys/kernel/btf/vmlinux: missing: this kernel has no BTF, which the BPF programs are compiled against (CONFIG_DEBUG_INFO_BTF=y)"
