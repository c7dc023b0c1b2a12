/**
 * @file test_jobs_inline.c
 * @brief Slow jobs without workers: submitted at t, merged at exactly t + period,
 *        outputs merged in chunk order, errors surface from the merge tick.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"

typedef struct job_ctx {
    uint32_t store;
    uint64_t merges[16];
    uint32_t n_merges;
    int fail_chunk;
} job_ctx;

static pcs_status copy_in(pcs_world *w, void *ctx, void *input)
{
    job_ctx *c = ctx;
    double *in = input;
    in[0] = ((double *)pcs_store_data(w, c->store))[0];
    in[1] = (double)pcs_world_clock(w)->tick;
    return PCS_OK;
}

static pcs_status chunk(void *ctx, const void *input, uint32_t i, void *output)
{
    job_ctx *c = ctx;
    if ((int)i == c->fail_chunk)
        return PCS_E_STATE;
    const double *in = input;
    *(double *)output = in[0] * 10.0 + (double)(i + 1);
    return PCS_OK;
}

static pcs_status merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                        uint32_t n)
{
    job_ctx *c = ctx;
    (void)input;
    double *x = pcs_store_data(w, c->store);
    /* Positional digits prove chunk order: value = sum out[i] * 1000^i. */
    double v = 0.0, scale = 1.0;
    for (uint32_t i = 0; i < n; i++, scale *= 1000.0)
        v += *(const double *)outputs[i] * scale;
    x[1] = v;
    if (c->n_merges < 16)
        c->merges[c->n_merges++] = pcs_world_clock(w)->tick;
    return PCS_OK;
}

static pcs_world *job_world(job_ctx *c, uint32_t phase)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "x", 8, 2, PCS_STORE_STATE, &c->store), PCS_OK);
    ((double *)pcs_store_data(w, c->store))[0] = 2.0;
    pcs_job_desc d = {.name = "test", .domain = PCS_DOMAIN_SLOW, .phase = phase,
                      .n_chunks = 3, .input_bytes = 16, .output_bytes = 8,
                      .copy_inputs = copy_in, .run_chunk = chunk, .merge = merge, .ctx = c};
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
    return w;
}

Test(jobs_inline, merged_at_exactly_submit_plus_period_in_chunk_order)
{
    static job_ctx c = {.fail_chunk = -1};
    pcs_world *w = job_world(&c, 5);
    for (int i = 0; i < 70; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    /* Submitted at 5, 25, 45, 65; merged at 25, 45, 65. */
    cr_assert_eq(c.n_merges, 3);
    cr_assert_eq(c.merges[0], 25);
    cr_assert_eq(c.merges[1], 45);
    cr_assert_eq(c.merges[2], 65);
    /* Chunk outputs 21, 22, 23 -> 21 + 22e3 + 23e6. */
    cr_assert_float_eq(((double *)pcs_store_data(w, c.store))[1], 23022021.0, 0.0);
    pcs_world_destroy(w);
}

Test(jobs_inline, chunk_error_surfaces_at_the_merge_tick)
{
    static job_ctx c = {.fail_chunk = 1};
    pcs_world *w = job_world(&c, 0);
    for (int i = 0; i < 20; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "job 'test' chunk 1") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_clock(w)->tick, 20);
    pcs_world_destroy(w);
}

Test(jobs_inline, bad_descriptions_named)
{
    static job_ctx c = {.fail_chunk = -1};
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_job_desc d = {.name = "j", .domain = PCS_DOMAIN_SLOW, .phase = 0, .n_chunks = 0,
                      .input_bytes = 8, .output_bytes = 8, .copy_inputs = copy_in,
                      .run_chunk = chunk, .merge = merge, .ctx = &c};
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "n_chunks 0") != NULL);
    d.n_chunks = 1;
    d.phase = 20;
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "phase 20") != NULL);
    d.phase = 0;
    d.merge = NULL;
    cr_assert_eq(pcs_job_register(w, &d, NULL), PCS_E_INVAL);
    pcs_world_destroy(w);
}
