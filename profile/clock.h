/**
 * @file clock.h
 * @brief The profile module's time source (internal): CLOCK_MONOTONIC in nanoseconds.
 *
 * profile/ is the one library folder allowed to read a clock (docs/ARCHITECTURE.md
 * section 1). CLOCK_MONOTONIC never jumps backwards and is a vDSO call on
 * Linux (no system call).
 */
#ifndef PCS_PROFILE_CLOCK_H
#define PCS_PROFILE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pcs_profile_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

#endif
