/**
 * @file hydraulics_bench.c
 * @brief Hydraulics (issue 7): one tick of a 400-node network (4 loops of 100 nodes), seed
 *        target <= 500 us, goal <= 100 us; and the pressure solve it makes every tick, by
 *        SuiteSparse KLU (what the model uses) against hand-written alternatives on the very
 *        same matrix.
 *
 * The network. pcs_hydraulics_pwr_network's 4-loop PWR primary (hydraulics.h) refined to 400
 * nodes with pcs_hydraulics_def directly: each loop is a ring from the shared upper plenum
 * through a hot leg of 10 nodes, a steam generator of 64 tube nodes, a crossover leg of 12,
 * the pump, a cold leg of 13, back to the shared downcomer -> core -> upper plenum; the
 * pressurizer hangs on loop 1's hot leg. 3 shared + 4 x 99 loop nodes + pressurizer = 400
 * nodes, 4 x 100 + 3 = 403 junctions. Each loop keeps the reference network's pipe lengths,
 * diameters and volumes in total (a pipe of length L becomes k segments of L/k), so the
 * friction sums, the core form loss balancing the pump's rated head, and hence the rated
 * flow are the reference network's (pcs_hydraulics_pwr_network with 64 SG nodes, whose SG nodes and
 * tubes are taken as they are). Heat: 3411 MWt into the core node from a store, the SG
 * conductance and start temperatures from pcs_hydraulics_pwr_full_power; the flow is settled
 * for 60 s at build (pcs_hydraulics_settle), so the network ticks near its steady state.
 *
 * The solve. hydraulics.solve_* take the model's own CSC pressure matrix and right-hand
 * side, assembled by the model (pcs_hydraulics_assemble,
 * physics/thermohydraulics/models/hyd_internal.h) on the network
 * 1 s after loop 1's pump tripped (a transient: the pressure moves every tick), and time one
 * "refactor + solve" per operation (the matrix values change every tick, the pattern never):
 *   solve_klu       klu_refactor + klu_solve on a klu_analyze'd pattern (the model's path);
 *   solve_dense_lu  dense Gaussian elimination with partial pivoting, no LAPACK (400 x 400);
 *   solve_envelope  envelope (skyline) Cholesky after a reverse Cuthill-McKee ordering
 *                   computed at setup: the matrix is symmetric positive definite
 *                   (hydraulics.h), so no pivoting is needed;
 *   solve_pcg       conjugate gradients with a Jacobi preconditioner to a relative residual
 *                   of 1e-13, from x = 0 (start=cold) or from the pressure before the tick
 *                   (start=warm, what a tick would use).
 * Every alternative has solve_klu as its baseline. With PCS_BENCH_REPORT=1 in the
 * environment each setup prints its largest pressure difference from KLU's solution (Pa)
 * and, for PCG, the iteration count; the envelope setup prints its size.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "pcsim/pcsim.h"
#include "physics/thermohydraulics/models/hyd_internal.h"

/* Segments of each loop's legs: 10 + 64 + 12 + 13 = 99 nodes. The SG has 64 nodes, the
 * most pcs_hydraulics_pwr_network makes, so its tube chain is the reference network's exactly. */
#define HB_LOOPS 4u
#define HB_HOT 10u
#define HB_SG 64u
#define HB_XO 12u
#define HB_COLD 13u
#define HB_PER_LOOP (HB_HOT + HB_SG + HB_XO + HB_COLD)
#define HB_NODES (3u + HB_LOOPS * HB_PER_LOOP + 1u)
#define HB_JUNCTIONS (HB_LOOPS * (HB_PER_LOOP + 1u) + 3u)
#define HB_P_W 3.411e9 /* tests/refdata/pwr_plant.md ([BEAVRS]; [W84]) */
/* The reference network: pcs_hydraulics_pwr_network(HB_LOOPS, HB_SG). */
#define HB_REF_NODES (3u + HB_LOOPS * (3u + HB_SG) + 1u)
#define HB_REF_JUNCTIONS (HB_LOOPS * (HB_SG + 4u) + 3u)

static int hb_report(void)
{
    const char *e = getenv("PCS_BENCH_REPORT");
    return e && *e && *e != '0';
}

/* ---- the 400-node network ---------------------------------------------------------- */

typedef struct hb_net {
    pcs_world *w;
    pcs_hydraulics *h;
} hb_net;

/* A segment 1/k of template pipe @p t from node @p from to @p to. */
static pcs_hydraulics_junction hb_seg(const pcs_hydraulics_junction *t, uint32_t from, uint32_t to,
                                      double k)
{
    pcs_hydraulics_junction j = *t;
    j.from = from;
    j.to = to;
    j.length_m = t->length_m / k;
    return j;
}

/* A node holding 1/k of template node @p t's volume. */
static pcs_hydraulics_node hb_node(const pcs_hydraulics_node *t, double k, uint32_t loop,
                                   uint32_t tag)
{
    pcs_hydraulics_node n = *t;
    n.volume_m3 = t->volume_m3 / k;
    n.loop = loop;
    n.tag = tag;
    return n;
}

/* The reference network, at full power. Its loop 1 is nodes 3 (hot leg), 4..67 (SG),
 * 68 (crossover), 69 (cold leg) and junctions 0 (hot leg), 1 (hot leg -> SG), 2..64
 * (tubes), 65 (crossover), 66 (pump), 67 (cold leg); the last three junctions are
 * downcomer -> core, core -> upper plenum and the surge line. */
typedef struct hb_ref {
    pcs_hydraulics_def cfg;
    pcs_hydraulics_node n[HB_REF_NODES];
    pcs_hydraulics_junction j[HB_REF_JUNCTIONS];
    pcs_hydraulics_pump p[HB_LOOPS];
} hb_ref;

/* Loop @p l: nodes 3 + l * HB_PER_LOOP on, junctions from *k on. */
static void hb_loop(const hb_ref *r, uint32_t l, pcs_hydraulics_node *nodes,
                    pcs_hydraulics_junction *js, uint32_t *k)
{
    const uint32_t DC = 0, UP = 2, base = 3 + l * HB_PER_LOOP;
    const uint32_t hot = base, sg = hot + HB_HOT, xo = sg + HB_SG, cl = xo + HB_XO;
    const pcs_hydraulics_node *n_hot = &r->n[3], *n_xo = &r->n[68], *n_cl = &r->n[69];
    const pcs_hydraulics_junction *j_hot = &r->j[0], *j_cross = &r->j[65], *j_cold = &r->j[67];
    for (uint32_t s = 0; s < HB_HOT; s++)
        nodes[hot + s] =
            hb_node(n_hot, HB_HOT, l,
                    s == HB_HOT - 1 ? PCS_HYDRAULICS_TAG_HOT_LEG : PCS_HYDRAULICS_TAG_NONE);
    for (uint32_t s = 0; s < HB_SG; s++)
        nodes[sg + s] = hb_node(&r->n[4 + s], 1.0, l, PCS_HYDRAULICS_TAG_NONE);
    for (uint32_t s = 0; s < HB_XO; s++)
        nodes[xo + s] = hb_node(n_xo, HB_XO, l, PCS_HYDRAULICS_TAG_NONE);
    for (uint32_t s = 0; s < HB_COLD; s++)
        nodes[cl + s] = hb_node(n_cl, HB_COLD, l,
                                s == 0 ? PCS_HYDRAULICS_TAG_COLD_LEG : PCS_HYDRAULICS_TAG_NONE);
    js[(*k)++] = hb_seg(j_hot, UP, hot, HB_HOT);
    for (uint32_t s = 0; s + 1 < HB_HOT; s++)
        js[(*k)++] = hb_seg(j_hot, hot + s, hot + s + 1, HB_HOT);
    js[(*k)++] = hb_seg(&r->j[1], hot + HB_HOT - 1, sg, 1.0);
    for (uint32_t s = 0; s + 1 < HB_SG; s++)
        js[(*k)++] = hb_seg(&r->j[2 + s], sg + s, sg + s + 1, 1.0);
    js[(*k)++] = hb_seg(j_cross, sg + HB_SG - 1, xo, HB_XO);
    for (uint32_t s = 0; s + 1 < HB_XO; s++)
        js[(*k)++] = hb_seg(j_cross, xo + s, xo + s + 1, HB_XO);
    pcs_hydraulics_junction pj = hb_seg(&r->j[66], xo + HB_XO - 1, cl, 1.0);
    pj.pump = l;
    js[(*k)++] = pj;
    for (uint32_t s = 0; s + 1 < HB_COLD; s++)
        js[(*k)++] = hb_seg(j_cold, cl + s, cl + s + 1, HB_COLD);
    js[(*k)++] = hb_seg(j_cold, cl + HB_COLD - 1, DC, HB_COLD);
}

/* Fluid constants and full-power temperatures as pcs_plant_add sets them
 * (physics/plant/models/plant.c), on the reference network. */
static int hb_reference(hb_ref *r)
{
    pcs_plant_unit_def pu;
    pcs_plant_unit_default(&pu);
    double rho, t_sat, t_hot = pu.t_hot_k, t_cold = pu.t_cold_k;
    pcs_hydraulics_default(&r->cfg);
    if (pcs_water_rho_pt(pu.fuel.pressure_pa, 0.5 * (t_hot + t_cold), &rho) != PCS_OK ||
        pcs_water_tsat(pu.sg_pressure_pa, &t_sat) != PCS_OK)
        return -1;
    r->cfg.rho_kg_m3 = rho;
    r->cfg.p_init_pa = pu.fuel.pressure_pa;
    r->cfg.t_init_k = 0.5 * (t_hot + t_cold);
    r->cfg.cp_j_kg_k = HB_P_W / (pu.pump.rated_flow_kg_s * HB_LOOPS * (t_hot - t_cold));
    if (pcs_hydraulics_pwr_network(HB_LOOPS, HB_SG, &pu.pump, &r->cfg, r->n, r->j, r->p) !=
            PCS_OK ||
        pcs_hydraulics_pwr_full_power(&r->cfg, r->n, HB_LOOPS, HB_SG, HB_P_W, t_hot, t_cold,
                                      t_sat) != PCS_OK)
        return -1;
    return 0;
}

static int hb_network(pcs_world *w, uint32_t heat_store, pcs_hydraulics **out)
{
    hb_ref *r = calloc(1, sizeof *r);
    pcs_hydraulics_node *nodes = calloc(HB_NODES, sizeof *nodes);
    pcs_hydraulics_junction *js = calloc(HB_JUNCTIONS, sizeof *js);
    int rc = -1;
    if (!r || !nodes || !js || hb_reference(r) != 0)
        goto done;
    nodes[0] = r->n[0]; /* downcomer, core, upper plenum */
    nodes[1] = r->n[1];
    nodes[2] = r->n[2];
    uint32_t k = 0;
    for (uint32_t l = 0; l < HB_LOOPS; l++)
        hb_loop(r, l, nodes, js, &k);
    nodes[HB_NODES - 1] = r->n[HB_REF_NODES - 1]; /* pressurizer */
    js[k++] = r->j[HB_REF_JUNCTIONS - 3];         /* downcomer -> core: form loss for rated flow */
    js[k++] = r->j[HB_REF_JUNCTIONS - 2];         /* core -> upper plenum */
    js[k] = r->j[HB_REF_JUNCTIONS - 1];           /* surge line, pressurizer -> loop 1 hot leg */
    js[k].from = HB_NODES - 1;
    js[k++].to = 3;
    pcs_hydraulics_def cfg = r->cfg;
    cfg.heat_store = heat_store;
    cfg.heat_index = 0;
    cfg.n_nodes = HB_NODES;
    cfg.n_junctions = k;
    cfg.nodes = nodes;
    cfg.junctions = js;
    cfg.pumps = r->p;
    if (k == HB_JUNCTIONS && pcs_hydraulics_add(w, 0, &cfg, out) == PCS_OK &&
        pcs_hydraulics_settle(w, *out, 60.0, pcs_world_clock(w)->dt_s) == PCS_OK)
        rc = 0;
done:
    free(r);
    free(nodes);
    free(js);
    return rc;
}

static void hb_net_free(hb_net *x)
{
    if (x)
        pcs_world_destroy(x->w);
}

static int hb_net_build(hb_net *x)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    wc.workers = 0;
    uint32_t heat;
    if (pcs_world_create(&wc, &x->w) != PCS_OK ||
        pcs_store_register(x->w, "bench.core_heat", sizeof(double), 1, PCS_STORE_STATE, &heat) !=
            PCS_OK)
        return -1;
    *(double *)pcs_store_data(x->w, heat) = HB_P_W;
    if (hb_network(x->w, heat, &x->h) != 0)
        return -1;
    return pcs_world_tick(x->w) == PCS_OK ? 0 : -1; /* seal outside the timed part */
}

/* ---- hydraulics.network_tick ------------------------------------------------------- */

static void *hb_tick_setup(const pcs_bench_params *p, pcs_bench_info *info)
{
    (void)p;
    (void)info;
    hb_net *x = calloc(1, sizeof *x);
    if (!x || hb_net_build(x) != 0) {
        fprintf(stderr, "hydraulics.network_tick: %s\n", pcs_last_error());
        hb_net_free(x);
        free(x);
        return NULL;
    }
    if (hb_report()) {
        const double *m = pcs_store_data(x->w, pcs_hydraulics_store_ids(x->h).flow);
        fprintf(stderr, "hydraulics network: %u nodes, %u junctions; settled loop flow %.1f kg/s\n",
                HB_NODES, HB_JUNCTIONS, m[0]);
    }
    return x;
}

static void hb_tick_teardown(void *ctx)
{
    hb_net_free(ctx);
    free(ctx);
}

static void hb_tick_run(void *ctx, uint64_t n)
{
    hb_net *x = ctx;
    for (uint64_t i = 0; i < n; i++)
        pcs_bench_consume_u64((uint64_t)pcs_world_tick(x->w));
}

static uint64_t hb_tick_world_allocs(void *ctx)
{
    return pcs_world_alloc_count(((hb_net *)ctx)->w);
}

static const pcs_bench_def hb_network_tick = {
    .group = "hydraulics",
    .name = "network_tick",
    .description = "one pcs_world_tick of a 400-node, 403-junction loop network (4 x 100)",
    .modes = PCS_BENCH_AVGT | PCS_BENCH_SAMPLE,
    .baseline = "tick.empty_world",
    .setup = hb_tick_setup,
    .teardown = hb_tick_teardown,
    .run = hb_tick_run,
    .world_allocs = hb_tick_world_allocs,
};
PCS_BENCH_REGISTER(hb_network_tick)

/* ---- the pressure matrix and its solvers ------------------------------------------- */

typedef struct hb_sys {
    int n, nnz;
    int *ap, *ai;
    double *ax, *rhs;
    double *p_old; /* pressure before the tick (warm start) */
    double *x_ref; /* KLU's solution */
    double *x;     /* a solver's solution */
    double *work;  /* solver scratch */
    /* KLU */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    /* envelope Cholesky */
    int *perm, *first, *start, *map;
    double *env;
    size_t env_size;
    /* PCG */
    int warm;
    int iters;
} hb_sys;

static void hb_sys_free(void *ctx)
{
    hb_sys *s = ctx;
    if (!s)
        return;
    if (s->num)
        klu_free_numeric(&s->num, &s->common);
    if (s->sym)
        klu_free_symbolic(&s->sym, &s->common);
    free(s->ap);
    free(s->ai);
    free(s->ax);
    free(s->rhs);
    free(s->p_old);
    free(s->x_ref);
    free(s->x);
    free(s->work);
    free(s->perm);
    free(s->first);
    free(s->start);
    free(s->map);
    free(s->env);
    free(s);
}

/* The model's matrix on the settled network, and KLU's factorisation and solution. */
static hb_sys *hb_sys_new(void)
{
    hb_net net = {0};
    hb_sys *s = calloc(1, sizeof *s);
    if (!s || hb_net_build(&net) != 0) {
        fprintf(stderr, "hydraulics.solve: %s\n", pcs_last_error());
        hb_net_free(&net);
        free(s);
        return NULL;
    }
    pcs_hydraulics *h = net.h;
    /* A transient, so that the pressure moves from tick to tick (a steady network's would
     * hand a warm-started iterative solver its answer): trip loop 1's pump and take the
     * matrix of the tick 1 s into the coast-down. */
    pcs_command trip = {0};
    pcs_target_id pump1;
    int ticked = pcs_command_kind_find(net.w, PCS_HYDRAULICS_COMMANDS, PCS_HYDRAULICS_OP_PUMP_TRIP,
                                       &trip.kind) == PCS_OK &&
                 pcs_command_target_find(net.w, "u1.pump1", &pump1) == PCS_OK;
    trip.target = pcs_target_id_store(pump1);
    ticked = ticked && pcs_command_submit(net.w, &trip) == PCS_OK;
    for (int t = 0; ticked && t < 20; t++)
        ticked = pcs_world_tick(net.w) == PCS_OK;
    if (!ticked) {
        fprintf(stderr, "hydraulics.solve: pump trip transient: %s\n", pcs_last_error());
        hb_net_free(&net);
        free(s);
        return NULL;
    }
    pcs_hydraulics_assemble(net.w, h, pcs_world_clock(net.w)->dt_s);
    s->n = h->n;
    s->nnz = h->ap[h->n];
    size_t n = (size_t)s->n, nnz = (size_t)s->nnz;
    s->ap = malloc((n + 1) * sizeof(int));
    s->ai = malloc(nnz * sizeof(int));
    s->ax = malloc(nnz * sizeof(double));
    s->rhs = malloc(n * sizeof(double));
    s->p_old = malloc(n * sizeof(double));
    s->x_ref = malloc(n * sizeof(double));
    s->x = malloc(n * sizeof(double));
    s->work = malloc(4 * n * sizeof(double));
    int ok = s->ap && s->ai && s->ax && s->rhs && s->p_old && s->x_ref && s->x && s->work;
    if (ok) {
        memcpy(s->ap, h->ap, (n + 1) * sizeof(int));
        memcpy(s->ai, h->ai, nnz * sizeof(int));
        memcpy(s->ax, h->ax, nnz * sizeof(double));
        memcpy(s->rhs, h->rhs, n * sizeof(double));
        memcpy(s->p_old, pcs_store_data(net.w, pcs_hydraulics_store_ids(h).pressure),
               n * sizeof(double));
        klu_defaults(&s->common);
        s->sym = klu_analyze(s->n, s->ap, s->ai, &s->common);
        s->num = s->sym ? klu_factor(s->ap, s->ai, s->ax, s->sym, &s->common) : NULL;
        memcpy(s->x_ref, s->rhs, n * sizeof(double));
        ok = s->num && klu_solve(s->sym, s->num, s->n, 1, s->x_ref, &s->common);
    }
    hb_net_free(&net);
    if (!ok) {
        fprintf(stderr, "hydraulics.solve: setup failed (KLU status %d)\n", s->common.status);
        hb_sys_free(s);
        return NULL;
    }
    return s;
}

static double hb_max_diff(const hb_sys *s)
{
    double d = 0.0;
    for (int i = 0; i < s->n; i++)
        d = fmax(d, fabs(s->x[i] - s->x_ref[i]));
    return d;
}

/* -- KLU -- */

static int hb_klu(hb_sys *s)
{
    if (!klu_refactor(s->ap, s->ai, s->ax, s->sym, s->num, &s->common))
        return -1;
    memcpy(s->x, s->rhs, (size_t)s->n * sizeof(double));
    return klu_solve(s->sym, s->num, s->n, 1, s->x, &s->common) ? 0 : -1;
}

/* -- dense LU with partial pivoting (row-major, right-looking) -- */

static int hb_dense(hb_sys *s)
{
    const int n = s->n;
    double *a = s->env, *x = s->x;
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

/* -- envelope Cholesky with reverse Cuthill-McKee ordering -- */

static int hb_degree(const hb_sys *s, int v)
{
    return s->ap[v + 1] - s->ap[v] - 1; /* minus the diagonal */
}

/* Breadth-first order from @p root over unvisited nodes, neighbours by increasing degree
 * (Cuthill-McKee); appends to order[*len]. Returns the last level's first node. */
static int hb_bfs(const hb_sys *s, int root, char *seen, int *order, int *len)
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
            while (pos > from && hb_degree(s, order[pos - 1]) > hb_degree(s, u)) {
                order[pos] = order[pos - 1];
                pos--;
            }
            order[pos] = u;
        }
    }
    return last;
}

static int hb_rcm(hb_sys *s)
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
        int start = len, root = hb_bfs(s, v0, seen, order, &len);
        for (int i = start; i < len; i++)
            seen[order[i]] = 0;
        len = start;
        hb_bfs(s, root, seen, order, &len);
    }
    for (int i = 0; i < n; i++)
        s->perm[i] = order[n - 1 - i]; /* reverse: new i <- old perm[i] */
    free(seen);
    free(order);
    return 0;
}

static int hb_envelope_setup(hb_sys *s)
{
    int n = s->n;
    int *iperm = malloc((size_t)n * sizeof(int));
    s->perm = malloc((size_t)n * sizeof(int));
    s->first = malloc((size_t)n * sizeof(int));
    s->start = malloc((size_t)(n + 1) * sizeof(int));
    s->map = malloc((size_t)s->nnz * sizeof(int));
    if (!iperm || !s->perm || !s->first || !s->start || !s->map || hb_rcm(s) != 0) {
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
        s->start[i + 1] = s->start[i] + (i - s->first[i] + 1);
    for (int c = 0; c < n; c++)
        for (int q = s->ap[c]; q < s->ap[c + 1]; q++) {
            int ni = iperm[s->ai[q]], nj = iperm[c];
            s->map[q] = ni >= nj ? s->start[ni] + (nj - s->first[ni]) : -1; /* lower only */
        }
    s->env_size = (size_t)s->start[n];
    s->env = malloc(s->env_size * sizeof(double));
    free(iperm);
    return s->env ? 0 : -1;
}

/* Row i of L lives at env[start[i]] for columns first[i]..i. */
static int hb_envelope(hb_sys *s)
{
    const int n = s->n;
    double *env = s->env, *y = s->work, *x = s->x;
    memset(env, 0, s->env_size * sizeof *env);
    for (int q = 0; q < s->nnz; q++)
        if (s->map[q] >= 0)
            env[s->map[q]] = s->ax[q];
    for (int i = 0; i < n; i++) {
        double *li = env + s->start[i] - s->first[i]; /* li[j] = L(i, j) */
        for (int j = s->first[i]; j < i; j++) {
            const double *lj = env + s->start[j] - s->first[j];
            int k0 = s->first[i] > s->first[j] ? s->first[i] : s->first[j];
            double t = li[j];
            for (int k = k0; k < j; k++)
                t -= li[k] * lj[k];
            li[j] = t / lj[j];
        }
        double d = li[i];
        for (int k = s->first[i]; k < i; k++)
            d -= li[k] * li[k];
        if (!(d > 0.0))
            return -1;
        li[i] = sqrt(d);
    }
    for (int i = 0; i < n; i++) { /* L y = P b */
        const double *li = env + s->start[i] - s->first[i];
        double t = s->rhs[s->perm[i]];
        for (int k = s->first[i]; k < i; k++)
            t -= li[k] * y[k];
        y[i] = t / li[i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T z = y, column-oriented; x = P^T z */
        const double *li = env + s->start[i] - s->first[i];
        double z = y[i] / li[i];
        for (int k = s->first[i]; k < i; k++)
            y[k] -= li[k] * z;
        x[s->perm[i]] = z;
    }
    return 0;
}

/* -- Jacobi-preconditioned conjugate gradients -- */

static void hb_spmv(const hb_sys *s, const double *v, double *out)
{
    memset(out, 0, (size_t)s->n * sizeof *out);
    for (int c = 0; c < s->n; c++)
        for (int q = s->ap[c]; q < s->ap[c + 1]; q++)
            out[s->ai[q]] += s->ax[q] * v[c];
}

static double hb_dot(const double *a, const double *b, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += a[i] * b[i];
    return t;
}

static int hb_pcg(hb_sys *s)
{
    const int n = s->n;
    double *x = s->x, *r = s->work, *z = r + n, *d = z + n, *q = d + n;
    double *dinv = s->env;
    for (int c = 0; c < n; c++)
        for (int k = s->ap[c]; k < s->ap[c + 1]; k++)
            if (s->ai[k] == c)
                dinv[c] = 1.0 / s->ax[k];
    if (s->warm)
        memcpy(x, s->p_old, (size_t)n * sizeof *x);
    else
        memset(x, 0, (size_t)n * sizeof *x);
    hb_spmv(s, x, q);
    for (int i = 0; i < n; i++) {
        r[i] = s->rhs[i] - q[i];
        z[i] = dinv[i] * r[i];
        d[i] = z[i];
    }
    double rz = hb_dot(r, z, n), stop = 1e-13 * sqrt(hb_dot(s->rhs, s->rhs, n));
    int it = 0;
    while (sqrt(hb_dot(r, r, n)) > stop && it < 10 * n) {
        hb_spmv(s, d, q);
        double alpha = rz / hb_dot(d, q, n);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * d[i];
            r[i] -= alpha * q[i];
            z[i] = dinv[i] * r[i];
        }
        double rz_new = hb_dot(r, z, n);
        for (int i = 0; i < n; i++)
            d[i] = z[i] + (rz_new / rz) * d[i];
        rz = rz_new;
        it++;
    }
    s->iters = it;
    return it < 10 * n ? 0 : -1;
}

/* -- benchmark glue -- */

typedef int (*hb_solver)(hb_sys *s);

static void *hb_solver_setup(const char *name, int kind, const pcs_bench_params *p)
{
    hb_sys *s = hb_sys_new();
    if (!s)
        return NULL;
    int ok = 1;
    if (kind == 1)
        ok = (s->env = malloc((size_t)s->n * (size_t)s->n * sizeof(double))) != NULL;
    else if (kind == 2)
        ok = hb_envelope_setup(s) == 0;
    else if (kind == 3) {
        const char *st = pcs_bench_param(p, "start");
        s->warm = st && strcmp(st, "warm") == 0;
        ok = (s->env = malloc((size_t)s->n * sizeof(double))) != NULL;
    }
    static const hb_solver solvers[] = {hb_klu, hb_dense, hb_envelope, hb_pcg};
    if (!ok || solvers[kind](s) != 0) {
        fprintf(stderr, "hydraulics.%s: setup or first solve failed\n", name);
        hb_sys_free(s);
        return NULL;
    }
    if (hb_report()) {
        fprintf(stderr, "hydraulics.%s: n %d, nnz %d; max |p - p_klu| %.3g Pa (p ~ %.4g Pa)", name,
                s->n, s->nnz, hb_max_diff(s), s->x_ref[0]);
        if (kind == 2)
            fprintf(stderr, "; envelope %zu entries", s->env_size);
        if (kind == 3)
            fprintf(stderr, "; %s start, %d iterations", s->warm ? "warm" : "cold", s->iters);
        fprintf(stderr, "\n");
    }
    return s;
}

#define HB_SOLVER(var, nm, kind, fn, desc, base, par)                                              \
    static void *var##_setup(const pcs_bench_params *p, pcs_bench_info *info)                      \
    {                                                                                              \
        (void)info;                                                                                \
        return hb_solver_setup(nm, kind, p);                                                       \
    }                                                                                              \
    static void var##_run(void *ctx, uint64_t n)                                                   \
    {                                                                                              \
        hb_sys *s = ctx;                                                                           \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            pcs_bench_consume_u64((uint64_t)fn(s));                                                \
            pcs_bench_consume_f64(s->x[0]);                                                        \
        }                                                                                          \
    }                                                                                              \
    static const pcs_bench_def var = {                                                             \
        .group = "hydraulics",                                                                     \
        .name = nm,                                                                                \
        .description = desc,                                                                       \
        .params = par,                                                                             \
        .baseline = base,                                                                          \
        .setup = var##_setup,                                                                      \
        .teardown = hb_sys_free,                                                                   \
        .run = var##_run,                                                                          \
    };                                                                                             \
    PCS_BENCH_REGISTER(var)

#define HB_NO_PARAMS                                                                               \
    {                                                                                              \
        {                                                                                          \
            NULL, NULL                                                                             \
        }                                                                                          \
    }
#define HB_START_PARAMS                                                                            \
    {                                                                                              \
        {                                                                                          \
            "start", "cold,warm"                                                                   \
        }                                                                                          \
    }

HB_SOLVER(hb_solve_klu, "solve_klu", 0, hb_klu,
          "klu_refactor + klu_solve of the 400-node pressure matrix (the model's path)", NULL,
          HB_NO_PARAMS)
HB_SOLVER(hb_solve_dense, "solve_dense_lu", 1, hb_dense,
          "dense LU with partial pivoting (no LAPACK) of the same matrix and right-hand side",
          "hydraulics.solve_klu", HB_NO_PARAMS)
HB_SOLVER(hb_solve_env, "solve_envelope", 2, hb_envelope,
          "envelope Cholesky in reverse Cuthill-McKee order of the same system",
          "hydraulics.solve_klu", HB_NO_PARAMS)
HB_SOLVER(hb_solve_pcg, "solve_pcg", 3, hb_pcg,
          "Jacobi-preconditioned CG to relative residual 1e-13 on the same system",
          "hydraulics.solve_klu", HB_START_PARAMS)
