#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --format on real traced workloads with known chains, read by the real
# readers: go tool pprof, speedscope's schema, perf-script folded back,
# headless Chromium on the flame graph, babeltrace2 on snoop's CTF trace;
# and --format's usage errors.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"
source "$(dirname "$0")/names_lib.sh"
export HOME="$TMP" GOCACHE="$TMP/gocache" TZ=UTC
JS="$ROOT/tests/js"

N=37
CHAIN=$W/chain_fp
USER_CHAIN="leaf c b a main __libc_start_call_main __libc_start_main _start"
KSYSCALL="perf_syscall_enter syscall_trace_enter do_syscall_64 entry_SYSCALL_64_after_hwframe"
build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }
LIBC=$(ldd "$CHAIN" | awk '$1 ~ /^libc\.so/ {print $3}')
LIBC=$(readlink -f "$LIBC")

# pprof_traces FILE [PPROF_ARGS]: go tool pprof -traces, one line per trace,
# "VALUE frame frame ..." (leaf first), the value in the sample type's own
# unit: counts as they are, times in ns.
pprof_traces() {
	local f=$1
	shift
	go tool pprof -traces -symbolize=none "$@" "$f" 2>&1 | awk '
		function ns(v,   u) { u = v; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
			return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
		/^-+\+/ { if (t != "") print t; t = ""; started = 1; next }
		!started || /^ *[a-z_]+: / { next }
		NF { if (t == "") t = sprintf("%.0f", ns($1)) " " $2; else t = t " " $1 }
		END { if (t != "") print t }'
}
# sum_traces REGEX: the sum of the values of the traces (stdin) whose frames match REGEX.
sum_traces() { awk -v re="$1" '{v = $1; $1 = ""; if ($0 ~ re) s += v} END {printf "%.0f\n", s}'; }

# 1. pprof from count: the exact chain and count; the mappings carry the
#    build IDs of the files (where the symbolizer gives them, it gives them all).
run_traced pprof "$CHAIN" $N -- count --format pprof -o "$TMP/count.pb.gz" -p @PID@ t:syscalls:sys_enter_getppid
expect_eq pprof-count-rc "$(cat "$TMP/pprof.rc")" 0
expect_eq pprof-count-traces "$(pprof_traces "$TMP/count.pb.gz")" "$N $KSYSCALL $USER_CHAIN"
go tool pprof -raw -symbolize=none "$TMP/count.pb.gz" > "$TMP/count.raw" 2>&1
expect_eq pprof-count-sample-type "$(grep -A1 '^Samples:' "$TMP/count.raw" | tail -1 | tr -d ' ')" events/count
expect_eq pprof-build-id-exe "$(awk -v f="$(readlink -f "$CHAIN")" '$3 == f {print $4}' "$TMP/count.raw")" \
	"$(build_id "$CHAIN")"
expect_eq pprof-build-id-libc "$(awk -v f="$LIBC" '$3 == f {print $4}' "$TMP/count.raw")" "$(build_id "$LIBC")"

# 2. pprof from profile: samples/count and cpu/nanoseconds, cpu = samples x
#    period exactly, and the chain main -> b1 -> b2 -> b3 -> spin in >= 95%
#    (how many samples a run gets is test_profile.sh's to check).
HZ=49
run_wl prof "$W/busy_fp" 2 -- profile -F $HZ -U --format pprof -o "$TMP/prof.pb.gz" -p @PID@
go tool pprof -raw -symbolize=none "$TMP/prof.pb.gz" > "$TMP/prof.raw" 2>&1
expect_eq pprof-profile-types "$(grep -A1 '^Samples:' "$TMP/prof.raw" | tail -1 | tr -s ' ')" \
	"samples/count cpu/nanoseconds[dflt]"
expect_eq pprof-profile-period "$(sed -n 's/^Period: //p' "$TMP/prof.raw")" $((1000000000 / HZ))
# -raw has the exact values of every sample, "COUNT NS: LOCATIONS" (an empty stack too).
read -r samples cpu_ns < <(awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0}
	on && $2 ~ /:$/ {n += $1; c += $2} END {printf "%.0f %.0f\n", n, c}' "$TMP/prof.raw")
if [ "$cpu_ns" = $((samples * (1000000000 / HZ))) ] && [ "$samples" -gt 0 ]; then
	pass pprof-profile-cpu-is-samples-x-period
else
	fail pprof-profile-cpu-is-samples-x-period "got $samples samples, $cpu_ns ns; period $((1000000000 / HZ))" \
		"$(sed -n '/^Samples:/,/^Locations/p' "$TMP/prof.raw" | head -40)"
fi
pprof_traces "$TMP/prof.pb.gz" -sample_index=samples > "$TMP/prof.samples"
chain=$(sum_traces ' spin b3 b2 b1 main __libc_start_call_main __libc_start_main _start$' < "$TMP/prof.samples")
at_least pprof-profile-chain-95pct $((chain * 100)) $((samples * 95))

# 3. pprof from offcpu: off-CPU nanoseconds of the nap chain, within 5% of
#    what the workload measured (as test_offcpu.sh asks of the text output).
run_wl off "$W/offcpu_fp" sleep 100 5 -- offcpu -U --format pprof -o "$TMP/off.pb.gz" -p @PID@
go tool pprof -raw -symbolize=none "$TMP/off.pb.gz" > "$TMP/off.raw" 2>&1
expect_eq pprof-offcpu-types "$(grep -A1 '^Samples:' "$TMP/off.raw" | tail -1 | tr -s ' ')" \
	"blocks/count offcpu/nanoseconds[dflt]"
nap=$(pprof_traces "$TMP/off.pb.gz" |
	sum_traces ' now_ns nap s3 s2 s1 run_sleep main __libc_start_call_main __libc_start_main _start$')
within pprof-offcpu-nap-time "$nap" "$(wl_value off slept_ns)" 5

# 3b. pprof with inline frames (the -O2 -g workload, --lines): in_b2 and in_b,
#    inlined into in_a, are lines of in_a's location, innermost first, each with
#    the file:line of its call; the mapping says it has inline frames. -traces
#    prints them "(inline)".
I=$ROOT/tests/workloads/inline.c
run_traced ppinl "$W/inline" $N -- count -U --lines --format pprof -o "$TMP/inl.pb.gz" -p @PID@ \
	"u:$W/inline:in_leaf"
expect_eq pprof-inline-traces "$(go tool pprof -traces -symbolize=none "$TMP/inl.pb.gz" 2>&1 |
	awk '/^-+\+/ {n++} n == 1 && !/^-/ && !/comm:/ {sub(/^ *[0-9]+ +/, ""); sub(/^ +/, ""); print}' |
	paste -sd'|')" \
	"in_leaf|in_c|in_b2 (inline)|in_b (inline)|in_a|main|__libc_start_call_main|__libc_start_main|_start"
go tool pprof -raw -symbolize=none "$TMP/inl.pb.gz" > "$TMP/inl.raw" 2>&1
expect_eq pprof-inline-location "$(awk '/^Locations/ {on = 1; next} /^Mappings/ {on = 0}
	on && /in_b2/ {p = 1} p && (/in_b2|in_b |in_a/) {sub(/^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ /, ""); sub(/^ +/, ""); print}
	on && /in_a/ {p = 0}' "$TMP/inl.raw" | paste -sd'|')" \
	"in_b2 $I:35 s=0|in_b $I:42 s=0|in_a $I:49 s=0"
expect_eq pprof-inline-mapping "$(grep -c "$W/inline .*\[IN\]" "$TMP/inl.raw")" 1

# 4. speedscope: valid against speedscope's schema; the chain root first, N events.
run_traced ss "$CHAIN" $N -- count --format speedscope -o "$TMP/ss.json" -p @PID@ "u:$CHAIN:leaf"
expect_eq speedscope-valid "$(node "$JS/speedscope_validate.js" "$TMP/ss.json" 2>&1)" valid
expect_eq speedscope-chain-root-first \
	"$(jq -r '.shared.frames as $f | .profiles[] | (.samples[] | map($f[.].name) | join(" ")), .weights[]' "$TMP/ss.json")" \
	"$(echo "$USER_CHAIN" | tr ' ' '\n' | tac | tr '\n' ' ' | sed 's/ $//')
$N"

# 5. perf-script: folded back (the stackcollapse way: comm, frames root
#    first, one count per record) it is exactly count -f of the same workload.
fold_perf_script() {
	awk '/^[^\t]/ && NF { comm = $1; s = ""; next }
	     /^\t/ { f = $0; sub(/^\t *[0-9a-f]+ /, "", f); sub(/ \([^()]*\)$/, "", f); sub(/\+0x[0-9a-f]+$/, "", f)
		     s = (s == "" ? f : f ";" s); next }
	     /^$/ && s != "" { n[comm ";" s]++; s = "" }
	     END { for (k in n) print k, n[k] }' "$1" | sort
}
run_traced ps "$CHAIN" $N -- count --format perf-script -p @PID@ t:syscalls:sys_enter_getppid
run_traced psf "$CHAIN" $N -- count -f -p @PID@ t:syscalls:sys_enter_getppid
expect_eq perf-script-header "$(head -1 "$TMP/ps.out" | sed 's/ \+/ /g')" "chain_fp 0/0 0.000000: 1 t:syscalls:sys_enter_getppid: "
expect_eq perf-script-records "$(grep -c 't:syscalls:sys_enter_getppid: $' "$TMP/ps.out")" $N
expect_eq perf-script-folds-to-folded "$(fold_perf_script "$TMP/ps.out")" "$(sort "$TMP/psf.out")"
(cd "$JS" && timeout 180 node speedscope_import.js "$TMP/ps.out") > "$TMP/ps.app" 2>&1
expect_eq perf-script-speedscope-imports "$(cut -d'|' -f1,2 "$TMP/ps.app")" \
	"chain_fp|$(echo "$USER_CHAIN" | tr ' ' '\n' | tac | tr '\n' ';')$(echo "$KSYSCALL" | tr ' ' '\n' | tac | tr '\n' ';' | sed 's/;$//')"
run_traced snps "$CHAIN" $N -- snoop --format perf-script -n 5 -p @PID@ t:syscalls:sys_enter_getppid
wpid=$(awk '{print $2}' "$TMP/snps.w")
expect_eq snoop-perf-script-headers \
	"$(grep -v '^\s' "$TMP/snps.out" | grep . | sed -E 's/\[[0-9]{3}\] +[0-9]+\.[0-9]{6}:/[CPU] TIME:/; s/ +/ /g' | sort | uniq -c | sed 's/^ *//')" \
	"5 chain_fp $wpid/$wpid [CPU] TIME: 1 t:syscalls:sys_enter_getppid: "
expect_eq snoop-perf-script-folds "$(fold_perf_script "$TMP/snps.out")" \
	"chain_fp;$(echo "$USER_CHAIN" | tr ' ' '\n' | tac | tr '\n' ';')$(echo "$KSYSCALL" | tr ' ' '\n' | tac | tr '\n' ';' | sed 's/;$//') 5"

# 6. Flame graph of one process with three probes: uprobes at c and at leaf
#    and the getppid() tracepoint, N events each, so c (under which all three
#    stacks lie) spans the graph, leaf two thirds and the kernel frames one
#    third. In headless Chromium the widths are those shares, kernel and user
#    frames are coloured apart, a search shows the right share, a click zooms.
#    (-p keeps the test to its own workload: tracing every process would
#    also trace what other tests run at the same time.)
run_traced fg "$CHAIN" $N -- count --format flamegraph -o "$TMP/fg.html" -p @PID@ \
	"u:$CHAIN:c" "u:$CHAIN:leaf" t:syscalls:sys_enter_getppid
expect_eq flamegraph-rc "$(cat "$TMP/fg.rc")" 0
T3=$((3 * N))
out=$(cd "$JS" && timeout 180 node flamegraph_check.js "$TMP/fg.html" "$TMP/fg.png" '{"total":'$T3',
 "frames":[["perf_syscall_enter",'$N'],["leaf",'$((2 * N))'],["c",'$T3'],["main",'$T3'],["_start",'$T3'],["chain_fp",'$T3']],
 "kinds":{"leaf":"u","main":"u","perf_syscall_enter":"k","do_syscall_64":"k","chain_fp":"p"},
 "search":{"re":"^leaf$","names":["leaf"],"matched":"Matched: 66.67% ('$((2 * N))' of '$T3' events)"},
 "zoom":"leaf"}' 2>&1)
if [ $? = 0 ] && [ -s "$TMP/fg.png" ]; then pass flamegraph-chromium; else fail flamegraph-chromium "$out"; fi

# 7. CTF: snoop -n 5 writes a trace babeltrace2 reads as exactly 5 events,
#    each with the workload's pid, tid and the exact kernel and user chains.
run_traced ctf "$CHAIN" $N -- snoop --format ctf -o "$TMP/trace" -n 5 -p @PID@ t:syscalls:sys_enter_getppid
wpid=$(awk '{print $2}' "$TMP/ctf.w")
babeltrace2 "$TMP/trace" > "$TMP/ctf.txt" 2> "$TMP/ctf.bterr"
expect_eq ctf-events "$(wc -l < "$TMP/ctf.txt")" 5
frames() { local i=0 s=""; for f in "$@"; do s="$s${s:+, }[$i] = \"$f\""; i=$((i + 1)); done; echo "$s"; }
expect_eq ctf-chains "$(sed -E 's/^\[[^]]*\] \([^)]*\) //; s/cpu = [0-9]+/cpu = C/; s/_ips = \[( \[[0-9]+\] = 0x[0-9A-F]+,?)* \]/_ips = IPS/g' "$TMP/ctf.txt" | sort | uniq -c | sed 's/^ *//')" \
	"5 $(hostname) t:syscalls:sys_enter_getppid: { comm = \"chain_fp\", pid = $wpid, tid = $wpid, cpu = C, kernel_depth = 4, kernel_ips = IPS, kernel_frames = [ $(frames $KSYSCALL) ], user_depth = 8, user_ips = IPS, user_frames = [ $(frames $USER_CHAIN) ] }"
expect_eq ctf-leaf-address "$(grep -c "user_ips = \[ \[0\] = 0x[0-9A-F]*, " "$TMP/ctf.txt")" 5

# 8. Names through every format: the C++ workload's chain (demangled templates,
#    a lambda, std::function, three inline frames between real ones) read back
#    by each format's own reader, exactly; test_names.sh checks text, folded and
#    JSON. Inline frames say so the way each reader shows them.
CXX_PROBE="u:$CXX:$CXX_LEAF"
cxx_chain() { printf '%s\n' "${CXX_CHAIN[@]}"; } # leaf first, " (inlined)" marks
cxx_root_first() { cxx_chain | sed 's/ (inlined)$//' | tac | paste -sd"$1"; }

run_traced cxxpp "$CXX" $N -- count -U --format pprof -o "$TMP/cxx.pb.gz" -p @PID@ "$CXX_PROBE"
expect_eq cxx-pprof-traces "$(go tool pprof -traces -symbolize=none "$TMP/cxx.pb.gz" 2>&1 |
	awk '/^-+\+/ {n++} n == 1 && !/^-/ && !/comm:/ {sub(/^ *[0-9]+ +/, ""); sub(/^ +/, ""); print}' |
	paste -sd'|')|$(go tool pprof -top -symbolize=none "$TMP/cxx.pb.gz" 2>&1 | awk '/app::leaf\(int\)$/ {print $1}')" \
	"$(cxx_chain | sed 's/ (inlined)$/ (inline)/' | paste -sd'|')|$N"

run_traced cxxss "$CXX" $N -- count -U --format speedscope -o "$TMP/cxx.json" -p @PID@ "$CXX_PROBE"
expect_eq cxx-speedscope-valid "$(node "$JS/speedscope_validate.js" "$TMP/cxx.json" 2>&1)" valid
expect_eq cxx-speedscope-chain \
	"$(jq -r '.shared.frames as $f | .profiles[] | (.samples[] | map($f[.].name) | join("|")), .weights[]' "$TMP/cxx.json")" \
	"$(cxx_chain | tac | paste -sd'|')
$N"

run_traced cxxps "$CXX" $N -- count -U --format perf-script -p @PID@ "$CXX_PROBE"
# As perf prints them: "NAME+0xOFF (FILE)" (+0x0 at the probed entry), an
# inline frame "NAME (inlined)" at the address of the frame it is inlined into.
expect_eq cxx-perf-script-frames "$(awk '/^\t/ {sub(/^\t *[0-9a-f]+ /, ""); print}' "$TMP/cxxps.out" |
	sed -E 's/\+0x[1-9a-f][0-9a-f]* \(/+OFF (/' | sort | uniq -c | sed 's/^ *//' | sort -k2)" \
	"$(cxx_chain | awk -v n=$N -v exe="$(readlink -f "$CXX")" -v libc="$LIBC" '
		/ \(inlined\)$/ {print n, $0; next}
		/^__libc/ {print n, $0 "+OFF (" libc ")"; next}
		NR == 1 {print n, $0 "+0x0 (" exe ")"; next}
		{print n, $0 "+OFF (" exe ")"}' | sort -k2)"
expect_eq cxx-perf-script-folds "$(fold_perf_script "$TMP/cxxps.out")" "cxx_names;$(cxx_root_first ';') $N"
(cd "$JS" && timeout 180 node speedscope_import.js "$TMP/cxxps.out") > "$TMP/cxxps.app" 2>&1
expect_eq cxx-perf-script-speedscope-imports "$(cut -d'|' -f1,2 "$TMP/cxxps.app")" \
	"cxx_names|$(cxx_root_first ';')"

run_traced cxxfg "$CXX" $N -- count -U --format flamegraph -o "$TMP/cxx.html" -p @PID@ "$CXX_PROBE"
INL="std::function<long (int)>::operator()(int) const (inlined)"
want=$(cxx_chain | jq -R . | jq -sc --argjson n $N --arg inl "$INL" '{total: $n,
	frames: map([., $n]),
	kinds: (map({key: ., value: (if endswith(" (inlined)") then "i" else "u" end)}) | from_entries),
	search: {re: "^std::", names: map(select(startswith("std::"))),
		 matched: "Matched: 100.00% (\($n) of \($n) events)"},
	zoom: $inl}')
out=$(cd "$JS" && timeout 180 node flamegraph_check.js "$TMP/cxx.html" "$TMP/cxx.png" "$want" 2>&1)
if [ $? = 0 ] && [ -s "$TMP/cxx.png" ]; then pass cxx-flamegraph-chromium; else fail cxx-flamegraph-chromium "$out"; fi

run_traced cxxctf "$CXX" $N -- snoop -U --format ctf -o "$TMP/cxxtrace" -n 5 -p @PID@ "$CXX_PROBE"
babeltrace2 "$TMP/cxxtrace" > "$TMP/cxxctf.txt" 2> "$TMP/cxxctf.bterr"
mapfile -t cxx_frames < <(cxx_chain)
expect_eq cxx-ctf-chains "$(sed -E 's/^.* user_depth = /user_depth = /; s/_ips = \[( \[[0-9]+\] = 0x[0-9A-F]+,?)* \]/_ips = IPS/' "$TMP/cxxctf.txt" | sort | uniq -c | sed 's/^ *//')" \
	"5 user_depth = ${#cxx_frames[@]}, user_ips = IPS, user_frames = [ $(frames "${cxx_frames[@]}") ] }"

# 9. Usage errors: one line each, exit 2, before anything is loaded.
usage_error() { # NAME WANT_LINE ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$ST" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" < /dev/null
	rc=$?
	expect_eq "$name" "$rc|$(cat "$TMP/$name.err")" "2|$want"
}
usage_error format-unknown "stacktap count: format 'svg': unknown (want text, folded, pprof, speedscope, perf-script or flamegraph)" \
	count --format svg t:syscalls:sys_enter_getppid
usage_error format-not-for-command "stacktap snoop: format 'pprof': not one this command writes (want text, json, perf-script or ctf)" \
	snoop --format pprof t:syscalls:sys_enter_getppid
usage_error format-ctf-not-for-profile "stacktap profile: format 'ctf': not one this command writes (want text, folded, pprof, speedscope, perf-script or flamegraph)" \
	profile --format ctf
usage_error format-unwritable-output "stacktap offcpu: -o /nonexistent/dir/x.pb.gz: No such file or directory" \
	offcpu --format pprof -o /nonexistent/dir/x.pb.gz
usage_error format-ctf-needs-dir "stacktap snoop: format ctf writes a directory: name it with -o DIR" \
	snoop --format ctf t:syscalls:sys_enter_getppid
usage_error format-ctf-dir-is-file "stacktap snoop: -o /etc/hostname: not a directory (format ctf writes one)" \
	snoop --format ctf -o /etc/hostname t:syscalls:sys_enter_getppid
usage_error format-interval "stacktap count: format flamegraph is one document: use it without -i" \
	count -i 1 --format flamegraph -o "$TMP/x.html" t:syscalls:sys_enter_getppid
# A terminal on stdout (script gives one): pprof is binary, so it wants -o.
script -qec "$ST count --format pprof t:syscalls:sys_enter_getppid" /dev/null < /dev/null > "$TMP/tty.out" 2>&1
expect_eq format-pprof-tty "$?|$(tr -d '\r' < "$TMP/tty.out")" \
	"2|stacktap count: format pprof is binary: give -o FILE or redirect stdout"
