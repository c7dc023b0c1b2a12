/**
 * @file turbine_cmd.c
 * @brief The "turbine" command family (pcsim/turbine.h): manual valve,
 *        load target, trip, reset, runback, generator mode and the host's
 *        load. Handlers run at stage COMMANDS and write the governor's store.
 */
#include <math.h>

#include "pcsim/math.h"
#include "pcsim/plant_signals.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/machines/models/turbine_internal.h"

/* A tripped turbine takes no valve, load or runback command until reset. */
static pcs_status not_tripped(const pcs_command_call *c, const double *g)
{
    if (g[PCS_TURBINE_GOV_TRIPPED] != 0.0)
        return pcs_error_set(PCS_E_STATE,
                             "%s: the turbine is tripped: reset it first (turbine_reset)",
                             c->target_name);
    return PCS_OK;
}

/* A new load target in auto: the demand starts from where it is (in manual
 * it tracked the load carried: bumpless); a load change of at most
 * step_max is a step, a larger one, and every runback, ramps at @p per_min. */
static void load_target(const pcs_turbine *t, double *g, double target, double per_min,
                        int may_step)
{
    g[PCS_TURBINE_GOV_MANUAL] = 0.0;
    g[PCS_TURBINE_GOV_TARGET] = target;
    g[PCS_TURBINE_GOV_RATE] = per_min / 60.0;
    if (may_step && fabs(target - g[PCS_TURBINE_GOV_DEMAND]) <= t->def.step_max + 1e-12)
        g[PCS_TURBINE_GOV_DEMAND] = target;
}

/* Reset: refused while a trip demand stands (the interlocks' flag or the
 * overspeed); then auto at demand 0, the stop valves reopen. */
static pcs_status reset(pcs_world *w, const pcs_command_call *c, const pcs_turbine *t, double *g)
{
    const double *ilk = pcs_store_data(w, t->id_ilk), *gen = pcs_store_data(w, t->id_gen);
    if (ilk[PCS_SIG_TURBINE_TRIP] != 0.0)
        return pcs_error_set(PCS_E_STATE,
                             "%s: turbine reset refused: the interlocks' turbine-trip demand "
                             "(%s.interlock.sig) stands",
                             c->target_name, t->base.unit);
    if (gen[PCS_TURBINE_GEN_OVERSPEED] != 0.0)
        return pcs_error_set(PCS_E_STATE,
                             "%s: turbine reset refused: the shaft is at or above the overspeed "
                             "trip (%g of synchronous speed)",
                             c->target_name, t->def.overspeed_trip);
    g[PCS_TURBINE_GOV_TRIPPED] = 0.0;
    g[PCS_TURBINE_GOV_MANUAL] = 0.0;
    g[PCS_TURBINE_GOV_TARGET] = g[PCS_TURBINE_GOV_DEMAND] = 0.0;
    g[PCS_TURBINE_GOV_RATE] = t->def.ramp_per_min / 60.0;
    g[PCS_TURBINE_GOV_INTEGRAL] = 0.0;
    return PCS_OK;
}

/* Grid -> islanded takes the electrical output of the moment as the load
 * (bumpless); islanded -> grid resynchronises (speed 1, generator's tick). */
static pcs_status generator_mode(pcs_world *w, const pcs_command_call *c, const pcs_turbine *t,
                                 double *g)
{
    double m = c->cmd->args[0];
    if (m != 0.0 && m != 1.0)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: generator mode %g is neither 0 (grid) nor 1 (islanded)",
                             c->target_name, m);
    if (m == 1.0 && g[PCS_TURBINE_GOV_ISLANDED] == 0.0) {
        const double *sig = pcs_store_data(w, t->id_sig);
        g[PCS_TURBINE_GOV_LOAD_TORQUE] = 0.0;
        g[PCS_TURBINE_GOV_LOAD_VALUE] =
            fmin(fmax(sig[PCS_SIG_TURBINE_ELECTRIC_W], 0.0), PCS_TURBINE_POWER_MAX);
    }
    g[PCS_TURBINE_GOV_ISLANDED] = m;
    return PCS_OK;
}

pcs_status pcs_turbine_on_command(pcs_world *w, const pcs_command_call *c)
{
    pcs_turbine *t = c->ctx;
    double *g = pcs_store_data(w, t->id_gov), v = 0.0;
    pcs_status st = PCS_OK;
    switch (c->op) {
    case PCS_TURBINE_OP_VALVE:
        st = pcs_control_arg_in(c, "turbine valve opening", 0.0, 1.0, &v);
        if (st == PCS_OK)
            st = not_tripped(c, g);
        if (st == PCS_OK) {
            g[PCS_TURBINE_GOV_MANUAL] = 1.0;
            g[PCS_TURBINE_GOV_VALVE_TARGET] = v;
        }
        return st;
    case PCS_TURBINE_OP_LOAD:
    case PCS_TURBINE_OP_RUNBACK:
        st = pcs_control_arg_in(c, "turbine load", 0.0, PCS_TURBINE_LOAD_MAX, &v);
        if (st == PCS_OK)
            st = not_tripped(c, g);
        if (st == PCS_OK)
            load_target(t, g, v,
                        c->op == PCS_TURBINE_OP_LOAD ? t->def.ramp_per_min : t->def.runback_per_min,
                        c->op == PCS_TURBINE_OP_LOAD);
        return st;
    case PCS_TURBINE_OP_TRIP:
        g[PCS_TURBINE_GOV_TRIPPED] = 1.0;
        return PCS_OK;
    case PCS_TURBINE_OP_RESET:
        return reset(w, c, t, g);
    case PCS_TURBINE_OP_GENERATOR_MODE:
        return generator_mode(w, c, t, g);
    case PCS_TURBINE_OP_LOAD_TORQUE:
    case PCS_TURBINE_OP_LOAD_POWER: {
        int torque = c->op == PCS_TURBINE_OP_LOAD_TORQUE;
        st = pcs_control_arg_in(c, torque ? "load torque N m" : "load power demand W", 0.0,
                                torque ? PCS_TURBINE_TORQUE_MAX : PCS_TURBINE_POWER_MAX, &v);
        if (st == PCS_OK) {
            g[PCS_TURBINE_GOV_LOAD_TORQUE] = torque ? 1.0 : 0.0;
            g[PCS_TURBINE_GOV_LOAD_VALUE] = v;
        }
        return st;
    }
    default:
        return pcs_error_set(PCS_E_INVAL, "%s: unknown turbine op %u", c->target_name, c->op);
    }
}
