/**
 * @file fuel_materials.c
 * @brief UO2 and Zircaloy conductivity and heat-capacity correlations (fuel_materials.h).
 */
#include "pcsim/fuel_materials.h"

#include "pcsim/math.h"

double pcs_uo2_k_fink95(double t_k)
{
    double t = t_k / 1000.0;
    double phonon = 100.0 / (7.5408 + 17.692 * t + 3.6142 * t * t);
    /* t^(-5/2) = 1 / (t^2 sqrt(t)): cheaper and as exact as pow. */
    double polaron = 6400.0 / (t * t * pcs_sqrt(t)) * pcs_exp(-16.35 / t);
    return phonon + polaron;
}

double pcs_uo2_k_harding_martin(double t_k)
{
    return 1.0 / (0.0375 + 2.165e-4 * t_k) + 4.715e9 / (t_k * t_k) * pcs_exp(-16361.0 / t_k);
}

double pcs_uo2_cp_fink(double t_k)
{
    const double c1 = 81.613, theta = 548.68, c2 = 2.285e-3, c3 = 2.360e7, ea = 18531.7;
    double e = pcs_exp(theta / t_k);
    double em1 = e - 1.0;
    double einstein = c1 * theta * theta * e / (t_k * t_k * em1 * em1);
    double frenkel = c3 * ea * pcs_exp(-ea / t_k) / (t_k * t_k);
    return (einstein + 2.0 * c2 * t_k + frenkel) / PCS_UO2_MOLAR_MASS_KG_MOL;
}

double pcs_zry_k_matpro(double t_k)
{
    return 7.51 + t_k * (2.09e-2 + t_k * (-1.45e-5 + t_k * 7.67e-9));
}

double pcs_zry_k_iaea(double t_k)
{
    return 12.767 + t_k * (-5.4348e-4 + t_k * 8.9818e-6);
}

double pcs_zry_cp_iaea(double t_k)
{
    double d = t_k - 1213.8;
    double peak = 1058.4 * pcs_exp(-d * d / 719.61);
    if (t_k < 1100.0)
        return 255.66 + 0.1024 * t_k;
    if (t_k < 1214.0)
        return 255.66 + 0.1024 * t_k + peak;
    double beta = 597.1 + t_k * (-0.4088 + t_k * 1.565e-4);
    return t_k < 1320.0 ? beta + peak : beta;
}
