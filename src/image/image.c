/* The code image: segments from ELF files and raw binaries, a reader
 * callback for everything else, symbols, and single-instruction decode.
 *
 * Segments may overlap (the one added last wins), so after every addition
 * the image rebuilds a flat, sorted map of disjoint address ranges, each
 * naming the area that owns it; lookups are a binary search in that map.
 * The image is never modified by a lookup, so it can be shared by threads.
 */
#include "image/image_internal.h"

#include <inttypes.h>

#include "rvtrace/sink.h"

#include <stdlib.h>
#include <string.h>

/* A mapped address range: file bytes of a segment, or the zero-filled rest
 * of an ELF segment (data == NULL: reads give zeros, never code). */
struct area {
    uint64_t start, end; /* end exclusive, start < end */
    const uint8_t *data;
    bool exec;
};

/* One disjoint piece of the address space and the area that owns it. */
struct range {
    uint64_t start, end;
    uint32_t area;
};

struct rvt_image {
    struct rvt_diag diag;
    unsigned xlen_set, xlen_elf;
    bool have_elf;
    uint64_t entry;

    struct area *areas;
    size_t nareas, cap_areas;
    struct range *map;
    size_t nmap;

    struct rvt_segment *segs; /* public list: segments with contents */
    size_t nsegs, cap_segs;

    /* Symbols sorted by (address, preference); index arrays for lookups. */
    struct rvt_symbol *syms;
    uint8_t *sym_rank; /* parallel to syms: enum img_sym_rank * 4 + binding rank */
    size_t nsyms;
    uint32_t *func_idx, *other_idx, *name_idx;
    uint64_t *func_maxend, *other_maxend; /* prefix maxima of symbol ends */
    size_t nfunc, nother;

    void **owned; /* blobs, name pools: freed with the image */
    size_t nowned, cap_owned;

    rvt_img_read_fn reader;
    void *reader_ctx;
    rvt_img_demangle_fn demangle; /* set by rvt_img_demangle: names shown demangled */
};

struct rvt_image *rvt_img_new(void)
{
    return calloc(1, sizeof(struct rvt_image));
}

static void free_symbol_index(struct rvt_image *img)
{
    free(img->func_idx);
    free(img->other_idx);
    free(img->name_idx);
    free(img->func_maxend);
    free(img->other_maxend);
    img->func_idx = img->other_idx = img->name_idx = NULL;
    img->func_maxend = img->other_maxend = NULL;
}

void rvt_img_free(struct rvt_image *img)
{
    if (!img)
        return;
    for (size_t i = 0; i < img->nowned; i++)
        free(img->owned[i]);
    free(img->owned);
    free(img->areas);
    free(img->map);
    free(img->segs);
    free(img->syms);
    free(img->sym_rank);
    free_symbol_index(img);
    free(img);
}

const char *rvt_img_error(const struct rvt_image *img)
{
    return img && img->diag.code ? img->diag.msg : "";
}

/* ---- growable arrays ---------------------------------------------------- */

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem)
            return -RVT_ERR_NOMEM;
        n *= 2;
    }
    void *q = realloc(*p, n * elem);
    if (!q)
        return -RVT_ERR_NOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* ---- the range map ------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t dsu_find(size_t *parent, size_t k)
{
    size_t root = k;
    while (parent[root] != root)
        root = parent[root];
    while (parent[k] != root) { /* path compression */
        size_t n = parent[k];
        parent[k] = root;
        k = n;
    }
    return root;
}

static size_t point_index(const uint64_t *pts, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n; /* v is one of pts */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pts[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Build the disjoint map of areas[0..n): cut the address space at every
 * area boundary, then paint the elementary pieces from the newest area to
 * the oldest, each piece taken by the first (newest) area covering it.  A
 * union-find "next unpainted piece" makes this O(n log n) for n areas. */
static int build_map(const struct area *areas, size_t n, struct range **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (n == 0)
        return 0;
    uint64_t *pts = malloc(2 * n * sizeof *pts);
    size_t *parent = malloc((2 * n + 1) * sizeof *parent);
    uint32_t *owner = malloc(2 * n * sizeof *owner);
    struct range *map = malloc(2 * n * sizeof *map);
    if (!pts || !parent || !owner || !map) {
        free(pts);
        free(parent);
        free(owner);
        free(map);
        return -RVT_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        pts[2 * i] = areas[i].start;
        pts[2 * i + 1] = areas[i].end;
    }
    qsort(pts, 2 * n, sizeof *pts, cmp_u64);
    size_t npts = 0;
    for (size_t i = 0; i < 2 * n; i++)
        if (npts == 0 || pts[npts - 1] != pts[i])
            pts[npts++] = pts[i];
    size_t npieces = npts - 1; /* piece k = [pts[k], pts[k+1]) */
    for (size_t k = 0; k <= npieces; k++) {
        parent[k] = k;
        if (k < npieces)
            owner[k] = UINT32_MAX;
    }
    for (size_t i = n; i-- > 0;) {
        size_t k = dsu_find(parent, point_index(pts, npts, areas[i].start));
        size_t kend = point_index(pts, npts, areas[i].end);
        while (k < kend) {
            owner[k] = (uint32_t)i;
            parent[k] = k + 1;
            k = dsu_find(parent, k + 1);
        }
    }
    size_t nmap = 0;
    for (size_t k = 0; k < npieces; k++) {
        if (owner[k] == UINT32_MAX)
            continue;
        if (nmap && map[nmap - 1].area == owner[k] && map[nmap - 1].end == pts[k])
            map[nmap - 1].end = pts[k + 1];
        else
            map[nmap++] = (struct range){pts[k], pts[k + 1], owner[k]};
    }
    free(pts);
    free(parent);
    free(owner);
    *out = map;
    *nout = nmap;
    return 0;
}

static void install_map(struct rvt_image *img, struct range *map, size_t nmap)
{
    free(img->map);
    img->map = map;
    img->nmap = nmap;
}

/* The map range containing addr, or NULL; *next_start receives the start
 * of the first range above addr (UINT64_MAX if none) for gap lengths. */
static const struct range *find_range(const struct rvt_image *img, uint64_t addr,
                                      uint64_t *next_start)
{
    size_t lo = 0, hi = img->nmap; /* first range with start > addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (img->map[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (next_start)
        *next_start = lo < img->nmap ? img->map[lo].start : UINT64_MAX;
    if (lo > 0 && addr < img->map[lo - 1].end)
        return &img->map[lo - 1];
    return NULL;
}

/* Copy bytes at addr: from areas (all, or executable ones only) and, where
 * no area maps an address, from the reader callback (which supplies code). */
static size_t copy_bytes(const struct rvt_image *img, uint64_t addr, uint8_t *buf, size_t len,
                         bool code_only)
{
    size_t got = 0;
    while (got < len) {
        uint64_t a = addr + got;
        if (a < addr) /* wrapped past the top of the address space */
            break;
        uint64_t next_start;
        const struct range *r = find_range(img, a, &next_start);
        if (!r) {
            if (!img->reader)
                break;
            size_t want = len - got;
            bool gap_limited = next_start - a < want;
            if (gap_limited)
                want = (size_t)(next_start - a);
            size_t n = img->reader(img->reader_ctx, a, buf + got, want);
            got += n < want ? n : want;
            if (n < want || !gap_limited)
                break; /* the reader has no more here, or the request is complete */
            continue;  /* the reader filled the gap: a segment follows */
        }
        const struct area *ar = &img->areas[r->area];
        if (code_only && !ar->exec)
            break;
        size_t n = len - got;
        if (r->end - a < n)
            n = (size_t)(r->end - a);
        if (ar->data)
            memcpy(buf + got, ar->data + (a - ar->start), n);
        else
            memset(buf + got, 0, n);
        got += n;
    }
    return got;
}

const uint8_t *rvt_img_code_span(const struct rvt_image *img, uint64_t addr, size_t *avail)
{
    const struct range *r = find_range(img, addr, NULL);
    if (!r || !img->areas[r->area].exec || !img->areas[r->area].data)
        return NULL;
    const struct area *ar = &img->areas[r->area];
    uint64_t n = r->end - addr;
    *avail = n > SIZE_MAX ? SIZE_MAX : (size_t)n;
    return ar->data + (addr - ar->start);
}

size_t rvt_img_read(const struct rvt_image *img, uint64_t addr, void *buf, size_t len)
{
    return copy_bytes(img, addr, buf, len, false);
}

size_t rvt_img_fetch_code(const struct rvt_image *img, uint64_t addr, uint8_t *buf, size_t len)
{
    return copy_bytes(img, addr, buf, len, true);
}

int rvt_img_insn(const struct rvt_image *img, uint64_t addr, struct rvt_insn *out)
{
    uint8_t b[4] = {0, 0, 0, 0};
    size_t n = rvt_img_read(img, addr, b, sizeof b);
    unsigned xlen = rvt_img_xlen(img);
    if (n < 2)
        return -RVT_ERR_NOCODE;
    uint16_t low = (uint16_t)(b[0] | b[1] << 8);
    unsigned len = rvt_isa_length(low);
    /* A 16-bit instruction may end a segment; longer ones need all their bytes. */
    if (len != 2 && n < 4)
        return -RVT_ERR_NOCODE;
    uint32_t bits = len == 2 ? low : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                                         (uint32_t)b[3] << 24;
    return rvt_isa_decode(bits, addr, xlen, out);
}

/* ---- adding code -------------------------------------------------------- */

/* Room for `more` areas and public segments, so that committing cannot fail
 * half-way. */
static int reserve_segments(struct rvt_image *img, size_t more_areas, size_t more_segs)
{
    if (reserve((void **)&img->areas, &img->cap_areas, img->nareas + more_areas,
                sizeof *img->areas) < 0 ||
        reserve((void **)&img->segs, &img->cap_segs, img->nsegs + more_segs, sizeof *img->segs) <
            0 ||
        reserve((void **)&img->owned, &img->cap_owned, img->nowned + 2, sizeof(void *)) < 0)
        return -RVT_ERR_NOMEM;
    return 0;
}

int rvt_img_add_raw(struct rvt_image *img, uint64_t addr, const void *data, size_t len,
                    const char *name)
{
    if (!img || (!data && len))
        return -RVT_ERR_INVAL;
    char autoname[40];
    if (!name) {
        snprintf(autoname, sizeof autoname, "raw@0x%llx", (unsigned long long)addr);
        name = autoname;
    }
    if (len == 0)
        return rvt_fail(&img->diag, RVT_ERR_INVAL, "%s: empty binary at 0x%llx", name,
                        (unsigned long long)addr);
    if (len > UINT64_MAX - addr)
        return rvt_fail(&img->diag, RVT_ERR_INVAL,
                        "%s: 0x%zx bytes at 0x%llx run past the end of the address space", name,
                        len, (unsigned long long)addr);
    size_t nlen = strlen(name) + 1;
    uint8_t *blob = len <= SIZE_MAX - nlen ? malloc(len + nlen) : NULL;
    if (!blob || reserve_segments(img, 1, 1) < 0) {
        free(blob);
        return rvt_fail(&img->diag, RVT_ERR_NOMEM, "%s: out of memory for 0x%zx bytes", name, len);
    }
    memcpy(blob, data, len);
    memcpy(blob + len, name, nlen);
    img->owned[img->nowned++] = blob;
    img->areas[img->nareas++] = (struct area){addr, addr + len, blob, true};
    img->segs[img->nsegs++] =
        (struct rvt_segment){addr, len, blob, 1, (const char *)blob + len};
    struct range *map;
    size_t nmap;
    if (build_map(img->areas, img->nareas, &map, &nmap) < 0) {
        img->nareas--;
        img->nsegs--;
        img->nowned--;
        free(blob);
        return rvt_fail(&img->diag, RVT_ERR_NOMEM, "%s: out of memory", name);
    }
    install_map(img, map, nmap);
    return 0;
}

int rvt_img_add_raw_file(struct rvt_image *img, uint64_t addr, const char *path)
{
    if (!img || !path)
        return -RVT_ERR_INVAL;
    const uint8_t *data;
    size_t len;
    bool mapped;
    int e = rvt_map_file(path, &data, &len, &mapped, &img->diag);
    if (e < 0)
        return e;
    e = rvt_img_add_raw(img, addr, data, len, path);
    rvt_unmap_file(data, len, mapped);
    return e;
}

void rvt_img_set_reader(struct rvt_image *img, rvt_img_read_fn fn, void *ctx)
{
    img->reader = fn;
    img->reader_ctx = ctx;
}

/* ---- symbols -------------------------------------------------------------- */

/* A symbol and its preference (function, code label, object, other;
 * global, weak, local). */
struct sym_sort {
    struct rvt_symbol s;
    uint8_t rank;
};

/* The symbol tables are sorted as indices, by a merge sort whose order is
 * inlined: qsort's calls through a function pointer and its moves of
 * 40-byte elements were half of what an ELF load cost (a static glibc
 * program has thousands of symbols).  The orders are total (the index
 * last), so the result does not depend on the sort. */

/* Address, then preference, then name, then the order given. */
static inline bool sym_before(const struct sym_sort *all, uint32_t a, uint32_t b)
{
    const struct sym_sort *x = &all[a], *y = &all[b];
    if (x->s.addr != y->s.addr)
        return x->s.addr < y->s.addr;
    if (x->rank != y->rank)
        return x->rank < y->rank;
    int c = strcmp(x->s.name, y->s.name);
    return c ? c < 0 : a < b;
}

/* Name, then the lower index (the preferred symbol of that name). */
static inline bool name_before(const struct rvt_symbol *syms, uint32_t a, uint32_t b)
{
    int c = strcmp(syms[a].name, syms[b].name);
    return c ? c < 0 : a < b;
}

/* Sort v[0..n) (tmp: room for n) by sym_before (all) or name_before (syms). */
static inline void sort_indices(uint32_t *v, uint32_t *tmp, size_t n, const struct sym_sort *all,
                                const struct rvt_symbol *syms)
{
    uint32_t *from = v, *to = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            const size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                const bool right = all ? sym_before(all, from[j], from[i]) : name_before(syms, from[j], from[i]);
                to[k++] = right ? from[j++] : from[i++];
            }
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, n * sizeof *v);
}

static uint64_t sym_end(const struct rvt_symbol *s)
{
    uint64_t size = s->size ? s->size : 1; /* a zero-size symbol names its own address */
    return size > UINT64_MAX - s->addr ? UINT64_MAX : s->addr + size;
}

static bool sym_contains(const struct rvt_symbol *s, uint64_t addr)
{
    return addr >= s->addr && (addr - s->addr < s->size || addr == s->addr);
}

/* Merge `add` new symbols into the image and rebuild every index.  On
 * failure the image keeps its previous symbols. */
static int merge_symbols(struct rvt_image *img, const struct sym_sort *add, size_t nadd)
{
    size_t n = img->nsyms + nadd;
    if (n > UINT32_MAX)
        return -RVT_ERR_NOMEM;
    struct sym_sort *all = malloc((n ? n : 1) * sizeof *all);
    struct rvt_symbol *syms = malloc((n ? n : 1) * sizeof *syms);
    uint8_t *rank = malloc(n ? n : 1);
    uint32_t *fidx = malloc((n ? n : 1) * sizeof *fidx);
    uint32_t *oidx = malloc((n ? n : 1) * sizeof *oidx);
    uint64_t *fmax = malloc((n ? n : 1) * sizeof *fmax);
    uint64_t *omax = malloc((n ? n : 1) * sizeof *omax);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    uint32_t *nidx = malloc((n ? n : 1) * sizeof *nidx);
    if (!all || !syms || !rank || !fidx || !oidx || !fmax || !omax || !order || !tmp || !nidx) {
        free(all);
        free(syms);
        free(rank);
        free(fidx);
        free(oidx);
        free(fmax);
        free(omax);
        free(order);
        free(tmp);
        free(nidx);
        return -RVT_ERR_NOMEM;
    }
    for (size_t i = 0; i < img->nsyms; i++)
        all[i] = (struct sym_sort){img->syms[i], img->sym_rank[i]};
    memcpy(all + img->nsyms, add, nadd * sizeof *add);
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    sort_indices(order, tmp, n, all, NULL);
    size_t nf = 0, no = 0;
    uint64_t fm = 0, om = 0;
    for (size_t i = 0; i < n; i++) {
        syms[i] = all[order[i]].s;
        rank[i] = all[order[i]].rank;
        uint64_t end = sym_end(&syms[i]);
        if (syms[i].is_func) {
            fm = end > fm ? end : fm;
            fmax[nf] = fm;
            fidx[nf++] = (uint32_t)i;
        } else {
            om = end > om ? end : om;
            omax[no] = om;
            oidx[no++] = (uint32_t)i;
        }
        /* Same name at several addresses: the preferred kind first, then
         * the lowest address. */
        nidx[i] = (uint32_t)i;
    }
    sort_indices(nidx, tmp, n, NULL, syms);
    free(order);
    free(tmp);
    free(all);
    free(img->syms);
    free(img->sym_rank);
    free_symbol_index(img);
    img->syms = syms;
    img->sym_rank = rank;
    img->nsyms = n;
    img->func_idx = fidx;
    img->other_idx = oidx;
    img->func_maxend = fmax;
    img->other_maxend = omax;
    img->nfunc = nf;
    img->nother = no;
    img->name_idx = nidx;
    return 0;
}

/* Last position in idx[0..n) whose symbol starts at or below addr, or -1. */
static ptrdiff_t last_at_or_below(const struct rvt_image *img, const uint32_t *idx, size_t n,
                                  uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (img->syms[idx[mid]].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

/* The innermost symbol of one kind containing addr (the latest start; among
 * symbols at that start, the preferred one). */
static const struct rvt_symbol *containing(const struct rvt_image *img, const uint32_t *idx,
                                           const uint64_t *maxend, size_t n, uint64_t addr)
{
    const struct rvt_symbol *best = NULL;
    for (ptrdiff_t i = last_at_or_below(img, idx, n, addr); i >= 0; i--) {
        if (maxend[i] <= addr && !(maxend[i] == UINT64_MAX && addr == UINT64_MAX))
            break; /* nothing at or before i reaches addr */
        const struct rvt_symbol *s = &img->syms[idx[i]];
        if (best && s->addr != best->addr)
            break;
        if (sym_contains(s, addr))
            best = s; /* walking back over equal starts reaches the preferred one last */
    }
    return best;
}

const struct rvt_symbol *rvt_img_symbol_at(const struct rvt_image *img, uint64_t addr)
{
    const struct rvt_symbol *s =
        containing(img, img->func_idx, img->func_maxend, img->nfunc, addr);
    if (!s)
        s = containing(img, img->other_idx, img->other_maxend, img->nother, addr);
    if (s)
        return s;
    ptrdiff_t i = last_at_or_below(img, img->func_idx, img->nfunc, addr);
    if (i < 0)
        return NULL;
    /* Several functions may start there: the first in sort order is preferred. */
    while (i > 0 && img->syms[img->func_idx[i - 1]].addr == img->syms[img->func_idx[i]].addr)
        i--;
    /* A function whose size says it ends before addr does not hold it: the
     * code there has no symbol (a stripped shared library's internal
     * functions lie between the exported ones; naming the exported one
     * before them would make a profile charge them to it). */
    if (img->syms[img->func_idx[i]].size != 0)
        return NULL;
    return &img->syms[img->func_idx[i]];
}

static const struct rvt_symbol *named(const struct rvt_image *img, const char *name);

const struct rvt_symbol *rvt_img_symbol_named(const struct rvt_image *img, const char *name)
{
    const struct rvt_symbol *s = named(img, name);
    if (s || !img->demangle)
        return s;
    /* a name as the file has it, of a symbol shown demangled */
    char *d = img->demangle(name);
    if (d) {
        s = named(img, d);
        free(d);
    }
    return s;
}

int rvt_img_demangle(struct rvt_image *img, rvt_img_demangle_fn fn)
{
    if (!img || !fn)
        return -RVT_ERR_INVAL;
    char **d = calloc(img->nsyms ? img->nsyms : 1, sizeof *d);
    uint32_t *tmp = malloc((img->nsyms ? img->nsyms : 1) * sizeof *tmp);
    size_t total = 0;
    int rc = d && tmp && reserve((void **)&img->owned, &img->cap_owned, img->nowned + 1, sizeof(void *)) == 0
                 ? 0
                 : -RVT_ERR_NOMEM;
    for (size_t i = 0; rc == 0 && i < img->nsyms; i++) {
        /* The Itanium C++ ABI's names (the others are left as they are). */
        if (strncmp(img->syms[i].name, "_Z", 2) == 0 && (d[i] = fn(img->syms[i].name)) != NULL)
            total += strlen(d[i]) + 1;
    }
    char *pool = rc == 0 && total ? malloc(total) : NULL;
    if (total && !pool)
        rc = -RVT_ERR_NOMEM;
    for (size_t i = 0, at = 0; rc == 0 && i < img->nsyms; i++) {
        if (!d[i])
            continue;
        const size_t n = strlen(d[i]) + 1;
        memcpy(pool + at, d[i], n);
        img->syms[i].name = pool + at;
        at += n;
    }
    for (size_t i = 0; d && i < img->nsyms; i++)
        free(d[i]);
    free(d);
    if (rc == 0) {
        if (pool)
            img->owned[img->nowned++] = pool;
        for (size_t i = 0; i < img->nsyms; i++)
            img->name_idx[i] = (uint32_t)i;
        sort_indices(img->name_idx, tmp, img->nsyms, NULL, img->syms);
        img->demangle = fn;
    }
    free(tmp);
    return rc < 0 ? rvt_fail(&img->diag, RVT_ERR_NOMEM, "out of memory demangling the symbols") : 0;
}

static const struct rvt_symbol *named(const struct rvt_image *img, const char *name)
{
    size_t lo = 0, hi = img->nsyms; /* first entry with name >= `name` */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(img->syms[img->name_idx[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < img->nsyms && strcmp(img->syms[img->name_idx[lo]].name, name) == 0)
        return &img->syms[img->name_idx[lo]];
    return NULL;
}

size_t rvt_img_symbol_count(const struct rvt_image *img)
{
    return img->nsyms;
}

const struct rvt_symbol *rvt_img_symbol_index(const struct rvt_image *img, size_t i)
{
    return i < img->nsyms ? &img->syms[i] : NULL;
}

/* ---- ELF ------------------------------------------------------------------ */

int rvt_img_load_elf_mem(struct rvt_image *img, const void *buf, size_t len, const char *name)
{
    return rvt_img_load_elf_mem_at(img, buf, len, name, 0);
}

int rvt_img_load_elf_mem_at(struct rvt_image *img, const void *buf, size_t len, const char *name, uint64_t bias)
{
    if (!img || (!buf && len))
        return -RVT_ERR_INVAL;
    if (!name)
        name = "(memory)";
    struct img_elf elf;
    int e = rvt_img_parse_elf(buf, len, name, &elf, &img->diag);
    if (e < 0)
        return e;
    /* Loaded at bias: every segment must still lie in the address space. */
    const uint64_t top = elf.xlen == 32 ? 0xffffffffull : UINT64_MAX;
    for (size_t i = 0; bias && i < elf.nsegs; i++) {
        const struct img_elf_seg *s = &elf.segs[i];
        if (s->vaddr + bias < s->vaddr || s->vaddr + bias > top || (s->memsz && s->memsz - 1 > top - (s->vaddr + bias))) {
            rvt_fail(&img->diag, RVT_ERR_INVAL,
                     "%s: loaded at 0x%" PRIx64 ", segment %u (0x%" PRIx64 ", 0x%" PRIx64
                     " bytes) leaves the %u-bit address space",
                     name, bias, s->phdr_index, s->vaddr, s->memsz, elf.xlen);
            rvt_img_elf_release(&elf);
            return -RVT_ERR_INVAL;
        }
    }
    for (size_t i = 0; i < elf.nsegs; i++)
        elf.segs[i].vaddr += bias;
    for (size_t i = 0; i < elf.nsyms; i++)
        elf.syms[i].addr = (elf.syms[i].addr + bias) & top;
    elf.entry = (elf.entry + bias) & top;

    /* One copy of the file bytes the segments use (segments may share or
     * overlap file ranges, so copying per segment could blow up), then the
     * symbol string table (names point into it), then segment names.  Each
     * part is bounded by the file size. */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < elf.nsegs; i++) {
        const struct img_elf_seg *s = &elf.segs[i];
        if (s->filesz == 0)
            continue;
        lo = s->file_off < lo ? s->file_off : lo;
        hi = s->file_off + s->filesz > hi ? s->file_off + s->filesz : hi;
    }
    if (hi == 0)
        lo = 0;
    size_t namelen = strlen(name);
    size_t seg_name_size = namelen + 16; /* "<name>:seg<u32>" */
    size_t file_part = (size_t)(hi - lo), str_part = (size_t)elf.strtab_size;
    size_t total = file_part + str_part + elf.nsegs * seg_name_size;
    uint8_t *blob = malloc(total ? total : 1);
    struct sym_sort *add = malloc((elf.nsyms ? elf.nsyms : 1) * sizeof *add);
    struct range *map = NULL;
    size_t nmap = 0;
    if (!blob || !add || reserve_segments(img, 2 * elf.nsegs, elf.nsegs) < 0)
        goto nomem;
    memcpy(blob, (const uint8_t *)buf + lo, file_part);
    const char *strtab = (const char *)blob + file_part;
    if (str_part)
        memcpy(blob + file_part, elf.strtab, str_part);
    char *names = (char *)blob + file_part + str_part;
    for (size_t i = 0; i < elf.nsyms; i++) {
        const struct img_elf_sym *y = &elf.syms[i];
        add[i].s = (struct rvt_symbol){y->addr, y->size, strtab + y->name_off,
                                       y->rank == IMG_RANK_FUNC || y->rank == IMG_RANK_CODE_LABEL};
        add[i].rank = (uint8_t)(y->rank * 4 + y->binding_rank);
    }

    size_t old_areas = img->nareas, old_segs = img->nsegs;
    for (size_t i = 0; i < elf.nsegs; i++) {
        const struct img_elf_seg *s = &elf.segs[i];
        if (s->filesz) {
            const uint8_t *data = blob + (s->file_off - lo);
            snprintf(names, seg_name_size, "%s:seg%u", name, s->phdr_index);
            img->areas[img->nareas++] = (struct area){s->vaddr, s->vaddr + s->filesz, data, s->exec};
            img->segs[img->nsegs++] =
                (struct rvt_segment){s->vaddr, s->filesz, data, s->exec, names};
            names += seg_name_size;
        }
        /* The zero-filled rest (.bss) is readable but never code. */
        if (s->memsz > s->filesz)
            img->areas[img->nareas++] =
                (struct area){s->vaddr + s->filesz, s->vaddr + s->memsz, NULL, false};
    }
    if (build_map(img->areas, img->nareas, &map, &nmap) < 0 ||
        merge_symbols(img, add, elf.nsyms) < 0) {
        img->nareas = old_areas;
        img->nsegs = old_segs;
        goto nomem;
    }
    install_map(img, map, nmap);
    img->owned[img->nowned++] = blob;
    if (!img->have_elf) {
        img->have_elf = true;
        img->xlen_elf = elf.xlen;
        img->entry = elf.entry;
    }
    free(add);
    rvt_img_elf_release(&elf);
    return 0;

nomem:
    free(map);
    free(blob);
    free(add);
    rvt_img_elf_release(&elf);
    return rvt_fail(&img->diag, RVT_ERR_NOMEM, "%s: out of memory loading the image", name);
}

int rvt_img_load_elf(struct rvt_image *img, const char *path)
{
    return rvt_img_load_elf_at(img, path, 0);
}

int rvt_img_load_elf_at(struct rvt_image *img, const char *path, uint64_t bias)
{
    if (!img || !path)
        return -RVT_ERR_INVAL;
    const uint8_t *data;
    size_t len;
    bool mapped;
    int e = rvt_map_file(path, &data, &len, &mapped, &img->diag);
    if (e < 0)
        return e;
    e = rvt_img_load_elf_mem_at(img, data, len, path, bias);
    rvt_unmap_file(data, len, mapped);
    return e;
}

struct rvt_diag *rvt_img_diag(struct rvt_image *img)
{
    return &img->diag;
}

/* ---- properties ------------------------------------------------------------ */

unsigned rvt_img_xlen(const struct rvt_image *img)
{
    if (img->xlen_set)
        return img->xlen_set;
    return img->have_elf ? img->xlen_elf : 64;
}

void rvt_img_set_xlen(struct rvt_image *img, unsigned xlen)
{
    if (xlen == 32 || xlen == 64)
        img->xlen_set = xlen;
}

uint64_t rvt_img_entry(const struct rvt_image *img)
{
    return img->entry;
}

size_t rvt_img_segment_count(const struct rvt_image *img)
{
    return img->nsegs;
}

const struct rvt_segment *rvt_img_segment(const struct rvt_image *img, size_t i)
{
    return i < img->nsegs ? &img->segs[i] : NULL;
}
