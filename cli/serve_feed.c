/**
 * @file serve_feed.c
 * @brief The page's feed: the library's delta sync (include/pcsim/sync.h,
 *        docs/sync.md). One hub per world build, one sync client per page;
 *        each sync message goes out as one binary WebSocket message, which
 *        web/sync.js decodes in the page.
 *
 * Quanta come from pcs_sync_quantum_suggest by the channel's unit (1 for
 * u32 channels: alarm states and flags are exact). The hub records the
 * channels feed_hub_create is given (the page's trend charts), 10 minutes at
 * 1 point per simulated second, so a page that opens mid-transient sees the
 * last 10 minutes at once. Budgets are the library's defaults (2048 B/s per
 * page in simulated time: at --speed X a page gets X times that per wall
 * second).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_feed.h"
#include "pcsim/sync.h"

const char *const feed_format = "sync1";

struct feed_hub {
    const pcs_snapshot_pool *pool;
    pcs_sync_hub *hub;
    int updated;
};

feed_hub *feed_hub_create(const pcs_snapshot_pool *pool, double dt_s, const uint32_t *recorders,
                          uint32_t n_recorders)
{
    feed_hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    pcs_sync_hub_def def = pcs_sync_hub_default();
    def.dt_s = dt_s;
    def.recorder_ids = recorders;
    def.n_recorders = n_recorders;
    h->pool = pool;
    if (pcs_sync_hub_create(pool, &def, &h->hub) == PCS_OK)
        return h;
    free(h);
    return NULL;
}

void feed_hub_destroy(feed_hub *h)
{
    if (!h)
        return;
    pcs_sync_hub_destroy(h->hub);
    free(h);
}

int feed_hub_update(feed_hub *h)
{
    pcs_status st = pcs_sync_hub_update(h->hub);
    if (st == PCS_OK)
        h->updated = 1;
    return h->updated ? 0 : -1;
}

feed_client *feed_client_add(feed_hub *h, const feed_slot *slots, uint32_t n, char *err,
                             size_t err_len)
{
    if (!h->updated) {
        snprintf(err, err_len, "nothing published yet");
        return NULL;
    }
    pcs_sync_channel *ch = calloc(n ? n : 1, sizeof *ch);
    if (!ch) {
        snprintf(err, err_len, "out of memory for %u slots", n);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        pcs_channel_info ci;
        uint32_t got = 0;
        ch[i].channel = slots[i].channel;
        ch[i].rate_class = (uint32_t)slots[i].rate_class;
        ch[i].priority = slots[i].priority;
        if (pcs_channel_list(h->pool, slots[i].channel, &ci, 1, &got) == PCS_OK && got == 1)
            ch[i].quantum = ci.kind == PCS_CHANNEL_U32 ? 1.0 : pcs_sync_quantum_suggest(ci.unit);
        else
            ch[i].quantum = 0.0;
    }
    pcs_sync_client_def def = pcs_sync_client_default();
    def.channels = ch;
    def.n_channels = n;
    feed_client *c = NULL;
    pcs_status st = pcs_sync_client_add(h->hub, &def, &c);
    free(ch);
    if (st != PCS_OK)
        snprintf(err, err_len, "%s", pcs_last_error());
    return st == PCS_OK ? c : NULL;
}

void feed_client_destroy(feed_client *c)
{
    pcs_sync_client_destroy(c);
}

size_t feed_message_max(const feed_client *c)
{
    return pcs_sync_client_message_max(c);
}

void feed_keyframe(feed_client *c)
{
    pcs_sync_client_request_keyframe(c);
}

int feed_encode(feed_client *c, uint8_t *buf, size_t cap, size_t *len, int *binary)
{
    *binary = 1;
    return pcs_sync_encode(c, buf, cap, len) == PCS_OK ? 0 : -1;
}

void feed_budget_json(const feed_client *c, char *out, size_t len)
{
    pcs_sync_client_stats s;
    if (pcs_sync_client_stats_get(c, &s) != PCS_OK) {
        snprintf(out, len, "\"format\":\"sync1\"");
        return;
    }
    snprintf(out, len,
             "\"format\":\"sync1\",\"level\":%u,\"max_level\":%u,\"deferred\":%llu,"
             "\"instruments\":%.0f,\"acoustics\":%.0f,\"player\":%.0f,\"reserve\":%.0f,"
             "\"bytes\":%llu,\"setup_bytes\":%llu,\"recorder_lost\":%llu",
             s.level, s.max_level, (unsigned long long)s.deferred,
             s.bucket_tokens[PCS_SYNC_BUCKET_INSTRUMENTS],
             s.bucket_tokens[PCS_SYNC_BUCKET_ACOUSTICS], s.bucket_tokens[PCS_SYNC_BUCKET_PLAYER],
             s.bucket_tokens[PCS_SYNC_BUCKET_RESERVE], (unsigned long long)s.bytes,
             (unsigned long long)s.setup_bytes, (unsigned long long)s.recorder_lost);
}
