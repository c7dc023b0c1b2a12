/**
 * @file rayaabb.c
 * @brief Example: a fan of rays against three boxes (pcsim/rayaabb.h).
 *
 * Casts 5 rays from the origin with the caster and prints, for each, the
 * nearest box and the hit distance; checks one answer worked by hand.
 */
#include <stdio.h>

#include <pcsim/rayaabb.h>

int main(void)
{
    pcs_rayaabb_def cfg;
    pcs_rayaabb_default(&cfg);
    pcs_rayaabb *caster = NULL;
    if (pcs_rayaabb_create(&cfg, &caster) != PCS_OK) {
        fprintf(stderr, "rayaabb: %s\n", pcs_last_error());
        return 1;
    }
    pcs_rayaabb_box box;
    pcs_rayaabb_box_init(&box, 4, -1, 5, 1); /* straight ahead */
    pcs_rayaabb_add_box(caster, &box, NULL);
    pcs_rayaabb_box_init(&box, 2, 2, 3, 6); /* up and to the right */
    pcs_rayaabb_add_box(caster, &box, NULL);
    pcs_rayaabb_box_init(&box, -3, -3, -2, 3); /* behind */
    pcs_rayaabb_add_box(caster, &box, NULL);
    const double dirs[5][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 0}, {0, -1}};
    for (int i = 0; i < 5; i++) {
        pcs_rayaabb_ray ray;
        pcs_rayaabb_ray_init(&ray, 0, 0, dirs[i][0], dirs[i][1]);
        pcs_rayaabb_add_ray(caster, &ray, NULL);
    }
    pcs_rayaabb_step(caster);
    for (uint32_t i = 0; i < 5; i++) {
        double t;
        uint32_t hit;
        if (pcs_rayaabb_result(caster, i, &t, &hit))
            printf("rayaabb: ray %u (%g, %g) hits box %u at t = %g\n", i, dirs[i][0], dirs[i][1],
                   hit, t);
        else
            printf("rayaabb: ray %u (%g, %g) misses\n", i, dirs[i][0], dirs[i][1]);
    }
    double t = 0;
    uint32_t hit = 0;
    /* ray 1, direction (1, 1): box 1 spans x in [2, 3] and y in [2, 6] -> t = 2 */
    int ok = pcs_rayaabb_result(caster, 1, &t, &hit) && hit == 1 && t == 2.0 &&
             !pcs_rayaabb_result(caster, 4, NULL, NULL);
    pcs_rayaabb_destroy(caster);
    return ok ? 0 : 1;
}
