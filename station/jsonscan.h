/**
 * @file jsonscan.h
 * @brief A pass over a JSON document's raw bytes, before jansson reads it:
 *        numbers a double cannot hold, NUL escapes, nesting depth, and the
 *        JSON path at a byte offset (for re-worded syntax errors).
 *
 * Why a raw pass: jansson converts a number with strtod and keeps only the
 * double, so `1e-400` arrives as 0 and a subnormal as itself (it reports no
 * underflow), and `1e400` or a 30-digit integer fail the whole parse in its
 * own words. Only the text can tell "0 as written" from "too small to hold".
 * The pass follows jansson's own number grammar
 * (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) so a token here is a
 * token there; everything it does not understand it leaves to jansson, which
 * stays the judge of syntax.
 */
#ifndef PCS_STATION_JSONSCAN_H
#define PCS_STATION_JSONSCAN_H

#include <stddef.h>

/** Deepest nesting a scenario may use (it needs 4: $.units[i].pump). */
#define JS_MAX_DEPTH 32

/** Kinds of number a double cannot hold (the marker's second byte, jsonr.c). */
#define JS_UNDERFLOW 'U' /**< non-zero text that converts to 0 or a subnormal */
#define JS_OVERFLOW 'O'  /**< a real that converts to +-inf */
#define JS_INT_BIG 'I'   /**< an integer outside int64 (jansson refuses it) */

/** One number token a double cannot hold: bytes [off, off + len) of the text. */
typedef struct js_bad_number {
    size_t off, len;
    char kind;
} js_bad_number;

typedef struct js_scan {
    js_bad_number *bad; /**< malloc'd; free with js_scan_free */
    size_t n_bad, cap_bad;
    const char *problem; /**< NULL, or why the scan stopped early (depth, NUL) */
    size_t stop;         /**< bytes consumed when it stopped (at the problem or the end) */
    char path[256];      /**< JSON path at @ref stop, "$" at the top */
} js_scan;

/**
 * Scan the first @p until bytes of @p text (of @p len) and fill @p out. Stops
 * early at a nesting deeper than JS_MAX_DEPTH or a \u0000 escape (problem set).
 * Returns 0, or -1 when out of memory.
 */
int js_scan_run(const char *text, size_t len, size_t until, js_scan *out);

/** Release what js_scan_run allocated. */
void js_scan_free(js_scan *s);

/**
 * Line and column of byte offset @p pos (bytes consumed) in @p text, counted
 * as jansson does: lines from 1, the column is the number of UTF-8 characters
 * consumed on the line.
 */
void js_line_column(const char *text, size_t pos, int *line, int *column);

#endif
