/**
 * @file test_rng.c
 * @brief Seeded streams: reproducible, independent, and correct to reference values.
 */
#include <criterion/criterion.h>

#include "pcsim/rng.h"

Test(rng, splitmix64_matches_reference_sequence)
{
    /* Reference: splitmix64 with state 0 gives 0xe220a8397b1dcdaf, then
     * 0x6e789e6aa1b965f4 (Steele, Lea & Flood 2014; Vigna's splitmix64.c). */
    uint64_t s = 0;
    cr_assert_eq(pcs_splitmix64(&s), UINT64_C(0xe220a8397b1dcdaf));
    cr_assert_eq(pcs_splitmix64(&s), UINT64_C(0x6e789e6aa1b965f4));
}

Test(rng, xoshiro_step_matches_hand_computation)
{
    /* With state {1, 2, 3, 4}: result = rotl(2 * 5, 7) * 9 = 1280 * 9 = 11520. */
    pcs_rng r = {{1, 2, 3, 4}};
    cr_assert_eq(pcs_rng_next_u64(&r), 11520u);
    /* Next state per the algorithm: t = 2 << 17; s2 ^= s0 -> 2; s3 ^= s1 -> 6;
     * s1 ^= s2 -> 0; s0 ^= s3 -> 7; s2 ^= t -> 262146; s3 = rotl(6, 45). */
    cr_assert_eq(r.s[0], 7u);
    cr_assert_eq(r.s[1], 0u);
    cr_assert_eq(r.s[2], 262146u);
    cr_assert_eq(r.s[3], UINT64_C(6) << 45);
}

Test(rng, same_keys_reproduce_the_stream)
{
    pcs_rng a, b;
    pcs_rng_seed(&a, 42, 7, 3);
    pcs_rng_seed(&b, 42, 7, 3);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(pcs_rng_next_u64(&a), pcs_rng_next_u64(&b));
}

Test(rng, different_streams_differ)
{
    pcs_rng base, other_stream, other_entity, other_seed;
    pcs_rng_seed(&base, 42, 7, 3);
    pcs_rng_seed(&other_stream, 42, 7, 4);
    pcs_rng_seed(&other_entity, 42, 8, 3);
    pcs_rng_seed(&other_seed, 43, 7, 3);
    int same_stream = 0, same_entity = 0, same_seed = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = pcs_rng_next_u64(&base);
        same_stream += x == pcs_rng_next_u64(&other_stream);
        same_entity += x == pcs_rng_next_u64(&other_entity);
        same_seed += x == pcs_rng_next_u64(&other_seed);
    }
    cr_assert_eq(same_stream + same_entity + same_seed, 0);
}

Test(rng, uniform_in_unit_interval_with_expected_mean)
{
    pcs_rng r;
    pcs_rng_seed(&r, 1, 0, 0);
    double sum = 0.0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double u = pcs_rng_uniform(&r);
        cr_assert(u >= 0.0 && u < 1.0);
        sum += u;
    }
    /* Mean 1/2, standard error sqrt(1/12/n) = 9.1e-4; allow 5 sigma. */
    cr_assert_float_eq(sum / n, 0.5, 5 * 9.1e-4);
}

Test(rng, normal_has_unit_variance)
{
    pcs_rng r;
    pcs_rng_seed(&r, 9, 1, 2);
    double sum = 0.0, sum2 = 0.0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double z = pcs_rng_normal(&r);
        sum += z;
        sum2 += z * z;
    }
    /* Mean 0 (se 1/sqrt(n) = 3.2e-3), variance 1 (se sqrt(2/n) = 4.5e-3); 5 sigma. */
    cr_assert_float_eq(sum / n, 0.0, 5 * 3.2e-3);
    cr_assert_float_eq(sum2 / n, 1.0, 5 * 4.5e-3);
}

Test(rng, null_is_rejected)
{
    cr_assert_eq(pcs_rng_seed(NULL, 1, 2, 3), PCS_E_INVAL);
}
