/* Fuzz target for the ELF loader: load from memory, then exercise what a
 * decoder does with an image (symbols, reads, single instructions, blocks
 * through a small cache that evicts).  Invariants that must hold for any
 * image abort, so the fuzzer reports them. */
#include "rvtrace/image.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

static void check_block(const struct rvt_block_info *b, uint64_t addr)
{
    check(b->start == addr);
    check(b->ninsns <= RVT_BLOCK_MAX_INSNS);
    check((b->ninsns == 0) == ((b->flags & RVT_BI_EMPTY) != 0));
    check(rvt_block_hw_offset(b, b->ninsns) == b->halfwords);
    if (b->ninsns) {
        uint32_t last_hw = rvt_block_hw_offset(b, b->ninsns - 1);
        check(b->last == b->start + 2ull * last_hw);
        unsigned last_len = (b->rvc_mask >> (b->ninsns - 1) & 1) ? 2 : 4;
        check(b->halfwords == last_hw + last_len / 2);
        check((b->flags & RVT_BI_CF_END) ? b->cf != RVT_CF_NONE : b->cf == RVT_CF_NONE);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rvt_image *img = rvt_img_new();
    if (!img)
        return 0;
    /* An odd last byte loads the ELF higher up (a shared library where
     * a load map puts it), possibly out of the address space. */
    const uint64_t bias = size && (data[size - 1] & 1) ? (uint64_t)data[size - 1] << 56 | (uint64_t)size << 12 : 0;
    if (rvt_img_load_elf_mem_at(img, data, size, "fuzz.elf", bias) != 0) {
        check(strncmp(rvt_img_error(img), "fuzz.elf: ", 10) == 0);
        rvt_img_free(img);
        return 0;
    }
    size_t nsym = rvt_img_symbol_count(img);
    for (size_t i = 0; i < nsym && i < 512; i++) {
        const struct rvt_symbol *s = rvt_img_symbol_index(img, i);
        check(rvt_img_symbol_at(img, s->addr) != NULL);
        rvt_img_symbol_at(img, s->addr + s->size);
        const struct rvt_symbol *n = rvt_img_symbol_named(img, s->name);
        check(n != NULL && strcmp(n->name, s->name) == 0);
    }

    struct rvt_bcache *bc = rvt_bcache_new(img, 3);
    if (!bc) {
        rvt_img_free(img);
        return 0;
    }
    uint8_t buf[64];
    struct rvt_insn in;
    for (size_t i = 0; i < rvt_img_segment_count(img); i++) {
        const struct rvt_segment *s = rvt_img_segment(img, i);
        check(rvt_img_read(img, s->addr, buf, sizeof buf) > 0);
        check(rvt_img_read(img, s->addr + s->size - 1, buf, sizeof buf) >= 1);
        rvt_img_insn(img, s->addr, &in);
        const struct rvt_block_info *b = rvt_bcache_get(bc, s->addr);
        check_block(b, s->addr);
        check_block(rvt_bcache_get(bc, s->addr + (s->size & ~1ull)), s->addr + (s->size & ~1ull));
    }
    /* Walk from the entry point, taking branches every other time. */
    uint64_t pc = rvt_img_entry(img);
    for (unsigned step = 0; step < 512; step++) {
        const struct rvt_block_info *b = rvt_bcache_get(bc, pc);
        check_block(b, pc);
        if (b->ninsns == 0)
            break;
        for (uint32_t k = 0; k < b->ninsns; k++)
            check(rvt_img_insn(img, b->start + 2ull * rvt_block_hw_offset(b, k), &in) == 0);
        pc = (step & 1) && b->target ? b->target : b->next;
    }
    uint64_t hits, misses;
    rvt_bcache_stats(bc, &hits, &misses);
    check(hits + misses > 0);
    rvt_bcache_free(bc);
    rvt_img_free(img);
    return 0;
}
