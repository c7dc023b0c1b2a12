/**
 * @file sg_porv.c
 * @brief The SG PORV controller's build (pcsim/sg_porv.h): definition,
 *        store, system, command targets, channels and the load check.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/clock.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/sg_porv_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

#define PSI_PA 6894.757293168

pcs_status pcs_sg_porv_default(pcs_sg_porv_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_sg_porv_default: def is NULL");
    memset(d, 0, sizeof *d);
    for (uint32_t l = 0; l < PCS_SECONDARY_MAX_SG; l++)
        d->pressure[l] = (pcs_pzr_control_input){UINT32_MAX, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    d->p_setpoint_pa = 1125.0 * PSI_PA + 101325.0;
    d->p_band_pa = 45.0 * PSI_PA;
    d->integral_time_s = 60.0;
    d->stroke_s = 20.0;
    return PCS_OK;
}

static pcs_status check_def(const pcs_world *w, const pcs_sg_porv_def *d, uint32_t n_sg)
{
    const pcs_param_range r[] = {
        {"p_setpoint_pa", d->p_setpoint_pa, 1e6, 1.6e7, 0},
        {"p_band_pa", d->p_band_pa, 1e3, 1e7, 0},
        {"integral_time_s", d->integral_time_s, 1.0, 1e5, 0},
        {"stroke_s", d->stroke_s, 0.05, 600.0, 0},
    };
    pcs_status st = pcs_control_def_check("sg_porv", d->unit_name, r, sizeof r / sizeof r[0]);
    for (uint32_t l = 0; st == PCS_OK && l < n_sg; l++) {
        char field[48];
        snprintf(field, sizeof field, "pressure[%u] (SG %u)", l, l + 1);
        st = pcs_control_input_check(w, "sg_porv", field, &d->pressure[l]);
    }
    return st;
}

/* ---- load check ------------------------------------------------------------- */

/* Element @p e of every SG's block within [lo, hi] (finite); @p flag: 0 or
 * 1 only. The message names the store, the element, its SG and the range. */
static pcs_status check_element(const char *name, const double *s, uint32_t n_sg, uint32_t e,
                                const char *field, double lo, double hi, int flag)
{
    for (uint32_t l = 0; l < n_sg; l++) {
        uint32_t i = l * PCS_SG_PORV_ST_COUNT + e;
        double x = s[i];
        int ok = flag ? (x == 0.0 || x == 1.0) : (x >= lo && x <= hi);
        if (!ok)
            return pcs_error_set(
                PCS_E_CORRUPT, "store '%s' element %u (SG %u %s): value %.17g; allowed %s%g%s%g%s",
                name, i, l + 1, field, x, flag ? "" : "[", lo, flag ? " or " : ", ", hi,
                flag ? "" : "]");
    }
    return PCS_OK;
}

static pcs_status porv_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_sg_porv *pv = ctx;
    const char *name = pcs_store_name(w, pv->base.id_state);
    const double *s = pcs_load_view_store(v, pv->base.id_state);
    if (!s)
        return pcs_error_set(PCS_E_CORRUPT, "store '%s': no staged data", name);
    static const struct {
        uint32_t e;
        const char *field;
        double lo, hi;
        int flag;
    } rows[] = {
        {PCS_SG_PORV_ST_MANUAL, "manual flag", 0.0, 1.0, 1},
        {PCS_SG_PORV_ST_MANUAL_OPENING, "manual opening", 0.0, 1.0, 0},
        {PCS_SG_PORV_ST_OPENING, "opening", 0.0, 1.0, 0},
        {PCS_SG_PORV_ST_INTEGRAL, "integral", 0.0, 1.0, 0},
        {PCS_SG_PORV_ST_P_MEASURED, "measured steam pressure Pa", 0.0, 1e8, 0},
        {PCS_SG_PORV_ST_ERROR, "pressure error Pa", -1e8, 1e8, 0},
    };
    pcs_status st = PCS_OK;
    for (size_t r = 0; st == PCS_OK && r < sizeof rows / sizeof rows[0]; r++)
        st = check_element(name, s, pv->base.n_sg, rows[r].e, rows[r].field, rows[r].lo, rows[r].hi,
                           rows[r].flag);
    return st;
}

/* ---- registration --------------------------------------------------------------- */

/* The system reads the distinct stores of the inputs and the secondary's
 * outputs (nothing: the inputs carry the pressure) and writes its state and
 * the secondary's porv store. */
static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_sg_porv *pv = ctl;
    uint32_t reads[2 * PCS_SECONDARY_MAX_SG], n = 0;
    for (uint32_t l = 0; l < pv->base.n_sg; l++)
        pcs_control_input_reads(&pv->def.pressure[l], reads, &n);
    uint32_t writes[] = {pv->base.id_state, pv->sec.porv};
    return pcs_th_system(w, pv->base.unit, "porvctl", PCS_STAGE_ALARMS, pcs_porv_system, pv, reads,
                         n, writes, 2, porv_load_check);
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    static const pcs_th_channel_row rows[] = {{"porv_opening", "1", PCS_SG_PORV_ST_OPENING},
                                              {"porv_manual", "", PCS_SG_PORV_ST_MANUAL},
                                              {"porv_error", "Pa", PCS_SG_PORV_ST_ERROR}};
    return pcs_control_sg_channels(w, ctl, 0, PCS_SG_PORV_ST_COUNT, rows,
                                   sizeof rows / sizeof rows[0]);
}

static pcs_status make_state(pcs_world *w, void *ctl)
{
    pcs_sg_porv *pv = ctl;
    double *s;
    pcs_status st = pcs_control_state(w, &pv->base, pv->base.n_sg * PCS_SG_PORV_ST_COUNT, &s);
    if (st != PCS_OK)
        return st;
    const double *porv = pcs_store_data(w, pv->sec.porv);
    const double *o = pcs_store_data(w, pv->sec.out);
    for (uint32_t l = 0; l < pv->base.n_sg; l++) {
        double *b = s + (size_t)l * PCS_SG_PORV_ST_COUNT;
        b[PCS_SG_PORV_ST_OPENING] = porv[l];
        b[PCS_SG_PORV_ST_P_MEASURED] =
            o[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_P];
    }
    return PCS_OK;
}

static const pcs_control_kind porv_kind = {
    "sg_porv",
    "porvctl",
    {PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_COUNT, pcs_porv_on_command, "porvctl", "porv"},
    {make_state, register_system, pcs_control_targets, register_channels}};

pcs_status pcs_sg_porv_add(pcs_world *w, const pcs_sg_porv_def *def, pcs_secondary *sec,
                           pcs_sg_porv **out)
{
    if (!w || !def || !sec || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sg_porv_add: NULL argument");
    uint32_t n_sg = pcs_secondary_def_get(sec)->n_sg;
    pcs_status st = check_def(w, def, n_sg);
    pcs_sg_porv *pv = pcs_control_new(w, &st, &porv_kind, sizeof *pv, def->unit_name);
    if (!pv)
        return st;
    pv->def = *def;
    pv->def.unit_name = pv->base.unit;
    pv->base.n_sg = n_sg;
    pv->sec = pcs_secondary_store_ids(sec);
    return pcs_control_finish(w, st, &pv->base, out);
}

uint32_t pcs_sg_porv_state_store(const pcs_sg_porv *pv)
{
    return pv ? pv->base.id_state : UINT32_MAX;
}
