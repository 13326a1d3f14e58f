#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Symbolization throughput with inline frames and lines (issue 9), unit level:
# st-addr2line (lib/sym/dwarf_inline: one process, each file one sorted batch)
# against `eu-addr2line -a -f -i` (one process per file, fed that file's
# addresses on stdin), the same addresses, in the same run.
#
# Addresses are what stack frames hold: every call site of the file, as its
# return address minus one, shuffled with a fixed seed (a profile hits them in
# no order), at most MAXADDR per file:
#   libc.so.6    Debian's, debug file from libc6-dbg (found by build ID)
#   python3.11   Debian's, LTO build, debug file from python3.11-dbg
#   cxx_names    build/workloads/cxx_names (-O2 -g, DWARF in the file)
# Prints per file the frames each side names, the median seconds of REPS runs,
# frames per second and the ratio; "open+index" is st-addr2line on one address
# (the fixed cost: reading the debug file and indexing its units); then how the
# answers compare (bench/names_cmp.py), and binutils addr2line -i as a second
# opinion on a sample where eu-addr2line shows no inline frames.
set -u
O=${O:-build}
REPS=${REPS:-3}
MAXADDR=${MAXADDR:-10000}
A2L=$O/bench/st-addr2line
TMP=$(mktemp -d /tmp/stacktap-bench-names.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

for t in eu-addr2line addr2line objdump python3; do
	command -v $t >/dev/null || { echo "bench_names: $t missing (make bench-deps)" >&2; exit 1; }
done
[ -x "$A2L" ] || { echo "bench_names: $A2L missing (make bench)" >&2; exit 1; }

FILES=(/usr/lib/x86_64-linux-gnu/libc.so.6 "$(readlink -f /usr/bin/python3.11)" "$O/workloads/cxx_names")

# Return addresses - 1 of every call in @1, shuffled (seed 9), at most MAXADDR.
call_sites() {
	objdump -d --no-show-raw-insn "$1" | awk '/\tcall/ { getline;
		if ($1 ~ /^[0-9a-f]+:$/) { sub(":", "", $1); print $1 } }' |
	python3 -c '
import random, sys
a = sorted({int(l, 16) - 1 for l in sys.stdin if l.strip()})
random.Random(9).shuffle(a)
print("\n".join("0x%x" % x for x in a[:int(sys.argv[1])]))' "$MAXADDR"
}

# run_ms IN OUT CMD...: runs CMD < IN > OUT, prints its wall time in ms.
run_ms() {
	local in=$1 out=$2 s
	shift 2
	s=$(date +%s%N)
	"$@" < "$in" > "$out" 2>/dev/null
	echo $(( ($(date +%s%N) - s) / 1000000 ))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
frames() { awk '!/^0x/ { n++ } END { print int(n / 2) }' "$1"; }
rate() { awk -v f="$1" -v ms="$2" 'BEGIN { printf "%.0f", ms ? f * 1000 / ms : 0 }'; }

printf '%-12s %8s %9s %9s %9s %9s %11s %11s %7s\n' file addrs "frames-st" "frames-eu" \
	"st-ms" "eu-ms" "st-frames/s" "eu-frames/s" ratio
total_st=0 total_eu=0
: > "$TMP/pairs"
for f in "${FILES[@]}"; do
	[ -f "$f" ] || { echo "bench_names: $f missing" >&2; continue; }
	n=$(basename "$f")
	call_sites "$f" > "$TMP/$n.addrs"
	sed "s|^|$f |" "$TMP/$n.addrs" >> "$TMP/pairs"
	for ((r = 0; r < REPS; r++)); do
		run_ms "$TMP/$n.addrs" "$TMP/$n.st" "$A2L" -e "$f"
	done | median > "$TMP/$n.st.ms"
	for ((r = 0; r < REPS; r++)); do
		run_ms "$TMP/$n.addrs" "$TMP/$n.eu" eu-addr2line -a -f -i -e "$f"
	done | median > "$TMP/$n.eu.ms"
	head -1 "$TMP/$n.addrs" > "$TMP/one"
	fixed=$(for ((r = 0; r < REPS; r++)); do run_ms "$TMP/one" /dev/null "$A2L" -e "$f"; done |
		median)
	st=$(cat "$TMP/$n.st.ms") eu=$(cat "$TMP/$n.eu.ms")
	fs=$(frames "$TMP/$n.st") fe=$(frames "$TMP/$n.eu")
	printf '%-12s %8d %9d %9d %9d %9d %11s %11s %6sx   (open+index %d ms)\n' "$n" \
		"$(wc -l < "$TMP/$n.addrs")" "$fs" "$fe" "$st" "$eu" "$(rate "$fs" "$st")" \
		"$(rate "$fe" "$eu")" "$(awk -v a="$eu" -v b="$st" 'BEGIN { printf "%.1f", b ? a / b : 0 }')" \
		"$fixed"
	total_eu=$((total_eu + eu))
done

# Every file's pairs through one st-addr2line, against the eu-addr2line runs above.
all=$(for ((r = 0; r < REPS; r++)); do run_ms "$TMP/pairs" /dev/null "$A2L"; done | median)
printf 'all files: st-addr2line %d ms (one process), eu-addr2line %d ms (one per file): %sx\n' \
	"$all" "$total_eu" "$(awk -v a="$total_eu" -v b="$all" 'BEGIN { printf "%.1f", b ? a / b : 0 }')"

echo "agreement with eu-addr2line -a -f -i:"
for f in "${FILES[@]}"; do
	n=$(basename "$f")
	[ -f "$TMP/$n.st" ] || continue
	printf '  %-12s ' "$n"
	python3 bench/names_cmp.py "$TMP/$n.st" "$TMP/$n.eu"
done

# Where eu-addr2line shows no inline frames (libdw's dwarf_getscopes gives up on
# LTO units), binutils addr2line -i is the independent check.
py=$(readlink -f /usr/bin/python3.11)
id=$(eu-readelf -n "$py" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ -f "$dbg" ]; then
	head -500 "$TMP/python3.11.addrs" > "$TMP/py500"
	"$A2L" -e "$dbg" < "$TMP/py500" > "$TMP/py500.st"
	addr2line -a -f -i -e "$dbg" < "$TMP/py500" > "$TMP/py500.bu"
	printf '  binutils addr2line -i, 500 python3.11 addresses: '
	python3 - "$TMP/py500.st" "$TMP/py500.bu" <<'EOF'
import re, sys
def blocks(p):
    out, cur = [], None
    for l in open(p):
        l = l.rstrip("\n")
        if l.startswith("0x") and (cur is None or len(cur) % 2 == 0):
            cur = []
            out.append(cur)
        else:
            cur.append(l)
    return out
def frames(b):  # binutils prints no column and notes discriminators; compare file basename:line
    r = []
    for i in range(0, len(b) - 1, 2):
        loc = re.sub(r" \(discriminator \d+\)", "", b[i + 1])
        loc = re.sub(r":(\d+):\d+$", r":\1", loc).split("/")[-1]
        r.append((re.sub(r" inlined at .*$", "", b[i]), loc))
    return r
a, b = blocks(sys.argv[1]), blocks(sys.argv[2])
same = sum(frames(x) == frames(y) for x, y in zip(a, b))
print("%d of %d identical (%d frames)" % (same, len(a), sum(len(frames(x)) for x in a)))
EOF
fi
