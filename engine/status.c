/**
 * @file status.c
 * @brief Status names and the thread-local last-error message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/status.h"

static _Thread_local char pcs_error_message[PCS_LAST_ERROR_MAX];

const char *pcs_status_str(pcs_status status)
{
    switch (status) {
    case PCS_OK:
        return "PCS_OK";
    case PCS_E_INVAL:
        return "PCS_E_INVAL";
    case PCS_E_NOMEM:
        return "PCS_E_NOMEM";
    case PCS_E_RATE:
        return "PCS_E_RATE";
    case PCS_E_OVERFLOW:
        return "PCS_E_OVERFLOW";
    case PCS_E_IO:
        return "PCS_E_IO";
    case PCS_E_CORRUPT:
        return "PCS_E_CORRUPT";
    case PCS_E_VERSION:
        return "PCS_E_VERSION";
    case PCS_E_STATE:
        return "PCS_E_STATE";
    case PCS_E_NOTFOUND:
        return "PCS_E_NOTFOUND";
    case PCS_E_NUMERIC:
        return "PCS_E_NUMERIC";
    case PCS_E_TIMEOUT:
        return "PCS_E_TIMEOUT";
    }
    return "PCS_E_UNKNOWN";
}

const char *pcs_last_error(void)
{
    return pcs_error_message;
}

pcs_status pcs_error_set(pcs_status status, const char *fmt, ...)
{
    /* Format into a copy first: callers wrap a callee's error with
     * pcs_error_set(st, "context: %s", pcs_last_error()), and vsnprintf into
     * the buffer it is reading from is undefined (it garbled the text). */
    char msg[sizeof pcs_error_message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(pcs_error_message, msg, strlen(msg) + 1);
    return status;
}

void pcs_error_clear(void)
{
    pcs_error_message[0] = '\0';
}
