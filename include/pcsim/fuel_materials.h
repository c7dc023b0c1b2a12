/**
 * @file fuel_materials.h
 * @brief Thermal properties of UO2 fuel and Zircaloy cladding (published correlations).
 *
 * Temperatures in K, conductivities in W/(m K), specific heats in J/(kg K).
 * Every function is pure, thread-safe and total: it evaluates its formula at
 * any positive temperature (callers that need clamping to the validity range
 * do it themselves, using the PCS_*_T_MIN_K / PCS_*_T_MAX_K macros below).
 * Transcendentals go through pcs_math (docs/ARCHITECTURE.md section 7).
 *
 * Sources (coefficients as collected in tests/refdata/pwr_plant.md,
 * "Thermal conductivity correlations"):
 *  - J. K. Fink, "Thermophysical properties of uranium dioxide",
 *    J. Nucl. Mater. 279 (2000) 1-18: UO2 conductivity (95 % TD) and heat
 *    capacity.
 *  - L. H. Harding and D. G. Martin, J. Nucl. Mater. 166 (1989) 223, in the
 *    form of IAEA-TECDOC-1496 Eq. 4.1: UO2 conductivity.
 *  - MATPRO CTHCON (NUREG/CR-6150 Vol. 4): Zircaloy conductivity.
 *  - IAEA-TECDOC-1496 Sect. 6.2.1.4: Zircaloy conductivity and heat capacity.
 */
#ifndef PCSIM_FUEL_MATERIALS_H
#define PCSIM_FUEL_MATERIALS_H

#include "pcsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Validity range of the UO2 correlations (Fink 2000: 298 K to melting, 3120 K). */
#define PCS_UO2_T_MIN_K 298.0
#define PCS_UO2_T_MAX_K 3120.0
/** Validity of MATPRO CTHCON: below the Zircaloy melting range, 2098 K. */
#define PCS_ZRY_MATPRO_T_MAX_K 2098.0
/** Validity of the IAEA-TECDOC-1496 Zircaloy fits: 300-1800 K (conductivity). */
#define PCS_ZRY_IAEA_T_MIN_K 300.0
#define PCS_ZRY_IAEA_T_MAX_K 1800.0

/** Molar mass of UO2, kg/mol (238.02891 + 2 x 15.9994 g/mol). */
#define PCS_UO2_MOLAR_MASS_KG_MOL 0.2700277

/**
 * UO2 at 95 % of theoretical density, Fink (2000), with t = T/1000:
 * k = 100/(7.5408 + 17.692 t + 3.6142 t^2) + 6400 t^(-5/2) exp(-16.35/t).
 * Valid 298-3120 K. pwr_plant.md tabulates 7.591 at 300 K, 2.948 at 1200 K.
 */
PCS_API double pcs_uo2_k_fink95(double t_k);

/**
 * UO2, Harding & Martin (1989) as IAEA-TECDOC-1496 Eq. 4.1:
 * k = 1/(0.0375 + 2.165e-4 T) + 4.715e9/T^2 exp(-16361/T). Valid 298-3120 K.
 */
PCS_API double pcs_uo2_k_harding_martin(double t_k);

/**
 * UO2 specific heat, Fink (2000): Einstein, linear and Frenkel-defect terms,
 * C_p = C1 th^2 e^(th/T) / (T^2 (e^(th/T) - 1)^2) + 2 C2 T + C3 Ea e^(-Ea/T) / T^2
 * in J/(mol K) with C1 = 81.613, th = 548.68, C2 = 2.285e-3, C3 = 2.360e7,
 * Ea = 18531.7, divided by PCS_UO2_MOLAR_MASS_KG_MOL. Valid 298-3120 K
 * (about 308 J/(kg K) at 900 K).
 */
PCS_API double pcs_uo2_cp_fink(double t_k);

/**
 * Zircaloy, MATPRO CTHCON: k = 7.51 + 2.09e-2 T - 1.45e-5 T^2 + 7.67e-9 T^3,
 * T < 2098 K. pwr_plant.md tabulates 12.68 at 300 K, 24.96 at 1200 K.
 */
PCS_API double pcs_zry_k_matpro(double t_k);

/**
 * Zircaloy, IAEA-TECDOC-1496 Sect. 6.2.1.4: k = 12.767 - 5.4348e-4 T +
 * 8.9818e-6 T^2, 300-1800 K (about 5 % below MATPRO between 400 and 1200 K).
 */
PCS_API double pcs_zry_k_iaea(double t_k);

/**
 * Zircaloy specific heat, IAEA-TECDOC-1496: 255.66 + 0.1024 T below 1100 K;
 * the same plus the alpha-beta transition peak 1058.4 exp(-(T - 1213.8)^2 /
 * 719.61) up to 1214 K; 597.1 - 0.4088 T + 1.565e-4 T^2 plus the peak up to
 * 1320 K and without it above. Valid 273-2000 K.
 */
PCS_API double pcs_zry_cp_iaea(double t_k);

#ifdef __cplusplus
}
#endif

#endif
