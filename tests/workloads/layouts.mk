# SPDX-License-Identifier: GPL-2.0
# Workloads of tests/integration/test_layouts.sh: the same code mapped every way a linker or the
# kernel lays it out. gcc 12; GNU ld (bfd) and gold 2.40, LLD 14, mold 1.10 (Debian packages).
#
#   chain_LD_fp, chain_LD_nofp   chain.c linked by LD = bfd, gold, lld, mold; PIE, each
#                                linker's default segment layout (LLD and mold put the text
#                                segment at a file offset that is not its vaddr's)
#   chain_bfd_nosep_nofp         -z noseparate-code (text shares its first page with the headers)
#   chain_lld_sep_nofp, chain_mold_sep_nofp   -z separate-code
#   chain_LD_nopie_nofp          non-PIE (ET_EXEC at the linker's default address)
#   dlchain_nopie + libdlchain_fixed_LD.so   libdlchain.so linked at fixed addresses like
#                                prelink's (bfd 0x40000000, lld 0x50000000): a non-PIE main
#                                makes ld.so map them there
#   vdso_loop                    clock_gettime() in a loop: samples in the vDSO (no frame pointers)

LAYOUT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls
LAYOUT_FP := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
LAYOUT_NOFP := -fomit-frame-pointer
LAYOUTS :=
, := ,

# layout_bin NAME, SOURCE, FLAGS: one workload built from tests/workloads/SOURCE.
define layout_bin
$(O)/workloads/$(1): tests/workloads/$(2) tests/workloads/golib.h tests/workloads/layouts.mk
	$$(call msg,CC,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(LAYOUT_CFLAGS) $$< $(3) -o $$@
LAYOUTS += $(O)/workloads/$(1)
endef

$(foreach ld,bfd gold lld mold,\
  $(eval $(call layout_bin,chain_$(ld)_fp,chain.c,-fuse-ld=$(ld) $(LAYOUT_FP)))\
  $(eval $(call layout_bin,chain_$(ld)_nofp,chain.c,-fuse-ld=$(ld) $(LAYOUT_NOFP))))
$(eval $(call layout_bin,chain_bfd_nosep_nofp,chain.c,$(LAYOUT_NOFP) -Wl$(,)-z$(,)noseparate-code))
$(foreach ld,lld mold,$(eval $(call layout_bin,chain_$(ld)_sep_nofp,chain.c,\
  -fuse-ld=$(ld) $(LAYOUT_NOFP) -Wl$(,)-z$(,)separate-code)))
$(foreach ld,bfd lld,$(eval $(call layout_bin,chain_$(ld)_nopie_nofp,chain.c,\
  -fuse-ld=$(ld) $(LAYOUT_NOFP) -no-pie)))
$(eval $(call layout_bin,dlchain_nopie,dlchain.c,$(LAYOUT_NOFP) -no-pie -ldl))
$(eval $(call layout_bin,libdlchain_fixed_bfd.so,dlchain_lib.c,\
  $(LAYOUT_NOFP) -shared -fPIC -Wl$(,)-Ttext-segment=0x40000000))
$(eval $(call layout_bin,libdlchain_fixed_lld.so,dlchain_lib.c,\
  -fuse-ld=lld $(LAYOUT_NOFP) -shared -fPIC -Wl$(,)--image-base=0x50000000))
# -fno-plt: no PLT stub between spin and libc, so every sample is in a named function.
$(eval $(call layout_bin,vdso_loop,vdso_loop.c,$(LAYOUT_NOFP) -fno-plt))

workloads: $(LAYOUTS)
