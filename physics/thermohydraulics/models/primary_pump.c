/**
 * @file primary_pump.c
 * @brief A reactor coolant pump taken out of its loop and put back while
 *        the world runs (pcsim/primary.h, pcs_primary_pump_remove).
 *
 * The removal is state: the pump's pump_on element holds
 * PCS_PRIMARY_PUMP_REMOVED, in a STATE store, so it is hashed and saved
 * with the rest (no new store: one would move every station's hash). The
 * network's connection of the pump junction follows that element:
 * remove and install set both, and the tick (pcs_primary_pumps_sync) puts
 * the junction right when a load brought a pump_on the network does not
 * have yet, which the engine's re-application of the structure log on load
 * (pcsim/structure.h) makes the exception. The stores keep their rows: an
 * installed pump is the same element of pump_speed and pump_on.
 */
#include "physics/thermohydraulics/models/primary_internal.h"

const pcs_thnet *pcs_primary_network(const pcs_primary *pr)
{
    return pr ? pr->net : NULL;
}

uint32_t pcs_primary_pump_junction(const pcs_primary *pr, uint32_t loop)
{
    return pr && loop < pr->nl ? pr->j_pump[loop] : UINT32_MAX;
}

int pcs_primary_pump_installed(pcs_world *w, const pcs_primary *pr, uint32_t pump)
{
    if (!w || !pr || pump >= pr->nl)
        return 0;
    const double *on = pcs_store_data(w, pr->s.pump_on);
    return on[pump] != PCS_PRIMARY_PUMP_REMOVED;
}

static pcs_status pump_arg(pcs_world *w, const pcs_primary *pr, uint32_t pump, const char *fn)
{
    if (!w || !pr)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    if (pump >= pr->nl)
        return pcs_error_set(PCS_E_INVAL, "%s: %s has pumps 0..%u (pump1..pump%u), not %u", fn,
                             pr->unit, pr->nl - 1u, pr->nl, pump);
    return PCS_OK;
}

/* Pump @p pump in (1) or out (0): the store elements and the junction. */
static pcs_status pump_set(pcs_world *w, pcs_primary *pr, uint32_t pump, int in, const char *fn)
{
    pcs_status st = pump_arg(w, pr, pump, fn);
    if (st != PCS_OK)
        return st;
    if (pcs_primary_pump_installed(w, pr, pump) == in)
        return pcs_error_set(PCS_E_STATE, "%s: %s.pump%u is already %s", fn, pr->unit, pump + 1,
                             in ? "installed" : "removed");
    primary_view v;
    pcs_primary_view(w, pr, &v);
    /* out: no shaft, no motor; in: at rest with the motor off (pump_start
       runs it up) */
    v.speed[pump] = 0.0;
    v.pump_on[pump] = in ? 0.0 : PCS_PRIMARY_PUMP_REMOVED;
    st = pcs_thnet_junction_connect(pr->net, &v.st, pr->j_pump[pump], in);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s: %s.pump%u: %s", fn, pr->unit, pump + 1, pcs_last_error());
    pr->pump_dp[pr->j_pump[pump]] = 0.0;
    pcs_primary_outputs(pr, &v); /* the loop's flow channel reads 0 from now */
    return PCS_OK;
}

pcs_status pcs_primary_pump_remove(pcs_world *w, pcs_primary *pr, uint32_t pump)
{
    return pump_set(w, pr, pump, 0, "pcs_primary_pump_remove");
}

pcs_status pcs_primary_pump_install(pcs_world *w, pcs_primary *pr, uint32_t pump)
{
    return pump_set(w, pr, pump, 1, "pcs_primary_pump_install");
}

pcs_status pcs_primary_pumps_sync(pcs_primary *pr, const primary_view *v)
{
    for (uint32_t l = 0; l < pr->nl; l++) {
        int in = v->pump_on[l] != PCS_PRIMARY_PUMP_REMOVED;
        if (pcs_thnet_junction_connected(pr->net, pr->j_pump[l]) == in)
            continue;
        /* the loaded flow store already holds the junction's 0 */
        pcs_status st = pcs_thnet_junction_connect(pr->net, NULL, pr->j_pump[l], in);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}
