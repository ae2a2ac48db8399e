/* Internal: the native ingress record codec shared by the writer, the
 * streaming reader and the in-memory parser. */
#ifndef RVT_INGRESS_NATIVE_H
#define RVT_INGRESS_NATIVE_H

#include "rvtrace/ingress.h"

#define RVT_NATIVE_HEADER_SIZE 16
#define RVT_NATIVE_MAX_RECORD 128 /* upper bound of one encoded record */
#define RVT_NATIVE_NEED_MORE 1    /* decode: the buffer ends inside the record */
#define RVT_NATIVE_END 2          /* decode: the end marker (record count in *used's record) */
#define RVT_NATIVE_END_TAG 0x07u  /* itype 7 is reserved: the tag byte of the end marker */

struct rvt_native_state {
    uint64_t next;    /* address after the previous record's block */
    uint64_t context;
    uint64_t time;
    uint8_t priv;
    uint16_t hart;
};

void rvt_native_state_init(struct rvt_native_state *st);
size_t rvt_native_encode(struct rvt_native_state *st, const struct rvt_ing_rec *r, uint8_t *out);
/* 0: decoded (*used bytes), RVT_NATIVE_NEED_MORE, or <0 with *why. */
int rvt_native_decode(struct rvt_native_state *st, const uint8_t *buf, size_t len, struct rvt_ing_rec *r,
                      size_t *used, const char **why);
int rvt_native_parse_header(const uint8_t *h, size_t len, unsigned *xlen, const char **why);
/* The end marker: tag, varint record count. */
size_t rvt_native_encode_end(uint64_t records, uint8_t *out);
void rvt_native_make_header(uint8_t h[RVT_NATIVE_HEADER_SIZE], unsigned xlen);

#endif
