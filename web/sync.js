/**
 * @file sync.js
 * @brief The delta-sync decoder for browsers and node: a plain ES module,
 *        no dependencies. Decodes the messages of docs/sync.md exactly as
 *        the C decoder (sync/decode.c) does: the same checks in the same
 *        order, so both accept and refuse the same messages, and the same
 *        doubles (a value is the product q * quantum of an exact integer q
 *        below 2^50 and the slot's quantum; JavaScript numbers are IEEE
 *        doubles, so the product is the C product bit for bit).
 *
 *     import { SyncDecoder, SyncError } from "./sync.js";
 *     const dec = new SyncDecoder();
 *     ws.binaryType = "arraybuffer";
 *     ws.onmessage = (e) => {
 *         try {
 *             const info = dec.decode(new Uint8Array(e.data));
 *             // dec.slots[i].name, dec.values[i], dec.valueTicks[i], dec.tick,
 *             // info.changed (slot indices), dec.point(slot, k) for RECORDER
 *         } catch (err) {
 *             if (!(err instanceof SyncError)) throw err;
 *             // ask the server for a keyframe; deltas are refused until one comes
 *         }
 *     };
 *
 * Varints are read with multiplications, never 32-bit bit operations, so
 * every value below 2^53 is exact; larger ones are refused, as in C.
 */

export const SYNC_VERSION = 1;
export const MESSAGE_MAX = 131072;
export const SLOTS_MAX = 1024;
export const RECORDERS_MAX = 64;
export const RECORDER_CHUNK = 128;
export const NAME_MAX = 255;
export const PRIORITY_MAX = 2;

/** Message types (low nibble of byte 0). */
export const MsgType = Object.freeze({ LAYOUT: 1, KEYFRAME: 2, DELTA: 3, RECORDER: 4 });
/** Rate classes of a slot. */
export const RateClass = Object.freeze({
    GAUGE: 0,
    DISPLAY: 1,
    RECORDER: 2,
    EVENT: 3,
    ACOUSTIC: 4,
    PLAYER: 5,
});
const CLASS_COUNT = 6;
const TYPE_NAMES = ["?", "LAYOUT", "KEYFRAME", "DELTA", "RECORDER"];
const LIMIT_53 = 2 ** 53;
const Q_LIMIT = 2 ** 50;

/** A refused message: `status` is "overflow", "version" or "corrupt", `offset` the byte. */
export class SyncError extends Error {
    constructor(status, message, offset) {
        super(message);
        this.name = "SyncError";
        this.status = status;
        this.offset = offset;
    }
}

/* A refusal inside a parse: the reason; the decoder adds type and offset. */
class Refuse {
    constructor(why, status = "corrupt") {
        this.why = why;
        this.status = status;
    }
}

/* The bounded cursor of sync/wire.h. */
class Cursor {
    constructor(bytes) {
        this.b = bytes;
        this.p = 0;
        this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    varint() {
        let v = 0;
        let mul = 1;
        for (let i = 0; i < 8; i++) {
            if (this.p >= this.b.length) throw new Refuse("truncated varint");
            const byte = this.b[this.p++];
            v += (byte & 0x7f) * mul;
            mul *= 128;
            if ((byte & 0x80) === 0) {
                if (i > 0 && byte === 0) throw new Refuse("varint not minimal");
                if (v >= LIMIT_53) throw new Refuse("varint above 2^53");
                return v;
            }
        }
        throw new Refuse("varint longer than 8 bytes");
    }
    u8() {
        if (this.p >= this.b.length) throw new Refuse("truncated byte");
        return this.b[this.p++];
    }
    need8() {
        if (this.b.length - this.p < 8) throw new Refuse("truncated 8-byte field");
    }
    u64() {
        this.need8();
        const v = this.view.getBigUint64(this.p, true);
        this.p += 8;
        return v;
    }
    f64() {
        this.need8();
        const v = this.view.getFloat64(this.p, true);
        this.p += 8;
        return v;
    }
    /* One val: {raw: true, d} or {raw: false, k}. */
    val() {
        const v = this.varint();
        if (v % 2 === 1) {
            if (v !== 1) throw new Refuse("odd val other than the escape 1");
            return { raw: true, k: 0, d: this.f64() };
        }
        const z = v / 2;
        const k = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
        return { raw: false, k, d: 0 };
    }
}

const utf8 = new TextDecoder("utf-8");

/** Decoder of one sync session (see the file comment). */
export class SyncDecoder {
    /** @param {{maxSlots?: number, maxRecorders?: number}} limits 0 or absent: the maximum */
    constructor(limits = {}) {
        this.maxSlots = limits.maxSlots || SLOTS_MAX;
        this.maxRecorders = limits.maxRecorders || RECORDERS_MAX;
        if (this.maxSlots > SLOTS_MAX || this.maxRecorders > RECORDERS_MAX)
            throw new RangeError("SyncDecoder: limits above the maximum");
        /** Slots of the layout: {channel, rateClass, priority, quantum, name, unit}. */
        this.slots = [];
        /** Value of each slot (NaN before its first). */
        this.values = new Float64Array(0);
        /** Tick of the message that last wrote each slot. */
        this.valueTicks = [];
        /** RECORDER slot indices, in slot order. */
        this.recorderSlots = [];
        this.dtS = 0;
        this.layoutVersion = 0n;
        this.tick = 0;
        this.q = [];
        this.pointTicks = [];
        this.pointValues = []; /* [recorder index][point] */
        this.haveLayout = false;
        this.synced = false;
        this.haveSample = false;
        this.nextSeq = 0;
        this.nextSample = 0;
    }

    /** Simulated seconds of tick @p tick (the end of that tick). */
    timeOf(tick) {
        return (tick + 1) * this.dtS;
    }

    /** Point @p i of RECORDER slot @p slot from the last RECORDER message. */
    point(slot, i) {
        const s = this.slots[slot];
        if (!s || s.rateClass !== RateClass.RECORDER || i >= this.pointTicks.length)
            return undefined;
        return { tick: this.pointTicks[i], value: this.pointValues[s.rec][i] };
    }

    /**
     * Decode and apply one message (all or nothing).
     * @param {Uint8Array} bytes
     * @returns {{type:number, tick:number, nValues:number, changed:number[],
     *            nPoints:number, firstSample:number, lost:number}}
     * @throws {SyncError} for a refused message; the decoder then takes only a
     *         KEYFRAME or a LAYOUT.
     */
    decode(bytes) {
        if (!(bytes instanceof Uint8Array)) bytes = new Uint8Array(bytes);
        const len = bytes.length;
        if (len === 0 || len > MESSAGE_MAX) {
            this.synced = false;
            throw new SyncError(
                "overflow",
                `sync decode: message of ${len} bytes, allowed [1, ${MESSAGE_MAX}]`,
                0,
            );
        }
        if (bytes[0] >> 4 !== SYNC_VERSION) {
            this.synced = false;
            throw new SyncError(
                "version",
                `sync decode: byte 0: version ${bytes[0] >> 4}, this decoder reads ${SYNC_VERSION}`,
                0,
            );
        }
        const type = bytes[0] & 0x0f;
        const c = new Cursor(bytes);
        c.p = 1;
        const info = { type, tick: 0, nValues: 0, changed: [], nPoints: 0, firstSample: 0, lost: 0 };
        let staged;
        try {
            const seq = c.u8();
            staged = this.#parseBody(c, type, seq, info);
            if (c.p !== len) throw new Refuse(`${len - c.p} trailing bytes`);
            staged.seq = seq;
        } catch (e) {
            if (!(e instanceof Refuse)) throw e;
            this.synced = false;
            this.pointTicks = [];
            const name = type < 5 ? TYPE_NAMES[type] : "message";
            throw new SyncError(
                e.status,
                `sync decode: ${name} (${len} bytes): byte ${c.p}: ${e.why}`,
                c.p,
            );
        }
        this.#apply(type, staged, info);
        return info;
    }

    #parseBody(c, type, seq, info) {
        if (type < MsgType.LAYOUT || type > MsgType.RECORDER)
            throw new Refuse(`unknown message type ${type}, allowed [1, 4]`);
        if (type === MsgType.LAYOUT) return this.#parseLayout(c, seq, info);
        if (!this.haveLayout) throw new Refuse("no LAYOUT received yet");
        if (type !== MsgType.KEYFRAME && !this.synced)
            throw new Refuse("no KEYFRAME since the LAYOUT or the last refused message");
        if (this.synced && seq !== this.nextSeq)
            throw new Refuse(
                `sequence ${seq}, expected ${this.nextSeq} (a message was lost or reordered)`,
            );
        if (type === MsgType.KEYFRAME) return this.#parseKeyframe(c, info);
        if (type === MsgType.DELTA) return this.#parseDelta(c, info);
        return this.#parseRecorder(c, info);
    }

    #text(c, what) {
        const n = c.varint();
        if (n > NAME_MAX) throw new Refuse(`${what} length ${n}, allowed [0, ${NAME_MAX}]`);
        if (c.b.length - c.p < n) throw new Refuse(`truncated ${what}`);
        const raw = c.b.subarray(c.p, c.p + n);
        if (raw.includes(0)) throw new Refuse(`${what} holds a NUL byte`);
        c.p += n;
        return utf8.decode(raw);
    }

    #parseLayout(c, seq, info) {
        if (seq !== 0) throw new Refuse(`sequence ${seq}, a LAYOUT starts at 0`);
        info.tick = c.varint();
        const dt = c.f64();
        if (!(Number.isFinite(dt) && dt > 0)) throw new Refuse(`dt_s ${dt}, allowed finite > 0`);
        const version = c.u64();
        const n = c.varint();
        if (n === 0 || n > this.maxSlots)
            throw new Refuse(
                `${n} slots, allowed [1, ${this.maxSlots}]`,
                n ? "overflow" : "corrupt",
            );
        const slots = [];
        const rec = [];
        for (let i = 0; i < n; i++) {
            const ch = c.varint();
            if (ch > 0xffffffff) throw new Refuse(`slot ${i}: channel ${ch}, allowed [0, 2^32)`);
            const cls = c.u8();
            if (cls >= CLASS_COUNT)
                throw new Refuse(`slot ${i}: class ${cls}, allowed [0, ${CLASS_COUNT - 1}]`);
            const prio = c.u8();
            if (prio > PRIORITY_MAX)
                throw new Refuse(`slot ${i}: priority ${prio}, allowed [0, ${PRIORITY_MAX}]`);
            const quantum = c.f64();
            if (!(Number.isFinite(quantum) && quantum >= 0))
                throw new Refuse(`slot ${i}: quantum ${quantum}, allowed finite >= 0`);
            const name = this.#text(c, "name");
            const unit = this.#text(c, "unit");
            const s = { channel: ch, rateClass: cls, priority: prio, quantum, name, unit, rec: -1 };
            if (cls === RateClass.RECORDER) {
                if (rec.length >= this.maxRecorders)
                    throw new Refuse(`slot ${i}: more than ${this.maxRecorders} RECORDER slots`);
                s.rec = rec.length;
                rec.push(i);
            }
            slots.push(s);
        }
        return { layout: { slots, rec, dt, version } };
    }

    /* One val of slot i from reference q0: [q, value]. */
    #slotVal(c, s, i, q0) {
        const v = c.val();
        if (v.raw) return [0, v.d];
        if (s.quantum === 0) throw new Refuse(`slot ${i}: a quantised value for a slot of quantum 0`);
        const q = q0 + v.k;
        if (!(q > -Q_LIMIT && q < Q_LIMIT))
            throw new Refuse(`slot ${i}: quantised value ${q}, allowed (-2^50, 2^50)`);
        return [q, q * s.quantum];
    }

    #tick(c, absolute) {
        const v = c.varint();
        if (absolute) {
            if (v < this.tick) throw new Refuse(`tick ${v} goes back from ${this.tick}`);
            return v;
        }
        if (this.tick + v >= LIMIT_53) throw new Refuse(`tick ${this.tick} + ${v} reaches 2^53`);
        return this.tick + v;
    }

    #parseKeyframe(c, info) {
        info.tick = this.#tick(c, true);
        const stage = [];
        for (let i = 0; i < this.slots.length; i++) {
            const [q, v] = this.#slotVal(c, this.slots[i], i, 0);
            stage.push([i, q, v]);
        }
        return { stage };
    }

    #parseDelta(c, info) {
        info.tick = this.#tick(c, false);
        const n = c.varint();
        const ns = this.slots.length;
        if (n > ns) throw new Refuse(`${n} entries, allowed [0, ${ns}]`);
        const stage = [];
        let next = 0;
        for (let e = 0; e < n; e++) {
            const gap = c.varint();
            if (gap >= ns - next)
                throw new Refuse(`entry ${e}: slot ${next + gap}, allowed [${next}, ${ns})`);
            const i = next + gap;
            const s = this.slots[i];
            if (s.rateClass === RateClass.RECORDER)
                throw new Refuse(`entry ${e}: slot ${i} is a RECORDER slot`);
            const [q, v] = this.#slotVal(c, s, i, this.q[i]);
            stage.push([i, q, v]);
            next = i + 1;
        }
        return { stage };
    }

    #parseRecorder(c, info) {
        if (this.recorderSlots.length === 0) throw new Refuse("the layout has no RECORDER slot");
        info.tick = this.#tick(c, false);
        const first = c.varint();
        if (this.haveSample && first < this.nextSample)
            throw new Refuse(`first sample ${first}, allowed >= ${this.nextSample}`);
        const n = c.varint();
        if (n === 0 || n > RECORDER_CHUNK)
            throw new Refuse(`${n} points, allowed [1, ${RECORDER_CHUNK}]`);
        const ticks = [];
        let t = c.varint();
        if (t > info.tick)
            throw new Refuse(`first point's tick ${t} after the message's tick ${info.tick}`);
        ticks.push(t);
        for (let k = 1; k < n; k++) {
            const dt = c.varint();
            if (dt === 0 || dt > info.tick - t)
                throw new Refuse(`point ${k}: tick step ${dt}, allowed [1, ${info.tick - t}]`);
            t += dt;
            ticks.push(t);
        }
        const stage = [];
        const values = [];
        for (let j = 0; j < this.recorderSlots.length; j++) {
            const i = this.recorderSlots[j];
            const s = this.slots[i];
            let q = this.q[i];
            let v = this.values[i];
            const pts = new Float64Array(n);
            for (let k = 0; k < n; k++) {
                [q, v] = this.#slotVal(c, s, i, q);
                pts[k] = v;
            }
            values.push(pts);
            stage.push([i, q, v]);
        }
        info.firstSample = first;
        info.nPoints = n;
        info.lost = this.haveSample ? first - this.nextSample : 0;
        return { stage, ticks, values };
    }

    #apply(type, staged, info) {
        if (type === MsgType.LAYOUT) {
            const L = staged.layout;
            this.slots = L.slots;
            this.recorderSlots = L.rec;
            this.dtS = L.dt;
            this.layoutVersion = L.version;
            this.values = new Float64Array(L.slots.length).fill(NaN);
            this.valueTicks = new Array(L.slots.length).fill(0);
            this.q = new Array(L.slots.length).fill(0);
            this.haveLayout = true;
            this.synced = false;
            this.haveSample = false;
            this.pointTicks = [];
            this.pointValues = [];
            this.tick = info.tick;
        } else {
            const recorder = type === MsgType.RECORDER;
            const at = recorder ? staged.ticks[staged.ticks.length - 1] : info.tick;
            for (const [i, q, v] of staged.stage) {
                this.q[i] = q;
                this.values[i] = v;
                this.valueTicks[i] = at;
                info.changed.push(i);
            }
            info.nValues = recorder ? 0 : staged.stage.length;
            this.tick = info.tick;
            if (type === MsgType.KEYFRAME) this.synced = true;
            if (recorder) {
                this.pointTicks = staged.ticks;
                this.pointValues = staged.values;
                this.nextSample = info.firstSample + info.nPoints;
                this.haveSample = true;
            } else {
                this.pointTicks = [];
            }
        }
        this.nextSeq = (staged.seq + 1) & 0xff;
    }
}
