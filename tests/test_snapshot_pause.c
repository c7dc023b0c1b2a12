/**
 * @file test_snapshot_pause.c
 * @brief The paused flag of the snapshot header (snapshot.h, pcs_reader_paused):
 *        readers see paused = 1 after pcs_world_pause and 0 after resume, on
 *        the last publication's tick and values, through copy-out reads,
 *        views and a woken pcs_reader_wait.
 *
 * The fixture publishes one channel whose value is 10 * tick + 0.5 (written
 * at stage SENSORS), so a republication is recognisable: same tick, same
 * value, next publication number.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"

typedef struct pausefix {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    pcs_reader *r;
    uint32_t store;
} pausefix;

static pcs_status write_value(pcs_world *w, void *ctx)
{
    const pausefix *fx = ctx;
    double *v = pcs_store_data(w, fx->store);
    v[0] = 10.0 * (double)pcs_world_clock(w)->tick + 0.5;
    return PCS_OK;
}

static void pausefix_make(pausefix *fx)
{
    memset(fx, 0, sizeof *fx);
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_create(&cfg, &fx->w), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "t.v", 8, 1, PCS_STORE_STATE, &fx->store), PCS_OK);
    uint32_t id;
    cr_assert_eq(pcs_channel_register(fx->w, "t.v", "W", PCS_CHANNEL_F64, fx->store, 0, &id),
                 PCS_OK);
    pcs_system_desc d = {.name = "t.write",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = write_value,
                         .ctx = fx,
                         .writes = &fx->store,
                         .n_writes = 1};
    cr_assert_eq(pcs_system_register(fx->w, &d, NULL), PCS_OK);
    cr_assert_eq(pcs_snapshot_attach(fx->w, NULL, &fx->pool), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_reader_open(fx->pool, &fx->r), PCS_OK);
}

static void pausefix_free(pausefix *fx)
{
    pcs_reader_close(fx->r);
    pcs_world_destroy(fx->w);
}

/* Copy-out read of channel 0: asserts its tick and value, returns the flag. */
static int read_paused(pausefix *fx, uint64_t want_tick)
{
    double v = 0.0;
    uint64_t tick = 0;
    cr_assert_eq(pcs_snapshot_read(fx->r, NULL, 1, &v, &tick), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(tick, want_tick);
    cr_assert_float_eq(v, 10.0 * (double)want_tick + 0.5, 0.0, "tick %llu's value",
                       (unsigned long long)want_tick);
    return pcs_reader_paused(fx->r);
}

/* A validated view: asserts its tick and value, returns its flag. */
static int view_paused(pausefix *fx, uint64_t want_tick)
{
    pcs_view v;
    cr_assert_eq(pcs_view_begin(fx->r, &v), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(v.tick, want_tick);
    cr_assert_float_eq(pcs_view_f64(&v, 0), 10.0 * (double)want_tick + 0.5, 0.0);
    cr_assert_eq(pcs_view_validate(&v), PCS_OK);
    cr_assert_eq(pcs_reader_paused(fx->r), v.paused, "the reader keeps the view's flag");
    return v.paused;
}

static void readers_see_paused_after_pause_and_running_after_resume(void)
{
    pausefix fx;
    pausefix_make(&fx);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(pcs_world_tick(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 5);
    cr_assert_eq(read_paused(&fx, 4), 0, "a running world publishes paused = 0");
    cr_assert_eq(view_paused(&fx, 4), 0);

    cr_assert_eq(pcs_world_pause(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 6, "pausing republishes the newest buffer");
    cr_assert_eq(read_paused(&fx, 4), 1, "same tick and value, now flagged paused");
    cr_assert_eq(view_paused(&fx, 4), 1);
    cr_assert_eq(pcs_world_pause(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 6, "a second pause changes nothing");

    /* Time passing while paused runs nothing and publishes nothing. */
    pcs_world_advance_result ar;
    cr_assert_eq(pcs_world_advance(fx.w, 10.0, 1000, &ar), PCS_OK);
    cr_assert_eq(ar.ticks_run, 0);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 6);
    cr_assert_eq(read_paused(&fx, 4), 1);

    /* A step while paused publishes its tick, still flagged paused. */
    cr_assert_eq(pcs_world_step_once(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 7);
    cr_assert_eq(read_paused(&fx, 5), 1);

    cr_assert_eq(pcs_world_resume(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 8, "resuming republishes too");
    cr_assert_eq(read_paused(&fx, 5), 0, "resumed before the next tick: already 0");
    cr_assert_eq(view_paused(&fx, 5), 0);
    cr_assert_eq(pcs_world_advance(fx.w, 0.05, 10, &ar), PCS_OK);
    cr_assert_eq(ar.ticks_run, 1);
    cr_assert_eq(read_paused(&fx, 6), 0);
    pcs_reader_stats st;
    cr_assert_eq(pcs_reader_stats_get(fx.r, &st), PCS_OK);
    cr_assert_eq(st.last_tick, 6);
    pausefix_free(&fx);
}

static void a_waiting_reader_is_woken_by_the_pause(void)
{
    pausefix fx;
    pausefix_make(&fx);
    cr_assert_eq(pcs_world_tick(fx.w), PCS_OK);
    uint64_t pub = 0;
    cr_assert_eq(pcs_reader_wait(fx.r, 0, 0, &pub), PCS_OK);
    cr_assert_eq(pub, 1);
    cr_assert_eq(pcs_reader_wait(fx.r, pub, 0, &pub), PCS_E_TIMEOUT, "nothing new yet");
    cr_assert_eq(pcs_world_pause(fx.w), PCS_OK);
    cr_assert_eq(pcs_reader_wait(fx.r, 1, 0, &pub), PCS_OK, "the pause is a new publication");
    cr_assert_eq(pub, 2);
    cr_assert_eq(read_paused(&fx, 0), 1);
    pausefix_free(&fx);
}

static void a_pause_before_the_first_tick_shows_on_the_first_publication(void)
{
    pausefix fx;
    pausefix_make(&fx);
    cr_assert_eq(pcs_world_pause(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 0, "nothing to republish yet");
    double v;
    cr_assert_eq(pcs_snapshot_read(fx.r, NULL, 1, &v, NULL), PCS_E_STATE);
    cr_assert_eq(pcs_reader_paused(fx.r), 0, "no read yet");
    cr_assert_eq(pcs_world_step_once(fx.w), PCS_OK);
    cr_assert_eq(pcs_snapshot_published(fx.pool), 1);
    cr_assert_eq(read_paused(&fx, 0), 1);
    cr_assert_eq(pcs_reader_paused(NULL), 0);
    pausefix_free(&fx);
}

/* The full cycle over more publications than buffers, so every buffer has
 * held both flags: a stale flag word in a reused buffer would show here. */
static void the_flag_is_rewritten_in_every_reused_buffer(void)
{
    pausefix fx;
    pausefix_make(&fx);
    uint64_t tick = 0;
    for (int round = 0; round < 9; round++) {
        cr_assert_eq(pcs_world_tick(fx.w), PCS_OK);
        cr_assert_eq(read_paused(&fx, tick), 0, "round %d", round);
        cr_assert_eq(pcs_world_pause(fx.w), PCS_OK);
        cr_assert_eq(read_paused(&fx, tick), 1, "round %d", round);
        cr_assert_eq(pcs_world_step_once(fx.w), PCS_OK);
        tick++;
        cr_assert_eq(view_paused(&fx, tick), 1, "round %d", round);
        cr_assert_eq(pcs_world_resume(fx.w), PCS_OK);
        cr_assert_eq(view_paused(&fx, tick), 0, "round %d", round);
        tick++;
    }
    pausefix_free(&fx);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* The paused flag reaches readers after pause and resume, wakes a waiting reader, shows before the
 * first tick and in every reused buffer. */
Test(snapshot_pause, readers_see_the_paused_flag)
{
    readers_see_paused_after_pause_and_running_after_resume();
    a_waiting_reader_is_woken_by_the_pause();
    a_pause_before_the_first_tick_shows_on_the_first_publication();
    the_flag_is_rewritten_in_every_reused_buffer();
}
