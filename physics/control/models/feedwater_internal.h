/**
 * @file feedwater_internal.h
 * @brief The feedwater plant's private layout, shared by its build
 *        (feedwater.c) and its tick and commands (feedwater_step.c).
 */
#ifndef PCS_PHYSICS_FEEDWATER_INTERNAL_H
#define PCS_PHYSICS_FEEDWATER_INTERNAL_H

#include "pcsim/command.h"
#include "pcsim/feedwater.h"
#include "physics/control/models/control_common.h"

struct pcs_feedwater {
    pcs_control_base base; /* first: unit, dt_s, "uN.feed.state", n_sg */
    pcs_feedwater_def def; /* unit_name points at base.unit */
    uint32_t id_out, id_sig, id_ilk;
    pcs_secondary_stores sec; /* the secondary's store ids */
    uint32_t id_feed_limit;   /* sg_control's, UINT32_MAX without one */
    double rho_feed, rho_afw; /* kg/m3 at the pumps: feed, condensate storage tank */
    double coast_factor;      /* exp(-dt / mfp_coast_s) */
    double lag_alpha;         /* 1 - exp(-dt / heater_lag_s) */
    double afw_rated_kg_s[PCS_FEEDWATER_MAX_AFW];
};

/* Offset of AFW pump j's block in the state store. */
static inline uint32_t pcs_fw_afw_at(const struct pcs_feedwater *fw, uint32_t j)
{
    return PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * (fw->def.n_mfp + j);
}

/* "uN.feedwater" at PCS_STAGE_ALARMS. */
pcs_status pcs_fw_system(pcs_world *w, void *ctx);

/* The command family's handler. */
pcs_status pcs_fw_on_command(pcs_world *w, const pcs_command_call *call);

#endif
