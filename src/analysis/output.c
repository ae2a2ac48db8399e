/* Text outputs of a decoded flow: PC list, instruction listing, block list,
 * counting.  The PC list is the hot one: blocks are expanded with the block
 * cache and formatted by hand into a large buffer. */
#include "rvtrace/analysis.h"
#include "datalist.h"
#include "an_output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct rvt_output {
    struct rvt_out_config cfg;
    struct rvt_bcache *bc;
    struct rvt_out_stats st;
    const struct rvt_symbol *cur_sym;
    struct rvt_datalist *data; /* listing: data notes waiting for their instruction */
    uint64_t next_index;       /* listing: stream index of the next instruction printed */
    struct an_out *an; /* analysis kinds and JSON Lines */
    struct rvt_flow_sink an_sink;
    const char *cur_file;
    uint32_t cur_line;
    uint64_t diag_printed, diag_suppressed;
    char first_damage[400];
    int err;
    size_t len;
    char buf[1 << 16];
};

static void out_flush(struct rvt_output *o)
{
    if (o->len && fwrite(o->buf, 1, o->len, o->cfg.f) != o->len)
        o->err = -RVT_ERR_IO;
    o->len = 0;
}

static void out_reserve(struct rvt_output *o, size_t n)
{
    if (sizeof o->buf - o->len < n)
        out_flush(o);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void out_printf(struct rvt_output *o, const char *fmt, ...)
{
    out_reserve(o, 512);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, sizeof o->buf - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n < sizeof o->buf - o->len ? (size_t)n : sizeof o->buf - o->len - 1;
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
    if (cfg->image && (cfg->kind == RVT_OUT_PCS || cfg->kind == RVT_OUT_INSN)) {
        o->bc = rvt_bcache_new(cfg->image, 0);
        if (!o->bc) {
            free(o);
            return NULL;
        }
    }
    if ((cfg->kind == RVT_OUT_INSN || cfg->kind == RVT_OUT_BLOCKS) && !(o->data = rvt_datalist_new())) {
        rvt_bcache_free(o->bc);
        free(o);
        return NULL;
    }
    if (cfg->kind >= RVT_OUT_CALLTREE) {
        if (!(o->an = an_out_new(&o->cfg))) {
            rvt_bcache_free(o->bc);
            rvt_datalist_free(o->data);
            free(o);
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
    rvt_bcache_free(o->bc);
    rvt_datalist_free(o->data);
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
    if (st->insns == 0)
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

static const char g_hex[] = "0123456789ABCDEF";

static int pc_line(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct rvt_output *o = ctx;
    out_reserve(o, 24);
    char *p = o->buf + o->len;
    unsigned digits = o->cfg.xlen == 32 ? 8 : 16;
    *p++ = '0';
    *p++ = 'x';
    for (int i = (int)digits - 1; i >= 0; i--)
        *p++ = g_hex[(pc >> (4 * i)) & 15];
    *p++ = '\n';
    o->len = (size_t)(p - o->buf);
    return 0;
}

/* The data notes of instruction `index` (and older ones), after its line. */
static void data_lines(struct rvt_output *o, uint64_t index)
{
    if (!o->data)
        return;
    out_reserve(o, 4096);
    if (index == UINT64_MAX)
        o->len += rvt_datalist_flush(o->data, o->buf + o->len, sizeof o->buf - o->len);
    else
        o->len += rvt_datalist_take(o->data, index, o->buf + o->len, sizeof o->buf - o->len);
}

static int insn_line(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct rvt_output *o = ctx;
    const struct rvt_image *img = o->cfg.image;
    const struct rvt_symbol *s = rvt_img_symbol_at(img, pc);
    if (s && s != o->cur_sym) {
        if (s->addr == pc)
            out_printf(o, "\n<%s>:\n", s->name);
        else
            out_printf(o, "\n<%s+0x%" PRIx64 ">:\n", s->name, pc - s->addr);
    }
    o->cur_sym = s;
    struct rvt_srcline l;
    if (o->cfg.lines && rvt_srclines_find(o->cfg.lines, pc, &l) && l.line &&
        (l.file != o->cur_file || l.line != o->cur_line)) {
        out_printf(o, "%s:%" PRIu32 "\n", l.file, l.line);
        o->cur_file = l.file;
        o->cur_line = l.line;
    }
    struct rvt_insn in;
    char text[96];
    if (rvt_img_insn(img, pc, &in) < 0) {
        out_printf(o, "%10" PRIx64 ":\t(no code)\n", pc);
        return 0;
    }
    rvt_isa_disasm(&in, o->cfg.xlen, text, sizeof text);
    if (in.len == 2)
        out_printf(o, "%10" PRIx64 ":\t%04" PRIx32 "          \t%s\n", pc, in.bits & 0xffff, text);
    else
        out_printf(o, "%10" PRIx64 ":\t%08" PRIx32 "      \t%s\n", pc, in.bits, text);
    data_lines(o, o->next_index++);
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

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_output *o = ctx;
    o->st.insns += b->ninsns;
    o->st.blocks++;
    o->st.ends[b->end & 15]++;
    if (b->end == RVT_END_TRAP)
        o->st.traps++;
    switch (o->cfg.kind) {
    case RVT_OUT_PCS:
        if (!o->bc || rvt_block_insns(o->bc, o->cfg.xlen, b, pc_line, o) < 0)
            return no_listing(o, b);
        break;
    case RVT_OUT_INSN:
        o->next_index = b->index;
        if (!o->bc || rvt_block_insns(o->bc, o->cfg.xlen, b, insn_line, o) < 0)
            return no_listing(o, b);
        if (b->end == RVT_END_TRAP)
            out_printf(o, "\t\t\t# %s 0x%" PRIx32 " tval 0x%" PRIx64 " -> 0x%" PRIx64 "\n",
                       b->flags & RVT_BLK_INTERRUPT ? "interrupt" : "exception", b->cause, b->tval, b->next);
        else if (b->flags & RVT_BLK_IMPLICIT)
            out_printf(o, "\t\t\t# return (implicit) -> 0x%" PRIx64 "\n", b->next);
        break;
    case RVT_OUT_BLOCKS: {
        out_printf(o, "0x%0*" PRIx64 " 0x%0*" PRIx64 " %6" PRIu64 " %-7s", o->cfg.xlen / 4, b->start,
                   o->cfg.xlen / 4, b->last, b->ninsns, rvt_block_end_name(b->end));
        if (b->end != RVT_END_SEQ && b->end != RVT_END_GAP)
            out_printf(o, " -> 0x%0*" PRIx64, o->cfg.xlen / 4, b->next);
        if (b->end == RVT_END_TRAP)
            out_printf(o, " cause=0x%" PRIx32 "%s tval=0x%" PRIx64, b->cause,
                       b->flags & RVT_BLK_INTERRUPT ? " (interrupt)" : "", b->tval);
        if (b->flags & RVT_BLK_IMPLICIT)
            out_printf(o, " implicit");
        out_printf(o, " priv=%u", b->priv);
        if (b->context)
            out_printf(o, " ctx=0x%" PRIx64, b->context);
        out_printf(o, "\n");
        break;
    }
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

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_output *o = ctx;
    bool listing = o->cfg.kind == RVT_OUT_INSN || o->cfg.kind == RVT_OUT_BLOCKS;
    if (n->kind == RVT_NOTE_SYNC || n->kind == RVT_NOTE_GAP || n->kind == RVT_NOTE_ERROR)
        data_lines(o, UINT64_MAX); /* (notes that waited for an instruction that did not come) */
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        o->st.syncs++;
        if (listing)
            out_printf(o, "# sync at 0x%" PRIx64 " (trace offset 0x%" PRIx64 ", priv %u)\n", n->addr, n->offset,
                       n->priv);
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
        if (listing)
            out_printf(o, "# %s at trace offset 0x%" PRIx64 " after %" PRIu64 " instructions%s%s\n",
                       gap_name(r), n->offset, n->index, n->text ? ": " : "", n->text ? n->text : "");
        if (rvt_gap_is_damage(r))
            report_damage(o, n);
        break;
    }
    case RVT_NOTE_TRAP:
        o->st.traps++;
        if (listing)
            out_printf(o, "# trap cause 0x%" PRIx64 " at 0x%" PRIx64 "\n", n->value, n->addr);
        break;
    case RVT_NOTE_CONTEXT:
        if (listing)
            out_printf(o, "# priv %u context 0x%" PRIx64 "\n", n->priv, n->value);
        break;
    case RVT_NOTE_TIME:
        if (listing)
            out_printf(o, "# time %" PRIu64 "\n", n->value);
        break;
    case RVT_NOTE_DATA:
        if (o->data) {
            out_reserve(o, 1024);
            int w = rvt_datalist_add(o->data, n, o->cfg.kind == RVT_OUT_INSN ? o->next_index : UINT64_MAX,
                                     o->buf + o->len, sizeof o->buf - o->len);
            if (w < 0)
                o->err = -RVT_ERR_NOMEM;
            else
                o->len += (size_t)w;
        }
        break;
    default:
        break;
    }
    if (o->an && !o->err)
        o->err = an_out_note(o->an, n);
    return o->err ? o->err : 0;
}

struct rvt_flow_sink rvt_out_sink(struct rvt_output *o)
{
    struct rvt_flow_sink s = {on_block, on_note, o};
    return s;
}

int rvt_out_finish(struct rvt_output *o)
{
    if (o->cfg.kind == RVT_OUT_COUNT) {
        out_printf(o, "instructions %" PRIu64 "\nblocks %" PRIu64 "\n", o->st.insns, o->st.blocks);
        for (unsigned e = RVT_END_BRANCH; e <= RVT_END_GAP; e++)
            if (o->st.ends[e])
                out_printf(o, "  ending %-8s %" PRIu64 "\n", rvt_block_end_name(e), o->st.ends[e]);
        out_printf(o, "syncs %" PRIu64 "\ntraps %" PRIu64 "\ngaps %" PRIu64 "\nerrors %" PRIu64 "\n", o->st.syncs,
                   o->st.traps, o->st.gaps, o->st.errors);
    }
    data_lines(o, UINT64_MAX);
    out_flush(o);
    if (o->an && !o->err)
        o->err = an_out_finish(o->an);
    if (!o->err && fflush(o->cfg.f) != 0)
        o->err = -RVT_ERR_IO;
    return o->err;
}
