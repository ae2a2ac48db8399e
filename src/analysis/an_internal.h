/* Internals shared by the analysis files: the collected state of an
 * analysis (analysis.c fills it, the writers read it) and small helpers. */
#ifndef RVT_AN_INTERNAL_H
#define RVT_AN_INTERNAL_H

#include "rvtrace/analysis.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define AN_NONE UINT32_MAX

/* The error an analysis refuses block b with, whatever came before (0: it
 * takes it): a block decoded without the code has no instruction count;
 * the count is kept in 32 bits.  (The threaded decode asks this on the
 * decoding thread: it stops the decode where the serial one stops.) */
static inline int rvt_an_block_refusal(const struct rvt_block *b)
{
    if (b->flags & (RVT_BLK_COUNT_UNKNOWN | RVT_BLK_LAST_UNKNOWN))
        return -RVT_ERR_NOCODE;
    return b->ninsns - 1 >= UINT32_MAX ? -RVT_ERR_INVAL : 0;
}

/* Rare paths kept out of the per-block function (fewer registers to save). */
#if defined(__GNUC__)
#define AN_NOINLINE __attribute__((noinline))
#else
#define AN_NOINLINE
#endif

/* A function: a symbol of the image, or a pseudo function. */
struct an_fn {
    const char *name;
    uint64_t addr;
    uint64_t sym_end;   /* addr + the symbol's size (addr when unknown) */
    uint64_t end;       /* coverage range [addr, end) (0: not in the coverage universe) */
    int has_sym;
};

/* A distinct executed block: (start, ninsns, outcome of a final branch). */
enum an_okind { OK_NONE = 0, OK_TAKEN, OK_NOT_TAKEN, OK_UNKNOWN };
struct an_blk {
    uint64_t start;
    uint64_t count;
    uint32_t ninsns;
    uint32_t fn;
    uint8_t okind;
};

/* A transfer waiting for the next block's address to resolve. */
struct an_pend {
    uint8_t end; /* enum rvt_block_end, RVT_END_SEQ = none */
    uint8_t cf;
    bool act;    /* may change the call stack (else nothing to resolve) */
    uint64_t last, fall;
    /* a trap waiting for its handler */
    bool trap;
    uint64_t handler;
};

struct an_frame {
    uint32_t node, fn, cur_fn, caller_fn;
    uint8_t kind;
    bool ret_known;
    uint64_t ret, site;
    uint64_t enter_idx, enter_time;
    struct an_pend saved; /* trap frames: the transfer the trap interrupted */
};

/* caller function, call site, callee function -> calls and inclusive cost */
struct an_arc {
    uint64_t site;
    uint32_t caller, callee;
    uint64_t calls, incl, incl_time;
};

/* A static instruction of the coverage universe (address order). */
struct sinsn {
    uint64_t addr;
    uint32_t owner;
    bool br;
    bool leader; /* first instruction of a static basic block */
};

struct an_map { /* open addressing: slot = entry index + 1, 0 = empty */
    uint32_t *slot;
    size_t cap;
};

struct an_sinkctx {
    struct rvt_analysis *a;
    unsigned hart;
};

/* Per function, indexed by function id (self per address; the rest from
 * the call tree; coverage from the static code). */
struct an_fstat {
    uint64_t self, total, calls, self_time, total_time;
    uint64_t insns_total, insns_hit, branches_total, branches_both, branches_one;
    uint64_t bblocks_total, bblocks_hit;
};

struct an_hart {
    bool used;
    unsigned id;
    /* blocks */
    struct an_blk *blk;
    size_t nblk, capblk;
    struct an_map blkmap;
    uint32_t blk_recent[1024]; /* direct-mapped: the last entry (index + 1) per slot, before the map */
    /* call tree */
    struct rvt_an_node *node;
    uint64_t *node_pend; /* instructions since the last timestamp */
    size_t nnode, capnode;
    struct an_map nodemap;
    struct an_frame *stack; /* stack[0] is the root frame */
    size_t depth;           /* frames above the root */
    size_t capstack;
    uint64_t overflow;      /* calls beyond max_depth not yet returned */
    struct an_pend pend;
    size_t pend_ev;         /* the trap event whose handler the next block shows (SIZE_MAX: none) */
    uint64_t last_addr;     /* last retired instruction (0 after a gap) */
    /* branches that ended a block cut by a trap: outcome known at the trap return */
    struct an_corr {
        uint64_t addr;
        bool taken;
    } *corr;
    size_t ncorr, capcorr;
    struct an_arc *arc;
    size_t narc, caparc;
    struct an_map arcmap;
    /* time */
    uint64_t cur_time;
    uint32_t *touched;
    size_t ntouched, captouched;
    /* timeline */
    struct rvt_an_span *span;
    size_t nspan, capspan;
    uint64_t span_min;
    /* events */
    struct rvt_an_event *ev;
    size_t *ev_toff; /* offset of each event's text in evtext (SIZE_MAX: none) */
    size_t nev, capev, capev_toff;
    char *evtext;
    size_t evtext_len, evtext_cap;
    struct rvt_an_summary sum;
    /* results */
    struct rvt_an_insn *insn; /* executed instructions by address */
    size_t ninsn;
    struct an_fstat *fstat; /* [nfn] */
    struct rvt_an_func *funcs; /* executed functions, by self */
    size_t nfuncs;
};

struct rvt_analysis {
    struct rvt_an_config cfg;
    unsigned xlen;
    uint64_t mask;
    struct rvt_diag diag;
    int err;
    bool finished;
    bool stop; /* err or finished: blocks are refused */
    struct an_hart *hart[RVT_AN_MAX_HARTS];
    struct an_sinkctx sinkctx[RVT_AN_MAX_HARTS];
    /* functions */
    struct an_fn *fn;
    size_t nfn, capfn;
    struct an_map fnmap;   /* symbol address -> fn */
    uint32_t fn_unknown;   /* "[no symbol]" */
    struct an_unnamed {    /* "[no symbol in FILE]": code no symbol holds, by the file it lies in */
        const struct rvt_segment *seg;
        uint32_t fn;
        char *name;
    } *unnamed;
    size_t nunnamed;
    uint32_t fn_root;
    /* address -> fn cache */
    uint64_t *ac_addr;
    uint32_t *ac_fn;
    uint8_t *ac_entry;
    size_t ac_n, ac_cap;
    struct rvt_bcache *bc;
    /* all harts together */
    struct rvt_an_insn *insn;
    size_t ninsn;
    struct an_fstat *fstat; /* [nfn], all harts */
    struct rvt_an_func *funcs;
    size_t nfuncs;
    uint32_t *universe;    /* functions of the coverage universe, by address */
    size_t nuniverse;
    struct sinsn *st;      /* their instructions */
    size_t nst;
    struct rvt_an_line *lines;
    size_t nlines;
    struct rvt_an_summary sum;
    struct rvt_an_summary cov; /* coverage totals (union of harts) */
};

/* Writers (an_text.c, an_export.c, report.c). */
/* The executable segment with a name (the file it came from) holding
 * addr, the last added winning; NULL if none. */
const struct rvt_segment *an_exec_segment_at(const struct rvt_image *img, uint64_t addr);
/* That file's name for a reader: after the last '/', without a loader's
 * ":seg<N>" suffix; *len is its length (not NUL-terminated there). */
const char *an_segment_file(const struct rvt_segment *seg, size_t *len);
/* "[no symbol in FILE]" (the views, JSON Lines) or, not bracketed, "no
 * symbol in FILE" (the listing's header): malloc'd, NULL if out of memory. */
char *an_unnamed_name(const struct rvt_segment *seg, bool bracketed);
int an_write_calltree(struct rvt_analysis *a, FILE *f, int hart);
int an_write_profile(struct rvt_analysis *a, FILE *f, int hart);
int an_write_coverage(struct rvt_analysis *a, FILE *f, int hart);
int an_write_lcov(struct rvt_analysis *a, FILE *f, const struct rvt_an_write_opts *o);
int an_write_folded(struct rvt_analysis *a, FILE *f, int hart);
int an_write_callgrind(struct rvt_analysis *a, FILE *f, const struct rvt_an_write_opts *o);
int an_write_chrome(struct rvt_analysis *a, FILE *f, int hart);
int an_write_html(struct rvt_analysis *a, FILE *f, const struct rvt_an_write_opts *o);

/* Helpers for the writers. */
const struct an_hart *an_hart_get(const struct rvt_analysis *a, unsigned hart);
unsigned an_harts_used(const struct rvt_analysis *a);
const struct an_arc *an_arcs(const struct rvt_analysis *a, unsigned hart, size_t *n);
const struct an_fn *an_fn_get(const struct rvt_analysis *a, uint32_t id);
/* Function id of an address (the symbol containing it). */
uint32_t an_fn_of(struct rvt_analysis *a, uint64_t addr);
/* A source file's path as found on disk (source_dir tried first, then
 * the recorded path, then ever shorter tails of it under source_dir); NULL
 * if none is readable.  Returns buf. */
const char *an_find_source(const char *recorded, const char *source_dir, char *buf, size_t size);
/* Executed-instruction entry for addr (all harts), or NULL. */
const struct rvt_an_insn *an_insn_at(const struct rvt_analysis *a, uint64_t addr);

/* Why a JSON Lines stream's first write failed (its errno; 0: none failed). */
int rvt_jsonl_write_errno(const struct rvt_jsonl *j);

/* Output helpers: write a JSON / HTML / folded-frame safe string. */
void an_json_str(FILE *f, const char *s);
void an_html_str(FILE *f, const char *s);

#endif
