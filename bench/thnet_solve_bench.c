/**
 * @file thnet_solve_bench.c
 * @brief The two-phase network's pressure solve (issue 14): SuiteSparse KLU,
 *        what pcs_thnet_step uses, against hand-written solvers on the very
 *        same matrix and right-hand side, so the choice of the library stays
 *        backed by a measurement. (The constant-density loop model had this
 *        comparison on its own, symmetric positive-definite matrix; it was
 *        retired with that model.)
 *
 * The system. The 400-volume, 403-junction network of bench/thnet_pwr400.c
 * settled for 100 s, then loop 1's pump head set to 0 (a pump trip) and 1 s
 * of the transient stepped, so the pressures move from step to step. After
 * the last step the network's own CSC matrix (thnet_internal.h: pattern fixed
 * at build, diagonal and both off-diagonals of each junction; values of that
 * step's last assembly) is copied; the right-hand side is b = A p with p that
 * step's solved pressure, so every solver below solves a system whose answer
 * is a real pressure field. The matrix is not symmetric (each row carries its
 * volume's EOS coefficients, dp = A_i dM + B_i dU, pcsim/thnet.h), so the
 * symmetric methods of the retired comparison (envelope Cholesky, CG) do not
 * apply; their unsymmetric counterparts do. One operation is one
 * "refactor + solve" (values change every step, the pattern never):
 *   solve_klu       klu_refactor + klu_solve on a klu_analyze'd pattern (the
 *                   network's path, pcs_thnet_factor_solve without klu_rcond);
 *   solve_dense_lu  dense Gaussian elimination with partial pivoting, no
 *                   LAPACK (400 x 400);
 *   solve_envelope  envelope (skyline) LU without pivoting after a reverse
 *                   Cuthill-McKee ordering computed at setup (the pattern is
 *                   structurally symmetric; the setup refuses the matrix if a
 *                   pivot is not at least 1e-8 of its row's largest entry);
 *   solve_bicgstab  Jacobi-preconditioned BiCGSTAB to a relative residual of
 *                   1e-13, from p = 0 (start=cold) or from the pressure before
 *                   the step (start=warm, what a step would use).
 * Every alternative has thnet.solve_klu as its baseline. With
 * PCS_BENCH_REPORT=1 each setup prints its largest pressure difference from
 * KLU's solution (Pa), the envelope's size and BiCGSTAB's iteration count.
 */
#include <klu.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/thnet_pwr400.h"
#include "physics/thermohydraulics/models/thnet_internal.h"

#define TS_SETTLE_STEPS 2000u /* 100 s, as thnet.step_400 */
#define TS_TRIP_STEPS 20u     /* 1 s into the pump trip */

static int ts_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

typedef struct ts_sys {
    int n, nnz;
    int *ap, *ai;
    double *ax, *rhs;
    double *p_old; /* pressure before the step (warm start) */
    double *x_ref; /* KLU's solution */
    double *x;     /* a solver's solution */
    double *work;  /* solver scratch */
    /* KLU */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    /* envelope LU */
    int *perm, *first, *start, *map_l, *map_u, *map_d;
    double *env_l, *env_u, *diag;
    size_t env_size;
    /* dense LU and Jacobi scratch */
    double *dense;
    /* BiCGSTAB */
    int warm;
    int iters;
} ts_sys;

static void ts_sys_free(void *ctx)
{
    ts_sys *s = ctx;
    if (!s)
        return;
    if (s->num)
        klu_free_numeric(&s->num, &s->common);
    if (s->sym)
        klu_free_symbolic(&s->sym, &s->common);
    void *bufs[] = {s->ap,    s->ai,    s->ax,    s->rhs,   s->p_old, s->x_ref,
                    s->x,     s->work,  s->perm,  s->first, s->start, s->map_l,
                    s->map_u, s->map_d, s->env_l, s->env_u, s->diag,  s->dense};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(s);
}

/* Loop 1's pump junction: thb_create gives each loop's crossover-to-cold-leg
 * junction the pump head, loop 1's first (the lowest index). */
static uint32_t ts_pump_junction(const thb_net *x)
{
    for (uint32_t k = 0; k < THB_JUNCTIONS; k++)
        if (x->pump[k] != 0.0)
            return k; /* the first pump is loop 1's */
    return UINT32_MAX;
}

static void ts_spmv(const ts_sys *s, const double *v, double *out)
{
    memset(out, 0, (size_t)s->n * sizeof *out);
    for (int c = 0; c < s->n; c++)
        for (int q = s->ap[c]; q < s->ap[c + 1]; q++)
            out[s->ai[q]] += s->ax[q] * v[c];
}

/* Copy the network's last-assembled matrix and make b = A p. */
static int ts_copy(ts_sys *s, const pcs_thnet *net)
{
    s->n = net->n;
    s->nnz = net->ap[net->n];
    size_t n = (size_t)s->n, nnz = (size_t)s->nnz;
    s->ap = malloc((n + 1) * sizeof(int));
    s->ai = malloc(nnz * sizeof(int));
    s->ax = malloc(nnz * sizeof(double));
    s->rhs = malloc(n * sizeof(double));
    s->x_ref = malloc(n * sizeof(double));
    s->x = malloc(n * sizeof(double));
    s->work = malloc(8 * n * sizeof(double));
    if (!s->ap || !s->ai || !s->ax || !s->rhs || !s->x_ref || !s->x || !s->work)
        return -1;
    memcpy(s->ap, net->ap, (n + 1) * sizeof(int));
    memcpy(s->ai, net->ai, nnz * sizeof(int));
    memcpy(s->ax, net->ax, nnz * sizeof(double));
    ts_spmv(s, net->rhs, s->rhs); /* after the step net->rhs holds the solved p' */
    return 0;
}

/* The system 1 s into loop 1's pump trip, and KLU's factorisation and solution. */
static ts_sys *ts_sys_new(void)
{
    thb_net *x = malloc(sizeof *x);
    ts_sys *s = calloc(1, sizeof *s);
    if (!x || !s || thb_create(x, NULL, TS_SETTLE_STEPS) != 0) {
        fprintf(stderr, "thnet.solve: %s\n", pcs_last_error());
        free(x);
        free(s);
        return NULL;
    }
    int ok = 1;
    uint32_t pump = ts_pump_junction(x);
    if (pump == UINT32_MAX)
        ok = 0;
    else
        x->pump[pump] = 0.0; /* loop 1's pump trips: its head is gone at once */
    s->p_old = malloc((size_t)THB_VOLUMES * sizeof(double));
    ok = ok && s->p_old;
    for (uint32_t t = 0; ok && t < TS_TRIP_STEPS; t++) {
        memcpy(s->p_old, x->s.p_pa, (size_t)THB_VOLUMES * sizeof(double));
        ok = thb_step(x) == PCS_OK;
    }
    if (!ok)
        fprintf(stderr, "thnet.solve: pump trip transient: %s\n", pcs_last_error());
    ok = ok && ts_copy(s, x->net) == 0 && s->n == (int)THB_VOLUMES;
    thb_destroy(x);
    free(x);
    if (ok) {
        klu_defaults(&s->common);
        s->sym = klu_analyze(s->n, s->ap, s->ai, &s->common);
        s->num = s->sym ? klu_factor(s->ap, s->ai, s->ax, s->sym, &s->common) : NULL;
        memcpy(s->x_ref, s->rhs, (size_t)s->n * sizeof(double));
        ok = s->num && klu_solve(s->sym, s->num, s->n, 1, s->x_ref, &s->common);
        if (!ok)
            fprintf(stderr, "thnet.solve: setup failed (KLU status %d)\n", s->common.status);
    }
    if (!ok) {
        ts_sys_free(s);
        return NULL;
    }
    return s;
}

static double ts_max_diff(const ts_sys *s)
{
    double d = 0.0;
    for (int i = 0; i < s->n; i++)
        d = fmax(d, fabs(s->x[i] - s->x_ref[i]));
    return d;
}

/* -- KLU -- */

static int ts_klu(ts_sys *s)
{
    if (!klu_refactor(s->ap, s->ai, s->ax, s->sym, s->num, &s->common))
        return -1;
    memcpy(s->x, s->rhs, (size_t)s->n * sizeof(double));
    return klu_solve(s->sym, s->num, s->n, 1, s->x, &s->common) ? 0 : -1;
}

/* -- dense LU with partial pivoting (row-major, right-looking) -- */

static int ts_dense(ts_sys *s)
{
    const int n = s->n;
    double *a = s->dense, *x = s->x;
    memset(a, 0, (size_t)n * (size_t)n * sizeof *a);
    for (int c = 0; c < n; c++)
        for (int q = s->ap[c]; q < s->ap[c + 1]; q++)
            a[(size_t)s->ai[q] * (size_t)n + (size_t)c] = s->ax[q];
    memcpy(x, s->rhs, (size_t)n * sizeof *x);
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[(size_t)i * (size_t)n + (size_t)k]) >
                fabs(a[(size_t)piv * (size_t)n + (size_t)k]))
                piv = i;
        double *rk = a + (size_t)k * (size_t)n;
        if (piv != k) {
            double *rp = a + (size_t)piv * (size_t)n;
            for (int j = k; j < n; j++) {
                double t = rk[j];
                rk[j] = rp[j];
                rp[j] = t;
            }
            double t = x[k];
            x[k] = x[piv];
            x[piv] = t;
        }
        if (rk[k] == 0.0)
            return -1;
        for (int i = k + 1; i < n; i++) {
            double *ri = a + (size_t)i * (size_t)n;
            double f = ri[k] / rk[k];
            if (f == 0.0)
                continue;
            for (int j = k + 1; j < n; j++)
                ri[j] -= f * rk[j];
            x[i] -= f * x[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        const double *ri = a + (size_t)i * (size_t)n;
        double t = x[i];
        for (int j = i + 1; j < n; j++)
            t -= ri[j] * x[j];
        x[i] = t / ri[i];
    }
    return 0;
}

/* -- envelope LU with reverse Cuthill-McKee ordering -- */

static int ts_degree(const ts_sys *s, int v)
{
    return s->ap[v + 1] - s->ap[v] - 1; /* minus the diagonal */
}

/* Breadth-first order from @p root over unvisited nodes, neighbours by
 * increasing degree (Cuthill-McKee); appends to order[*len]. Returns the last
 * node reached (a far end). The pattern is structurally symmetric, so a
 * column's rows are the node's neighbours. */
static int ts_bfs(const ts_sys *s, int root, char *seen, int *order, int *len)
{
    int head = *len, last = root;
    order[(*len)++] = root;
    seen[root] = 1;
    while (head < *len) {
        int v = order[head++], from = *len;
        last = v;
        for (int q = s->ap[v]; q < s->ap[v + 1]; q++) {
            int u = s->ai[q];
            if (seen[u])
                continue;
            seen[u] = 1;
            int pos = (*len)++; /* insertion sort of this node's new neighbours by degree */
            while (pos > from && ts_degree(s, order[pos - 1]) > ts_degree(s, u)) {
                order[pos] = order[pos - 1];
                pos--;
            }
            order[pos] = u;
        }
    }
    return last;
}

static int ts_rcm(ts_sys *s)
{
    int n = s->n, len = 0;
    char *seen = calloc((size_t)n, 1);
    int *order = malloc((size_t)n * sizeof(int));
    if (!seen || !order) {
        free(seen);
        free(order);
        return -1;
    }
    for (int v0 = 0; v0 < n; v0++) {
        if (seen[v0])
            continue;
        /* pseudo-peripheral root: the far end of a BFS from v0, then undo the marks */
        int start = len, root = ts_bfs(s, v0, seen, order, &len);
        for (int i = start; i < len; i++)
            seen[order[i]] = 0;
        len = start;
        ts_bfs(s, root, seen, order, &len);
    }
    for (int i = 0; i < n; i++)
        s->perm[i] = order[n - 1 - i]; /* reverse: new i <- old perm[i] */
    free(seen);
    free(order);
    return 0;
}

/* Row i of L (unit diagonal) at env_l[start[i]] and column i of U at
 * env_u[start[i]], both over first[i]..i-1; U's diagonal in diag. map_* give
 * each CSC entry's place (-1: not in that part). */
static int ts_envelope_setup(ts_sys *s)
{
    int n = s->n, nnz = s->nnz;
    int *iperm = malloc((size_t)n * sizeof(int));
    s->perm = malloc((size_t)n * sizeof(int));
    s->first = malloc((size_t)n * sizeof(int));
    s->start = malloc((size_t)(n + 1) * sizeof(int));
    s->map_l = malloc((size_t)nnz * sizeof(int));
    s->map_u = malloc((size_t)nnz * sizeof(int));
    s->map_d = malloc((size_t)nnz * sizeof(int));
    if (!iperm || !s->perm || !s->first || !s->start || !s->map_l || !s->map_u || !s->map_d ||
        ts_rcm(s) != 0) {
        free(iperm);
        return -1;
    }
    for (int i = 0; i < n; i++)
        iperm[s->perm[i]] = i;
    for (int i = 0; i < n; i++) {
        int v = s->perm[i], f = i;
        for (int q = s->ap[v]; q < s->ap[v + 1]; q++)
            f = iperm[s->ai[q]] < f ? iperm[s->ai[q]] : f;
        s->first[i] = f;
    }
    s->start[0] = 0;
    for (int i = 0; i < n; i++)
        s->start[i + 1] = s->start[i] + (i - s->first[i]);
    for (int c = 0; c < n; c++)
        for (int q = s->ap[c]; q < s->ap[c + 1]; q++) {
            int ni = iperm[s->ai[q]], nj = iperm[c];
            s->map_l[q] = ni > nj ? s->start[ni] + (nj - s->first[ni]) : -1;
            s->map_u[q] = ni < nj ? s->start[nj] + (ni - s->first[nj]) : -1;
            s->map_d[q] = ni == nj ? ni : -1;
        }
    s->env_size = (size_t)s->start[n];
    s->env_l = malloc((s->env_size ? s->env_size : 1) * sizeof(double));
    s->env_u = malloc((s->env_size ? s->env_size : 1) * sizeof(double));
    s->diag = malloc((size_t)n * sizeof(double));
    free(iperm);
    return s->env_l && s->env_u && s->diag ? 0 : -1;
}

/* Doolittle on the profile: row i of L and column i of U from the rows and
 * columns before it. Without pivoting; refuses a pivot below 1e-8 of the
 * row's largest entry (the setup's check that the ordering is safe). */
static int ts_envelope(ts_sys *s)
{
    const int n = s->n;
    double *el = s->env_l, *eu = s->env_u, *d = s->diag, *y = s->work, *x = s->x;
    double *rowmax = s->work + n;
    memset(el, 0, s->env_size * sizeof *el);
    memset(eu, 0, s->env_size * sizeof *eu);
    memset(rowmax, 0, (size_t)n * sizeof *rowmax);
    for (int q = 0; q < s->nnz; q++) {
        if (s->map_l[q] >= 0)
            el[s->map_l[q]] = s->ax[q];
        else if (s->map_u[q] >= 0)
            eu[s->map_u[q]] = s->ax[q];
        else
            d[s->map_d[q]] = s->ax[q];
    }
    for (int c = 0; c < n; c++)
        for (int q = s->ap[c]; q < s->ap[c + 1]; q++) {
            int r = s->ai[q];
            rowmax[r] = fmax(rowmax[r], fabs(s->ax[q]));
        }
    for (int i = 0; i < n; i++) {
        const int fi = s->first[i];
        double *li = el + s->start[i] - fi; /* li[j] = L(i, j) */
        double *ui = eu + s->start[i] - fi; /* ui[j] = U(j, i) */
        for (int j = fi; j < i; j++) {
            const int fj = s->first[j], k0 = fi > fj ? fi : fj;
            const double *lj = el + s->start[j] - fj, *uj = eu + s->start[j] - fj;
            double tl = li[j], tu = ui[j];
            for (int k = k0; k < j; k++) {
                tl -= li[k] * uj[k];
                tu -= lj[k] * ui[k];
            }
            li[j] = tl / d[j];
            ui[j] = tu;
        }
        double t = d[i];
        for (int k = fi; k < i; k++)
            t -= li[k] * ui[k];
        if (!(fabs(t) >= 1e-8 * rowmax[s->perm[i]]))
            return -1;
        d[i] = t;
    }
    for (int i = 0; i < n; i++) { /* L y = P b */
        const double *li = el + s->start[i] - s->first[i];
        double t = s->rhs[s->perm[i]];
        for (int k = s->first[i]; k < i; k++)
            t -= li[k] * y[k];
        y[i] = t;
    }
    for (int i = n - 1; i >= 0; i--) { /* U z = y, column-oriented; x = P^T z */
        const double *ui = eu + s->start[i] - s->first[i];
        double z = y[i] / d[i];
        for (int k = s->first[i]; k < i; k++)
            y[k] -= ui[k] * z;
        x[s->perm[i]] = z;
    }
    return 0;
}

/* -- Jacobi-preconditioned BiCGSTAB (van der Vorst 1992) -- */

static double ts_dot(const double *a, const double *b, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += a[i] * b[i];
    return t;
}

static int ts_bicgstab(ts_sys *s)
{
    const int n = s->n, max_it = 10 * n;
    double *x = s->x, *r = s->work, *r0 = r + n, *p = r0 + n, *v = p + n, *ph = v + n;
    double *sv = ph + n, *sh = sv + n, *t = sh + n, *dinv = s->dense;
    for (int c = 0; c < n; c++)
        for (int k = s->ap[c]; k < s->ap[c + 1]; k++)
            if (s->ai[k] == c)
                dinv[c] = 1.0 / s->ax[k];
    if (s->warm)
        memcpy(x, s->p_old, (size_t)n * sizeof *x);
    else
        memset(x, 0, (size_t)n * sizeof *x);
    ts_spmv(s, x, t);
    for (int i = 0; i < n; i++) {
        r[i] = s->rhs[i] - t[i];
        r0[i] = r[i];
        p[i] = v[i] = 0.0;
    }
    const double stop = 1e-13 * sqrt(ts_dot(s->rhs, s->rhs, n));
    double rho = 1.0, alpha = 1.0, omega = 1.0;
    int it = 0;
    while (sqrt(ts_dot(r, r, n)) > stop && it < max_it) {
        double rho_new = ts_dot(r0, r, n);
        if (rho_new == 0.0 || omega == 0.0)
            return -1; /* breakdown */
        double beta = (rho_new / rho) * (alpha / omega);
        rho = rho_new;
        for (int i = 0; i < n; i++) {
            p[i] = r[i] + beta * (p[i] - omega * v[i]);
            ph[i] = dinv[i] * p[i];
        }
        ts_spmv(s, ph, v);
        alpha = rho / ts_dot(r0, v, n);
        for (int i = 0; i < n; i++) {
            sv[i] = r[i] - alpha * v[i];
            sh[i] = dinv[i] * sv[i];
        }
        ts_spmv(s, sh, t);
        double tt = ts_dot(t, t, n);
        omega = tt > 0.0 ? ts_dot(t, sv, n) / tt : 0.0;
        for (int i = 0; i < n; i++) {
            x[i] += alpha * ph[i] + omega * sh[i];
            r[i] = sv[i] - omega * t[i];
        }
        it++;
    }
    s->iters = it;
    return it < max_it ? 0 : -1;
}

/* -- benchmark glue -- */

typedef int (*ts_solver)(ts_sys *s);

static void *ts_solver_setup(const char *name, int kind, const pcs_bench_params *p)
{
    ts_sys *s = ts_sys_new();
    if (!s)
        return NULL;
    int ok = 1;
    if (kind == 1)
        ok = (s->dense = malloc((size_t)s->n * (size_t)s->n * sizeof(double))) != NULL;
    else if (kind == 2)
        ok = ts_envelope_setup(s) == 0;
    else if (kind == 3) {
        const char *st = pcs_bench_param(p, "start");
        s->warm = st && strcmp(st, "warm") == 0;
        ok = (s->dense = malloc((size_t)s->n * sizeof(double))) != NULL;
    }
    static const ts_solver solvers[] = {ts_klu, ts_dense, ts_envelope, ts_bicgstab};
    if (!ok || solvers[kind](s) != 0) {
        fprintf(stderr, "thnet.%s: setup or first solve failed\n", name);
        ts_sys_free(s);
        return NULL;
    }
    if (ts_report()) {
        fprintf(stderr, "thnet.%s: n %d, nnz %d; max |p - p_klu| %.3g Pa (p ~ %.4g Pa)", name, s->n,
                s->nnz, ts_max_diff(s), s->x_ref[0]);
        if (kind == 2)
            fprintf(stderr, "; envelope %zu entries per triangle", s->env_size);
        if (kind == 3)
            fprintf(stderr, "; %s start, %d iterations", s->warm ? "warm" : "cold", s->iters);
        fprintf(stderr, "\n");
    }
    return s;
}

#define TS_SOLVER(var, nm, kind, fn, desc, base, par)                                              \
    static void *var##_setup(const pcs_bench_params *p, pcs_bench_info *info)                      \
    {                                                                                              \
        (void)info;                                                                                \
        return ts_solver_setup(nm, kind, p);                                                       \
    }                                                                                              \
    static void var##_run(void *ctx, uint64_t n)                                                   \
    {                                                                                              \
        ts_sys *s = ctx;                                                                           \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            pcs_bench_consume_u64((uint64_t)fn(s));                                                \
            pcs_bench_consume_f64(s->x[0]);                                                        \
        }                                                                                          \
    }                                                                                              \
    static const pcs_bench_def var = {                                                             \
        .group = "thnet",                                                                          \
        .name = nm,                                                                                \
        .description = desc,                                                                       \
        .params = par,                                                                             \
        .baseline = base,                                                                          \
        .setup = var##_setup,                                                                      \
        .teardown = ts_sys_free,                                                                   \
        .run = var##_run,                                                                          \
    };                                                                                             \
    PCS_BENCH_REGISTER(var)

#define TS_NO_PARAMS                                                                               \
    {                                                                                              \
        {                                                                                          \
            NULL, NULL                                                                             \
        }                                                                                          \
    }
#define TS_START_PARAMS                                                                            \
    {                                                                                              \
        {                                                                                          \
            "start", "cold,warm"                                                                   \
        }                                                                                          \
    }

TS_SOLVER(ts_solve_klu, "solve_klu", 0, ts_klu,
          "klu_refactor + klu_solve of the 400-volume two-phase pressure matrix (the network's "
          "path)",
          NULL, TS_NO_PARAMS)
TS_SOLVER(ts_solve_dense, "solve_dense_lu", 1, ts_dense,
          "dense LU with partial pivoting (no LAPACK) of the same matrix and right-hand side",
          "thnet.solve_klu", TS_NO_PARAMS)
TS_SOLVER(ts_solve_env, "solve_envelope", 2, ts_envelope,
          "envelope LU (no pivoting) in reverse Cuthill-McKee order of the same system",
          "thnet.solve_klu", TS_NO_PARAMS)
TS_SOLVER(ts_solve_bicgstab, "solve_bicgstab", 3, ts_bicgstab,
          "Jacobi-preconditioned BiCGSTAB to relative residual 1e-13 on the same system",
          "thnet.solve_klu", TS_START_PARAMS)
