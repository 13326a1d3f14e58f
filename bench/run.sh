#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: runs every bench/bench_*.sh; each prints its own table of figures
# measured side by side with the peer tool in the same run.
set -u
O=${1:-build}
export O ST="$(pwd)/$O/stacktap"
status=0
for b in bench/bench_*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	bash "$b" || { echo "bench: $b failed" >&2; status=1; }
done
exit $status
