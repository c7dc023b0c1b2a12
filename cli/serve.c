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

/* Where a whole-number option goes: the field's type in serve_opts. */
enum number_type { NUMBER_INT, NUMBER_U32, NUMBER_SIZE };

/* The whole-number options: each is an integer in [lo, hi] stored in one
 * field, so one table and one parser serve them all. */
static const struct number_opt {
    int ch;           /* getopt's code (parse_opts' longs) */
    const char *name; /* as the message names it */
    uint64_t lo, hi;  /* allowed, both ends included */
    size_t offset;    /* offsetof(serve_opts, field) */
    enum number_type type;
} number_opts[] = {
    {'p', "--port", 0, 65535, offsetof(serve_opts, port), NUMBER_INT},
    {'H', "--http", 0, 65535, offsetof(serve_opts, http_port), NUMBER_INT},
    {'m', "--max-clients", 1, 4096, offsetof(serve_opts, max_clients), NUMBER_U32},
    {'q', "--send-queue", 4096, (uint64_t)1 << 30, offsetof(serve_opts, send_queue), NUMBER_SIZE},
    {'w', "--slow-consumer-ms", 10, 3600000, offsetof(serve_opts, slow_ms), NUMBER_U32},
    {'B', "--burst", 1, 200000, offsetof(serve_opts, burst), NUMBER_U32},
    {'M', "--max-scenario-bytes", 1, (uint64_t)1 << 40, offsetof(serve_opts, max_scenario_bytes),
     NUMBER_SIZE},
};

/* Store @p v (already within the option's range, so it fits) in its field. */
static void number_store(serve_opts *o, const struct number_opt *n, uint64_t v)
{
    void *field = (char *)o + n->offset;
    if (n->type == NUMBER_INT)
        *(int *)field = (int)v;
    else if (n->type == NUMBER_U32)
        *(uint32_t *)field = (uint32_t)v;
    else
        *(size_t *)field = (size_t)v;
}

static int parse_number(int ch, const char *arg, serve_opts *o)
{
    for (size_t i = 0; i < sizeof number_opts / sizeof number_opts[0]; i++) {
        const struct number_opt *n = &number_opts[i];
        if (n->ch != ch)
            continue;
        uint64_t v;
        if (parse_u64(arg, n->lo, n->hi, &v)) {
            fprintf(stderr, "pcsim: %s '%s': expected an integer in [%" PRIu64 ", %" PRIu64 "]\n",
                    n->name, arg, n->lo, n->hi);
            return 2;
        }
        number_store(o, n, v);
        return 0;
    }
    return 2;
}

static int parse_opts(int argc, char **argv, serve_opts *o)
{
    static const struct option longs[] = {{"port", 1, 0, 'p'},
                                          {"bind", 1, 0, 'b'},
                                          {"token", 1, 0, 't'},
                                          {"read-only", 0, 0, 'r'},
                                          {"max-clients", 1, 0, 'm'},
                                          {"mode", 1, 0, 'o'},
                                          {"speed", 1, 0, 's'},
                                          {"save-dir", 1, 0, 'd'},
                                          {"port-file", 1, 0, 'f'},
                                          {"http", 1, 0, 'H'},
                                          {"http-port-file", 1, 0, 'F'},
                                          {"max-scenario-bytes", 1, 0, 'M'},
                                          {"rate", 1, 0, 'R'},
                                          {"burst", 1, 0, 'B'},
                                          {"quiet", 0, 0, 'Q'},
                                          {"send-queue", 1, 0, 'q'},
                                          {"slow-consumer-ms", 1, 0, 'w'},
                                          {"help", 0, 0, 'h'},
                                          {0, 0, 0, 0}};
    int port_given = 0, mode_given = 0, ch, rc;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (ch) {
        case 'p':
        case 'H':
            port_given = 1; /* fall through */
        case 'm':
        case 'q':
        case 'w':
        case 'M':
        case 'B':
            if ((rc = parse_number(ch, optarg, o)) != 0)
                return rc;
            break;
        case 'b':
            o->bind = optarg;
            break;
        case 't':
            if ((rc = read_token(optarg, o)) != 0)
                return rc;
            break;
        case 'r':
            o->read_only = 1;
            break;
        case 'o':
            if (strcmp(optarg, "step") == 0)
                o->mode = SERVE_MODE_STEP;
            else if (strcmp(optarg, "free") == 0)
                o->mode = SERVE_MODE_FREE;
            else if (strcmp(optarg, "fast") == 0)
                o->mode = SERVE_MODE_FAST;
            else
                return fail("--mode '%s'", optarg, "expected step, free or fast");
            mode_given = 1;
            break;
        case 's': {
            char *end;
            o->speed = strtod(optarg, &end);
            if (end == optarg || *end || !(o->speed >= PCS_SPEED_MIN && o->speed <= PCS_SPEED_MAX))
                return fail("--speed '%s'", optarg,
                            "expected a number in [0.1, 1000] (simulated seconds per wall "
                            "second; --mode fast runs as fast as possible)");
            break;
        }
        case 'R': {
            char *end;
            o->rate = strtod(optarg, &end);
            if (end == optarg || *end || !(o->rate >= 0.0 && o->rate <= 100000.0))
                return fail("--rate '%s'", optarg, "expected a number in [0, 100000]");
            break;
        }
        case 'd':
            o->save_dir = optarg;
            break;
        case 'f':
            o->port_file = optarg;
            break;
        case 'F':
            o->http_port_file = optarg;
            break;
        case 'Q':
            o->quiet = 1;
            break;
        case 'h':
            serve_usage(stdout);
            return 1;
        default:
            serve_usage(stderr);
            return 2;
        }
    }
    if (optind < argc)
        o->scenario = argv[optind++];
    if (optind < argc)
        return fail("unexpected argument '%s'", argv[optind], "see --help");
    if (!port_given)
        return fail("%s", "--port or --http", "required (0 picks a free port)");
    /* A browser has no step button: the page's world runs by itself. */
    if (o->http_port >= 0 && !mode_given)
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
