/* Load maps: where a user-mode capture's process had its RISC-V ELF files
 * (the program, the dynamic loader, the shared libraries), written at the
 * end of the capture and read back to load each file where it ran
 * (include/rvtrace/image.h, docs/capture.md "Dynamically linked
 * programs"). */
#include "image/maps.h"
#include "image/image_internal.h"
#include "rvtrace/sink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Linux maps whole pages of 4 KiB (RISC-V's only base page size): a
 * segment's mapping starts at its address and file offset rounded down. */
#define MAP_PAGE ((uint64_t)4096)
#define PAGE_DOWN(x) ((x) & ~(MAP_PAGE - 1))

enum { MAP_PATH_MAX = 4095 };

uint64_t rvt_maps_digest(const uint8_t *p, size_t len, uint64_t h)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

void rvt_maps_free(struct rvt_map_line *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free((char *)v[i].path);
    free(v);
}

/* "0x" and 1-16 hex digits at *p; advances *p. */
static bool hex_field(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    if (end - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    s += 2;
    uint64_t v = 0;
    unsigned nd = 0;
    for (; s < end; s++, nd++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            break;
        if (nd == 16)
            return false;
        v = v << 4 | d;
    }
    if (nd == 0)
        return false;
    *out = v;
    *p = s;
    return true;
}

int rvt_maps_parse(const char *text, size_t len, const char *name, struct rvt_map_line **out, size_t *n,
                   struct rvt_diag *d)
{
    *out = NULL;
    *n = 0;
    struct rvt_map_line *v = NULL;
    size_t nv = 0, cap = 0, line = 0;
    const char *p = text, *const stop = text + len;
    while (p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        const char *e = nl ? nl : stop;
        const char *const l0 = p;
        line++;
        if (e > p && e[-1] == '\r')
            e--;
        if (e == p || *p == '#') {
            p = nl ? nl + 1 : stop;
            continue;
        }
        struct rvt_map_line m = {.line = line};
        uint64_t *const f[5] = {&m.start, &m.end, &m.offset, &m.size, &m.digest};
        bool ok = true;
        for (unsigned k = 0; ok && k < 5; k++)
            ok = hex_field(&p, e, f[k]) && p < e && *p++ == ' ';
        const size_t plen = ok ? (size_t)(e - p) : 0;
        if (!ok || plen == 0 || plen > MAP_PATH_MAX || memchr(p, 0, plen)) {
            rvt_maps_free(v, nv);
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "%s: line %zu (byte offset %zu): expected START END OFFSET SIZE DIGEST PATH "
                            "(five 0x hexadecimal numbers and a path), got '%.*s'",
                            name, line, (size_t)(l0 - text), (int)(e - l0 > 60 ? 60 : e - l0), l0);
        }
        if (m.end <= m.start || PAGE_DOWN(m.start) != m.start || PAGE_DOWN(m.offset) != m.offset) {
            rvt_maps_free(v, nv);
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "%s: line %zu: mapping 0x%" PRIx64 "-0x%" PRIx64 " at offset 0x%" PRIx64
                            " is not a range of whole 4 KiB pages",
                            name, line, m.start, m.end, m.offset);
        }
        if (nv == cap) {
            size_t nc = cap ? 2 * cap : 16;
            struct rvt_map_line *nvp = realloc(v, nc * sizeof *v);
            if (!nvp) {
                rvt_maps_free(v, nv);
                return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", name);
            }
            v = nvp;
            cap = nc;
        }
        char *path = malloc(plen + 1);
        if (!path) {
            rvt_maps_free(v, nv);
            return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", name);
        }
        memcpy(path, p, plen);
        path[plen] = 0;
        m.path = path;
        v[nv++] = m;
        p = nl ? nl + 1 : stop;
    }
    *out = v;
    *n = nv;
    return 0;
}

/* ---- loading -------------------------------------------------------------- */

static int cmp_by_path(const void *a, const void *b)
{
    const struct rvt_map_line *x = *(const struct rvt_map_line *const *)a, *y = *(const struct rvt_map_line *const *)b;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_by_start(const void *a, const void *b)
{
    const struct rvt_map_line *x = *(const struct rvt_map_line *const *)a, *y = *(const struct rvt_map_line *const *)b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Where the file of mappings g[0, n) (lowest address first) was loaded,
 * checked against its segments. */
static int file_bias(const struct img_elf *elf, struct rvt_map_line *const *g, size_t n, const char *map,
                     uint64_t *bias, struct rvt_diag *d)
{
    const struct img_elf_seg *first = NULL;
    for (size_t i = 0; i < elf->nsegs; i++)
        if (!first || elf->segs[i].vaddr < first->vaddr)
            first = &elf->segs[i];
    if (!first)
        return rvt_fail(d, RVT_ERR_FORMAT, "%s: line %zu: %s has no PT_LOAD segment", map, g[0]->line, g[0]->path);
    /* The loader maps the lowest segment lowest (the others follow it at
     * the distances the ELF gives). */
    if (g[0]->offset != PAGE_DOWN(first->file_off))
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "%s: line %zu: the lowest mapping of %s starts at file offset 0x%" PRIx64
                        ", its first segment at 0x%" PRIx64 " (is it the file the capture ran?)",
                        map, g[0]->line, g[0]->path, g[0]->offset, PAGE_DOWN(first->file_off));
    const uint64_t b = g[0]->start - PAGE_DOWN(first->vaddr);
    if (elf->e_type == 2 /* ET_EXEC: its addresses are absolute */ && b != 0)
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "%s: line %zu: %s is not position-independent (ET_EXEC), yet mapped 0x%" PRIx64
                        " bytes from where it was linked",
                        map, g[0]->line, g[0]->path, b);
    for (size_t k = 0; k < n; k++) {
        bool fits = false;
        for (size_t i = 0; !fits && i < elf->nsegs; i++) {
            const struct img_elf_seg *s = &elf->segs[i];
            const uint64_t at = PAGE_DOWN(s->vaddr) + b, top = s->vaddr + b + s->memsz;
            fits = g[k]->start >= at && g[k]->start < top && g[k]->offset == PAGE_DOWN(s->file_off) + (g[k]->start - at);
        }
        if (!fits)
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "%s: line %zu: %s mapped at 0x%" PRIx64 " from file offset 0x%" PRIx64
                            " is none of its segments loaded at 0x%" PRIx64 " (is it the file the capture ran?)",
                            map, g[k]->line, g[k]->path, g[k]->start, g[k]->offset, b);
    }
    *bias = b;
    return 0;
}

/* Load the file of mappings g[0, n) where they put it, after checking it
 * is the file mapped. */
static int load_file(struct rvt_image *img, struct rvt_map_line *const *g, size_t n, const char *map,
                     const char *dir, uint64_t *bias, char *path, size_t path_size)
{
    struct rvt_diag *d = rvt_img_diag(img);
    /* In dir by its name first (a copy of the capture machine's files),
     * else where the map says. */
    const char *base = strrchr(g[0]->path, '/');
    base = base ? base + 1 : g[0]->path;
    struct stat st;
    if (!dir || (size_t)snprintf(path, path_size, "%s/%s", dir, base) >= path_size || stat(path, &st) != 0 ||
        !S_ISREG(st.st_mode))
        snprintf(path, path_size, "%s", g[0]->path);
    for (size_t k = 1; k < n; k++)
        if (g[k]->size != g[0]->size || g[k]->digest != g[0]->digest)
            return rvt_fail(d, RVT_ERR_FORMAT, "%s: lines %zu and %zu give %s two sizes or digests", map, g[0]->line,
                            g[k]->line, path);
    const uint8_t *data;
    size_t len;
    bool mapped;
    struct rvt_diag fd = {0};
    if (rvt_map_file(path, &data, &len, &mapped, &fd) < 0)
        return rvt_fail(d, RVT_ERR_IO, "%s: line %zu: %s", map, g[0]->line, fd.msg);
    int rc = 0;
    if ((uint64_t)len != g[0]->size || rvt_maps_digest(data, len, RVT_MAPS_DIGEST_INIT) != g[0]->digest) {
        rc = rvt_fail(d, RVT_ERR_FORMAT,
                      "%s: line %zu: %s is not the file the capture ran (%zu bytes%s; the map says %" PRIu64
                      " bytes with digest 0x%016" PRIx64 "): give that file (--maps-dir DIR with a copy of it, "
                      "or the map's path edited)",
                      map, g[0]->line, path, len, (uint64_t)len == g[0]->size ? ", another digest" : "", g[0]->size,
                      g[0]->digest);
    } else {
        struct img_elf elf;
        if ((rc = rvt_img_parse_elf(data, len, path, &elf, d)) == 0) {
            rc = file_bias(&elf, g, n, map, bias, d);
            rvt_img_elf_release(&elf);
        }
        if (rc == 0)
            rc = rvt_img_load_elf_mem_at(img, data, len, path, *bias);
    }
    rvt_unmap_file(data, len, mapped);
    return rc;
}

int rvt_img_load_maps(struct rvt_image *img, const char *map_path, const char *dir, const char *program,
                      uint64_t *program_bias)
{
    if (!img || !map_path)
        return -RVT_ERR_INVAL;
    struct rvt_diag *d = rvt_img_diag(img);
    struct stat prog;
    if (program && stat(program, &prog) != 0)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot open: %s", program, strerror(errno));
    const uint8_t *text;
    size_t len;
    bool mapped;
    int rc = rvt_map_file(map_path, &text, &len, &mapped, d);
    if (rc < 0)
        return rc;
    struct rvt_map_line *v;
    size_t n;
    rc = rvt_maps_parse((const char *)text, len, map_path, &v, &n, d);
    rvt_unmap_file(text, len, mapped);
    if (rc < 0)
        return rc;
    struct rvt_map_line **by = malloc((n ? n : 1) * sizeof *by);
    if (!by) {
        rvt_maps_free(v, n);
        return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", map_path);
    }
    for (size_t i = 0; i < n; i++)
        by[i] = &v[i];
    /* One image holds one piece of code at an address: two files mapped
     * over each other at different times (a library closed, another
     * opened in its place) cannot both be loaded. */
    qsort(by, n, sizeof *by, cmp_by_start);
    for (size_t i = 1, top = 0; i < n && rc == 0; i++) {
        if (by[i]->start < by[top]->end && strcmp(by[i]->path, by[top]->path) != 0)
            rc = rvt_fail(d, RVT_ERR_FORMAT,
                          "%s: lines %zu and %zu: %s and %s were both mapped at 0x%" PRIx64
                          " during the run: one image cannot hold both (decode the parts of the trace apart, "
                          "each with a map of its files)",
                          map_path, by[top]->line, by[i]->line, by[top]->path, by[i]->path, by[i]->start);
        if (by[i]->end > by[top]->end)
            top = i;
    }
    qsort(by, n, sizeof *by, cmp_by_path);
    int files = 0;
    bool found = false;
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i + 1;
        while (j < n && strcmp(by[j]->path, by[i]->path) == 0)
            j++;
        uint64_t bias = 0;
        char used[MAP_PATH_MAX + 1 + 4096];
        rc = load_file(img, by + i, j - i, map_path, dir, &bias, used, sizeof used);
        struct stat st;
        if (rc == 0 && program && !found && stat(used, &st) == 0 && st.st_dev == prog.st_dev &&
            st.st_ino == prog.st_ino) {
            found = true;
            *program_bias = bias;
        }
        files++;
        i = j;
    }
    if (rc == 0 && n == 0)
        rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: no mapping (a load map lists at least the program)", map_path);
    if (rc == 0 && program && !found)
        rc = rvt_fail(d, RVT_ERR_INVAL, "%s is not one of the files %s maps (is the map of this program's capture?)",
                      program, map_path);
    free(by);
    rvt_maps_free(v, n);
    return rc < 0 ? rc : files;
}

/* ---- writing (the capture plugin) ------------------------------------------ */

struct seen_file {
    char *path;
    bool riscv;
    uint64_t size, digest;
};

struct held {
    uint64_t lo, hi, off; /* guest addresses */
    size_t file;          /* in seen */
};

struct rvt_maps_acc {
    uint64_t host_minus_guest;
    struct seen_file *seen;
    size_t nseen;
    struct held *v;
    size_t n, cap;
};

struct rvt_maps_acc *rvt_maps_acc_new(uint64_t host_minus_guest)
{
    struct rvt_maps_acc *a = calloc(1, sizeof *a);
    if (a)
        a->host_minus_guest = host_minus_guest;
    return a;
}

void rvt_maps_acc_free(struct rvt_maps_acc *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nseen; i++)
        free(a->seen[i].path);
    free(a->seen);
    free(a->v);
    free(a);
}

/* Whether path is a RISC-V ELF file, and its size and digest. */
static int examine(const char *path, struct seen_file *f, struct rvt_diag *d)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t buf[1 << 16];
    size_t got = fread(buf, 1, sizeof buf, in);
    /* e_machine (offset 18, little-endian) 243: EM_RISCV */
    f->riscv = got >= 20 && memcmp(buf, "\177ELF", 4) == 0 && buf[5] == 1 && buf[18] == 243 && buf[19] == 0;
    f->size = 0;
    f->digest = RVT_MAPS_DIGEST_INIT;
    while (f->riscv && got > 0) {
        f->size += got;
        f->digest = rvt_maps_digest(buf, got, f->digest);
        got = fread(buf, 1, sizeof buf, in);
    }
    const bool bad = ferror(in);
    fclose(in);
    if (bad)
        return rvt_fail(d, RVT_ERR_IO, "%s: read error", path);
    return 0;
}

/* The file `path` (examined the first time it is seen); NULL: out of memory
 * or unreadable (d says which). */
static const struct seen_file *seen_file(struct rvt_maps_acc *a, const char *path, size_t *index, struct rvt_diag *d)
{
    for (size_t i = 0; i < a->nseen; i++)
        if (strcmp(a->seen[i].path, path) == 0)
            return &a->seen[*index = i];
    struct seen_file *ns = realloc(a->seen, (a->nseen + 1) * sizeof *ns);
    if (!ns) {
        rvt_fail(d, RVT_ERR_NOMEM, "out of memory for the load map");
        return NULL;
    }
    a->seen = ns;
    struct seen_file f = {.path = strdup(path)};
    if (!f.path) {
        rvt_fail(d, RVT_ERR_NOMEM, "out of memory for the load map");
        return NULL;
    }
    if (examine(path, &f, d) < 0) {
        free(f.path);
        return NULL;
    }
    a->seen[a->nseen] = f;
    return &a->seen[*index = a->nseen++];
}

int rvt_maps_acc_scan(struct rvt_maps_acc *a, const char *proc_maps, struct rvt_diag *d)
{
    FILE *in = fopen(proc_maps, "r");
    if (!in)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot open: %s", proc_maps, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, added = 0;
    while (rc == 0 && getline(&line, &cap, in) > 0) {
        uint64_t lo, hi, off;
        int path_at = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &lo, &hi, &off, &path_at) != 3 ||
            path_at <= 0 || line[path_at] != '/')
            continue; /* anonymous memory, [heap], [stack] ... */
        char *path = line + path_at;
        path[strcspn(path, "\n")] = 0;
        if (lo < a->host_minus_guest)
            continue; /* below the guest's addresses: the emulator's own */
        lo -= a->host_minus_guest;
        hi -= a->host_minus_guest;
        size_t file;
        const struct seen_file *f = seen_file(a, path, &file, d);
        if (!f) {
            rc = -d->code;
            break;
        }
        if (!f->riscv)
            continue;
        bool held = false;
        for (size_t i = 0; i < a->n && !held; i++)
            held = a->v[i].lo == lo && a->v[i].hi == hi && a->v[i].off == off && a->v[i].file == file;
        if (held)
            continue;
        if (a->n == a->cap) {
            size_t nc = a->cap ? 2 * a->cap : 64;
            struct held *nv = realloc(a->v, nc * sizeof *nv);
            if (!nv) {
                rc = rvt_fail(d, RVT_ERR_NOMEM, "out of memory for the load map");
                break;
            }
            a->v = nv;
            a->cap = nc;
        }
        a->v[a->n++] = (struct held){lo, hi, off, file};
        added++;
    }
    free(line);
    fclose(in);
    return rc < 0 ? rc : added;
}

bool rvt_maps_acc_covers(const struct rvt_maps_acc *a, uint64_t addr)
{
    for (size_t i = 0; i < a->n; i++)
        if (addr - a->v[i].lo < a->v[i].hi - a->v[i].lo)
            return true;
    return false;
}

static int held_cmp(const void *x, const void *y)
{
    const struct held *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : a->hi > b->hi;
}

int rvt_maps_acc_write(struct rvt_maps_acc *a, const char *out_path, struct rvt_diag *d)
{
    FILE *out = fopen(out_path, "w");
    if (!out)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot create: %s", out_path, strerror(errno));
    qsort(a->v, a->n, sizeof *a->v, held_cmp);
    fprintf(out, "# rvtrace load map: START END OFFSET SIZE DIGEST PATH of each mapping of a RISC-V ELF file\n"
                 "# the process had at some time (give it to decode, check, verify ... as --maps FILE)\n");
    for (size_t i = 0; i < a->n; i++) {
        const struct seen_file *f = &a->seen[a->v[i].file];
        fprintf(out, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%016" PRIx64 " %s\n", a->v[i].lo,
                a->v[i].hi, a->v[i].off, f->size, f->digest, f->path);
    }
    if (fclose(out) != 0)
        return rvt_fail(d, RVT_ERR_IO, "%s: write error", out_path);
    return (int)a->n;
}
