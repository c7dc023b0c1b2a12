/**
 * @file test_exec_errors.c
 * @brief Bad use of the pool and failing jobs: clear statuses and messages, no hang, no leak.
 *
 * Specification (issue 5): submitting to a destroyed pool, a job with zero
 * chunks and a chunk that returns an error each give a clear status and
 * message; a chunk's error surfaces from pcs_world_tick at the merge tick.
 * Destroying a pool or a world while runs are in flight neither hangs nor
 * leaks (the ASan build's LeakSanitizer checks the leak half).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/exec_fixture.h"

#define ERR_SEED 77u

static pcs_exec *err_pool(uint32_t workers)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = workers;
    cfg.allow_oversubscribe = true;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
    return pool;
}

static pcs_world *err_world(fx_job *job)
{
    memset(job, 0, sizeof *job);
    job->fail_tick = UINT64_MAX;
    pcs_world *w = NULL;
    cr_assert_eq(fx_world(ERR_SEED, 0.005, job, &w), PCS_OK, "%s", pcs_last_error());
    return w;
}

/* Runs are submitted at 3, 23, 43, ...: a pool destroyed at tick 30 has the
 * run of tick 23 in flight. Tick 43 re-runs it inline and merges it, then
 * cannot submit: PCS_E_STATE, clock stays at 43. After binding no executor
 * the world carries on and matches a world that never had a pool. */
Test(exec_errors, submit_after_pool_destroyed_fails_clearly)
{
    fx_job job, ref_job;
    pcs_world *w = err_world(&job);
    pcs_world *ref = err_world(&ref_job);
    pcs_exec *pool = err_pool(1);
    cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(w, 30, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_exec_destroy(pool);
    cr_assert_eq(fx_run(w, 43, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_tick(w), PCS_E_STATE);
    cr_expect(strstr(pcs_last_error(), "fx.diffusion") != NULL, "%s", pcs_last_error());
    cr_expect(strstr(pcs_last_error(), "was destroyed") != NULL, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_clock(w)->tick, 43);
    cr_expect_eq(pcs_world_tick(w), PCS_E_STATE, "still refused until rebound");
    cr_assert_eq(pcs_world_set_executor(w, NULL), PCS_OK);
    cr_assert_eq(fx_run(w, 400, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(ref, 400, NULL), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_state_hash(w), pcs_world_state_hash(ref));
    cr_expect_eq(job.merges, ref_job.merges);
    cr_expect_eq(job.torn_outputs, 0);
    pcs_world_destroy(w);
    pcs_world_destroy(ref);
}

/* Moving a world from one pool to another between ticks loses nothing: the
 * run in flight is resubmitted to the new pool from its saved input. */
Test(exec_errors, switching_pools_mid_run_keeps_the_result)
{
    fx_job job, ref_job;
    pcs_world *w = err_world(&job);
    pcs_world *ref = err_world(&ref_job);
    pcs_exec *a = err_pool(1), *b = err_pool(2);
    cr_assert_eq(pcs_exec_attach(a, w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(w, 30, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_exec_attach(b, w), PCS_OK, "%s", pcs_last_error());
    pcs_exec_destroy(a); /* the world is no longer bound to it: no revoke */
    cr_assert_eq(fx_run(w, 400, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(ref, 400, NULL), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_state_hash(w), pcs_world_state_hash(ref));
    pcs_world_destroy(w);
    pcs_exec_destroy(b);
    pcs_world_destroy(ref);
}

static pcs_status err_noop_chunk(void *ctx, const void *input, uint32_t chunk, void *output)
{
    (void)ctx;
    (void)input;
    (void)chunk;
    (void)output;
    return PCS_OK;
}

static pcs_status err_noop_copy(pcs_world *w, void *ctx, void *input)
{
    (void)w;
    (void)ctx;
    (void)input;
    return PCS_OK;
}

static pcs_status err_noop_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                                 uint32_t n_chunks)
{
    (void)w;
    (void)ctx;
    (void)input;
    (void)outputs;
    (void)n_chunks;
    return PCS_OK;
}

Test(exec_errors, zero_chunks_is_refused_at_registration)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    fx_job job = {0};
    cr_assert_eq(fx_build(w, &job), PCS_OK, "%s", pcs_last_error());
    pcs_job_desc d = {0};
    d.name = "empty";
    d.domain = PCS_DOMAIN_SLOW;
    d.n_chunks = 0;
    d.input_bytes = d.output_bytes = 8;
    d.copy_inputs = err_noop_copy;
    d.run_chunk = err_noop_chunk;
    d.merge = err_noop_merge;
    cr_expect_eq(pcs_job_register(w, &d, NULL), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "'empty' n_chunks 0 is outside [1, 1024]") != NULL, "%s",
              pcs_last_error());
    pcs_world_destroy(w);
}

/* The executor table is public (bench/ and hosts drive it directly), so it
 * checks its inputs too. */
Test(exec_errors, executor_table_refuses_bad_runs_and_order)
{
    pcs_exec *pool = err_pool(1);
    pcs_executor ex;
    cr_assert_eq(pcs_exec_executor(pool, &ex), PCS_OK);
    char in = 0, out = 0;
    void *outputs[] = {&out};
    pcs_job_run run = {"empty", err_noop_chunk, NULL, &in, outputs, 0};
    void *slot = NULL;
    cr_expect_eq(ex.bind(ex.ctx, NULL, &run, &slot), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "n_chunks 0 is outside [1, 1024]") != NULL, "%s",
              pcs_last_error());
    run.n_chunks = 1;
    run.run_chunk = NULL;
    cr_expect_eq(ex.bind(ex.ctx, NULL, &run, &slot), PCS_E_INVAL);
    run.run_chunk = err_noop_chunk;
    cr_assert_eq(ex.bind(ex.ctx, NULL, &run, &slot), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(ex.join(ex.ctx, slot, 0.0), PCS_E_STATE);
    cr_expect(strstr(pcs_last_error(), "no run in flight") != NULL, "%s", pcs_last_error());
    cr_assert_eq(ex.submit(ex.ctx, slot), PCS_OK);
    cr_expect_eq(ex.submit(ex.ctx, slot), PCS_E_STATE);
    cr_expect(strstr(pcs_last_error(), "before its previous run was joined") != NULL, "%s",
              pcs_last_error());
    cr_expect_eq(ex.join(ex.ctx, slot, 0.0), PCS_OK);
    ex.unbind(ex.ctx, slot);
    pcs_exec_destroy(pool);
}

Test(exec_errors, bad_config_and_tables_are_named)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = PCS_EXEC_MAX_WORKERS + 1;
    pcs_exec *pool = NULL;
    cr_expect_eq(pcs_exec_create(&cfg, &pool), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "workers = 257 is outside [0, 256]") != NULL, "%s",
              pcs_last_error());
    cr_expect_null(pool);
    cr_expect_eq(pcs_exec_create(&cfg, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_exec_default(NULL), PCS_E_INVAL);
    pcs_world_def wc;
    pcs_world_default(&wc);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_executor half = {0};
    cr_expect_eq(pcs_world_set_executor(w, &half), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "bind, submit, join and unbind") != NULL, "%s",
              pcs_last_error());
    cr_expect_eq(pcs_world_set_executor(NULL, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_exec_attach(NULL, w), PCS_E_INVAL);
    pcs_exec_stats st;
    cr_expect_eq(pcs_exec_stats_get(NULL, &st), PCS_E_INVAL);
    pcs_world_destroy(w);
}

/* Chunks 2 and 5 of the run submitted at tick 43 fail. Whatever runs them,
 * pcs_world_tick at the merge tick 63 returns the chunk's status with the
 * lowest failing chunk's own message, and the clock does not advance. */
static void err_expect_chunk_failure(int workers)
{
    fx_job job;
    pcs_world *w = err_world(&job);
    job.fail_tick = 43;
    job.fail_mask = (1u << 2) | (1u << 5);
    pcs_exec *pool = workers >= 0 ? err_pool((uint32_t)workers) : NULL;
    if (pool)
        cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(w, 63, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_tick(w), PCS_E_CORRUPT, "workers %d", workers);
    cr_expect_str_eq(pcs_last_error(),
                     "job 'fx.diffusion' chunk 2 failed (PCS_E_CORRUPT): injected failure in "
                     "chunk 2 [submitted at tick 43, failed at tick 63]",
                     "workers %d", workers);
    cr_expect_eq(pcs_world_clock(w)->tick, 63);
    cr_expect_eq(job.merges, 2, "the failed run is not merged");
    /* A slow step is never skipped: retrying the tick recomputes the run from
     * its saved input (chunks are pure), which fails the same way. */
    cr_expect_eq(pcs_world_tick(w), PCS_E_CORRUPT, "workers %d: retry", workers);
    cr_expect_eq(pcs_world_clock(w)->tick, 63);
    cr_expect_eq(job.merges, 2);
    pcs_world_destroy(w);
    pcs_exec_destroy(pool);
}

Test(exec_errors, chunk_error_surfaces_at_the_merge_tick)
{
    err_expect_chunk_failure(-1);
    err_expect_chunk_failure(0);
    err_expect_chunk_failure(1);
    err_expect_chunk_failure(4);
}

/* A world destroyed while its chunk sleeps on a worker: unbind cancels the
 * chunks not started and waits for the sleeping one; nothing hangs and the
 * pool stays usable for another world. */
Test(exec_errors, world_destroyed_with_run_in_flight)
{
    pcs_exec *pool = err_pool(2);
    fx_job job;
    pcs_world *w = err_world(&job);
    job.sleep_chunk = 0;
    job.sleep_us = 20000;
    job.sleep_every = 20;
    cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(w, 4, NULL), PCS_OK, "%s", pcs_last_error());
    fx_sleep_us(2000); /* let a worker start the sleeping chunk */
    pcs_world_destroy(w);
    pcs_exec_stats st;
    pcs_exec_stats_get(pool, &st);
    cr_expect_eq(st.chunks_worker + st.chunks_cancelled, FX_CHUNKS);
    fx_job job2;
    pcs_world *w2 = err_world(&job2);
    cr_assert_eq(pcs_exec_attach(pool, w2), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(fx_run(w2, 100, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(w2);
    pcs_exec_destroy(pool);
}

/* A pool destroyed while a worker sleeps in a chunk: the worker finishes
 * that chunk and exits; the world is revoked and still destroys cleanly. */
Test(exec_errors, pool_destroyed_with_run_in_flight)
{
    pcs_exec *pool = err_pool(1);
    fx_job job;
    pcs_world *w = err_world(&job);
    job.sleep_chunk = 0;
    job.sleep_us = 20000;
    job.sleep_every = 20;
    cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(w, 4, NULL), PCS_OK, "%s", pcs_last_error());
    fx_sleep_us(2000);
    pcs_exec_destroy(pool);
    cr_expect_eq(fx_run(w, 20, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(w);
}
