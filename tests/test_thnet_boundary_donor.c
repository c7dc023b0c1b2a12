/**
 * @file test_thnet_boundary_donor.c
 * @brief A junction to a boundary volume carries the enthalpy of the side
 *        its solved flow leaves (pcsim/thnet.h), also when the flow
 *        reverses within the step by less than the re-solve threshold: the
 *        boundary stands for another model (the primary's pressurizer),
 *        which moves the same mass at that enthalpy, so the network must
 *        report the same energy or the two models make or destroy it.
 *
 * The case, both ways: a 10 m3 liquid volume (15.5 MPa, 1.3 MJ/kg, about
 * 6400 kg) joined by the default junction (0.01 m2, 1 m) to a boundary at
 * 1.6 MJ/kg (the pressurizer liquid's enthalpy is about 1.63), the
 * start-of-step flow 0.05 kg/s one way and the boundary 200 Pa against it,
 * no gravity. The step's flow ends about 0.01 kg/s the other way (hand
 * estimate: W' = (w + dt dp / I) / (1 + dt^2 K / I), I = L / A = 100 m^-1,
 * K = dp/dM of the liquid about 1.5e5 Pa/kg, so -0.05 / 4.75), moving
 * 5e-4 kg, below the 1e-5 x 6400 kg = 0.064 kg at which the network
 * re-solves with the new donor: the regime in which the matrix's assumed
 * donor is kept for internal junctions. Expected, to round-off (1e-12):
 * the boundary energy = the boundary mass x the enthalpy of the side the
 * solved flow leaves (the boundary's 1.6 MJ/kg for a flow out of it, the
 * volume's start-of-step 1.3 MJ/kg for a flow into it), and the volume's
 * energy changes by exactly that. Before the fix the network carried the
 * assumed donor's, 0.3 MJ/kg off. Cost: two one-step networks.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "pcsim/thnet.h"

#define DT 0.05
#define H_VOL 1.3e6
#define H_BND 1.6e6
#define P0 15.5e6

/* One step from flow w0 (+: volume -> boundary) with the boundary at
   P0 - dp_against * sign(w0); checks the file comment's expectations. */
static void reversal(double w0)
{
    pcs_thnet_volume_def v[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pcs_thnet_volume_default(&v[i]), PCS_OK);
    v[0].volume_m3 = 10.0, v[0].p_pa = P0, v[0].h_j_kg = H_VOL;
    v[1].boundary = 1, v[1].p_pa = P0 + (w0 > 0.0 ? 200.0 : -200.0), v[1].h_j_kg = H_BND;
    pcs_thnet_junction_def j;
    cr_assert_eq(pcs_thnet_junction_default(&j), PCS_OK);
    j.from = 0, j.to = 1;
    pcs_thnet_def d;
    cr_assert_eq(pcs_thnet_default(&d), PCS_OK);
    d.volumes = v, d.n_volumes = 2, d.junctions = &j, d.n_junctions = 1, d.gravity_m_s2 = 0.0;
    pcs_thnet *net;
    cr_assert_eq(pcs_thnet_create(&d, &net), PCS_OK, "%s", pcs_last_error());
    size_t bytes = pcs_thnet_state_bytes(net);
    void *mem = malloc(bytes);
    pcs_thnet_state s;
    cr_assert_eq(pcs_thnet_state_bind(net, mem, bytes, &s), PCS_OK);
    cr_assert_eq(pcs_thnet_state_init(net, &s), PCS_OK, "%s", pcs_last_error());
    s.flow_kg_s[0] = w0;
    double m0 = s.mass_kg[0], u0 = s.energy_j[0], h0 = s.h_j_kg[0];
    pcs_thnet_report r;
    cr_assert_eq(pcs_thnet_step(net, &s, NULL, DT, &r), PCS_OK, "%s", pcs_last_error());
    double w = s.flow_kg_s[0];
    /* the case: reversed, below the re-solve threshold */
    cr_assert(w * w0 < 0.0 && fabs(w) * DT < 1e-5 * m0,
              "start flow %g kg/s: the step's flow %g kg/s should reverse and move less than "
              "1e-5 x %g kg",
              w0, w, m0);
    double h_up = w > 0.0 ? h0 : H_BND; /* the side the solved flow leaves */
    cr_expect_leq(fabs(r.boundary_mass_in_kg + DT * w), 1e-15 * m0,
                  "boundary mass in %.17g kg, -dt W' = %.17g", r.boundary_mass_in_kg, -DT * w);
    cr_expect_leq(fabs(r.boundary_energy_in_j - r.boundary_mass_in_kg * h_up),
                  1e-12 * fabs(r.boundary_mass_in_kg * h_up),
                  "start flow %g, end %g kg/s: boundary energy in %.9g J, boundary mass %.6g kg x "
                  "the upwind h %.6g J/kg = %.9g J (volume %.6g, boundary %.6g)",
                  w0, w, r.boundary_energy_in_j, r.boundary_mass_in_kg, h_up,
                  r.boundary_mass_in_kg * h_up, h0, H_BND);
    cr_expect_leq(fabs(s.energy_j[0] - u0 - r.boundary_energy_in_j), 1e-15 * u0,
                  "volume energy change %.9g J, boundary energy in %.9g J", s.energy_j[0] - u0,
                  r.boundary_energy_in_j);
    pcs_thnet_destroy(net);
    free(mem);
}

/* Assumed donor the volume (flow out of it), solved flow out of the boundary. */
Test(thnet_boundary_donor, outflow_reversing_into_the_volume_carries_the_boundary_h)
{
    reversal(0.05);
}

/* Assumed donor the boundary, solved flow into it from the volume. */
Test(thnet_boundary_donor, inflow_reversing_into_the_boundary_carries_the_volume_h)
{
    reversal(-0.05);
}
