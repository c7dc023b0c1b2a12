/**
 * @file wake.c
 * @brief The futex calls of the reader wait (wake.h has the protocol and its argument).
 *
 * FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline, so a wait
 * interrupted by a signal or by a wake for an earlier publication of the
 * same bucket resumes with the time it had left and no clock arithmetic
 * here. The word is a C11 atomic; the happens-before edges come from the
 * atomics (wake.h), so ThreadSanitizer needs to understand nothing here: the
 * futex only decides when a thread sleeps.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "snapshot/wake.h"

void pcs_wake_sleep(pcs_wake *wk, uint32_t expected, uint32_t bucket, uint64_t deadline_ns)
{
    struct timespec abs;
    struct timespec *tp = NULL;
    if (deadline_ns != UINT64_MAX) {
        abs.tv_sec = (time_t)(deadline_ns / 1000000000u);
        abs.tv_nsec = (long)(deadline_ns % 1000000000u);
        tp = &abs;
    }
    syscall(SYS_futex, (uint32_t *)&wk->word, FUTEX_WAIT_BITSET_PRIVATE, expected, tp, NULL,
            1u << bucket);
}

void pcs_wake_call(pcs_wake *wk, uint32_t bucket, int n)
{
    syscall(SYS_futex, (uint32_t *)&wk->word, FUTEX_WAKE_BITSET_PRIVATE, n, NULL, NULL,
            1u << bucket);
}
