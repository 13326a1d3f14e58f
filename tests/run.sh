#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test runner behind `make check`: unit tests, BPF integration tests (root),
# fuzz smoke runs. Ends with one "N passed, N failed, N skipped" line.
#
# CI=true turns "BPF unavailable" from a skip into a failure.
# FUZZ_SECONDS (default 20) bounds each fuzzer run; ONLY=regex filters test names.
set -u
O=${O:-build}
export O
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export ST="$ROOT/$O/stacktap"
RESULTS=$(mktemp /tmp/stacktap-results.XXXXXX)
export RESULTS
trap 'rm -f "$RESULTS"' EXIT
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
ONLY=${ONLY:-.}

record() { echo "$1 $2" >> "$RESULTS"; }
selected() { [[ "$1" =~ $ONLY ]]; }

run_unit() {
	local t name
	for t in "$O"/tests/test_*; do
		[ -x "$t" ] || continue
		name=unit/$(basename "$t")
		selected "$name" || continue
		if "$t" >/tmp/stacktap-unit.log 2>&1; then
			record pass "$name"
		else
			record fail "$name"; echo "FAIL $name"; sed 's/^/    /' /tmp/stacktap-unit.log
		fi
	done
}

# Script tests that need no root (tests/scripts/test_*.sh), same lib.sh protocol.
run_scripts() {
	local s name
	for s in tests/scripts/test_*.sh; do
		[ -f "$s" ] || continue
		name=scripts/$(basename "$s" .sh)
		selected "$name" || continue
		echo "  RUN  $name"
		if ! bash "$s"; then
			record fail "$name"; echo "FAIL $name (script exited non-zero)"
		fi
	done
}

bpf_usable() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	"$ST" count -D 0.05 t:syscalls:sys_enter_getppid >/dev/null 2>/tmp/stacktap-probe.log \
		|| { head -1 /tmp/stacktap-probe.log; return 1; }
}

run_integration() {
	local why s name
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
		selected "$name" || continue
		echo "  RUN  $name"
		# Each script records its own cases through tests/integration/lib.sh.
		if ! bash "$s"; then
			record fail "$name"; echo "FAIL $name (script exited non-zero)"
		fi
	done
}

run_fuzz() {
	local f name corpus work
	for f in "$O"/fuzz/fuzz_*; do
		[ -x "$f" ] || continue
		name=fuzz/$(basename "$f")
		selected "$name" || continue
		corpus=fuzz/corpus/$(basename "$f" | sed 's/^fuzz_//')
		work=$(mktemp -d /tmp/stacktap-fuzz.XXXXXX)
		[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
		if "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -print_final_stats=0 \
			"$work" >/tmp/stacktap-fuzz.log 2>&1; then
			record pass "$name"
		else
			record fail "$name"; echo "FAIL $name"; tail -40 /tmp/stacktap-fuzz.log
		fi
		rm -rf "$work"
	done
}

run_unit
run_scripts
run_integration
run_fuzz

pass=$(grep -c '^pass ' "$RESULTS")
fail=$(grep -c '^fail ' "$RESULTS")
skip=$(grep -c '^skip ' "$RESULTS")
grep '^fail ' "$RESULTS" | sed 's/^fail /  failed: /'
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
