// Decodes a stream recorded by tests/sync_js/record.c with web/sync.js and
// prints the same lines the C decoder's side printed (see record.c), so a
// plain diff shows any value, tick, point or refusal on which the two differ.
// Usage: node tests/sync_js/check.mjs STREAM > JS_OUT
import { readFileSync } from "node:fs";
import { SyncDecoder, SyncError, MsgType, RateClass } from "../../web/sync.js";

const scratch = new DataView(new ArrayBuffer(8));

const fnvWord = (h, w) => Math.imul(h ^ w, 16777619) >>> 0;
const bitsOf = (v) => {
    if (Number.isNaN(v)) return [0, 0x7ff80000];
    scratch.setFloat64(0, v, true);
    return [scratch.getUint32(0, true), scratch.getUint32(4, true)];
};
const fnvDouble = (h, v) => {
    const [lo, hi] = bitsOf(v);
    return fnvWord(fnvWord(h, lo), hi);
};
const hex8 = (h) => h.toString(16).padStart(8, "0");

/* The line record.c prints for message i of stream id. */
function line(d, id, i, msg) {
    let info;
    try {
        info = d.decode(msg);
    } catch (e) {
        if (!(e instanceof SyncError)) throw e;
        return `${id} ${i} refused`;
    }
    let h = 2166136261;
    for (let k = 0; k < d.slots.length; k++) {
        h = fnvDouble(h, d.values[k]);
        const t = d.valueTicks[k];
        h = fnvWord(fnvWord(h, t % 2 ** 32), Math.floor(t / 2 ** 32));
    }
    let out = `${id} ${i} ok ${info.type} ${info.tick} ${info.nValues} ${hex8(h)}`;
    if (info.type === MsgType.RECORDER) {
        let ph = 2166136261;
        for (let k = 0; k < d.slots.length; k++) {
            if (d.slots[k].rateClass !== RateClass.RECORDER) continue;
            for (let q = 0; q < info.nPoints; q++) {
                const pt = d.point(k, q);
                ph = fnvWord(fnvDouble(ph, pt.value), pt.tick % 2 ** 32);
            }
        }
        out += ` ${info.firstSample} ${info.nPoints} ${info.lost} ${hex8(ph)}`;
    }
    return out;
}

function finalLine(d, id) {
    const words = [];
    for (const v of d.values) {
        const [lo, hi] = bitsOf(v);
        words.push(hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0"));
    }
    return `${id} final${words.length ? " " : ""}${words.join(" ")}`;
}

// Replay mode (node check.mjs --replay FILE...): each file a session in
// fuzz_sync_decode's format, as record.c --replay reads it.
if (process.argv[2] === "--replay") {
    const out = [];
    process.argv.slice(3).forEach((file, id) => {
        const buf = readFileSync(file);
        const b = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        const d = new SyncDecoder();
        let i = 0;
        for (let p = 0; p + 2 <= b.length; ) {
            const want = b[p] | (b[p + 1] << 8);
            p += 2;
            const len = Math.min(want, b.length - p);
            out.push(line(d, id, i++, b.slice(p, p + len)));
            p += len;
        }
        out.push(finalLine(d, id));
    });
    process.stdout.write(out.join("\n") + "\n");
    process.exit(0);
}

const data = readFileSync(process.argv[2]);
const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
const dec = [new SyncDecoder(), new SyncDecoder()];
const index = [0, 0];
const lines = [];
let p = 0;
while (p < bytes.length) {
    const id = bytes[p];
    const len = bytes[p + 1] | (bytes[p + 2] << 8) | (bytes[p + 3] << 16) | (bytes[p + 4] * 2 ** 24);
    const msg = bytes.subarray(p + 5, p + 5 + len);
    p += 5 + len;
    lines.push(line(dec[id], id, index[id]++, msg));
}
for (let id = 0; id < 2; id++) lines.push(finalLine(dec[id], id));
process.stdout.write(lines.join("\n") + "\n");
