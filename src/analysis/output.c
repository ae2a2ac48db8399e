/* Text outputs of a decoded flow: PC list, instruction listing, block list,
 * counting.  The PC list is the hot one: blocks are expanded with the block
 * cache and formatted by hand into a large buffer. */
#include "rvtrace/analysis.h"
#include "datalist.h"
#include "an_output.h"
#include "an_internal.h"
#include "outjobs.h"
#include "outfile.h"
#include "textfmt.h"

#include "image/bcache_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The instruction listing's lines, cached by address: a line depends only
 * on the instruction there.  Direct-mapped, so its memory is fixed.  A
 * 64-byte stretch of code is kept on one page of the table (a slot for
 * each of its 32 halfword addresses; stretches whose hashes collide share
 * a page), so a run's lines are on one or two pages (line_slot_of).
 * Hashed line by line, the first 1,000 instructions of the bzip2 capture
 * wrote 500 of the table's 1,024 pages; now 1,250 fewer page faults on
 * its listing at `--jobs 2` (a table per thread) and 0-4 % less time, one
 * thread the same (bench/RESULTS.md, "What the lead's twenty-second round
 * measured and changed"). */
#define LINE_SLOTS_LOG2 15
#define LINE_TEXT 98 /* (a slot is 128 bytes) */
#define LINE_SLOTS_PER_PAGE (4096 / 128)
#define LINE_PAGES_LOG2 (LINE_SLOTS_LOG2 - 5) /* (32 slots a page) */
#define LINE_PAGES ((size_t)1 << LINE_PAGES_LOG2)
struct line_slot {
    uint64_t pc;                    /* UINT64_MAX (odd): unused */
    const struct rvt_symbol *sym;   /* rvt_img_symbol_at(pc) */
    const char *file;               /* its source line (line 0: none, or no --dwarf) */
    uint32_t line;
    uint16_t len;
    char text[LINE_TEXT];
};

/* The text of a run of a cache block (start, k instructions), kept for
 * the next time the run is decoded: a loop's blocks are written by one
 * copy instead of line by line.  A listing's run text leaves out the
 * function header its first line may need (that depends on the line
 * before): first_sym says which function that is. */
#define RUN_SLOTS_LOG2 11
#define RUN_TEXT_MAX 16384 /* (a run is at most 64 instructions: 64 listing lines fit) */
struct run_slot {
    uint64_t start;  /* UINT64_MAX (odd): unused */
    uint32_t k, len, cap;
    /* listing: the function and source line of its first instruction, and
     * the source line it leaves the listing at (when src_any) */
    const struct rvt_symbol *first_sym, *last_sym;
    const char *first_file, *last_file;
    uint32_t first_line, last_line;
    bool src_any;
    char *text;      /* cap bytes */
};

/* A threaded decode's text buffer, to start with: a listing's batch of 32 Ki
 * instructions (pardecode.c) is 1.3 MB of text on the bzip2 capture and
 * 2 MB with ntrace-t1's source lines (60 bytes an instruction), and a
 * buffer that grows is copied each time (`--jobs 2` of the bzip2 capture's
 * listing copied 10 MB that way; bench/RESULTS.md, "What the lead's
 * thirteenth round changed"); under ASan the old one also stays in its
 * quarantine, which made tests/core/flatmem.sh's peak memory grow with
 * the trace when this was 2 MiB.  Only the pages written are ever mapped
 * (a batch written out as it grows touches 256 KiB of it: pardecode.c). */
#define BATCH_TEXT_START ((size_t)4 << 20)

/* A listing heads code that no symbol holds with the file it lies in
 * (`<no symbol in libc.so.6>:`, as the views' `[no symbol in FILE]`):
 * one pseudo symbol per named executable segment of an image that has
 * symbols, made with the output from the image as it is then, shared by the formatters of every thread
 * (the listing's state compares these pointers across threads). */
struct out_unnamed {
    struct rvt_symbol *sym;
    const struct rvt_segment **seg;
    size_t n;
};

/* What turns blocks and notes into text, with what the text remembers
 * from one block to the next.  The serial decode has one, writing to
 * cfg.f; each thread of a threaded decode (src/parallel/pardecode.c) has
 * its own, growing its text in memory (cfg.f NULL). */
struct rvt_out_fmt {
    struct rvt_out_config cfg;
    struct rvt_bcache *bc;
    struct rvt_datalist *data; /* listing: data notes waiting for their instruction */
    bool data_waiting;         /* rvt_datalist_pending(data) != 0, asked once per note, not per line */
    /* The listing's state from one block to the next (struct rvt_out_fmt_state): */
    uint64_t next_index;       /* listing: stream index of the next instruction printed */
    const struct rvt_symbol *cur_sym;
    const char *cur_file;
    uint32_t cur_line;
    /* The program's tables: its blocks, lines and runs, what this
     * formatter has made of the code so far.  A threaded decode's
     * calling thread formats batches with the output's own tables
     * (rvt_outj_fmt_new with `share`): `shared`, not freed here. */
    struct line_slot *lines;        /* RVT_OUT_INSN */
    uint64_t *lines_written;        /* lines' pages written (line_page_write): own_written or the owner's */
    uint64_t own_written[LINE_PAGES / 64];
    struct run_slot *runs;          /* RVT_OUT_PCS, RVT_OUT_INSN */
    bool shared;
    uint64_t hi_pc;                 /* pcs: the upper half of the last PC written ... */
    uint64_t hi_text;               /* ... and its 8 hex digits */
    uint64_t win;                   /* pcs: the PC whose line starts with head, mid */
    uint64_t head, mid;
    uint64_t flushes;               /* buf was written out (offsets into it moved) */
    uint64_t src_found;             /* instructions listed that have a source line */
    int *err;                       /* where a write or memory error goes */
    int own_err;
    struct an_outfile *file;        /* where the text goes (NULL: a batch, kept in buf) */
    size_t len, cap;
    char *buf;
    /* How far the text may grow before out_reserve asks to write it out
     * (cap, or with spill set less: rvt_outj_fmt_spill). */
    size_t lim;
    size_t spill_step;
    int (*spill)(void *ctx, const char *text, size_t len);
    void *spill_ctx;
    const struct out_unnamed *unnamed; /* the output's (listing) */
};


struct rvt_output {
    struct rvt_out_config cfg;
    struct out_unnamed unnamed;
    struct rvt_out_stats st;
    struct an_out *an; /* analysis kinds and JSON Lines */
    struct rvt_flow_sink an_sink;
    struct rvt_bcache *check_bc;    /* threaded decode: rvt_outj_account_block's ... */
    struct rvt_outj_listed *listed; /* ... and the blocks it found listable */
    uint64_t diag_printed, diag_suppressed;
    char first_damage[400];
    int err;
    struct an_outfile file;
    struct rvt_out_fmt fmt;
    /* A PC list or listing: the room lent to the flow engine for runs
     * (rvt_flow_sink.runs). */
    struct rvt_block_run lent[256];
};

/* Writes the text out: all of it, or (!all: room is needed) as much as
 * ends at a write boundary of the file (outfile.h), the rest moved to the
 * front (less than one boundary step). */
static void out_flush(struct rvt_out_fmt *o, bool all)
{
    if (!o->file) { /* a batch: its text stays in buf, unless it may go out now */
        if (o->spill && o->len && o->spill(o->spill_ctx, o->buf, o->len)) {
            o->len = 0;
            o->flushes++;
        }
        return;
    }
    const size_t n = all ? o->len : an_outfile_aligned(o->file, o->len);
    if (an_outfile_write(o->file, o->buf, n) < 0)
        *o->err = -RVT_ERR_IO;
    memmove(o->buf, o->buf + n, o->len - n);
    o->len -= n;
    o->flushes++;
}

/* The text's limit for n more bytes: its capacity, or (spill) a step
 * beyond where it is. */
static void out_limit(struct rvt_out_fmt *o, size_t n)
{
    const size_t step = n > o->spill_step ? n : o->spill_step;
    o->lim = o->spill && o->cap - o->len > step ? o->len + step : o->cap;
}

static void out_reserve(struct rvt_out_fmt *o, size_t n)
{
    if (o->lim - o->len >= n)
        return;
    out_flush(o, false);
    out_limit(o, n);
    if (o->lim - o->len >= n)
        return;
    /* A batch's text grows (bounded by the batch: pardecode.c). */
    size_t cap = 2 * o->cap > o->len + n ? 2 * o->cap : o->len + n;
    char *b = realloc(o->buf, cap);
    if (!b) {
        /* (what does not fit is dropped: the error stops the decode) */
        *o->err = -RVT_ERR_NOMEM;
        o->len = 0;
        return;
    }
    o->buf = b;
    o->cap = cap;
    out_limit(o, n);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void out_printf(struct rvt_out_fmt *o, const char *fmt, ...)
{
    out_reserve(o, 512);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len - 1;
}

/* A formatter for cfg (cfg->f NULL: its text grows in memory). */
static int fmt_init(struct rvt_out_fmt *o, const struct rvt_out_config *cfg, int *err, const struct rvt_out_fmt *tables)
{
    memset(o, 0, sizeof *o);
    o->cfg = *cfg;
    o->lines_written = o->own_written;
    o->err = err ? err : &o->own_err;
    o->hi_pc = UINT64_MAX;
    o->win = UINT64_MAX; /* odd: no PC's */
    /* Written out in 1 MiB pieces that end at a boundary of the file
     * (an_outfile_aligned): a new file's pages cost the kernel less per
     * byte in larger, aligned writes (bench/RESULTS.md, "Writing the text
     * to a file"); the extra 64 KiB hold what waits for the next boundary.
     * A batch's text grows if it must. */
    o->cap = cfg->f ? ((size_t)1 << 20) + AN_OUTFILE_ALIGN : BATCH_TEXT_START;
    if (!(o->buf = malloc(o->cap)))
        return -RVT_ERR_NOMEM;
    o->lim = o->cap;
    if ((cfg->kind == RVT_OUT_INSN || cfg->kind == RVT_OUT_BLOCKS) && !(o->data = rvt_datalist_new()))
        return -RVT_ERR_NOMEM;
    if (tables) {
        o->shared = true;
        o->bc = tables->bc;
        o->lines = tables->lines;
        o->lines_written = tables->lines_written;
        o->runs = tables->runs;
        return 0;
    }
    if (cfg->image && (cfg->kind == RVT_OUT_PCS || cfg->kind == RVT_OUT_INSN) &&
        !(o->bc = rvt_bcache_new(cfg->image, 0)))
        return -RVT_ERR_NOMEM;
    /* The two tables are zeroed pages the kernel maps on first touch (a
     * large calloc is fresh memory): a formatter costs only the slots its
     * code uses, not 4 MiB at start (a threaded listing has a formatter
     * per thread).  A zeroed slot reads as address 0, and address 0's
     * line is kept in slot 0 (line_slot_of): that one slot is marked
     * unused (its page is the first written). */
    if (cfg->image && cfg->kind == RVT_OUT_INSN) {
        o->lines = calloc((size_t)1 << LINE_SLOTS_LOG2, sizeof *o->lines);
        if (!o->lines)
            return -RVT_ERR_NOMEM;
        o->lines[0].pc = UINT64_MAX;
        o->own_written[0] = 1;
    }
    if (cfg->image && (cfg->kind == RVT_OUT_PCS || cfg->kind == RVT_OUT_INSN)) {
        o->runs = calloc((size_t)1 << RUN_SLOTS_LOG2, sizeof *o->runs);
        if (!o->runs)
            return -RVT_ERR_NOMEM;
        o->runs[0].start = UINT64_MAX;
    }
    return 0;
}

static void fmt_release(struct rvt_out_fmt *o)
{
    rvt_datalist_free(o->data);
    free(o->buf);
    if (o->shared)
        return;
    rvt_bcache_free(o->bc);
    free(o->lines);
    for (size_t i = 0; o->runs && i < (size_t)1 << RUN_SLOTS_LOG2; i++)
        free(o->runs[i].text);
    free(o->runs);
}

static int unnamed_init(struct out_unnamed *u, const struct rvt_image *img)
{
    /* (an image without symbols, raw code: no headers at all, as before;
     * they set unnamed code apart from a function listed before it) */
    const size_t nseg = rvt_img_segment_count(img);
    if (!nseg || !rvt_img_symbol_count(img))
        return 0;
    if (!(u->sym = calloc(nseg, sizeof *u->sym)) || !(u->seg = calloc(nseg, sizeof *u->seg)))
        return -1;
    for (size_t i = 0; i < nseg; i++) {
        const struct rvt_segment *g = rvt_img_segment(img, i);
        if (!g->exec || !g->name)
            continue;
        char *name = an_unnamed_name(g, false);
        if (!name)
            return -1;
        u->sym[u->n] = (struct rvt_symbol){.addr = g->addr, .size = g->size, .name = name};
        u->seg[u->n++] = g;
    }
    return 0;
}

struct rvt_output *rvt_out_new(const struct rvt_out_config *cfg)
{
    if (!cfg || cfg->size < sizeof *cfg || !cfg->f)
        return NULL;
    struct rvt_output *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->cfg = *cfg;
    if (!o->cfg.xlen)
        o->cfg.xlen = cfg->image ? rvt_img_xlen(cfg->image) : 64;
    if (fmt_init(&o->fmt, &o->cfg, &o->err, NULL) < 0) {
        rvt_out_free(o);
        return NULL;
    }
    if (o->cfg.image && o->cfg.kind == RVT_OUT_INSN && unnamed_init(&o->unnamed, o->cfg.image) < 0) {
        rvt_out_free(o);
        return NULL;
    }
    o->fmt.unnamed = &o->unnamed;
    an_outfile_init(&o->file, o->cfg.f);
    o->fmt.file = &o->file;
    if (cfg->kind >= RVT_OUT_CALLTREE) {
        if (!(o->an = an_out_new(&o->cfg))) {
            rvt_out_free(o);
            return NULL;
        }
        o->an_sink = an_out_sink(o->an);
    }
    return o;
}

void rvt_out_free(struct rvt_output *o)
{
    if (!o)
        return;
    fmt_release(&o->fmt);
    for (size_t i = 0; i < o->unnamed.n; i++)
        free((char *)o->unnamed.sym[i].name);
    free(o->unnamed.sym);
    free(o->unnamed.seg);
    rvt_bcache_free(o->check_bc);
    free(o->listed);
    an_out_free(o->an);
    free(o);
}

const struct rvt_out_stats *rvt_out_stats(const struct rvt_output *o)
{
    return &o->st;
}

const char *rvt_out_first_damage(const struct rvt_output *o)
{
    return o->first_damage;
}

uint64_t rvt_out_diag_printed(const struct rvt_output *o)
{
    return o->diag_printed;
}

uint64_t rvt_out_diag_suppressed(const struct rvt_output *o)
{
    return o->diag_suppressed;
}

int rvt_gap_is_damage(unsigned reason)
{
    return reason == RVT_GAP_LOST || reason == RVT_GAP_ERROR || reason == RVT_GAP_END || reason == RVT_GAP_LIMIT;
}

enum rvt_decode_status rvt_out_status(const struct rvt_out_stats *st)
{
    /* (a trace of data alone, E-Trace --data-trace only or dbg without
     * emitpc, has no instructions: its data is what it decodes to) */
    if (st->insns == 0 && st->data == 0)
        return RVT_DECODE_NOTHING;
    for (unsigned r = 0; r < 8; r++)
        if (st->by_reason[r] && rvt_gap_is_damage(r))
            return RVT_DECODE_DAMAGED;
    return RVT_DECODE_WHOLE;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void add_part(char *buf, size_t n, size_t *k, const char *fmt, ...)
{
    if (*k >= n)
        return;
    if (*k && *k + 2 < n) {
        memcpy(buf + *k, "; ", 3);
        *k += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *k, n - *k, fmt, ap);
    va_end(ap);
    if (w > 0)
        *k += (size_t)w < n - *k ? (size_t)w : n - *k - 1;
}

char *rvt_out_describe(const struct rvt_out_stats *st, char *buf, size_t n)
{
    size_t k = 0;
    if (!n)
        return buf;
    buf[0] = 0;
    const uint64_t *c = st->by_reason, *at = st->first_offset;
    if (c[RVT_GAP_ERROR])
        add_part(buf, n, &k, "%" PRIu64 " decode error%s (the first at trace offset 0x%" PRIx64 ")", c[RVT_GAP_ERROR],
                 c[RVT_GAP_ERROR] == 1 ? "" : "s", at[RVT_GAP_ERROR]);
    if (c[RVT_GAP_LOST])
        add_part(buf, n, &k,
                 "trace lost %" PRIu64 " time%s by the encoder (overflow; the first at trace offset 0x%" PRIx64 ")",
                 c[RVT_GAP_LOST], c[RVT_GAP_LOST] == 1 ? "" : "s", at[RVT_GAP_LOST]);
    if (c[RVT_GAP_END])
        add_part(buf, n, &k, "the trace ends unexpectedly (trace offset 0x%" PRIx64 ")", at[RVT_GAP_END]);
    if (c[RVT_GAP_LIMIT])
        add_part(buf, n, &k, "the decode stopped at the instruction limit (trace offset 0x%" PRIx64 ")",
                 at[RVT_GAP_LIMIT]);
    if (c[RVT_GAP_TRACE_OFF])
        add_part(buf, n, &k, "tracing was off %" PRIu64 " time%s (filters or trace control, not damage)",
                 c[RVT_GAP_TRACE_OFF], c[RVT_GAP_TRACE_OFF] == 1 ? "" : "s");
    if (c[RVT_GAP_WRAP])
        add_part(buf, n, &k, "older trace was overwritten in the wrapped buffer (not damage)");
    return buf;
}

/* The data notes of instruction `index` (and older ones), after its line. */
static void data_lines(struct rvt_out_fmt *o, uint64_t index)
{
    if (!o->data || (index != UINT64_MAX && !o->data_waiting))
        return;
    out_reserve(o, rvt_datalist_room(o->data)); /* (so no line is cut) */
    o->len += index == UINT64_MAX ? rvt_datalist_flush(o->data, o->buf + o->len, o->cap - o->len)
                                  : rvt_datalist_take(o->data, index, o->buf + o->len, o->cap - o->len);
    o->data_waiting = rvt_datalist_pending(o->data) != 0;
}

/* Two hex digits of each byte value, as they lie in memory. */
static const char g_hex2[512] =
    "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
    "202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
    "404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
    "606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
    "808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
    "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
    "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
    "E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";

/* Enter the 256-byte window of addr: the digits every PC line in it shares. */
static inline void pc_window(struct rvt_out_fmt *o, uint64_t addr, const bool rv32)
{
    o->win = addr;
    uint64_t lo = txt_hex8((uint32_t)addr);
    if (rv32) { /* "0x" + digits 0-5 */
        o->head = 0x7830 | lo << 16;
        return;
    }
    if (addr >> 32 != o->hi_pc) {
        o->hi_pc = addr >> 32;
        o->hi_text = txt_hex8((uint32_t)(addr >> 32));
    }
    o->head = 0x7830 | o->hi_text << 16;   /* "0x" + upper digits 0-5 */
    o->mid = o->hi_text >> 48 | lo << 16; /* upper digits 6-7 + lower digits 0-5 */
}

/* A PC list's line: "0x", the PC's digits (xlen / 4) and a newline. */
static inline size_t pc_line_bytes(bool rv32)
{
    return rv32 ? 11 : 19;
}

/* The PC list's lines of k instructions from addr up to end (rvc: bit i
 * set if instruction i is 16-bit): "0x%016" PRIX64 "\n" (RV64) or
 * "0x%08" PRIX64 "\n" (RV32).  A line is three stores: "0x" and the first
 * digits, which change rarely; the middle digits, made when the PC leaves
 * its 256-byte window; the last two digits and the newline from a table.
 * The last store writes one byte past the line (the next line overwrites
 * it; the caller reserves it).  Returns the address after the last
 * instruction. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* specialised for rv32 at each call */
#endif
static inline uint64_t pc_lines(struct rvt_out_fmt *o, uint64_t addr, uint32_t k, uint64_t rvc, uint64_t end,
                                const bool rv32)
{
    const uint64_t mask = rv32 ? 0xffffffffull : ~0ull;
    char *p = o->buf + o->len;
    /* Usually the whole run lies in one window: then only the last two
     * digits change from line to line, and no line needs a window check.
     * (Locals, not o's fields: the stores through p may alias o.) */
    const bool one_window = !((addr ^ (end - 1)) >> 8);
    uint32_t i = 0;
    while (i < k) {
        if ((addr ^ o->win) >> 8)
            pc_window(o, addr, rv32);
        const uint64_t head = o->head, mid = o->mid;
        uint32_t low = (uint32_t)addr & 0xff;
        const uint32_t n = one_window ? k : i + 1; /* the lines that share this window check */
        for (; i < n; i++, rvc >>= 1) {
            uint16_t last2;
            memcpy(&last2, g_hex2 + 2 * low, 2);
            const uint32_t tail = (uint32_t)last2 | (uint32_t)'\n' << 16; /* + 1 spare byte */
            memcpy(p, &head, 8);
            if (rv32) {
                memcpy(p + 8, &tail, 4);
                p += 11;
            } else {
                memcpy(p + 8, &mid, 8);
                memcpy(p + 16, &tail, 4);
                p += 19;
            }
            low += 4 - 2 * ((uint32_t)rvc & 1);
        }
        addr = ((addr & ~0xffull) + low) & mask;
    }
    o->len = (size_t)(p - o->buf);
    return addr;
}

/* The listing line of the instruction at pc (without a function header):
 * "%10" PRIx64 ":\t%08" PRIx32 "      \t%s\n" (a 16-bit one: "%04" PRIx32
 * and ten spaces), without printf — every distinct instruction a listing
 * meets is made once, and snprintf cost more than the line's disassembly
 * (bench/RESULTS.md, "What the lead's thirteenth round changed").  At most
 * 16 + 2 + 8 + 7 + 95 + 1 bytes and a NUL. */
static size_t insn_text(struct rvt_out_fmt *o, uint64_t pc, char buf[static 160])
{
    static const char hex[] = "0123456789abcdef";
    char digits[32];
    const size_t nd = (size_t)(txt_hex(digits, pc, 0) - digits);
    char *p = buf;
    for (size_t i = nd; i < 10; i++)
        *p++ = ' ';
    memcpy(p, digits, nd);
    p += nd;
    *p++ = ':';
    *p++ = '\t';
    struct rvt_insn in;
    if (rvt_img_insn(o->cfg.image, pc, &in) < 0) {
        p = txt_str(p, "(no code)\n");
    } else {
        const unsigned nhex = in.len == 2 ? 4 : 8;
        for (unsigned i = 0; i < nhex; i++)
            p[i] = hex[(in.bits >> (4 * (nhex - 1 - i))) & 15];
        p += nhex;
        p = txt_str(p, nhex == 4 ? "          \t" : "      \t");
        char text[96];
        const int n = rvt_isa_disasm(&in, o->cfg.xlen, text, sizeof text);
        const size_t keep = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
        memcpy(p, text, keep);
        p += keep;
        *p++ = '\n';
    }
    *p = '\0';
    return (size_t)(p - buf);
}

static bool is_unnamed(const struct rvt_out_fmt *o, const struct rvt_symbol *s)
{
    return o->unnamed && s >= o->unnamed->sym && s < o->unnamed->sym + o->unnamed->n;
}

/* The pseudo symbol of the file holding pc (struct out_unnamed), NULL if
 * none: asked once per instruction the listing's table makes. */
static const struct rvt_symbol *unnamed_at(const struct rvt_out_fmt *o, uint64_t pc)
{
    if (!o->unnamed || !o->unnamed->n)
        return NULL;
    const struct rvt_segment *seg = an_exec_segment_at(o->cfg.image, pc);
    for (size_t i = 0; seg && i < o->unnamed->n; i++)
        if (o->unnamed->seg[i] == seg)
            return &o->unnamed->sym[i];
    return NULL;
}

/* Execution enters function s at pc (s NULL or a file's pseudo symbol:
 * code no symbol holds, after code one does — without a header of its
 * own it would read as part of the function listed before it). */
static void sym_header(struct rvt_out_fmt *o, const struct rvt_symbol *s, uint64_t pc)
{
    if (!s || is_unnamed(o, s)) { /* "\n<no symbol>:\n", "\n<no symbol in FILE>:\n" */
        const char *name = s ? s->name : "no symbol";
        out_reserve(o, strlen(name) + 8);
        char *p = txt_str(o->buf + o->len, "\n<");
        p = txt_str(p, name);
        o->len = (size_t)(txt_str(p, ">:\n") - o->buf);
        return;
    }
    /* "\n<%s>:\n" or "\n<%s+0x%" PRIx64 ">:\n" (no printf: a header
     * comes with most calls and returns) */
    const size_t n = strlen(s->name);
    out_reserve(o, n + 48);
    char *p = o->buf + o->len;
    p = txt_str(p, "\n<");
    memcpy(p, s->name, n);
    p += n;
    if (s->addr != pc) {
        p = txt_str(p, "+0x");
        p = txt_hex(p, pc - s->addr, 0);
    }
    p = txt_str(p, ">:\n");
    o->len = (size_t)(p - o->buf);
}

/* Source line `line` of file (0: the instruction has none), printed when
 * it changes (DWARF line tables). */
static void source_line_is(struct rvt_out_fmt *o, const char *file, uint32_t line)
{
    if (!line)
        return;
    o->src_found++;
    if (file == o->cur_file && line == o->cur_line)
        return;
    /* "%s:%" PRIu32 "\n" */
    const size_t n = strlen(file);
    out_reserve(o, n + 32);
    char *p = o->buf + o->len;
    memcpy(p, file, n);
    p += n;
    *p++ = ':';
    p = txt_dec(p, line, 0);
    *p++ = '\n';
    o->len = (size_t)(p - o->buf);
    o->cur_file = file;
    o->cur_line = line;
}

/* The source line of pc: file and line (0 if none). */
static uint32_t source_of(const struct rvt_out_fmt *o, uint64_t pc, const char **file)
{
    struct rvt_srcline l;
    *file = NULL;
    if (!o->cfg.lines || !rvt_srclines_find(o->cfg.lines, pc, &l) || !l.line)
        return 0;
    *file = l.file;
    return l.line;
}

/* Page `page` of the line table is written before any of it is read.  A
 * page first read maps the kernel's shared zero page, and its first write
 * then replaces it — with the threaded decode's other threads running,
 * with a flush of their cores' TLBs (an interrupt on each), once a page:
 * 1,024 pages a formatter on a large program (bench/RESULTS.md, "What the
 * lead's eleventh round changed").  A page written first costs a plain
 * fault, and only when the program's code reaches it (before, every page
 * of each threaded formatter's table was written when its thread started,
 * 2-3 ms a formatter, one of them on the decoding thread's path; "What the
 * lead's thirteenth round changed"). */
static inline void line_page_write(struct rvt_out_fmt *o, size_t page)
{
    uint64_t *const w = &o->lines_written[page / 64];
    const uint64_t bit = (uint64_t)1 << (page % 64);
    if (*w & bit)
        return;
    *w |= bit;
    /* (what calloc left there: address 0 on a slot that is not slot 0) */
    *(volatile uint64_t *)&o->lines[page * LINE_SLOTS_PER_PAGE].pc = 0;
}

/* Where the line of the instruction at pc is kept (above).  Address 0
 * goes to slot 0 (stretch 0 hashes to page 0), which fmt_init marks
 * unused: a slot still zeroed never passes for address 0's line. */
_Static_assert(LINE_SLOTS_PER_PAGE == 64 / 2 && LINE_SLOTS_PER_PAGE << LINE_PAGES_LOG2 == 1 << LINE_SLOTS_LOG2,
               "a page of the table holds one 64-byte stretch's halfwords");
_Static_assert(sizeof(struct line_slot) == 4096 / LINE_SLOTS_PER_PAGE, "a line slot is 128 bytes");
static inline size_t line_slot_of(uint64_t pc)
{
    const uint64_t page = ((pc >> 6) * 0x9E3779B97F4A7C15ull) >> (64 - LINE_PAGES_LOG2);
    return (size_t)page * LINE_SLOTS_PER_PAGE + (size_t)((pc >> 1) & (LINE_SLOTS_PER_PAGE - 1));
}

/* The listing line of the instruction at pc, after the function header
 * and source line it needs.  Returns the line's length. */
static size_t insn_line(struct rvt_out_fmt *o, uint64_t pc)
{
    const size_t slot = line_slot_of(pc);
    line_page_write(o, slot / LINE_SLOTS_PER_PAGE);
    struct line_slot *l = &o->lines[slot];
    if (l->pc != pc) {
        char text[256];
        size_t n = insn_text(o, pc, text);
        const struct rvt_symbol *s = rvt_img_symbol_at(o->cfg.image, pc);
        if (!s)
            s = unnamed_at(o, pc);
        const char *file;
        const uint32_t line = source_of(o, pc, &file);
        if (n >= LINE_TEXT) { /* too long to keep: written as it is */
            if (s != o->cur_sym)
                sym_header(o, s, pc);
            o->cur_sym = s;
            source_line_is(o, file, line);
            out_reserve(o, n);
            memcpy(o->buf + o->len, text, n);
            o->len += n;
            data_lines(o, o->next_index++);
            return n;
        }
        l->pc = pc;
        l->sym = s;
        l->file = file;
        l->line = line;
        l->len = (uint16_t)n;
        memcpy(l->text, text, n);
    }
    if (l->sym != o->cur_sym)
        sym_header(o, l->sym, pc);
    o->cur_sym = l->sym;
    source_line_is(o, l->file, l->line);
    out_reserve(o, LINE_TEXT);
    /* Fixed sizes, whole moves: most lines fit the first 64 bytes. */
    if (l->len <= 64)
        memcpy(o->buf + o->len, l->text, 64);
    else
        memcpy(o->buf + o->len, l->text, LINE_TEXT);
    o->len += l->len;
    if (o->data_waiting)
        data_lines(o, o->next_index);
    o->next_index++;
    return l->len;
}

/* Keep text[0, len) as run (start, k)'s text in slot r (if memory allows:
 * else the slot is left empty, which only costs speed). */
static void run_keep(struct run_slot *r, uint64_t start, uint32_t k, const char *text, size_t len)
{
    r->start = UINT64_MAX;
    if (len > RUN_TEXT_MAX)
        return;
    if (len > r->cap) {
        char *t = realloc(r->text, len);
        if (!t)
            return;
        r->text = t;
        r->cap = (uint32_t)len;
    }
    memcpy(r->text, text, len);
    r->start = start;
    r->k = k;
    r->len = (uint32_t)len;
}

/* The listing of k instructions from addr (a run of one cache block). */
static void insn_run(struct rvt_out_fmt *o, uint64_t addr, uint32_t k, uint64_t rvc, const uint64_t mask)
{
    /* A run's text is the same each time once its first line's function
     * header and source line are decided (by the line before), unless data
     * notes wait for its instructions, or its first instruction has no
     * source line and a later one has (whether that one is printed depends
     * on the lines before the run). */
    struct run_slot *r = NULL;
    if (o->runs && !o->data_waiting) {
        r = &o->runs[(size_t)(((addr >> 1) * 0x9E3779B97F4A7C15ull) >> (64 - RUN_SLOTS_LOG2))];
        if (r->start == addr && r->k == k) {
            if (r->first_sym != o->cur_sym)
                sym_header(o, r->first_sym, addr);
            source_line_is(o, r->first_file, r->first_line);
            out_reserve(o, r->len);
            memcpy(o->buf + o->len, r->text, r->len);
            o->len += r->len;
            o->cur_sym = r->last_sym;
            if (r->src_any) {
                o->cur_file = r->last_file;
                o->cur_line = r->last_line;
            }
            o->next_index += k;
            return;
        }
    }
    const uint64_t start = addr, flushes = o->flushes, found = o->src_found;
    size_t from = 0;
    const struct rvt_symbol *first_sym = NULL;
    const char *first_file = NULL;
    uint32_t first_line = 0;
    for (uint32_t i = 0; i < k; i++, rvc >>= 1) {
        const size_t n = insn_line(o, addr);
        if (i == 0) {
            from = o->len - n; /* after the first line's header and source line */
            first_sym = o->cur_sym;
            if (o->src_found != found) {
                first_file = o->cur_file;
                first_line = o->cur_line;
            }
        }
        addr = (addr + 4 - 2 * (rvc & 1)) & mask;
    }
    const bool src_any = o->src_found != found;
    if (r && o->flushes == flushes && (first_line || !src_any)) {
        run_keep(r, start, k, o->buf + from, o->len - from);
        r->first_sym = first_sym;
        r->last_sym = o->cur_sym;
        r->first_file = first_file;
        r->first_line = first_line;
        r->src_any = src_any;
        r->last_file = o->cur_file;
        r->last_line = o->cur_line;
    }
}

/* Every instruction of the block of ninsns instructions at first in order,
 * through the output's block cache: its PC (pcs) or its listing line
 * (insn).  <0 if the block leaves the code.  Inlined at each call (the
 * serial listing's fmt_block, the threaded formatters): out of line, the
 * serial listing cost 45 M more host instructions (6 %, 16 M
 * instructions), measured when a fourth caller made gcc -O3 stop
 * inlining it. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int expand(struct rvt_out_fmt *o, uint64_t first, uint64_t ninsns, bool listing)
{
    const bool rv32 = o->cfg.xlen == 32;
    const uint64_t mask = rv32 ? 0xffffffffull : ~0ull;
    uint64_t addr = first, left = ninsns;
    while (left) {
        const struct rvt_block_info *bi = rvt_bcache_lookup(o->bc, addr);
        if (bi->ninsns == 0)
            return -RVT_ERR_NOCODE;
        uint32_t k = left < bi->ninsns ? (uint32_t)left : bi->ninsns;
        uint64_t rvc = bi->rvc_mask; /* bit i: instruction i is 16-bit */
        left -= k;
        if (listing) {
            insn_run(o, addr, k, rvc, mask);
            addr = (addr + 2 * (uint64_t)rvt_block_hw_offset(bi, k)) & mask;
        } else {
            const uint64_t end = k == bi->ninsns ? bi->next : addr + 2 * (uint64_t)rvt_block_hw_offset(bi, k);
            const size_t bytes = (size_t)k * pc_line_bytes(rv32);
            out_reserve(o, bytes + 1);
            struct run_slot *r = &o->runs[(size_t)(((addr >> 1) * 0x9E3779B97F4A7C15ull) >> (64 - RUN_SLOTS_LOG2))];
            if (r->start == addr && r->k == k) {
                memcpy(o->buf + o->len, r->text, bytes);
                o->len += bytes;
                addr = end & mask;
                continue;
            }
            const char *text = o->buf + o->len;
            const uint64_t start = addr;
            addr = rv32 ? pc_lines(o, addr, k, rvc, end, true) : pc_lines(o, addr, k, rvc, end, false);
            run_keep(r, start, k, text, bytes);
        }
    }
    return 0;
}

/* Per-instruction output needs the code to know where instructions are. */
static int no_listing(struct rvt_output *o, const struct rvt_block *b)
{
    if (o->cfg.diag)
        fprintf(o->cfg.diag,
                "rvtrace: the block at 0x%" PRIx64 " (%" PRIu64 " instructions) is not in the program's code, so its "
                "instructions cannot be listed; without the ELF use --output blocks or count\n",
                b->start, b->ninsns);
    o->err = -RVT_ERR_NOCODE;
    return o->err;
}

/* The statistics of a block (every kind; this runs once per decoded block). */
static void count_block(struct rvt_output *o, const struct rvt_block *b)
{
    o->st.insns += b->ninsns;
    o->st.blocks++;
    o->st.ends[b->end & 15]++;
    if (b->end == RVT_END_TRAP)
        o->st.traps++;
}

/* One line of the block list:
 * "0x%0*" PRIx64 " 0x%0*" PRIx64 " %6" PRIu64 " %-7s" [" -> 0x%0*" PRIx64]
 * [" cause=0x%" PRIx32 [" (interrupt)"] " tval=0x%" PRIx64] [" implicit"]
 * " priv=%u" [" ctx=0x%" PRIx64] "\n", with width xlen / 4. */
static void block_line(struct rvt_out_fmt *o, const struct rvt_block *b)
{
    const unsigned w = o->cfg.xlen == 32 ? 8 : 16;
    const char *end = rvt_block_end_name(b->end);
    out_reserve(o, 256 + strlen(end)); /* (put_hex stores 16 bytes whatever it keeps) */
    char *p = o->buf + o->len;
    p = txt_str(p, "0x");
    p = txt_hex(p, b->start, w);
    p = txt_str(p, " 0x");
    p = txt_hex(p, b->last, w);
    *p++ = ' ';
    p = txt_dec(p, b->ninsns, 6);
    *p++ = ' ';
    const char *q = p;
    p = txt_str(p, end);
    while (p - q < 7)
        *p++ = ' ';
    if (b->end != RVT_END_SEQ && b->end != RVT_END_GAP) {
        p = txt_str(p, " -> 0x");
        p = txt_hex(p, b->next, w);
    }
    if (b->end == RVT_END_TRAP) {
        p = txt_str(p, " cause=0x");
        p = txt_hex(p, b->cause, 0);
        if (b->flags & RVT_BLK_INTERRUPT)
            p = txt_str(p, " (interrupt)");
        p = txt_str(p, " tval=0x");
        p = txt_hex(p, b->tval, 0);
    }
    if (b->flags & RVT_BLK_IMPLICIT)
        p = txt_str(p, " implicit");
    p = txt_str(p, " priv=");
    p = txt_dec(p, b->priv, 0);
    if (b->context) {
        p = txt_str(p, " ctx=0x");
        p = txt_hex(p, b->context, 0);
    }
    *p++ = '\n';
    o->len = (size_t)(p - o->buf);
}

/* The listing lines of a block's ninsns instructions at start, the first
 * being instruction `index` of the decode: -RVT_ERR_NOCODE if they cannot
 * be listed (the lines of those before are written). */
static inline int list_insns(struct rvt_out_fmt *o, uint64_t start, uint64_t index, uint64_t ninsns)
{
    o->next_index = index;
    return !o->bc || expand(o, start, ninsns, true) < 0 ? -RVT_ERR_NOCODE : 0;
}

/* A listing's line after the lines of a block that ends in a trap or an
 * implicit return.  Without printf: a program's returns come every few
 * blocks, and printf's line was 9 % of a listing's host instructions
 * (bench/RESULTS.md, "What the lead's eleventh round changed"). */
static void end_line(struct rvt_out_fmt *o, const struct rvt_block *b)
{
    out_reserve(o, 128); /* (the longest line, and the 16 bytes txt_hex may write beyond it) */
    char *p = o->buf + o->len;
    if (b->end == RVT_END_TRAP) {
        p = txt_str(p, b->flags & RVT_BLK_INTERRUPT ? "\t\t\t# interrupt 0x" : "\t\t\t# exception 0x");
        p = txt_hex(p, b->cause, 0);
        p = txt_str(p, " tval 0x");
        p = txt_hex(p, b->tval, 0);
    } else {
        p = txt_str(p, "\t\t\t# return (implicit)");
    }
    p = txt_str(p, " -> 0x");
    p = txt_hex(p, b->next, 0);
    *p++ = '\n';
    o->len = (size_t)(p - o->buf);
}

/* The text of block b (pcs, insn, blocks): -RVT_ERR_NOCODE if its
 * instructions cannot be listed (the text of those before is written). */
static int fmt_block(struct rvt_out_fmt *o, const struct rvt_block *b)
{
    switch (o->cfg.kind) {
    case RVT_OUT_PCS:
        if (!o->bc || expand(o, b->start, b->ninsns, false) < 0)
            return -RVT_ERR_NOCODE;
        break;
    case RVT_OUT_INSN:
        if (list_insns(o, b->start, b->index, b->ninsns) < 0)
            return -RVT_ERR_NOCODE;
        if (b->end == RVT_END_TRAP || (b->flags & RVT_BLK_IMPLICIT))
            end_line(o, b);
        break;
    case RVT_OUT_BLOCKS:
        block_line(o, b);
        break;
    default:
        break;
    }
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_output *o = ctx;
    count_block(o, b);
    switch (o->cfg.kind) {
    case RVT_OUT_PCS:
    case RVT_OUT_INSN:
    case RVT_OUT_BLOCKS:
        if (fmt_block(&o->fmt, b) < 0)
            return no_listing(o, b);
        break;
    case RVT_OUT_COUNT:
        break;
    default:
        if (!o->err && (o->err = o->an_sink.block(o->an_sink.ctx, b)) != 0)
            an_out_report(o->an);
        break;
    }
    return o->err ? o->err : 0;
}

static const char *gap_name(unsigned r)
{
    switch (r) {
    case RVT_GAP_TRACE_OFF:
        return "trace off";
    case RVT_GAP_LOST:
        return "trace lost (overflow)";
    case RVT_GAP_ERROR:
        return "decode error";
    case RVT_GAP_WRAP:
        return "older trace overwritten";
    case RVT_GAP_END:
        return "unexpected end of the trace";
    case RVT_GAP_LIMIT:
        return "instruction limit reached";
    default:
        return "gap";
    }
}

/* Note texts come from decoders; whatever they hold, a terminal only sees
 * printable ASCII (other bytes as \xNN). */
static void print_clean(FILE *f, const char *t)
{
    for (; *t; t++) {
        unsigned char ch = (unsigned char)*t;
        if (ch >= 0x20 && ch < 0x7f)
            fputc(ch, f);
        else
            fprintf(f, "\\x%02x", ch);
    }
}

static void report_damage(struct rvt_output *o, const struct rvt_note *n)
{
    if (!o->first_damage[0])
        snprintf(o->first_damage, sizeof o->first_damage, "%s at trace offset 0x%" PRIx64 "%s%s", gap_name(n->reason),
                 n->offset, n->text ? ": " : "", n->text ? n->text : "");
    if (!o->cfg.diag)
        return;
    if (o->cfg.diag_max && o->diag_printed >= o->cfg.diag_max) {
        o->diag_suppressed++;
        return;
    }
    o->diag_printed++;
    fprintf(o->cfg.diag, "rvtrace: %s at trace offset 0x%" PRIx64 " after %" PRIu64 " instructions",
            gap_name(n->kind == RVT_NOTE_ERROR ? RVT_GAP_ERROR : n->reason), n->offset, n->index);
    if (n->text) {
        fputs(": ", o->cfg.diag);
        print_clean(o->cfg.diag, n->text);
    }
    fputc('\n', o->cfg.diag);
}

/* The text of note n (insn, blocks: listing lines and data notes). */
static void fmt_note(struct rvt_out_fmt *o, const struct rvt_note *n)
{
    bool listing = o->cfg.kind == RVT_OUT_INSN || o->cfg.kind == RVT_OUT_BLOCKS;
    if (n->kind == RVT_NOTE_SYNC || n->kind == RVT_NOTE_GAP || n->kind == RVT_NOTE_ERROR)
        data_lines(o, UINT64_MAX); /* (notes that waited for an instruction that did not come) */
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        if (listing)
            out_printf(o, "# sync at 0x%" PRIx64 " (trace offset 0x%" PRIx64 ", priv %u)\n", n->addr, n->offset,
                       n->priv);
        break;
    case RVT_NOTE_GAP:
    case RVT_NOTE_ERROR:
        if (listing)
            out_printf(o, "# %s at trace offset 0x%" PRIx64 " after %" PRIu64 " instructions%s%s\n",
                       gap_name(n->kind == RVT_NOTE_ERROR ? RVT_GAP_ERROR : n->reason & 7), n->offset, n->index,
                       n->text ? ": " : "", n->text ? n->text : "");
        break;
    case RVT_NOTE_TRAP:
        if (listing)
            out_printf(o, "# trap cause 0x%" PRIx64 " at 0x%" PRIx64 "\n", n->value, n->addr);
        break;
    case RVT_NOTE_CONTEXT:
        if (listing)
            out_printf(o, "# priv %u context 0x%" PRIx64 "\n", n->priv, n->value);
        break;
    case RVT_NOTE_TIME:
        if (listing) { /* "# time %" PRIu64 "\n": one per message with timestamps, no printf */
            out_reserve(o, 40);
            char *p = txt_str(o->buf + o->len, "# time ");
            p = txt_dec(p, n->value, 0);
            *p++ = '\n';
            o->len = (size_t)(p - o->buf);
        }
        break;
    case RVT_NOTE_DATA:
        if (o->data) {
            out_reserve(o, rvt_datalist_note_room(n));
            int w = rvt_datalist_add(o->data, n, o->cfg.kind == RVT_OUT_INSN ? o->next_index : UINT64_MAX,
                                     o->buf + o->len, o->cap - o->len);
            if (w < 0)
                *o->err = -RVT_ERR_NOMEM;
            else
                o->len += (size_t)w;
            o->data_waiting = rvt_datalist_pending(o->data) != 0;
        }
        break;
    default:
        break;
    }
}

/* The statistics and damage reports of note n (every kind). */
static void count_note(struct rvt_output *o, const struct rvt_note *n)
{
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        o->st.syncs++;
        break;
    case RVT_NOTE_GAP:
    case RVT_NOTE_ERROR: {
        unsigned r = n->kind == RVT_NOTE_ERROR ? RVT_GAP_ERROR : n->reason & 7;
        if (n->kind == RVT_NOTE_ERROR)
            o->st.errors++;
        else
            o->st.gaps++;
        if (!o->st.by_reason[r]++)
            o->st.first_offset[r] = n->offset;
        if (rvt_gap_is_damage(r))
            report_damage(o, n);
        break;
    }
    case RVT_NOTE_TRAP:
        o->st.traps++;
        break;
    case RVT_NOTE_DATA:
        o->st.data++;
        break;
    default:
        break;
    }
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_output *o = ctx;
    fmt_note(&o->fmt, n);
    count_note(o, n);
    if (o->an && !o->err)
        o->err = an_out_note(o->an, n);
    return o->err ? o->err : 0;
}

/* Counting only: the statistics on_block keeps, nothing else (this runs
 * once per decoded block). */
static int on_block_count(void *ctx, const struct rvt_block *b)
{
    count_block(ctx, b);
    return 0;
}

/* The count from the engine's own counts (rvt_flow_sink.counts): no block is built. */
static int on_counts(void *ctx, const struct rvt_block_counts *c)
{
    struct rvt_output *o = ctx;
    for (unsigned e = 0; e < 16; e++)
        o->st.ends[e] += c->ends[e];
    o->st.traps += c->ends[RVT_END_TRAP];
    o->st.insns += c->insns;
    o->st.blocks += c->blocks;
    return 0;
}

/* A PC list or listing: the n runs the engine wrote into o->lent (blocks
 * it retired from the code this output lists: each can be listed, so none
 * stops the decode), their statistics, and the room for more.  The text is
 * fmt_block's for the same blocks: a block ending in a trap or an implicit
 * return, whose line in a listing says more, comes whole (runs_plain). */
static int on_runs(void *ctx, size_t n, const struct rvt_block_counts *c, uint64_t index, struct rvt_block_run **room,
                   size_t *cap)
{
    struct rvt_output *o = ctx;
    on_counts(o, c);
    if (o->cfg.kind == RVT_OUT_PCS)
        rvt_outj_fmt_pcs(&o->fmt, o->lent, n);
    else
        rvt_outj_fmt_listing(&o->fmt, o->lent, n, NULL, &index);
    if (room) {
        *room = o->lent;
        *cap = sizeof o->lent / sizeof o->lent[0];
    }
    return o->err;
}

struct rvt_flow_sink rvt_out_sink(struct rvt_output *o)
{
    if (o->cfg.kind == RVT_OUT_COUNT)
        return (struct rvt_flow_sink){
            .block = on_block_count, .note = on_note, .ctx = o, .counts = on_counts};
    /* A PC list and a listing take the engine's blocks as runs (where each
     * starts, how many instructions: all their text needs) when the engine
     * walks this output's image: the walk then neither builds the blocks
     * nor calls the output for each (a PC list: 18 % fewer host
     * instructions in all, bench/RESULTS.md "What the lead's tenth round
     * changed"). */
    if ((o->cfg.kind == RVT_OUT_PCS || o->cfg.kind == RVT_OUT_INSN) && o->fmt.bc)
        return (struct rvt_flow_sink){.block = on_block,
                                      .note = on_note,
                                      .ctx = o,
                                      .runs = on_runs,
                                      .runs_image = o->cfg.image,
                                      .runs_plain = o->cfg.kind == RVT_OUT_INSN};
    return (struct rvt_flow_sink){.block = on_block, .note = on_note, .ctx = o};
}

int rvt_out_finish(struct rvt_output *o)
{
    if (o->cfg.kind == RVT_OUT_COUNT) {
        out_printf(&o->fmt, "instructions %" PRIu64 "\nblocks %" PRIu64 "\n", o->st.insns, o->st.blocks);
        for (unsigned e = RVT_END_BRANCH; e <= RVT_END_GAP; e++)
            if (o->st.ends[e])
                out_printf(&o->fmt, "  ending %-8s %" PRIu64 "\n", rvt_block_end_name(e), o->st.ends[e]);
        out_printf(&o->fmt, "syncs %" PRIu64 "\ntraps %" PRIu64 "\ngaps %" PRIu64 "\nerrors %" PRIu64 "\n", o->st.syncs,
                   o->st.traps, o->st.gaps, o->st.errors);
    }
    data_lines(&o->fmt, UINT64_MAX);
    out_flush(&o->fmt, true);
    if (o->an && !o->err)
        o->err = an_out_finish(o->an);
    if (an_outfile_finish(&o->file) < 0 && !o->err)
        o->err = -RVT_ERR_IO;
    /* (errno is per thread: a threaded decode's JSON Lines are written on
     * another one, rvt_out_jobs) */
    int write_errno = o->an ? an_out_write_errno(o->an) : 0;
    if (!write_errno)
        write_errno = atomic_load(&o->file.write_errno);
    if (o->err == -RVT_ERR_IO && write_errno)
        errno = write_errno;
    return o->err;
}

/* ---- for the threaded decode (src/parallel/pardecode.c, outjobs.h) ---------- */

enum rvt_outj_mode rvt_outj_mode(const struct rvt_output *o)
{
    switch (o->cfg.kind) {
    case RVT_OUT_PCS:
    case RVT_OUT_INSN:
    case RVT_OUT_BLOCKS:
        return RVT_OUTJ_FORMAT;
    default:
        return RVT_OUTJ_SERIAL;
    }
}

enum rvt_out_kind rvt_outj_kind(const struct rvt_output *o)
{
    return o->cfg.kind;
}

const struct rvt_image *rvt_outj_image(const struct rvt_output *o)
{
    return o->cfg.image;
}

/* Whether expand() lists every instruction of b: the cache blocks it
 * looks up, without the text. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool listable(struct rvt_bcache *bc, unsigned xlen, const struct rvt_block *b)
{
    const uint64_t mask = xlen == 32 ? 0xffffffffull : ~0ull;
    uint64_t addr = b->start, left = b->ninsns;
    while (left) {
        const struct rvt_block_info *bi = rvt_bcache_lookup(bc, addr);
        if (bi->ninsns == 0)
            return false;
        uint32_t k = left < bi->ninsns ? (uint32_t)left : bi->ninsns;
        addr = (addr + 2ull * rvt_block_hw_offset(bi, k)) & mask;
        left -= k;
    }
    return true;
}

int rvt_outj_check_init(struct rvt_output *o)
{
    if (o->listed || (o->cfg.kind != RVT_OUT_PCS && o->cfg.kind != RVT_OUT_INSN))
        return 0;
    /* (its own cache: the formatters' are on other threads) */
    if (!(o->listed = calloc((size_t)1 << RVT_OUTJ_LISTED_LOG2, sizeof *o->listed)) ||
        (o->cfg.image && !(o->check_bc = rvt_bcache_new(o->cfg.image, 0))))
        return -RVT_ERR_NOMEM;
    o->listed[0].start = 1; /* (odd: no block's) */
    return 0;
}

const struct rvt_outj_listed *rvt_outj_listed_table(const struct rvt_output *o)
{
    return o->listed;
}

int rvt_outj_check_block(struct rvt_output *o, const struct rvt_block *b)
{
    if (o->listed) {
        struct rvt_outj_listed *l = &o->listed[rvt_outj_listed_slot(b->start)];
        if (l->start != b->start || l->ninsns < b->ninsns) {
            if (!o->check_bc || !listable(o->check_bc, o->cfg.xlen, b))
                return no_listing(o, b);
            if (l->start != b->start)
                *l = (struct rvt_outj_listed){b->start, 0};
            l->ninsns = b->ninsns;
        }
    }
    return o->err ? o->err : 0;
}

void rvt_outj_account_counts(struct rvt_output *o, const struct rvt_block_counts *c)
{
    on_counts(o, c);
}

int rvt_outj_error(const struct rvt_output *o)
{
    return o->err;
}

int rvt_outj_account_note(struct rvt_output *o, const struct rvt_note *n)
{
    count_note(o, n);
    return o->err ? o->err : 0;
}

struct rvt_out_fmt *rvt_outj_fmt_new(struct rvt_output *o, bool share)
{
    struct rvt_out_fmt *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    struct rvt_out_config cfg = o->cfg;
    cfg.f = NULL; /* the text grows in memory */
    if (fmt_init(f, &cfg, NULL, share ? &o->fmt : NULL) < 0) {
        fmt_release(f);
        free(f);
        return NULL;
    }
    f->unnamed = &o->unnamed;
    return f;
}

void rvt_outj_fmt_free(struct rvt_out_fmt *f)
{
    if (!f)
        return;
    fmt_release(f);
    free(f);
}

struct rvt_out_fmt *rvt_outj_serial_fmt(struct rvt_output *o)
{
    return &o->fmt;
}

void rvt_outj_fmt_block(struct rvt_out_fmt *f, const struct rvt_block *b)
{
    fmt_block(f, b); /* (-RVT_ERR_NOCODE: rvt_outj_account_block reported it) */
}

void rvt_outj_fmt_blocks(struct rvt_out_fmt *f, const struct rvt_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fmt_block(f, &b[i]); /* (-RVT_ERR_NOCODE: rvt_outj_check_block reported it) */
}

void rvt_outj_fmt_pcs(struct rvt_out_fmt *f, const struct rvt_block_run *r, size_t n)
{
    if (!f->bc)
        return;
    for (size_t i = 0; i < n; i++)
        (void)expand(f, r[i].start, r[i].ninsns, false); /* (-RVT_ERR_NOCODE: rvt_outj_check_block reported it) */
}

void rvt_outj_fmt_listing(struct rvt_out_fmt *f, const struct rvt_block_run *e, size_t n, const struct rvt_block *whole,
                          uint64_t *index)
{
    uint64_t k = *index;
    for (size_t i = 0; i < n; i++) {
        if (e[i].ninsns == RVT_OUTJ_SET_INDEX) {
            k = e[i].start;
        } else if (e[i].ninsns == RVT_OUTJ_WHOLE) {
            const struct rvt_block *b = &whole[e[i].start];
            fmt_block(f, b);
            k = b->index + b->ninsns;
        } else {
            /* (-RVT_ERR_NOCODE was reported by rvt_outj_check_block) */
            (void)list_insns(f, e[i].start, k, e[i].ninsns);
            k += e[i].ninsns;
        }
    }
    *index = k;
}

void rvt_outj_fmt_note(struct rvt_out_fmt *f, const struct rvt_note *n)
{
    fmt_note(f, n);
}

void rvt_outj_fmt_restart(struct rvt_out_fmt *f)
{
    f->next_index = 0;
    f->cur_sym = NULL;
    f->cur_file = NULL;
    f->cur_line = 0;
    if (f->data) {
        f->len = 0;
        data_lines(f, UINT64_MAX); /* (drops them) */
    }
    f->data_waiting = false;
    f->len = 0;
    f->own_err = 0;
}

int rvt_outj_fmt_swap_text(struct rvt_out_fmt *f, char **buf, size_t *len, size_t *cap)
{
    char *nb = *buf;
    size_t nc = *cap;
    if (!nb) {
        nc = BATCH_TEXT_START;
        if (!(nb = malloc(nc)))
            return -RVT_ERR_NOMEM;
    }
    *buf = f->buf;
    *len = f->len;
    *cap = f->cap;
    f->buf = nb;
    f->cap = nc;
    f->len = 0;
    out_limit(f, 0);
    return 0;
}

void rvt_outj_fmt_spill(struct rvt_out_fmt *f, size_t step, int (*spill)(void *ctx, const char *text, size_t len),
                        void *ctx)
{
    f->spill = step ? spill : NULL;
    f->spill_step = step;
    f->spill_ctx = ctx;
    out_limit(f, 0);
}

void rvt_outj_fmt_clear_text(struct rvt_out_fmt *f)
{
    f->len = 0;
}

int rvt_outj_fmt_error(const struct rvt_out_fmt *f)
{
    return *f->err;
}

int rvt_outj_state_init(const struct rvt_output *o, struct rvt_outj_state *s)
{
    memset(s, 0, sizeof *s);
    if (o->fmt.data && !(s->data = rvt_datalist_new()))
        return -RVT_ERR_NOMEM;
    return 0;
}

void rvt_outj_state_free(struct rvt_outj_state *s)
{
    rvt_datalist_free(s->data);
    s->data = NULL;
}

void rvt_outj_fmt_swap_state(struct rvt_out_fmt *f, struct rvt_outj_state *s)
{
    struct rvt_outj_state t = {f->next_index, f->cur_sym, f->cur_file, f->cur_line, f->data};
    f->next_index = s->next_index;
    f->cur_sym = s->sym;
    f->cur_file = s->file;
    f->cur_line = s->line;
    f->data = s->data;
    f->data_waiting = f->data && rvt_datalist_pending(f->data) != 0;
    *s = t;
}

void rvt_outj_fmt_peek_state(const struct rvt_out_fmt *f, struct rvt_outj_state *s, size_t *waiting)
{
    *s = (struct rvt_outj_state){f->next_index, f->cur_sym, f->cur_file, f->cur_line, NULL};
    *waiting = f->data ? rvt_datalist_pending(f->data) : 0;
}

size_t rvt_outj_state_waiting(const struct rvt_outj_state *s)
{
    return s->data ? rvt_datalist_pending(s->data) : 0;
}

bool rvt_outj_state_equal(const struct rvt_outj_state *a, size_t a_waiting, const struct rvt_outj_state *b,
                          size_t b_waiting)
{
    /* Waiting data notes are text to come: only none equals none. */
    return a->next_index == b->next_index && a->sym == b->sym && a->file == b->file && a->line == b->line &&
           a_waiting == 0 && b_waiting == 0;
}

void rvt_outj_write(struct rvt_output *o, const char *text, size_t len)
{
    const int rc = rvt_outj_write_quiet(o, text, len);
    if (rc)
        o->err = rc;
}

int rvt_outj_write_quiet(struct rvt_output *o, const char *text, size_t len)
{
    int rc = 0;
    if (o->fmt.len && an_outfile_write(&o->file, o->fmt.buf, o->fmt.len) < 0)
        rc = -RVT_ERR_IO;
    if (o->fmt.len) {
        o->fmt.len = 0;
        o->fmt.flushes++;
    }
    if (an_outfile_write(&o->file, text, len) < 0)
        rc = -RVT_ERR_IO;
    return rc;
}

int rvt_outj_positional_begin(struct rvt_output *o, uint64_t *at, size_t *line_bytes, bool *regular)
{
    if (o->cfg.kind != RVT_OUT_PCS)
        return -1;
    rvt_outj_write(o, NULL, 0); /* (what the output's own formatter holds goes first) */
    if (o->err || an_outfile_positional_begin(&o->file, at, regular) < 0)
        return -1;
    *line_bytes = pc_line_bytes(o->cfg.xlen == 32);
    return 0;
}

int rvt_outj_pwrite(struct rvt_output *o, const char *text, size_t len, uint64_t at)
{
    return an_outfile_pwrite(&o->file, text, len, at) < 0 ? -RVT_ERR_IO : 0;
}

void rvt_outj_reserve(struct rvt_output *o, uint64_t end)
{
    an_outfile_reserve(&o->file, end);
}

void rvt_outj_positional_end(struct rvt_output *o, uint64_t end)
{
    if (an_outfile_positional_end(&o->file, end) < 0)
        rvt_outj_set_error(o, -RVT_ERR_IO);
}

const char *rvt_outj_fmt_text(const struct rvt_out_fmt *f, size_t *len)
{
    *len = f->len;
    return f->buf;
}

void rvt_outj_set_error(struct rvt_output *o, int err)
{
    if (err && !o->err)
        o->err = err;
}
