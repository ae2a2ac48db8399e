/* Source lines: the DWARF line tables of a program, read once with elfutils
 * libdw into one address-sorted array of ranges.  libdw is optional at
 * build time (RVT_HAVE_LIBDW); without it the loaders say so. */
#include "rvtrace/analysis.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifdef RVT_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#endif

struct row {
    uint64_t addr, end;
    uint32_t file, line;
};

struct rvt_srclines {
    struct row *rows;
    size_t nrows, caprows;
    char **files;
    size_t nfiles, capfiles;
    /* file name -> index, open addressing over `files` */
    uint32_t *fmap;
    size_t fmap_cap;
};

int rvt_srclines_supported(void)
{
#ifdef RVT_HAVE_LIBDW
    return 1;
#else
    return 0;
#endif
}

int rvt_srclines_rebase(struct rvt_srclines *s, uint64_t bias)
{
    /* (the last row ends highest: rows are sorted and do not overlap) */
    if (!s || (s->nrows && s->rows[s->nrows - 1].end + bias < s->rows[s->nrows - 1].end))
        return -RVT_ERR_INVAL;
    for (size_t i = 0; i < s->nrows; i++) {
        s->rows[i].addr += bias;
        s->rows[i].end += bias;
    }
    return 0;
}

void rvt_srclines_free(struct rvt_srclines *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    free(s->files);
    free(s->fmap);
    free(s->rows);
    free(s);
}

size_t rvt_srclines_count(const struct rvt_srclines *s)
{
    return s ? s->nrows : 0;
}

size_t rvt_srclines_files(const struct rvt_srclines *s)
{
    return s ? s->nfiles : 0;
}

const char *rvt_srclines_file(const struct rvt_srclines *s, uint32_t file_id)
{
    return s && file_id < s->nfiles ? s->files[file_id] : NULL;
}

static void fill(const struct rvt_srclines *s, const struct row *r, struct rvt_srcline *out)
{
    out->file = s->files[r->file];
    out->file_id = r->file;
    out->line = r->line;
    out->addr = r->addr;
    out->end = r->end;
}

int rvt_srclines_row(const struct rvt_srclines *s, size_t i, struct rvt_srcline *out)
{
    if (!s || i >= s->nrows)
        return 0;
    fill(s, &s->rows[i], out);
    return 1;
}

int rvt_srclines_find(const struct rvt_srclines *s, uint64_t addr, struct rvt_srcline *out)
{
    if (!s || !s->nrows)
        return 0;
    size_t lo = 0, hi = s->nrows; /* first row with addr > `addr` */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->rows[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= s->rows[lo - 1].end)
        return 0;
    fill(s, &s->rows[lo - 1], out);
    return 1;
}

#ifdef RVT_HAVE_LIBDW

static uint64_t str_hash(const char *p)
{
    uint64_t h = 1469598103934665603ull;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* Index of file name `name` (interned). */
static int file_id(struct rvt_srclines *s, const char *name, uint32_t *id)
{
    if (s->nfiles * 2 >= s->fmap_cap) {
        size_t cap = s->fmap_cap ? s->fmap_cap * 2 : 64;
        uint32_t *m = malloc(cap * sizeof *m);
        if (!m)
            return -RVT_ERR_NOMEM;
        memset(m, 0xff, cap * sizeof *m);
        for (size_t i = 0; i < s->nfiles; i++) {
            size_t k = str_hash(s->files[i]) & (cap - 1);
            while (m[k] != UINT32_MAX)
                k = (k + 1) & (cap - 1);
            m[k] = (uint32_t)i;
        }
        free(s->fmap);
        s->fmap = m;
        s->fmap_cap = cap;
    }
    size_t k = str_hash(name) & (s->fmap_cap - 1);
    while (s->fmap[k] != UINT32_MAX) {
        if (strcmp(s->files[s->fmap[k]], name) == 0) {
            *id = s->fmap[k];
            return 0;
        }
        k = (k + 1) & (s->fmap_cap - 1);
    }
    if (s->nfiles == s->capfiles) {
        size_t cap = s->capfiles ? s->capfiles * 2 : 32;
        char **f = realloc(s->files, cap * sizeof *f);
        if (!f)
            return -RVT_ERR_NOMEM;
        s->files = f;
        s->capfiles = cap;
    }
    char *copy = malloc(strlen(name) + 1);
    if (!copy)
        return -RVT_ERR_NOMEM;
    strcpy(copy, name);
    s->files[s->nfiles] = copy;
    s->fmap[k] = (uint32_t)s->nfiles;
    *id = (uint32_t)s->nfiles++;
    return 0;
}

static int add_row(struct rvt_srclines *s, uint64_t addr, uint64_t end, uint32_t file, uint32_t line)
{
    if (s->nrows == s->caprows) {
        size_t cap = s->caprows ? s->caprows * 2 : 1024;
        struct row *r = realloc(s->rows, cap * sizeof *r);
        if (!r)
            return -RVT_ERR_NOMEM;
        s->rows = r;
        s->caprows = cap;
    }
    s->rows[s->nrows++] = (struct row){addr, end, file, line};
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* One compilation unit's line program: each row covers the addresses up to
 * the next row of its sequence (DWARF 5, 6.2.2: "each row ... the address
 * range up to the next row"); the end_sequence row only closes it. */
static int read_cu(struct rvt_srclines *s, Dwarf_Die *cu)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cu, &lines, &n) != 0)
        return 0; /* a unit without a line program */
    for (size_t i = 0; i + 1 < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i), *nx = dwarf_onesrcline(lines, i + 1);
        bool end_seq = false;
        Dwarf_Addr a, b;
        int lineno = 0;
        if (!l || !nx || dwarf_lineendsequence(l, &end_seq) != 0 || end_seq)
            continue;
        if (dwarf_lineaddr(l, &a) != 0 || dwarf_lineaddr(nx, &b) != 0 || b <= a)
            continue;
        /* Sequences of functions the linker discarded are left at address 0. */
        if (a == 0)
            continue;
        dwarf_lineno(l, &lineno);
        const char *file = dwarf_linesrc(l, NULL, NULL);
        uint32_t id;
        int rc = file_id(s, file ? file : "??", &id);
        if (rc < 0)
            return rc;
        if ((rc = add_row(s, a, b, id, lineno > 0 ? (uint32_t)lineno : 0)) < 0)
            return rc;
    }
    return 0;
}

/* The DWARF string sections (.debug_str, .debug_line_str, their .dwo and
 * compressed forms) hold null-terminated strings (DWARF 5, 7.5.5: "a
 * null-terminated string"), and libdw reads them with strlen: one whose
 * last byte is not NUL would be read past its end (found by fuzz_srclines:
 * a .debug_line_str of 9 bytes).  Returns the first such section (NULL:
 * none) and its file offset; compressed sections are decompressed here
 * first, as libdw would. */
static const char *unterminated_strings(Elf *elf, size_t *offset)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL; /* (libdw finds no sections either) */
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
            continue;
        const char *sname = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!sname || (strncmp(sname, ".debug_", 7) != 0 && strncmp(sname, ".zdebug_", 8) != 0) ||
            !strstr(sname, "str"))
            continue;
        if (sh.sh_flags & SHF_COMPRESSED)
            (void)elf_compress(scn, 0, 0);
        else if (sname[1] == 'z')
            (void)elf_compress_gnu(scn, 0, 0);
        Elf_Data *data = elf_getdata(scn, NULL);
        if (data && data->d_size && (!data->d_buf || ((const char *)data->d_buf)[data->d_size - 1] != '\0')) {
            *offset = (size_t)sh.sh_offset;
            return sname;
        }
    }
    return NULL;
}

int rvt_srclines_load_mem(struct rvt_srclines **out, const void *buf, size_t len, const char *name,
                          struct rvt_diag *d)
{
    *out = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return rvt_fail(d, RVT_ERR_UNSUPPORTED, "%s: libelf is unusable: %s", name, elf_errmsg(-1));
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", name);
    if (len)
        memcpy(copy, buf, len);
    int rc = 0;
    struct rvt_srclines *s = NULL;
    Dwarf *dw = NULL;
    Elf *elf = elf_memory(copy, len);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: not an ELF file%s%s", name, elf ? "" : ": ", elf ? "" : elf_errmsg(-1));
        goto out;
    }
    size_t at = 0;
    const char *bad = unterminated_strings(elf, &at);
    if (bad) {
        rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: DWARF section %s (file offset 0x%zx): its strings do not end with a NUL byte",
                      name, bad, at);
        goto out;
    }
    dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (!dw) {
        rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: no DWARF debug information (%s); build with -g, or give the debug file",
                      name, dwarf_errmsg(-1));
        goto out;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        rc = rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", name);
        goto out;
    }
    Dwarf_Off off = 0, next;
    size_t hsize;
    unsigned units = 0;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu) && (rc = read_cu(s, &cu)) < 0) {
            rc = rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", name);
            goto out;
        }
        units++;
        off = next;
    }
    if (s->nrows == 0) {
        rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: the DWARF data (%u compilation units) has no line table rows", name, units);
        goto out;
    }
    qsort(s->rows, s->nrows, sizeof *s->rows, row_cmp);
    /* Ranges of different units may overlap (duplicate code): a range ends
     * where the next begins, so a lookup finds one answer. */
    for (size_t i = 0; i + 1 < s->nrows; i++)
        if (s->rows[i].end > s->rows[i + 1].addr)
            s->rows[i].end = s->rows[i + 1].addr;
    size_t k = 0;
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i].end > s->rows[i].addr)
            s->rows[k++] = s->rows[i];
    s->nrows = k;
    *out = s;
    s = NULL;
out:
    rvt_srclines_free(s);
    if (dw)
        dwarf_end(dw);
    if (elf)
        elf_end(elf);
    free(copy);
    return rc;
}

int rvt_srclines_load(struct rvt_srclines **out, const char *path, struct rvt_diag *d)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rvt_fail(d, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 1 << 20;
            uint8_t *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return rvt_fail(d, RVT_ERR_IO, "%s: read error", path);
    }
    int rc = rvt_srclines_load_mem(out, buf, len, path, d);
    free(buf);
    return rc;
}

#else /* !RVT_HAVE_LIBDW */

static int no_libdw(const char *name, struct rvt_diag *d)
{
    return rvt_fail(d, RVT_ERR_UNSUPPORTED,
                    "%s: source lines need DWARF support, and this rvtrace was built without elfutils libdw "
                    "(install libdw-dev and rebuild)",
                    name);
}

int rvt_srclines_load_mem(struct rvt_srclines **out, const void *buf, size_t len, const char *name,
                          struct rvt_diag *d)
{
    (void)buf;
    (void)len;
    *out = NULL;
    return no_libdw(name, d);
}

int rvt_srclines_load(struct rvt_srclines **out, const char *path, struct rvt_diag *d)
{
    *out = NULL;
    return no_libdw(path, d);
}

#endif
