/**
 * @file fuel_bench.c
 * @brief Fuel rods (issue 6): one tick of the reference core, 4 channel groups x 24 axial
 *        nodes x (10 fuel + 2 clad) radial nodes, i.e. 96 implicit radial solves of 13
 *        unknowns plus the coolant march. Seed target <= 150 us per tick, goal <= 30 us,
 *        0 bytes allocated.
 *
 * The world holds only a power store and the fuel model (pcs_fuel_default), started
 * at its full-power steady state (pcs_fuel_solve_steady at 3411 MWt, tests/refdata/pwr_plant.md).
 * Each operation is one pcs_world_tick at dt = 0.05 s with the power swinging +-10 % over a
 * 20 s period, so temperatures, lagged conductivities and coolant properties change every
 * tick (the solver does the same work when steady; this keeps it honest). The tick includes
 * the engine's fixed cost, measured alone as tick.empty_world (the baseline column).
 *
 * props=linear is the model's default coolant-property set (pcs_coolant_props_linear).
 * props=if97 passes a bench-local property function built from the IF97 compressed-liquid
 * table (pcs_water_table_rho_pt, cp from two pcs_water_table_h_pt lookups 0.5 K apart) and
 * the IAPWS viscosity and conductivity formulations: what swapping in IF97 would cost.
 *
 * isa picks the instruction set of the sweep's block passes (issue 16; fuel_block.h):
 * auto (the widest this CPU runs, as a world gets it) or base (the build's baseline, SSE2
 * on x86-64); avx2 and avx512 on request (--param isa=avx2,avx512; the setup refuses a
 * variant the CPU cannot run). Every variant gives the same bits, so only the time moves.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"
#include "physics/thermal/models/fuel_internal.h"

#define FB_P_NOM_W 3.411e9 /* tests/refdata/pwr_plant.md ([BEAVRS]; [W84]) */

typedef struct fb_ctx {
    pcs_world *w;
    pcs_water_table *table; /* props=if97 only; world-owned */
    double *power;
    uint64_t tick;
    pcs_fuel f;
} fb_ctx;

/* pcs_coolant_props_fn over the IF97 table: clamps T into the table's liquid range. */
static pcs_status fb_props_if97(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                const pcs_coolant_props_out *out, uint32_t *n_clamped)
{
    const pcs_water_table *t = ctx;
    uint32_t clamped = 0;
    for (uint32_t i = 0; i < n; i++) {
        double tk = t_k[i];
        if (tk < 280.0 || tk > 610.0) {
            tk = tk < 280.0 ? 280.0 : 610.0;
            clamped++;
        }
        double h0, h1, rho, mu, k;
        pcs_status st = pcs_water_table_h_pt(t, p_pa, tk - 0.25, &h0);
        if (st == PCS_OK)
            st = pcs_water_table_h_pt(t, p_pa, tk + 0.25, &h1);
        if (st == PCS_OK)
            st = pcs_water_table_rho_pt(t, p_pa, tk, &rho);
        if (st == PCS_OK)
            st = pcs_water_viscosity(rho, tk, &mu);
        if (st == PCS_OK)
            st = pcs_water_conductivity(rho, tk, &k);
        if (st != PCS_OK)
            return st;
        out->cp_j_kg_k[i] = (h1 - h0) / 0.5;
        out->rho_kg_m3[i] = rho;
        out->mu_pa_s[i] = mu;
        out->k_w_m_k[i] = k;
    }
    *n_clamped = clamped;
    return PCS_OK;
}

static void fb_teardown(void *ctx)
{
    fb_ctx *c = ctx;
    if (c)
        pcs_world_destroy(c->w);
    free(c);
}

static int fb_build(fb_ctx *c, int if97, int isa)
{
    if (pcs_fuel_isa_force(isa) != PCS_OK)
        return -1;
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    uint32_t power_store;
    pcs_fuel_def cfg;
    pcs_fuel_default(&cfg);
    if (pcs_world_create(&wc, &c->w) != PCS_OK ||
        pcs_store_register(c->w, "u1.core.power", sizeof(double), 1, PCS_STORE_STATE,
                           &power_store) != PCS_OK)
        return -1;
    if (if97) {
        pcs_water_table_def tc;
        pcs_water_table_default(&tc);
        if (pcs_water_table_add(c->w, &tc, &c->table) != PCS_OK)
            return -1;
        cfg.props_fn = fb_props_if97;
        cfg.props_ctx = c->table;
    }
    c->power = pcs_store_data(c->w, power_store);
    *c->power = FB_P_NOM_W;
    pcs_status st = pcs_fuel_add(c->w, 0, &cfg, power_store, 0, &c->f);
    pcs_fuel_isa_force(PCS_FUEL_ISA_AUTO); /* the model keeps the one it was built with */
    if (st != PCS_OK || pcs_fuel_solve_steady(c->w, &c->f, FB_P_NOM_W) != PCS_OK)
        return -1;
    return pcs_world_tick(c->w) == PCS_OK ? 0 : -1; /* seal outside the timed part */
}

static void *fb_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    const char *props = pcs_bench_param(p, "props");
    int if97 = props && strcmp(props, "if97") == 0;
    const char *isa_name = pcs_bench_param(p, "isa");
    int isa = PCS_FUEL_ISA_AUTO;
    if (isa_name && strcmp(isa_name, "base") == 0)
        isa = PCS_FUEL_ISA_BASE;
    else if (isa_name && strcmp(isa_name, "avx2") == 0)
        isa = PCS_FUEL_ISA_AVX2;
    else if (isa_name && strcmp(isa_name, "avx512") == 0)
        isa = PCS_FUEL_ISA_AVX512;
    fb_ctx *c = calloc(1, sizeof *c);
    if (!c || fb_build(c, if97, isa) != 0) {
        fprintf(stderr, "fuel.core_tick: %s\n", pcs_last_error());
        fb_teardown(c);
        return NULL;
    }
    return c;
}

static void fb_run(void *ctx, uint64_t n)
{
    fb_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        /* +-10 % over 400 ticks (20 s at 0.05 s) */
        double phase = (double)(c->tick++ % 400u) * (2.0 * 3.14159265358979 / 400.0);
        *c->power = FB_P_NOM_W * (1.0 + 0.1 * sin(phase));
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(c->w));
    }
}

static uint64_t fb_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((fb_ctx *)ctx)->w);
}

static const pcs_bench_def fb_core_tick = {
    .group = "fuel",
    .name = "core_tick",
    .description = "one pcs_world_tick of the reference core (4 x 24 x (10+2)), power +-10 %",
    .params = {{"props", "linear,if97"}, {"isa", "auto,base"}},
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "tick.empty_world",
    .setup = fb_setup,
    .teardown = fb_teardown,
    .run = fb_run,
    .world_allocs = fb_world_allocs,
};
PCS_BENCH_REGISTER(fb_core_tick)
