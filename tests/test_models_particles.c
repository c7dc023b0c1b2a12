/**
 * @file test_models_particles.c
 * @brief Tests for the grid particle model (include/pcsim/particles.h).
 *
 * Positions after each bounce are worked by hand from the rule in
 * particles.h: per axis, |v| unit moves; a blocked move reverses v and moves
 * one cell the other way; blocked both ways means stay.
 */
#include <criterion/criterion.h>
#include <string.h>

#include <pcsim/particles.h>
#include <pcsim/world.h>

static pcs_particles *pt_make(uint32_t w, uint32_t h, uint32_t cap)
{
    pcs_particles_def cfg;
    cr_assert_eq(pcs_particles_default(&cfg), PCS_OK);
    cfg.width = w;
    cfg.height = h;
    cfg.max_particles = cap;
    pcs_particles *m = NULL;
    cr_assert_eq(pcs_particles_create(&cfg, &m), PCS_OK, "%s", pcs_last_error());
    return m;
}

static void pt_expect(const pcs_particles *m, uint32_t i, int32_t x, int32_t y, int32_t vx,
                      int32_t vy)
{
    int32_t px, py, pvx, pvy;
    cr_assert_eq(pcs_particles_get(m, i, &px, &py, &pvx, &pvy), PCS_OK);
    cr_assert(px == x && py == y && pvx == vx && pvy == vy,
              "particle %u: got (%d, %d | %d, %d), want (%d, %d | %d, %d)", i, px, py, pvx, pvy, x,
              y, vx, vy);
}

static void pt_expect_render(const pcs_particles *m, const char *expected)
{
    char buf[512];
    cr_assert_eq(pcs_particles_render(m, buf, sizeof buf), PCS_OK, "%s", pcs_last_error());
    cr_assert_str_eq(buf, expected);
}

Test(models_particles, bounces_off_the_right_wall)
{
    pcs_particles *m = pt_make(5, 1, 1);
    pcs_particles_spawn(m, 3, 0, 1, 0, NULL);
    pcs_particles_step(m);
    pt_expect(m, 0, 4, 0, 1, 0);
    pcs_particles_step(m); /* x = 5 is wall: reverse, go to 3 */
    pt_expect(m, 0, 3, 0, -1, 0);
    pcs_particles_destroy(m);
}

Test(models_particles, bounce_keeps_the_distance_travelled)
{
    /* x = 3, vx = 2 on width 5: 3 -> 4, then 5 is wall -> reverse to -2, 4 -> 3. */
    pcs_particles *m = pt_make(5, 1, 1);
    pcs_particles_spawn(m, 3, 0, 2, 0, NULL);
    pcs_particles_step(m);
    pt_expect(m, 0, 3, 0, -2, 0);
    pcs_particles_step(m); /* 3 -> 2 -> 1 */
    pt_expect(m, 0, 1, 0, -2, 0);
    pcs_particles_step(m); /* 1 -> 0, then -1 is wall -> 2, now 1 */
    pt_expect(m, 0, 1, 0, 2, 0);
    pcs_particles_destroy(m);
}

Test(models_particles, bounces_off_an_obstacle)
{
    pcs_particles *m = pt_make(5, 3, 2);
    cr_assert_eq(pcs_particles_set_obstacle(m, 3, 1, 1), PCS_OK);
    pcs_particles_spawn(m, 1, 1, 1, 0, NULL);
    pcs_particles_spawn(m, 3, 0, 0, 1, NULL); /* falls onto the obstacle from above */
    pcs_particles_step(m);
    pt_expect(m, 0, 2, 1, 1, 0);
    pt_expect(m, 1, 3, 0, 0, -1); /* (3, 1) blocked, (3, -1) wall: stays, v reversed */
    cr_assert_eq(pcs_particles_get(m, 1, NULL, NULL, NULL, NULL), PCS_OK);
    pcs_particles_destroy(m);

    m = pt_make(5, 3, 1);
    pcs_particles_set_obstacle(m, 3, 1, 1);
    pcs_particles_spawn(m, 1, 1, 1, 0, NULL);
    pcs_particles_step(m);
    pcs_particles_step(m); /* (3, 1) is an obstacle: back to (1, 1) */
    pt_expect(m, 0, 1, 1, -1, 0);
    pcs_particles_destroy(m);
}

Test(models_particles, walled_in_particle_stays_with_velocity_reversed)
{
    pcs_particles *m = pt_make(1, 1, 1);
    pcs_particles_spawn(m, 0, 0, 1, -3, NULL);
    pcs_particles_step(m);
    pt_expect(m, 0, 0, 0, -1, 3);
    pcs_particles_destroy(m);
}

Test(models_particles, diagonal_particle_bounces_on_both_axes_in_a_corner)
{
    pcs_particles *m = pt_make(3, 3, 1);
    pcs_particles_spawn(m, 1, 1, 1, 1, NULL);
    pcs_particles_step(m);
    pt_expect(m, 0, 2, 2, 1, 1);
    pcs_particles_step(m);
    pt_expect(m, 0, 1, 1, -1, -1);
    pcs_particles_destroy(m);
}

Test(models_particles, free_particle_state_repeats_after_two_width_minus_two_steps)
{
    pcs_particles *m = pt_make(7, 2, 1);
    pcs_particles_spawn(m, 0, 0, 1, 0, NULL);
    for (int s = 1; s <= 2 * (7 - 1); s++) {
        pcs_particles_step(m);
        int32_t x;
        pcs_particles_get(m, 0, &x, NULL, NULL, NULL);
        cr_assert_eq(x == 0, s == 12, "step %d at x = %d", s, x);
    }
    pt_expect(m, 0, 0, 0, -1, 0);
    cr_assert_eq(pcs_particles_steps(m), 12u);
    pcs_particles_step(m); /* -1 is wall: back to 1 moving right, as after step 1 */
    pt_expect(m, 0, 1, 0, 1, 0);
    pcs_particles_destroy(m);
}

Test(models_particles, render_marks_obstacles_particles_and_empty_cells)
{
    pcs_particles *m = pt_make(6, 4, 4);
    cr_assert_eq(pcs_particles_load_map(m, "######\n"
                                           "#....#\n"
                                           "#..#.#\n"
                                           "######\n"),
                 PCS_OK, "%s", pcs_last_error());
    pcs_particles_spawn(m, 1, 1, 1, 0, NULL);
    pcs_particles_spawn(m, 4, 2, 0, -1, NULL);
    pcs_particles_spawn(m, 4, 2, -1, 0, NULL); /* shares a cell: still one 'o' */
    pt_expect_render(m, "######\n"
                        "#o...#\n"
                        "#..#o#\n"
                        "######\n");
    pcs_particles_step(m);
    /* p0 -> (2, 1); p1 (4, 2) up -> (4, 1); p2 left into '#' at (3, 2) -> reverse,
     * (5, 2) is '#' too -> stays at (4, 2) with vx = +1 */
    pt_expect_render(m, "######\n"
                        "#.o.o#\n"
                        "#..#o#\n"
                        "######\n");
    pt_expect(m, 2, 4, 2, 1, 0);
    pcs_particles_destroy(m);
}

Test(models_particles, particles_never_leave_the_grid_or_enter_obstacles)
{
    pcs_particles *m = pt_make(9, 7, 40);
    pcs_particles_load_map(m, ".........\n"
                              "..#......\n"
                              "..#...#..\n"
                              ".....##..\n"
                              "#........\n"
                              "....#....\n"
                              ".........");
    uint32_t added = 0;
    for (int32_t i = 0; i < 60 && added < 40; i++) {
        int32_t x = (i * 5) % 9, y = (i * 3) % 7;
        if (pcs_particles_spawn(m, x, y, (i % 7) - 3, (i % 5) - 2, NULL) == PCS_OK)
            added++;
    }
    cr_assert_eq(added, 40u);
    char buf[128];
    for (int s = 0; s < 300; s++) {
        pcs_particles_step(m);
        cr_assert_eq(pcs_particles_render(m, buf, sizeof buf), PCS_OK);
        for (uint32_t i = 0; i < 40; i++) {
            int32_t x, y;
            pcs_particles_get(m, i, &x, &y, NULL, NULL);
            cr_assert(x >= 0 && x < 9 && y >= 0 && y < 7, "particle %u at (%d, %d)", i, x, y);
            cr_assert_eq(buf[y * 10 + x], 'o', "particle %u on '%c'", i, buf[y * 10 + x]);
        }
    }
    cr_assert_eq(pcs_particles_count(m), 40u);
    pcs_particles_destroy(m);
}

Test(models_particles, bad_input_rejected_with_message)
{
    pcs_particles_def cfg;
    pcs_particles_default(&cfg);
    pcs_particles *bad = NULL;
    pcs_particles_def c = cfg;
    c.width = 0;
    cr_assert_eq(pcs_particles_create(&c, &bad), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "width = 0") != NULL, "%s", pcs_last_error());
    c = cfg;
    c.height = 4097;
    cr_assert_eq(pcs_particles_create(&c, &bad), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "height = 4097") != NULL, "%s", pcs_last_error());
    c = cfg;
    c.max_particles = 0;
    cr_assert_eq(pcs_particles_create(&c, &bad), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "max_particles = 0") != NULL, "%s", pcs_last_error());
    cr_assert_null(bad);

    pcs_particles *m = pt_make(4, 2, 1);
    pcs_particles_set_obstacle(m, 1, 1, 1);
    cr_assert_eq(pcs_particles_spawn(m, 4, 0, 0, 0, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_particles_spawn(m, 0, -1, 0, 0, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_particles_spawn(m, 1, 1, 0, 0, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "obstacle") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_particles_spawn(m, 0, 0, 65, 0, NULL), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "(65, 0)") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_particles_spawn(m, 0, 0, 64, -64, NULL), PCS_OK);
    cr_assert_eq(pcs_particles_spawn(m, 0, 0, 0, 0, NULL), PCS_E_OVERFLOW);
    cr_assert_eq(pcs_particles_set_obstacle(m, 0, 0, 1), PCS_E_INVAL, "a particle is there");
    cr_assert_eq(pcs_particles_set_obstacle(m, 4, 0, 1), PCS_E_INVAL);
    cr_assert_eq(pcs_particles_load_map(m, "#...\n...."), PCS_E_INVAL, "obstacle on particle");
    cr_assert_eq(pcs_particles_load_map(m, "....\n..x."), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "line 2 column 3 is 'x'") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_particles_load_map(m, "...\n...."), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "line 1 has 3 chars") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_particles_load_map(m, "....."), PCS_E_INVAL);
    cr_assert_eq(pcs_particles_load_map(m, "....\n"), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "height = 2") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_particles_load_map(m, "....\n....\n...."), PCS_E_INVAL);
    cr_assert_eq(pcs_particles_render(m, (char[8]){0}, 8), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "need 11") != NULL, "%s", pcs_last_error());
    /* none of the failed loads changed the map: (1, 1) is still the only obstacle */
    pt_expect_render(m, "o...\n.#..\n");
    cr_assert_eq(pcs_particles_get(m, 1, NULL, NULL, NULL, NULL), PCS_E_INVAL);
    cr_assert_eq(pcs_particles_step(NULL), PCS_E_INVAL);
    pcs_particles_destroy(m);
}

Test(models_particles, registered_model_steps_each_tick_and_is_hashed)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_particles *m = pt_make(5, 1, 2);
    pcs_particles_spawn(m, 3, 0, 1, 0, NULL);
    cr_assert_eq(pcs_particles_add(w, m, PCS_STAGE_MACHINES, 3), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_particles_add(w, m, PCS_STAGE_MACHINES, 3), PCS_E_STATE);
    uint64_t h0 = pcs_world_state_hash(w);
    pcs_world_tick(w);
    pcs_world_tick(w);
    pt_expect(m, 0, 3, 0, -1, 0);
    uint64_t h2 = pcs_world_state_hash(w);
    cr_assert_neq(h2, h0);
    pcs_particles_set_obstacle(m, 0, 0, 1);
    cr_assert_neq(pcs_world_state_hash(w), h2, "obstacles are hashed state");
    pcs_world_destroy(w);
    pcs_particles_destroy(m);
}
