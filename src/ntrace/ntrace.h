/* N-Trace (RISC-V N-Trace 1.0, Nexus based) — internal interface shared by
 * the family's files:
 *
 *   packet.c   one message struct <-> MSEO-framed bytes (both directions)
 *   encoder.c  ingress records -> messages
 *   decoder.c  messages -> calls on the shared flow engine
 *   dump.c     messages -> one text line each
 *   codec.c    options, struct rvt_codec rvt_codec_ntrace
 *
 * Prefix: nt_ (internal), rvt_nt_ would be public; nothing here is public.
 */
#ifndef RVT_NTRACE_INTERNAL_H
#define RVT_NTRACE_INTERNAL_H

#include "rvtrace/codec.h"

#include <stdbool.h>
#include <stdint.h>

/* The family's table (codec.c). */
extern const struct rvt_codec rvt_codec_ntrace;

/* ---- message types (TCODE) ---------------------------------------------- */

enum nt_tcode {
    NT_TC_OWNERSHIP = 2,
    NT_TC_DIRECT_BRANCH = 3,
    NT_TC_INDIRECT_BRANCH = 4,
    NT_TC_ERROR = 8,
    NT_TC_PROG_TRACE_SYNC = 9,
    NT_TC_DIRECT_BRANCH_SYNC = 11,
    NT_TC_INDIRECT_BRANCH_SYNC = 12,
    NT_TC_RESOURCE_FULL = 27,
    NT_TC_INDIRECT_BRANCH_HIST = 28,
    NT_TC_INDIRECT_BRANCH_HIST_SYNC = 29,
    NT_TC_REPEAT_BRANCH = 30,
    NT_TC_PROG_TRACE_CORRELATION = 33
};

/* Message name ("ProgTraceSync"), "Vendor", or "Reserved". */
const char *nt_tcode_name(unsigned tcode);
/* True for the four messages with a SYNC (and F-ADDR) field (inline: asked
 * three times a message). */
static inline bool nt_tcode_is_sync(unsigned tcode)
{
    return tcode == NT_TC_PROG_TRACE_SYNC || tcode == NT_TC_DIRECT_BRANCH_SYNC ||
           tcode == NT_TC_INDIRECT_BRANCH_SYNC || tcode == NT_TC_INDIRECT_BRANCH_HIST_SYNC;
}
/* True for TCODEs this version of N-Trace defines. */
bool nt_tcode_known(unsigned tcode);

/* SYNC field values (spec table "SYNC Field Values"). */
enum nt_sync {
    NT_SYNC_EXT_TRIGGER = 0,
    NT_SYNC_RESET = 1,
    NT_SYNC_PERIODIC = 2,
    NT_SYNC_DEBUG_EXIT = 3,
    NT_SYNC_ICNT = 4,
    NT_SYNC_TRACE_ENABLE = 5,
    NT_SYNC_TRACE_EVENT = 6,
    NT_SYNC_OVERRUN = 7,
    NT_SYNC_POWER_UP = 9
};
const char *nt_sync_name(unsigned sync);

/* B-TYPE values. */
enum nt_btype {
    NT_BTYPE_INDIRECT = 0,  /* jump/call/return, or sync not related to code */
    NT_BTYPE_TRAP = 1,      /* exception or interrupt (when 2/3 are not used) */
    NT_BTYPE_EXCEPTION = 2, /* extension */
    NT_BTYPE_INTERRUPT = 3  /* extension */
};
const char *nt_btype_name(unsigned btype);

/* RCODE values of ResourceFull. */
enum nt_rcode {
    NT_RCODE_ICNT = 0,        /* RDATA = I-CNT */
    NT_RCODE_HIST = 1,        /* RDATA = HIST */
    NT_RCODE_HIST_REPEAT = 2  /* RDATA = HIST, HREPEAT = repeat count */
};
const char *nt_rcode_name(unsigned rcode);
const char *nt_evcode_name(unsigned evcode);

/* ETYPE 0 / ECODE bits of the Error message. */
#define NT_ETYPE_OVERRUN 0u
#define NT_ECODE_PROGRAM_LOST 0x04u
#define NT_ECODE_OWNERSHIP_LOST 0x08u
#define NT_ECODE_VENDOR_LOST 0x80u

/* ---- fields ------------------------------------------------------------- */

/* Every field a message can hold; a message's fields are in m->v[] indexed
 * by these, present ones flagged in m->present. */
enum nt_field {
    NT_F_SRC = 0,
    NT_F_SYNC,
    NT_F_BTYPE,
    NT_F_ETYPE,
    NT_F_ECODE,
    NT_F_RCODE,
    NT_F_RDATA,
    NT_F_HREPEAT,
    NT_F_EVCODE,
    NT_F_CDF,
    NT_F_ICNT,
    NT_F_FADDR,
    NT_F_UADDR,
    NT_F_HIST,
    NT_F_BCNT,
    NT_F_PROCESS,
    NT_F_TSTAMP,
    NT_F__COUNT
};
const char *nt_field_name(unsigned field); /* spec spelling: "I-CNT", "F-ADDR" ... */

/* Limits (spec table "Maximum Field Sizes"). */
#define NT_MAX_SRC_BITS 12
#define NT_MAX_HIST_BITS 32    /* including the stop bit */
#define NT_MAX_HREPEAT ((1u << 18) - 1)
#define NT_MAX_BCNT ((1u << 18) - 1)
#define NT_MAX_ICNT_BITS 22   /* NTRACE_MAX_ICNT: wider is an rvtrace extension */
#define NT_DEFAULT_ICNT_BITS NT_MAX_ICNT_BITS

/* Largest message we ever produce (all fields at 64 bits plus a 12-bit SRC
 * is 52 bytes); parsing accepts longer (custom) messages up to
 * NT_MSG_PARSE_MAX bytes. */
#define NT_MSG_MAX 64
#define NT_MSG_PARSE_MAX 256

struct nt_msg {
    uint8_t tcode;
    uint32_t present;          /* 1u << enum nt_field */
    uint64_t v[NT_F__COUNT];   /* defined only where present */
    /* Address field as decoded: after the optional sign extension
     * (Virtual Addresses Optimization) the full field value in v[]; this
     * says whether the extension was applied. */
    bool addr_extended;
};

static inline bool nt_has(const struct nt_msg *m, enum nt_field f)
{
    return (m->present >> f) & 1u;
}
static inline void nt_set(struct nt_msg *m, enum nt_field f, uint64_t v)
{
    m->v[f] = v;
    m->present |= 1u << f;
}
void nt_msg_init(struct nt_msg *m, unsigned tcode);

/* What both directions of the packet layer must agree on. */
struct nt_wire {
    unsigned src_bits;  /* 0: no SRC field */
    unsigned xlen;      /* 32 or 64: width of addresses */
    bool addr_ext;      /* trTeInstExtendAddrMSB: skip identical MSBs of x-ADDR */
};

/* Encode m into out[NT_MSG_MAX]; returns the byte count or <0 (field out of
 * range: diag says which).  Fields are written in the spec's order for the
 * TCODE; optional ones (HREPEAT, PTC HIST, TSTAMP) when present. */
int nt_msg_encode(const struct nt_wire *w, const struct nt_msg *m, uint8_t *out, struct rvt_diag *d);

/* Decode one complete message (bytes [0,n) with MSEO 11 only on the last
 * byte).  `offset` is used in error messages only.  Unknown TCODEs decode
 * as TCODE + SRC with no other field (not an error). */
int nt_msg_decode(const struct nt_wire *w, const uint8_t *p, size_t n, uint64_t offset, struct nt_msg *m,
                  struct rvt_diag *d);

/* Framing: find the next message in buf[*pos, len).  Skips idle bytes
 * (0xFF between messages).  Returns 1 and sets *start, *n when a complete
 * message was found (and *pos past it); 0 at the end (only idles left);
 * <0 on a framing error (diag names the offset), with *pos advanced past
 * the damage so that the next call resynchronises; -RVT_ERR_TRUNCATED when
 * the buffer ends inside a message (*pos = len). */
int nt_frame_next(const uint8_t *buf, size_t len, size_t *pos, size_t *start, size_t *n, struct rvt_diag *d);

/* Full address from an F-ADDR field, and U-ADDR from the previous address. */
static inline uint64_t nt_addr_mask(unsigned xlen)
{
    return xlen == 32 ? 0xffffffffull : ~0ull;
}

/* ---- configuration (shared by encoder, decoder, dump) --------------------- */

enum nt_mode { NT_MODE_BTM = 0, NT_MODE_HTM = 1 };

/* Encoder options also given to the decoder (nt_cfg.given): what they
 * imply is checked (messages such an encoder cannot produce are errors). */
enum nt_given {
    NT_GIVEN_MODE = 1u << 0,
    NT_GIVEN_CALLSTACK = 1u << 1,
    NT_GIVEN_REPEAT = 1u << 2,
    NT_GIVEN_SIJUMP = 1u << 3,
    NT_GIVEN_HIST_BITS = 1u << 4,
    NT_GIVEN_BTYPE_COMPAT = 1u << 5
};
enum nt_cs_mode { NT_CS_ADDR = 0, NT_CS_COUNT = 1 };

struct nt_cfg {
    size_t size;
    enum nt_mode mode;
    unsigned callstack;       /* implicit-return stack depth (0: off) */
    enum nt_cs_mode cs_mode;  /* full addresses, or counter only */
    unsigned repeat;          /* bit 0: RepeatBranch, bit 1: repeated HIST (RCODE 2) */
    uint64_t sync_period;     /* halfwords between periodic syncs (0: off) */
    uint64_t sync_msgs;       /* messages between periodic syncs (0: off) */
    unsigned src_bits;
    unsigned src_id;
    bool timestamps;
    bool context;             /* Ownership messages */
    bool sijump;              /* sequential-jump optimization */
    bool addr_ext;            /* virtual address optimization */
    bool btype_compat;        /* report every trap as B-TYPE 1 */
    bool icnt_sync;           /* BTM: I-CNT full as ProgTraceSync SYNC=4 */
    unsigned icnt_bits;       /* I-CNT counter width */
    unsigned hist_bits;       /* history bits in a full HIST (without stop bit) */
    unsigned start_sync;      /* SYNC code of the first message */
    unsigned end_evcode;      /* EVCODE of the closing ProgTraceCorrelation */
    enum rvt_flow_ecall ecall;
    unsigned xlen;            /* 0 until cfg_finish */
    uint8_t priv;             /* decoder: privilege assumed without Ownership */
    bool strict;              /* decoder: stop at the first error */
    bool vendor_msgs;         /* decoder: ignore Vendor Defined messages and codes */
    bool dump_bytes;          /* dump: also print each message's bytes */
    const struct rvt_image *image; /* optional (instruction counts in stats) */
    uint32_t given;           /* enum nt_given: encoder options set explicitly */
};

void nt_cfg_init(struct nt_cfg *c);
int nt_cfg_set(struct nt_cfg *c, const char *key, const char *val, struct rvt_diag *d);
int nt_cfg_finish(struct nt_cfg *c, unsigned xlen, const struct rvt_image *img, struct rvt_diag *d);
void nt_cfg_wire(const struct nt_cfg *c, struct nt_wire *w);

/* Is m something N-Trace and this configuration can produce?  Reserved
 * codes, counts beyond the spec's maximum field sizes (I-CNT: the
 * configured counter width) and vendor codes (unless vendor_msgs) are
 * errors (RVT_ERR_FORMAT, diag names the offset and what was expected). */
int nt_msg_check(const struct nt_cfg *c, const struct nt_msg *m, uint64_t offset, struct rvt_diag *d);

/* PROCESS field of Ownership <-> ingress priv / context. */
uint64_t nt_process_encode(unsigned format, uint8_t priv, uint64_t context);
/* Returns false for a reserved FORMAT; *has_context for FORMAT 2/3. */
bool nt_process_decode(uint64_t process, uint8_t *priv, uint64_t *context, bool *has_context);

/* ---- encoder / decoder / dump ------------------------------------------- */

struct nt_encoder;
int nt_enc_new(struct nt_encoder **out, const struct nt_cfg *cfg, const struct rvt_byte_sink *sink,
               struct rvt_diag *d);
int nt_enc_put(struct nt_encoder *e, const struct rvt_ing_rec *r);
/* The records at the front of rs[0..n) that each retire one instruction
 * and only count (no message, nothing pending): taken as nt_enc_put would
 * take them; returns how many. */
size_t nt_enc_put_plain(struct nt_encoder *e, const struct rvt_ing_rec *rs, size_t n);
size_t nt_enc_put_short(struct nt_encoder *e, const struct rvt_ing_fast *fs, size_t n, uint8_t priv, uint64_t context);
/* For the tests: every record through the general path, the reference
 * the fast paths (nt_enc_put's and nt_enc_put_plain) must match. */
void nt_enc_general_only(struct nt_encoder *e);
int nt_enc_finish(struct nt_encoder *e);
void nt_enc_stats(const struct nt_encoder *e, struct rvt_codec_stats *st);
const char *nt_enc_error(const struct nt_encoder *e);
void nt_enc_free(struct nt_encoder *e);

struct nt_decoder;
int nt_dec_new(struct nt_decoder **out, const struct nt_cfg *cfg, struct rvt_flow *flow, struct rvt_diag *d);
int nt_dec_run(struct nt_decoder *x, const uint8_t *buf, size_t len);
/* One segment: from the sync point at `from` up to the one at `until`. */
int nt_dec_run_segment(struct nt_decoder *x, const uint8_t *buf, size_t len, size_t from, size_t until);
/* Every synchronising message the decoder would accept, in order. */
int nt_sync_points(const struct nt_cfg *cfg, const uint8_t *buf, size_t len, size_t from,
                   int (*fn)(void *ctx, const struct rvt_sync_point *sp), void *ctx, struct rvt_diag *d);
/* Parallel decode (docs/parallel.md): the decode in parts, and the join check. */
int nt_dec_run_part(struct nt_decoder *x, const uint8_t *buf, size_t len, size_t from, size_t until, size_t *next);
bool nt_dec_state_equal(const struct nt_decoder *a, const struct nt_decoder *b);
const char *nt_dec_error(const struct nt_decoder *x);
void nt_dec_free(struct nt_decoder *x);

/* One text line for a message (no newline).  `last_addr` is the U-ADDR
 * reference (updated); the line shows the resolved address too. */
void nt_msg_format(const struct nt_cfg *c, const struct nt_msg *m, uint64_t *last_addr, char *buf, size_t size);
int nt_dump(const struct nt_cfg *c, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d);

#endif
