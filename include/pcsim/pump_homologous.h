/**
 * @file pump_homologous.h
 * @brief Four-quadrant centrifugal pump: homologous head and torque curves
 *        (RELAP5 convention) and the shaft speed equation, as a pure kernel
 *        (no world), so a network can call it per junction.
 *
 * Convention (RELAP5/TRACE homologous pump model; the octant table and the
 * curve names as in RELAP5-3D Code Manual Vol. I, pump component, and
 * RELAP5/MOD3 NUREG/CR-5535 Vol. 2 section 2.3.3, Figs. "Homologous head
 * curve" / "Homologous torque curve"; the printed manual section was not
 * reachable from this project's corpora, so the convention was read from a
 * public implementation of it: ORNL TRANSFORM
 * `TRANSFORM/Fluid/Machines/TurboPump_homologouscurves.mo`, whose octant
 * tests and curve labels are the RELAP5 ones; numbers and convention carried
 * over, no code):
 *
 *   a = omega / omega_R (speed ratio),  v = Q / Q_R (flow ratio),
 *   h = H / H_R (head ratio),  beta = tau_hyd / tau_R (torque ratio).
 *
 *   regime (octant pair)   signs          |v| <= |a|: curve of v/a    |v| > |a|: curve of a/v
 *   normal pump            a >= 0, v >= 0  HAN: h/a^2, x = v/a in [0,1]    HVN: h/v^2, x = a/v in
 * [0,1] energy dissipation     a >= 0, v < 0   HAD: x = v/a in [-1,0]          HVD: x = a/v in
 * [-1,0] normal turbine         a < 0,  v < 0   HAT: x = v/a in [0,1]           HVT: x = a/v in
 * [0,1] reverse pump           a < 0,  v >= 0  HAR: x = v/a in [-1,0]          HVR: x = a/v in
 * [-1,0]
 *
 * and the same eight for the torque (BAN ... BVR, beta/a^2 or beta/v^2).
 * So h = a^2 Y(v/a) or v^2 Y(a/v): scaling speed and flow together by k
 * scales head and torque by k^2 exactly (homologous similarity). At a = v = 0
 * both are 0. Curves are piecewise linear in x (RELAP5 tables are linear),
 * so head and torque are continuous across an octant boundary wherever the
 * two curves that meet there agree at the shared point (a = 0: HVN(0) with
 * HVR(0), HVD(0) with HVT(0); v = 0: HAN(0) with HAD(0), HAT(0) with HAR(0);
 * |v| = |a|: each A curve with its V curve at x = +-1). The default data do
 * (tests/test_pump_homologous.c checks all eight joints of each set).
 *
 * Head and torque (single phase; two-phase degradation is not modelled here,
 * a stated simplification of issue 14):
 *   H = h H_R (m of the fluid pumped, so dp = rho g H),
 *   tau_hyd = beta tau_R rho / rho_R (RELAP5 scales the hydraulic torque by
 *   the density ratio; tau_R is the rated torque at the rated density).
 * tau_hyd is the torque the fluid exerts against positive rotation.
 *
 * Shaft: I d(omega)/dt = tau_motor - tau_hyd(omega, Q) - tau_fric(omega),
 * tau_fric = tau_f0 sign(omega) (the constant term of RELAP5's friction
 * polynomial; the only one sourced, scenarios/README.md). The step holds the
 * flow Q over the step (the network updates it each tick) and is linearly
 * implicit in omega: with J = max(0, d tau_hyd/d omega at fixed Q),
 *   omega' = omega + dt (tau_motor - tau_hyd - tau_fric) / (I + dt J),
 * unconditionally stable for a resisting torque (J >= 0: the linear implicit
 * Euler step of a monotone decreasing right-hand side) and explicit where the
 * fluid drives the rotor (J < 0, where |dt J| / I is of order dt/tau_coast,
 * 0.005 at dt = 0.05 s). First order in dt; with Q following the speed
 * (v = a, the quadratic-torque coast-down) the error against the exact
 * omega0 / (1 + t/tau) is measured in the test (0.22 % at most over 30 s at
 * dt = 0.05 s, ten times less at 0.005 s). Friction never reverses the shaft: if the
 * step would cross zero and the other torques cannot overcome tau_f0, the
 * shaft stops (omega = 0, static friction).
 *
 * Thread-safety: all functions are pure (no state, no allocation); any
 * number of threads may call them. Errors: PCS_E_INVAL with the message naming
 * the function, field, value and the allowed range.
 */
#ifndef PCSIM_PUMP_HOMOLOGOUS_H
#define PCSIM_PUMP_HOMOLOGOUS_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most points one homologous curve may hold. */
#define PCS_PUMP_HOMOLOGOUS_MAX_POINTS 32

/** The eight octants (curve index into pcs_pump_homologous_def::head / torque). */
typedef enum pcs_pump_homologous_octant {
    PCS_PUMP_HOMOLOGOUS_HAN = 0, /**< normal pump, |v| <= a: x = v/a in [0, 1] */
    PCS_PUMP_HOMOLOGOUS_HVN = 1, /**< normal pump, v > a: x = a/v in [0, 1] */
    PCS_PUMP_HOMOLOGOUS_HAD = 2, /**< dissipation, |v| <= a: x = v/a in [-1, 0] */
    PCS_PUMP_HOMOLOGOUS_HVD = 3, /**< dissipation, |v| > a: x = a/v in [-1, 0] */
    PCS_PUMP_HOMOLOGOUS_HAT = 4, /**< turbine, |v| <= |a|: x = v/a in [0, 1] */
    PCS_PUMP_HOMOLOGOUS_HVT = 5, /**< turbine, |v| > |a|: x = a/v in [0, 1] */
    PCS_PUMP_HOMOLOGOUS_HAR = 6, /**< reverse pump, |v| <= |a|: x = v/a in [-1, 0] */
    PCS_PUMP_HOMOLOGOUS_HVR = 7, /**< reverse pump, |v| > |a|: x = a/v in [-1, 0] */
    PCS_PUMP_HOMOLOGOUS_OCTANTS = 8,
} pcs_pump_homologous_octant;

/** One curve: y(x) piecewise linear through n points, x strictly increasing
 *  and covering the octant's x range ([0, 1] or [-1, 0]). */
typedef struct pcs_pump_homologous_curve {
    uint32_t n;                               /**< points, [2, PCS_PUMP_HOMOLOGOUS_MAX_POINTS] */
    double x[PCS_PUMP_HOMOLOGOUS_MAX_POINTS]; /**< v/a or a/v */
    double y[PCS_PUMP_HOMOLOGOUS_MAX_POINTS]; /**< h/a^2, h/v^2, beta/a^2 or beta/v^2 */
} pcs_pump_homologous_curve;

/** A pump: rated point, shaft and the sixteen curves. Start from
 *  pcs_pump_homologous_default; a scenario may overwrite any field. */
typedef struct pcs_pump_homologous_def {
    double rated_flow_m3_s;     /**< Q_R, m3/s, > 0 */
    double rated_head_m;        /**< H_R, m, > 0 */
    double rated_speed_rad_s;   /**< omega_R, rad/s, > 0 */
    double rated_torque_n_m;    /**< tau_R at rated_density, N m, > 0 */
    double rated_density_kg_m3; /**< rho_R, kg/m3, > 0 */
    double inertia_kg_m2;       /**< I of pump + motor + flywheel, kg m2, > 0 */
    double friction_torque_n_m; /**< tau_f0, constant friction torque, N m, >= 0 */
    pcs_pump_homologous_curve head[PCS_PUMP_HOMOLOGOUS_OCTANTS];   /**< HAN ... HVR */
    pcs_pump_homologous_curve torque[PCS_PUMP_HOMOLOGOUS_OCTANTS]; /**< BAN ... BVR */
} pcs_pump_homologous_def;

/** The evaluated pump at one operating point. */
typedef struct pcs_pump_homologous_point {
    int octant;            /**< pcs_pump_homologous_octant used (HAN if a = v = 0) */
    double head_m;         /**< H, m */
    double torque_n_m;     /**< tau_hyd, N m (against positive rotation) */
    double dtorque_domega; /**< d tau_hyd / d omega at fixed Q and rho, N m s */
} pcs_pump_homologous_point;

/**
 * The Westinghouse reactor-coolant pump of scenarios/geometry_pwr4.csv:
 * rated flow 5.5835 m3/s, head 84.43 m, speed 124.5 rad/s, torque 42,844 N m
 * at 999.5 kg/m3, inertia 3455 kg m2, friction 1085 N m, and the
 * Westinghouse four-quadrant curves of the TRACE V5.0 manual (NRC ADAMS
 * ML071720510, Figs. 2-65 and 2-67, digitised in ORNL TRANSFORM
 * HomologousSets/Westinghouse.mo); scenarios/README.md "Pump homologous
 * curves and pressurizer kernel" lists every value and its status.
 * @return PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_pump_homologous_default(pcs_pump_homologous_def *def);

/** Check every field (ranges above; each curve: n in range, finite, x strictly
 *  increasing and covering its octant). The message names the field. */
PCS_API pcs_status pcs_pump_homologous_validate(const pcs_pump_homologous_def *def);

/** The octant of (a, v) as in the file comment (HAN for a = v = 0). */
PCS_API int pcs_pump_homologous_octant_of(double speed_ratio, double flow_ratio);

/**
 * Head, hydraulic torque and its speed derivative at speed omega and
 * volumetric flow Q (positive in the pump's normal direction) for fluid of
 * density rho. Does not validate def (call pcs_pump_homologous_validate
 * once); checks only the arguments.
 * @param speed_rad_s omega, finite.
 * @param flow_m3_s   Q, finite.
 * @param density_kg_m3 rho, > 0 (only the torque uses it).
 */
PCS_API pcs_status pcs_pump_homologous_eval(const pcs_pump_homologous_def *def, double speed_rad_s,
                                            double flow_m3_s, double density_kg_m3,
                                            pcs_pump_homologous_point *out);

/** Head H(omega, Q), m. As pcs_pump_homologous_eval. */
PCS_API pcs_status pcs_pump_homologous_head(const pcs_pump_homologous_def *def, double speed_rad_s,
                                            double flow_m3_s, double *head_m);

/** Hydraulic torque tau_hyd(omega, Q, rho), N m. As pcs_pump_homologous_eval. */
PCS_API pcs_status pcs_pump_homologous_torque(const pcs_pump_homologous_def *def,
                                              double speed_rad_s, double flow_m3_s,
                                              double density_kg_m3, double *torque_n_m);

/**
 * One shaft step (file comment): the speed after dt with motor torque
 * tau_motor, the flow Q and density rho held over the step.
 * @param motor_torque_n_m tau_motor, finite (0 after a trip).
 * @param dt_s             step, in (0, 10] s.
 * @param speed_out        out: omega', rad/s.
 */
PCS_API pcs_status pcs_pump_homologous_shaft_step(const pcs_pump_homologous_def *def,
                                                  double speed_rad_s, double flow_m3_s,
                                                  double density_kg_m3, double motor_torque_n_m,
                                                  double dt_s, double *speed_out);

#ifdef __cplusplus
}
#endif

#endif
