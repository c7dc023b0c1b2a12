/**
 * @file report.c
 * @brief What `pcsim run` prints: events as they happen, the timeline, CSV
 *        rows and the final summary (text or JSON).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/host.h"
#include "cli/plant.h"
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
        if (plant_describe_event(h, &ev[i], text, sizeof text))
            printf("  t=%9.2f s  %s\n", (double)ev[i].tick * h->scn.world.dt_s, text);
    }
}

/* One line per unit: the short name after the unit prefix, value and unit. */
void report_timeline(host *h)
{
    uint32_t per = h->timeline_per_line ? h->timeline_per_line : 1;
    clear_progress();
    for (uint32_t i = 0; i < h->n_timeline; i++) {
        pcs_channel_info info;
        pcs_channel_get(h->world, h->timeline_channels[i], &info);
        const char *dot = strchr(info.name, '.');
        if (i % per == 0)
            printf("t=%8.1f s %.*s |", sim_time(h), (int)(dot ? dot - info.name : 0), info.name);
        printf(" %s %.5g%s%s", dot ? dot + 1 : info.name,
               pcs_channel_value(h->world, h->timeline_channels[i]), info.unit[0] ? " " : "",
               info.unit);
        if (i % per == per - 1 || i + 1 == h->n_timeline)
            printf("\n");
    }
}

void report_csv_header(host *h)
{
    fprintf(h->csv, "t_s");
    for (uint32_t i = 0; i < pcs_channel_count(h->world); i++) {
        pcs_channel_info info;
        pcs_channel_get(h->world, i, &info);
        fprintf(h->csv, ",%s", info.name);
    }
    fprintf(h->csv, "\n");
}

void report_csv_row(host *h)
{
    fprintf(h->csv, "%.3f", sim_time(h));
    for (uint32_t i = 0; i < pcs_channel_count(h->world); i++)
        fprintf(h->csv, ",%.9g", pcs_channel_value(h->world, i));
    fprintf(h->csv, "\n");
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
    printf("stage time us (p50 / p95 / p99 / max):\n");
    for (int s = 0; s < PCS_STAGE_COUNT; s++) {
        pcs_profile_stats st;
        if (pcs_system_count(h->world, (pcs_stage)s) == 0 && s != PCS_STAGE_COMMANDS)
            continue;
        if (pcs_profile_stage_stats(h->profile, (pcs_stage)s, &st) != PCS_OK || !st.count)
            continue;
        printf("  %-11s %8.2f %8.2f %8.2f %9.2f\n", pcs_stage_name((pcs_stage)s),
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
        ",\"rejected\":%" PRIu64 ",\"refused\":%" PRIu64 "},\"events_dropped\":%" PRIu64
        ",\"tick_allocations\":%" PRIu64 ",\"readers\":{\"threads\":%u,\"reads\":%" PRIu64
        ",\"retries\":%" PRIu64 ",\"max_staleness\":%" PRIu64 ",\"events_read\":%" PRIu64
        ",\"events_missed\":%" PRIu64 ",\"non_finite\":%" PRIu64 "},\"state_hash\":\"%016" PRIx64
        "\"}\n";
    const char *fmt_text =
        "\n== summary: %s\n"
        "ticks %" PRIu64 ", simulated %.1f s, wall %.3f s, %.0f ticks/s\n"
        "tick time us: p50 %.2f  p95 %.2f  p99 %.2f  max %.2f\n"
        "commands: submitted %" PRIu64 ", applied %" PRIu64 ", rejected %" PRIu64
        ", refused (queue full) %" PRIu64 "\n"
        "events dropped %" PRIu64 ", allocations during ticks %" PRIu64 "\n"
        "readers: %u threads, %" PRIu64 " reads, %" PRIu64 " retries, max staleness %" PRIu64
        " ticks, events seen %" PRIu64 " (missed %" PRIu64 "), non-finite values %" PRIu64 "\n"
        "final state hash %016" PRIx64 "\n";
    char name[8 * sizeof h->scn.name];
    if (h->opt.json)
        json_escape(h->scn.name, name, sizeof name);
    else
        snprintf(name, sizeof name, "%s", h->scn.name);
    printf(h->opt.json ? fmt_json : fmt_text, name, n, sim_time(h), wall_s,
           wall_s > 0 ? (double)n / wall_s : 0.0, pct_us(&h->tick_ns, 50),
           pct_us(&h->tick_ns, 95), pct_us(&h->tick_ns, 99), pct_us(&h->tick_ns, 100),
           cs.submitted, cs.applied, cs.rejected, cs.refused,
           pcs_world_events_dropped(h->world), h->tick_allocations, rt->threads, rt->reads,
           rt->retries, rt->max_staleness, rt->events_read, rt->events_missed, rt->bad_values,
           hash);
    report_stages(h);
}
