/* Disassembly against real GNU objdump listings: every instruction line of
 * each listing is decoded from its bits at its address and our text must
 * equal objdump's mnemonic and operands exactly, after removing objdump's
 * decorations (the "<symbol+off>" after addresses and "# comment" tails).
 *
 * Listings made by binutils 2.40 (tests/data/isa/) get one documented
 * rewrite: 2.40 prints immediate-operand instructions under their
 * register-form name ("add a0,a0,1" for addi, "csrw mtvec,8" for csrwi);
 * every other binutils release, test-OBJD.txt included, prints the real
 * name, which is what we print.  The rewrite maps a register-form mnemonic
 * whose last operand is a number back to its immediate form. */
#include "testlib.h"

#include "isa/opcodes.h"
#include "rvtrace/isa.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct listing_stats {
    unsigned lines;      /* instruction lines compared */
    unsigned mismatches; /* lines that differ */
    unsigned rewritten;  /* lines the 2.40 rewrite touched */
};

static const struct {
    const char *reg_form, *imm_form;
} binutils240_imm_names[] = {
    {"add", "addi"},   {"and", "andi"},   {"or", "ori"},       {"xor", "xori"},     {"slt", "slti"},
    {"sltu", "sltiu"}, {"sll", "slli"},   {"srl", "srli"},     {"sra", "srai"},     {"addw", "addiw"},
    {"sllw", "slliw"}, {"srlw", "srliw"}, {"sraw", "sraiw"},   {"csrw", "csrwi"},   {"csrs", "csrsi"},
    {"csrc", "csrci"}, {"csrrw", "csrrwi"}, {"csrrs", "csrrsi"}, {"csrrc", "csrrci"},
};

static bool is_number(const char *s)
{
    if (*s == '-')
        s++;
    if (s[0] == '0' && s[1] == 'x') {
        s += 2;
        if (!*s)
            return false;
        for (; *s; s++)
            if (!isxdigit((unsigned char)*s))
                return false;
        return true;
    }
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* objdump's "mnemonic\toperands <sym> # comment" -> "mnemonic operands". */
static bool normalize(const char *text, bool binutils240, char *out, size_t size, bool *rewritten)
{
    char tmp[256];
    size_t n = 0;
    bool in_sym = false;
    *rewritten = false;
    for (const char *p = text; *p && n + 1 < sizeof tmp; p++) {
        if (*p == '#')
            break;
        if (*p == '<')
            in_sym = true;
        else if (*p == '>' && in_sym)
            in_sym = false;
        else if (!in_sym)
            tmp[n++] = *p == '\t' ? ' ' : *p;
    }
    while (n && tmp[n - 1] == ' ')
        tmp[--n] = '\0';
    tmp[n] = '\0';
    /* Split into mnemonic and operands (operands never contain spaces). */
    char *sp = strchr(tmp, ' ');
    const char *ops = "";
    if (sp) {
        *sp = '\0';
        ops = sp + 1;
        while (*ops == ' ')
            ops++;
    }
    const char *mn = tmp;
    if (binutils240 && *ops) {
        const char *last = strrchr(ops, ',');
        last = last ? last + 1 : ops;
        if (is_number(last)) {
            for (size_t i = 0; i < sizeof binutils240_imm_names / sizeof binutils240_imm_names[0]; i++)
                if (strcmp(mn, binutils240_imm_names[i].reg_form) == 0) {
                    mn = binutils240_imm_names[i].imm_form;
                    *rewritten = true;
                    break;
                }
        }
    }
    int w = *ops ? snprintf(out, size, "%s %s", mn, ops) : snprintf(out, size, "%s", mn);
    return w > 0 && (size_t)w < size;
}

/* One listing line "    addr:\tbits \ttext": false if it is not an
 * instruction line (headers, labels, wrapped byte continuations). */
static bool parse_line(char *line, uint64_t *addr, uint32_t *bits, unsigned *nbytes, char **text)
{
    char *p = line;
    while (*p == ' ')
        p++;
    char *end;
    *addr = strtoull(p, &end, 16);
    if (end == p || end[0] != ':' || end[1] != '\t')
        return false;
    p = end + 2;
    /* bits: one 8-digit word, or 4-digit parcels separated by spaces */
    uint32_t v = 0;
    unsigned digits = 0, parcels = 0;
    while (isxdigit((unsigned char)*p) || *p == ' ') {
        if (*p == ' ') {
            p++;
            continue;
        }
        char *q = p;
        unsigned long w = strtoul(p, &q, 16);
        unsigned d = (unsigned)(q - p);
        if (d == 8 && digits == 0)
            v = (uint32_t)w;
        else if (d == 4 && parcels < 2)
            v |= (uint32_t)w << (16 * parcels);
        digits += d;
        parcels++;
        p = q;
    }
    if (*p != '\t' || !digits)
        return false;
    *text = p + 1;
    (*text)[strcspn(*text, "\r\n")] = '\0';
    if (!**text)
        return false;
    *bits = v;
    *nbytes = digits / 2;
    return true;
}

static struct listing_stats compare_listing(const char *rel, unsigned xlen, bool binutils240)
{
    struct listing_stats st = {0, 0, 0};
    char *path = rvt_test_data(rel);
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f) {
        free(path);
        return st;
    }
    char line[512];
    unsigned lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        uint64_t addr;
        uint32_t bits;
        unsigned nbytes;
        char *text;
        if (!parse_line(line, &addr, &bits, &nbytes, &text))
            continue;
        char want[256], got[256];
        bool rewritten;
        CHECK(normalize(text, binutils240, want, sizeof want, &rewritten));
        struct rvt_insn in;
        CHECK_EQ(rvt_isa_decode(bits, addr, xlen, &in), 0);
        CHECK_MSG(in.len == nbytes || (nbytes > 8 && in.len == 0),
                  "%s:%u: length %u, objdump shows %u bytes", rel, lineno, in.len, nbytes);
        rvt_isa_disasm(&in, xlen, got, sizeof got);
        st.lines++;
        st.rewritten += rewritten;
        if (strcmp(want, got) != 0) {
            st.mismatches++;
            CHECK_MSG(false, "%s:%u: %08x: objdump \"%s\", ours \"%s\"", rel, lineno, bits, want,
                      got);
        }
    }
    fclose(f);
    free(path);
    printf("%s: %u instruction lines, %u mismatches, %u lines with the 2.40 immediate-name rewrite\n",
           rel, st.lines, st.mismatches, st.rewritten);
    return st;
}

int main(void)
{
    /* The N-Trace reference program (RV32IMAC), listed by its own objdump. */
    struct listing_stats t1 = compare_listing("ntrace-t1/test-OBJD.txt", 32, false);
    CHECK_EQ(t1.lines, 619);
    CHECK_EQ(t1.mismatches, 0);

    /* Real RV64GC and RV32GC programs listed by binutils 2.40. */
    struct listing_stats r64 = compare_listing("isa/rv64gc-prog.objd.txt", 64, true);
    CHECK(r64.lines > 4000);
    CHECK_EQ(r64.mismatches, 0);
    struct listing_stats r32 = compare_listing("isa/rv32gc-prog.objd.txt", 32, true);
    CHECK(r32.lines > 4000);
    CHECK_EQ(r32.mismatches, 0);

    /* Every instruction shape (aliases, hints, reserved bits, CSR names),
     * listed by binutils 2.40 from raw words; see tests/data/isa/README.md. */
    struct listing_stats f64 = compare_listing("isa/forms-rv64.objd.txt", 64, true);
    CHECK(f64.lines > 1000);
    CHECK_EQ(f64.mismatches, 0);
    struct listing_stats f32 = compare_listing("isa/forms-rv32.objd.txt", 32, true);
    CHECK(f32.lines > 1000);
    CHECK_EQ(f32.mismatches, 0);

    return rvt_test_summary("test_isa_disasm");
}
