"""TCP round trip of step + observe (40 channels) through pcsim.remote, on
loopback, against the bare standard-library client of bench/serve_rtt.py
(bench/README.md, "TCP server").

Usage, from the repository root after `make`:
  /usr/bin/python3 python/bench_remote.py [build/pcsim] [--rounds N] [--warmup N]

One step-mode `pcsim serve` of the built-in station, one controlling
connection (TCP_NODELAY), the 40 channels of bench/serve_rtt.py. Four kinds
of round, interleaved in blocks of 100 on that one connection so that the
machine's load falls on all alike:

  bare      tests/serve_test.py's framing on the socket: step n=1 -> reply,
            observe -> reply (two round trips; serve_rtt.py's row)
  client    pcsim.remote.Client: step(1), then observe() -> numpy array
            (two round trips)
  env0      RemoteStationEnv.step with ticks_per_step=1, 40 channels observed
            and no command: the step and the observe pipelined (one round
            trip)
  env       the same with one command (rod_position) per step: the act, the
            step and the observe pipelined (one round trip; an act is a
            request to the world thread, like a step)

Prints microseconds per round (mean, p50, p95, p99) as JSON with the
machine and its load average before and after.
"""

import json
import os
import struct
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "bench"),
                os.path.join(ROOT, "tests"), os.path.join(ROOT, "stress")]
import serve_rtt  # noqa: E402
import serve_stress  # noqa: E402
import serve_test  # noqa: E402

from pcsim.remote import Client, RemoteStationEnv  # noqa: E402


def bare_round(sock, frames):
    """serve_test.Client's framing, on the pcsim.remote client's socket
    (every reply of the client was read, so nothing is buffered)."""
    reader = serve_test.Client.__new__(serve_test.Client)
    reader.sock = sock

    def run():
        for f in frames:
            sock.sendall(f)
            reader.recv()

    return run


def frame(msg):
    body = json.dumps(msg).encode()
    return struct.pack(">I", len(body)) + body


def main():
    a = serve_rtt.parse_args()
    load_before = serve_rtt.machine()["loadavg"]
    serve_test.PCSIM = os.path.abspath(a.pcsim)
    srv = serve_test.Server()
    names = serve_stress.channel_names()
    c = Client("127.0.0.1", srv.port)
    kw = dict(ticks_per_step=1, max_steps=None, terminated=lambda obs, info: False,
              copy_obs=False)
    env0 = RemoteStationEnv(c, names, [], **kw)
    env = RemoteStationEnv(c, names, [("u1.D", "rod_position")], **kw)
    env0.reset(seed=1)
    env.reset(seed=1)  # the same world: env0's steps go on from env's

    def client_round():
        c.step(1)
        c.observe()

    rounds = {"bare": bare_round(c._sock, [frame({"type": "step", "n": 1}),
                                           frame({"type": "observe"})]),
              "client": client_round,
              "env0": lambda: env0.step([]),
              "env": lambda: env.step([0.95])}
    times = {k: [] for k in rounds}
    block = 100
    for done in range(0, a.warmup + a.rounds, block):
        for k, run in rounds.items():
            out = times[k] if done >= a.warmup else []
            for _ in range(block):
                t0 = time.perf_counter_ns()
                run()
                out.append(time.perf_counter_ns() - t0)
    c.close()
    rc = srv.stop()
    assert rc == 0, srv.stderr()
    machine = serve_rtt.machine()
    machine["loadavg_before"] = load_before
    result = {f"{k}_us": serve_rtt.percentiles(v) for k, v in times.items()}
    result["server_tick_us"] = serve_stress.summary(srv.stderr())
    result["machine"] = machine
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
