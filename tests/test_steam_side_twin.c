/**
 * @file test_steam_side_twin.c
 * @brief Identical steam-side units share one settling (plant.c
 *        same_steady_state, copy_secondary): the second takes the first's
 *        settled primary and steam side, and the copy is complete, so the
 *        two then tick bit for bit alike.
 *
 * Why bitwise: the settling is deterministic, so a unit that settled itself
 * would end in exactly the copied state (measured when the copy was added:
 * a four-unit steam-side station, u1-u3 at 100 % and u4 at 50 %, built
 * with and without the copy, gave the same final state hash after 20 s).
 * What this test guards is the copy itself: a store left out (the tube
 * temperatures, an actuator, the primary's SG coupling) would make u2's
 * first ticks differ from u1's.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/coolant.h"
#include "pcsim/pcsim.h"
#include "pcsim/plant.h"
#include "pcsim/primary.h"
#include "pcsim/secondary.h"
#include "pcsim/station.h"

/* Does store @p a hold the same bytes as store @p b? */
static int same_store(pcs_world *w, uint32_t a, uint32_t b)
{
    size_t n = pcs_store_bytes(w, a);
    return n > 0 && n == pcs_store_bytes(w, b) &&
           memcmp(pcs_store_data(w, a), pcs_store_data(w, b), n) == 0;
}

/* Every store of u1's and u2's steam side and primary state alike? */
static int units_alike(pcs_world *w, const pcs_plant_unit *a, const pcs_plant_unit *b)
{
    pcs_secondary_stores sa = pcs_secondary_store_ids(a->secondary);
    pcs_secondary_stores sb = pcs_secondary_store_ids(b->secondary);
    pcs_primary_stores pa = pcs_primary_store_ids(a->primary);
    pcs_primary_stores pb = pcs_primary_store_ids(b->primary);
    const uint32_t x[] = {
        sa.mass,   sa.energy,        sa.flow, sa.p,   sa.h,    sa.void_fraction, sa.tube_heat,
        sa.tube_t, sa.turbine_valve, sa.feed, sa.out, pa.mass, pa.energy,        pa.flow,
        pa.out};
    const uint32_t y[] = {
        sb.mass,   sb.energy,        sb.flow, sb.p,   sb.h,    sb.void_fraction, sb.tube_heat,
        sb.tube_t, sb.turbine_valve, sb.feed, sb.out, pb.mass, pb.energy,        pb.flow,
        pb.out};
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
        if (!same_store(w, x[k], y[k])) {
            cr_log_error("store %s differs from %s", pcs_store_name(w, y[k]),
                         pcs_store_name(w, x[k]));
            return 0;
        }
    return 1;
}

/*
 * Two identical steam-side units at 100 %: u2's settling report is u1's
 * (simulated seconds, pressure, opening), its state is u1's byte for byte,
 * and after 20 ticks (1 s, the controllers and the coupling running) it
 * still is.
 */
Test(steam_side_twin, an_identical_unit_takes_the_settled_steam_side_and_ticks_alike)
{
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.check_finite = 1;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    const pcs_water_ph_table *table = NULL;
    const pcs_coolant_water *coolant = NULL;
    cr_assert_eq(pcs_station_water_table(&table), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_coolant_table(&coolant), PCS_OK, "%s", pcs_last_error());
    pcs_plant_unit_def d[2];
    for (int i = 0; i < 2; i++) {
        pcs_plant_unit_default(&d[i]);
        d[i].sg_model = PCS_PLANT_SG_STEAM_SIDE;
        d[i].primary.table = table;
        d[i].fuel.props_fn = pcs_coolant_props_water;
        d[i].fuel.props_ctx = (void *)coolant;
    }
    pcs_plant *p = NULL;
    cr_assert_eq(pcs_plant_add(w, d, 2, &p), PCS_OK, "%s", pcs_last_error());
    const pcs_plant_unit *a = pcs_plant_unit_get(p, 0), *b = pcs_plant_unit_get(p, 1);
    cr_assert(a->secondary_init.seconds > 0.0, "u1 settled for %g s", a->secondary_init.seconds);
    cr_expect_eq(b->secondary_init.seconds, a->secondary_init.seconds);
    cr_expect_eq(b->secondary_init.pressure_pa, a->secondary_init.pressure_pa);
    cr_expect_eq(b->secondary_init.turbine_opening, a->secondary_init.turbine_opening);
    cr_expect(units_alike(w, a, b), "u2 at build is not u1's state");
    for (int i = 0; i < 20; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    cr_expect(units_alike(w, a, b), "u2 ticked away from u1");
    pcs_world_destroy(w);
}
