/**
 * @file entity_bench.c
 * @brief entity.*: the entity table (pcsim/entity.h). create_destroy is one
 *        named create and one destroy on a sealed world holding `live`
 *        entities; lookup is pcs_entity_get by handle over `live` handles.
 *        Their baselines do the same on a raw array in the same run: a
 *        push/pop of a free-list index with a generation bump, and an
 *        unchecked index into an array of records: what a table with no ids,
 *        names or checks would cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

typedef struct raw_rec {
    uint64_t id;
    uint32_t generation, kind, store, row, next_free;
} raw_rec;

typedef struct entity_ctx {
    pcs_world *w;
    pcs_entity_handle *handles; /* live handles */
    raw_rec *raw;               /* baselines: `live` records + one free */
    uint32_t live, free_head;
    uint64_t next_id;
    uint32_t cursor;
} entity_ctx;

static long long live_param(const pcs_bench_params *p)
{
    long long live = pcs_bench_param_int(p, "live", 1000);
    if (live < 1 || live > 100000) {
        fprintf(stderr, "entity: live = %lld outside [1, 100000]\n", live);
        return -1;
    }
    return live;
}

static void ctx_free(void *ctx)
{
    entity_ctx *c = ctx;
    if (!c)
        return;
    pcs_world_destroy(c->w);
    free(c->handles);
    free(c->raw);
    free(c);
}

/* A sealed world whose table holds `live` named entities and one free slot. */
static void *table_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    long long live = live_param(p);
    entity_ctx *c = live > 0 ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->live = (uint32_t)live;
    c->handles = calloc(c->live, sizeof *c->handles);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_entity_table_def td = pcs_entity_table_default();
    td.capacity = c->live + 1;
    if (!c->handles || pcs_world_create(&cfg, &c->w) != PCS_OK ||
        pcs_entity_table_add(c->w, &td) != PCS_OK)
        goto fail;
    char name[32];
    for (uint32_t i = 0; i < c->live; i++) {
        pcs_entity_def d = pcs_entity_default();
        snprintf(name, sizeof name, "u%u.dev%u", i % 4 + 1, i);
        d.name = name;
        d.kind = 2;
        if (pcs_entity_create(c->w, &d, &c->handles[i]) != PCS_OK)
            goto fail;
    }
    if (pcs_world_tick(c->w) != PCS_OK) /* sealed: what runs after the build */
        goto fail;
    return c;
fail:
    fprintf(stderr, "entity: %s\n", pcs_last_error());
    ctx_free(c);
    return NULL;
}

static void *raw_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    long long live = live_param(p);
    entity_ctx *c = live > 0 ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->live = (uint32_t)live;
    c->raw = calloc(c->live + 1, sizeof *c->raw);
    if (!c->raw) {
        free(c);
        return NULL;
    }
    for (uint32_t i = 0; i <= c->live; i++)
        c->raw[i] = (raw_rec){.id = i + 1, .generation = 1, .kind = 2, .store = UINT32_MAX};
    c->raw[c->live].id = 0;
    c->free_head = c->live + 1;
    c->next_id = c->live + 1;
    return c;
}

static void create_destroy_run(void *ctx, uint64_t n)
{
    entity_ctx *c = ctx;
    pcs_entity_def d = pcs_entity_default();
    d.name = "u9.pump9";
    d.kind = 2;
    for (uint64_t i = 0; i < n; i++) {
        pcs_entity_handle h;
        pcs_status st = pcs_entity_create(c->w, &d, &h);
        st |= pcs_entity_destroy(c->w, h);
        pcs_bench_consume_u64((uint64_t)st + h.generation);
    }
}

static void raw_create_destroy_run(void *ctx, uint64_t n)
{
    entity_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t s = c->free_head - 1; /* pop */
        c->free_head = c->raw[s].next_free;
        c->raw[s].id = c->next_id++;
        c->raw[s].kind = 2;
        pcs_bench_consume_ptr(&c->raw[s]);
        c->raw[s].id = 0; /* push back, generation bumped */
        c->raw[s].generation++;
        c->raw[s].next_free = c->free_head;
        c->free_head = s + 1;
    }
}

static void lookup_run(void *ctx, uint64_t n)
{
    entity_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_entity_info info;
        pcs_status st = pcs_entity_get(c->w, c->handles[c->cursor], &info);
        c->cursor = c->cursor + 1 == c->live ? 0 : c->cursor + 1;
        pcs_bench_consume_u64(info.id + (uint64_t)st);
    }
}

static void raw_lookup_run(void *ctx, uint64_t n)
{
    entity_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        const raw_rec *r = &c->raw[c->cursor];
        c->cursor = c->cursor + 1 == c->live ? 0 : c->cursor + 1;
        pcs_bench_consume_u64(r->id + r->kind);
    }
}

static uint64_t entity_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((entity_ctx *)ctx)->w);
}

static const pcs_bench_def entity_create_destroy = {
    .group = "entity",
    .name = "create_destroy",
    .description = "pcs_entity_create (named) + pcs_entity_destroy on a sealed world with `live` "
                   "entities",
    .params = {{"live", "1000"}},
    .baseline = "entity.raw_create_destroy",
    .setup = table_setup,
    .teardown = ctx_free,
    .run = create_destroy_run,
    .world_allocs = entity_world_allocs,
};
PCS_BENCH_REGISTER(entity_create_destroy)

static const pcs_bench_def entity_raw_create_destroy = {
    .group = "entity",
    .name = "raw_create_destroy",
    .description = "free-list pop + push with a generation bump on a raw array (baseline)",
    .params = {{"live", "1000"}},
    .setup = raw_setup,
    .teardown = ctx_free,
    .run = raw_create_destroy_run,
};
PCS_BENCH_REGISTER(entity_raw_create_destroy)

static const pcs_bench_def entity_lookup = {
    .group = "entity",
    .name = "lookup",
    .description = "pcs_entity_get by handle (generation-checked), cycling over `live` handles",
    .params = {{"live", "1000"}},
    .baseline = "entity.raw_lookup",
    .setup = table_setup,
    .teardown = ctx_free,
    .run = lookup_run,
    .world_allocs = entity_world_allocs,
};
PCS_BENCH_REGISTER(entity_lookup)

static const pcs_bench_def entity_raw_lookup = {
    .group = "entity",
    .name = "raw_lookup",
    .description = "unchecked index into a raw record array, cycling over `live` (baseline)",
    .params = {{"live", "1000"}},
    .setup = raw_setup,
    .teardown = ctx_free,
    .run = raw_lookup_run,
};
PCS_BENCH_REGISTER(entity_raw_lookup)
