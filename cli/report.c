/**
 * @file report.c
 * @brief What `pcsim run` prints: events as they happen, the timeline, CSV
 *        rows and the final summary (text or JSON).
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/host.h"
#include "pcsim/profile.h"

/* Progress bar (terminals only): redrawn in place with \r; any other line
 * first erases it so the bar always sits below the log. */
static int progress_visible;

static void clear_progress(void)
{
    if (progress_visible) {
        fputs("\r\033[K", stdout);
        progress_visible = 0;
    }
}

void report_progress(host *h, uint64_t done, uint64_t total)
{
    enum { WIDTH = 40 };
    int filled = total ? (int)(WIDTH * done / total) : WIDTH;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    printf("\r[%s] %3d%%  t=%.1f s", bar, total ? (int)(100 * done / total) : 100,
           pcs_clock_time_s(pcs_world_clock(h->world)));
    fflush(stdout);
    progress_visible = 1;
}

static double sim_time(const host *h)
{
    return pcs_clock_time_s(pcs_world_clock(h->world));
}

void report_events(void *ctx, const pcs_event *ev, uint32_t n)
{
    host *h = ctx;
    if (h->opt.quiet)
        return;
    clear_progress();
    for (uint32_t i = 0; i < n; i++) {
        char text[256];
        if (pcs_event_describe(h->station, &ev[i], text, sizeof text))
            fprintf(h->out, "  t=%9.2f s  %s\n", (double)ev[i].tick * h->world_cfg.dt_s, text);
    }
}

/* The timeline's channels: six per unit, found by name, one line per unit.
 * Found again whenever the world's channel set changes (report_timeline),
 * so a unit added while running has its line from its add on, and one
 * removed loses it. */
void report_timeline_channels(host *h)
{
    h->timeline_layout = pcs_world_layout_version(h->world);
    static const char *const per_unit[] = {"core.power",   "core.t_inlet", "loop1.t_hot",
                                           "rcs.pressure", "core.flow",    "rods.pos"};
    h->n_timeline = 0;
    uint32_t n_units = pcs_station_unit_count(h->station);
    for (uint32_t u = 1; u <= n_units; u++)
        for (size_t k = 0; k < sizeof per_unit / sizeof per_unit[0]; k++) {
            char name[64];
            uint32_t id;
            snprintf(name, sizeof name, "u%u.%s", u, per_unit[k]);
            if (h->n_timeline < HOST_MAX_TIMELINE &&
                pcs_channel_find(h->world, name, &id) == PCS_OK)
                h->timeline_channels[h->n_timeline++] = id;
        }
    h->timeline_per_line = sizeof per_unit / sizeof per_unit[0];
}

/* One line per unit: the short name after the unit prefix, value and unit. */
void report_timeline(host *h)
{
    if (pcs_world_layout_version(h->world) != h->timeline_layout)
        report_timeline_channels(h);
    uint32_t per = h->timeline_per_line ? h->timeline_per_line : 1;
    clear_progress();
    for (uint32_t i = 0; i < h->n_timeline; i++) {
        pcs_channel_info info;
        /* A removed unit's channels are retired together (unit_remove): its
         * whole line goes, and the others keep their grouping. */
        if (pcs_channel_get(h->world, h->timeline_channels[i], &info) != PCS_OK)
            continue;
        const char *dot = strchr(info.name, '.');
        if (i % per == 0)
            fprintf(h->out, "t=%8.1f s %.*s |", sim_time(h), (int)(dot ? dot - info.name : 0),
                    info.name);
        fprintf(h->out, " %s %.5g%s%s", dot ? dot + 1 : info.name,
                pcs_channel_value(h->world, h->timeline_channels[i]), info.unit[0] ? " " : "",
                info.unit);
        if (i % per == per - 1 || i + 1 == h->n_timeline)
            fputc('\n', h->out);
    }
}

/* The CSV's column set is fixed at the start (a CSV has one header) and is
 * the scenario's whole plant: the run's world's channels, or, when the
 * scenario builds units later, the probe's (cli/probe.c), which has those
 * units' channels too. A column whose channel does not exist at a row's
 * time (a unit not added yet, a unit or pump removed) is written empty;
 * README ("The CSV options") states this contract. */
static pcs_world *csv_names_world(host *h)
{
    return h->probe_world ? h->probe_world : h->world;
}

/* One entry of --csv-channels: a shell glob (fnmatch, no flags: '*' also
 * matches dots) that must match at least one channel, or the option names it. */
static int csv_pattern_check(host *h, const char *pat, uint32_t k)
{
    pcs_world *w = csv_names_world(h);
    if (!*pat)
        return host_fail(
            2,
            "--csv-channels '%s': pattern %u is empty (want a comma-separated "
            "list of shell globs over channel names, e.g. 'u*.core.power,u1.loop?.flow')",
            h->opt.csv_channels, k + 1);
    for (uint32_t i = 0; i < pcs_channel_count(w); i++) {
        pcs_channel_info info;
        if (pcs_channel_get(w, i, &info) == PCS_OK && fnmatch(pat, info.name, 0) == 0)
            return 0;
    }
    return host_fail(2,
                     "--csv-channels: pattern '%s' matches no channel (the world has %u "
                     "channels, named like u1.core.power; `pcsim run --csv -` lists them all "
                     "in its header)",
                     pat, pcs_channel_count(w));
}

/* Whether @p name matches one of the @p n globs. */
static int csv_matches(const char *const *globs, uint32_t n, const char *name)
{
    for (uint32_t k = 0; k < n; k++)
        if (fnmatch(globs[k], name, 0) == 0)
            return 1;
    return 0;
}

/* The columns' channels in the run's world now, by name: UINT32_MAX for a
 * column whose channel is not there (not added yet, or retired). */
static void csv_find_ids(host *h)
{
    h->csv_layout = pcs_world_layout_version(h->world);
    for (uint32_t k = 0; k < h->n_csv; k++) {
        uint32_t id;
        h->csv_ids[k] = pcs_channel_find(h->world, h->csv_names[k], &id) == PCS_OK &&
                                pcs_channel_live(h->world, id)
                            ? id
                            : UINT32_MAX;
    }
    pcs_error_clear();
}

/* Copy the names of the channels of @p w that match (all when @p n_globs
 * is 0), in channel order. A channel retired by a structural change (a
 * loaded save's removed pump) has no name: it read the previous channel's
 * info, so it is skipped. */
static int csv_take_names(host *h, pcs_world *w, const char *const *globs, uint32_t n_globs)
{
    for (uint32_t i = 0; i < pcs_channel_count(w); i++) {
        pcs_channel_info info;
        if (pcs_channel_get(w, i, &info) != PCS_OK ||
            (n_globs && !csv_matches(globs, n_globs, info.name)))
            continue;
        if (!(h->csv_names[h->n_csv] = strdup(info.name)))
            return host_fail(1, "out of memory");
        h->n_csv++;
    }
    return 0;
}

/* The CSV's channels: all, or those matching --csv-channels (split at its
 * commas in a copy), each of whose globs must match at least one. */
int report_csv_select(host *h)
{
    if (probe_get(h) != 0) /* the later units' names, when the scenario has any */
        return 1;
    pcs_world *w = csv_names_world(h);
    uint32_t n = pcs_channel_count(w);
    const char *spec = h->opt.csv_channels;
    char *buf = spec ? strdup(spec) : NULL;
    const char **globs = calloc(spec ? strlen(spec) + 1 : 1, sizeof *globs);
    h->n_csv = 0;
    h->csv_ids = calloc(n ? n : 1, sizeof *h->csv_ids);
    h->csv_names = calloc(n ? n : 1, sizeof *h->csv_names);
    int rc = (spec && !buf) || !globs || !h->csv_ids || !h->csv_names
                 ? host_fail(1, "out of memory")
                 : 0;
    uint32_t n_globs = 0;
    for (char *p = rc ? NULL : buf; p;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma++ = '\0';
        globs[n_globs++] = p;
        p = comma;
    }
    for (uint32_t k = 0; !rc && k < n_globs; k++)
        rc = csv_pattern_check(h, globs[k], k);
    if (!rc)
        rc = csv_take_names(h, w, globs, n_globs);
    if (!rc)
        csv_find_ids(h);
    free(globs);
    free(buf);
    return rc;
}

void report_csv_header(host *h)
{
    fprintf(h->csv, "t_s");
    for (uint32_t k = 0; k < h->n_csv; k++)
        fprintf(h->csv, ",%s", h->csv_names[k]);
    fprintf(h->csv, "\n");
}

/* A row of the columns' values now; an empty field for a column whose
 * channel does not exist at this time. */
void report_csv_row(host *h)
{
    if (pcs_world_layout_version(h->world) != h->csv_layout)
        csv_find_ids(h);
    fprintf(h->csv, "%.3f", sim_time(h));
    for (uint32_t k = 0; k < h->n_csv; k++)
        if (h->csv_ids[k] == UINT32_MAX)
            fputc(',', h->csv);
        else
            fprintf(h->csv, ",%.9g", pcs_channel_value(h->world, h->csv_ids[k]));
    fprintf(h->csv, "\n");
}

void report_csv_free(host *h)
{
    for (uint32_t k = 0; h->csv_names && k < h->n_csv; k++)
        free(h->csv_names[k]);
    free(h->csv_names);
    free(h->csv_ids);
    h->csv_names = NULL;
    h->csv_ids = NULL;
    h->n_csv = 0;
}

static double pct_us(const hist *t, double p)
{
    return hist_percentile(t, p) / 1000.0;
}

/* Per-stage latency from the profile module, stages that ran systems only. */
static void report_stages(const host *h)
{
    if (h->opt.json || !h->profile)
        return;
    fprintf(h->out, "stage time us (p50 / p95 / p99 / max):\n");
    for (int s = 0; s < PCS_STAGE_COUNT; s++) {
        pcs_profile_stats st;
        if (pcs_system_count(h->world, (pcs_stage)s) == 0 && s != PCS_STAGE_COMMANDS)
            continue;
        if (pcs_profile_stage_stats(h->profile, (pcs_stage)s, &st) != PCS_OK || !st.count)
            continue;
        fprintf(h->out, "  %-11s %8.2f %8.2f %8.2f %9.2f\n", pcs_stage_name((pcs_stage)s),
                (double)st.p50_ns / 1e3, (double)st.p95_ns / 1e3, (double)st.p99_ns / 1e3,
                (double)st.max_ns / 1e3);
    }
}

/* @p s as the body of a JSON string (RFC 8259 section 7): the scenario name
 * is user text, and an unescaped quote or tab made the --json summary
 * unparseable. */
static void json_escape(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(out + n, len - n, "\\u%04x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    out[n] = '\0';
}

/* Script actions dropped at their tick (cli/script.c: a later unit's
 * target that was not there), only when there were any, so the summary of
 * every other run reads as before. Returns the length written. */
static size_t refused_summary(const host *h, int json, char *out, size_t len)
{
    if (!h->n_refused)
        return 0;
    int n = snprintf(out, len,
                     json ? ",\"script_refused\":%u"
                          : "\nscript actions dropped at their tick (target not there): %u",
                     h->n_refused);
    return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* Rate refusals per command source (the run has one: the script's), as a
 * JSON member or a text clause; "" for a replay, which runs no script. */
static void rate_summary(host *h, int json, char *out, size_t len)
{
    pcs_command_source_stats ss;
    out[0] = '\0';
    if (h->replay || pcs_command_source_stats_get(script_source(), &ss) != PCS_OK)
        return;
    size_t n = refused_summary(h, json, out, len);
    out += n;
    len -= n;
    if (json)
        snprintf(out, len,
                 ",\"refused_rate\":%" PRIu64 ",\"sources\":[{\"name\":\"script\",\"class\":%u,"
                 "\"id\":%u,\"rate_per_s\":%g,\"burst\":%u,\"submitted\":%" PRIu64
                 ",\"refused_rate\":%" PRIu64 "}]",
                 ss.refused_rate, ss.source_class, ss.source_id, ss.rate_per_s, ss.burst,
                 ss.submitted, ss.refused_rate);
    else if (ss.burst)
        snprintf(out, len,
                 "\ncommands refused by rate limit: script (class %u, id %u; %g/s, burst %u) "
                 "%" PRIu64,
                 ss.source_class, ss.source_id, ss.rate_per_s, ss.burst, ss.refused_rate);
    else
        snprintf(out, len, "\ncommands refused by rate limit: script (class %u, id %u; no limit) 0",
                 ss.source_class, ss.source_id);
}

/* Per unit with the steam side (issue 15): its MWe and its SGs'
 * narrow-range levels at the end of the run, found by channel name, so a
 * boundary unit (no "uN.turbine.mwe") adds nothing. Text: one line per
 * unit; JSON: a "units" member of the summary object ("" when none). */
static void units_summary(const host *h, int json, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    uint32_t n_units = pcs_station_unit_count(h->station);
    for (uint32_t u = 1; u <= n_units && n + 96 < len; u++) {
        char name[64];
        uint32_t id;
        snprintf(name, sizeof name, "u%u.turbine.mwe", u);
        if (pcs_channel_find(h->world, name, &id) != PCS_OK)
            continue;
        const char *open = json ? (n ? "," : ",\"units\":[") : "";
        n += (size_t)snprintf(out + n, len - n,
                              json ? "%s{\"unit\":\"u%u\",\"mwe\":%.1f,\"nr_level_pct\":["
                                   : "%su%u: %.1f MWe, SG narrow-range level",
                              open, u, pcs_channel_value(h->world, id));
        for (uint32_t k = 1; k <= 4 && n + 24 < len; k++) {
            snprintf(name, sizeof name, "u%u.sg%u.nr_level", u, k);
            if (pcs_channel_find(h->world, name, &id) != PCS_OK)
                break;
            n += (size_t)snprintf(out + n, len - n, json ? "%s%.2f" : "%s%.1f",
                                  json ? (k > 1 ? "," : "") : " ", pcs_channel_value(h->world, id));
        }
        n += (size_t)snprintf(out + n, len - n, json ? "]}" : " %%\n");
    }
    if (json && n && n + 2 < len)
        snprintf(out + n, len - n, "]");
}

/* The trace's counts when one was taken (finish ends it before the summary):
 * dropped spans are said, never left for the file alone to tell. */
static void trace_summary(const host *h, int json, char *out, size_t len)
{
    out[0] = '\0';
    pcs_profile_trace_stats ts;
    if (!h->opt.trace || pcs_profile_trace_stats_get(&ts) != PCS_OK)
        return;
    if (json)
        snprintf(out, len,
                 ",\"trace\":{\"spans\":%" PRIu64 ",\"dropped_spans\":%" PRIu64
                 ",\"named_threads\":%u}",
                 ts.spans, ts.dropped, ts.named_threads);
    else
        snprintf(out, len,
                 "trace %s: %" PRIu64 " spans on %u named threads, %" PRIu64 " dropped%s\n",
                 h->opt.trace, ts.spans, ts.named_threads, ts.dropped,
                 ts.dropped ? " (the buffer was full: raise --trace-spans)" : "");
}

void report_summary(host *h, uint64_t wall_ns)
{
    clear_progress();
    uint64_t n = h->ticks_run;
    pcs_command_stats cs;
    pcs_command_stats_get(h->world, &cs);
    double wall_s = (double)wall_ns * 1e-9;
    uint64_t hash = pcs_world_state_hash(h->world);
    const reader_totals *rt = &h->reader_totals;
    const char *fmt_json =
        "{\"scenario\":\"%s\",\"ticks\":%" PRIu64 ",\"sim_seconds\":%.3f,\"wall_seconds\":%.3f,"
        "\"ticks_per_second\":%.1f,\"tick_us\":{\"p50\":%.2f,\"p95\":%.2f,\"p99\":%.2f,"
        "\"max\":%.2f},\"commands\":{\"submitted\":%" PRIu64 ",\"applied\":%" PRIu64
        ",\"rejected\":%" PRIu64 ",\"refused\":%" PRIu64 "%s},\"events_dropped\":%" PRIu64
        ",\"tick_allocations\":%" PRIu64 ",\"readers\":{\"threads\":%u,\"reads\":%" PRIu64
        ",\"retries\":%" PRIu64 ",\"max_staleness\":%" PRIu64 ",\"events_read\":%" PRIu64
        ",\"events_missed\":%" PRIu64 ",\"non_finite\":%" PRIu64 "},\"state_hash\":\"%016" PRIx64
        "\"%s%s}\n";
    const char *fmt_text =
        "\n== summary: %s\n"
        "ticks %" PRIu64 ", simulated %.1f s, wall %.3f s, %.0f ticks/s\n"
        "tick time us: p50 %.2f  p95 %.2f  p99 %.2f  max %.2f\n"
        "commands: submitted %" PRIu64 ", applied %" PRIu64 ", rejected %" PRIu64
        ", refused (queue full) %" PRIu64 "%s\n"
        "events dropped %" PRIu64 ", allocations during ticks %" PRIu64 "\n"
        "readers: %u threads, %" PRIu64 " reads, %" PRIu64 " retries, max staleness %" PRIu64
        " ticks, events seen %" PRIu64 " (missed %" PRIu64 "), non-finite values %" PRIu64 "\n"
        "final state hash %016" PRIx64 "\n%s%s";
    char name[8 * 64]; /* a scenario name is at most 63 bytes, each escaped to at most 6 */
    if (h->opt.json)
        json_escape(pcs_scenario_name(h->scn), name, sizeof name);
    else
        snprintf(name, sizeof name, "%s", pcs_scenario_name(h->scn));
    char rate[256];
    rate_summary(h, h->opt.json, rate, sizeof rate);
    char units[2048];
    units_summary(h, h->opt.json, units, sizeof units);
    char trace[4352]; /* the --trace path (PATH_MAX) and the counts */
    trace_summary(h, h->opt.json, trace, sizeof trace);
    fprintf(h->out, h->opt.json ? fmt_json : fmt_text, name, n, sim_time(h), wall_s,
            wall_s > 0 ? (double)n / wall_s : 0.0, pct_us(&h->tick_ns, 50), pct_us(&h->tick_ns, 95),
            pct_us(&h->tick_ns, 99), pct_us(&h->tick_ns, 100), cs.submitted, cs.applied,
            cs.rejected, cs.refused, rate, pcs_world_events_dropped(h->world), h->tick_allocations,
            rt->threads, rt->reads, rt->retries, rt->max_staleness, rt->events_read,
            rt->events_missed, rt->bad_values, hash, units, trace);
    report_stages(h);
}
