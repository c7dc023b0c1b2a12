/**
 * @file test_journal_replay.c
 * @brief Journals through the public API (pcsim/station.h): a run written by
 *        pcs_journal_writer, parsed back and replayed by pcs_replay on the
 *        scenario the journal carries, gives the recorded hash; a journal of
 *        another scenario, seed or kind table is refused naming both values;
 *        a truncated or garbled v3 header gets a file and line message.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/station.h"
#include "tests/fork_child.h"

/* One unit of two loops: small enough that a few hundred ticks are quick.
 * Seed 11, commands_per_tick 8. */
static const char scenario_text[] =
    "{\"schema\": 1, \"name\": \"journal-test\","
    " \"world\": {\"dt_s\": 0.05, \"seed\": 11, \"workers\": 0, \"commands_per_tick\": 8},"
    " \"run\": {\"seconds\": 5},"
    " \"units\": [{\"name\": \"u1\", \"loops\": 2}]}";

/* The same plant with another boron concentration: another build hash. */
static const char other_text[] =
    "{\"schema\": 1, \"name\": \"journal-test\","
    " \"world\": {\"dt_s\": 0.05, \"seed\": 11, \"workers\": 0, \"commands_per_tick\": 8},"
    " \"run\": {\"seconds\": 5},"
    " \"units\": [{\"name\": \"u1\", \"loops\": 2, \"boron_ppm\": 900}]}";

#define RUN_TICKS 120u

typedef struct rig {
    pcs_scenario *scn;
    pcs_world *world;
    pcs_station *st;
} rig;

/* @p text loaded, not built (a check that needs only the scenario spares a
 * station build: a primary settled to steady state). */
static pcs_scenario *scn_load(const char *text)
{
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_scenario_load_string("journal-test.json", text, strlen(text), NULL, &scn),
                 PCS_OK, "%s", pcs_last_error());
    return scn;
}

static void rig_build(rig *r, const char *text)
{
    memset(r, 0, sizeof *r);
    r->scn = scn_load(text);
    pcs_world_def cfg = pcs_scenario_world_def(r->scn);
    cr_assert_eq(pcs_world_create(&cfg, &r->world), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(r->world, r->scn, &r->st), PCS_OK, "%s", pcs_last_error());
}

/* A built station on a scenario already loaded (the journal's). */
static void rig_build_on(rig *r, pcs_scenario *scn)
{
    memset(r, 0, sizeof *r);
    r->scn = scn;
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    cr_assert_eq(pcs_world_create(&cfg, &r->world), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(r->world, scn, &r->st), PCS_OK, "%s", pcs_last_error());
}

static void rig_free(rig *r)
{
    pcs_station_destroy(r->st);
    pcs_world_destroy(r->world);
    pcs_scenario_destroy(r->scn);
}

static void submit(rig *r, const char *target, const char *command, double value)
{
    pcs_command c;
    cr_assert_eq(pcs_station_command(r->st, target, command, value, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_submit(r->world, &c), PCS_OK, "%s", pcs_last_error());
}

static char path[64];

/* Record RUN_TICKS ticks with four commands (two on one tick) into path;
 * returns the final state hash of the recorded world. */
static uint64_t record(void)
{
    snprintf(path, sizeof path, "/tmp/pcsim-journal-%d.journal", (int)getpid());
    rig r;
    rig_build(&r, scenario_text);
    pcs_journal_writer *jw = NULL;
    cr_assert_eq(pcs_journal_writer_open(path, r.st, r.scn, &jw), PCS_OK, "%s", pcs_last_error());
    for (uint32_t t = 0; t < RUN_TICKS; t++) {
        if (t == 10)
            submit(&r, "u1.pump2", "pump_trip", 0.0);
        if (t == 20) {
            submit(&r, "u1", "boron", 1200.0);
            submit(&r, "u1.D", "rod_position", 0.8);
        }
        if (t == 60)
            submit(&r, "u1.pump2", "pump_start", 1.0);
        cr_assert_eq(pcs_world_tick(r.world), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_journal_writer_drain(jw), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(pcs_journal_writer_end(jw), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_journal_writer_close(jw, 1), PCS_OK, "%s", pcs_last_error());
    uint64_t hash = pcs_world_state_hash(r.world);
    rig_free(&r);
    return hash;
}

/* record()'s run on a built rig, without assertions (for a forked child):
 * out->st the first failure (out->msg what failed), out->hash the end hash. */
static pcs_status record_step(pcs_status st, const char *what, fork_child_out *out)
{
    if (st != PCS_OK && out->st == PCS_OK) {
        out->st = st;
        snprintf(out->msg, sizeof out->msg, "%s: %s", what, pcs_last_error());
    }
    return st;
}

static void record_submit(rig *r, const char *target, const char *command, double value,
                          fork_child_out *out)
{
    pcs_command c;
    if (record_step(pcs_station_command(r->st, target, command, value, &c), command, out) == PCS_OK)
        record_step(pcs_command_submit(r->world, &c), command, out);
}

static void record_run(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    pcs_journal_writer *jw = NULL;
    if (record_step(pcs_journal_writer_open(path, r->st, r->scn, &jw), "open", out) != PCS_OK)
        return;
    for (uint32_t t = 0; t < RUN_TICKS && out->st == PCS_OK; t++) {
        if (t == 10)
            record_submit(r, "u1.pump2", "pump_trip", 0.0, out);
        if (t == 20) {
            record_submit(r, "u1", "boron", 1200.0, out);
            record_submit(r, "u1.D", "rod_position", 0.8, out);
        }
        if (t == 60)
            record_submit(r, "u1.pump2", "pump_start", 1.0, out);
        record_step(pcs_world_tick(r->world), "tick", out);
        record_step(pcs_journal_writer_drain(jw), "drain", out);
    }
    record_step(pcs_journal_writer_end(jw), "end", out);
    record_step(pcs_journal_writer_close(jw, 1), "close", out);
    out->hash = pcs_world_state_hash(r->world);
}

/* record() on a forked child's copy of @p r (built on scenario_text, never
 * ticked; workers 0), so @p r stays fresh for the test: one station build
 * serves both the recording and the test's own run. */
static uint64_t record_on_copy(rig *r)
{
    snprintf(path, sizeof path, "/tmp/pcsim-journal-%d.journal", (int)getpid());
    fork_child_out out = fork_child_run(record_run, r);
    cr_assert_eq(out.st, PCS_OK, "recording: %s", out.msg);
    return out.hash;
}

/* The written file's text (NUL-terminated, to free). */
static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f, "%s", p);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    char *copy = malloc(n + 256); /* room for replace_line to lengthen lines */
    cr_assert_not_null(copy);
    memcpy(copy, buf, n + 1);
    return copy;
}

static int has(const char *msg, const char *part)
{
    return strstr(msg, part) != NULL;
}

Test(journal_replay, round_trip_replays_to_the_recorded_hash_without_the_scenario_file)
{
    uint64_t want = record();
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_load(path, &j), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_journal_file_count(j), 4);
    const pcs_timed_command *c = pcs_journal_file_commands(j);
    cr_assert_eq(c[0].tick, 10);
    cr_assert_eq(c[1].tick, 20);
    cr_assert_eq(c[2].tick, 20);
    cr_assert_eq(c[2].cmd.args[0], 0.8, "rod position read back exactly");
    cr_assert_eq(c[3].tick, 60);
    cr_assert_eq(pcs_journal_file_start_tick(j), 0);
    cr_assert_eq(pcs_journal_file_end_tick(j), RUN_TICKS);
    cr_assert_eq(pcs_journal_file_hash(j), want);
    cr_assert_eq(pcs_journal_file_seed(j), 11);
    cr_assert_str_eq(pcs_journal_file_scenario_source(j), "journal-test.json");
    cr_assert(pcs_journal_file_has_scenario(j));

    /* The scenario comes from the journal: the same build hash as the file's. */
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_journal_file_scenario(j, NULL, &scn), PCS_OK, "%s", pcs_last_error());
    pcs_scenario *orig = scn_load(scenario_text);
    cr_assert_eq(pcs_scenario_build_hash(scn), pcs_scenario_build_hash(orig));
    cr_assert_eq(pcs_journal_file_scenario_hash(j), pcs_scenario_build_hash(orig));
    pcs_scenario_destroy(orig);

    rig r;
    rig_build_on(&r, scn);
    pcs_replay_result res;
    cr_assert_eq(pcs_replay(r.st, j, NULL, &res), PCS_OK, "%s", pcs_last_error());
    cr_assert(res.completed);
    cr_assert_eq(res.ticks_run, RUN_TICKS);
    cr_assert_eq(res.final_hash, want);
    cr_assert_eq(res.journal_hash, want);
    cr_assert_eq(pcs_world_clock(r.world)->tick, RUN_TICKS);
    pcs_command_stats cs;
    pcs_command_stats_get(r.world, &cs);
    cr_assert_eq(cs.applied, 4, "every journaled command applied once");
    rig_free(&r);
    pcs_journal_file_destroy(j);
    unlink(path);
}

/* A replay without the commands must not reach the same hash: the round
 * trip above is a real check, not a world that ignores its commands. */
Test(journal_replay, a_recorded_hash_differs_without_the_commands)
{
    rig r;
    rig_build(&r, scenario_text);
    uint64_t want = record_on_copy(&r);
    for (uint32_t t = 0; t < RUN_TICKS; t++)
        cr_assert_eq(pcs_world_tick(r.world), PCS_OK);
    cr_assert_neq(pcs_world_state_hash(r.world), want);
    rig_free(&r);
    unlink(path);
}

static int ticks_before, ticks_after;

static void count_before(void *ctx, uint64_t tick)
{
    (void)ctx;
    cr_assert_eq(tick, (uint64_t)ticks_before);
    ticks_before++;
}

static void count_after(void *ctx, uint64_t tick)
{
    cr_assert_eq(ctx, &ticks_after);
    cr_assert_eq(tick, (uint64_t)ticks_after);
    ticks_after++;
}

Test(journal_replay, hooks_see_every_tick_and_a_changed_end_hash_is_named)
{
    record();
    size_t len;
    char *text = slurp(path, &len);
    char *end = strstr(text, "# end_tick 120 hash ");
    cr_assert_not_null(end);
    char *h = end + strlen("# end_tick 120 hash ");
    h[0] = h[0] == '0' ? '1' : '0'; /* another recorded hash */
    char recorded[17];
    memcpy(recorded, h, 16);
    recorded[16] = '\0';
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("edited.journal", text, len, &j), PCS_OK, "%s",
                 pcs_last_error());
    pcs_scenario *scn = NULL;
    cr_assert_eq(pcs_journal_file_scenario(j, NULL, &scn), PCS_OK, "%s", pcs_last_error());
    rig r;
    rig_build_on(&r, scn);
    pcs_replay_opts o = {
        .before_tick = count_before, .after_tick = count_after, .ctx = &ticks_after};
    pcs_replay_result res;
    cr_assert_eq(pcs_replay(r.st, j, &o, &res), PCS_E_CORRUPT);
    cr_assert_eq(ticks_before, (int)RUN_TICKS);
    cr_assert_eq(ticks_after, (int)RUN_TICKS);
    cr_assert(res.completed);
    char want[160];
    snprintf(want, sizeof want, "edited.journal: final hash %016llx differs from the journal's %s",
             (unsigned long long)res.final_hash, recorded);
    cr_assert(has(pcs_last_error(), want), "%s", pcs_last_error());
    rig_free(&r);
    pcs_journal_file_destroy(j);
    free(text);
    unlink(path);
}

Test(journal_replay, another_scenario_is_refused_naming_both_hashes)
{
    record();
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_load(path, &j), PCS_OK, "%s", pcs_last_error());
    rig other;
    rig_build(&other, other_text);
    uint64_t mine = pcs_journal_file_scenario_hash(j), theirs = pcs_scenario_build_hash(other.scn);
    cr_assert_neq(mine, theirs);
    char want[200];
    snprintf(want, sizeof want,
             "%s:3: scenario hash %016llx differs from the scenario's %016llx (journal-test.json)",
             path, (unsigned long long)mine, (unsigned long long)theirs);
    cr_assert_eq(pcs_journal_file_check_scenario(j, other.scn), PCS_E_INVAL);
    cr_assert(has(pcs_last_error(), want), "%s\nwant %s", pcs_last_error(), want);
    /* The replay checks the built world's the same way. */
    cr_assert_eq(pcs_replay(other.st, j, NULL, NULL), PCS_E_INVAL);
    cr_assert(has(pcs_last_error(), want), "%s", pcs_last_error());
    cr_assert_eq(pcs_world_clock(other.world)->tick, 0, "nothing ran");
    rig_free(&other);
    pcs_journal_file_destroy(j);
    unlink(path);
}

Test(journal_replay, another_seed_is_refused_naming_both_seeds)
{
    record();
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_load(path, &j), PCS_OK, "%s", pcs_last_error());
    rig r;
    memset(&r, 0, sizeof r);
    r.scn = scn_load(scenario_text);
    pcs_world_def cfg = pcs_scenario_world_def(r.scn);
    cfg.seed = 12;
    cr_assert_eq(pcs_world_create(&cfg, &r.world), PCS_OK);
    cr_assert_eq(pcs_station_add(r.world, r.scn, &r.st), PCS_OK);
    cr_assert_eq(pcs_replay_check(r.st, j), PCS_E_INVAL);
    char want[160];
    snprintf(want, sizeof want, "%s:4: world seed 11 differs from the scenario's 12", path);
    cr_assert(has(pcs_last_error(), want), "%s", pcs_last_error());
    rig_free(&r);
    pcs_journal_file_destroy(j);
    unlink(path);
}

/* Replace the first line starting with @p head by @p line, in place (slurp
 * leaves 256 bytes of room for a longer one). */
static void replace_line(char *text, const char *head, const char *line)
{
    char *at = strstr(text, head);
    cr_assert_not_null(at, "%s", head);
    char *nl = strchr(at, '\n');
    size_t n = strlen(line);
    memmove(at + n, nl, strlen(nl) + 1);
    memcpy(at, line, n);
}

/* The line number of the first line starting with @p head. */
static unsigned line_of(const char *text, const char *head)
{
    const char *at = strstr(text, head);
    cr_assert_not_null(at, "%s", head);
    unsigned n = 1;
    for (const char *p = text; p < at; p++)
        n += *p == '\n';
    return n;
}

Test(journal_replay, a_kind_table_of_another_build_is_refused_naming_both_kinds)
{
    rig r;
    rig_build(&r, scenario_text);
    record_on_copy(&r);
    size_t len;
    char *text = slurp(path, &len);
    uint32_t trip;
    cr_assert_eq(pcs_station_command_kind(r.st, "pump_trip", &trip), PCS_OK);
    char line[64], head[64];
    snprintf(head, sizeof head, "# kind pump_trip %u\n", trip);
    unsigned at = line_of(text, head);
    snprintf(line, sizeof line, "# kind pump_trip %u", trip + 40);
    head[strlen(head) - 1] = '\0';
    replace_line(text, head, line);
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("k.journal", text, strlen(text), &j), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_replay_check(r.st, j), PCS_E_INVAL);
    char want[160];
    snprintf(want, sizeof want,
             "k.journal:%u: kind 'pump_trip' is %u in the journal, %u in the station", at,
             trip + 40, trip);
    cr_assert(has(pcs_last_error(), want), "%s\nwant %s", pcs_last_error(), want);
    pcs_journal_file_destroy(j);

    /* The journal's pump_trip command now has a kind its table does not
     * list, which this station calls pump_trip: refused too. */
    replace_line(text, line, "# kind pump_tripp 1");
    cr_assert_eq(pcs_journal_file_parse("k.journal", text, strlen(text), &j), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_replay_check(r.st, j), PCS_E_INVAL);
    snprintf(want, sizeof want, "k.journal:%u: kind 'pump_tripp' is 1 in the journal; the station",
             at);
    cr_assert(has(pcs_last_error(), want), "%s\nwant %s", pcs_last_error(), want);
    pcs_journal_file_destroy(j);
    rig_free(&r);
    free(text);
    unlink(path);
}

Test(journal_replay, a_command_kind_missing_from_the_table_is_refused)
{
    rig r;
    rig_build(&r, scenario_text);
    uint32_t trip;
    cr_assert_eq(pcs_station_command_kind(r.st, "pump_trip", &trip), PCS_OK);
    char text[512];
    snprintf(text, sizeof text,
             "# pcsim journal v3\n# scenario journal-test.json\n# scenario_hash %016llx\n"
             "# seed 11\n# start_tick 0\n# kinds 0\n5 %u 0 0 0 0 0\n# end_tick 10 hash 0\n",
             (unsigned long long)pcs_scenario_build_hash(r.scn), trip);
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("m.journal", text, strlen(text), &j), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_replay_check(r.st, j), PCS_E_INVAL);
    char want[160];
    snprintf(want, sizeof want,
             "m.journal:7: command kind %u is not in the journal's kind table; it is 'pump_trip'",
             trip);
    cr_assert(has(pcs_last_error(), want), "%s", pcs_last_error());
    pcs_journal_file_destroy(j);
    rig_free(&r);
}

/* The header as the writer makes it, cut after each of its lines: every
 * cut is refused with the file, the line it got to and what is missing. */
Test(journal_replay, a_truncated_header_is_refused_with_file_and_line)
{
    record();
    size_t len;
    char *text = slurp(path, &len);
    unsigned kinds = line_of(text, "# kinds "), first_kind = kinds + 1;
    unsigned n_kinds = (unsigned)strtoul(strstr(text, "# kinds ") + 8, NULL, 10);
    /* every family but the steam side's 28 commands (the turbine's 8, rod
       control's 2, the steam dumps' 4, the feedwater's 4, the interlocks' 3,
       the MSIVs' 2, steam_line_break, the SG PORVs' 2 and SG level control's
       2), which only a unit with sg_model
       steam_side builds (issue 15), nor freeze and thaw, which only a
       scenario with a "freeze" section builds, nor unit_add, which only a
       scenario with a "build": "later" unit builds, nor unit_remove, which
       only a station of two or more units builds (issue 19) */
    cr_assert_eq(n_kinds + 28u + 2u + 1u + 1u, pcs_station_command_name_count(),
                 "a boundary unit builds every command family but the steam side's");
    unsigned text_line = line_of(text, "# scenario_text ");
    static const struct {
        unsigned lines;
        const char *says;
    } cuts[] = {
        {1, "t.journal:1: the header has no '# scenario' line"},
        {2, "t.journal:2: the header has no '# scenario_hash' line"},
        {3, "t.journal:3: the header has no '# seed' line"},
        {4, "t.journal:4: the header has no '# start_tick' line"},
        {5, "t.journal:5: the header has no '# kinds' line"},
        {0, NULL}, /* after the kinds line: filled in below */
        {0, NULL}, /* in the text */
    };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        unsigned lines = cuts[k].lines;
        char want[160];
        if (k == 5) {
            lines = first_kind + 1; /* the kinds line and two kind lines */
            snprintf(want, sizeof want,
                     "t.journal:%u: the header has 2 of the %u '# kind' lines line %u gives", lines,
                     n_kinds, kinds);
        } else if (k == 6) {
            lines = text_line;
            snprintf(want, sizeof want, "t.journal:%u: the scenario text has 0 of the", lines);
        } else {
            snprintf(want, sizeof want, "%s", cuts[k].says);
        }
        const char *p = text;
        for (unsigned i = 0; i < lines; i++)
            p = strchr(p, '\n') + 1;
        pcs_journal_file *j = NULL;
        cr_assert_eq(pcs_journal_file_parse("t.journal", text, (size_t)(p - text), &j), PCS_E_INVAL,
                     "cut after %u lines", lines);
        cr_assert(has(pcs_last_error(), want), "cut after %u lines: %s\nwant %s", lines,
                  pcs_last_error(), want);
        pcs_journal_file_destroy(j);
    }
    free(text);
    unlink(path);
}

/* One garbled header line at a time, in an otherwise whole header. */
Test(journal_replay, garbled_header_lines_are_refused_with_file_and_line)
{
    static const char good[] = "# pcsim journal v3\n"
                               "# scenario <built-in pwr-station.json>\n"
                               "# scenario_hash 90362d4818facab3\n"
                               "# seed 20261130\n"
                               "# start_tick 0\n"
                               "# kinds 1\n"
                               "# kind pump_trip 6\n"
                               "# scenario_text 5\n"
                               "# text {}   \n"
                               "# end_tick 10 hash 0123456789abcdef\n";
    static const struct {
        const char *line, *with, *says;
    } cases[] = {
        {"# pcsim journal v3", "# pcsim journal v2",
         "g.journal:1: journal format v2; this pcsim reads v3"},
        {"# pcsim journal v3", "# pcsim journal", "g.journal:1: expected '# pcsim journal v3'"},
        {"# scenario_hash 90362d4818facab3", "# scenario_hash 90362d4818facab3f",
         "g.journal:3: field 1 (H) '90362d4818facab3f' is not 1 to 16 hex digits"},
        {"# seed 20261130", "# seed -5", "g.journal:4: field 1 (N) '-5' is not a whole number"},
        {"# start_tick 0", "# start_tick 0 1",
         "g.journal:5: expected '# start_tick N', found more after it"},
        {"# kinds 1", "# kinds 256",
         "g.journal:6: field 1 (N) '256' is not a whole number in [0, 255]"},
        {"# kinds 1", "# kinds 2",
         "g.journal:8: the header has 1 of the 2 '# kind' lines line 6 gives"},
        {"# kinds 1", "# kinds 0", "g.journal:7: more '# kind' lines than the 0 line 6 gives"},
        {"# kind pump_trip 6", "# kind pump_trip 0",
         "g.journal:7: command kind 0 is outside [1, 255]"},
        {"# kind pump_trip 6", "# kind Pump 6",
         "g.journal:7: command name 'Pump' is not 31 or fewer of [a-z0-9_]"},
        {"# start_tick 0", "# seed 1", "g.journal:5: a second '# seed' line (the first is line 4)"},
        {"# kind pump_trip 6", "# seed 1",
         "g.journal:7: the header has 0 of the 1 '# kind' lines line 6 gives"},
        {"# scenario_text 5", "# scenario_text 4",
         "g.journal:9: the scenario text is longer than the 4 bytes line 8 gives"},
        {"# scenario_text 5", "# scenario_text 6",
         "g.journal:10: the scenario text has 5 of the 6 bytes line 8 gives"},
        {"# scenario_text 5", "# scenario_text 4194305",
         "g.journal:8: field 1 (BYTES) '4194305' is not a whole number in [0, 4194304]"},
        {"# text {}   ", "# text", "g.journal:9: an empty '# text' line"},
        {"# end_tick 10 hash 0123456789abcdef", "# end_tick 10 0123456789abcdef",
         "g.journal:10: expected '# end_tick N hash H'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024];
        const char *at = strstr(good, cases[i].line);
        cr_assert_not_null(at);
        size_t head = (size_t)(at - good);
        snprintf(text, sizeof text, "%.*s%s%s", (int)head, good, cases[i].with,
                 at + strlen(cases[i].line));
        pcs_journal_file *j = NULL;
        cr_assert_eq(pcs_journal_file_parse("g.journal", text, strlen(text), &j), PCS_E_INVAL,
                     "case %zu accepted", i);
        cr_assert(has(pcs_last_error(), cases[i].says), "case %zu: %s\nwant %s", i,
                  pcs_last_error(), cases[i].says);
        pcs_journal_file_destroy(j);
    }
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("g.journal", good, strlen(good), &j), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_journal_file_has_scenario(j), 1);
    pcs_journal_file_destroy(j);
}

Test(journal_replay, header_items_after_the_header_and_lines_after_the_end_are_refused)
{
    static const char head[] = "# pcsim journal v3\n# scenario s\n# scenario_hash 1\n# seed 1\n"
                               "# start_tick 5\n# kinds 0\n";
    static const struct {
        const char *rest, *says;
    } cases[] = {
        {"6 3 0 0 0 0 0\n# seed 2\n", "x.journal:8: '# seed' after the header, which line 7 ended"},
        {"4 3 0 0 0 0 0\n", "x.journal:7: tick 4 is before the start tick 5 (line 5)"},
        {"# end_tick 4 hash 0\n", "x.journal:7: end tick 4 is before the start tick 5 (line 5)"},
        {"# end_tick 9 hash 0\n6 3 0 0 0 0 0\n", "x.journal:8: a command after the end line 7"},
        {"# end_tick 9 hash 0\n# end_tick 9 hash 0\n",
         "x.journal:8: a second end line (the first is line 7)"},
        {"# target u1 5\n", "x.journal:7: target id 5 is not a stored target id"},
        {"# target u1..x! 1048577\n", "x.journal:7: target name 'u1..x!' is not 127 or fewer of"},
        {"6 3 0 0 0 0 0\n", "x.journal: no '# end_tick N hash H' line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", head, cases[i].rest);
        pcs_journal_file *j = NULL;
        cr_assert_eq(pcs_journal_file_parse("x.journal", text, strlen(text), &j), PCS_E_INVAL,
                     "case %zu accepted", i);
        cr_assert(has(pcs_last_error(), cases[i].says), "case %zu: %s\nwant %s", i,
                  pcs_last_error(), cases[i].says);
        pcs_journal_file_destroy(j);
    }
}

Test(journal_replay, a_resumed_run_replays_from_its_start_tick_only)
{
    rig r;
    rig_build(&r, scenario_text);
    char text[512];
    snprintf(text, sizeof text,
             "# pcsim journal v3\n# scenario journal-test.json\n# scenario_hash %016llx\n"
             "# seed 11\n# start_tick 20\n# kinds 0\n# end_tick 30 hash 0\n",
             (unsigned long long)pcs_scenario_build_hash(r.scn));
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("r.journal", text, strlen(text), &j), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_replay(r.st, j, NULL, NULL), PCS_E_INVAL);
    cr_assert(has(pcs_last_error(), "r.journal:5: the run started at tick 20 (resumed from a "
                                    "save); a replay from tick 0 cannot match"),
              "%s", pcs_last_error());
    pcs_journal_file_destroy(j);
    rig_free(&r);
}

Test(journal_replay, a_journal_without_text_names_its_scenario)
{
    static const char text[] = "# pcsim journal v3\n# scenario runs/plant.json\n"
                               "# scenario_hash 1\n# seed 1\n# start_tick 0\n# kinds 0\n"
                               "# end_tick 0 hash 0\n";
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("n.journal", text, strlen(text), &j), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_journal_file_has_scenario(j), 0);
    pcs_scenario *s = NULL;
    cr_assert_eq(pcs_journal_file_scenario(j, NULL, &s), PCS_E_NOTFOUND);
    cr_assert_null(s);
    cr_assert(has(pcs_last_error(), "n.journal: the journal does not carry its scenario "
                                    "(recorded with 'runs/plant.json')"),
              "%s", pcs_last_error());
    pcs_journal_file_destroy(j);
}

/* The built-in station: a journal of it names it and carries its text; a
 * text that loads but is not the header's scenario is refused. */
Test(journal_replay, embedded_text_is_checked_against_the_header_hash)
{
    pcs_scenario *def = NULL;
    cr_assert_eq(pcs_scenario_default(&def), PCS_OK);
    char text[512];
    snprintf(text, sizeof text,
             "# pcsim journal v3\n# scenario x.json\n# scenario_hash %016llx\n# seed 1\n"
             "# start_tick 0\n# kinds 0\n# scenario_text 12\n# text {\"schema\":1}\n"
             "# end_tick 0 hash 0\n",
             (unsigned long long)pcs_scenario_build_hash(def));
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_parse("e.journal", text, strlen(text), &j), PCS_OK, "%s",
                 pcs_last_error());
    pcs_scenario *s = NULL;
    cr_assert_eq(pcs_journal_file_scenario(j, NULL, &s), PCS_E_INVAL);
    cr_assert_null(s);
    cr_assert(has(pcs_last_error(), "e.journal:3: scenario hash"), "%s", pcs_last_error());
    cr_assert(has(pcs_last_error(), "(e.journal (scenario x.json))"), "%s", pcs_last_error());
    pcs_journal_file_destroy(j);
    pcs_scenario_destroy(def);
}

Test(journal_replay, the_writer_refuses_a_scenario_the_station_was_not_built_from)
{
    rig r;
    rig_build(&r, scenario_text);
    pcs_scenario *other = scn_load(other_text);
    pcs_journal_writer *jw = (pcs_journal_writer *)&r; /* must be set to NULL */
    cr_assert_eq(pcs_journal_writer_open("/tmp/never-written.journal", r.st, other, &jw),
                 PCS_E_INVAL);
    cr_assert_null(jw);
    cr_assert(has(pcs_last_error(), "is not the one the station was built from"), "%s",
              pcs_last_error());
    cr_assert_eq(access("/tmp/never-written.journal", F_OK), -1);
    cr_assert_eq(pcs_journal_writer_open(NULL, r.st, r.scn, &jw), PCS_E_INVAL);
    cr_assert_eq(pcs_journal_writer_drain(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_journal_writer_close(NULL, 1), PCS_OK);
    cr_assert_eq(pcs_replay(NULL, NULL, NULL, NULL), PCS_E_INVAL);
    pcs_scenario_destroy(other);
    rig_free(&r);
}

/* A run that stops early (here: closed after 5 ticks without the end line)
 * still commits what it wrote when asked; the reader says what is missing. */
Test(journal_replay, a_partial_journal_is_kept_and_refused_as_incomplete)
{
    snprintf(path, sizeof path, "/tmp/pcsim-journal-%d.partial", (int)getpid());
    rig r;
    rig_build(&r, scenario_text);
    pcs_journal_writer *jw = NULL;
    cr_assert_eq(pcs_journal_writer_open(path, r.st, r.scn, &jw), PCS_OK, "%s", pcs_last_error());
    submit(&r, "u1", "scram", 0.0);
    uint32_t scram;
    cr_assert_eq(pcs_station_command_kind(r.st, "scram", &scram), PCS_OK);
    char cmd_head[32];
    snprintf(cmd_head, sizeof cmd_head, "\n0 %u ", scram);
    for (int t = 0; t < 5; t++) {
        cr_assert_eq(pcs_world_tick(r.world), PCS_OK);
        cr_assert_eq(pcs_journal_writer_drain(jw), PCS_OK);
    }
    cr_assert_eq(pcs_journal_writer_close(jw, 1), PCS_OK, "%s", pcs_last_error());
    size_t len;
    char *text = slurp(path, &len);
    cr_assert(has(text, "\n# target u1 "), "%s", text);
    cr_assert(has(text, cmd_head), "the scram at tick 0: %s", text);
    pcs_journal_file *j = NULL;
    cr_assert_eq(pcs_journal_file_load(path, &j), PCS_E_INVAL);
    char want[128];
    snprintf(want, sizeof want, "%s: no '# end_tick N hash H' line", path);
    cr_assert(has(pcs_last_error(), want), "%s", pcs_last_error());
    pcs_journal_file_destroy(j);
    free(text);
    rig_free(&r);
    unlink(path);
}

/* ---- structural commands in an edited journal ----
 * u1 and u2 (built later) of two loops; the run removes u1's pump 2 at
 * tick 2, adds u2 at tick 4 and scrams it at tick 6. The station is built
 * once; the recording and every replay run in forked children on its copy. */
static const char later_text[] =
    "{\"schema\": 1, \"name\": \"journal-later\","
    " \"world\": {\"dt_s\": 0.05, \"seed\": 11, \"workers\": 0, \"commands_per_tick\": 8},"
    " \"run\": {\"seconds\": 1},"
    " \"units\": [{\"name\": \"u1\", \"loops\": 2},"
    " {\"name\": \"u2\", \"loops\": 2, \"build\": \"later\", \"initial_power_fraction\": 0.5}]}";

#define LATER_TICKS 10u

/* The script's source, as pcsim run submits and a replay resubmits. */
static void later_run(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    pcs_journal_writer *jw = NULL;
    pcs_command_source *src = NULL;
    if (record_step(pcs_journal_writer_open(path, r->st, r->scn, &jw), "open", out) != PCS_OK ||
        record_step(pcs_command_source_open(r->world, 2, 1, 8, &src), "source", out) != PCS_OK)
        return;
    static const struct {
        uint32_t tick;
        const char *target, *command;
    } script[] = {{2, "u1.pump2", "pump_remove"}, {4, "u2", "unit_add"}, {6, "u2", "scram"}};
    for (uint32_t t = 0; t < LATER_TICKS && out->st == PCS_OK; t++) {
        for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
            pcs_command c;
            if (script[i].tick == t && record_step(pcs_station_command(r->st, script[i].target,
                                                                       script[i].command, 0.0, &c),
                                                   script[i].command, out) == PCS_OK)
                record_step(pcs_command_source_submit(src, &c), script[i].command, out);
        }
        record_step(pcs_world_tick(r->world), "tick", out);
        record_step(pcs_journal_writer_drain(jw), "drain", out);
    }
    record_step(pcs_journal_writer_end(jw), "end", out);
    record_step(pcs_journal_writer_close(jw, 1), "close", out);
    out->hash = pcs_world_state_hash(r->world);
}

typedef struct edited_replay {
    rig *r;
    const char *text;
} edited_replay;

/* pcs_replay of the journal text on the copy of a fresh station: out->st
 * its status, out->msg its message, out->hash the ticks it ran. */
static void edited_run(void *ctx, fork_child_out *out)
{
    const edited_replay *e = ctx;
    pcs_journal_file *j = NULL;
    pcs_replay_result res = {0};
    out->st = pcs_journal_file_parse("edited.journal", e->text, strlen(e->text), &j);
    if (out->st == PCS_OK)
        out->st = pcs_replay(e->r->st, j, NULL, &res);
    snprintf(out->msg, sizeof out->msg, "%s", out->st == PCS_OK ? "" : pcs_last_error());
    out->hash = res.completed ? UINT64_MAX : res.ticks_run;
}

/* The recorded journal's text with line @p head replaced by @p line;
 * replayed, its status, message and ticks run (UINT64_MAX: completed). */
static fork_child_out replay_edited(rig *r, const char *head, const char *line, unsigned *at)
{
    size_t len;
    char *text = slurp(path, &len);
    *at = line_of(text, head);
    replace_line(text, head, line);
    edited_replay e = {r, text};
    fork_child_out out = fork_child_run(edited_run, &e);
    free(text);
    return out;
}

/* Lines of the recorded run: kinds are the station's fixed structural ones. */
#define PUMP_REMOVE_LINE "2 250 0 1 2 0 0"
#define UNIT_ADD_LINE "4 252 0 2 0 0 0"

/* A structural line whose own fields no run applies (a unit the scenario
 * does not build later, a pump the unit does not have, a target set) is
 * refused at its own line, naming the field, its value and the allowed
 * range, before the first tick: queued, it was only rejected at its tick,
 * and the replay failed later at a target line of the unit it did not add
 * ("target 'u2' ... has no such target at tick 6"). */
Test(journal_replay, an_edited_structural_line_is_refused_at_its_line_naming_the_field)
{
    cr_assert_eq(PCS_STATION_KIND_PUMP_REMOVE, 250u);
    cr_assert_eq(PCS_STATION_KIND_UNIT_ADD, 252u);
    snprintf(path, sizeof path, "/tmp/pcsim-journal-%d.later", (int)getpid());
    rig r;
    rig_build(&r, later_text);
    fork_child_out rec = fork_child_run(later_run, &r);
    cr_assert_eq(rec.st, PCS_OK, "recording: %s", rec.msg);
    unsigned at;
    fork_child_out out = replay_edited(&r, UNIT_ADD_LINE, UNIT_ADD_LINE, &at);
    cr_assert_eq(out.st, PCS_OK, "the recorded journal replays: %s", out.msg);

    static const struct {
        const char *head, *line, *want;
    } cases[] = {
        {UNIT_ADD_LINE, "4 252 0 3 0 0 0",
         "unit_add: args[0] unit 3 (allowed: a whole number, 2..2, a unit the scenario builds "
         "later)"},
        {UNIT_ADD_LINE, "4 252 7 2 0 0 0", "unit_add: target 7 (allowed 0"},
        {UNIT_ADD_LINE, "4 252 0 2 0 1.5 0", "unit_add: args[2] 1.5 (allowed 0: unused)"},
        {PUMP_REMOVE_LINE, "2 250 0 1 9 0 0",
         "pump_remove: args[1] pump 9 (allowed: a whole number, 1..2, a pump of u1)"},
        {PUMP_REMOVE_LINE, "2 250 0 4 2 0 0",
         "pump_remove: args[0] unit 4 (allowed: a whole number, 1..2, a unit of the scenario)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        out = replay_edited(&r, cases[i].head, cases[i].line, &at);
        char want[256];
        snprintf(want, sizeof want, "edited.journal:%u: %s", at, cases[i].want);
        cr_assert_eq(out.st, PCS_E_INVAL, "%s: %s", cases[i].line, out.msg);
        cr_assert(has(out.msg, want), "%s\nwant %s", out.msg, want);
        cr_assert_eq(out.hash, 0, "%s: refused before the first tick", cases[i].line);
    }
    rig_free(&r);
    unlink(path);
}

/* A duplicated line is a command the run did not apply: the replay's world
 * rejects the copy at its tick (one unit_add of u2, one change of a pump
 * per tick), and a rejection changes no state, so the end hash agreed and
 * the replay said it matched. It stops at the copy's line instead, naming
 * the command and the tick, without completing. */
Test(journal_replay, a_command_the_replay_rejects_is_a_divergence_at_its_line)
{
    snprintf(path, sizeof path, "/tmp/pcsim-journal-%d.later", (int)getpid());
    rig r;
    rig_build(&r, later_text);
    fork_child_out rec = fork_child_run(later_run, &r);
    cr_assert_eq(rec.st, PCS_OK, "recording: %s", rec.msg);
    static const struct {
        const char *line, *command;
        unsigned tick;
    } cases[] = {{UNIT_ADD_LINE, "unit_add (kind 252)", 4},
                 {PUMP_REMOVE_LINE, "pump_remove (kind 250)", 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char twice[64];
        snprintf(twice, sizeof twice, "%s\n%s", cases[i].line, cases[i].line);
        unsigned at;
        fork_child_out out = replay_edited(&r, cases[i].line, twice, &at);
        char want[160];
        snprintf(want, sizeof want, "edited.journal:%u: tick %u: %s was rejected by the replay",
                 at + 1, cases[i].tick, cases[i].command);
        cr_assert_eq(out.st, PCS_E_INVAL, "%s twice: %s", cases[i].line, out.msg);
        cr_assert(has(out.msg, want), "%s\nwant %s", out.msg, want);
        cr_assert_eq(out.hash, cases[i].tick + 1, "stopped after the copy's tick, not completed");
    }
    rig_free(&r);
    unlink(path);
}
