/**
 * @file secondary_build.c
 * @brief The steam side's build: defaults, checks, the network from the
 *        [TYP] SG secondary geometry (nodalisation in pcsim/secondary.h),
 *        the derived valve throat areas, the start state, stores, channels
 *        and the load check of every saved store.
 *
 * Throat areas (each a choked HEM junction, pcsim/thnet.h): A = W_rated /
 * Gc(p_rated, h_g(p_rated)) with Gc the IF97 critical flux of saturated
 * steam: the turbine n_sg rated_steam / turbine_rated_opening at
 * turbine_rated_p_pa, the dumps dump_valves x dump_valve_kg_s at
 * dump_rating_p_pa, each restrictor restrictor_kg_s at restrictor_p_pa, each
 * safety bank safety_capacity x rated_steam at safety_full_pa, each
 * atmospheric relief valve (SG PORV) porv_capacity x rated_steam at
 * porv_rating_p_pa.
 *
 * Load check (secondary_load_check), on the staged values: per volume mass
 * in [1e-3 V, 1100 V] kg, internal energy in [0, 4.5e6 M] J, p in [1 kPa,
 * 31 MPa], h in [0, 4.2e6] J/kg, T in [273.15, 1073.15] K, rho in (0, 1100],
 * quality and void in [0, 1] (the primary's bounds: the property domain),
 * mass and energy together a water state (pcs_thnet_volume_check);
 * per junction |W| <= 1100 A 1000 kg/s; tube heat |Q| <= 1e10 W per tube
 * volume (three times a whole SG's rated heat); tube temperature in
 * [273.15, 1073.15] K; turbine, dump, MSIV and PORV openings in [0, 1]; feed flow
 * in [0, 10 rated_steam_kg_s].
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/command.h"
#include "pcsim/persist.h"
#include "pcsim/water.h"
#include "physics/thermohydraulics/models/secondary_internal.h"
#include "physics/thermohydraulics/models/th_build.h"
#include "physics/thermohydraulics/models/th_register.h"

#define SEC_Q_MAX 1e10

/* ---- defaults and checks --------------------------------------------------- */

/* The def's double fields, their defaults and ranges (th_build.h), in the
 * order the checks run. */
#define SEC_FIELD(f) PCS_TH_FIELD(pcs_secondary_def, f)
#define SEC_AT(f) PCS_TH_AT(pcs_secondary_def, f)
_Static_assert(offsetof(pcs_secondary_def, unit_name) == 0, "an _at of 0 names no double field");

/* The geometry (the dome's four sections as [TYP] lists them, each a volume
 * and a height; the carry-under level inside its first section), then the
 * steam lines, valves, condenser, feed and start state. */
static const pcs_th_field fields[] = {
    {SEC_FIELD(z_riser_bottom_m), 5.489 + 0.3048 * (8.736 - 6.965), -100.0, 100.0, 0, 0, 0},
    {SEC_FIELD(h_bundle_m), 0.3048 * 31.884, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(v_bundle_m3), 0.028316846592 * 54.893 * 31.884, 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(a_bundle_m2), 0.09290304 * 54.893, 1e-3, 1e3, 0, 0, 0},
    {SEC_FIELD(d_bundle_m), 0.3048 * 0.12613, 1e-3, 10.0, 0, 0, 0},
    {SEC_FIELD(a_support_m2), 0.09290304 * 17.0, 1e-3, 1e3, 0, 0, 0},
    {SEC_FIELD(k_support), 2.0, 0.0, 1e3, 0, 0, 0},
    {SEC_FIELD(v_upper_riser_m3), 0.028316846592 * (398.4 + 51.313 * 8.125), 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(h_upper_riser_m), 0.3048 * (5.208 + 8.125), 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(d_upper_riser_m), 0.3048 * 4.667, 1e-3, 10.0, 0, 0, 0},
    {SEC_FIELD(a_separator_m2), 0.09290304 * 14.7, 1e-3, 1e3, 0, 0, 0},
    {SEC_FIELD(k_separator), 1.0, 0.0, 1e3, 0, 0, 0},
    {SEC_FIELD(v_dome_m3[0]), 0.028316846592 * (103.543 * 6.865), 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(h_dome_m[0]), 0.3048 * 6.865, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(v_dome_m3[1]), 0.028316846592 * 530.0, 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(h_dome_m[1]), 0.3048 * 3.0, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(v_dome_m3[2]), 0.028316846592 * 970.0, 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(h_dome_m[2]), 0.3048 * 6.729, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(v_dome_m3[3]), 0.028316846592 * 423.3, 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(h_dome_m[3]), 0.3048 * 7.271, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(a_dome_bottom_m2), 0.09290304 * 103.543, 1e-3, 1e3, 0, 0, 0},
    {SEC_FIELD(v_dc_upper_m3), 0.028316846592 * 458.7, 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(h_dc_upper_m), 0.3048 * 8.769, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(a_dc_m2), 0.09290304 * 7.09, 1e-3, 1e3, 0, 0, 0},
    {SEC_FIELD(k_dc), 0.04, 0.0, 1e3, 0, 0, 0},
    {SEC_FIELD(h_dc_lower_m), 0.3048 * 29.583, 0.1, 50.0, 0, 0, 0},
    {SEC_FIELD(d_dc_m), 0.3048 * 0.469, 1e-3, 10.0, 0, 0, 0},
    {SEC_FIELD(a_dc_exit_m2), 0.09290304 * 2.4, 1e-3, 1e3, 0, 0, 0},
    {SEC_FIELD(k_dc_exit), 1.0, 0.0, 1e3, 0, 0, 0},
    {SEC_FIELD(nr_lower_m), 0.0, 0.0, 20.0, 0, 0, 0},
    {SEC_FIELD(nr_span_m), 0.3048 * (6.865 + 3.0), 0.1, 20.0, 0, 0, 0},
    {SEC_FIELD(nr_initial), 44.0, 0.0, 100.0, 0, 0, 0},
    {SEC_FIELD(carry_under_m), 0.30, 0.0, 0.0, 0, 0, SEC_AT(h_dome_m[0])},
    {SEC_FIELD(d_steam_line_m), 0.70, 0.05, 5.0, 0, 0, 0},
    {SEC_FIELD(l_steam_line_m), 50.0, 1.0, 1000.0, 0, 0, 0},
    {SEC_FIELD(k_steam_line), 1.5, 0.0, 1e3, 0, 0, 0},
    {SEC_FIELD(restrictor_kg_s), 1220.0, 1.0, 1e5, 0, 0, 0},
    {SEC_FIELD(restrictor_p_pa), 6.89e6, 0.2e6, 16e6, 0, 0, 0},
    {SEC_FIELD(k_restrictor), 0.5, 0.0, 1e3, 0, 0, 0},
    {SEC_FIELD(v_header_m3), 10.0, 0.1, 1e4, 0, 0, 0},
    {SEC_FIELD(rated_steam_kg_s), 480.4, 1.0, 1e4, 0, 0, 0},
    {SEC_FIELD(turbine_rated_p_pa), 6.89e6, 0.2e6, 16e6, 0, 0, 0},
    {SEC_FIELD(turbine_rated_opening), 0.9, 0.05, 1.0, 0, 0, 0},
    {SEC_FIELD(dump_valve_kg_s), 113.0, 0.0, 1e4, 0, 0, 0},
    {SEC_FIELD(dump_valves), 12.0, 0.0, 100.0, 0, 0, 0},
    {SEC_FIELD(dump_rating_p_pa), 7.630e6, 0.2e6, 16e6, 0, 0, 0},
    {SEC_FIELD(condenser_p_pa), 5.0e3, 1e3, 1e5, 0, 0, 0},
    {SEC_FIELD(safety_open_pa), 8.168e6, 0.2e6, 16e6, 0, 0, 0},
    {SEC_FIELD(safety_full_pa), 8.582e6, 1.0, 16e6, 0, SEC_AT(safety_open_pa), 0},
    {SEC_FIELD(safety_capacity), 1.09, 0.0, 10.0, 0, 0, 0},
    {SEC_FIELD(atmosphere_p_pa), 101325.0, 1e3, 1e6, 0, 0, 0},
    {SEC_FIELD(porv_capacity), 0.10, 0.0, 1.0, 0, 0, 0},
    {SEC_FIELD(porv_rating_p_pa), 7.630e6, 0.2e6, 16e6, 0, 0, 0},
    {SEC_FIELD(feed_t_k), 493.43, 273.16, 600.0, 0, 0, 0},
    {SEC_FIELD(afw_t_k), 310.93, 273.16, 600.0, 0, 0, 0},
    {SEC_FIELD(initial_p_pa), 6.89e6, 0.2e6, 16e6, 0, 0, 0},
    {SEC_FIELD(initial_heat_w), 3.411e9 / 4.0, 0.0, 1e10, 0, 0, 0},
    {SEC_FIELD(initial_circulation), 4.0, 1.0, 100.0, 0, 0, 0},
};

pcs_status pcs_secondary_default(pcs_secondary_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_default: def is NULL");
    memset(d, 0, sizeof *d);
    d->unit_name = "u1";
    d->n_sg = 4;
    d->n_bundle = 4;
    pcs_th_fields_default(d, fields, sizeof fields / sizeof fields[0]);
    return PCS_OK;
}

pcs_status pcs_secondary_def_validate(const pcs_secondary_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_def_validate: def is NULL");
    size_t n = d->unit_name ? strlen(d->unit_name) : 0;
    if (n < 1 || n > 15)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_def.unit_name: length %zu not in [1, 15]",
                             n);
    if (d->n_sg < 1 || d->n_sg > PCS_SECONDARY_MAX_SG)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_def.n_sg: %u is outside [1, %u]", d->n_sg,
                             PCS_SECONDARY_MAX_SG);
    if (d->n_bundle < 1 || d->n_bundle > PCS_SECONDARY_MAX_BUNDLE)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_def.n_bundle: %u is outside [1, %u]",
                             d->n_bundle, PCS_SECONDARY_MAX_BUNDLE);
    return pcs_th_fields_check(d, fields, sizeof fields / sizeof fields[0], "pcs_secondary_def.");
}

/* ---- saturation and throats ----------------------------------------------- */

pcs_status pcs_secondary_sat(double p, double *hf, double *hg, double *rf, double *rg)
{
    pcs_thnet_sat s;
    pcs_status st = pcs_thnet_sat_if97(NULL, p, &s);
    if (st != PCS_OK)
        return st;
    *hf = s.h_f_j_kg;
    *hg = s.h_g_j_kg;
    if (rf)
        *rf = s.rho_f_kg_m3;
    if (rg)
        *rg = s.rho_g_kg_m3;
    return PCS_OK;
}

/* Throat area that passes w kg/s of saturated steam at p, choked (file comment). */
static pcs_status throat(double w, double p, double *a)
{
    double hf, hg;
    pcs_thnet_choke c;
    pcs_status st = pcs_secondary_sat(p, &hf, &hg, NULL, NULL);
    if (st == PCS_OK)
        st = pcs_thnet_choke_if97(NULL, p, hg, &c);
    if (st != PCS_OK)
        return st;
    *a = w / c.g_kg_m2s;
    return PCS_OK;
}

static pcs_status throats(pcs_world *w, pcs_secondary *sc)
{
    (void)w; /* a build step (pcs_secondary_add) */
    const pcs_secondary_def *d = &sc->def;
    pcs_status st = throat(sc->nsg * d->rated_steam_kg_s / d->turbine_rated_opening,
                           d->turbine_rated_p_pa, &sc->a_turbine);
    if (st == PCS_OK)
        st = throat(fmax(d->dump_valves * d->dump_valve_kg_s, 1e-3), d->dump_rating_p_pa,
                    &sc->a_dump);
    if (st == PCS_OK)
        st = throat(d->restrictor_kg_s, d->restrictor_p_pa, &sc->a_restrictor);
    if (st == PCS_OK)
        st = throat(fmax(d->safety_capacity * d->rated_steam_kg_s, 1e-3), d->safety_full_pa,
                    &sc->a_safety);
    if (st == PCS_OK)
        st = throat(fmax(d->porv_capacity * d->rated_steam_kg_s, 1e-3), d->porv_rating_p_pa,
                    &sc->a_porv);
    return st;
}

/* ---- the network ------------------------------------------------------------ */

/* A junction with the default (area-derived) diameter and smooth walls. */
static uint32_t add_jun(pcs_th_net_builder *b, uint32_t from, uint32_t to, double a, double l,
                        double k, double z)
{
    return pcs_th_add_jun(b, from, to, a, l, 0.0, k, z, 0.0);
}

static double dome_height(const pcs_secondary_def *d)
{
    return d->h_dome_m[0] + d->h_dome_m[1] + d->h_dome_m[2] + d->h_dome_m[3];
}

static double dome_volume(const pcs_secondary_def *d)
{
    return d->v_dome_m3[0] + d->v_dome_m3[1] + d->v_dome_m3[2] + d->v_dome_m3[3];
}

/* The dome's volume centroid above its bottom (sections as prisms). */
static double dome_centroid(const pcs_secondary_def *d)
{
    double z = 0.0, m = 0.0;
    for (int i = 0; i < 4; i++) {
        m += d->v_dome_m3[i] * (z + 0.5 * d->h_dome_m[i]);
        z += d->h_dome_m[i];
    }
    return m / dome_volume(d);
}

double pcs_secondary_level(const pcs_secondary_def *d, double void_fraction)
{
    double vl = (1.0 - fmin(fmax(void_fraction, 0.0), 1.0)) * dome_volume(d), z = 0.0;
    for (int i = 0; i < 4; i++) {
        if (vl <= d->v_dome_m3[i])
            return z + d->h_dome_m[i] * vl / d->v_dome_m3[i];
        vl -= d->v_dome_m3[i];
        z += d->h_dome_m[i];
    }
    return z;
}

/* The liquid volume below height zl above the dome bottom (inverse of the above). */
static double dome_liquid_volume(const pcs_secondary_def *d, double zl)
{
    double v = 0.0, z = 0.0;
    for (int i = 0; i < 4; i++) {
        double top = z + d->h_dome_m[i];
        if (zl <= top)
            return v + d->v_dome_m3[i] * fmax(zl - z, 0.0) / d->h_dome_m[i];
        v += d->v_dome_m3[i];
        z = top;
    }
    return v;
}

static void sg_volumes(pcs_secondary *sc, pcs_th_net_builder *b)
{
    const pcs_secondary_def *d = &sc->def;
    double dz = d->h_bundle_m / sc->nb, zr = d->z_riser_bottom_m;
    for (uint32_t k = 0; k < sc->nb; k++)
        pcs_th_add_vol(b, d->v_bundle_m3 / sc->nb, zr + (k + 0.5) * dz, d->d_bundle_m);
    pcs_th_add_vol(b, d->v_upper_riser_m3, zr + d->h_bundle_m + 0.5 * d->h_upper_riser_m,
                   d->d_upper_riser_m);
    pcs_th_add_vol(b, dome_volume(d), sc->z_dome_bottom + dome_centroid(d), 3.0);
    pcs_th_add_vol(b, d->v_dc_upper_m3, sc->z_dome_bottom - 0.5 * d->h_dc_upper_m, 1.0);
    pcs_th_add_vol(b, d->a_dc_m2 * d->h_dc_lower_m, zr + 0.5 * d->h_dc_lower_m, d->d_dc_m);
    pcs_th_add_vol(b, pcs_th_circle(d->d_steam_line_m) * d->l_steam_line_m,
                   sc->z_dome_bottom + dome_height(d), d->d_steam_line_m);
}

static void sg_junctions(pcs_secondary *sc, pcs_th_net_builder *b, uint32_t l)
{
    const pcs_secondary_def *d = &sc->def;
    double dz = d->h_bundle_m / sc->nb, zr = d->z_riser_bottom_m, hd = dome_height(d);
    double z_top = zr + d->h_bundle_m + d->h_upper_riser_m, a_sl = pcs_th_circle(d->d_steam_line_m);
    uint32_t dc = sec_vol(sc, l, SV_DC_LOWER), sl = sec_vol(sc, l, SV_STEAM_LINE);
    uint32_t dome = sec_vol(sc, l, SV_DOME);
    add_jun(b, dc, sec_bundle(sc, l, 0), d->a_dc_exit_m2, 0.5 * (d->h_dc_lower_m + dz),
            d->k_dc_exit, zr);
    for (uint32_t k = 1; k < sc->nb; k++)
        add_jun(b, sec_bundle(sc, l, k - 1), sec_bundle(sc, l, k), d->a_support_m2, dz,
                d->k_support, zr + k * dz);
    add_jun(b, sec_bundle(sc, l, sc->nb - 1), sec_vol(sc, l, SV_UPPER_RISER), d->a_bundle_m2,
            0.5 * (dz + d->h_upper_riser_m), 0.0, zr + d->h_bundle_m);
    add_jun(b, sec_vol(sc, l, SV_UPPER_RISER), dome, d->a_separator_m2,
            0.5 * (d->h_upper_riser_m + hd), d->k_separator, z_top);
    uint32_t j = add_jun(b, dome, sec_vol(sc, l, SV_DC_UPPER), d->a_dome_bottom_m2,
                         0.5 * (hd + d->h_dc_upper_m), 0.0, sc->z_dome_bottom);
    b->j[j].offtake = PCS_THNET_OFFTAKE_LIQUID;
    /* carry-under below carry_under_m: the band is that level's share of
       the dome's volume (pcsim/secondary.h, Separation) */
    b->j[j].offtake_band = dome_liquid_volume(d, d->carry_under_m) / dome_volume(d);
    add_jun(b, sec_vol(sc, l, SV_DC_UPPER), dc, d->a_dc_m2,
            0.5 * (d->h_dc_upper_m + d->h_dc_lower_m), d->k_dc, zr + d->h_dc_lower_m);
    j = add_jun(b, dome, sl, sc->a_restrictor, 1.0, d->k_restrictor, sc->z_dome_bottom + hd);
    b->j[j].choked = 1;
    b->j[j].offtake = PCS_THNET_OFFTAKE_VAPOUR;
    b->j[j].friction_model = PCS_THNET_FRICTION_NONE;
    j = add_jun(b, sl, sc->v_header, a_sl, d->l_steam_line_m, d->k_steam_line, NAN);
    b->j[j].roughness_m = 4.6e-5;
    j = add_jun(b, sl, sc->v_atmosphere, sc->a_safety, 1.0, 0.0, NAN);
    b->j[j].choked = 1;
    b->j[j].friction_model = PCS_THNET_FRICTION_NONE;
    b->j[j].valve = 0.0;
    /* the break: choked to the atmosphere, up to the line's bore, shut until
     * a steam_line_break command opens it (its flow is bounded upstream by
     * the restrictor's 1220 kg/s, [HRTD] 7.1) */
    sc->a_break = a_sl;
    j = add_jun(b, sl, sc->v_atmosphere, a_sl, 1.0, 0.0, NAN);
    b->j[j].choked = 1;
    b->j[j].friction_model = PCS_THNET_FRICTION_NONE;
    b->j[j].valve = 0.0;
    /* the atmospheric relief valve (SG PORV): choked to the atmosphere,
     * upstream of the MSIV ([HRTD] 7.1), opened by its controller
     * (pcsim/sg_porv.h) through the porv store */
    j = add_jun(b, sl, sc->v_atmosphere, sc->a_porv, 1.0, 0.0, NAN);
    b->j[j].choked = 1;
    b->j[j].friction_model = PCS_THNET_FRICTION_NONE;
    b->j[j].valve = 0.0;
}

/* The start state's estimate (pcs_secondary_add): heat Q per SG, steam
 * W_s = Q / (h_g - h_feed), recirculation W_r = CR W_s. */
static pcs_status sg_start(pcs_secondary *sc, pcs_th_net_builder *b, uint32_t l)
{
    const pcs_secondary_def *d = &sc->def;
    double p0 = d->initial_p_pa, hf, hg, rf, rg, hfd;
    pcs_status st = pcs_secondary_sat(p0, &hf, &hg, &rf, &rg);
    if (st == PCS_OK)
        st = pcs_water_h_pt(p0, d->feed_t_k, &hfd);
    if (st != PCS_OK)
        return st;
    double q = d->initial_heat_w, ws = q / (hg - hfd), wr = d->initial_circulation * ws;
    double hdc = hf - (ws / wr) * (hf - hfd), g = PCS_THNET_G;
    double zl = d->nr_lower_m + 0.01 * d->nr_initial * d->nr_span_m;
    double vl = dome_liquid_volume(d, zl), vd = dome_volume(d);
    double md = rf * vl + rg * (vd - vl), xd = rg * (vd - vl) / md;
    for (uint32_t k = 0; k < sc->nb; k++) {
        pcs_thnet_volume_def *v = &b->v[sec_bundle(sc, l, k)];
        v->h_j_kg = fmin(hdc + q * (k + 0.5) / sc->nb / wr, hg);
    }
    b->v[sec_vol(sc, l, SV_UPPER_RISER)].h_j_kg = fmin(hdc + q / wr, hg);
    b->v[sec_vol(sc, l, SV_DOME)].h_j_kg = hf + xd * (hg - hf);
    b->v[sec_vol(sc, l, SV_DC_UPPER)].h_j_kg = hdc;
    b->v[sec_vol(sc, l, SV_DC_LOWER)].h_j_kg = hdc;
    b->v[sec_vol(sc, l, SV_STEAM_LINE)].h_j_kg = hg;
    double zb = sc->z_dome_bottom;
    for (uint32_t i = l * sc->per_sg_v; i < (l + 1) * sc->per_sg_v; i++)
        b->v[i].p_pa = p0 + rf * g * fmax(zb - b->v[i].elevation_m, 0.0);
    for (uint32_t k = 0; k <= sc->nb + SJ_DC; k++)
        b->j[l * sc->per_sg_j + k].flow_kg_s = wr;
    b->j[sec_jun(sc, l, SJ_DOME_DC)].flow_kg_s = wr - ws;
    b->j[sec_jun(sc, l, SJ_DC)].flow_kg_s = wr;
    b->j[sec_jun(sc, l, SJ_RESTRICTOR)].flow_kg_s = ws;
    b->j[sec_jun(sc, l, SJ_MSIV)].flow_kg_s = ws;
    b->j[sec_jun(sc, l, SJ_SAFETY)].flow_kg_s = 0.0;
    b->j[sec_jun(sc, l, SJ_BREAK)].flow_kg_s = 0.0;
    b->j[sec_jun(sc, l, SJ_PORV)].flow_kg_s = 0.0;
    return PCS_OK;
}

static pcs_status unit_parts(pcs_secondary *sc, pcs_th_net_builder *b)
{
    const pcs_secondary_def *d = &sc->def;
    double hf, hg, z = sc->z_dome_bottom + dome_height(d);
    pcs_status st = pcs_secondary_sat(d->initial_p_pa, &hf, &hg, NULL, NULL);
    if (st != PCS_OK)
        return st;
    sc->v_header = pcs_th_add_vol(b, d->v_header_m3, z, d->d_steam_line_m);
    b->v[sc->v_header].p_pa = d->initial_p_pa;
    b->v[sc->v_header].h_j_kg = hg;
    /* the boundaries hold saturated steam (they only take flow) */
    double hc = 0.0, hfa = 0.0; /* set only on success; an error returns below */
    sc->v_condenser = pcs_th_add_vol(b, 1.0, z, 1.0);
    st = pcs_secondary_sat(d->condenser_p_pa, &hfa, &hc, NULL, NULL);
    b->v[sc->v_condenser].boundary = 1;
    b->v[sc->v_condenser].p_pa = d->condenser_p_pa;
    b->v[sc->v_condenser].h_j_kg = hc;
    sc->v_atmosphere = pcs_th_add_vol(b, 1.0, z, 1.0);
    if (st == PCS_OK)
        st = pcs_secondary_sat(d->atmosphere_p_pa, &hfa, &hc, NULL, NULL);
    b->v[sc->v_atmosphere].boundary = 1;
    b->v[sc->v_atmosphere].p_pa = d->atmosphere_p_pa;
    b->v[sc->v_atmosphere].h_j_kg = hc;
    return st;
}

static pcs_status build_network(pcs_world *w, pcs_secondary *sc)
{
    const pcs_secondary_def *d = &sc->def;
    sc->per_sg_v = sc->nb + SV_COUNT;
    sc->per_sg_j = sc->nb + SJ_COUNT;
    uint32_t nv = sc->nsg * sc->per_sg_v + 3u, nj = sc->nsg * sc->per_sg_j + 2u;
    pcs_th_net_builder b = {pcs_world_alloc(w, nv * sizeof *b.v),
                            pcs_world_alloc(w, nj * sizeof *b.j), 0, 0};
    if (!b.v || !b.j)
        return pcs_error_set(PCS_E_NOMEM, "secondary: out of memory");
    sc->z_dome_bottom = d->z_riser_bottom_m + d->h_bundle_m + d->h_upper_riser_m - d->h_dome_m[0];
    for (uint32_t l = 0; l < sc->nsg; l++)
        sg_volumes(sc, &b);
    pcs_status st = unit_parts(sc, &b);
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++)
        sg_junctions(sc, &b, l);
    if (st != PCS_OK)
        return st;
    sc->j_turbine = add_jun(&b, sc->v_header, sc->v_condenser, sc->a_turbine, 1.0, 0.0, NAN);
    b.j[sc->j_turbine].choked = 1;
    b.j[sc->j_turbine].friction_model = PCS_THNET_FRICTION_NONE;
    b.j[sc->j_turbine].valve = d->turbine_rated_opening;
    sc->j_dump = add_jun(&b, sc->v_header, sc->v_condenser, sc->a_dump, 1.0, 0.0, NAN);
    b.j[sc->j_dump].choked = 1;
    b.j[sc->j_dump].friction_model = PCS_THNET_FRICTION_NONE;
    b.j[sc->j_dump].valve = 0.0;
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++)
        st = sg_start(sc, &b, l);
    if (st != PCS_OK)
        return st;
    double ws = 0.0;
    for (uint32_t l = 0; l < sc->nsg; l++)
        ws += b.j[sec_jun(sc, l, SJ_MSIV)].flow_kg_s;
    b.j[sc->j_turbine].flow_kg_s = ws;
    sc->nv = b.nv;
    sc->nj = b.nj;
    st = pcs_th_net_bounds(w, &b, "secondary", &sc->vol_m3, &sc->area_m2);
    if (st != PCS_OK)
        return st;
    st = pcs_th_net_create(&b, d->table, PCS_THNET_G, &sc->net);
    if (st != PCS_OK)
        return pcs_error_set(st, "secondary %s: %s", sc->unit, pcs_last_error());
    return pcs_th_net_own(w, &sc->net);
}

/* ---- stores --------------------------------------------------------------------- */

static pcs_status make_stores(pcs_world *w, pcs_secondary *sc)
{
    const pcs_store_kind state = PCS_STORE_STATE, scratch = PCS_STORE_SCRATCH;
    pcs_secondary_stores *s = &sc->s;
    const pcs_th_store stores[] = {
        PCS_TH_NET_STORE_ROWS(sc->nv, sc->nj, s),
        {"tube_heat", sc->nsg * sc->nt, state, &s->tube_heat},
        {"tube_t", sc->nsg * sc->nt, state, &s->tube_t},
        {"turbine_valve", 1, state, &s->turbine_valve},
        {"dump_demand", 1, state, &s->dump},
        {"feed", sc->nsg, state, &s->feed},
        {"afw", sc->nsg, state, &s->afw},
        {"msiv", sc->nsg, state, &s->msiv},
        {"feed_t", 1, state, &s->feed_t},
        {"break", sc->nsg, state, &s->brk},
        {"porv", sc->nsg, state, &s->porv},
        {"out", PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * sc->nsg, scratch, &s->out},
    };
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s.sec", sc->unit);
    return pcs_th_stores_register(w, prefix, stores, sizeof stores / sizeof stores[0]);
}

static pcs_status initial_store_values(pcs_world *w, pcs_secondary *sc)
{
    secondary_view v;
    pcs_secondary_view(w, sc, &v);
    pcs_status st = pcs_thnet_state_init(sc->net, &v.st);
    if (st != PCS_OK)
        return st;
    const pcs_secondary_def *d = &sc->def;
    *v.turbine_valve = d->turbine_rated_opening;
    *v.dump = 0.0;
    *v.feed_t = d->feed_t_k;
    for (uint32_t l = 0; l < sc->nsg; l++) {
        v.feed[l] = v.st.flow_kg_s[sec_jun(sc, l, SJ_MSIV)];
        v.afw[l] = 0.0;
        v.msiv[l] = 1.0;
        v.brk[l] = 0.0;
        v.porv[l] = 0.0;
        for (uint32_t k = 0; k < sc->nt; k++)
            v.tube_heat[l * sc->nt + k] = d->initial_heat_w / sc->nt;
    }
    return pcs_secondary_outputs(sc, &v);
}

/* ---- load check ------------------------------------------------------------------- */

/* Per volume its mass and energy, then its properties; then the flows and
 * the tube-side heat and temperature: the first failure is reported. */
static pcs_status check_network_tubes(const pcs_world *w, const pcs_secondary *sc,
                                      const pcs_load_view *v)
{
    const pcs_secondary_stores *s = &sc->s;
    const uint32_t ids[PCS_TH_NET_STORES] = PCS_TH_NET_STORE_IDS(s);
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < sc->nv; i++) {
        st = pcs_th_check_mass_energy(w, ids, v, i, sc->vol_m3[i]);
        if (st == PCS_OK)
            st = pcs_th_check_volume_props(w, sc->net, ids, v, i);
    }
    if (st == PCS_OK)
        st = pcs_th_check_flows(w, ids, v, sc->nj, sc->area_m2);
    const double *q = pcs_load_view_store(v, s->tube_heat);
    const double *t = pcs_load_view_store(v, s->tube_t);
    for (uint32_t k = 0; st == PCS_OK && k < sc->nsg * sc->nt; k++) {
        st = pcs_th_chk(w, s->tube_heat, q, k, "tube heat W", -SEC_Q_MAX, SEC_Q_MAX, 0);
        if (st == PCS_OK)
            st = pcs_th_chk(w, s->tube_t, t, k, "tube-side secondary temperature K", 273.15,
                            1073.15, 0);
    }
    return st;
}

static pcs_status check_controls(const pcs_world *w, const pcs_secondary *sc,
                                 const pcs_load_view *v)
{
    const pcs_secondary_stores *s = &sc->s;
    const double feed_max = 10.0 * sc->def.rated_steam_kg_s;
    const struct {
        uint32_t id, n;
        const char *field;
        double hi;
    } inputs[] = {
        {s->turbine_valve, 1, "turbine valve opening", 1.0},
        {s->dump, 1, "dump demand", 1.0},
        {s->feed, sc->nsg, "main feed flow kg/s", feed_max},
        {s->afw, sc->nsg, "auxiliary feed flow kg/s", feed_max},
        {s->msiv, sc->nsg, "MSIV opening", 1.0},
        {s->brk, sc->nsg, "steam line break area m2", sc->a_break},
        {s->porv, sc->nsg, "atmospheric relief valve (SG PORV) opening", 1.0},
    };
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < sizeof inputs / sizeof inputs[0]; i++)
        st = pcs_load_check_f64(pcs_store_name(w, inputs[i].id), inputs[i].field,
                                pcs_load_view_store(v, inputs[i].id), inputs[i].n, 1, 0.0,
                                inputs[i].hi, 0);
    if (st == PCS_OK) /* the range feed_t_k's own check allows */
        st = pcs_load_check_f64(pcs_store_name(w, s->feed_t), "main feed temperature K",
                                pcs_load_view_store(v, s->feed_t), 1, 1, 273.16, 600.0, 0);
    return st;
}

static pcs_status secondary_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_secondary *sc = ctx;
    pcs_status st = check_network_tubes(w, sc, v);
    if (st == PCS_OK)
        st = check_controls(w, sc, v);
    return st;
}

/* ---- channels, system --------------------------------------------------------------- */

static pcs_status register_channels(pcs_world *w, pcs_secondary *sc)
{
    const pcs_th_channel_row unit_channels[] = {
        {"steam.header_pressure", "Pa", PCS_SECONDARY_OUT_HEADER_P},
        {"turbine.steam_flow", "kg/s", PCS_SECONDARY_OUT_TURBINE_FLOW},
        {"dump.flow", "kg/s", PCS_SECONDARY_OUT_DUMP_FLOW},
    };
    pcs_status st = pcs_th_channels_register(w, sc->unit, sc->s.out, unit_channels,
                                             sizeof unit_channels / sizeof unit_channels[0]);
    const pcs_th_channel_row per_sg[] = {
        {"sg%u.pressure", "Pa", PCS_SECONDARY_OUT_P},
        {"sg%u.steam_flow", "kg/s", PCS_SECONDARY_OUT_STEAM},
        {"sg%u.feed_flow", "kg/s", PCS_SECONDARY_OUT_FEED},
        {"sg%u.nr_level", "%", PCS_SECONDARY_OUT_NR},
        {"sg%u.level", "m", PCS_SECONDARY_OUT_LEVEL},
        {"sg%u.safety_flow", "kg/s", PCS_SECONDARY_OUT_SAFETY},
        {"sg%u.heat_in", "W", PCS_SECONDARY_OUT_HEAT},
        {"sg%u.afw_flow", "kg/s", PCS_SECONDARY_OUT_AFW},
        {"sg%u.break_flow", "kg/s", PCS_SECONDARY_OUT_BREAK},
        {"sg%u.porv_flow", "kg/s", PCS_SECONDARY_OUT_PORV},
    };
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++)
        st = pcs_th_element_channels(w, sc->unit, sc->s.out, per_sg,
                                     sizeof per_sg / sizeof per_sg[0], l,
                                     PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l);
    return st;
}

static pcs_status register_system(pcs_world *w, pcs_secondary *sc)
{
    const pcs_secondary_stores *s = &sc->s;
    uint32_t reads[] = {s->tube_heat, s->turbine_valve, s->dump, s->feed, s->afw,
                        s->msiv,      s->feed_t,        s->brk,  s->porv};
    uint32_t writes[] = {s->mass, s->energy,  s->flow,          s->p,      s->h,  s->t,
                         s->rho,  s->quality, s->void_fraction, s->tube_t, s->out};
    return pcs_th_system(w, sc->unit, "secondary", PCS_STAGE_MACHINES, pcs_secondary_system, sc,
                         reads, sizeof reads / sizeof reads[0], writes,
                         sizeof writes / sizeof writes[0], secondary_load_check);
}

/* steam_line_break on "uN.sgK": the break's area, m2, in [0, a_break]
 * (0 closes it). Applied at stage 1; the secondary reads it at MACHINES. */
static pcs_status on_command(pcs_world *w, const pcs_command_call *call)
{
    pcs_secondary *sc = call->ctx;
    double a = call->cmd->args[0];
    if (call->op != PCS_SECONDARY_OP_STEAM_LINE_BREAK)
        return pcs_error_set(PCS_E_INVAL, "%s: secondary op %u unknown", call->target_name,
                             call->op);
    if (!(a >= 0.0 && a <= sc->a_break))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: steam_line_break area %g m2 out of range [0, %g] (the steam "
                             "line's bore)",
                             call->target_name, a, sc->a_break);
    double *brk = pcs_store_data(w, sc->s.brk);
    brk[call->element] = a;
    return PCS_OK;
}

static pcs_status register_commands(pcs_world *w, pcs_secondary *sc)
{
    uint32_t family;
    pcs_status st = pcs_command_family_share(w, PCS_SECONDARY_COMMANDS, PCS_SECONDARY_OP_COUNT,
                                             on_command, &family);
    return st == PCS_OK ? pcs_th_element_targets(w, family, sc, sc->unit, "sg", sc->nsg) : st;
}

static pcs_status alloc_scratch(pcs_world *w, pcs_secondary *sc)
{
    sc->heat_w = pcs_world_alloc(w, sc->nv * sizeof(double));
    sc->valve = pcs_world_alloc(w, sc->nj * sizeof(double));
    sc->src_kg_s = pcs_world_alloc(w, sc->nv * sizeof(double));
    sc->src_h = pcs_world_alloc(w, sc->nv * sizeof(double));
    if (!sc->heat_w || !sc->valve || !sc->src_kg_s || !sc->src_h)
        return pcs_error_set(PCS_E_NOMEM, "secondary: out of memory");
    memset(sc->heat_w, 0, sc->nv * sizeof(double));
    memset(sc->src_kg_s, 0, sc->nv * sizeof(double));
    memset(sc->src_h, 0, sc->nv * sizeof(double));
    return PCS_OK;
}

pcs_status pcs_secondary_add(pcs_world *w, const pcs_secondary_def *def, pcs_secondary **out)
{
    if (!w || !def || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_add: NULL argument");
    pcs_status st = pcs_secondary_def_validate(def);
    if (st != PCS_OK)
        return st;
    pcs_secondary *sc = pcs_th_model_alloc(w, sizeof *sc, "pcs_secondary_add");
    if (!sc)
        return PCS_E_NOMEM;
    sc->def = *def;
    snprintf(sc->unit, sizeof sc->unit, "%s", def->unit_name);
    sc->def.unit_name = sc->unit;
    sc->nsg = def->n_sg;
    sc->nb = def->n_bundle;
    sc->nt = 2u * def->n_bundle;
    static pcs_status (*const steps[])(pcs_world *, pcs_secondary *) = {
        throats,           build_network,  alloc_scratch, make_stores, initial_store_values,
        register_channels, register_system};
    for (size_t i = 0; st == PCS_OK && i < sizeof steps / sizeof steps[0]; i++)
        st = steps[i](w, sc);
    if (st == PCS_OK)
        st = register_commands(w, sc);
    if (st == PCS_OK)
        *out = sc;
    return st;
}

pcs_secondary_stores pcs_secondary_store_ids(const pcs_secondary *sc)
{
    return sc->s;
}

pcs_secondary_balance pcs_secondary_last_balance(const pcs_secondary *sc)
{
    return sc->bal;
}

uint32_t pcs_secondary_n_volumes(const pcs_secondary *sc)
{
    return sc ? sc->nv : 0;
}

uint32_t pcs_secondary_n_junctions(const pcs_secondary *sc)
{
    return sc ? sc->nj : 0;
}

const pcs_secondary_def *pcs_secondary_def_get(const pcs_secondary *sc)
{
    return sc ? &sc->def : NULL;
}

uint32_t pcs_secondary_volume(const pcs_secondary *sc, pcs_secondary_part part, uint32_t sg)
{
    if (!sc || sg >= sc->nsg)
        return UINT32_MAX;
    switch (part) {
    case PCS_SECONDARY_BUNDLE_FIRST:
        return sec_bundle(sc, sg, 0);
    case PCS_SECONDARY_UPPER_RISER:
        return sec_vol(sc, sg, SV_UPPER_RISER);
    case PCS_SECONDARY_DOME:
        return sec_vol(sc, sg, SV_DOME);
    case PCS_SECONDARY_DC_UPPER:
        return sec_vol(sc, sg, SV_DC_UPPER);
    case PCS_SECONDARY_DC_LOWER:
        return sec_vol(sc, sg, SV_DC_LOWER);
    case PCS_SECONDARY_STEAM_LINE:
        return sec_vol(sc, sg, SV_STEAM_LINE);
    case PCS_SECONDARY_HEADER:
        return sc->v_header;
    }
    return UINT32_MAX;
}

void pcs_secondary_totals(pcs_world *w, const pcs_secondary *sc, double *mass_kg, double *energy_j)
{
    secondary_view v;
    pcs_secondary_view(w, sc, &v);
    double m = 0.0, e = 0.0;
    pcs_thnet_totals(sc->net, &v.st, &m, &e);
    pcs_th_totals_out(m, e, mass_kg, energy_j);
}
