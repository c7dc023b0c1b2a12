/**
 * @file test_control_common.c
 * @brief What every unit controller's add and defaults share
 *        (physics/control/models/control_common.h): the defaults copied
 *        from the model's table or a NULL def refused by name, and the add's
 *        end (pcs_control_finish) handing out the controller only when its
 *        checks and its whole build passed, an input's stores in a
 *        system's reads (pcs_control_input_reads) and the per-SG channels
 *        (pcs_control_sg_channels).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/control_input.h"
#include "physics/thermohydraulics/models/th_register.h"
#include "tests/world_fixture.h"

/* NULL is refused with the function's own name (the message the five
 * default functions gave before they shared pcs_control_default). */
#define EXPECT_NULL_REFUSED(fn)                                                                    \
    do {                                                                                           \
        pcs_error_clear();                                                                         \
        cr_expect_eq(fn(NULL), PCS_E_INVAL, #fn);                                                  \
        cr_expect_str_eq(pcs_last_error(), #fn ": def is NULL");                                   \
    } while (0)

Test(control_common, defaults_are_the_models_tables_and_a_null_def_is_refused_by_name)
{
    EXPECT_NULL_REFUSED(pcs_rod_control_default);
    EXPECT_NULL_REFUSED(pcs_steam_dump_default);
    EXPECT_NULL_REFUSED(pcs_sg_control_default);
    EXPECT_NULL_REFUSED(pcs_turbine_default);
    EXPECT_NULL_REFUSED(pcs_interlock_default);
    /* one value of each table, as the model files state them: the Tavg
     * program's full-load end 580.206 K, the dump's 7.630 MPa pressure
     * setpoint, the 44 % narrow-range program, 1800 rpm = 188.496 rad/s,
     * four SGs */
    pcs_rod_control_def rd;
    memset(&rd, 0xff, sizeof rd);
    cr_expect_eq(pcs_rod_control_default(&rd), PCS_OK);
    cr_expect_eq(rd.t_avg_full_k, 580.206);
    cr_expect_eq(rd.bank_mask, 0x0fu);
    pcs_steam_dump_def sd;
    cr_expect_eq(pcs_steam_dump_default(&sd), PCS_OK);
    cr_expect_eq(sd.p_setpoint_pa, 7.630e6);
    cr_expect_eq(sd.require_c9, 1u);
    pcs_sg_control_def gd;
    cr_expect_eq(pcs_sg_control_default(&gd), PCS_OK);
    cr_expect_eq(gd.nr_program, 44.0);
    cr_expect_eq(gd.power.store, UINT32_MAX);
    pcs_turbine_def td;
    cr_expect_eq(pcs_turbine_default(&td), PCS_OK);
    cr_expect_eq(td.sync_rad_s, 188.496);
    cr_expect_eq(td.rated_flow_kg_s, 0.0, "not in the table: zero");
    pcs_interlock_def id;
    cr_expect_eq(pcs_interlock_default(&id), PCS_OK);
    cr_expect_eq(id.n_sg, 4u);
    cr_expect_eq(id.msiv_open_stroke_s, 5.0);
}

/* A world with unit u1 (automatic rods) and a Tavg input for rod control. */
static pcs_world *rod_world(pcs_unit **u, pcs_rod_control_def *d)
{
    pcs_world *w = wfx_world();
    pcs_unit_def ud;
    pcs_unit_default(&ud);
    ud.auto_rods = 1;
    cr_assert_eq(pcs_unit_add(w, 1, &ud, u), PCS_OK, "%s", pcs_last_error());
    uint32_t id_t;
    cr_assert_eq(pcs_store_register(w, "test.tavg", sizeof(double), 1, PCS_STORE_STATE, &id_t),
                 PCS_OK);
    pcs_rod_control_default(d);
    d->unit_name = "u1";
    d->tavg = (pcs_pzr_control_input){id_t, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    return w;
}

Test(control_common, the_add_hands_out_the_controller_only_after_its_checks_and_build)
{
    pcs_unit *u;
    pcs_rod_control_def d;
    pcs_world *w = rod_world(&u, &d);
    pcs_rod_control *const sentinel = (pcs_rod_control *)&d; /* any non-NULL address */
    pcs_rod_control *rc = sentinel;
    pcs_rod_control_def bad = d;
    bad.lockup_k = bad.deadband_k; /* the check refuses it: nothing built */
    cr_expect_eq(pcs_rod_control_add(w, &bad, u, &rc), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "lockup_k"), "%s", pcs_last_error());
    cr_expect_eq(rc, sentinel, "a refused add leaves *out as it was");
    uint32_t id = UINT32_MAX;
    cr_expect_eq(pcs_store_find(w, "u1.rodctl.state", &id), PCS_E_NOTFOUND);

    cr_assert_eq(pcs_rod_control_add(w, &d, u, &rc), PCS_OK, "%s", pcs_last_error());
    cr_assert_neq(rc, sentinel);
    cr_assert_eq(pcs_store_find(w, "u1.rodctl.state", &id), PCS_OK);
    cr_expect_eq(pcs_rod_control_state_store(rc), id, "*out is the controller that was built");

    /* a second controller of u1 passes the checks but its build fails at
     * its state store's name, which the first one holds */
    pcs_rod_control *again = sentinel;
    cr_expect_neq(pcs_rod_control_add(w, &d, u, &again), PCS_OK);
    cr_expect(strstr(pcs_last_error(), "u1.rodctl.state"), "%s", pcs_last_error());
    cr_expect_eq(again, sentinel, "a failed build leaves *out as it was");
    pcs_world_destroy(w);
}

/* Each store once, first come first listed, a missing status word skipped:
 * the read lists pzr_control, rod_control and sg_porv hand their systems. */
Test(control_common, input_reads_list_each_store_once_in_the_inputs_order)
{
    uint32_t reads[6] = {5}, n = 1;
    pcs_control_input_reads(&(pcs_pzr_control_input){5, 0, 9, 0}, reads, &n);
    cr_expect_eq(n, 2u, "store 5 listed already: only its status store 9 joins");
    cr_expect_eq(reads[1], 9u);
    pcs_control_input_reads(&(pcs_pzr_control_input){7, 1, PCS_PZR_CONTROL_NO_STATUS, 0}, reads,
                            &n);
    cr_expect_eq(n, 3u, "no status word: the store alone");
    cr_expect_eq(reads[2], 7u);
    pcs_control_input_reads(&(pcs_pzr_control_input){9, 2, 5, 3}, reads, &n);
    cr_expect_eq(n, 3u, "both stores listed: nothing added");
    cr_expect_eq(reads[0], 5u);
    cr_expect_eq(reads[1], 9u);
    cr_expect_eq(reads[2], 7u);
}

/* A channel's store and element as registered, by name. */
static void expect_channel(pcs_world *w, const char *name, uint32_t store, uint32_t index,
                           const char *unit)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(w, name, &id), PCS_OK, "%s: %s", name, pcs_last_error());
    pcs_channel_info info;
    cr_assert_eq(pcs_channel_get(w, id, &info), PCS_OK);
    cr_expect_eq(info.store, store, "%s", name);
    cr_expect_eq(info.index, index, "%s: element %u", name, info.index);
    cr_expect_str_eq(info.unit, unit, "%s", name);
}

/* SG K's row r sits at element first + (K - 1) * per_sg + r.index: with
 * first 2, per_sg 5, two SGs, rows at 0 and 3, elements 2, 5, 7, 10. */
Test(control_common, sg_channels_name_each_sg_and_step_its_block)
{
    pcs_world *w = wfx_world();
    pcs_control_base b = {.unit = "u7", .n_sg = 2};
    cr_assert_eq(pcs_store_register(w, "u7.test.state", sizeof(double), 12, PCS_STORE_STATE_F64,
                                    &b.id_state),
                 PCS_OK);
    static const pcs_th_channel_row rows[] = {{"level", "%", 0}, {"flow", "kg/s", 3}};
    cr_assert_eq(pcs_control_sg_channels(w, &b, 2, 5, rows, 2), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_channel_count(w), 4u);
    expect_channel(w, "u7.sg1.level", b.id_state, 2, "%");
    expect_channel(w, "u7.sg1.flow", b.id_state, 5, "kg/s");
    expect_channel(w, "u7.sg2.level", b.id_state, 7, "%");
    expect_channel(w, "u7.sg2.flow", b.id_state, 10, "kg/s");
    /* it stops at the first failure: again, SG 1's first name is taken, so
     * nothing of SGs 1..3 is added */
    b.n_sg = 3;
    cr_expect_eq(pcs_control_sg_channels(w, &b, 2, 5, rows, 2), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "u7.sg1.level"), "%s", pcs_last_error());
    cr_expect_eq(pcs_channel_count(w), 4u);
    pcs_world_destroy(w);
}
