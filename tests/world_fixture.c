/**
 * @file world_fixture.c
 * @brief Test support shared by test_world.c and test_pacing.c.
 */
#include <criterion/criterion.h>

#include "tests/world_fixture.h"

pcs_world *wfx_world(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    return w;
}

pcs_world *wfx_hashed_world(const char *name, size_t n, pcs_system_fn fn, uint32_t *store)
{
    pcs_world *w = wfx_world();
    cr_assert_eq(pcs_store_register(w, "x", 8, n, PCS_STORE_STATE, store), PCS_OK);
    pcs_system_desc d = {.name = name,
                         .stage = PCS_STAGE_HEAT,
                         .fn = fn,
                         .ctx = store,
                         .writes = store,
                         .n_writes = 1};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    return w;
}
