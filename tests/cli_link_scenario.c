/**
 * @file cli_link_scenario.c
 * @brief Compiles the host program's cli/scenario.c into the unit-test binary
 *        (the Makefile links the tests' sources and the library only), so
 *        tests/test_scenario_ranges.c can call the scenario loader and the
 *        plant builder the host uses. One file per cli source keeps their
 *        static names apart.
 */
#include "cli/scenario.c"

/* The host assembles scenarios/pwr-station.json into the binary
 * (cli/default_scenario.S); the tests load their scenarios from text. */
const char pcs_default_scenario[] = "{\"schema\": 1}";
