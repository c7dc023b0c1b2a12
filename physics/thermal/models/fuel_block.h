/**
 * @file fuel_block.h
 * @brief The fuel sweep's block passes (fuel_solve.c), included once per
 *        instruction set: define FB_TARGET (a target attribute or nothing)
 *        and FB_NAME(x) (x with a suffix) before including it. No include
 *        guard on purpose. Private to fuel_solve.c.
 */
/* NOLINTBEGIN: the same functions under several names */

/*
 * Conductance of one face for every lane, W/K: gfac times the table's
 * conductivity at the mean of the two nodes. The same arithmetic as
 * pcs_prop_table_eval (prop_table.h), split so that the clamps, the index
 * and the interpolation run as vector loops and only the two table reads
 * are per lane.
 */
FB_TARGET static void FB_NAME(face_conductance)(const pcs_prop_table *tab, double gfac,
                                                const double t_in[PCS_FUEL_LANES],
                                                const double t_out[PCS_FUEL_LANES],
                                                double g[PCS_FUEL_LANES])
{
    enum { L = PCS_FUEL_LANES };
    const double lo = tab->t_lo_k, inv_step = tab->inv_step, x_max = tab->x_max;
    const int32_t i_max = (int32_t)tab->n - 2;
    double f[L], v0[L], v1[L];
    int32_t idx[L];
    for (uint32_t l = 0; l < L; l++) {
        double x = (0.5 * (t_in[l] + t_out[l]) - lo) * inv_step;
        /* Both tests on x as computed: in prop_table.h's order the second
         * sees the first's result, which is the same (NaN -> 0 is not above
         * x_max), and gcc keeps two independent selects branch-free. */
        int below = !(x >= 0.0), above = x > x_max;
        x = below ? 0.0 : x;
        x = above ? x_max : x;
        int32_t i = (int32_t)x;
        i = i > i_max ? i_max : i;
        idx[l] = i;
        f[l] = x - (double)i;
    }
    for (uint32_t l = 0; l < L; l++) {
        v0[l] = tab->v[idx[l]];
        v1[l] = tab->v[idx[l] + 1];
    }
    for (uint32_t l = 0; l < L; l++)
        g[l] = gfac * (v0[l] + f[l] * (v1[l] - v0[l]));
}

/*
 * Pass 1 for block b: conductances at the old temperatures and the forward
 * elimination of the solid rows 0..n_r-2,
 *   -g[i-1] x[i-1] + (C_i/dt + g[i-1] + g[i]) x[i] - g[i] x[i+1] = rhs_i,
 * Thomas with e_i = -c'_i >= 0 (the rows are an M-matrix). Leaves e and d of
 * those rows in the block's scratch, and per lane what the march needs: the
 * face conductance below the wall, the old wall temperature, the film
 * conductance.
 */
FB_TARGET static void FB_NAME(forward_block)(pcs_fuel_model *m, uint32_t b, double inv_dt,
                                             double power_w)
{
    enum { L = PCS_FUEL_LANES };
    const uint32_t nf = m->n_f, nr = m->n_r;
    const size_t nodes = (size_t)m->n_ch * m->n_ax, base = (size_t)b * L;
    double t[PCS_FUEL_MAX_RADIAL][L], g[PCS_FUEL_MAX_RADIAL][L], q[L];
    const double *src[L];
    for (uint32_t l = 0; l < L; l++) {
        size_t n = lane_node(nodes, b, l);
        src[l] = m->t_rod + n * nr;
        q[l] = power_w * m->q_fuel[n];
    }
    for (uint32_t r = 0; r < nr; r++)
        for (uint32_t l = 0; l < L; l++)
            t[r][l] = src[l][r];
    for (uint32_t i = 0; i + 1 < nf; i++)
        FB_NAME(face_conductance)(&m->k_fuel, m->gfac[i], t[i], t[i + 1], g[i]);
    for (uint32_t l = 0; l < L; l++)
        g[nf - 1][l] = m->gfac[nf - 1];
    for (uint32_t i = nf; i + 1 < nr; i++)
        FB_NAME(face_conductance)(&m->k_clad, m->gfac[i], t[i], t[i + 1], g[i]);
    /* e and d on the stack, copied out after: writing the scratch directly
     * would need alias checks, which gcc -O2's cost model does not vectorise. */
    double e[PCS_FUEL_MAX_RADIAL][L], d[PCS_FUEL_MAX_RADIAL][L];
    double g_left[L] = {0}, e_prev[L] = {0}, d_prev[L] = {0};
    for (uint32_t i = 0; i + 1 < nr; i++) {
        double c_dt = m->cap[i] * inv_dt, gen = m->gen[i];
        for (uint32_t l = 0; l < L; l++) {
            double den = c_dt + g_left[l] + g[i][l] - g_left[l] * e_prev[l];
            double inv = 1.0 / den;
            e[i][l] = g[i][l] * inv;
            d[i][l] = (c_dt * t[i][l] + gen * q[l] + g_left[l] * d_prev[l]) * inv;
            g_left[l] = g[i][l];
            e_prev[l] = e[i][l];
            d_prev[l] = d[i][l];
        }
    }
    memcpy(m->blk_e + base * nr, e, (size_t)(nr - 1u) * sizeof e[0]);
    memcpy(m->blk_d + base * nr, d, (size_t)(nr - 1u) * sizeof d[0]);
    double cp[L], kw[L], mu[L], g_conv[L];
    for (uint32_t l = 0; l < L; l++) {
        size_t n = lane_node(nodes, b, l);
        cp[l] = m->cp[n];
        kw[l] = m->kw[n];
        mu[l] = m->mu[n];
    }
    /* Film conductance, W/K: Dittus-Boelter with a laminar floor. Re^0.8
     * Pr^0.4 is (Re^2 Pr)^0.4 by pcs_pow04 (pow_fixed.h: within 2e-14 of
     * pow), evaluated for every lane and then selected, in loops without
     * branches, so each vectorises. */
    double re[L], arg[L], nu[L];
    for (uint32_t l = 0; l < L; l++) {
        re[l] = m->nd_flux_dh[base + l] / mu[l];
        double pr = cp[l] * mu[l] / kw[l];
        arg[l] = pcs_pow04_arg(re[l] * re[l] * pr);
    }
    for (uint32_t l = 0; l < L; l++)
        nu[l] = 0.023 * pcs_pow04(arg[l]);
    const double nu_lam = m->nu_laminar;
    for (uint32_t l = 0; l < L; l++) {
        double nu_l = re[l] > 0.0 ? nu[l] : 0.0;
        nu_l = nu_l < nu_lam ? nu_lam : nu_l;
        g_conv[l] = nu_l * kw[l] / m->d_h_m * m->film_area_m2;
    }
    for (uint32_t l = 0; l < L; l++) {
        m->nd_g_below[base + l] = g_left[l];
        m->nd_t_wall[base + l] = t[nr - 1][l];
        m->nd_wall_new[base + l] = t[nr - 1][l];
        m->nd_g_conv[base + l] = g_conv[l];
    }
}

/* Pass 3 for block b: back substitution from the new wall temperature,
 * and the per-rod-node figures the summary needs (node_stats' arithmetic,
 * lane by lane). */
FB_TARGET static void FB_NAME(back_block)(pcs_fuel_model *m, uint32_t b)
{
    enum { L = PCS_FUEL_LANES };
    const uint32_t nr = m->n_r, nf = m->n_f;
    const size_t nodes = (size_t)m->n_ch * m->n_ax, base = (size_t)b * L;
    const double *restrict e = m->blk_e + base * nr, *restrict d = m->blk_d + base * nr;
    double t[PCS_FUEL_MAX_RADIAL][L], x[L];
    for (uint32_t l = 0; l < L; l++) {
        x[l] = m->nd_wall_new[base + l];
        t[nr - 1][l] = x[l];
    }
    for (uint32_t i = nr - 1; i-- > 0;) {
        const double *e_i = e + (size_t)i * L, *d_i = d + (size_t)i * L;
        for (uint32_t l = 0; l < L; l++) {
            x[l] = d_i[l] + e_i[l] * x[l];
            t[i][l] = x[l];
        }
    }
    double fuel[L] = {0}, f_max[L] = {0}, c_max[L] = {0};
    for (uint32_t i = 0; i < nf; i++) {
        double gen = m->gen[i];
        for (uint32_t l = 0; l < L; l++) {
            fuel[l] += gen * t[i][l];
            f_max[l] = t[i][l] > f_max[l] ? t[i][l] : f_max[l];
        }
    }
    for (uint32_t i = nf; i < nr; i++)
        for (uint32_t l = 0; l < L; l++)
            c_max[l] = t[i][l] > c_max[l] ? t[i][l] : c_max[l];
    for (uint32_t l = 0; l < L; l++) {
        m->nd_fuel[base + l] = fuel[l];
        m->nd_fuel_max[base + l] = f_max[l];
        m->nd_clad_max[base + l] = c_max[l];
    }
    if (base + L <= nodes) {
        double *dst[L];
        for (uint32_t l = 0; l < L; l++)
            dst[l] = m->t_rod + (base + l) * nr;
        for (uint32_t r = 0; r < nr; r++)
            for (uint32_t l = 0; l < L; l++)
                dst[l][r] = t[r][l];
        return;
    }
    for (uint32_t l = 0; l < L && base + l < nodes; l++) {
        double *dst = m->t_rod + (base + l) * nr;
        for (uint32_t r = 0; r < nr; r++)
            dst[r] = t[r][l];
    }
}

/* NOLINTEND */
