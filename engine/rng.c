/**
 * @file rng.c
 * @brief xoshiro256** streams seeded by splitmix64 (see rng.h for sources).
 */
#include "pcsim/math.h"
#include "pcsim/rng.h"

uint64_t pcs_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

pcs_status pcs_rng_seed(pcs_rng *rng, uint64_t world_seed, uint64_t entity_id,
                        uint64_t stream_id)
{
    if (!rng)
        return pcs_error_set(PCS_E_INVAL, "pcs_rng_seed: rng is NULL");
    /* Chain the keys through splitmix64 so (seed, entity, stream) triples that
     * differ in one key still produce unrelated states. */
    uint64_t sm = world_seed;
    uint64_t k = pcs_splitmix64(&sm) ^ entity_id;
    k = pcs_splitmix64(&k) ^ stream_id;
    for (int i = 0; i < 4; i++)
        rng->s[i] = pcs_splitmix64(&k);
    /* splitmix64 is a bijection of its counter, so four consecutive outputs
     * are never all zero; xoshiro's forbidden state cannot occur. */
    return PCS_OK;
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t pcs_rng_next_u64(pcs_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double pcs_rng_uniform(pcs_rng *rng)
{
    /* Top 53 bits scaled by 2^-53: every value a multiple of 2^-53 in [0, 1). */
    return (double)(pcs_rng_next_u64(rng) >> 11) * 0x1.0p-53;
}

double pcs_rng_normal(pcs_rng *rng)
{
    /* 1 - u lies in (0, 1], so the log is finite. */
    double u1 = 1.0 - pcs_rng_uniform(rng);
    double u2 = pcs_rng_uniform(rng);
    return pcs_sqrt(-2.0 * pcs_log(u1)) * pcs_cos(2.0 * PCS_PI * u2);
}
