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

static uint64_t want_hash, end_tick;
static int have_end;
static uint32_t *action_line; /* journal line of each action, for messages */

/* A journal is input like a scenario: every line is checked so that a
 * damaged or hand-edited one gets a message, never a hang or a silent drop
 * (a bad kind was refused by the queue and skipped; a tick past the end was
 * never submitted; an end tick of 2^64-1 wrapped the tick-time array). */
static int parse_line(host *h, const char *line, uint32_t lineno)
{
    host_action *a = &h->actions[h->n_actions];
    memset(a, 0, sizeof *a);
    int n =
        sscanf(line, "%" SCNu64 " %u %u %lf %lf %lf %lf", &a->tick, &a->cmd.kind, &a->cmd.target,
               &a->cmd.args[0], &a->cmd.args[1], &a->cmd.args[2], &a->cmd.args[3]);
    if (n != 7 || line[0] == '-')
        return host_fail(2, "%s:%u: expected 'tick kind target a0 a1 a2 a3'", h->opt.replay,
                         lineno);
    if (a->cmd.kind == 0 || a->cmd.kind >= PCS_COMMAND_KINDS_MAX)
        return host_fail(2, "%s:%u: command kind %u is outside [1, %u]", h->opt.replay, lineno,
                         a->cmd.kind, PCS_COMMAND_KINDS_MAX - 1);
    if (h->n_actions && a->tick < h->actions[h->n_actions - 1].tick)
        return host_fail(2, "%s:%u: tick %" PRIu64 " is earlier than the previous line's %" PRIu64,
                         h->opt.replay, lineno, a->tick, h->actions[h->n_actions - 1].tick);
    action_line[h->n_actions++] = lineno;
    return 0;
}

/* The header says how the run was made: replaying it on another scenario or
 * from another start tick cannot reproduce it, so say which option is
 * missing instead of reporting a hash mismatch at the end. */
static int parse_header(host *h, const char *line, uint32_t lineno)
{
    char scn[512];
    uint64_t start;
    if (sscanf(line, "# scenario %511[^\n]", scn) == 1 && !h->opt.scenario &&
        strcmp(scn, h->scn.source) != 0)
        return host_fail(2, "%s:%u: recorded with scenario '%s'; pass --scenario %s", h->opt.replay,
                         lineno, scn, scn);
    if (sscanf(line, "# start_tick %" SCNu64, &start) == 1 && start != h->start_tick)
        return host_fail(2,
                         "%s:%u: the run started at tick %" PRIu64 " (resumed with --load); "
                         "replay from tick %" PRIu64 " cannot match: pass --load with its save",
                         h->opt.replay, lineno, start, h->start_tick);
    return 0;
}

static int parse_end(host *h, const char *line, uint32_t lineno)
{
    if (sscanf(line, "# end_tick %" SCNu64 " hash %" SCNx64, &end_tick, &want_hash) != 2)
        return 0;
    if (end_tick > PCS_CLOCK_TICK_MAX)
        return host_fail(2, "%s:%u: end tick %" PRIu64 " is outside [0, %" PRIu64 "]",
                         h->opt.replay, lineno, end_tick, (uint64_t)PCS_CLOCK_TICK_MAX);
    have_end = 1;
    return 0;
}

/* Every action lands before the end, and no tick holds more commands than a
 * run can apply on it: more than commands_per_tick never come from a real
 * run, and more than the script ring holds would leave the main thread
 * waiting for a submission that waits for the main thread. */
static int check_actions(host *h)
{
    uint32_t limit = h->scn.world.commands_per_tick;
    if (limit > HOST_SCRIPT_RING)
        limit = HOST_SCRIPT_RING;
    uint32_t same = 0;
    for (uint32_t i = 0; i < h->n_actions; i++) {
        const host_action *a = &h->actions[i];
        if (a->tick >= end_tick)
            return host_fail(2, "%s:%u: tick %" PRIu64 " is not before the end tick %" PRIu64,
                             h->opt.replay, action_line[i], a->tick, end_tick);
        same = (i && a->tick == h->actions[i - 1].tick) ? same + 1 : 1;
        if (same > limit)
            return host_fail(2,
                             "%s:%u: more than %u commands at tick %" PRIu64
                             " (commands_per_tick %u, script ring %u): not a journal of "
                             "this scenario",
                             h->opt.replay, action_line[i], limit, a->tick,
                             h->scn.world.commands_per_tick, HOST_SCRIPT_RING);
    }
    return 0;
}

/* A journal is opened like a save (engine/safe_file.c): without blocking, and
 * only if it is a regular file, so a FIFO with no writer is refused at once
 * instead of blocking forever, and a directory is named as one. */
static FILE *open_journal(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        host_fail(2, "replay: cannot open journal '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat s;
    int stat_ok = fstat(fd, &s) == 0;
    const char *kind = NULL;
    if (stat_ok && S_ISDIR(s.st_mode))
        kind = "a directory";
    else if (stat_ok && S_ISFIFO(s.st_mode))
        kind = "a FIFO";
    else if (stat_ok && (S_ISCHR(s.st_mode) || S_ISBLK(s.st_mode)))
        kind = "a device";
    else if (stat_ok && !S_ISREG(s.st_mode))
        kind = "a socket";
    int flags = stat_ok && !kind ? fcntl(fd, F_GETFL) : -1;
    FILE *f = NULL;
    if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
        f = fdopen(fd, "r");
    if (!f) {
        int err = errno;
        close(fd);
        if (kind)
            host_fail(2, "replay: journal '%s': is %s, not a regular file", path, kind);
        else
            host_fail(2, "replay: cannot read journal '%s': %s", path, strerror(err));
    }
    return f;
}

static int load_journal(host *h)
{
    FILE *f = open_journal(h->opt.replay);
    if (!f)
        return 2;
    char line[512];
    uint32_t cap = 1024, lineno = 0;
    h->actions = calloc(cap, sizeof *h->actions);
    action_line = calloc(cap, sizeof *action_line);
    if (!h->actions || !action_line) {
        fclose(f);
        free(action_line);
        action_line = NULL;
        host_fail(1, "out of memory");
        return 1;
    }
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        rc = parse_header(h, line, lineno);
        if (!rc)
            rc = parse_end(h, line, lineno);
        if (rc || line[0] == '#' || line[0] == '\n')
            continue;
        if (h->n_actions == cap) {
            host_action *more = realloc(h->actions, 2 * cap * sizeof *more);
            if (more)
                h->actions = more;
            uint32_t *lines = realloc(action_line, 2 * cap * sizeof *lines);
            if (lines)
                action_line = lines;
            if (!more || !lines)
                rc = host_fail(1, "out of memory");
            else
                cap *= 2;
        }
        if (!rc)
            rc = parse_line(h, line, lineno);
    }
    fclose(f);
    if (!rc && !have_end)
        rc = host_fail(2, "%s: no '# end_tick N hash H' line (was the run completed?)",
                       h->opt.replay);
    if (!rc)
        rc = check_actions(h);
    free(action_line);
    action_line = NULL;
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
