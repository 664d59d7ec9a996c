/* Shared by the service tests in C (Tests/service/area_*.c and the clients): a store opened in
 * service mode, and the service's clock moved by the test. Their checks are Tests/c/testlib.h's,
 * each printed as a line "ok   ..." or "FAIL ..." (TESTLIB_EVERY_CHECK), which test_service.py
 * counts; a program's exit status is its failed checks (tl_failures_status). The area programs
 * run as a test user against the passcoded that Tests/service/test_service.py starts on its
 * private bus, with `area_NAME APP_ID GOOD_PASSCODE`; a line "LOCKED <seconds>" asks the test to
 * move the service's clock by that much (root's file) and to answer with a line on stdin. */
#ifndef SERVICE_SUPPORT_H
#define SERVICE_SUPPORT_H
#include <passcode.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESTLIB_EVERY_CHECK
#include "../c/testlib.h"

/* Opens `id` in service mode; NULL on failure (the status in *rc). */
static inline passcode_store *open_service(const char *id, passcode_status *rc) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_service(o, id);
    passcode_store *s = NULL;
    *rc = passcode_open("/nonexistent/ignored-in-service-mode", o, &s);
    passcode_options_free(o);
    return s;
}

/* Asks test_service.py to move the service's clock `seconds` forward, and waits until it has. */
static inline void move_service_clock(int64_t seconds) {
    printf("LOCKED %lld\n", (long long)seconds);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) exit(100);
}
#endif
