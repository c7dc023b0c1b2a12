/**
 * @file make_water_ph_seeds.c
 * @brief Writes the seed corpus of fuzz_water_ph_image: real (p, h) table
 *        images (pcsim/water_ph.h, "The image") of small, non-default defs,
 *        plus a truncated one and one with a wrong magic, so the fuzzer
 *        starts from headers the opener accepts and from its first refusals.
 *
 * Why small defs: the default image is 14.1 MB, far past libFuzzer's 1 MiB
 * default -max_len, and mutating it would be slow. The smallest legal def
 * (every field at its lower bound) makes a 42 KB image; the others vary one
 * field each so the row layout (octaves, near-critical, supercritical rows)
 * and the xi split differ between seeds: 42 to 58 KB, each under 64 KB.
 *
 * Usage (tests/fuzz/README.md, "Seeds"):
 *   make build/make_water_ph_seeds && build/make_water_ph_seeds tests/fuzz/corpus/water_ph_image
 * The output is deterministic (the table is IF97 evaluated on a fixed grid,
 * no clock, no randomness), so rerunning it without a format or table
 * change changes no file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/water_ph.h"

/* One seed: its file name and the def it is an image of. */
typedef struct seed_def {
    const char *name;
    pcs_water_ph_table_def def;
} seed_def;

/* rows_per_octave, n_near_critical, n_super, n_liquid, n_vapour, sat_refine */
static const seed_def SEEDS[] = {
    {"seed-min.img", {2, 2, 1, 1, 1, 1}},
    {"seed-liquid2.img", {2, 2, 1, 2, 1, 1}},
    {"seed-near3-super2.img", {2, 3, 2, 1, 1, 1}},
    {"seed-refine2.img", {2, 2, 1, 1, 1, 2}},
};

/* Write @p n bytes at @p b to DIR/NAME; 0 on success (a failure is said). */
static int write_seed(const char *dir, const char *name, const void *b, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    const int ok = f != NULL && fwrite(b, 1, n, f) == n;
    if ((f != NULL && fclose(f) != 0) || !ok) {
        fprintf(stderr, "make_water_ph_seeds: cannot write %zu bytes to %s\n", n, path);
        return 1;
    }
    printf("make_water_ph_seeds: %s (%zu bytes)\n", path, n);
    return 0;
}

/* The image of @p def, malloc'd, its size in @p n; NULL on failure (said). */
static unsigned char *image_of(const pcs_water_ph_table_def *def, size_t *n)
{
    pcs_water_ph_table *t = NULL;
    if (pcs_water_ph_table_create(def, &t) != PCS_OK) {
        fprintf(stderr, "make_water_ph_seeds: %s\n", pcs_last_error());
        return NULL;
    }
    *n = (size_t)pcs_water_ph_table_image_bytes(t);
    unsigned char *b = malloc(*n);
    if (b == NULL || pcs_water_ph_table_image_write(t, b, *n) != PCS_OK) {
        fprintf(stderr, "make_water_ph_seeds: %s\n", b == NULL ? "no memory" : pcs_last_error());
        free(b);
        b = NULL;
    }
    pcs_water_ph_table_destroy(t);
    return b;
}

/* The two refused seeds, both cut from the smallest image @p b (n bytes):
 * its header and first sat cubic only (truncated: the size check), and the
 * whole image with its magic byte-swapped (another byte order). */
static int write_refused(const char *dir, const unsigned char *b, size_t n)
{
    int rc = write_seed(dir, "seed-truncated.img", b, PCS_WATER_PH_IMAGE_HEADER_BYTES + 32u);
    unsigned char *bad = malloc(n);
    if (bad == NULL) {
        return 1;
    }
    memcpy(bad, b, n);
    const unsigned char swapped[4] = {b[3], b[2], b[1], b[0]};
    memcpy(bad, swapped, sizeof swapped);
    rc |= write_seed(dir, "seed-bad-magic.img", bad, n);
    free(bad);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_water_ph_seeds OUTPUT_DIR\n");
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof SEEDS / sizeof SEEDS[0] && rc == 0; i++) {
        size_t n = 0;
        unsigned char *b = image_of(&SEEDS[i].def, &n);
        rc = b == NULL || write_seed(argv[1], SEEDS[i].name, b, n);
        if (rc == 0 && i == 0) {
            rc = write_refused(argv[1], b, n);
        }
        free(b);
    }
    return rc;
}
