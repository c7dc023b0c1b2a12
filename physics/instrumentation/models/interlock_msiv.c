/**
 * @file interlock_msiv.c
 * @brief The MSIV actuation (pcsim/interlock.h): closes every MSIV on the
 *        steam line isolation signal after its delay with its stroke, and
 *        the msiv_close / msiv_open commands; the only writer of
 *        "<unit>.sec.msiv".
 *
 * Per SG the state is {opening, demand (1 open, 0 shut), delay left s}.
 * Each tick's dt goes first to the delay, the rest to the stroke, so the
 * opening is exactly 1 - (t - delay) / stroke at t seconds after the signal
 * whatever dt divides.
 */
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/clock.h"
#include "pcsim/persist.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/instrumentation/models/interlock_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

enum { MSIV_POS = 0, MSIV_DEMAND = 1, MSIV_DELAY = 2, MSIV_PER_SG = 3 };

struct pcs_msiv {
    pcs_control_base base;                 /* first: unit, dt_s, "<unit>.msiv.state", n_sg */
    double delay_s, close_rate, open_rate; /* rates: opening per s */
    uint32_t id_sig, id_out;
    double *state;     /* [base.n_sg x MSIV_PER_SG] */
    const double *sig; /* "<unit>.interlock.sig" */
    double *out;       /* "<unit>.sec.msiv" */
};

/* Start closing SG @p l: after @p delay_s, then the closing stroke. */
static void start_close(pcs_msiv *m, uint32_t l, double delay_s)
{
    double *s = &m->state[MSIV_PER_SG * l];
    if (s[MSIV_DEMAND] == 0.0)
        return;
    s[MSIV_DEMAND] = 0.0;
    s[MSIV_DELAY] = delay_s;
}

static pcs_status msiv_step(pcs_world *w, void *ctx)
{
    (void)w;
    pcs_msiv *m = ctx;
    if (m->sig[PCS_SIG_MSLI] != 0.0)
        for (uint32_t l = 0; l < m->base.n_sg; l++)
            start_close(m, l, m->delay_s);
    for (uint32_t l = 0; l < m->base.n_sg; l++) {
        double *s = &m->state[MSIV_PER_SG * l];
        double wait = s[MSIV_DELAY] < m->base.dt_s ? s[MSIV_DELAY] : m->base.dt_s;
        s[MSIV_DELAY] -= wait;
        double move = m->base.dt_s - wait, pos = s[MSIV_POS];
        if (s[MSIV_DEMAND] == 0.0)
            pos -= move * m->close_rate;
        else
            pos += move * m->open_rate;
        s[MSIV_POS] = pos < 0.0 ? 0.0 : (pos > 1.0 ? 1.0 : pos);
        m->out[l] = s[MSIV_POS];
    }
    return PCS_OK;
}

/* Element PCS_TARGET_ELEMENT_ALL: every SG; else SG element. */
static pcs_status on_command(pcs_world *w, const pcs_command_call *call)
{
    (void)w;
    pcs_msiv *m = call->ctx;
    uint32_t lo = call->element == PCS_TARGET_ELEMENT_ALL ? 0 : call->element;
    uint32_t hi = call->element == PCS_TARGET_ELEMENT_ALL ? m->base.n_sg : call->element + 1;
    if (call->op == PCS_MSIV_OP_OPEN && m->sig[PCS_SIG_MSLI] != 0.0)
        return pcs_error_set(PCS_E_STATE,
                             "%s: msiv_open refused: steam line isolation (MSLI) is set "
                             "(si_reset first)",
                             call->target_name);
    for (uint32_t l = lo; l < hi; l++) {
        double *s = &m->state[MSIV_PER_SG * l];
        if (call->op == PCS_MSIV_OP_CLOSE) {
            start_close(m, l, 0.0);
            s[MSIV_DELAY] = 0.0;
        } else {
            s[MSIV_DEMAND] = 1.0;
            s[MSIV_DELAY] = 0.0;
        }
    }
    return PCS_OK;
}

static pcs_status msiv_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_msiv *m = ctx;
    const char *name = pcs_store_name(w, m->base.id_state);
    const double *s = pcs_load_view_store(v, m->base.id_state);
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < m->base.n_sg; l++) {
        uint32_t i = MSIV_PER_SG * l + MSIV_DEMAND;
        st = pcs_load_check_f64_from(name, "opening 1", s, i - 1, 1, 1, 0.0, 1.0, 0);
        if (st == PCS_OK)
            st = pcs_load_check_f64_from(name, "delay left s", s, i + 1, 1, 1, 0.0, m->delay_s, 0);
        if (st == PCS_OK)
            st = pcs_control_load_flag(name, "demand (1 open, 0 shut)", s, i, 6);
    }
    return st;
}

static pcs_status register_system(pcs_world *w, void *ctl)
{
    pcs_msiv *m = ctl;
    uint32_t reads[] = {m->id_sig}, writes[] = {m->base.id_state, m->id_out};
    pcs_status st = pcs_th_system(w, m->base.unit, "msiv", PCS_STAGE_ACTUATORS, msiv_step, m, reads,
                                  1, writes, 2, msiv_load_check);
    for (uint32_t l = 0; st == PCS_OK && l < m->base.n_sg; l++) {
        char ch[64];
        snprintf(ch, sizeof ch, "%s.sg%u.msiv", m->base.unit, l + 1);
        st = pcs_channel_register(w, ch, "1", PCS_CHANNEL_F64, m->base.id_state,
                                  MSIV_PER_SG * l + MSIV_POS, NULL);
    }
    return st;
}

static pcs_status make_state(pcs_world *w, void *ctl)
{
    pcs_msiv *m = ctl;
    pcs_status st = pcs_control_state(w, &m->base, MSIV_PER_SG * m->base.n_sg, &m->state);
    if (st == PCS_OK)
        st = pcs_plant_signals(w, m->base.unit, PCS_SIGNALS_INTERLOCK, &m->id_sig);
    if (st != PCS_OK)
        return st;
    m->sig = pcs_store_data(w, m->id_sig);
    m->out = pcs_store_data(w, m->id_out);
    for (uint32_t l = 0; l < m->base.n_sg; l++) {
        double pos = m->out[l] < 0.0 ? 0.0 : (m->out[l] > 1.0 ? 1.0 : m->out[l]);
        m->state[MSIV_PER_SG * l + MSIV_POS] = pos;
        m->state[MSIV_PER_SG * l + MSIV_DEMAND] = pos > 0.0 ? 1.0 : 0.0;
    }
    return PCS_OK;
}

static const pcs_control_kind msiv_kind = {
    "msiv",
    "msiv",
    {PCS_MSIV_COMMANDS, PCS_MSIV_OP_COUNT, on_command, "msiv", "msiv"},
    {make_state, register_system, pcs_control_targets}};

pcs_status pcs_msiv_add(pcs_world *w, const pcs_interlock_def *d, uint32_t msiv_store,
                        pcs_msiv **out)
{
    if (!w || !d || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_msiv_add: NULL argument");
    size_t n = d->unit_name ? strlen(d->unit_name) : 0;
    if (n < 1 || n > 15 || d->n_sg < 1 || d->n_sg > PCS_INTERLOCK_MAX_SG)
        return pcs_error_set(PCS_E_INVAL,
                             "msiv: unit_name (1..15 characters) or n_sg = %u (outside [1, %u])",
                             d->n_sg, PCS_INTERLOCK_MAX_SG);
    if (!(d->msiv_delay_s >= 0.0 && d->msiv_delay_s <= 60.0) ||
        !(d->msiv_stroke_s > 0.0 && d->msiv_stroke_s <= 600.0) ||
        !(d->msiv_open_stroke_s > 0.0 && d->msiv_open_stroke_s <= 3600.0))
        return pcs_error_set(PCS_E_INVAL,
                             "msiv: msiv_delay_s = %g [0, 60], msiv_stroke_s = %g (0, 600], "
                             "msiv_open_stroke_s = %g (0, 3600]: one is outside its range",
                             d->msiv_delay_s, d->msiv_stroke_s, d->msiv_open_stroke_s);
    if (msiv_store >= pcs_store_count(w) || !pcs_store_is_f64(w, msiv_store) ||
        pcs_store_bytes(w, msiv_store) != d->n_sg * sizeof(double))
        return pcs_error_set(PCS_E_INVAL,
                             "msiv: msiv_store = %u is not a float64 store of n_sg = %u openings",
                             msiv_store, d->n_sg);
    pcs_status st = PCS_OK;
    pcs_msiv *m = pcs_control_new(w, &st, &msiv_kind, sizeof *m, d->unit_name);
    if (!m)
        return st;
    m->base.n_sg = d->n_sg;
    m->delay_s = d->msiv_delay_s;
    m->close_rate = 1.0 / d->msiv_stroke_s;
    m->open_rate = 1.0 / d->msiv_open_stroke_s;
    m->id_out = msiv_store;
    return pcs_control_finish(w, st, &m->base, out);
}

uint32_t pcs_msiv_state_store(const pcs_msiv *m)
{
    return m ? m->base.id_state : UINT32_MAX;
}
