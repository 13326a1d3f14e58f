# SPDX-License-Identifier: GPL-2.0
# The SFrame demo workload (test_sframe.sh compares our rows with objdump --sframe on it).
# -fomit-frame-pointer so most FDEs are rsp-based; the .o keeps the relocatable flavour.

SFRAME_DEMO_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fomit-frame-pointer -Wa,--gsframe

$(O)/workloads/sframe_demo.o: tests/workloads/sframe_demo.c tests/workloads/sframe.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SFRAME_DEMO_CFLAGS) -c $< -o $@

$(O)/workloads/sframe_demo: $(O)/workloads/sframe_demo.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(SFRAME_DEMO_CFLAGS) $< -o $@

workloads: $(O)/workloads/sframe_demo
