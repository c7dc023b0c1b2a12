"""pcsim.remote: a client of `pcsim serve` (docs/protocol.md, version 1) and
the station environment over TCP.

    from pcsim.remote import Client, RemoteStationEnv

    with Client("127.0.0.1", port) as c:                # role "control"
        c.reset(seed=7)
        c.act("u2.pump2", "pump_trip")                  # applies during the next tick
        print(c.step(100, hash=True))                   # Step(tick=100, time_s=5.0, state_hash=...)
        print(c.observe(["u2.core.flow"]).values)       # a float64 numpy array

    env = RemoteStationEnv.connect("127.0.0.1", port, observe=[...], act=[...])

The client uses the standard library only (socket, struct, json); numpy is
imported when an array is asked for (observe's default; ``array=False``
gives a list). It is blocking and belongs to one thread at a time.

Errors: an error the server sends is raised as RemoteError, a pcsim.Error
whose ``code`` and ``message`` are the server's (``"bad_token"``,
``"world_busy"``, ``"unknown_command"``, ...); ``fatal`` says the
connection is gone. What the client itself refuses is raised the same way
with its own codes: ``too_large`` (a frame header above the protocol's 65536
bytes: refused from the header alone, nothing more is read), ``bad_frame``,
``bad_json``, ``bad_reply`` (a reply that does not answer the request),
``closed`` (the server closed the connection), ``timeout``. After a fatal
error the client is closed. Arguments the server would refuse with a
disconnect (a step of 0 ticks, a bad save name, 1025 channels) are refused
here first with ValueError, and the connection stays.

Requests may be pipelined: ``RemoteStationEnv.step`` sends its acts, the step
and the observe in one write and reads the replies in order (one round trip
per step; the server reads a connection's next message only after replying
to the previous one, docs/protocol.md "Limits").
"""

import collections
import json
import math
import re
import socket
import struct

from ._station import Error, Station
from .env import EnvCore

PROTOCOL_VERSIONS = (1,)
MAX_MESSAGE = 65536  # frame payload, both directions
MAX_CHANNELS = 1024  # channels per observe or subscribe
MAX_STEP = 1000000  # ticks per step message
PUSH_BACKLOG = 1024  # pushes kept between reads of a subscription (the newest)
RESET_TICKS = 1  # ticks RemoteStationEnv.reset runs: nothing to observe before the first

_HEADER = struct.Struct(">I")
_SAVE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

Step = collections.namedtuple("Step", "tick time_s state_hash")
Step.__doc__ = ("Where a step or reset left the world: ticks run, simulated time, and the "
                "state hash (hex, as `pcsim run` prints it) when asked for, else None.")
Observation = collections.namedtuple("Observation", "tick time_s values")
Observation.__doc__ = ("Channel values, all from one tick, in the order named (float64; a "
                       "value that is not finite is NaN), with the tick that published them.")


class RemoteError(Error):
    """An error of the TCP protocol: ``code`` (the server's, or the client's
    own, see the module's docstring), ``message``, ``fatal`` (the connection
    is closed) and ``id`` (of the request it answers, or None). ``status``
    is None: no pcs_status travels over the wire."""

    def __init__(self, code, message, *, fatal=False, id=None):
        Exception.__init__(self, f"{message} ({code})")
        self.status = None
        self.code = code
        self.message = message
        self.fatal = fatal
        self.id = id


def _need(ok, what):
    if not ok:
        raise ValueError(what)


def _values(reply, array, out):
    vals = reply["values"]
    if out is not None:
        out[:] = vals  # numpy: None (not finite) becomes NaN
        return out
    if array:
        import numpy as np

        return np.array(vals, dtype=np.float64)
    return [math.nan if v is None else float(v) for v in vals]


class Client:
    """A connection to `pcsim serve`. host, port; token: the first line of
    the server's --token file (None: the server has no token); role:
    "control" (reset, step, act, save, load; one controller at a time) or
    "observe"; timeout: seconds to wait for the connection and for each
    reply (None: no limit; a step of many ticks takes its ticks' time).

    Attributes after the hello: ``hello`` (the server's reply, a dict),
    ``version``, ``role``, ``mode`` ("step", "free" or "fast"), ``scenario``,
    ``dt_s``, ``seed`` (the world's; reset changes it)."""

    _sock = None

    def __init__(self, host="127.0.0.1", port=7878, token=None, *, role="control",
                 timeout=30.0, versions=PROTOCOL_VERSIONS):
        self.address = (host, int(port))
        self.timeout = timeout
        self._where = f"pcsim serve at {host}:{port}"
        self._buf = bytearray()
        self._next_id = 1
        self._channels = None  # the connection's channel list, as the server holds it
        self._pushes = collections.deque(maxlen=PUSH_BACKLOG)
        self._subscribed = False
        self._sock = socket.create_connection(self.address, timeout=timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        msg = {"type": "hello", "versions": [int(v) for v in versions], "role": role}
        if token is not None:
            msg["token"] = token
        self.hello = h = self._exchange([msg])[0]
        if h.get("version") not in msg["versions"]:
            self._fail("bad_reply", f"hello: the server chose version {h.get('version')!r}, "
                       f"not one of {msg['versions']}")
        self.version, self.role, self.mode = h["version"], h["role"], h["mode"]
        self.scenario, self.dt_s, self.seed = h["scenario"], h["dt_s"], h["seed"]

    # ---- the messages --------------------------------------------------
    def reset(self, seed=None, *, hash=False):
        """A new world from the server's scenario (seed: the world seed,
        default the scenario's); returns Step (tick 0). Nothing can be
        observed until the world has ticked (step first: docs/protocol.md)."""
        msg = {"type": "reset"}
        if seed is not None:
            _need(0 <= int(seed) < 2**63, f"reset: seed {seed} outside [0, 2^63 - 1]")
            msg["seed"] = int(seed)
        r = self._call(msg, hash)
        self.seed = r["seed"]
        return Step(r["tick"], r["time_s"], r.get("state_hash"))

    def step(self, n=1, *, hash=False):
        """Run n ticks (step mode, control); returns Step once they ran."""
        _need(1 <= int(n) <= MAX_STEP, f"step: n = {n} outside [1, {MAX_STEP}]")
        r = self._call({"type": "step", "n": int(n)}, hash)
        return Step(r["tick"], r["time_s"], r.get("state_hash"))

    def observe(self, channels=None, *, array=True, out=None):
        """The channels' values from the newest tick the world published, as
        Observation. channels: names (1..1024), kept by the connection:
        later observes may leave them out. values: a float64 numpy array,
        ``out`` filled in place, or a list with ``array=False``."""
        r = self._exchange([self._observe_msg(channels)])[0]
        return Observation(r["tick"], r["time_s"], _values(r, array, out))

    def act(self, target, command, value=None):
        """Queue a command by target and command name (control), as a
        scenario script names it; returns the tick it applies during."""
        _need(0 < len(target.encode()) <= 127, f"act: target {target!r}: want 1..127 bytes")
        _need(0 < len(command.encode()) <= 31, f"act: command {command!r}: want 1..31 bytes")
        msg = {"type": "act", "target": target, "command": command}
        if value is not None:
            _need(math.isfinite(value), f"act {command} {target}: value {value} is not finite")
            msg["value"] = float(value)
        return self._exchange([msg])[0]["tick"]

    def save(self, name):
        """Save the world as NAME.save in the server's --save-dir; returns the tick."""
        return self._call(self._named("save", name))["tick"]

    def load(self, name):
        """Load NAME.save (same scenario and seed); returns the tick."""
        return self._call(self._named("load", name))["tick"]

    def subscribe(self, channels=None, every=1, *, array=True):
        """Ask for an observation pushed at least every ``every`` ticks (and
        at the end of each step in step mode); returns a Subscription, an
        iterator of Observation. Pushes coalesce on the server and, up to
        PUSH_BACKLOG, wait here while other requests are answered. The
        channel list is the connection's (one list for observe and
        subscribe)."""
        _need(1 <= int(every) <= MAX_STEP, f"subscribe: every = {every} outside [1, {MAX_STEP}]")
        msg = self._observe_msg(channels, "subscribe")
        msg["every"] = int(every)
        self._exchange([msg])
        self._pushes.clear()
        self._subscribed = True
        return Subscription(self, array)

    def unsubscribe(self):
        """Stop the pushes; those already sent are dropped."""
        self._exchange([{"type": "subscribe", "every": 0}])
        self._subscribed = False
        self._pushes.clear()

    def close(self):
        """Say close, wait for the server's reply (at most ``timeout``), then
        close the socket. Idempotent."""
        if self._sock is None:
            return
        try:
            self._exchange([{"type": "close"}])
        except (Error, OSError):
            pass
        self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self._drop()

    # ---- requests and replies ------------------------------------------
    def _call(self, msg, hash=False):
        if hash:
            msg["hash"] = True
        return self._exchange([msg])[0]

    @staticmethod
    def _named(kind, name):
        _need(_SAVE_NAME.fullmatch(name), f"{kind}: name {name!r}: want 1..64 of A-Z a-z 0-9 _ -")
        return {"type": kind, "name": name}

    def _observe_msg(self, channels, kind="observe"):
        """An observe (or subscribe) naming the channels only when they are
        not already the connection's list."""
        msg = {"type": kind}
        if channels is None:
            _need(self._channels is not None, f"{kind}: name the channels the first time")
            return msg
        names = [str(c) for c in channels]
        _need(1 <= len(names) <= MAX_CHANNELS,
              f"{kind}: {len(names)} channels; want 1..{MAX_CHANNELS}")
        if names != self._channels:
            _need(kind == "subscribe" or not self._subscribed,
                  "observe: the connection's subscription pushes its channel list (one list a "
                  "connection): unsubscribe first, or observe through another Client")
            msg["channels"] = names
        return msg

    def _exchange(self, msgs):
        """Send msgs in one write (each with a new id), read their replies in
        order; returns them, or raises the first error once every reply has
        been read (a fatal one at once)."""
        if self._sock is None:
            raise RemoteError("closed", f"{self._where}: the client is closed", fatal=True)
        frames = []
        for m in msgs:
            m["id"] = self._next_id
            self._next_id += 1
            body = json.dumps(m, separators=(",", ":"), allow_nan=False).encode()
            _need(len(body) <= MAX_MESSAGE, f"{m['type']}: message of {len(body)} bytes; the "
                  f"protocol's limit is {MAX_MESSAGE}")
            frames.append(_HEADER.pack(len(body)) + body)
        try:
            self._sock.sendall(b"".join(frames))
        except OSError as e:
            self._reason_for(e)
        replies, first = [], None
        for m in msgs:
            r = self._reply()
            if r["type"] == "error":
                text = r.get("message", "")
                if not text.startswith(m["type"]):
                    text = f"{m['type']}: {text}"
                err = RemoteError(r.get("code", "?"), f"{self._where}: {text}",
                                  fatal=bool(r.get("fatal")), id=r.get("id"))
                if err.fatal:
                    self._drop()
                    raise err
                first = first or err
            elif r.get("id") != m["id"] or r["type"] != ("obs" if m["type"] == "observe"
                                                          else m["type"]):
                self._fail("bad_reply", f"{m['type']} (id {m['id']}): got {str(r)[:200]}")
            elif "channels" in m:
                self._channels = m["channels"]
            replies.append(r)
        if first:
            raise first
        return replies

    def _reply(self):
        """The next message that is not a push (pushes wait in _pushes while
        subscribed)."""
        while True:
            m = self._message()
            if not m.get("push"):
                return m
            if self._subscribed:
                self._pushes.append(m)

    def _message(self):
        """One frame, decoded; bounded: a header above MAX_MESSAGE is refused
        before its payload is read."""
        buf = self._buf
        while True:
            if len(buf) >= 4:
                (n,) = _HEADER.unpack_from(buf)
                if n == 0 or n > MAX_MESSAGE:
                    self._fail("bad_frame" if n == 0 else "too_large",
                               f"a frame of {n} bytes (allowed 1..{MAX_MESSAGE})")
                if len(buf) >= 4 + n:
                    body = bytes(buf[4:4 + n])
                    del buf[:4 + n]
                    return self._decode(body)
            try:
                chunk = self._sock.recv(4 + MAX_MESSAGE)
            except socket.timeout:
                self._fail("timeout", f"nothing received within {self._sock.gettimeout()} s")
            except OSError as e:
                self._fail("closed", f"the connection failed: {e}")
            if not chunk:
                self._fail("closed", "the server closed the connection")
            buf += chunk

    def _decode(self, body):
        try:
            m = json.loads(body)
        except ValueError as e:  # also UnicodeDecodeError
            self._fail("bad_json", f"a frame that is not JSON: {e}")
        if not isinstance(m, dict) or not isinstance(m.get("type"), str):
            self._fail("bad_json", f"a frame that is not an object with a \"type\": {body[:200]!r}")
        return m

    def _reason_for(self, exc):
        """The send failed: the server may have said why before closing."""
        try:
            r = self._message()
        except RemoteError:
            r = None
        if r and r["type"] == "error":
            self._drop()
            raise RemoteError(r.get("code", "?"), f"{self._where}: {r.get('message', '')}",
                              fatal=True, id=r.get("id"))
        self._fail("closed", f"sending failed: {exc}")

    def _fail(self, code, message):
        self._drop()
        raise RemoteError(code, f"{self._where}: {message}", fatal=True)

    def _drop(self):
        self._subscribed = False
        s, self._sock = self._sock, None
        if s is not None:
            s.close()

    def _next_push(self, timeout):
        if self._pushes:
            return self._pushes.popleft()
        if not self._subscribed:  # unsubscribed, or the connection is gone
            raise StopIteration
        if timeout is not None:
            self._sock.settimeout(timeout)
        try:
            m = self._message()
        finally:
            if timeout is not None and self._sock is not None:
                self._sock.settimeout(self.timeout)
        if not m.get("push"):
            self._fail("bad_reply", f"a {m['type']} with no request outstanding: {str(m)[:200]}")
        return m


class Subscription:
    """The pushes of Client.subscribe: an iterator of Observation (it ends
    when unsubscribed); ``next(timeout)`` waits at most timeout seconds
    (RemoteError "timeout", fatal: the client is closed). ``close()``
    unsubscribes; so does leaving a ``with`` block."""

    def __init__(self, client, array):
        self.client, self.array = client, array

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self, timeout=None):
        m = self.client._next_push(timeout)
        return Observation(m["tick"], m["time_s"], _values(m, self.array, None))

    def close(self):
        if self.client._subscribed and self.client._sock is not None:
            self.client.unsubscribe()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class RemoteStationEnv(EnvCore):
    """pcsim.env.StationEnv over TCP: the same arguments (after the client),
    Gymnasium API, spaces, seeding and checks (both are pcsim.env.EnvCore),
    on the world of a step-mode `pcsim serve`, driven through ``client`` (a
    controlling Client; the env borrows it: close() leaves it open, except
    for an env made by ``connect``).

    Differences, all from the protocol:
    - reset(seed) resets the server's world and runs RESET_TICKS (1) tick
      with no commands before the first observation (the protocol has
      nothing to observe before a world's first tick), so info["tick"] is 1
      after reset and step k ends at tick 1 + k * ticks_per_step.
    - The protocol carries no events: info has no "events"; it has
      "tripped", the units whose ``core.trip`` channel turned non-zero
      during the step, which the default termination (pcsim.env.scrammed)
      reads. The trip channels are observed with yours (the default
      termination only).
    - Channel kinds (for the observation bounds), the unit names and the
      action's target and command names are checked on a local build of
      ``scenario`` (default: the built-in one), which must be the server's
      (same name; otherwise pass ``obs_bounds`` and ``terminated``).
    - A step is one round trip: the acts, the step and the observe are
      pipelined. If the server refuses an act the step has still run: the
      error is raised and the episode is over (reset).
    """

    _owned = False
    client = None

    def __init__(self, client, observe, act, reward=None, *, scenario=None, **kw):
        if client.role != "control" or client.mode != "step":
            raise ValueError(f"RemoteStationEnv: want a controlling client of a step-mode server, "
                             f"got role {client.role!r}, mode {client.mode!r}")
        self.client = client
        self._probed = None
        super().__init__(observe, act, reward, scenario=scenario, **kw)
        trips = self._probe([])[1] if kw.get("terminated") is None else []
        self._names = self.observe + trips
        self._units = [t.split(".", 1)[0] for t in trips]
        if len(self._names) > MAX_CHANNELS:
            raise ValueError(f"observe: {len(self._names)} channels with the trip channels; "
                             f"the protocol's limit is {MAX_CHANNELS}")
        import numpy as np

        self._buf = np.zeros(len(self.observe))
        self._trip_vals = [0.0] * len(trips)
        self._tick, self._time_s = 0, 0.0

    @classmethod
    def connect(cls, host, port, token=None, *, timeout=30.0, **env_kw):
        """A RemoteStationEnv on a Client of its own (closed by env.close())."""
        client = Client(host, port, token, role="control", timeout=timeout)
        try:
            env = cls(client, **env_kw)
        except BaseException:
            client.close()
            raise
        env._owned = True
        return env

    def _probe(self, names):
        """(kinds of names, trip channels) from a local build of the scenario,
        which also resolves the action's targets and commands."""
        if self._probed is None:
            if self.scenario.name != self.client.scenario:
                raise ValueError(f"RemoteStationEnv: the server serves scenario "
                                 f"'{self.client.scenario}', the local one is "
                                 f"'{self.scenario.name}': pass scenario= (the server's file), "
                                 "or obs_bounds= and terminated=")
            with Station(self.scenario) as probe:
                for t, c, _, _ in self.act:
                    probe.prepare(t, c)
                trips = [n for n in probe.channel_names() if n.endswith(".core.trip")]
                self._probed = ({n: probe.channel_info(n).kind for n in self.observe}, trips)
        kinds, trips = self._probed
        return [kinds[n] for n in names], trips

    def _channel_kinds(self, names):
        return self._probe(names)[0]

    def _default_seed(self):
        return self.client.hello["seed"]

    def _start(self):
        c = self.client
        msgs = [{"type": "reset", "seed": self._world_seed},
                {"type": "step", "n": RESET_TICKS}, c._observe_msg(self._names)]
        replies = c._exchange(msgs)
        self._take(replies)
        c.seed = replies[0]["seed"]
        return {"tripped": []}

    def _advance(self, values):
        c = self.client
        msgs = [{"type": "act", "target": t, "command": cmd, "value": v}
                for (t, cmd, _, _), v in zip(self.act, values)]
        msgs += [{"type": "step", "n": self.ticks_per_step}, c._observe_msg(self._names)]
        before = self._trip_vals
        self._take(c._exchange(msgs))
        return {"tripped": [u for u, a, b in zip(self._units, before, self._trip_vals)
                            if a == 0 and b != 0]}

    def _take(self, replies):
        step, obs = replies[-2], replies[-1]
        if obs["tick"] != step["tick"]:
            raise RemoteError("stale", f"{self.client._where}: observe after the step to tick "
                              f"{step['tick']} read tick {obs['tick']}")
        n = len(self.observe)
        self._buf[:] = obs["values"][:n]
        self._trip_vals = obs["values"][n:]
        self._tick, self._time_s = obs["tick"], obs["time_s"]

    def _read(self):
        return self._buf

    def _clock(self):
        return self._tick, self._time_s

    def _release(self):
        if self._owned and self.client is not None:
            self.client.close()


__all__ = ["Client", "Observation", "RemoteError", "RemoteStationEnv", "Step", "Subscription",
           "MAX_MESSAGE", "PROTOCOL_VERSIONS", "RESET_TICKS"]
