#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/skel-shape.sh SKEL OTHER NAME: do the skeletons SKEL (of NAME) and
# OTHER (of NAME_<variant>) describe the same maps, programs and variables,
# at the same offsets? lib/session/skel_open.h opens a variant's ELF bytes
# through NAME's skeleton, so they must: a variable the other build placed
# elsewhere would be written at the wrong offset, silently. Everything but
# the ELF bytes must read the same once the variant's name is NAME's.
set -eu
skel=$1 other=$2 name=$3
# The skeleton up to its ELF bytes: the structs and the code that fills them.
shape() { sed -n '/__elf_bytes(size_t \*sz)$/q; p' "$1"; }
variant=$(sed -n "s/^struct \(${name}_[a-z0-9]*\) {$/\1/p" "$other" | head -n 1)
[ -n "$variant" ] || { echo "skel-shape: $other: no struct ${name}_*" >&2; exit 1; }
up=$(echo "$name" | tr a-z A-Z) vup=$(echo "$variant" | tr a-z A-Z)
if ! shape "$other" |
	sed "s/\b$variant\b/$name/g; s/\b${variant}__/${name}__/g; s/__${vup}_SKEL_H__/__${up}_SKEL_H__/" |
	diff -u "$(shape "$skel" > "$other.shape" && echo "$other.shape")" - > "$other.diff"; then
	echo "skel-shape: $other: $variant differs in shape from $name (maps, programs or" \
	     "variables): see $other.diff" >&2
	rm -f "$other" "$other.shape"
	exit 1
fi
rm -f "$other.shape" "$other.diff"
