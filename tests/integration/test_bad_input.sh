#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input: one clear line on stderr, the right exit code, nothing left attached.
#
# Other tracers run on the machine the whole time: a bpftrace one-liner, a
# second one restarted every 3 s (programs coming and going), and another
# stacktap.
# "Nothing left attached" counts only stacktap's own programs and links that
# no live process holds (lib.sh: st_left_behind), so they never disturb it.
source "$(dirname "$0")/lib.sh"

command -v bpftrace > /dev/null || fail foreign-tracer "bpftrace is missing: make deps installs it"
bpftrace -e 'tracepoint:sched:sched_process_exec { @n = count(); }' > "$TMP/bpftrace.out" 2>&1 &
bt=$!
ST_PIDS+=($bt)
wait_for_line "$TMP/bpftrace.out" '^Attaching' 60 || fail foreign-tracer "bpftrace did not attach"
# In a session of its own, which it names (its pid is the group's), so one
# kill ends the loop and the bpftrace it runs.
setsid bash -c 'echo $$ > "$0"; while :; do
	bpftrace -e "tracepoint:syscalls:sys_enter_getppid { @n = count(); } interval:s:3 { exit(); }"
done' "$TMP/foreign.pid" > /dev/null 2>&1 &
wait_for_line "$TMP/foreign.pid" '^[0-9]+$' || fail foreign-tracer "did not start"
foreign=$(cat "$TMP/foreign.pid")
trap 'kill -- -$foreign 2> /dev/null; st_cleanup' EXIT
"$ST" count t:sched:sched_process_exec > /dev/null 2> "$TMP/other.err" &
ST_PIDS+=($!)
wait_for_line "$TMP/other.err" '^Tracing' || fail other-stacktap "not attached: $(cat "$TMP/other.err")"

# expect_bad NAME CODE REGEX -- ARGS: exit code CODE, exactly one stderr line matching REGEX.
expect_bad() {
	local name=$1 code=$2 re=$3; shift 4
	"$ST" "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$? lines
	lines=$(wc -l < "$TMP/err")
	if [ "$rc" = "$code" ] && [ "$lines" = 1 ] && grep -qE "$re" "$TMP/err"; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $code), $lines stderr lines (want 1):" "$(cat "$TMP/err")"
	fi
}

# expect_line NAME CODE LINE -- ARGS: exit code CODE, stderr exactly LINE, stdout empty.
expect_line() {
	local name=$1 code=$2 line=$3; shift 4
	timeout 20 "$ST" "$@" > "$TMP/out" 2> "$TMP/err"
	expect_eq "$name" "$?|$(cat "$TMP/err")|$(cat "$TMP/out")" "$code|$line|"
}

expect_bad unknown-tracepoint 2 't:nosuch:thing: no such tracepoint' -- count t:nosuch:thing
expect_bad missing-binary 2 "'/no/such/bin' not found" -- count u:/no/such/bin:main
expect_bad missing-symbol 2 "symbol 'no_such_symbol' not found in .*chain_fp" -- count "u:$W/chain_fp:no_such_symbol"
expect_bad missing-pid 2 'pid 4000000: no such process' -- count -p 4000000 t:syscalls:sys_enter_getppid
# A -p target that ends while stacktap loads (its first bpf() call held 1.5 s
# by strace, the target killed meanwhile): one line says nothing of it was
# traced, the run ends by itself, nothing is left attached.
sleep 60 &
gone=$!
(sleep 0.5; kill $gone) &
timeout 30 strace -f -o /dev/null -e trace=bpf -e inject=bpf:delay_enter=1500000:when=1 \
	"$ST" count -p $gone t:syscalls:sys_enter_getppid > "$TMP/out" 2> "$TMP/err"
expect_eq pid-gone-at-start "$?|$(grep -c "process $gone had exited when tracing began: its events were not traced" "$TMP/err")|$(cat "$TMP/out")" "0|1|"
expect_nothing_left pid-gone-at-start-nothing-left
expect_bad malformed-spec 2 "'x:y': unknown probe type" -- count x:y
expect_bad malformed-tracepoint 2 "malformed tracepoint spec" -- count t:syscalls
expect_bad negative-duration 2 "duration '-1'" -- count -D -1 t:syscalls:sys_enter_getppid
expect_bad zero-duration 2 "duration '0'" -- snoop -D 0 t:syscalls:sys_enter_getppid
expect_bad no-probe 2 'no probe given' -- snoop
expect_bad missing-usdt 2 'no USDT probe nope:nada' -- count "usdt:$W/chain_fp:nope:nada"
expect_bad kfunc-refused 1 'k:schedule: cannot trace kernel function: fentry .*kprobe' -- count k:schedule
expect_bad unknown-kfunc 2 "no kernel function 'no_such_fn_xyz'" -- count k:no_such_fn_xyz
# A bad spec after good ones: the good ones are detached again.
expect_bad late-bad-spec 2 't:nosuch:thing: no such tracepoint' -- count t:syscalls:sys_enter_getppid t:nosuch:thing

# A file that is not ELF as a uprobe or USDT target: one line, exit 2. A FIFO
# is opened without blocking, so it cannot hang us.
mkfifo "$TMP/fifo"
expect_line not-elf-uprobe 2 "stacktap: u:/etc/passwd:main: /etc/passwd: not an ELF file" \
	-- count u:/etc/passwd:main
expect_line not-elf-usdt 2 "stacktap: usdt:/etc/passwd:p:n: /etc/passwd: not an ELF file" \
	-- snoop usdt:/etc/passwd:p:n
expect_line dir-uprobe 2 "stacktap: u:/tmp:main: /tmp: not a regular file" -- count u:/tmp:main
expect_line fifo-uprobe 2 "stacktap: u:$TMP/fifo:main: $TMP/fifo: not a regular file" \
	-- count "u:$TMP/fifo:main"
# A not-ELF spec after a good one: nothing of the good one stays.
expect_line late-not-elf 2 "stacktap: u:/etc/passwd:main: /etc/passwd: not an ELF file" \
	-- count "u:$W/chain_fp:leaf" u:/etc/passwd:main

# The same probe twice (however spelled) is a usage error.
expect_line same-spec-twice 2 \
	"stacktap count: probe 't:syscalls:sys_enter_getppid' is given twice" \
	-- count t:syscalls:sys_enter_getppid t:syscalls:sys_enter_getppid
expect_line same-probe-two-spellings 2 \
	"stacktap snoop: probe 'u:libc:malloc' is given twice (also as 'u:c:malloc')" \
	-- snoop u:c:malloc u:libc:malloc

# A user-space probe in a kernel thread never fires.
kthread=2
if [ "$(cat /proc/$kthread/comm 2>/dev/null)" = kthreadd ]; then
	expect_line kthread-uprobe 2 \
		"stacktap count: pid 2 (kthreadd) is a kernel thread: u:c:malloc never fires in it" \
		-- count -p 2 t:sched:sched_switch u:c:malloc
	expect_line kthread-usdt 2 \
		"stacktap snoop: tid 2 (kthreadd) is a kernel thread: usdt:$W/chain_fp:a:b never fires in it" \
		-- snoop -t 2 "usdt:$W/chain_fp:a:b"
else
	skip kthread "pid 2 is not kthreadd here (a pid namespace?)"
fi

# --cgroup wants a cgroup v2 directory: any other would match no task, silently.
expect_line cgroup-not-cgroup 2 "stacktap profile: cgroup '/tmp': not a cgroup v2 directory" \
	-- profile --cgroup /tmp 1
expect_line cgroup-missing 2 "stacktap profile: cgroup '/no/such': No such file or directory" \
	-- profile --cgroup /no/such 1
v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
if [ -n "$v1" ]; then
	expect_line cgroup-v1 2 "stacktap profile: cgroup '$v1': not a cgroup v2 directory" \
		-- profile --cgroup "$v1" 1
else
	skip cgroup-v1 "no cgroup v1 hierarchy mounted here"
fi

# Options a command does not support are refused with one line.
expect_line profile-unwind-copy 2 \
	"stacktap profile: --unwind=copy: this command walks user stacks in BPF (copy is a count and snoop mode)" \
	-- profile --unwind=copy 1
expect_line offcpu-unwind-check 2 \
	"stacktap offcpu: --unwind-check: this command walks user stacks in BPF with nothing to compare (a count and snoop option)" \
	-- offcpu --unwind-check 1
expect_line profile-unwind-mode 2 "stacktap profile: unwind mode 'x': want auto, table or fp" \
	-- profile --unwind=x 1
expect_line count-unwind-mode 2 "stacktap count: unwind mode 'x': want auto, table, fp or copy" \
	-- count --unwind=x t:syscalls:sys_enter_getppid

expect_nothing_left nothing-left-attached
# ... while the first bpftrace's programs were loaded: the check never counted them.
at_least foreign-programs-meanwhile "$(kill -0 $bt && bpftool -j prog show |
	jq '[.[] | select((.name // "") | startswith("st_") | not)] | length')" 1

# SIGKILL mid-run: the kernel drops everything with the last fd.
"$ST" count t:syscalls:sys_enter_getppid "u:$W/chain_fp:leaf" > /dev/null 2> "$TMP/kerr" &
kpid=$!
wait_for_line "$TMP/kerr" '^Tracing' || fail sigkill-setup "not attached"
held=$(st_held "$kpid")
if grep -q prog_id <<< "$held" && grep -q link_id <<< "$held"; then pass sigkill-was-attached; else
	fail sigkill-was-attached "stacktap $kpid holds no program or no link: $held"
fi
kill -9 "$kpid"; wait "$kpid" 2>/dev/null
expect_nothing_left sigkill-nothing-left

# Ctrl-C prints what was collected so far.
"$ST" count -U "u:$W/chain_fp:leaf" > "$TMP/iout" 2> "$TMP/ierr" &
ipid=$!
wait_for_line "$TMP/ierr" '^Tracing' || fail sigint-setup "not attached"
"$W/chain_fp" 3 > /dev/null
sleep 0.3
kill -INT "$ipid"; wait "$ipid"; rc=$?
expect_eq sigint-exit "$rc" 0
expect_eq sigint-printed "$(tail -2 "$TMP/iout" | head -1)" "    3"
expect_nothing_left sigint-nothing-left

# The other tracers were there the whole time, and their programs were not ours.
expect_eq foreign-tracers-ran "$(kill -0 $bt "$foreign" 2>/dev/null && echo running)" running
