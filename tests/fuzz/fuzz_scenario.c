/**
 * @file fuzz_scenario.c
 * @brief libFuzzer target: scenario files, as `pcsim run FILE` reads them.
 *
 * The input is a scenario file (through a memfd, so the loader opens, sizes
 * and reads a real file): pcs_scenario_load_file parses, migrates and validates it;
 * an accepted scenario is built into a world with its plant (which must
 * succeed: the validator accepts only what the builder does) and its script
 * is resolved to commands, as the run does before its first tick; to keep
 * executions cheap, one accepted input in 8 is built (should_build). Every
 * refusal must be a message that starts with the file name; an accepted
 * scenario must hold what the run relies on.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"

static int build_every; /* PCSIM_FUZZ_BUILD_ALL=1: build every accepted scenario */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *all = getenv("PCSIM_FUZZ_BUILD_ALL");
    build_every = all && all[0] == '1';
    return 0;
}

/* Building a station settles each unit for 60 simulated seconds, about 80 %
 * of an execution; the loader is what this target is for. So one accepted
 * input in 8, chosen by an FNV-1a hash of its bytes (deterministic: a
 * replayed input takes the same path), is also built; the rest stop after
 * validation. The corrupted-input replay in make fuzz-smoke builds every one
 * (PCSIM_FUZZ_BUILD_ALL=1), and the scenario property test
 * (tests/test_properties.c) checks validate-then-build on drawn scenarios. */
static int should_build(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return build_every || (h & 7u) == 0u;
}

static void check_message(const char *path, const char *err)
{
    size_t n = strlen(path);
    if (strncmp(err, path, n) != 0 || strlen(err) <= n + 2)
        fuzz_fail("refusal does not name the file: '%s'", err);
}

static void check_scenario(const scenario *s)
{
    if (s->n_script > SCN_MAX_SCRIPT || s->run.n_reader_names > SCN_MAX_READER_CHANNELS)
        fuzz_fail("%u script actions, %u reader names", s->n_script, s->run.n_reader_names);
    if (s->run.timeline_ticks < 1 || s->run.run_ticks > PCS_CLOCK_TICK_MAX)
        fuzz_fail("timeline every %llu ticks, run %llu ticks",
                  (unsigned long long)s->run.timeline_ticks, (unsigned long long)s->run.run_ticks);
    if (strnlen(s->name, sizeof s->name) == sizeof s->name)
        fuzz_fail("name is not terminated");
    for (uint32_t i = 0; i < s->n_script; i++) {
        const scn_action *a = &s->script[i];
        if (strnlen(a->command, sizeof a->command) == sizeof a->command ||
            strnlen(a->target, sizeof a->target) == sizeof a->target)
            fuzz_fail("script[%u] strings are not terminated", i);
        if (i && a->tick < s->script[i - 1].tick)
            fuzz_fail("script[%u] at tick %llu is before the previous action", i,
                      (unsigned long long)a->tick);
    }
}

/* Build the world and plant and resolve the script, as build_world does. */
static void build(const pcs_scenario *scn, const char *path)
{
    pcs_world_def cfg = pcs_scenario_world_def(scn);
    pcs_world *w = NULL;
    pcs_station *st = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK)
        fuzz_fail("validated world config refused: %s", pcs_last_error());
    /* Issue 12: every range the validator accepts is one the builder accepts,
     * so a validated scenario that does not build is a finding. */
    if (pcs_station_add(w, scn, &st) != PCS_OK) {
        fuzz_fail("validated scenario does not build: %s", pcs_last_error());
    } else {
        for (uint32_t i = 0; i < pcs_scenario_action_count(scn); i++) {
            pcs_command cmd;
            if (pcs_station_script_command(st, scn, i, &cmd) != PCS_OK)
                check_message(path, pcs_last_error());
        }
    }
    pcs_station_destroy(st);
    pcs_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_LEN];
    fuzz_file(0, data, size, path);
    pcs_scenario *scn = NULL;
    if (pcs_scenario_load_file(path, NULL, &scn) != PCS_OK) {
        check_message(path, pcs_last_error());
        return 0;
    }
    check_scenario(&scn->s);
    if (should_build(data, size))
        build(scn, path);
    pcs_scenario_destroy(scn);
    return 0;
}
