/**
 * @file profile_bench.c
 * @brief The profile module's cost: an empty world's tick with stage timers on, attached and
 *        detached again (off), against tick.empty_world (never attached); and the span API
 *        with no trace session.
 *
 * "Off" must cost nothing measurable: a detached world runs the same NULL-observer
 * branch as one that never had a profile, so tick.empty_world_profile_detached
 * should read x1.00 against its baseline within the error. "On" costs 14
 * clock reads per tick plus histogram updates.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"

typedef struct prof_ctx {
    pcs_world *w;
    pcs_profile *p;
} prof_ctx;

static prof_ctx *make_world(int attach, int detach)
{
    prof_ctx *c = calloc(1, sizeof *c);
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    if (!c || pcs_world_create(&cfg, &c->w) != PCS_OK ||
        (attach && pcs_profile_attach(c->w, &c->p) != PCS_OK)) {
        fprintf(stderr, "profile bench: %s\n", pcs_last_error());
        if (c)
            pcs_world_destroy(c->w);
        free(c);
        return NULL;
    }
    if (detach) {
        pcs_profile_detach(c->p);
        c->p = NULL;
    }
    return c;
}

static void *on_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return make_world(1, 0);
}

static void *detached_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return make_world(1, 1);
}

static void prof_teardown(void *ctx)
{
    prof_ctx *c = ctx;
    pcs_profile_detach(c->p);
    pcs_world_destroy(c->w);
    free(c);
}

static void tick_run(void *ctx, uint64_t n)
{
    prof_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(c->w));
}

static uint64_t prof_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((prof_ctx *)ctx)->w);
}

static const pcs_bench_def profiled = {
    .group = "tick",
    .name = "empty_world_profiled",
    .description = "tick.empty_world with stage timers attached (profile on)",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "tick.empty_world",
    .setup = on_setup,
    .teardown = prof_teardown,
    .run = tick_run,
    .world_allocs = prof_world_allocs,
};
PCS_BENCH_REGISTER(profiled)

static const pcs_bench_def detached = {
    .group = "tick",
    .name = "empty_world_profile_detached",
    .description = "tick.empty_world after attaching and detaching a profile (profile off)",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "tick.empty_world",
    .setup = detached_setup,
    .teardown = prof_teardown,
    .run = tick_run,
    .world_allocs = prof_world_allocs,
};
PCS_BENCH_REGISTER(detached)

static void span_idle_run(void *ctx, uint64_t n)
{
    (void)ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_profile_span s = pcs_profile_span_begin("bench.span", "bench", i);
        pcs_profile_span_end(&s);
    }
}

static const pcs_bench_def span_idle = {
    .group = "profile",
    .name = "span_no_session",
    .description = "pcs_profile_span_begin + _end while no trace session records",
    .run = span_idle_run,
};
PCS_BENCH_REGISTER(span_idle)
