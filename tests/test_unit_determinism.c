/**
 * @file test_unit_determinism.c
 * @brief Same unit configuration and command script twice -> the same state
 *        hash after N ticks (docs/ARCHITECTURE.md section 7); a changed input changes it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/command.h"
#include "pcsim/system.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"
#include "tests/control_fixture.h"

/* Two units; u1 withdraws bank D, u1 scrams at 60 s, is reset and withdraws
 * bank C; u2 gets a trip input at 30 s. Returns the hash after 3000 ticks
 * (150 s, with ~150 xenon merges), and the hash at tick 1000 in *mid. */
static uint64_t ud_run(double d_start, uint64_t *mid)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_unit_def c;
    pcs_unit_default(&c);
    c.banks[0].initial_pos = d_start;
    pcs_unit *u1, *u2;
    cr_assert_eq(pcs_unit_add(w, 1, &c, &u1), PCS_OK, "%s", pcs_last_error());
    c.xenon_phase = 7;
    cr_assert_eq(pcs_unit_add(w, 2, &c, &u2), PCS_OK, "%s", pcs_last_error());
    uint32_t *trip2 = pcs_store_data(w, pcs_unit_trip_store(u2));
    ctl_unit_command(w, PCS_UNIT_OP_ROD_SPEED, 1, 0, 0.02);
    ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 0, 0.8);
    for (long t = 0; t < 3000; t++) {
        if (t == 600)
            *trip2 = 1u << 4;
        if (t == 1200)
            ctl_unit_command(w, PCS_UNIT_OP_SCRAM, 1, 0, 0);
        if (t == 1400)
            ctl_unit_command(w, PCS_UNIT_OP_RESET, 1, 0, 0);
        if (t == 1401)
            ctl_unit_command(w, PCS_UNIT_OP_ROD_POSITION, 1, 1, 0.3);
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        if (t == 999)
            *mid = pcs_world_state_hash(w);
    }
    uint64_t h = pcs_world_state_hash(w);
    pcs_world_destroy(w);
    return h;
}

Test(unit_determinism, same_config_and_script_give_the_same_hash)
{
    uint64_t m1, m2, m3;
    uint64_t h1 = ud_run(0.9, &m1);
    uint64_t h2 = ud_run(0.9, &m2);
    cr_expect_eq(m1, m2, "hash at tick 1000: %016llx vs %016llx", (unsigned long long)m1,
                 (unsigned long long)m2);
    cr_expect_eq(h1, h2, "hash at tick 3000: %016llx vs %016llx", (unsigned long long)h1,
                 (unsigned long long)h2);
    /* The hash sees the unit's state: a different start position changes it. */
    uint64_t h3 = ud_run(0.85, &m3);
    cr_expect_neq(h1, h3);
    cr_expect_neq(m1, m3);
}
