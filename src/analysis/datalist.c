/* Data notes in text listings: "load [0x80001000] = 0x2a; ..." after the
 * instruction they belong to.  A decoder sends an instruction's data notes
 * before the block that holds it (the E-Trace data trace, the debug trace)
 * or right after (CDL): notes for an instruction already printed, or for
 * no known instruction, get a line of their own at once. */
#include "datalist.h"
#include "textfmt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
    uint64_t index, addr, value;
    uint8_t kind;
    char *text;
};

/* A queue: the waiting notes are v[head, head + n). */
struct rvt_datalist {
    struct item *v;
    size_t head, n, cap;
    size_t bytes; /* at most this much text for the waiting notes */
};

/* The most text one item takes in a line. */
static size_t item_bytes(const struct item *it)
{
    return 96 + (it->text ? strlen(it->text) : 0); /* (a fragment is at most 47 bytes, a line adds 29) */
}

struct rvt_datalist *rvt_datalist_new(void)
{
    return calloc(1, sizeof(struct rvt_datalist));
}

static void drop(struct rvt_datalist *l, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        l->bytes -= item_bytes(&l->v[l->head + i]);
        free(l->v[l->head + i].text);
    }
    l->head += k;
    l->n -= k;
    if (!l->n)
        l->head = 0;
}

void rvt_datalist_free(struct rvt_datalist *l)
{
    if (!l)
        return;
    drop(l, l->n);
    free(l->v);
    free(l);
}

/* A line being written into out[0, size): what does not fit is cut (a
 * line is at most a few hundred bytes; the callers give it 256 and more). */
struct writer {
    char *p, *end; /* end: the last byte, kept for the NUL */
};

static void put(struct writer *w, const char *s, size_t n)
{
    if (n > (size_t)(w->end - w->p))
        n = (size_t)(w->end - w->p);
    memcpy(w->p, s, n);
    w->p += n;
}

static void put_s(struct writer *w, const char *s)
{
    put(w, s, strlen(s));
}

/* "0x%0*" PRIx64, at least `digits` digits */
static void put_hex(struct writer *w, uint64_t v, unsigned digits)
{
    char t[40];
    char *e = txt_str(t, "0x");
    unsigned n = 1;
    for (uint64_t x = v >> 4; x; x >>= 4)
        n++;
    e = txt_hex(e, v, n > digits ? n : digits);
    put(w, t, (size_t)(e - t));
}

static void put_dec(struct writer *w, uint64_t v)
{
    char t[24];
    put(w, t, (size_t)(txt_dec(t, v, 0) - t));
}

/* One line for items [0, k): "\t\t\t# <fragments>\n" (no printf: a data
 * listing has one every few instructions). */
static size_t line(const struct item *v, size_t k, char *out, size_t size)
{
    if (!size)
        return 0;
    struct writer w = {out, out + size - 1};
    put_s(&w, "\t\t\t#");
    if (v[0].index == UINT64_MAX)
        put_s(&w, " (instruction not known)");
    unsigned prev = 0;
    for (size_t i = 0; i < k; i++) {
        const struct item *t = &v[i];
        bool cont = (t->kind == RVT_DATA_LOAD_VALUE && prev == RVT_DATA_LOAD_ADDR) ||
                    (t->kind == RVT_DATA_STORE_VALUE && prev == RVT_DATA_STORE_ADDR) ||
                    (t->kind == RVT_DATA_CSR_VALUE && prev == RVT_DATA_CSR_ADDR) || t->kind == RVT_DATA_OPERAND;
        if (i && !cont)
            put_s(&w, ";");
        switch (t->kind) {
        case RVT_DATA_REG_WRITE: /* " %s%u = 0x%" PRIx64 */
            put_s(&w, t->addr >= 32 ? " f" : " x");
            put_dec(&w, t->addr & 31);
            put_s(&w, " = ");
            put_hex(&w, t->value, 1);
            break;
        case RVT_DATA_LOAD_ADDR: /* " load [0x%" PRIx64 "]" */
            put_s(&w, " load [");
            put_hex(&w, t->value, 1);
            put_s(&w, "]");
            break;
        case RVT_DATA_STORE_ADDR:
            put_s(&w, " store [");
            put_hex(&w, t->value, 1);
            put_s(&w, "]");
            break;
        case RVT_DATA_LOAD_VALUE:
        case RVT_DATA_STORE_VALUE:
        case RVT_DATA_CSR_VALUE: /* [" %s"] " = 0x%" PRIx64 */
            if (!cont)
                put_s(&w, t->kind == RVT_DATA_LOAD_VALUE ? " load" : t->kind == RVT_DATA_STORE_VALUE ? " store" : " csr");
            put_s(&w, " = ");
            put_hex(&w, t->value, 1);
            break;
        case RVT_DATA_CSR_ADDR: /* " csr 0x%03" PRIx64 */
            put_s(&w, " csr ");
            put_hex(&w, t->value, 3);
            break;
        case RVT_DATA_OPERAND:
            put_s(&w, " operand ");
            put_hex(&w, t->value, 1);
            break;
        case RVT_DATA_SC_FAIL:
            put_s(&w, " store-conditional failed [");
            put_hex(&w, t->value, 1);
            put_s(&w, "]");
            break;
        case RVT_DATA_TRACEPOINT:
            put_s(&w, " tracepoint ");
            put_dec(&w, t->value);
            break;
        case RVT_DATA_HART:
            put_s(&w, " hart ");
            put_dec(&w, t->value);
            break;
        case RVT_DATA_LOST:
            put_s(&w, " data lost: ");
            put_s(&w, t->text ? t->text : "");
            break;
        default: /* " data %u = 0x%" PRIx64 */
            put_s(&w, " data ");
            put_dec(&w, t->kind);
            put_s(&w, " = ");
            put_hex(&w, t->value, 1);
            break;
        }
        prev = t->kind;
    }
    put_s(&w, "\n");
    *w.p = 0;
    return (size_t)(w.p - out);
}

static size_t emit_front(struct rvt_datalist *l, char *out, size_t size)
{
    if (!l->n)
        return 0;
    const struct item *v = l->v + l->head;
    size_t k = 1;
    while (k < l->n && v[k].index == v[0].index)
        k++;
    size_t n = line(v, k, out, size);
    drop(l, k);
    return n;
}

int rvt_datalist_add(struct rvt_datalist *l, const struct rvt_note *n, uint64_t next_index, char *out, size_t size)
{
    if (size)
        out[0] = 0;
    struct item it = {.index = n->index, .addr = n->addr, .value = n->value, .kind = n->reason};
    if (n->text && !(it.text = strdup(n->text)))
        return -1;
    bool later = next_index != UINT64_MAX && n->index != UINT64_MAX && n->index >= next_index;
    if (!later) {
        size_t w = line(&it, 1, out, size);
        free(it.text);
        return (int)w;
    }
    if (l->cap && l->head + l->n == l->cap && l->head >= l->cap / 2) { /* (amortised: half the queue is free) */
        memmove(l->v, l->v + l->head, l->n * sizeof *l->v);
        l->head = 0;
    }
    if (l->head + l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        struct item *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(it.text);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->head + l->n++] = it;
    l->bytes += item_bytes(&it);
    return 0;
}

size_t rvt_datalist_pending(const struct rvt_datalist *l)
{
    return l->n;
}

size_t rvt_datalist_room(const struct rvt_datalist *l)
{
    return 256 + l->bytes;
}

size_t rvt_datalist_note_room(const struct rvt_note *n)
{
    return 256 + (n->text ? strlen(n->text) : 0);
}

size_t rvt_datalist_take(struct rvt_datalist *l, uint64_t index, char *out, size_t size)
{
    size_t n = 0;
    while (l->n && l->v[l->head].index <= index && n + 256 < size)
        n += emit_front(l, out + n, size - n);
    return n;
}

size_t rvt_datalist_flush(struct rvt_datalist *l, char *out, size_t size)
{
    size_t n = 0;
    while (l->n && n + 256 < size)
        n += emit_front(l, out + n, size - n);
    return n;
}
