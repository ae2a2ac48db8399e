/* Debug-specification trace module (seed 004) — internal interfaces.
 *
 *   packet.c   4-bit packets and value sequences <-> struct dbg_packet,
 *              "missing bits" reconstruction, nybble packing
 *   encoder.c  ingress records -> trace events -> packet groups, sync
 *              points with Nop padding, RAM buffer (wrap/stop) and FIFO
 *              drop model, trace registers at the end
 *   decoder.c  packets -> flow engine (with an image) or blocks from the
 *              recorded PC pairs (without one)
 *   dump.c     one line per packet
 *   codec.c    options, the register model, the codec table
 */
#ifndef RVT_DBG_H
#define RVT_DBG_H

#include "nybble/nybble.h"
#include "rvtrace/codec.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- packets ------------------------------------------------------------ */

enum dbg_hdr {
    DBG_NOP = 0x0,
    DBG_PC = 0x1,          /* value sequence: PC[XLEN-1:1] (C) or PC[XLEN-1:2] */
    DBG_BRANCH_TAKEN = 0x2,
    DBG_BRANCH_NOT_TAKEN = 0x3,
    DBG_TRACE_ENABLED = 0x4, /* one packet: version (0) */
    DBG_TRACE_DISABLED = 0x5,
    DBG_PRIV = 0x6,        /* one packet: interrupt(3) PRV(2:1) IE(0) */
    DBG_HART = 0x7,        /* value sequence, missing bits 0 */
    DBG_LOAD_ADDR = 0x8,   /* value sequence, missing bits from the last load address */
    DBG_STORE_ADDR = 0x9,  /* ... from the last store address */
    DBG_LOAD_DATA = 0xA,   /* value sequence, sign extended */
    DBG_STORE_DATA = 0xB,  /* value sequence, sign extended */
    DBG_TIMESTAMP = 0xC,   /* value sequence, missing bits from the last timestamp */
    DBG_RESERVED = 0xD,
    DBG_CUSTOM0 = 0xE,
    DBG_CUSTOM1 = 0xF
};

const char *dbg_hdr_name(unsigned hdr);

/* What a custom header (1110/1111) is followed by; the seed leaves it to
 * the implementation. */
enum dbg_custom {
    DBG_CUSTOM_VALUE = 0, /* a value sequence (default) */
    DBG_CUSTOM_NONE,      /* nothing */
    DBG_CUSTOM_REJECT     /* treat as an error */
};

struct dbg_packet {
    uint8_t hdr;     /* enum dbg_hdr */
    uint8_t nval;    /* value sequences: value nybbles sent (N+1, 1..16) */
    uint8_t arg;     /* TRACE_ENABLED: version; PRIV: the packet */
    uint64_t bits;   /* value sequences: the low 4*nval bits as sent */
};

/* Headers followed by a value sequence (custom ones per `custom`). */
bool dbg_has_value(unsigned hdr, unsigned custom);

/* Length in nybbles of the packet at nyb[0] as the encoder writes it
 * (custom headers are not written); 0 if `avail` does not hold its size. */
unsigned dbg_packet_len(const uint8_t *nyb, size_t avail);

/* Encode: header + payload nybbles (at most 18); returns the count. */
unsigned dbg_packet_encode(const struct dbg_packet *p, uint8_t *nyb);
/* Decode one packet; returns nybbles used (> 0), 0 if cut by the end of the
 * input, <0 for a reserved or rejected custom header (d explains). */
int dbg_packet_decode(const uint8_t *nyb, size_t avail, unsigned custom, struct dbg_packet *p, struct rvt_diag *d);

/* Value-sequence rules. */
/* Fewest nybbles (1..16) so that filling the missing bits from `last`
 * gives `v`. */
unsigned dbg_nyb_from_last(uint64_t v, uint64_t last);
/* Fewest nybbles so that sign extension gives `v` (a width-bit value). */
unsigned dbg_nyb_signed(uint64_t v, unsigned width);
/* Fewest nybbles so that zero extension gives `v`. */
unsigned dbg_nyb_zero(uint64_t v);
uint64_t dbg_fill_from_last(uint64_t sent, unsigned nval, uint64_t last);
/* Sign-extend the sent bits to `width` bits (result masked to width). */
uint64_t dbg_fill_signed(uint64_t sent, unsigned nval, unsigned width);
static inline uint64_t dbg_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

/* PC packets carry PC >> shift (shift 1 with the C extension, else 2) in
 * XLEN - shift bits. */
static inline unsigned dbg_pc_shift(bool rvc)
{
    return rvc ? 1 : 2;
}

/* Privilege Level packet. */
static inline uint8_t dbg_priv_packet(bool interrupt, unsigned prv, bool ie)
{
    return (uint8_t)((interrupt ? 8 : 0) | ((prv & 3) << 1) | (ie ? 1 : 0));
}

int dbg_packet_format(const struct dbg_packet *p, char *buf, size_t size);

/* (Nybble packing, the same little-endian order as the seed's words:
 * rvt_nyb_pack / rvt_nyb_unpack, nybble/nybble.h.) */

/* ---- the trace registers (debug spec appendix, trace_registers) -------- */

#define DBG_CSR_TRACE 0x728
#define DBG_CSR_TBUFSTART 0x729
#define DBG_CSR_TBUFEND 0x72a
#define DBG_CSR_TBUFWRITE 0x72b

enum dbg_trace_bits {
    DBG_TRACE_SUPPORTED = 1u << 0,
    DBG_TRACE_DISCARD = 1u << 1,
    DBG_TRACE_STALL = 1u << 2,
    DBG_TRACE_DEST_SHIFT = 4,     /* bits 5:4 */
    DBG_TRACE_FULLACTION_SHIFT = 8, /* bits 9:8 */
    DBG_TRACE_EMITPC = 1u << 16,
    DBG_TRACE_EMITBRANCH = 1u << 17,
    DBG_TRACE_EMITPRIV = 1u << 18,
    DBG_TRACE_EMITLOADADDR = 1u << 19,
    DBG_TRACE_EMITSTOREADDR = 1u << 20,
    DBG_TRACE_EMITLOADDATA = 1u << 21,
    DBG_TRACE_EMITSTOREDATA = 1u << 22,
    DBG_TRACE_EMITTIMESTAMP = 1u << 23,
    DBG_TRACE_WRAPPED = 1u << 24
};
#define DBG_TRACE_EMIT_MASK 0x00ff0000u
/* Writable/defined bits of `trace` (the rest read as 0). */
#define DBG_TRACE_DEFINED 0x01ff0337u

enum dbg_dest {
    DBG_DEST_CORE_RAM = 0, /* dedicated on-core RAM */
    DBG_DEST_SYS_RAM = 1,  /* RAM on the system bus [tbufstart, tbufend) */
    DBG_DEST_OFFCHIP = 2   /* off-chip interface: an unbounded stream */
};
enum dbg_fullaction {
    DBG_FULL_WRAP = 0,     /* wrap and overwrite */
    DBG_FULL_STOP = 1,     /* turn trace off until discard */
    DBG_FULL_EXCEPTION = 2 /* trace full exception (modelled as stop) */
};

struct dbg_regs {
    uint32_t trace;
    uint64_t tbufstart, tbufend, tbufwrite;
};
static inline unsigned dbg_regs_dest(const struct dbg_regs *r)
{
    return (r->trace >> DBG_TRACE_DEST_SHIFT) & 3;
}
static inline unsigned dbg_regs_fullaction(const struct dbg_regs *r)
{
    return (r->trace >> DBG_TRACE_FULLACTION_SHIFT) & 3;
}
/* "name=0x..." lines; the encoder writes them at finish, the decoder reads. */
int dbg_regs_write(const char *path, const struct dbg_regs *r, struct rvt_diag *d);
int dbg_regs_read(const char *path, struct dbg_regs *r, struct rvt_diag *d);
int dbg_regs_format(const struct dbg_regs *r, FILE *out);

/* ---- configuration ------------------------------------------------------ */

/* Which PC a trap names first (seed 004, "Trace Data Events"). */
enum dbg_trap_pc {
    /* The seed: an interrupt names "the last instruction executed"; ecall,
     * ebreak (and with emitpriv every exception) their own address, "the
     * same as if they were jal".  Without emitpriv every other exception
     * names the last instruction executed too (docs/dbg.md). */
    DBG_TRAP_PC_SEED = 0,
    /* rvtrace before: every trap names its epc (the first instruction that
     * did not complete). */
    DBG_TRAP_PC_EPC = 1
};

enum dbg_code_mode {
    DBG_CODE_AUTO = 0,
    DBG_CODE_ELF,
    DBG_CODE_NONE
};

struct dbg_cfg {
    unsigned xlen;
    bool rvc;                 /* the C extension is supported: PC packets hold PC[XLEN-1:1] */
    struct dbg_regs regs;     /* trace CSR (emit bits, stall, destination, fullaction) and buffer */
    bool have_tbufwrite;      /* decoder: tbufwrite was given */
    uint64_t fifo;            /* stall == 0: FIFO capacity in nybbles (0: never drops) */
    uint64_t drain;           /* nybbles the FIFO drains per retired instruction */
    unsigned custom;          /* enum dbg_custom */
    unsigned trap_pc;         /* enum dbg_trap_pc */
    bool nops_anywhere;       /* decoder: accept Nops between sync points (another source's idle fill) */
    bool values_any;          /* decoder: accept PCs with more nybbles than the last PC needs */
    bool have_stream_offset;  /* decoder: stream_offset is known (a wrapped sink image's description) */
    uint64_t stream_offset;   /* ...the off-chip stream's byte position of the trace's first byte */
    unsigned code;            /* enum dbg_code_mode */
    unsigned ecall;           /* enum rvt_flow_ecall */
    bool strict;
    char regs_path[256];
    const struct rvt_image *image;
};

void dbg_cfg_defaults(struct dbg_cfg *c);
/* Buffer size in bytes (tbufend - tbufstart). */
static inline uint64_t dbg_cfg_buffer(const struct dbg_cfg *c)
{
    return c->regs.tbufend - c->regs.tbufstart;
}
/* Nybbles between synchronisation points: 8 per buffer. */
static inline uint64_t dbg_cfg_sync_spacing(const struct dbg_cfg *c)
{
    return dbg_cfg_buffer(c) * 2 / 8;
}
static inline bool dbg_emits(const struct dbg_cfg *c, uint32_t bit)
{
    return (c->regs.trace & bit) != 0;
}

/* Turn the recorded bytes into the packet stream in age order (rotating a
 * wrapped RAM image at tbufwrite).  *phase receives the buffer offset (in
 * nybbles, modulo the sync spacing) of stream nybble 0, *base the raw
 * nybble offset of stream nybble 0 in the input. */
int dbg_order_stream(const struct dbg_cfg *c, const uint8_t *buf, size_t len, uint8_t **nyb, size_t *nlen,
                     uint64_t *base, struct rvt_diag *d);

/* ---- encoder / decoder / dump -------------------------------------------- */

struct dbg_enc;
int dbg_enc_new(struct dbg_enc **e, const struct dbg_cfg *cfg, const struct rvt_byte_sink *out, struct rvt_diag *d);
int dbg_enc_put(struct dbg_enc *e, const struct rvt_ing_rec *r);
/* A run of plain one-instruction records from the front of rs[0..n): how
 * many it took (the rest go to dbg_enc_put, as rvt_encode_stream does). */
size_t dbg_enc_put_plain(struct dbg_enc *e, const struct rvt_ing_rec *rs, size_t n);
int dbg_enc_finish(struct dbg_enc *e);
void dbg_enc_stats(const struct dbg_enc *e, struct rvt_codec_stats *st);
const char *dbg_enc_error(const struct dbg_enc *e);
void dbg_enc_free(struct dbg_enc *e);
/* Register values a debugger would read after the run. */
void dbg_enc_regs(const struct dbg_enc *e, struct dbg_regs *r);
/* Stream nybble offsets of the sync points written and the instructions
 * retired before the PC their sync fields give (tests). */
size_t dbg_enc_sync_points(const struct dbg_enc *e, const struct rvt_nyb_sync_point **pts);

struct dbg_dec;
int dbg_dec_new(struct dbg_dec **dp, const struct dbg_cfg *cfg, struct rvt_flow *flow, struct rvt_diag *d);
int dbg_dec_run(struct dbg_dec *dec, const uint8_t *buf, size_t len);
/* One segment (docs/parallel.md): from the sync point at byte `from` up
 * to the one at `until` (dbg_sync_points' offsets). */
int dbg_dec_run_segment(struct dbg_dec *dec, const uint8_t *buf, size_t len, size_t from, size_t until);
/* The sync points of an off-chip stream whose sync fields are sound. */
int dbg_sync_points(const struct dbg_cfg *cfg, const uint8_t *buf, size_t len, size_t from,
                    int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d);
const char *dbg_dec_error(const struct dbg_dec *dec);
void dbg_dec_free(struct dbg_dec *dec);

int dbg_dump(const struct dbg_cfg *c, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d);

#endif
