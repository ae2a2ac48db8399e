/* rvtrace — consumers of decoded blocks: PC lists, instruction listings,
 * block listings, counting, and the comparison of a decoded flow with the
 * ingress it came from. */
#ifndef RVTRACE_ANALYSIS_H
#define RVTRACE_ANALYSIS_H

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
    uint64_t gaps;
    uint64_t errors;
    uint64_t traps;      /* END_TRAP blocks + NOTE_TRAP */
};

struct rvt_out_config {
    size_t size;
    enum rvt_out_kind kind;
    FILE *f;                       /* output stream (not closed) */
    const struct rvt_image *image; /* for pcs/insn expansion and symbols */
    unsigned xlen;
    FILE *diag;                    /* where decoder errors/gaps are reported (NULL: not printed) */
};

struct rvt_output;
struct rvt_output *rvt_out_new(const struct rvt_out_config *cfg);
void rvt_out_free(struct rvt_output *o);
struct rvt_flow_sink rvt_out_sink(struct rvt_output *o);
/* Flush; for RVT_OUT_COUNT prints the summary. */
int rvt_out_finish(struct rvt_output *o);
const struct rvt_out_stats *rvt_out_stats(const struct rvt_output *o);

/* ---- comparing a decoded flow with its ingress ----------------------------- */

/* The decoded stream against the records it was encoded from, streaming
 * (memory bounded by how far one side runs ahead of the other): the
 * instructions as address ranges (equal sequences give equal ranges
 * whatever the block boundaries), and everything else the family's
 * configuration says it traces (enum rvt_traced): privilege per
 * instruction, the sequence of timestamps, and every data value of each
 * kind in order, at its full width (memory values: the access's bits). */
struct rvt_seqcmp;
/* `pull` supplies the next expected record (1 = got one, 0 = end, <0 error). */
typedef int (*rvt_seqcmp_pull_fn)(void *ctx, struct rvt_ing_rec *r);
/* Instructions only. */
struct rvt_seqcmp *rvt_seqcmp_new(rvt_seqcmp_pull_fn pull, void *ctx, unsigned xlen);

struct rvt_seqcmp_config {
    size_t size;                   /* sizeof(struct rvt_seqcmp_config) */
    unsigned xlen;
    unsigned traced;               /* enum rvt_traced: what to compare besides instructions */
    const struct rvt_image *image; /* the program: instruction indices (RVT_TRACED_DATA_INDEX) and CSR
                                      instructions (RVT_TRACED_CSR_VALUES); may be NULL */
};
struct rvt_seqcmp *rvt_seqcmp_new_ex(rvt_seqcmp_pull_fn pull, void *ctx, const struct rvt_seqcmp_config *cfg);
void rvt_seqcmp_free(struct rvt_seqcmp *c);
/* A flow sink that compares each block and note as it is decoded (aborts
 * the decode at the first difference). */
struct rvt_flow_sink rvt_seqcmp_sink(struct rvt_seqcmp *c);
/* After the decode: 0 if both streams were equal to the end, else <0 with
 * the first difference in rvt_seqcmp_error ("register writes: ..."). */
int rvt_seqcmp_finish(struct rvt_seqcmp *c);
const char *rvt_seqcmp_error(const struct rvt_seqcmp *c);
uint64_t rvt_seqcmp_insns(const struct rvt_seqcmp *c); /* decoded instructions compared */

/* What was compared: instructions, each kind of data value (enum
 * rvt_data_kind), privilege and timestamps. */
enum rvt_cmp_kind {
    RVT_CMP_INSN = 0,
    /* 1..7: enum rvt_data_kind */
    RVT_CMP_PRIV = 8,
    RVT_CMP_TIME = 9,
    RVT_CMP__COUNT = 10
};
const char *rvt_cmp_kind_name(unsigned kind); /* "instructions", "register writes", ... */
/* How many of a kind were compared equal (privilege: instructions
 * compared on it; timestamps: distinct values). */
uint64_t rvt_seqcmp_count(const struct rvt_seqcmp *c, unsigned kind);
/* The kind of the first difference (RVT_CMP__COUNT if none). */
unsigned rvt_seqcmp_failed_kind(const struct rvt_seqcmp *c);

#ifdef __cplusplus
}
#endif
#endif
