"""pcsim.remote against a real `pcsim serve` (build/pcsim) on a loopback
port: the same state hash over TCP as in-process and as `pcsim run`, the
client's messages and errors, bounded reads (against a fake server), and
RemoteStationEnv: the StationEnv API, seeding, the same trajectory as an
in-process station, terminated vs truncated.

Each test starts its own server (--port 0 --port-file, stderr in a file) and
stops it with SIGTERM, requiring a clean exit, as tests/serve_test.py does."""

import inspect
import json
import signal
import socket
import struct
import subprocess
import threading
import time

import numpy as np
import pytest

import pcsim
from pcsim.env import StationEnv
from pcsim.remote import Client, RemoteError, RemoteStationEnv, Step
from conftest import TWO_UNITS  # the servers' world where the test needs no other
from test_env import ACT, OBS  # the in-process env's tests' channels and commands
from test_hash_vs_c import SCENARIO  # two units, five scripted commands, 400 ticks

WATCH = ["u1.core.power", "u1.nis.power.A", "u2.core.flow", "u2.rcs.pressure"]


class Server:
    def __init__(self, pcsim_bin, tmp_path, *args):
        self.dir = tmp_path
        port_file = tmp_path / "port"
        self.err_path = tmp_path / "serve.err"
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([str(pcsim_bin), "serve", *map(str, args), "--port", "0",
                                      "--port-file", str(port_file)],
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.monotonic() + 10
        while not (port_file.exists() and port_file.read_text().endswith("\n")):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"pcsim serve did not start: {self.stderr()}")
            time.sleep(0.01)
        self.port = int(port_file.read_text())

    def stderr(self):
        self.err.flush()
        return self.err_path.read_text()

    def client(self, **kw):
        return Client("127.0.0.1", self.port, **kw)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=10)
        self.err.close()
        return rc


@pytest.fixture
def serve(pcsim_bin, tmp_path):
    """serve(*args) starts `pcsim serve ARGS`; every one is stopped after the
    test, and must exit with status 0."""
    started = []

    def start(*args):
        d = tmp_path / f"srv{len(started)}"
        d.mkdir()
        started.append(Server(pcsim_bin, d, *args))
        return started[-1]

    yield start
    for s in started:
        assert s.stop() == 0, s.stderr()


def write_scenario(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    return path


def test_same_state_hash_over_tcp_as_in_process_and_pcsim_run(tmp_path, serve, pcsim_bin):
    path = write_scenario(tmp_path)
    r = subprocess.run([str(pcsim_bin), "run", str(path), "--json", "--quiet"],
                       capture_output=True, text=True, check=True)
    want = json.loads(r.stdout)["state_hash"]
    scn = pcsim.Scenario.from_file(path)
    at = {a.tick: a for a in scn.actions}
    with serve(path).client() as c, pcsim.Station(scn) as s:  # the server runs no script
        assert (c.role, c.mode, c.version, c.scenario, c.seed) == \
            ("control", "step", 1, "py-vs-c", 4242)
        ticks = 0
        for tick in sorted(at):
            assert c.step(tick - ticks).tick == tick
            s.tick(tick - ticks)
            ticks = tick
            a = at[tick]
            assert c.act(a.target, a.command, a.value if a.has_value else None) == tick
            s.command(a.target, a.command, a.value)
        end = c.step(scn.run_ticks - ticks, hash=True)
        s.tick(scn.run_ticks - ticks)
        assert end == Step(400, pytest.approx(20.0), want)
        assert s.state_hash_hex == want
        # The same values too, to the bit: the server prints the shortest
        # decimal that reads back as the same double.
        obs = c.observe(WATCH)
        assert obs.tick == 400
        assert obs.values.tolist() == s.channels(WATCH).read().tolist()


def test_the_client_messages(tmp_path, serve):
    srv = serve(TWO_UNITS, "--save-dir", tmp_path)
    with srv.client() as c:
        first = c.reset(seed=7, hash=True)
        assert (first.tick, c.seed) == (0, 7) and len(first.state_hash) == 16
        # Nothing to observe before the first tick (docs/protocol.md): the
        # server's code, and the connection stays.
        with pytest.raises(RemoteError, match="step first") as e:
            c.observe(WATCH)
        assert (e.value.code, e.value.fatal) == ("no_data", False)
        assert isinstance(e.value, pcsim.Error)
        assert c.step(1) == Step(1, 0.05, None)
        obs = c.observe(WATCH)
        assert obs.tick == 1 and obs.values.dtype == np.float64 and obs.values.shape == (4,)
        assert c.observe(array=False).values == obs.values.tolist()  # the list is kept
        with pytest.raises(RemoteError, match=r"no control bank 'X' in u1") as e:
            c.act("u1.X", "rod_position", 0.5)
        assert (e.value.code, e.value.fatal) == ("unknown_command", False)
        with pytest.raises(ValueError, match=r"step: n = 0 outside \[1, 1000000\]"):
            c.step(0)  # the server would disconnect: refused before sending
        # save / load: the same next tick after loading
        assert c.save("at1") == 1
        after = c.step(5, hash=True)
        assert c.load("at1") == 1
        assert c.step(5, hash=True) == after
        with pytest.raises(RemoteError) as e:
            c.load("missing")
        assert e.value.code == "load_failed"
        # subscribe: an iterator of pushes; the step's last tick is pushed
        sub = c.subscribe(WATCH[:2], every=1)
        end = c.step(3)
        ticks = [next(sub).tick]
        while ticks[-1] < end.tick:
            ticks.append(sub.next(timeout=5).tick)
        assert ticks == sorted(ticks) and ticks[-1] == end.tick == 9
        sub.close()
        assert list(sub) == []
        # the same seed, the same world
        assert c.reset(seed=7, hash=True) == first


def test_a_wrong_token_is_refused_with_the_servers_reason(tmp_path, serve):
    tok = tmp_path / "token"
    tok.write_text("s3cret-token\n")
    srv = serve(TWO_UNITS, "--token", tok)
    for token in ("s3cret-tokeN", None):
        with pytest.raises(RemoteError, match="token") as e:
            srv.client(token=token)
        assert (e.value.code, e.value.fatal) == ("bad_token", True)
    with srv.client(token="s3cret-token") as c:
        assert c.step(2).tick == 2


def test_a_second_controller_is_refused_while_the_first_holds_the_world(serve):
    srv = serve(TWO_UNITS)
    first = srv.client()
    first.step(3)
    with pytest.raises(RemoteError, match="one controller at a time") as e:
        srv.client()
    assert (e.value.code, e.value.fatal) == ("world_busy", True)
    with srv.client(role="observe") as watcher:  # observers are welcome
        assert watcher.observe(WATCH[:1]).tick == 3
        with pytest.raises(RemoteError) as e:
            watcher.step()
        assert (e.value.code, e.value.fatal) == ("forbidden", False)
    first.close()
    deadline = time.monotonic() + 10
    while True:  # the world is free once the server has seen the close
        try:
            second = srv.client()
            break
        except RemoteError as e:
            if e.code != "world_busy" or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    with second:
        assert second.step().tick == 4


def fake_server(reply):
    """A one-connection server that answers the hello with the bytes
    ``reply`` and then holds the connection open until the client leaves."""
    ls = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def run():
        conn, _ = ls.accept()
        with conn:
            conn.recv(4096)
            conn.sendall(reply)
            done.wait(10)
        ls.close()

    threading.Thread(target=run, daemon=True).start()
    return ls.getsockname()[1], done


@pytest.mark.parametrize("reply, code", [
    (struct.pack(">I", 65537), "too_large"),        # the header alone: no payload follows
    (struct.pack(">I", 0xFFFFFFFF), "too_large"),
    (struct.pack(">I", 0), "bad_frame"),
    (struct.pack(">I", 5) + b"{nope", "bad_json"),
    (struct.pack(">I", 2) + b"[]", "bad_json"),
    (struct.pack(">I", 17) + b'{"type":"step"}  ', "bad_reply"),
])
def test_bounded_and_checked_reads(reply, code):
    port, done = fake_server(reply)
    t0 = time.monotonic()
    try:
        with pytest.raises(RemoteError) as e:
            Client("127.0.0.1", port, timeout=5)
    finally:
        done.set()
    assert (e.value.code, e.value.fatal) == (code, True), e.value
    assert time.monotonic() - t0 < 2  # refused at once, not after waiting for a payload
    if code == "too_large":
        assert "allowed 1..65536" in e.value.message


def make(client, **kw):
    kw.setdefault("max_steps", 50)
    kw.setdefault("scenario", TWO_UNITS)
    return RemoteStationEnv(client, OBS, ACT, **kw)


def action(k):
    return [0.9 - 0.01 * k, 2e5 * k]


def episode(env, seed, steps=4):
    first, info = env.reset(seed=seed)
    return np.array([first] + [env.step(action(k))[0] for k in range(steps)]), info


def test_env_api_and_spaces_are_station_envs(serve):
    for name in ("reset", "step", "close", "render"):
        assert inspect.signature(getattr(RemoteStationEnv, name)) == \
            inspect.signature(getattr(StationEnv, name))
    with serve(TWO_UNITS).client() as c:
        env, local = make(c), StationEnv(OBS, ACT, scenario=TWO_UNITS)
        assert env.observation_space == local.observation_space
        assert env.action_space == local.action_space
        obs, info = env.reset(seed=3)
        assert isinstance(obs, np.ndarray) and obs.shape == (4,)
        assert info == {"tick": 1, "time_s": 0.05, "seed": 3, "step": 0, "tripped": []}
        obs, reward, terminated, truncated, info = env.step(np.array([0.9, 1e5]))
        assert (reward, terminated, truncated, info["tick"], info["step"]) == \
            (0.0, False, False, 21, 1)
        assert env.observation_space.contains(obs)
        with pytest.raises(ValueError, match=r"action\[0\] \(rod_position u1.D\) = 1.5"):
            env.step([1.5, 0.0])
        env.close()
        assert c.step().tick == 22  # the env borrowed the client: still open


def test_env_seeding_and_the_same_trajectory_as_in_process(serve):
    with serve(TWO_UNITS).client() as c:
        env = make(c)
        a, _ = episode(env, 11)
        b, _ = episode(env, 11)
        d, _ = episode(env, 12)
        assert np.array_equal(a, b)
        assert not np.array_equal(a[:, 1], d[:, 1])  # the noisy flux sensor differs
        # the plant only through its controllers' measured inputs, microscopically
        assert np.allclose(a[:, 0], d[:, 0], rtol=1e-5, atol=0.0)
        # In-process: the reset's one tick, then each step's commands and ticks.
        with pcsim.Station(TWO_UNITS, seed=11) as s:
            ch = s.channels(OBS)
            s.tick(1)
            want = [ch.read().copy()]
            for k in range(4):
                for (target, command, *_), value in zip(ACT, action(k)):
                    s.command(target, command, value)
                s.tick(20)
                want.append(ch.read().copy())
            assert np.array_equal(a, np.array(want))  # bit for bit
            env.reset(seed=11)
            for k in range(4):
                env.step(action(k))
            s.tick(1)
            assert c.step(1, hash=True).state_hash == s.state_hash_hex
        # reset() without a seed continues the seeded sequence, as in-process
        env.reset(seed=11)
        s1 = env.reset()[1]["seed"]
        local = StationEnv(OBS, ACT, scenario=TWO_UNITS)
        local.reset(seed=11)
        assert s1 == local.reset()[1]["seed"] != 11
        local.close()


def test_env_terminated_on_scram_not_truncated(serve):
    with serve(TWO_UNITS).client() as c:
        env = make(c, max_steps=100)
        env.reset(seed=1)
        c.act("u1.pump1", "pump_trip")  # low flow: reactor trip
        for _ in range(10):
            obs, reward, terminated, truncated, info = env.step([0.9, 0.0])
            if terminated:
                break
        assert terminated and not truncated
        assert info["tripped"] == ["u1"] and info["step"] == 2  # the scram is at tick 26
        assert obs[2] != 0  # u1.core.trip
        with pytest.raises(RuntimeError, match="call reset"):
            env.step([0.9, 0.0])
        env = make(c, max_steps=3)
        env.reset(seed=1)
        flags = [env.step([0.9, 0.0])[2:4] for _ in range(3)]
        assert flags == [(False, False), (False, False), (False, True)]


def test_env_connect_owns_its_client_and_checks_the_scenario(tmp_path, serve):
    srv = serve(write_scenario(tmp_path))
    with pytest.raises(ValueError, match="serves scenario 'py-vs-c', the local one is "
                                         "'pwr-station'"):
        RemoteStationEnv.connect("127.0.0.1", srv.port, observe=OBS, act=ACT)
    env = RemoteStationEnv.connect("127.0.0.1", srv.port, observe=OBS, act=ACT,
                                   scenario=tmp_path / "s.json", max_steps=2)
    assert env.reset()[1]["seed"] == 4242  # never seeded: the server's scenario seed
    env.step([0.9, 0.0])
    env.close()
    with srv.client() as c:  # the env's client has left: control is free
        assert c.step().tick == 22
