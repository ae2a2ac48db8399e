/* Malformed ELF files: truncation at every length, corrupted header fields,
 * huge counts, overflowing and overlapping offsets.  Each must give an error
 * that names the file (and the offset), leave the image as it was, and
 * never crash; ASan/UBSan builds check the "never reads out of bounds". */
#include "rvtrace/image.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static uint64_t get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Where the fields are, read independently of the library. */
struct layout {
    bool is64;
    unsigned w; /* address size */
    uint64_t phoff, shoff;
    unsigned phentsize, phnum, shentsize, shnum;
    uint64_t load_ph;  /* offset of the first PT_LOAD header */
    uint64_t symtab_sh, strtab_sh;
    uint64_t symtab_off, symtab_entsize, strtab_off, strtab_size;
    unsigned symtab_index;
    bool dynamic; /* only a .dynsym */
};

static void layout_of(const uint8_t *f, struct layout *l)
{
    memset(l, 0, sizeof *l);
    l->is64 = f[4] == 2;
    l->w = l->is64 ? 8 : 4;
    l->phoff = get(f + 24 + l->w, l->w);
    l->shoff = get(f + 24 + 2 * l->w, l->w);
    unsigned g = 24 + 3 * l->w + 6;
    l->phentsize = (unsigned)get(f + g, 2);
    l->phnum = (unsigned)get(f + g + 2, 2);
    l->shentsize = (unsigned)get(f + g + 4, 2);
    l->shnum = (unsigned)get(f + g + 6, 2);
    for (unsigned i = 0; i < l->phnum; i++) {
        uint64_t at = l->phoff + (uint64_t)i * l->phentsize;
        if (get(f + at, 4) == 1 && !l->load_ph) {
            l->load_ph = at;
            break;
        }
    }
    for (unsigned i = 0; i < l->shnum; i++) {
        uint64_t at = l->shoff + (uint64_t)i * l->shentsize;
        unsigned type = (unsigned)get(f + at + 4, 4);
        /* The symbol table the loader uses: .symtab, else .dynsym. */
        if (type == 2 || (type == 11 && !l->symtab_sh)) {
            l->dynamic = type == 11;
            l->symtab_sh = at;
            l->symtab_index = i;
            unsigned link = (unsigned)get(f + at + (l->is64 ? 40 : 24), 4);
            l->symtab_off = get(f + at + (l->is64 ? 24 : 16), l->w);
            l->symtab_entsize = get(f + at + (l->is64 ? 56 : 36), l->w);
            l->strtab_sh = l->shoff + (uint64_t)link * l->shentsize;
            l->strtab_off = get(f + l->strtab_sh + (l->is64 ? 24 : 16), l->w);
            l->strtab_size = get(f + l->strtab_sh + (l->is64 ? 32 : 20), l->w);
        }
    }
}

/* Program header / section header / symbol field offsets. */
static uint64_t ph_field(const struct layout *l, const char *f)
{
    if (!strcmp(f, "offset"))
        return l->is64 ? 8 : 4;
    if (!strcmp(f, "vaddr"))
        return l->is64 ? 16 : 8;
    if (!strcmp(f, "filesz"))
        return l->is64 ? 32 : 16;
    return l->is64 ? 40 : 20; /* memsz */
}

static const uint8_t *g_file;
static size_t g_len;

/* Load buf as "prog.elf"; expect failure with `code` and `text` in the
 * message.  The image already holds one good ELF: it must be unchanged. */
static void expect_fail_at(int line, const uint8_t *buf, size_t len, int code, const char *text)
{
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf_mem(img, g_file, g_len, "good.elf") == 0);
    size_t nseg = rvt_img_segment_count(img), nsym = rvt_img_symbol_count(img);
    int e = rvt_img_load_elf_mem(img, buf, len, "prog.elf");
    const char *msg = rvt_img_error(img);
    rvt_test_checks++;
    if (e >= 0 || (code && e != -code) || strncmp(msg, "prog.elf: ", 10) != 0 ||
        (text && !strstr(msg, text)))
        rvt_test_fail(__FILE__, line, "expected error %d with \"%s\", got %d: \"%s\"", -code,
                      text ? text : "", e, msg);
    CHECK_EQ(rvt_img_segment_count(img), nseg);
    CHECK_EQ(rvt_img_symbol_count(img), nsym);
    rvt_img_free(img);
}
#define EXPECT_FAIL(buf, len, code, text) expect_fail_at(__LINE__, buf, len, code, text)

/* A fresh copy of the file with one field changed. */
static uint8_t *with(const uint8_t *f, size_t len, uint64_t off, unsigned n, uint64_t v)
{
    uint8_t *c = malloc(len);
    if (!c)
        abort();
    memcpy(c, f, len);
    put(c + off, n, v);
    return c;
}

#define CORRUPT(off, n, v, code, text)                                                     \
    do {                                                                                   \
        uint8_t *c_ = with(f, len, (off), (n), (v));                                       \
        EXPECT_FAIL(c_, len, (code), (text));                                              \
        free(c_);                                                                          \
    } while (0)

static void test_truncation(const char *rel)
{
    char *p = rvt_test_data(rel);
    size_t len;
    uint8_t *f = rvt_test_read(p, &len);
    free(p);
    REQUIRE(f != NULL);
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf_mem(img, f, len, "prog.elf") == 0);
    rvt_img_free(img);
    /* The section header table is the last thing in these files, so every
     * shorter length loses part of it. */
    unsigned bad = 0;
    for (size_t n = 0; n < len; n++) {
        img = rvt_img_new();
        uint8_t *c = malloc(n ? n : 1); /* exact size: ASan sees any overread */
        memcpy(c, f, n);
        int e = rvt_img_load_elf_mem(img, c, n, "prog.elf");
        const char *msg = rvt_img_error(img);
        if (e >= 0 || strncmp(msg, "prog.elf: ", 10) != 0 || rvt_img_segment_count(img) != 0) {
            if (bad++ < 5)
                rvt_test_fail(__FILE__, __LINE__, "%s cut to %zu bytes: e=%d \"%s\"", rel, n, e,
                              msg);
        }
        free(c);
        rvt_img_free(img);
    }
    rvt_test_checks++;
    CHECK_EQ(bad, 0);
    free(f);
}

static void test_fields(const char *rel)
{
    char *p = rvt_test_data(rel);
    size_t len;
    uint8_t *f = rvt_test_read(p, &len);
    free(p);
    REQUIRE(f != NULL);
    g_file = f;
    g_len = len;
    struct layout l;
    layout_of(f, &l);
    REQUIRE(l.load_ph && l.symtab_sh && l.strtab_size > 2);
    unsigned w = l.w, g = 24 + 3 * w + 6;
    uint64_t huge = l.is64 ? 0xfffffffffffffff0ull : 0xfffffff0u;
    char msg[200];

    /* Identification and header. */
    CORRUPT(1, 1, 'X', RVT_ERR_FORMAT, "offset 0x0: not an ELF file (magic 7f 58 4c 46");
    CORRUPT(4, 1, 3, RVT_ERR_FORMAT, "offset 0x4: EI_CLASS is 3, expected 1 (ELF32) or 2 (ELF64)");
    CORRUPT(5, 1, 2, RVT_ERR_UNSUPPORTED, "offset 0x5: EI_DATA is 2 (big-endian), expected 1");
    CORRUPT(5, 1, 0, RVT_ERR_FORMAT, "offset 0x5: EI_DATA is 0");
    CORRUPT(6, 1, 0, RVT_ERR_FORMAT, "offset 0x6: EI_VERSION is 0, expected 1");
    CORRUPT(18, 2, 62, RVT_ERR_UNSUPPORTED,
            "offset 0x12: e_machine is 62 (x86-64), expected 243 (RISC-V)");
    CORRUPT(18, 2, 40, RVT_ERR_UNSUPPORTED, "e_machine is 40 (ARM)");
    snprintf(msg, sizeof msg, "offset 0x%x: e_phentsize is 8, expected at least %u", g,
             l.is64 ? 56 : 32);
    CORRUPT(g, 2, 8, RVT_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "offset 0x%x: e_shentsize is 4, expected at least %u", g + 4,
             l.is64 ? 64 : 40);
    CORRUPT(g + 4, 2, 4, RVT_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "offset 0x%x: program header table offset 0x%llx is beyond end of file",
             24 + w, (unsigned long long)huge);
    CORRUPT(24 + w, w, huge, RVT_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "offset 0x%x: section header table offset 0x%llx is beyond end of file",
             24 + 2 * w, (unsigned long long)huge);
    CORRUPT(24 + 2 * w, w, huge, RVT_ERR_FORMAT, msg);
    /* Huge counts: the message names the first header that does not fit. */
    {
        uint64_t fit = (len - l.phoff) / l.phentsize;
        snprintf(msg, sizeof msg, "offset 0x%llx: program header %llu extends beyond end of file (0x%llx > 0x%zx",
                 (unsigned long long)(l.phoff + fit * l.phentsize), (unsigned long long)fit,
                 (unsigned long long)(l.phoff + (fit + 1) * l.phentsize), len);
        CORRUPT(g + 2, 2, 0xfff0, RVT_ERR_FORMAT, msg);
        fit = (len - l.shoff) / l.shentsize;
        snprintf(msg, sizeof msg, "section header %llu extends beyond end of file", (unsigned long long)fit);
        CORRUPT(g + 6, 2, 0xfff0, RVT_ERR_FORMAT, msg);
    }
    /* Extended numbering with absurd counts in section 0. */
    {
        uint8_t *c = with(f, len, g + 6, 2, 0); /* e_shnum = 0: count in sh_size */
        put(c + l.shoff + (l.is64 ? 32 : 20), w, huge);
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, "section header");
        free(c);
        c = with(f, len, g + 2, 2, 0xffff); /* e_phnum = PN_XNUM: count in sh_info */
        put(c + l.shoff + (l.is64 ? 44 : 28), 4, 0x7fffffff);
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, "program header");
        free(c);
    }

    /* The first PT_LOAD. */
    uint64_t ph = l.load_ph;
    snprintf(msg, sizeof msg, "offset 0x%llx: program header %llu: segment bytes (p_offset 0x%llx",
             (unsigned long long)ph, (unsigned long long)((ph - l.phoff) / l.phentsize),
             (unsigned long long)huge);
    CORRUPT(ph + ph_field(&l, "offset"), w, huge, RVT_ERR_FORMAT, msg);
    {
        /* p_filesz past the end (p_memsz raised too, to reach that check). */
        uint8_t *c = with(f, len, ph + ph_field(&l, "filesz"), w, len + 1);
        put(c + ph + ph_field(&l, "memsz"), w, len + 1);
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, "extend beyond end of file");
        free(c);
        /* filesz > memsz */
        c = with(f, len, ph + ph_field(&l, "memsz"), w, 1);
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, "is larger than p_memsz 0x1");
        free(c);
        /* A segment that wraps the address space. */
        c = with(f, len, ph + ph_field(&l, "vaddr"), w, huge & ~0xfffull);
        put(c + ph + ph_field(&l, "memsz"), w, 0x100000);
        snprintf(msg, sizeof msg, "runs past the end of the %u-bit address space", l.is64 ? 64 : 32);
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, msg);
        free(c);
        /* No loadable segment at all. */
        c = with(f, len, 0, 0, 0);
        for (unsigned i = 0; i < l.phnum; i++)
            if (get(c + l.phoff + (uint64_t)i * l.phentsize, 4) == 1)
                put(c + l.phoff + (uint64_t)i * l.phentsize, 4, 6);
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, "no PT_LOAD segment");
        put(c + 16, 2, 1); /* ET_REL */
        EXPECT_FAIL(c, len, RVT_ERR_FORMAT, "relocatable object");
        free(c);
    }

    /* Symbol table and its string table. */
    uint64_t st = l.symtab_sh;
    unsigned link_off = l.is64 ? 40 : 24, entsize_off = l.is64 ? 56 : 36,
             size_off = l.is64 ? 32 : 20, off_off = l.is64 ? 24 : 16;
    CORRUPT(st + link_off, 4, 999, RVT_ERR_FORMAT, "sh_link 999 is not a string table section");
    CORRUPT(st + link_off, 4, 0, RVT_ERR_FORMAT, "sh_link 0 is not a string table section");
    snprintf(msg, sizeof msg, "section %u (linked from %s section %u): sh_type is %u",
             l.symtab_index, l.dynamic ? "dynamic symbol table" : "symbol table", l.symtab_index,
             l.dynamic ? 11 : 2);
    CORRUPT(st + link_off, 4, l.symtab_index, RVT_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "sh_entsize is 0, expected at least %u", l.is64 ? 24 : 16);
    CORRUPT(st + entsize_off, w, 0, RVT_ERR_FORMAT, msg);
    snprintf(msg, sizeof msg, "offset 0x%llx: section %u: contents (sh_offset 0x%llx + sh_size 0x%llx)",
             (unsigned long long)st, l.symtab_index, (unsigned long long)l.symtab_off,
             (unsigned long long)huge);
    CORRUPT(st + size_off, w, huge, RVT_ERR_FORMAT, msg);
    CORRUPT(st + off_off, w, huge, RVT_ERR_FORMAT, "extend beyond end of file");
    CORRUPT(l.strtab_off + l.strtab_size - 1, 1, 'x', RVT_ERR_FORMAT, "is not NUL-terminated");
    {
        uint64_t sym1 = l.symtab_off + l.symtab_entsize; /* symbol 1 */
        snprintf(msg, sizeof msg, "offset 0x%llx: symbol 1: st_name 0xffffff is beyond the string table",
                 (unsigned long long)sym1);
        CORRUPT(sym1, 4, 0xffffff, RVT_ERR_FORMAT, msg);
        CORRUPT(sym1 + (l.is64 ? 6 : 14), 2, 0x7fff, RVT_ERR_FORMAT,
                "st_shndx 32767 is not a section");
    }
    free(f);
}

/* Extended numbering done right loads like the original. */
static void test_extended_numbering(void)
{
    char *p = rvt_test_data("image/prog64.elf");
    size_t len;
    uint8_t *f = rvt_test_read(p, &len);
    free(p);
    REQUIRE(f != NULL);
    struct layout l;
    layout_of(f, &l);
    struct rvt_image *a = rvt_img_new(), *b = rvt_img_new();
    REQUIRE(rvt_img_load_elf_mem(a, f, len, "a") == 0);
    unsigned g = 24 + 3 * l.w + 6;
    put(f + g + 2, 2, 0xffff);                       /* e_phnum = PN_XNUM */
    put(f + l.shoff + 44, 4, l.phnum);               /* section 0 sh_info */
    put(f + g + 6, 2, 0);                            /* e_shnum = 0 */
    put(f + l.shoff + 32, 8, l.shnum);               /* section 0 sh_size */
    CHECK_MSG(rvt_img_load_elf_mem(b, f, len, "b") == 0, "%s", rvt_img_error(b));
    CHECK_EQ(rvt_img_segment_count(a), rvt_img_segment_count(b));
    CHECK_EQ(rvt_img_symbol_count(a), rvt_img_symbol_count(b));
    CHECK(rvt_img_symbol_count(b) > 5);
    rvt_img_free(a);
    rvt_img_free(b);
    free(f);
}

/* Thousands of PT_LOAD headers, all pointing at the same file bytes at
 * overlapping addresses: loads quickly, shares one copy, last one wins. */
static void test_many_overlapping_segments(void)
{
    enum { N = 4000 };
    size_t len = 64 + (size_t)N * 56 + 4096;
    uint8_t *f = calloc(1, len);
    REQUIRE(f != NULL);
    memcpy(f, "\x7f" "ELF", 4);
    f[4] = 2;
    f[5] = 1;
    f[6] = 1;
    put(f + 16, 2, 2);     /* ET_EXEC */
    put(f + 18, 2, 243);
    put(f + 20, 4, 1);
    put(f + 24, 8, 0x100000);
    put(f + 32, 8, 64);    /* e_phoff */
    put(f + 52, 2, 64);
    put(f + 54, 2, 56);
    put(f + 56, 2, N);
    uint64_t data = 64 + (uint64_t)N * 56;
    for (size_t i = 0; i < 4096; i++)
        f[data + i] = (uint8_t)i;
    for (unsigned i = 0; i < N; i++) {
        uint8_t *ph = f + 64 + (size_t)i * 56;
        put(ph, 4, 1);
        put(ph + 4, 4, 5);                   /* R X */
        put(ph + 8, 8, data + (i % 16) * 16); /* file bytes shifted by i%16*16 */
        put(ph + 16, 8, 0x100000 + (uint64_t)i * 16);
        put(ph + 32, 8, 4096 - 256);
        put(ph + 40, 8, 4096 - 256 + (i == N - 1 ? 0x1000 : 0));
    }
    struct rvt_image *img = rvt_img_new();
    CHECK_MSG(rvt_img_load_elf_mem(img, f, len, "many.elf") == 0, "%s", rvt_img_error(img));
    CHECK_EQ(rvt_img_segment_count(img), N);
    /* At 0x100000 + 16*k, segments k-239..k cover; the newest (k) wins and
     * holds file byte data + (k%16)*16 there. */
    for (unsigned k = 0; k < N; k += 97) {
        uint8_t b;
        CHECK_EQ(rvt_img_read(img, 0x100000 + (uint64_t)k * 16, &b, 1), 1);
        CHECK_EQ(b, (uint8_t)((k % 16) * 16));
    }
    /* The last one's .bss reads as zeros. */
    uint64_t last = 0x100000 + (uint64_t)(N - 1) * 16;
    uint8_t z[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_EQ(rvt_img_read(img, last + 4096 - 256, z, 8), 8);
    CHECK(z[0] == 0 && z[7] == 0);
    rvt_img_free(img);
    free(f);
}

/* Random byte damage in the headers and tables: errors or a usable image,
 * never a crash. */
static void test_random_damage(const char *rel)
{
    char *p = rvt_test_data(rel);
    size_t len;
    uint8_t *f = rvt_test_read(p, &len);
    free(p);
    REQUIRE(f != NULL);
    struct layout l;
    layout_of(f, &l);
    uint64_t s = 0x243f6a8885a308d3ull;
    unsigned ok = 0, failed = 0;
    uint8_t *c = malloc(len);
    for (int round = 0; round < 3000; round++) {
        memcpy(c, f, len);
        for (int k = 0; k < 4; k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            /* Aim at the ELF header, program headers, section headers, symbols. */
            uint64_t zone = s % 4, at;
            if (zone == 0)
                at = (s >> 8) % 64;
            else if (zone == 1)
                at = l.phoff + (s >> 8) % ((uint64_t)l.phnum * l.phentsize);
            else if (zone == 2)
                at = l.shoff + (s >> 8) % ((uint64_t)l.shnum * l.shentsize);
            else
                at = l.symtab_off + (s >> 8) % (l.symtab_entsize * 16);
            c[at] = (uint8_t)(s >> 40);
        }
        struct rvt_image *img = rvt_img_new();
        if (rvt_img_load_elf_mem(img, c, len, "prog.elf") == 0) {
            ok++;
            for (size_t i = 0; i < rvt_img_symbol_count(img); i++) {
                const struct rvt_symbol *y = rvt_img_symbol_index(img, i);
                rvt_img_symbol_at(img, y->addr);
                CHECK(rvt_img_symbol_named(img, y->name) != NULL);
            }
            struct rvt_bcache *bc = rvt_bcache_new(img, 4);
            for (size_t i = 0; i < rvt_img_segment_count(img); i++) {
                const struct rvt_segment *sg = rvt_img_segment(img, i);
                for (uint64_t a = sg->addr; a - sg->addr < sg->size && a - sg->addr < 512; a += 2)
                    rvt_bcache_get(bc, a);
            }
            rvt_bcache_free(bc);
        } else {
            failed++;
            CHECK(strncmp(rvt_img_error(img), "prog.elf: ", 10) == 0);
        }
        rvt_img_free(img);
    }
    free(c);
    free(f);
    CHECK(ok > 0 && failed > 0);
}

int main(void)
{
    const char *files[] = {"ntrace-t1/test.elf", "image/classes32.elf", "image/prog64.elf",
                           "image/libdyn.so"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        test_truncation(files[i]);
        test_fields(files[i]);
        test_random_damage(files[i]);
    }
    test_extended_numbering();
    test_many_overlapping_segments();
    return rvt_test_summary("test_image_elf_bad");
}
