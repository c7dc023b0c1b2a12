/**
 * @file coolant.c
 * @brief The linear-in-temperature coolant property set (coolant.h).
 */
#include "pcsim/coolant.h"

#include <stddef.h>
#include <string.h>

#include "pcsim/math.h"

/* The set's fields, as messages name them, with their defaults: the secant
 * through IF97 values at 565.1 K and 599.0 K, 15.51 MPa (coolant.h). One
 * table fills the defaults and lists the fields that must be finite. */
typedef struct coolant_field {
    const char *name;
    size_t at; /* offsetof(pcs_coolant_linear, <name>): every field is a double */
    double dflt;
} coolant_field;

static const coolant_field fields[] = {
    {"t_ref_k", offsetof(pcs_coolant_linear, t_ref_k), 582.05},
    {"t_min_k", offsetof(pcs_coolant_linear, t_min_k), 540.0},
    {"t_max_k", offsetof(pcs_coolant_linear, t_max_k), 618.0},
    {"cp_ref", offsetof(pcs_coolant_linear, cp_ref), 5873.19},
    {"dcp_dt", offsetof(pcs_coolant_linear, dcp_dt), 34.9714},
    {"k_ref", offsetof(pcs_coolant_linear, k_ref), 0.546900},
    {"dk_dt", offsetof(pcs_coolant_linear, dk_dt), -1.73757e-3},
    {"mu_ref", offsetof(pcs_coolant_linear, mu_ref), 8.48272e-5},
    {"dmu_dt", offsetof(pcs_coolant_linear, dmu_dt), -4.06466e-7},
    {"rho_ref", offsetof(pcs_coolant_linear, rho_ref), 703.298},
    {"drho_dt", offsetof(pcs_coolant_linear, drho_dt), -2.31375},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])
_Static_assert(sizeof(pcs_coolant_linear) == N_FIELDS * sizeof(double),
               "the field table lists every field of pcs_coolant_linear");

pcs_status pcs_coolant_linear_default(pcs_coolant_linear *c)
{
    if (!c)
        return pcs_error_set(PCS_E_INVAL, "pcs_coolant_linear_default: c is NULL");
    for (size_t i = 0; i < N_FIELDS; i++)
        memcpy((char *)c + fields[i].at, &fields[i].dflt, sizeof(double));
    return PCS_OK;
}

pcs_status pcs_coolant_linear_validate(const pcs_coolant_linear *c)
{
    if (!c)
        return pcs_error_set(PCS_E_INVAL, "coolant linear properties: c is NULL");
    for (size_t i = 0; i < N_FIELDS; i++) {
        double v;
        memcpy(&v, (const char *)c + fields[i].at, sizeof v);
        if (!pcs_isfinite(v))
            return pcs_error_set(PCS_E_INVAL, "coolant linear properties: %s = %g is not finite",
                                 fields[i].name, v);
    }
    if (c->t_min_k < 273.15)
        return pcs_error_set(
            PCS_E_INVAL, "coolant linear properties: t_min_k = %g K is below 273.15 K", c->t_min_k);
    if (!(c->t_max_k > c->t_min_k))
        return pcs_error_set(PCS_E_INVAL,
                             "coolant linear properties: t_max_k = %g K must exceed t_min_k = %g K",
                             c->t_max_k, c->t_min_k);
    const double ends[2] = {c->t_min_k, c->t_max_k};
    for (int e = 0; e < 2; e++) {
        double d = ends[e] - c->t_ref_k;
        const struct {
            const char *name;
            double v;
        } p[] = {{"cp", c->cp_ref + c->dcp_dt * d},
                 {"k", c->k_ref + c->dk_dt * d},
                 {"mu", c->mu_ref + c->dmu_dt * d},
                 {"rho", c->rho_ref + c->drho_dt * d}};
        for (size_t i = 0; i < 4; i++)
            if (!(p[i].v > 0.0))
                return pcs_error_set(PCS_E_INVAL,
                                     "coolant linear properties: %s = %g at %g K is not > 0; "
                                     "narrow [t_min_k, t_max_k] or fix %s_ref / slope",
                                     p[i].name, p[i].v, ends[e], p[i].name);
    }
    return PCS_OK;
}

pcs_status pcs_coolant_props_linear(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                    const pcs_coolant_props_out *out, uint32_t *n_clamped)
{
    (void)p_pa; /* this set ignores pressure (single-phase liquid, near 15.5 MPa) */
    const pcs_coolant_linear *c = ctx;
    if (!c || !t_k || !out || !n_clamped)
        return pcs_error_set(PCS_E_INVAL, "pcs_coolant_props_linear: NULL argument");
    uint32_t clamped = 0;
    for (uint32_t i = 0; i < n; i++) {
        double t = t_k[i];
        if (!pcs_isfinite(t))
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_coolant_props_linear: temperature %g at node %u is not "
                                 "finite",
                                 t, i);
        if (t < c->t_min_k || t > c->t_max_k) {
            clamped++;
            t = t < c->t_min_k ? c->t_min_k : c->t_max_k;
        }
        double d = t - c->t_ref_k;
        out->cp_j_kg_k[i] = c->cp_ref + c->dcp_dt * d;
        out->k_w_m_k[i] = c->k_ref + c->dk_dt * d;
        out->mu_pa_s[i] = c->mu_ref + c->dmu_dt * d;
        out->rho_kg_m3[i] = c->rho_ref + c->drho_dt * d;
    }
    *n_clamped = clamped;
    return PCS_OK;
}
