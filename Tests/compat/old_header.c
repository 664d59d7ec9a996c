/* A program written and built against the 0.6.1 header (Tests/fixtures/header-0.6.1/passcode.h,
 * as released), run against this library: the typed header and the new enum names change
 * nothing a built program sees. Exit 0 and one line on success. */
#include <passcode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../c/testlib.h"

int main(void) {
    char dir[] = "/tmp/passcode-old-header-XXXXXX", path[128];
    if (!mkdtemp(dir)) return 2;
    snprintf(path, sizeof path, "%s/store.db", dir);
    passcode_options *o = NULL;
    CHECK(passcode_options_new(&o) == PASSCODE_OK);
    CHECK(passcode_options_set_cost(o, PASSCODE_COST_INTERACTIVE) == PASSCODE_OK);
    CHECK(passcode_options_set_cost_explicit(o, 1, 8192) == PASSCODE_OK);
    passcode_store *s = NULL;
    CHECK(passcode_open(path, o, &s) == PASSCODE_OK);
    passcode_options_free(o);
    CHECK(passcode_set(s, "386491", 6) == PASSCODE_OK);
    CHECK(passcode_verify(s, "111111", 6) == PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(strcmp(passcode_strerror(PASSCODE_ERR_WRONG_PASSCODE), "incorrect passcode") == 0);
    int32_t locked = -1, reason = -1, value = -1;
    CHECK(passcode_event_report(s, PASSCODE_EVENT_LOCK_NOW, &locked) == PASSCODE_OK);
    CHECK(passcode_lock_state(s, &locked, &reason) == PASSCODE_OK && locked == 1 && reason == PASSCODE_LOCK_REASON_REQUESTED);
    CHECK(passcode_verify(s, "386491", 6) == PASSCODE_OK);
    int64_t v = 0;
    CHECK(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60) == PASSCODE_OK);
    CHECK(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v) == PASSCODE_OK && v == 60);
    CHECK(passcode_setting_weakens(PASSCODE_SETTING_LOCK_AT_LAUNCH, 1, 0, &value) == PASSCODE_OK && value == 1);
    CHECK(passcode_setting_get(s, (passcode_setting)99, &v) == PASSCODE_ERR_MISUSE);
    passcode_flow *f = NULL;
    CHECK(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f) == PASSCODE_OK);
    passcode_flow_free(f);
    passcode_event_log *log = NULL;
    CHECK(passcode_event_log_new(s, &log) == PASSCODE_OK);
    size_t n = passcode_event_log_count(log);
    int32_t kind = -1, saw_failure = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(passcode_event_log_get(log, i, &kind, NULL, NULL) == PASSCODE_OK);
        if (kind == PASSCODE_SECURITY_EVENT_FAILED_ATTEMPT) saw_failure = 1;
    }
    CHECK(saw_failure);
    passcode_event_log_free(log);
    CHECK(passcode_version_number() >= 600);
    passcode_close(s);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_MSG(system(cmd) == 0, "the temporary folder is removed");
    if (tl_failed) { fprintf(stderr, "old header: %d checks failed\n", tl_failed); return 1; }
    printf("compat: a program built against the 0.6.1 header runs against libpasscode %s\n", passcode_version_string());
    return 0;
}
