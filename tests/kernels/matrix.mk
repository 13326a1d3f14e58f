# SPDX-License-Identifier: GPL-2.0
# `make kernel-matrix`: stacktap's checks inside Debian's own kernels (5.10,
# 6.1, 6.12, 6.18, 7.x) booted under qemu without KVM, and on this machine's
# kernel (tests/kernels/run.sh); `make kernel-matrix KERNELS="6.1 host"` runs
# some of them. Included by the main Makefile. The packages it needs besides
# the build's are installed on first use, as need-deps does for the build's.

KM_PKGS := qemu-system-x86 busybox-static cpio
KERNELS ?=

kernel-matrix-deps:
	@missing=; for p in $(KM_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' \
		|| missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] || { echo "make: missing:$$missing: installing" >&2; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $$missing; }

kernel-matrix: kernel-matrix-deps $(O)/stacktap workloads
	$(Q)O=$(O) tests/kernels/run.sh $(KERNELS)

.PHONY: kernel-matrix kernel-matrix-deps
