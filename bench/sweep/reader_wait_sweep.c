/**
 * @file reader_wait_sweep.c
 * @brief Issue 16, "readers that wait": the built-in 4-unit station ticking at real-time pacing
 *        with 0/1/20/100/1000 reader threads at 10 Hz each, side by side in one run.
 *
 * Each phase: start N readers, tick the station for `seconds` of wall time
 * paced at its dt (0.05 s: 20 ticks a second, as `pcsim run --realtime`),
 * time every pcs_world_tick (CLOCK_MONOTONIC around the call), and take the
 * process's CPU time (getrusage RUSAGE_SELF, user + sys) over the phase.
 * A reader (the way issue 16 asks hosts to write one):
 *
 *     pcs_reader_set_min_interval(r, 100 ms);           10 Hz
 *     loop: pcs_reader_wait(r, seen, 200 ms, &seen);    sleep; OK at most every 100 ms
 *           pcs_snapshot_read(r, ids, 8, out, NULL);    8 channels, one tick
 *
 * After the paced phases, an idle phase: the readers of the largest phase
 * wait (no rate limit, no timeout) while the world does not tick (CPU of
 * 1000 idle readers); one tick at the end wakes them to stop. Phases run in the order given and
 * then again in reverse, and each reported figure is the mean of the two, so a drift in the
 * machine's load over the run biases no phase. Prints one table (bench/README.md has the recorded
 * run). Not part of pcsim-bench: it runs for minutes of wall time and needs no harness;
 * bench/sweep/reader_wait_sweep.sh builds and runs it.
 *
 * Usage: reader_wait_sweep [seconds per phase (default 10)] [readers ...]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <pcsim/pcsim.h>

#define MS 1000000ull
#define READER_IDS 8u
#define MAX_TICKS 100000u

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

typedef struct sweep {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    uint32_t n_channels;
    double dt_s;
    atomic_int stop;
    int rate_limited;
    _Atomic uint64_t reads;
} sweep;

typedef struct reader_arg {
    sweep *s;
    uint32_t index;
    pthread_t thread;
} reader_arg;

static void *reader_main(void *p)
{
    reader_arg *a = p;
    sweep *s = a->s;
    pcs_reader *r;
    if (pcs_reader_open(s->pool, &r) != PCS_OK)
        return NULL;
    if (s->rate_limited)
        pcs_reader_set_min_interval(r, 100 * MS);
    uint32_t ids[READER_IDS];
    for (uint32_t j = 0; j < READER_IDS; j++)
        ids[j] = (a->index * 7u + j) % s->n_channels;
    uint64_t seen = pcs_snapshot_published(s->pool);
    double out[READER_IDS];
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        if (pcs_reader_wait(r, seen, s->rate_limited ? 200 * MS : PCS_WAIT_FOREVER, &seen) !=
            PCS_OK)
            continue;
        if (pcs_snapshot_read(r, ids, READER_IDS, out, NULL) == PCS_OK)
            atomic_fetch_add_explicit(&s->reads, 1, memory_order_relaxed);
    }
    pcs_reader_close(r);
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct phase {
    uint32_t readers;
    double p50_us, p95_us, p99_us, max_us;
    double cpu_pct; /* of one core */
    double reads_per_reader_s;
    double wake_calls_per_pub;
    uint32_t runs;
} phase;

static int start_readers(sweep *s, reader_arg *a, uint32_t n, int rate_limited)
{
    atomic_store(&s->stop, 0);
    atomic_store(&s->reads, 0);
    s->rate_limited = rate_limited;
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (reader_arg){.s = s, .index = i};
        if (pthread_create(&a[i].thread, NULL, reader_main, &a[i]) != 0) {
            fprintf(stderr, "reader_wait_sweep: thread %u of %u: cannot create\n", i, n);
            return 0;
        }
    }
    return 1;
}

static void stop_readers(sweep *s, reader_arg *a, uint32_t n)
{
    atomic_store(&s->stop, 1);
    if (!s->rate_limited)
        pcs_world_tick(s->w); /* idle readers wait without a timeout: wake them */
    for (uint32_t i = 0; i < n; i++)
        pthread_join(a[i].thread, NULL);
}

static double pct(uint64_t *v, uint32_t n, double q)
{
    uint32_t k = (uint32_t)(q * (double)(n - 1) + 0.5);
    return (double)v[k] / 1e3;
}

/* One paced phase with @p n readers; adds its figures into @p ph. */
static int run_phase(sweep *s, reader_arg *a, uint32_t n, double seconds, uint64_t *tick_ns,
                     phase *ph)
{
    if (!start_readers(s, a, n, 1))
        return 0;
    struct timespec settle = {0, 200 * 1000000L}; /* let the threads reach their first wait */
    nanosleep(&settle, NULL);
    pcs_snapshot_stats st0;
    pcs_snapshot_stats_get(s->pool, &st0);
    uint64_t period = (uint64_t)(s->dt_s * 1e9);
    uint32_t ticks = (uint32_t)(seconds / s->dt_s);
    if (ticks > MAX_TICKS)
        ticks = MAX_TICKS;
    uint64_t c0 = cpu_ns(), t0 = now_ns(), r0 = atomic_load(&s->reads);
    for (uint32_t i = 0; i < ticks; i++) {
        uint64_t due = t0 + (uint64_t)i * period;
        for (uint64_t t = now_ns(); t < due; t = now_ns()) {
            struct timespec ts = {(time_t)((due - t) / 1000000000ull),
                                  (long)((due - t) % 1000000000ull)};
            nanosleep(&ts, NULL);
        }
        uint64_t a0 = now_ns();
        if (pcs_world_tick(s->w) != PCS_OK) {
            fprintf(stderr, "reader_wait_sweep: tick failed: %s\n", pcs_last_error());
            return 0;
        }
        tick_ns[i] = now_ns() - a0;
    }
    uint64_t wall = now_ns() - t0, cpu = cpu_ns() - c0, reads = atomic_load(&s->reads) - r0;
    pcs_snapshot_stats st1;
    pcs_snapshot_stats_get(s->pool, &st1);
    stop_readers(s, a, n);
    qsort(tick_ns, ticks, sizeof *tick_ns, cmp_u64);
    ph->readers = n;
    ph->p50_us += pct(tick_ns, ticks, 0.50);
    ph->p95_us += pct(tick_ns, ticks, 0.95);
    ph->p99_us += pct(tick_ns, ticks, 0.99);
    ph->max_us += (double)tick_ns[ticks - 1] / 1e3;
    ph->cpu_pct += 100.0 * (double)cpu / (double)wall;
    ph->reads_per_reader_s += n ? (double)reads / n / ((double)wall / 1e9) : 0.0;
    ph->wake_calls_per_pub +=
        (double)(st1.wake_calls - st0.wake_calls) / (double)(st1.publications - st0.publications);
    ph->runs++;
    return 1;
}

/* Idle: @p n readers asleep in pcs_reader_wait (no rate limit), no ticks. */
static double idle_cpu_pct(sweep *s, reader_arg *a, uint32_t n, double seconds)
{
    if (!start_readers(s, a, n, 0))
        return -1.0;
    struct timespec settle = {0, 500 * 1000000L};
    nanosleep(&settle, NULL);
    uint64_t c0 = cpu_ns(), t0 = now_ns();
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    double pctv = 100.0 * (double)(cpu_ns() - c0) / (double)(now_ns() - t0);
    stop_readers(s, a, n);
    return pctv;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    uint32_t counts[16] = {0, 1, 20, 100, 1000}, n_counts = 5;
    if (argc > 2) {
        n_counts = 0;
        for (int i = 2; i < argc && n_counts < 16; i++)
            counts[n_counts++] = (uint32_t)strtoul(argv[i], NULL, 10);
    }
    uint32_t most = 0;
    for (uint32_t i = 0; i < n_counts; i++)
        most = counts[i] > most ? counts[i] : most;
    pcs_scenario *scn;
    sweep s = {0};
    if (pcs_scenario_default(&scn) != PCS_OK)
        return 1;
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0;
    pcs_station *st;
    if (pcs_world_create(&cfg, &s.w) != PCS_OK || pcs_station_add(s.w, scn, &st) != PCS_OK ||
        pcs_snapshot_attach(s.w, NULL, &s.pool) != PCS_OK) {
        fprintf(stderr, "reader_wait_sweep: %s\n", pcs_last_error());
        return 1;
    }
    s.n_channels = pcs_snapshot_channel_count(s.pool);
    s.dt_s = pcs_world_clock(s.w)->dt_s;
    pcs_world_tick(s.w); /* publication 1 before any reader opens */
    reader_arg *a = calloc(most ? most : 1, sizeof *a);
    uint64_t *tick_ns = calloc(MAX_TICKS, sizeof *tick_ns);
    phase *ph = calloc(n_counts, sizeof *ph);
    if (!a || !tick_ns || !ph)
        return 1;
    fprintf(stderr, "reader_wait_sweep: %u channels, dt %.3f s, %.0f s per phase, twice\n",
            s.n_channels, s.dt_s, seconds);
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < n_counts; k++) {
            uint32_t i = pass == 0 ? k : n_counts - 1 - k;
            fprintf(stderr, "  pass %u: %u readers\n", pass + 1, counts[i]);
            if (!run_phase(&s, a, counts[i], seconds, tick_ns, &ph[i]))
                return 1;
        }
    double idle = idle_cpu_pct(&s, a, most, seconds);
    printf(
        "| readers | tick p50 us | p95 us | p99 us | max us | p95 / p95(0) | process CPU %% of a "
        "core | reads/s per reader | stage-12 wake calls per publication |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double p95_0 = 0.0;
    for (uint32_t i = 0; i < n_counts; i++)
        if (ph[i].readers == 0)
            p95_0 = ph[i].p95_us / ph[i].runs;
    for (uint32_t i = 0; i < n_counts; i++) {
        double r = ph[i].runs;
        printf("| %u | %.1f | %.1f | %.1f | %.1f | %s%.2f | %.2f | %.2f | %.3f |\n", ph[i].readers,
               ph[i].p50_us / r, ph[i].p95_us / r, ph[i].p99_us / r, ph[i].max_us / r,
               p95_0 > 0 ? "" : "n/a ", p95_0 > 0 ? ph[i].p95_us / r / p95_0 : 0.0,
               ph[i].cpu_pct / r, ph[i].reads_per_reader_s / r, ph[i].wake_calls_per_pub / r);
    }
    printf("\nidle: %u readers asleep in pcs_reader_wait, no ticks, %.0f s: process CPU %.3f %% of "
           "a core\n",
           most, seconds, idle);
    pcs_station_destroy(st);
    pcs_world_destroy(s.w);
    pcs_scenario_destroy(scn);
    free(a);
    free(tick_ns);
    free(ph);
    return 0;
}
