/**
 * @file test_models_world.c
 * @brief All five bounded models in one world: build-time memory only,
 *        STATE stores, and a reproducible state hash.
 */
#include <criterion/criterion.h>

#include <pcsim/diffusion.h>
#include <pcsim/flocking.h>
#include <pcsim/life.h>
#include <pcsim/particles.h>
#include <pcsim/rayaabb.h>
#include <pcsim/world.h>

typedef struct mw_models {
    pcs_world *w;
    pcs_diffusion *diffusion;
    pcs_life *life;
    pcs_rayaabb *rays;
    pcs_flocking *flock;
    pcs_particles *parts;
} mw_models;

static void mw_build(mw_models *m)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.check_finite = 1; /* NaN/Inf in a physics store fails the tick */
    wc.workers = 0;
    cr_assert_eq(pcs_world_create(&wc, &m->w), PCS_OK);

    pcs_diffusion_def dc;
    pcs_diffusion_default(&dc);
    cr_assert_eq(pcs_diffusion_create(&dc, &m->diffusion), PCS_OK);
    pcs_diffusion_set(m->diffusion, 10, 10, 1.0);
    pcs_life_def lc;
    pcs_life_default(&lc);
    cr_assert_eq(pcs_life_create(&lc, &m->life), PCS_OK);
    pcs_life_load(m->life, 5, 5, ".o.\n..o\nooo");
    pcs_rayaabb_def rc;
    pcs_rayaabb_default(&rc);
    cr_assert_eq(pcs_rayaabb_create(&rc, &m->rays), PCS_OK);
    pcs_rayaabb_ray ray;
    pcs_rayaabb_box box;
    pcs_rayaabb_ray_init(&ray, 0, 0, 1, 0.5);
    pcs_rayaabb_box_init(&box, 3, 0, 4, 5);
    pcs_rayaabb_add_ray(m->rays, &ray, NULL);
    pcs_rayaabb_add_box(m->rays, &box, NULL);
    pcs_flocking_def fc;
    pcs_flocking_default(&fc);
    cr_assert_eq(pcs_flocking_create(&fc, &m->flock), PCS_OK);
    pcs_particles_def pc;
    pcs_particles_default(&pc);
    cr_assert_eq(pcs_particles_create(&pc, &m->parts), PCS_OK);
    pcs_particles_spawn(m->parts, 1, 1, 2, 1, NULL);

    /* All in one stage: each model writes only its own stores. */
    cr_assert_eq(pcs_diffusion_add(m->w, m->diffusion, PCS_STAGE_MACHINES, 0), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_life_add(m->w, m->life, PCS_STAGE_MACHINES, 1), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_rayaabb_add(m->w, m->rays, PCS_STAGE_MACHINES, 2), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_flocking_add(m->w, m->flock, PCS_STAGE_MACHINES, 3), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_particles_add(m->w, m->parts, PCS_STAGE_MACHINES, 4), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_system_count(m->w, PCS_STAGE_MACHINES), 5u);
}

static void mw_destroy(mw_models *m)
{
    pcs_world_destroy(m->w);
    pcs_diffusion_destroy(m->diffusion);
    pcs_life_destroy(m->life);
    pcs_rayaabb_destroy(m->rays);
    pcs_flocking_destroy(m->flock);
    pcs_particles_destroy(m->parts);
}

Test(models_world, ticks_allocate_nothing_and_every_model_steps)
{
    mw_models m;
    mw_build(&m);
    cr_assert_eq(pcs_world_tick(m.w), PCS_OK, "%s", pcs_last_error()); /* seals */
    uint64_t allocs = pcs_world_alloc_count(m.w);
    for (int t = 0; t < 20; t++)
        cr_assert_eq(pcs_world_tick(m.w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_world_alloc_count(m.w), allocs);
    cr_assert_eq(pcs_diffusion_steps(m.diffusion), 21u);
    cr_assert_eq(pcs_life_steps(m.life), 21u);
    cr_assert_eq(pcs_rayaabb_steps(m.rays), 21u);
    cr_assert_eq(pcs_flocking_steps(m.flock), 21u);
    cr_assert_eq(pcs_particles_steps(m.parts), 21u);
    mw_destroy(&m);
}

Test(models_world, model_state_lives_in_state_stores)
{
    mw_models m;
    mw_build(&m);
    static const char *const state[] = {
        "diffusion.hdr", "diffusion.u0",    "diffusion.u1",  "life.hdr",        "life.c0",
        "life.c1",       "rayaabb.hdr",     "rayaabb.rays",  "rayaabb.boxes",   "rayaabb.hits",
        "flocking.hdr",  "flocking.agents", "particles.hdr", "particles.cells", "particles.parts"};
    for (size_t i = 0; i < sizeof state / sizeof state[0]; i++) {
        uint32_t id;
        cr_assert_eq(pcs_store_find(m.w, state[i], &id), PCS_OK, "store %s missing", state[i]);
        cr_assert_eq(pcs_store_kind_of(m.w, id), PCS_STORE_STATE, "%s", state[i]);
    }
    uint32_t id;
    cr_assert_eq(pcs_store_find(m.w, "flocking.order", &id), PCS_OK);
    cr_assert_eq(pcs_store_kind_of(m.w, id), PCS_STORE_SCRATCH, "the grid is rebuilt each step");
    mw_destroy(&m);
}

Test(models_world, same_build_same_hash_after_many_ticks)
{
    uint64_t h[2];
    for (int run = 0; run < 2; run++) {
        mw_models m;
        mw_build(&m);
        for (int t = 0; t < 40; t++)
            cr_assert_eq(pcs_world_tick(m.w), PCS_OK);
        h[run] = pcs_world_state_hash(m.w);
        mw_destroy(&m);
    }
    cr_assert_eq(h[0], h[1]);
}
