#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unwind tables: rows equal readelf's frames-interp, the unwind-table tool, and a no-crash sweep.
#
# 1. For the qsort_chain workloads, libc, and a .debug_frame-only fixture built here,
#    `stacktap unwind-table FILE` and `readelf --debug-dump=frames-interp` describe the
#    same step function (tests/scripts/unwind_readelf_cmp.py). The SFrame binary's rows
#    come from .sframe, so there the check also proves SFrame and CFI agree. The
#    -fno-asynchronous-unwind-tables builds (qsort_chain_dwarf*: .eh_frame only for the
#    startup code, the rest in .debug_frame of the file or of its debug file) check the
#    merge of sources: both sections by the same precedence rule.
# 2. `--addr`, usage errors and exit codes of the tool.
# 3. Every ELF file in /usr/bin and /usr/lib/x86_64-linux-gnu gives a table or one clear
#    error line, never a crash (the time it took is logged, never asserted).
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
cd "$ROOT"
LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
CMP=tests/scripts/unwind_readelf_cmp.py

# compare_readelf NAME FILE [READELF_FILE]: the table of FILE vs readelf of READELF_FILE.
compare_readelf() {
	local name=$1 f=$2 rf=${3:-$2} out
	if ! "$ST" unwind-table "$f" > "$TMP/table.txt" 2> "$TMP/err"; then
		fail "$name" "unwind-table failed" "$(cat "$TMP/err")"
		return
	fi
	readelf --debug-dump=frames-interp "$rf" > "$TMP/readelf.txt" 2>/dev/null
	if out=$(python3 "$CMP" "$TMP/table.txt" "$TMP/readelf.txt"); then
		pass "$name"
		echo "         $out"
	else
		fail "$name" "$out"
	fi
}

for v in fp nofp sframe; do
	compare_readelf "readelf-qsort_chain_$v" "$W/qsort_chain_$v"
done
compare_readelf readelf-libc "$LIBC"

# .debug_frame through .gnu_debuglink: no .eh_frame left in the stripped file.
DBG=$TMP/dbgframe
if gcc -g -O1 -fno-asynchronous-unwind-tables -fomit-frame-pointer \
	-fno-optimize-sibling-calls tests/workloads/qsort_chain.c -o "$DBG" &&
	objcopy --only-keep-debug "$DBG" "$DBG.debug" &&
	objcopy --strip-debug --remove-section=.eh_frame --remove-section=.eh_frame_hdr \
		--add-gnu-debuglink="$DBG.debug" "$DBG" "$DBG.stripped"; then
	expect_eq debug_frame-source \
		"$("$ST" unwind-table --summary "$DBG.stripped" | sed -n 's/^source: //p')" \
		"debug_frame from $DBG.debug"
	compare_readelf readelf-debug_frame "$DBG.stripped" "$DBG.debug"
else
	fail debug_frame-fixture "could not build the .debug_frame fixture"
fi

# Merged sources: .eh_frame (crt's _start) + .debug_frame (the rest), in the file and split off.
DW=$W/qsort_chain_dwarf
expect_eq merged-source "$("$ST" unwind-table --summary "$DW" | sed -n 's/^source: //p')" \
	"eh_frame + debug_frame"
compare_readelf readelf-merged "$DW"
expect_eq merged-split-source \
	"$("$ST" unwind-table --summary "$DW"_split | sed -n 's/^source: //p')" \
	"eh_frame + debug_frame from $DW""_split.debug"
# readelf follows the debuglink itself: one output holds both sections.
compare_readelf readelf-merged-split "$DW"_split

# Go: its .debug_frame is left out (it omits rbp and calls the runtime's stack switchers
# frameless; lib/unwind/sources.c), so Go code walks by its frame pointers. A cgo program
# keeps the .eh_frame of its C code. The control, the same file without the Go notes: its
# .debug_frame (compressed, as Go writes it) is read, so the notes alone decide.
GO_DIR=$TMP/go
mkdir -p "$GO_DIR/cgo.d" "$GO_DIR/pure.d"
printf '%s\n' 'package main' '' '// static int twice(int x) { return 2 * x; }' 'import "C"' \
	'import "os"' '' 'func main() { os.Exit(int(C.twice(C.int(len(os.Args)))) & 0) }' \
	> "$GO_DIR/cgo.d/main.go"
printf '%s\n' 'package main' '' 'import "os"' '' 'func main() { os.Exit(len(os.Args) & 0) }' \
	> "$GO_DIR/pure.d/main.go"
# go_build DIR OUT [ENV...]: a module-less build of DIR/main.go, its cache in the test's dir.
go_build() {
	(cd "$1" && env HOME="$GO_DIR" GOCACHE="$GO_DIR/cache" "${@:3}" go build -o "$2" main.go)
}
if go_build "$GO_DIR/cgo.d" "$GO_DIR/cgo" && go_build "$GO_DIR/pure.d" "$GO_DIR/pure" CGO_ENABLED=0 &&
	objcopy --remove-section .note.go.buildid --remove-section .go.buildinfo \
		"$GO_DIR/cgo" "$GO_DIR/cgo_nogo"; then
	expect_eq go-cgo-source "$("$ST" unwind-table --summary "$GO_DIR/cgo" |
		sed -n 's/^source: //p; s/^fdes-by-source: .* debug_frame=/debug_frame=/p')" \
		"eh_frame (Go: .debug_frame not used, frame pointers instead)
debug_frame=0"
	mm=$(nm "$GO_DIR/cgo" | awk '$3 == "main.main" { print $1 }' | sed 's/^0*//')
	expect_eq go-cgo-go-code "$("$ST" unwind-table --addr "0x$mm" "$GO_DIR/cgo" 2>&1)" \
		"stacktap: unwind-table: $GO_DIR/cgo: no row covers 0x$mm"
	expect_eq go-control-source \
		"$("$ST" unwind-table --summary "$GO_DIR/cgo_nogo" | sed -n 's/^source: //p')" \
		"eh_frame + debug_frame"
	expect_eq go-control-go-code \
		"$("$ST" unwind-table --addr "0x$mm" "$GO_DIR/cgo_nogo" | awk '{ print $NF }')" \
		debug_frame
	expect_eq go-pure "$("$ST" unwind-table "$GO_DIR/pure" 2>&1; echo "rc=$?")" \
		"stacktap: unwind-table: $GO_DIR/pure: no unwind table: Go code, whose .debug_frame is not used (frame pointers are)
rc=1"
else
	fail go-fixture "could not build the Go fixtures (golang-go, gcc, objcopy)"
fi

# --- the tool ---------------------------------------------------------------

# sym_addr FILE NAME: link-time address of a symbol, in hex without 0x.
sym_addr() {
	nm -D --defined-only "$1" 2>/dev/null | awk -v s="$2" '{ sub(/@.*/, "", $3) } $3 == s { print $1; exit }'
}
row_line() { printf '0x%012x  %-12s %-8s %s' "$((16#$1))" "$2" "$3" "$4"; }

NOFP=$W/qsort_chain_nofp
leaf=$(nm "$NOFP" | awk '$3 == "leaf" { print $1 }')
start=$(nm "$NOFP" | awk '$3 == "_start" { print $1 }')
expect_eq addr-leaf "$("$ST" unwind-table --addr "0x$leaf" "$NOFP")" \
	"$(row_line "$leaf" rsp+8 same eh_frame)"
expect_eq addr-start "$("$ST" unwind-table --addr "0x$start" "$NOFP")" \
	"$(row_line "$start" outermost same eh_frame)"
qs=$(sym_addr "$LIBC" qsort_r)
expect_eq addr-libc-qsort_r "$("$ST" unwind-table --addr "0x$qs" "$LIBC")" \
	"$(row_line "$qs" rsp+8 same eh_frame)"
# --addr names the source of the row: _start from .eh_frame, leaf from .debug_frame.
for f in "$DW" "$DW"_split; do
	leaf=$(nm "$f.debug" 2>/dev/null | awk '$3 == "leaf" { print $1 }')
	[ -n "$leaf" ] || leaf=$(nm "$f" | awk '$3 == "leaf" { print $1 }')
	start=$(nm "$f" | awk '$3 == "_start" { print $1 }')
	expect_eq "addr-merged-$(basename "$f")" \
		"$("$ST" unwind-table --addr "0x$leaf" "$f") | $("$ST" unwind-table --addr "0x$start" "$f")" \
		"$(row_line "$leaf" rsp+8 same debug_frame) | $(row_line "$start" outermost same eh_frame)"
done

# expect_exit NAME CODE STDERR_LINES CMD...: exit code and number of stderr lines.
expect_exit() {
	local name=$1 code=$2 lines=$3 rc
	shift 3
	"$@" > /dev/null 2> "$TMP/err"
	rc=$?
	expect_eq "$name" "$rc $(grep -c . "$TMP/err")" "$code $lines"
}
expect_exit exit-gap 1 1 "$ST" unwind-table --addr 0x1 "$NOFP"
expect_exit exit-no-file 1 1 "$ST" unwind-table /nonexistent/file
expect_exit exit-not-elf 1 1 "$ST" unwind-table "$ROOT/tests/scripts/test_unwind_tables.sh"
# usage_error NAME WANT_FIRST_LINE_REGEX CMD...: exit 2, argp's first line says what is wrong.
usage_error() {
	local name=$1 re=$2 rc
	shift 2
	"$@" > /dev/null 2> "$TMP/err"
	rc=$?
	expect_eq "$name" "$rc $(head -1 "$TMP/err" | grep -cE "$re")" "2 1"
}
usage_error exit-no-args 'unwind-table: FILE is required$' "$ST" unwind-table
usage_error exit-bad-addr "unwind-table: bad address '12zz'" "$ST" unwind-table --addr 12zz "$NOFP"
usage_error exit-two-files 'unwind-table: one FILE only$' "$ST" unwind-table "$NOFP" "$NOFP"
expect_eq gap-message "$("$ST" unwind-table --addr 0x1 "$NOFP" 2>&1)" \
	"stacktap: unwind-table: $NOFP: no row covers 0x1"
expect_eq help-examples "$("$ST" unwind-table --help | grep -c '^EXAMPLES:')" 1

# --- the sweep ----------------------------------------------------------------

python3 - > "$TMP/elfs" <<'EOF'
import os
for root in ('/usr/bin', '/usr/lib/x86_64-linux-gnu'):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(d, f)
            try:
                if not os.path.islink(p) and os.path.isfile(p):
                    with open(p, 'rb') as fh:
                        if fh.read(4) == b'\x7fELF':
                            print(p)
            except OSError:
                pass
EOF
# sweep_some FILE...: one line "EXIT STDERR_LINES FILE" each.
sweep_some() {
	local f err rc
	for f; do
		err=$("$ST" unwind-table --summary "$f" 2>&1 > /dev/null)
		rc=$?
		printf '%s %s %s\n' "$rc" "$(grep -c '^stacktap: ' <<< "$err")" "$f"
	done
}
export -f sweep_some
t0=$SECONDS
xargs -P "$(nproc)" -n 64 bash -c 'sweep_some "$@"' _ < "$TMP/elfs" > "$TMP/sweep"
took=$((SECONDS - t0))
# ok: a table; clear: exit 1 and exactly one "stacktap: " line; anything else is a bug.
read -r total ok clear bad <<< "$(awk '{ n++ } $1 == 0 { ok++ } $1 == 1 && $2 == 1 { cl++ }
	END { print n, ok + 0, cl + 0, n - ok - cl }' "$TMP/sweep")"
echo "         sweep: $total ELF files in ${took}s: $ok tables, $clear clear failures, $bad bad"
awk '!($1 == 0 || ($1 == 1 && $2 == 1))' "$TMP/sweep" | head -5 | sed 's/^/         bad: /'
expect_eq sweep-no-crash "$bad" 0
expect_eq sweep-tables "$((ok > 1000))" 1
