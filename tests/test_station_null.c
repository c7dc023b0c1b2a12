/**
 * @file test_station_null.c
 * @brief The station API (pcsim/station.h) given NULL: an error with a
 *        message, or the neutral value the header states; never a crash.
 *        (The engine's functions: test_api_null.c.)
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/expect_err.h"

Test(station_null, scenario_accessors_of_null_return_neutral_values)
{
    cr_assert_str_eq(pcs_scenario_name(NULL), "");
    cr_assert_str_eq(pcs_scenario_source(NULL), "");
    cr_assert_str_eq(pcs_scenario_warnings(NULL), "");
    cr_assert_eq(pcs_scenario_build_hash(NULL), 0);
    cr_assert_eq(pcs_scenario_unit_count(NULL), 0);
    cr_assert_eq(pcs_scenario_action_count(NULL), 0);
    cr_assert_null(pcs_scenario_action_get(NULL, 0));
    cr_assert_null(pcs_scenario_reader_name(NULL, 0));
    pcs_scenario_run run = pcs_scenario_run_params(NULL);
    cr_assert_eq(run.run_ticks, 0);
    cr_assert_eq(run.readers, 0);
    /* A zeroed world def: dt_s 0 is refused by pcs_world_create, naming it. */
    pcs_world_def def = pcs_scenario_world_def(NULL);
    cr_assert_eq(def.dt_s, 0.0);
    pcs_world *w = NULL;
    EXPECT_ERR(pcs_world_create(&def, &w), PCS_E_INVAL);
    pcs_scenario_destroy(NULL);
}

Test(station_null, loads_and_tick_conversion_refuse_null)
{
    pcs_scenario *s = NULL;
    EXPECT_ERR(pcs_scenario_load_file(NULL, NULL, &s), PCS_E_INVAL);
    EXPECT_ERR(pcs_scenario_load_file("scenarios/pwr-station.json", NULL, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_scenario_load_string(NULL, "{}", 2, NULL, &s), PCS_E_INVAL);
    EXPECT_ERR(pcs_scenario_default(NULL), PCS_E_INVAL);
    uint64_t ticks = 0;
    EXPECT_ERR(pcs_scenario_seconds_to_ticks(0.05, 1.0, 0, "x", NULL, NULL, 0), PCS_E_INVAL);
    /* No warning buffer: the conversion still works, the warning is dropped. */
    cr_assert_eq(pcs_scenario_seconds_to_ticks(0.05, 0.07, 0, NULL, &ticks, NULL, 0), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(ticks, 1, "0.07 s is 1 tick of 0.05 s");
    char warn[128] = "";
    cr_assert_eq(pcs_scenario_seconds_to_ticks(0.05, 0.07, 0, NULL, &ticks, warn, sizeof warn),
                 PCS_OK);
    cr_assert_str_eq(warn, ": 0.07 s is 1 tick of 0.05 s (0.05 s, 28.6 % off)\n");
}

Test(station_null, station_calls_refuse_null)
{
    pcs_station *st = NULL;
    pcs_command c;
    uint32_t first = 7, count = 7, kind = 0;
    EXPECT_ERR(pcs_station_add(NULL, NULL, &st), PCS_E_INVAL);
    EXPECT_ERR(pcs_station_command(NULL, "u1", "scram", 0.0, &c), PCS_E_INVAL);
    EXPECT_ERR(pcs_station_script_command(NULL, NULL, 0, &c), PCS_E_INVAL);
    cr_assert_eq(pcs_station_unit_count(NULL), 0);
    pcs_station_channels(NULL, &first, &count);
    cr_assert_eq(first, 0);
    cr_assert_eq(count, 0);
    pcs_station_channels(NULL, NULL, NULL); /* nothing to write: no crash */
    cr_assert_neq(pcs_station_command_kind(NULL, "scram", &kind), PCS_OK);
    pcs_station_destroy(NULL);
}
