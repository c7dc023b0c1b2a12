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
    /* Start a default pool to show where its workers land, then stop it. */
    pcs_exec *pool = NULL;
    if (pcs_exec_create(NULL, &pool) != PCS_OK) {
        printf("topology: unavailable (%s)\n", pcs_last_error());
        return 0;
    }
    char buf[16384];
    size_t need = pcs_exec_topology_describe(pool, buf, sizeof buf);
    fputs(buf, stdout);
    if (need >= sizeof buf)
        puts("... (truncated)");
    for (uint32_t i = 0; i < pcs_exec_warning_count(pool); i++)
        if (pcs_exec_warning(pool, i))
            printf("warning: %s\n", pcs_exec_warning(pool, i));
    pcs_exec_destroy(pool);
    return 0;
}
