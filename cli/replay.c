/**
 * @file replay.c
 * @brief `pcsim replay JOURNAL --scenario S`: re-run a journal's commands at
 *        their ticks and check the final state hash it recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/host.h"

int host_run(host *h, int (*after_build)(host *h));

static uint64_t want_hash;

/* The journal's commands become the run's actions (the host frees them). */
static int load_journal(host *h, uint64_t *end_tick)
{
    pcs_journal_expect x = {.file = h->opt.replay,
                            .scenario = pcs_scenario_source(h->scn),
                            .scenario_given = h->opt.scenario != NULL,
                            .start_tick = h->start_tick,
                            .commands_per_tick = h->world_cfg.commands_per_tick};
    pcs_journal_file *j = NULL;
    pcs_status st = pcs_journal_file_load(&x, &j);
    int rc = st == PCS_OK ? 0 : st == PCS_E_NOMEM ? 1 : 2;
    uint32_t n = pcs_journal_file_count(j);
    h->actions = calloc(n + 1, sizeof *h->actions);
    if (!rc && !h->actions)
        rc = host_fail(1, "out of memory for the journal's commands");
    else if (!rc) {
        if (n)
            memcpy(h->actions, pcs_journal_file_commands(j), n * sizeof *h->actions);
        h->n_actions = n;
    } else
        host_fail(rc, "%s", pcs_last_error());
    *end_tick = pcs_journal_file_end_tick(j);
    want_hash = pcs_journal_file_hash(j);
    pcs_journal_file_destroy(j);
    return rc;
}

static int after_build(host *h)
{
    uint64_t end_tick;
    int rc = load_journal(h, &end_tick);
    if (rc)
        return rc;
    if (end_tick < h->start_tick)
        return host_fail(2, "%s: end tick %" PRIu64 " is before the start tick %" PRIu64,
                         h->opt.replay, end_tick, h->start_tick);
    h->run.run_ticks = end_tick - h->start_tick;
    return 0;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option longs[] = {{"scenario", 1, 0, 'F'},
                                          {"load", 1, 0, 'L'},
                                          {"quiet", 0, 0, 'q'},
                                          {"help", 0, 0, 'h'},
                                          {0, 0, 0, 0}};
    static host h;
    memset(&h, 0, sizeof h);
    h.opt.workers = h.opt.readers = -1;
    h.opt.seconds = -1.0;
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        if (ch == 'F')
            h.opt.scenario = optarg;
        else if (ch == 'L')
            h.opt.load = optarg;
        else if (ch == 'q')
            h.opt.quiet = 1;
        else {
            fputs("usage: pcsim replay JOURNAL [--scenario S.json] [--load SAVE] [--quiet]\n"
                  "  Re-runs the journal's commands at their ticks on the scenario (default:\n"
                  "  the built-in one) and checks the final state hash the journal recorded.\n",
                  ch == 'h' ? stdout : stderr);
            return ch == 'h' ? 0 : 2;
        }
    }
    if (optind != argc - 1)
        return host_fail(2, "replay: expected exactly one JOURNAL argument (see --help)");
    h.opt.replay = argv[optind];
    int rc = host_run(&h, after_build);
    if (rc)
        return rc;
    if (h.final_hash != want_hash)
        return host_fail(1,
                         "replay: final hash %016" PRIx64 " differs from the journal's %016" PRIx64,
                         h.final_hash, want_hash);
    printf("replay: final hash %016" PRIx64 " matches the journal\n", h.final_hash);
    return 0;
}
