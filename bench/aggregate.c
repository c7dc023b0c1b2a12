/**
 * @file aggregate.c
 * @brief From forks to a score: mean, 99.9 % error, percentiles, secondary metrics, baselines.
 *
 * As JMH: every measurement iteration of every fork is one observation
 * (avgt, thrpt, ss); in sample mode every sampled invocation is one
 * observation, so percentiles describe single operations. Secondary metrics
 * (bytes/allocations per op, perf counters per op, the aux rate) are averaged
 * over iterations the same way. A benchmark may name several baselines;
 * each is linked to the run of the same mode whose shared params agree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness_internal.h"

static int cmp_bin(const void *a, const void *b)
{
    uint64_t x = ((const sample_bin *)a)->value_ns, y = ((const sample_bin *)b)->value_ns;
    return (x > y) - (x < y);
}

/* Merge every fork's every iteration's bins into one sorted, deduplicated array. */
static sample_bin *merge_bins(const run_result *r, size_t *nb, uint64_t *total)
{
    size_t n = 0;
    for (unsigned f = 0; f < r->n_forks; f++)
        for (unsigned i = 0; r->forks[f].hist && i < r->forks[f].n_iters; i++)
            n += r->forks[f].hist_n[i];
    sample_bin *all = malloc(sizeof *all * (n ? n : 1));
    if (!all)
        return NULL;
    size_t k = 0;
    for (unsigned f = 0; f < r->n_forks; f++)
        for (unsigned i = 0; r->forks[f].hist && i < r->forks[f].n_iters; i++)
            for (unsigned b = 0; b < r->forks[f].hist_n[i]; b++)
                all[k++] = r->forks[f].hist[i][b];
    qsort(all, k, sizeof *all, cmp_bin);
    size_t out = 0;
    *total = 0;
    for (size_t i = 0; i < k; i++) {
        *total += all[i].count;
        if (out > 0 && all[out - 1].value_ns == all[i].value_ns)
            all[out - 1].count += all[i].count;
        else
            all[out++] = all[i];
    }
    *nb = out;
    return all;
}

static void aggregate_samples(run_result *r)
{
    size_t nb = 0;
    uint64_t total = 0;
    sample_bin *bins = merge_bins(r, &nb, &total);
    if (!bins || total == 0) {
        free(bins);
        r->failed = 1;
        return;
    }
    double sum = 0.0, sq = 0.0;
    for (size_t i = 0; i < nb; i++)
        sum += (double)bins[i].value_ns * (double)bins[i].count;
    double mean = sum / (double)total;
    for (size_t i = 0; i < nb; i++) {
        double d = (double)bins[i].value_ns - mean;
        sq += d * d * (double)bins[i].count;
    }
    r->n_samples = total;
    r->score = mean;
    r->error = NAN;
    if (total > 2) {
        double sd = sqrt(sq / (double)(total - 1));
        r->error = bench_t_quantile(0.9995, (double)(total - 1)) * sd / sqrt((double)total);
    }
    for (int k = 0; k < 10; k++)
        r->pct[k] = bench_bins_percentile(bins, nb, total, bench_pct_levels[k]);
    uint64_t max = 0;
    for (unsigned f = 0; f < r->n_forks; f++)
        max = r->forks[f].sample_max_ns > max ? r->forks[f].sample_max_ns : max;
    r->pct[9] = (double)max; /* exact maximum, not the reservoir's */
    free(bins);
}

/* Gather one per-iteration quantity of all forks into x; returns the count. */
static size_t gather(const run_result *r, int sec, double *x)
{
    size_t n = 0;
    for (unsigned f = 0; f < r->n_forks; f++)
        for (unsigned i = 0; i < r->forks[f].n_iters; i++)
            x[n++] = sec < 0 ? r->forks[f].iters[i].score : r->forks[f].iters[i].sec[sec];
    return n;
}

void bench_aggregate(run_result *r)
{
    size_t total = 0;
    r->perf_ok = r->n_forks > 0;
    for (unsigned f = 0; f < r->n_forks; f++) {
        total += r->forks[f].n_iters;
        r->failed |= r->forks[f].failed;
        r->perf_ok &= r->forks[f].perf_ok;
    }
    if (r->n_forks) {
        r->threads = r->forks[0].threads;
        memcpy(r->perf_msg, r->forks[0].perf_msg, sizeof r->perf_msg);
    }
    if (r->failed || total == 0) {
        r->failed = 1;
        return;
    }
    double *x = malloc(sizeof *x * total);
    if (!x) {
        r->failed = 1;
        return;
    }
    for (int s = 0; s < SEC_COUNT; s++) {
        r->sec_present[s] = s < SEC_FIRST_PERF || r->perf_ok;
        if (s == SEC_AUX_RATE)
            r->sec_present[s] = r->def->aux_counter != NULL;
        size_t n = gather(r, s, x);
        r->sec_score[s] = bench_mean(x, n);
        r->sec_error[s] = bench_error_999(x, n);
    }
    if (r->mode == PCS_BENCH_SAMPLE) {
        aggregate_samples(r);
    } else {
        size_t n = gather(r, -1, x);
        r->score = bench_mean(x, n);
        r->error = bench_error_999(x, n);
        bench_sort(x, n);
        for (int k = 0; k < 10; k++)
            r->pct[k] = bench_percentile(x, n, bench_pct_levels[k]);
    }
    r->ci_lo = r->score - r->error;
    r->ci_hi = r->score + r->error;
    free(x);
}

/* Do params agree on every name both runs have? */
static int params_match(const pcs_bench_params *a, const pcs_bench_params *b)
{
    for (unsigned i = 0; i < a->n; i++)
        for (unsigned j = 0; j < b->n; j++)
            if (strcmp(a->names[i], b->names[j]) == 0 && strcmp(a->values[i], b->values[j]) != 0)
                return 0;
    return 1;
}

int bench_baseline_name(const pcs_bench_def *d, unsigned k, char *out, size_t cap)
{
    const char *s = d->baseline;
    for (unsigned i = 0; s && *s; i++) {
        size_t len = strcspn(s, ",");
        if (i == k) {
            if (len == 0 || len >= cap)
                return 0;
            memcpy(out, s, len);
            out[len] = '\0';
            return 1;
        }
        s += len + (s[len] == ',');
    }
    return 0;
}

/* The run of benchmark @p base with @p r's mode and matching params, or NULL. */
static const run_result *find_peer(const run_result *runs, size_t n, const run_result *r,
                                   const char *base)
{
    char name[160];
    for (size_t j = 0; j < n; j++) {
        bench_full_name(runs[j].def, name, sizeof name);
        if (&runs[j] != r && strcmp(name, base) == 0 && runs[j].mode == r->mode &&
            params_match(&r->params, &runs[j].params))
            return &runs[j];
    }
    return NULL;
}

void bench_link_baselines(run_result *runs, size_t n)
{
    char base[160];
    for (size_t i = 0; i < n; i++) {
        run_result *r = &runs[i];
        r->n_baselines = 0;
        for (unsigned k = 0; k < BENCH_MAX_BASELINES; k++) {
            r->baselines[k] = NULL;
            if (!bench_baseline_name(r->def, k, base, sizeof base))
                continue;
            r->baselines[k] = find_peer(runs, n, r, base);
            r->n_baselines = k + 1;
        }
    }
}
