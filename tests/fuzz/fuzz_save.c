/**
 * @file fuzz_save.c
 * @brief libFuzzer target: save files, as `pcsim run --load FILE` reads them.
 *
 * One station world per process, built as `pcsim run` builds it from
 * tests/fuzz/save_station.json: one unit with the full instrumentation, so
 * every saved model is there and an execution costs a quarter of the 4-unit
 * station's (PCSIM_FUZZ_SAVE_SCENARIO names another file; its seeds must come
 * from the same scenario, since a save only loads into the world it came
 * from). Its state at build is kept as a save image. Per input: load the
 * input (a memfd, so the loader opens and reads a real file); a refused load
 * must leave the world exactly as it was; an accepted one runs a few ticks,
 * and the station is then rebuilt from its scenario (a world that has ticked
 * refuses a save whose structure log extends its own, persist.h, so the
 * next input needs a fresh one; accepted inputs are the rare ones). A save
 * with a structure log is the exception persist.h states: its changes are
 * applied to the fresh world once everything that can be checked first
 * passed, and are not undone; after such an input, refused after the
 * replay, the world must refuse to tick and the station is rebuilt (the
 * rebuilt world must have the pristine hash).
 *
 * The custom mutator reseals the checksums after every mutation
 * (pcs_persist_reseal), so inputs get past them to the contents, and mixes
 * libFuzzer's byte-level mutations with overwriting one aligned number by a
 * value loaders must survive (0, negative, tiny, huge, NaN, Inf, ring
 * positions past a capacity). It reads nothing of the format itself, so it
 * keeps working when the header changes.
 *
 * Seeds are real saves from `pcsim run tests/fuzz/save_station.json --save`
 * (make fuzz-seeds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/persist_internal.h"
#include "tests/fuzz/fuzz_common.h"

#define TICKS_AFTER_LOAD 3

static fuzz_station station;
static const char *scenario_file;
static int verbose; /* PCSIM_FUZZ_VERBOSE=1: say what each load did */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    verbose = getenv("PCSIM_FUZZ_VERBOSE") != NULL;
    const char *file = getenv("PCSIM_FUZZ_SAVE_SCENARIO");
    scenario_file = file && file[0] ? file : "tests/fuzz/save_station.json";
    fuzz_build_station_file(&station, scenario_file);
    fuzz_keep_pristine(&station);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_PATH_LEN];
    fuzz_file(0, data, size, path);
    pcs_world *w = station.world;
    if (pcs_world_load(w, path) != PCS_OK) {
        const char *why = pcs_last_error();
        if (verbose)
            fprintf(stderr, "fuzz_save: refused: %s\n", why);
        if (!why || !strstr(why, path))
            fuzz_fail("refused load without naming the file: '%s'", why ? why : "(null)");
        if (pcs_structure_log_count(w) != 0) { /* the exception: see the file comment */
            if (pcs_world_tick(w) != PCS_E_STATE)
                fuzz_fail("a world refused after a replay ticked: %s", why);
            fuzz_rebuild(&station, scenario_file);
            return 0;
        }
        if (pcs_world_state_hash(w) != fuzz_pristine_hash())
            fuzz_fail("a refused load changed the world: %s", why);
        return 0;
    }
    /* Accepted: the loaded state must tick (a failing tick is an answer too,
     * as long as nothing crashes or hangs). */
    if (verbose)
        fprintf(stderr, "fuzz_save: accepted a save at tick %llu\n",
                (unsigned long long)pcs_world_clock(w)->tick);
    for (int i = 0; i < TICKS_AFTER_LOAD; i++)
        if (pcs_world_tick(w) != PCS_OK) {
            if (verbose)
                fprintf(stderr, "fuzz_save: tick failed: %s\n", pcs_last_error());
            break;
        }
    /* it ticked: fresh for the next input (see the file comment) */
    fuzz_rebuild(&station, scenario_file);
    return 0;
}

/* A small deterministic generator from the mutator's seed (no libc rand). */
static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Overwrite one aligned 8- or 4-byte slot with a value that stresses a loader. */
static void poke(uint8_t *data, size_t size, uint32_t *rng)
{
    static const double doubles[] = {0.0,   -0.0,   -1.0, 1e-300, 5e-324, 1e-6,
                                     1e300, -1e300, 1e9,  40.0,   0.5,    2.0};
    static const uint32_t ints[] = {0u,          1u,          2u,          40u,      255u,
                                    256u,        1024u,       65535u,      1u << 30, 0x7fffffffu,
                                    0x80000000u, 0xfffffffeu, 0xffffffffu, 1u << 16, 1u << 20};
    int wide = next(rng) & 1u;
    size_t align = wide ? 8 : 4;
    if (size < align)
        return;
    size_t at = (next(rng) % (size / align)) * align;
    if (wide) {
        uint32_t pick = next(rng) % (sizeof doubles / sizeof doubles[0] + 3);
        double v = pick == 12   ? NAN
                   : pick == 13 ? INFINITY
                   : pick == 14 ? -INFINITY
                                : doubles[pick];
        if (next(rng) % 3 == 0) { /* or scale what is there */
            double old;
            memcpy(&old, data + at, sizeof old);
            v = old * doubles[next(rng) % (sizeof doubles / sizeof doubles[0])];
        }
        memcpy(data + at, &v, sizeof v);
    } else {
        uint32_t v = ints[next(rng) % (sizeof ints / sizeof ints[0])];
        memcpy(data + at, &v, sizeof v);
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t rng = seed | 1u;
    if (next(&rng) % 3 == 0 || size < 8) {
        size = LLVMFuzzerMutate(data, size, max_size);
    } else {
        uint32_t n = 1 + next(&rng) % 3;
        for (uint32_t i = 0; i < n; i++)
            poke(data, size, &rng);
    }
    pcs_persist_reseal(data, size);
    return size;
}
