/**
 * @file rng.h
 * @brief Seeded per-stream random numbers: xoshiro256** seeded by splitmix64.
 *
 * Each (world seed, entity id, stream id) triple owns an independent stream,
 * so adding an entity or a model never shifts another stream's numbers.
 * Generators: D. Blackman and S. Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 47 (2021); splitmix64 from G. Steele, D. Lea, C. Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014.
 * A pcs_rng is plain data (it may live in a state store and be hashed/saved);
 * one generator must not be used by two threads at once.
 */
#ifndef PCSIM_RNG_H
#define PCSIM_RNG_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** xoshiro256** state: four 64-bit words, never all zero. */
typedef struct pcs_rng {
    uint64_t s[4];
} pcs_rng;

/**
 * Seed @p rng for stream (@p world_seed, @p entity_id, @p stream_id).
 * The three keys are mixed through splitmix64 so nearby keys give unrelated
 * streams. @return PCS_E_INVAL if rng is NULL.
 */
PCS_API pcs_status pcs_rng_seed(pcs_rng *rng, uint64_t world_seed, uint64_t entity_id,
                                uint64_t stream_id);

/** Next 64 random bits. rng must be seeded (not checked on the hot path). */
PCS_API uint64_t pcs_rng_next_u64(pcs_rng *rng);

/** Uniform double in [0, 1) with 53 random bits. */
PCS_API double pcs_rng_uniform(pcs_rng *rng);

/**
 * Standard normal deviate (mean 0, variance 1) by the Box-Muller transform
 * (G. Box, M. Muller, Ann. Math. Stat. 29 (1958)); uses two uniforms per call
 * and discards the second deviate so the stream position is call-count exact.
 */
PCS_API double pcs_rng_normal(pcs_rng *rng);

/** One step of splitmix64 on @p state (advances it) and its output. */
PCS_API uint64_t pcs_splitmix64(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif
