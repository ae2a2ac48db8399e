/* The analysis layer: consumes the flow's blocks and notes (one stream per
 * hart) and builds the call tree, the flat profile, per-instruction and
 * per-line counts, branch coverage, the timeline and the list of traps and
 * gaps.
 *
 * The hot path does per block only what needs the order of execution: one
 * lookup in a table of distinct blocks (start, length, outcome of a final
 * branch), the call-stack update and the time share.  Everything per
 * instruction is expanded once per distinct block at rvt_an_finish, with the
 * block cache (rvt_block_insns), so the cost does not grow with the number
 * of instructions executed. */
#include "an_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small tables ------------------------------------------------------------ */

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Grow a dynamic array to hold n+1 elements. */
static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -RVT_ERR_NOMEM;
    *p = q;
    *cap = nc;
    return 0;
}
#define GROW(arr, cap, n) grow((void **)&(arr), &(cap), (n), sizeof *(arr))

static void map_free(struct an_map *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = 0;
}

/* Rebuild the map for `n` entries whose hashes hash(ctx, i) gives. */
static int map_rehash(struct an_map *m, size_t n, uint64_t (*hash)(const void *ctx, size_t i), const void *ctx)
{
    size_t cap = m->cap ? m->cap : 64;
    while (cap < 2 * (n + 1))
        cap *= 2;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s)
        return -RVT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t k = hash(ctx, i) & (cap - 1);
        while (s[k])
            k = (k + 1) & (cap - 1);
        s[k] = (uint32_t)(i + 1);
    }
    free(m->slot);
    m->slot = s;
    m->cap = cap;
    return 0;
}

/* ---- functions ---------------------------------------------------------------- */

static uint64_t fn_hash(const void *ctx, size_t i)
{
    const struct rvt_analysis *a = ctx;
    return mix64(a->fn[i].addr ^ (a->fn[i].has_sym ? 0 : 0x8000000000000000ull));
}

static uint32_t fn_add(struct rvt_analysis *a, const char *name, uint64_t addr, int has_sym)
{
    if (GROW(a->fn, a->capfn, a->nfn) < 0)
        return AN_NONE;
    a->fn[a->nfn] = (struct an_fn){.name = name, .addr = addr, .has_sym = has_sym};
    a->nfn++;
    if (a->nfn * 2 > a->fnmap.cap) {
        if (map_rehash(&a->fnmap, a->nfn, fn_hash, a) < 0)
            return AN_NONE;
    } else {
        size_t k = fn_hash(a, a->nfn - 1) & (a->fnmap.cap - 1);
        while (a->fnmap.slot[k])
            k = (k + 1) & (a->fnmap.cap - 1);
        a->fnmap.slot[k] = (uint32_t)a->nfn;
    }
    return (uint32_t)(a->nfn - 1);
}

static uint32_t fn_of_sym(struct rvt_analysis *a, const struct rvt_symbol *s)
{
    if (!s)
        return a->fn_unknown;
    uint64_t h = mix64(s->addr);
    for (size_t k = h & (a->fnmap.cap - 1); a->fnmap.slot[k]; k = (k + 1) & (a->fnmap.cap - 1)) {
        const struct an_fn *f = &a->fn[a->fnmap.slot[k] - 1];
        if (f->has_sym && f->addr == s->addr)
            return a->fnmap.slot[k] - 1;
    }
    uint32_t id = fn_add(a, s->name, s->addr, 1);
    if (id != AN_NONE)
        a->fn[id].sym_end = s->addr + s->size;
    return id;
}

const struct rvt_segment *an_exec_segment_at(const struct rvt_image *img, uint64_t addr)
{
    for (size_t i = rvt_img_segment_count(img); i-- > 0;) { /* (the last added wins) */
        const struct rvt_segment *g = rvt_img_segment(img, i);
        if (g->exec && addr - g->addr < g->size && g->name)
            return g;
    }
    return NULL;
}

const char *an_segment_file(const struct rvt_segment *seg, size_t *len)
{
    const char *base = strrchr(seg->name, '/');
    base = base ? base + 1 : seg->name;
    size_t n = strlen(base);
    const char *colon = strrchr(base, ':');
    if (colon && strncmp(colon, ":seg", 4) == 0 && colon[4] && strspn(colon + 4, "0123456789") == strlen(colon + 4))
        n = (size_t)(colon - base);
    *len = n;
    return base;
}

char *an_unnamed_name(const struct rvt_segment *seg, bool bracketed)
{
    size_t n;
    const char *base = an_segment_file(seg, &n);
    char *name = malloc(n + 18);
    if (name)
        snprintf(name, n + 18, bracketed ? "[no symbol in %.*s]" : "no symbol in %.*s", (int)n, base);
    return name;
}

/* The pseudo function of code at addr that no symbol holds: one per
 * executable segment, named after its file ("[no symbol in libc.so.6]"),
 * so that a profile tells a stripped library's internal code from the
 * program's; "[no symbol]" outside every segment. */
static uint32_t fn_unnamed(struct rvt_analysis *a, uint64_t addr)
{
    const struct rvt_segment *seg = an_exec_segment_at(a->cfg.image, addr);
    if (!seg)
        return a->fn_unknown;
    for (size_t i = 0; i < a->nunnamed; i++)
        if (a->unnamed[i].seg == seg)
            return a->unnamed[i].fn;
    struct an_unnamed *u = realloc(a->unnamed, (a->nunnamed + 1) * sizeof *u);
    if (!u)
        return AN_NONE;
    a->unnamed = u;
    char *name = an_unnamed_name(seg, true);
    if (!name)
        return AN_NONE;
    uint32_t id = fn_add(a, name, seg->addr, 0);
    if (id == AN_NONE) {
        free(name);
        return AN_NONE;
    }
    a->unnamed[a->nunnamed++] = (struct an_unnamed){seg, id, name};
    return id;
}

static int ac_grow(struct rvt_analysis *a)
{
    size_t cap = a->ac_cap ? a->ac_cap * 2 : 1024;
    uint64_t *ad = malloc(cap * sizeof *ad);
    uint32_t *fn = malloc(cap * sizeof *fn);
    uint8_t *en = calloc(cap, 1);
    if (!ad || !fn || !en) {
        free(ad);
        free(fn);
        free(en);
        return -RVT_ERR_NOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        fn[i] = AN_NONE;
    for (size_t i = 0; i < a->ac_cap; i++) {
        if (a->ac_fn[i] == AN_NONE)
            continue;
        size_t k = mix64(a->ac_addr[i]) & (cap - 1);
        while (fn[k] != AN_NONE)
            k = (k + 1) & (cap - 1);
        ad[k] = a->ac_addr[i];
        fn[k] = a->ac_fn[i];
        en[k] = a->ac_entry[i];
    }
    free(a->ac_addr);
    free(a->ac_fn);
    free(a->ac_entry);
    a->ac_addr = ad;
    a->ac_fn = fn;
    a->ac_entry = en;
    a->ac_cap = cap;
    return 0;
}

/* Function of an address, and whether the address is its first instruction
 * (a jump there is a tail call). */
static uint32_t fn_lookup(struct rvt_analysis *a, uint64_t addr, bool *entry)
{
    size_t k = mix64(addr) & (a->ac_cap - 1);
    while (a->ac_fn[k] != AN_NONE) {
        if (a->ac_addr[k] == addr) {
            if (entry)
                *entry = a->ac_entry[k];
            return a->ac_fn[k];
        }
        k = (k + 1) & (a->ac_cap - 1);
    }
    const struct rvt_symbol *s = rvt_img_symbol_at(a->cfg.image, addr);
    uint32_t fn = s ? fn_of_sym(a, s) : fn_unnamed(a, addr);
    if (fn == AN_NONE)
        return AN_NONE;
    bool is_entry = s && s->addr == addr;
    if ((a->ac_n + 1) * 2 > a->ac_cap) {
        if (ac_grow(a) < 0)
            return AN_NONE;
        k = mix64(addr) & (a->ac_cap - 1);
        while (a->ac_fn[k] != AN_NONE)
            k = (k + 1) & (a->ac_cap - 1);
    }
    a->ac_addr[k] = addr;
    a->ac_fn[k] = fn;
    a->ac_entry[k] = is_entry;
    a->ac_n++;
    if (entry)
        *entry = is_entry;
    return fn;
}

uint32_t an_fn_of(struct rvt_analysis *a, uint64_t addr)
{
    uint32_t f = fn_lookup(a, addr, NULL);
    return f == AN_NONE ? a->fn_unknown : f;
}

const struct an_fn *an_fn_get(const struct rvt_analysis *a, uint32_t id)
{
    return id < a->nfn ? &a->fn[id] : NULL;
}

/* ---- lifecycle ------------------------------------------------------------------ */

static int afail(struct rvt_analysis *a, enum rvt_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int afail(struct rvt_analysis *a, enum rvt_err code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rvt_vfail(&a->diag, code, fmt, ap);
    va_end(ap);
    a->err = -(int)code;
    a->stop = true;
    return a->err;
}

struct rvt_analysis *rvt_an_new(const struct rvt_an_config *cfg)
{
    if (!cfg || cfg->size < sizeof *cfg || !cfg->image)
        return NULL;
    struct rvt_analysis *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->cfg = *cfg;
    a->xlen = cfg->xlen ? cfg->xlen : rvt_img_xlen(cfg->image);
    if (a->xlen != 32 && a->xlen != 64)
        a->xlen = 64;
    a->mask = a->xlen == 32 ? 0xffffffffull : ~0ull;
    if (!a->cfg.max_depth)
        a->cfg.max_depth = 10000;
    if (!a->cfg.max_spans)
        a->cfg.max_spans = 200000;
    if (!a->cfg.max_events)
        a->cfg.max_events = 10000;
    a->bc = rvt_bcache_new(cfg->image, 0);
    if (!a->bc || ac_grow(a) < 0 || map_rehash(&a->fnmap, 0, fn_hash, a) < 0) {
        rvt_an_free(a);
        return NULL;
    }
    a->fn_root = fn_add(a, "[root]", 0, 0);
    a->fn_unknown = fn_add(a, "[no symbol]", 1, 0);
    if (a->fn_root == AN_NONE || a->fn_unknown == AN_NONE) {
        rvt_an_free(a);
        return NULL;
    }
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        a->sinkctx[h].a = a;
        a->sinkctx[h].hart = h;
    }
    return a;
}

static void hart_free(struct an_hart *h)
{
    if (!h)
        return;
    free(h->blk);
    map_free(&h->blkmap);
    free(h->node);
    free(h->node_pend);
    map_free(&h->nodemap);
    free(h->stack);
    free(h->arc);
    map_free(&h->arcmap);
    free(h->touched);
    free(h->corr);
    free(h->span);
    free(h->ev);
    free(h->ev_toff);
    free(h->evtext);
    free(h->insn);
    free(h->fstat);
    free(h->funcs);
    free(h);
}

void rvt_an_free(struct rvt_analysis *a)
{
    if (!a)
        return;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++)
        hart_free(a->hart[h]);
    free(a->fn);
    for (size_t i = 0; i < a->nunnamed; i++)
        free(a->unnamed[i].name);
    free(a->unnamed);
    map_free(&a->fnmap);
    free(a->ac_addr);
    free(a->ac_fn);
    free(a->ac_entry);
    rvt_bcache_free(a->bc);
    free(a->insn);
    free(a->fstat);
    free(a->funcs);
    free(a->universe);
    free(a->st);
    free(a->lines);
    free(a);
}

const char *rvt_an_error(const struct rvt_analysis *a)
{
    return a->diag.msg;
}

/* ---- call tree nodes ------------------------------------------------------------- */

static uint64_t node_key(uint32_t parent, uint32_t fn, uint8_t kind)
{
    return mix64(((uint64_t)parent << 34) ^ ((uint64_t)fn << 2) ^ kind);
}

static uint64_t node_hash(const void *ctx, size_t i)
{
    const struct an_hart *h = ctx;
    return node_key(h->node[i].parent, h->node[i].func, h->node[i].kind);
}

static uint32_t node_get(struct rvt_analysis *a, struct an_hart *h, uint32_t parent, uint32_t fn, uint8_t kind)
{
    uint64_t key = node_key(parent, fn, kind);
    size_t k = key & (h->nodemap.cap - 1);
    for (; h->nodemap.slot[k]; k = (k + 1) & (h->nodemap.cap - 1)) {
        const struct rvt_an_node *n = &h->node[h->nodemap.slot[k] - 1];
        if (n->parent == parent && n->func == fn && n->kind == kind)
            return h->nodemap.slot[k] - 1;
    }
    if (h->nnode >= AN_NONE - 1 || GROW(h->node, h->capnode, h->nnode) < 0) {
        afail(a, RVT_ERR_NOMEM, "out of memory (call tree of %zu nodes)", h->nnode);
        return AN_NONE;
    }
    uint64_t *pend = realloc(h->node_pend, h->capnode * sizeof *pend);
    if (!pend) {
        afail(a, RVT_ERR_NOMEM, "out of memory");
        return AN_NONE;
    }
    h->node_pend = pend;
    const struct an_fn *f = &a->fn[fn];
    struct rvt_an_node *n = &h->node[h->nnode];
    memset(n, 0, sizeof *n);
    n->name = f->name;
    n->addr = f->addr;
    n->parent = parent;
    n->first_child = n->next_sibling = AN_NONE;
    n->depth = parent == AN_NONE ? 0 : h->node[parent].depth + 1;
    n->func = fn;
    n->kind = kind;
    h->node_pend[h->nnode] = 0;
    uint32_t id = (uint32_t)h->nnode++;
    if (h->nnode * 2 > h->nodemap.cap) {
        if (map_rehash(&h->nodemap, h->nnode, node_hash, h) < 0) {
            afail(a, RVT_ERR_NOMEM, "out of memory");
            return AN_NONE;
        }
    } else {
        h->nodemap.slot[k] = id + 1;
    }
    return id;
}

/* ---- harts ------------------------------------------------------------------------ */

static struct an_hart *hart_get(struct rvt_analysis *a, unsigned id)
{
    struct an_hart *h = a->hart[id];
    if (h)
        return h;
    h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->id = id;
    h->used = true;
    h->span_min = 0;
    h->pend_ev = SIZE_MAX;
    if (map_rehash(&h->blkmap, 0, NULL, NULL) < 0 || map_rehash(&h->nodemap, 0, NULL, NULL) < 0 ||
        map_rehash(&h->arcmap, 0, NULL, NULL) < 0 || GROW(h->stack, h->capstack, 0) < 0) {
        hart_free(h);
        return NULL;
    }
    a->hart[id] = h;
    uint32_t root = node_get(a, h, AN_NONE, a->fn_root, RVT_AN_ROOT);
    if (root != 0) {
        a->hart[id] = NULL;
        hart_free(h);
        return NULL;
    }
    memset(&h->stack[0], 0, sizeof h->stack[0]);
    h->stack[0].node = 0;
    h->stack[0].fn = h->stack[0].cur_fn = a->fn_root;
    h->stack[0].kind = RVT_AN_ROOT;
    return h;
}

/* ---- timeline and events ------------------------------------------------------------ */

/* Keep at most max_spans: when full, the shortest half (by a doubling
 * length threshold) is dropped, so the kept spans are the longest ones of
 * the whole run whatever its length. */
static int span_add(struct rvt_analysis *a, struct an_hart *h, const struct rvt_an_span *s)
{
    if (s->end - s->start < h->span_min) {
        h->sum.spans_dropped++;
        return 0;
    }
    while (h->nspan >= a->cfg.max_spans) {
        h->span_min = h->span_min ? h->span_min * 2 : 2;
        size_t k = 0;
        for (size_t i = 0; i < h->nspan; i++)
            if (h->span[i].end - h->span[i].start >= h->span_min)
                h->span[k++] = h->span[i];
        h->sum.spans_dropped += h->nspan - k;
        h->nspan = k;
        if (s->end - s->start < h->span_min) {
            h->sum.spans_dropped++;
            return 0;
        }
    }
    if (GROW(h->span, h->capspan, h->nspan) < 0)
        return afail(a, RVT_ERR_NOMEM, "out of memory (timeline)");
    h->span[h->nspan++] = *s;
    return 0;
}

/* A copy of a note's text (the decoder's buffer is reused); texts are kept
 * by offset until rvt_an_finish because the buffer moves as it grows. */
static size_t ev_text(struct an_hart *h, const char *t)
{
    if (!t)
        return SIZE_MAX;
    size_t n = strlen(t) + 1;
    if (n > 512)
        n = 512;
    if (h->evtext_len + n > h->evtext_cap) {
        size_t cap = h->evtext_cap ? h->evtext_cap * 2 : 4096;
        while (cap < h->evtext_len + n)
            cap *= 2;
        char *p = realloc(h->evtext, cap);
        if (!p)
            return SIZE_MAX;
        h->evtext = p;
        h->evtext_cap = cap;
    }
    size_t off = h->evtext_len;
    memcpy(h->evtext + off, t, n - 1);
    h->evtext[off + n - 1] = 0;
    h->evtext_len += n;
    return off;
}

static int event_add(struct rvt_analysis *a, struct an_hart *h, const struct rvt_an_event *e)
{
    if (h->nev >= a->cfg.max_events) {
        h->sum.events_dropped++;
        return 0;
    }
    if (GROW(h->ev, h->capev, h->nev) < 0 || GROW(h->ev_toff, h->capev_toff, h->nev) < 0)
        return afail(a, RVT_ERR_NOMEM, "out of memory (events)");
    h->ev[h->nev] = *e;
    h->ev[h->nev].text = NULL;
    h->ev_toff[h->nev] = ev_text(h, e->text);
    h->nev++;
    return 0;
}

/* ---- call stack ----------------------------------------------------------------------- */

static uint64_t arc_key(uint32_t caller, uint64_t site, uint32_t callee)
{
    return mix64(site ^ ((uint64_t)caller << 40) ^ ((uint64_t)callee << 16) ^ callee);
}

static uint64_t arc_hash(const void *ctx, size_t i)
{
    const struct an_hart *h = ctx;
    return arc_key(h->arc[i].caller, h->arc[i].site, h->arc[i].callee);
}

static struct an_arc *arc_get(struct rvt_analysis *a, struct an_hart *h, uint32_t caller, uint64_t site,
                              uint32_t callee)
{
    size_t k = arc_key(caller, site, callee) & (h->arcmap.cap - 1);
    for (; h->arcmap.slot[k]; k = (k + 1) & (h->arcmap.cap - 1)) {
        struct an_arc *c = &h->arc[h->arcmap.slot[k] - 1];
        if (c->site == site && c->caller == caller && c->callee == callee)
            return c;
    }
    if (GROW(h->arc, h->caparc, h->narc) < 0) {
        afail(a, RVT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    struct an_arc *c = &h->arc[h->narc];
    *c = (struct an_arc){.site = site, .caller = caller, .callee = callee};
    h->narc++;
    if (h->narc * 2 > h->arcmap.cap) {
        if (map_rehash(&h->arcmap, h->narc, arc_hash, h) < 0) {
            afail(a, RVT_ERR_NOMEM, "out of memory");
            return NULL;
        }
    } else {
        h->arcmap.slot[k] = (uint32_t)h->narc;
    }
    return c;
}

static int push(struct rvt_analysis *a, struct an_hart *h, uint8_t kind, uint32_t fn, bool ret_known, uint64_t ret,
                uint64_t site)
{
    if (h->depth + 1 >= a->cfg.max_depth) {
        h->overflow++;
        h->sum.depth_overflow++;
        return 0;
    }
    if (GROW(h->stack, h->capstack, h->depth + 1) < 0)
        return afail(a, RVT_ERR_NOMEM, "out of memory (call stack)");
    const struct an_frame *top = &h->stack[h->depth];
    uint32_t parent = kind == RVT_AN_RESUMED ? 0 : top->node;
    uint32_t node = node_get(a, h, parent, fn, kind);
    if (node == AN_NONE)
        return a->err;
    struct an_frame *f = &h->stack[++h->depth];
    memset(f, 0, sizeof *f);
    f->node = node;
    f->fn = f->cur_fn = fn;
    f->caller_fn = kind == RVT_AN_RESUMED ? a->fn_root : top->cur_fn;
    f->kind = kind;
    f->ret_known = ret_known;
    f->ret = ret;
    f->site = site;
    f->enter_idx = h->sum.insns;
    f->enter_time = h->cur_time;
    if (kind != RVT_AN_RESUMED)
        h->node[node].calls++;
    if (h->depth > h->sum.max_depth)
        h->sum.max_depth = h->depth;
    return 0;
}

/* Close the top frame. */
static int pop(struct rvt_analysis *a, struct an_hart *h, uint8_t how)
{
    if (h->depth == 0)
        return 0;
    const struct an_frame *f = &h->stack[h->depth];
    struct rvt_an_span s = {.start = f->enter_idx,
                            .end = h->sum.insns,
                            .tstart = f->enter_time,
                            .tend = h->cur_time,
                            .node = f->node,
                            .depth = (uint32_t)h->depth,
                            .kind = f->kind,
                            .how = how};
    if (how == RVT_AN_END_UNWOUND) {
        h->node[f->node].unwound++;
        h->sum.unwound++;
    }
    if (f->kind != RVT_AN_RESUMED) {
        struct an_arc *c = arc_get(a, h, f->caller_fn, f->site, f->fn);
        if (!c)
            return a->err;
        c->calls++;
        c->incl += h->sum.insns - f->enter_idx;
        c->incl_time += h->cur_time - f->enter_time;
    }
    h->depth--;
    return span_add(a, h, &s);
}

static int pop_all(struct rvt_analysis *a, struct an_hart *h, uint8_t how)
{
    int rc = 0;
    while (h->depth && rc == 0)
        rc = pop(a, h, how);
    h->overflow = 0;
    return rc;
}

/* Execution continues at `to` in function g after a return or trap return
 * that no frame explains: the stack above is unknown. */
static int resume_at(struct rvt_analysis *a, struct an_hart *h, uint32_t g, uint8_t how)
{
    int rc = pop_all(a, h, how);
    return rc ? rc : push(a, h, RVT_AN_RESUMED, g, false, 0, 0);
}

static int do_return(struct rvt_analysis *a, struct an_hart *h, uint64_t to)
{
    h->sum.returns++;
    if (h->overflow) { /* a call we did not push returns */
        h->overflow--;
        return 0;
    }
    if (h->depth == 0)
        return push(a, h, RVT_AN_RESUMED, an_fn_of(a, to), false, 0, 0);
    const struct an_frame *top = &h->stack[h->depth];
    if (top->ret_known && top->ret == to)
        return pop(a, h, RVT_AN_END_RETURN);
    /* A return to a frame further down: the frames above it are left. */
    for (size_t i = h->depth; i-- > 1;) {
        if (h->stack[i].ret_known && h->stack[i].ret == to) {
            int rc = 0;
            while (h->depth > i && rc == 0)
                rc = pop(a, h, RVT_AN_END_UNWOUND);
            return rc ? rc : pop(a, h, RVT_AN_END_RETURN);
        }
    }
    uint32_t g = an_fn_of(a, to);
    if (!top->ret_known) {
        /* Returning from a frame whose caller the trace never showed. */
        int rc = pop(a, h, RVT_AN_END_RETURN);
        if (rc)
            return rc;
        if (h->depth == 0 || h->stack[h->depth].cur_fn != g)
            return resume_at(a, h, g, RVT_AN_END_UNMATCHED);
        return 0;
    }
    /* longjmp and the like: back into the most recent frame of the
     * function the return lands in; the frames above it are unwound. */
    for (size_t i = h->depth; i-- > 1;) {
        if (h->stack[i].fn == g || h->stack[i].cur_fn == g) {
            int rc = 0;
            while (h->depth > i && rc == 0)
                rc = pop(a, h, RVT_AN_END_UNWOUND);
            return rc;
        }
    }
    h->node[top->node].unmatched++;
    h->sum.unmatched++;
    return resume_at(a, h, g, RVT_AN_END_UNMATCHED);
}

static int apply(struct rvt_analysis *a, struct an_hart *h, const struct an_pend *p, uint64_t to);

static int do_trapret(struct rvt_analysis *a, struct an_hart *h, uint64_t to)
{
    h->sum.trap_returns++;
    size_t i = h->depth;
    while (i >= 1 && h->stack[i].kind != RVT_AN_TRAP)
        i--;
    uint32_t g = an_fn_of(a, to);
    if (i == 0) { /* no trap entered on this stack (e.g. mret to start a lower level) */
        if (h->depth)
            h->node[h->stack[h->depth].node].unmatched++;
        h->sum.unmatched++;
        return resume_at(a, h, g, RVT_AN_END_UNMATCHED);
    }
    int rc = 0;
    while (h->depth > i && rc == 0)
        rc = pop(a, h, RVT_AN_END_UNWOUND);
    if (rc)
        return rc;
    struct an_pend saved = h->stack[i].saved;
    if ((rc = pop(a, h, RVT_AN_END_RETURN)))
        return rc;
    if (saved.cf == RVT_CF_BRANCH && saved.end == RVT_END_SEQ) {
        /* The branch before the trap: where the handler returned says
         * which way it went. */
        if (GROW(h->corr, h->capcorr, h->ncorr) < 0)
            return afail(a, RVT_ERR_NOMEM, "out of memory");
        h->corr[h->ncorr++] = (struct an_corr){saved.last, to != saved.fall};
    }
    /* The instruction before the trap may have been a call or a return
     * whose effect the trap hid: apply it now that its target is known. */
    if ((rc = apply(a, h, &saved, to)))
        return rc;
    if (h->depth == 0)
        return push(a, h, RVT_AN_RESUMED, g, false, 0, 0);
    const struct an_frame *top = &h->stack[h->depth];
    if (top->cur_fn != g && top->fn != g) {
        /* Back somewhere else than where the trap came from (a context
         * switch): this stack does not describe it. */
        h->sum.unmatched++;
        h->node[top->node].unmatched++;
        return resume_at(a, h, g, RVT_AN_END_UNMATCHED);
    }
    return 0;
}

/* Resolve the transfer that ended the previous block, now that execution is
 * known to continue at `to`. */
static int apply(struct rvt_analysis *a, struct an_hart *h, const struct an_pend *p, uint64_t to)
{
    uint8_t end = p->end;
    if (end == RVT_END_SEQ || end == RVT_END_BRANCH || end == RVT_END_ECALL) {
        /* A block cut by a resync right after a discontinuity: the class of
         * its last instruction says what happened. */
        if (end == RVT_END_SEQ && p->cf != RVT_CF_NONE && to != p->fall) {
            switch (p->cf) {
            case RVT_CF_CALL_INF:
            case RVT_CF_CALL_UNINF:
                end = RVT_END_CALL;
                break;
            case RVT_CF_RETURN:
                end = RVT_END_RETURN;
                break;
            case RVT_CF_TRAPRET:
                end = RVT_END_TRAPRET;
                break;
            case RVT_CF_BRANCH:
                return 0;
            default:
                end = RVT_END_JUMP;
                break;
            }
        } else {
            return 0;
        }
    }
    switch (end) {
    case RVT_END_CALL:
        /* A linking jump through another register is not a call: nothing
         * will return to it with a return instruction. */
        if (p->cf == RVT_CF_OTHER_INF || p->cf == RVT_CF_OTHER_UNINF)
            break;
        h->sum.calls++;
        return push(a, h, RVT_AN_CALL, an_fn_of(a, to), true, p->fall, p->last);
    case RVT_END_RETURN:
        return do_return(a, h, to);
    case RVT_END_TRAPRET:
        return do_trapret(a, h, to);
    default:
        break;
    }
    /* Jumps (and co-routine swaps, other linking jumps): a jump to another
     * function's first instruction is a tail call.  Most jumps stay inside
     * the function that ran last (loops): no lookup for those. */
    if (h->depth) {
        const struct an_fn *cur = &a->fn[h->stack[h->depth].cur_fn];
        if (to >= cur->addr && to < cur->sym_end)
            return 0;
    }
    bool entry = false;
    uint32_t g = fn_lookup(a, to, &entry);
    if (g == AN_NONE)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    if (!entry || h->depth == 0 || h->overflow)
        return 0;
    struct an_frame *top = &h->stack[h->depth];
    if (top->fn == g)
        return 0;
    struct an_frame keep = *top;
    int rc = pop(a, h, RVT_AN_END_TAIL);
    if (rc)
        return rc;
    h->sum.tail_calls++;
    size_t d0 = h->depth;
    if ((rc = push(a, h, keep.kind, g, keep.ret_known, keep.ret, p->last)))
        return rc;
    if (h->depth > d0) {
        h->stack[h->depth].saved = keep.saved;
        h->stack[h->depth].caller_fn = keep.cur_fn; /* the arc goes from the function that jumped */
    }
    return 0;
}

/* A trap is entered: the handler's frame is pushed when its first block
 * arrives (its address may come only with the next sync). */
static int trap_enter(struct rvt_analysis *a, struct an_hart *h, const struct an_pend *interrupted, uint64_t handler)
{
    if (h->pend.trap) { /* nested before the first handler ran an instruction */
        struct an_pend outer = h->pend;
        size_t d0 = h->depth;
        int rc = push(a, h, RVT_AN_TRAP, an_fn_of(a, outer.handler), false, 0, outer.last);
        if (rc)
            return rc;
        if (h->depth > d0) {
            h->stack[h->depth].saved = outer;
            h->stack[h->depth].saved.trap = false;
        }
    }
    h->pend = *interrupted;
    h->pend.trap = true;
    h->pend.handler = handler;
    return 0;
}

/* Time since the last timestamp is shared by the nodes that ran since, in
 * proportion to their instructions (rounding remainders go to the last). */
static void time_advance(struct an_hart *h, uint64_t t)
{
    if (!h->sum.has_time) {
        h->sum.has_time = 1;
        h->sum.time_first = h->sum.time_last = h->cur_time = t;
        return;
    }
    if (t <= h->cur_time)
        return;
    uint64_t delta = t - h->cur_time, total = 0;
    for (size_t i = 0; i < h->ntouched; i++)
        total += h->node_pend[h->touched[i]];
    uint64_t given = 0;
    for (size_t i = 0; i < h->ntouched; i++) {
        uint32_t n = h->touched[i];
        uint64_t share = i + 1 == h->ntouched ? delta - given
                                               : (uint64_t)((double)delta * (double)h->node_pend[n] / (double)total);
        if (share > delta - given)
            share = delta - given;
        h->node[n].self_time += share;
        given += share;
        h->node_pend[n] = 0;
    }
    h->ntouched = 0;
    h->cur_time = h->sum.time_last = t;
}

/* ---- the sink ---------------------------------------------------------------------------- */

static uint64_t blk_key(uint64_t start, uint32_t n, uint8_t ok)
{
    return mix64(start ^ ((uint64_t)n << 40) ^ ((uint64_t)ok << 62));
}

static uint64_t blk_hash(const void *ctx, size_t i)
{
    const struct an_hart *h = ctx;
    return blk_key(h->blk[i].start, h->blk[i].ninsns, h->blk[i].okind);
}

static struct an_blk *blk_get(struct rvt_analysis *a, struct an_hart *h, uint64_t start, uint32_t n, uint8_t ok)
{
    /* Loops run the same few blocks: a direct-mapped slot answers most
     * lookups without hashing. */
    uint32_t *recent = &h->blk_recent[(start >> 1 ^ n * 0x9e3779b1u ^ ok) & 1023];
    if (*recent) {
        struct an_blk *e = &h->blk[*recent - 1];
        if (e->start == start && e->ninsns == n && e->okind == ok)
            return e;
    }
    size_t k = blk_key(start, n, ok) & (h->blkmap.cap - 1);
    for (uint32_t s; (s = h->blkmap.slot[k]) != 0; k = (k + 1) & (h->blkmap.cap - 1)) {
        struct an_blk *e = &h->blk[s - 1];
        if (e->start == start && e->ninsns == n && e->okind == ok) {
            *recent = s;
            return e;
        }
    }
    if (GROW(h->blk, h->capblk, h->nblk) < 0) {
        afail(a, RVT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    uint32_t fn = an_fn_of(a, start);
    struct an_blk *e = &h->blk[h->nblk++];
    *e = (struct an_blk){.start = start, .ninsns = n, .fn = fn, .okind = ok};
    *recent = (uint32_t)h->nblk;
    if (h->nblk * 2 > h->blkmap.cap) {
        if (map_rehash(&h->blkmap, h->nblk, blk_hash, h) < 0) {
            afail(a, RVT_ERR_NOMEM, "out of memory");
            return NULL;
        }
    } else {
        h->blkmap.slot[k] = (uint32_t)h->nblk;
    }
    return e;
}

/* Why a block is refused (off the hot path). */
static AN_NOINLINE int block_refused(struct rvt_analysis *a, const struct rvt_block *b)
{
    if (a->err)
        return a->err;
    if (a->finished)
        return afail(a, RVT_ERR_INVAL, "block after rvt_an_finish");
    if (rvt_an_block_refusal(b) == -RVT_ERR_NOCODE)
        return afail(a, RVT_ERR_NOCODE,
                     "the block at 0x%" PRIx64 " was decoded without the program's code: the analysis needs the ELF "
                     "(--elf) to count instructions",
                     b->start);
    return afail(a, RVT_ERR_INVAL, "block at 0x%" PRIx64 " with %" PRIu64 " instructions", b->start, b->ninsns);
}

/* The previous block's transfer (or a trap) resolves at this block's start;
 * and where the stack is empty (trace start, after a gap) a frame begins. */
static AN_NOINLINE int resolve_at(struct rvt_analysis *a, struct an_hart *h, uint64_t start)
{
    int rc;
    if (h->pend.trap) {
        struct an_pend p = h->pend;
        h->pend = (struct an_pend){0};
        if (h->pend_ev != SIZE_MAX)
            h->ev[h->pend_ev].handler = start;
        h->pend_ev = SIZE_MAX;
        size_t d0 = h->depth;
        if ((rc = push(a, h, RVT_AN_TRAP, an_fn_of(a, start), false, 0, p.last)))
            return rc;
        if (h->depth > d0) {
            h->stack[h->depth].saved = p;
            h->stack[h->depth].saved.trap = false;
        }
    } else if (h->pend.act) {
        struct an_pend p = h->pend;
        h->pend = (struct an_pend){0};
        if ((rc = apply(a, h, &p, start)))
            return rc;
    }
    if (h->depth == 0 && !h->overflow && (rc = push(a, h, RVT_AN_RESUMED, an_fn_of(a, start), false, 0, 0)))
        return rc;
    return 0;
}

/* A block ending in a trap: the event, and the trap to enter. */
static AN_NOINLINE int trap_block(struct rvt_analysis *a, struct an_hart *h, const struct rvt_block *b,
                                                struct an_pend *p)
{
    bool intr = (b->flags & RVT_BLK_INTERRUPT) != 0;
    if (intr)
        h->sum.interrupts++;
    h->sum.traps++;
    struct rvt_an_event ev = {.index = h->sum.insns,
                              .time = h->cur_time,
                              .addr = p->last,
                              .handler = 0, /* set when the handler's first block arrives */
                              .cause = b->cause,
                              .tval = b->tval,
                              .offset = b->trace_offset,
                              .kind = intr ? RVT_AN_EV_INTERRUPT : RVT_AN_EV_EXCEPTION,
                              .priv = b->priv};
    int rc = event_add(a, h, &ev);
    if (rc)
        return rc;
    h->pend_ev = h->sum.events_dropped || !h->nev ? SIZE_MAX : h->nev - 1;
    /* The interrupted transfer is the last instruction's own. */
    p->end = RVT_END_SEQ;
    return trap_enter(a, h, p, b->next & a->mask);
}

/* A block's time counts as known once its instructions ran: decoders
 * stamp the blocks a message describes with that message's time, which is
 * when its last instruction retired (an ingress record's time differs from
 * that by at most the record).  So the time up to it is shared by the frames
 * that ran since the last timestamp, this block included. */
static AN_NOINLINE int time_block(struct an_hart *h, const struct rvt_block *b, uint32_t node)
{
    if (h->sum.has_time) {
        if (h->node_pend[node] == 0) {
            if (GROW(h->touched, h->captouched, h->ntouched) < 0)
                return -RVT_ERR_NOMEM;
            h->touched[h->ntouched++] = node;
        }
        h->node_pend[node] += b->ninsns;
    }
    if (b->flags & RVT_BLK_HAS_TIME)
        time_advance(h, b->time);
    return 0;
}

/* Per block: resolve what the last one started, count this one in the
 * table of distinct blocks and in the running frame, keep how it ended. */
static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_analysis *a = ((struct an_sinkctx *)ctx)->a;
    if (a->stop || rvt_an_block_refusal(b))
        return block_refused(a, b);
    struct an_hart *h = a->hart[((struct an_sinkctx *)ctx)->hart];
    if (!h && !(h = hart_get(a, ((struct an_sinkctx *)ctx)->hart)))
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    int rc;
    const uint64_t start = b->start & a->mask;
    if ((h->pend.trap || h->pend.act || h->depth == 0) && (rc = resolve_at(a, h, start)))
        return rc;

    uint8_t ok = OK_NONE;
    const uint64_t fall = (b->last + b->last_len) & a->mask;
    if (b->cf == RVT_CF_BRANCH) {
        if (b->end == RVT_END_BRANCH)
            ok = OK_TAKEN;
        else if (b->end == RVT_END_SEQ && b->next == fall && b->last_len)
            ok = OK_NOT_TAKEN;
        else
            ok = OK_UNKNOWN;
    }
    struct an_blk *e = blk_get(a, h, start, (uint32_t)b->ninsns, ok);
    if (!e)
        return a->err;
    e->count++;
    struct an_frame *top = &h->stack[h->depth];
    top->cur_fn = e->fn;
    h->last_addr = b->last & a->mask;
    const uint32_t node = top->node;
    if (((b->flags & RVT_BLK_HAS_TIME) || h->sum.has_time) && time_block(h, b, node) < 0)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    h->node[node].self += b->ninsns;
    h->sum.insns += b->ninsns;
    h->sum.blocks++;

    if (b->end == RVT_END_TRAP) {
        struct an_pend p = {.end = b->end, .cf = b->cf, .last = b->last & a->mask, .fall = fall};
        return trap_block(a, h, b, &p);
    }
    /* Branches, ecalls and sequential cuts leave the stack alone; a cut
     * after a jump's class may not (apply() looks at where it went).  A
     * gap block: the note that follows says why; the stack is cut there. */
    struct an_pend *p = &h->pend; /* no trap is pending here: resolve_at consumed it */
    p->end = b->end;
    p->cf = b->cf;
    p->act = b->end != RVT_END_BRANCH && b->end != RVT_END_ECALL && b->end != RVT_END_GAP &&
             (b->end != RVT_END_SEQ || (b->cf != RVT_CF_NONE && b->cf != RVT_CF_BRANCH));
    p->last = b->last & a->mask;
    p->fall = fall;
    return 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_analysis *a = ((struct an_sinkctx *)ctx)->a;
    unsigned hid = ((struct an_sinkctx *)ctx)->hart;
    if (a->err)
        return a->err;
    if (a->finished)
        return afail(a, RVT_ERR_INVAL, "note after rvt_an_finish");
    struct an_hart *h = hart_get(a, hid);
    if (!h)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        h->sum.syncs++;
        return 0;
    case RVT_NOTE_TRAP: {
        h->sum.traps++;
        h->sum.interrupts += n->reason == 1;
        const uint64_t epc = n->addr & a->mask;
        if (h->pend.trap && h->pend_ev != SIZE_MAX)
            h->ev[h->pend_ev].handler = epc; /* nested: the first handler's first instruction trapped */
        if (h->pend.trap && !h->pend.handler)
            h->pend.handler = epc;
        struct rvt_an_event ev = {.index = h->sum.insns,
                                  .time = h->cur_time,
                                  .addr = h->last_addr,
                                  .cause = n->value,
                                  .tval = n->tval,
                                  .offset = n->offset,
                                  .kind = n->reason == 1 ? RVT_AN_EV_INTERRUPT : RVT_AN_EV_EXCEPTION,
                                  .priv = n->priv};
        int rc = event_add(a, h, &ev);
        if (rc)
            return rc;
        /* Nothing retired since the last trap or sync: the transfer that
         * ended the last block (if any) is what the trap interrupted. */
        struct an_pend none = {.last = epc, .fall = epc};
        struct an_pend keep = h->pend;
        keep.trap = false;
        rc = trap_enter(a, h, h->pend.trap ? &none : &keep, 0);
        h->pend_ev = h->sum.events_dropped || !h->nev ? SIZE_MAX : h->nev - 1;
        return rc;
    }
    case RVT_NOTE_GAP:
    case RVT_NOTE_ERROR: {
        if (n->kind == RVT_NOTE_ERROR)
            h->sum.errors++;
        else
            h->sum.gaps++;
        struct rvt_an_event ev = {.index = h->sum.insns,
                                  .time = h->cur_time,
                                  .addr = n->addr & a->mask,
                                  .offset = n->offset,
                                  .cause = n->reason,
                                  .text = n->text,
                                  .kind = n->kind == RVT_NOTE_ERROR ? RVT_AN_EV_ERROR : RVT_AN_EV_GAP,
                                  .priv = n->priv};
        int rc = event_add(a, h, &ev);
        if (rc)
            return rc;
        /* What ran before the gap is not known to return: close it all. */
        h->pend = (struct an_pend){0};
        h->pend_ev = SIZE_MAX;
        h->last_addr = 0;
        return pop_all(a, h, RVT_AN_END_GAP);
    }
    default:
        return 0;
    }
}

/* Blocks in batches (rvt_flow_sink.blocks): one call per batch. */
static int on_blocks(void *ctx, const struct rvt_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = on_block(ctx, &b[i]);
        if (rc)
            return rc;
    }
    return 0;
}

struct rvt_flow_sink rvt_an_sink(struct rvt_analysis *a, unsigned hart)
{
    struct rvt_flow_sink s = {.block = NULL};
    if (!a || hart >= RVT_AN_MAX_HARTS)
        return s;
    s.block = on_block;
    s.blocks = on_blocks;
    s.note = on_note;
    s.ctx = &a->sinkctx[hart];
    return s;
}

/* ---- finish: per-instruction counts, coverage, lines, tree totals -------------------- */

/* Executed instructions of one hart while expanding its blocks. */
struct xinsn {
    uint64_t addr, count, taken, nt, mid; /* mid: times it did not end a block */
};
struct expand {
    struct xinsn *x;
    size_t n, cap;
    struct an_map map;
    const struct an_blk *blk;
    uint32_t i;
    int err;
};

static uint64_t x_hash(const void *ctx, size_t i)
{
    const struct expand *e = ctx;
    return mix64(e->x[i].addr);
}

static int expand_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct expand *e = ctx;
    size_t k = mix64(pc) & (e->map.cap - 1);
    struct xinsn *x = NULL;
    for (uint32_t s; (s = e->map.slot[k]) != 0; k = (k + 1) & (e->map.cap - 1))
        if (e->x[s - 1].addr == pc) {
            x = &e->x[s - 1];
            break;
        }
    if (!x) {
        if (GROW(e->x, e->cap, e->n) < 0)
            return e->err = -RVT_ERR_NOMEM;
        x = &e->x[e->n++];
        *x = (struct xinsn){.addr = pc};
        if (e->n * 2 > e->map.cap) {
            if (map_rehash(&e->map, e->n, x_hash, e) < 0)
                return e->err = -RVT_ERR_NOMEM;
        } else {
            e->map.slot[k] = (uint32_t)e->n;
        }
    }
    const struct an_blk *bl = e->blk;
    x->count += bl->count;
    if (++e->i < bl->ninsns)
        x->mid += bl->count;
    else if (bl->okind == OK_TAKEN)
        x->taken += bl->count;
    else if (bl->okind == OK_NOT_TAKEN)
        x->nt += bl->count;
    return 0;
}

static int insn_cmp(const void *p, const void *q)
{
    const struct rvt_an_insn *x = p, *y = q;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const struct rvt_an_insn *find_insn(const struct rvt_an_insn *v, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].addr == addr ? &v[lo] : NULL;
}

static bool is_branch(struct rvt_analysis *a, uint64_t addr)
{
    struct rvt_insn in;
    return rvt_img_insn(a->cfg.image, addr, &in) == 0 && in.cf == RVT_CF_BRANCH;
}

static int expand_hart(struct rvt_analysis *a, struct an_hart *h)
{
    struct expand e = {0};
    if (map_rehash(&e.map, 0, NULL, NULL) < 0)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < h->nblk && rc == 0; i++) {
        const struct an_blk *bl = &h->blk[i];
        struct rvt_block b = {.start = bl->start, .ninsns = bl->ninsns};
        e.blk = bl;
        e.i = 0;
        rc = rvt_block_insns(a->bc, a->xlen, &b, expand_insn, &e);
        if (rc == -RVT_ERR_NOCODE)
            rc = afail(a, RVT_ERR_NOCODE, "hart %u: the block at 0x%" PRIx64 " (%" PRIu32 " instructions) runs into "
                       "addresses without code", h->id, bl->start, bl->ninsns);
        else if (rc < 0 || e.err)
            rc = afail(a, RVT_ERR_NOMEM, "out of memory");
    }
    if (rc == 0) {
        h->insn = malloc((e.n ? e.n : 1) * sizeof *h->insn);
        if (!h->insn)
            rc = afail(a, RVT_ERR_NOMEM, "out of memory");
    }
    if (rc == 0) {
        for (size_t i = 0; i < e.n; i++) {
            const struct xinsn *x = &e.x[i];
            struct rvt_an_insn *o = &h->insn[i];
            o->addr = x->addr;
            o->count = x->count;
            o->taken = o->not_taken = 0;
            if ((x->mid || x->nt || x->taken) && is_branch(a, x->addr)) {
                /* A branch inside a block fell through: not taken. */
                o->taken = x->taken;
                o->not_taken = x->nt + x->mid;
            }
        }
        h->ninsn = e.n;
        qsort(h->insn, h->ninsn, sizeof *h->insn, insn_cmp);
        for (size_t i = 0; i < h->ncorr; i++) {
            struct rvt_an_insn *x = (struct rvt_an_insn *)find_insn(h->insn, h->ninsn, h->corr[i].addr);
            if (x && h->corr[i].taken)
                x->taken++;
            else if (x)
                x->not_taken++;
        }
    }
    free(e.x);
    map_free(&e.map);
    return rc;
}

static int merge_insns(struct rvt_analysis *a)
{
    size_t total = 0;
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS; i++)
        if (a->hart[i])
            total += a->hart[i]->ninsn;
    a->insn = malloc((total ? total : 1) * sizeof *a->insn);
    if (!a->insn)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS; i++)
        if (a->hart[i]) {
            memcpy(a->insn + n, a->hart[i]->insn, a->hart[i]->ninsn * sizeof *a->insn);
            n += a->hart[i]->ninsn;
        }
    qsort(a->insn, n, sizeof *a->insn, insn_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && a->insn[k - 1].addr == a->insn[i].addr) {
            a->insn[k - 1].count += a->insn[i].count;
            a->insn[k - 1].taken += a->insn[i].taken;
            a->insn[k - 1].not_taken += a->insn[i].not_taken;
        } else {
            a->insn[k++] = a->insn[i];
        }
    }
    a->ninsn = k;
    return 0;
}

const struct rvt_an_insn *an_insn_at(const struct rvt_analysis *a, uint64_t addr)
{
    return find_insn(a->insn, a->ninsn, addr);
}

static bool in_exec_segment(const struct rvt_image *img, uint64_t addr, uint64_t *seg_end)
{
    for (size_t i = 0, n = rvt_img_segment_count(img); i < n; i++) {
        const struct rvt_segment *s = rvt_img_segment(img, i);
        if (s->exec && addr >= s->addr && addr - s->addr < s->size) {
            *seg_end = s->addr + s->size;
            return true;
        }
    }
    return false;
}

struct ufn {
    uint64_t addr, end, seg_end;
    uint32_t id;
    bool sized;
};

static int ufn_cmp(const void *p, const void *q)
{
    const struct ufn *x = p, *y = q;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The coverage universe: every function symbol in executable code, over
 * its size (or, without one, up to the next function). */
static int build_universe(struct rvt_analysis *a)
{
    const struct rvt_image *img = a->cfg.image;
    size_t ns = rvt_img_symbol_count(img), n = 0;
    struct ufn *u = malloc((ns ? ns : 1) * sizeof *u);
    a->universe = malloc((ns ? ns : 1) * sizeof *a->universe);
    if (!u || !a->universe) {
        free(u);
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ns; i++) {
        const struct rvt_symbol *s = rvt_img_symbol_index(img, i);
        uint64_t seg_end;
        if (!s->is_func || !in_exec_segment(img, s->addr, &seg_end))
            continue;
        /* The symbol lookups prefer: an alias or a label inside another
         * function is covered as part of the one that owns the address. */
        const struct rvt_symbol *r = rvt_img_symbol_at(img, s->addr);
        if (!r || r->addr != s->addr)
            continue;
        uint32_t id = fn_of_sym(a, r);
        if (id == AN_NONE) {
            free(u);
            return afail(a, RVT_ERR_NOMEM, "out of memory");
        }
        if (a->fn[id].end)
            continue; /* already in */
        a->fn[id].end = 1;
        u[n++] = (struct ufn){.addr = r->addr,
                              .end = r->size ? r->addr + r->size : seg_end,
                              .seg_end = seg_end,
                              .id = id,
                              .sized = r->size != 0};
    }
    qsort(u, n, sizeof *u, ufn_cmp);
    for (size_t i = 0; i < n; i++) {
        if (!u[i].sized && i + 1 < n && u[i + 1].addr < u[i].end)
            u[i].end = u[i + 1].addr;
        if (u[i].end > u[i].seg_end)
            u[i].end = u[i].seg_end;
        a->fn[u[i].id].end = u[i].end > u[i].addr ? u[i].end : u[i].addr + 1;
        a->universe[i] = u[i].id;
    }
    a->nuniverse = n;
    free(u);
    return 0;
}

/* Walk the universe's code once (overlapping ranges once), each
 * instruction owned by the symbol containing it, as executed ones are. */
static int static_code(struct rvt_analysis *a, struct sinsn **out, size_t *nout)
{
    const struct rvt_image *img = a->cfg.image;
    struct sinsn *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t *tg = NULL; /* static branch and jump targets */
    size_t ntg = 0, captg = 0;
    unsigned prev_len = 0;
    uint8_t prev_cf = RVT_CF_NONE;
    uint64_t covered_to = 0;
    for (size_t u = 0; u < a->nuniverse; u++) {
        const struct an_fn *f = &a->fn[a->universe[u]];
        uint64_t pc = f->addr > covered_to ? f->addr : covered_to;
        /* The owner holds until its symbol ends or the next function of
         * the universe begins (symbol lookups for every instruction would
         * cost more than the rest of the analysis). */
        uint32_t owner = AN_NONE;
        uint64_t owner_end = 0;
        const uint64_t next = u + 1 < a->nuniverse ? a->fn[a->universe[u + 1]].addr : UINT64_MAX;
        while (pc < f->end) {
            struct rvt_insn in;
            if (rvt_img_insn(img, pc, &in) < 0)
                break;
            if (!(in.flags & RVT_IF_VALID) || in.len == 0 || in.len > 4) {
                pc += 2; /* padding or data */
                continue;
            }
            if (pc >= owner_end) {
                const struct rvt_symbol *sy = rvt_img_symbol_at(img, pc);
                owner = sy ? fn_of_sym(a, sy) : fn_unnamed(a, pc);
                owner_end = sy && sy->size && sy->addr <= pc ? sy->addr + sy->size : pc + 1;
                if (owner_end > next)
                    owner_end = next;
            }
            if (owner == AN_NONE || GROW(v, cap, n) < 0) {
                free(v);
                free(tg);
                return afail(a, RVT_ERR_NOMEM, "out of memory");
            }
            /* A basic block starts at a function's entry and after any
             * control transfer; targets are marked below. */
            bool lead = pc == f->addr || n == 0 || v[n - 1].addr + prev_len != pc || prev_cf != RVT_CF_NONE;
            v[n++] = (struct sinsn){.addr = pc, .owner = owner, .br = in.cf == RVT_CF_BRANCH, .leader = lead};
            if (in.cf == RVT_CF_BRANCH || in.cf == RVT_CF_JUMP_INF || in.cf == RVT_CF_CALL_INF ||
                in.cf == RVT_CF_OTHER_INF) {
                if (GROW(tg, captg, ntg) < 0) {
                    free(v);
                    free(tg);
                    return afail(a, RVT_ERR_NOMEM, "out of memory");
                }
                tg[ntg++] = in.target & a->mask;
            }
            prev_len = in.len;
            prev_cf = in.cf;
            pc += in.len;
        }
        if (pc > covered_to)
            covered_to = pc;
    }
    /* Static targets begin blocks too. */
    for (size_t i = 0; i < ntg; i++) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid].addr < tg[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && v[lo].addr == tg[i])
            v[lo].leader = true;
    }
    free(tg);
    *out = v;
    *nout = n;
    return 0;
}

static int fstat_alloc(struct rvt_analysis *a, struct an_fstat **out)
{
    *out = calloc(a->nfn ? a->nfn : 1, sizeof **out);
    return *out ? 0 : afail(a, RVT_ERR_NOMEM, "out of memory");
}

static void cov_insn(struct an_fstat *fs, const struct rvt_an_insn *x, bool br, bool leader)
{
    fs->insns_total++;
    fs->branches_total += br;
    fs->bblocks_total += leader;
    if (!x)
        return;
    fs->insns_hit++;
    fs->bblocks_hit += leader;
    if (br) {
        bool both = x->taken && x->not_taken;
        fs->branches_both += both;
        fs->branches_one += !both && (x->taken || x->not_taken);
    }
}

static uint64_t line_hash(const void *ctx, size_t i)
{
    const struct rvt_an_line *l = *(struct rvt_an_line *const *)ctx;
    return mix64(((uint64_t)l[i].file_id << 32) | l[i].line);
}

/* Coverage per function (per hart and for all) and per source line. */
static int coverage(struct rvt_analysis *a, const struct sinsn *st, size_t nst)
{
    const struct rvt_srclines *sl = a->cfg.lines;
    struct an_map lmap = {0};
    size_t nl = 0, capl = 0;
    struct rvt_an_line *lines = NULL;
    if (map_rehash(&lmap, 0, NULL, NULL) < 0)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    /* The static and the executed instructions are both in address order:
     * one pass over each (per hart too). */
    struct an_hart *used[RVT_AN_MAX_HARTS];
    size_t pos[RVT_AN_MAX_HARTS] = {0}, nused = 0, ai = 0;
    for (unsigned hi = 0; hi < RVT_AN_MAX_HARTS; hi++)
        if (a->hart[hi])
            used[nused++] = a->hart[hi];
    for (size_t i = 0; i < nst; i++) {
        const uint64_t pc = st[i].addr;
        const bool br = st[i].br;
        while (ai < a->ninsn && a->insn[ai].addr < pc)
            ai++;
        const struct rvt_an_insn *x = ai < a->ninsn && a->insn[ai].addr == pc ? &a->insn[ai] : NULL;
        cov_insn(&a->fstat[st[i].owner], x, br, st[i].leader);
        a->cov.insns_total++;
        a->cov.branches_total += br;
        a->cov.bblocks_total += st[i].leader;
        if (x) {
            a->cov.insns_hit++;
            a->cov.bblocks_hit += st[i].leader;
            if (br) {
                a->cov.branches_both += x->taken && x->not_taken;
                a->cov.branches_taken_only += x->taken && !x->not_taken;
                a->cov.branches_not_taken_only += x->not_taken && !x->taken;
            }
        }
        for (size_t u = 0; u < nused; u++) {
            struct an_hart *h = used[u];
            size_t k = pos[u];
            while (k < h->ninsn && h->insn[k].addr < pc)
                k++;
            pos[u] = k;
            cov_insn(&h->fstat[st[i].owner], k < h->ninsn && h->insn[k].addr == pc ? &h->insn[k] : NULL, br,
                     st[i].leader);
        }
        struct rvt_srcline loc;
        if (!sl || !rvt_srclines_find(sl, pc, &loc) || !loc.line)
            continue;
        size_t k = mix64(((uint64_t)loc.file_id << 32) | loc.line) & (lmap.cap - 1);
        struct rvt_an_line *l = NULL;
        for (uint32_t s; (s = lmap.slot[k]) != 0; k = (k + 1) & (lmap.cap - 1))
            if (lines[s - 1].file_id == loc.file_id && lines[s - 1].line == loc.line) {
                l = &lines[s - 1];
                break;
            }
        if (!l) {
            if (GROW(lines, capl, nl) < 0) {
                map_free(&lmap);
                free(lines);
                return afail(a, RVT_ERR_NOMEM, "out of memory");
            }
            l = &lines[nl++];
            *l = (struct rvt_an_line){.file = loc.file, .file_id = loc.file_id, .line = loc.line};
            if (nl * 2 > lmap.cap) {
                if (map_rehash(&lmap, nl, line_hash, &lines) < 0) {
                    map_free(&lmap);
                    free(lines);
                    return afail(a, RVT_ERR_NOMEM, "out of memory");
                }
            } else {
                lmap.slot[k] = (uint32_t)nl;
            }
        }
        if (x) {
            if (x->count > l->hits)
                l->hits = x->count;
            l->insns += x->count;
        }
        if (br) {
            l->branches++;
            if (x && x->taken && x->not_taken)
                l->branches_both++;
            else if (x && (x->taken || x->not_taken))
                l->branches_one++;
        }
    }
    map_free(&lmap);
    for (size_t u = 0; u < a->nuniverse; u++) {
        const struct an_fstat *fs = &a->fstat[a->universe[u]];
        if (!fs->insns_total)
            continue;
        a->cov.funcs_total++;
        a->cov.funcs_hit += fs->insns_hit > 0;
    }
    for (size_t i = 0; i < nl; i++) {
        a->cov.lines_total++;
        a->cov.lines_hit += lines[i].hits > 0;
    }
    a->lines = lines;
    a->nlines = nl;
    return 0;
}

static int line_cmp(const void *p, const void *q)
{
    const struct rvt_an_line *x = p, *y = q;
    int c = strcmp(x->file, y->file);
    if (c)
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Per-address self counts of one set of executed instructions. */
static void self_counts(struct rvt_analysis *a, const struct rvt_an_insn *v, size_t n, struct an_fstat *fs)
{
    for (size_t i = 0; i < n; i++)
        fs[an_fn_of(a, v[i].addr)].self += v[i].count;
}

struct ckey {
    uint64_t total, addr;
    uint32_t parent, id;
    uint8_t kind;
};

static int child_cmp(const void *p, const void *q)
{
    const struct ckey *x = p, *y = q;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Inclusive counts, ordered children, and per-function totals that count
 * recursion once. */
static int tree_totals(struct rvt_analysis *a, struct an_hart *h)
{
    for (size_t i = 0; i < h->nnode; i++) {
        h->node[i].total = h->node[i].self;
        h->node[i].total_time = h->node[i].self_time;
        h->node[i].first_child = h->node[i].next_sibling = AN_NONE;
    }
    for (size_t i = h->nnode; i-- > 1;) { /* parents precede children */
        struct rvt_an_node *p = &h->node[h->node[i].parent];
        p->total += h->node[i].total;
        p->total_time += h->node[i].total_time;
    }
    struct ckey *ord = malloc((h->nnode ? h->nnode : 1) * sizeof *ord);
    uint32_t *onpath = calloc(a->nfn ? a->nfn : 1, sizeof *onpath);
    uint32_t *stk = malloc((h->nnode ? h->nnode : 1) * sizeof *stk * 2);
    if (!ord || !onpath || !stk) {
        free(ord);
        free(onpath);
        free(stk);
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 1; i < h->nnode; i++) {
        const struct rvt_an_node *nd = &h->node[i];
        ord[n++] = (struct ckey){nd->total, nd->addr, nd->parent, (uint32_t)i, nd->kind};
    }
    qsort(ord, n, sizeof *ord, child_cmp);
    for (size_t i = n; i-- > 0;) {
        struct rvt_an_node *c = &h->node[ord[i].id];
        c->next_sibling = h->node[c->parent].first_child;
        h->node[c->parent].first_child = ord[i].id;
    }
    /* Depth-first: a function's total counts its outermost frames only. */
    size_t sp = 0;
    stk[sp++] = 0;
    while (sp) {
        uint32_t v = stk[--sp];
        if (v & 0x80000000u) { /* leaving */
            onpath[h->node[v & 0x7fffffffu].func]--;
            continue;
        }
        const struct rvt_an_node *nd = &h->node[v];
        struct an_fstat *fs = &h->fstat[nd->func];
        if (v != 0) {
            fs->calls += nd->calls;
            fs->self_time += nd->self_time;
            if (onpath[nd->func]++ == 0) {
                fs->total += nd->total;
                fs->total_time += nd->total_time;
            }
            stk[sp++] = v | 0x80000000u;
        }
        for (uint32_t c = nd->first_child; c != AN_NONE; c = h->node[c].next_sibling)
            stk[sp++] = c;
    }
    free(ord);
    free(onpath);
    free(stk);
    return 0;
}

static int func_cmp(const void *p, const void *q)
{
    const struct rvt_an_func *x = p, *y = q;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int func_list(struct rvt_analysis *a, const struct an_fstat *fs, struct rvt_an_func **out, size_t *nout)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nfn; i++)
        n += fs[i].self || fs[i].total || fs[i].calls;
    struct rvt_an_func *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return afail(a, RVT_ERR_NOMEM, "out of memory");
    n = 0;
    for (size_t i = 0; i < a->nfn; i++) {
        if (!(fs[i].self || fs[i].total || fs[i].calls))
            continue;
        const struct an_fn *f = &a->fn[i];
        v[n++] = (struct rvt_an_func){.name = f->name,
                                      .addr = f->has_sym ? f->addr : 0,
                                      .size = f->end > f->addr ? f->end - f->addr : 0,
                                      .self = fs[i].self,
                                      .total = fs[i].total,
                                      .calls = fs[i].calls,
                                      .self_time = fs[i].self_time,
                                      .total_time = fs[i].total_time,
                                      .insns_total = fs[i].insns_total,
                                      .insns_hit = fs[i].insns_hit,
                                      .branches_total = fs[i].branches_total,
                                      .branches_both = fs[i].branches_both,
                                      .branches_one = fs[i].branches_one,
                                      .id = (uint32_t)i,
                                      .bblocks_total = fs[i].bblocks_total,
                                      .bblocks_hit = fs[i].bblocks_hit};
    }
    qsort(v, n, sizeof *v, func_cmp);
    *out = v;
    *nout = n;
    return 0;
}

int rvt_an_finish(struct rvt_analysis *a)
{
    if (a->err)
        return a->err;
    if (a->finished)
        return 0;
    int rc = 0;
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS && rc == 0; i++) {
        struct an_hart *h = a->hart[i];
        if (!h)
            continue;
        if ((rc = pop_all(a, h, RVT_AN_END_TRACE)) || (rc = expand_hart(a, h)))
            break;
        for (size_t e = 0; e < h->nev; e++)
            h->ev[e].text = h->ev_toff[e] == SIZE_MAX ? NULL : h->evtext + h->ev_toff[e];
    }
    a->finished = true; /* no more blocks, even after an error */
    a->stop = true;
    if (rc)
        return rc;
    struct sinsn *st = NULL;
    size_t nst = 0;
    if ((rc = merge_insns(a)) || (rc = build_universe(a)) || (rc = static_code(a, &st, &nst)))
        return rc;
    /* Every function id is known once the executed and the static code are
     * resolved: the per-function arrays are sized after that. */
    for (size_t i = 0; i < a->ninsn; i++)
        if (an_fn_of(a, a->insn[i].addr) == AN_NONE)
            rc = afail(a, RVT_ERR_NOMEM, "out of memory");
    if (rc == 0)
        rc = fstat_alloc(a, &a->fstat);
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS && rc == 0; i++)
        if (a->hart[i])
            rc = fstat_alloc(a, &a->hart[i]->fstat);
    if (rc == 0)
        rc = coverage(a, st, nst);
    a->st = st;
    a->nst = nst;
    if (rc)
        return rc;
    if (a->nlines)
        qsort(a->lines, a->nlines, sizeof *a->lines, line_cmp);
    self_counts(a, a->insn, a->ninsn, a->fstat);
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS; i++) {
        struct an_hart *h = a->hart[i];
        if (!h)
            continue;
        self_counts(a, h->insn, h->ninsn, h->fstat);
        if ((rc = tree_totals(a, h)))
            return rc;
        for (size_t f = 0; f < a->nfn; f++) {
            a->fstat[f].total += h->fstat[f].total;
            a->fstat[f].calls += h->fstat[f].calls;
            a->fstat[f].self_time += h->fstat[f].self_time;
            a->fstat[f].total_time += h->fstat[f].total_time;
        }
        if ((rc = func_list(a, h->fstat, &h->funcs, &h->nfuncs)))
            return rc;
        struct rvt_an_summary *s = &a->sum, *t = &h->sum;
        if (t->has_time) {
            if (!s->has_time || t->time_first < s->time_first)
                s->time_first = t->time_first;
            if (!s->has_time || t->time_last > s->time_last)
                s->time_last = t->time_last;
            s->has_time = 1;
        }
        s->insns += t->insns;
        s->blocks += t->blocks;
        s->calls += t->calls;
        s->returns += t->returns;
        s->tail_calls += t->tail_calls;
        s->traps += t->traps;
        s->interrupts += t->interrupts;
        s->trap_returns += t->trap_returns;
        s->unwound += t->unwound;
        s->unmatched += t->unmatched;
        s->depth_overflow += t->depth_overflow;
        s->syncs += t->syncs;
        s->gaps += t->gaps;
        s->errors += t->errors;
        s->spans_dropped += t->spans_dropped;
        s->events_dropped += t->events_dropped;
        if (t->max_depth > s->max_depth)
            s->max_depth = t->max_depth;
        if (t->span_min > s->span_min)
            s->span_min = t->span_min;
    }
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS; i++)
        if (a->hart[i])
            a->hart[i]->sum.span_min = a->hart[i]->span_min;
    return func_list(a, a->fstat, &a->funcs, &a->nfuncs);
}

/* ---- results ------------------------------------------------------------------------------ */

const struct an_hart *an_hart_get(const struct rvt_analysis *a, unsigned hart)
{
    return hart < RVT_AN_MAX_HARTS ? a->hart[hart] : NULL;
}

unsigned an_harts_used(const struct rvt_analysis *a)
{
    unsigned n = 0;
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS; i++)
        n += a->hart[i] != NULL;
    return n;
}

unsigned rvt_an_harts(const struct rvt_analysis *a, unsigned *harts, unsigned max)
{
    unsigned n = 0;
    for (unsigned i = 0; i < RVT_AN_MAX_HARTS; i++)
        if (a->hart[i]) {
            if (n < max)
                harts[n] = i;
            n++;
        }
    return n;
}

static void cov_into(const struct rvt_analysis *a, struct rvt_an_summary *s)
{
    s->funcs_total = a->cov.funcs_total;
    s->funcs_hit = a->cov.funcs_hit;
    s->insns_total = a->cov.insns_total;
    s->insns_hit = a->cov.insns_hit;
    s->lines_total = a->cov.lines_total;
    s->lines_hit = a->cov.lines_hit;
    s->branches_total = a->cov.branches_total;
    s->branches_both = a->cov.branches_both;
    s->branches_taken_only = a->cov.branches_taken_only;
    s->branches_not_taken_only = a->cov.branches_not_taken_only;
    s->bblocks_total = a->cov.bblocks_total;
    s->bblocks_hit = a->cov.bblocks_hit;
}

int rvt_an_summary(const struct rvt_analysis *a, int hart, struct rvt_an_summary *s, size_t size)
{
    struct rvt_an_summary t;
    if (hart < 0) {
        t = a->sum;
    } else {
        const struct an_hart *h = an_hart_get(a, (unsigned)hart);
        if (!h)
            return -RVT_ERR_INVAL;
        t = h->sum;
    }
    cov_into(a, &t);
    memcpy(s, &t, size < sizeof t ? size : sizeof t);
    return 0;
}

const struct rvt_an_func *rvt_an_funcs(const struct rvt_analysis *a, int hart, size_t *n)
{
    if (hart < 0) {
        *n = a->nfuncs;
        return a->funcs;
    }
    const struct an_hart *h = an_hart_get(a, (unsigned)hart);
    *n = h ? h->nfuncs : 0;
    return h ? h->funcs : NULL;
}

const struct rvt_an_node *rvt_an_nodes(const struct rvt_analysis *a, unsigned hart, size_t *n)
{
    const struct an_hart *h = an_hart_get(a, hart);
    *n = h ? h->nnode : 0;
    return h ? h->node : NULL;
}

const struct rvt_an_span *rvt_an_spans(const struct rvt_analysis *a, unsigned hart, size_t *n)
{
    const struct an_hart *h = an_hart_get(a, hart);
    *n = h ? h->nspan : 0;
    return h ? h->span : NULL;
}

const struct rvt_an_event *rvt_an_events(const struct rvt_analysis *a, unsigned hart, size_t *n)
{
    const struct an_hart *h = an_hart_get(a, hart);
    *n = h ? h->nev : 0;
    return h ? h->ev : NULL;
}

const struct rvt_an_insn *rvt_an_insns(const struct rvt_analysis *a, size_t *n)
{
    *n = a->ninsn;
    return a->insn;
}

const struct rvt_an_line *rvt_an_lines(const struct rvt_analysis *a, size_t *n)
{
    *n = a->nlines;
    return a->lines;
}

const struct an_arc *an_arcs(const struct rvt_analysis *a, unsigned hart, size_t *n)
{
    const struct an_hart *h = an_hart_get(a, hart);
    *n = h ? h->narc : 0;
    return h ? h->arc : NULL;
}
