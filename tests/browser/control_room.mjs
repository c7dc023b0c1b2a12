/**
 * The control room in a real browser (make browser-test, part of make test):
 * Debian's chromium, headless, driven by playwright-core (pinned in
 * package-lock.json) against a running `pcsim serve --http`.
 *
 * It opens the page, waits for live values, clicks a pump trip, sees the
 * low-flow alarm come in flashing (UNACK) and the unit's reactor trip lamp,
 * acknowledges the alarm and sees it steady (ACKED), checks the layout at
 * 1366x768 and 1920x1080 (no horizontal scroll, no overlap of the mimics,
 * the annunciator and the controls), and saves a screenshot. Assertions are
 * on the page's state (DOM attributes and text), never on pixels.
 *
 * The servers run at SPEED times real time (--speed): the trip's transient
 * (pump 2 coasting down below 50 rad/s takes some 15 simulated seconds) and
 * the recorder's 5 s batches then take a fifth of the wall time. The
 * read-only server starts with the first one, so its station build overlaps
 * the browser's launch.
 *
 * Usage: node control_room.mjs PCSIM [SCREENSHOT.png] [--read-only-check]
 * Environment: CHROMIUM (default /usr/bin/chromium).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const pcsim = process.argv[2];
const shot = process.argv[3] || join(tmpdir(), "control-room.png");
if (!pcsim) {
    console.error("usage: node control_room.mjs PCSIM [SCREENSHOT.png]");
    process.exit(2);
}
// Simulated seconds per wall second of both servers (serve --speed), and the
// recorder's batch period (PCS_SYNC_RECORDER_BATCH_S, include/pcsim/sync.h).
const SPEED = 5;
const RECORDER_BATCH_S = 5;
const t0 = Date.now();
const dir = mkdtempSync(join(tmpdir(), "pcsim-browser-"));
let server;
let roServer; // the read-only one: a promise of it until its step
let browser;
let failed = 0;
let passed = 0;

function check(cond, what) {
    if (!cond) throw new Error(`check failed: ${what}`);
}

async function step(name, fn) {
    const s = Date.now();
    try {
        await fn();
        passed++;
        console.log(`ok   ${name} (${((Date.now() - s) / 1000).toFixed(1)} s)`);
    } catch (e) {
        failed++;
        console.log(`FAIL ${name}: ${e.message}`);
        throw e;
    }
}

function startServer(args) {
    const portFile = join(dir, `http-${args.length}.port`);
    const p = spawn(pcsim, ["serve", "--http", "0", "--http-port-file", portFile, "--speed", String(SPEED), "--quiet", ...args], {
        stdio: ["ignore", "inherit", "inherit"],
    });
    return new Promise((resolve, reject) => {
        const until = Date.now() + 60000; // the station build (property tables, each primary settling) first
        const poll = () => {
            if (existsSync(portFile) && readFileSync(portFile, "utf8").endsWith("\n"))
                return resolve({ proc: p, port: Number(readFileSync(portFile, "utf8")) });
            if (p.exitCode !== null || Date.now() > until) {
                p.kill("SIGKILL");
                return reject(new Error(`server did not start (pcsim serve ${args.join(" ")})`));
            }
            setTimeout(poll, 20);
        };
        poll();
    });
}

function stopServer(s) {
    return new Promise((resolve, reject) => {
        s.proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`server exit ${code}`))));
        s.proc.kill("SIGTERM");
    });
}

/* Layout facts at the current viewport: horizontal overflow and overlaps. */
async function layout(page) {
    return page.evaluate(() => {
        const r = (e) => e.getBoundingClientRect();
        const boxes = [
            ...[...document.querySelectorAll(".unit svg.mimic")].map((e) => ["mimic " + e.closest(".unit").dataset.unit, r(e)]),
            ...[...document.querySelectorAll(".unit-controls")].map((e) => ["controls " + e.closest(".unit").dataset.unit, r(e)]),
            ["annunciator", r(document.querySelector("#annunciator"))],
            ["trends", r(document.querySelector("#trends"))],
        ];
        const overlaps = [];
        for (let i = 0; i < boxes.length; i++)
            for (let j = i + 1; j < boxes.length; j++) {
                const [a, A] = boxes[i];
                const [b, B] = boxes[j];
                const w = Math.min(A.right, B.right) - Math.max(A.left, B.left);
                const h = Math.min(A.bottom, B.bottom) - Math.max(A.top, B.top);
                if (w > 0.5 && h > 0.5) overlaps.push(`${a} / ${b}`);
            }
        // Anything whose right edge is past the window's (overflow clipped by
        // a style would hide a scroll bar, not the problem).
        const wide = [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
            .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className?.baseVal ?? e.className ? "." + (e.className?.baseVal ?? e.className) : ""));
        return {
            wide: wide.slice(0, 5),
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
            overlaps,
            empty: boxes.filter(([, B]) => B.width < 10 || B.height < 10).map(([n]) => n),
        };
    });
}

async function main() {
    roServer = startServer(["--read-only"]);
    roServer.catch(() => {}); // its step reports a failed start
    server = await startServer([]);
    // A fresh profile directory per run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(join(dir, "profile"), {
        executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
        headless: true,
        viewport: { width: 1366, height: 768 },
        args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    const url = `http://127.0.0.1:${server.port}/`;

    await step("page loads and shows live values", async () => {
        await page.goto(url);
        await page.waitForSelector('body[data-live="1"]', { timeout: 15000 });
        await page.waitForFunction(() => /^\d+ MW$/.test(document.querySelector('[data-ch="u1.core.power"]')?.textContent ?? ""), null, { timeout: 10000 });
        const power = await page.textContent('[data-ch="u1.core.power"]');
        const mw = Number(power.split(" ")[0]);
        check(mw > 2000 && mw < 5000, `u1 power ${power} (a 3.4 GW unit)`);
        const title = await page.getAttribute('[data-ch="u1.core.power"]', "title");
        check(/u1\.core\.power = \d+(\.\d+)?(e\+\d+)? W/.test(title), `SI title: ${title}`);
        const pressure = await page.textContent('[data-ch="u1.rcs.pressure"]');
        check(/^1\d\.\d\d MPa$/.test(pressure), `u1 pressure ${pressure}`);
        const tiles = await page.$$eval("[data-alarm]", (ts) => ts.length);
        check(tiles >= 4, `${tiles} annunciator tiles`);
        check(await page.$eval('[data-alarm="u1.alarm.flow_low.2"]', (t) => t.dataset.state) === "0", "flow_low.2 normal before the trip");
        check(!(await page.$eval('[data-trip="u1"]', (l) => l.classList.contains("on"))), "no trip before");
    });

    await step("pump trip: low-flow alarm flashes, reactor trips", async () => {
        await page.click('button[data-target="u1.pump2"][data-command="pump_trip"]');
        await page.waitForSelector('[data-alarm="u1.alarm.flow_low.2"][data-state="1"]', { timeout: 20000 });
        const anim = await page.$eval('[data-alarm="u1.alarm.flow_low.2"]', (t) => [t.className, getComputedStyle(t).animationName]);
        check(anim[0].includes("st-unack") && anim[1] === "flash", `flashing unacknowledged: ${anim}`);
        await page.waitForSelector('[data-trip="u1"].on', { timeout: 20000 });
        await page.waitForFunction(() => [...document.querySelectorAll("#event-log li")].some((li) => /pump2/i.test(li.textContent)), null, { timeout: 10000 });
        const pump = await page.$eval('[data-pump="u1.pump2"]', (p) => p.classList.contains("running"));
        await page.waitForFunction(() => !document.querySelector('[data-pump="u1.pump2"]').classList.contains("running"), null, { timeout: 20000 });
        void pump;
    });

    await step("acknowledge: the alarm stops flashing", async () => {
        await page.click('[data-alarm="u1.alarm.flow_low.2"]');
        await page.click("#ack");
        await page.waitForFunction(() => {
            const s = document.querySelector('[data-alarm="u1.alarm.flow_low.2"]').dataset.state;
            return s === "2" || s === "0" || s === "5"; // acked, or back to normal / suppressed after the trip
        }, null, { timeout: 10000 });
        const anim = await page.$eval('[data-alarm="u1.alarm.flow_low.2"]', (t) => getComputedStyle(t).animationName);
        check(anim === "none", `no flashing after acknowledge (${anim})`);
    });

    await step("layout at 1366x768 and 1920x1080: no horizontal scroll, no overlap", async () => {
        for (const [w, h] of [[1366, 768], [1920, 1080]]) {
            await page.setViewportSize({ width: w, height: h });
            await page.waitForTimeout(300);
            const l = await layout(page);
            check(l.scrollWidth <= l.clientWidth, `${w}x${h}: scrollWidth ${l.scrollWidth} > ${l.clientWidth}`);
            check(l.wide.length === 0, `${w}x${h}: past the right edge: ${l.wide.join(", ")}`);
            check(l.overlaps.length === 0, `${w}x${h}: overlaps ${l.overlaps.join(", ")}`);
            check(l.empty.length === 0, `${w}x${h}: collapsed ${l.empty.join(", ")}`);
        }
        await page.setViewportSize({ width: 1366, height: 768 });
    });

    await step("trend charts drew the transient; screenshot", async () => {
        await page.waitForFunction(() => document.querySelectorAll("#charts .uplot").length >= 3, null, { timeout: 10000 });
        await page.waitForTimeout((RECORDER_BATCH_S / SPEED + 0.5) * 1000); // one recorder batch after the trip
        await page.screenshot({ path: shot, fullPage: true });
        console.log(`     screenshot: ${shot}`);
        check(errors.length === 0, `page errors: ${errors.join("; ")}`);
    });

    await page.close();
    await stopServer(server);
    server = null;

    await step("read-only server: no controls, acts refused", async () => {
        server = await roServer;
        roServer = null;
        const p2 = await browser.newPage();
        await p2.goto(`http://127.0.0.1:${server.port}/`);
        await p2.waitForSelector('body[data-live="1"]', { timeout: 15000 });
        check(await p2.$eval("body", (b) => b.classList.contains("read-only")), "body.read-only");
        check(!(await p2.isVisible('button[data-command="pump_trip"]')), "pump trip hidden");
        const reply = await p2.evaluate(
            () =>
                new Promise((resolve) => {
                    const tok = document.querySelector('meta[name="pcsim-token"]').content;
                    const ws = new WebSocket(`ws://${location.host}/ws?token=${tok}`, "pcsim.v1");
                    ws.onmessage = (e) => {
                        if (typeof e.data !== "string") return;
                        const m = JSON.parse(e.data);
                        if (m.type === "hello") ws.send(JSON.stringify({ type: "act", id: 1, target: "u1", command: "scram" }));
                        if (m.type === "error" || m.type === "act") resolve(m);
                    };
                }),
        );
        check(reply.type === "error" && reply.code === "read_only", `read-only act: ${JSON.stringify(reply)}`);
        await p2.close();
        await stopServer(server);
        server = null;
    });
}

try {
    await main();
} catch (e) {
    if (!failed) {
        failed++;
        console.log(`FAIL ${e.stack || e}`);
    }
} finally {
    if (browser) await browser.close();
    if (server) server.proc.kill("SIGKILL");
    if (roServer) await roServer.then((s) => s.proc.kill("SIGKILL"), () => {});
    rmSync(dir, { recursive: true, force: true });
}
console.log(`browser: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
