/**
 * @file gauss.h
 * @brief Standard normal deviates by the ziggurat method, fast enough for
 *        per-sensor noise on every tick (physics-internal header).
 *
 * Why not pcs_rng_normal: Box-Muller costs a log, a sqrt and a cos per
 * deviate (tens of ns); 400 noisy sensors must cost about 2 us per tick in
 * all, so the sampler gets a few ns. The ziggurat accepts about 98.8 % of
 * draws with one 64-bit random word, one table load, one multiply and one
 * compare, and touches pcs_exp/pcs_log only in the rare wedge and tail cases.
 *
 * Method: G. Marsaglia and W. W. Tsang, "The Ziggurat Method for Generating
 * Random Variables", Journal of Statistical Software 5(8), 2000, with its
 * 128-layer constants for the normal density (r, v below). As in J. A.
 * Doornik, "An Improved Ziggurat Method to Generate Normal Random Samples",
 * 2005, the layer index, the sign and the 53-bit uniform come from disjoint
 * bits of one xoshiro256** output, so they are independent.
 *
 * Geometry. f(x) = exp(-x^2/2) (unnormalised). N = 128 layers of equal area
 * v: layer i (1 <= i < N) is the rectangle [0, x[i]] x [f(x[i]), f(x[i+1])],
 * with x[1] = r, x[i+1] = sqrt(-2 ln(v/x[i] + f(x[i]))) and x[N] = 0.
 * Layer 0 is the base strip [0, r] x [0, f(r)] plus the tail beyond r; it is
 * drawn as a rectangle of pseudo-width x[0] = v/f(r). A draw picks layer i and
 * z = u * x[i]; z < x[i+1] lies wholly under f and is accepted at once.
 * Otherwise the wedge (i > 0) is accepted when a uniform height under the
 * layer falls under f(z), and the base layer draws from the tail by
 * Marsaglia's 1964 method (a = -ln(U1)/r, b = -ln(U2), accept when 2b > a^2).
 *
 * Determinism: the tables are computed at build through pcs_math, the draws
 * consume a fixed, state-determined sequence of words; same stream state in,
 * same deviate and same stream state out.
 * Thread-safety: a table is read-only after init; a pcs_rng is not shared.
 */
#ifndef PCS_PHYSICS_GAUSS_H
#define PCS_PHYSICS_GAUSS_H

#include <stdint.h>

#include "pcsim/rng.h"

/** Layers of the ziggurat (a power of two: the index is 7 bits of a word). */
#define PCS_GAUSS_LAYERS 128u

/** Marsaglia-Tsang 2000 constants for 128 layers: right edge r of the base
 *  rectangle, and the common layer area v (of the unnormalised density). */
#define PCS_GAUSS_R 3.442619855899
#define PCS_GAUSS_V 9.91256303526217e-3

/** Layer edges and densities; x[0] is the base layer's pseudo-width. */
typedef struct pcs_gauss_table {
    double x[PCS_GAUSS_LAYERS + 1]; /**< edges, decreasing; x[N] = 0 */
    double f[PCS_GAUSS_LAYERS + 1]; /**< exp(-x^2/2) at each edge; f[N] = 1 */
} pcs_gauss_table;

/** Fill @p t (deterministic: pcs_exp, pcs_log, pcs_sqrt only). */
void pcs_gauss_table_init(pcs_gauss_table *t);

/**
 * Finish a draw the fast path did not accept: the wedge of layer @p layer or
 * the tail, retrying from scratch on rejection. Never inline; rare.
 */
double pcs_gauss_slow(const pcs_gauss_table *t, pcs_rng *rng, uint64_t bits);

/**
 * One standard normal deviate (mean 0, variance 1) from stream @p rng.
 * The sign is applied by a multiply with a table entry, not a branch: a
 * random sign would mispredict half the time and cost more than the rest of
 * the draw.
 */
static inline double pcs_gauss_sample(const pcs_gauss_table *t, pcs_rng *rng)
{
    static const double sign[2] = {1.0, -1.0};
    uint64_t bits = pcs_rng_next_u64(rng);
    uint32_t layer = (uint32_t)(bits & (PCS_GAUSS_LAYERS - 1));
    double z = (double)(bits >> 11) * 0x1.0p-53 * t->x[layer];
    if (z < t->x[layer + 1])
        return z * sign[(bits >> 7) & 1];
    return pcs_gauss_slow(t, rng, bits);
}

#endif
