/* C API tests: reset codes, flows, host callbacks, account. */
#include "api_support.h"

/* ---- reset codes, flows, hooks, account --------------------------------------------------- */

typedef struct { char code[16]; int calls; int fail; int notices; int logouts; int deleted; char last_key[64]; } host_state;

static int32_t deliver_cb(void *payload, const char *code, size_t length, char *message, size_t message_size) {
    host_state *h = payload;
    h->calls++;
    if (h->fail) { snprintf(message, message_size, "mail server down"); return 1; }
    if (length < sizeof h->code) { memcpy(h->code, code, length); h->code[length] = 0; }
    return strlen(code) == length ? 0 : 1;
}
static void notice_cb(void *payload, int32_t notice) { if (notice == PASSCODE_NOTICE_PASSCODE_RESET) ((host_state *)payload)->notices++; }
static void logout_cb(void *payload, int32_t reason) { if (reason == PASSCODE_LOGOUT_REASON_FORGOT_PASSCODE) ((host_state *)payload)->logouts++; }
static void deleted_cb(void *payload) { ((host_state *)payload)->deleted++; }
static int32_t settings_cb(void *payload, const char *key, const char *old_value, const char *new_value, char *message, size_t size) {
    host_state *h = payload;
    snprintf(h->last_key, sizeof h->last_key, "%s", key);
    (void)old_value;
    if (h->fail) { snprintf(message, size, "backend said no (%s)", new_value); return 1; }
    return 0;
}
static int32_t session_cb(void *payload, const char *id, char *message, size_t size) {
    (void)payload;
    if (strcmp(id, "mac") == 0) { snprintf(message, size, "cannot revoke"); return 1; }
    return 0;
}

/* passcode_reset_request with the host's callback (h), or in service mode passcoded's mail (m):
 * h->code is then the code the mail held, and the host's callback is never called. */
static int32_t ask_code(passcode_store *s, host_state *h, mailbox *m) {
    if (!service_backend) return passcode_reset_request(s);
    m->fail = h->fail;
    int32_t rc = request_code(s, m);
    if (rc == PASSCODE_OK) snprintf(h->code, sizeof h->code, "%s", m->code);
    CHECK(h->calls == 0);
    return rc;
}

static void test_reset_code_through_the_c_api(void) {
    char path[512];
    host_state h;
    mailbox m = {0};
    memset(&h, 0, sizeof h);
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    if (service_backend) {
        /* Nowhere to mail it yet: passcoded's own status, nothing counted. */
        CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE);
        CHECK(strstr(passcode_errmsg(s), "recipient") != NULL);
        CHECK_STATUS(passcode_set_reset_delivery_callback(s, deliver_cb, &h), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
        mailbox_attach(s, &m);
    } else {
        CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_STATE);  /* no delivery callback */
        CHECK_STATUS(passcode_set_reset_delivery_callback(s, deliver_cb, &h), PASSCODE_OK);
    }
    CHECK_STATUS(passcode_set_notice_callback(s, notice_cb, &h), PASSCODE_OK);
    h.fail = 1;
    CHECK_STATUS(ask_code(s, &h, &m), DELIVERY_FAILED);
    /* The host's message; in service mode passcoded's, which points to "forgot passcode". */
    CHECK(service_backend ? strstr(passcode_errmsg(s), "forgot passcode") != NULL : strcmp(passcode_errmsg(s), "mail server down") == 0);
    int32_t pending = -1;
    CHECK_STATUS(passcode_reset_pending(s, &pending), PASSCODE_OK);
    CHECK(pending == 0);
    h.fail = 0;
    advance_ms(61000);
    CHECK_STATUS(ask_code(s, &h, &m), PASSCODE_OK);
    CHECK(strlen(h.code) == 8);
    if (service_backend) {
        /* passcoded sends no second code while one is pending: nothing sent, nothing spent. */
        CHECK_STATUS(request_while_pending(s, &m), PASSCODE_OK);
    } else {
        CHECK_STATUS(ask_code(s, &h, &m), PASSCODE_ERR_RATE_LIMITED);
        CHECK(strstr(passcode_errmsg(s), "60 seconds") != NULL);
    }
    int64_t retry = -1;
    CHECK_STATUS(passcode_reset_retry_after(s, &retry), PASSCODE_OK);
    CHECK(retry == 60);
    CHECK_STATUS(passcode_reset_retry_after(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK(strstr(passcode_errmsg(s), h.code) == NULL);
    /* Lock out the passcode: the reset still works and clears it. */
    for (int i = 0; i < 5; i++) wrong_guess(s, i + 40, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(lockout(s) == 60);
    CHECK_STATUS(passcode_reset_check(s, "1234567", 7), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_reset_check(s, NULL, 8), PASSCODE_ERR_MISUSE);
    char wrong[9];
    memcpy(wrong, h.code, 9);
    wrong[0] = wrong[0] == '9' ? '0' : (char)(wrong[0] + 1);
    CHECK_STATUS(passcode_reset_check(s, wrong, 8), PASSCODE_ERR_WRONG_RESET_CODE);
    CHECK(strstr(passcode_errmsg(s), "4 more tries") != NULL);
    CHECK(failures(s) == 5);  /* code tries never count against the passcode */
    CHECK_STATUS(passcode_reset_check(s, h.code, 8), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_complete(s, h.code, 8, "111111", 6), PASSCODE_ERR_WEAK_PASSCODE);
    CHECK_STATUS(passcode_reset_complete(s, h.code, 8, PC2, LEN), PASSCODE_OK);
    CHECK(h.notices == 1);
    CHECK(failures(s) == 0 && lockout(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_complete(s, h.code, 8, PC3, LEN), PASSCODE_ERR_NO_RESET_CODE);
    /* Expiry on the host clock. */
    advance_ms(61000);
    CHECK_STATUS(ask_code(s, &h, &m), PASSCODE_OK);
    advance_ms(900000);
    CHECK_STATUS(passcode_reset_check(s, h.code, 8), PASSCODE_ERR_RESET_CODE_EXPIRED);
    /* Forgot passcode. */
    CHECK_STATUS(passcode_set_logout_callback(s, logout_cb, &h), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(s), PASSCODE_OK);
    CHECK(h.logouts == 1);
    int32_t v = 1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    CHECK_STATUS(passcode_forgot(NULL), PASSCODE_ERR_INVALID_HANDLE);
    passcode_close(s);
}

static void type_digits(passcode_flow *f, const char *digits) {
    for (const char *p = digits; *p; p++) passcode_flow_digit(f, *p - '0');
}

static void test_flows_through_the_c_api(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    passcode_flow *f = NULL;
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_ERR_NO_PASSCODE);
    CHECK(f == NULL);
    CHECK_STATUS(passcode_flow_new(s, 9, &f), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CREATE, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CREATE, &f), PASSCODE_OK);
    const char *text = NULL;
    int32_t step = -1, result = -1, filled = -1, length = -1, shakes = -1, status = -1;
    CHECK_STATUS(passcode_flow_prompt(f, &text), PASSCODE_OK);
    CHECK(strcmp(text, "Enter a passcode") == 0);
    CHECK_STATUS(passcode_flow_digit(f, 3), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_digit(f, 10), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_digit(f, -1), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_dots(f, &filled, &length), PASSCODE_OK);
    CHECK(filled == 1 && length == 6);
    CHECK_STATUS(passcode_flow_delete(f), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_dots(f, &filled, NULL), PASSCODE_OK);
    CHECK(filled == 0);
    type_digits(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_CONFIRM_NEW && result == PASSCODE_FLOW_RESULT_IN_PROGRESS);
    type_digits(f, PC2);
    CHECK_STATUS(passcode_flow_error(f, &text, &status), PASSCODE_OK);
    CHECK(strcmp(text, "Passcodes don't match. Try again.") == 0);
    CHECK_STATUS(passcode_flow_shakes(f, &shakes), PASSCODE_OK);
    CHECK(shakes == 1);
    CHECK_STATUS(passcode_flow_state(f, &step, NULL), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_ENTER_NEW);
    type_digits(f, PC1);
    type_digits(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_FINISHED && result == PASSCODE_FLOW_RESULT_SUCCESS);
    CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_STATE);  /* never an extra digit */
    passcode_flow_free(f);
    CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_INVALID_HANDLE);
    passcode_flow_free(NULL);
    /* Unlock with the lockout countdown. */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
    for (int i = 0; i < 5; i++) {
        char g[16];
        snprintf(g, sizeof g, "90%04d", 2468 + i * 11);
        type_digits(f, g);
    }
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_LOCKED_OUT && result == PASSCODE_FLOW_RESULT_LOCKED_OUT);
    int64_t left = 0;
    CHECK_STATUS(passcode_flow_lockout_remaining(f, &left), PASSCODE_OK);
    CHECK(left == 60);
    CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_STATE);
    advance_ms(60000);
    CHECK_STATUS(passcode_flow_refresh(f), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_ENTER_PASSCODE && result == PASSCODE_FLOW_RESULT_IN_PROGRESS);
    type_digits(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(result == PASSCODE_FLOW_RESULT_SUCCESS);
    passcode_flow_free(f);
    /* Closing the store ends its flows: a disable flow typed into afterwards is
     * MISUSE, and the lock stays on. */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_DISABLE, &f), PASSCODE_OK);
    passcode_close(s);
    for (const char *p = PC1; *p; p++) CHECK_STATUS(passcode_flow_digit(f, *p - '0'), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_ERR_MISUSE);
    passcode_flow_free(f);
    s = open_fast(path);
    int32_t v = 0;
    passcode_is_enabled(s, &v);
    CHECK(v == 1);
    passcode_close(s);
}

static void test_settings_hook_through_the_c_api(void) {
    char path[512];
    host_state h;
    memset(&h, 0, sizeof h);
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_settings_hook(s, settings_cb, &h), PASSCODE_OK);
    h.fail = 1;
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300), PASSCODE_ERR_HOOK_FAILED);
    CHECK(strcmp(passcode_errmsg(s), "backend said no (300)") == 0);
    CHECK(strcmp(h.last_key, "auto_lock_seconds") == 0);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    h.fail = 0;
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300), PASSCODE_OK);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 300);
    CHECK_STATUS(passcode_set_settings_hook(s, NULL, NULL), PASSCODE_OK);
    passcode_close(s);
}

static void test_account_through_the_c_api(void) {
    char path[512];
    host_state h;
    memset(&h, 0, sizeof h);
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_password_change_check(s, "", 0, "abcdefgh", 8, "abcdefgh", 8), PASSCODE_ERR_PASSWORD_EMPTY);
    CHECK_STATUS(passcode_password_change_check(s, NULL, 0, "abcdefgh", 8, "abcdefgh", 8), PASSCODE_ERR_PASSWORD_EMPTY);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, "abcdefg", 7, "abcdefg", 7), PASSCODE_ERR_PASSWORD_TOO_SHORT);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, "abcdefgh", 8, "abcdefgX", 8), PASSCODE_ERR_PASSWORD_MISMATCH);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, "abc\0defgh", 9, "abc\0defgh", 9), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, NULL, 8, "abcdefgh", 8), PASSCODE_ERR_MISUSE);
    CHECK(get_setting(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE) == 0);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, "abcdefgh", 8, "abcdefgh", 8), PASSCODE_OK);
    /* The time of the change, by the store's clock: the host's (embedded) or the service's. */
    CHECK(service_backend ? get_setting(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE) > 0
                          : get_setting(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE) == the_clock.wall_ms);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE, 5), PASSCODE_ERR_INVALID_SETTING);

    CHECK_STATUS(passcode_session_record(s, "this", "Riki's iPhone", "iOS", 3000, "London", 1), PASSCODE_OK);
    CHECK_STATUS(passcode_session_record(s, "ipad", "iPad Pro", "iPadOS", 2000, NULL, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_session_record(s, "mac", "MacBook Pro", "macOS", 1000, "Leeds", 0), PASSCODE_OK);
    CHECK_STATUS(passcode_session_record(s, NULL, "x", "y", 0, NULL, 0), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_session_record(s, "z", "x", "y", 0, NULL, 2), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_session_record(s, "\xff\xfe", "x", "y", 0, NULL, 0), PASSCODE_ERR_FORMAT);
    passcode_session_list *list = NULL;
    CHECK_STATUS(passcode_session_list_new(s, &list), PASSCODE_OK);
    CHECK(passcode_session_list_count(list) == 3);
    const char *id = NULL, *name = NULL, *platform = NULL, *location = "x";
    int64_t active = 0;
    int32_t current = -1;
    CHECK_STATUS(passcode_session_list_get(list, 0, &id, &name, &platform, &active, &location, &current), PASSCODE_OK);
    CHECK(strcmp(id, "this") == 0 && current == 1 && strcmp(location, "London") == 0 && active == 3000);
    CHECK_STATUS(passcode_session_list_get(list, 1, &id, NULL, NULL, NULL, &location, &current), PASSCODE_OK);
    CHECK(strcmp(id, "ipad") == 0 && location == NULL && current == 0);
    CHECK_STATUS(passcode_session_list_get(list, 3, &id, NULL, NULL, NULL, NULL, NULL), PASSCODE_ERR_MISUSE);
    passcode_session_list_free(list);
    CHECK(passcode_session_list_count(list) == 0);
    CHECK_STATUS(passcode_session_list_get(list, 0, &id, NULL, NULL, NULL, NULL, NULL), PASSCODE_ERR_INVALID_HANDLE);
    passcode_session_list_free(NULL);

    CHECK_STATUS(passcode_session_sign_out(s, "this"), PASSCODE_ERR_SESSION_IS_CURRENT);
    CHECK_STATUS(passcode_session_sign_out(s, "nope"), PASSCODE_ERR_SESSION_NOT_FOUND);
    CHECK_STATUS(passcode_session_sign_out(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set_session_hook(s, session_cb, &h), PASSCODE_OK);
    int32_t n = -1;
    CHECK_STATUS(passcode_session_sign_out_others(s, &n), PASSCODE_ERR_HOOK_FAILED);
    CHECK(n == 1);
    CHECK(strcmp(passcode_errmsg(s), "cannot revoke") == 0);
    CHECK_STATUS(passcode_session_list_new(s, &list), PASSCODE_OK);
    CHECK(passcode_session_list_count(list) == 2);  /* this device and the Mac whose revoke failed */
    passcode_session_list_free(list);

    CHECK_STATUS(passcode_set_account_deleted_callback(s, deleted_cb, &h), PASSCODE_OK);
    CHECK_STATUS(passcode_delete_account(s, "delete"), PASSCODE_ERR_CONFIRMATION_MISMATCH);
    CHECK_STATUS(passcode_delete_account(s, NULL), PASSCODE_ERR_MISUSE);
    int32_t v = 0;
    passcode_is_set(s, &v);
    CHECK(v == 1 && h.deleted == 0);
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK);
    CHECK(h.deleted == 1);
    passcode_is_set(s, &v);
    CHECK(v == 0);
    passcode_close(s);
    size_t len;
    char *bytes = slurp(path, &len);
    int found = 0;
    for (size_t i = 0; i + 11 <= len; i++) if (memcmp(bytes + i, "MacBook Pro", 11) == 0 || memcmp(bytes + i, "$argon2id$", 10) == 0) found = 1;
    CHECK(!found);
    free(bytes);
}


/* A host callback may call back into the library on the same handle: no lock is held. */
static passcode_store *reentrant_store;
static int reentrant_seen = -1;
static void reentrant_logout(void *payload, int32_t reason) {
    (void)payload; (void)reason;
    int32_t v = -1;
    if (passcode_is_set(reentrant_store, &v) == PASSCODE_OK) reentrant_seen = v;
    passcode_set_length(reentrant_store, 8);  /* logged out: no setting changes, but the setup may begin */
}
static int32_t reentrant_hook_status = -1;
static int32_t reentrant_hook(void *payload, const char *key, const char *o, const char *n, char *m, size_t size) {
    (void)payload; (void)key; (void)o; (void)n; (void)m; (void)size;
    int64_t v = 0;
    reentrant_hook_status = passcode_setting_get(reentrant_store, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v);
    return 0;
}

static void test_callbacks_may_call_back_into_the_library(void) {
    char path[512];
    reentrant_store = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(reentrant_store, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_settings_hook(reentrant_store, reentrant_hook, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(reentrant_store, reentrant_logout, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(reentrant_store), PASSCODE_OK);
    CHECK(reentrant_seen == 0);  /* the callback saw the passcode already removed */
    CHECK(get_setting(reentrant_store, PASSCODE_SETTING_PASSCODE_LENGTH) == 8);  /* and its own change went through the hook */
    /* A hook that can refuse may call the library embedded; in service mode the service waits for
     * its answer, so a call from it is MISUSE (a notification, such as the logout above, runs once
     * the call that caused it has its answer, and may call the library there too). */
    CHECK(reentrant_hook_status == (service_backend ? PASSCODE_ERR_MISUSE : PASSCODE_OK));
    passcode_close(reentrant_store);
}

/* The settings hook is asked only about changes that can happen. */
static int hook_calls;
static int32_t counting_hook(void *p, const char *k, const char *o, const char *n, char *m, size_t size) {
    (void)p; (void)k; (void)o; (void)n; (void)m; (void)size;
    hook_calls++;
    return 0;
}
static void test_settings_hook_is_not_asked_about_impossible_changes(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_settings_hook(s, counting_hook, NULL), PASSCODE_OK);
    hook_calls = 0;
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_LENGTH, 8), PASSCODE_ERR_STATE);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_LENGTH, 13), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 7), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_ERR_BIOMETRIC_UNAVAILABLE);
    CHECK(hook_calls == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    CHECK(hook_calls == 1);
    passcode_close(s);
}

void run_hooks_tests(void) {
    RUN(test_reset_code_through_the_c_api);
    RUN(test_flows_through_the_c_api);
    RUN(test_settings_hook_through_the_c_api);
    RUN(test_account_through_the_c_api);
    RUN(test_callbacks_may_call_back_into_the_library);
    RUN(test_settings_hook_is_not_asked_about_impossible_changes);
}
