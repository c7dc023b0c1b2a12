/**
 * @file test_water_ph_image.c
 * @brief The (p, h) table's image (pcsim/water_ph.h, "The image";
 *        physics/water/kernels/water_ph_image.c) and the image the build
 *        embeds in the library (station/water_ph_image.S, opened by
 *        pcs_station_water_table).
 *
 * The embedded table must be the table pcs_water_ph_table_create makes, bit
 * for bit: that is what keeps every hash where it was when the station made
 * the table at run time. This suite runs in the release and the ASan unit
 * suites, so it also shows that the ASan-compiled build code and the
 * release-compiled generator (tools/gen_water_ph.c) agree. One default table
 * is made here (about 0.2 s release, 1 s ASan); every other test uses a
 * small table that takes milliseconds.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/station.h"
#include "pcsim/water_ph.h"
#include "physics/water/kernels/water_ph_internal.h"
#include "station/water_table.h"

/* A small table (cheap to make) unlike the default in every field:
 * octave zone (23 - 9) * 4 - first_cell = 56 - floor((1000 - 512) / 512 * 4)
 * = 56 - 3 = 53 row cells, plus 4 + 2: 59 rows; n_xi = 3 + 5 = 8. */
static pcs_water_ph_table_def small_def(void)
{
    pcs_water_ph_table_def d;
    pcs_water_ph_table_default(&d);
    d.rows_per_octave = 4;
    d.n_near_critical = 4;
    d.n_super = 2;
    d.n_liquid = 3;
    d.n_vapour = 5;
    d.sat_refine = 2;
    return d;
}
#define SMALL_ROWS 59u
#define SMALL_XI 8u
#define SMALL_SAT (59ull * 2u * 12u * 4u) /* rows x sat_refine x 12 data x 4 coefficients */
#define SMALL_CELLS (59ull * 8u * 64u)    /* rows x n_xi x 16 coefficients x 4 functions */
#define SMALL_BYTES (64ull + 8ull * (SMALL_SAT + SMALL_CELLS))

static pcs_water_ph_table *make(const pcs_water_ph_table_def *d)
{
    pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_water_ph_table_create(d, &t), PCS_OK, "%s", pcs_last_error());
    return t;
}

/* The small table's image in a malloc'd (16-byte aligned) buffer of *n bytes. */
static unsigned char *small_image(uint64_t *n)
{
    const pcs_water_ph_table_def d = small_def();
    pcs_water_ph_table *t = make(&d);
    *n = pcs_water_ph_table_image_bytes(t);
    cr_assert_eq(*n, SMALL_BYTES);
    unsigned char *b = malloc((size_t)*n);
    cr_assert_not_null(b);
    cr_assert_eq(pcs_water_ph_table_image_write(t, b, *n), PCS_OK, "%s", pcs_last_error());
    pcs_water_ph_table_destroy(t);
    return b;
}

/* Every scalar of a lookup, compared as bits (a NaN would compare equal to
 * itself here, as it must for "the same table"). */
static void same_bits(double a, double b, const char *what, double p, double h)
{
    cr_assert(memcmp(&a, &b, sizeof a) == 0, "%s at p %.10g h %.10g: %a vs %a", what, p, h, a, b);
}

static void same_lookups(const pcs_water_ph_table *a, const pcs_water_ph_table *b)
{
    /* liquid, the dome, vapour at 7 MPa; low pressure (octave zone); the
       sqrt zone on both sides of 16.529 MPa; just below p_c; supercritical */
    static const double pts[][2] = {
        {7e6, 1.0e6},    {7e6, 2.0e6},   {7e6, 3.0e6},     {2e3, 1.0e5},   {2e3, 2.6e6},
        {1.2e7, 1.4e6},  {1.7e7, 1.7e6}, {2.2e7, 2.0e6},   {2.5e7, 1.5e6}, {3.0e7, 2.8e6},
        {15.5e6, 1.3e6}, {1e5, 3.0e5},   {22.06e6, 2.1e6},
    };
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        const double p = pts[k][0], h = pts[k][1];
        pcs_water_ph_state x, y;
        cr_assert_eq(pcs_water_ph_table_lookup(a, p, h, &x), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_water_ph_table_lookup(b, p, h, &y), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(x.phase, y.phase, "phase at p %.10g h %.10g", p, h);
        same_bits(x.t_k, y.t_k, "T", p, h);
        same_bits(x.rho_kg_m3, y.rho_kg_m3, "rho", p, h);
        same_bits(x.u_j_kg, y.u_j_kg, "u", p, h);
        same_bits(x.x, y.x, "x", p, h);
        same_bits(x.alpha, y.alpha, "alpha", p, h);
        same_bits(x.drho_dp_s2_m2, y.drho_dp_s2_m2, "drho/dp", p, h);
        same_bits(x.drho_dh_kg2_m3j, y.drho_dh_kg2_m3j, "drho/dh", p, h);
    }
}

/* ---------------------------------------------------------------------- */
/* The embedded image                                                       */
/* ---------------------------------------------------------------------- */

/* Default def: 281 row cells (octave zone (23 - 9) * 16 - floor(488 / 512
 * * 16) = 224 - 15 = 209, plus 48 + 24), n_xi 96; sat 281 x 4 x 48 doubles,
 * cells 281 x 96 x 64: 64 + 8 (53952 + 1726464) = 14,243,392 bytes. */
Test(water_ph_image, embedded_table_is_a_fresh_default_table_bit_for_bit)
{
    const pcs_water_ph_table *emb = NULL;
    cr_assert_eq(pcs_station_water_table(&emb), PCS_OK, "%s", pcs_last_error());
    pcs_water_ph_table_def d;
    pcs_water_ph_table_default(&d);
    pcs_water_ph_table *fresh = make(&d);

    cr_assert_eq(pcs_water_ph_image_bytes, 14243392ull);
    cr_assert_eq(pcs_water_ph_table_image_bytes(emb), 14243392ull);
    cr_assert_eq(pcs_water_ph_table_image_bytes(fresh), 14243392ull);
    cr_assert_eq((uintptr_t)pcs_water_ph_image % 64u, 0u, "the image is cache-line aligned");

    ph_table_parts e, f;
    ph_table_parts_of(emb, &e);
    ph_table_parts_of(fresh, &f);
    /* the station's table is the embedded image's bytes, not a copy */
    cr_assert_eq((const void *)e.sat, (const void *)(pcs_water_ph_image + 64));
    cr_assert_eq((const void *)e.cells, (const void *)(e.sat + e.n_sat));
    cr_assert_eq(e.n_rows, 281u);
    cr_assert_eq(e.n_xi, 96u);
    cr_assert_eq(e.n_sat, 53952u);
    cr_assert_eq(e.n_cells, 1726464u);
    cr_assert(memcmp(&e.def, &f.def, sizeof e.def) == 0);
    cr_assert(e.n_rows == f.n_rows && e.n_xi == f.n_xi && e.n_sat == f.n_sat &&
              e.n_cells == f.n_cells);
    cr_assert(memcmp(&e.h_split, &f.h_split, sizeof e.h_split) == 0, "h_split %a vs %a", e.h_split,
              f.h_split);
    cr_assert(memcmp(e.sat, f.sat, (size_t)f.n_sat * sizeof(double)) == 0,
              "saturation cubics differ");
    cr_assert(memcmp(e.cells, f.cells, (size_t)f.n_cells * sizeof(double)) == 0,
              "bicubic cells differ");
    cr_assert(ph_table_headers_equal(emb, fresh), "header fields differ");
    same_lookups(emb, fresh);
    pcs_water_ph_table_destroy(fresh);
}

/* ---------------------------------------------------------------------- */
/* Round trip                                                               */
/* ---------------------------------------------------------------------- */

Test(water_ph_image, round_trip_of_a_small_table_is_bit_identical)
{
    const pcs_water_ph_table_def d = small_def();
    pcs_water_ph_table *orig = make(&d);
    uint64_t n = 0;
    unsigned char *img = small_image(&n);

    /* the header as water_ph.h lays it out */
    uint32_t u32[10];
    memcpy(u32, img, sizeof u32);
    cr_assert_eq(u32[0], PCS_WATER_PH_IMAGE_MAGIC);
    cr_assert_eq(memcmp(img, "PWPH", 4), 0, "magic bytes on a little-endian host");
    cr_assert_eq(u32[1], 1u);
    cr_assert(memcmp(&u32[2], &d, sizeof d) == 0);
    cr_assert_eq(u32[8], SMALL_ROWS);
    cr_assert_eq(u32[9], SMALL_XI);
    uint64_t sizes[2];
    memcpy(sizes, img + 40, sizeof sizes);
    cr_assert_eq(sizes[0], SMALL_SAT);
    cr_assert_eq(sizes[1], SMALL_CELLS);

    pcs_water_ph_table *opened = NULL;
    cr_assert_eq(pcs_water_ph_table_image_open(img, n, &opened), PCS_OK, "%s", pcs_last_error());
    cr_assert(ph_table_headers_equal(orig, opened));
    same_lookups(orig, opened);

    /* a borrowed table writes the same image again */
    unsigned char *again = malloc((size_t)n);
    cr_assert_not_null(again);
    cr_assert_eq(pcs_water_ph_table_image_write(opened, again, n), PCS_OK, "%s", pcs_last_error());
    cr_assert(memcmp(img, again, (size_t)n) == 0);
    /* destroy frees the header only: the image is still ours to read */
    pcs_water_ph_table_destroy(opened);
    cr_assert_eq(memcmp(img, again, (size_t)n), 0);
    free(again);
    free(img);
    pcs_water_ph_table_destroy(orig);
}

Test(water_ph_image, write_refuses_a_short_buffer_and_null)
{
    const pcs_water_ph_table_def d = small_def();
    pcs_water_ph_table *t = make(&d);
    unsigned char b[64];
    cr_assert_eq(pcs_water_ph_table_image_write(t, b, sizeof b), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "cap_bytes = 64 is below the image's 287040 bytes") != NULL,
              "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_image_write(NULL, b, sizeof b), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "t is NULL") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_image_write(t, NULL, SMALL_BYTES), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "buf is NULL") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_water_ph_table_image_bytes(NULL), 0u);
    pcs_water_ph_table_destroy(t);
}

/* ---------------------------------------------------------------------- */
/* Refusals                                                                 */
/* ---------------------------------------------------------------------- */

/* Open @p n bytes at @p b: refused with PCS_E_INVAL, the message holding
 * @p want, and the out pointer untouched. */
static void refused(const void *b, uint64_t n, const char *want)
{
    pcs_water_ph_table *sentinel = (pcs_water_ph_table *)(uintptr_t)0x1234;
    pcs_water_ph_table *t = sentinel;
    cr_assert_eq(pcs_water_ph_table_image_open(b, n, &t), PCS_E_INVAL, "accepted (want \"%s\")",
                 want);
    cr_assert(strstr(pcs_last_error(), want) != NULL, "message \"%s\" lacks \"%s\"",
              pcs_last_error(), want);
    cr_assert_eq(t, sentinel, "out written on error");
}

/* A copy of the small image with @p len bytes at @p off replaced by @p v,
 * opened: refused naming @p want. */
static void refused_patched(const unsigned char *img, uint64_t n, size_t off, const void *v,
                            size_t len, const char *want)
{
    unsigned char *c = malloc((size_t)n);
    cr_assert_not_null(c);
    memcpy(c, img, (size_t)n);
    memcpy(c + off, v, len);
    refused(c, n, want);
    free(c);
}

/* One header patch and the refusal it must draw. */
typedef struct patch_case {
    size_t at;        /* byte offset in the image */
    uint64_t value;   /* written as its first len bytes: the low ones (x86-64, as images are) */
    size_t len;       /* 4 or 8 */
    const char *want; /* in the message */
} patch_case;

/* Each case on its own copy of the small image: refused naming its want. */
static void refused_each(const patch_case *c, size_t n_cases)
{
    uint64_t n = 0;
    unsigned char *img = small_image(&n);
    for (size_t i = 0; i < n_cases; i++)
        refused_patched(img, n, c[i].at, &c[i].value, c[i].len, c[i].want);
    free(img);
}

Test(water_ph_image, open_refuses_a_wrong_magic_or_version)
{
    static const patch_case cases[] = {
        {0, 0xdeadbeefu, 4,
         "image magic = 0xdeadbeef, expected 0x48505750 (not a (p, h) table image"},
        {0, 0x50575048u, 4, "image magic = 0x50575048, expected 0x48505750"},
        {4, 2u, 4, "image version = 2, expected 1"},
    };
    refused_each(cases, sizeof cases / sizeof cases[0]);
}

Test(water_ph_image, open_refuses_a_def_field_out_of_range)
{
    static const patch_case cases[] = {
        {8, 6u, 4, "image def: cfg.rows_per_octave = 6 is not a power of two"},
        {12, 0u, 4, "image def: cfg.n_near_critical = 0 is outside [2, 4096]"},
        {20, 0u, 4, "image def: cfg.n_liquid = 0 is outside [1, 4096]"},
        {28, 65u, 4, "image def: cfg.sat_refine = 65 is outside [1, 64]"},
    };
    refused_each(cases, sizeof cases / sizeof cases[0]);
}

/* A def in range that is not the one the arrays were made for: its sizes
 * disagree with the header's (n_vapour 5 -> 6: n_xi 8 -> 9). h_split is a
 * NaN's bits (0x7ff8...). */
Test(water_ph_image, open_refuses_sizes_the_def_does_not_imply)
{
    static const patch_case cases[] = {
        {24, 6u, 4, "image n_xi = 8, expected 9 for its def"},
        {32, SMALL_ROWS + 1u, 4, "image n_rows = 60, expected 59 for its def"},
        {40, SMALL_SAT - 1u, 8, "image n_sat = 5663, expected 5664 for its def"},
        {48, SMALL_CELLS * 2u, 8, "image n_cells = 60416, expected 30208 for its def"},
        {56, UINT64_C(0x7ff8000000000000), 8, "image h_split = nan J/kg, expected a finite value"},
    };
    refused_each(cases, sizeof cases / sizeof cases[0]);
}

Test(water_ph_image, open_refuses_truncated_and_over_long_images)
{
    uint64_t n = 0;
    unsigned char *img = small_image(&n);
    refused(img, n - 8u, "n_bytes = 287032, expected 287040 for the image's def");
    refused(img, 64u, "n_bytes = 64, expected 287040");
    refused(img, 63u, "n_bytes = 63 is below the image header's 64 bytes");
    refused(img, 0u, "n_bytes = 0 is below");
    unsigned char *longer = malloc((size_t)n + 8u);
    cr_assert_not_null(longer);
    memcpy(longer, img, (size_t)n);
    memset(longer + n, 0, 8u);
    refused(longer, n + 8u, "n_bytes = 287048, expected 287040 for the image's def");
    free(longer);
    free(img);
}

Test(water_ph_image, open_refuses_a_misaligned_image_and_null)
{
    uint64_t n = 0;
    unsigned char *img = small_image(&n);
    unsigned char *shifted = malloc((size_t)n + 8u);
    cr_assert_not_null(shifted);
    memcpy(shifted + 4, img, (size_t)n);
    refused(shifted + 4, n, "image is 4 bytes past an 8-byte boundary");
    free(shifted);
    refused(NULL, n, "image is NULL");
    cr_assert_eq(pcs_water_ph_table_image_open(img, n, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "out is NULL") != NULL, "%s", pcs_last_error());
    free(img);
}

/* The header's promise for the arrays it does not check: a corrupted value is
 * a wrong number, not a read outside the image nor undefined behaviour. Each
 * saturation sub-cell's inverse widths (S_IL, S_IV: the 5th and 6th of its 12
 * cubics, water_ph_table.c) set to 1e300 put the xi of a single-phase lookup
 * near 1e305, past any uint32_t: converting that to the cell index is
 * undefined (C17 6.3.1.4p1), which clang's -fsanitize=float-cast-overflow
 * (part of the fuzz build's -fsanitize=undefined) aborts on. The index must
 * be clamped while xi is still a double. gcc's ASan build does not enable
 * that check, so there this test sees only the bounded result. */
Test(water_ph_image, a_corrupted_inverse_width_gives_a_number_not_undefined_behaviour)
{
    uint64_t n = 0;
    unsigned char *img = small_image(&n);
    for (uint64_t s = 0; s < SMALL_SAT / 48u; s++) {
        const double big = 1e300;
        for (uint64_t f = 4; f <= 5; f++)
            memcpy(img + 64u + 8u * (s * 48u + f * 4u), &big, sizeof big);
    }
    pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_water_ph_table_image_open(img, n, &t), PCS_OK, "%s", pcs_last_error());
    /* liquid and vapour at 7 MPa (the dome's ends are untouched) */
    static const double pts[][2] = {{7e6, 1.0e6}, {7e6, 3.0e6}};
    for (size_t k = 0; k < 2; k++) {
        pcs_water_ph_state q;
        pcs_water_ph_rho r;
        cr_assert_eq(pcs_water_ph_table_lookup(t, pts[k][0], pts[k][1], &q), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(pcs_water_ph_table_rho(t, pts[k][0], pts[k][1], &r), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(q.phase, k == 0 ? PCS_WATER_PH_LIQUID : PCS_WATER_PH_VAPOUR);
    }
    pcs_water_ph_table_destroy(t);
    free(img);
}

/* Refused h = +-inf whatever the image holds. Found by fuzz_water_ph_image
 * (tests/fuzz/corpus/water_ph_image/crash-inf-h-max.img): the lookups refused a
 * non-finite h only through the domain test h_lo - tol <= h <= h_hi + tol,
 * whose ends come from the image's (unchecked) saturation cubics; with the
 * constant coefficient of each sub-cell's h_max cubic (S_HHI, the 4th of
 * 12) set to +inf and h_min's (S_HLO, the 1st) to -inf, both ends are
 * infinite and h = +-inf passed, though water_ph.h promises PCS_E_INVAL for
 * a non-finite input. NaN failed the compares and was refused already. */
Test(water_ph_image, an_infinite_enthalpy_is_refused_even_with_infinite_domain_ends)
{
    uint64_t n = 0;
    unsigned char *img = small_image(&n);
    for (uint64_t s = 0; s < SMALL_SAT / 48u; s++) {
        const double lo = -INFINITY, hi = INFINITY;
        memcpy(img + 64u + 8u * (s * 48u + 0u * 4u), &lo, sizeof lo);
        memcpy(img + 64u + 8u * (s * 48u + 3u * 4u), &hi, sizeof hi);
    }
    pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_water_ph_table_image_open(img, n, &t), PCS_OK, "%s", pcs_last_error());
    static const double hs[] = {INFINITY, -INFINITY, NAN};
    static const char *const want[] = {"h_j_kg = inf J/kg", "h_j_kg = -inf J/kg",
                                       "h_j_kg = nan J/kg"};
    for (size_t k = 0; k < 3; k++) {
        pcs_water_ph_state q;
        pcs_water_ph_rho r;
        memset(&q, 0x5a, sizeof q);
        memset(&r, 0x5a, sizeof r);
        const pcs_water_ph_state q0 = q;
        const pcs_water_ph_rho r0 = r;
        cr_assert_eq(pcs_water_ph_table_lookup(t, 7e6, hs[k], &q), PCS_E_INVAL, "h = %g", hs[k]);
        cr_assert(strstr(pcs_last_error(), "pcs_water_ph_table_lookup") != NULL &&
                      strstr(pcs_last_error(), want[k]) != NULL,
                  "%s", pcs_last_error());
        cr_assert_eq(pcs_water_ph_table_rho(t, 7e6, hs[k], &r), PCS_E_INVAL, "h = %g", hs[k]);
        cr_assert(strstr(pcs_last_error(), "pcs_water_ph_table_rho") != NULL &&
                      strstr(pcs_last_error(), want[k]) != NULL,
                  "%s", pcs_last_error());
        cr_assert(memcmp(&q, &q0, sizeof q) == 0 && memcmp(&r, &r0, sizeof r) == 0,
                  "a refused lookup wrote its output");
    }
    /* a finite h inside the (now unbounded) domain is still answered */
    pcs_water_ph_rho r;
    cr_assert_eq(pcs_water_ph_table_rho(t, 7e6, 3.0e6, &r), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(r.phase, PCS_WATER_PH_VAPOUR);
    pcs_water_ph_table_destroy(t);
    free(img);
}
