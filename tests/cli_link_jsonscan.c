/**
 * @file cli_link_jsonscan.c
 * @brief Compiles the host program's cli/jsonscan.c into the unit-test binary
 *        (the Makefile links the tests' sources and the library only), so
 *        tests/test_scenario_ranges.c can call the scenario loader and the
 *        plant builder the host uses. One file per cli source keeps their
 *        static names apart.
 */
#include "cli/jsonscan.c"
