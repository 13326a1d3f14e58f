#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Checks the SFrame reader against objdump --sframe: every FRE of every FDE, as rows.
#
# Needs $O/tests/test_sframe (the dumper) and $O/workloads/sframe_demo{,.o}; also builds a
# few variants of the demo into $TMP. No root. Run: O=build bash tests/scripts/test_sframe.sh
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
DUMP="$ROOT/$O/tests/test_sframe"
SRC="$ROOT/tests/workloads/sframe_demo.c"

# objdump's FRE table turned into the rows we must produce (same text as test_sframe
# --dump): PCINC FREs at their pc; PCMASK FDEs as one PLT row when they are the standard
# pltN pattern, otherwise expanded over 16-byte blocks (v1 has no repeat size); a NONE
# row at the end of each FDE of nonzero size.
objdump_rows() {
	objdump --sframe "$1" | awk '
	function unhex(s,   v, i, c) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	function hex(v,   s) {
		if (v == 0) return "0"
		s = ""
		while (v > 0) { s = substr("0123456789abcdef", v % 16 + 1, 1) s; v = int(v / 16) }
		return "0x" s
	}
	function row(pc, i,   m, base, off, fp) {
		if (ra[i] == "undefined") return hex(pc) " outermost 0 undefined 0"
		if (!match(cfa[i], /^(sp|fp)/)) return hex(pc) " unsupported 0 undefined 0"
		base = substr(cfa[i], 1, 2) == "sp" ? "rsp" : "rbp"
		off = substr(cfa[i], 3) + 0
		# Beyond 16 bits a row keeps the offset in 8-byte units (rsp8/rbp8).
		if (off < -32768 || off > 32767) {
			if (off % 8 != 0 || off / 8 < -32768 || off / 8 > 32767)
				return hex(pc) " unsupported 0 undefined 0"
			base = base "8"
			off = off / 8
		}
		if (fpr[i] == "u") return hex(pc) " " base " " off " same 0"
		fp = substr(fpr[i], 2) + 0
		if (fp % 8 != 0 || fp / 8 < -128 || fp / 8 > 127)
			return hex(pc) " unsupported 0 undefined 0"
		return hex(pc) " " base " " off " saved " fp / 8
	}
	function flush(   i, k) {
		if (!infde || size == 0) { infde = 0; return }
		if (!mask) {
			for (i = 0; i < n; i++) print row(start[i], i)
		} else if (n == 2 && start[0] == 0 && cfa[0] == "sp+8" && fpr[0] == "u" &&
			   start[1] == 11 && cfa[1] == "sp+16" && fpr[1] == "u" && pc % 16 == 0) {
			print hex(pc) " plt 0 same 0"
		} else {
			for (k = 0; k * 16 < size; k++)
				for (i = 0; i < n; i++)
					if (k * 16 + start[i] < size) print row(pc + k * 16 + start[i], i)
		}
		print hex(pc + size) " none 0 undefined 0"
		infde = 0
	}
	/func idx \[/ {
		flush()
		line = $0; sub(/.*pc = /, "", line); sub(/,.*/, "", line); pc = unhex(line)
		line = $0; sub(/.*size = /, "", line); size = line + 0
		infde = 1; mask = 0; n = 0; next
	}
	/STARTPC\[m\]/ { mask = 1; next }
	infde && $1 ~ /^[0-9a-f]+$/ && NF >= 2 {
		start[n] = unhex($1)
		if ($2 == "RA" && $3 == "undefined") { cfa[n] = ""; fpr[n] = ""; ra[n] = "undefined" }
		else { cfa[n] = $2; fpr[n] = $3; ra[n] = $4 }
		n++
	}
	END { flush() }'
}

# compare NAME FILE: our raw rows against objdump, plus the FDE count for the summary.
compare() {
	local name=$1 file=$2 fdes
	if ! "$DUMP" --dump "$file" > "$TMP/$name.got" 2> "$TMP/$name.err"; then
		fail "$name" "test_sframe --dump failed: $(cat "$TMP/$name.err")"
		return
	fi
	objdump_rows "$file" > "$TMP/$name.want"
	grep -v '^#' "$TMP/$name.got" > "$TMP/$name.rows"
	fdes=$(objdump --sframe "$file" | grep -c 'func idx')
	if [ ! -s "$TMP/$name.want" ]; then
		fail "$name" "objdump --sframe printed no FREs for $file"
		return
	fi
	expect_file_eq "$name" "$TMP/$name.rows" "$TMP/$name.want"
	echo "         $name: $fdes FDEs, $(wc -l < "$TMP/$name.rows") rows"
}

if [ ! -x "$DUMP" ] || [ ! -x "$ROOT/$O/workloads/sframe_demo" ]; then
	fail setup "build first: make O=$O $O/tests/test_sframe $O/workloads/sframe_demo"
	exit 0
fi

compare demo "$ROOT/$O/workloads/sframe_demo"
compare demo-obj "$ROOT/$O/workloads/sframe_demo.o"

# Variants: other frame shapes and link kinds, each compared the same way.
variant() {
	local name=$1; shift
	if gcc -Wa,--gsframe "$@" "$SRC" -o "$TMP/$name" 2> "$TMP/$name.cc"; then
		compare "$name" "$TMP/$name"
	else
		fail "$name" "gcc $*: $(head -3 "$TMP/$name.cc")"
	fi
}
variant O0 -O0
variant O2-fp -O2 -fno-omit-frame-pointer
variant O2-nofp -O2 -fomit-frame-pointer
variant shared -O2 -fPIC -shared
variant O2-obj -O2 -c
variant static-pie -O1 -static-pie

# Other engineers' SFrame workloads, when built.
for f in "$ROOT/$O"/workloads/*sframe*; do
	case $f in */sframe_demo | */sframe_demo.o) continue ;; esac
	[ -x "$f" ] && readelf -S "$f" 2>/dev/null | grep -q '\.sframe' && compare "$(basename "$f")" "$f"
done

# The unsupported count must match the rows marked unsupported.
got=$(grep -c ' unsupported ' "$TMP/demo.rows")
want=$(sed -n 's/^# unsupported .* //p' "$TMP/demo.got" | awk '{s += $1} END {print s + 0}')
expect_eq demo-unsupported-count "$got" "$want"
