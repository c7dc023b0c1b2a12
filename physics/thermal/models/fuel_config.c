/**
 * @file fuel_config.c
 * @brief Fuel model configuration: reference-core defaults and validation.
 *
 * Every default names its source in include/pcsim/fuel.h; the geometry is
 * the 17x17 OFA rod of tests/refdata/pwr_plant.md, where [BEAVRS] and [W84] agree.
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/fuel.h"
#include "pcsim/fuel_materials.h"
#include "pcsim/math.h"

pcs_status pcs_fuel_default(pcs_fuel_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_fuel_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    cfg->n_channels = 4;
    cfg->n_axial = 24;
    cfg->n_fuel_nodes = 10;
    cfg->n_clad_nodes = 2;
    cfg->pellet_radius_m = 0.39218e-2;
    cfg->clad_inner_radius_m = 0.40005e-2;
    cfg->clad_outer_radius_m = 0.45720e-2;
    cfg->rod_pitch_m = 1.25984e-2;
    cfg->active_length_m = 3.6576;
    for (uint32_t c = 0; c < PCS_FUEL_MAX_CHANNELS; c++) {
        cfg->n_rods[c] = 50952u / 4u; /* 193 assemblies x 264 rods over 4 groups */
        cfg->peaking[c] = 1.0;
    }
    cfg->fuel_heat_fraction = 0.974;
    cfg->axial_shape = PCS_AXIAL_CHOPPED_COSINE;
    cfg->axial_extrapolated_length_m = 1.2 * cfg->active_length_m;
    cfg->fuel_k = PCS_FUEL_K_FINK95;
    cfg->fuel_k_const_w_m_k = 3.0;
    cfg->fuel_density_kg_m3 = 10301.66;
    cfg->fuel_cp_j_kg_k = pcs_uo2_cp_fink(900.0);
    cfg->clad_k = PCS_CLAD_K_MATPRO;
    cfg->clad_k_const_w_m_k = 17.0;
    cfg->clad_density_kg_m3 = 6550.0;
    cfg->clad_cp_j_kg_k = pcs_zry_cp_iaea(600.0);
    cfg->gap_conductance_w_m2_k = 1.0e4;
    cfg->t_inlet_k = 565.1;
    cfg->pressure_pa = 15.51e6;
    cfg->core_mass_flow_kg_s = 17080.0;
    cfg->t_initial_k = 565.1;
    cfg->nu_laminar = 4.36;
    cfg->boiling = PCS_FUEL_BOILING_THOM;
    cfg->props_fn = NULL;
    cfg->props_ctx = NULL;
    return pcs_coolant_linear_default(&cfg->coolant_linear);
}

static pcs_status bad_u32(const char *field, uint32_t v, uint32_t lo, uint32_t hi)
{
    return pcs_error_set(PCS_E_INVAL, "fuel config: %s = %u is outside [%u, %u]", field, v, lo, hi);
}

/* A double that must be finite and > lo (or >= lo when inclusive). */
static pcs_status check_min(const char *field, double v, double lo, int inclusive, const char *unit)
{
    int ok = pcs_isfinite(v) && (inclusive ? v >= lo : v > lo);
    if (!ok)
        return pcs_error_set(PCS_E_INVAL, "fuel config: %s = %g %s is outside %s%g, inf)", field, v,
                             unit, inclusive ? "[" : "(", lo);
    return PCS_OK;
}

static pcs_status check_mesh(const pcs_fuel_def *c)
{
    if (c->n_channels < 1 || c->n_channels > PCS_FUEL_MAX_CHANNELS)
        return bad_u32("n_channels", c->n_channels, 1, PCS_FUEL_MAX_CHANNELS);
    if (c->n_axial < 1 || c->n_axial > PCS_FUEL_MAX_AXIAL)
        return bad_u32("n_axial", c->n_axial, 1, PCS_FUEL_MAX_AXIAL);
    if (c->n_fuel_nodes < PCS_FUEL_MIN_FUEL_NODES || c->n_fuel_nodes > PCS_FUEL_MAX_FUEL_NODES)
        return bad_u32("n_fuel_nodes", c->n_fuel_nodes, PCS_FUEL_MIN_FUEL_NODES,
                       PCS_FUEL_MAX_FUEL_NODES);
    if (c->n_clad_nodes < PCS_FUEL_MIN_CLAD_NODES || c->n_clad_nodes > PCS_FUEL_MAX_CLAD_NODES)
        return bad_u32("n_clad_nodes", c->n_clad_nodes, PCS_FUEL_MIN_CLAD_NODES,
                       PCS_FUEL_MAX_CLAD_NODES);
    for (uint32_t i = 0; i < c->n_channels; i++) {
        if (c->n_rods[i] < 1)
            return pcs_error_set(PCS_E_INVAL, "fuel config: n_rods[%u] = 0, must be >= 1", i);
        if (!pcs_isfinite(c->peaking[i]) || !(c->peaking[i] > 0.0))
            return pcs_error_set(PCS_E_INVAL, "fuel config: peaking[%u] = %g is outside (0, inf)",
                                 i, c->peaking[i]);
    }
    return PCS_OK;
}

static pcs_status check_geometry(const pcs_fuel_def *c)
{
    pcs_status st = check_min("pellet_radius_m", c->pellet_radius_m, 0.0, 0, "m");
    if (st == PCS_OK)
        st = check_min("clad_inner_radius_m", c->clad_inner_radius_m, c->pellet_radius_m, 1,
                       "m (>= pellet_radius_m)");
    if (st == PCS_OK)
        st = check_min("clad_outer_radius_m", c->clad_outer_radius_m, c->clad_inner_radius_m, 0,
                       "m (> clad_inner_radius_m)");
    if (st == PCS_OK)
        st = check_min("rod_pitch_m", c->rod_pitch_m, 2.0 * c->clad_outer_radius_m, 0,
                       "m (> clad outer diameter)");
    if (st == PCS_OK)
        st = check_min("active_length_m", c->active_length_m, 0.0, 0, "m");
    if (st == PCS_OK && c->axial_shape != PCS_AXIAL_CHOPPED_COSINE &&
        c->axial_shape != PCS_AXIAL_UNIFORM)
        return pcs_error_set(PCS_E_INVAL, "fuel config: axial_shape = %d is not a shape (0, 1)",
                             (int)c->axial_shape);
    if (st == PCS_OK && c->axial_shape == PCS_AXIAL_CHOPPED_COSINE)
        st = check_min("axial_extrapolated_length_m", c->axial_extrapolated_length_m,
                       c->active_length_m, 1, "m (>= active_length_m)");
    if (st == PCS_OK && (!pcs_isfinite(c->fuel_heat_fraction) || c->fuel_heat_fraction < 0.0 ||
                         c->fuel_heat_fraction > 1.0))
        return pcs_error_set(PCS_E_INVAL, "fuel config: fuel_heat_fraction = %g is outside [0, 1]",
                             c->fuel_heat_fraction);
    return st;
}

static pcs_status check_materials(const pcs_fuel_def *c)
{
    if ((unsigned)c->fuel_k > (unsigned)PCS_FUEL_K_CONSTANT)
        return pcs_error_set(PCS_E_INVAL, "fuel config: fuel_k = %d is not a model (0..2)",
                             (int)c->fuel_k);
    if ((unsigned)c->clad_k > (unsigned)PCS_CLAD_K_CONSTANT)
        return pcs_error_set(PCS_E_INVAL, "fuel config: clad_k = %d is not a model (0..2)",
                             (int)c->clad_k);
    const struct {
        const char *field;
        double v;
        const char *unit;
    } pos[] = {
        {"fuel_k_const_w_m_k", c->fuel_k_const_w_m_k, "W/(m K)"},
        {"fuel_density_kg_m3", c->fuel_density_kg_m3, "kg/m^3"},
        {"fuel_cp_j_kg_k", c->fuel_cp_j_kg_k, "J/(kg K)"},
        {"clad_k_const_w_m_k", c->clad_k_const_w_m_k, "W/(m K)"},
        {"clad_density_kg_m3", c->clad_density_kg_m3, "kg/m^3"},
        {"clad_cp_j_kg_k", c->clad_cp_j_kg_k, "J/(kg K)"},
        {"gap_conductance_w_m2_k", c->gap_conductance_w_m2_k, "W/(m^2 K)"},
        {"pressure_pa", c->pressure_pa, "Pa"},
        {"nu_laminar", c->nu_laminar, ""},
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        pcs_status st = check_min(pos[i].field, pos[i].v, 0.0, 0, pos[i].unit);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

static pcs_status check_coolant(const pcs_fuel_def *c)
{
    pcs_status st = check_min("t_inlet_k", c->t_inlet_k, PCS_FUEL_T_MIN_K, 1, "K");
    if (st == PCS_OK)
        st = check_min("t_initial_k", c->t_initial_k, PCS_FUEL_T_MIN_K, 1, "K");
    if (st == PCS_OK)
        st = check_min("core_mass_flow_kg_s", c->core_mass_flow_kg_s, 0.0, 1, "kg/s");
    if (st == PCS_OK && c->core_mass_flow_kg_s > PCS_FUEL_MDOT_MAX_KG_S)
        st = pcs_error_set(PCS_E_INVAL,
                           "fuel config: core_mass_flow_kg_s = %g kg/s is outside [0, %g]",
                           c->core_mass_flow_kg_s, PCS_FUEL_MDOT_MAX_KG_S);
    if (st == PCS_OK && (unsigned)c->boiling > (unsigned)PCS_FUEL_BOILING_NONE)
        st = pcs_error_set(PCS_E_INVAL, "fuel config: boiling = %d is not a regime set (0, 1)",
                           (int)c->boiling);
    if (st == PCS_OK && !c->props_fn) {
        st = pcs_coolant_linear_validate(&c->coolant_linear);
        if (st != PCS_OK)
            return pcs_error_set(st, "fuel config: coolant_linear: %s", pcs_last_error());
    }
    return st;
}

pcs_status pcs_fuel_def_validate(const pcs_fuel_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_fuel_def_validate: cfg is NULL");
    /* The first failure is the one reported. */
    static pcs_status (*const checks[])(const pcs_fuel_def *) = {check_mesh, check_geometry,
                                                                 check_materials, check_coolant};
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < sizeof checks / sizeof checks[0]; i++)
        st = checks[i](cfg);
    return st;
}
