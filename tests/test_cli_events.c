/**
 * @file test_cli_events.c
 * @brief The station's event texts (pcs_event_describe) say what each value is.
 *
 * PCS_EV_FUEL_RANGE carries {flag bit, value, limit or count, channel}
 * (fuel.h): a temperature and its limit for the fuel and clad flags, the
 * coolant outlet temperature and a count of clamped property evaluations for
 * the coolant flag, a flow and a channel group for reverse flow. One text
 * for all four printed the count as "(limit 4)".
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/fuel.h"
#include "pcsim/station.h"
#include "station/station_internal.h"

static pcs_station st; /* FUEL_RANGE texts use no station state */

static const char *describe(uint32_t flag, double v1, double v2, double v3)
{
    static char out[256];
    pcs_event ev = {.kind = PCS_EV_FUEL_RANGE, .subject = 1, .values = {flag, v1, v2, v3}};
    cr_assert_eq(pcs_event_describe(&st, &ev, out, sizeof out), 1);
    return out;
}

Test(cli_events, fuel_range_temperatures_name_the_limit)
{
    cr_expect_str_eq(describe(PCS_FUEL_FLAG_FUEL_RANGE, 3200.5, 3120.0, -1.0),
                     "u2 fuel temperature 3200.5 K is above the UO2 conductivity range (3120 K)");
    cr_expect_str_eq(describe(PCS_FUEL_FLAG_CLAD_RANGE, 1850.0, 1800.0, -1.0),
                     "u2 clad temperature 1850 K is above the Zircaloy conductivity range "
                     "(1800 K)");
}

Test(cli_events, fuel_range_coolant_prints_a_count_not_a_limit)
{
    const char *t = describe(PCS_FUEL_FLAG_COOLANT_RANGE, 650.25, 4.0, -1.0);
    cr_expect_str_eq(t, "u2 coolant properties clamped to their range in 4 evaluations "
                        "(core outlet 650.25 K)");
    cr_expect_null(strstr(t, "limit"), "a count is not a limit: %s", t);
}

Test(cli_events, fuel_range_reverse_flow_names_the_channel_group)
{
    cr_expect_str_eq(describe(PCS_FUEL_FLAG_REVERSE_FLOW, -12.5, 0.0, 3.0),
                     "u2 reverse flow -12.5 kg/s in core channel group 3, used as 0");
}
