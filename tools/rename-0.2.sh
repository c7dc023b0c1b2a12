#!/bin/sh
# Issue 13 "one way to build a model": public names, old -> new.
# Hosts moving from pcsim 0.1 run it over their own tree (a git checkout).
# Usage: tools/rename-0.2.sh [DIR]   (rewrites tracked C, header, shell, Makefile,
# Python and Markdown files under DIR, except CHANGELOG.md history)
set -eu
cd "${1:-.}"
# Not idempotent for one rule (particles add -> spawn, register -> add): skip
# it on a tree that already has the new name.
SPAWN='s/\bpcs_particles_add\b/pcs_particles_spawn/g'
if grep -q pcs_particles_spawn include/pcsim/particles.h 2>/dev/null; then SPAWN='s/^\b$//'; fi
M='diffusion|flocking|life|particles|rayaabb|alarm|sensor|fuel|unit|plant_unit|world|exec|water_table|protection|hyd'
git ls-files -z -- '*.c' '*.h' '*.sh' '*.py' '*.md' '*.txt' '*.json' 'Makefile' '*.mk' '*.cpp' '*.hpp' '*.js' '*.in' \
  | grep -zvE '^(CHANGELOG.md|tools/rename-[0-9.]+\.sh)$' | xargs -0 -r sed -i -E \
  -e "$SPAWN" \
  -e 's/\bpcs_(diffusion|flocking|life|particles|rayaabb)_register\b/pcs_\1_add/g' \
  -e 's/\bpcs_trip_function_config_default\b/pcs_protection_function_default/g' \
  -e 's/\bpcs_trip_function_config\b/pcs_protection_function_def/g' \
  -e "s/\bpcs_($M)_config_default\b/pcs_\1_default/g" \
  -e "s/\bpcs_($M)_config\b/pcs_\1_def/g" \
  -e "s/\bpcs_($M)_config_(validate|get)\b/pcs_\1_def_\2/g" \
  -e 's/\bpcs_alarms_create\b/pcs_alarm_add/g' \
  -e 's/\bpcs_alarms_(count|find|target_register)\b/pcs_alarm_\1/g' \
  -e 's/\bpcs_sensors_create\b/pcs_sensor_add/g' \
  -e 's/\bpcs_sensors_(count|find)\b/pcs_sensor_\1/g' \
  -e 's/\bpcs_protection_create\b/pcs_protection_add/g' \
  -e 's/\bpcs_(hyd|fuel|unit|plant|station|water_table)_build\b/pcs_\1_add/g' \
  -e 's/\bpcs_scenario_world_config\b/pcs_scenario_world_def/g' \
  -e 's/\bpcs_xenon_job_register\b/pcs_xenon_add/g' \
  -e 's/\bpcs_hyd_/pcs_hydraulics_/g' -e 's/\bPCS_HYD_/PCS_HYDRAULICS_/g' \
  -e 's/\bpcs_kin_/pcs_kinetics_/g' -e 's/\bPCS_KIN_/PCS_KINETICS_/g' \
  -e 's/\bpcs_dh_/pcs_decay_heat_/g' -e 's/\bPCS_DH_/PCS_DECAY_HEAT_/g' \
  -e 's/\bpcs_(rod|feedback)_/pcs_reactivity_\1_/g' -e 's/\bPCS_ROD_/PCS_REACTIVITY_ROD_/g' \
  -e 's/\bpcs_trip_(direction|kind|op)\b/pcs_protection_trip_\1/g' -e 's/\bPCS_TRIP_/PCS_PROTECTION_TRIP_/g' \
  -e 's#pcsim/coolant_props\.h#pcsim/coolant.h#g' \
  -e 's#kernels/coolant_props\.c#kernels/coolant.c#g' \
  -e 's/\bcoolant_props\.h\b/coolant.h/g'
if [ -f include/pcsim/coolant_props.h ]; then
  git mv include/pcsim/coolant_props.h include/pcsim/coolant.h
  git mv physics/water/kernels/coolant_props.c physics/water/kernels/coolant.c
fi
sed -i 's/@file coolant_props.c/@file coolant.c/; s/(coolant_props.h)/(coolant.h)/' physics/water/kernels/coolant.c
sed -i 's/@file coolant_props.h/@file coolant.h/' include/pcsim/coolant.h
