/* C API tests: a hostile store file and a careless host. Each test is one of the attacks of
 * the "hostile store" issue, run as an attacker would: with a copy of the file, write access to
 * it, or a host that skipped a callback. Each failed on 0.1.0. */
#include "api_support.h"

#include <pwd.h>
#include <sqlite3.h>
#include <sys/utsname.h>

/* Runs SQL on the store as another program would (an attacker with write access). */
static void edit(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) { fprintf(stderr, "edit: cannot open %s\n", path); abort(); }
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) { fprintf(stderr, "edit: %s: %s\n", sql, err); abort(); }
    sqlite3_close(db);
}

/* The first text or blob column of the first row, into out. */
static int query_text(const char *path, const char *sql, char *out, size_t size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int found = 0;
    if (sqlite3_open(path, &db) == SQLITE_OK && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW) {
        const void *p = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        if (n >= size) n = size - 1;
        if (p) memcpy(out, p, n);
        out[n] = 0;
        found = 1;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return found;
}



/* 1. A pending reset code costs as much to search offline as the passcode: the same Argon2id. */
static void test_reset_code_is_argon2id_at_the_passcodes_cost(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    char path[512], code_hash[256], pass_hash[256];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    CHECK(query_text(path, "SELECT hash FROM reset_code", code_hash, sizeof code_hash));
    CHECK(query_text(path, "SELECT verifier FROM passcode", pass_hash, sizeof pass_hash));
    CHECK(strncmp(code_hash, "$argon2id$v=19$", 15) == 0);
    /* "$argon2id$v=19$m=<KiB>,t=<passes>,p=1$" against the passcode's "$pcwrap$v=1$argon2id,ops=<passes>,mem=<bytes>$". */
    unsigned long kib = 0, t = 0, ops = 0, mem = 0;
    CHECK(sscanf(code_hash, "$argon2id$v=19$m=%lu,t=%lu,p=1$", &kib, &t) == 2);
    CHECK(sscanf(pass_hash, "$pcwrap$v=1$argon2id,ops=%lu,mem=%lu$", &ops, &mem) == 2);
    CHECK(kib > 0 && t == ops && kib * 1024 == mem);
    CHECK(strstr(code_hash, m.code) == NULL);
    passcode_close(s);
}

/* 2. Out-of-range values written into the file are reported as damage, never a crash. */
static void expect_corrupt(const char *sql, const char *name) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_APPLE), PASSCODE_OK);
    passcode_close(s);
    edit(path, sql);
    size_t len;
    char *before = slurp(path, &len);
    s = open_fast(path);
    passcode_set_reset_delivery_callback(s, mailbox_deliver, &m);
    passcode_flow *f = NULL;
    int32_t rc = PASSCODE_OK;
    if (!strcmp(name, "reset_code_length") && strstr(sql, "40")) rc = passcode_flow_new(s, PASSCODE_FLOW_KIND_RESET, &f);
    else if (!strcmp(name, "reset_code_length")) rc = passcode_reset_request(s);
    else if (!strcmp(name, "passcode row")) rc = passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f);
    else rc = passcode_verify(s, PC2, LEN);
    CHECK_STATUS(rc, PASSCODE_ERR_CORRUPT);
    CHECK(strstr(passcode_errmsg(s), name) != NULL);
    CHECK(f == NULL);
    passcode_close(s);
    CHECK(same_file(path, before, len));
    free(before);
}

static void test_out_of_range_values_in_the_file_are_corrupt_not_crashes(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    expect_corrupt("UPDATE settings SET value = 40 WHERE key = 'reset_code_length';"
                   "INSERT OR IGNORE INTO settings VALUES('reset_code_length', 40)", "reset_code_length");
    expect_corrupt("INSERT OR REPLACE INTO settings VALUES('reset_code_length', -3)", "reset_code_length");
    expect_corrupt("UPDATE passcode SET length = 64", "passcode row");
    expect_corrupt("INSERT OR REPLACE INTO settings VALUES('lockout_custom', '9223372036854775807;0');"
                   "INSERT OR REPLACE INTO settings VALUES('lockout_schedule', 2)", "lockout_custom");
    expect_corrupt("INSERT OR REPLACE INTO settings VALUES('max_failure_action', -4294967296)", "max_failure_action");
    expect_corrupt("INSERT OR REPLACE INTO state VALUES('attempt_seq', 'many')", "attempt_seq");
    expect_corrupt("INSERT OR REPLACE INTO state VALUES('lockout_duration_ms', 9223372036854775807)", "lockout_duration_ms");
    expect_corrupt("INSERT OR REPLACE INTO settings VALUES('lockout_schedule', x'00')", "lockout_schedule");
}

/* 3. Forgot passcode and delete account fail closed without the host's callback. */
static void test_forgot_and_delete_fail_closed_without_a_callback(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    size_t len;
    char *before = slurp(path, &len);
    CHECK_STATUS(passcode_forgot(s), PASSCODE_ERR_CALLBACK_REQUIRED);
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_ERR_CALLBACK_REQUIRED);
    if (!service_backend) CHECK(same_file(path, before, len));  /* in service mode: the state below */
    free(before);
    int32_t locked = 0, reason = 0, set = 0;
    passcode_lock_state(s, &locked, &reason);
    passcode_is_set(s, &set);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_REQUESTED && set == 1);
    /* With the callback: logged out, and the lock state says so until a new passcode is set. */
    CHECK_STATUS(passcode_set_logout_callback(s, mailbox_logout, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(s), PASSCODE_OK);
    CHECK(m.logouts == 1);
    passcode_lock_state(s, &locked, &reason);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_LOGGED_OUT);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_OK);
    passcode_lock_state(s, &locked, &reason);
    CHECK(locked == 0 && reason == PASSCODE_LOCK_REASON_NONE);
    CHECK_STATUS(passcode_set_account_deleted_callback(s, mailbox_deleted, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK);
    CHECK(m.deleted == 1);
    passcode_lock_state(s, &locked, &reason);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_LOGGED_OUT);
    passcode_close(s);
}

/* 4. A store, -wal or -shm of another user, or open to group or others, is refused. */
static void expect_permission(const char *path, const char *mention) {
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_PERMISSION);
    CHECK(s == NULL);
    CHECK(strstr(passcode_errmsg(NULL), mention) != NULL);
}

static void test_planted_or_loose_stores_are_refused(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], wal[600], dir[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    passcode_close(s);
    chmod(path, 0666);
    expect_permission(path, "group or others");
    chmod(path, 0640);
    expect_permission(path, "mode 0640");
    chmod(path, 0600);
    snprintf(wal, sizeof wal, "%s-wal", path);
    FILE *f = fopen(wal, "a");
    if (f) fclose(f);
    chmod(wal, 0644);
    expect_permission(path, "wal file");
    chmod(wal, 0600);
    if (geteuid() == 0) {
        struct passwd *nobody = getpwnam("nobody");
        if (nobody && chown(path, nobody->pw_uid, nobody->pw_gid) == 0) {
            expect_permission(path, "owned by uid");
            if (chown(path, 0, 0) != 0) perror("chown");
        }
    } else {
        printf("planted store: the file of another user needs root to make; checked by CI\n");
    }
    s = open_fast(path);  /* private again: accepted */
    passcode_close(s);
    /* A folder others may write, sticky bit or not (they could plant the sidecars). */
    new_path(dir, sizeof dir, "open-folder");
    mkdir(dir, 0700);
    chmod(dir, 0777);
    snprintf(wal, sizeof wal, "%s/store.db", dir);
    expect_permission(wal, "may be written by group or others (mode 0777)");
    CHECK(!exists(wal));
    chmod(dir, 01777);  /* like /tmp: refused too */
    expect_permission(wal, "a sticky bit does not stop that");
    chmod(dir, 0770);
    expect_permission(wal, "mode 0770");
    CHECK(!exists(wal));
    chmod(dir, 0755);  /* only its owner writes it: fine */
    s = open_fast(wal);
    passcode_close(s);
}

/* 5. With a pepper, edits to the security state are detected; without one they cannot be. */
static void test_edits_are_detected_with_a_pepper(void) {
    EMBEDDED_ONLY(ONLY_PEPPER);
    static const uint8_t pepper[32] = {7, 7, 7, 7, 1, 2, 3};
    const char *attacks[] = {
        "INSERT OR REPLACE INTO state VALUES('cleared_seq', (SELECT value FROM state WHERE key = 'attempt_seq'))",
        "DELETE FROM passcode",
        "DELETE FROM state WHERE key IN ('locked', 'lock_reason', 'reset_required', 'lockout_duration_ms')",
        "INSERT OR REPLACE INTO settings VALUES('lockout_schedule', 1)",
    };
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        char path[512];
        mailbox m = {0};
        passcode_options *o = fast_options();
        passcode_options_set_pepper(o, pepper, 32);
        new_path(path, sizeof path, "peppered.db");
        passcode_store *s = NULL;
        CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
        CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
        passcode_set_reset_delivery_callback(s, mailbox_deliver, &m);
        for (int k = 0; k < 5; k++) wrong_guess(s, k, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
        edit(path, attacks[i]);
        int32_t n = 0;
        CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TAMPERED);
        CHECK_STATUS(passcode_failed_attempts(s, &n), PASSCODE_ERR_TAMPERED);
        CHECK_STATUS(passcode_lock_state(s, &n, NULL), PASSCODE_ERR_TAMPERED);
        CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_ERR_TAMPERED);
        CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_ERR_TAMPERED);
        passcode_close(s);
        CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
        CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TAMPERED);  /* still, after reopening */
        {
            passcode_event_log *log = NULL;
            int32_t kind = -1;
            CHECK_STATUS(passcode_event_log_new(s, &log), PASSCODE_OK);  /* the log is readable, and says so */
            CHECK_STATUS(passcode_event_log_get(log, 0, &kind, NULL, NULL), PASSCODE_OK);
            CHECK(kind == PASSCODE_LOG_KIND_TAMPER_DETECTED);
            passcode_event_log_free(log);
        }
        /* The way out: the reset by email (or forgot, or delete account). */
        passcode_set_reset_delivery_callback(s, mailbox_deliver, &m);
        CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
        CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TAMPERED);  /* a request alone mends nothing */
        /* Whether the data key was handed out is a row of the edited file too: it cannot be
         * believed, so the reset says the key was replaced (the safe answer: a host told so
         * when it held no key loses nothing; one not told when it did would keep a dead key). */
        CHECK_STATUS(passcode_reset_complete(s, m.code, strlen(m.code), PC3, LEN), PASSCODE_ERR_KEY_REPLACED);
        CHECK_STATUS(passcode_verify(s, PC3, LEN), PASSCODE_OK);
        CHECK_STATUS(passcode_failed_attempts(s, &n), PASSCODE_OK);
        CHECK(n == 0);
        passcode_close(s);
        passcode_options_free(o);
        advance_ms(61000);
    }
}

/* 6. Replaced codes are gone: no distinct answer, every check counted, no revival. */
static void test_replaced_reset_codes_are_no_oracle(void) {
    EMBEDDED_ONLY(ONLY_REPLACE);
    char path[512], old_code[16];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    strcpy(old_code, m.code);
    advance_ms(61000);
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    CHECK(strcmp(old_code, m.code) != 0);
    for (int i = 0; i < 4; i++) CHECK_STATUS(passcode_reset_check(s, old_code, strlen(old_code)), PASSCODE_ERR_WRONG_RESET_CODE);
    CHECK_STATUS(passcode_reset_check(s, m.code, strlen(m.code)), PASSCODE_OK);  /* a correct check uses no try */
    CHECK_STATUS(passcode_reset_check(s, old_code, strlen(old_code)), PASSCODE_ERR_WRONG_RESET_CODE);  /* the 5th try */
    CHECK_STATUS(passcode_reset_check(s, m.code, strlen(m.code)), PASSCODE_ERR_NO_RESET_CODE);  /* gone */
    /* A failed delivery never brings the earlier code back. */
    advance_ms(61000);
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    strcpy(old_code, m.code);
    advance_ms(61000);
    m.fail = 1;
    CHECK_STATUS(request_code(s, &m), DELIVERY_FAILED);
    CHECK_STATUS(passcode_reset_complete(s, old_code, strlen(old_code), PC2, LEN), PASSCODE_ERR_NO_RESET_CODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

/* 7. Delete account never says OK while old bytes stay in the WAL. */
static int file_contains(const char *path, const char *needle) {
    size_t len;
    char *data = slurp(path, &len);
    int found = 0;
    for (size_t i = 0; data && i + strlen(needle) <= len; i++) {
        if (memcmp(data + i, needle, strlen(needle)) == 0) { found = 1; break; }
    }
    free(data);
    return found;
}

static void test_delete_account_with_a_reader_says_the_wipe_is_pending(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    char path[512], wal[600];
    mailbox m = {0};
    passcode_options *o = fast_options();
    passcode_options_set_busy_timeout(o, 300);
    new_path(path, sizeof path, "wipe.db");
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_session_record(s, "s1", "Kitchen Laptop XYZ", "Linux", 1, NULL, 0), PASSCODE_OK);
    passcode_set_account_deleted_callback(s, mailbox_deleted, &m);
    /* Another connection reads an old snapshot. */
    sqlite3 *reader = NULL;
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_open(path, &reader) == SQLITE_OK);
    sqlite3_exec(reader, "BEGIN", NULL, NULL, NULL);
    CHECK(sqlite3_prepare_v2(reader, "SELECT count(*) FROM passcode", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_ERR_WIPE_PENDING);
    CHECK(m.deleted == 1);
    sqlite3_finalize(st);
    sqlite3_exec(reader, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(reader);
    passcode_close(s);
    /* The next open finishes the wipe. */
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    snprintf(wal, sizeof wal, "%s-wal", path);
    CHECK(!file_contains(wal, "$argon2id$") && !file_contains(path, "$argon2id$"));
    CHECK(!file_contains(wal, "Kitchen Laptop") && !file_contains(path, "Kitchen Laptop"));
    passcode_close(s);
    passcode_options_free(o);
}

/* 8. A time namespace moves the boot clock without privilege; the wall clock holds the lockout. */
static void test_a_time_namespace_does_not_skip_a_lockout(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512], cmd[1200];
    new_path(path, sizeof path, "timens.db");
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);  /* the real clocks */
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    for (int k = 0; k < 5; k++) wrong_guess(s, k, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    passcode_close(s);
    passcode_options_free(o);
    /* Can this kernel make an unprivileged time namespace at all? */
    if (system("unshare --user --map-root-user --time --boottime 61 true >/dev/null 2>&1") != 0) {
        printf("time namespace: NOT RUN: 'unshare --user --map-root-user --time' is not allowed here\n");
        return;
    }
    snprintf(cmd, sizeof cmd, "unshare --user --map-root-user --time --boottime 61 ./test_api --probe-verify '%s' %s", path, PC1);
    FILE *p = popen(cmd, "r");
    int status = -1;
    if (p) {
        if (fscanf(p, "%d", &status) != 1) status = -1;
        pclose(p);
    }
    CHECK_STATUS(status, PASSCODE_ERR_LOCKED_OUT);
    printf("time namespace: boot clock +61 s, wall clock unchanged: verify says %s\n", passcode_strerror(status));
}

/* The schema version is four bytes of the file header: a negative one (`corrupt` writes such
 * bytes; the migrations were once indexed with it, and trapped) is damage, and nothing is written. */
static void test_a_damaged_schema_version_is_corrupt(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    const char *versions[] = {"PRAGMA user_version = -1660944380", "PRAGMA user_version = -1"};
    for (int i = 0; i < 2; i++) {
        char path[512];
        mailbox m = {0};
        passcode_close(store_with_passcode(path, sizeof path, &m));
        edit(path, versions[i]);
        size_t len;
        char *before = slurp(path, &len);
        passcode_options *o = fast_options();
        passcode_store *s = NULL;
        CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_ERR_CORRUPT);
        CHECK(s == NULL && strstr(passcode_errmsg(NULL), "schema version") != NULL);
        passcode_options_free(o);
        CHECK(same_file(path, before, len));
        free(before);
    }
}

void run_hostile_tests(void) {
    RUN(test_a_damaged_schema_version_is_corrupt);
    RUN(test_reset_code_is_argon2id_at_the_passcodes_cost);
    RUN(test_out_of_range_values_in_the_file_are_corrupt_not_crashes);
    RUN(test_forgot_and_delete_fail_closed_without_a_callback);
    RUN(test_planted_or_loose_stores_are_refused);
    RUN(test_edits_are_detected_with_a_pepper);
    RUN(test_replaced_reset_codes_are_no_oracle);
    RUN(test_delete_account_with_a_reader_says_the_wipe_is_pending);
    RUN(test_a_time_namespace_does_not_skip_a_lockout);
}
