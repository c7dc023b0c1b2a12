/**
 * @file serve_web.c
 * @brief What the control room's WebSocket says (docs/protocol.md, "HTTP
 *        and WebSocket"): the hello with the channel list, the page's
 *        subscription (one feed client each, cli/serve_feed.h), its acts,
 *        the station's events and a status line once a second.
 *
 * Page to server, text JSON, one object a message, unknown keys refused:
 *   {"type":"subscribe","channels":[{"name":..,"class":"gauge","priority":0},..]}
 *   {"type":"act","id":7,"target":"u1.pump2","command":"pump_trip","value":0}
 *   {"type":"keyframe"}
 * A message that is not such an object is answered with a fatal error and
 * the socket closes (1008; cli/serve_webmsg.c decodes and checks it); a
 * refused act or subscription is a non-fatal
 * error and the page stays.
 *
 * Acts wait in one bounded queue (WEB_ACT_QUEUE, WEB_ACT_PER_CLIENT each)
 * for the world thread's request slot, which resolves them on the station
 * as the TCP controller's acts are resolved; then they enter the same
 * command source, under the same rate limit.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve_feed.h"
#include "cli/serve_http.h"
#include "cli/serve_webmsg.h"

/** Events read and forwarded per pace at most (the rest wait). */
#define WEB_EVENTS_PER_PACE 256u
/** Most channels the hub records for trend history (PCS_SYNC_RECORDERS_MAX). */
#define WEB_RECORDERS_MAX 64u

/* The channels the trend charts draw, by name pattern (fnmatch): the hub
 * keeps their history, and a page may subscribe them as recorders. Matched
 * against the station's channel list at each build, so a channel the model
 * does not have (yet) is simply not recorded. */
static const char *const recorder_patterns[] = {
    "u*.core.power",    "u*.rcs.pressure", "u*.pzr.pressure",  "u*.pzr.level",
    "u*.coolant.t_avg", "u*.core.t_inlet", "u*.coolant.t_out", "u*.loop?.flow",
};

typedef struct act_item {
    web_client *c; /* NULL once the page left */
    int has_id;
    uint64_t id;
    char target[SERVE_NAME_MAX + 1];
    char command[SERVE_COMMAND_MAX + 1];
    double value;
} act_item;

/* One page. */
typedef struct page {
    web_client *c;
    struct page *prev, *next;
    int greeted;
    feed_slot *slots; /* its subscription, kept across resets */
    uint32_t n_slots;
    feed_client *feed;
    uint32_t acts; /* waiting in the queue */
    uint64_t sent; /* feed and event bytes queued so far */
    uint64_t last_status_ns;
} page;

struct web_state {
    serve_http *h;
    server *srv;
    const serve_opts *opt;
    page *pages;
    uint64_t gen; /* world generation of hub and events; 0: none */
    feed_hub *hub;
    uint32_t recorders[WEB_RECORDERS_MAX];
    uint32_t n_recorders;
    pcs_reader *events;
    const pcs_station *station;
    act_item q[WEB_ACT_QUEUE];
    uint32_t q_head, q_len;
    int inflight;
    uint8_t *buf;
    size_t cap;
    web_msg msg; /* decode scratch (about 70 KB) */
};

static page *page_of(web_client *c)
{
    return *web_client_slot(c);
}

/* ---- Sending ---------------------------------------------------------- */

static void send_json(page *p, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return;
    size_t n = strlen(s);
    if (web_send(p->c, s, n, 0) == 0)
        p->sent += n;
    free(s);
}

static void send_error(page *p, const json_t *id, const char *code, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void send_error(page *p, const json_t *id, const char *code, int fatal, const char *fmt, ...)
{
    char text[PCS_LAST_ERROR_MAX + 160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_t *o = json_pack("{s:s,s:s,s:s,s:b}", "type", "error", "code", code, "message", text,
                          "fatal", fatal);
    if (o && id)
        json_object_set(o, "id", (json_t *)id);
    if (o)
        send_json(p, o);
    if (fatal)
        web_close(p->c, 1008, code);
}

/* ---- The world's generation --------------------------------------------- */

static void drop_world(web_state *w)
{
    for (page *p = w->pages; p; p = p->next) {
        feed_client_destroy(p->feed);
        p->feed = NULL;
    }
    feed_hub_destroy(w->hub);
    w->hub = NULL;
    pcs_reader_close(w->events);
    w->events = NULL;
    w->station = NULL;
    w->gen = 0;
}

static void subscribe_feed(web_state *w, page *p)
{
    char err[256];
    if (!w->hub || !p->n_slots || p->feed)
        return;
    if (feed_hub_update(w->hub) != 0)
        return; /* nothing published yet: the next pace tries again */
    p->feed = feed_client_add(w->hub, p->slots, p->n_slots, err, sizeof err);
    if (!p->feed) {
        send_error(p, NULL, "subscribe_failed", 0, "subscribe: %s", err);
        free(p->slots);
        p->slots = NULL;
        p->n_slots = 0;
        return;
    }
    size_t need = feed_message_max(p->feed);
    if (need > w->cap) {
        uint8_t *b = realloc(w->buf, need);
        if (!b) {
            feed_client_destroy(p->feed);
            p->feed = NULL;
            send_error(p, NULL, "no_memory", 0, "subscribe: out of memory");
            return;
        }
        w->buf = b;
        w->cap = need;
    }
    send_json(p, json_pack("{s:s,s:I,s:s}", "type", "subscribe", "slots", (json_int_t)p->n_slots,
                           "feed", feed_format));
}

/* The build's channels that match recorder_patterns, in channel order. */
static void pick_recorders(web_state *w, const pcs_snapshot_pool *pool)
{
    uint32_t n = pcs_snapshot_channel_count(pool), got;
    pcs_channel_info ci[64];
    w->n_recorders = 0;
    for (uint32_t first = 0; first < n && w->n_recorders < WEB_RECORDERS_MAX; first += got) {
        if (pcs_channel_list(pool, first, ci, 64, &got) != PCS_OK || got == 0)
            break;
        for (uint32_t i = 0; i < got && w->n_recorders < WEB_RECORDERS_MAX; i++)
            for (size_t k = 0; k < sizeof recorder_patterns / sizeof *recorder_patterns; k++)
                if (fnmatch(recorder_patterns[k], ci[i].name, 0) == 0) {
                    w->recorders[w->n_recorders++] = first + i;
                    break;
                }
    }
}

/* The hub and event reader follow the current build. @return the world or NULL. */
static const serve_world_info *world(web_state *w)
{
    const serve_world_info *info = serve_net_world(w->srv);
    if (!info) {
        if (w->gen)
            drop_world(w);
        return NULL;
    }
    if (w->gen == info->generation)
        return info;
    drop_world(w);
    pick_recorders(w, info->pool);
    w->hub = feed_hub_create(info->pool, info->dt_s, w->recorders, w->n_recorders);
    if (!w->hub || pcs_reader_open(info->pool, &w->events) != PCS_OK) {
        drop_world(w);
        return NULL;
    }
    w->station = info->station;
    w->gen = info->generation;
    for (page *p = w->pages; p; p = p->next)
        subscribe_feed(w, p);
    return info;
}

/* ---- Hello -------------------------------------------------------------- */

static void greet(web_state *w, page *p)
{
    const serve_world_info *info = world(w);
    if (!info || p->greeted)
        return;
    uint32_t n = pcs_snapshot_channel_count(info->pool);
    json_t *chans = json_array();
    pcs_channel_info ci[64];
    for (uint32_t first = 0, got; first < n; first += got) {
        if (pcs_channel_list(info->pool, first, ci, 64, &got) != PCS_OK || got == 0)
            break;
        for (uint32_t i = 0; i < got; i++)
            json_array_append_new(
                chans, json_pack("[s,s,i]", ci[i].name, ci[i].unit, ci[i].kind == PCS_CHANNEL_U32));
    }
    char name[64];
    snprintf(name, sizeof name, "pcsim %s", pcs_version());
    json_t *o = json_pack(
        "{s:s,s:s,s:I,s:s,s:b,s:s,s:o,s:f,s:I,s:s,s:I,s:I,s:i,s:o}", "type", "hello", "server",
        name, "client", (json_int_t)web_client_serial(p->c), "scenario", serve_net_scenario(w->srv),
        "read_only", w->opt->read_only, "mode", serve_mode_name(w->opt->mode),
        /* fast mode has no speed: null, as in the TCP hello */
        "speed", w->opt->mode == SERVE_MODE_FAST ? json_null() : json_real(w->opt->speed), "dt_s",
        info->dt_s, "tick", (json_int_t)serve_net_tick(w->srv), "feed", feed_format, "max_message",
        (json_int_t)WEB_MAX_MESSAGE, "max_slots", (json_int_t)FEED_SLOTS_MAX, "units",
        (int)info->units, "channels", chans);
    json_t *rec = json_array();
    for (uint32_t i = 0; i < w->n_recorders; i++) {
        pcs_channel_info one;
        uint32_t got = 0;
        if (pcs_channel_list(info->pool, w->recorders[i], &one, 1, &got) == PCS_OK && got)
            json_array_append_new(rec, json_string(one.name));
    }
    if (o)
        json_object_set_new(o, "recorders", rec);
    else
        json_decref(rec);
    if (o)
        send_json(p, o);
    p->greeted = 1;
}

void web_open(web_state *w, web_client *c)
{
    page *p = calloc(1, sizeof *p);
    if (!p) {
        web_close(c, 1011, "out of memory");
        return;
    }
    p->c = c;
    *web_client_slot(c) = p;
    p->next = w->pages;
    if (w->pages)
        w->pages->prev = p;
    w->pages = p;
    greet(w, p);
}

void web_closed(web_state *w, web_client *c)
{
    page *p = page_of(c);
    if (!p)
        return;
    for (uint32_t i = 0; i < w->q_len; i++) {
        act_item *a = &w->q[(w->q_head + i) % WEB_ACT_QUEUE];
        if (a->c == c)
            a->c = NULL;
    }
    *(p->prev ? &p->prev->next : &w->pages) = p->next; /* whichever link points at p */
    if (p->next)
        p->next->prev = p->prev;
    feed_client_destroy(p->feed);
    free(p->slots);
    free(p);
    *web_client_slot(c) = NULL;
}

/* ---- Subscribe ---------------------------------------------------------- */

static json_t *id_of(const web_msg *m)
{
    return m->has_id ? json_integer((json_int_t)m->id) : NULL;
}

static void on_subscribe(web_state *w, page *p, const web_msg *m)
{
    const serve_world_info *info = world(w);
    if (!info) {
        send_error(p, NULL, "no_world", 0, "subscribe: the world is being reset; try again");
        return;
    }
    feed_slot *slots = malloc(m->n * sizeof *slots);
    if (!slots) {
        send_error(p, NULL, "no_memory", 0, "subscribe: out of memory for %u slots", m->n);
        return;
    }
    for (uint32_t i = 0; i < m->n; i++) {
        if (pcs_snapshot_find(info->pool, web_msg_channel(m, i), &slots[i].channel) != PCS_OK) {
            send_error(p, NULL, "unknown_channel", 0,
                       "subscribe: \"channels\"[%u]: no channel '%s' (%u channels)", i,
                       web_msg_channel(m, i), pcs_snapshot_channel_count(info->pool));
            free(slots); /* the previous subscription stays */
            return;
        }
        slots[i].rate_class = (feed_class)m->rate_class[i];
        slots[i].priority = m->priority[i];
    }
    feed_client_destroy(p->feed);
    p->feed = NULL;
    free(p->slots);
    p->slots = slots;
    p->n_slots = m->n;
    subscribe_feed(w, p); /* replies "subscribe" once the feed runs */
}

/* ---- Acts --------------------------------------------------------------- */

static void on_act(web_state *w, page *p, const web_msg *m)
{
    json_t *id = id_of(m);
    if (w->opt->read_only)
        send_error(p, id, "read_only", 0,
                   "act %s %s: this server is read-only (--read-only): viewers have no controls",
                   m->command, m->target);
    else if (w->q_len == WEB_ACT_QUEUE || p->acts >= WEB_ACT_PER_CLIENT)
        send_error(p, id, "queue_full", 0,
                   "act: %u acts of this page (%u of all pages) wait for the world; try again",
                   p->acts, w->q_len);
    else {
        act_item *a = &w->q[(w->q_head + w->q_len++) % WEB_ACT_QUEUE];
        memset(a, 0, sizeof *a);
        a->c = p->c;
        a->has_id = m->has_id;
        a->id = m->id;
        memcpy(a->target, m->target, sizeof a->target);
        memcpy(a->command, m->command, sizeof a->command);
        a->value = m->value;
        p->acts++;
        web_idle(w);
    }
    json_decref(id);
}

void web_idle(web_state *w)
{
    while (!w->inflight && w->q_len) {
        act_item *a = &w->q[w->q_head];
        if (!a->c) { /* its page left */
            w->q_head = (w->q_head + 1) % WEB_ACT_QUEUE;
            w->q_len--;
            continue;
        }
        serve_req r;
        memset(&r, 0, offsetof(serve_req, path));
        r.path[0] = '\0';
        r.kind = SERVE_REQ_ACT;
        memcpy(r.target, a->target, sizeof r.target);
        memcpy(r.command, a->command, sizeof r.command);
        r.value = a->value;
        if (serve_net_request(w->srv, &r) != 0)
            return; /* the TCP controller's request runs: serve_http_idle comes after it */
        w->inflight = 1;
    }
}

void web_reply(web_state *w, const serve_req *r)
{
    act_item a = w->q[w->q_head];
    w->q_head = (w->q_head + 1) % WEB_ACT_QUEUE;
    w->q_len--;
    w->inflight = 0;
    page *p = a.c ? page_of(a.c) : NULL;
    if (p) {
        p->acts--;
        json_t *id = a.has_id ? json_integer((json_int_t)a.id) : NULL;
        if (r->status != PCS_OK) {
            send_error(p, id, r->status == PCS_E_NOTFOUND ? "unknown_command" : "bad_value", 0,
                       "%s", r->error);
        } else {
            int rc = serve_net_submit(w->srv, &r->cmd);
            if (rc == 1)
                send_error(p, id, "rate_limited", 0, "%s", pcs_last_error());
            else if (rc == 2)
                send_error(p, id, "queue_full", 0,
                           "act: the command queue holds %u commands; wait a tick",
                           SERVE_SOURCE_CAPACITY);
            else {
                json_t *o =
                    json_pack("{s:s,s:I,s:s,s:s}", "type", "act", "tick", (json_int_t)r->tick,
                              "target", a.target, "command", a.command);
                if (o && id)
                    json_object_set(o, "id", id);
                if (o)
                    send_json(p, o);
            }
        }
        json_decref(id);
    }
    web_idle(w);
}

/* ---- Messages ----------------------------------------------------------- */

void web_message(web_state *w, web_client *c, const char *data, size_t len, int binary)
{
    page *p = page_of(c);
    if (!p)
        return;
    if (binary) {
        send_error(p, NULL, "bad_message", 1, "binary messages are not accepted; send JSON text");
        return;
    }
    web_err err = {0};
    if (web_msg_decode(data, len, &w->msg, &err) != 0) {
        send_error(p, NULL, err.code, 1, "%s", err.message);
        return;
    }
    switch (w->msg.type) {
    case WEB_MSG_SUBSCRIBE:
        on_subscribe(w, p, &w->msg);
        break;
    case WEB_MSG_ACT:
        on_act(w, p, &w->msg);
        break;
    case WEB_MSG_KEYFRAME:
        if (p->feed)
            feed_keyframe(p->feed);
        break;
    }
}

/* ---- Pacing: feed, events, status --------------------------------------- */

static void feed_page(web_state *w, page *p)
{
    for (int k = 0; k < 16 && p->feed; k++) {
        if (web_queued(p->c) >= w->opt->send_queue / 2)
            return; /* the values wait in the feed; a slow page gets them later */
        size_t len;
        int binary;
        if (feed_encode(p->feed, w->buf, w->cap, &len, &binary) != 0 || len == 0)
            return;
        if (web_send(p->c, w->buf, len, binary) == 0)
            p->sent += len;
    }
}

static void events(web_state *w, const serve_world_info *info)
{
    pcs_event ev[32];
    uint32_t got, total = 0;
    uint64_t missed;
    char text[256];
    while (total < WEB_EVENTS_PER_PACE &&
           pcs_events_poll(w->events, ev, 32, &got, &missed) == PCS_OK && got > 0) {
        total += got;
        for (uint32_t i = 0; i < got; i++) {
            if (!pcs_event_describe(w->station, &ev[i], text, sizeof text))
                continue;
            for (page *p = w->pages; p; p = p->next)
                if (p->greeted)
                    send_json(p, json_pack("{s:s,s:I,s:f,s:i,s:i,s:s}", "type", "event", "tick",
                                           (json_int_t)ev[i].tick, "time_s",
                                           (double)ev[i].tick * info->dt_s, "kind", (int)ev[i].kind,
                                           "subject", (int)ev[i].subject, "text", text));
        }
    }
}

static void status(web_state *w, page *p, uint64_t now)
{
    if (now - p->last_status_ns < 1000000000u)
        return;
    p->last_status_ns = now;
    char budget[256] = "";
    if (p->feed)
        feed_budget_json(p->feed, budget, sizeof budget);
    char buf[512];
    int n = snprintf(buf, sizeof buf,
                     "{\"type\":\"status\",\"tick\":%llu,\"tick_rate\":%.2f,\"sent_bytes\":%llu,"
                     "\"queued\":%zu,\"budget\":{%s}}",
                     (unsigned long long)serve_net_tick(w->srv), serve_net_tick_rate(w->srv),
                     (unsigned long long)p->sent, web_queued(p->c), budget);
    if (n > 0 && (size_t)n < sizeof buf && web_send(p->c, buf, (size_t)n, 0) == 0)
        p->sent += (size_t)n;
}

void web_pace(web_state *w)
{
    const serve_world_info *info = world(w);
    uint64_t now = serve_now_ns();
    int fresh = info && w->hub && feed_hub_update(w->hub) == 0;
    for (page *p = w->pages; p; p = p->next) {
        if (!p->greeted)
            greet(w, p);
        if (fresh && !p->feed && p->n_slots)
            subscribe_feed(w, p);
        if (fresh)
            feed_page(w, p);
        if (p->greeted)
            status(w, p, now);
    }
    if (info && w->events)
        events(w, info);
}

void web_world_gone(web_state *w)
{
    drop_world(w);
}

web_state *web_state_create(serve_http *h, server *s, const serve_opts *opt)
{
    web_state *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->h = h;
    w->srv = s;
    w->opt = opt;
    return w;
}

void web_state_destroy(web_state *w)
{
    if (!w)
        return;
    drop_world(w);
    while (w->pages) {
        page *p = w->pages;
        w->pages = p->next; /* its web_client is lws's memory, gone by now */
        feed_client_destroy(p->feed);
        free(p->slots);
        free(p);
    }
    free(w->buf);
    free(w);
}
