/* Minimal test helpers: CHECK macros that report file:line and keep going,
 * a final summary, paths to test data and the built CLI. */
#ifndef RVT_TESTLIB_H
#define RVT_TESTLIB_H

#include "rvtrace/ingress.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern unsigned long rvt_test_checks, rvt_test_failures;

void rvt_test_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        rvt_test_checks++;                                                                 \
        if (!(cond))                                                                       \
            rvt_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                          \
    } while (0)
#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        rvt_test_checks++;                                                                 \
        if (!(cond))                                                                       \
            rvt_test_fail(__FILE__, __LINE__, __VA_ARGS__);                                \
    } while (0)
#define CHECK_EQ(a, b)                                                                     \
    do {                                                                                   \
        unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);   \
        rvt_test_checks++;                                                                 \
        if (va_ != vb_)                                                                    \
            rvt_test_fail(__FILE__, __LINE__, "%s == %s: 0x%llx != 0x%llx", #a, #b, va_, vb_); \
    } while (0)
#define CHECK_STR(a, b)                                                                    \
    do {                                                                                   \
        const char *sa_ = (a), *sb_ = (b);                                                 \
        rvt_test_checks++;                                                                 \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0)                                         \
            rvt_test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,        \
                          sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");                     \
    } while (0)
/* Fails the test and returns from the current function if cond is false. */
#define REQUIRE(cond)                                                                      \
    do {                                                                                   \
        rvt_test_checks++;                                                                 \
        if (!(cond)) {                                                                     \
            rvt_test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                        \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/* The next value of a xorshift64 generator (state must not be 0): the
 * tests' reproducible random numbers. */
static inline uint64_t rvt_test_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Print "<name>: N checks, N failed" and return the exit status. */
int rvt_test_summary(const char *name);

/* $RVT_TEST_DATA/<rel> (static buffer per call site is not needed: returns malloc'd). */
char *rvt_test_data(const char *rel);
/* Read a whole file; NULL on failure (reported as a test failure). */
uint8_t *rvt_test_read(const char *path, size_t *len);
/* A fresh temporary directory for this test process (created once). */
const char *rvt_test_tmpdir(void);
/* Run a shell command, returning its exit status (-1 if it could not run). */
int rvt_test_sh(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Unpack the xz file $RVT_TEST_DATA/<rel> into the temporary directory as
 * <name>; `path` (n bytes) gets its path.  False when xz is missing or
 * fails (the bundled captures are optional for the tests that use them). */
bool rvt_test_unxz(const char *rel, const char *name, char *path, size_t n);
/* Path of the built rvtrace CLI ($RVT_BIN). */
const char *rvt_test_cli(void);

/* Record r in short (struct rvt_ing_fast), with its batch's priv and
 * context; len 0 if it has fields a short record does not carry. */
struct rvt_ing_fast rvt_test_in_short(const struct rvt_ing_rec *r, uint8_t priv, uint64_t context);

#endif
