/**
 * @file runner.c
 * @brief pcsim-stress: the registry of stress tests, the command line and the summary.
 *
 * Usage: pcsim-stress [--list] [--filter REGEX] [--seconds TOTAL] [--test-seconds S]
 *
 * The total budget (default: $STRESS_SECONDS, else 60 s) is shared between the
 * selected tests in proportion to their weights; --test-seconds gives every
 * test the same fixed budget instead. Exit status 0 when every test passed
 * (expect_fail fixtures pass when caught), 1 otherwise, 2 on a usage error.
 */
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress/stress.h"

#define MAX_TESTS 256u

static const pcs_stress_test *registry[MAX_TESTS];
static unsigned n_registered;

void pcs_stress_register(const pcs_stress_test *t)
{
    if (n_registered < MAX_TESTS)
        registry[n_registered++] = t;
    else
        fprintf(stderr, "stress: registry full, %s ignored\n", t->name);
}

static int by_name(const void *a, const void *b)
{
    const pcs_stress_test *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

typedef struct options {
    int list;
    const char *filter;
    double total_s;
    double per_test_s; /* 0 = share total_s by weight */
} options;

static void usage(FILE *f)
{
    fprintf(f, "usage: pcsim-stress [--list] [--filter REGEX] [--seconds TOTAL] "
               "[--test-seconds S]\n"
               "  --list            list tests and exit\n"
               "  --filter REGEX    run tests whose name matches (POSIX extended regex)\n"
               "  --seconds TOTAL   total budget shared by weight (default $STRESS_SECONDS "
               "or 60)\n"
               "  --test-seconds S  fixed budget per test instead\n");
}

static int parse_seconds(const char *s, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || !(v > 0.0) || v > 1e6)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
    const char *env = getenv("STRESS_SECONDS");
    o->total_s = 60.0;
    if (env && *env && parse_seconds(env, &o->total_s) != 0) {
        fprintf(stderr, "pcsim-stress: STRESS_SECONDS='%s' is not a number in (0, 1e6]\n", env);
        return -1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            o->list = 1;
        } else if (strcmp(a, "--filter") == 0 && v) {
            o->filter = v;
            i++;
        } else if (strcmp(a, "--seconds") == 0 && v && parse_seconds(v, &o->total_s) == 0) {
            i++;
        } else if (strcmp(a, "--test-seconds") == 0 && v && parse_seconds(v, &o->per_test_s) == 0) {
            i++;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "pcsim-stress: bad argument '%s'%s\n", a, v ? "" : " (missing value?)");
            return -1;
        }
    }
    return 0;
}

/* Select tests by filter into sel; returns the count or -1 on a bad regex. */
static int select_tests(const options *o, const pcs_stress_test **sel)
{
    regex_t re;
    if (o->filter) {
        int rc = regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof msg);
            fprintf(stderr, "pcsim-stress: bad --filter '%s': %s\n", o->filter, msg);
            return -1;
        }
    }
    int n = 0;
    for (unsigned i = 0; i < n_registered; i++)
        if (!o->filter || regexec(&re, registry[i]->name, 0, NULL, 0) == 0)
            sel[n++] = registry[i];
    if (o->filter)
        regfree(&re);
    return n;
}

/* Budget share; native_only tests are skipped under TSan and take none. */
static double weight_of(const pcs_stress_test *t)
{
    if (PCS_STRESS_TSAN && t->native_only)
        return 0.0;
    return t->weight > 0.0 ? t->weight : 1.0;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    if (parse_args(argc, argv, &o) != 0) {
        usage(stderr);
        return 2;
    }
    qsort(registry, n_registered, sizeof registry[0], by_name);
    const pcs_stress_test *sel[MAX_TESTS];
    int n = select_tests(&o, sel);
    if (n < 0)
        return 2;
    if (o.list) {
        for (int i = 0; i < n; i++)
            printf("%-36s %-9s %s%s\n", sel[i]->name,
                   sel[i]->style == PCS_STRESS_ITERATION ? "iteration" : "soak",
                   sel[i]->expect_fail ? "[expect_fail] " : "", sel[i]->description);
        return 0;
    }
    if (n == 0) {
        fprintf(stderr, "pcsim-stress: no test matches the filter\n");
        return 2;
    }
    double wsum = 0.0;
    for (int i = 0; i < n; i++)
        wsum += weight_of(sel[i]);
    if (wsum <= 0.0)
        wsum = 1.0;
    int failures = 0, skipped = 0, inconclusive = 0;
    cpu_set_t allowed;
    int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : -1;
    printf("pcsim-stress: %d tests, %.1f s budget, %d CPUs allowed%s\n\n", n,
           o.per_test_s > 0.0 ? o.per_test_s * n : o.total_s, cpus,
           PCS_STRESS_TSAN ? ", ThreadSanitizer build" : "");
    double t0 = pcs_stress_now();
    for (int i = 0; i < n; i++) {
        double budget = o.per_test_s > 0.0 ? o.per_test_s : o.total_s * weight_of(sel[i]) / wsum;
        pcs_stress_result res;
        pcs_stress_run(sel[i], budget, &res);
        pcs_stress_print(sel[i], &res);
        fflush(stdout);
        failures += !res.passed;
        skipped += res.skipped;
        inconclusive += res.inconclusive;
    }
    printf("pcsim-stress: %d tests, %d failed, %d skipped, %d inconclusive, %.1f s\n", n, failures,
           skipped, inconclusive, pcs_stress_now() - t0);
    return failures ? 1 : 0;
}
