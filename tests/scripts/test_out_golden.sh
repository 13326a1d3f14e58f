#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Golden tests of every writer, on the hand-built report model of
# tests/helpers/out_model.c (every frame kind, lines, build IDs; no BPF), and
# the real readers on the same files: go tool pprof, speedscope's published
# schema (ajv), headless Chromium (playwright-core), babeltrace2.
#
# The golden files were made by this script with UPDATE_GOLDEN=1, i.e. by
#   $O/tests/out_model report FORMAT [events|samples|offcpu]   (and the readers below)
# and checked by hand against the model. No root. Run: O=build bash tests/scripts/test_out_golden.sh
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
MODEL="$ROOT/$O/tests/out_model"
GOLD="$ROOT/tests/golden/out"
JS="$ROOT/tests/js"
export HOME="$TMP" GOCACHE="$TMP/gocache" TZ=UTC

# golden NAME FILE: FILE must equal tests/golden/out/NAME (UPDATE_GOLDEN=1 rewrites it).
golden() {
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp "$2" "$GOLD/$1"; fi
	expect_file_eq "golden-$1" "$2" "$GOLD/$1"
}

[ -x "$MODEL" ] || { fail out-model-built "$MODEL missing (make tests)"; exit 0; }
[ -d "$JS/node_modules/playwright-core" ] || { fail js-deps "tests/js/node_modules missing (make deps)"; exit 0; }
mkdir -p "$GOLD"

# 1. Text-like writers, byte for byte.
for v in events samples offcpu; do
	"$MODEL" report text $v > "$TMP/text.$v"; golden "model.$v.text" "$TMP/text.$v"
	"$MODEL" report folded $v > "$TMP/folded.$v"; golden "model.$v.folded" "$TMP/folded.$v"
	"$MODEL" report perf-script $v > "$TMP/ps.$v"; golden "model.$v.perf-script" "$TMP/ps.$v"
done
"$MODEL" events json > "$TMP/ev.json"; golden model-events.json "$TMP/ev.json"
expect_eq json-lines-parse "$(jq -c '[.pid, .tid, .cpu, (.kernel|length), (.user|length)]' "$TMP/ev.json" | tr '\n' ' ')" \
	"[4242,4243,1,4,7] [4242,4242,0,0,7] [77,77,1,2,1] "
"$MODEL" events perf-script > "$TMP/ev.perf"; golden model-events.perf-script "$TMP/ev.perf"

# 2. pprof, decoded by Go's pprof: the raw profile (types, samples, labels,
#    locations with their inline lines, mappings with build IDs) and the traces.
for v in events samples offcpu; do
	"$MODEL" report pprof $v > "$TMP/m.$v.pb.gz"
	expect_eq "pprof-$v-is-gzip" "$(head -c2 "$TMP/m.$v.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b
	go tool pprof -raw -symbolize=none "$TMP/m.$v.pb.gz" > "$TMP/raw.$v" 2>&1
	golden "model.$v.pprof-raw" "$TMP/raw.$v"
	go tool pprof -traces -symbolize=none "$TMP/m.$v.pb.gz" > "$TMP/traces.$v" 2>&1
	golden "model.$v.pprof-traces" "$TMP/traces.$v"
done
expect_eq pprof-build-ids "$(sed -n '/^Mappings/,$p' "$TMP/raw.events" | grep -oE '[0-9a-f]{40}' | sort | tr '\n' ' ')" \
	"4f1e2d3c4b5a69788796a5b4c3d2e1f001122334 8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b "
expect_eq pprof-sample-types \
	"$(for v in events samples offcpu; do grep -A1 '^Samples:' "$TMP/raw.$v" | tail -1; done | tr -s ' ' | tr '\n' '|')" \
	"events/count|samples/count cpu/nanoseconds[dflt]|blocks/count offcpu/nanoseconds[dflt]|"

# 3. speedscope: golden, and valid against the schema speedscope publishes
#    (a broken copy must fail, so the validator is known to look).
"$MODEL" report speedscope samples > "$TMP/m.speedscope.json"
golden model.samples.speedscope.json "$TMP/m.speedscope.json"
validate() { node "$JS/speedscope_validate.js" "$1" 2>&1; }
expect_eq speedscope-schema-valid "$(validate "$TMP/m.speedscope.json")" valid
jq 'del(.shared)' "$TMP/m.speedscope.json" > "$TMP/broken.json"
expect_eq speedscope-schema-rejects-broken "$(validate "$TMP/broken.json" | cut -c1-7)" invalid
"$MODEL" report speedscope events > "$TMP/m.ev.speedscope.json"
expect_eq speedscope-events-valid "$(validate "$TMP/m.ev.speedscope.json")" valid
# speedscope itself (its app, in headless Chromium) imports the file and the
# perf-script text: the stacks it shows, exported back (weights too for ours;
# for perf script it weighs by time, its own way, so stacks only).
(cd "$JS" && timeout 180 node speedscope_import.js "$TMP/m.speedscope.json") > "$TMP/app.json.txt" 2>&1
golden model.samples.speedscope-app "$TMP/app.json.txt"
"$MODEL" report perf-script samples > "$TMP/ps.samples"
(cd "$JS" && timeout 180 node speedscope_import.js "$TMP/ps.samples") > "$TMP/app.ps.txt" 2>&1
cut -d'|' -f1,2 "$TMP/app.ps.txt" > "$TMP/app.ps.stacks"
golden model.samples.perf-script-speedscope-app "$TMP/app.ps.stacks"
expect_eq speedscope-root-first "$(jq -c '.shared.frames as $f | .profiles[1].samples[1] | map($f[.].name)' "$TMP/m.speedscope.json")" \
	'["[truncated]","main","a","b","c","leaf","leaf_helper (inlined)","entry_SYSCALL_64_after_hwframe","do_syscall_64","nft_do_chain [nf_tables]","perf_syscall_enter"]'

# 4. Flame graphs: the data the page lays out (golden), then the page itself
#    in headless Chromium: widths, kinds, tooltip, search, zoom.
fgdata() { sed -n '/^<script id="fg-data"/,/^<\/script>/p' "$1"; }
"$MODEL" report flamegraph > "$TMP/m.html"
fgdata "$TMP/m.html" > "$TMP/m.fg"; golden model.events.flamegraph-data "$TMP/m.fg"
chromium_check() { # NAME PAGE EXPECT_JSON
	local out
	out=$(cd "$JS" && timeout 180 node flamegraph_check.js "$2" "$TMP/$1.png" "$3" 2>&1)
	if [ $? = 0 ] && [ -s "$TMP/$1.png" ]; then pass "$1"; else fail "$1" "$out"; fi
	[ -n "${SCREENSHOTS:-}" ] && cp "$TMP/$1.png" "$SCREENSHOTS/" 2>/dev/null
	return 0
}
chromium_check flamegraph-model "$TMP/m.html" '{"total":10,
 "frames":[["perf_syscall_enter",5],["leaf",8],["chain [4242]",8],["[truncated]",5],["kworker/1:0 [77]",2]],
 "kinds":{"leaf":"u","perf_syscall_enter":"k","nft_do_chain [nf_tables]":"k","leaf_helper (inlined)":"i","[truncated]":"m","[user stack lost: task_work busy]":"m","chain [4242]":"p"},
 "search":{"re":"^leaf","names":["leaf","leaf_helper (inlined)"],"matched":"Matched: 80.00% (8 of 10 events)"},
 "zoom":"b"}'
"$MODEL" narrow > "$TMP/narrow.html"
chromium_check flamegraph-narrow-merged "$TMP/narrow.html" '{"total":10003,
 "frames":[["hot",10000],["[3 narrow frames]",3]], "narrow":"[3 narrow frames]",
 "search":{"re":"^cold","names":[],"matched":"Matched: 0.03% (3 of 10003 events)"}}'
"$MODEL" diff > "$TMP/diff.html"
fgdata "$TMP/diff.html" > "$TMP/diff.fg"; golden model.diff.flamegraph-data "$TMP/diff.fg"
chromium_check flamegraph-diff "$TMP/diff.html" '{"total":10,
 "frames":[["perf_syscall_enter",5],["__libc_start_call_main",3]],
 "diff":{"grew":["__libc_start_call_main","__schedule"],"shrank":["perf_syscall_enter","leaf_helper (inlined)"]},
 "zoom":"main"}'

# 5. CTF: the trace as babeltrace2 prints it (seconds, so no time zone).
rm -rf "$TMP/ctf"
"$MODEL" events ctf "$TMP/ctf"
babeltrace2 --clock-seconds "$TMP/ctf" > "$TMP/ctf.txt" 2>&1
golden model-events.ctf.babeltrace2 "$TMP/ctf.txt"
expect_eq ctf-event-count "$(grep -c 't:syscalls:sys_enter_getppid:' "$TMP/ctf.txt")" 3
cp "$TMP/ctf/metadata" "$TMP/ctf.metadata"; golden model-events.ctf-metadata "$TMP/ctf.metadata"
