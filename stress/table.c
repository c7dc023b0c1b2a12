/**
 * @file table.c
 * @brief Judging outcome counts against a test's table, and printing it as jcstress does.
 */
#include <inttypes.h>
#include <stdio.h>

#include "stress/stress.h"

static const pcs_stress_outcome *find(const pcs_stress_test *t, int id)
{
    for (unsigned i = 0; i < t->n_outcomes; i++)
        if (t->outcomes[i].id == id)
            return &t->outcomes[i];
    return NULL;
}

void pcs_stress_judge(const pcs_stress_test *t, pcs_stress_result *res)
{
    uint64_t total = res->unknown, forbidden = 0, unknown = res->unknown;
    for (unsigned id = 0; id < PCS_STRESS_MAX_OUTCOMES; id++) {
        uint64_t n = res->counts[id];
        if (n == 0)
            continue;
        total += n;
        const pcs_stress_outcome *o = find(t, (int)id);
        if (!o)
            unknown += n;
        else if (o->grade == PCS_STRESS_FORBIDDEN)
            forbidden += n;
    }
    res->total = total;
    res->forbidden = forbidden;
    res->unlisted = unknown;
    res->failed = res->setup_error || forbidden > 0 || unknown > 0;
    res->inconclusive = 0;
    if (t->expect_fail) {
        res->passed = res->failed && !res->setup_error;
        if (!res->failed && t->style == PCS_STRESS_ITERATION &&
            res->parallel_batches < PCS_STRESS_MIN_PARALLEL_BATCHES) {
            res->inconclusive = 1;
            res->passed = 1;
        }
    } else {
        res->passed = !res->failed;
    }
}

static const char *grade_name(pcs_stress_grade g)
{
    switch (g) {
    case PCS_STRESS_ACCEPTABLE:
        return "ACCEPTABLE";
    case PCS_STRESS_INTERESTING:
        return "ACCEPTABLE_INTERESTING";
    case PCS_STRESS_FORBIDDEN:
        return "FORBIDDEN";
    }
    return "?";
}

/* 1234567 -> "1,234,567" into buf (>= 32 bytes). */
static const char *grouped(uint64_t v, char *buf)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    int out = 0;
    for (int i = 0; i < n; i++) {
        buf[out++] = tmp[i];
        int left = n - 1 - i;
        if (left > 0 && left % 3 == 0)
            buf[out++] = ',';
    }
    buf[out] = '\0';
    return buf;
}

static void print_rows(const pcs_stress_test *t, const pcs_stress_result *res)
{
    char num[32];
    printf("      %-34s %15s  %-24s %s\n", "Outcome", "Occurrences", "Expectation",
           "Interpretation");
    for (unsigned i = 0; i < t->n_outcomes; i++) {
        const pcs_stress_outcome *o = &t->outcomes[i];
        uint64_t n = res->counts[o->id];
        const char *mark = (o->grade == PCS_STRESS_FORBIDDEN && n > 0) ? "!!" : "  ";
        printf("    %s%-34s %15s  %-24s %s\n", mark, o->label, grouped(n, num),
               grade_name(o->grade), o->desc);
    }
    for (unsigned id = 0; id < PCS_STRESS_MAX_OUTCOMES; id++) {
        if (res->counts[id] && !find(t, (int)id)) {
            char label[40];
            snprintf(label, sizeof label, "id %u", id);
            printf("    !!%-34s %15s  %-24s %s\n", label, grouped(res->counts[id], num), "UNKNOWN",
                   "outcome not in the table (counts as a failure)");
        }
    }
    if (res->unknown) {
        char label[40];
        snprintf(label, sizeof label, "id %d (out of range)", res->unknown_id);
        printf("    !!%-34s %15s  %-24s %s\n", label, grouped(res->unknown, num), "UNKNOWN",
               "outcome id outside the table's range (counts as a failure)");
    }
}

void pcs_stress_print(const pcs_stress_test *t, const pcs_stress_result *res)
{
    char num[32];
    if (res->skipped) {
        printf("[SKIPPED] %s  (native_only: the effect needs the bare memory model, which "
               "ThreadSanitizer's atomics hide)\n\n",
               t->name);
        return;
    }
    const char *verdict = res->inconclusive ? "INCONCLUSIVE" : res->passed ? "OK" : "FAILED";
    printf("[%s] %s  (%s, %u actors, %.2f s, %s outcomes", verdict, t->name,
           t->style == PCS_STRESS_ITERATION ? "iteration" : "soak", t->n_actors, res->seconds,
           grouped(res->total, num));
    if (t->style == PCS_STRESS_ITERATION && res->batches)
        printf(", %.1f %% of %s batches in parallel",
               100.0 * (double)res->parallel_batches / (double)res->batches,
               grouped(res->batches, num));
    printf(")\n");
    printf("    %s\n", t->description);
    print_rows(t, res);
    if (res->setup_error)
        printf("    => setup error: the test could not run\n");
    else if (res->inconclusive)
        printf("    => broken fixture not caught, but its actors ran in parallel in only %s "
               "batches (< %u): one CPU or a busy machine; not counted as a failure\n",
               grouped(res->parallel_batches, num), PCS_STRESS_MIN_PARALLEL_BATCHES);
    else if (t->expect_fail && res->passed)
        printf("    => broken fixture caught as expected (%s forbidden/unknown outcomes)\n",
               grouped(res->forbidden + res->unlisted, num));
    else if (t->expect_fail)
        printf("    => broken fixture NOT caught: the framework (or this machine's parallelism) "
               "failed to expose a known bug\n");
    else if (res->failed)
        printf("    => FORBIDDEN or unknown outcomes observed\n");
    printf("\n");
}
