/**
 * @file fuzz_water_ph_image.c
 * @brief libFuzzer target: the (p, h) water table image reader,
 *        pcs_water_ph_table_image_open (physics/water/kernels/water_ph_image.c),
 *        and the two lookups on whatever it accepts.
 *
 * An input is the bytes of an image (pcsim/water_ph.h, "The image"). They
 * are copied into a malloc'd buffer of exactly their size, 64-byte aligned
 * as the embedded image is, so ASan reports any read past the end (the
 * opener borrows the arrays; a lookup reads them in place). Seeds are real
 * images of small defs (tests/fuzz/make_water_ph_seeds.c), since the default
 * image is 14.1 MB.
 *
 * Checked per input, beyond "no crash, no leak, no undefined behaviour"
 * (the fuzz build's -fsanitize=undefined includes float-cast-overflow, the
 * check a corrupted inverse width once tripped: b6e5ae7):
 *  - a refusal is PCS_E_INVAL with a message naming
 *    pcs_water_ph_table_image_open, and leaves the out pointer untouched;
 *  - on an accepted image, pcs_water_ph_table_lookup and
 *    pcs_water_ph_table_rho at a fixed grid of (p, h) points (inside the
 *    domain in every phase and row kind, on and past its edges, and NaN and
 *    +-inf in either coordinate) each return PCS_OK or PCS_E_INVAL; a
 *    refusal names its function and leaves the output untouched; both
 *    return the same status, and on PCS_OK a known phase (1..4) and the same
 *    phase, T, rho and derivatives bit for bit (water_ph.h promises the
 *    identity: one inlined code path), any NaN matching any other (which
 *    NaN an operation returns depends on operand order, left open by
 *    IEEE 754; fuzz_water_ph_image's 300 s run found NaNs of different
 *    bits from the two lookups on a corrupted image).
 * Not checked: the values themselves. The image's arrays are not validated
 * (water_ph.h: a corrupted value is a wrong number, never a read outside
 * the image), so an accepted corrupted image may give any double, NaN
 * included; a non-finite input, though, must be refused before the arrays
 * are read, so NaN/inf inputs must give PCS_E_INVAL whatever the image.
 *
 * The custom mutator keeps the size (an image is accepted only at exactly
 * its def's size): one time in three libFuzzer's own byte mutations, else
 * one to four aligned 8-byte words of the array part (from byte 64)
 * overwritten with hostile doubles (0, -0, 1e-300, a subnormal, 1e300, NaN,
 * +-inf, or the old value scaled by one of them), as fuzz_save does for
 * saves.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/water_ph.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Pressures, Pa: below the domain, its low end, each octave region, the
 * near-critical rows (2^23 Pa to p_c), p_c itself and just below, the
 * supercritical rows, the top and past it. */
static const double P_PA[] = {999.0, 1e3,         3.3e4,    1e6,   7e6,  8.388608e6, 1.5e7,
                              2.2e7, 22.063999e6, 22.064e6, 2.5e7, 31e6, 31.0001e6};
/* Enthalpies, J/kg: below any h_min, liquid, the dome, vapour, the top of
 * the range at low pressure and past any h_max. */
static const double H_J_KG[] = {-1e6, 1e3, 4e5, 1.2e6, 2.0e6, 2.6e6, 3.2e6, 4.1e6, 4.2e6, 1e7};

/* Whether @p msg is non-empty and names @p fn. */
static int names(const char *msg, const char *fn)
{
    return msg != NULL && msg[0] != '\0' && strstr(msg, fn) != NULL;
}

/* Bit for bit, except that any two NaNs match: which NaN an operation
 * returns (sign, payload) depends on its operand order, which the compiler
 * may choose differently in the two inlined copies; IEEE 754 leaves it open,
 * and only a corrupted image gives a NaN at all. */
static int same_value(double x, double y)
{
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}

/* Both lookups at (p, h) on @p t, and the promises between them. */
static void look(const pcs_water_ph_table *t, double p, double h)
{
    pcs_water_ph_state q, q0;
    pcs_water_ph_rho r, r0;
    memset(&q, 0xa5, sizeof q);
    memset(&r, 0x5a, sizeof r);
    q0 = q;
    r0 = r;
    const pcs_status sq = pcs_water_ph_table_lookup(t, p, h, &q);
    if (sq != PCS_OK &&
        !(sq == PCS_E_INVAL && names(pcs_last_error(), "pcs_water_ph_table_lookup")))
        fuzz_fail("lookup(%g, %g): status %d, message '%s'", p, h, (int)sq, pcs_last_error());
    const pcs_status sr = pcs_water_ph_table_rho(t, p, h, &r);
    if (sr != PCS_OK && !(sr == PCS_E_INVAL && names(pcs_last_error(), "pcs_water_ph_table_rho")))
        fuzz_fail("rho(%g, %g): status %d, message '%s'", p, h, (int)sr, pcs_last_error());
    if (sq != sr)
        fuzz_fail("(%g, %g): lookup status %d, rho status %d", p, h, (int)sq, (int)sr);
    if (sq != PCS_OK) {
        if (memcmp(&q, &q0, sizeof q) != 0 || memcmp(&r, &r0, sizeof r) != 0)
            fuzz_fail("(%g, %g): a refused lookup wrote its output", p, h);
        return;
    }
    if (!isfinite(p) || !isfinite(h))
        fuzz_fail("(%g, %g): a non-finite input was accepted", p, h);
    if (q.phase < PCS_WATER_PH_LIQUID || q.phase > PCS_WATER_PH_SUPERCRITICAL)
        fuzz_fail("(%g, %g): phase %d", p, h, q.phase);
    const double a[] = {q.t_k, q.rho_kg_m3, q.drho_dp_s2_m2, q.drho_dh_kg2_m3j};
    const double b[] = {r.t_k, r.rho_kg_m3, r.drho_dp_s2_m2, r.drho_dh_kg2_m3j};
    if (q.phase != r.phase)
        fuzz_fail("(%g, %g): lookup phase %d, rho phase %d", p, h, q.phase, r.phase);
    for (size_t k = 0; k < 4; k++)
        if (!same_value(a[k], b[k]))
            fuzz_fail("(%g, %g): value %zu of lookup %.17g and of rho %.17g differ", p, h, k, a[k],
                      b[k]);
}

/* Every grid point, then NaN and +-inf in each coordinate. */
static void look_everywhere(const pcs_water_ph_table *t)
{
    const size_t np = sizeof P_PA / sizeof P_PA[0], nh = sizeof H_J_KG / sizeof H_J_KG[0];
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < nh; j++)
            look(t, P_PA[i], H_J_KG[j]);
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < 3; k++) {
        look(t, bad[k], 1e6);
        look(t, 7e6, bad[k]);
        look(t, bad[k], bad[k]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* exactly size bytes: posix_memalign takes any size (aligned_alloc
     * would want a multiple of 64, and ASan poisons past the size asked) */
    void *mem = NULL;
    if (posix_memalign(&mem, 64, size == 0 ? 1 : size) != 0)
        fuzz_fail("no memory for a %zu-byte input", size);
    unsigned char *img = mem;
    if (size > 0)
        memcpy(img, data, size);
    static char mark; /* a refusal must leave t as it was: pointing here */
    pcs_water_ph_table *const sentinel = (pcs_water_ph_table *)(void *)&mark;
    pcs_water_ph_table *t = sentinel;
    const pcs_status st = pcs_water_ph_table_image_open(img, size, &t);
    if (st != PCS_OK) {
        if (st != PCS_E_INVAL || !names(pcs_last_error(), "pcs_water_ph_table_image_open"))
            fuzz_fail("image_open: status %d, message '%s'", (int)st, pcs_last_error());
        if (t != sentinel)
            fuzz_fail("image_open refused (%s) but wrote its output", pcs_last_error());
    } else {
        look_everywhere(t);
        pcs_water_ph_table_destroy(t);
    }
    free(img);
    return 0;
}

/* A small deterministic generator from the mutator's seed (no libc rand). */
static uint32_t xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A value for an array word: hostile to a cubic, an index or a width. */
static double hostile(uint32_t *rng, double old)
{
    static const double v[] = {0.0, -0.0, 1e-300, 5e-324, 1e300, -1e300, NAN, INFINITY, -INFINITY};
    const size_t n = sizeof v / sizeof v[0];
    const double pick = v[xorshift(rng) % n];
    return xorshift(rng) % 4 == 0 ? old * pick : pick;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t rng = seed | 1u;
    const size_t words = size > PCS_WATER_PH_IMAGE_HEADER_BYTES
                             ? (size - PCS_WATER_PH_IMAGE_HEADER_BYTES) / sizeof(double)
                             : 0;
    if (words == 0 || xorshift(&rng) % 3 == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    const uint32_t n = 1 + xorshift(&rng) % 4;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *at = data + PCS_WATER_PH_IMAGE_HEADER_BYTES + (xorshift(&rng) % words) * 8u;
        double old;
        memcpy(&old, at, sizeof old);
        const double v = hostile(&rng, old);
        memcpy(at, &v, sizeof v);
    }
    return size;
}
