/* The default (p, h) water table's image (pcsim/water_ph.h, "The image"),
 * made at build time by tools/gen_water_ph.c and assembled into the library,
 * so no process makes the table (station/water_table.c opens it). The
 * Makefile passes the image's path, which is in each build tree's own gen
 * folder: -DPCS_WATER_PH_IMAGE="\"<gen>/water_ph.img\"". 64-byte aligned,
 * so the table's arrays are on cache lines as a made table's are; the size
 * follows the data. Hidden: read through pcs_station_water_table(). */
#ifndef PCS_WATER_PH_IMAGE
#error "PCS_WATER_PH_IMAGE (the image's path, a string) is set by the Makefile"
#endif
    .section .rodata
    .balign 64
    .global pcs_water_ph_image
    .hidden pcs_water_ph_image
    .type pcs_water_ph_image, @object
pcs_water_ph_image:
    .incbin PCS_WATER_PH_IMAGE
.Lwater_ph_image_end:
    .size pcs_water_ph_image, .Lwater_ph_image_end - pcs_water_ph_image
    .balign 8
    .global pcs_water_ph_image_bytes
    .hidden pcs_water_ph_image_bytes
    .type pcs_water_ph_image_bytes, @object
pcs_water_ph_image_bytes:
    .quad .Lwater_ph_image_end - pcs_water_ph_image
    .size pcs_water_ph_image_bytes, 8
    .section .note.GNU-stack,"",@progbits
