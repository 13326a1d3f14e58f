# SPDX-License-Identifier: GPL-2.0
# Unwind workloads: the qsort chain built with frame pointers, without, and with SFrame.
# Included by the main Makefile. gcc 12, binutils 2.40 (-Wa,--gsframe emits SFrame v1).

QSORT_CHAIN := $(O)/workloads/qsort_chain_fp $(O)/workloads/qsort_chain_nofp \
	       $(O)/workloads/qsort_chain_sframe
# Sibling calls would turn a call into a jump and drop a frame from the chain.
QSORT_CHAIN_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -fno-optimize-sibling-calls

workloads: $(QSORT_CHAIN)

$(O)/workloads/qsort_chain_fp: tests/workloads/qsort_chain.c tests/workloads/golib.h tests/workloads/unwind.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(QSORT_CHAIN_CFLAGS) -fno-omit-frame-pointer $< -o $@

$(O)/workloads/qsort_chain_nofp: tests/workloads/qsort_chain.c tests/workloads/golib.h tests/workloads/unwind.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(QSORT_CHAIN_CFLAGS) -fomit-frame-pointer $< -o $@

$(O)/workloads/qsort_chain_sframe: tests/workloads/qsort_chain.c tests/workloads/golib.h tests/workloads/unwind.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(QSORT_CHAIN_CFLAGS) -fomit-frame-pointer -Wa,--gsframe $< -o $@
