/**
 * @file test_persist_structure.c
 * @brief Loads that change a world's structure (issue 19; persist.h, "Loads
 *        that change the structure"): a save whose structure log extends
 *        the world's is refused by a world that has ticked, before anything
 *        changes; a fresh world refused after the replay refuses to tick,
 *        save or load again; every section's checksum and every log entry
 *        (the kinds' validate: target and unused args) is checked before
 *        the replay; the entities the build and the structural changes made
 *        must be in the save as made (entity.h).
 *
 * Station: u1 with two loops and u2 built later (unit_add), workers 0. The
 * save "removed" holds one logged change, pump_remove u1.pump2 applied at
 * tick 2, and is taken at tick 4.
 *
 * Its checks are static functions, run in groups by the Tests at the end of
 * the file, one process a group (issue 19's test cost); each group's comment
 * lists what it checks.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "pcsim/pcsim.h"
#include "pcsim/primary.h"
#include "pcsim/station.h"
#include "pcsim/structure.h"
#include "tests/save_craft.h"

static const char doc[] = "{\"schema\": 1, \"world\": {\"workers\": 0, \"seed\": 3}, \"units\": "
                          "[{\"name\": \"u1\", \"loops\": 2}, {\"name\": \"u2\", \"loops\": 2, "
                          "\"build\": \"later\"}]}";

typedef struct fixture {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
} fixture;

static void fx_make(fixture *f)
{
    cr_assert_eq(pcs_scenario_load_string("ps.json", doc, strlen(doc), NULL, &f->scn), PCS_OK, "%s",
                 pcs_last_error());
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

static void tmp(char *path, size_t n, const char *what)
{
    snprintf(path, n, "/tmp/pcsim-persist-structure-%s-%d.save", what, (int)getpid());
}

/* The station "removed" (left running in @p a, at tick 4) and its save at @p path. */
static void removed(fixture *a, const char *path)
{
    fx_make(a);
    tick(a, 2);
    submit(a, "u1.pump2", "pump_remove");
    tick(a, 2);
    cr_assert_eq(pcs_structure_log_count(a->w), 1);
    cr_assert_eq(pcs_world_save(a->w, path), PCS_OK, "%s", pcs_last_error());
}

/* The save at @p src with @p n bytes at @p at of @p section set to @p v
 * (checksums resealed) written to @p dst. */
static void craft(const char *src, const char *dst, const char *section, size_t at, const void *v,
                  size_t n)
{
    size_t len = 0;
    unsigned char *img = save_craft_read(src, &len);
    cr_assert_not_null(img);
    cr_assert(save_craft_patch(img, len, section, at, v, n), "patch %s at %zu", section, at);
    cr_assert(save_craft_write(dst, img, len));
    free(img);
}

/* ---- a world that has ticked ------------------------------------------------- */

static void a_world_that_ticked_refuses_an_extending_save_and_stays_as_it_was(void)
{
    char p[128];
    tmp(p, sizeof p, "live");
    fixture a, b, twin;
    removed(&a, p);
    fx_make(&b);
    fx_make(&twin);
    tick(&b, 3);
    tick(&twin, 3);
    cr_assert_eq(pcs_world_load(b.w, p), PCS_E_STATE);
    char want[1024];
    snprintf(want, sizeof want,
             "load '%s': the save has 1 structural changes this world lacks (its log has 1, this "
             "world's 0), and this world has ticked (tick 3): re-applying them here could not be "
             "undone if the save were then refused. Load into a freshly built world of the same "
             "scenario and seed, and swap it in on success (as `pcsim serve` and the Python "
             "Station.load do); this world is unchanged",
             p);
    cr_assert_str_eq(pcs_last_error(), want);
    cr_assert_eq(pcs_world_clock(b.w)->tick, 3);
    cr_assert_eq(pcs_structure_log_count(b.w), 0);
    cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(twin.w));
    pcs_target_id id;
    cr_assert_eq(pcs_command_target_find(b.w, "u1.pump2", &id), PCS_OK, "the pump is still in");
    for (int i = 0; i < 5; i++) {
        tick(&b, 1);
        tick(&twin, 1);
        cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(twin.w), "tick %d", i);
    }
    remove(p);
    fx_free(&twin);
    fx_free(&b);
    fx_free(&a);
}

/* A world that never ticked but took a load is not fresh: the load was
 * accepted, and a refusal after a replay would leave it unusable, losing
 * what it holds. So an extending save is refused before anything changes,
 * as by a world that has ticked (the bad save here is refused after the
 * replay by a fresh world: a_fresh_world_refused_after_the_replay_...). */
static void a_world_holding_a_load_refuses_an_extending_save_and_keeps_it(void)
{
    char p[128], q[128], e[128];
    tmp(p, sizeof p, "held-good");
    tmp(q, sizeof q, "held-bad");
    tmp(e, sizeof e, "held-plain");
    fixture a, b, twin, c;
    removed(&a, p);
    double zero = 0.0;
    craft(p, q, "store:u1.pri.pump_on", sizeof(double), &zero, sizeof zero);
    fx_make(&c);
    tick(&c, 1);
    cr_assert_eq(pcs_world_save(c.w, e), PCS_OK, "%s", pcs_last_error());
    fx_make(&b);
    fx_make(&twin);
    cr_assert_eq(pcs_world_load(b.w, e), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(twin.w, e), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_load(b.w, q), PCS_E_STATE, "%s", pcs_last_error());
    char want[1024];
    snprintf(want, sizeof want,
             "load '%s': the save has 1 structural changes this world lacks (its log has 1, this "
             "world's 0), and this world holds an accepted load (tick 1): re-applying them here "
             "could not be undone if the save were then refused. Load into a freshly built world "
             "of the same scenario and seed, and swap it in on success (as `pcsim serve` and the "
             "Python Station.load do); this world is unchanged",
             q);
    cr_assert_str_eq(pcs_last_error(), want);
    cr_assert_eq(pcs_structure_log_count(b.w), 0, "nothing re-applied");
    cr_assert_eq(pcs_world_clock(b.w)->tick, 1);
    cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(twin.w));
    for (int i = 0; i < 3; i++) {
        tick(&b, 1);
        tick(&twin, 1);
        cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(twin.w), "tick %d", i);
    }
    remove(p);
    remove(q);
    remove(e);
    fx_free(&c);
    fx_free(&twin);
    fx_free(&b);
    fx_free(&a);
}

/* ---- a fresh world ------------------------------------------------------------ */

static void a_fresh_world_loads_an_extending_save_and_runs_as_the_saved_one(void)
{
    char p[128];
    tmp(p, sizeof p, "good");
    fixture a, b;
    removed(&a, p);
    fx_make(&b);
    cr_assert_eq(pcs_world_load(b.w, p), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_structure_log_count(b.w), 1);
    cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w));
    for (int i = 0; i < 5; i++) {
        tick(&a, 1);
        tick(&b, 1);
        cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(a.w), "tick %d", i);
    }
    remove(p);
    fx_free(&b);
    fx_free(&a);
}

/* The store's load check refuses after the replay (pump_on 0 for a pump the
 * log removed): the world is half the save's and says so on every use. */
static void a_fresh_world_refused_after_the_replay_refuses_to_tick_save_or_load(void)
{
    char p[128], q[128], s[128];
    tmp(p, sizeof p, "half-good");
    tmp(q, sizeof q, "half-bad");
    tmp(s, sizeof s, "half-out");
    fixture a, b;
    removed(&a, p);
    double zero = 0.0;
    craft(p, q, "store:u1.pri.pump_on", sizeof(double), &zero, sizeof zero);
    fx_make(&b);
    cr_assert_eq(pcs_world_load(b.w, q), PCS_E_CORRUPT);
    char refused[1024];
    snprintf(refused, sizeof refused, "%s", pcs_last_error());
    cr_assert(strstr(refused, "store 'u1.pri.pump_on' element 1 (pump state): value 0 "
                              "(installed), but the save's structure leaves u1.pump2 removed"),
              "%s", refused);
    char why[2048];
    snprintf(why, sizeof why,
             "a load of '%s' re-applied 1 of the save's structural changes and was then refused "
             "(%s); this world's structure is half the save's: build a fresh world",
             q, refused);
    char want[2200];
    snprintf(want, sizeof want, "pcs_world_tick: %.500s", why);
    cr_assert_eq(pcs_world_tick(b.w), PCS_E_STATE);
    cr_assert_eq(strncmp(pcs_last_error(), want, 400), 0, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_clock(b.w)->tick, 0, "it did not run");
    cr_assert_eq(pcs_world_save(b.w, s), PCS_E_STATE);
    cr_assert(strstr(pcs_last_error(), "pcs_world_save: a load of '"), "%s", pcs_last_error());
    cr_assert_eq(access(s, F_OK), -1, "nothing written");
    cr_assert_eq(pcs_world_load(b.w, p), PCS_E_STATE, "not even the good save");
    cr_assert(strstr(pcs_last_error(), "pcs_world_load: a load of '"), "%s", pcs_last_error());
    remove(p);
    remove(q);
    fx_free(&b);
    fx_free(&a);
}

/* A replay that fails part way: pump_remove of u2's pump 1 passes the
 * kind's validate (u2 is a unit of the scenario; a log may add it first)
 * but its apply finds u2 not built. The world is unusable, not half run. */
static void a_replay_that_fails_leaves_the_fresh_world_unusable(void)
{
    char p[128], q[128];
    tmp(p, sizeof p, "replay-good");
    tmp(q, sizeof q, "replay-bad");
    fixture a, b;
    removed(&a, p);
    double u2 = 2.0, one = 1.0;
    craft(p, q, "structure:log", 8u + offsetof(pcs_command, args), &u2, sizeof u2);
    craft(q, q, "structure:log", 8u + offsetof(pcs_command, args) + sizeof(double), &one,
          sizeof one);
    fx_make(&b);
    cr_assert_neq(pcs_world_load(b.w, q), PCS_OK);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "load '%s': re-applying the save's structure log: ", q);
    cr_assert_eq(strncmp(pcs_last_error(), prefix, strlen(prefix)), 0, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), "no unit u2 (units u1..u1)"), "%s", pcs_last_error());
    cr_assert_eq(pcs_world_tick(b.w), PCS_E_STATE);
    char want[256];
    snprintf(want, sizeof want, "pcs_world_tick: a load of '%s' re-applied 1 of the save's", q);
    cr_assert_eq(strncmp(pcs_last_error(), want, strlen(want)), 0, "%s", pcs_last_error());
    remove(p);
    remove(q);
    fx_free(&b);
    fx_free(&a);
}

/* A damaged section or a trailing byte is found before the replay: the
 * fresh world is refused unchanged and runs on. */
static void a_bad_checksum_or_trailing_byte_is_refused_before_the_replay(void)
{
    char p[128], q[128];
    tmp(p, sizeof p, "sum-good");
    tmp(q, sizeof q, "sum-bad");
    fixture a, b, twin;
    removed(&a, p);
    size_t len = 0, off = 0, bytes = 0;
    unsigned char *img = save_craft_read(p, &len);
    cr_assert_not_null(img);
    cr_assert(save_craft_find(img, len, "store:u1.pri.pump_on", &off, &bytes));
    img[off] ^= 1; /* not resealed */
    cr_assert(save_craft_write(q, img, len));
    fx_make(&b);
    fx_make(&twin);
    char want[512];
    cr_assert_eq(pcs_world_load(b.w, q), PCS_E_CORRUPT);
    snprintf(want, sizeof want, "load '%s': section 'store:u1.pri.pump_on' checksum mismatch", q);
    cr_assert_str_eq(pcs_last_error(), want);
    img[off] ^= 1;
    unsigned char *longer = malloc(len + 1);
    cr_assert_not_null(longer);
    memcpy(longer, img, len);
    longer[len] = 0;
    cr_assert(save_craft_write(q, longer, len + 1));
    cr_assert_eq(pcs_world_load(b.w, q), PCS_E_CORRUPT);
    snprintf(want, sizeof want,
             "load '%s': 1 trailing bytes after the last section (file is %zu bytes, its sections "
             "end at %zu)",
             q, len + 1, len);
    cr_assert_str_eq(pcs_last_error(), want);
    cr_assert_eq(pcs_structure_log_count(b.w), 0, "nothing re-applied");
    tick(&b, 2);
    tick(&twin, 2);
    cr_assert_eq(pcs_world_state_hash(b.w), pcs_world_state_hash(twin.w));
    free(longer);
    free(img);
    remove(p);
    remove(q);
    fx_free(&twin);
    fx_free(&b);
    fx_free(&a);
}

/* ---- log entries -------------------------------------------------------------- */

/* Byte offsets in the log section: its 8-byte head, then pcs_command. */
#define LOG_AT(field) (8u + (size_t)offsetof(pcs_command, field))
#define ARG_AT(i) (LOG_AT(args) + (size_t)(i) * sizeof(double))

typedef struct entry_case {
    size_t at;
    double arg; /* for args; the target is a u32 */
    uint32_t target;
    const char *message; /* after "section 'structure:log': entry 0 (<kind>, tick T): " */
} entry_case;

/* Each case crafted into entry @p entry of @p src's log and loaded into a
 * fresh station: refused with the message, nothing re-applied (every entry is
 * checked before the first is applied), the world ticks. */
static void entries_refused_at(const char *src, uint32_t entry, const char *kind, uint64_t at_tick,
                               const entry_case *cases, size_t n)
{
    char q[128], want[1024];
    tmp(q, sizeof q, "entry");
    fixture b;
    fx_make(&b);
    size_t base = (size_t)entry * sizeof(pcs_command);
    for (size_t i = 0; i < n; i++) {
        if (cases[i].at == LOG_AT(target))
            craft(src, q, "structure:log", base + cases[i].at, &cases[i].target, sizeof(uint32_t));
        else
            craft(src, q, "structure:log", base + cases[i].at, &cases[i].arg, sizeof(double));
        cr_assert_eq(pcs_world_load(b.w, q), PCS_E_CORRUPT, "%s: loaded", cases[i].message);
        snprintf(want, sizeof want,
                 "load '%s': section 'structure:log': entry %u (%s, tick %llu): %s", q, entry, kind,
                 (unsigned long long)at_tick, cases[i].message);
        cr_assert_str_eq(pcs_last_error(), want);
        cr_assert_eq(pcs_structure_log_count(b.w), 0);
    }
    tick(&b, 1); /* usable: nothing was re-applied */
    remove(q);
    fx_free(&b);
}

static void entries_refused(const char *src, const char *kind, uint64_t at_tick,
                            const entry_case *cases, size_t n)
{
    entries_refused_at(src, 0, kind, at_tick, cases, n);
}

static void a_pump_entry_with_a_bad_target_or_argument_is_refused_before_the_replay(void)
{
    char p[128];
    tmp(p, sizeof p, "pump-entry");
    fixture a;
    removed(&a, p);
    const entry_case cases[] = {
        {LOG_AT(target), 0, 5,
         "pump_remove: target 5 (allowed 0: the command names its place in "
         "args)"},
        {ARG_AT(2), 1.0, 0, "pump_remove: args[2] 1 (allowed 0: unused)"},
        {ARG_AT(3), -0.5, 0, "pump_remove: args[3] -0.5 (allowed 0: unused)"},
        {ARG_AT(0), 3.0, 0,
         "pump_remove: args[0] unit 3 (allowed: a whole number, 1..2, a unit of the scenario)"},
        {ARG_AT(0), 1.5, 0,
         "pump_remove: args[0] unit 1.5 (allowed: a whole number, 1..2, a unit of the scenario)"},
        {ARG_AT(1), 3.0, 0,
         "pump_remove: args[1] pump 3 (allowed: a whole number, 1..2, a pump of u1)"},
        {ARG_AT(1), 0.0, 0,
         "pump_remove: args[1] pump 0 (allowed: a whole number, 1..2, a pump of u1)"},
    };
    entries_refused(p, "pump_remove", 2, cases, sizeof cases / sizeof cases[0]);
    remove(p);
    fx_free(&a);
}

static void a_unit_add_entry_with_a_bad_target_or_argument_is_refused_before_the_replay(void)
{
    char p[128];
    tmp(p, sizeof p, "unit-entry");
    fixture a;
    fx_make(&a);
    tick(&a, 1);
    submit(&a, "u2", "unit_add");
    tick(&a, 2);
    cr_assert_eq(pcs_structure_log_count(a.w), 1);
    cr_assert_eq(pcs_world_save(a.w, p), PCS_OK, "%s", pcs_last_error());
    const entry_case cases[] = {
        {LOG_AT(target), 0, 1,
         "unit_add: target 1 (allowed 0: the command names its place in "
         "args)"},
        {ARG_AT(1), 2.0, 0, "unit_add: args[1] 2 (allowed 0: unused)"},
        {ARG_AT(3), 1.0, 0, "unit_add: args[3] 1 (allowed 0: unused)"},
        {ARG_AT(0), 1.0, 0,
         "unit_add: args[0] unit 1 (allowed: a whole number, 2..2, a unit the scenario builds "
         "later)"},
        {ARG_AT(0), 3.0, 0,
         "unit_add: args[0] unit 3 (allowed: a whole number, 2..2, a unit the scenario builds "
         "later)"},
    };
    entries_refused(p, "unit_add", 1, cases, sizeof cases / sizeof cases[0]);
    remove(p);
    fx_free(&a);
}

/* u2 added at tick 1, u1 removed at tick 3: entry 1 is the removal. */
static void a_unit_remove_entry_with_a_bad_target_or_argument_is_refused_before_the_replay(void)
{
    char p[128];
    tmp(p, sizeof p, "remove-entry");
    fixture a;
    fx_make(&a);
    tick(&a, 1);
    submit(&a, "u2", "unit_add");
    tick(&a, 2);
    submit(&a, "u1", "unit_remove");
    tick(&a, 1);
    cr_assert_eq(pcs_structure_log_count(a.w), 2);
    cr_assert_eq(pcs_world_save(a.w, p), PCS_OK, "%s", pcs_last_error());
    const entry_case cases[] = {
        {LOG_AT(target), 0, 7,
         "unit_remove: target 7 (allowed 0: the command names its place in args)"},
        {ARG_AT(1), 1.0, 0, "unit_remove: args[1] 1 (allowed 0: unused)"},
        {ARG_AT(3), -2.0, 0, "unit_remove: args[3] -2 (allowed 0: unused)"},
        {ARG_AT(0), 3.0, 0,
         "unit_remove: args[0] unit 3 (allowed: a whole number, 1..2, a unit of the scenario)"},
        {ARG_AT(0), 0.5, 0,
         "unit_remove: args[0] unit 0.5 (allowed: a whole number, 1..2, a unit of the scenario)"},
    };
    entries_refused_at(p, 1, "unit_remove", 3, cases, sizeof cases / sizeof cases[0]);
    remove(p);
    fx_free(&a);
}

/* A log whose entries each pass the check but remove the last running unit
 * (u1, with u2 never added: entry 0 turned into a removal of u1 by its
 * kind) is refused by the replay's apply, and the fresh world is unusable. */
static void a_log_removing_the_last_running_unit_is_refused_by_the_replay(void)
{
    char p[128], q[128];
    tmp(p, sizeof p, "last-unit");
    tmp(q, sizeof q, "last-unit-crafted");
    fixture a;
    fx_make(&a);
    tick(&a, 1);
    submit(&a, "u2", "unit_add");
    tick(&a, 2);
    cr_assert_eq(pcs_world_save(a.w, p), PCS_OK, "%s", pcs_last_error());
    uint32_t kind = PCS_STATION_KIND_UNIT_REMOVE;
    double unit = 1.0;
    size_t len = 0;
    unsigned char *img = save_craft_read(p, &len);
    cr_assert_not_null(img);
    cr_assert(save_craft_patch(img, len, "structure:log", LOG_AT(kind), &kind, sizeof kind));
    cr_assert(save_craft_patch(img, len, "structure:log", ARG_AT(0), &unit, sizeof unit));
    cr_assert(save_craft_write(q, img, len));
    free(img);
    fixture b;
    fx_make(&b);
    cr_assert_neq(pcs_world_load(b.w, q), PCS_OK, "a log removing the last unit loaded");
    cr_assert(strstr(pcs_last_error(), "unit_remove u1: the unit is the last running unit") != NULL,
              "%s", pcs_last_error());
    cr_assert_eq(pcs_world_tick(b.w), PCS_E_STATE, "a world refused after a replay ticked");
    remove(p);
    remove(q);
    fx_free(&a);
    fx_free(&b);
}

/* What a load would refuse, stage 1 refuses too: a pump_remove with an
 * unused argument set is rejected, never logged. */
static void stage_1_refuses_a_structural_command_with_unused_args_set(void)
{
    fixture a;
    fx_make(&a);
    pcs_command c;
    cr_assert_eq(pcs_station_command(a.st, "u1.pump2", "pump_remove", 0.0, &c), PCS_OK);
    c.args[2] = 1.0;
    cr_assert_eq(pcs_command_submit(a.w, &c), PCS_OK, "%s", pcs_last_error());
    tick(&a, 1);
    cr_assert_eq(pcs_structure_log_count(a.w), 0, "rejected, not applied");
    cr_assert_eq(pcs_station_command(a.st, "u2", "unit_add", 0.0, &c), PCS_OK);
    c.target = 7;
    cr_assert_eq(pcs_command_submit(a.w, &c), PCS_OK, "%s", pcs_last_error());
    tick(&a, 1);
    cr_assert_eq(pcs_structure_log_count(a.w), 0, "rejected, not applied");
    cr_assert_eq(pcs_station_unit_count(a.st), 1);
    fx_free(&a);
}

/* ---- structural entities ------------------------------------------------------ */

/* A station's pump entity is structural: only pump_remove takes it out. */
static void a_structural_entity_is_not_destroyed_by_a_host(void)
{
    fixture a;
    fx_make(&a);
    tick(&a, 1);
    pcs_entity_handle h;
    cr_assert_eq(pcs_entity_find(a.w, "u1.pump2", &h), PCS_OK);
    uint64_t id = pcs_entity_id(a.w, h);
    cr_assert_eq(pcs_entity_destroy(a.w, h), PCS_E_STATE);
    char want[512];
    snprintf(want, sizeof want,
             "pcs_entity_destroy: entity %llu 'u1.pump2' (slot %u) was made by the world's build "
             "or a structural change: remove it with the structural command that takes its "
             "device out (structure.h), so a save's structure log records it",
             (unsigned long long)id, h.index);
    cr_assert_str_eq(pcs_last_error(), want);
    cr_assert_eq(pcs_entity_check(a.w, h), PCS_OK, "still there");
    submit(&a, "u1.pump2", "pump_remove");
    tick(&a, 1);
    cr_assert_eq(pcs_entity_check(a.w, h), PCS_E_NOTFOUND, "the structural command removed it");
    fx_free(&a);
}

/* A bare world: store 0 of 4 doubles, a table of 4 slots, generation_max 3.
 * Before the first tick (structural): "a" (slot 0, id 1) destroyed, "b"
 * (slot 1, id 2, kind 5, store 0 row 2), "c" (slot 0 again: generation 2,
 * id 3, kind 7, store 0 row 1). After it (the host's): "h" (slot 2, id 4,
 * kind 9), destroyed by the host and made again (slot 2, generation 2, id
 * 5). next_id 6. */
static pcs_world *bare(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_world *w = NULL;
    uint32_t store;
    pcs_entity_table_def d = pcs_entity_table_default();
    d.capacity = 4;
    d.generation_max = 3;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "s", sizeof(double), 4, PCS_STORE_STATE, &store), PCS_OK);
    cr_assert_eq(pcs_entity_table_add(w, &d), PCS_OK);
    const struct {
        const char *name;
        uint32_t kind, store, row;
    } e[] = {{"a", 0, PCS_ENTITY_NO_STORE, 0}, {"b", 5, 0, 2}, {"c", 7, 0, 1}, {"h", 9, 0, 3}};
    pcs_entity_handle h[4];
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            cr_assert_eq(pcs_entity_destroy(w, h[0]), PCS_OK, "open: %s", pcs_last_error());
        if (i == 3)
            cr_assert_eq(pcs_world_tick(w), PCS_OK);
        pcs_entity_def ed = pcs_entity_default();
        ed.name = e[i].name;
        ed.kind = e[i].kind;
        ed.store = e[i].store;
        ed.row = e[i].row;
        cr_assert_eq(pcs_entity_create(w, &ed, &h[i]), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(h[2].index, 0);
    cr_assert_eq(h[2].generation, 2);
    cr_assert_eq(pcs_entity_id(w, h[3]), 4);
    cr_assert_eq(pcs_entity_destroy(w, h[3]), PCS_OK, "a host's own entity: the host may");
    cr_assert_eq(pcs_entity_create(
                     w, &(pcs_entity_def){.name = "h", .kind = 9, .store = 0, .row = 3}, &h[3]),
                 PCS_OK);
    return w;
}

/* Record offsets (entity_internal.h): head 40 bytes, 176 per slot. */
#define REC(slot, off) (40u + 176u * (size_t)(slot) + (size_t)(off))

static void a_saved_structural_entity_that_differs_from_the_built_one_is_refused(void)
{
    char p[128], q[128];
    tmp(p, sizeof p, "ent-good");
    tmp(q, sizeof q, "ent-bad");
    pcs_world *w = bare();
    cr_assert_eq(pcs_world_save(w, p), PCS_OK, "%s", pcs_last_error());
    uint64_t before = pcs_world_state_hash(w);
    const struct {
        size_t at;
        uint64_t v;
        size_t n;
        const char *field, *saved, *built;
    } cases[] = {
        {REC(0, 28), 8, 4, "kind", "8", "7"},
        {REC(0, 8), 1, 8, "owner", "1", "0"},
        {REC(0, 36), 3, 4, "row", "3", "1"},
        {REC(1, 36), 0, 4, "row", "0", "2"},
    };
    char want[800];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        craft(p, q, "entities", cases[i].at, &cases[i].v, cases[i].n);
        cr_assert_eq(pcs_world_load(w, q), PCS_E_CORRUPT, "%s: loaded", cases[i].field);
        snprintf(want, sizeof want,
                 "load '%s': section 'entities' slot %u: %s %s in the save; the world's build and "
                 "structural changes made entity '%s' there with %s %s (a structural entity must "
                 "be saved as built)",
                 q, i < 3 ? 0u : 1u, cases[i].field, cases[i].saved, i < 3 ? "c" : "b",
                 cases[i].field, cases[i].built);
        cr_assert_str_eq(pcs_last_error(), want);
        cr_assert_eq(pcs_world_state_hash(w), before);
    }
    /* store: none (its row 0 with it). */
    size_t len = 0;
    unsigned char *img = save_craft_read(p, &len);
    uint32_t none = PCS_ENTITY_NO_STORE, zero = 0;
    cr_assert(save_craft_patch(img, len, "entities", REC(0, 32), &none, 4));
    cr_assert(save_craft_patch(img, len, "entities", REC(0, 36), &zero, 4));
    cr_assert(save_craft_write(q, img, len));
    cr_assert_eq(pcs_world_load(w, q), PCS_E_CORRUPT);
    cr_assert(strstr(pcs_last_error(), "slot 0: store 4294967295 in the save; the world's build "
                                       "and structural changes made entity 'c' there with store 0"),
              "%s", pcs_last_error());
    /* name: "d" with its true hash. */
    free(img);
    img = save_craft_read(p, &len);
    uint64_t dh = XXH3_64bits("d", 1);
    cr_assert(save_craft_patch(img, len, "entities", REC(0, 16), &dh, 8));
    cr_assert(save_craft_patch(img, len, "entities", REC(0, 48), "d", 1));
    cr_assert(save_craft_write(q, img, len));
    cr_assert_eq(pcs_world_load(w, q), PCS_E_CORRUPT);
    cr_assert(strstr(pcs_last_error(), "slot 0: name 'd' in the save; the world's build and "
                                       "structural changes made entity 'c' there with name 'c'"),
              "%s", pcs_last_error());
    /* generation: 3 for slot 0, next_id 7 to count the extra life. */
    free(img);
    img = save_craft_read(p, &len);
    uint32_t g3 = 3;
    uint64_t next7 = 7;
    cr_assert(save_craft_patch(img, len, "entities", REC(0, 24), &g3, 4));
    cr_assert(save_craft_patch(img, len, "entities", 0, &next7, 8));
    cr_assert(save_craft_write(q, img, len));
    cr_assert_eq(pcs_world_load(w, q), PCS_E_CORRUPT);
    cr_assert(strstr(pcs_last_error(), "slot 0: generation 3 in the save; the world's build and "
                                       "structural changes made entity 'c' there with generation "
                                       "2"),
              "%s", pcs_last_error());
    /* id: slots 0 and 1 swap ids (both in range, unique). */
    free(img);
    img = save_craft_read(p, &len);
    uint64_t two = 2, three = 3;
    cr_assert(save_craft_patch(img, len, "entities", REC(0, 0), &two, 8));
    cr_assert(save_craft_patch(img, len, "entities", REC(1, 0), &three, 8));
    cr_assert(save_craft_write(q, img, len));
    cr_assert_eq(pcs_world_load(w, q), PCS_E_CORRUPT);
    cr_assert(strstr(pcs_last_error(), "slot 0: id 2 in the save; the world's build and "
                                       "structural changes made entity 'c' there with id 3"),
              "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(w), before);
    /* The host's entity is checked field by field only: another kind loads. */
    free(img);
    img = save_craft_read(p, &len);
    uint32_t k11 = 11;
    cr_assert(save_craft_patch(img, len, "entities", REC(2, 28), &k11, 4));
    cr_assert(save_craft_write(q, img, len));
    cr_assert_eq(pcs_world_load(w, q), PCS_OK, "%s", pcs_last_error());
    pcs_entity_handle hh;
    pcs_entity_info info;
    cr_assert_eq(pcs_entity_find(w, "h", &hh), PCS_OK);
    cr_assert_eq(pcs_entity_get(w, hh, &info), PCS_OK);
    cr_assert_eq(info.kind, 11);
    free(img);
    remove(p);
    remove(q);
    pcs_world_destroy(w);
}

/* Issue 19's budget: Criterion runs every Test in its own process, and under
 * ASan a process costs ~0.2 s before it checks anything, so the checks above
 * run grouped, one process per behaviour, in the order listed. Each keeps its
 * own assertions and messages; a failure names the check's line. */

/* Which worlds take an extending save, and what a fresh world refused during the replay may still
 * do. */
Test(persist_structure, extending_saves_and_fresh_worlds)
{
    a_world_that_ticked_refuses_an_extending_save_and_stays_as_it_was();
    a_world_holding_a_load_refuses_an_extending_save_and_keeps_it();
    a_fresh_world_loads_an_extending_save_and_runs_as_the_saved_one();
    a_fresh_world_refused_after_the_replay_refuses_to_tick_save_or_load();
    a_replay_that_fails_leaves_the_fresh_world_unusable();
}

/* Bad checksums, trailing bytes and crafted pump/unit entries are refused before the replay; the
 * last running unit is not removed; stage 1 refuses unused args. */
Test(persist_structure, crafted_log_entries_are_refused)
{
    a_bad_checksum_or_trailing_byte_is_refused_before_the_replay();
    a_pump_entry_with_a_bad_target_or_argument_is_refused_before_the_replay();
    a_unit_add_entry_with_a_bad_target_or_argument_is_refused_before_the_replay();
    a_unit_remove_entry_with_a_bad_target_or_argument_is_refused_before_the_replay();
    a_log_removing_the_last_running_unit_is_refused_by_the_replay();
    stage_1_refuses_a_structural_command_with_unused_args_set();
}

/* A host cannot destroy a structural entity; a saved one that differs from the built one is
 * refused. */
Test(persist_structure, structural_entities)
{
    a_structural_entity_is_not_destroyed_by_a_host();
    a_saved_structural_entity_that_differs_from_the_built_one_is_refused();
}
