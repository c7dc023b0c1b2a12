/**
 * @file primary_pump_publish.c
 * @brief A removed or reinstalled pump's published records: its command
 *        target and its speed channel (pcsim/primary.h,
 *        pcs_primary_pump_unpublish), registered and retired while the
 *        world is amending (pcsim/structure.h).
 */
#include <stdio.h>

#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/structure.h"
#include "physics/thermohydraulics/models/primary_internal.h"

static pcs_status pump_arg(pcs_world *w, const pcs_primary *pr, uint32_t pump, const char *fn)
{
    if (!w || !pr)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    if (pump >= pr->nl)
        return pcs_error_set(PCS_E_INVAL, "%s: %s has pump1..pump%u, not pump%u", fn, pr->unit,
                             pr->nl, pump + 1);
    return PCS_OK;
}

pcs_status pcs_primary_pump_unpublish(pcs_world *w, pcs_primary *pr, uint32_t pump)
{
    pcs_status st = pump_arg(w, pr, pump, "pcs_primary_pump_unpublish");
    char name[64];
    pcs_target_id id;
    uint32_t ch;
    snprintf(name, sizeof name, "%s.pump%u", pr ? pr->unit : "", pump + 1);
    if (st == PCS_OK)
        st = pcs_command_target_find(w, name, &id);
    if (st == PCS_OK)
        st = pcs_command_target_remove(w, id);
    snprintf(name, sizeof name, "%s.pump%u.speed", pr ? pr->unit : "", pump + 1);
    if (st == PCS_OK)
        st = pcs_channel_find(w, name, &ch);
    return st == PCS_OK ? pcs_channel_retire(w, ch) : st;
}

pcs_status pcs_primary_pump_publish(pcs_world *w, pcs_primary *pr, uint32_t pump)
{
    pcs_status st = pump_arg(w, pr, pump, "pcs_primary_pump_publish");
    if (st == PCS_OK)
        st = pcs_primary_pump_target(w, pr, pump);
    return st == PCS_OK ? pcs_primary_pump_channel(w, pr, pump) : st;
}
