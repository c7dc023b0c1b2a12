/**
 * @file replay.c
 * @brief `pcsim replay JOURNAL --scenario S`: re-run a journal's commands at
 *        their ticks and check the final state hash it recorded.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/host.h"

int host_run(host *h, int (*after_build)(host *h));

static uint64_t want_hash, end_tick;
static int have_end;

static int parse_line(host *h, const char *line, uint32_t lineno)
{
    host_action *a = &h->actions[h->n_actions];
    memset(a, 0, sizeof *a);
    int n = sscanf(line, "%" SCNu64 " %u %u %lf %lf %lf %lf", &a->tick, &a->cmd.kind,
                   &a->cmd.target, &a->cmd.args[0], &a->cmd.args[1], &a->cmd.args[2],
                   &a->cmd.args[3]);
    if (n != 7)
        return host_fail(2, "%s:%u: expected 'tick kind target a0 a1 a2 a3'", h->opt.replay,
                         lineno);
    h->n_actions++;
    return 0;
}

static int load_journal(host *h)
{
    FILE *f = fopen(h->opt.replay, "r");
    if (!f)
        return host_fail(2, "replay: cannot open journal '%s'", h->opt.replay);
    char line[512];
    uint32_t cap = 1024, lineno = 0;
    h->actions = calloc(cap, sizeof *h->actions);
    int rc = h->actions ? 0 : host_fail(1, "out of memory");
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (sscanf(line, "# end_tick %" SCNu64 " hash %" SCNx64, &end_tick, &want_hash) == 2)
            have_end = 1;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (h->n_actions == cap) {
            host_action *more = realloc(h->actions, 2 * cap * sizeof *more);
            if (!more)
                rc = host_fail(1, "out of memory");
            else
                h->actions = more, cap *= 2;
        }
        if (!rc)
            rc = parse_line(h, line, lineno);
    }
    fclose(f);
    if (!rc && !have_end)
        rc = host_fail(2, "%s: no '# end_tick N hash H' line (was the run completed?)",
                       h->opt.replay);
    return rc;
}

static int after_build(host *h)
{
    int rc = load_journal(h);
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
    static const struct option longs[] = {{"scenario", 1, 0, 'F'}, {"load", 1, 0, 'L'},
                                           {"quiet", 0, 0, 'q'},    {"help", 0, 0, 'h'},
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
        return host_fail(1, "replay: final hash %016" PRIx64 " differs from the journal's %016" PRIx64,
                         h.final_hash, want_hash);
    printf("replay: final hash %016" PRIx64 " matches the journal\n", h.final_hash);
    return 0;
}
