/**
 * @file th_build.c
 * @brief The network builder, network creation, state view and volume
 *        load check the primary and the steam side share, and their defs'
 *        field tables (th_build.h).
 */
#include <string.h>

#include "pcsim/param_range.h"

#include "physics/thermohydraulics/models/th_build.h"

static double field_at(const void *def, size_t offset)
{
    double v;
    memcpy(&v, (const char *)def + offset, sizeof v);
    return v;
}

void pcs_th_fields_default(void *def, const pcs_th_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        memcpy((char *)def + f[i].offset, &f[i].dflt, sizeof f[i].dflt);
}

pcs_status pcs_th_fields_check(const void *def, const pcs_th_field *f, size_t n, const char *prefix)
{
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < n; i++) {
        pcs_param_range r = {f[i].name, field_at(def, f[i].offset), f[i].lo, f[i].hi, f[i].open_lo};
        if (f[i].lo_at)
            r.lo += field_at(def, f[i].lo_at);
        if (f[i].hi_at)
            r.hi += field_at(def, f[i].hi_at);
        st = pcs_param_ranges_check(prefix, &r, 1);
    }
    return st;
}

void pcs_th_totals_out(double m, double e, double *mass_kg, double *energy_j)
{
    if (mass_kg)
        *mass_kg = m;
    if (energy_j)
        *energy_j = e;
}

void *pcs_th_model_alloc(pcs_world *w, size_t bytes, const char *who)
{
    void *m = pcs_world_alloc(w, bytes);
    if (!m) {
        pcs_error_set(PCS_E_NOMEM, "%s: out of memory", who);
        return NULL;
    }
    memset(m, 0, bytes);
    return m;
}

uint32_t pcs_th_add_vol(pcs_th_net_builder *b, double vol, double z, double diam)
{
    pcs_thnet_volume_def *v = &b->v[b->nv];
    pcs_thnet_volume_default(v);
    v->volume_m3 = vol;
    v->elevation_m = z;
    v->diameter_m = diam;
    return b->nv++;
}

uint32_t pcs_th_add_jun(pcs_th_net_builder *b, uint32_t from, uint32_t to, double a, double l,
                        double d, double k, double z, double rough)
{
    pcs_thnet_junction_def *j = &b->j[b->nj];
    pcs_thnet_junction_default(j);
    j->from = from;
    j->to = to;
    j->area_m2 = a;
    j->length_m = l;
    j->diameter_m = d;
    j->form_loss = k;
    j->elevation_m = z;
    j->roughness_m = rough;
    return b->nj++;
}

double pcs_th_circle(double d)
{
    return 0.25 * PCS_TH_PI * d * d;
}

pcs_status pcs_th_net_create(const pcs_th_net_builder *b, const pcs_water_ph_table *table, double g,
                             pcs_thnet **out)
{
    pcs_thnet_def nd;
    pcs_thnet_default(&nd);
    nd.volumes = b->v;
    nd.n_volumes = b->nv;
    nd.junctions = b->j;
    nd.n_junctions = b->nj;
    nd.gravity_m_s2 = g;
    if (table)
        nd.eos = pcs_thnet_eos_table(table);
    return pcs_thnet_create(&nd, out);
}

pcs_status pcs_th_net_bounds(pcs_world *w, const pcs_th_net_builder *b, const char *who,
                             double **vol_m3, double **area_m2)
{
    double *v = pcs_world_alloc(w, b->nv * sizeof *v), *a = pcs_world_alloc(w, b->nj * sizeof *a);
    if (!v || !a)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory", who);
    for (uint32_t i = 0; i < b->nv; i++)
        v[i] = b->v[i].volume_m3;
    for (uint32_t k = 0; k < b->nj; k++)
        a[k] = b->j[k].area_m2;
    *vol_m3 = v;
    *area_m2 = a;
    return PCS_OK;
}

static void destroy_net(void *ctx)
{
    pcs_thnet **net = ctx;
    pcs_thnet_destroy(*net);
    *net = NULL;
}

pcs_status pcs_th_net_own(pcs_world *w, pcs_thnet **net)
{
    return pcs_world_on_destroy(w, destroy_net, net);
}

void pcs_th_state_view(pcs_world *w, const uint32_t *ids, pcs_thnet_state *st)
{
    double **arrays[PCS_TH_NET_STORES] = {&st->mass_kg,   &st->energy_j, &st->flow_kg_s,
                                          &st->p_pa,      &st->h_j_kg,   &st->t_k,
                                          &st->rho_kg_m3, &st->quality,  &st->void_fraction};
    for (int i = 0; i < PCS_TH_NET_STORES; i++)
        *arrays[i] = pcs_store_data(w, ids[i]);
}

pcs_status pcs_th_chk(const pcs_world *w, uint32_t store, const double *x, uint32_t i,
                      const char *field, double lo, double hi, unsigned flags)
{
    return pcs_load_check_f64_from(pcs_store_name(w, store), field, x, i, 1, 1, lo, hi, flags);
}

/* The staged (M, U) of volume @p i has a water state: the tick's first
 * property update needs one, and range checks alone let a save through whose
 * density and energy no (p, h) in the property domain gives. */
static pcs_status check_volume_state(const pcs_world *w, const pcs_thnet *net, const uint32_t *ids,
                                     const pcs_load_view *v, uint32_t i)
{
    const double *m = pcs_load_view_store(v, ids[0]), *u = pcs_load_view_store(v, ids[1]);
    const double *p = pcs_load_view_store(v, ids[3]);
    if (pcs_thnet_volume_check(net, i, m[i], u[i], p[i]) == PCS_OK)
        return PCS_OK;
    return pcs_error_set(PCS_E_CORRUPT,
                         "store '%s' element %u (mass kg) %.17g with store '%s' element %u "
                         "(internal energy J) %.17g: no water state has this density and "
                         "internal energy (%s)",
                         pcs_store_name(w, ids[0]), i, m[i], pcs_store_name(w, ids[1]), i, u[i],
                         pcs_last_error());
}

pcs_status pcs_th_check_mass_energy(const pcs_world *w, const uint32_t *ids, const pcs_load_view *v,
                                    uint32_t i, double vol_m3)
{
    const double *m = pcs_load_view_store(v, ids[0]);
    pcs_status st =
        pcs_th_chk(w, ids[0], m, i, "mass kg", PCS_TH_RHO_MIN * vol_m3, PCS_TH_RHO_MAX * vol_m3, 0);
    if (st == PCS_OK)
        st = pcs_th_chk(w, ids[1], pcs_load_view_store(v, ids[1]), i, "internal energy J", 0.0,
                        PCS_TH_U_MAX * m[i], 0);
    return st;
}

pcs_status pcs_th_check_flows(const pcs_world *w, const uint32_t *ids, const pcs_load_view *v,
                              uint32_t nj, const double *area_m2)
{
    const double *f = pcs_load_view_store(v, ids[2]);
    pcs_status st = PCS_OK;
    for (uint32_t k = 0; st == PCS_OK && k < nj; k++) {
        double top = PCS_TH_RHO_MAX * area_m2[k] * 1000.0;
        st = pcs_th_chk(w, ids[2], f, k, "mass flow kg/s", -top, top, 0);
    }
    return st;
}

pcs_status pcs_th_check_volume_props(const pcs_world *w, const pcs_thnet *net, const uint32_t *ids,
                                     const pcs_load_view *v, uint32_t i)
{
    const struct {
        const char *field;
        double lo, hi;
        unsigned flags;
    } rows[] = {
        {"pressure Pa", 1e3, 31e6, 0},
        {"enthalpy J/kg", 0.0, PCS_TH_H_MAX, 0},
        {"temperature K", 273.15, 1073.15, 0},
        {"density kg/m3", 0.0, PCS_TH_RHO_MAX, PCS_CHECK_LO_OPEN},
        {"quality", 0.0, 1.0, 0},
        {"void fraction", 0.0, 1.0, 0},
    };
    pcs_status st = PCS_OK;
    for (size_t r = 0; st == PCS_OK && r < sizeof rows / sizeof rows[0]; r++) {
        uint32_t id = ids[3 + r];
        st = pcs_th_chk(w, id, pcs_load_view_store(v, id), i, rows[r].field, rows[r].lo, rows[r].hi,
                        rows[r].flags);
    }
    return st == PCS_OK ? check_volume_state(w, net, ids, v, i) : st;
}
