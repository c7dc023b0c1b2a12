/**
 * @file water_ph_bench.c
 * @brief The (p, h) state (issue 14): ns per call of the table lookup
 *        (pcs_water_ph_table_lookup) and of the lean lookup a pressure solve
 *        uses (pcs_water_ph_table_rho: phase, T, rho, drho/dp, drho/dh)
 *        against the exact IF97 path (pcs_water_ph_exact) on the same
 *        states, in the same run.
 *
 * Two state sets of 4096 seeded random (p, h), one call per operation cycling
 * through them (so the branch predictor and caches see a mix, not one point):
 * - "pwr": what a PWR primary network asks for: p uniform in 0.1-17 MPa, h
 *   uniform from h(p, 280 K) to h(p, 650 K) (subcooled liquid, the dome,
 *   some superheated steam);
 * - "all": the whole table, log-uniform p over 1 kPa-31 MPa and h uniform
 *   over the enthalpy range at that p (about half vapour; region 3 and
 *   supercritical states included).
 * The table is the default configuration (14.1 MB), built once per fork in
 * the setup. With PCS_BENCH_REPORT=1 the setup prints the table's size, its
 * build time and its largest relative rho error over the benchmark's states.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/bench.h"
#include "pcsim/rng.h"
#include "pcsim/water.h"
#include "pcsim/water_ph.h"

#define WP_N 4096u /* states per cycle (power of two) */

typedef struct wp_ctx {
    double p[WP_N], h[WP_N];
    pcs_water_ph_table *table;
    uint32_t next;
} wp_ctx;

static int wp_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

static void wp_teardown(void *ctx)
{
    wp_ctx *c = ctx;
    if (c)
        pcs_water_ph_table_destroy(c->table);
    free(c);
}

static int wp_states(wp_ctx *c, int all)
{
    pcs_rng rng;
    if (pcs_rng_seed(&rng, 14, 97, 1) != PCS_OK)
        return -1;
    for (uint32_t i = 0; i < WP_N; i++) {
        double p, lo, hi;
        if (all) {
            p = 1e3 * pow(31e3, pcs_rng_uniform(&rng));
            if (pcs_water_ph_h_range(p, &lo, &hi) != PCS_OK)
                return -1;
        } else {
            p = 0.1e6 + pcs_rng_uniform(&rng) * (17e6 - 0.1e6);
            if (pcs_water_h_pt(p, 280.0, &lo) != PCS_OK || pcs_water_h_pt(p, 650.0, &hi) != PCS_OK)
                return -1;
        }
        c->p[i] = p;
        c->h[i] = lo + pcs_rng_uniform(&rng) * (hi - lo);
    }
    return 0;
}

static double wp_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void wp_measure(const wp_ctx *c, double build_s)
{
    double err = 0.0;
    for (uint32_t i = 0; i < WP_N; i++) {
        pcs_water_ph_state e, q;
        if (pcs_water_ph_exact(c->p[i], c->h[i], &e) != PCS_OK ||
            pcs_water_ph_table_lookup(c->table, c->p[i], c->h[i], &q) != PCS_OK) {
            err = NAN;
            break;
        }
        err = fmax(err, fabs(q.rho_kg_m3 - e.rho_kg_m3) / e.rho_kg_m3);
    }
    pcs_water_ph_table_def tc;
    pcs_water_ph_table_default(&tc);
    fprintf(stderr,
            "water_ph table: %llu bytes, built in %.3f s; max rho error %.3g over %u states\n",
            (unsigned long long)pcs_water_ph_table_bytes(&tc), build_s, err, WP_N);
}

static void *wp_new(const pcs_bench_params *prm, int with_table)
{
    wp_ctx *c = calloc(1, sizeof *c);
    const char *set = pcs_bench_param(prm, "set");
    const int all = set && set[0] == 'a';
    if (!c || wp_states(c, all) != 0) {
        fprintf(stderr, "water_ph bench: states: %s\n", pcs_last_error());
        free(c);
        return NULL;
    }
    if (!with_table)
        return c;
    pcs_water_ph_table_def tc;
    pcs_water_ph_table_default(&tc);
    const double t0 = wp_seconds();
    if (pcs_water_ph_table_create(&tc, &c->table) != PCS_OK) {
        fprintf(stderr, "water_ph bench: table: %s\n", pcs_last_error());
        wp_teardown(c);
        return NULL;
    }
    if (wp_report())
        wp_measure(c, wp_seconds() - t0);
    return c;
}

static void *wp_setup_exact(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return wp_new(p, 0);
}

static void *wp_setup_table(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return wp_new(p, 1);
}

/* One loop per function: the call is the only work besides the index. */
#define WP_RUN(fname, call)                                                                        \
    static void fname(void *ctx, uint64_t n)                                                       \
    {                                                                                              \
        wp_ctx *c = ctx;                                                                           \
        uint32_t i = c->next;                                                                      \
        for (uint64_t k = 0; k < n; k++) {                                                         \
            pcs_water_ph_state out;                                                                \
            pcs_bench_consume_u64((uint64_t)(call));                                               \
            pcs_bench_consume_f64(out.rho_kg_m3);                                                  \
            i = (i + 1u) & (WP_N - 1u);                                                            \
        }                                                                                          \
        c->next = i;                                                                               \
    }

WP_RUN(wp_exact, pcs_water_ph_exact(c->p[i], c->h[i], &out))
WP_RUN(wp_table, pcs_water_ph_table_lookup(c->table, c->p[i], c->h[i], &out))

static void wp_table_rho(void *ctx, uint64_t n)
{
    wp_ctx *c = ctx;
    uint32_t i = c->next;
    for (uint64_t k = 0; k < n; k++) {
        pcs_water_ph_rho out;
        pcs_bench_consume_u64((uint64_t)pcs_water_ph_table_rho(c->table, c->p[i], c->h[i], &out));
        pcs_bench_consume_f64(out.rho_kg_m3);
        i = (i + 1u) & (WP_N - 1u);
    }
    c->next = i;
}

static const pcs_bench_def wp_def_exact = {
    .group = "water_ph",
    .name = "exact",
    .description = "pcs_water_ph_exact: IF97 state and derivatives at (p, h)",
    .params = {{"set", "pwr,all"}},
    .setup = wp_setup_exact,
    .teardown = wp_teardown,
    .run = wp_exact,
};
PCS_BENCH_REGISTER(wp_def_exact)

static const pcs_bench_def wp_def_table = {
    .group = "water_ph",
    .name = "table",
    .description = "pcs_water_ph_table_lookup on the same states (target <= 20 ns)",
    .baseline = "water_ph.exact",
    .params = {{"set", "pwr,all"}},
    .setup = wp_setup_table,
    .teardown = wp_teardown,
    .run = wp_table,
};
PCS_BENCH_REGISTER(wp_def_table)

static const pcs_bench_def wp_def_table_rho = {
    .group = "water_ph",
    .name = "table_rho",
    .description = "pcs_water_ph_table_rho (rho, T, drho/dp, drho/dh, phase) on the same states",
    .baseline = "water_ph.exact,water_ph.table",
    .params = {{"set", "pwr,all"}},
    .setup = wp_setup_table,
    .teardown = wp_teardown,
    .run = wp_table_rho,
};
PCS_BENCH_REGISTER(wp_def_table_rho)
