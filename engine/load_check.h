/**
 * @file load_check.h
 * @brief The staged view pcs_world_load hands to load checks (engine only).
 */
#ifndef PCS_ENGINE_LOAD_CHECK_H
#define PCS_ENGINE_LOAD_CHECK_H

#include "engine/world_internal.h"
#include "pcsim/persist.h"

/* Offsets into one aligned staging buffer; SIZE_MAX where there is no section.
 * The three arrays hold w->n_stores and w->n_jobs entries: sized by the
 * world, never by a count read from the file (persist.c, stage). */
struct pcs_load_view {
    const pcs_world *w;
    const unsigned char *base;
    size_t *store_off;
    size_t *job_off;
    int *job_pending;
};

/* Run every registered check on @p v in registration order; first failure wins. */
pcs_status pcs_load_checks_run(const pcs_world *w, const pcs_load_view *v);

#endif
