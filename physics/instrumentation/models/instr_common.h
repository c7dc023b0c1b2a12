/**
 * @file instr_common.h
 * @brief What the instrumentation banks (sensors, alarms, protection) share
 *        when they are added to a world: the checks before an add, their
 *        system (pcs_instr_system) and its read list, their per-element
 *        arrays and STATE stores, element names copied into world memory, a
 *        channel and a command target per element, the by-name lookup and
 *        element references, and the message formats of their errors and
 *        load checks.
 *
 * Each bank is an array of named elements (sensor, alarm, trip function)
 * with configuration in world memory and state in STATE stores; each
 * publishes channels and command targets named after its elements. The
 * helpers below do those steps once, so the three banks build the same way
 * and say the same things when a step fails. Private to
 * physics/instrumentation/models/.
 */
#ifndef PCS_PHYSICS_INSTR_COMMON_H
#define PCS_PHYSICS_INSTR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/channel.h"
#include "pcsim/command.h"
#include "pcsim/persist.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/world.h"

/** Longest element name the banks allow (PCS_SENSOR_NAME_MAX, PCS_ALARM_NAME_MAX, ...). */
#define PCS_INSTR_NAME_MAX 100u

/* ---- adding a bank ------------------------------------------------------- */

/** What names a bank in its add function's checks and messages. */
typedef struct pcs_instr_bank {
    const char *fn;          /**< "pcs_sensor_add": the prefix of the add's messages */
    const char *one;         /**< "a sensor bank", for "this world already has ..." */
    const char *first_store; /**< the bank's first store: present means the world has one */
    uint32_t n_max;          /**< most elements, n in [1, n_max]; 0: the add takes no count */
    pcs_system_desc system;  /**< the bank's one system: name, stage and body (the rest is
                                  the add's: pcs_instr_system) */
} pcs_instr_bank;

/**
 * The checks before any add, in this order: arguments (@p args_ok false:
 * PCS_E_INVAL "<fn>: NULL argument"), the count @p n (PCS_E_INVAL), the
 * world not sealed and without this bank yet (PCS_E_STATE).
 */
pcs_status pcs_instr_add_check(const pcs_world *w, const pcs_instr_bank *b, const char *prefix,
                               int args_ok, uint32_t n);

/**
 * A bank's own name @p name with the bank's @p prefix ("u2." for a unit
 * added while running, structure.h): "<prefix><name>" in @p buf, or @p name
 * itself when @p prefix is NULL or "" (the one bank of a world, named as it
 * always was). A prefix names the bank's stores, system and load check;
 * its elements are named by their own (already distinct) names.
 */
const char *pcs_instr_named(char *buf, size_t len, const char *prefix, const char *name);

/** Longest bank prefix (pcs_sensor_add_prefixed, ...). */
#define PCS_INSTR_PREFIX_MAX 31u

/** @p prefix copied into world memory in *@p out (NULL for NULL or ""). */
pcs_status pcs_instr_prefix_copy(pcs_world *w, const char *fn, const char *prefix,
                                 const char **out);

/** Check @p prefix (NULL or "" allowed) for @p fn's messages. */
pcs_status pcs_instr_prefix_check(const char *fn, const char *prefix);

/**
 * The bank's command family: registered by the first bank, shared by a
 * prefixed one (pcs_command_family_share), so both banks' targets take the
 * same kinds.
 */
pcs_status pcs_instr_family(pcs_world *w, const char *prefix, const char *name, uint32_t n_kinds,
                            pcs_target_fn fn, uint32_t *first_kind);

/**
 * The last step of every add, given the status of the steps before it:
 * register the bank's load check @p name, then clear the error slot.
 * @return @p st if it failed, else the registration's status.
 */
pcs_status pcs_instr_add_end(pcs_world *w, pcs_status st, const char *prefix, const char *name,
                             pcs_load_check_fn fn, void *ctx);

/**
 * Register the bank's system: b->system with context @p ctx, reading
 * reads[0, n_reads) and writing writes[0, n_writes).
 */
pcs_status pcs_instr_system(pcs_world *w, const pcs_instr_bank *b, const char *prefix, void *ctx,
                            const uint32_t *reads, uint32_t n_reads, const uint32_t *writes,
                            uint32_t n_writes);

/** A u32 field of each element of an array of configuration structs: element
 *  i at (const char *)first + i * stride (PCS_INSTR_U32_FIELD). */
typedef struct pcs_instr_u32s {
    const uint32_t *first;
    size_t stride;
} pcs_instr_u32s;

/** Field @p field of each element of the struct array @p array. */
#define PCS_INSTR_U32_FIELD(array, field) ((pcs_instr_u32s){&(array)[0].field, sizeof(array)[0]})

/**
 * A bank system's read list: @p lead free slots, then the distinct stores
 * among the @p n ids of @p ids (every one registered; @p none skipped) in
 * first-use order, then @p tail free slots; *count is the number of distinct
 * stores. Build-time scratch: the caller frees *reads.
 * @return PCS_E_NOMEM "<fn>: out of memory for <store count> <what>".
 */
pcs_status pcs_instr_read_list(pcs_world *w, const pcs_instr_bank *b, const char *what,
                               pcs_instr_u32s ids, uint32_t n, uint32_t none, uint32_t lead,
                               uint32_t tail, uint32_t **reads, uint32_t *count);

/**
 * Allocate from the world an array of @p n doubles for each of the @p count
 * pointers arrays[k] points at (a bank's per-element parameters).
 * @return 1, or 0 when one allocation failed (the caller names it).
 */
int pcs_instr_alloc_f64(pcs_world *w, size_t n, double **const *arrays, size_t count);

/** The same for arrays of @p n u32 words. */
int pcs_instr_alloc_u32(pcs_world *w, size_t n, uint32_t **const *arrays, size_t count);

/**
 * Re-set the current error message with a prefix (printf format) naming
 * where it came from: "<prefix>: <message>". @return @p st.
 */
pcs_status pcs_instr_prefixed(pcs_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * Add @p id to the set ids[0, *n) unless it is there already (first-use
 * order, for a system's read or write list).
 * @return 0, or 1 (and no change) when the set would grow past @p max.
 */
int pcs_instr_set_add(uint32_t *ids, uint32_t *n, uint32_t max, uint32_t id);

/**
 * Where a bank's configuration points at an element of another model's
 * store (a sensor's source, an alarm's suppression input, a unit's trip
 * input), and the words that name it in messages.
 */
typedef struct pcs_instr_ref {
    uint32_t store;          /**< the store id */
    uint32_t index;          /**< the element */
    size_t elem;             /**< the store must be an array of elements of this size */
    const char *who;         /**< "sensor", "protection config": starts each message */
    const char *name;        /**< the element's name, quoted after who; NULL: none */
    const char *store_field; /**< "store", "unit_trip_stores[0]" */
    const char *store_note;  /**< what bounds the store id: "stores registered so far" */
    const char *index_field; /**< "index", "unit_trip_indices[0]" */
    const char *array_note;  /**< what the store must be: "the input must be an array of u32" */
    int with_bytes;          /**< give the store's size in bytes before array_note */
} pcs_instr_ref;

/**
 * Check @p r: the store is registered, holds an array of r->elem-byte
 * elements, and has element r->index.
 * @return PCS_E_INVAL "<who> '<name>': <store_field> = S is outside [0, N)
 *         (<store_note>)" or "...: <index_field> = I is outside [0, C) of
 *         store 'X' ([B bytes; ]<array_note>)".
 */
pcs_status pcs_instr_ref_check(const pcs_world *w, const pcs_instr_ref *r);

/* ---- state stores --------------------------------------------------------- */

/**
 * A bank's STATE stores, registered one call each in the order they are
 * asked for (the order is part of the state hash). After a failure the
 * later calls register nothing and @p st keeps the first error, so a bank
 * asks for all its stores and checks once.
 */
typedef struct pcs_instr_stores {
    pcs_world *w;
    pcs_status st;      /**< PCS_OK, or the first failure */
    const char *prefix; /**< the bank's prefix (pcs_instr_named), NULL for none */
} pcs_instr_stores;

/**
 * Register STATE store @p name of @p count elements of @p elem bytes.
 * @return its memory (id in @p id), or NULL after this or an earlier failure.
 */
void *pcs_instr_store(pcs_instr_stores *r, const char *name, size_t elem, size_t count,
                      uint32_t *id);

/* ---- element names, channels and command targets ------------------------- */

/**
 * A string of each element, read where the configuration holds it: element
 * i at (const char *)first + i * stride. A plain array of strings has stride
 * sizeof(char *); a field of an array of configuration structs has the
 * struct's size (PCS_INSTR_FIELD).
 */
typedef struct pcs_instr_strings {
    const char *const *first;
    size_t stride;
} pcs_instr_strings;

/** Field @p field of each element of the struct array @p array. */
#define PCS_INSTR_FIELD(array, field) ((pcs_instr_strings){&(array)[0].field, sizeof(array)[0]})

/** The strings of a plain array of strings. */
#define PCS_INSTR_ARRAY(array) ((pcs_instr_strings){(array), sizeof(array)[0]})

/** Element @p i of @p s. */
static inline const char *pcs_instr_string(pcs_instr_strings s, uint32_t i)
{
    return *(const char *const *)(const void *)((const char *)s.first + (size_t)i * s.stride);
}

/**
 * Copy the @p n strings of @p src into world memory.
 * @return the array of copies, or NULL with PCS_E_NOMEM "<fn>: out of memory".
 */
const char **pcs_instr_names_copy(pcs_world *w, const char *fn, pcs_instr_strings src, uint32_t n);

/** A channel each element of a bank publishes: element k of a store. */
typedef struct pcs_instr_channel {
    const char *suffix;      /**< the channel is "<element name><suffix>"; "" for the name */
    pcs_channel_kind kind;   /**< F64 or U32 */
    uint32_t store;          /**< element k of this store is element k's value */
    pcs_instr_strings units; /**< each element's unit; first NULL: none ("") */
} pcs_instr_channel;

/**
 * Register the channels of each of @p n elements named @p names: element 0's
 * @p n_per channels in the order of @p per, then element 1's, and so on (the
 * order is the channel ids). Stops at the first failure, whose message is
 * pcs_channel_register's.
 */
pcs_status pcs_instr_channels(pcs_world *w, const char *const *names, uint32_t n,
                              const pcs_instr_channel *per, uint32_t n_per);

/**
 * Register a command target for each of @p n elements named @p names:
 * @p proto's family, context and ops, the element its index. Stops at the
 * first failure, whose message is pcs_command_target_register's.
 */
pcs_status pcs_instr_targets(pcs_world *w, const char *const *names, uint32_t n,
                             pcs_command_target_def proto);

/**
 * The index of the element named @p name among @p names (NULL: the bank was
 * NULL). @p fn names the caller and @p what the element in the messages.
 * @return PCS_E_INVAL "<fn>: NULL argument", PCS_E_NOTFOUND "<fn>: no
 *         <what> named '<name>'".
 */
pcs_status pcs_instr_find(const char *fn, const char *what, const char *const *names, uint32_t n,
                          const char *name, uint32_t *id);

/**
 * Where element @p id of a bank's store @p store is (a model reading it):
 * *out_store = store, *out_index = id. @p args_ok false (a NULL bank or
 * output): PCS_E_INVAL "<fn>: NULL argument"; @p id not below @p n:
 * PCS_E_NOTFOUND "<fn>: <what> <id> is outside [0, n)".
 */
pcs_status pcs_instr_element_ref(const char *fn, const char *what, int args_ok, uint32_t n,
                                 uint32_t id, uint32_t store, uint32_t *out_store,
                                 uint32_t *out_index);

/* ---- load checks ----------------------------------------------------------- */

/** PCS_E_CORRUPT "store 'S' element I (F): value V; allowed A" for a double. */
pcs_status pcs_instr_bad_f64(const char *store, uint32_t i, const char *field, double v,
                             const char *allowed);

/** The same for an integer word (state, flags, count, tick). */
pcs_status pcs_instr_bad_word(const char *store, uint32_t i, const char *field, uint64_t v,
                              const char *allowed);

/** Every one of the @p n doubles at @p x is finite (pcs_load_check_f64's message). */
pcs_status pcs_instr_check_finite(const char *store, const char *field, const double *x, size_t n);

#endif
