/**
 * @file test_jobs_retry.c
 * @brief A tick that failed in the slow-job phase and is run again: every run
 *        is still merged exactly once, at exactly submit + period, and a slow
 *        step is never skipped (docs/ARCHITECTURE.md section 5).
 */
#include <criterion/criterion.h>

#include "pcsim/pcsim.h"

typedef struct jr_job {
    uint64_t merges[8];      /* ticks of the merges */
    uint64_t merged_from[8]; /* submit tick each merge carried */
    uint32_t n_merges;
    uint64_t fail_copy_at;  /* copy_inputs fails once at this tick (0: never) */
    uint64_t fail_chunk_at; /* run_chunk fails once for the run merged at this tick */
    int failed;
} jr_job;

static pcs_status jr_copy(pcs_world *w, void *ctx, void *input)
{
    jr_job *j = ctx;
    uint64_t t = pcs_world_clock(w)->tick;
    if (j->fail_copy_at && t == j->fail_copy_at && !j->failed) {
        j->failed = 1;
        return pcs_error_set(PCS_E_STATE, "copy_inputs fails once at tick %llu",
                             (unsigned long long)t);
    }
    *(uint64_t *)input = t;
    return PCS_OK;
}

static pcs_status jr_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    jr_job *j = ctx;
    (void)c;
    uint64_t from = *(const uint64_t *)input;
    if (j->fail_chunk_at && from + PCS_SLOW_PERIOD_TICKS == j->fail_chunk_at && !j->failed) {
        j->failed = 1;
        return PCS_E_STATE;
    }
    *(uint64_t *)output = from;
    return PCS_OK;
}

static pcs_status jr_merge(pcs_world *w, void *ctx, const void *input, void *const *out, uint32_t n)
{
    (void)input;
    (void)n;
    jr_job *j = ctx;
    if (j->n_merges < 8) {
        j->merges[j->n_merges] = pcs_world_clock(w)->tick;
        j->merged_from[j->n_merges] = *(const uint64_t *)out[0];
    }
    j->n_merges++;
    return PCS_OK;
}

static void jr_register(pcs_world *w, const char *name, jr_job *j)
{
    pcs_job_desc d = {.name = name,
                      .domain = PCS_DOMAIN_SLOW,
                      .phase = 0,
                      .n_chunks = 1,
                      .input_bytes = 8,
                      .output_bytes = 8,
                      .copy_inputs = jr_copy,
                      .run_chunk = jr_chunk,
                      .merge = jr_merge,
                      .ctx = j};
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
}

static pcs_world *jr_world(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    return w;
}

/* Run to tick @p end, retrying a failed tick once; returns the failures seen. */
static int jr_run(pcs_world *w, uint64_t end)
{
    int failures = 0;
    while (pcs_world_clock(w)->tick < end) {
        uint64_t t = pcs_world_clock(w)->tick;
        pcs_status st = pcs_world_tick(w);
        if (st != PCS_OK) {
            failures++;
            cr_assert_eq(pcs_world_clock(w)->tick, t, "a failed tick does not advance");
            cr_assert_leq(failures, 1, "the retry of tick %llu failed too (%s): %s",
                          (unsigned long long)t, pcs_status_str(st), pcs_last_error());
        }
    }
    return failures;
}

/* Job A (registered first) merges and resubmits at tick 20, then job B's
 * copy_inputs fails and the tick is retried: A's run submitted at 20 must
 * wait for tick 40, not be merged again at 20. */
Test(jobs_retry, retry_does_not_merge_a_run_submitted_by_the_failed_attempt)
{
    static jr_job a, b = {.fail_copy_at = 20};
    pcs_world *w = jr_world();
    jr_register(w, "a", &a);
    jr_register(w, "b", &b);
    cr_assert_eq(jr_run(w, 41), 1);
    cr_assert_eq(a.n_merges, 2, "A merged %u times, want 2 (ticks 20 and 40)", a.n_merges);
    cr_assert_eq(a.merges[0], 20);
    cr_assert_eq(a.merged_from[0], 0);
    cr_assert_eq(a.merges[1], 40);
    cr_assert_eq(a.merged_from[1], 20);
    cr_assert_eq(b.n_merges, 2);
    cr_assert_eq(b.merges[0], 20);
    cr_assert_eq(b.merges[1], 40);
    cr_assert_eq(b.merged_from[1], 20);
    pcs_world_destroy(w);
}

/* A chunk of the run submitted at 0 fails once at its merge tick 20: the
 * retry must merge that run, not drop it and move on. */
Test(jobs_retry, retry_after_a_failed_merge_does_not_skip_the_slow_step)
{
    static jr_job a = {.fail_chunk_at = 20};
    pcs_world *w = jr_world();
    jr_register(w, "a", &a);
    cr_assert_eq(jr_run(w, 41), 1);
    cr_assert_eq(a.n_merges, 2, "merged %u times, want 2 (ticks 20 and 40)", a.n_merges);
    cr_assert_eq(a.merges[0], 20);
    cr_assert_eq(a.merged_from[0], 0, "the run from tick 0 is merged, not skipped");
    cr_assert_eq(a.merges[1], 40);
    cr_assert_eq(a.merged_from[1], 20);
    pcs_world_destroy(w);
}
