/* The native binary ingress format (docs/ingress-format.md): a 16-byte
 * header, then one variable-length record per ingress block, with the
 * values that rarely change (privilege, context, time) carried over from the
 * previous record.  Sequential one-instruction records take one byte. */
#include "native.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Tag byte. */
#define TAG_ITYPE_MASK 0x0fu
#define TAG_SIZE_SHIFT 4 /* 0: one 16-bit insn, 1: one 32-bit insn, 2: iretire 0, 3: explicit */
#define TAG_ADDR 0x40u   /* iaddr is not the previous record's next address */
#define TAG_EXT 0x80u    /* an extension flag word follows */

/* Extension flags (varint). */
#define EXT_TRAP 0x001u      /* varint cause, varint tval */
#define EXT_PRIV 0x002u      /* u8 priv */
#define EXT_CONTEXT 0x004u   /* varint context */
#define EXT_CTYPE 0x008u     /* u8 ctype */
#define EXT_TIME 0x010u      /* varint zigzag(time - previous time) */
#define EXT_RD 0x020u        /* u8 rd, varint value */
#define EXT_MEM 0x040u       /* u8 size | 0x80 store, varint address */
#define EXT_MEMVAL 0x080u    /* varint value */
#define EXT_SAMECYCLE 0x100u
#define EXT_SIJUMP 0x200u
#define EXT_TP 0x400u        /* u8 tracepoint type */
#define EXT_HART 0x800u      /* varint hart id; absent = same as the previous record */
#define EXT_UNQUAL 0x1000u   /* flag: filtered out (not qualified for tracing) */
#define EXT_NOTIFY 0x2000u   /* flag: a trigger asked for an explicit report */
#define EXT_DTYPE 0x4000u    /* u8 data access type (enum rvt_dtype) */
#define EXT_OPERAND 0x8000u  /* varint operand of an atomic or CSR access */
#define EXT_DADDR 0x10000u  /* u8 size, varint address: a DTYPE access without MEM (CSR, failed SC) */
#define EXT_KNOWN 0x1ffffu

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

size_t rvt_native_encode_end(uint64_t records, uint8_t *out)
{
    out[0] = RVT_NATIVE_END_TAG;
    return 1 + put_varint(out + 1, records);
}

void rvt_native_state_init(struct rvt_native_state *st)
{
    memset(st, 0, sizeof *st);
    st->priv = RVT_PRIV_M;
}

size_t rvt_native_encode(struct rvt_native_state *st, const struct rvt_ing_rec *r, uint8_t *out)
{
    uint8_t *p = out;
    unsigned size;
    if (r->iretire == 1 && r->ilastsize == 0)
        size = 0;
    else if (r->iretire == 2 && r->ilastsize == 1)
        size = 1;
    else if (r->iretire == 0 && r->ilastsize == 0)
        size = 2;
    else
        size = 3;
    uint64_t ext = 0;
    if (r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT)
        ext |= EXT_TRAP;
    if (r->priv != st->priv)
        ext |= EXT_PRIV;
    if (r->context != st->context)
        ext |= EXT_CONTEXT;
    if (r->ctype)
        ext |= EXT_CTYPE;
    if (r->flags & RVT_ING_HAS_TIME)
        ext |= EXT_TIME;
    if (r->flags & RVT_ING_HAS_RD)
        ext |= EXT_RD;
    if (r->flags & RVT_ING_HAS_MEM)
        ext |= EXT_MEM;
    if (r->flags & RVT_ING_HAS_MEMVAL)
        ext |= EXT_MEMVAL;
    if (r->flags & RVT_ING_SAME_CYCLE)
        ext |= EXT_SAMECYCLE;
    if (r->flags & RVT_ING_SIJUMP)
        ext |= EXT_SIJUMP;
    if (r->flags & RVT_ING_TRACEPOINT)
        ext |= EXT_TP;
    if (r->hart != st->hart)
        ext |= EXT_HART;
    if (r->flags & RVT_ING_UNQUALIFIED)
        ext |= EXT_UNQUAL;
    if (r->flags & RVT_ING_NOTIFY)
        ext |= EXT_NOTIFY;
    if (r->flags & RVT_ING_HAS_DTYPE)
        ext |= EXT_DTYPE;
    if ((r->flags & RVT_ING_HAS_MEMVAL) && r->mem_operand)
        ext |= EXT_OPERAND;
    if ((r->flags & (RVT_ING_HAS_DTYPE | RVT_ING_HAS_MEM)) == RVT_ING_HAS_DTYPE)
        ext |= EXT_DADDR;
    bool addr = r->iaddr != st->next;
    *p++ = (uint8_t)((r->itype & TAG_ITYPE_MASK) | size << TAG_SIZE_SHIFT | (addr ? TAG_ADDR : 0) |
                     (ext ? TAG_EXT : 0));
    if (size == 3)
        p += put_varint(p, (uint64_t)r->iretire << 2 | (r->ilastsize & 3u));
    if (addr)
        p += put_varint(p, zigzag((int64_t)(r->iaddr - st->next)));
    if (ext) {
        p += put_varint(p, ext);
        if (ext & EXT_TRAP) {
            p += put_varint(p, r->cause);
            p += put_varint(p, r->tval);
        }
        if (ext & EXT_PRIV)
            *p++ = r->priv;
        if (ext & EXT_CONTEXT)
            p += put_varint(p, r->context);
        if (ext & EXT_CTYPE)
            *p++ = r->ctype;
        if (ext & EXT_TIME)
            p += put_varint(p, zigzag((int64_t)(r->time - st->time)));
        if (ext & EXT_RD) {
            *p++ = r->rd;
            p += put_varint(p, r->rd_value);
        }
        if (ext & EXT_MEM) {
            *p++ = (uint8_t)((r->mem_size & 0x7fu) | (r->flags & RVT_ING_MEM_STORE ? 0x80u : 0));
            p += put_varint(p, r->mem_addr);
        }
        if (ext & EXT_MEMVAL)
            p += put_varint(p, r->mem_value);
        if (ext & EXT_TP)
            *p++ = r->tp_type;
        if (ext & EXT_HART)
            p += put_varint(p, r->hart);
        if (ext & EXT_DTYPE)
            *p++ = r->dtype;
        if (ext & EXT_OPERAND)
            p += put_varint(p, r->mem_operand);
        if (ext & EXT_DADDR) {
            *p++ = r->mem_size;
            p += put_varint(p, r->mem_addr);
        }
    }
    st->hart = r->hart;
    st->priv = r->priv;
    st->context = r->context;
    if (r->flags & RVT_ING_HAS_TIME)
        st->time = r->time;
    st->next = rvt_ing_next_addr(r);
    return (size_t)(p - out);
}

/* Bounded reads: every get fails cleanly at the end of the buffer. */
struct cursor {
    const uint8_t *p, *end;
};

static int get_u8(struct cursor *c, uint8_t *v)
{
    if (c->p >= c->end)
        return -1;
    *v = *c->p++;
    return 0;
}

static int get_varint(struct cursor *c, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (c->p >= c->end)
            return -1;
        uint8_t b = *c->p++;
        if (shift == 63 && b > 1)
            return -2; /* more than 64 bits */
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -2;
}

int rvt_native_decode(struct rvt_native_state *st, const uint8_t *buf, size_t len, struct rvt_ing_rec *r,
                      size_t *used, const char **why)
{
    struct cursor c = {buf, buf + len};
    uint8_t tag, u8;
    uint64_t v, ext = 0;
    int e;
    memset(r, 0, sizeof r[0]);
    if (get_u8(&c, &tag))
        return RVT_NATIVE_NEED_MORE;
    if (tag == RVT_NATIVE_END_TAG) {
        /* End marker: the record count lands in r->iaddr. */
        if ((e = get_varint(&c, &v)))
            goto bad;
        r->iaddr = v;
        *used = (size_t)(c.p - buf);
        return RVT_NATIVE_END;
    }
    r->itype = tag & TAG_ITYPE_MASK;
    if (r->itype == 7 || (r->itype == 6)) {
        *why = "reserved itype 6/7 in a 4-bit itype record";
        return -RVT_ERR_FORMAT;
    }
    switch ((tag >> TAG_SIZE_SHIFT) & 3u) {
    case 0:
        r->iretire = 1;
        break;
    case 1:
        r->iretire = 2;
        r->ilastsize = 1;
        break;
    case 2:
        break;
    default:
        if ((e = get_varint(&c, &v)))
            goto bad;
        if ((v >> 2) > 0xffffffffull) {
            *why = "iretire does not fit in 32 bits";
            return -RVT_ERR_FORMAT;
        }
        r->iretire = (uint32_t)(v >> 2);
        r->ilastsize = (uint8_t)(v & 3);
        break;
    }
    if (r->iretire && 2u << r->ilastsize > 2u * (uint64_t)r->iretire) {
        *why = "ilastsize larger than the block";
        return -RVT_ERR_FORMAT;
    }
    r->iaddr = st->next;
    if (tag & TAG_ADDR) {
        if ((e = get_varint(&c, &v)))
            goto bad;
        r->iaddr = st->next + (uint64_t)unzigzag(v);
    }
    r->priv = st->priv;
    r->context = st->context;
    if (tag & TAG_EXT) {
        if ((e = get_varint(&c, &ext)))
            goto bad;
        if (ext & ~(uint64_t)EXT_KNOWN) {
            *why = "unknown extension flags (file from a newer rvtrace?)";
            return -RVT_ERR_FORMAT;
        }
        if (ext & EXT_TRAP) {
            if ((e = get_varint(&c, &v)))
                goto bad;
            if (v > 0xffffffffull) {
                *why = "trap cause does not fit in 32 bits";
                return -RVT_ERR_FORMAT;
            }
            r->cause = (uint32_t)v;
            if ((e = get_varint(&c, &r->tval)))
                goto bad;
        }
        if (ext & EXT_PRIV) {
            if (get_u8(&c, &r->priv))
                return RVT_NATIVE_NEED_MORE;
            if (r->priv > 7) {
                *why = "privilege level above 7";
                return -RVT_ERR_FORMAT;
            }
        }
        if (ext & EXT_CONTEXT)
            if ((e = get_varint(&c, &r->context)))
                goto bad;
        if (ext & EXT_CTYPE) {
            if (get_u8(&c, &r->ctype))
                return RVT_NATIVE_NEED_MORE;
            if (r->ctype > 3) {
                *why = "ctype above 3";
                return -RVT_ERR_FORMAT;
            }
        }
        if (ext & EXT_TIME) {
            if ((e = get_varint(&c, &v)))
                goto bad;
            r->time = st->time + (uint64_t)unzigzag(v);
            r->flags |= RVT_ING_HAS_TIME;
        }
        if (ext & EXT_RD) {
            if (get_u8(&c, &r->rd))
                return RVT_NATIVE_NEED_MORE;
            if ((e = get_varint(&c, &r->rd_value)))
                goto bad;
            r->flags |= RVT_ING_HAS_RD;
        }
        if (ext & EXT_MEM) {
            if (get_u8(&c, &u8))
                return RVT_NATIVE_NEED_MORE;
            r->mem_size = u8 & 0x7f;
            if (u8 & 0x80)
                r->flags |= RVT_ING_MEM_STORE;
            if ((e = get_varint(&c, &r->mem_addr)))
                goto bad;
            r->flags |= RVT_ING_HAS_MEM;
        }
        if (ext & EXT_MEMVAL) {
            if ((e = get_varint(&c, &r->mem_value)))
                goto bad;
            r->flags |= RVT_ING_HAS_MEMVAL;
        }
        if (ext & EXT_SAMECYCLE)
            r->flags |= RVT_ING_SAME_CYCLE;
        if (ext & EXT_SIJUMP)
            r->flags |= RVT_ING_SIJUMP;
        if (ext & EXT_TP) {
            if (get_u8(&c, &r->tp_type))
                return RVT_NATIVE_NEED_MORE;
            r->flags |= RVT_ING_TRACEPOINT;
        }
        if (ext & EXT_HART) {
            if ((e = get_varint(&c, &v)))
                goto bad;
            if (v > 0xffff) {
                *why = "hart id above 65535";
                return -RVT_ERR_FORMAT;
            }
            st->hart = (uint16_t)v;
        }
        if (ext & EXT_UNQUAL)
            r->flags |= RVT_ING_UNQUALIFIED;
        if (ext & EXT_NOTIFY)
            r->flags |= RVT_ING_NOTIFY;
        if (ext & EXT_DTYPE) {
            if (get_u8(&c, &r->dtype))
                return RVT_NATIVE_NEED_MORE;
            if (r->dtype > 15 || r->dtype == 2 || r->dtype == 3 || r->dtype == 7) {
                *why = "reserved data access type (dtype 2, 3, 7 or above 15)";
                return -RVT_ERR_FORMAT;
            }
            r->flags |= RVT_ING_HAS_DTYPE;
        }
        if (ext & EXT_OPERAND)
            if ((e = get_varint(&c, &r->mem_operand)))
                goto bad;
        if (ext & EXT_DADDR) {
            if (!(ext & EXT_DTYPE) || (ext & EXT_MEM)) {
                *why = "a data address without a data access type, or beside a memory access";
                return -RVT_ERR_FORMAT;
            }
            if (get_u8(&c, &r->mem_size))
                return RVT_NATIVE_NEED_MORE;
            if ((e = get_varint(&c, &r->mem_addr)))
                goto bad;
        }
    }
    r->hart = st->hart;
    if (r->iretire == 0 && r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT) {
        *why = "a record that retires nothing must be a trap (itype 1 or 2)";
        return -RVT_ERR_FORMAT;
    }
    st->priv = r->priv;
    st->context = r->context;
    if (r->flags & RVT_ING_HAS_TIME)
        st->time = r->time;
    st->next = rvt_ing_next_addr(r);
    *used = (size_t)(c.p - buf);
    return 0;
bad:
    if (e == -1)
        return RVT_NATIVE_NEED_MORE;
    *why = "varint longer than 64 bits";
    return -RVT_ERR_FORMAT;
}

int rvt_native_parse_header(const uint8_t *h, size_t len, unsigned *xlen, const char **why)
{
    if (len < RVT_NATIVE_HEADER_SIZE) {
        *why = "file shorter than the 16-byte header";
        return -RVT_ERR_TRUNCATED;
    }
    if (memcmp(h, RVT_ING_MAGIC, 8) != 0) {
        *why = "not an rvtrace ingress file (bad magic)";
        return -RVT_ERR_FORMAT;
    }
    unsigned version = (unsigned)h[8] | (unsigned)h[9] << 8;
    if (version != RVT_ING_VERSION) {
        *why = "unsupported format version";
        return -RVT_ERR_UNSUPPORTED;
    }
    if (h[10] != 32 && h[10] != 64) {
        *why = "xlen in the header is neither 32 nor 64";
        return -RVT_ERR_FORMAT;
    }
    *xlen = h[10];
    return 0;
}

void rvt_native_make_header(uint8_t h[RVT_NATIVE_HEADER_SIZE], unsigned xlen)
{
    memset(h, 0, RVT_NATIVE_HEADER_SIZE);
    memcpy(h, RVT_ING_MAGIC, 8);
    h[8] = RVT_ING_VERSION & 0xff;
    h[9] = RVT_ING_VERSION >> 8;
    h[10] = (uint8_t)xlen;
}

/* ---- writer ------------------------------------------------------------- */

struct rvt_ing_writer {
    FILE *f;
    bool own;
    char *name;
    struct rvt_native_state st;
    struct rvt_diag diag;
    uint64_t records;
    uint8_t buf[1 << 16];
    size_t len;
};

static int writer_flush(struct rvt_ing_writer *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
        return rvt_fail(&w->diag, RVT_ERR_IO, "%s: write failed: %s", w->name ? w->name : "output",
                        strerror(errno));
    w->len = 0;
    return 0;
}

struct rvt_ing_writer *rvt_ing_writer_new(FILE *f, unsigned xlen)
{
    if (xlen != 32 && xlen != 64)
        return NULL;
    struct rvt_ing_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->f = f;
    rvt_native_state_init(&w->st);
    rvt_native_make_header(w->buf, xlen);
    w->len = RVT_NATIVE_HEADER_SIZE;
    return w;
}

int rvt_ing_writer_open(struct rvt_ing_writer **out, const char *path, unsigned xlen, struct rvt_diag *diag)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return rvt_fail(diag, RVT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    struct rvt_ing_writer *w = rvt_ing_writer_new(f, xlen);
    if (!w) {
        fclose(f);
        return rvt_fail(diag, RVT_ERR_INVAL, "%s: bad xlen %u", path, xlen);
    }
    w->own = true;
    w->name = strdup(path);
    *out = w;
    return 0;
}

int rvt_ing_write(struct rvt_ing_writer *w, const struct rvt_ing_rec *rec)
{
    if (w->diag.code)
        return -w->diag.code;
    if (sizeof w->buf - w->len < RVT_NATIVE_MAX_RECORD) {
        int rc = writer_flush(w);
        if (rc < 0)
            return rc;
    }
    w->len += rvt_native_encode(&w->st, rec, w->buf + w->len);
    w->records++;
    return 0;
}

int rvt_ing_writer_close(struct rvt_ing_writer *w)
{
    if (!w)
        return 0;
    int rc = w->diag.code ? -w->diag.code : 0;
    if (rc == 0) {
        /* The end marker tells readers the stream is complete. */
        if (sizeof w->buf - w->len < 16)
            rc = writer_flush(w);
        w->len += rvt_native_encode_end(w->records, w->buf + w->len);
        if (rc == 0)
            rc = writer_flush(w);
    }
    if (rc == 0 && fflush(w->f) != 0)
        rc = rvt_fail(&w->diag, RVT_ERR_IO, "%s: write failed: %s", w->name ? w->name : "output",
                      strerror(errno));
    if (w->own && fclose(w->f) != 0 && rc == 0)
        rc = -RVT_ERR_IO;
    free(w->name);
    free(w);
    return rc;
}

const char *rvt_ing_writer_error(const struct rvt_ing_writer *w)
{
    return w->diag.msg;
}

uint64_t rvt_ing_writer_records(const struct rvt_ing_writer *w)
{
    return w->records;
}

int rvt_ing_parse_native(const uint8_t *buf, size_t len, int (*fn)(void *ctx, const struct rvt_ing_rec *r),
                         void *ctx, struct rvt_diag *diag)
{
    unsigned xlen;
    const char *why = NULL;
    int rc = rvt_native_parse_header(buf, len, &xlen, &why);
    if (rc < 0)
        return rvt_fail(diag, (enum rvt_err)-rc, "offset 0x0: %s", why);
    struct rvt_native_state st;
    rvt_native_state_init(&st);
    size_t off = RVT_NATIVE_HEADER_SIZE;
    int count = 0;
    for (;;) {
        if (off >= len)
            return rvt_fail(diag, RVT_ERR_TRUNCATED,
                            "offset 0x%zx: the stream ends without its end marker after %d records (truncated?)", off,
                            count);
        struct rvt_ing_rec r;
        size_t used = 0;
        rc = rvt_native_decode(&st, buf + off, len - off, &r, &used, &why);
        if (rc == RVT_NATIVE_END) {
            if (r.iaddr != (uint64_t)count)
                return rvt_fail(diag, RVT_ERR_FORMAT, "offset 0x%zx: end marker counts %llu records, the stream has %d",
                                off, (unsigned long long)r.iaddr, count);
            if (off + used != len)
                return rvt_fail(diag, RVT_ERR_FORMAT, "offset 0x%zx: %zu bytes after the end marker", off + used,
                                len - off - used);
            return count;
        }
        if (rc == RVT_NATIVE_NEED_MORE)
            return rvt_fail(diag, RVT_ERR_TRUNCATED, "offset 0x%zx: record %d truncated at end of input", off,
                            count);
        if (rc < 0)
            return rvt_fail(diag, (enum rvt_err)-rc, "offset 0x%zx: record %d: %s", off, count, why);
        if (fn) {
            rc = fn(ctx, &r);
            if (rc < 0)
                return rc;
        }
        off += used;
        if (count < 0x7fffffff)
            count++;
    }
}
