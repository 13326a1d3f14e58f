# SPDX-License-Identifier: GPL-2.0
# A function that keeps data in rbp (tests/integration/test_count_agg.sh):
# built without frame pointers, as such code is; no red zone, so that the
# words rbp points at lie above sp, where a walk reads them. fpdata has its
# unwind table, fpdata_nocfi none (neither .eh_frame nor .debug_frame: no
# row, the walker's frame-pointer rule).

FPDATA_CFLAGS := -O1 -g -fomit-frame-pointer -mno-red-zone

$(O)/workloads/fpdata: tests/workloads/fpdata.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(FPDATA_CFLAGS) $< -o $@

$(O)/workloads/fpdata_nocfi: tests/workloads/fpdata.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(FPDATA_CFLAGS) -g0 -fno-asynchronous-unwind-tables -fno-unwind-tables $< -o $@

workloads: $(O)/workloads/fpdata $(O)/workloads/fpdata_nocfi
