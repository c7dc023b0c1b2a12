/**
 * @file sync_budget_bench.c
 * @brief Delta sync under its byte budget (issue 18), two ways:
 *
 *  - in pcsim-bench (the JMH-style harness): sync.room_encode, one station
 *    tick plus a hub update and the encode of 100 control-room clients, with
 *    sync.room_tick (the tick and hub update alone) as its baseline;
 *  - built with -DSYNC_BUDGET_MAIN (`make sync-budget`): the budget report
 *    recorded in bench/README.md. The typical control room of
 *    tests/sync_room.h (40 gauges, 10 displays, 4 recorders, 2 annunciators,
 *    20 mimic elements, 20 synthetic emitter channels) follows the default
 *    scenario's first 10 simulated minutes (u1 rods at 60 s, u2 pump 2 trip
 *    at 120 s, alarm acknowledge at 150 s, u3 steam pressure steps at 180 and
 *    420 s) at full and at half budget; per rate class it prints bytes/s,
 *    the delivered rate, the largest |decoded - true| (in quanta) and the
 *    largest gap between deliveries. Then 100 clients paced at 10 Hz of wall
 *    time on a sender thread (one hub, messages written to a local socket
 *    pair drained by a second thread) against none, in alternating blocks of
 *    one second in one process: tick p50/p95/p99 of each, and their ratio;
 *    once with the world ticking as fast as it can, once paced at 10x real
 *    time. Arguments: simulated seconds (0: skip the budget report), blocks
 *    (0: skip the comparison), pace speed.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "tests/sync_room.h"

#define BENCH_CLIENTS 100u

#ifndef SYNC_BUDGET_MAIN
/* ------------------------------------------------------------ harness */
#include "bench/bench.h"

typedef struct enc_ctx {
    sync_room room;
    pcs_sync_client *c[BENCH_CLIENTS];
    uint8_t *buf;
    size_t cap;
    uint32_t n_clients;
} enc_ctx;

static void *enc_setup_n(uint32_t clients)
{
    enc_ctx *e = calloc(1, sizeof *e);
    if (!e || sync_room_build(&e->room, 600.0, 1.0)) {
        fprintf(stderr, "sync bench: %s\n", e ? e->room.err : "no memory");
        return NULL;
    }
    e->n_clients = clients;
    pcs_sync_client_def d = sync_room_def(&e->room, pcs_sync_budget_default());
    for (uint32_t i = 0; i < clients; i++)
        if (pcs_sync_client_add(e->room.hub, &d, &e->c[i]) != PCS_OK) {
            fprintf(stderr, "sync bench: %s\n", pcs_last_error());
            return NULL;
        }
    e->cap = clients ? pcs_sync_client_message_max(e->c[0]) : 0;
    e->buf = malloc(e->cap ? e->cap : 1);
    return e;
}

static void *enc_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return enc_setup_n(BENCH_CLIENTS);
}

static void *tick_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return enc_setup_n(0);
}

static void enc_teardown(void *ctx)
{
    enc_ctx *e = ctx;
    for (uint32_t i = 0; i < e->n_clients; i++)
        pcs_sync_client_destroy(e->c[i]);
    free(e->buf);
    sync_room_destroy(&e->room);
    free(e);
}

static void enc_run(void *ctx, uint64_t n)
{
    enc_ctx *e = ctx;
    for (uint64_t k = 0; k < n; k++) {
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(e->room.world));
        pcs_bench_consume_u64((uint64_t)pcs_sync_hub_update(e->room.hub));
        for (uint32_t i = 0; i < e->n_clients; i++) {
            size_t len;
            while (pcs_sync_encode(e->c[i], e->buf, e->cap, &len) == PCS_OK && len > 0)
                pcs_bench_consume_u64(len);
        }
    }
}

static const pcs_bench_def sync_room_tick = {
    .group = "sync",
    .name = "room_tick",
    .description = "one station tick (4 units + 20 emitter channels) and a sync hub update",
    .setup = tick_setup,
    .teardown = enc_teardown,
    .run = enc_run,
};
PCS_BENCH_REGISTER(sync_room_tick)

static const pcs_bench_def sync_room_encode = {
    .group = "sync",
    .name = "room_encode",
    .description = "sync.room_tick plus the encode of 100 control-room clients (126 slots each)",
    .baseline = "sync.room_tick",
    .setup = enc_setup,
    .teardown = enc_teardown,
    .run = enc_run,
};
PCS_BENCH_REGISTER(sync_room_encode)

#else
/* ------------------------------------------------------------- report */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *const class_names[PCS_SYNC_CLASSES] = {"gauge", "display",  "recorder",
                                                          "event", "acoustic", "player"};

static void report_client(const char *title, const room_client *rc, const sync_room *r,
                          double seconds)
{
    pcs_sync_client_stats st;
    pcs_sync_client_stats_get(rc->c, &st);
    printf("\n### %s\n\n", title);
    printf("| class | slots | bytes/s | delivered rate (per slot) | max abs(decoded-true) | "
           "max gap between deliveries |\n|---|---|---|---|---|---|\n");
    for (unsigned k = 0; k < PCS_SYNC_CLASSES; k++) {
        uint32_t n = 0;
        uint64_t deliveries = 0, max_gap = 0;
        double min_rate = INFINITY, max_rate = 0.0;
        for (uint32_t i = 0; i < ROOM_SLOTS; i++) {
            if (r->slots[i].rate_class != k)
                continue;
            pcs_sync_slot_stats ss;
            pcs_sync_slot_stats_get(rc->c, i, &ss);
            n++;
            deliveries += ss.deliveries;
            double rate = (double)ss.deliveries / seconds;
            min_rate = rate < min_rate ? rate : min_rate;
            max_rate = rate > max_rate ? rate : max_rate;
            max_gap = ss.max_gap_ticks > max_gap ? ss.max_gap_ticks : max_gap;
        }
        if (n == 0)
            continue;
        printf("| %s | %u | %.0f | %.2f Hz (%.2f..%.2f) | %.3f quantum | %.2f s |\n",
               class_names[k], n, (double)st.class_bytes[k] / seconds,
               (double)deliveries / n / seconds, min_rate, max_rate, rc->max_err_q[k],
               (double)max_gap * r->dt_s);
    }
    double steady = (double)(st.bytes - st.setup_bytes) / seconds;
    printf("\nframing %.0f B/s; steady total %.0f B/s (instruments bucket spent %.0f B/s, "
           "acoustics %.0f, player %.0f, reserve %.0f); subscribe setup %" PRIu64
           " bytes once (layout, keyframe, history); %" PRIu64 " messages\n",
           (double)st.framing_bytes / seconds, steady, (double)st.bucket_spent[0] / seconds,
           (double)st.bucket_spent[1] / seconds, (double)st.bucket_spent[2] / seconds,
           (double)st.bucket_spent[3] / seconds, st.setup_bytes, st.messages);
    printf("level time share:");
    uint64_t total = 0;
    for (unsigned l = 0; l < PCS_SYNC_LEVELS; l++)
        total += st.level_ticks[l];
    for (unsigned l = 0; l < PCS_SYNC_LEVELS; l++)
        if (st.level_ticks[l])
            printf(" L%u %.1f %%", l, 100.0 * (double)st.level_ticks[l] / (double)total);
    printf("; deferred items %" PRIu64 "; events: %" PRIu64 " changes, %" PRIu64
           " not on their tick; bound violations %" PRIu64 ", decode errors %" PRIu64 "%s%s\n",
           st.deferred, rc->event_changes, rc->event_late, rc->violations, rc->decode_errors,
           rc->first_error[0] ? ": " : "", rc->first_error);
    printf("gauge rates by priority:");
    for (uint32_t p = 0; p <= PCS_SYNC_PRIORITY_MAX; p++) {
        uint64_t d = 0;
        uint32_t n = 0;
        for (uint32_t i = 0; i < ROOM_GAUGES; i++)
            if (r->slots[i].priority == p) {
                pcs_sync_slot_stats ss;
                pcs_sync_slot_stats_get(rc->c, i, &ss);
                d += ss.deliveries;
                n++;
            }
        printf(" p%u %.2f Hz", p, (double)d / n / seconds);
    }
    printf("\n");
}

static int budget_report(double seconds, double quantum_scale, const char *room)
{
    sync_room r;
    if (sync_room_build(&r, 600.0, quantum_scale)) {
        fprintf(stderr, "sync-budget: %s\n", r.err);
        return 1;
    }
    uint64_t ticks = (uint64_t)llround(seconds / r.dt_s);
    pcs_sync_budget full = pcs_sync_budget_default(), half = full;
    half.instruments_bps /= 2;
    half.acoustics_bps /= 2;
    half.player_bps /= 2;
    half.reserve_bps /= 2;
    room_client a, b;
    if (room_client_open(&a, &r, full, ticks + 1) || room_client_open(&b, &r, half, ticks + 1)) {
        fprintf(stderr, "sync-budget: %s\n", r.err);
        return 1;
    }
    uint64_t t0 = now_ns();
    for (uint64_t t = 1; t <= ticks; t++) {
        if (sync_room_script(&r, t) || pcs_world_tick(r.world) != PCS_OK ||
            pcs_sync_hub_update(r.hub) != PCS_OK) {
            fprintf(stderr, "sync-budget: tick %" PRIu64 ": %s %s\n", t, r.err, pcs_last_error());
            return 1;
        }
        room_client_pump(&a, &r);
        room_client_pump(&b, &r);
    }
    double wall = (double)(now_ns() - t0) / 1e9;
    printf("\n## sync budget: %s, %.0f simulated s of the default scenario (%.1f s wall)\n", room,
           seconds, wall);
    report_client("full budget (instruments 1400, acoustics 400, player 100, reserve 148 B/s)", &a,
                  &r, seconds);
    report_client("half budget (700, 200, 50, 74 B/s)", &b, &r, seconds);
    int bad = a.violations || b.violations || a.decode_errors || b.decode_errors || a.event_late ||
              b.event_late;
    room_client_close(&a);
    room_client_close(&b);
    sync_room_destroy(&r);
    return bad;
}

/* ---------------------------------------------- 100 paced clients vs none */

typedef struct sender {
    sync_room *r;
    pcs_sync_client *c[BENCH_CLIENTS];
    uint8_t *buf;
    size_t cap;
    int fd;
    atomic_int active; /* 1: encode and send at 10 Hz; 0: idle */
    atomic_int stop;
    uint64_t rounds, bytes;
} sender;

/* The sender: a server's loop thread in miniature. Every 100 ms of wall
 * time (pcs_reader_wait's rate limit would do the same), one hub update,
 * then every client's messages, each written to the socket with a 4-byte
 * length. */
static void *sender_main(void *arg)
{
    sender *s = arg;
    while (!atomic_load(&s->stop)) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        if (!atomic_load(&s->active))
            continue;
        if (pcs_sync_hub_update(s->r->hub) != PCS_OK)
            continue;
        for (uint32_t i = 0; i < BENCH_CLIENTS; i++) {
            size_t len;
            while (pcs_sync_encode(s->c[i], s->buf + 4, s->cap, &len) == PCS_OK && len > 0) {
                uint32_t n = (uint32_t)len;
                memcpy(s->buf, &n, 4);
                if (write(s->fd, s->buf, len + 4) < 0 && errno != EAGAIN)
                    break;
                s->bytes += len;
            }
        }
        s->rounds++;
    }
    return NULL;
}

static void *drain_main(void *arg)
{
    int fd = *(int *)arg;
    char buf[65536];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(uint64_t *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t i = (size_t)ceil(p * (double)n) - 1u;
    return (double)v[i < n ? i : n - 1] / 1000.0;
}

static void loadavg(char *out, size_t n)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f || !fgets(out, (int)n, f))
        snprintf(out, n, "?");
    if (f)
        fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* Sleep until @p deadline_ns of CLOCK_MONOTONIC. */
static void sleep_until(uint64_t deadline_ns)
{
    struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* @p speed: ticks paced at speed x real time (dt 0.05 s), 0 unpaced. */
static int paced_report(int blocks, double speed)
{
    sync_room r;
    if (sync_room_build(&r, 600.0, 1.0)) {
        fprintf(stderr, "sync-budget: %s\n", r.err);
        return 1;
    }
    static sender s;
    memset(&s, 0, sizeof s); /* a second call starts afresh */
    s.r = &r;
    pcs_sync_client_def d = sync_room_def(&r, pcs_sync_budget_default());
    for (uint32_t i = 0; i < BENCH_CLIENTS; i++)
        if (pcs_sync_client_add(r.hub, &d, &s.c[i]) != PCS_OK)
            return 1;
    s.cap = pcs_sync_client_message_max(s.c[0]);
    s.buf = malloc(s.cap + 4);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 1;
    s.fd = sv[0];
    pthread_t ts, td;
    pthread_create(&ts, NULL, sender_main, &s);
    pthread_create(&td, NULL, drain_main, &sv[1]);
    size_t cap = 2000000;
    uint64_t *with = malloc(cap * sizeof *with), *none = malloc(cap * sizeof *none);
    size_t n_with = 0, n_none = 0;
    char load0[128], load1[128];
    loadavg(load0, sizeof load0);
    uint64_t t = 1;
    uint64_t period = speed > 0.0 ? (uint64_t)llround(r.dt_s / speed * 1e9) : 0, next = now_ns();
    for (int b = 0; b < 2 * blocks; b++) {
        int on = b % 2 == 0;
        atomic_store(&s.active, on);
        uint64_t end = now_ns() + 1000000000u;
        while (now_ns() < end) {
            if (period) {
                next += period;
                sleep_until(next);
            }
            (void)sync_room_script(&r, t++);
            uint64_t a = now_ns();
            pcs_world_tick(r.world);
            uint64_t dt = now_ns() - a;
            if (on && n_with < cap)
                with[n_with++] = dt;
            else if (!on && n_none < cap)
                none[n_none++] = dt;
        }
    }
    atomic_store(&s.stop, 1);
    pthread_join(ts, NULL);
    shutdown(sv[0], SHUT_RDWR);
    close(sv[0]);
    pthread_join(td, NULL);
    close(sv[1]);
    loadavg(load1, sizeof load1);
    double w50 = pct(with, n_with, 0.50), w95 = pct(with, n_with, 0.95),
           w99 = pct(with, n_with, 0.99);
    double n50 = pct(none, n_none, 0.50), n95 = pct(none, n_none, 0.95),
           n99 = pct(none, n_none, 0.99);
    printf("\n### 100 clients paced at 10 Hz vs none (%d alternating 1 s blocks each, one "
           "process; world %s)\n\n",
           blocks, speed > 0.0 ? "paced" : "unpaced, as fast as it ticks");
    if (speed > 0.0)
        printf("world paced at %.0fx real time (%.0f ticks/s)\n\n", speed, speed / r.dt_s);
    printf("| | ticks | p50 us | p95 us | p99 us |\n|---|---|---|---|---|\n");
    printf("| no clients | %zu | %.1f | %.1f | %.1f |\n", n_none, n50, n95, n99);
    printf("| 100 clients | %zu | %.1f | %.1f | %.1f |\n", n_with, w50, w95, w99);
    printf("\np95 ratio %.3f (goal <= 1.1: %s); sender: %" PRIu64 " rounds, %.0f B/s per client "
           "(wall); load average before: %s, after: %s\n",
           w95 / n95, w95 / n95 <= 1.1 ? "met" : "MISSED", s.rounds,
           (double)s.bytes / BENCH_CLIENTS / (double)blocks, load0, load1);
    for (uint32_t i = 0; i < BENCH_CLIENTS; i++)
        pcs_sync_client_destroy(s.c[i]);
    free(with);
    free(none);
    free(s.buf);
    sync_room_destroy(&r);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 600.0;
    int blocks = argc > 2 ? atoi(argv[2]) : 10;
    double speed = argc > 3 ? atof(argv[3]) : 10.0;
    int bad = 0;
    if (seconds > 0.0) {
        bad |=
            budget_report(seconds, 1.0, "typical control room (quanta: pcs_sync_quantum_suggest)");
        bad |=
            budget_report(seconds, 0.1, "fine control room (gauge, display, recorder quanta / 10)");
    }
    if (blocks > 0) {
        bad |= paced_report(blocks, 0.0);
        bad |= paced_report(blocks, speed);
    }
    return bad;
}
#endif
