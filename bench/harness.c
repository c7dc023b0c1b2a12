/**
 * @file harness.c
 * @brief pcsim-bench: the registry, the command line, the param sweep and the fork loop.
 *
 * Usage (JMH's option names where JMH has one):
 *   pcsim-bench [--list] [--filter REGEX] [-wi N] [-i N] [-w TIME] [-r TIME] [-f N]
 *               [-bm avgt,thrpt,sample,ss] [--param name=v1,v2]... [--perf]
 *               [--json FILE] [--cflags FLAGS] [-q] [--selftest]
 * TIME is seconds, or a number with s / ms / us. Defaults: -wi 3 -i 5 -w 0.5 -r 0.5 -f 2.
 * A selected benchmark's baselines are run too, so its ratios can be printed.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/harness_internal.h"

#define MAX_BENCHES 256u
#define MAX_OVERRIDES 16u
#define MAX_RUNS 1024u

static const pcs_bench_def *registry[MAX_BENCHES];
static unsigned n_registered;

void pcs_bench_register(const pcs_bench_def *d)
{
    if (n_registered < MAX_BENCHES)
        registry[n_registered++] = d;
}

void bench_full_name(const pcs_bench_def *d, char *out, size_t cap)
{
    snprintf(out, cap, "%s.%s", d->group, d->name);
}

const pcs_bench_def *bench_find(const char *full_name)
{
    char name[160];
    for (unsigned i = 0; i < n_registered; i++) {
        bench_full_name(registry[i], name, sizeof name);
        if (strcmp(name, full_name) == 0)
            return registry[i];
    }
    return NULL;
}

const char *bench_mode_name(unsigned mode)
{
    switch (mode) {
    case PCS_BENCH_THRPT:
        return "thrpt";
    case PCS_BENCH_SAMPLE:
        return "sample";
    case PCS_BENCH_SS:
        return "ss";
    default:
        return "avgt";
    }
}

const char *bench_mode_unit(unsigned mode)
{
    return mode == PCS_BENCH_THRPT ? "ops/s" : "ns/op";
}

const char *pcs_bench_param(const pcs_bench_params *p, const char *name)
{
    for (unsigned i = 0; p && i < p->n; i++)
        if (strcmp(p->names[i], name) == 0)
            return p->values[i];
    return NULL;
}

long long pcs_bench_param_int(const pcs_bench_params *p, const char *name, long long fallback)
{
    const char *v = pcs_bench_param(p, name);
    char *end = NULL;
    if (!v)
        return fallback;
    long long x = strtoll(v, &end, 0);
    return (end && *end == '\0' && end != v) ? x : fallback;
}

typedef struct override {
    const char *name;
    const char *values;
} override;

typedef struct cli {
    bench_opts o;
    int list, selftest;
    const char *filter;
    override ov[MAX_OVERRIDES];
    unsigned n_ov;
} cli;

static int parse_time(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || end == s || !(v > 0.0))
        return -1;
    if (strcmp(end, "ms") == 0)
        v *= 1e-3;
    else if (strcmp(end, "us") == 0)
        v *= 1e-6;
    else if (*end != '\0' && strcmp(end, "s") != 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_modes(const char *s, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned mode;
    } names[] = {{"avgt", PCS_BENCH_AVGT},
                 {"thrpt", PCS_BENCH_THRPT},
                 {"sample", PCS_BENCH_SAMPLE},
                 {"ss", PCS_BENCH_SS},
                 {"all", PCS_BENCH_AVGT | PCS_BENCH_THRPT | PCS_BENCH_SAMPLE | PCS_BENCH_SS}};
    *out = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        size_t k = 0;
        while (k < sizeof names / sizeof names[0] &&
               !(strlen(names[k].name) == len && strncmp(s, names[k].name, len) == 0))
            k++;
        if (k == sizeof names / sizeof names[0])
            return -1;
        *out |= names[k].mode;
        s += len + (s[len] == ',');
    }
    return *out ? 0 : -1;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!end || *end || end == s || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pcsim-bench [--list] [--filter REGEX] [-wi N] [-i N] [-w TIME] [-r TIME]\n"
               "                   [-f N] [-bm avgt,thrpt,sample,ss] [--param name=v1,v2]...\n"
               "                   [--perf] [--json FILE] [--cflags FLAGS] [-q] [--selftest]\n"
               "  -q         no per-iteration lines or headers, only the table\n"
               "  -wi/-i     warmup / measurement iterations (default 3 / 5)\n"
               "  -w/-r      seconds per warmup / measurement iteration (default 0.5; 200ms ok)\n"
               "  -f         forks: fresh processes per trial (default 2; 0 = in this process)\n"
               "  -bm        modes, overriding each benchmark's own\n"
               "  --param    replace a param's values (JMH -p)\n"
               "  --perf     hardware counters per op (perf_event_open), when allowed\n"
               "  --json     JMH-format results; machine description in FILE-stem.machine.json\n");
}

/* One option with a value: 1 (value consumed) or -1. */
static int parse_one(cli *c, const char *a, const char *v)
{
    bench_opts *o = &c->o;
    int rc = 0;
    if (!v)
        return -1;
    if (strcmp(a, "--filter") == 0) {
        c->filter = v;
    } else if (strcmp(a, "-wi") == 0) {
        rc = parse_int(v, 0, 10000, &o->warmup_iters);
    } else if (strcmp(a, "-i") == 0) {
        rc = parse_int(v, 1, (int)BENCH_MAX_ITERS, &o->iters);
    } else if (strcmp(a, "-f") == 0) {
        rc = parse_int(v, 0, 100, &o->forks);
    } else if (strcmp(a, "-w") == 0) {
        rc = parse_time(v, &o->warmup_s);
    } else if (strcmp(a, "-r") == 0) {
        rc = parse_time(v, &o->iter_s);
    } else if (strcmp(a, "-bm") == 0) {
        rc = parse_modes(v, &o->modes);
    } else if (strcmp(a, "--json") == 0) {
        o->json = v;
    } else if (strcmp(a, "--cflags") == 0) {
        o->cflags = v;
    } else if (strcmp(a, "--param") == 0 || strcmp(a, "-p") == 0) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || !eq[1] || c->n_ov >= MAX_OVERRIDES)
            return -1;
        c->ov[c->n_ov++] = (override){strndup(v, (size_t)(eq - v)), eq + 1};
    } else {
        return -1;
    }
    return rc < 0 ? -1 : 1;
}

static int parse_cli(int argc, char **argv, cli *c)
{
    memset(c, 0, sizeof *c);
    c->o = (bench_opts){.warmup_iters = 3, .iters = 5, .forks = 2, .warmup_s = 0.5, .iter_s = 0.5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0) {
            c->list = 1;
        } else if (strcmp(a, "--selftest") == 0) {
            c->selftest = 1;
        } else if (strcmp(a, "--perf") == 0) {
            c->o.perf = 1;
        } else if (strcmp(a, "-q") == 0) {
            c->o.quiet = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else {
            int rc = parse_one(c, a, i + 1 < argc ? argv[i + 1] : NULL);
            if (rc < 0) {
                fprintf(stderr, "pcsim-bench: bad option or value: %s %s\n", a,
                        i + 1 < argc ? argv[i + 1] : "(missing)");
                return -1;
            }
            i += rc;
        }
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    char x[160], y[160];
    bench_full_name(*(const pcs_bench_def *const *)a, x, sizeof x);
    bench_full_name(*(const pcs_bench_def *const *)b, y, sizeof y);
    return strcmp(x, y);
}

/* Selected benchmarks plus the baselines they name. */
static int select_benches(const cli *c, const pcs_bench_def **sel, unsigned *n)
{
    regex_t re;
    if (c->filter && regcomp(&re, c->filter, REG_EXTENDED | REG_NOSUB) != 0) {
        fprintf(stderr, "pcsim-bench: bad --filter regex '%s'\n", c->filter);
        return -1;
    }
    char name[160];
    unsigned k = 0;
    int want[MAX_BENCHES] = {0};
    for (unsigned i = 0; i < n_registered; i++) {
        bench_full_name(registry[i], name, sizeof name);
        want[i] = !c->filter || regexec(&re, name, 0, NULL, 0) == 0;
    }
    for (unsigned i = 0; i < n_registered; i++) {
        char base[160];
        for (unsigned bi = 0; want[i] && bench_baseline_name(registry[i], bi, base, sizeof base);
             bi++) {
            const pcs_bench_def *b = bench_find(base);
            if (!b)
                fprintf(stderr, "pcsim-bench: warning: %s.%s names unknown baseline %s\n",
                        registry[i]->group, registry[i]->name, base);
            for (unsigned j = 0; b && j < n_registered; j++)
                if (registry[j] == b && !want[j]) {
                    want[j] = 1;
                    printf("# note: adding %s, a baseline of %s.%s\n", base, registry[i]->group,
                           registry[i]->name);
                }
        }
    }
    for (unsigned i = 0; i < n_registered; i++)
        if (want[i])
            sel[k++] = registry[i];
    if (c->filter)
        regfree(&re);
    *n = k;
    return 0;
}

/* The value list of param i of d: an override or the declared default. */
static const char *values_of(const cli *c, const pcs_bench_def *d, unsigned i)
{
    for (unsigned k = 0; k < c->n_ov; k++)
        if (strcmp(c->ov[k].name, d->params[i].name) == 0)
            return c->ov[k].values;
    return d->params[i].values;
}

/* Split "a,b,c" into vals; returns the count. */
static unsigned split_values(const char *s, char vals[][BENCH_VALUE_MAX])
{
    unsigned n = 0;
    while (s && *s && n < PCS_BENCH_MAX_VALUES) {
        size_t len = strcspn(s, ",");
        if (len >= BENCH_VALUE_MAX)
            len = BENCH_VALUE_MAX - 1;
        memcpy(vals[n], s, len);
        vals[n++][len] = '\0';
        s += strcspn(s, ",");
        s += *s == ',';
    }
    return n;
}

static void print_header(const run_result *r, const bench_opts *o, unsigned fork)
{
    if (o->quiet)
        return;
    char name[160];
    bench_full_name(r->def, name, sizeof name);
    printf("\n# Benchmark: %s\n# Mode: %s; warmup %d x %g s; measurement %d x %g s\n", name,
           bench_mode_name(r->mode), o->warmup_iters, o->warmup_s, o->iters, o->iter_s);
    if (r->params.n) {
        printf("# Parameters: (");
        for (unsigned k = 0; k < r->params.n; k++)
            printf("%s%s = %s", k ? ", " : "", r->params.names[k], r->params.values[k]);
        printf(")\n");
    }
    if (o->forks)
        printf("# Fork: %u of %d\n", fork + 1, o->forks);
    else
        printf("# Fork: none (in process)\n");
}

static void run_trials(run_result *r, const bench_opts *o, const char *self)
{
    unsigned nf = o->forks ? (unsigned)o->forks : 1;
    r->forks = calloc(nf, sizeof *r->forks);
    if (!r->forks) {
        r->failed = 1;
        return;
    }
    for (unsigned f = 0; f < nf; f++) {
        print_header(r, o, f);
        int rc = o->forks ? bench_fork_spawn(self, r->def, &r->params, r->mode, o, &r->forks[f])
                          : bench_trial_run(r->def, &r->params, r->mode, o, &r->forks[f]);
        r->n_forks++;
        if (rc != 0) {
            r->failed = 1;
            break;
        }
    }
    bench_aggregate(r);
}

/* Expand one benchmark into runs: every param combination x every mode. */
static unsigned expand(const cli *c, const pcs_bench_def *d, run_result *out, unsigned cap)
{
    char vals[PCS_BENCH_MAX_PARAMS][PCS_BENCH_MAX_VALUES][BENCH_VALUE_MAX];
    unsigned nv[PCS_BENCH_MAX_PARAMS] = {0}, np = 0, idx[PCS_BENCH_MAX_PARAMS] = {0}, n = 0;
    while (np < PCS_BENCH_MAX_PARAMS && d->params[np].name) {
        nv[np] = split_values(values_of(c, d, np), vals[np]);
        if (nv[np] == 0)
            return 0;
        np++;
    }
    unsigned modes = c->o.modes ? c->o.modes : (d->modes ? d->modes : PCS_BENCH_AVGT);
    for (;;) {
        for (unsigned m = 1; m <= PCS_BENCH_SS; m <<= 1) {
            if (!(modes & m) || n >= cap)
                continue;
            run_result *r = &out[n++];
            memset(r, 0, sizeof *r);
            r->def = d;
            r->mode = m;
            r->params.n = np;
            for (unsigned k = 0; k < np; k++) {
                r->params.names[k] = d->params[k].name;
                memcpy(r->params.values[k], vals[k][idx[k]], BENCH_VALUE_MAX);
            }
        }
        unsigned k = 0; /* odometer over the param value indices */
        while (k < np && ++idx[k] == nv[k])
            idx[k++] = 0;
        if (k == np)
            break;
    }
    return n;
}

static void list(const pcs_bench_def *const *sel, unsigned n)
{
    char name[160];
    for (unsigned i = 0; i < n; i++) {
        const pcs_bench_def *d = sel[i];
        bench_full_name(d, name, sizeof name);
        printf("%-36s %s\n", name, d->description ? d->description : "");
        for (unsigned k = 0; k < PCS_BENCH_MAX_PARAMS && d->params[k].name; k++)
            printf("%-36s   param %s = %s\n", "", d->params[k].name, d->params[k].values);
        if (d->baseline)
            printf("%-36s   baseline %s\n", "", d->baseline);
    }
}

int main(int argc, char **argv)
{
    qsort(registry, n_registered, sizeof registry[0], by_name);
    if (argc >= 2 && strcmp(argv[1], "--fork-child") == 0)
        return bench_fork_child_main(argc, argv);
    cli c;
    if (parse_cli(argc, argv, &c) != 0) {
        usage(stderr);
        return 2;
    }
    if (c.selftest) {
        printf("pcsim-bench self-test (statistics, allocation hook):\n");
        int rc = bench_stats_selftest() | bench_alloc_selftest();
        printf("%s\n", rc ? "self-test FAILED" : "self-test passed");
        return rc;
    }
    const pcs_bench_def *sel[MAX_BENCHES];
    unsigned n_sel = 0;
    if (select_benches(&c, sel, &n_sel) != 0)
        return 2;
    if (c.list) {
        list(sel, n_sel);
        return 0;
    }
    if (n_sel == 0) {
        fprintf(stderr, "pcsim-bench: no benchmark matches\n");
        return 2;
    }
    for (unsigned k = 0; k < c.n_ov; k++) {
        int used = 0;
        for (unsigned i = 0; i < n_sel; i++)
            for (unsigned j = 0; j < PCS_BENCH_MAX_PARAMS && sel[i]->params[j].name; j++)
                used |= strcmp(sel[i]->params[j].name, c.ov[k].name) == 0;
        if (!used)
            fprintf(stderr, "pcsim-bench: warning: no selected benchmark has param '%s'\n",
                    c.ov[k].name);
    }
    /* The machine's load is part of the result: on a shared machine it can
     * matter more than the code (recorded in the machine description). */
    if (getloadavg(c.o.load_start, 3) != 3)
        c.o.load_start[0] = c.o.load_start[1] = c.o.load_start[2] = -1.0;
    static run_result runs[MAX_RUNS];
    unsigned n_runs = 0;
    for (unsigned i = 0; i < n_sel; i++)
        n_runs += expand(&c, sel[i], runs + n_runs, MAX_RUNS - n_runs);
    int failed = 0;
    for (unsigned i = 0; i < n_runs; i++) {
        run_trials(&runs[i], &c.o, argv[0]);
        failed |= runs[i].failed;
    }
    bench_link_baselines(runs, n_runs);
    bench_report(runs, n_runs, &c.o);
    if (c.o.json && bench_json_write(c.o.json, runs, n_runs, &c.o, argv[0]) != 0)
        failed = 1;
    for (unsigned i = 0; i < n_runs; i++) {
        for (unsigned f = 0; f < runs[i].n_forks; f++)
            bench_fork_result_free(&runs[i].forks[f]);
        free(runs[i].forks);
    }
    return failed ? 1 : 0;
}
