/**
 * @file test_structure_crafted.c
 * @brief Crafted saves of a station with a reactor coolant pump removed
 *        (issue 19): a save whose structure log and stores disagree about
 *        a pump must be refused, naming the store, element and the pump.
 *
 * The pump's removal lives in two places of a save: the structure log (the
 * engine re-applies it first: target and channel unpublished) and the
 * primary's STATE store u1.pri.pump_on (-1 for a removed pump). Before the
 * check, a save with a pump_on edited to -1 (checksums resealed, as anyone
 * can) loaded: the physics had the pump out while its target and channel
 * stayed published, and the next pump_install failed its tick
 * ("pcs_command_target_register: target 'u1.pump2' already takes family
 * 'primary'"); edited to 0 after a logged removal, the pump ran in the
 * loop with no target to trip it. One single-loop unit per station: the
 * cheapest station with a pump.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/primary.h"
#include "pcsim/station.h"
#include "pcsim/structure.h"
#include "tests/save_craft.h"

static const char one_loop[] = "{\"schema\": 1, \"world\": {\"workers\": 0}, \"units\": "
                               "[{\"name\": \"u1\", \"loops\": 2}]}";

typedef struct fixture {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
} fixture;

static void fx_make(fixture *f)
{
    cr_assert_eq(
        pcs_scenario_load_string("crafted.json", one_loop, strlen(one_loop), NULL, &f->scn), PCS_OK,
        "%s", pcs_last_error());
    pcs_world_def cfg = pcs_scenario_world_def(f->scn);
    cr_assert_eq(pcs_world_create(&cfg, &f->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(f->w, f->scn, &f->st), PCS_OK, "%s", pcs_last_error());
}

static void fx_free(fixture *f)
{
    pcs_station_destroy(f->st);
    pcs_world_destroy(f->w);
    pcs_scenario_destroy(f->scn);
}

static void tick(fixture *f, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(f->w), PCS_OK, "%s", pcs_last_error());
}

static void submit(fixture *f, const char *target, const char *command)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(f->st, target, command, 0.0, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_submit(f->w, &c), PCS_OK, "%s", pcs_last_error());
}

/* Save @p a, set u1.pri.pump_on[1] (pump 2) to @p on (and its speed to 0,
 * as a removed pump's must be), reseal, and load into a fresh station: the
 * load must be refused with @p want in the message, leaving it unchanged. */
static void refused(fixture *a, double on, const char *want)
{
    char path[] = "/tmp/pcsim-structure-crafted-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(pcs_world_save(a->w, path), PCS_OK, "%s", pcs_last_error());
    size_t len = 0;
    unsigned char *img = save_craft_read(path, &len);
    cr_assert_not_null(img);
    double zero = 0.0;
    cr_assert(save_craft_patch(img, len, "store:u1.pri.pump_on", sizeof(double), &on, sizeof on));
    cr_assert(
        save_craft_patch(img, len, "store:u1.pri.pump_speed", sizeof(double), &zero, sizeof zero));
    cr_assert(save_craft_write(path, img, len));
    free(img);
    fixture b;
    fx_make(&b);
    uint64_t before = pcs_world_state_hash(b.w);
    cr_expect_eq(pcs_world_load(b.w, path), PCS_E_CORRUPT, "loaded: %s", pcs_last_error());
    cr_expect(strstr(pcs_last_error(), want) != NULL, "%s", pcs_last_error());
    unlink(path);
    /* A save with a structure log changes the world before its store checks
     * (the log is re-applied first): the world is then marked unusable and
     * refuses to tick (persist.h); without one it is unchanged. */
    if (pcs_structure_log_count(a->w) == 0)
        cr_expect_eq(pcs_world_state_hash(b.w), before, "the refused load changed the world");
    else
        cr_expect_eq(pcs_world_tick(b.w), PCS_E_STATE, "a half-changed world ticked");
    fx_free(&b);
}

static void pump_on_removed_without_a_logged_removal_is_refused(void)
{
    fixture a;
    fx_make(&a);
    tick(&a, 2);
    refused(&a, PCS_PRIMARY_PUMP_REMOVED,
            "store 'u1.pri.pump_on' element 1 (pump state): value -1 (removed), but the save's "
            "structure leaves u1.pump2 installed");
    fx_free(&a);
}

static void pump_on_installed_after_a_logged_removal_is_refused(void)
{
    fixture a;
    fx_make(&a);
    tick(&a, 2);
    submit(&a, "u1.pump2", "pump_remove");
    tick(&a, 2);
    refused(&a, 0.0,
            "store 'u1.pri.pump_on' element 1 (pump state): value 0 (installed), but the save's "
            "structure leaves u1.pump2 removed");
    fx_free(&a);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* A saved pump_on that contradicts the structure log (removed, or installed after a logged removal)
 * is refused. */
Test(structure_crafted, pump_on_against_the_log_is_refused)
{
    pump_on_removed_without_a_logged_removal_is_refused();
    pump_on_installed_after_a_logged_removal_is_refused();
}
