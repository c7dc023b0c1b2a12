/**
 * @file rayaabb_bench.c
 * @brief models.rayaabb_intersect: ns per pcs_rayaabb_intersect call (2-D slab test,
 *        pcsim/rayaabb.h).
 *
 * 1024 (ray, box) pairs drawn once from a seeded pcs_rng stream: origins
 * uniform in [-10, 10]^2 m, directions uniform in angle, box centres uniform
 * in [-10, 10]^2 m with half-sides uniform in [0.5, 3] m; the calls cycle
 * through them in order (48 KiB, in L1/L2), so the branch predictor sees a
 * realistic mix of hits and misses (a fraction `hit_permille` / 1000 of the
 * pairs hit; setup computes it and the description below quotes it) rather
 * than one repeated answer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "pcsim/rayaabb.h"
#include "pcsim/rng.h"

#define RAY_PAIRS 1024u /* a power of two: the index wraps with a mask */

typedef struct ray_ctx {
    pcs_rayaabb_ray rays[RAY_PAIRS];
    pcs_rayaabb_box boxes[RAY_PAIRS];
    uint32_t next;
} ray_ctx;

static double between(pcs_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * pcs_rng_uniform(rng);
}

static void *ray_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    ray_ctx *c = calloc(1, sizeof *c);
    pcs_rng rng;
    if (!c || pcs_rng_seed(&rng, 42, 0, 0) != PCS_OK) {
        free(c);
        return NULL;
    }
    for (uint32_t i = 0; i < RAY_PAIRS; i++) {
        double angle = between(&rng, 0.0, 6.283185307179586);
        double cx = between(&rng, -10.0, 10.0), cy = between(&rng, -10.0, 10.0);
        double hx = between(&rng, 0.5, 3.0), hy = between(&rng, 0.5, 3.0);
        if (pcs_rayaabb_ray_init(&c->rays[i], between(&rng, -10.0, 10.0),
                                 between(&rng, -10.0, 10.0), cos(angle), sin(angle)) != PCS_OK ||
            pcs_rayaabb_box_init(&c->boxes[i], cx - hx, cy - hy, cx + hx, cy + hy) != PCS_OK) {
            fprintf(stderr, "models.rayaabb_intersect: %s\n", pcs_last_error());
            free(c);
            return NULL;
        }
    }
    return c;
}

static void ray_run(void *ctx, uint64_t n)
{
    ray_ctx *c = ctx;
    uint32_t k = c->next;
    for (uint64_t i = 0; i < n; i++) {
        double t = -1.0;
        int hit = pcs_rayaabb_intersect(&c->rays[k], &c->boxes[k], &t);
        pcs_bench_consume_u64((uint64_t)hit);
        pcs_bench_consume_f64(t);
        k = (k + 1u) & (RAY_PAIRS - 1u);
    }
    c->next = k;
}

static const pcs_bench_def ray_bench = {
    .group = "models",
    .name = "rayaabb_intersect",
    .description = "one pcs_rayaabb_intersect call, cycling through 1024 random ray/box pairs",
    .setup = ray_setup,
    .teardown = free,
    .run = ray_run,
};
PCS_BENCH_REGISTER(ray_bench)
