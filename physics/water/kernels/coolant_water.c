/**
 * @file coolant_water.c
 * @brief Real-water coolant properties for the fuel model (coolant.h): the
 *        direct IAPWS path and its (p, xi) table.
 *
 * Why a table of its own rather than pcs_water_table or the (p, h) table:
 * the fuel asks at (p, T) for cp, k and mu as well as rho. The (p, T) liquid
 * table holds h and rho only (cp would be a finite difference of a cubic) and
 * the (p, h) table would need h(p, T) first and has no transport
 * properties. The direct path costs 0.6-0.7 us per node (measured in a
 * 96-node batch on this 2-core machine under load: 57-70 us per call), a
 * table lookup ~20 ns (1.9 us per call).
 *
 * Why the temperature axis is fitted to the saturation line: cp of the
 * liquid rises steeply towards T_sat at PWR pressures (5.3 kJ/(kg K) at
 * 565 K, 8.7 at 617 K, 15.5 MPa). With xi = (T - t_min) / (T_top(p) - t_min)
 * every row ends exactly on saturated liquid, so interpolating between rows
 * never mixes a liquid node with a state past saturation, and the steep
 * part is resolved the same way in every row.
 */
#include <stdlib.h>
#include <string.h>

#include "pcsim/coolant.h"
#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/water/kernels/coolant_water_internal.h"

/* Region 1 reaches 623.15 K; p_sat(623.15 K) = 16.529 MPa (R7-97 Eq. 30):
 * above that pressure T_top is 623.15 K, below it T_sat(p). */
#define CW_T_REGION1_MAX_K 623.15
#define CW_P_TRIPLE_PA 611.212677

/* Top of the liquid range at p: saturated liquid, or region 1's edge. */
static double t_top(double p_pa)
{
    double ts = CW_T_REGION1_MAX_K;
    if (p_pa < PCS_IF97_PC_PA && pcs_water_tsat(p_pa, &ts) == PCS_OK && ts < CW_T_REGION1_MAX_K)
        return ts;
    return CW_T_REGION1_MAX_K;
}

/* The four properties at one liquid point (p, T inside the range). */
static pcs_status props_point(double p, double t, double v[CW_NPROP])
{
    pcs_water_props w;
    pcs_status st = pcs_if97_region1(p, t, &w);
    if (st == PCS_OK)
        st = pcs_water_viscosity(w.rho_kg_m3, t, &v[CW_MU]);
    if (st == PCS_OK)
        st = pcs_water_conductivity(w.rho_kg_m3, t, &v[CW_K]);
    if (st != PCS_OK)
        return st;
    v[CW_CP] = w.cp_j_kg_k;
    v[CW_RHO] = w.rho_kg_m3;
    return PCS_OK;
}

static pcs_status check_call(const char *fn, uint32_t n, const double *t_k, double p_pa,
                             const pcs_coolant_props_out *out, const uint32_t *n_clamped)
{
    if (!t_k || !out || !n_clamped || !out->cp_j_kg_k || !out->k_w_m_k || !out->mu_pa_s ||
        !out->rho_kg_m3)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    if (!pcs_isfinite(p_pa))
        return pcs_error_set(PCS_E_INVAL, "%s: pressure %g Pa is not finite", fn, p_pa);
    for (uint32_t i = 0; i < n; i++)
        if (!pcs_isfinite(t_k[i]))
            return pcs_error_set(PCS_E_INVAL, "%s: temperature %g K at node %u is not finite", fn,
                                 t_k[i], i);
    return PCS_OK;
}

pcs_status pcs_coolant_props_if97(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                  const pcs_coolant_props_out *out, uint32_t *n_clamped)
{
    (void)ctx;
    static const char fn[] = "pcs_coolant_props_if97";
    pcs_status st = check_call(fn, n, t_k, p_pa, out, n_clamped);
    if (st != PCS_OK)
        return st;
    uint32_t clamped = 0;
    double p = p_pa;
    int p_out = p < CW_P_TRIPLE_PA || p > PCS_IF97_P_MAX_PA;
    p = p < CW_P_TRIPLE_PA ? CW_P_TRIPLE_PA : p > PCS_IF97_P_MAX_PA ? PCS_IF97_P_MAX_PA : p;
    const double hi = t_top(p);
    for (uint32_t i = 0; i < n; i++) {
        double t = t_k[i];
        if (p_out || t < PCS_IF97_T_MIN_K || t > hi) {
            clamped++;
            t = t < PCS_IF97_T_MIN_K ? PCS_IF97_T_MIN_K : t > hi ? hi : t;
        }
        double v[CW_NPROP];
        st = props_point(p, t, v);
        if (st != PCS_OK)
            return st;
        out->cp_j_kg_k[i] = v[CW_CP];
        out->k_w_m_k[i] = v[CW_K];
        out->mu_pa_s[i] = v[CW_MU];
        out->rho_kg_m3[i] = v[CW_RHO];
    }
    *n_clamped = clamped;
    return PCS_OK;
}

/* ---- the table ---------------------------------------------------------- */

pcs_status pcs_coolant_water_default(pcs_coolant_water_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_coolant_water_default: cfg is NULL");
    *cfg = (pcs_coolant_water_def){.p_min_pa = 1e6,
                                   .p_max_pa = 22e6,
                                   .t_min_k = 273.15,
                                   .dt_sat_k = 2.0,
                                   .dp_pa = 0.25e6,
                                   .n_t = 512};
    return PCS_OK;
}

/* p_sat(623.15 K), where T_top(p) has its kink. */
static double p_kink(void)
{
    double p = 0.0;
    (void)pcs_water_psat(CW_T_REGION1_MAX_K, &p); /* in range: cannot fail */
    return p;
}

/*
 * Row layout (see the file comment): rows uniform in T_top from T_top(p_min)
 * to T_top(min(p_max, kink)), spacing at most dt_sat_k, then, above the
 * kink, rows uniform in p up to p_max, spacing at most dp_pa.
 */
typedef struct cw_rows {
    double t0, dt; /* saturated rows: T_top of row 0 and the spacing */
    uint32_t n_a;  /* saturated rows (>= 2) */
    double pk, dp; /* rows above the kink: pk + i dp, i = 1 .. n_b */
    uint32_t n_b;
} cw_rows;

static cw_rows row_layout(const pcs_coolant_water_def *c)
{
    cw_rows r = {0};
    r.pk = p_kink();
    double p_end = c->p_max_pa < r.pk ? c->p_max_pa : r.pk;
    r.t0 = t_top(c->p_min_pa);
    double span = t_top(p_end) - r.t0;
    double na = pcs_ceil(span / c->dt_sat_k - 1e-9);
    r.n_a = (uint32_t)(na < 1.0 ? 1.0 : na > 8192.0 ? 8192.0 : na) + 1u;
    r.dt = span / (double)(r.n_a - 1u);
    if (c->p_max_pa > r.pk) {
        double nb = pcs_ceil((c->p_max_pa - r.pk) / c->dp_pa - 1e-9);
        r.n_b = (uint32_t)(nb < 1.0 ? 1.0 : nb > 8192.0 ? 8192.0 : nb);
        r.dp = (c->p_max_pa - r.pk) / (double)r.n_b;
    }
    return r;
}

pcs_status cw_check_config(const char *fn, const pcs_coolant_water_def *c)
{
    if (!c)
        return pcs_error_set(PCS_E_INVAL, "%s: cfg is NULL", fn);
    if (!(pcs_isfinite(c->p_min_pa) && c->p_min_pa >= CW_P_TRIPLE_PA && c->p_min_pa < p_kink()))
        return pcs_error_set(PCS_E_INVAL, "%s: p_min_pa = %g Pa is outside [611.213, %g) Pa", fn,
                             c->p_min_pa, p_kink());
    if (!(pcs_isfinite(c->p_max_pa) && c->p_max_pa > c->p_min_pa &&
          c->p_max_pa <= PCS_IF97_P_MAX_PA))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: p_max_pa = %g Pa is outside (p_min_pa = %g, 100e6] Pa", fn,
                             c->p_max_pa, c->p_min_pa);
    double top = t_top(c->p_min_pa); /* T_top rises with p: the lowest row is the binding one */
    if (!(pcs_isfinite(c->t_min_k) && c->t_min_k >= PCS_IF97_T_MIN_K && c->t_min_k < top))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: t_min_k = %g K is outside [273.15, %g) K (T_top(p_min_pa))", fn,
                             c->t_min_k, top);
    if (!(pcs_isfinite(c->dt_sat_k) && c->dt_sat_k > 0.0))
        return pcs_error_set(PCS_E_INVAL, "%s: dt_sat_k = %g K is outside (0, inf)", fn,
                             c->dt_sat_k);
    if (!(pcs_isfinite(c->dp_pa) && c->dp_pa > 0.0))
        return pcs_error_set(PCS_E_INVAL, "%s: dp_pa = %g Pa is outside (0, inf)", fn, c->dp_pa);
    cw_rows r = row_layout(c);
    if ((double)r.n_a + (double)r.n_b > 4096.0)
        return pcs_error_set(
            PCS_E_INVAL, "%s: dt_sat_k = %g K and dp_pa = %g Pa give %u rows, allowed [2, 4096]",
            fn, c->dt_sat_k, c->dp_pa, r.n_a + r.n_b);
    if (c->n_t < 2 || c->n_t > 65536)
        return pcs_error_set(PCS_E_INVAL, "%s: n_t = %u is outside [2, 65536]", fn, c->n_t);
    return PCS_OK;
}

uint64_t pcs_coolant_water_bytes(const pcs_coolant_water_def *cfg)
{
    if (cw_check_config("pcs_coolant_water_bytes", cfg) != PCS_OK)
        return 0;
    cw_rows r = row_layout(cfg);
    return sizeof(pcs_coolant_water) +
           (uint64_t)(r.n_a + r.n_b) * cfg->n_t * CW_NPROP * sizeof(double);
}

/* Pressure of row i. */
static double row_pressure(const pcs_coolant_water_def *c, const cw_rows *r, uint32_t i)
{
    if (i == 0)
        return c->p_min_pa;
    if (i + 1 == r->n_a && c->p_max_pa < r->pk)
        return c->p_max_pa;
    if (i + 1 == r->n_a)
        return r->pk;
    if (i >= r->n_a)
        return i + 1 == r->n_a + r->n_b ? c->p_max_pa : r->pk + (double)(i + 1 - r->n_a) * r->dp;
    double p = 0.0;
    (void)pcs_water_psat(r->t0 + (double)i * r->dt, &p); /* below 623.15 K: cannot fail */
    return p;
}

pcs_status cw_build_into(const char *fn, const pcs_coolant_water_def *cfg, void *block,
                         pcs_coolant_water **out)
{
    pcs_coolant_water *t = block;
    cw_rows r = row_layout(cfg);
    t->def = *cfg;
    t->data = (double *)(t + 1);
    t->t0 = r.t0;
    t->inv_dt = 1.0 / r.dt;
    t->n_a = r.n_a;
    t->pk = r.pk;
    t->inv_dp = r.n_b ? 1.0 / r.dp : 0.0;
    t->n_p = r.n_a + r.n_b;
    t->xi_scale = (double)(cfg->n_t - 1);
    for (uint32_t i = 0; i < t->n_p; i++) {
        double p = row_pressure(cfg, &r, i);
        double top = t_top(p), span = top - cfg->t_min_k;
        for (uint32_t k = 0; k < cfg->n_t; k++) {
            /* The last node is exactly T_top, not t_min + 1.0 * span rounded. */
            double temp = k + 1 == cfg->n_t ? top : cfg->t_min_k + span * (double)k / t->xi_scale;
            pcs_status st = props_point(p, temp, t->data + ((size_t)i * cfg->n_t + k) * CW_NPROP);
            if (st != PCS_OK)
                return pcs_error_set(st, "%s: node (%g Pa, %g K): %s", fn, p, temp,
                                     pcs_last_error());
        }
    }
    *out = t;
    return PCS_OK;
}

pcs_status pcs_coolant_water_create(const pcs_coolant_water_def *cfg, pcs_coolant_water **out)
{
    static const char fn[] = "pcs_coolant_water_create";
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "%s: out is NULL", fn);
    pcs_status st = cw_check_config(fn, cfg);
    if (st != PCS_OK)
        return st;
    void *block = malloc((size_t)pcs_coolant_water_bytes(cfg));
    if (!block)
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for %llu bytes", fn,
                             (unsigned long long)pcs_coolant_water_bytes(cfg));
    st = cw_build_into(fn, cfg, block, out);
    if (st != PCS_OK)
        free(block);
    return st;
}

void pcs_coolant_water_destroy(pcs_coolant_water *t)
{
    free(t);
}

pcs_status pcs_coolant_props_water(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                   const pcs_coolant_props_out *out, uint32_t *n_clamped)
{
    static const char fn[] = "pcs_coolant_props_water";
    const pcs_coolant_water *t = ctx;
    if (!t)
        return pcs_error_set(PCS_E_INVAL, "%s: ctx (the pcs_coolant_water table) is NULL", fn);
    pcs_status st = check_call(fn, n, t_k, p_pa, out, n_clamped);
    if (st != PCS_OK)
        return st;
    const pcs_coolant_water_def *d = &t->def;
    /* Row pair and weight: once per call, every node shares p. */
    double p = p_pa;
    int p_out = p < d->p_min_pa || p > d->p_max_pa;
    p = p < d->p_min_pa ? d->p_min_pa : p > d->p_max_pa ? d->p_max_pa : p;
    const double hi = t_top(p);
    /* Row coordinate: uniform in T_top below the kink, in p above it. */
    double rp = hi < CW_T_REGION1_MAX_K ? (hi - t->t0) * t->inv_dt
                                        : (double)(t->n_a - 1u) + (p - t->pk) * t->inv_dp;
    rp = rp < 0.0 ? 0.0 : rp;
    uint32_t row = (uint32_t)rp;
    if (row > t->n_p - 2)
        row = t->n_p - 2;
    const double wp = rp - (double)row;
    const double inv_span = t->xi_scale / (hi - d->t_min_k);
    const size_t stride = (size_t)d->n_t * CW_NPROP;
    const double *r0 = t->data + (size_t)row * stride, *r1 = r0 + stride;
    uint32_t clamped = 0;
    for (uint32_t i = 0; i < n; i++) {
        double temp = t_k[i];
        if (p_out || temp < d->t_min_k || temp > hi) {
            clamped++;
            temp = temp < d->t_min_k ? d->t_min_k : temp > hi ? hi : temp;
        }
        double x = (temp - d->t_min_k) * inv_span;
        uint32_t k = (uint32_t)x;
        if (k > d->n_t - 2)
            k = d->n_t - 2;
        const double wt = x - (double)k;
        const double *a0 = r0 + (size_t)k * CW_NPROP, *a1 = r1 + (size_t)k * CW_NPROP;
        double v[CW_NPROP];
        for (int q = 0; q < CW_NPROP; q++) {
            double lo = a0[q] + wt * (a0[q + CW_NPROP] - a0[q]);
            double up = a1[q] + wt * (a1[q + CW_NPROP] - a1[q]);
            v[q] = lo + wp * (up - lo);
        }
        out->cp_j_kg_k[i] = v[CW_CP];
        out->k_w_m_k[i] = v[CW_K];
        out->mu_pa_s[i] = v[CW_MU];
        out->rho_kg_m3[i] = v[CW_RHO];
    }
    *n_clamped = clamped;
    return PCS_OK;
}
