/**
 * @file serve_net.c
 * @brief The network thread of `pcsim serve`: the libuv loop, connections,
 *        bounded input and output, and the slow-consumer and max-clients
 *        rules (docs/protocol.md).
 *
 * Why nothing here can block the tick or grow without bound:
 *  - The world thread never waits for this one. It posts replies and tick
 *    notices with uv_async_send, which never blocks (libuv coalesces them).
 *    Observations are copied out of the snapshot pool by this thread's
 *    readers, commands go into a bounded command source; both never wait.
 *  - Input: a client's buffer holds at most one frame header and a payload
 *    of SERVE_MAX_MESSAGE; a header announcing more is refused from its four
 *    bytes. While a client waits (for the world, or for its send queue to
 *    drain) its input is not read at all, so TCP flow control pushes back.
 *  - Output: each client's queued bytes are counted. Requests are not
 *    processed while the queue is at its bound (--send-queue), so replies
 *    cannot pile up; subscription pushes made while it is full replace one
 *    another in a single pending slot (the newest observation wins). A
 *    queue that stays full for --slow-consumer-ms is a slow consumer: the
 *    client is dropped with that reason.
 *  - Connections: at most --max-clients open ones; more are told so and
 *    closed. A client dropped for a protocol error gets one error message,
 *    then a FIN; its further input is read and discarded for at most
 *    SERVE_LINGER_MS so the error is not lost to a reset.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/serve.h"
#include "cli/serve_http.h"

/** How long a client being closed may take to read its last message, ms. */
#define SERVE_LINGER_MS 2000u
/** Closing connections kept beyond max-clients before new ones are cut at once. */
#define SERVE_CLOSING_SLACK 64u
/** Input buffer: one header and one largest payload. */
#define SERVE_INPUT_MAX (SERVE_FRAME_HEADER + SERVE_MAX_MESSAGE)

typedef enum client_state { CLIENT_HELLO, CLIENT_READY, CLIENT_CLOSING } client_state;

typedef struct server server;

/** One queued frame; freed by its write callback. */
typedef struct sendbuf {
    uv_write_t req;
    size_t len;
    char data[];
} sendbuf;

typedef struct client {
    uv_tcp_t tcp; /**< tcp.data points back here */
    uv_shutdown_t shutdown;
    server *srv;
    struct client *prev, *next;
    uint64_t serial; /**< connection number, for logs and the hello reply */
    char peer[64];
    client_state state;
    serve_role role;
    int reading;        /**< uv_read_start is in effect */
    int handle_closing; /**< uv_close was called */
    uint8_t *in;        /**< input buffer: at most SERVE_INPUT_MAX bytes */
    size_t in_len, in_cap;
    size_t queued;          /**< bytes given to uv_write and not yet written */
    uint64_t full_since_ns; /**< when queued reached the bound; 0: below it */
    char *pending_obs;      /**< newest push that did not fit the queue */
    size_t pending_len, pending_cap;
    uint64_t closing_since_ns;
    int waiting; /**< its world request is in flight */
    int stalled; /**< a message waits for the world or the pool */
    int has_req_id;
    uint64_t req_id;    /**< id of the request in flight */
    pcs_reader *reader; /**< on the pool of generation reader_gen */
    uint64_t reader_gen;
    uint32_t *ids; /**< resolved channels */
    uint32_t n_ids;
    uint32_t every;     /**< subscription period, ticks; 0: none */
    uint64_t last_push; /**< ticks-run count of the last push; UINT64_MAX: none yet */
} client;

struct server {
    const serve_opts *opt;
    const pcs_scenario *scn;
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_async_t reply_async, tick_async;
    uv_timer_t sweep;
    uv_signal_t sigint, sigterm;
    serve_world world;
    serve_world_info info; /**< the current build's pool and source */
    int have_world;        /**< 0 while a reset is in flight: no pool to read */
    uint64_t push_floor;   /**< publications of the pool up to this one are not pushed */
    int world_busy;        /**< a request is in flight */
    client *requester;     /**< who made it (NULL once it left) */
    client *controller;
    client *clients;
    uint32_t n_open, n_closing;
    uint64_t serials;
    int stopping;
    uint64_t acts_rate_limited;      /**< acts the act source's rate limit refused */
    serve_http *http;                /**< --http: the page and its WebSockets; NULL without */
    int web_request;                 /**< the request in flight is the HTTP side's */
    uint64_t rate_t0_ns, rate_tick0; /**< tick rate: the last second's start */
    double tick_rate;                /**< ticks per wall second over the last second */
    serve_msg msg;                   /**< decode scratch */
    char out[SERVE_FRAME_HEADER + SERVE_MAX_MESSAGE]; /**< reply scratch */
    double vals[SERVE_MAX_CHANNELS];
    uint32_t ids[SERVE_MAX_CHANNELS];
};

enum { CONSUMED = 0, STALL = 1 };

static void process_input(client *c);
static void start_reading(client *c);

/* ---- Sending -------------------------------------------------------------- */

static void close_now(client *c);

static int serve_send_copy(client *c, const char *frame, size_t len);

static void on_write(uv_write_t *req, int status)
{
    sendbuf *b = (sendbuf *)req;
    client *c = req->data;
    c->queued -= b->len;
    free(b);
    if (c->handle_closing)
        return; /* cancelled by uv_close */
    if (status < 0) {
        close_now(c);
        return;
    }
    if (c->state == CLIENT_CLOSING || c->queued >= c->srv->opt->send_queue)
        return;
    c->full_since_ns = 0;
    if (c->pending_len) { /* the newest push that did not fit */
        size_t n = c->pending_len;
        c->pending_len = 0;
        serve_send_copy(c, c->pending_obs, n);
    }
    if (c->in_len || c->stalled)
        process_input(c);
}

/* Queue a copy of one frame. Always queues (a reply to a request the client
 * made, or its last error); pushes go through push_frame. */
static int serve_send_copy(client *c, const char *frame, size_t len)
{
    if (c->handle_closing || len == 0)
        return -1;
    sendbuf *b = malloc(sizeof *b + len);
    if (!b) {
        close_now(c);
        return -1;
    }
    b->len = len;
    memcpy(b->data, frame, len);
    b->req.data = c;
    uv_buf_t ub = uv_buf_init(b->data, (unsigned)len);
    if (uv_write(&b->req, (uv_stream_t *)&c->tcp, &ub, 1, on_write) != 0) {
        free(b);
        close_now(c);
        return -1;
    }
    c->queued += len;
    if (c->queued >= c->srv->opt->send_queue && !c->full_since_ns)
        c->full_since_ns = serve_now_ns();
    return 0;
}

/* A subscription push: queued while there is room, else it replaces the
 * pending one (coalescing to the newest). */
static void push_frame(client *c, const char *frame, size_t len)
{
    if (c->queued < c->srv->opt->send_queue) {
        serve_send_copy(c, frame, len);
        return;
    }
    if (c->pending_cap < len) {
        char *p = realloc(c->pending_obs, len);
        if (!p)
            return; /* dropped: the next push tries again */
        c->pending_obs = p;
        c->pending_cap = len;
    }
    memcpy(c->pending_obs, frame, len);
    c->pending_len = len;
}

/* Replies are written into srv->out. */
static void reply_begin(serve_out *o, client *c, const char *type, int has_id, uint64_t id)
{
    serve_out_begin(o, c->srv->out, sizeof c->srv->out, type);
    if (has_id)
        serve_out_u64(o, "id", id);
}

static void reply_send(client *c, serve_out *o)
{
    size_t n = serve_out_finish(o);
    if (n)
        serve_send_copy(c, c->srv->out, n);
}

static void send_error(client *c, int has_id, uint64_t id, const char *code, int fatal,
                       const char *text)
{
    serve_out o;
    reply_begin(&o, c, "error", has_id, id);
    serve_out_str(&o, "code", code);
    serve_out_str(&o, "message", text);
    serve_out_bool(&o, "fatal", fatal);
    reply_send(c, &o);
}

/* ---- Closing -------------------------------------------------------------- */

static void release_roles(client *c)
{
    server *s = c->srv;
    if (s->controller == c)
        s->controller = NULL;
    if (s->requester == c)
        s->requester = NULL;
    if (c->every) {
        atomic_fetch_sub(&s->world.subscribers, 1);
        c->every = 0;
    }
}

static void on_close(uv_handle_t *h)
{
    client *c = h->data;
    server *s = c->srv;
    *(c->prev ? &c->prev->next : &s->clients) = c->next; /* whichever link points at c */
    if (c->next)
        c->next->prev = c->prev;
    s->n_closing--;
    pcs_reader_close(c->reader);
    free(c->in);
    free(c->pending_obs);
    free(c->ids);
    free(c);
}

/* Close the socket now: pending writes are cancelled. */
static void close_now(client *c)
{
    if (c->handle_closing)
        return;
    if (c->state != CLIENT_CLOSING) {
        c->state = CLIENT_CLOSING;
        c->srv->n_open--;
        c->srv->n_closing++;
    }
    release_roles(c);
    c->handle_closing = 1;
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    client *c = req->data;
    if (status < 0)
        close_now(c);
    /* else: wait for the peer's EOF (read callback) or the linger limit (sweep) */
}

/* Send what was queued, then a FIN; read and discard until the peer closes. */
static void close_gracefully(client *c)
{
    if (c->state == CLIENT_CLOSING)
        return;
    c->state = CLIENT_CLOSING;
    c->srv->n_open--;
    c->srv->n_closing++;
    c->closing_since_ns = serve_now_ns();
    c->pending_len = 0;
    release_roles(c);
    c->shutdown.data = c;
    if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->tcp, on_shutdown) != 0) {
        close_now(c);
        return;
    }
    c->in_len = 0;
    start_reading(c);
}

/* How an error reply ends: the connection stays (a request refused) or goes
 * (a protocol error, or a refusal at hello). */
enum error_end { REFUSE = 0, DROP = 1 };

/* The error reply to request @p m (NULL: none), its message formatted from
 * @p fmt; DROP also logs it, since the client is about to go, and closes. */
static int reply_error(client *c, const serve_msg *m, enum error_end end, const char *code,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int reply_error(client *c, const serve_msg *m, enum error_end end, const char *code,
                       const char *fmt, ...)
{
    char text[PCS_LAST_ERROR_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int fatal = end == DROP;
    if (fatal && !c->srv->opt->quiet)
        fprintf(stderr, "pcsim serve: client #%" PRIu64 " (%s) disconnected: %s: %s\n", c->serial,
                c->peer, code, text);
    send_error(c, m && m->has_id, m ? m->id : 0, code, fatal, text);
    if (fatal)
        close_gracefully(c);
    return CONSUMED;
}

/* ---- Reading -------------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    client *c = h->data;
    (void)suggested;
    if (c->state == CLIENT_CLOSING)
        c->in_len = 0; /* discarding */
    if (c->in_cap - c->in_len < 4096 && c->in_cap < SERVE_INPUT_MAX) {
        size_t cap = c->in_cap ? c->in_cap * 2 : 4096;
        cap = cap > SERVE_INPUT_MAX ? SERVE_INPUT_MAX : cap;
        uint8_t *p = realloc(c->in, cap);
        if (p) {
            c->in = p;
            c->in_cap = cap;
        }
    }
    *buf = uv_buf_init((char *)c->in + c->in_len, (unsigned)(c->in_cap - c->in_len));
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    client *c = stream->data;
    (void)buf;
    if (nread < 0) { /* EOF, reset, or no buffer */
        close_now(c);
        return;
    }
    if (c->state == CLIENT_CLOSING) {
        c->in_len = 0;
        return;
    }
    c->in_len += (size_t)nread;
    process_input(c);
}

static void start_reading(client *c)
{
    if (!c->reading && !c->handle_closing &&
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0)
        c->reading = 1;
}

static void stop_reading(client *c)
{
    if (c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
}

static int handle_msg(client *c, const serve_msg *m);

/* Decode and handle whole frames until one must wait; read more only when
 * nothing waits. */
static void process_input(client *c)
{
    server *s = c->srv;
    size_t off = 0;
    serve_err err;
    while (c->state != CLIENT_CLOSING && !c->waiting && c->queued < s->opt->send_queue) {
        uint32_t n;
        serve_frame f = serve_frame_next(c->in + off, c->in_len - off, &n);
        if (f == SERVE_FRAME_MORE)
            break;
        if (f == SERVE_FRAME_EMPTY) {
            reply_error(c, NULL, DROP, "bad_frame",
                        "a frame of 0 bytes; a frame carries 1..%u bytes", SERVE_MAX_MESSAGE);
        } else if (f == SERVE_FRAME_LARGE) {
            reply_error(c, NULL, DROP, "too_large", "a frame of %" PRIu32 " bytes; at most %u", n,
                        SERVE_MAX_MESSAGE);
        } else if (serve_msg_decode(c->in + off + SERVE_FRAME_HEADER, n, &s->msg, &err) != 0) {
            reply_error(c, NULL, DROP, err.code, "%s", err.message);
        } else if (handle_msg(c, &s->msg) == STALL) {
            c->stalled = 1;
            break;
        } else {
            c->stalled = 0;
            off += SERVE_FRAME_HEADER + n;
            continue;
        }
        return; /* dropped */
    }
    if (c->state == CLIENT_CLOSING)
        return;
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
    if (c->waiting || c->stalled || c->queued >= s->opt->send_queue)
        stop_reading(c);
    else
        start_reading(c);
}

/* ---- Observations ---------------------------------------------------------- */

static void readers_close_all(server *s)
{
    for (client *c = s->clients; c; c = c->next) {
        pcs_reader_close(c->reader);
        c->reader = NULL;
    }
}

/* Copy the client's channels from the newest snapshot. *ticks: ticks run
 * when it was published. */
static pcs_status read_obs(client *c, uint64_t *ticks)
{
    server *s = c->srv;
    if (c->reader && c->reader_gen != s->info.generation) {
        pcs_reader_close(c->reader);
        c->reader = NULL;
    }
    if (!c->reader) {
        pcs_status st = pcs_reader_open(s->info.pool, &c->reader);
        if (st != PCS_OK)
            return st;
        c->reader_gen = s->info.generation;
    }
    uint64_t tick;
    pcs_status st = pcs_snapshot_read(c->reader, c->ids, c->n_ids, s->vals, &tick);
    *ticks = tick + 1;
    return st;
}

static size_t obs_frame(client *c, int has_id, uint64_t id, uint64_t ticks, int push)
{
    serve_out o;
    reply_begin(&o, c, "obs", has_id, id);
    serve_out_u64(&o, "tick", ticks);
    serve_out_f64(&o, "time_s", (double)ticks * c->srv->info.dt_s);
    if (push)
        serve_out_bool(&o, "push", 1);
    serve_out_f64s(&o, "values", c->srv->vals, c->n_ids);
    return serve_out_finish(&o);
}

/* "channels", when given, replaces the client's list (resolved once here). */
static int set_channels(client *c, const serve_msg *m)
{
    server *s = c->srv;
    if (!m->has_channels)
        return 0;
    for (uint32_t i = 0; i < m->n_channels; i++)
        if (pcs_snapshot_find(s->info.pool, serve_msg_channel(m, i), &s->ids[i]) != PCS_OK) {
            reply_error(c, m, REFUSE, "unknown_channel",
                        "\"channels\"[%u]: no channel '%s' (%u channels)", i,
                        serve_msg_channel(m, i), s->info.n_channels);
            return -1;
        }
    uint32_t *ids = realloc(c->ids, m->n_channels * sizeof *ids);
    if (!ids) {
        reply_error(c, m, REFUSE, "no_memory", "out of memory for %u channels", m->n_channels);
        return -1;
    }
    memcpy(ids, s->ids, m->n_channels * sizeof *ids);
    c->ids = ids;
    c->n_ids = m->n_channels;
    return 0;
}

static int on_observe(client *c, const serve_msg *m)
{
    if (!c->srv->have_world)
        return STALL;
    if (set_channels(c, m) != 0)
        return CONSUMED;
    if (c->n_ids == 0)
        return reply_error(
            c, m, REFUSE, "no_channels",
            "observe: name the channels once (\"channels\": [...]); later observes may "
            "leave them out");
    uint64_t ticks;
    pcs_status st = read_obs(c, &ticks);
    if (st == PCS_E_STATE)
        return reply_error(c, m, REFUSE, "no_data",
                           "observe: nothing published since the world was built; step first");
    if (st == PCS_E_NOTFOUND) /* a structural change retired one (pcsim/structure.h) */
        return reply_error(c, m, REFUSE, "unknown_channel", "observe: %s (name the channels again)",
                           pcs_last_error());
    if (st != PCS_OK)
        return reply_error(c, m, REFUSE, "busy", "observe: %s", pcs_last_error());
    size_t n = obs_frame(c, m->has_id, m->id, ticks, 0);
    if (n)
        serve_send_copy(c, c->srv->out, n);
    return CONSUMED;
}

static int on_subscribe(client *c, const serve_msg *m)
{
    server *s = c->srv;
    if (!s->have_world)
        return STALL;
    if (set_channels(c, m) != 0)
        return CONSUMED;
    if (m->every && c->n_ids == 0)
        return reply_error(c, m, REFUSE, "no_channels",
                           "subscribe: name the channels (\"channels\": [...])");
    if (m->every && !c->every)
        atomic_fetch_add(&s->world.subscribers, 1);
    if (!m->every && c->every)
        atomic_fetch_sub(&s->world.subscribers, 1);
    c->every = m->every;
    c->last_push = UINT64_MAX;
    serve_out o;
    reply_begin(&o, c, "subscribe", m->has_id, m->id);
    serve_out_u64(&o, "every", c->every);
    serve_out_u64(&o, "channels", c->n_ids);
    reply_send(c, &o);
    return CONSUMED;
}

/* Push to every subscriber that is due: `every` ticks after its last push,
 * at once after subscribing or after the clock restarted (a reset or a load:
 * clock_restarted), and, with @p step_end, whenever it has not seen the
 * newest tick (so observers of a step-mode world see where each step left
 * it). Publications up to push_floor show a clock that a load ended: none
 * is pushed. */
static void push_subscribers(server *s, int step_end)
{
    if (!s->have_world || pcs_snapshot_published(s->info.pool) <= s->push_floor)
        return;
    for (client *c = s->clients; c; c = c->next) {
        if (c->state != CLIENT_READY || !c->every)
            continue;
        uint64_t ticks;
        pcs_status st = read_obs(c, &ticks);
        if (st == PCS_E_NOTFOUND) {
            /* A structural change retired one of its channels: every later
             * read fails the same way, so say so once and stop its pushes,
             * as a subscribe with every 0 does (they stopped silently). */
            reply_error(c, NULL, REFUSE, "unknown_channel",
                        "subscribe: %s; pushes stopped (subscribe again with the current names)",
                        pcs_last_error());
            c->every = 0;
            atomic_fetch_sub(&s->world.subscribers, 1);
            continue;
        }
        if (st != PCS_OK)
            continue;
        /* ticks < last_push cannot happen (the clock restarts only with
         * clock_restarted); if it did, the difference wraps and is due. */
        int due = c->last_push == UINT64_MAX || ticks - c->last_push >= c->every ||
                  (step_end && ticks != c->last_push);
        if (!due)
            continue;
        c->last_push = ticks;
        size_t n = obs_frame(c, 0, 0, ticks, 1);
        if (n)
            push_frame(c, s->out, n);
    }
}

/* A reset or a load started a new clock. Whether its ticks are above or
 * below the old one's says nothing (a new clock may reach the old clock's
 * last pushed tick before a notice is handled, and a step's ticks often all
 * run before it is), so every subscriber forgets its last push, and what the
 * pool published before the load is never pushed: a tick notice of the old
 * clock may still be on its way. A reset's pool is new: it has published
 * nothing yet. A load's pool is new too (serve_world.c do_load); its floor
 * is still what it published, so that nothing of the load itself is pushed. */
static void clock_restarted(server *s, serve_req_kind kind)
{
    s->push_floor = kind == SERVE_REQ_LOAD ? pcs_snapshot_published(s->info.pool) : 0;
    for (client *c = s->clients; c; c = c->next)
        c->last_push = UINT64_MAX;
}

/* Tick notice from the world thread (coalesced by libuv: one per loop turn). */
static void on_tick(uv_async_t *h)
{
    push_subscribers(h->data, 0);
}

/* ---- Hello ----------------------------------------------------------------- */

/* Constant-time comparison: the time taken says nothing about the token. */
static int token_equal(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    unsigned diff = (unsigned)(na ^ nb);
    for (size_t i = 0; i < SERVE_TOKEN_MAX; i++)
        diff |= (unsigned)((i < na ? a[i] : 0) ^ (i < nb ? b[i] : 0));
    return diff == 0;
}

static void hello_reply(client *c, const serve_msg *m)
{
    server *s = c->srv;
    serve_out o;
    reply_begin(&o, c, "hello", m->has_id, m->id);
    serve_out_u64(&o, "version", SERVE_PROTO_VERSION);
    char name[64];
    snprintf(name, sizeof name, "pcsim %s", pcs_version());
    serve_out_str(&o, "server", name);
    serve_out_u64(&o, "client", c->serial);
    serve_out_str(&o, "role", c->role == SERVE_ROLE_CONTROL ? "control" : "observe");
    serve_out_str(&o, "mode", serve_mode_name(s->opt->mode));
    /* fast mode has no speed: null (serve_out_f64 writes a non-finite value so) */
    serve_out_f64(&o, "speed", s->opt->mode == SERVE_MODE_FAST ? NAN : s->opt->speed);
    serve_out_bool(&o, "read_only", s->opt->read_only);
    serve_out_str(&o, "scenario", pcs_scenario_name(s->scn));
    serve_out_u64(&o, "tick", atomic_load_explicit(&s->world.tick, memory_order_acquire));
    serve_out_f64(&o, "dt_s", s->info.dt_s);
    serve_out_u64(&o, "seed", s->info.seed);
    serve_out_u64(&o, "channels", s->info.n_channels);
    serve_out_u64(&o, "max_message", SERVE_MAX_MESSAGE);
    reply_send(c, &o);
}

static int on_hello(client *c, const serve_msg *m)
{
    server *s = c->srv;
    if (m->type != SERVE_MSG_HELLO)
        return reply_error(c, m, DROP, "hello_required",
                           "the first message must be a hello, not %s", serve_type_name(m->type));
    if (s->opt->has_token && (!m->has_token || !token_equal(m->token, s->opt->token)))
        return reply_error(c, m, DROP, "bad_token",
                           m->has_token ? "wrong token" : "this server wants a token (\"token\")");
    if (!(m->versions & (1u << SERVE_PROTO_VERSION)))
        return reply_error(c, m, DROP, "version",
                           "no common protocol version: this server speaks %u",
                           SERVE_PROTO_VERSION);
    if (m->role == SERVE_ROLE_CONTROL && s->opt->read_only)
        return reply_error(c, m, DROP, "read_only",
                           "this server is read-only (--read-only): connect as an observer");
    if (m->role == SERVE_ROLE_CONTROL && s->controller)
        return reply_error(c, m, DROP, "world_busy",
                           "client #%" PRIu64
                           " controls the world; one controller at a time (connect "
                           "as an observer, or again once it has left)",
                           s->controller->serial);
    c->role = m->role;
    if (c->role == SERVE_ROLE_CONTROL)
        s->controller = c;
    c->state = CLIENT_READY;
    hello_reply(c, m);
    return CONSUMED;
}

/* ---- Requests to the world ----------------------------------------------- */

static int save_path(const server *s, const serve_msg *m, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/%s.save", s->opt->save_dir, m->name);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int on_control(client *c, const serve_msg *m)
{
    server *s = c->srv;
    const char *type = serve_type_name(m->type);
    if (c->role != SERVE_ROLE_CONTROL)
        return reply_error(c, m, REFUSE, "forbidden",
                           s->opt->read_only
                               ? "%s: this server is read-only (--read-only)"
                               : "%s: only the controlling client may; this one observes (hello "
                                 "with \"role\": \"control\")",
                           type);
    if (m->type == SERVE_MSG_STEP && s->opt->mode != SERVE_MODE_STEP)
        return reply_error(c, m, REFUSE, "free_running",
                           "step: the world is free-running (--mode %s) and advances by itself",
                           serve_mode_name(s->opt->mode));
    if ((m->type == SERVE_MSG_LOAD || m->type == SERVE_MSG_SAVE) && !s->opt->save_dir)
        return reply_error(c, m, REFUSE, "no_save_dir",
                           "%s: the server was started without --save-dir", type);
    if (s->world_busy)
        return STALL; /* a request of a controller that has left is still running */
    serve_req r;
    memset(&r, 0, offsetof(serve_req, path));
    r.path[0] = '\0';
    r.n = m->n;
    r.want_hash = m->want_hash;
    switch (m->type) {
    case SERVE_MSG_ACT:
        r.kind = SERVE_REQ_ACT;
        memcpy(r.target, m->target, sizeof r.target);
        memcpy(r.command, m->command, sizeof r.command);
        r.value = m->value;
        break;
    case SERVE_MSG_STEP:
        r.kind = SERVE_REQ_STEP;
        break;
    case SERVE_MSG_RESET:
        r.kind = SERVE_REQ_RESET;
        r.has_seed = m->has_seed;
        r.seed = m->seed;
        readers_close_all(s); /* the pool they read is about to go */
        serve_http_world_gone(s->http);
        s->have_world = 0;
        break;
    default:
        r.kind = m->type == SERVE_MSG_LOAD ? SERVE_REQ_LOAD : SERVE_REQ_SAVE;
        if (save_path(s, m, r.path, sizeof r.path) != 0)
            return reply_error(c, m, REFUSE, "bad_message", "%s: --save-dir path too long", type);
        if (r.kind == SERVE_REQ_LOAD) { /* it loads into a new world (serve_world.c do_load) */
            readers_close_all(s);
            serve_http_world_gone(s->http);
            s->have_world = 0;
        }
        break;
    }
    s->world_busy = 1;
    s->requester = c;
    c->waiting = 1;
    c->has_req_id = m->has_id;
    c->req_id = m->id;
    serve_world_submit(&s->world, &r);
    return CONSUMED;
}

static const char *reply_type(serve_req_kind k)
{
    switch (k) {
    case SERVE_REQ_ACT:
        return "act";
    case SERVE_REQ_STEP:
        return "step";
    case SERVE_REQ_RESET:
        return "reset";
    case SERVE_REQ_LOAD:
        return "load";
    case SERVE_REQ_SAVE:
        return "save";
    }
    return "?";
}

static const char *error_code(const serve_req *r)
{
    switch (r->kind) {
    case SERVE_REQ_ACT:
        return r->status == PCS_E_NOTFOUND ? "unknown_command" : "bad_value";
    case SERVE_REQ_STEP:
        return "tick_failed";
    case SERVE_REQ_RESET:
        return "reset_failed";
    case SERVE_REQ_LOAD:
        return "load_failed";
    case SERVE_REQ_SAVE:
        return "save_failed";
    }
    return "?";
}

enum { ACT_QUEUED, ACT_RATE_LIMITED, ACT_FULL };

/* Submit an act's command; a refusal by the source's rate limit is told
 * apart from a full ring by the source's counter. */
static int submit_act(server *s, const pcs_command *cmd)
{
    pcs_command_source_stats before, after;
    pcs_command_source_stats_get(s->info.source, &before);
    if (pcs_command_source_submit(s->info.source, cmd) == PCS_OK)
        return ACT_QUEUED;
    pcs_command_source_stats_get(s->info.source, &after);
    if (after.refused_rate == before.refused_rate)
        return ACT_FULL;
    s->acts_rate_limited++;
    return ACT_RATE_LIMITED;
}

/* ---- What the HTTP side borrows (cli/serve_http.h) ------------------------ */

const serve_world_info *serve_net_world(server *s)
{
    return s->have_world ? &s->info : NULL;
}

int serve_net_request(server *s, const serve_req *r)
{
    if (s->world_busy || s->stopping || !s->have_world)
        return -1;
    s->world_busy = 1;
    s->requester = NULL;
    s->web_request = 1;
    serve_world_submit(&s->world, r);
    return 0;
}

int serve_net_submit(server *s, const pcs_command *cmd)
{
    switch (submit_act(s, cmd)) {
    case ACT_QUEUED:
        return 0;
    case ACT_RATE_LIMITED:
        return 1;
    default:
        return 2;
    }
}

const char *serve_net_scenario(server *s)
{
    return pcs_scenario_name(s->scn);
}

uint64_t serve_net_tick(server *s)
{
    return atomic_load_explicit(&s->world.tick, memory_order_acquire);
}

double serve_net_tick_rate(server *s)
{
    return s->tick_rate;
}

/* The act's command, resolved by the world thread, goes into the ring here:
 * this thread is the command source's one producer. */
static void answer(client *c, const serve_req *r)
{
    server *s = c->srv;
    if (r->status != PCS_OK) {
        send_error(c, c->has_req_id, c->req_id, error_code(r), 0, r->error);
        return;
    }
    int act = r->kind == SERVE_REQ_ACT ? submit_act(s, &r->cmd) : ACT_QUEUED;
    if (act == ACT_RATE_LIMITED) { /* the message says when the next token comes */
        send_error(c, c->has_req_id, c->req_id, "rate_limited", 0, pcs_last_error());
        return;
    }
    if (act == ACT_FULL) {
        char text[160];
        snprintf(text, sizeof text, "act: the command queue holds %u commands; step first",
                 SERVE_SOURCE_CAPACITY);
        send_error(c, c->has_req_id, c->req_id, "queue_full", 0, text);
        return;
    }
    serve_out o;
    reply_begin(&o, c, reply_type(r->kind), c->has_req_id, c->req_id);
    serve_out_u64(&o, "tick", r->tick);
    serve_out_f64(&o, "time_s", (double)r->tick * s->info.dt_s);
    if (r->kind == SERVE_REQ_RESET)
        serve_out_u64(&o, "seed", r->info.seed);
    if (r->want_hash)
        serve_out_hex(&o, "state_hash", r->hash);
    reply_send(c, &o);
}

static void on_reply(uv_async_t *h)
{
    server *s = h->data;
    serve_req r;
    if (!serve_world_take(&s->world, &r))
        return;
    s->world_busy = 0;
    if (r.kind == SERVE_REQ_RESET || r.kind == SERVE_REQ_LOAD) {
        /* the new world's, or the old one's if the build or the load failed */
        s->info = r.info;
        s->have_world = 1;
    }
    if ((r.kind == SERVE_REQ_RESET || r.kind == SERVE_REQ_LOAD) && r.status == PCS_OK)
        clock_restarted(s, r.kind);
    client *c = s->requester;
    s->requester = NULL;
    if (s->web_request) {
        s->web_request = 0;
        serve_http_reply(s->http, &r);
    } else if (c) {
        c->waiting = 0;
        answer(c, &r);
    }
    if (r.kind == SERVE_REQ_STEP)
        push_subscribers(s, 1);
    /* Everyone that waited for the world or the pool may go on. */
    for (client *k = s->clients; k; k = k->next)
        if (k->state != CLIENT_CLOSING && (k->stalled || k == c))
            process_input(k);
    if (!s->world_busy)
        serve_http_idle(s->http);
}

static int handle_msg(client *c, const serve_msg *m)
{
    if (c->state == CLIENT_HELLO)
        return on_hello(c, m);
    switch (m->type) {
    case SERVE_MSG_HELLO:
        return reply_error(c, m, DROP, "bad_message", "hello: this client already said it");
    case SERVE_MSG_OBSERVE:
        return on_observe(c, m);
    case SERVE_MSG_SUBSCRIBE:
        return on_subscribe(c, m);
    case SERVE_MSG_CLOSE: {
        serve_out o;
        reply_begin(&o, c, "close", m->has_id, m->id);
        reply_send(c, &o);
        close_gracefully(c);
        return CONSUMED;
    }
    default:
        return on_control(c, m);
    }
}

/* ---- Connections and the loop ---------------------------------------------- */

static void on_free_handle(uv_handle_t *h)
{
    free(h);
}

static void peer_name(client *c)
{
    struct sockaddr_storage sa;
    int len = sizeof sa;
    snprintf(c->peer, sizeof c->peer, "?");
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&sa, &len) != 0)
        return;
    char ip[48] = "?";
    int port = 0;
    if (sa.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&sa;
        uv_ip4_name(a, ip, sizeof ip);
        port = ntohs(a->sin_port);
    } else if (sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&sa;
        uv_ip6_name(a, ip, sizeof ip);
        port = ntohs(a->sin6_port);
    }
    snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
}

static void on_connection(uv_stream_t *listener, int status)
{
    server *s = listener->data;
    if (status < 0 || s->stopping)
        return;
    client *c = calloc(1, sizeof *c);
    if (!c || uv_tcp_init(s->loop, &c->tcp) != 0) {
        free(c);
        return;
    }
    c->tcp.data = c;
    c->srv = s;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_free_handle);
        return;
    }
    c->serial = ++s->serials;
    c->next = s->clients;
    if (s->clients)
        s->clients->prev = c;
    s->clients = c;
    s->n_open++;
    uv_tcp_nodelay(&c->tcp, 1);
    peer_name(c);
    if (s->n_closing > s->opt->max_clients + SERVE_CLOSING_SLACK) {
        close_now(c); /* a flood: no goodbye */
        return;
    }
    if (s->n_open > s->opt->max_clients) {
        reply_error(c, NULL, DROP, "max_clients",
                    "the server has %u clients, its limit (--max-clients)", s->opt->max_clients);
        return;
    }
    start_reading(c);
}

/* Slow consumers and connections that linger too long in closing. */
static void on_sweep(uv_timer_t *t)
{
    server *s = t->data;
    uint64_t now = serve_now_ns();
    if (now - s->rate_t0_ns >= 1000000000u) {
        uint64_t tick = serve_net_tick(s);
        s->tick_rate = s->rate_t0_ns
                           ? (double)(tick - s->rate_tick0) * 1e9 / (double)(now - s->rate_t0_ns)
                           : 0.0;
        s->rate_t0_ns = now;
        s->rate_tick0 = tick;
    }
    for (client *c = s->clients, *next; c; c = next) {
        next = c->next;
        if (c->handle_closing)
            continue;
        if (c->state == CLIENT_CLOSING) {
            if (now - c->closing_since_ns >= (uint64_t)SERVE_LINGER_MS * 1000000u)
                close_now(c);
        } else if (c->full_since_ns &&
                   now - c->full_since_ns >= (uint64_t)s->opt->slow_ms * 1000000u) {
            /* Its queue will not drain: the reason goes out if it can, then the socket closes. */
            reply_error(c, NULL, DROP, "slow_consumer",
                        "slow consumer: %zu bytes queued, more than --send-queue %zu for %u ms",
                        c->queued, s->opt->send_queue, s->opt->slow_ms);
            close_now(c);
        }
    }
}

static void begin_stop(server *s)
{
    if (s->stopping)
        return;
    s->stopping = 1;
    readers_close_all(s); /* before the world thread destroys the pool */
    serve_http_stop(s->http);
    for (client *c = s->clients; c; c = c->next)
        close_now(c);
    serve_world_stop(&s->world); /* no uv_async_send after this */
    if (!s->opt->quiet && s->info.burst)
        fprintf(stderr,
                "pcsim serve: acts refused by rate limit (source class %u, id 1; %g/s, burst "
                "%u): %" PRIu64 "\n",
                SERVE_SOURCE_CLASS, s->info.rate_per_s, s->info.burst, s->acts_rate_limited);
    if (s->opt->port >= 0)
        uv_close((uv_handle_t *)&s->listener, NULL);
    uv_close((uv_handle_t *)&s->reply_async, NULL);
    uv_close((uv_handle_t *)&s->tick_async, NULL);
    uv_close((uv_handle_t *)&s->sweep, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sigterm, NULL);
}

static void on_signal(uv_signal_t *h, int signum)
{
    server *s = h->data;
    if (!s->opt->quiet)
        fprintf(stderr, "pcsim serve: %s: stopping\n", signum == SIGINT ? "SIGINT" : "SIGTERM");
    begin_stop(s);
}

static int listen_on(server *s)
{
    struct sockaddr_storage sa;
    const char *addr = s->opt->bind;
    int rc = strchr(addr, ':') ? uv_ip6_addr(addr, s->opt->port, (struct sockaddr_in6 *)&sa)
                               : uv_ip4_addr(addr, s->opt->port, (struct sockaddr_in *)&sa);
    if (rc != 0) {
        fprintf(stderr, "pcsim: --bind '%s': not an IPv4 or IPv6 address\n", addr);
        return 2;
    }
    uv_tcp_init(s->loop, &s->listener);
    s->listener.data = s;
    if ((rc = uv_tcp_bind(&s->listener, (struct sockaddr *)&sa, 0)) != 0 ||
        (rc = uv_listen((uv_stream_t *)&s->listener, 128, on_connection)) != 0) {
        fprintf(stderr, "pcsim: cannot listen on %s port %d: %s\n", addr, s->opt->port,
                uv_strerror(rc));
        return 2;
    }
    return 0;
}

static int bound_port(server *s)
{
    struct sockaddr_storage sa;
    int len = sizeof sa;
    if (uv_tcp_getsockname(&s->listener, (struct sockaddr *)&sa, &len) != 0)
        return -1;
    return ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                          : ((struct sockaddr_in *)&sa)->sin_port);
}

static int write_port(const char *opt, const char *path, int port)
{
    if (!path)
        return 0;
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0) {
        fprintf(stderr, "pcsim: %s '%s': %s\n", opt, path, strerror(errno));
        return 2;
    }
    return 0;
}

static int announce(server *s)
{
    int port = s->opt->port >= 0 ? bound_port(s) : -1;
    int http = s->http ? serve_http_port(s->http) : -1;
    if (write_port("--port-file", s->opt->port_file, port) ||
        write_port("--http-port-file", s->opt->http_port_file, http))
        return 2;
    if (s->opt->quiet)
        return 0;
    if (port >= 0)
        fprintf(stderr,
                "pcsim serve: listening on %s port %d (%s mode, scenario '%s', %u channels%s%s)\n",
                s->opt->bind, port, serve_mode_name(s->opt->mode), pcs_scenario_name(s->scn),
                s->info.n_channels, s->opt->read_only ? ", read-only" : "",
                s->opt->has_token ? ", token" : "");
    if (http >= 0) {
        int v6 = strchr(s->opt->bind, ':') != NULL;
        fprintf(stderr,
                "pcsim serve: control room at http://%s%s%s:%d/ (%s mode, scenario '%s'%s)\n",
                v6 ? "[" : "", s->opt->bind, v6 ? "]" : "", http, serve_mode_name(s->opt->mode),
                pcs_scenario_name(s->scn), s->opt->read_only ? ", read-only" : "");
    }
    return 0;
}

static int start_handles(server *s)
{
    uv_async_init(s->loop, &s->reply_async, on_reply);
    uv_async_init(s->loop, &s->tick_async, on_tick);
    s->reply_async.data = s->tick_async.data = s;
    if (serve_world_start(&s->world, s->opt, s->scn, &s->reply_async, &s->tick_async) != 0) {
        fprintf(stderr, "pcsim: %s\n", s->world.start_error);
        return 2;
    }
    s->info = s->world.info;
    s->have_world = 1;
    uv_timer_init(s->loop, &s->sweep);
    s->sweep.data = s;
    uint64_t every = s->opt->slow_ms / 4 < 100 ? s->opt->slow_ms / 4 + 1 : 100;
    uv_timer_start(&s->sweep, on_sweep, every, every);
    uv_signal_init(s->loop, &s->sigint);
    uv_signal_init(s->loop, &s->sigterm);
    s->sigint.data = s->sigterm.data = s;
    uv_signal_start(&s->sigint, on_signal, SIGINT);
    uv_signal_start(&s->sigterm, on_signal, SIGTERM);
    return 0;
}

/* Close one of this server's handles (data == the server): libwebsockets'
 * handles on the loop are its own to close (serve_http_stop). */
static void close_handle(uv_handle_t *h, void *arg)
{
    if (h->data == arg && !uv_is_closing(h))
        uv_close(h, NULL);
}

/* Close whatever start-up opened, then let the loop finish the closes. */
static void abandon(server *s)
{
    s->stopping = 1;
    serve_http_stop(s->http);
    serve_world_stop(&s->world);
    uv_walk(s->loop, close_handle, s);
    uv_run(s->loop, UV_RUN_DEFAULT);
}

int serve_net_run(const serve_opts *opt, const pcs_scenario *scn)
{
    server *s = calloc(1, sizeof *s);
    if (!s)
        return fprintf(stderr, "pcsim: out of memory\n"), 1;
    s->opt = opt;
    s->scn = scn;
    s->loop = uv_default_loop();
    int rc = start_handles(s);
    if (!rc && opt->port >= 0)
        rc = listen_on(s);
    if (!rc && opt->http_port >= 0)
        rc = serve_http_start(s, s->loop, opt, &s->http);
    if (!rc)
        rc = announce(s);
    if (rc) {
        abandon(s);
    } else {
        uv_run(s->loop, UV_RUN_DEFAULT);
    }
    serve_http_free(s->http);
    uv_loop_close(s->loop);
    free(s);
    return rc;
}
