/**
 * @file decode.c
 * @brief The decoder of docs/sync.md: hostile input in, slot values out.
 *
 * Every message is parsed in full into staging before anything is applied,
 * so a refused message changes nothing (all or nothing); every read goes
 * through wire.h's bounded cursor, so no input can make it read outside the
 * message. After a refusal the decoder is unsynchronised and takes only a
 * KEYFRAME or a LAYOUT: a lost or damaged message means its values are
 * unknown, and guessing would show an operator a wrong plant.
 *
 * web/sync.js implements the same rules line for line (the same checks in
 * the same order), so both accept and refuse the same messages and compute
 * the same doubles: a value is the double product q * quantum, which
 * JavaScript computes identically since q is an exact integer below 2^50.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/sync.h"
#include "sync/wire.h"

/** Room per slot for its name and unit, each NUL-terminated. */
#define TEXT_ROOM (2u * (PCS_SYNC_NAME_MAX + 1u))

typedef struct dslot {
    uint32_t channel;
    uint8_t cls, prio;
    uint32_t rec; /* index among the RECORDER slots */
    double quantum;
    int64_t q;     /* quantised reference (0 after an escape) */
    double value;  /* NaN before the first value */
    uint64_t tick; /* tick of the message that last wrote it */
} dslot;

struct pcs_sync_decoder {
    uint32_t max_slots, max_rec;
    dslot *slots, *next; /* current layout, and a LAYOUT being parsed */
    char *text, *next_text;
    uint32_t n_slots, n_next;
    uint32_t *rec_slots, *next_rec;
    uint32_t n_rec, n_next_rec;
    double dt_s, next_dt_s;
    uint64_t layout_version, next_version;
    /* staging of values */
    uint32_t *st_slot;
    int64_t *st_q;
    double *st_v;
    uint32_t n_st;
    /* the last RECORDER message's points */
    uint64_t pt_tick[PCS_SYNC_RECORDER_CHUNK];
    double *pt_val; /* max_rec x CHUNK, rec-major */
    uint32_t n_points;
    /* session */
    int have_layout, synced, have_sample;
    uint8_t next_seq;
    uint64_t tick, next_sample;
};

pcs_status pcs_sync_decoder_create(const pcs_sync_decoder_limits *lim, pcs_sync_decoder **out)
{
    uint32_t ms = lim && lim->max_slots ? lim->max_slots : PCS_SYNC_SLOTS_MAX;
    uint32_t mr = lim && lim->max_recorders ? lim->max_recorders : PCS_SYNC_RECORDERS_MAX;
    if (!out || ms > PCS_SYNC_SLOTS_MAX || mr > PCS_SYNC_RECORDERS_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_decoder_create: out NULL, or max_slots %u (allowed [0, "
                             "%u]) or max_recorders %u (allowed [0, %u]) out of range",
                             ms, PCS_SYNC_SLOTS_MAX, mr, PCS_SYNC_RECORDERS_MAX);
    pcs_sync_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return pcs_error_set(PCS_E_NOMEM, "pcs_sync_decoder_create: cannot allocate");
    d->max_slots = ms;
    d->max_rec = mr;
    d->slots = calloc(ms, sizeof *d->slots);
    d->next = calloc(ms, sizeof *d->next);
    d->text = calloc(ms, TEXT_ROOM);
    d->next_text = calloc(ms, TEXT_ROOM);
    d->rec_slots = calloc(mr, sizeof *d->rec_slots);
    d->next_rec = calloc(mr, sizeof *d->next_rec);
    d->st_slot = calloc(ms, sizeof *d->st_slot);
    d->st_q = calloc(ms, sizeof *d->st_q);
    d->st_v = calloc(ms, sizeof *d->st_v);
    d->pt_val = calloc((size_t)mr * PCS_SYNC_RECORDER_CHUNK, sizeof *d->pt_val);
    if (!d->slots || !d->next || !d->text || !d->next_text || !d->rec_slots || !d->next_rec ||
        !d->st_slot || !d->st_q || !d->st_v || !d->pt_val) {
        pcs_sync_decoder_destroy(d);
        return pcs_error_set(PCS_E_NOMEM, "pcs_sync_decoder_create: cannot allocate for %u slots",
                             ms);
    }
    *out = d;
    return PCS_OK;
}

void pcs_sync_decoder_destroy(pcs_sync_decoder *d)
{
    if (!d)
        return;
    free(d->slots);
    free(d->next);
    free(d->text);
    free(d->next_text);
    free(d->rec_slots);
    free(d->next_rec);
    free(d->st_slot);
    free(d->st_q);
    free(d->st_v);
    free(d->pt_val);
    free(d);
}

/* ------------------------------------------------------------ parsing */

/** Where a parse stands, for the error message. */
typedef struct parse {
    sync_cursor c;
    const char *type;
    pcs_status status; /* the status of a refusal (PCS_E_CORRUPT unless said) */
    char why[160];
} parse;

#define REFUSE(P, ...)                                                                             \
    do {                                                                                           \
        snprintf((P)->why, sizeof(P)->why, __VA_ARGS__);                                           \
        return -1;                                                                                 \
    } while (0)
#define TRY(P, EXPR)                                                                               \
    do {                                                                                           \
        const char *e_ = (EXPR);                                                                   \
        if (e_)                                                                                    \
            REFUSE(P, "%s", e_);                                                                   \
    } while (0)

static int get_text(parse *p, char *dst, const char *what)
{
    uint64_t n;
    TRY(p, sync_get_varint(&p->c, &n));
    if (n > PCS_SYNC_NAME_MAX)
        REFUSE(p, "%s length %llu, allowed [0, %u]", what, (unsigned long long)n,
               PCS_SYNC_NAME_MAX);
    if ((uint64_t)(p->c.end - p->c.p) < n)
        REFUSE(p, "truncated %s", what);
    if (memchr(p->c.p, 0, (size_t)n))
        REFUSE(p, "%s holds a NUL byte", what);
    memcpy(dst, p->c.p, (size_t)n);
    dst[n] = '\0';
    p->c.p += n;
    return 0;
}

static int parse_slot(pcs_sync_decoder *d, parse *p, uint32_t i)
{
    dslot *s = &d->next[i];
    uint64_t ch;
    uint8_t cls, prio;
    TRY(p, sync_get_varint(&p->c, &ch));
    if (ch > UINT32_MAX)
        REFUSE(p, "slot %u: channel %llu, allowed [0, 2^32)", i, (unsigned long long)ch);
    TRY(p, sync_get_u8(&p->c, &cls));
    if (cls >= PCS_SYNC_CLASS_COUNT)
        REFUSE(p, "slot %u: class %u, allowed [0, %u]", i, cls,
               (unsigned)PCS_SYNC_CLASS_COUNT - 1u);
    TRY(p, sync_get_u8(&p->c, &prio));
    if (prio > PCS_SYNC_PRIORITY_MAX)
        REFUSE(p, "slot %u: priority %u, allowed [0, %u]", i, prio, PCS_SYNC_PRIORITY_MAX);
    double qn;
    TRY(p, sync_get_f64(&p->c, &qn));
    if (!(isfinite(qn) && qn >= 0.0))
        REFUSE(p, "slot %u: quantum %g, allowed finite >= 0", i, qn);
    *s = (dslot){.channel = (uint32_t)ch, .cls = cls, .prio = prio, .quantum = qn, .value = NAN};
    char *text = d->next_text + (size_t)i * TEXT_ROOM;
    if (get_text(p, text, "name") || get_text(p, text + PCS_SYNC_NAME_MAX + 1u, "unit"))
        return -1;
    if (cls == PCS_SYNC_RECORDER) {
        if (d->n_next_rec >= d->max_rec)
            REFUSE(p, "slot %u: more than %u RECORDER slots", i, d->max_rec);
        s->rec = d->n_next_rec;
        d->next_rec[d->n_next_rec++] = i;
    }
    return 0;
}

static int parse_layout(pcs_sync_decoder *d, parse *p, uint8_t seq, uint64_t *tick)
{
    uint64_t n, version;
    double dt;
    if (seq != 0)
        REFUSE(p, "sequence %u, a LAYOUT starts at 0", seq);
    TRY(p, sync_get_varint(&p->c, tick));
    TRY(p, sync_get_f64(&p->c, &dt));
    if (!(isfinite(dt) && dt > 0.0))
        REFUSE(p, "dt_s %g, allowed finite > 0", dt);
    TRY(p, sync_get_u64(&p->c, &version));
    TRY(p, sync_get_varint(&p->c, &n));
    if (n == 0 || n > d->max_slots) {
        p->status = n ? PCS_E_OVERFLOW : PCS_E_CORRUPT;
        REFUSE(p, "%llu slots, allowed [1, %u]", (unsigned long long)n, d->max_slots);
    }
    d->n_next_rec = 0;
    for (uint32_t i = 0; i < (uint32_t)n; i++)
        if (parse_slot(d, p, i))
            return -1;
    d->n_next = (uint32_t)n;
    d->next_dt_s = dt;
    d->next_version = version;
    return 0;
}

static void commit_layout(pcs_sync_decoder *d, uint64_t tick)
{
    dslot *ts = d->slots;
    d->slots = d->next;
    d->next = ts;
    char *tt = d->text;
    d->text = d->next_text;
    d->next_text = tt;
    uint32_t *tr = d->rec_slots;
    d->rec_slots = d->next_rec;
    d->next_rec = tr;
    d->n_slots = d->n_next;
    d->n_rec = d->n_next_rec;
    d->dt_s = d->next_dt_s;
    d->layout_version = d->next_version;
    d->have_layout = 1;
    d->synced = 0;
    d->have_sample = 0;
    d->n_points = 0;
    d->tick = tick;
}

/* One val for slot @p s: the new q and value, from the reference @p q0. */
static int get_slot_val(parse *p, const dslot *s, uint32_t i, int64_t q0, int64_t *q, double *v)
{
    int raw;
    int64_t k = 0;
    double d = 0.0;
    TRY(p, sync_get_val(&p->c, &raw, &k, &d));
    if (raw) {
        *q = 0;
        *v = d;
        return 0;
    }
    if (s->quantum == 0.0)
        REFUSE(p, "slot %u: a quantised value for a slot of quantum 0", i);
    *q = q0 + k;
    if (!sync_q_ok(*q))
        REFUSE(p, "slot %u: quantised value %lld, allowed (-2^50, 2^50)", i, (long long)*q);
    *v = (double)*q * s->quantum;
    return 0;
}

static void stage(pcs_sync_decoder *d, uint32_t slot, int64_t q, double v)
{
    d->st_slot[d->n_st] = slot;
    d->st_q[d->n_st] = q;
    d->st_v[d->n_st] = v;
    d->n_st++;
}

static int get_tick(pcs_sync_decoder *d, parse *p, int absolute, uint64_t *tick)
{
    uint64_t v;
    TRY(p, sync_get_varint(&p->c, &v));
    if (absolute) {
        if (v < d->tick)
            REFUSE(p, "tick %llu goes back from %llu", (unsigned long long)v,
                   (unsigned long long)d->tick);
        *tick = v;
    } else {
        if (d->tick + v >= SYNC_VARINT_LIMIT)
            REFUSE(p, "tick %llu + %llu reaches 2^53", (unsigned long long)d->tick,
                   (unsigned long long)v);
        *tick = d->tick + v;
    }
    return 0;
}

static int parse_keyframe(pcs_sync_decoder *d, parse *p, uint64_t *tick)
{
    if (get_tick(d, p, 1, tick))
        return -1;
    d->n_st = 0;
    for (uint32_t i = 0; i < d->n_slots; i++) {
        int64_t q;
        double v;
        if (get_slot_val(p, &d->slots[i], i, 0, &q, &v))
            return -1;
        stage(d, i, q, v);
    }
    return 0;
}

static int parse_delta(pcs_sync_decoder *d, parse *p, uint64_t *tick)
{
    uint64_t n;
    if (get_tick(d, p, 0, tick))
        return -1;
    TRY(p, sync_get_varint(&p->c, &n));
    if (n > d->n_slots)
        REFUSE(p, "%llu entries, allowed [0, %u]", (unsigned long long)n, d->n_slots);
    d->n_st = 0;
    uint64_t next = 0; /* lowest slot the next entry may name */
    for (uint64_t e = 0; e < n; e++) {
        uint64_t gap;
        TRY(p, sync_get_varint(&p->c, &gap));
        if (gap >= d->n_slots - next)
            REFUSE(p, "entry %llu: slot %llu, allowed [%llu, %u)", (unsigned long long)e,
                   (unsigned long long)(next + gap), (unsigned long long)next, d->n_slots);
        uint32_t i = (uint32_t)(next + gap);
        const dslot *s = &d->slots[i];
        if (s->cls == PCS_SYNC_RECORDER)
            REFUSE(p, "entry %llu: slot %u is a RECORDER slot", (unsigned long long)e, i);
        int64_t q;
        double v;
        if (get_slot_val(p, s, i, s->q, &q, &v))
            return -1;
        stage(d, i, q, v);
        next = (uint64_t)i + 1u;
    }
    return 0;
}

static int parse_point_ticks(pcs_sync_decoder *d, parse *p, uint64_t tick)
{
    uint64_t t;
    TRY(p, sync_get_varint(&p->c, &t));
    if (t > tick)
        REFUSE(p, "first point's tick %llu after the message's tick %llu", (unsigned long long)t,
               (unsigned long long)tick);
    d->pt_tick[0] = t;
    for (uint32_t k = 1; k < d->n_points; k++) {
        uint64_t dt;
        TRY(p, sync_get_varint(&p->c, &dt));
        if (dt == 0 || dt > tick - t)
            REFUSE(p, "point %u: tick step %llu, allowed [1, %llu]", k, (unsigned long long)dt,
                   (unsigned long long)(tick - t));
        t += dt;
        d->pt_tick[k] = t;
    }
    return 0;
}

static int parse_recorder(pcs_sync_decoder *d, parse *p, uint64_t *tick, pcs_sync_decoded *info)
{
    uint64_t first, n;
    if (d->n_rec == 0)
        REFUSE(p, "the layout has no RECORDER slot");
    if (get_tick(d, p, 0, tick))
        return -1;
    TRY(p, sync_get_varint(&p->c, &first));
    if (d->have_sample && first < d->next_sample)
        REFUSE(p, "first sample %llu, allowed >= %llu", (unsigned long long)first,
               (unsigned long long)d->next_sample);
    TRY(p, sync_get_varint(&p->c, &n));
    if (n == 0 || n > PCS_SYNC_RECORDER_CHUNK)
        REFUSE(p, "%llu points, allowed [1, %u]", (unsigned long long)n, PCS_SYNC_RECORDER_CHUNK);
    d->n_points = (uint32_t)n;
    if (parse_point_ticks(d, p, *tick))
        return -1;
    d->n_st = 0;
    for (uint32_t j = 0; j < d->n_rec; j++) {
        uint32_t i = d->rec_slots[j];
        const dslot *s = &d->slots[i];
        int64_t q = s->q;
        double v = s->value;
        for (uint32_t k = 0; k < d->n_points; k++) {
            if (get_slot_val(p, s, i, q, &q, &v))
                return -1;
            d->pt_val[(size_t)j * PCS_SYNC_RECORDER_CHUNK + k] = v;
        }
        stage(d, i, q, v);
    }
    info->first_sample = first;
    info->n_points = d->n_points;
    info->lost = d->have_sample ? first - d->next_sample : 0;
    return 0;
}

/* ------------------------------------------------------------- decode */

static void commit_values(pcs_sync_decoder *d, uint64_t tick, int recorder)
{
    for (uint32_t e = 0; e < d->n_st; e++) {
        dslot *s = &d->slots[d->st_slot[e]];
        s->q = d->st_q[e];
        s->value = d->st_v[e];
        s->tick = recorder ? d->pt_tick[d->n_points - 1] : tick;
    }
}

static const char *type_name(unsigned type)
{
    static const char *const names[] = {"?", "LAYOUT", "KEYFRAME", "DELTA", "RECORDER"};
    return type < 5 ? names[type] : "message";
}

/* Parse the body of @p type; 0 and the effects staged, or -1. */
static int parse_body(pcs_sync_decoder *d, parse *p, unsigned type, uint8_t seq,
                      pcs_sync_decoded *info)
{
    if (type < PCS_SYNC_MSG_LAYOUT || type > PCS_SYNC_MSG_RECORDER)
        REFUSE(p, "unknown message type %u, allowed [1, 4]", type);
    if (type == PCS_SYNC_MSG_LAYOUT)
        return parse_layout(d, p, seq, &info->tick);
    if (!d->have_layout)
        REFUSE(p, "no LAYOUT received yet");
    if (type != PCS_SYNC_MSG_KEYFRAME && !d->synced)
        REFUSE(p, "no KEYFRAME since the LAYOUT or the last refused message");
    if (d->synced && seq != d->next_seq)
        REFUSE(p, "sequence %u, expected %u (a message was lost or reordered)", seq, d->next_seq);
    if (type == PCS_SYNC_MSG_KEYFRAME)
        return parse_keyframe(d, p, &info->tick);
    if (type == PCS_SYNC_MSG_DELTA)
        return parse_delta(d, p, &info->tick);
    return parse_recorder(d, p, &info->tick, info);
}

static void apply_body(pcs_sync_decoder *d, unsigned type, uint8_t seq, pcs_sync_decoded *info)
{
    if (type == PCS_SYNC_MSG_LAYOUT) {
        commit_layout(d, info->tick);
    } else {
        commit_values(d, info->tick, type == PCS_SYNC_MSG_RECORDER);
        info->n_values = type == PCS_SYNC_MSG_RECORDER ? 0 : d->n_st;
        d->tick = info->tick;
        if (type == PCS_SYNC_MSG_KEYFRAME)
            d->synced = 1;
        if (type == PCS_SYNC_MSG_RECORDER) {
            d->next_sample = info->first_sample + info->n_points;
            d->have_sample = 1;
        } else {
            d->n_points = 0;
        }
    }
    d->next_seq = (uint8_t)(seq + 1u);
}

pcs_status pcs_sync_decode(pcs_sync_decoder *d, const uint8_t *msg, size_t len,
                           pcs_sync_decoded *info)
{
    pcs_sync_decoded scratch;
    if (!info)
        info = &scratch;
    *info = (pcs_sync_decoded){0};
    if (!d || (!msg && len > 0))
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_decode: decoder or message is NULL");
    if (len == 0 || len > PCS_SYNC_MESSAGE_MAX) {
        d->synced = 0;
        return pcs_error_set(PCS_E_OVERFLOW,
                             "pcs_sync_decode: message of %zu bytes, allowed [1, %u]", len,
                             PCS_SYNC_MESSAGE_MAX);
    }
    if ((msg[0] >> 4) != PCS_SYNC_VERSION) {
        d->synced = 0;
        return pcs_error_set(PCS_E_VERSION,
                             "pcs_sync_decode: byte 0: version %u, this decoder reads %u",
                             msg[0] >> 4, PCS_SYNC_VERSION);
    }
    unsigned type = msg[0] & 0x0fu;
    parse p = {.c = {.p = msg + 1, .begin = msg, .end = msg + len},
               .type = type_name(type),
               .status = PCS_E_CORRUPT};
    uint8_t seq = 0;
    int bad = 0;
    const char *e = sync_get_u8(&p.c, &seq);
    if (e)
        snprintf(p.why, sizeof p.why, "%s", e), bad = 1;
    if (!bad)
        bad = parse_body(d, &p, type, seq, info) != 0;
    if (!bad && p.c.p != p.c.end)
        snprintf(p.why, sizeof p.why, "%zu trailing bytes", (size_t)(p.c.end - p.c.p)), bad = 1;
    if (bad) {
        d->synced = 0;
        d->n_points = 0; /* a refused RECORDER may have half-filled the point arrays */
        return pcs_error_set(p.status, "pcs_sync_decode: %s (%zu bytes): byte %zu: %s", p.type, len,
                             sync_offset(&p.c), p.why);
    }
    info->type = type;
    apply_body(d, type, seq, info);
    return PCS_OK;
}

/* ----------------------------------------------------------- accessors */

uint32_t pcs_sync_decoder_slot_count(const pcs_sync_decoder *d)
{
    return d && d->have_layout ? d->n_slots : 0;
}

pcs_status pcs_sync_decoder_slot(const pcs_sync_decoder *d, uint32_t slot, pcs_sync_slot_info *out)
{
    if (!d || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_decoder_slot: decoder or out is NULL");
    if (!d->have_layout || slot >= d->n_slots)
        return pcs_error_set(PCS_E_NOTFOUND, "pcs_sync_decoder_slot: slot %u, the layout has %u",
                             slot, pcs_sync_decoder_slot_count(d));
    const dslot *s = &d->slots[slot];
    const char *text = d->text + (size_t)slot * TEXT_ROOM;
    *out = (pcs_sync_slot_info){.channel = s->channel,
                                .rate_class = s->cls,
                                .priority = s->prio,
                                .quantum = s->quantum,
                                .name = text,
                                .unit = text + PCS_SYNC_NAME_MAX + 1u};
    return PCS_OK;
}

double pcs_sync_decoder_value(const pcs_sync_decoder *d, uint32_t slot)
{
    return d && d->have_layout && slot < d->n_slots ? d->slots[slot].value : NAN;
}

uint64_t pcs_sync_decoder_value_tick(const pcs_sync_decoder *d, uint32_t slot)
{
    return d && d->have_layout && slot < d->n_slots ? d->slots[slot].tick : 0;
}

uint64_t pcs_sync_decoder_tick(const pcs_sync_decoder *d)
{
    return d ? d->tick : 0;
}

pcs_status pcs_sync_decoder_point(const pcs_sync_decoder *d, uint32_t slot, uint32_t i,
                                  uint64_t *tick, double *value)
{
    if (!d || !tick || !value)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_decoder_point: decoder, tick or value is NULL");
    if (!d->have_layout || slot >= d->n_slots || d->slots[slot].cls != PCS_SYNC_RECORDER ||
        i >= d->n_points)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "pcs_sync_decoder_point: slot %u point %u: not a RECORDER slot of "
                             "the layout, or beyond the %u points of the last RECORDER message",
                             slot, i, d->n_points);
    *tick = d->pt_tick[i];
    *value = d->pt_val[(size_t)d->slots[slot].rec * PCS_SYNC_RECORDER_CHUNK + i];
    return PCS_OK;
}
