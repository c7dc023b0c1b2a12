/**
 * @file test_models_rayaabb.c
 * @brief Tests for the 2-D ray/AABB slab test and caster (include/pcsim/rayaabb.h).
 *
 * All expected t values are worked by hand for the unit box [0, 1] x [0, 1]:
 * for each axis the ray is inside the slab for t in [(min - o)/d, (max - o)/d]
 * (ordered), and the hit is the start of the overlap with [0, inf). The
 * boundary counts as a hit (closed box; documented in rayaabb.h).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <pcsim/rayaabb.h>
#include <pcsim/world.h>

static pcs_rayaabb_box ra_unit(void)
{
    pcs_rayaabb_box b;
    cr_assert_eq(pcs_rayaabb_box_init(&b, 0.0, 0.0, 1.0, 1.0), PCS_OK);
    return b;
}

/* Cast (ox, oy) + t (dx, dy) at the unit box; return t or -1 on a miss. */
static double ra_cast(double ox, double oy, double dx, double dy)
{
    pcs_rayaabb_ray r;
    cr_assert_eq(pcs_rayaabb_ray_init(&r, ox, oy, dx, dy), PCS_OK, "%s", pcs_last_error());
    pcs_rayaabb_box b = ra_unit();
    double t = -2.0;
    if (!pcs_rayaabb_intersect(&r, &b, &t))
        return -1.0;
    return t;
}

Test(models_rayaabb, axis_parallel_rays_from_each_side)
{
    cr_assert_eq(ra_cast(-2.0, 0.5, 1.0, 0.0), 2.0, "from the left");
    cr_assert_eq(ra_cast(3.0, 0.5, -1.0, 0.0), 2.0, "from the right");
    cr_assert_eq(ra_cast(0.5, -1.0, 0.0, 1.0), 1.0, "from below");
    cr_assert_eq(ra_cast(0.5, 4.0, 0.0, -1.0), 3.0, "from above");
    cr_assert_eq(ra_cast(-2.0, 0.5, 4.0, 0.0), 0.5, "t is in units of |d|");
}

Test(models_rayaabb, axis_parallel_misses)
{
    cr_assert_eq(ra_cast(-2.0, 1.5, 1.0, 0.0), -1.0, "passes above");
    cr_assert_eq(ra_cast(-2.0, 0.5, -1.0, 0.0), -1.0, "points away");
    cr_assert_eq(ra_cast(0.5, 2.0, 0.0, 1.0), -1.0, "box behind the origin");
}

Test(models_rayaabb, origin_inside_or_on_boundary_gives_zero)
{
    cr_assert_eq(ra_cast(0.5, 0.5, 1.0, 0.3), 0.0);
    cr_assert_eq(ra_cast(0.5, 0.5, -1.0, -1.0), 0.0);
    cr_assert_eq(ra_cast(0.0, 0.5, -1.0, 0.0), 0.0, "on the left edge pointing out");
    cr_assert_eq(ra_cast(1.0, 1.0, 1.0, 1.0), 0.0, "on a corner pointing out");
}

Test(models_rayaabb, oblique_ray_enters_through_a_side)
{
    /* (-1, -0.5) + t (1, 1): x in [0,1] for t in [1,2], y for t in [0.5,1.5] -> t = 1. */
    cr_assert_eq(ra_cast(-1.0, -0.5, 1.0, 1.0), 1.0);
    /* (2, 0.5) + t (-2, 0.25): x for t in [0.5, 1], y for t in [-2, 2] -> t = 0.5. */
    cr_assert_eq(ra_cast(2.0, 0.5, -2.0, 0.25), 0.5);
}

Test(models_rayaabb, corner_grazes_hit_at_the_corner)
{
    /* (0, 2) + t (1, -1): x for t in [0,1], y for t in [1,2] -> only t = 1, point (1, 1). */
    cr_assert_eq(ra_cast(0.0, 2.0, 1.0, -1.0), 1.0, "top-right corner");
    /* (-1, 0) + t (1, 1) touches (0, 1). */
    cr_assert_eq(ra_cast(-1.0, 0.0, 1.0, 1.0), 1.0, "top-left corner");
    /* (-1, 1) + t (1, -1) touches (0, 0). */
    cr_assert_eq(ra_cast(-1.0, 1.0, 1.0, -1.0), 1.0, "bottom-left corner");
    /* (-1, -1) + t (1, 0.5): x for t in [1,2], y for t in [2,4] -> t = 2, point (1, 0). */
    cr_assert_eq(ra_cast(-1.0, -1.0, 1.0, 0.5), 2.0, "bottom-right corner");
    /* Shifted outward by a small amount, the same ray misses. */
    cr_assert_eq(ra_cast(0.0, 2.0 + 1e-12, 1.0, -1.0), -1.0);
    cr_assert_eq(ra_cast(-1.0 - 1e-12, 0.0, 1.0, 1.0), -1.0);
}

Test(models_rayaabb, rays_along_an_edge_hit_where_they_reach_it)
{
    cr_assert_eq(ra_cast(-1.0, 0.0, 1.0, 0.0), 1.0, "along the bottom edge");
    cr_assert_eq(ra_cast(-3.0, 1.0, 1.0, 0.0), 3.0, "along the top edge");
    cr_assert_eq(ra_cast(0.0, -3.0, 0.0, 1.0), 3.0, "up the left edge");
    cr_assert_eq(ra_cast(1.0, 5.0, 0.0, -1.0), 4.0, "down the right edge");
    cr_assert_eq(ra_cast(0.5, 1.0, 1.0, 0.0), 0.0, "starting on the edge, along it");
    /* One ulp outside the edge: the closed box no longer contains the line. */
    cr_assert_eq(ra_cast(-1.0, nextafter(1.0, 2.0), 1.0, 0.0), -1.0);
    cr_assert_eq(ra_cast(-1.0, nextafter(0.0, -1.0), 1.0, 0.0), -1.0);
}

Test(models_rayaabb, degenerate_boxes_are_valid)
{
    pcs_rayaabb_box point, seg;
    cr_assert_eq(pcs_rayaabb_box_init(&point, 2.0, 3.0, 2.0, 3.0), PCS_OK);
    cr_assert_eq(pcs_rayaabb_box_init(&seg, 2.0, 0.0, 2.0, 4.0), PCS_OK);
    pcs_rayaabb_ray r;
    pcs_rayaabb_ray_init(&r, 0.0, 1.0, 1.0, 1.0);
    double t = 0.0;
    cr_assert_eq(pcs_rayaabb_intersect(&r, &point, &t), 1);
    cr_assert_eq(t, 2.0);
    cr_assert_eq(pcs_rayaabb_intersect(&r, &seg, &t), 1);
    cr_assert_eq(t, 2.0);
    pcs_rayaabb_ray_init(&r, 0.0, 5.0, 1.0, 0.0);
    cr_assert_eq(pcs_rayaabb_intersect(&r, &seg, NULL), 0);
}

Test(models_rayaabb, tiny_direction_components_never_produce_nan)
{
    /* d_y = 1e-310 sends the y slab to +-inf in t; the ray inside the y slab
     * still hits, one outside it misses (a slab at t = +inf is unreachable). */
    cr_assert_eq(ra_cast(-1.0, 0.5, 1.0, 1e-310), 1.0);
    cr_assert_eq(ra_cast(-1.0, 2.0, 1.0, -1e-310), -1.0);
    cr_assert_eq(ra_cast(-1e150, 0.5, 1e-300, 0.0), -1.0, "entry beyond DBL_MAX");
}

static void ra_expect_ray_inval(double ox, double oy, double dx, double dy, const char *needle)
{
    pcs_rayaabb_ray r = {9, 9, 9, 9};
    cr_assert_eq(pcs_rayaabb_ray_init(&r, ox, oy, dx, dy), PCS_E_INVAL, "%s", needle);
    cr_assert(strstr(pcs_last_error(), needle) != NULL, "'%s' lacks '%s'", pcs_last_error(),
              needle);
    cr_assert_eq(r.ox, 9.0, "ray untouched on failure");
}

Test(models_rayaabb, bad_rays_rejected)
{
    ra_expect_ray_inval(NAN, 0, 1, 0, "ox = nan");
    ra_expect_ray_inval(0, INFINITY, 1, 0, "oy = inf");
    ra_expect_ray_inval(0, 0, -INFINITY, 0, "dx = -inf");
    ra_expect_ray_inval(0, 0, 1, NAN, "dy = nan");
    ra_expect_ray_inval(0, 0, 0, 0, "(0, 0)");
    ra_expect_ray_inval(0, 0, -0.0, 0.0, "(0, 0)");
    ra_expect_ray_inval(2e150, 0, 1, 0, "ox = 2e+150");
    cr_assert_eq(pcs_rayaabb_ray_init(NULL, 0, 0, 1, 0), PCS_E_INVAL);
    pcs_rayaabb_ray bad = {0, 0, 0, 0};
    cr_assert_eq(pcs_rayaabb_ray_check(&bad), PCS_E_INVAL);
}

Test(models_rayaabb, bad_boxes_rejected)
{
    pcs_rayaabb_box b;
    cr_assert_eq(pcs_rayaabb_box_init(&b, 1.0, 0.0, 0.0, 1.0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "inverted box: min_x = 1 > max_x = 0") != NULL, "%s",
              pcs_last_error());
    cr_assert_eq(pcs_rayaabb_box_init(&b, 0.0, 2.0, 1.0, 1.0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "min_y") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_rayaabb_box_init(&b, 0.0, 0.0, NAN, 1.0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "max_x = nan") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_rayaabb_box_init(&b, -INFINITY, 0.0, 1.0, 1.0), PCS_E_INVAL);
    cr_assert_eq(pcs_rayaabb_box_init(NULL, 0, 0, 1, 1), PCS_E_INVAL);
    pcs_rayaabb_box inv = {0, 0, -1, 1};
    cr_assert_eq(pcs_rayaabb_box_check(&inv), PCS_E_INVAL);
}

static pcs_rayaabb *ra_caster(uint32_t rays, uint32_t boxes, const char *name)
{
    pcs_rayaabb_def cfg;
    pcs_rayaabb_default(&cfg);
    cfg.max_rays = rays;
    cfg.max_boxes = boxes;
    cfg.name = name;
    pcs_rayaabb *m = NULL;
    cr_assert_eq(pcs_rayaabb_create(&cfg, &m), PCS_OK, "%s", pcs_last_error());
    return m;
}

Test(models_rayaabb, caster_reports_nearest_box_ties_to_lowest_index)
{
    pcs_rayaabb *m = ra_caster(3, 3, NULL);
    pcs_rayaabb_box far, near, same;
    pcs_rayaabb_box_init(&far, 5, -1, 6, 1);
    pcs_rayaabb_box_init(&near, 2, -1, 3, 1);
    pcs_rayaabb_box_init(&same, 2, 0, 4, 3); /* entered at the same t as near by ray 0 */
    cr_assert_eq(pcs_rayaabb_add_box(m, &far, NULL), PCS_OK);
    cr_assert_eq(pcs_rayaabb_add_box(m, &near, NULL), PCS_OK);
    cr_assert_eq(pcs_rayaabb_add_box(m, &same, NULL), PCS_OK);
    pcs_rayaabb_ray along, up, miss;
    pcs_rayaabb_ray_init(&along, 0, 0, 1, 0);
    pcs_rayaabb_ray_init(&up, 5.5, -10, 0, 1);
    pcs_rayaabb_ray_init(&miss, 0, 0, -1, 0);
    uint32_t i0, i1, i2;
    pcs_rayaabb_add_ray(m, &along, &i0);
    pcs_rayaabb_add_ray(m, &up, &i1);
    pcs_rayaabb_add_ray(m, &miss, &i2);
    cr_assert_eq(pcs_rayaabb_result(m, i0, NULL, NULL), 0, "no result before the first step");
    cr_assert_eq(pcs_rayaabb_step(m), PCS_OK);
    double t;
    uint32_t box;
    cr_assert_eq(pcs_rayaabb_result(m, i0, &t, &box), 1);
    cr_assert_eq(t, 2.0);
    cr_assert_eq(box, 1u, "near (1) and same (2) tie at t = 2; lower index wins");
    cr_assert_eq(pcs_rayaabb_result(m, i1, &t, &box), 1);
    cr_assert_eq(t, 9.0);
    cr_assert_eq(box, 0u);
    cr_assert_eq(pcs_rayaabb_result(m, i2, &t, &box), 0);
    /* Move ray 2 to face the boxes: it now hits after the next step. */
    pcs_rayaabb_ray_init(&miss, 10, 0.5, -1, 0);
    cr_assert_eq(pcs_rayaabb_set_ray(m, i2, &miss), PCS_OK);
    pcs_rayaabb_step(m);
    cr_assert_eq(pcs_rayaabb_result(m, i2, &t, &box), 1);
    cr_assert_eq(t, 4.0);
    cr_assert_eq(box, 0u);
    cr_assert_eq(pcs_rayaabb_steps(m), 2u);
    pcs_rayaabb_destroy(m);
}

Test(models_rayaabb, caster_capacity_and_bad_input)
{
    pcs_rayaabb *m = ra_caster(1, 1, NULL);
    pcs_rayaabb_ray r;
    pcs_rayaabb_box b;
    pcs_rayaabb_ray_init(&r, 0, 0, 1, 0);
    pcs_rayaabb_box_init(&b, 0, 0, 1, 1);
    cr_assert_eq(pcs_rayaabb_add_ray(m, &r, NULL), PCS_OK);
    cr_assert_eq(pcs_rayaabb_add_ray(m, &r, NULL), PCS_E_OVERFLOW);
    cr_assert_eq(pcs_rayaabb_add_box(m, &b, NULL), PCS_OK);
    cr_assert_eq(pcs_rayaabb_add_box(m, &b, NULL), PCS_E_OVERFLOW);
    pcs_rayaabb_ray zero = {0, 0, 0, 0};
    cr_assert_eq(pcs_rayaabb_set_ray(m, 0, &zero), PCS_E_INVAL);
    cr_assert_eq(pcs_rayaabb_set_ray(m, 1, &r), PCS_E_INVAL);
    pcs_rayaabb_box inv = {1, 0, 0, 1};
    cr_assert_eq(pcs_rayaabb_set_box(m, 0, &inv), PCS_E_INVAL);
    cr_assert_eq(pcs_rayaabb_step(NULL), PCS_E_INVAL);
    pcs_rayaabb_destroy(m);

    pcs_rayaabb_def cfg;
    pcs_rayaabb_default(&cfg);
    cfg.max_rays = 0;
    pcs_rayaabb *bad = NULL;
    cr_assert_eq(pcs_rayaabb_create(&cfg, &bad), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "max_rays = 0") != NULL, "%s", pcs_last_error());
    cfg.max_rays = 1;
    cfg.max_boxes = PCS_RAYAABB_BOXES_MAX + 1;
    cr_assert_eq(pcs_rayaabb_create(&cfg, &bad), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "max_boxes = 65537") != NULL, "%s", pcs_last_error());
    cr_assert_null(bad);
}

Test(models_rayaabb, registered_caster_runs_each_tick_and_is_hashed)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_rayaabb *m = ra_caster(2, 2, "sight");
    pcs_rayaabb_ray r;
    pcs_rayaabb_box b = ra_unit();
    pcs_rayaabb_ray_init(&r, -1, 0.5, 1, 0);
    pcs_rayaabb_add_ray(m, &r, NULL);
    pcs_rayaabb_add_box(m, &b, NULL);
    cr_assert_eq(pcs_rayaabb_add(w, m, PCS_STAGE_SENSORS, 0), PCS_OK, "%s", pcs_last_error());
    uint64_t h0 = pcs_world_state_hash(w);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    double t;
    cr_assert_eq(pcs_rayaabb_result(m, 0, &t, NULL), 1);
    cr_assert_eq(t, 1.0);
    uint64_t h1 = pcs_world_state_hash(w);
    cr_assert_neq(h1, h0);
    /* moving the ray after registration changes the hashed state */
    pcs_rayaabb_ray_init(&r, -1, 0.25, 1, 0);
    pcs_rayaabb_set_ray(m, 0, &r);
    cr_assert_neq(pcs_world_state_hash(w), h1);
    pcs_world_destroy(w);
    pcs_rayaabb_destroy(m);
}
