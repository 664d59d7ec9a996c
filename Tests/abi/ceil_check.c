/* Sources/libpasscode/embedded/embedded_libm.c's ceil (the Embedded library's own, so that it needs no libm) against
 * libm's: the edges (zeros of both signs, halves, the 2^52 and 2^53 boundaries, the largest
 * doubles, infinities, NaN, the int64 range) and a million random bit patterns, compared bit for
 * bit. The Makefile compiles embedded_libm.c alone with -Dceil=embedded_ceil, so both are in this
 * program, and this file with -fno-builtin, so that ceil here is libm's call. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c/testlib.h"

double embedded_ceil(double x);

static uint64_t bits(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }

static int same(double x) {
    double want = ceil(x), got = embedded_ceil(x);
    int ok = isnan(want) ? isnan(got) : bits(want) == bits(got);
    CHECK_MSG(ok, "ceil_check: ceil(%a) is %a, libm says %a", x, got, want);
    return ok;
}

int main(void) {
    const double edges[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 0x1p-1074, -0x1p-1074, 0x1.fffffffffffffp-1,
                            -0x1.fffffffffffffp-1, 0x1p52, -0x1p52, 0x1p52 - 0.5, -0x1p52 + 0.5, 0x1p52 + 1, 0x1p53, -0x1p53,
                            0x1p63, -0x1p63, 0x1p64, 1e300, -1e300, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023,
                            INFINITY, -INFINITY, NAN, 4.0 / 3.0 * 1000, 12.0 / 0.75, 7.0 / 0.75};
    int ok = 1;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) ok &= same(edges[i]);
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 1000000; i++) {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17;  /* xorshift64 */
        double x;
        memcpy(&x, &state, sizeof x);
        ok &= same(x);
        ok &= same((double)(int64_t)(state >> 20) / 1024.0);  /* ordinary magnitudes, with fractions */
    }
    if (!ok) return 1;
    printf("ceil_check: the Embedded library's ceil equals libm's, bit for bit, on %zu edges and 2,000,000 other values\n",
           sizeof edges / sizeof edges[0]);
    return 0;
}
