/**
 * @file futex.c
 * @brief Linux futex wait/wake for the join's bounded wait (see futex.h).
 *
 * The word is a C11 atomic: the value protocol (release store by the thread
 * that finishes the last chunk, acquire load by the joiner) carries the
 * happens-before edge, so ThreadSanitizer needs to understand nothing here;
 * the futex only decides when to sleep.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "exec/futex.h"

int pcs_futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns)
{
    struct timespec rel;
    struct timespec *tp = NULL;
    if (timeout_ns >= 0) {
        rel.tv_sec = (time_t)(timeout_ns / 1000000000);
        rel.tv_nsec = (long)(timeout_ns % 1000000000);
        tp = &rel;
    }
    /* FUTEX_WAIT (unlike FUTEX_WAIT_BITSET) interprets the timeout as relative. */
    long r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, tp, NULL, 0);
    return (r == -1 && errno == ETIMEDOUT) ? 1 : 0;
}

void pcs_futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
