# SPDX-License-Identifier: GPL-2.0
# Workloads of the BPF unwinding tests (tests/integration/test_unwind.sh), all
# without frame pointers so only unwind tables give whole stacks.

UNWIND4_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -fomit-frame-pointer \
		  -fno-optimize-sibling-calls
UNWIND4 := $(O)/workloads/deep_nofp $(O)/workloads/dlchain $(O)/workloads/libdlchain.so \
	   $(O)/workloads/jit_nofp

workloads: $(UNWIND4)

$(O)/workloads/deep_nofp: tests/workloads/deep.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(UNWIND4_CFLAGS) $< -o $@

$(O)/workloads/dlchain: tests/workloads/dlchain.c tests/workloads/dlrun.h tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(UNWIND4_CFLAGS) $< -o $@ -ldl

$(O)/workloads/libdlchain.so: tests/workloads/dlchain_lib.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(UNWIND4_CFLAGS) -shared -fPIC $< -o $@

$(O)/workloads/jit_nofp: tests/workloads/jit.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(UNWIND4_CFLAGS) $< -o $@
