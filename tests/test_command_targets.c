/**
 * @file test_command_targets.c
 * @brief Engine-owned command targets: kind families allocated by the engine,
 *        targets resolved by name once and submitted by id, ids checked at
 *        stage 1 (stale generation, kind outside the target's family), the
 *        station's script resolved by name, and no allocation per tick.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/station.h"
#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"

/* What the family handler saw. */
typedef struct seen {
    uint32_t calls;
    void *ctx;
    uint32_t element, op;
    char name[64];
    double arg;
} seen;

static pcs_status on_call(pcs_world *w, const pcs_command_call *call);

/* A handler other than on_call (the shared-family test's mismatch). */
static pcs_status on_plain_call(pcs_world *w, const pcs_command_call *call)
{
    (void)w;
    (void)call;
    return PCS_OK;
}

static pcs_status on_call(pcs_world *w, const pcs_command_call *call)
{
    (void)w;
    seen *s = call->ctx;
    s->calls++;
    s->ctx = call->ctx;
    s->element = call->element;
    s->op = call->op;
    snprintf(s->name, sizeof s->name, "%s", call->target_name);
    s->arg = call->cmd->args[0];
    return PCS_OK;
}

static pcs_world *make_world(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    return w;
}

static pcs_command cmd_for(uint32_t kind, pcs_target_id id, double arg)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.target = pcs_target_id_store(id);
    c.args[0] = arg;
    return c;
}

static uint64_t rejected(const pcs_world *w)
{
    pcs_command_stats st;
    cr_assert_eq(pcs_command_stats_get(w, &st), PCS_OK);
    return st.rejected;
}

Test(command_targets, register_find_and_submit_by_id)
{
    pcs_world *w = make_world();
    seen s = {0};
    uint32_t first = 0;
    cr_assert_eq(pcs_command_family_register(w, "pumps", 2, on_call, &first), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(first, 1u, "the first family of an empty world starts at kind 1");
    pcs_target_id reg;
    pcs_command_target_def d = {.name = "u1.pump2", .family = first, .ctx = &s, .element = 1};
    cr_assert_eq(pcs_command_target_register(w, &d, &reg), PCS_OK, "%s", pcs_last_error());
    pcs_target_id id;
    cr_assert_eq(pcs_command_target_find(w, "u1.pump2", &id), PCS_OK);
    cr_assert_eq(id.index, reg.index);
    cr_assert_eq(id.generation, 1u, "generation 0 is never issued");
    cr_assert_str_eq(pcs_command_target_name(w, id), "u1.pump2");
    uint32_t kind = 0;
    cr_assert_eq(pcs_command_kind_find(w, "pumps", 1, &kind), PCS_OK);
    cr_assert_eq(kind, first + 1);
    pcs_command c = cmd_for(kind, id, 0.75);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(s.calls, 1u);
    cr_assert_eq(s.ctx, &s);
    cr_assert_eq(s.element, 1u);
    cr_assert_eq(s.op, 1u, "op = kind - the family's first kind");
    cr_assert_str_eq(s.name, "u1.pump2");
    cr_assert_eq(s.arg, 0.75);
    pcs_command j;
    uint64_t cursor = 0;
    cr_assert_eq(pcs_journal_read(w, &cursor, &j, 1, NULL), 1u);
    cr_assert_eq(j.target, pcs_target_id_store(id), "the journal keeps the resolved id");
    cr_assert_eq(j.kind, kind);
    pcs_world_destroy(w);
}

Test(command_targets, stored_id_round_trips)
{
    pcs_target_id id = {PCS_TARGET_MAX, PCS_TARGET_GENERATION_MAX};
    uint32_t v = pcs_target_id_store(id);
    cr_assert_eq(v, 0xFFFFFFFFu);
    pcs_target_id back = pcs_target_id_load(v);
    cr_assert_eq(back.index, PCS_TARGET_MAX);
    cr_assert_eq(back.generation, PCS_TARGET_GENERATION_MAX);
    back = pcs_target_id_load(pcs_target_id_store((pcs_target_id){5, 3}));
    cr_assert_eq(back.index, 5u);
    cr_assert_eq(back.generation, 3u);
    cr_assert_eq(sizeof(pcs_command), 64u, "a command stays 64 bytes");
}

Test(command_targets, unknown_name_is_notfound_naming_it)
{
    pcs_world *w = make_world();
    pcs_target_id id;
    cr_assert_eq(pcs_command_target_find(w, "u9.pump1", &id), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "no command target named 'u9.pump1'");
    uint32_t kind;
    cr_assert_eq(pcs_command_kind_find(w, "hydraulics", 0, &kind), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(), "no command family named 'hydraulics'");
    pcs_world_destroy(w);
}

/* A model built once per unit shares its family: the first call registers
 * it, the second returns the same first kind and leaves no error message; a
 * second model asking for the name with another kind count or handler is
 * refused naming the family. */
Test(command_targets, a_shared_family_is_registered_once_and_must_match)
{
    pcs_world *w = make_world();
    uint32_t a = 0, b = 0, c = 0;
    cr_assert_eq(pcs_command_family_share(w, "pumps", 2, on_call, &a), PCS_OK, "%s",
                 pcs_last_error());
    pcs_error_clear();
    cr_assert_eq(pcs_command_family_share(w, "pumps", 2, on_call, &b), PCS_OK, "%s",
                 pcs_last_error());
    cr_expect_eq(a, b);
    cr_expect_str_eq(pcs_last_error(), "");
    cr_assert_eq(pcs_command_family_share(w, "pumps", 3, on_call, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "'pumps' is registered with 2 kinds"), "%s",
              pcs_last_error());
    cr_assert_eq(pcs_command_family_share(w, "pumps", 2, on_plain_call, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "another handler"), "%s", pcs_last_error());
    pcs_world_destroy(w);
}

Test(command_targets, null_and_unknown_ids_are_refused_at_apply)
{
    pcs_world *w = make_world();
    seen s = {0};
    uint32_t first;
    cr_assert_eq(pcs_command_family_register(w, "f", 1, on_call, &first), PCS_OK);
    pcs_target_id id;
    pcs_command_target_def d = {.name = "t", .family = first, .ctx = &s};
    cr_assert_eq(pcs_command_target_register(w, &d, &id), PCS_OK);
    pcs_target_id null_id = {0, 0}, past = {7, 1};
    cr_assert_eq(pcs_command_target_check(w, null_id, first), PCS_E_NOTFOUND);
    cr_assert_eq(pcs_command_target_check(w, past, first), PCS_E_NOTFOUND);
    cr_assert_str_eq(pcs_last_error(),
                     "command kind 1: target id (index 7, generation 1) is unknown or stale");
    pcs_command c = cmd_for(first, null_id, 0);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    c = cmd_for(first, past, 0);
    cr_assert_eq(pcs_command_submit(w, &c), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(s.calls, 0u, "a handler never sees an unknown id");
    cr_assert_eq(rejected(w), 2u);
    pcs_world_destroy(w);
}

Test(command_targets, stale_generation_is_refused)
{
    pcs_world *w = make_world();
    seen a = {0}, b = {0};
    uint32_t first;
    cr_assert_eq(pcs_command_family_register(w, "f", 1, on_call, &first), PCS_OK);
    pcs_target_id old, fresh;
    pcs_command_target_def d = {.name = "old", .family = first, .ctx = &a};
    cr_assert_eq(pcs_command_target_register(w, &d, &old), PCS_OK);
    cr_assert_eq(pcs_command_target_remove(w, old), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_command_target_count(w), 0u);
    cr_assert_eq(pcs_command_target_find(w, "old", &fresh), PCS_E_NOTFOUND);
    d = (pcs_command_target_def){.name = "new", .family = first, .ctx = &b};
    cr_assert_eq(pcs_command_target_register(w, &d, &fresh), PCS_OK);
    cr_assert_eq(fresh.index, old.index, "the removed slot is reused");
    cr_assert_eq(fresh.generation, old.generation + 1, "with the next generation");
    cr_assert_null(pcs_command_target_name(w, old));
    cr_assert_eq(pcs_command_target_check(w, old, first), PCS_E_NOTFOUND);
    cr_assert_eq(pcs_command_target_remove(w, old), PCS_E_NOTFOUND);
    pcs_command stale = cmd_for(first, old, 1.0), live = cmd_for(first, fresh, 2.0);
    cr_assert_eq(pcs_command_submit(w, &stale), PCS_OK);
    cr_assert_eq(pcs_command_submit(w, &live), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(a.calls + b.calls, 1u, "the stale id never reaches the slot's new target");
    cr_assert_eq(b.calls, 1u);
    cr_assert_eq(b.arg, 2.0);
    cr_assert_eq(rejected(w), 1u);
    pcs_world_destroy(w);
}

Test(command_targets, kind_outside_the_targets_family_or_ops_is_refused)
{
    pcs_world *w = make_world();
    seen s = {0};
    uint32_t fa, fb;
    cr_assert_eq(pcs_command_family_register(w, "a", 3, on_call, &fa), PCS_OK);
    cr_assert_eq(pcs_command_family_register(w, "b", 1, on_call, &fb), PCS_OK);
    pcs_target_id id;
    pcs_command_target_def d = {.name = "u1.x", .family = fa, .ctx = &s, .ops = 1u << 2};
    cr_assert_eq(pcs_command_target_register(w, &d, &id), PCS_OK);
    cr_assert_eq(pcs_command_target_check(w, id, fa + 2), PCS_OK);
    cr_assert_eq(pcs_command_target_check(w, id, fb), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "command kind 4 (family 'b', op 0) is not one target 'u1.x' takes");
    cr_assert_eq(pcs_command_target_check(w, id, fa), PCS_E_INVAL, "op 0 is not in its ops");
    cr_assert_eq(pcs_command_target_check(w, id, 200), PCS_E_INVAL, "kind of no family");
    pcs_command wrong_family = cmd_for(fb, id, 0), wrong_op = cmd_for(fa, id, 0);
    cr_assert_eq(pcs_command_submit(w, &wrong_family), PCS_OK);
    cr_assert_eq(pcs_command_submit(w, &wrong_op), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(s.calls, 0u);
    cr_assert_eq(rejected(w), 2u);
    d.ops = 1u << 3; /* family a has 3 kinds */
    d.name = "u1.y";
    cr_assert_eq(pcs_command_target_register(w, &d, NULL), PCS_E_STATE, "sealed by the tick");
    pcs_world_destroy(w);
}

Test(command_targets, one_name_binds_one_context_per_family)
{
    pcs_world *w = make_world();
    seen unit = {0}, hyd = {0};
    uint32_t fu, fh;
    cr_assert_eq(pcs_command_family_register(w, "units", 2, on_call, &fu), PCS_OK);
    cr_assert_eq(pcs_command_family_register(w, "hyd", 2, on_call, &fh), PCS_OK);
    pcs_target_id a, b;
    pcs_command_target_def d = {.name = "u1", .family = fu, .ctx = &unit, .element = 4};
    cr_assert_eq(pcs_command_target_register(w, &d, &a), PCS_OK);
    d = (pcs_command_target_def){.name = "u1", .family = fh, .ctx = &hyd, .element = 9};
    cr_assert_eq(pcs_command_target_register(w, &d, &b), PCS_OK);
    cr_assert_eq(a.index, b.index, "one name, one id");
    cr_assert_eq(pcs_command_target_register(w, &d, NULL), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_command_target_register: target 'u1' already takes family 'hyd'");
    d.ops = 1u << 2;
    d.name = "u2";
    cr_assert_eq(pcs_command_target_register(w, &d, NULL), PCS_E_INVAL, "op 2 of a 2-kind family");
    d = (pcs_command_target_def){.name = "u2", .family = fu + 1, .ctx = &hyd};
    cr_assert_eq(pcs_command_target_register(w, &d, NULL), PCS_E_INVAL, "not a first kind");
    d.name = "bad..name";
    d.family = fu;
    cr_assert_eq(pcs_command_target_register(w, &d, NULL), PCS_E_INVAL);
    pcs_command cu = cmd_for(fu + 1, a, 0), ch = cmd_for(fh, a, 0);
    cr_assert_eq(pcs_command_submit(w, &cu), PCS_OK);
    cr_assert_eq(pcs_command_submit(w, &ch), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    cr_assert_eq(unit.calls, 1u);
    cr_assert_eq(unit.element, 4u);
    cr_assert_eq(unit.op, 1u);
    cr_assert_eq(hyd.calls, 1u);
    cr_assert_eq(hyd.element, 9u);
    cr_assert_eq(hyd.op, 0u);
    pcs_world_destroy(w);
}

static pcs_status on_plain(pcs_world *w, void *ctx, const pcs_command *cmd)
{
    (void)w;
    (void)ctx;
    (void)cmd;
    return PCS_OK;
}

Test(command_targets, families_get_disjoint_runs_around_plain_kinds)
{
    pcs_world *w = make_world();
    cr_assert_eq(pcs_command_handler_register(w, 3, on_plain, NULL), PCS_OK);
    uint32_t a, b, c, n;
    cr_assert_eq(pcs_command_family_register(w, "a", 2, on_call, &a), PCS_OK);
    cr_assert_eq(pcs_command_family_register(w, "b", 4, on_call, &b), PCS_OK);
    cr_assert_eq(pcs_command_family_register(w, "c", 1, on_call, &c), PCS_OK);
    cr_assert_eq(a, 1u, "kinds 1..2");
    cr_assert_eq(b, 4u, "kinds 4..7: kind 3 has a plain handler");
    cr_assert_eq(c, 8u);
    cr_assert_eq(pcs_command_family_find(w, "b", &b, &n), PCS_OK);
    cr_assert_eq(n, 4u);
    cr_assert_eq(pcs_command_handler_register(w, 5, on_plain, NULL), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_command_handler_register: kind 5 belongs to command family 'b'");
    cr_assert_eq(pcs_command_family_register(w, "a", 1, on_call, &n), PCS_E_INVAL, "name taken");
    cr_assert_eq(pcs_command_family_register(w, "d", 65, on_call, &n), PCS_E_INVAL);
    cr_assert_eq(pcs_command_family_register(w, "d", 0, on_call, &n), PCS_E_INVAL);
    /* 255 kinds: 8 taken, 247 left; three families of 64 fit, a fourth does not. */
    cr_assert_eq(pcs_command_family_register(w, "e1", 64, on_call, &n), PCS_OK);
    cr_assert_eq(n, 9u);
    cr_assert_eq(pcs_command_family_register(w, "e2", 64, on_call, &n), PCS_OK);
    cr_assert_eq(pcs_command_family_register(w, "e3", 64, on_call, &n), PCS_OK);
    cr_assert_eq(n, 137u);
    cr_assert_eq(pcs_command_family_register(w, "e4", 64, on_call, &n), PCS_E_OVERFLOW);
    cr_assert_eq(pcs_command_family_register(w, "e5", 55, on_call, &n), PCS_OK, "201..255");
    cr_assert_eq(n, 201u);
    pcs_world_destroy(w);
}

Test(command_targets, many_targets_grow_from_the_world_heap_and_resolve)
{
    pcs_world *w = make_world();
    seen s = {0};
    uint32_t f;
    cr_assert_eq(pcs_command_family_register(w, "sensors", 1, on_call, &f), PCS_OK);
    char name[32];
    for (uint32_t i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "s%u.flow", i);
        pcs_command_target_def d = {.name = name, .family = f, .ctx = &s, .element = i};
        pcs_target_id id;
        cr_assert_eq(pcs_command_target_register(w, &d, &id), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(id.index, i, "slots in registration order");
    }
    cr_assert_eq(pcs_command_target_count(w), 5000u);
    for (uint32_t i = 0; i < 5000; i += 499) {
        snprintf(name, sizeof name, "s%u.flow", i);
        pcs_target_id id;
        cr_assert_eq(pcs_command_target_find(w, name, &id), PCS_OK);
        cr_assert_eq(id.index, i);
    }
    pcs_world_destroy(w);
}

Test(command_targets, submit_and_apply_allocate_nothing_per_tick)
{
    pcs_world *w = make_world();
    seen s = {0};
    uint32_t f;
    cr_assert_eq(pcs_command_family_register(w, "f", 2, on_call, &f), PCS_OK);
    pcs_target_id id;
    pcs_command_target_def d = {.name = "u1.pump1", .family = f, .ctx = &s};
    cr_assert_eq(pcs_command_target_register(w, &d, &id), PCS_OK);
    cr_assert_eq(pcs_world_tick(w), PCS_OK); /* seal outside the count */
    uint64_t heap = pcs_world_alloc_count(w);
    pcs_command good = cmd_for(f + 1, id, 1.0), stale = cmd_for(f, (pcs_target_id){id.index, 9}, 0);
    pcs_test_alloc_begin();
    for (int t = 0; t < 100; t++) {
        cr_assert_eq(pcs_command_submit(w, &good), PCS_OK);
        cr_assert_eq(pcs_command_submit(w, &stale), PCS_OK);
        cr_assert_eq(pcs_world_tick(w), PCS_OK);
    }
    uint64_t mallocs = pcs_test_alloc_end();
    cr_assert_eq(s.calls, 100u);
    cr_assert_eq(pcs_world_alloc_count(w), heap, "no world-heap allocation per tick");
    cr_assert_eq(mallocs, 0u, "no malloc per tick (counted under ASan)");
    pcs_world_destroy(w);
}

/* The station of scenarios/pwr-station.json as `pcsim run` builds it. */
typedef struct built {
    pcs_scenario *scn;
    pcs_world *world;
    pcs_station *st;
} built;

static void station(built *h)
{
    cr_assert_eq(pcs_scenario_load_file("scenarios/pwr-station.json", NULL, &h->scn), PCS_OK, "%s",
                 pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(h->scn);
    cr_assert_eq(pcs_world_create(&cfg, &h->world), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(h->world, h->scn, &h->st), PCS_OK, "%s", pcs_last_error());
}

Test(command_targets, default_station_resolves_every_script_target_by_name)
{
    built a, b;
    station(&a);
    station(&b);
    cr_assert_geq(pcs_scenario_action_count(a.scn), 5);
    for (uint32_t i = 0; i < pcs_scenario_action_count(a.scn); i++) {
        const pcs_scenario_action *act = pcs_scenario_action_get(a.scn, i);
        pcs_target_id id, again;
        cr_assert_eq(pcs_command_target_find(a.world, act->target, &id), PCS_OK, "%s",
                     pcs_last_error());
        pcs_command cmd;
        cr_assert_eq(pcs_station_script_command(a.st, a.scn, i, &cmd), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(cmd.target, pcs_target_id_store(id), "%s: the host submits the found id",
                     act->target);
        cr_assert_eq(pcs_command_target_check(a.world, id, cmd.kind), PCS_OK, "%s",
                     pcs_last_error());
        /* Ids and kinds follow registration order: a second build of the same
         * scenario resolves the same (a journal replays on it). */
        pcs_command cmd_b;
        cr_assert_eq(pcs_station_script_command(b.st, b.scn, i, &cmd_b), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(pcs_command_target_find(b.world, act->target, &again), PCS_OK);
        cr_assert_eq(again.index, id.index);
        cr_assert_eq(again.generation, id.generation);
        cr_assert_eq(cmd_b.kind, cmd.kind);
        /* By name, as an embedding host resolves: the same command. */
        pcs_command by_name;
        cr_assert_eq(pcs_station_command(a.st, act->target, act->command, act->value, &by_name),
                     PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(by_name.kind, cmd.kind);
        cr_assert_eq(by_name.target, cmd.target);
        cr_assert_eq(by_name.args[0], cmd.args[0]);
    }
    /* The script's five targets, each with the family that acts on it. */
    static const struct {
        const char *target, *family;
        uint32_t op;
    } want[] = {
        {"u1.D", PCS_UNIT_COMMANDS, PCS_UNIT_OP_ROD_POSITION},
        {"u2.pump2", PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_PUMP_TRIP},
        {"u2.alarm.flow_low.2", PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK},
        {"u3", PCS_PLANT_COMMANDS, PCS_PLANT_OP_SG_PRESSURE},
        {"u1", PCS_UNIT_COMMANDS, PCS_UNIT_OP_SCRAM},
        {"u1", PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_RESET},
        {"u1", PCS_ALARM_COMMANDS, PCS_ALARM_OP_ACK_ALL},
        {"u1.rps.high_flux", PCS_PROTECTION_TRIP_COMMANDS, PCS_PROTECTION_TRIP_OP_BYPASS},
        {"u1.loop1.flow.B", PCS_SENSOR_COMMANDS, PCS_SENSOR_OP_FAIL_LOW},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pcs_target_id id;
        uint32_t kind;
        cr_assert_eq(pcs_command_target_find(a.world, want[i].target, &id), PCS_OK);
        cr_assert_eq(pcs_command_kind_find(a.world, want[i].family, want[i].op, &kind), PCS_OK);
        cr_assert_eq(pcs_command_target_check(a.world, id, kind), PCS_OK, "%s", pcs_last_error());
    }
    /* ...and a pump takes no unit command. */
    pcs_target_id pump;
    uint32_t scram;
    cr_assert_eq(pcs_command_target_find(a.world, "u2.pump2", &pump), PCS_OK);
    cr_assert_eq(pcs_command_kind_find(a.world, PCS_UNIT_COMMANDS, PCS_UNIT_OP_SCRAM, &scram),
                 PCS_OK);
    cr_assert_eq(pcs_command_target_check(a.world, pump, scram), PCS_E_INVAL);
    pcs_station_destroy(a.st);
    pcs_station_destroy(b.st);
    pcs_world_destroy(a.world);
    pcs_world_destroy(b.world);
    pcs_scenario_destroy(a.scn);
    pcs_scenario_destroy(b.scn);
}
