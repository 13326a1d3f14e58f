#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lib/ has no include cycles between its folders, and never includes tools/ or src/.
source "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"
cd "$ROOT"

if out=$(python3 tests/scripts/include_graph.py "$ROOT"); then
	pass lib-include-graph-acyclic
	sed 's/^/         /' <<< "$out"
else
	fail lib-include-graph-acyclic "$(grep -E '^(cycle|layering):' <<< "$out")"
fi

# The check itself finds a cycle: a copy of lib/ where lib/out includes lib/session.
mkdir -p "$TMP/lib/out" "$TMP/lib/session"
echo '#include "lib/out/text.h"' > "$TMP/lib/session/a.c"
echo '#include "lib/session/session.h"' > "$TMP/lib/out/b.c"
expect_eq lib-include-graph-finds-cycles \
	"$(python3 tests/scripts/include_graph.py "$TMP" | grep '^cycle')" \
	"cycle: lib/out <-> lib/session"
