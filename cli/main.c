/**
 * @file main.c
 * @brief The pcsim host program (grows with the host issue): for now `pcsim run`
 *        ticks an empty world and prints its hash.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"

static int cmd_run(void)
{
    pcs_world_config cfg;
    pcs_world_config_default(&cfg);
    pcs_world *w = NULL;
    if (pcs_world_create(&cfg, &w) != PCS_OK) {
        fprintf(stderr, "pcsim: %s\n", pcs_last_error());
        return 1;
    }
    for (int i = 0; i < 1200; i++) {
        if (pcs_world_tick(w) != PCS_OK) {
            fprintf(stderr, "pcsim: tick failed: %s\n", pcs_last_error());
            pcs_world_destroy(w);
            return 1;
        }
    }
    printf("pcsim %s: %" PRIu64 " ticks, state hash %016" PRIx64 "\n", pcs_version(),
           pcs_world_clock(w)->tick, pcs_world_state_hash(w));
    pcs_world_destroy(w);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return cmd_run();
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("pcsim %s\n", pcs_version());
        return 0;
    }
    fprintf(stderr, "usage: pcsim run | --version\n");
    return 2;
}
