#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# stacktap record / report: a report prints byte for byte what the live
# command printed for the same run; files are found by build ID (--symfs,
# --archive in a namespace where they are gone), never by path alone; a
# recording cut or damaged anywhere gives the events before the damage and
# one line, never a crash; a newer format version gives one line.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/deferred_lib.sh"

N=37
LIBC_START="__libc_start_call_main __libc_start_main _start"

# report NAME ARGS...: stacktap report into $TMP/NAME.rep{,.err,.rc}.
# HOME is the test's own: report also looks for files by build ID in
# ~/.debug, where a system-wide `perf record` on the machine may have filed
# this very workload, and the moved and replaced cases below need it gone.
report() {
	local name=$1; shift
	HOME=$TMP "$ST" report --no-progress "$@" > "$TMP/$name.rep" 2> "$TMP/$name.rep.err"
	echo $? > "$TMP/$name.rep.rc"
}

# 1. Record once, print both: `record --print` runs the command as it runs
#    live (its output is the live output) and writes the recording; report,
#    given the same output options, replays it through the same pipeline and
#    the command's own printing.
run_wl count "$W/chain_fp" $N -- record --print -o "$TMP/count.data" count -f -p @PID@ \
	"u:$W/chain_fp:leaf"
report count -i "$TMP/count.data" -f
expect_eq count-live "$(cat "$TMP/count.out")" \
	"chain_fp;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;leaf $N"
expect_file_eq count-f-same "$TMP/count.rep" "$TMP/count.out"
expect_eq count-report-exit "$(cat "$TMP/count.rep.rc")" 0

run_wl profile "$W/busy_nofp" 2 -- record --print -o "$TMP/profile.data" profile -F 99 -f \
	-p @PID@
report profile -i "$TMP/profile.data" -f
at_least profile-live-samples "$(awk '{s += $NF} END {print s + 0}' "$TMP/profile.out")" 100
expect_file_eq profile-f-same "$TMP/profile.rep" "$TMP/profile.out"
# The loss and walk counters are the recorded ones.
expect_eq profile-walks-same "$(grep 'walks for' "$TMP/profile.rep.err")" \
	"$(grep 'walks for' "$TMP/profile.err")"

# Walks that stop early are counted by the walker, not the capture: a
# frame-pointer profile of a program built without them stops every walk,
# and the report says so as the live run did (format 2.1 keeps the counts).
run_wl profile-fp "$W/busy_nofp" 2 -- record --print -o "$TMP/profile-fp.data" profile -F 99 -f \
	--unwind=fp -p @PID@
report profile-fp -i "$TMP/profile-fp.data" -f
at_least profile-fp-stopped-live "$(grep -c 'user stacks\? stopped early' "$TMP/profile-fp.err")" 1
expect_eq profile-fp-stopped-same "$(grep 'stopped early' "$TMP/profile-fp.rep.err")" \
	"$(grep 'stopped early' "$TMP/profile-fp.err")"

run_wl offcpu "$W/offcpu_fp" sleep 50 2 -- record --print -o "$TMP/offcpu.data" offcpu -f \
	-p @PID@
report offcpu -i "$TMP/offcpu.data" -f
at_least offcpu-live-chain "$(grep -c ';s1;s2;s3;nap;' "$TMP/offcpu.out")" 1
expect_file_eq offcpu-f-same "$TMP/offcpu.rep" "$TMP/offcpu.out"

run_wl snoop "$W/chain_fp" 5 -- record --print -o "$TMP/snoop.data" snoop --json -p @PID@ \
	t:syscalls:sys_enter_getppid
report snoop -i "$TMP/snoop.data" --json
expect_eq snoop-live-events "$(wc -l < "$TMP/snoop.out")" 5
expect_file_eq snoop-json-same "$TMP/snoop.rep" "$TMP/snoop.out"
report snoop-text -i "$TMP/snoop.data"
expect_eq snoop-text-events "$(grep -c '^[0-9.]* *chain_fp ' "$TMP/snoop-text.rep")" 5

# Times of day and host names are the recording machine's: a report run
# elsewhere, later, in another zone (here: another host name, CLOCK_MONOTONIC
# 1000 s on in a time namespace, TZ nine hours east) prints what the live run
# printed: count -i's interval stamps, in the recorder's zone, and a CTF
# trace's clock offset and host name.
elsewhere() { unshare -u -T --monotonic 1000 sh -c 'hostname elsewhere && exec "$@"' sh "$@"; }
TZ=UTC0 run_wl stamps "$W/offcpu_fp" sleep 3 600 -- record --print -o "$TMP/stamps.data" \
	count -i 1 -U -p @PID@ t:syscalls:sys_enter_nanosleep
elsewhere env TZ=JST-9 HOME="$TMP" "$ST" report --no-progress -i "$TMP/stamps.data" \
	--interval 1 > "$TMP/stamps.rep" 2> "$TMP/stamps.rep.err"
expect_eq stamps-live-events "$(awk '/^ +[0-9]+$/ {n += $1} END {print n}' "$TMP/stamps.out")" 3
at_least stamps-live-intervals "$(grep -c '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$' "$TMP/stamps.out")" 2
expect_file_eq stamps-same "$TMP/stamps.rep" "$TMP/stamps.out"

rm -rf "$TMP/ctf.live" "$TMP/ctf.rep"
run_wl ctf "$W/chain_fp" 5 -- record --print -o "$TMP/ctf.data" snoop --format ctf \
	-o "$TMP/ctf.live" -p @PID@ t:syscalls:sys_enter_getppid
elsewhere env HOME="$TMP" "$ST" report --no-progress -i "$TMP/ctf.data" --format ctf \
	-o "$TMP/ctf.rep" > /dev/null 2> "$TMP/ctf.rep.err"
expect_eq ctf-live-host "$(grep -c "hostname = \"$(uname -n)\";" "$TMP/ctf.live/metadata")" 1
expect_file_eq ctf-metadata-same "$TMP/ctf.rep/metadata" "$TMP/ctf.live/metadata"
expect_eq ctf-stream-same "$(cmp "$TMP/ctf.rep/stream" "$TMP/ctf.live/stream" && echo same)" same

# Stack copies replay through the same copy stage: copied at every event
# (--unwind=copy), and sent with a deferred walk that met a library dlopen'ed
# a moment ago (stored compacted: its copy right after its frames).
run_wl copy "$W/chain_fp" $N -- record --print -o "$TMP/copy.data" count --unwind=copy -f -U \
	-p @PID@ "u:$W/chain_fp:leaf"
report copy -i "$TMP/copy.data" -f
expect_file_eq copy-mode-same "$TMP/copy.rep" "$TMP/copy.out"
run_wl dl "$W/dlchain" "$W/libdlchain.so" 20 -- record --print -o "$TMP/dl.data" count \
	--user-stacks=deferred -f -U -p @PID@ t:syscalls:sys_enter_getppid
report dl -i "$TMP/dl.data" -f
expect_eq dlopen-live "$(cat "$TMP/dl.out")" \
	"dlchain;_start;__libc_start_main;__libc_start_call_main;main;run;lib_entry;lib_mid;lib_leaf;callback 20"
expect_file_eq dlopen-copies-same "$TMP/dl.rep" "$TMP/dl.out"

# JIT code is named by the perf map the recording kept, not by the machine's
# /tmp at report time: the map is gone when the report runs.
run_wl jit "$W/jit_fp" -m $N -- record --print -o "$TMP/jit.data" count -f -U -p @PID@ \
	"u:$W/jit_fp:jit_leaf"
rm -f "/tmp/perf-$(awk '$1 == "ready" {print $2}' "$TMP/jit.w").map"
report jit -i "$TMP/jit.data" -f
expect_eq jit-live "$(cat "$TMP/jit.out")" \
	"jit_fp;_start;__libc_start_main;__libc_start_call_main;main;jit_outer;jit_inner;jit_leaf $N"
expect_file_eq jit-perf-map-same "$TMP/jit.rep" "$TMP/jit.out"

# A JIT in its own pid and mount namespaces with its own /tmp writes
# /tmp/perf-NSPID.map there: the recording keeps that map (read through the
# process's root, kept open from first sight), not the host's /tmp/perf-PID.map.
record_jit_container() {
	local exe=/dev/shm/stacktap-rec-jit_fp-$$
	run_jit_container jitc "$exe" -- record -o "$TMP/jitc.data" count -f -U -p @PID@ \
		"u:$exe:jit_leaf" || { rm -f "$exe"; return; }
	report jitc -i "$TMP/jitc.data" -f
	rm -f "$exe"
	expect_eq jit-container-recorded "$(cat "$TMP/jitc.rep")" \
		"stacktap-rec-ji;_start;__libc_start_main;__libc_start_call_main;main;jit_outer;jit_inner;jit_leaf 3"
}
record_jit_container

# The output options are report's to choose: text with the delimiter, from the same recording.
report count-text -i "$TMP/count.data" -d
expect_eq report-output-options "$(cat "$TMP/count-text.rep")" \
	"$(stack_block leaf c b a main $LIBC_START $N)"

# 2. Without --print, record prints nothing and the report is the command's output.
#    count aggregates in the kernel when live; recording, every event comes as a
#    record (st_run_aggregates()), so the report counts all N, not the first one.
run_wl quiet "$W/chain_fp" $N -- record -o "$TMP/quiet.data" count -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq record-prints-nothing "$(cat "$TMP/quiet.out")" ""
report quiet -i "$TMP/quiet.data"
expect_eq record-then-report "$(cat "$TMP/quiet.rep")" \
	"$(stack_block leaf c b a main $LIBC_START $N)"

# Every stack format of the command, byte for byte with the live one.
for fmt in pprof speedscope perf-script flamegraph; do
	run_wl "fmt-$fmt" "$W/busy_nofp" 0.5 -- record --print -o "$TMP/fmt-$fmt.data" profile \
		-F 99 --format "$fmt" -o "$TMP/fmt-$fmt.live" -p @PID@
	report "fmt-$fmt" -i "$TMP/fmt-$fmt.data" --format "$fmt" -o "$TMP/fmt-$fmt.out"
	expect_file_eq "format-$fmt-same" "$TMP/fmt-$fmt.out" "$TMP/fmt-$fmt.live"
done

# --diff BEFORE AFTER: the same chain, AFTER through libc's getppid() wrapper:
# one diff flame graph whose getppid frame is new (37 after, 0 before).
run_wl libc "$W/chain_fp" -l $N -- record -o "$TMP/libc.data" count -U -p @PID@ \
	t:syscalls:sys_enter_getppid
report diff --diff "$TMP/quiet.data" "$TMP/libc.data" --format flamegraph -o "$TMP/diff.html"
sed -n '/^<script id="fg-data"/,/^<\/script>/p' "$TMP/diff.html" | sed '1d;$d' > "$TMP/diff.json"
expect_eq diff-flamegraph "$(jq -r '.diff as $d | .names as $n | .nodes[] |
	select(.[2] == "u") | "\($d) \($n[.[1]]) \(.[3]) \(.[4])"' "$TMP/diff.json" | tr '\n' ';')" \
	"$(for f in _start __libc_start_main __libc_start_call_main main a b c leaf; do
		printf 'true %s %s %s;' "$f" $N $N; done; printf 'true getppid %s 0;' $N)"
report diff-fmt --diff "$TMP/quiet.data" "$TMP/libc.data" --format pprof
expect_eq diff-only-flamegraph "$(cat "$TMP/diff-fmt.rep.rc"):$(cat "$TMP/diff-fmt.rep.err")" \
	"2:stacktap report: --diff draws a flame graph: --format flamegraph, not pprof"

# 3. The binary moved away after its process exited: found again under
#    --symfs by build ID; without it, its frames are unknown but still counted.
#    A copy filed only under its build ID (DIR/.build-id/xx/yyyy, no path or
#    name to go by) gives back, byte for byte, the folded output printed live.
mkdir -p "$TMP/bin" "$TMP/symfs" "$TMP/empty"
cp "$W/chain_fp" "$TMP/bin/chain"
run_wl moved "$TMP/bin/chain" $N -- record --print -o "$TMP/moved.data" count -f -U -p @PID@ \
	t:syscalls:sys_enter_getppid
expect_eq moved-live "$(cat "$TMP/moved.out")" \
	"chain;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;leaf $N"
mv "$TMP/bin/chain" "$TMP/symfs/chain"
bid=$(readelf -n "$TMP/symfs/chain" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
mkdir -p "$TMP/byid/.build-id/${bid:0:2}"
cp "$TMP/symfs/chain" "$TMP/byid/.build-id/${bid:0:2}/${bid:2}"
report moved-byid -i "$TMP/moved.data" -f --symfs "$TMP/byid"
expect_file_eq moved-byid-same-as-live "$TMP/moved-byid.rep" "$TMP/moved.out"
expect_eq moved-byid-exit "$(cat "$TMP/moved-byid.rep.rc")" 0
report moved-symfs -i "$TMP/moved.data" --symfs "$TMP/symfs"
expect_eq moved-symfs-chain "$(cat "$TMP/moved-symfs.rep")" \
	"$(stack_block leaf c b a main $LIBC_START $N)"
report moved -i "$TMP/moved.data"
expect_eq moved-unknown-merged "$(sed -E 's/0x[0-9a-f]+/OFF/' "$TMP/moved.rep")" \
	"$(stack_block "[unknown] (chain+OFF)" "[unknown] (chain+OFF)" "[unknown] (chain+OFF)" \
	   "[unknown] (chain+OFF)" "[unknown] (chain+OFF)" __libc_start_call_main \
	   __libc_start_main "[unknown] (chain+OFF)" $N)"
# The offsets are the frames' own: one before each return address is in
# leaf, c, b, a, main, then _start (file offsets are addresses in this build).
expect_eq moved-offsets-exact "$(sed -n 's/^  \[unknown\] (chain+\(0x[0-9a-f]*\))$/\1/p' \
	"$TMP/moved.rep" | while read -r off; do printf '%#x\n' $((off - 1)); done |
	addr2line -f -e "$TMP/symfs/chain" | sed -n 'p;n' | tr '\n' ' ')" "leaf c b a main _start "
expect_eq moved-says-why "$(grep -c "not found by its build ID.*bin/chain" "$TMP/moved.rep.err")" 1

# A stack copy is kept as the frames its walk found live, not as stack bytes:
# with the binary gone the report has no unwind table for it, yet prints the
# whole chain (--unwind=copy: every stack a copy), the binary's frames by
# file and offset; under --symfs, byte for byte what was printed live.
cp "$W/chain_fp" "$TMP/bin/copychain"
run_wl copygone "$TMP/bin/copychain" $N -- record --print -o "$TMP/copygone.data" count \
	--unwind=copy -f -U -p @PID@ "u:$TMP/bin/copychain:leaf"
mv "$TMP/bin/copychain" "$TMP/symfs/copychain"
report copygone -i "$TMP/copygone.data" -f
u="[unknown]_(copychain+OFF)"
expect_eq copy-frames-without-file "$(sed -E 's/\+0x[0-9a-f]+\)/+OFF)/g' "$TMP/copygone.rep")" \
	"copychain;$u;__libc_start_main;__libc_start_call_main;$u;$u;$u;$u;$u $N"
report copygone-symfs -i "$TMP/copygone.data" -f --symfs "$TMP/symfs"
expect_file_eq copy-frames-symfs-same "$TMP/copygone-symfs.rep" "$TMP/copygone.out"

# 4. A different build at the same path: its build ID differs, so it is not
#    used and the frames say so; the original under --symfs still names them.
cp "$W/busy_fp" "$TMP/bin/chain"
report replaced -i "$TMP/moved.data"
expect_eq replaced-not-named \
	"$(grep -c "^  \[unknown\] (chain+0x[0-9a-f]*, other build)$" "$TMP/replaced.rep")" 6
expect_eq replaced-says-why "$(grep -c "another build than recorded.*bin/chain" \
	"$TMP/replaced.rep.err")" 1
expect_eq replaced-no-names-from-it "$(grep -cE '^  (spin|b1|b2|b3|leaf|main)$' "$TMP/replaced.rep")" 0
report replaced-symfs -i "$TMP/moved.data" --symfs "$TMP/symfs"
expect_file_eq replaced-symfs-named "$TMP/replaced-symfs.rep" "$TMP/moved-symfs.rep"

# 5. --archive: a report in a mount namespace where the binary's directory and
#    the debug directories are empty still names every frame (libc's
#    __libc_start_call_main comes from its archived debug file). The same
#    report of a recording without --archive names none of them there.
cp "$W/chain_fp" "$TMP/bin/chain"
run_wl arch "$TMP/bin/chain" $N -- record --archive -o "$TMP/arch.data" count -U -p @PID@ \
	t:syscalls:sys_enter_getppid
run_wl noarch "$TMP/bin/chain" $N -- record -o "$TMP/noarch.data" count -U -p @PID@ \
	t:syscalls:sys_enter_getppid
hide="mount --bind $TMP/empty $TMP/bin && mount --bind $TMP/empty /usr/lib/debug"
[ -d "$HOME/.debug" ] && hide="$hide && mount --bind $TMP/empty $HOME/.debug"
unshare -m sh -c "$hide && ls -A $TMP/bin /usr/lib/debug | grep -v ':$' | grep -c . ;
	$ST report --no-progress -i $TMP/arch.data; $ST report --no-progress -i $TMP/noarch.data" \
	> "$TMP/ns.out" 2> "$TMP/ns.err"
expect_eq archive-files-hidden "$(head -1 "$TMP/ns.out")" 0
expect_eq archive-chain-named "$(sed -n 2,11p "$TMP/ns.out")" \
	"$(stack_block leaf c b a main $LIBC_START $N)"
expect_eq noarchive-not-named "$(tail -n +12 "$TMP/ns.out" | grep -cE '^  (leaf|c|b|a|main|__libc_start_call_main)$')" 0

# The profile recording is cut below: report it whole first.
report profile-text -i "$TMP/profile.data" -f

# 6. Damage. A recording cut at every byte of its header and at a spread of
#    offsets after it: exit 1 with one line saying where, never a crash, and
#    the events before the cut: the total never exceeds the whole recording's
#    and never drops as the cut moves later.
rec="$TMP/profile.data"
size=$(stat -c %s "$rec")
full=$(awk '{s += $NF} END {print s + 0}' "$TMP/profile-text.rep")
bad=0 prev=0 lines=0 offsets="$(seq 0 80) $(seq 81 $(( (size - 81) / 300 + 1 )) $((size - 1)))"
for off in $offsets; do
	head -c "$off" "$rec" > "$TMP/cut.data"
	"$ST" report --no-progress -i "$TMP/cut.data" -f > "$TMP/cut.out" 2> "$TMP/cut.err"
	rc=$?
	total=$(awk '{s += $NF} END {print s + 0}' "$TMP/cut.out")
	said=$(grep -cE 'not a stacktap recording|cut short|damaged' "$TMP/cut.err")
	san=$(grep -cE 'Sanitizer|runtime error' "$TMP/cut.err")
	if [ $rc -ne 1 ] || [ "$said" -ne 1 ] || [ "$san" -ne 0 ] || [ "$total" -gt "$full" ] ||
	   [ "$total" -lt "$prev" ]; then
		bad=$((bad + 1))
		[ $bad -le 3 ] && echo "      cut at $off: rc $rc, total $total (prev $prev), $(head -2 "$TMP/cut.err")"
	fi
	prev=$total
	lines=$((lines + 1))
done
expect_eq cut-anywhere "$bad of $lines" "0 of $lines"
at_least cut-keeps-events-before "$prev" 1

# Flipped bytes after the header: never a crash, never more than was recorded.
bad=0
for i in $(seq 1 60); do
	cp "$rec" "$TMP/flip.data"
	off=$(( (i * 7919) % (size - 64) + 64 ))
	printf '\x5a' | dd of="$TMP/flip.data" bs=1 seek=$off conv=notrunc status=none
	"$ST" report --no-progress -i "$TMP/flip.data" -f > "$TMP/flip.out" 2> "$TMP/flip.err"
	rc=$?
	total=$(awk '{s += $NF} END {print s + 0}' "$TMP/flip.out")
	{ [ $rc -le 1 ] && [ "$total" -le "$full" ] &&
	  ! grep -qE 'Sanitizer|runtime error' "$TMP/flip.err"; } || bad=$((bad + 1))
done
expect_eq flipped-bytes "$bad" 0

# A newer format version (3.0, header checksum made right): one line, exit 1.
cp "$TMP/count.data" "$TMP/newer.data"
printf '\x03\x00\x00\x00' | dd of="$TMP/newer.data" bs=1 seek=8 conv=notrunc status=none
# gzip's trailer holds the crc32 of what it compressed: the header's checksum.
head -c 60 "$TMP/newer.data" | gzip -c | tail -c 8 | head -c 4 |
	dd of="$TMP/newer.data" bs=1 seek=60 conv=notrunc status=none
report newer -i "$TMP/newer.data"
expect_eq newer-version "$(cat "$TMP/newer.rep.rc"):$(cat "$TMP/newer.rep.err")" \
	"1:stacktap: $TMP/newer.data: recording format version 3.0; this stacktap reads versions 1.x to 2.x: upgrade stacktap to report it"
report notrec -i /etc/passwd
expect_eq not-a-recording "$(cat "$TMP/notrec.rep.rc"):$(cat "$TMP/notrec.rep.err")" \
	"1:stacktap: /etc/passwd: not a stacktap recording"
report missing -i "$TMP/no-such.data"
expect_eq missing-recording "$(cat "$TMP/missing.rep.rc"):$(cat "$TMP/missing.rep.err")" \
	"1:stacktap: $TMP/no-such.data: No such file or directory"

# 7. Usage errors: one line, exit 2, and no recording left behind.
"$ST" record -o "$TMP/u.data" > /dev/null 2> "$TMP/u1.err"
expect_eq record-no-command "$?:$(cat "$TMP/u1.err")" "2:stacktap record: no command to record"
"$ST" record -o "$TMP/u.data" unwind-table /bin/true > /dev/null 2> "$TMP/u2.err"
expect_eq record-not-recordable "$?:$(cat "$TMP/u2.err")" \
	"2:stacktap record: 'unwind-table' cannot be recorded: want count, snoop, profile or offcpu"
"$ST" record -o "$TMP/u.data" profile -F 0 > /dev/null 2> "$TMP/u3.err"
expect_eq record-command-usage "$?:$(head -1 "$TMP/u3.err"):$([ -e "$TMP/u.data" ] && echo left)" \
	"2:stacktap profile: frequency '0': want 1-100000:"

# 8. The recorder stopped from outside. Ctrl-C ends the run as its end: a
#    whole recording whose report holds every event recorded, exit 0. kill -9
#    once the recording has grown twice since the probes went in (two chunks,
#    written at least a second apart): the report prints the events of the
#    chunks written, one line that the recording stops short, exit 1. Neither
#    leaves a probe attached.
"$W/busy_fp" 120 > "$TMP/spin.w" &
spin=$!
ST_PIDS+=("$spin")
wait_for_line "$TMP/spin.w" '^ready'
# size_grows FILE FROM: until FILE is bigger than FROM bytes (at most 30 s); its size.
size_grows() {
	local i sz
	for ((i = 0; i < 600; i++)); do
		sz=$(stat -c %s "$1" 2>/dev/null || echo 0)
		[ "$sz" -gt "$2" ] && break
		sleep 0.05
	done
	echo "$sz"
}
# record_stopped NAME SIGNAL: record profile of the spinner, SIGNAL after two chunks.
record_stopped() {
	local pid sz
	env --default-signal=INT "$ST" record -o "$TMP/$1.data" profile -F 99 -f -p $spin \
		> "$TMP/$1.out" 2> "$TMP/$1.err" &
	pid=$!
	ST_PIDS+=("$pid")
	wait_for_line "$TMP/$1.err" '^Sampling' 60 || echo "record not started: $(cat "$TMP/$1.err")"
	sz=$(size_grows "$TMP/$1.data" "$(stat -c %s "$TMP/$1.data")")
	size_grows "$TMP/$1.data" "$sz" > /dev/null
	kill -s "$2" $pid
	{ wait $pid; echo $? > "$TMP/$1.rc"; } 2> /dev/null # not bash's "Killed" line
}
record_stopped int INT
report int -i "$TMP/int.data" -f
expect_eq ctrl-c-record-exit "$(cat "$TMP/int.rc")" 0
expect_eq ctrl-c-report-every-event "$(cat "$TMP/int.rep.rc"):$(awk '{s += $NF} END {print s + 0}' \
	"$TMP/int.rep")" "0:$(sed -n 's/^stacktap: recorded \([0-9]*\) events.*/\1/p' "$TMP/int.err")"
at_least ctrl-c-events "$(awk '{s += $NF} END {print s + 0}' "$TMP/int.rep")" 1
expect_nothing_left ctrl-c-nothing-attached
record_stopped killed KILL
report killed -i "$TMP/killed.data" -f
expect_eq kill-9-report "$(cat "$TMP/killed.rc"):$(cat "$TMP/killed.rep.rc"):$(grep -F \
	"$TMP/killed.data" "$TMP/killed.rep.err")" \
	"137:1:stacktap: $TMP/killed.data: cut short at byte $(stat -c %s "$TMP/killed.data"), between chunks (or its recorder was killed): only what comes before it is used"
at_least kill-9-events-before "$(awk '{s += $NF} END {print s + 0}' "$TMP/killed.rep")" 1
expect_nothing_left kill-9-nothing-attached
kill -9 $spin
{ wait $spin; } 2> /dev/null || : # 137, as killed: not the script's status
