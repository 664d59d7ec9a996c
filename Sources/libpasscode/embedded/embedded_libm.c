/* The one function of libm the Embedded build calls: ceil, from the Embedded standard library's
 * hash-table sizing (_HashTable.scale(forCapacity:), a Dictionary's or Set's capacity), never
 * from the library's own code. Defined here, hidden, so that libpasscode.so needs no libm: its
 * load maps one library less (libm's load, with its IFUNC resolvers, costs about 70 µs, most of
 * what the library's own load costs). Linked by scripts/embedded_build.sh only; the EMBEDDED=0
 * build links libm for the Swift runtime anyway.
 *
 * Exact for every double: those of magnitude 2^52 or more (and infinities, NaN) are integers
 * already; below it, truncation through int64_t is exact, and the sign of zero is kept
 * (ceil(-0.5) is -0.0). Tests/abi/ceil_check.c (make test-exports) compares it with libm's on the edges. */
#include <stdint.h>

__attribute__((visibility("hidden"))) double ceil(double x) {
    if (!(__builtin_fabs(x) < 4503599627370496.0)) return x;  /* |x| >= 2^52, inf, NaN */
    double t = (double)(int64_t)x;                                /* toward zero */
    if (t < x) t += 1.0;
    return __builtin_copysign(t, x);
}
