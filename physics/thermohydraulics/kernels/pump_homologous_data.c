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

typedef struct curve_init {
    uint32_t n;
    double xy[20][2];
} curve_init;

static const curve_init head_w[PCS_PUMP_HOMOLOGOUS_OCTANTS] = {
    /* HAN */ {9,
               {{0.00, 1.73},
                {0.20, 1.50},
                {0.46, 1.24},
                {0.52, 1.23},
                {0.60, 1.24},
                {0.66, 1.24},
                {0.80, 1.17},
                {0.90, 1.10},
                {1.00, 1.00}}},
    /* HVN */
    {9,
     {{0.00, -0.96},
      {0.10, -0.90},
      {0.20, -0.81},
      {0.30, -0.70},
      {0.40, -0.54},
      {0.53, -0.30},
      {0.65, 0.00},
      {0.80, 0.37},
      {1.00, 1.00}}},
    /* HAD */ {5, {{-1.00, 3.55}, {-0.60, 2.73}, {-0.32, 2.20}, {-0.18, 2.00}, {0.00, 1.73}}},
    /* HVD */
    {7,
     {{-1.00, 3.55},
      {-0.89, 3.20},
      {-0.74, 2.80},
      {-0.60, 2.47},
      {-0.46, 2.20},
      {-0.20, 1.73},
      {0.00, 1.40}}},
    /* HAT */
    {10,
     {{0.00, -0.16},
      {0.10, -0.12},
      {0.20, -0.06},
      {0.28, 0.00},
      {0.40, 0.09},
      {0.60, 0.31},
      {0.70, 0.42},
      {0.80, 0.50},
      {0.88, 0.54},
      {1.00, 0.59}}},
    /* HVT */
    {8,
     {{0.00, 1.40},
      {0.37, 0.80},
      {0.43, 0.74},
      {0.50, 0.68},
      {0.58, 0.64},
      {0.64, 0.62},
      {0.70, 0.61},
      {1.00, 0.59}}},
    /* HAR */ {2, {{-1.00, 0.00}, {0.00, -0.16}}},
    /* HVR */ {2, {{-1.00, 0.00}, {0.00, -0.96}}},
};

static const curve_init torque_w[PCS_PUMP_HOMOLOGOUS_OCTANTS] = {
    /* BAN */ {10,
               {{0.00, 1.01},
                {0.10, 0.96},
                {0.20, 0.92},
                {0.30, 0.90},
                {0.40, 0.89},
                {0.50, 0.91},
                {0.70, 0.99},
                {0.80, 1.02},
                {0.90, 1.02},
                {1.00, 1.00}}},
    /* BVN */
    {7,
     {{0.00, -0.87},
      {0.10, -0.76},
      {0.20, -0.63},
      {0.30, -0.48},
      {0.40, -0.31},
      {0.74, 0.40},
      {1.00, 1.00}}},
    /* BAD */
    {8,
     {{-1.00, 2.98},
      {-0.82, 2.40},
      {-0.60, 1.87},
      {-0.46, 1.60},
      {-0.34, 1.40},
      {-0.20, 1.21},
      {-0.10, 1.10},
      {0.00, 1.01}}},
    /* BVD */
    {7,
     {{-1.00, 2.98},
      {-0.91, 2.80},
      {-0.80, 2.60},
      {-0.70, 2.42},
      {-0.60, 2.25},
      {-0.42, 2.00},
      {0.00, 1.42}}},
    /* BAT */
    {7,
     {{0.00, -1.00},
      {0.25, -0.60},
      {0.40, -0.37},
      {0.50, -0.25},
      {0.60, -0.16},
      {0.80, -0.01},
      {1.00, 0.11}}},
    /* BVT */ {4, {{0.00, 1.42}, {0.60, 0.61}, {0.80, 0.35}, {1.00, 0.11}}},
    /* BAR */ {2, {{-1.00, 0.00}, {0.00, -1.00}}},
    /* BVR */ {2, {{-1.00, 0.00}, {0.00, -0.87}}},
};

static void fill(pcs_pump_homologous_curve *c, const curve_init *src)
{
    c->n = src->n;
    for (uint32_t i = 0; i < PCS_PUMP_HOMOLOGOUS_MAX_POINTS; i++) {
        c->x[i] = i < src->n ? src->xy[i][0] : 0.0;
        c->y[i] = i < src->n ? src->xy[i][1] : 0.0;
    }
}

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
        fill(&def->head[k], &head_w[k]);
        fill(&def->torque[k], &torque_w[k]);
    }
    return PCS_OK;
}
