#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Launch-to-banner time of one tracer, for bench/bench_launch.sh.

    banner_time.py REGEX CMD...

Starts CMD with its stdout and stderr on one pipe, and prints the seconds from
just before the exec to the first line matching REGEX (the tracer's banner),
then the seconds until CMD, its banner printed, first waits in its main loop
(/proc/PID/task/*/wchan one of WAITS): bcc prints its banner before it compiles and
bpftrace before it attaches, so the second figure is the fair one; it is
sampled every 2 ms and "-" when not seen in 120 s. Then it stops CMD with
SIGINT (SIGKILL after 60 s). When CMD ends or 120 s
pass without the banner, it prints "fail: " and CMD's last line instead, and
exits 1.
"""
import os
import re
import select
import signal
import subprocess
import sys
import time


# Where an attached tracer waits for events: epoll on a ring or perf buffer,
# poll, or Python's time.sleep.
WAITS = {"do_epoll_wait", "ep_poll", "do_sys_poll", "do_select", "hrtimer_nanosleep",
         "do_nanosleep", "pause", "sigsuspend", "do_sigtimedwait"}


def wchans(pid):
    """Where each thread of pid waits: a tracer may wait for events on a
    thread of its own (stacktap's ring pump), its main thread on a futex."""
    found = set()
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return found
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/wchan" % (pid, tid)) as f:
                found.add(f.read().strip())
        except OSError:
            pass
    return found


def await_wait(proc, t0):
    """Seconds from t0 until proc waits in one of WAITS, or None."""
    while time.monotonic() - t0 < 120 and proc.poll() is None:
        if wchans(proc.pid) & WAITS:
            return time.monotonic() - t0
        time.sleep(0.002)
    return None


def main():
    if len(sys.argv) < 3:
        print("usage: banner_time.py REGEX CMD...", file=sys.stderr)
        return 2
    pat = re.compile(sys.argv[1])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    t0 = time.monotonic()
    proc = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env, restore_signals=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    buf, last, found = b"", "", None
    while found is None and time.monotonic() - t0 < 120:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if not ready:
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            text = line.decode(errors="replace")
            if text.strip():
                last = text
            if pat.search(text):
                found = time.monotonic() - t0
                break
    ready = await_wait(proc, t0) if found is not None else None
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
    if found is None:
        print("fail: " + last[:200])
        return 1
    print("%.3f %s" % (found, "-" if ready is None else "%.3f" % ready))
    return 0


if __name__ == "__main__":
    sys.exit(main())
