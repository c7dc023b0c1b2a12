/**
 * @file test_name_find.c
 * @brief Find by name through the shared name index (engine/name_index.h):
 *        stores and channels resolve, and a missing name is reported the
 *        same way by both, naming the caller, the kind of record and the name.
 */
#include <criterion/criterion.h>

#include "pcsim/pcsim.h"
#include "tests/world_fixture.h"

Test(name_find, an_empty_world_has_no_store_or_channel_of_any_name)
{
    pcs_world *w = wfx_world();
    uint32_t id = 77;
    cr_assert_eq(pcs_store_find(w, "core", &id), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "pcs_store_find: no store named 'core'");
    cr_assert_eq(pcs_channel_find(w, "u1.core.power", &id), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "pcs_channel_find: no channel named 'u1.core.power'");
    cr_assert_eq(id, 77, "id untouched when nothing is found");
    pcs_world_destroy(w);
}

Test(name_find, stores_and_channels_resolve_to_their_ids_and_null_arguments_are_refused)
{
    pcs_world *w = wfx_world();
    uint32_t a, b, ch, id;
    cr_assert_eq(pcs_store_register(w, "a", 8, 1, PCS_STORE_STATE, &a), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "b", 8, 3, PCS_STORE_STATE, &b), PCS_OK);
    cr_assert_eq(pcs_channel_register(w, "u1.b", "K", PCS_CHANNEL_F64, b, 2, &ch), PCS_OK);
    cr_assert_eq(pcs_store_find(w, "b", &id), PCS_OK);
    cr_assert_eq(id, b);
    cr_assert_eq(pcs_store_find(w, "a", &id), PCS_OK);
    cr_assert_eq(id, a);
    cr_assert_eq(pcs_channel_find(w, "u1.b", &id), PCS_OK);
    cr_assert_eq(id, ch);
    cr_assert_eq(pcs_store_find(w, "u1.b", &id), PCS_E_NOTFOUND, "a channel is not a store");
    cr_assert_str_eq(pcs_last_error(), "pcs_store_find: no store named 'u1.b'");
    cr_assert_eq(pcs_store_find(w, NULL, &id), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_store_find: NULL argument");
    cr_assert_eq(pcs_channel_find(w, "u1.b", NULL), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_channel_find: NULL argument");
    cr_assert_eq(pcs_channel_find(NULL, "u1.b", &id), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_channel_find: NULL argument");
    pcs_world_destroy(w);
}
