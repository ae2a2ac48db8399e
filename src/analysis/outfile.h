/* A decode's text written to its stream.  To a regular file, in writes
 * that end at 64 KiB boundaries of the file (AN_OUTFILE_ALIGN), and with the
 * file system's space reserved ahead of them in large steps: ext4 and
 * other delayed-allocation file systems otherwise reserve it page by page
 * inside every write(), which on this project's VM made writing a 304 MB
 * PC list take 0.051 s where reserving ahead takes 0.031 s (bench/RESULTS.md,
 * "Writing the text to a file").  The reservation never changes the file's
 * size or content (FALLOC_FL_KEEP_SIZE), and what is left unused is given
 * back at the end. */
#ifndef RVT_AN_OUTFILE_H
#define RVT_AN_OUTFILE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes to a regular file end at multiples of this in the file (the
 * kernel's page cache takes whole aligned runs of pages faster: a 304 MB
 * text in 1 MiB writes 0.030 s, in writes of 1 MiB less 37 bytes 0.036 s). */
#define AN_OUTFILE_ALIGN ((size_t)64 << 10)

struct an_outfile {
    FILE *f;
    uint64_t base;       /* the stream's position when the output began (0 if unknown) */
    int fd;              /* a regular file's descriptor, else -1 */
    int pipe_fd;         /* another stream's (a pipe, a terminal, /dev/null), else -1 */
    bool checked;        /* fd and pipe_fd decided */
    bool no_reserve;     /* reserving failed once: not tried again */
    uint64_t written;    /* bytes given to write */
    int64_t reserved_to; /* file offset the reservation reaches */
    int at_fd;           /* positional writes' descriptor (an_outfile_positional_begin), else -1 */
    /* errno of the first write that failed, on whichever thread (errno is
     * per thread; the message is made on the calling one) */
    _Atomic int write_errno;
};

void an_outfile_init(struct an_outfile *w, FILE *f);
/* How much of len bytes to write now so that the write ends at a multiple
 * of AN_OUTFILE_ALIGN in the file (len itself when less than that would
 * be left, or the stream is not a regular file). */
size_t an_outfile_aligned(struct an_outfile *w, size_t len);
/* fwrite with space reserved ahead; <0 on a write error. */
int an_outfile_write(struct an_outfile *w, const void *text, size_t len);
/* Positional writes: a text whose place in the output is known before
 * the text before it is written (a PC list's batch on a thread: its lines
 * have one width) goes straight there from any thread, and no thread
 * keeps it waiting for its turn.  Only where a write at an offset is what
 * the reader gets: a regular file not opened for appending (O_APPEND
 * would put every write at the end) and not also stderr (whose messages
 * would land where the position stood), or /dev/null, which keeps
 * nothing.  Flushes the stream; *at: the offset the next text goes at;
 * *regular: whether it is a regular file (not /dev/null).
 * -1: the stream takes only writes in order (a pipe, a terminal). */
int an_outfile_positional_begin(struct an_outfile *w, uint64_t *at, bool *regular);
/* Write text at offset `at` (any thread, at the same time as others);
 * <0 on a write error (errno set). */
int an_outfile_pwrite(struct an_outfile *w, const void *text, size_t len, uint64_t at);
/* Reserve the file system's space for the bytes up to offset `end`
 * ahead of the writes, as an_outfile_write does (one thread). */
void an_outfile_reserve(struct an_outfile *w, uint64_t end);
/* The positional writes are over and the text ends at offset `end`: the
 * stream writes on from there (and a file written over is cut there:
 * rvt_output_file_close).  <0 if the position cannot be set. */
int an_outfile_positional_end(struct an_outfile *w, uint64_t end);
/* Gives back the space reserved beyond the file's end (after the last
 * write; the stream is flushed first).  <0 if the flush failed. */
int an_outfile_finish(struct an_outfile *w);
#endif
