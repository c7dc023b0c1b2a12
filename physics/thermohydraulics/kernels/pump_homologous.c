/**
 * @file pump_homologous.c
 * @brief Four-quadrant homologous head and torque and the shaft step (the
 *        model and its sources are in include/pcsim/pump_homologous.h).
 *
 * Each curve is linear between points, so a lookup is a scan for the
 * segment (curves hold at most 32 points) and one interpolation; the slope of
 * that segment gives the torque's speed derivative the shaft step needs.
 */
#include "pcsim/pump_homologous.h"

#include <stddef.h>

#include "pcsim/math.h"

/* x range of each octant's curve: A and V curves of the normal pump and the
   turbine run over [0, 1], of dissipation and the reverse pump over [-1, 0]. */
static const double octant_lo[PCS_PUMP_HOMOLOGOUS_OCTANTS] = {0, 0, -1, -1, 0, 0, -1, -1};
static const char *const octant_name[PCS_PUMP_HOMOLOGOUS_OCTANTS] = {"HAN", "HVN", "HAD", "HVD",
                                                                     "HAT", "HVT", "HAR", "HVR"};

static pcs_status check_curve(const pcs_pump_homologous_curve *c, const char *kind, int k)
{
    static const char fn[] = "pcs_pump_homologous_validate";
    const double lo = octant_lo[k], hi = lo + 1.0;
    if (c->n < 2 || c->n > PCS_PUMP_HOMOLOGOUS_MAX_POINTS)
        return pcs_error_set(PCS_E_INVAL, "%s: %s[%s].n = %u, allowed [2, %d]", fn, kind,
                             octant_name[k], c->n, PCS_PUMP_HOMOLOGOUS_MAX_POINTS);
    for (uint32_t i = 0; i < c->n; i++) {
        if (!pcs_isfinite(c->x[i]) || !pcs_isfinite(c->y[i]))
            return pcs_error_set(PCS_E_INVAL, "%s: %s[%s] point %u = (%g, %g) is not finite", fn,
                                 kind, octant_name[k], i, c->x[i], c->y[i]);
        if (i > 0 && !(c->x[i] > c->x[i - 1]))
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: %s[%s].x[%u] = %g does not increase from x[%u] = %g", fn,
                                 kind, octant_name[k], i, c->x[i], i - 1, c->x[i - 1]);
    }
    if (c->x[0] > lo || c->x[c->n - 1] < hi)
        return pcs_error_set(PCS_E_INVAL, "%s: %s[%s] covers x in [%g, %g], must cover [%g, %g]",
                             fn, kind, octant_name[k], c->x[0], c->x[c->n - 1], lo, hi);
    return PCS_OK;
}

static pcs_status check_pos(const char *field, double v, int zero_ok)
{
    if (pcs_isfinite(v) && (v > 0.0 || (zero_ok && v == 0.0)))
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL, "pcs_pump_homologous_validate: %s = %g, allowed %s", field, v,
                         zero_ok ? "finite >= 0" : "finite > 0");
}

pcs_status pcs_pump_homologous_validate(const pcs_pump_homologous_def *def)
{
    if (def == NULL)
        return pcs_error_set(PCS_E_INVAL, "pcs_pump_homologous_validate: def is NULL");
    pcs_status st = PCS_OK;
    if ((st = check_pos("rated_flow_m3_s", def->rated_flow_m3_s, 0)) != PCS_OK ||
        (st = check_pos("rated_head_m", def->rated_head_m, 0)) != PCS_OK ||
        (st = check_pos("rated_speed_rad_s", def->rated_speed_rad_s, 0)) != PCS_OK ||
        (st = check_pos("rated_torque_n_m", def->rated_torque_n_m, 0)) != PCS_OK ||
        (st = check_pos("rated_density_kg_m3", def->rated_density_kg_m3, 0)) != PCS_OK ||
        (st = check_pos("inertia_kg_m2", def->inertia_kg_m2, 0)) != PCS_OK ||
        (st = check_pos("friction_torque_n_m", def->friction_torque_n_m, 1)) != PCS_OK)
        return st;
    for (int k = 0; k < PCS_PUMP_HOMOLOGOUS_OCTANTS; k++) {
        if ((st = check_curve(&def->head[k], "head", k)) != PCS_OK ||
            (st = check_curve(&def->torque[k], "torque", k)) != PCS_OK)
            return st;
    }
    return PCS_OK;
}

int pcs_pump_homologous_octant_of(double a, double v)
{
    int regime = !(a < 0.0) ? (v >= 0.0 ? 0 : 1) : (v < 0.0 ? 2 : 3);
    int use_a = pcs_fabs(v) <= pcs_fabs(a);
    return 2 * regime + (use_a ? 0 : 1);
}

/* y(x) and its slope on the segment that holds x (x clamped into the curve). */
static double interp(const pcs_pump_homologous_curve *c, double x, double *slope)
{
    uint32_t i = 0;
    x = pcs_clamp(x, c->x[0], c->x[c->n - 1]);
    while (i + 2 < c->n && x > c->x[i + 1])
        i++;
    const double s = (c->y[i + 1] - c->y[i]) / (c->x[i + 1] - c->x[i]);
    *slope = s;
    return c->y[i] + s * (x - c->x[i]);
}

/* Ratio (h or beta) and its derivative in a at fixed v, from one curve set. */
static double ratio(const pcs_pump_homologous_curve *set, int oct, double a, double v, double *d_da)
{
    double s = 0.0;
    if ((oct & 1) == 0) { /* A curve: a^2 Y(v/a) */
        const double y = interp(&set[oct], v / a, &s);
        *d_da = 2.0 * a * y - v * s;
        return a * a * y;
    }
    const double y = interp(&set[oct], a / v, &s); /* V curve: v^2 Y(a/v) */
    *d_da = v * s;
    return v * v * y;
}

static pcs_status check_args(const char *fn, const void *def, double w, double q, double rho,
                             const void *out)
{
    if (def == NULL || out == NULL)
        return pcs_error_set(PCS_E_INVAL, "%s: %s is NULL", fn, def == NULL ? "def" : "out");
    if (!pcs_isfinite(w) || !pcs_isfinite(q))
        return pcs_error_set(PCS_E_INVAL, "%s: speed_rad_s = %g, flow_m3_s = %g must be finite", fn,
                             w, q);
    if (!(rho > 0.0) || !pcs_isfinite(rho))
        return pcs_error_set(PCS_E_INVAL, "%s: density_kg_m3 = %g, allowed finite > 0", fn, rho);
    return PCS_OK;
}

static void eval_unchecked(const pcs_pump_homologous_def *def, double w, double q, double rho,
                           pcs_pump_homologous_point *out)
{
    const double a = w / def->rated_speed_rad_s, v = q / def->rated_flow_m3_s;
    const double tau_scale = def->rated_torque_n_m * rho / def->rated_density_kg_m3;
    out->octant = pcs_pump_homologous_octant_of(a, v);
    if (a == 0.0 && v == 0.0) {
        out->head_m = out->torque_n_m = out->dtorque_domega = 0.0;
        return;
    }
    double dh = 0.0, db = 0.0;
    out->head_m = def->rated_head_m * ratio(def->head, out->octant, a, v, &dh);
    out->torque_n_m = tau_scale * ratio(def->torque, out->octant, a, v, &db);
    out->dtorque_domega = tau_scale * db / def->rated_speed_rad_s;
}

pcs_status pcs_pump_homologous_eval(const pcs_pump_homologous_def *def, double speed_rad_s,
                                    double flow_m3_s, double density_kg_m3,
                                    pcs_pump_homologous_point *out)
{
    pcs_status st =
        check_args("pcs_pump_homologous_eval", def, speed_rad_s, flow_m3_s, density_kg_m3, out);
    if (st == PCS_OK)
        eval_unchecked(def, speed_rad_s, flow_m3_s, density_kg_m3, out);
    return st;
}

pcs_status pcs_pump_homologous_head(const pcs_pump_homologous_def *def, double speed_rad_s,
                                    double flow_m3_s, double *head_m)
{
    pcs_status st =
        check_args("pcs_pump_homologous_head", def, speed_rad_s, flow_m3_s, 1.0, head_m);
    if (st != PCS_OK)
        return st;
    pcs_pump_homologous_point pt;
    eval_unchecked(def, speed_rad_s, flow_m3_s, def->rated_density_kg_m3, &pt);
    *head_m = pt.head_m;
    return PCS_OK;
}

pcs_status pcs_pump_homologous_torque(const pcs_pump_homologous_def *def, double speed_rad_s,
                                      double flow_m3_s, double density_kg_m3, double *torque_n_m)
{
    pcs_status st = check_args("pcs_pump_homologous_torque", def, speed_rad_s, flow_m3_s,
                               density_kg_m3, torque_n_m);
    if (st != PCS_OK)
        return st;
    pcs_pump_homologous_point pt;
    eval_unchecked(def, speed_rad_s, flow_m3_s, density_kg_m3, &pt);
    *torque_n_m = pt.torque_n_m;
    return PCS_OK;
}

static double sgn(double x)
{
    return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0);
}

pcs_status pcs_pump_homologous_shaft_step(const pcs_pump_homologous_def *def, double speed_rad_s,
                                          double flow_m3_s, double density_kg_m3,
                                          double motor_torque_n_m, double dt_s, double *speed_out)
{
    static const char fn[] = "pcs_pump_homologous_shaft_step";
    pcs_status st = check_args(fn, def, speed_rad_s, flow_m3_s, density_kg_m3, speed_out);
    if (st != PCS_OK)
        return st;
    if (!pcs_isfinite(motor_torque_n_m) || !(dt_s > 0.0 && dt_s <= 10.0))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: motor_torque_n_m = %g (finite), dt_s = %g (allowed (0, 10])", fn,
                             motor_torque_n_m, dt_s);
    pcs_pump_homologous_point pt;
    eval_unchecked(def, speed_rad_s, flow_m3_s, density_kg_m3, &pt);
    const double w = speed_rad_s, tf = def->friction_torque_n_m;
    const double drive = motor_torque_n_m - pt.torque_n_m; /* all but friction */
    if (w == 0.0 && pcs_fabs(drive) <= tf) {
        *speed_out = 0.0; /* static friction holds the shaft */
        return PCS_OK;
    }
    const double dir = w != 0.0 ? sgn(w) : sgn(drive); /* friction opposes this */
    const double jac = pcs_fmax(0.0, pt.dtorque_domega);
    double w1 = w + dt_s * (drive - tf * dir) / (def->inertia_kg_m2 + dt_s * jac);
    /* Friction alone never reverses the shaft: a crossing needs a drive
       beyond tau_f0 the other way. */
    if (w != 0.0 && sgn(w1) != sgn(w) && !(-dir * drive > tf))
        w1 = 0.0;
    *speed_out = w1;
    return PCS_OK;
}
