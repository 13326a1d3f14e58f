# SPDX-License-Identifier: GPL-2.0
# The walk cache's workload (tests/integration/test_walk_cache.sh), with
# frame pointers and without (only unwind tables then give whole stacks).

WALKCACHE_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -fno-optimize-sibling-calls
WALKCACHE := $(O)/workloads/walkcache_fp $(O)/workloads/walkcache_nofp

workloads: $(WALKCACHE)

$(O)/workloads/walkcache_fp: tests/workloads/walkcache.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WALKCACHE_CFLAGS) -fno-omit-frame-pointer $< -o $@

$(O)/workloads/walkcache_nofp: tests/workloads/walkcache.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WALKCACHE_CFLAGS) -fomit-frame-pointer $< -o $@
