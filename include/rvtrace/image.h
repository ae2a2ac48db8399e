/* rvtrace — code image: ELF segments, raw binaries, a read callback, symbols,
 * and the decoded-block cache that lets the flow engine walk code one block
 * (not one instruction) at a time.
 *
 * An image is immutable once loaded and may be shared by threads; each
 * thread walks with its own block cache (struct rvt_bcache).
 */
#ifndef RVTRACE_IMAGE_H
#define RVTRACE_IMAGE_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rvt_image;

/* Caller-supplied code reader: copy up to len bytes at addr into buf and
 * return how many were available (0 = no code there).  Must be thread-safe
 * if the image is used from several threads. */
typedef size_t (*rvt_img_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct rvt_image *rvt_img_new(void);
void rvt_img_free(struct rvt_image *img);
/* Last error text ("prog.elf: offset 0x40: section header table beyond end of file (size 812)"). */
const char *rvt_img_error(const struct rvt_image *img);

/* Load an ELF32/ELF64 little-endian RISC-V file: every PT_LOAD segment with
 * file contents (executable ones are marked as code), the entry point, the
 * xlen, and the function/object symbols (.symtab, else .dynsym). */
int rvt_img_load_elf(struct rvt_image *img, const char *path);
/* Same from memory; `name` is used in messages.  The bytes are copied. */
int rvt_img_load_elf_mem(struct rvt_image *img, const void *buf, size_t len, const char *name);
/* The same, loaded `bias` bytes above the addresses the ELF gives (its
 * segments, symbols and entry point): a position-independent program or
 * a shared library where the loader put it.  An error if a segment would
 * leave the address space. */
int rvt_img_load_elf_at(struct rvt_image *img, const char *path, uint64_t bias);
int rvt_img_load_elf_mem_at(struct rvt_image *img, const void *buf, size_t len, const char *name, uint64_t bias);

/* A load map: where a user-mode capture's process had each RISC-V ELF
 * file mapped (the program, its dynamic loader, its shared libraries), as
 * `rvtrace capture` writes it (docs/capture.md, "Dynamically linked
 * programs").  One line per mapping, after '#' comment lines:
 *   START END OFFSET SIZE DIGEST PATH
 * START and END the mapping's addresses, OFFSET its file offset, SIZE the
 * file's size and DIGEST its FNV-1a 64-bit hash (hexadecimal, 0x), PATH the
 * rest of the line.
 *
 * rvt_img_load_maps loads every file of the map at the address its
 * mappings give (rvt_img_load_elf_at) — from directory `dir` (if not
 * NULL) when a file of the same name is there, else from the map's path —
 * after checking that the file is
 * the one mapped (size and digest) and that each mapping is a segment of
 * it at one load address, and that no two files were mapped over each
 * other (at different times: one image holds one); an error names the
 * map's line.  If `program`
 * is not NULL it must be one of the map's files (the same file, by device
 * and inode): *program_bias is where it was loaded.  Returns the number of
 * files loaded. */
int rvt_img_load_maps(struct rvt_image *img, const char *map_path, const char *dir, const char *program,
                      uint64_t *program_bias);

/* Add a raw binary at an address (copied).  Overlapping segments: the one
 * added last wins. */
int rvt_img_add_raw(struct rvt_image *img, uint64_t addr, const void *data, size_t len,
                    const char *name);
int rvt_img_add_raw_file(struct rvt_image *img, uint64_t addr, const char *path);
/* Consulted for addresses no segment covers. */
void rvt_img_set_reader(struct rvt_image *img, rvt_img_read_fn fn, void *ctx);

/* 32 or 64; taken from the first ELF loaded, else 64, else as set. */
unsigned rvt_img_xlen(const struct rvt_image *img);
void rvt_img_set_xlen(struct rvt_image *img, unsigned xlen);
uint64_t rvt_img_entry(const struct rvt_image *img);

/* Copy code bytes; returns the number available at addr (0 = none).
 * Reads see every segment (executable or not, .bss as zeros), then the
 * reader; blocks are decoded from executable segments and the reader only. */
size_t rvt_img_read(const struct rvt_image *img, uint64_t addr, void *buf, size_t len);
/* Decode the instruction at addr.  -RVT_ERR_NOCODE if no bytes there
 * (a message names the address). */
int rvt_img_insn(const struct rvt_image *img, uint64_t addr, struct rvt_insn *out);

/* Symbols. */
struct rvt_symbol {
    uint64_t addr;
    uint64_t size;
    const char *name;
    uint8_t is_func;    /* STT_FUNC, or an untyped label in an executable section */
};
/* The symbol containing addr (function symbols preferred; else the nearest
 * preceding function symbol if it has no size, a label).  Returns NULL if
 * none: code past the end a function's size gives (a stripped shared
 * library's internal functions) has no symbol. */
const struct rvt_symbol *rvt_img_symbol_at(const struct rvt_image *img, uint64_t addr);
/* Find a symbol by name; NULL if none. */
const struct rvt_symbol *rvt_img_symbol_named(const struct rvt_image *img, const char *name);
/* Show C++ names demangled: fn (e.g. a wrapper of the C++ runtime's
 * __cxa_demangle) returns a malloc'd readable name for a mangled one
 * ("_Z..."), or NULL to leave it.  Applies to the symbols loaded so far
 * (call it after the last load); rvt_img_symbol_named then finds a symbol
 * by either name. */
typedef char *(*rvt_img_demangle_fn)(const char *name);
int rvt_img_demangle(struct rvt_image *img, rvt_img_demangle_fn fn);
size_t rvt_img_symbol_count(const struct rvt_image *img);
const struct rvt_symbol *rvt_img_symbol_index(const struct rvt_image *img, size_t i);

/* Loaded segments, for listings and coverage. */
struct rvt_segment {
    uint64_t addr;
    uint64_t size;
    const uint8_t *data;
    uint8_t exec;
    const char *name;
};
size_t rvt_img_segment_count(const struct rvt_image *img);
const struct rvt_segment *rvt_img_segment(const struct rvt_image *img, size_t i);

/* ---- decoded-block cache ------------------------------------------------ */

/* A run of instructions starting at `start`, ending with the first
 * control-flow instruction (any class except NONE), or cut after
 * RVT_BLOCK_MAX_INSNS instructions, or before bytes that are not code or not
 * a valid instruction. */
#define RVT_BLOCK_MAX_INSNS 64

enum rvt_block_info_flags {
    RVT_BI_CF_END = 1u << 0,    /* the last instruction has class `cf` != NONE */
    RVT_BI_CAPPED = 1u << 1,    /* cut at RVT_BLOCK_MAX_INSNS; continues at `next` */
    RVT_BI_STOP_NOCODE = 1u << 2,  /* no code at `next` */
    RVT_BI_STOP_BADINSN = 1u << 3, /* invalid instruction at `next` */
    RVT_BI_SIJUMP = 1u << 4,    /* last is an uninferable jump whose rs1 was set by
                                   the instruction before it in this block:
                                   `target` holds the sequentially inferred target */
    RVT_BI_EMPTY = 1u << 5      /* no instruction at all at `start` (ninsns == 0) */
};

struct rvt_block_info {
    uint64_t start;
    uint64_t last;         /* address of the last instruction */
    uint64_t next;         /* last + its length (fall-through / return address) */
    uint64_t target;       /* static target of branch/jal, or sijump target */
    uint64_t rvc_mask;     /* bit i set: instruction i is 16-bit */
    uint32_t ninsns;
    uint32_t halfwords;
    uint8_t cf;            /* class of the last instruction (enum rvt_cf) */
    uint8_t flags;         /* enum rvt_block_info_flags */
    uint8_t rd, rs1;       /* of the last instruction */
    uint32_t last_bits;    /* raw bits of the last instruction */
};

struct rvt_bcache;
/* A cache of decoded blocks for one thread.  `slots_log2` 0 = default.
 * slots_log2 caps the table at 2^slots_log2 blocks (default 16, at most 24):
 * it starts smaller, doubles under pressure, then evicts. */
struct rvt_bcache *rvt_bcache_new(const struct rvt_image *img, unsigned slots_log2);
void rvt_bcache_free(struct rvt_bcache *bc);
/* The block starting at addr.  Never NULL: a block with ninsns == 0 and
 * RVT_BI_EMPTY set describes an address without code or with an invalid
 * instruction (flags say which).  The pointer stays valid until the next
 * rvt_bcache_get on the same cache (copy the block to keep it longer). */
const struct rvt_block_info *rvt_bcache_get(struct rvt_bcache *bc, uint64_t addr);
const struct rvt_image *rvt_bcache_image(const struct rvt_bcache *bc);
/* Cache statistics (hits, misses) for benchmarks: lookups in the table.  The
 * flow engine's fast walk following a block's successor link to the next
 * block is not a lookup and is not counted. */
void rvt_bcache_stats(const struct rvt_bcache *bc, uint64_t *hits, uint64_t *misses);

/* Offset in halfwords of instruction i (0..ninsns) from the block start. */
static inline uint32_t rvt_block_hw_offset(const struct rvt_block_info *b, uint32_t i)
{
    uint64_t m = i >= 64 ? b->rvc_mask : (b->rvc_mask & ((1ull << i) - 1));
    /* SWAR popcount: no libgcc call on targets without a popcount instruction */
    m = m - ((m >> 1) & 0x5555555555555555ull);
    m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return 2 * i - (uint32_t)((m * 0x0101010101010101ull) >> 56);
}

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif
