/**
 * @file fuzz_journal.c
 * @brief libFuzzer target: the journal reader of `pcsim replay` (format v3).
 *
 * Each input is parsed twice, from the buffer (journal_parse) and from a
 * regular file through the bounded line reader (journal_load on a memfd), and
 * the two must agree on the result, the message and everything parsed. An
 * accepted journal must hold what a replay relies on: a whole header (every
 * item, every kind line, every byte of the scenario text), commands in tick
 * order from the start tick and before the end tick, kinds in range, at most
 * PCS_JOURNAL_TICK_COMMANDS_MAX per tick, counts within the bounds. An
 * accepted journal is then checked against the built-in station
 * (pcs_replay_check: scenario hash, kinds, targets), and its scenario text,
 * if any, loaded (pcs_journal_file_scenario): both may refuse, neither may
 * crash, and a refusal names the journal.
 */
#include <string.h>

#include "station/journal.h"
#include "tests/fuzz/fuzz_common.h"

static fuzz_station station;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_build_station(&station);
    return 0;
}

static void check_header(const journal *j)
{
    if ((j->have & JH_REQUIRED) != JH_REQUIRED || j->header_end == 0)
        fuzz_fail("accepted with header items 0x%x, header end %u", j->have, j->header_end);
    if (j->n_kinds != j->want_kinds || j->want_kinds >= PCS_COMMAND_KINDS_MAX)
        fuzz_fail("accepted %u of %u kind lines", j->n_kinds, j->want_kinds);
    for (uint32_t i = 0; i < j->n_kinds; i++)
        if (j->kinds[i].kind == 0 || j->kinds[i].kind >= PCS_COMMAND_KINDS_MAX ||
            j->kinds[i].name[0] == '\0')
            fuzz_fail("accepted kind line %u: '%s' %u", i, j->kinds[i].name, j->kinds[i].kind);
    if (j->text_len != j->text_want || j->text_len > PCS_SCENARIO_DEFAULT_MAX_BYTES ||
        ((j->have & JH_TEXT) != 0) != (j->text != NULL) ||
        (j->text && strlen(j->text) != j->text_len))
        fuzz_fail("accepted a scenario text of %zu of %zu bytes", j->text_len, j->text_want);
    if (j->n_targets > JOURNAL_MAX_TARGETS)
        fuzz_fail("accepted %u target lines", j->n_targets);
    for (uint32_t i = 0; i < j->n_targets; i++)
        if (pcs_target_id_load(j->targets[i].id).generation == 0 || j->targets[i].name[0] == '\0')
            fuzz_fail("accepted target line %u: '%s' %u", i, j->targets[i].name, j->targets[i].id);
}

static void check_accepted(const journal *j)
{
    if (!j->have_end || j->end_tick > PCS_CLOCK_TICK_MAX || j->end_tick < j->start_tick)
        fuzz_fail("accepted without a valid end tick (%llu, start %llu)",
                  (unsigned long long)j->end_tick, (unsigned long long)j->start_tick);
    if (j->n_actions > JOURNAL_MAX_COMMANDS || j->lineno > JOURNAL_MAX_LINES)
        fuzz_fail("accepted %u commands in %u lines", j->n_actions, j->lineno);
    check_header(j);
    uint32_t same = 0;
    for (uint32_t i = 0; i < j->n_actions; i++) {
        const pcs_timed_command *a = &j->actions[i];
        if (a->cmd.kind == 0 || a->cmd.kind >= PCS_COMMAND_KINDS_MAX)
            fuzz_fail("accepted command %u with kind %u", i, a->cmd.kind);
        if (a->tick >= j->end_tick || a->tick < j->start_tick ||
            (i && a->tick < j->actions[i - 1].tick))
            fuzz_fail("accepted command %u at tick %llu out of order or outside the run", i,
                      (unsigned long long)a->tick);
        if (j->lines[i] < j->header_end || j->lines[i] > j->lineno ||
            (i && j->lines[i] <= j->lines[i - 1]))
            fuzz_fail("command %u has line number %u", i, j->lines[i]);
        same = (i && a->tick == j->actions[i - 1].tick) ? same + 1 : 1;
        if (same > PCS_JOURNAL_TICK_COMMANDS_MAX)
            fuzz_fail("accepted %u commands at tick %llu", same, (unsigned long long)a->tick);
    }
}

static int same_parse(const journal *a, const journal *b)
{
    return a->n_actions == b->n_actions && a->end_tick == b->end_tick &&
           a->want_hash == b->want_hash && a->lineno == b->lineno && a->have == b->have &&
           a->header_end == b->header_end && a->scenario_hash == b->scenario_hash &&
           a->seed == b->seed && a->start_tick == b->start_tick &&
           strcmp(a->scenario, b->scenario) == 0 && a->n_kinds == b->n_kinds &&
           a->n_targets == b->n_targets && a->text_len == b->text_len &&
           (!a->n_actions || (!memcmp(a->actions, b->actions, a->n_actions * sizeof *a->actions) &&
                              !memcmp(a->lines, b->lines, a->n_actions * sizeof *a->lines))) &&
           (!a->n_kinds || !memcmp(a->kinds, b->kinds, a->n_kinds * sizeof *a->kinds)) &&
           (!a->n_targets || !memcmp(a->targets, b->targets, a->n_targets * sizeof *a->targets)) &&
           (!a->text_len || !memcmp(a->text, b->text, a->text_len));
}

/* What a replay does with an accepted journal before it ticks: the checks
 * against the station and the embedded scenario's load. */
static void check_use(journal *a, char *path)
{
    pcs_journal_file f = {*a, path};
    if (pcs_replay_check(station.st, &f) != PCS_OK &&
        strncmp(pcs_last_error(), path, strlen(path)) != 0)
        fuzz_fail("replay check message does not name the journal: '%s'", pcs_last_error());
    pcs_scenario *s = NULL;
    if (pcs_journal_file_scenario(&f, NULL, &s) != PCS_OK &&
        strncmp(pcs_last_error(), path, strlen(path)) != 0)
        fuzz_fail("scenario message does not name the journal: '%s'", pcs_last_error());
    pcs_scenario_destroy(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_LEN];
    fuzz_file(0, data, size, path);
    journal a, b;
    static char ea[8192], eb[8192];
    ea[0] = eb[0] = '\0';
    int ra = journal_parse(path, (const char *)data, size, &a, ea, sizeof ea);
    int rb = journal_load(path, &b, eb, sizeof eb);
    if (ra != rb || strcmp(ea, eb) != 0)
        fuzz_fail("buffer and file parses differ: %d '%s' vs %d '%s'", ra, ea, rb, eb);
    if (ra != 0 && ra != 2)
        fuzz_fail("status %d (%s)", ra, ea);
    if (ra && (strncmp(ea, path, strlen(path)) != 0 || strlen(ea) <= strlen(path)))
        fuzz_fail("message does not start with the file name: '%s'", ea);
    if (!ra) {
        if (!same_parse(&a, &b))
            fuzz_fail("buffer and file parses accepted different journals");
        check_accepted(&a);
        check_use(&a, path);
    }
    journal_free(&a);
    journal_free(&b);
    return 0;
}
