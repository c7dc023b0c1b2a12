/**
 * @file test_exec_determinism.c
 * @brief Slow jobs give the same state for 0, 1, 2 and 4 workers, with and without steals.
 *
 * Specification (docs/ARCHITECTURE.md section 5, issue 5): a world with a slow job, run
 * 2400 ticks, has the same pcs_world_state_hash at every 100th tick whether
 * its chunks run inline (no executor) or on a pool of 0, 1, 2 or 4 workers,
 * and also when a chunk sleeps past the join timeout so the world thread
 * steals the rest. The reference is the inline run; the test also checks the
 * hash is not constant (the run does change state), that every merge came
 * exactly one SLOW period (20 ticks) after its submit, and that no merge saw
 * a torn chunk output.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tests/exec_fixture.h"

#define DET_TICKS 2400u
#define DET_SAMPLES (DET_TICKS / 100u)
#define DET_SEED 0x5eed0005u

typedef struct det_result {
    uint64_t hashes[DET_SAMPLES];
    fx_job job;
    pcs_exec_stats stats;
} det_result;

/* workers < 0: no executor (inline in the engine). */
static void det_run(int workers, double timeout_s, uint32_t sleep_us, det_result *r)
{
    memset(r, 0, sizeof *r);
    if (sleep_us) {
        r->job.sleep_chunk = 0;
        r->job.sleep_us = sleep_us;
        r->job.sleep_every = 200;
    }
    r->job.fail_tick = UINT64_MAX;
    pcs_world *w = NULL;
    cr_assert_eq(fx_world(DET_SEED, timeout_s, &r->job, &w), PCS_OK, "%s", pcs_last_error());
    pcs_exec *pool = NULL;
    if (workers >= 0) {
        pcs_exec_def cfg;
        pcs_exec_default(&cfg);
        cfg.workers = (uint32_t)workers;
        cfg.allow_oversubscribe = true; /* 4 workers even on a 2-core machine */
        cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_exec_worker_count(pool), (uint32_t)workers);
        cr_assert_eq(pcs_exec_attach(pool, w), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(fx_run(w, DET_TICKS, r->hashes), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(w); /* unbinds: the run submitted at 2383 is cancelled or finished */
    if (pool)
        pcs_exec_stats_get(pool, &r->stats);
    pcs_exec_destroy(pool);
}

static void det_expect_same(const det_result *ref, const det_result *got, const char *what)
{
    for (uint32_t i = 0; i < DET_SAMPLES; i++)
        cr_expect_eq(got->hashes[i], ref->hashes[i], "%s: hash at tick %u differs", what,
                     (i + 1) * 100);
    /* Merges at ticks 23, 43, ..., 2383: (2400 - 23) / 20 + 1 = 119. */
    cr_expect_eq(got->job.merges, 119, "%s: merges %llu", what,
                 (unsigned long long)got->job.merges);
    cr_expect_eq(got->job.bad_distance, 0, "%s: a merge was not 20 ticks after its submit", what);
    cr_expect_eq(got->job.torn_outputs, 0, "%s: a merge saw a torn chunk output", what);
}

/* 120 runs submitted (3, 23, ..., 2383), 119 joined; the last one was
 * unbound at world destroy, so each of its chunks either ran or was cancelled. */
static void det_expect_counts(const det_result *got, const char *what)
{
    const pcs_exec_stats *st = &got->stats;
    cr_expect_eq(st->runs_submitted, 120, "%s", what);
    cr_expect_eq(st->runs_joined, 119, "%s", what);
    cr_expect_eq(st->chunks_worker + st->chunks_stolen + st->chunks_cancelled, 120u * FX_CHUNKS,
                 "%s: every chunk runs exactly once per run (worker %llu, stolen %llu, "
                 "cancelled %llu)",
                 what, (unsigned long long)st->chunks_worker, (unsigned long long)st->chunks_stolen,
                 (unsigned long long)st->chunks_cancelled);
}

static det_result det_ref, det_got;

Test(exec_determinism, same_hash_for_0_1_2_4_workers)
{
    det_run(-1, 0.005, 0, &det_ref);
    cr_assert_neq(det_ref.hashes[0], det_ref.hashes[DET_SAMPLES - 1], "state never changed");
    cr_assert_eq(det_ref.job.merges, 119);
    const int counts[] = {0, 1, 2, 4};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "%d workers", counts[i]);
        det_run(counts[i], 0.005, 0, &det_got);
        det_expect_same(&det_ref, &det_got, what);
        det_expect_counts(&det_got, what);
        if (counts[i] == 0)
            cr_expect_eq(det_got.stats.chunks_worker, 0, "0 workers: everything runs inline");
    }
}

/* Chunk 0 sleeps 5 ms on submits 3, 203, ..., 2203 against a 1 ms join
 * timeout, so the world thread must stop waiting, steal chunks 1..7 and then
 * wait for chunk 0 still running on a worker. */
Test(exec_determinism, same_hash_on_the_steal_path)
{
    det_run(-1, 0.001, 5000, &det_ref);
    const int counts[] = {0, 1, 2, 4};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char what[40];
        snprintf(what, sizeof what, "%d workers, steal path", counts[i]);
        det_run(counts[i], 0.001, 5000, &det_got);
        det_expect_same(&det_ref, &det_got, what);
        det_expect_counts(&det_got, what);
        if (counts[i] > 0)
            cr_expect_gt(det_got.stats.waits_timed_out, 0, "%s: no join timed out", what);
        /* With one worker asleep in chunk 0 nobody else can take chunks 1..7. */
        if (counts[i] == 1)
            cr_expect_gt(det_got.stats.chunks_stolen, 0, "%s: nothing was stolen", what);
    }
}

/* The sleeping runs must also match the non-sleeping ones: sleeping changes
 * timing only, never data. */
Test(exec_determinism, sleeping_changes_nothing_but_timing)
{
    det_run(-1, 0.005, 0, &det_ref);
    det_run(1, 0.001, 5000, &det_got);
    det_expect_same(&det_ref, &det_got, "1 worker, sleeping chunk");
}

/* One pool shared by three worlds ticked on three host threads (one with a
 * sleeping chunk and a 1 ms join timeout): each world matches its own
 * inline reference. Worlds share nothing but the pool (docs/ARCHITECTURE.md section 2). */
#define DET_WORLDS 3

typedef struct det_world_arg {
    pcs_world *w;
    fx_job job;
    uint64_t hashes[DET_SAMPLES];
    pcs_status st;
} det_world_arg;

static void *det_world_thread(void *p)
{
    det_world_arg *a = p;
    a->st = fx_run(a->w, DET_TICKS, a->hashes);
    return NULL;
}

static det_world_arg det_args[DET_WORLDS];
static det_result det_refs[DET_WORLDS];

Test(exec_determinism, worlds_on_many_threads_share_one_pool)
{
    pcs_exec_def cfg;
    pcs_exec_default(&cfg);
    cfg.workers = 2;
    cfg.allow_oversubscribe = true;
    pcs_exec *pool = NULL;
    cr_assert_eq(pcs_exec_create(&cfg, &pool), PCS_OK, "%s", pcs_last_error());
    pthread_t th[DET_WORLDS];
    for (int i = 0; i < DET_WORLDS; i++) {
        det_world_arg *a = &det_args[i];
        memset(a, 0, sizeof *a);
        a->job.fail_tick = UINT64_MAX;
        if (i == 1) {
            a->job.sleep_us = 3000;
            a->job.sleep_every = 200;
        }
        cr_assert_eq(fx_world(DET_SEED + (uint64_t)i, i == 1 ? 0.001 : 0.005, &a->job, &a->w),
                     PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_exec_attach(pool, a->w), PCS_OK, "%s", pcs_last_error());
    }
    /* World creation above happened on this thread; each is then ticked only
     * by its own thread (a world belongs to the thread that ticks it). */
    for (int i = 0; i < DET_WORLDS; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, det_world_thread, &det_args[i]), 0);
    for (int i = 0; i < DET_WORLDS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < DET_WORLDS; i++) {
        cr_expect_eq(det_args[i].st, PCS_OK, "world %d failed", i);
        pcs_world_destroy(det_args[i].w);
    }
    pcs_exec_destroy(pool);
    for (int i = 0; i < DET_WORLDS; i++) {
        det_result *ref = &det_refs[i];
        memset(ref, 0, sizeof *ref);
        ref->job.fail_tick = UINT64_MAX;
        pcs_world *w = NULL;
        cr_assert_eq(fx_world(DET_SEED + (uint64_t)i, 0.005, &ref->job, &w), PCS_OK);
        cr_assert_eq(fx_run(w, DET_TICKS, ref->hashes), PCS_OK);
        pcs_world_destroy(w);
        for (uint32_t k = 0; k < DET_SAMPLES; k++)
            cr_expect_eq(det_args[i].hashes[k], ref->hashes[k], "world %d, tick %u", i,
                         (k + 1) * 100);
        cr_expect_eq(det_args[i].job.torn_outputs, 0);
        cr_expect_eq(det_args[i].job.bad_distance, 0);
    }
    cr_expect_neq(det_refs[0].hashes[DET_SAMPLES - 1], det_refs[1].hashes[DET_SAMPLES - 1],
                  "different seeds must give different worlds");
}
