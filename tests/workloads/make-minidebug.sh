#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make-minidebug.sh IN OUT: strip IN into OUT the way Fedora ships binaries, with
# MiniDebugInfo: the function symbols that .dynsym lacks, in a small ELF, xz-compressed
# into .gnu_debugdata. The steps are those of add_minidebug in Fedora's
# find-debuginfo.sh (debugedit), with binutils 2.40 and xz-utils 5.4 here.
set -eu
in=$1 out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objcopy --only-keep-debug "$in" "$tmp/debug"
nm -D "$in" --format=posix --defined-only | awk '{ print $1 }' | sort > "$tmp/dynsyms"
nm "$tmp/debug" --format=posix --defined-only |
	awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' | sort > "$tmp/funcsyms"
comm -13 "$tmp/dynsyms" "$tmp/funcsyms" > "$tmp/keep"
objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$tmp/keep" "$tmp/debug" "$tmp/mini"
xz "$tmp/mini"
strip --strip-all -o "$tmp/stripped" "$in"
objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$tmp/stripped" "$out"
