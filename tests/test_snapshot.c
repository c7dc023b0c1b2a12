/**
 * @file test_snapshot.c
 * @brief Snapshot pool and reader API on one thread: layout, values, views, errors.
 *
 * The fixture world publishes six channels whose values are known functions
 * of the tick (written by a SENSORS-stage system), so every expected value
 * below is computed by hand from the tick: f[i] = 10 * tick + i + 0.5,
 * u[0] = tick, u[1] = 3 * tick.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"

typedef struct snapfix {
    pcs_world *w;
    pcs_snapshot_pool *pool;
    uint32_t f_store, u_store;
} snapfix;

static pcs_status snapfix_sensors(pcs_world *w, void *ctx)
{
    snapfix *fx = ctx;
    double *f = pcs_store_data(w, fx->f_store);
    uint32_t *u = pcs_store_data(w, fx->u_store);
    uint64_t tick = pcs_world_clock(w)->tick;
    for (uint32_t i = 0; i < 4; i++)
        f[i] = 10.0 * (double)tick + i + 0.5;
    u[0] = (uint32_t)tick;
    u[1] = (uint32_t)(3 * tick);
    return PCS_OK;
}

/* Build the fixture without attaching; @p first_name lets a test vary the layout. */
static void snapfix_build(snapfix *fx, const char *first_name)
{
    pcs_world_def cfg;
    cr_assert_eq(pcs_world_default(&cfg), PCS_OK);
    cr_assert_eq(pcs_world_create(&cfg, &fx->w), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "t.f", 8, 4, PCS_STORE_STATE, &fx->f_store), PCS_OK);
    cr_assert_eq(pcs_store_register(fx->w, "t.u", 4, 2, PCS_STORE_STATE, &fx->u_store), PCS_OK);
    uint32_t id;
    cr_assert_eq(pcs_channel_register(fx->w, first_name, "W", PCS_CHANNEL_F64, fx->f_store, 0, &id),
                 PCS_OK);
    cr_assert_eq(pcs_channel_register(fx->w, "u1.b", "Pa", PCS_CHANNEL_F64, fx->f_store, 1, &id),
                 PCS_OK);
    cr_assert_eq(pcs_channel_register(fx->w, "u1.flag", "", PCS_CHANNEL_U32, fx->u_store, 0, &id),
                 PCS_OK);
    cr_assert_eq(pcs_channel_register(fx->w, "u1.c", "K", PCS_CHANNEL_F64, fx->f_store, 2, &id),
                 PCS_OK);
    cr_assert_eq(pcs_channel_register(fx->w, "u1.d", "K", PCS_CHANNEL_F64, fx->f_store, 3, &id),
                 PCS_OK);
    cr_assert_eq(pcs_channel_register(fx->w, "u1.count", "", PCS_CHANNEL_U32, fx->u_store, 1, &id),
                 PCS_OK);
    uint32_t writes[2] = {fx->f_store, fx->u_store};
    pcs_system_desc d = {.name = "t.sensors",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = snapfix_sensors,
                         .ctx = fx,
                         .writes = writes,
                         .n_writes = 2};
    cr_assert_eq(pcs_system_register(fx->w, &d, NULL), PCS_OK);
}

static void snapfix_attach(snapfix *fx, const pcs_snapshot_options *opt)
{
    snapfix_build(fx, "u1.a");
    cr_assert_eq(pcs_snapshot_attach(fx->w, opt, &fx->pool), PCS_OK, "%s", pcs_last_error());
}

static void snapfix_ticks(snapfix *fx, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(fx->w), PCS_OK, "%s", pcs_last_error());
}

Test(snapshot_attach, rejects_null_world_and_out)
{
    pcs_snapshot_pool *pool = NULL;
    cr_expect_eq(pcs_snapshot_attach(NULL, NULL, &pool), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "NULL") != NULL, "message: %s", pcs_last_error());
    snapfix fx;
    snapfix_build(&fx, "u1.a");
    cr_expect_eq(pcs_snapshot_attach(fx.w, NULL, NULL), PCS_E_INVAL);
    pcs_world_destroy(fx.w);
}

Test(snapshot_attach, rejects_fewer_than_three_buffers)
{
    snapfix fx;
    snapfix_build(&fx, "u1.a");
    pcs_snapshot_options opt = {.buffers = 2};
    pcs_snapshot_pool *pool = NULL;
    cr_expect_eq(pcs_snapshot_attach(fx.w, &opt, &pool), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "buffers = 2 is outside [3, 64]") != NULL, "message: %s",
              pcs_last_error());
    opt.buffers = 65;
    cr_expect_eq(pcs_snapshot_attach(fx.w, &opt, &pool), PCS_E_INVAL);
    cr_expect_null(pool);
    pcs_world_destroy(fx.w);
}

Test(snapshot_attach, rejects_event_capacity_not_power_of_two_or_out_of_range)
{
    snapfix fx;
    snapfix_build(&fx, "u1.a");
    pcs_snapshot_pool *pool = NULL;
    pcs_snapshot_options opt = {.event_log_capacity = 100};
    cr_expect_eq(pcs_snapshot_attach(fx.w, &opt, &pool), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "event_log_capacity = 100") != NULL, "message: %s",
              pcs_last_error());
    opt.event_log_capacity = 8; /* a power of two, below the minimum 16 */
    cr_expect_eq(pcs_snapshot_attach(fx.w, &opt, &pool), PCS_E_INVAL);
    pcs_world_destroy(fx.w);
}

Test(snapshot_attach, uses_world_config_buffer_count_by_default)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    cr_expect_eq(pcs_snapshot_buffers(fx.pool), 4u); /* pcs_world_def default */
    cr_expect_eq(pcs_snapshot_channel_count(fx.pool), 6u);
    pcs_world_destroy(fx.w);
}

Test(snapshot_attach, refused_after_seal_and_twice)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    pcs_snapshot_pool *again = NULL;
    cr_expect_eq(pcs_snapshot_attach(fx.w, NULL, &again), PCS_E_INVAL); /* duplicate system */
    cr_expect(strstr(pcs_last_error(), "pcs.snapshot.publish") != NULL, "message: %s",
              pcs_last_error());
    snapfix_ticks(&fx, 1);
    cr_expect_eq(pcs_snapshot_attach(fx.w, NULL, &again), PCS_E_STATE);
    cr_expect_null(again);
    pcs_world_destroy(fx.w);
}

Test(snapshot_attach, channel_registered_after_attach_fails_the_tick)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    uint32_t id;
    cr_assert_eq(pcs_channel_register(fx.w, "u1.late", "W", PCS_CHANNEL_F64, fx.f_store, 0, &id),
                 PCS_OK);
    cr_expect_eq(pcs_world_tick(fx.w), PCS_E_STATE);
    cr_expect(strstr(pcs_last_error(), "7 channels are registered but the pool was attached "
                                       "with 6") != NULL,
              "message: %s", pcs_last_error());
    cr_expect_eq(pcs_world_clock(fx.w)->tick, 0u);
    pcs_world_destroy(fx.w);
}

Test(snapshot_read, before_first_tick_is_a_state_error)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    double v[6];
    cr_expect_eq(pcs_snapshot_read(r, NULL, 6, v, NULL), PCS_E_STATE);
    cr_expect(strstr(pcs_last_error(), "nothing published yet") != NULL);
    pcs_view view;
    cr_expect_eq(pcs_view_begin(r, &view), PCS_E_STATE);
    cr_expect_eq(pcs_snapshot_published(fx.pool), 0u);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_read, returns_values_of_the_last_tick_by_resolved_ids)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 5); /* ticks 0..4; the last publication is tick 4 */
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    uint32_t ids[3];
    cr_assert_eq(pcs_snapshot_find(fx.pool, "u1.count", &ids[0]), PCS_OK);
    cr_assert_eq(pcs_snapshot_find(fx.pool, "u1.a", &ids[1]), PCS_OK);
    cr_assert_eq(pcs_snapshot_find(fx.pool, "u1.d", &ids[2]), PCS_OK);
    cr_expect_eq(ids[0], 5u);
    cr_expect_eq(ids[1], 0u);
    cr_expect_eq(ids[2], 4u);
    double v[3];
    uint64_t tick = 99;
    cr_assert_eq(pcs_snapshot_read(r, ids, 3, v, &tick), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(tick, 4u);
    cr_expect_eq(v[0], 12.0); /* u[1] = 3 * 4 */
    cr_expect_eq(v[1], 40.5); /* f[0] = 10 * 4 + 0 + 0.5 */
    cr_expect_eq(v[2], 43.5); /* f[3] = 10 * 4 + 3 + 0.5 */
    cr_expect_eq(pcs_snapshot_published(fx.pool), 5u);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_read, null_ids_reads_the_first_n_channels_in_order)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 3); /* last tick 2 */
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    double v[6];
    cr_assert_eq(pcs_snapshot_read(r, NULL, 6, v, NULL), PCS_OK);
    const double want[6] = {20.5, 21.5, 2.0, 22.5, 23.5, 6.0}; /* id order of snapfix_build */
    for (int i = 0; i < 6; i++)
        cr_expect_eq(v[i], want[i], "channel %d: %g != %g", i, v[i], want[i]);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_read, unknown_ids_and_null_arguments_are_errors)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 1);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    double v[7];
    uint32_t ids[2] = {1, 6};
    cr_expect_eq(pcs_snapshot_read(r, ids, 2, v, NULL), PCS_E_NOTFOUND);
    cr_expect(strstr(pcs_last_error(), "ids[1] = 6, but channel ids are [0, 6)") != NULL,
              "message: %s", pcs_last_error());
    cr_expect_eq(pcs_snapshot_read(r, NULL, 7, v, NULL), PCS_E_NOTFOUND);
    cr_expect_eq(pcs_snapshot_read(NULL, ids, 1, v, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_snapshot_read(r, ids, 1, NULL, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_snapshot_read(r, ids, 0, NULL, NULL), PCS_OK); /* nothing to copy */
    uint32_t id;
    cr_expect_eq(pcs_snapshot_find(fx.pool, "u1.nope", &id), PCS_E_NOTFOUND);
    cr_expect(strstr(pcs_last_error(), "'u1.nope'") != NULL);
    cr_expect_eq(pcs_snapshot_find(NULL, "u1.a", &id), PCS_E_INVAL);
    pcs_reader *r2;
    cr_expect_eq(pcs_reader_open(NULL, &r2), PCS_E_INVAL);
    cr_expect_eq(pcs_reader_open(fx.pool, NULL), PCS_E_INVAL);
    pcs_reader_stats st;
    cr_expect_eq(pcs_reader_stats_get(NULL, &st), PCS_E_INVAL);
    pcs_reader_close(r);
    pcs_reader_close(NULL);
    pcs_world_destroy(fx.w);
}

/* The range check runs four ids at a time, then one by one: a bad id in
 * either part must be found and named, and good ids of any count pass. */
Test(snapshot_read, bad_id_is_found_in_the_vector_part_and_the_tail)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 2); /* last tick 1 */
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    double v[9];
    uint32_t ids[9] = {0, 1, 2, 3, 4, 5, 0, 1, 2};
    cr_assert_eq(pcs_snapshot_read(r, ids, 9, v, NULL), PCS_OK);
    cr_expect_eq(v[7], 11.5); /* id 1 = f[1] = 10 * 1 + 1 + 0.5 */
    cr_expect_eq(v[8], 1.0);  /* id 2 = u[0] = tick */
    ids[2] = 100;
    cr_expect_eq(pcs_snapshot_read(r, ids, 9, v, NULL), PCS_E_NOTFOUND);
    cr_expect(strstr(pcs_last_error(), "ids[2] = 100") != NULL, "message: %s", pcs_last_error());
    ids[2] = 2;
    ids[8] = UINT32_MAX;
    cr_expect_eq(pcs_snapshot_read(r, ids, 9, v, NULL), PCS_E_NOTFOUND);
    cr_expect(strstr(pcs_last_error(), "ids[8] = 4294967295") != NULL, "message: %s",
              pcs_last_error());
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_read, reads_count_and_staleness_is_zero_on_the_newest)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    double v[6];
    for (int i = 0; i < 3; i++) {
        snapfix_ticks(&fx, 1);
        cr_assert_eq(pcs_snapshot_read(r, NULL, 6, v, NULL), PCS_OK);
    }
    pcs_reader_stats st;
    cr_assert_eq(pcs_reader_stats_get(r, &st), PCS_OK);
    cr_expect_eq(st.reads, 3u);
    cr_expect_eq(st.retries, 0u); /* nobody wrote during the reads */
    cr_expect_eq(st.last_tick, 2u);
    cr_expect_eq(st.staleness, 0u);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_layout, channel_list_reports_names_units_kinds)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    pcs_channel_info info[4];
    uint32_t n = 0;
    cr_assert_eq(pcs_channel_list(fx.pool, 1, info, 4, &n), PCS_OK);
    cr_expect_eq(n, 4u);
    cr_expect_str_eq(info[0].name, "u1.b");
    cr_expect_str_eq(info[0].unit, "Pa");
    cr_expect_eq(info[1].kind, PCS_CHANNEL_U32);
    cr_expect_str_eq(info[3].name, "u1.d");
    cr_assert_eq(pcs_channel_list(fx.pool, 4, info, 4, &n), PCS_OK);
    cr_expect_eq(n, 2u); /* ids 4 and 5 remain */
    cr_assert_eq(pcs_channel_list(fx.pool, 6, info, 4, &n), PCS_OK);
    cr_expect_eq(n, 0u);
    cr_expect_eq(pcs_channel_list(fx.pool, 0, NULL, 4, &n), PCS_E_INVAL);
    cr_expect_eq(pcs_channel_list(NULL, 0, info, 4, &n), PCS_E_INVAL);
    pcs_world_destroy(fx.w);
}

Test(snapshot_layout, version_depends_on_layout_only)
{
    snapfix a, b, c;
    snapfix_attach(&a, NULL);
    snapfix_attach(&b, NULL);
    snapfix_build(&c, "u1.a2");
    cr_assert_eq(pcs_snapshot_attach(c.w, NULL, &c.pool), PCS_OK);
    cr_expect_eq(pcs_snapshot_layout_version(a.pool), pcs_snapshot_layout_version(b.pool));
    cr_expect_neq(pcs_snapshot_layout_version(a.pool), pcs_snapshot_layout_version(c.pool));
    cr_expect_neq(pcs_snapshot_layout_version(a.pool), 0u);
    pcs_world_destroy(a.w);
    pcs_world_destroy(b.w);
    pcs_world_destroy(c.w);
}

Test(snapshot_view, reads_header_and_values_without_copy)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 5);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    pcs_view v;
    cr_assert_eq(pcs_view_begin(r, &v), PCS_OK);
    cr_expect_eq(v.tick, 4u);
    cr_expect_float_eq(v.time_s, 0.25, 1e-15); /* (4 + 1) * 0.05 s, the end of tick 4 */
    cr_expect_eq(v.n_channels, 6u);
    cr_expect_eq(pcs_view_f64(&v, 1), 41.5);
    cr_expect_eq(pcs_view_u32(&v, 2), 4u);
    cr_expect_eq(pcs_view_u32(&v, 5), 12u);
    cr_expect(isnan(pcs_view_f64(&v, 6)));
    cr_expect_eq(pcs_view_u32(&v, 6), 0u);
    cr_expect(isnan(pcs_view_f64(NULL, 0)));
    cr_expect_eq(pcs_view_validate(&v), PCS_OK);
    pcs_reader_stats st;
    cr_assert_eq(pcs_reader_stats_get(r, &st), PCS_OK);
    cr_expect_eq(st.reads, 1u);
    cr_expect_eq(st.last_tick, 4u);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

/* With N = 4 buffers the writer reuses a buffer 4 publications later: a view
 * stays valid for 3 more ticks (and is then 3 ticks stale) and the 4th tick
 * tears it. This is the seqlock's validation, exercised deterministically. */
Test(snapshot_view, validate_fails_once_the_writer_laps_the_buffer)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 1);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    pcs_view v;
    cr_assert_eq(pcs_view_begin(r, &v), PCS_OK);
    snapfix_ticks(&fx, 3);
    cr_expect_eq(pcs_view_f64(&v, 0), 0.5); /* still tick 0's value */
    cr_expect_eq(pcs_view_validate(&v), PCS_OK);
    pcs_reader_stats st;
    cr_assert_eq(pcs_reader_stats_get(r, &st), PCS_OK);
    cr_expect_eq(st.staleness, 3u);
    cr_expect_eq(st.max_staleness, 3u);

    cr_assert_eq(pcs_view_begin(r, &v), PCS_OK);
    cr_expect_eq(v.tick, 3u);
    snapfix_ticks(&fx, 4);
    cr_expect_eq(pcs_view_f64(&v, 0), 70.5); /* tick 7 overwrote the buffer */
    cr_expect_eq(pcs_view_validate(&v), PCS_E_CORRUPT);
    cr_expect(strstr(pcs_last_error(), "tick 3") != NULL, "message: %s", pcs_last_error());
    cr_assert_eq(pcs_reader_stats_get(r, &st), PCS_OK);
    cr_expect_eq(st.retries, 1u);
    cr_expect_eq(st.reads, 1u);
    cr_expect_eq(pcs_view_validate(NULL), PCS_E_INVAL);
    pcs_view blank = {0};
    cr_expect_eq(pcs_view_validate(&blank), PCS_E_INVAL);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}

Test(snapshot_publish, allocates_nothing_per_tick)
{
    snapfix fx;
    snapfix_attach(&fx, NULL);
    snapfix_ticks(&fx, 1);
    uint64_t before = pcs_world_alloc_count(fx.w);
    snapfix_ticks(&fx, 200);
    cr_expect_eq(pcs_world_alloc_count(fx.w), before);
    pcs_world_destroy(fx.w);
}

Test(snapshot_publish, many_buffers_keep_a_view_valid_longer)
{
    snapfix fx;
    pcs_snapshot_options opt = {.buffers = 64};
    snapfix_attach(&fx, &opt);
    snapfix_ticks(&fx, 1);
    pcs_reader *r;
    cr_assert_eq(pcs_reader_open(fx.pool, &r), PCS_OK);
    pcs_view v;
    cr_assert_eq(pcs_view_begin(r, &v), PCS_OK);
    snapfix_ticks(&fx, 63);
    cr_expect_eq(pcs_view_validate(&v), PCS_OK);
    cr_assert_eq(pcs_view_begin(r, &v), PCS_OK);
    snapfix_ticks(&fx, 64);
    cr_expect_eq(pcs_view_validate(&v), PCS_E_CORRUPT);
    pcs_reader_close(r);
    pcs_world_destroy(fx.w);
}
