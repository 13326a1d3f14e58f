#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernels/initramfs.sh STACKTAP WORKLOAD_DIR OUT_DIR: the initramfs the
# kernel matrix boots every kernel with (tests/kernels/run.sh).
#
# OUT_DIR/root/ is the guest's whole file system and OUT_DIR/initramfs.cpio.gz
# its archive: busybox-static (every applet a link), STACKTAP as /st/stacktap,
# the workloads the checks need (tests/kernels/checks.sh --workloads) from
# WORKLOAD_DIR as /w/NAME, every shared library `ldd` names for them at the
# path it names (the dynamic loader too), the separate debug files of those
# libraries that /usr/lib/debug/.build-id holds (libc's names its static
# functions, __libc_start_call_main among them), guest-init.sh as /init and
# checks.sh as /checks.sh. No kernel modules: Debian's cloud kernels have
# BPF, BTF, uprobes, tracefs and the 8250 console built in, and the results
# leave by the console. OUT_DIR/root is kept: the host's `stacktap report`
# of a guest's recording finds the guest's files there (--symfs).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}

say() { echo "kernels: $*" >&2; }
die() { say "$*"; exit 1; }

# copy_file SRC ROOT [DEST]: SRC (symlinks followed) at DEST (default: SRC's
# own path) under ROOT.
copy_file() {
	local dest=$2${3:-$1}
	mkdir -p "$(dirname "$dest")"
	cp -L "$1" "$dest"
}

# libs_of ELF: the absolute paths of the shared objects ldd says ELF loads.
libs_of() {
	ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}

# debug_file_of ELF: its separate debug file by build ID, if the host has it.
debug_file_of() {
	local id f
	id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
	[ -n "$id" ] || return 0
	f=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	[ -e "$f" ] && echo "$f"
	return 0
}

# add_elf ELF ROOT DEST: ELF at DEST, with its libraries and their debug files.
add_elf() {
	local lib dbg
	copy_file "$1" "$2" "$3"
	for lib in $(libs_of "$1"); do
		[ -e "$2$lib" ] && continue
		copy_file "$lib" "$2"
		dbg=$(debug_file_of "$lib")
		[ -z "$dbg" ] || copy_file "$dbg" "$2"
	done
}

# add_busybox ROOT: the static busybox and a link for each of its applets.
add_busybox() {
	local a
	[ -x "$BUSYBOX" ] || die "$BUSYBOX: missing (apt-get install busybox-static)"
	! ldd "$BUSYBOX" > /dev/null 2>&1 ||
		die "$BUSYBOX: not statically linked (apt-get install busybox-static)"
	copy_file "$BUSYBOX" "$1" /bin/busybox
	for a in $("$BUSYBOX" --list); do
		[ "$a" = busybox ] || ln -sf busybox "$1/bin/$a"
	done
}

main() {
	[ $# -eq 3 ] || { echo "usage: $0 STACKTAP WORKLOAD_DIR OUT_DIR" >&2; exit 2; }
	local st=$1 wdir=$2 out=$3 root w
	[ -x "$st" ] || die "$st: no stacktap binary"
	root=$out/root
	rm -rf "$root"
	mkdir -p "$root"/{proc,sys,dev,tmp,root,st,w,etc}
	add_busybox "$root"
	add_elf "$st" "$root" /st/stacktap
	for w in $(sh "$HERE/checks.sh" --workloads); do
		[ -x "$wdir/$w" ] || die "$wdir/$w: missing (make workloads)"
		add_elf "$wdir/$w" "$root" "/w/$w"
	done
	cp "$HERE/guest-init.sh" "$root/init"
	cp "$HERE/checks.sh" "$root/checks.sh"
	chmod 755 "$root/init" "$root/checks.sh"
	# The kernel opens /dev/console for /init before any devtmpfs is mounted.
	mknod -m 600 "$root/dev/console" c 5 1
	mknod -m 666 "$root/dev/null" c 1 3
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 > "$out/initramfs.cpio.gz.new"
	mv "$out/initramfs.cpio.gz.new" "$out/initramfs.cpio.gz"
	say "initramfs: $out/initramfs.cpio.gz ($(du -k "$out/initramfs.cpio.gz" | cut -f1) KiB," \
		"$(find "$root" -type f | wc -l) files)"
}

main "$@"
