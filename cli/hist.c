/**
 * @file hist.c
 * @brief Log-linear duration histogram (see hist.h).
 */
#include "cli/hist.h"

/* Bucket of @p v: v itself below 64; else 64 + 32 * (e - 6) + the 5 bits
 * after the leading one, where e = floor(log2 v) >= 6. */
static uint32_t bucket_of(uint64_t v)
{
    if (v < HIST_LINEAR)
        return (uint32_t)v;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(v);
    uint32_t sub = (uint32_t)(v >> (e - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1u);
    return HIST_LINEAR + (e - 6u) * (1u << HIST_SUB_BITS) + sub;
}

/* Midpoint of bucket @p b (inverse of bucket_of). */
static double bucket_mid(uint32_t b)
{
    if (b < HIST_LINEAR)
        return (double)b;
    uint32_t e = (b - HIST_LINEAR) / (1u << HIST_SUB_BITS) + 6u;
    uint32_t sub = (b - HIST_LINEAR) % (1u << HIST_SUB_BITS);
    double width = (double)(UINT64_C(1) << (e - HIST_SUB_BITS));
    double lower = (double)((1u << HIST_SUB_BITS) + sub) * width;
    return lower + 0.5 * width;
}

void hist_add(hist *h, uint64_t v)
{
    h->count[bucket_of(v)]++;
    h->n++;
    if (v > h->max)
        h->max = v;
}

double hist_percentile(const hist *h, double p)
{
    if (h->n == 0)
        return 0.0;
    if (p >= 100.0)
        return (double)h->max;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)(h->n - 1) + 0.5);
    uint64_t seen = 0;
    for (uint32_t b = 0; b < HIST_BUCKETS; b++) {
        seen += h->count[b];
        if (seen > rank) {
            double mid = bucket_mid(b);
            return mid < (double)h->max ? mid : (double)h->max;
        }
    }
    return (double)h->max;
}
