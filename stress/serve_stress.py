#!/usr/bin/python3
"""Stress run of `pcsim serve`: does serving clients slow the tick?

Usage: /usr/bin/python3 stress/serve_stress.py [build/pcsim] [--seconds S] [--ratio R]

Runs the server free-running as fast as it can (--mode fast) twice
for S seconds (default 10): once with no client, once under load: one
controller acting every 50 ms, 8 subscribers pushed every tick with 40
channels each, 8 pollers observing 40 channels in a loop, and a thread
connecting and disconnecting as fast as it can. Each run's tick p95 comes
from the server's own stop summary (wall time of pcs_world_tick plus its
tick notice, on the world thread). Fails when the loaded p95 exceeds R
(default 1.2) times the idle one; prints both, the client counts and the
server's RSS and fds before and after, for stress/README.md.

The Python clients share the machine's cores with the world thread, so on
a two-core machine part of any slowdown is CPU contention from the clients
themselves, not the server; the README records the machine and load.
"""
import argparse
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import serve_test  # noqa: E402  (the test's client and server helpers)

CHANNELS = None


def channel_names():
    """40 channels: ten of each unit's."""
    per_unit = ["core.power", "core.flow", "rcs.pressure"]
    names = ["u%d.%s" % (u, n) for u in range(1, 5) for n in per_unit]
    names += ["u1.core.power"] * (40 - len(names))
    return names[:40]


def summary(stderr):
    m = re.search(r"(\d+) ticks; tick us p50 ([\d.]+) p95 ([\d.]+) p99 ([\d.]+) max ([\d.]+)",
                  stderr)
    if not m:
        raise SystemExit("no tick summary in the server's stderr:\n" + stderr)
    return {"ticks": int(m.group(1)), "p50": float(m.group(2)), "p95": float(m.group(3)),
            "p99": float(m.group(4)), "max": float(m.group(5))}


def idle_run(seconds):
    srv = serve_test.Server("--mode", "fast")
    time.sleep(seconds)
    rc = srv.stop()
    assert rc == 0, srv.stderr()
    return summary(srv.stderr())


def loaded_run(seconds):
    srv = serve_test.Server("--mode", "fast")
    stop = threading.Event()
    counts = {"pushes": 0, "observes": 0, "acts": 0, "cycles": 0}
    lock = threading.Lock()

    def count(key, n=1):
        with lock:
            counts[key] += n

    def controller():
        c = srv.connect(role="control")
        while not stop.is_set():
            c.call({"type": "act", "target": "u1.D", "command": "rod_position", "value": 0.9})
            count("acts")
            time.sleep(0.05)

    def subscriber():
        c = srv.connect()
        c.call({"type": "subscribe", "channels": CHANNELS, "every": 1})
        c.sock.settimeout(1.0)
        while not stop.is_set():
            try:
                c.recv()
                count("pushes")
            except socket.timeout:
                pass

    def poller():
        c = srv.connect()
        c.call({"type": "observe", "channels": CHANNELS})
        while not stop.is_set():
            c.call({"type": "observe"})
            count("observes")

    def churn():
        while not stop.is_set():
            c = serve_test.Client(srv.port)
            c.call({"type": "close"})
            c.expect_closed()
            c.close()
            count("cycles")

    rss0, fds0 = srv.rss_kib(), srv.fds()
    threads = [threading.Thread(target=controller)]
    threads += [threading.Thread(target=subscriber) for _ in range(8)]
    threads += [threading.Thread(target=poller) for _ in range(8)]
    threads += [threading.Thread(target=churn)]
    for t in threads:
        t.daemon = True
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(5)
    for c in srv.clients:
        c.close()
    deadline = time.time() + 5
    while srv.fds() != fds0 and time.time() < deadline:
        time.sleep(0.05)
    rss1, fds1 = srv.rss_kib(), srv.fds()
    rc = srv.stop()
    assert rc == 0, srv.stderr()
    out = summary(srv.stderr())
    out.update(counts)
    out.update({"rss_kib_before": rss0, "rss_kib_after": rss1, "fds_before": fds0,
                "fds_after": fds1})
    return out


def main():
    global CHANNELS
    ap = argparse.ArgumentParser()
    ap.add_argument("pcsim", nargs="?", default="build/pcsim")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--ratio", type=float, default=1.2)
    a = ap.parse_args()
    serve_test.PCSIM = os.path.abspath(a.pcsim)
    CHANNELS = channel_names()
    idle = idle_run(a.seconds)
    loaded = loaded_run(a.seconds)
    ratio = loaded["p95"] / idle["p95"]
    print(json.dumps({"idle": idle, "loaded": loaded, "p95_ratio": round(ratio, 3),
                      "uptime": open("/proc/loadavg").read().split()[:3]}, indent=1))
    if ratio > a.ratio:
        print("FAIL: tick p95 %.2f us with clients is %.2fx the %.2f us without (limit %.2fx)"
              % (loaded["p95"], ratio, idle["p95"], a.ratio))
        return 1
    print("ok: tick p95 %.2f us with clients, %.2f us without (%.2fx, limit %.2fx)"
          % (loaded["p95"], idle["p95"], ratio, a.ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
