/* Removing a whole store (passcode_store_remove): with its passcode (a counted verify) or
 * freely without one, the files going, the handle and every other handle answering
 * PASSCODE_ERR_STORE_REMOVED afterwards, and a new open making a new, empty store. */
#include "api_support.h"
#include <sqlite3.h>

static int gone(const char *path) {
    return !exists(path) && !exists2(path, "-wal") && !exists2(path, "-shm");
}

/* Every call on a removed store's handle answers STORE_REMOVED; closing it is as usual. */
static void check_removed_handle(passcode_store *s) {
    int32_t v = -1;
    int64_t x = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_ERR_STORE_REMOVED);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_STORE_REMOVED);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_ERR_STORE_REMOVED);
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &x), PASSCODE_ERR_STORE_REMOVED);
    CHECK_STATUS(passcode_store_remove(s, NULL, 0), PASSCODE_ERR_STORE_REMOVED);
    CHECK(strstr(passcode_errmsg(s), "removed") != NULL);
    passcode_flow *f = NULL;
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CREATE, &f), PASSCODE_ERR_STORE_REMOVED);
    CHECK(f == NULL);
}

static void test_store_remove_without_passcode(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    passcode_flow *f = NULL;
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CREATE, &f), PASSCODE_OK);
    /* Bad input loses nothing: a passcode for a store with none, NULL digits with a length. */
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_store_remove(s, NULL, 6), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_store_remove(NULL, NULL, 0), PASSCODE_ERR_INVALID_HANDLE);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 60);
    CHECK_STATUS(passcode_store_remove(s, NULL, 0), PASSCODE_OK);
    if (!service_backend) CHECK(gone(path));
    check_removed_handle(s);
    CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_STORE_REMOVED);  /* its flows end */
    passcode_flow_free(f);
    passcode_close(s);
    /* The same path (app id) again: a new, empty store with the defaults. */
    passcode_store *t = open_fast(path);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(t, &v), PASSCODE_OK);
    CHECK(v == 0);
    CHECK(get_setting(t, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    CHECK_STATUS(passcode_store_remove(t, NULL, 0), PASSCODE_OK);
    passcode_close(t);
}

static void test_store_remove_needs_the_passcode_and_counts_a_wrong_one(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_store_remove(s, NULL, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(strstr(passcode_errmsg(s), "needs the passcode") != NULL);
    CHECK_STATUS(passcode_store_remove(s, "12", 2), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_store_remove(s, "38a491", LEN), PASSCODE_ERR_FORMAT);  /* a non-digit */
    CHECK(failures(s) == 0);  /* none was counted */
    CHECK_STATUS(passcode_store_remove(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);  /* a wrong one is, as a verify */
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    if (!service_backend) CHECK(exists(path));
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_OK);
    if (!service_backend) CHECK(gone(path));
    check_removed_handle(s);
    passcode_close(s);
    passcode_store *t = open_fast(path);
    CHECK_STATUS(passcode_is_set(t, &v), PASSCODE_OK);
    CHECK(v == 0);
    CHECK(failures(t) == 0);
    CHECK_STATUS(passcode_store_remove(t, NULL, 0), PASSCODE_OK);
    passcode_close(t);
}

/* A lockout answers as verify answers it: the passcode is not even checked, nothing goes. */
static void test_store_remove_answers_a_lockout_as_verify(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    for (int i = 0; i < 5; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(lockout(s) > 0);
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    advance_ms(61 * 1000);
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void count_logout(void *payload, int32_t reason) { (void)reason; (*(int *)payload)++; }

/* Logged out (forgot passcode): no passcode is set, so nothing is needed. */
static void test_store_remove_while_logged_out_needs_nothing(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    int logouts = 0;
    CHECK_STATUS(passcode_set_logout_callback(s, count_logout, &logouts), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(s), PASSCODE_OK);
    int32_t locked = -1, reason = -1;
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(reason == PASSCODE_LOCK_REASON_LOGGED_OUT);
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_store_remove(s, NULL, 0), PASSCODE_OK);
    if (!service_backend) CHECK(gone(path));
    passcode_close(s);
}

typedef struct { int asked, refuse; int32_t last; } lifecycle_log;
static int32_t lifecycle_cb(void *payload, int32_t event, char *message, size_t size) {
    lifecycle_log *l = payload;
    l->asked++;
    l->last = event;
    if (l->refuse) { snprintf(message, size, "the backend is offline"); return 1; }
    return 0;
}

/* With a passcode, the lifecycle callback hears REMOVED and can refuse: nothing goes then. */
static void test_store_remove_asks_the_lifecycle_callback(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    lifecycle_log l = {0, 1, 0};
    CHECK_STATUS(passcode_set_lifecycle_callback(s, lifecycle_cb, &l), PASSCODE_OK);
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_ERR_HOOK_FAILED);
    CHECK(l.asked == 1 && l.last == PASSCODE_LIFECYCLE_EVENT_REMOVED);
    CHECK(strstr(passcode_errmsg(s), "offline") != NULL);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    if (!service_backend) CHECK(exists(path));
    l.refuse = 0;
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_OK);
    CHECK(l.asked == 2);
    passcode_close(s);
}

/* A second handle on the store: embedded, it answers STORE_REMOVED and never writes to the
 * removed file (a new store at the path is untouched by it); through the service, the app id
 * names a new, empty store at once. */
static void test_store_remove_other_handles(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    passcode_store *other = open_fast(path);
    CHECK_STATUS(passcode_verify(other, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_OK);
    int32_t v = -1;
    if (service_backend) {
        CHECK_STATUS(passcode_is_set(other, &v), PASSCODE_OK);
        CHECK(v == 0);
    } else {
        CHECK_STATUS(passcode_is_set(other, &v), PASSCODE_ERR_STORE_REMOVED);
        CHECK_STATUS(passcode_verify(other, PC1, LEN), PASSCODE_ERR_STORE_REMOVED);
        passcode_store *fresh = open_fast(path);
        CHECK_STATUS(passcode_set(other, PC2, LEN), PASSCODE_ERR_STORE_REMOVED);
        CHECK_STATUS(passcode_setting_set(other, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_ERR_STORE_REMOVED);
        CHECK_STATUS(passcode_is_set(fresh, &v), PASSCODE_OK);
        CHECK(v == 0);
        CHECK(get_setting(fresh, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
        CHECK_STATUS(passcode_set(fresh, PC3, LEN), PASSCODE_OK);
        CHECK_STATUS(passcode_is_set(other, &v), PASSCODE_ERR_STORE_REMOVED);
        passcode_close(other);  /* its close takes nothing of the new store's files */
        CHECK(exists(path) && exists2(path, "-wal"));
        CHECK_STATUS(passcode_verify(fresh, PC3, LEN), PASSCODE_OK);
        passcode_close(fresh);
        other = NULL;
    }
    passcode_close(other);
    passcode_close(s);
}

/* Another process has the store open while it is removed: its next call answers STORE_REMOVED,
 * its writes reach no file, and the path stays free of it. */
static void test_store_remove_seen_by_another_process(void) {
    EMBEDDED_ONLY(ONLY_PROCESS);
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    int ready[2], go[2], result[2];
    CHECK(pipe(ready) == 0 && pipe(go) == 0 && pipe(result) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        passcode_store *c = open_fast(path);
        int32_t v = -1, rc[3];
        passcode_is_set(c, &v);
        char b = 1;
        if (write(ready[1], &b, 1) != 1 || read(go[0], &b, 1) != 1) _exit(2);
        rc[0] = passcode_verify(c, PC1, LEN);
        rc[1] = passcode_setting_set(c, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60);
        rc[2] = passcode_is_set(c, &v);
        passcode_close(c);
        _exit(write(result[1], rc, sizeof rc) == sizeof rc ? 0 : 3);
    }
    char b = 0;
    CHECK(read(ready[0], &b, 1) == 1);
    CHECK_STATUS(passcode_store_remove(s, PC1, LEN), PASSCODE_OK);
    CHECK(gone(path));
    CHECK(write(go[1], &b, 1) == 1);
    int32_t rc[3] = {-1, -1, -1};
    CHECK(read(result[0], rc, sizeof rc) == sizeof rc);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_STATUS(rc[0], PASSCODE_ERR_STORE_REMOVED);
    CHECK_STATUS(rc[1], PASSCODE_ERR_STORE_REMOVED);
    CHECK_STATUS(rc[2], PASSCODE_ERR_STORE_REMOVED);
    CHECK(gone(path));  /* the other process's close made no file at the path */
    close(ready[0]); close(ready[1]); close(go[0]); close(go[1]); close(result[0]); close(result[1]);
    passcode_close(s);
}

/* A removal killed after its commit and before its files went leaves the removal marker as the
 * whole schema (Schema.removedMarker): the next open finishes the removal and makes a new,
 * empty store at the path. */
static void test_store_remove_cut_short_is_finished_by_the_next_open(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    passcode_close(s);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    const char *tables[] = { "passcode", "recovery", "settings", "state", "reset_code", "reset_request", "session", "event" };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char sql[80];
        snprintf(sql, sizeof sql, "DROP TABLE %s", tables[i]);
        CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
    }
    CHECK(sqlite3_exec(db, "CREATE TABLE removed_store(id INTEGER PRIMARY KEY)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    passcode_store *t = open_fast(path);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(t, &v), PASSCODE_OK);
    CHECK(v == 0);
    CHECK(get_setting(t, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    CHECK_STATUS(passcode_set(t, PC2, LEN), PASSCODE_OK);  /* a store that works, of its own */
    CHECK_STATUS(passcode_verify(t, PC2, LEN), PASSCODE_OK);
    passcode_close(t);
}

void run_remove_tests(void) {
    RUN(test_store_remove_without_passcode);
    RUN(test_store_remove_needs_the_passcode_and_counts_a_wrong_one);
    RUN(test_store_remove_answers_a_lockout_as_verify);
    RUN(test_store_remove_while_logged_out_needs_nothing);
    RUN(test_store_remove_asks_the_lifecycle_callback);
    RUN(test_store_remove_other_handles);
    RUN(test_store_remove_seen_by_another_process);
    RUN(test_store_remove_cut_short_is_finished_by_the_next_open);
}
