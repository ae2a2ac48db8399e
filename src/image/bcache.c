/* The decoded-block cache: the flow engine's hot path.
 *
 * An open-addressed table of 64-byte slots (one cache line each), the block
 * stored inline.  A block's home slot is a Fibonacci hash of addr >> 1; it
 * may also sit in the next BC_PROBE - 1 slots.  A hit in the home slot costs
 * one multiply, one load and one compare; a hit further in the window swaps
 * the block into its home slot so that hot blocks stay one probe away.
 *
 * Slots are never emptied, only overwritten, so a lookup may stop at the
 * first empty slot of its window.  Under pressure the table doubles (load
 * above one half, or a full window) until it reaches its cap, then a full
 * window evicts one of its slots round-robin.
 */
#include "image/bcache_internal.h"
#include "image/image_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t bc_window(const struct rvt_bcache *bc)
{
    return bc->mask + 1 < BC_PROBE ? bc->mask + 1 : BC_PROBE;
}

static struct bc_slot *alloc_slots(unsigned log2)
{
    size_t n = (size_t)1 << log2;
    struct bc_slot *s = aligned_alloc(64, n * sizeof *s);
    if (!s)
        return NULL;
    /* An unused slot holds what decode_block gives for BC_EMPTY, an odd
     * address: no instruction (so a lookup of BC_EMPTY may hit it). */
    for (size_t i = 0; i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].b.start = s[i].b.last = s[i].b.next = BC_EMPTY;
        s[i].b.flags = RVT_BI_EMPTY | RVT_BI_STOP_BADINSN;
    }
    return s;
}

struct rvt_bcache *rvt_bcache_new(const struct rvt_image *img, unsigned slots_log2)
{
    if (!img)
        return NULL;
    struct rvt_bcache *bc = calloc(1, sizeof *bc);
    if (!bc)
        return NULL;
    bc->max_log2 = slots_log2 == 0 ? BC_DEFAULT_MAX_LOG2
                   : slots_log2 > BC_LIMIT_LOG2 ? BC_LIMIT_LOG2
                                                : slots_log2;
    bc->log2 = bc->max_log2 < BC_INITIAL_LOG2 ? bc->max_log2 : BC_INITIAL_LOG2;
    bc->slots = alloc_slots(bc->log2);
    if (!bc->slots) {
        free(bc);
        return NULL;
    }
    bc->shift = 64 - bc->log2;
    bc->mask = ((size_t)1 << bc->log2) - 1;
    bc->img = img;
    return bc;
}

void rvt_bcache_free(struct rvt_bcache *bc)
{
    if (!bc)
        return;
    free(bc->slots);
    free(bc);
}

const struct rvt_image *rvt_bcache_image(const struct rvt_bcache *bc)
{
    return bc->img;
}

void rvt_bcache_stats(const struct rvt_bcache *bc, uint64_t *hits, uint64_t *misses)
{
    if (hits)
        *hits = bc->hits;
    if (misses)
        *misses = bc->misses;
}

/* ---- decoding one block ------------------------------------------------- */

static void decode_block(const struct rvt_image *img, uint64_t addr, struct rvt_block_info *b)
{
    memset(b, 0, sizeof *b);
    b->start = b->last = b->next = addr;
    if (addr & 1) { /* no instruction starts at an odd address */
        b->flags = RVT_BI_EMPTY | RVT_BI_STOP_BADINSN;
        return;
    }
    unsigned xlen = rvt_img_xlen(img);
    uint8_t copy[RVT_BLOCK_MAX_INSNS * 4];
    size_t want = sizeof copy;
    /* RV32 pcs wrap at 4 GiB: a block stops there and continues at 0. */
    bool wraps32 = false;
    if (xlen == 32 && addr <= 0xffffffffull && 0x100000000ull - addr <= want) {
        want = (size_t)(0x100000000ull - addr);
        wraps32 = true;
    }
    /* Decode in place when the whole reach of a block lies in one
     * segment; copy near segment ends, for the reader, and at the wrap. */
    size_t avail;
    const uint8_t *buf = rvt_img_code_span(img, addr, &avail);
    if (!buf || avail < want) {
        avail = rvt_img_fetch_code(img, addr, copy, want);
        buf = copy;
    }
    avail = avail < want ? avail : want;
    /* The last two instructions, decoded in turn into ins[n & 1]. */
    struct rvt_insn ins[2];
    memset(ins, 0, sizeof ins);
    size_t off = 0;
    uint32_t n = 0;
    uint8_t stop = 0;
    for (;;) {
        if (n == RVT_BLOCK_MAX_INSNS || (wraps32 && off == want)) {
            stop = RVT_BI_CAPPED;
            break;
        }
        if (avail - off < 2) {
            stop = RVT_BI_STOP_NOCODE;
            break;
        }
        uint16_t low = (uint16_t)(buf[off] | buf[off + 1] << 8);
        unsigned len = rvt_isa_length(low);
        if (len != 2 && len != 4) { /* 48/64-bit and reserved encodings: not ours */
            stop = RVT_BI_STOP_BADINSN;
            break;
        }
        if (avail - off < len) { /* a 32-bit instruction cut by the end of code */
            stop = RVT_BI_STOP_NOCODE;
            break;
        }
        uint32_t bits = len == 2 ? low
                                 : (uint32_t)low | (uint32_t)buf[off + 2] << 16 |
                                       (uint32_t)buf[off + 3] << 24;
        struct rvt_insn *in = &ins[n & 1];
        rvt_isa_decode(bits, addr + off, xlen, in);
        if (!(in->flags & RVT_IF_VALID)) {
            stop = RVT_BI_STOP_BADINSN;
            break;
        }
        if (len == 2)
            b->rvc_mask |= 1ull << n;
        b->last = addr + off;
        b->halfwords += len / 2;
        off += len;
        n++;
        if (in->cf != RVT_CF_NONE) {
            stop = RVT_BI_CF_END;
            break;
        }
    }
    b->ninsns = n;
    if (n == 0) {
        b->flags = (uint8_t)(RVT_BI_EMPTY | stop);
        return;
    }
    b->next = addr + off;
    if (xlen == 32)
        b->next &= 0xffffffffull;
    const struct rvt_insn *cur = &ins[(n - 1) & 1], *prev = &ins[n & 1];
    b->flags = stop;
    b->cf = cur->cf;
    b->rd = cur->rd;
    b->rs1 = cur->rs1;
    b->last_bits = cur->bits;
    if (cur->cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(cur->cf)) {
        b->target = cur->target;
    } else if (rvt_cf_uninferable(cur->cf) && n >= 2) {
        uint64_t t;
        if (rvt_isa_sijump_target(prev, cur, xlen, &t)) {
            b->flags |= RVT_BI_SIJUMP;
            b->target = t;
        }
    }
}

/* ---- the table ------------------------------------------------------------ */

/* Put a block in the first free slot of its window; false if the window is full. */
static bool place(struct bc_slot *slots, unsigned shift, size_t mask, size_t window,
                  const struct rvt_block_info *b, struct bc_slot **where)
{
    size_t home = rvt_bc_home(shift, b->start);
    for (size_t j = 0; j < window; j++) {
        struct bc_slot *s = &slots[(home + j) & mask];
        if (s->b.start == BC_EMPTY) {
            s->b = *b;
            *where = s;
            return true;
        }
    }
    return false;
}

/* Double the table; blocks that find no room in the new one are dropped
 * (they will be decoded again when needed). */
static int grow(struct rvt_bcache *bc)
{
    unsigned log2 = bc->log2 + 1;
    struct bc_slot *ns = alloc_slots(log2);
    if (!ns)
        return -RVT_ERR_NOMEM;
    unsigned shift = 64 - log2;
    size_t mask = ((size_t)1 << log2) - 1;
    size_t window = mask + 1 < BC_PROBE ? mask + 1 : BC_PROBE;
    size_t used = 0;
    for (size_t i = 0; i <= bc->mask; i++) {
        struct bc_slot *where;
        if (bc->slots[i].b.start != BC_EMPTY && place(ns, shift, mask, window, &bc->slots[i].b, &where))
            used++;
    }
    free(bc->slots);
    bc->slots = ns;
    bc->log2 = log2;
    bc->shift = shift;
    bc->mask = mask;
    bc->used = used;
    return 0;
}

static const struct rvt_block_info *insert(struct rvt_bcache *bc, const struct rvt_block_info *b)
{
    if ((bc->used + 1) * 2 > bc->mask + 1 && bc->log2 < bc->max_log2)
        grow(bc); /* on failure the current table keeps working, evicting */
    for (;;) {
        struct bc_slot *where;
        if (place(bc->slots, bc->shift, bc->mask, bc_window(bc), b, &where)) {
            bc->used++;
            return &where->b;
        }
        if (bc->log2 >= bc->max_log2 || grow(bc) < 0)
            break;
    }
    size_t home = rvt_bc_home(bc->shift, b->start);
    struct bc_slot *s = &bc->slots[(home + bc->victim++ % bc_window(bc)) & bc->mask];
    s->b = *b;
    return &s->b;
}

const struct rvt_block_info *rvt_bcache_miss(struct rvt_bcache *bc, uint64_t addr)
{
    if (addr == BC_EMPTY) { /* cannot be a key: decode into the spare block */
        bc->misses++;
        decode_block(bc->img, addr, &bc->spare);
        return &bc->spare;
    }
    size_t home = rvt_bc_home(bc->shift, addr), window = bc_window(bc);
    for (size_t j = 0; j < window; j++) {
        struct bc_slot *s = &bc->slots[(home + j) & bc->mask];
        if (s->b.start == BC_EMPTY)
            break;
        if (s->b.start != addr)
            continue;
        bc->hits++;
        /* Move to the home slot if the block there stays inside its own window. */
        struct bc_slot *h = &bc->slots[home];
        size_t h_home = rvt_bc_home(bc->shift, h->b.start);
        if (j && ((home + j - h_home) & bc->mask) < window) {
            struct rvt_block_info t = h->b;
            h->b = s->b;
            s->b = t;
            return &h->b;
        }
        return &s->b;
    }
    bc->misses++;
    struct rvt_block_info b;
    decode_block(bc->img, addr, &b);
    return insert(bc, &b);
}

const struct rvt_block_info *rvt_bcache_get(struct rvt_bcache *bc, uint64_t addr)
{
    return rvt_bcache_lookup(bc, addr);
}
