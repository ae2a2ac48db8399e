/* CDL compressed trace (seed 000) — internal interfaces of the family.
 *
 * Layers (one file each):
 *   packet.c   nybble codes <-> struct cdl_field, nybble stream packing,
 *              sync-mark search
 *   encoder.c  ingress records -> per-cycle records -> packed cycles ->
 *              nybbles -> recorder (sync marks, circular buffer)
 *   decoder.c  nybbles -> flow engine (with an image) or blocks built from
 *              recorded PCs and counts (without one)
 *   dump.c     nybbles -> one text line per field
 *   codec.c    options and the struct rvt_codec table
 *
 * The stream semantics every layer agrees on (docs/cdl.md has the full
 * text and why):
 *   0SSS       SSS (1..7) instructions retired in sequence
 *   1000       one instruction retired: a taken conditional branch
 *   1001       one instruction retired: a jal/jalr (any jump)
 *   1010       a trap (exception or interrupt) was taken; no instruction
 *              retired by this field (a faulting instruction does not retire)
 *   1011       one instruction retired: a return from exception (xRET)
 *   1100 RNNN  data, 2*bytes(NNN) nybbles, least significant first:
 *              R=0: the address of the next instruction to retire (after a
 *                   non-sequential field: its target; after a sync mark: the
 *                   resynchronisation address)
 *              R=1: register-file write of the most recently reported
 *                   instruction: byte 0 = rd (0..63), bytes 1.. = value
 *   1101 NNNN  the most recently reported instruction is a tracepoint NNNN
 *   111x       reserved (rejected)
 *   0000       skip; a run of >= sync_nybbles zeros between cycles is a
 *              sync mark, always followed by a PC data field
 *
 * Every PC and RFW field carries at least one data byte, so the two data
 * fields without data are free for the recorder's own indications:
 *   1100 0000  stop: tracing stopped after the instructions reported (a
 *              filter or trigger turned it off; the last one of a recording
 *              marks its end).  A sync mark and PC resume.
 *   1100 1000  lost: trace data was dropped here (the output refused it).
 *              A sync mark and PC resume.
 */
#ifndef RVT_CDL_H
#define RVT_CDL_H

#include "nybble/nybble.h"
#include "rvtrace/codec.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- nybble codes ------------------------------------------------------- */

enum cdl_code {
    CDL_SKIP = 0x0,       /* 0x1..0x7: sequential count */
    CDL_BRANCH = 0x8,     /* taken conditional branch */
    CDL_JUMP = 0x9,       /* jal / jalr */
    CDL_TRAP = 0xA,       /* exception or interrupt */
    CDL_TRAPRET = 0xB,    /* return from exception */
    CDL_DATA = 0xC,       /* followed by RNNN and 2*bytes data nybbles */
    CDL_TRACEPOINT = 0xD, /* followed by the type nybble */
    CDL_RESERVED_E = 0xE,
    CDL_RESERVED_F = 0xF
};

/* Non-sequential reasons, in code order (code = 0x8 + reason). */
enum cdl_nonseq {
    CDL_NS_BRANCH = 0,
    CDL_NS_JUMP = 1,
    CDL_NS_TRAP = 2,
    CDL_NS_TRAPRET = 3
};

enum cdl_data_reason {
    CDL_DATA_PC = 0,
    CDL_DATA_RFW = 1
};

enum cdl_field_kind {
    CDL_F_SKIP = 0,   /* one zero nybble */
    CDL_F_SEQ,        /* 0SSS */
    CDL_F_NONSEQ,     /* 10NN */
    CDL_F_DATA,       /* 1100 RNNN data */
    CDL_F_TRACEPOINT, /* 1101 NNNN */
    CDL_F_STOP,       /* 1100 0000: trace stopped (or the recording ends) */
    CDL_F_LOST        /* 1100 1000: trace data dropped */
};

/* Largest data field: a 64-bit register write = rd byte + 8 value bytes
 * (the wide extension's code 7). */
#define CDL_MAX_DATA_BYTES 9
/* Largest data field the seed's reading allows: code 7 = 2*7 nybbles. */
#define CDL_SEED_MAX_DATA_BYTES 7
/* Longest field in nybbles: 1100, RNNN, 18 data nybbles. */
#define CDL_MAX_FIELD_NYBBLES (2 + 2 * CDL_MAX_DATA_BYTES)

struct cdl_field {
    uint8_t kind;     /* enum cdl_field_kind */
    uint8_t seq;      /* SEQ: 1..7 */
    uint8_t nonseq;   /* NONSEQ: enum cdl_nonseq */
    uint8_t reason;   /* DATA: enum cdl_data_reason */
    uint8_t nnn;      /* DATA: the length code as sent */
    uint8_t nbytes;   /* DATA: data bytes (2*nbytes nybbles) */
    uint8_t rd;       /* DATA RFW: register number */
    uint8_t tp;       /* TRACEPOINT: type */
    uint64_t value;   /* DATA: PC, or RFW register value */
};

/* What a stream's data fields hold: the traced hart's XLEN (the widest PC
 * and integer register value; floating-point register values are up to 64
 * bits, FLEN = 64) and the meaning of length code 7. */
struct cdl_fmt {
    unsigned xlen; /* 32 or 64 */
    bool wide;     /* extension: code 7 = 9 bytes (else the seed's 7) */
};

/* Data bytes for a length code: NNN bytes ("the next 2*NNN nybbles", the
 * seed), except code 7 in the wide extension: 9 bytes, so that a 64-bit
 * register write (rd byte + 8 value bytes) or a PC above 2^56 fits. */
unsigned cdl_data_bytes(unsigned nnn, bool wide);

/* Fill a DATA field with the shortest length code for the value (PC) or
 * rd/value (RFW), at least one byte (the empty fields are the markers).
 * False if the value needs more bytes than the format's longest field
 * (more than 7 without the wide extension): the field is not filled. */
bool cdl_field_pc(struct cdl_field *f, uint64_t pc, struct cdl_fmt fm);
/* Whether cdl_field_pc holds pc: a PC has at most 8 bytes, which only the
 * seed's longest field (7) cannot hold. */
static inline bool cdl_pc_fits(uint64_t pc, struct cdl_fmt fm)
{
    return fm.wide || ((fm.xlen == 32 ? pc & 0xffffffffu : pc) >> 56) == 0;
}
bool cdl_field_rfw(struct cdl_field *f, unsigned rd, uint64_t value, struct cdl_fmt fm);
/* Data bytes a PC / register write needs (before the length code is chosen). */
unsigned cdl_pc_bytes(uint64_t pc, unsigned xlen);
unsigned cdl_rfw_bytes(unsigned rd, uint64_t value, unsigned xlen);

/* Encode one field into nybbles (at most CDL_MAX_FIELD_NYBBLES); returns
 * the count. */
unsigned cdl_field_encode(const struct cdl_field *f, struct cdl_fmt fm, uint8_t *nyb);

/* Decode one field from `avail` nybbles.  Returns the nybbles used (> 0),
 * 0 if the field is cut by the end of the input, or <0 with d explaining
 * (reserved code, a PC wider than XLEN or odd, an integer register value
 * wider than XLEN, a register number > 63). */
int cdl_field_decode(const uint8_t *nyb, size_t avail, struct cdl_fmt fm, struct cdl_field *f,
                     struct rvt_diag *d);

/* Length in nybbles of the field starting at nyb[0] (0 if the available
 * nybbles do not hold its length code).  Fields the encoder wrote only. */
unsigned cdl_field_len(const uint8_t *nyb, size_t avail, bool wide);

/* One line of text for a field ("seq 3", "data pc 0x80000010 (8 nybbles)"). */
int cdl_field_format(const struct cdl_field *f, char *buf, size_t size);

/* ---- nybble streams ----------------------------------------------------- */

/* (Packing bytes <-> nybbles: rvt_nyb_pack / rvt_nyb_unpack, nybble/nybble.h.) */


/* Find the next sync mark at or after nybble `from`: a run of at least
 * `min_zeros` zero nybbles.  Returns true with *run_start and *after (the
 * first non-zero nybble after the run, or len) set. */
bool cdl_find_zero_run(const uint8_t *nyb, size_t len, size_t from, unsigned min_zeros, size_t *run_start,
                       size_t *after);

/* ---- configuration ------------------------------------------------------ */

struct cdl_cfg;

enum cdl_pack_flags {
    CDL_PACK_FLOW = 1u << 0,        /* sequential/non-sequential control nybbles + PCs */
    CDL_PACK_RFW = 1u << 1,         /* committed register-file writes */
    CDL_PACK_TRAPS = 1u << 2,       /* traps (implied by flow) */
    CDL_PACK_TRACEPOINTS = 1u << 3  /* tracepoint nybbles */
};

enum cdl_pc_mode {
    CDL_PC_ALL = 0,        /* PC after every non-sequential field (decodable without code) */
    CDL_PC_UNINFERABLE = 1 /* PC only where code cannot tell: jalr, traps, xret */
};

enum cdl_overflow {
    CDL_OVF_WRAP = 0, /* overwrite the oldest data */
    CDL_OVF_HALT = 1  /* stop recording when full */
};

enum cdl_image {
    CDL_IMAGE_ORDERED = 0, /* buffer contents oldest first */
    CDL_IMAGE_RAW = 1      /* buffer memory as is (needs the write offset to decode) */
};

enum cdl_code_mode {
    CDL_CODE_AUTO = 0, /* use the image if it has segments */
    CDL_CODE_ELF,      /* always walk the image */
    CDL_CODE_NONE      /* rebuild blocks from counts and PCs only */
};

struct cdl_cfg {
    unsigned xlen;            /* 32 or 64 (0: from stream/image at cfg_finish) */
    bool wide;                /* --cdl-data wide: length code 7 = 9 bytes (extension) */
    unsigned pack;            /* enum cdl_pack_flags */
    unsigned pc_mode;         /* enum cdl_pc_mode */
    unsigned sync_interval;   /* nybbles between sync marks (0: only at start/after loss) */
    unsigned sync_nybbles;    /* zero nybbles in a sync mark (>= 4) */
    uint64_t buffer;          /* recorder buffer bytes (0: unbounded stream) */
    unsigned overflow;        /* enum cdl_overflow */
    unsigned image_kind;      /* enum cdl_image */
    uint64_t write_offset;    /* raw image: byte offset of the next write */
    bool wrapped;             /* raw image: the buffer has wrapped */
    bool have_write_offset;
    unsigned code;            /* enum cdl_code_mode */
    unsigned ecall;           /* enum rvt_flow_ecall */
    bool strict;              /* stop at the first decode error */
    bool histogram;           /* dump: print the PC histogram */
    char state_path[256];     /* recorder state file ("" = none) */
    const struct rvt_image *image; /* set by cfg_finish (may be NULL) */
};

void cdl_cfg_defaults(struct cdl_cfg *c);
static inline struct cdl_fmt cdl_cfg_fmt(const struct cdl_cfg *c)
{
    struct cdl_fmt fm = {c->xlen, c->wide};
    return fm;
}

/* Recorder state file: "key=value" lines written by the encoder and read by
 * the decoder so that a raw buffer image can be ordered. */
struct cdl_state {
    uint64_t write_offset;  /* byte offset of the next word to write */
    uint64_t buffer;        /* buffer size in bytes */
    uint64_t lost_nybbles;  /* nybbles not recorded (halt) or overwritten (wrap) */
    bool wrapped, halted;
};
int cdl_state_write(const char *path, const struct cdl_state *st, struct rvt_diag *d);
int cdl_state_read(const char *path, struct cdl_state *st, struct rvt_diag *d);

/* Turn the recorded bytes into the nybble stream in age order, according to
 * the configuration (raw image rotation).  *base_nybble receives the raw
 * image offset (in nybbles) of stream nybble 0 for offset reporting. */
int cdl_order_stream(const struct cdl_cfg *c, const uint8_t *buf, size_t len, uint8_t **nyb, size_t *nlen,
                     uint64_t *base_nybble, struct rvt_diag *d);

/* Sync points: see packet.c for the rule.  cdl_next_sync finds the first
 * accepted candidate at or after nybble `from`; with start_is_boundary,
 * nybble 0 itself is a candidate (an unwrapped recording starts between
 * cycles). */
bool cdl_sync_valid(const uint8_t *nyb, size_t len, size_t pos, const struct cdl_cfg *c);
bool cdl_next_sync(const uint8_t *nyb, size_t len, size_t from, const struct cdl_cfg *c, bool start_is_boundary,
                   size_t *pos);

/* ---- encoder layers ------------------------------------------------------ */

/* The per-cycle trace from the end of the pipeline (the seed's
 * t_riscv_i32_trace): one retired instruction, or a trap, per cycle. */
struct cdl_cycle {
    uint64_t count;       /* identical sequential cycles this stands for (>= 1) */
    bool retired;         /* an instruction retired (false: a trap cycle) */
    int nonseq;           /* -1 sequential, else enum cdl_nonseq */
    bool uninferable;     /* the target is not in the code (jalr, xRET, trap) */
    bool have_target;
    uint64_t target;      /* non-sequential: where execution continues */
    uint64_t epc;         /* trap: the first instruction that did not complete */
    bool rfw, tracepoint; /* register-file write / tracepoint of the instruction */
    uint8_t rd, tp_type;
    uint64_t rfw_value;
    bool notify;          /* a trigger asks for the instruction's address (RVT_ING_NOTIFY) */
    uint64_t addr;        /* the instruction's address (set with notify) */
    uint64_t first;       /* the address of the cycle's first instruction (a trap cycle: its epc) */
};
/* The cycles of an ingress record of n instructions whose successor is
 * `next` (unknown at the end of the trace). */
int cdl_record_cycles(const struct rvt_ing_rec *r, uint64_t n, bool have_next, uint64_t next,
                      int (*fn)(void *ctx, const struct cdl_cycle *c), void *ctx);

/* A packed record (the seed's t_riscv_i32_packed_trace): what one cycle
 * reports, in the compression order sequential -> non-sequential -> data
 * -> tracepoint. */
struct cdl_packed {
    uint8_t seq;          /* 0..7 instructions retired before this cycle */
    int8_t nonseq;        /* -1 none, else enum cdl_nonseq */
    bool has_pc, has_rfw, has_tp;
    uint64_t pc;          /* the next instruction to retire */
    uint8_t rd, tp_type;
    uint64_t rfw_value;
};

/* ---- encoder ------------------------------------------------------------ */

struct cdl_enc;
int cdl_enc_new(struct cdl_enc **e, const struct cdl_cfg *cfg, const struct rvt_byte_sink *out,
                struct rvt_diag *d);
int cdl_enc_put(struct cdl_enc *e, const struct rvt_ing_rec *r);
/* A run of plain one-instruction records from the front of rs[0..n): how
 * many it took (the rest go to cdl_enc_put, as rvt_encode_stream does). */
size_t cdl_enc_put_plain(struct cdl_enc *e, const struct rvt_ing_rec *rs, size_t n);
size_t cdl_enc_put_short(struct cdl_enc *e, const struct rvt_ing_fast *fs, size_t n, uint8_t priv, uint64_t context);
int cdl_enc_finish(struct cdl_enc *e);
void cdl_enc_stats(const struct cdl_enc *e, struct rvt_codec_stats *st);
const char *cdl_enc_error(const struct cdl_enc *e);
void cdl_enc_free(struct cdl_enc *e);

/* Sync marks the encoder produced: stream nybble offset of the PC field
 * after the mark and the number of instructions retired before it.  For
 * tests and for locating the tail of a wrapped buffer. */
size_t cdl_enc_sync_points(const struct cdl_enc *e, const struct rvt_nyb_sync_point **pts);
/* Recorder state after finish. */
void cdl_enc_state(const struct cdl_enc *e, struct cdl_state *st);

/* ---- decoder ------------------------------------------------------------ */

struct cdl_dec;
int cdl_dec_new(struct cdl_dec **dp, const struct cdl_cfg *cfg, struct rvt_flow *flow, struct rvt_diag *d);
int cdl_dec_run(struct cdl_dec *dec, const uint8_t *buf, size_t len);
/* One segment (docs/parallel.md): from the sync mark at byte `from` up to
 * the one at `until` (cdl_sync_points' offsets). */
int cdl_dec_run_segment(struct cdl_dec *dec, const uint8_t *buf, size_t len, size_t from, size_t until);
/* Every sync mark the decoder reads in a stream in write order. */
int cdl_sync_points(const struct cdl_cfg *c, const uint8_t *buf, size_t len, size_t from,
                    int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d);
const char *cdl_dec_error(const struct cdl_dec *dec);
void cdl_dec_free(struct cdl_dec *dec);

/* ---- dump --------------------------------------------------------------- */

int cdl_dump(const struct cdl_cfg *c, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d);

#endif
