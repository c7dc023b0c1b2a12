/**
 * @file app.js
 * @brief The control room page: connects to /ws with the session token,
 *        subscribes what it draws (from the channel list the server sends:
 *        names are matched by pattern, never assumed), decodes the delta
 *        sync feed with web/sync.js, and draws per unit a mimic of the
 *        primary, the annunciator (ISA-18.2 states), trends (uPlot) and the
 *        events. Controls send acts; a read-only server gets no controls.
 *
 * Units shown: MW, MPa, degC, %, kg/s, rpm; every value's SI reading is in
 * its title attribute. The page's state for tests is in the DOM:
 * body[data-live], [data-ch] values, [data-alarm] tiles (data-state is the
 * pcs_alarm_state number, data-first-out), [data-trip] lamps.
 */
import { SyncDecoder, SyncError } from "./sync.js";

const $ = (sel, el = document) => el.querySelector(sel);
const token = $('meta[name="pcsim-token"]').content;
const SVG = "http://www.w3.org/2000/svg";
const ALARM_STATES = ["normal", "unack", "acked", "rtn_unack", "shelved", "suppressed", "out_of_service"];

const st = {
    ws: null,
    hello: null,
    dec: new SyncDecoder(),
    slot: new Map(), // channel name -> slot index (live values)
    rec: new Map(), // channel name -> slot index (recorder)
    units: [],
    sel: 1,
    recT: [], // recorder point times, s
    recV: new Map(), // recorder name -> values (display units)
    charts: [],
    selectedAlarm: null,
    nextId: 1,
    bytes: 0,
    bytesAt: performance.now(),
    dirty: false,
    readOnly: true,
    refused: 0, // upgrades refused in a row
};

/* ---- Units of display --------------------------------------------------- */

function fmt(v, unit, name) {
    if (v === undefined || Number.isNaN(v)) return ["–", ""];
    if (!Number.isFinite(v)) return [String(v), ""];
    switch (unit) {
        case "W":
            return [(v / 1e6).toFixed(v >= 1e8 ? 0 : 1), "MW"];
        case "Pa":
            return [(v / 1e6).toFixed(2), "MPa"];
        case "K":
            return [(v - 273.15).toFixed(1), "°C"];
        case "kg/s":
            return [v.toFixed(0), "kg/s"];
        case "rad/s":
            return [((v * 60) / (2 * Math.PI)).toFixed(0), "rpm"];
        case "m":
            return [v.toFixed(2), "m"];
        case "":
            if (/\.(pos|level|relative_power)$/.test(name)) return [(v * 100).toFixed(1), "%"];
            return [String(Math.round(v * 1000) / 1000), ""];
        default:
            return [String(Math.round(v * 1000) / 1000), unit];
    }
}

const unitOf = (name) => (st.hello ? st.units_of.get(name) ?? "" : "");
const value = (name) => (st.slot.has(name) ? st.dec.values[st.slot.get(name)] : undefined);
const has = (name) => st.names.has(name);

/* ---- Connection ---------------------------------------------------------- */

function connect() {
    const ws = new WebSocket(`ws://${location.host}/ws?token=${token}`, "pcsim.v1");
    ws.binaryType = "arraybuffer";
    st.ws = ws;
    setConn("connecting", "conn-wait");
    let opened = false;
    ws.onopen = () => {
        opened = true;
        st.refused = 0;
        setConn("live", "conn-ok");
    };
    ws.onclose = (e) => {
        setConn(`closed ${e.code}${e.reason ? ": " + e.reason : ""}`, "conn-bad");
        document.body.dataset.live = "0";
        // Refused twice at the upgrade: the server restarted with a new
        // session token, which only a fresh copy of the page carries.
        if (!opened && ++st.refused >= 2) setTimeout(() => location.reload(), 2000);
        else setTimeout(connect, 2000);
    };
    ws.onmessage = (e) => {
        if (typeof e.data === "string") {
            st.bytes += e.data.length;
            onText(JSON.parse(e.data));
        } else {
            st.bytes += e.data.byteLength;
            onFeed(new Uint8Array(e.data));
        }
    };
}

function send(obj) {
    if (st.ws && st.ws.readyState === WebSocket.OPEN) st.ws.send(JSON.stringify(obj));
}

function setConn(text, cls) {
    const el = $("#st-conn");
    el.textContent = text;
    el.className = cls;
}

/* ---- Server's text messages ---------------------------------------------- */

function onText(m) {
    switch (m.type) {
        case "hello":
            return onHello(m);
        case "subscribe":
            return;
        case "status":
            return onStatus(m);
        case "event":
            return logEvent(`t=${m.time_s.toFixed(1)} s  ${m.text}`, "");
        case "act":
            return logEvent(`${m.command} ${m.target}: queued at tick ${m.tick}`, "ok");
        case "error":
            return logEvent(`${m.code}: ${m.message}`, "err");
    }
}

function onHello(m) {
    st.hello = m;
    st.readOnly = m.read_only;
    document.body.classList.toggle("read-only", m.read_only);
    $("#scenario").textContent = `${m.scenario} · ${m.mode}${m.read_only ? " · read-only" : ""}`;
    st.names = new Set(m.channels.map((c) => c[0]));
    st.units_of = new Map(m.channels.map((c) => [c[0], c[1]]));
    st.units = [];
    for (let u = 1; u <= m.units; u++) st.units.push(u);
    buildUnits();
    buildAlarms();
    subscribe();
    buildCharts();
}

function onStatus(m) {
    $("#st-rate").textContent = `${m.tick_rate.toFixed(1)} ticks/s`;
    const now = performance.now();
    const bps = (st.bytes * 1000) / Math.max(1, now - st.bytesAt);
    st.bytes = 0;
    st.bytesAt = now;
    const b = $("#st-bytes");
    b.textContent = `${bps.toFixed(0)} B/s`;
    b.title = `feed bytes received per wall second; server queued ${m.queued} B for this page`;
    const g = m.budget || {};
    const el = $("#st-budget");
    if (g.level === undefined) {
        el.textContent = "budget –";
        return;
    }
    el.textContent = `budget L${g.level} · ${Math.round(g.instruments)} B`;
    el.className = g.level > 0 ? "budget-degraded" : "budget-ok";
    el.title =
        `delta-sync degradation level ${g.level} (max ${g.max_level}); instruments bucket ` +
        `${Math.round(g.instruments)} B, reserve ${Math.round(g.reserve)} B; ` +
        `${g.deferred} items deferred; ${g.bytes} B sent`;
}

/* ---- Subscription -------------------------------------------------------- */

const LIVE = [
    [/^u(\d+)\.(core\.power|rcs\.pressure)$/, "gauge"],
    [
        /^u(\d+)\.(pzr\.(level|pressure)|rcs\.t_avg|coolant\.(t_avg|t_out)|core\.(t_inlet|boron)|loop\d+\.(flow|t_hot|t_cold)|pump\d+\.speed|sg\d*\.heat|rods\.D\.pos)$/,
        "display",
    ],
    [/^u(\d+)\.(core\.trip|rps\.trip|rps\.first_out|alarm\..+)$/, "event"],
];

function subscribe() {
    const chans = [];
    st.slot = new Map();
    st.rec = new Map();
    for (const name of st.names) {
        for (const [re, cls] of LIVE) {
            const m = re.exec(name);
            if (!m) continue;
            st.slot.set(name, chans.length);
            chans.push({ name, class: cls, priority: Number(m[1]) === st.sel ? 0 : 2 });
            break;
        }
    }
    for (const name of st.hello.recorders || []) {
        const u = Number(/^u(\d+)\./.exec(name)?.[1]);
        st.rec.set(name, chans.length);
        chans.push({ name, class: "recorder", priority: u === st.sel ? 0 : 2 });
    }
    st.dec = new SyncDecoder();
    st.recT = [];
    st.recV = new Map([...st.rec.keys()].map((n) => [n, []]));
    send({ type: "subscribe", channels: chans });
}

function onFeed(bytes) {
    let info;
    try {
        info = st.dec.decode(bytes);
    } catch (e) {
        if (!(e instanceof SyncError)) throw e;
        logEvent(`feed: ${e.message}; asking for a keyframe`, "err");
        send({ type: "keyframe" });
        return;
    }
    if (info.type === 4) onRecorder(info);
    st.dirty = true;
}

function onRecorder(info) {
    const dec = st.dec;
    const first = dec.recorderSlots[0];
    for (let i = 0; i < info.nPoints; i++) st.recT.push(dec.timeOf(dec.point(first, i).tick));
    for (const [name, slot] of st.rec) {
        const arr = st.recV.get(name);
        const unit = unitOf(name);
        for (let i = 0; i < info.nPoints; i++) {
            const p = dec.point(slot, i);
            arr.push(Number(fmt(p.value, unit, name)[0]));
        }
    }
    const keep = 700; /* 10 min at 1 point/s, and a margin */
    if (st.recT.length > keep) {
        const cut = st.recT.length - keep;
        st.recT.splice(0, cut);
        for (const arr of st.recV.values()) arr.splice(0, cut);
    }
    drawCharts();
}

/* ---- Units: mimic and controls ------------------------------------------- */

function el(tag, attrs = {}, parent = null, ns = null) {
    const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
        if (k === "text") e.textContent = v;
        else e.setAttribute(k, v);
    }
    if (parent) parent.appendChild(e);
    return e;
}

const svg = (tag, attrs, parent) => el(tag, attrs, parent, SVG);

/* A value readout in the mimic: its text is filled by render(). */
function readout(parent, x, y, name, anchor = "middle", prefix = "") {
    if (!has(name)) return;
    svg("text", { x, y, "text-anchor": anchor, class: "val", "data-ch": name, "data-prefix": prefix }, parent);
}

function loopsOf(u) {
    const n = [];
    for (let k = 1; has(`u${u}.loop${k}.flow`); k++) n.push(k);
    return n;
}

/* The primary of unit u: the vessel in the middle, half the loops on each
 * side (hot leg to the steam generator, cold leg back through the pump), the
 * pressurizer on a hot leg; each loop's readouts in the outer margin so no
 * text crosses a pipe. */
function mimic(u, card) {
    const loops = loopsOf(u);
    const s = svg("svg", { viewBox: "0 0 440 236", class: "mimic", role: "img" }, card);
    svg("title", {}, s).textContent = `unit ${u} primary loop`;
    const cx = 220;
    const top = 58;
    const bottom = 178;
    const half = Math.ceil(loops.length / 2);
    loops.forEach((k, i) => {
        const left = i < half;
        const row = left ? i : i - half;
        const rows = left ? half : loops.length - half;
        const y = rows > 1 ? 62 + row * 104 : 114;
        const sgx = left ? 120 : 320;
        const dir = left ? -1 : 1;
        const vx = cx + dir * 32;
        const g = svg("g", { class: "loop", "data-loop": `u${u}.loop${k}` }, s);
        svg("path", { d: `M${vx},${top + 18 + row * 10} L${sgx - dir * 20},${y - 18}`, class: "pipe hot" }, g);
        const px = (sgx + vx) / 2;
        svg("path", { d: `M${sgx},${y + 28} L${sgx},${y + 40} L${px},${y + 40} L${vx},${bottom - 18 - row * 10}`, class: "pipe cold" }, g);
        svg("rect", { x: sgx - 20, y: y - 28, width: 40, height: 56, rx: 14, class: "sg" }, g);
        svg("text", { x: sgx, y: y + 4, "text-anchor": "middle", class: "lbl" }, g).textContent = `SG${k}`;
        svg("circle", { cx: px, cy: y + 40, r: 8, class: "pump", "data-pump": `u${u}.pump${k}` }, g);
        const tx = left ? 6 : 434;
        const anchor = left ? "start" : "end";
        svg("text", { x: tx, y: y - 22, "text-anchor": anchor, class: "lbl" }, g).textContent = `loop ${k}`;
        readout(g, tx, y - 8, `u${u}.loop${k}.t_hot`, anchor, "Th ");
        readout(g, tx, y + 6, `u${u}.loop${k}.t_cold`, anchor, "Tc ");
        readout(g, tx, y + 20, `u${u}.loop${k}.flow`, anchor, "W ");
        readout(g, tx, y + 34, `u${u}.sg${k}.heat`, anchor, "Q ");
    });
    svg("rect", { x: cx - 32, y: top, width: 64, height: bottom - top, rx: 28, class: "vessel" }, s);
    svg("rect", { x: cx - 18, y: top + 52, width: 36, height: 44, class: "core" }, s);
    readout(s, cx, top + 22, `u${u}.core.power`);
    readout(s, cx, top + 36, `u${u}.coolant.t_avg`);
    readout(s, cx, bottom + 16, `u${u}.rcs.pressure`);
    readout(s, cx, bottom + 30, `u${u}.rcs.t_avg`, "middle", "Tavg ");
    if (has(`u${u}.pzr.level`) || has(`u${u}.pzr.pressure`)) {
        svg("rect", { x: cx + 46, y: 4, width: 20, height: 40, rx: 9, class: "pzr" }, s);
        svg("path", { d: `M${cx + 56},44 L${cx + 56},52 L${cx + 32},${top + 18}`, class: "pipe surge" }, s);
        svg("text", { x: cx + 56, y: 28, "text-anchor": "middle", class: "lbl" }, s).textContent = "PZR";
        readout(s, cx + 72, 18, `u${u}.pzr.level`, "start", "L ");
        readout(s, cx + 72, 32, `u${u}.pzr.pressure`, "start", "P ");
    }
}

function buildUnits() {
    const root = $("#units");
    root.textContent = "";
    root.dataset.n = st.units.length;
    for (const u of st.units) {
        const card = el("article", { class: "unit", "data-unit": `u${u}` }, root);
        const head = el("div", { class: "unit-head" }, card);
        const b = el("button", { class: "unit-name", text: `Unit ${u}`, title: "show this unit's trends" }, head);
        b.onclick = () => selectUnit(u);
        el("span", { class: "lamp trip", "data-trip": `u${u}`, text: "TRIP", title: "reactor trip" }, head);
        el("span", { class: "val rods", "data-ch": `u${u}.rods.D.pos`, title: "bank D position" }, head);
        mimic(u, card);
        controls(u, card);
    }
    document.querySelectorAll(".unit").forEach((c) => c.classList.toggle("selected", c.dataset.unit === `u${st.sel}`));
}

function actButton(parent, label, target, command, value, title, cls = "") {
    const b = el("button", { class: `act ${cls}`, text: label, title, "data-target": target, "data-command": command }, parent);
    b.onclick = () => act(target, command, typeof value === "function" ? value() : value);
    return b;
}

function controls(u, card) {
    const c = el("div", { class: "unit-controls controls" }, card);
    const pumps = el("div", { class: "pumps" }, c);
    for (const k of loopsOf(u)) {
        if (!has(`u${u}.pump${k}.speed`)) continue;
        const g = el("span", { class: "pump-ctl" }, pumps);
        actButton(g, `P${k} trip`, `u${u}.pump${k}`, "pump_trip", 0, `trip reactor coolant pump ${k} (pump_trip)`, "danger");
        actButton(g, "start", `u${u}.pump${k}`, "pump_start", 0, `start pump ${k} at rated speed (pump_start)`);
    }
    const rods = el("div", { class: "rods-ctl" }, c);
    const rod = () => value(`u${u}.rods.D.pos`) ?? 0;
    actButton(rods, "D −", `u${u}.D`, "rod_position", () => Math.max(0, rod() - 0.05), "insert bank D by 5 % (rod_position)");
    actButton(rods, "D +", `u${u}.D`, "rod_position", () => Math.min(1, rod() + 0.05), "withdraw bank D by 5 % (rod_position)");
    actButton(rods, "SCRAM", `u${u}`, "scram", 0, "manual reactor trip (scram)", "danger");
    actButton(rods, "Reset", `u${u}`, "trip_reset", 0, "reset the reactor trip (trip_reset)");
}

function act(target, command, v) {
    if (st.readOnly) return;
    send({ type: "act", id: st.nextId++, target, command, value: v });
}

function selectUnit(u) {
    st.sel = u;
    $("#trend-unit").textContent = `u${u}`;
    document.querySelectorAll(".unit").forEach((c) => c.classList.toggle("selected", c.dataset.unit === `u${u}`));
    subscribe(); /* near/far priorities follow the selected unit */
    buildCharts();
}

/* ---- Annunciator --------------------------------------------------------- */

function alarmLabel(name) {
    const m = /^u(\d+)\.alarm\.(.+)$/.exec(name);
    const words = m[2]
        .split(/[._]/)
        .map((w) => ({ high: "HI", low: "LO", pressure: "PRESS", t: "T" })[w] ?? w.toUpperCase());
    // flow_low.2 -> "LOOP 2 FLOW LO"
    const last = words[words.length - 1];
    if (/^\d+$/.test(last)) words.unshift("LOOP", words.pop());
    return `U${m[1]} ${words.join(" ")}`;
}

function buildAlarms() {
    const root = $("#alarms");
    root.textContent = "";
    const names = [...st.names].filter((n) => /^u\d+\.alarm\.[^]+$/.test(n) && !n.endsWith(".flags"));
    for (const name of names) {
        const t = el("button", { class: "tile st-normal", "data-alarm": name, "data-state": "0", title: name }, root);
        t.textContent = alarmLabel(name);
        t.onclick = () => {
            st.selectedAlarm = name;
            document.querySelectorAll(".tile.sel").forEach((x) => x.classList.remove("sel"));
            t.classList.add("sel");
        };
    }
    $("#ack").onclick = () => {
        const a = st.selectedAlarm ?? firstUnacked();
        if (a) act(a, "alarm_ack", 0);
    };
    $("#shelve").onclick = () => st.selectedAlarm && act(st.selectedAlarm, "alarm_shelve", 600);
    $("#ack-all").onclick = () => act(`u${st.sel}`, "alarm_ack_all", 0);
}

function firstUnacked() {
    const t = $('#alarms .tile[data-state="1"], #alarms .tile[data-state="3"]');
    return t ? t.dataset.alarm : null;
}

/* ---- Trends -------------------------------------------------------------- */

const CHARTS = [
    ["Power", "MW", [/^u#\.core\.power$/]],
    ["Pressure", "MPa", [/^u#\.rcs\.pressure$/, /^u#\.pzr\.pressure$/]],
    ["Temperatures", "°C", [/^u#\.coolant\.t_avg$/, /^u#\.core\.t_inlet$/, /^u#\.coolant\.t_out$/]],
    ["Level", "%", [/^u#\.pzr\.level$/]],
    ["Flows", "kg/s", [/^u#\.loop\d+\.flow$/]],
];
const COLORS = ["#4fc3f7", "#ffb74d", "#81c784", "#e57373", "#ba68c8", "#fff176"];

function buildCharts() {
    const root = $("#charts");
    root.textContent = "";
    st.charts = [];
    if (!st.hello || typeof uPlot === "undefined") return;
    const width = Math.max(200, root.clientWidth - 4);
    for (const [title, unit, pats] of CHARTS) {
        const names = [...st.rec.keys()].filter((n) => pats.some((p) => new RegExp(p.source.replace("#", st.sel)).test(n)));
        if (!names.length) continue;
        const box = el("div", { class: "chart", "data-chart": title }, root);
        const opts = {
            title: `${title} (${unit})`,
            width,
            height: 110,
            legend: { show: names.length > 1 },
            scales: { x: { time: false } },
            axes: [
                { stroke: "#aab", grid: { stroke: "#2a3040" }, size: 24 },
                { stroke: "#aab", grid: { stroke: "#2a3040" }, size: 52 },
            ],
            series: [{ label: "t (s)" }, ...names.map((n, i) => ({ label: n.replace(/^u\d+\./, ""), stroke: COLORS[i % COLORS.length], width: 1.5 }))],
        };
        st.charts.push({ names, plot: new uPlot(opts, [[], ...names.map(() => [])], box) });
    }
    drawCharts();
}

function drawCharts() {
    if (!st.charts.length) return;
    const win = Number($("#window").value);
    const t = st.recT;
    const tmax = t.length ? t[t.length - 1] : 0;
    let i0 = 0;
    while (i0 < t.length && t[i0] < tmax - win) i0++;
    const xs = t.slice(i0);
    for (const c of st.charts) {
        c.plot.setData([xs, ...c.names.map((n) => st.recV.get(n).slice(i0))], false);
        c.plot.setScale("x", { min: Math.max(0, tmax - win), max: Math.max(tmax, win) });
    }
}

/* ---- Events -------------------------------------------------------------- */

function logEvent(text, cls) {
    const log = $("#event-log");
    const li = el("li", { class: cls, text });
    log.prepend(li);
    while (log.children.length > 200) log.lastChild.remove();
}

/* ---- Rendering ----------------------------------------------------------- */

function render() {
    if (!st.dirty || !st.hello) return;
    st.dirty = false;
    for (const e of document.querySelectorAll("[data-ch]")) {
        const name = e.dataset.ch;
        const v = value(name);
        const unit = unitOf(name);
        const [txt, u] = fmt(v, unit, name);
        const label = e.dataset.prefix ?? (e.classList.contains("rods") ? "D " : "");
        e.textContent = `${label}${txt}${u ? " " + u : ""}`;
        e.setAttribute("title", `${name} = ${v === undefined ? "–" : v} ${unit || "(dimensionless)"}`);
    }
    for (const t of document.querySelectorAll("#alarms .tile")) {
        const s = value(t.dataset.alarm);
        const flags = value(`${t.dataset.alarm}.flags`) ?? 0;
        if (s === undefined || Number.isNaN(s)) continue;
        t.dataset.state = String(s);
        t.dataset.firstOut = flags & 2 ? "1" : "0";
        t.className = `tile st-${ALARM_STATES[s] ?? "normal"} prio-${(flags >> 8) & 7}${flags & 2 ? " first-out" : ""}${st.selectedAlarm === t.dataset.alarm ? " sel" : ""}`;
        t.title = `${t.dataset.alarm}: ${ALARM_STATES[s]}${flags & 2 ? ", first out" : ""}, priority ${(flags >> 8) & 7}`;
    }
    for (const u of st.units) {
        const trip = (value(`u${u}.core.trip`) || 0) + (value(`u${u}.rps.trip`) || 0) > 0;
        const lamp = $(`[data-trip="u${u}"]`);
        if (lamp) lamp.classList.toggle("on", trip);
        for (const k of loopsOf(u)) {
            const p = $(`[data-pump="u${u}.pump${k}"]`);
            const speed = value(`u${u}.pump${k}.speed`);
            if (p && speed !== undefined) {
                p.classList.toggle("running", speed > 50);
                p.innerHTML = "";
                svg("title", {}, p).textContent = `pump ${k}: ${fmt(speed, "rad/s")[0]} rpm (${speed.toFixed(1)} rad/s)`;
            }
        }
    }
    const tick = st.dec.tick;
    const ts = $("#st-time");
    ts.textContent = `t = ${st.dec.timeOf(tick).toFixed(1)} s`;
    ts.title = `simulated time; tick ${tick}`;
    if (st.dec.synced) document.body.dataset.live = "1";
}

setInterval(render, 200);
$("#window").onchange = drawCharts;
new ResizeObserver(() => {
    const w = Math.max(200, $("#charts").clientWidth - 4);
    for (const c of st.charts) c.plot.setSize({ width: w, height: 110 });
}).observe($("#charts"));
connect();
