/**
 * @file serve_http.c
 * @brief `pcsim serve --http PORT`: libwebsockets on the server's libuv loop,
 *        the page's files, and the checks every request and upgrade passes
 *        (docs/protocol.md, "HTTP and WebSocket").
 *
 * Why libwebsockets on the existing loop: Debian's build has LWS_WITH_LIBUV
 * (as an event-lib plugin, libwebsockets-evlib-uv, which libwebsockets-dev
 * depends on), so lws joins the loop of cli/serve_net.c as a "foreign loop"
 * (LWS_SERVER_OPTION_LIBUV with foreign_loops): one thread serves TCP
 * clients, pages and WebSockets, and the world thread is never waited for.
 *
 * Security, in the order a request meets it:
 *  - the listener binds --bind (127.0.0.1 unless given);
 *  - Host must be "localhost" or an IP literal (with the port): a DNS name
 *    is refused with 403, so a page on another site cannot rebind its own
 *    name to this address and read the token from our page;
 *  - only GET of the files web_asset_find lists; each answer carries a
 *    Content-Security-Policy that allows scripts, styles and connections to
 *    this origin only, and forbids framing;
 *  - the WebSocket upgrade (path /ws) needs Origin equal to "http://" +
 *    Host (a page of any other origin is refused, so it cannot drive the
 *    plant through the operator's browser) and ?token= equal to the
 *    per-session token (128 random bits from getrandom, new at each start,
 *    written into the served index.html and nowhere else; compared in
 *    constant time, never logged). Refusals are 403 with the reason.
 *  - --read-only: the page gets read_only in its hello and shows no
 *    controls, and every act is refused (cli/serve_web.c).
 *
 * Bounds: a page's message is at most WEB_MAX_MESSAGE bytes (more: closed
 * with 1009); its send queue at most --send-queue bytes, and the feed skips
 * a page whose queue holds half of that (nothing is lost: its values are
 * sent later, newer); a queue that stays at half or more for
 * --slow-consumer-ms drops the page;
 * at most --max-clients WebSockets (more: 503). Malformed frames (unmasked,
 * bad opcode, invalid UTF-8 in text) are lws's: it closes the connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>

#include "cli/serve_http.h"

/** Placeholder in web/index.html that the session token replaces. */
#define TOKEN_MARK "%%PCSIM_TOKEN%%"
/** Token: 16 random bytes as 32 hex digits. */
#define TOKEN_HEX 32u
/** Body bytes written per writable callback. */
#define HTTP_CHUNK 8192u

typedef struct web_out {
    struct web_out *next;
    size_t len;
    int binary;
    unsigned char buf[]; /* LWS_PRE + len */
} web_out;

struct web_client {
    struct lws *wsi;
    serve_http *h;
    web_client *prev, *next;
    uint64_t serial;
    web_out *head, *tail;
    size_t queued;
    uint64_t full_since_ns;
    int closing;
    int close_code;
    char close_reason[100];
    unsigned char *rx;
    size_t rx_len;
    int rx_binary;
    void *web; /* cli/serve_web.c's */
};

/* lws's per-session memory: one per connection, zeroed. */
typedef struct pss {
    const unsigned char *body;
    size_t body_len, body_off;
    int is_ws;
    web_client c;
} pss;

struct serve_http {
    server *srv;
    const serve_opts *opt;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    uv_timer_t pace;
    int stopping;
    web_state *web;
    web_client *clients;
    uint32_t n_clients;
    uint64_t serials;
    int port;
    char token[TOKEN_HEX + 1];
    unsigned char *index; /* index.html with the token */
    size_t index_len;
};

/* ---- Small helpers ------------------------------------------------------- */

static int token_make(char out[TOKEN_HEX + 1])
{
    unsigned char raw[TOKEN_HEX / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0)
            got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

static int const_equal(const char *a, const char *b, size_t n)
{
    unsigned diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

/* index.html with TOKEN_MARK replaced by the token (once, at start). */
static int render_index(serve_http *h)
{
    const web_asset *a = web_asset_find("/index.html");
    const char *mark = a ? memmem(a->data, a->len, TOKEN_MARK, strlen(TOKEN_MARK)) : NULL;
    if (!mark) {
        fprintf(stderr, "pcsim: web/index.html has no %s placeholder\n", TOKEN_MARK);
        return -1;
    }
    size_t head = (size_t)((const unsigned char *)mark - a->data);
    size_t tail = a->len - head - strlen(TOKEN_MARK);
    h->index_len = head + TOKEN_HEX + tail;
    h->index = malloc(h->index_len);
    if (!h->index)
        return -1;
    memcpy(h->index, a->data, head);
    memcpy(h->index + head, h->token, TOKEN_HEX);
    memcpy(h->index + head + TOKEN_HEX, mark + strlen(TOKEN_MARK), tail);
    return 0;
}

/* Host: "localhost" or an IP literal, optionally with ":port". */
static int host_ok(const char *host)
{
    size_t n = strlen(host);
    if (n == 0 || n > 64)
        return 0;
    if (host[0] == '[') { /* [v6]:port */
        const char *end = strchr(host, ']');
        if (!end)
            return 0;
        for (const char *p = host + 1; p < end; p++)
            if (!strchr("0123456789abcdefABCDEF:.", *p))
                return 0;
        return end[1] == '\0' || end[1] == ':';
    }
    size_t name = strcspn(host, ":");
    if (name == 9 && strncasecmp(host, "localhost", 9) == 0)
        return 1;
    int dots = 0;
    for (size_t i = 0; i < name; i++) {
        if (host[i] == '.')
            dots++;
        else if (host[i] < '0' || host[i] > '9')
            return 0;
    }
    return dots == 3;
}

/* Copy header @p t (empty when absent or too long). */
static void header(struct lws *wsi, enum lws_token_indexes t, char *out, int len)
{
    out[0] = '\0';
    if (lws_hdr_total_length(wsi, t) >= len || lws_hdr_copy(wsi, out, len, t) < 0)
        out[0] = '\0';
}

static int http_refuse(struct lws *wsi, unsigned code, const char *why)
{
    lws_return_http_status(wsi, code, why);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* ---- Static files -------------------------------------------------------- */

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p,
                      unsigned char *end)
{
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name,
                                       (const unsigned char *)value, (int)strlen(value), p, end);
}

static int serve_file(serve_http *h, struct lws *wsi, pss *ps, const char *uri)
{
    char host[80];
    header(wsi, WSI_TOKEN_HOST, host, sizeof host);
    if (!host_ok(host))
        return http_refuse(wsi, HTTP_STATUS_FORBIDDEN,
                           "Host must be localhost or an IP address (DNS names are refused)");
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0)
        return http_refuse(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "only GET");
    const web_asset *a = web_asset_find(uri);
    if (!a)
        return http_refuse(wsi, HTTP_STATUS_NOT_FOUND, "no such file");
    ps->body = a->data;
    ps->body_len = a->len;
    if (strcmp(a->path, "/index.html") == 0) {
        ps->body = h->index;
        ps->body_len = h->index_len;
    }
    ps->body_off = 0;
    char csp[256];
    snprintf(csp, sizeof csp,
             "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
             "connect-src 'self' ws://%s; base-uri 'none'; form-action 'none'; "
             "frame-ancestors 'none'",
             host);
    unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, a->mime, ps->body_len, &p, end) ||
        add_header(wsi, "content-security-policy:", csp, &p, end) ||
        add_header(wsi, "x-content-type-options:", "nosniff", &p, end) ||
        add_header(wsi, "x-frame-options:", "DENY", &p, end) ||
        add_header(wsi, "referrer-policy:", "no-referrer", &p, end) ||
        add_header(wsi, "cache-control:", "no-store", &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

static int write_body(struct lws *wsi, pss *ps)
{
    unsigned char buf[LWS_PRE + HTTP_CHUNK];
    size_t n = ps->body_len - ps->body_off;
    n = n > HTTP_CHUNK ? HTTP_CHUNK : n;
    int last = ps->body_off + n == ps->body_len;
    memcpy(buf + LWS_PRE, ps->body + ps->body_off, n);
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
        return -1;
    ps->body_off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* ---- The upgrade --------------------------------------------------------- */

static void log_refusal(serve_http *h, const char *why)
{
    if (!h->opt->quiet)
        fprintf(stderr, "pcsim serve: WebSocket upgrade refused: %s\n", why);
}

static int confirm_upgrade(serve_http *h, struct lws *wsi, const char *proto)
{
    char uri[64], host[80], origin[128], want[96], token[TOKEN_HEX + 16];
    const char *why = NULL, *tok; /* tok points into token, past "token=" */
    header(wsi, WSI_TOKEN_GET_URI, uri, sizeof uri);
    header(wsi, WSI_TOKEN_HOST, host, sizeof host);
    header(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin);
    snprintf(want, sizeof want, "http://%s", host);
    if (strcmp(proto, "websocket") != 0)
        why = "only WebSocket upgrades";
    else if (strcmp(uri, "/ws") != 0)
        why = "the WebSocket is at /ws";
    else if (!host_ok(host))
        why = "Host must be localhost or an IP address (DNS names are refused)";
    else if (!origin[0])
        why = "no Origin header: only the served page may connect";
    else if (strcasecmp(origin, want) != 0)
        why = "Origin is not this server's origin: only the served page may connect";
    else if (!(tok = lws_get_urlarg_by_name(wsi, "token=", token, sizeof token)) ||
             strlen(tok) != TOKEN_HEX || !const_equal(tok, h->token, TOKEN_HEX))
        why = "missing or wrong session token (?token= from the served page)";
    else if (h->n_clients >= h->opt->max_clients) {
        log_refusal(h, "max clients");
        lws_return_http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE,
                               "the server has --max-clients WebSockets");
        return 1;
    }
    if (!why)
        return 0;
    log_refusal(h, why);
    lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, why);
    return 1;
}

/* ---- WebSockets ---------------------------------------------------------- */

int web_send(web_client *c, const void *data, size_t len, int binary)
{
    if (c->closing || c->queued >= c->h->opt->send_queue)
        return -1;
    web_out *m = malloc(sizeof *m + LWS_PRE + len);
    if (!m)
        return -1;
    m->next = NULL;
    m->len = len;
    m->binary = binary;
    memcpy(m->buf + LWS_PRE, data, len);
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->queued += len;
    if (c->queued >= c->h->opt->send_queue / 2 && !c->full_since_ns)
        c->full_since_ns = serve_now_ns();
    lws_callback_on_writable(c->wsi);
    return 0;
}

size_t web_queued(const web_client *c)
{
    return c->queued;
}

void web_close(web_client *c, int code, const char *reason)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->close_code = code;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    if (!c->h->opt->quiet)
        fprintf(stderr, "pcsim serve: WebSocket #%" PRIu64 " closed: %d %s\n", c->serial, code,
                reason);
    lws_callback_on_writable(c->wsi);
}

void **web_client_slot(web_client *c)
{
    return &c->web;
}

uint64_t web_client_serial(const web_client *c)
{
    return c->serial;
}

static int ws_writable(web_client *c)
{
    web_out *m = c->head;
    if (!m) {
        if (!c->closing)
            return 0;
        /* The close frame is written here, then the socket closes: with
         * Debian's lws 4.1 a reason set by lws_close_reason before returning
         * -1 from this callback never reached the peer (tests/web_test.py
         * saw a bare FIN). Opcode 4 is lws's own LWS_WRITE_CLOSE, which its
         * public header leaves out ("handled by lws_close_reason"). */
        unsigned char f[LWS_PRE + 2 + sizeof c->close_reason];
        size_t n = strlen(c->close_reason);
        f[LWS_PRE] = (unsigned char)(c->close_code >> 8);
        f[LWS_PRE + 1] = (unsigned char)(c->close_code & 0xff);
        memcpy(f + LWS_PRE + 2, c->close_reason, n);
        lws_write(c->wsi, f + LWS_PRE, 2 + n, (enum lws_write_protocol)4);
        return -1;
    }
    int n =
        lws_write(c->wsi, m->buf + LWS_PRE, m->len, m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
    if (n < (int)m->len)
        return -1;
    c->head = m->next;
    if (!c->head)
        c->tail = NULL;
    c->queued -= m->len;
    if (c->queued < c->h->opt->send_queue / 2)
        c->full_since_ns = 0;
    free(m);
    if (c->head || c->closing)
        lws_callback_on_writable(c->wsi);
    return 0;
}

static int ws_receive(web_client *c, const unsigned char *in, size_t len)
{
    if (c->closing)
        return 0;
    if (c->rx_len + len > WEB_MAX_MESSAGE) {
        char why[100];
        snprintf(why, sizeof why, "message too big: more than %u bytes", WEB_MAX_MESSAGE);
        c->rx_len = 0;
        web_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, why);
        return 0;
    }
    if (!c->rx && !(c->rx = malloc(WEB_MAX_MESSAGE + 1)))
        return -1;
    if (c->rx_len == 0)
        c->rx_binary = lws_frame_is_binary(c->wsi);
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi))
        return 0;
    c->rx[c->rx_len] = '\0';
    size_t n = c->rx_len;
    c->rx_len = 0;
    web_message(c->h->web, c, (const char *)c->rx, n, c->rx_binary);
    return 0;
}

static void ws_open(serve_http *h, struct lws *wsi, pss *ps)
{
    web_client *c = &ps->c;
    memset(c, 0, sizeof *c);
    ps->is_ws = 1;
    c->serial = ++h->serials;
    c->wsi = wsi;
    c->h = h;
    c->next = h->clients;
    if (h->clients)
        h->clients->prev = c;
    h->clients = c;
    h->n_clients++;
    /* The kernel's send buffer holds at most what our queue would (256 KiB
     * at most): a page that stops reading fills our queue in seconds, not
     * after megabytes of autotuned buffer, and a slow page's values stay
     * fresh (the feed skips it while its queue is full). */
    int fd = (int)lws_get_socket_fd(wsi);
    size_t cap = h->opt->send_queue < ((size_t)256 << 10) ? h->opt->send_queue : (size_t)256 << 10;
    int sndbuf = (int)cap;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    web_open(h->web, c);
}

static void ws_gone(serve_http *h, pss *ps)
{
    web_client *c = &ps->c;
    if (!ps->is_ws)
        return;
    ps->is_ws = 0;
    web_closed(h->web, c);
    *(c->prev ? &c->prev->next : &h->clients) = c->next; /* whichever link points at c */
    if (c->next)
        c->next->prev = c->prev;
    h->n_clients--;
    for (web_out *m = c->head, *n; m; m = n) {
        n = m->next;
        free(m);
    }
    free(c->rx);
    memset(c, 0, sizeof *c);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    serve_http *h = ctx ? lws_context_user(ctx) : NULL;
    pss *ps = user;
    if (!h)
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return serve_file(h, wsi, ps, in);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return ps && ps->body ? write_body(wsi, ps) : 0;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return confirm_upgrade(h, wsi, in);
    case LWS_CALLBACK_ESTABLISHED:
        ws_open(h, wsi, ps);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return ws_receive(&ps->c, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return ps->is_ws ? ws_writable(&ps->c) : 0;
    case LWS_CALLBACK_CLOSED:
        ws_gone(h, ps);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {
    {"pcsim.v1", callback, sizeof(pss), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- Pacing and slow consumers ------------------------------------------ */

static void on_pace(uv_timer_t *t)
{
    serve_http *h = t->data;
    uint64_t now = serve_now_ns();
    for (web_client *c = h->clients; c; c = c->next)
        if (c->full_since_ns && !c->closing &&
            now - c->full_since_ns >= (uint64_t)h->opt->slow_ms * 1000000u) {
            if (!h->opt->quiet)
                fprintf(stderr,
                        "pcsim serve: WebSocket #%" PRIu64 " dropped: slow consumer: %zu bytes "
                        "queued, more than --send-queue %zu for %u ms\n",
                        c->serial, c->queued, h->opt->send_queue, h->opt->slow_ms);
            c->closing = 1;
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        }
    web_pace(h->web);
}

/* ---- Start and stop ------------------------------------------------------ */

static void lws_log(int level, const char *line)
{
    (void)level;
    fprintf(stderr, "pcsim serve: libwebsockets: %s", line);
}

/* Bind the address and port as lws will (SO_REUSEADDR), then let go: a
 * port in use is refused here, before lws and the loop are involved.
 * @return 0, -1 for an address that is not an IP literal, 2 refused (said). */
static int bind_check(const serve_opts *opt)
{
    uint16_t port = htons((uint16_t)opt->http_port);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = port};
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = port};
    int v6 = strchr(opt->bind, ':') != NULL;
    void *ip = v6 ? (void *)&a6.sin6_addr : (void *)&a4.sin_addr;
    if (inet_pton(v6 ? AF_INET6 : AF_INET, opt->bind, ip) != 1)
        return -1;
    const struct sockaddr *sa = v6 ? (const struct sockaddr *)&a6 : (const struct sockaddr *)&a4;
    socklen_t len = v6 ? sizeof a6 : sizeof a4;
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0)
        return fprintf(stderr, "pcsim: --http: socket: %s\n", strerror(errno)), 2;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (v6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    int rc = bind(fd, sa, len);
    int err = errno;
    close(fd);
    if (rc != 0)
        return fprintf(stderr, "pcsim: --http %d: cannot listen on %s: %s\n", opt->http_port,
                       opt->bind, strerror(err)),
               2;
    return 0;
}

int serve_http_start(server *s, uv_loop_t *loop, const serve_opts *opt, serve_http **out)
{
    int rc = bind_check(opt);
    if (rc < 0)
        return fprintf(stderr, "pcsim: --bind '%s': not an IPv4 or IPv6 address\n", opt->bind), 2;
    if (rc)
        return rc;
    serve_http *h = calloc(1, sizeof *h);
    if (!h)
        return fprintf(stderr, "pcsim: out of memory\n"), 2;
    h->srv = s;
    h->opt = opt;
    if (token_make(h->token) != 0 || render_index(h) != 0) {
        fprintf(stderr, "pcsim: --http: cannot make the session token: %s\n", strerror(errno));
        free(h->index);
        free(h);
        return 2;
    }
    h->web = web_state_create(h, s, opt);
    if (!h->web) {
        free(h->index);
        free(h);
        return fprintf(stderr, "pcsim: out of memory\n"), 2;
    }
    lws_set_log_level(LLL_ERR | (opt->quiet ? 0 : LLL_WARN), lws_log);
    void *loops[1] = {loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = opt->http_port;
    info.iface = opt->bind;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   (strchr(opt->bind, ':') ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
    info.foreign_loops = loops;
    info.user = h;
    info.pcontext = &h->ctx;
    info.gid = -1;
    info.uid = -1;
    info.timeout_secs = 10;
    info.max_http_header_data = 4096;
    /* lws indexes its fd table by fd number: room for every connection the
     * TCP side and this one may hold, and the process's own. */
    info.fd_limit_per_thread = 2u * opt->max_clients + 1024u;
    h->ctx = lws_create_context(&info);
    if (!h->ctx) {
        fprintf(stderr,
                "pcsim: --http %d: cannot listen on %s (libwebsockets refused; is the "
                "port in use?)\n",
                opt->http_port, opt->bind);
        web_state_destroy(h->web);
        free(h->index);
        free(h);
        return 2;
    }
    /* lws 4.1 returns a context even when its listening vhost failed, and
     * that failure frees the listener's uv handle without closing it: the
     * loop is then unusable (ASan: heap-use-after-free in uv_walk). bind_check
     * above makes this a race of microseconds; if it happens, stop at once. */
    h->vhost = lws_get_vhost_by_name(h->ctx, "default");
    h->port = h->vhost ? lws_get_vhost_listen_port(h->vhost) : -1;
    if (h->port < 0 || (opt->http_port && h->port != opt->http_port)) {
        fprintf(stderr, "pcsim: --http %d: cannot listen on %s (taken since it was checked)\n",
                opt->http_port, opt->bind);
        _exit(2);
    }
    uv_timer_init(loop, &h->pace);
    h->pace.data = h;
    uv_timer_start(&h->pace, on_pace, WEB_PACE_MS, WEB_PACE_MS);
    *out = h;
    return 0;
}

int serve_http_port(const serve_http *h)
{
    return h->port;
}

void serve_http_stop(serve_http *h)
{
    if (!h || h->stopping)
        return;
    h->stopping = 1;
    /* With a foreign loop lws closes its handles through the loop: the
     * context goes (and info.pcontext clears h->ctx) once the loop has run
     * those closes, so h and its web state live until serve_http_free. */
    lws_context_destroy(h->ctx);
    uv_close((uv_handle_t *)&h->pace, NULL);
    web_world_gone(h->web); /* its readers, before the world thread destroys the pool */
}

void serve_http_free(serve_http *h)
{
    if (!h)
        return;
    if (h->ctx)
        lws_context_destroy(h->ctx);
    web_state_destroy(h->web);
    free(h->index);
    free(h);
}

void serve_http_reply(serve_http *h, const serve_req *r)
{
    web_reply(h->web, r);
}

void serve_http_idle(serve_http *h)
{
    if (h && h->web)
        web_idle(h->web);
}

void serve_http_world_gone(serve_http *h)
{
    if (h && h->web)
        web_world_gone(h->web);
}
