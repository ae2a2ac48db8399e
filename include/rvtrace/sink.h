/* rvtrace — byte sinks: where encoders write their packet bytes.
 *
 * The interface is one write function.  A sink that cannot take all bytes
 * (a full RAM buffer in stop mode, a full FIFO) accepts fewer and says so:
 * the encoder then emits its format's loss indication.  Memory and file
 * sinks live here; the RAM sink (SRAM / system-memory circular buffer),
 * the funnel and the ATB bridge build on the same interface, and the Trace
 * Control Interface register model configures them.
 */
#ifndef RVTRACE_SINK_H
#define RVTRACE_SINK_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rvt_byte_sink {
    /* Write n bytes; returns the number accepted (< n means overflow: the
     * rest was dropped) or a negative rvt_err. */
    long (*write)(void *ctx, const uint8_t *p, size_t n);
    void *ctx;
};

/* Growable memory buffer. */
struct rvt_membuf {
    uint8_t *data;
    size_t len, cap;
    size_t limit;   /* 0: unlimited; else accept at most this many bytes in total */
};
void rvt_membuf_init(struct rvt_membuf *m);
void rvt_membuf_free(struct rvt_membuf *m);
int rvt_membuf_append(struct rvt_membuf *m, const void *p, size_t n);
struct rvt_byte_sink rvt_membuf_sink(struct rvt_membuf *m);

/* Buffered FILE sink (the FILE is not closed). */
struct rvt_filesink {
    FILE *f;
    const char *name;
    uint64_t written;
    int err;
};
struct rvt_byte_sink rvt_filesink_sink(struct rvt_filesink *fs);

/* Read a whole file into memory ("-" = stdin). */
int rvt_read_file(const char *path, uint8_t **data, size_t *len, struct rvt_diag *diag);
/* A whole file, mapped read-only when it is a non-empty regular file (no
 * copy, and its pages are the page cache's), else read as rvt_read_file
 * does; give it back with rvt_unmap_file(data, len, mapped). */
int rvt_map_file(const char *path, const uint8_t **data, size_t *len, bool *mapped, struct rvt_diag *diag);
void rvt_unmap_file(const uint8_t *data, size_t len, bool mapped);

/* ======================================================================
 * Trace RAM sink: SRAM mode (dedicated RAM) and SMEM mode (a range of
 * system memory), as in the RISC-V Trace Control Interface (TCI) chapter
 * "Trace RAM Sink".
 *
 * Bytes are packed LSB first into trace words of width_bits; a word is
 * stored at the write pointer (WP) once complete, then WP advances by the
 * word size.  After the word at the buffer's last address (trRamLimit) is
 * written WP returns to trRamStart and the wrap flag (trRamWrap, WP bit 0)
 * is set.  In stop mode (trRamStopOnWrap) the sink disables itself at that
 * point and refuses further bytes (write returns fewer than asked: the
 * encoder sees the overflow); in wrap mode it overwrites the oldest words.
 * Flushing (end of tracing, trRamEnable 1 -> 0) completes a partial word
 * with pad_byte, the protocol's idle byte (N-Trace 0xFF, E-Trace
 * encapsulation null.idle 0x00).
 *
 * Addresses are bus addresses: trRamLimit is the address of the last
 * 32-bit word of the buffer (start + size - 4), as the TCI defines it.
 * ====================================================================== */

enum rvt_ram_mode {
    RVT_RAM_SRAM = 0,   /* trRamMode 0: dedicated RAM, read through trRamData */
    RVT_RAM_SMEM = 1    /* trRamMode 1: system memory at trRamStart..trRamLimit */
};

struct rvt_ramsink;

struct rvt_ramsink_config {
    size_t size;                 /* sizeof(struct rvt_ramsink_config) */
    enum rvt_ram_mode mode;      /* operating mode (trRamMode) */
    int stop_on_wrap;            /* 1: stop when full; 0: wrap (trRamStopOnWrap) */
    unsigned width_bits;         /* trace word width: 32, 64, 128, 256, 512 or 1024; 0 = 32 */
    uint8_t pad_byte;            /* completes the last partial word at flush */
    /* SRAM: size of the dedicated RAM in bytes (a multiple of the word
     * size, at most 4 GiB).  Required if the sink has SRAM mode. */
    uint64_t sram_bytes;
    /* SMEM: the system memory the sink writes into, mem_len bytes at bus
     * address mem_base.  mem == NULL: the sink allocates (zeroed) and owns
     * it.  start/limit: the initial trRamStart/trRamLimit (limit = last
     * 32-bit word); both 0 = the whole memory. */
    uint8_t *mem;
    uint64_t mem_base;
    uint64_t mem_len;
    uint64_t start, limit;
    /* Implementation, as trRamImpl reports it.  Both 0: only `mode`. */
    int has_sram, has_smem;
    int sram_limit_fixed;        /* trRamLimitLow hard coded (cannot be trimmed) */
    uint8_t impl_vendor;         /* trRamImpl bits 31:24 */
    /* 1: start as after power-up (trRamActive = 0), to be configured
     * through the registers; 0: active and enabled with the settings above. */
    int power_on_reset;
};

/* What the sink reports (registers plus counters the model keeps). */
struct rvt_ramsink_state {
    enum rvt_ram_mode mode;
    int active, enabled, empty, stop_on_wrap;
    unsigned width_bits;
    uint64_t start, limit;       /* trRamStart, trRamLimit */
    uint64_t size;               /* buffer bytes: limit + 4 - start */
    uint64_t wp;                 /* trRamWP without the wrap bit */
    int wrap;                    /* trRamWrap */
    uint64_t rp;                 /* trRamRP */
    uint64_t origin;             /* WP when the sink was last enabled */
    uint64_t accepted;           /* bytes accepted from writers */
    uint64_t written;            /* bytes stored in the RAM (including padding) */
    uint64_t padded;             /* padding bytes added by flushes */
    uint64_t dropped;            /* bytes refused (stopped, disabled) */
    unsigned pending;            /* bytes of an incomplete word held inside */
    uint8_t pad_byte;
};

int rvt_ramsink_new(const struct rvt_ramsink_config *cfg, struct rvt_ramsink **out, struct rvt_diag *diag);
void rvt_ramsink_free(struct rvt_ramsink *s);
/* The byte-sink interface (ctx is s). */
struct rvt_byte_sink rvt_ramsink_sink(struct rvt_ramsink *s);
long rvt_ramsink_write(struct rvt_ramsink *s, const uint8_t *p, size_t n);
/* End of tracing: store a partial word completed with the pad byte. */
void rvt_ramsink_flush(struct rvt_ramsink *s);
void rvt_ramsink_state(const struct rvt_ramsink *s, struct rvt_ramsink_state *st);
/* The buffer as the RAM holds it (byte 0 is at trRamStart). */
const uint8_t *rvt_ramsink_buffer(const struct rvt_ramsink *s, size_t *len);
/* Oldest byte first (malloc'd), and the bytes lost to wrapping. */
int rvt_ramsink_linear(const struct rvt_ramsink *s, uint8_t **buf, size_t *len, uint64_t *lost);
/* Register access at an offset of the RAM sink block (trBaseRamSink +
 * off), with the TCI access rules.  Reading trRamData advances trRamRP.
 * Returns 0, or -RVT_ERR_INVAL for an offset that is not 32-bit aligned
 * or outside the 4 KiB block. */
int rvt_ramsink_reg_read(struct rvt_ramsink *s, uint32_t off, uint32_t *val);
int rvt_ramsink_reg_write(struct rvt_ramsink *s, uint32_t off, uint32_t val);
/* Flush, then write the buffer to `path` and its description to
 * `<path>.sink` (see docs/sinks.md). */
int rvt_ramsink_save(struct rvt_ramsink *s, const char *path, struct rvt_diag *diag);
const char *rvt_ramsink_error(const struct rvt_ramsink *s);

/* Sink description on the command line: "sram:<bytes>:wrap|stop[:<width>]"
 * or "smem:<start>:<bytes>:wrap|stop[:<width>]"; numbers decimal or 0x
 * hex, bytes may end in k or m (KiB, MiB); width in bits (default 32). */
struct rvt_sink_spec {
    enum rvt_ram_mode mode;
    uint64_t bytes;
    uint64_t start;
    int stop_on_wrap;
    unsigned width_bits;
};
int rvt_sink_spec_parse(const char *text, struct rvt_sink_spec *spec, struct rvt_diag *diag);
/* A ready (active, enabled) sink for a spec.  pad_byte: the family's idle byte. */
int rvt_ramsink_from_spec(const struct rvt_sink_spec *spec, uint8_t pad_byte, struct rvt_ramsink **out,
                          struct rvt_diag *diag);

/* ---- sink images on disk --------------------------------------------------
 * An image is the buffer exactly as the RAM holds it; its description (the
 * sidecar `<image>.sink`, a small text file) gives the write pointer, wrap
 * flag and the rest.  Fields not known are flagged in `known`. */
enum {
    RVT_SINFO_MODE = 1u << 0,     /* mode */
    RVT_SINFO_POLICY = 1u << 1,   /* stop_on_wrap */
    RVT_SINFO_WIDTH = 1u << 2,
    RVT_SINFO_SIZE = 1u << 3,
    RVT_SINFO_START = 1u << 4,
    RVT_SINFO_BASE = 1u << 5,
    RVT_SINFO_ORIGIN = 1u << 6,
    RVT_SINFO_WP = 1u << 7,
    RVT_SINFO_WRAP = 1u << 8,
    RVT_SINFO_WRITTEN = 1u << 9,
    RVT_SINFO_DROPPED = 1u << 10,
    RVT_SINFO_PAD = 1u << 11
};

struct rvt_sink_info {
    unsigned known;          /* RVT_SINFO_* bits */
    enum rvt_ram_mode mode;  /* "sink sram|smem" */
    int stop_on_wrap;        /* "mode stop|wrap" */
    unsigned width_bits;     /* "width" */
    uint64_t size;           /* "size": buffer bytes */
    uint64_t start;          /* "start": trRamStart (default 0) */
    uint64_t base;           /* "base": address of the image's first byte (default start) */
    uint64_t origin;         /* "origin": WP when tracing began (default start) */
    uint64_t wp;             /* "wp": trRamWP without the wrap bit */
    int wrap;                /* "wrap": trRamWrap */
    uint64_t written;        /* "written": bytes stored in total, padding included */
    uint64_t dropped;        /* "dropped": bytes refused (stop mode) */
    uint8_t pad_byte;        /* "pad" */
};

void rvt_sink_info_init(struct rvt_sink_info *info);
/* The description of a sink as it is now. */
void rvt_ramsink_info(const struct rvt_ramsink *s, struct rvt_sink_info *info);
/* Parse a sidecar text (name is used in messages: "name:line: ..."). */
int rvt_sink_info_parse(const char *text, size_t len, const char *name, struct rvt_sink_info *info,
                        struct rvt_diag *diag);
int rvt_sink_info_read(const char *path, struct rvt_sink_info *info, struct rvt_diag *diag);
int rvt_sink_info_write(FILE *f, const struct rvt_sink_info *info);

/* The trace in a sink image, oldest byte first. */
struct rvt_sink_image {
    uint8_t *data;           /* malloc'd */
    size_t len;
    uint64_t lost;           /* bytes overwritten by wrapping (valid if lost_known) */
    int lost_known;          /* 0: wrapped, but the total written is not known */
    int wrapped;             /* older bytes may have been overwritten (wrap flag set, not a stopped buffer) */
    int described;           /* 0: no sidecar or WP: the image was taken as linear */
    struct rvt_sink_info info;  /* the description used */
    int stopped;             /* a stop-mode buffer that filled and stopped: it holds the oldest trace */
};
/* Linearise an image: with wrap = 0 the trace is origin..WP; with wrap = 1
 * it is the last min(written, size) bytes before WP (size if written is
 * not known).  Checks the description against the image. */
int rvt_sink_linearize(const uint8_t *img, size_t img_len, const struct rvt_sink_info *info,
                       struct rvt_sink_image *out, struct rvt_diag *diag);
/* Read `path`, its sidecar `<path>.sink` if present, apply the fields of
 * `override` flagged known (e.g. WP and wrap given on the command line;
 * NULL: none) and linearise.  Neither sidecar nor WP: the image is taken as
 * linear and complete. */
int rvt_sink_image_load(const char *path, const struct rvt_sink_info *override, struct rvt_sink_image *out,
                        struct rvt_diag *diag);
void rvt_sink_image_free(struct rvt_sink_image *img);
/* One sentence (no trailing period) saying what a RAM sink holds, from its
 * description: size, bytes kept, whether it wrapped (older bytes
 * overwritten) or filled and stopped (bytes refused after it stopped), with
 * the counts of the sidecar.  The encoder's report and the decoder's use
 * these same words.  decoding != 0 adds where decoding starts.  Returns the
 * length snprintf would have written. */
int rvt_sink_info_describe(const struct rvt_sink_info *info, int decoding, char *buf, size_t n);

/* ======================================================================
 * Trace funnel: several sources (one encoder per hart, or other funnels)
 * into one downstream sink.  Each write on an input is one whole packet
 * (the contract encoders follow); the funnel never splits packets.
 * Without FIFOs a packet goes downstream at once; with per-input FIFOs,
 * packets wait until rvt_funnel_drain/flush moves them out round-robin,
 * one packet per input per round (the TCI's suggested arbitration), and a
 * packet that does not fit its FIFO is refused whole (write returns 0).
 * A disabled input (trFunnelDisInput) accepts and discards packets.
 * ====================================================================== */

#define RVT_FUNNEL_MAX_INPUTS 16

struct rvt_funnel;

struct rvt_funnel_config {
    size_t size;                 /* sizeof(struct rvt_funnel_config) */
    unsigned n_inputs;           /* 1..16 */
    struct rvt_byte_sink out;    /* downstream; may be set later */
    size_t fifo_bytes;           /* 0: pass through; else per-input FIFO capacity */
    uint16_t dis_input;          /* initial trFunnelDisInput */
    int no_dis_input;            /* the hardware has no trFunnelDisInput (reads 0) */
    uint8_t impl_vendor;         /* trFunnelImpl bits 31:24 */
    int power_on_reset;          /* start with trFunnelActive = 0 */
};

struct rvt_funnel_input_stats {
    uint64_t packets, bytes;     /* accepted */
    uint64_t discarded;          /* bytes of packets discarded (input disabled) */
    uint64_t refused;            /* bytes refused (FIFO full, funnel disabled) */
    uint64_t lost_downstream;    /* bytes the downstream sink did not take */
    size_t queued;               /* bytes waiting in the FIFO */
};

int rvt_funnel_new(const struct rvt_funnel_config *cfg, struct rvt_funnel **out, struct rvt_diag *diag);
void rvt_funnel_free(struct rvt_funnel *f);
void rvt_funnel_set_output(struct rvt_funnel *f, const struct rvt_byte_sink *out);
unsigned rvt_funnel_n_inputs(const struct rvt_funnel *f);
/* The byte sink of input i (valid while f lives). */
struct rvt_byte_sink rvt_funnel_input(struct rvt_funnel *f, unsigned i);
/* Move queued packets downstream round-robin until at least `budget`
 * bytes went out or the FIFOs are empty (budget 0: all).  Returns the
 * bytes forwarded or a negative error from the downstream sink. */
long rvt_funnel_drain(struct rvt_funnel *f, size_t budget);
int rvt_funnel_flush(struct rvt_funnel *f);
int rvt_funnel_input_stats(const struct rvt_funnel *f, unsigned i, struct rvt_funnel_input_stats *st);
/* trFunnel* registers at an offset of the funnel block. */
int rvt_funnel_reg_read(struct rvt_funnel *f, uint32_t off, uint32_t *val);
int rvt_funnel_reg_write(struct rvt_funnel *f, uint32_t off, uint32_t val);

/* ---- splitting a merged stream back per source --------------------------
 * The family knows where its packets end and which source sent them (the
 * N-Trace SRC field, the E-Trace encapsulation srcID): it classifies the
 * bytes at the front of the stream, the splitter routes them. */
enum rvt_split_kind {
    RVT_SPLIT_PACKET = 0,        /* a packet of source `src` */
    RVT_SPLIT_FILLER = 1,        /* idle/null bytes belonging to no source */
    RVT_SPLIT_GARBAGE = 2        /* bytes that are not a packet start (skipped) */
};
struct rvt_split_item {
    size_t len;                  /* bytes of this item; > available: truncated packet */
    uint32_t src;
    enum rvt_split_kind kind;
};
struct rvt_split_config {
    size_t size;                 /* sizeof(struct rvt_split_config) */
    /* Classify the bytes at p (n > 0 available, stream offset off).
     * Returns 0 or a negative rvt_err (which stops the split).  len must be > 0. */
    int (*classify)(void *ctx, const uint8_t *p, size_t n, uint64_t off, struct rvt_split_item *it);
    void *classify_ctx;
    /* Receive a packet (or the available part of a truncated one). */
    int (*deliver)(void *ctx, uint32_t src, uint64_t off, const uint8_t *p, size_t n);
    void *deliver_ctx;
};
struct rvt_split_stats {
    uint64_t packets, packet_bytes;
    uint64_t filler_bytes, garbage_bytes;
    uint64_t truncated_bytes;    /* bytes of a final packet cut by the end of the buffer */
};
int rvt_split(const uint8_t *buf, size_t len, const struct rvt_split_config *cfg, struct rvt_split_stats *st,
              struct rvt_diag *diag);
/* A deliver function for rvt_split_config: ctx is a struct rvt_split_bufs;
 * packets of source s are appended to bufs[s] (s < n), others counted. */
struct rvt_split_bufs {
    struct rvt_membuf *bufs;
    uint32_t n;
    uint64_t unrouted_bytes;
};
int rvt_split_deliver_membufs(void *ctx, uint32_t src, uint64_t off, const uint8_t *p, size_t n);

/* ======================================================================
 * ATB bridge: the CoreSight trace formatter's 16-byte frames.  Byte 15 of
 * a frame holds the bit 0 values of the data bytes at the even positions
 * 0, 2, ..., 14; an even byte with bit 0 set is an ID change (ID in bits
 * 7:1), and its auxiliary bit then says whether the following byte still
 * belongs to the previous ID (1) or to the new one (0).  Odd bytes are
 * always data.  A frame sync is FF FF FF 7F between frames; a halfword
 * sync is FF 7F inside a frame (trace ports).  ID 0 is the null ID
 * (padding), 0x70-0x7F are reserved; sources use IDs 0x01-0x6F.
 * ====================================================================== */

#define RVT_ATB_FRAME 16
#define RVT_ATB_ID_NULL 0x00u
#define RVT_ATB_ID_MAX 0x6Fu     /* highest ID a source may use */

struct rvt_atb_writer;

struct rvt_atb_writer_config {
    size_t size;                 /* sizeof(struct rvt_atb_writer_config) */
    struct rvt_byte_sink out;    /* frames go here */
    int fsync_at_start;          /* write a frame sync before the first frame */
    unsigned fsync_period;       /* a frame sync before frames 0, N, 2N, ... (0: none);
                                    the frame after a sync restates the current ID */
    unsigned id_repeat_frames;   /* restate the ID at a frame start after N frames without one (0: never) */
};
struct rvt_atb_writer_stats {
    uint64_t frames, data_bytes, pad_bytes, fsyncs, id_changes;
    uint64_t lost;               /* frame bytes the output did not take */
};
int rvt_atb_writer_new(const struct rvt_atb_writer_config *cfg, struct rvt_atb_writer **out, struct rvt_diag *diag);
void rvt_atb_writer_free(struct rvt_atb_writer *w);
/* Bytes of source `id` (1..0x6F). */
int rvt_atb_write(struct rvt_atb_writer *w, unsigned id, const uint8_t *p, size_t n);
/* A byte sink writing as source `id` (valid while w lives). */
struct rvt_byte_sink rvt_atb_writer_input(struct rvt_atb_writer *w, unsigned id);
/* Write out everything, completing the last frame with null-ID padding. */
int rvt_atb_writer_flush(struct rvt_atb_writer *w);
void rvt_atb_writer_stats(const struct rvt_atb_writer *w, struct rvt_atb_writer_stats *st);
const char *rvt_atb_writer_error(const struct rvt_atb_writer *w);

/* The fewest trace bytes of one source that a reader starting at the first
 * frame sync finds in any `frame_bytes` consecutive bytes of the writer's
 * output (frames of at least 14 data bytes, a 4-byte frame sync every
 * fsync_period frames, partial frames at both ends): the window a wrapping
 * sink behind the bridge keeps, in the encoder's bytes. */
uint64_t rvt_atb_payload_bytes(uint64_t frame_bytes, unsigned fsync_period);

struct rvt_atb_reader_config {
    size_t size;                 /* sizeof(struct rvt_atb_reader_config) */
    /* Receives the bytes of one ID; off is the stream offset of the frame
     * holding the first of them. */
    int (*deliver)(void *ctx, unsigned id, uint64_t off, const uint8_t *p, size_t n);
    void *ctx;
    int hsyncs;                  /* halfword syncs may appear inside frames */
    int find_fsync;              /* frames are not aligned to offset 0: start after the first frame sync */
    unsigned initial_id;         /* ID of data before the first ID change (0: unknown, dropped) */
};
struct rvt_atb_read_stats {
    uint64_t frames, fsyncs, hsyncs;
    uint64_t data_bytes;         /* delivered */
    uint64_t null_bytes;         /* ID 0 padding */
    uint64_t reserved_bytes;     /* data under reserved IDs 0x70-0x7F */
    uint64_t unknown_bytes;      /* data before the first ID */
    uint64_t skipped_bytes;      /* bytes before the first frame sync, or of bad frames */
    uint64_t partial_bytes;      /* bytes of an incomplete last frame */
    uint64_t errors;
};
/* Deformat a whole buffer.  Errors (a frame sync inside a frame, an ID
 * byte of 0x7F) are counted and the first is described in diag; the frame
 * is dropped, reading goes on with the next frame (after the sync) with
 * the current ID unknown until the next ID change, and the return is
 * -RVT_ERR_FORMAT once everything readable was delivered. */
int rvt_atb_read(const uint8_t *buf, size_t len, const struct rvt_atb_reader_config *cfg,
                 struct rvt_atb_read_stats *st, struct rvt_diag *diag);
/* Deformat into out[id] (an array of 128 membufs, one per ID). */
int rvt_atb_demux(const uint8_t *buf, size_t len, int hsyncs, struct rvt_membuf out[128],
                  struct rvt_atb_read_stats *st, struct rvt_diag *diag);

/* ======================================================================
 * Trace Control Interface register model: the memory-mapped blocks of
 * trace encoders, funnels, RAM sinks and ATB bridges (each 4 KiB at its
 * base address) with the TCI field layouts, reset values and access rules
 * (RO, RW1C, W1, WARL legalisation to what the implementation supports).
 * Funnels and RAM sinks are the live rvt_funnel / rvt_ramsink objects;
 * encoder registers turn into rvt_te_settings a family encoder consumes.
 * ====================================================================== */

enum rvt_tci_comp {
    RVT_TCI_ENCODER = 0x1,       /* TRCOMP_ENCODER */
    RVT_TCI_FUNNEL = 0x8,        /* TRCOMP_FUNNEL */
    RVT_TCI_RAMSINK = 0x9,       /* TRCOMP_RAMSINK */
    RVT_TCI_PIBSINK = 0xA,       /* TRCOMP_PIBSINK (not modelled) */
    RVT_TCI_ATBBRIDGE = 0xE      /* TRCOMP_ATBBRIDGE */
};

/* What a trace encoder implements: decides which values its WARL fields
 * accept and what trTeImpl reports.  rvt_te_caps_default fills the
 * format's full feature set. */
struct rvt_te_caps {
    size_t size;                 /* sizeof(struct rvt_te_caps) */
    unsigned format;             /* trTeFormat (hard wired): 0 E-Trace, 1 N-Trace */
    unsigned protocol_major, protocol_minor;
    uint8_t impl_vendor;         /* trTeImpl bits 31:24 */
    uint8_t inst_modes;          /* bit m: trTeInstMode m is supported */
    uint8_t sync_modes;          /* bit m: trTeInstSyncMode m is supported */
    uint8_t sync_max_min, sync_max_max;  /* legal trTeInstSyncMax range */
    uint16_t features;           /* writable bits of trTeInstFeatures 10:0 */
    uint8_t implicit_return_modes;  /* bit m: trTeInstImplicitReturnMode m */
    unsigned src_bits_max;       /* largest trTeSrcBits (0..12) */
    unsigned src_id_bits;        /* implemented bits of trTeSrcID (0..12) */
    int has_context, has_trig_enable, has_stall, has_inhibit_src;
    unsigned n_filters;          /* 0..16 trTeFilter blocks */
    unsigned n_comparators;      /* 0..8 trTeComp blocks */
    int has_data_trace;
    unsigned n_ext_trig_in, n_ext_trig_out;  /* 0..8 */
    uint32_t trig_dbg_mask;      /* writable bits of trTeTrigDbgControl */
    uint8_t ts_modes;            /* bit m: trTsMode m (0: no timestamp unit) */
    unsigned ts_width;           /* trTsWidth */
};
void rvt_te_caps_default(struct rvt_te_caps *caps, unsigned format);

enum rvt_te_sync_mode {
    RVT_TE_SYNC_OFF = 0,
    RVT_TE_SYNC_PACKETS = 1,     /* count trace messages/packets */
    RVT_TE_SYNC_CYCLES = 2,      /* count hart clock cycles */
    RVT_TE_SYNC_HALFWORDS = 3    /* count instruction 16-bit half-words */
};

/* Encoder settings decoded from the registers, for a family encoder. */
struct rvt_te_settings {
    size_t size;                 /* sizeof(struct rvt_te_settings) */
    unsigned format;             /* trTeFormat */
    int active, enabled, inst_tracing;
    unsigned inst_mode;          /* trTeInstMode: 3 baseline (BTM), 6 optimised (HTM), 7 vendor/E-Trace */
    int context, inst_trig_enable, stall_enable, inhibit_src;
    enum rvt_te_sync_mode sync_mode;
    unsigned sync_max;           /* trTeInstSyncMax */
    uint64_t sync_period;        /* 2^(sync_max+4) units of sync_mode; 0 when off */
    unsigned src_id;             /* trTeSrcID */
    unsigned src_bits;           /* SRC/srcID width in messages: 0 if inhibited */
    int no_addr_diff, no_trap_addr, sequential_jump, implicit_return, branch_prediction,
        jump_target_cache, repeated_history, all_jumps, extend_addr_msb;
    unsigned implicit_return_mode;
    uint16_t inst_filters;       /* trTeInstFilters */
    int data_tracing;
    int ts_enable;               /* trTsEnable with an active timestamp unit */
    unsigned ts_mode, ts_width, ts_prescale;
    uint32_t control, impl, features;  /* raw register values */
};

struct rvt_tci;

struct rvt_tci_config {
    size_t size;                 /* sizeof(struct rvt_tci_config) */
    unsigned n_encoders;         /* 0..64 */
    const struct rvt_te_caps *te_caps;  /* NULL: defaults for te_format; else one per encoder */
    unsigned te_format;          /* format for default caps (1 N-Trace, 0 E-Trace) */
    unsigned n_funnels;          /* 0..16 */
    unsigned funnel_inputs;      /* inputs per funnel (default: n_encoders, at least 1) */
    size_t funnel_fifo_bytes;
    unsigned n_ramsinks;         /* 0..16 */
    const struct rvt_ramsink_config *ramsinks;  /* one per RAM sink (power_on_reset is ignored) */
    unsigned n_atb_bridges;      /* 0..16 */
    /* Base addresses: components are laid out 4 KiB apart from base_address
     * (encoders, then funnels, RAM sinks, ATB bridges); rvt_tci_set_base
     * and "base" lines of a register file move them. */
    uint64_t base_address;
    /* 0: every component as after power-up (tr??Active = 0), as real
     * hardware is; 1: configured as a trace tool would leave them: active,
     * enabled, encoders tracing in their best mode with source IDs 0..n-1. */
    int preset;
};

int rvt_tci_new(const struct rvt_tci_config *cfg, struct rvt_tci **out, struct rvt_diag *diag);
void rvt_tci_free(struct rvt_tci *t);
const char *rvt_tci_error(const struct rvt_tci *t);
unsigned rvt_tci_count(const struct rvt_tci *t, enum rvt_tci_comp kind);
int rvt_tci_set_base(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint64_t base);
int rvt_tci_get_base(const struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint64_t *base);
/* 32-bit register access by bus address, or by component and offset.
 * Unimplemented registers in a block read 0 and ignore writes; an address
 * outside every block is an error. */
int rvt_tci_read(struct rvt_tci *t, uint64_t addr, uint32_t *val);
int rvt_tci_write(struct rvt_tci *t, uint64_t addr, uint32_t val);
int rvt_tci_comp_read(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint32_t off, uint32_t *val);
int rvt_tci_comp_write(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, uint32_t off, uint32_t val);
/* The live objects behind RAM sink / funnel blocks (owned by t).  A
 * funnel's output is not connected: rvt_funnel_set_output (e.g. to
 * rvt_ramsink_sink of a RAM sink). */
struct rvt_ramsink *rvt_tci_ramsink(struct rvt_tci *t, unsigned idx);
struct rvt_funnel *rvt_tci_funnel(struct rvt_tci *t, unsigned idx);
/* Encoder idx's settings (copies min(out_size, sizeof) bytes). */
int rvt_tci_te_settings(const struct rvt_tci *t, unsigned idx, struct rvt_te_settings *out, size_t out_size);
/* Hardware events of encoder idx: trace lost (sets trTeInstStallOrOverflow). */
int rvt_tci_te_overflow(struct rvt_tci *t, unsigned idx);
/* ATB bridge idx: trAtbBridgeEnable (active and enabled) and trAtbBridgeID. */
int rvt_tci_atb_settings(const struct rvt_tci *t, unsigned idx, int *enabled, unsigned *id, unsigned *async_freq);

/* Register names: "trTeControl", "trRamWPLow", "trTeFilter3Control" ...
 * (case-insensitive); offset of a register in its component's block. */
int rvt_tci_reg_lookup(const char *name, enum rvt_tci_comp *kind, uint32_t *off);
const char *rvt_tci_reg_name(enum rvt_tci_comp kind, uint32_t off, char *buf, size_t bufsz);

/* Print every implemented register of every component with its fields. */
int rvt_tci_dump(struct rvt_tci *t, FILE *out);
/* Write a register file that brings a system in reset to this state. */
int rvt_tci_write_regfile(struct rvt_tci *t, FILE *out);

/* Print one component's registers with their fields (as rvt_tci_dump). */
int rvt_tci_dump_comp(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, FILE *out);

/* ---- discovery ----------------------------------------------------------
 * The TCI's "Reset and Discovery" on one component, through its registers
 * only, as a debugger does it: reset and release it (the control register
 * then holds the defaults), read tr??Impl, write WARL fields and read them
 * back; for a RAM sink also the ranges of trRamStart/Limit (written 0 and
 * 0xFFFFFFFF), the trace word (trRamWP alignment) and whether trRamRP is
 * settable.  The probe leaves the component in reset: its settings are
 * lost, so probe a system that is not in use. */
struct rvt_tci_ram_range {
    int present;                  /* trRamMode can be set to this mode */
    uint64_t start_min, start_max, limit_min, limit_max;
    int has_start_high, has_limit_high;
    unsigned word_bytes;
    int has_rp;                   /* trRamRP settable: trace read through trRamData */
};
struct rvt_tci_discovery {
    size_t size;                  /* bytes filled */
    enum rvt_tci_comp kind;
    uint64_t base;
    uint32_t impl;                /* tr??Impl */
    unsigned ver_major, ver_minor, comp_type, vendor;
    uint32_t control_reset;       /* tr??Control after release from reset */
    int active;                   /* tr??Active read back 1 */
    /* encoder */
    unsigned format, protocol_major, protocol_minor;
    uint8_t inst_modes, sync_modes;       /* bit m: value m reads back */
    unsigned sync_max_min, sync_max_max;
    int has_context, has_trig_enable, has_stall, has_inhibit_src;
    uint16_t features;                    /* trTeInstFeatures bits 10:0 that read back 1 */
    uint8_t implicit_return_modes;
    unsigned src_id_bits, src_bits_max;
    unsigned n_filters, n_comparators;
    int has_data_trace;                   /* trTeDataImplemented */
    uint32_t trig_dbg_mask;
    unsigned n_ext_trig_in, n_ext_trig_out;
    int has_ts, ts_prescale, ts_enable;   /* timestamp unit */
    uint8_t ts_modes;
    unsigned ts_width;
    /* funnel */
    unsigned n_inputs;                    /* trFunnelDisInput bits that read back (0: not implemented) */
    /* RAM sink */
    int has_sram, has_smem, stop_on_wrap;
    uint8_t mem_formats, async_freqs;     /* also trAtbBridgeAsyncFreq */
    struct rvt_tci_ram_range ram[2];      /* [trRamMode] */
    /* ATB bridge */
    unsigned id_bits;
};
int rvt_tci_discover(struct rvt_tci *t, enum rvt_tci_comp kind, unsigned idx, struct rvt_tci_discovery *out,
                     size_t out_size);
/* Every field discovered, one line each, with the TCI's names. */
int rvt_tci_discovery_print(const struct rvt_tci_discovery *d, unsigned idx, FILE *out);

/* ---- register-setting files (docs/sinks.md) -------------------------------
 *   # comment
 *   base encoder1 = 0x10001000
 *   trTeControl = 0x1                  register of encoder0 / funnel0 / ...
 *   encoder1.trTeControl = 0x00630067  a given instance
 *   encoder1.trTeInstMode = 6          one field (read-modify-write)
 *   ramsink0+0x018 = 0xfffc            an offset in a component block
 *   0x10001000 = 0x1                   a bus address
 *   expect trTeImpl = 0x00010101       read back and compare
 * Each line is applied in order, as a debugger would. */
struct rvt_tci_file_options {
    size_t size;                 /* sizeof(struct rvt_tci_file_options) */
    /* Told about each write whose read-back differs from the value
     * written (WARL legalisation, component in reset, ...). */
    void (*note)(void *ctx, const char *msg);
    void *note_ctx;
    int strict;                  /* such a difference is an error */
};
int rvt_tci_apply_text(struct rvt_tci *t, const char *text, size_t len, const char *name,
                       const struct rvt_tci_file_options *opt, struct rvt_diag *diag);
int rvt_tci_apply_file(struct rvt_tci *t, const char *path, const struct rvt_tci_file_options *opt,
                       struct rvt_diag *diag);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
