/* JSON Lines of a decoded flow: one object per block and per note, in
 * decode order, for scripts (jq, pandas).  Addresses are hex strings:
 * JSON numbers do not hold 64-bit values in every reader. */
#include "an_internal.h"
#include "textfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

/* The function of a block start, remembered: blocks repeat (loops). */
#define FUNC_SLOTS_LOG2 10
struct func_slot {
    uint64_t start; /* UINT64_MAX (odd): unused */
    const char *name;
};

struct rvt_jsonl {
    FILE *f;
    const struct rvt_image *img;
    unsigned xlen;
    unsigned hart;
    int err;
    int write_errno; /* why the first write failed (errno where it failed) */
    struct func_slot funcs[1u << FUNC_SLOTS_LOG2];
    /* code no symbol holds: "[no symbol in FILE]", as the views call it,
     * one name per executable segment, made when first needed */
    struct {
        const struct rvt_segment *seg;
        char *name;
    } *unnamed;
    size_t nunnamed;
};

struct rvt_jsonl *rvt_jsonl_new(FILE *f, const struct rvt_image *image, unsigned xlen, unsigned hart)
{
    if (!f)
        return NULL;
    struct rvt_jsonl *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->f = f;
    j->img = image;
    j->xlen = xlen ? xlen : image ? rvt_img_xlen(image) : 64;
    j->hart = hart;
    for (size_t i = 0; i < sizeof j->funcs / sizeof j->funcs[0]; i++)
        j->funcs[i].start = UINT64_MAX;
    return j;
}

void rvt_jsonl_free(struct rvt_jsonl *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->nunnamed; i++)
        free(j->unnamed[i].name);
    free(j->unnamed);
    free(j);
}

/* The views' name of code at addr that no symbol holds, NULL outside
 * every file (or out of memory: the block is then written without it). */
static const char *unnamed_name(struct rvt_jsonl *j, uint64_t addr)
{
    const struct rvt_segment *seg = an_exec_segment_at(j->img, addr);
    if (!seg)
        return NULL;
    for (size_t i = 0; i < j->nunnamed; i++)
        if (j->unnamed[i].seg == seg)
            return j->unnamed[i].name;
    char *name = an_unnamed_name(seg, true);
    void *u = realloc(j->unnamed, (j->nunnamed + 1) * sizeof *j->unnamed);
    if (!name || !u) {
        free(name);
        if (u)
            j->unnamed = u;
        return NULL;
    }
    j->unnamed = u;
    j->unnamed[j->nunnamed].seg = seg;
    j->unnamed[j->nunnamed++].name = name;
    return name;
}

/* (called right after every write, on the thread that wrote: errno is
 * that write's) */
static int status(struct rvt_jsonl *j)
{
    if (ferror(j->f) && !j->err) {
        j->write_errno = errno;
        j->err = -RVT_ERR_IO;
    }
    return j->err;
}

/* The function a block starts in: its symbol's name, or the views' name
 * for code no symbol holds. */
static const char *func_at(struct rvt_jsonl *j, uint64_t start)
{
    if (!j->img)
        return NULL;
    struct func_slot *fs = &j->funcs[((start >> 1) * 0x9E3779B97F4A7C15ull) >> (64 - FUNC_SLOTS_LOG2)];
    if (fs->start != start) {
        const struct rvt_symbol *s = rvt_img_symbol_at(j->img, start);
        fs->start = start;
        fs->name = s ? s->name : unnamed_name(j, start);
    }
    return fs->name;
}

/* The end of a line: `key` and its string value str (unless NULL; in the
 * line if it has room, else written apart), "}\n", and the write.  Lines
 * are built without printf: this runs once per decoded block. */
static int put_line(struct rvt_jsonl *j, char *line, char *p, size_t size, const char *key, const char *str)
{
    if (str) {
        p = txt_str(p, key);
        char *q = txt_json(p, str, size - (size_t)(p - line) - 2);
        if (!q) {
            fwrite(line, 1, (size_t)(p - line), j->f);
            an_json_str(j->f, str);
            p = line;
        } else {
            p = q;
        }
    }
    p = txt_str(p, "}\n");
    fwrite(line, 1, (size_t)(p - line), j->f);
    return status(j);
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_jsonl *j = ctx;
    char line[1024]; /* the fixed fields take < 400 bytes, with txt_hex's spare 16 */
    char *p = txt_str(line, "{\"type\":\"block\",\"hart\":");
    p = txt_dec(p, j->hart, 0);
    p = txt_str(p, ",\"start\":\"0x");
    p = txt_hex(p, b->start, 0);
    p = txt_str(p, "\",\"last\":\"0x");
    p = txt_hex(p, b->last, 0);
    p = txt_str(p, "\",\"insns\":");
    p = txt_dec(p, b->ninsns, 0);
    p = txt_str(p, ",\"index\":");
    p = txt_dec(p, b->index, 0);
    p = txt_str(p, ",\"end\":\"");
    p = txt_str(p, rvt_block_end_name(b->end));
    *p++ = '"';
    if (b->end != RVT_END_GAP && b->next) {
        p = txt_str(p, ",\"next\":\"0x");
        p = txt_hex(p, b->next, 0);
        *p++ = '"';
    }
    if (b->end == RVT_END_TRAP) {
        p = txt_str(p, ",\"cause\":");
        p = txt_dec(p, b->cause, 0);
        p = txt_str(p, ",\"tval\":\"0x");
        p = txt_hex(p, b->tval, 0);
        p = txt_str(p, b->flags & RVT_BLK_INTERRUPT ? "\",\"interrupt\":true" : "\",\"interrupt\":false");
    }
    if (b->flags & RVT_BLK_IMPLICIT)
        p = txt_str(p, ",\"implicit\":true");
    if (b->flags & RVT_BLK_HAS_TIME) {
        p = txt_str(p, ",\"time\":");
        p = txt_dec(p, b->time, 0);
    }
    p = txt_str(p, ",\"priv\":");
    p = txt_dec(p, b->priv, 0);
    if (b->context) {
        p = txt_str(p, ",\"context\":\"0x");
        p = txt_hex(p, b->context, 0);
        *p++ = '"';
    }
    p = txt_str(p, ",\"offset\":");
    p = txt_dec(p, b->trace_offset, 0);
    return put_line(j, line, p, sizeof line, ",\"func\":", func_at(j, b->start));
}

static const char *note_name(unsigned k)
{
    static const char *const names[] = {"?", "sync", "gap", "error", "context", "time", "trap", "data"};
    return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static const char *gap_reason(unsigned r)
{
    static const char *const names[] = {"?", "trace off", "lost", "error", "wrap", "end", "limit"};
    return r < sizeof names / sizeof names[0] ? names[r] : "?";
}

static const char *data_kind(unsigned k)
{
    static const char *const names[] = {"?",          "reg write",   "load addr",  "store addr", "load value",
                                        "store value", "tracepoint", "hart",      "csr addr",   "csr value",
                                        "operand",    "sc fail",     "lost"};
    return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_jsonl *j = ctx;
    char line[1024];
    char *p = txt_str(line, "{\"type\":\"");
    p = txt_str(p, note_name(n->kind));
    p = txt_str(p, "\",\"hart\":");
    p = txt_dec(p, j->hart, 0);
    if (n->index == UINT64_MAX) { /* (a data access tied to no known instruction) */
        p = txt_str(p, ",\"index\":null");
    } else {
        p = txt_str(p, ",\"index\":");
        p = txt_dec(p, n->index, 0);
    }
    p = txt_str(p, ",\"offset\":");
    p = txt_dec(p, n->offset, 0);
    const char *text = NULL;
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        p = txt_str(p, ",\"addr\":\"0x");
        p = txt_hex(p, n->addr, 0);
        p = txt_str(p, "\",\"priv\":");
        p = txt_dec(p, n->priv, 0);
        break;
    case RVT_NOTE_GAP:
    case RVT_NOTE_ERROR:
        p = txt_str(p, ",\"reason\":\"");
        p = txt_str(p, gap_reason(n->reason));
        *p++ = '"';
        text = n->text;
        break;
    case RVT_NOTE_CONTEXT:
        p = txt_str(p, ",\"priv\":");
        p = txt_dec(p, n->priv, 0);
        p = txt_str(p, ",\"context\":\"0x");
        p = txt_hex(p, n->value, 0);
        *p++ = '"';
        break;
    case RVT_NOTE_TIME:
        p = txt_str(p, ",\"time\":");
        p = txt_dec(p, n->value, 0);
        break;
    case RVT_NOTE_TRAP:
        p = txt_str(p, ",\"cause\":");
        p = txt_dec(p, n->value, 0);
        p = txt_str(p, ",\"epc\":\"0x");
        p = txt_hex(p, n->addr, 0);
        *p++ = '"';
        break;
    case RVT_NOTE_DATA:
        p = txt_str(p, ",\"data\":\"");
        p = txt_str(p, data_kind(n->reason));
        p = txt_str(p, "\",\"addr\":\"0x");
        p = txt_hex(p, n->addr, 0);
        p = txt_str(p, "\",\"value\":\"0x");
        p = txt_hex(p, n->value, 0);
        *p++ = '"';
        text = n->text; /* RVT_DATA_LOST: why */
        break;
    default:
        break;
    }
    return put_line(j, line, p, sizeof line, ",\"text\":", text);
}

struct rvt_flow_sink rvt_jsonl_sink(struct rvt_jsonl *j)
{
    struct rvt_flow_sink s = {.block = on_block, .note = on_note, .ctx = j};
    return s;
}

int rvt_jsonl_write_errno(const struct rvt_jsonl *j)
{
    return j->write_errno;
}

int rvt_jsonl_finish(struct rvt_jsonl *j)
{
    if (fflush(j->f) != 0 && !j->err) {
        j->write_errno = errno;
        j->err = -RVT_ERR_IO;
    }
    int rc = status(j);
    /* errno is per thread, and a threaded decode writes on another one
     * (decode --jobs): the caller learns why from errno all the same. */
    if (rc == -RVT_ERR_IO && j->write_errno)
        errno = j->write_errno;
    return rc;
}
