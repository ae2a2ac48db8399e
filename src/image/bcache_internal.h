/* Internal: the block cache's table, so that the flow engine's walk can
 * look blocks up inline (the home-slot hit is the decode's hottest path).
 * Everything else goes through rvt_bcache_get. */
#ifndef RVT_IMAGE_BCACHE_INTERNAL_H
#define RVT_IMAGE_BCACHE_INTERNAL_H

#include "rvtrace/image.h"

#define BC_PROBE 8
#define BC_DEFAULT_MAX_LOG2 16 /* 64 Ki blocks, 4 MiB */
#define BC_INITIAL_LOG2 10
#define BC_LIMIT_LOG2 24
/* start of an unused slot.  An unused slot reads as the (empty) block of
 * this odd address, so a lookup of it is correct without a special case. */
#define BC_EMPTY UINT64_MAX

struct bc_slot {
    struct rvt_block_info b;
    /* Where the flow's fast walk last found the block at b.next (0) and at
     * b.target (1): byte offsets of slots in the table, hints it checks
     * before hashing (any value is safe: the block's start is compared). */
    uint32_t succ[2];
};
_Static_assert(sizeof(struct bc_slot) == 64, "a slot is one cache line");

struct rvt_bcache {
    struct bc_slot *slots;
    unsigned shift; /* 64 - log2 */
    unsigned log2, max_log2;
    size_t mask;
    size_t used;
    uint64_t hits, misses;
    uint32_t victim;
    const struct rvt_image *img;
    struct rvt_block_info spare; /* for the one address that equals BC_EMPTY */
};

static inline size_t rvt_bc_home(unsigned shift, uint64_t addr)
{
    return (size_t)(((addr >> 1) * 0x9E3779B97F4A7C15ull) >> shift);
}

/* Everything but a home-slot hit. */
const struct rvt_block_info *rvt_bcache_miss(struct rvt_bcache *bc, uint64_t addr);

/* rvt_bcache_get, inline. */
static inline const struct rvt_block_info *rvt_bcache_lookup(struct rvt_bcache *bc, uint64_t addr)
{
    struct bc_slot *s = &bc->slots[rvt_bc_home(bc->shift, addr)];
    if (s->b.start == addr) {
        bc->hits++;
        return &s->b;
    }
    return rvt_bcache_miss(bc, addr);
}

#endif
