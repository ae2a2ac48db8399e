/* Names of the ingress port's data access types. */
#include "rvtrace/ingress.h"

const char *rvt_dtype_name(unsigned dtype)
{
    static const char *const names[16] = {"load",    "store",   "?",      "?",     "csrrw",   "csrrs",
                                          "csrrc",   "?",       "amoswap", "amoadd", "amoand", "amoor",
                                          "amoxor",  "amomax",  "amomin", "sc-fail"};
    return dtype < 16 ? names[dtype] : "?";
}
