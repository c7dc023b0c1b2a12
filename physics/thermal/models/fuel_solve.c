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
 * Cost per rod-node: n_r table lookups, one pcs_pow for Dittus-Boelter, and
 * a Thomas solve of n_r + 1 rows (one division per row). Per sweep: one
 * T_sat(p) and one exp for Thom's coefficient.
 */
#include "pcsim/event.h"
#include "pcsim/fuel_materials.h"
#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/thermal/models/fuel_internal.h"

#include <math.h> /* INFINITY, NAN only */

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
 * Channels are independent within an axial level (only the coolant couples
 * nodes, and only upward), so the march solves PCS_FUEL_LANES channels side
 * by side: every loop below runs over lanes innermost. A Thomas solve is one
 * long chain of dependent divisions; four interleaved chains keep the
 * divider busy instead of waiting on its latency, and the fixed-width lane
 * loops let the compiler use vector instructions. The lane arithmetic is the
 * same IEEE operations in the same order as a one-channel solve, so results
 * do not depend on the batching. Unused lanes of the last batch repeat its
 * first channel and are never written back.
 */
#define PCS_FUEL_LANES 4u

/*
 * Per-lane inputs of one axial level. The wall-to-coolant heat flow is
 * linear in the new temperatures,
 *   Q = g_film (T_wall - T_cool) + g_boil T_wall + q_boil0,
 * with g_boil = q_boil0 = 0 in forced convection, and Thom linearised about
 * a wall temperature in nucleate boiling (wall_regime; fuel.h).
 */
typedef struct lane_level {
    double q[PCS_FUEL_LANES];         /* fuel power of the rod-node, W */
    double g_film[PCS_FUEL_LANES];    /* convective conductance wall-bulk, W/K */
    double g_boil[PCS_FUEL_LANES];    /* boiling conductance on the wall alone, W/K */
    double q_boil0[PCS_FUEL_LANES];   /* constant part of the boiling heat flow, W */
    double cool_diag[PCS_FUEL_LANES]; /* coolant row diagonal, W/K */
    double cool_rhs[PCS_FUEL_LANES];  /* coolant row right-hand side, W */
    /* What the regime choice needs to be redone within the tick: */
    double g_conv[PCS_FUEL_LANES];    /* Dittus-Boelter conductance, W/K */
    double x_lin[PCS_FUEL_LANES];     /* superheat boiling is linearised at, K */
    int mode[PCS_FUEL_LANES];         /* WALL_* regime the level is solved with */
    double diag_base[PCS_FUEL_LANES]; /* c_w + f_w, W/K */
    double rhs_base[PCS_FUEL_LANES];  /* c_w T_old + f_w T_up + Q_direct, W */
} lane_level;

/* Regime passes per level at most (fuel.h): Newton on the convex wall flux
 * converges quadratically. Measured in tests/test_fuel_boiling.c's step
 * into boiling: at dt = 0.05 s 74 % of level solves take one pass, 26 % two,
 * 7 of 7200 three to five; at dt = 1 s at most six. Single-phase levels
 * always take one. */
#define PCS_FUEL_REGIME_PASSES 8
/* A boiling lane is re-linearised when its superheat moved more than this
 * from the linearisation point: the tangent's flux error is K A dT^2, i.e.
 * below 1e-8 of the flux for dT = 1e-4 K at PWR superheats. */
#define PCS_FUEL_BOIL_RELIN_K 1e-4

/* Film conductance of one rod-node, W/K: Dittus-Boelter with a laminar floor.
 * Re^0.8 Pr^0.4 is evaluated as (Re^2 Pr)^0.4: one pow instead of two. */
static double film_conductance(const pcs_fuel_model *m, double mass_flux_dh, double cp, double kw,
                               double mu)
{
    double re = mass_flux_dh / mu;
    double pr = cp * mu / kw;
    double nu = re > 0.0 ? 0.023 * pcs_pow(re * re * pr, 0.4) : 0.0;
    if (nu < m->nu_laminar)
        nu = m->nu_laminar;
    return nu * kw / m->d_h_m * m->film_area_m2;
}

/* Choose the wall regime of lane l at its old wall and coolant temperatures
 * (fuel.h): Thom when the wall is past saturation and Thom's flux exceeds
 * the convective one, linearised as Q = q0 + 2 K A x0 (T_w' - T_w0). */
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

/* Set lane l's wall terms for the regime at (t_wall0, t_cool0), Thom
 * linearised there: Q = K A x0^2 + 2 K A x0 (dT_w - dT_ref). Over T_sat the
 * flux depends on the wall only (g_boil); over the coolant node it is a
 * conductance between the two (g_film = 2 K A x0) plus a constant. */
static void wall_regime(const pcs_fuel_model *m, lane_level *in, uint32_t l, double t_wall0,
                        double t_cool0)
{
    double g_conv = in->g_conv[l];
    int mode = wall_mode(m, g_conv, t_wall0, t_cool0);
    double x0 = t_wall0 - boil_ref(m, t_cool0), q0 = m->thom_ka * x0 * x0;
    in->mode[l] = mode;
    in->x_lin[l] = x0;
    in->g_film[l] = g_conv;
    in->g_boil[l] = 0.0;
    in->q_boil0[l] = 0.0;
    if (mode == WALL_BOIL_SAT) {
        in->g_film[l] = 0.0;
        in->g_boil[l] = 2.0 * m->thom_ka * x0;
        in->q_boil0[l] = q0 - in->g_boil[l] * t_wall0;
    } else if (mode == WALL_BOIL_NODE) {
        in->g_film[l] = 2.0 * m->thom_ka * x0;
        in->q_boil0[l] = -q0;
    }
    in->cool_diag[l] = in->diag_base[l] + in->g_film[l];
    in->cool_rhs[l] = in->rhs_base[l] + in->q_boil0[l];
}

/* After a solve: re-choose the regime of every lane whose result contradicts
 * the one it was solved with (convection although the new wall boils, or
 * the reverse, or another boiling reference), or that boils and whose
 * superheat moved more than PCS_FUEL_BOIL_RELIN_K from its linearisation
 * point. Returns whether any lane changed. A lane's decision depends on its
 * own values only, so batching cannot change it. */
static int regime_update(const pcs_fuel_model *m, lane_level *in,
                         const double t_wall[PCS_FUEL_LANES], const double t_cool[PCS_FUEL_LANES])
{
    int changed = 0;
    for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
        int now = wall_mode(m, in->g_conv[l], t_wall[l], t_cool[l]);
        double x = t_wall[l] - boil_ref(m, t_cool[l]);
        if (now != in->mode[l] ||
            (now != WALL_CONVECTION && pcs_fabs(x - in->x_lin[l]) > PCS_FUEL_BOIL_RELIN_K)) {
            wall_regime(m, in, l, t_wall[l], t_cool[l]);
            changed = 1;
        }
    }
    return changed;
}

/* Old temperatures of one level into the solver's lane arrays. */
static void load_level(const pcs_fuel_model *m, const uint32_t *chan, uint32_t j,
                       double t[][PCS_FUEL_LANES], double t_w[PCS_FUEL_LANES])
{
    for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
        size_t n = (size_t)chan[l] * m->n_ax + j;
        const double *src = m->t_rod + n * m->n_r;
        for (uint32_t r = 0; r < m->n_r; r++)
            t[r][l] = src[r];
        t_w[l] = m->t_cool[n];
    }
}

/*
 * Solve one axial level for all lanes: rows 0..n_r-1 are the solid nodes,
 * row n_r the coolant.
 * Row i < n_r - 1: -g[i-1] x[i-1] + (C_i/dt + g[i-1] + g[i]) x[i] - g[i] x[i+1] = rhs_i.
 * The wall row n_r - 1 and the coolant row exchange Q of lane_level:
 *   wall:    -g x[nr-2] + (C/dt + g + g_film + g_boil) x[nr-1] - g_film x[nr] = rhs - q_boil0
 *   coolant: -(g_film + g_boil) x[nr-1] + cool_diag x[nr] = cool_rhs (q_boil0 included),
 * not symmetric in boiling, but still an M-matrix (column diagonally
 * dominant). Thomas algorithm with e_i = -c'_i >= 0.
 * t[r][l] holds the old temperatures on entry and the new ones on exit;
 * t_w[l] the old coolant temperature on entry and the new one on exit.
 */
static void solve_level(const pcs_fuel_model *m, double t[][PCS_FUEL_LANES],
                        double t_w[PCS_FUEL_LANES], double inv_dt, const lane_level *in)
{
    const uint32_t nf = m->n_f, nr = m->n_r;
    double g[PCS_FUEL_MAX_RADIAL][PCS_FUEL_LANES];
    for (uint32_t i = 0; i + 1 < nf; i++)
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++)
            g[i][l] = m->gfac[i] * pcs_prop_table_eval(&m->k_fuel, 0.5 * (t[i][l] + t[i + 1][l]));
    for (uint32_t l = 0; l < PCS_FUEL_LANES; l++)
        g[nf - 1][l] = m->gfac[nf - 1];
    for (uint32_t i = nf; i + 1 < nr; i++)
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++)
            g[i][l] = m->gfac[i] * pcs_prop_table_eval(&m->k_clad, 0.5 * (t[i][l] + t[i + 1][l]));
    double e[PCS_FUEL_MAX_RADIAL][PCS_FUEL_LANES], d[PCS_FUEL_MAX_RADIAL][PCS_FUEL_LANES];
    double g_left[PCS_FUEL_LANES] = {0}, e_prev[PCS_FUEL_LANES] = {0};
    double d_prev[PCS_FUEL_LANES] = {0};
    for (uint32_t i = 0; i + 1 < nr; i++) {
        double c_dt = m->cap[i] * inv_dt, gen = m->gen[i];
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
            double den = c_dt + g_left[l] + g[i][l] - g_left[l] * e_prev[l];
            double inv = 1.0 / den;
            e[i][l] = g[i][l] * inv;
            d[i][l] = (c_dt * t[i][l] + gen * in->q[l] + g_left[l] * d_prev[l]) * inv;
            g_left[l] = g[i][l];
            e_prev[l] = e[i][l];
            d_prev[l] = d[i][l];
        }
    }
    /* The wall row: its upper coupling is g_film, its diagonal takes both
     * conductances (in convection g_boil = q_boil0 = 0: the symmetric row). */
    const uint32_t iw = nr - 1;
    double g_wall[PCS_FUEL_LANES];
    for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
        double c_dt = m->cap[iw] * inv_dt;
        g_wall[l] = in->g_film[l] + in->g_boil[l];
        double den = c_dt + g_left[l] + g_wall[l] - g_left[l] * e_prev[l];
        double inv = 1.0 / den;
        e[iw][l] = in->g_film[l] * inv;
        d[iw][l] =
            (c_dt * t[iw][l] + m->gen[iw] * in->q[l] + g_left[l] * d_prev[l] - in->q_boil0[l]) *
            inv;
        e_prev[l] = e[iw][l];
        d_prev[l] = d[iw][l];
    }
    /* Coolant row: -g_wall x[nr-1] + cool_diag x[nr] = cool_rhs (no upper neighbour). */
    double x[PCS_FUEL_LANES];
    for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
        x[l] =
            (in->cool_rhs[l] + g_wall[l] * d_prev[l]) / (in->cool_diag[l] - g_wall[l] * e_prev[l]);
        t_w[l] = x[l];
    }
    for (uint32_t i = nr; i-- > 0;)
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
            x[l] = d[i][l] + e[i][l] * x[l];
            t[i][l] = x[l];
        }
}

/* March the channels chan[0..PCS_FUEL_LANES-1] upward; lanes >= n_real are
 * padding. Adds the real lanes' heat terms to *heat. */
static void sweep_batch(pcs_fuel_model *m, const uint32_t *chan, uint32_t n_real, double inv_dt,
                        double power_w, const double *mdot_rod, pcs_fuel_heat *heat)
{
    const uint32_t nr = m->n_r, nax = m->n_ax;
    double t[PCS_FUEL_MAX_RADIAL][PCS_FUEL_LANES], t_w[PCS_FUEL_LANES];
    double t_up[PCS_FUEL_LANES], flux_dh[PCS_FUEL_LANES], f_w[PCS_FUEL_LANES];
    double q_dir[PCS_FUEL_LANES], to_coolant[PCS_FUEL_LANES] = {0}, flow[PCS_FUEL_LANES] = {0};
    for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
        t_up[l] = m->t_in[chan[l]];
        flux_dh[l] = mdot_rod[l] / m->flow_area_m2 * m->d_h_m;
    }
    for (uint32_t j = 0; j < nax; j++) {
        lane_level in;
        load_level(m, chan, j, t, t_w);
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
            size_t n = (size_t)chan[l] * nax + j;
            double cp = m->cp[n];
            double c_w = m->rho[n] * m->cool_vol_m3 * cp * inv_dt;
            in.g_conv[l] = film_conductance(m, flux_dh[l], cp, m->kw[n], m->mu[n]);
            f_w[l] = mdot_rod[l] * cp;
            q_dir[l] = power_w * m->q_direct[n];
            in.q[l] = power_w * m->q_fuel[n];
            in.diag_base[l] = c_w + f_w[l];
            in.rhs_base[l] = c_w * m->t_cool[n] + f_w[l] * t_up[l] + q_dir[l];
            wall_regime(m, &in, l, t[nr - 1][l], t_w[l]);
        }
        solve_level(m, t, t_w, inv_dt, &in);
        /* Boiling is only linearised: redo the level from its old
         * temperatures until every lane's regime agrees with its result. */
        for (int pass = 1; pass < PCS_FUEL_REGIME_PASSES; pass++) {
            double wall[PCS_FUEL_LANES];
            for (uint32_t l = 0; l < PCS_FUEL_LANES; l++)
                wall[l] = t[nr - 1][l];
            if (!regime_update(m, &in, wall, t_w))
                break;
            load_level(m, chan, j, t, t_w);
            solve_level(m, t, t_w, inv_dt, &in);
        }
        for (uint32_t l = 0; l < n_real; l++) {
            size_t n = (size_t)chan[l] * nax + j;
            double *dst = m->t_rod + n * nr;
            for (uint32_t r = 0; r < nr; r++)
                dst[r] = t[r][l];
            /* Q of lane_level at the new temperatures, as the two rows hold it. */
            double q_wall = in.g_film[l] * (t[nr - 1][l] - t_w[l]) + in.g_boil[l] * t[nr - 1][l] +
                            in.q_boil0[l] + q_dir[l];
            to_coolant[l] += q_wall;
            m->q_axial[j] += q_wall * m->rods[chan[l]];
            flow[l] += f_w[l] * (t_w[l] - t_up[l]);
            m->t_cool[n] = t_w[l];
        }
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++)
            t_up[l] = t_w[l];
    }
    for (uint32_t l = 0; l < n_real; l++) {
        heat->to_coolant += to_coolant[l] * m->rods[chan[l]];
        heat->flow += flow[l] * m->rods[chan[l]];
    }
}

void pcs_fuel_sweep(pcs_fuel_model *m, double inv_dt, double power_w, pcs_fuel_heat *heat,
                    uint32_t *reverse_flow_channel)
{
    heat->to_coolant = 0.0;
    heat->flow = 0.0;
    for (uint32_t j = 0; j < m->n_ax; j++)
        m->q_axial[j] = 0.0;
    *reverse_flow_channel = UINT32_MAX;
    for (uint32_t c0 = 0; c0 < m->n_ch; c0 += PCS_FUEL_LANES) {
        uint32_t chan[PCS_FUEL_LANES], n_real = 0;
        double mdot_rod[PCS_FUEL_LANES];
        for (uint32_t l = 0; l < PCS_FUEL_LANES; l++) {
            uint32_t c = c0 + l < m->n_ch ? c0 + l : c0;
            n_real += c0 + l < m->n_ch;
            double mdot = m->mdot[c];
            if (mdot < 0.0) { /* upward marching only: used as stagnant, flagged */
                *reverse_flow_channel = c;
                mdot = 0.0;
            }
            chan[l] = c;
            mdot_rod[l] = mdot / m->rods[c];
        }
        sweep_batch(m, chan, n_real, inv_dt, power_w, mdot_rod, heat);
    }
}

void pcs_fuel_summarise(pcs_fuel_model *m)
{
    const uint32_t nr = m->n_r, nf = m->n_f, nax = m->n_ax;
    double t_max = 0.0, clad_max = 0.0, centre = 0.0, fuel = 0.0, cool = 0.0;
    double out_num = 0.0, out_den = 0.0, out_plain = 0.0;
    for (uint32_t c = 0; c < m->n_ch; c++) {
        double c_centre = 0.0, c_fuel = 0.0, c_cool = 0.0, t_below = m->t_in[c];
        for (uint32_t j = 0; j < nax; j++) {
            size_t n = (size_t)c * nax + j;
            const double *t = m->t_rod + n * nr;
            c_centre += t[0];
            for (uint32_t i = 0; i < nf; i++) {
                c_fuel += m->gen[i] * t[i];
                t_max = t[i] > t_max ? t[i] : t_max;
            }
            for (uint32_t i = nf; i < nr; i++)
                clad_max = t[i] > clad_max ? t[i] : clad_max;
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
    pcs_fuel_summarise(m);
    update_flags(w, m, clamped, reverse);
    return PCS_OK;
}
