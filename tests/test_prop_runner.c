/**
 * @file test_prop_runner.c
 * @brief The property runner itself (tests/prop.h): a false property is found
 *        and shrinks to the one minimal case, a true one passes every case,
 *        a seed replays its case, and isolated runs turn crashes and hangs
 *        into failures that shrink.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/prop.h"

/* "Every list of at most 10 ints in [0, 2000] sums below 1000." False; its
 * smallest counterexample in shortlex order of the choices is one element,
 * 1000: choices [1 (length), 1000]. */
typedef struct sum_ctx {
    int64_t list[10];
    int64_t n;
    uint32_t calls;
} sum_ctx;

static int sum_below_1000(prop *p, void *ctx)
{
    sum_ctx *c = ctx;
    c->calls++;
    c->n = prop_int(p, 0, 10);
    int64_t sum = 0;
    for (int64_t i = 0; i < c->n; i++)
        sum += c->list[i] = prop_int(p, 0, 2000);
    prop_note(p, "list of %lld, first %lld", (long long)c->n, (long long)(c->n ? c->list[0] : -1));
    return sum < 1000 ? 0 : prop_fail(p, "sum %lld >= 1000", (long long)sum);
}

Test(prop_runner, false_sum_property_shrinks_to_a_single_1000)
{
    /* The shrink must not depend on which counterexample was found first:
     * twenty base seeds, twenty different first failures, one answer. */
    for (uint64_t b = 0; b < 20; b++) {
        prop_config cfg;
        prop_config_default(&cfg, "sum_below_1000");
        cfg.base_seed = 1000 + b;
        cfg.quiet = b != 0; /* show one report in the log */
        sum_ctx c = {0};
        prop_result res;
        cr_assert_eq(prop_check(&cfg, sum_below_1000, &c, &res), 1, "base seed %llu",
                     (unsigned long long)cfg.base_seed);
        cr_assert_eq(res.failed, 1);
        cr_assert_eq(res.n_choices, 2, "base seed %llu: %u choices", (unsigned long long)b,
                     res.n_choices);
        cr_assert_eq(res.choices[0], 1);
        cr_assert_eq(res.choices[1], 1000);
        /* The final replay left the shrunk case in the context. */
        cr_assert_eq(c.n, 1);
        cr_assert_eq(c.list[0], 1000);
        cr_assert_str_eq(res.message, "sum 1000 >= 1000");
        cr_assert_gt(res.shrinks, 0);
    }
}

/* "x in [0, 100] is below 37.5": the smallest failing double on the runner's
 * 2^-32 grid is 37.5 itself (0.375 * 2^32 is a whole number). */
static int double_below(prop *p, void *ctx)
{
    double *x = ctx;
    *x = prop_double(p, 0.0, 100.0);
    return *x < 37.5 ? 0 : prop_fail(p, "x = %.17g", *x);
}

Test(prop_runner, false_double_property_shrinks_to_the_boundary)
{
    prop_config cfg;
    prop_config_default(&cfg, "double_below");
    cfg.quiet = 1;
    double x = -1;
    prop_result res;
    cr_assert_eq(prop_check(&cfg, double_below, &x, &res), 1);
    cr_assert_eq(x, 37.5);
    cr_assert_eq(res.n_choices, 1);
    cr_assert_eq(res.choices[0], 1610612736u); /* 0.375 * 2^32 */
}

/* A true property: prop_int stays in its range and a drawn list sorts into a
 * non-decreasing permutation of itself. Runs exactly cfg.cases cases. */
static int ints_in_range_and_sort(prop *p, void *ctx)
{
    uint32_t *calls = ctx;
    (*calls)++;
    int64_t lo = prop_int(p, -1000000, 1000000);
    int64_t hi = lo + prop_int(p, 0, 5000);
    int64_t v[32];
    int64_t n = prop_int(p, 0, 32), sum = 0, sorted_sum = 0;
    for (int64_t i = 0; i < n; i++) {
        v[i] = prop_int(p, lo, hi);
        if (v[i] < lo || v[i] > hi)
            return prop_fail(p, "draw %lld outside [%lld, %lld]", (long long)v[i], (long long)lo,
                             (long long)hi);
        sum += v[i];
    }
    for (int64_t i = 1; i < n; i++) /* insertion sort */
        for (int64_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    for (int64_t i = 0; i < n; i++) {
        sorted_sum += v[i];
        if (i && v[i - 1] > v[i])
            return prop_fail(p, "not sorted at %lld", (long long)i);
    }
    return sorted_sum == sum ? 0 : prop_fail(p, "sum changed");
}

Test(prop_runner, true_property_passes_every_case)
{
    prop_config cfg;
    prop_config_default(&cfg, "ints_in_range_and_sort");
    cfg.cases = 300;
    uint32_t calls = 0;
    prop_result res;
    cr_assert_eq(prop_check(&cfg, ints_in_range_and_sort, &calls, &res), 0, "%s", res.message);
    cr_assert_eq(res.failed, 0);
    cr_assert_eq(res.cases_run, 300);
    cr_assert_eq(calls, 300);
}

Test(prop_runner, cases_come_from_the_environment)
{
    setenv("PCS_PROP_CASES", "37", 1); /* Criterion runs each test in its own process */
    prop_config cfg;
    prop_config_default(&cfg, "ints_in_range_and_sort");
    uint32_t calls = 0;
    cr_assert_eq(prop_check(&cfg, ints_in_range_and_sort, &calls, NULL), 0);
    cr_assert_eq(calls, 37);
}

/* The seed the report prints reruns exactly the failing case: same first
 * choices, same shrunk result, in one case. */
typedef struct first_ctx {
    uint64_t first_len, first_seen;
} first_ctx;

static int sum_record_first(prop *p, void *ctx)
{
    first_ctx *f = ctx;
    sum_ctx c = {0};
    int failed = sum_below_1000(p, &c);
    if (!f->first_seen && failed) {
        f->first_seen = 1;
        f->first_len = (uint64_t)c.n;
    }
    return failed;
}

Test(prop_runner, printed_seed_reruns_the_failing_case)
{
    prop_config cfg;
    prop_config_default(&cfg, "sum_below_1000");
    cfg.quiet = 1;
    first_ctx a = {0};
    prop_result ra = {0};
    /* A base seed whose first case passes, so the seed names a later case. */
    for (cfg.base_seed = 1; ra.cases_run < 2 && cfg.base_seed < 100; cfg.base_seed++) {
        a = (first_ctx){0};
        cr_assert_eq(prop_check(&cfg, sum_record_first, &a, &ra), 1);
    }
    cr_assert_gt(ra.cases_run, 1, "no base seed below 100 has a passing first case");

    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)ra.seed);
    setenv("PCS_PROP_SEED", seed, 1);
    first_ctx b = {0};
    prop_result rb;
    cr_assert_eq(prop_check(&cfg, sum_record_first, &b, &rb), 1);
    cr_assert_eq(rb.cases_run, 1);
    cr_assert_eq(rb.seed, ra.seed);
    cr_assert_eq(b.first_len, a.first_len, "same first failing list length");
    cr_assert_eq(rb.n_choices, 2);
    cr_assert_eq(rb.choices[1], 1000);
}

/* Isolated: a property that aborts for x >= 500 is a failure, not a dead test
 * process, and shrinks to 500 like any other. */
static int aborts_from_500(prop *p, void *ctx)
{
    (void)ctx;
    int64_t x = prop_int(p, 0, 100000);
    if (x >= 500)
        abort();
    return 0;
}

Test(prop_runner, isolated_crash_is_a_failure_that_shrinks)
{
    prop_config cfg;
    prop_config_default(&cfg, "aborts_from_500");
    cfg.isolate = 1;
    cfg.quiet = 1;
    prop_result res;
    cr_assert_eq(prop_check(&cfg, aborts_from_500, NULL, &res), 1);
    cr_assert_eq(res.n_choices, 1);
    cr_assert_eq(res.choices[0], 500);
    cr_assert(strstr(res.message, "signal 6"), "%s", res.message);
}

static int hangs_when_drawn(prop *p, void *ctx)
{
    (void)ctx;
    if (prop_bool(p) && prop_bool(p))
        for (;;)
            pause();
    return 0;
}

Test(prop_runner, isolated_hang_times_out_as_a_failure)
{
    prop_config cfg;
    prop_config_default(&cfg, "hangs_when_drawn");
    cfg.isolate = 1;
    cfg.timeout_s = 1;
    cfg.quiet = 1;
    prop_result res;
    cr_assert_eq(prop_check(&cfg, hangs_when_drawn, NULL, &res), 1);
    cr_assert_eq(res.n_choices, 2);
    cr_assert_eq(res.choices[0], 1);
    cr_assert_eq(res.choices[1], 1);
    cr_assert_str_eq(res.message, "timed out after 1 s");
}
