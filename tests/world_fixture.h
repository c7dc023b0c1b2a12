/**
 * @file world_fixture.h
 * @brief Test support shared by test_world.c and test_pacing.c: a default
 *        world, and one with a single 8-byte-element STATE store written by
 *        a single system (the state-hash tests).
 */
#ifndef PCS_TESTS_WORLD_FIXTURE_H
#define PCS_TESTS_WORLD_FIXTURE_H

#include "pcsim/pcsim.h"

/** A world from pcs_world_default (dt 0.05 s), creation asserted. */
pcs_world *wfx_world(void);

/** wfx_world plus STATE store "x" of @p n 8-byte elements (its id in
 *  @p store, which must outlive the world: it is the system's ctx) and system
 *  @p name at PCS_STAGE_HEAT running @p fn, writing only "x". */
pcs_world *wfx_hashed_world(const char *name, size_t n, pcs_system_fn fn, uint32_t *store);

#endif
