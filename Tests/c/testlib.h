/* The C tests' one harness: the CHECK family, its counters and its report. Every C test program
 * (Tests/c, Tests/service, Tests/abi, Tests/fuzz/hostile_store.c, Tests/compat, in C and C++)
 * checks through these:
 *
 *   CHECK(cond)                 a condition, reported by its own text
 *   CHECK_MSG(cond, fmt, ...)   a condition, reported by a message (printf's format)
 *   CHECK_STATUS(expr, want)    a passcode_status, both names shown when they differ
 *   FAIL_MSG(fmt, ...)          a failure seen another way (counted and reported as a failed check)
 *   REQUIRE(cond, fmt, ...)     CHECK_MSG, and on failure the program stops: abort(), so that a
 *                               sanitizer or a debugger shows where
 *
 * Each counts one check passed or failed. A failure prints "FAIL test (file:line): what" on
 * stderr (the test's name when RUN runs it). A program that defines TESTLIB_EVERY_CHECK before
 * it includes this file prints every check instead, on stdout and flushed: "ok   what" or
 * "FAIL what" (the lines Tests/service/test_service.py counts from the programs it runs).
 * tl_summary() ends a program: "N passed, N failed", and its exit status (0, 1, or 2 when a
 * filter named no test). */
#ifndef TESTLIB_H
#define TESTLIB_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

#if defined(__GNUC__)
#define TL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TL_PRINTF(f, a)
#endif

/* Counts one check and reports it; returns ok. */
static inline int tl_vreport(int ok, const char *file, int line, const char *format, va_list ap) {
    if (ok) tl_passed++;
    else tl_failed++;
#ifdef TESTLIB_EVERY_CHECK
    (void)file; (void)line; (void)tl_current;
    fputs(ok ? "ok   " : "FAIL ", stdout);
    vprintf(format, ap);
    fputc('\n', stdout);
    fflush(stdout);
#else
    if (!ok) {
        if (tl_current && *tl_current) fprintf(stderr, "FAIL %s (%s:%d): ", tl_current, file, line);
        else fprintf(stderr, "FAIL %s:%d: ", file, line);
        vfprintf(stderr, format, ap);
        fputc('\n', stderr);
    }
#endif
    return ok;
}

static inline int tl_report(int ok, const char *file, int line, const char *format, ...) TL_PRINTF(4, 5);
static inline int tl_report(int ok, const char *file, int line, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    ok = tl_vreport(ok, file, line, format, ap);
    va_end(ap);
    return ok;
}

/* A status check: the names come from passcode_strerror at the call site (this file needs no
 * passcode.h, so that a program built against an older header can use it too). */
static inline int tl_status(int32_t got, int32_t want, const char *file, int line, const char *expr,
                            const char *got_name, const char *want_name) {
    if (got == want) return tl_report(1, file, line, "%s -> %s (as documented)", expr, got_name);
    return tl_report(0, file, line, "%s returned %d (%s), wanted %d (%s)", expr, (int)got, got_name, (int)want, want_name);
}

#define CHECK(cond) ((void)tl_report((cond) ? 1 : 0, __FILE__, __LINE__, "%s", #cond))
#define CHECK_MSG(cond, ...) ((void)tl_report((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__))
#define CHECK_STATUS(expr, want) do { \
    int32_t tl_got = (int32_t)(expr), tl_want = (int32_t)(want); \
    tl_status(tl_got, tl_want, __FILE__, __LINE__, #expr, passcode_strerror((passcode_status)tl_got), \
              passcode_strerror((passcode_status)tl_want)); \
} while (0)
#define FAIL_MSG(...) ((void)tl_report(0, __FILE__, __LINE__, __VA_ARGS__))
#define REQUIRE(cond, ...) do { \
    if (!tl_report((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)) { fflush(NULL); abort(); } \
} while (0)

/* The exit status of a program whose failures are its status (at most 100, as test_service.py
 * reads it). */
static inline int tl_failures_status(void) { return tl_failed > 100 ? 100 : tl_failed; }

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
