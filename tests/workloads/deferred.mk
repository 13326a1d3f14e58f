# SPDX-License-Identifier: GPL-2.0
# Workloads of the profile, offcpu and deferred-capture tests (tests/integration/test_{profile,
# offcpu,deferred}.sh). Included by the main Makefile. gcc 12, binutils 2.40.
#
#   busy_fp      frame pointers everywhere (leaf frames too)
#   busy_nofp    no frame pointers: .eh_frame only
#   busy_sframe  no frame pointers, SFrame v1 (-Wa,--gsframe)
#   offcpu_fp    blocking chains (sleep, pipe writer, cold stack), frame pointers, threads
#   bigexit      frees a large heap at exit, in the kernel, without a user context

DEFERRED_WL_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls
DEFERRED_WL_FP := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
DEFERRED_WORKLOADS := $(O)/workloads/busy_fp $(O)/workloads/busy_nofp \
		      $(O)/workloads/busy_sframe $(O)/workloads/offcpu_fp \
		      $(O)/workloads/bigexit

workloads: $(DEFERRED_WORKLOADS)

$(O)/workloads/busy_fp: tests/workloads/busy.c tests/workloads/golib.h tests/workloads/deferred.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(DEFERRED_WL_CFLAGS) $(DEFERRED_WL_FP) $< -o $@

$(O)/workloads/busy_nofp: tests/workloads/busy.c tests/workloads/golib.h tests/workloads/deferred.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(DEFERRED_WL_CFLAGS) -fomit-frame-pointer $< -o $@

$(O)/workloads/busy_sframe: tests/workloads/busy.c tests/workloads/golib.h tests/workloads/deferred.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(DEFERRED_WL_CFLAGS) -fomit-frame-pointer -Wa,--gsframe $< -o $@

$(O)/workloads/offcpu_fp: tests/workloads/offcpu.c tests/workloads/deferred.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(DEFERRED_WL_CFLAGS) $(DEFERRED_WL_FP) -pthread $< -o $@

$(O)/workloads/bigexit: tests/workloads/bigexit.c tests/workloads/golib.h tests/workloads/deferred.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(DEFERRED_WL_CFLAGS) $< -o $@
