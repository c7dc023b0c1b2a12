/**
 * @file futex.h
 * @brief Blocking wait on a 32-bit atomic word with a relative timeout (internal).
 *
 * The join's bounded wait needs a timeout but exec/ reads no clock
 * (docs/ARCHITECTURE.md section 1). Linux FUTEX_WAIT takes a *relative* timeout that the
 * kernel measures, so no clock value ever enters pcsim. Our reading of the
 * rule: blocking with a timeout is not reading a clock; computing a deadline
 * from clock_gettime (as pthread_cond_timedwait would need) is.
 */
#ifndef PCS_EXEC_FUTEX_H
#define PCS_EXEC_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/**
 * Sleep while *word == expected, at most @p timeout_ns (< 0: no limit).
 * Returns early on a wake, a signal, or if *word != expected on entry; the
 * caller re-checks the word. @return 1 if the timeout expired, else 0.
 */
int pcs_futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns);

/** Wake every thread sleeping on @p word. */
void pcs_futex_wake_all(_Atomic uint32_t *word);

#endif
