/**
 * @file serve.c
 * @brief `pcsim serve`: options, the token file, the scenario; then the
 *        world thread and the network loop (cli/serve_world.c,
 *        cli/serve_net.c). The protocol is docs/protocol.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/host.h"
#include "cli/serve.h"

static void serve_usage(FILE *f)
{
    fputs("usage: pcsim serve [SCENARIO.json] --port N | --http N [options]\n"
          "  Serves the scenario's station (the built-in pwr-station when none is given)\n"
          "  to TCP clients speaking docs/protocol.md (--port) and to browsers (--http:\n"
          "  the control room page and its WebSocket). The scenario's script is not run:\n"
          "  commands come from the clients. Stop it with SIGINT or SIGTERM.\n"
          "  --port N          TCP port; 0 picks a free one (printed, see --port-file)\n"
          "  --http N          HTTP port of the control room (http://127.0.0.1:N/); 0 picks\n"
          "                    a free one; the world then runs by itself (--mode free)\n"
          "                    unless --mode is given\n"
          "  --http-port-file FILE  write the HTTP port to FILE once listening\n"
          "  --bind ADDR       IPv4 or IPv6 address to listen on (default 127.0.0.1)\n"
          "  --token FILE      clients must present the first line of FILE in their hello\n"
          "  --read-only       clients may only observe (no control role; pages without\n"
          "                    controls)\n"
          "  --max-clients N   open connections allowed (default 64, at most 4096)\n"
          "  --mode step|free|fast  step: the world ticks only when the controller\n"
          "                    steps (default); free: it runs by itself, paced by --speed;\n"
          "                    fast: it runs by itself as fast as it can\n"
          "  --speed X         free mode: simulated seconds per wall second, in [0.1, 1000]\n"
          "                    (default 1, real time)\n"
          "  --save-dir DIR    where save and load keep NAME.save (default: refused)\n"
          "  --rate R          acts accepted per simulated second, 0: no limit (default\n"
          "                    the scenario's run.command_rate_per_s, 400)\n"
          "  --burst B         acts accepted at once before the rate applies (default\n"
          "                    the scenario's run.command_burst, 800)\n"
          "  --port-file FILE  write the listening port to FILE once listening\n"
          "  --max-scenario-bytes N  refuse a larger scenario file (default 4194304)\n"
          "  --quiet           log nothing but errors\n"
          "  --help            this text\n"
          "  Testing options (docs/protocol.md, \"Limits\"):\n"
          "  --send-queue BYTES       per-client send queue bound (default 1048576)\n"
          "  --slow-consumer-ms MS    drop a client whose queue stays full this long\n"
          "                           (default 5000)\n"
          "TLS is not supported: bind to loopback, or put a TLS proxy in front.\n",
          f);
}

static int fail(const char *fmt, const char *arg, const char *why)
{
    fputs("pcsim: ", stderr);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, ": %s\n", why);
    return 2;
}

/* An unsigned integer in [lo, hi], all of the text. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno || s[0] == '-' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* The token is the file's first line, without its line end: at most
 * SERVE_TOKEN_MAX bytes, not empty. The file must be a regular file. */
static int read_token(const char *path, serve_opts *o)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail("--token '%s'", path, strerror(errno));
    struct stat st;
    char buf[SERVE_TOKEN_MAX + 2];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return fail("--token '%s'", path, "not a readable regular file");
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    size_t len = strlen(buf);
    if (len == 0 || len > SERVE_TOKEN_MAX)
        return fail("--token '%s'", path, "the first line must hold 1..256 bytes");
    memcpy(o->token, buf, len + 1);
    o->has_token = 1;
    return 0;
}

static int parse_mode(const char *arg, serve_opts *o)
{
    if (strcmp(arg, "step") == 0)
        o->mode = SERVE_MODE_STEP;
    else if (strcmp(arg, "free") == 0)
        o->mode = SERVE_MODE_FREE;
    else if (strcmp(arg, "fast") == 0)
        o->mode = SERVE_MODE_FAST;
    else
        return fail("--mode '%s'", arg, "expected step, free or fast");
    return 0;
}

static int parse_speed(const char *arg, serve_opts *o)
{
    if (host_parse_double(arg, PCS_SPEED_MIN, PCS_SPEED_MAX, &o->speed))
        return fail("--speed '%s'", arg,
                    "expected a number in [0.1, 1000] (simulated seconds per wall "
                    "second; --mode fast runs as fast as possible)");
    return 0;
}

static int parse_rate(const char *arg, serve_opts *o)
{
    if (host_parse_double(arg, 0.0, 100000.0, &o->rate))
        return fail("--rate '%s'", arg, "expected a number in [0, 100000]");
    return 0;
}

/* Where a whole-number option goes: the field's type in serve_opts. */
enum number_type { NUMBER_INT, NUMBER_U32, NUMBER_SIZE };

/* What an option does with its argument. */
enum opt_kind {
    OPT_NUMBER, /* an integer in [lo, hi] into the field, of its number_type */
    OPT_TEXT,   /* the argument itself into a const char * field (argv outlives o) */
    OPT_FLAG,   /* no argument: the int field becomes 1 */
    OPT_PARSE,  /* the option's own parser */
    OPT_HELP,   /* no argument: the usage on stdout, and stop */
};

/* Each option's index in options[] (and its bit in parse_opts' set of those
 * given): the table is indexed by these, so a name is looked up at compile
 * time, never by string. */
enum serve_option_id {
    OPT_I_PORT,
    OPT_I_BIND,
    OPT_I_TOKEN,
    OPT_I_READ_ONLY,
    OPT_I_MAX_CLIENTS,
    OPT_I_MODE,
    OPT_I_SPEED,
    OPT_I_SAVE_DIR,
    OPT_I_PORT_FILE,
    OPT_I_HTTP,
    OPT_I_HTTP_PORT_FILE,
    OPT_I_MAX_SCENARIO_BYTES,
    OPT_I_RATE,
    OPT_I_BURST,
    OPT_I_QUIET,
    OPT_I_SEND_QUEUE,
    OPT_I_SLOW_CONSUMER_MS,
    OPT_I_HELP,
    N_OPTIONS,
};

/* Every option of `pcsim serve`, in getopt's order: its name and what it
 * does, so one table gives getopt its longs and one loop applies them all. */
static const struct serve_option {
    const char *name; /* without the leading "--" */
    enum opt_kind kind;
    size_t offset;         /* offsetof(serve_opts, field): OPT_NUMBER, OPT_TEXT, OPT_FLAG */
    enum number_type type; /* OPT_NUMBER */
    uint64_t lo, hi;       /* OPT_NUMBER: allowed, both ends included */
    int (*parse)(const char *arg, serve_opts *o); /* OPT_PARSE: 0, or 2 refused (said) */
} options[] = {
    [OPT_I_PORT] = {"port", OPT_NUMBER, .offset = offsetof(serve_opts, port), .type = NUMBER_INT,
                    .lo = 0, .hi = 65535},
    [OPT_I_BIND] = {"bind", OPT_TEXT, .offset = offsetof(serve_opts, bind)},
    [OPT_I_TOKEN] = {"token", OPT_PARSE, .parse = read_token},
    [OPT_I_READ_ONLY] = {"read-only", OPT_FLAG, .offset = offsetof(serve_opts, read_only)},
    [OPT_I_MAX_CLIENTS] = {"max-clients", OPT_NUMBER, .offset = offsetof(serve_opts, max_clients),
                           .type = NUMBER_U32, .lo = 1, .hi = 4096},
    [OPT_I_MODE] = {"mode", OPT_PARSE, .parse = parse_mode},
    [OPT_I_SPEED] = {"speed", OPT_PARSE, .parse = parse_speed},
    [OPT_I_SAVE_DIR] = {"save-dir", OPT_TEXT, .offset = offsetof(serve_opts, save_dir)},
    [OPT_I_PORT_FILE] = {"port-file", OPT_TEXT, .offset = offsetof(serve_opts, port_file)},
    [OPT_I_HTTP] = {"http", OPT_NUMBER, .offset = offsetof(serve_opts, http_port),
                    .type = NUMBER_INT, .lo = 0, .hi = 65535},
    [OPT_I_HTTP_PORT_FILE] = {"http-port-file", OPT_TEXT,
                              .offset = offsetof(serve_opts, http_port_file)},
    [OPT_I_MAX_SCENARIO_BYTES] = {"max-scenario-bytes", OPT_NUMBER,
                                  .offset = offsetof(serve_opts, max_scenario_bytes),
                                  .type = NUMBER_SIZE, .lo = 1, .hi = (uint64_t)1 << 40},
    [OPT_I_RATE] = {"rate", OPT_PARSE, .parse = parse_rate},
    [OPT_I_BURST] = {"burst", OPT_NUMBER, .offset = offsetof(serve_opts, burst), .type = NUMBER_U32,
                     .lo = 1, .hi = 200000},
    [OPT_I_QUIET] = {"quiet", OPT_FLAG, .offset = offsetof(serve_opts, quiet)},
    [OPT_I_SEND_QUEUE] = {"send-queue", OPT_NUMBER, .offset = offsetof(serve_opts, send_queue),
                          .type = NUMBER_SIZE, .lo = 4096, .hi = (uint64_t)1 << 30},
    [OPT_I_SLOW_CONSUMER_MS] = {"slow-consumer-ms", OPT_NUMBER,
                                .offset = offsetof(serve_opts, slow_ms), .type = NUMBER_U32,
                                .lo = 10, .hi = 3600000},
    [OPT_I_HELP] = {.name = "help", .kind = OPT_HELP},
};
_Static_assert(sizeof options / sizeof options[0] == N_OPTIONS, "one row per option id");
_Static_assert(N_OPTIONS <= 32, "parse_opts marks the options given in 32 bits");

/* Store @p v (already within the option's range, so it fits) in its field. */
static void number_store(serve_opts *o, const struct serve_option *n, uint64_t v)
{
    void *field = (char *)o + n->offset;
    if (n->type == NUMBER_INT)
        *(int *)field = (int)v;
    else if (n->type == NUMBER_U32)
        *(uint32_t *)field = (uint32_t)v;
    else
        *(size_t *)field = (size_t)v;
}

/* Apply option @p n with its argument @p arg: 0, 1 stop (help shown), or 2
 * refused (said). */
static int apply_option(const struct serve_option *n, const char *arg, serve_opts *o)
{
    void *field = (char *)o + n->offset;
    uint64_t v;
    switch (n->kind) {
    case OPT_NUMBER:
        if (parse_u64(arg, n->lo, n->hi, &v)) {
            fprintf(stderr, "pcsim: --%s '%s': expected an integer in [%" PRIu64 ", %" PRIu64 "]\n",
                    n->name, arg, n->lo, n->hi);
            return 2;
        }
        number_store(o, n, v);
        return 0;
    case OPT_TEXT:
        *(const char **)field = arg;
        return 0;
    case OPT_FLAG:
        *(int *)field = 1;
        return 0;
    case OPT_PARSE:
        return n->parse(arg, o);
    case OPT_HELP:
        serve_usage(stdout);
        return 1;
    }
    return 2;
}

static int parse_opts(int argc, char **argv, serve_opts *o)
{
    struct option longs[N_OPTIONS + 1] = {{0}};
    for (int i = 0; i < N_OPTIONS; i++)
        longs[i] =
            (struct option){.name = options[i].name,
                            .has_arg = options[i].kind != OPT_FLAG && options[i].kind != OPT_HELP,
                            .val = i};
    uint32_t given = 0; /* bit i: options[i] */
    int ch, rc;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        if (ch < 0 || ch >= N_OPTIONS) {
            serve_usage(stderr);
            return 2;
        }
        if ((rc = apply_option(&options[ch], optarg, o)) != 0)
            return rc;
        given |= 1u << ch;
    }
    if (optind < argc)
        o->scenario = argv[optind++];
    if (optind < argc)
        return fail("unexpected argument '%s'", argv[optind], "see --help");
    if (!(given & ((1u << OPT_I_PORT) | (1u << OPT_I_HTTP))))
        return fail("%s", "--port or --http", "required (0 picks a free port)");
    /* A browser has no step button: the page's world runs by itself. */
    if (o->http_port >= 0 && !(given & (1u << OPT_I_MODE)))
        o->mode = SERVE_MODE_FREE;
    return 0;
}

int cmd_serve(int argc, char **argv)
{
    static serve_opts o;
    memset(&o, 0, sizeof o);
    o.bind = "127.0.0.1";
    o.port = -1;
    o.http_port = -1;
    o.max_clients = SERVE_MAX_CLIENTS_DEFAULT;
    o.speed = 1.0;
    o.send_queue = SERVE_SEND_QUEUE_DEFAULT;
    o.slow_ms = SERVE_SLOW_MS_DEFAULT;
    o.rate = -1.0; /* the scenario's */
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : rc;
    pcs_scenario_load_opts lo = {.max_bytes = o.max_scenario_bytes};
    pcs_scenario *scn = NULL;
    if ((o.scenario ? pcs_scenario_load_file(o.scenario, &lo, &scn) : pcs_scenario_default(&scn)) !=
        PCS_OK) {
        fprintf(stderr, "pcsim: %s\n", pcs_last_error());
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a peer that went away is an error return, not a signal */
    rc = serve_net_run(&o, scn);
    pcs_scenario_destroy(scn);
    return rc;
}
