/* Generator: ELF32/ELF64 little-endian RISC-V executables (System V gABI
 * and the RISC-V ELF psABI: EM_RISCV, EF_RISCV_RVC). */
#include "gen/gen_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
    EM_RISCV = 243,
    ET_EXEC = 2,
    PT_LOAD = 1,
    PF_X = 1,
    PF_W = 2,
    PF_R = 4,
    SHT_PROGBITS = 1,
    SHT_SYMTAB = 2,
    SHT_STRTAB = 3,
    SHT_NOBITS = 8,
    SHF_WRITE = 1,
    SHF_ALLOC = 2,
    SHF_EXECINSTR = 4,
    STB_GLOBAL = 1,
    STT_OBJECT = 1,
    STT_FUNC = 2,
    EF_RISCV_RVC = 1
};

struct obuf {
    uint8_t *d;
    size_t len, cap;
    bool oom;
};

static void ob_reserve(struct obuf *o, size_t need)
{
    if (o->oom || need <= o->cap)
        return;
    size_t nc = o->cap ? o->cap : 4096;
    while (nc < need)
        nc *= 2;
    uint8_t *nd = realloc(o->d, nc);
    if (!nd) {
        o->oom = true;
        return;
    }
    memset(nd + o->cap, 0, nc - o->cap);
    o->d = nd;
    o->cap = nc;
}
static void ob_put(struct obuf *o, size_t off, uint64_t v, unsigned n)
{
    ob_reserve(o, off + n);
    if (o->oom)
        return;
    for (unsigned i = 0; i < n; i++)
        o->d[off + i] = (uint8_t)(v >> (8 * i));
    if (off + n > o->len)
        o->len = off + n;
}
static void ob_bytes(struct obuf *o, size_t off, const void *p, size_t n)
{
    ob_reserve(o, off + n);
    if (o->oom)
        return;
    memcpy(o->d + off, p, n);
    if (off + n > o->len)
        o->len = off + n;
}
static size_t ob_align(struct obuf *o, size_t a)
{
    size_t n = (o->len + a - 1) & ~(a - 1);
    ob_reserve(o, n);
    if (!o->oom && n > o->len)
        o->len = n;
    return n;
}

struct strtab {
    char *s;
    size_t len, cap;
};
static uint32_t st_add(struct strtab *t, const char *s, bool *oom)
{
    size_t l = strlen(s) + 1;
    if (t->len + l > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        while (nc < t->len + l)
            nc *= 2;
        char *ns = realloc(t->s, nc);
        if (!ns) {
            *oom = true;
            return 0;
        }
        t->s = ns;
        t->cap = nc;
    }
    memcpy(t->s + t->len, s, l);
    uint32_t off = (uint32_t)t->len;
    t->len += l;
    return off;
}

struct section {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t align, entsize;
};

int rvt_gen_elf(const struct rvt_gen_program *p, uint8_t **buf, size_t *len)
{
    bool e64 = p->xlen == 64;
    unsigned ehsize = e64 ? 64 : 52, phsize = e64 ? 56 : 32, shsize = e64 ? 64 : 40, symsize = e64 ? 24 : 16;
    struct obuf o = {0};
    struct strtab shstr = {0}, str = {0};
    bool oom = false;
    struct section sec[12];
    unsigned nsec = 0;
    memset(sec, 0, sizeof sec);
    st_add(&shstr, "", &oom);
    st_add(&str, "", &oom);
    nsec = 1; /* SHN_UNDEF */

    unsigned nph = (unsigned)p->nseg;
    size_t phoff = ehsize;
    ob_reserve(&o, phoff + (size_t)nph * phsize);
    o.len = phoff + (size_t)nph * phsize;

    /* segment contents, each at a file offset congruent to its address */
    unsigned segsec[SEG__COUNT];
    for (unsigned i = 0; i < p->nseg; i++) {
        const struct rvt_gen_segment *s = &p->segs_out[i];
        size_t off = ob_align(&o, 4096);
        if (s->filesz)
            ob_bytes(&o, off, s->data, s->filesz);
        size_t ph = phoff + (size_t)i * phsize;
        uint32_t flags = PF_R | ((s->flags & RVT_GEN_SEG_EXEC) ? PF_X : 0) | ((s->flags & RVT_GEN_SEG_WRITE) ? PF_W : 0);
        if (e64) {
            ob_put(&o, ph + 0, PT_LOAD, 4);
            ob_put(&o, ph + 4, flags, 4);
            ob_put(&o, ph + 8, off, 8);
            ob_put(&o, ph + 16, s->addr, 8);
            ob_put(&o, ph + 24, s->addr, 8);
            ob_put(&o, ph + 32, s->filesz, 8);
            ob_put(&o, ph + 40, s->memsz, 8);
            ob_put(&o, ph + 48, 4096, 8);
        } else {
            ob_put(&o, ph + 0, PT_LOAD, 4);
            ob_put(&o, ph + 4, off, 4);
            ob_put(&o, ph + 8, s->addr, 4);
            ob_put(&o, ph + 12, s->addr, 4);
            ob_put(&o, ph + 16, s->filesz, 4);
            ob_put(&o, ph + 20, s->memsz, 4);
            ob_put(&o, ph + 24, flags, 4);
            ob_put(&o, ph + 28, 4096, 4);
        }
        struct section *sc = &sec[nsec];
        segsec[i] = nsec++;
        sc->name = st_add(&shstr, s->name, &oom);
        sc->type = SHT_PROGBITS;
        sc->flags = SHF_ALLOC | ((s->flags & RVT_GEN_SEG_EXEC) ? SHF_EXECINSTR : 0) |
                    ((s->flags & RVT_GEN_SEG_WRITE) ? SHF_WRITE : 0);
        sc->addr = s->addr;
        sc->offset = off;
        sc->size = s->filesz;
        sc->align = (s->flags & RVT_GEN_SEG_EXEC) ? 2 : 8;
        if (s->memsz > s->filesz) {
            struct section *bss = &sec[nsec++];
            bss->name = st_add(&shstr, ".bss", &oom);
            bss->type = SHT_NOBITS;
            bss->flags = SHF_ALLOC | SHF_WRITE;
            bss->addr = s->addr + s->filesz;
            bss->offset = off + s->filesz;
            bss->size = s->memsz - s->filesz;
            bss->align = 16;
        }
    }

    /* .symtab: the null symbol, then every symbol (all global) */
    size_t symoff = ob_align(&o, 8);
    size_t nsym = p->nsyms + 1;
    ob_reserve(&o, symoff + nsym * symsize);
    o.len = symoff + nsym * symsize;
    for (size_t i = 0; i < p->nsyms; i++) {
        const struct rvt_symbol *sy = &p->syms[i];
        unsigned shndx = 0;
        for (unsigned k = 0; k < p->nseg; k++) {
            const struct rvt_gen_segment *s = &p->segs_out[k];
            if (sy->addr - s->addr < s->memsz)
                shndx = segsec[k] + (sy->addr - s->addr >= s->filesz ? 1 : 0);
        }
        uint32_t name = st_add(&str, sy->name, &oom);
        uint8_t info = (uint8_t)(STB_GLOBAL << 4 | (sy->is_func ? STT_FUNC : STT_OBJECT));
        size_t so = symoff + (i + 1) * symsize;
        if (e64) {
            ob_put(&o, so + 0, name, 4);
            ob_put(&o, so + 4, info, 1);
            ob_put(&o, so + 5, 0, 1);
            ob_put(&o, so + 6, shndx, 2);
            ob_put(&o, so + 8, sy->addr, 8);
            ob_put(&o, so + 16, sy->size, 8);
        } else {
            ob_put(&o, so + 0, name, 4);
            ob_put(&o, so + 4, sy->addr, 4);
            ob_put(&o, so + 8, sy->size, 4);
            ob_put(&o, so + 12, info, 1);
            ob_put(&o, so + 13, 0, 1);
            ob_put(&o, so + 14, shndx, 2);
        }
    }
    unsigned symtab_idx = nsec++;
    unsigned strtab_idx = nsec++;
    unsigned shstrtab_idx = nsec++;
    sec[symtab_idx].name = st_add(&shstr, ".symtab", &oom);
    sec[symtab_idx].type = SHT_SYMTAB;
    sec[symtab_idx].offset = symoff;
    sec[symtab_idx].size = nsym * symsize;
    sec[symtab_idx].link = strtab_idx;
    sec[symtab_idx].info = 1; /* first non-local symbol */
    sec[symtab_idx].align = 8;
    sec[symtab_idx].entsize = symsize;
    sec[strtab_idx].name = st_add(&shstr, ".strtab", &oom);
    sec[shstrtab_idx].name = st_add(&shstr, ".shstrtab", &oom);
    size_t stroff = o.len;
    ob_bytes(&o, stroff, str.s, str.len);
    sec[strtab_idx].type = SHT_STRTAB;
    sec[strtab_idx].offset = stroff;
    sec[strtab_idx].size = str.len;
    sec[strtab_idx].align = 1;
    size_t shstroff = o.len;
    ob_bytes(&o, shstroff, shstr.s, shstr.len);
    sec[shstrtab_idx].type = SHT_STRTAB;
    sec[shstrtab_idx].offset = shstroff;
    sec[shstrtab_idx].size = shstr.len;
    sec[shstrtab_idx].align = 1;

    size_t shoff = ob_align(&o, 8);
    for (unsigned i = 0; i < nsec; i++) {
        const struct section *sc = &sec[i];
        size_t so = shoff + (size_t)i * shsize;
        if (e64) {
            ob_put(&o, so + 0, sc->name, 4);
            ob_put(&o, so + 4, sc->type, 4);
            ob_put(&o, so + 8, sc->flags, 8);
            ob_put(&o, so + 16, sc->addr, 8);
            ob_put(&o, so + 24, sc->offset, 8);
            ob_put(&o, so + 32, sc->size, 8);
            ob_put(&o, so + 40, sc->link, 4);
            ob_put(&o, so + 44, sc->info, 4);
            ob_put(&o, so + 48, sc->align, 8);
            ob_put(&o, so + 56, sc->entsize, 8);
        } else {
            ob_put(&o, so + 0, sc->name, 4);
            ob_put(&o, so + 4, sc->type, 4);
            ob_put(&o, so + 8, sc->flags, 4);
            ob_put(&o, so + 12, sc->addr, 4);
            ob_put(&o, so + 16, sc->offset, 4);
            ob_put(&o, so + 20, sc->size, 4);
            ob_put(&o, so + 24, sc->link, 4);
            ob_put(&o, so + 28, sc->info, 4);
            ob_put(&o, so + 32, sc->align, 4);
            ob_put(&o, so + 36, sc->entsize, 4);
        }
    }

    /* file header */
    static const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 0, 1, 1, 0};
    ob_bytes(&o, 0, ident, 16);
    o.d[4] = e64 ? 2 : 1;
    ob_put(&o, 16, ET_EXEC, 2);
    ob_put(&o, 18, EM_RISCV, 2);
    ob_put(&o, 20, 1, 4);
    uint32_t eflags = (p->features & RVT_GEN_COMPRESSED) ? EF_RISCV_RVC : 0;
    if (e64) {
        ob_put(&o, 24, p->entry, 8);
        ob_put(&o, 32, phoff, 8);
        ob_put(&o, 40, shoff, 8);
        ob_put(&o, 48, eflags, 4);
        ob_put(&o, 52, ehsize, 2);
        ob_put(&o, 54, phsize, 2);
        ob_put(&o, 56, nph, 2);
        ob_put(&o, 58, shsize, 2);
        ob_put(&o, 60, nsec, 2);
        ob_put(&o, 62, shstrtab_idx, 2);
    } else {
        ob_put(&o, 24, p->entry, 4);
        ob_put(&o, 28, phoff, 4);
        ob_put(&o, 32, shoff, 4);
        ob_put(&o, 36, eflags, 4);
        ob_put(&o, 40, ehsize, 2);
        ob_put(&o, 42, phsize, 2);
        ob_put(&o, 44, nph, 2);
        ob_put(&o, 46, shsize, 2);
        ob_put(&o, 48, nsec, 2);
        ob_put(&o, 50, shstrtab_idx, 2);
    }
    free(shstr.s);
    free(str.s);
    if (o.oom || oom) {
        free(o.d);
        return -RVT_ERR_NOMEM;
    }
    *buf = o.d;
    *len = o.len;
    return 0;
}

int rvt_gen_write_elf(const struct rvt_gen_program *p, const char *path, struct rvt_diag *diag)
{
    uint8_t *buf;
    size_t len;
    int r = rvt_gen_elf(p, &buf, &len);
    if (r < 0)
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory building the ELF", path);
    FILE *f = fopen(path, "wb");
    if (!f) {
        r = rvt_fail(diag, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(buf);
        return r;
    }
    size_t w = fwrite(buf, 1, len, f);
    int cr = fclose(f);
    free(buf);
    if (w != len || cr != 0)
        return rvt_fail(diag, RVT_ERR_IO, "%s: write failed after %zu of %zu bytes", path, w, len);
    return 0;
}

struct rvt_image *rvt_gen_image(const struct rvt_gen_program *p)
{
    uint8_t *buf;
    size_t len;
    if (rvt_gen_elf(p, &buf, &len) < 0)
        return NULL;
    struct rvt_image *img = rvt_img_new();
    if (img && rvt_img_load_elf_mem(img, buf, len, "generated.elf") < 0) {
        rvt_img_free(img);
        img = NULL;
    }
    free(buf);
    return img;
}
