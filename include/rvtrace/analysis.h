/* rvtrace — consumers of decoded blocks: PC lists, instruction listings,
 * block listings, counting, the comparison of a decoded flow with the
 * ingress it came from, and the analysis views (call tree, profile, source
 * lines, coverage, exports, the HTML report). */
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
    RVT_OUT_COUNT,   /* no per-instruction text; a summary at the end */
    /* Analysis views (written at the end; see struct rvt_analysis): */
    RVT_OUT_CALLTREE,  /* call tree with inclusive/exclusive instruction counts */
    RVT_OUT_PROFILE,   /* flat profile per function, source line and address; call graph */
    RVT_OUT_COVERAGE,  /* coverage summary and per function */
    RVT_OUT_LCOV,      /* lcov tracefile (genhtml) */
    RVT_OUT_FOLDED,    /* folded stacks (flame graphs) */
    RVT_OUT_CALLGRIND, /* callgrind format (KCachegrind, callgrind_annotate) */
    RVT_OUT_CHROME,    /* Chrome/Perfetto trace-event JSON */
    RVT_OUT_JSONL      /* one JSON object per block and note, as decoded */
};
/* "pcs", "insn", "blocks", "count", "calltree", "profile", "coverage",
 * "lcov", "folded", "callgrind", "chrome" (or "perfetto"), "jsonl"; -1 if
 * unknown. */
int rvt_out_kind_parse(const char *name);
/* The names rvt_out_kind_parse accepts, ", "-separated (for messages). */
const char *rvt_out_kind_names(void);
/* True for the kinds an analysis computes (RVT_OUT_CALLTREE ... CHROME). */
int rvt_out_kind_is_analysis(int kind);

struct rvt_srclines;

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
    uint64_t data; /* NOTE_DATA notes: a trace of data alone (no instruction flow) decodes to these */
};

/* What a decode amounts to (the CLI's exit status, docs/decoding.md). */
enum rvt_decode_status {
    RVT_DECODE_WHOLE = 0,   /* every byte decoded: no error, no loss, no unexpected end, no limit */
    RVT_DECODE_DAMAGED = 1, /* instructions decoded, but errors, lost trace, an unexpected end or the limit */
    RVT_DECODE_NOTHING = 3  /* no instruction and no data decoded (empty trace, no sync point, nothing decodable) */
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
    /* Optional, for the listing's file:line lines and the analysis kinds: */
    const struct rvt_srclines *lines; /* DWARF line table (NULL: none) */
    const char *source_dir;        /* where source files are looked for (NULL: as recorded) */
    unsigned hart;                 /* the hart the decoded stream belongs to (labels) */
};

struct rvt_output;
struct rvt_output *rvt_out_new(const struct rvt_out_config *cfg);
void rvt_out_free(struct rvt_output *o);
struct rvt_flow_sink rvt_out_sink(struct rvt_output *o);
/* Flush; for RVT_OUT_COUNT prints the summary.  -RVT_ERR_IO: a write
 * failed, and errno says why (the first failed write's error, also when it
 * failed on another thread: rvt_out_jobs). */
int rvt_out_finish(struct rvt_output *o);
const struct rvt_out_stats *rvt_out_stats(const struct rvt_output *o);
/* The text of the first damage report (error, loss, end, limit), "" if none. */
const char *rvt_out_first_damage(const struct rvt_output *o);
/* Damage reports printed to diag, and those left unprinted by diag_max. */
uint64_t rvt_out_diag_printed(const struct rvt_output *o);
uint64_t rvt_out_diag_suppressed(const struct rvt_output *o);

/* The output of a decode on several threads (docs/parallel.md): give the
 * decode rvt_out_jobs_sink instead of rvt_out_sink, then call
 * rvt_out_jobs_finish before rvt_out_finish.  The decode stays on the
 * calling thread; pcs, insn and blocks are formatted on `threads` threads
 * in all (the calling one included; 0: one per core); count, the
 * analysis kinds and jsonl stay serial (their sink is rvt_out_sink's: a
 * second thread cost them more than it gave).  Output, damage reports,
 * statistics (complete once rvt_out_jobs_finish has returned) and the
 * decode's stopping point are the serial sink's.  Memory: a fixed ring
 * of batches. */
struct rvt_out_jobs;
struct rvt_out_jobs *rvt_out_jobs_new(struct rvt_output *o, unsigned threads);
struct rvt_flow_sink rvt_out_jobs_sink(struct rvt_out_jobs *j);
/* Optional, before the decode: the trace is trace_bytes long and the
 * decode stops after max_insns instructions (0 or RVT_DECODE_UNLIMITED:
 * no limit given); and, during it, rvt_out_jobs_progress (a decode's
 * progress callback, struct rvt_decode_options: give it a small
 * progress_every, a few hundred bytes) says where it is.  A PC list's or
 * listing's worker threads then start only if enough of the decode is
 * left to gain from them (extrapolated from the instructions per trace
 * byte so far): a short decode runs about as fast as on one thread. */
void rvt_out_jobs_expect(struct rvt_out_jobs *j, uint64_t trace_bytes, uint64_t max_insns);
void rvt_out_jobs_progress(void *jobs, uint64_t offset);
/* How many worker threads were started (0: the calling thread did
 * everything). */
unsigned rvt_out_jobs_launched(const struct rvt_out_jobs *j);
/* What the threads did: batches handed over, and how many of them a
 * worker was told to evict from its cache after reading (the library
 * measures, in probes of a few dozen batches, whether that speeds the
 * decoding thread up on this machine, and keeps the faster choice for a
 * while; docs/parallel.md); how many the calling thread formatted
 * itself straight into the output (every batch before them written);
 * how many batches' texts the workers wrote out (whichever thread
 * finishes a batch when every one before it is written writes it); and
 * how many batches were written out while they were formatted, by either
 * thread (a batch at the head goes out in pieces as its text grows); and
 * how many a PC list wrote where they go in the file, each as it was
 * formatted, whatever was written before it (a regular file or
 * /dev/null; docs/parallel.md).  All 0 before the workers start. */
struct rvt_out_jobs_stats {
    uint64_t batches, evicted, probes, probes_won_by_evicting;
    uint64_t written_directly;
    uint64_t written_by_workers;
    uint64_t written_while_formatted;
    uint64_t written_in_place;
};
void rvt_out_jobs_stats(const struct rvt_out_jobs *j, struct rvt_out_jobs_stats *st);
/* After the decode: formats and writes what is in flight, stops the
 * threads.  <0 if out of memory (rvt_out_finish reports it too). */
int rvt_out_jobs_finish(struct rvt_out_jobs *j);
void rvt_out_jobs_free(struct rvt_out_jobs *j);

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
    /* 1..12: enum rvt_data_kind */
    RVT_CMP_PRIV = 13,
    RVT_CMP_TIME = 14,
    RVT_CMP__COUNT = 15
};
const char *rvt_cmp_kind_name(unsigned kind); /* "instructions", "register writes", ... */
/* The enum rvt_traced flags under which a kind is compared (0: instructions,
 * always; lost accesses, never counted). */
unsigned rvt_cmp_kind_traced(unsigned kind);
/* How many of a kind were compared equal (privilege: instructions
 * compared on it; timestamps: distinct values). */
uint64_t rvt_seqcmp_count(const struct rvt_seqcmp *c, unsigned kind);
/* The kind of the first difference (RVT_CMP__COUNT if none). */
unsigned rvt_seqcmp_failed_kind(const struct rvt_seqcmp *c);

/* ---- source lines (DWARF line tables, through elfutils libdw) --------------- */

/* Nonzero if this build reads DWARF (built with libdw); otherwise the
 * loaders fail with RVT_ERR_UNSUPPORTED and a message saying so. */
int rvt_srclines_supported(void);
/* Read the line tables of every compilation unit of an ELF file (the
 * program itself, or a separate debug file made with objcopy
 * --only-keep-debug).  A file without DWARF gives an error naming it. */
int rvt_srclines_load(struct rvt_srclines **out, const char *path, struct rvt_diag *d);
/* The same from memory (the bytes are copied); `name` is used in messages. */
int rvt_srclines_load_mem(struct rvt_srclines **out, const void *buf, size_t len, const char *name,
                          struct rvt_diag *d);
/* Move every row up by bias: the lines of a program loaded bias bytes
 * above its ELF's addresses (rvt_img_load_elf_at).  -RVT_ERR_INVAL if a
 * row would leave the address space. */
int rvt_srclines_rebase(struct rvt_srclines *s, uint64_t bias);
void rvt_srclines_free(struct rvt_srclines *s);

struct rvt_srcline {
    const char *file; /* as the line table records it */
    uint32_t file_id; /* index of `file` (0 .. rvt_srclines_files - 1) */
    uint32_t line;    /* 1-based; 0 = no line (compiler-generated code) */
    uint64_t addr;    /* first address of the row's range */
    uint64_t end;     /* the range is [addr, end) */
};
/* The row covering addr: 1 found (*out filled), 0 none. */
int rvt_srclines_find(const struct rvt_srclines *s, uint64_t addr, struct rvt_srcline *out);
/* Rows in address order (every range the line tables describe). */
size_t rvt_srclines_count(const struct rvt_srclines *s);
int rvt_srclines_row(const struct rvt_srclines *s, size_t i, struct rvt_srcline *out);
size_t rvt_srclines_files(const struct rvt_srclines *s);
const char *rvt_srclines_file(const struct rvt_srclines *s, uint32_t file_id);

/* ---- analysis: call tree, profile, coverage, timeline ----------------------- */

/* An analysis consumes the blocks and notes of one or more flows — one per
 * hart — through the flow sinks it hands out, and computes every view at
 * rvt_an_finish.  The same blocks give the same views whatever family
 * decoded them (or the ingress itself through rvt_ingflow): only what a
 * block says (addresses, counts, how it ended, time, trap cause) is used,
 * never where a decoder happened to cut blocks.
 *
 * Call tree: a CALL block pushes a frame for the function execution enters
 * (entered when the next block starts, so the target is what the trace
 * shows), a RETURN pops the frame whose return address it goes to; a jump
 * to the first instruction of another function replaces the frame (a tail
 * call); a trap pushes a handler frame that the next trap return pops.  A
 * return to no address on the stack is matched to the most recent frame of
 * the function it lands in, the frames above are "unwound" (longjmp,
 * exceptions); if no frame of that function exists the return is
 * "unmatched" and execution continues in a "resumed" frame at the top
 * level.  The same happens where the trace starts or resumes after a gap:
 * the stack before it is unknown. */
struct rvt_an_config {
    size_t size;                        /* sizeof(struct rvt_an_config) */
    const struct rvt_image *image;      /* required: code and symbols */
    const struct rvt_srclines *lines;   /* optional: per-line views, lcov */
    unsigned xlen;                      /* 0: from the image */
    unsigned max_depth;                 /* call stack frames kept (0: 10000); deeper calls are counted */
    uint64_t max_spans;                 /* timeline spans kept per hart (0: 200000); shortest dropped first */
    uint64_t max_events;                /* traps, gaps, errors listed per hart (0: 10000); all are counted */
};

struct rvt_analysis;
struct rvt_analysis *rvt_an_new(const struct rvt_an_config *cfg);
void rvt_an_free(struct rvt_analysis *a);
const char *rvt_an_error(const struct rvt_analysis *a);
/* The sink for hart `hart`'s blocks and notes (harts are separate streams;
 * 0 .. RVT_AN_MAX_HARTS-1).  NULL block function if out of range. */
#define RVT_AN_MAX_HARTS 64
struct rvt_flow_sink rvt_an_sink(struct rvt_analysis *a, unsigned hart);
/* After every stream ended: closes open frames, expands per-instruction
 * counts, computes the views.  Blocks given afterwards are an error. */
int rvt_an_finish(struct rvt_analysis *a);

struct rvt_progress;
/* Feed an analysis from ingress records directly — the ground truth every
 * decoded trace is compared with: one flow per hart (the records' `hart`),
 * each driven by rvt_ingflow, with `ecall` as `rvtrace check` uses it.
 * `progress` (may be NULL) is told the instructions.  Errors name the
 * record. */
int rvt_an_ingress(struct rvt_analysis *a, struct rvt_ing_reader *in, enum rvt_flow_ecall ecall,
                   struct rvt_progress *progress, struct rvt_diag *d);

/* Totals of one hart, or of all (hart = -1). */
struct rvt_an_summary {
    uint64_t insns, blocks;
    uint64_t calls, returns, tail_calls;
    uint64_t traps, interrupts, trap_returns;
    uint64_t unwound;        /* frames left without a return (longjmp, exceptions) */
    uint64_t unmatched;      /* returns and trap returns to nowhere on the stack */
    uint64_t depth_overflow; /* calls deeper than max_depth (not in the tree) */
    uint64_t syncs, gaps, errors;
    uint64_t max_depth;
    int has_time;            /* blocks carried timestamps */
    uint64_t time_first, time_last;
    /* coverage (the same for hart -1 and each hart: the union is used for -1) */
    uint64_t funcs_total, funcs_hit;
    uint64_t insns_total, insns_hit;     /* static instructions in the functions */
    uint64_t lines_total, lines_hit;     /* with source lines */
    uint64_t branches_total;             /* static conditional branches */
    uint64_t branches_both, branches_taken_only, branches_not_taken_only; /* executed */
    uint64_t spans_dropped;  /* timeline spans shorter than span_min not kept */
    uint64_t span_min;       /* ... in instructions */
    uint64_t events_dropped; /* traps/gaps counted but not listed */
    uint64_t bblocks_total, bblocks_hit; /* static basic blocks (leaders: function starts, branch and
                                            jump targets, the instruction after any control transfer) */
};
int rvt_an_summary(const struct rvt_analysis *a, int hart, struct rvt_an_summary *s, size_t size);
/* Harts that sent blocks, ascending; returns how many (fills up to max). */
unsigned rvt_an_harts(const struct rvt_analysis *a, unsigned *harts, unsigned max);

/* Flat profile: one entry per function executed (all harts, or one). */
struct rvt_an_func {
    const char *name;
    uint64_t addr, size;
    uint64_t self;        /* instructions at this function's addresses */
    uint64_t total;       /* instructions while it was on the call stack (recursion counted once) */
    uint64_t calls;       /* frames entered (calls, tail calls, traps to it) */
    uint64_t self_time, total_time; /* with timestamps: time units, shared over instructions */
    uint64_t insns_total, insns_hit; /* coverage of its static instructions */
    uint64_t branches_total, branches_both, branches_one;
    uint32_t id;          /* function id (stable for one analysis) */
    uint64_t bblocks_total, bblocks_hit; /* its static basic blocks, executed */
};
/* Functions by self count, descending (then address).  n receives the count. */
const struct rvt_an_func *rvt_an_funcs(const struct rvt_analysis *a, int hart, size_t *n);

/* Call tree nodes of one hart; node 0 is the root ("hart N"). */
enum rvt_an_node_kind {
    RVT_AN_ROOT = 0,
    RVT_AN_CALL,     /* entered by a call (or tail call) */
    RVT_AN_TRAP,     /* a trap handler, entered by an exception or interrupt */
    RVT_AN_RESUMED   /* execution found here without seeing the entry (trace start, gap, unmatched return) */
};
struct rvt_an_node {
    const char *name;     /* function */
    uint64_t addr;        /* function address */
    uint32_t parent, first_child, next_sibling; /* UINT32_MAX: none */
    uint32_t depth, func; /* func: rvt_an_func.id */
    uint8_t kind;         /* enum rvt_an_node_kind */
    uint64_t calls, self, total;
    uint64_t self_time, total_time;
    uint64_t unwound;     /* frames of this node left by unwinding */
    uint64_t unmatched;   /* returns from this node that matched no frame */
};
/* Children are ordered by total, descending. */
const struct rvt_an_node *rvt_an_nodes(const struct rvt_analysis *a, unsigned hart, size_t *n);

/* Timeline spans of one hart (function and trap-handler frames), in the
 * order they ended.  Indices count instructions of that hart from 0. */
struct rvt_an_span {
    uint64_t start, end;            /* instruction index [start, end) */
    uint64_t tstart, tend;          /* time (when the trace has timestamps) */
    uint32_t node, depth;
    uint8_t kind;                   /* enum rvt_an_node_kind */
    uint8_t how;                    /* enum rvt_an_span_end */
};
enum rvt_an_span_end {
    RVT_AN_END_RETURN = 0, RVT_AN_END_UNWOUND, RVT_AN_END_TAIL, RVT_AN_END_GAP, RVT_AN_END_TRACE,
    RVT_AN_END_UNMATCHED
};
const struct rvt_an_span *rvt_an_spans(const struct rvt_analysis *a, unsigned hart, size_t *n);

/* Traps, gaps and errors of one hart, in order. */
enum rvt_an_event_kind { RVT_AN_EV_EXCEPTION = 1, RVT_AN_EV_INTERRUPT, RVT_AN_EV_GAP, RVT_AN_EV_ERROR };
struct rvt_an_event {
    uint64_t index, time;   /* instruction index (time if known) */
    uint64_t addr;          /* last instruction before the trap / gap (0 if none) */
    uint64_t handler;       /* trap: where execution continued (0 if not known) */
    uint64_t cause, tval;
    uint64_t offset;        /* byte offset in the trace of what reported it */
    const char *text;       /* gap reason / error text */
    uint8_t kind, priv;
};
const struct rvt_an_event *rvt_an_events(const struct rvt_analysis *a, unsigned hart, size_t *n);

/* Per instruction (all harts): execution count and branch outcomes. */
struct rvt_an_insn {
    uint64_t addr;
    uint64_t count;
    uint64_t taken, not_taken; /* conditional branches */
};
/* Executed instructions by address.  n receives the count. */
const struct rvt_an_insn *rvt_an_insns(const struct rvt_analysis *a, size_t *n);

/* Per source line (all harts; needs rvt_an_config.lines). */
struct rvt_an_line {
    const char *file;
    uint32_t file_id, line;
    uint64_t hits;    /* times the line ran (its most executed instruction) */
    uint64_t insns;   /* instructions executed at its addresses */
    uint32_t branches, branches_both, branches_one;
};
/* Every line with code (executed or not), by file then line. */
const struct rvt_an_line *rvt_an_lines(const struct rvt_analysis *a, size_t *n);

/* ---- writing the views -------------------------------------------------------- */

enum rvt_an_format {
    RVT_AN_FMT_CALLTREE = 0, /* text */
    RVT_AN_FMT_PROFILE,      /* text */
    RVT_AN_FMT_COVERAGE,     /* text */
    RVT_AN_FMT_LCOV,
    RVT_AN_FMT_FOLDED,
    RVT_AN_FMT_CALLGRIND,
    RVT_AN_FMT_CHROME,
    RVT_AN_FMT_HTML
};
struct rvt_an_write_opts {
    size_t size;                /* sizeof(struct rvt_an_write_opts) */
    int hart;                   /* -1: all harts (default when size is 0) */
    const char *title;          /* report title / callgrind cmd */
    const char *source_dir;     /* where to look for source files (NULL: as recorded, then cwd) */
    const char *const *notes;   /* report: extra lines for the header (NULL-terminated) */
    const char *const *links;   /* report: files written beside it, name then label (NULL-terminated) */
};
int rvt_an_write(struct rvt_analysis *a, enum rvt_an_format fmt, FILE *f, const struct rvt_an_write_opts *o);

/* ---- JSON Lines: every block and note as it is decoded ------------------------ */

struct rvt_jsonl;
/* One object per line: {"type":"block",...} / {"type":"sync",...}.  `image`
 * (may be NULL) adds function names. */
struct rvt_jsonl *rvt_jsonl_new(FILE *f, const struct rvt_image *image, unsigned xlen, unsigned hart);
void rvt_jsonl_free(struct rvt_jsonl *j);
struct rvt_flow_sink rvt_jsonl_sink(struct rvt_jsonl *j);
/* -RVT_ERR_IO: a write failed; errno says why (that write's error). */
int rvt_jsonl_finish(struct rvt_jsonl *j);

/* ---- progress ------------------------------------------------------------------ */

/* A sink wrapper that prints progress ("decoded 12.5 M instructions, 40%")
 * to `f` about twice a second, on one line rewritten with \r, and passes
 * everything on to `inner`.  `total_bytes` (0: unknown) is the trace length
 * the blocks' trace_offset counts towards. */
struct rvt_progress;
struct rvt_progress *rvt_progress_new(FILE *f, const char *what, uint64_t total_bytes,
                                      const struct rvt_flow_sink *inner);
void rvt_progress_free(struct rvt_progress *p);
struct rvt_flow_sink rvt_progress_sink(struct rvt_progress *p);
/* Seconds between updates (default 0.5; 0: at every check). */
void rvt_progress_set_interval(struct rvt_progress *p, double seconds);
/* Count instructions not seen through the sink (e.g. an ingress reader's). */
void rvt_progress_add(struct rvt_progress *p, uint64_t insns, uint64_t bytes);
/* Erase the progress line. */
void rvt_progress_done(struct rvt_progress *p);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
