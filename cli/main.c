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

/* The subcommands: each runs on the arguments after its name (argv[0] is
 * the name). */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"run", cmd_run},     {"replay", cmd_replay}, {"info", cmd_info},
    {"serve", cmd_serve}, {"plot", cmd_plot},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
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
