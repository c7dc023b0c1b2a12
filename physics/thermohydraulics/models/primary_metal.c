/**
 * @file primary_metal.c
 * @brief The primary's metal (pcsim/primary.h "Metal" and "Heat"): the
 *        [TYP] deck's vessel heat structures on the network's volumes and
 *        the SG tube walls, their films, steps and load check.
 *
 * The structures are the deck's cards as written (British units, converted
 * here; ft 0.3048 m): geometry card 1CCCG000 (type, left coordinate), mesh
 * 1CCCG101 (right coordinate), boundary cards 1CCCG501/601 (volumes, and the
 * height of a cylinder, the fraction of a sphere or the area of a slab).
 * Its vessel is the whole four-loop vessel (the loop coalescing of the deck
 * concerns the loops), so nothing is scaled. The deck's own meshes are 2
 * intervals per wall; here a wall gets max(2, ceil(thickness /
 * metal_dx_max_m)) intervals (pcsim/primary.h, metal_dx_max_m). Which of our
 * volumes a deck volume belongs to follows the nodalisation (pcsim/primary.h):
 * inlet annulus 300-310 and downcomer 315 are our downcomer, the core 335
 * and its bypass 320 our core volumes, lower plenum 322-330, upper plenum
 * 340-350 and upper head 355-356.
 * Nothing here allocates after the build.
 */
#include <math.h>
#include <string.h>

#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/thermal/kernels/heat_wall.h"
#include "physics/thermohydraulics/models/primary_internal.h"
#include "physics/thermohydraulics/models/th_build.h"

#define FT 0.3048
#define FT2 (FT * FT)

/* Which water a face sees. */
enum { SIDE_NONE, SIDE_DC, SIDE_LP, SIDE_CORE, SIDE_UP, SIDE_UH };

typedef struct wall_row {
    pcs_heat_wall_geom geom;
    double x_a_ft, x_b_ft; /* left and right coordinates (1CCCG000 word 5, 1CCCG101 word 2) */
    double size;           /* cylinder height ft, sphere fraction, slab area ft2 */
    int side_a, side_b;
} wall_row;

/* [TYP] vessel heat structures (scenarios/README.md "Metal"). A structure
 * with a core face is cut in n_core equal heights (the deck's 6 axial
 * structures span the core, 13.375 ft = 4.077 m, our core height). */
static const wall_row WALLS[] = {
    /* 1300: inlet annulus vessel wall, 6 structures (13000501-506) */
    {PCS_HEAT_WALL_CYLINDER, 7.125, 8.0208, 2.250 + 2.08329 + 2.08333 + 2 * 2.45833 + 1.5, SIDE_DC,
     SIDE_NONE},
    /* 1315: thermal shield, both faces in the downcomer (13150501-505, 601-605) */
    {PCS_HEAT_WALL_CYLINDER, 6.6042, 6.8333, 2.1353 + 4 * 2.18328 + 2.50627 + 1.4590 + 3.33328,
     SIDE_DC, SIDE_DC},
    /* 1316: downcomer vessel wall (13160501-505) */
    {PCS_HEAT_WALL_CYLINDER, 7.2083, 7.9271, 2.1353 + 4 * 2.18328 + 2.50627 + 1.4590 + 3.33328,
     SIDE_DC, SIDE_NONE},
    /* 1320: core barrel beside the core: bypass 320 | downcomer (13200501-503, 601-603) */
    {PCS_HEAT_WALL_CYLINDER, 6.1667, 6.3542, 2.1353 + 4 * 2.18329 + 2.50627, SIDE_CORE, SIDE_DC},
    /* 1335: core baffle: core 335 | bypass 320 (13350501-503, 601-606) */
    {PCS_HEAT_WALL_CYLINDER, 6.7052, 6.7989, 2.50627 + 4 * 2.18329 + 2.1353, SIDE_CORE, SIDE_CORE},
    /* 1323: lower head, a hemispherical shell (13230501 factor 0.5) */
    {PCS_HEAT_WALL_SPHERE, 7.35, 7.8136, 0.5, SIDE_LP, SIDE_NONE},
    /* 1322: lower plenum vessel wall (13220501) */
    {PCS_HEAT_WALL_CYLINDER, 7.35, 7.8136, 1.81537, SIDE_LP, SIDE_NONE},
    /* 1325: core barrel in the lower plenum: 325, 330 | downcomer (13250501-502) */
    {PCS_HEAT_WALL_CYLINDER, 6.1667, 6.3542, 3.33328 + 1.4590, SIDE_LP, SIDE_DC},
    /* 1327: lower plenum internals, slab, area on 13270601-604 */
    {PCS_HEAT_WALL_SLAB, 0.0, 0.24944, 2 * 267.4 + 493.0 + 239.0, SIDE_NONE, SIDE_LP},
    /* 1350: core barrel in the upper plenum: 340-350 | inlet annulus (13500501-506) */
    {PCS_HEAT_WALL_CYLINDER, 6.1667, 6.3542, 2.24999 + 2.08329 + 2.08333 + 2 * 2.45833 + 1.49999,
     SIDE_UP, SIDE_DC},
    /* 1351: upper plenum internals, slab (13510601-603: 775.1 + 2 x 521.0 + 3 x 667.333) */
    {PCS_HEAT_WALL_SLAB, 0.0, 0.0495, 775.1 + 2 * 521.0 + 3 * 667.333, SIDE_NONE, SIDE_UP},
    /* 1355: upper head, a hemispherical shell (13550501 factor 0.5) */
    {PCS_HEAT_WALL_SPHERE, 7.1443, 7.7657, 0.5, SIDE_UH, SIDE_NONE},
    /* 1357: upper head vessel wall, 2 structures (13570501) */
    {PCS_HEAT_WALL_CYLINDER, 7.1443, 7.7657, 2 * 1.3485, SIDE_UH, SIDE_NONE},
    /* 1356: upper head internals, slab (13560601-602: 4 x 125.325) */
    {PCS_HEAT_WALL_SLAB, 0.0, 0.472, 4 * 125.325, SIDE_NONE, SIDE_UH},
};
#define N_WALL_ROWS (sizeof WALLS / sizeof WALLS[0])

/* The plenums' and head's flow areas and hydraulic diameters for their
 * films ([TYP] 3220101-102 branch 322, 3400101-102 volume 340, 3550101-102
 * branch 355), ft2 and ft. */
#define LP_AREA_FT2 130.0
#define LP_DH_FT 2.30
#define UP_AREA_FT2 113.0
#define UP_DH_FT 1.67
#define UH_AREA_FT2 70.9
#define UH_DH_FT 1.3

/* Downcomer hydraulic diameter (primary_build.c PRI_D_DOWNCOMER). */
#define DC_DH_M 0.5095

/* Films: 0 downcomer, 1 lower plenum, 2 upper plenum, 3 upper head, 4 + k
 * core volume k. */
enum { FILM_DC, FILM_LP, FILM_UP, FILM_UH, FILM_CORE0 };

static uint32_t find_junction(const pcs_primary *pr, uint32_t from, uint32_t to)
{
    for (uint32_t k = 0; k < pr->nj; k++)
        if (pr->j_from[k] == from && pr->j_to[k] == to)
            return k;
    return UINT32_MAX;
}

/* Dittus-Boelter at the reference state on flow area a and diameter d. */
static primary_film film_of(double k, double mu, double pr_num, double a, double d, uint32_t j)
{
    primary_film f;
    f.c_flow = 0.023 * (k / d) * pcs_pow(pr_num, 0.4) * pcs_pow(d / (a * mu), 0.8);
    f.h_laminar = 4.36 * k / d;
    f.junction = j;
    return f;
}

static pcs_status make_films(pcs_world *w, pcs_primary *pr)
{
    const pcs_primary_def *d = &pr->def;
    double mu, k, prn;
    pcs_status st = pcs_primary_ref_film_props(d, &mu, &k, &prn);
    if (st != PCS_OK)
        return st;
    pr->n_films = FILM_CORE0 + pr->nc;
    pr->films = pcs_world_alloc(w, pr->n_films * sizeof *pr->films);
    if (!pr->films)
        return pcs_error_set(PCS_E_NOMEM, "primary: out of memory");
    uint32_t top = pr->v_core0 + pr->nc - 1u;
    uint32_t j[FILM_CORE0] = {find_junction(pr, pr->v_dc, pr->v_lp), pr->j_core_in,
                              find_junction(pr, top, pr->v_up),
                              find_junction(pr, pr->v_up, pr->v_uh)};
    for (int i = 0; i < FILM_CORE0; i++)
        if (j[i] == UINT32_MAX)
            return pcs_error_set(PCS_E_STATE, "primary %s: metal: vessel junction %d not found",
                                 pr->unit, i);
    pr->films[FILM_DC] = film_of(k, mu, prn, d->a_downcomer_m2, DC_DH_M, j[0]);
    pr->films[FILM_LP] = film_of(k, mu, prn, LP_AREA_FT2 * FT2, LP_DH_FT * FT, j[1]);
    pr->films[FILM_UP] = film_of(k, mu, prn, UP_AREA_FT2 * FT2, UP_DH_FT * FT, j[2]);
    pr->films[FILM_UH] = film_of(k, mu, prn, UH_AREA_FT2 * FT2, UH_DH_FT * FT, j[3]);
    for (uint32_t c = 0; c < pr->nc; c++) /* the junction into core volume c */
        pr->films[FILM_CORE0 + c] = film_of(
            k, mu, prn, d->a_core_m2, d->d_core_m,
            c == 0 ? pr->j_core_in : find_junction(pr, pr->v_core0 + c - 1u, pr->v_core0 + c));
    return PCS_OK;
}

static uint32_t side_volume(const pcs_primary *pr, int side, uint32_t c)
{
    switch (side) {
    case SIDE_DC:
        return pr->v_dc;
    case SIDE_LP:
        return pr->v_lp;
    case SIDE_CORE:
        return pr->v_core0 + c;
    case SIDE_UP:
        return pr->v_up;
    case SIDE_UH:
        return pr->v_uh;
    }
    return UINT32_MAX;
}

static uint32_t side_film(int side, uint32_t c)
{
    switch (side) {
    case SIDE_DC:
        return FILM_DC;
    case SIDE_LP:
        return FILM_LP;
    case SIDE_CORE:
        return FILM_CORE0 + c;
    case SIDE_UP:
        return FILM_UP;
    case SIDE_UH:
        return FILM_UH;
    }
    return UINT32_MAX;
}

static uint32_t intervals_of(const pcs_primary *pr, const wall_row *r)
{
    double n = ceil((r->x_b_ft - r->x_a_ft) * FT / pr->def.metal_dx_max_m);
    return n < 2.0 ? 2u : (uint32_t)n;
}

static int has_core(const wall_row *r)
{
    return r->side_a == SIDE_CORE || r->side_b == SIDE_CORE;
}

/* Count walls, nodes and conductances (pass 0) or mesh them (pass 1). */
static pcs_status lay_out(pcs_primary *pr, int pass, uint32_t *n_walls, uint32_t *n_nodes,
                          uint32_t *n_cond, uint32_t *widest)
{
    const pcs_primary_def *d = &pr->def;
    uint32_t nw = 0, nn = 0, nc = 0, wide = 1;
    for (size_t i = 0; d->metal_model == PCS_PRIMARY_METAL_TYP && i < N_WALL_ROWS; i++) {
        const wall_row *r = &WALLS[i];
        uint32_t pieces = has_core(r) ? pr->nc : 1u, n_int = intervals_of(pr, r);
        double size = r->geom == PCS_HEAT_WALL_SLAB       ? r->size * FT2
                      : r->geom == PCS_HEAT_WALL_CYLINDER ? r->size * FT / pieces
                                                          : r->size;
        for (uint32_t c = 0; c < pieces; c++, nw++) {
            if (pass == 1) {
                primary_wall *wl = &pr->walls[nw];
                wl->node0 = nn;
                wl->n = n_int + 1u;
                wl->cond0 = nc;
                wl->vol_a = side_volume(pr, r->side_a, c);
                wl->vol_b = side_volume(pr, r->side_b, c);
                wl->film_a = side_film(r->side_a, c);
                wl->film_b = side_film(r->side_b, c);
                pcs_status st =
                    pcs_heat_wall_mesh(r->geom, r->x_a_ft * FT, r->x_b_ft * FT, size, n_int,
                                       d->steel_k_w_mk, d->steel_rho_c_j_m3k, pr->metal_cap + nn,
                                       pr->metal_cond + nc, &wl->area_a_m2, &wl->area_b_m2);
                if (st != PCS_OK)
                    return st;
            }
            nn += n_int + 1u;
            nc += n_int;
            wide = n_int + 1u > wide ? n_int + 1u : wide;
        }
    }
    *n_walls = nw;
    *n_nodes = nn;
    *n_cond = nc;
    *widest = wide;
    return PCS_OK;
}

/* The tube walls: one node per tube volume holding its share of the tube
 * metal, pi/4 (D_o^2 - D_i^2) L N / n_sg_tubes; with PCS_PRIMARY_METAL_NONE
 * no heat capacity (the wall is then always at its steady profile). */
static void tube_walls(pcs_primary *pr)
{
    const pcs_primary_def *d = &pr->def;
    double d_o = d->sg_tube_od_m, d_i = d_o - 2.0 * d->sg_tube_wall_m;
    double cap = d->metal_model == PCS_PRIMARY_METAL_TYP
                     ? d->sg_wall_rho_c_j_m3k * 0.25 * PCS_TH_PI * (d_o * d_o - d_i * d_i) *
                           d->sg_tube_length_m * d->sg_tube_count / pr->ns
                     : 0.0;
    for (uint32_t e = 0; e < pr->nl * pr->ns; e++)
        pr->metal_cap[pr->tube0 + e] = cap;
    pr->tube_r_half = 0.25 * d_o * pcs_log(d_o / d_i) / d->sg_wall_k_w_mk;
}

pcs_status pcs_primary_metal_build(pcs_world *w, pcs_primary *pr)
{
    uint32_t nw, nn, nc, wide;
    pcs_status st = make_films(w, pr);
    if (st == PCS_OK)
        st = lay_out(pr, 0, &nw, &nn, &nc, &wide);
    if (st != PCS_OK)
        return st;
    pr->n_walls = nw;
    pr->tube0 = nn;
    pr->n_metal = nn + pr->nl * pr->ns;
    pr->walls = nw ? pcs_world_alloc(w, nw * sizeof *pr->walls) : NULL;
    pr->metal_cap = pcs_world_alloc(w, pr->n_metal * sizeof(double));
    pr->metal_cond = pcs_world_alloc(w, (nc ? nc : 1u) * sizeof(double));
    pr->metal_scratch = pcs_world_alloc(w, 2u * wide * sizeof(double));
    pr->metal_w = pcs_world_alloc(w, pr->nv * sizeof(double));
    if ((nw && !pr->walls) || !pr->metal_cap || !pr->metal_cond || !pr->metal_scratch ||
        !pr->metal_w)
        return pcs_error_set(PCS_E_NOMEM, "primary: out of memory");
    st = lay_out(pr, 1, &nw, &nn, &nc, &wide);
    if (st == PCS_OK)
        tube_walls(pr);
    return st;
}

void pcs_primary_metal_fill(const pcs_primary *pr, primary_view *v, double t_k)
{
    for (uint32_t i = 0; i < pr->n_metal; i++)
        v->metal[i] = t_k;
}

static double film_h(const pcs_primary *pr, const primary_view *v, uint32_t f)
{
    const primary_film *fm = &pr->films[f];
    return fmax(fm->c_flow * pcs_pow(fabs(v->st.flow_kg_s[fm->junction]), 0.8), fm->h_laminar);
}

void pcs_primary_metal_step(pcs_primary *pr, primary_view *v, double inv_dt)
{
    memset(pr->metal_w, 0, pr->nv * sizeof *pr->metal_w);
    double in = 0.0;
    for (uint32_t i = 0; i < pr->n_walls; i++) {
        const primary_wall *wl = &pr->walls[i];
        double ga = 0.0, gb = 0.0, ta = 0.0, tb = 0.0, qa, qb;
        if (wl->vol_a != UINT32_MAX) {
            ga = film_h(pr, v, wl->film_a) * wl->area_a_m2;
            ta = v->st.t_k[wl->vol_a];
        }
        if (wl->vol_b != UINT32_MAX) {
            gb = film_h(pr, v, wl->film_b) * wl->area_b_m2;
            tb = v->st.t_k[wl->vol_b];
        }
        pcs_heat_wall_step(wl->n, pr->metal_cap + wl->node0, pr->metal_cond + wl->cond0, ga, ta, gb,
                           tb, inv_dt, v->metal + wl->node0, pr->metal_scratch, &qa, &qb);
        if (wl->vol_a != UINT32_MAX)
            pr->metal_w[wl->vol_a] -= qa;
        if (wl->vol_b != UINT32_MAX)
            pr->metal_w[wl->vol_b] -= qb;
        in += qa + qb;
    }
    for (uint32_t i = 0; i < pr->nv; i++)
        pr->heat_w[i] += pr->metal_w[i];
    pr->metal_in_w += in;
}

void pcs_primary_tube_wall_step(pcs_primary *pr, primary_view *v, uint32_t l, uint32_t k,
                                double t_s, double inv_dt, double *q_p, double *q_s)
{
    const pcs_primary_def *d = &pr->def;
    uint32_t i = loop_vol(pr, l, LOOP_TUBE0 + k), e = pr->tube0 + l * pr->ns + k;
    double r_in = pcs_primary_sg_r_inside(pr, v->st.flow_kg_s[pr->j_tube[l * pr->ns + k]]);
    double gp = pr->sg_area_per_vol / (r_in + pr->tube_r_half);
    double gs = pr->sg_area_per_vol / (pr->tube_r_half + 1.0 / d->sg_h_secondary_w_m2k);
    double qa, qb, scratch[2];
    pcs_heat_wall_step(1u, pr->metal_cap + e, NULL, gp, v->st.t_k[i], gs, t_s, inv_dt, v->metal + e,
                       scratch, &qa, &qb);
    *q_p = qa;
    *q_s = -qb;
    pr->metal_in_w += qa + qb;
}

pcs_status pcs_primary_metal_check(const pcs_world *w, const pcs_primary *pr, const double *t_k)
{
    pcs_status st = PCS_OK;
    for (uint32_t i = 0; st == PCS_OK && i < pr->n_metal; i++)
        st = pcs_th_chk(w, pr->s.metal, t_k, i,
                        i < pr->tube0 ? "vessel metal temperature K" : "SG tube wall temperature K",
                        273.15, 1073.15, 0);
    return st;
}

uint32_t pcs_primary_metal_nodes(const pcs_primary *pr, uint32_t *n_tubes0)
{
    if (!pr)
        return 0;
    if (n_tubes0)
        *n_tubes0 = pr->tube0;
    return pr->n_metal;
}

double pcs_primary_metal_energy(pcs_world *w, const pcs_primary *pr)
{
    if (!w || !pr)
        return 0.0;
    const double *t = pcs_store_data(w, pr->s.metal);
    return pcs_heat_wall_energy(pr->n_metal, pr->metal_cap, t);
}
