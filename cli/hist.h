/**
 * @file hist.h
 * @brief Fixed-size log-linear histogram of durations, for tick-time
 *        percentiles over runs of any length (internal to cli/).
 *
 * Values below 64 ns have a bucket each; above, every power of two is split
 * into 32 equal buckets, so a value is known to within 1/32 of itself (about
 * 3 %) and the whole range of uint64_t fits in 1920 counters (15 KiB). This
 * is HdrHistogram's layout with 5 significant bits. A run keeps one of these
 * instead of one sample per tick, whose size grew with the run length.
 */
#ifndef PCS_CLI_HIST_H
#define PCS_CLI_HIST_H

#include <stdint.h>

#define HIST_LINEAR 64u  /* values 0..63 ns: one bucket each */
#define HIST_SUB_BITS 5u /* 32 buckets per power of two above */
#define HIST_BUCKETS (HIST_LINEAR + (64u - 6u) * (1u << HIST_SUB_BITS))

typedef struct hist {
    uint64_t count[HIST_BUCKETS];
    uint64_t n;   /**< values recorded */
    uint64_t max; /**< largest value recorded, exact */
} hist;

/** Record one value (ns). */
void hist_add(hist *h, uint64_t v);

/**
 * Value at percentile @p p in [0, 100] by nearest rank, as its bucket's
 * midpoint (never above the recorded max); p = 100 gives the exact max.
 * 0 when nothing was recorded.
 */
double hist_percentile(const hist *h, double p);

#endif
