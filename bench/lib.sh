# SPDX-License-Identifier: GPL-2.0
# What the benchmarks share: the BPF programs a tracer attached, their run-time statistics
# (kernel.bpf_stats_enabled), and the cleanup at exit. Sourced; the caller sets TP_NAME (the
# syscall tracepoint's name), TMP and STATS_WAS.

# The BPF programs the tracer PID has attached to the tracepoint.
tracer_progs() {
	bpftool -j perf list 2>/dev/null |
		jq -r --argjson p "$1" --arg tp "$TP_NAME" \
			'.[] | select(.pid == $p and .tracepoint == $tp) | .prog_id'
}

# "run_time_ns run_cnt" summed over the program ids given.
prog_stats() {
	local id t=0 c=0 r
	for id in "$@"; do
		r=$(bpftool -j prog show id "$id" 2>/dev/null | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"')
		t=$((t + ${r% *})) c=$((c + ${r#* }))
	done
	echo "$t $c"
}

# The EXIT trap's work: kill the jobs not reaped yet (a pid already waited for may belong to
# someone else now), put kernel.bpf_stats_enabled back (STATS_WAS, when the script changed it),
# remove $TMP.
bench_cleanup() {
	local p
	for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
	[ -n "${STATS_WAS:-}" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	rm -rf "$TMP"
}
