/**
 * @file hist.h
 * @brief Log-linear latency histogram (internal to profile/).
 *
 * Values below 32 ns have a bucket each. Above, every power of two [2^e, 2^(e+1))
 * is split into 32 equal sub-buckets of width 2^(e-5), so a bucket's width is at
 * most 1/32 of any value in it: reporting a bucket's upper edge overstates the
 * true value by less than 3.1 %. Values of 2^41 ns (~37 min) and more share the
 * overflow bucket. Fixed size (1185 buckets, ~9.3 KiB): recording is two shifts, an
 * increment and min/max updates, with no allocation.
 */
#ifndef PCS_PROFILE_HIST_H
#define PCS_PROFILE_HIST_H

#include <stdint.h>

#define PCS_HIST_SUB_BITS 5u
#define PCS_HIST_SUB (1u << PCS_HIST_SUB_BITS)
#define PCS_HIST_MAX_EXP 40u
/* exact buckets, 32 per power of two up to 2^40, one overflow bucket */
#define PCS_HIST_BUCKETS                                                                           \
    (PCS_HIST_SUB + (PCS_HIST_MAX_EXP - PCS_HIST_SUB_BITS + 1u) * PCS_HIST_SUB + 1u)

typedef struct pcs_hist {
    uint64_t count;
    uint64_t total;
    uint64_t min;
    uint64_t max;
    uint64_t buckets[PCS_HIST_BUCKETS];
} pcs_hist;

void pcs_hist_reset(pcs_hist *h);
void pcs_hist_record(pcs_hist *h, uint64_t v);
/** Nearest-rank percentile p in [0, 100]: the upper edge of the bucket holding
 *  rank ceil(p/100 * count) (at least 1), capped at max. 0 when empty. */
uint64_t pcs_hist_percentile(const pcs_hist *h, double p);
/** Bucket index of v, and the largest value that bucket holds (for tests). */
uint32_t pcs_hist_index(uint64_t v);
uint64_t pcs_hist_upper(uint32_t index);

#endif
