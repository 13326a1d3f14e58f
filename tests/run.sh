#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test runner behind `make check`: unit tests, script tests, BPF
# integration tests (root), fuzz smoke runs. Ends with one
# "N passed, N failed, N skipped" line.
#
# A test that cannot run is a skip, never a pass: a unit test exits 77 when
# it checked nothing and prints "SKIP what: why" for each part it could not
# run. A test whose source exists but whose binary was not built fails, and
# so does a run in which no test ran.
#
# Every log of this run lives in its own directory (RUN_DIR), so two runs at
# once never overwrite each other's; it is removed when the run passes.
#
# CI=true turns "BPF unavailable" from a skip into a failure.
# FUZZ_SECONDS (default 20) bounds each fuzzer run, FUZZ_JOBS (one per CPU)
# of them run at once; ONLY=regex filters test names.
set -u
O=${O:-build}
export O
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export ST="$ROOT/$O/stacktap"
RUN_DIR=$(mktemp -d /tmp/stacktap-check.XXXXXX)
RESULTS=$RUN_DIR/results
: > "$RESULTS"
export RUN_DIR RESULTS
# Tests never read or fill the user's own unwind table cache: each run starts
# with an empty one of its own (removed with RUN_DIR).
export STACKTAP_CACHE_DIR="$RUN_DIR/table-cache"
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
ONLY=${ONLY:-.}

record() { echo "$1 $2" >> "$RESULTS"; }
selected() { [[ "$1" =~ $ONLY ]]; }

# unit_result NAME RC LOG: exit 0 passes, 77 skips, anything else fails; each
# "SKIP what: why" line of a passing test is a skip of its own.
unit_result() {
	local name=$1 rc=$2 log=$3 line what why
	case $rc in
	0) record pass "$name" ;;
	77) record skip "$name"; echo "SKIP $name: $(sed -n 's/^SKIP //p' "$log" | head -1)"; return ;;
	*) record fail "$name"; echo "FAIL $name"; sed 's/^/    /' "$log"; return ;;
	esac
	while IFS= read -r line; do
		what=${line%%:*}; why=${line#*: }
		record skip "$name/$what"; echo "SKIP $name/$what: $why"
	done < <(sed -n 's/^SKIP //p' "$log")
}

run_unit() {
	local src t name log
	for src in tests/unit/test_*.c; do
		[ -f "$src" ] || continue
		name=unit/$(basename "$src" .c)
		t=$O/tests/$(basename "$src" .c)
		selected "$name" || continue
		if [ ! -x "$t" ]; then
			record fail "$name"; echo "FAIL $name: $t was not built (make tests)"
			continue
		fi
		log=$RUN_DIR/$(basename "$t").log
		"$t" > "$log" 2>&1
		unit_result "$name" $? "$log"
	done
}

# run_script NAME SCRIPT: a script records its own cases through
# tests/integration/lib.sh; one that dies, or records none, fails.
run_script() {
	local name=$1 s=$2 before start=$SECONDS
	before=$(wc -l < "$RESULTS")
	echo "  RUN  $name"
	if ! bash "$s"; then
		record fail "$name"; echo "FAIL $name (script exited non-zero)"
	elif [ "$(wc -l < "$RESULTS")" = "$before" ]; then
		record fail "$name"; echo "FAIL $name (recorded no result)"
	fi
	# The suite has a time budget; each script's share shows where it goes.
	echo "  TIME $name $((SECONDS - start)) s"
}

# Script tests that need no root (tests/scripts/test_*.sh).
run_scripts() {
	local s name
	for s in tests/scripts/test_*.sh; do
		[ -f "$s" ] || continue
		name=scripts/$(basename "$s" .sh)
		selected "$name" && run_script "$name" "$s"
	done
}

bpf_usable() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	"$ST" count -D 0.05 t:syscalls:sys_enter_getppid >/dev/null 2>"$RUN_DIR/probe.log" \
		|| { head -1 "$RUN_DIR/probe.log"; return 1; }
}

run_integration() {
	local why s name any=
	for s in tests/integration/test_*.sh; do
		selected "integration/$(basename "$s" .sh)" && any=1
	done
	[ -n "$any" ] || return 0
	if ! why=$(bpf_usable); then
		if [ "${CI:-}" = true ]; then
			echo "FAIL integration: BPF unavailable under CI=true: $why"
			record fail integration/bpf-available
		else
			echo "SKIP integration tests: BPF unavailable: $why"
			record skip integration
		fi
		return
	fi
	for s in tests/integration/test_*.sh; do
		[ -f "$s" ] || continue
		name=integration/$(basename "$s" .sh)
		selected "$name" && run_script "$name" "$s"
	done
}

# fuzz_one SRC: one fuzzer's smoke run over its seed corpus. It writes its
# result line and any failure text to files of its own, so runs in parallel
# never interleave their output.
fuzz_one() {
	local src=$1 f name corpus work log
	f=$O/fuzz/$(basename "$src" .c)
	name=fuzz/$(basename "$f")
	log=$RUN_DIR/$(basename "$f").log
	if [ ! -x "$f" ]; then
		echo "fail $name" > "$log.result"
		echo "FAIL $name: $f was not built (make tests)" > "$log.say"
		return
	fi
	corpus=fuzz/corpus/$(basename "$f" | sed 's/^fuzz_//')
	work=$(mktemp -d "$RUN_DIR/fuzz.XXXXXX")
	[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
	# Crash and slow-input artifacts land in this run's directory, not the tree.
	if "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$RUN_DIR/$(basename "$f")-" "$work" > "$log" 2>&1; then
		echo "pass $name" > "$log.result"
	else
		echo "fail $name" > "$log.result"
		{ echo "FAIL $name"; tail -40 "$log"; } > "$log.say"
	fi
	rm -rf "$work"
}

# The fuzzers are single-threaded and each runs for a fixed time, so they run
# FUZZ_JOBS at a time (one per CPU by default): the same fuzzing per harness in
# a fraction of the wall time. Nothing else runs beside them.
run_fuzz() {
	local src log jobs=0 done=()
	for src in fuzz/fuzz_*.c; do
		[ -f "$src" ] || continue
		selected "fuzz/$(basename "$src" .c)" || continue
		if [ "$jobs" -ge "$FUZZ_JOBS" ]; then
			wait -n; jobs=$((jobs - 1))
		fi
		fuzz_one "$src" & jobs=$((jobs + 1))
		done+=("$RUN_DIR/$(basename "$src" .c).log")
	done
	wait
	for log in "${done[@]}"; do
		cat "$log.result" >> "$RESULTS" 2>/dev/null \
			|| echo "fail fuzz/$(basename "$log" .log)" >> "$RESULTS"
		[ -f "$log.say" ] && cat "$log.say"
	done
	return 0
}

run_unit
run_scripts
run_integration
run_fuzz

pass=$(grep -c '^pass ' "$RESULTS")
fail=$(grep -c '^fail ' "$RESULTS")
skip=$(grep -c '^skip ' "$RESULTS")
if [ $((pass + fail + skip)) = 0 ]; then
	echo "FAIL no test ran (ONLY='$ONLY' selected none, or nothing was built)"
	record fail no-tests; fail=1
fi
grep '^fail ' "$RESULTS" | sed 's/^fail /  failed: /'
echo "$pass passed, $fail failed, $skip skipped"
if [ "$fail" = 0 ]; then
	rm -rf "$RUN_DIR"
else
	echo "logs of this run: $RUN_DIR"
fi
[ "$fail" = 0 ]
