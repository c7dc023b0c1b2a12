/**
 * @file pcsim.h
 * @brief Everything public in pcsim: include this one header.
 */
#ifndef PCSIM_PCSIM_H
#define PCSIM_PCSIM_H

#include "pcsim/abi.h"
#include "pcsim/alarm.h"
#include "pcsim/channel.h"
#include "pcsim/clock.h"
#include "pcsim/command.h"
#include "pcsim/coolant.h"
#include "pcsim/decay_heat.h"
#include "pcsim/diffusion.h"
#include "pcsim/event.h"
#include "pcsim/exec.h"
#include "pcsim/export.h"
#include "pcsim/flocking.h"
#include "pcsim/fuel.h"
#include "pcsim/fuel_materials.h"
#include "pcsim/hydraulics.h"
#include "pcsim/job.h"
#include "pcsim/kinetics.h"
#include "pcsim/life.h"
#include "pcsim/lumped_heat.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/particles.h"
#include "pcsim/persist.h"
#include "pcsim/plant.h"
#include "pcsim/profile.h"
#include "pcsim/protection.h"
#include "pcsim/rayaabb.h"
#include "pcsim/reactivity.h"
#include "pcsim/rng.h"
#include "pcsim/sensor.h"
#include "pcsim/snapshot.h"
#include "pcsim/station.h"
#include "pcsim/status.h"
#include "pcsim/system.h"
#include "pcsim/thread.h"
#include "pcsim/unit.h"
#include "pcsim/version.h"
#include "pcsim/water.h"
#include "pcsim/world.h"
#include "pcsim/xenon.h"

#endif
