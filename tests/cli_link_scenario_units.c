/**
 * @file cli_link_scenario_units.c
 * @brief Compiles the host program's cli/scenario_units.c into the unit-test
 *        binary (see tests/cli_link_scenario.c).
 */
#include "cli/scenario_units.c"
