/* The bad-input catalogue: every exported function with NULL, closed and foreign handles, NULL
 * and wrong-length buffers, non-digit and overlong passcodes, embedded NUL bytes, invalid UTF-8,
 * out-of-range enum values, and hooks that fail. Each case must return its documented status
 * and leave the store's content exactly as it was. Prints the number of cases. */
#include <passcode.h>
#include <enum_bounds.h>
#include <sqlite3.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
static char path[256];
static passcode_store *s, *closed;
static passcode_store *foreign_store;
static passcode_options *foreign_options;
static passcode_flow *foreign_flow;
static passcode_session_list *foreign_list;
static passcode_event_log *foreign_log;
static long junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};

/* A host clock far outside the accepted range. */
static void far_clock(void *payload, int64_t *boot_ms, int64_t *wall_ms, uint64_t *boot_id) {
    (void)payload;
    *boot_ms = INT64_MAX;
    *wall_ms = INT64_MIN;
    *boot_id = 1;
}

/* Every row of every table, as one string: the store's content. */
static char *content(void) {
    sqlite3 *db = NULL;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(cap, 1);
    /* Every table the store has, asked of the store itself (a table added later is covered). */
    char tables[32][64];
    size_t ntables = 0;
    sqlite3_stmt *names = NULL;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &names, NULL) == SQLITE_OK)
        while (sqlite3_step(names) == SQLITE_ROW && ntables < 32)
            snprintf(tables[ntables++], sizeof tables[0], "%s", (const char *)sqlite3_column_text(names, 0));
    sqlite3_finalize(names);
    if (ntables < 8) FAIL_MSG("the store has %zu tables, fewer than the 8 of its schema", ntables);
    for (size_t t = 0; t < ntables; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" ORDER BY 1", tables[t]);
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) continue;
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *v = sqlite3_column_text(st, c);
                int n = snprintf(out + len, cap - len, "%s|", v ? (const char *)v : "NULL");
                if (n > 0 && (size_t)n < cap - len) len += (size_t)n;
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

/* Runs a call and checks its status and that the store's content did not change (one check of
 * testlib.h's family, counted in its "N passed, N failed"). */
#define CASE(call, want) do { \
    char *tl_before = content(); \
    int32_t tl_got = (call); \
    char *tl_after = content(); \
    if (tl_got != (want)) \
        CHECK_MSG(0, "line %d: %s returned %d (%s), wanted %d (%s)", __LINE__, #call, tl_got, passcode_strerror(tl_got), \
                  (int)(want), passcode_strerror(want)); \
    else \
        CHECK_MSG(strcmp(tl_before, tl_after) == 0, "line %d: %s changed the store", __LINE__, #call); \
    free(tl_before); free(tl_after); \
} while (0)

#define VOIDCASE(call) do { char *tl_b = content(); call; char *tl_a = content(); \
    CHECK_MSG(strcmp(tl_b, tl_a) == 0, "line %d: %s changed the store", __LINE__, #call); free(tl_b); free(tl_a); } while (0)

static int32_t fail_hook(void *p, const char *k, const char *o, const char *n, char *m, size_t size) {
    (void)p; (void)k; (void)o; (void)n; snprintf(m, size, "no"); return 1;
}
static int32_t fail_session(void *p, const char *id, char *m, size_t size) { (void)p; (void)id; snprintf(m, size, "no"); return 1; }
static int32_t fail_delivery(void *p, const char *c, size_t l, char *m, size_t size) { (void)p; (void)c; (void)l; snprintf(m, size, "no"); return 1; }
static int32_t fail_lifecycle(void *p, int32_t event, char *m, size_t size) { (void)p; (void)event; snprintf(m, size, "no"); return 1; }

/* A check of a call that returns no status (a count, a constant, a version). */
#define TRUE_CASE(cond) CHECK_MSG((cond), "line %d: %s", __LINE__, #cond)

int main(void) {
    char dir[] = "/tmp/passcode-catalogue-XXXXXX";  /* a 0700 folder of its own */
    if (!mkdtemp(dir)) return 2;
    snprintf(path, sizeof path, "%s/store.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    if (passcode_open(path, o, &s) != PASSCODE_OK) return 2;
    passcode_open(path, o, &closed);
    passcode_close(closed);
    passcode_set(s, "386491", 6);
    passcode_session_record(s, "me", "Laptop", "Linux", 1, NULL, 1);
    passcode_session_record(s, "other", "Phone", "Android", 2, NULL, 0);
    foreign_store = (passcode_store *)junk;
    foreign_options = (passcode_options *)junk;
    foreign_flow = (passcode_flow *)junk;
    foreign_list = (passcode_session_list *)junk;
    foreign_log = (passcode_event_log *)junk;
    passcode_store *handles[] = {NULL, closed, foreign_store};
    const int32_t INV = PASSCODE_ERR_INVALID_HANDLE, MIS = PASSCODE_ERR_MISUSE, FMT = PASSCODE_ERR_FORMAT;
    int32_t i32;
    int64_t i64;
    const char *str;
    passcode_flow *flow = NULL;
    passcode_session_list *list = NULL;
    uint32_t delays[] = {5};
    passcode_lock_screen screen;
    memset(&screen, 0, sizeof screen);
    screen.size = sizeof screen;
    passcode_event_log *log = NULL;
    const uint32_t me = (uint32_t)getuid();
    char text[256];
    uint8_t key32[32] = {7}, plain[4] = {1, 2, 3, 4}, sealed[64] = {0};
    size_t got_length = 0;

    /* Every store function with a NULL, a closed and a foreign handle. */
    for (int h = 0; h < 3; h++) {
        passcode_store *x = handles[h];
        CASE(passcode_set(x, "502817", 6), INV);
        CASE(passcode_verify(x, "386491", 6), INV);
        CASE(passcode_authorize(x, "386491", 6), INV);
        CASE(passcode_change(x, "386491", 6, "502817", 6), INV);
        CASE(passcode_disable(x, "386491", 6), INV);
        CASE(passcode_enable(x), INV);
        CASE(passcode_remove(x, "386491", 6), INV);
        CASE(passcode_is_set(x, &i32), INV);
        CASE(passcode_is_enabled(x, &i32), INV);
        CASE(passcode_length(x, &i32), INV);
        CASE(passcode_set_length(x, 6), INV);
        CASE(passcode_failed_attempts(x, &i32), INV);
        CASE(passcode_lockout_remaining(x, &i64), INV);
        CASE(passcode_is_reset_required(x, &i32), INV);
        CASE(passcode_setting_get(x, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &i64), INV);
        CASE(passcode_setting_set(x, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), INV);
        CASE(passcode_set_custom_schedule(x, delays, 1, 0), INV);
        CASE(passcode_event_report(x, PASSCODE_APP_EVENT_LOCK_NOW, &i32), INV);
        CASE(passcode_lock_state(x, &i32, &i32), INV);
        CASE(passcode_lock_screen_read(x, &screen), INV);
        CASE(passcode_biometric_set_available(x, 1, 1), INV);
        CASE(passcode_security_label(x, &str), INV);
        CASE(passcode_biometric_check(x, &i32), INV);
        CASE(passcode_biometric_unlock(x, &i32), INV);
        CASE(passcode_biometric_failed(x, &i32), INV);
        CASE(passcode_flow_new(x, PASSCODE_FLOW_KIND_UNLOCK, &flow), INV);
        CASE(passcode_reset_request(x), INV);
        CASE(passcode_reset_check(x, "12345678", 8), INV);
        CASE(passcode_reset_complete(x, "12345678", 8, "502817", 6), INV);
        CASE(passcode_reset_pending(x, &i32), INV);
        CASE(passcode_reset_retry_after(x, &i64), INV);
        CASE(passcode_forgot(x), INV);
        CASE(passcode_password_change_check(x, "a", 1, "abcdefgh", 8, "abcdefgh", 8), INV);
        CASE(passcode_session_record(x, "id", "d", "p", 0, NULL, 0), INV);
        CASE(passcode_session_list_new(x, &list), INV);
        CASE(passcode_session_sign_out(x, "other"), INV);
        CASE(passcode_session_sign_out_others(x, &i32), INV);
        CASE(passcode_delete_account(x, "DELETE"), INV);
        CASE(passcode_set_logout_callback(x, NULL, NULL), INV);
        CASE(passcode_set_reset_delivery_callback(x, NULL, NULL), INV);
        CASE(passcode_set_notice_callback(x, NULL, NULL), INV);
        CASE(passcode_set_settings_hook(x, NULL, NULL), INV);
        CASE(passcode_set_session_hook(x, NULL, NULL), INV);
        CASE(passcode_set_account_deleted_callback(x, NULL, NULL), INV);
        CASE(passcode_set_lifecycle_callback(x, NULL, NULL), INV);
        CASE(passcode_store_remove(x, "386491", 6), INV);
        CASE(passcode_biometric_lead(x, &i32), INV);
        CASE(passcode_reset_recipient_set(x, "someone@example.org", "386491", 6), INV);
        CASE(passcode_reset_recipient_confirm(x, "12345678", 8, "386491", 6), INV);
        CASE(passcode_reset_recipient(x, text, sizeof text), INV);
        CASE(passcode_event_log_new(x, &log), INV);
        CASE(passcode_failure_summary(x, &i32, &i64), INV);
        CASE(passcode_seal(x, plain, sizeof plain, sealed, sizeof sealed, &got_length), INV);
        CASE(passcode_unseal(x, sealed, sizeof sealed, plain, sizeof plain, &got_length), INV);
        CASE(passcode_set_recovery_key(x, key32, sizeof key32), INV);
        CASE(passcode_clear_recovery_key(x), INV);
        CASE(passcode_has_recovery_key(x, &i32), INV);
        CASE(passcode_reset_complete_with_recovery_key(x, "12345678", 8, "502817", 6, key32, sizeof key32), INV);
        CASE(passcode_tpm_bind(x, "386491", 6), INV);
        CASE(passcode_tpm_unbind(x, "386491", 6), INV);
        CASE(passcode_tpm_is_bound(x, &i32), INV);
        CASE(passcode_tpm_posture(x, PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET, &i64), INV);
        CASE(passcode_user_state(x, me, &i32, NULL, NULL, NULL, NULL), INV);
        CASE(passcode_user_lockout(x, me, &i32, NULL, NULL, NULL, NULL, NULL), INV);
        CASE(passcode_user_verify(x, me, "386491", 6), INV);
        CASE(passcode_user_set(x, me, "502817", 6), INV);
        CASE(passcode_user_change(x, me, "386491", 6, "502817", 6), INV);
        CASE(passcode_user_remove(x, me, NULL, 0), INV);
        CASE(passcode_user_reset(x, me), INV);
        CASE(passcode_user_event_log_new(x, me, &log), INV);
        CASE(passcode_user_fingerprint_ready(x, me), INV);
        CASE(passcode_user_fingerprint_unlock(x, me), INV);
        CASE(passcode_user_fingerprint_cancel(x), INV);
        i32 = -7;
        CASE(passcode_errmessage(x, &i32, &i64), INV);
        TRUE_CASE(i32 == -7);  /* nothing written for a handle that is not one */
        TRUE_CASE(log == NULL);
        TRUE_CASE(passcode_errwait(x) == 0);
        VOIDCASE(passcode_close(x));
        CHECK_MSG(passcode_errmsg(x) != NULL, "errmsg returned NULL");
    }
    /* Options, flows and lists with NULL and foreign handles. */
    passcode_options *xo[] = {NULL, foreign_options};
    for (int h = 0; h < 2; h++) {
        CASE(passcode_options_set_cost(xo[h], 0), INV);
        CASE(passcode_options_set_cost_explicit(xo[h], 1, 8192), INV);
        CASE(passcode_options_set_pepper(xo[h], NULL, 0), INV);
        CASE(passcode_options_set_allow_weak(xo[h], 1), INV);
        CASE(passcode_options_set_clock(xo[h], NULL, NULL), INV);
        CASE(passcode_options_set_busy_timeout(xo[h], 10), INV);
        CASE(passcode_options_set_service(xo[h], "org.example.App"), INV);
        CASE(passcode_options_set_session_keyring(xo[h], 1), INV);
        CASE(passcode_options_set_tpm(xo[h], NULL), INV);
        CASE(passcode_options_set_tpm_owner_auth_file(xo[h], NULL), INV);
        VOIDCASE(passcode_options_free(xo[h]));
    }
    passcode_flow *xf[] = {NULL, foreign_flow};
    for (int h = 0; h < 2; h++) {
        CASE(passcode_flow_digit(xf[h], 1), INV);
        CASE(passcode_flow_delete(xf[h]), INV);
        CASE(passcode_flow_cancel(xf[h]), INV);
        CASE(passcode_flow_refresh(xf[h]), INV);
        CASE(passcode_flow_state(xf[h], &i32, &i32), INV);
        CASE(passcode_flow_dots(xf[h], &i32, &i32), INV);
        CASE(passcode_flow_prompt(xf[h], &str), INV);
        CASE(passcode_flow_error(xf[h], &str, &i32), INV);
        CASE(passcode_flow_shakes(xf[h], &i32), INV);
        CASE(passcode_flow_lockout_remaining(xf[h], &i64), INV);
        CASE(passcode_flow_messages(xf[h], &i32, &i32, &i64), INV);
        VOIDCASE(passcode_flow_free(xf[h]));
    }
    passcode_session_list *xl[] = {NULL, foreign_list};
    for (int h = 0; h < 2; h++) {
        CHECK_MSG(passcode_session_list_count(xl[h]) == 0, "a NULL or foreign session list counts entries");
        CASE(passcode_session_list_get(xl[h], 0, &str, &str, &str, &i64, &str, &i32), INV);
        VOIDCASE(passcode_session_list_free(xl[h]));
    }
    passcode_event_log *xg[] = {NULL, foreign_log};
    for (int h = 0; h < 2; h++) {
        TRUE_CASE(passcode_event_log_count(xg[h]) == 0);
        CASE(passcode_event_log_get(xg[h], 0, &i32, &i64, &str), INV);
        CASE(passcode_event_log_message(xg[h], 0, 0, &i32, &i64), INV);
        VOIDCASE(passcode_event_log_free(xg[h]));
    }
    CHECK_MSG(junk[0] == 1 && junk[7] == 8, "a foreign handle's memory was written");

    /* NULL out pointers. */
    CASE(passcode_options_new(NULL), MIS);
    CASE(passcode_open(path, NULL, NULL), MIS);
    CASE(passcode_is_set(s, NULL), MIS);
    CASE(passcode_is_enabled(s, NULL), MIS);
    CASE(passcode_length(s, NULL), MIS);
    CASE(passcode_failed_attempts(s, NULL), MIS);
    CASE(passcode_lockout_remaining(s, NULL), MIS);
    CASE(passcode_is_reset_required(s, NULL), MIS);
    CASE(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL), MIS);
    CASE(passcode_lock_state(s, NULL, NULL), MIS);
    CASE(passcode_lock_screen_read(s, NULL), MIS);
    screen.size = 0;  /* unset */
    CASE(passcode_lock_screen_read(s, &screen), MIS);
    screen.size = offsetof(passcode_lock_screen, reason);  /* smaller than the first version */
    CASE(passcode_lock_screen_read(s, &screen), MIS);
    screen.size = (size_t)1 << 40;  /* garbage: never a size to write through */
    CASE(passcode_lock_screen_read(s, &screen), MIS);
    screen.size = sizeof screen;
    CASE(passcode_lock_screen_read(s, &screen), PASSCODE_OK);
    CASE(passcode_security_label(s, NULL), MIS);
    CASE(passcode_biometric_check(s, NULL), MIS);
    CASE(passcode_reset_pending(s, NULL), MIS);
    CASE(passcode_reset_retry_after(s, NULL), MIS);
    CASE(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, NULL), MIS);
    CASE(passcode_session_list_new(s, NULL), MIS);
    CASE(passcode_biometric_lead(s, NULL), MIS);
    CASE(passcode_event_log_new(s, NULL), MIS);
    CASE(passcode_failure_summary(s, NULL, &i64), MIS);
    CASE(passcode_has_recovery_key(s, NULL), MIS);
    CASE(passcode_tpm_is_bound(s, NULL), MIS);
    CASE(passcode_tpm_posture(s, PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET, NULL), MIS);
    CASE(passcode_reset_recipient(s, NULL, sizeof text), MIS);
    CASE(passcode_user_verify(s, me, NULL, 6), MIS);
    CASE(passcode_user_event_log_new(s, me, NULL), MIS);
    /* The same calls answered: the queries, and the log read entry by entry. */
    CASE(passcode_biometric_lead(s, &i32), PASSCODE_OK);
    CASE(passcode_has_recovery_key(s, &i32), PASSCODE_OK);
    TRUE_CASE(i32 == 0);
    CASE(passcode_tpm_is_bound(s, &i32), PASSCODE_OK);
    TRUE_CASE(i32 == 0);
    CASE(passcode_failure_summary(s, &i32, NULL), PASSCODE_OK);
    TRUE_CASE(i32 == 0);
    CASE(passcode_event_log_new(s, &log), PASSCODE_OK);
    if (log) {
        size_t n = passcode_event_log_count(log);
        TRUE_CASE(n > 0);  /* the passcode set at the start */
        CASE(passcode_event_log_get(log, 0, NULL, NULL, NULL), PASSCODE_OK);
        CASE(passcode_event_log_get(log, n, &i32, &i64, &str), MIS);
        CASE(passcode_event_log_get(log, SIZE_MAX, &i32, &i64, &str), MIS);
        /* The newest entry in words: its kind's name, then NONE after the last part; an index
         * out of range and a NULL out_message refused. */
        int32_t kind = -1, word = -1, named = -1;
        CASE(passcode_event_log_get(log, 0, &kind, NULL, NULL), PASSCODE_OK);
        CASE(passcode_event_log_message(log, 0, 0, &word, &i64), PASSCODE_OK);
        CASE(passcode_message_of(PASSCODE_MESSAGE_TOPIC_LOG_KIND, kind, &named), PASSCODE_OK);
        TRUE_CASE(word != PASSCODE_MESSAGE_NONE && word == named && i64 == 0);
        CASE(passcode_event_log_message(log, 0, 1, &word, NULL), PASSCODE_OK);
        TRUE_CASE(word == PASSCODE_MESSAGE_NONE);
        CASE(passcode_event_log_message(log, 0, SIZE_MAX, &word, &i64), PASSCODE_OK);
        TRUE_CASE(word == PASSCODE_MESSAGE_NONE && i64 == 0);
        CASE(passcode_event_log_message(log, 0, 0, NULL, &i64), MIS);
        CASE(passcode_event_log_message(log, n, 0, &i32, &i64), MIS);
        CASE(passcode_event_log_message(log, SIZE_MAX, 0, &i32, &i64), MIS);
        VOIDCASE(passcode_event_log_free(log));
        log = NULL;
    }
    /* The library's constants and version: what the header says. */
    TRUE_CASE(passcode_version_number() == PASSCODE_VERSION_NUMBER);
    TRUE_CASE(strcmp(passcode_version_string(), PASSCODE_VERSION_STRING) == 0);
    TRUE_CASE(passcode_key_bytes() == 32);
    TRUE_CASE(passcode_seal_overhead() == 52);

    /* NULL and wrong-length buffers, non-digits, overlong, embedded NUL, invalid bytes. */
    static char huge[1 << 16];
    memset(huge, '5', sizeof huge);
    const char *bad_digits[] = {"38649", "3864911", "38a491", "386\0" "91", "\xff\xfe\xfd\xfc\xfb\xfa", "-38649", " 38649"};
    const size_t bad_len[] = {5, 7, 6, 6, 6, 6, 6};
    CASE(passcode_set(s, NULL, 6), MIS);
    CASE(passcode_verify(s, NULL, 6), MIS);
    CASE(passcode_authorize(s, NULL, 6), MIS);
    CASE(passcode_authorize(s, huge, sizeof huge), FMT);
    CASE(passcode_authorize(s, "38649a", 6), FMT);
    CASE(passcode_verify(s, NULL, 0), MIS);
    CASE(passcode_verify(s, huge, sizeof huge), FMT);
    CASE(passcode_verify(s, "386491", 0), FMT);
    for (size_t i = 0; i < sizeof bad_len / sizeof *bad_len; i++) {
        CASE(passcode_verify(s, bad_digits[i], bad_len[i]), FMT);
        CASE(passcode_change(s, bad_digits[i], bad_len[i], "502817", 6), FMT);
        CASE(passcode_change(s, "386491", 6, bad_digits[i], bad_len[i]), FMT);
        CASE(passcode_disable(s, bad_digits[i], bad_len[i]), FMT);
        CASE(passcode_remove(s, bad_digits[i], bad_len[i]), FMT);
        CASE(passcode_reset_check(s, bad_digits[i], bad_len[i]), FMT);
    }
    CASE(passcode_change(s, NULL, 6, "502817", 6), MIS);
    CASE(passcode_change(s, "386491", 6, NULL, 6), MIS);
    CASE(passcode_disable(s, NULL, 6), MIS);
    CASE(passcode_remove(s, NULL, 6), MIS);
    CASE(passcode_reset_check(s, NULL, 8), MIS);
    CASE(passcode_reset_complete(s, NULL, 8, "502817", 6), MIS);
    CASE(passcode_reset_complete(s, "12345678", 8, NULL, 6), MIS);
    CASE(passcode_password_change_check(s, "old", 3, NULL, 8, "abcdefgh", 8), MIS);
    CASE(passcode_password_change_check(s, "old", 3, "abcdefgh", 8, NULL, 8), MIS);
    CASE(passcode_password_change_check(s, "old", 3, "\xc3\x28" "abcdefgh", 10, "\xc3\x28" "abcdefgh", 10), FMT);
    CASE(passcode_password_change_check(s, "\xff", 1, "abcdefgh", 8, "abcdefgh", 8), FMT);
    CASE(passcode_password_change_check(s, "old", 3, "abc\0defgh", 9, "abc\0defgh", 9), FMT);
    CASE(passcode_session_record(s, NULL, "d", "p", 0, NULL, 0), MIS);
    CASE(passcode_session_record(s, "x", NULL, "p", 0, NULL, 0), MIS);
    CASE(passcode_session_record(s, "x", "d", NULL, 0, NULL, 0), MIS);
    CASE(passcode_session_record(s, "", "d", "p", 0, NULL, 0), MIS);
    CASE(passcode_session_record(s, "\xc0\xaf", "d", "p", 0, NULL, 0), FMT);
    CASE(passcode_session_record(s, "x", "d", "p", 0, "\xed\xa0\x80", 0), FMT);
    CASE(passcode_session_record(s, huge + sizeof huge - 2000, "d", "p", 0, NULL, 0), MIS);
    CASE(passcode_session_sign_out(s, NULL), MIS);
    CASE(passcode_delete_account(s, NULL), MIS);
    CASE(passcode_delete_account(s, "DELETE\xff"), PASSCODE_ERR_CONFIRMATION_MISMATCH);
    CASE(passcode_delete_account(s, "delete"), PASSCODE_ERR_CONFIRMATION_MISMATCH);
    /* What a person reads for that last failure; a NULL out_message refused and the failure kept. */
    CASE(passcode_errmessage(s, &i32, &i64), PASSCODE_OK);
    TRUE_CASE(i32 == PASSCODE_MESSAGE_CONFIRMATION_MISMATCH && i64 == 0);
    CASE(passcode_errmessage(s, NULL, &i64), MIS);
    CASE(passcode_errmessage(s, &i32, NULL), PASSCODE_OK);
    TRUE_CASE(i32 == PASSCODE_MESSAGE_CONFIRMATION_MISMATCH);
    CASE(passcode_set_custom_schedule(s, NULL, 1, 0), MIS);

    /* Out-of-range enum values and settings: one past each enum's last value (from the header,
     * build/enum_bounds.h), one before its first, and the extremes. */
    const int32_t bad_enums[] = {-1, 0x7fffffff, (int32_t)0x80000000};
    for (size_t i = 0; i < sizeof bad_enums / sizeof bad_enums[0] + 2; i++) {
        int32_t e = i < 3 ? bad_enums[i] : 0, past = i == 3;
        CASE(passcode_setting_get(s, i < 3 ? e : past ? TEST_LAST_SETTING + 1 : TEST_FIRST_SETTING - 1, &i64), MIS);
        CASE(passcode_setting_set(s, i < 3 ? e : past ? TEST_LAST_SETTING + 1 : TEST_FIRST_SETTING - 1, 1), MIS);
        CASE(passcode_event_report(s, i < 3 ? e : past ? TEST_LAST_APP_EVENT + 1 : TEST_FIRST_APP_EVENT - 1, &i32), MIS);
        CASE(passcode_biometric_set_available(s, 1, i < 3 ? e : past ? TEST_LAST_BIOMETRIC_KIND + 1 : TEST_FIRST_BIOMETRIC_KIND - 1), MIS);
        CASE(passcode_flow_new(s, i < 3 ? e : past ? TEST_LAST_FLOW_KIND + 1 : TEST_FIRST_FLOW_KIND - 1, &flow), MIS);
        int32_t setting = i < 3 ? e : past ? TEST_LAST_SETTING + 1 : TEST_FIRST_SETTING - 1;
        int32_t kind = i < 3 ? e : past ? TEST_LAST_LOG_KIND + 1 : TEST_FIRST_LOG_KIND - 1;
        CHECK_MSG(!passcode_setting_name(setting) && !passcode_event_log_kind_name(kind), "%d has a setting or log kind name", (int)e);
    }
    /* Every value of the statuses, settings and log kinds has its text or name, and one past the
     * last has none. */
    for (int32_t v = TEST_FIRST_STATUS; v <= TEST_LAST_STATUS + 1; v++)
        CHECK_MSG((strcmp(passcode_strerror(v), "unknown status") == 0) == (v > TEST_LAST_STATUS), "status %d: %s", (int)v, passcode_strerror(v));
    for (int32_t v = TEST_FIRST_SETTING; v <= TEST_LAST_SETTING + 1; v++)
        CHECK_MSG((passcode_setting_name(v) == NULL) == (v > TEST_LAST_SETTING), "setting %d's name", (int)v);
    for (int32_t v = TEST_FIRST_LOG_KIND; v <= TEST_LAST_LOG_KIND + 1; v++)
        CHECK_MSG((passcode_event_log_kind_name(v) == NULL) == (v > TEST_LAST_LOG_KIND), "log kind %d's name", (int)v);

    /* Messages: a message's text (the C locale: English; the program never called setlocale),
     * "" for NONE, for a value between two messages' and for one outside the enum. */
    TRUE_CASE(strcmp(passcode_message_text(PASSCODE_MESSAGE_INCORRECT_PASSCODE, 0), "Incorrect passcode") == 0);
    TRUE_CASE(strcmp(passcode_message_text(PASSCODE_MESSAGE_TRY_AGAIN_IN_MINUTES, 1), "Too many attempts. Try again in 1 minute.") == 0);
    TRUE_CASE(strcmp(passcode_message_text(PASSCODE_MESSAGE_TRY_AGAIN_IN_MINUTES, 5), "Too many attempts. Try again in 5 minutes.") == 0);
    TRUE_CASE(strcmp(passcode_message_text(PASSCODE_MESSAGE_NONE, 3), "") == 0);
    TRUE_CASE(strcmp(passcode_message_text(PASSCODE_MESSAGE_FLOW_STOPPED + 1, 0), "") == 0);  /* 16 to 19 are none */
    TRUE_CASE(strcmp(passcode_message_text(TEST_LAST_MESSAGE + 1, 0), "") == 0);
    TRUE_CASE(strcmp(passcode_message_text(TEST_FIRST_MESSAGE - 1, 0), "") == 0);
    for (size_t i = 0; i < sizeof bad_enums / sizeof bad_enums[0]; i++)
        TRUE_CASE(strcmp(passcode_message_text(bad_enums[i], INT64_MIN), "") == 0);
    {   /* 16 texts stay valid at once (this thread's): the first still reads the same after 15 more */
        const char *first = passcode_message_text(PASSCODE_MESSAGE_ENTER_PASSCODE, 0);
        for (int k = 0; k < 15; k++) passcode_message_text(PASSCODE_MESSAGE_TRY_AGAIN_IN_SECONDS, k);
        TRUE_CASE(strcmp(first, "Enter Passcode") == 0);
    }
    /* The message of another enum's value: an unknown topic or value, or a NULL out, is MISUSE
     * with out NONE; each log kind and biometric kind has one; a refusal of NONE is NONE. */
    CASE(passcode_message_of(PASSCODE_MESSAGE_TOPIC_LOG_KIND, PASSCODE_LOG_KIND_FAILED_ATTEMPT, NULL), MIS);
    for (size_t i = 0; i < sizeof bad_enums / sizeof bad_enums[0] + 2; i++) {
        int32_t topic = i < 3 ? bad_enums[i] : i == 3 ? TEST_LAST_MESSAGE_TOPIC + 1 : TEST_FIRST_MESSAGE_TOPIC - 1;
        i32 = -7;
        CASE(passcode_message_of(topic, PASSCODE_LOG_KIND_FAILED_ATTEMPT, &i32), MIS);
        TRUE_CASE(i32 == PASSCODE_MESSAGE_NONE);
    }
    const int32_t topics[] = {PASSCODE_MESSAGE_TOPIC_BIOMETRIC_REFUSAL, PASSCODE_MESSAGE_TOPIC_SECURITY_LABEL, PASSCODE_MESSAGE_TOPIC_LOG_KIND};
    const int32_t lasts[] = {TEST_LAST_BIOMETRIC_REFUSAL, TEST_LAST_BIOMETRIC_KIND, TEST_LAST_LOG_KIND};
    for (size_t t = 0; t < 3; t++) {
        const int32_t wrong[] = {-1, lasts[t] + 1, 0x7fffffff, (int32_t)0x80000000};
        for (size_t i = 0; i < 4; i++) {
            i32 = -7;
            CASE(passcode_message_of(topics[t], wrong[i], &i32), MIS);
            TRUE_CASE(i32 == PASSCODE_MESSAGE_NONE);
        }
    }
    for (int32_t v = TEST_FIRST_LOG_KIND; v <= TEST_LAST_LOG_KIND; v++)
        CHECK_MSG(passcode_message_of(PASSCODE_MESSAGE_TOPIC_LOG_KIND, v, &i32) == PASSCODE_OK && i32 != PASSCODE_MESSAGE_NONE
                  && *passcode_message_text(i32, 0), "log kind %d has no message", (int)v);
    for (int32_t v = TEST_FIRST_BIOMETRIC_KIND; v <= TEST_LAST_BIOMETRIC_KIND; v++)
        CHECK_MSG(passcode_message_of(PASSCODE_MESSAGE_TOPIC_SECURITY_LABEL, v, &i32) == PASSCODE_OK && i32 != PASSCODE_MESSAGE_NONE,
                  "biometric kind %d has no label", (int)v);
    CASE(passcode_message_of(PASSCODE_MESSAGE_TOPIC_LOG_KIND, PASSCODE_LOG_KIND_FAILED_ATTEMPT, &i32), PASSCODE_OK);
    TRUE_CASE(i32 == PASSCODE_MESSAGE_LOG_FAILED_ATTEMPT);
    CASE(passcode_message_of(PASSCODE_MESSAGE_TOPIC_BIOMETRIC_REFUSAL, PASSCODE_BIOMETRIC_REFUSAL_NONE, &i32), PASSCODE_OK);
    TRUE_CASE(i32 == PASSCODE_MESSAGE_NONE);
    /* Calls about a setting itself: unknown settings and NULL out pointers. */
    for (size_t i = 0; i < sizeof bad_enums / sizeof bad_enums[0]; i++) {
        int64_t lo, hi, values[8];
        size_t count;
        CASE(passcode_setting_bounds(bad_enums[i], &lo, &hi), MIS);
        CASE(passcode_setting_choices(bad_enums[i], values, 8, &count), MIS);
        CASE(passcode_setting_default(bad_enums[i], &lo), MIS);
        CASE(passcode_setting_weakens(bad_enums[i], 0, 1, &i32), MIS);
    }
    {
        int64_t lo, values[2];
        size_t count = 0;
        CASE(passcode_setting_bounds(PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL, &lo), MIS);
        CASE(passcode_setting_bounds(PASSCODE_SETTING_AUTO_LOCK_SECONDS, &lo, NULL), MIS);
        CASE(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, values, 6, NULL), MIS);
        CASE(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL, 6, &count), MIS);
        CASE(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, values, 2, &count), PASSCODE_ERR_BUFFER_TOO_SMALL);
        CASE(passcode_setting_default(PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL), MIS);
        CASE(passcode_setting_weakens(PASSCODE_SETTING_AUTO_LOCK_SECONDS, 0, 60, NULL), MIS);
    }
    const int64_t bad_timeouts[] = {-1, 1, 59, 61, 7200, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < 7; i++) CASE(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, bad_timeouts[i]), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 2), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, 3), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, 4294967296LL), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, -4294967296LL), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, INT64_MIN), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_RESET_REQUESTS_PER_DAY, INT64_MIN), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS, -1), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, -1), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_TWO_FACTOR_ENABLED, -1), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, 3), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_RESET_CODE_LENGTH, 5), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_RESET_CODE_LIFETIME_SECONDS, 86401), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE, 1), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_LENGTH, 8), PASSCODE_ERR_STATE);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_LOCK_ENABLED, 0), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_ERR_BIOMETRIC_UNAVAILABLE);
    CASE(passcode_set_length(s, 3), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_set_length(s, -6), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_biometric_set_available(s, 2, 1), MIS);
    uint32_t long_delays[101] = {0};
    CASE(passcode_set_custom_schedule(s, long_delays, 101, 0), PASSCODE_ERR_INVALID_SETTING);
    CASE(passcode_set_custom_schedule(s, delays, 1, 10001), PASSCODE_ERR_INVALID_SETTING);

    /* Flows: bad digits, digits after the end. */
    if (passcode_flow_new(s, PASSCODE_FLOW_KIND_DISABLE, &flow) == PASSCODE_OK) {
        CASE(passcode_flow_digit(flow, 10), MIS);
        CASE(passcode_flow_digit(flow, -1), MIS);
        CASE(passcode_flow_digit(flow, '3'), MIS);
        CASE(passcode_flow_state(flow, NULL, NULL), MIS);
        CASE(passcode_flow_dots(flow, NULL, NULL), MIS);
        CASE(passcode_flow_prompt(flow, NULL), MIS);
        CASE(passcode_flow_error(flow, NULL, NULL), MIS);
        CASE(passcode_flow_shakes(flow, NULL), MIS);
        CASE(passcode_flow_lockout_remaining(flow, NULL), MIS);
        CASE(passcode_flow_messages(flow, NULL, &i32, &i64), MIS);
        int32_t prompt = -1, error = -1;
        i64 = -1;
        CASE(passcode_flow_messages(flow, &prompt, &error, &i64), PASSCODE_OK);
        TRUE_CASE(prompt == PASSCODE_MESSAGE_ENTER_PASSCODE_TO_DISABLE && error == PASSCODE_MESSAGE_NONE && i64 == 0);
        CASE(passcode_flow_messages(flow, &prompt, NULL, NULL), PASSCODE_OK);
        CASE(passcode_flow_cancel(flow), PASSCODE_OK);
        CASE(passcode_flow_messages(flow, &prompt, &error, &i64), PASSCODE_OK);
        TRUE_CASE(prompt == PASSCODE_MESSAGE_FLOW_CANCELLED && error == PASSCODE_MESSAGE_NONE);
        CASE(passcode_flow_digit(flow, 1), PASSCODE_ERR_STATE);
        passcode_flow_free(flow);
    }
    CASE(passcode_flow_new(s, PASSCODE_FLOW_KIND_CREATE, &flow), PASSCODE_ERR_ALREADY_SET);

    /* Hooks that fail: nothing changes. */
    passcode_set_settings_hook(s, fail_hook, NULL);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_ERR_HOOK_FAILED);
    CASE(passcode_setting_set(s, PASSCODE_SETTING_TWO_FACTOR_ENABLED, 1), PASSCODE_ERR_HOOK_FAILED);
    CASE(passcode_set_custom_schedule(s, delays, 1, 0), PASSCODE_ERR_HOOK_FAILED);
    passcode_set_settings_hook(s, NULL, NULL);
    passcode_set_session_hook(s, fail_session, NULL);
    CASE(passcode_session_sign_out(s, "other"), PASSCODE_ERR_HOOK_FAILED);
    CASE(passcode_session_sign_out(s, "me"), PASSCODE_ERR_SESSION_IS_CURRENT);
    CASE(passcode_session_sign_out(s, "nobody"), PASSCODE_ERR_SESSION_NOT_FOUND);
    passcode_set_session_hook(s, NULL, NULL);
    CASE(passcode_reset_request(s), PASSCODE_ERR_STATE);
    passcode_set_reset_delivery_callback(s, fail_delivery, NULL);
    {   /* a failed delivery records the request for the rate limit, and nothing else */
        char *before = content();
        int32_t rc = passcode_reset_request(s);
        char *after = content();
        CHECK_MSG(rc == PASSCODE_ERR_HOOK_FAILED, "delivery failure gave %d", rc);
        i32 = -1;
        passcode_reset_pending(s, &i32);
        CHECK_MSG(i32 == 0, "a code survived a failed delivery");
        free(before); free(after);
    }
    CASE(passcode_reset_check(s, "12345678", 8), PASSCODE_ERR_NO_RESET_CODE);

    /* Options with bad values. */
    passcode_options_new(&o);
    uint8_t pepper[33] = {0};
    CASE(passcode_options_set_cost(o, 3), MIS);
    CASE(passcode_options_set_cost(o, -1), MIS);
    CASE(passcode_options_set_cost_explicit(o, 0, 8192), MIS);
    CASE(passcode_options_set_cost_explicit(o, 1, 1024), MIS);
    CASE(passcode_options_set_pepper(o, pepper, 33), MIS);
    CASE(passcode_options_set_pepper(o, pepper, 0), MIS);
    CASE(passcode_options_set_pepper(o, NULL, 32), MIS);
    CASE(passcode_options_set_allow_weak(o, -1), MIS);
    CASE(passcode_options_set_busy_timeout(o, -5), MIS);
    CASE(passcode_options_set_service(o, ""), MIS);
    CASE(passcode_options_set_service(o, "\xff\xfe"), MIS);
    CASE(passcode_options_set_service(o, "org.example.A-long-application-id-of-more-than-64-bytes-is-refused"), MIS);
    CASE(passcode_options_set_session_keyring(o, -1), MIS);
    CASE(passcode_options_set_session_keyring(o, 2), MIS);
    CASE(passcode_options_set_session_keyring(o, 0), PASSCODE_OK);
    CASE(passcode_options_set_tpm(o, ""), MIS);
    CASE(passcode_options_set_tpm(o, "\xff\xfe"), MIS);
    CASE(passcode_options_set_tpm(o, huge + sizeof huge - 5000), MIS);
    CASE(passcode_options_set_tpm(o, "swtpm:host=127.0.0.1,port=2321"), PASSCODE_OK);
    CASE(passcode_options_set_tpm_owner_auth_file(o, ""), MIS);
    CASE(passcode_options_set_tpm_owner_auth_file(o, "tpm-owner-auth"), MIS);
    CASE(passcode_options_set_tpm_owner_auth_file(o, "/etc/\xff"), MIS);
    CASE(passcode_options_set_tpm_owner_auth_file(o, "/etc/passcode/tpm-owner-auth"), PASSCODE_OK);
    passcode_options_free(o);

    /* Removing the store: without the passcode, with a malformed one, with NULL and a length;
     * with the right one but a lifecycle callback that refuses. Nothing is removed. */
    CASE(passcode_store_remove(s, NULL, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    CASE(passcode_store_remove(s, NULL, 6), MIS);
    for (size_t i = 0; i < sizeof bad_len / sizeof *bad_len; i++)
        CASE(passcode_store_remove(s, bad_digits[i], bad_len[i]), FMT);
    CASE(passcode_set_lifecycle_callback(s, fail_lifecycle, NULL), PASSCODE_OK);
    TRUE_CASE(passcode_store_remove(s, "386491", 6) == PASSCODE_ERR_HOOK_FAILED);  /* the right passcode: counted as a verify */
    CASE(passcode_set_lifecycle_callback(s, NULL, NULL), PASSCODE_OK);
    TRUE_CASE(access(path, F_OK) == 0 && passcode_is_set(s, &i32) == PASSCODE_OK && i32 == 1);

    /* The reset recipient: passcoded mails the codes, so the embedded store has none to set,
     * confirm or show (its codes go to the delivery callback); NULL first. */
    CASE(passcode_reset_recipient_set(s, NULL, "386491", 6), MIS);
    CASE(passcode_reset_recipient_set(s, "someone@example.org", NULL, 6), MIS);
    CASE(passcode_reset_recipient_set(s, "someone@example.org", "386491", 6), PASSCODE_ERR_STATE);
    CASE(passcode_reset_recipient_confirm(s, NULL, 8, "386491", 6), MIS);
    CASE(passcode_reset_recipient_confirm(s, "12345678", 8, NULL, 6), MIS);
    CASE(passcode_reset_recipient_confirm(s, "12345678", 8, "386491", 6), PASSCODE_ERR_STATE);
    CASE(passcode_reset_recipient(s, text, sizeof text), PASSCODE_ERR_STATE);

    /* The data key: NULL buffers and impossible lengths before the handle; a handle that has
     * not unlocked holds no key; a recovery key of the wrong length. */
    {
        passcode_store *locked_handle = NULL;
        passcode_options *lo = NULL;
        passcode_options_new(&lo);
        passcode_options_set_cost_explicit(lo, 1, 8192);
        passcode_open(path, lo, &locked_handle);
        passcode_options_free(lo);
        CASE(passcode_seal(s, NULL, sizeof plain, sealed, sizeof sealed, &got_length), MIS);
        CASE(passcode_seal(s, plain, sizeof plain, NULL, sizeof sealed, &got_length), MIS);
        CASE(passcode_seal(s, plain, sizeof plain, sealed, sizeof sealed, NULL), MIS);
        CASE(passcode_seal(foreign_store, plain, ((size_t)1 << 32) + 1, sealed, sizeof sealed, &got_length), MIS);
        CASE(passcode_seal(foreign_store, plain, sizeof plain, sealed, (size_t)1 << 47, &got_length), MIS);
        CASE(passcode_seal(locked_handle, plain, sizeof plain, sealed, sizeof sealed, &got_length), PASSCODE_ERR_KEY_NOT_RELEASED);
        CASE(passcode_unseal(s, NULL, sizeof sealed, plain, sizeof plain, &got_length), MIS);
        CASE(passcode_unseal(s, sealed, sizeof sealed, NULL, sizeof plain, &got_length), MIS);
        CASE(passcode_unseal(s, sealed, sizeof sealed, plain, sizeof plain, NULL), MIS);
        CASE(passcode_unseal(foreign_store, sealed, ((size_t)1 << 32) + 53, plain, sizeof plain, &got_length), MIS);
        CASE(passcode_unseal(foreign_store, sealed, sizeof sealed, plain, (size_t)1 << 47, &got_length), MIS);
        CASE(passcode_set_recovery_key(s, NULL, sizeof key32), MIS);
        CASE(passcode_set_recovery_key(s, key32, 31), MIS);
        CASE(passcode_set_recovery_key(s, key32, 33), MIS);
        CASE(passcode_set_recovery_key(locked_handle, key32, sizeof key32), PASSCODE_ERR_KEY_NOT_RELEASED);
        CASE(passcode_reset_complete_with_recovery_key(s, NULL, 8, "502817", 6, key32, sizeof key32), MIS);
        CASE(passcode_reset_complete_with_recovery_key(s, "12345678", 8, NULL, 6, key32, sizeof key32), MIS);
        CASE(passcode_reset_complete_with_recovery_key(s, "12345678", 8, "502817", 6, NULL, sizeof key32), MIS);
        CASE(passcode_reset_complete_with_recovery_key(s, "12345678", 8, "502817", 6, key32, 31), MIS);
        CASE(passcode_reset_complete_with_recovery_key(s, "12345678", 8, "502817", 6, key32, sizeof key32), PASSCODE_ERR_NO_RESET_CODE);
        passcode_close(locked_handle);
    }

    /* The TPM calls on a store opened without the TPM option; an unknown posture item. */
    CASE(passcode_tpm_bind(s, "386491", 6), MIS);
    CASE(passcode_tpm_unbind(s, "386491", 6), PASSCODE_ERR_STATE);
    CASE(passcode_tpm_posture(s, PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET, &i64), MIS);
    for (size_t i = 0; i < sizeof bad_enums / sizeof bad_enums[0]; i++)
        CASE(passcode_tpm_posture(s, bad_enums[i], &i64), MIS);

    /* A user named by uid: the embedded store has no users to name (passcoded has). */
    {
        int32_t is_set = -1;
        CASE(passcode_user_state(s, me, &is_set, NULL, NULL, NULL, NULL), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        TRUE_CASE(is_set == -1);
        int32_t login_state = -1;
        CASE(passcode_user_lockout(s, me, &login_state, NULL, NULL, NULL, NULL, NULL), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        TRUE_CASE(login_state == -1);
        CASE(passcode_user_verify(s, me, "386491", 6), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_set(s, me, "502817", 6), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_change(s, me, "386491", 6, "502817", 6), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_remove(s, me, "386491", 6), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_remove(s, me, "386491", 0), FMT);  /* digits with no length: not "without it" */
        CASE(passcode_user_reset(s, me), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_event_log_new(s, me, &log), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        TRUE_CASE(log == NULL);
        CASE(passcode_user_fingerprint_ready(s, me), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_fingerprint_unlock(s, me), PASSCODE_ERR_NOT_IN_SERVICE_MODE);
        CASE(passcode_user_fingerprint_cancel(s), PASSCODE_OK);  /* nothing waits: nothing to end */
    }

    /* Service mode: an option the service decides is refused at the open, before the bus is
     * reached; a bus that does not answer is SERVICE_UNAVAILABLE. Nothing is opened. */
    {
        passcode_store *x = NULL;
        passcode_options_new(&o);
        CASE(passcode_options_set_service(o, "org.example.App"), PASSCODE_OK);
        passcode_options_set_cost_explicit(o, 1, 8192);
        CASE(passcode_open(path, o, &x), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
        CHECK_MSG(x == NULL && strstr(passcode_errmsg(NULL), "Argon2id cost"), "the refusal names the cost: %s", passcode_errmsg(NULL));
        passcode_options_free(o);
        passcode_options_new(&o);
        passcode_options_set_service(o, "org.example.App");
        const char *saved = getenv("DBUS_SYSTEM_BUS_ADDRESS");
        char *keep = saved ? strdup(saved) : NULL;
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/passcode-catalogue-bus", 1);
        CASE(passcode_open(path, o, &x), PASSCODE_ERR_SERVICE_UNAVAILABLE);
        if (keep) { setenv("DBUS_SYSTEM_BUS_ADDRESS", keep, 1); free(keep); } else unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        CHECK_MSG(x == NULL, "an unavailable service gave a handle");
        passcode_options_free(o);
    }

    /* Key lengths checked before the buffer is touched, a clock out of range refused
     * with its status, a flow of a closed store refused; nothing changes. */
    CASE(passcode_unlock_key(s, "386491", 6, key32, SIZE_MAX), MIS);
    CASE(passcode_biometric_unlock_key(s, key32, SIZE_MAX, &i32), MIS);
    CASE(passcode_flow_take_key(foreign_flow, key32, SIZE_MAX), MIS);  /* the length before the handle */
    CASE(passcode_flow_take_key(foreign_flow, key32, 32), INV);
    CASE(passcode_password_change_check(s, "old", SIZE_MAX, "abcdefgh", 8, "abcdefgh", 8), MIS);
    passcode_store *ended = NULL;
    passcode_flow *orphan = NULL;
    passcode_options *co = NULL;
    passcode_options_new(&co);
    passcode_options_set_cost_explicit(co, 1, 8192);
    passcode_open(path, co, &ended);
    passcode_flow_new(ended, PASSCODE_FLOW_KIND_UNLOCK, &orphan);
    passcode_close(ended);
    CASE(passcode_flow_digit(orphan, 3), MIS);
    CASE(passcode_flow_take_key(orphan, key32, sizeof key32), MIS);
    passcode_flow_free(orphan);
    passcode_store *skewed = NULL;
    passcode_options_set_clock(co, far_clock, NULL);
    passcode_open(path, co, &skewed);
    passcode_options_free(co);
    CASE(passcode_verify(skewed, "386491", 6), PASSCODE_ERR_CLOCK_OUT_OF_RANGE);
    CASE(passcode_reset_retry_after(skewed, &i64), PASSCODE_ERR_CLOCK_OUT_OF_RANGE);
    CASE(passcode_event_report(skewed, PASSCODE_APP_EVENT_BACKGROUND, &i32), PASSCODE_ERR_CLOCK_OUT_OF_RANGE);
    CASE(passcode_lockout_remaining(skewed, &i64), PASSCODE_ERR_CLOCK_OUT_OF_RANGE);
    passcode_close(skewed);
    /* A schema object libpasscode never makes, planted by whoever can write the file: refused
     * at open (and by the open handle's next call), the store unchanged. */
    {
        sqlite3 *raw = NULL;
        sqlite3_open(path, &raw);
        sqlite3_exec(raw, "CREATE TRIGGER planted AFTER INSERT ON event BEGIN DELETE FROM event; END", NULL, NULL, NULL);
        sqlite3_close(raw);
        passcode_store *x = NULL;
        passcode_options_new(&o);
        passcode_options_set_cost_explicit(o, 1, 8192);
        CASE(passcode_open(path, o, &x), PASSCODE_ERR_FOREIGN_SCHEMA);
        CASE(passcode_verify(s, "502817", 6), PASSCODE_ERR_FOREIGN_SCHEMA);
        passcode_options_free(o);
    }

    passcode_close(s);
    unlink(path);
    char extra[300];
    snprintf(extra, sizeof extra, "%s-wal", path); unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path); unlink(extra);
    rmdir(dir);
    printf("bad-input catalogue: %d cases over every exported function\n", tl_passed + tl_failed);
    return tl_summary();
}
