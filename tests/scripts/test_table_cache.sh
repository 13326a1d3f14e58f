#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The unwind table cache (lib/unwind/table_cache.c), through `stacktap unwind-table -v`,
# in a cache directory of this test's own:
# 1. A second run loads each table from the cache (the -v line says so) and prints exactly
#    the rows a build prints: libc, python3.11 and node (when present), a workload whose
#    .debug_frame comes from its separate debug file, and an SFrame one.
# 2. A damaged cache file (a flipped byte, cut short, another file's table under this
#    file's name) is warned about once, ignored, and the table built again and saved over
#    it: the run after loads it.
# 3. Another file with another build ID at the same path never uses the first one's table;
#    nor does a copy with the same build ID but other unwind sections (stripped).
# 4. The cache is off with --no-table-cache, an empty STACKTAP_CACHE_DIR, a HOME where no
#    directory can be made, or a directory others may write; the table is still printed.
#    Files beyond STACKTAP_CACHE_MAX_MB go, least recently used first.
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
cd "$ROOT"
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
C=$TMP/cache
export STACKTAP_CACHE_DIR=$C
unset XDG_CACHE_HOME STACKTAP_CACHE_MAX_MB

# report LOADED SAVED DAMAGED: the -v line of a run with the cache in $C.
report() {
	echo "stacktap: table cache: $C/unwind: $1 tables loaded, $2 built and saved, $3 damaged files rebuilt"
}

# ut NAME FILE [ARGS...]: unwind-table -v, rows to $TMP/NAME.txt, notes to $TMP/NAME.err.
ut() {
	local name=$1 f=$2
	shift 2
	"$ST" unwind-table -v "$@" "$f" > "$TMP/$name.txt" 2> "$TMP/$name.err"
}

# The -v line (--debug notes on the same subject say more, and differently).
cache_line() { grep -E '^stacktap: table cache: (off \(|.* tables loaded)' "$TMP/$1.err"; }
warnings() { grep -c '^stacktap: warning: table cache:' "$TMP/$1.err"; }

# 1. built, then loaded: the same rows as a build without the cache.
cached_same() {
	local name=$1 f=$2
	rm -rf "$C"
	ut "$name-built" "$f" --no-table-cache
	ut "$name-first" "$f"
	ut "$name-second" "$f"
	expect_eq "$name-first-saved" "$(cache_line "$name-first")" "$(report 0 1 0)"
	expect_eq "$name-second-loaded" "$(cache_line "$name-second")" "$(report 1 0 0)"
	expect_eq "$name-second-says-loaded" \
		"$(grep -c "unwind: $f: table loaded from the cache ($(sed -n 's/^rows: //p' \
			"$TMP/$name-built.txt") rows" "$TMP/$name-second.err")" 1
	expect_file_eq "$name-loaded-rows" "$TMP/$name-second.txt" "$TMP/$name-built.txt"
	expect_file_eq "$name-saved-rows" "$TMP/$name-first.txt" "$TMP/$name-built.txt"
}

cached_same libc "$LIBC"
cached_same python3 /usr/bin/python3.11
if command -v node > /dev/null; then
	cached_same node "$(readlink -f "$(command -v node)")"
else
	skip node "node not installed"
fi
cached_same debug-file "$O/workloads/qsort_chain_dwarf_split"
expect_eq debug-file-source "$(sed -n 's/^source: //p' "$TMP/debug-file-second.txt")" \
	"eh_frame + debug_frame from $O/workloads/qsort_chain_dwarf_split.debug"
cached_same sframe "$O/workloads/qsort_chain_sframe"

# 2. Damaged files. damage NAME HOW: the libc file in a fresh cache, then HOW to it.
damage() {
	local name=$1 how=$2 f
	rm -rf "$C"
	ut "$name-first" "$LIBC"
	f=$(ls "$C"/unwind/*.tab)
	case $how in
	flip) python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[len(b)//2]^=0x40; open(p,"wb").write(b)' "$f" ;;
	cut) truncate -s -8 "$f" ;;
	empty) : > "$f" ;;
	esac
	ut "$name" "$LIBC"
	expect_eq "$name-warned-once" "$(warnings "$name")" 1
	expect_eq "$name-rebuilt" "$(cache_line "$name")" "$(report 0 1 1)"
	expect_file_eq "$name-rows" "$TMP/$name.txt" "$TMP/libc-built.txt"
	ut "$name-after" "$LIBC"
	expect_eq "$name-then-loaded" "$(cache_line "$name-after")" "$(report 1 0 0)"
}
damage damaged-flip flip
expect_eq damaged-flip-why "$(grep -c 'checksum mismatch; ignored, the table is built again' \
	"$TMP/damaged-flip.err")" 1
damage damaged-cut cut
damage damaged-empty empty

# 3. Two programs, one path, two build IDs (and different code: different rows).
SRC=$TMP/prog.c
printf '%s\n' 'static int f(int x) { return x * 3; }' \
	'int main(int argc, char **argv) { (void)argv; return f(argc); }' > "$SRC"
gcc -O0 -Wl,--build-id=0x1111111111111111111111111111111111111111 -o "$TMP/prog_a" "$SRC"
printf '%s\n' 'static int f(int x) { return x * 3; }' \
	'__attribute__((noinline)) static int g(int x) { return x + 1; }' \
	'__attribute__((noinline)) static int h(int x) { return g(x) * 2; }' \
	'int main(int argc, char **argv) { (void)argv; return f(argc) + h(argc); }' > "$SRC"
gcc -O0 -Wl,--build-id=0x2222222222222222222222222222222222222222 -o "$TMP/prog_b" "$SRC"
P=$TMP/prog
rm -rf "$C"
cp "$TMP/prog_a" "$P"
ut prog-a "$P"
cp "$TMP/prog_b" "$P"
ut prog-b-built "$P" --no-table-cache
ut prog-b "$P"
expect_eq other-build-id-not-loaded "$(cache_line prog-b)" "$(report 0 1 0)"
expect_file_eq other-build-id-rows "$TMP/prog-b.txt" "$TMP/prog-b-built.txt"
if cmp -s "$TMP/prog-a.txt" "$TMP/prog-b.txt"; then
	fail other-build-id-differs "the two programs have the same table: the test proves nothing"
else
	pass other-build-id-differs
fi
# A's table under B's name (a foreign file): refused by the build ID it holds.
cp "$C"/unwind/1111111111111111111111111111111111111111-*.tab \
	"$(ls "$C"/unwind/2222222222222222222222222222222222222222-*.tab)"
ut prog-foreign "$P"
expect_eq foreign-warned-once "$(warnings prog-foreign)" 1
expect_eq foreign-why "$(grep -c 'the table of another build ID; ignored' "$TMP/prog-foreign.err")" 1
expect_file_eq foreign-rows "$TMP/prog-foreign.txt" "$TMP/prog-b-built.txt"

# The same build ID with other sources: a copy stripped of its .debug_frame has its own
# table (only crt's .eh_frame), never the unstripped one's.
DW=$O/workloads/qsort_chain_dwarf
rm -rf "$C"
ut dwarf-full "$DW"
strip --strip-debug -o "$TMP/dwarf_stripped" "$DW"
ut dwarf-stripped-built "$TMP/dwarf_stripped" --no-table-cache
ut dwarf-stripped "$TMP/dwarf_stripped"
expect_eq same-id-other-sources-built "$(cache_line dwarf-stripped)" "$(report 0 1 0)"
expect_file_eq same-id-other-sources-rows "$TMP/dwarf-stripped.txt" "$TMP/dwarf-stripped-built.txt"
expect_eq same-id-other-sources-id "$(sed -n 's/^build-id: //p' "$TMP/dwarf-stripped.txt")" \
	"$(sed -n 's/^build-id: //p' "$TMP/dwarf-full.txt")"
expect_eq same-id-other-sources-two-files "$(ls "$C"/unwind | wc -l)" 2

# 4. Off, and bounded.
rm -rf "$C"
ut off-option "$LIBC" --no-table-cache
expect_eq off-option "$(cache_line off-option)" "stacktap: table cache: off (--no-table-cache)"
expect_eq off-option-nothing-written "$(ls "$C" 2>/dev/null | wc -l)" 0
STACKTAP_CACHE_DIR='' ut off-empty "$LIBC"
expect_eq off-empty-env "$(cache_line off-empty)" \
	"stacktap: table cache: off (STACKTAP_CACHE_DIR is empty)"
: > "$TMP/not-a-dir"
env -u STACKTAP_CACHE_DIR HOME="$TMP/not-a-dir" "$ST" unwind-table -v "$LIBC" \
	> "$TMP/off-home.txt" 2> "$TMP/off-home.err"
expect_eq off-home-unusable "$(cache_line off-home)" \
	"stacktap: table cache: off ($TMP/not-a-dir/.cache/stacktap/unwind: Not a directory)"
expect_file_eq off-home-rows "$TMP/off-home.txt" "$TMP/libc-built.txt"
env -u STACKTAP_CACHE_DIR -u HOME "$ST" unwind-table -v "$LIBC" > /dev/null 2> "$TMP/off-nohome.err"
expect_eq off-no-home "$(cache_line off-nohome)" \
	"stacktap: table cache: off (no HOME or XDG_CACHE_HOME)"
env -u STACKTAP_CACHE_DIR HOME=/nonexistent XDG_CACHE_HOME="$TMP/xdg" \
	"$ST" unwind-table -v "$LIBC" > /dev/null 2> "$TMP/xdg.err"
expect_eq xdg-cache-home "$(cache_line xdg)" \
	"stacktap: table cache: $TMP/xdg/stacktap/unwind: 0 tables loaded, 1 built and saved, 0 damaged files rebuilt"
mkdir -p "$C/unwind"
chmod 0777 "$C/unwind"
ut off-shared "$LIBC"
expect_eq off-shared-dir "$(warnings off-shared)" 1
expect_eq off-shared-dir-off "$(cache_line off-shared)" \
	"stacktap: table cache: off ($C/unwind: not a directory of ours alone (owner $(id -u), mode 777))"
# LRU: libc, python3.11, libc used again, then libstdc++ takes the total over 1 MiB
# (0.27 + 0.57 + 0.33): python3.11's, the least recently used, goes; libc's stays.
STDCXX=$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)
rm -rf "$C"
ut lru-libc "$LIBC"
ut lru-python /usr/bin/python3.11
ut lru-libc-again "$LIBC"
STACKTAP_CACHE_MAX_MB=1 ut lru-stdcxx "$STDCXX"
expect_eq lru-one-removed "$(grep -c 'removed (least recently used)' "$TMP/lru-stdcxx.err")" 1
expect_eq lru-files-left "$(ls "$C"/unwind | wc -l)" 2
ut lru-libc-last "$LIBC"
expect_eq lru-recently-used-kept "$(cache_line lru-libc-last)" "$(report 1 0 0)"
ut lru-python-last /usr/bin/python3.11
expect_eq lru-least-recent-gone "$(cache_line lru-python-last)" "$(report 0 1 0)"
