/**
 * @file hyd_build.c
 * @brief Hydraulic network build: validation, stores, sparse pattern, KLU
 *        analysis, commands, channels and the load check of saved state.
 *
 * Load check (hyd_load_check): per node, mass within a factor
 * HYD_DENSITY_FACTOR of rho V (hyd_internal.h argues it; positive and finite),
 * temperature t_ref + h / cp inside the builder's [273.15, 2000] K and
 * pressure inside [0, 1e8] Pa (absolute; the builder's largest p_init); per
 * junction |flow| at most sonic at that density (F rho a A) and valve
 * position in [0, 1]; pump speeds and targets in [0, 1.5] of rated (the
 * builder's and the pump command's range); heater and spray power in [0, 1e9]
 * W and secondary temperature in [273.15, 1e9] K (the command ranges).
 */
#include <math.h> /* INFINITY only: all math goes through pcs_math */
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "physics/thermohydraulics/models/hyd_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

pcs_status pcs_hydraulics_default(pcs_hydraulics_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    /* Water at 15.5 MPa, ~565-600 K (IAPWS-IF97 region 1): rho ~ 720 kg/m3,
     * cp ~ 5.5 kJ/(kg K), mu ~ 9e-5 Pa s, a ~ 1000 m/s. */
    cfg->rho_kg_m3 = 720.0;
    cfg->cp_j_kg_k = 5500.0;
    cfg->mu_pa_s = 9.0e-5;
    cfg->sound_speed_m_s = 1000.0;
    cfg->t_ref_k = 273.15;
    cfg->t_init_k = 580.0;
    cfg->p_init_pa = 15.51e6;
    cfg->t_secondary_k = 558.0;
    cfg->heat_store = UINT32_MAX;
    return PCS_OK;
}

static pcs_status bad(const char *what, uint32_t i, const char *field, double v,
                      const char *range)
{
    return pcs_error_set(PCS_E_INVAL, "hydraulics: %s[%u].%s = %g is outside %s", what, i, field,
                         v, range);
}

/* The fields of element i of what ("nodes", "junctions", "pumps") against their ranges. */
static pcs_status check_element(const char *what, uint32_t i, const pcs_param_range *r, size_t n)
{
    char prefix[48];
    snprintf(prefix, sizeof prefix, "hydraulics: %s[%u].", what, i);
    return pcs_param_ranges_check(prefix, r, n);
}

static pcs_status check_globals(const pcs_hydraulics_def *c)
{
    const pcs_param_range r[] = {
        {"rho_kg_m3", c->rho_kg_m3, 100, 1100, 0},
        {"cp_j_kg_k", c->cp_j_kg_k, 1000, 20000, 0},
        {"mu_pa_s", c->mu_pa_s, 1e-7, 1, 0},
        {"sound_speed_m_s", c->sound_speed_m_s, 1, 1e5, 0},
        {"t_ref_k", c->t_ref_k, 273.15, 2000, 0},
        {"t_init_k", c->t_init_k, 273.15, 2000, 0},
        {"p_init_pa", c->p_init_pa, 1e3, 1e8, 0},
        {"sg_ua_w_k", c->sg_ua_w_k, 0, 1e12, 0},
        {"t_secondary_k", c->t_secondary_k, 273.15, 2000, 0},
        {"pzr_dp_per_joule", c->pzr_dp_per_joule, 0, 1e3, 0},
    };
    pcs_status st = pcs_param_ranges_check("hydraulics: ", r, sizeof r / sizeof r[0]);
    if (st != PCS_OK)
        return st;
    if (c->n_nodes < 2 || c->n_nodes > PCS_HYDRAULICS_MAX_NODES || !c->nodes)
        return pcs_error_set(PCS_E_INVAL, "hydraulics: n_nodes = %u is outside [2, %u]",
                             c->n_nodes, PCS_HYDRAULICS_MAX_NODES);
    if (c->n_junctions < 1 || c->n_junctions > PCS_HYDRAULICS_MAX_JUNCTIONS || !c->junctions)
        return pcs_error_set(PCS_E_INVAL, "hydraulics: n_junctions = %u is outside [1, %u]",
                             c->n_junctions, PCS_HYDRAULICS_MAX_JUNCTIONS);
    if (c->n_pumps > PCS_HYDRAULICS_MAX_PUMPS || (c->n_pumps && !c->pumps))
        return pcs_error_set(PCS_E_INVAL, "hydraulics: n_pumps = %u is outside [0, %u]",
                             c->n_pumps, PCS_HYDRAULICS_MAX_PUMPS);
    return PCS_OK;
}

static pcs_status check_node(const pcs_hydraulics_node *n, uint32_t i)
{
    const pcs_param_range r[] = {
        {"volume_m3", n->volume_m3, 0.0, INFINITY, 1},
        {"compliance_kg_pa", n->compliance_kg_pa, 0.0, INFINITY, 0},
    };
    pcs_status st = check_element("nodes", i, r, sizeof r / sizeof r[0]);
    if (st != PCS_OK)
        return st;
    if (n->t_init_k != 0.0 && !(n->t_init_k >= 273.15 && n->t_init_k <= 2000.0))
        return bad("nodes", i, "t_init_k", n->t_init_k, "0 or [273.15, 2000]");
    if ((unsigned)n->role > PCS_HYDRAULICS_PRESSURIZER)
        return bad("nodes", i, "role", n->role, "[0, 3]");
    return PCS_OK;
}

static pcs_status check_junction(const pcs_hydraulics_def *c, const pcs_hydraulics_junction *j, uint32_t i)
{
    if (j->from >= c->n_nodes || j->to >= c->n_nodes || j->from == j->to)
        return pcs_error_set(PCS_E_INVAL, "hydraulics: junctions[%u] connects %u -> %u; both "
                                          "must be distinct nodes in [0, %u)",
                             i, j->from, j->to, c->n_nodes);
    const pcs_param_range r[] = {
        {"length_m", j->length_m, 0.0, INFINITY, 1},
        {"area_m2", j->area_m2, 0.0, INFINITY, 1},
        {"diameter_m", j->diameter_m, 0.0, INFINITY, 1},
    };
    pcs_status st = check_element("junctions", i, r, sizeof r / sizeof r[0]);
    if (st != PCS_OK)
        return st;
    if (!(j->roughness_m >= 0.0) || !(j->form_loss >= 0.0) || !(j->fixed_friction >= 0.0))
        return pcs_error_set(PCS_E_INVAL, "hydraulics: junctions[%u] roughness_m, form_loss and "
                                          "fixed_friction must be >= 0",
                             i);
    if ((unsigned)j->kind > PCS_HYDRAULICS_CHECK_VALVE)
        return bad("junctions", i, "kind", j->kind, "[0, 3]");
    if (j->kind == PCS_HYDRAULICS_PUMP && j->pump >= c->n_pumps)
        return bad("junctions", i, "pump", j->pump, "[0, n_pumps)");
    if (j->kind == PCS_HYDRAULICS_VALVE && !(j->valve_position >= 0.0 && j->valve_position <= 1.0))
        return bad("junctions", i, "valve_position", j->valve_position, "[0, 1]");
    return PCS_OK;
}

static pcs_status check_pump(const pcs_hydraulics_pump *p, uint32_t i)
{
    const pcs_param_range r[] = {
        {"rated_speed_rad_s", p->rated_speed_rad_s, 0.0, INFINITY, 1},
        {"rated_dp_pa", p->rated_dp_pa, 0.0, INFINITY, 1},
        {"rated_flow_kg_s", p->rated_flow_kg_s, 0.0, INFINITY, 1},
        {"shutoff_ratio", p->shutoff_ratio, 1.0, INFINITY, 1},
        {"inertia_kg_m2", p->inertia_kg_m2, 0.0, INFINITY, 1},
        {"efficiency", p->efficiency, 0.0, 1.0, 1},
        {"initial_speed_frac", p->initial_speed_frac, 0.0, 1.5, 0},
    };
    return check_element("pumps", i, r, sizeof r / sizeof r[0]);
}

static pcs_status check_config(const pcs_hydraulics_def *c)
{
    pcs_status st = check_globals(c);
    for (uint32_t i = 0; st == PCS_OK && i < c->n_nodes; i++)
        st = check_node(&c->nodes[i], i);
    for (uint32_t i = 0; st == PCS_OK && i < c->n_junctions; i++)
        st = check_junction(c, &c->junctions[i], i);
    for (uint32_t i = 0; st == PCS_OK && i < c->n_pumps; i++)
        st = check_pump(&c->pumps[i], i);
    return st;
}

/* Every store of one unit's network, in registration order (the state hash
 * follows it): element count and kind, all float64. */
static pcs_status make_stores(pcs_world *w, pcs_hydraulics *h)
{
    const pcs_hydraulics_def *c = &h->cfg;
    const pcs_store_kind state = PCS_STORE_STATE, scratch = PCS_STORE_SCRATCH;
    const pcs_th_store stores[] = {
        {"mass", c->n_nodes, state, &h->s_mass},
        {"enthalpy", c->n_nodes, state, &h->s_enthalpy},
        {"pressure", c->n_nodes, state, &h->s_pressure},
        {"flow", c->n_junctions, state, &h->s_flow},
        {"valve", c->n_junctions, state, &h->s_valve},
        {"pump_speed", c->n_pumps, state, &h->s_speed},
        {"pump_target", c->n_pumps, state, &h->s_motor},
        {"pzr", 3, state, &h->s_pzr},
        {"temperature", c->n_nodes, scratch, &h->s_temp},
        {"sg_heat", 1, scratch, &h->s_sg_heat},
        {"core", 3, scratch, &h->s_core},
    };
    char prefix[32];
    snprintf(prefix, sizeof prefix, "u%u.hyd", h->unit + 1);
    return pcs_th_stores_register(w, prefix, stores, sizeof stores / sizeof stores[0]);
}

static void initial_state(pcs_world *w, pcs_hydraulics *h)
{
    const pcs_hydraulics_def *c = &h->cfg;
    double *mass = pcs_store_data(w, h->s_mass), *hh = pcs_store_data(w, h->s_enthalpy);
    double *p = pcs_store_data(w, h->s_pressure), *m = pcs_store_data(w, h->s_flow);
    double *valve = pcs_store_data(w, h->s_valve), *speed = pcs_store_data(w, h->s_speed);
    double *target = pcs_store_data(w, h->s_motor), *pzr = pcs_store_data(w, h->s_pzr);
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        mass[i] = c->rho_kg_m3 * h->nodes[i].volume_m3;
        double t0 = h->nodes[i].t_init_k > 0.0 ? h->nodes[i].t_init_k : c->t_init_k;
        hh[i] = c->cp_j_kg_k * (t0 - c->t_ref_k);
        p[i] = c->p_init_pa;
        h->compliance[i] = h->nodes[i].compliance_kg_pa > 0.0
                               ? h->nodes[i].compliance_kg_pa
                               : h->nodes[i].volume_m3 /
                                     (c->rho_kg_m3 * c->sound_speed_m_s * c->sound_speed_m_s);
    }
    for (uint32_t k = 0; k < c->n_junctions; k++) {
        m[k] = c->initial_flow_kg_s;
        valve[k] = h->junctions[k].kind == PCS_HYDRAULICS_VALVE ? h->junctions[k].valve_position : 1.0;
    }
    for (uint32_t k = 0; k < c->n_pumps; k++)
        speed[k] = target[k] = h->pumps[k].initial_speed_frac * h->pumps[k].rated_speed_rad_s;
    pzr[2] = c->t_secondary_k;
}

static pcs_status copy_arrays(pcs_world *w, pcs_hydraulics *h, const pcs_hydraulics_def *c)
{
    h->nodes = pcs_world_alloc(w, c->n_nodes * sizeof *h->nodes);
    h->junctions = pcs_world_alloc(w, c->n_junctions * sizeof *h->junctions);
    h->pumps = pcs_world_alloc(w, (c->n_pumps + 1) * sizeof *h->pumps);
    h->compliance = pcs_world_alloc(w, c->n_nodes * sizeof(double));
    h->pzr_nodes = pcs_world_alloc(w, c->n_nodes * sizeof(uint32_t));
    h->a = pcs_world_alloc(w, c->n_junctions * sizeof(double));
    h->b = pcs_world_alloc(w, c->n_junctions * sizeof(double));
    h->h_new = pcs_world_alloc(w, c->n_nodes * sizeof(double));
    if (!h->nodes || !h->junctions || !h->pumps || !h->compliance || !h->pzr_nodes || !h->a ||
        !h->b || !h->h_new)
        return pcs_error_set(PCS_E_NOMEM, "hydraulics: out of memory");
    memcpy(h->nodes, c->nodes, c->n_nodes * sizeof *h->nodes);
    memcpy(h->junctions, c->junctions, c->n_junctions * sizeof *h->junctions);
    if (c->n_pumps)
        memcpy(h->pumps, c->pumps, c->n_pumps * sizeof *h->pumps);
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        if (c->nodes[i].role == PCS_HYDRAULICS_PRESSURIZER)
            h->pzr_nodes[h->n_pzr++] = i;
        h->n_core += c->nodes[i].role == PCS_HYDRAULICS_CORE;
    }
    return PCS_OK;
}

/* The geometry-derived Courant cap (hyd_internal.h): F^2 dt a A_j / min(V_from, V_to). */
static void courant_cap(pcs_world *w, pcs_hydraulics *h)
{
    const double f2 = HYD_DENSITY_FACTOR * HYD_DENSITY_FACTOR;
    double dt = pcs_world_clock(w)->dt_s, worst = 0.0;
    for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        double v = pcs_fmin(h->nodes[j->from].volume_m3, h->nodes[j->to].volume_m3);
        worst = pcs_fmax(worst, f2 * dt * h->cfg.sound_speed_m_s * j->area_m2 / v);
    }
    h->courant_max = pcs_fmin(worst, HYD_COURANT_PER_SUBSTEP * (HYD_SUBSTEPS_MAX - 1u));
}

/* ---- load check ---------------------------------------------------------- */

#define HYD_T_MIN_K 273.15
#define HYD_T_MAX_K 2000.0
#define HYD_P_MAX_PA 1e8
#define HYD_CMD_MAX 1e9 /* heater, spray (W) and secondary temperature (K) commands */

/* x[i] in [lo, hi] (NaN fails), else the load-check message for element i. */
static pcs_status in_range(const pcs_world *w, uint32_t store, const double *x, uint32_t i,
                           const char *field, double lo, double hi)
{
    return pcs_load_check_f64_from(pcs_store_name(w, store), field, x, i, 1, 1, lo, hi, 0);
}

static pcs_status check_nodes(const pcs_world *w, const pcs_hydraulics *h, const pcs_load_view *v)
{
    const pcs_hydraulics_def *c = &h->cfg;
    const double *mass = pcs_load_view_store(v, h->s_mass);
    const double *hh = pcs_load_view_store(v, h->s_enthalpy);
    const double *p = pcs_load_view_store(v, h->s_pressure);
    double h_lo = c->cp_j_kg_k * (HYD_T_MIN_K - c->t_ref_k);
    double h_hi = c->cp_j_kg_k * (HYD_T_MAX_K - c->t_ref_k);
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < c->n_nodes; i++) {
        double m0 = c->rho_kg_m3 * h->nodes[i].volume_m3;
        st = in_range(w, h->s_mass, mass, i, "mass kg", m0 / HYD_DENSITY_FACTOR,
                      m0 * HYD_DENSITY_FACTOR);
        if (st == PCS_OK)
            st = in_range(w, h->s_enthalpy, hh, i, "enthalpy J/kg", h_lo, h_hi);
        if (st == PCS_OK)
            st = in_range(w, h->s_pressure, p, i, "pressure Pa", 0.0, HYD_P_MAX_PA);
    }
    return st;
}

static pcs_status check_junctions(const pcs_world *w, const pcs_hydraulics *h,
                                  const pcs_load_view *v)
{
    const pcs_hydraulics_def *c = &h->cfg;
    const double *m = pcs_load_view_store(v, h->s_flow);
    const double *valve = pcs_load_view_store(v, h->s_valve);
    pcs_status st = PCS_OK;
    for (uint32_t k = 0; st == PCS_OK && k < c->n_junctions; k++) {
        double sonic =
            HYD_DENSITY_FACTOR * c->rho_kg_m3 * c->sound_speed_m_s * h->junctions[k].area_m2;
        st = in_range(w, h->s_flow, m, k, "mass flow kg/s", -sonic, sonic);
        if (st == PCS_OK)
            st = in_range(w, h->s_valve, valve, k, "valve position", 0.0, 1.0);
    }
    return st;
}

static pcs_status hyd_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_hydraulics *h = ctx;
    pcs_status st = check_nodes(w, h, v);
    if (st == PCS_OK)
        st = check_junctions(w, h, v);
    const double *speed = pcs_load_view_store(v, h->s_speed);
    const double *target = pcs_load_view_store(v, h->s_motor);
    for (uint32_t k = 0; st == PCS_OK && k < h->cfg.n_pumps; k++) {
        double top = 1.5 * h->pumps[k].rated_speed_rad_s;
        st = in_range(w, h->s_speed, speed, k, "pump speed rad/s", 0.0, top);
        if (st == PCS_OK)
            st = in_range(w, h->s_motor, target, k, "pump target rad/s", 0.0, top);
    }
    const double *pzr = pcs_load_view_store(v, h->s_pzr);
    if (st == PCS_OK)
        st = in_range(w, h->s_pzr, pzr, 0, "heater power W", 0.0, HYD_CMD_MAX);
    if (st == PCS_OK)
        st = in_range(w, h->s_pzr, pzr, 1, "spray power W", 0.0, HYD_CMD_MAX);
    if (st == PCS_OK)
        st = in_range(w, h->s_pzr, pzr, 2, "secondary temperature K", HYD_T_MIN_K, HYD_CMD_MAX);
    return st;
}

/* Column-compressed pattern of the symmetric pressure matrix. Entries are
 * (col, row) keys sorted by insertion into per-column sorted lists. */
static int find_entry(const pcs_hydraulics *h, int col, int row)
{
    for (int q = h->ap[col]; q < h->ap[col + 1]; q++)
        if (h->ai[q] == row)
            return q;
    return -1;
}

static void insert_sorted(int *rows, int *count, int row)
{
    for (int q = 0; q < *count; q++)
        if (rows[q] == row)
            return;
    int q = *count;
    while (q > 0 && rows[q - 1] > row) {
        rows[q] = rows[q - 1];
        q--;
    }
    rows[q] = row;
    (*count)++;
}

static pcs_status build_pattern(pcs_world *w, pcs_hydraulics *h)
{
    int n = h->n, nj = (int)h->cfg.n_junctions;
    int *deg = pcs_world_alloc(w, (size_t)n * sizeof(int));
    h->ap = pcs_world_alloc(w, (size_t)(n + 1) * sizeof(int));
    int cap = n + 2 * nj;
    int *rows = pcs_world_alloc(w, (size_t)cap * sizeof(int));
    if (!deg || !h->ap || !rows)
        return pcs_error_set(PCS_E_NOMEM, "hydraulics: out of memory");
    /* Upper bound per column, then exact sorted rows per column. */
    int *start = pcs_world_alloc(w, (size_t)(n + 1) * sizeof(int));
    if (!start)
        return pcs_error_set(PCS_E_NOMEM, "hydraulics: out of memory");
    for (int i = 0; i < n; i++)
        deg[i] = 1;
    for (int k = 0; k < nj; k++) {
        deg[h->junctions[k].from]++;
        deg[h->junctions[k].to]++;
    }
    for (int i = 0; i < n; i++)
        start[i + 1] = start[i] + deg[i];
    int *count = deg; /* reuse as fill counters */
    for (int i = 0; i < n; i++) {
        count[i] = 0;
        insert_sorted(rows + start[i], &count[i], i);
    }
    for (int k = 0; k < nj; k++) {
        int f = (int)h->junctions[k].from, t = (int)h->junctions[k].to;
        insert_sorted(rows + start[f], &count[f], t);
        insert_sorted(rows + start[t], &count[t], f);
    }
    int nnz = 0;
    for (int i = 0; i < n; i++)
        nnz += count[i];
    h->ai = pcs_world_alloc(w, (size_t)nnz * sizeof(int));
    h->ax = pcs_world_alloc(w, (size_t)nnz * sizeof(double));
    h->rhs = pcs_world_alloc(w, (size_t)n * sizeof(double));
    h->pos_diag = pcs_world_alloc(w, (size_t)n * sizeof(int));
    h->pos_ft = pcs_world_alloc(w, (size_t)nj * sizeof(int));
    h->pos_tf = pcs_world_alloc(w, (size_t)nj * sizeof(int));
    if (!h->ai || !h->ax || !h->rhs || !h->pos_diag || !h->pos_ft || !h->pos_tf)
        return pcs_error_set(PCS_E_NOMEM, "hydraulics: out of memory");
    h->ap[0] = 0;
    for (int i = 0; i < n; i++) {
        memcpy(h->ai + h->ap[i], rows + start[i], (size_t)count[i] * sizeof(int));
        h->ap[i + 1] = h->ap[i] + count[i];
    }
    for (int i = 0; i < n; i++)
        h->pos_diag[i] = find_entry(h, i, i);
    for (int k = 0; k < nj; k++) {
        h->pos_ft[k] = find_entry(h, (int)h->junctions[k].to, (int)h->junctions[k].from);
        h->pos_tf[k] = find_entry(h, (int)h->junctions[k].from, (int)h->junctions[k].to);
    }
    return PCS_OK;
}

static void free_klu(void *ctx)
{
    pcs_hydraulics *h = ctx;
    if (h->numeric)
        klu_free_numeric(&h->numeric, &h->common);
    if (h->symbolic)
        klu_free_symbolic(&h->symbolic, &h->common);
}

/* Symbolic analysis and a first factorisation at build: ticks only refactor. */
static pcs_status analyse(pcs_world *w, pcs_hydraulics *h)
{
    klu_defaults(&h->common);
    h->symbolic = klu_analyze(h->n, h->ap, h->ai, &h->common);
    pcs_status st = pcs_world_on_destroy(w, free_klu, h);
    if (st != PCS_OK)
        return st;
    if (!h->symbolic)
        return pcs_error_set(PCS_E_INVAL, "hydraulics: KLU analysis failed (status %d)",
                             h->common.status);
    pcs_hydraulics_assemble(w, h, pcs_world_clock(w)->dt_s); /* the first tick's values */
    h->numeric = klu_factor(h->ap, h->ai, h->ax, h->symbolic, &h->common);
    if (!h->numeric)
        return pcs_error_set(PCS_E_INVAL, "hydraulics: KLU factorisation failed (status %d); "
                                          "is every node connected?",
                             h->common.status);
    return PCS_OK;
}

/* ---- commands: the "hydraulics" family ---------------------------------------- */

static pcs_status cmd_pump(pcs_world *w, pcs_hydraulics *h, uint32_t k, const pcs_command_call *c)
{
    double *target = pcs_store_data(w, h->s_motor), *speed = pcs_store_data(w, h->s_speed);
    double arg = c->cmd->args[0];
    double frac = c->op == PCS_HYDRAULICS_OP_PUMP_TRIP ? 0.0 : (arg > 0 ? arg : 1.0);
    if (frac > 1.5)
        return pcs_error_set(PCS_E_INVAL, "%s start: speed fraction %g is outside (0, 1.5]",
                             c->target_name, frac);
    target[k] = frac * h->pumps[k].rated_speed_rad_s;
    pcs_event_emit(w, frac > 0 ? PCS_EV_PUMP_STARTED : PCS_EV_PUMP_TRIPPED,
                   PCS_HYDRAULICS_PUMP_SUBJECT(h->unit, k), speed[k], frac, 0, 0);
    return PCS_OK;
}

static pcs_status cmd_valve(pcs_world *w, pcs_hydraulics *h, uint32_t k, const pcs_command_call *c)
{
    double x = c->cmd->args[0];
    if (!(x >= 0.0 && x <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "%s: position %g is outside [0, 1]", c->target_name, x);
    ((double *)pcs_store_data(w, h->s_valve))[k] = x;
    return PCS_OK;
}

static pcs_status cmd_pzr_sg(pcs_world *w, pcs_hydraulics *h, const pcs_command_call *c)
{
    double v = c->cmd->args[0];
    double lo = c->op == PCS_HYDRAULICS_OP_SG_SECONDARY_T ? 273.15 : 0.0;
    if (!pcs_isfinite(v) || v < lo || v > 1e9)
        return pcs_error_set(PCS_E_INVAL, "%s hydraulics op %u: value %g is outside [%g, 1e9]",
                             c->target_name, c->op, v, lo);
    double *pzr = pcs_store_data(w, h->s_pzr);
    pzr[c->op - PCS_HYDRAULICS_OP_PZR_HEATERS] = v;
    return PCS_OK;
}

/* The engine checked the target and that it takes the op (register_commands
 * gives each target only its own ops), so the element is a pump, a valve
 * junction or the whole network as the op expects. */
static pcs_status on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_hydraulics *h = c->ctx;
    switch (c->op) {
    case PCS_HYDRAULICS_OP_PUMP_TRIP:
    case PCS_HYDRAULICS_OP_PUMP_START:
        return cmd_pump(w, h, c->element, c);
    case PCS_HYDRAULICS_OP_VALVE_POSITION:
        return cmd_valve(w, h, c->element, c);
    default:
        return cmd_pzr_sg(w, h, c);
    }
}

static pcs_status target(pcs_world *w, pcs_hydraulics *h, uint32_t family, const char *suffix,
                         uint32_t element, uint64_t ops)
{
    char name[64];
    snprintf(name, sizeof name, "u%u%s", h->unit + 1, suffix);
    pcs_command_target_def d = {
        .name = name, .family = family, .ctx = h, .element = element, .ops = ops};
    return pcs_command_target_register(w, &d, NULL);
}

/* The network's targets (the family on the world's first network). */
static pcs_status register_commands(pcs_world *w, pcs_hydraulics *h)
{
    uint32_t family;
    pcs_status st = pcs_th_command_family(w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_COUNT,
                                          on_command, &family);
    uint64_t unit_ops = (1u << PCS_HYDRAULICS_OP_PZR_HEATERS) | (1u << PCS_HYDRAULICS_OP_PZR_SPRAY) |
                        (1u << PCS_HYDRAULICS_OP_SG_SECONDARY_T);
    if (st == PCS_OK)
        st = target(w, h, family, "", PCS_TARGET_ELEMENT_ALL, unit_ops);
    char suffix[32];
    for (uint32_t k = 0; st == PCS_OK && k < h->cfg.n_pumps; k++) {
        snprintf(suffix, sizeof suffix, ".pump%u", k + 1);
        st = target(w, h, family, suffix, k,
                    (1u << PCS_HYDRAULICS_OP_PUMP_TRIP) | (1u << PCS_HYDRAULICS_OP_PUMP_START));
    }
    for (uint32_t j = 0; st == PCS_OK && j < h->cfg.n_junctions; j++) {
        if (h->junctions[j].kind != PCS_HYDRAULICS_VALVE)
            continue;
        snprintf(suffix, sizeof suffix, ".valve%u", j + 1);
        st = target(w, h, family, suffix, j, 1u << PCS_HYDRAULICS_OP_VALVE_POSITION);
    }
    if (st == PCS_OK)
        pcs_error_clear(); /* the family lookup of the first network set a message */
    return st;
}

static pcs_status register_channels(pcs_world *w, pcs_hydraulics *h)
{
    char name[96], unit[16];
    snprintf(unit, sizeof unit, "u%u", h->unit + 1);
    pcs_status st = pcs_th_channel(w, unit, "rcs.pressure", "Pa", h->s_core, 2);
    if (st == PCS_OK)
        st = pcs_th_channel(w, unit, "core.flow", "kg/s", h->s_core, 0);
    if (st == PCS_OK)
        st = pcs_th_channel(w, unit, "core.t_inlet", "K", h->s_core, 1);
    if (st == PCS_OK)
        st = pcs_th_channel(w, unit, "sg.heat", "W", h->s_sg_heat, 0);
    for (uint32_t k = 0; st == PCS_OK && k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        if (j->kind != PCS_HYDRAULICS_PUMP)
            continue;
        snprintf(name, sizeof name, "loop%u.flow", j->pump + 1);
        st = pcs_th_channel(w, unit, name, "kg/s", h->s_flow, k);
        snprintf(name, sizeof name, "pump%u.speed", j->pump + 1);
        if (st == PCS_OK)
            st = pcs_th_channel(w, unit, name, "rad/s", h->s_speed, j->pump);
    }
    for (uint32_t i = 0; st == PCS_OK && i < h->cfg.n_nodes; i++) {
        uint32_t tag = h->nodes[i].tag;
        if (tag != PCS_HYDRAULICS_TAG_HOT_LEG && tag != PCS_HYDRAULICS_TAG_COLD_LEG)
            continue;
        snprintf(name, sizeof name, "loop%u.%s", h->nodes[i].loop + 1,
                 tag == PCS_HYDRAULICS_TAG_HOT_LEG ? "t_hot" : "t_cold");
        st = pcs_th_channel(w, unit, name, "K", h->s_temp, i);
    }
    return st;
}

pcs_status pcs_hydraulics_add(pcs_world *w, uint32_t unit, const pcs_hydraulics_def *cfg,
                         pcs_hydraulics **out)
{
    if (!w || !cfg || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_add: NULL argument");
    pcs_status st = check_config(cfg);
    if (st != PCS_OK)
        return st;
    pcs_hydraulics *h = pcs_world_alloc(w, sizeof *h);
    if (!h)
        return pcs_error_set(PCS_E_STATE, "pcs_hydraulics_add: %s", pcs_last_error());
    h->cfg = *cfg;
    h->unit = unit;
    h->n = (int)cfg->n_nodes;
    st = copy_arrays(w, h, cfg);
    h->cfg.nodes = NULL;
    h->cfg.junctions = NULL;
    h->cfg.pumps = NULL;
    if (st == PCS_OK)
        st = make_stores(w, h);
    if (st != PCS_OK)
        return st;
    initial_state(w, h);
    courant_cap(w, h);
    st = build_pattern(w, h);
    if (st == PCS_OK)
        st = analyse(w, h);
    if (st == PCS_OK)
        st = register_commands(w, h);
    if (st == PCS_OK)
        st = register_channels(w, h);
    /* Commands set valve, pump_target and pzr at stage 1; the solve reads
     * them (hyd_solve.c), and the core heat when a fuel model supplies it. */
    uint32_t reads[] = {h->s_valve, h->s_motor, h->s_pzr, cfg->heat_store};
    uint32_t writes[] = {h->s_mass,  h->s_enthalpy, h->s_pressure, h->s_flow,
                         h->s_speed, h->s_temp,     h->s_sg_heat,  h->s_core};
    pcs_system_desc d = {.name = "hydraulics", .stage = PCS_STAGE_HYDRAULICS, .fn = pcs_hydraulics_solve,
                         .ctx = h, .reads = reads,
                         .n_reads = cfg->heat_store == UINT32_MAX ? 3u : 4u, .writes = writes,
                         .n_writes = sizeof writes / sizeof writes[0]};
    char sys_name[32];
    snprintf(sys_name, sizeof sys_name, "u%u.hydraulics", unit + 1);
    d.name = sys_name;
    if (st == PCS_OK)
        st = pcs_system_register(w, &d, NULL);
    if (st == PCS_OK)
        st = pcs_load_check_register(w, sys_name, hyd_load_check, h);
    if (st == PCS_OK) {
        pcs_hydraulics_outputs(w, h);
        *out = h;
    }
    return st;
}

pcs_status pcs_hydraulics_settle(pcs_world *w, pcs_hydraulics *h, double seconds, double dt_s)
{
    if (!w || !h || !(dt_s > 0.0) || !(seconds >= 0.0))
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_settle: bad arguments");
    if (pcs_world_sealed(w))
        return pcs_error_set(PCS_E_STATE, "pcs_hydraulics_settle: the world has already ticked");
    for (double t = 0.0; t < seconds; t += dt_s) {
        pcs_status st = pcs_hydraulics_momentum_pressure(w, h, dt_s);
        if (st != PCS_OK)
            return st;
    }
    pcs_hydraulics_outputs(w, h);
    return PCS_OK;
}

pcs_hydraulics_stores pcs_hydraulics_store_ids(const pcs_hydraulics *h)
{
    pcs_hydraulics_stores s = {h->s_mass, h->s_enthalpy, h->s_pressure, h->s_flow,
                        h->s_speed, h->s_temp, h->s_sg_heat, h->s_core};
    return s;
}

double pcs_hydraulics_total_mass(pcs_world *w, const pcs_hydraulics *h)
{
    const double *mass = pcs_store_data(w, h->s_mass);
    double total = 0.0;
    for (int i = 0; i < h->n; i++)
        total += mass[i];
    return total;
}

double pcs_hydraulics_total_energy(pcs_world *w, const pcs_hydraulics *h)
{
    const double *mass = pcs_store_data(w, h->s_mass), *hh = pcs_store_data(w, h->s_enthalpy);
    double total = 0.0;
    for (int i = 0; i < h->n; i++)
        total += mass[i] * hh[i];
    return total;
}
