/**
 * @file station_scenario.h
 * @brief The station text (4 units, or param units of them) the station.tick
 *        benchmarks build when they are asked for an explicit steam-generator
 *        model (param sg, and
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

/* Writes the scenario text with @p units units, every unit's sg_model = model
 * ("boundary" or "steam_side"), into buf: the 4-unit pattern repeated (u4, u8, ...
 * at 50 %, the others at 100 %), so units = 4 is issue 14's text. Returns 0 when
 * model is neither, units is outside [1, 64] or buf is too small (64 units need
 * about 4 KiB). */
static inline int pcs_bench_station_text_n(const char *model, unsigned units, char *buf, size_t cap)
{
    if ((strcmp(model, "boundary") != 0 && strcmp(model, "steam_side") != 0) || units < 1 ||
        units > 64)
        return 0;
    int n = snprintf(buf, cap,
                     "{\"schema\": 1, \"name\": \"bench-station-%s\",\n"
                     " \"world\": {\"dt_s\": 0.05, \"seed\": 20261130, \"k_slow\": 72, "
                     "\"workers\": 2},\n"
                     " \"units\": [\n",
                     model);
    for (unsigned u = 1; n > 0 && (size_t)n < cap && u <= units; u++) {
        int k = snprintf(
            buf + n, cap - (size_t)n, "  {\"name\": \"u%u\", %s\"sg_model\": \"%s\"}%s\n", u,
            u % 4 == 0 ? "\"initial_power_fraction\": 0.5, " : "", model, u < units ? "," : "");
        n = k < 0 ? -1 : n + k;
    }
    if (n > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " ]}\n");
    return n > 0 && (size_t)n < cap;
}

/* The 4-unit text (bench/callgrind/station_cg.c). */
static inline int pcs_bench_station_text(const char *model, char *buf, size_t cap)
{
    return pcs_bench_station_text_n(model, 4, buf, cap);
}

#endif
