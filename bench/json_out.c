/**
 * @file json_out.c
 * @brief Results as JMH's JSON (an array, readable by JMH viewers) plus a sibling machine file.
 *
 * Layout choice: FILE holds exactly JMH's result array, so tools that read JMH
 * output (jmh.morethan.io, JMH Visualizer, CI plugins) open it unchanged. The
 * machine description does not fit JMH's per-benchmark schema, so it goes to
 * the sibling FILE-stem.machine.json (bench/results/latest.json ->
 * bench/results/latest.machine.json). JMH's JVM fields carry their C
 * counterparts: jvm = harness path, jvmArgs = compiler flags, jdkVersion =
 * compiler, vmName = "pcsim-bench", vmVersion = pcsim version. Each element
 * adds "pcsimBaseline" {benchmark, ratio} when it names a baseline (the
 * first, and "pcsimBaselines" with all of them when it names several); JMH
 * readers ignore unknown keys. An aux counter is a secondary metric keyed by
 * its name, unit ops/s (as JMH's @AuxCounters). NaN and infinities are written as the strings
 * "NaN" / "Infinity", as JMH does.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness_internal.h"
#include "pcsim/version.h"

json_t *bench_machine_json(const bench_opts *o);

static json_t *num(double v)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    return json_real(v);
}

static json_t *percentiles_json(const double pct[10])
{
    static const char *keys[10] = {"0.0",  "50.0",  "90.0",   "95.0",    "99.0",
                                   "99.9", "99.99", "99.999", "99.9999", "100.0"};
    json_t *o = json_object();
    for (int k = 0; k < 10; k++)
        json_object_set_new(o, keys[k], num(pct[k]));
    return o;
}

/* rawData: one array per fork of per-iteration values (score, or secondary metric s). */
static json_t *raw_json(const run_result *r, int s)
{
    json_t *forks = json_array();
    for (unsigned f = 0; f < r->n_forks; f++) {
        json_t *it = json_array();
        for (unsigned i = 0; i < r->forks[f].n_iters; i++)
            json_array_append_new(
                it, num(s < 0 ? r->forks[f].iters[i].score : r->forks[f].iters[i].sec[s]));
        json_array_append_new(forks, it);
    }
    return forks;
}

/* rawDataHistogram: per fork, per iteration, [[value, count], ...]. */
static json_t *hist_json(const run_result *r)
{
    json_t *forks = json_array();
    for (unsigned f = 0; f < r->n_forks; f++) {
        const fork_result *fr = &r->forks[f];
        json_t *iters = json_array();
        for (unsigned i = 0; fr->hist && i < fr->n_iters; i++) {
            json_t *bins = json_array();
            for (unsigned b = 0; b < fr->hist_n[i]; b++)
                json_array_append_new(bins, json_pack("[f, I]", (double)fr->hist[i][b].value_ns,
                                                      (json_int_t)fr->hist[i][b].count));
            json_array_append_new(iters, bins);
        }
        json_array_append_new(forks, iters);
    }
    return forks;
}

static json_t *metric_json(double score, double error, const double pct[10], const char *unit,
                           json_t *raw, const char *raw_key)
{
    json_t *m = json_object();
    json_object_set_new(m, "score", num(score));
    json_object_set_new(m, "scoreError", num(error));
    json_t *ci = json_array();
    json_array_append_new(ci, num(score - error));
    json_array_append_new(ci, num(score + error));
    json_object_set_new(m, "scoreConfidence", ci);
    json_object_set_new(m, "scorePercentiles", percentiles_json(pct));
    json_object_set_new(m, "scoreUnit", json_string(unit));
    json_object_set_new(m, raw_key, raw);
    return m;
}

static json_t *secondary_json(const run_result *r)
{
    static const struct {
        const char *key;
        const char *unit;
    } sec[SEC_COUNT] = {
        {"·alloc.bytes.norm", "B/op"},
        {"·alloc.count.norm", "allocs/op"},
        {"·world.alloc.count.norm", "allocs/op"},
        {NULL, "ops/s"}, /* aux counter: keyed by the benchmark's aux_name */
        {"·perf.cycles", "#/op"},
        {"·perf.instructions", "#/op"},
        {"·perf.cache-misses", "#/op"},
        {"·perf.branch-misses", "#/op"},
    };
    json_t *o = json_object();
    size_t total = 0;
    for (unsigned f = 0; f < r->n_forks; f++)
        total += r->forks[f].n_iters;
    double *x = malloc(sizeof *x * (total ? total : 1));
    for (int s = 0; x && s < SEC_COUNT; s++) {
        if (!r->sec_present[s])
            continue;
        size_t n = 0;
        for (unsigned f = 0; f < r->n_forks; f++)
            for (unsigned i = 0; i < r->forks[f].n_iters; i++)
                x[n++] = r->forks[f].iters[i].sec[s];
        bench_sort(x, n);
        double pct[10];
        for (int k = 0; k < 10; k++)
            pct[k] = bench_percentile(x, n, bench_pct_levels[k]);
        const char *key = sec[s].key;
        if (s == SEC_AUX_RATE)
            key = r->def->aux_name ? r->def->aux_name : "aux";
        json_object_set_new(o, key,
                            metric_json(r->sec_score[s], r->sec_error[s], pct, sec[s].unit,
                                        raw_json(r, s), "rawData"));
    }
    free(x);
    return o;
}

/* "pcsimBaseline": the first baseline; "pcsimBaselines": all of them, when several. */
static void add_baselines(json_t *e, const run_result *r)
{
    json_t *all = json_array();
    for (unsigned k = 0; k < r->n_baselines; k++) {
        const run_result *b = r->baselines[k];
        if (!b || b->failed)
            continue;
        char base[160];
        bench_full_name(b->def, base, sizeof base);
        json_t *one = json_pack("{s:s, s:o}", "benchmark", base, "ratio", num(r->score / b->score));
        if (json_array_size(all) == 0)
            json_object_set(e, "pcsimBaseline", one);
        json_array_append_new(all, one);
    }
    if (json_array_size(all) > 1)
        json_object_set_new(e, "pcsimBaselines", all);
    else
        json_decref(all);
}

static json_t *run_json(const run_result *r, const bench_opts *o, const char *self)
{
    char name[160], wt[32], mt[32];
    bench_full_name(r->def, name, sizeof name);
    snprintf(wt, sizeof wt, "%g s", o->warmup_s);
    snprintf(mt, sizeof mt, "%g s", o->iter_s);
    json_t *e = json_object();
    json_object_set_new(e, "jmhVersion", json_string("pcsim-bench (JMH 1.37 JSON layout)"));
    json_object_set_new(e, "benchmark", json_string(name));
    json_object_set_new(e, "mode", json_string(bench_mode_name(r->mode)));
    json_object_set_new(e, "threads", json_integer(r->threads));
    json_object_set_new(e, "forks", json_integer(o->forks));
    json_object_set_new(e, "jvm", json_string(self));
    json_t *args = json_array();
    json_array_append_new(args, json_string(o->cflags ? o->cflags : "unknown"));
    json_object_set_new(e, "jvmArgs", args);
#if defined(__clang__)
    json_object_set_new(e, "jdkVersion", json_string("clang " __clang_version__));
#else
    json_object_set_new(e, "jdkVersion", json_string("gcc " __VERSION__));
#endif
    json_object_set_new(e, "vmName", json_string("pcsim-bench"));
    json_object_set_new(e, "vmVersion", json_string(pcs_version()));
    json_object_set_new(e, "warmupIterations", json_integer(o->warmup_iters));
    json_object_set_new(e, "warmupTime", json_string(wt));
    json_object_set_new(e, "warmupBatchSize", json_integer(1));
    json_object_set_new(e, "measurementIterations", json_integer(o->iters));
    json_object_set_new(e, "measurementTime", json_string(mt));
    json_object_set_new(e, "measurementBatchSize", json_integer(1));
    if (r->params.n) {
        json_t *p = json_object();
        for (unsigned k = 0; k < r->params.n; k++)
            json_object_set_new(p, r->params.names[k], json_string(r->params.values[k]));
        json_object_set_new(e, "params", p);
    }
    int sample = r->mode == PCS_BENCH_SAMPLE;
    json_object_set_new(e, "primaryMetric",
                        metric_json(r->score, r->error, r->pct, bench_mode_unit(r->mode),
                                    sample ? hist_json(r) : raw_json(r, -1),
                                    sample ? "rawDataHistogram" : "rawData"));
    json_object_set_new(e, "secondaryMetrics", secondary_json(r));
    add_baselines(e, r);
    return e;
}

static void machine_path(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    if (n > 5 && strcmp(path + n - 5, ".json") == 0)
        snprintf(out, cap, "%.*s.machine.json", (int)(n - 5), path);
    else
        snprintf(out, cap, "%s.machine.json", path);
}

int bench_json_write(const char *path, const run_result *runs, size_t n, const bench_opts *o,
                     const char *self)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        if (!runs[i].failed)
            json_array_append_new(arr, run_json(&runs[i], o, self));
    int rc = json_dump_file(arr, path, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(arr);
    if (rc != 0) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return -1;
    }
    char mpath[1024];
    machine_path(path, mpath, sizeof mpath);
    json_t *m = bench_machine_json(o);
    json_object_set_new(m, "results_file", json_string(path));
    rc = json_dump_file(m, mpath, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(m);
    if (rc != 0) {
        fprintf(stderr, "bench: cannot write %s\n", mpath);
        return -1;
    }
    printf("bench: results in %s, machine description in %s\n", path, mpath);
    return 0;
}
