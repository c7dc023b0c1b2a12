/**
 * @file fuel_rod.c
 * @brief Fuel-rod model build: mesh constants, conductivity tables, stores,
 *        the HEAT-stage system and channels; the steady-state initialiser and
 *        the stored-energy diagnostic (include/pcsim/fuel.h).
 *
 * Everything the tick needs is computed here once: per rod-node heat
 * capacities and face conductance factors, per (channel, node) power
 * coefficients, and conductivity tables, so the tick (fuel_solve.c) is a
 * plain loop over arrays.
 *
 * Load check (fuel_load_check, on a staged save before it is applied): every
 * temperature (rod nodes, coolant nodes, inlets, published summaries) in
 * [PCS_FUEL_T_MIN_K, 1e4] K: the builder's lower bound, and twice the largest
 * fuel temperature limit a unit admits (5000 K) above, far past UO2's melting
 * point (3120 K, where its correlations end); pressure positive and finite
 * (as the builder requires); channel flows within +-PCS_FUEL_MDOT_MAX_KG_S (a
 * negative flow is legal: used as 0 and flagged; a larger one overflows the
 * HEAT stage to NaN) and heat outputs (the summary and the axial heat) finite;
 * flags only PCS_FUEL_FLAG_* bits.
 */
#include <float.h>
#include <math.h> /* NAN, INFINITY only: all math goes through pcs_math */
#include <stdio.h>
#include <string.h>

#include "pcsim/structure.h"
#include "pcsim/channel.h"
#include "pcsim/fuel_materials.h"
#include "pcsim/math.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "physics/thermal/models/fuel_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

/*
 * Conductivity table grid step. Linear interpolation error on a 4 K grid,
 * measured against the formulas over the whole range (max relative):
 * Fink95 8.5e-6, Harding-Martin 2.0e-5, MATPRO 2.7e-6. Far below the
 * correlations' own uncertainty (several per cent); a test checks 3e-5.
 */
#define FUEL_K_TABLE_STEP_K 4.0

/* A conductivity correlation k(T), W/(m K) of K. */
typedef double (*k_correlation_fn)(double t_k);

/* pcs_prop_fn over a correlation: ctx points at the k_correlation_fn. */
static double k_correlation(const void *ctx, double t)
{
    return (*(const k_correlation_fn *)ctx)(t);
}

/* pcs_prop_fn of a constant conductivity: ctx points at the value. */
static double k_const(const void *ctx, double t)
{
    (void)t;
    return *(const double *)ctx;
}

/* One conductivity table up to t_hi_k: sampled from corr, or the constant
 * *k_const_v when corr is NULL. */
static pcs_status k_table(pcs_world *w, pcs_prop_table *tab, const char *what,
                          k_correlation_fn corr, const double *k_const_v, double t_hi_k)
{
    if (corr)
        return pcs_prop_table_build(w, tab, what, k_correlation, &corr, PCS_FUEL_T_MIN_K, t_hi_k,
                                    FUEL_K_TABLE_STEP_K);
    return pcs_prop_table_build(w, tab, what, k_const, k_const_v, PCS_FUEL_T_MIN_K, t_hi_k,
                                FUEL_K_TABLE_STEP_K);
}

static pcs_status build_tables(pcs_world *w, pcs_fuel_model *m, const pcs_fuel_def *cfg)
{
    k_correlation_fn fuel = cfg->fuel_k == PCS_FUEL_K_FINK95           ? pcs_uo2_k_fink95
                            : cfg->fuel_k == PCS_FUEL_K_HARDING_MARTIN ? pcs_uo2_k_harding_martin
                                                                       : NULL;
    k_correlation_fn clad = cfg->clad_k == PCS_CLAD_K_MATPRO ? pcs_zry_k_matpro
                            : cfg->clad_k == PCS_CLAD_K_IAEA ? pcs_zry_k_iaea
                                                             : NULL;
    m->fuel_t_limit_k = PCS_UO2_T_MAX_K;
    m->clad_t_limit_k =
        cfg->clad_k == PCS_CLAD_K_IAEA ? PCS_ZRY_IAEA_T_MAX_K : PCS_ZRY_MATPRO_T_MAX_K;
    pcs_status st = k_table(w, &m->k_fuel, "UO2 conductivity", fuel, &cfg->fuel_k_const_w_m_k,
                            m->fuel_t_limit_k);
    if (st == PCS_OK)
        st = k_table(w, &m->k_clad, "Zircaloy conductivity", clad, &cfg->clad_k_const_w_m_k,
                     m->clad_t_limit_k);
    return st;
}

/*
 * Vertex-centred rings: nodes at r0 + i h, i = 0..n-1; node i owns
 * [r_i - h/2, r_i + h/2] clipped to [r0, r0 + (n-1) h]. Returns the area of
 * node i's ring (per unit length, m^2).
 */
static double ring_area(double r0, double h, uint32_t n, uint32_t i)
{
    double lo = i == 0 ? r0 : r0 + ((double)i - 0.5) * h;
    double hi = i + 1 == n ? r0 + (double)(n - 1) * h : r0 + ((double)i + 0.5) * h;
    return PCS_PI * (hi * hi - lo * lo);
}

static void build_radial(pcs_fuel_model *m, const pcs_fuel_def *cfg, double dz)
{
    uint32_t nf = cfg->n_fuel_nodes, nc = cfg->n_clad_nodes;
    double rf = cfg->pellet_radius_m, rci = cfg->clad_inner_radius_m;
    double rco = cfg->clad_outer_radius_m;
    double hf = rf / (double)(nf - 1), hc = (rco - rci) / (double)(nc - 1);
    double rho_cp_f = cfg->fuel_density_kg_m3 * cfg->fuel_cp_j_kg_k;
    double rho_cp_c = cfg->clad_density_kg_m3 * cfg->clad_cp_j_kg_k;
    double fuel_area = PCS_PI * rf * rf;
    for (uint32_t i = 0; i < nf; i++) {
        double a = ring_area(0.0, hf, nf, i);
        m->cap[i] = rho_cp_f * a * dz;
        m->gen[i] = a / fuel_area;
        /* Face at the midpoint r = (i + 1/2) h: exact for the parabolic profile. */
        if (i + 1 < nf)
            m->gfac[i] = 2.0 * PCS_PI * ((double)i + 0.5) * hf * dz / hf;
    }
    m->gfac[nf - 1] = 2.0 * PCS_PI * rf * cfg->gap_conductance_w_m2_k * dz;
    for (uint32_t k = 0; k < nc; k++) {
        double a = ring_area(rci, hc, nc, k);
        m->cap[nf + k] = rho_cp_c * a * dz;
        m->gen[nf + k] = 0.0;
        if (k + 1 < nc) {
            double r_in = rci + (double)k * hc, r_out = rci + (double)(k + 1) * hc;
            /* Exact conductance of a shell without sources. */
            m->gfac[nf + k] = 2.0 * PCS_PI * dz / pcs_log(r_out / r_in);
        }
    }
    m->flow_area_m2 = cfg->rod_pitch_m * cfg->rod_pitch_m - PCS_PI * rco * rco;
    m->d_h_m = 4.0 * m->flow_area_m2 / (2.0 * PCS_PI * rco);
    m->film_area_m2 = 2.0 * PCS_PI * rco * dz;
    m->cool_vol_m3 = m->flow_area_m2 * dz;
    m->nu_laminar = cfg->nu_laminar;
}

/* Share of the core power of axial node j (sums to 1 over the nodes). */
static double axial_weight(const pcs_fuel_def *cfg, uint32_t j)
{
    double n = (double)cfg->n_axial;
    if (cfg->axial_shape == PCS_AXIAL_UNIFORM)
        return 1.0 / n;
    double len = cfg->active_length_m, le = cfg->axial_extrapolated_length_m;
    double z0 = len * (double)j / n - 0.5 * len, z1 = len * (double)(j + 1) / n - 0.5 * len;
    /* Integral of cos(pi z / L_e) over the node, over its integral on [-L/2, L/2]. */
    return (pcs_sin(PCS_PI * z1 / le) - pcs_sin(PCS_PI * z0 / le)) /
           (2.0 * pcs_sin(0.5 * PCS_PI * len / le));
}

static pcs_status build_power(pcs_world *w, pcs_fuel_model *m, const pcs_fuel_def *cfg)
{
    size_t nodes = (size_t)m->n_ch * m->n_ax;
    m->q_fuel = pcs_world_alloc(w, nodes * sizeof(double));
    m->q_direct = pcs_world_alloc(w, nodes * sizeof(double));
    if (!m->q_fuel || !m->q_direct)
        return pcs_error_set(PCS_E_NOMEM, "pcs_fuel_add: no memory for power coefficients");
    double total_rods = 0.0, weighted = 0.0;
    for (uint32_t c = 0; c < m->n_ch; c++) {
        m->rods[c] = (double)cfg->n_rods[c];
        total_rods += m->rods[c];
        weighted += cfg->peaking[c] * m->rods[c];
    }
    for (uint32_t c = 0; c < m->n_ch; c++) {
        m->rod_frac[c] = m->rods[c] / total_rods;
        /* Per rod: the group's share peaking n_rods / sum, divided by n_rods. */
        double per_rod = cfg->peaking[c] / weighted;
        for (uint32_t j = 0; j < m->n_ax; j++) {
            double wj = axial_weight(cfg, j) * per_rod;
            m->q_fuel[(size_t)c * m->n_ax + j] = cfg->fuel_heat_fraction * wj;
            m->q_direct[(size_t)c * m->n_ax + j] = (1.0 - cfg->fuel_heat_fraction) * wj;
        }
    }
    return PCS_OK;
}

static pcs_status reg_store(pcs_world *w, uint32_t unit, const char *suffix, size_t elem,
                            size_t count, pcs_store_kind kind, uint32_t *id, void **data)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "u%u.%s", unit + 1u, suffix);
    pcs_status st = pcs_store_register(w, name, elem, count, kind, id);
    if (st != PCS_OK)
        return st;
    *data = pcs_store_data(w, *id);
    return PCS_OK;
}

static pcs_status build_stores(pcs_world *w, pcs_fuel_model *m, pcs_fuel *f)
{
    uint32_t u = m->unit_index;
    size_t nodes = (size_t)m->n_ch * m->n_ax;
    void *props = NULL;
    pcs_status st = reg_store(w, u, "fuel.t", sizeof(double), nodes * m->n_r, PCS_STORE_STATE_F64,
                              &f->store_t_rod, (void **)&m->t_rod);
    if (st == PCS_OK)
        st = reg_store(w, u, "coolant.t", sizeof(double), nodes, PCS_STORE_STATE_F64,
                       &f->store_t_coolant, (void **)&m->t_cool);
    if (st == PCS_OK)
        st = reg_store(w, u, "coolant.t_in", sizeof(double), m->n_ch, PCS_STORE_STATE_F64,
                       &f->store_t_inlet, (void **)&m->t_in);
    if (st == PCS_OK)
        st = reg_store(w, u, "coolant.mdot", sizeof(double), m->n_ch, PCS_STORE_STATE_F64,
                       &f->store_mass_flow, (void **)&m->mdot);
    if (st == PCS_OK)
        st = reg_store(w, u, "coolant.p", sizeof(double), 1, PCS_STORE_STATE_F64,
                       &f->store_pressure, (void **)&m->pressure);
    if (st == PCS_OK)
        st = reg_store(w, u, "fuel.out", sizeof(double), PCS_FUEL_OUT_COUNT, PCS_STORE_STATE_F64,
                       &f->store_out, (void **)&m->out);
    if (st == PCS_OK)
        st = reg_store(w, u, "fuel.flags", sizeof(uint32_t), 1, PCS_STORE_STATE, &f->store_flags,
                       (void **)&m->flags);
    if (st == PCS_OK)
        st = reg_store(w, u, "coolant.props", sizeof(double), 4 * nodes, PCS_STORE_SCRATCH_F64,
                       &f->store_props, &props);
    if (st == PCS_OK)
        st = reg_store(w, u, "fuel.q_axial", sizeof(double), m->n_ax, PCS_STORE_STATE_F64,
                       &f->store_q_axial, (void **)&m->q_axial);
    if (st != PCS_OK)
        return st;
    m->cp = (double *)props;
    m->kw = m->cp + nodes;
    m->mu = m->kw + nodes;
    m->rho = m->mu + nodes;
    m->steady_prev = pcs_world_alloc(w, nodes * (m->n_r + 1u) * sizeof(double));
    if (!m->steady_prev)
        return pcs_error_set(PCS_E_NOMEM, "pcs_fuel_add: no memory for the steady-state buffer");
    m->n_blk = (uint32_t)((nodes + PCS_FUEL_LANES - 1u) / PCS_FUEL_LANES);
    m->isa = pcs_fuel_isa_pick();
    size_t padded = (size_t)m->n_blk * PCS_FUEL_LANES;
    double *scratch = pcs_world_alloc(w, padded * (2u * m->n_r + 8u) * sizeof(double));
    if (!scratch)
        return pcs_error_set(PCS_E_NOMEM, "pcs_fuel_add: no memory for the sweep's scratch");
    m->blk_e = scratch;
    m->blk_d = m->blk_e + padded * m->n_r;
    m->nd_flux_dh = m->blk_d + padded * m->n_r;
    m->nd_g_conv = m->nd_flux_dh + padded;
    m->nd_g_below = m->nd_g_conv + padded;
    m->nd_t_wall = m->nd_g_below + padded;
    m->nd_wall_new = m->nd_t_wall + padded;
    m->nd_fuel = m->nd_wall_new + padded;
    m->nd_fuel_max = m->nd_fuel + padded;
    m->nd_clad_max = m->nd_fuel_max + padded;
    return PCS_OK;
}

static void init_state(pcs_fuel_model *m, const pcs_fuel_def *cfg)
{
    size_t nodes = (size_t)m->n_ch * m->n_ax;
    for (size_t i = 0; i < nodes * m->n_r; i++)
        m->t_rod[i] = cfg->t_initial_k;
    for (size_t i = 0; i < nodes; i++)
        m->t_cool[i] = cfg->t_initial_k;
    for (uint32_t c = 0; c < m->n_ch; c++) {
        m->t_in[c] = cfg->t_inlet_k;
        m->mdot[c] = cfg->core_mass_flow_kg_s * m->rod_frac[c];
    }
    m->pressure[0] = cfg->pressure_pa;
    m->flags[0] = 0;
}

static pcs_status build_system(pcs_world *w, pcs_fuel_model *m, pcs_fuel *f, uint32_t power_store)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "u%u.fuel.heat", m->unit_index + 1u);
    const uint32_t reads[] = {power_store, f->store_t_inlet, f->store_mass_flow, f->store_pressure};
    const uint32_t writes[] = {f->store_t_rod, f->store_t_coolant, f->store_out,
                               f->store_flags, f->store_props,     f->store_q_axial};
    pcs_system_desc d = {
        .name = name,
        .stage = PCS_STAGE_HEAT,
        .priority = 0,
        .fn = pcs_fuel_heat_system,
        .ctx = m,
        .reads = reads,
        .n_reads = 4,
        .writes = writes,
        .n_writes = 6,
    };
    return pcs_system_register(w, &d, &f->system);
}

static pcs_status build_channels(pcs_world *w, const pcs_fuel_model *m, const pcs_fuel *f)
{
    static const pcs_th_channel_row ch[] = {
        {"fuel.t_max", "K", PCS_FUEL_OUT_T_MAX},
        {"fuel.t_centre_avg", "K", PCS_FUEL_OUT_T_CENTRE_AVG},
        {"fuel.t_avg", "K", PCS_FUEL_OUT_T_AVG},
        {"clad.t_max", "K", PCS_FUEL_OUT_CLAD_T_MAX},
        {"coolant.t_out", "K", PCS_FUEL_OUT_COOLANT_T_OUT},
        {"coolant.t_avg", "K", PCS_FUEL_OUT_COOLANT_T_AVG},
        {"core.heat_to_coolant", "W", PCS_FUEL_OUT_HEAT_TO_COOLANT},
        {"coolant.flow_heat", "W", PCS_FUEL_OUT_FLOW_HEAT},
    };
    char prefix[16], name[PCS_NAME_MAX];
    snprintf(prefix, sizeof prefix, "u%u", m->unit_index + 1u);
    pcs_status st = pcs_th_channels_register(w, prefix, f->store_out, ch, sizeof ch / sizeof ch[0]);
    if (st != PCS_OK)
        return st;
    snprintf(name, sizeof name, "%s.fuel.flags", prefix);
    return pcs_channel_register(w, name, "", PCS_CHANNEL_U32, f->store_flags, 0, NULL);
}

/* ---- load check --------------------------------------------------------- */

#define FUEL_LOAD_T_MAX_K 1e4
#define FUEL_FLAGS_ALL                                                                             \
    (PCS_FUEL_FLAG_FUEL_RANGE | PCS_FUEL_FLAG_CLAD_RANGE | PCS_FUEL_FLAG_COOLANT_RANGE |           \
     PCS_FUEL_FLAG_REVERSE_FLOW)

/* What the check needs: the model's shape and its store ids. */
typedef struct fuel_check {
    const pcs_fuel_model *m;
    pcs_fuel ids;
} fuel_check;

static pcs_status fuel_f64(const pcs_world *w, const pcs_load_view *v, uint32_t id, size_t first,
                           size_t n, const char *field, double lo, double hi, unsigned flags)
{
    const double *x = pcs_load_view_store(v, id);
    pcs_status st =
        pcs_load_check_f64(pcs_store_name(w, id), field, x + first, n, 1, lo, hi, flags);
    if (st != PCS_OK && first != 0) /* the helper counts from x + first */
        st = pcs_error_set(st, "%s (elements counted from %zu)", pcs_last_error(), first);
    return st;
}

static pcs_status fuel_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const fuel_check *c = ctx;
    const pcs_fuel_model *m = c->m;
    const pcs_fuel *f = &c->ids;
    size_t nodes = (size_t)m->n_ch * m->n_ax;
    const double t_lo = PCS_FUEL_T_MIN_K, t_hi = FUEL_LOAD_T_MAX_K;
    pcs_status st =
        fuel_f64(w, v, f->store_t_rod, 0, nodes * m->n_r, "rod temperature K", t_lo, t_hi, 0);
    if (st == PCS_OK)
        st = fuel_f64(w, v, f->store_t_coolant, 0, nodes, "coolant temperature K", t_lo, t_hi, 0);
    if (st == PCS_OK)
        st = fuel_f64(w, v, f->store_t_inlet, 0, m->n_ch, "inlet temperature K", t_lo, t_hi, 0);
    if (st == PCS_OK)
        st = fuel_f64(w, v, f->store_mass_flow, 0, m->n_ch, "channel flow kg/s",
                      -PCS_FUEL_MDOT_MAX_KG_S, PCS_FUEL_MDOT_MAX_KG_S, 0);
    if (st == PCS_OK)
        st =
            fuel_f64(w, v, f->store_pressure, 0, 1, "pressure Pa", 0.0, DBL_MAX, PCS_CHECK_LO_OPEN);
    if (st == PCS_OK)
        st = fuel_f64(w, v, f->store_out, 0, PCS_FUEL_OUT_HEAT_TO_COOLANT, "temperature K", t_lo,
                      t_hi, 0);
    if (st == PCS_OK)
        st = fuel_f64(w, v, f->store_out, PCS_FUEL_OUT_HEAT_TO_COOLANT,
                      PCS_FUEL_OUT_COUNT - PCS_FUEL_OUT_HEAT_TO_COOLANT, "heat W", -DBL_MAX,
                      DBL_MAX, 0);
    if (st == PCS_OK)
        st = fuel_f64(w, v, f->store_q_axial, 0, m->n_ax, "heat W", -DBL_MAX, DBL_MAX, 0);
    if (st == PCS_OK)
        st = pcs_load_check_u32(pcs_store_name(w, f->store_flags), "flags (PCS_FUEL_FLAG_* bits)",
                                pcs_load_view_store(v, f->store_flags), 1, 1, FUEL_FLAGS_ALL + 1u);
    return st;
}

static pcs_status register_load_check(pcs_world *w, const pcs_fuel_model *m, const pcs_fuel *f)
{
    fuel_check *c = pcs_world_alloc(w, sizeof *c);
    if (!c)
        return pcs_error_set(PCS_E_NOMEM, "pcs_fuel_add: no memory for the load check");
    c->m = m;
    c->ids = *f;
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "u%u.fuel", m->unit_index + 1u);
    return pcs_load_check_register(w, name, fuel_load_check, c);
}

static pcs_status check_args(pcs_world *w, uint32_t unit_index, const pcs_fuel_def *cfg,
                             uint32_t power_store, uint32_t power_index, const pcs_fuel *out)
{
    if (!w || !cfg || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_fuel_add: world, cfg or out is NULL");
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_fuel_add: the world is sealed (it has ticked)");
    if (unit_index >= 1000u)
        return pcs_error_set(PCS_E_INVAL, "pcs_fuel_add: unit_index = %u is outside [0, 999]",
                             unit_index);
    size_t bytes = pcs_store_bytes(w, power_store);
    if (bytes == 0 || bytes % sizeof(double) != 0 || (size_t)power_index >= bytes / sizeof(double))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_fuel_add: power store %u (%zu bytes) has no double element "
                             "%u",
                             power_store, bytes, power_index);
    return pcs_fuel_def_validate(cfg);
}

pcs_status pcs_fuel_add(pcs_world *w, uint32_t unit_index, const pcs_fuel_def *cfg,
                        uint32_t power_store, uint32_t power_index, pcs_fuel *out)
{
    pcs_status st = check_args(w, unit_index, cfg, power_store, power_index, out);
    if (st != PCS_OK)
        return st;
    pcs_fuel_model *m = pcs_world_alloc(w, sizeof *m);
    if (!m)
        return pcs_error_set(PCS_E_NOMEM, "pcs_fuel_add: no memory for the model");
    pcs_fuel f;
    memset(&f, 0, sizeof f);
    m->unit_index = unit_index;
    m->n_ch = cfg->n_channels;
    m->n_ax = cfg->n_axial;
    m->n_f = cfg->n_fuel_nodes;
    m->n_r = cfg->n_fuel_nodes + cfg->n_clad_nodes;
    m->power = (const double *)pcs_store_data(w, power_store) + power_index;
    m->boiling = (int)cfg->boiling;
    m->props_fn = cfg->props_fn;
    m->props_ctx = cfg->props_ctx;
    if (!m->props_fn) {
        m->linear = cfg->coolant_linear;
        m->props_fn = pcs_coolant_props_linear;
        m->props_ctx = &m->linear;
    }
    build_radial(m, cfg, cfg->active_length_m / (double)cfg->n_axial);
    st = build_tables(w, m, cfg);
    if (st == PCS_OK)
        st = build_power(w, m, cfg);
    if (st == PCS_OK)
        st = build_stores(w, m, &f);
    if (st != PCS_OK)
        return st;
    init_state(m, cfg);
    uint32_t clamped = 0;
    st = pcs_fuel_props_update(m, &clamped);
    if (st == PCS_OK)
        st = build_system(w, m, &f, power_store);
    if (st == PCS_OK)
        st = build_channels(w, m, &f);
    if (st == PCS_OK)
        st = register_load_check(w, m, &f);
    if (st != PCS_OK)
        return st;
    pcs_fuel_summarise(m);
    f.unit_index = unit_index;
    f.n_channels = m->n_ch;
    f.n_axial = m->n_ax;
    f.n_radial = m->n_r;
    f.n_fuel_nodes = m->n_f;
    f.model = m;
    *out = f;
    return PCS_OK;
}

/* Copy the current temperatures; return the largest change since the last
 * copy (infinite on the first call, which only takes the copy). */
static double steady_change(pcs_fuel_model *m, int first)
{
    size_t nodes = (size_t)m->n_ch * m->n_ax, nr = m->n_r;
    double worst = first ? INFINITY : 0.0;
    for (size_t n = 0; n < nodes; n++) {
        double *prev = m->steady_prev + n * (nr + 1);
        for (size_t r = 0; r <= nr; r++) {
            double t = r < nr ? m->t_rod[n * nr + r] : m->t_cool[n];
            double d = pcs_fabs(t - prev[r]);
            if (!(d <= worst)) /* NaN counts as the worst */
                worst = d;
            prev[r] = t;
        }
    }
    return worst;
}

pcs_status pcs_fuel_solve_steady(pcs_world *w, const pcs_fuel *fuel, double power_w)
{
    if (!w || !fuel || !fuel->model)
        return pcs_error_set(PCS_E_INVAL, "pcs_fuel_solve_steady: NULL argument");
    pcs_fuel_model *m = fuel->model;
    if (!pcs_isfinite(power_w) || power_w < 0.0)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_fuel_solve_steady: power_w = %g is outside [0, inf) W", power_w);
    for (uint32_t c = 0; c < m->n_ch; c++)
        if (!(m->mdot[c] > 0.0) || !pcs_isfinite(m->mdot[c]))
            return pcs_error_set(PCS_E_STATE,
                                 "pcs_fuel_solve_steady: u%u channel %u flow %g kg/s is not > 0; "
                                 "no steady state exists",
                                 m->unit_index + 1u, c, m->mdot[c]);
    steady_change(m, 1);
    for (int it = 0; it < 500; it++) {
        uint32_t clamped = 0, reverse = UINT32_MAX;
        pcs_status st = pcs_fuel_props_update(m, &clamped);
        if (st != PCS_OK)
            return st;
        pcs_fuel_heat heat;
        pcs_fuel_sweep(m, 0.0, power_w, &heat, &reverse);
        m->out[PCS_FUEL_OUT_HEAT_TO_COOLANT] = heat.to_coolant;
        m->out[PCS_FUEL_OUT_FLOW_HEAT] = heat.flow;
        if (steady_change(m, 0) <= 1e-9) {
            st = pcs_fuel_props_update(m, &clamped);
            pcs_fuel_summarise(m);
            return st;
        }
    }
    return pcs_error_set(PCS_E_STATE,
                         "pcs_fuel_solve_steady: u%u did not converge to 1e-9 K in 500 sweeps",
                         m->unit_index + 1u);
}

double pcs_fuel_stored_energy(pcs_world *w, const pcs_fuel *fuel)
{
    if (!w || !fuel || !fuel->model)
        return NAN;
    const pcs_fuel_model *m = fuel->model;
    double total = 0.0;
    for (uint32_t c = 0; c < m->n_ch; c++) {
        double rod_sum = 0.0;
        for (uint32_t j = 0; j < m->n_ax; j++) {
            size_t n = (size_t)c * m->n_ax + j;
            const double *t = m->t_rod + n * m->n_r;
            for (uint32_t r = 0; r < m->n_r; r++)
                rod_sum += m->cap[r] * t[r];
            double cp, k, mu, rho;
            uint32_t clamped;
            pcs_coolant_props_out o = {&cp, &k, &mu, &rho};
            if (m->props_fn(m->props_ctx, 1, &m->t_cool[n], m->pressure[0], &o, &clamped) != PCS_OK)
                return NAN;
            rod_sum += rho * m->cool_vol_m3 * cp * m->t_cool[n];
        }
        total += rod_sum * m->rods[c];
    }
    return total;
}
