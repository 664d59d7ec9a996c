/* The data key: released by an unlock, stable across every passcode change, sealing the host's
 * data, kept by a recovery key, gone with forgot and delete account, migrated from old stores. */
#include "api_support.h"

#include <sqlite3.h>

#ifndef FIXTURES
#define FIXTURES "Tests/fixtures"
#endif

#define KEY 32


static passcode_store *keyed_store(char *path, size_t size, mailbox *m, uint8_t key[KEY]) {
    passcode_store *s = store_with_passcode(path, size, m);
    CHECK_STATUS(passcode_set_logout_callback(s, mailbox_logout, m), PASSCODE_OK);
    CHECK_STATUS(passcode_set_account_deleted_callback(s, mailbox_deleted, m), PASSCODE_OK);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
    return s;
}

static int all_zero(const uint8_t *b, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= b[i];
    return acc == 0;
}

static int contains(const void *hay, size_t len, const void *needle, size_t n) {
    for (size_t i = 0; hay && n && i + n <= len; i++)
        if (memcmp((const char *)hay + i, needle, n) == 0) return 1;
    return 0;
}

/* Whether `needle` occurs in the file (0 when the file does not exist). */
static int file_contains(const char *path, const void *needle, size_t n) {
    size_t len;
    char *data = slurp(path, &len);
    int found = contains(data, len, needle, n);
    free(data);
    return found;
}

static int store_contains(const char *path, const void *needle, size_t n) {
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    return file_contains(path, needle, n) || file_contains(wal, needle, n);
}

/* One column of the first row, as bytes (text or blob); returns its length, 0 for none. */
static size_t query_bytes(const char *path, const char *sql, uint8_t *out, size_t size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    size_t n = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        n = (size_t)sqlite3_column_bytes(st, 0);
        if (n > size) n = size;
        if (n) memcpy(out, sqlite3_column_blob(st, 0), n);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static void sql_exec(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
}

/* ---- releasing the key ------------------------------------------------------------------- */

static void test_sizes(void) {
    CHECK(passcode_key_bytes() == 32);
    CHECK(passcode_seal_overhead() == 52);
}

static void test_wrong_passcode_gives_no_key_and_a_zeroed_buffer(void) {
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], out[KEY];
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    CHECK(!all_zero(key, KEY));
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_unlock_key(s, PC2, LEN, out, KEY), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(all_zero(out, KEY));
    CHECK(failures(s) == 1);  /* counted like a verify */
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, 31), PASSCODE_ERR_MISUSE);
    CHECK(out[0] == 0xAA && out[30] == 0xAA && out[31] == 0xAA);  /* a wrong length: nothing written */
    CHECK(failures(s) == 1);  /* a misuse is not an attempt */
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, NULL, KEY), PASSCODE_ERR_MISUSE);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_unlock_key(s, "12a456", LEN, out, KEY), PASSCODE_ERR_FORMAT);
    CHECK(all_zero(out, KEY));
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_unlock_key(NULL, PC1, LEN, out, KEY), PASSCODE_ERR_INVALID_HANDLE);
    CHECK(all_zero(out, KEY));
    /* In a lockout: the lockout status, and still no key. */
    for (int i = 0; i < 4; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, KEY), PASSCODE_ERR_LOCKED_OUT);
    CHECK(all_zero(out, KEY));
    passcode_close(s);
}

static void test_key_is_stable_across_change_disable_enable_and_reopen(void) {
    char path[512], other[512];
    mailbox m = {0};
    uint8_t key[KEY], again[KEY];
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, again, KEY), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_unlock_key(s, PC2, LEN, again, KEY), PASSCODE_OK);
    CHECK(memcmp(key, again, KEY) == 0);
    CHECK_STATUS(passcode_disable(s, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_enable(s), PASSCODE_OK);
    passcode_close(s);
    s = open_fast(path);
    CHECK_STATUS(passcode_unlock_key(s, PC2, LEN, again, KEY), PASSCODE_OK);
    CHECK(memcmp(key, again, KEY) == 0);
    passcode_close(s);
    /* Another store, the same passcode: another key. */
    passcode_store *t = new_store(other, sizeof other);
    CHECK_STATUS(passcode_set(t, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unlock_key(t, PC2, LEN, again, KEY), PASSCODE_OK);
    CHECK(memcmp(key, again, KEY) != 0);
    passcode_close(t);
    /* The key is nowhere in the file in the clear. */
    CHECK(!store_contains(path, key, KEY));
}

static void test_key_is_stable_across_a_cost_upgrade(void) {
    EMBEDDED_ONLY(ONLY_COST);
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], again[KEY], before[600], after[600];
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    passcode_close(s);
    size_t n = query_bytes(path, "SELECT verifier FROM passcode", before, sizeof before);
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 2, 16384), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, again, KEY), PASSCODE_OK);
    CHECK(memcmp(key, again, KEY) == 0);
    size_t k = query_bytes(path, "SELECT verifier FROM passcode", after, sizeof after);
    CHECK(n > 0 && k > 0 && (n != k || memcmp(before, after, n) != 0));  /* rewrapped ... */
    passcode_close(s);
    s = open_fast(path);  /* ... and opened again at the old cost: rewrapped back, same key */
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, again, KEY), PASSCODE_OK);
    CHECK(memcmp(key, again, KEY) == 0);
    passcode_close(s);
}

/* ---- sealing ----------------------------------------------------------------------------- */

static void test_seal_round_trip_tamper_truncation_and_foreign_store(void) {
    char path[512], other[512];
    mailbox m = {0};
    uint8_t key[KEY], plain[4096], sealed[4096 + 52], back[4096];
    size_t n = 0, got = 0;
    for (size_t i = 0; i < sizeof plain; i++) plain[i] = (uint8_t)(i * 7);
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    /* Sizes: the empty message, one byte, 4 KiB. */
    size_t sizes[] = {0, 1, sizeof plain};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(passcode_seal(s, plain, sizes[i], sealed, sizeof sealed, &n), PASSCODE_OK);
        CHECK(n == sizes[i] + passcode_seal_overhead());
        CHECK(sizes[i] < 16 || !contains(sealed, n, plain, 16));
        CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_OK);
        CHECK(got == sizes[i] && memcmp(back, plain, got) == 0);
    }
    /* Two seals of the same data differ (random nonce). */
    uint8_t sealed2[64 + 52];
    size_t n2 = 0;
    CHECK_STATUS(passcode_seal(s, plain, 64, sealed, sizeof sealed, &n), PASSCODE_OK);
    CHECK_STATUS(passcode_seal(s, plain, 64, sealed2, sizeof sealed2, &n2), PASSCODE_OK);
    CHECK(n == n2 && memcmp(sealed, sealed2, n) != 0);
    /* Too small: the length, nothing else. */
    CHECK_STATUS(passcode_seal(s, plain, 64, sealed2, 64, &n2), PASSCODE_ERR_BUFFER_TOO_SMALL);
    CHECK(n2 == 64 + 52);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, 63, &got), PASSCODE_ERR_BUFFER_TOO_SMALL);
    CHECK(got == 64);
    CHECK_STATUS(passcode_seal(s, NULL, 64, sealed2, sizeof sealed2, &n2), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_seal(s, plain, 64, sealed2, sizeof sealed2, NULL), PASSCODE_ERR_MISUSE);
    /* Every byte flipped in turn: the header's, the nonce's, the text's, the tag's. */
    int bad = 0, foreign = 0;
    for (size_t i = 0; i < n; i++) {
        sealed[i] ^= 0x01;
        memset(back, 0x55, 64);
        int32_t rc = passcode_unseal(s, sealed, n, back, sizeof back, &got);
        bad += rc == PASSCODE_ERR_BAD_CIPHERTEXT;
        foreign += rc == PASSCODE_ERR_FOREIGN_CIPHERTEXT;  /* the key id bytes */
        sealed[i] ^= 0x01;
    }
    CHECK(bad == (int)n - 8 && foreign == 8);
    CHECK(all_zero(back, 64));  /* a failed tag check leaves nothing in the buffer */
    for (size_t cut = 0; cut < n; cut += 7) {
        CHECK_STATUS(passcode_unseal(s, sealed, cut, back, sizeof back, &got), PASSCODE_ERR_BAD_CIPHERTEXT);
    }
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_OK);
    /* Another store's key. */
    passcode_store *t = new_store(other, sizeof other);
    CHECK_STATUS(passcode_set(t, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(t, sealed, n, back, sizeof back, &got), PASSCODE_ERR_FOREIGN_CIPHERTEXT);
    CHECK(strstr(passcode_errmsg(t), "another data key") != NULL);
    passcode_close(t);
    passcode_close(s);
}

static void test_seal_needs_the_key_released_in_this_process(void) {
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], plain[8] = "secret!", sealed[8 + 52], back[8];
    size_t n = 0, got = 0;
    int32_t locked = 0;
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    CHECK_STATUS(passcode_seal(s, plain, 8, sealed, sizeof sealed, &n), PASSCODE_OK);
    /* Locked after the auto-lock timeout: held for biometrics, not released. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, &locked), PASSCODE_OK);
    advance_ms(3600 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_seal(s, plain, 8, sealed, sizeof sealed, &n), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_OK);
    /* Another handle in this process that has not seen the passcode has nothing. */
    passcode_store *t = open_fast(path);
    CHECK_STATUS(passcode_unseal(t, sealed, n, back, sizeof back, &got), PASSCODE_ERR_KEY_NOT_RELEASED);
    passcode_close(t);
    /* Lock now wipes it. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &locked), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_ERR_KEY_NOT_RELEASED);
    passcode_close(s);
    /* After close and reopen (a new launch): nothing until the passcode. */
    s = open_fast(path);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_OK);
    CHECK(got == 8 && memcmp(back, plain, 8) == 0);
    passcode_close(s);
}

/* ---- biometrics -------------------------------------------------------------------------- */

static passcode_store *biometric_store(char *path, size_t size, mailbox *m, uint8_t key[KEY]) {
    passcode_store *s = keyed_store(path, size, m, key);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    return s;
}

static void lock_by_timeout(passcode_store *s) {
    int32_t locked = 0;
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, &locked), PASSCODE_OK);
    advance_ms(3600 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK(locked == 1);
}

static void test_biometric_release_within_policy_only(void) {
    /* In service mode passcoded reads the finger through fprintd (the template: service_finger);
     * a check the policy refuses claims no reader and reads no finger. */
    service_reader(1);
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], out[KEY];
    int32_t refusal = -1, count = 0, locked = 0;
    passcode_store *s = biometric_store(path, sizeof path, &m, key);
    lock_by_timeout(s);
    service_finger("verify-match");
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE && memcmp(out, key, KEY) == 0);
    /* 5 failed matches: refused, and the key is wiped (a later passcode-free try gets nothing). */
    lock_by_timeout(s);
    for (int i = 0; i < 5; i++) CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_TOO_MANY_BIOMETRIC_FAILURES && all_zero(out, KEY));
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* The 48-hour rule. */
    lock_by_timeout(s);
    advance_ms(48LL * 3600 * 1000);
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_PASSCODE_NOT_USED_FOR_48_HOURS);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* Lock now wipes it from the handle; as on iOS a biometric match may unlock again, and the
     * session keyring's entry (api_session.c) brings the same key back. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &locked), PASSCODE_OK);
    uint8_t sealed[60];
    size_t n = 0;
    CHECK(locked == 1);
    CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_biometric_check(s, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE);
    memset(out, 0xAA, KEY);
    service_finger("verify-match");
    if (service_backend) {
        /* passcoded keeps no session keyring: after lock now a match releases no key there, and
         * nothing unlocks; the passcode does. */
        CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
        CHECK(all_zero(out, KEY));
        CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
        CHECK(locked == 1);
        CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, KEY), PASSCODE_OK);
        CHECK(memcmp(out, key, KEY) == 0);
    } else {
        CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_OK);
        CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE && memcmp(out, key, KEY) == 0);
    }
    passcode_close(s);
    service_reader(0);
}

static passcode_store *open_without_keyring(const char *path) {
    passcode_options *o = fast_options();
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_options_set_session_keyring(o, 2), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_session_keyring(NULL, 0), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_options_set_session_keyring(o, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    return s;
}

/* A host that opted out of the session keyring: lock now wipes the key for good, and only the
 * passcode releases it again. */
/* Five failed biometric matches take the key from the handle, as the passcode's own failures do:
 * the host seals nothing more until the passcode is entered again. The rule is the core's; in
 * service mode the client applies it to the key it holds in this process. */
static void test_five_failed_matches_take_the_key_on_both_back_ends(void) {
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], sealed[60];
    size_t n = 0;
    int32_t count = 0;
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_OK);
    for (int i = 0; i < 4; i++) CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
    CHECK(count == 4);
    CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_OK);  /* 4: kept */
    CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
    CHECK(count == 5);
    CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_OK);
    passcode_close(s);
}

static void test_lock_now_wipes_the_key_without_the_session_keyring(void) {
    EMBEDDED_ONLY(ONLY_OPEN);
    char path[512];
    uint8_t key[KEY], out[KEY];
    int32_t refusal = -1, locked = 0;
    new_path(path, sizeof path, "nokeyring.db");
    passcode_store *s = open_without_keyring(path);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &locked), PASSCODE_OK);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY && all_zero(out, KEY));
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    passcode_close(s);
}

static void test_biometric_after_a_launch_needs_the_session_keyring(void) {
    /* Service mode's counterpart: test_biometric_release_within_policy_only (no keyring there). */
    EMBEDDED_ONLY(ONLY_KEYRING);
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], out[KEY];
    int32_t refusal = -1, locked = 0;
    passcode_store *s = biometric_store(path, sizeof path, &m, key);
    passcode_close(s);
    /* A new process (a new handle) of a host without the session keyring: even where the
     * stored state allows a biometric unlock, the key is not in memory, so only the passcode
     * releases it. */
    s = open_without_keyring(path);
    lock_by_timeout(s);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY && all_zero(out, KEY));
    CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 1);  /* and nothing unlocked */
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, KEY), PASSCODE_OK);
    lock_by_timeout(s);
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    passcode_close(s);
    /* With it (the default), the first process's passcode unlock is enough in this boot. */
    s = open_fast(path);
    lock_by_timeout(s);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_biometric_unlock_key(s, out, KEY, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE && memcmp(out, key, KEY) == 0);
    passcode_close(s);
}

/* ---- flows ------------------------------------------------------------------------------- */

static void type(passcode_flow *f, const char *digits) {
    for (const char *p = digits; *p; p++) CHECK_STATUS(passcode_flow_digit(f, *p - '0'), PASSCODE_OK);
}

static void test_flows_give_the_key_once(void) {
    char path[512];
    uint8_t key[KEY], out[KEY];
    passcode_flow *f = NULL;
    int32_t step = 0, result = 0;
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CREATE, &f), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_take_key(f, out, KEY), PASSCODE_ERR_KEY_NOT_RELEASED);  /* not yet */
    type(f, PC1);
    type(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(result == PASSCODE_FLOW_RESULT_SUCCESS);
    CHECK_STATUS(passcode_flow_take_key(f, key, KEY), PASSCODE_OK);
    memset(out, 0xAA, KEY);
    CHECK_STATUS(passcode_flow_take_key(f, out, KEY), PASSCODE_ERR_KEY_NOT_RELEASED);  /* once */
    CHECK(all_zero(out, KEY));
    passcode_flow_free(f);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    /* An unlock flow: a wrong entry gives nothing, the right one the key. */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
    type(f, PC2);
    CHECK_STATUS(passcode_flow_take_key(f, out, KEY), PASSCODE_ERR_KEY_NOT_RELEASED);
    type(f, PC1);
    CHECK_STATUS(passcode_flow_take_key(f, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    passcode_flow_free(f);
    /* A change flow keeps the key. */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CHANGE, &f), PASSCODE_OK);
    type(f, PC1);
    type(f, PC2);
    type(f, PC2);
    CHECK_STATUS(passcode_flow_take_key(f, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    passcode_flow_free(f);
    CHECK_STATUS(passcode_unlock_key(s, PC2, LEN, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    /* A cancelled flow gives nothing. */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
    passcode_flow_cancel(f);
    CHECK_STATUS(passcode_flow_take_key(f, out, KEY), PASSCODE_ERR_KEY_NOT_RELEASED);
    passcode_flow_free(f);
    passcode_close(s);
}

/* ---- reset by email and the recovery key ------------------------------------------------- */

static void test_reset_with_and_without_the_recovery_key(void) {
    char path[512];
    mailbox m = {0}, um = {0}, tm = {0};
    uint8_t key[KEY], out[KEY], recovery[KEY], wrong[KEY], plain[5] = "note", sealed[5 + 52], back[5];
    size_t n = 0, got = 0;
    int32_t has = -1;
    for (int i = 0; i < KEY; i++) { recovery[i] = (uint8_t)(i * 3 + 1); wrong[i] = (uint8_t)(i * 5 + 2); }
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    CHECK_STATUS(passcode_seal(s, plain, 5, sealed, sizeof sealed, &n), PASSCODE_OK);
    CHECK_STATUS(passcode_has_recovery_key(s, &has), PASSCODE_OK);
    CHECK(has == 0);
    CHECK_STATUS(passcode_set_recovery_key(s, recovery, 31), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set_recovery_key(s, recovery, KEY), PASSCODE_OK);
    CHECK_STATUS(passcode_has_recovery_key(s, &has), PASSCODE_OK);
    CHECK(has == 1);
    /* Forgotten passcode: the reset code and the recovery key keep the key. */
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_complete_with_recovery_key(s, m.code, strlen(m.code), PC3, LEN, wrong, KEY),
                 PASSCODE_ERR_WRONG_RECOVERY_KEY);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, out, KEY), PASSCODE_OK);  /* nothing changed */
    CHECK_STATUS(passcode_reset_complete_with_recovery_key(s, m.code, strlen(m.code), PC3, LEN, recovery, KEY), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_OK);  /* released by the reset */
    CHECK_STATUS(passcode_unlock_key(s, PC3, LEN, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) == 0);
    /* Without it: a new key, and the host cannot miss it. */
    advance_ms(3600 * 1000);  /* past the request interval */
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_complete(s, m.code, strlen(m.code), PC2, LEN), PASSCODE_ERR_KEY_REPLACED);
    CHECK(strstr(passcode_errmsg(s), "could not be kept") != NULL);
    CHECK_STATUS(passcode_unlock_key(s, PC2, LEN, out, KEY), PASSCODE_OK);  /* the reset did complete */
    CHECK(memcmp(out, key, KEY) != 0);
    CHECK_STATUS(passcode_unseal(s, sealed, n, back, sizeof back, &got), PASSCODE_ERR_FOREIGN_CIPHERTEXT);
    CHECK_STATUS(passcode_has_recovery_key(s, &has), PASSCODE_OK);
    CHECK(has == 0);  /* the old copy wrapped the old key */
    passcode_close(s);
    /* Taking the key alone (no seal, no recovery key) is enough for the reset to say so. */
    {
        char taken_path[512];
        uint8_t k[KEY];
        passcode_store *u = store_with_passcode(taken_path, sizeof taken_path, &um);
        CHECK_STATUS(passcode_unlock_key(u, PC1, LEN, k, KEY), PASSCODE_OK);
        advance_ms(3600 * 1000);
        CHECK_STATUS(request_code(u, &um), PASSCODE_OK);
        CHECK_STATUS(passcode_reset_complete(u, um.code, strlen(um.code), PC2, LEN), PASSCODE_ERR_KEY_REPLACED);
        passcode_close(u);
    }
    /* A host that never took the key hears nothing new from a reset. */
    char plain_path[512];
    passcode_store *t = new_store(plain_path, sizeof plain_path);
    CHECK_STATUS(passcode_set(t, PC1, LEN), PASSCODE_OK);
    mailbox_attach(t, &tm);
    CHECK_STATUS(request_code(t, &tm), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_complete(t, tm.code, strlen(tm.code), PC2, LEN), PASSCODE_OK);
    passcode_close(t);
}

static void test_recovery_key_needs_the_released_key(void) {
    char path[512];
    uint8_t recovery[KEY] = {1};
    int32_t locked = 0;
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_recovery_key(s, recovery, KEY), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &locked), PASSCODE_OK);
    CHECK_STATUS(passcode_set_recovery_key(s, recovery, KEY), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_set_recovery_key(s, NULL, KEY), PASSCODE_ERR_MISUSE);
    passcode_close(s);
}

/* ---- forgot and delete account leave no key material --------------------------------------- */

static void test_forgot_and_delete_account_leave_no_key_bytes(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    for (int delete_account = 0; delete_account < 2; delete_account++) {
        char path[512];
        mailbox m = {0};
        uint8_t key[KEY], recovery[KEY], wrap[600], rwrap[200];
        for (int i = 0; i < KEY; i++) recovery[i] = (uint8_t)(200 - i);
        passcode_store *s = keyed_store(path, sizeof path, &m, key);
        CHECK_STATUS(passcode_set_recovery_key(s, recovery, KEY), PASSCODE_OK);
        size_t wn = query_bytes(path, "SELECT verifier FROM passcode", wrap, sizeof wrap);
        size_t rn = query_bytes(path, "SELECT wrap FROM recovery", rwrap, sizeof rwrap);
        CHECK(wn > 100 && rn == 72);
        /* The wrapped key (the base64 after the last '$') and the recovery wrap are in the file now. */
        wrap[wn] = 0;
        const uint8_t *tail = (const uint8_t *)strrchr((const char *)wrap, '$') + 1;
        CHECK(store_contains(path, tail, strlen((const char *)tail)) && store_contains(path, rwrap, rn));
        if (delete_account) CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK);
        else CHECK_STATUS(passcode_forgot(s), PASSCODE_OK);
        CHECK(!store_contains(path, tail, strlen((const char *)tail)));
        CHECK(!store_contains(path, rwrap, rn));
        CHECK(!store_contains(path, key, KEY));
        size_t wal_len = 0;
        char wal[600];
        snprintf(wal, sizeof wal, "%s-wal", path);
        free(slurp(wal, &wal_len));
        CHECK(wal_len == 0);  /* the log was truncated */
        uint8_t sealed[60];
        size_t n = 0;
        CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_ERR_KEY_NOT_RELEASED);
        passcode_close(s);
        CHECK(!store_contains(path, tail, strlen((const char *)tail)) && !store_contains(path, rwrap, rn));
    }
}

/* ---- the file is input --------------------------------------------------------------------- */

static void test_hostile_verifiers_are_corrupt_not_slow(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    const char *edits[] = {
        /* Hours of Argon2id work, or all memory: refused before any is done. */
        "UPDATE passcode SET verifier = replace(verifier, 'ops=1,', 'ops=4294967295,')",
        "UPDATE passcode SET verifier = replace(verifier, 'mem=8192$', 'mem=4398046510080$')",
        "UPDATE passcode SET verifier = replace(verifier, 'mem=8192$', 'mem=99999999999999999999$')",
        "UPDATE passcode SET verifier = substr(verifier, 1, length(verifier) - 3)",
        "UPDATE passcode SET verifier = replace(verifier, '$v=1$', '$v=2$')",
        "UPDATE passcode SET verifier = '$argon2id$v=19$m=4294967295,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'",
        "UPDATE passcode SET verifier = x'2470637772617024'",
        "UPDATE recovery SET wrap = x'00'",
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char path[512];
        mailbox m = {0};
        uint8_t key[KEY], recovery[KEY] = {9};
        passcode_store *s = keyed_store(path, sizeof path, &m, key);
        CHECK_STATUS(passcode_set_recovery_key(s, recovery, KEY), PASSCODE_OK);
        passcode_close(s);
        sql_exec(path, edits[i]);
        size_t before_len;
        char *before = slurp(path, &before_len);
        s = open_fast(path);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int32_t rc = strstr(edits[i], "recovery") ? passcode_has_recovery_key(s, (int32_t[]){0})
                                                  : passcode_unlock_key(s, PC1, LEN, key, KEY);
        clock_gettime(CLOCK_MONOTONIC, &b);
        CHECK_STATUS(rc, PASSCODE_ERR_CORRUPT);
        CHECK(b.tv_sec - a.tv_sec < 5);
        CHECK(all_zero(key, KEY) || strstr(edits[i], "recovery"));
        passcode_close(s);
        CHECK(same_file(path, before, before_len));  /* nothing was written */
        free(before);
    }
}

/* ---- stores from earlier versions --------------------------------------------------------- */

static void copy_file(const char *from, const char *to) {
    size_t len;
    char *data = slurp(from, &len);
    CHECK(data != NULL);
    int fd = open(to, O_CREAT | O_EXCL | O_WRONLY, 0600);
    CHECK(fd >= 0 && data && write(fd, data, len) == (ssize_t)len);
    close(fd);
    free(data);
}

static int user_version(const char *path) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int out = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        out = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static void test_old_stores_migrate_at_the_next_successful_verify(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    const char *fixtures[] = {"store-v2.db", "store-v3.db", "store-v3-pepper.db"};
    uint8_t pepper[32];
    for (int i = 0; i < 32; i++) pepper[i] = (uint8_t)(i + 1);
    for (int f = 0; f < 3; f++) {
        char from[600], path[512];
        uint8_t old_hash[300], now_hash[600], key[KEY], again[KEY];
        snprintf(from, sizeof from, "%s/%s", FIXTURES, fixtures[f]);
        new_path(path, sizeof path, fixtures[f]);
        copy_file(from, path);
        size_t on = query_bytes(path, "SELECT hash FROM passcode", old_hash, sizeof old_hash - 1);
        old_hash[on] = 0;
        CHECK(on > 0 && strncmp((const char *)old_hash, "$argon2id$", 10) == 0);
        passcode_options *o = fast_options();
        if (f == 2) CHECK_STATUS(passcode_options_set_pepper(o, pepper, 32), PASSCODE_OK);
        passcode_store *s = NULL;
        CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
        CHECK(user_version(path) == 4);
        CHECK(failures(s) == 1);  /* the fixture's failed attempt survived the migration */
        /* Until the next success the old hash stays (and still works). */
        CHECK_STATUS(passcode_unlock_key(s, "000001", 6, key, KEY), PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(store_contains(path, old_hash, on));
        CHECK_STATUS(passcode_unlock_key(s, "284915", 6, key, KEY), PASSCODE_OK);
        CHECK(!all_zero(key, KEY) && failures(s) == 0);
        size_t nn = query_bytes(path, "SELECT verifier FROM passcode", now_hash, sizeof now_hash);
        CHECK(nn > 12 && memcmp(now_hash, "$pcwrap$v=1$", 12) == 0);
        CHECK(!store_contains(path, old_hash, on));  /* gone from the file and the log */
        passcode_close(s);
        CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
        passcode_options_free(o);
        CHECK_STATUS(passcode_unlock_key(s, "284915", 6, again, KEY), PASSCODE_OK);  /* not TAMPERED, same key */
        CHECK(memcmp(key, again, KEY) == 0);
        CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 300);
        passcode_close(s);
        CHECK(!store_contains(path, old_hash, on));
    }
}

/* ---- the attack from a second process ------------------------------------------------------ */

/* The second process: another program of the same user in another login session (an ssh
 * login, a cron job: its own session keyring), with the store file and the host's options,
 * while the app (the first process) is unlocked with the key released. It tries the biometric
 * path, sealing, and then guesses with passcode_unlock_key for 24 simulated hours, waiting out
 * every lockout. Prints what it got. (A program in the app's own login session can release the
 * key by reporting a biometric match: the cost passcode(7) states; api_session.c shows it.) */
int key_attack(const char *path, const char *boot_ms, const char *wall_ms, const char *boot_id) {
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) { perror("keyctl join"); return 1; }
    the_clock.boot_ms = strtoll(boot_ms, NULL, 10);
    the_clock.wall_ms = strtoll(wall_ms, NULL, 10);
    the_clock.boot_id = strtoull(boot_id, NULL, 10);
    passcode_store *s = open_fast(path);
    uint8_t key[KEY], acc = 0, sealed[60];
    int32_t refusal = -1, rc;
    size_t n = 0;
    int bio = passcode_biometric_unlock_key(s, key, KEY, &refusal);
    for (int i = 0; i < KEY; i++) acc |= key[i];
    int seal = passcode_seal(s, key, 8, sealed, sizeof sealed, &n);
    int64_t start = the_clock.boot_ms, checked = 0;
    for (int i = 0; the_clock.boot_ms - start < 24LL * 3600 * 1000; i++) {
        char guess[8];
        snprintf(guess, sizeof guess, "%06d", (i * 7919 + 13) % 1000000);
        if (!strcmp(guess, PC1)) continue;
        rc = passcode_unlock_key(s, guess, LEN, key, KEY);
        for (int k = 0; k < KEY; k++) acc |= key[k];
        if (rc == PASSCODE_ERR_WRONG_PASSCODE || rc == PASSCODE_ERR_RESET_REQUIRED) checked++;
        if (rc == PASSCODE_ERR_LOCKED_OUT) the_clock.boot_ms += passcode_errwait(s) * 1000, the_clock.wall_ms += passcode_errwait(s) * 1000;
        else if (rc == PASSCODE_ERR_RESET_REQUIRED) break;  /* only a reset by email helps now */
        else if (rc != PASSCODE_ERR_WRONG_PASSCODE && rc != PASSCODE_ERR_RESET_REQUIRED) { printf("unexpected %d\n", rc); break; }
    }
    printf("%d %d %d %lld %d\n", bio, refusal, seal, (long long)checked, acc != 0);
    passcode_close(s);
    return 0;
}

static void test_a_second_process_gets_no_key_and_only_the_schedules_guesses(void) {
    EMBEDDED_ONLY(ONLY_PROCESS);
    char path[512], line[128] = "";
    mailbox m = {0};
    uint8_t key[KEY];
    passcode_store *s = keyed_store(path, sizeof path, &m, key);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    CHECK(run_self("--attack-key", path, the_clock.boot_id, line, sizeof line));
    int bio = -1, refusal = -1, seal = -1, seen = -1;
    long long checked = -1;
    CHECK(sscanf(line, "%d %d %d %lld %d", &bio, &refusal, &seal, &checked, &seen) == 5);
    CHECK(bio == PASSCODE_ERR_PASSCODE_REQUIRED && refusal == PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY);
    CHECK(seal == PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK(seen == 0);  /* not one byte of the key, in any buffer */
    /* Apple's schedule: 9 wrong answers in a day; the 10th guess is answered with "reset required". */
    CHECK(checked == 10);
    printf("second process (another login session): biometric key release refused (key not in its memory), seal refused, "
           "%lld guesses answered in 24 simulated hours (the last one requires a reset), no key byte seen\n", checked);
    /* The first process's key was never at risk; it is wiped now that a reset is required. */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_RESET_REQUIRED);
    uint8_t sealed[60];
    size_t n = 0;
    CHECK_STATUS(passcode_seal(s, key, 8, sealed, sizeof sealed, &n), PASSCODE_ERR_KEY_NOT_RELEASED);
    passcode_close(s);
}

void run_key_tests(void) {
    RUN(test_a_second_process_gets_no_key_and_only_the_schedules_guesses);
    RUN(test_sizes);
    RUN(test_wrong_passcode_gives_no_key_and_a_zeroed_buffer);
    RUN(test_key_is_stable_across_change_disable_enable_and_reopen);
    RUN(test_key_is_stable_across_a_cost_upgrade);
    RUN(test_seal_round_trip_tamper_truncation_and_foreign_store);
    RUN(test_seal_needs_the_key_released_in_this_process);
    RUN(test_biometric_release_within_policy_only);
    RUN(test_biometric_after_a_launch_needs_the_session_keyring);
    RUN(test_lock_now_wipes_the_key_without_the_session_keyring);
    RUN(test_five_failed_matches_take_the_key_on_both_back_ends);
    RUN(test_flows_give_the_key_once);
    RUN(test_reset_with_and_without_the_recovery_key);
    RUN(test_recovery_key_needs_the_released_key);
    RUN(test_forgot_and_delete_account_leave_no_key_bytes);
    RUN(test_hostile_verifiers_are_corrupt_not_slow);
    RUN(test_old_stores_migrate_at_the_next_successful_verify);
}
