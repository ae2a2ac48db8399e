/* The universal oracle for tests: ingress -> encode (any family, options)
 * -> optional cut or damage -> decode -> the decoded instructions must
 * equal the ingress (or, after a cut, its tail from the first sync point). */
#ifndef RVT_TEST_ROUNDTRIP_H
#define RVT_TEST_ROUNDTRIP_H

#include "rvtrace/rvtrace.h"
#include "rvtrace/gen.h"

#include <stdbool.h>

/* Records held in memory (tests are moderate in size). */
struct rvt_recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};
void rvt_recs_free(struct rvt_recs *v);
int rvt_recs_push(void *ctx, const struct rvt_ing_rec *r); /* an rvt_ing_emit_fn */
/* All records of an ingress file (any format the reader knows). */
int rvt_recs_load(struct rvt_recs *v, const char *path, const struct rvt_image *img, struct rvt_diag *d);
/* The bundled real capture (tests/data/real: bzip2 -9's ELF and its
 * ingress records), unpacked with xz into the test's temporary directory.
 * Returns 1 with *img (caller frees) and recs filled; 0 when xz is missing
 * (says so on stdout); <0 on failure (a failed check). */
int rvt_recs_bundled_capture(struct rvt_image **img, struct rvt_recs *recs);
/* A generated program's execution (merge_blocks as given). */
int rvt_recs_gen(struct rvt_recs *v, const struct rvt_gen_program *p, const struct rvt_gen_config *gc,
                 bool merge_blocks, struct rvt_diag *d);

struct rvt_rt_opts {
    const char *format;             /* "ntrace", "etrace", "cdl", "dbg" */
    const char *const *options;     /* NULL-terminated name, value, name, value...; flags take "1" */
    size_t cut;                     /* 0: none; else decode the bytes from this offset on */
    size_t truncate;                /* 0: none; else keep only this many bytes */
};

struct rvt_rt_result {
    uint64_t insns_in;      /* instructions in the ingress */
    uint64_t insns_out;     /* instructions decoded */
    uint64_t bytes;         /* encoded size (before cut/truncation) */
    uint64_t packets;
    uint64_t errors;        /* decoder error notes */
    uint64_t gaps;          /* gap notes (trace off, lost, ...) */
    unsigned traced;        /* exact round trips: what was compared besides instructions (enum rvt_traced) */
    uint64_t values;        /* ...how many data values and timestamps were compared equal */
    char msg[768];          /* what went wrong */
};

/* Encode recs, decode, compare.  Exact equality without cut/truncate:
 * the instructions and everything the family's configuration traces
 * (struct rvt_codec.traced: privilege, timestamps, data values), the first
 * difference in res->msg with its kind;
 * with a cut the decoded sequence must be a non-empty tail of the input (or
 * empty if no sync point followed the cut); with truncation a prefix.  The
 * encoded bytes are returned in *bytes_out if non-NULL (caller frees).
 * Returns 0 on success, <0 with res->msg. */
int rvt_roundtrip(const struct rvt_rt_opts *o, const struct rvt_image *img, const struct rvt_recs *recs,
                  struct rvt_rt_result *res, uint8_t **bytes_out, size_t *len_out);

/* Decode damaged bytes (flipped bits, garbage): the decoder must not crash
 * and must report what it skipped.  Returns the number of decoded segments
 * (error and gap notes + 1), or <0 if the decode failed outright. */
int rvt_decode_segments(const struct rvt_rt_opts *o, const struct rvt_image *img, const uint8_t *buf, size_t len,
                        struct rvt_rt_result *res);

#endif
