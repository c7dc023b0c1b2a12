/**
 * @file plant.c
 * @brief The station builder: unit + fuel + hydraulics + coupling per unit (see plant.h).
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/math.h"
#include "pcsim/plant.h"
#include "pcsim/system.h"
#include "pcsim/water.h"


#include "physics/plant/models/plant_internal.h"

pcs_status pcs_plant_unit_default(pcs_plant_unit_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_unit_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    pcs_unit_default(&cfg->core);
    cfg->core.external_heat = 1;
    pcs_fuel_default(&cfg->fuel);
    cfg->n_loops = 4;
    cfg->n_sg_nodes = 4;
    cfg->pump = (pcs_hydraulics_pump){.rated_speed_rad_s = 124.5, /* 1189 rpm (assumption) */
                               .rated_dp_pa = 0.6e6,
                               .rated_flow_kg_s = 4360.0,
                               .shutoff_ratio = 1.3,
                               .inertia_kg_m2 = 2900.0,
                               .efficiency = 0.8,
                               .initial_speed_frac = 1.0};
    cfg->t_hot_k = 599.0;
    cfg->t_cold_k = 565.1;
    cfg->sg_pressure_pa = 6.89e6;
    /* 1.8 MW of heaters ([HRTD]) raise pressure ~0.1 MPa per minute: 1e-6 Pa/J. */
    cfg->pzr_dp_per_joule = 1e-6;
    cfg->settle_s = 60.0;
    return PCS_OK;
}

static pcs_status check_unit(const pcs_plant_unit_def *c, uint32_t n)
{
    if (c->n_loops < 1 || c->n_loops > PCS_PLANT_MAX_LOOPS)
        return pcs_error_set(PCS_E_INVAL, "plant: unit %u n_loops = %u is outside [1, %u]", n,
                             c->n_loops, PCS_PLANT_MAX_LOOPS);
    if (c->n_sg_nodes < 1 || c->n_sg_nodes > PCS_PLANT_MAX_SG_NODES)
        return pcs_error_set(PCS_E_INVAL, "plant: unit %u n_sg_nodes = %u is outside [1, %u]", n,
                             c->n_sg_nodes, PCS_PLANT_MAX_SG_NODES);
    if (!(c->settle_s >= 0.0 && c->settle_s <= 3600.0))
        return pcs_error_set(PCS_E_INVAL, "plant: unit %u settle_s = %g is outside [0, 3600]", n,
                             c->settle_s);
    if (!(c->sg_pressure_pa >= 1e5 && c->sg_pressure_pa <= 2.2e7))
        return pcs_error_set(PCS_E_INVAL,
                             "plant: unit %u sg_pressure_pa = %g is outside [1e5, 2.2e7]", n,
                             c->sg_pressure_pa);
    if (!(c->t_hot_k > c->t_cold_k) || !(c->t_cold_k >= 273.15))
        return pcs_error_set(PCS_E_INVAL,
                             "plant: unit %u needs t_hot_k %g > t_cold_k %g >= 273.15", n,
                             c->t_hot_k, c->t_cold_k);
    return PCS_OK;
}

static pcs_status couple_system(pcs_world *w, void *ctx)
{
    (void)w;
    plant_couple *c = ctx;
    for (uint32_t g = 0; g < c->n_channels; g++) {
        c->fuel_t_in[g] = c->hyd_core[1];
        c->fuel_mdot[g] = c->hyd_core[0] * c->flow_share[g];
    }
    c->fuel_p[0] = c->hyd_core[2];
    *c->unit_t_fuel = c->fuel_out[PCS_FUEL_OUT_T_AVG];
    *c->unit_t_cool = c->fuel_out[PCS_FUEL_OUT_COOLANT_T_AVG];
    *c->unit_t_max = c->fuel_out[PCS_FUEL_OUT_T_MAX];
    return PCS_OK;
}

/* Hydraulic network of unit @p u: arrays in world memory, built for its loops. */
static pcs_status build_hydraulics(pcs_world *w, const pcs_plant_unit_def *c,
                                   pcs_plant_unit *pu)
{
    uint32_t nn, nj;
    pcs_status st = pcs_hydraulics_pwr_sizes(c->n_loops, c->n_sg_nodes, &nn, &nj);
    if (st != PCS_OK)
        return st;
    pcs_hydraulics_node *nodes = pcs_world_alloc(w, nn * sizeof *nodes);
    pcs_hydraulics_junction *js = pcs_world_alloc(w, nj * sizeof *js);
    pcs_hydraulics_pump *pumps = pcs_world_alloc(w, c->n_loops * sizeof *pumps);
    if (!nodes || !js || !pumps)
        return pcs_error_set(PCS_E_NOMEM, "plant: out of memory for unit %u's loops", pu->index);
    pcs_hydraulics_def h;
    pcs_hydraulics_default(&h);
    double t_avg = 0.5 * (c->t_hot_k + c->t_cold_k), p = c->fuel.pressure_pa;
    double rho, t_sat;
    /* Liquid density at the mean loop temperature and saturation temperature of
     * the secondary, both from IAPWS-IF97. */
    st = pcs_water_rho_pt(p, t_avg, &rho);
    if (st == PCS_OK)
        st = pcs_water_tsat(c->sg_pressure_pa, &t_sat);
    if (st != PCS_OK)
        return st;
    h.rho_kg_m3 = rho;
    h.p_init_pa = p;
    h.t_init_k = t_avg;
    h.cp_j_kg_k = c->core.nominal_power_w * c->core.initial_power_fraction /
                  (c->pump.rated_flow_kg_s * c->n_loops * (c->t_hot_k - c->t_cold_k));
    h.pzr_dp_per_joule = c->pzr_dp_per_joule;
    h.heat_store = pu->fuel.store_out;
    h.heat_index = PCS_FUEL_OUT_FLOW_HEAT;
    st = pcs_hydraulics_pwr_network(c->n_loops, c->n_sg_nodes, &c->pump, &h, nodes, js, pumps);
    if (st == PCS_OK)
        st = pcs_hydraulics_pwr_full_power(&h, nodes, c->n_loops, c->n_sg_nodes,
                                    c->core.nominal_power_w * c->core.initial_power_fraction,
                                    c->t_hot_k, c->t_cold_k, t_sat);
    if (st == PCS_OK)
        st = pcs_hydraulics_add(w, pu->index - 1, &h, &pu->hyd);
    if (st == PCS_OK)
        st = pcs_hydraulics_settle(w, pu->hyd, c->settle_s, pcs_world_clock(w)->dt_s);
    return st;
}

static pcs_status bind_couple(pcs_world *w, const pcs_plant_unit_def *c, pcs_plant_unit *pu,
                              plant_couple *cp)
{
    pcs_hydraulics_stores hs = pcs_hydraulics_store_ids(pu->hyd);
    uint32_t tf, tc, tm;
    pcs_status st = pcs_unit_temperature_stores(pu->core, &tf, &tc, &tm);
    if (st != PCS_OK)
        return st;
    cp->hyd_core = pcs_store_data(w, hs.core);
    cp->fuel_out = pcs_store_data(w, pu->fuel.store_out);
    cp->fuel_t_in = pcs_store_data(w, pu->fuel.store_t_inlet);
    cp->fuel_mdot = pcs_store_data(w, pu->fuel.store_mass_flow);
    cp->fuel_p = pcs_store_data(w, pu->fuel.store_pressure);
    cp->unit_t_fuel = pcs_store_data(w, tf);
    cp->unit_t_cool = pcs_store_data(w, tc);
    cp->unit_t_max = pcs_store_data(w, tm);
    cp->n_channels = c->fuel.n_channels;
    double rods = 0.0;
    for (uint32_t g = 0; g < cp->n_channels; g++)
        rods += c->fuel.n_rods[g];
    for (uint32_t g = 0; g < cp->n_channels; g++)
        cp->flow_share[g] = c->fuel.n_rods[g] / rods;
    uint32_t reads[] = {hs.core, pu->fuel.store_out};
    uint32_t writes[] = {pu->fuel.store_t_inlet, pu->fuel.store_mass_flow,
                         pu->fuel.store_pressure, tf, tc, tm};
    char name[32];
    snprintf(name, sizeof name, "u%u.plant.couple", pu->index);
    pcs_system_desc d = {.name = name, .stage = PCS_STAGE_MACHINES, .fn = couple_system,
                         .ctx = cp, .reads = reads, .n_reads = 2, .writes = writes,
                         .n_writes = 6};
    return pcs_system_register(w, &d, NULL);
}

/* Start steady: fuel at the settled boundary, kinetics balanced for it. */
static pcs_status start_steady(pcs_world *w, pcs_plant_unit *pu, plant_couple *cp)
{
    couple_system(w, cp);
    uint32_t ps, pi;
    pcs_status st = pcs_unit_power_ref(pu->core, &ps, &pi);
    if (st != PCS_OK)
        return st;
    double power = ((const double *)pcs_store_data(w, ps))[pi];
    st = pcs_fuel_solve_steady(w, &pu->fuel, power);
    if (st == PCS_OK)
        st = pcs_unit_set_temperatures(w, pu->core, cp->fuel_out[PCS_FUEL_OUT_T_AVG],
                                       cp->fuel_out[PCS_FUEL_OUT_COOLANT_T_AVG],
                                       cp->fuel_out[PCS_FUEL_OUT_T_MAX]);
    return st;
}

static pcs_status build_unit(pcs_world *w, const pcs_plant_unit_def *cfg, uint32_t n,
                             pcs_plant_unit *pu, plant_couple *cp)
{
    pcs_plant_unit_def c = *cfg;
    c.core.external_heat = 1;
    pcs_status st = check_unit(&c, n);
    if (st != PCS_OK)
        return st;
    pu->index = n;
    pu->n_loops = c.n_loops;
    st = pcs_unit_add(w, n, &c.core, &pu->core);
    uint32_t ps = 0, pi = 0;
    if (st == PCS_OK)
        st = pcs_unit_power_ref(pu->core, &ps, &pi);
    if (st == PCS_OK)
        st = pcs_fuel_add(w, n - 1, &c.fuel, ps, pi, &pu->fuel);
    if (st == PCS_OK)
        st = build_hydraulics(w, &c, pu);
    if (st == PCS_OK)
        st = bind_couple(w, &c, pu, cp);
    if (st == PCS_OK)
        st = start_steady(w, pu, cp);
    return st;
}

pcs_status pcs_plant_add(pcs_world *w, const pcs_plant_unit_def *units, uint32_t n_units,
                           pcs_plant **out)
{
    if (!w || !units || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_add: NULL argument");
    if (n_units < 1 || n_units > PCS_PLANT_MAX_UNITS)
        return pcs_error_set(PCS_E_INVAL, "plant: n_units = %u is outside [1, %u]", n_units,
                             PCS_PLANT_MAX_UNITS);
    pcs_plant *p = pcs_world_alloc(w, sizeof *p);
    if (!p)
        return pcs_error_set(PCS_E_STATE, "pcs_plant_add: %s", pcs_last_error());
    for (uint32_t i = 0; i < n_units; i++) {
        pcs_status st = build_unit(w, &units[i], i + 1, &p->units[i], &p->couple[i]);
        if (st != PCS_OK)
            return pcs_error_set(st, "plant unit %u: %s", i + 1, pcs_last_error());
        p->cfg[i] = units[i];
        p->n_units = i + 1;
    }
    *out = p;
    return PCS_OK;
}

uint32_t pcs_plant_unit_count(const pcs_plant *p)
{
    return p ? p->n_units : 0;
}

const pcs_plant_unit *pcs_plant_unit_get(const pcs_plant *p, uint32_t i)
{
    return (p && i < p->n_units) ? &p->units[i] : NULL;
}
