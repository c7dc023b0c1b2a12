/**
 * @file expect_err.h
 * @brief EXPECT_ERR: a call returns an error status and sets a message (the
 *        NULL-argument suites, test_api_null.c and test_station_null.c).
 */
#ifndef PCS_TESTS_EXPECT_ERR_H
#define PCS_TESTS_EXPECT_ERR_H

#include <criterion/criterion.h>

#include "pcsim/status.h"

/* The message is cleared first, so a stale one from an earlier call cannot
 * pass for this call's. */
#define EXPECT_ERR(call, want)                                                                     \
    do {                                                                                           \
        pcs_error_clear();                                                                         \
        cr_assert_eq((call), (want), #call);                                                       \
        cr_assert(pcs_last_error()[0] != '\0', #call " sets a message");                           \
    } while (0)

#endif
