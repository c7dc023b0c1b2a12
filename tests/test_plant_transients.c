/**
 * @file test_plant_transients.c
 * @brief Issue 14's plant behaviour checks: the transients of scenarios/ run
 *        through the station API as `pcsim run` runs them, asserting only
 *        what tests/refdata/pwr_transients.md supports.
 *
 * Windows and their sources (pwr_transients.md; where that file says "not
 * found" only a direction is asserted, and nothing is tuned):
 *  - loss of all forced flow (section 4): the coast-down against the curve
 *    derived from the Salem pump data, W/W0 = 1/(1 + t/12.4 s) (it neglects
 *    the loop fluid's inertia, which slows the first seconds, and buoyancy,
 *    which holds the flow up later: the model may lie a little above it);
 *    the low-flow trip at 90 % (2/4); natural circulation with the core
 *    dT in 25-80 % of the full-power 61 F (8.5-27.1 K) and the flow that
 *    carries the decay heat at that dT; Tcold near Tsat(SG); no boiling in
 *    the core at RCS pressure.
 *  - reactor trip from 100 % with the turbine (section 3): the SG pressure
 *    goes to the steam-dump setpoint, 1092 psig = 7.630 MPa (the no-load SG
 *    pressure, section 1), as a script action until the steam side exists;
 *    Tcold settles within 2 K of its saturation temperature, pressure stays
 *    above the low-pressure SI setpoint 1807 psig (12.56 MPa), the
 *    pressurizer never empties, heaters recover the pressure and charging
 *    brings the level back toward the no-load program.
 *  - heater step (section 2): heaters and sprays in manual, all 1794 kW;
 *    dp/dt over the first 60 s within +-30 % of the derived 1.6 kPa/s. The
 *    pressurizer's wall metal is not modelled (pcsim/pressurizer.h): the
 *    heaters heat only the contents, so the rate sits at the top of the
 *    window (2.0 kPa/s). Full spray: about 39 kg/s and a falling pressure.
 * The release suite runs each transient whole; the ASan suite its first 60 s
 * (the dilution moved from 600 s to 60 s into its scenario, then 60 s of it).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "pcsim/plant.h"
#include "pcsim/primary.h"
#include "pcsim/station.h"
#include "pcsim/water.h"

#if defined(__SANITIZE_ADDRESS__)
#define TR_ASAN 1
#else
#define TR_ASAN 0
#endif

#define TR_DT 0.05
#define TR_RATED_W 3.411e9
#define TR_F_TO_K (5.0 / 9.0)

/* A scenario file built and run tick by tick, its script submitted on time. */
typedef struct tr_run {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    const pcs_primary *pri;
    uint32_t next, n_actions;
    uint64_t tick;
} tr_run;

/* Build and open the scenario r->scn. */
static void tr_build(tr_run *r)
{
    pcs_world_def d = pcs_scenario_world_def(r->scn);
    d.check_finite = 1;
    cr_assert_eq(pcs_world_create(&d, &r->w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(r->w, r->scn, &r->st), PCS_OK, "%s", pcs_last_error());
    r->pri = pcs_plant_unit_get(pcs_station_plant(r->st), 0)->primary;
    r->n_actions = pcs_scenario_action_count(r->scn);
}

static void tr_open(tr_run *r, const char *path)
{
    memset(r, 0, sizeof *r);
    cr_assert_eq(pcs_scenario_load_file(path, NULL, &r->scn), PCS_OK, "%s", pcs_last_error());
    tr_build(r);
}

/* @p text with every script time @p from (JSON text "\"t_s\": FROM,") moved
 * to @p to, into @p out; asserts @p from occurs. */
static void tr_move(const char *text, const char *from, const char *to, char *out, size_t cap)
{
    char key[32];
    snprintf(key, sizeof key, "\"t_s\": %s,", from);
    size_t k = 0, hits = 0;
    for (const char *s = text; *s;) {
        cr_assert_lt(k + 32, cap, "moved scenario text too long");
        if (strncmp(s, key, strlen(key)) == 0) {
            k += (size_t)snprintf(out + k, cap - k, "\"t_s\": %s,", to);
            s += strlen(key);
            hits++;
        } else {
            out[k++] = *s++;
        }
    }
    out[k] = '\0';
    cr_assert_gt(hits, 0, "no script action at t_s %s", from);
}

/* The scenario file at @p path with every script time @p from moved to @p to. */
static void tr_open_moved(tr_run *r, const char *path, const char *from, const char *to)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char text[4096], moved[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    tr_move(text, from, to, moved, sizeof moved);
    cr_assert_eq(pcs_scenario_load_string(path, moved, strlen(moved), NULL, &r->scn), PCS_OK, "%s",
                 pcs_last_error());
    tr_build(r);
}

static void tr_close(tr_run *r)
{
    pcs_station_destroy(r->st);
    pcs_world_destroy(r->w);
    pcs_scenario_destroy(r->scn);
}

static void tr_tick(tr_run *r)
{
    for (; r->next < r->n_actions && pcs_scenario_action_get(r->scn, r->next)->tick <= r->tick;
         r->next++) {
        pcs_command c;
        cr_assert_eq(pcs_station_script_command(r->st, r->scn, r->next, &c), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(pcs_command_submit(r->w, &c), PCS_OK, "%s", pcs_last_error());
    }
    cr_assert_eq(pcs_world_tick(r->w), PCS_OK, "tick %llu: %s", (unsigned long long)r->tick,
                 pcs_last_error());
    r->tick++;
}

/* Simulated time after the ticks run so far, s. */
static double tr_time(const tr_run *r)
{
    return (double)r->tick * TR_DT;
}

static void tr_until(tr_run *r, double t_s)
{
    while (tr_time(r) < t_s - 0.5 * TR_DT)
        tr_tick(r);
}

static double tr_ch(const tr_run *r, const char *name)
{
    uint32_t id;
    cr_assert_eq(pcs_channel_find(r->w, name, &id), PCS_OK, "%s", name);
    return pcs_channel_value(r->w, id);
}

static int tr_scrammed(const tr_run *r)
{
    return ((uint32_t)tr_ch(r, "u1.core.flags") & PCS_UNIT_FLAG_SCRAMMED) != 0;
}

/* Largest void fraction over the core volumes now. */
static double tr_core_void(const tr_run *r)
{
    const double *a = pcs_store_data(r->w, pcs_primary_store_ids(r->pri).void_fraction);
    uint32_t first = pcs_primary_volume(r->pri, PCS_PRIMARY_CORE_FIRST, 0);
    uint32_t n = pcs_primary_def_get(r->pri)->n_core;
    double most = 0.0;
    for (uint32_t k = 0; k < n; k++)
        most = fmax(most, a[first + k]);
    return most;
}

/* ---- loss of all forced flow ------------------------------------------------ */

Test(plant_transients, loss_of_flow_coasts_down_trips_and_settles_in_natural_circulation)
{
    tr_run r;
    tr_open(&r, "scenarios/loss-of-flow.json");
    tr_until(&r, 30.0); /* the four pumps trip at 30 s */
    double w0 = tr_ch(&r, "u1.core.flow");
    double rated = pcs_plant_unit_get(pcs_station_plant(r.st), 0)->rated_loop_flow_kg_s;
    const double marks[] = {5.0, 10.0, 20.0};
    uint32_t next_mark = 0;
    double trip_at = -1.0, most_void = 0.0;
    double end = TR_ASAN ? 90.0 : 3630.0;
    while (tr_time(&r) < end - 0.5 * TR_DT) {
        tr_tick(&r);
        double since = tr_time(&r) - 30.0;
        most_void = fmax(most_void, tr_core_void(&r));
        if (trip_at < 0.0 && tr_scrammed(&r))
            trip_at = since;
        if (next_mark < 3 && fabs(since - marks[next_mark]) < 0.5 * TR_DT) {
            double want = 1.0 / (1.0 + marks[next_mark] / 12.4);
            double got = tr_ch(&r, "u1.core.flow") / w0;
            cr_expect(got >= want - 0.02 && got <= want + 0.05,
                      "W/W0 %.4f at %g s against the derived %.4f", got, marks[next_mark], want);
            next_mark++;
        }
    }
    /* 90 % flow is reached 1.4 s after the trip on the derived curve; the
     * flow sensors' 0.2 s lag, the 2/4 logic and the scram's next-tick
     * action follow. */
    cr_expect(trip_at > 1.0 && trip_at < 3.0, "scram %.2f s after the pumps tripped", trip_at);
    const pcs_protection *rps = pcs_plant_protection(pcs_station_plant(r.st));
    const char *first = pcs_protection_function_name(rps, pcs_protection_first_out(rps, 0));
    cr_expect_str_eq(first ? first : "", "u1.rps.low_flow.1", "first out");
    /* At RCS pressure the core never boils (the loss-of-flow check). */
    cr_expect_eq(most_void, 0.0, "core void fraction %g", most_void);
    if (!TR_ASAN) {
        /* One hour on: natural circulation carries the decay heat. */
        double q = tr_ch(&r, "u1.core.power");
        double dt_core = tr_ch(&r, "u1.core.t_outlet") - tr_ch(&r, "u1.core.t_inlet");
        double full_dt = 61.0 * TR_F_TO_K;
        cr_expect(dt_core >= 0.25 * full_dt && dt_core <= 0.80 * full_dt,
                  "core dT %.2f K outside 25-80 %% of %.2f K", dt_core, full_dt);
        /* Energy balance at that dT: flow fraction = (q / Q0) / (dT / dT0). */
        double f = tr_ch(&r, "u1.core.flow") / (4.0 * rated);
        double lo = (q / TR_RATED_W) / 0.80, hi = (q / TR_RATED_W) / 0.25;
        cr_expect(f >= lo && f <= hi, "natural-circulation flow %.4f of rated outside [%.4f, %.4f]",
                  f, lo, hi);
        double t_sat;
        cr_assert_eq(
            pcs_water_tsat(pcs_plant_unit_get(pcs_station_plant(r.st), 0)->init.sg_pressure_pa,
                           &t_sat),
            PCS_OK);
        cr_expect_float_eq(tr_ch(&r, "u1.loop1.t_cold"), t_sat, 2.0, "Tcold near Tsat(SG)");
    }
    tr_close(&r);
}

/* ---- reactor trip ------------------------------------------------------------- */

Test(plant_transients, reactor_trip_cools_to_the_steam_dump_setpoint_without_si)
{
    tr_run r;
    tr_open(&r, "scenarios/reactor-trip.json");
    double end = TR_ASAN ? 90.0 : 930.0, p_min = INFINITY, level_min = INFINITY;
    while (tr_time(&r) < end - 0.5 * TR_DT) {
        tr_tick(&r);
        p_min = fmin(p_min, tr_ch(&r, "u1.pzr.pressure"));
        level_min = fmin(level_min, tr_ch(&r, "u1.pzr.level"));
    }
    cr_expect(tr_scrammed(&r));
    /* Low-pressure SI at 1807 psig = 12.56 MPa abs ([HRTD] 12.3). */
    cr_expect_gt(p_min, 12.56e6, "pressure fell to %g Pa: SI", p_min);
    cr_expect_gt(level_min, 0.0, "the pressurizer emptied");
    /* The heat-up from the SG pressure step comes before the cool-down:
     * pressure must still have dipped below its starting 15.51 MPa. */
    cr_expect_lt(p_min, 15.0e6, "no pressure dip (min %g Pa)", p_min);
    if (!TR_ASAN) {
        /* Heaters recover the pressure and charging brings the level back
         * toward its 25 % no-load program ([HRTD] 10.3: the level program's
         * basis); the settling time is "not found": direction only. */
        cr_expect_gt(tr_ch(&r, "u1.pzr.pressure"), p_min + 1.0e6, "pressure not recovering");
        cr_expect_float_eq(tr_ch(&r, "u1.pzr.level"), 25.0, 2.0, "level %.2f %%",
                           tr_ch(&r, "u1.pzr.level"));
        double t_sat;
        cr_assert_eq(pcs_water_tsat(7.630e6, &t_sat), PCS_OK);
        cr_expect_float_eq(tr_ch(&r, "u1.loop1.t_cold"), t_sat, 2.0,
                           "Tcold %.2f K against Tsat(7.630 MPa) %.2f K",
                           tr_ch(&r, "u1.loop1.t_cold"), t_sat);
    }
    tr_close(&r);
}

/* ---- pressurizer heaters --------------------------------------------------------- */

Test(plant_transients, heater_step_raises_pressure_at_the_derived_rate_and_spray_lowers_it)
{
    tr_run r;
    tr_open(&r, "scenarios/pressurizer-heaters.json");
    tr_until(&r, 30.0); /* heaters and sprays to manual, all heaters on at 30 s */
    double p0 = tr_ch(&r, "u1.pzr.pressure");
    tr_until(&r, 90.0);
    double rate = (tr_ch(&r, "u1.pzr.pressure") - p0) / 60.0;
    cr_expect(rate >= 0.7 * 1600.0 && rate <= 1.3 * 1600.0,
              "heater step: %.1f Pa/s over 60 s against 1600 +-30 %%", rate);
    cr_expect_float_eq(tr_ch(&r, "u1.pzr.heaters"), 1.794e6, 1.0, "all 1794 kW delivered");
    if (!TR_ASAN) {
        /* Off at 210 s: the pressure holds (no heat in, no spray). */
        tr_until(&r, 240.0);
        double p1 = tr_ch(&r, "u1.pzr.pressure");
        tr_until(&r, 270.0);
        cr_expect_lt(fabs(tr_ch(&r, "u1.pzr.pressure") - p1) / 30.0, 0.1 * 1600.0,
                     "pressure still moving with heaters and sprays off");
        /* Full spray at 270 s: 840 gpm, about 39 kg/s at cold-leg conditions
         * (pwr_transients.md section 2; the kernel's 39.4 plus the 2 x 1 gpm
         * bypass), and the pressure falls; no rate is asserted ("not found"). */
        double p2 = tr_ch(&r, "u1.pzr.pressure");
        tr_until(&r, 300.0);
        cr_expect_float_eq(tr_ch(&r, "u1.pzr.spray"), 39.4 + 0.0937, 0.5, "spray %g kg/s",
                           tr_ch(&r, "u1.pzr.spray"));
        cr_expect_lt(tr_ch(&r, "u1.pzr.pressure"), p2 - 0.1e6, "full spray lowers pressure");
    }
    tr_close(&r);
}

/* ---- boron dilution ------------------------------------------------------------ */

/* Coolant mass that the CVCS flow mixes with, kg: the network's volumes
 * without the dead-end upper head and the pressurizer (which exchanges only
 * through surge and spray); the same M as the primary's own dilution test
 * (tests/test_cvcs.c). */
static double tr_mixed_mass(const tr_run *r)
{
    const double *m = pcs_store_data(r->w, pcs_primary_store_ids(r->pri).mass);
    uint32_t head = pcs_primary_volume(r->pri, PCS_PRIMARY_UPPER_HEAD, 0);
    uint32_t pzr = pcs_primary_volume(r->pri, PCS_PRIMARY_PRESSURIZER, 0);
    double total = 0.0;
    for (uint32_t i = 0; i < pcs_primary_n_volumes(r->pri); i++)
        if (i != head && i != pzr)
            total += m[i];
    return total;
}

/*
 * Issue 14's boron check: with charging equal to letdown (both 9 kg/s, level
 * control in manual) and charging water at C_in = 0 ppm, the core's boron
 * follows C_in + (C0 - C_in) exp(-t / tau), tau = M / m_charging, within 1 %
 * after the transport delay, and the kinetics' boron reactivity is the
 * worth (pcs_unit_def.feedback.boron_per_ppm, an assumption: refdata has
 * only critical concentrations) times the core's boron minus its reference.
 * The unit is tripped first so the dilution's reactivity (about +700 pcm
 * over the run) meets the shutdown margin, not a power excursion.
 */
Test(plant_transients, dilution_follows_the_well_mixed_exponential_and_its_worth)
{
    tr_run r;
    /* The ASan suite starts the dilution at 60 s, not 600 s (the tripped unit
     * cooling at the dump setpoint meanwhile), and runs it 60 s: the same
     * commands and code on numbers the release suite checks whole. */
    const double start = TR_ASAN ? 60.0 : 600.0;
    if (TR_ASAN)
        tr_open_moved(&r, "scenarios/boron-dilution.json", "600", "60");
    else
        tr_open(&r, "scenarios/boron-dilution.json");
    tr_until(&r, start); /* dilution starts: 9 kg/s of 0 ppm water in, 9 kg/s out */
    double c0 = tr_ch(&r, "u1.core.boron"), tau = tr_mixed_mass(&r) / 9.0;
    double end = start + (TR_ASAN ? 60.0 : 1800.0), worst = 0.0, c_before = c0;
    while (tr_time(&r) < end - 0.5 * TR_DT) {
        c_before = tr_ch(&r, "u1.core.boron");
        tr_tick(&r);
        double t = tr_time(&r) - start;
        if (t < 60.0) /* the transport delay: cold legs to core, a few loop transits */
            continue;
        double want = c0 * exp(-t / tau), got = tr_ch(&r, "u1.core.boron");
        worst = fmax(worst, fabs(got - want) / want);
    }
    cr_expect_lt(worst, 0.01, "core boron off the exponential by %.4f of C (tau %.0f s)", worst,
                 tau);
    cr_expect_lt(tr_ch(&r, "u1.core.boron"), c0, "no dilution");
    const pcs_plant_unit *pu = pcs_plant_unit_get(pcs_station_plant(r.st), 0);
    pcs_unit_reactivity rho;
    pcs_unit_reactivity_get(pu->core, &rho);
    /* The kinetics of a tick read the boron the couple handed on at the end
     * of the tick before (plant.h: data moves forward only). */
    double worth = -1e-4, c_ref = 975.0; /* pcs_unit_default: -10 pcm/ppm at 975 ppm */
    cr_expect_float_eq(rho.boron, worth * (c_before - c_ref), 1e-12,
                       "boron reactivity %.12g against %.12g", rho.boron,
                       worth * (c_before - c_ref));
    tr_close(&r);
}

/* ---- start-up ------------------------------------------------------------------ */

/*
 * From hot zero power (1e-5 of rated, pumps on, Tavg at the no-load 557 F,
 * bank D at 60 %) to about 30 % by rod withdrawal and dilution while the
 * steam demand (the SG pressure, until the steam side exists) steps down
 * toward its 30 % value. The checks are the controls' and the protection's,
 * not a power trajectory (none in refdata): no trip on the way, power ends
 * in 20-40 %, Tavg within 3 K of the program for the power reached ([HRTD]
 * 8.1: Tref = 557 + 27.7 f F), pressurizer pressure held within 0.7 MPa of
 * 2235 psig by heaters and sprays, and the level within 5 % of its
 * program by charging.
 */
Test(plant_transients, startup_from_hot_zero_power_to_thirty_percent)
{
    tr_run r;
    tr_open(&r, "scenarios/startup.json");
    double end = TR_ASAN ? 60.0 : 2400.0, p_dev = 0.0;
    while (tr_time(&r) < end - 0.5 * TR_DT) {
        tr_tick(&r);
        cr_assert_eq(tr_ch(&r, "u1.core.trip"), 0.0, "tripped at %.2f s", tr_time(&r));
        p_dev = fmax(p_dev, fabs(tr_ch(&r, "u1.pzr.pressure") - 15.513e6));
    }
    cr_expect_lt(p_dev, 0.7e6, "pressure strayed %.3f MPa from its setpoint", p_dev / 1e6);
    if (!TR_ASAN) {
        double f = tr_ch(&r, "u1.core.power") / TR_RATED_W;
        cr_expect(f > 0.20 && f < 0.40, "power %.3f of rated", f);
        double program = 564.8 + f * (580.2 - 564.8);
        cr_expect_float_eq(tr_ch(&r, "u1.rcs.t_avg"), program, 3.0, "Tavg %.2f against %.2f",
                           tr_ch(&r, "u1.rcs.t_avg"), program);
        double level_program = 25.0 + (tr_ch(&r, "u1.rcs.t_avg") - 564.8) / (580.2 - 564.8) * 36.5;
        cr_expect_float_eq(tr_ch(&r, "u1.pzr.level"), level_program, 5.0, "level %.2f against %.2f",
                           tr_ch(&r, "u1.pzr.level"), level_program);
        cr_expect_lt(tr_ch(&r, "u1.core.boron"), 975.0, "diluted");
    }
    tr_close(&r);
}

/* ---- the default scenario ------------------------------------------------------ */

/*
 * Issue 14's "done" line: after the default scenario's transients (u1 bank D
 * withdrawn at 60 s and a main feed pump tripped at 300 s, then a low-low SG
 * level trip; u2 pump 2 tripped at 120 s; u3's turbine load stepped down at
 * 180 s and back at 420 s) each disturbed unit's RCS pressure moves by more than
 * 0.1 MPa, its pressurizer level by more than 2 % and a leg temperature by more than 1 K; u4
 * (untouched, at 50 %) stays within those bounds. The ASan suite moves the first two actions
 * (60 s to 10 s, 120 s to 20 s), runs to 32 s and checks u2 only.
 */
Test(plant_transients, default_scenario_moves_pressure_level_and_temperatures)
{
    pcs_scenario *scn;
    if (TR_ASAN) {
        /* Under ASan the rod withdrawal moves from 60 s to 10 s and u2's pump
         * trip from 120 s to 20 s: the same commands and the same 12 s after
         * the trip, without 100 s of four steady units before them. */
        static char a[8192], b[8192];
        tr_move(pcs_scenario_default_text(), "60", "10", a, sizeof a);
        tr_move(a, "120", "20", b, sizeof b);
        cr_assert_eq(pcs_scenario_load_string("default-moved", b, strlen(b), NULL, &scn), PCS_OK,
                     "%s", pcs_last_error());
    } else {
        cr_assert_eq(pcs_scenario_default(&scn), PCS_OK);
    }
    tr_run r;
    memset(&r, 0, sizeof r);
    r.scn = scn;
    pcs_world_def d = pcs_scenario_world_def(scn);
    d.workers = 0;
    cr_assert_eq(pcs_world_create(&d, &r.w), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_station_add(r.w, scn, &r.st), PCS_OK, "%s", pcs_last_error());
    r.n_actions = pcs_scenario_action_count(scn);
    static const char *const what[] = {"rcs.pressure", "pzr.level", "loop1.t_hot"};
    const double least[] = {0.1e6, 2.0, 1.0};
    double lo[4][3], hi[4][3];
    for (int u = 0; u < 4; u++)
        for (int k = 0; k < 3; k++)
            lo[u][k] = INFINITY, hi[u][k] = -INFINITY;
    double end = TR_ASAN ? 32.0 : 450.0;
    while (tr_time(&r) < end - 0.5 * TR_DT) {
        tr_tick(&r);
        for (int u = 0; u < 4; u++)
            for (int k = 0; k < 3; k++) {
                char name[48];
                snprintf(name, sizeof name, "u%d.%s", u + 1, what[k]);
                double v = tr_ch(&r, name);
                lo[u][k] = fmin(lo[u][k], v);
                hi[u][k] = fmax(hi[u][k], v);
            }
    }
    for (int u = 0; u < 4; u++)
        for (int k = 0; k < 3; k++) {
            if (TR_ASAN && u != 1)
                continue;
            double moved = hi[u][k] - lo[u][k];
            if (u < 3)
                cr_expect_gt(moved, least[k], "u%d.%s moved %g", u + 1, what[k], moved);
            else
                cr_expect_lt(moved, least[k], "u4.%s moved %g with nothing done to it", what[k],
                             moved);
        }
    tr_close(&r);
}
