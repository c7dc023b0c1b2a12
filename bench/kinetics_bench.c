/**
 * @file kinetics_bench.c
 * @brief Point kinetics (issue 6): the cost of one pcs_kinetics_step per unit per tick, and the
 *        special-purpose integrator against SUNDIALS CVODE (BDF) and GSL odeiv2 (msbdf,
 *        rk4imp) on two published benchmark cases at equal accuracy.
 *
 * Per-tick benchmarks (one operation = one 0.05 s step of one unit):
 *   kinetics.step_const  constant +0.1 $ (Keepin U-235 data, Lambda = 2e-5 s): the cached
 *                        decomposition is reused, so this is the exact propagator alone;
 *   kinetics.step_ramp   0.1 $/s ramp (THERMAL_II), sub-steps of at most 1e-5 in rho as the
 *                        unit uses them (4 per tick); since issue 16 the roots are frozen
 *                        within a reactivity window (kinetics.h), 0.75 solves per tick;
 *   kinetics.step_scram  -10 $ inserted linearly over 2 s (Keepin, Lambda = 2e-5 s) with the
 *                        unit's sub-step bound (param drho_max): 163 sub-steps per tick at 1e-5
 *                        (8 root solves per tick; at 1e-4, 17 sub-steps and 6 solves).
 * bench/callgrind/kinetics_cg.c runs the same per-tick cases for instructions per tick.
 * Each restarts from equilibrium at the end of its cycle (1024, 200 and 40 ticks), so the
 * state stays in range however long the harness runs.
 *
 * Solver comparison (one operation = one whole case, from a cold start):
 *   case=step1c  Ganapol (2013) Table 1c: +1 $ step, THERMAL_I, n(t) at 0.1, 0.5, 1 and 10 s;
 *   case=ramp2b  Ganapol (2013) Table 2b: 0.1 $/s ramp, THERMAL_II, n(t) at 2, 4, .., 10, 11 s.
 * (B.D. Ganapol, Ann. Nucl. Energy 62 (2013); values from tests/refdata/point_kinetics.csv,
 * data sets from tests/refdata/README.md.) Time per simulated second = score / 10 s or / 11 s.
 * Table 1c's 100 s value (n = 2.6e89) is left out: the ODE solvers' relative error grows with
 * every e-folding while ours does not, and 100 s costs them 10x more time per case, too slow
 * for make bench-quick; leaving it out only flatters the ODE solvers.
 * kinetics.case_pcs steps at dt = 0.05 s exactly as the tests do; the ODE solvers integrate
 * the same equations with an analytic Jacobian and dense linear algebra (7 x 7), returning
 * at each table time. Their relative tolerance comes from a table (kb_rtol) tuned so that
 * their maximum error over the table times matches ours (acc=match) or meets the issue's
 * bar, 1e-4 for steps and 1e-3 for ramps (acc=spec); --param rtol=X overrides it
 * (calibration). With PCS_BENCH_REPORT=1 in the environment every setup prints that error
 * to stderr.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "bench/bench.h"
#include "pcsim/kinetics.h"

#define KB_DT 0.05
#define KB_NY 7 /* n and six precursor groups */

static int kb_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

/* THERMAL_I and THERMAL_II of tests/refdata/README.md (Ganapol 2013). */
static void kb_thermal(pcs_kinetics_params *p, int which)
{
    static const double lam[6] = {0.0127, 0.0317, 0.115, 0.311, 1.40, 3.87};
    static const double b1[6] = {0.000285, 0.0015975, 0.00141, 0.0030525, 0.00096, 0.000195};
    static const double b2[6] = {0.000266, 0.001491, 0.001316, 0.002849, 0.000896, 0.000182};
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    memcpy(p->lambda, lam, sizeof lam);
    memcpy(p->beta, which == 1 ? b1 : b2, sizeof b1);
    p->generation_time_s = which == 1 ? 5e-4 : 2e-5;
}

/* ---- per-tick benchmarks ----------------------------------------------------------- */

typedef struct kb_tick {
    pcs_kinetics_params p;
    pcs_kinetics_modes m;
    double y[KB_NY];
    double rate;     /* reactivity per second (0: constant rho0) */
    double rho0;     /* reactivity at the start of a cycle */
    double drho_max; /* sub-step bound */
    uint32_t cycle;  /* ticks per cycle */
    uint32_t tick;   /* tick within the cycle */
} kb_tick;

static kb_tick *kb_tick_new(int dataset, double rho0_dollars, double rate_dollars_per_s,
                            uint32_t cycle, double drho_max)
{
    kb_tick *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (dataset == 0)
        pcs_kinetics_params_keepin_u235(&c->p, 2e-5);
    else
        kb_thermal(&c->p, dataset);
    double beta = pcs_kinetics_beta_total(&c->p);
    c->rho0 = rho0_dollars * beta;
    c->rate = rate_dollars_per_s * beta;
    c->cycle = cycle;
    c->drho_max = drho_max;
    pcs_kinetics_equilibrium(&c->p, 1.0, c->y);
    return c;
}

static void kb_tick_run(void *ctx, uint64_t n)
{
    kb_tick *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        if (c->tick == c->cycle) {
            c->tick = 0;
            pcs_kinetics_equilibrium(&c->p, 1.0, c->y);
        }
        double r0 = c->rho0 + c->rate * KB_DT * (double)c->tick;
        double r1 = r0 + c->rate * KB_DT;
        uint32_t ns = pcs_kinetics_substeps(r0, r1, c->drho_max);
        pcs_status st = pcs_kinetics_step(&c->p, &c->m, r0, r1, KB_DT, ns, c->y, NULL);
        pcs_bench_consume_u64((uint64_t)st);
        pcs_bench_consume_f64(c->y[0]);
        c->tick++;
    }
}

static void *kb_const_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return kb_tick_new(0, 0.1, 0.0, 1024, 1e-5);
}

static void *kb_ramp_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    return kb_tick_new(2, 0.0, 0.1, 200, 1e-5);
}

static void *kb_scram_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    const char *s = pcs_bench_param(p, "drho_max");
    double dmax = s ? strtod(s, NULL) : 1e-5;
    return kb_tick_new(0, 0.0, -5.0, 40, dmax); /* -10 $ over 2 s */
}

static const pcs_bench_def kb_step_const = {
    .group = "kinetics",
    .name = "step_const",
    .description = "one 0.05 s pcs_kinetics_step of one unit at constant +0.1 $ (cached modes)",
    .setup = kb_const_setup,
    .teardown = free,
    .run = kb_tick_run,
};
PCS_BENCH_REGISTER(kb_step_const)

static const pcs_bench_def kb_step_ramp = {
    .group = "kinetics",
    .name = "step_ramp",
    .description = "one 0.05 s pcs_kinetics_step on a 0.1 $/s ramp (4 sub-steps, frozen roots)",
    .baseline = "kinetics.step_const",
    .setup = kb_ramp_setup,
    .teardown = free,
    .run = kb_tick_run,
};
PCS_BENCH_REGISTER(kb_step_ramp)

static const pcs_bench_def kb_step_scram = {
    .group = "kinetics",
    .name = "step_scram",
    .description =
        "one 0.05 s pcs_kinetics_step while -10 $ goes in over 2 s (sub-steps of drho_max)",
    .params = {{"drho_max", "1e-5,1e-4"}},
    .baseline = "kinetics.step_const",
    .setup = kb_scram_setup,
    .teardown = free,
    .run = kb_tick_run,
};
PCS_BENCH_REGISTER(kb_step_scram)

/* ---- benchmark cases shared by every integrator ------------------------------------ */

#define KB_MAX_TIMES 8

typedef struct kb_case {
    const char *name;
    int dataset;
    double rho0_dollars;       /* reactivity at t = 0+ */
    double rate_dollars_per_s; /* ramp rate */
    uint32_t n_times;
    double t[KB_MAX_TIMES];     /* table times, s */
    double n_ref[KB_MAX_TIMES]; /* published n(t)/n(0) */
} kb_case;

static const kb_case kb_cases[] = {
    {"step1c",
     1,
     1.0,
     0.0,
     4,
     {0.1, 0.5, 1.0, 10.0},
     /* Ganapol (2013) Table 1c (its 100 s value is left out: see the file comment) */
     {2.5157661414043723e+00, 1.0362533810640215e+01, 3.2183540945534212e+01,
      3.2469788980305281e+09}},
    {"ramp2b",
     2,
     0.0,
     0.1,
     6,
     {2.0, 4.0, 6.0, 8.0, 10.0, 11.0},
     /* Ganapol (2013) Table 2b */
     {1.338200050e+00, 2.228441897e+00, 5.582052449e+00, 4.278629573e+01, 4.511636239e+05,
      1.792213607e+16}},
};

static const kb_case *kb_case_find(const pcs_bench_params *p)
{
    const char *s = pcs_bench_param(p, "case");
    for (size_t i = 0; s && i < sizeof kb_cases / sizeof kb_cases[0]; i++)
        if (strcmp(s, kb_cases[i].name) == 0)
            return &kb_cases[i];
    fprintf(stderr, "kinetics bench: unknown case '%s' (step1c, ramp2b)\n", s ? s : "(none)");
    return NULL;
}

/* Model data every integrator's right-hand side reads. */
typedef struct kb_model {
    pcs_kinetics_params p;
    double beta, rho0, rate; /* rho(t) = rho0 + rate t */
} kb_model;

static void kb_model_init(kb_model *m, const kb_case *k)
{
    kb_thermal(&m->p, k->dataset);
    m->beta = pcs_kinetics_beta_total(&m->p);
    m->rho0 = k->rho0_dollars * m->beta;
    m->rate = k->rate_dollars_per_s * m->beta;
}

static void kb_rhs(const kb_model *m, double t, const double *y, double *f)
{
    const pcs_kinetics_params *p = &m->p;
    double rho = m->rho0 + m->rate * t, L = p->generation_time_s;
    double s = (rho - m->beta) / L * y[0];
    for (int i = 0; i < 6; i++) {
        s += p->lambda[i] * y[1 + i];
        f[1 + i] = p->beta[i] / L * y[0] - p->lambda[i] * y[1 + i];
    }
    f[0] = s;
}

/* Row-major dense Jacobian. */
static void kb_jac(const kb_model *m, double t, double *jac)
{
    const pcs_kinetics_params *p = &m->p;
    double L = p->generation_time_s;
    memset(jac, 0, KB_NY * KB_NY * sizeof *jac);
    jac[0] = (m->rho0 + m->rate * t - m->beta) / L;
    for (int i = 0; i < 6; i++) {
        jac[1 + i] = p->lambda[i];
        jac[(1 + i) * KB_NY] = p->beta[i] / L;
        jac[(1 + i) * KB_NY + 1 + i] = -p->lambda[i];
    }
}

/* Largest relative error of @p n against the case's table. */
static double kb_max_err(const kb_case *k, const double *n)
{
    double e = 0.0;
    for (uint32_t j = 0; j < k->n_times; j++)
        e = fmax(e, fabs(n[j] / k->n_ref[j] - 1.0));
    return e;
}

/* ---- pcsim's integrator over a whole case ------------------------------------------ */

typedef struct kb_pcs {
    const kb_case *k;
    kb_model m;
    double n[KB_MAX_TIMES];
} kb_pcs;

static int kb_pcs_case(kb_pcs *c)
{
    pcs_kinetics_modes modes;
    memset(&modes, 0, sizeof modes); /* cold start: the root solve is part of the case */
    double y[KB_NY];
    pcs_kinetics_equilibrium(&c->m.p, 1.0, y);
    long tick = 0;
    for (uint32_t j = 0; j < c->k->n_times; j++) {
        for (long end = lround(c->k->t[j] / KB_DT); tick < end; tick++) {
            double r0 = c->m.rho0 + c->m.rate * KB_DT * (double)tick;
            double r1 = c->m.rho0 + c->m.rate * KB_DT * (double)(tick + 1);
            uint32_t ns = pcs_kinetics_substeps(r0, r1, 1e-5); /* as tests/test_kinetics.c */
            if (pcs_kinetics_step(&c->m.p, &modes, r0, r1, KB_DT, ns, y, NULL) != PCS_OK)
                return -1;
        }
        c->n[j] = y[0];
    }
    return 0;
}

static void *kb_pcs_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    const kb_case *k = kb_case_find(p);
    kb_pcs *c = k ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->k = k;
    kb_model_init(&c->m, k);
    if (kb_pcs_case(c) != 0) {
        fprintf(stderr, "kinetics.case_pcs: %s\n", pcs_last_error());
        free(c);
        return NULL;
    }
    if (kb_report())
        fprintf(stderr, "kinetics.case_pcs case=%s: max rel error %.3g (dt = 0.05 s)\n", k->name,
                kb_max_err(k, c->n));
    return c;
}

static void kb_pcs_run(void *ctx, uint64_t n)
{
    kb_pcs *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_bench_consume_u64((uint64_t)kb_pcs_case(c));
        pcs_bench_consume_f64(c->n[c->k->n_times - 1]);
    }
}

static const pcs_bench_def kb_case_pcs = {
    .group = "kinetics",
    .name = "case_pcs",
    .description =
        "a whole Ganapol case (step1c 100 s, ramp2b 11 s) with pcs_kinetics_step, dt 0.05 s",
    .params = {{"case", "step1c,ramp2b"}},
    .setup = kb_pcs_setup,
    .teardown = free,
    .run = kb_pcs_run,
};
PCS_BENCH_REGISTER(kb_case_pcs)

/* ---- tolerances of the ODE solvers ------------------------------------------------- */

enum { KB_CVODE = 0, KB_MSBDF = 1, KB_RK4IMP = 2 };

/*
 * Relative tolerances, [solver][case][acc]: acc 0 = match, 1 = spec. Each is the loosest
 * value on a 1-2-3-5-7 grid whose maximum error is at or below the target: ours (3.2e-4 on
 * ramp2b) for match, the bar for spec. On step1c ours is 3.6e-14 (the propagator is
 * exact), which no solver reaches (rtol 1e-14 still leaves 2e-12 to 4e-11 at twice the cost
 * of 1e-12), so step1c's match point is rtol 1e-12, errors 1.5e-10 to 2e-9. Found with
 *   PCS_BENCH_REPORT=1 ./build/pcsim-bench -f 0 -wi 0 -i 1 --filter 'kinetics.case_'
 *       --param rtol=1e-6,1e-8,...
 * The errors they give are in bench/README.md.
 */
static const double kb_rtol[3][2][2] = {
    /*              step1c match, spec   ramp2b match, spec */
    /* CVODE BDF */ {{1e-12, 1e-5}, {1e-6, 7e-6}},
    /* msbdf     */ {{1e-12, 3e-7}, {5e-7, 1e-6}},
    /* rk4imp    */ {{1e-12, 2e-5}, {3e-5, 1e-4}},
};

static double kb_tolerance(const pcs_bench_params *p, int solver, const kb_case *k)
{
    const char *r = pcs_bench_param(p, "rtol");
    if (r && strcmp(r, "tuned") != 0)
        return strtod(r, NULL);
    const char *a = pcs_bench_param(p, "acc");
    int spec = a && strcmp(a, "spec") == 0;
    int ci = (int)(k - kb_cases);
    return kb_rtol[solver][ci][spec];
}

/* ---- SUNDIALS CVODE ---------------------------------------------------------------- */

typedef struct kb_cvode {
    const kb_case *k;
    kb_model m;
    double rtol;
    SUNContext sun;
    N_Vector y;
    SUNMatrix a;
    SUNLinearSolver ls;
    void *mem;
    double n[KB_MAX_TIMES];
    long steps;
} kb_cvode;

static int kb_cv_rhs(realtype t, N_Vector y, N_Vector f, void *user)
{
    kb_rhs(user, t, N_VGetArrayPointer(y), N_VGetArrayPointer(f));
    return 0;
}

static int kb_cv_jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix jm, void *user, N_Vector t1,
                     N_Vector t2, N_Vector t3)
{
    (void)y;
    (void)fy;
    (void)t1;
    (void)t2;
    (void)t3;
    double jac[KB_NY * KB_NY];
    kb_jac(user, t, jac);
    for (int r = 0; r < KB_NY; r++)
        for (int col = 0; col < KB_NY; col++)
            SM_ELEMENT_D(jm, r, col) = jac[r * KB_NY + col];
    return 0;
}

static void kb_cvode_free(void *ctx)
{
    kb_cvode *c = ctx;
    if (!c)
        return;
    CVodeFree(&c->mem);
    SUNLinSolFree(c->ls);
    SUNMatDestroy(c->a);
    N_VDestroy(c->y);
    SUNContext_Free(&c->sun);
    free(c);
}

static void kb_cvode_y0(kb_cvode *c)
{
    pcs_kinetics_equilibrium(&c->m.p, 1.0, N_VGetArrayPointer(c->y));
}

static int kb_cvode_case(kb_cvode *c)
{
    kb_cvode_y0(c);
    if (CVodeReInit(c->mem, 0.0, c->y) != CV_SUCCESS)
        return -1;
    for (uint32_t j = 0; j < c->k->n_times; j++) {
        realtype t = 0.0;
        if (CVode(c->mem, c->k->t[j], c->y, &t, CV_NORMAL) < 0)
            return -1;
        c->n[j] = NV_Ith_S(c->y, 0);
    }
    return 0;
}

static void *kb_cvode_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    const kb_case *k = kb_case_find(p);
    kb_cvode *c = k ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->k = k;
    kb_model_init(&c->m, k);
    c->rtol = kb_tolerance(p, KB_CVODE, k);
    int ok = SUNContext_Create(NULL, &c->sun) == 0;
    if (ok) {
        c->y = N_VNew_Serial(KB_NY, c->sun);
        c->a = SUNDenseMatrix(KB_NY, KB_NY, c->sun);
        c->mem = CVodeCreate(CV_BDF, c->sun);
    }
    ok = ok && c->y && c->a && c->mem;
    if (ok) {
        kb_cvode_y0(c);
        c->ls = SUNLinSol_Dense(c->y, c->a, c->sun);
        /* Absolute tolerance far below every component (n >= 1, C_i >= 1 here): the
         * control is relative, as for pcsim's error. */
        ok = c->ls && CVodeInit(c->mem, kb_cv_rhs, 0.0, c->y) == CV_SUCCESS &&
             CVodeSStolerances(c->mem, c->rtol, c->rtol * 1e-6) == CV_SUCCESS &&
             CVodeSetUserData(c->mem, &c->m) == CV_SUCCESS &&
             CVodeSetLinearSolver(c->mem, c->ls, c->a) == CV_SUCCESS &&
             CVodeSetJacFn(c->mem, kb_cv_jac) == CV_SUCCESS &&
             CVodeSetMaxNumSteps(c->mem, 10000000) == CV_SUCCESS && kb_cvode_case(c) == 0;
    }
    if (!ok) {
        fprintf(stderr, "kinetics.case_cvode_bdf: CVODE setup or solve failed\n");
        kb_cvode_free(c);
        return NULL;
    }
    CVodeGetNumSteps(c->mem, &c->steps);
    if (kb_report())
        fprintf(stderr, "kinetics.case_cvode_bdf case=%s rtol=%g: max rel error %.3g, %ld steps\n",
                k->name, c->rtol, kb_max_err(k, c->n), c->steps);
    return c;
}

static void kb_cvode_run(void *ctx, uint64_t n)
{
    kb_cvode *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_bench_consume_u64((uint64_t)kb_cvode_case(c));
        pcs_bench_consume_f64(c->n[c->k->n_times - 1]);
    }
}

static const pcs_bench_def kb_case_cvode = {
    .group = "kinetics",
    .name = "case_cvode_bdf",
    .description = "the same case with SUNDIALS CVODE BDF, dense Jacobian, tolerance tuned",
    .params = {{"case", "step1c,ramp2b"}, {"acc", "match,spec"}, {"rtol", "tuned"}},
    .baseline = "kinetics.case_pcs",
    .setup = kb_cvode_setup,
    .teardown = kb_cvode_free,
    .run = kb_cvode_run,
};
PCS_BENCH_REGISTER(kb_case_cvode)

/* ---- GSL odeiv2 -------------------------------------------------------------------- */

typedef struct kb_gsl {
    const kb_case *k;
    kb_model m;
    double rtol;
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *d;
    double n[KB_MAX_TIMES];
} kb_gsl;

static int kb_gsl_rhs(double t, const double y[], double f[], void *user)
{
    kb_rhs(user, t, y, f);
    return GSL_SUCCESS;
}

static int kb_gsl_jac(double t, const double y[], double *dfdy, double dfdt[], void *user)
{
    const kb_model *m = user;
    kb_jac(m, t, dfdy);
    memset(dfdt, 0, KB_NY * sizeof *dfdt);
    dfdt[0] = m->rate / m->p.generation_time_s * y[0];
    return GSL_SUCCESS;
}

static int kb_gsl_case(kb_gsl *c)
{
    double y[KB_NY], t = 0.0;
    pcs_kinetics_equilibrium(&c->m.p, 1.0, y);
    if (gsl_odeiv2_driver_reset_hstart(c->d, 1e-6) != GSL_SUCCESS)
        return -1;
    for (uint32_t j = 0; j < c->k->n_times; j++) {
        if (gsl_odeiv2_driver_apply(c->d, &t, c->k->t[j], y) != GSL_SUCCESS)
            return -1;
        c->n[j] = y[0];
    }
    return 0;
}

static void kb_gsl_free(void *ctx)
{
    kb_gsl *c = ctx;
    if (c && c->d)
        gsl_odeiv2_driver_free(c->d);
    free(c);
}

static void *kb_gsl_setup(const pcs_bench_params *p, int solver, const char *name)
{
    const kb_case *k = kb_case_find(p);
    kb_gsl *c = k ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    gsl_set_error_handler_off();
    c->k = k;
    kb_model_init(&c->m, k);
    c->rtol = kb_tolerance(p, solver, k);
    c->sys = (gsl_odeiv2_system){kb_gsl_rhs, kb_gsl_jac, KB_NY, &c->m};
    const gsl_odeiv2_step_type *type =
        solver == KB_MSBDF ? gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rk4imp;
    /* Absolute tolerance ~0: relative control, as for CVODE. */
    c->d = gsl_odeiv2_driver_alloc_y_new(&c->sys, type, 1e-6, c->rtol * 1e-6, c->rtol);
    if (!c->d || gsl_odeiv2_driver_set_nmax(c->d, 0) != GSL_SUCCESS || kb_gsl_case(c) != 0) {
        fprintf(stderr, "kinetics.%s: GSL setup or solve failed\n", name);
        kb_gsl_free(c);
        return NULL;
    }
    if (kb_report())
        fprintf(stderr, "kinetics.%s case=%s rtol=%g: max rel error %.3g\n", name, k->name, c->rtol,
                kb_max_err(k, c->n));
    return c;
}

static void *kb_msbdf_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return kb_gsl_setup(p, KB_MSBDF, "case_gsl_msbdf");
}

static void *kb_rk4imp_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)info;
    return kb_gsl_setup(p, KB_RK4IMP, "case_gsl_rk4imp");
}

static void kb_gsl_run(void *ctx, uint64_t n)
{
    kb_gsl *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        pcs_bench_consume_u64((uint64_t)kb_gsl_case(c));
        pcs_bench_consume_f64(c->n[c->k->n_times - 1]);
    }
}

static const pcs_bench_def kb_case_msbdf = {
    .group = "kinetics",
    .name = "case_gsl_msbdf",
    .description = "the same case with GSL odeiv2 msbdf (variable-order BDF), tolerance tuned",
    .params = {{"case", "step1c,ramp2b"}, {"acc", "match,spec"}, {"rtol", "tuned"}},
    .baseline = "kinetics.case_pcs",
    .setup = kb_msbdf_setup,
    .teardown = kb_gsl_free,
    .run = kb_gsl_run,
};
PCS_BENCH_REGISTER(kb_case_msbdf)

static const pcs_bench_def kb_case_rk4imp = {
    .group = "kinetics",
    .name = "case_gsl_rk4imp",
    .description = "the same case with GSL odeiv2 rk4imp (implicit Gauss RK4), tolerance tuned",
    .params = {{"case", "step1c,ramp2b"}, {"acc", "match,spec"}, {"rtol", "tuned"}},
    .baseline = "kinetics.case_pcs",
    .setup = kb_rk4imp_setup,
    .teardown = kb_gsl_free,
    .run = kb_gsl_run,
};
PCS_BENCH_REGISTER(kb_case_rk4imp)
