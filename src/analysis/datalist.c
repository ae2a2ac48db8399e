/* Data notes in text listings: "load [0x80001000] = 0x2a; ..." after the
 * instruction they belong to.  A decoder sends an instruction's data notes
 * before the block that holds it (the E-Trace data trace, the debug trace)
 * or right after (CDL): notes for an instruction already printed, or for
 * no known instruction, get a line of their own at once. */
#include "datalist.h"

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

struct rvt_datalist {
    struct item *v;
    size_t n, cap;
};

struct rvt_datalist *rvt_datalist_new(void)
{
    return calloc(1, sizeof(struct rvt_datalist));
}

static void drop(struct rvt_datalist *l, size_t k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k; i++)
        free(l->v[i].text);
    memmove(l->v, l->v + k, (l->n - k) * sizeof *l->v);
    l->n -= k;
}

void rvt_datalist_free(struct rvt_datalist *l)
{
    if (!l)
        return;
    drop(l, l->n);
    free(l->v);
    free(l);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void addf(char *out, size_t size, size_t *n, const char *fmt, ...)
{
    if (*n + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(out + *n, size - *n, fmt, ap);
    va_end(ap);
    if (r > 0)
        *n = *n + (size_t)r < size ? *n + (size_t)r : size - 1;
}

/* One line for items [0, k): "\t\t\t# <fragments>\n". */
static size_t line(const struct item *v, size_t k, char *out, size_t size)
{
    size_t n = 0;
    if (size)
        out[0] = 0;
#define ADD(...) addf(out, size, &n, __VA_ARGS__)
    ADD("\t\t\t#");
    if (v[0].index == UINT64_MAX)
        ADD(" (instruction not known)");
    unsigned prev = 0;
    for (size_t i = 0; i < k; i++) {
        const struct item *t = &v[i];
        bool cont = (t->kind == RVT_DATA_LOAD_VALUE && prev == RVT_DATA_LOAD_ADDR) ||
                    (t->kind == RVT_DATA_STORE_VALUE && prev == RVT_DATA_STORE_ADDR) ||
                    (t->kind == RVT_DATA_CSR_VALUE && prev == RVT_DATA_CSR_ADDR) || t->kind == RVT_DATA_OPERAND;
        if (i && !cont)
            ADD(";");
        switch (t->kind) {
        case RVT_DATA_REG_WRITE:
            ADD(" %s%u = 0x%" PRIx64, t->addr >= 32 ? "f" : "x", (unsigned)(t->addr & 31), t->value);
            break;
        case RVT_DATA_LOAD_ADDR:
            ADD(" load [0x%" PRIx64 "]", t->value);
            break;
        case RVT_DATA_STORE_ADDR:
            ADD(" store [0x%" PRIx64 "]", t->value);
            break;
        case RVT_DATA_LOAD_VALUE:
        case RVT_DATA_STORE_VALUE:
        case RVT_DATA_CSR_VALUE:
            if (cont)
                ADD(" = 0x%" PRIx64, t->value);
            else
                ADD(" %s = 0x%" PRIx64,
                    t->kind == RVT_DATA_LOAD_VALUE ? "load" : t->kind == RVT_DATA_STORE_VALUE ? "store" : "csr",
                    t->value);
            break;
        case RVT_DATA_CSR_ADDR:
            ADD(" csr 0x%03" PRIx64, t->value);
            break;
        case RVT_DATA_OPERAND:
            ADD(" operand 0x%" PRIx64, t->value);
            break;
        case RVT_DATA_SC_FAIL:
            ADD(" store-conditional failed [0x%" PRIx64 "]", t->value);
            break;
        case RVT_DATA_TRACEPOINT:
            ADD(" tracepoint %" PRIu64, t->value);
            break;
        case RVT_DATA_HART:
            ADD(" hart %" PRIu64, t->value);
            break;
        case RVT_DATA_LOST:
            ADD(" data lost: %s", t->text ? t->text : "");
            break;
        default:
            ADD(" data %u = 0x%" PRIx64, t->kind, t->value);
            break;
        }
        prev = t->kind;
    }
    ADD("\n");
#undef ADD
    return n;
}

static size_t emit_front(struct rvt_datalist *l, char *out, size_t size)
{
    if (!l->n)
        return 0;
    size_t k = 1;
    while (k < l->n && l->v[k].index == l->v[0].index)
        k++;
    size_t n = line(l->v, k, out, size);
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
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        struct item *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(it.text);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = it;
    return 0;
}

size_t rvt_datalist_take(struct rvt_datalist *l, uint64_t index, char *out, size_t size)
{
    size_t n = 0;
    while (l->n && l->v[0].index <= index && n + 256 < size)
        n += emit_front(l, out + n, size - n);
    return n;
}

size_t rvt_datalist_flush(struct rvt_datalist *l, char *out, size_t size)
{
    size_t n = 0;
    while (l->n && n + 256 < size)
        n += emit_front(l, out + n, size - n);
    if (l->n)
        drop(l, l->n); /* (beyond what one call can print: a pathological burst) */
    return n;
}
