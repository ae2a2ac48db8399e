/* What the threaded decode (src/parallel/pardecode.c) needs of struct
 * rvt_output (output.c): the serial sink cut in two — what the decoding
 * thread must do itself (statistics, damage reports, the errors that stop
 * the decode) and the text, made by formatters on other threads — and the
 * listing's state from one block to the next, so that a batch formatted
 * from a guessed state can be checked against the state the serial
 * listing reaches there (internal to the library). */
#ifndef RVT_ANALYSIS_OUTJOBS_H
#define RVT_ANALYSIS_OUTJOBS_H

#include "rvtrace/analysis.h"

#include <stdbool.h>

/* How an output kind runs on threads. */
enum rvt_outj_mode {
    /* count (its sink is the statistics), the analysis kinds and jsonl
     * (their work per block is less than handing the block to another
     * core costs: pardecode.c) */
    RVT_OUTJ_SERIAL = 0,
    RVT_OUTJ_FORMAT /* pcs, insn, blocks: batches formatted on several threads, written in order */
};
enum rvt_outj_mode rvt_outj_mode(const struct rvt_output *o);
enum rvt_out_kind rvt_outj_kind(const struct rvt_output *o);
/* The image whose code the output lists (NULL: none). */
const struct rvt_image *rvt_outj_image(const struct rvt_output *o);

/* FORMAT, on the decoding thread: what the serial sink does for a block
 * besides its text, cut so that the common case costs a few instructions
 * inline (the decoding thread sets the pace of the whole decode).
 * - The statistics: the decoding thread adds up its blocks' counts
 *   (struct rvt_block_counts) and hands them over with
 *   rvt_outj_account_counts, batch by batch.
 * - The error that stops the decode where the serial sink stops it: a
 *   block whose instructions cannot be listed (pcs, insn).  Blocks repeat
 *   (loops): a table remembers the blocks found listable, and only a block
 *   it does not answer goes to rvt_outj_check_block, which checks it,
 *   reports it as the serial sink does and returns the serial sink's
 *   return value for it (the text of the instructions before it is the
 *   formatter's).  A block the table answers returns what the serial sink
 *   would: rvt_outj_error.
 * rvt_outj_check_init makes the table; NULL from rvt_outj_listed_table:
 * the kind lists no instructions (blocks), nothing to check. */
struct rvt_outj_listed {
    uint64_t start, ninsns; /* the most instructions from start known listable (fewer are too) */
};
#define RVT_OUTJ_LISTED_LOG2 12
static inline size_t rvt_outj_listed_slot(uint64_t start)
{
    return (size_t)(((start >> 1) * 0x9E3779B97F4A7C15ull) >> (64 - RVT_OUTJ_LISTED_LOG2));
}
static inline bool rvt_outj_known_listable(const struct rvt_outj_listed *t, const struct rvt_block *b)
{
    const struct rvt_outj_listed *l = &t[rvt_outj_listed_slot(b->start)];
    return l->start == b->start && l->ninsns >= b->ninsns;
}
int rvt_outj_check_init(struct rvt_output *o);
const struct rvt_outj_listed *rvt_outj_listed_table(const struct rvt_output *o);
int rvt_outj_check_block(struct rvt_output *o, const struct rvt_block *b);
void rvt_outj_account_counts(struct rvt_output *o, const struct rvt_block_counts *c);
/* The output's first error (0: none): what its sink returns for a block. */
int rvt_outj_error(const struct rvt_output *o);
/* The statistics and damage reports of note n, and the serial sink's
 * return value for it. */
int rvt_outj_account_note(struct rvt_output *o, const struct rvt_note *n);

/* A formatter: the serial sink's text, in memory.  With `share`, it
 * uses the output's own formatter's tables of the program (its block
 * cache and the lines and runs made so far) instead of making its own:
 * only for the thread that also runs the output's own formatter (the
 * tables are not locked), which then finds warm what the output's sink
 * made before the workers started. */
struct rvt_out_fmt;
struct rvt_out_fmt *rvt_outj_fmt_new(struct rvt_output *o, bool share);
void rvt_outj_fmt_free(struct rvt_out_fmt *f);
/* The output's own formatter (writes to the output's file; its listing
 * state is the serial decode's at the last batch written). */
struct rvt_out_fmt *rvt_outj_serial_fmt(struct rvt_output *o);
/* Text of block b / note n (a block that cannot be listed leaves the text
 * of the instructions before it, as the serial sink does). */
void rvt_outj_fmt_block(struct rvt_out_fmt *f, const struct rvt_block *b);
void rvt_outj_fmt_note(struct rvt_out_fmt *f, const struct rvt_note *n);
/* The text of blocks b[0..n-1], in order (one call for a run of blocks). */
void rvt_outj_fmt_blocks(struct rvt_out_fmt *f, const struct rvt_block *b, size_t n);
/* A PC list's text of the blocks r[0..n-1] (all a PC list needs of a
 * block is where it starts and how many instructions it has). */
void rvt_outj_fmt_pcs(struct rvt_out_fmt *f, const struct rvt_block_run *r, size_t n);
/* A listing's batch (pardecode.c): an array of struct rvt_block_run —
 * runs (where a block starts, how many instructions it has: 16 bytes, not
 * the block's 88; the decoding thread writes every block into a batch and
 * another core reads it, bench/RESULTS.md "What textjobs' round
 * changed"), each run's first instruction following on from the entry
 * before, and two kinds of entries whose `ninsns` is no block's:
 * - RVT_OUTJ_SET_INDEX: the next run's first instruction has index
 *   `start` (the engine gives the index at each hand-over of runs);
 * - RVT_OUTJ_WHOLE: the block whole[start], kept whole because its line
 *   names more than a run holds (it ends in a trap or an implicit
 *   return); the next run follows on from it.
 * rvt_outj_fmt_listing formats e[0..n-1], the first run's index being
 * *index, and leaves there the index after the last. */
#define RVT_OUTJ_SET_INDEX UINT64_MAX
#define RVT_OUTJ_WHOLE (UINT64_MAX - 1)
void rvt_outj_fmt_listing(struct rvt_out_fmt *f, const struct rvt_block_run *e, size_t n, const struct rvt_block *whole,
                          uint64_t *index);
/* Back to the state at the start of a decode; the text is emptied. */
void rvt_outj_fmt_restart(struct rvt_out_fmt *f);
/* Exchange f's text (pointer, length, capacity) with *buf, *len, *cap
 * (the text is not copied).  *buf NULL gives f a new buffer. */
int rvt_outj_fmt_swap_text(struct rvt_out_fmt *f, char **buf, size_t *len, size_t *cap);
void rvt_outj_fmt_clear_text(struct rvt_out_fmt *f);
/* A batch formatter's text (f has no file): whenever it has grown by
 * `step` bytes, offer it to spill(ctx, text, len), which returns nonzero
 * when it took it (wrote it out): the text then starts again, empty, in
 * the same buffer.  step 0: never (the text grows until taken). */
void rvt_outj_fmt_spill(struct rvt_out_fmt *f, size_t step, int (*spill)(void *ctx, const char *text, size_t len),
                        void *ctx);
/* The first write or memory error of f (0: none). */
int rvt_outj_fmt_error(const struct rvt_out_fmt *f);

/* What the listing carries from one block to the next: the index of the
 * next instruction (data notes), the function of the last line (headers),
 * the last source line, and the data notes waiting for an instruction. */
struct rvt_outj_state {
    uint64_t next_index;
    const void *sym;
    const char *file;
    uint32_t line;
    struct rvt_datalist *data; /* owned (exchanged with a formatter's) */
};
int rvt_outj_state_init(const struct rvt_output *o, struct rvt_outj_state *s);
void rvt_outj_state_free(struct rvt_outj_state *s);
/* Exchange f's listing state with *s (the waiting data notes move). */
void rvt_outj_fmt_swap_state(struct rvt_out_fmt *f, struct rvt_outj_state *s);
/* A copy of f's listing state without its data notes, and how many wait. */
void rvt_outj_fmt_peek_state(const struct rvt_out_fmt *f, struct rvt_outj_state *s, size_t *waiting);
/* Equal states give equal text for equal blocks and notes. */
bool rvt_outj_state_equal(const struct rvt_outj_state *a, size_t a_waiting, const struct rvt_outj_state *b,
                          size_t b_waiting);
size_t rvt_outj_state_waiting(const struct rvt_outj_state *s);

/* Write text to the output's file in order with what its own formatter
 * wrote (errors as rvt_out_finish reports them). */
void rvt_outj_write(struct rvt_output *o, const char *text, size_t len);
/* The same, on a thread other than the one that reads the output's error:
 * returns the error (-RVT_ERR_IO) instead of keeping it.  The caller has
 * the writing turn: nothing else writes the output or its own formatter's
 * text meanwhile. */
int rvt_outj_write_quiet(struct rvt_output *o, const char *text, size_t len);
/* A PC list written where each batch's text goes (outfile.h, positional
 * writes), from any thread: its lines have one width, so a batch's place
 * is the instructions before it times *line_bytes from *at; *regular:
 * whether the output is a regular file (not /dev/null).  -1: the kind
 * is not a PC list, or the output takes only writes in order.  The
 * output's own formatter's text goes out first. */
int rvt_outj_positional_begin(struct rvt_output *o, uint64_t *at, size_t *line_bytes, bool *regular);
/* Write text at offset `at` (any thread); -RVT_ERR_IO on a write error
 * (the caller gives it: rvt_outj_set_error). */
int rvt_outj_pwrite(struct rvt_output *o, const char *text, size_t len, uint64_t at);
/* The file system's space reserved up to offset `end` (calling thread). */
void rvt_outj_reserve(struct rvt_output *o, uint64_t end);
/* The positional writes are over; the text ends at `end`. */
void rvt_outj_positional_end(struct rvt_output *o, uint64_t end);
/* A formatter's text so far (rvt_outj_fmt_clear_text empties it). */
const char *rvt_outj_fmt_text(const struct rvt_out_fmt *f, size_t *len);

/* Set the output's error (the first one stays), e.g. a formatter's. */
void rvt_outj_set_error(struct rvt_output *o, int err);

#endif
