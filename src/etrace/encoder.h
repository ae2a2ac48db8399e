/* E-Trace encoder: ingress records -> te_inst packets (internal API). */
#ifndef RVT_ETRACE_ENCODER_H
#define RVT_ETRACE_ENCODER_H

#include "etrace/etrace.h"

struct et_encoder;

int et_enc_new(struct et_encoder **out, const struct et_params *p, const struct rvt_byte_sink *sink,
               struct rvt_diag *d);
int et_enc_put(struct et_encoder *e, const struct rvt_ing_rec *r);
/* The records at the front of rs[0..n) that need nothing of the encoder
 * but the same as one by one (encoder.c); returns how many it took. */
size_t et_enc_put_plain(struct et_encoder *e, const struct rvt_ing_rec *rs, size_t n);
size_t et_enc_put_short(struct et_encoder *e, const struct rvt_ing_fast *fs, size_t n, uint8_t priv,
                        uint64_t context);
int et_enc_finish(struct et_encoder *e);
const char *et_enc_error(const struct et_encoder *e);
void et_enc_stats(const struct et_encoder *e, struct rvt_codec_stats *st);
void et_enc_free(struct et_encoder *e);

/* Optional observer of every packet produced (tests, dumps). */
typedef void (*et_packet_fn)(void *ctx, const struct et_packet *k, unsigned full_bits, unsigned sent_bits);
void et_enc_set_observer(struct et_encoder *e, et_packet_fn fn, void *ctx);
/* Every record through the general path (the tests: the quiet paths'
 * reference). */
void et_enc_set_general_only(struct et_encoder *e);

#endif
