/* rvtrace — byte sinks: where encoders write their packet bytes.
 *
 * The interface is one write function.  A sink that cannot take all bytes
 * (a full RAM buffer in stop mode, a full FIFO) accepts fewer and says so:
 * the encoder then emits its format's loss indication.  Memory and file
 * sinks live here; SRAM/system-memory circular sinks and funnels build on
 * the same interface.
 */
#ifndef RVTRACE_SINK_H
#define RVTRACE_SINK_H

#include "rvtrace/common.h"

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

#ifdef __cplusplus
}
#endif
#endif
