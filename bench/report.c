/**
 * @file report.c
 * @brief The human result table, laid out as JMH prints it, plus allocation, perf and baseline
 *        columns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/harness_internal.h"

#define MAX_COLS 16u

/* Union of param names over all runs, in first-seen order. */
static unsigned param_columns(const run_result *runs, size_t n, const char **cols)
{
    unsigned nc = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < runs[i].params.n; k++) {
            unsigned j = 0;
            while (j < nc && strcmp(cols[j], runs[i].params.names[k]) != 0)
                j++;
            if (j == nc && nc < MAX_COLS)
                cols[nc++] = runs[i].params.names[k];
        }
    return nc;
}

static const char *param_value(const run_result *r, const char *name)
{
    for (unsigned k = 0; k < r->params.n; k++)
        if (strcmp(r->params.names[k], name) == 0)
            return r->params.values[k];
    return "N/A";
}

static void fmt_num(char *buf, size_t cap, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "NaN");
    else if (fabs(v) >= 1e7)
        snprintf(buf, cap, "%.3e", v);
    else
        snprintf(buf, cap, "%.3f", v);
}

static void print_params(const run_result *r, const char **cols, unsigned nc, int widths[])
{
    for (unsigned c = 0; c < nc; c++)
        printf(" %*s", widths[c], r ? param_value(r, cols[c]) : "");
}

/* " x1.23 vs a.b" for every linked baseline; pct_k < 0 compares scores, else percentile k. */
static void print_ratios(const run_result *r, int pct_k)
{
    for (unsigned k = 0; k < r->n_baselines; k++) {
        const run_result *b = r->baselines[k];
        if (!b || b->failed)
            continue;
        char base[160];
        bench_full_name(b->def, base, sizeof base);
        double ratio = pct_k < 0 ? r->score / b->score : r->pct[pct_k] / b->pct[pct_k];
        printf("  x%.3f vs %s", ratio, base);
    }
}

static void print_row(const char *label, const run_result *r, const char **cols, unsigned nc,
                      int widths[], double score, double error, int with_extra, int pct_k)
{
    char s[32], e[32];
    fmt_num(s, sizeof s, score);
    fmt_num(e, sizeof e, error);
    printf("%-40s", label);
    print_params(r, cols, nc, widths);
    uint64_t cnt = 0; /* as JMH: iterations, or samples in sample mode */
    for (unsigned f = 0; f < r->n_forks; f++)
        cnt += r->forks[f].n_iters;
    if (r->mode == PCS_BENCH_SAMPLE)
        cnt = r->n_samples;
    printf("  %6s %8llu %14s ± %12s  %-6s", bench_mode_name(r->mode), (unsigned long long)cnt, s, e,
           bench_mode_unit(r->mode));
    if (with_extra) {
        printf(" %10.1f %9.3f %9.3f", r->sec_score[SEC_ALLOC_BYTES], r->sec_score[SEC_ALLOC_COUNT],
               r->sec_score[SEC_WORLD_ALLOCS]);
        print_ratios(r, -1);
        if (r->sec_present[SEC_AUX_RATE])
            printf("  [%s %.4g/s]", r->def->aux_name ? r->def->aux_name : "aux",
                   r->sec_score[SEC_AUX_RATE]);
    } else if (pct_k >= 0 && r->n_baselines > 0) {
        printf(" %30s", "");
        print_ratios(r, pct_k);
    }
    printf("\n");
}

static void print_perf(const run_result *runs, size_t n, const bench_opts *o)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= runs[i].perf_ok;
    if (!any) {
        const char *msg = n ? runs[0].perf_msg : "";
        printf("\nperf counters: %s\n", o->perf ? msg : "off (use --perf)");
        return;
    }
    printf("\n%-40s %12s %14s %6s %14s %14s\n", "perf counters per op (harness thread)", "cycles",
           "instructions", "IPC", "cache-misses", "branch-misses");
    char name[160];
    for (size_t i = 0; i < n; i++) {
        const run_result *r = &runs[i];
        bench_full_name(r->def, name, sizeof name);
        if (!r->perf_ok) {
            printf("%-40s %s\n", name, r->perf_msg);
            continue;
        }
        const double *v = &r->sec_score[SEC_FIRST_PERF];
        printf("%-40s %12.1f %14.1f %6.2f %14.3f %14.3f\n", name, v[0], v[1],
               v[0] > 0 ? v[1] / v[0] : 0.0, v[2], v[3]);
    }
}

void bench_report(const run_result *runs, size_t n, const bench_opts *o)
{
    const char *cols[MAX_COLS];
    int widths[MAX_COLS];
    unsigned nc = param_columns(runs, n, cols);
    printf("\n%-40s", "Benchmark");
    for (unsigned c = 0; c < nc; c++) {
        char h[80];
        snprintf(h, sizeof h, "(%s)", cols[c]);
        widths[c] = (int)strlen(h);
        for (size_t i = 0; i < n; i++) {
            int w = (int)strlen(param_value(&runs[i], cols[c]));
            widths[c] = w > widths[c] ? w : widths[c];
        }
        printf(" %*s", widths[c], h);
    }
    printf("  %6s %8s %14s   %12s  %-6s %10s %9s %9s  %s\n", "Mode", "Cnt", "Score", "Error",
           "Units", "B/op", "allocs/op", "world/op", "vs baseline");
    char name[200];
    for (size_t i = 0; i < n; i++) {
        const run_result *r = &runs[i];
        bench_full_name(r->def, name, sizeof name);
        if (r->failed) {
            printf("%-40s FAILED (see messages above)\n", name);
            continue;
        }
        print_row(name, r, cols, nc, widths, r->score, r->error, 1, -1);
        if (r->mode != PCS_BENCH_SAMPLE)
            continue;
        static const struct {
            int k;
            const char *suffix;
        } rows[] = {{1, ":p0.50"}, {2, ":p0.90"}, {4, ":p0.99"}, {5, ":p0.999"}, {9, ":p1.00"}};
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
            char label[220];
            snprintf(label, sizeof label, "%s%s", name, rows[k].suffix);
            print_row(label, r, cols, nc, widths, r->pct[rows[k].k], NAN, 0, rows[k].k);
        }
    }
    print_perf(runs, n, o);
    printf("\nScore ± Error: mean and 99.9 %% confidence half-width (Student t), as JMH. "
           "B/op, allocs/op: C heap (malloc hook); world/op: world-heap allocations. "
           "xR vs B: score / B's score (on :pX rows, percentile / B's percentile). "
           "[name N/s]: the benchmark's aux counter per second.\n");
}
