/* A user's store named by uid (passcode_user_*, what pam_passcode and passcodectl call): an
 * embedded handle has no users to name and answers NOT_IN_SERVICE_MODE with nothing changed;
 * through passcoded the caller's own uid is its own store, and another uid, setting a passcode,
 * clearing failures or removing one without it are refused to a caller that is not root. */
#include "api_support.h"
#include <unistd.h>

static int32_t failures_of(passcode_store *s) {
    int32_t n = -1;
    CHECK_STATUS(passcode_failed_attempts(s, &n), PASSCODE_OK);
    return n;
}

static void test_user_calls_bad_input_changes_nothing(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    uint32_t me = (uint32_t)getuid();
    passcode_event_log *log = NULL;
    CHECK_STATUS(passcode_user_state(NULL, me, NULL, NULL, NULL, NULL, NULL), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_user_verify(NULL, me, PC1, LEN), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_user_verify(s, me, NULL, LEN), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_user_remove(s, me, PC1, 0), PASSCODE_ERR_FORMAT);  /* digits with no length: not "without it" */
    CHECK_STATUS(passcode_user_event_log_new(s, me, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_user_event_log_new(NULL, me, &log), PASSCODE_ERR_INVALID_HANDLE);
    CHECK(log == NULL);
    CHECK(failures_of(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_user_calls_embedded_are_refused(void) {
    EMBEDDED_ONLY("the service answers them (test_user_calls_through_the_service)");
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    uint32_t me = (uint32_t)getuid();
    int32_t set = -1;
    passcode_event_log *log = NULL;
    CHECK_STATUS(passcode_user_state(s, me, &set, NULL, NULL, NULL, NULL), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK(set == -1);
    CHECK(strstr(passcode_errmsg(s), "service mode") != NULL);
    CHECK_STATUS(passcode_user_verify(s, me, PC2, LEN), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK_STATUS(passcode_user_set(s, me, PC2, LEN), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK_STATUS(passcode_user_change(s, me, PC1, LEN, PC2, LEN), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK_STATUS(passcode_user_remove(s, me, NULL, 0), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK_STATUS(passcode_user_reset(s, me), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK_STATUS(passcode_user_event_log_new(s, me, &log), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
    CHECK(log == NULL);
    /* Nothing was counted, changed or removed. */
    CHECK(failures_of(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_user_calls_through_the_service(void) {
    if (!service_backend) return;  /* the embedded side: test_user_calls_embedded_are_refused */
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    uint32_t me = (uint32_t)getuid();
    int32_t set = -1, reset = -1, len = -1;
    uint32_t fails = 99;
    int64_t lock = -1;
    CHECK_STATUS(passcode_user_state(s, me, &set, &fails, &lock, &reset, &len), PASSCODE_OK);
    CHECK(set == 1 && fails == 0 && lock == 0 && reset == 0 && len == LEN);
    CHECK_STATUS(passcode_user_verify(s, me, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures_of(s) == 1);
    CHECK_STATUS(passcode_user_verify(s, me, PC1, LEN), PASSCODE_OK);
    CHECK(failures_of(s) == 0);
    passcode_event_log *log = NULL;
    CHECK_STATUS(passcode_user_event_log_new(s, me, &log), PASSCODE_OK);
    CHECK(passcode_event_log_count(log) > 0);
    passcode_event_log_free(log);
    if (me != 0) {
        /* Another uid: nothing read, nothing counted. Root's calls: refused. */
        CHECK_STATUS(passcode_user_state(s, me + 1, &set, NULL, NULL, NULL, NULL), PASSCODE_ERR_PERMISSION);
        CHECK_STATUS(passcode_user_verify(s, me + 1, PC1, LEN), PASSCODE_ERR_PERMISSION);
        CHECK_STATUS(passcode_user_set(s, me, PC2, LEN), PASSCODE_ERR_PERMISSION);
        CHECK_STATUS(passcode_user_reset(s, me), PASSCODE_ERR_PERMISSION);
        CHECK_STATUS(passcode_user_remove(s, me, NULL, 0), PASSCODE_ERR_PERMISSION);
        CHECK(failures_of(s) == 0);
        CHECK_STATUS(passcode_user_remove(s, me, PC1, LEN), PASSCODE_OK);  /* with the passcode: its own */
        CHECK_STATUS(passcode_is_set(s, &set), PASSCODE_OK);
        CHECK(set == 0);
    }
    passcode_close(s);
}

void run_user_tests(void) {
    RUN(test_user_calls_bad_input_changes_nothing);
    RUN(test_user_calls_embedded_are_refused);
    RUN(test_user_calls_through_the_service);
}
