/**
 * @file friction.h
 * @brief Darcy friction factor (friction.c), private to physics/: a pure kernel
 *        the hydraulics model calls, declared apart from hyd_internal.h so the
 *        kernel includes no world-bound header.
 */
#ifndef PCS_PHYSICS_FRICTION_H
#define PCS_PHYSICS_FRICTION_H

/** Darcy friction factor at Reynolds number @p re and relative roughness eps/D. */
double pcs_friction_haaland(double re, double rel_roughness);

#endif
