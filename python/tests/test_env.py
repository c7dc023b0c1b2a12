"""pcsim.env.StationEnv: the Gymnasium API's signatures, spaces, seeding
determinism, terminated vs truncated, reward, and the gymnasium.Env path
(against a test double of gymnasium injected through sys.modules)."""

import importlib
import inspect
import sys
import types

import numpy as np
import pytest

import pcsim
import pcsim.env
from pcsim.env import StationEnv

from conftest import TWO_UNITS

OBS = ["u1.core.relative_power", "u1.nis.power.A", "u1.core.trip", "u1.rods.D.pos"]
ACT = [("u1.D", "rod_position"), ("u1", "pzr_heaters", 0.0, 1.794e6)]


def make(**kw):
    """An env of u1 on the two-unit station (conftest.TWO_UNITS; the
    hold-power station, one unit, is python/examples/hold_power.py's, test_example.py)."""
    kw.setdefault("max_steps", 50)
    kw.setdefault("scenario", TWO_UNITS)
    return StationEnv(OBS, ACT, **kw)


def test_signatures():
    reset = inspect.signature(StationEnv.reset).parameters
    assert reset["seed"].kind is inspect.Parameter.KEYWORD_ONLY and reset["seed"].default is None
    assert reset["options"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(StationEnv.step).parameters) == ["self", "action"]
    env = make()
    out = env.reset(seed=3)
    assert isinstance(out, tuple) and len(out) == 2
    obs, info = out
    assert isinstance(obs, np.ndarray) and isinstance(info, dict)
    assert info["tick"] == 0 and info["seed"] == 3 and info["events"] == []
    out = env.step(np.array([0.9, 1e5]))
    assert len(out) == 5
    obs, reward, terminated, truncated, info = out
    assert isinstance(reward, float) and reward == 0.0  # no reward function given
    assert terminated is False and truncated is False
    assert info["tick"] == 20 and info["time_s"] == pytest.approx(1.0)
    env.close()


def test_spaces():
    env = make()
    a, o = env.action_space, env.observation_space
    assert a.shape == (2,) and a.dtype == np.float64
    assert a.low.tolist() == [0.0, 0.0] and a.high.tolist() == [1.0, 1.794e6]
    assert o.shape == (4,) and o.dtype == np.float64
    assert o.low[0] == -np.inf and o.high[0] == np.inf
    # u1.core.trip is a u32 status word: [0, 2^32 - 1]
    assert (o.low[2], o.high[2]) == (0.0, 2.0**32 - 1)
    obs, _ = env.reset()
    assert o.contains(obs)
    a.seed(1)
    sample = a.sample()
    assert a.contains(sample) and sample.shape == (2,)
    with pytest.raises(ValueError, match=r"action\[0\] \(rod_position u1.D\) = 1.5 is outside \[0.0, 1.0\]"):
        env.step([1.5, 0.0])
    with pytest.raises(ValueError, match="want 2 values"):
        env.step([0.5])
    env.close()


def run(env, seed, steps=5):
    obs, _ = env.reset(seed=seed)
    trace = [obs]
    for k in range(steps):
        obs, *_ = env.step([0.9 - 0.01 * k, 2e5 * k])
        trace.append(obs)
    return np.array(trace), env.station.state_hash


def test_seeding_determinism():
    env = make()
    a, ha = run(env, seed=11)
    b, hb = run(env, seed=11)
    c, hc = run(make(), seed=11)  # another instance
    d, hd = run(env, seed=12)
    assert np.array_equal(a, b) and np.array_equal(a, c) and ha == hb == hc
    assert not np.array_equal(a[:, 1], d[:, 1])  # the noisy flux sensor differs
    # the plant only through its controllers' measured inputs, microscopically
    assert np.allclose(a[:, 0], d[:, 0], rtol=1e-5, atol=0.0)
    assert hd != ha
    # reset() without a seed after a seeded one draws the next seed from it,
    # so the sequence of episodes repeats too.
    env.reset(seed=11)
    s1 = env.reset()[1]["seed"]
    env.reset(seed=11)
    s2 = env.reset()[1]["seed"]
    assert s1 == s2 != 11
    # never seeded: the scenario's own seed (two_units.json world.seed)
    assert make().reset()[1]["seed"] == 31337 != pcsim.Scenario().seed


def test_terminated_on_scram_not_truncated():
    env = make(max_steps=100)
    env.reset(seed=1)
    env.station.command("u1.pump1", "pump_trip")  # low flow: reactor trip
    for _ in range(10):
        obs, reward, terminated, truncated, info = env.step([0.9, 0.0])
        if terminated:
            break
    assert terminated and not truncated
    assert any(e.name == "PCS_EV_UNIT_SCRAM" for e in info["events"])
    assert info["step"] < 10
    with pytest.raises(RuntimeError, match="call reset"):
        env.step([0.9, 0.0])
    env.close()


def test_truncated_at_max_steps_not_terminated():
    env = make(max_steps=3)
    env.reset(seed=1)
    flags = [env.step([0.9, 0.0])[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]


def test_reward_and_termination_are_the_callers():
    seen = []

    def reward(obs, action, info):
        seen.append((obs.copy(), action.copy(), info["step"]))
        return -abs(obs[0] - 0.5)

    env = make(reward=reward, terminated=lambda obs, info: info["step"] == 2)
    env.reset(seed=1)
    obs, r, term, trunc, info = env.step([0.9, 0.0])
    assert r == pytest.approx(-abs(obs[0] - 0.5)) and seen[0][2] == 1
    assert seen[0][1].tolist() == [0.9, 0.0]
    assert env.step([0.9, 0.0])[2] is True


class FakeEnv:
    """A test double of gymnasium.Env: what StationEnv relies on."""

    reset_seeds = []

    def reset(self, *, seed=None, options=None):
        FakeEnv.reset_seeds.append(seed)
        if seed is not None:
            self._np_random = np.random.default_rng(seed)


class FakeBox:
    def __init__(self, low, high, shape=None, dtype=np.float32):
        self.low, self.high, self.shape, self.dtype = low, high, shape, np.dtype(dtype)


@pytest.fixture
def fake_gymnasium(monkeypatch):
    gym = types.ModuleType("gymnasium")
    spaces = types.ModuleType("gymnasium.spaces")
    gym.Env, spaces.Box, gym.spaces = FakeEnv, FakeBox, spaces
    monkeypatch.setitem(sys.modules, "gymnasium", gym)
    monkeypatch.setitem(sys.modules, "gymnasium.spaces", spaces)
    yield importlib.reload(pcsim.env)
    monkeypatch.delitem(sys.modules, "gymnasium")
    monkeypatch.delitem(sys.modules, "gymnasium.spaces")
    importlib.reload(pcsim.env)


def test_gymnasium_env_path(fake_gymnasium):
    genv = fake_gymnasium
    assert genv.HAVE_GYMNASIUM
    assert issubclass(genv.StationEnv, FakeEnv)
    env = genv.StationEnv(OBS, ACT, max_steps=2, scenario=TWO_UNITS)
    assert isinstance(env.action_space, FakeBox) and isinstance(env.observation_space, FakeBox)
    assert env.action_space.shape == (2,) and env.action_space.dtype == np.float64
    assert env.action_space.high.tolist() == [1.0, 1.794e6]
    FakeEnv.reset_seeds.clear()
    obs, info = env.reset(seed=9)
    assert FakeEnv.reset_seeds == [9]  # gymnasium.Env.reset saw the seed
    assert info["seed"] == 9 and obs.shape == (4,)
    assert env.step([0.9, 0.0])[3] is False
    assert env.step([0.9, 0.0])[3] is True
    env.close()


def test_without_gymnasium_the_own_box():
    assert not pcsim.env.HAVE_GYMNASIUM  # not installed here (Debian has none)
    assert [c.__name__ for c in StationEnv.__mro__] == ["StationEnv", "EnvCore", "object"]
    assert isinstance(make().action_space, pcsim.spaces.Box)
