#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The unwind tables' memory follows the processes: the rows of a file no
# live process maps are freed (a dlclose()d private library at once, the
# rest at exit), no file takes more than its share of the row table, and
# a program new to the run, started right after the banner, gets its whole
# chain.
source "$(dirname "$0")/lib.sh"

LIBC_START="__libc_start_call_main __libc_start_main _start"
CHAIN="callback lib_leaf lib_mid lib_entry run main $LIBC_START"
# Private copies: no other process maps them, and no earlier run built their tables.
cp "$W/dlchain" "$TMP/dlchain"
cp "$W/libdlchain.so" "$TMP/libprivate.so"

# Slots a file takes in the row table: its rows and its page index's blocks.
rows_of() { "$ST" unwind-table -s "$1" | awk '/^rows:/{r = $2} /^page-index:/{b = $2} END {print r + b}'; }

# The vDSO has a table too (its own .eh_frame): its image, read from the process.
vdso_rows() {
	local range
	range=$(awk '$6 == "[vdso]" {print $1}' /proc/"$1"/maps)
	[ -n "$range" ] || { echo 0; return; }
	python3 -c 'import sys
s, e = (int(x, 16) for x in sys.argv[2].split("-"))
with open(f"/proc/{sys.argv[1]}/mem", "rb") as m:
    m.seek(s); sys.stdout.buffer.write(m.read(e - s))' "$1" "$range" > "$TMP/vdso.so"
	rows_of "$TMP/vdso.so"
}
# The files the workload maps executable, and after its dlopen the private library.
rows_sum() {
	local pid=$1 sum f
	sum=$(rows_of "$TMP/libprivate.so")
	for f in $(awk '$2 ~ /x/ && $6 ~ /^\// {print $6}' /proc/"$pid"/maps | sort -u); do
		sum=$((sum + $(rows_of "$f")))
	done
	echo "$((sum + $(vdso_rows "$pid")))"
}

# --- rows freed: the private library's at its dlclose, every file's at the exit ----
rm -f "$TMP/go"; mkfifo "$TMP/go"
"$TMP/dlchain" "$TMP/libprivate.so" 5 "$TMP/go" > "$TMP/freed.w" &
wpid=$!; ST_PIDS+=("$wpid")
wait_for_line "$TMP/freed.w" '^ready' || fail rows-freed "workload not ready"
want=$(rows_sum "$wpid")
"$ST" count -v -U --unwind-rows 2097152 -p "$wpid" "u:$TMP/dlchain:callback" > "$TMP/freed.out" 2> "$TMP/freed.err" &
spid=$!; ST_PIDS+=("$spid")
wait_for_line "$TMP/freed.err" '^Tracing' || fail rows-freed "tracer not attached"
release "$TMP/go"
wait "$wpid"; wait "$spid"
# dlchain, libc, ld.so, the library and the vDSO: 5 files with rows, all loaded at once, all freed.
expect_eq rows-freed "$(grep -o 'unwind tables: .* rows;' "$TMP/freed.err")" \
	"unwind tables: 0 files, 0 rows (0 KiB; page indexes 0 of them) of 2097152 now, peak $want; freed 5 files, $want rows;"
# -v: "  ADDRESS NAME [at FILE:LINE]" lines, then the count.
expect_eq rows-freed-chain "$(grep -A9 '^ *0x[0-9a-f]* callback\( \|$\)' "$TMP/freed.out" |
	awk '{print (NF > 1 ? $2 : $1)}' | xargs)" \
	"$CHAIN 5"

# --- per-file cap: with 65536 rows no file may take more than 16384 (libc has more) ---
run_traced cap "$TMP/dlchain" "$TMP/libprivate.so" 3 -- count -U --unwind-rows 65536 \
	-p @PID@ "u:$TMP/dlchain:callback"
libc_rows=$(rows_of "$(awk '$6 ~ /libc\.so/ {print $6; exit}' /proc/self/maps)")
if [ "$libc_rows" -gt 16384 ]; then
	expect_eq per-file-cap "$(grep 'over the per-file cap' "$TMP/cap.err")" \
		"stacktap: 1 files unwound by frame pointers: over the per-file cap of 16384 rows"
else
	fail per-file-cap "libc has $libc_rows rows, not more than the cap: pick a smaller table"
fi

# --- started right after the banner, system-wide: the whole chain, every time ------
cp "$W/dlchain" "$TMP/dlchain2"
"$ST" count -U "u:$TMP/dlchain2:callback" > "$TMP/late.out" 2> "$TMP/late.err" &
spid=$!; ST_PIDS+=("$spid")
wait_for_line "$TMP/late.err" '^Tracing' || fail late-start "tracer not attached"
"$TMP/dlchain2" "$TMP/libprivate.so" 4 > /dev/null
sleep 0.3
kill -INT "$spid"; wait "$spid"
expect_eq late-start-chain "$(grep -A9 '^  callback' "$TMP/late.out" | awk '{print $1}' | xargs)" \
	"$CHAIN 4"
