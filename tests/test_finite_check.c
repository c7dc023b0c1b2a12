/**
 * @file test_finite_check.c
 * @brief The finite check (issue 12): after each stage, the PCS_STORE_F64
 *        stores the stage's systems declare they write are scanned for NaN
 *        and infinities; the first one stops the tick with PCS_E_NUMERIC.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "pcsim/plant.h"
#include "tests/alloc_count.h"
#include "tests/control_fixture.h"

/* A system that writes `value` into out[index] on tick `at` and 1.0 elsewhere. */
typedef struct poke {
    double *out;
    size_t n;     /* doubles in out */
    size_t index; /* which double to poke */
    uint64_t at;  /* tick of the poke */
    double value; /* what to poke */
    const pcs_world *w;
    uint32_t runs; /* how often the body ran */
} poke;

static pcs_status poke_fn(pcs_world *w, void *ctx)
{
    poke *p = ctx;
    uint64_t t = pcs_world_clock(w)->tick;
    for (size_t i = 0; i < p->n; i++)
        p->out[i] = (double)t + (double)i;
    if (t == p->at)
        p->out[p->index] = p->value;
    p->runs++;
    return PCS_OK;
}

static pcs_world *new_world(uint32_t check)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cfg.check_finite = check;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    return w;
}

/* Register store `name` (count x elem_size bytes, kind) and a system `sys` at
 * `stage` that writes it through `p`. */
static void add_writer(pcs_world *w, const char *name, size_t elem_size, size_t count,
                       pcs_store_kind kind, const char *sys, pcs_stage stage, poke *p)
{
    uint32_t id;
    cr_assert_eq(pcs_store_register(w, name, elem_size, count, kind, &id), PCS_OK, "%s",
                 pcs_last_error());
    p->out = pcs_store_data(w, id);
    p->n = elem_size * count / sizeof(double);
    pcs_system_desc d = {
        .name = sys, .stage = stage, .fn = poke_fn, .ctx = p, .writes = &id, .n_writes = 1};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK, "%s", pcs_last_error());
}

static void tick_n(pcs_world *w, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "tick %d: %s", i, pcs_last_error());
}

static void expect_message(const char *want)
{
    cr_assert_str_eq(pcs_last_error(), want);
}

Test(finite_check, nan_written_at_tick_3_stops_the_tick_and_names_everything)
{
    pcs_world *w = new_world(1);
    poke p = {.index = 2, .at = 3, .value = NAN};
    add_writer(w, "t.x", sizeof(double), 4, PCS_STORE_STATE_F64, "writer", PCS_STAGE_HEAT, &p);
    tick_n(w, 3);
    cr_assert_eq(pcs_world_tick(w), PCS_E_NUMERIC);
    expect_message("tick 3 stage heat system 'writer' wrote store 't.x' element 2 = nan");
    cr_assert_eq(pcs_world_clock(w)->tick, 3, "a failed tick does not advance the clock");
    cr_assert_str_eq(pcs_status_str(PCS_E_NUMERIC), "PCS_E_NUMERIC");
    pcs_world_destroy(w);
}

Test(finite_check, infinities_are_named_with_their_sign)
{
    const double v[2] = {INFINITY, -INFINITY};
    const char *want[2] = {
        "tick 3 stage hydraulics system 'w' wrote store 't.y' element 0 = inf",
        "tick 3 stage hydraulics system 'w' wrote store 't.y' element 0 = -inf",
    };
    for (int k = 0; k < 2; k++) {
        pcs_world *w = new_world(1);
        poke p = {.index = 0, .at = 3, .value = v[k]};
        add_writer(w, "t.y", sizeof(double), 1, PCS_STORE_SCRATCH_F64, "w", PCS_STAGE_HYDRAULICS,
                   &p);
        tick_n(w, 3);
        cr_assert_eq(pcs_world_tick(w), PCS_E_NUMERIC);
        expect_message(want[k]);
        cr_assert_eq(pcs_world_clock(w)->tick, 3);
        pcs_world_destroy(w);
    }
}

Test(finite_check, a_struct_of_doubles_names_element_and_double)
{
    pcs_world *w = new_world(1);
    /* 5 elements of 3 doubles; double 7 is element 2, double 1. */
    poke p = {.index = 7, .at = 3, .value = NAN};
    add_writer(w, "t.xyz", 3 * sizeof(double), 5, PCS_STORE_STATE_F64, "w", PCS_STAGE_KINETICS, &p);
    tick_n(w, 3);
    cr_assert_eq(pcs_world_tick(w), PCS_E_NUMERIC);
    expect_message(
        "tick 3 stage kinetics system 'w' wrote store 't.xyz' element 2, double 1 = nan");
    pcs_world_destroy(w);
}

Test(finite_check, with_the_check_off_the_tick_passes)
{
    pcs_world *w = new_world(0);
    poke p = {.index = 2, .at = 3, .value = NAN};
    add_writer(w, "t.x", sizeof(double), 4, PCS_STORE_STATE_F64, "writer", PCS_STAGE_HEAT, &p);
    tick_n(w, 4);
    cr_assert(isnan(p.out[2]), "tick 3 wrote a NaN and the tick passed");
    cr_assert_eq(pcs_world_clock(w)->tick, 4);
    cr_assert_eq(p.runs, 4);
    pcs_world_destroy(w);
}

Test(finite_check, a_store_not_declared_f64_is_not_scanned)
{
    pcs_world *w = new_world(1);
    poke p = {.index = 1, .at = 3, .value = NAN};
    add_writer(w, "t.raw", sizeof(double), 4, PCS_STORE_STATE, "writer", PCS_STAGE_HEAT, &p);
    tick_n(w, 4);
    cr_assert(isnan(p.out[1]), "tick 3 wrote a NaN and the tick passed");
    cr_assert_eq(pcs_world_clock(w)->tick, 4);
    pcs_world_destroy(w);
}

/* Reads "t.in" and writes "t.out" = 1. */
static pcs_status reader_fn(pcs_world *w, void *ctx)
{
    (void)w;
    *(double *)ctx = 1.0;
    return PCS_OK;
}

Test(finite_check, a_store_a_system_only_reads_is_not_scanned)
{
    pcs_world *w = new_world(1);
    uint32_t in, out;
    cr_assert_eq(pcs_store_register(w, "t.in", sizeof(double), 2, PCS_STORE_STATE_F64, &in),
                 PCS_OK);
    cr_assert_eq(pcs_store_register(w, "t.out", sizeof(double), 1, PCS_STORE_STATE_F64, &out),
                 PCS_OK);
    pcs_system_desc d = {.name = "reader",
                         .stage = PCS_STAGE_SENSORS,
                         .fn = reader_fn,
                         .ctx = pcs_store_data(w, out),
                         .reads = &in,
                         .n_reads = 1,
                         .writes = &out,
                         .n_writes = 1};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    double *x = pcs_store_data(w, in);
    x[1] = NAN; /* written by the host, not by a system of any stage */
    tick_n(w, 3);
    cr_assert(isnan(x[1]));
    pcs_world_destroy(w);
}

Test(finite_check, the_first_writer_in_run_order_is_named_and_later_stages_do_not_run)
{
    pcs_world *w = new_world(1);
    poke a = {.index = 0, .at = 1, .value = NAN};
    poke b = {.index = 0, .at = 1, .value = INFINITY};
    poke later = {.at = UINT64_MAX};
    add_writer(w, "t.b", sizeof(double), 1, PCS_STORE_STATE_F64, "b", PCS_STAGE_HEAT, &b);
    add_writer(w, "t.a", sizeof(double), 1, PCS_STORE_STATE_F64, "a", PCS_STAGE_HEAT, &a);
    add_writer(w, "t.l", sizeof(double), 1, PCS_STORE_STATE_F64, "l", PCS_STAGE_ALARMS, &later);
    tick_n(w, 1);
    /* Same priority: registration order, so "b" runs (and is scanned) first. */
    cr_assert_eq(pcs_world_tick(w), PCS_E_NUMERIC);
    expect_message("tick 1 stage heat system 'b' wrote store 't.b' element 0 = inf");
    cr_assert_eq(a.runs, 2, "the whole stage ran");
    cr_assert_eq(later.runs, 1, "the alarms stage did not run on the failed tick");
    pcs_world_destroy(w);
}

Test(finite_check, registration_checks_the_layout)
{
    pcs_world *w = new_world(1);
    uint32_t id;
    cr_assert_eq(pcs_store_register(w, "t.bad", 12, 2, PCS_STORE_STATE_F64, &id), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_store_register: store 't.bad' is declared F64 but "
                                       "elem_size 12 is not a multiple of 8");
    cr_assert_eq(pcs_store_register(w, "t.k", 1, 1, (pcs_store_kind)0x102, &id), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "unknown kind 258") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_store_register(w, "t.s", 16, 2, PCS_STORE_SCRATCH_F64, &id), PCS_OK);
    cr_assert_eq(pcs_store_kind_of(w, id), PCS_STORE_SCRATCH, "the flag is not part of the kind");
    cr_assert_eq(pcs_store_is_f64(w, id), 1);
    cr_assert_eq(pcs_store_bytes(w, id), 32);
    cr_assert_eq(pcs_store_register(w, "t.p", 8, 2, PCS_STORE_STATE, &id), PCS_OK);
    cr_assert_eq(pcs_store_kind_of(w, id), PCS_STORE_STATE);
    cr_assert_eq(pcs_store_is_f64(w, id), 0);
    cr_assert_eq(pcs_store_is_f64(w, 99), 0);
    cr_assert_eq(pcs_store_is_f64(NULL, 0), 0);
    pcs_world_destroy(w);
}

Test(finite_check, config_field_is_validated_and_defaults_by_build)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
#ifdef PCS_DEBUG
    cr_assert_eq(cfg.check_finite, 1, "debug builds check by default");
#else
    cr_assert_eq(cfg.check_finite, 0, "release builds do not check by default");
#endif
    cfg.check_finite = 2;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "world config: check_finite = 2 is outside [0, 1]");
    cr_assert_null(w);
}

Test(finite_check, ticks_with_the_check_on_allocate_nothing)
{
    pcs_world *w = new_world(1);
    poke p = {.at = UINT64_MAX};
    add_writer(w, "t.x", sizeof(double), 1000, PCS_STORE_STATE_F64, "writer", PCS_STAGE_HEAT, &p);
    tick_n(w, 1);
    uint64_t heap = pcs_world_alloc_count(w);
    pcs_test_alloc_begin();
    for (int i = 0; i < 1000; i++)
        pcs_world_tick(w);
    cr_assert_eq(pcs_test_alloc_end(), 0);
    cr_assert_eq(pcs_world_alloc_count(w), heap);
    cr_assert_eq(pcs_world_clock(w)->tick, 1001);
    pcs_world_destroy(w);
}

/* ---- the station ------------------------------------------------------------------ */

static uint32_t count_f64(const pcs_world *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < pcs_store_count(w); i++)
        n += (uint32_t)pcs_store_is_f64(w, i);
    return n;
}

static int is_f64(const pcs_world *w, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_store_find(w, name, &id), PCS_OK, "%s", name);
    return pcs_store_is_f64(w, id);
}

Test(finite_check, a_four_unit_station_runs_200_ticks_clean)
{
    pcs_world *w = new_world(1);
    pcs_plant_unit_def u[4];
    for (int i = 0; i < 4; i++)
        pcs_plant_unit_default(&u[i]);
    u[3].core.initial_power_fraction = 0.5;
    pcs_plant *p;
    cr_assert_eq(pcs_plant_add(w, u, 4, &p), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_plant_instrument(w, p, NULL), PCS_OK, "%s", pcs_last_error());
    /* The physics declares its double stores; the control layer's (NaN by design) not. */
    const char *f64[] = {"u1.pri.mass",  "u1.pri.energy",   "u2.pri.flow",    "u1.fuel.t",
                         "u1.coolant.t", "u3.kin.y",        "u4.xenon.state", "u1.core.out"};
    for (size_t i = 0; i < sizeof f64 / sizeof f64[0]; i++)
        cr_assert_eq(is_f64(w, f64[i]), 1, "%s should be declared F64", f64[i]);
    const char *not_f64[] = {"u1.kin.modes", "u1.fuel.flags", "u1.scram.state", "sensors.value",
                             "rps.word"};
    for (size_t i = 0; i < sizeof not_f64 / sizeof not_f64[0]; i++)
        cr_assert_eq(is_f64(w, not_f64[i]), 0, "%s must not be declared F64", not_f64[i]);
    cr_assert_geq(count_f64(w), 4 * 30, "%u F64 stores", count_f64(w));
    /* A pump trip on unit 2 at tick 20 gives the check a transient to watch. */
    tick_n(w, 20);
    pcs_command trip =
        ctl_make(w, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_TRIP, "u2.pump2", 0.0);
    cr_assert_eq(pcs_command_submit(w, &trip), PCS_OK);
    tick_n(w, 180);
    cr_assert_eq(pcs_world_clock(w)->tick, 200);
    pcs_world_destroy(w);
}
