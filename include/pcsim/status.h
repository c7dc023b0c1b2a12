/**
 * @file status.h
 * @brief Status codes and the thread-local last-error message.
 *
 * Every fallible pcsim function returns a pcs_status. On failure it also sets a
 * thread-local message that says what was wrong and where (field, value,
 * allowed range). The library never prints and never aborts on bad input.
 */
#ifndef PCSIM_STATUS_H
#define PCSIM_STATUS_H

#include "pcsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a pcsim call: PCS_OK (0) or a negative error. */
typedef enum pcs_status {
    PCS_OK = 0,
    PCS_E_INVAL = -1,    /**< an argument or configuration value is invalid */
    PCS_E_NOMEM = -2,    /**< an allocation failed */
    PCS_E_RATE = -3,     /**< a bounded queue is full; nothing was enqueued */
    PCS_E_OVERFLOW = -4, /**< a counter or fixed buffer would overflow */
    PCS_E_IO = -5,       /**< a file could not be read or written */
    PCS_E_CORRUPT = -6,  /**< input data failed a consistency check */
    PCS_E_VERSION = -7,  /**< a file or schema version is not supported */
    PCS_E_STATE = -8,    /**< the call is not allowed in the object's state */
    PCS_E_NOTFOUND = -9, /**< a named thing does not exist */
    PCS_E_NUMERIC = -10, /**< a value became NaN or infinite (world config check_finite) */
    PCS_E_TIMEOUT = -11, /**< a wait's time limit passed first (pcs_reader_wait) */
} pcs_status;

/**
 * Short constant name of a status ("PCS_E_INVAL").
 * @return a static string; "PCS_E_UNKNOWN" for values outside the enum.
 * Thread-safe.
 */
PCS_API const char *pcs_status_str(pcs_status status);

/**
 * The message of the last error set on the calling thread.
 * @return a thread-local string, valid until the next pcsim call on this
 *         thread; "" if no error has been set. Thread-safe (per thread).
 */
PCS_API const char *pcs_last_error(void);

/** Size of the last-error buffer: messages are truncated to one byte less.
 *  Large enough for a scenario or journal message that quotes a file path
 *  and a whole journal line (pcsim/station.h). */
#define PCS_LAST_ERROR_MAX 4096

/**
 * Set the calling thread's last-error message (printf format) and return
 * @p status, so a system can write `return pcs_error_set(PCS_E_INVAL, ...)`.
 * Messages longer than PCS_LAST_ERROR_MAX - 1 bytes are truncated. The arguments may include
 * pcs_last_error() itself, to wrap a callee's message with context.
 * Thread-safe (per thread).
 */
PCS_API pcs_status pcs_error_set(pcs_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/** Clear the calling thread's last-error message. */
PCS_API void pcs_error_clear(void);

#ifdef __cplusplus
}
#endif

#endif
