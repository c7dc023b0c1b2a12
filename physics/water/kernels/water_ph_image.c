/**
 * @file water_ph_image.c
 * @brief The (p, h) table as bytes (pcsim/water_ph.h, "The image"): write a
 *        table, and open an image as a table that borrows its arrays.
 *
 * Why: the default table costs about 0.2 s of IF97 to make (about 1 s under
 * ASan) and 14.1 MB, and every process that runs a station needed it. The
 * build makes it once (tools/gen_water_ph.c, Makefile "Generated tables")
 * and the library embeds the image (station/water_ph_image.S), so a process
 * opens it in microseconds and its pages are the library file's, shared and
 * read-only.
 *
 * Trust: an image is read like any input. The header is checked before
 * anything is derived from it (magic and version first, then the def with
 * the checks pcs_water_ph_table_create applies, then the sizes against what
 * that def implies) and the byte count must be exactly the def's, so a
 * truncated or over-long image is refused, never read past. The arrays are
 * the table's values and are not checked: a lookup bounds its indices by
 * the (checked) sizes, so a corrupted value is a wrong number, not a read
 * outside the image.
 *
 * The layout stays with the table (water_ph_table.c); this file sees it
 * through ph_table_parts only.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "physics/water/kernels/if97_internal.h"
#include "physics/water/kernels/water_ph_internal.h"
#include "pcsim/math.h"

/* The header, field for field as water_ph.h lays it out (no padding). */
typedef struct ph_image_head {
    uint32_t magic;
    uint32_t version;
    pcs_water_ph_table_def def;
    uint32_t n_rows, n_xi;
    uint64_t n_sat, n_cells;
    double h_split;
} ph_image_head;

_Static_assert(sizeof(ph_image_head) == PCS_WATER_PH_IMAGE_HEADER_BYTES,
               "the image header is water_ph.h's 64 bytes");
_Static_assert(offsetof(ph_image_head, def) == 8 && offsetof(ph_image_head, n_rows) == 32 &&
                   offsetof(ph_image_head, n_sat) == 40 && offsetof(ph_image_head, h_split) == 56,
               "the image header's offsets are water_ph.h's");

static uint64_t image_bytes_of(const ph_table_parts *p)
{
    return PCS_WATER_PH_IMAGE_HEADER_BYTES + (p->n_sat + p->n_cells) * sizeof(double);
}

uint64_t pcs_water_ph_table_image_bytes(const pcs_water_ph_table *t)
{
    if (t == NULL) {
        return 0;
    }
    ph_table_parts p;
    ph_table_parts_of(t, &p);
    return image_bytes_of(&p);
}

pcs_status pcs_water_ph_table_image_write(const pcs_water_ph_table *t, void *buf,
                                          uint64_t cap_bytes)
{
    static const char fn[] = "pcs_water_ph_table_image_write";
    pcs_status st = if97_check_out(fn, "t", t);
    if (st == PCS_OK) {
        st = if97_check_out(fn, "buf", buf);
    }
    if (st != PCS_OK) {
        return st;
    }
    ph_table_parts p;
    ph_table_parts_of(t, &p);
    const uint64_t need = image_bytes_of(&p);
    if (cap_bytes < need) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: cap_bytes = %" PRIu64 " is below the image's %" PRIu64 " bytes",
                             fn, cap_bytes, need);
    }
    ph_image_head h;
    memset(&h, 0, sizeof h);
    h.magic = PCS_WATER_PH_IMAGE_MAGIC;
    h.version = PCS_WATER_PH_IMAGE_VERSION;
    h.def = p.def;
    h.n_rows = p.n_rows;
    h.n_xi = p.n_xi;
    h.n_sat = p.n_sat;
    h.n_cells = p.n_cells;
    h.h_split = p.h_split;
    unsigned char *b = buf;
    memcpy(b, &h, sizeof h);
    memcpy(b + sizeof h, p.sat, (size_t)p.n_sat * sizeof(double));
    memcpy(b + sizeof h + (size_t)p.n_sat * sizeof(double), p.cells,
           (size_t)p.n_cells * sizeof(double));
    return PCS_OK;
}

/* Whether the header can be read at all: room for it, and the alignment
 * the arrays' doubles need. */
static pcs_status check_frame(const char *fn, const void *image, uint64_t n_bytes)
{
    if (n_bytes < PCS_WATER_PH_IMAGE_HEADER_BYTES) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: n_bytes = %" PRIu64 " is below the image header's %u bytes", fn,
                             n_bytes, PCS_WATER_PH_IMAGE_HEADER_BYTES);
    }
    const uintptr_t mis = (uintptr_t)image % _Alignof(double);
    if (mis != 0) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: image is %u bytes past an 8-byte boundary; it must be aligned "
                             "to 8 bytes (a double)",
                             fn, (unsigned)mis);
    }
    return PCS_OK;
}

/* Whether the bytes are an image of this format at all. */
static pcs_status check_kind(const char *fn, const ph_image_head *h)
{
    if (h->magic != PCS_WATER_PH_IMAGE_MAGIC) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: image magic = 0x%08" PRIx32 ", expected 0x%08x (not a (p, h) "
                             "table image, or another byte order)",
                             fn, h->magic, PCS_WATER_PH_IMAGE_MAGIC);
    }
    if (h->version != PCS_WATER_PH_IMAGE_VERSION) {
        return pcs_error_set(PCS_E_INVAL, "%s: image version = %" PRIu32 ", expected %u", fn,
                             h->version, PCS_WATER_PH_IMAGE_VERSION);
    }
    return PCS_OK;
}

/* The sizes the header states against those its (checked) def implies,
 * @p want; then h_split, the one value the header carries. */
static pcs_status check_sizes(const char *fn, const ph_image_head *h, const ph_table_parts *want)
{
    const struct {
        const char *name;
        uint64_t got, want;
    } f[] = {
        {"n_rows", h->n_rows, want->n_rows},
        {"n_xi", h->n_xi, want->n_xi},
        {"n_sat", h->n_sat, want->n_sat},
        {"n_cells", h->n_cells, want->n_cells},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (f[i].got != f[i].want) {
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: image %s = %" PRIu64 ", expected %" PRIu64 " for its def", fn,
                                 f[i].name, f[i].got, f[i].want);
        }
    }
    if (!pcs_isfinite(h->h_split)) {
        return pcs_error_set(PCS_E_INVAL, "%s: image h_split = %g J/kg, expected a finite value",
                             fn, h->h_split);
    }
    return PCS_OK;
}

/* The header of @p image (n_bytes long, framed) into @p p: def, sizes and
 * h_split, each checked; then the byte count against the def's. */
static pcs_status read_head(const char *fn, const void *image, uint64_t n_bytes, ph_table_parts *p)
{
    ph_image_head h;
    memcpy(&h, image, sizeof h);
    pcs_status st = check_kind(fn, &h);
    if (st == PCS_OK) {
        st = ph_table_check_def("pcs_water_ph_table_image_open: image def", &h.def);
    }
    if (st != PCS_OK) {
        return st;
    }
    p->def = h.def;
    p->h_split = h.h_split;
    ph_table_sizes(&h.def, p);
    st = check_sizes(fn, &h, p);
    if (st == PCS_OK && n_bytes != image_bytes_of(p)) {
        st = pcs_error_set(PCS_E_INVAL,
                           "%s: n_bytes = %" PRIu64 ", expected %" PRIu64
                           " for the image's def (truncated or over-long)",
                           fn, n_bytes, image_bytes_of(p));
    }
    return st;
}

pcs_status pcs_water_ph_table_image_open(const void *image, uint64_t n_bytes,
                                         pcs_water_ph_table **out)
{
    static const char fn[] = "pcs_water_ph_table_image_open";
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = if97_check_out(fn, "image", image);
    }
    if (st == PCS_OK) {
        st = check_frame(fn, image, n_bytes);
    }
    ph_table_parts p;
    if (st == PCS_OK) {
        st = read_head(fn, image, n_bytes, &p);
    }
    if (st != PCS_OK) {
        return st;
    }
    const unsigned char *b = image;
    p.sat = (const double *)(const void *)(b + PCS_WATER_PH_IMAGE_HEADER_BYTES);
    p.cells = p.sat + p.n_sat;
    pcs_water_ph_table *t = ph_table_borrow(&p);
    if (t == NULL) {
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for the table's header", fn);
    }
    *out = t;
    return PCS_OK;
}
