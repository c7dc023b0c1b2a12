/**
 * @file info.c
 * @brief `pcsim info`: version, build, and the machine as the engine sees it.
 */
#include <stdio.h>
#include <string.h>

#include "cli/host.h"

#ifndef PCS_BUILD_FLAGS
#define PCS_BUILD_FLAGS "unknown"
#endif

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("usage: pcsim info\n  Prints version, compiler and flags, the CPU topology "
             "and where workers would be pinned.");
        return 0;
    }
    printf("pcsim %s\n", pcs_version());
    printf("compiler: %s\n", __VERSION__);
    printf("flags: %s\n", PCS_BUILD_FLAGS);
    return 0;
}
