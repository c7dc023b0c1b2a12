/**
 * @file gauss.c
 * @brief Ziggurat tables and the rare wedge/tail path (see gauss.h for the
 *        method and its sources).
 */
#include "physics/instrumentation/kernels/gauss.h"
#include "pcsim/math.h"

void pcs_gauss_table_init(pcs_gauss_table *t)
{
    const uint32_t n = PCS_GAUSS_LAYERS;
    double fr = pcs_exp(-0.5 * PCS_GAUSS_R * PCS_GAUSS_R);
    t->x[0] = PCS_GAUSS_V / fr;
    t->f[0] = 0.0; /* the base layer reaches down to the axis */
    t->x[1] = PCS_GAUSS_R;
    t->f[1] = fr;
    for (uint32_t i = 1; i + 1 < n; i++) {
        /* Equal areas: x[i] * (f(x[i+1]) - f(x[i])) = v. */
        double fn = PCS_GAUSS_V / t->x[i] + t->f[i];
        t->x[i + 1] = pcs_sqrt(-2.0 * pcs_log(fn));
        t->f[i + 1] = fn;
    }
    /* The 13-digit constants close the top layer at f = 1 - 4e-11; pin x = 0. */
    t->x[n] = 0.0;
    t->f[n] = 1.0;
}

/* Uniform in (0, 1]: safe under a log. */
static double open_uniform(pcs_rng *rng)
{
    return 1.0 - pcs_rng_uniform(rng);
}

static double tail(pcs_rng *rng)
{
    for (;;) {
        double a = -pcs_log(open_uniform(rng)) / PCS_GAUSS_R;
        double b = -pcs_log(open_uniform(rng));
        if (b + b > a * a)
            return PCS_GAUSS_R + a;
    }
}

double pcs_gauss_slow(const pcs_gauss_table *t, pcs_rng *rng, uint64_t bits)
{
    for (;;) {
        uint32_t layer = (uint32_t)(bits & (PCS_GAUSS_LAYERS - 1));
        double z = (double)(bits >> 11) * 0x1.0p-53 * t->x[layer];
        double sign = (bits & PCS_GAUSS_LAYERS) ? -1.0 : 1.0;
        if (z < t->x[layer + 1])
            return sign * z;
        if (layer == 0)
            return sign * tail(rng);
        /* Wedge: a uniform height inside the layer, accepted under f(z). */
        double y = t->f[layer] + pcs_rng_uniform(rng) * (t->f[layer + 1] - t->f[layer]);
        if (y < pcs_exp(-0.5 * z * z))
            return sign * z;
        bits = pcs_rng_next_u64(rng);
    }
}
