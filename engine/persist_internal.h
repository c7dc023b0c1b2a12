/**
 * @file persist_internal.h
 * @brief Save-file tools for tests and fuzz targets (not public API).
 */
#ifndef PCS_ENGINE_PERSIST_INTERNAL_H
#define PCS_ENGINE_PERSIST_INTERNAL_H

#include <stddef.h>

/*
 * Recompute every section checksum and the header checksum of the save image
 * @p b (@p len bytes) in place, as an attacker who edited a value would. Lets
 * tests and the save fuzzer reach the contents past the checksums. Sections
 * whose range lies outside the buffer are left alone.
 * @return the number of sections resealed (0 if the image has no whole table).
 */
size_t pcs_persist_reseal(unsigned char *b, size_t len);

#endif
