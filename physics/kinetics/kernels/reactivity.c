/**
 * @file reactivity.c
 * @brief Control-rod worth, drive and gravity drop; Doppler, moderator and boron feedback.
 *
 * Small pure functions: the unit model (physics/kinetics/models/unit.c) owns the state and
 * calls these per bank and per tick.
 */
#include <string.h>

#include "pcsim/math.h"
#include "pcsim/reactivity.h"

static int rod_name_ok(const char *name)
{
    size_t n = strnlen(name, PCS_REACTIVITY_ROD_NAME_MAX);
    if (n == 0 || n >= PCS_REACTIVITY_ROD_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        if (!ok)
            return 0;
    }
    return 1;
}

static pcs_status rod_table_validate(const pcs_reactivity_rod_bank *b, uint32_t index)
{
    const char *nm = b->name;
    if (b->n_points < 2 || b->n_points > PCS_REACTIVITY_ROD_TABLE_MAX)
        return pcs_error_set(PCS_E_INVAL, "rods[%u] ('%s').n_points = %u is outside [2, %u]", index,
                             nm, b->n_points, PCS_REACTIVITY_ROD_TABLE_MAX);
    uint32_t last = b->n_points - 1;
    if (b->table_pos[0] != 0.0 || b->table_pos[last] != 1.0 || b->table_frac[0] != 0.0 ||
        b->table_frac[last] != 1.0)
        return pcs_error_set(PCS_E_INVAL,
                             "rods[%u] ('%s') worth table must start at (0, 0) and end at (1, 1)",
                             index, nm);
    for (uint32_t k = 1; k <= last; k++) {
        if (!(b->table_pos[k] > b->table_pos[k - 1]))
            return pcs_error_set(PCS_E_INVAL,
                                 "rods[%u] ('%s').table_pos[%u] = %g must exceed table_pos[%u] "
                                 "= %g",
                                 index, nm, k, b->table_pos[k], k - 1, b->table_pos[k - 1]);
        if (!(b->table_frac[k] >= b->table_frac[k - 1]))
            return pcs_error_set(PCS_E_INVAL,
                                 "rods[%u] ('%s').table_frac[%u] = %g must be >= "
                                 "table_frac[%u] = %g (integral worth never decreases)",
                                 index, nm, k, b->table_frac[k], k - 1, b->table_frac[k - 1]);
    }
    return PCS_OK;
}

pcs_status pcs_reactivity_rod_bank_validate(const pcs_reactivity_rod_bank *b, uint32_t index)
{
    if (!b)
        return pcs_error_set(PCS_E_INVAL, "rods[%u] is NULL", index);
    if (!rod_name_ok(b->name))
        return pcs_error_set(PCS_E_INVAL,
                             "rods[%u].name must be 1..%u chars of [A-Za-z0-9_-] (a channel "
                             "name segment)",
                             index, PCS_REACTIVITY_ROD_NAME_MAX - 1);
    const char *nm = b->name;
    if (!pcs_isfinite(b->worth) || b->worth <= 0.0 || b->worth > 0.5)
        return pcs_error_set(PCS_E_INVAL, "rods[%u] ('%s').worth = %g is outside (0, 0.5] dk/k",
                             index, nm, b->worth);
    if (!pcs_isfinite(b->speed_per_s) || b->speed_per_s <= 0.0 || b->speed_per_s > 1.0)
        return pcs_error_set(PCS_E_INVAL,
                             "rods[%u] ('%s').speed_per_s = %g is outside (0, 1] travel/s", index,
                             nm, b->speed_per_s);
    if (!pcs_isfinite(b->initial_pos) || b->initial_pos < 0.0 || b->initial_pos > 1.0)
        return pcs_error_set(PCS_E_INVAL,
                             "rods[%u] ('%s').initial_pos = %g is outside [0, 1] (0 = inserted)",
                             index, nm, b->initial_pos);
    if (b->curve == PCS_REACTIVITY_ROD_CURVE_TABLE)
        return rod_table_validate(b, index);
    if (b->curve != PCS_REACTIVITY_ROD_CURVE_SIN2)
        return pcs_error_set(PCS_E_INVAL, "rods[%u] ('%s').curve = %d is not SIN2 (0) or TABLE (1)",
                             index, nm, (int)b->curve);
    return PCS_OK;
}

double pcs_reactivity_rod_worth_fraction(const pcs_reactivity_rod_bank *b, double x)
{
    x = pcs_clamp(x, 0.0, 1.0);
    if (b->curve == PCS_REACTIVITY_ROD_CURVE_SIN2)
        return x - pcs_sin(2.0 * PCS_PI * x) / (2.0 * PCS_PI);
    uint32_t k = 1;
    while (k < b->n_points - 1 && x > b->table_pos[k])
        k++;
    double x0 = b->table_pos[k - 1], x1 = b->table_pos[k];
    double f0 = b->table_frac[k - 1], f1 = b->table_frac[k];
    return f0 + (f1 - f0) * (x - x0) / (x1 - x0);
}

double pcs_reactivity_rod_reactivity(const pcs_reactivity_rod_bank *b, double x)
{
    return -b->worth * (1.0 - pcs_reactivity_rod_worth_fraction(b, x));
}

double pcs_reactivity_rod_drive(double pos, double cmd, double speed_per_s, double dt_s)
{
    double step = speed_per_s * dt_s;
    double next = cmd > pos ? pcs_fmin(cmd, pos + step) : pcs_fmax(cmd, pos - step);
    return pcs_clamp(next, 0.0, 1.0);
}

double pcs_reactivity_rod_drop(double start_pos, double t_fall_s, double drop_time_s)
{
    if (!(t_fall_s > 0.0))
        return start_pos;
    double u = t_fall_s / drop_time_s;
    return pcs_fmax(0.0, start_pos - u * u);
}

pcs_status pcs_reactivity_feedback_validate(const pcs_reactivity_feedback_params *p)
{
    if (!p)
        return pcs_error_set(PCS_E_INVAL, "feedback: params is NULL");
    if (p->doppler_form != PCS_DOPPLER_SQRT && p->doppler_form != PCS_DOPPLER_LINEAR)
        return pcs_error_set(PCS_E_INVAL,
                             "feedback.doppler_form = %d is not SQRT (0) or LINEAR (1)",
                             (int)p->doppler_form);
    struct {
        const char *field;
        double v, lo, hi;
    } r[] = {
        {"doppler_coef", p->doppler_coef, -1.0, 1.0},
        {"t_fuel_ref_k", p->t_fuel_ref_k, 273.15, 3500.0},
        {"mtc_per_k", p->mtc_per_k, -1e-2, 1e-2},
        {"t_mod_ref_k", p->t_mod_ref_k, 273.15, 700.0},
        {"boron_per_ppm", p->boron_per_ppm, -1e-3, 1e-3},
        {"boron_ref_ppm", p->boron_ref_ppm, 0.0, 10000.0},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!pcs_isfinite(r[i].v) || r[i].v < r[i].lo || r[i].v > r[i].hi)
            return pcs_error_set(PCS_E_INVAL, "feedback.%s = %g is outside [%g, %g]", r[i].field,
                                 r[i].v, r[i].lo, r[i].hi);
    return PCS_OK;
}

double pcs_reactivity_feedback_doppler(const pcs_reactivity_feedback_params *p, double t_fuel_k)
{
    double t = pcs_fmax(t_fuel_k, 1.0);
    if (p->doppler_form == PCS_DOPPLER_LINEAR)
        return p->doppler_coef * (t - p->t_fuel_ref_k);
    return p->doppler_coef * (pcs_sqrt(t) - pcs_sqrt(p->t_fuel_ref_k));
}

double pcs_reactivity_feedback_moderator(const pcs_reactivity_feedback_params *p, double t_mod_k)
{
    return p->mtc_per_k * (t_mod_k - p->t_mod_ref_k);
}

double pcs_reactivity_feedback_boron(const pcs_reactivity_feedback_params *p, double ppm)
{
    return p->boron_per_ppm * (ppm - p->boron_ref_ppm);
}
