#!/usr/bin/python3
"""Tests of `pcsim serve` (docs/protocol.md) over real TCP connections.

Usage: /usr/bin/python3 tests/serve_test.py [build/pcsim] [-k PATTERN] [-v]

Only the Python standard library (socket, struct, json, subprocess,
unittest). Servers listen on a free loopback port (--port 0 --port-file)
with stderr in a file, so nothing the server logs can block it, and stop
with SIGTERM, which must end them cleanly (status 0; under ASan no leak,
under TSan no race). `make test` runs this file as the suite `serve`.

Starting a server builds its station (the property tables and each distinct
unit's primary settling to its steady state): that was most of this suite's
time, so servers are shared where the tests allow it.

- The servers are named (spec()); USES says which tests use which, in the
  order the tests run (load_tests). Tests of one name share its server:
  each opens its own clients, and after each the server must be back to the
  file descriptors it had idle (every client's socket closed, the
  controller released), a leak check between tests. Tests on a shared
  step-mode world check ticks relative to the tick their hello reports. A
  test that needs a fresh world comes first on its server (and restarts it
  if it runs after another); the test that stops a server (take()) comes
  last on it; the rest stop at the end (tearDownModule). Every server must
  exit 0 on SIGTERM.
- While the tests run, a thread starts the servers of the tests to come,
  one at a time (ahead()): a station builds on one core, single-threaded,
  and the tests mostly wait on sockets, sleeps or a reset's build.
- Where the station's size does not matter, a one-unit station (one_unit(),
  made from scenarios/pwr-station.json) replaces the default four units:
  the same code on a smaller world. The four-unit station serves the
  lockstep hash test (it and `pcsim run` run the same short scenario) and
  the tests that share its server.

The sanitizer builds (ASan, TSan) skip two tests (RELEASE_ONLY), pure pace
checks that the release pass makes: test_free_mode_real_time_pace and
test_free_mode_at_ten_x_and_at_a_tenth count ticks per wall second. The
free-mode pacing they run still runs under the sanitizers, in
test_free_mode_drops_a_backlog_over_a_second (paced ticks at 1x, the
backlog dropped after SIGSTOP, the summary at the stop); --speed's parsing
is in test_usage_errors. RSS is compared in release only.
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

PCSIM = "build/pcsim"
SANITIZED = False  # an ASan or TSan build (/asan/, /tsan/ in its path): RSS is not compared
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 10.0
# The server's start builds the whole station (the property tables and each
# unit's primary settling to its steady state): about 1.2 s in a release
# build, ten to twenty times that under ASan or TSan, more on a loaded
# machine. Start (and a reset, which builds a new station) gets its own
# bound; the protocol keeps TIMEOUT.
START_TIMEOUT = 180.0
TMP = None  # this run's scratch directory (scenarios, save directories)


def read(path):
    with open(path) as f:
        return f.read()


class Closed(Exception):
    """The server closed the connection."""


class Client:
    """A blocking client: 4-byte big-endian length, then JSON."""

    def __init__(self, port, hello=True, role="observe", token=None, versions=(1,), rcvbuf=None):
        if rcvbuf is None:
            self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        else:  # set before connecting: it bounds the window (no autotuning)
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            self.sock.settimeout(TIMEOUT)
            self.sock.connect(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.hello = None
        if hello:
            msg = {"type": "hello", "versions": list(versions), "role": role}
            if token is not None:
                msg["token"] = token
            self.hello = self.call(msg)

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, obj):
        body = json.dumps(obj).encode()
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            part = self.sock.recv(n - len(buf))
            if not part:
                raise Closed()
            buf += part
        return buf

    def recv(self):
        (n,) = struct.unpack(">I", self._read(4))
        return json.loads(self._read(n))

    def recv_reply(self):
        """The next message that is not a subscription push."""
        while True:
            m = self.recv()
            if not m.get("push"):
                return m

    def call(self, obj, timeout=None):
        """Send and wait for the reply; timeout for a request that builds a
        station (reset), else TIMEOUT."""
        self.send(obj)
        if timeout is None:
            return self.recv_reply()
        self.sock.settimeout(timeout)
        try:
            return self.recv_reply()
        finally:
            self.sock.settimeout(TIMEOUT)

    def expect_closed(self):
        """Read until the server closes; return what came before."""
        got = []
        try:
            while True:
                got.append(self.recv())
        except (Closed, ConnectionResetError):
            return got

    def close(self):
        self.sock.close()


class Server:
    def __init__(self, *args, scenario=None, wait=True):
        """Start `pcsim serve`; wait: until it listens (else ready() does)."""
        self.dir = tempfile.mkdtemp(prefix="pcsim-serve-")
        self.port_file = os.path.join(self.dir, "port")
        self.err_path = os.path.join(self.dir, "stderr")
        cmd = [PCSIM, "serve"] + ([scenario] if scenario else [])
        cmd += ["--port", "0", "--port-file", self.port_file] + list(args)
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.err)
        self.port = None
        self.clients = []
        self.used = False  # a test has had it (shared servers)
        if wait:
            self.ready()

    def listening(self):
        return os.path.exists(self.port_file) and read(self.port_file).endswith("\n")

    def ready(self):
        """Wait until it listens (its station built); idle_fds: its file
        descriptors with no client connected."""
        if self.port is not None:
            return self
        deadline = time.time() + START_TIMEOUT
        while not self.listening():
            if self.proc.poll() is not None or time.time() > deadline:
                raise AssertionError("server did not start: " + self.stderr())
            time.sleep(0.01)
        self.port = int(read(self.port_file))
        self.idle_fds = self.fds()
        return self

    def stderr(self):
        if not self.err.closed:
            self.err.flush()
        with open(self.err_path) as f:
            return f.read()

    def connect(self, **kw):
        c = Client(self.port, **kw)
        self.clients.append(c)
        return c

    def rss_kib(self):
        for line in read("/proc/%d/status" % self.proc.pid).splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.proc.pid))

    def stop(self):
        if self.proc.poll() is None:
            self.ready()  # SIGTERM is handled once it listens
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=TIMEOUT)
        self.err.close()
        return rc

    def close_clients(self):
        """Close this test's clients; wait until the server has closed their
        sockets too (so the controller is free for the next test)."""
        for c in self.clients:
            c.close()
        self.clients = []
        deadline = time.time() + TIMEOUT
        while self.fds() != self.idle_fds and time.time() < deadline:
            time.sleep(0.01)
        return self.fds()


# The servers the tests use, by name: (arguments, scenario). A test takes a
# server to stop it itself, or shares it with the tests of the same name
# (stopped by tearDownModule).
def spec(name):
    one = one_unit()
    return {
        # four units in step mode (the short scenario: the default station,
        # as `pcsim serve` does not run a script)
        "station": (("--save-dir", scratch("station-saves")), short_scenario()[0]),
        "station1": (("--save-dir", scratch("station1-saves")), one),
        # scenarios/living-world.json as it is: u2 built later, freeze on
        "living": (("--save-dir", scratch("living-saves")),
                   os.path.join(ROOT, "scenarios", "living-world.json")),
        "fast1": (("--mode", "fast", "--send-queue", "65536", "--slow-consumer-ms", "300"), one),
        "free1": (("--mode", "free", "--speed", "1"), one),
        "free10": (("--mode", "free", "--speed", "10"), one),
        "free0.1": (("--mode", "free", "--speed", "0.1"), one),
        "rate": (("--rate", "20", "--burst", "2"), one),
        "token": (("--token", token_file()), one),
        "read-only": (("--read-only",), one),
        "max-clients": (("--max-clients", "2"), one),
    }[name]


# Which servers each test uses, in the order they run (load_tests): on a
# shared server, the test that needs a fresh world first, the one that stops
# it last. So that servers build their stations before their tests (ahead()).
USES = {
    "test_four_clients_lockstep_hash_equals_pcsim_run": ["station"],
    "test_malformed_frames_and_messages_are_dropped_with_a_reason": ["station"],
    "test_oversized_messages": ["station"],
    "test_unknown_commands_targets_and_channels_are_refused_not_fatal": ["station"],
    "test_observers_may_not_control": ["station"],
    "test_controller_leaving_frees_the_world": ["station"],
    "test_save_and_load_restore_the_state": ["station"],
    "test_connect_disconnect_cycles_leak_neither_memory_nor_fds": ["station"],
    "test_sigterm_stops_cleanly_with_clients_connected": ["station"],
    "test_reset_with_the_same_seed_repeats_the_run": ["station1"],
    "test_a_channel_retired_by_pump_remove_is_named_to_observers_and_subscribers": ["station1"],
    "test_a_refused_load_of_a_save_with_a_structure_log_leaves_the_world_as_it_was":
        ["station1"],
    "test_a_save_loads_after_a_structural_change_made_since_it": ["station1"],
    "test_a_living_world_save_loads_with_its_added_unit_and_a_freeze_right_after": ["living"],
    # A free-running server starts ahead only during the test before its
    # first (it ticks once built: fast mode flat out, a core's worth): a
    # long one. Fast mode is over before the pace checks.
    "test_fast_mode_runs_by_itself_and_refuses_step": ["fast1"],
    "test_slow_consumer_is_dropped_and_the_world_keeps_ticking": ["fast1"],
    "test_pushes_restart_after_a_reset_or_load_that_returns_to_the_last_pushed_tick":
        ["station1"],
    "test_free_mode_real_time_pace": ["free1"],
    "test_free_mode_drops_a_backlog_over_a_second": ["free1"],
    "test_free_mode_at_ten_x_and_at_a_tenth": ["free10", "free0.1"],
    "test_acts_beyond_the_rate_limit_are_refused_with_the_next_token_time": ["rate"],
    "test_token": ["token"],
    "test_read_only": ["read-only"],
    "test_max_clients": ["max-clients"],
    "test_usage_errors": [],
}
# Pace checks: release build only (the file's docstring says why).
RELEASE_ONLY = {"test_free_mode_real_time_pace", "test_free_mode_at_ten_x_and_at_a_tenth"}
RUN = []  # the names of the tests of this run, in order (load_tests)
NOW = [-1]  # the index in RUN of the test running
SHARED = {}  # name: a running server (or one building its station)
LOCK = threading.Lock()  # SHARED, between the tests and the thread ahead()
STOP = threading.Event()  # ahead(): stop
AHEAD = []  # its thread


def free_running(name):
    """A free or fast mode server ticks (spends CPU) as soon as it is built."""
    args = spec(name)[0]
    return "--mode" in args and args[args.index("--mode") + 1] != "step"


def shared(name, fresh=False):
    """The server name, started if need be; fresh: one no test has used yet
    (a used one is stopped and replaced)."""
    with LOCK:
        srv = SHARED.get(name)
        if srv is not None and (fresh and srv.used or srv.proc.poll() is not None):
            SHARED.pop(name)
            rc = srv.stop()
            if rc != 0:
                raise AssertionError("shared server %s exited %d: %s" % (name, rc, srv.stderr()))
            srv = None
        if srv is None:
            args, scenario = spec(name)
            srv = SHARED[name] = Server(*args, scenario=scenario, wait=False)
        srv.used = True
    return srv.ready()


def next_ahead():
    """The next server to start ahead (LOCK held): the first one not started
    of the tests after the one running; a free-running one only for the
    very next test."""
    for j in range(NOW[0] + 1, len(RUN)):
        for name in USES.get(RUN[j], []):
            if name not in SHARED and (j == NOW[0] + 1 or not free_running(name)):
                return name
    return None


def ahead():
    """A thread: start the servers of the tests to come, one at a time, each
    once the one before it has built its station. A station builds
    single-threaded: on two cores, this keeps the second busy while the
    tests run (most of them wait on sockets, sleeps, or one reset)."""
    while not STOP.is_set():
        with LOCK:
            name = next_ahead()
            if name is not None:
                args, scenario = spec(name)
                srv = SHARED[name] = Server(*args, scenario=scenario, wait=False)
        if name is None:
            STOP.wait(0.05)
            continue
        while not srv.listening() and srv.proc.poll() is None and not STOP.is_set():
            time.sleep(0.02)


def setUpModule():
    STOP.clear()
    AHEAD[:] = [threading.Thread(target=ahead, name="ahead", daemon=True)]
    AHEAD[0].start()


def tearDownModule():
    STOP.set()
    for t in AHEAD:  # before the stops: it starts no server after them
        t.join()
    bad = []
    with LOCK:
        for name, srv in list(SHARED.items()):
            rc = srv.stop()
            if rc != 0:
                bad.append("shared server %s exited %d: %s" % (name, rc, srv.stderr()))
        SHARED.clear()
    if bad:
        raise AssertionError("\n".join(bad))


def token_file():
    path = os.path.join(scratch("token"), "token")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write("s3cret-token\n")
    return path


def scratch(name):
    """The directory name in this run's scratch directory (made once)."""
    global TMP
    if TMP is None:
        TMP = tempfile.mkdtemp(prefix="pcsim-serve-test-")
    path = os.path.join(TMP, name)
    os.makedirs(path, exist_ok=True)
    return path


SCENARIOS = {}


def short_scenario():
    """The station with a 30 s run, no reader threads, and a script of
    three commands at ticks 100, 200 and 400 (dt 0.05 s). `pcsim serve` does
    not run a script: its station is the default one."""
    if "short" in SCENARIOS:
        return SCENARIOS["short"]
    directory = scratch("short")
    doc = json.loads(read(os.path.join(ROOT, "scenarios", "pwr-station.json")))
    doc["run"] = {"seconds": 30, "timeline_every_s": 30}
    doc["readers"] = {"count": 0}
    doc["script"] = [
        {"t_s": 5, "command": "pump_trip", "target": "u2.pump2"},
        {"t_s": 10, "command": "rod_position", "target": "u1.D", "value": 0.8},
        {"t_s": 20, "command": "turbine_load", "target": "u3", "value": 0.87},
    ]
    path = os.path.join(directory, "short.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    SCENARIOS["short"] = path, doc
    return path, doc


def one_unit():
    """scenarios/pwr-station.json with its first unit only (u1, full power)
    and no script: for tests where the station's size does not matter."""
    if "one" not in SCENARIOS:
        doc = json.loads(read(os.path.join(ROOT, "scenarios", "pwr-station.json")))
        doc["units"] = doc["units"][:1]
        doc["readers"] = {"count": 0}
        doc["script"] = []
        path = os.path.join(scratch("one"), "one-unit.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        SCENARIOS["one"] = path
    return SCENARIOS["one"]


WATCH = ["u1.core.power", "u2.core.flow", "u3.rcs.pressure", "u4.core.power"]
WATCH1 = ["u1.core.power", "u1.core.flow", "u1.rcs.pressure", "u1.loop2.flow"]  # one unit


def first_obs(c, channels=WATCH1):
    """The first observation of channels from a free-running world: the world
    thread may not have ticked yet on a loaded machine (no_data)."""
    deadline = time.time() + START_TIMEOUT
    m = c.call({"type": "observe", "channels": channels})
    while m.get("code") == "no_data" and time.time() < deadline:
        time.sleep(0.01)
        m = c.call({"type": "observe"})
    if m.get("type") != "obs":
        raise AssertionError("no observation: %r" % m)
    return m


class ServeTest(unittest.TestCase):
    def _stop(self, srv):
        if srv.proc.poll() is None:
            self.assertEqual(srv.stop(), 0, srv.stderr())
        for c in srv.clients:
            c.close()

    def shared(self, name, fresh=False):
        """A shared server (see shared()); after the test, its clients are
        closed and the server must be back to its idle file descriptors."""
        srv = shared(name, fresh=fresh)
        self.addCleanup(self._release, name, srv)
        return srv

    def _release(self, name, srv):
        if srv.proc.poll() is not None:
            if SHARED.get(name) is srv:  # it died: say why (the next test starts another)
                self.fail("shared server %s exited %d: %s"
                          % (name, srv.proc.returncode, srv.stderr()))
            return
        fds = srv.close_clients()
        self.assertEqual(fds, srv.idle_fds, "shared server %s: fds of closed clients still open"
                         % name)

    def take(self, name):
        """The server name, which this test stops: it leaves the shared set."""
        srv = shared(name)
        with LOCK:
            SHARED.pop(name)
        self.addCleanup(self._stop, srv)
        return srv

    def release_only(self):
        if SANITIZED and self._testMethodName in RELEASE_ONLY:
            self.skipTest("a pace check: release build only (see the file's docstring)")

    def setUp(self):
        self.t0 = time.time()
        if self._testMethodName in RUN:
            NOW[0] = RUN.index(self._testMethodName)

    def tearDown(self):
        sys.stderr.write("(%.1f s) " % (time.time() - self.t0))

    def assertError(self, msg, code, fatal):
        self.assertEqual(msg.get("type"), "error", msg)
        self.assertEqual(msg["code"], code, msg)
        self.assertEqual(msg["fatal"], fatal, msg)
        self.assertTrue(msg["message"], msg)

    def assertDropped(self, client, code):
        got = client.expect_closed()
        self.assertTrue(got, "closed without a reason")
        self.assertError(got[-1], code, True)
        return got[-1]

    # ---- determinism and concurrent clients ------------------------------

    def test_four_clients_lockstep_hash_equals_pcsim_run(self):
        """One client steps with the script's acts at the script's ticks while
        three observe; the final state hash is `pcsim run`'s for the same
        scenario (which submits the same commands from its script thread).
        The server's world is a fresh one (the first test on the shared
        station); `pcsim run` builds its station meanwhile."""
        path, doc = short_scenario()
        run = subprocess.Popen([PCSIM, "run", path, "--json", "--quiet"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: run.poll() is None and (run.kill(), run.wait()))
        srv = self.shared("station", fresh=True)
        ctl = srv.connect(role="control")
        self.assertEqual(ctl.hello["role"], "control")
        self.assertEqual(ctl.hello["version"], 1)
        self.assertEqual(ctl.hello["tick"], 0)
        # A second controller is refused while the first holds the world.
        second = srv.connect(hello=False)
        second.send({"type": "hello", "versions": [1], "role": "control"})
        self.assertDropped(second, "world_busy")

        observers = [srv.connect() for _ in range(3)]
        self.assertEqual(observers[0].call({"type": "subscribe", "channels": WATCH, "every": 50}),
                         {"type": "subscribe", "every": 50, "channels": 4})
        polls, stop = [[], []], threading.Event()

        def poll(c, out):
            c.send({"type": "observe", "channels": WATCH})
            out.append(c.recv())
            while True:  # the last observe starts after the run: a starved poller sees tick 600
                done = stop.is_set()
                c.send({"type": "observe"})
                out.append(c.recv())
                if done:
                    break

        threads = [threading.Thread(target=poll, args=(c, out))
                   for c, out in zip(observers[1:], polls)]
        for t in threads:
            t.start()
        ticks = 0
        for action in doc["script"]:
            tick = round(action["t_s"] / 0.05)
            reply = ctl.call({"type": "step", "n": tick - ticks, "id": tick})
            self.assertEqual((reply["type"], reply["tick"], reply["id"]), ("step", tick, tick))
            ticks = tick
            act = {"type": "act", "target": action["target"], "command": action["command"]}
            if "value" in action:
                act["value"] = action["value"]
            self.assertEqual(ctl.call(act)["tick"], tick)
        end = ctl.call({"type": "step", "n": 600 - ticks, "hash": True})
        stop.set()
        for t in threads:
            t.join(TIMEOUT)
        self.assertEqual(end["tick"], 600)
        out, err = run.communicate(timeout=START_TIMEOUT)
        self.assertEqual(run.returncode, 0, err)
        self.assertEqual(end["state_hash"], json.loads(out)["state_hash"])
        # What the observers saw: whole observations, time never going back.
        pushes = []
        observers[0].sock.settimeout(0.5)
        try:
            while True:
                pushes.append(observers[0].recv())
        except socket.timeout:
            pass
        self.assertGreaterEqual(len(pushes), 2)
        for seq in [pushes] + polls:
            ok = [m for m in seq if m["type"] == "obs"]
            self.assertTrue(ok, seq[:3])
            self.assertEqual([m["tick"] for m in ok], sorted(m["tick"] for m in ok))
            for m in ok:
                self.assertEqual(len(m["values"]), 4)
                self.assertTrue(all(isinstance(v, float) for v in m["values"]), m)
        self.assertTrue(all(m.get("push") for m in pushes))
        last = observers[1].call({"type": "observe"})
        self.assertEqual(last["tick"], 600)
        self.assertEqual(last["values"], ctl.call({"type": "observe", "channels": WATCH})["values"])

    def test_reset_with_the_same_seed_repeats_the_run(self):
        srv = self.shared("station1", fresh=True)  # the first run is the server's own first world
        c = srv.connect(role="control")
        sub = srv.connect()
        sub.call({"type": "subscribe", "channels": WATCH1, "every": 10})
        c.call({"type": "act", "target": "u1.pump2", "command": "pump_trip"})
        first = c.call({"type": "step", "n": 40, "hash": True})["state_hash"]
        # Pushes coalesce: at least 10 ticks apart, and the step's last tick too.
        ticks = [sub.recv()["tick"]]
        while ticks[-1] < 40:
            ticks.append(sub.recv()["tick"])
        self.assertEqual(ticks[-1], 40)
        self.assertTrue(all(b - a >= 10 for a, b in zip(ticks, ticks[1:-1])), ticks)
        r = c.call({"type": "reset", "hash": True}, timeout=START_TIMEOUT)
        self.assertEqual((r["tick"], r["seed"]), (0, c.hello["seed"]))
        c.call({"type": "act", "target": "u1.pump2", "command": "pump_trip"})
        self.assertEqual(c.call({"type": "step", "n": 40, "hash": True})["state_hash"], first)
        r = c.call({"type": "reset", "seed": 7, "hash": True}, timeout=START_TIMEOUT)
        self.assertEqual(r["seed"], 7)
        self.assertEqual(c.call({"type": "observe", "channels": WATCH1})["code"], "no_data")
        self.assertEqual(c.call({"type": "step", "n": 1})["tick"], 1)
        self.assertEqual(c.call({"type": "observe"})["tick"], 1)
        # The subscription goes on from the new world's first tick.
        sub.sock.settimeout(0.5)
        ticks = []
        try:
            while True:
                ticks.append(sub.recv()["tick"])
        except socket.timeout:
            pass
        self.assertEqual(ticks[-1], 1)
        self.assertEqual(ticks[-2:], [40, 1], ticks)  # the second run ended at 40

    def test_a_channel_retired_by_pump_remove_is_named_to_observers_and_subscribers(self):
        """Issue 19: pump_remove retires u1.pump2.speed (pcsim/structure.h).
        An observer whose kept list holds it is refused with unknown_channel
        naming the retirement (it got an undocumented "busy"); a subscriber
        gets that error once and no more pushes (they stopped silently), and
        may subscribe again with the current names."""
        srv = self.shared("station1")
        c = srv.connect(role="control")
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        self.addCleanup(lambda: c.call({"type": "reset"}, timeout=START_TIMEOUT))
        c.call({"type": "step"})
        obs, sub = srv.connect(), srv.connect()
        names = ["u1.pump2.speed", "u1.core.flow"]
        self.assertEqual(obs.call({"type": "observe", "channels": names})["type"], "obs")
        sub.call({"type": "subscribe", "channels": names, "every": 1})
        c.call({"type": "act", "target": "u1.pump2", "command": "pump_remove"})
        c.call({"type": "step", "n": 2})
        got = []
        while not got or got[-1].get("push"):
            got.append(sub.recv())
        self.assertError(got[-1], "unknown_channel", False)
        self.assertIn("retired", got[-1]["message"])
        c.call({"type": "step", "n": 2})
        sub.sock.settimeout(0.5)
        self.assertRaises(socket.timeout, sub.recv)
        sub.sock.settimeout(TIMEOUT)
        m = obs.call({"type": "observe"})
        self.assertError(m, "unknown_channel", False)
        self.assertIn("ids[0] = ", m["message"])  # the list's index of the retired one
        self.assertIn("retired", m["message"])
        again = sub.call({"type": "subscribe", "channels": names[1:], "every": 1})
        self.assertEqual(again["type"], "subscribe", again)

    def _saves(self, srv):
        return srv.proc.args[srv.proc.args.index("--save-dir") + 1]

    def test_a_refused_load_of_a_save_with_a_structure_log_leaves_the_world_as_it_was(self):
        """A save whose structure log is sound but whose state is refused (a
        store's bytes flipped: its checksum fails) must leave the live world
        untouched: its structure (pump2 still in), its clock and its state.
        The load runs in a fresh world that replaces the live one only on
        success (docs/protocol.md, "load")."""
        srv = self.shared("station1")
        c = srv.connect(role="control")
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        self.addCleanup(lambda: c.call({"type": "reset"}, timeout=START_TIMEOUT))
        c.call({"type": "act", "target": "u1.pump2", "command": "pump_remove"})
        c.call({"type": "step", "n": 3})
        self.assertEqual(c.call({"type": "save", "name": "removed"})["tick"], 3)
        good = os.path.join(self._saves(srv), "removed.save")
        with open(good, "rb") as f:
            b = bytearray(f.read())
        n_sections = struct.unpack_from("<I", b, 12)[0]
        first = struct.unpack_from("<Q", b, 48 + 64)[0]  # section 0's offset: a state store
        self.assertEqual(first, 48 + 104 * n_sections + 8)
        b[first] ^= 0xFF
        with open(os.path.join(self._saves(srv), "bad.save"), "wb") as f:
            f.write(b)
        # The live world: a fresh one, two ticks on, pump2 in place.
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        c.call({"type": "step", "n": 2})
        m = c.call({"type": "load", "name": "bad"}, timeout=START_TIMEOUT)
        self.assertError(m, "load_failed", False)
        self.assertIn("checksum", m["message"])
        obs = srv.connect()
        self.assertEqual(obs.call({"type": "observe", "channels": ["u1.pump2.speed"]})["type"],
                         "obs")
        after = c.call({"type": "step", "n": 1, "hash": True})
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        c.call({"type": "step", "n": 2})
        self.assertEqual(c.call({"type": "step", "n": 1, "hash": True}), after)

    def test_a_save_loads_after_a_structural_change_made_since_it(self):
        """save, pump_install, load that save: the live world's structure log
        runs ahead of the save's (it was refused: "the save's structure log
        has 1 entries; this world has applied 2"); a fresh world replays the
        save's log and takes its state."""
        srv = self.shared("station1")
        c = srv.connect(role="control")
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        self.addCleanup(lambda: c.call({"type": "reset"}, timeout=START_TIMEOUT))
        c.call({"type": "act", "target": "u1.pump2", "command": "pump_remove"})
        c.call({"type": "step", "n": 3})
        self.assertEqual(c.call({"type": "save", "name": "one"})["tick"], 3)
        self.assertEqual(c.call({"type": "load", "name": "one"}, timeout=START_TIMEOUT)["tick"], 3)
        then = c.call({"type": "step", "n": 1, "hash": True})
        c.call({"type": "act", "target": "u1.pump2", "command": "pump_install"})
        c.call({"type": "step", "n": 2})
        obs = srv.connect()
        self.assertEqual(obs.call({"type": "observe", "channels": ["u1.pump2.speed"]})["type"],
                         "obs")  # installed again
        m = c.call({"type": "load", "name": "one"}, timeout=START_TIMEOUT)
        self.assertEqual(m.get("tick"), 3, m)
        self.assertEqual(c.call({"type": "step", "n": 1, "hash": True}), then)
        self.assertError(obs.call({"type": "observe"}), "unknown_channel", False)

    def test_a_living_world_save_loads_with_its_added_unit_and_a_freeze_right_after(self):
        """A save of the living world taken after unit_add loads into a
        server whose world never added u2 (its channels appear), a second
        unit_add of u2 is rejected at its tick (the hash is that of no
        command), and a freeze acted right after a load holds u1's outputs
        of the tick before the save: the same hash and pressurizer pressure
        as the world that froze without the load (it held the build values
        the load left: another pressure, another hash)."""
        srv = self.shared("living")
        c = srv.connect(role="control")
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        # An act names its target when it comes (serve runs no script): u2's
        # are refused before its add and taken after it, as a unit of the
        # start's (`pcsim run`'s script needed a fix for these, 079b24c).
        err = c.call({"type": "act", "target": "u2", "command": "scram"})
        self.assertError(err, "unknown_command", False)
        self.assertIn("'u2' is not a target of scram", err["message"])
        c.call({"type": "act", "target": "u2", "command": "unit_add"})
        c.call({"type": "step", "n": 40})
        self.assertEqual(c.call({"type": "save", "name": "added"})["tick"], 40)
        watch2 = ["u2.rods.pos", "u2.pump1.speed"]
        before = c.call({"type": "observe", "channels": watch2})["values"]
        for target, command in (("u2", "scram"), ("u2.pump1", "pump_trip")):
            self.assertEqual(c.call({"type": "act", "target": target, "command": command})["type"],
                             "act")
        c.call({"type": "step", "n": 20})
        after = c.call({"type": "observe", "channels": watch2})["values"]
        self.assertLess(after[0], before[0] - 0.05, "u2's rods fall after its scram")
        self.assertLess(after[1], before[1], "u2's pump 1 runs down after its trip")
        c.call({"type": "reset"}, timeout=START_TIMEOUT)
        c.call({"type": "step", "n": 1})
        self.assertError(c.call({"type": "observe", "channels": ["u2.core.power"]}),
                         "unknown_channel", False)
        self.assertEqual(c.call({"type": "load", "name": "added"}, timeout=START_TIMEOUT)["tick"],
                         40)
        c.call({"type": "act", "target": "u2", "command": "unit_add"})
        after = c.call({"type": "step", "n": 1, "hash": True})
        c.call({"type": "load", "name": "added"}, timeout=START_TIMEOUT)
        self.assertEqual(c.call({"type": "step", "n": 1, "hash": True}), after)
        self.assertEqual(c.call({"type": "observe", "channels": ["u2.core.power"]})["type"], "obs")
        # Freeze at the tick after the save, without and with a load between.
        watch = ["u1.pzr.pressure", "u1.frozen"]
        runs = []
        for load in (False, True):
            c.call({"type": "load", "name": "added"}, timeout=START_TIMEOUT)
            if not load:
                c.call({"type": "step", "n": 5})
                self.assertEqual(c.call({"type": "save", "name": "at45"})["tick"], 45)
            else:
                self.assertEqual(c.call({"type": "load", "name": "at45"},
                                        timeout=START_TIMEOUT)["tick"], 45)
            c.call({"type": "act", "target": "u1", "command": "freeze"})
            step = c.call({"type": "step", "n": 30, "hash": True})
            runs.append((step, c.call({"type": "observe", "channels": watch})["values"]))
        self.assertEqual(runs[0][1][1], 1, "u1 frozen")
        self.assertEqual(runs[1], runs[0])

    def test_pushes_restart_after_a_reset_or_load_that_returns_to_the_last_pushed_tick(self):
        """A subscriber's last push is forgotten when the clock restarts: a
        new clock reaching the tick last pushed from the old one is pushed
        all the same. One-tick steps make this independent of timing: each
        step's end is pushed (whether its tick notice or its reply comes
        first), and nothing else is."""
        srv = self.shared("station1")  # each round starts with a reset: any world will do
        c = srv.connect(role="control")
        sub = srv.connect()
        # every 1000: within these runs only the first tick and step ends are due.
        sub.call({"type": "subscribe", "channels": WATCH1, "every": 1000})
        expected = []
        for _ in range(3):
            c.call({"type": "reset"}, timeout=START_TIMEOUT)
            self.assertEqual(c.call({"type": "step"})["tick"], 1)
            c.call({"type": "reset"}, timeout=START_TIMEOUT)
            self.assertEqual(c.call({"type": "step"})["tick"], 1)  # the old clock's last push
            self.assertEqual(c.call({"type": "step"})["tick"], 2)
            self.assertEqual(c.call({"type": "save", "name": "at2"})["tick"], 2)
            self.assertEqual(c.call({"type": "step"})["tick"], 3)
            self.assertEqual(c.call({"type": "load", "name": "at2"})["tick"], 2)
            self.assertEqual(c.call({"type": "step"})["tick"], 3)  # the old clock's last push
            self.assertEqual(c.call({"type": "step", "n": 7})["tick"], 10)
            expected += [1, 1, 2, 3, 3, 10]
        # Each step's push went out before its reply; each round ends at 10.
        ticks = []
        while ticks.count(10) < 3:
            m = sub.recv()
            self.assertTrue(m.get("push"), m)
            ticks.append(m["tick"])
        self.assertEqual(ticks, expected)

    def test_save_and_load_restore_the_state(self):
        srv = self.shared("station")
        d = srv.proc.args[srv.proc.args.index("--save-dir") + 1]
        c = srv.connect(role="control")
        t = c.hello["tick"]
        saved = c.call({"type": "step", "n": 20, "hash": True})
        self.assertEqual(c.call({"type": "save", "name": "at20"})["tick"], t + 20)
        self.assertTrue(os.path.getsize(os.path.join(d, "at20.save")) > 0)
        c.call({"type": "act", "target": "u1", "command": "scram"})
        self.assertNotEqual(c.call({"type": "step", "n": 20, "hash": True})["state_hash"],
                            saved["state_hash"])
        self.assertEqual(c.call({"type": "load", "name": "at20"})["tick"], t + 20)
        again = c.call({"type": "step", "n": 1, "hash": True})
        c.call({"type": "load", "name": "at20"})
        self.assertEqual(c.call({"type": "step", "n": 1, "hash": True}), again)
        self.assertError(c.call({"type": "load", "name": "missing"}), "load_failed", False)
        self.assertDropped(self._bad(srv, {"type": "save", "name": "../x"}), "bad_message")

    def _bad(self, srv, msg, role="observe"):
        c = srv.connect(role=role)
        c.send(msg)
        return c

    def test_fast_mode_runs_by_itself_and_refuses_step(self):
        srv = self.shared("fast1")
        c = srv.connect(role="control")
        self.assertEqual(c.hello["mode"], "fast")
        self.assertIsNone(c.hello["speed"], "fast mode has no speed")
        m = c.call({"type": "step"})
        self.assertError(m, "free_running", False)
        self.assertIn("--mode fast", m["message"])
        t0 = first_obs(c)
        # It advances with nobody stepping (polled: a loaded machine may not run it at once).
        deadline = time.time() + TIMEOUT
        t1 = t0
        while t1["tick"] <= t0["tick"] and time.time() < deadline:
            time.sleep(0.02)
            t1 = c.call({"type": "observe"})
        self.assertGreater(t1["tick"], t0["tick"])
        self.assertEqual(c.call({"type": "act", "target": "u1", "command": "scram"})["type"], "act")

    def test_free_mode_real_time_pace(self):
        self.release_only()
        srv = self.shared("free1")
        c = srv.connect()
        w_sub = time.monotonic()
        c.call({"type": "subscribe", "channels": WATCH1[:1], "every": 1})
        first = c.recv()
        w_first = time.monotonic()
        time.sleep(1.0)
        c.call({"type": "subscribe", "every": 0})
        w_obs = time.monotonic()
        last = c.call({"type": "observe"})
        w_end = time.monotonic()
        # 20 ticks per wall second (dt 0.05 s). The ticks between the two
        # observations ran within [w_first, w_obs] at least and [w_sub, w_end]
        # at most, wall times measured here, so a late wake-up of this process
        # does not count against the server. The slack: a busy machine may
        # leave the world up to 0.4 s behind, or let it catch up as much.
        ticks = last["tick"] - first["tick"]
        self.assertGreaterEqual(ticks, 20 * (w_obs - w_first) - 8, (ticks, w_obs - w_first))
        self.assertLessEqual(ticks, 20 * (w_end - w_sub) + 8, (ticks, w_end - w_sub))

    def test_free_mode_at_ten_x_and_at_a_tenth(self):
        self.release_only()
        # Both servers at once, over the same wall-time window.
        servers = [(self.take("free" + speed), speed, rate)
                   for speed, rate in (("10", 200.0), ("0.1", 2.0))]
        t0 = {}
        for srv, speed, _ in servers:
            c = srv.connect()
            self.assertEqual(c.hello["mode"], "free")
            self.assertEqual(c.hello["speed"], float(speed))
            t0[speed] = first_obs(c)["tick"], time.monotonic()
        time.sleep(1.5)
        for srv, speed, rate in servers:
            t1 = srv.clients[0].call({"type": "observe"})["tick"]
            w1 = time.monotonic()
            ticks, w0 = t1 - t0[speed][0], t0[speed][1]
            # rate ticks per wall second (dt 0.05 s). Exact-ish above; below,
            # generous. A server that ignored --speed (20 ticks a second, at
            # most 38 here) fails one bound or the other.
            self.assertGreaterEqual(ticks, rate * 1.5 * 0.25 - 8, (speed, ticks))
            self.assertLessEqual(ticks, rate * (w1 - w0) + 8, (speed, ticks, w1 - w0))
        for srv, _, _ in servers:
            self.assertEqual(srv.stop(), 0, srv.stderr())

    def test_free_mode_drops_a_backlog_over_a_second(self):
        # Stopped for 2.5 s at 1x, the world owes 50 ticks (2.5 s of wall
        # time): over the 1 s rule, so the backlog is dropped (logged) and it
        # goes on at 20 ticks a second, rather than running the 50 at once.
        # (It stops the server test_free_mode_real_time_pace used, if that ran:
        # only the log from here on counts.)
        srv = self.take("free1")
        c = srv.connect()
        t0 = first_obs(c)["tick"]
        mark = len(srv.stderr())
        srv.proc.send_signal(signal.SIGSTOP)
        time.sleep(2.5)
        w0 = time.monotonic()
        srv.proc.send_signal(signal.SIGCONT)
        time.sleep(0.5)  # time to catch up, had it kept the backlog
        t1 = c.call({"type": "observe"})["tick"]
        w1 = time.monotonic()
        # The ticks of the wall time it ran since, with slack, never the 50 owed.
        self.assertLess(t1 - t0, 25 + 20 * (w1 - w0), (t0, t1, w1 - w0))
        deadline = time.time() + TIMEOUT
        while "ticks behind at speed 1" not in srv.stderr()[mark:] and time.time() < deadline:
            time.sleep(0.02)
        self.assertIn("dropped, pacing starts again from now", srv.stderr()[mark:])
        srv.stop()
        self.assertRegex(srv.stderr()[mark:], r"fell behind \d+ times; \d+ ticks dropped")


    def test_malformed_frames_and_messages_are_dropped_with_a_reason(self):
        srv = self.shared("station")
        t = srv.connect().hello["tick"]
        cases = [
            (struct.pack(">I", 0), "bad_frame"),
            (struct.pack(">I", 5) + b"{nope", "bad_json"),
            (struct.pack(">I", 2) + b"[]", "bad_json"),
            (struct.pack(">I", 4) + b"\xff\xfe{}", "bad_json"),
            (struct.pack(">I", 20) + b'{"type":"step","n":1}'[:20], "bad_json"),
        ]
        for raw, code in cases:
            c = srv.connect()
            c.send_raw(raw)
            self.assertDropped(c, code)
        for msg, code in [
            ({"type": "bogus"}, "unknown_type"),
            ({"kind": "step"}, "bad_message"),
            ({"type": "observe", "chanels": ["u1.core.power"]}, "bad_message"),
            ({"type": "step", "n": 2.5}, "bad_message"),
            ({"type": "step", "n": 0}, "bad_message"),
            ({"type": "step", "n": 1000001}, "bad_message"),
            ({"type": "act", "target": "u1"}, "bad_message"),
            ({"type": "act", "target": "u1", "command": "scram", "value": "x"}, "bad_message"),
            ({"type": "observe", "channels": []}, "bad_message"),
            ({"type": "observe", "channels": ["x" * 128]}, "bad_message"),
            ({"type": "hello", "versions": [1]}, "bad_message"),
        ]:
            self.assertDropped(self._bad(srv, msg), code)
        # Before hello, anything else is refused; a hello without a common version too.
        c = srv.connect(hello=False)
        c.send({"type": "observe", "channels": WATCH})
        self.assertDropped(c, "hello_required")
        c = srv.connect(hello=False)
        c.send({"type": "hello", "versions": [2, 3]})
        self.assertDropped(c, "version")
        c = srv.connect(hello=False)
        c.send_raw(b'\x00\x00\x00\x1c{"type":"hello","type":"x"}  ')
        self.assertIn("duplicate", self.assertDropped(c, "bad_json")["message"])
        # The server is unharmed.
        self.assertEqual(srv.connect(role="control").call({"type": "step"})["tick"], t + 1)

    def test_oversized_messages(self):
        srv = self.shared("station")
        c = srv.connect()
        c.send_raw(struct.pack(">I", 65537))  # refused from the header alone
        err = self.assertDropped(c, "too_large")
        self.assertIn("65537", err["message"])
        c = srv.connect()
        c.send_raw(struct.pack(">I", 0xFFFFFFFF) + b"{" * 1000)
        self.assertDropped(c, "too_large")
        # Exactly the limit is fine.
        c = srv.connect(role="control")
        body = json.dumps({"type": "step", "n": 3}).encode()
        body += b" " * (65536 - len(body))
        c.send_raw(struct.pack(">I", len(body)) + body)
        self.assertEqual(c.recv()["tick"], c.hello["tick"] + 3)
        # 1024 channels at most in one observe.
        c.send({"type": "observe", "channels": ["u1.core.power"] * 1024})
        self.assertEqual(len(c.recv()["values"]), 1024)
        self.assertDropped(self._bad(srv, {"type": "observe", "channels": ["a"] * 1025}),
                           "bad_message")

    def test_unknown_commands_targets_and_channels_are_refused_not_fatal(self):
        srv = self.shared("station")  # (no_save_dir, a server without --save-dir: test_token)
        c = srv.connect(role="control")
        err = c.call({"type": "act", "target": "u1", "command": "explode", "id": 4})
        self.assertError(err, "unknown_command", False)
        self.assertEqual(err["id"], 4)
        self.assertIn("explode", err["message"])
        err = c.call({"type": "act", "target": "u2.pump9", "command": "pump_trip"})
        self.assertError(err, "unknown_command", False)
        self.assertIn("pump9", err["message"])
        err = c.call({"type": "act", "target": "u1.D", "command": "rod_position", "value": 7})
        self.assertError(err, "bad_value", False)
        err = c.call({"type": "observe", "channels": ["u1.core.power", "u9.nothing"]})
        self.assertError(err, "unknown_channel", False)
        self.assertIn("[1]", err["message"])
        self.assertError(c.call({"type": "observe"}), "no_channels", False)
        self.assertEqual(c.call({"type": "step", "n": 2})["tick"], c.hello["tick"] + 2)  # served

    def test_acts_beyond_the_rate_limit_are_refused_with_the_next_token_time(self):
        # 20/s at dt 0.05 s: one token a tick, two held at most.
        srv = self.take("rate")
        c = srv.connect(role="control")
        act = {"type": "act", "target": "u1", "command": "alarm_ack_all"}
        self.assertEqual(c.call(act)["type"], "act")
        self.assertEqual(c.call(act)["type"], "act")
        err = c.call(act)
        self.assertError(err, "rate_limited", False)
        self.assertIn("rate limit: next token in 0.05 s (1 tick of 0.05 s; 20/s, burst 2)",
                      err["message"])
        self.assertEqual(c.call({"type": "step", "n": 1})["tick"], 1)
        self.assertEqual(c.call(act)["type"], "act")
        self.assertError(c.call(act), "rate_limited", False)
        self.assertEqual(srv.stop(), 0)
        self.assertIn("acts refused by rate limit (source class 3, id 1; 20/s, burst 2): 2",
                      srv.stderr())

    def test_observers_may_not_control(self):
        srv = self.shared("station")
        c = srv.connect()
        for msg in ({"type": "step"}, {"type": "reset"}, {"type": "save", "name": "a"},
                    {"type": "act", "target": "u1", "command": "scram"}):
            self.assertError(c.call(msg), "forbidden", False)

    def test_token(self):
        srv = self.take("token")  # (its token file says s3cret-token)
        for token, ok in (("s3cret-token", True), ("s3cret-tokeN", False), ("s3cret", False),
                          (None, False)):
            c = srv.connect(hello=False)
            msg = {"type": "hello", "versions": [1]}
            if token is not None:
                msg["token"] = token
            c.send(msg)
            if ok:
                self.assertEqual(c.recv()["type"], "hello")
            else:
                self.assertDropped(c, "bad_token")
        # save without --save-dir is refused, and not fatal
        c = srv.connect(token="s3cret-token", role="control")
        self.assertError(c.call({"type": "save", "name": "x"}), "no_save_dir", False)
        self.assertEqual(c.call({"type": "step"})["tick"], 1)  # still served
        self.assertIn("bad_token", srv.stderr())
        self.assertNotIn("s3cret", srv.stderr())

    def test_read_only(self):
        srv = self.take("read-only")
        c = srv.connect(hello=False)
        c.send({"type": "hello", "versions": [1], "role": "control"})
        self.assertDropped(c, "read_only")
        obs = srv.connect()
        self.assertTrue(obs.hello["read_only"])
        self.assertError(obs.call({"type": "step"}), "forbidden", False)

    def test_max_clients(self):
        srv = self.take("max-clients")
        a, b = srv.connect(), srv.connect()
        c = srv.connect(hello=False)
        self.assertDropped(c, "max_clients")
        a.call({"type": "close"})
        a.expect_closed()
        deadline = time.time() + TIMEOUT
        while True:  # the slot frees once the server has seen a's close
            d = srv.connect(hello=False)
            d.send({"type": "hello", "versions": [1]})
            m = d.recv()
            if m["type"] == "hello" or time.time() > deadline:
                break
        self.assertEqual(m["type"], "hello")
        self.assertEqual(b.call({"type": "subscribe", "every": 0})["type"], "subscribe")

    def test_controller_leaving_frees_the_world(self):
        srv = self.shared("station")
        a = srv.connect(role="control")
        t = a.hello["tick"]
        self.assertEqual(a.call({"type": "step", "n": 5})["tick"], t + 5)
        a.close()
        deadline = time.time() + TIMEOUT
        while True:
            b = srv.connect(hello=False)
            b.send({"type": "hello", "versions": [1], "role": "control"})
            m = b.recv()
            if m["type"] == "hello" or time.time() > deadline:
                break
        self.assertEqual(m["role"], "control")
        self.assertEqual(b.call({"type": "step"})["tick"], t + 6)

    def test_slow_consumer_is_dropped_and_the_world_keeps_ticking(self):
        srv = self.take("fast1")  # the last test on it: it ticks flat out, a core's worth
        mark = len(srv.stderr())
        # A small receive buffer: autotuning would let loopback buffer tens of
        # MB (tcp_rmem), seconds of pushes under ASan before the queue fills.
        slow = srv.connect(rcvbuf=65536)
        slow.call({"type": "subscribe", "channels": ["u1.core.power"] * 1024, "every": 1})
        watcher = srv.connect()
        first = first_obs(watcher)
        deadline = time.time() + 3 * TIMEOUT  # filling the socket buffers takes a while under ASan
        while "slow_consumer" not in srv.stderr()[mark:] and time.time() < deadline:
            time.sleep(0.05)
        self.assertIn("disconnected: slow_consumer: slow consumer", srv.stderr()[mark:])
        # Reading now gets what was queued and then the end of the stream.
        slow.sock.settimeout(TIMEOUT)
        slow.expect_closed()
        later = watcher.call({"type": "observe"})
        self.assertGreater(later["tick"], first["tick"])

    def test_connect_disconnect_cycles_leak_neither_memory_nor_fds(self):
        srv = self.shared("station")
        ctl = srv.connect(role="control")
        t = ctl.hello["tick"]
        ctl.call({"type": "step", "n": 2})

        def cycle(i):
            c = Client(srv.port, hello=(i % 2 == 0))
            srv.clients.append(c)
            if i % 2 == 0:
                c.call({"type": "observe", "channels": WATCH})
                if i % 4 == 0:
                    c.call({"type": "subscribe", "every": 1})
                c.call({"type": "close"})
                c.expect_closed()
            c.close()

        def settle(n_fds):
            """Wait until the server has closed every cycle's socket."""
            deadline = time.time() + TIMEOUT
            while srv.fds() != n_fds and time.time() < deadline:
                time.sleep(0.02)
            return srv.rss_kib(), srv.fds()

        base_fds = srv.fds()  # the listener, the loop's, the controller's
        for i in range(10):
            cycle(i)
        rss10, fds10 = settle(base_fds)
        self.assertEqual(fds10, base_fds)
        for i in range(10, 1000):
            cycle(i)
        rss, fds = settle(base_fds)
        self.assertEqual(fds, base_fds)
        sys.stderr.write("[RSS %d KiB after 10 cycles, %d after 1000; %d fds] "
                         % (rss10, rss, fds))
        if not SANITIZED:  # sanitizers keep freed memory and shadow resident by design
            self.assertLessEqual(rss - rss10, 2048, "RSS %d KiB after 10 cycles, %d after 1000"
                                 % (rss10, rss))
        self.assertEqual(ctl.call({"type": "step", "n": 1})["tick"], t + 3)

    def test_sigterm_stops_cleanly_with_clients_connected(self):
        """The last test on the shared station: it stops it. The summary then
        shows the act rate limit: with no --rate/--burst, the scenario's
        (the default 400/s, burst 800), and no act on this server refused."""
        srv = self.take("station")
        c = srv.connect(role="control")
        srv.connect().call({"type": "subscribe", "channels": WATCH, "every": 1})
        c.send({"type": "step", "n": 100000})  # in flight when the signal comes
        time.sleep(0.1)
        self.assertEqual(srv.stop(), 0, srv.stderr())
        c.expect_closed()
        self.assertIn("acts refused by rate limit (source class 3, id 1; 400/s, burst 800): 0",
                      srv.stderr())

    def test_usage_errors(self):
        cases = ((["--port", "x"], "--port"), ([], "--port"),
                 (["--port", "0", "--mode", "slow"],
                  "--mode 'slow': expected step, free or fast"),
                 (["--port", "0", "--speed", "0"],
                  "--speed '0': expected a number in [0.1, 1000]"),
                 (["--port", "0", "--speed", "0.05"], "--speed '0.05'"),
                 (["--port", "0", "--speed", "1001"], "--speed '1001'"),
                 (["--port", "0", "--speed", "1e6"], "--speed '1e6'"),
                 # (an address is parsed when the server listens, after the
                 # station's build: a one-unit station will do)
                 ([one_unit(), "--port", "0", "--bind", "localhost"], "--bind"),
                 (["--port", "0", "--token", "/nonexistent"], "--token"),
                 (["--port", "0", "--rate", "-1"], "--rate '-1'"),
                 (["--port", "0", "--burst", "0"], "--burst '0'"),
                 (["--port", "0", "/nonexistent.json"], "/nonexistent.json"))
        runs = [subprocess.Popen([PCSIM, "serve"] + args, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for args, _ in cases]
        for (args, what), r in zip(cases, runs):  # all at once: each is a process start
            _, err = r.communicate(timeout=START_TIMEOUT)
            self.assertEqual(r.returncode, 2, (args, err))
            self.assertIn(what, err)


def load_tests(loader, tests, pattern):
    """unittest's hook: the selected tests (-k) in the order of USES."""
    flat = []

    def walk(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            else:
                flat.append(t)

    walk(tests)
    rank = {name: i for i, name in enumerate(USES)}
    flat.sort(key=lambda t: rank.get(t._testMethodName, len(USES)))
    RUN[:] = [t._testMethodName for t in flat
              if not (SANITIZED and t._testMethodName in RELEASE_ONLY)]
    return unittest.TestSuite(flat)


def main():
    global PCSIM
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        PCSIM = args.pop(0)
    PCSIM = os.path.abspath(PCSIM)
    global SANITIZED
    SANITIZED = "/asan/" in PCSIM or "/tsan/" in PCSIM
    unittest.main(argv=[sys.argv[0]] + args, verbosity=2)


if __name__ == "__main__":
    main()
