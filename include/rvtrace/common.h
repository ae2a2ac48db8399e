/* rvtrace — common types: errors, diagnostics, version.
 *
 * Every library function that can fail returns a negated enum rvt_err as an
 * int (0 or a positive status on success).  Objects keep the text of their
 * last error (what, where, what was expected) in a struct rvt_diag that the
 * caller reads with the object's *_error() accessor.
 */
#ifndef RVTRACE_COMMON_H
#define RVTRACE_COMMON_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RVT_VERSION_MAJOR 0
#define RVT_VERSION_MINOR 1
#define RVT_VERSION_PATCH 0
#define RVT_VERSION_STRING "0.1.0"

enum rvt_err {
    RVT_OK = 0,
    RVT_ERR_NOMEM = 1,     /* allocation failed */
    RVT_ERR_INVAL,         /* bad argument or option value */
    RVT_ERR_IO,            /* read/write/open failed (errno in the message) */
    RVT_ERR_FORMAT,        /* malformed input bytes (file, offset in message) */
    RVT_ERR_TRUNCATED,     /* input ended inside a record/packet */
    RVT_ERR_UNSUPPORTED,   /* valid input using a feature we do not handle */
    RVT_ERR_NOCODE,        /* no code image at an address */
    RVT_ERR_BADINSN,       /* illegal/unknown instruction where code is needed */
    RVT_ERR_MISMATCH,      /* trace and code disagree (address, what expected) */
    RVT_ERR_NOSYNC,        /* no synchronisation point found */
    RVT_ERR_OVERFLOW,      /* a counter, buffer or field overflowed */
    RVT_ERR_EOS,           /* end of stream (not an error for iterators) */
    RVT_ERR_LIMIT,         /* a configured limit was reached */
    RVT_ERR__COUNT
};

/* Human-readable name of an error code (accepts the negated value too). */
const char *rvt_errstr(int err);

/* A diagnostic buffer owned by each object: the last error's full text. */
struct rvt_diag {
    int code;          /* last error code (positive enum rvt_err), 0 if none */
    char msg[512];     /* "file: offset 0x1a: what, expected what" */
};

/* Record an error in d and return -code (so callers can `return rvt_fail(...)`). */
int rvt_fail(struct rvt_diag *d, enum rvt_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int rvt_vfail(struct rvt_diag *d, enum rvt_err code, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;
/* Copy another object's diagnostic into d, prefixing context ("while ..."). */
int rvt_fail_from(struct rvt_diag *d, const struct rvt_diag *src, const char *prefix_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void rvt_diag_clear(struct rvt_diag *d);

/* Privilege levels, ingress-port encoding (E-Trace table "priv"). */
enum rvt_priv {
    RVT_PRIV_U = 0,
    RVT_PRIV_S = 1,
    RVT_PRIV_M = 3,
    RVT_PRIV_D = 4,
    RVT_PRIV_VU = 5,
    RVT_PRIV_VS = 6
};

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
