/* JSON Lines of a decoded flow: one object per block and per note, in
 * decode order, for scripts (jq, pandas).  Addresses are hex strings:
 * JSON numbers do not hold 64-bit values in every reader. */
#include "an_internal.h"

#include <inttypes.h>
#include <stdlib.h>

struct rvt_jsonl {
    FILE *f;
    const struct rvt_image *img;
    unsigned xlen;
    unsigned hart;
    int err;
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
    return j;
}

void rvt_jsonl_free(struct rvt_jsonl *j)
{
    free(j);
}

static int status(struct rvt_jsonl *j)
{
    if (ferror(j->f))
        j->err = -RVT_ERR_IO;
    return j->err;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_jsonl *j = ctx;
    FILE *f = j->f;
    fprintf(f,
            "{\"type\":\"block\",\"hart\":%u,\"start\":\"0x%" PRIx64 "\",\"last\":\"0x%" PRIx64 "\",\"insns\":%" PRIu64
            ",\"index\":%" PRIu64 ",\"end\":\"%s\"",
            j->hart, b->start, b->last, b->ninsns, b->index, rvt_block_end_name(b->end));
    if (b->end != RVT_END_GAP && b->next)
        fprintf(f, ",\"next\":\"0x%" PRIx64 "\"", b->next);
    if (b->end == RVT_END_TRAP)
        fprintf(f, ",\"cause\":%" PRIu32 ",\"tval\":\"0x%" PRIx64 "\",\"interrupt\":%s", b->cause, b->tval,
                b->flags & RVT_BLK_INTERRUPT ? "true" : "false");
    if (b->flags & RVT_BLK_IMPLICIT)
        fprintf(f, ",\"implicit\":true");
    if (b->flags & RVT_BLK_HAS_TIME)
        fprintf(f, ",\"time\":%" PRIu64, b->time);
    fprintf(f, ",\"priv\":%u", b->priv);
    if (b->context)
        fprintf(f, ",\"context\":\"0x%" PRIx64 "\"", b->context);
    fprintf(f, ",\"offset\":%" PRIu64, b->trace_offset);
    const struct rvt_symbol *s = j->img ? rvt_img_symbol_at(j->img, b->start) : NULL;
    if (s) {
        fprintf(f, ",\"func\":");
        an_json_str(f, s->name);
    }
    fprintf(f, "}\n");
    return status(j);
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
    FILE *f = j->f;
    fprintf(f, "{\"type\":\"%s\",\"hart\":%u", note_name(n->kind), j->hart);
    if (n->index == UINT64_MAX) /* (a data access tied to no known instruction) */
        fprintf(f, ",\"index\":null");
    else
        fprintf(f, ",\"index\":%" PRIu64, n->index);
    fprintf(f, ",\"offset\":%" PRIu64, n->offset);
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"priv\":%u", n->addr, n->priv);
        break;
    case RVT_NOTE_GAP:
    case RVT_NOTE_ERROR:
        fprintf(f, ",\"reason\":\"%s\"", gap_reason(n->reason));
        if (n->text) {
            fprintf(f, ",\"text\":");
            an_json_str(f, n->text);
        }
        break;
    case RVT_NOTE_CONTEXT:
        fprintf(f, ",\"priv\":%u,\"context\":\"0x%" PRIx64 "\"", n->priv, n->value);
        break;
    case RVT_NOTE_TIME:
        fprintf(f, ",\"time\":%" PRIu64, n->value);
        break;
    case RVT_NOTE_TRAP:
        fprintf(f, ",\"cause\":%" PRIu64 ",\"epc\":\"0x%" PRIx64 "\"", n->value, n->addr);
        break;
    case RVT_NOTE_DATA:
        fprintf(f, ",\"data\":\"%s\",\"addr\":\"0x%" PRIx64 "\",\"value\":\"0x%" PRIx64 "\"", data_kind(n->reason),
                n->addr, n->value);
        if (n->text) { /* RVT_DATA_LOST: why */
            fprintf(f, ",\"text\":");
            an_json_str(f, n->text);
        }
        break;
    default:
        break;
    }
    fprintf(f, "}\n");
    return status(j);
}

struct rvt_flow_sink rvt_jsonl_sink(struct rvt_jsonl *j)
{
    struct rvt_flow_sink s = {.block = on_block, .note = on_note, .ctx = j};
    return s;
}

int rvt_jsonl_finish(struct rvt_jsonl *j)
{
    if (fflush(j->f) != 0)
        j->err = -RVT_ERR_IO;
    return status(j);
}
