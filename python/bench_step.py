"""Python step() overhead per tick against C (bench/README.md, "Python step
overhead").

The same 1000 ticks of the built-in station (4 units; readers off, no worker
pool) from tick 0, in fresh worlds, several times, interleaved:

  C          `build/pcsim run` (the C host's tick loop): its JSON p50 of
             the per-tick wall times (preempted ticks fall in the tail)
  cffi       lib.pcs_world_tick(w) in a bare Python loop: C plus the
             least a binding can add (one cffi call per tick)
  tick(n)    Station.tick(1000): the loop inside the package
  tick(1)    Station.tick() called 1000 times from Python
  step       StationEnv.step with ticks_per_step=1, 4 channels observed,
             1 command (rod_position) submitted per step, copy_obs=False
  step+copy  the same with copy_obs=True (a new observation array per step)

Usage, from the repository root after `make`:
  /usr/bin/python3 python/bench_step.py [--repeats N] [--ticks N]
The Python loops are timed in CPU time of the calling thread (the ticks run
inline on it), so preemption on a shared machine does not count; the C
host reports wall time per tick, and its median is its unpreempted tick.
The overheads are against the cffi loop, the C tick plus one cffi call. Prints the
machine, the load average before and after, and the min and median
microseconds per tick of each loop with its overhead (min against min).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcsim  # noqa: E402
import pcsim.env  # noqa: E402

# CPU time of this thread: the ticks run inline on it (no worker pool), and
# on a shared machine preemption then does not count, as it would in wall time.
clock = time.thread_time
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBS = ["u1.core.relative_power", "u1.core.flow", "u1.rcs.pressure", "u1.rods.D.pos"]


def scenario_file(ticks):
    text = json.loads(pcsim.Scenario.default_text())
    text["world"]["workers"] = 0
    text["readers"] = {"count": 0}
    text["script"] = []
    text["run"] = {"seconds": ticks * text["world"].get("dt_s", 0.05), "timeline_every_s": 1e6}
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(text, f)
    f.close()
    return f.name


def c_run(pcsim_bin, path):
    r = subprocess.run([pcsim_bin, "run", path, "--json", "--quiet"], capture_output=True,
                       text=True, check=True)
    return json.loads(r.stdout)["tick_us"]["p50"]


def py_tick_n(path, ticks):
    with pcsim.Station(path) as s:
        t = clock()
        s.tick(ticks)
        return (clock() - t) * 1e6 / ticks


def cffi_loop(path, ticks):
    lib = pcsim._lib.lib
    with pcsim.Station(path) as s:
        w, tick = s._w, lib.pcs_world_tick
        t = clock()
        for _ in range(ticks):
            tick(w)
        return (clock() - t) * 1e6 / ticks


def py_tick_1(path, ticks):
    with pcsim.Station(path) as s:
        tick = s.tick
        t = clock()
        for _ in range(ticks):
            tick()
        return (clock() - t) * 1e6 / ticks


def py_step(path, ticks, copy):
    env = pcsim.env.StationEnv(OBS, [("u1.D", "rod_position")], scenario=path, ticks_per_step=1,
                               max_steps=None, copy_obs=copy, obs_bounds=([-1e30] * 4, [1e30] * 4))
    obs, _ = env.reset()
    step = env.step
    action = [0.9]
    t = clock()
    for _ in range(ticks):
        obs = step(action)[0]
    us = (clock() - t) * 1e6 / ticks
    env.close()
    return us


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--ticks", type=int, default=1000)
    ap.add_argument("--pcsim", default=os.path.join(REPO, "build", "pcsim"))
    a = ap.parse_args()
    path = scenario_file(a.ticks)
    cases = {
        "C (pcsim run)": lambda: c_run(a.pcsim, path),
        "cffi pcs_world_tick loop": lambda: cffi_loop(path, a.ticks),
        "Station.tick(n)": lambda: py_tick_n(path, a.ticks),
        "Station.tick() per tick": lambda: py_tick_1(path, a.ticks),
        "StationEnv.step": lambda: py_step(path, a.ticks, False),
        "StationEnv.step, copy_obs": lambda: py_step(path, a.ticks, True),
    }
    load0 = os.getloadavg()
    for f in cases.values():  # warm up: caches, cffi type parsing
        f()
    got = {k: [] for k in cases}
    for _ in range(a.repeats):
        for k, f in cases.items():
            got[k].append(f())
    load1 = os.getloadavg()
    os.unlink(path)
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs; Python {platform.python_version()}, "
          f"pcsim {pcsim.version}, {pcsim.library_path}")
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f}; "
          f"{a.repeats} x {a.ticks} ticks each, interleaved")
    c = min(got["cffi pcs_world_tick loop"])
    print("| loop | min µs/tick | median µs/tick | over the cffi loop (min) |")
    print("|---|---|---|---|")
    for k, v in got.items():
        m = min(v)
        over = "-" if k.startswith(("C ", "cffi")) else f"{m - c:+.1f} µs ({100 * (m - c) / c:+.1f} %)"
        unit = " (p50 of per-tick wall)" if k.startswith("C ") else ""
        print(f"| {k}{unit} | {m:.1f} | {statistics.median(v):.1f} | {over} |")


if __name__ == "__main__":
    main()
