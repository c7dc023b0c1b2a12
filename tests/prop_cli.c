/**
 * @file prop_cli.c
 * @brief The host program's scenario reader and plant bridge, compiled into
 *        the unit-test binary for the scenario property (test_properties.c).
 *
 * cli/ objects are not part of the library the tests link; including the
 * three sources here compiles the current versions into the tests without a
 * build rule of their own. The embedded default scenario (cli/default_scenario.S)
 * is not needed: the property always loads a file.
 */
#include "cli/jsonr.c"
#include "cli/plant.c"
#include "cli/scenario.c"

const char pcs_default_scenario[] = "{\"schema\": 1}";
