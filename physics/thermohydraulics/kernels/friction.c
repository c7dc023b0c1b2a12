/**
 * @file friction.c
 * @brief Darcy friction factor: Haaland's explicit fit of the Colebrook equation.
 *
 * Turbulent (Re >= 4000): 1/sqrt(f) = -1.8 log10[(eps/D / 3.7)^1.11 + 6.9/Re],
 * S.E. Haaland, "Simple and explicit formulas for the friction factor in
 * turbulent pipe flow", J. Fluids Eng. 105 (1983) 89-90; within 2 % of
 * Colebrook. Laminar (Re <= 2300): f = 64/Re (Hagen-Poiseuille). Between the
 * two, linear interpolation in Re so f is continuous (a modelling choice).
 */
#include "pcsim/math.h"
#include "physics/thermohydraulics/kernels/friction.h"

static double haaland_turbulent(double re, double rel)
{
    double x = pcs_pow(rel / 3.7, 1.11) + 6.9 / re;
    double inv_sqrt_f = -1.8 * pcs_log(x) / pcs_log(10.0);
    return 1.0 / (inv_sqrt_f * inv_sqrt_f);
}

double pcs_friction_haaland(double re, double rel_roughness)
{
    if (re < 1.0)
        re = 1.0; /* stagnant: laminar limit, finite */
    if (re <= 2300.0)
        return 64.0 / re;
    if (re >= 4000.0)
        return haaland_turbulent(re, rel_roughness);
    double fl = 64.0 / 2300.0, ft = haaland_turbulent(4000.0, rel_roughness);
    return fl + (ft - fl) * (re - 2300.0) / 1700.0;
}
