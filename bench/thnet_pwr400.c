/**
 * @file thnet_pwr400.c
 * @brief The benchmarks' 400-volume two-phase network (thnet_pwr400.h).
 *
 * Topology (a 4-loop PWR primary of the size of the retired constant-density
 * model's benchmark, not a sourced plant model: the figures are
 * order-of-magnitude, chosen so the network runs at PWR conditions with every
 * volume's material Courant number below 1 at dt = 0.05 s):
 *  - volume 0: lower plenum (20 m3, z 0.5); 1-10: the core, ten 2.6 m3 nodes
 *    (z 1.2-4.8, flow area 4.75 m2, hydraulic diameter 12 mm, Haaland
 *    friction and K 0.7 per grid), 3411 MW in equal parts; 11: upper plenum
 *    (20 m3, z 5.5);
 *  - 4 loops of 96 volumes of 0.8 m3: hot leg 10 (z 5.5, 0.43 m2), steam
 *    generator 64 (32 up from z 7 to 17 and 32 down, 2 m2 of 19.7 mm tubes,
 *    each node cooled by UA 0.45 MW/K towards a 557.9 K secondary, i.e.
 *    saturated at 6.89 MPa), crossover 12 (down to z -1 and up to 4), the
 *    pump as a head input on the crossover-cold leg junction (0.7 MPa), cold
 *    leg 10 (z 5.5) into the lower plenum;
 *  - surge line of 3 volumes (0.3 m3, z 6.5-9.5, 0.064 m2) from loop 0's
 *    hot leg to the pressurizer: 50 m3 at z 14 holding a saturated mixture
 *    at 15.5 MPa with void fraction 0.5.
 * 400 volumes, 11 + 4 x 97 + 4 = 403 junctions. Every volume starts at
 * 587 K (the loop mean at this power, so the pressurizer takes little
 * insurge while the loops settle) and roughly hydrostatic pressure.
 */
#include "bench/thnet_pwr400.h"

#include <stdlib.h>
#include <string.h>

#include "pcsim/water.h"

#define THB_LOOPS 4u
#define THB_CORE 10u
#define THB_HOT 10u
#define THB_SG 64u
#define THB_XO 12u
#define THB_COLD 10u
#define THB_PER_LOOP (THB_HOT + THB_SG + THB_XO + THB_COLD) /* 96 */
#define THB_LP 0u
#define THB_UP (THB_CORE + 1u)
#define THB_LOOP0 (THB_UP + 1u)
#define THB_SURGE (THB_LOOP0 + THB_LOOPS * THB_PER_LOOP) /* 396 */
#define THB_PZR (THB_SURGE + 3u)                         /* 399 */
#define THB_P0 15.5e6
#define THB_T0 587.0
#define THB_T_SEC 557.9   /* T_sat at 6.89 MPa, K */
#define THB_UA 0.45e6     /* W/K per SG node */
#define THB_Q_CORE 3411e6 /* W */
#define THB_HEAD 0.7e6    /* Pa per pump */
#define THB_DT 0.05

/* Junction index of loop l's k-th junction (97 per loop after the core's 11). */
static uint32_t thb_lj(uint32_t l, uint32_t k)
{
    return THB_CORE + 1u + l * (THB_PER_LOOP + 1u) + k;
}

static double sg_z(uint32_t k)
{
    const double f = ((double)(k % 32u) + 0.5) / 32.0;
    return k < 32u ? 7.0 + 10.0 * f : 17.0 - 10.0 * f;
}

static double xo_z(uint32_t k)
{
    static const double z[THB_XO] = {5.0,  3.0, 1.0, -0.5, -1.0, -1.0,
                                     -0.5, 0.5, 1.5, 2.5,  3.5,  4.0};
    return z[k];
}

static void volumes(pcs_thnet_volume_def *v, double h0, double h_pzr)
{
    for (uint32_t i = 0; i < THB_VOLUMES; i++) {
        pcs_thnet_volume_default(&v[i]);
        v[i].volume_m3 = 0.8;
        v[i].diameter_m = 0.74;
        v[i].elevation_m = 5.5;
        v[i].h_j_kg = h0;
    }
    v[THB_LP].volume_m3 = 20.0, v[THB_LP].elevation_m = 0.5;
    v[THB_UP].volume_m3 = 20.0, v[THB_UP].elevation_m = 5.5;
    for (uint32_t k = 0; k < THB_CORE; k++) {
        v[1u + k].volume_m3 = 2.6;
        v[1u + k].diameter_m = 0.012;
        v[1u + k].elevation_m = 1.2 + 0.4 * (double)k;
    }
    for (uint32_t l = 0; l < THB_LOOPS; l++) {
        const uint32_t b = THB_LOOP0 + l * THB_PER_LOOP;
        for (uint32_t k = 0; k < THB_SG; k++) {
            v[b + THB_HOT + k].elevation_m = sg_z(k);
            v[b + THB_HOT + k].diameter_m = 0.0197;
        }
        for (uint32_t k = 0; k < THB_XO; k++)
            v[b + THB_HOT + THB_SG + k].elevation_m = xo_z(k);
    }
    for (uint32_t k = 0; k < 3u; k++) {
        v[THB_SURGE + k].volume_m3 = 0.3;
        v[THB_SURGE + k].diameter_m = 0.286;
        v[THB_SURGE + k].elevation_m = 6.5 + 1.5 * (double)k;
    }
    v[THB_PZR].volume_m3 = 50.0, v[THB_PZR].elevation_m = 14.0, v[THB_PZR].diameter_m = 2.1;
    v[THB_PZR].h_j_kg = h_pzr;
    for (uint32_t i = 0; i < THB_VOLUMES; i++) /* roughly hydrostatic below the pressurizer */
        v[i].p_pa = THB_P0 + 720.0 * PCS_THNET_G * (14.0 - v[i].elevation_m);
    v[THB_PZR].p_pa = THB_P0;
}

static void junction(pcs_thnet_junction_def *j, uint32_t from, uint32_t to, double area, double d,
                     double len, double k, double w)
{
    pcs_thnet_junction_default(j);
    j->from = from, j->to = to, j->area_m2 = area, j->diameter_m = d, j->length_m = len;
    j->form_loss = k, j->roughness_m = 4.5e-5, j->flow_kg_s = w;
}

static void junctions(pcs_thnet_junction_def *j)
{
    const double w_loop = 4400.0, w_core = THB_LOOPS * w_loop;
    junction(&j[0], THB_LP, 1u, 4.75, 0.012, 0.4, 1.5, w_core);
    for (uint32_t k = 1; k < THB_CORE; k++)
        junction(&j[k], k, k + 1u, 4.75, 0.012, 0.4, 0.7, w_core);
    junction(&j[THB_CORE], THB_CORE, THB_UP, 4.75, 0.012, 0.4, 1.5, w_core);
    for (uint32_t l = 0; l < THB_LOOPS; l++) {
        const uint32_t b = THB_LOOP0 + l * THB_PER_LOOP, sg = b + THB_HOT, xo = sg + THB_SG;
        const uint32_t cl = xo + THB_XO;
        uint32_t k = 0;
        junction(&j[thb_lj(l, k++)], THB_UP, b, 0.43, 0.74, 1.0, 0.5, w_loop);
        for (uint32_t i = 0; i + 1u < THB_HOT; i++)
            junction(&j[thb_lj(l, k++)], b + i, b + i + 1u, 0.43, 0.74, 0.8, 0.0, w_loop);
        junction(&j[thb_lj(l, k++)], b + THB_HOT - 1u, sg, 0.43, 0.74, 2.0, 1.0, w_loop);
        for (uint32_t i = 0; i + 1u < THB_SG; i++)
            junction(&j[thb_lj(l, k++)], sg + i, sg + i + 1u, 2.0, 0.0197, 0.6,
                     i == THB_SG / 2u - 1u ? 0.5 : 0.0, w_loop);
        junction(&j[thb_lj(l, k++)], sg + THB_SG - 1u, xo, 0.43, 0.79, 2.0, 1.0, w_loop);
        for (uint32_t i = 0; i + 1u < THB_XO; i++)
            junction(&j[thb_lj(l, k++)], xo + i, xo + i + 1u, 0.49, 0.79, 1.0, 0.0, w_loop);
        junction(&j[thb_lj(l, k++)], xo + THB_XO - 1u, cl, 0.38, 0.70, 3.0, 0.5, w_loop); /* pump */
        for (uint32_t i = 0; i + 1u < THB_COLD; i++)
            junction(&j[thb_lj(l, k++)], cl + i, cl + i + 1u, 0.38, 0.70, 0.8, 0.0, w_loop);
        junction(&j[thb_lj(l, k++)], cl + THB_COLD - 1u, THB_LP, 0.38, 0.70, 3.0, 1.0, w_loop);
    }
    uint32_t s = thb_lj(THB_LOOPS, 0); /* 399 */
    junction(&j[s], THB_LOOP0 + 5u, THB_SURGE, 0.064, 0.286, 5.0, 0.5, 0.0);
    for (uint32_t k = 0; k < 3u; k++)
        junction(&j[s + 1u + k], THB_SURGE + k, THB_SURGE + k + 1u, 0.064, 0.286, 5.0,
                 k == 2u ? 1.0 : 0.0, 0.0);
}

/* The pressurizer's saturated mixture at THB_P0 with void fraction 0.5. */
static pcs_status pzr_h(double *h)
{
    double t = 0.0;
    pcs_water_props f, g;
    pcs_status st = pcs_water_tsat(THB_P0, &t);
    if (st == PCS_OK)
        st = pcs_if97_region1(THB_P0, t, &f);
    if (st == PCS_OK)
        st = pcs_if97_region2(THB_P0, t, &g);
    if (st != PCS_OK)
        return st;
    const double x = g.rho_kg_m3 / (g.rho_kg_m3 + f.rho_kg_m3); /* alpha = 0.5 */
    *h = f.h_j_kg + x * (g.h_j_kg - f.h_j_kg);
    return PCS_OK;
}

static pcs_status build(thb_net *x)
{
    double h0 = 0.0, hp = 0.0;
    pcs_status st = pcs_water_h_pt(THB_P0, THB_T0, &h0);
    if (st == PCS_OK)
        st = pzr_h(&hp);
    pcs_thnet_volume_def *v = calloc(THB_VOLUMES, sizeof *v);
    pcs_thnet_junction_def *j = calloc(THB_JUNCTIONS, sizeof *j);
    if (st == PCS_OK && (!v || !j))
        st = pcs_error_set(PCS_E_NOMEM, "thb_create: out of memory");
    if (st == PCS_OK) {
        volumes(v, h0, hp);
        junctions(j);
        pcs_thnet_def d;
        pcs_thnet_default(&d);
        d.volumes = v, d.n_volumes = THB_VOLUMES;
        d.junctions = j, d.n_junctions = THB_JUNCTIONS;
        d.eos = pcs_thnet_eos_table(x->table);
        st = pcs_thnet_create(&d, &x->net);
    }
    free(v);
    free(j);
    if (st != PCS_OK)
        return st;
    const size_t bytes = pcs_thnet_state_bytes(x->net);
    x->mem = malloc(bytes);
    if (!x->mem)
        return pcs_error_set(PCS_E_NOMEM, "thb_create: out of memory");
    st = pcs_thnet_state_bind(x->net, x->mem, bytes, &x->s);
    return st == PCS_OK ? pcs_thnet_state_init(x->net, &x->s) : st;
}

int thb_create(thb_net *x, pcs_water_ph_table *table, uint32_t settle_steps)
{
    memset(x, 0, sizeof *x);
    x->table = table;
    if (!table) {
        pcs_water_ph_table_def c;
        pcs_water_ph_table_default(&c);
        if (pcs_water_ph_table_create(&c, &x->table) != PCS_OK)
            return -1;
        x->own_table = 1;
    }
    x->in.heat_w = x->heat;
    x->in.pump_dp_pa = x->pump;
    for (uint32_t l = 0; l < THB_LOOPS; l++)
        x->pump[thb_lj(l, THB_HOT + THB_SG + THB_XO)] = THB_HEAD;
    for (uint32_t k = 0; k < THB_CORE; k++)
        x->heat[1u + k] = THB_Q_CORE / THB_CORE;
    pcs_status st = build(x);
    for (uint32_t n = 0; st == PCS_OK && n < settle_steps; n++)
        st = thb_step(x);
    if (st != PCS_OK) {
        thb_destroy(x);
        return -1;
    }
    return 0;
}

pcs_status thb_step(thb_net *x)
{
    for (uint32_t l = 0; l < THB_LOOPS; l++) {
        const uint32_t sg = THB_LOOP0 + l * THB_PER_LOOP + THB_HOT;
        for (uint32_t k = 0; k < THB_SG; k++)
            x->heat[sg + k] = -THB_UA * (x->s.t_k[sg + k] - THB_T_SEC);
    }
    x->steps++;
    return pcs_thnet_step(x->net, &x->s, &x->in, THB_DT, &x->last);
}

void thb_destroy(thb_net *x)
{
    pcs_thnet_destroy(x->net);
    free(x->mem);
    if (x->own_table)
        pcs_water_ph_table_destroy(x->table);
    memset(x, 0, sizeof *x);
}

void thb_summary(const thb_net *x, double *loop_flow, double *p_pzr, double *alpha_pzr,
                 double *t_core_out)
{
    *loop_flow = x->s.flow_kg_s[thb_lj(0, 0)];
    *p_pzr = x->s.p_pa[THB_PZR];
    *alpha_pzr = x->s.void_fraction[THB_PZR];
    *t_core_out = x->s.t_k[THB_CORE];
}
