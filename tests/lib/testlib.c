#include "testlib.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned long rvt_test_checks, rvt_test_failures;

void rvt_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    rvt_test_failures++;
    fprintf(stderr, "%s:%d: FAIL: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int rvt_test_summary(const char *name)
{
    printf("%s: %lu checks, %lu failed\n", name, rvt_test_checks, rvt_test_failures);
    return rvt_test_failures ? 1 : 0;
}

char *rvt_test_data(const char *rel)
{
    const char *base = getenv("RVT_TEST_DATA");
    if (!base)
        base = "tests/data";
    size_t n = strlen(base) + strlen(rel) + 2;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s/%s", base, rel);
    return p;
}

uint8_t *rvt_test_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        rvt_test_fail(__FILE__, __LINE__, "cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (!b || (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(b);
        rvt_test_fail(__FILE__, __LINE__, "cannot read %s", path);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static char g_tmp[256];

static void rm_tmp(void)
{
    if (g_tmp[0] && !getenv("RVT_KEEP_TMP")) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
        if (system(cmd) != 0)
            fprintf(stderr, "warning: could not remove %s\n", g_tmp);
    }
}

const char *rvt_test_tmpdir(void)
{
    if (!g_tmp[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(g_tmp, sizeof g_tmp, "%s/rvt-test-XXXXXX", t ? t : "/tmp");
        if (!mkdtemp(g_tmp)) {
            perror("mkdtemp");
            abort();
        }
        atexit(rm_tmp);
    }
    return g_tmp;
}

int rvt_test_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    if (st == -1)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

bool rvt_test_unxz(const char *rel, const char *name, char *path, size_t n)
{
    char *src = rvt_test_data(rel);
    snprintf(path, n, "%s/%s", rvt_test_tmpdir(), name);
    int st = rvt_test_sh("command -v xz >/dev/null && xz -dc '%s' > '%s'", src, path);
    free(src);
    return st == 0;
}

const char *rvt_test_cli(void)
{
    const char *b = getenv("RVT_BIN");
    return b ? b : "rvtrace";
}

/* Record r in short, with its batch's priv and context (len 0: it has
 * fields a short record does not carry). */
struct rvt_ing_fast rvt_test_in_short(const struct rvt_ing_rec *r, uint8_t priv, uint64_t context)
{
    struct rvt_ing_fast f = {r->iaddr, r->itype, (uint8_t)(2 * r->iretire)};
    struct rvt_ing_rec back;
    if (r->iretire < 1 || r->iretire > 2)
        return (struct rvt_ing_fast){0, 0, 0};
    rvt_ing_fast_rec(&f, priv, context, &back);
    /* (field by field: the padding of either is unset) */
    const bool same = back.iaddr == r->iaddr && back.tval == r->tval && back.context == r->context &&
                      back.time == r->time && back.rd_value == r->rd_value && back.mem_addr == r->mem_addr &&
                      back.mem_value == r->mem_value && back.mem_operand == r->mem_operand &&
                      back.iretire == r->iretire && back.cause == r->cause && back.flags == r->flags &&
                      back.itype == r->itype && back.ilastsize == r->ilastsize && back.priv == r->priv &&
                      back.ctype == r->ctype && back.rd == r->rd && back.mem_size == r->mem_size &&
                      back.tp_type == r->tp_type && back.hart == r->hart && back.dtype == r->dtype;
    if (!same)
        f.len = 0;
    return f;
}
