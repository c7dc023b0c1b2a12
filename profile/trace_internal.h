/**
 * @file trace_internal.h
 * @brief What profile.c needs from the trace session (internal to profile/).
 */
#ifndef PCS_PROFILE_TRACE_INTERNAL_H
#define PCS_PROFILE_TRACE_INTERNAL_H

#include <stdint.h>

/** Record a complete span [t0, t0 + dur) on the calling thread, if a session is
 *  recording. @p arg_name names @p arg in the span's args (NULL: no args). */
void pcs_trace_complete(const char *name, const char *cat, uint64_t t0_ns, uint64_t dur_ns,
                        const char *arg_name, uint64_t arg);

#endif
