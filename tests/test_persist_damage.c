/**
 * @file test_persist_damage.c
 * @brief Save files damaged at every byte: truncated at each offset, or with
 *        one byte flipped anywhere, a load fails with PCS_E_CORRUPT (or
 *        PCS_E_VERSION for the version field), never crashes, and leaves the
 *        world exactly as it was.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"

/* Layout constants of save-format version 2 (include/pcsim/persist.h):
 * header = magic[8] u32 version u32 n u64 tick u64 seed u64 build_hash
 * u32 layout u32 reserved; table entry = name[64] u64 offset u64 bytes
 * u64 elem_size u64 count u64 checksum; then one u64 meta checksum. */
enum { PD_HEADER = 48, PD_ENTRY = 104, PD_VERSION_AT = 8 };

typedef struct pd_model {
    uint32_t x, n;
} pd_model;

static pcs_status pd_step(pcs_world *w, void *ctx)
{
    pd_model *m = ctx;
    double *x = pcs_store_data(w, m->x);
    uint32_t *n = pcs_store_data(w, m->n);
    for (int i = 0; i < 16; i++)
        x[i] = x[i] * 0.5 + (double)i;
    n[0]++;
    return PCS_OK;
}

static pcs_status pd_copy(pcs_world *w, void *ctx, void *input)
{
    pd_model *m = ctx;
    memcpy(input, pcs_store_data(w, m->x), 16 * sizeof(double));
    return PCS_OK;
}

static pcs_status pd_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    (void)ctx;
    *(double *)output = ((const double *)input)[c];
    return PCS_OK;
}

static pcs_status pd_merge(pcs_world *w, void *ctx, const void *input, void *const *out, uint32_t n)
{
    (void)input;
    pd_model *m = ctx;
    double *x = pcs_store_data(w, m->x);
    for (uint32_t c = 0; c < n; c++)
        x[16] += *(const double *)out[c];
    return PCS_OK;
}

/* Two state stores, one scratch store (not saved), one slow job and the
 * previous tick's events: four sections. Four event slots keep the file, and
 * so the every-byte loops, small. */
static pcs_world *pd_build_seeded(pd_model *m, uint64_t seed)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.seed = seed;
    cfg.event_capacity = 4;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    uint32_t scratch;
    cr_assert_eq(pcs_store_register(w, "x", 8, 17, PCS_STORE_STATE, &m->x), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "tmp", 8, 4, PCS_STORE_SCRATCH, &scratch), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "n", 4, 1, PCS_STORE_STATE, &m->n), PCS_OK);
    uint32_t writes[] = {m->x, m->n}; /* pd_step() touches both (check_access) */
    pcs_system_desc d = {.name = "step",
                         .stage = PCS_STAGE_HEAT,
                         .fn = pd_step,
                         .ctx = m,
                         .writes = writes,
                         .n_writes = 2};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    pcs_job_desc j = {.name = "sum",
                      .domain = PCS_DOMAIN_SLOW,
                      .phase = 3,
                      .n_chunks = 2,
                      .input_bytes = 16 * sizeof(double),
                      .output_bytes = sizeof(double),
                      .copy_inputs = pd_copy,
                      .run_chunk = pd_chunk,
                      .merge = pd_merge,
                      .ctx = m};
    cr_assert_eq(pcs_job_register(w, &j, NULL), PCS_OK);
    return w;
}

static pcs_world *pd_build(pd_model *m)
{
    return pd_build_seeded(m, 1);
}

static void pd_ticks(pcs_world *w, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
}

static char pd_path[96];

/* A valid save of a world that ran 25 ticks (job pending), read into memory. */
static unsigned char *pd_valid_save(size_t *len)
{
    snprintf(pd_path, sizeof pd_path, "/tmp/pcsim-damage-%d.save", (int)getpid());
    static pd_model m;
    pcs_world *w = pd_build(&m);
    pd_ticks(w, 25);
    cr_assert_eq(pcs_world_save(w, pd_path), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(w);
    FILE *f = fopen(pd_path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Overwrite pd_path with b[0..n) in place, then cut it to n bytes. Not
 * fopen "wb": on ext4 a file truncated to zero and rewritten is flushed to
 * disk at close (auto_da_alloc), a disk write for each of the thousands of
 * damaged copies below. */
static void pd_write(const unsigned char *b, size_t n)
{
    int fd = open(pd_path, O_WRONLY | O_CREAT, 0600);
    cr_assert_geq(fd, 0, "%s: %s", pd_path, strerror(errno));
    cr_assert_eq(pwrite(fd, b, n, 0), (ssize_t)n, "%s: %s", pd_path, strerror(errno));
    cr_assert_eq(ftruncate(fd, (off_t)n), 0, "%s: %s", pd_path, strerror(errno));
    close(fd);
}

/* Load the file at pd_path into @p dst; the load must fail with one of the
 * wanted statuses and change nothing. */
static void pd_expect_refused(pcs_world *dst, uint64_t hash_before, const char *what, size_t at,
                              int version_ok)
{
    pcs_status st = pcs_world_load(dst, pd_path);
    cr_assert(st == PCS_E_CORRUPT || (version_ok && st == PCS_E_VERSION),
              "%s at byte %zu: load returned %s (%s)", what, at, pcs_status_str(st),
              pcs_last_error());
    cr_assert_neq(pcs_last_error()[0], '\0', "%s at byte %zu: no message", what, at);
    cr_assert_eq(pcs_world_state_hash(dst), hash_before, "%s at byte %zu changed the world", what,
                 at);
    cr_assert_eq(pcs_world_clock(dst)->tick, 7);
}

Test(persist_damage, truncated_at_every_offset_is_corrupt_and_changes_nothing)
{
    size_t len;
    unsigned char *good = pd_valid_save(&len);
    static pd_model m;
    pcs_world *dst = pd_build(&m);
    pd_ticks(dst, 7);
    uint64_t before = pcs_world_state_hash(dst);
    for (size_t cut = 0; cut < len; cut++) {
        pd_write(good, cut);
        pd_expect_refused(dst, before, "truncation", cut, 0);
    }
    /* The intact file still loads, so the loop above tested real damage. */
    pd_write(good, len);
    cr_assert_eq(pcs_world_load(dst, pd_path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_clock(dst)->tick, 25);
    remove(pd_path);
    free(good);
    pcs_world_destroy(dst);
}

Test(persist_damage, every_flipped_byte_is_refused_and_changes_nothing)
{
    size_t len;
    unsigned char *good = pd_valid_save(&len);
    /* 4 sections: store x (136 B), store n (4 B), job sum (16 + 128 B),
     * events:previous (16 + 4 slots of 48 B). */
    const size_t meta = PD_HEADER + 4 * PD_ENTRY + 8;
    cr_assert_eq(len, meta + 136 + 4 + 16 + 128 + 16 + 4 * 48, "save layout changed: %zu bytes",
                 len);
    static pd_model m;
    pcs_world *dst = pd_build(&m);
    pd_ticks(dst, 7);
    uint64_t before = pcs_world_state_hash(dst);
    unsigned char *bad = malloc(len);
    static const unsigned char masks[] = {0x01, 0x80, 0xff};
    for (size_t at = 0; at < len; at++) {
        for (size_t k = 0; k < sizeof masks; k++) {
            memcpy(bad, good, len);
            bad[at] ^= masks[k];
            pd_write(bad, len);
            int in_version = at >= PD_VERSION_AT && at < PD_VERSION_AT + 4;
            pd_expect_refused(dst, before, "flip", at, in_version);
        }
    }
    remove(pd_path);
    free(bad);
    free(good);
    pcs_world_destroy(dst);
}

Test(persist_damage, empty_and_garbage_files_are_corrupt)
{
    snprintf(pd_path, sizeof pd_path, "/tmp/pcsim-damage-%d.save", (int)getpid());
    static pd_model m;
    pcs_world *dst = pd_build(&m);
    pd_ticks(dst, 7);
    uint64_t before = pcs_world_state_hash(dst);
    unsigned char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 2654435761u >> 13);
    pd_write(junk, 0);
    pd_expect_refused(dst, before, "empty file", 0, 0);
    pd_write(junk, sizeof junk);
    pd_expect_refused(dst, before, "garbage", 0, 0);
    memset(junk, 0, sizeof junk);
    pd_write(junk, sizeof junk);
    pd_expect_refused(dst, before, "zeros", 0, 0);
    remove(pd_path);
    pcs_world_destroy(dst);
}

/* The header records the world seed: a world built with another seed is a
 * different scenario (models may seed streams from it after the load), so
 * the load is refused rather than resumed into a run that cannot match. */
Test(persist_damage, world_with_another_seed_is_refused)
{
    size_t len;
    unsigned char *good = pd_valid_save(&len); /* seed 1 */
    pd_write(good, len);
    static pd_model m;
    pcs_world *dst = pd_build_seeded(&m, 2);
    pd_ticks(dst, 7);
    uint64_t before = pcs_world_state_hash(dst);
    pd_expect_refused(dst, before, "seed 2 vs 1", 0, 0);
    cr_assert(strstr(pcs_last_error(), "seed") != NULL, "%s", pcs_last_error());
    remove(pd_path);
    free(good);
    pcs_world_destroy(dst);
}
