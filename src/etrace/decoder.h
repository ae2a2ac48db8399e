/* E-Trace decoder: packets -> flow engine (internal API). */
#ifndef RVT_ETRACE_DECODER_H
#define RVT_ETRACE_DECODER_H

#include "etrace/etrace.h"

struct et_decoder;
int et_dec_new(struct et_decoder **out, const struct et_params *p, struct rvt_flow *f, struct rvt_diag *d);
/* Decode a whole buffer (errors become RVT_NOTE_ERROR notes and resync,
 * unless strict). */
int et_dec_run(struct et_decoder *dec, const uint8_t *buf, size_t len);
const char *et_dec_error(const struct et_decoder *dec);
void et_dec_free(struct et_decoder *dec);

#endif
