/**
 * @file hyd_pwr.c
 * @brief A standard Westinghouse-style PWR primary system as a hydraulic network.
 *
 * Per loop: hot leg (tagged t_hot) -> n SG tube nodes -> crossover leg ->
 * pump -> cold leg (tagged t_cold) -> shared downcomer -> core -> upper
 * plenum -> hot legs. A pressurizer hangs on loop 1's hot leg by a surge line.
 * Pipe diameters, pressurizer volumes and flows from tests/refdata/pwr_plant.md
 * ([W84] Tables 1-1, 2-1, 3.5-1; [HRTD] Table 3.2-2). Lengths, plenum volumes
 * and the SG tube bundle (3388 tubes of 19.7 mm bore, 20 m) are model
 * assumptions of the right order, not sourced values. The core junction's
 * form loss is chosen so the loop resistance at rated flow equals the pump's
 * rated head: the plant starts at its rated flow.
 */
#include <string.h>

#include "pcsim/math.h"
#include "physics/thermohydraulics/models/hyd_internal.h"

#define PWR_SHARED_NODES 3u /* downcomer, core, upper plenum */

pcs_status pcs_hydraulics_pwr_sizes(uint32_t n_loops, uint32_t n_sg, uint32_t *n_nodes,
                             uint32_t *n_junctions)
{
    if (n_loops < 1 || n_loops > 8 || n_sg < 1 || n_sg > 64 || !n_nodes || !n_junctions)
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_pwr_sizes: n_loops %u must be in [1, 8] and "
                                          "n_sg_nodes %u in [1, 64]",
                             n_loops, n_sg);
    *n_nodes = PWR_SHARED_NODES + n_loops * (3 + n_sg) + 1;
    *n_junctions = n_loops * (n_sg + 4) + 3;
    return PCS_OK;
}

typedef struct pipe {
    double length_m, diameter_m;
} pipe;

static pcs_hydraulics_junction make_pipe(uint32_t from, uint32_t to, pipe p, double area_override)
{
    pcs_hydraulics_junction j;
    memset(&j, 0, sizeof j);
    j.kind = PCS_HYDRAULICS_PIPE;
    j.from = from;
    j.to = to;
    j.length_m = p.length_m;
    j.diameter_m = p.diameter_m;
    j.area_m2 = area_override > 0 ? area_override : PCS_PI * p.diameter_m * p.diameter_m / 4.0;
    j.roughness_m = 4.5e-5; /* commercial steel, Moody chart */
    return j;
}

static pcs_hydraulics_node make_node(pcs_hydraulics_role role, double volume, uint32_t loop, uint32_t tag)
{
    pcs_hydraulics_node n = {.role = role, .volume_m3 = volume, .loop = loop, .tag = tag};
    return n;
}

/* Pressure drop of a junction at flow m, Pa (Haaland friction + form loss). */
static double junction_dp(const pcs_hydraulics_def *c, const pcs_hydraulics_junction *j, double m)
{
    double re = m * j->diameter_m / (j->area_m2 * c->mu_pa_s);
    double f = pcs_friction_haaland(re, j->roughness_m / j->diameter_m);
    double k = f * j->length_m / j->diameter_m + j->form_loss;
    return k * m * m / (2.0 * c->rho_kg_m3 * j->area_m2 * j->area_m2);
}

pcs_status pcs_hydraulics_pwr_network(uint32_t n_loops, uint32_t n_sg, const pcs_hydraulics_pump *pump,
                               pcs_hydraulics_def *cfg, pcs_hydraulics_node *nodes,
                               pcs_hydraulics_junction *junctions, pcs_hydraulics_pump *pumps)
{
    uint32_t nn, nj;
    pcs_status st = pcs_hydraulics_pwr_sizes(n_loops, n_sg, &nn, &nj);
    if (st != PCS_OK)
        return st;
    if (!pump || !cfg || !nodes || !junctions || !pumps)
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_pwr_network: NULL argument");
    const uint32_t DC = 0, CORE = 1, UP = 2, PZR = nn - 1;
    nodes[DC] = make_node(PCS_HYDRAULICS_PLAIN, 50.0, 0, PCS_HYDRAULICS_TAG_NONE);
    nodes[CORE] = make_node(PCS_HYDRAULICS_CORE, 40.0, 0, PCS_HYDRAULICS_TAG_NONE);
    nodes[UP] = make_node(PCS_HYDRAULICS_PLAIN, 40.0, 0, PCS_HYDRAULICS_TAG_NONE);
    pipe hot = {10.0, 0.737}, cold = {15.0, 0.699}, cross = {12.0, 0.787}, sg = {20.0, 0.0197};
    double sg_area = 3388.0 * PCS_PI * 0.0197 * 0.0197 / 4.0;
    uint32_t k = 0;
    pcs_hydraulics_junction core_j = make_pipe(DC, CORE, (pipe){4.0, 0.0118}, 5.0);
    for (uint32_t l = 0; l < n_loops; l++) {
        uint32_t base = PWR_SHARED_NODES + l * (3 + n_sg);
        uint32_t hl = base, sg0 = base + 1, xo = base + 1 + n_sg, cl = xo + 1;
        nodes[hl] = make_node(PCS_HYDRAULICS_PLAIN, 4.3, l, PCS_HYDRAULICS_TAG_HOT_LEG);
        for (uint32_t s = 0; s < n_sg; s++)
            nodes[sg0 + s] = make_node(PCS_HYDRAULICS_SG, sg_area * sg.length_m / n_sg, l, 0);
        nodes[xo] = make_node(PCS_HYDRAULICS_PLAIN, 5.8, l, PCS_HYDRAULICS_TAG_NONE);
        nodes[cl] = make_node(PCS_HYDRAULICS_PLAIN, 5.8, l, PCS_HYDRAULICS_TAG_COLD_LEG);
        junctions[k++] = make_pipe(UP, hl, hot, 0);
        junctions[k++] = make_pipe(hl, sg0, (pipe){1.0, sg.diameter_m}, sg_area);
        for (uint32_t s = 0; s + 1 < n_sg; s++)
            junctions[k++] = make_pipe(sg0 + s, sg0 + s + 1,
                                       (pipe){sg.length_m / n_sg, sg.diameter_m}, sg_area);
        junctions[k++] = make_pipe(sg0 + n_sg - 1, xo, cross, 0);
        pcs_hydraulics_junction pj = make_pipe(xo, cl, (pipe){2.0, 0.699}, 0);
        pj.kind = PCS_HYDRAULICS_PUMP;
        pj.pump = l;
        junctions[k++] = pj;
        junctions[k++] = make_pipe(cl, DC, cold, 0);
        pumps[l] = *pump;
    }
    junctions[k++] = core_j;
    junctions[k++] = make_pipe(CORE, UP, (pipe){2.0, 2.0}, 0);
    /* Pressurizer: 30.6 m3 of water under 20.4 m3 of steam ([W84] 3.5-1, [HRTD]);
     * bubble compliance dM/dp = rho_l V_steam / p (isothermal bubble). */
    nodes[PZR] = make_node(PCS_HYDRAULICS_PRESSURIZER, 30.6, 0, PCS_HYDRAULICS_TAG_NONE);
    nodes[PZR].compliance_kg_pa = 600.0 * 20.4 / 15.51e6;
    junctions[k++] = make_pipe(PZR, PWR_SHARED_NODES, (pipe){15.0, 0.284}, 0);
    cfg->n_nodes = nn;
    cfg->n_junctions = nj;
    cfg->n_pumps = n_loops;
    cfg->nodes = nodes;
    cfg->junctions = junctions;
    cfg->pumps = pumps;
    /* Close the loop's pressure balance at rated flow with the core form loss. */
    double m = pump->rated_flow_kg_s, loop_dp = 0.0;
    for (uint32_t q = 0; q < n_sg + 4; q++)
        loop_dp += junction_dp(cfg, &junctions[q], m);
    loop_dp += junction_dp(cfg, &junctions[nj - 2], m * n_loops);
    double mc = m * n_loops, dp_core = pump->rated_dp_pa - loop_dp;
    if (dp_core <= 0.0)
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_pwr_network: pump rated_dp_pa %g is below "
                                          "the loop's own friction %g Pa",
                             pump->rated_dp_pa, loop_dp);
    junctions[nj - 3].form_loss = 0.0;
    double friction_core = junction_dp(cfg, &junctions[nj - 3], mc);
    double a = junctions[nj - 3].area_m2;
    junctions[nj - 3].form_loss = (dp_core - friction_core) * 2.0 * cfg->rho_kg_m3 * a * a / (mc * mc);
    cfg->initial_flow_kg_s = 0.0;
    return PCS_OK;
}

pcs_status pcs_hydraulics_pwr_full_power(pcs_hydraulics_def *cfg, pcs_hydraulics_node *nodes, uint32_t n_loops,
                                  uint32_t n_sg, double power_w, double t_hot_k, double t_cold_k,
                                  double t_secondary_k)
{
    uint32_t nn, nj;
    pcs_status st = pcs_hydraulics_pwr_sizes(n_loops, n_sg, &nn, &nj);
    if (st != PCS_OK)
        return st;
    if (!cfg || !nodes || !(t_hot_k > t_cold_k) || !(t_cold_k > t_secondary_k) ||
        !(power_w > 0.0))
        return pcs_error_set(PCS_E_INVAL, "pcs_hydraulics_pwr_full_power: need power > 0 and "
                                          "t_hot %g > t_cold %g > t_secondary %g K",
                             t_hot_k, t_cold_k, t_secondary_k);
    /* Discrete steady state of the donor-cell SG chain: node k obeys
     * m cp (T_{k-1} - T_k) = UA (T_k - T_s), so T_k - T_s = (T_hot - T_s) r^(k+1)
     * with r = 1 / (1 + UA / (m cp)). Choosing r = ((T_cold - T_s)/(T_hot - T_s))^(1/n)
     * makes the chain end exactly at T_cold, so the plant starts in balance. */
    double m = power_w / (n_loops * cfg->cp_j_kg_k * (t_hot_k - t_cold_k));
    double r = pcs_pow((t_cold_k - t_secondary_k) / (t_hot_k - t_secondary_k), 1.0 / n_sg);
    nodes[0].t_init_k = t_cold_k; /* downcomer */
    nodes[1].t_init_k = t_hot_k;  /* the core node is well mixed: its outlet temperature */
    nodes[2].t_init_k = t_hot_k;
    nodes[nn - 1].t_init_k = t_hot_k;
    for (uint32_t l = 0; l < n_loops; l++) {
        uint32_t base = PWR_SHARED_NODES + l * (3 + n_sg);
        nodes[base].t_init_k = t_hot_k;
        double t = t_hot_k;
        for (uint32_t s = 0; s < n_sg; s++) {
            t = t_secondary_k + (t - t_secondary_k) * r;
            nodes[base + 1 + s].t_init_k = t;
        }
        nodes[base + 1 + n_sg].t_init_k = t_cold_k;
        nodes[base + 2 + n_sg].t_init_k = t_cold_k;
    }
    cfg->t_secondary_k = t_secondary_k;
    cfg->sg_ua_w_k = m * cfg->cp_j_kg_k * (1.0 / r - 1.0);
    return PCS_OK;
}
