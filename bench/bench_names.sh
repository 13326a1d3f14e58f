#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Symbolization throughput with inline frames and lines (issue 9), on the
# addresses of a real system-wide profile, in the same run:
#
#   1. `stacktap profile -F HZ --lines --format pprof SECS`, system-wide, while
#      DWARF-rich work runs beside whatever the machine runs (Debian's LTO
#      python3.11 with python3.11-dbg installed, libc with libc6-dbg, the C++
#      and inline workloads); its own naming time (--debug) is shown.
#   2. The user frames of its samples, from `go tool pprof -raw`: each distinct
#      (file, file offset) with whether it is a return address (every frame but
#      a sample's innermost); files that are gone or not regular are left out.
#   3. st-symbolize (bench/st_symbolize.c: the symbolizer's own path - the
#      process registry, event_frames, symbolizer__name() in batches of 4096
#      with inline frames, lines and demangling - one process for every file)
#      against `eu-addr2line -a -f -i` (one process per file, fed that file's
#      link-time addresses, return addresses minus one, on stdin), the same
#      frames, REPS times each, medians.
#
# Prints frames named per second on each side and the ratio (target: >= 2x),
# the machine's load average around the measurement, and how the answers
# compare (bench/names_cmp.py: file:line chains; names differ by design: ours
# are the symbol table's, demangled, eu-addr2line's DWARF's as they are).
set -u
O=${O:-build}
ST=${ST:-$(pwd)/$O/stacktap}
REPS=${REPS:-3}
SECS=${SECS:-10}
HZ=${HZ:-999}
SYM=$O/bench/st-symbolize
W=$O/workloads
TMP=$(mktemp -d /tmp/stacktap-bench-names.XXXXXX)
export HOME="$TMP" GOCACHE="$TMP/gocache"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

for t in eu-addr2line readelf go python3; do
	command -v $t >/dev/null || { echo "bench_names: $t missing (make deps bench-deps)" >&2; exit 1; }
done
[ -x "$SYM" ] || { echo "bench_names: $SYM missing (make bench)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench_names: profiling needs root" >&2; exit 1; }

# 1. The profile, with DWARF-rich work running beside the machine's own.
python3.11 -c '
import json, re, zlib
d = {"k%d" % i: list(range(i % 50)) for i in range(2000)}
while True:
    s = json.dumps(d); json.loads(s); zlib.compress(s.encode())
    re.findall(r"k(\d+)", s); sorted(d, key=lambda k: -len(d[k]))' &
PIDS+=($!)
"$W/cxx_names" 100000000 > /dev/null & PIDS+=($!)
"$W/inline" 100000000 > /dev/null & PIDS+=($!)
"$ST" profile -F "$HZ" --lines --debug --format pprof -o "$TMP/prof.pb.gz" "$SECS" \
	> /dev/null 2> "$TMP/profile.err" || { cat "$TMP/profile.err" >&2; exit 1; }
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
wait 2>/dev/null
PIDS=()
naming=$(sed -n 's/.*raw stacks: \([0-9]*\) distinct stacks decoded and named in \([0-9.]*\) ms.*/\1 stacks, \2 ms/p' \
	"$TMP/profile.err")
echo "profile -F $HZ --lines, system-wide, ${SECS}s: naming $naming (inline frames and lines, in the run)"

# 2. Its user frames: "PATH OFFSET [r]", and per file the link-time addresses eu-addr2line wants.
go tool pprof -raw -symbolize=none "$TMP/prof.pb.gz" > "$TMP/prof.raw" 2>&1
python3 - "$TMP/prof.raw" "$TMP" <<'EOF'
import os, re, stat, subprocess, sys
raw, out = sys.argv[1], sys.argv[2]
mapping, loc, frames, section = {}, {}, set(), None
for line in open(raw, errors="replace"):
    line = line.rstrip("\n")
    if re.match(r"^(Samples|Locations|Mappings):", line) or line in ("Locations", "Mappings"):
        section = line.split(":")[0]
        continue
    if section == "Mappings":
        m = re.match(r"^\s*(\d+): 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+)", line)
        if m:
            mapping[m.group(1)] = m.group(2)
    elif section == "Locations":
        m = re.match(r"^\s*(\d+): 0x([0-9a-f]+) M=(\d+) ", line)
        if m:
            loc[m.group(1)] = (m.group(3), int(m.group(2), 16))
samples = []
section = None
for line in open(raw, errors="replace"):
    if line.startswith("Samples:"):
        section = "S"
        continue
    if line.startswith("Locations"):
        break
    m = re.match(r"^\s*[\d ]+: ((?:\d+ ?)+)\s*$", line) if section == "S" else None
    if m:
        samples.append(m.group(1).split())
for ids in samples:
    for i, l in enumerate(ids):
        if l not in loc:
            continue
        mid, off = loc[l]
        path = mapping.get(mid, "")
        if not path.startswith("/"):
            continue  # the kernel, a module, the vDSO, anonymous code
        frames.add((path, off, i > 0))
def regular(p):
    try:
        return stat.S_ISREG(os.stat(p).st_mode)
    except OSError:
        return False
files = sorted({p for p, _, _ in frames if regular(p)})
with open(os.path.join(out, "frames"), "w") as f:
    for p, off, r in sorted(frames):
        if p in files:
            print("%s %x%s" % (p, off, " r" if r else ""), file=f)
def loads(p):
    segs = []
    for l in subprocess.run(["readelf", "-lW", p], capture_output=True, text=True).stdout.splitlines():
        w = l.split()
        if w and w[0] == "LOAD":
            segs.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
    return segs
with open(os.path.join(out, "files"), "w") as lst:
    for i, p in enumerate(files):
        segs = loads(p)
        with open(os.path.join(out, "eu.%d.in" % i), "w") as f:
            for q, off, r in sorted(frames):
                if q != p:
                    continue
                va = next((v + off - o for o, v, fs in segs if o <= off < o + fs), None)
                print("0x%x" % ((va - 1 if r else va) if va is not None else off), file=f)
        print(p, file=lst)
EOF
nframes=$(wc -l < "$TMP/frames")
nfiles=$(wc -l < "$TMP/files")
echo "addresses: $nframes distinct user frames in $nfiles files"

# 3. The same frames through both, REPS times each.
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
eu_all() {
	local i=0 p
	while read -r p; do
		eu-addr2line -a -f -i -e "$p" < "$TMP/eu.$i.in" > "$TMP/eu.$i.out" 2>/dev/null
		i=$((i + 1))
	done < "$TMP/files"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < REPS; r++)); do
	s=$(date +%s%N); "$SYM" < "$TMP/frames" > "$TMP/st.out" 2> "$TMP/st.err"; ms "$s" >> "$TMP/st.ms"
	s=$(date +%s%N); eu_all; ms "$s" >> "$TMP/eu.ms"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
st=$(median < "$TMP/st.ms") eu=$(median < "$TMP/eu.ms")
fs=$(sed -n 's/.* \([0-9]*\) frames named.*/\1/p' "$TMP/st.err")
fe=$(cat "$TMP"/eu.*.out 2>/dev/null | awk '!/^0x/ { n++ } END { print int(n / 2) }')
rate() { awk -v f="$1" -v ms="$2" 'BEGIN { printf "%.0f", ms ? f * 1000 / ms : 0 }'; }
printf '%-28s %9s %9s %12s\n' "" frames "median-ms" "frames/s"
printf '%-28s %9d %9d %12s\n' "st-symbolize (1 process)" "$fs" "$st" "$(rate "$fs" "$st")"
printf '%-28s %9d %9d %12s\n' "eu-addr2line -a -f -i (x$nfiles)" "$fe" "$eu" "$(rate "$fe" "$eu")"
echo "ratio (frames/s): $(awk -v a="$(rate "$fs" "$st")" -v b="$(rate "$fe" "$eu")" \
	'BEGIN { printf "%.1fx", b ? a / b : 0 }'); time: $(awk -v a="$eu" -v b="$st" \
	'BEGIN { printf "%.1fx", b ? a / b : 0 }') (REPS=$REPS; per-run ms: st $(paste -sd, "$TMP/st.ms"), eu $(paste -sd, "$TMP/eu.ms"))"
echo "load average: $load0 before, $load1 after ($(nproc) CPUs)"

# How the answers compare, file by file in eu-addr2line's order.
i=0
while read -r p; do
	cat "$TMP/eu.$i.out"
	i=$((i + 1))
done < "$TMP/files" > "$TMP/eu.all"
python3 - "$TMP/frames" "$TMP/files" "$TMP/st.out" > "$TMP/st.byfile" <<'EOF'
import sys
order = {p.strip(): i for i, p in enumerate(open(sys.argv[2]))}
keys = [(order[l.split()[0]], n) for n, l in enumerate(open(sys.argv[1]))]
blocks, cur = [], None
for line in open(sys.argv[3], errors="replace"):
    if line.startswith("0x") and (cur is None or len(cur) % 2 == 1):
        cur = [line]
        blocks.append(cur)
    else:
        cur.append(line)
for _, n in sorted(keys):
    sys.stdout.write("".join(blocks[n]))
EOF
printf 'agreement: '
python3 bench/names_cmp.py "$TMP/st.byfile" "$TMP/eu.all" 5 # the first 5 disagreements on stderr
