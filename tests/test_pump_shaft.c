/**
 * @file test_pump_shaft.c
 * @brief The pump shaft step stays finite for any target, including targets
 *        far below the shaft speed (a crafted save found NaN flows there).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "physics/thermohydraulics/models/hyd_internal.h"

static const pcs_hydraulics_pump pump = {.rated_speed_rad_s = 124.5, .rated_dp_pa = 6e5,
                                  .rated_flow_kg_s = 4400.0, .shutoff_ratio = 1.3,
                                  .efficiency = 0.8, .inertia_kg_m2 = 3000.0};

/* With the motor holding a target far below the speed, the motor torque
 * c w_s^2 is negligible next to the drag c w^2: the step is the motor-off
 * coast-down w0 / (1 + k w0 dt) (pump.c header), to relative order (w_s/w)^2. */
Test(pump_shaft, a_subnormal_target_coasts_down_like_no_target)
{
    double c = pcs_pump_torque_coeff(&pump, 740.0), k = c / pump.inertia_kg_m2;
    double w0 = 124.5, dt = 0.05;
    double want = w0 / (1.0 + k * w0 * dt);
    double targets[] = {4.9406564584124654e-324, 1e-300, 1e-12, 1e-6};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        double got = pcs_pump_shaft_step(&pump, c, w0, targets[i], dt);
        cr_assert(isfinite(got), "target %g: step gave %g", targets[i], got);
        cr_assert(fabs(got - want) <= 1e-9 * want, "target %g: step gave %.17g, coast-down %.17g",
                  targets[i], got, want);
    }
}

/* Near the target the exact tanh/coth forms are used unchanged: holding the
 * target exactly stays there. */
Test(pump_shaft, at_the_target_the_speed_holds)
{
    double c = pcs_pump_torque_coeff(&pump, 740.0);
    cr_assert_eq(pcs_pump_shaft_step(&pump, c, 124.5, 124.5, 0.05), 124.5);
}
