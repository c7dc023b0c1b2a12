/**
 * @file water_table.h
 * @brief The default (p, h) water table's image embedded in the library
 *        (internal to station/ and the tests): the symbols
 *        station/water_ph_image.S defines.
 *
 * The image (pcsim/water_ph.h, "The image") is made at build time by
 * tools/gen_water_ph.c; pcs_station_water_table() opens it
 * (station/water_table.c). Hidden: hosts read the table through that call.
 */
#ifndef PCS_STATION_WATER_TABLE_H
#define PCS_STATION_WATER_TABLE_H

#include <stdint.h>

/** The image's bytes, 64-byte aligned, in .rodata. */
extern const unsigned char pcs_water_ph_image[] __attribute__((visibility("hidden")));
/** Its size in bytes (the .incbin'd file's). */
extern const uint64_t pcs_water_ph_image_bytes __attribute__((visibility("hidden")));

#endif
