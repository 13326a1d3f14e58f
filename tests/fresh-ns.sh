#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/fresh-ns.sh CMD [ARG...]: run CMD where the machine looks freshly
# booted: in a private mount namespace with tracefs and debugfs unmounted.
# The machine's own mounts are untouched (the unmounts happen in the new
# namespace only, and it ends with CMD). Used by .ci/run and by
# tests/integration/test_fresh_machine.sh, so they prove that stacktap
# prepares the machine itself.
set -eu
[ $# -gt 0 ] || { echo "usage: tests/fresh-ns.sh CMD [ARG...]" >&2; exit 2; }
exec unshare --mount --propagation private bash -c '
	set -eu
	# Deepest first: debugfs'\''s tracing/ automount before debugfs itself.
	awk '\''$3 == "tracefs" || $3 == "debugfs" { print $2 }'\'' /proc/self/mounts |
		sort -r | while read -r m; do umount -l "$m"; done
	if awk '\''$3 == "tracefs" || $3 == "debugfs" { f = 1 } END { exit !f }'\'' /proc/self/mounts; then
		echo "fresh-ns: tracefs or debugfs is still mounted" >&2
		exit 1
	fi
	exec "$@"' fresh-ns "$@"
