/**
 * @file client.c
 * @brief Subscriptions: a client's slots checked and laid out once at add
 *        (everything the encoder will need is allocated here), its budget
 *        turned into per-tick millibyte refills, and its counters.
 *
 * The encoder (encode.c) serves non-recorder slots in a fixed order, built
 * here: events first (never deferred), then by priority, near first, gauges
 * before displays; acoustics and player slots last (they have buckets of
 * their own, so their place does not matter). So when instruments run dry it
 * is the far gauges that wait, and the degradation level (sync.h) then
 * lowers their rate.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync_internal.h"
#include "sync/wire.h"

pcs_sync_budget pcs_sync_budget_default(void)
{
    return (pcs_sync_budget){.instruments_bps = 1400,
                             .acoustics_bps = 400,
                             .player_bps = 100,
                             .reserve_bps = 148,
                             .burst_s = 1.0};
}

pcs_sync_client_def pcs_sync_client_default(void)
{
    return (pcs_sync_client_def){
        .channels = NULL, .n_channels = 0, .budget = pcs_sync_budget_default()};
}

double pcs_sync_quantum_suggest(const char *unit)
{
    static const struct {
        const char *unit;
        double quantum;
    } table[] = {{"W", 1e5},     {"Pa", 1e3}, {"K", 0.01},   {"kg/s", 0.1}, {"m", 1e-3},
                 {"m3/s", 1e-4}, {"s", 0.01}, {"1/s", 1e-4}, {"", 1e-4}};
    if (!unit)
        unit = "";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(unit, table[i].unit) == 0)
            return table[i].quantum;
    return 1e-3;
}

static pcs_status check_slot(const pcs_sync_hub *hub, const pcs_sync_channel *c, uint32_t i)
{
    if (c->channel >= hub->n_channels)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "pcs_sync_client_add: channels[%u].channel = %u, the pool has %u "
                             "channels (ids [0, %u))",
                             i, c->channel, hub->n_channels, hub->n_channels);
    if (c->rate_class >= PCS_SYNC_CLASS_COUNT)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_client_add: channels[%u].rate_class = %u, allowed [0, %u]",
                             i, c->rate_class, (unsigned)PCS_SYNC_CLASS_COUNT - 1u);
    if (c->priority > PCS_SYNC_PRIORITY_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_client_add: channels[%u].priority = %u, allowed [0, %u]", i,
                             c->priority, PCS_SYNC_PRIORITY_MAX);
    if (!(isfinite(c->quantum) && c->quantum >= 0.0))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_client_add: channels[%u].quantum = %g, allowed finite >= 0",
                             i, c->quantum);
    if (!(isfinite(c->deadband) && c->deadband >= 0.0))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_client_add: channels[%u].deadband = %g, allowed finite >= 0",
                             i, c->deadband);
    if (c->rate_class == PCS_SYNC_RECORDER) {
        for (uint32_t r = 0; r < hub->n_rec; r++)
            if (hub->rec_ids[r] == c->channel)
                return PCS_OK;
        return pcs_error_set(PCS_E_NOTFOUND,
                             "pcs_sync_client_add: channels[%u] is a RECORDER slot of channel %u, "
                             "which the hub does not record (pcs_sync_hub_def.recorder_ids)",
                             i, c->channel);
    }
    return PCS_OK;
}

static pcs_status check_budget(const pcs_sync_budget *b)
{
    const uint32_t bps[] = {b->instruments_bps, b->acoustics_bps, b->player_bps, b->reserve_bps};
    static const char *const name[] = {"instruments_bps", "acoustics_bps", "player_bps",
                                       "reserve_bps"};
    for (int i = 0; i < 4; i++)
        if (bps[i] > 100000000u)
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_sync_client_add: budget.%s = %u B/s, allowed [0, 1e8]",
                                 name[i], bps[i]);
    if (!(b->burst_s > 0.0 && b->burst_s <= 60.0))
        return pcs_error_set(
            PCS_E_INVAL, "pcs_sync_client_add: budget.burst_s = %g s, allowed (0, 60]", b->burst_s);
    return PCS_OK;
}

/* Exact LAYOUT size; refuses names and units the format cannot carry. */
static pcs_status layout_size(const pcs_sync_hub *hub, const pcs_sync_client_def *d, size_t *len)
{
    size_t n = 2 + sync_varint_len(SYNC_VARINT_LIMIT - 1) + 16 + sync_varint_len(d->n_channels);
    for (uint32_t i = 0; i < d->n_channels; i++) {
        pcs_channel_info info;
        uint32_t got = 0;
        pcs_status st = pcs_channel_list(hub->pool, d->channels[i].channel, &info, 1, &got);
        if (st != PCS_OK || got != 1)
            return pcs_error_set(PCS_E_NOTFOUND,
                                 "pcs_sync_client_add: channels[%u]: channel %u "
                                 "not in the pool",
                                 i, d->channels[i].channel);
        size_t ln = strlen(info.name), lu = strlen(info.unit);
        if (ln > PCS_SYNC_NAME_MAX || lu > PCS_SYNC_NAME_MAX)
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_sync_client_add: channels[%u]: name or unit of channel %u "
                                 "is %zu/%zu bytes, allowed [0, %u]",
                                 i, d->channels[i].channel, ln, lu, PCS_SYNC_NAME_MAX);
        n += sync_varint_len(d->channels[i].channel) + 2 + 8 + sync_varint_len(ln) + ln +
             sync_varint_len(lu) + lu;
    }
    if (n > PCS_SYNC_MESSAGE_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_client_add: the LAYOUT of %u channels takes %zu bytes, "
                             "allowed [0, %u]: subscribe fewer channels",
                             d->n_channels, n, PCS_SYNC_MESSAGE_MAX);
    *len = n;
    return PCS_OK;
}

static pcs_status check_def(const pcs_sync_hub *hub, const pcs_sync_client_def *d)
{
    if (d->n_channels == 0 || d->n_channels > PCS_SYNC_SLOTS_MAX || !d->channels)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_client_add: n_channels = %u (channels %s), allowed [1, %u]",
                             d->n_channels, d->channels ? "set" : "NULL", PCS_SYNC_SLOTS_MAX);
    uint32_t n_rec = 0;
    for (uint32_t i = 0; i < d->n_channels; i++) {
        pcs_status st = check_slot(hub, &d->channels[i], i);
        if (st != PCS_OK)
            return st;
        n_rec += d->channels[i].rate_class == PCS_SYNC_RECORDER;
    }
    if (n_rec > PCS_SYNC_RECORDERS_MAX)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_client_add: %u RECORDER slots, allowed [0, %u]",
                             n_rec, PCS_SYNC_RECORDERS_MAX);
    return check_budget(&d->budget);
}

/* Serving order key (file comment): events, then per priority gauges and
 * displays, then acoustics and player. */
static unsigned serve_rank(const sync_slot *s)
{
    if (s->cls == PCS_SYNC_EVENT)
        return 0;
    if (s->cls == PCS_SYNC_GAUGE || s->cls == PCS_SYNC_DISPLAY)
        return 1u + 2u * s->prio + (s->cls == PCS_SYNC_DISPLAY);
    return 7u;
}

static void build_order(pcs_sync_client *c)
{
    c->n_order = 0;
    for (unsigned rank = 0; rank < SYNC_RANKS; rank++) {
        for (uint32_t i = 0; i < c->n_slots; i++)
            if (c->slots[i].cls != PCS_SYNC_RECORDER && serve_rank(&c->slots[i]) == rank)
                c->order[c->n_order++] = i;
        c->rank_end[rank] = c->n_order;
    }
}

static void init_slots(pcs_sync_client *c, const pcs_sync_client_def *d)
{
    const pcs_sync_hub *hub = c->hub;
    c->n_rec = 0;
    for (uint32_t i = 0; i < d->n_channels; i++) {
        const pcs_sync_channel *ch = &d->channels[i];
        sync_slot *s = &c->slots[i];
        *s = (sync_slot){.channel = ch->channel,
                         .cls = (uint8_t)ch->rate_class,
                         .prio = (uint8_t)ch->priority,
                         .raw = 1,
                         .quantum = ch->quantum,
                         .deadband = ch->deadband > 0.0 ? ch->deadband : ch->quantum};
        if (s->cls == PCS_SYNC_RECORDER) {
            for (uint32_t r = 0; r < hub->n_rec; r++)
                if (hub->rec_ids[r] == s->channel)
                    s->rec = r;
            c->rec_slots[c->n_rec++] = i;
        }
    }
    build_order(c);
}

static void init_budget(pcs_sync_client *c, const pcs_sync_budget *b)
{
    const uint32_t bps[PCS_SYNC_BUCKETS] = {b->instruments_bps, b->acoustics_bps, b->player_bps,
                                            b->reserve_bps};
    double dt = c->hub->dt_s;
    for (unsigned i = 0; i < PCS_SYNC_BUCKETS; i++) {
        c->per_tick[i] = llround((double)bps[i] * dt * 1000.0);
        c->cap[i] = llround((double)bps[i] * b->burst_s * 1000.0);
        c->tokens[i] = c->cap[i];
    }
}

static void init_periods(pcs_sync_client *c)
{
    double dt = c->hub->dt_s;
    c->p_gauge[0] = sync_period_ticks(PCS_SYNC_GAUGE_HZ, dt);
    c->p_gauge[1] = sync_period_ticks(PCS_SYNC_GAUGE_MID_HZ, dt);
    c->p_gauge[2] = sync_period_ticks(PCS_SYNC_GAUGE_LOW_HZ, dt);
    c->p_display = sync_period_ticks(PCS_SYNC_DISPLAY_HZ, dt);
    c->p_acoustic = sync_period_ticks(PCS_SYNC_ACOUSTIC_HZ, dt);
    c->p_player = sync_period_ticks(PCS_SYNC_PLAYER_HZ, dt);
    c->p_batch = sync_period_ticks(1.0 / PCS_SYNC_RECORDER_BATCH_S, dt);
    c->heartbeat = sync_period_ticks(1.0, dt);
    c->escalate = sync_period_ticks(1.0 / PCS_SYNC_ESCALATE_S, dt);
    c->recover = sync_period_ticks(1.0 / PCS_SYNC_RECOVER_S, dt);
}

/* Upper bounds of each message kind (wire.h's item bounds). */
static size_t message_bound(const pcs_sync_client *c)
{
    size_t n = c->n_slots, hdr = 2 + 3 * SYNC_VARINT_MAX_BYTES;
    size_t key = hdr + n * SYNC_VAL_MAX_BYTES;
    size_t delta = hdr + n * (SYNC_VARINT_MAX_BYTES + SYNC_VAL_MAX_BYTES);
    size_t rec = hdr + (size_t)PCS_SYNC_RECORDER_CHUNK *
                           (SYNC_VARINT_MAX_BYTES + c->n_rec * SYNC_VAL_MAX_BYTES);
    size_t m = c->layout_len;
    m = key > m ? key : m;
    m = delta > m ? delta : m;
    m = rec > m ? rec : m;
    return m;
}

static pcs_status client_alloc(pcs_sync_client *c, uint32_t n)
{
    c->slots = calloc(n, sizeof *c->slots);
    c->rec_slots = calloc(n, sizeof *c->rec_slots);
    c->order = calloc(n, sizeof *c->order);
    c->picked = calloc(n, sizeof *c->picked);
    c->cost = calloc(n, sizeof *c->cost);
    if (!c->slots || !c->rec_slots || !c->order || !c->picked || !c->cost)
        return pcs_error_set(PCS_E_NOMEM, "pcs_sync_client_add: cannot allocate %u slots", n);
    return PCS_OK;
}

pcs_status pcs_sync_client_add(pcs_sync_hub *hub, const pcs_sync_client_def *def,
                               pcs_sync_client **out)
{
    if (!hub || !def || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_client_add: hub, def or out is NULL");
    if (!hub->have_frame)
        return pcs_error_set(PCS_E_STATE, "pcs_sync_client_add: the hub has no frame yet "
                                          "(call pcs_sync_hub_update after the first tick)");
    size_t layout_len = 0;
    pcs_status st = check_def(hub, def);
    if (st == PCS_OK)
        st = layout_size(hub, def, &layout_len);
    if (st != PCS_OK)
        return st;
    pcs_sync_client *c = calloc(1, sizeof *c);
    if (!c)
        return pcs_error_set(PCS_E_NOMEM, "pcs_sync_client_add: cannot allocate the client");
    c->hub = hub;
    c->n_slots = def->n_channels;
    st = client_alloc(c, def->n_channels);
    if (st != PCS_OK) {
        pcs_sync_client_destroy(c);
        return st;
    }
    c->layout_len = layout_len;
    init_slots(c, def);
    init_budget(c, &def->budget);
    init_periods(c);
    c->message_max = message_bound(c);
    c->phase = SYNC_PH_LAYOUT;
    *out = c;
    return PCS_OK;
}

void pcs_sync_client_destroy(pcs_sync_client *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c->rec_slots);
    free(c->order);
    free(c->picked);
    free(c->cost);
    free(c);
}

uint32_t pcs_sync_client_slot_count(const pcs_sync_client *c)
{
    return c ? c->n_slots : 0;
}

size_t pcs_sync_client_message_max(const pcs_sync_client *c)
{
    return c ? c->message_max : 0;
}

pcs_status pcs_sync_client_request_keyframe(pcs_sync_client *c)
{
    if (!c)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_client_request_keyframe: client is NULL");
    c->keyframe_wanted = 1;
    return PCS_OK;
}

pcs_status pcs_sync_client_stats_get(const pcs_sync_client *c, pcs_sync_client_stats *out)
{
    if (!c || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_client_stats_get: client or out is NULL");
    *out = c->st;
    for (unsigned i = 0; i < PCS_SYNC_BUCKETS; i++)
        out->bucket_tokens[i] = (double)c->tokens[i] / 1000.0;
    out->level = c->level;
    return PCS_OK;
}

static uint32_t slot_period(const pcs_sync_client *c, const sync_slot *s)
{
    switch (s->cls) {
    case PCS_SYNC_GAUGE:
        return (uint32_t)c->p_gauge[sync_gauge_step(c->level, s->prio)];
    case PCS_SYNC_DISPLAY:
        return (uint32_t)c->p_display;
    case PCS_SYNC_ACOUSTIC:
        return (uint32_t)c->p_acoustic;
    case PCS_SYNC_PLAYER:
        return (uint32_t)c->p_player;
    case PCS_SYNC_RECORDER:
        return (uint32_t)c->hub->rec_period;
    default:
        return 0;
    }
}

pcs_status pcs_sync_slot_stats_get(const pcs_sync_client *c, uint32_t slot,
                                   pcs_sync_slot_stats *out)
{
    if (!c || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_slot_stats_get: client or out is NULL");
    if (slot >= c->n_slots)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "pcs_sync_slot_stats_get: slot %u, the client has %u slots", slot,
                             c->n_slots);
    const sync_slot *s = &c->slots[slot];
    *out = (pcs_sync_slot_stats){.deliveries = s->deliveries,
                                 .sends = s->sends,
                                 .deferred = s->deferred,
                                 .last_tick = s->last_tick,
                                 .max_gap_ticks = s->max_gap,
                                 .sent_value = s->sent,
                                 .period_ticks = slot_period(c, s)};
    return PCS_OK;
}
