/**
 * @file serve_assets.c
 * @brief The control room's files as cli/serve_web_files.S embedded them: URL
 *        path, MIME type, bytes. Only these paths are served.
 */
#include <string.h>

#include "cli/serve_http.h"

#define WEB_FILE(sym)                                                                              \
    extern const unsigned char sym[];                                                              \
    extern const unsigned char sym##_end[];

WEB_FILE(pcs_web_index)
WEB_FILE(pcs_web_app)
WEB_FILE(pcs_web_sync)
WEB_FILE(pcs_web_style)
WEB_FILE(pcs_web_uplot)
WEB_FILE(pcs_web_uplot_css)
WEB_FILE(pcs_web_uplot_license)

#define ASSET(p, m, sym)                                                                           \
    {                                                                                              \
        p, m, sym, 0                                                                               \
    }

static web_asset assets[] = {
    ASSET("/index.html", "text/html; charset=utf-8", pcs_web_index),
    ASSET("/app.js", "text/javascript; charset=utf-8", pcs_web_app),
    ASSET("/sync.js", "text/javascript; charset=utf-8", pcs_web_sync),
    ASSET("/style.css", "text/css; charset=utf-8", pcs_web_style),
    ASSET("/vendor/uPlot.iife.min.js", "text/javascript; charset=utf-8", pcs_web_uplot),
    ASSET("/vendor/uPlot.min.css", "text/css; charset=utf-8", pcs_web_uplot_css),
    ASSET("/vendor/uPlot.LICENSE", "text/plain; charset=utf-8", pcs_web_uplot_license),
};

static const unsigned char *const ends[] = {
    pcs_web_index_end, pcs_web_app_end,       pcs_web_sync_end,          pcs_web_style_end,
    pcs_web_uplot_end, pcs_web_uplot_css_end, pcs_web_uplot_license_end,
};

const web_asset *web_asset_find(const char *path)
{
    if (strcmp(path, "/") == 0)
        path = "/index.html";
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; i++)
        if (strcmp(assets[i].path, path) == 0) {
            assets[i].len = (size_t)(ends[i] - assets[i].data);
            return &assets[i];
        }
    return NULL;
}
