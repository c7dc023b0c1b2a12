/**
 * @file plugin.h
 * @brief Plugins: a model bundle with a lifecycle (initialize, before_step,
 *        after_step, shutdown), added to a world during its build.
 *
 * A plugin is how a bundle of models (the station's plant, its
 * instrumentation, a host's recorder) enters a world. It is not a second
 * way to run code in the tick: its initialize registers stores, systems,
 * jobs, channels and command targets through the ordinary calls (system.h,
 * job.h, channel.h, command.h), and those systems run at their stages like
 * any other. The only plugin code the tick calls itself is before_step and
 * after_step, at two fixed points of the tick sequence (engine/world.c):
 *
 *     open the event list, merge due slow jobs
 *     before_step of every plugin, in (priority, id) order
 *     stages 1..13 (their systems, whoever registered them)
 *     after_step of every plugin, in (priority, id) order
 *     the clock advances
 *
 * so a before_step sees the slow results of this tick and the state the
 * previous tick left, and an after_step sees the whole tick (events
 * delivered, snapshot published) at the tick number it ran; the clock still
 * reads that tick in both.
 *
 * Identity. A plugin's id is a stable string: 1..63 characters of
 * [A-Za-z0-9_-] segments joined by '.', by convention "<owner>.<name>"
 * ("pcsim.plant", "host.recorder"). Ids are compared bytewise (strcmp).
 * The id and the priority are part of the compatibility contract of a
 * world built with the plugin: they fix the order of before_step,
 * after_step and shutdown, and `pcsim info --schedule` prints both (the
 * golden schedule pins the station's). A string rather than a number so
 * that two independent hosts cannot collide by accident and a message can
 * name the plugin.
 *
 * Order. initialize runs inside pcs_plugin_add, so in the order plugins are
 * added: what it registers takes the next store, system and job ids, which
 * the state hash and the save layout depend on, so the add order is part of
 * the build exactly as the order of pcs_store_register calls is. The
 * per-tick callbacks run in ascending (priority, id) order and shutdown in
 * the reverse of that order, whatever the add order.
 *
 * Scenario section. A plugin may own one section of the scenario it is
 * built from (def.section, e.g. "units"); no two plugins of a world own the
 * same one. The engine reads no scenario: whoever adds the plugin passes
 * that section's JSON text (def.section_json; the station takes it from the
 * scenario with pcs_scenario_section_json, station.h), and initialize
 * receives it. The text is borrowed for the call only.
 *
 * Threads. Every callback runs on the world's thread: initialize inside
 * pcs_plugin_add, the step callbacks inside pcs_world_tick, shutdown inside
 * pcs_world_destroy.
 *
 * Errors. A callback returns PCS_OK or an error with a message
 * (pcs_error_set). pcs_plugin_add and pcs_world_tick then fail with that
 * status and the message prefixed by the plugin: "plugin 'host.recorder'
 * initialize: ..." and "tick T: plugin 'host.recorder' after_step: ...".
 * A failed step callback fails the tick like a failing system (world.h):
 * the later steps do not run and the clock does not advance.
 *
 * Allocation. The tick walks an array ordered at build: the plugin steps
 * allocate nothing (the callbacks themselves must not either, to keep the
 * world's zero-allocation tick).
 */
#ifndef PCSIM_PLUGIN_H
#define PCSIM_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest plugin id, with its terminating NUL (as a system name). */
#define PCS_PLUGIN_ID_MAX 64u

/**
 * Build the plugin's part of the world: register its stores, systems, jobs,
 * channels and command targets. Build phase (the world is not sealed).
 * @param section_json the JSON text of the section the plugin owns,
 *        NUL-terminated, or NULL when it owns none or the scenario lacks it;
 *        valid during this call only.
 * @return PCS_OK or an error (pcs_plugin_add returns it, naming the plugin).
 *         On an error the plugin is not added and its shutdown never runs:
 *         initialize releases what it acquired itself. What it registered
 *         before failing stays in the world; a host destroys such a world.
 */
typedef pcs_status (*pcs_plugin_init_fn)(pcs_world *w, void *ctx, const char *section_json);

/** before_step or after_step: runs on the world's thread inside pcs_world_tick
 *  (see the file comment for where). An error fails the tick. */
typedef pcs_status (*pcs_plugin_step_fn)(pcs_world *w, void *ctx);

/** At pcs_world_destroy, after the slow jobs are stopped and before the
 *  world's on_destroy callbacks and heap are freed: the world's stores and
 *  clock may still be read; nothing may be registered or ticked. */
typedef void (*pcs_plugin_shutdown_fn)(pcs_world *w, void *ctx);

/** A plugin. Start from pcs_plugin_default(). Every callback may be NULL. */
typedef struct pcs_plugin_def {
    const char *id;           /**< stable id (see the file comment); required */
    int32_t priority;         /**< lower runs first; ties by id; default 0 */
    const char *section;      /**< scenario section it owns ("units"), or NULL */
    const char *section_json; /**< that section's JSON text for initialize, or NULL;
                                   borrowed during pcs_plugin_add only */
    pcs_plugin_init_fn initialize;
    pcs_plugin_step_fn before_step;
    pcs_plugin_step_fn after_step;
    pcs_plugin_shutdown_fn shutdown;
} pcs_plugin_def;

/** Fill @p def with the defaults: no id, priority 0, no section, no callbacks.
 *  PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_plugin_default(pcs_plugin_def *def);

/**
 * Add a plugin to @p w and run its initialize (with @p ctx, which the world
 * keeps and passes to every callback; owned by the caller, who keeps it
 * alive until the world is destroyed).
 * @return PCS_E_INVAL (NULL def, bad or duplicate id, a section another
 *         plugin owns, section_json without a section), PCS_E_STATE after
 *         sealing or from inside another plugin's initialize,
 *         PCS_E_OVERFLOW past PCS_WORLD_IDS_MAX plugins, PCS_E_NOMEM, or
 *         initialize's error (prefixed with the plugin id).
 */
PCS_API pcs_status pcs_plugin_add(pcs_world *w, const pcs_plugin_def *def, void *ctx);

/** Number of plugins added. 0 for NULL. */
PCS_API uint32_t pcs_plugin_count(const pcs_world *w);

/*
 * ---- Schedule (system.h, "Schedule") --------------------------------------
 * What each plugin is and what its initialize registered: the id ranges of
 * the stores, systems and jobs it added (its registrations are contiguous:
 * a plugin cannot be added from inside another's initialize).
 */

/** One plugin, as the tick runs it. Strings point into the world. */
typedef struct pcs_schedule_plugin {
    const char *id;
    int32_t priority;
    const char *section;  /**< owned section, or NULL */
    uint32_t first_store; /**< stores [first_store, first_store + n_stores) */
    uint32_t n_stores;
    uint32_t first_system; /**< systems by registration id */
    uint32_t n_systems;
    uint32_t first_job; /**< jobs by id */
    uint32_t n_jobs;
    int has_before_step; /**< 1 when before_step is set */
    int has_after_step;  /**< 1 when after_step is set */
    int has_shutdown;    /**< 1 when shutdown is set */
} pcs_schedule_plugin;

/**
 * Plugin @p index in run order: ascending (priority, id), the order of
 * before_step and after_step (shutdown runs in the reverse).
 * @return PCS_E_INVAL (NULL), PCS_E_NOTFOUND (index >= pcs_plugin_count).
 */
PCS_API pcs_status pcs_schedule_plugin_at(const pcs_world *w, uint32_t index,
                                          pcs_schedule_plugin *out);

#ifdef __cplusplus
}
#endif

#endif
