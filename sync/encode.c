/**
 * @file encode.c
 * @brief The encoder: one message per call, from the hub's frame, within
 *        the client's token buckets (docs/sync.md "What the encoder sends").
 *
 * Why the error never accumulates. Each slot keeps q, the quantised value
 * last sent, and sent = q * quantum, the double the decoder computes from
 * the same q with the same multiplication. A slot is sent when the truth
 * moved at least its deadband away from `sent`, and what is sent is the new
 * round(v / quantum) minus q: so the decoder's value is always the
 * quantisation of a true value, never a sum of rounded increments, and at a
 * delivery |decoded - true| is below the deadband (not sent) or at most half
 * a quantum (sent).
 *
 * Why 0 bytes are allocated per message. Everything a message needs (the
 * slots, the serving order, the picked flags and costs) was allocated at
 * pcs_sync_client_add; the channel names of a LAYOUT point into world memory
 * (pcs_channel_list copies only the info struct).
 *
 * Budget. The DELTA pass picks items in serving order (client.c) and pays
 * each one's upper-bound cost from its bucket at once; after writing the
 * message in slot order (the format's gap coding needs increasing slots) it
 * refunds each item's bound minus its actual bytes, so buckets end charged
 * with the exact bytes. Framing goes to instruments (it may dip below zero
 * by a few bytes; a bucket below zero is dry).
 */
#include <math.h>
#include <string.h>

#include "sync/sync_internal.h"
#include "sync/wire.h"

/** How a value goes on the wire for one slot. */
typedef struct sync_code {
    int raw;      /* an escape */
    int64_t q;    /* new absolute q (0 for an escape) */
    double value; /* what the decoder will hold */
} sync_code;

static sync_code code_value(const sync_slot *s, double v)
{
    if (s->quantum > 0.0 && isfinite(v)) {
        double r = v / s->quantum;
        if (fabs(r) < PCS_SYNC_Q_LIMIT) {
            int64_t q = llround(r);
            if (sync_q_ok(q))
                return (sync_code){.raw = 0, .q = q, .value = (double)q * s->quantum};
        }
    }
    return (sync_code){.raw = 1, .q = 0, .value = v};
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Must the slot be sent, given what it would send? */
static int changed(const sync_slot *s, const sync_code *k, double v)
{
    if (k->raw || s->raw)
        return k->raw != s->raw || !same_bits(k->value, s->sent);
    return k->q != s->q && fabs(v - s->sent) >= s->deadband;
}

static size_t val_len(const sync_slot *s, const sync_code *k)
{
    return k->raw ? SYNC_VAL_MAX_BYTES : sync_qval_len(k->q - s->q);
}

static uint8_t *put_val(uint8_t *p, const sync_slot *s, const sync_code *k)
{
    return k->raw ? sync_put_raw(p, k->value) : sync_put_qval(p, k->q - s->q);
}

static void apply(sync_slot *s, const sync_code *k)
{
    s->raw = (uint8_t)k->raw;
    s->q = k->q;
    s->sent = k->value;
    s->sends++;
}

static void deliver(sync_slot *s, uint64_t tick)
{
    if (s->delivered && tick - s->last_tick > s->max_gap)
        s->max_gap = tick - s->last_tick;
    s->delivered = 1;
    s->last_tick = tick;
    s->deliveries++;
}

static uint64_t period_of(const pcs_sync_client *c, const sync_slot *s)
{
    switch (s->cls) {
    case PCS_SYNC_GAUGE:
        return c->p_gauge[sync_gauge_step(c->level, s->prio)];
    case PCS_SYNC_DISPLAY:
        return c->p_display;
    case PCS_SYNC_ACOUSTIC:
        return c->p_acoustic;
    default:
        return c->p_player;
    }
}

/* Next tick on the slot's period grid after @p tick. */
static void schedule(const pcs_sync_client *c, sync_slot *s, uint64_t tick)
{
    uint64_t p = period_of(c, s);
    s->next_due = (tick / p + 1) * p;
}

static unsigned bucket_of(uint8_t cls)
{
    switch (cls) {
    case PCS_SYNC_ACOUSTIC:
        return PCS_SYNC_BUCKET_ACOUSTICS;
    case PCS_SYNC_PLAYER:
        return PCS_SYNC_BUCKET_PLAYER;
    default:
        return PCS_SYNC_BUCKET_INSTRUMENTS;
    }
}

/* Pay @p mb millibytes from bucket @p b if it has them or is full; an event
 * the instruments cannot pay goes to the reserve, into debt if need be.
 * @return the paying bucket, or -1 (deferred). */
static int pay(pcs_sync_client *c, unsigned b, int64_t mb, int is_event)
{
    if (c->tokens[b] >= mb || (c->cap[b] > 0 && c->tokens[b] >= c->cap[b])) {
        c->tokens[b] -= mb;
        return (int)b;
    }
    if (is_event) {
        c->tokens[PCS_SYNC_BUCKET_RESERVE] -= mb;
        return PCS_SYNC_BUCKET_RESERVE;
    }
    return -1;
}

static void refill(pcs_sync_client *c, uint64_t tick)
{
    if (tick <= c->refill_tick)
        return;
    uint64_t d = tick - c->refill_tick;
    for (unsigned b = 0; b < PCS_SYNC_BUCKETS; b++) {
        if (c->tokens[b] >= c->cap[b] || c->per_tick[b] <= 0)
            continue;
        uint64_t need = (uint64_t)((c->cap[b] - c->tokens[b]) / c->per_tick[b]) + 1u;
        c->tokens[b] = d >= need ? c->cap[b] : c->tokens[b] + c->per_tick[b] * (int64_t)d;
        if (c->tokens[b] > c->cap[b])
            c->tokens[b] = c->cap[b];
    }
    c->refill_tick = tick;
}

/* Degradation (sync.h): rise on a deferral, at most once per escalate
 * ticks; fall after recover ticks with instruments at least half full. */
static void update_level(pcs_sync_client *c, uint64_t tick, int deferred)
{
    if (tick > c->level_tick) {
        c->st.level_ticks[c->level] += tick - c->level_tick;
        c->level_tick = tick;
    }
    if (deferred) {
        c->calm = 0;
        if (c->level < PCS_SYNC_LEVEL_MAX &&
            (!c->have_escalated || tick >= c->last_escalate + c->escalate)) {
            c->level++;
            c->last_escalate = tick;
            c->have_escalated = 1;
            if (c->level > c->st.max_level)
                c->st.max_level = c->level;
        }
        return;
    }
    const unsigned in = PCS_SYNC_BUCKET_INSTRUMENTS;
    if (2 * c->tokens[in] < c->cap[in]) {
        c->calm = 0;
    } else if (!c->calm) {
        c->calm = 1;
        c->calm_since = tick;
    } else if (c->level > 0 && tick >= c->calm_since + c->recover) {
        c->level--;
        c->calm_since = tick;
    }
}

static uint8_t *put_header(pcs_sync_client *c, uint8_t *p, unsigned type)
{
    *p++ = (uint8_t)((PCS_SYNC_VERSION << 4) | type);
    *p++ = c->seq;
    return p;
}

static void finish(pcs_sync_client *c, size_t len, uint64_t tick, int setup)
{
    c->seq = (uint8_t)(c->seq + 1u);
    c->last_msg_tick = tick;
    c->last_write_tick = tick;
    c->st.messages++;
    c->st.bytes += len;
    c->st.last_tick = tick;
    if (setup)
        c->st.setup_bytes += len;
}

/* ------------------------------------------------------------- LAYOUT */

static uint8_t *put_text(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    p = sync_put_varint(p, n);
    memcpy(p, s, n);
    return p + n;
}

static size_t write_layout(pcs_sync_client *c, uint8_t *buf)
{
    const pcs_sync_hub *h = c->hub;
    c->seq = 0;
    uint8_t *p = put_header(c, buf, PCS_SYNC_MSG_LAYOUT);
    p = sync_put_varint(p, h->tick);
    p = sync_put_f64(p, h->dt_s);
    p = sync_put_u64(p, h->layout);
    p = sync_put_varint(p, c->n_slots);
    for (uint32_t i = 0; i < c->n_slots; i++) {
        const sync_slot *s = &c->slots[i];
        pcs_channel_info info = {.name = "", .unit = ""};
        uint32_t got = 0;
        (void)pcs_channel_list(h->pool, s->channel, &info, 1, &got); /* checked at add */
        p = sync_put_varint(p, s->channel);
        *p++ = s->cls;
        *p++ = s->prio;
        p = sync_put_f64(p, s->quantum);
        p = put_text(p, info.name);
        p = put_text(p, info.unit);
    }
    return (size_t)(p - buf);
}

/* ----------------------------------------------------------- KEYFRAME */

static size_t keyframe_size(const pcs_sync_client *c)
{
    const pcs_sync_hub *h = c->hub;
    size_t n = 2 + sync_varint_len(h->tick);
    for (uint32_t i = 0; i < c->n_slots; i++) {
        sync_code k = code_value(&c->slots[i], h->frame[c->slots[i].channel]);
        n += k.raw ? SYNC_VAL_MAX_BYTES : sync_qval_len(k.q);
    }
    return n;
}

/* Every slot absolute; a delivery of every non-recorder slot. */
static size_t write_keyframe(pcs_sync_client *c, uint8_t *buf)
{
    const pcs_sync_hub *h = c->hub;
    uint64_t t = h->tick;
    uint8_t *p = put_header(c, buf, PCS_SYNC_MSG_KEYFRAME);
    p = sync_put_varint(p, t);
    for (uint32_t i = 0; i < c->n_slots; i++) {
        sync_slot *s = &c->slots[i];
        sync_code k = code_value(s, h->frame[s->channel]);
        p = k.raw ? sync_put_raw(p, k.value) : sync_put_qval(p, k.q);
        apply(s, &k);
        if (s->cls != PCS_SYNC_RECORDER) {
            deliver(s, t);
            if (s->cls != PCS_SYNC_EVENT)
                schedule(c, s, t);
        }
    }
    c->st.keyframes++;
    c->delta_tick = t; /* the keyframe delivered every slot at this tick */
    c->delta_done = 1;
    return (size_t)(p - buf);
}

/* ----------------------------------------------------------- RECORDER */

static double ring_value(const pcs_sync_hub *h, uint64_t sample, uint32_t rec)
{
    return h->ring_values[(size_t)(sample % h->ring_cap) * h->n_rec + rec];
}

static uint64_t ring_tick(const pcs_sync_hub *h, uint64_t sample)
{
    return h->ring_ticks[sample % h->ring_cap];
}

/* Skip points the ring overwrote; return how many remain to send. */
static uint64_t recorder_pending(pcs_sync_client *c)
{
    const pcs_sync_hub *h = c->hub;
    uint64_t oldest = sync_hub_oldest(h);
    if (c->next_sample < oldest) {
        c->st.recorder_lost += oldest - c->next_sample;
        c->next_sample = oldest;
    }
    return c->n_rec ? h->samples - c->next_sample : 0;
}

static size_t recorder_size(const pcs_sync_client *c, uint32_t npts)
{
    const pcs_sync_hub *h = c->hub;
    uint64_t from = c->next_sample, prev = ring_tick(h, from);
    size_t n = 2 + sync_varint_len(h->tick - c->last_msg_tick) + sync_varint_len(from) +
               sync_varint_len(npts) + sync_varint_len(prev);
    for (uint32_t k = 1; k < npts; k++) {
        uint64_t t = ring_tick(h, from + k);
        n += sync_varint_len(t - prev);
        prev = t;
    }
    for (uint32_t j = 0; j < c->n_rec; j++) {
        sync_slot s = c->slots[c->rec_slots[j]]; /* a copy: the chain is simulated */
        for (uint32_t k = 0; k < npts; k++) {
            sync_code code = code_value(&s, ring_value(h, from + k, s.rec));
            n += val_len(&s, &code);
            s.raw = (uint8_t)code.raw;
            s.q = code.q;
        }
    }
    return n;
}

static size_t write_recorder(pcs_sync_client *c, uint8_t *buf, uint32_t npts)
{
    const pcs_sync_hub *h = c->hub;
    uint64_t from = c->next_sample, prev = ring_tick(h, from);
    uint8_t *p = put_header(c, buf, PCS_SYNC_MSG_RECORDER);
    p = sync_put_varint(p, h->tick - c->last_msg_tick);
    p = sync_put_varint(p, from);
    p = sync_put_varint(p, npts);
    p = sync_put_varint(p, prev);
    for (uint32_t k = 1; k < npts; k++) {
        uint64_t t = ring_tick(h, from + k);
        p = sync_put_varint(p, t - prev);
        prev = t;
    }
    for (uint32_t j = 0; j < c->n_rec; j++) {
        sync_slot *s = &c->slots[c->rec_slots[j]];
        for (uint32_t k = 0; k < npts; k++) {
            sync_code code = code_value(s, ring_value(h, from + k, s->rec));
            p = put_val(p, s, &code);
            apply(s, &code);
            deliver(s, ring_tick(h, from + k));
        }
    }
    c->next_sample = from + npts;
    c->st.recorder_points += npts;
    return (size_t)(p - buf);
}

static uint32_t chunk(uint64_t pending)
{
    return pending > PCS_SYNC_RECORDER_CHUNK ? PCS_SYNC_RECORDER_CHUNK : (uint32_t)pending;
}

/* -------------------------------------------------------------- DELTA */

/* Evaluate slot @p i at tick @p t: deliver it if unchanged, else pay for it
 * and mark it picked, or defer it. @return 1 if picked. */
static uint32_t pick_one(pcs_sync_client *c, uint32_t i, uint64_t t, int *instr_deferred)
{
    sync_slot *s = &c->slots[i];
    double v = c->hub->frame[s->channel];
    sync_code k = code_value(s, v);
    if (!changed(s, &k, v)) {
        deliver(s, t);
        if (s->cls != PCS_SYNC_EVENT)
            schedule(c, s, t);
        return 0;
    }
    unsigned b = bucket_of(s->cls);
    int64_t mb = (int64_t)(sync_varint_len(i) + val_len(s, &k)) * 1000;
    int payer = pay(c, b, mb, s->cls == PCS_SYNC_EVENT);
    if (payer < 0) {
        s->deferred++;
        c->st.deferred++;
        *instr_deferred |= b == PCS_SYNC_BUCKET_INSTRUMENTS;
        return 0;
    }
    c->picked[i] = (uint8_t)(payer + 1);
    c->cost[i] = mb;
    return 1;
}

/* Choose the due slots that changed, rank by rank in serving order; within
 * a rank the overdue (deferred before) first, so a dry bucket delays every
 * slot of a rank in turn instead of starving its last ones. Overdue slots
 * are retried on the 10 Hz grid only, with the gauges, not at every tick:
 * a retry alone in a message would spend more on framing than it carries. */
static uint32_t pick(pcs_sync_client *c, uint64_t t, int *instr_deferred)
{
    uint32_t n = 0, begin = 0;
    memset(c->picked, 0, c->n_slots);
    for (unsigned r = 0; r < SYNC_RANKS; r++) {
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t o = begin; o < c->rank_end[r]; o++) {
                uint32_t i = c->order[o];
                const sync_slot *s = &c->slots[i];
                int overdue = s->cls != PCS_SYNC_EVENT && s->next_due < t;
                int due = s->cls == PCS_SYNC_EVENT || s->next_due == t ||
                          (overdue && t % c->p_gauge[0] == 0);
                if (due && overdue == (pass == 0))
                    n += pick_one(c, i, t, instr_deferred);
            }
        begin = c->rank_end[r];
    }
    return n;
}

static size_t write_delta(pcs_sync_client *c, uint8_t *buf, uint32_t n, uint64_t t)
{
    const pcs_sync_hub *h = c->hub;
    uint8_t *p = put_header(c, buf, PCS_SYNC_MSG_DELTA);
    p = sync_put_varint(p, t - c->last_msg_tick);
    p = sync_put_varint(p, n);
    size_t framing = (size_t)(p - buf);
    int64_t prev = -1;
    for (uint32_t i = 0; i < c->n_slots && n > 0; i++) {
        if (!c->picked[i])
            continue;
        sync_slot *s = &c->slots[i];
        unsigned payer = c->picked[i] - 1u;
        sync_code k = code_value(s, h->frame[s->channel]);
        uint8_t *start = p;
        p = sync_put_varint(p, (uint64_t)((int64_t)i - prev - 1));
        p = put_val(p, s, &k);
        size_t bytes = (size_t)(p - start);
        c->tokens[payer] += c->cost[i] - (int64_t)bytes * 1000;
        c->st.bucket_spent[payer] += bytes;
        c->st.class_bytes[s->cls] += bytes;
        apply(s, &k);
        deliver(s, t);
        if (s->cls != PCS_SYNC_EVENT)
            schedule(c, s, t);
        prev = i;
    }
    c->tokens[PCS_SYNC_BUCKET_INSTRUMENTS] -= (int64_t)framing * 1000;
    c->st.bucket_spent[PCS_SYNC_BUCKET_INSTRUMENTS] += framing;
    c->st.framing_bytes += framing;
    return (size_t)(p - buf);
}

/* The DELTA of this tick, or a heartbeat, or nothing. */
static size_t delta_pass(pcs_sync_client *c, uint8_t *buf, uint64_t t)
{
    int deferred = 0;
    uint32_t n = pick(c, t, &deferred);
    update_level(c, t, deferred);
    if (n == 0 && t - c->last_write_tick < c->heartbeat)
        return 0;
    size_t len = write_delta(c, buf, n, t);
    finish(c, len, t, 0);
    return len;
}

/* ------------------------------------------------------------- encode */

static size_t encode_setup(pcs_sync_client *c, uint8_t *buf, uint64_t t)
{
    size_t len;
    switch (c->phase) {
    case SYNC_PH_LAYOUT:
        len = write_layout(c, buf);
        c->phase = SYNC_PH_KEYFRAME;
        break;
    case SYNC_PH_KEYFRAME:
        len = write_keyframe(c, buf);
        c->phase = SYNC_PH_HISTORY;
        c->next_sample = sync_hub_oldest(c->hub);
        c->refill_tick = c->level_tick = c->st.first_tick = t;
        c->next_batch = (t / c->p_batch + 1) * c->p_batch;
        break;
    default: {
        uint64_t pending = recorder_pending(c);
        if (pending == 0) {
            c->phase = SYNC_PH_RUN;
            return 0;
        }
        len = write_recorder(c, buf, chunk(pending));
        break;
    }
    }
    finish(c, len, t, 1);
    return len;
}

static size_t encode_requested_keyframe(pcs_sync_client *c, uint8_t *buf, uint64_t t)
{
    size_t need = keyframe_size(c);
    if (pay(c, PCS_SYNC_BUCKET_RESERVE, (int64_t)need * 1000, 0) < 0)
        return 0;
    size_t len = write_keyframe(c, buf);
    c->tokens[PCS_SYNC_BUCKET_RESERVE] += ((int64_t)need - (int64_t)len) * 1000;
    c->st.bucket_spent[PCS_SYNC_BUCKET_RESERVE] += len;
    c->st.keyframe_bytes += len;
    c->keyframe_wanted = 0;
    finish(c, len, t, 0);
    return len;
}

static size_t encode_batch(pcs_sync_client *c, uint8_t *buf, uint64_t t)
{
    if (c->n_rec == 0 || t < c->next_batch)
        return 0;
    uint64_t pending = recorder_pending(c);
    if (pending == 0) {
        c->next_batch = (t / c->p_batch + 1) * c->p_batch;
        return 0;
    }
    uint32_t npts = chunk(pending);
    size_t need = recorder_size(c, npts);
    const unsigned in = PCS_SYNC_BUCKET_INSTRUMENTS;
    if (pay(c, in, (int64_t)need * 1000, 0) < 0) {
        c->st.deferred++;
        return 0;
    }
    size_t len = write_recorder(c, buf, npts);
    c->st.bucket_spent[in] += len;
    c->st.class_bytes[PCS_SYNC_RECORDER] += len;
    finish(c, len, t, 0);
    return len;
}

pcs_status pcs_sync_encode(pcs_sync_client *c, uint8_t *buf, size_t cap, size_t *len)
{
    if (!c || !buf || !len)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_encode: client, buf or len is NULL");
    if (cap < c->message_max)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_encode: cap = %zu bytes, this client needs at least %zu "
                             "(pcs_sync_client_message_max)",
                             cap, c->message_max);
    uint64_t t = c->hub->tick;
    *len = 0;
    if (c->phase != SYNC_PH_RUN) {
        *len = encode_setup(c, buf, t);
        if (*len > 0 || c->phase != SYNC_PH_RUN)
            return PCS_OK;
    }
    refill(c, t);
    if (c->keyframe_wanted && (*len = encode_requested_keyframe(c, buf, t)) > 0)
        return PCS_OK;
    if (!c->delta_done || c->delta_tick != t) {
        c->delta_tick = t;
        c->delta_done = 1;
        if ((*len = delta_pass(c, buf, t)) > 0)
            return PCS_OK;
    }
    *len = encode_batch(c, buf, t);
    return PCS_OK;
}
