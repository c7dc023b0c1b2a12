"""pcsim.env.StationEnv: the station as a step/action environment with the
Gymnasium API, implemented without gymnasium.

    env = StationEnv(observe=["u4.core.relative_power", "u4.rods.D.pos"],
                     act=[("u4.D", "rod_position")],
                     reward=lambda obs, action, info: -abs(obs[0] - 0.5))
    obs, info = env.reset(seed=7)
    obs, reward, terminated, truncated, info = env.step([0.85])

Observations are a chosen channel list (float64, one value per channel);
actions a chosen command set (float64, one value per command, submitted
every step); the reward is the caller's function. An episode terminates when
``terminated(obs, info)`` says so (by default: a unit scrammed during the
step) and is truncated after ``max_steps`` steps.

When gymnasium is importable, StationEnv subclasses gymnasium.Env and its
spaces are gymnasium.spaces.Box; otherwise it is a plain class and the spaces
are pcsim.spaces.Box (same attributes). The gymnasium path is tested against
a test double of gymnasium.Env and spaces, not against the real package
(which is neither in Debian nor reachable here).

Seeding: ``reset(seed=s)`` builds a new world with world seed s (the seed of
every random stream: sensor noise), so the same seed and actions give the
same observations, rewards and state hash. ``reset()`` without a seed uses
the scenario's seed until a seed has been given, and after that seeds drawn
from the generator the last explicit seed started, as gymnasium does.

Threads: an environment belongs to the thread that resets it (its station's
rules, pcsim.Station).

The same environment over TCP is pcsim.remote.RemoteStationEnv: both are
EnvCore, which holds everything but the world (arguments, spaces, seeding,
the action check, the step's bookkeeping); a subclass says how a world is
started, advanced and read.
"""

import numpy as np

from . import spaces as _own_spaces
from ._station import Error, Scenario, Station, _as_scenario, event_name

try:  # pragma: no cover - depends on what is installed
    import gymnasium as _gym

    _Base = _gym.Env
    _Box = _gym.spaces.Box
    HAVE_GYMNASIUM = True
except ImportError:
    _gym = None
    _Base = object
    _Box = _own_spaces.Box
    HAVE_GYMNASIUM = False

# What pcs_station_command accepts (station/station.c, scenarios/README.md);
# rod_speed's range is open at 0. Other commands: [-1e12, 1e12].
COMMAND_BOUNDS = {
    "rod_position": (0.0, 1.0),
    "rod_speed": (1e-6, 1.0),
    "boron": (0.0, 10000.0),
    "pzr_heaters": (0.0, 1e9),
    "sg_pressure": (611.212677, 22064000.0),
    "pump_start": (-1e12, 1.5),
}
DEFAULT_BOUNDS = (-1e12, 1e12)
_U32_MAX = float(2**32 - 1)


def scrammed(obs, info):
    """The default termination: a unit scrammed during the step (a
    PCS_EV_UNIT_SCRAM event in ``info["events"]``; over TCP, which carries no
    events, a unit named in ``info["tripped"]``)."""
    return (any(e.name == "PCS_EV_UNIT_SCRAM" for e in info.get("events", ()))
            or bool(info.get("tripped")))


class EnvCore(_Base):
    """What StationEnv and pcsim.remote.RemoteStationEnv share: everything
    but the world. A subclass implements ``_start()`` (a new world with
    ``self._world_seed``), ``_advance(values)`` (submit the action's values,
    run ``ticks_per_step`` ticks; returns the info entries of the step),
    ``_read()`` (the observation, an array the subclass owns), ``_clock()``
    ((tick, time_s)), ``_release()`` and ``_default_seed()``; it may replace
    ``_channel_kinds(names)``.

    observe: channel names; act: (target, command) or (target, command,
    low, high) per action dimension; reward(obs, action, info) -> float
    (default: 0.0); terminated(obs, info) -> bool (default: ``scrammed``);
    scenario: None (built-in), a path or a pcsim.Scenario; ticks_per_step:
    world ticks per step (20 = 1 s at the built-in dt); max_steps: steps
    before truncation (None: never); obs_bounds: (low, high) per channel
    (default: unbounded, [0, 2^32 - 1] for u32 channels); copy_obs: return a
    new array each step (False: the env's own buffer, refilled in place by
    the next step, no allocation).
    """

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, observe, act, reward=None, *, scenario=None, ticks_per_step=20,
                 max_steps=1000, terminated=None, obs_bounds=None, copy_obs=True):
        if not observe:
            raise ValueError("observe: give at least one channel name")
        if int(ticks_per_step) < 1:
            raise ValueError(f"ticks_per_step = {ticks_per_step}: want >= 1")
        self.observe = list(observe)
        self.act = [self._action_spec(a) for a in act]
        self.reward_fn = reward
        self.terminated_fn = terminated or scrammed
        self.ticks_per_step = int(ticks_per_step)
        self.max_steps = max_steps
        self.copy_obs = copy_obs
        self.scenario = _as_scenario(scenario)
        self._world_seed = None
        self._seed_rng = None
        self._steps = 0
        self._done = True
        lo = np.array([a[2] for a in self.act], dtype=np.float64)
        hi = np.array([a[3] for a in self.act], dtype=np.float64)
        self.action_space = _Box(low=lo, high=hi, shape=(len(self.act),), dtype=np.float64)
        self.observation_space = self._observation_space(obs_bounds)

    @staticmethod
    def _action_spec(a):
        if len(a) == 2:
            target, command = a
            lo, hi = COMMAND_BOUNDS.get(command, DEFAULT_BOUNDS)
        elif len(a) == 4:
            target, command, lo, hi = a
        else:
            raise ValueError(f"act: want (target, command) or (target, command, low, high), got {a!r}")
        if not lo <= hi:
            raise ValueError(f"act {target} {command}: low {lo} > high {hi}")
        return (str(target), str(command), float(lo), float(hi))

    def _channel_kinds(self, names):
        """Channel kinds come from a world: build the scenario's once."""
        with Station(self.scenario) as probe:
            return [probe.channel_info(name).kind for name in names]

    def _observation_space(self, bounds):
        n = len(self.observe)
        if bounds is not None:
            lo, hi = bounds
        else:
            kinds = self._channel_kinds(self.observe)
            lo = [0.0 if k == "u32" else -np.inf for k in kinds]
            hi = [_U32_MAX if k == "u32" else np.inf for k in kinds]
        return _Box(low=np.asarray(lo, dtype=np.float64), high=np.asarray(hi, dtype=np.float64),
                    shape=(n,), dtype=np.float64)

    # ---- Gymnasium API ---------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Start a fresh world; returns (observation, info)."""
        if HAVE_GYMNASIUM:
            super().reset(seed=seed)
        if seed is not None:
            self._world_seed = int(seed)
            self._seed_rng = np.random.default_rng(int(seed))
        elif self._seed_rng is not None:
            self._world_seed = int(self._seed_rng.integers(1, 2**63))
        elif self._world_seed is None:
            self._world_seed = self._default_seed()
        self._done = True  # until the world is up
        extra = self._start()
        self._steps = 0
        self._done = False
        return self._observation(), self._info(extra)

    def step(self, action):
        """Submit the action's commands, run ticks_per_step ticks; returns
        (observation, reward, terminated, truncated, info)."""
        if self._done:
            raise RuntimeError(f"{type(self).__name__}.step: the episode is over (or never "
                               "began): call reset()")
        values = self._checked(action)
        self._done = True  # until the step has run: a failed step ends the episode
        extra = self._advance(values)
        self._steps += 1
        obs = self._observation()
        info = self._info(extra)
        terminated = bool(self.terminated_fn(obs, info))
        truncated = self.max_steps is not None and self._steps >= self.max_steps
        reward = float(self.reward_fn(obs, np.array(values), info)) if self.reward_fn else 0.0
        self._done = terminated or truncated
        return obs, reward, terminated, truncated, info

    def render(self):
        return None

    def close(self):
        self._release()
        self._done = True

    # ---- helpers ---------------------------------------------------------
    def _checked(self, action):
        """The action as a list of floats inside the action space."""
        # Plain floats: for a handful of commands numpy's checks cost more
        # than the tick's Python overhead (bench/README.md).
        values = action.tolist() if isinstance(action, np.ndarray) else list(action)
        if len(values) != len(self.act):
            raise ValueError(f"action: want {len(self.act)} values ({self._act_names()}), "
                             f"got {len(values)}")
        for i, (v, (t, c, lo, hi)) in enumerate(zip(values, self.act)):
            v = float(v)
            if not lo <= v <= hi:  # also refuses NaN
                raise ValueError(f"action[{i}] ({c} {t}) = {v} is outside [{lo}, {hi}]")
            values[i] = v
        return values

    def _observation(self):
        out = self._read()
        return out.copy() if self.copy_obs else out

    def _info(self, extra):
        tick, time_s = self._clock()
        info = {"tick": tick, "time_s": time_s, "seed": self._world_seed, "step": self._steps}
        info.update(extra)
        return info

    def _act_names(self):
        return ", ".join(f"{c} {t}" for t, c, _, _ in self.act)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class StationEnv(EnvCore):
    """The station as an environment (see the module's docstring and
    EnvCore for the arguments), on an in-process pcsim.Station."""

    station = None

    def _default_seed(self):
        return self.scenario.seed

    def _start(self):
        if self.station is not None:
            self.station.close()
        self.station = Station(self.scenario, seed=self._world_seed)
        self._obs = self.station.channels(self.observe)
        self._cmds = [self.station.prepare(t, c) for t, c, _, _ in self.act]
        return {"events": []}

    def _advance(self, values):
        for cmd, v in zip(self._cmds, values):
            cmd.submit(v)
        self.station.tick(self.ticks_per_step)
        return {"events": self.station.events()}

    def _read(self):
        return self._obs.read()

    def _clock(self):
        return self.station.tick_count, self.station.time_s

    def _release(self):
        if self.station is not None:
            self.station.close()
            self.station = None


__all__ = ["StationEnv", "EnvCore", "COMMAND_BOUNDS", "DEFAULT_BOUNDS", "HAVE_GYMNASIUM",
           "scrammed", "Error", "Scenario", "event_name"]
