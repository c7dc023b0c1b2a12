/**
 * @file replay.c
 * @brief `pcsim replay JOURNAL [--scenario S]`: re-run a journal's commands at
 *        their ticks (pcs_replay) on the scenario it carries, and check the
 *        final state hash it recorded.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/host.h"

/* The journal is checked against the built station (scenario hash, kind
 * table, targets, start tick) before anything starts, and sets the length. */
static int after_build(host *h)
{
    if (pcs_replay_check(h->station, h->replay) != PCS_OK)
        return host_fail(2, "%s", pcs_last_error());
    h->run.run_ticks = pcs_journal_file_end_tick(h->replay) - h->start_tick;
    return 0;
}

static int replay_usage(int ch)
{
    fputs("usage: pcsim replay JOURNAL [--scenario S.json] [--load SAVE] [--quiet]\n"
          "  Re-runs the journal's commands at their ticks on the scenario it carries\n"
          "  (or S.json, which must be the same scenario) and checks the final state\n"
          "  hash the journal recorded.\n",
          ch == 'h' ? stdout : stderr);
    return ch == 'h' ? 0 : 2;
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
        else
            return replay_usage(ch);
    }
    if (optind != argc - 1)
        return host_fail(2, "replay: expected exactly one JOURNAL argument (see --help)");
    h.opt.replay = argv[optind];
    pcs_status st = pcs_journal_file_load(h.opt.replay, &h.replay);
    int rc = st == PCS_OK ? 0 : host_fail(st == PCS_E_NOMEM ? 1 : 2, "%s", pcs_last_error());
    if (!rc)
        rc = host_run(&h, after_build);
    if (!rc && h.replay_status != PCS_OK)
        rc = host_fail(1, "replay: %s", h.replay_error);
    else if (!rc)
        printf("replay: final hash %016" PRIx64 " matches the journal\n", h.final_hash);
    pcs_journal_file_destroy(h.replay);
    return rc;
}
