/**
 * @file test_fuzz_regressions.c
 * @brief Inputs the fuzz targets (tests/fuzz/) found crashing, rebuilt here
 *        without depending on the save layout: each edits one store of a
 *        real plant's save, reseals the checksums as an attacker would, and
 *        expects the load to be refused with the world unchanged.
 *
 * The fuzz input itself is kept in tests/fuzz/corpus/ (replayed by make
 * fuzz-smoke); this test still reproduces the case after a format change.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/persist_internal.h"
#include "pcsim/pcsim.h"
#include "pcsim/plant.h"

static pcs_world *instrumented_plant(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    pcs_plant_unit_def u;
    pcs_plant_unit_default(&u);
    pcs_plant *p = NULL;
    cr_assert_eq(pcs_plant_add(w, &u, 1, &p), PCS_OK, "%s", pcs_last_error());
    pcs_plant_setpoints sp;
    pcs_plant_setpoints_default(&sp);
    cr_assert_eq(pcs_plant_instrument(w, p, &sp), PCS_OK, "%s", pcs_last_error());
    for (int i = 0; i < 30; i++) /* past the rate windows (20 ticks) */
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    return w;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_gt(n, 0);
    rewind(f);
    unsigned char *b = malloc((size_t)n);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void write_all(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/*
 * Save @p w with @p size bytes at byte @p offset of store @p name replaced by
 * @p value in the file, checksums resealed. The store is found in the file
 * by writing a sentinel into it for the save, so no layout is assumed.
 */
static void save_with_edit(pcs_world *w, const char *name, size_t offset, const void *value,
                           size_t size, const char *path)
{
    uint32_t id;
    cr_assert_eq(pcs_store_find(w, name, &id), PCS_OK, "%s", name);
    unsigned char *data = pcs_store_data(w, id);
    size_t bytes = pcs_store_bytes(w, id), n = bytes / sizeof(uint32_t);
    cr_assert_leq(offset + size, bytes);
    cr_assert_geq(n, 2, "store '%s' is too small to find by a sentinel", name);
    unsigned char *orig = malloc(bytes);
    uint32_t *mark = malloc(n * sizeof *mark);
    cr_assert(orig && mark);
    memcpy(orig, data, bytes);
    for (size_t i = 0; i < n; i++)
        mark[i] = 0xA75E0000u ^ ((uint32_t)i * 2654435761u);
    memcpy(data, mark, n * sizeof *mark);
    cr_assert_eq(pcs_world_save(w, path), PCS_OK, "%s", pcs_last_error());
    memcpy(data, orig, bytes);
    size_t len;
    unsigned char *b = read_all(path, &len);
    unsigned char *at = memmem(b, len, mark, n * sizeof *mark);
    cr_assert_not_null(at, "store '%s' not found in the save", name);
    memcpy(orig + offset, value, size);
    memcpy(at, orig, bytes);
    cr_assert_gt(pcs_persist_reseal(b, len), 0);
    write_all(path, b, len);
    free(b);
    free(orig);
    free(mark);
}

static void save_with_u32(pcs_world *w, const char *name, uint32_t index, uint32_t value,
                          const char *path)
{
    save_with_edit(w, name, index * sizeof value, &value, sizeof value, path);
}

static void save_with_double(pcs_world *w, const char *name, uint32_t index, double value,
                             const char *path)
{
    save_with_edit(w, name, index * sizeof value, &value, sizeof value, path);
}

static void temp_path(char path[32])
{
    snprintf(path, 32, "/tmp/pcsim-fuzzreg-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
}

/* fuzz_save, tests/fuzz/corpus/save/crash-protection-rate-ring.save: a rate trip
 * function's ring position past its window made the next tick write past
 * rps.rate_hist (heap overflow; 2^30 crashed). rps.rate_ring holds
 * [position, fill count] per function; each rate function's position is
 * tried in turn. Returns 0 if a load was accepted (the world then holds
 * the bad value: the caller stops). */
static int ring_position_is_refused(pcs_world *w, uint32_t pos)
{
    char path[32];
    temp_path(path);
    uint32_t id;
    cr_assert_eq(pcs_store_find(w, "rps.rate_ring", &id), PCS_OK);
    const uint32_t *ring = pcs_store_data(w, id);
    uint32_t n = (uint32_t)(pcs_store_bytes(w, id) / sizeof(uint32_t)), rate_functions = 0;
    uint64_t before = pcs_world_state_hash(w);
    for (uint32_t i = 0; i < n; i += 2) { /* [2f] position, [2f+1] fill count */
        if (ring[i + 1] == 0)
            continue; /* a level function: its ring is unused */
        rate_functions++;
        save_with_u32(w, "rps.rate_ring", i, pos, path);
        pcs_status st = pcs_world_load(w, path);
        cr_expect_neq(st, PCS_OK, "rps.rate_ring[%u] = %u was accepted", i, pos);
        if (st == PCS_OK) { /* do not tick into the overflow */
            unlink(path);
            return 0;
        }
        cr_assert_eq(pcs_world_state_hash(w), before,
                     "rps.rate_ring[%u] = %u: a refused load "
                     "changed the world",
                     i, pos);
    }
    cr_assert_gt(rate_functions, 0, "the plant has no rate trip function to test");
    for (int t = 0; t < 3; t++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    unlink(path);
    return 1;
}

/* One plant takes both positions in turn (a refused load leaves it as it
 * was; a station build settles a primary). */
Test(fuzz_regressions, protection_ring_position_40_and_2_pow_30_are_refused)
{
    pcs_world *w = instrumented_plant();
    if (ring_position_is_refused(w, 40))
        ring_position_is_refused(w, 1u << 30);
    pcs_world_destroy(w);
}

/* A hydraulic value that must be refused: the load fails, the world is
 * unchanged, and it still ticks. If the load is accepted the world is not
 * ticked (that is what hangs or crashes) and 0 is returned: the caller
 * stops. */
static int hyd_value_is_refused(pcs_world *w, const char *store, uint32_t index, double value)
{
    char path[32];
    temp_path(path);
    uint64_t before = pcs_world_state_hash(w);
    save_with_double(w, store, index, value, path);
    pcs_status st = pcs_world_load(w, path);
    unlink(path);
    cr_expect_neq(st, PCS_OK, "%s[%u] = %g was accepted", store, index, value);
    if (st == PCS_OK)
        return 0;
    cr_assert_eq(pcs_world_state_hash(w), before, "%s[%u] = %g: a refused load changed the world",
                 store, index, value);
    for (int t = 0; t < 3; t++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "after %s[%u] = %g: %s", store, index, value,
                     pcs_last_error());
    return 1;
}

/* fuzz_save, tests/fuzz/corpus/save/crash-hyd-subcycles-cast.save and
 * timeout-hyd-transport.save found these in the constant-density loops
 * (a pressure of -7.93891e+145 made a sub-cycle count of 1.3e134; a node
 * mass of 0 or 1e-6 made billions of sub-cycles). The station's two-phase
 * primary keeps the same kinds of state; its load check must refuse the
 * same values in the station's save (physics/thermohydraulics/models/
 * primary_build.c), before any tick sees them. One plant takes the three
 * in turn; each message names the store, element and value. */
Test(fuzz_regressions, negative_pressure_and_zero_or_tiny_mass_are_refused)
{
    pcs_world *w = instrumented_plant();
    if (hyd_value_is_refused(w, "u1.pri.p", 9, -7.93891e+145) &&
        hyd_value_is_refused(w, "u1.pri.mass", 0, 0.0))
        hyd_value_is_refused(w, "u1.pri.mass", 0, 1e-6);
    pcs_world_destroy(w);
}
