/**
 * @file test_models_life.c
 * @brief Tests for the Game of Life model (include/pcsim/life.h).
 *
 * Known patterns and their published behaviour (M. Gardner, Scientific
 * American 223(4), 1970; LifeWiki "Blinker", "Block", "Glider"): the blinker
 * has period 2, the block is a still life, the glider moves one cell
 * diagonally every 4 generations.
 */
#include <criterion/criterion.h>
#include <string.h>

#include <pcsim/life.h>
#include <pcsim/rng.h>
#include <pcsim/world.h>

static pcs_life *life_make(uint32_t w, uint32_t h, pcs_life_boundary b, uint32_t threads)
{
    pcs_life_def cfg;
    cr_assert_eq(pcs_life_default(&cfg), PCS_OK);
    cfg.width = w;
    cfg.height = h;
    cfg.boundary = b;
    cfg.threads = threads;
    pcs_life *m = NULL;
    cr_assert_eq(pcs_life_create(&cfg, &m), PCS_OK, "%s", pcs_last_error());
    return m;
}

static void life_expect_render(const pcs_life *m, const char *expected)
{
    char buf[512];
    cr_assert_eq(pcs_life_render(m, buf, sizeof buf), PCS_OK, "%s", pcs_last_error());
    cr_assert_str_eq(buf, expected);
}

static const char life_blinker_v[] = ".....\n"
                                     "..o..\n"
                                     "..o..\n"
                                     "..o..\n"
                                     ".....\n";
static const char life_blinker_h[] = ".....\n"
                                     ".....\n"
                                     ".ooo.\n"
                                     ".....\n"
                                     ".....\n";

Test(models_life, blinker_has_period_two)
{
    pcs_life *m = life_make(5, 5, PCS_LIFE_DEAD, 1);
    cr_assert_eq(pcs_life_load(m, 0, 0, life_blinker_v), PCS_OK, "%s", pcs_last_error());
    life_expect_render(m, life_blinker_v);
    pcs_life_step(m);
    life_expect_render(m, life_blinker_h);
    pcs_life_step(m);
    life_expect_render(m, life_blinker_v);
    cr_assert_eq(pcs_life_steps(m), 2u);
    pcs_life_destroy(m);
}

Test(models_life, block_is_still_even_in_a_dead_corner)
{
    pcs_life *m = life_make(4, 4, PCS_LIFE_DEAD, 1);
    pcs_life_load(m, 0, 0, "oo\noo");
    for (int i = 0; i < 3; i++) {
        pcs_life_step(m);
        life_expect_render(m, "oo..\n"
                              "oo..\n"
                              "....\n"
                              "....\n");
    }
    pcs_life_destroy(m);
}

Test(models_life, block_is_still_across_a_wrapped_corner)
{
    /* On a torus the four corner cells are mutual neighbours: a block. */
    pcs_life *m = life_make(6, 5, PCS_LIFE_WRAP, 1);
    pcs_life_set(m, 0, 0, 1);
    pcs_life_set(m, 5, 0, 1);
    pcs_life_set(m, 0, 4, 1);
    pcs_life_set(m, 5, 4, 1);
    pcs_life_step(m);
    life_expect_render(m, "o....o\n"
                          "......\n"
                          "......\n"
                          "......\n"
                          "o....o\n");
    pcs_life_destroy(m);
}

/* The glider phase that moves toward +x, +y (down-right). */
static const char life_glider[] = ".o.\n"
                                  "..o\n"
                                  "ooo";

static void life_expect_glider_at(const pcs_life *m, uint32_t x0, uint32_t y0, uint32_t w,
                                  uint32_t h)
{
    /* Cells of life_glider relative to its top-left corner. */
    static const uint32_t gx[5] = {1, 2, 0, 1, 2}, gy[5] = {0, 1, 2, 2, 2};
    cr_assert_eq(pcs_life_population(m), 5u);
    for (int i = 0; i < 5; i++) {
        uint32_t x = (x0 + gx[i]) % w, y = (y0 + gy[i]) % h;
        cr_assert(pcs_life_get(m, x, y), "glider cell (%u, %u) missing", x, y);
    }
}

Test(models_life, glider_translates_one_diagonal_cell_every_four_generations)
{
    const uint32_t w = 8, h = 7;
    pcs_life *m = life_make(w, h, PCS_LIFE_WRAP, 1);
    pcs_life_load(m, 1, 1, life_glider);
    for (uint32_t k = 1; k <= 2 * w * h; k++) {
        for (int g = 0; g < 4; g++)
            pcs_life_step(m);
        /* k moves of (1, 1), wrapping across both edges many times */
        life_expect_glider_at(m, 1 + k, 1 + k, w, h);
    }
    pcs_life_destroy(m);
}

Test(models_life, dead_boundary_cuts_an_edge_blinker)
{
    /* A horizontal blinker on the top row: its vertical phase would need a
     * cell above the grid, so two cells remain and then both die. With a
     * wrapping boundary the same blinker oscillates. */
    pcs_life *dead = life_make(5, 5, PCS_LIFE_DEAD, 1);
    pcs_life *wrap = life_make(5, 5, PCS_LIFE_WRAP, 1);
    pcs_life_load(dead, 1, 0, "ooo");
    pcs_life_load(wrap, 1, 0, "ooo");
    pcs_life_step(dead);
    life_expect_render(dead, "..o..\n"
                             "..o..\n"
                             ".....\n"
                             ".....\n"
                             ".....\n");
    pcs_life_step(dead);
    cr_assert_eq(pcs_life_population(dead), 0u);
    pcs_life_step(wrap);
    life_expect_render(wrap, "..o..\n"
                             "..o..\n"
                             ".....\n"
                             ".....\n"
                             "..o..\n");
    pcs_life_step(wrap);
    life_expect_render(wrap, ".ooo.\n"
                             ".....\n"
                             ".....\n"
                             ".....\n"
                             ".....\n");
    pcs_life_destroy(dead);
    pcs_life_destroy(wrap);
}

Test(models_life, narrow_dead_grids)
{
    /* 1 x 3: each end cell has one neighbour, the middle two: all die. */
    pcs_life *m = life_make(1, 3, PCS_LIFE_DEAD, 1);
    pcs_life_load(m, 0, 0, "o\no\no");
    pcs_life_step(m);
    life_expect_render(m, ".\no\n.\n");
    pcs_life_step(m);
    cr_assert_eq(pcs_life_population(m), 0u);
    pcs_life_destroy(m);
    /* 2 x 2 full: a block, still. */
    m = life_make(2, 2, PCS_LIFE_DEAD, 1);
    pcs_life_load(m, 0, 0, "oo\noo");
    pcs_life_step(m);
    cr_assert_eq(pcs_life_population(m), 4u);
    pcs_life_destroy(m);
}

Test(models_life, openmp_two_threads_match_serial)
{
    const uint32_t w = 97, h = 61;
    pcs_life *a = life_make(w, h, PCS_LIFE_WRAP, 1);
    pcs_life *b = life_make(w, h, PCS_LIFE_WRAP, 2);
    pcs_rng rng;
    pcs_rng_seed(&rng, 5, 1, 0);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int alive = pcs_rng_uniform(&rng) < 0.35;
            pcs_life_set(a, x, y, alive);
            pcs_life_set(b, x, y, alive);
        }
    for (int i = 0; i < 60; i++) {
        pcs_life_step(a);
        pcs_life_step(b);
    }
    cr_assert_gt(pcs_life_population(a), 0u, "soup should not die out in 60 generations");
    cr_assert_eq(memcmp(pcs_life_cells(a), pcs_life_cells(b), (size_t)w * h), 0);
    pcs_life_destroy(a);
    pcs_life_destroy(b);
}

static void life_expect_inval(pcs_life_def cfg, const char *needle)
{
    pcs_life *m = NULL;
    cr_assert_eq(pcs_life_create(&cfg, &m), PCS_E_INVAL, "expected rejection: %s", needle);
    cr_assert_null(m);
    cr_assert(strstr(pcs_last_error(), needle) != NULL, "message '%s' lacks '%s'", pcs_last_error(),
              needle);
}

Test(models_life, bad_parameters_rejected_with_message)
{
    pcs_life_def cfg;
    pcs_life_default(&cfg);
    pcs_life_def c = cfg;
    c.width = 0;
    life_expect_inval(c, "width = 0");
    c = cfg;
    c.height = PCS_LIFE_SIDE_MAX + 1;
    life_expect_inval(c, "height = 65537");
    c = cfg;
    c.boundary = PCS_LIFE_WRAP;
    c.width = 2;
    life_expect_inval(c, "width = 2; allowed [3, 65536]");
    c = cfg;
    c.boundary = (pcs_life_boundary)7;
    life_expect_inval(c, "boundary = 7");
    c = cfg;
    c.width = c.height = 65536;
    life_expect_inval(c, "width * height");
    c = cfg;
    c.threads = 0;
    life_expect_inval(c, "threads = 0");
    c = cfg;
    c.name = "";
    life_expect_inval(c, "name");
    cr_assert_eq(pcs_life_create(NULL, NULL), PCS_E_INVAL);
}

Test(models_life, load_set_render_reject_bad_input_without_change)
{
    pcs_life *m = life_make(4, 3, PCS_LIFE_DEAD, 1);
    cr_assert_eq(pcs_life_load(m, 0, 0, "o.x"), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "'x'") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_life_population(m), 0u, "nothing written: 'o' precedes the bad char");
    cr_assert_eq(pcs_life_load(m, 2, 0, "ooo"), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "(4, 0)") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_life_population(m), 0u);
    cr_assert_eq(pcs_life_set(m, 4, 0, 1), PCS_E_INVAL);
    cr_assert_eq(pcs_life_set(m, 0, 3, 1), PCS_E_INVAL);
    char small[15];
    cr_assert_eq(pcs_life_render(m, small, sizeof small), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "need 16") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_life_step(NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_life_get(NULL, 0, 0), 0);
    pcs_life_destroy(m);
}

Test(models_life, registered_model_steps_each_tick_and_is_hashed)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_life *m = life_make(5, 5, PCS_LIFE_DEAD, 1);
    pcs_life_load(m, 0, 0, life_blinker_v);
    cr_assert_eq(pcs_life_add(w, m, PCS_STAGE_KINETICS, 0), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_life_add(w, m, PCS_STAGE_KINETICS, 0), PCS_E_STATE);
    uint64_t h0 = pcs_world_state_hash(w);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    life_expect_render(m, life_blinker_h);
    uint64_t h1 = pcs_world_state_hash(w);
    cr_assert_neq(h1, h0);
    cr_assert_eq(pcs_world_tick(w), PCS_OK);
    life_expect_render(m, life_blinker_v);
    /* Same cells as at tick 0 but the tick and step count differ: new hash. */
    cr_assert_neq(pcs_world_state_hash(w), h0);
    pcs_world_destroy(w);
    pcs_life_destroy(m);
}
