/**
 * @file test_thnet.c
 * @brief Thermal-hydraulic network kernel (pcsim/thnet.h) against the exact
 *        reference problems of tests/refdata/th_reference.md (derived from
 *        IAPWS-IF97; rows read from tests/refdata/th_reference.csv), each
 *        family twice: through the exact IF97 property path (suite thnet_ref)
 *        and through the (p, h) tables of pcsim/water_ph.h (suite
 *        thnet_table, pcs_thnet_eos_table on the default table).
 *
 * IF97 path: the tolerances th_reference.md section 6 suggests for a model
 * that evaluates IF97 to 1e-9 and inverts it exactly, except the blowdown,
 * whose error is the network's own time stepping (stated and measured
 * there).
 *
 * Table path: the same tolerances plus the table's contribution, derived
 * per row from the bounds stated in water_ph.h (PCS_WATER_PH_TABLE_*, the
 * R3_* ones from 16.529 MPa up) and the exact derivatives at the reference
 * state; each family's comment gives its derivation. The common step: the
 * network's state is (M, U) and its pressure the inversion of the table's
 * rho(p, h) at rho = M/V along h = u + p/rho. A table density error
 * |d rho| <= e_rho rho moves that pressure by at most
 *   dp_b = e_rho rho / (drho/dp)_u,   (drho/dp)_u = drho/dp + drho/dh / rho,
 * and every other quantity by its derivative along the same line times
 * dp_b, plus its own table error. Each derived term is doubled: the
 * propagation is linearised, and independent bounds are added.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcsim/thnet.h"
#include "pcsim/water.h"
#include "pcsim/water_ph.h"
#include "tests/alloc_count.h"

/* ------------------------------------------------------------------------ */
/* The property path under test                                              */
/* ------------------------------------------------------------------------ */

/* IF97 region 1/3 boundary at the saturation line (R7-97): the table's R3
   bounds hold from here up. */
#define PS13_PA 16.529164252604481e6

static pcs_thnet_eos g_eos;         /* what net_make uses */
static pcs_water_ph_table *g_table; /* the default table, built once per test process */

/* Select the exact path (0) or the tables (1) for the networks that follow. */
static void use_eos(int table)
{
    if (!table) {
        g_eos = pcs_thnet_eos_if97();
        return;
    }
    if (!g_table) {
        pcs_water_ph_table_def c;
        cr_assert_eq(pcs_water_ph_table_default(&c), PCS_OK);
        cr_assert_eq(pcs_water_ph_table_create(&c, &g_table), PCS_OK, "table: %s",
                     pcs_last_error());
    }
    g_eos = pcs_thnet_eos_table(g_table);
}

/* The table's stated relative error bounds at pressure p (water_ph.h). */
static double e_rho_at(double p)
{
    return p < PS13_PA ? PCS_WATER_PH_TABLE_RHO_REL_ERR : PCS_WATER_PH_TABLE_R3_RHO_REL_ERR;
}

static double e_t_at(double p)
{
    return p < PS13_PA ? PCS_WATER_PH_TABLE_T_REL_ERR : PCS_WATER_PH_TABLE_R3_T_REL_ERR;
}

/* Exact state at (p, h). */
static pcs_water_ph_state exact_ph(double p, double h)
{
    pcs_water_ph_state w;
    cr_assert_eq(pcs_water_ph_exact(p, h, &w), PCS_OK, "exact (p %.10g, h %.10g): %s", p, h,
                 pcs_last_error());
    return w;
}

/* dp_b of the file comment at the exact state w: the pressure error of an
   inversion at fixed (M, U) from the table's density bound. */
static double dp_table(double p, const pcs_water_ph_state *w)
{
    const double d = w->drho_dp_s2_m2 + w->drho_dh_kg2_m3j / w->rho_kg_m3;
    return e_rho_at(p) * w->rho_kg_m3 / d;
}

/* ------------------------------------------------------------------------ */
/* th_reference.csv                                                          */
/* ------------------------------------------------------------------------ */

#define CSV_MAX_ROWS 128
#define CSV_MAX_COLS 40

typedef struct csv {
    int ncol, nrow;
    char *head[CSV_MAX_COLS];
    char *cell[CSV_MAX_ROWS][CSV_MAX_COLS];
    char *buf;
} csv;

static csv g_csv;

static int split(char *line, char **out)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < CSV_MAX_COLS;) {
        out[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

/* Read tests/refdata/th_reference.csv (run from the repository root, as make
   does; else from refdata/ beside this source file's path). */
static void csv_load(void)
{
    if (g_csv.buf)
        return;
    FILE *f = fopen("tests/refdata/th_reference.csv", "rb");
    if (!f) { /* the folder of this source file, as the compiler saw it */
        char path[4096];
        const char *slash = strrchr(__FILE__, '/');
        int dir = slash ? (int)(slash - __FILE__) : 1;
        snprintf(path, sizeof path, "%.*s/refdata/th_reference.csv", dir, slash ? __FILE__ : ".");
        f = fopen(path, "rb");
    }
    cr_assert(f != NULL, "tests/refdata/th_reference.csv: cannot open (run from the repo root)");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    g_csv.buf = malloc((size_t)n + 1);
    cr_assert(g_csv.buf && fread(g_csv.buf, 1, (size_t)n, f) == (size_t)n);
    g_csv.buf[n] = 0;
    fclose(f);
    char *save = NULL, *line = strtok_r(g_csv.buf, "\n", &save);
    g_csv.ncol = split(line, g_csv.head);
    while ((line = strtok_r(NULL, "\n", &save)) && g_csv.nrow < CSV_MAX_ROWS) {
        int nc = split(line, g_csv.cell[g_csv.nrow]);
        cr_assert_eq(nc, g_csv.ncol, "th_reference.csv row %d: %d columns, header has %d",
                     g_csv.nrow + 2, nc, g_csv.ncol);
        g_csv.nrow++;
    }
}

static int col(const char *name)
{
    for (int c = 0; c < g_csv.ncol; c++)
        if (strcmp(g_csv.head[c], name) == 0)
            return c;
    cr_assert_fail("th_reference.csv: no column %s", name);
    return -1;
}

static const char *cell(int row, const char *name)
{
    return g_csv.cell[row][col(name)];
}

/* The value of a column, NaN when empty. */
static double num(int row, const char *name)
{
    const char *s = cell(row, name);
    return *s ? strtod(s, NULL) : NAN;
}

static int is_family(int row, const char *fam)
{
    return strcmp(cell(row, "family"), fam) == 0;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

/* ------------------------------------------------------------------------ */
/* a) hem_gc: all 18 rows                                                    */
/* ------------------------------------------------------------------------ */

/* th_reference.md section 6: Gc 1e-6 relative; p_throat 1e-3 (kink rows 1e-6,
   "exact"); x_throat and rho_throat are not asked for but follow from p_throat;
   checked at 1e-5 (x, absolute; rho, relative): even at the smooth
   maxima, where the flat maximum leaves p_throat loose. */
Test(thnet_ref, hem_gc)
{
    csv_load();
    int rows = 0;
    for (int r = 0; r < g_csv.nrow; r++) {
        if (!is_family(r, "hem_gc"))
            continue;
        rows++;
        double p0 = num(r, "p0_Pa"), h0 = num(r, "h0_Jkg");
        pcs_thnet_choke c;
        pcs_status st = pcs_thnet_choke_if97(NULL, p0, h0, &c);
        cr_assert_eq(st, PCS_OK, "hem_gc %s p0 %g: %s", cell(r, "case"), p0, pcs_last_error());
        int kink = strstr(cell(r, "phase"), "kink") != NULL;
        double gc = num(r, "Gc_kgm2s"), pt = num(r, "p_throat_Pa");
        cr_expect(rel(c.g_kg_m2s, gc) <= 1e-6,
                  "hem_gc %s p0 %g: Gc %.10g, reference %.10g (rel %g)", cell(r, "case"), p0,
                  c.g_kg_m2s, gc, rel(c.g_kg_m2s, gc));
        cr_expect(rel(c.p_throat_pa, pt) <= (kink ? 1e-6 : 1e-3),
                  "hem_gc %s p0 %g: p_throat %.10g, reference %.10g (rel %g)", cell(r, "case"), p0,
                  c.p_throat_pa, pt, rel(c.p_throat_pa, pt));
        double xt = num(r, "x_throat");
        if (!isnan(xt))
            cr_expect(fabs(c.x_throat - xt) <= 1e-5, "hem_gc %s p0 %g: x_throat %.6g, ref %.6g",
                      cell(r, "case"), p0, c.x_throat, xt);
        cr_expect(rel(c.rho_throat_kg_m3, num(r, "rho_throat_kgm3")) <= 1e-5,
                  "hem_gc %s p0 %g: rho_throat %.8g, ref %.8g", cell(r, "case"), p0,
                  c.rho_throat_kg_m3, num(r, "rho_throat_kgm3"));
    }
    cr_assert_eq(rows, 18, "th_reference.csv: %d hem_gc rows, expected 18", rows);
}

/* ------------------------------------------------------------------------ */
/* Network helpers                                                           */
/* ------------------------------------------------------------------------ */

typedef struct net_fixture {
    pcs_thnet *net;
    pcs_thnet_state s;
    void *mem;
} net_fixture;

static void net_make(net_fixture *fx, const pcs_thnet_volume_def *v, uint32_t nv,
                     const pcs_thnet_junction_def *j, uint32_t nj, double gravity)
{
    pcs_thnet_def d;
    cr_assert_eq(pcs_thnet_default(&d), PCS_OK);
    d.volumes = v;
    d.n_volumes = nv;
    d.junctions = j;
    d.n_junctions = nj;
    d.gravity_m_s2 = gravity;
    if (g_eos.props)
        d.eos = g_eos;
    cr_assert_eq(pcs_thnet_create(&d, &fx->net), PCS_OK, "pcs_thnet_create: %s", pcs_last_error());
    size_t bytes = pcs_thnet_state_bytes(fx->net);
    fx->mem = malloc(bytes);
    cr_assert_eq(pcs_thnet_state_bind(fx->net, fx->mem, bytes, &fx->s), PCS_OK);
    cr_assert_eq(pcs_thnet_state_init(fx->net, &fx->s), PCS_OK, "state_init: %s", pcs_last_error());
}

static void net_free(net_fixture *fx)
{
    pcs_thnet_destroy(fx->net);
    free(fx->mem);
}

/* Saturated liquid and vapour at p (regions 1 and 2 at T_sat(p)). */
static void sat_at(double p, pcs_water_props *f, pcs_water_props *g)
{
    double t = 0.0;
    cr_assert_eq(pcs_water_tsat(p, &t), PCS_OK);
    cr_assert_eq(pcs_if97_region1(p, t, f), PCS_OK);
    cr_assert_eq(pcs_if97_region2(p, t, g), PCS_OK);
}

/* ------------------------------------------------------------------------ */
/* b) vessel_heat: all 18 rows through a one-volume network                  */
/* ------------------------------------------------------------------------ */

/* The initial (v, u0) are recomputed from the row's definition (section 3:
   region 1 at (p0, T0), or the saturated mixture at (p0, x0)) and checked
   against the printed v_m3kg, u0_Jkg (to their 10 and 8 printed digits),
   because u0 is printed to 8 digits only and 0.05 J/kg at fixed volume is
   30 Pa in a liquid-full vessel. The heat du M goes in through the network's
   heat input over 10 steps of 0.05 s; section 6's tolerances: p 1e-6
   relative, T 1e-5 K, x 1e-7.

   Through the tables (M, U) are the reference's exactly, so the final
   state's error is the inversion's (file comment): with the exact state w
   at the reference (p, h = u + p v) and dp_b = dp_table(p, w),
     p: 1e-6 p + 2 dp_b;
     T: 1e-5 K + 2 (e_T T + max |T(p +- dp_b) - T|), T along h = u + p v;
     x: 1e-7 + 2 (2e-9 h''/(h'' - h') + max |x(p +- dp_b) - x|): the table's
        x = (h - h')/(h'' - h') with saturation enthalpies that
        tests/test_water_ph.c holds to 1e-9 relative (the phase agrees at
        1e-9 from both lines), and the pressure shift along the line.
   The liquid-full rows (dp_b 2.4-26 kPa: liquid is stiff) dominate; in the
   dome dp_b is a few Pa. Measured: every error below 1e-4 of its tolerance
   (the table is far better than its bound at these states). */
static void vessel_heat_family(int table)
{
    csv_load();
    use_eos(table);
    int rows = 0;
    double worst[3] = {0, 0, 0}; /* error / tolerance: p, T, x */
    for (int r = 0; r < g_csv.nrow; r++) {
        if (!is_family(r, "vessel_heat"))
            continue;
        rows++;
        double p0 = num(r, "p0_Pa"), t0 = num(r, "T0_K"), x0 = num(r, "x0"), v, u0, h0;
        if (isnan(x0)) {
            pcs_water_props w;
            cr_assert_eq(pcs_if97_region1(p0, t0, &w), PCS_OK);
            v = w.v_m3_kg, u0 = w.u_j_kg, h0 = w.h_j_kg;
        } else {
            pcs_water_props f, g;
            sat_at(p0, &f, &g);
            v = f.v_m3_kg + x0 * (g.v_m3_kg - f.v_m3_kg);
            u0 = f.u_j_kg + x0 * (g.u_j_kg - f.u_j_kg);
            h0 = f.h_j_kg + x0 * (g.h_j_kg - f.h_j_kg);
        }
        cr_assert(rel(v, num(r, "v_m3kg")) <= 1e-9, "vessel_heat row %d: v %.12g vs %s", r + 2, v,
                  cell(r, "v_m3kg"));
        cr_assert(fabs(u0 - num(r, "u0_Jkg")) <= 0.051, "vessel_heat row %d: u0 %.12g vs %s", r + 2,
                  u0, cell(r, "u0_Jkg"));
        pcs_thnet_volume_def vol;
        pcs_thnet_volume_default(&vol);
        vol.volume_m3 = 1.0;
        vol.p_pa = p0;
        vol.h_j_kg = h0;
        net_fixture fx;
        net_make(&fx, &vol, 1, NULL, 0, PCS_THNET_G);
        double mass = 1.0 / v, du = num(r, "du_Jkg");
        fx.s.mass_kg[0] = mass;
        fx.s.energy_j[0] = mass * u0;
        cr_assert_eq(pcs_thnet_state_update(fx.net, &fx.s), PCS_OK, "%s", pcs_last_error());
        double q = mass * du / (10 * 0.05);
        pcs_thnet_inputs in = {.heat_w = &q};
        for (int k = 0; k < 10; k++)
            cr_assert_eq(pcs_thnet_step(fx.net, &fx.s, &in, 0.05, NULL), PCS_OK, "row %d: %s",
                         r + 2, pcs_last_error());
        double p = fx.s.p_pa[0], t = fx.s.t_k[0], xr = num(r, "x");
        double pr = num(r, "p_Pa"), tr = num(r, "T_K");
        double tol_p = 1e-6 * pr, tol_t = 1e-5, tol_x = 1e-7;
        if (table) {
            const double uf = u0 + du;
            const pcs_water_ph_state w = exact_ph(pr, uf + pr * v);
            const double dpb = dp_table(pr, &w);
            double dt_max = 0.0, dx_max = 0.0;
            for (int side = -1; side <= 1; side += 2) {
                const double ps = pr + side * dpb;
                const pcs_water_ph_state ws = exact_ph(ps, uf + ps * v);
                dt_max = fmax(dt_max, fabs(ws.t_k - w.t_k));
                dx_max = fmax(dx_max, fabs(ws.x - w.x));
            }
            tol_p += 2.0 * dpb;
            tol_t += 2.0 * (e_t_at(pr) * tr + dt_max);
            if (!isnan(xr)) {
                pcs_water_props f, g;
                sat_at(pr, &f, &g);
                tol_x += 2.0 * (2e-9 * g.h_j_kg / (g.h_j_kg - f.h_j_kg) + dx_max);
            }
        }
        cr_expect(fabs(p - pr) <= tol_p,
                  "vessel_heat row %d (%s, %s): p %.10g, ref %s (rel %g, tolerance %g)", r + 2,
                  cell(r, "case"), table ? "table" : "IF97", p, cell(r, "p_Pa"), rel(p, pr),
                  tol_p / pr);
        cr_expect(fabs(t - tr) <= tol_t,
                  "vessel_heat row %d (%s): T %.10g, ref %s (tolerance %g K)", r + 2,
                  table ? "table" : "IF97", t, cell(r, "T_K"), tol_t);
        worst[0] = fmax(worst[0], fabs(p - pr) / tol_p);
        worst[1] = fmax(worst[1], fabs(t - tr) / tol_t);
        if (!isnan(xr)) {
            cr_expect(fabs(fx.s.quality[0] - xr) <= tol_x,
                      "vessel_heat row %d (%s): x %.10g, ref %s (tolerance %g)", r + 2,
                      table ? "table" : "IF97", fx.s.quality[0], cell(r, "x"), tol_x);
            worst[2] = fmax(worst[2], fabs(fx.s.quality[0] - xr) / tol_x);
        } else {
            cr_expect(fx.s.quality[0] == 0.0, "vessel_heat row %d: liquid, x %g", r + 2,
                      fx.s.quality[0]);
        }
        cr_expect(fabs(fx.s.mass_kg[0] - mass) == 0.0, "closed vessel mass changed");
        net_free(&fx);
    }
    cr_log_info("vessel_heat (%s): largest error / tolerance: p %.2e, T %.2e, x %.2e",
                table ? "table" : "IF97", worst[0], worst[1], worst[2]);
    cr_assert_eq(rows, 18, "th_reference.csv: %d vessel_heat rows, expected 18", rows);
}

Test(thnet_ref, vessel_heat)
{
    vessel_heat_family(0);
}

Test(thnet_table, vessel_heat)
{
    vessel_heat_family(1);
}

/* ------------------------------------------------------------------------ */
/* c) blowdown                                                               */
/* ------------------------------------------------------------------------ */

/* Initial states, th_reference.md section 4 (all at 7 MPa) and M0 there. */
static const struct {
    const char *name;
    double t0_k; /* compressed liquid at T0; 0: saturated at x0 */
    double x0;
    double m0_kg;
} k_blow[] = {
    {"i_sat_liquid", 0.0, 0.0, 739.7236644},
    {"ii_subcooled_530K", 530.0, 0.0, 791.6702543},
    {"iii_x0.5", 0.0, 0.5, 69.61020598},
    {"iv_sat_vapour", 0.0, 1.0, 36.52359256},
};

#define BLOW_MAX_ROWS 16

typedef struct blow_err {
    double p, m; /* largest relative error over the rows from 0.1 s on */
    int rows;
    double pv[BLOW_MAX_ROWS], mv[BLOW_MAX_ROWS]; /* the run's p and M at those rows */
} blow_err;

/* The vessel's initial (p0, h0) of case c. */
static double blow_h0(int c)
{
    if (k_blow[c].t0_k > 0.0) {
        pcs_water_props w;
        cr_assert_eq(pcs_if97_region1(7e6, k_blow[c].t0_k, &w), PCS_OK);
        return w.h_j_kg;
    }
    pcs_water_props f, g;
    sat_at(7e6, &f, &g);
    return f.h_j_kg + k_blow[c].x0 * (g.h_j_kg - f.h_j_kg);
}

/*
 * Section 4's vessel through the network: volume 0 the 1 m3 vessel, volume 1
 * a pressure boundary at p_b = 0.1 MPa, one choked junction of 1e-3 m2
 * (discharge 1, length 0.01 m: its inertia only bounds the subsonic
 * prediction, which exceeds A Gc from the first step), no gravity. Rows are
 * compared at the step ending at their time, or interpolated linearly
 * between the two steps around it (event rows). Through the tables the
 * vessel starts from the reference's exact (M0, U0) (state_init would take
 * M0 from the table's density, 1e-6 off).
 */
static blow_err blowdown_run(int c, double dt, int table)
{
    double p0 = 7e6, h0 = blow_h0(c);
    use_eos(table);
    pcs_thnet_volume_def v[2];
    pcs_thnet_volume_default(&v[0]);
    pcs_thnet_volume_default(&v[1]);
    v[0].volume_m3 = 1.0, v[0].p_pa = p0, v[0].h_j_kg = h0;
    v[1].boundary = 1, v[1].p_pa = 0.1e6, v[1].h_j_kg = 2.6755e6;
    pcs_thnet_junction_def j;
    pcs_thnet_junction_default(&j);
    j.from = 0, j.to = 1, j.area_m2 = 1e-3, j.length_m = 0.01, j.choked = 1;
    net_fixture fx;
    net_make(&fx, v, 2, &j, 1, 0.0);
    if (table) {
        const pcs_water_ph_state w = exact_ph(p0, h0);
        fx.s.mass_kg[0] = w.rho_kg_m3;
        fx.s.energy_j[0] = w.rho_kg_m3 * w.u_j_kg;
        cr_assert_eq(pcs_thnet_state_update(fx.net, &fx.s), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert(rel(fx.s.mass_kg[0], k_blow[c].m0_kg) <= 1e-9, "blowdown %s: M0 %.10g, ref %.10g",
              k_blow[c].name, fx.s.mass_kg[0], k_blow[c].m0_kg);
    blow_err e;
    memset(&e, 0, sizeof e);
    double t = 0.0, p_prev = fx.s.p_pa[0], m_prev = fx.s.mass_kg[0];
    double m0 = fx.s.mass_kg[0], u0 = fx.s.energy_j[0], m_in = 0.0, e_in = 0.0;
    long n = 0;
    for (int r = 0; r < g_csv.nrow; r++) {
        if (!is_family(r, "blowdown") || strcmp(cell(r, "case"), k_blow[c].name) != 0)
            continue;
        double tr = num(r, "t_s");
        while (t < tr - 1e-9) {
            p_prev = fx.s.p_pa[0], m_prev = fx.s.mass_kg[0];
            pcs_thnet_report rep;
            cr_assert_eq(pcs_thnet_step(fx.net, &fx.s, NULL, dt, &rep), PCS_OK,
                         "blowdown %s dt %g t %g: %s", k_blow[c].name, dt, t, pcs_last_error());
            cr_assert_eq(rep.n_choked, 1, "blowdown %s t %g: the nozzle is not choked",
                         k_blow[c].name, t);
            m_in += rep.boundary_mass_in_kg, e_in += rep.boundary_energy_in_j;
            t += dt, n++;
        }
        if (tr < 0.1 - 1e-12)
            continue;
        double w = (t - tr) / dt; /* weight of the previous step */
        double p = fx.s.p_pa[0] - w * (fx.s.p_pa[0] - p_prev);
        double m = fx.s.mass_kg[0] - w * (fx.s.mass_kg[0] - m_prev);
        double ep = rel(p, num(r, "p_Pa")), em = rel(m, num(r, "M_kg"));
        e.p = fmax(e.p, ep), e.m = fmax(e.m, em);
        cr_assert(e.rows < BLOW_MAX_ROWS);
        e.pv[e.rows] = p, e.mv[e.rows] = m;
        e.rows++;
    }
    /* Closure: what left through the nozzle is what the vessel lost. */
    cr_expect(fabs(fx.s.mass_kg[0] - m0 - m_in) <= 1e-12 * (double)n * m0,
              "blowdown %s dt %g: mass closure %g kg after %ld steps", k_blow[c].name, dt,
              fx.s.mass_kg[0] - m0 - m_in, n);
    cr_expect(fabs(fx.s.energy_j[0] - u0 - e_in) <= 1e-12 * (double)n * fabs(u0),
              "blowdown %s dt %g: energy closure %g J after %ld steps", k_blow[c].name, dt,
              fx.s.energy_j[0] - u0 - e_in, n);
    net_free(&fx);
    return e;
}

/*
 * Tolerances (th_reference.md section 6: "test it with the step it runs with
 * and state the tolerance"), from the rows at t >= 0.1 s (the liquid-full
 * step of case ii lasts 0.054 s and is not resolved by these steps):
 *  - dt = 0.005 s: the issue asks 1e-3 relative in p and M; measured at most
 *    4.1e-6 (M, case i), asserted <= 1e-5.
 *  - dt = 0.05 s (the FAST tick): measured at most 1.30e-3 (M, case ii, the
 *    unresolved liquid-full step) and 3.7e-4 elsewhere; asserted <= 2e-3.
 *  - order: the scheme is second order for the emptying vessel (trapezoidal
 *    critical flow and outflow enthalpy, thnet_step.c): from 0.05 s to 0.01 s
 *    the error falls by 23x to 183x (first order would be 5x); asserted
 *    >= 12x, i.e. observed order >= 1.54.
 */
Test(thnet_ref, blowdown)
{
    csv_load();
    for (int c = 0; c < 4; c++) {
        blow_err fine = blowdown_run(c, 0.005, 0), mid = blowdown_run(c, 0.01, 0);
        blow_err tick = blowdown_run(c, 0.05, 0);
        cr_assert(fine.rows >= 3 && fine.rows == tick.rows, "blowdown %s: %d rows", k_blow[c].name,
                  fine.rows);
        cr_expect(fine.p <= 1e-5 && fine.m <= 1e-5,
                  "blowdown %s dt 0.005: max rel error p %.3e, M %.3e (bound 1e-5)", k_blow[c].name,
                  fine.p, fine.m);
        cr_expect(tick.p <= 2e-3 && tick.m <= 2e-3,
                  "blowdown %s dt 0.05: max rel error p %.3e, M %.3e (bound 2e-3)", k_blow[c].name,
                  tick.p, tick.m);
        double e05 = fmax(tick.p, tick.m), e01 = fmax(mid.p, mid.m);
        cr_log_info("blowdown %s (IF97): errors p %.3e, M %.3e at 0.005 s, p %.3e, M %.3e at "
                    "0.05 s; falls %.1fx from 0.05 to 0.01 s",
                    k_blow[c].name, fine.p, fine.m, tick.p, tick.m, e05 / e01);
        cr_expect(e05 / e01 >= 12.0,
                  "blowdown %s: error falls %.2fx from dt 0.05 to 0.01 (%.3e -> %.3e); second "
                  "order gives 25x, first 5x",
                  k_blow[c].name, e05 / e01, e05, e01);
    }
}

/* dln Gc / dln p0 at fixed h0 (IF97), central over 1e-3 p0 (one side near
   the domain's ends). */
static double gc_slope(double p, double h)
{
    pcs_thnet_choke a, b;
    cr_assert_eq(pcs_thnet_choke_if97(NULL, p * 1.001, h, &a), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_thnet_choke_if97(NULL, p * 0.999, h, &b), PCS_OK, "%s", pcs_last_error());
    return fabs(log(a.g_kg_m2s / b.g_kg_m2s) / log(1.001 / 0.999));
}

/* The exact state of a blowdown row (section 4: liquid rows at (p, T), the
   others saturated at (p, x)). */
static pcs_water_ph_state blow_row_state(int r)
{
    double p = num(r, "p_Pa"), x = num(r, "x");
    if (isnan(x)) {
        double h = 0.0;
        cr_assert_eq(pcs_water_h_pt(p, num(r, "T_K"), &h), PCS_OK);
        return exact_ph(p, h);
    }
    pcs_water_props f, g;
    sat_at(p, &f, &g);
    return exact_ph(p, f.h_j_kg + x * (g.h_j_kg - f.h_j_kg));
}

/*
 * Through the tables. The table moves the vessel's pressure at given (M, U)
 * by eta = dp_b / p = e_rho rho / ((drho/dp)_u p) (file comment), evaluated
 * exactly at each reference row and at the start. The critical flow then
 * runs off by k eta (k = dln Gc / dln p0, IF97, at the row), so the mass lost
 * between two rows, M_a - M_b, carries at most k max(eta_a, eta_b)
 * (M_a - M_b) of error (first order; the feedback is stabilising: more
 * outflow, lower p, less flow). Summed from the start:
 *   tol_M(row) = sum over intervals  k max(eta) dM  / M(row).
 * A mass error dM, leaving at the vessel's own enthalpy, moves p by
 * dM / (V (drho/dp)_u) (the network's linearised EOS with dU = h dM), i.e.
 * by (eta / e_rho) tol_M relative; so
 *   tol_p(row) = eta(row) + (eta(row) / e_rho) tol_M(row).
 * Asserted: the IF97 path's bounds plus twice these. Measured maxima of
 * (error / tolerance) are logged.
 *
 * Order: the table is fixed, so its error does not fall with dt; the scheme's
 * order is checked on the table problem itself, by self-convergence against
 * the 0.005 s run: r = max|y(0.05) - y(0.005)| / max|y(0.01) - y(0.005)|
 * over the rows (relative, p and M), 33 for second order and 9 for first;
 * asserted >= 15 (observed order >= 1.6).
 *
 * Measured: the table parts of the tolerances (2 x) are 7.5e-6 to 3.8e-4 in
 * p and 8.4e-6 to 6.5e-4 in M; the errors are the IF97 path's to two digits
 * (at most 2.5e-6 at 0.005 s and 1.30e-3 at 0.05 s, case ii), except case i,
 * which is 400 times closer to the reference through the tables (9e-9 at
 * 0.005 s; not investigated: the two paths differ in the derivatives the
 * first steps' pressure prediction uses, from a start on the saturation
 * line); self-convergence 30x to 136x.
 */
Test(thnet_table, blowdown)
{
    csv_load();
    for (int c = 0; c < 4; c++) {
        double tol_p[BLOW_MAX_ROWS], tol_m[BLOW_MAX_ROWS];
        const pcs_water_ph_state w0 = exact_ph(7e6, blow_h0(c));
        double eta_prev = dp_table(7e6, &w0) / 7e6, m_prev = k_blow[c].m0_kg, acc = 0.0;
        double k_prev = 0.0;
        int nr = 0;
        for (int r = 0; r < g_csv.nrow; r++) {
            if (!is_family(r, "blowdown") || strcmp(cell(r, "case"), k_blow[c].name) != 0)
                continue;
            double p = num(r, "p_Pa"), m = num(r, "M_kg");
            const pcs_water_ph_state w = blow_row_state(r);
            double eta = dp_table(p, &w) / p, k = gc_slope(p, w.u_j_kg + p / w.rho_kg_m3);
            acc += fmax(k, k_prev > 0.0 ? k_prev : k) * fmax(eta, eta_prev) * (m_prev - m);
            eta_prev = eta, m_prev = m, k_prev = k;
            if (num(r, "t_s") < 0.1 - 1e-12)
                continue;
            tol_m[nr] = acc / m;
            tol_p[nr] = eta + eta / e_rho_at(p) * tol_m[nr];
            nr++;
        }
        blow_err fine = blowdown_run(c, 0.005, 1), mid = blowdown_run(c, 0.01, 1);
        blow_err tick = blowdown_run(c, 0.05, 1);
        cr_assert(fine.rows == nr && tick.rows == nr && mid.rows == nr, "blowdown %s: %d rows",
                  k_blow[c].name, fine.rows);
        double tp = 0.0, tm = 0.0, d05 = 0.0, d01 = 0.0;
        for (int i = 0; i < nr; i++) {
            tp = fmax(tp, tol_p[i]), tm = fmax(tm, tol_m[i]);
            d05 = fmax(d05, fmax(rel(tick.pv[i], fine.pv[i]), rel(tick.mv[i], fine.mv[i])));
            d01 = fmax(d01, fmax(rel(mid.pv[i], fine.pv[i]), rel(mid.mv[i], fine.mv[i])));
        }
        cr_log_info("blowdown %s (table): errors p %.3e, M %.3e at 0.005 s, p %.3e, M %.3e at "
                    "0.05 s; table parts of the tolerance p %.3e, M %.3e; self-convergence %.1fx",
                    k_blow[c].name, fine.p, fine.m, tick.p, tick.m, 2.0 * tp, 2.0 * tm, d05 / d01);
        cr_expect(fine.p <= 1e-5 + 2.0 * tp && fine.m <= 1e-5 + 2.0 * tm,
                  "blowdown %s (table) dt 0.005: max rel error p %.3e, M %.3e (bounds %.3e, %.3e)",
                  k_blow[c].name, fine.p, fine.m, 1e-5 + 2.0 * tp, 1e-5 + 2.0 * tm);
        cr_expect(tick.p <= 2e-3 + 2.0 * tp && tick.m <= 2e-3 + 2.0 * tm,
                  "blowdown %s (table) dt 0.05: max rel error p %.3e, M %.3e (bounds %.3e, %.3e)",
                  k_blow[c].name, tick.p, tick.m, 2e-3 + 2.0 * tp, 2e-3 + 2.0 * tm);
        cr_expect(d05 / d01 >= 15.0,
                  "blowdown %s (table): self-convergence %.2fx (%.3e, %.3e); second order gives "
                  "33x, first 9x",
                  k_blow[c].name, d05 / d01, d05, d01);
    }
}

/* ------------------------------------------------------------------------ */
/* d) natcirc                                                                */
/* ------------------------------------------------------------------------ */

#define NC_D 0.1
#define NC_A (3.141592653589793 * NC_D * NC_D / 4.0)

/*
 * Section 5's loop as a network: volume 0 the heater (bottom, z = 0, zero
 * height: its junctions are at its own elevation), 1 the hot leg (a vertical
 * 5 m pipe, centre z = 2.5), 2 the cooler, a boundary at (15.5 MPa, h_c) at
 * z = 5 (it closes the loop at Tc and fixes the pressure), 3 the cold leg
 * (5 m, centre 2.5). Junctions at z = 0 (heater-hot leg), 5 (hot leg-cooler,
 * cooler-cold leg) and 0 (cold leg-heater), so the gravity terms sum to
 * g H (rho_c - rho_h) exactly. The whole f L / D + K = 0.02 * 20 / 0.1 + 5 = 9
 * sits on the hot leg-cooler junction, whose density is the mean of its
 * volumes' rho_h and rho_c: the file's rho_ref = (rho_c + rho_h) / 2. The
 * other junctions have no loss. Start at Tc with 0.5 kg/s (the loop is
 * symmetric, so this picks the file's direction), ramp the heater to Q over
 * 300 s (a full 1 MW into the still loop would boil the heater), then run at
 * dt 0.5 s until the flow changes by less than 1e-10 relative per step
 * (740 to 1300 steps). The 200 kW case at dt 0.5 s is also the regression
 * test for donor-cell consistency: with the donor side taken from the start-
 * of-step pressure difference instead of the flow, the heater locked into a
 * two-step pressure cycle of 3 MPa.
 *
 * Not modelled as the file has it: the legs' pressures include their
 * hydrostatic head (up to 49 kPa above 15.5 MPa), which the file leaves out;
 * estimated effect on the flow 1e-4 relative; measured 4.0e-5 to 6.4e-5.
 * Asserted: 2e-4 relative in every junction's flow (the issue asks 1e-3)
 * and 1e-3 relative in the temperature rise Th - Tc, with Th evaluated from
 * the heater's enthalpy at 15.5 MPa as the file does.
 *
 * Through the tables: the steady flow solves g H (rho_c - rho_h) =
 * K W^2 / (2 rho_ref A^2) with rho_c - rho_h proportional to the heater's
 * enthalpy rise Q / W, so W^3 is proportional to rho_ref (rho_c - rho_h) at
 * fixed W: a density error of e_rho rho in each volume moves W by at most
 *   dW / W = (e_rho (rho_c + rho_h) / (rho_c - rho_h) + e_rho) / 3,
 * with the file's rho_c, rho_h (large for the small-Q rows, whose density
 * difference is only 2.7-8.8 kg/m3), and Th - Tc = Q / (W c_p) by the same
 * relative amount. Asserted: the IF97 bounds plus twice that (2.7e-4 to
 * 2.1e-3); measured the IF97 path's errors to two digits, 4.0e-5 to 6.4e-5.
 */
static void natcirc_case(int r, int table)
{
    double p = num(r, "p0_Pa"), tc = num(r, "Tc_K"), q = num(r, "Q_W"), hc = 0.0;
    cr_assert_eq(pcs_water_h_pt(p, tc, &hc), PCS_OK);
    pcs_thnet_volume_def v[4];
    double z[4] = {0.0, 2.5, 5.0, 2.5}, len[4] = {1.0, 5.0, 1.0, 5.0};
    for (int i = 0; i < 4; i++) {
        pcs_thnet_volume_default(&v[i]);
        v[i].volume_m3 = NC_A * len[i];
        v[i].elevation_m = z[i];
        v[i].diameter_m = NC_D;
        v[i].p_pa = p + 1000.0 * 9.80665 * (5.0 - z[i]) * 0.75; /* rough hydrostatic start */
        v[i].h_j_kg = hc;
    }
    v[2].boundary = 1, v[2].p_pa = p;
    pcs_thnet_junction_def j[4];
    uint32_t from[4] = {0, 1, 2, 3}, to[4] = {1, 2, 3, 0};
    double zj[4] = {0.0, 5.0, 5.0, 0.0};
    for (int k = 0; k < 4; k++) {
        pcs_thnet_junction_default(&j[k]);
        j[k].from = from[k], j[k].to = to[k], j[k].area_m2 = NC_A, j[k].diameter_m = NC_D;
        j[k].elevation_m = zj[k], j[k].length_m = 5.0;
        j[k].friction_model = PCS_THNET_FRICTION_NONE;
        j[k].flow_kg_s = 0.5; /* the loop is symmetric: start it the file's way round */
    }
    j[1].friction_model = PCS_THNET_FRICTION_FIXED, j[1].friction = 0.02;
    j[1].length_m = 20.0, j[1].form_loss = 5.0;
    net_fixture fx;
    net_make(&fx, v, 4, j, 4, 9.80665);
    double heat[4] = {q, 0.0, 0.0, 0.0};
    pcs_thnet_inputs in = {.heat_w = heat};
    int steps = 0;
    double w_prev = 0.0;
    for (; steps < 40000; steps++) {
        heat[0] =
            q * fmin(1.0, (steps + 1) * 0.5 / 300.0); /* ramp over 300 s: no boiling at start */
        cr_assert_eq(pcs_thnet_step(fx.net, &fx.s, &in, 0.5, NULL), PCS_OK, "natcirc Q %g: %s", q,
                     pcs_last_error());
        double w = fx.s.flow_kg_s[0];
        if (steps > 600 && fabs(w - w_prev) <= 1e-10 * fabs(w))
            break;
        w_prev = w;
    }
    double th = 0.0;
    cr_assert_eq(pcs_water_t_ph(p, fx.s.h_j_kg[0], &th), PCS_OK);
    double mref = num(r, "mdot_kgs"), thref = num(r, "Th_K");
    double tab = 0.0;
    if (table) {
        const double rc = num(r, "rho_c_kgm3"), rh = num(r, "rho_h_kgm3"), e = e_rho_at(p);
        tab = 2.0 * (e * (rc + rh) / (rc - rh) + e) / 3.0;
    }
    double worst = 0.0;
    for (int k = 0; k < 4; k++) {
        worst = fmax(worst, rel(fx.s.flow_kg_s[k], mref));
        cr_expect(rel(fx.s.flow_kg_s[k], mref) <= 2e-4 + tab,
                  "natcirc Tc %g Q %g (%s): junction %d flow %.8g kg/s, ref %.10g (rel %.2e, "
                  "tolerance %.2e) after %d steps",
                  tc, q, table ? "table" : "IF97", k, fx.s.flow_kg_s[k], mref,
                  rel(fx.s.flow_kg_s[k], mref), 2e-4 + tab, steps);
    }
    cr_expect(fabs((th - tc) - (thref - tc)) <= (1e-3 + tab) * (thref - tc),
              "natcirc Tc %g Q %g (%s): Th %.8g K, ref %.10g", tc, q, table ? "table" : "IF97", th,
              thref);
    cr_log_info("natcirc Tc %g Q %g (%s): flow error %.2e (tolerance %.2e), Th - Tc error %.2e", tc,
                q, table ? "table" : "IF97", worst, 2e-4 + tab,
                fabs((th - tc) - (thref - tc)) / (thref - tc));
    net_free(&fx);
}

static void natcirc_family(int table)
{
    csv_load();
    use_eos(table);
    int rows = 0;
    for (int r = 0; r < g_csv.nrow; r++) {
        if (!is_family(r, "natcirc"))
            continue;
        natcirc_case(r, table);
        rows++;
    }
    cr_assert_eq(rows, 4, "th_reference.csv: %d natcirc rows, expected 4", rows);
}

Test(thnet_ref, natcirc)
{
    natcirc_family(0);
}

Test(thnet_table, natcirc)
{
    natcirc_family(1);
}

/* ------------------------------------------------------------------------ */
/* e) conservation                                                           */
/* ------------------------------------------------------------------------ */

/*
 * A closed loop (no boundary volumes) with gravity: core (z 0, heated),
 * hot leg (z 4), steam generator (z 10, cooled towards 550 K with UA 1 MW/K),
 * cold leg (z 4, a pump junction to the downcomer), downcomer (z 2), and a
 * pressurizer (z 10, 2 m3 of saturated mixture, void fraction 0.5) on a
 * surge line to the hot leg. 20 MW core heat and 0.3 MPa pump head for
 * 30 s, then a trip: heat 1 MW and the head coasts to zero over 20 s, so
 * the loop goes to natural circulation and the pressurizer insurges and
 * outsurges. 10,000 steps of 0.05 s (1200 under ASan: the first 60 s,
 * trip included).
 * Asserted at every step n (the bounds): |M - M0| / M0 <= 1e-12 n
 * and |U - U0 - sum(Q + W_pump) dt| / U0 <= 1e-9 n (internal energy; the
 * network carries no kinetic or potential energy, pcsim/thnet.h), no step
 * re-pivots, and the steps allocate nothing. The same bounds through the
 * tables: conservation is the scheme's, whatever the equation of state.
 */
static void conservation_closed_loop(int table)
{
    use_eos(table);
    pcs_water_props f, g;
    sat_at(15.5e6, &f, &g);
    double hl = 0.0;
    cr_assert_eq(pcs_water_h_pt(15.5e6, 565.0, &hl), PCS_OK);
    double x = f.v_m3_kg / (f.v_m3_kg + g.v_m3_kg); /* alpha = 0.5 */
    const double z[6] = {0.0, 4.0, 10.0, 4.0, 2.0, 10.0}, vol[6] = {1, 1, 2, 1, 1, 2};
    pcs_thnet_volume_def v[6];
    for (int i = 0; i < 6; i++) {
        pcs_thnet_volume_default(&v[i]);
        v[i].volume_m3 = vol[i], v[i].elevation_m = z[i];
        v[i].p_pa = 15.5e6 + 740.0 * 9.80665 * (10.0 - z[i]);
        v[i].h_j_kg = hl;
    }
    v[5].p_pa = 15.5e6, v[5].h_j_kg = f.h_j_kg + x * (g.h_j_kg - f.h_j_kg);
    const uint32_t from[6] = {0, 1, 2, 3, 4, 5}, to[6] = {1, 2, 3, 4, 0, 1};
    pcs_thnet_junction_def j[6];
    for (int k = 0; k < 6; k++) {
        pcs_thnet_junction_default(&j[k]);
        j[k].from = from[k], j[k].to = to[k], j[k].area_m2 = 0.05, j[k].length_m = 4.0;
        j[k].form_loss = 2.0, j[k].roughness_m = 4.5e-5;
        j[k].flow_kg_s = k < 5 ? 300.0 : 0.0;
    }
    j[5].area_m2 = 0.01, j[5].length_m = 8.0;
    net_fixture fx;
    net_make(&fx, v, 6, j, 6, PCS_THNET_G);
    double m0 = 0.0, u0 = 0.0, added = 0.0;
    pcs_thnet_totals(fx.net, &fx.s, &m0, &u0);
    double heat[6] = {0}, pump[6] = {0};
    pcs_thnet_inputs in = {.heat_w = heat, .pump_dp_pa = pump};
#if defined(__SANITIZE_ADDRESS__)
    const int n_steps = 1200; /* the first 60 s under ASan */
#else
    const int n_steps = 10000;
#endif
    double worst_m = 0.0, worst_e = 0.0, c_max = 0.0, t_core_max = 0.0;
    int reversed = 0;
    uint64_t allocs = 0;
    for (int n = 1; n <= n_steps; n++) {
        double t = n * 0.05;
        heat[0] = t <= 30.0 ? 20e6 : 1e6;
        heat[2] = -1e6 * (fx.s.t_k[2] - 550.0);
        pump[3] = 0.3e6 * (t <= 30.0 ? 1.0 : fmax(0.0, 1.0 - (t - 30.0) / 20.0));
        pcs_thnet_report rep;
        pcs_test_alloc_begin();
        pcs_status st = pcs_thnet_step(fx.net, &fx.s, &in, 0.05, &rep);
        allocs += pcs_test_alloc_end();
        cr_assert_eq(st, PCS_OK, "step %d: %s", n, pcs_last_error());
        cr_assert_eq(rep.full_factor, 0, "step %d re-pivoted (rcond %g)", n, rep.rcond);
        added += rep.heat_in_j + rep.pump_work_j;
        double m, u;
        pcs_thnet_totals(fx.net, &fx.s, &m, &u);
        double em = fabs(m - m0) / m0, ee = fabs(u - u0 - added) / u0;
        cr_assert(em <= 1e-12 * n, "step %d: |M - M0|/M0 = %g > %g", n, em, 1e-12 * n);
        cr_assert(ee <= 1e-9 * n, "step %d: energy balance %g > %g", n, ee, 1e-9 * n);
        worst_m = fmax(worst_m, em / n), worst_e = fmax(worst_e, ee / n);
        c_max = fmax(c_max, rep.courant_max);
        t_core_max = fmax(t_core_max, fx.s.t_k[0]);
        reversed |= fx.s.flow_kg_s[5] > 0.0 && t > 1.0;
    }
    cr_expect_eq(allocs, 0, "%llu allocations in %d steps", (unsigned long long)allocs, n_steps);
    /* The run did what it is meant to exercise: a two-phase pressurizer,
       the surge line both ways, and flow that kept going after the trip. */
    cr_expect(fx.s.quality[5] > 0.0 && fx.s.quality[5] < 1.0, "pressurizer x %g", fx.s.quality[5]);
    cr_expect(reversed, "surge line never outsurged");
    cr_expect(fx.s.flow_kg_s[0] > 0.0, "core flow %g kg/s at the end", fx.s.flow_kg_s[0]);
    /* Measured: 1.8e-16 (mass) and 3.3e-17 (energy) per step, Courant 0.022. */
    cr_expect(worst_m <= 1e-15 && worst_e <= 1e-15, "per-step drift: mass %g, energy %g", worst_m,
              worst_e);
    cr_expect(c_max < 0.1 && t_core_max < 600.0, "Courant %g, core T max %g K", c_max, t_core_max);
    net_free(&fx);
}

Test(thnet, conservation_closed_loop)
{
    conservation_closed_loop(0);
}

Test(thnet_table, conservation_closed_loop)
{
    conservation_closed_loop(1);
}

/* ------------------------------------------------------------------------ */
/* Definitions and API                                                       */
/* ------------------------------------------------------------------------ */

static pcs_status try_create(const pcs_thnet_volume_def *v, uint32_t nv,
                             const pcs_thnet_junction_def *j, uint32_t nj, pcs_thnet_eos eos)
{
    pcs_thnet_def d;
    pcs_thnet_default(&d);
    d.volumes = v, d.n_volumes = nv, d.junctions = j, d.n_junctions = nj, d.eos = eos;
    pcs_thnet *net = NULL;
    pcs_status st = pcs_thnet_create(&d, &net);
    pcs_thnet_destroy(net);
    return st;
}

Test(thnet, bad_definitions_name_the_field)
{
    pcs_thnet_volume_def v[2];
    pcs_thnet_volume_default(&v[0]);
    pcs_thnet_volume_default(&v[1]);
    pcs_thnet_junction_def j;
    pcs_thnet_junction_default(&j);
    j.to = 1;
    pcs_thnet_eos eos = pcs_thnet_eos_if97();
    cr_assert_eq(try_create(v, 2, &j, 1, eos), PCS_OK, "%s", pcs_last_error());

    v[1].volume_m3 = 0.0;
    cr_assert_eq(try_create(v, 2, &j, 1, eos), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "volumes[1].volume_m3") != NULL, "%s", pcs_last_error());
    v[1].volume_m3 = 1.0;

    j.to = 0;
    cr_assert_eq(try_create(v, 2, &j, 1, eos), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "junctions[0].to") != NULL, "%s", pcs_last_error());
    j.to = 1;

    j.valve = 1.5;
    cr_assert_eq(try_create(v, 2, &j, 1, eos), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "junctions[0].valve") != NULL, "%s", pcs_last_error());
    j.valve = 1.0;

    j.choked = 1;
    eos.choke = NULL;
    cr_assert_eq(try_create(v, 2, &j, 1, eos), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "eos.choke") != NULL, "%s", pcs_last_error());
}

/* A closed valve isolates two volumes at different pressures: no flow, the
   states do not move; opened, the flow runs from high to low pressure. */
static void closed_valve_isolates(int table)
{
    use_eos(table);
    pcs_thnet_volume_def v[2];
    for (int i = 0; i < 2; i++) {
        pcs_thnet_volume_default(&v[i]);
        v[i].h_j_kg = 1.2e6;
    }
    v[0].p_pa = 16e6, v[1].p_pa = 15e6;
    pcs_thnet_junction_def j;
    pcs_thnet_junction_default(&j);
    j.to = 1, j.valve = 0.0, j.form_loss = 10.0;
    net_fixture fx;
    net_make(&fx, v, 2, &j, 1, PCS_THNET_G);
    double p0 = fx.s.p_pa[0], p1 = fx.s.p_pa[1];
    for (int n = 0; n < 10; n++)
        cr_assert_eq(pcs_thnet_step(fx.net, &fx.s, NULL, 0.05, NULL), PCS_OK, "%s",
                     pcs_last_error());
    cr_expect_eq(fx.s.flow_kg_s[0], 0.0);
    cr_expect(fabs(fx.s.p_pa[0] - p0) <= 1e-6 * p0 && fabs(fx.s.p_pa[1] - p1) <= 1e-6 * p1,
              "p %g %g from %g %g", fx.s.p_pa[0], fx.s.p_pa[1], p0, p1);
    double open = 0.5;
    pcs_thnet_inputs in = {.valve = &open};
    cr_assert_eq(pcs_thnet_step(fx.net, &fx.s, &in, 0.05, NULL), PCS_OK, "%s", pcs_last_error());
    cr_expect(fx.s.flow_kg_s[0] > 0.0, "opened valve flow %g", fx.s.flow_kg_s[0]);
    net_free(&fx);
}

Test(thnet, closed_valve_isolates)
{
    closed_valve_isolates(0);
}

Test(thnet_table, closed_valve_isolates)
{
    closed_valve_isolates(1);
}

/* ------------------------------------------------------------------------ */
/* The table callbacks                                                       */
/* ------------------------------------------------------------------------ */

/*
 * pcs_thnet_props_table against the exact state (its rho, T and derivatives
 * within the bounds stated in water_ph.h, derivatives relative to at least
 * the floors water_ph.h uses) and against pcs_thnet_props_if97 (quality and
 * void to 1e-6, viscosity to 1e-4: R12-08 at a (rho, T) within 5e-6 of the
 * exact), in liquid, the dome at 0.1 and 15.5 MPa, vapour and both sides of
 * the supercritical region; the lean callback bit-identical and leaving the
 * other fields alone; the inversion exact on the table and within dp_b of
 * the exact pressure; refusals.
 */
Test(thnet_table, callbacks_match_if97_within_the_table_bounds)
{
    use_eos(1);
    pcs_water_props f, g;
    sat_at(15.5e6, &f, &g);
    const double hd155 = f.h_j_kg + 0.3 * (g.h_j_kg - f.h_j_kg);
    sat_at(0.1e6, &f, &g);
    const double hd01 = f.h_j_kg + 0.6 * (g.h_j_kg - f.h_j_kg);
    const double st[][2] = {{15.5e6, 1.3e6}, {15.5e6, hd155}, {0.1e6, hd01},
                            {7e6, 2.9e6},    {25e6, 1.5e6},   {25e6, 2.8e6}};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
        const double p = st[i][0], h = st[i][1];
        const int r3 = p >= PS13_PA;
        pcs_thnet_props t, x, lean;
        cr_assert_eq(pcs_thnet_props_table(g_table, p, h, &t), PCS_OK, "%s", pcs_last_error());
        cr_assert_eq(pcs_thnet_props_if97(NULL, p, h, &x), PCS_OK, "%s", pcs_last_error());
        const pcs_water_ph_state w = exact_ph(p, h);
        const double e_dp =
            r3 ? PCS_WATER_PH_TABLE_R3_DRHO_DP_REL_ERR : PCS_WATER_PH_TABLE_DRHO_DP_REL_ERR;
        const double e_dh =
            r3 ? PCS_WATER_PH_TABLE_R3_DRHO_DH_REL_ERR : PCS_WATER_PH_TABLE_DRHO_DH_REL_ERR;
        cr_expect(rel(t.rho_kg_m3, w.rho_kg_m3) <= e_rho_at(p), "state %zu rho %.10g vs %.10g", i,
                  t.rho_kg_m3, w.rho_kg_m3);
        cr_expect(rel(t.t_k, w.t_k) <= e_t_at(p), "state %zu T %.10g vs %.10g", i, t.t_k, w.t_k);
        cr_expect(fabs(t.drho_dp - w.drho_dp_s2_m2) <=
                      e_dp * fmax(fabs(w.drho_dp_s2_m2), 1e-10 * w.rho_kg_m3),
                  "state %zu drho/dp %.10g vs %.10g", i, t.drho_dp, w.drho_dp_s2_m2);
        cr_expect(fabs(t.drho_dh - w.drho_dh_kg2_m3j) <=
                      e_dh * fmax(fabs(w.drho_dh_kg2_m3j), 1e-9 * w.rho_kg_m3),
                  "state %zu drho/dh %.10g vs %.10g", i, t.drho_dh, w.drho_dh_kg2_m3j);
        cr_expect(fabs(t.quality - x.quality) <= 1e-6 && fabs(t.alpha - x.alpha) <= 1e-6,
                  "state %zu x %.8g alpha %.8g, IF97 callback %.8g %.8g", i, t.quality, t.alpha,
                  x.quality, x.alpha);
        cr_expect(rel(t.mu_pa_s, x.mu_pa_s) <= 1e-4, "state %zu mu %.8g, IF97 callback %.8g", i,
                  t.mu_pa_s, x.mu_pa_s);
        memset(&lean, 0, sizeof lean);
        lean.quality = lean.alpha = lean.mu_pa_s = -7.0;
        cr_assert_eq(pcs_thnet_rho_table(g_table, p, h, &lean), PCS_OK, "%s", pcs_last_error());
        cr_expect(lean.rho_kg_m3 == t.rho_kg_m3 && lean.t_k == t.t_k && lean.drho_dp == t.drho_dp &&
                      lean.drho_dh == t.drho_dh,
                  "state %zu: lean callback differs", i);
        cr_expect(lean.quality == -7.0 && lean.alpha == -7.0 && lean.mu_pa_s == -7.0,
                  "state %zu: lean callback wrote other fields", i);
        /* the inversion at the exact (rho, u) of this state */
        double pi = 0.0, hi = 0.0;
        pcs_thnet_props pr;
        cr_assert_eq(pcs_thnet_state_rho_u(&g_eos, w.rho_kg_m3, w.u_j_kg, 0.0, &pi, &hi, &pr),
                     PCS_OK, "state %zu: %s", i, pcs_last_error());
        cr_expect(rel(pr.rho_kg_m3, w.rho_kg_m3) <= 1e-11,
                  "state %zu: table rho at the inverted state %.15g, target %.15g", i, pr.rho_kg_m3,
                  w.rho_kg_m3);
        cr_expect(fabs(pi - p) <= dp_table(p, &w) &&
                      fabs(hi - (w.u_j_kg + pi / w.rho_kg_m3)) <= 1e-9 * fabs(hi),
                  "state %zu: inverted p %.10g, h %.10g; exact %.10g (bound %g Pa)", i, pi, hi, p,
                  dp_table(p, &w));
    }
    pcs_thnet_props t;
    cr_assert_eq(pcs_thnet_props_table(NULL, 15.5e6, 1.3e6, &t), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "ctx") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_thnet_props_table(g_table, 40e6, 1.3e6, &t), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "p_pa = 4") != NULL, "%s", pcs_last_error());
    cr_assert_eq(pcs_thnet_rho_table(g_table, 15.5e6, 9e6, &t), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "pcs_water_ph_table_rho") != NULL, "%s", pcs_last_error());
}

/* The inversion from its default start (10 MPa) must reach a low-pressure,
   low-density state: there h = u + p/rho at 10 MPa is far above the domain,
   so the first point is refused and the search has to go down. Both paths. */
Test(thnet, inversion_from_the_default_guess_reaches_low_pressure_states)
{
    pcs_water_props f, g;
    sat_at(0.1e6, &f, &g);
    const double h = f.h_j_kg + 0.6 * (g.h_j_kg - f.h_j_kg);
    const pcs_water_ph_state w = exact_ph(0.1e6, h);
    for (int table = 0; table < 2; table++) {
        use_eos(table);
        double p = 0.0, hh = 0.0;
        pcs_thnet_props pr;
        pcs_status st = pcs_thnet_state_rho_u(&g_eos, w.rho_kg_m3, w.u_j_kg, 0.0, &p, &hh, &pr);
        cr_expect_eq(st, PCS_OK, "%s: %s", table ? "table" : "IF97", pcs_last_error());
        cr_expect(fabs(p - 0.1e6) <= 1e-3 * 0.1e6, "%s: p %.10g", table ? "table" : "IF97", p);
    }
}

/* A (rho, u) with no state in the domain is an error, also when the search
   ends on the domain's floor: 740 kg/m3 at u = 0 (liquid at 273.16 K is
   ~1000 kg/m3; a mixture that light needs p ~ 611 Pa, below 1 kPa). The
   inversion returned p = 1 kPa as a state there (density 1000 kg/m3, not
   740), and the network stepped from it. Both paths. */
Test(thnet, inversion_below_the_domain_floor_is_refused)
{
    for (int table = 0; table < 2; table++) {
        use_eos(table);
        double p = 0.0, hh = 0.0;
        pcs_thnet_props pr;
        pcs_status st = pcs_thnet_state_rho_u(&g_eos, 740.0, 0.0, 15.7e6, &p, &hh, &pr);
        cr_expect_eq(st, PCS_E_NUMERIC, "%s: st %d p %.10g h %.10g rho %.10g",
                     table ? "table" : "IF97", st, p, hh, pr.rho_kg_m3);
        cr_expect(strstr(pcs_last_error(), "no (p, h)") != NULL, "%s", pcs_last_error());
    }
}
