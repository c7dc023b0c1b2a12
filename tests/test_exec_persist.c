/**
 * @file test_exec_persist.c
 * @brief A pool across save/load (runs in flight neither race the load nor get lost); no allocation
 * per run.
 *
 * The fixture's job is submitted at 3, 23, 43, ...; at tick 30 the run of 23
 * is in flight on the workers. Saving there and loading into a world that is
 * attached to a pool (a fresh one, or the same world later on, with its own
 * run in flight whose input the load overwrites) must continue exactly like
 * the uninterrupted inline run: the load waits for chunks still reading the
 * old input and resubmits the loaded pending run from the loaded input.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/alloc_count.h"
#include "tests/exec_fixture.h"

#define XP_SEED 4242u

static pcs_world *xp_world(fx_job *job, pcs_exec *pool)
{
    memset(job, 0, sizeof *job);
    job->fail_tick = UINT64_MAX;
    pcs_world *w = NULL;
    cr_assert_eq(fx_world(XP_SEED, 0.005, job, &w), PCS_OK, "%s", pcs_last_error());
    if (pool)
        cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    return w;
}

Test(exec_persist, load_with_runs_in_flight_resumes_exactly)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pcsim-exec-%d.save", (int)getpid());
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 2;
    cfg.allow_oversubscribe = true;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());

    fx_job ref_job, a_job, b_job;
    pcs_world *ref = xp_world(&ref_job, NULL);
    cr_assert_eq(fx_run(ref, 400, NULL), PCS_OK, "%s", pcs_last_error());

    pcs_world *a = xp_world(&a_job, pool);
    cr_assert_eq(fx_run(a, 30, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_save(a, path), PCS_OK, "%s", pcs_last_error());

    /* A fresh attached world resumes from the file. */
    pcs_world *b = xp_world(&b_job, pool);
    cr_assert_eq(pcs_world_load(b, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(fx_run(b, 400, NULL), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_state_hash(b), pcs_world_state_hash(ref));

    /* The saving world runs on to 50 (a run of 43 in flight), then goes back. */
    cr_assert_eq(fx_run(a, 50, NULL), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(a, path), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_clock(a)->tick, 30);
    cr_assert_eq(fx_run(a, 400, NULL), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_state_hash(a), pcs_world_state_hash(ref));
    cr_expect_eq(a_job.torn_outputs + b_job.torn_outputs, 0);
    cr_expect_eq(a_job.bad_distance + b_job.bad_distance, 0);

    pcs_world_destroy(a);
    pcs_world_destroy(b);
    pcs_world_destroy(ref);
    pcs_exec_destroy(pool);
    unlink(path);
}

/* "The pool allocates nothing per job after the world is built": 400 ticks
 * (20 submits and joins, some with steals) on the ticking thread make no
 * heap allocation at all. Counted with the test allocator hook. */
Test(exec_persist, ticks_with_a_pool_allocate_nothing)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 1;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
    fx_job job;
    pcs_world *w = xp_world(&job, pool);
    job.sleep_us = 2000; /* a steal now and then: submits at 203 and 403 */
    job.sleep_every = 200;
    cr_assert_eq(fx_run(w, 100, NULL), PCS_OK, "%s", pcs_last_error());
    pcs_test_alloc_begin();
    pcs_status st = fx_run(w, 500, NULL);
    uint64_t allocs = pcs_test_alloc_end();
    cr_assert_eq(st, PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(allocs, 0, "%llu allocations in 400 ticks", (unsigned long long)allocs);
    cr_expect_eq(job.merges, 24); /* merges at 23, 43, ..., 483 */
    pcs_world_destroy(w);
    pcs_exec_destroy(pool);
}
