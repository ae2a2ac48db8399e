/* Output files written over in place (codec.h, "output files"). */
#include "rvtrace/codec.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *rvt_output_file_open(const char *path, const char *const *inputs, size_t n, struct rvt_diag *d)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    struct stat out;
    if (stat(path, &out) == 0 && S_ISREG(out.st_mode)) {
        for (size_t i = 0; i < n; i++) {
            struct stat in;
            if (inputs[i] && strcmp(inputs[i], "-") != 0 && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev &&
                in.st_ino == out.st_ino) {
                rvt_fail(d, RVT_ERR_INVAL, "%s: the output would overwrite %s, which is read as input", path,
                         inputs[i]);
                errno = EINVAL;
                return NULL;
            }
        }
    }
    /* No O_TRUNC: the old content is written over and the rest cut off at
     * the end (rvt_output_file_close).  Truncating a large file first makes
     * the kernel free its pages and wait for their write-back inside
     * open(): 40-110 ms for a 304 MB PC list, more than the decode that
     * writes it (bench/RESULTS.md). */
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        rvt_fail(d, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        const int e = errno;
        close(fd);
        rvt_fail(d, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    return f;
}

int rvt_output_file_close(FILE *f)
{
    if (!f)
        return 0;
    if (f == stdout)
        return fflush(f) == 0 ? 0 : -RVT_ERR_IO;
    int rc = fflush(f) == 0 ? 0 : -RVT_ERR_IO;
    struct stat st;
    /* The descriptor's own position, not ftello's: the text may have been
     * written to the descriptor directly (src/analysis/outfile.c), past
     * what the stream counted. */
    const off_t end = lseek(fileno(f), 0, SEEK_CUR);
    if (rc == 0 && end >= 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > end &&
        ftruncate(fileno(f), end) != 0)
        rc = -RVT_ERR_IO;
    if (fclose(f) != 0)
        rc = -RVT_ERR_IO;
    return rc;
}
