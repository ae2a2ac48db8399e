/* rvtrace — ingress: what the hart retired, as E-Trace ingress-port records.
 *
 * One record = one block of the ingress port: `iretire` halfwords of
 * contiguous instructions starting at `iaddr`, the last of size
 * 2^ilastsize halfwords, ending with `itype`.  A trap (itype 1/2) follows the
 * last retired instruction of its block; a synchronous exception's faulting
 * instruction did not retire, so its block may have iretire == 0 and iaddr =
 * the faulting instruction (epc).  Records with RVT_ING_SAME_CYCLE retired in
 * the same cycle as the previous record (multiple retirement).
 *
 * Readers turn outside sources into records; the builder turns a stream of
 * executed PCs (with optional instruction bits and trap notes) into records,
 * deriving itype/iretire/ilastsize from the code.
 */
#ifndef RVTRACE_INGRESS_H
#define RVTRACE_INGRESS_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/image.h"
#include "rvtrace/isa.h"
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* itype codes (4-bit ingress encoding, ingressPort.adoc table itype). */
enum rvt_itype {
    RVT_ITYPE_NONE = 0,
    RVT_ITYPE_EXCEPTION = 1,
    RVT_ITYPE_INTERRUPT = 2,
    RVT_ITYPE_TRAPRET = 3,
    RVT_ITYPE_NOT_TAKEN = 4,
    RVT_ITYPE_TAKEN = 5,
    RVT_ITYPE_UNINF_JUMP3 = 6, /* itype_width_p == 3 only */
    RVT_ITYPE_CALL_UNINF = 8,
    RVT_ITYPE_CALL_INF = 9,
    RVT_ITYPE_JUMP_UNINF = 10,
    RVT_ITYPE_JUMP_INF = 11,
    RVT_ITYPE_COSWAP = 12,
    RVT_ITYPE_RETURN = 13,
    RVT_ITYPE_OTHER_UNINF = 14,
    RVT_ITYPE_OTHER_INF = 15
};

/* ctype (context report type). */
enum rvt_ctype {
    RVT_CTYPE_UNREPORTED = 0,
    RVT_CTYPE_IMPRECISE = 1,
    RVT_CTYPE_PRECISE = 2,
    RVT_CTYPE_ASYNC = 3
};

enum rvt_ing_flags {
    RVT_ING_SAME_CYCLE = 1u << 0, /* retired in the same cycle as the previous record */
    RVT_ING_SIJUMP = 1u << 1,     /* itype uninferable but sequentially inferable */
    RVT_ING_HAS_TIME = 1u << 2,   /* `time` is valid */
    RVT_ING_HAS_RD = 1u << 3,     /* the last instruction wrote rd_value to rd */
    RVT_ING_HAS_MEM = 1u << 4,    /* the last instruction accessed memory */
    RVT_ING_MEM_STORE = 1u << 5,  /* ...and it was a store (else a load) */
    RVT_ING_HAS_MEMVAL = 1u << 6, /* mem_value is valid */
    RVT_ING_TRACEPOINT = 1u << 7, /* the last instruction is a tracepoint (tp_type) */
    RVT_ING_UNQUALIFIED = 1u << 8,/* filtered out: not to be traced (encoders report the
                                     gap with their format's trace off/on and resync) */
    RVT_ING_NOTIFY = 1u << 9,     /* a trigger asks for the block's last instruction to be
                                     reported explicitly (E-Trace notify, N-Trace SYNC 6) */
    RVT_ING_HAS_DTYPE = 1u << 10  /* `dtype` gives the last instruction's data access type (the
                                     ingress port's data interface, enum rvt_dtype) */
};

/* Data access type: the ingress port's dtype encoding (ingressPort.adoc,
 * "Data access type (dtype) encoding").
 *
 * With RVT_ING_HAS_DTYPE a record describes its last instruction's data
 * access as the data trace interface does.  Memory accesses (load, store,
 * atomic) also set RVT_ING_HAS_MEM (and RVT_ING_MEM_STORE when memory is
 * written: stores and atomics), so consumers that know only HAS_MEM see
 * them; a CSR access and a failed store-conditional touch no memory and set
 * HAS_DTYPE alone.  mem_addr is the address (CSR: the CSR number),
 * mem_size the access size in bytes (CSR: XLEN / 8), and with
 * RVT_ING_HAS_MEMVAL mem_value is the data: the value loaded or stored; for
 * atomics the value stored; for CSRs the CSR's value after the instruction
 * (what it wrote, or the value read when it writes nothing).  mem_operand
 * is the operand of atomics (rs2) and CSR accesses (rs1 or the immediate) —
 * the two values the spec's unified *data* signal carries "with the store
 * data in the LSBs and the load data or operand in the MSBs".  A
 * store-conditional that succeeds is a store; one that fails is
 * RVT_DTYPE_SC_FAIL with its address and the value it did not store as the
 * operand.  LR is a load. */
enum rvt_dtype {
    RVT_DTYPE_LOAD = 0,
    RVT_DTYPE_STORE = 1,
    RVT_DTYPE_CSR_RW = 4,
    RVT_DTYPE_CSR_RS = 5,
    RVT_DTYPE_CSR_RC = 6,
    RVT_DTYPE_AMO_SWAP = 8,
    RVT_DTYPE_AMO_ADD = 9,
    RVT_DTYPE_AMO_AND = 10,
    RVT_DTYPE_AMO_OR = 11,
    RVT_DTYPE_AMO_XOR = 12,
    RVT_DTYPE_AMO_MAX = 13,
    RVT_DTYPE_AMO_MIN = 14,
    RVT_DTYPE_SC_FAIL = 15
};
static inline bool rvt_dtype_is_csr(unsigned t)
{
    return t >= RVT_DTYPE_CSR_RW && t <= RVT_DTYPE_CSR_RC;
}
static inline bool rvt_dtype_is_amo(unsigned t)
{
    return t >= RVT_DTYPE_AMO_SWAP && t <= RVT_DTYPE_AMO_MIN;
}
/* "load", "store", "csrrw", ..., "amoswap", ..., "sc-fail"; "?" if reserved. */
const char *rvt_dtype_name(unsigned dtype);

struct rvt_ing_rec {
    uint64_t iaddr;     /* first instruction of the block (or faulting insn) */
    uint64_t tval;      /* trap value (itype 1) */
    uint64_t context;   /* context / hart id for the block */
    uint64_t time;      /* RVT_ING_HAS_TIME */
    uint64_t rd_value;  /* RVT_ING_HAS_RD */
    uint64_t mem_addr;  /* RVT_ING_HAS_MEM */
    uint64_t mem_value; /* RVT_ING_HAS_MEMVAL */
    uint64_t mem_operand; /* RVT_ING_HAS_MEMVAL with an atomic or CSR dtype: the operand */
    uint32_t iretire;   /* halfwords retired in this block */
    uint32_t cause;     /* exception/interrupt cause (itype 1/2) */
    uint16_t flags;     /* enum rvt_ing_flags */
    uint8_t itype;      /* enum rvt_itype */
    uint8_t ilastsize;  /* last instruction is 2^ilastsize halfwords (0: 16-bit, 1: 32-bit) */
    uint8_t priv;       /* enum rvt_priv, for all instructions of the block */
    uint8_t ctype;      /* enum rvt_ctype */
    uint8_t rd;         /* RVT_ING_HAS_RD: register number (0..31; 32..63 = f0..f31) */
    uint8_t mem_size;   /* RVT_ING_HAS_MEM: bytes */
    uint8_t tp_type;    /* RVT_ING_TRACEPOINT: 0..15 */
    uint16_t hart;      /* hart that retired the block (multi-hart streams; 0 otherwise) */
    uint8_t dtype;      /* RVT_ING_HAS_DTYPE: enum rvt_dtype */
};

/* The data access type of a record's last instruction: dtype when given,
 * else a load or store by RVT_ING_MEM_STORE; -1 if it made no data access. */
static inline int rvt_ing_dtype(const struct rvt_ing_rec *r)
{
    if (r->flags & RVT_ING_HAS_DTYPE)
        return r->dtype;
    if (r->flags & RVT_ING_HAS_MEM)
        return (r->flags & RVT_ING_MEM_STORE) ? RVT_DTYPE_STORE : RVT_DTYPE_LOAD;
    return -1;
}

/* Address of the last instruction of a record's block (iaddr + 2*iretire - size). */
static inline uint64_t rvt_ing_last_addr(const struct rvt_ing_rec *r)
{
    return r->iaddr + 2u * (uint64_t)r->iretire - (2u << r->ilastsize);
}
/* Address following the block. */
static inline uint64_t rvt_ing_next_addr(const struct rvt_ing_rec *r)
{
    return r->iaddr + 2u * (uint64_t)r->iretire;
}
/* The record's sijump signal where it applies: "Ignored for itype codes
 * other than 6, 8, 10, 12 or 14" (ingressPort.adoc) — never a return or a
 * trap return, whatever the producer set. */
static inline bool rvt_ing_sijump(const struct rvt_ing_rec *r)
{
    return (r->flags & RVT_ING_SIJUMP) && (r->itype == RVT_ITYPE_UNINF_JUMP3 || r->itype == RVT_ITYPE_CALL_UNINF ||
                                           r->itype == RVT_ITYPE_JUMP_UNINF || r->itype == RVT_ITYPE_COSWAP ||
                                           r->itype == RVT_ITYPE_OTHER_UNINF);
}

/* How an executed `ecall`/`ebreak` in a list of PCs is recorded.
 * SEQUENTIAL: it does not trap (user-mode emulation performed the system
 * call): an ordinary instruction (itype 0); the next PC must follow it.
 * UNINFERABLE: an uninferable call (itype 8) to whatever PC follows
 * (ecall+4, or the trap handler) — the N-Trace reference tool's treatment,
 * which makes encoders report its target explicitly.  TRAP: it raises an
 * exception and does not retire; the next PC is the handler (a trap record
 * with iaddr = the ecall/ebreak).  A PC list does not say the cause: the
 * builder takes it from the instruction and the privilege it is given
 * (ecall from U/VU 8, S 9, VS 10, M 11; ebreak 3; tval 0) and warns once. */
enum rvt_ecall_mode {
    RVT_ECALL_SEQUENTIAL = 0,
    RVT_ECALL_UNINFERABLE = 1,
    RVT_ECALL_TRAP = 2
};
/* A warning (not an error): the input was read with an assumption. */
typedef void (*rvt_ing_warn_fn)(void *ctx, const char *text);

/* ---- builder: executed PCs -> records ---------------------------------- */

struct rvt_ing_builder;
typedef int (*rvt_ing_emit_fn)(void *ctx, const struct rvt_ing_rec *rec);

struct rvt_ing_builder_config {
    size_t size;                  /* sizeof(struct rvt_ing_builder_config) */
    const struct rvt_image *image;/* code source when instruction bits are not given; may be NULL if bits always are */
    unsigned xlen;                /* 32 or 64 (0: from image) */
    enum rvt_ecall_mode ecall_mode;
    bool merge_blocks;            /* merge sequential instructions into multi-instruction records (default: one per record) */
    rvt_ing_emit_fn emit;
    void *emit_ctx;
    /* Derive each data access's type from the instruction (enum rvt_dtype:
     * the atomic's kind, a store-conditional without a reported access as
     * failed) and record Zicsr instructions as CSR accesses (number only),
     * for sources that report memory addresses but no access kinds (QEMU). */
    bool data_types;
    rvt_ing_warn_fn warn;         /* optional: told what was assumed (ecall trap causes) */
    void *warn_ctx;
};

struct rvt_ing_builder *rvt_ing_builder_new(const struct rvt_ing_builder_config *cfg);
void rvt_ing_builder_free(struct rvt_ing_builder *b);
const char *rvt_ing_builder_error(const struct rvt_ing_builder *b);

/* Optional per-instruction side data for rvt_ing_builder_insn. */
struct rvt_ing_extra {
    uint16_t flags;      /* RVT_ING_HAS_TIME/RD/MEM/MEM_STORE/MEMVAL/TRACEPOINT/HAS_DTYPE */
    uint8_t rd, mem_size, tp_type;
    uint64_t time, rd_value, mem_addr, mem_value;
    uint8_t dtype;       /* RVT_ING_HAS_DTYPE */
    uint64_t mem_operand;
};

/* One retired instruction.  `bits` < 0: read the instruction from the image.
 * priv/context apply to this instruction (a change ends the previous block
 * and, for context, sets ctype on the new one: `ctype_on_change`). */
int rvt_ing_builder_insn(struct rvt_ing_builder *b, uint64_t pc, int64_t bits, uint8_t priv,
                         uint64_t context, const struct rvt_ing_extra *extra);
/* A trap taken after the last instruction given (interrupt), or by the
 * instruction at epc which did not retire (exception, epc = faulting pc). */
int rvt_ing_builder_trap(struct rvt_ing_builder *b, bool interrupt, uint32_t cause, uint64_t tval,
                         uint64_t epc);
/* Context reporting type used when `context` changes (default PRECISE). */
void rvt_ing_builder_set_ctype(struct rvt_ing_builder *b, enum rvt_ctype ctype_on_change);
/* Flush the last instruction (its itype is decided without a successor:
 * branches are reported as not taken, jumps by class). */
int rvt_ing_builder_finish(struct rvt_ing_builder *b);
/* Instructions and records so far. */
uint64_t rvt_ing_builder_insns(const struct rvt_ing_builder *b);

/* ---- readers ------------------------------------------------------------ */

enum rvt_ing_format {
    RVT_ING_FMT_AUTO = 0,
    RVT_ING_FMT_PCLIST,   /* "0x20010522" per line (needs an image) */
    RVT_ING_FMT_PCINSN,   /* "20010522 4501" per line: hex pc, hex bits */
    RVT_ING_FMT_NATIVE,   /* rvtrace binary ingress (docs/ingress-format.md) */
    RVT_ING_FMT_REFCSV,   /* E-Trace reference flow encoder-port CSV */
    RVT_ING_FMT_REFDATA,  /* E-Trace reference flow data-port CSV (data accesses only) */
    RVT_ING_FMT__COUNT
};
const char *rvt_ing_format_name(enum rvt_ing_format f);
/* "pclist", "pcinsn", "ingress", "refcsv", "refdata"; -1 if unknown. */
int rvt_ing_format_parse(const char *name);

struct rvt_ing_reader_config {
    size_t size;
    enum rvt_ing_format format;   /* AUTO: sniff the file */
    const struct rvt_image *image;/* for PCLIST (required) and PCINSN (optional) */
    unsigned xlen;                /* 0: from image or file header */
    enum rvt_ecall_mode ecall_mode;
    bool merge_blocks;
    bool select_hart;             /* yield only the records of `hart` (multi-hart streams) */
    uint16_t hart;
    rvt_ing_warn_fn warn;         /* optional: what a PC-list reader had to assume */
    void *warn_ctx;
};

struct rvt_ing_reader;
/* Open a file ("-" = stdin).  Reads with bounded memory. */
int rvt_ing_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                 struct rvt_diag *diag);
/* Same from an open stream (taken over: closed by rvt_ing_close); `name`
 * is used in messages.  AUTO sniffing needs a seekable stream. */
int rvt_ing_open_stream(struct rvt_ing_reader **out, FILE *f, const char *name,
                        const struct rvt_ing_reader_config *cfg, struct rvt_diag *diag);
/* Next record: 1 = got one, 0 = end of stream, <0 error (see rvt_ing_error:
 * "trace.txt: line 1042: pc 0x20010524 -> 0x20010600 not explained by c.addi at 0x20010524"). */
int rvt_ing_next(struct rvt_ing_reader *r, struct rvt_ing_rec *rec);
const char *rvt_ing_error(const struct rvt_ing_reader *r);
/* The next records at once, in place: 1 = *n >= 1 records at *recs, valid
 * until the next call on r; 0 = end; < 0 = error (rvt_ing_error).  The
 * same records as rvt_ing_next gives, and the two may be mixed (one at a
 * time from most readers; up to 256 from the PC-list and PC INSN text
 * readers, on one thread or several). */
int rvt_ing_next_batch(struct rvt_ing_reader *r, const struct rvt_ing_rec **recs, size_t *n);
/* Whether r hands out more than one record at a time (rvt_ing_next is as
 * good for the others). */
bool rvt_ing_has_batches(const struct rvt_ing_reader *r);

/* A record of one plain instruction in short, as the text readers' fast
 * step makes most of theirs: no flags, the instruction's address, its
 * itype and its size; priv and context those of its batch
 * (struct rvt_ing_short_batch); zeros elsewhere. */
struct rvt_ing_fast {
    uint64_t iaddr;
    uint8_t itype;
    uint8_t len; /* the instruction's bytes: 2 or 4; 0: not a short record */
};

/* The record a short one stands for: f's fields, priv and context, zeros
 * elsewhere. */
static inline void rvt_ing_fast_rec(const struct rvt_ing_fast *f, uint8_t priv, uint64_t context,
                                    struct rvt_ing_rec *out)
{
    /* Field by field: compilers clear a whole struct with `rep stos`,
     * which costs more than the rest of the step.  Every field (builder.c
     * checks that there are no others): */
    out->iaddr = f->iaddr;
    out->tval = 0;
    out->context = context;
    out->time = out->rd_value = out->mem_addr = out->mem_value = out->mem_operand = 0;
    out->iretire = f->len / 2u;
    out->cause = 0;
    out->flags = 0;
    out->itype = f->itype;
    out->ilastsize = (uint8_t)(f->len >> 2); /* 2 bytes: 0, 4 bytes: 1 */
    out->priv = priv;
    out->ctype = out->rd = out->mem_size = out->tp_type = 0;
    out->hart = 0;
    out->dtype = 0;
}

/* The halfwords the record a short one stands for retires if that is one
 * instruction, its last (iretire == 1 << ilastsize, as a plain record
 * has them); 0 if not. */
static inline unsigned rvt_ing_fast_insn_hw(const struct rvt_ing_fast *f)
{
    /* (iretire len / 2, ilastsize len / 4: equal to 1 << ilastsize for
     * len 2-5 and 8-9 only; a bit per len) */
    return f->len < 16 && (0x33Cu >> f->len & 1) ? f->len / 2u : 0;
}

/* The next records at once, most of them in short, as a text reader
 * parses them (rvt_ing_next_short): record i is
 * rvt_ing_fast_rec(&fast[i], priv, context) if fast[i].len, else the next
 * of full[] (in order: the k-th record whose len is 0 is full[k]).  An
 * encoder takes the short ones without their 88-byte records being made
 * (rvt_codec.enc_put_short). */
struct rvt_ing_short_batch {
    const struct rvt_ing_fast *fast;
    size_t n;
    const struct rvt_ing_rec *full;
    uint8_t priv;
    uint64_t context;
};
/* 1 = b->n >= 1 records, valid until the next call on r; 0 = end; < 0 =
 * error (rvt_ing_error).  The same records as rvt_ing_next gives, and the
 * two may be mixed: in short from the readers rvt_ing_has_short names
 * (the PC-list and PC INSN readers on several threads), one at a time, a
 * full one, from the others. */
int rvt_ing_next_short(struct rvt_ing_reader *r, struct rvt_ing_short_batch *b);
bool rvt_ing_has_short(const struct rvt_ing_reader *r);
/* Record i of b, taken in order: *full counts its full records before i
 * (0 for the first). */
static inline void rvt_ing_short_rec(const struct rvt_ing_short_batch *b, size_t i, size_t *full,
                                     struct rvt_ing_rec *out)
{
    if (b->fast[i].len)
        rvt_ing_fast_rec(&b->fast[i], b->priv, b->context, out);
    else
        *out = b->full[(*full)++];
}
/* xlen of the stream (from header, image or config). */
unsigned rvt_ing_xlen(const struct rvt_ing_reader *r);
enum rvt_ing_format rvt_ing_reader_format(const struct rvt_ing_reader *r);
void rvt_ing_close(struct rvt_ing_reader *r);

/* Register an extra format reader (used by family modules, e.g. refcsv).
 * open() must return a reader that calls the generic next/close hooks. */
struct rvt_ing_source_ops {
    int (*next)(void *self, struct rvt_ing_rec *rec);
    const char *(*error)(const void *self);
    void (*close)(void *self);
    unsigned (*xlen)(const void *self);
};
/* Wrap an arbitrary record source as a reader. */
struct rvt_ing_reader *rvt_ing_reader_wrap(const struct rvt_ing_source_ops *ops, void *self,
                                           enum rvt_ing_format fmt);

/* A reader over `in` that reads it ahead on a thread of its own, in
 * batches (rvtrace encode --jobs): the same records, end and error as
 * `in`, while the caller consumes them.  It owns `in` from then on (closing
 * it closes `in`); on failure (<0, d says why) `in` stays the caller's. */
int rvt_ing_readahead(struct rvt_ing_reader **out, struct rvt_ing_reader *in, struct rvt_diag *d);
/* A PC-list or PC INSN reader that has read nothing, read on `jobs`
 * threads (rvtrace encode --jobs): the text cut at newlines into chunks of
 * about chunk_bytes (0: the default) parsed in parallel; the same records,
 * warning, end and error (same message) as `in`, in order.  1: *out
 * replaces `in` (and owns its input); 0: not such a reader, or jobs < 2
 * (`in` untouched); < 0: d says why, `in` is closed. */
int rvt_ing_text_jobs(struct rvt_ing_reader **out, struct rvt_ing_reader *in, unsigned jobs, size_t chunk_bytes,
                      struct rvt_diag *d);

/* ---- native binary format ---------------------------------------------- */

#define RVT_ING_MAGIC "RVTING\r\n" /* 8 bytes */
#define RVT_ING_VERSION 1

struct rvt_ing_writer;
/* Write to a FILE (not closed by the writer) with the given xlen. */
struct rvt_ing_writer *rvt_ing_writer_new(FILE *f, unsigned xlen);
int rvt_ing_writer_open(struct rvt_ing_writer **out, const char *path, unsigned xlen, struct rvt_diag *diag);
int rvt_ing_write(struct rvt_ing_writer *w, const struct rvt_ing_rec *rec);
/* Flush and free; closes the file if opened by rvt_ing_writer_open. */
int rvt_ing_writer_close(struct rvt_ing_writer *w);
const char *rvt_ing_writer_error(const struct rvt_ing_writer *w);
uint64_t rvt_ing_writer_records(const struct rvt_ing_writer *w);

/* Decode native records from memory (fuzzing, tests).  Returns records read
 * or <0 with diag naming the byte offset. */
int rvt_ing_parse_native(const uint8_t *buf, size_t len, int (*fn)(void *ctx, const struct rvt_ing_rec *r),
                         void *ctx, struct rvt_diag *diag);

/* ---- records -> per-instruction view ----------------------------------- */

/* Number of instructions a record retires (needs the image for mixed sizes
 * when iretire covers more than one instruction; uses ilastsize when the
 * block is a single instruction). */
int rvt_ing_count_insns(const struct rvt_ing_rec *r, struct rvt_bcache *bc, uint64_t *count);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
