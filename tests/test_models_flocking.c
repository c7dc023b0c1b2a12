/**
 * @file test_models_flocking.c
 * @brief Tests for the 2-D flocking model (include/pcsim/flocking.h).
 *
 * Hand-computed single steps of each rule, the speed cap, exact mirror
 * symmetry of two agents, agreement of the grid search with a brute-force
 * O(n^2) reference written here from the header's equations, and
 * determinism across runs, thread counts and worlds.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <pcsim/flocking.h>
#include <pcsim/world.h>

static pcs_flocking_def fl_cfg(uint32_t agents)
{
    pcs_flocking_def c;
    cr_assert_eq(pcs_flocking_default(&c), PCS_OK);
    c.agents = agents;
    return c;
}

static pcs_flocking *fl_make(const pcs_flocking_def *c)
{
    pcs_flocking *m = NULL;
    cr_assert_eq(pcs_flocking_create(c, &m), PCS_OK, "%s", pcs_last_error());
    return m;
}

typedef struct fl_agent {
    double x, y, vx, vy;
} fl_agent;

static fl_agent fl_get(const pcs_flocking *m, uint32_t i)
{
    fl_agent a;
    cr_assert_eq(pcs_flocking_get_agent(m, i, &a.x, &a.y, &a.vx, &a.vy), PCS_OK);
    return a;
}

Test(models_flocking, lone_agent_moves_in_a_straight_line_and_wraps)
{
    pcs_flocking_def c = fl_cfg(1);
    c.width_m = c.height_m = 10.0;
    c.dt_s = 0.5;
    pcs_flocking *m = fl_make(&c);
    cr_assert_eq(pcs_flocking_set_agent(m, 0, 4.0, 0.0, 4.0, -2.0), PCS_OK);
    pcs_flocking_step(m);
    fl_agent a = fl_get(m, 0);
    /* x = 4 + 0.5 * 4 = 6 > 5 wraps to 6 - 10 = -4; y = 0 - 1 = -1 */
    cr_assert_eq(a.x, -4.0);
    cr_assert_eq(a.y, -1.0);
    cr_assert_eq(a.vx, 4.0);
    cr_assert_eq(a.vy, -2.0);
    pcs_flocking_destroy(m);
}

Test(models_flocking, cohesion_and_separation_by_hand)
{
    /* A at (-2, 0), B at (2, 0), both at rest; w_align 0, w_cohesion 0.5,
     * w_separation 2, dt 0.1. For A: d = (4, 0), n = 1.
     * a = 0.5 * 4 - 2 * 4 / 16 = 2 - 0.5 = 1.5; v' = 0.15; x' = -2 + 0.015. */
    pcs_flocking_def c = fl_cfg(2);
    c.width_m = c.height_m = 20.0;
    c.radius_m = 5.0;
    c.w_align = 0.0;
    c.w_cohesion = 0.5;
    c.w_separation = 2.0;
    c.dt_s = 0.1;
    pcs_flocking *m = fl_make(&c);
    pcs_flocking_set_agent(m, 0, -2.0, 0.0, 0.0, 0.0);
    pcs_flocking_set_agent(m, 1, 2.0, 0.0, 0.0, 0.0);
    pcs_flocking_step(m);
    fl_agent a = fl_get(m, 0), b = fl_get(m, 1);
    cr_assert_float_eq(a.vx, 0.15, 1e-15);
    cr_assert_float_eq(a.x, -1.985, 1e-15);
    cr_assert_eq(a.vy, 0.0);
    cr_assert_eq(b.vx, -a.vx);
    /* At distance sqrt(w_separation / w_cohesion) = 2 the two rules balance. */
    pcs_flocking_set_agent(m, 0, -1.0, 0.0, 0.0, 0.0);
    pcs_flocking_set_agent(m, 1, 1.0, 0.0, 0.0, 0.0);
    pcs_flocking_step(m);
    cr_assert_eq(fl_get(m, 0).x, -1.0);
    cr_assert_eq(fl_get(m, 0).vx, 0.0);
    pcs_flocking_destroy(m);
}

Test(models_flocking, alignment_by_hand_and_radius_is_exclusive)
{
    /* w_align 2 only: A's velocity (1, 0) turns toward B's (0, 1):
     * a = 2 ((0, 1) - (1, 0)) = (-2, 2); dt 0.1 -> v' = (0.8, 0.2). */
    pcs_flocking_def c = fl_cfg(2);
    c.width_m = c.height_m = 20.0;
    c.radius_m = 2.0;
    c.w_align = 2.0;
    c.w_cohesion = 0.0;
    c.w_separation = 0.0;
    c.dt_s = 0.1;
    pcs_flocking *m = fl_make(&c);
    pcs_flocking_set_agent(m, 0, 0.0, 0.0, 1.0, 0.0);
    pcs_flocking_set_agent(m, 1, 1.0, 0.0, 0.0, 1.0);
    pcs_flocking_step(m);
    fl_agent a = fl_get(m, 0);
    cr_assert_float_eq(a.vx, 0.8, 1e-15);
    cr_assert_float_eq(a.vy, 0.2, 1e-15);
    /* Exactly one radius apart: not neighbours, velocities unchanged. */
    pcs_flocking_set_agent(m, 0, 0.0, 0.0, 1.0, 0.0);
    pcs_flocking_set_agent(m, 1, 2.0, 0.0, 0.0, 1.0);
    pcs_flocking_step(m);
    cr_assert_eq(fl_get(m, 0).vx, 1.0);
    cr_assert_eq(fl_get(m, 1).vy, 1.0);
    pcs_flocking_destroy(m);
}

Test(models_flocking, neighbours_are_found_across_the_wrap)
{
    /* A at x = 9.5 and B at x = -9.5 on a 20 m torus are 1 m apart. */
    pcs_flocking_def c = fl_cfg(2);
    c.width_m = c.height_m = 20.0;
    c.radius_m = 2.0;
    c.w_align = 1.0;
    c.w_cohesion = 0.0;
    c.w_separation = 0.0;
    c.dt_s = 0.1;
    pcs_flocking *m = fl_make(&c);
    pcs_flocking_set_agent(m, 0, 9.5, 0.0, 0.0, 1.0);
    pcs_flocking_set_agent(m, 1, -9.5, 0.0, 0.0, -1.0);
    pcs_flocking_step(m);
    /* a_A = 1 * (-1 - 1) = -2 -> vy' = 1 - 0.2 = 0.8 */
    cr_assert_float_eq(fl_get(m, 0).vy, 0.8, 1e-15);
    cr_assert_float_eq(fl_get(m, 1).vy, -0.8, 1e-15);
    pcs_flocking_destroy(m);
}

Test(models_flocking, speed_never_exceeds_the_cap)
{
    pcs_flocking_def c = fl_cfg(400);
    c.width_m = c.height_m = 40.0;
    c.radius_m = 4.0;
    c.w_align = 5.0;
    c.w_cohesion = 50.0;
    c.w_separation = 100.0;
    c.max_speed_m_s = 3.0;
    pcs_flocking *m = fl_make(&c);
    /* Two agents almost on top of each other push apart hard: capped. */
    pcs_flocking_set_agent(m, 0, 0.0, 0.0, 0.0, 0.0);
    pcs_flocking_set_agent(m, 1, 1e-6, 0.0, 0.0, 0.0);
    int capped = 0;
    for (int s = 0; s < 60; s++) {
        pcs_flocking_step(m);
        for (uint32_t i = 0; i < c.agents; i++) {
            fl_agent a = fl_get(m, i);
            double speed = sqrt(a.vx * a.vx + a.vy * a.vy);
            cr_assert_leq(speed, 3.0 * (1.0 + 4e-16), "agent %u step %d speed %.17g", i, s, speed);
            capped += speed > 3.0 * (1.0 - 1e-12);
        }
    }
    cr_assert_gt(capped, 0, "the test must actually reach the cap");
    pcs_flocking_destroy(m);
}

Test(models_flocking, two_mirrored_agents_stay_exact_mirrors)
{
    pcs_flocking_def c = fl_cfg(2);
    c.width_m = c.height_m = 20.0;
    c.radius_m = 6.0;
    pcs_flocking *m = fl_make(&c);
    pcs_flocking_set_agent(m, 0, -1.3, 0.7, 0.9, 0.4);
    pcs_flocking_set_agent(m, 1, 1.3, 0.7, -0.9, 0.4);
    for (int s = 0; s < 2000; s++) {
        pcs_flocking_step(m);
        fl_agent a = fl_get(m, 0), b = fl_get(m, 1);
        cr_assert(b.x == -a.x && b.y == a.y && b.vx == -a.vx && b.vy == a.vy,
                  "step %d: A (%.17g, %.17g | %.17g, %.17g) B (%.17g, %.17g | %.17g, %.17g)", s,
                  a.x, a.y, a.vx, a.vy, b.x, b.y, b.vx, b.vy);
    }
    /* and they did move, across the wrap in y (2000 steps at up to 5 m/s) */
    cr_assert_neq(fl_get(m, 0).y, 0.7);
    pcs_flocking_destroy(m);
}

/* Brute-force reference: the header's equations, all pairs, index order. */
static void fl_reference_step(const pcs_flocking_def *c, const fl_agent *in, fl_agent *out)
{
    double w = c->width_m, h = c->height_m;
    double e2 = (1e-9 * c->radius_m) * (1e-9 * c->radius_m);
    for (uint32_t i = 0; i < c->agents; i++) {
        double n = 0, svx = 0, svy = 0, sdx = 0, sdy = 0, ssx = 0, ssy = 0;
        for (uint32_t j = 0; j < c->agents; j++) {
            if (j == i)
                continue;
            double dx = in[j].x - in[i].x, dy = in[j].y - in[i].y;
            dx = dx > w / 2 ? dx - w : (dx < -w / 2 ? dx + w : dx);
            dy = dy > h / 2 ? dy - h : (dy < -h / 2 ? dy + h : dy);
            double d2 = dx * dx + dy * dy;
            if (d2 >= c->radius_m * c->radius_m)
                continue;
            n++;
            svx += in[j].vx;
            svy += in[j].vy;
            sdx += dx;
            sdy += dy;
            if (d2 > 0) {
                double q = d2 > e2 ? d2 : e2;
                ssx += dx / q;
                ssy += dy / q;
            }
        }
        double ax = 0, ay = 0;
        if (n > 0) {
            ax = c->w_align * (svx / n - in[i].vx) + c->w_cohesion * (sdx / n) -
                 c->w_separation * ssx;
            ay = c->w_align * (svy / n - in[i].vy) + c->w_cohesion * (sdy / n) -
                 c->w_separation * ssy;
        }
        double vx = in[i].vx + c->dt_s * ax, vy = in[i].vy + c->dt_s * ay;
        double sp = sqrt(vx * vx + vy * vy);
        if (sp > c->max_speed_m_s) {
            vx *= c->max_speed_m_s / sp;
            vy *= c->max_speed_m_s / sp;
        }
        double x = in[i].x + c->dt_s * vx, y = in[i].y + c->dt_s * vy;
        x = x > w / 2 ? x - w : (x < -w / 2 ? x + w : x);
        y = y > h / 2 ? y - h : (y < -h / 2 ? y + h : y);
        out[i] = (fl_agent){x, y, vx, vy};
    }
}

static void fl_expect_matches_reference(pcs_flocking_def c, int steps)
{
    pcs_flocking *m = fl_make(&c);
    static fl_agent ref[300], next[300];
    cr_assert_leq(c.agents, 300u);
    for (uint32_t i = 0; i < c.agents; i++)
        ref[i] = fl_get(m, i);
    for (int s = 0; s < steps; s++) {
        pcs_flocking_step(m);
        fl_reference_step(&c, ref, next);
        memcpy(ref, next, c.agents * sizeof ref[0]);
        for (uint32_t i = 0; i < c.agents; i++) {
            fl_agent a = fl_get(m, i);
            /* Summation order differs (grid vs index order): rounding only. */
            cr_assert_float_eq(a.vx, ref[i].vx, 1e-9, "agent %u step %d", i, s);
            cr_assert_float_eq(a.vy, ref[i].vy, 1e-9, "agent %u step %d", i, s);
            cr_assert_float_eq(a.x, ref[i].x, 1e-9, "agent %u step %d", i, s);
            cr_assert_float_eq(a.y, ref[i].y, 1e-9, "agent %u step %d", i, s);
            ref[i] = a; /* resync so rounding differences cannot grow */
        }
    }
    pcs_flocking_destroy(m);
}

Test(models_flocking, grid_search_matches_brute_force)
{
    pcs_flocking_def c = fl_cfg(300);
    c.width_m = 60.0;
    c.height_m = 45.0;
    c.radius_m = 4.0; /* 15 x 11 cells */
    fl_expect_matches_reference(c, 20);
}

Test(models_flocking, narrow_grids_count_each_neighbour_once)
{
    /* radius = half the domain: 2 x 2 cells, the 3 x 3 block would repeat cells */
    pcs_flocking_def c = fl_cfg(60);
    c.width_m = c.height_m = 10.0;
    c.radius_m = 5.0;
    c.max_speed_m_s = 2.0;
    pcs_flocking *m = fl_make(&c);
    uint32_t cx, cy;
    pcs_flocking_grid_size(m, &cx, &cy);
    cr_assert_eq(cx, 2u);
    cr_assert_eq(cy, 2u);
    pcs_flocking_destroy(m);
    fl_expect_matches_reference(c, 10);
    /* 1 x 3 cells */
    c.width_m = 10.0;
    c.height_m = 30.0;
    fl_expect_matches_reference(c, 10);
}

Test(models_flocking, grid_size_follows_radius_and_agent_count)
{
    pcs_flocking_def c = fl_cfg(256);
    pcs_flocking *m = fl_make(&c); /* 100 m / 5 m = 20 cells per side, 400 <= 4*256+64 */
    uint32_t cx, cy;
    pcs_flocking_grid_size(m, &cx, &cy);
    cr_assert_eq(cx, 20u);
    cr_assert_eq(cy, 20u);
    pcs_flocking_destroy(m);
    c.agents = 1; /* cap 68 cells: floor(20 * sqrt(68 / 400)) = 8 */
    m = fl_make(&c);
    pcs_flocking_grid_size(m, &cx, &cy);
    cr_assert_eq(cx, 8u);
    cr_assert_eq(cy, 8u);
    pcs_flocking_destroy(m);
}

Test(models_flocking, same_seed_same_state_different_seed_differs)
{
    pcs_flocking_def c = fl_cfg(500);
    pcs_flocking *a = fl_make(&c);
    pcs_flocking *b = fl_make(&c);
    c.threads = 2;
    pcs_flocking *p = fl_make(&c);
    c.threads = 1;
    c.seed = 2;
    pcs_flocking *d = fl_make(&c);
    for (int s = 0; s < 100; s++) {
        pcs_flocking_step(a);
        pcs_flocking_step(b);
        pcs_flocking_step(p);
        pcs_flocking_step(d);
    }
    int differs = 0;
    for (uint32_t i = 0; i < 500; i++) {
        fl_agent x = fl_get(a, i), y = fl_get(b, i), z = fl_get(p, i), u = fl_get(d, i);
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "agent %u differs between runs", i);
        cr_assert_eq(memcmp(&x, &z, sizeof x), 0, "agent %u differs with 2 threads", i);
        differs += memcmp(&x, &u, sizeof x) != 0;
    }
    cr_assert_gt(differs, 0);
    pcs_flocking_destroy(a);
    pcs_flocking_destroy(b);
    pcs_flocking_destroy(p);
    pcs_flocking_destroy(d);
}

static uint64_t fl_world_hash(uint64_t seed, int ticks)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_flocking_def c = fl_cfg(200);
    c.seed = seed;
    pcs_flocking *m = fl_make(&c);
    cr_assert_eq(pcs_flocking_add(w, m, PCS_STAGE_MACHINES, 0), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_flocking_add(w, m, PCS_STAGE_MACHINES, 0), PCS_E_STATE);
    for (int t = 0; t < ticks; t++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_flocking_steps(m), (uint64_t)ticks);
    uint64_t h = pcs_world_state_hash(w);
    pcs_world_destroy(w);
    pcs_flocking_destroy(m);
    return h;
}

Test(models_flocking, registered_flock_hash_is_reproducible)
{
    uint64_t h1 = fl_world_hash(11, 50);
    uint64_t h2 = fl_world_hash(11, 50);
    cr_assert_eq(h1, h2);
    cr_assert_neq(fl_world_hash(12, 50), h1, "the hash must see the seeded state");
    cr_assert_neq(fl_world_hash(11, 51), h1);
}

static void fl_expect_inval(pcs_flocking_def c, const char *needle)
{
    pcs_flocking *m = NULL;
    cr_assert_eq(pcs_flocking_create(&c, &m), PCS_E_INVAL, "expected rejection: %s", needle);
    cr_assert_null(m);
    cr_assert(strstr(pcs_last_error(), needle) != NULL, "message '%s' lacks '%s'", pcs_last_error(),
              needle);
}

Test(models_flocking, bad_parameters_rejected_with_message)
{
    pcs_flocking_def d = fl_cfg(10), c;
    c = d, c.agents = 0, fl_expect_inval(c, "agents = 0");
    c = d, c.agents = PCS_FLOCKING_AGENTS_MAX + 1, fl_expect_inval(c, "agents");
    c = d, c.width_m = 0.0, fl_expect_inval(c, "width_m = 0");
    c = d, c.height_m = NAN, fl_expect_inval(c, "height_m = nan");
    c = d, c.radius_m = 50.1, fl_expect_inval(c, "radius_m = 50.1; allowed [1e-06, 50]");
    c = d, c.radius_m = 0.0, fl_expect_inval(c, "radius_m");
    c = d, c.w_align = -1.0, fl_expect_inval(c, "w_align");
    c = d, c.w_cohesion = INFINITY, fl_expect_inval(c, "w_cohesion");
    c = d, c.w_separation = 1e4, fl_expect_inval(c, "w_separation");
    c = d, c.max_speed_m_s = 0.0, fl_expect_inval(c, "max_speed_m_s = 0");
    c = d, c.dt_s = -0.1, fl_expect_inval(c, "dt_s");
    c = d, c.dt_s = 10.0, c.max_speed_m_s = 6.0, fl_expect_inval(c, "max_speed_m_s * dt_s = 60");
    c = d, c.threads = 0, fl_expect_inval(c, "threads = 0");
    c = d, c.name = "", fl_expect_inval(c, "name");
    cr_assert_eq(pcs_flocking_create(NULL, NULL), PCS_E_INVAL);
}

Test(models_flocking, set_agent_rejects_bad_values)
{
    pcs_flocking_def c = fl_cfg(3);
    pcs_flocking *m = fl_make(&c);
    cr_assert_eq(pcs_flocking_set_agent(m, 3, 0, 0, 0, 0), PCS_E_INVAL);
    cr_assert_eq(pcs_flocking_set_agent(m, 0, 50.5, 0, 0, 0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "x_m = 50.5") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_flocking_set_agent(m, 0, 0, NAN, 0, 0), PCS_E_INVAL);
    cr_assert_eq(pcs_flocking_set_agent(m, 0, 0, 0, 4, 4), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "speed") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_flocking_set_agent(m, 0, 50.0, -50.0, 3, 4), PCS_OK, "edges and cap ok");
    cr_assert_eq(pcs_flocking_get_agent(m, 3, NULL, NULL, NULL, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_flocking_step(NULL), PCS_E_INVAL);
    pcs_flocking_destroy(m);
}
