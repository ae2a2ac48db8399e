/* A decode's text written to its stream (outfile.h). */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reserve only once a text is this large (a count or a short listing never
 * reserves), and then this far ahead of the write position. */
#define RESERVE_AFTER (4u << 20)
#define RESERVE_STEP (64u << 20)
/* A stream that is not a regular file gets a text of this many bytes or
 * more with write(2), fewer through stdio. */
#define DIRECT_MIN (64u << 10)

void an_outfile_init(struct an_outfile *w, FILE *f)
{
    *w = (struct an_outfile){.f = f, .fd = -1, .pipe_fd = -1, .at_fd = -1};
}

static bool regular_file(struct an_outfile *w)
{
    if (!w->checked) {
        w->checked = true;
        struct stat st;
        const int fd = fileno(w->f);
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            w->fd = fd;
            const off_t at = ftello(w->f);
            w->base = at > 0 ? (uint64_t)at : 0;
        } else if (fd >= 0) {
            w->pipe_fd = fd;
        }
    }
    return w->fd >= 0;
}

size_t an_outfile_aligned(struct an_outfile *w, size_t len)
{
    if (!regular_file(w))
        return len;
    const uint64_t end = w->base + w->written + len;
    const size_t cut = (size_t)(end % AN_OUTFILE_ALIGN);
    return cut < len ? len - cut : len;
}

/* Reserve the space for the bytes [at, at + len) and RESERVE_STEP more,
 * unless it is reserved already. */
static void reserve_span(struct an_outfile *w, int64_t at, size_t len)
{
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
    if (w->no_reserve || !regular_file(w))
        return;
    if (at + (int64_t)len <= w->reserved_to)
        return;
    const int64_t from = at > w->reserved_to ? at : w->reserved_to;
    /* Any failure (a file system without fallocate, a full disk) only
     * stops the reserving: the writes themselves report real errors. */
    if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(at + (int64_t)len + RESERVE_STEP - from)) != 0) {
        w->no_reserve = true;
        return;
    }
    w->reserved_to = at + (int64_t)len + RESERVE_STEP;
#else
    (void)w;
    (void)at;
    (void)len;
#endif
}

static void reserve_ahead(struct an_outfile *w, size_t len)
{
    if (w->no_reserve || !regular_file(w))
        return;
    const off_t at = ftello(w->f);
    if (at < 0) {
        w->no_reserve = true;
        return;
    }
    reserve_span(w, (int64_t)at, len);
}

/* Keep errno as the first failed write's (-1 for the caller). */
static int write_failed(struct an_outfile *w)
{
    int none = 0;
    const int e = errno ? errno : EIO;
    (void)atomic_compare_exchange_strong(&w->write_errno, &none, e);
    return -1;
}

int an_outfile_write(struct an_outfile *w, const void *text, size_t len)
{
    if (!len)
        return 0;
    if (w->written + len > RESERVE_AFTER)
        reserve_ahead(w, len);
    w->written += len;
    /* Another stream: a large text straight to it too, after anything the
     * stream holds (stdio copies the first and last bytes of each into its
     * 4 KiB buffer and makes two writes of it). */
    if (!regular_file(w) && (w->pipe_fd < 0 || len < DIRECT_MIN))
        return fwrite(text, 1, len, w->f) == len ? 0 : write_failed(w);
    const int fd = w->fd >= 0 ? w->fd : w->pipe_fd;
    /* Straight to the file, after anything the stream holds: stdio would
     * cut each write at its buffer (4 KiB, then the rest), which loses the
     * alignment. */
    if (fflush(w->f) != 0)
        return write_failed(w);
    for (const char *p = text; len;) {
        const ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return write_failed(w);
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int an_outfile_positional_begin(struct an_outfile *w, uint64_t *at, bool *regular)
{
    if (fflush(w->f) != 0)
        return -1;
    const int fd = fileno(w->f);
    struct stat st, other;
    if (fd < 0 || fstat(fd, &st) != 0)
        return -1;
    bool ok;
    if (S_ISREG(st.st_mode)) {
        const int fl = fcntl(fd, F_GETFL);
        ok = fl >= 0 && !(fl & O_APPEND) &&
             !(fd != STDERR_FILENO && fstat(STDERR_FILENO, &other) == 0 && other.st_dev == st.st_dev &&
               other.st_ino == st.st_ino);
    } else {
        ok = S_ISCHR(st.st_mode) && stat("/dev/null", &other) == 0 && S_ISCHR(other.st_mode) &&
             other.st_rdev == st.st_rdev;
    }
    const off_t pos = ok ? lseek(fd, 0, SEEK_CUR) : -1;
    if (pos < 0)
        return -1;
    (void)regular_file(w);
    w->at_fd = fd;
    *at = (uint64_t)pos;
    *regular = S_ISREG(st.st_mode);
    return 0;
}

int an_outfile_pwrite(struct an_outfile *w, const void *text, size_t len, uint64_t at)
{
    for (const char *p = text; len;) {
        const ssize_t n = pwrite(w->at_fd, p, len, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return write_failed(w);
        }
        p += n;
        len -= (size_t)n;
        at += (uint64_t)n;
    }
    return 0;
}

void an_outfile_reserve(struct an_outfile *w, uint64_t end)
{
    if (w->fd >= 0 && end >= w->base + RESERVE_AFTER)
        reserve_span(w, (int64_t)w->base, (size_t)(end - w->base));
}

int an_outfile_positional_end(struct an_outfile *w, uint64_t end)
{
    if (w->at_fd < 0)
        return 0;
    const int fd = w->at_fd;
    w->at_fd = -1;
    if (w->fd >= 0 && end >= w->base)
        w->written = end - w->base;
    return lseek(fd, (off_t)end, SEEK_SET) < 0 ? -1 : 0;
}

int an_outfile_finish(struct an_outfile *w)
{
    if (fflush(w->f) != 0)
        return -1;
    if (w->fd >= 0 && w->reserved_to > 0) {
        /* Truncating to its own size changes neither the file's size nor
         * its content (another writer of the same file, e.g. stderr sent
         * there too, keeps what it wrote); it frees the blocks reserved
         * beyond the end. */
        struct stat st;
        if (fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode))
            (void)!ftruncate(w->fd, st.st_size);
    }
    w->fd = w->pipe_fd = -1;
    w->reserved_to = 0;
    return 0;
}
