# SPDX-License-Identifier: GPL-2.0
# What the benchmarks share: the BPF programs a tracer attached, and their run-time statistics
# (kernel.bpf_stats_enabled). Sourced; the caller sets TP_NAME (the syscall tracepoint's name).

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
