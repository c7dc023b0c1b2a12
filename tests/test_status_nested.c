/**
 * @file test_status_nested.c
 * @brief pcs_error_set may quote the current message: callers wrap a
 *        callee's error with "context: %s", pcs_last_error().
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/pcsim.h"

Test(status_nested, wrapping_the_last_error_keeps_both_parts)
{
    pcs_error_set(PCS_E_INVAL, "pump 3: speed fraction 2 is outside (0, 1.5]");
    pcs_status st = pcs_error_set(PCS_E_STATE, "pcs_primary_add: %s", pcs_last_error());
    cr_assert_eq(st, PCS_E_STATE);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_primary_add: pump 3: speed fraction 2 is outside (0, 1.5]");
}

Test(status_nested, wrapping_a_full_message_truncates_cleanly)
{
    char longmsg[PCS_LAST_ERROR_MAX + 100];
    memset(longmsg, 'a', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = '\0';
    pcs_error_set(PCS_E_INVAL, "%s", longmsg);
    cr_assert_eq(strlen(pcs_last_error()), PCS_LAST_ERROR_MAX - 1);
    pcs_error_set(PCS_E_STATE, "ctx: %s", pcs_last_error());
    const char *m = pcs_last_error();
    cr_assert_eq(strlen(m), PCS_LAST_ERROR_MAX - 1);
    cr_assert_eq(strncmp(m, "ctx: aaaa", 9), 0, "%.20s", m);
    cr_assert_eq(strspn(m + 5, "a"), PCS_LAST_ERROR_MAX - 6);
}
