/**
 * @file thnet_build.c
 * @brief Thermal-hydraulic network: definition defaults and checks, the
 *        sparse pattern and KLU set-up, state helpers (see pcsim/thnet.h).
 *
 * World-free like a kernel, but in models/ because it calls KLU (kernels
 * include no non-C library header; tools/archcheck.sh). Allocation happens
 * only here (create, and a connection change that changes the matrix
 * pattern: pcs_thnet_junction_connect, on the tick of the change) and in the
 * rare re-pivoting full factorisation; the step itself allocates nothing.
 *
 * KLU: the pattern is analysed once (klu_analyze, AMD ordering on the BTF
 * blocks) and factorised once at build with a unit diagonal and zero
 * off-diagonal values, which fixes diagonal pivots. The step's matrix is
 * diagonally dominant in the common case (each row: 1 + sum over its
 * junctions of dt b_j (A_i + B_i h_j) on the diagonal against the same terms
 * off it, all positive while rho_h (h_i - h_j) / rho > -1), so diagonal pivots
 * are the right ones; each step klu_refactor reuses them, and only when
 * klu_rcond falls below PCS_THNET_RCOND_MIN does the step call klu_factor for
 * new pivots.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/math.h"
#include "physics/thermohydraulics/models/thnet_internal.h"

static const pcs_thnet_volume_def volume_defaults = {
    .volume_m3 = 1.0,
    .diameter_m = 0.1,
    .p_pa = 15.5e6,
    .h_j_kg = 1.3e6,
};

pcs_status pcs_thnet_volume_default(pcs_thnet_volume_def *v)
{
    if (!v)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_volume_default: v is NULL");
    *v = volume_defaults;
    return PCS_OK;
}

static const pcs_thnet_junction_def junction_defaults = {
    .area_m2 = 0.01,
    .length_m = 1.0,
    .valve = 1.0,
    .discharge = 1.0,
    .elevation_m = 0.0 / 0.0, /* NaN: midway */
};

pcs_status pcs_thnet_junction_default(pcs_thnet_junction_def *j)
{
    if (!j)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_junction_default: j is NULL");
    *j = junction_defaults;
    return PCS_OK;
}

pcs_status pcs_thnet_default(pcs_thnet_def *d)
{
    if (!d)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_default: d is NULL");
    memset(d, 0, sizeof *d);
    d->eos = pcs_thnet_eos_if97();
    d->gravity_m_s2 = PCS_THNET_G;
    return PCS_OK;
}

static int pos_fin(double x)
{
    return x > 0.0 && isfinite(x);
}

static pcs_status check_volume(const pcs_thnet_volume_def *v, uint32_t i)
{
    const char *bad = 0;
    double val = 0.0;
    if (!pos_fin(v->volume_m3))
        bad = "volume_m3 (> 0)", val = v->volume_m3;
    else if (!isfinite(v->elevation_m))
        bad = "elevation_m (finite)", val = v->elevation_m;
    else if (!pos_fin(v->diameter_m))
        bad = "diameter_m (> 0)", val = v->diameter_m;
    else if (!(v->p_pa >= 1000.0 && v->p_pa <= 100e6))
        bad = "p_pa ([1e3, 1e8])", val = v->p_pa;
    else if (!isfinite(v->h_j_kg))
        bad = "h_j_kg (finite)", val = v->h_j_kg;
    else if (v->boundary != 0 && v->boundary != 1)
        bad = "boundary (0 or 1)", val = v->boundary;
    if (bad)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_create: volumes[%u].%s: value %g", i, bad,
                             val);
    return PCS_OK;
}

static pcs_status check_junction(const pcs_thnet_junction_def *j, uint32_t k, uint32_t nv)
{
    const char *bad = 0;
    double val = 0.0;
    if (j->from >= nv)
        bad = "from (a volume index)", val = j->from;
    else if (j->to >= nv || j->to == j->from)
        bad = "to (a volume index other than from)", val = j->to;
    else if (!pos_fin(j->area_m2))
        bad = "area_m2 (> 0)", val = j->area_m2;
    else if (!pos_fin(j->length_m))
        bad = "length_m (> 0)", val = j->length_m;
    else if (!(j->diameter_m >= 0.0) || !isfinite(j->diameter_m))
        bad = "diameter_m (>= 0; 0: from the area)", val = j->diameter_m;
    else if (!(j->form_loss >= 0.0) || !isfinite(j->form_loss))
        bad = "form_loss (>= 0)", val = j->form_loss;
    else if (j->friction_model != PCS_THNET_FRICTION_HAALAND &&
             j->friction_model != PCS_THNET_FRICTION_FIXED &&
             j->friction_model != PCS_THNET_FRICTION_NONE)
        bad = "friction_model (0 Haaland, 1 fixed, 2 none)", val = (double)j->friction_model;
    else if (!(j->friction >= 0.0) || !isfinite(j->friction))
        bad = "friction (>= 0)", val = j->friction;
    else if (!(j->roughness_m >= 0.0) || !isfinite(j->roughness_m))
        bad = "roughness_m (>= 0)", val = j->roughness_m;
    else if (!(j->valve >= 0.0 && j->valve <= 1.0))
        bad = "valve ([0, 1])", val = j->valve;
    else if (j->choked != 0 && j->choked != 1)
        bad = "choked (0 or 1)", val = j->choked;
    else if (!(j->discharge > 0.0 && j->discharge <= 1.0))
        bad = "discharge ((0, 1])", val = j->discharge;
    else if (j->offtake != PCS_THNET_OFFTAKE_MIXTURE && j->offtake != PCS_THNET_OFFTAKE_VAPOUR &&
             j->offtake != PCS_THNET_OFFTAKE_LIQUID)
        bad = "offtake (0, 1 or 2)", val = (double)j->offtake;
    else if (!(j->offtake_band >= 0.0 && j->offtake_band < 1.0))
        bad = "offtake_band ([0, 1))", val = j->offtake_band;
    else if (!isfinite(j->flow_kg_s))
        bad = "flow_kg_s (finite)", val = j->flow_kg_s;
    else if (isfinite(j->elevation_m) == 0 && j->elevation_m == j->elevation_m)
        bad = "elevation_m (finite, or NaN for midway)", val = j->elevation_m;
    if (bad)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_create: junctions[%u].%s: value %g", k, bad,
                             val);
    return PCS_OK;
}

static pcs_status check_def(const pcs_thnet_def *d)
{
    if (!d->volumes || d->n_volumes == 0 || d->n_volumes > PCS_THNET_MAX_VOLUMES)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_thnet_create: n_volumes %u: need volumes and 1..%u of them",
                             d->n_volumes, PCS_THNET_MAX_VOLUMES);
    if (d->n_junctions > PCS_THNET_MAX_JUNCTIONS || (d->n_junctions && !d->junctions))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_thnet_create: n_junctions %u: need junctions and 0..%u",
                             d->n_junctions, PCS_THNET_MAX_JUNCTIONS);
    if (!d->eos.props)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_create: eos.props is NULL");
    if (!(d->gravity_m_s2 >= 0.0 && d->gravity_m_s2 <= 100.0))
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_create: gravity_m_s2 %g outside [0, 100]",
                             d->gravity_m_s2);
    for (uint32_t i = 0; i < d->n_volumes; i++) {
        pcs_status st = check_volume(&d->volumes[i], i);
        if (st != PCS_OK)
            return st;
    }
    for (uint32_t k = 0; k < d->n_junctions; k++) {
        pcs_status st = check_junction(&d->junctions[k], k, d->n_volumes);
        if (st != PCS_OK)
            return st;
        if (d->junctions[k].choked && !d->eos.choke)
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_thnet_create: junctions[%u].choked is 1 but eos.choke is "
                                 "NULL",
                                 k);
    }
    return PCS_OK;
}

/* ------------------------------------------------------------------------ */
/* Sparse pattern                                                            */
/* ------------------------------------------------------------------------ */

typedef struct thnet_entry {
    int col, row, slot; /* slot: 2 * nj + i for diagonals, 2 k / 2 k + 1 for junction k */
} entry;

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return 0;
}

/*
 * The CSC pattern (the diagonal and both off-diagonals of every connected
 * junction; a disconnected one's positions are -1) into the spare arrays
 * net->pat_ap / pat_ai, and each entry's position into net->pos_*; returns
 * its nnz. Allocation-free: every array is sized at create for the pattern
 * with all junctions in.
 */
static int pattern_of(pcs_thnet *net)
{
    int n = (int)net->nv, ne = n + 2 * (int)(net->nj - net->n_off);
    entry *e = net->pat_e;
    int *ap = net->pat_ap, *ai = net->pat_ai;
    memset(ap, 0, ((size_t)n + 1) * sizeof *ap);
    for (int i = 0; i < n; i++)
        e[i] = (entry){i, i, 2 * (int)net->nj + i};
    int q = n;
    for (uint32_t k = 0; k < net->nj; k++) {
        net->pos_ft[k] = net->pos_tf[k] = -1;
        if (net->off[k])
            continue;
        int f = (int)net->jun[k].from, t = (int)net->jun[k].to;
        e[q++] = (entry){t, f, 2 * (int)k};     /* row f, col t */
        e[q++] = (entry){f, t, 2 * (int)k + 1}; /* row t, col f */
    }
    qsort(e, (size_t)ne, sizeof *e, entry_cmp);
    int nnz = 0;
    for (q = 0; q < ne; q++) {
        if (q == 0 || entry_cmp(&e[q], &e[q - 1]) != 0) {
            ai[nnz] = e[q].row;
            ap[e[q].col + 1]++;
            nnz++;
        }
        int s = e[q].slot, pos = nnz - 1;
        if (s >= 2 * (int)net->nj)
            net->pos_diag[s - 2 * (int)net->nj] = pos;
        else if (s % 2 == 0)
            net->pos_ft[s / 2] = pos;
        else
            net->pos_tf[s / 2] = pos;
    }
    for (int i = 0; i < n; i++)
        ap[i + 1] += ap[i];
    return nnz;
}

/* The spare pattern (pattern_of's) becomes the present one. */
static void pattern_swap(pcs_thnet *net, int nnz)
{
    int *ap = net->ap, *ai = net->ai;
    net->ap = net->pat_ap;
    net->ai = net->pat_ai;
    net->pat_ap = ap;
    net->pat_ai = ai;
    net->nnz = nnz;
}

static void build_pattern(pcs_thnet *net)
{
    net->n = (int)net->nv;
    pattern_swap(net, pattern_of(net));
}

/* klu_analyze of the present pattern (counted), then klu_factor with a
 * unit diagonal and zero off-diagonals, which fixes diagonal pivots (file
 * comment). @p who names the caller in messages. */
static pcs_status klu_analyze_factor(pcs_thnet *net, const char *who)
{
    net->symbolic = klu_analyze(net->n, net->ap, net->ai, &net->common);
    if (!net->symbolic)
        return pcs_error_set(PCS_E_STATE, "%s: klu_analyze failed (status %d)", who,
                             net->common.status);
    net->n_analyze++;
    memset(net->ax, 0, (size_t)net->nnz * sizeof *net->ax);
    for (uint32_t i = 0; i < net->nv; i++)
        net->ax[net->pos_diag[i]] = 1.0;
    net->numeric = klu_factor(net->ap, net->ai, net->ax, net->symbolic, &net->common);
    if (!net->numeric)
        return pcs_error_set(PCS_E_STATE, "%s: klu_factor failed (status %d)", who,
                             net->common.status);
    net->n_factor_pattern++;
    return PCS_OK;
}

static pcs_status klu_setup(pcs_thnet *net)
{
    klu_defaults(&net->common);
    /* No row scaling and no check of the pattern in each refactor (-1):
       every row is "p_i' + sum of dt-weighted couplings = rhs" with a unit
       leading term, already scaled alike, and the pattern is built here
       (the scaling pass cost a quarter of each refactor). */
    net->common.scale = -1;
    return klu_analyze_factor(net, "pcs_thnet_create");
}

pcs_status pcs_thnet_factor_solve(pcs_thnet *net, double *rcond, uint32_t *full)
{
    *full = 0;
    if (!klu_refactor(net->ap, net->ai, net->ax, net->symbolic, net->numeric, &net->common) ||
        !klu_rcond(net->symbolic, net->numeric, &net->common))
        return pcs_error_set(PCS_E_STATE, "pcs_thnet_step: klu_refactor failed (status %d)",
                             net->common.status);
    *rcond = net->common.rcond;
    if (!(net->common.rcond >= PCS_THNET_RCOND_MIN)) {
        /* Frozen pivots have gone bad: re-pivot (allocates). */
        klu_free_numeric(&net->numeric, &net->common);
        net->numeric = klu_factor(net->ap, net->ai, net->ax, net->symbolic, &net->common);
        *full = 1;
        if (!net->numeric || !klu_rcond(net->symbolic, net->numeric, &net->common))
            return pcs_error_set(PCS_E_STATE, "pcs_thnet_step: klu_factor failed (status %d)",
                                 net->common.status);
        *rcond = net->common.rcond;
    }
    if (!klu_solve(net->symbolic, net->numeric, net->n, 1, net->rhs, &net->common))
        return pcs_error_set(PCS_E_STATE, "pcs_thnet_step: klu_solve failed (status %d)",
                             net->common.status);
    return PCS_OK;
}

/* ------------------------------------------------------------------------ */
/* Create / destroy                                                          */
/* ------------------------------------------------------------------------ */

static pcs_status alloc_arrays(pcs_thnet *net)
{
    size_t nv = net->nv, nj = net->nj ? net->nj : 1;
    net->vol = malloc(nv * sizeof *net->vol);
    net->jun = malloc(nj * sizeof *net->jun);
    net->zj = malloc(nj * sizeof(double));
    net->diam = malloc(nj * sizeof(double));
    net->a = calloc(nj, sizeof(double));
    net->bf = calloc(nj, sizeof(double));
    net->bt = calloc(nj, sizeof(double));
    net->hd_pred = calloc(nj, sizeof(double));
    net->hd_slope = calloc(nj, sizeof(double));
    net->pump_w = calloc(nj, sizeof(double));
    net->choke = calloc(nj, sizeof *net->choke);
    net->is_choked = calloc(nj, 1);
    net->dir = calloc(nj, 1);
    net->props = calloc(nv, sizeof *net->props);
    net->props_at = malloc(2 * nv * sizeof(double));
    net->ca = calloc(nv, sizeof(double));
    net->cb = calloc(nv, sizeof(double));
    net->sc = calloc(nv, sizeof(double));
    net->bk = calloc(10 * (size_t)nv + nj, sizeof(double));
    net->rhs = calloc(nv, sizeof(double));
    net->pos_diag = calloc(nv, sizeof(int));
    net->pos_ft = calloc(nj, sizeof(int));
    net->pos_tf = calloc(nj, sizeof(int));
    net->off = calloc(nj, 1);
    /* the pattern with every junction in, and a spare of it (pattern_of) */
    size_t ne = nv + 2u * (size_t)net->nj;
    net->pat_e = malloc(ne * sizeof(*net->pat_e));
    net->ap = calloc(nv + 1, sizeof(int));
    net->pat_ap = calloc(nv + 1, sizeof(int));
    net->ai = calloc(ne, sizeof(int));
    net->pat_ai = calloc(ne, sizeof(int));
    net->ax = calloc(ne, sizeof(double));
    if (!net->vol || !net->jun || !net->zj || !net->diam || !net->a || !net->bf || !net->bt ||
        !net->hd_pred || !net->hd_slope || !net->pump_w || !net->choke || !net->is_choked ||
        !net->dir || !net->props || !net->ca || !net->cb || !net->sc || !net->rhs ||
        !net->pos_diag || !net->pos_ft || !net->pos_tf || !net->props_at || !net->bk || !net->off ||
        !net->pat_e || !net->ap || !net->pat_ap || !net->ai || !net->pat_ai || !net->ax)
        return pcs_error_set(PCS_E_NOMEM, "pcs_thnet_create: out of memory");
    for (size_t i = 0; i < 2 * nv; i++)
        net->props_at[i] = 0.0 / 0.0; /* NaN: no props kept yet */
    return PCS_OK;
}

/* The network's struct with its sizes, equation of state and gravity from
 * @p def, all else zero; NULL when out of memory. */
static pcs_thnet *net_new(const pcs_thnet_def *def)
{
    pcs_thnet *net = malloc(sizeof *net);
    if (net)
        *net = (pcs_thnet){
            .nv = def->n_volumes, .nj = def->n_junctions, .eos = def->eos, .g = def->gravity_m_s2};
    return net;
}

pcs_status pcs_thnet_create(const pcs_thnet_def *def, pcs_thnet **out)
{
    if (!def || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_create: NULL argument");
    pcs_status st = check_def(def);
    if (st != PCS_OK)
        return st;
    pcs_thnet *net = net_new(def);
    if (!net)
        return pcs_error_set(PCS_E_NOMEM, "pcs_thnet_create: out of memory");
    st = alloc_arrays(net);
    if (st == PCS_OK) {
        memcpy(net->vol, def->volumes, net->nv * sizeof *net->vol);
        if (net->nj)
            memcpy(net->jun, def->junctions, net->nj * sizeof *net->jun);
        for (uint32_t k = 0; k < net->nj; k++) {
            const pcs_thnet_junction_def *j = &net->jun[k];
            double zf = net->vol[j->from].elevation_m, zt = net->vol[j->to].elevation_m;
            net->zj[k] = j->elevation_m == j->elevation_m ? j->elevation_m : 0.5 * (zf + zt);
            net->diam[k] =
                j->diameter_m > 0.0 ? j->diameter_m : sqrt(4.0 * j->area_m2 / 3.141592653589793);
        }
        build_pattern(net);
    }
    if (st == PCS_OK)
        st = klu_setup(net);
    if (st == PCS_OK)
        *out = net;
    else
        pcs_thnet_destroy(net);
    return st;
}

void pcs_thnet_destroy(pcs_thnet *net)
{
    if (!net)
        return;
    if (net->numeric)
        klu_free_numeric(&net->numeric, &net->common);
    if (net->symbolic)
        klu_free_symbolic(&net->symbolic, &net->common);
    void *p[] = {net->vol,    net->jun,     net->zj,       net->diam,   net->a,      net->bf,
                 net->bt,     net->hd_pred, net->hd_slope, net->pump_w, net->choke,  net->is_choked,
                 net->dir,    net->props,   net->ca,       net->cb,     net->rhs,    net->pos_diag,
                 net->pos_ft, net->pos_tf,  net->ap,       net->ai,     net->ax,     net->props_at,
                 net->sc,     net->bk,      net->off,      net->pat_e,  net->pat_ap, net->pat_ai};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    free(net);
}

pcs_status pcs_thnet_boundary_set(pcs_thnet *net, uint32_t volume, double p_pa, double h_j_kg)
{
    if (!net)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_boundary_set: NULL network");
    if (volume >= net->nv || !net->vol[volume].boundary)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_thnet_boundary_set: volumes[%u] is not a boundary volume "
                             "(network of %u volumes)",
                             volume, net->nv);
    if (!(p_pa > 0.0 && p_pa < 1e9) || !isfinite(h_j_kg))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_thnet_boundary_set: volumes[%u] p %g Pa outside (0, 1e9) or h "
                             "%g J/kg not finite",
                             volume, p_pa, h_j_kg);
    net->vol[volume].p_pa = p_pa;
    net->vol[volume].h_j_kg = h_j_kg;
    return PCS_OK;
}

/* The spare pattern (pattern_of's, nnz entries) against the present one:
 * 1 when they differ. */
static int pattern_differs(const pcs_thnet *net, int nnz)
{
    return nnz != net->nnz ||
           memcmp(net->pat_ap, net->ap, ((size_t)net->n + 1) * sizeof *net->ap) != 0 ||
           memcmp(net->pat_ai, net->ai, (size_t)nnz * sizeof *net->ai) != 0;
}

pcs_status pcs_thnet_junction_connect(pcs_thnet *net, pcs_thnet_state *s, uint32_t j, int connected)
{
    if (!net)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_junction_connect: NULL network");
    if (j >= net->nj)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_thnet_junction_connect: junctions[%u]: network of %u junctions",
                             j, net->nj);
    unsigned char off = connected ? 0 : 1;
    if (s)
        s->flow_kg_s[j] = 0.0;
    if (net->off[j] == off)
        return PCS_OK;
    net->off[j] = off;
    net->n_off = off ? net->n_off + 1u : net->n_off - 1u;
    int nnz = pattern_of(net);
    /* Another junction joining the same two volumes leaves the pattern (and
       every other position) as it was: KLU's analysis and pivots stand, and
       the next step refactors as every step does. */
    if (!pattern_differs(net, nnz))
        return PCS_OK;
    pattern_swap(net, nnz);
    klu_free_numeric(&net->numeric, &net->common);
    klu_free_symbolic(&net->symbolic, &net->common);
    return klu_analyze_factor(net, "pcs_thnet_junction_connect");
}

pcs_status pcs_thnet_junction_get(const pcs_thnet *net, uint32_t j, pcs_thnet_junction_def *out)
{
    if (!net || !out || j >= net->nj)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_junction_get: junction %u of %u (or NULL)", j,
                             net ? net->nj : 0);
    *out = net->jun[j];
    return PCS_OK;
}

int pcs_thnet_junction_connected(const pcs_thnet *net, uint32_t j)
{
    return net && j < net->nj && !net->off[j];
}

void pcs_thnet_klu_counts(const pcs_thnet *net, uint64_t *analyses, uint64_t *factors)
{
    if (analyses)
        *analyses = net ? net->n_analyze : 0;
    if (factors)
        *factors = net ? net->n_factor_pattern : 0;
}

uint32_t pcs_thnet_n_volumes(const pcs_thnet *net)
{
    return net ? net->nv : 0;
}

uint32_t pcs_thnet_n_junctions(const pcs_thnet *net)
{
    return net ? net->nj : 0;
}

/* ------------------------------------------------------------------------ */
/* State                                                                     */
/* ------------------------------------------------------------------------ */

size_t pcs_thnet_state_bytes(const pcs_thnet *net)
{
    return net ? (8u * net->nv + net->nj) * sizeof(double) : 0;
}

pcs_status pcs_thnet_state_bind(const pcs_thnet *net, void *mem, size_t bytes, pcs_thnet_state *s)
{
    if (!net || !mem || !s)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_state_bind: NULL argument");
    if (bytes < pcs_thnet_state_bytes(net))
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_state_bind: bytes %zu below the %zu needed",
                             bytes, pcs_thnet_state_bytes(net));
    double *d = mem;
    size_t nv = net->nv;
    s->mass_kg = d;
    s->energy_j = d + nv;
    s->p_pa = d + 2 * nv;
    s->h_j_kg = d + 3 * nv;
    s->t_k = d + 4 * nv;
    s->rho_kg_m3 = d + 5 * nv;
    s->quality = d + 6 * nv;
    s->void_fraction = d + 7 * nv;
    s->flow_kg_s = d + 8 * nv;
    s->scalar = NULL;
    return PCS_OK;
}

static void set_derived(pcs_thnet_state *s, uint32_t i, double p, double h,
                        const pcs_thnet_props *pr)
{
    s->p_pa[i] = p;
    s->h_j_kg[i] = h;
    s->t_k[i] = pr->t_k;
    s->rho_kg_m3[i] = pr->rho_kg_m3;
    s->quality[i] = pr->quality;
    s->void_fraction[i] = pr->alpha;
}

pcs_status pcs_thnet_state_init(const pcs_thnet *net, pcs_thnet_state *s)
{
    if (!net || !s)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_state_init: NULL argument");
    for (uint32_t i = 0; i < net->nv; i++) {
        const pcs_thnet_volume_def *v = &net->vol[i];
        pcs_thnet_props pr;
        pcs_status st = net->eos.props(net->eos.ctx, v->p_pa, v->h_j_kg, &pr);
        if (st != PCS_OK)
            return pcs_error_set(PCS_E_NUMERIC,
                                 "pcs_thnet_state_init: volumes[%u] (p %g Pa, h %g "
                                 "J/kg): %s",
                                 i, v->p_pa, v->h_j_kg, pcs_last_error());
        s->mass_kg[i] = pr.rho_kg_m3 * v->volume_m3;
        s->energy_j[i] = s->mass_kg[i] * (v->h_j_kg - v->p_pa / pr.rho_kg_m3);
        set_derived(s, i, v->p_pa, v->h_j_kg, &pr);
    }
    for (uint32_t k = 0; k < net->nj; k++)
        s->flow_kg_s[k] = net->jun[k].flow_kg_s;
    return PCS_OK;
}

pcs_status pcs_thnet_state_update(const pcs_thnet *net, pcs_thnet_state *s)
{
    if (!net || !s)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_state_update: NULL argument");
    return pcs_thnet_update(net, s, 0);
}

pcs_status pcs_thnet_update(const pcs_thnet *net, pcs_thnet_state *s, int keep)
{
    for (uint32_t i = 0; i < net->nv; i++) {
        const pcs_thnet_volume_def *v = &net->vol[i];
        pcs_thnet_props pr;
        double p = v->p_pa, h = v->h_j_kg;
        pcs_status st;
        if (v->boundary) {
            st = net->eos.props(net->eos.ctx, p, h, &pr);
        } else {
            if (!(s->mass_kg[i] > 0.0) || !isfinite(s->energy_j[i]))
                return pcs_error_set(PCS_E_NUMERIC,
                                     "thnet: volumes[%u]: mass %g kg, energy %g J: mass must be "
                                     "positive and energy finite",
                                     i, s->mass_kg[i], s->energy_j[i]);
            st = pcs_thnet_state_rho_u(&net->eos, s->mass_kg[i] / v->volume_m3,
                                       s->energy_j[i] / s->mass_kg[i], s->p_pa[i], &p, &h, &pr);
        }
        if (st != PCS_OK)
            return pcs_error_set(PCS_E_NUMERIC, "thnet: volumes[%u]: %s", i, pcs_last_error());
        set_derived(s, i, p, h, &pr);
        if (keep) {
            net->props[i] = pr;
            net->props_at[2 * i] = p;
            net->props_at[2 * i + 1] = h;
        }
    }
    return PCS_OK;
}

pcs_status pcs_thnet_volume_check(const pcs_thnet *net, uint32_t volume, double mass_kg,
                                  double energy_j, double p_guess_pa)
{
    if (!net)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_volume_check: NULL network");
    if (volume >= net->nv)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_volume_check: volume %u of %u", volume,
                             net->nv);
    const pcs_thnet_volume_def *v = &net->vol[volume];
    if (v->boundary)
        return PCS_OK;
    if (!(mass_kg > 0.0) || !isfinite(energy_j))
        return pcs_error_set(PCS_E_NUMERIC,
                             "mass %g kg, energy %g J: mass must be positive and "
                             "energy finite",
                             mass_kg, energy_j);
    double p, h;
    pcs_thnet_props pr;
    return pcs_thnet_state_rho_u(&net->eos, mass_kg / v->volume_m3, energy_j / mass_kg, p_guess_pa,
                                 &p, &h, &pr);
}

void pcs_thnet_totals(const pcs_thnet *net, const pcs_thnet_state *s, double *mass_kg,
                      double *energy_j)
{
    double m = 0.0, e = 0.0;
    for (uint32_t i = 0; net && s && i < net->nv; i++) {
        if (net->vol[i].boundary)
            continue;
        m += s->mass_kg[i];
        e += s->energy_j[i];
    }
    if (mass_kg)
        *mass_kg = m;
    if (energy_j)
        *energy_j = e;
}

pcs_status pcs_thnet_junction_choke(const pcs_thnet *net, uint32_t j, pcs_thnet_choke *out,
                                    int *choked)
{
    if (!net || !out || !choked)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_junction_choke: NULL argument");
    if (j >= net->nj)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_junction_choke: junction %u of %u", j,
                             net->nj);
    *out = net->choke[j];
    *choked = net->is_choked[j];
    return PCS_OK;
}
