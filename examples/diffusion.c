/**
 * @file diffusion.c
 * @brief Example: a hot spot spreading on a 32 x 32 plate (pcsim/diffusion.h).
 *
 * Runs the model standalone, then prints the centre value and the total,
 * which the no-flux boundary conserves. Exit status 1 if it is not.
 */
#include <stdio.h>

#include <pcsim/diffusion.h>
#include <pcsim/math.h>

int main(void)
{
    pcs_diffusion_def cfg;
    pcs_diffusion_default(&cfg);
    cfg.nx = cfg.ny = 32;
    cfg.coeff = 0.25;
    pcs_diffusion *plate = NULL;
    if (pcs_diffusion_create(&cfg, &plate) != PCS_OK) {
        fprintf(stderr, "diffusion: %s\n", pcs_last_error());
        return 1;
    }
    pcs_diffusion_set(plate, 16, 16, 1000.0);
    double before = pcs_diffusion_total(plate);
    for (int step = 0; step < 200; step++)
        pcs_diffusion_step(plate);
    double after = pcs_diffusion_total(plate);
    printf("diffusion: 200 steps, centre %.4f, corner %.4f, total %.12g -> %.12g\n",
           pcs_diffusion_get(plate, 16, 16), pcs_diffusion_get(plate, 0, 0), before, after);
    int ok = pcs_fabs(after - before) <= 1e-9 * before;
    pcs_diffusion_destroy(plate);
    return ok ? 0 : 1;
}
