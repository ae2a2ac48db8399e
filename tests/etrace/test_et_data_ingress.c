/* The data side of the ingress records: the ISA classifier's data access
 * kinds, the builder's classification of accesses QEMU reports without
 * kinds (data_types), the native format's DTYPE/OPERAND/DADDR fields, and
 * the reference flow's data-port CSV (refdata) both ways. */
#include "ingress/refdata.h"
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void classifier(void)
{
    static const struct {
        uint32_t bits;
        int want;
        const char *what;
    } t[] = {
        {0x00052503, RVT_DTYPE_LOAD, "lw a0,0(a0)"},
        {0x4108, RVT_DTYPE_LOAD, "c.lw a0,0(a0)"},
        {0x00053007, RVT_DTYPE_LOAD, "fld ft0,0(a0)"},
        {0x00a52023, RVT_DTYPE_STORE, "sw a0,0(a0)"},
        {0x100525af, RVT_DTYPE_LOAD, "lr.w a1,(a0)"},
        {0x18b5262f, RVT_ISA_DATA_SC, "sc.w a2,a1,(a0)"},
        {0x00b5262f, RVT_DTYPE_AMO_ADD, "amoadd.w"},
        {0x08b5262f, RVT_DTYPE_AMO_SWAP, "amoswap.w"},
        {0x20b5262f, RVT_DTYPE_AMO_XOR, "amoxor.w"},
        {0x60b5262f, RVT_DTYPE_AMO_AND, "amoand.w"},
        {0x40b5262f, RVT_DTYPE_AMO_OR, "amoor.w"},
        {0xa0b5262f, RVT_DTYPE_AMO_MAX, "amomax.w"},
        {0xe0b5262f, RVT_DTYPE_AMO_MAX, "amomaxu.w (no unsigned kind)"},
        {0x80b5362f, RVT_DTYPE_AMO_MIN, "amomin.d"},
        {0x30029073, RVT_DTYPE_CSR_RW, "csrw mstatus,t0"},
        {0x30002573, RVT_DTYPE_CSR_RS, "csrr a0,mstatus"},
        {0x3002b073, RVT_DTYPE_CSR_RC, "csrc mstatus,t0"},
        {0x3002f073, RVT_DTYPE_CSR_RC, "csrci mstatus,5"},
        {0x00b50533, -1, "add a0,a0,a1"},
        {0x0ff0000f, -1, "fence"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct rvt_insn in;
        rvt_isa_decode(t[i].bits, 0x1000, 64, &in);
        int got = rvt_isa_data_access(&in);
        CHECK_MSG(got == t[i].want, "%s: %d, expected %d", t[i].what, got, t[i].want);
    }
    CHECK_STR(rvt_dtype_name(RVT_DTYPE_SC_FAIL), "sc-fail");
    CHECK_STR(rvt_dtype_name(RVT_DTYPE_AMO_MIN), "amomin");
    CHECK_STR(rvt_dtype_name(7), "?");
}

struct recs {
    struct rvt_ing_rec r[16];
    size_t n;
};

static int put(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n < 16)
        v->r[v->n++] = *r;
    return 0;
}

/* QEMU reports an address and whether memory was written: the builder
 * names the kind by the instruction. */
static void builder(void)
{
    struct recs v = {0};
    struct rvt_ing_builder_config cfg = {.size = sizeof cfg, .xlen = 64, .emit = put, .emit_ctx = &v,
                                         .data_types = true};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&cfg);
    REQUIRE(b);
    struct rvt_ing_extra st = {.flags = RVT_ING_HAS_MEM | RVT_ING_MEM_STORE, .mem_addr = 0x8000, .mem_size = 4};
    struct rvt_ing_extra ld = {.flags = RVT_ING_HAS_MEM, .mem_addr = 0x8000, .mem_size = 4};
    uint64_t pc = 0x1000;
    CHECK(rvt_ing_builder_insn(b, pc, 0x00b5262f, 0, 0, &st) == 0); /* amoadd.w: store seen */
    pc += 4;
    CHECK(rvt_ing_builder_insn(b, pc, 0x18b5262f, 0, 0, NULL) == 0); /* sc.w without an access: failed */
    pc += 4;
    CHECK(rvt_ing_builder_insn(b, pc, 0x18b5262f, 0, 0, &st) == 0); /* sc.w that stored */
    pc += 4;
    CHECK(rvt_ing_builder_insn(b, pc, 0x30002573, 0, 0, NULL) == 0); /* csrr a0,mstatus */
    pc += 4;
    CHECK(rvt_ing_builder_insn(b, pc, 0x00052503, 0, 0, &ld) == 0); /* lw */
    pc += 4;
    CHECK(rvt_ing_builder_insn(b, pc, 0x00b50533, 0, 0, NULL) == 0); /* add */
    CHECK(rvt_ing_builder_finish(b) == 0);
    rvt_ing_builder_free(b);
    REQUIRE(v.n == 6);
    CHECK_EQ(rvt_ing_dtype(&v.r[0]), RVT_DTYPE_AMO_ADD);
    CHECK(v.r[0].flags & RVT_ING_MEM_STORE);
    CHECK_EQ(rvt_ing_dtype(&v.r[1]), RVT_DTYPE_SC_FAIL);
    CHECK(!(v.r[1].flags & RVT_ING_HAS_MEM));
    CHECK_EQ(rvt_ing_dtype(&v.r[2]), RVT_DTYPE_STORE);
    CHECK_EQ(rvt_ing_dtype(&v.r[3]), RVT_DTYPE_CSR_RS);
    CHECK_EQ(v.r[3].mem_addr, 0x300);
    CHECK_EQ(v.r[3].mem_size, 8);
    CHECK(!(v.r[3].flags & (RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL)));
    CHECK_EQ(rvt_ing_dtype(&v.r[4]), RVT_DTYPE_LOAD);
    CHECK(!(v.r[4].flags & RVT_ING_HAS_DTYPE));
    CHECK_EQ(rvt_ing_dtype(&v.r[5]), -1);

    /* without data_types nothing is added */
    v.n = 0;
    cfg.data_types = false;
    b = rvt_ing_builder_new(&cfg);
    REQUIRE(b);
    CHECK(rvt_ing_builder_insn(b, 0x1000, 0x30002573, 0, 0, NULL) == 0);
    CHECK(rvt_ing_builder_finish(b) == 0);
    rvt_ing_builder_free(b);
    CHECK(v.n == 1 && rvt_ing_dtype(&v.r[0]) == -1);
}

/* Records with every data field through the native format. */
static void native(void)
{
    struct rvt_ing_rec in[5];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 5; i++) {
        in[i].iaddr = 0x2000 + 4u * (unsigned)i;
        in[i].iretire = 2;
        in[i].ilastsize = 1;
        in[i].priv = RVT_PRIV_M;
    }
    in[0].flags = RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL;
    in[0].mem_addr = 0x9000;
    in[0].mem_size = 8;
    in[0].mem_value = 0x1122334455667788ull;
    in[1].flags = RVT_ING_HAS_MEM | RVT_ING_MEM_STORE | RVT_ING_HAS_MEMVAL | RVT_ING_HAS_DTYPE;
    in[1].dtype = RVT_DTYPE_AMO_MAX;
    in[1].mem_addr = 0x9008;
    in[1].mem_size = 4;
    in[1].mem_value = 7;
    in[1].mem_operand = 0xfffffff0;
    in[2].flags = RVT_ING_HAS_MEMVAL | RVT_ING_HAS_DTYPE;
    in[2].dtype = RVT_DTYPE_CSR_RC;
    in[2].mem_addr = 0x341;
    in[2].mem_size = 8;
    in[2].mem_value = 0x80000000;
    in[2].mem_operand = 3;
    in[3].flags = RVT_ING_HAS_MEMVAL | RVT_ING_HAS_DTYPE;
    in[3].dtype = RVT_DTYPE_SC_FAIL;
    in[3].mem_addr = 0x9010;
    in[3].mem_size = 8;
    in[3].mem_operand = 42;
    in[4].flags = RVT_ING_HAS_DTYPE; /* a CSR access without values (a capture) */
    in[4].dtype = RVT_DTYPE_CSR_RS;
    in[4].mem_addr = 0xc00;
    in[4].mem_size = 8;
    char path[1024];
    snprintf(path, sizeof path, "%s/data.ing", rvt_test_tmpdir());
    struct rvt_ing_writer *w;
    struct rvt_diag d = {0};
    REQUIRE(rvt_ing_writer_open(&w, path, 64, &d) == 0);
    for (int i = 0; i < 5; i++)
        CHECK(rvt_ing_write(w, &in[i]) == 0);
    CHECK(rvt_ing_writer_close(w) == 0);
    struct rvt_ing_reader *r;
    struct rvt_ing_reader_config rc = {.size = sizeof rc};
    REQUIRE(rvt_ing_open(&r, path, &rc, &d) == 0);
    struct rvt_ing_rec out;
    for (int i = 0; i < 5; i++) {
        REQUIRE(rvt_ing_next(r, &out) == 1);
        CHECK_EQ(out.flags, in[i].flags);
        CHECK_EQ(out.dtype, in[i].dtype);
        CHECK_EQ(out.mem_addr, in[i].mem_addr);
        CHECK_EQ(out.mem_size, in[i].mem_size);
        CHECK_EQ(out.mem_value, in[i].mem_value);
        CHECK_EQ(out.mem_operand, in[i].mem_operand);
    }
    CHECK(rvt_ing_next(r, &out) == 0);
    rvt_ing_close(r);

    /* a reserved dtype is refused with the record's offset */
    uint8_t rec[] = {0x90 /* itype 0, 32-bit insn, EXT */, 0x80, 0x80, 0x01 /* ext = DTYPE */, 7};
    uint8_t file[64] = "RVTING\r\n\x01\x00\x40";
    memcpy(file + 16, rec, sizeof rec);
    int n = rvt_ing_parse_native(file, 16 + sizeof rec, NULL, NULL, &d);
    CHECK(n < 0 && strstr(d.msg, "reserved data access type"));
}

static int count(void *ctx, const struct rvt_ing_rec *r)
{
    (void)r;
    ++*(int *)ctx;
    return 0;
}

/* The reference data-port CSV: reading splits an atomic's or CSR's two
 * values, writing joins them (16-byte values on RV64 too). */
static void refdata(void)
{
    const char *text = "DRETIRE,DTYPE,DADDR,DSIZE,DATA\n"
                       "1,0,1000,2,deadbeef\n"
                       "0,1,1004,2,0\n"
                       "1,9,1008,3,0000000500000007\n"
                       "1,5,300,4,00000000000020000000000a00002000\n"
                       "1,1,100f,0,ff\n";
    struct recs v = {0};
    struct rvt_diag d = {0};
    REQUIRE(rvt_refdata_parse_mem(text, strlen(text), "t.csv", put, &v, &d) == 4);
    CHECK(v.r[0].dtype == RVT_DTYPE_LOAD && v.r[0].mem_value == 0xdeadbeef && v.r[0].mem_size == 4);
    CHECK(v.r[1].dtype == RVT_DTYPE_AMO_ADD && v.r[1].mem_size == 4 && v.r[1].mem_value == 7 &&
          v.r[1].mem_operand == 5 && (v.r[1].flags & RVT_ING_MEM_STORE));
    CHECK(v.r[2].dtype == RVT_DTYPE_CSR_RS && v.r[2].mem_size == 8 && v.r[2].mem_value == 0xa00002000ull &&
          v.r[2].mem_operand == 0x2000 && !(v.r[2].flags & RVT_ING_HAS_MEM));
    CHECK(v.r[3].dtype == RVT_DTYPE_STORE && v.r[3].mem_addr == 0x100f && v.r[3].mem_size == 1);
    char path[1024];
    snprintf(path, sizeof path, "%s/t.csv", rvt_test_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    uint64_t skipped = 0;
    CHECK(rvt_refdata_write_header(f) == 0);
    for (size_t i = 0; i < v.n; i++)
        CHECK(rvt_refdata_write(f, &v.r[i], &skipped) == 0);
    struct rvt_ing_rec scf = {.flags = RVT_ING_HAS_DTYPE, .dtype = RVT_DTYPE_SC_FAIL, .mem_size = 4};
    CHECK(rvt_refdata_write(f, &scf, &skipped) == 0);
    fclose(f);
    CHECK_EQ(skipped, 1);
    uint8_t *back = NULL;
    size_t len = 0;
    REQUIRE(rvt_read_file(path, &back, &len, &d) == 0);
    static const char want[] = "DRETIRE,DTYPE,DADDR,DSIZE,DATA\n"
                               "1,0,1000,2,deadbeef\n"
                               "1,9,1008,3,500000007\n"
                               "1,5,300,4,20000000000a00002000\n"
                               "1,1,100f,0,ff\n";
    CHECK_MSG(len == strlen(want) && memcmp(back, want, len) == 0, "refdata written: %.*s", (int)len, (char *)back);
    free(back);

    /* errors name the line */
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"DRETIRE,DTYPE\n", "t.csv:1: expected the header"},
        {"DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,3,0,0,0\n", "t.csv:2: reserved dtype 3"},
        {"DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,0,0,2,100000000\n", "t.csv:2: data wider than dsize 2"},
        {"DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,0,0,4,0\n", "t.csv:2: dsize 4"},
        {"DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,8,0,0,0\n", "t.csv:2: dsize 0 out of range"},
        {"DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,0,xyz,2,0\n", "t.csv:2: daddr \"xyz\" is not a hexadecimal"},
        {"DRETIRE,DTYPE,DADDR,DSIZE,DATA\n1,0,0,2\n", "t.csv:2: 4 fields"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int n = 0;
        memset(&d, 0, sizeof d);
        CHECK(rvt_refdata_parse_mem(bad[i].text, strlen(bad[i].text), "t.csv", count, &n, &d) < 0);
        CHECK_MSG(strstr(d.msg, bad[i].want) != NULL, "\"%s\" not in \"%s\"", bad[i].want, d.msg);
    }
}

int main(void)
{
    classifier();
    builder();
    native();
    refdata();
    return rvt_test_summary("test_et_data_ingress");
}
