/**
 * @file version.h
 * @brief Library version.
 */
#ifndef PCSIM_VERSION_H
#define PCSIM_VERSION_H

#include "pcsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Makefile's VERSION is the source; engine/version.c refuses to build if
 * these differ from it. Tags are vMAJOR.MINOR.PATCH (CHANGELOG.md). */
#define PCS_VERSION_MAJOR 0
#define PCS_VERSION_MINOR 3
#define PCS_VERSION_PATCH 0

/** "MAJOR.MINOR.PATCH" of the library actually linked. Thread-safe. */
PCS_API const char *pcs_version(void);

#ifdef __cplusplus
}
#endif

#endif
