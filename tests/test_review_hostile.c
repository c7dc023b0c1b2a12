/**
 * @file test_review_hostile.c
 * @brief Defects found by a hostile-user review of the issue 12 hardening:
 *        crafted saves that passed every load check and then broke a tick.
 *
 * A channel flow of 1e200 kg/s in "u1.coolant.mdot" passed the fuel load
 * check (any finite flow) and the first HEAT stage then wrote NaN into the
 * rod temperatures (mdot * cp squared overflows). The check now holds flows to
 * the range the model can step (fuel.h).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/plant.h"
#include "tests/save_craft.h"

static pcs_world *station(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    cfg.check_finite = 1; /* a NaN fails the tick in every build */
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    pcs_plant_unit_def u;
    pcs_plant_unit_default(&u);
    pcs_plant *plant = NULL;
    cr_assert_eq(pcs_plant_add(w, &u, 1, &plant), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_plant_instrument(w, plant, NULL), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 20; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    return w;
}

/* Save @p w, patch element @p element of "store:u1.coolant.mdot" to @p flow,
 * reseal and load it; the tick after an accepted load must stay finite. */
static pcs_status load_flow(pcs_world *w, size_t element, double flow, char *path, size_t len)
{
    char base[96];
    snprintf(base, sizeof base, "/tmp/pcsim-review-%d.save", (int)getpid());
    snprintf(path, len, "/tmp/pcsim-review-%d.bad.save", (int)getpid());
    cr_assert_eq(pcs_world_save(w, base), PCS_OK, "%s", pcs_last_error());
    size_t n = 0;
    unsigned char *b = save_craft_read(base, &n);
    cr_assert_not_null(b);
    cr_assert(
        save_craft_patch(b, n, "store:u1.coolant.mdot", element * sizeof flow, &flow, sizeof flow));
    cr_assert(save_craft_write(path, b, n));
    free(b);
    unlink(base);
    return pcs_world_load(w, path);
}

Test(review_hostile, crafted_huge_channel_flow_is_refused)
{
    pcs_world *w = station();
    uint64_t before = pcs_world_state_hash(w);
    char path[96];
    pcs_status st = load_flow(w, 0, 1e200, path, sizeof path);
    const char *msg = pcs_last_error();
    if (st == PCS_OK) /* show what the accepted value does */
        cr_expect_eq(pcs_world_tick(w), PCS_OK, "accepted, then: %s", pcs_last_error());
    cr_expect_eq(st, PCS_E_CORRUPT, "a flow of 1e200 kg/s was accepted");
    if (st == PCS_E_CORRUPT) {
        cr_expect(strstr(msg, path) != NULL, "message names the file: %s", msg);
        cr_expect(strstr(msg, "u1.coolant.mdot") != NULL, "names the store: %s", msg);
        /* %.17g of 1e200 */
        cr_expect(strstr(msg, "value 9.9999999999999997e+199 outside [-1e+09, 1e+09]") != NULL,
                  "names the value and the range: %s", msg);
        cr_expect_eq(pcs_world_state_hash(w), before, "a refused load changed the world");
    }
    unlink(path);
    pcs_world_destroy(w);
}

/* Flows a plant can have, and reverse flows (legal: used as 0 and flagged),
 * still load and tick. */
Test(review_hostile, crafted_large_but_steppable_flows_still_load)
{
    pcs_world *w = station();
    const double flows[] = {0.0, -5000.0, 1e6};
    for (size_t i = 0; i < sizeof flows / sizeof flows[0]; i++) {
        char path[96];
        cr_assert_eq(load_flow(w, 1, flows[i], path, sizeof path), PCS_OK, "flow %g: %s", flows[i],
                     pcs_last_error());
        for (int t = 0; t < 5; t++)
            cr_assert_eq(pcs_world_tick(w), PCS_OK, "flow %g, tick %d: %s", flows[i], t,
                         pcs_last_error());
        unlink(path);
    }
    pcs_world_destroy(w);
}
