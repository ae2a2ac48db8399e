/* rvtrace — consumers of decoded blocks: PC lists, instruction listings,
 * block listings, counting, and the comparison of a decoded flow with the
 * ingress it came from. */
#ifndef RVTRACE_ANALYSIS_H
#define RVTRACE_ANALYSIS_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rvt_out_kind {
    RVT_OUT_PCS = 0, /* "0x%08X" (RV32) / "0x%016X" (RV64) per retired instruction */
    RVT_OUT_INSN,    /* instruction listing: address, bits, disassembly, function headers */
    RVT_OUT_BLOCKS,  /* one line per block: start, last, count, how it ended, next */
    RVT_OUT_COUNT    /* no per-instruction text; a summary at the end */
};
/* "pcs", "insn", "blocks", "count"; -1 if unknown. */
int rvt_out_kind_parse(const char *name);

struct rvt_out_stats {
    uint64_t insns;
    uint64_t blocks;
    uint64_t ends[16];   /* blocks by enum rvt_block_end */
    uint64_t syncs;
    uint64_t gaps;       /* NOTE_GAP notes (every reason) */
    uint64_t errors;     /* NOTE_ERROR notes */
    uint64_t traps;      /* END_TRAP blocks + NOTE_TRAP */
    /* Gaps and errors by enum rvt_gap_reason (errors under RVT_GAP_ERROR),
     * with the trace offset of the first of each. */
    uint64_t by_reason[8];
    uint64_t first_offset[8];
};

/* What a decode amounts to (the CLI's exit status, docs/decoding.md). */
enum rvt_decode_status {
    RVT_DECODE_WHOLE = 0,   /* every byte decoded: no error, no loss, no unexpected end, no limit */
    RVT_DECODE_DAMAGED = 1, /* instructions decoded, but errors, lost trace, an unexpected end or the limit */
    RVT_DECODE_NOTHING = 3  /* no instruction decoded (empty trace, no sync point, nothing decodable) */
};
/* Classify a decode from its notes.  Trace switched off (filters, control)
 * and the overwritten part of a wrapped buffer are not damage. */
enum rvt_decode_status rvt_out_status(const struct rvt_out_stats *st);
/* True for the gap reasons that mean the history is not whole. */
int rvt_gap_is_damage(unsigned reason);
/* One line for a person: what was damaged and where ("2 decode errors
 * (first at trace offset 0x1a), the trace ends inside a message (offset
 * 0x55)"), the trace-off and wrap gaps, nothing else.  Empty if nothing
 * happened.  Returns buf. */
char *rvt_out_describe(const struct rvt_out_stats *st, char *buf, size_t n);

struct rvt_out_config {
    size_t size;
    enum rvt_out_kind kind;
    FILE *f;                       /* output stream (not closed) */
    const struct rvt_image *image; /* for pcs/insn expansion and symbols */
    unsigned xlen;
    FILE *diag;                    /* where decoder errors/gaps are reported (NULL: not printed) */
    /* At most this many damage reports (errors, loss, unexpected end, the
     * limit) are printed to diag, each with its offset; the rest are only
     * counted (rvt_out_describe).  0: every one. */
    unsigned diag_max;
};

struct rvt_output;
struct rvt_output *rvt_out_new(const struct rvt_out_config *cfg);
void rvt_out_free(struct rvt_output *o);
struct rvt_flow_sink rvt_out_sink(struct rvt_output *o);
/* Flush; for RVT_OUT_COUNT prints the summary. */
int rvt_out_finish(struct rvt_output *o);
const struct rvt_out_stats *rvt_out_stats(const struct rvt_output *o);
/* The text of the first damage report (error, loss, end, limit), "" if none. */
const char *rvt_out_first_damage(const struct rvt_output *o);
/* Damage reports printed to diag, and those left unprinted by diag_max. */
uint64_t rvt_out_diag_printed(const struct rvt_output *o);
uint64_t rvt_out_diag_suppressed(const struct rvt_output *o);

/* ---- comparing a decoded flow with its ingress ----------------------------- */

/* Streams of address ranges [start, end): records' blocks on one side,
 * decoded blocks on the other; equal sequences of instructions give equal
 * range streams whatever the block boundaries. */
struct rvt_seqcmp;
/* `pull` supplies the next expected record (1 = got one, 0 = end, <0 error). */
typedef int (*rvt_seqcmp_pull_fn)(void *ctx, struct rvt_ing_rec *r);
struct rvt_seqcmp *rvt_seqcmp_new(rvt_seqcmp_pull_fn pull, void *ctx, unsigned xlen);
void rvt_seqcmp_free(struct rvt_seqcmp *c);
/* A flow sink that compares each block as it is decoded (aborts the decode
 * at the first difference). */
struct rvt_flow_sink rvt_seqcmp_sink(struct rvt_seqcmp *c);
/* After the decode: 0 if both streams were equal to the end, else <0 with
 * the first difference in rvt_seqcmp_error. */
int rvt_seqcmp_finish(struct rvt_seqcmp *c);
const char *rvt_seqcmp_error(const struct rvt_seqcmp *c);
uint64_t rvt_seqcmp_insns(const struct rvt_seqcmp *c); /* decoded instructions compared */

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
