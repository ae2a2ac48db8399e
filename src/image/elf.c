/* ELF32/ELF64 little-endian RISC-V parser.
 *
 * Every offset, size and count read from the file is checked against the
 * file length before use, in 64-bit arithmetic that cannot overflow (sizes
 * are compared with `len - off`, counts are bounded by `len / entsize` before
 * any multiplication).  Errors name the file, the byte offset of the field or
 * header at fault, what was found and what was expected.
 */
#include "image/image_internal.h"

#include <stdlib.h>
#include <string.h>

#define EM_RISCV 243
#define PT_LOAD 1
#define PF_X 1u
#define SHT_NULL 0
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOBITS 8
#define SHT_DYNSYM 11
#define SHF_ALLOC 0x2u
#define SHF_EXECINSTR 0x4u
#define SHN_UNDEF 0
#define SHN_LORESERVE 0xff00u
#define SHN_COMMON 0xfff2u
#define PN_XNUM 0xffffu
#define STT_NOTYPE 0
#define STT_OBJECT 1
#define STT_FUNC 2
#define STT_GNU_IFUNC 10
#define STB_GLOBAL 1
#define STB_WEAK 2

struct elf_rd {
    const uint8_t *buf;
    uint64_t len;
    const char *name;
    struct rvt_diag *d;
    bool is64;
};

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* An address-sized field (Elf32_Addr/Off/Word or Elf64_Addr/Off/Xword). */
static uint64_t rdw(const struct elf_rd *r, const uint8_t *p)
{
    return r->is64 ? rd64(p) : rd32(p);
}

/* [off, off + size) inside a file of len bytes, without overflow. */
static bool in_file(uint64_t off, uint64_t size, uint64_t len)
{
    return off <= len && size <= len - off;
}

#define ELF_FAIL(r, code, off, ...) elf_fail((r), (code), (off), __VA_ARGS__)

static int elf_fail(const struct elf_rd *r, enum rvt_err code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int elf_fail(const struct elf_rd *r, enum rvt_err code, uint64_t off, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rvt_fail(r->d, code, "%s: offset 0x%llx: %s", r->name, (unsigned long long)off, what);
}

static const char *machine_name(unsigned m)
{
    switch (m) {
    case 0: return "none";
    case 3: return "x86";
    case 8: return "MIPS";
    case 20: return "PowerPC";
    case 21: return "PowerPC64";
    case 40: return "ARM";
    case 62: return "x86-64";
    case 183: return "AArch64";
    case 243: return "RISC-V";
    case 258: return "LoongArch";
    default: return "unknown";
    }
}

/* Header fields at their ELF32 / ELF64 offsets. */
struct ehdr {
    uint16_t type, machine;
    uint64_t entry, phoff, shoff;
    uint16_t phentsize, shentsize;
    uint64_t phnum, shnum;       /* after extended numbering */
    unsigned off_phoff, off_shoff, off_phentsize, off_shentsize, off_phnum, off_shnum;
};

static int parse_ident(const struct elf_rd *r, unsigned *xlen)
{
    static const uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
    const uint8_t *b = r->buf;
    if (r->len < 4 || memcmp(b, magic, 4) != 0) {
        uint8_t m[4] = {0, 0, 0, 0};
        memcpy(m, b, r->len < 4 ? (size_t)r->len : 4);
        return ELF_FAIL(r, RVT_ERR_FORMAT, 0,
                        "not an ELF file (magic %02x %02x %02x %02x%s, expected 7f 45 4c 46)",
                        m[0], m[1], m[2], m[3], r->len < 4 ? ", file too short" : "");
    }
    if (r->len < 16)
        return ELF_FAIL(r, RVT_ERR_TRUNCATED, r->len,
                        "file ends inside e_ident (%llu bytes, expected 16)",
                        (unsigned long long)r->len);
    if (b[4] != 1 && b[4] != 2)
        return ELF_FAIL(r, RVT_ERR_FORMAT, 4, "EI_CLASS is %u, expected 1 (ELF32) or 2 (ELF64)",
                        b[4]);
    if (b[5] == 2)
        return ELF_FAIL(r, RVT_ERR_UNSUPPORTED, 5,
                        "EI_DATA is 2 (big-endian), expected 1 (little-endian)");
    if (b[5] != 1)
        return ELF_FAIL(r, RVT_ERR_FORMAT, 5, "EI_DATA is %u, expected 1 (little-endian)", b[5]);
    if (b[6] != 1)
        return ELF_FAIL(r, RVT_ERR_FORMAT, 6, "EI_VERSION is %u, expected 1", b[6]);
    *xlen = b[4] == 2 ? 64 : 32;
    return 0;
}

static int parse_ehdr(struct elf_rd *r, struct ehdr *h)
{
    const uint8_t *b = r->buf;
    unsigned need = r->is64 ? 64 : 52;
    if (r->len < need)
        return ELF_FAIL(r, RVT_ERR_TRUNCATED, r->len,
                        "file ends inside the ELF header (%llu bytes, expected %u)",
                        (unsigned long long)r->len, need);
    h->type = rd16(b + 16);
    h->machine = rd16(b + 18);
    if (h->machine != EM_RISCV)
        return ELF_FAIL(r, RVT_ERR_UNSUPPORTED, 18, "e_machine is %u (%s), expected 243 (RISC-V)",
                        h->machine, machine_name(h->machine));
    unsigned w = r->is64 ? 8 : 4;
    h->entry = rdw(r, b + 24);
    h->off_phoff = 24 + w;
    h->off_shoff = 24 + 2 * w;
    h->phoff = rdw(r, b + h->off_phoff);
    h->shoff = rdw(r, b + h->off_shoff);
    /* e_flags (4 bytes), e_ehsize, then the table geometry. */
    unsigned g = 24 + 3 * w + 4 + 2;
    h->off_phentsize = g;
    h->off_phnum = g + 2;
    h->off_shentsize = g + 4;
    h->off_shnum = g + 6;
    h->phentsize = rd16(b + h->off_phentsize);
    h->phnum = rd16(b + h->off_phnum);
    h->shentsize = rd16(b + h->off_shentsize);
    h->shnum = rd16(b + h->off_shnum);
    return 0;
}

/* Section header fields. */
struct shdr {
    uint32_t type, link;
    uint64_t flags, offset, size, entsize, info;
};

static void read_shdr(const struct elf_rd *r, const uint8_t *p, struct shdr *s)
{
    s->type = rd32(p + 4);
    if (r->is64) {
        s->flags = rd64(p + 8);
        s->offset = rd64(p + 24);
        s->size = rd64(p + 32);
        s->link = rd32(p + 40);
        s->info = rd32(p + 44);
        s->entsize = rd64(p + 56);
    } else {
        s->flags = rd32(p + 8);
        s->offset = rd32(p + 16);
        s->size = rd32(p + 20);
        s->link = rd32(p + 24);
        s->info = rd32(p + 28);
        s->entsize = rd32(p + 36);
    }
}

/* Check a table of count entries of entsize bytes at off; the message names
 * the first entry that does not fit. */
static int check_table(const struct elf_rd *r, const char *what, uint64_t field_off, uint64_t off,
                       uint64_t count, uint64_t entsize)
{
    if (count == 0)
        return 0;
    if (off > r->len)
        return ELF_FAIL(r, RVT_ERR_FORMAT, field_off,
                        "%s table offset 0x%llx is beyond end of file (size 0x%llx)", what,
                        (unsigned long long)off, (unsigned long long)r->len);
    uint64_t fit = (r->len - off) / entsize; /* entries that fit; no multiplication overflow */
    if (count > fit) {
        uint64_t at = off + fit * entsize; /* <= len */
        return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                        "%s %llu extends beyond end of file (0x%llx > 0x%llx; %llu entries of %llu "
                        "bytes at 0x%llx)",
                        what, (unsigned long long)fit, (unsigned long long)(at + entsize),
                        (unsigned long long)r->len, (unsigned long long)count,
                        (unsigned long long)entsize, (unsigned long long)off);
    }
    return 0;
}

static int parse_sections_geometry(struct elf_rd *r, struct ehdr *h)
{
    unsigned shsz = r->is64 ? 64 : 40;
    if (h->shoff == 0) {
        h->shnum = 0; /* no section header table */
        return 0;
    }
    if (h->shnum == 0 && h->shentsize == 0)
        return 0;
    if (h->shentsize < shsz)
        return ELF_FAIL(r, RVT_ERR_FORMAT, h->off_shentsize, "e_shentsize is %u, expected at least %u",
                        h->shentsize, shsz);
    /* Extended numbering: section 0 holds the real counts. */
    if (h->shnum == 0 || h->phnum == PN_XNUM) {
        int e = check_table(r, "section header", h->off_shoff, h->shoff, 1, h->shentsize);
        if (e < 0)
            return e;
        struct shdr s0;
        read_shdr(r, r->buf + h->shoff, &s0);
        if (h->shnum == 0)
            h->shnum = s0.size;
        if (h->phnum == PN_XNUM)
            h->phnum = s0.info;
    }
    return check_table(r, "section header", h->off_shoff, h->shoff, h->shnum, h->shentsize);
}

static int parse_segments(struct elf_rd *r, const struct ehdr *h, struct img_elf *out)
{
    unsigned phsz = r->is64 ? 56 : 32;
    if (h->phnum == 0)
        return 0;
    if (h->phentsize < phsz)
        return ELF_FAIL(r, RVT_ERR_FORMAT, h->off_phentsize, "e_phentsize is %u, expected at least %u",
                        h->phentsize, phsz);
    int e = check_table(r, "program header", h->off_phoff, h->phoff, h->phnum, h->phentsize);
    if (e < 0)
        return e;
    /* phnum entries fit in the file, so this allocation is bounded by its size. */
    out->segs = calloc((size_t)h->phnum, sizeof *out->segs);
    if (!out->segs)
        return rvt_fail(r->d, RVT_ERR_NOMEM, "%s: out of memory for %llu program headers", r->name,
                        (unsigned long long)h->phnum);
    uint64_t addr_limit = r->is64 ? UINT64_MAX : 0xffffffffull;
    for (uint64_t i = 0; i < h->phnum; i++) {
        uint64_t at = h->phoff + i * h->phentsize;
        const uint8_t *p = r->buf + at;
        if (rd32(p) != PT_LOAD)
            continue;
        struct img_elf_seg s;
        uint32_t flags;
        if (r->is64) {
            flags = rd32(p + 4);
            s.file_off = rd64(p + 8);
            s.vaddr = rd64(p + 16);
            s.filesz = rd64(p + 32);
            s.memsz = rd64(p + 40);
        } else {
            s.file_off = rd32(p + 4);
            s.vaddr = rd32(p + 8);
            s.filesz = rd32(p + 16);
            s.memsz = rd32(p + 20);
            flags = rd32(p + 24);
        }
        s.exec = (flags & PF_X) != 0;
        s.phdr_index = (unsigned)i;
        if (s.filesz > s.memsz)
            return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                            "program header %llu: p_filesz 0x%llx is larger than p_memsz 0x%llx",
                            (unsigned long long)i, (unsigned long long)s.filesz,
                            (unsigned long long)s.memsz);
        if (!in_file(s.file_off, s.filesz, r->len))
            return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                            "program header %llu: segment bytes (p_offset 0x%llx + p_filesz 0x%llx) "
                            "extend beyond end of file (size 0x%llx)",
                            (unsigned long long)i, (unsigned long long)s.file_off,
                            (unsigned long long)s.filesz, (unsigned long long)r->len);
        /* The last addressable byte stays unmapped so that `end` is representable. */
        if (s.memsz > addr_limit - s.vaddr)
            return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                            "program header %llu: segment 0x%llx + p_memsz 0x%llx runs past the end "
                            "of the %u-bit address space",
                            (unsigned long long)i, (unsigned long long)s.vaddr,
                            (unsigned long long)s.memsz, r->is64 ? 64 : 32);
        if (s.memsz == 0)
            continue;
        out->segs[out->nsegs++] = s;
    }
    return 0;
}

/* RISC-V's procedure linkage table (the psABI's PLT: a 32-byte header,
 * then one 16-byte entry per R_RISCV_JUMP_SLOT relocation of .rela.plt, in
 * its order): a function symbol "NAME@plt" for each entry and ".plt" for
 * the header (the lazy binder's way into the dynamic loader), as objdump
 * names them, so that a call through the PLT is not code without a name.
 * Anything that does not fit that layout adds nothing. */
enum { SHT_RELA = 4, R_RISCV_JUMP_SLOT = 5, PLT_HEADER = 32, PLT_ENTRY = 16 };

static int plt_symbols(struct elf_rd *r, const struct ehdr *h, uint64_t dynsym, struct img_elf *out)
{
    const uint64_t shstrndx = rd16(r->buf + (r->is64 ? 62 : 50));
    if (dynsym == UINT64_MAX || shstrndx == 0 || shstrndx >= h->shnum)
        return 0;
    struct shdr names;
    read_shdr(r, r->buf + h->shoff + shstrndx * h->shentsize, &names);
    if (names.type != SHT_STRTAB)
        return 0;
    uint64_t plt_addr = 0, plt_size = 0, rela = UINT64_MAX;
    for (uint64_t i = 0; i < h->shnum; i++) {
        const uint8_t *p = r->buf + h->shoff + i * h->shentsize;
        const uint32_t nm = rd32(p);
        if (nm >= names.size)
            continue;
        const char *n = (const char *)r->buf + names.offset + nm;
        const size_t room = (size_t)(names.size - nm);
        if (room > 4 && memcmp(n, ".plt", 5) == 0) {
            struct shdr s;
            read_shdr(r, p, &s);
            plt_addr = r->is64 ? rd64(p + 16) : rd32(p + 12);
            plt_size = s.size;
        } else if (room > 9 && memcmp(n, ".rela.plt", 10) == 0) {
            rela = i;
        }
    }
    if (!plt_size || rela == UINT64_MAX)
        return 0;
    struct shdr rs, ds, dstr;
    read_shdr(r, r->buf + h->shoff + rela * h->shentsize, &rs);
    read_shdr(r, r->buf + h->shoff + dynsym * h->shentsize, &ds);
    const unsigned relsz = r->is64 ? 24 : 12, symsz = r->is64 ? 24 : 16;
    if (rs.type != SHT_RELA || rs.link != dynsym || rs.entsize < relsz || ds.entsize < symsz || ds.link == 0 ||
        ds.link >= h->shnum)
        return 0;
    read_shdr(r, r->buf + h->shoff + (uint64_t)ds.link * h->shentsize, &dstr);
    const uint64_t n = rs.size / rs.entsize, nsyms = ds.size / ds.entsize;
    if (dstr.type != SHT_STRTAB || n == 0 || plt_size != PLT_HEADER + PLT_ENTRY * n)
        return 0;
    /* The names: the chosen table's strings, then "NAME@plt" each, then
     * ".plt". */
    uint64_t extra = sizeof ".plt";
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = r->buf + rs.offset + i * rs.entsize;
        const uint64_t info = r->is64 ? rd64(e + 8) : rd32(e + 4);
        const uint64_t type = r->is64 ? (info & 0xffffffffu) : (info & 0xff), sym = r->is64 ? info >> 32 : info >> 8;
        if (type != R_RISCV_JUMP_SLOT || sym == 0 || sym >= nsyms)
            return 0;
        const uint32_t name = rd32(r->buf + ds.offset + sym * ds.entsize);
        if (name >= dstr.size)
            return 0;
        const char *nm = (const char *)r->buf + dstr.offset + name;
        const char *nul = memchr(nm, 0, (size_t)(dstr.size - name));
        if (!nul || nul == nm)
            return 0;
        extra += (uint64_t)(nul - nm) + 5;
    }
    if (out->strtab_size + extra > UINT32_MAX)
        return 0;
    char *tab = malloc((size_t)(out->strtab_size + extra));
    struct img_elf_sym *syms = realloc(out->syms, (out->nsyms + n + 1) * sizeof *syms);
    if (!tab || !syms) {
        free(tab);
        if (syms)
            out->syms = syms;
        return rvt_fail(r->d, RVT_ERR_NOMEM, "%s: out of memory for the PLT's names", r->name);
    }
    out->syms = syms;
    if (out->strtab_size)
        memcpy(tab, out->strtab, (size_t)out->strtab_size);
    uint64_t at = out->strtab_size;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = r->buf + rs.offset + i * rs.entsize;
        const uint64_t info = r->is64 ? rd64(e + 8) : rd32(e + 4);
        const uint64_t sym = r->is64 ? info >> 32 : info >> 8;
        const char *nm = (const char *)r->buf + dstr.offset + rd32(r->buf + ds.offset + sym * ds.entsize);
        const size_t len = strlen(nm);
        memcpy(tab + at, nm, len);
        memcpy(tab + at + len, "@plt", 5);
        out->syms[out->nsyms++] = (struct img_elf_sym){.addr = plt_addr + PLT_HEADER + PLT_ENTRY * i,
                                                       .size = PLT_ENTRY,
                                                       .name_off = (uint32_t)at,
                                                       .name_len = (uint32_t)(len + 4),
                                                       .rank = IMG_RANK_FUNC,
                                                       .binding_rank = 2};
        at += len + 5;
    }
    memcpy(tab + at, ".plt", sizeof ".plt");
    out->syms[out->nsyms++] = (struct img_elf_sym){
        .addr = plt_addr, .size = PLT_HEADER, .name_off = (uint32_t)at, .name_len = 4, .rank = IMG_RANK_FUNC, .binding_rank = 2};
    at += sizeof ".plt";
    free(out->strtab_own);
    out->strtab_own = tab;
    out->strtab = tab;
    out->strtab_size = at;
    return 0;
}

static int parse_table(struct elf_rd *r, const struct ehdr *h, uint64_t si, const char *kind, struct img_elf *out);

static int parse_symbols(struct elf_rd *r, const struct ehdr *h, struct img_elf *out)
{
    if (h->shnum == 0)
        return 0;
    uint64_t symtab = UINT64_MAX, dynsym = UINT64_MAX;
    for (uint64_t i = 0; i < h->shnum; i++) {
        uint64_t at = h->shoff + i * h->shentsize;
        struct shdr s;
        read_shdr(r, r->buf + at, &s);
        if (s.type != SHT_NOBITS && s.type != SHT_NULL && !in_file(s.offset, s.size, r->len))
            return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                            "section %llu: contents (sh_offset 0x%llx + sh_size 0x%llx) extend "
                            "beyond end of file (size 0x%llx)",
                            (unsigned long long)i, (unsigned long long)s.offset,
                            (unsigned long long)s.size, (unsigned long long)r->len);
        if (s.type == SHT_SYMTAB && symtab == UINT64_MAX)
            symtab = i;
        if (s.type == SHT_DYNSYM && dynsym == UINT64_MAX)
            dynsym = i;
    }
    uint64_t si = symtab != UINT64_MAX ? symtab : dynsym;
    if (si == UINT64_MAX)
        return 0;
    int e = parse_table(r, h, si, si == symtab ? "symbol table" : "dynamic symbol table", out);
    return e < 0 ? e : plt_symbols(r, h, dynsym, out);
}

static int parse_table(struct elf_rd *r, const struct ehdr *h, uint64_t si, const char *kind, struct img_elf *out)
{
    uint64_t sat = h->shoff + si * h->shentsize;
    struct shdr st, ss;
    read_shdr(r, r->buf + sat, &st);
    unsigned symsz = r->is64 ? 24 : 16;
    if (st.entsize < symsz)
        return ELF_FAIL(r, RVT_ERR_FORMAT, sat,
                        "section %llu (%s): sh_entsize is %llu, expected at least %u",
                        (unsigned long long)si, kind, (unsigned long long)st.entsize, symsz);
    if (st.link == 0 || st.link >= h->shnum)
        return ELF_FAIL(r, RVT_ERR_FORMAT, sat,
                        "section %llu (%s): sh_link %u is not a string table section (%llu sections)",
                        (unsigned long long)si, kind, st.link, (unsigned long long)h->shnum);
    uint64_t strat = h->shoff + (uint64_t)st.link * h->shentsize;
    read_shdr(r, r->buf + strat, &ss);
    if (ss.type != SHT_STRTAB)
        return ELF_FAIL(r, RVT_ERR_FORMAT, strat,
                        "section %u (linked from %s section %llu): sh_type is %u, expected 3 "
                        "(SHT_STRTAB)",
                        st.link, kind, (unsigned long long)si, ss.type);
    /* Both sections were checked against the file size above. */
    out->strtab = (const char *)r->buf + ss.offset;
    out->strtab_size = ss.size;
    uint64_t count = st.size / st.entsize;
    if (count <= 1)
        return 0;
    out->syms = calloc((size_t)count, sizeof *out->syms);
    if (!out->syms)
        return rvt_fail(r->d, RVT_ERR_NOMEM, "%s: out of memory for %llu symbols", r->name,
                        (unsigned long long)count);
    /* Entry 0 is the reserved null symbol. */
    for (uint64_t i = 1; i < count; i++) {
        uint64_t at = st.offset + i * st.entsize;
        const uint8_t *p = r->buf + at;
        uint32_t name = rd32(p);
        uint8_t info;
        uint16_t shndx;
        uint64_t value, size;
        if (r->is64) {
            info = p[4];
            shndx = rd16(p + 6);
            value = rd64(p + 8);
            size = rd64(p + 16);
        } else {
            value = rd32(p + 4);
            size = rd32(p + 8);
            info = p[12];
            shndx = rd16(p + 14);
        }
        if (name >= out->strtab_size)
            return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                            "symbol %llu: st_name 0x%x is beyond the string table (section %u, "
                            "size 0x%llx)",
                            (unsigned long long)i, name, st.link,
                            (unsigned long long)out->strtab_size);
        const char *nm = out->strtab + name;
        const char *nul = memchr(nm, 0, (size_t)(out->strtab_size - name));
        if (!nul)
            return ELF_FAIL(r, RVT_ERR_FORMAT, ss.offset + name,
                            "symbol %llu: name is not NUL-terminated inside the string table "
                            "(section %u)",
                            (unsigned long long)i, st.link);
        unsigned type = info & 0xf, bind = info >> 4;
        if (shndx != SHN_UNDEF && shndx < SHN_LORESERVE && shndx >= h->shnum)
            return ELF_FAIL(r, RVT_ERR_FORMAT, at,
                            "symbol %llu (%s): st_shndx %u is not a section (%llu sections)",
                            (unsigned long long)i, nm, shndx, (unsigned long long)h->shnum);
        if (shndx == SHN_UNDEF || shndx == SHN_COMMON || nm[0] == 0)
            continue;
        /* Mapping symbols ($x, $d) and assembler temporaries are not names. */
        if ((nm[0] == '$' && (nm[1] == 'x' || nm[1] == 'd')) || (nm[0] == '.' && nm[1] == 'L'))
            continue;
        uint8_t rank;
        if (type == STT_FUNC || type == STT_GNU_IFUNC) {
            rank = IMG_RANK_FUNC;
        } else if (type == STT_OBJECT) {
            rank = IMG_RANK_OBJECT;
        } else if (type == STT_NOTYPE) {
            rank = IMG_RANK_OTHER;
            if (shndx < SHN_LORESERVE) {
                struct shdr sec;
                read_shdr(r, r->buf + h->shoff + (uint64_t)shndx * h->shentsize, &sec);
                if ((sec.flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR))
                    rank = IMG_RANK_CODE_LABEL;
            }
        } else {
            continue; /* sections, files, TLS offsets, common blocks */
        }
        struct img_elf_sym *y = &out->syms[out->nsyms++];
        y->addr = value;
        y->size = size;
        y->name_off = name;
        y->name_len = (uint32_t)(nul - nm);
        y->rank = rank;
        y->binding_rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    }
    return 0;
}

int rvt_img_parse_elf(const uint8_t *buf, size_t len, const char *name, struct img_elf *out,
                      struct rvt_diag *d)
{
    memset(out, 0, sizeof *out);
    struct elf_rd r = {buf, len, name ? name : "(memory)", d, false};
    unsigned xlen = 0;
    int e = parse_ident(&r, &xlen);
    if (e < 0)
        return e;
    r.is64 = xlen == 64;
    struct ehdr h;
    memset(&h, 0, sizeof h);
    e = parse_ehdr(&r, &h);
    if (e == 0)
        e = parse_sections_geometry(&r, &h);
    if (e == 0)
        e = parse_segments(&r, &h, out);
    if (e == 0)
        e = parse_symbols(&r, &h, out);
    if (e == 0 && out->nsegs == 0)
        e = rvt_fail(d, RVT_ERR_FORMAT, "%s: no PT_LOAD segment with contents (e_type %u%s)", r.name,
                     h.type, h.type == 1 ? ": a relocatable object; link it first" : "");
    if (e < 0) {
        rvt_img_elf_release(out);
        return e;
    }
    out->xlen = xlen;
    out->entry = h.entry;
    out->e_type = h.type;
    return 0;
}

void rvt_img_elf_release(struct img_elf *e)
{
    free(e->segs);
    free(e->syms);
    free(e->strtab_own);
    memset(e, 0, sizeof *e);
}
