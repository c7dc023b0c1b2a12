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
#include "cli/journal.h"

int host_run(host *h, int (*after_build)(host *h));

static uint64_t want_hash;

/* The journal's commands become the run's actions (the host frees them). */
static int load_journal(host *h, uint64_t *end_tick)
{
    journal_expect x = {.file = h->opt.replay,
                        .scenario = h->scn.source,
                        .scenario_given = h->opt.scenario != NULL,
                        .start_tick = h->start_tick,
                        .commands_per_tick = h->scn.world.commands_per_tick};
    journal j;
    char err[2 * JOURNAL_LINE_MAX + 4096];
    int rc = journal_load(&x, &j, err, sizeof err);
    h->actions = j.actions;
    h->n_actions = j.n_actions;
    j.actions = NULL;
    *end_tick = j.end_tick;
    want_hash = j.want_hash;
    journal_free(&j);
    return rc ? host_fail(rc, "%s", err) : 0;
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
    h->scn.run_ticks = end_tick - h->start_tick;
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
