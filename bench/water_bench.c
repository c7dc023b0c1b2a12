/**
 * @file water_bench.c
 * @brief IAPWS-IF97 (issue 6): ns per call of h(p,T), rho(p,T) and T(p,h), by the full
 *        equations (pcs_water_*) and by the compressed-liquid table (pcs_water_table_*).
 *
 * Inputs: 4096 seeded random compressed-liquid states (p uniform in 0.1-22 MPa, T uniform
 * in 280 K to min(615 K, T_sat(p) - 0.5 K): the table's domain, which covers the PWR
 * primary), with h = pcs_water_h_pt(p, T) for the T(p,h) calls. One operation is one call
 * on the next state of the cycle, so the branch predictor and caches see a realistic mix, not
 * one repeated point. Every table benchmark has the matching full-equation benchmark as its
 * baseline: the "vs baseline" column is the table's cost as a fraction of IF97's.
 *
 * The table is the default pcs_water_table_def (45 x 175 (p,T) and 45 x 100 (p,h) nodes,
 * 2.5 MB). With PCS_BENCH_REPORT=1 in the environment its setup prints the errors the table
 * measured at build (pcs_water_table_error) and the largest relative error against IF97 over
 * the benchmark's own 4096 states.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

#define WB_N 4096u /* states per cycle (power of two) */

typedef struct wb_ctx {
    double p[WB_N], t[WB_N], h[WB_N];
    pcs_water_table *table;
    uint32_t next;
} wb_ctx;

static int wb_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

static void wb_teardown(void *ctx)
{
    wb_ctx *c = ctx;
    if (c)
        pcs_water_table_destroy(c->table);
    free(c);
}

static int wb_states(wb_ctx *c)
{
    pcs_rng rng;
    if (pcs_rng_seed(&rng, 97, 6, 1) != PCS_OK)
        return -1;
    for (uint32_t i = 0; i < WB_N; i++) {
        double p = 0.1e6 + pcs_rng_uniform(&rng) * (22e6 - 0.1e6), tsat;
        if (pcs_water_tsat(p, &tsat) != PCS_OK)
            return -1;
        double t_hi = fmin(615.0, tsat - 0.5);
        c->p[i] = p;
        c->t[i] = 280.0 + pcs_rng_uniform(&rng) * (t_hi - 280.0);
        if (pcs_water_h_pt(p, c->t[i], &c->h[i]) != PCS_OK)
            return -1;
    }
    return 0;
}

/* Max relative errors of the table over the states: h (relative to max(|h|, 1e5) as the
 * table's stated bound), rho, T. */
static void wb_measure(const wb_ctx *c, double err[3])
{
    err[0] = err[1] = err[2] = 0.0;
    for (uint32_t i = 0; i < WB_N; i++) {
        double h, ht, rho, rhot, tt;
        if (pcs_water_table_h_pt(c->table, c->p[i], c->t[i], &ht) != PCS_OK ||
            pcs_water_table_rho_pt(c->table, c->p[i], c->t[i], &rhot) != PCS_OK ||
            pcs_water_table_t_ph(c->table, c->p[i], c->h[i], &tt) != PCS_OK ||
            pcs_water_h_pt(c->p[i], c->t[i], &h) != PCS_OK ||
            pcs_water_rho_pt(c->p[i], c->t[i], &rho) != PCS_OK) {
            err[0] = err[1] = err[2] = NAN;
            return;
        }
        err[0] = fmax(err[0], fabs(ht - h) / fmax(fabs(h), 1e5));
        err[1] = fmax(err[1], fabs(rhot - rho) / rho);
        err[2] = fmax(err[2], fabs(tt - c->t[i]) / c->t[i]);
    }
}

static wb_ctx *wb_new(int with_table)
{
    wb_ctx *c = calloc(1, sizeof *c);
    if (!c || wb_states(c) != 0) {
        fprintf(stderr, "water bench: states: %s\n", pcs_last_error());
        free(c);
        return NULL;
    }
    if (!with_table)
        return c;
    pcs_water_table_def tc;
    pcs_water_table_default(&tc);
    if (pcs_water_table_create(&tc, &c->table) != PCS_OK) {
        fprintf(stderr, "water bench: table: %s\n", pcs_last_error());
        wb_teardown(c);
        return NULL;
    }
    if (wb_report()) {
        double built[3], err[3];
        pcs_water_table_error(c->table, &built[0], &built[1], &built[2]);
        wb_measure(c, err);
        fprintf(stderr,
                "water table: %llu bytes; errors measured at build h %.3g, rho %.3g, T %.3g; "
                "over the %u bench states h %.3g, rho %.3g, T %.3g\n",
                (unsigned long long)pcs_water_table_bytes(&tc), built[0], built[1], built[2], WB_N,
                err[0], err[1], err[2]);
    }
    return c;
}

static void *wb_setup_plain(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return wb_new(0);
}

static void *wb_setup_table(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return wb_new(1);
}

/* One loop per function: the call is the only work besides the index. */
#define WB_RUN(fname, call)                                                                        \
    static void fname(void *ctx, uint64_t n)                                                       \
    {                                                                                              \
        wb_ctx *c = ctx;                                                                           \
        uint32_t i = c->next;                                                                      \
        for (uint64_t k = 0; k < n; k++) {                                                         \
            double out = 0.0;                                                                      \
            pcs_bench_consume_u64((uint64_t)(call));                                               \
            pcs_bench_consume_f64(out);                                                            \
            i = (i + 1u) & (WB_N - 1u);                                                            \
        }                                                                                          \
        c->next = i;                                                                               \
    }

WB_RUN(wb_h_pt, pcs_water_h_pt(c->p[i], c->t[i], &out))
WB_RUN(wb_rho_pt, pcs_water_rho_pt(c->p[i], c->t[i], &out))
WB_RUN(wb_t_ph, pcs_water_t_ph(c->p[i], c->h[i], &out))
WB_RUN(wb_table_h_pt, pcs_water_table_h_pt(c->table, c->p[i], c->t[i], &out))
WB_RUN(wb_table_rho_pt, pcs_water_table_rho_pt(c->table, c->p[i], c->t[i], &out))
WB_RUN(wb_table_t_ph, pcs_water_table_t_ph(c->table, c->p[i], c->h[i], &out))

#define WB_DEF(var, nm, desc, base, set, fn)                                                       \
    static const pcs_bench_def var = {                                                             \
        .group = "water",                                                                          \
        .name = nm,                                                                                \
        .description = desc,                                                                       \
        .baseline = base,                                                                          \
        .setup = set,                                                                              \
        .teardown = wb_teardown,                                                                   \
        .run = fn,                                                                                 \
    };                                                                                             \
    PCS_BENCH_REGISTER(var)

WB_DEF(wb_def_h, "h_pt", "pcs_water_h_pt on a compressed-liquid state (IF97 region 1)", NULL,
       wb_setup_plain, wb_h_pt)
WB_DEF(wb_def_rho, "rho_pt", "pcs_water_rho_pt on a compressed-liquid state", NULL, wb_setup_plain,
       wb_rho_pt)
WB_DEF(wb_def_t, "t_ph", "pcs_water_t_ph (backward equation + Newton) on a liquid state", NULL,
       wb_setup_plain, wb_t_ph)
WB_DEF(wb_def_th, "table_h_pt", "pcs_water_table_h_pt (bicubic patch) on the same states",
       "water.h_pt", wb_setup_table, wb_table_h_pt)
WB_DEF(wb_def_trho, "table_rho_pt", "pcs_water_table_rho_pt on the same states", "water.rho_pt",
       wb_setup_table, wb_table_rho_pt)
WB_DEF(wb_def_tt, "table_t_ph", "pcs_water_table_t_ph on the same states", "water.t_ph",
       wb_setup_table, wb_table_t_ph)
