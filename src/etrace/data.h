/* E-Trace data trace (te_data): parameters, packets, encoder and decoder
 * state, shared by the files src/etrace/data_*.c.
 *
 * The packets are those of dataTracePayload.adoc; the hart's side is the
 * data interface of ingressPort.adoc, carried in the ingress records
 * (RVT_ING_HAS_MEM / RVT_ING_HAS_DTYPE, include/rvtrace/ingress.h).  Data
 * packets share the stream with te_inst packets (refraw msg_type 3,
 * encapsulation type 1) and are ordered with them so that a decoder can
 * tie each access to its instruction (docs/etrace.md, "Data trace"):
 *
 *  - the data packet of an instruction follows the te_inst packets the
 *    encoder sends while that instruction is its current one (a sync packet
 *    reporting it, an address packet ending at it) and precedes the support
 *    packet that ends tracing after it;
 *  - every format 3 packet resets the compression state ("Following a
 *    synchronization instruction trace packet, the first data trace packet
 *    for a given access size must include the full (unencoded) data access
 *    address ... the full (unencoded) data value"), so both sides reset at
 *    the same point of the stream.
 */
#ifndef RVT_ETRACE_DATA_H
#define RVT_ETRACE_DATA_H

#include "rvtrace/common.h"
#include "rvtrace/flow.h"
#include "rvtrace/ingress.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Data trace: off, with the instruction trace, or alone (trTeInstTracing
 * 0: accesses in order, not tied to instructions; the reference data
 * model's stream). */
enum et_dmode { ET_DATA_OFF = 0, ET_DATA_ON = 1, ET_DATA_ONLY = 2 };

/* Data value compression (the spec lets an encoder offer XOR,
 * differential or both, choosing per packet "whichever results in the
 * most efficient representation"). */
enum et_dcompress { ET_DC_DIFF = 0, ET_DC_XOR = 1, ET_DC_BEST = 2 };

/* Traced access classes (the filters' dtype choice, decided per
 * instruction so that the decoder can tell which instructions have a
 * packet). */
enum et_dclass {
    ET_DCL_LOAD = 1u << 0,   /* loads, FP loads, LR */
    ET_DCL_STORE = 1u << 1,  /* stores, FP stores, SC (succeeded or failed) */
    ET_DCL_ATOMIC = 1u << 2, /* AMOs */
    ET_DCL_CSR = 1u << 3,    /* Zicsr instructions */
    ET_DCL_ALL = 15u
};

#define ET_DMAX_RANGES 8

/* doptions bits (implementation defined; bits 0..3 are the reference data
 * model's). */
enum et_doption_bits {
    ET_DOPT_NO_ADDRESS = 1u << 0,
    ET_DOPT_NO_DATA = 1u << 1,
    ET_DOPT_FULL_ADDRESS = 1u << 2,
    ET_DOPT_FULL_DATA = 1u << 3,
    ET_DOPT_COMPRESS_SHIFT = 4,      /* 2 bits: enum et_dcompress */
    ET_DOPT_NO_CLASS_SHIFT = 6       /* 4 bits: classes NOT traced (enum et_dclass) */
};
#define ET_DOPTIONS_WIDTH 10

struct et_dparams {
    /* hardware parameters (discovery.adoc, "Parameters to the encoder -
     * data trace"); 0 = the default */
    unsigned daddress_width_p; /* default xlen */
    unsigned dblock_width_p, dsize_width_p, dtype_width_p, iaddr_lsbs_width_p;
    unsigned data_width_p;     /* default 64 (an RV32 hart with D loads 8 bytes) */
    unsigned lrid_width_p, lresp_width_p, ldata_width_p, sdata_width_p;
    unsigned data_split_p;     /* loads (and atomics) use the split protocol (the "discoverable parameter"
                                  dataTracePayload.adoc names but does not define) */
    /* run-time options */
    enum et_dmode mode;
    bool no_address, no_data, full_address, full_data;
    enum et_dcompress compress;
    bool trim;                 /* data_len/op_len: leave out upper bytes sign extension restores */
    unsigned classes;          /* enum et_dclass traced (default all) */
    unsigned n_ranges;         /* instruction-address filter for data (0 = none) */
    uint64_t range_lo[ET_DMAX_RANGES], range_hi[ET_DMAX_RANGES]; /* inclusive */
    unsigned n_dranges;        /* data-address filter (0 = none): the decoder cannot tell which instruction
                                  an access belongs to, so it reports them untied */
    uint64_t drange_lo[ET_DMAX_RANGES], drange_hi[ET_DMAX_RANGES];
    bool model_compat;         /* the reference data model's labelling (never the default) */
    unsigned split_lag;        /* split: responses follow this many later data packets */
    unsigned xlen;             /* copied from the instruction parameters */
    const struct rvt_image *image; /* the program, when known: the encoder checks that every traced data
                                      instruction's record carries its access */
};

void et_dparams_default(struct et_dparams *d);
/* Set a data parameter or option by name; -RVT_ERR_UNSUPPORTED if the key
 * is not a data one. */
int et_dparam_set(struct et_dparams *d, const char *key, const char *val, struct rvt_diag *diag);
/* Defaults from xlen; consistency.  type_bits: the encapsulation type field
 * width (raised to 1 when data trace is on). */
int et_dparams_finish(struct et_dparams *d, unsigned xlen, unsigned doptions_width, unsigned *type_bits,
                      bool encap, struct rvt_diag *diag);
uint32_t et_doptions(const struct et_dparams *d);
/* Apply a received doptions value; error if this build cannot decode it. */
int et_apply_doptions(struct et_dparams *d, uint32_t v, unsigned width, struct rvt_diag *diag);
unsigned et_dclasses(const struct et_dparams *d);
/* Data trace discovery attributes (discovery.adoc tab:dataAttributes). */
void et_dprint_discovery(const struct et_dparams *d, FILE *out);

/* ---- accesses ------------------------------------------------------------ */

/* One data access, as traced. */
struct et_access {
    uint64_t addr;     /* memory address, or CSR number */
    uint64_t data;     /* value (size bytes) */
    uint64_t operand;  /* atomics and CSRs */
    uint8_t dtype;     /* enum rvt_dtype */
    uint8_t size;      /* log2 of the bytes */
    bool has_addr, has_data, has_operand;
};

/* The class of a dtype (for the filter), and of an instruction's access
 * (ISA code from rvt_isa_data_access). */
unsigned et_dclass_of_dtype(unsigned dtype);
unsigned et_dclass_of_isa(int isa_access);
/* Is the data access of the instruction at iaddr traced (class, range)? */
bool et_dtraced(const struct et_dparams *d, unsigned cls, uint64_t iaddr);
/* ...and does its data address pass the data-address filter (CSR
 * accesses have none: they pass)? */
bool et_dtraced_addr(const struct et_dparams *d, const struct et_access *a);

/* ---- packets (data_packet.c) --------------------------------------------- */

enum et_dformat {
    ET_DF_LOAD_ALIGNED = 0, /* also the split load request */
    ET_DF_LOAD_UNALIGNED = 1,
    ET_DF_STORE_ALIGNED = 2,
    ET_DF_STORE_UNALIGNED = 3,
    ET_DF_SPLIT_LOAD_DATA = 4,
    ET_DF_CSR = 5,
    ET_DF_ATOMIC = 6,       /* also the split atomic operand packet */
    ET_DF_SPLIT_ATOMIC_DATA = 7
};

/* Which table of dataTracePayload.adoc a packet follows. */
enum et_dlayout {
    ET_DL_LS_FULL = 0,   /* load/store with address and data */
    ET_DL_LS_ADDR,       /* ... address only */
    ET_DL_LS_DATA,       /* ... data only */
    ET_DL_SPLIT_REQ,     /* split load - address only */
    ET_DL_SPLIT_DATA,    /* split load - data only */
    ET_DL_AT_FULL,       /* atomic with address and data */
    ET_DL_AT_ADDR,
    ET_DL_AT_DATA,
    ET_DL_SPLIT_AT_OP,   /* split atomic with operand only */
    ET_DL_SPLIT_AT_DATA, /* split atomic load data only */
    ET_DL_CSR_FULL,      /* CSR with address, data (and operand unless read-only) */
    ET_DL_CSR_ADDR
};

struct et_dpkt {
    uint8_t format;   /* enum et_dformat */
    uint8_t layout;   /* enum et_dlayout (filled by pack/unpack) */
    uint8_t subtype;  /* atomic 0..7 (7: conditional store failure), CSR 0..2 */
    uint8_t size;     /* log2 bytes (split atomic data: from its request) */
    uint8_t diff;     /* as transmitted */
    uint8_t resp;     /* split data packets */
    uint8_t data_len, op_len;
    uint32_t lrid;
    uint16_t csr;     /* CSR number (addr_msbs << 6 | addr_lsbs) */
    uint64_t data, operand, address; /* transmitted field values */
    bool has_data, has_operand, has_address;
};

/* Widths of the fields. */
unsigned et_d_format_bits(const struct et_dparams *d);
unsigned et_d_size_bits(const struct et_dparams *d);
unsigned et_d_csr_len_bits(const struct et_dparams *d);
/* The layout of a packet of this format under the options. */
int et_dpkt_layout(const struct et_dparams *d, unsigned format, unsigned csr);

struct et_bits;
/* Serialise (full length, before sign compression). */
int et_dpkt_bits(const struct et_dparams *d, struct et_dpkt *k, struct et_bits *b, struct rvt_diag *diag);
/* Parse; lrid_size[lrid] gives the size of an outstanding split request
 * (0xff: none) for the split atomic data packet (NULL: none known). */
int et_dpkt_unpack(const struct et_dparams *d, const struct et_bits *b, const uint8_t *lrid_size, struct et_dpkt *k,
                   struct rvt_diag *diag);
/* "LOAD", "STORE.U", "CSR", "ATOMIC", "SPLIT.LD.DATA" ... */
const char *et_dpkt_name(const struct et_dpkt *k);
int et_dpkt_format_fields(const struct et_dparams *d, const struct et_dpkt *k, char *buf, size_t size);

/* ---- compression state (data_codec.c) ----------------------------------- */

#define ET_DSIZES 8
#define ET_DMAX_LRID 64

struct et_dstate {
    uint64_t addr[ET_DSIZES], data[ET_DSIZES];
    uint8_t have_addr, have_data; /* bit per size */
};
void et_dstate_reset(struct et_dstate *s);

/* Encoder: an access -> its packet(s) (a split load: the request now, the
 * response later).  Values are reduced to their size. */
struct et_dpending {
    struct et_access a;
    uint32_t lrid;
    unsigned after; /* data packets still to go before it */
};
struct et_denc {
    const struct et_dparams *d;
    struct et_dstate st;
    struct et_dpending pend[ET_DMAX_LRID];
    unsigned npend;
    uint32_t next_lrid;
    uint64_t packets, lost_packets;
    uint64_t atomic_responses; /* split atomic data packets that carry a value (the value written, see et_denc_response) */
};
void et_denc_init(struct et_denc *e, const struct et_dparams *d);
/* The packet(s) of one access, in stream order: *n of them (1, or 0 when
 * only a split response is released). */
int et_denc_access(struct et_denc *e, const struct et_access *a, struct et_dpkt *out, unsigned *n,
                   struct rvt_diag *diag);
/* After each access: one step closer for the responses waiting. */
void et_denc_tick(struct et_denc *e);
/* The next response that is due (or any, with flush), one at a time:
 * 1 = *out filled, 0 = none. */
int et_denc_response(struct et_denc *e, bool flush, struct et_dpkt *out, struct rvt_diag *diag);

/* Decoder: packet -> access.  A split request leaves the access waiting
 * for its response (returned by et_ddec_packet with *complete false and
 * *lrid set; the response then names that lrid). */
struct et_ddec {
    const struct et_dparams *d;
    struct et_dstate st;
    bool valid;             /* the state follows the encoder's (a format 3 packet was seen) */
    uint8_t lrid_size[ET_DMAX_LRID];
    uint8_t lrid_dtype[ET_DMAX_LRID];
};
void et_ddec_init(struct et_ddec *x, const struct et_dparams *d);
void et_ddec_reset(struct et_ddec *x);  /* a format 3 packet */
void et_ddec_invalidate(struct et_ddec *x);
enum et_dresult {
    ET_DR_ACCESS = 1,   /* *a is a whole access */
    ET_DR_REQUEST,      /* *a is a split request: its data follows in the response for *lrid */
    ET_DR_RESPONSE      /* *a holds the data (and size) of the request *lrid */
};
/* 1..3 (enum et_dresult) or <0 (diag says why: a differential field
 * without a base after a resynchronisation, a response without request). */
int et_ddec_packet(struct et_ddec *x, const struct et_dpkt *k, struct et_access *a, uint32_t *lrid,
                   struct rvt_diag *diag);

/* The data access of a record's last instruction (*has false: none). */
int et_access_from_rec(const struct et_dparams *d, const struct rvt_ing_rec *r, struct et_access *a, bool *has,
                       struct rvt_diag *diag);

/* Text of an access for listings ("load 4 [0x80001000] = 0x12"). */
int et_access_format(const struct et_access *a, char *buf, size_t size);

#endif
