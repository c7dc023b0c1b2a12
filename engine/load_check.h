/**
 * @file load_check.h
 * @brief The staged view pcs_world_load hands to load checks (engine only).
 */
#ifndef PCS_ENGINE_LOAD_CHECK_H
#define PCS_ENGINE_LOAD_CHECK_H

#include "engine/world_internal.h"
#include "pcsim/persist.h"

/* Offsets into one aligned staging buffer; SIZE_MAX where there is no section. */
struct pcs_load_view {
    const pcs_world *w;
    const unsigned char *base;
    size_t store_off[PCS_MAX_STORES];
    size_t job_off[PCS_MAX_JOBS];
    int job_pending[PCS_MAX_JOBS];
};

/* Run every registered check on @p v in registration order; first failure wins. */
pcs_status pcs_load_checks_run(const pcs_world *w, const pcs_load_view *v);

#endif
