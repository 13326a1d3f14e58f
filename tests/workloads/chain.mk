# SPDX-License-Identifier: GPL-2.0
# The known-chain workload of the capture tests (tests/integration/test_count.sh):
# frame pointers everywhere, so the kernel's fp walk is exact through our code.

CHAIN_CFLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer

$(O)/workloads/chain_fp: tests/workloads/chain.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CHAIN_CFLAGS) $< -o $@

workloads: $(O)/workloads/chain_fp
