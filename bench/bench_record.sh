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
#    our folded output). Target: stacktap at least 2x faster.
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
# BENCH_REPS (3), BENCH_DWARF_S (2), BENCH_RSS_S (120), BENCH_RSS_EVERY (10).
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
NCPU=$(nproc)
TMP=$(mktemp -d /var/tmp/stacktap-bench-record.XXXXXX)

BENCH_NAME=bench_record
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap bench_cleanup EXIT

command -v perf > /dev/null || { note "perf missing: make bench-deps"; exit 1; }

# Workloads: one per CPU, spinning longer than the recording lasts.
busy() { # SECONDS
	local i
	for ((i = 0; i < NCPU; i++)); do
		if ((i % 2)); then "$W/busy_fp" "$1" > /dev/null & else "$W/busy_nofp" "$1" > /dev/null & fi
	done
}

# seconds_of CMD...: wall seconds of one run, output discarded.
seconds_of() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null 2> "$TMP/last.err" || { note "failed: $* ($(tail -1 "$TMP/last.err"))"; echo -; return; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
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
perf record -F "$HZ" -a -g -o "$TMP/perf.data" -- sleep "$DUR" > /dev/null 2> "$TMP/perf.err" &
perf_pid=$!
wait $st_pid $perf_pid
for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
wait 2>/dev/null
st_n=$(sed -n 's/^stacktap: recorded \([0-9]*\) events.*/\1/p' "$TMP/st.err")
perf_n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/perf.err")
st_bytes=$(stat -c %s "$TMP/st.data")
perf_bytes=$(stat -c %s "$TMP/perf.data")
st_lost=$(grep -E 'dropped|lost' "$TMP/st.err" | tr '\n' ';')

note "perf --call-graph dwarf, ${DWARF_S}s"
busy $((DWARF_S + 10))
sleep 0.5
perf record -F "$HZ" -a --call-graph dwarf -o "$TMP/dwarf.data" -- sleep "$DWARF_S" \
	> /dev/null 2> "$TMP/dwarf.err"
for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
wait 2>/dev/null
dwarf_n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$TMP/dwarf.err")
dwarf_bytes=$(stat -c %s "$TMP/dwarf.data")

declare -A T
for ((r = 0; r < REPS; r++)); do
	T[st]+=" $(seconds_of "$ST" report --no-progress -i "$TMP/st.data")"
	T[perf]+=" $(seconds_of perf report -i "$TMP/perf.data" --stdio)"
	T[stf]+=" $(seconds_of "$ST" report --no-progress -i "$TMP/st.data" -f)"
	T[perff]+=" $(seconds_of perf report -i "$TMP/perf.data" --stdio --no-children -g folded)"
done
st_s=$(echo "${T[st]}" | median); perf_s=$(echo "${T[perf]}" | median)
stf_s=$(echo "${T[stf]}" | median); perff_s=$(echo "${T[perff]}" | median)

per() { awk -v b="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", b / n; else print "-" }'; }
us() { awk -v s="$1" -v n="$2" 'BEGIN { if (n > 0 && s != "-") printf "%.1f", s * 1e6 / n; else print "-" }'; }
echo "report speed: one run, ${DUR}s at ${HZ} Hz x $NCPU CPUs, $REPS reps, median seconds"
printf '  %-44s %9s %9s %9s %9s\n' "" samples seconds "us/sample" "vs perf"
printf '  %-44s %9s %9s %9s %9s\n' "stacktap report (text)" "$st_n" "$st_s" "$(us "$st_s" "$st_n")" \
	"$(ratio "$(us "$perf_s" "$perf_n")" "$(us "$st_s" "$st_n")")"
printf '  %-44s %9s %9s %9s\n' "perf report --stdio" "$perf_n" "$perf_s" "$(us "$perf_s" "$perf_n")"
printf '  %-44s %9s %9s %9s %9s\n' "stacktap report -f" "$st_n" "$stf_s" "$(us "$stf_s" "$st_n")" \
	"$(ratio "$(us "$perff_s" "$perf_n")" "$(us "$stf_s" "$st_n")")"
printf '  %-44s %9s %9s %9s\n' "perf report --stdio --no-children -g folded" "$perf_n" "$perff_s" \
	"$(us "$perff_s" "$perf_n")"
echo "  (\"vs perf\": perf's time per sample over ours, against the perf line below; target >= 2)"
echo "size: bytes per sample"
printf '  %-44s %10s %10s\n' "stacktap record profile (zstd)" "$(per "$st_bytes" "$st_n")" \
	"$(ratio "$(per "$st_bytes" "$st_n")" "$(per "$perf_bytes" "$perf_n")")"
printf '  %-44s %10s\n' "perf record -g (same run)" "$(per "$perf_bytes" "$perf_n")"
printf '  %-44s %10s %10s\n' "perf record --call-graph dwarf (${DWARF_S}s)" \
	"$(per "$dwarf_bytes" "$dwarf_n")" "$dwarf_n samples"
echo "  (ratio: stacktap / perf -g; target <= 0.5)"
[ -n "$st_lost" ] && echo "  stacktap losses in the run: $st_lost"

# --- 3: memory of a long recording ----------------------------------------------
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
