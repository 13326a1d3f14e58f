# SPDX-License-Identifier: GPL-2.0
# Workloads of the signal-frame and stack-switch tests (tests/integration/test_signals.sh).
# Included by the main Makefile. gcc 12, binutils 2.40 (-Wa,--gsframe emits SFrame v1).
#
#   sigchain_{fp,nofp,sframe}  SIGALRM handler chains, frame pointers / none / SFrame
#   coro_nofp                  a makecontext() coroutine's chain, no frame pointers

SIGNAL_WL_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		    -fno-optimize-sibling-calls -pthread
SIGNAL_WORKLOADS := $(O)/workloads/sigchain_fp $(O)/workloads/sigchain_nofp \
		    $(O)/workloads/sigchain_sframe $(O)/workloads/coro_nofp

workloads: $(SIGNAL_WORKLOADS)

$(O)/workloads/sigchain_fp: tests/workloads/sigchain.c tests/workloads/golib.h tests/workloads/signal.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SIGNAL_WL_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $< -o $@

$(O)/workloads/sigchain_nofp: tests/workloads/sigchain.c tests/workloads/golib.h tests/workloads/signal.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SIGNAL_WL_CFLAGS) -fomit-frame-pointer $< -o $@

$(O)/workloads/sigchain_sframe: tests/workloads/sigchain.c tests/workloads/golib.h tests/workloads/signal.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SIGNAL_WL_CFLAGS) -fomit-frame-pointer -Wa,--gsframe $< -o $@

$(O)/workloads/coro_nofp: tests/workloads/coro.c tests/workloads/golib.h tests/workloads/signal.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SIGNAL_WL_CFLAGS) -fomit-frame-pointer $< -o $@
