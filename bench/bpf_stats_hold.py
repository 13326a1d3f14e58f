#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold BPF run-time statistics on (bpf(BPF_ENABLE_STATS)) until killed or stdin closes.

The kernel counts run_time_ns while any such fd is open, so benches that run
at the same time never switch each other's statistics off, as toggling
kernel.bpf_stats_enabled did. Prints "on" once the fd is held.
"""
import ctypes
import os
import signal
import sys

SYS_BPF = 321          # x86_64
BPF_ENABLE_STATS = 32  # enum bpf_cmd
BPF_STATS_RUN_TIME = 0

libc = ctypes.CDLL(None, use_errno=True)
attr = ctypes.create_string_buffer(BPF_STATS_RUN_TIME.to_bytes(4, "little"), 8)
fd = libc.syscall(SYS_BPF, BPF_ENABLE_STATS, attr, 4)
if fd < 0:
    sys.stderr.write("bpf_stats_hold: BPF_ENABLE_STATS: %s\n" % os.strerror(ctypes.get_errno()))
    sys.exit(1)
print("on", flush=True)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
signal.pause()
