/* Fuzz the --sink description parser and, for accepted descriptions of a
 * modest size, build the sink and push the input through it. */
#include "rvtrace/sink.h"

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
    char text[256];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = 0;
    struct rvt_sink_spec sp;
    struct rvt_diag d = {0};
    if (rvt_sink_spec_parse(text, &sp, &d) < 0) {
        REQUIRE(d.msg[0] != 0);
        return 0;
    }
    REQUIRE(sp.bytes > 0 && sp.bytes % (sp.width_bits / 8) == 0);
    if (sp.bytes > 1 << 16)
        return 0;
    struct rvt_ramsink *s = NULL;
    REQUIRE(rvt_ramsink_from_spec(&sp, 0xFF, &s, &d) == 0);
    long r = rvt_ramsink_write(s, data, size);
    REQUIRE(r >= 0 && (size_t)r <= size);
    REQUIRE(sp.stop_on_wrap || (size_t)r == size);
    rvt_ramsink_flush(s);
    uint8_t *lin;
    size_t len;
    uint64_t lost;
    REQUIRE(rvt_ramsink_linear(s, &lin, &len, &lost) == 0);
    REQUIRE(len <= sp.bytes);
    free(lin);
    rvt_ramsink_free(s);
    return 0;
}
