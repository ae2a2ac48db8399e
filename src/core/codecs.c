/* The registry of trace families.  A family adds one line here. */
#include "rvtrace/codec.h"

#include <stdlib.h>
#include <string.h>

/* Each family defines its struct rvt_codec in src/<family>/codec.c. */
extern const struct rvt_codec rvt_codec_ntrace;
extern const struct rvt_codec rvt_codec_etrace;
extern const struct rvt_codec rvt_codec_cdl;
extern const struct rvt_codec rvt_codec_dbg;

const struct rvt_codec *const *rvt_codec_list(void)
{
    static const struct rvt_codec *list[8];
    static int init;
    if (!init) {
        const struct rvt_codec *all[] = {&rvt_codec_ntrace, &rvt_codec_etrace, &rvt_codec_cdl,
                                         &rvt_codec_dbg};
        size_t n = 0;
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            if (all[i])
                list[n++] = all[i];
        list[n] = NULL;
        init = 1;
    }
    return list;
}

const struct rvt_codec *rvt_codec_find(const char *name)
{
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++)
        if (strcmp((*c)->name, name) == 0)
            return *c;
    return NULL;
}

void *rvt_codec_cfg_new(const struct rvt_codec *c)
{
    void *cfg = calloc(1, c->cfg_size ? c->cfg_size : 1);
    if (cfg && c->cfg_init)
        c->cfg_init(cfg);
    return cfg;
}

void rvt_codec_cfg_free(void *cfg)
{
    free(cfg);
}
