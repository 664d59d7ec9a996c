/* C API tests: the security event log and the failure summary. */
#include "api_support.h"

typedef struct { int32_t kind; int64_t wall_ms; char detail[128]; } entry;

/* The log, newest first, into out; returns the count. */
static size_t read_log(passcode_store *s, entry *out, size_t max) {
    passcode_event_log *log = NULL;
    if (passcode_event_log_new(s, &log) != PASSCODE_OK) return 0;
    size_t n = passcode_event_log_count(log);
    for (size_t i = 0; i < n && i < max; i++) {
        const char *d = NULL;
        CHECK_STATUS(passcode_event_log_get(log, i, &out[i].kind, &out[i].wall_ms, &d), PASSCODE_OK);
        snprintf(out[i].detail, sizeof out[i].detail, "%s", d ? d : "(null)");
    }
    passcode_event_log_free(log);
    return n;
}

static int count_kind(const entry *e, size_t n, int32_t kind) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += e[i].kind == kind;
    return c;
}

static void on_logout(void *p, int32_t r) { (void)p; (void)r; }
static void on_deleted(void *p) { (void)p; }

static void test_every_security_event_is_logged_without_secrets(void) {
    char path[512];
    static entry log[64];
    mailbox mail = {0};
    passcode_store *s = new_store(path, sizeof path);
    passcode_set_logout_callback(s, on_logout, NULL);
    passcode_set_account_deleted_callback(s, on_deleted, NULL);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    mailbox_attach(s, &mail);  /* the host's callback; in service mode passcoded's mail */
    int64_t first_failure = the_clock.wall_ms;
    for (int i = 0; i < 5; i++) { wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE); advance_ms(1000); }
    int64_t last_failure = the_clock.wall_ms - 1000;
    int32_t n = -1;
    int64_t when = -1;
    CHECK_STATUS(passcode_failure_summary(s, &n, &when), PASSCODE_OK);
    /* In service mode the time is passcoded's wall clock, not the test's. */
    if (service_backend) last_failure = when > 0 ? when : -2;
    CHECK(n == 5 && when == last_failure);  /* while locked: the failures since the last unlock */
    advance_ms(60000);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_failure_summary(s, &n, &when), PASSCODE_OK);
    CHECK(n == 5 && when == last_failure);  /* right after the unlock: what to tell the user */
    (void)first_failure;
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_failure_summary(s, &n, &when), PASSCODE_OK);
    CHECK(n == 0 && when == 0);  /* a clean unlock after that */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_OTHER), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_failed(s, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_disable(s, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_enable(s), PASSCODE_OK);
    CHECK_STATUS(request_code(s, &mail), PASSCODE_OK);
    /* passcoded sends no new code while one is pending: there the first one expires first. */
    advance_ms(service_backend ? 16 * 60 * 1000 : 61000);
    mail.fail = 1;
    CHECK_STATUS(request_code(s, &mail), DELIVERY_FAILED);
    mail.fail = 0;
    advance_ms(61000);
    CHECK_STATUS(request_code(s, &mail), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_complete(s, mail.code, strlen(mail.code), PC3, LEN), PASSCODE_OK);
    advance_ms(61000);
    CHECK_STATUS(request_code(s, &mail), PASSCODE_OK);
    CHECK(mail.handed == 4);
    advance_ms(16 * 60 * 1000);
    CHECK_STATUS(passcode_reset_check(s, mail.code, strlen(mail.code)), PASSCODE_ERR_RESET_CODE_EXPIRED);
    CHECK_STATUS(passcode_session_record(s, "other", "Phone", "Android", 1, NULL, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_session_sign_out(s, "other"), PASSCODE_OK);
    CHECK_STATUS(passcode_remove(s, PC3, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(s), PASSCODE_OK);
    size_t count = read_log(s, log, 64);
    CHECK(count > 20);
    CHECK(log[0].kind == PASSCODE_LOG_KIND_FORGOT_PASSCODE);  /* newest first */
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_FAILED_ATTEMPT) == 5);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_LOCKOUT_STARTED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_UNLOCKED_BY_PASSCODE) >= 2);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_BIOMETRIC_FAILED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_PASSCODE_SET) == 2);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_PASSCODE_CHANGED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_PASSCODE_DISABLED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_PASSCODE_ENABLED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_PASSCODE_REMOVED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_RESET_CODE_REQUESTED) == 4);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_RESET_CODE_DELIVERED) == 3);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_RESET_CODE_DELIVERY_FAILED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_RESET_COMPLETED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_RESET_CODE_EXPIRED) == 1);
    CHECK(count_kind(log, count, PASSCODE_LOG_KIND_SESSION_SIGNED_OUT) == 1);
    int saw_setting = 0, saw_lockout = 0;
    for (size_t i = 0; i < count; i++) {
        if (log[i].kind == PASSCODE_LOG_KIND_SETTING_CHANGED && !strcmp(log[i].detail, "auto_lock_seconds 900 -> 60")) saw_setting = 1;
        if (log[i].kind == PASSCODE_LOG_KIND_LOCKOUT_STARTED && !strcmp(log[i].detail, "60")) saw_lockout = 1;
        /* Nothing secret, ever: no passcode, no reset code. */
        CHECK(strstr(log[i].detail, PC1) == NULL && strstr(log[i].detail, PC2) == NULL && strstr(log[i].detail, PC3) == NULL);
        CHECK(mail.code[0] == 0 || strstr(log[i].detail, mail.code) == NULL);
        CHECK(strstr(log[i].detail, "argon") == NULL);
    }
    CHECK(saw_setting && saw_lockout);
    /* Deleting the account takes the log with it. */
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK);
    count = read_log(s, log, 64);
    CHECK(count == 1 && log[0].kind == PASSCODE_LOG_KIND_ACCOUNT_DELETED);
    passcode_close(s);
}

static void test_the_log_is_bounded(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    uint32_t none[] = {0};
    CHECK_STATUS(passcode_set_custom_schedule(s, none, 1, 0), PASSCODE_OK);
    for (int i = 0; i < 1200; i++) { wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE); advance_ms(1000); }
    passcode_event_log *log = NULL;
    CHECK_STATUS(passcode_event_log_new(s, &log), PASSCODE_OK);
    CHECK(passcode_event_log_count(log) == 1000);  /* the newest 1,000 */
    passcode_event_log_free(log);
    advance_ms(91LL * 86400 * 1000);
    wrong_guess(s, 5000, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_event_log_new(s, &log), PASSCODE_OK);
    CHECK(passcode_event_log_count(log) == 1);  /* and only the last 90 days */
    int32_t kind = -1;
    CHECK_STATUS(passcode_event_log_get(log, 1, &kind, NULL, NULL), PASSCODE_ERR_MISUSE);
    passcode_event_log_free(log);
    CHECK(passcode_event_log_count(NULL) == 0);
    CHECK_STATUS(passcode_event_log_get(NULL, 0, &kind, NULL, NULL), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_event_log_new(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_failure_summary(s, NULL, NULL), PASSCODE_ERR_MISUSE);
    passcode_close(s);
}

void run_events_tests(void) {
    RUN(test_every_security_event_is_logged_without_secrets);
    RUN(test_the_log_is_bounded);
}
