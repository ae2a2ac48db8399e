/* Fuzz the sink-image sidecar parser and the linearisation of an image
 * with whatever description it yields.  The input is split at the first
 * NUL: text before it is the sidecar, bytes after it the image.
 * Invariants: a parsed description writes back to text that parses to the
 * same description; a linear view never holds more than the image. */
#include "rvtrace/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c))                                                                          \
            abort();                                                                       \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t tlen = nul ? (size_t)(nul - data) : size;
    const uint8_t *img = nul ? nul + 1 : data + size;
    size_t ilen = size - tlen - (nul ? 1 : 0);
    struct rvt_sink_info info;
    struct rvt_diag d = {0};
    if (rvt_sink_info_parse((const char *)data, tlen, "fuzz.sink", &info, &d) < 0) {
        REQUIRE(d.msg[0] != 0);
        return 0;
    }
    /* Round trip through the writer. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return 0;
    REQUIRE(rvt_sink_info_write(f, &info) == 0);
    fclose(f);
    struct rvt_sink_info again;
    REQUIRE(rvt_sink_info_parse(text, len, "again", &again, &d) == 0);
    REQUIRE(again.known == info.known);
    REQUIRE(again.wp == info.wp && again.size == info.size && again.written == info.written);
    REQUIRE(again.start == info.start && again.origin == info.origin && again.wrap == info.wrap);
    free(text);
    struct rvt_sink_image out;
    /* The one description of a sink: any description gives a sentence
     * that never calls a stopped buffer wrapped. */
    char what[512];
    REQUIRE(rvt_sink_info_describe(&info, 1, what, sizeof what) > 0);
    if ((info.known & RVT_SINFO_POLICY) && info.stop_on_wrap && info.wrap)
        REQUIRE(strstr(what, "wrapped") == NULL);
    if (rvt_sink_linearize(img, ilen, &info, &out, &d) == 0) {
        REQUIRE(out.len <= ilen);
        REQUIRE(!(out.wrapped && out.stopped));
        if (out.wrapped && (info.known & RVT_SINFO_WRITTEN))
            REQUIRE(out.lost_known && out.lost + out.len == info.written);
        REQUIRE(rvt_sink_info_describe(&out.info, 1, what, sizeof what) > 0);
        rvt_sink_image_free(&out);
    } else {
        REQUIRE(d.msg[0] != 0);
    }
    return 0;
}
