/* Generator internals: the IR the program builder emits, the layout that
 * turns it into code bytes, and the program object the simulator runs. */
#ifndef RVT_GEN_INTERNAL_H
#define RVT_GEN_INTERNAL_H

#include "gen/asm.h"
#include "rvtrace/gen.h"
#include "rvtrace/isa.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- random numbers: xoshiro256** seeded through splitmix64 ------------ */

struct grng {
    uint64_t s[4];
};
static inline uint64_t grng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline void grng_seed(struct grng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = grng_splitmix(&seed);
}
static inline uint64_t grng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}
static inline uint64_t grng_next(struct grng *r)
{
    uint64_t *s = r->s;
    uint64_t result = grng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = grng_rotl(s[3], 45);
    return result;
}
/* Uniform in [0, n) (n > 0). */
static inline uint64_t grng_below(struct grng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)grng_next(r) * n) >> 64);
}
/* Uniform in [lo, hi]. */
static inline int64_t grng_range(struct grng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)grng_below(r, (uint64_t)(hi - lo) + 1);
}
/* True with probability pct/100. */
static inline bool grng_pct(struct grng *r, unsigned pct)
{
    return grng_below(r, 100) < pct;
}

/* ---- IR ---------------------------------------------------------------- */

enum greloc {
    RL_NONE = 0,
    RL_BRANCH,   /* imm = label - pc (conditional branches) */
    RL_JAL,      /* imm = label - pc (jal, c.j, c.jal) */
    RL_PCREL_HI, /* auipc: hi20 of label - pc */
    RL_PCREL_LO, /* lo12 of label - pc of the auipc just before */
    RL_ABS_HI,   /* lui / c.lui: hi20 of label */
    RL_ABS_LO,   /* lo12 of label (after lui) */
    RL_GPREL_HI, /* lui: hi20 of label - gp */
    RL_GPREL_LO  /* addi: lo12 of label - gp */
};

enum gins_flags {
    GF_LABEL = 1u << 0,   /* pseudo item: defines `label` here, no bytes */
    GF_SIJUMP = 1u << 1,  /* this jalr is sequentially inferable from the previous instruction */
    GF_RELAX = 1u << 2,   /* a jal that may become auipc+jalr if out of range */
    GF_EXPANDED = 1u << 3,/* (layout) the jal was relaxed to auipc+jalr */
    GF_ALIGN4 = 1u << 4   /* pseudo item: pad with c.nop to a 4-byte boundary */
};

struct gins {
    uint8_t op;      /* enum gop (ignored for pseudo items) */
    uint8_t form;    /* enum gform */
    uint8_t rd, rs1, rs2;
    uint8_t cf;      /* intended control-flow class (enum rvt_cf) */
    uint8_t reloc;   /* enum greloc */
    uint8_t flags;   /* enum gins_flags */
    uint16_t csr;
    uint32_t label;  /* reloc target / label defined */
    uint32_t ann;    /* branch annotation (1-based; 0: decided by registers) */
    int64_t imm;     /* immediate, or addend for relocations */
};

struct gvec {        /* growable array of IR items */
    struct gins *v;
    size_t n, cap;
};

enum gseg_id {
    SEG_TEXT = 0,
    SEG_HIGH,
    SEG_RODATA,
    SEG_RAM,
    SEG__COUNT
};

/* A run of code placed contiguously: a function, a handler, an out-of-line tail. */
struct gfrag {
    struct gvec code;
    char name[32];
    uint8_t seg;
    uint8_t align;     /* 2, 4, 64 ... */
    bool is_func;      /* gets a function symbol */
    uint64_t addr;     /* after layout */
    uint64_t size;
};

/* A table in .rodata: entries are code addresses (xlen-wide, absolute) or
 * 32-bit offsets from the table's start. */
struct gtable {
    uint32_t label;    /* the table itself */
    uint32_t *entries; /* labels */
    unsigned n;
    bool relative;
    char name[32];
    uint64_t addr;
};

/* A branch whose outcome the run decides (not the registers). */
enum gann_kind {
    ANN_RANDOM = 1,  /* taken with probability prob / 2^32 */
    ANN_PATTERN = 2  /* repeats `pattern` bits (bit 0 first), period `period` */
};
struct gann {
    uint8_t kind;
    uint8_t period;
    uint32_t prob;
    uint64_t pattern;
};

/* ---- the program as the simulator sees it ------------------------------ */

/* One laid-out instruction with everything the simulator needs. */
struct xinsn {
    int64_t imm;     /* immediate after relocation (branch/jal: offset; lui/auipc: value << 12 sign-extended) */
    uint32_t bits;
    uint32_t ann;    /* annotation index + 1, 0: none */
    uint16_t csr;
    uint8_t op;      /* enum gop */
    uint8_t len;     /* 2 or 4 */
    uint8_t rd, rs1, rs2;
    uint8_t pad;
};

/* A code segment's halfword-indexed map of instruction starts. */
struct xcode {
    uint64_t base, size;
    uint32_t *slot;  /* size/2 entries: index+1 into prog->xi, 0: not an instruction start */
};

/* Fixed RAM layout (offsets from ram base / gp). */
struct gram {
    uint64_t base;         /* RAM start */
    uint64_t size;
    uint64_t gp;           /* base + 0x800 */
    uint64_t globals_size; /* file-backed part */
    /* offsets from gp */
    int nest_off, cur_off, pcb_off, ctx_off, null_off, data_off, data_size, got_off, got_max;
    uint64_t proc_area;    /* first per-process area (tp) */
    uint64_t proc_area_size;
    uint64_t stack_base;   /* first stack (lowest) */
    uint64_t stack_size;   /* per process, without guard */
    uint64_t stack_guard;  /* unmapped-in-spirit gap between stacks */
};

struct rvt_gen_program {
    struct rvt_gen_config cfg;
    uint32_t features;
    unsigned xlen, regsz;
    unsigned nproc;
    uint64_t entry;
    uint64_t code_insns;

    struct rvt_gen_segment seg[SEG__COUNT];
    uint8_t *segdata[SEG__COUNT];
    unsigned nseg;          /* segments present, in seg[] order compacted */
    struct rvt_gen_segment segs_out[SEG__COUNT];

    struct rvt_symbol *syms;
    char *symnames;
    size_t nsyms;

    struct xinsn *xi;
    size_t nxi;
    struct xcode xcode[2]; /* TEXT, HIGH */
    unsigned nxcode;

    struct gann *ann;
    size_t nann;

    struct gram ram;
    uint8_t *ram_init;      /* globals_size bytes (also segdata[SEG_RAM]) */
    uint64_t mcause_interrupt_bit;
    uint32_t mie_mask;      /* interrupts the program enables */
};

/* Layout + encoding + checking: implemented in build.c. */
struct gbuild {
    struct rvt_gen_program *p;
    struct rvt_diag *diag;
    unsigned xlen;
    struct gfrag **frags;   /* each fragment allocated alone: its code vector never moves */
    size_t nfrags, capfrags;
    /* labels: fragment and item index of the definition, address after layout */
    uint32_t *label_frag;
    uint64_t *label_addr;
    uint8_t *label_defined;
    size_t nlabels, caplabels;
    struct gtable *tables;
    size_t ntables, captables;
    struct gann *anns;
    size_t nanns, capanns;
    uint32_t *got;          /* labels stored in the GOT, in slot order */
    size_t ngot;
    uint64_t seg_base[SEG__COUNT];
    uint64_t seg_limit[SEG__COUNT]; /* conservative bounds used for reachability */
    bool oom;
    char err[160];          /* first construction error (gb_error) */
};

int gvec_push(struct gvec *v, const struct gins *in);
uint32_t gb_new_label(struct gbuild *b);
size_t gb_new_frag(struct gbuild *b, const char *name, unsigned seg, unsigned align, bool is_func);
uint32_t gb_new_table(struct gbuild *b, const char *name, const uint32_t *entries, unsigned n, bool relative);
uint32_t gb_new_ann(struct gbuild *b, const struct gann *a);
/* A label at a fixed offset in RAM (stack tops, per-process areas). */
uint32_t gb_ram_label(struct gbuild *b, uint64_t offset);
/* GOT slot (index) holding the address of label; -1 if the GOT is full. */
int gb_got_slot(struct gbuild *b, uint32_t label, unsigned max_slots);
/* Lay out, relax, encode, check every instruction with the shared
 * classifier, and fill the program's segments, symbols and simulator
 * tables.  ram_init_fn fills the initialised RAM (GOT is written here). */
int gb_finish(struct gbuild *b);
void gb_free(struct gbuild *b);
/* Record a construction error (reported by gb_finish). */
void gb_error(struct gbuild *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Program construction: program.c. */
int gen_build_program(struct rvt_gen_program *p, struct rvt_diag *diag);

/* Instruction lookup for the simulator. */
static inline const struct xinsn *prog_insn_at(const struct rvt_gen_program *p, uint64_t pc)
{
    for (unsigned i = 0; i < p->nxcode; i++) {
        const struct xcode *c = &p->xcode[i];
        uint64_t off = pc - c->base;
        if (off < c->size) {
            if (off & 1)
                return NULL;
            uint32_t s = c->slot[off >> 1];
            return s ? &p->xi[s - 1] : NULL;
        }
    }
    return NULL;
}

#endif
