#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernels/run.sh [KERNEL...]: the kernel matrix. stacktap's checks
# (tests/kernels/checks.sh) run inside Debian's own cloud kernels, each booted
# in qemu without KVM (TCG), and on this machine's own kernel, so a change
# is proven on every kernel stacktap claims, not only on the one CI runs on.
#
# KERNEL: 5.10 6.1 6.12 6.18 7.x (tests/kernels/fetch.sh) or host (this
# machine's kernel, in a private mount namespace where tracefs and debugfs
# are unmounted: tests/fresh-ns.sh); none means all six. The initramfs is
# built once (tests/kernels/initramfs.sh) from $O/stacktap and
# $O/workloads; each kernel boots it with a time limit (KM_TIMEOUT seconds,
# default 300), and its console is kept in $KM_OUT/KERNEL.log (KM_OUT
# defaults to $O/kernels). The recording the guest's record check makes comes
# out on the console in base64 and is reported here, on the host (the
# `report` check): it must print what the guest printed live.
#
# Prints one line per kernel per check (the failures followed by stacktap's
# own stderr and, where it could not load, libbpf's and the verifier's
# words), the wall time per kernel, and last "N passed, N failed"; exits 1
# when anything failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
O=${O:-build}
case $O in /*) OD=$O ;; *) OD=$ROOT/$O ;; esac
ST=$(realpath -m "${ST:-$OD/stacktap}")
W=$(realpath -m "${W:-$OD/workloads}")
KM_OUT=$(realpath -m "${KM_OUT:-$OD/kernels}")
KM_TIMEOUT=${KM_TIMEOUT:-300}
CACHE=${STACKTAP_KERNEL_CACHE:-$HOME/.cache/stacktap/kernels}
ALL=(5.10 6.1 6.12 6.18 7.x host)
PASSED=0
FAILED=0
QEMU_PID=

say() { echo "kernels: $*" >&2; }

# boot KERNEL: KERNEL's checks in qemu; its console, cleaned of terminal
# escapes and carriage returns, in $KM_OUT/KERNEL.log.
boot() {
	local k=$1 rc=0
	# TCG, one thread for both CPUs. qemu64 has cmpxchg16b, as every x86-64
	# machine since 2008, and 7.x needs it: without it kmalloc_nolock() fails,
	# so task storage and the task_work request answer -ENOMEM. 6.12 boots
	# without it: with -cpu max its SLUB cmpxchg16b double-faulted at boot in
	# 3 of 6 tries (shared/notes/kernel-facts.md section 10).
	local cpu=qemu64
	[ "$k" = 6.12 ] && cpu=qemu64,-cx16
	timeout -k 10 "$KM_TIMEOUT" qemu-system-x86_64 -accel tcg,thread=single \
		-cpu "${KM_CPU:-$cpu}" -m 2048 -smp 2 -nographic -no-reboot -nic none \
		-kernel "$CACHE/$k/vmlinuz" -initrd "$KM_OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 ${KM_APPEND:-}" \
		< /dev/null > "$KM_OUT/$k.console" 2>&1 &
	QEMU_PID=$!
	wait "$QEMU_PID" || rc=$?
	QEMU_PID=
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r$//' "$KM_OUT/$k.console" > "$KM_OUT/$k.log"
	[ "$rc" = 0 ] || echo "KM-QEMU exit $rc$([ "$rc" = 124 ] && echo ": timed out after ${KM_TIMEOUT}s")" \
		>> "$KM_OUT/$k.log"
}

# run_host: the checks on this machine's kernel, under the guest's busybox.
run_host() {
	local bb=$KM_OUT/busybox
	rm -rf "$bb" "$KM_OUT/host.kept.data"
	mkdir -p "$bb"
	/bin/busybox --install -s "$bb"
	KM_RECORD_KEEP=$KM_OUT/host.kept.data "$ROOT/tests/fresh-ns.sh" \
		env PATH="$bb:$PATH" busybox sh "$HERE/checks.sh" "$ST" "$W" \
		< /dev/null > "$KM_OUT/host.log" 2>&1 || echo "KM-HOST exit $?" >> "$KM_OUT/host.log"
}

# recording KERNEL FILE: the guest's recording (KM-B64 lines) into FILE,
# checked against the size and MD5 it announced. Return: 1 when damaged or absent.
recording() {
	local log=$KM_OUT/$1.log size md5
	[ "$1" = host ] && { [ -s "$KM_OUT/host.kept.data" ] && cp "$KM_OUT/host.kept.data" "$2"; return; }
	read -r _ size md5 < <(grep '^KM-RECORD-BEGIN ' "$log" || echo "x 0 none")
	[ "$size" != 0 ] || return 1
	sed -n 's/^KM-B64 //p' "$log" | base64 -d > "$2" 2>/dev/null || return 1
	[ "$(wc -c < "$2")" = "$size" ] && [ "$(md5sum < "$2" | cut -d' ' -f1)" = "$md5" ]
}

# check_report KERNEL: the report check: the guest's recording reported here
# (its files found under the initramfs root, by build ID) prints exactly the
# lines the guest printed live (KM-LIVE).
check_report() {
	local k=$1 rec=$KM_OUT/$1.rec.data home
	local symfs=(--symfs "$KM_OUT/root")
	[ "$k" = host ] && symfs=()
	if ! grep -q '^KM-RECORD-BEGIN \|^KM-LIVE ' "$KM_OUT/$k.log" && [ "$k" != host ]; then
		echo "KM-RESULT report FAIL 0 no recording came out of the guest"
		return
	fi
	if ! recording "$k" "$rec"; then
		echo "KM-RESULT report FAIL 0 the recording is absent or damaged in transit"
		return
	fi
	sed -n 's/^KM-LIVE //p' "$KM_OUT/$k.log" > "$KM_OUT/$k.live"
	home=$(mktemp -d)
	HOME=$home timeout 120 "$ST" report --no-progress -i "$rec" -f -a "${symfs[@]}" \
		> "$KM_OUT/$k.report" 2> "$KM_OUT/$k.report.err" || true
	rm -rf "$home"
	if [ -s "$KM_OUT/$k.live" ] && cmp -s "$KM_OUT/$k.report" "$KM_OUT/$k.live"; then
		echo "KM-RESULT report PASS 0 the host's report of the recording is the guest's live output"
	else
		echo "KM-RESULT report FAIL 0 report: $(tr '\n' '/' < "$KM_OUT/$k.report"), live: $(tr '\n' '/' < "$KM_OUT/$k.live")"
		sed 's/^/KM-ERR report /' "$KM_OUT/$k.report.err"
	fi
}

# summarize KERNEL SECONDS: one line per expected check of KERNEL, its
# failures' KM-ERR/KM-DEBUG lines under it; counts into PASSED/FAILED.
summarize() {
	local k=$1 secs=$2 log=$KM_OUT/$1.log c line verdict
	check_report "$k" >> "$log"
	echo "== $k: $(sed -n 's/^KM-INFO kernel: //p' "$log" | head -n 1) (${secs}s)"
	sed -n 's/^KM-INFO /   info: /p' "$log" | grep -v '^   info: kernel:'
	for c in $(sh "$HERE/checks.sh" --list | tr ' ' '\n' | grep -vx features) report; do
		line=$(grep "^KM-RESULT $c " "$log" | head -n 1 || true)
		if [ -z "$line" ]; then
			verdict=FAIL
			line="KM-RESULT $c FAIL - no result: the guest did not get this far"
		else
			verdict=$(echo "$line" | cut -d' ' -f3)
		fi
		printf '%-5s %-13s %s %4ss  %s\n' "$k" "$c" "$verdict" "$(echo "$line" | cut -d' ' -f4)" \
			"$(echo "$line" | cut -d' ' -f5- | cut -c1-400)"
		if [ "$verdict" = PASS ]; then
			PASSED=$((PASSED + 1))
		else
			FAILED=$((FAILED + 1))
			grep -E "^KM-(ERR|DEBUG) $c " "$log" | sed "s/^KM-\(ERR\|DEBUG\) $c /      /" || true
		fi
	done
	if ! grep -q '^KM-DONE\|^KM-INFO tracefs after' "$log"; then
		echo "   the checks did not finish; the console's last lines:"
		grep -v '^KM-B64 ' "$log" | tail -n 25 | sed 's/^/      /'
	fi
	echo "   $k: wall time ${secs}s"
}

cleanup() {
	[ -z "$QEMU_PID" ] || kill "$QEMU_PID" 2>/dev/null || true
}

main() {
	local k kernels=() guests=() t0
	for k in "$@"; do
		case " ${ALL[*]} " in *" $k "*) kernels+=("$k") ;;
		*) say "unknown kernel '$k' (want: ${ALL[*]})"; exit 2 ;; esac
	done
	[ ${#kernels[@]} -gt 0 ] || kernels=("${ALL[@]}")
	for k in "${kernels[@]}"; do [ "$k" = host ] || guests+=("$k"); done
	[ -x "$ST" ] || { say "$ST: no stacktap (make $O/stacktap)"; exit 2; }
	[ "$(id -u)" = 0 ] || { say "stacktap loads BPF programs: run as root"; exit 2; }
	if [ ${#guests[@]} -gt 0 ] && ! command -v qemu-system-x86_64 > /dev/null; then
		say "qemu-system-x86_64 missing (make kernel-matrix-deps)"
		exit 2
	fi
	trap cleanup EXIT
	mkdir -p "$KM_OUT"
	if [ ${#guests[@]} -gt 0 ]; then
		"$HERE/fetch.sh" "${guests[@]}"
		"$HERE/initramfs.sh" "$ST" "$W" "$KM_OUT"
	fi
	for k in "${kernels[@]}"; do
		say "$k: running the checks"
		t0=$(date +%s)
		if [ "$k" = host ]; then run_host; else boot "$k"; fi
		summarize "$k" $(($(date +%s) - t0))
	done
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

main "$@"
