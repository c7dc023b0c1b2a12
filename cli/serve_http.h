/**
 * @file serve_http.h
 * @brief The browser side of `pcsim serve --http PORT` (internal to cli/):
 *        the static page, the WebSocket feed and the page's commands, on the
 *        network thread's libuv loop (docs/protocol.md, "HTTP and
 *        WebSocket").
 *
 * Files:
 *  - cli/serve_http.c: the libwebsockets context on the loop, the static
 *    files (cli/serve_assets.c, embedded at build), the security checks of
 *    every request and upgrade (Host, Origin, the session token), the
 *    bounded send queue of each WebSocket and the slow-consumer rule;
 *  - cli/serve_web.c: what a WebSocket says: hello, subscribe, act, ack of
 *    a keyframe; the feed (cli/serve_feed.c) and the events.
 *
 * The network thread (cli/serve_net.c) owns the world's view (pool,
 * command source, station); this side borrows it through the calls below
 * and never touches the world thread. Page commands go through the same
 * request slot and command source as the TCP controller's acts, so the same
 * rate limit applies to every source.
 */
#ifndef PCS_CLI_SERVE_HTTP_H
#define PCS_CLI_SERVE_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "cli/serve.h"
#include "cli/serve_webmsg.h"

typedef struct serve_http serve_http;
typedef struct server server;

/** Acts waiting for the world thread, all pages together. */
#define WEB_ACT_QUEUE 64u
/** Acts one page may have waiting. */
#define WEB_ACT_PER_CLIENT 8u
/** Feed and event pacing, wall ms (20 Hz: every 10 Hz gauge period is seen). */
#define WEB_PACE_MS 50u

/* ---- What cli/serve_net.c lends the HTTP side --------------------------- */

/** The current build's info, or NULL while a reset is in flight. */
const serve_world_info *serve_net_world(server *s);
/** Hand an act request to the world thread. @return 0, or -1 when the
 *  request slot is busy (try again after serve_http_idle). */
int serve_net_request(server *s, const serve_req *r);
/** Queue a resolved command on the serve command source (its rate limit).
 *  @return 0 queued, 1 rate limited (pcs_last_error says when the next token
 *  comes), 2 the ring is full. */
int serve_net_submit(server *s, const pcs_command *cmd);
/** The scenario's name. */
const char *serve_net_scenario(server *s);
/** The world's next tick (its clock). */
uint64_t serve_net_tick(server *s);
/** Ticks/s of the world over the last second, wall (for the status line). */
double serve_net_tick_rate(server *s);

/* ---- What cli/serve_net.c calls --------------------------------------- */

/** Create the context on @p loop and listen. @return 0, or 2 with the reason printed. */
int serve_http_start(server *s, uv_loop_t *loop, const serve_opts *opt, serve_http **out);
/** Close every page and destroy the context (the loop then finishes the closes). */
void serve_http_stop(serve_http *h);
/** After the loop has ended: free what is left (NULL ignored). */
void serve_http_free(serve_http *h);
/** The request the HTTP side made was answered (status, error, cmd in @p r). */
void serve_http_reply(serve_http *h, const serve_req *r);
/** The request slot is free: the next waiting act may go. */
void serve_http_idle(serve_http *h);
/** The pool is about to go (a reset): drop every reader of it. */
void serve_http_world_gone(serve_http *h);
/** The port it listens on (after start). */
int serve_http_port(const serve_http *h);

/* ---- Inside the HTTP side (cli/serve_http.c and cli/serve_web.c) ------- */

/** One WebSocket (the page's session). Lives in lws's per-session memory. */
typedef struct web_client web_client;

/** Queue @p len bytes as one message (text or binary). @return 0, or -1
 *  when the queue is at its bound (nothing queued) or out of memory. */
int web_send(web_client *c, const void *data, size_t len, int binary);
/** Bytes queued and not yet handed to the socket. */
size_t web_queued(const web_client *c);
/** Close with a WebSocket close code and reason (after what is queued). */
void web_close(web_client *c, int code, const char *reason);

/** The page protocol (cli/serve_web.c). */
typedef struct web_state web_state;
web_state *web_state_create(serve_http *h, server *s, const serve_opts *opt);
void web_state_destroy(web_state *w);
/** A WebSocket opened (after Origin and token passed); say hello. */
void web_open(web_state *w, web_client *c);
/** One whole message from the page. */
void web_message(web_state *w, web_client *c, const char *data, size_t len, int binary);
/** The WebSocket closed: forget it. */
void web_closed(web_state *w, web_client *c);
/** Pacing timer: feed, events, status. */
void web_pace(web_state *w);
void web_reply(web_state *w, const serve_req *r);
void web_idle(web_state *w);
void web_world_gone(web_state *w);
/** Per-client storage cli/serve_web.c keeps in the web_client. */
void **web_client_slot(web_client *c);
/** The client's connection number (logs). */
uint64_t web_client_serial(const web_client *c);

/* cli/serve_assets.c: the page's files, embedded at build. */
typedef struct web_asset {
    const char *path; /**< URL path, "/app.js" */
    const char *mime;
    const unsigned char *data;
    size_t len;
} web_asset;
/** The asset at URL @p path ("/" is "/index.html"), or NULL. */
const web_asset *web_asset_find(const char *path);

#endif
