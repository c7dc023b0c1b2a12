/**
 * @file par_stage.h
 * @brief Engine-internal hooks of the parallel unit sections (engine/par_stage.c).
 */
#ifndef PCS_ENGINE_PAR_STAGE_H
#define PCS_ENGINE_PAR_STAGE_H

#include "engine/world_internal.h"

typedef struct pcs_par_unit pcs_par_unit;

/* The unit chunk the calling thread is running for @p w, or NULL (the
 * host's own systems, or no section running). */
pcs_par_unit *pcs_par_current(const pcs_world *w);

/* pcs_event_emit from inside a chunk: buffered in the unit's list, merged
 * in system order when the section ends. */
pcs_status pcs_par_event_emit(pcs_par_unit *u, const pcs_event *e);

/* pcs_access_note from inside a chunk: the unit's running system and fault. */
void pcs_par_access_note(pcs_par_unit *u, uint32_t store);

/* Find the sections and prove them into w->par, replacing an earlier plan
 * unless that one was found from the same registrations; @p for_run (the
 * seal, parallel units on) also allocates every buffer the tick will use. */
pcs_status pcs_par_plan_build(pcs_world *w, int for_run);

/* One stage, sections on the executor and barriers on the host
 * (pcs_systems_run_stage when a plan exists). */
pcs_status pcs_par_run_stage(pcs_world *w, pcs_stage stage);

/* engine/job.c: the executor goes away (unbind: tell it; revoke: it has
 * already freed our slots). */
void pcs_par_unbind(pcs_world *w);
void pcs_par_revoke(pcs_world *w);

#endif
