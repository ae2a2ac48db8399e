/* Internal interface between the ELF parser, the image and the block cache. */
#ifndef RVT_IMAGE_INTERNAL_H
#define RVT_IMAGE_INTERNAL_H

#include "rvtrace/image.h"

#include <stdbool.h>

/* One PT_LOAD segment as the parser validated it. */
struct img_elf_seg {
    uint64_t vaddr;
    uint64_t file_off; /* p_offset; [file_off, file_off + filesz) lies inside the file */
    uint64_t filesz;
    uint64_t memsz;    /* >= filesz; vaddr + memsz does not wrap */
    unsigned phdr_index;
    bool exec;
};

/* Preference among symbols at one address (lower is preferred). */
enum img_sym_rank {
    IMG_RANK_FUNC = 0,
    IMG_RANK_CODE_LABEL = 1, /* NOTYPE symbol in an executable section (assembly labels) */
    IMG_RANK_OBJECT = 2,
    IMG_RANK_OTHER = 3
};

struct img_elf_sym {
    uint64_t addr;
    uint64_t size;
    uint32_t name_off;  /* into img_elf.strtab; NUL-terminated inside it (checked) */
    uint32_t name_len;
    uint8_t rank;       /* enum img_sym_rank */
    uint8_t binding_rank; /* 0 global, 1 weak, 2 local */
};

/* Result of parsing: pointers into the caller's buffer plus allocated arrays. */
struct img_elf {
    unsigned xlen;
    uint64_t entry;
    uint16_t e_type;
    struct img_elf_seg *segs;
    size_t nsegs;
    struct img_elf_sym *syms;
    size_t nsyms;
    const char *strtab; /* string table of the chosen symbol table (inside buf, or strtab_own) */
    uint64_t strtab_size;
    char *strtab_own;   /* the table with the PLT entries' names added ("printf@plt") */
};

/* Parse and validate an ELF image held in buf[0..len).  On failure fills d
 * ("name: offset 0x..: what (details)") and returns a negated rvt_err; *out
 * then holds nothing to free. */
int rvt_img_parse_elf(const uint8_t *buf, size_t len, const char *name, struct img_elf *out,
                      struct rvt_diag *d);
void rvt_img_elf_release(struct img_elf *e);

/* Copy up to len bytes at addr that are executable code (exec segments or
 * the reader callback); returns the count available contiguously. */
size_t rvt_img_fetch_code(const struct rvt_image *img, uint64_t addr, uint8_t *buf, size_t len);

/* Executable bytes at addr inside one mapped range, without copying:
 * returns a pointer and the byte count up to the range's end, or NULL if
 * addr is not in an executable segment (the reader callback, gaps and
 * zero-fill need rvt_img_fetch_code). */
const uint8_t *rvt_img_code_span(const struct rvt_image *img, uint64_t addr, size_t *avail);

/* The image's diagnostic (its loaders' errors: rvt_img_error). */
struct rvt_diag *rvt_img_diag(struct rvt_image *img);

#endif
