/**
 * @file particles.c
 * @brief Example: three particles bouncing in a walled room (pcsim/particles.h).
 *
 * Prints the room ('#' obstacle, 'o' particle, '.' empty) before and after
 * 10 steps; exit status 1 if a particle ends up outside the room.
 */
#include <stdio.h>

#include <pcsim/particles.h>

static const char room[] = "##########\n"
                           "#........#\n"
                           "#...##...#\n"
                           "#........#\n"
                           "##########\n";

int main(void)
{
    pcs_particles_def cfg;
    pcs_particles_default(&cfg);
    cfg.width = 10;
    cfg.height = 5;
    cfg.max_particles = 3;
    pcs_particles *m = NULL;
    if (pcs_particles_create(&cfg, &m) != PCS_OK || pcs_particles_load_map(m, room) != PCS_OK ||
        pcs_particles_spawn(m, 1, 1, 1, 1, NULL) != PCS_OK ||
        pcs_particles_spawn(m, 8, 3, -2, 0, NULL) != PCS_OK ||
        pcs_particles_spawn(m, 3, 1, 0, 1, NULL) != PCS_OK) {
        fprintf(stderr, "particles: %s\n", pcs_last_error());
        return 1;
    }
    char frame[sizeof room];
    pcs_particles_render(m, frame, sizeof frame);
    printf("particles: start\n%s", frame);
    for (int step = 0; step < 10; step++)
        pcs_particles_step(m);
    pcs_particles_render(m, frame, sizeof frame);
    printf("particles: after 10 steps\n%s", frame);
    int ok = 1;
    for (uint32_t i = 0; i < pcs_particles_count(m); i++) {
        int32_t x, y;
        pcs_particles_get(m, i, &x, &y, NULL, NULL);
        ok &= x >= 1 && x <= 8 && y >= 1 && y <= 3;
    }
    pcs_particles_destroy(m);
    return ok ? 0 : 1;
}
