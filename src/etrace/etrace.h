/* E-Trace family — internal interfaces shared by the files of src/etrace.
 *
 * One parameter struct (struct et_params) carries every hardware parameter
 * (the spec's *_p names, as in a reference-flow .scf file) and every
 * run-time option (the .ucf [codec] keys); the packet layer, the framing,
 * the encoder, the decoder and the dump all take their field widths and
 * modes from it.
 */
#ifndef RVT_ETRACE_INTERNAL_H
#define RVT_ETRACE_INTERNAL_H

#include "etrace/data.h"
#include "rvtrace/codec.h"
#include "rvtrace/common.h"
#include "rvtrace/ingress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- parameters ---------------------------------------------------------- */

enum et_version {
    ET_V2_0 = 0,  /* E-Trace 2.0 (ratified) */
    ET_V0_026 = 1 /* the 0.026 draft of seed 001 */
};

/* Implicit-return reporting scheme (irreport/irdepth meaning). */
enum et_irmode {
    ET_IR_OFF = 0,
    ET_IR_20 = 1,   /* 2.0 as written: irdepth = return-stack depth / call count */
    ET_IR_FIXED = 2 /* corrected (spec issue 254): irdepth = implicit returns since the last address */
};

enum et_framing {
    ET_FRAME_ENCAP = 0, /* e-trace-encap normal/null packets */
    ET_FRAME_REFRAW = 1 /* reference flow .te_inst_raw: header (msg_type<<5 | length) */
};

/* Bits of the support packet's ioptions field (implementation defined;
 * bits 0..4 are the reference flow's layout so its files decode). */
enum et_ioption_bits {
    ET_IOPT_IMPLICIT_RETURN = 1u << 0,
    ET_IOPT_IMPLICIT_EXCEPT = 1u << 1,
    ET_IOPT_FULL_ADDRESS = 1u << 2,
    ET_IOPT_JTC = 1u << 3,
    ET_IOPT_BPRED = 1u << 4,
    ET_IOPT_SIJUMP = 1u << 5,
    ET_IOPT_IR_FIXED = 1u << 6
};
#define ET_IOPTIONS_WIDTH 7

#define ET_MAX_FILTERS 8
#define ET_RESYNC_OFF (-1)
#define ET_RESYNC_ANY (-2)

struct et_addr_range {
    uint64_t lo, hi; /* inclusive */
};

struct et_params {
    /* ---- hardware parameters (static configuration / discovery) ---- */
    unsigned arch_p;
    unsigned iaddress_width_p;  /* 32 or 64 (any 2..64 accepted) */
    unsigned iaddress_lsb_p;    /* 0..2 */
    unsigned privilege_width_p; /* 1..3 */
    unsigned context_width_p;   /* 0..64 */
    unsigned time_width_p;      /* 0..64 */
    unsigned nocontext_p, notime_p;
    unsigned ecause_width_p; /* 1..16 */
    unsigned return_stack_size_p, call_counter_size_p;
    unsigned bpred_size_p, cache_size_p, f0s_width_p;
    unsigned sijump_p;
    unsigned itype_width_p; /* 3 or 4 */
    unsigned ctype_width_p, ilastsize_width_p, iretire_width_p, retires_p, taken_branches_p,
        impdef_width_p, blocks_p;
    unsigned comparators_p, filters_p, ecause_choice_p, filter_context_p, filter_time_p,
        filter_excint_p, filter_privilege_p, filter_tval_p;
    unsigned notval_p;           /* 0.026: no tval field */
    unsigned encoder_mode_width; /* E of the support packet (1, as the reference flow) */
    unsigned ioptions_width;     /* N of the support packet */
    unsigned doptions_width;     /* M of the support packet */
    unsigned denable_p;          /* support packet carries denable/dloss/doptions (1) */

    /* ---- run-time options ---- */
    enum et_version version;
    enum et_framing framing;
    int resync_max;          /* reference-flow encoding: period 2^(n+4) packets; <0: never;
                              * ET_RESYNC_ANY: (decoder) not a packet count, not checked */
    bool resync_counted;     /* decoder: resync-max N was given (or trTeInstSyncMode = packets), so the
                              * encoder's resync timer counts packets and its timing is checked */
    bool full_address;
    enum et_irmode implicit_return;
    bool implicit_except;
    bool sijump;
    bool branch_prediction;
    bool jump_target_cache;
    bool model_compat;       /* reproduce the reference model's choices where the spec allows */
    bool disambiguate;       /* extension: notifications where the spec's packets have two readings */
    bool disambiguate_given; /* decoder: disambiguate on was given, so its packets are checked for */
    bool partial_compression;/* decoder: accept payloads longer than their sign-compressed form */
    uint64_t tvec[8];        /* implicit-except: trap vector (CSR value, mode in bits 1:0) per privilege */
    bool have_tvec[8];
    /* encapsulation */
    unsigned src_bits;       /* srcID width 0..16 */
    unsigned src_id;
    bool src_id_set;         /* src-id given: decoders skip other sources' packets (a funnel) */
    unsigned ts_bytes;       /* encap timestamp bytes T (0: none) */
    unsigned type_bits;      /* encap payload type width */
    unsigned flow;           /* encap header flow value */
    unsigned sync_period;    /* encap: insert a synchronisation sequence every N bytes (0: only at start) */
    /* filters (seed 001 chapter 4): an instruction block is qualified when it
     * passes every enabled filter */
    unsigned n_ranges;
    struct et_addr_range range[ET_MAX_FILTERS];
    uint32_t priv_mask;      /* bit per privilege code; 0 = all */
    unsigned n_causes;
    uint32_t cause[ET_MAX_FILTERS];
    bool cause_interrupt[ET_MAX_FILTERS];
    /* flow/decoder */
    int ecall_mode;          /* enum rvt_flow_ecall */
    unsigned xlen;           /* 0: from the stream/image */
    bool strict;
    struct et_dparams d;     /* data trace (data.h) */
};

void et_params_default(struct et_params *p);
/* Width helpers. */
static inline unsigned et_addr_bits(const struct et_params *p)
{
    return p->iaddress_width_p - p->iaddress_lsb_p;
}
static inline unsigned et_ctx_bits(const struct et_params *p)
{
    return p->nocontext_p ? 0 : p->context_width_p;
}
static inline unsigned et_time_bits(const struct et_params *p)
{
    return p->notime_p ? 0 : p->time_width_p;
}
static inline unsigned et_irdepth_bits(const struct et_params *p)
{
    return p->return_stack_size_p + (p->return_stack_size_p > 0 ? 1u : 0u) + p->call_counter_size_p;
}
/* Support-packet ioptions value for the run-time options. */
uint32_t et_ioptions(const struct et_params *p);
/* Apply a received ioptions value to the run-time options. */
void et_apply_ioptions(struct et_params *p, uint32_t ioptions);
/* Check ranges and consistency; message in d. */
int et_params_check(const struct et_params *p, struct rvt_diag *d);

/* ---- configuration files (config.c) ------------------------------------- */

/* Set one parameter or option by name ("iaddress_width_p", "resync-max",
 * ...).  Returns 0, -RVT_ERR_INVAL (bad value) or -RVT_ERR_UNSUPPORTED
 * (unknown key: *known is set false). */
int et_param_set(struct et_params *p, const char *key, const char *val, struct rvt_diag *d);
/* Read a reference-flow static configuration (.scf) or user configuration
 * (.ucf) file: INI syntax.  ucf: only the [codec] section is applied. */
int et_load_scf(struct et_params *p, const char *path, struct rvt_diag *d);
int et_load_ucf(struct et_params *p, const char *path, struct rvt_diag *d);
/* Parse INI text from memory (fuzzing); section "codec" keys are options,
 * all others hardware parameters unless ucf_only.  name is used in messages. */
int et_load_ini_mem(struct et_params *p, const char *text, size_t len, const char *name, bool ucf,
                    struct rvt_diag *d);
/* Implicit exception mode: the trap handler address a trap vector (xtvec
 * CSR value for the handler's privilege) gives; false if none configured. */
bool et_implied_handler(const struct et_params *p, unsigned priv, bool interrupt, uint32_t cause, uint64_t *handler);
/* Print the discovery attributes (discovery.adoc, seed 001 3.1.4). */
int et_print_discovery(const struct et_params *p, FILE *out);

/* ---- packets (packet.c) -------------------------------------------------- */

enum et_format { ET_F0 = 0, ET_F1 = 1, ET_F2 = 2, ET_F3 = 3 };
enum et_sf3 { ET_SF_START = 0, ET_SF_TRAP = 1, ET_SF_CONTEXT = 2, ET_SF_SUPPORT = 3 };
enum et_sf0 { ET_SF0_BPRED = 0, ET_SF0_JTC = 1 };
enum et_qual {
    ET_QUAL_NO_CHANGE = 0,
    ET_QUAL_ENDED_REP = 1,
    ET_QUAL_TRACE_LOST = 2,
    ET_QUAL_ENDED_NTR = 3
};
/* branch_fmt of format 0 subformat 0 */
enum et_bfmt { ET_BFMT_NOADDR = 0, ET_BFMT_ADDR = 2, ET_BFMT_ADDR_FAIL = 3 };

/* Kinds of packet in a stream (te_inst, and the 0.026 draft's separate te_support). */
enum et_msg { ET_MSG_TE_INST = 0, ET_MSG_TE_SUPPORT = 1, ET_MSG_TE_DATA = 2 /* te_data (data.h) */ };

/* A te_inst packet, field by field.  notify/updiscon/irreport are the
 * logical values ("this packet is a notification" ...); the transmitted
 * bits follow the "differs from the preceding bit" rule and are kept in
 * raw_* after unpacking (and filled by packing). */
struct et_packet {
    uint8_t msg;       /* enum et_msg */
    uint8_t format;    /* enum et_format */
    uint8_t subformat; /* format 3: enum et_sf3; format 0: enum et_sf0 */
    /* format 3 start/trap/context */
    uint8_t branch;    /* 0: the instruction at address is a taken branch */
    uint8_t privilege;
    uint8_t interrupt, thaddr;
    uint32_t ecause;
    uint64_t time, context;
    uint64_t tval;
    /* address: the transmitted field (full >> lsb, or the difference >> lsb),
     * masked to its width */
    uint64_t address;
    bool has_address;
    /* branch map (format 1, format 0 subformat 1) */
    uint8_t branches;
    uint32_t branch_map;
    /* format 0 subformat 0 */
    uint32_t branch_count;
    uint8_t branch_fmt;
    /* format 0 subformat 1 */
    uint32_t index;
    /* status bits */
    uint8_t notify, updiscon, irreport;
    uint32_t irdepth;
    uint8_t raw_notify, raw_updiscon, raw_irreport;
    uint32_t raw_irdepth;
    unsigned field_bits; /* unpack: where the packet's fields end (its uncompressed length) */
    bool has_status; /* notify/updiscon present (formats 1/2, 0.0 with address) */
    bool has_ir;     /* irreport present */
    /* support */
    uint8_t ienable, encoder_mode, qual_status, denable, dloss;
    uint32_t ioptions, doptions;
    uint8_t support_type; /* 0.026 te_support */
};

/* Bit vector of a packet under construction / being read (LSB first). */
#define ET_MAX_BITS 512
struct et_bits {
    uint64_t w[ET_MAX_BITS / 64];
    unsigned n;
};

/* Serialise the packet's fields (full length, before compression). */
int et_pkt_bits(const struct et_params *p, struct et_packet *k, struct et_bits *b,
                struct rvt_diag *d);
/* Sign-based compression: number of bits to keep (repeated top bits
 * dropped, one copy of the sign bit kept; at least 1). */
unsigned et_bits_compressed_len(const struct et_bits *b);
/* Pack into bytes: compressed, sign-extended to a byte boundary.  Returns
 * the payload length in bytes (<= cap) or <0.  *full_bits (optional) gets
 * the uncompressed length. */
int et_pkt_pack(const struct et_params *p, struct et_packet *k, uint8_t *out, size_t cap,
                unsigned *full_bits, struct rvt_diag *d);
/* Parse a payload of nbits bits (len bytes; bits beyond nbits are taken as
 * sign extension of bit nbits-1).  msg says which message kind the framing
 * announced.  Returns 0 or <0 with d naming the field. */
int et_pkt_unpack(const struct et_params *p, uint8_t msg, const uint8_t *payload, size_t len,
                  unsigned nbits, struct et_packet *k, struct rvt_diag *d);
int et_pkt_unpack_bits(const struct et_params *p, uint8_t msg, const struct et_bits *b, struct et_packet *k,
                       struct rvt_diag *d);
/* payload.adoc: a payload "must be sign-extended to the nearest byte
 * boundary": the received bits beyond the packet's fields (k->field_bits,
 * from et_pkt_unpack_bits) must all equal its last field bit.  Returns 0 or
 * <0 with d saying which bit differs. */
int et_pkt_check_padding(const struct et_bits *b, const struct et_packet *k, bool draft, struct rvt_diag *d);
/* Unused irdepth bits (irreport not set) that are not copies of the preceding bit: message in d. */
int et_pkt_check_irdepth(const struct et_params *p, const struct et_packet *k, struct rvt_diag *d);
/* payload.adoc: sign-based compression "ideally will be applied to the
 * whole packet" (as rvtrace and the reference model do): a packet longer
 * than its compressed payload (sign-extended to whole bytes, after `lead`
 * bits of srcID and type field) needs is an error unless the decoder
 * accepts partly compressed packets (--partial-compression). */
int et_pkt_check_compressed(const struct et_bits *b, const struct et_packet *k, unsigned lead, bool draft,
                            struct rvt_diag *d);
/* One-pass reader for the packets most of a trace is made of: format 1
 * (a branch map, with or without an address) and format 2 of E-Trace 2.0,
 * in an encapsulation payload of whole bytes with no srcID or type bits
 * before it.  It reads the fields straight from the payload bytes and
 * applies et_pkt_unpack_bits' end check, et_pkt_check_padding,
 * et_pkt_check_irdepth and (unless partial compression is accepted)
 * et_pkt_check_compressed in their cheap equivalent forms; anything else
 * (another format, a packet one of them rejects) is left to those, which
 * stay the reference and give the messages.  The widths are the
 * configuration's: et_fastrd_init computes them once. */
struct et_fastrd {
    bool on;               /* the configuration allows it (E-Trace 2.0, encap, no srcID/type bits) */
    bool check_compressed; /* !partial_compression */
    unsigned aw;           /* address field bits */
    unsigned irdb;         /* irdepth field bits */
    uint64_t aw_mask;      /* address field with every bit set */
    uint32_t ir_ones;      /* irdepth with every bit set */
};
void et_fastrd_init(struct et_fastrd *fr, const struct et_params *p);
/* The payload's len bytes (1..31) at payload, which must be followed by
 * enough readable bytes to make 32 (the caller copies a buffer's last
 * bytes).  True: k is what et_pkt_unpack_bits gives (k->msg te_inst) and
 * every check passes; false: k is undefined, read the packet the general
 * way. */
bool et_pkt_read_fast(const struct et_fastrd *fr, const uint8_t *payload, unsigned len, struct et_packet *k);
/* Number of branch_map bits carried for a branches value (and whether an
 * address follows, for format 1). */
unsigned et_map_bits(const struct et_params *p, unsigned branches, bool *has_addr);
/* Name of a packet kind ("F1", "F3.TRAP", ...). */
/* draft: the 0.026 draft's names (its format 0 is full-delta, no subformat) */
const char *et_pkt_name(const struct et_packet *k, bool draft);
/* One line with every present field ("format=1 branches=3 ..."). */
int et_pkt_format_fields(const struct et_params *p, const struct et_packet *k, char *buf, size_t size);
/* Sign-extend the address field to a 64-bit value (difference). */
uint64_t et_addr_field_sext(const struct et_params *p, uint64_t field);

/* ---- framing (framing.c) ------------------------------------------------- */

/* Output: frame and write one packet payload.
 *
 * Once the sink refuses bytes (takes fewer than offered) the framer holds:
 * frames are still produced and counted, but not written, until the owner
 * gets a packet through with et_framer_offer (E-Trace: the trace_lost
 * support packet) and releases the hold.  The rest of a frame the sink cut
 * is written first when it takes bytes again, so the stream stays a
 * sequence of whole frames. */
struct et_framer {
    const struct et_params *p;
    struct rvt_byte_sink sink;
    uint64_t bytes;       /* produced: every frame and synchronisation sequence, once */
    uint64_t lost;        /* of those, the bytes the sink did not take */
    uint64_t since_sync;  /* bytes since the last synchronisation sequence */
    bool started;
    bool hold;            /* the sink refused bytes: frames are counted as lost, not written */
    uint8_t tail[96];     /* the part of a frame the sink cut off, not yet written */
    size_t ntail;
    bool tail_offered;    /* ...which belongs to the packet et_framer_offer offered */
};
void et_framer_init(struct et_framer *fr, const struct et_params *p, const struct rvt_byte_sink *sink);
/* Write a packet: payload bits (compressed, not padded) in b, msg kind, time for the encap timestamp. */
int et_framer_put(struct et_framer *fr, const struct et_bits *b, uint8_t msg, uint64_t time,
                  struct rvt_diag *d);
/* Emit a synchronisation sequence (encap) now. */
int et_framer_sync(struct et_framer *fr, struct rvt_diag *d);
/* While holding: offer a packet to the sink (after the rest of a cut
 * frame).  *taken: the whole packet is in the sink (the hold stays until
 * the owner clears fr->hold).  A packet the sink refuses entirely is not
 * counted as produced.  Returns 0 or <0 (sink error). */
int et_framer_offer(struct et_framer *fr, const struct et_bits *b, uint8_t msg, uint64_t time, bool *taken,
                    struct rvt_diag *d);

/* Input: split a byte buffer into packets. */
struct et_frame {
    uint64_t offset;      /* byte offset of the frame's first byte */
    size_t size;          /* bytes of the whole frame */
    const uint8_t *payload_bytes; /* NULL if the payload is not byte aligned (see bits) */
    struct et_bits bits;  /* payload bits (type field removed) */
    uint8_t msg;          /* enum et_msg */
    uint8_t type;         /* encap type field / refraw msg_type */
    uint8_t flow;
    uint64_t timestamp;   /* encap, when has_ts */
    bool has_ts;
    unsigned src_id;
    bool is_null;         /* encap null packet (idle/alignment): no payload */
    bool is_align;        /* ...a null.alignment (extend = 1) */
    bool sign_padded;     /* the payload's last byte is padded by sign extension alone (no
                           * encapsulation padding of "don't care" bits: refraw, or encap
                           * with srcID and type fields of whole bytes) */
    uint8_t lead_bits;    /* bits of the length-counted bytes before the payload (encap:
                           * the srcID bits beyond whole bytes and the type field) */
    bool is_data;         /* a data-trace packet (skipped) */
    bool is_other;        /* another source's packet (et_deframer.only_src) */
};
struct et_deframer {
    const struct et_params *p;
    const uint8_t *buf;
    size_t len, pos;
    bool only_src; /* mark frames whose srcID is not p->src_id as is_other */
};
void et_deframer_init(struct et_deframer *df, const struct et_params *p, const uint8_t *buf, size_t len);
/* Next frame: 1 = got one, 0 = end, <0 error (d names the offset; the
 * caller may call et_deframer_resync). */
int et_deframer_next(struct et_deframer *df, struct et_frame *fr, struct rvt_diag *d);
/* Skip to the next position where packets can be trusted to start
 * (encap: after a synchronisation sequence; refraw: the next byte). */
bool et_deframer_resync(struct et_deframer *df);
/* Encap: find the first packet boundary after a synchronisation sequence
 * at or after pos; returns the position or len. */
size_t et_encap_find_sync(const struct et_params *p, const uint8_t *buf, size_t len, size_t pos);

/* ---- dump (dump.c) ------------------------------------------------------- */

int et_dump(const struct et_params *p, const uint8_t *buf, size_t len, FILE *out, struct rvt_diag *d);

/* ---- predictors shared by encoder and decoder (predict.c) --------------- */

struct et_bpred {
    uint8_t *state;   /* 2-bit states */
    unsigned bits;    /* bpred_size_p */
    unsigned shift;   /* 1, or 2 without compressed instructions */
};
int et_bpred_init(struct et_bpred *bp, unsigned size_p, unsigned shift);
void et_bpred_free(struct et_bpred *bp);
void et_bpred_reset(struct et_bpred *bp);
/* Predicted outcome (true = taken) of the branch at addr. */
bool et_bpred_predict(const struct et_bpred *bp, uint64_t addr);
/* Update with the actual outcome. */
void et_bpred_update(struct et_bpred *bp, uint64_t addr, bool taken);

struct et_jtc {
    uint64_t *entry;
    uint8_t *valid;
    unsigned bits;
    unsigned shift;
};
int et_jtc_init(struct et_jtc *c, unsigned size_p, unsigned shift);
void et_jtc_free(struct et_jtc *c);
void et_jtc_reset(struct et_jtc *c);
unsigned et_jtc_index(const struct et_jtc *c, uint64_t addr);
/* Look up a target: true with *index if present; else the entry is replaced. */
bool et_jtc_lookup_update(struct et_jtc *c, uint64_t addr, unsigned *index);
/* Decoder side: address at an index (false if invalid). */
bool et_jtc_get(const struct et_jtc *c, unsigned index, uint64_t *addr);

/* Entries of the implicit-return stack (0: implicit return off); shared by
 * the encoder and the decoder's flow configuration. */
unsigned et_callstack_depth(const struct et_params *p);

/* ---- config (codec.c) ---------------------------------------------------- */

struct et_config {
    struct et_params p;
    char scf_path[256], ucf_path[256];
};

#endif
