/**
 * @file test_model_counts.c
 * @brief The demo models' whole-number def checks, one table each through
 *        pcs_model_counts_check: the full message of a field, of a product
 *        with its unit, and of a range with a note, and the table order.
 */
#include <criterion/criterion.h>

#include "pcsim/pcsim.h"

Test(model_counts, a_field_out_of_range_names_value_and_range)
{
    pcs_rayaabb_def cfg;
    pcs_rayaabb_default(&cfg);
    cfg.max_boxes = 0;
    pcs_rayaabb *m = NULL;
    cr_assert_eq(pcs_rayaabb_create(&cfg, &m), PCS_E_INVAL);
    cr_assert_null(m);
    cr_assert_str_eq(pcs_last_error(), "pcs_rayaabb_create: max_boxes = 0; allowed [1, 65536]");
}

Test(model_counts, a_product_is_checked_after_its_factors_and_shows_its_unit)
{
    pcs_diffusion_def cfg;
    pcs_diffusion_default(&cfg);
    cfg.nx = 65536; /* each side allowed, 65536 x 1025 cells past 2^26 */
    cfg.ny = 1025;
    pcs_diffusion *m = NULL;
    cr_assert_eq(pcs_diffusion_create(&cfg, &m), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_diffusion_create: nx * ny = 67174400 cells; allowed [1, 67108864]");
    cfg.ny = 65537; /* the factor fails first */
    cr_assert_eq(pcs_diffusion_create(&cfg, &m), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), "pcs_diffusion_create: ny = 65537; allowed [1, 65536]");
}

Test(model_counts, a_note_follows_the_range)
{
    pcs_life_def cfg;
    pcs_life_default(&cfg);
    cfg.boundary = PCS_LIFE_WRAP;
    cfg.height = 2;
    pcs_life *m = NULL;
    cr_assert_eq(pcs_life_create(&cfg, &m), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(),
                     "pcs_life_create: height = 2; allowed [3, 65536] for this boundary");
}
