# SPDX-License-Identifier: GPL-2.0
# Unwind workloads: the qsort chain built with frame pointers, without, and with SFrame.
# Included by the main Makefile. gcc 12, binutils 2.40 (-Wa,--gsframe emits SFrame v1).
# qsort_chain_dwarf: -fno-asynchronous-unwind-tables -g, so .eh_frame covers only the startup
# code (crt1.o's _start) and .debug_frame the rest; qsort_chain_dwarf_split is the same with its
# debug sections moved to qsort_chain_dwarf_split.debug (found by .gnu_debuglink).

QSORT_CHAIN := $(O)/workloads/qsort_chain_fp $(O)/workloads/qsort_chain_nofp \
	       $(O)/workloads/qsort_chain_sframe $(O)/workloads/qsort_chain_dwarf \
	       $(O)/workloads/qsort_chain_dwarf_split
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

$(O)/workloads/qsort_chain_dwarf: tests/workloads/qsort_chain.c tests/workloads/golib.h tests/workloads/unwind.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(QSORT_CHAIN_CFLAGS) -fomit-frame-pointer -fno-asynchronous-unwind-tables $< -o $@

# The debug file sits next to the binary under the name the debuglink records.
$(O)/workloads/qsort_chain_dwarf_split: $(O)/workloads/qsort_chain_dwarf
	$(call msg,OBJCOPY,$@)
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-debug --add-gnu-debuglink=$@.debug $< $@

# A function with 40,000 bytes of locals (CFA offsets beyond 16 bits), without frame pointers;
# bigframe_huge's 150,000 bytes reach past the 64 KiB a stack copy holds.
BIGFRAME := $(O)/workloads/bigframe_nofp $(O)/workloads/bigframe_sframe \
	    $(O)/workloads/bigframe_huge

workloads: $(BIGFRAME)

$(O)/workloads/bigframe_sframe: BIGFRAME_CFLAGS := -Wa,--gsframe
$(O)/workloads/bigframe_huge: BIGFRAME_CFLAGS := -DBIG=150000

$(BIGFRAME): tests/workloads/bigframe.c tests/workloads/golib.h tests/workloads/unwind.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(QSORT_CHAIN_CFLAGS) -fomit-frame-pointer $(BIGFRAME_CFLAGS) $< -o $@
