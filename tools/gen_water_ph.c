/**
 * @file gen_water_ph.c
 * @brief Writes the default (p, h) water table's image (pcsim/water_ph.h,
 *        "The image") to the file named by its argument: the table
 *        station/water_ph_image.S embeds in the library. The Makefile builds
 *        and runs it before the library ("Generated tables" there), linked
 *        with the build tree's own water-kernel objects, so each tree's
 *        library carries a table its own compiler computed (bit-identical to
 *        one pcs_water_ph_table_create makes in that build:
 *        tests/test_water_ph_image.c). The image is not committed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pcsim/water_ph.h"

/* Write @p n bytes at @p b to @p path; 0 on success. */
static int write_file(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    const size_t put = fwrite(b, 1, n, f);
    if (fclose(f) != 0 || put != n) {
        fprintf(stderr, "gen_water_ph: %s: wrote %zu of %zu bytes\n", path, put, n);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_water_ph OUTPUT\n");
        return 2;
    }
    pcs_water_ph_table_def def;
    pcs_water_ph_table *t = NULL;
    if (pcs_water_ph_table_default(&def) != PCS_OK ||
        pcs_water_ph_table_create(&def, &t) != PCS_OK) {
        fprintf(stderr, "gen_water_ph: %s\n", pcs_last_error());
        return 1;
    }
    const size_t n = (size_t)pcs_water_ph_table_image_bytes(t);
    void *b = malloc(n);
    int rc = b == NULL;
    if (rc) {
        fprintf(stderr, "gen_water_ph: no memory for %zu bytes\n", n);
    } else if (pcs_water_ph_table_image_write(t, b, n) != PCS_OK) {
        fprintf(stderr, "gen_water_ph: %s\n", pcs_last_error());
        rc = 1;
    } else {
        rc = write_file(argv[1], b, n);
    }
    free(b);
    pcs_water_ph_table_destroy(t);
    return rc;
}
