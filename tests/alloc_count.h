/**
 * @file alloc_count.h
 * @brief Count heap allocations made by the calling thread (test support).
 *
 * Release test builds interpose malloc & co. in the test executable and
 * forward them to mimalloc (which the library links as the process
 * allocator). Sanitizer builds cannot interpose malloc; they use the
 * sanitizer allocator's hooks instead. Either way every malloc, calloc,
 * realloc and aligned allocation on the counting thread is counted.
 */
#ifndef PCS_TESTS_ALLOC_COUNT_H
#define PCS_TESTS_ALLOC_COUNT_H

#include <stdint.h>

/** Start counting allocations on the calling thread from zero. */
void pcs_test_alloc_begin(void);
/** Stop counting; return the number of allocations since begin. */
uint64_t pcs_test_alloc_end(void);

#endif
