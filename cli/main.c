/**
 * @file main.c
 * @brief The pcsim host program: subcommand dispatch.
 */
#include <stdio.h>
#include <string.h>

#include "cli/host.h"
#include "cli/serve.h"

static void usage(FILE *f)
{
    fputs("usage: pcsim <command> [options]\n"
          "  run [SCENARIO]   run a scenario (default: the built-in 4-unit PWR station)\n"
          "  replay JOURNAL   re-run a journal and check its final state hash\n"
          "  info             version, build flags, topology and worker placement\n"
          "  info --schedule [SCENARIO]  the station's stages, systems, stores and jobs\n"
          "  serve [SCENARIO] --port N   serve the station to TCP clients (docs/protocol.md)\n"
          "  plot RUN.csv -o PNG  the transient panels of a `run --csv` file (matplotlib)\n"
          "  --version        print the version\n"
          "Each command takes --help.\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0)
        return cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0) {
        printf("pcsim %s\n", pcs_version());
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "pcsim: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
