/* E-Trace decoder: packets -> flow engine (internal API). */
#ifndef RVT_ETRACE_DECODER_H
#define RVT_ETRACE_DECODER_H

#include "etrace/etrace.h"

struct et_decoder;
int et_dec_new(struct et_decoder **out, const struct et_params *p, struct rvt_flow *f, struct rvt_diag *d);
/* Decode a whole buffer (errors become RVT_NOTE_ERROR notes and resync,
 * unless strict). */
int et_dec_run(struct et_decoder *dec, const uint8_t *buf, size_t len);
/* One segment: from the format 3 start packet at `from` (0: the trace's
 * start) up to the one at `until` (docs/parallel.md). */
int et_dec_run_segment(struct et_decoder *dec, const uint8_t *buf, size_t len, size_t from, size_t until);
/* Every format 3 start packet the decoder can resynchronise at, in order. */
int et_sync_points(const struct et_params *p, const uint8_t *buf, size_t len, size_t from,
                   int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d);
/* The threaded decode's hooks (struct rvt_codec.dec_run_part,
 * dec_state_equal; docs/parallel.md). */
int et_dec_run_part(struct et_decoder *dec, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next);
bool et_dec_state_equal(const struct et_decoder *a, const struct et_decoder *b);
const char *et_dec_error(const struct et_decoder *dec);
void et_dec_free(struct et_decoder *dec);

#endif
