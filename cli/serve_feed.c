/**
 * @file serve_feed.c
 * @brief The page's feed until the delta-sync library lands: every slot's
 *        value as JSON, at 10 Hz of simulated time, and a keyframe on
 *        subscribe. The interface (cli/serve_feed.h) is the sync library's
 *        shape, so replacing this file replaces the feed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_feed.h"

const char *const feed_format = "json";

struct feed_hub {
    const pcs_snapshot_pool *pool;
    pcs_reader *reader;
    double dt_s;
    uint32_t n;
    uint32_t *ids;
    double *vals;
    uint64_t tick;
    int have;
};

struct feed_client {
    feed_hub *hub;
    uint32_t n;
    uint32_t *ids;
    uint32_t period; /* ticks between messages (10 Hz) */
    uint64_t last;   /* tick of the last message; UINT64_MAX: none */
    uint64_t bytes;
};

feed_hub *feed_hub_create(const pcs_snapshot_pool *pool, double dt_s)
{
    feed_hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->pool = pool;
    h->dt_s = dt_s;
    h->n = pcs_snapshot_channel_count(pool);
    h->ids = malloc(h->n * sizeof *h->ids);
    h->vals = malloc(h->n * sizeof *h->vals);
    if (!h->ids || !h->vals || pcs_reader_open(pool, &h->reader) != PCS_OK) {
        feed_hub_destroy(h);
        return NULL;
    }
    for (uint32_t i = 0; i < h->n; i++)
        h->ids[i] = i;
    return h;
}

void feed_hub_destroy(feed_hub *h)
{
    if (!h)
        return;
    pcs_reader_close(h->reader);
    free(h->ids);
    free(h->vals);
    free(h);
}

int feed_hub_update(feed_hub *h)
{
    uint64_t tick;
    if (pcs_snapshot_read(h->reader, h->ids, h->n, h->vals, &tick) != PCS_OK)
        return h->have ? 0 : -1;
    h->tick = tick + 1;
    h->have = 1;
    return 0;
}

feed_client *feed_client_add(feed_hub *h, const feed_slot *slots, uint32_t n, char *err,
                             size_t err_len)
{
    feed_client *c = calloc(1, sizeof *c);
    if (c)
        c->ids = malloc((n ? n : 1) * sizeof *c->ids);
    if (!c || !c->ids) {
        snprintf(err, err_len, "out of memory for %u slots", n);
        free(c);
        return NULL;
    }
    c->hub = h;
    c->n = n;
    for (uint32_t i = 0; i < n; i++)
        c->ids[i] = slots[i].channel;
    double p = round(0.1 / h->dt_s);
    c->period = p < 1.0 ? 1u : (uint32_t)p;
    c->last = UINT64_MAX;
    return c;
}

void feed_client_destroy(feed_client *c)
{
    if (!c)
        return;
    free(c->ids);
    free(c);
}

size_t feed_message_max(const feed_client *c)
{
    return 96u + 26u * (size_t)c->n;
}

void feed_keyframe(feed_client *c)
{
    c->last = UINT64_MAX;
}

int feed_encode(feed_client *c, uint8_t *buf, size_t cap, size_t *len, int *binary)
{
    feed_hub *h = c->hub;
    *len = 0;
    *binary = 0;
    if (!h->have || (c->last != UINT64_MAX && h->tick - c->last < c->period) || h->tick == c->last)
        return 0;
    if (cap < feed_message_max(c))
        return -1;
    char *p = (char *)buf, *end = (char *)buf + cap;
    p += snprintf(p, (size_t)(end - p), "{\"type\":\"obs\",\"tick\":%llu,\"values\":[",
                  (unsigned long long)h->tick);
    for (uint32_t i = 0; i < c->n; i++) {
        double v = h->vals[c->ids[i]];
        if (isfinite(v))
            p += snprintf(p, (size_t)(end - p), "%s%.9g", i ? "," : "", v);
        else
            p += snprintf(p, (size_t)(end - p), "%snull", i ? "," : "");
    }
    p += snprintf(p, (size_t)(end - p), "]}");
    *len = (size_t)(p - (char *)buf);
    c->last = h->tick;
    c->bytes += *len;
    return 0;
}

void feed_budget_json(const feed_client *c, char *out, size_t len)
{
    snprintf(out, len, "\"format\":\"json\",\"level\":0,\"bytes\":%llu",
             (unsigned long long)c->bytes);
}
