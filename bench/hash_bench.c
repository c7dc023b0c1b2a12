/**
 * @file hash_bench.c
 * @brief hash.state: pcs_world_state_hash over one STATE store of `bytes` bytes, with the bare
 *        XXH3-64 of the same bytes as its baseline (the engine's overhead over the hash itself).
 */
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

typedef struct hash_ctx {
    pcs_world *w;
    unsigned char *raw;
    size_t bytes;
} hash_ctx;

/* Deterministic non-trivial content (splitmix64 stream). */
static void fill(unsigned char *p, size_t n)
{
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (s += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        p[i] = (unsigned char)(z >> 56);
    }
}

static void *hash_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    long long bytes = pcs_bench_param_int(p, "bytes", 65536);
    if (bytes < 1 || bytes > (1ll << 30)) {
        fprintf(stderr, "hash: bytes = %lld outside [1, 2^30]\n", bytes);
        return NULL;
    }
    hash_ctx *c = calloc(1, sizeof *c);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    uint32_t id;
    if (!c || pcs_world_create(&cfg, &c->w) != PCS_OK ||
        pcs_store_register(c->w, "bench.state", 1, (size_t)bytes, PCS_STORE_STATE, &id) != PCS_OK) {
        fprintf(stderr, "hash.state: %s\n", pcs_last_error());
        if (c)
            pcs_world_destroy(c->w);
        free(c);
        return NULL;
    }
    c->bytes = (size_t)bytes;
    fill(pcs_store_data(c->w, id), c->bytes);
    return c;
}

static void *raw_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    long long bytes = pcs_bench_param_int(p, "bytes", 65536);
    if (bytes < 1 || bytes > (1ll << 30))
        return NULL;
    hash_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->bytes = (size_t)bytes;
    c->raw = aligned_alloc(64, (c->bytes + 63) / 64 * 64);
    if (!c->raw) {
        free(c);
        return NULL;
    }
    fill(c->raw, c->bytes);
    return c;
}

static void hash_teardown(void *ctx)
{
    hash_ctx *c = ctx;
    pcs_world_destroy(c->w);
    free(c->raw);
    free(c);
}

static void state_run(void *ctx, uint64_t n)
{
    hash_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64(pcs_world_state_hash(c->w));
}

static void raw_run(void *ctx, uint64_t n)
{
    hash_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_bench_consume_ptr(c->raw); /* the buffer may have changed: hash it again */
        pcs_bench_consume_u64(XXH3_64bits(c->raw, c->bytes));
    }
}

static uint64_t hash_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((hash_ctx *)ctx)->w);
}

static const pcs_bench_def hash_state = {
    .group = "hash",
    .name = "state",
    .description = "pcs_world_state_hash of a world with one STATE store of `bytes` bytes",
    .params = {{"bytes", "65536"}},
    .baseline = "hash.xxh3_raw",
    .setup = hash_setup,
    .teardown = hash_teardown,
    .run = state_run,
    .world_allocs = hash_world_allocs,
};
PCS_BENCH_REGISTER(hash_state)

static const pcs_bench_def hash_raw = {
    .group = "hash",
    .name = "xxh3_raw",
    .description = "XXH3_64bits over `bytes` bytes (peer baseline for hash.state)",
    .params = {{"bytes", "65536"}},
    .setup = raw_setup,
    .teardown = hash_teardown,
    .run = raw_run,
};
PCS_BENCH_REGISTER(hash_raw)
