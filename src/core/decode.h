/* What rvt_decode and the threaded decode (src/parallel/specdecode.c)
 * share: the flow configuration of a decode. */
#ifndef RVT_CORE_DECODE_H
#define RVT_CORE_DECODE_H
#include "rvtrace/codec.h"

int rvt_decode_flow_config(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                           const struct rvt_decode_options *opt, size_t len, const struct rvt_flow_sink *sink,
                           struct rvt_flow_config *out, struct rvt_diag *d);
#endif
