/**
 * @file friction.h
 * @brief Darcy friction factor (friction.c), private to physics/: a pure kernel
 *        the two-phase network's step (thnet_step.c) calls, declared apart from
 *        thnet_internal.h so the kernel includes no KLU or world-bound header.
 */
#ifndef PCS_PHYSICS_FRICTION_H
#define PCS_PHYSICS_FRICTION_H

/** Darcy friction factor at Reynolds number @p re and relative roughness eps/D. */
double pcs_friction_haaland(double re, double rel_roughness);

#endif
