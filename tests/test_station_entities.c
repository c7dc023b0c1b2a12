/**
 * @file test_station_entities.c
 * @brief The station's devices as entities (station/station_entities.c,
 *        pcsim/station.h PCS_STATION_ENTITY_*), valves in particular
 *        (issue 19): every valve of the default scenario by name, kind,
 *        owner and position row; the per-kind count against a hand count of
 *        the scenario; a unit added while running gets its valves in a start
 *        unit's order; a pump removal still works beside them; a name the
 *        host already took is refused naming it.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"

typedef struct fixture {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
} fixture;

/* @p doc (NULL: the built-in default scenario), workers 0. */
static void build(fixture *f, const char *doc)
{
    memset(f, 0, sizeof *f);
    pcs_status rc = doc ? pcs_scenario_load_string("ent.json", doc, strlen(doc), NULL, &f->scn)
                        : pcs_scenario_default(&f->scn);
    cr_assert_eq(rc, PCS_OK, "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(f->scn);
    cfg.workers = 0;
    cr_assert_eq(pcs_world_create(&cfg, &f->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(f->w, f->scn, &f->st), PCS_OK, "%s", pcs_last_error());
}

static void release(fixture *f)
{
    pcs_station_destroy(f->st);
    pcs_world_destroy(f->w);
    pcs_scenario_destroy(f->scn);
}

static void ticks(fixture *f, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(f->w), PCS_OK, "%s", pcs_last_error());
}

static void command(fixture *f, const char *target, const char *name, double value)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(f->st, target, name, value, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_submit(f->w, &c), PCS_OK, "%s", pcs_last_error());
}

static pcs_entity_info entity(const fixture *f, const char *name)
{
    pcs_entity_handle h;
    pcs_entity_info info;
    cr_assert_eq(pcs_entity_find(f->w, name, &h), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_entity_get(f->w, h, &info), PCS_OK, "%s", pcs_last_error());
    return info;
}

/* The value a valve entity's (store, row) holds now. */
static double row_value(const fixture *f, const pcs_entity_info *v)
{
    cr_assert_neq(v->store, PCS_ENTITY_NO_STORE, "%s has a row", v->name);
    const double *data = pcs_store_data(f->w, v->store);
    return data[v->row];
}

/* Valve @p name: kind VALVE, owned by unit @p unit's entity, a command
 * target, and its (store, row) is channel @p channel's element, holding the
 * value that channel publishes. */
static void check_valve(const fixture *f, const char *name, const char *unit, const char *channel)
{
    pcs_entity_info v = entity(f, name), u = entity(f, unit);
    cr_assert_eq(v.kind, PCS_STATION_ENTITY_VALVE, "%s: kind %u", name, v.kind);
    cr_assert_eq(v.owner, u.id, "%s: owner %" PRIu64 ", %s is %" PRIu64, name, v.owner, unit, u.id);
    pcs_target_id t;
    cr_assert_eq(pcs_command_target_find(f->w, name, &t), PCS_OK, "%s is a command target", name);
    uint32_t id;
    pcs_channel_info ch;
    cr_assert_eq(pcs_channel_find(f->w, channel, &id), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_channel_get(f->w, id, &ch), PCS_OK);
    cr_assert_eq(v.store, ch.store, "%s: store %u, %s's %u", name, v.store, channel, ch.store);
    cr_assert_eq(v.row, ch.index, "%s: row %u, %s's %u", name, v.row, channel, ch.index);
    cr_assert_eq(row_value(f, &v), pcs_channel_value(f->w, id), "%s", name);
}

/* Every valve of a unit with @p n_sg steam-side SGs. */
static void check_unit_valves(const fixture *f, uint32_t unit, uint32_t n_sg)
{
    char u[8], name[32], channel[48];
    snprintf(u, sizeof u, "u%u", unit);
    for (uint32_t k = 1; k <= n_sg; k++) {
        snprintf(name, sizeof name, "%s.msiv%u", u, k);
        snprintf(channel, sizeof channel, "%s.sg%u.msiv", u, k);
        check_valve(f, name, u, channel);
        snprintf(name, sizeof name, "%s.porv%u", u, k);
        snprintf(channel, sizeof channel, "%s.sg%u.porv_opening", u, k);
        check_valve(f, name, u, channel);
    }
    snprintf(name, sizeof name, "%s.dumpctl", u);
    snprintf(channel, sizeof channel, "%s.dumpctl.demand", u);
    check_valve(f, name, u, channel);
}

/* Live entities of kind @p kind: ids 1, 2, ... until every live one is
 * seen (a destroyed id is skipped; the tests destroy at most a few). */
static uint32_t count_kind(const fixture *f, uint32_t kind)
{
    uint32_t n = 0, seen = 0, live = pcs_entity_count(f->w);
    for (uint64_t id = 1; seen < live && id <= 2u * live; id++) {
        pcs_entity_handle h;
        pcs_entity_info info;
        if (pcs_entity_find_id(f->w, id, &h) != PCS_OK)
            continue;
        cr_assert_eq(pcs_entity_get(f->w, h, &info), PCS_OK);
        seen++;
        n += info.kind == kind;
    }
    cr_assert_eq(seen, live, "every live entity seen");
    return n;
}

/* The default scenario (scenarios/pwr-station.json): 4 units, each 4 loops
 * with steam-side SGs. Per unit, counted by hand from the models it builds:
 *   pumps 4 (one a loop);
 *   valves 9: 4 MSIVs + 4 SG PORVs + the steam dump (station.h);
 *   sensors 95: nis.power A-D 4, pzr.pressure A-D 4, the three control
 *     channels (pzr.pressure.ctl, pzr.level.ctl, rcs.t_avg.ctl) 3, loopK
 *     flow A-D 16, loopK.t_hot.S 4, rcs.t_avg A-C 3, turbine.load A-C 3,
 *     per SG (nr_level, steam_flow, feed_flow, steam_pressure) x A-C + the
 *     PORV's steam_pressure.porv = 13, x 4 = 52, turbine.tripped A-C 3,
 *     interlock.low_flow_2loops A-C 3;
 *   alarms 24: power_high, pressure_high, pressure_low 3, per loop
 *     flow_low + t_hot_high 8, per SG sg_low_low + steam_pressure_low +
 *     steam_flow_high 12, turbine_trip 1.
 * Total 4 x (1 + 4 + 9 + 95 + 24) = 532. */
static void default_scenario_count_per_kind_matches_the_hand_count(fixture *f)
{
    cr_assert_eq(pcs_station_unit_count(f->st), 4);
    cr_assert_eq(count_kind(f, PCS_STATION_ENTITY_UNIT), 4);
    cr_assert_eq(count_kind(f, PCS_STATION_ENTITY_PUMP), 4 * 4);
    cr_assert_eq(count_kind(f, PCS_STATION_ENTITY_VALVE), 4 * 9);
    cr_assert_eq(count_kind(f, PCS_STATION_ENTITY_SENSOR), 4 * 95);
    cr_assert_eq(count_kind(f, PCS_STATION_ENTITY_ALARM), 4 * 24);
    cr_assert_eq(pcs_entity_count(f->w), 532);
    /* The table the station sized: max(256, 2 x devices). */
    cr_assert_eq(pcs_entity_capacity(f->w), 2 * 532);
}

/* Order: each unit, its pumps, its MSIVs, its PORVs, its steam dump; the
 * next unit after (ids 1.. in that order). */
static void a_units_valves_follow_its_pumps_in_order(fixture *f)
{
    static const char *const u1[] = {"u1",       "u1.pump1", "u1.pump2", "u1.pump3",   "u1.pump4",
                                     "u1.msiv1", "u1.msiv2", "u1.msiv3", "u1.msiv4",   "u1.porv1",
                                     "u1.porv2", "u1.porv3", "u1.porv4", "u1.dumpctl", "u2"};
    for (uint64_t i = 0; i < sizeof u1 / sizeof u1[0]; i++)
        cr_assert_eq(entity(f, u1[i]).id, i + 1, "%s", u1[i]);
    cr_assert_eq(entity(f, "u4.dumpctl").id, 4 * 14, "the last unit's last valve");
}

/* Every valve of the default scenario, before the first tick and after
 * 20 s of its script: found by name, kind VALVE, owned by its unit, its
 * row the position its channel publishes. */
static void every_default_valve_is_found_with_owner_and_position_row(fixture *f)
{
    for (uint32_t u = 1; u <= 4; u++)
        check_unit_valves(f, u, 4);
    ticks(f, 400);
    for (uint32_t u = 1; u <= 4; u++)
        check_unit_valves(f, u, 4);
    pcs_entity_info msiv = entity(f, "u3.msiv2");
    cr_assert_eq(row_value(f, &msiv), 1.0, "the MSIVs stand open at power");
}

#define ONE_UNIT                                                                                   \
    "{\"schema\": 1, \"world\": {\"seed\": 7}, \"units\": [{\"name\": \"u1\", \"loops\": 2, "      \
    "\"sg_model\": \"steam_side\"}"
#define LATER_UNIT                                                                                 \
    ", {\"name\": \"u2\", \"loops\": 2, \"sg_model\": \"steam_side\", \"build\": \"later\"}"

/* A command sent to a valve by its entity's name moves the row the entity
 * names. MSIV: msiv_close strokes shut at 1 / msiv_stroke_s (5 s,
 * pcsim/interlock.h) with no delay, from the command's tick: after 40 ticks
 * of 0.05 s, 1 - 40 x 0.05 / 5 = 0.6. PORV: sg_porv_manual 0.5 from shut
 * opens at 1 / stroke_s (20 s, pcsim/sg_porv.h): 40 x 0.05 / 20 = 0.1. */
static void a_command_by_the_valves_name_moves_its_row(void)
{
    fixture f;
    build(&f, ONE_UNIT "]}");
    check_unit_valves(&f, 1, 2);
    pcs_entity_info msiv = entity(&f, "u1.msiv2"), porv = entity(&f, "u1.porv1"),
                    other = entity(&f, "u1.msiv1");
    cr_assert_eq(row_value(&f, &msiv), 1.0, "open at power");
    cr_assert_eq(row_value(&f, &porv), 0.0, "shut at power");
    command(&f, "u1.msiv2", "msiv_close", 0.0);
    command(&f, "u1.porv1", "sg_porv_manual", 0.5);
    ticks(&f, 40);
    cr_assert_float_eq(row_value(&f, &msiv), 0.6, 1e-12, "%.17g", row_value(&f, &msiv));
    cr_assert_float_eq(row_value(&f, &porv), 0.1, 1e-12, "%.17g", row_value(&f, &porv));
    cr_assert_eq(row_value(&f, &other), 1.0, "u1.msiv1 not commanded");
    check_unit_valves(&f, 1, 2);
    release(&f);
}

/* unit_add: the added unit's valves exist after the add's tick, owned by
 * it, in the order a unit of the start has (u1: id 1 unit, 2-3 pumps, 4-5
 * MSIVs, 6-7 PORVs, 8 dump), and their rows read its channels. */
static void an_added_unit_gets_its_valves_in_a_start_units_order(void)
{
    fixture f;
    build(&f, ONE_UNIT LATER_UNIT "]}");
    pcs_entity_handle h;
    cr_assert_eq(pcs_entity_find(f.w, "u2.msiv1", &h), PCS_E_NOTFOUND, "not before the add");
    uint32_t before = pcs_entity_count(f.w);
    ticks(&f, 2);
    command(&f, "u2", "unit_add", 0.0);
    ticks(&f, 1);
    cr_assert_eq(pcs_entity_count(f.w), 2 * before, "u2 has as many devices as u1");
    static const char *const order[] = {"",       ".pump1", ".pump2", ".msiv1",
                                        ".msiv2", ".porv1", ".porv2", ".dumpctl"};
    uint64_t u1 = entity(&f, "u1").id, u2 = entity(&f, "u2").id;
    for (uint64_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "u1%s", order[i]);
        snprintf(b, sizeof b, "u2%s", order[i]);
        cr_assert_eq(entity(&f, a).id, u1 + i, "%s", a);
        cr_assert_eq(entity(&f, b).id, u2 + i, "%s", b);
    }
    check_unit_valves(&f, 2, 2);
    ticks(&f, 20);
    check_unit_valves(&f, 2, 2);
    release(&f);
}

/* Pumps are not valves: pump_remove destroys the pump's entity and leaves
 * every valve's as it was. */
static void pump_remove_still_works_beside_the_valves(void)
{
    fixture f;
    build(&f, ONE_UNIT "]}");
    uint32_t n = pcs_entity_count(f.w);
    pcs_entity_handle pump, dump;
    cr_assert_eq(pcs_entity_find(f.w, "u1.pump2", &pump), PCS_OK);
    cr_assert_eq(pcs_entity_find(f.w, "u1.dumpctl", &dump), PCS_OK);
    command(&f, "u1.pump2", "pump_remove", 0.0);
    ticks(&f, 1);
    cr_assert_eq(pcs_entity_check(f.w, pump), PCS_E_NOTFOUND, "the pump's handle is stale");
    cr_assert_eq(pcs_entity_count(f.w), n - 1);
    cr_assert_eq(pcs_entity_check(f.w, dump), PCS_OK, "%s", pcs_last_error());
    check_unit_valves(&f, 1, 2);
    cr_assert_eq(count_kind(&f, PCS_STATION_ENTITY_PUMP), 1);
    release(&f);
}

/* A host table where a valve's name is taken: pcs_station_add fails naming
 * the valve and the entity holding it. */
static void a_valve_name_the_host_took_is_refused_naming_it(void)
{
    const char *doc = ONE_UNIT "]}";
    pcs_scenario *scn;
    cr_assert_eq(pcs_scenario_load_string("ent.json", doc, strlen(doc), NULL, &scn), PCS_OK);
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cfg.workers = 0;
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_entity_table_def td = pcs_entity_table_default();
    cr_assert_eq(pcs_entity_table_add(w, &td), PCS_OK);
    pcs_entity_def d = pcs_entity_default();
    d.name = "u1.porv2";
    cr_assert_eq(pcs_entity_create(w, &d, NULL), PCS_OK);
    pcs_station *st = NULL;
    cr_assert_eq(pcs_station_add(w, scn, &st), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "ent.json: station entities: pcs_entity_create: name "
                                       "'u1.porv2' is taken by entity 1 (index 0, generation 1)");
    pcs_world_destroy(w);
    pcs_scenario_destroy(scn);
}

/* A unit with boundary SGs (the default sg_model) has no MSIV, PORV or
 * steam dump target, so no valve entity: unit 1 + pumps 2, and no name of
 * a valve resolves. */
static void a_boundary_sg_unit_has_no_valve_entities(void)
{
    fixture f;
    build(&f, "{\"schema\": 1, \"units\": [{\"name\": \"u1\", \"loops\": 2}]}");
    cr_assert_eq(count_kind(&f, PCS_STATION_ENTITY_VALVE), 0);
    cr_assert_eq(count_kind(&f, PCS_STATION_ENTITY_UNIT), 1);
    cr_assert_eq(count_kind(&f, PCS_STATION_ENTITY_PUMP), 2);
    pcs_entity_handle h;
    cr_assert_eq(pcs_entity_find(f.w, "u1.msiv1", &h), PCS_E_NOTFOUND);
    cr_assert_eq(pcs_entity_find(f.w, "u1.dumpctl", &h), PCS_E_NOTFOUND);
    cr_assert_eq(entity(&f, "u1.pump2").id, 3, "the pumps follow the unit, as before");
    release(&f);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* The default scenario's entities: counts per kind, valve order, lookup by name with owner and row,
 * a command by name; a boundary-SG unit has none. */
Test(station_entities, the_default_scenarios_valve_entities)
{
    /* One build of the 4-unit default scenario serves the first three: the
     * count and the order are read before the first tick, as they were,
     * and the valve check ticks last. */
    fixture f;
    build(&f, NULL);
    default_scenario_count_per_kind_matches_the_hand_count(&f);
    a_units_valves_follow_its_pumps_in_order(&f);
    every_default_valve_is_found_with_owner_and_position_row(&f);
    release(&f);
    a_command_by_the_valves_name_moves_its_row();
    a_boundary_sg_unit_has_no_valve_entities();
}

/* An added unit's valves, pump removal beside the valves, and a host-taken valve name. */
Test(station_entities, valves_of_added_units_pump_removal_and_name_clashes)
{
    an_added_unit_gets_its_valves_in_a_start_units_order();
    pump_remove_still_works_beside_the_valves();
    a_valve_name_the_host_took_is_refused_naming_it();
}
