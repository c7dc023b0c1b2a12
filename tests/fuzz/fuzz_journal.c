/**
 * @file fuzz_journal.c
 * @brief libFuzzer target: the journal reader of `pcsim replay`.
 *
 * Each input is parsed twice, from the buffer (journal_parse) and from a
 * regular file through the bounded line reader (journal_load on a memfd), and
 * the two must agree on the result, the message and every command. An
 * accepted journal must hold what replay relies on: commands in tick order,
 * before the end tick, kinds in range, counts within the bounds.
 */
#include <string.h>

#include "station/journal.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check_accepted(const journal *j, const journal_expect *x)
{
    if (!j->have_end || j->end_tick > PCS_CLOCK_TICK_MAX)
        fuzz_fail("accepted without a valid end tick (%llu)", (unsigned long long)j->end_tick);
    if (j->n_actions > JOURNAL_MAX_COMMANDS || j->lineno > JOURNAL_MAX_LINES)
        fuzz_fail("accepted %u commands in %u lines", j->n_actions, j->lineno);
    uint32_t same = 0;
    for (uint32_t i = 0; i < j->n_actions; i++) {
        const pcs_timed_command *a = &j->actions[i];
        if (a->cmd.kind == 0 || a->cmd.kind >= PCS_COMMAND_KINDS_MAX)
            fuzz_fail("accepted command %u with kind %u", i, a->cmd.kind);
        if (a->tick >= j->end_tick || (i && a->tick < j->actions[i - 1].tick))
            fuzz_fail("accepted command %u at tick %llu out of order or past the end", i,
                      (unsigned long long)a->tick);
        if (j->lines[i] == 0 || j->lines[i] > j->lineno || (i && j->lines[i] <= j->lines[i - 1]))
            fuzz_fail("command %u has line number %u", i, j->lines[i]);
        same = (i && a->tick == j->actions[i - 1].tick) ? same + 1 : 1;
        if (same > x->commands_per_tick || same > PCS_JOURNAL_TICK_COMMANDS_MAX)
            fuzz_fail("accepted %u commands at tick %llu", same, (unsigned long long)a->tick);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_LEN];
    fuzz_file(0, data, size, path);
    /* A replay of the built-in scenario from tick 0, with a tight per-tick
     * limit so the crowded-tick check is reachable. */
    journal_expect x = {.file = path,
                        .scenario = "<built-in pwr-station.json>",
                        .scenario_given = 0,
                        .start_tick = 0,
                        .commands_per_tick = 4};
    journal a, b;
    static char ea[8192], eb[8192];
    ea[0] = eb[0] = '\0';
    int ra = journal_parse(&x, (const char *)data, size, &a, ea, sizeof ea);
    int rb = journal_load(&x, &b, eb, sizeof eb);
    if (ra != rb || strcmp(ea, eb) != 0)
        fuzz_fail("buffer and file parses differ: %d '%s' vs %d '%s'", ra, ea, rb, eb);
    if (ra != 0 && ra != 2)
        fuzz_fail("status %d (%s)", ra, ea);
    if (ra && (strncmp(ea, path, strlen(path)) != 0 || strlen(ea) <= strlen(path)))
        fuzz_fail("message does not start with the file name: '%s'", ea);
    if (!ra) {
        if (a.n_actions != b.n_actions || a.end_tick != b.end_tick || a.want_hash != b.want_hash ||
            a.lineno != b.lineno ||
            (a.n_actions && (memcmp(a.actions, b.actions, a.n_actions * sizeof *a.actions) ||
                             memcmp(a.lines, b.lines, a.n_actions * sizeof *a.lines))))
            fuzz_fail("buffer and file parses accepted different journals");
        check_accepted(&a, &x);
    }
    journal_free(&a);
    journal_free(&b);
    return 0;
}
