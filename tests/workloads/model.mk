# SPDX-License-Identifier: GPL-2.0
# Workloads of the process and file model tests (tests/integration/test_model.sh,
# tests/integration/test_hostile.sh).

MODEL_CFLAGS := -std=gnu11 -O1 -Wall -Wextra -Werror -fno-optimize-sibling-calls
DLMANY_N := 20
DLMANY_LIBS := $(foreach i,$(shell seq 0 $$(($(DLMANY_N) - 1))),$(O)/workloads/dlmany/libdlmany$(i).so)
MODEL := $(O)/workloads/dlmany/dlmany $(DLMANY_LIBS) $(O)/workloads/exitchain \
	 $(O)/workloads/exitchain_stripped $(O)/workloads/forkexec $(O)/workloads/reexec \
	 $(O)/workloads/hostile

workloads: $(MODEL)

$(O)/workloads/dlmany/dlmany: tests/workloads/dlmany.c tests/workloads/dlrun.h tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MODEL_CFLAGS) -g -fomit-frame-pointer $< -o $@ -ldl

# One library per index, the same code under other names: -DLIBN=<i>.
$(O)/workloads/dlmany/libdlmany%.so: tests/workloads/dlmany_lib.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MODEL_CFLAGS) -g -fomit-frame-pointer -shared -fPIC -DLIBN=$* $< -o $@

# A PIE without frame pointers; its stripped twin keeps .eh_frame and .dynsym only.
$(O)/workloads/exitchain: tests/workloads/exitchain.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MODEL_CFLAGS) -fPIE -pie -fomit-frame-pointer $< -o $@

$(O)/workloads/exitchain_stripped: $(O)/workloads/exitchain
	$(call msg,STRIP,$@)
	$(Q)strip -o $@ $<

$(O)/workloads/forkexec: tests/workloads/forkexec.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MODEL_CFLAGS) -g -fomit-frame-pointer $< -o $@

$(O)/workloads/reexec: tests/workloads/reexec.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MODEL_CFLAGS) -g -fomit-frame-pointer $< -o $@

# With frame pointers: the kernel's walk (--unwind=fp) needs no table of the file.
$(O)/workloads/hostile: tests/workloads/hostile.c tests/workloads/golib.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MODEL_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $< -o $@
