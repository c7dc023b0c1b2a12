/**
 * @file fuel_solve.c
 * @brief The fuel model's tick: coolant properties, the implicit radial
 *        solve per (channel, axial node) marched up each channel, outputs,
 *        range flags and events.
 *
 * Why one tridiagonal per rod-node, coolant included: putting the coolant
 * node at the end of the rod's radial chain makes the rod-coolant coupling
 * fully implicit (no film-coefficient time-step limit), and because the
 * coolant node only depends on the node below, which the march has just
 * solved, each channel is solved exactly in one upward pass. Conductivities
 * and coolant properties are taken at the previous step's temperatures
 * (lagged): the system stays linear, an M-matrix, so backward Euler is
 * unconditionally stable and monotone, and energy is conserved exactly by
 * construction because each face conductance appears with opposite signs
 * in its two rows.
 *
 * Cost per rod-node: n_r - 2 conductivity table lookups, one pcs_pow04 for
 * Dittus-Boelter (no libm call in the sweep), and a Thomas solve of n_r + 1
 * rows (one division per row), the solid rows in vector lanes (see "Layout
 * of the solve" below). Per sweep: one T_sat(p) and one exp for Thom's
 * coefficient. bench/README.md ("Fuel heat at vector width") has the
 * instructions and times per unit-tick.
 */
#include "pcsim/event.h"
#include "pcsim/fuel_materials.h"
#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/thermal/kernels/pow_fixed.h"
#include "physics/thermal/models/fuel_internal.h"

#include <math.h> /* INFINITY, NAN only */
#include <string.h>

/* Thom et al. (1965): T_w - T_sat = 22.65 sqrt(q''/1 MW m^-2) exp(-p / 8.7 MPa),
 * i.e. q'' = K (T_w - T_sat)^2 with K = exp(2 p / 8.7 MPa) / 22.65^2 MW/(m^2 K^2). */
#define THOM_P_SCALE_PA 8.7e6
#define THOM_DT_SCALE_K 22.65

double pcs_fuel_thom_k(double p_pa)
{
    if (!pcs_isfinite(p_pa) || p_pa < 0.0)
        return NAN;
    /* MW/(m^2 K^2) -> W/(m^2 K^2) */
    return pcs_exp(2.0 * p_pa / THOM_P_SCALE_PA) / (THOM_DT_SCALE_K * THOM_DT_SCALE_K) * 1e6;
}

/* Saturation temperature and Thom coefficient at the current pressure. Below
 * the triple-point pressure T_sat is taken there; from the critical pressure
 * up there is no boiling (no saturation line): t_sat = +inf. */
static void boiling_update(pcs_fuel_model *m)
{
    double p = m->pressure[0];
    m->t_sat = INFINITY;
    m->thom_ka = 0.0;
    if (m->boiling != PCS_FUEL_BOILING_THOM || !(p < PCS_IF97_PC_PA))
        return;
    double ts = PCS_IF97_T_MIN_K;
    if (pcs_water_tsat(p > 611.212677 ? p : 611.212677, &ts) != PCS_OK)
        return; /* cannot happen inside [611.2 Pa, p_c); stays single-phase */
    m->t_sat = ts;
    m->thom_ka = pcs_fuel_thom_k(p) * m->film_area_m2;
}

pcs_status pcs_fuel_props_update(pcs_fuel_model *m, uint32_t *n_clamped)
{
    boiling_update(m);
    pcs_coolant_props_out o = {m->cp, m->kw, m->mu, m->rho};
    return m->props_fn(m->props_ctx, m->n_ch * m->n_ax, m->t_cool, m->pressure[0], &o, n_clamped);
}

/*
 * Layout of the solve (issue 16, "fuel heat at vector width"). A rod-node's
 * radial system couples to the rest of the core only through its coolant
 * row (the node below feeds it, upward only), and the solid rows come first
 * in the Thomas elimination. So the sweep is three passes:
 *   1. forward elimination of the solid rows 0..n_r-2 of every rod-node of
 *      the core at once (they do not depend on the coolant march), in blocks
 *      of PCS_FUEL_LANES rod-nodes side by side (structure of arrays: every
 *      inner loop runs over the lanes of a block, a fixed count, which gcc
 *      -O2 vectorises);
 *   2. the march up the channels, level by level with the channels side by
 *      side (their chains overlap in the processor): per rod-node only the
 *      wall row, the coolant row and the regime choice (scalar);
 *   3. back substitution of the solid rows, again in blocks of lanes.
 * Every rod-node's arithmetic is the same IEEE operations in the same order
 * as a one-node Thomas solve, so the result does not depend on the blocking
 * nor on the vector width the compiler picks (-ffp-contract=off keeps it
 * from fusing). Unused lanes of the last block repeat the last rod-node and
 * are never written back.
 */

/* Regime passes per level at most (fuel.h): Newton on the convex wall flux
 * converges quadratically. Measured in tests/test_fuel_boiling.c's step
 * into boiling: at dt = 0.05 s 74 % of level solves take one pass, 26 % two,
 * 7 of 7200 three to five; at dt = 1 s at most six (a level was then 4
 * channels solved together; each rod-node now iterates alone, which takes
 * no more passes). Single-phase nodes always take one. */
#define PCS_FUEL_REGIME_PASSES 8
/* A boiling node is re-linearised when its superheat moved more than this
 * from the linearisation point: the tangent's flux error is K A dT^2, i.e.
 * below 1e-8 of the flux for dT = 1e-4 K at PWR superheats. */
#define PCS_FUEL_BOIL_RELIN_K 1e-4

/*
 * Wall and coolant terms of one rod-node. The wall-to-coolant heat flow is
 * linear in the new temperatures,
 *   Q = g_film (T_wall - T_cool) + g_boil T_wall + q_boil0,
 * with g_boil = q_boil0 = 0 in forced convection, and Thom linearised about
 * a wall temperature in nucleate boiling (wall_regime; fuel.h).
 */
typedef struct wall_terms {
    double g_film;    /* convective conductance wall-bulk, W/K */
    double g_boil;    /* boiling conductance on the wall alone, W/K */
    double q_boil0;   /* constant part of the boiling heat flow, W */
    double cool_diag; /* coolant row diagonal, W/K */
    double cool_rhs;  /* coolant row right-hand side, W */
    /* What the regime choice needs to be redone within the tick: */
    double g_conv;    /* Dittus-Boelter conductance, W/K */
    double x_lin;     /* superheat boiling is linearised at, K */
    int mode;         /* WALL_* regime the node is solved with */
    double diag_base; /* c_w + f_w, W/K */
    double rhs_base;  /* c_w T_old + f_w T_up + Q_direct, W */
} wall_terms;

/* Wall regimes of a rod-node (fuel.h). */
enum {
    WALL_CONVECTION = 0, /* Dittus-Boelter */
    WALL_BOIL_SAT = 1,   /* Thom over T_sat, the coolant node subcooled */
    WALL_BOIL_NODE = 2,  /* Thom over the coolant node, which has passed T_sat */
};

/* Reference of Thom's superheat: T_sat, or the fuel's own coolant node when
 * that liquid balance has passed T_sat (stagnant or starved channel; no void
 * here). So the flux stays continuous in both temperatures and never carries
 * heat from the wall into hotter liquid. */
static double boil_ref(const pcs_fuel_model *m, double t_cool)
{
    return t_cool > m->t_sat ? t_cool : m->t_sat;
}

/* The regime at (t_wall, t_cool): boiling when the wall is past the
 * reference and Thom's flux exceeds the convective one. */
static int wall_mode(const pcs_fuel_model *m, double g_conv, double t_wall, double t_cool)
{
    double x = t_wall - boil_ref(m, t_cool);
    if (!(x > 0.0 && m->thom_ka * x * x > g_conv * (t_wall - t_cool)))
        return WALL_CONVECTION;
    return t_cool > m->t_sat ? WALL_BOIL_NODE : WALL_BOIL_SAT;
}

/* Set the wall terms for the regime at (t_wall0, t_cool0), Thom linearised
 * there: Q = K A x0^2 + 2 K A x0 (dT_w - dT_ref). Over T_sat the flux
 * depends on the wall only (g_boil); over the coolant node it is a
 * conductance between the two (g_film = 2 K A x0) plus a constant. */
static void wall_regime(const pcs_fuel_model *m, wall_terms *in, double t_wall0, double t_cool0)
{
    double g_conv = in->g_conv;
    int mode = wall_mode(m, g_conv, t_wall0, t_cool0);
    double x0 = t_wall0 - boil_ref(m, t_cool0), q0 = m->thom_ka * x0 * x0;
    in->mode = mode;
    in->x_lin = x0;
    in->g_film = g_conv;
    in->g_boil = 0.0;
    in->q_boil0 = 0.0;
    if (mode == WALL_BOIL_SAT) {
        in->g_film = 0.0;
        in->g_boil = 2.0 * m->thom_ka * x0;
        in->q_boil0 = q0 - in->g_boil * t_wall0;
    } else if (mode == WALL_BOIL_NODE) {
        in->g_film = 2.0 * m->thom_ka * x0;
        in->q_boil0 = -q0;
    }
    in->cool_diag = in->diag_base + in->g_film;
    in->cool_rhs = in->rhs_base + in->q_boil0;
}

/* After a solve: re-choose the regime when the result contradicts the one it
 * was solved with (convection although the new wall boils, or the reverse,
 * or another boiling reference), or when it boils and its superheat moved
 * more than PCS_FUEL_BOIL_RELIN_K from the linearisation point. Returns
 * whether it changed. */
static int regime_update(const pcs_fuel_model *m, wall_terms *in, double t_wall, double t_cool)
{
    int now = wall_mode(m, in->g_conv, t_wall, t_cool);
    double x = t_wall - boil_ref(m, t_cool);
    if (now != in->mode ||
        (now != WALL_CONVECTION && pcs_fabs(x - in->x_lin) > PCS_FUEL_BOIL_RELIN_K)) {
        wall_regime(m, in, t_wall, t_cool);
        return 1;
    }
    return 0;
}

/* Rod-node of lane l of block b: the last one for the padding lanes. */
static size_t lane_node(size_t nodes, uint32_t b, uint32_t l)
{
    size_t n = (size_t)b * PCS_FUEL_LANES + l;
    return n < nodes ? n : nodes - 1u;
}

/*
 * The wall row and the coolant row of rod-node n, after pass 1 eliminated
 * the rows below the wall:
 *   wall:    -g x[nr-2] + (C/dt + g + g_film + g_boil) x[nr-1] - g_film x[nr] = rhs - q_boil0
 *   coolant: -(g_film + g_boil) x[nr-1] + cool_diag x[nr] = cool_rhs (q_boil0 included),
 * not symmetric in boiling, but still an M-matrix (column diagonally
 * dominant). Stores the wall row's e and d for pass 3 and returns the new
 * coolant temperature; *t_wall gets the new wall temperature.
 */
static double solve_wall(pcs_fuel_model *m, size_t n, const wall_terms *in, double c_dt, double q,
                         double *t_wall)
{
    enum { L = PCS_FUEL_LANES };
    const uint32_t nr = m->n_r, iw = nr - 1;
    const size_t blk = n / L * L * nr, l = n % L;
    double g_left = m->nd_g_below[n];
    double e_prev = m->blk_e[blk + (iw - 1) * L + l], d_prev = m->blk_d[blk + (iw - 1) * L + l];
    double g_wall = in->g_film + in->g_boil;
    double den = c_dt + g_left + g_wall - g_left * e_prev;
    double inv = 1.0 / den;
    double e_w = in->g_film * inv;
    double d_w = (c_dt * m->nd_t_wall[n] + m->gen[iw] * q + g_left * d_prev - in->q_boil0) * inv;
    m->blk_e[blk + iw * L + l] = e_w;
    m->blk_d[blk + iw * L + l] = d_w;
    double x = (in->cool_rhs + g_wall * d_w) / (in->cool_diag - g_wall * e_w);
    *t_wall = d_w + e_w * x;
    return x;
}

/* Pass 2 for rod-node n = (c, j): the wall and coolant rows with the coolant
 * entering at t_up, the regime iterated. Returns the node's heat to the
 * coolant (W per rod) and sets the new coolant temperature in the store. */
static double march_node(pcs_fuel_model *m, size_t n, double mdot_rod, double t_up, double inv_dt,
                         double power_w, double *flow)
{
    const double c_dt = m->cap[m->n_r - 1] * inv_dt;
    double cp = m->cp[n], t_old = m->t_cool[n];
    double c_w = m->rho[n] * m->cool_vol_m3 * cp * inv_dt;
    double f_w = mdot_rod * cp;
    double q_dir = power_w * m->q_direct[n], q = power_w * m->q_fuel[n];
    wall_terms in = {.g_conv = m->nd_g_conv[n],
                     .diag_base = c_w + f_w,
                     .rhs_base = c_w * t_old + f_w * t_up + q_dir};
    wall_regime(m, &in, m->nd_t_wall[n], t_old);
    double wall, x = solve_wall(m, n, &in, c_dt, q, &wall);
    /* Boiling is only linearised: redo the node from its old temperatures
     * until its regime agrees with its result. */
    for (int pass = 1; pass < PCS_FUEL_REGIME_PASSES; pass++) {
        if (!regime_update(m, &in, wall, x))
            break;
        x = solve_wall(m, n, &in, c_dt, q, &wall);
    }
    m->nd_wall_new[n] = wall;
    m->t_cool[n] = x;
    *flow = f_w * (x - t_up);
    /* Q of wall_terms at the new temperatures, as the two rows hold it. */
    return in.g_film * (wall - x) + in.g_boil * wall + in.q_boil0 + q_dir;
}

/* Pass 2: march every channel upward, level by level with the channels
 * side by side, so the channels' dependency chains (coolant temperature
 * into the node above, through a division) overlap in the processor.
 * Adds the heat terms to *heat. */
static void march(pcs_fuel_model *m, const double *mdot_rod, double inv_dt, double power_w,
                  pcs_fuel_heat *heat)
{
    const uint32_t nax = m->n_ax, nch = m->n_ch;
    double t_up[PCS_FUEL_MAX_CHANNELS], to_coolant[PCS_FUEL_MAX_CHANNELS];
    double flow[PCS_FUEL_MAX_CHANNELS];
    for (uint32_t c = 0; c < nch; c++) {
        t_up[c] = m->t_in[c];
        to_coolant[c] = 0.0;
        flow[c] = 0.0;
    }
    for (uint32_t j = 0; j < nax; j++)
        for (uint32_t c = 0; c < nch; c++) {
            size_t n = (size_t)c * nax + j;
            double f;
            double q_wall = march_node(m, n, mdot_rod[c], t_up[c], inv_dt, power_w, &f);
            to_coolant[c] += q_wall;
            m->q_axial[j] += q_wall * m->rods[c];
            flow[c] += f;
            t_up[c] = m->t_cool[n];
        }
    for (uint32_t c = 0; c < nch; c++) {
        heat->to_coolant += to_coolant[c] * m->rods[c];
        heat->flow += flow[c] * m->rods[c];
    }
}

/*
 * Passes 1 and 3, once per instruction set (fuel_block.h): the same source
 * compiled for the build's baseline and, on x86-64, for AVX2 and AVX-512,
 * where the lane loops run 4 or 8 doubles wide. Every variant does the same
 * IEEE operations in the same order (-ffp-contract=off: no fused
 * multiply-add, which AVX2 machines have), so they give the same bits;
 * tests/test_fuel_isa.c forces each one and compares the state hashes.
 */
#define FB_TARGET
#define FB_NAME(x) x##_base
#include "physics/thermal/models/fuel_block.h"
#undef FB_TARGET
#undef FB_NAME
#if PCS_FUEL_X86_ISA
#define FB_TARGET __attribute__((target("avx2")))
#define FB_NAME(x) x##_avx2
#include "physics/thermal/models/fuel_block.h"
#undef FB_TARGET
#undef FB_NAME
#define FB_TARGET __attribute__((target("avx2,avx512f,avx512vl,avx512dq")))
#define FB_NAME(x) x##_avx512
#include "physics/thermal/models/fuel_block.h"
#undef FB_TARGET
#undef FB_NAME
#endif

/* The variant in force for models built from now on: PCS_FUEL_ISA_AUTO
 * (the widest this CPU runs) unless a test forced one. A plain int: physics
 * holds no atomics (archcheck), and the hook is set and read on the thread
 * that builds worlds (pcs_fuel_isa_force's rule), never during a tick. */
static int fuel_isa_forced = PCS_FUEL_ISA_AUTO;

static int isa_runs(int isa)
{
    switch (isa) {
    case PCS_FUEL_ISA_BASE:
        return 1;
#if PCS_FUEL_X86_ISA
    case PCS_FUEL_ISA_AVX2:
        return __builtin_cpu_supports("avx2");
    case PCS_FUEL_ISA_AVX512:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#endif
    default:
        return 0;
    }
}

pcs_status pcs_fuel_isa_force(int isa)
{
    if (isa != PCS_FUEL_ISA_AUTO && !isa_runs(isa))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_fuel_isa_force: variant %d is not built in or this CPU cannot "
                             "run it",
                             isa);
    fuel_isa_forced = isa;
    return PCS_OK;
}

int pcs_fuel_isa_pick(void)
{
    int forced = fuel_isa_forced;
    if (forced != PCS_FUEL_ISA_AUTO)
        return forced;
    if (isa_runs(PCS_FUEL_ISA_AVX512))
        return PCS_FUEL_ISA_AVX512;
    if (isa_runs(PCS_FUEL_ISA_AVX2))
        return PCS_FUEL_ISA_AVX2;
    return PCS_FUEL_ISA_BASE;
}

static void forward_blocks(pcs_fuel_model *m, double inv_dt, double power_w)
{
    switch (m->isa) {
#if PCS_FUEL_X86_ISA
    case PCS_FUEL_ISA_AVX512:
        for (uint32_t b = 0; b < m->n_blk; b++)
            forward_block_avx512(m, b, inv_dt, power_w);
        return;
    case PCS_FUEL_ISA_AVX2:
        for (uint32_t b = 0; b < m->n_blk; b++)
            forward_block_avx2(m, b, inv_dt, power_w);
        return;
#endif
    default:
        for (uint32_t b = 0; b < m->n_blk; b++)
            forward_block_base(m, b, inv_dt, power_w);
    }
}

static void back_blocks(pcs_fuel_model *m)
{
    switch (m->isa) {
#if PCS_FUEL_X86_ISA
    case PCS_FUEL_ISA_AVX512:
        for (uint32_t b = 0; b < m->n_blk; b++)
            back_block_avx512(m, b);
        return;
    case PCS_FUEL_ISA_AVX2:
        for (uint32_t b = 0; b < m->n_blk; b++)
            back_block_avx2(m, b);
        return;
#endif
    default:
        for (uint32_t b = 0; b < m->n_blk; b++)
            back_block_base(m, b);
    }
}

void pcs_fuel_sweep(pcs_fuel_model *m, double inv_dt, double power_w, pcs_fuel_heat *heat,
                    uint32_t *reverse_flow_channel)
{
    const uint32_t nax = m->n_ax;
    const size_t nodes = (size_t)m->n_ch * nax;
    heat->to_coolant = 0.0;
    heat->flow = 0.0;
    for (uint32_t j = 0; j < nax; j++)
        m->q_axial[j] = 0.0;
    *reverse_flow_channel = UINT32_MAX;
    double mdot_rod[PCS_FUEL_MAX_CHANNELS];
    for (uint32_t c = 0; c < m->n_ch; c++) {
        double mdot = m->mdot[c];
        if (mdot < 0.0) { /* upward marching only: used as stagnant, flagged */
            *reverse_flow_channel = c;
            mdot = 0.0;
        }
        mdot_rod[c] = mdot / m->rods[c];
        double flux_dh = mdot_rod[c] / m->flow_area_m2 * m->d_h_m;
        for (uint32_t j = 0; j < nax; j++)
            m->nd_flux_dh[(size_t)c * nax + j] = flux_dh;
    }
    for (size_t n = nodes; n < (size_t)m->n_blk * PCS_FUEL_LANES; n++)
        m->nd_flux_dh[n] = m->nd_flux_dh[nodes - 1u];
    forward_blocks(m, inv_dt, power_w);
    march(m, mdot_rod, inv_dt, power_w, heat);
    back_blocks(m);
}

/* The outputs from the per-rod-node figures of back_block or node_stats. */
static void summarise_nodes(pcs_fuel_model *m)
{
    const uint32_t nr = m->n_r, nax = m->n_ax;
    double t_max = 0.0, clad_max = 0.0, centre = 0.0, fuel = 0.0, cool = 0.0;
    double out_num = 0.0, out_den = 0.0, out_plain = 0.0;
    for (uint32_t c = 0; c < m->n_ch; c++) {
        double c_centre = 0.0, c_fuel = 0.0, c_cool = 0.0, t_below = m->t_in[c];
        for (uint32_t j = 0; j < nax; j++) {
            size_t n = (size_t)c * nax + j;
            c_centre += m->t_rod[n * nr];
            c_fuel += m->nd_fuel[n];
            t_max = m->nd_fuel_max[n] > t_max ? m->nd_fuel_max[n] : t_max;
            clad_max = m->nd_clad_max[n] > clad_max ? m->nd_clad_max[n] : clad_max;
            /* Node values are outlets (donor cell): the node's mean is the
             * average of its inlet and outlet. */
            c_cool += 0.5 * (t_below + m->t_cool[n]);
            t_below = m->t_cool[n];
        }
        double wgt = m->rod_frac[c] / (double)nax;
        centre += c_centre * wgt;
        fuel += c_fuel * wgt;
        cool += c_cool * wgt;
        size_t top = (size_t)c * nax + nax - 1;
        double mdot = m->mdot[c] > 0.0 ? m->mdot[c] : 0.0;
        out_num += mdot * m->cp[top] * m->t_cool[top];
        out_den += mdot * m->cp[top];
        out_plain += m->rod_frac[c] * m->t_cool[top];
    }
    m->out[PCS_FUEL_OUT_T_MAX] = t_max;
    m->out[PCS_FUEL_OUT_T_CENTRE_AVG] = centre;
    m->out[PCS_FUEL_OUT_T_AVG] = fuel;
    m->out[PCS_FUEL_OUT_CLAD_T_MAX] = clad_max;
    m->out[PCS_FUEL_OUT_COOLANT_T_OUT] = out_den > 0.0 ? out_num / out_den : out_plain;
    m->out[PCS_FUEL_OUT_COOLANT_T_AVG] = cool;
}

/* Per rod-node: the volume-weighted fuel temperature sum and the largest
 * fuel and clad temperatures (from 0 K: a NaN node never wins), from the
 * store; back_block computes the same, in the same order, per lane. */
static void node_stats(pcs_fuel_model *m)
{
    const uint32_t nr = m->n_r, nf = m->n_f;
    const size_t nodes = (size_t)m->n_ch * m->n_ax;
    for (size_t n = 0; n < nodes; n++) {
        const double *t = m->t_rod + n * nr;
        double fuel = 0.0, f_max = 0.0, c_max = 0.0;
        for (uint32_t i = 0; i < nf; i++) {
            fuel += m->gen[i] * t[i];
            f_max = t[i] > f_max ? t[i] : f_max;
        }
        for (uint32_t i = nf; i < nr; i++)
            c_max = t[i] > c_max ? t[i] : c_max;
        m->nd_fuel[n] = fuel;
        m->nd_fuel_max[n] = f_max;
        m->nd_clad_max[n] = c_max;
    }
}

void pcs_fuel_summarise(pcs_fuel_model *m)
{
    node_stats(m);
    summarise_nodes(m);
}

/* Boundary stores are written by other models: refuse non-finite values. */
static pcs_status check_inputs(const pcs_fuel_model *m, double power_w)
{
    if (!pcs_isfinite(power_w) || power_w < 0.0)
        return pcs_error_set(PCS_E_INVAL,
                             "u%u.fuel.heat: core power %g W is outside [0, inf) (not finite or "
                             "negative)",
                             m->unit_index + 1u, power_w);
    for (uint32_t c = 0; c < m->n_ch; c++)
        if (!pcs_isfinite(m->t_in[c]) || !pcs_isfinite(m->mdot[c]))
            return pcs_error_set(PCS_E_INVAL,
                                 "u%u.fuel.heat: channel %u inlet temperature %g K or flow %g "
                                 "kg/s is not finite",
                                 m->unit_index + 1u, c, m->t_in[c], m->mdot[c]);
    if (!pcs_isfinite(m->pressure[0]))
        return pcs_error_set(PCS_E_INVAL, "u%u.fuel.heat: pressure %g Pa is not finite",
                             m->unit_index + 1u, m->pressure[0]);
    return PCS_OK;
}

/* Raise flags; emit PCS_EV_FUEL_RANGE for each bit that was clear last tick. */
static void update_flags(pcs_world *w, pcs_fuel_model *m, uint32_t clamped, uint32_t reverse)
{
    uint32_t f = 0;
    double t_max = m->out[PCS_FUEL_OUT_T_MAX], clad_max = m->out[PCS_FUEL_OUT_CLAD_T_MAX];
    if (t_max > m->fuel_t_limit_k)
        f |= PCS_FUEL_FLAG_FUEL_RANGE;
    if (clad_max > m->clad_t_limit_k)
        f |= PCS_FUEL_FLAG_CLAD_RANGE;
    if (clamped)
        f |= PCS_FUEL_FLAG_COOLANT_RANGE;
    if (reverse != UINT32_MAX)
        f |= PCS_FUEL_FLAG_REVERSE_FLOW;
    uint32_t rising = f & ~m->flags[0];
    m->flags[0] = f;
    if (!rising)
        return;
    uint32_t u = m->unit_index;
    if (rising & PCS_FUEL_FLAG_FUEL_RANGE)
        pcs_event_emit(w, PCS_EV_FUEL_RANGE, u, PCS_FUEL_FLAG_FUEL_RANGE, t_max, m->fuel_t_limit_k,
                       -1.0);
    if (rising & PCS_FUEL_FLAG_CLAD_RANGE)
        pcs_event_emit(w, PCS_EV_FUEL_RANGE, u, PCS_FUEL_FLAG_CLAD_RANGE, clad_max,
                       m->clad_t_limit_k, -1.0);
    if (rising & PCS_FUEL_FLAG_COOLANT_RANGE)
        pcs_event_emit(w, PCS_EV_FUEL_RANGE, u, PCS_FUEL_FLAG_COOLANT_RANGE,
                       m->out[PCS_FUEL_OUT_COOLANT_T_OUT], (double)clamped, -1.0);
    if (rising & PCS_FUEL_FLAG_REVERSE_FLOW)
        pcs_event_emit(w, PCS_EV_FUEL_RANGE, u, PCS_FUEL_FLAG_REVERSE_FLOW, m->mdot[reverse], 0.0,
                       (double)reverse);
}

pcs_status pcs_fuel_heat_system(pcs_world *w, void *ctx)
{
    pcs_fuel_model *m = ctx;
    double power_w = *m->power;
    pcs_status st = check_inputs(m, power_w);
    uint32_t clamped = 0, reverse = UINT32_MAX;
    if (st == PCS_OK)
        st = pcs_fuel_props_update(m, &clamped);
    if (st != PCS_OK)
        return st;
    pcs_fuel_heat heat;
    pcs_fuel_sweep(m, 1.0 / pcs_world_clock(w)->dt_s, power_w, &heat, &reverse);
    m->out[PCS_FUEL_OUT_HEAT_TO_COOLANT] = heat.to_coolant;
    m->out[PCS_FUEL_OUT_FLOW_HEAT] = heat.flow;
    summarise_nodes(m); /* the sweep's back_block left the per-node figures */
    update_flags(w, m, clamped, reverse);
    return PCS_OK;
}
