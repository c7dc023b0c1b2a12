/* The default scenario, compiled into the binary so `pcsim run` needs no file. */
    .section .rodata
    .global pcs_default_scenario
    .type pcs_default_scenario, @object
pcs_default_scenario:
    .incbin "scenarios/pwr-station.json"
    .byte 0
    .size pcs_default_scenario, . - pcs_default_scenario
    .section .note.GNU-stack,"",@progbits
