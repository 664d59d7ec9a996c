/* The account area in service mode (run by test_service.py as `area_account APP_ID GOOD`, as a
 * test user): reset by code (all but the request, which stays refused), the recovery key, the
 * password-change check, deleting the account and device sessions. Every sequence runs on an
 * embedded store in a temp folder (at the test service's Argon2id cost) and through passcoded:
 * each call's status is asserted on both, and the two transcripts (statuses, messages, values)
 * must be the same line for line. Effects are read back, also from a second service handle. */
#include "service_support.h"

#include <stdarg.h>
#include <unistd.h>

#define LINES 256
typedef struct {
    char line[LINES][600];
    int n;
} transcript;

static const char *good;
static const char *label;     /* "embedded" or "service" */
static transcript *out;
static passcode_store *(*reopen)(void);

static void note(const char *fmt, ...) {
    if (out->n >= LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->line[out->n++], sizeof out->line[0], fmt, ap);
    va_end(ap);
}

/* Runs `call` on store `s`, checks its status is `want`, and writes "call -> status message". */
#define STEP(s, call, want) do { \
        passcode_status got_ = (call); \
        CHECK_MSG(got_ == (want), "%s: %s -> %s (%s)", label, #call, passcode_strerror(got_), \
                  got_ == (want) ? "as documented" : passcode_strerror(want)); \
        note("%s -> %d %s", #call, (int)got_, got_ == PASSCODE_OK ? "" : passcode_errmsg(s)); \
    } while (0)

static int delivered;  /* reset codes handed to this process */
static int32_t deliver(void *payload, const char *code, size_t length, char *message, size_t size) {
    (void)payload; (void)code; (void)length; (void)message; (void)size;
    delivered++;
    return 0;
}

static int32_t value(passcode_status (*get)(passcode_store *, int32_t *), passcode_store *s) {
    int32_t v = -1;
    get(s, &v);
    return v;
}

/* Prints the sessions into the transcript, and returns how many. */
static size_t list_sessions(passcode_store *s) {
    passcode_session_list *list = NULL;
    STEP(s, passcode_session_list_new(s, &list), PASSCODE_OK);
    size_t n = passcode_session_list_count(list);
    note("sessions: %zu", n);
    for (size_t i = 0; i < n; i++) {
        const char *id = NULL, *device = NULL, *platform = NULL, *location = NULL;
        int64_t last = 0;
        int32_t current = -1;
        passcode_status rc = passcode_session_list_get(list, i, &id, &device, &platform, &last, &location, &current);
        note("  %zu: rc %d id=%s device=%s platform=%s last=%lld location=%s%s%s current=%d", i, (int)rc, id, device, platform,
             (long long)last, location ? "\"" : "", location ? location : "(none)", location ? "\"" : "", (int)current);
    }
    passcode_session_list_get(list, n, NULL, NULL, NULL, NULL, NULL, NULL) == PASSCODE_ERR_MISUSE ? note("  past the end: misuse")
                                                                                                 : note("  past the end: ?");
    passcode_session_list_free(list);
    return n;
}

static void sequence(passcode_store *s) {
    size_t good_len = strlen(good);
    int32_t v = -1;
    int64_t secs = -1;
    STEP(s, passcode_set(s, good, good_len), PASSCODE_OK);

    /* ---- Reset by code: nothing requested, so no code is pending ---- */
    STEP(s, passcode_reset_retry_after(s, &secs), PASSCODE_OK);
    CHECK_MSG(secs == 0, "%s: no request yet: retry after %lld s", label, (long long)secs);
    note("retry after %lld", (long long)secs);
    STEP(s, passcode_reset_retry_after(s, NULL), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_reset_pending(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 0, "%s: no code pending", label);
    note("pending %d", (int)v);
    STEP(s, passcode_reset_check(s, "1234567", 7), PASSCODE_ERR_FORMAT);
    STEP(s, passcode_reset_check(s, "1234567a", 8), PASSCODE_ERR_FORMAT);
    /* Exact bytes: a NUL inside the code is no digit (a string would end there, at 8 digits). */
    STEP(s, passcode_reset_check(s, "12345678\0" "9", 9), PASSCODE_ERR_FORMAT);
    STEP(s, passcode_reset_check(s, "12345678", 8), PASSCODE_ERR_NO_RESET_CODE);
    STEP(s, passcode_reset_check(s, NULL, 8), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_reset_complete(s, "12345678", 8, "12345", 5), PASSCODE_ERR_FORMAT);
    STEP(s, passcode_reset_complete(s, "12345678", 8, "111111", 6), PASSCODE_ERR_WEAK_PASSCODE);
    STEP(s, passcode_reset_complete(s, "12345678", 8, "739258", 6), PASSCODE_ERR_NO_RESET_CODE);
    STEP(s, passcode_reset_complete(s, "1234", 4, "739258", 6), PASSCODE_ERR_FORMAT);
    uint8_t rk[32], other[32];
    for (int i = 0; i < 32; i++) { rk[i] = (uint8_t)(i * 7 + 1); other[i] = (uint8_t)(255 - i); }
    STEP(s, passcode_reset_complete_with_recovery_key(s, "12345678", 8, "739258", 6, rk, 16), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_reset_complete_with_recovery_key(s, "12345678", 8, "739258", 6, NULL, 32), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_reset_complete_with_recovery_key(s, "12345678", 8, "739258", 6, rk, 32), PASSCODE_ERR_NO_RESET_CODE);
    STEP(s, passcode_reset_complete_with_recovery_key(s, "12345678", 8, "111111", 6, rk, 32), PASSCODE_ERR_WEAK_PASSCODE);
    passcode_is_set(s, &v);
    CHECK_MSG(v == 1, "%s: the failed resets changed no passcode", label);
    STEP(s, passcode_verify(s, good, good_len), PASSCODE_OK);

    /* ---- The recovery key ---- */
    STEP(s, passcode_has_recovery_key(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 0, "%s: no recovery key yet", label);
    note("has recovery key %d", (int)v);
    STEP(s, passcode_has_recovery_key(s, NULL), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_set_recovery_key(s, rk, 31), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_set_recovery_key(s, rk, 33), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_set_recovery_key(s, NULL, 32), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_has_recovery_key(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 0, "%s: wrong lengths set no recovery key", label);
    /* A handle that has not seen the passcode has no data key to wrap. */
    passcode_store *fresh = reopen();
    CHECK_MSG(fresh != NULL, "%s: a second handle", label);
    if (fresh) {
        STEP(fresh, passcode_set_recovery_key(fresh, rk, 32), PASSCODE_ERR_KEY_NOT_RELEASED);
        STEP(fresh, passcode_has_recovery_key(fresh, &v), PASSCODE_OK);
        CHECK_MSG(v == 0, "%s: no recovery key from a handle without the key", label);
        STEP(fresh, passcode_verify(fresh, "000001", 6), PASSCODE_ERR_WRONG_PASSCODE);
        STEP(fresh, passcode_set_recovery_key(fresh, rk, 32), PASSCODE_ERR_KEY_NOT_RELEASED);
        STEP(fresh, passcode_verify(fresh, good, good_len), PASSCODE_OK);
        STEP(fresh, passcode_set_recovery_key(fresh, other, 32), PASSCODE_OK);
        passcode_close(fresh);
    }
    STEP(s, passcode_has_recovery_key(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 1, "%s: the other handle's recovery key is the store's", label);
    STEP(s, passcode_clear_recovery_key(s), PASSCODE_OK);
    STEP(s, passcode_has_recovery_key(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 0, "%s: cleared", label);
    STEP(s, passcode_set_recovery_key(s, rk, 32), PASSCODE_OK);  /* this handle verified above */
    STEP(s, passcode_has_recovery_key(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 1, "%s: set", label);
    note("has recovery key %d", (int)v);
    fresh = reopen();
    if (fresh) {
        STEP(fresh, passcode_has_recovery_key(fresh, &v), PASSCODE_OK);
        CHECK_MSG(v == 1, "%s: a second handle sees the recovery key", label);
        passcode_close(fresh);
    }
    /* A reset code is still needed, recovery key or not. */
    STEP(s, passcode_reset_complete_with_recovery_key(s, "12345678", 8, "739258", 6, other, 32), PASSCODE_ERR_NO_RESET_CODE);

    /* ---- The password-change check ---- */
    int64_t changed = -1;
    passcode_setting_get(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE, &changed);
    CHECK_MSG(changed == 0, "%s: no password change recorded yet (%lld)", label, (long long)changed);
    STEP(s, passcode_password_change_check(s, NULL, 0, "newpassword", 11, "newpassword", 11), PASSCODE_ERR_PASSWORD_EMPTY);
    STEP(s, passcode_password_change_check(s, "", 0, "newpassword", 11, "newpassword", 11), PASSCODE_ERR_PASSWORD_EMPTY);
    STEP(s, passcode_password_change_check(s, NULL, 3, "newpassword", 11, "newpassword", 11), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_password_change_check(s, "old", 3, "short", 5, "short", 5), PASSCODE_ERR_PASSWORD_TOO_SHORT);
    char longer[300];
    memset(longer, 'x', sizeof longer);
    STEP(s, passcode_password_change_check(s, "old", 3, longer, 257, longer, 257), PASSCODE_ERR_PASSWORD_TOO_LONG);
    STEP(s, passcode_password_change_check(s, "old", 3, longer, 256, longer, 255), PASSCODE_ERR_PASSWORD_MISMATCH);
    STEP(s, passcode_password_change_check(s, "old", 3, "new\xff" "password", 12, "new\xff" "password", 12), PASSCODE_ERR_FORMAT);
    STEP(s, passcode_password_change_check(s, "o\xc3", 2, "newpassword", 11, "newpassword", 11), PASSCODE_ERR_FORMAT);
    /* Exact bytes: a NUL is no password character (a string would end before it, and pass). */
    STEP(s, passcode_password_change_check(s, "old", 3, "password\0A", 10, "password\0A", 10), PASSCODE_ERR_FORMAT);
    passcode_setting_get(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE, &changed);
    CHECK_MSG(changed == 0, "%s: no refused check recorded a change", label);
    STEP(s, passcode_password_change_check(s, "old", 3, "p\xc3\xa4ssword-A", 11, "p\xc3\xa4ssword-A", 11), PASSCODE_OK);
    STEP(s, passcode_setting_get(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE, &changed), PASSCODE_OK);
    CHECK_MSG(changed > 1700000000000LL, "%s: the change is recorded (%lld ms)", label, (long long)changed);

    /* ---- Device sessions ---- */
    list_sessions(s);
    STEP(s, passcode_session_record(s, "s1", "iPad Pro", "iPadOS", 1000, "London, UK", 1), PASSCODE_OK);
    STEP(s, passcode_session_record(s, "s2", "Pixel", "Android", 3000, NULL, 0), PASSCODE_OK);
    STEP(s, passcode_session_record(s, "s3", "Mac", "macOS", 2000, "", 0), PASSCODE_OK);
    STEP(s, passcode_session_record(s, "", "Mac", "macOS", 2000, NULL, 0), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_session_record(s, NULL, "Mac", "macOS", 2000, NULL, 0), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_session_record(s, "s9", "Mac", "macOS", 2000, NULL, 2), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_session_record(s, "s9", "Mac\xff", "macOS", 2000, NULL, 0), PASSCODE_ERR_FORMAT);
    char big[600];
    memset(big, 'd', sizeof big - 1);
    big[sizeof big - 1] = 0;
    big[257] = 0;  /* 257 bytes: over the core's 256, under the C API's 1024 */
    STEP(s, passcode_session_record(s, "s9", big, "macOS", 2000, NULL, 0), PASSCODE_ERR_MISUSE);
    big[257] = 'd';  /* 599 bytes */
    STEP(s, passcode_session_record(s, "s9", "Mac", "macOS", 2000, big, 0), PASSCODE_ERR_MISUSE);
    big[256] = 0;  /* exactly 256 */
    STEP(s, passcode_session_record(s, big, "Mac", "macOS", 2000, big, 0), PASSCODE_OK);
    STEP(s, passcode_session_sign_out(s, big), PASSCODE_OK);
    size_t n = list_sessions(s);
    CHECK_MSG(n == 3, "%s: three sessions recorded (%zu)", label, n);
    fresh = reopen();
    if (fresh) {
        size_t again = list_sessions(fresh);
        CHECK_MSG(again == 3, "%s: a second handle lists them too", label);
        passcode_close(fresh);
    }
    STEP(s, passcode_session_list_new(s, NULL), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_session_record(s, "s2", "Pixel 9", "Android", 4000, "Paris", 1), PASSCODE_OK);  /* update, now current */
    list_sessions(s);
    STEP(s, passcode_session_sign_out(s, "s2"), PASSCODE_ERR_SESSION_IS_CURRENT);
    STEP(s, passcode_session_sign_out(s, "nope"), PASSCODE_ERR_SESSION_NOT_FOUND);
    STEP(s, passcode_session_sign_out(s, NULL), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_session_sign_out(s, "s1"), PASSCODE_OK);
    STEP(s, passcode_session_sign_out(s, "s1"), PASSCODE_ERR_SESSION_NOT_FOUND);
    STEP(s, passcode_session_record(s, "s4", "Laptop", "Linux", 5000, NULL, 0), PASSCODE_OK);
    STEP(s, passcode_session_record(s, "s5", "Phone", "Linux", 6000, "Berlin", 0), PASSCODE_OK);
    n = list_sessions(s);
    CHECK_MSG(n == 4, "%s: four sessions before signing out the others", label);
    int32_t count = -1;
    STEP(s, passcode_session_sign_out_others(s, &count), PASSCODE_OK);
    CHECK_MSG(count == 3, "%s: three others signed out (%d)", label, (int)count);
    note("signed out %d", (int)count);
    n = list_sessions(s);
    CHECK_MSG(n == 1, "%s: only this device's session stays", label);
    STEP(s, passcode_session_sign_out_others(s, NULL), PASSCODE_OK);
    STEP(s, passcode_session_sign_out_others(s, &count), PASSCODE_OK);
    CHECK_MSG(count == 0, "%s: none left to sign out", label);

    /* ---- Forgot, delete account: refused without the callbacks, nothing touched ---- */
    STEP(s, passcode_forgot(s), PASSCODE_ERR_CALLBACK_REQUIRED);
    STEP(s, passcode_delete_account(s, "delete"), PASSCODE_ERR_CONFIRMATION_MISMATCH);
    STEP(s, passcode_delete_account(s, "DELETE "), PASSCODE_ERR_CONFIRMATION_MISMATCH);
    STEP(s, passcode_delete_account(s, NULL), PASSCODE_ERR_MISUSE);
    STEP(s, passcode_delete_account(s, "DELETE"), PASSCODE_ERR_CALLBACK_REQUIRED);
    CHECK_MSG(value(passcode_is_set, s) == 1, "%s: the passcode stays", label);
    STEP(s, passcode_has_recovery_key(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 1, "%s: the recovery key stays", label);
    n = list_sessions(s);
    CHECK_MSG(n == 1, "%s: the session stays", label);

    /* ---- Reset requests: in service mode passcoded mails them (no code reaches the host) ---- */
    int before = delivered;
    for (int i = 0; i < 5; i++) passcode_reset_request(s);
    note("requests: %d codes delivered", delivered - before);
    STEP(s, passcode_reset_pending(s, &v), PASSCODE_OK);
    note("pending after requests %d", (int)v);
}

static char folder[64];
static passcode_store *open_embedded(void) {
    char path[128];
    snprintf(path, sizeof path, "%s/account.db", folder);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *s = NULL;
    passcode_status rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (rc != PASSCODE_OK) printf("     embedded open: %s: %s\n", passcode_strerror(rc), passcode_errmsg(NULL));
    return s;
}

static const char *app;
static passcode_store *open_again(void) {
    passcode_status rc;
    return open_service(app, &rc);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: area_account APP_ID GOOD\n"); return 100; }
    app = argv[1];
    good = argv[2];
    static transcript embedded_log, service_log;

    /* Embedded, in a temp folder, at the test service's cost. */
    snprintf(folder, sizeof folder, "/tmp/pct-account-XXXXXX");
    CHECK_MSG(mkdtemp(folder) != NULL, "a temp folder for the embedded store");
    passcode_store *e = open_embedded();
    CHECK_MSG(e != NULL, "embedded store opened");
    if (!e) return 1;
    label = "embedded";
    out = &embedded_log;
    reopen = open_embedded;
    sequence(e);

    /* The same through passcoded. */
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open in service mode: %s", passcode_strerror(rc));
    if (!s) return 1;
    label = "service";
    out = &service_log;
    reopen = open_again;
    sequence(s);

    /* The two transcripts, line for line. */
    CHECK_MSG(embedded_log.n == service_log.n && embedded_log.n > 100, "both transcripts have %d lines (service %d)", embedded_log.n,
              service_log.n);
    int same = 0;
    for (int i = 0; i < embedded_log.n && i < service_log.n; i++) {
        if (strcmp(embedded_log.line[i], service_log.line[i]) == 0) { same++; continue; }
        CHECK_MSG(0, "line %d differs:\n       embedded: %s\n       service:  %s", i, embedded_log.line[i], service_log.line[i]);
    }
    CHECK_MSG(same == embedded_log.n, "the service gave the embedded store's statuses, messages and values: %d of %d lines the same",
              same, embedded_log.n);

    /* Reset requests in service mode: passcoded's to mail, and test-service's default
     * configuration names no relay: N asked, no code handed out, the reset state unchanged. */
    int32_t pending = -1;
    int64_t wait = -1;
    int refused = 0;
    for (int i = 0; i < 20; i++) {
        passcode_status r1 = passcode_set_reset_delivery_callback(s, deliver, NULL);
        passcode_status r2 = passcode_reset_request(s);
        refused += r1 == PASSCODE_ERR_REFUSED_IN_SERVICE_MODE && r2 == PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE;
    }
    CHECK_MSG(refused == 20 && delivered == 0, "20 reset requests (and delivery callbacks) refused: %d codes handed out", delivered);
    CHECK_MSG(strstr(passcode_errmsg(s), "mail relay") != NULL, "the refusal says no mail relay is configured: %s", passcode_errmsg(s));
    STEP(s, passcode_reset_pending(s, &pending), PASSCODE_OK);
    STEP(s, passcode_reset_retry_after(s, &wait), PASSCODE_OK);
    CHECK_MSG(pending == 0 && wait == 0, "no code pending, no request counted (retry after %lld s)", (long long)wait);
    /* Embedded, the same request does make and deliver a code: the check above can see one. */
    out = &embedded_log;
    label = "embedded";
    STEP(e, passcode_set_reset_delivery_callback(e, deliver, NULL), PASSCODE_OK);
    STEP(e, passcode_reset_request(e), PASSCODE_OK);
    passcode_reset_pending(e, &pending);
    passcode_reset_retry_after(e, &wait);
    CHECK_MSG(delivered == 1 && pending == 1 && wait > 0, "embedded, a request delivers a code (%d), pending %d, retry after %lld s",
              delivered, (int)pending, (long long)wait);

    passcode_close(s);
    passcode_close(e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", folder);
    if (system(cmd) != 0) printf("     could not remove %s\n", folder);
    return tl_failures_status();
}
