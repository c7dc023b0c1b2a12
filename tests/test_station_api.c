/**
 * @file test_station_api.c
 * @brief The station through its public API (pcsim/station.h): the schema
 *        policy, commands by name and their messages, event texts and
 *        channels (journal files: test_journal_replay.c).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "pcsim/station.h"

/* Schema policy: a schema-1 file that names only its units builds the full
 * plant from the sourced defaults, the same world that the plant builder
 * makes from pcs_plant_unit_default and the default setpoints. */
Test(station_api, schema1_naming_only_its_units_builds_the_full_default_plant)
{
    static const char doc[] =
        "{\"schema\": 1, \"units\": [{\"name\": \"u1\"}, {\"name\": \"u2\"}]}";
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("units-only.json", doc, strlen(doc), NULL, &scn), PCS_OK,
                 "%s", pcs_last_error());
    cr_assert_eq(pcs_scenario_unit_count(scn), 2);
    cr_assert_eq(pcs_scenario_action_count(scn), 0);
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0;

    pcs_world *a, *b;
    pcs_station *st;
    cr_assert_eq(pcs_world_create(&cfg, &a), PCS_OK);
    cr_assert_eq(pcs_station_add(a, scn, &st), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_unit_count(st), 2);

    pcs_plant_unit_def units[2];
    pcs_plant_unit_default(&units[0]);
    pcs_plant_unit_default(&units[1]);
    pcs_plant *p;
    cr_assert_eq(pcs_world_create(&cfg, &b), PCS_OK);
    cr_assert_eq(pcs_plant_add(b, units, 2, &p), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_plant_instrument(b, p, NULL), PCS_OK, "%s", pcs_last_error());

    /* Every model of the full plant is there: four loops, instruments,
     * protection and alarms of both units, as command targets. */
    static const char *const targets[] = {
        "u2.pump4", "u1.loop4.flow.D", "u2.rps.high_flux", "u2.alarm.flow_low.4", "u1.D", "u2"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        pcs_target_id id;
        cr_assert_eq(pcs_command_target_find(a, targets[i], &id), PCS_OK, "%s", targets[i]);
    }
    uint32_t first, count;
    pcs_station_channels(st, &first, &count);
    cr_assert_eq(first, 0);
    cr_assert_eq(count, pcs_channel_count(b), "the station's channels are the plant's");
    cr_assert_eq(pcs_channel_count(a), pcs_channel_count(b));
    for (int t = 0; t < 20; t++) {
        cr_assert_eq(pcs_world_tick(a), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_tick(b), PCS_OK, "%s", pcs_last_error());
    }
    /* The same state, store by store: the whole hashes differ, since only
     * the station registers its devices as entities (the table is hashed). */
    cr_assert_eq(pcs_store_count(a), pcs_store_count(b));
    for (uint32_t i = 0; i < pcs_store_count(a); i++) {
        cr_assert_str_eq(pcs_store_name(a, i), pcs_store_name(b, i));
        cr_assert_eq(pcs_store_bytes(a, i), pcs_store_bytes(b, i), "%s", pcs_store_name(a, i));
        if (pcs_store_kind_of(a, i) == PCS_STORE_STATE)
            cr_assert(memcmp(pcs_store_data(a, i), pcs_store_data(b, i), pcs_store_bytes(a, i)) ==
                          0,
                      "the units-only scenario builds the default plant: store %s differs",
                      pcs_store_name(a, i));
    }
    uint32_t na, nb;
    const pcs_event *ea = pcs_world_events(a, &na), *eb = pcs_world_events(b, &nb);
    cr_assert_eq(na, nb, "events of the last tick");
    cr_assert(na == 0 || memcmp(ea, eb, na * sizeof *ea) == 0, "events of the last tick");
    cr_assert_gt(pcs_entity_count(a), 0);
    cr_assert_eq(pcs_entity_capacity(b), 0);
    pcs_station_destroy(st);
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    pcs_scenario_destroy(scn);
}

/* Schema-1 files keep loading unchanged: the committed station file is the
 * built-in one, byte for byte in what it builds and runs. */
Test(station_api, the_station_file_and_the_built_in_scenario_are_the_same)
{
    pcs_scenario *file, *builtin;
    cr_assert_eq(pcs_scenario_load_file("scenarios/pwr-station.json", NULL, &file), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_scenario_default(&builtin), PCS_OK, "%s", pcs_last_error());
    cr_assert_str_eq(pcs_scenario_source(builtin), "<built-in pwr-station.json>");
    cr_assert_str_eq(pcs_scenario_name(file), "pwr-station");
    cr_assert_eq(pcs_scenario_build_hash(file), pcs_scenario_build_hash(builtin));
    cr_assert_eq(pcs_scenario_world_def(file).build_hash, pcs_scenario_build_hash(file));
    cr_assert_eq(pcs_scenario_unit_count(file), 4);
    cr_assert_eq(pcs_scenario_action_count(file), pcs_scenario_action_count(builtin));
    pcs_scenario_run r = pcs_scenario_run_params(file);
    cr_assert_eq(r.run_ticks, 18000, "900 s at 0.05 s");
    cr_assert_eq(r.timeline_ticks, 1200, "60 s at 0.05 s");
    cr_assert_eq(r.readers, 20);
    const pcs_scenario_action *a =
        pcs_scenario_action_get(file, 2); /* after u1's rod_manual, rod_position */
    cr_assert_str_eq(a->command, "pump_trip");
    cr_assert_str_eq(a->target, "u2.pump2");
    cr_assert_eq(a->tick, 2400, "t_s 120 at 0.05 s");
    cr_assert_null(pcs_scenario_action_get(file, pcs_scenario_action_count(file)));
    cr_assert(strstr(pcs_scenario_default_text(), "\"name\": \"pwr-station\"") != NULL);
    pcs_scenario_destroy(file);
    pcs_scenario_destroy(builtin);
}

Test(station_api, a_bad_scenario_names_file_path_and_range)
{
    static const char doc[] = "{\"schema\": 1, \"world\": {\"dt_s\": -1}}";
    pcs_scenario *scn = (pcs_scenario *)1;
    cr_assert_eq(pcs_scenario_load_string("bad.json", doc, strlen(doc), NULL, &scn), PCS_E_INVAL);
    cr_assert_null(scn);
    cr_assert(strstr(pcs_last_error(), "bad.json: $.world.dt_s") != NULL, "%s", pcs_last_error());
    pcs_scenario_load_opts small = {.max_bytes = 8};
    cr_assert_eq(pcs_scenario_load_string("big.json", doc, strlen(doc), &small, &scn), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "big.json: 36 bytes is more than the scenario size limit "
                                       "of 8 bytes") != NULL,
              "%s", pcs_last_error());
}

/* One built station for the command and event cases (a one-unit plant). */
static pcs_scenario *one_scn;
static pcs_world *one_w;
static pcs_station *one_st;

static void one_unit(void)
{
    static const char doc[] = "{\"schema\": 1, \"units\": [{\"name\": \"u1\"}]}";
    cr_assert_eq(pcs_scenario_load_string("one.json", doc, strlen(doc), NULL, &one_scn), PCS_OK,
                 "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(one_scn);
    cr_assert_eq(pcs_world_create(&cfg, &one_w), PCS_OK);
    cr_assert_eq(pcs_station_add(one_w, one_scn, &one_st), PCS_OK, "%s", pcs_last_error());
}

static void one_unit_free(void)
{
    pcs_station_destroy(one_st);
    pcs_world_destroy(one_w);
    pcs_scenario_destroy(one_scn);
}

Test(station_api, commands_by_name_resolve_or_say_why, .init = one_unit, .fini = one_unit_free)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(one_st, "u1.pump3", "pump_trip", 0.0, &c), PCS_OK, "%s",
                 pcs_last_error());
    pcs_target_id id;
    uint32_t kind;
    cr_assert_eq(pcs_command_target_find(one_w, "u1.pump3", &id), PCS_OK);
    cr_assert_eq(
        pcs_command_kind_find(one_w, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_TRIP, &kind),
        PCS_OK);
    cr_assert_eq(c.target, pcs_target_id_store(id));
    cr_assert_eq(c.kind, kind);
    cr_assert_eq(pcs_command_submit(one_w, &c), PCS_OK);
    cr_assert_eq(pcs_world_tick(one_w), PCS_OK, "%s", pcs_last_error());

    cr_assert_eq(pcs_station_command(one_st, "u1.pump9", "pump_trip", 0.0, &c), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "one.json: target: no pump 'pump9' in u1 (pump1..pump4)");
    cr_assert_eq(pcs_station_command(one_st, "u1", "warp", 0.0, &c), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "one.json: command: unknown command 'warp'");
    cr_assert_eq(pcs_station_command(one_st, "u1.D", "rod_position", 1.5, &c), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "one.json: value: value 1.5 is outside [0, 1] (rod_position: position)");
    cr_assert_eq(pcs_station_command(one_st, "u2", "scram", 0.0, &c), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(),
                     "one.json: target: 'u2' is not a target of scram (target uN; units u1..u1)");
    /* The command names a host may offer. */
    /* 23 + the steam side's (issue 15): the turbine's 8 (turbine_valve, _load,
       _runback, _trip, _reset, generator_mode, _load_torque, _load_power),
       rod_manual, rod_auto, the 4 dump commands, the feedwater's 4
       (feed_pump_trip, feed_pump_start, afw_start, afw_stop), c7_reset,
       condenser_available, si_reset, msiv_close, msiv_open, steam_line_break and the SG
       PORVs' sg_porv_manual, sg_porv_auto, SG level control's feed_bypass, feed_main */
    /* + freeze, thaw, and the structural pump_remove, pump_install, unit_add,
     * unit_remove (issue 19) */
    cr_assert_eq(pcs_station_command_name_count(), 57);
    cr_assert_str_eq(pcs_station_command_name(5), "pump_trip");
    cr_assert_str_eq(pcs_station_command_name(8), "pzr_spray");
    cr_assert_str_eq(pcs_station_command_name(53), "pump_remove");
    cr_assert_str_eq(pcs_station_command_name(54), "pump_install");
    cr_assert_str_eq(pcs_station_command_name(55), "unit_add");
    cr_assert_str_eq(pcs_station_command_name(56), "unit_remove");
    cr_assert_null(pcs_station_command_name(57));
}

Test(station_api, event_texts_come_from_the_station, .init = one_unit, .fini = one_unit_free)
{
    char out[256] = "untouched";
    pcs_event trip = {.kind = PCS_EV_PRIMARY_PUMP_TRIPPED, .subject = 2, .values = {12.0}};
    cr_assert_eq(pcs_event_describe(one_st, &trip, out, sizeof out), 1);
    cr_assert_str_eq(out, "u1 pump3 TRIPPED at 12.0 rad/s");
    pcs_event bank = {.kind = PCS_EV_UNIT_ROD_AT_LIMIT, .subject = 1, .values = {0.0, 1.0}};
    cr_assert_eq(pcs_event_describe(one_st, &bank, out, sizeof out), 1);
    cr_assert(strncmp(out, "u1 rod bank ", 12) == 0 && strstr(out, "fully withdrawn"), "%s", out);
    cr_assert(strstr(out, "?") == NULL, "%s", out);
    /* Numbers the build did not make name no configuration slot. */
    pcs_event stray = {.kind = PCS_EV_UNIT_ROD_AT_LIMIT, .subject = 7, .values = {99.0, 1.0}};
    cr_assert_eq(pcs_event_describe(one_st, &stray, out, sizeof out), 1);
    cr_assert_str_eq(out, "u7 rod bank ? fully withdrawn");
    pcs_event quiet = {.kind = PCS_EV_UNIT_ROD_AT_LIMIT, .subject = 1, .values = {0.0, 0.0}};
    strcpy(out, "untouched");
    cr_assert_eq(pcs_event_describe(one_st, &quiet, out, sizeof out), 0);
    cr_assert_str_eq(out, "untouched");
}

/* The process-wide coolant table (pcs_station_coolant_table) is made once
 * (every call gives the same table) from the defaults, so the fuel of a
 * station reads exactly what a plant's own world-heap table
 * (pcs_coolant_water_add, the path of a plant built without the station)
 * would give: the same properties to the bit at liquid, near-saturation
 * and clamped points of the primary's range. NULL is refused. */
Test(station_api, the_shared_coolant_table_is_one_and_equals_a_world_table)
{
    const pcs_coolant_water *a = NULL, *b = NULL;
    cr_assert_eq(pcs_station_coolant_table(&a), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_coolant_table(&b), PCS_OK);
    cr_expect_eq(a, b, "two calls gave two tables");
    cr_expect_eq(pcs_station_coolant_table(NULL), PCS_E_INVAL);
    pcs_world_def wd;
    pcs_world_default(&wd);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_coolant_water_def cd;
    pcs_coolant_water_default(&cd);
    pcs_coolant_water *own = NULL;
    cr_assert_eq(pcs_coolant_water_add(w, &cd, &own), PCS_OK, "%s", pcs_last_error());
    const double t[] = {400.0, 565.0, 590.0, 617.0, 640.0};
    enum { N = sizeof t / sizeof t[0] };
    double cp[2][N], k[2][N], mu[2][N], rho[2][N];
    const void *ctx[2] = {a, own};
    for (int s = 0; s < 2; s++) {
        pcs_coolant_props_out out = {cp[s], k[s], mu[s], rho[s]};
        uint32_t clamped = 0;
        cr_assert_eq(pcs_coolant_props_water((void *)ctx[s], N, t, 15.5e6, &out, &clamped), PCS_OK,
                     "%s", pcs_last_error());
    }
    for (int i = 0; i < N; i++)
        cr_expect(cp[0][i] == cp[1][i] && k[0][i] == k[1][i] && mu[0][i] == mu[1][i] &&
                      rho[0][i] == rho[1][i],
                  "T %g K: shared cp %.17g k %.17g mu %.17g rho %.17g, own %.17g %.17g %.17g "
                  "%.17g",
                  t[i], cp[0][i], k[0][i], mu[0][i], rho[0][i], cp[1][i], k[1][i], mu[1][i],
                  rho[1][i]);
    pcs_world_destroy(w);
}
