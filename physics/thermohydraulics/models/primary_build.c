/**
 * @file primary_build.c
 * @brief The two-phase primary's build: defaults, checks, the network from the
 *        geometry (nodalisation in pcsim/primary.h), stores, commands,
 *        channels and the load check of every saved store.
 *
 * Load check (primary_load_check), on the staged values of every STATE store:
 * per volume mass in (0, 1100 V] kg (no water is denser than 1100 kg/m3 in
 * the property domain), internal energy in [0, 4.5e6 M] J (u of water from
 * the triple point to 1073 K at the domain's pressures), and the two
 * together a water state (the equation of state has a (p, h) for M / V and
 * U / M: pcs_thnet_volume_check), p in [1 kPa,
 * 31 MPa] and h in [0, 4.2e6] J/kg (the (p, h) table's domain), T in
 * [273.15, 1073.15] K, rho in (0, 1100], quality and void in [0, 1]; per
 * junction |W| <= 1100 A 1000 kg/s (liquid at 1000 m/s: above any flow the
 * network can carry); pump speed within +-1.5 rated (reverse rotation is in
 * the curves); motor flags 0 or 1; pressurizer region masses >= 0 with a
 * positive total, energies in [0, 4.5e6 M], p in [0.1, 21] MPa (the
 * kernel's init range), h in [0, 4.2e6], PORV flag 0 or 1; core heat per
 * volume in [0, 10 rated power]; heater and spray demands in [0, 1]; CVCS
 * flows in [0, 400] kg/s and the charging boron in [0, 10000] ppm; SG
 * secondary pressures in [1 kPa, 22 MPa] (below the critical point); boron
 * per volume (and the pressurizer liquid's) in [0, 10000] ppm (the same
 * bound as the charging boron: boric acid's solubility ceiling order).
 */
#include <math.h> /* M_PI-free constants, NAN, INFINITY */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/structure.h"
#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/water.h"
#include "physics/thermohydraulics/models/primary_internal.h"
#include "physics/thermohydraulics/models/th_build.h"
#include "physics/thermohydraulics/models/th_register.h"

/* Load-check bounds of the CVCS controls: ten times the 4-loop charging pump
 * capacity order (about 40 kg/s) and the boric-acid tank ceiling (7000 ppm
 * boron is 4 wt % boric acid); both bounds, not design values. */
#define PRI_CVCS_FLOW_MAX 400.0
#define PRI_BORON_MAX_PPM 10000.0

/* ---- defaults and checks --------------------------------------------------- */

/* The def's double fields, their defaults and ranges (th_build.h), in the
 * order the checks run. */
#define PRI_FIELD(f) PCS_TH_FIELD(pcs_primary_def, f)
#define PRI_AT(f) PCS_TH_AT(pcs_primary_def, f)
_Static_assert(offsetof(pcs_primary_def, unit_name) == 0, "lo_at 0 names no double field");

static const pcs_th_field geometry[] = {
    {PRI_FIELD(v_downcomer_m3), 3.04 + 5.16 + 13.75, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_lower_plenum_m3), 26.62, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_core_m3), 20.23 + 7.07, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_upper_plenum_m3), 40.10, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_upper_head_m3), 13.85, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(a_downcomer_m2), 2.482, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(a_core_m2), 5.0105, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(d_core_m), 0.01296, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(a_plenum_m2), 5.0105, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(a_upper_head_m2), 1.0, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(z_lower_plenum_bottom_m), -4.606, -100, 100, 0, 0, 0},
    {PRI_FIELD(z_downcomer_bottom_m), -3.499, -100, 100, 0, 0, 0},
    {PRI_FIELD(z_core_bottom_m), -2.038, -100, 100, 0, 0, 0},
    {PRI_FIELD(z_core_top_m), 2.038, 0, 100, 1, PRI_AT(z_core_bottom_m), 0},
    {PRI_FIELD(z_nozzle_m), 3.359, -100, 100, 0, 0, 0},
    {PRI_FIELD(z_upper_support_m), 5.858, 0, 100, 1, PRI_AT(z_core_top_m), 0},
    {PRI_FIELD(z_upper_head_top_m), 7.502, 0, 100, 1, PRI_AT(z_upper_support_m), 0},
    {PRI_FIELD(v_hot_leg_m3), 3.292, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_sg_plenum_m3), 4.231, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_sg_tubes_m3), 21.97, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_crossover_m3), 4.042, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_pump_m3), 1.586, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(v_cold_leg_m3), 3.354, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(d_hot_leg_m), 0.7366, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(d_cold_leg_m), 0.6985, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(d_crossover_m), 0.7874, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(l_hot_leg_m), 7.455, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(l_crossover_m), 8.301, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(l_cold_leg_m), 8.454, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(z_sg_plenum_bottom_m), 4.283, -100, 100, 0, 0, 0},
    {PRI_FIELD(z_tube_sheet_m), 5.489, 0, 100, 1, PRI_AT(z_sg_plenum_bottom_m), 0},
    {PRI_FIELD(z_ubend_top_m), 15.747, 0, 100, 1, PRI_AT(z_tube_sheet_m), 0},
    {PRI_FIELD(z_loop_seal_m), 0.216, -100, 100, 0, 0, 0},
    {PRI_FIELD(z_pump_suction_m), 1.588, -100, 100, 0, 0, 0},
    {PRI_FIELD(roughness_m), 4.6e-5, 0, 0.01, 0, 0, 0},
    {PRI_FIELD(d_surge_m), 0.2921, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(l_surge_m), 20.19, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(z_pzr_above_tap_m), 3.844, -100, 100, 0, 0, 0},
};

/* The SG tubes' count and diameter, then sg_tube_wall_m (at most half the
 * diameter: checked on its own), then the rest. */
static const pcs_th_field tubes[] = {
    {PRI_FIELD(sg_tube_count), 3388.0, 0, 1e6, 1, 0, 0},
    {PRI_FIELD(sg_tube_od_m), 0.02223, 0, 1, 1, 0, 0},
};

static const pcs_th_field rest[] = {
    {PRI_FIELD(sg_tube_length_m), 21.3, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(sg_wall_k_w_mk), 16.5, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(sg_h_secondary_w_m2k), 30000.0, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(sg_secondary_p_pa), 6.89e6, 1e3, 22e6, 0, 0, 0},
    {PRI_FIELD(ref_p_pa), 15.51e6, 1e5, 31e6, 0, 0, 0},
    {PRI_FIELD(ref_t_k), 582.0, 280, 640, 0, 0, 0},
    {PRI_FIELD(k_vessel_inlet), 1.0, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_downcomer_turn), 1.0, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_core_inlet), 1.5, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_core_grids), 8.0, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_core_outlet), 1.5, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_vessel_outlet), 0.5, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_sg_inlet), 1.0, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_tube_inlet), 0.5, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_tube_bend), 0.2, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_tube_outlet), 1.0, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_sg_outlet), 0.5, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_crossover), 0.9, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_surge), 1.5, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(k_upper_head), 1.0, 0, INFINITY, 0, 0, 0},
    {PRI_FIELD(motor_sync_speed_rad_s), 1200.0 * 2.0 * PCS_TH_PI / 60.0, 0, INFINITY, 1,
     PRI_AT(pump.rated_speed_rad_s), 0},
    {PRI_FIELD(motor_rated_torque_n_m), 4.474e6 / 124.5, 0, INFINITY, 1, 0, 0},
    {PRI_FIELD(motor_max_torque_ratio), 2.5, 1, INFINITY, 0, 0, 0},
    {PRI_FIELD(rated_power_w), 3.411e9, 0, 1e11, 1, 0, 0},
    {PRI_FIELD(t_avg_no_load_k), 564.8, 373.15, 620, 0, 0, 0},
    {PRI_FIELD(t_avg_full_k), 580.2, 373.15, 620, 0, 0, 0},
    {PRI_FIELD(pzr_level_no_load), 25.0, 5, 95, 0, 0, 0},
    {PRI_FIELD(pzr_level_full), 61.5, 5, 95, 0, 0, 0},
    {PRI_FIELD(p_setpoint_pa), 15.513e6, 1e6, 21e6, 0, 0, 0},
    {PRI_FIELD(loop_flow_guess_kg_s), 4360.0, 0, 1e6, 0, 0, 0},
    {PRI_FIELD(charging_t_k), (500.0 - 32.0) / 1.8 + 273.15, 273.16, 640, 0, 0, 0},
    /* 75 gpm x rho(15.51 MPa, 290 F = 416.48 K) = 4.7318e-3 m3/s x 931.23 kg/m3 */
    {PRI_FIELD(letdown_nominal_kg_s), 4.41, 0, PRI_CVCS_FLOW_MAX, 0, 0, 0},
    {PRI_FIELD(boron_ppm), 975.0, 0, PRI_BORON_MAX_PPM, 0, 0, 0},
    /* [TYP] tables at ref_t_k = 582 K = 587.9 F, linear between the cards'
       points; 1 Btu/(s ft F) = 6230.64 W/(m K), 1 Btu/(ft3 F) = 67066.1 J/(m3 K) */
    {PRI_FIELD(steel_k_w_mk), 2.73188e-3 * 6230.64, 0, 200, 1, 0, 0},
    {PRI_FIELD(steel_rho_c_j_m3k), 64.4476 * 67066.1, 0, 1e7, 1, 0, 0},
    {PRI_FIELD(sg_wall_rho_c_j_m3k), 63.6113 * 67066.1, 0, 1e7, 1, 0, 0},
    {PRI_FIELD(metal_dx_max_m), 0.01, 1e-3, 1, 0, 0, 0},
};

pcs_status pcs_primary_default(pcs_primary_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_default: def is NULL");
    memset(d, 0, sizeof *d);
    d->unit_name = "u1";
    d->n_loops = 4;
    d->n_core = 6;
    d->n_sg_tubes = 8;
    pcs_th_fields_default(d, geometry, sizeof geometry / sizeof geometry[0]);
    pcs_th_fields_default(d, tubes, sizeof tubes / sizeof tubes[0]);
    d->sg_tube_wall_m = 0.00127;
    pcs_th_fields_default(d, rest, sizeof rest / sizeof rest[0]);
    pcs_pump_homologous_default(&d->pump);
    pcs_pressurizer_default(&d->pzr);
    d->metal_model = PCS_PRIMARY_METAL_TYP;
    return PCS_OK;
}

static pcs_status check_counts(const pcs_primary_def *d)
{
    size_t n = d->unit_name ? strlen(d->unit_name) : 0;
    if (n < 1 || n > 15)
        return pcs_error_set(PCS_E_INVAL, "primary: unit_name must be 1..15 characters");
    if (d->unit_index >= (1u << 22))
        return pcs_error_set(PCS_E_INVAL, "primary: unit_index %u is outside [0, %u]",
                             d->unit_index, (1u << 22) - 1);
    if (d->n_loops < 1 || d->n_loops > PCS_PRIMARY_MAX_LOOPS)
        return pcs_error_set(PCS_E_INVAL, "primary: n_loops = %u is outside [1, %u]", d->n_loops,
                             PCS_PRIMARY_MAX_LOOPS);
    if (d->n_core < 1 || d->n_core > 12)
        return pcs_error_set(PCS_E_INVAL, "primary: n_core = %u is outside [1, 12]", d->n_core);
    if (d->n_sg_tubes < 2 || d->n_sg_tubes > PCS_PRIMARY_MAX_SG_TUBES || d->n_sg_tubes % 2)
        return pcs_error_set(PCS_E_INVAL, "primary: n_sg_tubes = %u must be even in [2, %u]",
                             d->n_sg_tubes, PCS_PRIMARY_MAX_SG_TUBES);
    return PCS_OK;
}

/* The rows' ranges, messages "primary: <field> = ...". */
static pcs_status check_fields(const pcs_primary_def *d, const pcs_th_field *f, size_t n)
{
    return pcs_th_fields_check(d, f, n, "primary: ");
}

static pcs_status check_rest(const pcs_primary_def *d)
{
    const pcs_param_range wall = {"sg_tube_wall_m", d->sg_tube_wall_m, 0, 0.5 * d->sg_tube_od_m, 1};
    pcs_status st = check_fields(d, tubes, sizeof tubes / sizeof tubes[0]);
    if (st == PCS_OK)
        st = pcs_param_ranges_check("primary: ", &wall, 1);
    if (st == PCS_OK)
        st = check_fields(d, rest, sizeof rest / sizeof rest[0]);
    if (st == PCS_OK && d->sg_model > PCS_PRIMARY_SG_TUBE_STORES)
        st = pcs_error_set(PCS_E_INVAL,
                           "primary: sg_model = %u is outside {0 (boundary), 1 (tube stores)}",
                           d->sg_model);
    if (st == PCS_OK && d->metal_model > PCS_PRIMARY_METAL_TYP)
        st = pcs_error_set(PCS_E_INVAL,
                           "primary: metal_model = %u is outside {0 (none), 1 ([TYP] structures)}",
                           d->metal_model);
    if (st == PCS_OK)
        st = pcs_pump_homologous_validate(&d->pump);
    if (st == PCS_OK)
        st = pcs_pressurizer_validate(&d->pzr);
    return st;
}

pcs_status pcs_primary_def_validate(const pcs_primary_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_def_validate: def is NULL");
    pcs_status st = check_counts(d);
    if (st == PCS_OK)
        st = check_fields(d, geometry, sizeof geometry / sizeof geometry[0]);
    if (st == PCS_OK)
        st = check_rest(d);
    return st;
}

/* ---- the network ----------------------------------------------------------- */

/* Downcomer hydraulic diameter 2 (R_liner - R_barrel,out) = 2 (2.1915 -
 * 1.93675) m (geometry rows vessel.liner_inner_radius, barrel_outer_radius). */
#define PRI_D_DOWNCOMER 0.5095

static void vessel_volumes(pcs_primary *pr, pcs_th_net_builder *b)
{
    const pcs_primary_def *d = &pr->def;
    double dzc = (d->z_core_top_m - d->z_core_bottom_m) / pr->nc;
    pr->v_dc = pcs_th_add_vol(b, d->v_downcomer_m3, 0.5 * (d->z_nozzle_m + d->z_downcomer_bottom_m),
                              PRI_D_DOWNCOMER);
    pr->v_lp = pcs_th_add_vol(b, d->v_lower_plenum_m3,
                              0.5 * (d->z_lower_plenum_bottom_m + d->z_core_bottom_m), 4.0);
    pr->v_core0 = b->nv;
    for (uint32_t k = 0; k < pr->nc; k++)
        pcs_th_add_vol(b, d->v_core_m3 / pr->nc, d->z_core_bottom_m + (k + 0.5) * dzc, d->d_core_m);
    pr->v_up = pcs_th_add_vol(b, d->v_upper_plenum_m3,
                              0.5 * (d->z_core_top_m + d->z_upper_support_m), 4.0);
    pr->v_uh = pcs_th_add_vol(b, d->v_upper_head_m3,
                              0.5 * (d->z_upper_support_m + d->z_upper_head_top_m), 4.0);
}

static double tube_z(const pcs_primary *pr, uint32_t k, double frac)
{
    const pcs_primary_def *d = &pr->def;
    uint32_t half = pr->ns / 2;
    double dz = (d->z_ubend_top_m - d->z_tube_sheet_m) / half;
    /* up leg k spans [k, k+1] dz; down leg k spans [ns-1-k, ns-k] dz */
    return k < half ? d->z_tube_sheet_m + (k + frac) * dz
                    : d->z_tube_sheet_m + (pr->ns - k - frac) * dz;
}

static double hot_leg_z(const pcs_primary_def *d)
{
    return 0.5 * (d->z_nozzle_m + d->z_sg_plenum_bottom_m);
}

static void loop_volumes(pcs_primary *pr, pcs_th_net_builder *b)
{
    const pcs_primary_def *d = &pr->def;
    double d_i = d->sg_tube_od_m - 2.0 * d->sg_tube_wall_m;
    double z_plenum = 0.5 * (d->z_sg_plenum_bottom_m + d->z_tube_sheet_m);
    pr->v_loop0 = b->nv;
    for (uint32_t l = 0; l < pr->nl; l++) {
        pcs_th_add_vol(b, d->v_hot_leg_m3, hot_leg_z(d), d->d_hot_leg_m);
        pcs_th_add_vol(b, d->v_sg_plenum_m3, z_plenum, 1.0);
        for (uint32_t k = 0; k < pr->ns; k++)
            pcs_th_add_vol(b, d->v_sg_tubes_m3 / pr->ns, tube_z(pr, k, 0.5), d_i);
        pcs_th_add_vol(b, d->v_sg_plenum_m3, z_plenum, 1.0);
        /* crossover: the mean of its top, low point and pump-suction end */
        pcs_th_add_vol(b, d->v_crossover_m3,
                       (d->z_sg_plenum_bottom_m + d->z_loop_seal_m + d->z_pump_suction_m) / 3.0,
                       d->d_crossover_m);
        pcs_th_add_vol(b, d->v_pump_m3, 0.5 * (d->z_pump_suction_m + d->z_nozzle_m),
                       d->d_cold_leg_m);
        pcs_th_add_vol(b, d->v_cold_leg_m3, d->z_nozzle_m, d->d_cold_leg_m);
    }
    pr->per_loop = pr->ns + 6u;
}

static void vessel_junctions(pcs_primary *pr, pcs_th_net_builder *b)
{
    const pcs_primary_def *d = &pr->def;
    double len_dc = d->z_nozzle_m - d->z_downcomer_bottom_m;
    double len_lp = d->z_core_bottom_m - d->z_lower_plenum_bottom_m;
    double len_c = (d->z_core_top_m - d->z_core_bottom_m) / pr->nc;
    double len_up = d->z_upper_support_m - d->z_core_top_m;
    double len_uh = d->z_upper_head_top_m - d->z_upper_support_m;
    double k_grid = d->k_core_grids / pr->nc, r = d->roughness_m;
    pcs_th_add_jun(b, pr->v_dc, pr->v_lp, d->a_downcomer_m2, 0.5 * (len_dc + len_lp),
                   PRI_D_DOWNCOMER, d->k_downcomer_turn, d->z_downcomer_bottom_m, r);
    pr->j_core_in = pcs_th_add_jun(b, pr->v_lp, pr->v_core0, d->a_core_m2, 0.5 * (len_lp + len_c),
                                   d->d_core_m, d->k_core_inlet, d->z_core_bottom_m, 0.0);
    for (uint32_t k = 0; k + 1 < pr->nc; k++)
        pcs_th_add_jun(b, pr->v_core0 + k, pr->v_core0 + k + 1, d->a_core_m2, len_c, d->d_core_m,
                       k_grid, d->z_core_bottom_m + (k + 1) * len_c, 0.0);
    pcs_th_add_jun(b, pr->v_core0 + pr->nc - 1, pr->v_up, d->a_core_m2, 0.5 * (len_c + len_up),
                   d->d_core_m, d->k_core_outlet + k_grid, d->z_core_top_m, 0.0);
    uint32_t j = pcs_th_add_jun(b, pr->v_up, pr->v_uh, d->a_upper_head_m2, 0.5 * (len_up + len_uh),
                                0.0, d->k_upper_head, d->z_upper_support_m, 0.0);
    b->j[j].friction_model = PCS_THNET_FRICTION_NONE;
}

static void loop_junctions(pcs_primary *pr, pcs_th_net_builder *b, uint32_t l)
{
    const pcs_primary_def *d = &pr->def;
    double d_i = d->sg_tube_od_m - 2.0 * d->sg_tube_wall_m;
    double a_t = d->sg_tube_count * pcs_th_circle(d_i), l_t = d->sg_tube_length_m / pr->ns;
    double a_h = pcs_th_circle(d->d_hot_leg_m), a_x = pcs_th_circle(d->d_crossover_m);
    double a_c = pcs_th_circle(d->d_cold_leg_m), r = d->roughness_m;
    uint32_t hot = loop_vol(pr, l, LOOP_HOT), sgi = loop_vol(pr, l, LOOP_SGI);
    uint32_t t0 = loop_vol(pr, l, LOOP_TUBE0);
    pcs_th_add_jun(b, pr->v_up, hot, a_h, 0.5 * d->l_hot_leg_m, d->d_hot_leg_m, d->k_vessel_outlet,
                   d->z_nozzle_m, r);
    pcs_th_add_jun(b, hot, sgi, a_h, 0.5 * d->l_hot_leg_m, d->d_hot_leg_m, d->k_sg_inlet,
                   d->z_sg_plenum_bottom_m, r);
    pr->j_tube[l * pr->ns] =
        pcs_th_add_jun(b, sgi, t0, a_t, 0.5 * l_t, d_i, d->k_tube_inlet, d->z_tube_sheet_m, 0.0);
    for (uint32_t k = 0; k + 1 < pr->ns; k++)
        pr->j_tube[l * pr->ns + k + 1] =
            pcs_th_add_jun(b, t0 + k, t0 + k + 1, a_t, l_t, d_i,
                           k + 1 == pr->ns / 2 ? d->k_tube_bend : 0.0, tube_z(pr, k, 1.0), 0.0);
    pcs_th_add_jun(b, t0 + pr->ns - 1, loop_sgo(pr, l), a_t, 0.5 * l_t, d_i, d->k_tube_outlet,
                   d->z_tube_sheet_m, 0.0);
    pcs_th_add_jun(b, loop_sgo(pr, l), loop_xo(pr, l), a_x, 0.5 * d->l_crossover_m,
                   d->d_crossover_m, d->k_sg_outlet, d->z_sg_plenum_bottom_m, r);
    pcs_th_add_jun(b, loop_xo(pr, l), loop_pump(pr, l), a_x, 0.5 * d->l_crossover_m,
                   d->d_crossover_m, d->k_crossover, d->z_pump_suction_m, r);
    pr->j_pump[l] = pcs_th_add_jun(b, loop_pump(pr, l), loop_cold(pr, l), a_c,
                                   0.5 * d->l_cold_leg_m, d->d_cold_leg_m, 0.0, d->z_nozzle_m, r);
    pcs_th_add_jun(b, loop_cold(pr, l), pr->v_dc, a_c, 0.5 * d->l_cold_leg_m, d->d_cold_leg_m,
                   d->k_vessel_inlet, d->z_nozzle_m, r);
}

/* Initial (p, h) of every volume: T_avg_no_load at the setpoint pressure plus
 * the liquid head below the pressurizer bottom (the first ticks settle the
 * rest); loop flows at the guess. */
static pcs_status initial_states(pcs_primary *pr, pcs_th_net_builder *b)
{
    const pcs_primary_def *d = &pr->def;
    double h0, rho0;
    pcs_status st = pcs_water_h_pt(d->p_setpoint_pa, d->t_avg_no_load_k, &h0);
    if (st == PCS_OK)
        st = pcs_water_rho_pt(d->p_setpoint_pa, d->t_avg_no_load_k, &rho0);
    if (st != PCS_OK)
        return st;
    double z_pzr = b->v[pr->v_pzr].elevation_m;
    for (uint32_t i = 0; i < b->nv; i++) {
        b->v[i].p_pa = d->p_setpoint_pa + rho0 * pr->g * (z_pzr - b->v[i].elevation_m);
        b->v[i].h_j_kg = h0;
    }
    for (uint32_t k = 0; k < b->nj; k++) {
        b->j[k].flow_kg_s = d->loop_flow_guess_kg_s;
        if (k < pr->j_core_in + pr->nc + 1u)
            b->j[k].flow_kg_s = pr->nl * d->loop_flow_guess_kg_s;
    }
    b->j[pr->j_core_in + pr->nc + 1u].flow_kg_s = 0.0; /* upper head */
    b->j[pr->j_surge].flow_kg_s = 0.0;
    return PCS_OK;
}

static pcs_status build_network(pcs_world *w, pcs_primary *pr)
{
    const pcs_primary_def *d = &pr->def;
    uint32_t nv = 2u + pr->nc + 2u + pr->nl * (pr->ns + 6u) + 1u;
    uint32_t nj = pr->nc + 3u + pr->nl * (pr->ns + 7u) + 1u;
    pcs_th_net_builder b = {pcs_world_alloc(w, nv * sizeof *b.v),
                            pcs_world_alloc(w, nj * sizeof *b.j), 0, 0};
    pr->j_pump = pcs_world_alloc(w, pr->nl * sizeof *pr->j_pump);
    pr->j_tube = pcs_world_alloc(w, pr->nl * pr->ns * sizeof *pr->j_tube);
    if (!b.v || !b.j || !pr->j_pump || !pr->j_tube)
        return pcs_error_set(PCS_E_NOMEM, "primary: out of memory");
    vessel_volumes(pr, &b);
    loop_volumes(pr, &b);
    pr->v_pzr = pcs_th_add_vol(&b, d->pzr.volume_m3, hot_leg_z(d) + d->z_pzr_above_tap_m,
                               d->pzr.inner_diameter_m);
    b.v[pr->v_pzr].boundary = 1;
    vessel_junctions(pr, &b);
    for (uint32_t l = 0; l < pr->nl; l++)
        loop_junctions(pr, &b, l);
    pr->j_surge =
        pcs_th_add_jun(&b, loop_vol(pr, 0, LOOP_HOT), pr->v_pzr, pcs_th_circle(d->d_surge_m),
                       d->l_surge_m, d->d_surge_m, d->k_surge, NAN, d->roughness_m);
    pr->nv = b.nv;
    pr->nj = b.nj;
    pcs_status st = pcs_th_net_bounds(w, &b, "primary", &pr->vol_m3, &pr->area_m2);
    if (st != PCS_OK)
        return st;
    pr->j_from = pcs_world_alloc(w, pr->nj * sizeof(uint32_t));
    pr->j_to = pcs_world_alloc(w, pr->nj * sizeof(uint32_t));
    if (!pr->j_from || !pr->j_to)
        return pcs_error_set(PCS_E_NOMEM, "primary: out of memory");
    for (uint32_t k = 0; k < b.nj; k++) {
        pr->j_from[k] = b.j[k].from;
        pr->j_to[k] = b.j[k].to;
    }
    st = initial_states(pr, &b);
    if (st != PCS_OK)
        return st;
    st = pcs_th_net_create(&b, d->table, pr->g, &pr->net);
    if (st != PCS_OK)
        return st;
    return pcs_th_net_own(w, &pr->net);
}

pcs_status pcs_primary_ref_film_props(const pcs_primary_def *d, double *mu, double *k,
                                      double *pr_num)
{
    pcs_water_props wp;
    pcs_status st = pcs_water_props_pt(d->ref_p_pa, d->ref_t_k, &wp);
    if (st == PCS_OK)
        st = pcs_water_viscosity(wp.rho_kg_m3, wp.t_k, mu);
    if (st == PCS_OK)
        st = pcs_water_conductivity(wp.rho_kg_m3, wp.t_k, k);
    if (st == PCS_OK)
        *pr_num = wp.cp_j_kg_k * *mu / *k;
    return st;
}

/* Dittus-Boelter on the tube side at the reference state (header). */
static pcs_status sg_constants(pcs_world *w, pcs_primary *pr)
{
    (void)w; /* a build step (pcs_primary_add) */
    const pcs_primary_def *d = &pr->def;
    double mu, k, pr_num;
    pcs_status st = pcs_primary_ref_film_props(d, &mu, &k, &pr_num);
    if (st != PCS_OK)
        return st;
    double d_i = d->sg_tube_od_m - 2.0 * d->sg_tube_wall_m, d_o = d->sg_tube_od_m;
    double a_t = d->sg_tube_count * pcs_th_circle(d_i);
    pr->sg_c_flow = 0.023 * (k / d_i) * pcs_pow(pr_num, 0.4) * pcs_pow(d_i / (a_t * mu), 0.8);
    pr->sg_h_laminar = 4.36 * k / d_i;
    pr->sg_r_fixed =
        d_o * pcs_log(d_o / d_i) / (2.0 * d->sg_wall_k_w_mk) + 1.0 / d->sg_h_secondary_w_m2k;
    pr->sg_area_per_vol = d->sg_tube_count * PCS_TH_PI * d_o * d->sg_tube_length_m / pr->ns;
    return PCS_OK;
}

/* ---- stores ------------------------------------------------------------------ */

static pcs_status make_stores(pcs_world *w, pcs_primary *pr)
{
    const pcs_store_kind state = PCS_STORE_STATE, scratch = PCS_STORE_SCRATCH;
    pcs_primary_stores *s = &pr->s;
    const pcs_th_store stores[] = {
        PCS_TH_NET_STORE_ROWS(pr->nv, pr->nj, s),
        {"pump_speed", pr->nl, state, &s->pump_speed},
        {"pump_on", pr->nl, state, &s->pump_on},
        {"pzr", PZR_N, state, &s->pzr},
        {"core_heat", pr->nc, state, &s->core_heat},
        {"controls", PCS_PRIMARY_CTL_SG_PRESSURE + pr->nl, state, &s->controls},
        {"out", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_TAIL_COUNT, scratch, &s->out},
        {"boron", pr->nv, state, &s->boron},
        {"metal", pr->n_metal, state, &s->metal},
    };
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s.pri", pr->unit);
    return pcs_th_stores_register(w, prefix, stores, sizeof stores / sizeof stores[0]);
}

static pcs_status initial_store_values(pcs_world *w, pcs_primary *pr)
{
    const pcs_primary_def *d = &pr->def;
    primary_view v;
    pcs_primary_view(w, pr, &v);
    pcs_status st = pcs_thnet_state_init(pr->net, &v.st);
    if (st != PCS_OK)
        return st;
    for (uint32_t l = 0; l < pr->nl; l++) {
        v.speed[l] = d->pump.rated_speed_rad_s;
        v.pump_on[l] = 1.0;
        v.controls[PCS_PRIMARY_CTL_SG_PRESSURE + l] = d->sg_secondary_p_pa;
    }
    v.controls[PCS_PRIMARY_CTL_CHARGING] = d->letdown_nominal_kg_s;
    v.controls[PCS_PRIMARY_CTL_LETDOWN] = d->letdown_nominal_kg_s;
    v.controls[PCS_PRIMARY_CTL_CHARGING_BORON] = d->boron_ppm;
    pr->last.charging_kg_s = pr->last.letdown_kg_s = d->letdown_nominal_kg_s;
    for (uint32_t i = 0; i < pr->nv; i++)
        v.boron[i] = d->boron_ppm;
    pcs_primary_metal_fill(pr, &v, d->t_avg_no_load_k); /* the water's start temperature */
    pcs_pressurizer_state ps;
    st = pcs_pressurizer_init(&pr->pzr_def, d->p_setpoint_pa, d->pzr_level_no_load, &ps);
    if (st != PCS_OK)
        return st;
    pcs_primary_pzr_put(&ps, v.pzr);
    st = pcs_primary_pzr_boundary(pr, &v);
    if (st == PCS_OK)
        pcs_primary_outputs(pr, &v);
    return st;
}

/* ---- load check ---------------------------------------------------------------- */

/* Every volume's mass and energy, then every volume's properties, then the
 * flows: the first failure is reported. */
static pcs_status check_network(const pcs_world *w, const pcs_primary *pr, const pcs_load_view *v)
{
    const pcs_primary_stores *s = &pr->s;
    const uint32_t ids[PCS_TH_NET_STORES] = PCS_TH_NET_STORE_IDS(s);
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < pr->nv; i++)
        st = pcs_th_check_mass_energy(w, ids, v, i, pr->vol_m3[i]);
    for (uint32_t i = 0; st == PCS_OK && i < pr->nv; i++)
        st = pcs_th_check_volume_props(w, pr->net, ids, v, i);
    return st == PCS_OK ? pcs_th_check_flows(w, ids, v, pr->nj, pr->area_m2) : st;
}

static pcs_status check_flag(const pcs_world *w, uint32_t store, const double *x, uint32_t i,
                             const char *field)
{
    pcs_status st = pcs_th_chk(w, store, x, i, field, 0.0, 1.0, 0);
    if (st == PCS_OK && x[i] != 0.0 && x[i] != 1.0)
        st = pcs_error_set(PCS_E_CORRUPT, "store '%s' element %u (%s): value %.17g is not 0 or 1",
                           pcs_store_name(w, store), i, field, x[i]);
    return st;
}

/* A unit removed whole (the station's unit_remove, re-applied from the
 * log before the checks) retired this primary's system and removed its
 * pumps' targets, and kept pump_on as it was: nothing to compare. */
static int primary_retired(const pcs_world *w, const pcs_primary *pr)
{
    char name[64];
    snprintf(name, sizeof name, "%s.primary", pr->unit);
    for (uint32_t i = 0; i < pcs_schedule_system_count(w); i++) {
        pcs_schedule_system s;
        if (pcs_schedule_system_at(w, i, &s) == PCS_OK && strcmp(s.name, name) == 0)
            return 0;
    }
    return 1;
}

/* A pump's removal is both in the structure log (re-applied before the
 * checks: its target unpublished) and in pump_on (-1): a save whose two
 * disagree (crafted: checksums prove only what was written) would run the
 * pump in the loop with no target, or keep it out with its target, whose
 * next pump_install then fails its tick. */
static pcs_status check_pump_structure(const pcs_world *w, const pcs_primary *pr, const double *on,
                                       uint32_t l)
{
    char name[64];
    pcs_target_id id;
    if (primary_retired(w, pr))
        return PCS_OK;
    snprintf(name, sizeof name, "%s.pump%u", pr->unit, l + 1);
    int published = pcs_command_target_find(w, name, &id) == PCS_OK;
    int removed = on[l] == PCS_PRIMARY_PUMP_REMOVED;
    if (published != removed)
        return PCS_OK;
    return pcs_error_set(PCS_E_CORRUPT,
                         "store '%s' element %u (pump state): value %.17g (%s), but the save's "
                         "structure leaves %s %s (its structure log and its stores disagree)",
                         pcs_store_name(w, pr->s.pump_on), l, on[l],
                         removed ? "removed" : "installed", name,
                         published ? "installed" : "removed");
}

static pcs_status check_pumps_inputs(const pcs_world *w, const pcs_primary *pr,
                                     const pcs_load_view *v)
{
    const pcs_primary_stores *s = &pr->s;
    const double *sp = pcs_load_view_store(v, s->pump_speed),
                 *on = pcs_load_view_store(v, s->pump_on);
    const double *q = pcs_load_view_store(v, s->core_heat),
                 *c = pcs_load_view_store(v, s->controls);
    double top = 1.5 * pr->def.pump.rated_speed_rad_s;
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < pr->nl; l++) {
        st = pcs_th_chk(w, s->pump_speed, sp, l, "pump speed rad/s", -top, top, 0);
        if (st == PCS_OK && on[l] != PCS_PRIMARY_PUMP_REMOVED)
            st = check_flag(w, s->pump_on, on, l, "motor on");
        if (st == PCS_OK && on[l] == PCS_PRIMARY_PUMP_REMOVED && sp[l] != 0.0)
            st = pcs_error_set(PCS_E_CORRUPT,
                               "store '%s' element %u (pump speed rad/s): value %.17g for a "
                               "removed pump (pump_on -1): must be 0",
                               pcs_store_name(w, s->pump_speed), l, sp[l]);
        if (st == PCS_OK)
            st = check_pump_structure(w, pr, on, l);
        if (st == PCS_OK)
            st = pcs_th_chk(w, s->controls, c, PCS_PRIMARY_CTL_SG_PRESSURE + l,
                            "SG secondary pressure Pa", 1e3, 22e6, 0);
    }
    for (uint32_t k = 0; st == PCS_OK && k < pr->nc; k++)
        st = pcs_th_chk(w, s->core_heat, q, k, "core heat W", 0.0, 10.0 * pr->def.rated_power_w, 0);
    for (uint32_t k = 0; st == PCS_OK && k < PCS_PRIMARY_CTL_CHARGING; k++)
        st = pcs_th_chk(w, s->controls, c, k, "heater or spray demand", 0.0, 1.0, 0);
    for (uint32_t k = PCS_PRIMARY_CTL_CHARGING; st == PCS_OK && k < PCS_PRIMARY_CTL_CHARGING_BORON;
         k++)
        st = pcs_th_chk(w, s->controls, c, k, "CVCS flow kg/s", 0.0, PRI_CVCS_FLOW_MAX, 0);
    if (st == PCS_OK)
        st = pcs_th_chk(w, s->controls, c, PCS_PRIMARY_CTL_CHARGING_BORON, "charging boron ppm",
                        0.0, PRI_BORON_MAX_PPM, 0);
    return st;
}

static pcs_status check_pzr(const pcs_world *w, const pcs_primary *pr, const pcs_load_view *v)
{
    uint32_t id = pr->s.pzr;
    const double *z = pcs_load_view_store(v, id);
    pcs_status st = pcs_th_chk(w, id, z, PZR_M_LIQ, "liquid mass kg", 0.0,
                               PCS_TH_RHO_MAX * pr->def.pzr.volume_m3, 0);
    if (st == PCS_OK)
        st = pcs_th_chk(w, id, z, PZR_M_VAP, "vapour mass kg", 0.0,
                        PCS_TH_RHO_MAX * pr->def.pzr.volume_m3, 0);
    if (st == PCS_OK && !(z[PZR_M_LIQ] + z[PZR_M_VAP] > 0.0))
        st = pcs_error_set(PCS_E_CORRUPT,
                           "store '%s' element 0 (liquid mass kg): value %.17g with vapour %.17g: "
                           "the total must be positive",
                           pcs_store_name(w, id), z[PZR_M_LIQ], z[PZR_M_VAP]);
    if (st == PCS_OK)
        st =
            pcs_th_chk(w, id, z, PZR_U_LIQ, "liquid energy J", 0.0, PCS_TH_U_MAX * z[PZR_M_LIQ], 0);
    if (st == PCS_OK)
        st =
            pcs_th_chk(w, id, z, PZR_U_VAP, "vapour energy J", 0.0, PCS_TH_U_MAX * z[PZR_M_VAP], 0);
    if (st == PCS_OK)
        st = pcs_th_chk(w, id, z, PZR_P, "pressure Pa", 0.1e6, 21e6, 0);
    if (st == PCS_OK)
        st = pcs_th_chk(w, id, z, PZR_H_LIQ, "liquid enthalpy J/kg", 0.0, PCS_TH_H_MAX, 0);
    if (st == PCS_OK)
        st = pcs_th_chk(w, id, z, PZR_H_VAP, "vapour enthalpy J/kg", 0.0, PCS_TH_H_MAX, 0);
    if (st == PCS_OK)
        st = check_flag(w, id, z, PZR_PORV, "PORV open");
    return st;
}

static pcs_status check_boron(const pcs_world *w, const pcs_primary *pr, const pcs_load_view *v)
{
    const double *b = pcs_load_view_store(v, pr->s.boron);
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < pr->nv; i++)
        st = pcs_th_chk(w, pr->s.boron, b, i,
                        i == pr->v_pzr ? "pressurizer liquid boron ppm" : "boron ppm", 0.0,
                        PRI_BORON_MAX_PPM, 0);
    return st;
}

static pcs_status primary_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_primary *pr = ctx;
    pcs_status st = check_network(w, pr, v);
    if (st == PCS_OK)
        st = check_pumps_inputs(w, pr, v);
    if (st == PCS_OK)
        st = check_pzr(w, pr, v);
    if (st == PCS_OK)
        st = check_boron(w, pr, v);
    if (st == PCS_OK)
        st = pcs_primary_metal_check(w, pr, pcs_load_view_store(v, pr->s.metal));
    return st;
}

/* ---- commands, channels ------------------------------------------------------ */

static pcs_status on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_primary *pr = c->ctx;
    double *on = pcs_store_data(w, pr->s.pump_on);
    const double *speed = pcs_store_data(w, pr->s.pump_speed);
    int start = c->op == PCS_PRIMARY_OP_PUMP_START;
    if (on[c->element] == PCS_PRIMARY_PUMP_REMOVED)
        return pcs_error_set(PCS_E_STATE, "%s.pump%u is removed: no motor to %s", pr->unit,
                             c->element + 1, start ? "start" : "trip");
    on[c->element] = start ? 1.0 : 0.0;
    pcs_event_emit(w, start ? PCS_EV_PRIMARY_PUMP_STARTED : PCS_EV_PRIMARY_PUMP_TRIPPED,
                   PCS_PRIMARY_PUMP_SUBJECT(pr->def.unit_index, c->element), speed[c->element], 0,
                   0, 0);
    return PCS_OK;
}

pcs_status pcs_primary_pump_target(pcs_world *w, pcs_primary *pr, uint32_t l)
{
    char name[64];
    snprintf(name, sizeof name, "%s.pump%u", pr->unit, l + 1);
    pcs_command_target_def d = {.name = name,
                                .family = pr->cmd_family,
                                .ctx = pr,
                                .element = l,
                                .ops = (1u << PCS_PRIMARY_OP_PUMP_TRIP) |
                                       (1u << PCS_PRIMARY_OP_PUMP_START)};
    return pcs_command_target_register(w, &d, NULL);
}

static pcs_status register_commands(pcs_world *w, pcs_primary *pr)
{
    pcs_status st = pcs_command_family_share(w, PCS_PRIMARY_COMMANDS, PCS_PRIMARY_OP_COUNT,
                                             on_command, &pr->cmd_family);
    for (uint32_t l = 0; st == PCS_OK && l < pr->nl; l++)
        st = pcs_primary_pump_target(w, pr, l);
    return st;
}

pcs_status pcs_primary_pump_channel(pcs_world *w, pcs_primary *pr, uint32_t l)
{
    const pcs_th_channel_row pump[] = {{"pump%u.speed", "rad/s", 0}};
    return pcs_th_element_channels(w, pr->unit, pr->s.pump_speed, pump, 1, l, l);
}

static pcs_status register_channels(pcs_world *w, pcs_primary *pr)
{
    const pcs_th_channel_row unit_channels[] = {
        {"rcs.pressure", "Pa", PCS_PRIMARY_OUT_RCS_PRESSURE},
        {"core.flow", "kg/s", PCS_PRIMARY_OUT_CORE_FLOW},
        {"core.t_inlet", "K", PCS_PRIMARY_OUT_T_INLET},
        {"core.t_outlet", "K", PCS_PRIMARY_OUT_T_OUTLET},
        {"pzr.pressure", "Pa", PCS_PRIMARY_OUT_PZR_PRESSURE},
        {"pzr.level", "%", PCS_PRIMARY_OUT_PZR_LEVEL},
        {"pzr.surge", "kg/s", PCS_PRIMARY_OUT_SURGE},
        {"rcs.t_avg", "K", PCS_PRIMARY_OUT_T_AVG},
        {"core.boron", "ppm", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_CORE_BORON},
        {"pzr.boron", "ppm", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_PZR_BORON},
        {"cvcs.charging", "kg/s", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_CHARGING},
        {"cvcs.letdown", "kg/s", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_LETDOWN},
        {"pzr.spray", "kg/s", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_SPRAY},
        {"pzr.heaters", "W", PCS_PRIMARY_OUT_TAIL(pr->nl) + PCS_PRIMARY_OUT_HEATERS},
    };
    pcs_status st = pcs_th_channels_register(w, pr->unit, pr->s.out, unit_channels,
                                             sizeof unit_channels / sizeof unit_channels[0]);
    const pcs_th_channel_row per_loop[] = {
        {"loop%u.t_hot", "K", PCS_PRIMARY_OUT_T_HOT},
        {"loop%u.t_cold", "K", PCS_PRIMARY_OUT_T_COLD},
        {"loop%u.flow", "kg/s", PCS_PRIMARY_OUT_LOOP_FLOW},
        {"sg%u.heat", "W", PCS_PRIMARY_OUT_SG_HEAT},
    };
    for (uint32_t l = 0; st == PCS_OK && l < pr->nl; l++) {
        st = pcs_th_element_channels(w, pr->unit, pr->s.out, per_loop,
                                     sizeof per_loop / sizeof per_loop[0], l,
                                     PCS_PRIMARY_OUT_LOOPS + PCS_PRIMARY_OUT_PER_LOOP * l);
        if (st == PCS_OK)
            st = pcs_primary_pump_channel(w, pr, l);
    }
    return st;
}

static pcs_status register_system(pcs_world *w, pcs_primary *pr)
{
    const pcs_primary_stores *s = &pr->s;
    uint32_t reads[] = {s->core_heat, s->controls, s->pump_on, pr->def.sg_tube_t_store};
    uint32_t writes[] = {s->mass,       s->energy,  s->flow,
                         s->p,          s->h,       s->t,
                         s->rho,        s->quality, s->void_fraction,
                         s->pump_speed, s->pzr,     s->out,
                         s->boron,      s->metal,   pr->def.sg_tube_heat_store};
    /* the steam side's stores only when the tubes see them */
    uint32_t extra = pr->def.sg_model == PCS_PRIMARY_SG_TUBE_STORES ? 1u : 0u;
    return pcs_th_system(w, pr->unit, "primary", PCS_STAGE_HYDRAULICS, pcs_primary_system, pr,
                         reads, sizeof reads / sizeof reads[0] - 1u + extra, writes,
                         sizeof writes / sizeof writes[0] - 1u + extra, primary_load_check);
}

static pcs_status alloc_scratch(pcs_world *w, pcs_primary *pr)
{
    pr->heat_w = pcs_world_alloc(w, pr->nv * sizeof(double));
    pr->pump_dp = pcs_world_alloc(w, pr->nj * sizeof(double));
    pr->sg_q = pcs_world_alloc(w, pr->nl * sizeof(double));
    pr->t_prev = pcs_world_alloc(w, pr->nv * sizeof(double));
    pr->h_sweep = pcs_world_alloc(w, pr->nv * sizeof(double));
    pr->src_kg_s = pcs_world_alloc(w, pr->nv * sizeof(double));
    pr->src_h = pcs_world_alloc(w, pr->nv * sizeof(double));
    pr->src_c = pcs_world_alloc(w, pr->nv * sizeof(double));
    if (!pr->heat_w || !pr->pump_dp || !pr->sg_q || !pr->t_prev || !pr->h_sweep || !pr->src_kg_s ||
        !pr->src_h || !pr->src_c)
        return pcs_error_set(PCS_E_NOMEM, "primary: out of memory");
    return PCS_OK;
}

/* The steam side's stores (sg_model PCS_PRIMARY_SG_TUBE_STORES): float64,
 * one element per SG tube volume. */
static pcs_status check_tube_stores(pcs_world *w, pcs_primary *pr)
{
    const pcs_primary_def *d = &pr->def;
    if (d->sg_model != PCS_PRIMARY_SG_TUBE_STORES)
        return PCS_OK;
    size_t want = (size_t)d->n_loops * d->n_sg_tubes * sizeof(double);
    uint32_t ids[2] = {d->sg_tube_t_store, d->sg_tube_heat_store};
    const char *names[2] = {"sg_tube_t_store", "sg_tube_heat_store"};
    for (int i = 0; i < 2; i++)
        if (ids[i] >= pcs_store_count(w) || !pcs_store_is_f64(w, ids[i]) ||
            pcs_store_bytes(w, ids[i]) != want)
            return pcs_error_set(PCS_E_INVAL,
                                 "primary %s: %s = %u is not a float64 store of n_loops x "
                                 "n_sg_tubes = %u elements",
                                 d->unit_name, names[i], ids[i], d->n_loops * d->n_sg_tubes);
    return PCS_OK;
}

pcs_status pcs_primary_add(pcs_world *w, const pcs_primary_def *def, pcs_primary **out)
{
    if (!w || !def || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_add: NULL argument");
    pcs_status st = pcs_primary_def_validate(def);
    if (st != PCS_OK)
        return st;
    pcs_primary *pr = pcs_world_alloc(w, sizeof *pr);
    if (!pr)
        return pcs_error_set(PCS_E_NOMEM, "pcs_primary_add: %s", pcs_last_error());
    pr->def = *def;
    snprintf(pr->unit, sizeof pr->unit, "%s", def->unit_name);
    pr->def.unit_name = pr->unit;
    pr->nl = def->n_loops;
    pr->nc = def->n_core;
    pr->ns = def->n_sg_tubes;
    pr->g = PCS_THNET_G;
    pr->pzr_def = def->pzr;
    if (!pr->pzr_def.table) /* the pressurizer's states on the network's table */
        pr->pzr_def.table = def->table;
    pr->pzr_height_m = def->pzr.volume_m3 / pcs_th_circle(def->pzr.inner_diameter_m);
    static pcs_status (*const steps[])(pcs_world *, pcs_primary *) = {
        check_tube_stores,       build_network,  alloc_scratch,        sg_constants,
        pcs_primary_metal_build, make_stores,    initial_store_values, register_commands,
        register_channels,       register_system};
    for (size_t i = 0; st == PCS_OK && i < sizeof steps / sizeof steps[0]; i++)
        st = steps[i](w, pr);
    if (st == PCS_OK)
        *out = pr;
    return st;
}

pcs_primary_stores pcs_primary_store_ids(const pcs_primary *pr)
{
    return pr->s;
}

uint32_t pcs_primary_n_volumes(const pcs_primary *pr)
{
    return pr ? pr->nv : 0;
}

uint32_t pcs_primary_n_junctions(const pcs_primary *pr)
{
    return pr ? pr->nj : 0;
}

const pcs_primary_def *pcs_primary_def_get(const pcs_primary *pr)
{
    return pr ? &pr->def : NULL;
}

uint32_t pcs_primary_volume(const pcs_primary *pr, pcs_primary_part part, uint32_t loop)
{
    if (!pr || loop >= pr->nl)
        return UINT32_MAX;
    switch (part) {
    case PCS_PRIMARY_DOWNCOMER:
        return pr->v_dc;
    case PCS_PRIMARY_LOWER_PLENUM:
        return pr->v_lp;
    case PCS_PRIMARY_CORE_FIRST:
        return pr->v_core0;
    case PCS_PRIMARY_UPPER_PLENUM:
        return pr->v_up;
    case PCS_PRIMARY_UPPER_HEAD:
        return pr->v_uh;
    case PCS_PRIMARY_HOT_LEG:
        return loop_vol(pr, loop, LOOP_HOT);
    case PCS_PRIMARY_SG_INLET:
        return loop_vol(pr, loop, LOOP_SGI);
    case PCS_PRIMARY_SG_TUBE_FIRST:
        return loop_vol(pr, loop, LOOP_TUBE0);
    case PCS_PRIMARY_SG_OUTLET:
        return loop_sgo(pr, loop);
    case PCS_PRIMARY_CROSSOVER:
        return loop_xo(pr, loop);
    case PCS_PRIMARY_PUMP:
        return loop_pump(pr, loop);
    case PCS_PRIMARY_COLD_LEG:
        return loop_cold(pr, loop);
    case PCS_PRIMARY_PRESSURIZER:
        return pr->v_pzr;
    }
    return UINT32_MAX;
}

void pcs_primary_totals(pcs_world *w, const pcs_primary *pr, double *mass_kg, double *energy_j)
{
    primary_view v;
    pcs_primary_view(w, pr, &v);
    double m = 0.0, e = 0.0;
    pcs_thnet_totals(pr->net, &v.st, &m, &e);
    m += v.pzr[PZR_M_LIQ] + v.pzr[PZR_M_VAP];
    e += v.pzr[PZR_U_LIQ] + v.pzr[PZR_U_VAP];
    e += pcs_primary_metal_energy(w, pr);
    pcs_th_totals_out(m, e, mass_kg, energy_j);
}

pcs_status pcs_primary_set_boron(pcs_world *w, pcs_primary *pr, double ppm)
{
    if (!w || !pr)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_set_boron: NULL argument");
    if (!(ppm >= 0.0 && ppm <= PRI_BORON_MAX_PPM))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_primary_set_boron: %s: boron %g ppm is outside [0, %g]", pr->unit,
                             ppm, PRI_BORON_MAX_PPM);
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_primary_set_boron: %s: the world has already ticked",
                             pr->unit);
    primary_view v;
    pcs_primary_view(w, pr, &v);
    for (uint32_t i = 0; i < pr->nv; i++)
        v.boron[i] = ppm;
    v.controls[PCS_PRIMARY_CTL_CHARGING_BORON] = ppm;
    pcs_primary_outputs(pr, &v);
    return PCS_OK;
}

double pcs_primary_boron_mass(pcs_world *w, const pcs_primary *pr)
{
    if (!w || !pr)
        return 0.0;
    primary_view v;
    pcs_primary_view(w, pr, &v);
    double b = 0.0;
    for (uint32_t i = 0; i < pr->nv; i++)
        if (i != pr->v_pzr)
            b += v.boron[i] * v.st.mass_kg[i];
    b += v.boron[pr->v_pzr] * v.pzr[PZR_M_LIQ];
    return 1e-6 * b;
}
