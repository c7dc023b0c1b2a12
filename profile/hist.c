/**
 * @file hist.c
 * @brief Log-linear latency histogram: record and nearest-rank percentiles.
 */
#include <string.h>

#include "profile/hist.h"

void pcs_hist_reset(pcs_hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

uint32_t pcs_hist_index(uint64_t v)
{
    if (v < PCS_HIST_SUB)
        return (uint32_t)v;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(v); /* 2^e <= v < 2^(e+1), e >= 5 */
    if (e > PCS_HIST_MAX_EXP)
        return PCS_HIST_BUCKETS - 1u;
    uint32_t sub = (uint32_t)(v >> (e - PCS_HIST_SUB_BITS)) & (PCS_HIST_SUB - 1u);
    return PCS_HIST_SUB + (e - PCS_HIST_SUB_BITS) * PCS_HIST_SUB + sub;
}

uint64_t pcs_hist_upper(uint32_t index)
{
    if (index < PCS_HIST_SUB)
        return index;
    if (index >= PCS_HIST_BUCKETS - 1u)
        return UINT64_MAX;
    uint32_t k = index - PCS_HIST_SUB;
    uint32_t e = k / PCS_HIST_SUB + PCS_HIST_SUB_BITS, sub = k % PCS_HIST_SUB;
    uint64_t width = UINT64_C(1) << (e - PCS_HIST_SUB_BITS);
    return (UINT64_C(1) << e) + (uint64_t)(sub + 1u) * width - 1u;
}

void pcs_hist_record(pcs_hist *h, uint64_t v)
{
    h->buckets[pcs_hist_index(v)]++;
    h->count++;
    h->total += v;
    h->min = v < h->min ? v : h->min;
    h->max = v > h->max ? v : h->max;
}

uint64_t pcs_hist_percentile(const pcs_hist *h, double p)
{
    if (h->count == 0)
        return 0;
    double want = p / 100.0 * (double)h->count;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want)
        rank++; /* ceil */
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < PCS_HIST_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            uint64_t up = pcs_hist_upper(i);
            return up < h->max ? up : h->max;
        }
    }
    return h->max;
}
