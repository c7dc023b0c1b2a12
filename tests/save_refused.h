/**
 * @file save_refused.h
 * @brief The crafted-save check every model's test makes: patch one double
 *        of a saved image, load it, and expect the load check to refuse it
 *        by name with the world unchanged (Criterion assertions).
 */
#ifndef PCS_TESTS_SAVE_REFUSED_H
#define PCS_TESTS_SAVE_REFUSED_H

#include <stddef.h>

#include "pcsim/world.h"

/**
 * Copy @p image (@p len bytes, a save of @p w), set element @p element
 * (a double) of section @p section ("store:u1.sgctl.state") to @p value,
 * write it to @p path and load it into @p w: expects PCS_E_CORRUPT, a
 * message naming the store (the section name after "store:") and @p text,
 * and @p w's state hash unchanged. The caller keeps @p image.
 */
void save_expect_refused(pcs_world *w, const unsigned char *image, size_t len, const char *path,
                         const char *section, size_t element, double value, const char *text);

#endif
