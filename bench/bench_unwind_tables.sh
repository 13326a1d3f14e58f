#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unwind tables: time and max RSS to build the table of big libraries, vs readelf's frames-interp.
#
# For each file: rows, bytes (8 a row), coverage of executable sections, then the best
# of RUNS wall times and the max RSS of `stacktap unwind-table --no-table-cache --summary FILE` (parses
# every FDE through libdw and builds the table) and of `readelf --debug-dump=frames-interp
# FILE > /dev/null` (decodes and prints the same rows), and their ratios.
set -u
O=${O:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${ST:=$ROOT/$O/stacktap}"
RUNS=${RUNS:-5}
FILES=${FILES:-"/usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 $(readlink -f /usr/bin/python3)"}
TMP=$(mktemp -d /tmp/stacktap-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# best CMD...: "seconds maxrss_kb" of the fastest of RUNS runs. The exit status is not
# checked: readelf exits 1 on Debian's libc after printing every row (its debuglink
# target is missing), which is still the full work.
best() {
	local i t0 t1 t m best_t= best_m=
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$TMP/rss" "$@" > /dev/null 2>&1
		t1=$(date +%s%N)
		t=$(((t1 - t0) / 1000)) m=$(tail -1 "$TMP/rss")
		if [ -z "$best_t" ] || [ "$t" -lt "$best_t" ]; then
			best_t=$t best_m=$m
		fi
	done
	echo "$best_t $best_m"
}

printf '%-18s %8s %9s %6s %7s | %8s %8s | %9s %8s | %6s %6s\n' file rows bytes B/row cover \
	st_ms st_MiB readelf_ms rd_MiB t_x rss_x
for f in $FILES; do
	"$ST" unwind-table --summary "$f" > "$TMP/sum" || { echo "bench: $f: no table" >&2; continue; }
	rows=$(sed -n 's/^rows: //p' "$TMP/sum")
	bytes=$(sed -n 's/^bytes: //p' "$TMP/sum")
	cover=$(sed -n 's/^coverage: \([0-9.]*%\).*/\1/p' "$TMP/sum")
	read -r st_t st_m <<< "$(best "$ST" unwind-table --no-table-cache --summary "$f")"
	read -r rd_t rd_m <<< "$(best readelf --debug-dump=frames-interp "$f")"
	awk -v f="$(basename "$f")" -v r="$rows" -v b="$bytes" -v c="$cover" -v st="$st_t" \
		-v sm="$st_m" -v rt="$rd_t" -v rm="$rd_m" 'BEGIN {
		printf "%-18s %8d %9d %6.1f %7s | %8.1f %8.1f | %9.1f %8.1f | %6.2f %6.2f\n",
			f, r, b, b / r, c, st / 1000, sm / 1024, rt / 1000, rm / 1024,
			(rt > 0 ? st / rt : 0), (rm > 0 ? sm / rm : 0) }'
done
echo "ms: wall time including process start; t_x, rss_x: stacktap / readelf (lower is better"
echo "for stacktap); best of $RUNS runs each"
