/* Fuzz the ATB formatter: the input is read as formatted frames (with
 * each combination of reader options), and also used as a script for the
 * writer (ID, length, bytes ...) whose frames must read back to exactly
 * the bytes written per ID. */
#include "rvtrace/sink.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c))                                                                          \
            abort();                                                                       \
    } while (0)

static int count_deliver(void *ctx, unsigned id, uint64_t off, const uint8_t *p, size_t n)
{
    uint64_t *total = ctx;
    (void)off;
    (void)p;
    REQUIRE(id >= 1 && id <= RVT_ATB_ID_MAX && n > 0 && n <= 16);
    *total += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int opt = 0; opt < 4; opt++) {
        uint64_t total = 0;
        struct rvt_atb_reader_config rc = {.size = sizeof rc,
                                           .deliver = count_deliver,
                                           .ctx = &total,
                                           .hsyncs = opt & 1,
                                           .find_fsync = opt >> 1,
                                           .initial_id = size ? data[0] & 0x7F : 0};
        struct rvt_atb_read_stats st;
        struct rvt_diag d = {0};
        int rc2 = rvt_atb_read(data, size, &rc, &st, &d);
        REQUIRE(rc2 == 0 || d.msg[0] != 0);
        REQUIRE(total == st.data_bytes);
        REQUIRE(st.data_bytes + st.null_bytes + st.reserved_bytes + st.unknown_bytes <= size);
    }

    /* Writer script. */
    struct rvt_membuf frames, want[128], got[128];
    rvt_membuf_init(&frames);
    for (int i = 0; i < 128; i++) {
        rvt_membuf_init(&want[i]);
        rvt_membuf_init(&got[i]);
    }
    struct rvt_atb_writer_config wc = {.size = sizeof wc,
                                       .out = rvt_membuf_sink(&frames),
                                       .fsync_at_start = size > 1 && (data[1] & 1),
                                       .fsync_period = size > 1 ? (data[1] >> 1) & 7 : 0,
                                       .id_repeat_frames = size > 1 ? data[1] >> 4 : 0};
    struct rvt_atb_writer *w = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_atb_writer_new(&wc, &w, &d) == 0);
    size_t i = 2;
    while (i + 2 <= size) {
        unsigned id = data[i] & 0x7F;
        size_t n = data[i + 1] % 48;
        i += 2;
        if (n > size - i)
            n = size - i;
        int rc = rvt_atb_write(w, id, data + i, n);
        if (id >= 1 && id <= RVT_ATB_ID_MAX) {
            REQUIRE(rc == 0);
            rvt_membuf_append(&want[id], data + i, n);
        } else {
            REQUIRE(rc == -RVT_ERR_INVAL);
        }
        i += n;
    }
    REQUIRE(rvt_atb_writer_flush(w) == 0);
    rvt_atb_writer_free(w);
    REQUIRE(frames.len % 4 == 0);
    struct rvt_atb_read_stats st;
    REQUIRE(rvt_atb_demux(frames.data, frames.len, 0, got, &st, &d) == 0);
    REQUIRE(st.partial_bytes == 0 && st.unknown_bytes == 0 && st.errors == 0);
    for (int k = 0; k < 128; k++) {
        REQUIRE(got[k].len == want[k].len);
        REQUIRE(!want[k].len || memcmp(got[k].data, want[k].data, want[k].len) == 0);
        rvt_membuf_free(&want[k]);
        rvt_membuf_free(&got[k]);
    }
    rvt_membuf_free(&frames);
    return 0;
}
