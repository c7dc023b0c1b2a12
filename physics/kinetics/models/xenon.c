/**
 * @file xenon.c
 * @brief I-135/Xe-135 and Pm-149/Sm-149 chains: exact steps and the SLOW job.
 *
 * Both chains have the shape y1' = a1 - k1 y1, y2' = a2 + k1 y1 - k2 y2 with
 * constant coefficients over a step (the relative power is held at the
 * average of the previous SLOW period), so the step is the closed form
 *
 *     y1(h) = y1s + (y1(0) - y1s) e^{-k1 h},               y1s = a1/k1
 *     y2(h) = e^{-k2 h} y2(0) + (a2 + k1 y1s) phi(k2, h)
 *             + k1 (y1(0) - y1s) e^{-k1 h} phi(k2 - k1, h),
 *
 * phi(k, h) = (1 - e^{-k h})/k (h at k = 0, also for k < 0). k2 may be 0
 * (samarium at zero power) and k2 - k1 may be 0 or negative.
 *
 * Load check (xe_load_check, on a staged save before it is applied) of the
 * state store, the power store and the job's saved input. Concentrations
 * start at an equilibrium and follow linear chains driven by p <= P_MAX, so
 * they stay in [0, their equilibrium at P_MAX]: i <= g_I P/l_I, x <= (g_I +
 * g_X) P/l_X, pm <= g_Pm P/l_Pm, and sm + pm only grows while sm is below
 * its power-independent equilibrium g_Pm/(s_Sm phi_nom), so sm <= that +
 * pm's bound. P_MAX = XE_P_REL_MAX = 1000, the largest power_limit_fraction a
 * unit admits (unit.c), as this model does not know its unit's limit. The
 * worths must be the ones the concentrations give (recomputed). Power store:
 * a sample count >= 0 and a sum in [0, P_MAX count]; job input: p_avg in
 * [0, P_MAX], h_s the SLOW step (0 only for a job never submitted).
 *
 * Any step length h. The SLOW step is h = 20 dt k_slow (world.h), up to
 * 20 * 10 s * 1e9 = 2e11 s at the largest dt and k_slow, i.e. up to ~1e7
 * iodine half-lives, so the step must hold for k h of any size. The product
 * in the last term is evaluated as one bounded function,
 *
 *     e^{-k1 h} phi(k2 - k1, h) = (e^{-k1 h} - e^{-k2 h})/(k2 - k1)
 *                               = e^{-min(k1,k2) h} phi(|k2 - k1|, h),
 *
 * whose factors are each in [0, 1] and [0, h]. Written as e^{-k1 h} times
 * phi(k2 - k1 < 0, h), it was 0 * inf = NaN once (k1 - k2) h passed ~710
 * (k_slow from about 5e8 at dt 0.05 s: xenon at zero power, where
 * k2 - k1 = l_X - l_I < 0, and samarium at low power). With all three terms
 * bounded the step is unconditionally stable, as an exact exponential step
 * is: for h -> inf it returns the equilibrium at the step's power (or, at
 * zero power, all Pm moved to Sm), which is the physically right answer for
 * a time acceleration that makes a SLOW period longer than the chains'
 * time constants. So k_slow needs no range from this model beyond (0, 1e9]
 * (engine/clock.c); tests/test_xenon_long_step.c checks steps to 1e12 s.
 */
#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/job.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "pcsim/xenon.h"

/* Each double parameter once: its default (with its source) and the range
 * pcs_xenon_params_validate allows, in the header's order. */
typedef struct xenon_param {
    const char *field;
    size_t at; /* offsetof(pcs_xenon_params, <field>) */
    double def, lo, hi;
    int open_lo;
} xenon_param;

/* The field's name and offset; a compile error unless it is a double (the
 * table reads and writes through (double *) at the offset). */
#define XE_DOUBLE(f) (0 * sizeof(char[_Generic(((pcs_xenon_params *)0)->f, double : 1)]))
#define XE_FIELD(f) #f, offsetof(pcs_xenon_params, f) + XE_DOUBLE(f)

static const xenon_param params[] = {
    /* Lamarsh (1975) Table 7.5, U-235 */
    {XE_FIELD(yield_i), 0.0639, 0.0, 1.0, 0},
    {XE_FIELD(yield_xe), 0.00237, 0.0, 1.0, 0},
    /* Lamarsh (1975) Table 7.6 */
    {XE_FIELD(lambda_i), 2.87e-5, 0.0, 1.0, 1},
    {XE_FIELD(lambda_xe), 2.09e-5, 0.0, 1.0, 1},
    /* 2.65e6 b, Xe-135 at 2200 m/s */
    {XE_FIELD(sigma_xe_cm2), 2.65e-18, 0.0, 1e-16, 0},
    /* Pm-149 chain yield, U-235 thermal; decay ln 2 / 53.1 h */
    {XE_FIELD(yield_pm), 0.0113, 0.0, 1.0, 0},
    {XE_FIELD(lambda_pm), 3.63e-6, 0.0, 1.0, 1},
    /* 4.08e4 b, Sm-149 at 2200 m/s */
    {XE_FIELD(sigma_sm_cm2), 4.08e-20, 0.0, 1e-16, 0},
    /* assumed PWR full-power average thermal flux */
    {XE_FIELD(flux_nominal), 5e13, 0.0, 1e16, 1},
    /* U-235 thermal fission */
    {XE_FIELD(nu), 2.43, 1.0, 5.0, 0},
};
#define N_PARAMS (sizeof params / sizeof params[0])

void pcs_xenon_params_default(pcs_xenon_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < N_PARAMS; i++)
        *(double *)(void *)((char *)p + params[i].at) = params[i].def;
    p->samarium = 1;
}

pcs_status pcs_xenon_params_validate(const pcs_xenon_params *p)
{
    if (!p)
        return pcs_error_set(PCS_E_INVAL, "xenon: params is NULL");
    pcs_param_range r[N_PARAMS];
    for (size_t i = 0; i < N_PARAMS; i++) {
        const xenon_param *q = &params[i];
        r[i] = (pcs_param_range){q->field, *(const double *)(const void *)((const char *)p + q->at),
                                 q->lo, q->hi, q->open_lo};
    }
    pcs_status st = pcs_param_ranges_check("xenon.", r, N_PARAMS);
    if (st != PCS_OK)
        return st;
    if (p->samarium > 1)
        return pcs_error_set(PCS_E_INVAL, "xenon.samarium = %u must be 0 or 1", p->samarium);
    return PCS_OK;
}

/* (1 - e^{-k h})/k, valid for any sign of k, h at k = 0. */
static double xe_phi(double k, double h)
{
    double z = k * h;
    if (pcs_fabs(z) < 1e-12)
        return h;
    return -pcs_expm1(-z) / k;
}

/* (e^{-k1 h} - e^{-k2 h})/(k2 - k1) for k1, k2 >= 0, as a product of two
 * bounded factors (file comment): finite for every h. */
static double xe_phi_pair(double k1, double k2, double h)
{
    double k_min = k1 < k2 ? k1 : k2;
    return pcs_exp(-k_min * h) * xe_phi(pcs_fabs(k2 - k1), h);
}

/* One exact step of the chain y1' = a1 - k1 y1, y2' = a2 + k1 y1 - k2 y2
 * (k1 > 0, k2 >= 0), finite for any h >= 0. */
static void xe_chain_step(double *y1, double *y2, double a1, double k1, double a2, double k2,
                          double h)
{
    double y1s = a1 / k1;
    double e1 = pcs_exp(-k1 * h);
    double d1 = *y1 - y1s;
    *y2 =
        pcs_exp(-k2 * h) * *y2 + (a2 + k1 * y1s) * xe_phi(k2, h) + k1 * d1 * xe_phi_pair(k1, k2, h);
    *y1 = y1s + d1 * e1;
}

static void xe_worths(const pcs_xenon_params *p, pcs_xenon_state *s)
{
    s->rho_xe = -p->sigma_xe_cm2 * p->flux_nominal * s->xenon / p->nu;
    s->rho_sm = -p->sigma_sm_cm2 * p->flux_nominal * s->samarium / p->nu;
}

void pcs_xenon_equilibrium(const pcs_xenon_params *p, double p_rel, pcs_xenon_state *s)
{
    double pr = pcs_fmax(p_rel, 0.0);
    double burn_xe = p->sigma_xe_cm2 * p->flux_nominal * pr;
    double burn_sm = p->sigma_sm_cm2 * p->flux_nominal * pr;
    memset(s, 0, sizeof *s);
    s->iodine = p->yield_i * pr / p->lambda_i;
    s->xenon = (p->yield_i + p->yield_xe) * pr / (p->lambda_xe + burn_xe);
    if (p->samarium) {
        s->promethium = p->yield_pm * pr / p->lambda_pm;
        s->samarium = burn_sm > 0.0 ? p->yield_pm / (p->sigma_sm_cm2 * p->flux_nominal) : 0.0;
    }
    xe_worths(p, s);
}

void pcs_xenon_step(const pcs_xenon_params *p, pcs_xenon_state *s, double p_rel, double h_s)
{
    double pr = pcs_fmax(p_rel, 0.0);
    xe_chain_step(&s->iodine, &s->xenon, p->yield_i * pr, p->lambda_i, p->yield_xe * pr,
                  p->lambda_xe + p->sigma_xe_cm2 * p->flux_nominal * pr, h_s);
    if (p->samarium)
        xe_chain_step(&s->promethium, &s->samarium, p->yield_pm * pr, p->lambda_pm, 0.0,
                      p->sigma_sm_cm2 * p->flux_nominal * pr, h_s);
    xe_worths(p, s);
}

/* ---- the SLOW job ------------------------------------------------------- */

typedef struct xe_job {
    pcs_xenon_params params;
    uint32_t state_store;
    uint32_t power_store;
    uint32_t job_id;
    char name[PCS_NAME_MAX]; /* the job's name, for load-check messages */
} xe_job;

typedef struct xe_job_input {
    pcs_xenon_state state;
    double p_avg; /* average relative power over the previous SLOW period */
    double h_s;   /* physical seconds this run advances */
} xe_job_input;

static pcs_status xe_copy_inputs(pcs_world *w, void *ctx, void *input)
{
    xe_job *j = ctx;
    xe_job_input *in = input;
    const double *st = pcs_store_data(w, j->state_store);
    double *pw = pcs_store_data(w, j->power_store);
    memcpy(&in->state, st, sizeof in->state);
    in->p_avg = pw[1] > 0.0 ? pw[0] / pw[1] : 0.0;
    pw[0] = 0.0; /* the next period's average starts now */
    pw[1] = 0.0;
    in->h_s = pcs_clock_domain_step_s(pcs_world_clock(w), PCS_DOMAIN_SLOW);
    return PCS_OK;
}

static pcs_status xe_run(void *ctx, const void *input, uint32_t chunk, void *output)
{
    const xe_job *j = ctx;
    const xe_job_input *in = input;
    (void)chunk;
    pcs_xenon_state s = in->state;
    pcs_xenon_step(&j->params, &s, in->p_avg, in->h_s);
    memcpy(output, &s, sizeof s);
    return PCS_OK;
}

static pcs_status xe_merge(pcs_world *w, void *ctx, const void *input, void *const *outputs,
                           uint32_t n_chunks)
{
    xe_job *j = ctx;
    (void)input;
    (void)n_chunks;
    memcpy(pcs_store_data(w, j->state_store), outputs[0], sizeof(pcs_xenon_state));
    return PCS_OK;
}

/* ---- load check ---------------------------------------------------------- */

#define XE_P_REL_MAX 1000.0
#define XE_ROUNDING (1.0 + 1e-9) /* the closed-form step's rounding above a bound */

static pcs_status xe_bad(const char *where, uint32_t i, const char *field, double v, double lo,
                         double hi)
{
    return pcs_error_set(PCS_E_CORRUPT,
                         "store '%s' element %u (%s): value %.17g outside [%.9g, %.9g]", where, i,
                         field, v, lo, hi);
}

/* A pcs_xenon_state (6 doubles) as staged, named @p where for messages. */
static pcs_status xe_check_state(const pcs_xenon_params *p, const pcs_xenon_state *s,
                                 const char *where)
{
    double pm_max = p->yield_pm * XE_P_REL_MAX / p->lambda_pm;
    double burn_sm = p->sigma_sm_cm2 * p->flux_nominal;
    const struct {
        const char *field;
        double v, hi;
    } c[] = {
        {"iodine s", s->iodine, p->yield_i * XE_P_REL_MAX / p->lambda_i},
        {"xenon s", s->xenon, (p->yield_i + p->yield_xe) * XE_P_REL_MAX / p->lambda_xe},
        {"promethium s", s->promethium, pm_max},
        {"samarium s", s->samarium, burn_sm > 0.0 ? p->yield_pm / burn_sm + pm_max : DBL_MAX},
    };
    for (uint32_t i = 0; i < 4; i++) {
        double hi = c[i].hi < DBL_MAX / XE_ROUNDING ? c[i].hi * XE_ROUNDING : DBL_MAX;
        if (!(c[i].v >= 0.0 && c[i].v <= hi))
            return xe_bad(where, i, c[i].field, c[i].v, 0.0, hi);
    }
    pcs_xenon_state want = *s;
    xe_worths(p, &want);
    if (!(s->rho_xe == want.rho_xe))
        return xe_bad(where, 4, "xenon worth of the saved xenon", s->rho_xe, want.rho_xe,
                      want.rho_xe);
    if (!(s->rho_sm == want.rho_sm))
        return xe_bad(where, 5, "samarium worth of the saved samarium", s->rho_sm, want.rho_sm,
                      want.rho_sm);
    return PCS_OK;
}

static pcs_status xe_check_input(const pcs_world *w, const xe_job *j, const xe_job_input *in,
                                 int pending)
{
    char where[PCS_NAME_MAX + 8];
    snprintf(where, sizeof where, "job:%s", j->name);
    pcs_status st = xe_check_state(&j->params, &in->state, where);
    if (st == PCS_OK && !(in->p_avg >= 0.0 && in->p_avg <= XE_P_REL_MAX))
        st = xe_bad(where, 6, "average relative power", in->p_avg, 0.0, XE_P_REL_MAX);
    double h = pcs_clock_domain_step_s(pcs_world_clock(w), PCS_DOMAIN_SLOW);
    if (st == PCS_OK && !(in->h_s == h || (!pending && in->h_s == 0.0)))
        st = xe_bad(where, 7, "step s (the SLOW step; 0 before a first submit)", in->h_s, h, h);
    return st;
}

static pcs_status xe_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const xe_job *j = ctx;
    pcs_status st = xe_check_state(&j->params, pcs_load_view_store(v, j->state_store),
                                   pcs_store_name(w, j->state_store));
    const double *pw = pcs_load_view_store(v, j->power_store);
    const char *pname = pcs_store_name(w, j->power_store);
    if (st == PCS_OK && !(pw[1] >= 0.0 && pw[1] <= DBL_MAX && pw[1] == pcs_floor(pw[1])))
        st = xe_bad(pname, 1, "power sample count (a whole number)", pw[1], 0.0, DBL_MAX);
    if (st == PCS_OK && !(pw[0] >= 0.0 && pw[0] <= XE_P_REL_MAX * pw[1]))
        st = xe_bad(pname, 0, "sum of relative power samples", pw[0], 0.0, XE_P_REL_MAX * pw[1]);
    int pending = 0;
    const xe_job_input *in = pcs_load_view_job(v, j->job_id, &pending);
    if (st == PCS_OK)
        st = xe_check_input(w, j, in, pending);
    return st;
}

pcs_status pcs_xenon_add(pcs_world *w, const char *name, const pcs_xenon_params *p,
                         uint32_t state_store, uint32_t power_store, uint32_t phase,
                         uint32_t *job_id)
{
    pcs_status st = pcs_xenon_params_validate(p);
    if (st != PCS_OK)
        return st;
    if (pcs_store_bytes(w, state_store) != sizeof(pcs_xenon_state) ||
        pcs_store_bytes(w, power_store) != 2 * sizeof(double))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_xenon_add: state store %u must hold %zu bytes and "
                             "power store %u 16 bytes",
                             state_store, sizeof(pcs_xenon_state), power_store);
    xe_job *j = pcs_world_alloc(w, sizeof *j);
    if (!j)
        return pcs_error_set(PCS_E_NOMEM, "pcs_xenon_add: %s", pcs_last_error());
    j->params = *p;
    j->state_store = state_store;
    j->power_store = power_store;
    pcs_job_desc d = {
        .name = name,
        .domain = PCS_DOMAIN_SLOW,
        .phase = phase,
        .n_chunks = 1,
        .input_bytes = sizeof(xe_job_input),
        .output_bytes = sizeof(pcs_xenon_state),
        .copy_inputs = xe_copy_inputs,
        .run_chunk = xe_run,
        .merge = xe_merge,
        .ctx = j,
    };
    snprintf(j->name, sizeof j->name, "%s", name ? name : "");
    st = pcs_job_register(w, &d, &j->job_id);
    if (st == PCS_OK)
        st = pcs_load_check_register(w, name, xe_load_check, j);
    if (st == PCS_OK && job_id)
        *job_id = j->job_id;
    return st;
}
