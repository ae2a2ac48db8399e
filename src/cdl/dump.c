/* CDL compressed trace dump: one line per field with its byte offset
 * (".0" low nybble, ".1" high nybble of the byte), sync marks and skip
 * runs collapsed, errors shown where they occur, and optionally the PC
 * histogram (how many times each PC was set by a PC data field — the
 * seed's "count the number of times a particular program counter is set"). */
#include "cdl/cdl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct pc_count {
    uint64_t pc, count;
};

struct histo {
    struct pc_count *slot; /* open addressing, key pc+1 (0 = empty) */
    size_t cap, used;
};

static int histo_add(struct histo *h, uint64_t pc)
{
    if (2 * (h->used + 1) > h->cap) {
        size_t nc = h->cap ? 2 * h->cap : 1024;
        struct pc_count *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -RVT_ERR_NOMEM;
        for (size_t i = 0; i < h->cap; i++) {
            if (!h->slot[i].count)
                continue;
            size_t j = (size_t)((h->slot[i].pc * 0x9e3779b97f4a7c15ull) >> 20) & (nc - 1);
            while (ns[j].count)
                j = (j + 1) & (nc - 1);
            ns[j] = h->slot[i];
        }
        free(h->slot);
        h->slot = ns;
        h->cap = nc;
    }
    size_t j = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 20) & (h->cap - 1);
    while (h->slot[j].count && h->slot[j].pc != pc)
        j = (j + 1) & (h->cap - 1);
    if (!h->slot[j].count) {
        h->slot[j].pc = pc;
        h->used++;
    }
    h->slot[j].count++;
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const struct pc_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void print_off(FILE *out, uint64_t base, uint64_t total, size_t pos)
{
    uint64_t raw = total ? (base + pos) % total : pos;
    fprintf(out, "%08" PRIx64 ".%u  ", raw / 2, (unsigned)(raw & 1));
}

int cdl_dump(const struct cdl_cfg *c, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d)
{
    uint8_t *nyb;
    size_t n;
    uint64_t base;
    int rc = cdl_order_stream(c, buf, len, &nyb, &n, &base, d);
    if (rc < 0)
        return rc;
    uint64_t total = 2 * (uint64_t)len;
    struct histo h = {NULL, 0, 0};
    uint64_t fields = 0, errors = 0;
    char first[sizeof d->msg] = ""; /* the first damage, returned after the listing (the decoder contract) */
    enum rvt_err first_code = RVT_OK;
    fprintf(out, "# cdl: %zu bytes, xlen %u, sync mark = %u zero nybbles\n", len, c->xlen, c->sync_nybbles);

    bool boundary = !(c->buffer && c->overflow == CDL_OVF_WRAP && len >= c->buffer) &&
                    !(c->image_kind == CDL_IMAGE_RAW && (c->wrapped || c->state_path[0]));
    size_t pos;
    if (!cdl_next_sync(nyb, n, 0, c, boundary, &pos)) {
        fprintf(out, "# no sync point found\n");
        free(nyb);
        return rvt_fail(d, RVT_ERR_NOSYNC,
                        "cdl: no sync point in %zu bytes: expected a run of %u zero nybbles followed by PC data", len,
                        c->sync_nybbles);
    }
    /* Include the sync mark itself in the listing. */
    size_t from = pos;
    while (from > 0 && nyb[from - 1] == 0)
        from--;
    if (from) {
        print_off(out, base, total, 0);
        fprintf(out, "(%zu nybbles before the first sync point)\n", from);
    }
    pos = from;
    while (pos < n) {
        if (nyb[pos] == 0) {
            size_t s = pos;
            while (pos < n && nyb[pos] == 0)
                pos++;
            print_off(out, base, total, s);
            if (pos - s >= c->sync_nybbles)
                fprintf(out, "sync mark (%zu zero nybbles)\n", pos - s);
            else
                fprintf(out, "skip x%zu\n", pos - s);
            continue;
        }
        struct cdl_field f;
        int k = cdl_field_decode(nyb + pos, n - pos, cdl_cfg_fmt(c), &f, d);
        print_off(out, base, total, pos);
        if (k == 0) {
            fprintf(out, "truncated field (%zu nybbles left)\n", n - pos);
            if (!first[0]) {
                snprintf(first, sizeof first, "cdl: trace ends inside a field at offset 0x%" PRIx64,
                         (total ? (base + pos) % total : pos) / 2);
                first_code = RVT_ERR_TRUNCATED;
            }
            break;
        }
        if (k < 0) {
            errors++;
            fprintf(out, "error: %s\n", d->msg);
            if (!first[0]) {
                snprintf(first, sizeof first, "cdl: offset 0x%" PRIx64 ": %.400s",
                         (total ? (base + pos) % total : pos) / 2, d->msg);
                first_code = RVT_ERR_FORMAT;
            }
            size_t next;
            if (!cdl_next_sync(nyb, n, pos + 1, c, false, &next))
                break;
            size_t back = next;
            while (back > pos + 1 && nyb[back - 1] == 0)
                back--;
            print_off(out, base, total, pos + 1);
            fprintf(out, "(resync: %zu nybbles skipped)\n", back - pos - 1);
            pos = back;
            continue;
        }
        char text[160];
        cdl_field_format(&f, text, sizeof text);
        fprintf(out, "%s\n", text);
        fields++;
        if (c->histogram && f.kind == CDL_F_DATA && f.reason == CDL_DATA_PC && histo_add(&h, f.value) < 0) {
            free(h.slot);
            free(nyb);
            return rvt_fail(d, RVT_ERR_NOMEM, "cdl: out of memory for the PC histogram");
        }
        pos += (size_t)k;
    }
    fprintf(out, "# %" PRIu64 " fields, %" PRIu64 " errors\n", fields, errors);
    if (c->histogram) {
        struct pc_count *list = malloc((h.used ? h.used : 1) * sizeof *list);
        if (!list) {
            free(h.slot);
            free(nyb);
            return rvt_fail(d, RVT_ERR_NOMEM, "cdl: out of memory for the PC histogram");
        }
        size_t m = 0;
        for (size_t i = 0; i < h.cap; i++)
            if (h.slot[i].count)
                list[m++] = h.slot[i];
        qsort(list, m, sizeof *list, by_count);
        fprintf(out, "# PC histogram: %zu distinct PCs\n", m);
        for (size_t i = 0; i < m; i++)
            fprintf(out, "%10" PRIu64 "  0x%" PRIx64 "\n", list[i].count, list[i].pc);
        free(list);
    }
    free(h.slot);
    free(nyb);
    if (first[0])
        return rvt_fail(d, first_code, "%s (%" PRIu64 " damaged fields)", first, errors);
    return 0;
}
