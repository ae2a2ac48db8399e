/* The text readers (PC list, PC INSN) in pieces, for reading one input on
 * several threads (src/parallel/partext.c): the input is cut at newlines
 * into chunks, each parsed by a chunk parser of its own thread into an
 * array of records.  A chunk parser starts from the last two instruction
 * lines before its chunk (its "prefix"): they leave the builder holding
 * what the serial reader holds at the chunk's first line (the instruction
 * waiting for its successor and the one before it, for sequentially
 * inferable jumps), so the chunks' records, joined in order, are the
 * serial reader's records. */
#ifndef RVT_INGRESS_TEXTCHUNK_H
#define RVT_INGRESS_TEXTCHUNK_H

#include "ingress/builder_internal.h"
#include "rvtrace/ingress.h"

#include <stdio.h>

#define RVT_TEXT_LINE_MAX 4094 /* longest line accepted (characters before the newline) */
#define RVT_TEXT_PAD 32        /* zero bytes a chunk's or prefix line's buffer holds after its data */
/* Bytes of the input that follow a chunk's text read in place (its body,
 * below): more than a parse of its last line may look at. */
#define RVT_TEXT_SLACK 64

/* The offset just after the last newline in p[from, to); from if none. */
static inline size_t rvt_text_after_newline(const char *p, size_t from, size_t to)
{
    while (to > from && p[to - 1] != '\n')
        to--;
    return to;
}

/* Where mapped text p[start, end) of whole lines (but maybe its last)
 * splits into its body, read in place, and the rest, copied: after its
 * last newline RVT_TEXT_SLACK bytes or more before end. */
static inline size_t rvt_text_body_end(const char *p, size_t start, size_t end)
{
    return end - start > RVT_TEXT_SLACK ? rvt_text_after_newline(p, start, end - RVT_TEXT_SLACK) : start;
}

struct rvt_trace_file;
/* f's file mapped for a text reader, from f's position (*start), if it is
 * a regular file that can be mapped and RVT_TEXT_MAP is not 0 (the tests
 * read files with it); NULL otherwise: the reader reads f. */
struct rvt_trace_file *rvt_text_map_input(FILE *f, size_t *start);

/* Readers whose records lie in arrays hand them out in place through
 * rvt_ing_next_batch (see ingress.h). */
typedef int (*rvt_ing_batch_fn)(void *self, const struct rvt_ing_rec **recs, size_t *n);
void rvt_ing_reader_set_batch(struct rvt_ing_reader *r, rvt_ing_batch_fn fn);
/* ... and the threaded text reader in short, as parsed (rvt_ing_next_short). */
typedef int (*rvt_ing_short_fn)(void *self, struct rvt_ing_short_batch *b);
void rvt_ing_reader_set_short(struct rvt_ing_reader *r, rvt_ing_short_fn fn);

/* What a text reader was opened with, taken from it. */
struct rvt_text_input {
    FILE *f;
    char *name;
    enum rvt_ing_format fmt;
    unsigned xlen;
    struct rvt_ing_builder_config bc; /* (emit and warn are each chunk parser's) */
    rvt_ing_warn_fn warn;
    void *warn_ctx;
};

/* If r is a PC-list or PC INSN reader that has read nothing and whose
 * records only depend on the last two instruction lines (no merged blocks,
 * no hart selection): its input into *t, r closed, 1.  Otherwise 0 (r
 * untouched). */
int rvt_text_take(struct rvt_ing_reader *r, struct rvt_text_input *t);
void rvt_text_input_free(struct rvt_text_input *t);

struct text_src;
struct text_src *rvt_text_parser_new(const struct rvt_text_input *t);
void rvt_text_parser_free(struct text_src *p);

struct rvt_text_chunk {
    /* in */
    const char *prefix[2]; /* NUL-terminated, RVT_TEXT_PAD zeros after */
    unsigned nprefix;
    /* The chunk's first body_len bytes read in place from a mapped input
     * (never written): whole lines, each ending in a newline, followed in
     * the input by at least RVT_TEXT_SLACK bytes (the rest of the chunk,
     * which is `text`).  0: all of it is in `text`. */
    const char *body;
    size_t body_len;
    char *text;            /* len bytes and RVT_TEXT_PAD + 1 more (written) */
    size_t len;
    bool last;             /* the input ends after it */
    /* out: the records (grown as needed, kept for the next chunk).  Most
     * are the builder's fast step's, kept short (16 bytes, not 88: they
     * are written on one core and read on another); one with len 0 is the
     * next of `full`, a record of the general path. */
    struct rvt_ing_fast *recs;
    size_t n, cap;
    struct rvt_ing_rec *full;
    size_t nfull, fcap;
    uint64_t lines;        /* lines in the chunk */
    int err;               /* < 0: after the n records, this error */
    uint64_t err_line;     /* its line in the chunk (1 = the first), 0: msg is whole */
    char msg[512];
    bool warned;           /* the builder warned before record warn_at */
    size_t warn_at;
    char warn[512];
};

/* The privilege and context of every record a text input gives (it
 * carries neither). */
#define RVT_TEXT_PRIV RVT_PRIV_M
#define RVT_TEXT_CONTEXT 0

/* Record i of a chunk into *out; *full, the number of full records before
 * it, goes on past it. */
static inline void rvt_text_chunk_rec(const struct rvt_text_chunk *c, size_t i, size_t *full,
                                      struct rvt_ing_rec *out)
{
    if (c->recs[i].len)
        rvt_ing_fast_rec(&c->recs[i], RVT_TEXT_PRIV, RVT_TEXT_CONTEXT, out);
    else
        *out = c->full[(*full)++];
}

/* Records handed out in place (rvt_ing_next_batch) by the text readers,
 * serial and threaded: most are the fast step's, so a slot keeps the
 * fields those share and the next one writes only what differs
 * (rvt_ing_fast_rec_over: 4 stores, not 17).  A slot given a full record
 * is made a fast record's again when the next batch starts. */
#define RVT_TEXT_BATCH 256
struct rvt_text_batch {
    struct rvt_ing_rec rec[RVT_TEXT_BATCH];
    uint16_t full_at[RVT_TEXT_BATCH]; /* the slots given a full record */
    size_t nfull;
};

/* A batch whose every slot is to be made a fast record's. */
static inline void rvt_text_batch_init(struct rvt_text_batch *b)
{
    for (size_t i = 0; i < RVT_TEXT_BATCH; i++)
        b->full_at[i] = (uint16_t)i;
    b->nfull = RVT_TEXT_BATCH;
}

/* Before a batch is filled. */
static inline void rvt_text_batch_start(struct rvt_text_batch *b)
{
    static const struct rvt_ing_fast blank;
    for (size_t j = 0; j < b->nfull; j++)
        rvt_ing_fast_rec(&blank, RVT_TEXT_PRIV, RVT_TEXT_CONTEXT, &b->rec[b->full_at[j]]);
    b->nfull = 0;
}

/* Slot i, to be given a full record. */
static inline struct rvt_ing_rec *rvt_text_batch_full(struct rvt_text_batch *b, size_t i)
{
    b->full_at[b->nfull++] = (uint16_t)i;
    return &b->rec[i];
}

/* Parse one chunk: 0 (all of it), < 0 (an error, in c). */
int rvt_text_parse_chunk(struct text_src *p, struct rvt_text_chunk *c);

/* A line whose records the builder sees (not blank, not a comment). */
bool rvt_text_is_insn_line(const char *p, size_t n);

#endif
