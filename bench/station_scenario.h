/**
 * @file station_scenario.h
 * @brief The 4-unit station text the station.tick benchmarks build when they are
 *        asked for an explicit steam-generator model (param sg, and
 *        bench/callgrind/station_cg.c's sg argument), so a boundary station and a
 *        steam-side station are compared on the same units whatever the built-in
 *        default scenario says.
 *
 * The units are the built-in pwr-station's as of issue 14 (u1-u3 at 100 %, u4 at
 * 50 %, world dt 0.05 s, seed 20261130, k_slow 72) with sg_model set on each; the
 * text is the bench's own, so a change to the default scenario does not move these
 * figures. No script and no readers section: nothing is commanded, and the bench
 * starts its own readers.
 */
#ifndef PCS_BENCH_STATION_SCENARIO_H
#define PCS_BENCH_STATION_SCENARIO_H

#include <stdio.h>
#include <string.h>

/* Writes the scenario text with every unit's sg_model = model ("boundary" or
 * "steam_side") into buf; returns 0 when model is neither or buf is too small. */
static inline int pcs_bench_station_text(const char *model, char *buf, size_t cap)
{
    if (strcmp(model, "boundary") != 0 && strcmp(model, "steam_side") != 0)
        return 0;
    int n = snprintf(buf, cap,
                     "{\"schema\": 1, \"name\": \"bench-station-%s\",\n"
                     " \"world\": {\"dt_s\": 0.05, \"seed\": 20261130, \"k_slow\": 72, "
                     "\"workers\": 2},\n"
                     " \"units\": [\n"
                     "  {\"name\": \"u1\", \"sg_model\": \"%s\"},\n"
                     "  {\"name\": \"u2\", \"sg_model\": \"%s\"},\n"
                     "  {\"name\": \"u3\", \"sg_model\": \"%s\"},\n"
                     "  {\"name\": \"u4\", \"initial_power_fraction\": 0.5, \"sg_model\": \"%s\"}\n"
                     " ]}\n",
                     model, model, model, model, model);
    return n > 0 && (size_t)n < cap;
}

#endif
