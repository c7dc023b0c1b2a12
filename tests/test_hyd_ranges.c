/**
 * @file test_hyd_ranges.c
 * @brief The hydraulics builder's per-element range checks: an unbounded
 *        field ("(0, inf)") refuses infinity as well as zero, and every
 *        message names element, field, value and range.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/hydraulics.h"
#include "pcsim/pcsim.h"

/* Two 1 m3 nodes joined by a pump junction and a pipe. */
static pcs_hydraulics_node nodes[2];
static pcs_hydraulics_junction junctions[2];
static pcs_hydraulics_pump pump;

static pcs_hydraulics_def two_node_loop(void)
{
    pcs_hydraulics_def c;
    pcs_hydraulics_default(&c);
    nodes[0] = nodes[1] = (pcs_hydraulics_node){.role = PCS_HYDRAULICS_PLAIN, .volume_m3 = 1.0};
    const pcs_hydraulics_junction pipe = {
        .kind = PCS_HYDRAULICS_PIPE, .length_m = 5.0, .area_m2 = 0.1, .diameter_m = 0.357};
    junctions[0] = junctions[1] = pipe;
    junctions[0].kind = PCS_HYDRAULICS_PUMP;
    junctions[0].to = 1;
    junctions[1].from = 1;
    pump = (pcs_hydraulics_pump){.rated_speed_rad_s = 100.0,
                                 .rated_dp_pa = 2e5,
                                 .rated_flow_kg_s = 500.0,
                                 .shutoff_ratio = 1.25,
                                 .inertia_kg_m2 = 50.0,
                                 .efficiency = 0.8,
                                 .initial_speed_frac = 1.0};
    c.n_nodes = 2;
    c.n_junctions = 2;
    c.n_pumps = 1;
    c.nodes = nodes;
    c.junctions = junctions;
    c.pumps = &pump;
    return c;
}

/* pcs_hydraulics_add of c fails with exactly message want. */
static void refused_with(const pcs_hydraulics_def *c, const char *want)
{
    pcs_world_def wc;
    pcs_world_default(&wc);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_hydraulics *h;
    cr_assert_eq(pcs_hydraulics_add(w, 0, c, &h), PCS_E_INVAL);
    cr_assert_str_eq(pcs_last_error(), want);
    pcs_world_destroy(w);
}

Test(hyd_ranges, the_loop_itself_builds)
{
    pcs_hydraulics_def c = two_node_loop();
    pcs_world_def wc;
    pcs_world_default(&wc);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wc, &w), PCS_OK);
    pcs_hydraulics *h;
    cr_assert_eq(pcs_hydraulics_add(w, 0, &c, &h), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(w);
}

Test(hyd_ranges, unbounded_fields_refuse_infinity)
{
    pcs_hydraulics_def c = two_node_loop();
    junctions[1].length_m = INFINITY;
    refused_with(&c, "hydraulics: junctions[1].length_m = inf is outside (0, inf)");
    c = two_node_loop();
    pump.inertia_kg_m2 = INFINITY;
    refused_with(&c, "hydraulics: pumps[0].inertia_kg_m2 = inf is outside (0, inf)");
}

Test(hyd_ranges, messages_name_element_field_value_and_range)
{
    pcs_hydraulics_def c = two_node_loop();
    junctions[0].diameter_m = 0.0;
    refused_with(&c, "hydraulics: junctions[0].diameter_m = 0 is outside (0, inf)");
    c = two_node_loop();
    pump.shutoff_ratio = 1.0;
    refused_with(&c, "hydraulics: pumps[0].shutoff_ratio = 1 is outside (1, inf)");
    c = two_node_loop();
    pump.efficiency = 1.5;
    refused_with(&c, "hydraulics: pumps[0].efficiency = 1.5 is outside (0, 1]");
    c = two_node_loop();
    pump.initial_speed_frac = NAN;
    refused_with(&c, "hydraulics: pumps[0].initial_speed_frac = nan is outside [0, 1.5]");
    c = two_node_loop();
    nodes[1].volume_m3 = 0.0;
    refused_with(&c, "hydraulics: nodes[1].volume_m3 = 0 is outside (0, inf)");
    c = two_node_loop();
    nodes[0].compliance_kg_pa = -1.0;
    refused_with(&c, "hydraulics: nodes[0].compliance_kg_pa = -1 is outside [0, inf)");
    c = two_node_loop();
    c.mu_pa_s = 2.0;
    refused_with(&c, "hydraulics: mu_pa_s = 2 is outside [1e-07, 1]");
}
