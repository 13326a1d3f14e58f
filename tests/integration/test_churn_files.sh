#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Open files follow what is still mapped or named, not every binary ever run
# (lib/elf/elf_cache.c, issue 10): each workload below is a copy of
# tests/workloads/chain.c with a build ID of its own (so a model of its own,
# not one shared by build ID), run while the tracer watches, then left to exit
# and be forgotten by the registry. Then:
#  - record (without --print): stacktap holds no fd to any of them any more,
#    also to those deleted after they ran (their idle unwind tables go too),
#    and the report of the recording (--archive: the files are gone) names
#    every event exactly;
#  - a live count: files no stack names are closed (kept on disk or
#    deleted), while those its settled stacks name stay open until the end,
#    which names them exactly;
# and --debug counts the models closed.
source "$(dirname "$0")/lib.sh"

NRUN=2
LIBC_START="__libc_start_call_main __libc_start_main _start"
FP_STOP="[unwind stopped: no unwind row and no valid frame pointer]"
run_cg_init
[ -n "$RUN_CG" ] || { skip churn-files "no cgroup v2: other processes would hit the probes"; exit 0; }

# distinct NAME BYTE: $TMP/NAME, chain_fp with the first byte of its build ID set to BYTE.
distinct() {
	local off
	cp "$W/chain_fp" "$TMP/$1" || return 1
	off=$(readelf -SW "$TMP/$1" |
		sed -n 's/.*\.note\.gnu\.build-id *NOTE *[0-9a-f]* \([0-9a-f]*\).*/\1/p')
	printf "\\x$(printf %02x "$2")" |
		dd of="$TMP/$1" bs=1 seek=$((0x$off + 16)) conv=notrunc status=none
}

# fds_to NAME...: how many fds of the tracer (run_during's, the last started)
# point at $TMP/NAME; a deleted file's link reads "$TMP/NAME (deleted)".
fds_to() {
	local n=0 name
	for name in "$@"; do
		n=$((n + $(ls -l /proc/"${ST_PIDS[-1]}"/fd 2>/dev/null |
			grep -cE -- "-> $TMP/$name( \(deleted\))?\$")))
	done
	echo $n
}

# run_seen NAME: one run of $TMP/NAME in our cgroup, let go once the tracer
# holds its file (so it is identified while it lives, however loaded the
# machine): a handshake, not a measure.
run_seen() {
	local wpid i
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	"${IN_RUN_CG[@]}" "$TMP/$1" 1 "$TMP/go" > /dev/null &
	wpid=$!
	for ((i = 0; i < 600 && $(fds_to "$1") == 0; i++)); do sleep 0.05; done
	release "$TMP/go"
	wait "$wpid"
}

# wait_closed NAME...: until the tracer holds none of them (at most 60 s: the
# registry forgets an exit after a grace of 1 s, in batches).
wait_closed() {
	local i
	for ((i = 0; i < 600 && $(fds_to "$@") > 0; i++)); do sleep 0.1; done
}

# The models closed, from --debug's "files:" line in FILE.
closed() { sed -n 's/^stacktap: files: [0-9]* open now; \([0-9]*\) closed.*/\1/p' "$1"; }

for i in 1 2 3; do distinct "c$i" $((0x10 + i)); done
distinct d1 0x21

# Three probed programs NRUN times each and one never probed; then all deleted.
record_churn() {
	local b k
	for b in c1 c2 c3; do for ((k = 0; k < NRUN; k++)); do run_seen "$b"; done; done
	run_seen d1
	expect_eq rec-held-while-known-or-idle "$(($(fds_to c1 c2 c3 d1) > 0))" 1
	rm -f "$TMP"/c1 "$TMP"/c2 "$TMP"/c3 "$TMP"/d1
	wait_closed c1 c2 c3 d1
	expect_eq rec-fds-closed "$(fds_to c1 c2 c3 d1)" 0
}

run_during rec record_churn record --archive -o "$TMP/files.data" count --debug \
	--cgroup "$RUN_CG" "u:$TMP/c1:leaf" "u:$TMP/c2:leaf" "u:$TMP/c3:leaf"
at_least rec-closed-counted "$(closed "$TMP/rec.err")" 4
"$ST" report --no-progress -i "$TMP/files.data" > "$TMP/rep.out" 2> "$TMP/rep.err"
expect_eq rec-report-exit "$?" 0
stack_block leaf c b a main $LIBC_START $((3 * NRUN)) > "$TMP/want"
expect_file_eq rec-report-exact "$TMP/rep.out" "$TMP/want"
expect_nothing_left rec-nothing-left

# Live: two probed programs, one unprobed kept and one unprobed deleted.
for i in 1 2; do distinct "p$i" $((0x30 + i)); distinct "q$i" $((0x40 + i)); done
live_churn() {
	local b k
	for b in p1 p2; do for ((k = 0; k < NRUN; k++)); do run_seen "$b"; done; done
	run_seen q1
	run_seen q2
	rm -f "$TMP/q2"
	wait_closed q1 q2
	expect_eq live-unnamed-closed "$(fds_to q1 q2)" 0
	# Exits are forgotten in their order: p1's and p2's went first, settled.
	expect_eq live-named-kept "$(fds_to p1 p2)" 2
}

run_during live live_churn count --debug --unwind fp --cgroup "$RUN_CG" \
	"u:$TMP/p1:leaf" "u:$TMP/p2:leaf"
stack_block leaf c b a main __libc_start_call_main "$FP_STOP" $((2 * NRUN)) > "$TMP/want"
expect_file_eq live-exact "$TMP/live.out" "$TMP/want"
at_least live-closed-counted "$(closed "$TMP/live.err")" 2
expect_nothing_left live-nothing-left
