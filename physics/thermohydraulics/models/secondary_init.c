/**
 * @file secondary_init.c
 * @brief The steam side's steady state (pcs_secondary_init_steady in
 *        pcsim/secondary.h): step the model with a feed that follows the
 *        steam and trims the level, and with the turbine opening moved
 *        towards a dome pressure, until nothing moves.
 */
#include <math.h>

#include "physics/thermohydraulics/models/secondary_internal.h"

#define SEC_INIT_WINDOW_S 50.0
#define SEC_INIT_MAX_S 3000.0
#define SEC_INIT_TRIM 10.0 /* kg/s per % NR */

static double *sg_block(const pcs_secondary *sc, double *out, uint32_t l)
{
    (void)sc;
    return out + PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l;
}

/* Feed = steam + trim towards the level target, per SG. */
static void feed(const pcs_secondary *sc, secondary_view *v, double nr)
{
    for (uint32_t l = 0; l < sc->nsg; l++) {
        const double *b = sg_block(sc, v->out, l);
        v->feed[l] =
            fmax(b[PCS_SECONDARY_OUT_STEAM] + SEC_INIT_TRIM * (nr - b[PCS_SECONDARY_OUT_NR]), 0.0);
    }
}

static pcs_status check_args(pcs_world *w, const pcs_secondary *sc, double heat_w,
                             double pressure_pa, double nr_level)
{
    if (!w || !sc)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_init_steady: NULL argument");
    if (!(heat_w >= 0.0 && heat_w <= 1e10))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_secondary_init_steady: %s: heat %g W is outside [0, 1e10]",
                             sc->unit, heat_w);
    if (!(nr_level >= 5.0 && nr_level <= 95.0))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_secondary_init_steady: %s: level %g %% is outside [5, 95]",
                             sc->unit, nr_level);
    if (!(pressure_pa <= 16e6))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_secondary_init_steady: %s: pressure %g Pa is above 16e6 (or NaN)",
                             sc->unit, pressure_pa);
    if (pcs_world_sealed(w))
        return pcs_error_set(
            PCS_E_STATE, "pcs_secondary_init_steady: %s: the world has already ticked", sc->unit);
    return PCS_OK;
}

/* Is the window's end steady? *dpdt: the largest dome |dp/dt|. */
static int settled(const pcs_secondary *sc, const secondary_view *v, const double *p_start,
                   double pressure_pa, double nr, double *dpdt)
{
    int ok = 1;
    *dpdt = 0.0;
    for (uint32_t l = 0; l < sc->nsg; l++) {
        const double *b = sg_block(sc, v->out, l);
        double r = fabs(b[PCS_SECONDARY_OUT_P] - p_start[l]) / SEC_INIT_WINDOW_S;
        *dpdt = fmax(*dpdt, r);
        ok = ok && r <= 2.0 && fabs(b[PCS_SECONDARY_OUT_NR] - nr) <= 0.1;
    }
    if (pressure_pa > 0.0)
        ok = ok && fabs(sg_block(sc, v->out, 0)[PCS_SECONDARY_OUT_P] - pressure_pa) <= 1e3;
    return ok;
}

/* Settle with the tube heats already in tube_heat (header). */
static pcs_status settle(pcs_world *w, pcs_secondary *sc, double pressure_pa, double nr_level,
                         pcs_secondary_init_report *report)
{
    pcs_status st = PCS_OK;
    secondary_view v;
    pcs_secondary_view(w, sc, &v);
    double dt = pcs_world_clock(w)->dt_s, t = 0.0, dpdt = 0.0, p_start[PCS_SECONDARY_MAX_SG];
    uint32_t per_window = (uint32_t)ceil(SEC_INIT_WINDOW_S / dt), corrections = 0;
    int done = 0;
    while (!done && t < SEC_INIT_MAX_S) {
        for (uint32_t l = 0; l < sc->nsg; l++)
            p_start[l] = sg_block(sc, v.out, l)[PCS_SECONDARY_OUT_P];
        for (uint32_t n = 0; n < per_window && st == PCS_OK; n++) {
            feed(sc, &v, nr_level);
            st = pcs_secondary_advance(sc, &v, dt);
        }
        if (st != PCS_OK)
            return pcs_error_set(st, "pcs_secondary_init_steady: %s at %.0f s: %s", sc->unit, t,
                                 pcs_last_error());
        t += per_window * dt;
        done = settled(sc, &v, p_start, pressure_pa, nr_level, &dpdt);
        if (!done && pressure_pa > 0.0) {
            double *s = v.turbine_valve;
            *s = fmin(fmax(*s * sg_block(sc, v.out, 0)[PCS_SECONDARY_OUT_P] / pressure_pa, 0.01),
                      1.0);
            corrections++;
        }
    }
    const double *b = sg_block(sc, v.out, 0);
    if (report) {
        report->seconds = t;
        report->pressure_pa = b[PCS_SECONDARY_OUT_P];
        report->steam_kg_s = b[PCS_SECONDARY_OUT_STEAM];
        report->nr_level = b[PCS_SECONDARY_OUT_NR];
        report->turbine_opening = *v.turbine_valve;
        report->max_dpdt_pa_s = dpdt;
        report->corrections = corrections;
    }
    if (!done)
        return pcs_error_set(PCS_E_STATE,
                             "pcs_secondary_init_steady: %s: not steady after %.0f s (SG 1 at "
                             "%.6g Pa, NR %.3f %%, largest |dp/dt| %.3g Pa/s, turbine %.4f)",
                             sc->unit, t, b[PCS_SECONDARY_OUT_P], b[PCS_SECONDARY_OUT_NR], dpdt,
                             *v.turbine_valve);
    feed(sc, &v, nr_level);
    return PCS_OK;
}

pcs_status pcs_secondary_init_steady(pcs_world *w, pcs_secondary *sc, double heat_w,
                                     double pressure_pa, double nr_level,
                                     pcs_secondary_init_report *report)
{
    pcs_status st = check_args(w, sc, heat_w, pressure_pa, nr_level);
    if (st != PCS_OK)
        return st;
    double *q = pcs_store_data(w, sc->s.tube_heat);
    for (uint32_t k = 0; k < sc->nsg * sc->nt; k++)
        q[k] = heat_w / sc->nt;
    return settle(w, sc, pressure_pa, nr_level, report);
}

pcs_status pcs_secondary_init_steady_tubes(pcs_world *w, pcs_secondary *sc,
                                           const double *tube_heat_w, double pressure_pa,
                                           double nr_level, pcs_secondary_init_report *report)
{
    if (!tube_heat_w)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_init_steady_tubes: NULL tube heats");
    pcs_status st = check_args(w, sc, 0.0, pressure_pa, nr_level);
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++) {
        double sum = 0.0;
        for (uint32_t k = 0; k < sc->nt; k++)
            sum += tube_heat_w[l * sc->nt + k];
        if (!(sum >= 0.0 && sum <= 1e10))
            st = pcs_error_set(PCS_E_INVAL,
                               "pcs_secondary_init_steady_tubes: %s: SG %u heat %g W is outside "
                               "[0, 1e10]",
                               sc->unit, l + 1, sum);
    }
    if (st != PCS_OK)
        return st;
    double *q = pcs_store_data(w, sc->s.tube_heat);
    for (uint32_t k = 0; k < sc->nsg * sc->nt; k++)
        q[k] = tube_heat_w[k];
    return settle(w, sc, pressure_pa, nr_level, report);
}
