/* The control room's files (web/), assembled into the host program so
 * `pcsim serve --http` serves them wherever it runs from, with no npm and no
 * file lookups at run time. cli/serve_assets.c lists them with their MIME
 * types; each is bracketed by a start and an end symbol. The Makefile makes
 * this object depend on web/ (WEB_FILES). */
    .macro web_file name, path
    .section .rodata
    .global \name
    .hidden \name
    .type \name, @object
    .balign 16
\name:
    .incbin "\path"
    .global \name\()_end
    .hidden \name\()_end
\name\()_end:
    .byte 0
    .endm

    web_file pcs_web_index, "web/index.html"
    web_file pcs_web_app, "web/app.js"
    web_file pcs_web_sync, "web/sync.js"
    web_file pcs_web_style, "web/style.css"
    web_file pcs_web_uplot, "web/vendor/uPlot.iife.min.js"
    web_file pcs_web_uplot_css, "web/vendor/uPlot.min.css"
    web_file pcs_web_uplot_license, "web/vendor/uPlot.LICENSE"

    .section .note.GNU-stack,"",@progbits
