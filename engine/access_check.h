/**
 * @file access_check.h
 * @brief Engine-internal hooks of the declared-access check (system.h,
 *        "Declared access"; world config check_access).
 */
#ifndef PCS_ENGINE_ACCESS_CHECK_H
#define PCS_ENGINE_ACCESS_CHECK_H

#include "engine/world_internal.h"

/* Before a stage's first system: level 2 hashes every store. */
void pcs_access_stage_begin(pcs_world *w);

/* Around one system's fn: marks it running, then returns the tick's status:
 * an undeclared access (PCS_E_STATE naming system and store) wins over the
 * system's own @p st. */
void pcs_access_system_begin(pcs_world *w, const pcs_system_rec *r);
pcs_status pcs_access_system_end(pcs_world *w, pcs_stage stage, pcs_status st);

#endif
