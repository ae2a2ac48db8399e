/* A decode's text written to its stream.  To a regular file, the file
 * system's space is reserved ahead of the writes in large steps: ext4 and
 * other delayed-allocation file systems otherwise reserve it page by page
 * inside every write(), which on this project's VM made writing a 304 MB
 * PC list take 0.051 s where reserving ahead takes 0.031 s (bench/RESULTS.md,
 * "Writing the text to a file").  The reservation never changes the file's
 * size or content (FALLOC_FL_KEEP_SIZE), and what is left unused is given
 * back at the end. */
#ifndef RVT_AN_OUTFILE_H
#define RVT_AN_OUTFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct an_outfile {
    FILE *f;
    int fd;              /* -1: nothing reserved (not a regular file, small so far, or reserving failed) */
    bool checked;        /* fd decided */
    uint64_t written;    /* bytes given to write */
    int64_t reserved_to; /* file offset the reservation reaches */
};

void an_outfile_init(struct an_outfile *w, FILE *f);
/* fwrite with space reserved ahead; <0 on a write error. */
int an_outfile_write(struct an_outfile *w, const void *text, size_t len);
/* Gives back the space reserved beyond the file's end (after the last
 * write; the stream is flushed first).  <0 if the flush failed. */
int an_outfile_finish(struct an_outfile *w);
#endif
