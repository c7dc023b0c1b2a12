"""The station API: scenarios, the station world, commands, channels, events,
save/load and the state hash. See pcsim/__init__.py for the thread rules."""

import os
import re
import threading
import warnings
import weakref
from collections import namedtuple

from ._lib import ffi, lib

# The scenario script's command source, as `pcsim run` opens it (cli/script.c:
# class 2, id 1), so a script applied here orders like the C host's.
_SCRIPT_SOURCE_CLASS = 2
_SCRIPT_SOURCE_ID = 1
_SCRIPT_RING = 256  # PCS_SCENARIO_ACTIONS_MAX: the whole script fits
_EVENT_BATCH = 256
_TEXT_MAX = 256


class Error(Exception):
    """A pcsim call failed. ``status`` is the pcs_status value, ``code`` its
    name ("PCS_E_INVAL"), ``message`` pcsim's own message (pcs_last_error:
    what was wrong and where)."""

    def __init__(self, status, message, what=None):
        self.status = int(status)
        self.code = ffi.string(lib.pcs_status_str(status)).decode()
        self.message = message
        text = f"{what}: {message}" if what else message
        super().__init__(f"{text} ({self.code})")


def _fail(status, what=None):
    raise Error(status, ffi.string(lib.pcs_last_error()).decode(errors="replace"), what)


def _check(status, what=None):
    if status != 0:
        _fail(status, what)


def _str(p):
    return ffi.string(p).decode() if p != ffi.NULL else None


def _enum_names(prefix):
    """value -> name of the cdef's enum constants starting with prefix
    (the first name wins, so PCS_EV_UNIT_SCRAM and not PCS_EV_UNIT_FIRST)."""
    from ._lib import _cdef_text

    out = {}
    for name in re.findall(r"\b(" + prefix + r"\w+)\s*=", _cdef_text):
        if name.endswith(("_FIRST", "_LAST", "_BASE", "_COUNT")):
            continue
        out.setdefault(int(getattr(lib, name)), name)
    return out


_EVENT_NAMES = None


def event_name(kind):
    """The PCS_EV_* name of an event kind, or None."""
    global _EVENT_NAMES
    if _EVENT_NAMES is None:
        _EVENT_NAMES = _enum_names("PCS_EV_")
    return _EVENT_NAMES.get(int(kind))


def command_names():
    """Every command name pcs_station_command knows ("rod_position", ...)."""
    return [_str(lib.pcs_station_command_name(i)) for i in range(lib.pcs_station_command_name_count())]


Action = namedtuple("Action", "t_s tick command target value has_value")
Action.__doc__ = "One scripted command of a scenario (pcs_scenario_action)."

Event = namedtuple("Event", "tick kind name subject values text")
Event.__doc__ = """An event: its tick, kind (and PCS_EV_* name), subject,
values (4 floats, SI) and the station's one-line text (None for an event not
worth a line, pcs_event_describe)."""

ChannelInfo = namedtuple("ChannelInfo", "id name unit kind")


class Scenario:
    """A parsed, migrated and validated scenario (pcs_scenario).

    ``Scenario()`` is the built-in station (scenarios/pwr-station.json, which
    the library carries); ``Scenario.from_file(path)`` and
    ``Scenario.from_string(text, name)`` load others. Plain data once loaded:
    read it from any thread."""

    _h = None

    def __init__(self, _handle=None):
        if _handle is None:
            p = ffi.new("pcs_scenario **")
            _check(lib.pcs_scenario_default(p), "built-in scenario")
            _handle = p[0]
        self._h = _handle

    @classmethod
    def from_file(cls, path, max_bytes=0):
        """Load a scenario file (at most max_bytes; 0: 4 MiB)."""
        opts = ffi.new("pcs_scenario_load_opts *", {"max_bytes": max_bytes})
        p = ffi.new("pcs_scenario **")
        _check(lib.pcs_scenario_load_file(os.fsencode(path), opts, p))
        return cls(p[0])

    @classmethod
    def from_string(cls, text, name="<string>", max_bytes=0):
        """Load a scenario from JSON text (str or bytes), named ``name`` in messages."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        opts = ffi.new("pcs_scenario_load_opts *", {"max_bytes": max_bytes})
        p = ffi.new("pcs_scenario **")
        _check(lib.pcs_scenario_load_string(name.encode(), data, len(data), opts, p))
        return cls(p[0])

    @staticmethod
    def default_text():
        """The built-in scenario's JSON text."""
        return _str(lib.pcs_scenario_default_text())

    def _handle(self):
        if self._h is None:
            raise Error(lib.PCS_E_STATE, "the scenario is closed", "Scenario")
        return self._h

    @property
    def name(self):
        return _str(lib.pcs_scenario_name(self._handle()))

    @property
    def source(self):
        return _str(lib.pcs_scenario_source(self._handle()))

    @property
    def build_hash(self):
        return int(lib.pcs_scenario_build_hash(self._handle()))

    @property
    def unit_count(self):
        return int(lib.pcs_scenario_unit_count(self._handle()))

    @property
    def seed(self):
        return int(lib.pcs_scenario_world_def(self._handle()).seed)

    @property
    def dt_s(self):
        return float(lib.pcs_scenario_world_def(self._handle()).dt_s)

    @property
    def run_ticks(self):
        return int(lib.pcs_scenario_run_params(self._handle()).run_ticks)

    @property
    def warnings(self):
        return _str(lib.pcs_scenario_warnings(self._handle()))

    @property
    def actions(self):
        """The script, in time order."""
        h = self._handle()
        out = []
        for i in range(lib.pcs_scenario_action_count(h)):
            a = lib.pcs_scenario_action_get(h, i)
            out.append(Action(a.t_s, int(a.tick), _str(a.command), _str(a.target), a.value,
                              bool(a.has_value)))
        return out

    def close(self):
        """Release the scenario. Stations built from it keep their own copy alive."""
        if self._h is not None:
            lib.pcs_scenario_destroy(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _as_scenario(scenario):
    if scenario is None:
        return Scenario()
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, bytes, os.PathLike)):
        return Scenario.from_file(scenario)
    raise TypeError(f"scenario: want None, a Scenario or a path, got {type(scenario).__name__}")


class Command:
    """A command resolved by name for one target (Station.prepare): submit
    it with a value as often as needed. Resolution checks the value against
    the range the model's handler accepts (pcs_station_command)."""

    __slots__ = ("_station", "target", "command", "_t", "_c", "_cmd")

    def __init__(self, station, target, command):
        self._station = station
        self.target = target
        self.command = command
        self._t = target.encode()
        self._c = command.encode()
        self._cmd = ffi.new("pcs_command *")
        # Resolve once now so an unknown name fails here, not in a loop.
        self._resolve(0.0, probe=True)

    def _resolve(self, value, probe=False):
        st = lib.pcs_station_command(self._station._st, self._t, self._c, value, self._cmd)
        if st != 0 and not (probe and st == lib.PCS_E_INVAL):
            _fail(st)

    def submit(self, value=0.0):
        """Resolve with ``value`` and queue it for the next tick."""
        s = self._station
        s._own_thread("Command.submit")
        self._resolve(float(value))
        st = lib.pcs_command_submit(s._w, self._cmd)
        if st != 0:
            _fail(st, f"submit {self.command} {self.target}")


class Channels:
    """A fixed list of channels read together (Station.channels): each read
    copies their values, all from one tick, into a float64 numpy array with
    one C call (pcs_snapshot_read) and allocates nothing after the first read
    into a given array. ``read()`` reuses an array this object owns (the same
    array every time); ``read(out)`` fills the caller's."""

    _r = None

    def __init__(self, station, names):
        self._station = station
        self.names = list(names)
        n = len(self.names)
        self._n = n
        self._ids = ffi.new("uint32_t[]", max(n, 1))
        ids = ffi.new("uint32_t *")
        for i, name in enumerate(self.names):
            _check(lib.pcs_channel_find(station._w, name.encode(), ids))
            self._ids[i] = ids[0]
        self.ids = [int(self._ids[i]) for i in range(n)]
        p = ffi.new("pcs_reader **")
        _check(lib.pcs_reader_open(station._pool, p), "channel reader")
        self._r = p[0]
        self._tick = ffi.new("uint64_t *")
        self._own = None
        self._last = None
        self._last_ptr = None
        station._readers.add(self)

    def __len__(self):
        return self._n

    @property
    def tick(self):
        """The tick the last read's values were published by."""
        return int(self._tick[0])

    def _ptr(self, out):
        if out is self._last:
            return self._last_ptr
        import numpy as np

        if not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.shape != (self._n,) \
                or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError(f"out: want a writeable C-contiguous float64 array of shape "
                             f"({self._n},), got {getattr(out, 'dtype', type(out).__name__)} "
                             f"{getattr(out, 'shape', '')}")
        self._last = out
        self._last_ptr = ffi.cast("double *", ffi.from_buffer(out))
        return self._last_ptr

    def read(self, out=None):
        """The channels' values as float64 (u32 channels converted exactly)."""
        if self._r is None:
            raise Error(lib.PCS_E_STATE, "the reader is closed (its station was closed)",
                        "Channels.read")
        if out is None:
            out = self._own
            if out is None:
                import numpy as np

                out = self._own = np.zeros(self._n)
        ptr = self._ptr(out)
        st = lib.pcs_snapshot_read(self._r, self._ids, self._n, ptr, self._tick)
        if st != 0:
            if st == lib.PCS_E_STATE and lib.pcs_snapshot_published(self._station._pool) == 0:
                self._read_live(out)  # before the first tick: nothing published yet
            else:
                _fail(st, "Channels.read")
        return out

    def _read_live(self, out):
        s = self._station
        s._own_thread("Channels.read before the first tick")
        for i in range(self._n):
            out[i] = lib.pcs_channel_value(s._w, self._ids[i])
        self._tick[0] = lib.pcs_world_clock(s._w).tick

    def _open_on(self, pool):
        """A reader of ``pool`` for this object's channels (Station.load)."""
        p = ffi.new("pcs_reader **")
        _check(lib.pcs_reader_open(pool, p), "channel reader")
        return p[0]

    def close(self):
        if self._r is not None:
            lib.pcs_reader_close(self._r)
            self._r = None

    def __del__(self):
        self.close()


def _later_units_probe(scenario):
    """The scenario's station with every "build": "later" unit added (one
    tick), so a script can be checked against the names those units' builds
    give (cli/probe.c). Only names are read from it; close it after."""
    probe = Station(scenario)
    try:
        for u in range(probe.unit_count + 1, lib.pcs_scenario_unit_count(scenario._handle()) + 1):
            probe.command(f"u{u}", "unit_add")
        probe.tick()
    except BaseException:
        probe.close()
        raise
    return probe


class Station:
    """The reactor station built into its own world (pcs_station).

    ``Station()`` builds the built-in scenario; ``Station(path)``,
    ``Station(Scenario.from_string(...))`` others. ``seed`` replaces the
    scenario's world seed (sensor noise streams); ``script=True`` applies the
    scenario's script at its ticks, as ``pcsim run`` does (same command
    source, so the same state hash; a target of a unit built later is
    resolved at its tick, and dropped with a RuntimeWarning, counted in
    ``script_dropped``, when it is not there then). Slow jobs (xenon) run inline on the
    calling thread: no worker pool, the same results (docs/ARCHITECTURE.md
    section 7).

    Threads: create, tick, command, save, load and close on one thread (the
    world's heap allocates only there); pcsim raises Error otherwise. A
    station the garbage collector finalizes on another thread is leaked, not
    freed there: close it (``with`` or close()) on its thread. A Channels
    object may be read from another thread, one thread at a time.
    """

    _st = _w = _pool = _events_r = None
    _readers = ()
    script_dropped = 0  # script actions dropped at their tick (their target not there)

    def __init__(self, scenario=None, *, seed=None, script=False, event_log_capacity=0):
        self._thread = threading.get_ident()
        self._st = self._w = self._pool = self._events_r = None
        self._readers = weakref.WeakSet()
        self._event_log_capacity = event_log_capacity
        self.scenario = _as_scenario(scenario)
        scn = self.scenario._handle()
        cfg = ffi.new("pcs_world_def *", lib.pcs_scenario_world_def(scn))
        cfg.workers = 0
        if seed is not None:
            cfg.seed = int(seed)
        w = ffi.new("pcs_world **")
        _check(lib.pcs_world_create(cfg, w), f"{self.scenario.source}: world")
        self._w = w[0]
        try:
            st = ffi.new("pcs_station **")
            _check(lib.pcs_station_add(self._w, scn, st))
            self._st = st[0]
            opt = ffi.new("pcs_snapshot_options *", {"event_log_capacity": event_log_capacity})
            pool = ffi.new("pcs_snapshot_pool **")
            _check(lib.pcs_snapshot_attach(self._w, opt, pool), "snapshot")
            self._pool = pool[0]
            r = ffi.new("pcs_reader **")
            _check(lib.pcs_reader_open(self._pool, r), "event reader")
            self._events_r = r[0]
            self._script = self._resolve_script() if script else None
        except BaseException:
            self.close()
            raise
        self._ev_buf = ffi.new("pcs_event[]", _EVENT_BATCH)
        self._ev_count = ffi.new("uint32_t *")
        self._ev_missed = ffi.new("uint64_t *")
        self._text = ffi.new("char[]", _TEXT_MAX)
        self.events_missed = 0
        self._prepared = {}

    # ---- lifetime and threads -------------------------------------------
    def _own_thread(self, what):
        if self._w is None:
            raise Error(lib.PCS_E_STATE, "the station is closed", what)
        if threading.get_ident() != self._thread:
            raise Error(lib.PCS_E_STATE,
                        f"called from thread {threading.get_ident()}; the station belongs "
                        f"to thread {self._thread}, which created it", what)

    def close(self):
        """Destroy the station and its world, on the thread that created it
        (the world's heap belongs to that thread)."""
        if self._w is not None and threading.get_ident() != self._thread:
            self._own_thread("Station.close")
        self._release()

    def _release(self):
        for r in list(self._readers):
            r.close()
        if self._events_r is not None:
            lib.pcs_reader_close(self._events_r)
            self._events_r = None
        if self._st is not None:
            lib.pcs_station_destroy(self._st)
            self._st = None
        if self._w is not None:
            lib.pcs_world_destroy(self._w)
            self._w = None
        self._pool = None

    def __del__(self):
        # The garbage collector may run this on any thread. Only the world's
        # own thread may free it: elsewhere the world is left allocated (a
        # leak, not a corrupted heap). close() on the right thread avoids both.
        if self._w is None or threading.get_ident() == self._thread:
            self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- the clock -------------------------------------------------------
    def tick(self, n=1):
        """Run n ticks (applying due script actions first, with script=True)."""
        self._own_thread("Station.tick")
        w = self._w
        tick = lib.pcs_world_tick
        if self._script is None:
            for _ in range(n):
                st = tick(w)
                if st != 0:
                    _fail(st, f"tick {self.tick_count}")
            return
        for _ in range(n):
            self._script_before_tick()
            st = tick(w)
            if st != 0:
                _fail(st, f"tick {self.tick_count}")

    @property
    def tick_count(self):
        """Ticks completed."""
        return int(lib.pcs_world_clock(self._w).tick)

    @property
    def time_s(self):
        c = lib.pcs_world_clock(self._w)
        return c.tick * c.dt_s

    @property
    def dt_s(self):
        return float(lib.pcs_world_clock(self._w).dt_s)

    @property
    def seed(self):
        return int(lib.pcs_world_def_get(self._w).seed)

    @property
    def unit_count(self):
        return int(lib.pcs_station_unit_count(self._st))

    @property
    def state_hash(self):
        """XXH3-64 of the tick and every state store (pcs_world_state_hash)."""
        return int(lib.pcs_world_state_hash(self._w))

    @property
    def state_hash_hex(self):
        return f"{self.state_hash:016x}"

    # ---- the script ------------------------------------------------------
    def _resolve_script(self):
        scn = self.scenario._handle()
        acts = []
        probe = None
        try:
            for i in range(lib.pcs_scenario_action_count(scn)):
                cmd = ffi.new("pcs_command *")
                st = lib.pcs_station_script_command(self._st, scn, i, cmd)
                if st != 0 and lib.pcs_scenario_unit_count(scn) > self.unit_count:
                    # A target of a unit the scenario builds later ("u2.pump1"
                    # before u2's unit_add) does not exist at the start. As
                    # `pcsim run` does (cli/probe.c, cli/script.c): checked
                    # against the scenario's whole plant, built aside with
                    # every later unit added, and resolved at its tick; a
                    # target no unit will have is refused now, by that plant.
                    probe = probe or _later_units_probe(self.scenario)
                    _check(lib.pcs_station_script_command(probe._st, scn, i, cmd))
                    cmd = None  # deferred: resolved at its tick
                elif st != 0:
                    _fail(st)
                acts.append((int(lib.pcs_scenario_action_get(scn, i).tick), cmd))
        finally:
            if probe is not None:
                probe.close()
        self.script_dropped = 0
        src = ffi.new("pcs_command_source **")
        _check(lib.pcs_command_source_open(self._w, _SCRIPT_SOURCE_CLASS, _SCRIPT_SOURCE_ID,
                                           _SCRIPT_RING, src), "script source")
        # The scenario's limit, as `pcsim run` sets it (run.command_rate_per_s,
        # run.command_burst; 400/s, burst 800 by default). A refused action
        # raises pcsim.Error here, where the C host drops and counts it.
        rp = lib.pcs_scenario_run_params(scn)
        _check(lib.pcs_command_source_set_rate(src[0], rp.command_rate_per_s, rp.command_burst),
               "script source rate")
        self._script_src = src[0]
        self._script_at = None
        self._resolved = ffi.new("pcs_command *")
        return acts

    def _script_before_tick(self):
        t = lib.pcs_world_clock(self._w).tick
        if self._script_at is None:  # first tick (or after a load): skip what is past
            self._script_at = 0
            while self._script_at < len(self._script) and self._script[self._script_at][0] < t:
                self._script_at += 1
        acts = self._script
        scn = self.scenario._handle()
        while self._script_at < len(acts) and acts[self._script_at][0] <= t:
            # Resolved again, as `pcsim run` does (cli/script.c): a structural
            # change since the start (pump_install) gives the name a new target
            # generation; a name that no longer resolves keeps the start's
            # command, which stage 1 rejects with its event, unless it was
            # deferred (a later unit's target): then there is none to submit.
            cmd, now = acts[self._script_at][1], self._resolved
            if lib.pcs_station_script_command(self._st, scn, self._script_at, now) == 0:
                cmd = now
            elif cmd is None:  # deferred, and its target is not there now
                self._drop_action(self._script_at, t)
                self._script_at += 1
                continue
            _check(lib.pcs_command_source_submit(self._script_src, cmd), "script")
            self._script_at += 1

    def _drop_action(self, i, tick):
        """A deferred action whose target is not there at its tick (its unit
        not added yet, or removed): warned, counted in script_dropped, not
        submitted; the run goes on, as `pcsim run`'s does (cli/script.c)."""
        scn = self.scenario._handle()
        a = lib.pcs_scenario_action_get(scn, i)
        target = _str(a.target)
        m = re.match(r"u(\d+)", target)
        n = int(m.group(1)) if m else 0
        if self.unit_count < n <= lib.pcs_scenario_unit_count(scn):
            why = (f"u{n} is not built at this tick (a unit with \"build\": \"later\": a "
                   f"unit_add of u{n} builds it at the end of that command's tick)")
        else:
            why = "the target does not exist at this tick (removed since the start)"
        msg = ffi.string(lib.pcs_last_error()).decode(errors="replace")
        self.script_dropped += 1
        warnings.warn(f"t={tick * self.dt_s:.2f} s (tick {tick}): {msg}; {_str(a.command)} of "
                      f"'{target}' dropped: {why}; the run goes on", RuntimeWarning, stacklevel=4)

    # ---- commands --------------------------------------------------------
    def prepare(self, target, command):
        """A Command for ``command`` on ``target`` ("u1.D", "rod_position"),
        resolved by name once; Error (PCS_E_NOTFOUND) names an unknown one."""
        self._own_thread("Station.prepare")
        key = (target, command)
        c = self._prepared.get(key)
        if c is None:
            c = self._prepared[key] = Command(self, target, command)
        return c

    def command(self, target, command, value=0.0):
        """Resolve and submit one command; it applies at the next tick."""
        self.prepare(target, command).submit(value)

    # ---- channels --------------------------------------------------------
    def channel_names(self):
        """Every channel the world publishes, in id order (a channel retired
        by a structural change, such as a removed pump's, is left out: its
        id is never reused, pcsim/structure.h)."""
        info = ffi.new("pcs_channel_info *")
        out = []
        for i in range(lib.pcs_channel_count(self._w)):
            if not lib.pcs_channel_live(self._w, i):
                continue
            _check(lib.pcs_channel_get(self._w, i, info))
            out.append(_str(info.name))
        return out

    def channel_info(self, name):
        ids = ffi.new("uint32_t *")
        _check(lib.pcs_channel_find(self._w, name.encode(), ids))
        info = ffi.new("pcs_channel_info *")
        _check(lib.pcs_channel_get(self._w, ids[0], info))
        kind = "u32" if info.kind == lib.PCS_CHANNEL_U32 else "f64"
        return ChannelInfo(int(ids[0]), _str(info.name), _str(info.unit), kind)

    def value(self, name):
        """One channel's live value (world thread)."""
        self._own_thread("Station.value")
        ids = ffi.new("uint32_t *")
        _check(lib.pcs_channel_find(self._w, name.encode(), ids))
        return float(lib.pcs_channel_value(self._w, ids[0]))

    def channels(self, names):
        """A Channels reader of ``names`` (resolved now; Error names an unknown one)."""
        if self._w is None:
            raise Error(lib.PCS_E_STATE, "the station is closed", "Station.channels")
        return Channels(self, names)

    # ---- events ----------------------------------------------------------
    def events(self):
        """Events since the last call (from the first tick on), in order.
        Events the log overwrote before they were read are counted in
        ``events_missed`` (raise event_log_capacity if it grows)."""
        if self._events_r is None:
            raise Error(lib.PCS_E_STATE, "the station is closed", "Station.events")
        out = []
        buf, count, missed = self._ev_buf, self._ev_count, self._ev_missed
        while True:
            _check(lib.pcs_events_poll(self._events_r, buf, _EVENT_BATCH, count, missed))
            self.events_missed += int(missed[0])
            for i in range(count[0]):
                e = buf[i]
                text = None
                if lib.pcs_event_describe(self._st, ffi.addressof(buf, i), self._text, _TEXT_MAX):
                    text = ffi.string(self._text).decode(errors="replace")
                out.append(Event(int(e.tick), int(e.kind), event_name(e.kind), int(e.subject),
                                 tuple(e.values), text))
            if count[0] < _EVENT_BATCH:
                return out

    # ---- save and load ---------------------------------------------------
    def save(self, path):
        """Write the world's state to path (whole or nothing: pcs_world_save)."""
        self._own_thread("Station.save")
        _check(lib.pcs_world_save(self._w, os.fsencode(path)))

    # What Station.load swaps between the live station and the fresh one.
    _WORLD_PARTS = ("_w", "_st", "_pool", "_events_r", "_script", "_script_src", "_resolved",
                    "_script_at")

    def load(self, path):
        """Replace the world's state with a save of the same scenario and seed;
        on any error the station is unchanged.

        The save is loaded into a fresh world built from the same scenario,
        seed and options, which replaces this one only if the load succeeds:
        a load re-applies the save's structural changes (pcsim/structure.h)
        before it checks the rest, and those cannot be undone, so a refused
        save would otherwise leave its structure behind. So a load costs a
        station build (about 0.2 s for the default station, a few ms for
        one small unit), a save made before a structural change loads after
        it, and commands submitted but not yet ticked are dropped with the
        old world. Channels readers and prepared commands carry over."""
        self._own_thread("Station.load")
        fresh = Station(self.scenario, seed=self.seed, script=self._script is not None,
                        event_log_capacity=self._event_log_capacity)
        try:
            _check(lib.pcs_world_load(fresh._w, os.fsencode(path)))
            readers = [(r, r._open_on(fresh._pool)) for r in list(self._readers) if r._r]
        except BaseException:
            fresh.close()
            raise
        for r, new in readers:  # off the old pool before the old world goes
            lib.pcs_reader_close(r._r)
            r._r = new
        for name in self._WORLD_PARTS:
            mine, theirs = getattr(self, name, None), getattr(fresh, name, None)
            setattr(self, name, theirs)
            setattr(fresh, name, mine)
        fresh.close()  # the old world, now fresh's
        if self._script is not None:
            self._script_at = None
