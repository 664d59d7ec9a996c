/* A tiny test harness: CHECK records failures, the summary line is "N passed, N failed". */
#ifndef TESTLIB_H
#define TESTLIB_H
#include <stdio.h>
#include <string.h>

/* A test program of several files defines TESTLIB_SHARED everywhere and the counters once. */
#ifdef TESTLIB_SHARED
extern int tl_passed, tl_failed;
extern const char *tl_current;
#else
static int tl_passed, tl_failed;
static const char *tl_current = "";
#endif

#define CHECK(cond) do { \
    if (cond) { tl_passed++; } \
    else { tl_failed++; fprintf(stderr, "FAIL %s (%s:%d): %s\n", tl_current, __FILE__, __LINE__, #cond); } \
} while (0)

/* Checks a status and shows both names when they differ. */
#define CHECK_STATUS(expr, want) do { \
    int32_t tl_got = (expr); \
    if (tl_got == (want)) { tl_passed++; } \
    else { tl_failed++; fprintf(stderr, "FAIL %s (%s:%d): %s returned %d (%s), wanted %d (%s)\n", \
        tl_current, __FILE__, __LINE__, #expr, tl_got, passcode_strerror(tl_got), (int)(want), passcode_strerror(want)); } \
} while (0)

#define RUN(fn) do { tl_current = #fn; fn(); } while (0)

static inline int tl_summary(void) {
    printf("%d passed, %d failed\n", tl_passed, tl_failed);
    return tl_failed == 0 ? 0 : 1;
}
#endif
