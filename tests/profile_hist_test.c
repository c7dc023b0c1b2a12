/**
 * @file profile_hist_test.c
 * @brief The profile module's log-linear histogram: bucket edges, error bound, percentiles.
 */
#include <criterion/criterion.h>

#include "profile/hist.h"

Test(profile_hist, small_values_have_exact_buckets)
{
    for (uint64_t v = 0; v < 32; v++) {
        cr_assert_eq(pcs_hist_index(v), v);
        cr_assert_eq(pcs_hist_upper(pcs_hist_index(v)), v);
    }
}

Test(profile_hist, bucket_edges_by_hand)
{
    /* [32, 64): width 1; [64, 128): width 2; [256, 512): width 8. */
    cr_assert_eq(pcs_hist_upper(pcs_hist_index(32)), 32);
    cr_assert_eq(pcs_hist_upper(pcs_hist_index(63)), 63);
    cr_assert_eq(pcs_hist_upper(pcs_hist_index(64)), 65);
    cr_assert_eq(pcs_hist_upper(pcs_hist_index(65)), 65);
    cr_assert_eq(pcs_hist_upper(pcs_hist_index(500)), 503);
}

Test(profile_hist, upper_edge_within_one_32nd)
{
    /* Every value's bucket edge is >= the value and less than value/32 above it. */
    uint64_t v = 1;
    for (int i = 0; i < 4000; i++) {
        uint64_t up = pcs_hist_upper(pcs_hist_index(v));
        cr_assert_geq(up, v, "v=%llu", (unsigned long long)v);
        cr_assert_leq(up - v, v / 32, "v=%llu up=%llu", (unsigned long long)v,
                      (unsigned long long)up);
        v = v + v / 97 + 1; /* walk up to ~2^40 through many bucket positions */
        if (v >= (UINT64_C(1) << 40))
            break;
    }
}

Test(profile_hist, percentiles_of_1_to_1000)
{
    static pcs_hist h;
    pcs_hist_reset(&h);
    for (uint64_t v = 1; v <= 1000; v++)
        pcs_hist_record(&h, v);
    cr_assert_eq(h.count, 1000);
    cr_assert_eq(h.total, 500500); /* n(n+1)/2 */
    cr_assert_eq(h.min, 1);
    cr_assert_eq(h.max, 1000);
    /* rank 500 lies in [496, 503] (width 8) -> 503; rank 990 in [976, 991] -> 991;
     * rank 1000 -> bucket [992, 1007] capped at the exact max 1000. */
    cr_assert_eq(pcs_hist_percentile(&h, 50.0), 503);
    cr_assert_eq(pcs_hist_percentile(&h, 99.0), 991);
    cr_assert_eq(pcs_hist_percentile(&h, 100.0), 1000);
    cr_assert_eq(pcs_hist_percentile(&h, 0.0), 1);
}

Test(profile_hist, huge_values_go_to_the_overflow_bucket)
{
    static pcs_hist h;
    pcs_hist_reset(&h);
    pcs_hist_record(&h, UINT64_C(1) << 50);
    cr_assert_eq(pcs_hist_index(UINT64_C(1) << 50), PCS_HIST_BUCKETS - 1);
    cr_assert_eq(pcs_hist_percentile(&h, 50.0), UINT64_C(1) << 50); /* capped at max */
}

Test(profile_hist, empty_histogram_reports_zero)
{
    static pcs_hist h;
    pcs_hist_reset(&h);
    cr_assert_eq(pcs_hist_percentile(&h, 99.0), 0);
}
