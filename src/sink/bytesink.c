/* Memory and file byte sinks, and whole-file reading. */
#include "rvtrace/sink.h"
#include "sink_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void rvt_membuf_init(struct rvt_membuf *m)
{
    memset(m, 0, sizeof *m);
}

void rvt_membuf_free(struct rvt_membuf *m)
{
    free(m->data);
    memset(m, 0, sizeof *m);
}

int rvt_membuf_append(struct rvt_membuf *m, const void *p, size_t n)
{
    if (!n)
        return 0; /* also keeps memcpy away from a NULL buffer */
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n)
            cap *= 2;
        uint8_t *d = realloc(m->data, cap);
        if (!d)
            return -RVT_ERR_NOMEM;
        m->data = d;
        m->cap = cap;
    }
    memcpy(m->data + m->len, p, n);
    m->len += n;
    return 0;
}

static long membuf_write(void *ctx, const uint8_t *p, size_t n)
{
    struct rvt_membuf *m = ctx;
    size_t take = n;
    if (m->limit && m->len + take > m->limit)
        take = m->limit > m->len ? m->limit - m->len : 0;
    if (take && rvt_membuf_append(m, p, take) < 0)
        return -RVT_ERR_NOMEM;
    return (long)take;
}

struct rvt_byte_sink rvt_membuf_sink(struct rvt_membuf *m)
{
    struct rvt_byte_sink s = {membuf_write, m};
    return s;
}

static long file_write(void *ctx, const uint8_t *p, size_t n)
{
    struct rvt_filesink *fs = ctx;
    if (n && fwrite(p, 1, n, fs->f) != n) {
        fs->err = errno ? errno : EIO;
        return -RVT_ERR_IO;
    }
    fs->written += n;
    return (long)n;
}

struct rvt_byte_sink rvt_filesink_sink(struct rvt_filesink *fs)
{
    struct rvt_byte_sink s = {file_write, fs};
    return s;
}

int rvt_read_file(const char *path, uint8_t **data, size_t *len, struct rvt_diag *diag)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return rvt_fail(diag, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        if (f != stdin)
            fclose(f);
        return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                if (f != stdin)
                    fclose(f);
                return rvt_fail(diag, RVT_ERR_NOMEM, "%s: out of memory after %zu bytes", path, n);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                if (f != stdin)
                    fclose(f);
                return rvt_fail(diag, RVT_ERR_IO, "%s: read error at byte %zu: %s", path, n, strerror(e));
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    *data = buf;
    *len = n;
    return 0;
}

bool rvt_map_fd(int fd, const uint8_t **data, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
        return false;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return false;
    *data = m;
    *len = (size_t)st.st_size;
    return true;
}

int rvt_map_file(const char *path, const uint8_t **data, size_t *len, bool *mapped, struct rvt_diag *diag)
{
    *mapped = false;
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            return rvt_fail(diag, RVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        *mapped = rvt_map_fd(fd, data, len);
        close(fd);
        if (*mapped)
            return 0;
    }
    /* A pipe, an empty or special file, or no address space for it. */
    uint8_t *buf;
    int rc = rvt_read_file(path, &buf, len, diag);
    if (rc < 0)
        return rc;
    *data = buf;
    return 0;
}

void rvt_unmap_file(const uint8_t *data, size_t len, bool mapped)
{
    if (mapped)
        munmap((void *)(uintptr_t)data, len);
    else
        free((void *)(uintptr_t)data);
}
