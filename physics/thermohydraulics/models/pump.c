/**
 * @file pump.c
 * @brief Centrifugal pump: quadratic head curve and exact shaft dynamics.
 *
 * Head: dp = dp_r [s (w/w_r)^2 - (s - 1) (m/m_r)|m/m_r|], which passes through
 * the rated point (w_r, m_r, dp_r) and the shutoff head s dp_r (homologous
 * scaling of a quadratic curve, e.g. Todreas & Kazimi, Nuclear Systems I, ch. 7).
 * Shaft: I dw/dt = tau_m - c w^2, c = tau_r / w_r^2, tau_r = dp_r m_r /
 * (rho eff w_r). With the motor off the solution is w = w0 / (1 + c w0 t / I);
 * with the motor holding speed target w_s (tau_m = c w_s^2) it is
 * w = w_s tanh(atanh(w0/w_s) + c w_s t / I) below w_s and the coth form above.
 * Both are used exactly, so the coast-down has no time-step error.
 * When the target is below 1e-6 of the speed, the motor torque c w_s^2 is
 * below 1e-12 of the drag c w^2, so the motor-off solution is the same to
 * double precision; it is used there because the coth form underflows
 * (tanh(u) -> 0 for a subnormal target gives w = inf).
 */
#include "pcsim/math.h"
#include "physics/thermohydraulics/models/hyd_internal.h"

double pcs_pump_dp(const pcs_hydraulics_pump *p, double speed, double flow)
{
    double wr = speed / p->rated_speed_rad_s;
    (void)flow;
    return p->rated_dp_pa * p->shutoff_ratio * wr * wr;
}

/* The flow-dependent part, -(s-1) dp_r/m_r^2 m|m|, joins the junction losses. */
double pcs_pump_loss_coeff(const pcs_hydraulics_pump *p)
{
    return (p->shutoff_ratio - 1.0) * p->rated_dp_pa /
           (p->rated_flow_kg_s * p->rated_flow_kg_s);
}

double pcs_pump_torque_coeff(const pcs_hydraulics_pump *p, double rho)
{
    double tau_r = p->rated_dp_pa * p->rated_flow_kg_s /
                   (rho * p->efficiency * p->rated_speed_rad_s);
    return tau_r / (p->rated_speed_rad_s * p->rated_speed_rad_s);
}

static double atanh_(double x)
{
    return 0.5 * pcs_log((1.0 + x) / (1.0 - x));
}

double pcs_pump_shaft_step(const pcs_hydraulics_pump *p, double c, double speed, double target,
                           double dt)
{
    double k = c / p->inertia_kg_m2;
    if (!(target > 1e-6 * speed))
        return speed / (1.0 + k * speed * dt);
    double x = speed / target;
    if (x == 1.0)
        return speed;
    if (x < 1.0)
        return target * pcs_tanh(atanh_(x) + k * target * dt);
    /* coth form: w = w_s coth(acoth(x) + k w_s dt), acoth(x) = atanh(1/x) */
    double u = atanh_(1.0 / x) + k * target * dt;
    return target / pcs_tanh(u);
}
