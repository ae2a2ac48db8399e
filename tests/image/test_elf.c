/* Image tests: ELF loading (RV32 reference vector, RV32/RV64 ELFs built by
 * tests/data/image/build.sh, a stripped shared object), reads, single
 * instructions against objdump, symbols, raw binaries, the reader callback. */
#include "rvtrace/image.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static struct rvt_image *load(const char *rel)
{
    char *p = rvt_test_data(rel);
    struct rvt_image *img = rvt_img_new();
    int e = rvt_img_load_elf(img, p);
    CHECK_MSG(e == 0, "load %s: %s", p, rvt_img_error(img));
    free(p);
    return img;
}

/* Every instruction objdump printed: same bytes, same length. */
static void test_objdump_agreement(const struct rvt_image *img)
{
    char *p = rvt_test_data("ntrace-t1/test-OBJD.txt");
    FILE *f = fopen(p, "r");
    free(p);
    REQUIRE(f != NULL);
    char line[512];
    unsigned count = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long addr;
        char hex[32];
        if (sscanf(line, " %llx:\t%31s", &addr, hex) != 2 || !strchr(line, '\t'))
            continue;
        size_t nd = strlen(hex);
        if (nd != 4 && nd != 8)
            continue;
        uint32_t bits = (uint32_t)strtoul(hex, NULL, 16);
        struct rvt_insn in;
        int e = rvt_img_insn(img, addr, &in);
        uint32_t mask = nd == 4 ? 0xffffu : 0xffffffffu;
        if (e != 0 || in.len != nd / 2 || (in.bits & mask) != bits || in.pc != addr) {
            if (bad++ < 5)
                rvt_test_fail(__FILE__, __LINE__, "0x%llx: expected %s, got e=%d len=%u bits=%08x",
                              addr, hex, e, in.len, in.bits);
        }
        uint8_t b[4];
        size_t n = rvt_img_read(img, addr, b, nd / 2);
        uint32_t got = b[0] | b[1] << 8 | (nd == 8 ? (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0);
        if (n != nd / 2 || got != bits)
            bad++;
        count++;
    }
    fclose(f);
    CHECK_EQ(bad, 0);
    CHECK_EQ(count, 619); /* grep -c of the instruction lines */
}

static void test_reference_elf(void)
{
    struct rvt_image *img = load("ntrace-t1/test.elf");
    CHECK_EQ(rvt_img_xlen(img), 32);
    CHECK_EQ(rvt_img_entry(img), 0x20010000);

    /* PT_LOADs: code (R E, 0x864c bytes), .bss (no file bytes), .data at
     * 0x80000000 (0x428 bytes), two empty ones: two segments have contents. */
    REQUIRE(rvt_img_segment_count(img) == 2);
    const struct rvt_segment *code = rvt_img_segment(img, 0), *data = rvt_img_segment(img, 1);
    CHECK_EQ(code->addr, 0x20010000);
    CHECK_EQ(code->size, 0x864c);
    CHECK(code->exec);
    CHECK(strstr(code->name, "test.elf") != NULL);
    CHECK_EQ(data->addr, 0x80000000);
    CHECK_EQ(data->size, 0x428);
    CHECK(!data->exec);
    CHECK(rvt_img_segment(img, 2) == NULL);

    size_t flen;
    char *p = rvt_test_data("ntrace-t1/test.elf");
    uint8_t *file = rvt_test_read(p, &flen);
    free(p);
    REQUIRE(file != NULL);
    CHECK(memcmp(code->data, file + 0x1000, 0x864c) == 0);
    CHECK(memcmp(data->data, file + 0xa000, 0x428) == 0);

    /* Reads: code bytes ("auipc gp,0x5fff1" = 5fff1197), the end of the code
     * segment, data followed by zero-filled .bss, the end of .bss. */
    uint8_t b[32];
    CHECK_EQ(rvt_img_read(img, 0x20010000, b, 4), 4);
    CHECK(b[0] == 0x97 && b[1] == 0x11 && b[2] == 0xff && b[3] == 0x5f);
    CHECK_EQ(rvt_img_read(img, 0x2001864a, b, 8), 2);
    memset(b, 0xaa, sizeof b);
    CHECK_EQ(rvt_img_read(img, 0x80000420, b, 16), 16);
    CHECK(memcmp(b, file + 0xa420, 8) == 0);
    static const uint8_t zeros[16];
    CHECK(memcmp(b + 8, zeros, 8) == 0);
    CHECK_EQ(rvt_img_read(img, 0x80000428 + 0x10990 - 4, b, 16), 4);
    CHECK_EQ(rvt_img_read(img, 0x80000428 + 0x10990, b, 16), 0);
    CHECK_EQ(rvt_img_read(img, 0x1000, b, 16), 0);
    free(file);

    test_objdump_agreement(img);

    /* Classes of a few instructions (objdump: beqz, jal, jalr ra, ret, j). */
    struct rvt_insn in;
    CHECK_EQ(rvt_img_insn(img, 0x20010018, &in), 0);
    CHECK_EQ(in.cf, RVT_CF_BRANCH);
    CHECK_EQ(in.target, 0x20010020);
    CHECK_EQ(rvt_img_insn(img, 0x2001003e, &in), 0);
    CHECK_EQ(in.cf, RVT_CF_CALL_INF);
    CHECK_EQ(in.target, 0x20010070);
    CHECK_EQ(in.len, 2);
    CHECK_EQ(rvt_img_insn(img, 0x20010034, &in), 0);
    CHECK_EQ(in.cf, RVT_CF_CALL_UNINF);
    CHECK_EQ(rvt_img_insn(img, 0x2001006e, &in), 0);
    CHECK_EQ(in.cf, RVT_CF_RETURN);
    CHECK_EQ(rvt_img_insn(img, 0x20010090, &in), 0);
    CHECK_EQ(in.cf, RVT_CF_JUMP_INF);
    CHECK_EQ(in.target, 0x20010088);
    CHECK_EQ(rvt_img_insn(img, 0x2001864c, &in), -RVT_ERR_NOCODE);
    CHECK_EQ(rvt_img_insn(img, 0x10, &in), -RVT_ERR_NOCODE);

    /* Symbols.  readelf -s lists 75 entries; 48 are named functions, objects
     * or untyped symbols with a section (the rest: the null entry, 16
     * sections, 10 files). */
    CHECK_EQ(rvt_img_symbol_count(img), 48);
    for (size_t i = 1; i < rvt_img_symbol_count(img); i++)
        CHECK(rvt_img_symbol_index(img, i - 1)->addr <= rvt_img_symbol_index(img, i)->addr);
    CHECK(rvt_img_symbol_index(img, 48) == NULL);
    const struct rvt_symbol *s = rvt_img_symbol_named(img, "main");
    REQUIRE(s != NULL);
    CHECK_EQ(s->addr, 0x20010522);
    CHECK_EQ(s->size, 136);
    CHECK(s->is_func);
    s = rvt_img_symbol_named(img, "bmp_buf");
    REQUIRE(s != NULL);
    CHECK_EQ(s->addr, 0x80000428);
    CHECK_EQ(s->size, 32448);
    CHECK(!s->is_func);
    s = rvt_img_symbol_named(img, "early_trap_vector"); /* untyped label in .init */
    REQUIRE(s != NULL);
    CHECK(s->is_func);
    s = rvt_img_symbol_named(img, "argv"); /* untyped label in .rodata */
    REQUIRE(s != NULL);
    CHECK(!s->is_func);
    CHECK(rvt_img_symbol_named(img, ".text") == NULL);
    CHECK(rvt_img_symbol_named(img, "test.c") == NULL);
    CHECK(rvt_img_symbol_named(img, "no_such_symbol") == NULL);

    CHECK_STR(rvt_img_symbol_at(img, 0x20010522)->name, "main");
    CHECK_STR(rvt_img_symbol_at(img, 0x20010530)->name, "main");
    CHECK_STR(rvt_img_symbol_at(img, 0x200105a9)->name, "main");
    CHECK_STR(rvt_img_symbol_at(img, 0x200105aa)->name, "atexit");
    CHECK_STR(rvt_img_symbol_at(img, 0x20010064)->name, "early_trap_vector");
    CHECK_STR(rvt_img_symbol_at(img, 0x20010134)->name, "_skip_init");
    CHECK_STR(rvt_img_symbol_at(img, 0x20010168)->name, "_fini"); /* _fini and _init alias */
    CHECK_STR(rvt_img_symbol_at(img, 0x80000500)->name, "bmp_buf");
    CHECK_STR(rvt_img_symbol_at(img, 0x200107c5)->name, "riscvlogo");
    CHECK_STR(rvt_img_symbol_at(img, 0x20010720)->name, "memcpy");
    /* Past every function and object: no symbol, as the nearest function
     * before says by its size where it ends (__register_exitproc ends at
     * 0x200107ac; riscvlogo, 32390 bytes from 0x200107c0, ends at
     * 0x20018646; _global_impure_ptr is at 0x20018648): naming it would
     * charge a stripped library's internal code to the exported function
     * before it. */
    CHECK_STR(rvt_img_symbol_at(img, 0x20018645)->name, "riscvlogo");
    CHECK(rvt_img_symbol_at(img, 0x20018646) == NULL);
    CHECK_STR(rvt_img_symbol_at(img, 0x2001864b)->name, "_global_impure_ptr");
    CHECK_STR(rvt_img_symbol_at(img, 0)->name, "__metal_boot_hart");
    CHECK(rvt_img_symbol_at(img, 0x10) == NULL);
    rvt_img_free(img);
}

static void test_built_elfs(void)
{
    struct rvt_image *img = load("image/prog64.elf");
    CHECK_EQ(rvt_img_xlen(img), 64);
    const struct rvt_symbol *start = rvt_img_symbol_named(img, "_start");
    REQUIRE(start != NULL);
    CHECK_EQ(rvt_img_entry(img), start->addr);
    /* One R E segment with contents; the RW one is all .bss (no segment,
     * but readable as zeros). */
    CHECK_EQ(rvt_img_segment_count(img), 1);
    const struct rvt_symbol *run = rvt_img_symbol_named(img, "run");
    REQUIRE(run != NULL);
    CHECK(run->is_func && run->size > 16);
    CHECK(rvt_img_symbol_at(img, run->addr + run->size - 2) == run);
    const struct rvt_symbol *table = rvt_img_symbol_named(img, "table");
    REQUIRE(table != NULL);
    CHECK(!table->is_func);
    CHECK_EQ(table->size, 64 * 8);
    uint8_t b[8];
    memset(b, 0xaa, sizeof b);
    CHECK_EQ(rvt_img_read(img, table->addr, b, 8), 8);
    CHECK(b[0] == 0 && b[7] == 0);
    CHECK(rvt_img_symbol_at(img, table->addr + 8) == table);

    /* A second ELF: segments and symbols add up; xlen and entry stay. */
    uint64_t entry = start->addr;
    char *p = rvt_test_data("image/classes32.elf");
    CHECK_EQ(rvt_img_load_elf(img, p), 0);
    free(p);
    CHECK_EQ(rvt_img_xlen(img), 64);
    CHECK_EQ(rvt_img_entry(img), entry);
    CHECK(entry != 0x10000); /* classes32.elf's entry */
    CHECK_EQ(rvt_img_segment_count(img), 2);
    CHECK(rvt_img_symbol_named(img, "run") != NULL);
    CHECK(rvt_img_symbol_named(img, "b_cap") != NULL);
    rvt_img_free(img);

    img = load("image/classes32.elf");
    CHECK_EQ(rvt_img_xlen(img), 32);
    CHECK_EQ(rvt_img_entry(img), 0x10000);
    /* Mapping symbols ($x..., $d) are not names. */
    for (size_t i = 0; i < rvt_img_symbol_count(img); i++)
        CHECK(rvt_img_symbol_index(img, i)->name[0] != '$');
    /* The code segment's last bytes: nop, c.nop at b_end; a 16-bit
     * instruction ends the segment. */
    const struct rvt_symbol *end = rvt_img_symbol_named(img, "b_end");
    REQUIRE(end != NULL);
    const struct rvt_segment *seg = rvt_img_segment(img, 0);
    CHECK_EQ(seg->addr + seg->size, end->addr + 6);
    struct rvt_insn in;
    CHECK_EQ(rvt_img_insn(img, end->addr + 4, &in), 0);
    CHECK_EQ(in.len, 2);
    CHECK_EQ(in.bits & 0xffff, 0x0001);
    CHECK_EQ(rvt_img_insn(img, end->addr + 6, &in), -RVT_ERR_NOCODE);
    rvt_img_set_xlen(img, 64);
    CHECK_EQ(rvt_img_xlen(img), 64);
    rvt_img_set_xlen(img, 48); /* ignored */
    CHECK_EQ(rvt_img_xlen(img), 64);
    rvt_img_free(img);

    /* Stripped shared object: the dynamic symbol table is used, and its
     * PLT stub is named as objdump names it. */
    img = load("image/libdyn.so");
    CHECK_EQ(rvt_img_xlen(img), 64);
    CHECK_EQ(rvt_img_symbol_count(img), 4);
    const struct rvt_symbol *stub = rvt_img_symbol_named(img, "lib_add@plt");
    REQUIRE(stub != NULL);
    CHECK_EQ(stub->addr, 0x270);
    CHECK_EQ(stub->size, 16);
    CHECK(stub->is_func);
    CHECK(rvt_img_symbol_at(img, 0x27c) == stub);
    /* the PLT's header, the lazy binder's way in: ".plt", as objdump */
    const struct rvt_symbol *plt = rvt_img_symbol_named(img, ".plt");
    REQUIRE(plt != NULL);
    CHECK_EQ(plt->addr, 0x250);
    CHECK_EQ(plt->size, 32);
    CHECK(plt->is_func);
    CHECK(rvt_img_symbol_at(img, 0x250) == plt);
    CHECK(rvt_img_symbol_at(img, 0x26e) == plt);
    const struct rvt_symbol *add = rvt_img_symbol_named(img, "lib_add");
    const struct rvt_symbol *twice = rvt_img_symbol_named(img, "lib_twice");
    REQUIRE(add && twice);
    CHECK(add->is_func && twice->is_func);
    CHECK(rvt_img_symbol_at(img, twice->addr + 2) == twice);
    rvt_img_free(img);
}

/* A real distribution binary, when the cross libc is installed. */
static void test_system_elf(void)
{
    const char *path = "/usr/riscv64-linux-gnu/lib/libc.so.6";
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("note: %s not installed, skipped\n", path);
        return;
    }
    fclose(f);
    struct rvt_image *img = rvt_img_new();
    CHECK_MSG(rvt_img_load_elf(img, path) == 0, "%s", rvt_img_error(img));
    CHECK_EQ(rvt_img_xlen(img), 64);
    const struct rvt_symbol *s = rvt_img_symbol_named(img, "memcpy");
    REQUIRE(s != NULL);
    CHECK(s->is_func);
    CHECK(rvt_img_symbol_at(img, s->addr) != NULL);
    CHECK(rvt_img_symbol_count(img) > 1000);
    rvt_img_free(img);
}

static void test_errors(void)
{
    struct rvt_image *img = rvt_img_new();
    CHECK_STR(rvt_img_error(img), "");
    CHECK_EQ(rvt_img_xlen(img), 64);
    int e = rvt_img_load_elf(img, "/nonexistent/prog.elf");
    CHECK_EQ(e, -RVT_ERR_IO);
    CHECK(strstr(rvt_img_error(img), "/nonexistent/prog.elf") != NULL);
    e = rvt_img_add_raw_file(img, 0x1000, "/nonexistent/raw.bin");
    CHECK_EQ(e, -RVT_ERR_IO);
    /* Not RISC-V: the host's own executable (x86-64 or other). */
    e = rvt_img_load_elf(img, "/proc/self/exe");
    CHECK(e < 0);
    CHECK_MSG(strstr(rvt_img_error(img), "e_machine is") != NULL, "%s", rvt_img_error(img));
    CHECK(strstr(rvt_img_error(img), "expected 243 (RISC-V)") != NULL);
    CHECK_EQ(rvt_img_segment_count(img), 0);
    rvt_img_free(img);
}

static void test_raw(void)
{
    struct rvt_image *img = rvt_img_new();
    uint8_t a[16], bb[16], c[64], out[80];
    for (int i = 0; i < 16; i++) {
        a[i] = (uint8_t)(0xa0 + i);
        bb[i] = (uint8_t)(0xb0 + i);
    }
    for (int i = 0; i < 64; i++)
        c[i] = (uint8_t)(0xc0 + i);
    CHECK_EQ(rvt_img_add_raw(img, 0x1000, a, 16, "a.bin"), 0);
    CHECK_EQ(rvt_img_add_raw(img, 0x1008, bb, 16, NULL), 0);
    /* Last added wins where they overlap. */
    CHECK_EQ(rvt_img_read(img, 0x1000, out, 80), 24);
    CHECK(memcmp(out, a, 8) == 0);
    CHECK(memcmp(out + 8, bb, 16) == 0);
    CHECK_EQ(rvt_img_segment_count(img), 2);
    CHECK_STR(rvt_img_segment(img, 0)->name, "a.bin");
    CHECK_STR(rvt_img_segment(img, 1)->name, "raw@0x1008");
    CHECK(rvt_img_segment(img, 0)->exec);
    /* An older segment under a newer one stays visible around it. */
    CHECK_EQ(rvt_img_add_raw(img, 0x1004, c, 2, "c.bin"), 0);
    CHECK_EQ(rvt_img_read(img, 0x1000, out, 80), 24);
    CHECK(memcmp(out, a, 4) == 0 && memcmp(out + 4, c, 2) == 0 && out[6] == a[6] &&
          out[8] == bb[0]);
    /* Covering everything. */
    CHECK_EQ(rvt_img_add_raw(img, 0x0ff0, c, 64, "c.bin"), 0);
    CHECK_EQ(rvt_img_read(img, 0x0ff0, out, 80), 64);
    CHECK(memcmp(out, c, 64) == 0);
    CHECK_EQ(rvt_img_read(img, 0x0fef, out, 4), 0);

    /* Errors: empty, wrapping past the top of the address space. */
    CHECK_EQ(rvt_img_add_raw(img, 0x2000, a, 0, "e.bin"), -RVT_ERR_INVAL);
    CHECK_EQ(rvt_img_add_raw(img, UINT64_MAX - 7, a, 16, "w.bin"), -RVT_ERR_INVAL);
    CHECK(strstr(rvt_img_error(img), "w.bin") != NULL);
    CHECK_EQ(rvt_img_add_raw(img, UINT64_MAX - 16, a, 16, "top.bin"), 0);
    CHECK_EQ(rvt_img_read(img, UINT64_MAX - 4, out, 16), 4);

    /* From a file. */
    char path[512];
    snprintf(path, sizeof path, "%s/raw.bin", rvt_test_tmpdir());
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fwrite(bb, 1, 16, f);
    fclose(f);
    CHECK_EQ(rvt_img_add_raw_file(img, 0x5000, path), 0);
    CHECK_EQ(rvt_img_read(img, 0x5000, out, 32), 16);
    CHECK(memcmp(out, bb, 16) == 0);
    CHECK_STR(rvt_img_segment(img, rvt_img_segment_count(img) - 1)->name, path);

    /* Raw code over an ELF's code. */
    struct rvt_image *e = load("ntrace-t1/test.elf");
    static const uint8_t cnop[2] = {0x01, 0x00};
    CHECK_EQ(rvt_img_add_raw(e, 0x20010002, cnop, 2, "patch"), 0);
    CHECK_EQ(rvt_img_read(e, 0x20010000, out, 4), 4);
    CHECK(out[0] == 0x97 && out[1] == 0x11 && out[2] == 0x01 && out[3] == 0x00);
    rvt_img_free(e);
    rvt_img_free(img);
}

/* A reader that serves [0x4000, 0x4100) and records what it was asked. */
struct fake_mem {
    uint64_t lo, hi;
    unsigned calls;
    uint64_t max_end; /* highest addr + len requested */
    uint64_t asked_inside; /* requests overlapping [0x4100, 0x4200) (a segment) */
};

static size_t fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct fake_mem *m = ctx;
    m->calls++;
    if (addr + len > m->max_end)
        m->max_end = addr + len;
    if (addr < 0x4200 && addr + len > 0x4100)
        m->asked_inside++;
    if (addr < m->lo || addr >= m->hi)
        return 0;
    size_t n = (size_t)(m->hi - addr) < len ? (size_t)(m->hi - addr) : len;
    for (size_t i = 0; i < n; i++)
        ((uint8_t *)buf)[i] = (uint8_t)(addr + i);
    return n;
}

static void test_reader(void)
{
    struct rvt_image *img = rvt_img_new();
    struct fake_mem m = {0x4000, 0x4100, 0, 0, 0};
    uint8_t seg[256], out[512];
    memset(seg, 0xee, sizeof seg);
    CHECK_EQ(rvt_img_add_raw(img, 0x4100, seg, sizeof seg, "seg"), 0);
    rvt_img_set_reader(img, fake_read, &m);
    /* Gap before the segment comes from the reader, limited to the gap;
     * the segment then continues the read. */
    CHECK_EQ(rvt_img_read(img, 0x40f0, out, 64), 64);
    CHECK(out[0] == 0xf0 && out[15] == 0xff && out[16] == 0xee && out[63] == 0xee);
    CHECK_EQ(m.asked_inside, 0);
    CHECK_EQ(m.max_end, 0x4100);
    /* Inside the segment the reader is not asked. */
    unsigned calls = m.calls;
    CHECK_EQ(rvt_img_read(img, 0x4180, out, 16), 16);
    CHECK_EQ(m.calls, calls);
    /* After the segment: the reader has nothing there. */
    CHECK_EQ(rvt_img_read(img, 0x41f0, out, 64), 16);
    CHECK(m.calls > calls);
    CHECK_EQ(rvt_img_read(img, 0x9000, out, 4), 0);
    rvt_img_free(img);
}

/* The demangler of test_loaded_higher: one name it knows. */
static char *fake_demangle(const char *name)
{
    return strcmp(name, "_Z3addv") == 0 ? strdup("add()") : NULL;
}

/* A shared object loaded higher up (where a load map puts it), and its
 * C++ name shown demangled. */
static void test_loaded_higher(void)
{
    char *p = rvt_test_data("image/libdyn.so");
    FILE *f = fopen(p, "rb");
    free(p);
    REQUIRE(f != NULL);
    static unsigned char buf[1 << 16];
    const size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    REQUIRE(len > 0 && len < sizeof buf);
    const uint64_t bias = 0x4000000000ull;

    struct rvt_image *img = rvt_img_new();
    CHECK_MSG(rvt_img_load_elf_mem_at(img, buf, len, "libdyn.so", bias) == 0, "%s", rvt_img_error(img));
    const struct rvt_symbol *add = rvt_img_symbol_named(img, "lib_add");
    const struct rvt_symbol *twice = rvt_img_symbol_named(img, "lib_twice");
    REQUIRE(add && twice);
    CHECK_EQ(add->addr, bias + 0x280);
    CHECK_EQ(twice->addr, bias + 0x284);
    CHECK(rvt_img_symbol_at(img, twice->addr + 2) == twice);
    CHECK(rvt_img_symbol_at(img, 0x284) == NULL);
    struct rvt_insn in;
    CHECK_EQ(rvt_img_insn(img, bias + 0x280, &in), 0);
    CHECK_EQ(rvt_img_insn(img, 0x280, &in), -RVT_ERR_NOCODE);
    for (size_t i = 0; i < rvt_img_segment_count(img); i++)
        CHECK(rvt_img_segment(img, i)->addr >= bias);
    rvt_img_free(img);

    /* Loaded so high that a segment leaves the address space. */
    img = rvt_img_new();
    CHECK_EQ(rvt_img_load_elf_mem_at(img, buf, len, "libdyn.so", UINT64_MAX - 0xfff), -RVT_ERR_INVAL);
    CHECK(strstr(rvt_img_error(img), "libdyn.so: loaded at 0xfffffffffffff000") != NULL);
    CHECK(strstr(rvt_img_error(img), "leaves the 64-bit address space") != NULL);
    rvt_img_free(img);

    /* Its dynamic string table's "lib_add" made the mangled "_Z3addv". */
    unsigned char *at = NULL;
    for (size_t i = 0; i + 8 <= len && !at; i++)
        if (memcmp(buf + i, "lib_add", 8) == 0)
            at = buf + i;
    REQUIRE(at != NULL);
    memcpy(at, "_Z3addv", 8);
    img = rvt_img_new();
    CHECK_MSG(rvt_img_load_elf_mem_at(img, buf, len, "libdyn.so", bias) == 0, "%s", rvt_img_error(img));
    CHECK_EQ(rvt_img_demangle(img, fake_demangle), 0);
    add = rvt_img_symbol_named(img, "add()");
    REQUIRE(add != NULL);
    CHECK_EQ(add->addr, bias + 0x280);
    CHECK(rvt_img_symbol_named(img, "_Z3addv") == add); /* the file's name finds it too */
    CHECK_STR(rvt_img_symbol_at(img, bias + 0x280)->name, "add()");
    CHECK_STR(rvt_img_symbol_named(img, "lib_twice")->name, "lib_twice"); /* C names stay */
    rvt_img_free(img);
}

int main(void)
{
    test_loaded_higher();
    test_reference_elf();
    test_built_elfs();
    test_system_elf();
    test_errors();
    test_raw();
    test_reader();
    return rvt_test_summary("test_image_elf");
}
