/* capture_memcheck ELF INGRESS: validate the memory fields of a capture
 * made with `rvtrace capture --mem --per-insn`.  Each record is one
 * instruction; the instruction at its address (decoded from the ELF by the
 * ISA classifier) says whether it loads or stores and how many bytes, and
 * QEMU's memory callback (recorded by the plugin) must agree: an access
 * exactly where the code has one, of the size the code says, with the store
 * flag of a store. */
#include "testlib.h"

#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void run(const char *elf, const char *ing)
{
    struct rvt_image *img = rvt_img_new();
    REQUIRE(img != NULL);
    int rc = rvt_img_load_elf(img, elf);
    CHECK_MSG(rc >= 0, "%s: %s", elf, rvt_img_error(img));
    if (rc < 0) {
        rvt_img_free(img);
        return;
    }

    struct rvt_ing_reader_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.format = RVT_ING_FMT_NATIVE;
    cfg.image = img;
    struct rvt_diag diag;
    rvt_diag_clear(&diag);
    struct rvt_ing_reader *r = NULL;
    rc = rvt_ing_open(&r, ing, &cfg, &diag);
    CHECK_MSG(rc >= 0, "%s: %s", ing, diag.msg);
    if (rc < 0) {
        rvt_img_free(img);
        return;
    }

    uint64_t records = 0, loads = 0, stores = 0, rmw = 0, plain = 0;
    uint64_t bad = 0;
    struct rvt_ing_rec rec;
    while ((rc = rvt_ing_next(r, &rec)) > 0) {
        records++;
        struct rvt_insn in;
        if (rvt_img_insn(img, rec.iaddr, &in) < 0) {
            CHECK_MSG(0, "record %" PRIu64 ": no code at 0x%" PRIx64 ": %s", records, rec.iaddr,
                      rvt_img_error(img));
            break;
        }
        bool ld = (in.flags & RVT_IF_LOAD) != 0, st = (in.flags & RVT_IF_STORE) != 0;
        bool has = (rec.flags & RVT_ING_HAS_MEM) != 0, is_store = (rec.flags & RVT_ING_MEM_STORE) != 0;
        bool ok = rec.iretire == in.len / 2u;
        if (ld || st) {
            ok = ok && has && rec.mem_size == in.mem_size;
            /* Atomics read and write: either direction is acceptable. */
            if (ld && !st)
                ok = ok && !is_store;
            else if (st && !ld)
                ok = ok && is_store;
            if (ld && st)
                rmw++;
            else if (st)
                stores++;
            else
                loads++;
        } else {
            ok = ok && !has;
            plain++;
        }
        if (!ok && bad++ < 10)
            CHECK_MSG(0,
                      "record %" PRIu64 " at 0x%" PRIx64 " (bits 0x%08" PRIx32 ", %u bytes, load %d store %d "
                      "size %u): iretire %" PRIu32 ", has_mem %d, store %d, size %u, addr 0x%" PRIx64,
                      records, rec.iaddr, in.bits, in.len, ld, st, in.mem_size, rec.iretire, has, is_store,
                      rec.mem_size, rec.mem_addr);
    }
    CHECK_MSG(bad == 0, "%" PRIu64 " of %" PRIu64 " records disagree with their instruction", bad, records);
    CHECK_MSG(rc == 0, "%s: %s", ing, rvt_ing_error(r));
    CHECK_MSG(loads > 0 && stores > 0, "expected loads and stores, got %" PRIu64 " and %" PRIu64, loads, stores);
    printf("%s: %" PRIu64 " instructions: %" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64
           " read-modify-write, %" PRIu64 " without memory access\n",
           ing, records, loads, stores, rmw, plain);
    rvt_ing_close(r);
    rvt_img_free(img);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: capture_memcheck ELF INGRESS\n");
        return 2;
    }
    run(argv[1], argv[2]);
    return rvt_test_summary("capture_memcheck");
}
