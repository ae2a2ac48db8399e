/* Fuzz the N-Trace packet layer, dump and decoder.  The first input byte
 * picks the wire options (SRC width, address extension, timestamps and
 * Ownership, xlen of the packet layer); the rest is trace bytes: framed and
 * decoded message by message, dumped, and decoded against the reference
 * program t1 (with a sink that stops after a bounded number of
 * instructions: a count the configuration allows can still describe a long
 * walk through a loop).
 *
 * Speed (it ran ~900 executions/s): the time went to walking up to 50,000
 * instructions of damaged counts, to the packet layer run twice (both
 * address widths) and to opening /dev/null for the dump on every input.
 * The decoder now rejects counts the configuration cannot produce before
 * walking them, the packet layer runs at the width the selector picks, the
 * dump writes to one fully buffered stream, and the walk stops at 32,768
 * instructions (the seeds decode at most 28,000). */
#include "ntrace/ntrace.h"
#include "rvtrace/rvtrace.h"
#include "driver/fuzz_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rvt_image *g_img;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_img = rvt_fuzz_image("ntrace-t1/test.elf", "fuzz_ntrace");
    return 0;
}

static int count_block(void *ctx, const struct rvt_block *b)
{
    uint64_t *n = ctx;
    *n += b->ninsns;
    return *n > 32768; /* more than any seed needs; a damaged count can walk a loop for long */
}

/* The dump's output: opened once, written in large blocks. */
static FILE *dump_out(void)
{
    static FILE *null;
    static char buf[1 << 16];
    if (!null && (null = fopen("/dev/null", "w")) != NULL)
        setvbuf(null, buf, _IOFBF, sizeof buf);
    return null;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!g_img && LLVMFuzzerInitialize(NULL, NULL) != 0)
        return 0;
    uint8_t sel = data[0];
    data++;
    size--;

    struct nt_cfg cfg;
    nt_cfg_init(&cfg);
    cfg.src_bits = (sel & 3) == 3 ? 12u : (sel & 3) * 3u;
    cfg.src_id = 0;
    cfg.addr_ext = (sel >> 2) & 1;
    cfg.xlen = 32; /* t1 is RV32; the packet layer runs at 64 too */
    cfg.timestamps = (sel >> 6) & 1;
    cfg.context = (sel >> 6) & 1;
    if (sel & 0x80)
        cfg.strict = true;

    /* Packet layer: every framed message; what decodes must encode back to
     * the same field values. */
    {
        unsigned xl = (sel >> 5) & 1 ? 64 : 32;
        struct nt_wire w = {cfg.src_bits, xl, cfg.addr_ext};
        size_t pos = 0, start, n;
        struct rvt_diag d;
        int rc;
        while ((rc = nt_frame_next(data, size, &pos, &start, &n, &d)) != 0) {
            if (rc < 0)
                continue;
            struct nt_msg m, back;
            if (nt_msg_decode(&w, data + start, n, start, &m, &d) < 0 || !nt_tcode_known(m.tcode))
                continue;
            uint8_t out[NT_MSG_MAX];
            int k = nt_msg_encode(&w, &m, out, &d);
            if (k > 0 && nt_msg_decode(&w, out, (size_t)k, 0, &back, &d) == 0) {
                if (back.present != m.present)
                    abort(); /* the two directions disagree */
                for (unsigned f = 0; f < NT_F__COUNT; f++)
                    if (nt_has(&m, (enum nt_field)f) && back.v[f] != m.v[f])
                        abort();
            }
        }
    }

    /* Dump. */
    FILE *null = dump_out();
    if (null) {
        struct rvt_diag d;
        cfg.dump_bytes = sel & 8;
        nt_dump(&cfg, data, size, null, &d);
    }

    /* Decode against t1. */
    uint64_t insns = 0;
    struct rvt_flow_sink sink = {.block = count_block, .note = NULL, .ctx = &insns};
    struct rvt_diag d = {0};
    rvt_decode_buffer(&rvt_codec_ntrace, &cfg, g_img, (sel >> 4) & 1 ? RVT_FLOW_ECALL_UNINFERABLE : -1, data, size,
                      &sink, &d);
    return 0;
}
