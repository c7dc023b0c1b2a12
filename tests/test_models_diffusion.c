/**
 * @file test_models_diffusion.c
 * @brief Tests for the 2-D explicit diffusion model (include/pcsim/diffusion.h).
 *
 * Hand-computed single steps, the exact decay of a discrete Neumann eigenmode,
 * conservation, bit-identity across OpenMP thread counts, parameter errors,
 * and registration into a world.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include <pcsim/diffusion.h>
#include <pcsim/math.h>
#include <pcsim/rng.h>
#include <pcsim/world.h>

static pcs_diffusion *diff_make(uint32_t nx, uint32_t ny, double k, uint32_t threads,
                                const char *name)
{
    pcs_diffusion_def cfg;
    cr_assert_eq(pcs_diffusion_default(&cfg), PCS_OK);
    cfg.nx = nx;
    cfg.ny = ny;
    cfg.coeff = k;
    cfg.threads = threads;
    cfg.name = name;
    pcs_diffusion *m = NULL;
    cr_assert_eq(pcs_diffusion_create(&cfg, &m), PCS_OK, "%s", pcs_last_error());
    return m;
}

/* Fill with seeded values in [0, 1) so two models get the same field. */
static void diff_fill_random(pcs_diffusion *m, uint32_t nx, uint32_t ny, uint64_t seed)
{
    pcs_rng rng;
    pcs_rng_seed(&rng, seed, 9, 0);
    for (uint32_t y = 0; y < ny; y++)
        for (uint32_t x = 0; x < nx; x++)
            cr_assert_eq(pcs_diffusion_set(m, x, y, pcs_rng_uniform(&rng)), PCS_OK);
}

Test(models_diffusion, interior_impulse_one_step_by_hand)
{
    /* k = 1/8 is exact in binary: centre 1 - 4k = 0.5, each side neighbour k. */
    pcs_diffusion *m = diff_make(5, 5, 0.125, 1, NULL);
    cr_assert_eq(pcs_diffusion_set(m, 2, 2, 1.0), PCS_OK);
    cr_assert_eq(pcs_diffusion_step(m), PCS_OK);
    cr_assert_eq(pcs_diffusion_get(m, 2, 2), 0.5);
    cr_assert_eq(pcs_diffusion_get(m, 1, 2), 0.125);
    cr_assert_eq(pcs_diffusion_get(m, 3, 2), 0.125);
    cr_assert_eq(pcs_diffusion_get(m, 2, 1), 0.125);
    cr_assert_eq(pcs_diffusion_get(m, 2, 3), 0.125);
    cr_assert_eq(pcs_diffusion_get(m, 1, 1), 0.0, "diagonal gets nothing in one step");
    cr_assert_eq(pcs_diffusion_steps(m), 1u);
    pcs_diffusion_destroy(m);
}

Test(models_diffusion, corner_impulse_sees_no_flux_boundary)
{
    /* A corner cell has two inside neighbours: 1 - 2k = 0.75 stays, k to each. */
    pcs_diffusion *m = diff_make(4, 3, 0.125, 1, NULL);
    cr_assert_eq(pcs_diffusion_set(m, 0, 0, 1.0), PCS_OK);
    pcs_diffusion_step(m);
    cr_assert_eq(pcs_diffusion_get(m, 0, 0), 0.75);
    cr_assert_eq(pcs_diffusion_get(m, 1, 0), 0.125);
    cr_assert_eq(pcs_diffusion_get(m, 0, 1), 0.125);
    cr_assert_eq(pcs_diffusion_total(m), 1.0);
    pcs_diffusion_destroy(m);
}

Test(models_diffusion, neumann_cosine_mode_decays_by_its_eigenvalue)
{
    /* With ghost cells u[-1] = u[0], u[n] = u[n-1], the mode cos(pi (x + 1/2) / n)
     * is an eigenvector of the discrete operator with eigenvalue
     * 1 - 2k (1 - cos(pi / n)) (derived by hand from the update formula). */
    const uint32_t n = 16;
    const double k = 0.2;
    pcs_diffusion *m = diff_make(n, 1, k, 1, NULL);
    for (uint32_t x = 0; x < n; x++)
        pcs_diffusion_set(m, x, 0, pcs_cos(PCS_PI * (x + 0.5) / n));
    const int steps = 25;
    for (int i = 0; i < steps; i++)
        pcs_diffusion_step(m);
    double lambda = 1.0 - 2.0 * k * (1.0 - pcs_cos(PCS_PI / n));
    double scale = pcs_pow(lambda, steps);
    for (uint32_t x = 0; x < n; x++)
        cr_assert_float_eq(pcs_diffusion_get(m, x, 0), scale * pcs_cos(PCS_PI * (x + 0.5) / n),
                           1e-13, "x = %u", x);
    pcs_diffusion_destroy(m);
}

Test(models_diffusion, total_is_conserved)
{
    const uint32_t nx = 37, ny = 23;
    pcs_diffusion *m = diff_make(nx, ny, 0.25, 1, NULL);
    diff_fill_random(m, nx, ny, 42);
    double before = pcs_diffusion_total(m);
    for (int i = 0; i < 500; i++)
        pcs_diffusion_step(m);
    double after = pcs_diffusion_total(m);
    cr_assert_float_eq(after, before, 1e-12 * before, "before %.17g after %.17g", before, after);
    /* and it did diffuse: the field is close to its mean after 500 steps */
    double mean = before / (nx * ny);
    cr_assert_float_eq(pcs_diffusion_get(m, 0, 0), mean, 0.05);
    pcs_diffusion_destroy(m);
}

Test(models_diffusion, uniform_field_stays_exactly_uniform)
{
    pcs_diffusion *m = diff_make(7, 9, 0.25, 1, NULL);
    for (uint32_t y = 0; y < 9; y++)
        for (uint32_t x = 0; x < 7; x++)
            pcs_diffusion_set(m, x, y, 3.3);
    for (int i = 0; i < 10; i++)
        pcs_diffusion_step(m);
    const double *u = pcs_diffusion_field(m);
    for (int i = 0; i < 63; i++)
        cr_assert_eq(u[i], 3.3);
    pcs_diffusion_destroy(m);
}

Test(models_diffusion, single_cell_and_single_row_grids)
{
    pcs_diffusion *one = diff_make(1, 1, 0.25, 1, NULL);
    pcs_diffusion_set(one, 0, 0, 5.0);
    pcs_diffusion_step(one);
    cr_assert_eq(pcs_diffusion_get(one, 0, 0), 5.0, "a lone cell has no flux");
    pcs_diffusion_destroy(one);

    pcs_diffusion *col = diff_make(1, 3, 0.25, 1, NULL);
    pcs_diffusion_set(col, 0, 1, 1.0);
    pcs_diffusion_step(col);
    cr_assert_eq(pcs_diffusion_get(col, 0, 1), 0.5);
    cr_assert_eq(pcs_diffusion_get(col, 0, 0), 0.25);
    cr_assert_eq(pcs_diffusion_get(col, 0, 2), 0.25);
    pcs_diffusion_destroy(col);
}

Test(models_diffusion, openmp_two_threads_bit_identical_to_serial)
{
    const uint32_t nx = 131, ny = 97;
    pcs_diffusion *serial = diff_make(nx, ny, 0.23, 1, "serial");
    pcs_diffusion *par = diff_make(nx, ny, 0.23, 2, "par");
    diff_fill_random(serial, nx, ny, 7);
    diff_fill_random(par, nx, ny, 7);
    for (int i = 0; i < 40; i++) {
        pcs_diffusion_step(serial);
        pcs_diffusion_step(par);
    }
    cr_assert_eq(memcmp(pcs_diffusion_field(serial), pcs_diffusion_field(par),
                        (size_t)nx * ny * sizeof(double)),
                 0);
    pcs_diffusion_destroy(serial);
    pcs_diffusion_destroy(par);
}

static void diff_expect_inval(pcs_diffusion_def cfg, const char *needle)
{
    pcs_diffusion *m = NULL;
    cr_assert_eq(pcs_diffusion_create(&cfg, &m), PCS_E_INVAL, "expected rejection: %s", needle);
    cr_assert_null(m);
    cr_assert(strstr(pcs_last_error(), needle) != NULL, "message '%s' lacks '%s'", pcs_last_error(),
              needle);
}

Test(models_diffusion, bad_parameters_rejected_with_message)
{
    pcs_diffusion_def cfg;
    pcs_diffusion_default(&cfg);
    pcs_diffusion_def c = cfg;
    c.coeff = 0.2500001;
    diff_expect_inval(c, "coeff");
    diff_expect_inval(c, "[0, 0.25]");
    c.coeff = -1e-9;
    diff_expect_inval(c, "coeff");
    c.coeff = NAN;
    diff_expect_inval(c, "coeff");
    c = cfg;
    c.nx = 0;
    diff_expect_inval(c, "nx = 0");
    c = cfg;
    c.ny = PCS_DIFFUSION_SIDE_MAX + 1;
    diff_expect_inval(c, "ny");
    c = cfg;
    c.nx = c.ny = PCS_DIFFUSION_SIDE_MAX;
    diff_expect_inval(c, "nx * ny");
    c = cfg;
    c.threads = 0;
    diff_expect_inval(c, "threads = 0");
    c.threads = 65;
    diff_expect_inval(c, "threads = 65");
    c = cfg;
    c.name = "";
    diff_expect_inval(c, "name");
    c.name = "a_name_that_is_far_too_long_for_a_store_prefix_xx";
    diff_expect_inval(c, "name");
    cr_assert_eq(pcs_diffusion_create(NULL, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_diffusion_default(NULL), PCS_E_INVAL);
}

Test(models_diffusion, limits_are_accepted)
{
    pcs_diffusion *a = diff_make(1, 1, 0.0, 1, NULL);
    pcs_diffusion *b = diff_make(2, 2, 0.25, 64, NULL);
    pcs_diffusion_destroy(a);
    pcs_diffusion_destroy(b);
}

Test(models_diffusion, set_rejects_bad_cell_or_value)
{
    pcs_diffusion *m = diff_make(3, 2, 0.1, 1, NULL);
    cr_assert_eq(pcs_diffusion_set(m, 3, 0, 1.0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "(3, 0)") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_diffusion_set(m, 0, 2, 1.0), PCS_E_INVAL);
    cr_assert_eq(pcs_diffusion_set(m, 0, 0, INFINITY), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "finite") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_diffusion_set(NULL, 0, 0, 1.0), PCS_E_INVAL);
    cr_assert_eq(pcs_diffusion_step(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_diffusion_get(m, 9, 9), 0.0);
    cr_assert_null(pcs_diffusion_field(NULL));
    pcs_diffusion_destroy(m);
    pcs_diffusion_destroy(NULL);
}

static pcs_world *diff_world(void)
{
    pcs_world_def cfg;
    pcs_world_default(&cfg);
    cfg.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&cfg, &w), PCS_OK, "%s", pcs_last_error());
    return w;
}

Test(models_diffusion, registered_model_steps_once_per_tick_like_standalone)
{
    const uint32_t nx = 12, ny = 10;
    pcs_diffusion *ref = diff_make(nx, ny, 0.2, 1, "ref");
    pcs_diffusion *reg = diff_make(nx, ny, 0.2, 1, "heat");
    diff_fill_random(ref, nx, ny, 3);
    diff_fill_random(reg, nx, ny, 3);
    pcs_world *w = diff_world();
    cr_assert_eq(pcs_diffusion_add(w, reg, PCS_STAGE_HEAT, 0), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_diffusion_add(w, reg, PCS_STAGE_HEAT, 0), PCS_E_STATE);
    uint64_t h0 = pcs_world_state_hash(w);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        pcs_diffusion_step(ref);
    }
    cr_assert_neq(pcs_world_state_hash(w), h0);
    cr_assert_eq(pcs_diffusion_steps(reg), 5u);
    cr_assert_eq(memcmp(pcs_diffusion_field(ref), pcs_diffusion_field(reg),
                        (size_t)nx * ny * sizeof(double)),
                 0);
    pcs_world_destroy(w);
    pcs_diffusion_destroy(reg);
    pcs_diffusion_destroy(ref);
}

Test(models_diffusion, state_hash_covers_the_field)
{
    /* Two worlds built alike hash alike; changing one cell changes the hash. */
    pcs_world *w[2];
    pcs_diffusion *m[2];
    for (int i = 0; i < 2; i++) {
        w[i] = diff_world();
        m[i] = diff_make(8, 8, 0.1, 1, NULL);
        pcs_diffusion_set(m[i], 4, 4, 1.0);
        cr_assert_eq(pcs_diffusion_add(w[i], m[i], PCS_STAGE_HEAT, 1), PCS_OK);
        pcs_world_tick(w[i]);
    }
    cr_assert_eq(pcs_world_state_hash(w[0]), pcs_world_state_hash(w[1]));
    pcs_diffusion_set(m[1], 0, 0, 1e-9);
    cr_assert_neq(pcs_world_state_hash(w[0]), pcs_world_state_hash(w[1]));
    for (int i = 0; i < 2; i++) {
        pcs_world_destroy(w[i]);
        pcs_diffusion_destroy(m[i]);
    }
}

Test(models_diffusion, register_rejects_duplicate_name_and_sealed_world)
{
    pcs_world *w = diff_world();
    pcs_diffusion *a = diff_make(4, 4, 0.1, 1, "same");
    pcs_diffusion *b = diff_make(4, 4, 0.1, 1, "same");
    cr_assert_eq(pcs_diffusion_add(w, a, PCS_STAGE_HEAT, 0), PCS_OK);
    cr_assert_eq(pcs_diffusion_add(w, b, PCS_STAGE_HEAT, 1), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "same") != NULL, "%s", pcs_last_error());
    /* b is still usable standalone after the failed registration */
    cr_assert_eq(pcs_diffusion_set(b, 1, 1, 2.0), PCS_OK);
    cr_assert_eq(pcs_diffusion_step(b), PCS_OK);
    pcs_world_tick(w);
    pcs_diffusion *c = diff_make(4, 4, 0.1, 1, "late");
    cr_assert_eq(pcs_diffusion_add(w, c, PCS_STAGE_HEAT, 0), PCS_E_STATE);
    cr_assert_eq(pcs_diffusion_add(NULL, c, PCS_STAGE_HEAT, 0), PCS_E_INVAL);
    pcs_world_destroy(w);
    pcs_diffusion_destroy(a);
    pcs_diffusion_destroy(b);
    pcs_diffusion_destroy(c);
}
