/**
 * @file heat_wall.c
 * @brief One-dimensional wall conduction, backward Euler (heat_wall.h).
 */
#include "physics/thermal/kernels/heat_wall.h"

#include "pcsim/math.h"

/* Volume between coordinates lo < hi of the wall, m3. */
static double hw_volume(pcs_heat_wall_geom g, double lo, double hi, double size)
{
    if (g == PCS_HEAT_WALL_SLAB)
        return size * (hi - lo);
    if (g == PCS_HEAT_WALL_CYLINDER)
        return PCS_PI * size * (hi * hi - lo * lo);
    return size * 4.0 / 3.0 * PCS_PI * (hi * hi * hi - lo * lo * lo);
}

/* Surface area at coordinate x, m2. */
static double hw_area(pcs_heat_wall_geom g, double x, double size)
{
    if (g == PCS_HEAT_WALL_SLAB)
        return size;
    if (g == PCS_HEAT_WALL_CYLINDER)
        return 2.0 * PCS_PI * x * size;
    return size * 4.0 * PCS_PI * x * x;
}

/* Steady conductance of the shell between coordinates a < b, W/K. */
static double hw_conductance(pcs_heat_wall_geom g, double a, double b, double size, double k)
{
    if (g == PCS_HEAT_WALL_SLAB)
        return k * size / (b - a);
    if (g == PCS_HEAT_WALL_CYLINDER)
        return 2.0 * PCS_PI * k * size / pcs_log(b / a);
    return 4.0 * PCS_PI * k * size / (1.0 / a - 1.0 / b);
}

pcs_status pcs_heat_wall_mesh(pcs_heat_wall_geom geom, double x_a_m, double x_b_m, double size,
                              uint32_t n_int, double k_w_mk, double rho_c_j_m3k, double *cap_j_k,
                              double *cond_w_k, double *area_a_m2, double *area_b_m2)
{
    if (!cap_j_k || !cond_w_k || !area_a_m2 || !area_b_m2)
        return pcs_error_set(PCS_E_INVAL, "heat_wall: NULL argument");
    if (geom != PCS_HEAT_WALL_SLAB && geom != PCS_HEAT_WALL_CYLINDER &&
        geom != PCS_HEAT_WALL_SPHERE)
        return pcs_error_set(PCS_E_INVAL,
                             "heat_wall: geometry %d is not 1 (slab), 2 (cylinder) "
                             "or 3 (sphere)",
                             (int)geom);
    double lo = geom == PCS_HEAT_WALL_SLAB ? -1e300 : 0.0;
    if (!(x_a_m >= lo && x_b_m > x_a_m && pcs_isfinite(x_b_m)))
        return pcs_error_set(PCS_E_INVAL,
                             "heat_wall: coordinates x_a = %g m, x_b = %g m: need %sx_a < x_b",
                             x_a_m, x_b_m, geom == PCS_HEAT_WALL_SLAB ? "" : "0 <= ");
    if (geom == PCS_HEAT_WALL_CYLINDER && !(x_a_m > 0.0))
        return pcs_error_set(PCS_E_INVAL, "heat_wall: cylinder inner radius %g m must be > 0",
                             x_a_m);
    if (geom == PCS_HEAT_WALL_SPHERE && !(x_a_m > 0.0 && size <= 1.0))
        return pcs_error_set(PCS_E_INVAL,
                             "heat_wall: sphere inner radius %g m must be > 0 and its fraction "
                             "%g in (0, 1]",
                             x_a_m, size);
    if (!(size > 0.0 && pcs_isfinite(size)))
        return pcs_error_set(PCS_E_INVAL, "heat_wall: size %g must be > 0", size);
    if (n_int < 1u || n_int > 1000u)
        return pcs_error_set(PCS_E_INVAL, "heat_wall: %u intervals is outside [1, 1000]", n_int);
    if (!(k_w_mk > 0.0 && rho_c_j_m3k > 0.0 && pcs_isfinite(k_w_mk) && pcs_isfinite(rho_c_j_m3k)))
        return pcs_error_set(PCS_E_INVAL,
                             "heat_wall: conductivity %g W/(m K) and rho c %g J/(m3 K) must be > 0",
                             k_w_mk, rho_c_j_m3k);
    double dx = (x_b_m - x_a_m) / n_int;
    for (uint32_t i = 0; i <= n_int; i++) {
        double x = i == n_int ? x_b_m : x_a_m + i * dx;
        double x_lo = i == 0 ? x_a_m : x - 0.5 * dx, x_hi = i == n_int ? x_b_m : x + 0.5 * dx;
        cap_j_k[i] = rho_c_j_m3k * hw_volume(geom, x_lo, x_hi, size);
        if (i < n_int) {
            double x_next = i + 1 == n_int ? x_b_m : x_a_m + (i + 1) * dx;
            cond_w_k[i] = hw_conductance(geom, x, x_next, size, k_w_mk);
        }
    }
    *area_a_m2 = hw_area(geom, x_a_m, size);
    *area_b_m2 = hw_area(geom, x_b_m, size);
    return PCS_OK;
}

void pcs_heat_wall_step(uint32_t n, const double *cap_j_k, const double *cond_w_k, double g_a_w_k,
                        double t_a_k, double g_b_w_k, double t_b_k, double inv_dt, double *t_k,
                        double *scratch, double *q_a_w, double *q_b_w)
{
    *q_a_w = *q_b_w = 0.0;
    if (inv_dt == 0.0 && g_a_w_k == 0.0 && g_b_w_k == 0.0)
        return;
    /* Thomas: c' (upper coefficients over the pivots) in scratch[0..n),
       d' in scratch[n..2n); the sub- and super-diagonals are -cond. */
    double *cp = scratch, *dp = scratch + n;
    for (uint32_t i = 0; i < n; i++) {
        double lower = i > 0 ? cond_w_k[i - 1] : 0.0, upper = i + 1 < n ? cond_w_k[i] : 0.0;
        double diag = cap_j_k[i] * inv_dt + lower + upper, rhs = cap_j_k[i] * inv_dt * t_k[i];
        if (i == 0) {
            diag += g_a_w_k;
            rhs += g_a_w_k * t_a_k;
        }
        if (i + 1 == n) {
            diag += g_b_w_k;
            rhs += g_b_w_k * t_b_k;
        }
        if (i > 0) {
            diag -= lower * cp[i - 1];
            rhs += lower * dp[i - 1];
        }
        double inv = 1.0 / diag;
        cp[i] = upper * inv;
        dp[i] = rhs * inv;
    }
    t_k[n - 1] = dp[n - 1];
    for (uint32_t i = n - 1; i-- > 0;)
        t_k[i] = dp[i] + cp[i] * t_k[i + 1];
    *q_a_w = g_a_w_k * (t_a_k - t_k[0]);
    *q_b_w = g_b_w_k * (t_b_k - t_k[n - 1]);
}

double pcs_heat_wall_energy(uint32_t n, const double *cap_j_k, const double *t_k)
{
    double e = 0.0;
    for (uint32_t i = 0; i < n; i++)
        e += cap_j_k[i] * t_k[i];
    return e;
}
