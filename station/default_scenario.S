/* The default scenario (scenarios/pwr-station.json), assembled into the
 * library so every host has the built-in station without a file. Hidden:
 * hosts read it through pcs_scenario_default_text(). */
    .section .rodata
    .global pcs_default_scenario
    .hidden pcs_default_scenario
    .type pcs_default_scenario, @object
pcs_default_scenario:
    .incbin "scenarios/pwr-station.json"
    .byte 0
    .size pcs_default_scenario, . - pcs_default_scenario
    .section .note.GNU-stack,"",@progbits
