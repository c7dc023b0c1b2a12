/**
 * @file trial.c
 * @brief One trial in this process: setup, warmup and measurement iterations, teardown.
 *
 * Timing. avgt and thrpt call run(ctx, batch) repeatedly, timing each call,
 * until the iteration's time is used; the batch is sized once, before the
 * first iteration, by doubling until a call lasts >= 1 ms, so the timer's
 * cost (tens of ns) is below 1e-4 of a batch. sample times run(ctx, 1) one
 * by one (latency per op, timer cost included: use it for ops of a
 * microsecond or more, or batch shorter ones with ops_per_invocation) and
 * keeps a uniform reservoir of 65536 samples per iteration plus the exact
 * maximum. ss times a single run(ctx, 1). Every count is in operations:
 * invocations times the ops_per_invocation setup reported (JMH
 * @OperationsPerInvocation), and a sample is its invocation's time divided
 * by it.
 *
 * Allocation counts, world-heap counts and perf counters are read right before
 * and right after the timed part of each iteration; the harness allocates
 * nothing in between, so what they show is the benchmark's. The aux counter
 * is read just outside them and turned into a rate over the same wall time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/harness_internal.h"

#define BATCH_TARGET_NS 1e6
#define BATCH_MAX (UINT64_C(1) << 40)
#define RESERVOIR 65536u

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct trial {
    const pcs_bench_def *d;
    void *ctx;
    unsigned mode;
    uint64_t batch;
    uint64_t opi; /* operations per invocation of run(ctx, 1) */
    bench_perf perf;
    uint64_t *reservoir; /* sample mode */
    uint64_t rng;        /* reservoir choice; fixed seed: runs are comparable */
    uint64_t max_ns;
} trial;

static uint64_t next_rand(trial *t)
{
    /* splitmix64 (Steele, Lea, Flood 2014) */
    uint64_t z = (t->rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double timed_run(trial *t, uint64_t n)
{
    double t0 = bench_now_ns();
    t->d->run(t->ctx, n);
    return bench_now_ns() - t0;
}

static void calibrate(trial *t)
{
    uint64_t n = t->d->min_batch ? t->d->min_batch : 1;
    while (n < BATCH_MAX && timed_run(t, n) < BATCH_TARGET_NS)
        n *= 2;
    t->batch = n;
}

/* The timed part of one iteration. Sets ops, ns; fills the reservoir in sample mode. */
static void timed_part(trial *t, double budget_ns, uint64_t *ops, double *ns, uint64_t *n_samples)
{
    *ops = 0;
    *ns = 0.0;
    *n_samples = 0;
    if (t->mode == PCS_BENCH_SS) {
        *ns = timed_run(t, 1);
        *ops = t->opi;
        return;
    }
    if (t->mode == PCS_BENCH_SAMPLE) {
        double start = bench_now_ns();
        uint64_t seen = 0;
        do {
            double d = timed_run(t, 1);
            /* ns per operation of this invocation, as JMH divides by opsPerInvocation */
            uint64_t v = (uint64_t)(d / (double)t->opi + 0.5);
            *ns += d;
            *ops += t->opi;
            seen++;
            t->max_ns = v > t->max_ns ? v : t->max_ns;
            if (*n_samples < RESERVOIR) {
                t->reservoir[(*n_samples)++] = v;
            } else {
                uint64_t j = next_rand(t) % seen; /* Algorithm R (Vitter 1985) */
                if (j < RESERVOIR)
                    t->reservoir[j] = v;
            }
        } while (bench_now_ns() - start < budget_ns);
        return;
    }
    while (*ns < budget_ns) {
        *ns += timed_run(t, t->batch);
        *ops += t->batch * t->opi;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sort the reservoir and run-length encode it into bins. */
static sample_bin *to_bins(uint64_t *v, uint64_t n, unsigned *nb)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    sample_bin *bins = malloc(sizeof *bins * (n ? (size_t)n : 1));
    unsigned k = 0;
    for (uint64_t i = 0; bins && i < n; i++) {
        if (k > 0 && bins[k - 1].value_ns == v[i])
            bins[k - 1].count++;
        else
            bins[k++] = (sample_bin){v[i], 1};
    }
    *nb = k;
    return bins;
}

static double score_of(unsigned mode, uint64_t ops, double ns)
{
    if (mode == PCS_BENCH_THRPT)
        return (double)ops / (ns * 1e-9);
    return ns / (double)ops;
}

static void one_iteration(trial *t, double budget_ns, iter_result *r, sample_bin **bins,
                          unsigned *nb)
{
    if (t->d->iteration_setup)
        t->d->iteration_setup(t->ctx);
    uint64_t c0, b0, c1, b1, w0 = 0, w1 = 0, a0 = 0, a1 = 0, n_samples;
    double pc[4];
    if (t->d->aux_counter)
        a0 = t->d->aux_counter(t->ctx);
    double wall0 = bench_now_ns();
    if (t->d->world_allocs)
        w0 = t->d->world_allocs(t->ctx);
    bench_perf_start(&t->perf);
    bench_alloc_read(&c0, &b0);
    timed_part(t, budget_ns, &r->ops, &r->ns, &n_samples);
    bench_alloc_read(&c1, &b1);
    bench_perf_stop(&t->perf, pc);
    if (t->d->world_allocs)
        w1 = t->d->world_allocs(t->ctx);
    double wall_ns = bench_now_ns() - wall0;
    if (t->d->aux_counter)
        a1 = t->d->aux_counter(t->ctx);
    double ops = (double)r->ops;
    r->score = score_of(t->mode, r->ops, r->ns);
    r->sec[SEC_ALLOC_BYTES] = (double)(b1 - b0) / ops;
    r->sec[SEC_ALLOC_COUNT] = (double)(c1 - c0) / ops;
    r->sec[SEC_WORLD_ALLOCS] = (double)(w1 - w0) / ops;
    /* a rate over the whole timed part's wall time: the counted threads run
     * between samples too, not only inside the timed invocations */
    r->sec[SEC_AUX_RATE] = wall_ns > 0.0 ? (double)(a1 - a0) / (wall_ns * 1e-9) : 0.0;
    for (int i = 0; i < 4; i++)
        r->sec[SEC_FIRST_PERF + i] = pc[i] / ops;
    if (bins)
        *bins = to_bins(t->reservoir, n_samples, nb);
}

static void print_iteration(const char *what, int k, unsigned mode, const iter_result *r)
{
    printf("%s %d: %.3f %s\n", what, k, r->score, bench_mode_unit(mode));
    fflush(stdout);
}

static int trial_init(trial *t, const pcs_bench_def *d, const pcs_bench_params *p, unsigned mode,
                      const bench_opts *o, fork_result *out)
{
    memset(t, 0, sizeof *t);
    t->d = d;
    t->mode = mode;
    t->rng = 0x5eed;
    t->batch = 1;
    pcs_bench_info info = {.threads = 1, .ops_per_invocation = 1};
    if (d->setup) {
        t->ctx = d->setup(p, &info);
        if (!t->ctx)
            return -1;
    }
    out->threads = info.threads;
    t->opi = info.ops_per_invocation ? info.ops_per_invocation : 1;
    if (o->perf) {
        bench_perf_open(&t->perf);
    } else {
        memset(&t->perf, 0, sizeof t->perf);
        snprintf(t->perf.msg, sizeof t->perf.msg, "off (use --perf)");
    }
    out->perf_ok = t->perf.ok;
    snprintf(out->perf_msg, sizeof out->perf_msg, "%s", t->perf.msg);
    if (mode == PCS_BENCH_SAMPLE) {
        t->reservoir = malloc(sizeof *t->reservoir * RESERVOIR);
        out->hist = calloc((size_t)o->iters + 1, sizeof *out->hist);
        out->hist_n = calloc((size_t)o->iters + 1, sizeof *out->hist_n);
        if (!t->reservoir || !out->hist || !out->hist_n)
            return -1;
    }
    out->iters = calloc((size_t)o->iters + 1, sizeof *out->iters);
    return out->iters ? 0 : -1;
}

int bench_trial_run(const pcs_bench_def *d, const pcs_bench_params *p, unsigned mode,
                    const bench_opts *o, fork_result *out)
{
    memset(out, 0, sizeof *out);
    trial t;
    if (trial_init(&t, d, p, mode, o, out) != 0) {
        fprintf(stderr, "bench: setup of %s.%s failed\n", d->group, d->name);
        out->failed = 1;
        if (t.ctx && d->teardown)
            d->teardown(t.ctx);
        free(t.reservoir);
        return -1;
    }
    if (mode == PCS_BENCH_AVGT || mode == PCS_BENCH_THRPT)
        calibrate(&t);
    iter_result scratch;
    for (int k = 1; k <= o->warmup_iters; k++) {
        sample_bin *bins = NULL;
        unsigned nb = 0;
        one_iteration(&t, o->warmup_s * 1e9, &scratch, mode == PCS_BENCH_SAMPLE ? &bins : NULL,
                      &nb);
        free(bins);
        if (!o->quiet)
            print_iteration("# Warmup Iteration", k, mode, &scratch);
    }
    t.max_ns = 0; /* the maximum is over measurement iterations only */
    for (int k = 1; k <= o->iters; k++) {
        unsigned i = out->n_iters;
        one_iteration(&t, o->iter_s * 1e9, &out->iters[i],
                      mode == PCS_BENCH_SAMPLE ? &out->hist[i] : NULL,
                      mode == PCS_BENCH_SAMPLE ? &out->hist_n[i] : NULL);
        out->n_iters++;
        if (!o->quiet)
            print_iteration("Iteration", k, mode, &out->iters[i]);
    }
    out->sample_max_ns = t.max_ns;
    bench_perf_close(&t.perf);
    if (d->teardown)
        d->teardown(t.ctx);
    free(t.reservoir);
    return 0;
}

void bench_fork_result_free(fork_result *f)
{
    if (f->hist)
        for (unsigned i = 0; i < f->n_iters; i++)
            free(f->hist[i]);
    free(f->hist);
    free(f->hist_n);
    free(f->iters);
    memset(f, 0, sizeof *f);
}
