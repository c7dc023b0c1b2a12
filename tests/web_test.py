#!/usr/bin/env python3
"""`pcsim serve --http`: the page, its security and bad WebSocket input.

Python standard library only (a WebSocket client of 60 lines is below).
Servers listen on a free port (--http 0 --http-port-file) and stop with
SIGTERM; each must exit 0 (under ASan: no leak, under TSan: no race), and
"the server keeps serving" is checked by a good page right after each bad
one.

Starting a server builds its station (single-threaded): that was most of
this suite's time. So the tests that need the default station and no
option share one server (the page, upgrade refusals, start-up failures,
then the acts that change its plant, last: that test stops it); the
read-only server also serves the page test's "a new server has a new
token"; where the station's size does not matter the server runs a
one-unit station (one_unit(): the first unit of scenarios/pwr-station.json);
and while a test runs, the next servers build their stations (TESTS says
which tests use which). The same tests run on all three builds.

Usage: tests/web_test.py PATH/TO/pcsim [TEST ...]
"""
import base64
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

PCSIM = None
TIMEOUT = 10.0
# The server's start builds the whole station (the property tables and each
# unit's primary settling to its steady state): about 1.2 s in a release
# build, ten to twenty times that under ASan or TSan, more on a loaded
# machine. Start gets its own bound; the protocol keeps TIMEOUT.
START_TIMEOUT = 180.0
TMP = tempfile.mkdtemp(prefix="pcsim-web-test-")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_unit():
    """scenarios/pwr-station.json with its first unit only (u1, full power)
    and no script: a smaller station where its size does not matter."""
    path = os.path.join(TMP, "one-unit.json")
    if not os.path.exists(path):
        with open(os.path.join(ROOT, "scenarios", "pwr-station.json")) as f:
            doc = json.load(f)
        doc["units"] = doc["units"][:1]
        doc["readers"] = {"count": 0}
        doc["script"] = []
        with open(path + ".tmp", "w") as f:
            json.dump(doc, f)
        os.rename(path + ".tmp", path)
    return path


class Server:
    def __init__(self, *args, wait=True):
        """Start `pcsim serve --http`; wait: until it listens (else ready())."""
        self.dir = tempfile.mkdtemp(prefix="pcsim-web-")
        self.pf = os.path.join(self.dir, "http.port")
        self.log = open(os.path.join(self.dir, "server.log"), "w+")
        self.proc = subprocess.Popen(
            [PCSIM, "serve", "--http", "0", "--http-port-file", self.pf, *args],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.port = None
        self.refused = 0  # upgrades the tests had refused (the log must say as many)
        if wait:
            self.ready()

    def ready(self):
        """Wait until it listens (its station built)."""
        t0 = time.time()
        while self.port is None:
            if os.path.exists(self.pf) and open(self.pf).read().endswith("\n"):
                self.port = int(open(self.pf).read())
                self.host = "127.0.0.1:%d" % self.port
            elif self.proc.poll() is not None or time.time() - t0 > START_TIMEOUT:
                raise AssertionError("server did not start: " + self.text())
            else:
                time.sleep(0.02)
        return self

    def text(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def get(self, path, host=None):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path))
        if host:
            req.add_header("Host", host)
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def token(self):
        _, _, body = self.get("/")
        return re.search(rb'name="pcsim-token" content="([0-9a-f]{32})"', body).group(1).decode()

    def stop(self):
        if self.proc.poll() is None:
            self.ready()  # SIGTERM is handled once it listens
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=30)
        assert rc == 0, "server exit status %d:\n%s" % (rc, self.text())
        return self.text()


# Shared servers by name, started by the first test that asks and stopped at
# the end (main) or by the test that takes one (take).
SHARED = {}


def spec(name):
    """The arguments of the server name."""
    return {
        "station": (),  # the default station (four units), no options
        "read-only": (one_unit(), "--read-only"),
        "rate": (one_unit(), "--rate", "1", "--burst", "2"),
        # the default station: its 672 channels fill a page that never reads
        # in about a second, a one-unit station's 168 in ten
        "slow": ("--send-queue", "8192", "--slow-consumer-ms", "300"),
    }[name]


def launch(name):
    """The server name, started if need be (without waiting for it); one
    that has died is a failure, and gone from the shared set."""
    srv = SHARED.get(name)
    if srv is not None and srv.proc.poll() is not None:
        del SHARED[name]
        raise AssertionError("server %s exited %d:\n%s" % (name, srv.proc.returncode, srv.text()))
    if srv is None:
        srv = SHARED[name] = Server(*spec(name), wait=False)
    return srv


def shared(name):
    return launch(name).ready()


def take(name):
    """The shared server name, out of the shared set: the caller stops it."""
    srv = shared(name)
    del SHARED[name]
    return srv


def station():
    return shared("station")


def read_only():
    return shared("read-only")


class WS:
    """A WebSocket client: handshake, masked frames, reassembly."""

    def __init__(self, srv, token=None, origin="same", path="/ws", rcvbuf=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:  # before connect, so the window stays small
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(("127.0.0.1", srv.port))
        key = base64.b64encode(os.urandom(16)).decode()
        q = "" if token is None else "?token=" + token
        lines = ["GET %s%s HTTP/1.1" % (path, q), "Host: " + srv.host, "Upgrade: websocket",
                 "Connection: Upgrade", "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13",
                 "Sec-WebSocket-Protocol: pcsim.v1"]
        if origin == "same":
            lines.append("Origin: http://" + srv.host)
        elif origin:
            lines.append("Origin: " + origin)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            part = self.sock.recv(4096)
            if not part:
                break
            head += part
        self.status = int(head.split(b" ", 2)[1]) if head else 0
        self.head, _, self.buf = head.partition(b"\r\n\r\n")

    def send_frame(self, opcode, payload, fin=True):
        n = len(payload)
        b0 = (0x80 if fin else 0) | opcode
        m = 0x80
        if n < 126:
            hdr = struct.pack("!BB", b0, m | n)
        elif n < 65536:
            hdr = struct.pack("!BBH", b0, m | 126, n)
        else:
            hdr = struct.pack("!BBQ", b0, m | 127, n)
        k = os.urandom(4)
        self.sock.sendall(hdr + k + bytes(c ^ k[i % 4] for i, c in enumerate(payload)))

    def send_raw(self, b0, payload):
        """One masked frame with first byte b0 as given (flags, opcode)."""
        k = os.urandom(4)
        n = len(payload)
        hdr = struct.pack("!BB", b0, 0x80 | n) if n < 126 else struct.pack("!BBH", b0, 0xFE, n)
        self.sock.sendall(hdr + k + bytes(c ^ k[i % 4] for i, c in enumerate(payload)))

    def send(self, obj):
        self.send_frame(1, json.dumps(obj).encode())

    def _exact(self, n):
        while len(self.buf) < n:
            part = self.sock.recv(65536)
            if not part:
                raise EOFError("closed")
            self.buf += part
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def frame(self):
        b0, b1 = self._exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._exact(8))[0]
        return b0 & 0x0F, self._exact(n)

    def recv(self, want=None, limit=TIMEOUT):
        """Next message (of type `want`, skipping others); a close frame is
        returned as {"type": "close", "code": ..., "reason": ...}."""
        t0 = time.time()
        while time.time() - t0 < limit:
            op, data = self.frame()
            if op == 8:
                code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
                return {"type": "close", "code": code, "reason": data[2:].decode(errors="replace")}
            if op == 2:
                msg = {"type": "binary", "data": data}
            elif op == 1:
                msg = json.loads(data)
            else:
                continue
            if want is None or msg.get("type") in ((want,) if isinstance(want, str) else want):
                return msg
        raise AssertionError("no %s message in %.0f s" % (want, limit))

    def closed(self, limit=TIMEOUT):
        """True when the server closes within limit (close frame or EOF);
        the status messages it sends meanwhile are skipped."""
        t0 = time.time()
        self.sock.settimeout(0.5)
        while time.time() - t0 < limit:
            try:
                op, _ = self.frame()
                if op == 8:
                    return True
            except (EOFError, ConnectionResetError):
                return True
            except socket.timeout:
                continue
        return False


class Sync:
    """Enough of a docs/sync.md decoder for these tests: LAYOUT, KEYFRAME,
    DELTA (no RECORDER slots are subscribed here). The page uses
    web/sync.js, which make sync-js-test checks against the C decoder."""

    def __init__(self):
        self.q, self.quanta, self.values, self.tick = [], [], [], 0

    def apply(self, data):
        p = [2]

        def varint():
            v, mul = 0, 1
            while True:
                b = data[p[0]]
                p[0] += 1
                v += (b & 0x7F) * mul
                mul *= 128
                if b < 0x80:
                    return v

        def val(i, absolute):
            v = varint()
            if v == 1:
                self.values[i] = struct.unpack_from("<d", data, p[0])[0]
                p[0] += 8
                self.q[i] = 0
                return
            k = (v // 2) // 2 if (v // 2) % 2 == 0 else -((v // 2) // 2) - 1
            self.q[i] = k if absolute else self.q[i] + k
            self.values[i] = self.q[i] * self.quanta[i]

        kind = data[0] & 0x0F
        assert data[0] >> 4 == 1, data[:2]
        if kind == 1:
            self.tick = varint()
            p[0] += 16  # dt_s, layout_version
            n = varint()
            self.quanta = []
            for _ in range(n):
                varint()
                p[0] += 2
                self.quanta.append(struct.unpack_from("<d", data, p[0])[0])
                p[0] += 8
                for _ in range(2):  # name, unit
                    n_text = varint()
                    p[0] += n_text
            self.q, self.values = [0] * n, [None] * n
        elif kind == 2:
            self.tick = varint()
            for i in range(len(self.q)):
                val(i, True)
        elif kind == 3:
            self.tick += varint()
            slot = -1
            for _ in range(varint()):
                slot += 1 + varint()
                val(slot, False)
        return kind


def obs(ws, dec, limit=TIMEOUT):
    """Feed messages until a KEYFRAME or DELTA arrives; the values then."""
    t0 = time.time()
    while time.time() - t0 < limit:
        m = ws.recv(("binary",), limit)
        if dec.apply(m["data"]) in (2, 3):
            return list(dec.values)
    raise AssertionError("no feed in %.0f s" % limit)


def hello_and_subscribe(srv, names, cls="gauge"):
    ws = WS(srv, srv.token())
    assert ws.status == 101, ws.head
    hello = ws.recv("hello")
    ws.send({"type": "subscribe", "channels": [{"name": n, "class": cls} for n in names]})
    r = ws.recv(("subscribe", "error"))
    assert r["type"] == "subscribe" and r["feed"] == "sync1", r
    return ws, hello


def good_page_works(srv):
    ws, hello = hello_and_subscribe(srv, ["u1.core.power"])
    v = obs(ws, Sync())
    assert v[0] > 1e9, v  # about 3.4 GW thermal
    ws.sock.close()
    return hello


# ---- tests ---------------------------------------------------------------


def test_page_and_headers():
    srv = station()
    st, h, body = srv.get("/")
    assert st == 200 and b"<html" in body.lower(), (st, body[:200])
    csp = h.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, csp
    assert h.get("x-content-type-options") == "nosniff"
    assert b"%%PCSIM_TOKEN%%" not in body
    for path in ("/app.js", "/style.css", "/vendor/uPlot.iife.min.js"):
        assert srv.get(path)[0] == 200, path
    assert srv.get("/../Makefile")[0] in (403, 404)
    assert srv.get("/nope")[0] == 404
    st, _, body = srv.get("/", host="attacker.example:%d" % srv.port)
    assert st == 403 and b"DNS names" in body, (st, body)
    # a new server has a new token
    assert read_only().token() != srv.token()
    hello = good_page_works(srv)
    names = [c[0] for c in hello["channels"]]
    assert "u1.core.power" in names and "u4.loop4.flow" in names, names[:10]
    assert hello["units"] == 4 and hello["read_only"] is False and hello["mode"] == "free"


def test_upgrade_refusals():
    srv = station()
    before = srv.text().count("WebSocket upgrade refused")
    tok = srv.token()
    cases = [
        (dict(token=tok, origin="http://attacker.example"), b"Origin"),
        (dict(token=tok, origin="http://127.0.0.1:1"), b"Origin"),
        (dict(token=tok, origin=None), b"no Origin"),
        (dict(token=None), b"token"),
        (dict(token="0" * 32), b"token"),
        (dict(token=tok + "0"), b"token"),
        (dict(token=tok, path="/other"), b"/ws"),
    ]
    for kw, why in cases:
        ws = WS(srv, **kw)
        assert ws.status == 403, (kw, ws.head)
        ws.sock.settimeout(2)
        try:
            rest = ws.buf + ws.sock.recv(4096)
        except (socket.timeout, ConnectionResetError):
            rest = ws.buf
        assert why in rest, (kw, rest)
    good_page_works(srv)
    t0 = time.time()  # each refusal is logged as it happens
    while (srv.text().count("WebSocket upgrade refused") - before < len(cases)
           and time.time() - t0 < TIMEOUT):
        time.sleep(0.02)
    log = srv.text()
    assert tok not in log, "the token must never be logged"
    assert log.count("WebSocket upgrade refused") - before == len(cases), log
    srv.refused += len(cases)


def test_act_pump_trip_and_alarm():
    # The last test on the shared station (it trips a pump): it stops it, and
    # the page's token must not be in anything the server logged.
    srv = take("station")
    tok = srv.token()
    try:
        ws, hello = hello_and_subscribe(
            srv, ["u1.loop2.flow", "u1.pump2.speed", "u1.alarm.flow_low.2"])
        dec = Sync()
        first = obs(ws, dec)
        assert first[0] > 1000, first  # kg/s in a running loop
        ws.send({"type": "act", "id": 5, "target": "u1.pump2", "command": "pump_trip", "value": 0})
        r = ws.recv(("act", "error"))
        assert r["type"] == "act" and r["id"] == 5, r
        t0 = time.time()
        while time.time() - t0 < 20:
            v = obs(ws, dec)
            if v[2] == 1:  # UNACK: the low-flow alarm came in
                break
        else:
            raise AssertionError("no low-flow alarm after the pump trip: %s" % v)
        ws.send({"type": "act", "id": 6, "target": "u1.alarm.flow_low.2", "command": "alarm_ack"})
        assert ws.recv(("act", "error"))["type"] == "act"
        t0 = time.time()
        while time.time() - t0 < 5:
            v = obs(ws, dec)
            if v[2] == 2:  # ACKED
                break
        else:
            raise AssertionError("alarm not acknowledged: %s" % v)
        ws.send({"type": "act", "id": 9, "target": "u1.alarm.flow_low.2",
                 "command": "alarm_shelve", "value": 600})
        assert ws.recv(("act", "error"))["type"] == "act"
        t0 = time.time()
        while time.time() - t0 < 5:
            v = obs(ws, dec)
            if v[2] == 4:  # SHELVED
                break
        else:
            raise AssertionError("alarm not shelved: %s" % v)
        ws.send({"type": "act", "id": 7, "target": "u1.nope", "command": "pump_trip"})
        e = ws.recv(("act", "error"))
        assert e["type"] == "error" and e["code"] == "unknown_command" and e["id"] == 7, e
        ws.send({"type": "act", "id": 8, "target": "u1.D", "command": "rod_position",
                 "value": 7})
        e = ws.recv(("act", "error"))
        assert e["code"] == "bad_value" and not e["fatal"], e
    finally:
        log = srv.stop()
    assert tok not in log, "the token must never be logged"
    assert log.count("WebSocket upgrade refused") == srv.refused, log


def test_rate_limit_shared_path():
    srv = take("rate")
    try:
        ws, _ = hello_and_subscribe(srv, ["u1.core.power"])
        codes = []
        for i in range(4):
            ws.send({"type": "act", "id": i, "target": "u1", "command": "boron", "value": 1000})
            codes.append(ws.recv(("act", "error")).get("code", "ok"))
        assert codes[:2] == ["ok", "ok"] and "rate_limited" in codes[2:], codes
    finally:
        log = srv.stop()
    assert "acts refused by rate limit" in log and ": 0\n" not in log.split("rate limit")[-1], log


def test_options():
    # Usage errors (exit 2), and start-up failures after the loop holds
    # handles (exit 2, nothing leaked). An address is parsed when the server
    # listens, after the station's build: a one-unit station will do, and
    # the builds run at once.
    srv = station()
    d = tempfile.mkdtemp(prefix="pcsim-web-")
    cases = ((["--http", "x"], "--http 'x'"), (["--http", "70000"], "--http"),
             ([one_unit(), "--http", "0", "--bind", "localhost"], "--bind 'localhost'"),
             ([one_unit(), "--http", str(srv.port)], "Address already in use"),
             ([one_unit(), "--http", "0", "--port", "0", "--port-file", d], "--port-file"))
    runs = [subprocess.Popen([PCSIM, "serve", *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True) for args, _ in cases]
    for (args, what), r in zip(cases, runs):
        _, err = r.communicate(timeout=START_TIMEOUT)
        assert r.returncode == 2 and what in err, (args, r.returncode, err)
    r = subprocess.run([PCSIM, "serve", "--help"], capture_output=True, text=True,
                       timeout=START_TIMEOUT)
    assert r.returncode == 0 and "--http N" in r.stdout, r.stdout
    good_page_works(srv)


def test_read_only():
    srv = take("read-only")
    try:
        ws, hello = hello_and_subscribe(srv, ["u1.core.power"])
        assert hello["read_only"] is True
        assert obs(ws, Sync())[0] > 1e9  # fed (the keyframe comes first)
        ws.send({"type": "act", "id": 1, "target": "u1", "command": "scram"})
        e = ws.recv(("act", "error"))  # (skips the feed's messages meanwhile)
        assert e["code"] == "read_only" and not e["fatal"], e
        ws.recv(("binary",))  # still fed, still connected
    finally:
        srv.stop()


def test_bad_input():
    srv = take("slow")
    try:
        tok = srv.token()
        # not JSON, JSON not an object, unknown type, unknown key, binary
        for payload, code in [(b"{nope", "bad_json"), (b"[1,2]", "bad_json"),
                              (b'{"type":"launch"}', "unknown_type"),
                              (b'{"type":"act","target":"u1","command":"scram","x":1}',
                               "bad_message"),
                              (b'{"type":"subscribe","channels":[]}', "bad_message")]:
            ws = WS(srv, tok)
            ws.recv("hello")
            ws.send_frame(1, payload)
            e = ws.recv(("error",))
            assert e["code"] == code and e["fatal"], (payload, e)
            c = ws.recv("close")
            assert c["code"] == 1008, c
        # unknown channel: a clear error, the connection stays
        ws = WS(srv, tok)
        ws.recv("hello")
        ws.send({"type": "subscribe", "channels": [{"name": "u1.core.power", "class": "gauge"},
                                                   {"name": "u9.nothing", "class": "gauge"}]})
        e = ws.recv("error")
        assert e["code"] == "unknown_channel" and "[1]" in e["message"] and not e["fatal"], e
        ws.send({"type": "subscribe", "channels": [{"name": "u1.core.power", "class": "gauge"}]})
        assert ws.recv(("subscribe",))["slots"] == 1
        ws.sock.close()
        # oversized message: announced 1 MiB, and 70 KB really sent in fragments
        ws = WS(srv, tok)
        ws.recv("hello")
        ws.send_frame(1, b"x" * 40000, fin=False)
        ws.send_frame(0, b"x" * 40000, fin=True)
        c = ws.recv("close")
        assert c["code"] == 1009 and "too big" in c["reason"], c
        # malformed frames, each closed by lws (with 1002 or 1007, or at once):
        # RSV1 without an extension, a control frame over 125 bytes, a
        # fragmented ping, a continuation with nothing to continue, a
        # reserved opcode, invalid UTF-8 in a text frame. (An unmasked client
        # frame is not among them: lws 4.1 accepts it; docs/protocol.md.)
        for b0, payload in [(0x80 | 0x40 | 1, b'{"type":"keyframe"}'), (0x80 | 9, b"p" * 200),
                            (9, b"p"), (0x80 | 0, b"abc"), (0x80 | 3, b"abc"),
                            (0x81, b'{"type":"\xff\xfe"}')]:
            ws = WS(srv, tok)
            ws.recv("hello")
            ws.send_raw(b0, payload)
            assert ws.closed(5), "malformed frame %#x: connection still open" % b0
        # a client that never reads: subscribes to everything, then stops
        ws = WS(srv, tok, rcvbuf=4096)
        hello = ws.recv("hello")
        names = [c[0] for c in hello["channels"]][:1000]
        ws.send({"type": "subscribe", "channels": [{"name": n, "class": "gauge"} for n in names]})
        t0 = time.time()
        while "slow consumer" not in srv.text() and time.time() - t0 < 20:
            time.sleep(0.2)
        assert "slow consumer" in srv.text(), srv.text()
        ws.sock.close()
        good_page_works(srv)
    finally:
        log = srv.stop()
    assert log.count("dropped: slow consumer") == 1, log


# In this order (the shared station's tests, the one that stops it last),
# with the servers each uses: a test's servers and the next ones not running
# yet start together, so that stations build side by side and while tests
# run.
TESTS = [(test_page_and_headers, ["station", "read-only"]),
         (test_upgrade_refusals, ["station"]),
         (test_options, ["station"]),
         (test_act_pump_trip_and_alarm, ["station"]),
         (test_read_only, ["read-only"]),
         (test_rate_limit_shared_path, ["rate"]),
         (test_bad_input, ["slow"])]


def main():
    global PCSIM
    PCSIM = os.path.abspath(sys.argv[1])
    only = sys.argv[2:]
    passed = failed = 0
    run = [(t, uses) for t, uses in TESTS if not only or t.__name__ in only]
    for i, (t, uses) in enumerate(run):
        t0 = time.time()
        try:
            for name in uses:
                launch(name)
            for _, later in run[i + 1:]:  # the next servers to start
                if any(name not in SHARED for name in later):
                    for name in later:
                        launch(name)
                    break
            t()
            passed += 1
            print("ok   %-32s %.1f s" % (t.__name__, time.time() - t0), flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            failed += 1
            print("FAIL %-32s %s: %s" % (t.__name__, type(e).__name__, e), flush=True)
    for name, srv in list(SHARED.items()):  # what a selection of tests left running
        try:
            srv.stop()
        except AssertionError as e:
            failed += 1
            print("FAIL shared server %s: %s" % (name, e), flush=True)
    print("web: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
