/* Error codes and diagnostics shared by every layer. */
#include "rvtrace/common.h"

#include <string.h>

static const char *const g_errnames[RVT_ERR__COUNT] = {
    [RVT_OK] = "success",
    [RVT_ERR_NOMEM] = "out of memory",
    [RVT_ERR_INVAL] = "invalid argument",
    [RVT_ERR_IO] = "I/O error",
    [RVT_ERR_FORMAT] = "malformed input",
    [RVT_ERR_TRUNCATED] = "input truncated",
    [RVT_ERR_UNSUPPORTED] = "unsupported feature",
    [RVT_ERR_NOCODE] = "no code at address",
    [RVT_ERR_BADINSN] = "invalid instruction",
    [RVT_ERR_MISMATCH] = "trace and code disagree",
    [RVT_ERR_NOSYNC] = "no synchronisation point",
    [RVT_ERR_OVERFLOW] = "overflow",
    [RVT_ERR_EOS] = "end of stream",
    [RVT_ERR_LIMIT] = "limit reached",
};

const char *rvt_errstr(int err)
{
    if (err < 0)
        err = -err;
    if (err >= RVT_ERR__COUNT)
        return "unknown error";
    return g_errnames[err];
}

int rvt_vfail(struct rvt_diag *d, enum rvt_err code, const char *fmt, va_list ap)
{
    if (d) {
        d->code = (int)code;
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    }
    return -(int)code;
}

int rvt_fail(struct rvt_diag *d, enum rvt_err code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = rvt_vfail(d, code, fmt, ap);
    va_end(ap);
    return r;
}

int rvt_fail_from(struct rvt_diag *d, const struct rvt_diag *src, const char *prefix_fmt, ...)
{
    int code = src && src->code ? src->code : RVT_ERR_INVAL;
    if (!d)
        return -code;
    char prefix[256];
    va_list ap;
    va_start(ap, prefix_fmt);
    vsnprintf(prefix, sizeof prefix, prefix_fmt, ap);
    va_end(ap);
    /* Long enough for prefix + message; the result is cut to d->msg. */
    char msg[sizeof prefix + sizeof d->msg + 4];
    snprintf(msg, sizeof msg, "%s%s%s", prefix, prefix[0] ? ": " : "",
             src && src->msg[0] ? src->msg : rvt_errstr(code));
    memcpy(d->msg, msg, sizeof d->msg - 1);
    d->msg[sizeof d->msg - 1] = 0;
    d->code = code;
    return -code;
}

void rvt_diag_clear(struct rvt_diag *d)
{
    d->code = 0;
    d->msg[0] = 0;
}
