/**
 * @file test_events_rejected.c
 * @brief A rejected command leaves no trace in the simulation's state: the
 *        host is told (the event callback sees PCS_EV_COMMAND_REJECTED), but
 *        the completed tick's event list, which is hashed and saved as the
 *        next tick's "previous events", drops it, because a journal replay
 *        resubmits only accepted commands and could not reproduce it (the
 *        property test accepted_commands_replay_to_the_same_hash found the
 *        difference, seed 14773696182149852636).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"

typedef struct seen {
    uint32_t rejected;
} seen;

static void on_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    seen *s = ctx;
    for (uint32_t i = 0; i < n; i++)
        s->rejected += ev[i].kind == PCS_EV_COMMAND_REJECTED;
}

static pcs_world *station(pcs_station **st, pcs_scenario **scn, seen *s)
{
    static const char json[] = "{\"schema\": 1, \"world\": {\"workers\": 0}, "
                               "\"units\": [{\"name\": \"u1\"}]}";
    cr_assert_eq(pcs_scenario_load_string("rejected.json", json, strlen(json), NULL, scn), PCS_OK,
                 "%s", pcs_last_error());
    pcs_world_def d = pcs_scenario_world_def(*scn);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&d, &w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(w, *scn, st), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_set_event_callback(w, on_events, s), PCS_OK);
    return w;
}

Test(events_rejected, a_rejected_command_is_told_to_the_host_and_not_hashed)
{
    seen sa = {0}, sb = {0};
    pcs_station *a_st, *b_st;
    pcs_scenario *a_scn, *b_scn;
    pcs_world *a = station(&a_st, &a_scn, &sa), *b = station(&b_st, &b_scn, &sb);
    /* More heater power than the heaters have: the controller's handler
     * refuses it at stage 1 of the next tick (the station's own validation
     * is bypassed by building the command by kind). */
    pcs_command c;
    cr_assert_eq(pcs_station_command(a_st, "u1", "pzr_heaters", 1.0e6, &c), PCS_OK, "%s",
                 pcs_last_error());
    c.args[0] = 5.0e6;
    cr_assert_eq(pcs_world_tick(a), PCS_OK);
    cr_assert_eq(pcs_world_tick(b), PCS_OK);
    cr_assert_eq(pcs_command_submit(a, &c), PCS_OK, "%s", pcs_last_error());
    for (int t = 0; t < 3; t++) {
        cr_assert_eq(pcs_world_tick(a), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_tick(b), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_world_state_hash(a), pcs_world_state_hash(b), "tick %d", t);
        if (t == 0) { /* the host's list of that tick has it; the simulation's copy not */
            uint32_t n = 0, seen_host = 0, seen_sim = 0;
            const pcs_event *ev = pcs_world_events(a, &n);
            for (uint32_t i = 0; i < n; i++)
                seen_host += ev[i].kind == PCS_EV_COMMAND_REJECTED;
            ev = pcs_world_events_previous(a, &n);
            for (uint32_t i = 0; i < n; i++)
                seen_sim += ev[i].kind == PCS_EV_COMMAND_REJECTED;
            cr_expect_eq(seen_host, 1u, "pcs_world_events");
            cr_expect_eq(seen_sim, 0u, "pcs_world_events_previous");
        }
    }
    cr_expect_eq(sa.rejected, 1u, "the host was told of the rejection");
    cr_expect_eq(sb.rejected, 0u);
    pcs_station_destroy(a_st);
    pcs_station_destroy(b_st);
    pcs_world_destroy(a);
    pcs_world_destroy(b);
    pcs_scenario_destroy(a_scn);
    pcs_scenario_destroy(b_scn);
}
