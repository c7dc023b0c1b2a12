/**
 * @file particles_bench.c
 * @brief models.particles: ns per particle of one grid-particle step (pcsim/particles.h).
 *
 * `particles` particles on a size x size grid (issue 9: 10k on 512^2) with
 * about 5 % of the cells obstacles, all drawn from a seeded pcs_rng stream.
 * Velocities are uniform in [-2, 2] cells per step on each axis, so a step
 * makes 2 unit moves per particle on average, some of them bounces. One
 * operation is one particle of one pcs_particles_step (ops_per_invocation =
 * particles). Particles never stop, so the cost does not drift as it runs.
 * The model has no thread option (particles.h): no omp variant.
 */
#include <stdio.h>

#include "bench/bench.h"
#include "pcsim/particles.h"
#include "pcsim/rng.h"

/* A random cell, as int32 coordinates. */
static void random_cell(pcs_rng *rng, uint32_t size, int32_t *x, int32_t *y)
{
    *x = (int32_t)(pcs_rng_next_u64(rng) % size);
    *y = (int32_t)(pcs_rng_next_u64(rng) % size);
}

static int populate(pcs_particles *m, uint32_t size, uint32_t count)
{
    pcs_rng rng;
    pcs_rng_seed(&rng, 42, 0, 0);
    uint64_t obstacles = (uint64_t)size * size / 20u;
    for (uint64_t i = 0; i < obstacles; i++) {
        int32_t x, y;
        random_cell(&rng, size, &x, &y);
        pcs_particles_set_obstacle(m, (uint32_t)x, (uint32_t)y, 1);
    }
    for (uint32_t added = 0, tries = 0; added < count; tries++) {
        if (tries > 100u * count)
            return -1; /* the grid is (nearly) all obstacles */
        int32_t x, y;
        random_cell(&rng, size, &x, &y);
        int32_t vx = (int32_t)(pcs_rng_next_u64(&rng) % 5u) - 2;
        int32_t vy = (int32_t)(pcs_rng_next_u64(&rng) % 5u) - 2;
        if (pcs_particles_spawn(m, x, y, vx, vy, NULL) == PCS_OK)
            added++; /* refused on an obstacle: draw again */
    }
    return 0;
}

static void *part_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    long long size = pcs_bench_param_int(p, "size", 512);
    long long count = pcs_bench_param_int(p, "particles", 10000);
    if (size < 4 || size > PCS_PARTICLES_SIDE_MAX || count < 1 || count > PCS_PARTICLES_MAX) {
        fprintf(stderr,
                "models.particles: size %lld outside [4, 4096] or particles %lld outside "
                "[1, 2^20]\n",
                size, count);
        return NULL;
    }
    pcs_particles_def cfg;
    pcs_particles_default(&cfg);
    cfg.width = (uint32_t)size;
    cfg.height = (uint32_t)size;
    cfg.max_particles = (uint32_t)count;
    pcs_particles *m = NULL;
    if (pcs_particles_create(&cfg, &m) != PCS_OK ||
        populate(m, cfg.width, cfg.max_particles) != 0) {
        fprintf(stderr, "models.particles: %s\n", m ? "no free cells" : pcs_last_error());
        pcs_particles_destroy(m);
        return NULL;
    }
    info->ops_per_invocation = (uint64_t)count;
    return m;
}

static void part_teardown(void *ctx)
{
    pcs_particles_destroy(ctx);
}

static void part_run(void *ctx, uint64_t n)
{
    pcs_particles *m = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_particles_step(m));
    int32_t x;
    pcs_particles_get(m, 0, &x, NULL, NULL, NULL);
    pcs_bench_consume_u64((uint64_t)x);
}

static const pcs_bench_def part_bench = {
    .group = "models",
    .name = "particles",
    .description = "one particle of one pcs_particles_step, size x size grid, 5 % obstacles",
    .params = {{"particles", "10000"}, {"size", "512"}},
    .setup = part_setup,
    .teardown = part_teardown,
    .run = part_run,
};
PCS_BENCH_REGISTER(part_bench)
