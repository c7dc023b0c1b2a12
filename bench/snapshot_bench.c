/**
 * @file snapshot_bench.c
 * @brief Snapshot benchmarks: read latency and publish cost against memcpy, rwlock and RCU.
 *
 * Read latency (sample mode, p50/p99, ns per read) of reading n channels by id
 * (n = 8, 64, 400) on the measuring thread while a writer thread publishes
 * continuously and 0, 1 or 3 more reader threads read the same way:
 *   snapshot  pcs_snapshot_read through the public API; the writer ticks a
 *             world whose only work is publishing the n channels;
 *   memcpy    memcpy of the same bytes from a private buffer: the physical
 *             floor (the "writer" copies between its own private buffers, so
 *             the CPU competition is the same but nothing is shared);
 *   rwlock    a pthread_rwlock around one shared buffer; the writer memcpys
 *             the values in under the write lock;
 *   urcu      liburcu (memb flavour): readers rcu_dereference a pointer to an
 *             immutable copy inside a read-side critical section; the writer
 *             fills a spare copy, rcu_xchg_pointer, synchronize_rcu, recycles.
 * Publish cost (ns per publication, sample mode): the snapshot module's
 * publish system called directly on a sealed world, for 1 KiB .. 256 KiB of
 * channels, against memcpy of the same bytes; and with 0, 1 or 3 threads
 * spinning on reads of every channel, against memcpy with the same number of
 * threads spinning on their own memcpys.
 *
 * Timing: RDTSCP, calibrated against CLOCK_MONOTONIC. A sample times a batch
 * of max(1, 256 / n) operations so the timer's ~10 ns does not swamp the
 * 8-channel case; the same batching is applied to every implementation.
 *
 * This file carries its own small sample-mode loop and, with
 * -DPCS_SNAPSHOT_BENCH_STANDALONE, its own main (`make bench-snapshot`),
 * until the shared JMH-style harness (bench/bench.h) lands.
 * Environment: BENCH_SECONDS = measuring time per configuration (default 0.3).
 */
#define _LGPL_SOURCE /* liburcu's inline read-side fast paths, as its users build */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#include <urcu/urcu-memb.h>
#pragma GCC diagnostic pop

#include "pcsim/pcsim.h"
#include "snapshot/pool.h" /* pcs_publish_system: time the publish alone */

#define BN_MAX_CH 32768u
#define BN_MAX_SAMPLES (1u << 20)
#define BN_MAX_BG 3

/* ---- clock and statistics ---------------------------------------------- */

static double bn_cycles_per_ns = 1.0;

static uint64_t bn_now(void)
{
    unsigned aux;
    return __rdtscp(&aux);
}

static double bn_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void bn_calibrate(void)
{
    double t0 = bn_mono_ns();
    uint64_t c0 = bn_now();
    while (bn_mono_ns() - t0 < 50e6)
        ;
    bn_cycles_per_ns = (double)(bn_now() - c0) / (bn_mono_ns() - t0);
}

static int bn_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

typedef struct bn_stats {
    double p50_ns, p99_ns;
    uint64_t samples;
} bn_stats;

static uint64_t *bn_samples;

/* Percentiles of @p n samples of @p batch operations each, in ns per operation. */
static bn_stats bn_summarise(uint64_t n, uint32_t batch)
{
    qsort(bn_samples, n, sizeof *bn_samples, bn_cmp_u64);
    double scale = 1.0 / (bn_cycles_per_ns * batch);
    bn_stats s = {.samples = n};
    if (n) {
        s.p50_ns = (double)bn_samples[n / 2] * scale;
        s.p99_ns = (double)bn_samples[(n * 99) / 100] * scale;
    }
    return s;
}

static double bn_seconds(void)
{
    const char *e = getenv("BENCH_SECONDS");
    double s = e ? atof(e) : 0.3;
    return s > 0.0 && s < 600.0 ? s : 0.3;
}

/* A sink the compiler cannot see through, so reads are not optimised away. */
static volatile double bn_blackhole;

/* ---- implementations under test ---------------------------------------- */

typedef struct bn_impl bn_impl;
struct bn_impl {
    const char *name;
    int (*setup)(bn_impl *im, uint32_t n);
    void (*write)(bn_impl *im);        /* one publication */
    void *(*reader_open)(bn_impl *im); /* on the reading thread */
    void (*read)(bn_impl *im, void *rd, double *out);
    void (*reader_close)(bn_impl *im, void *rd); /* on the reading thread */
    void (*teardown)(bn_impl *im);
    uint32_t n;
    uint32_t ids[BN_MAX_CH];
    double *src; /* the values the writer publishes */
    void *state;
};

/* snapshot: a world with one store of n doubles published as n channels. */
typedef struct bn_snap {
    pcs_world *w;
    pcs_snapshot_pool *pool;
} bn_snap;

static int bn_snap_world(uint32_t n, bn_snap *s, double **values)
{
    pcs_world_config cfg;
    uint32_t store;
    if (pcs_world_config_default(&cfg) != PCS_OK || pcs_world_create(&cfg, &s->w) != PCS_OK ||
        pcs_store_register(s->w, "bn.values", 8, n, PCS_STORE_STATE, &store) != PCS_OK)
        return -1;
    *values = pcs_store_data(s->w, store);
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "bn.c%05u", i);
        if (pcs_channel_register(s->w, name, "W", PCS_CHANNEL_F64, store, i, NULL) != PCS_OK)
            return -1;
        (*values)[i] = 1.5 * i;
    }
    if (pcs_snapshot_attach(s->w, NULL, &s->pool) != PCS_OK || pcs_world_tick(s->w) != PCS_OK)
        return -1;
    return 0;
}

static int bn_snap_setup(bn_impl *im, uint32_t n)
{
    bn_snap *s = calloc(1, sizeof *s);
    im->state = s;
    return s ? bn_snap_world(n, s, &im->src) : -1;
}

static void bn_snap_write(bn_impl *im)
{
    bn_snap *s = im->state;
    pcs_world_tick(s->w);
}

static void *bn_snap_open(bn_impl *im)
{
    bn_snap *s = im->state;
    pcs_reader *r = NULL;
    pcs_reader_open(s->pool, &r);
    return r;
}

static void bn_snap_read(bn_impl *im, void *rd, double *out)
{
    pcs_snapshot_read(rd, im->ids, im->n, out, NULL);
}

static void bn_snap_close(bn_impl *im, void *rd)
{
    (void)im;
    pcs_reader_close(rd);
}

static void bn_snap_teardown(bn_impl *im)
{
    bn_snap *s = im->state;
    pcs_world_destroy(s->w);
    free(s);
}

/* memcpy: every reader copies its own private buffer; the writer its own. */
typedef struct bn_priv {
    double *a, *b;
} bn_priv;

static int bn_memcpy_setup(bn_impl *im, uint32_t n)
{
    bn_priv *p = calloc(1, sizeof *p);
    im->state = p;
    im->src = calloc(n, sizeof(double));
    if (!p || !im->src)
        return -1;
    p->a = calloc(n, sizeof(double));
    p->b = calloc(n, sizeof(double));
    return p->a && p->b ? 0 : -1;
}

static void bn_memcpy_write(bn_impl *im)
{
    bn_priv *p = im->state;
    memcpy(p->a, p->b, im->n * sizeof(double));
    bn_blackhole = p->a[0];
}

static void *bn_memcpy_open(bn_impl *im)
{
    return calloc(im->n, sizeof(double));
}

static void bn_memcpy_read(bn_impl *im, void *rd, double *out)
{
    memcpy(out, rd, im->n * sizeof(double));
}

static void bn_free_reader(bn_impl *im, void *rd)
{
    (void)im;
    free(rd);
}

static void bn_memcpy_teardown(bn_impl *im)
{
    bn_priv *p = im->state;
    free(p->a);
    free(p->b);
    free(p);
    free(im->src);
}

/* rwlock: one shared buffer behind a pthread_rwlock. */
typedef struct bn_rw {
    pthread_rwlock_t lock;
    double *buf;
} bn_rw;

static int bn_rw_setup(bn_impl *im, uint32_t n)
{
    bn_rw *s = calloc(1, sizeof *s);
    im->state = s;
    im->src = calloc(n, sizeof(double));
    if (!s || !im->src || pthread_rwlock_init(&s->lock, NULL) != 0)
        return -1;
    s->buf = calloc(n, sizeof(double));
    return s->buf ? 0 : -1;
}

static void bn_rw_write(bn_impl *im)
{
    bn_rw *s = im->state;
    pthread_rwlock_wrlock(&s->lock);
    memcpy(s->buf, im->src, im->n * sizeof(double));
    pthread_rwlock_unlock(&s->lock);
}

static void *bn_none_open(bn_impl *im)
{
    return im;
}

static void bn_rw_read(bn_impl *im, void *rd, double *out)
{
    (void)rd;
    bn_rw *s = im->state;
    pthread_rwlock_rdlock(&s->lock);
    for (uint32_t i = 0; i < im->n; i++)
        out[i] = s->buf[im->ids[i]];
    pthread_rwlock_unlock(&s->lock);
}

static void bn_none_close(bn_impl *im, void *rd)
{
    (void)im;
    (void)rd;
}

static void bn_rw_teardown(bn_impl *im)
{
    bn_rw *s = im->state;
    pthread_rwlock_destroy(&s->lock);
    free(s->buf);
    free(s);
    free(im->src);
}

/* urcu: readers dereference an immutable copy; the writer swaps and waits. */
typedef struct bn_rcu {
    double *cur;   /* RCU-protected */
    double *spare; /* the writer's next copy */
} bn_rcu;

static int bn_rcu_setup(bn_impl *im, uint32_t n)
{
    bn_rcu *s = calloc(1, sizeof *s);
    im->state = s;
    im->src = calloc(n, sizeof(double));
    if (!s || !im->src)
        return -1;
    s->cur = calloc(n, sizeof(double));
    s->spare = calloc(n, sizeof(double));
    return s->cur && s->spare ? 0 : -1;
}

static void bn_rcu_write(bn_impl *im)
{
    bn_rcu *s = im->state;
    memcpy(s->spare, im->src, im->n * sizeof(double));
    double *old = rcu_xchg_pointer(&s->cur, s->spare);
    urcu_memb_synchronize_rcu(); /* no reader can still hold `old` */
    s->spare = old;
}

static void *bn_rcu_open(bn_impl *im)
{
    urcu_memb_register_thread();
    return im;
}

static void bn_rcu_read(bn_impl *im, void *rd, double *out)
{
    (void)rd;
    bn_rcu *s = im->state;
    urcu_memb_read_lock();
    const double *p = rcu_dereference(s->cur);
    for (uint32_t i = 0; i < im->n; i++)
        out[i] = p[im->ids[i]];
    urcu_memb_read_unlock();
}

static void bn_rcu_close(bn_impl *im, void *rd)
{
    (void)im;
    (void)rd;
    urcu_memb_unregister_thread();
}

static void bn_rcu_teardown(bn_impl *im)
{
    bn_rcu *s = im->state;
    free(s->cur);
    free(s->spare);
    free(s);
    free(im->src);
}

/* ---- threads ------------------------------------------------------------ */

static atomic_int bn_stop;
static _Atomic uint64_t bn_writes; /* publications made by the last writer thread */

/* The writer's rate matters as much as the reader's latency: a lock that
 * makes reads fast by starving the writer shows up here. */
static void *bn_writer_thread(void *arg)
{
    bn_impl *im = arg;
    uint64_t n = 0;
    while (!atomic_load_explicit(&bn_stop, memory_order_relaxed)) {
        im->write(im);
        n++;
    }
    atomic_store(&bn_writes, n);
    return NULL;
}

static void *bn_reader_thread(void *arg)
{
    bn_impl *im = arg;
    double out[BN_MAX_CH > 512 ? 512 : BN_MAX_CH];
    void *rd = im->reader_open(im);
    while (!atomic_load_explicit(&bn_stop, memory_order_relaxed)) {
        im->read(im, rd, out);
        bn_blackhole = out[0];
    }
    im->reader_close(im, rd);
    return NULL;
}

/* Start the writer (if @p writer) and @p bg background readers. */
static int bn_start(bn_impl *im, int writer, int bg, pthread_t *t, void *(*bgfn)(void *))
{
    atomic_store(&bn_stop, 0);
    int k = 0;
    if (writer && pthread_create(&t[k++], NULL, bn_writer_thread, im) != 0)
        return -1;
    for (int i = 0; i < bg; i++)
        if (pthread_create(&t[k++], NULL, bgfn, im) != 0)
            return -1;
    return k;
}

static void bn_stop_all(pthread_t *t, int k)
{
    atomic_store(&bn_stop, 1);
    for (int i = 0; i < k; i++)
        pthread_join(t[i], NULL);
}

/* ---- read latency ------------------------------------------------------- */

static bn_stats bn_measure_reads(bn_impl *im, double seconds)
{
    double out[512];
    uint32_t batch = im->n >= 256 ? 1 : 256 / im->n;
    void *rd = im->reader_open(im);
    for (int i = 0; i < 10000; i++) /* warm-up */
        im->read(im, rd, out);
    uint64_t n = 0;
    uint64_t end = bn_now() + (uint64_t)(seconds * 1e9 * bn_cycles_per_ns);
    while (n < BN_MAX_SAMPLES) {
        uint64_t t0 = bn_now();
        for (uint32_t b = 0; b < batch; b++)
            im->read(im, rd, out);
        uint64_t t1 = bn_now();
        bn_blackhole = out[0];
        bn_samples[n++] = t1 - t0;
        if (t1 > end)
            break;
    }
    im->reader_close(im, rd);
    return bn_summarise(n, batch);
}

static bn_impl bn_impls[4] = {
    {.name = "snapshot",
     .setup = bn_snap_setup,
     .write = bn_snap_write,
     .reader_open = bn_snap_open,
     .read = bn_snap_read,
     .reader_close = bn_snap_close,
     .teardown = bn_snap_teardown},
    {.name = "memcpy",
     .setup = bn_memcpy_setup,
     .write = bn_memcpy_write,
     .reader_open = bn_memcpy_open,
     .read = bn_memcpy_read,
     .reader_close = bn_free_reader,
     .teardown = bn_memcpy_teardown},
    {.name = "rwlock",
     .setup = bn_rw_setup,
     .write = bn_rw_write,
     .reader_open = bn_none_open,
     .read = bn_rw_read,
     .reader_close = bn_none_close,
     .teardown = bn_rw_teardown},
    {.name = "urcu",
     .setup = bn_rcu_setup,
     .write = bn_rcu_write,
     .reader_open = bn_rcu_open,
     .read = bn_rcu_read,
     .reader_close = bn_rcu_close,
     .teardown = bn_rcu_teardown},
};

static int bn_read_latency(double seconds)
{
    static const uint32_t sizes[3] = {8, 64, 400};
    static const int readers[3] = {0, 1, 3};
    printf("\n## Read latency, ns per read of n channels by id (writer publishing "
           "continuously)\n\n");
    printf("| channels | other readers | impl | p50 ns | p99 ns | samples | writer kHz |\n");
    printf("|---:|---:|---|---:|---:|---:|---:|\n");
    for (int si = 0; si < 3; si++) {
        for (int ri = 0; ri < 3; ri++) {
            for (int ii = 0; ii < 4; ii++) {
                bn_impl *im = &bn_impls[ii];
                im->n = sizes[si];
                for (uint32_t i = 0; i < im->n; i++)
                    im->ids[i] = i;
                if (im->setup(im, im->n) != 0) {
                    fprintf(stderr, "setup of %s failed: %s\n", im->name, pcs_last_error());
                    return 1;
                }
                pthread_t t[1 + BN_MAX_BG];
                double t0 = bn_mono_ns();
                int k = bn_start(im, 1, readers[ri], t, bn_reader_thread);
                bn_stats s = k < 0 ? (bn_stats){0} : bn_measure_reads(im, seconds);
                bn_stop_all(t, k < 0 ? 0 : k);
                double khz = (double)atomic_load(&bn_writes) / (bn_mono_ns() - t0) * 1e6;
                im->teardown(im);
                printf("| %u | %d | %s | %.1f | %.1f | %llu | %.0f |\n", sizes[si], readers[ri],
                       im->name, s.p50_ns, s.p99_ns, (unsigned long long)s.samples, khz);
                fflush(stdout);
            }
        }
    }
    return 0;
}

/* ---- publish cost ------------------------------------------------------- */

typedef struct bn_pub {
    bn_snap snap;
    double *values;
    uint32_t n;
    double *dst; /* memcpy target */
} bn_pub;

static bn_stats bn_measure_publish(bn_pub *p, int use_memcpy, double seconds)
{
    uint64_t n = 0;
    uint64_t end = bn_now() + (uint64_t)(seconds * 1e9 * bn_cycles_per_ns);
    for (int i = 0; i < 1000; i++)
        pcs_publish_system(p->snap.w, p->snap.pool);
    while (n < BN_MAX_SAMPLES) {
        uint64_t t0 = bn_now();
        if (use_memcpy)
            memcpy(p->dst, p->values, p->n * sizeof(double));
        else
            pcs_publish_system(p->snap.w, p->snap.pool);
        uint64_t t1 = bn_now();
        bn_blackhole = p->dst[0];
        bn_samples[n++] = t1 - t0;
        if (t1 > end)
            break;
    }
    return bn_summarise(n, 1);
}

static bn_pub *bn_pub_make(uint32_t n)
{
    bn_pub *p = calloc(1, sizeof *p);
    if (!p || bn_snap_world(n, &p->snap, &p->values) != 0)
        return NULL;
    p->n = n;
    p->dst = calloc(n, sizeof(double));
    return p->dst ? p : NULL;
}

static void bn_pub_free(bn_pub *p)
{
    if (!p)
        return;
    pcs_world_destroy(p->snap.w);
    free(p->dst);
    free(p);
}

static bn_pub *bn_spin_target;

/* A background reader of every channel of the publish target. */
static void *bn_snapshot_spinner(void *arg)
{
    (void)arg;
    pcs_reader *r = NULL;
    pcs_reader_open(bn_spin_target->snap.pool, &r);
    double *out = malloc(bn_spin_target->n * sizeof(double));
    while (out && !atomic_load_explicit(&bn_stop, memory_order_relaxed))
        pcs_snapshot_read(r, NULL, bn_spin_target->n, out, NULL);
    free(out);
    pcs_reader_close(r);
    return NULL;
}

/* A background thread copying its own memory, for the memcpy comparison. */
static void *bn_memcpy_spinner(void *arg)
{
    (void)arg;
    size_t bytes = bn_spin_target->n * sizeof(double);
    double *a = calloc(1, bytes), *b = calloc(1, bytes);
    while (a && b && !atomic_load_explicit(&bn_stop, memory_order_relaxed)) {
        memcpy(a, b, bytes);
        bn_blackhole = a[0];
    }
    free(a);
    free(b);
    return NULL;
}

static int bn_publish_vs_bytes(double seconds)
{
    printf("\n## Publish cost vs bytes, ns per publication (no readers)\n\n");
    printf("| bytes | channels | publish p50 | publish p99 | memcpy p50 | memcpy p99 | "
           "p50 ratio |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (uint32_t kib = 1; kib <= 256; kib *= 4) {
        uint32_t n = kib * 1024u / 8u;
        bn_pub *p = bn_pub_make(n);
        if (!p) {
            fprintf(stderr, "publish setup (%u channels) failed: %s\n", n, pcs_last_error());
            bn_pub_free(p);
            return 1;
        }
        bn_stats s = bn_measure_publish(p, 0, seconds);
        bn_stats m = bn_measure_publish(p, 1, seconds);
        printf("| %u KiB | %u | %.0f | %.0f | %.0f | %.0f | %.2f |\n", kib, n, s.p50_ns, s.p99_ns,
               m.p50_ns, m.p99_ns, s.p50_ns / m.p50_ns);
        fflush(stdout);
        bn_pub_free(p);
    }
    return 0;
}

static int bn_publish_vs_readers(double seconds)
{
    static const uint32_t sizes[2] = {400, 8192};
    printf("\n## Publish cost vs spinning readers, ns per publication\n\n");
    printf("| channels | spinning readers | publish p50 | publish p99 | memcpy p50 | memcpy p99 "
           "|\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (int si = 0; si < 2; si++) {
        bn_pub *p = bn_pub_make(sizes[si]);
        if (!p) {
            fprintf(stderr, "publish setup failed: %s\n", pcs_last_error());
            bn_pub_free(p);
            return 1;
        }
        bn_spin_target = p;
        static const int readers[3] = {0, 1, 3};
        for (int ri = 0; ri < 3; ri++) {
            pthread_t t[BN_MAX_BG];
            int k = bn_start(NULL, 0, readers[ri], t, bn_snapshot_spinner);
            bn_stats s = bn_measure_publish(p, 0, seconds);
            bn_stop_all(t, k < 0 ? 0 : k);
            k = bn_start(NULL, 0, readers[ri], t, bn_memcpy_spinner);
            bn_stats m = bn_measure_publish(p, 1, seconds);
            bn_stop_all(t, k < 0 ? 0 : k);
            printf("| %u | %d | %.0f | %.0f | %.0f | %.0f |\n", sizes[si], readers[ri], s.p50_ns,
                   s.p99_ns, m.p50_ns, m.p99_ns);
            fflush(stdout);
        }
        bn_pub_free(p);
    }
    return 0;
}

/** Run every snapshot benchmark and print Markdown tables. @return 0 on success. */
int pcs_bench_snapshot(void);
int pcs_bench_snapshot(void)
{
    bn_samples = malloc(BN_MAX_SAMPLES * sizeof *bn_samples);
    if (!bn_samples)
        return 1;
    bn_calibrate();
    double seconds = bn_seconds();
    printf("# Snapshot benchmarks (%.2f s per configuration, TSC %.3f GHz)\n", seconds,
           bn_cycles_per_ns);
    int rc = bn_read_latency(seconds);
    if (rc == 0)
        rc = bn_publish_vs_bytes(seconds);
    if (rc == 0)
        rc = bn_publish_vs_readers(seconds);
    free(bn_samples);
    return rc;
}

#ifdef PCS_SNAPSHOT_BENCH_STANDALONE
int main(void)
{
    return pcs_bench_snapshot();
}
#endif
