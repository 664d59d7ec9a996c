/* Pushed, not polled: two handles of the user's on one store (two bus connections), the
 * second changing it; the first's cached queries (answered from what passcoded pushed, with no
 * bus call) show each change at its next query after the signal arrived. Run by test_service.py
 * as area_push APP_ID GOOD. A handle whose copy were never refreshed would fail each check. */
#include "service_support.h"

#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The first handle's view, read until it shows `want` (the signal travels through the bus
 * daemon to the other connection: it may come a moment after the other handle's reply). */
#define SEEN(what, expr, want) do { \
        double t0_ = now_s(); int32_t v_ = -1; \
        for (;;) { v_ = (expr); if (v_ == (want) || now_s() - t0_ > 2.0) break; } \
        CHECK_MSG(v_ == (want), "%s: the first handle sees %d (want %d) after %.1f ms", what, v_, (int)(want), (now_s() - t0_) * 1e3); \
    } while (0)

static int32_t is_set(passcode_store *s) { int32_t v = -1; return passcode_is_set(s, &v) == PASSCODE_OK ? v : -2; }
static int32_t failures(passcode_store *s) { int32_t v = -1; return passcode_failed_attempts(s, &v) == PASSCODE_OK ? v : -2; }
static int32_t locked(passcode_store *s) { int32_t v = -1; return passcode_lock_state(s, &v, NULL) == PASSCODE_OK ? v : -2; }
static int32_t screen_failures(passcode_store *s) {
    passcode_lock_screen ls;
    memset(&ls, 0, sizeof ls);
    ls.size = sizeof ls;
    return passcode_lock_screen_read(s, &ls) == PASSCODE_OK ? ls.failed_attempts : -2;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: area_push APP_ID GOOD\n"); return 100; }
    const char *good = argv[2];
    passcode_status rc1, rc2;
    passcode_store *a = open_service(argv[1], &rc1), *b = open_service(argv[1], &rc2);
    CHECK_MSG(a && b, "two handles in service mode: %s %s", passcode_strerror(rc1), passcode_strerror(rc2));
    if (!a || !b) return 1;
    CHECK_MSG(is_set(a) == 0 && is_set(a) == 0, "a new store: no passcode (the first handle now watches it)");

    /* Cached: many queries in the time of a few bus calls. */
    double t = now_s();
    for (int i = 0; i < 2000; i++) (void)failures(a);
    double per = (now_s() - t) / 2000;
    printf("     a cached query through passcoded: %.2f us\n", per * 1e6);
    CHECK_MSG(per < 50e-6, "the first handle's queries are answered from the pushed copy (%.2f us each, a bus call takes hundreds)", per * 1e6);

    CHECK_STATUS(passcode_set(b, good, strlen(good)), PASSCODE_OK);
    SEEN("a passcode set by the other connection", is_set(a), 1);
    CHECK_STATUS(passcode_verify(b, "000001", 6), PASSCODE_ERR_WRONG_PASSCODE);
    SEEN("a wrong passcode on the other connection", failures(a), 1);
    SEEN("...in lock_screen_read too", screen_failures(a), 1);
    CHECK_STATUS(passcode_event_report(b, PASSCODE_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    SEEN("a lock by the other connection", locked(a), 1);
    CHECK_STATUS(passcode_verify(b, good, strlen(good)), PASSCODE_OK);
    SEEN("an unlock by the other connection", locked(a), 0);
    SEEN("...and its failures cleared", failures(a), 0);
    /* The handle's own change: its reply comes after its signal, so no wait at all. */
    CHECK_STATUS(passcode_verify(a, "000002", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_MSG(failures(a) == 1 && screen_failures(a) == 1, "the handle's own wrong passcode shows at its very next query");
    SEEN("...and on the other connection", failures(b), 1);
    CHECK_STATUS(passcode_verify(a, good, strlen(good)), PASSCODE_OK);
    CHECK_MSG(failures(a) == 0, "...cleared by its own unlock at once");
    /* Removed by the other connection: the first sees a store without a passcode. */
    CHECK_STATUS(passcode_store_remove(b, good, strlen(good)), PASSCODE_OK);
    SEEN("the store removed by the other connection", is_set(a), 0);
    passcode_close(b);
    passcode_close(a);
    return tl_failures_status();
}
