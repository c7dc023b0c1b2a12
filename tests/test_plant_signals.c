/**
 * @file test_plant_signals.c
 * @brief The plant signal bus (pcsim/plant_signals.h): one store per unit
 *        and set whoever asks first, a clash of name refused, and the load
 *        check refusing a flag that is neither 0 nor 1.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/plant_signals.h"

static pcs_world *new_world(void)
{
    pcs_world_def d;
    pcs_world_default(&d);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&d, &w), PCS_OK);
    return w;
}

Test(plant_signals, first_caller_registers_later_callers_find)
{
    pcs_world *w = new_world();
    uint32_t a, b, c;
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_INTERLOCK, &a), PCS_OK);
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_INTERLOCK, &b), PCS_OK);
    cr_assert_eq(a, b, "the second caller finds the first caller's store");
    cr_assert_eq(pcs_plant_signals(w, "u2", PCS_SIGNALS_INTERLOCK, &c), PCS_OK);
    cr_assert_neq(a, c, "each unit has its own store");
    cr_assert_str_eq(pcs_store_name(w, a), "u1.interlock.sig");
    cr_assert_eq(pcs_store_bytes(w, a), PCS_SIG_INTERLOCK_COUNT * sizeof(double));
    cr_assert_eq(pcs_store_kind_of(w, a), PCS_STORE_STATE);
    const double *x = pcs_store_data(w, a);
    for (uint32_t i = 0; i < PCS_SIG_INTERLOCK_COUNT; i++)
        cr_assert_eq(x[i], 0.0, "element %u starts inactive", i);
    cr_assert_eq(pcs_plant_signals_count(PCS_SIGNALS_TURBINE), PCS_SIG_TURBINE_COUNT);
    cr_assert_eq(pcs_plant_signals_count(PCS_SIGNALS_FEED), PCS_SIG_FEED_COUNT);
    cr_assert_str_eq(pcs_plant_signals_name(PCS_SIGNALS_FEED), "feed");
    cr_assert_null(pcs_plant_signals_name(PCS_SIGNALS_SET_COUNT));
    pcs_world_destroy(w);
}

Test(plant_signals, refuses_bad_arguments_and_a_name_another_model_owns)
{
    pcs_world *w = new_world();
    uint32_t id, other;
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_SET_COUNT, &id), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "unknown signal set"));
    cr_assert_eq(pcs_plant_signals(w, "", PCS_SIGNALS_FEED, &id), PCS_E_INVAL);
    cr_assert_eq(pcs_plant_signals(w, "u1234567890123456", PCS_SIGNALS_FEED, &id), PCS_E_INVAL);
    cr_assert_eq(pcs_plant_signals(NULL, "u1", PCS_SIGNALS_FEED, &id), PCS_E_INVAL);
    cr_assert_eq(
        pcs_store_register(w, "u1.feed.sig", sizeof(double), 2, PCS_STORE_STATE_F64, &other),
        PCS_OK);
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_FEED, &id), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "u1.feed.sig"), "names the store: %s", pcs_last_error());
    pcs_world_destroy(w);
}

Test(plant_signals, load_refuses_a_flag_that_is_neither_0_nor_1)
{
    char path[] = "/tmp/pcs_signals_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    pcs_world *w = new_world();
    uint32_t id;
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_TURBINE, &id), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    double *x = pcs_store_data(w, id);
    x[PCS_SIG_TURBINE_TRIPPED] = 0.5; /* a crafted save's value */
    x[PCS_SIG_TURBINE_LOAD] = 0.75;
    cr_assert_eq(pcs_world_save(w, path), PCS_OK);
    x[PCS_SIG_TURBINE_TRIPPED] = 1.0;
    cr_assert_eq(pcs_world_load(w, path), PCS_E_CORRUPT);
    cr_assert(strstr(pcs_last_error(), "turbine tripped flag"), "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "not 0 or 1"), "%s", pcs_last_error());
    cr_assert_eq(x[PCS_SIG_TURBINE_TRIPPED], 1.0, "a refused load changes nothing");
    x[PCS_SIG_TURBINE_TRIPPED] = 0.0;
    cr_assert_eq(pcs_world_save(w, path), PCS_OK);
    x[PCS_SIG_TURBINE_LOAD] = 0.0;
    cr_assert_eq(pcs_world_load(w, path), PCS_OK);
    cr_assert_eq(x[PCS_SIG_TURBINE_LOAD], 0.75);
    pcs_world_destroy(w);
    unlink(path);
}
