/**
 * @file pump_homologous_data.c
 * @brief The default reactor-coolant pump: rated data of
 *        scenarios/geometry_pwr4.csv and the Westinghouse four-quadrant
 *        homologous curves.
 *
 * Rated point and shaft (scenarios/README.md "Reactor coolant pumps"):
 * flow 88,500 gpm = 5.5835 m3/s and head 277 ft = 84.43 m (3 sources),
 * speed 1189 rpm = 124.5 rad/s (3 sources within 1.7 %), torque
 * 31,600 lbf ft = 42,844 N m at 62.4 lbm/ft3 = 999.5 kg/m3 ([TYP] model),
 * inertia 82,000 lbm ft2 = 3455 kg m2 (2 sources), friction 800 lbf ft =
 * 1085 N m ([TYP] model).
 *
 * Curves: the Westinghouse pump of the TRACE V5.0 manual (NRC ADAMS
 * ML071720510, pp. 149-150, Figs. 2-65 head and 2-67 torque), as digitised
 * point by point in ORNL TRANSFORM
 * `TRANSFORM/Fluid/Machines/BaseClasses/PumpCharacteristics/HomologousSets/Westinghouse.mo`
 * (commit 00659235). A secondary digitisation of a figure: two significant
 * digits. The reverse-pump octants (HAR, HVR, BAR, BVR) are single straight
 * lines in that set (two points each), as digitised there; they are used as
 * they are. The eight joints agree exactly (tests/test_pump_homologous.c).
 * Whether these are the same data as RELAP5's built-in Westinghouse tables
 * is not known (those were not reachable, scenarios/README.md).
 */
#include "pcsim/pump_homologous.h"

#include <stddef.h>

static const pcs_pump_homologous_curve head_w[PCS_PUMP_HOMOLOGOUS_OCTANTS] = {
    /* HAN */ {9,
               {0.00, 0.20, 0.46, 0.52, 0.60, 0.66, 0.80, 0.90, 1.00},
               {1.73, 1.50, 1.24, 1.23, 1.24, 1.24, 1.17, 1.10, 1.00}},
    /* HVN */
    {9,
     {0.00, 0.10, 0.20, 0.30, 0.40, 0.53, 0.65, 0.80, 1.00},
     {-0.96, -0.90, -0.81, -0.70, -0.54, -0.30, 0.00, 0.37, 1.00}},
    /* HAD */ {5, {-1.00, -0.60, -0.32, -0.18, 0.00}, {3.55, 2.73, 2.20, 2.00, 1.73}},
    /* HVD */
    {7,
     {-1.00, -0.89, -0.74, -0.60, -0.46, -0.20, 0.00},
     {3.55, 3.20, 2.80, 2.47, 2.20, 1.73, 1.40}},
    /* HAT */
    {10,
     {0.00, 0.10, 0.20, 0.28, 0.40, 0.60, 0.70, 0.80, 0.88, 1.00},
     {-0.16, -0.12, -0.06, 0.00, 0.09, 0.31, 0.42, 0.50, 0.54, 0.59}},
    /* HVT */
    {8,
     {0.00, 0.37, 0.43, 0.50, 0.58, 0.64, 0.70, 1.00},
     {1.40, 0.80, 0.74, 0.68, 0.64, 0.62, 0.61, 0.59}},
    /* HAR */ {2, {-1.00, 0.00}, {0.00, -0.16}},
    /* HVR */ {2, {-1.00, 0.00}, {0.00, -0.96}},
};

static const pcs_pump_homologous_curve torque_w[PCS_PUMP_HOMOLOGOUS_OCTANTS] = {
    /* BAN */ {10,
               {0.00, 0.10, 0.20, 0.30, 0.40, 0.50, 0.70, 0.80, 0.90, 1.00},
               {1.01, 0.96, 0.92, 0.90, 0.89, 0.91, 0.99, 1.02, 1.02, 1.00}},
    /* BVN */
    {7,
     {0.00, 0.10, 0.20, 0.30, 0.40, 0.74, 1.00},
     {-0.87, -0.76, -0.63, -0.48, -0.31, 0.40, 1.00}},
    /* BAD */
    {8,
     {-1.00, -0.82, -0.60, -0.46, -0.34, -0.20, -0.10, 0.00},
     {2.98, 2.40, 1.87, 1.60, 1.40, 1.21, 1.10, 1.01}},
    /* BVD */
    {7,
     {-1.00, -0.91, -0.80, -0.70, -0.60, -0.42, 0.00},
     {2.98, 2.80, 2.60, 2.42, 2.25, 2.00, 1.42}},
    /* BAT */
    {7,
     {0.00, 0.25, 0.40, 0.50, 0.60, 0.80, 1.00},
     {-1.00, -0.60, -0.37, -0.25, -0.16, -0.01, 0.11}},
    /* BVT */ {4, {0.00, 0.60, 0.80, 1.00}, {1.42, 0.61, 0.35, 0.11}},
    /* BAR */ {2, {-1.00, 0.00}, {0.00, -1.00}},
    /* BVR */ {2, {-1.00, 0.00}, {0.00, -0.87}},
};

pcs_status pcs_pump_homologous_default(pcs_pump_homologous_def *def)
{
    if (def == NULL)
        return pcs_error_set(PCS_E_INVAL, "pcs_pump_homologous_default: def is NULL");
    def->rated_flow_m3_s = 5.5835;
    def->rated_head_m = 84.43;
    def->rated_speed_rad_s = 124.5;
    def->rated_torque_n_m = 42844.0;
    def->rated_density_kg_m3 = 999.5;
    def->inertia_kg_m2 = 3455.0;
    def->friction_torque_n_m = 1085.0;
    for (int k = 0; k < PCS_PUMP_HOMOLOGOUS_OCTANTS; k++) {
        def->head[k] = head_w[k];
        def->torque[k] = torque_w[k];
    }
    return PCS_OK;
}
