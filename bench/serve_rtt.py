#!/usr/bin/python3
"""TCP round trip of `pcsim serve` on loopback: step + observe of 40 channels.

Usage: /usr/bin/python3 bench/serve_rtt.py [build/pcsim] [--rounds N] [--warmup N]

Starts a step-mode server on the built-in station, connects one controlling
client (Python standard library, TCP_NODELAY), names 40 channels once, then
times N rounds (default 5000, after 500 warm-up rounds) of:
  step n=1 -> reply, observe (the 40 channels) -> reply
one request at a time (no pipelining), as a step/action environment does.
Also times each half alone (step n=1; observe) and, as the floor the
network path adds to, the tick itself: the server's stop summary of the
same run (pcs_world_tick plus its notice). Prints percentiles in
microseconds as JSON, with the machine and its load, for bench/README.md.

The client is Python: encoding, decoding and the socket calls of the client
are inside every number (a C client would measure less).
"""
import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import serve_test  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "stress"))
import serve_stress  # noqa: E402


def percentiles(samples_ns):
    s = sorted(samples_ns)

    def at(p):
        return round(s[min(len(s) - 1, int(p / 100.0 * len(s)))] / 1e3, 1)

    return {"mean": round(sum(s) / len(s) / 1e3, 1), "p50": at(50), "p95": at(95),
            "p99": at(99), "max": round(s[-1] / 1e3, 1), "n": len(s)}


def timed(c, msgs, rounds):
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for m in msgs:
            r = c.call(m)
            if r["type"] == "error":
                raise SystemExit("error: %s" % r)
        out.append(time.perf_counter_ns() - t0)
    return out


def machine():
    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return {"cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(),
            "python": platform.python_version(),
            "loadavg": open("/proc/loadavg").read().split()[:3]}


def parse_args():
    """The command line of this bench and python/bench_remote.py:
    [pcsim] [--rounds N] [--warmup N]."""
    ap = argparse.ArgumentParser()
    ap.add_argument("pcsim", nargs="?", default="build/pcsim")
    ap.add_argument("--rounds", type=int, default=5000)
    ap.add_argument("--warmup", type=int, default=500)
    return ap.parse_args()


def main():
    a = parse_args()
    serve_test.PCSIM = os.path.abspath(a.pcsim)
    srv = serve_test.Server()
    c = srv.connect(role="control")
    step, observe = {"type": "step", "n": 1}, {"type": "observe"}
    c.call({"type": "step"})
    first = c.call({"type": "observe", "channels": serve_stress.channel_names()})
    assert len(first["values"]) == 40, first
    timed(c, [step, observe], a.warmup)
    both = timed(c, [step, observe], a.rounds)
    step_only = timed(c, [step], a.rounds)
    observe_only = timed(c, [observe], a.rounds)
    rc = srv.stop()
    c.close()
    assert rc == 0, srv.stderr()
    result = {
        "step_observe_40_us": percentiles(both),
        "step_us": percentiles(step_only),
        "observe_40_us": percentiles(observe_only),
        "server_tick_us": serve_stress.summary(srv.stderr()),
        "machine": machine(),
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
