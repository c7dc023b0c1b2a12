/**
 * @file life.c
 * @brief Example: a glider on a 10 x 8 torus, stepped by a world (pcsim/life.h).
 *
 * The model is registered as a world system, so each pcs_world_tick advances
 * one generation and the cells are part of the world's state hash. After 4
 * ticks the glider has moved one cell right and one down.
 */
#include <inttypes.h>
#include <stdio.h>

#include <pcsim/life.h>
#include <pcsim/world.h>

int main(void)
{
    pcs_world_def wcfg;
    pcs_world_default(&wcfg);
    wcfg.workers = 0;
    pcs_world *world = NULL;
    pcs_life *life = NULL;
    pcs_life_def cfg;
    pcs_life_default(&cfg);
    cfg.width = 10;
    cfg.height = 8;
    cfg.boundary = PCS_LIFE_WRAP;
    if (pcs_world_create(&wcfg, &world) != PCS_OK || pcs_life_create(&cfg, &life) != PCS_OK ||
        pcs_life_load(life, 1, 1, ".o.\n..o\nooo") != PCS_OK ||
        pcs_life_add(world, life, PCS_STAGE_KINETICS, 0) != PCS_OK) {
        fprintf(stderr, "life: %s\n", pcs_last_error());
        return 1;
    }
    for (int tick = 0; tick < 4; tick++)
        pcs_world_tick(world);
    char text[(10 + 1) * 8 + 1];
    pcs_life_render(life, text, sizeof text);
    printf("life: generation %" PRIu64 ", population %" PRIu64 ", hash %016" PRIx64 "\n%s",
           pcs_life_steps(life), pcs_life_population(life), pcs_world_state_hash(world), text);
    /* the glider's leading cell started at (3, 2) and is now at (4, 3) */
    int ok = pcs_life_population(life) == 5 && pcs_life_get(life, 4, 3);
    pcs_world_destroy(world);
    pcs_life_destroy(life);
    return ok ? 0 : 1;
}
