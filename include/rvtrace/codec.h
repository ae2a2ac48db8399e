/* rvtrace — the trace-family interface.
 *
 * Each protocol family (ntrace, etrace, cdl, dbg) implements one struct
 * rvt_codec: configuration from named options, an encoder (ingress records
 * -> bytes into a sink), a decoder (bytes -> calls on the shared flow
 * engine) and a dump (bytes -> one text line per packet).  The CLI and the
 * tests drive every family through this table, so a family needs no CLI
 * code of its own.
 */
#ifndef RVTRACE_CODEC_H
#define RVTRACE_CODEC_H

#include "rvtrace/common.h"
#include "rvtrace/flow.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include "rvtrace/sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One option a family accepts ("--name ARG").  arg == NULL: a flag that
 * takes no value (cfg_set receives "1"). */
struct rvt_codec_opt {
    const char *name;
    const char *arg;
    const char *help;
};

/* Counters an encoder reports after finishing. */
struct rvt_codec_stats {
    uint64_t insns;     /* instructions seen */
    uint64_t records;   /* ingress records seen */
    uint64_t packets;   /* messages/packets produced */
    uint64_t bytes;     /* bytes produced (before any sink loss) */
    uint64_t lost;      /* bytes the sink refused */
};

struct rvt_codec {
    const char *name;     /* "ntrace" */
    const char *summary;  /* one line for --help */
    const struct rvt_codec_opt *options; /* terminated by {NULL} */

    size_t cfg_size;
    void (*cfg_init)(void *cfg);
    /* key is the option name without dashes; val is "1" for flags. */
    int (*cfg_set)(void *cfg, const char *key, const char *val, struct rvt_diag *d);
    /* Called once all options are set: check consistency, fill defaults
     * from the stream's xlen (and the image, if any; may be NULL). */
    int (*cfg_finish)(void *cfg, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d);
    /* Flow settings the decoder needs (ecall mode, call stack, sijump). */
    void (*flow_config)(const void *cfg, struct rvt_flow_config *fc);

    /* Encoder: records -> bytes written to out. */
    int (*enc_new)(void **enc, const void *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d);
    int (*enc_put)(void *enc, const struct rvt_ing_rec *r);
    int (*enc_finish)(void *enc);
    void (*enc_stats)(const void *enc, struct rvt_codec_stats *st);
    const char *(*enc_error)(const void *enc);
    void (*enc_free)(void *enc);

    /* Decoder: bytes -> flow.  dec_run decodes a whole buffer from its first
     * synchronisation point, reporting errors as RVT_NOTE_ERROR notes and
     * resynchronising; it returns <0 only for errors it cannot step over
     * (out of memory, sink abort) or, in strict mode, at the first error. */
    int (*dec_new)(void **dec, const void *cfg, struct rvt_flow *flow, struct rvt_diag *d);
    int (*dec_run)(void *dec, const uint8_t *buf, size_t len);
    const char *(*dec_error)(const void *dec);
    void (*dec_free)(void *dec);

    /* Dump: one line per packet: byte offset, name, every field. */
    int (*dump)(const void *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d);

    /* Optional: print discovery/parameter information (`rvtrace info`). */
    int (*info)(const void *cfg, FILE *out, struct rvt_diag *d);

    /* The byte a sink pads with between/after packets (the format's idle or
     * null encoding: 0xFF for N-Trace MSEO, 0x00 for E-Trace encapsulation). */
    uint8_t idle_byte;
};

/* All families, NULL-terminated. */
const struct rvt_codec *const *rvt_codec_list(void);
const struct rvt_codec *rvt_codec_find(const char *name);

/* Convenience: allocate and initialise a family's config. */
void *rvt_codec_cfg_new(const struct rvt_codec *c);
void rvt_codec_cfg_free(void *cfg);

/* ---- configuration from Trace Control Interface registers --------------- */

struct rvt_te_settings;
/* Apply an encoder's register settings (rvt_tci_te_settings) to a family
 * configuration, as the equivalent options: instruction trace mode, sync
 * mode and period, source id and width, context, sequential jumps,
 * implicit return, repeated history, branch prediction, jump target cache,
 * full addresses, timestamps.  A setting the family cannot express is an
 * error naming the register field. */
int rvt_codec_apply_te(const struct rvt_codec *c, void *cfg, const struct rvt_te_settings *s, struct rvt_diag *d);

/* ---- pipelines: the whole encode or decode of a stream ------------------ */

/* Read every record from `in`, encode with family c into `out`.  Fills st
 * (instructions are counted with the image if given, needed only for
 * multi-instruction records).  Errors name the record. */
int rvt_encode_stream(const struct rvt_codec *c, const void *cfg, struct rvt_ing_reader *in,
                      const struct rvt_image *img, const struct rvt_byte_sink *out, struct rvt_codec_stats *st,
                      struct rvt_diag *d);

/* Several harts through one funnel: records are dispatched by `hart` to
 * one encoder per hart, each made from make_cfg(ctx, hart) (the family
 * configuration with that hart's source id), all writing whole packets into
 * a funnel whose output is `out`.  st sums all encoders; per_hart (may be
 * NULL, max_harts entries) receives each hart's counters. */
typedef void *(*rvt_make_cfg_fn)(void *ctx, unsigned hart, struct rvt_diag *d);
int rvt_encode_funnel(const struct rvt_codec *c, rvt_make_cfg_fn make_cfg, void *ctx, struct rvt_ing_reader *in,
                      const struct rvt_image *img, const struct rvt_byte_sink *out, unsigned max_harts,
                      struct rvt_codec_stats *st, struct rvt_codec_stats *per_hart, struct rvt_diag *d);
/* The same through the caller's funnel (e.g. the register model's, so its
 * trFunnelDisInput applies); hart h writes input h; the funnel's output must
 * be set.  Packets of disabled inputs are counted in its input stats. */
int rvt_encode_funnel_via(const struct rvt_codec *c, rvt_make_cfg_fn make_cfg, void *ctx, struct rvt_ing_reader *in,
                          const struct rvt_image *img, struct rvt_funnel *fun, struct rvt_codec_stats *st,
                          struct rvt_codec_stats *per_hart, struct rvt_diag *d);

/* Decode a whole trace buffer with family c into `sink` through a flow on
 * `img`.  ecall < 0 keeps the family's setting, else overrides the flow's
 * enum rvt_flow_ecall. */
int rvt_decode_buffer(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                      const uint8_t *buf, size_t len, const struct rvt_flow_sink *sink, struct rvt_diag *d);

/* ---- trace files: decoding with memory that does not grow with the file - */

/* A trace file opened for decoding: mapped into memory, so that only the
 * part being decoded is resident (a pipe, stdin "-" or a file that cannot
 * be mapped is read whole instead). */
struct rvt_trace_file;
int rvt_trace_file_open(struct rvt_trace_file **out, const char *path, struct rvt_diag *d);
const uint8_t *rvt_trace_file_data(const struct rvt_trace_file *t);
size_t rvt_trace_file_size(const struct rvt_trace_file *t);
/* The decode will not need the bytes before `offset` again (if it does,
 * they are read again): their memory is given back. */
void rvt_trace_file_done_before(struct rvt_trace_file *t, uint64_t offset);
void rvt_trace_file_close(struct rvt_trace_file *t);

/* rvt_decode_buffer over a whole trace file, giving back the file's pages
 * behind the decode as it goes: the memory a decode uses is the image,
 * the decoder's state and a window of the trace, whatever the file's size. */
int rvt_decode_file(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                    struct rvt_trace_file *t, const struct rvt_flow_sink *sink, struct rvt_diag *d);

#ifdef __cplusplus
}
#endif
#endif
