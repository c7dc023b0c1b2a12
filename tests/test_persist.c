/**
 * @file test_persist.c
 * @brief Save/load: resume equals uninterrupted run; bad files never load partially.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"

/* A world with a chaotic-ish state update, an rng in state, and a slow job
 * whose run is pending across the save point. */
typedef struct model {
    uint32_t x, rng;
} model;

static pcs_status step(pcs_world *w, void *ctx)
{
    model *m = ctx;
    double *x = pcs_store_data(w, m->x);
    pcs_rng *r = pcs_store_data(w, m->rng);
    for (int i = 0; i < 64; i++)
        x[i] = 3.9 * x[i] * (1.0 - x[i]) * 0.999 + 0.001 * pcs_rng_uniform(r);
    return PCS_OK;
}

static pcs_status job_copy(pcs_world *w, void *ctx, void *input)
{
    model *m = ctx;
    memcpy(input, pcs_store_data(w, m->x), 64 * sizeof(double));
    return PCS_OK;
}

static pcs_status job_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    (void)ctx;
    const double *in = input;
    double s = 0.0;
    for (uint32_t i = c * 32; i < c * 32 + 32; i++)
        s += in[i];
    *(double *)output = s;
    return PCS_OK;
}

static pcs_status job_merge(pcs_world *w, void *ctx, const void *input, void *const *out,
                            uint32_t n)
{
    (void)input;
    model *m = ctx;
    double *x = pcs_store_data(w, m->x);
    for (uint32_t c = 0; c < n; c++)
        x[64 + c] += *(const double *)out[c];
    return PCS_OK;
}

static pcs_world *build(model *m, uint64_t seed, size_t extra)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.seed = seed;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "x", 8, 66 + extra, PCS_STORE_STATE, &m->x), PCS_OK);
    cr_assert_eq(pcs_store_register(w, "rng", sizeof(pcs_rng), 1, PCS_STORE_STATE, &m->rng),
                 PCS_OK);
    double *x = pcs_store_data(w, m->x);
    for (int i = 0; i < 64; i++)
        x[i] = 0.1 + 0.01 * i;
    pcs_rng_seed(pcs_store_data(w, m->rng), seed, 0, 0);
    uint32_t writes[] = {m->x, m->rng}; /* step() touches both (check_access) */
    pcs_system_desc d = {.name = "step",
                         .stage = PCS_STAGE_HEAT,
                         .fn = step,
                         .ctx = m,
                         .writes = writes,
                         .n_writes = 2};
    cr_assert_eq(pcs_system_register(w, &d, NULL), PCS_OK);
    pcs_job_desc j = {.name = "sum", .domain = PCS_DOMAIN_SLOW, .phase = 7, .n_chunks = 2,
                      .input_bytes = 64 * sizeof(double), .output_bytes = sizeof(double),
                      .copy_inputs = job_copy, .run_chunk = job_chunk, .merge = job_merge,
                      .ctx = m};
    cr_assert_eq(pcs_job_register(w, &j, NULL), PCS_OK);
    return w;
}

static void run(pcs_world *w, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
}

static char path[64];

static void tmp_path(void)
{
    snprintf(path, sizeof path, "/tmp/pcsim-test-%d.save", (int)getpid());
}

Test(persist, save_load_resume_matches_uninterrupted_run)
{
    tmp_path();
    static model a, b;
    pcs_world *straight = build(&a, 11, 0);
    run(straight, 2400);
    uint64_t want = pcs_world_state_hash(straight);

    pcs_world *first = build(&a, 11, 0);
    run(first, 1210); /* 1210 % 20 = 10: the job submitted at 1207 is pending */
    cr_assert_eq(pcs_world_save(first, path), PCS_OK, "%s", pcs_last_error());
    pcs_world *second = build(&b, 11, 0);
    cr_assert_eq(pcs_world_load(second, path), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_state_hash(second), pcs_world_state_hash(first));
    run(second, 1190);
    cr_assert_eq(pcs_world_clock(second)->tick, 2400);
    cr_assert_eq(pcs_world_state_hash(second), want);
    remove(path);
    pcs_world_destroy(straight);
    pcs_world_destroy(first);
    pcs_world_destroy(second);
}

/* Write a valid save, damage it with @p damage, and check the load fails with
 * @p want while the target world keeps its state. */
static void expect_bad(void (*damage)(FILE *f, long size), pcs_status want, const char *text)
{
    tmp_path();
    static model a, b;
    pcs_world *src = build(&a, 5, 0);
    run(src, 30);
    cr_assert_eq(pcs_world_save(src, path), PCS_OK);
    FILE *f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    damage(f, size);
    fclose(f);
    pcs_world *dst = build(&b, 5, 0);
    run(dst, 3);
    uint64_t before = pcs_world_state_hash(dst);
    cr_assert_eq(pcs_world_load(dst, path), want, "%s", pcs_last_error());
    cr_assert(strstr(pcs_last_error(), text) != NULL, "'%s' mentions '%s'", pcs_last_error(),
              text);
    cr_assert_eq(pcs_world_state_hash(dst), before, "a failed load changes nothing");
    cr_assert_eq(pcs_world_clock(dst)->tick, 3);
    remove(path);
    pcs_world_destroy(src);
    pcs_world_destroy(dst);
}

static void truncate_half(FILE *f, long size)
{
    cr_assert_eq(ftruncate(fileno(f), size / 2), 0);
}

static void flip_last_byte(FILE *f, long size)
{
    fseek(f, size - 1, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size - 1, SEEK_SET);
    fputc(c ^ 0x01, f);
}

static void future_version(FILE *f, long size)
{
    (void)size;
    uint32_t v = 99;
    fseek(f, 8, SEEK_SET);
    fwrite(&v, sizeof v, 1, f);
}

static void bad_magic(FILE *f, long size)
{
    (void)size;
    fseek(f, 0, SEEK_SET);
    fputc('X', f);
}

Test(persist, truncated_file_is_corrupt)
{
    expect_bad(truncate_half, PCS_E_CORRUPT, "truncated");
}

Test(persist, flipped_bit_is_corrupt)
{
    expect_bad(flip_last_byte, PCS_E_CORRUPT, "checksum");
}

Test(persist, future_version_is_refused)
{
    expect_bad(future_version, PCS_E_VERSION, "version 99");
}

Test(persist, bad_magic_is_corrupt)
{
    expect_bad(bad_magic, PCS_E_CORRUPT, "magic");
}

Test(persist, different_world_layout_is_refused)
{
    tmp_path();
    static model a, b;
    pcs_world *src = build(&a, 5, 0);
    cr_assert_eq(pcs_world_save(src, path), PCS_OK);
    pcs_world *other = build(&b, 5, 3); /* store 'x' three elements longer */
    cr_assert_eq(pcs_world_load(other, path), PCS_E_CORRUPT);
    cr_assert(strstr(pcs_last_error(), "store:x") != NULL, "%s", pcs_last_error());
    remove(path);
    pcs_world_destroy(src);
    pcs_world_destroy(other);
}

Test(persist, missing_file_and_bad_args)
{
    static model a;
    pcs_world *w = build(&a, 5, 0);
    cr_assert_eq(pcs_world_load(w, "/nonexistent/dir/x.save"), PCS_E_IO);
    cr_assert(strstr(pcs_last_error(), "/nonexistent/dir/x.save") != NULL);
    cr_assert_eq(pcs_world_save(w, "/nonexistent/dir/x.save"), PCS_E_IO);
    cr_assert_eq(pcs_world_save(NULL, "x"), PCS_E_INVAL);
    cr_assert_eq(pcs_world_load(w, NULL), PCS_E_INVAL);
    pcs_world_destroy(w);
}
