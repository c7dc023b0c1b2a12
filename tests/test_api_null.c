/**
 * @file test_api_null.c
 * @brief Every public engine function given NULL or a bad argument returns an
 *        error (or a documented neutral value) and sets a message; none crashes.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "tests/expect_err.h"

Test(api_null, status_helpers)
{
    cr_assert_str_eq(pcs_status_str(PCS_E_RATE), "PCS_E_RATE");
    cr_assert_str_eq(pcs_status_str((pcs_status)-99), "PCS_E_UNKNOWN");
    cr_assert_eq(pcs_error_set(PCS_E_IO, "file %s", "x.json"), PCS_E_IO);
    cr_assert_str_eq(pcs_last_error(), "file x.json");
    pcs_error_clear();
    cr_assert_str_eq(pcs_last_error(), "");
}

Test(api_null, world_lifecycle)
{
    pcs_world *w = NULL;
    EXPECT_ERR(pcs_world_default(NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_world_def_validate(NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_world_create(NULL, &w), PCS_E_INVAL);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    EXPECT_ERR(pcs_world_create(&cfg, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_world_tick(NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_world_set_stage_observer(NULL, NULL, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_world_set_event_callback(NULL, NULL, NULL), PCS_E_INVAL);
    pcs_world_destroy(NULL);
    cr_assert_null(pcs_world_clock(NULL));
    cr_assert_null(pcs_world_def_get(NULL));
    cr_assert_eq(pcs_world_state_hash(NULL), 0);
    cr_assert_null(pcs_world_alloc(NULL, 8));
    cr_assert_eq(pcs_world_alloc_count(NULL), 0);
    cr_assert_eq(pcs_world_sealed(NULL), 0);
}

Test(api_null, stores_systems_channels_jobs)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    uint32_t id;
    EXPECT_ERR(pcs_store_register(NULL, "a", 8, 1, PCS_STORE_STATE, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_register(w, NULL, 8, 1, PCS_STORE_STATE, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_register(w, "", 8, 1, PCS_STORE_STATE, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_register(w, "a", 0, 1, PCS_STORE_STATE, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_register(w, "a", SIZE_MAX, 2, PCS_STORE_STATE, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_register(w, "a", 8, 1, (pcs_store_kind)7, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_register(w, "a", 8, 1, PCS_STORE_STATE, NULL), PCS_E_INVAL);
    char longname[100];
    memset(longname, 'n', sizeof longname - 1);
    longname[99] = '\0';
    EXPECT_ERR(pcs_store_register(w, longname, 8, 1, PCS_STORE_STATE, &id), PCS_E_INVAL);
    cr_assert_eq(pcs_store_register(w, "a", 8, 1, PCS_STORE_STATE, &id), PCS_OK);
    EXPECT_ERR(pcs_store_register(w, "a", 8, 1, PCS_STORE_STATE, &id), PCS_E_INVAL);
    EXPECT_ERR(pcs_store_find(w, "zz", &id), PCS_E_NOTFOUND);
    EXPECT_ERR(pcs_store_find(NULL, "a", &id), PCS_E_INVAL);
    cr_assert_null(pcs_store_data(w, 99));
    cr_assert_eq(pcs_store_bytes(w, 99), 0);
    cr_assert_null(pcs_store_name(w, 99));
    cr_assert_eq(pcs_store_count(NULL), 0);

    pcs_system_desc d = {.name = "s", .stage = PCS_STAGE_HEAT};
    EXPECT_ERR(pcs_system_register(w, &d, NULL), PCS_E_INVAL); /* no fn */
    EXPECT_ERR(pcs_system_register(w, NULL, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_system_register(NULL, &d, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_system_count(w, (pcs_stage)40), 0);
    cr_assert_str_eq(pcs_stage_name((pcs_stage)40), "?");

    EXPECT_ERR(pcs_channel_register(NULL, "x", "", PCS_CHANNEL_F64, id, 0, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_channel_register(w, NULL, "", PCS_CHANNEL_F64, id, 0, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_channel_register(w, "x", "", PCS_CHANNEL_F64, 77, 0, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_channel_register(w, "x", "", (pcs_channel_kind)5, id, 0, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_channel_find(NULL, "x", &id), PCS_E_INVAL);
    pcs_channel_info info;
    EXPECT_ERR(pcs_channel_get(w, 0, &info), PCS_E_NOTFOUND);
    EXPECT_ERR(pcs_channel_get(w, 0, NULL), PCS_E_INVAL);
    cr_assert(isnan(pcs_channel_value(w, 3)));
    cr_assert_eq(pcs_channel_count(NULL), 0);

    pcs_job_desc j = {.name = "j", .domain = PCS_DOMAIN_FAST, .n_chunks = 1};
    EXPECT_ERR(pcs_job_register(w, &j, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "SLOW or STORAGE") != NULL);
    EXPECT_ERR(pcs_job_register(w, NULL, NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_job_register(NULL, &j, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_job_count(NULL), 0);
    pcs_world_destroy(w);
}

Test(api_null, commands_events_journal)
{
    pcs_command_stats st;
    EXPECT_ERR(pcs_command_stats_get(NULL, &st), PCS_E_INVAL);
    EXPECT_ERR(pcs_command_handler_register(NULL, 1, NULL, NULL), PCS_E_INVAL);
    pcs_command_source *src;
    EXPECT_ERR(pcs_command_source_open(NULL, 1, 1, 8, &src), PCS_E_INVAL);
    EXPECT_ERR(pcs_event_emit(NULL, 1, 0, 0, 0, 0, 0), PCS_E_INVAL);
    uint64_t cursor = 0;
    pcs_error_clear();
    cr_assert_eq(pcs_journal_read(NULL, &cursor, NULL, 0, NULL), 0);
    cr_assert(pcs_last_error()[0] != '\0');
    cr_assert_eq(pcs_journal_count(NULL), 0);
    cr_assert_eq(pcs_journal_tick_start(NULL), 0);
    cr_assert_eq(pcs_command_pending(NULL), 0);
    uint32_t n = 5;
    cr_assert_null(pcs_world_events(NULL, &n));
    cr_assert_eq(n, 0);
    cr_assert_eq(pcs_world_events_dropped(NULL), 0);
}

Test(api_null, clock_functions)
{
    uint64_t t;
    EXPECT_ERR(pcs_clock_advance(NULL), PCS_E_INVAL);
    EXPECT_ERR(pcs_clock_seconds_to_ticks(NULL, 1.0, &t, NULL), PCS_E_INVAL);
    cr_assert_not(pcs_clock_due(NULL, PCS_DOMAIN_FAST, 0));
    cr_assert_float_eq(pcs_clock_time_s(NULL), 0.0, 0.0);
    cr_assert_float_eq(pcs_clock_domain_step_s(NULL, PCS_DOMAIN_SLOW), 0.0, 0.0);
    cr_assert_eq(pcs_clock_period((pcs_domain)5), 0);
}
