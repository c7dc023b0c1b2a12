/**
 * @file cg_common.h
 * @brief What the standalone callgrind drivers (primary_cg.c, thnet_cg.c)
 *        share: thread CPU time and a double comparison for qsort. A header
 *        of static inline functions, so each driver still builds from its own
 *        .c file with the command its header gives.
 */
#ifndef PCS_BENCH_CG_COMMON_H
#define PCS_BENCH_CG_COMMON_H

#include <time.h>

/* Thread CPU time in ns (CLOCK_THREAD_CPUTIME_ID: preemption is not
   counted, cache and sibling contention is). */
static inline double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* Ascending doubles, for qsort. */
static inline int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
