/**
 * @file hub.c
 * @brief The sync hub: one snapshot reader per sender thread, the newest
 *        frame of every channel, and the recorder history ring.
 *
 * The hub is the only place sync touches the snapshot pool: one copy-out
 * read of every channel per update (pcs_snapshot_read, lock-free: the tick
 * never waits for it), shared by every client of the hub, so a hundred
 * clients cost one read, not a hundred. The ring keeps the last history_s of
 * recorder points so a client that subscribes (or reconnects) gets the
 * recent trend at once; it is sized at create and never grows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync_internal.h"

uint64_t sync_period_ticks(double hz, double dt_s)
{
    double p = nearbyint(1.0 / (hz * dt_s));
    return p < 1.0 ? 1u : (uint64_t)p;
}

pcs_sync_hub_def pcs_sync_hub_default(void)
{
    return (pcs_sync_hub_def){.dt_s = 0.0,
                              .recorder_ids = NULL,
                              .n_recorders = 0,
                              .history_s = 600.0,
                              .recorder_hz = PCS_SYNC_RECORDER_HZ};
}

static pcs_status hub_check(const pcs_snapshot_pool *pool, const pcs_sync_hub_def *d)
{
    if (!(d->dt_s > 0.0 && d->dt_s <= 3600.0))
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_hub_create: dt_s = %g s, allowed (0, 3600]",
                             d->dt_s);
    if (!(d->history_s > 0.0 && d->history_s <= 86400.0))
        return pcs_error_set(
            PCS_E_INVAL, "pcs_sync_hub_create: history_s = %g s, allowed (0, 86400]", d->history_s);
    if (!(d->recorder_hz > 0.0 && d->recorder_hz <= 1000.0))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_hub_create: recorder_hz = %g, allowed (0, 1000]",
                             d->recorder_hz);
    if (d->n_recorders > PCS_SYNC_RECORDERS_MAX)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_hub_create: n_recorders = %u, allowed [0, %u]",
                             d->n_recorders, PCS_SYNC_RECORDERS_MAX);
    if (d->n_recorders > 0 && !d->recorder_ids)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_sync_hub_create: recorder_ids is NULL with n_recorders = %u",
                             d->n_recorders);
    uint32_t n = pcs_snapshot_channel_count(pool);
    for (uint32_t i = 0; i < d->n_recorders; i++)
        if (d->recorder_ids[i] >= n)
            return pcs_error_set(PCS_E_NOTFOUND,
                                 "pcs_sync_hub_create: recorder_ids[%u] = %u, the pool has %u "
                                 "channels (ids [0, %u))",
                                 i, d->recorder_ids[i], n, n);
    return PCS_OK;
}

static pcs_status hub_alloc(pcs_sync_hub *h, const pcs_sync_hub_def *d)
{
    double points = ceil(d->history_s * d->recorder_hz);
    h->ring_cap = points < 1.0 ? 1u : (uint32_t)points;
    size_t rows = (size_t)h->ring_cap;
    h->frame = calloc(h->n_channels ? h->n_channels : 1u, sizeof *h->frame);
    h->rec_ids = calloc(h->n_rec ? h->n_rec : 1u, sizeof *h->rec_ids);
    h->ring_values = calloc(rows * (h->n_rec ? h->n_rec : 1u), sizeof *h->ring_values);
    h->ring_ticks = calloc(rows, sizeof *h->ring_ticks);
    if (!h->frame || !h->rec_ids || !h->ring_values || !h->ring_ticks)
        return pcs_error_set(PCS_E_NOMEM,
                             "pcs_sync_hub_create: cannot allocate %u channels and a ring of %u "
                             "points x %u recorders",
                             h->n_channels, h->ring_cap, h->n_rec);
    if (h->n_rec)
        memcpy(h->rec_ids, d->recorder_ids, h->n_rec * sizeof *h->rec_ids);
    return PCS_OK;
}

pcs_status pcs_sync_hub_create(const pcs_snapshot_pool *pool, const pcs_sync_hub_def *def,
                               pcs_sync_hub **out)
{
    if (!pool || !def || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_hub_create: pool, def or out is NULL");
    pcs_status st = hub_check(pool, def);
    if (st != PCS_OK)
        return st;
    pcs_sync_hub *h = calloc(1, sizeof *h);
    if (!h)
        return pcs_error_set(PCS_E_NOMEM, "pcs_sync_hub_create: cannot allocate the hub");
    h->pool = pool;
    h->dt_s = def->dt_s;
    h->layout = pcs_snapshot_layout_version(pool);
    h->n_channels = pcs_snapshot_channel_count(pool);
    h->n_rec = def->n_recorders;
    h->rec_period = sync_period_ticks(def->recorder_hz, def->dt_s);
    st = hub_alloc(h, def);
    if (st == PCS_OK)
        st = pcs_reader_open(pool, &h->reader);
    if (st != PCS_OK) {
        pcs_sync_hub_destroy(h);
        return st;
    }
    *out = h;
    return PCS_OK;
}

void pcs_sync_hub_destroy(pcs_sync_hub *h)
{
    if (!h)
        return;
    pcs_reader_close(h->reader);
    free(h->frame);
    free(h->rec_ids);
    free(h->ring_values);
    free(h->ring_ticks);
    free(h);
}

/* Append one point when the frame's tick is in a later period than the last
 * point's (the first frame always gives one). */
static void hub_sample(pcs_sync_hub *h)
{
    uint64_t period = h->tick / h->rec_period;
    if (h->samples > 0 && period <= h->last_period)
        return;
    size_t row = (size_t)(h->samples % h->ring_cap);
    for (uint32_t r = 0; r < h->n_rec; r++)
        h->ring_values[row * h->n_rec + r] = h->frame[h->rec_ids[r]];
    h->ring_ticks[row] = h->tick;
    h->last_period = period;
    h->samples++;
}

pcs_status pcs_sync_hub_update(pcs_sync_hub *h)
{
    if (!h)
        return pcs_error_set(PCS_E_INVAL, "pcs_sync_hub_update: hub is NULL");
    uint64_t tick;
    pcs_status st = pcs_snapshot_read(h->reader, NULL, h->n_channels, h->frame, &tick);
    if (st != PCS_OK)
        return st;
    h->tick = tick;
    h->have_frame = 1;
    hub_sample(h);
    return PCS_OK;
}

uint64_t pcs_sync_hub_tick(const pcs_sync_hub *h)
{
    return h ? h->tick : 0;
}

double pcs_sync_hub_value(const pcs_sync_hub *h, uint32_t channel)
{
    return h && channel < h->n_channels ? h->frame[channel] : NAN;
}

uint32_t pcs_sync_hub_channel_count(const pcs_sync_hub *h)
{
    return h ? h->n_channels : 0;
}

uint64_t pcs_sync_hub_samples(const pcs_sync_hub *h)
{
    return h ? h->samples : 0;
}
