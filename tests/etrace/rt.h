/* Round-trip helpers for the E-Trace tests: encode records with a set of
 * options, decode the bytes through the flow engine, collect the PCs. */
#ifndef ET_RT_H
#define ET_RT_H

#include "rvtrace/rvtrace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_result {
    uint8_t *bytes;
    size_t nbytes;
    uint64_t packets;
    uint64_t *pcs;
    size_t npcs, cap;
    unsigned errors;     /* RVT_NOTE_ERROR notes */
    unsigned gaps;
    unsigned ends;       /* of the gaps: RVT_GAP_END (the trace ends early) */
    uint64_t first_error_offset;
    unsigned syncs;
    char first_error[600];
    uint32_t trap_cause[64]; /* the first traps decoded, in order (ending a block or alone) */
    uint64_t trap_epc[64];   /* ... where each was taken (~0: after a jump whose target the decode does not know) */
    unsigned ntraps;
    struct rvt_bcache *bc;
    unsigned xlen;
};

/* opts: NULL-terminated list of "name", "value" pairs. */
void *rt_config(const char *const *opts, unsigned xlen, const struct rvt_image *img, char *err, size_t errlen);
int rt_encode(void *cfg, const struct rvt_ing_rec *recs, size_t n, struct rt_result *res, char *err, size_t errlen);
/* The same through the codec's fast path over runs (enc_put_plain), as
 * rvt_encode_stream feeds it, in batches of 1 to runs records. */
int rt_encode_runs(void *cfg, const struct rvt_ing_rec *recs, size_t n, unsigned runs, struct rt_result *res, char *err,
                   size_t errlen);
/* The same through the fast path over records in short (enc_put_short),
 * as rvt_encode_stream feeds a reader's short batches: each record that a
 * short one with its batch's priv and context stands for in short. */
int rt_encode_shorts(void *cfg, const struct rvt_ing_rec *recs, size_t n, unsigned runs, struct rt_result *res,
                     char *err, size_t errlen);
/* The same with every record through the encoder's general path (the
 * reference of its quiet paths). */
int rt_encode_general(void *cfg, const struct rvt_ing_rec *recs, size_t n, struct rt_result *res, char *err,
                      size_t errlen);
int rt_decode(void *cfg, const struct rvt_image *img, int ecall, const uint8_t *buf, size_t len,
              struct rt_result *res, char *err, size_t errlen);
void rt_free(struct rt_result *res);
/* Index of the first difference of two PC lists (n if equal and same length). */
size_t rt_first_diff(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

#endif
