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
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/flow.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include "rvtrace/sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A point where decoding can start (struct rvt_codec.sync_points). */
struct rvt_sync_point {
    uint64_t offset;   /* first byte of the synchronising unit */
    uint64_t addr;     /* the address it gives (has_addr) */
    bool has_addr;
    const char *unit;  /* its name ("ProgTraceSync", "te_inst format 3 start") */
    const char *needs; /* state a decoder starting here must be told, "none" when the spec resets it all */
};

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
    /* Returns the encoder left implicit although they did not go back to
     * the instruction after their call (longjmp, C++ exceptions, a changed
     * return address).  Only a mode the spec allows to be wrong for such
     * programs sends them so: N-Trace's counting implicit return
     * (trTeInstImplicitReturnMode 1, "will work as long as programs are
     * 'well behaved'").  Every decoder follows each one to the predicted
     * address instead.  The first one: the return's address, where it
     * went, where the call stack sent the decoder, and the instructions
     * encoded before the one it went to. */
    uint64_t misled_returns;
    uint64_t misled_at, misled_to, misled_predicted, misled_insns;
    /* What the configuration asks the trace to carry that the input never
     * gave it (no memory access, value or time in any record), in the
     * family's option words, e.g. "--dbg-emit loaddata,timestamp: the
     * records traced carry no load values, times, so the trace has none";
     * "" when nothing. */
    char unfed[240];
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
     * synchronisation point, reporting errors as RVT_NOTE_ERROR notes at the
     * unit's offset and resynchronising; it returns <0 only for errors it
     * cannot step over (out of memory, sink abort, the flow's instruction
     * limit) or, in strict mode, at the first error.  The whole contract
     * (ends inside a unit, empty traces, loss) is in docs/decoding.md. */
    int (*dec_new)(void **dec, const void *cfg, struct rvt_flow *flow, struct rvt_diag *d);
    int (*dec_run)(void *dec, const uint8_t *buf, size_t len);
    const char *(*dec_error)(const void *dec);
    void (*dec_free)(void *dec);

    /* Dump: one line per packet: byte offset, name, every field; damaged
     * units as errors in place.  After listing everything it returns the
     * first damage (<0, d naming its offset), RVT_ERR_NOSYNC if it found no
     * unit at all, else 0. */
    int (*dump)(const void *cfg, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d);

    /* Optional: print discovery/parameter information (`rvtrace info`). */
    int (*info)(const void *cfg, FILE *out, struct rvt_diag *d);

    /* The byte a sink pads with between/after packets (the format's idle or
     * null encoding: 0xFF for N-Trace MSEO, 0x00 for E-Trace encapsulation). */
    uint8_t idle_byte;

    /* For messages about a trace with no synchronisation point: which
     * encoder option produces sync points ("--sync-period N ..."). */
    const char *sync_hint;
    /* For a configuration that traces no instructions (traced():
     * RVT_TRACED_NO_INSNS) and no data verify can compare one for one:
     * what would make it trace something (NULL: none to say). */
    const char *nothing_traced_hint;
    /* Framing/layout variants worth trying when the bytes do not decode
     * ("framing=refraw", ...: option=value, NULL-terminated; may be NULL):
     * rvt_decode_probe tries each with the family's defaults. */
    const char *const *probe_options;

    /* Optional: what the decoder of a finished configuration reports besides
     * the instructions (enum rvt_traced), for `verify` and the round-trip
     * tests to compare.  NULL: instructions only. */
    unsigned (*traced)(const void *cfg);

    /* Optional: segments (docs/parallel.md).  sync_points lists, in
     * order, every point of buf from byte `from` on where the family's
     * decoder can start afresh, found by the decoder's own unit reader and
     * validity checks (fn returns <0 to fail, >0 to stop the listing);
     * dec_run_segment decodes the segment that starts at the sync point at
     * `from` (or at 0 for the first, which holds the bytes before it) and
     * ends where the one at `until` begins (until == len: the trace's end,
     * with the end-of-trace checks).  Families without them have one
     * segment, the whole trace. */
    int (*sync_points)(const void *cfg, const uint8_t *buf, size_t len, size_t from,
                       int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d);
    int (*dec_run_segment)(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until);
    /* Optional: the threaded decode (rvt_decode_jobs, docs/parallel.md).
     * dec_run_part decodes from `from` (0, or where the previous part
     * stopped) through the sync point at `until` and the units that belong
     * to it, stops before the next unit and sets *next to its offset (len:
     * the trace ended; until == len decodes to the end): a trace's parts in
     * order are its whole decode.  (*next > until names where the next part
     * goes on: E-Trace stops inside the sync packet, before its
     * instruction retires, and gives until + 1.)  dec_state_equal: do two decoders (and
     * their flow engines) decode the same from here on. */
    int (*dec_run_part)(void *dec, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next);
    bool (*dec_state_equal)(const void *a, const void *b);

    /* Optional: the encoder's per-record fast path over a batch.  Takes
     * the records at the front of rs[0..n) that each retire exactly one
     * instruction and send nothing (N-Trace: they only count; E-Trace:
     * the spec's uninteresting instructions), with the same effect as
     * enc_put on each; returns how many (0..n).
     * rvt_encode_stream hands it whole batches and the record it stops at
     * to enc_put. */
    size_t (*enc_put_plain)(void *enc, const struct rvt_ing_rec *rs, size_t n);
    /* Optional: the same over records in short (a reader's
     * rvt_ing_short_batch): takes from the front of f[0..n) the records
     * rvt_ing_fast_rec(&f[i], priv, context) that enc_put_plain would
     * take, stopping at the first whose len is 0 (a full record);
     * returns how many.  rvt_encode_stream makes the record it stops at
     * and gives it to enc_put. */
    size_t (*enc_put_short)(void *enc, const struct rvt_ing_fast *f, size_t n, uint8_t priv, uint64_t context);
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

/* ---- periodic synchronisation for a wrapping sink ------------------------ */

/* A sink that keeps only the newest bytes (a trace RAM in wrap mode) can be
 * decoded only from a synchronisation point inside what it keeps. */
enum rvt_wrap_sync_kind {
    RVT_WRAP_SYNC_CHOSEN = 0,  /* no sync option was given: one was set (option = value) */
    RVT_WRAP_SYNC_DEFAULT,     /* no sync option was given; the family's default suffices */
    RVT_WRAP_SYNC_GIVEN,       /* the caller's setting is kept */
    RVT_WRAP_SYNC_OFF,         /* the caller turned periodic sync off: a wrapped buffer is not decodable */
    RVT_WRAP_SYNC_TOO_SMALL    /* no period guarantees a sync point in so few bytes */
};
struct rvt_wrap_sync {
    size_t size;               /* bytes filled (sizeof) */
    enum rvt_wrap_sync_kind kind;
    const char *option;        /* CHOSEN/DEFAULT: the family option holding the period ("sync-msgs") */
    char value[32];            /* ... and its value */
    uint64_t max_gap;          /* CHOSEN/DEFAULT: most bytes from one sync point's start to the next one's end */
    char text[512];            /* one line for the user (CHOSEN, DEFAULT, OFF and TOO_SMALL are worth printing) */
};
/* Make family c's periodic synchronisation (in its own unit: N-Trace
 * messages, E-Trace packets, CDL nybbles, debug-trace buffer eighths) often
 * enough that any `window` consecutive bytes of the stream hold a whole
 * sync point, unless the caller set it: names/vals (n entries) are the
 * options given (a sync option among them is kept, "off" reported), regs
 * the Trace Control Interface settings the configuration came from (NULL:
 * none; trTeInstSyncMode decides).  Call before cfg_finish.  With several
 * encoders into one funnel the guarantee holds for each encoder's own
 * bytes, not for a source drowned by the others. */
int rvt_codec_wrap_sync(const struct rvt_codec *c, void *cfg, uint64_t window, const char *const *names,
                        const char *const *vals, unsigned n, const struct rvt_te_settings *regs,
                        struct rvt_wrap_sync *out, size_t out_size, struct rvt_diag *d);
/* The options that turn on family c's periodic synchronisation, as words
 * for a message about a trace without any sync point; NULL if unknown. */
const char *rvt_codec_sync_hint(const struct rvt_codec *c);

/* What an encode's statistics warn of, as one sentence for a "warning: "
 * prefix ("" when nothing):
 * returns sent as implicit that every decoder will follow to the wrong
 * place (misled_returns); options that asked for data the input did not
 * have (unfed).  Returns its length (as snprintf). */
int rvt_codec_stats_warning(const struct rvt_codec_stats *st, char *buf, size_t len);

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

/* rvt_encode_funnel with each hart's encoder on its own thread, `jobs`
 * at a time (0: one per online core; 1: rvt_encode_funnel itself): the
 * same bytes, provided `out` takes every byte (a file or memory, not a RAM
 * sink that can refuse them; a refused byte is an error here).
 * docs/parallel.md explains how. */
int rvt_encode_funnel_jobs(const struct rvt_codec *c, rvt_make_cfg_fn make_cfg, void *ctx, struct rvt_ing_reader *in,
                           const struct rvt_image *img, const struct rvt_byte_sink *out, unsigned max_harts,
                           unsigned jobs, struct rvt_codec_stats *st, struct rvt_codec_stats *per_hart,
                           struct rvt_diag *d);
/* The cores this process may run on (its CPU affinity: taskset, cpusets;
 * else the online cores), 1..64: what jobs = 0 means, and how many
 * threads can each have a core. */
unsigned rvt_jobs_default(void);

/* Bounded work: the instruction limit of a decode unless the caller sets
 * one, RVT_DECODE_LIMIT_BASE + RVT_DECODE_LIMIT_PER_BYTE per trace byte
 * (16.8 M instructions plus 4096 per byte: the densest real trace measured
 * carries ~100 instructions per byte; see docs/decoding.md). */
#define RVT_DECODE_LIMIT_BASE (1ull << 24)
#define RVT_DECODE_LIMIT_PER_BYTE 4096ull
#define RVT_DECODE_UNLIMITED UINT64_MAX
uint64_t rvt_decode_default_limit(size_t trace_bytes);

struct rvt_decode_options {
    size_t size;        /* sizeof(struct rvt_decode_options) */
    int ecall;          /* < 0: the family's setting, else enum rvt_flow_ecall */
    uint64_t max_insns; /* 0: rvt_decode_default_limit(len); RVT_DECODE_UNLIMITED: none */
    /* Optional: the flow's progress callback (struct rvt_flow_config),
     * told how far into the buffer the decode has moved. */
    void (*progress)(void *ctx, uint64_t offset);
    void *progress_ctx;
    uint64_t progress_every;
    /* The buffer begins where tracing began: a trace file, or a RAM that
     * did not wrap (or stopped when full).  Bytes before the first sync
     * point are then a damaged start, reported as an error, not as the
     * overwritten part of a wrapped RAM (see rvt_flow_config).  false (a
     * wrapped RAM, or a capture that began mid-stream): they are
     * RVT_GAP_WRAP, not damage.  (Callers built before this field, whose
     * size ends at max_insns, get false.) */
    bool starts_at_trace_start;
};

/* Decode a whole trace buffer with family c into `sink` through a flow on
 * `img`.  Returns 0 when the decode ran to its end or stopped at the
 * instruction limit (the sink received a NOTE_GAP RVT_GAP_LIMIT); damage is
 * reported to the sink as notes, not as a return value.  <0 (d explains)
 * only when the decoder could not run or gave up (out of memory, the sink
 * aborted, the family's strict mode at the first error).  opt may be NULL
 * (defaults). */
int rvt_decode(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
               const struct rvt_decode_options *opt, const uint8_t *buf, size_t len, const struct rvt_flow_sink *sink,
               struct rvt_diag *d);
/* The same with the default limit; ecall < 0 keeps the family's setting,
 * else overrides the flow's enum rvt_flow_ecall. */
int rvt_decode_buffer(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                      const uint8_t *buf, size_t len, const struct rvt_flow_sink *sink, struct rvt_diag *d);

/* ---- segments: decoding a trace in independent pieces (docs/parallel.md) - */

/* Bytes [offset, end) of a trace: from one synchronisation point to the
 * next (the first segment starts at 0 and also holds the bytes before its
 * sync point; the last ends at the trace's end). */
struct rvt_trace_segment {
    uint64_t offset, end;
    struct rvt_sync_point sync; /* where its decode starts (the first one's: the trace's first) */
};
/* The segments of buf, each at least min_bytes long (shorter ones are
 * joined to the next; 0: one per sync point).  *out (free() it) receives
 * *n >= 1 segments for a non-empty trace; a trace without a sync point, or
 * a family without segments, is one segment. */
int rvt_segments(const struct rvt_codec *c, const void *cfg, const uint8_t *buf, size_t len, uint64_t min_bytes,
                 struct rvt_trace_segment **out, size_t *n, struct rvt_diag *d);
/* The segment from byte `from` (0 or a sync point) to byte `to` (a later
 * sync point, or len), checked by looking at those two places only (a
 * range of several segments is one segment).  <0 with d naming what is
 * not a segment boundary. */
int rvt_segment_range(const struct rvt_codec *c, const void *cfg, const uint8_t *buf, size_t len, uint64_t from,
                      uint64_t to, struct rvt_trace_segment *out, struct rvt_diag *d);
/* Decode segment s of buf (the whole trace) as rvt_decode would decode
 * it within the whole: the instructions from its sync point up to the next
 * segment's, so that the per-instruction outputs of all segments, joined
 * in order, are the whole decode's (docs/parallel.md says what differs).
 * Offsets in notes are the trace's. */
int rvt_decode_segment(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                       const struct rvt_decode_options *opt, const uint8_t *buf, size_t len,
                       const struct rvt_trace_segment *s, const struct rvt_flow_sink *sink, struct rvt_diag *d);

/* What rvt_decode_jobs did (for tests and tuning). */
struct rvt_jobs_stats {
    uint64_t segments; /* pieces the trace was cut into */
    uint64_t joined;   /* pieces decoded on a thread and taken as they were */
    uint64_t redone;   /* pieces decoded again on the calling thread (state differed, recording too large, ...) */
};
/* rvt_decode on `threads` threads (0: one per core): the trace is cut at
 * its sync points, the pieces are decoded from a fresh state on worker
 * threads, recorded, and joined in order where the decoder and flow state
 * at the join equal the whole decode's; elsewhere the calling thread
 * decodes again.  The sink sees what rvt_decode gives it, in the same
 * order, and the result is rvt_decode's (docs/parallel.md) — but runs of
 * blocks may be cut differently for `blocks`, and a sink with `counts`
 * gets the sums of the blocks decoded on other threads.  A family without
 * dec_run_part / dec_state_equal, or threads == 1, is rvt_decode.
 * opt->progress is called with offsets the decode has passed.  st may be
 * NULL.  The environment variable RVT_JOBS_SEGMENT_BYTES sets the pieces'
 * least size (the tests cut traces at every sync point with it). */
int rvt_decode_jobs(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                    const struct rvt_decode_options *opt, const uint8_t *buf, size_t len, unsigned threads,
                    const struct rvt_flow_sink *sink, struct rvt_jobs_stats *st, struct rvt_diag *d);

/* ---- is this the right family? ---------------------------------------- */

#define RVT_PROBE_BYTES 4096

struct rvt_probe_result {
    size_t bytes;                   /* the prefix decoded (<= RVT_PROBE_BYTES) */
    uint64_t cur_insns, cur_errors; /* what the chosen family and options made of it */
    const struct rvt_codec *codec;  /* the family that decodes it cleanly */
    const char *option;             /* with this probe option ("framing=refraw"), or NULL */
    uint64_t insns, syncs;          /* what that one made of it (no error) */
};
/* When a decode went badly: decode the first RVT_PROBE_BYTES of buf with the
 * chosen family and configuration, and with every family (defaults) and
 * probe option.  Returns 1 when the chosen one finds errors or no
 * instruction there and another decodes instructions without an error (the
 * one with most instructions is in *res), 0 when no other does better, <0
 * on error.  Bounded: each trial stops after 2^20 instructions. */
int rvt_decode_probe(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, int ecall,
                     const uint8_t *buf, size_t len, struct rvt_probe_result *res, struct rvt_diag *d);

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

/* rvt_decode over a whole trace file, giving back the file's pages behind
 * the decode as it goes: the memory a decode uses is the image, the
 * decoder's state and a window of the trace, whatever the file's size.
 * opt as for rvt_decode (its progress fields are this function's). */
int rvt_decode_file(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                    const struct rvt_decode_options *opt, struct rvt_trace_file *t, const struct rvt_flow_sink *sink,
                    struct rvt_diag *d);

/* ---- output files ----------------------------------------------------- */

/* Open `path` ("-": stdout) to write an output into.  A file that exists is
 * written over in place, not emptied first, and rvt_output_file_close cuts
 * it at the end of what was written: the result is the same file, and a
 * large old output costs nothing to replace (emptying it first makes the
 * kernel free its pages inside open(), for a 300 MB file about as long as
 * a decode that writes one).  A process killed before the close leaves the
 * old file's tail after the new text.  `inputs` (n paths; NULL or "-"
 * entries are skipped) are what the command reads: an output that is one
 * of them is refused (NULL, diag says which, errno EINVAL), since writing it
 * would destroy the input while it is read.  NULL and diag on any error. */
FILE *rvt_output_file_open(const char *path, const char *const *inputs, size_t n, struct rvt_diag *d);
/* Flush, cut a regular file at the position written to, close (stdout:
 * flush only).  0, or -RVT_ERR_IO (errno says why). */
int rvt_output_file_close(FILE *f);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
