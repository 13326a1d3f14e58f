#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `stacktap record` / `stacktap report` next to `perf record` / `perf report`, in one run.
#
# 1. Report speed. One CPU-bound workload per CPU (tests/workloads/busy.c,
#    with and without frame pointers) runs while `stacktap record profile`
#    and `perf record -g -a` sample the whole machine at the same rate, at the
#    same time: the same workload, the same run. Then each report is timed
#    BENCH_REPS times, alternating, median kept: `stacktap report` (text, and
#    -f folded) against `perf report --stdio` (its default: children and call
#    graphs) and `perf report --stdio --no-children -g folded` (the closest to
#    our folded output). Each run gives wall seconds, CPU seconds (user +
#    system: the fair figure on a loaded machine, where wall time is mostly
#    waiting) and peak RSS. ST_BASE (another stacktap, e.g. main's build)
#    reports the same recording in the same rounds. Target: stacktap at
#    least 2x faster.
# 2. Size. Bytes per sample of the recording against perf.data with -g (same
#    run) and with --call-graph dwarf (a shorter run of BENCH_DWARF_S seconds:
#    8 KiB of stack per sample would not fit a 1M-sample run). Target: at
#    most 0.5x perf.data -g.
# 3. Memory. `stacktap record profile` system-wide for BENCH_RSS_S seconds
#    (the hour of the issue is BENCH_RSS_S=3600), its RSS sampled every
#    BENCH_RSS_EVERY seconds: flat means the last sample is not above the
#    first one taken after the start-up by more than the table growth of new
#    processes.
#
# Environment: O, ST (bench/run.sh), BENCH_SAMPLES (1000000, samples wanted
# per tool), BENCH_HZ (2000 per CPU; a rate the consumer keeps up with here),
# BENCH_REPS (3), BENCH_DWARF_S (2), BENCH_RSS_S (120; 0 leaves part 3 out),
# BENCH_RSS_EVERY (10), ST_BASE (unset).
set -u
cd "$(dirname "$0")/.." || exit 1
O=${O:-build}
ST=${ST:-$PWD/$O/stacktap}
W=$PWD/$O/workloads
SAMPLES=${BENCH_SAMPLES:-1000000}
HZ=${BENCH_HZ:-2000}
REPS=${BENCH_REPS:-3}
DWARF_S=${BENCH_DWARF_S:-2}
RSS_S=${BENCH_RSS_S:-120}
RSS_EVERY=${BENCH_RSS_EVERY:-10}
ST_BASE=${ST_BASE:-}
NCPU=$(nproc)
TMP=$(mktemp -d /var/tmp/stacktap-bench-record.XXXXXX)

BENCH_NAME=bench_record
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap bench_cleanup EXIT

command -v perf > /dev/null || { note "perf missing: make bench-deps"; exit 1; }
[ -x /usr/bin/time ] || { note "/usr/bin/time missing: make bench-deps"; exit 1; }

# Workloads: one per CPU, spinning longer than the recording lasts.
busy() { # SECONDS
	local i
	for ((i = 0; i < NCPU; i++)); do
		if ((i % 2)); then "$W/busy_fp" "$1" > /dev/null & else "$W/busy_nofp" "$1" > /dev/null & fi
	done
}

# measure CMD...: "WALL CPU MAXRSS_KIB" of one run (CPU: user + system
# seconds), output discarded; "- - -" when it fails.
measure() {
	/usr/bin/time -o "$TMP/time" -f '%e %U %S %M' "$@" > /dev/null 2> "$TMP/last.err" || {
		note "failed: $* ($(tail -1 "$TMP/last.err"))"
		echo "- - -"
		return
	}
	awk '{ printf "%s %.2f %s", $1, $2 + $3, $4 }' "$TMP/time"
}

# --- 1 and 2: the same run, both recorders ------------------------------------
DUR=$(( (SAMPLES + HZ * NCPU - 1) / (HZ * NCPU) ))
note "recording ${DUR}s at ${HZ} Hz on $NCPU CPUs, both tools at once"
busy $((DUR + 30))
sleep 0.5
# A large ring buffer: the recorder writes while the machine is loaded, as perf's does.
"$ST" record -o "$TMP/st.data" profile -F "$HZ" --ringbuf-kb 262144 "$DUR" > /dev/null \
	2> "$TMP/st.err" &
st_pid=$!
# --no-buildid-cache: a bench must not grow ~/.debug (the report runs on this machine).
perf record --no-buildid-cache -F "$HZ" -a -g -o "$TMP/perf.data" -- sleep "$DUR" \
	> /dev/null 2> "$TMP/perf.err" &
perf_pid=$!
wait $st_pid $perf_pid
for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
wait 2>/dev/null
st_n=$(sed -n 's/^stacktap: recorded \([0-9]*\) events.*/\1/p' "$TMP/st.err")
perf_n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/perf.err")
st_bytes=$(stat -c %s "$TMP/st.data")
perf_bytes=$(stat -c %s "$TMP/perf.data")
st_lost=$(grep -E 'dropped|lost' "$TMP/st.err" | tr '\n' ';')
# A perf that kept far fewer samples than asked (lost chunks under load) makes
# its per-sample time a measure of its start-up: say so next to the figures.
perf_lost=$(grep -iE 'lost|throttl' "$TMP/perf.err" | tr '\n' ';')
((${perf_n:-0} * 2 < ${st_n:-0})) && perf_lost+=" perf kept $perf_n samples against our $st_n: its per-sample figures are not comparable"

note "perf --call-graph dwarf, ${DWARF_S}s"
busy $((DWARF_S + 10))
sleep 0.5
perf record --no-buildid-cache -F "$HZ" -a --call-graph dwarf -o "$TMP/dwarf.data" -- sleep "$DWARF_S" \
	> /dev/null 2> "$TMP/dwarf.err"
for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
wait 2>/dev/null
dwarf_n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/dwarf.err")
dwarf_bytes=$(stat -c %s "$TMP/dwarf.data")

# Each tool's runs, alternating: W[key] wall seconds, C[key] CPU seconds, M[key] peak KiB.
declare -A W C M CMDS
CMDS[st]="$ST report --no-progress -i $TMP/st.data"
CMDS[stf]="$ST report --no-progress -i $TMP/st.data -f"
CMDS[perf]="perf report -i $TMP/perf.data --stdio"
CMDS[perff]="perf report -i $TMP/perf.data --stdio --no-children -g folded"
KEYS="st perf stf perff"
if [ -n "$ST_BASE" ]; then
	CMDS[base]="$ST_BASE report --no-progress -i $TMP/st.data"
	CMDS[basef]="$ST_BASE report --no-progress -i $TMP/st.data -f"
	KEYS="st base perf stf basef perff"
fi
for ((r = 0; r < REPS; r++)); do
	for k in $KEYS; do
		# shellcheck disable=SC2086 # the command's words
		read -r w c m <<< "$(measure ${CMDS[$k]})"
		W[$k]+=" $w" C[$k]+=" $c" M[$k]+=" $m"
	done
done

per() { awk -v b="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", b / n; else print "-" }'; }
us() { awk -v s="$1" -v n="$2" 'BEGIN { if (n > 0 && s != "-" && s != "") printf "%.1f", s * 1e6 / n; else print "-" }'; }
med() { echo "$1" | median; }
# row LABEL KEY SAMPLES [PEER_KEY PEER_SAMPLES]: medians, per sample, and the
# peer's time per sample over ours (wall, CPU).
row() {
	local w c m pw pc
	w=$(med "${W[$2]}") c=$(med "${C[$2]}") m=$(med "${M[$2]}")
	printf '  %-44s %8s %7s %7s %7s %7s %7s' "$1" "$3" "$w" "$c" "$(us "$w" "$3")" \
		"$(us "$c" "$3")" "$((${m:-0} / 1024))"
	if [ -n "${4:-}" ]; then
		pw=$(med "${W[$4]}") pc=$(med "${C[$4]}")
		printf ' %7s %7s' "$(ratio "$(us "$pw" "$5")" "$(us "$w" "$3")")" \
			"$(ratio "$(us "$pc" "$5")" "$(us "$c" "$3")")"
	fi
	echo
}
echo "report speed: one run, ${DUR}s at ${HZ} Hz x $NCPU CPUs, $REPS reps, medians;" \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-44s %8s %7s %7s %7s %7s %7s %7s %7s\n' "" samples wall_s cpu_s wall_us cpu_us \
	peak_MB x_wall x_cpu
row "stacktap report (text)" st "$st_n" perf "$perf_n"
[ -n "$ST_BASE" ] && row "ST_BASE report (text)" base "$st_n" perf "$perf_n"
row "perf report --stdio" perf "$perf_n"
row "stacktap report -f" stf "$st_n" perff "$perf_n"
[ -n "$ST_BASE" ] && row "ST_BASE report -f" basef "$st_n" perff "$perf_n"
row "perf report --stdio --no-children -g folded" perff "$perf_n"
echo "  (us: per sample; x_wall, x_cpu: perf's time per sample over ours, against the perf line"
echo "   below; target >= 2. cpu = user + system seconds: the figure to judge by on a loaded"
echo "   machine. Every run, wall:$(for k in $KEYS; do printf ' %s[%s]' "$k" "${W[$k]# }"; done)"
echo "   cpu:$(for k in $KEYS; do printf ' %s[%s]' "$k" "${C[$k]# }"; done))"
echo "size: bytes per sample"
printf '  %-44s %10s %10s\n' "stacktap record profile (zstd)" "$(per "$st_bytes" "$st_n")" \
	"$(ratio "$(per "$st_bytes" "$st_n")" "$(per "$perf_bytes" "$perf_n")")"
printf '  %-44s %10s\n' "perf record -g (same run)" "$(per "$perf_bytes" "$perf_n")"
printf '  %-44s %10s %10s\n' "perf record --call-graph dwarf (${DWARF_S}s)" \
	"$(per "$dwarf_bytes" "$dwarf_n")" "$dwarf_n samples"
echo "  (ratio: stacktap / perf -g; target <= 0.5)"
[ -n "$st_lost" ] && echo "  stacktap losses in the run: $st_lost"
[ -n "$perf_lost" ] && echo "  perf in the run: $perf_lost"

# --- 3: memory of a long recording ----------------------------------------------
((RSS_S > 0)) || exit 0
note "record profile for ${RSS_S}s, RSS every ${RSS_EVERY}s"
busy $((RSS_S + 30))
"$ST" record -o "$TMP/rss.data" profile -F 999 --ringbuf-kb 65536 "$RSS_S" > /dev/null \
	2> "$TMP/rss.err" &
rss_pid=$!
series=""
for ((t = RSS_EVERY; t <= RSS_S; t += RSS_EVERY)); do
	sleep "$RSS_EVERY"
	kb=$(awk '/^VmRSS/ {print $2}' "/proc/$rss_pid/status" 2>/dev/null)
	[ -n "$kb" ] && series+=" $kb"
done
wait $rss_pid
for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
wait 2>/dev/null
echo "memory: stacktap record profile -F 999, system-wide, ${RSS_S}s (RSS in KiB every ${RSS_EVERY}s)"
echo "  $series"
echo "  recording: $(sed -n 's/^stacktap: recorded \([0-9]*\) events (\([0-9]*\) records, \([0-9.]*\) MB.*/\1 events, \3 MB/p' "$TMP/rss.err")"
