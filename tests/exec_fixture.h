/**
 * @file exec_fixture.h
 * @brief A test world with a real slow job, shared by the exec tests, stress and bench.
 *
 * The world holds a 32 x 32 scalar field (STATE store "fx.grid") and a running
 * total (STATE store "fx.total"). A FAST system (stage HEAT) decays the field
 * and adds a moving point source every tick, so the state keeps changing
 * between a job's submit and its merge. The SLOW job "fx.diffusion" (phase 3,
 * 8 chunks of 4 rows) computes from the copy taken at submit one explicit
 * diffusion step with periodic boundaries, a first-order loss
 * exp(-k dt) through pcs_exp, and seeded noise from one pcs_rng stream per
 * (world seed, chunk, submit tick); each chunk also returns the sum of its
 * rows in row order. The merge blends the rows into the live field and adds
 * the chunk sums to the total in chunk order.
 *
 * Knobs for the steal path and for error paths: a chunk may sleep, and a
 * chunk may fail, on chosen submit ticks. Recorded by the merge: how many
 * merges ran and the submit->merge distance in ticks (must be the period).
 */
#ifndef PCS_TESTS_EXEC_FIXTURE_H
#define PCS_TESTS_EXEC_FIXTURE_H

#include <stdint.h>

#include "pcsim/pcsim.h"

#define FX_NX 32u
#define FX_NY 32u
#define FX_CHUNKS 8u
#define FX_ROWS_PER_CHUNK (FX_NY / FX_CHUNKS)
#define FX_PHASE 3u

typedef struct fx_job {
    uint32_t grid_store;
    uint32_t total_store;
    uint64_t seed;
    /* Sleep: chunk sleep_chunk sleeps sleep_us when submit_tick % sleep_every == FX_PHASE. */
    uint32_t sleep_chunk;
    uint32_t sleep_us;
    uint32_t sleep_every; /* 0 = never */
    /* Failure: chunks with bit c set in fail_mask fail when submit_tick == fail_tick. */
    uint32_t fail_mask;
    uint64_t fail_tick;
    /* Written by the merge on the world thread. */
    uint64_t merges;
    uint64_t bad_distance; /* merges whose submit->merge distance was not 20 ticks */
    uint64_t torn_outputs; /* chunk outputs whose checksum did not match */
} fx_job;

/** Register the stores, the FAST system and the job on @p w. @p job lives as long as w. */
pcs_status fx_build(pcs_world *w, fx_job *job);

/** Create a world (seed, join timeout) with the fixture built. */
pcs_status fx_world(uint64_t seed, double join_timeout_s, fx_job *job, pcs_world **out);

/** Tick @p w to @p ticks, storing the hash after every 100th tick in hashes[tick/100 - 1]. */
pcs_status fx_run(pcs_world *w, uint64_t ticks, uint64_t *hashes);

/** Sleep @p us microseconds (tests only: the library never sleeps). */
void fx_sleep_us(uint32_t us);

#endif
