#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/kernels/guest-init.sh: /init of the kernel matrix's guest (built in by
# tests/kernels/initramfs.sh). It mounts proc, sysfs and devtmpfs only:
# tracefs and debugfs stay unmounted, as on a freshly booted machine, so the
# checks prove that stacktap prepares the machine itself. Then it runs
# /checks.sh against /st/stacktap and the workloads in /w, its KM-* lines on
# the console (ttyS0) for run.sh, and powers off. Kernel parameters that the
# kernel does not know reach it as variables: KM_CHECKS="a,b" runs only
# those checks, KM_ST_TIMEOUT and KM_CHECK_TIMEOUT bound each stacktap run
# and each check. No `set -e`: an /init that exits panics the kernel, and
# the checks report their failures themselves.
export PATH=/bin HOME=/root TMPDIR=/tmp

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec > /dev/console 2>&1 < /dev/null

echo "KM-BOOTED $(cut -d' ' -f1 /proc/uptime)"
# shellcheck disable=SC2046
sh /checks.sh /st/stacktap /w $(echo "${KM_CHECKS:-}" | tr , ' ')
echo "KM-DONE $(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
