/* A tiny test harness: CHECK records failures, the summary line is "N passed, N failed". */
#ifndef TESTLIB_H
#define TESTLIB_H
#include <stdio.h>
#include <string.h>

/* A test program of several files defines TESTLIB_SHARED everywhere and the counters once. */
#ifdef TESTLIB_SHARED
extern int tl_passed, tl_failed;
extern const char *tl_current;
extern const char *tl_filter;
extern int tl_listing, tl_ran;
#else
static int tl_passed, tl_failed;
static const char *tl_current = "";
static const char *tl_filter;  /* run only the tests whose name contains it (NULL: all) */
static int tl_listing, tl_ran; /* tl_listing: print the names instead of running them */
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

/* Runs one test, unless a filter leaves it out; while listing, prints its name instead. A
 * program may define TL_AFTER_TEST(name) before including this file: called after each test. */
#ifndef TL_AFTER_TEST
#define TL_AFTER_TEST(name) ((void)0)
#endif
#define RUN(fn) do { \
    if (tl_listing) { printf("%s\n", #fn); } \
    else if (!tl_filter || strstr(#fn, tl_filter)) { tl_current = #fn; tl_ran++; fn(); TL_AFTER_TEST(#fn); } \
} while (0)

/* A filter that matches no test is a failure: a misspelt name must not pass as "0 failed". */
static inline int tl_summary(void) {
    if (tl_listing) return 0;
    if (tl_filter && tl_ran == 0) {
        fprintf(stderr, "no test name contains \"%s\" (--list names them)\n", tl_filter);
        return 2;
    }
    if (tl_filter) printf("%d passed, %d failed (%d tests whose name contains \"%s\")\n", tl_passed, tl_failed, tl_ran, tl_filter);
    else printf("%d passed, %d failed\n", tl_passed, tl_failed);
    return tl_failed == 0 ? 0 : 1;
}
#endif
