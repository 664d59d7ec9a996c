/* The hostile-store fuzzer: the store file is input too. It writes boundary and wrongly typed
 * values (-1, 0, 2^31, 2^63-1, INT64_MIN, text, a blob, NULL) into every column of every table
 * and every settings and state row of a store that has a passcode, failures, a pending reset
 * code, a custom schedule and a session, then runs the whole API on it. Built with ASan and
 * UBSan against the instrumented library: a crash, a sanitizer report, a status outside the
 * documented ones or PASSCODE_ERR_INTERNAL fails it.
 *   hostile_store            every single edit (make test)
 *   hostile_store N SEED     also N random stores with several edits each (make fuzz) */
#include <passcode.h>

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t boot = 1000000, wall = 1700000000000LL;
static char code[16];
static long runs, statuses[64];

static void clock_cb(void *p, int64_t *b, int64_t *w, uint64_t *id) { (void)p; *b = boot; *w = wall; *id = 1; }
static int32_t deliver(void *p, const char *c, size_t n, char *m, size_t size) {
    (void)p; (void)m; (void)size;
    if (n < sizeof code) { memcpy(code, c, n); code[n] = 0; }
    return 0;
}
static void on_logout(void *p, int32_t reason) { (void)p; (void)reason; }
static void on_deleted(void *p) { (void)p; }

static const char *current_edit = "";
static int use_pepper;  /* the second round: a peppered store, whose edits are tampering */
static const uint8_t pepper[32] = {42, 1, 2, 3};

static void check(int32_t rc, const char *call) {
    if (rc < PASSCODE_OK || rc > PASSCODE_ERR_APP_LOCKED || rc == PASSCODE_ERR_INTERNAL) {
        fprintf(stderr, "hostile store: %s returned %d (%s) after: %s\n", call, rc, passcode_strerror(rc), current_edit);
        abort();
    }
    statuses[rc]++;
}
#define CHECK(call) check((call), #call)

static passcode_options *options(void) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_options_set_clock(o, clock_cb, NULL);
    passcode_options_set_busy_timeout(o, 200);
    if (use_pepper) passcode_options_set_pepper(o, pepper, 32);
    return o;
}

static void make_template(const char *path) {
    passcode_options *o = options();
    passcode_store *s = NULL;
    unlink(path);
    if (passcode_open(path, o, &s) != PASSCODE_OK) abort();
    passcode_set_reset_delivery_callback(s, deliver, NULL);
    passcode_set(s, "386491", 6);
    uint32_t delays[] = {0, 0, 30, 60};
    passcode_set_custom_schedule(s, delays, 4, 8);
    passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_APPLE);
    for (int i = 0; i < 3; i++) { char g[8]; snprintf(g, sizeof g, "90000%d", i); passcode_verify(s, g, 6); }
    passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_OTHER);
    passcode_event_report(s, PASSCODE_EVENT_BACKGROUND, NULL);
    passcode_reset_request(s);
    passcode_session_record(s, "a", "Laptop", "Linux", 5, "Berlin", 1);
    passcode_session_record(s, "b", "Phone", "Android", 6, NULL, 0);
    passcode_close(s);
    passcode_options_free(o);
}

/* Every call of the API that reads or acts on the store. */
static void exercise(const char *path) {
    passcode_options *o = options();
    passcode_store *s = NULL;
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    check(rc, "passcode_open");
    if (rc != PASSCODE_OK) return;
    passcode_set_reset_delivery_callback(s, deliver, NULL);
    passcode_set_logout_callback(s, on_logout, NULL);
    passcode_set_account_deleted_callback(s, on_deleted, NULL);
    int32_t i32, r32;
    int64_t i64;
    const char *str;
    CHECK(passcode_is_set(s, &i32));
    CHECK(passcode_is_enabled(s, &i32));
    CHECK(passcode_length(s, &i32));
    CHECK(passcode_failed_attempts(s, &i32));
    CHECK(passcode_lockout_remaining(s, &i64));
    CHECK(passcode_is_reset_required(s, &i32));
    CHECK(passcode_lock_state(s, &i32, &r32));
    for (int32_t k = PASSCODE_SETTING_LOCK_ENABLED; k <= PASSCODE_SETTING_RESET_REQUESTS_PER_DAY; k++) CHECK(passcode_setting_get(s, k, &i64));
    CHECK(passcode_security_label(s, &str));
    CHECK(passcode_biometric_check(s, &i32));
    passcode_lock_screen screen;
    memset(&screen, 0, sizeof screen);
    screen.size = sizeof screen;
    CHECK(passcode_lock_screen_read(s, &screen));
    CHECK(passcode_reset_pending(s, &i32));
    CHECK(passcode_reset_retry_after(s, &i64));
    CHECK(passcode_failure_summary(s, &i32, &i64));
    passcode_event_log *log = NULL;
    if (passcode_event_log_new(s, &log) == PASSCODE_OK) {
        for (size_t i = 0; i < passcode_event_log_count(log); i++) {
            const char *detail;
            CHECK(passcode_event_log_get(log, i, &i32, &i64, &detail));
        }
        passcode_event_log_free(log);
    }
    passcode_session_list *list = NULL;
    if (passcode_session_list_new(s, &list) == PASSCODE_OK) {
        for (size_t i = 0; i < passcode_session_list_count(list); i++) {
            const char *id, *name, *platform, *location;
            int64_t active;
            CHECK(passcode_session_list_get(list, i, &id, &name, &platform, &active, &location, &i32));
        }
        passcode_session_list_free(list);
    }
    for (int32_t kind = PASSCODE_FLOW_KIND_UNLOCK; kind <= PASSCODE_FLOW_KIND_RESET; kind++) {
        passcode_flow *f = NULL;
        if (passcode_flow_new(s, kind, &f) != PASSCODE_OK) continue;
        for (int d = 0; d < 14; d++) passcode_flow_digit(f, (d * 7) % 10);
        CHECK(passcode_flow_state(f, &i32, &r32));
        CHECK(passcode_flow_dots(f, &i32, &r32));
        CHECK(passcode_flow_prompt(f, &str));
        CHECK(passcode_flow_error(f, &str, &i32));
        CHECK(passcode_flow_lockout_remaining(f, &i64));
        passcode_flow_free(f);
    }
    CHECK(passcode_event_report(s, PASSCODE_EVENT_FOREGROUND, &i32));
    CHECK(passcode_event_report(s, PASSCODE_EVENT_LAUNCHED, &i32));
    CHECK(passcode_biometric_unlock(s, &i32));
    CHECK(passcode_biometric_failed(s, &i32));
    CHECK(passcode_verify(s, "502817", 6));
    CHECK(passcode_verify(s, "386491", 6));
    CHECK(passcode_authorize(s, "386491", 6));
    CHECK(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60));
    CHECK(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_CUSTOM));
    CHECK(passcode_change(s, "386491", 6, "915372", 6));
    CHECK(passcode_reset_check(s, code, strlen(code)));
    CHECK(passcode_reset_check(s, "00000000", 8));
    CHECK(passcode_reset_request(s));
    CHECK(passcode_reset_complete(s, code, strlen(code), "502817", 6));
    CHECK(passcode_session_sign_out_others(s, &i32));
    CHECK(passcode_password_change_check(s, "old", 3, "correct horse", 13, "correct horse", 13));
    CHECK(passcode_forgot(s));
    CHECK(passcode_delete_account(s, "DELETE"));
    passcode_close(s);
    runs++;
}

static void copy_file(const char *from, const char *to) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && rm -f '%s-wal' '%s-shm'", from, to, to, to);
    if (system(cmd) != 0) abort();
}

static void edit(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) == SQLITE_OK) sqlite3_exec(db, sql, NULL, NULL, NULL);  /* a refused edit is fine */
    sqlite3_close(db);
}

static const char *values[] = {"-1", "0", "2147483648", "9223372036854775807", "-9223372036854775808",
                               "'text'", "x'00ff'", "NULL", "''", "1e300"};
#define NVALUES (sizeof values / sizeof values[0])

/* Every place a value lives: columns of the tables, and rows of the key/value tables. */
static const char *columns[][2] = {
    {"passcode", "verifier"}, {"recovery", "wrap"}, {"recovery", "id"}, {"passcode", "length"}, {"passcode", "set_wall_ms"}, {"passcode", "id"},
    {"reset_code", "generation"}, {"reset_code", "salt"}, {"reset_code", "hash"}, {"reset_code", "boot_id"},
    {"reset_code", "expires_boot_ms"}, {"reset_code", "expires_wall_ms"}, {"reset_code", "tries"}, {"reset_code", "replaced"},
    {"reset_request", "boot_id"}, {"reset_request", "boot_ms"}, {"reset_request", "wall_ms"}, {"reset_request", "failed"},
    {"session", "id"}, {"session", "device_name"}, {"session", "platform"}, {"session", "last_active_wall_ms"},
    {"session", "location"}, {"session", "is_current"},
    {"event", "id"}, {"event", "wall_ms"}, {"event", "kind"}, {"event", "detail"},
};
static const char *settings_keys[] = {"lock_enabled", "auto_lock_seconds", "lock_at_launch", "lockout_schedule",
    "lockout_custom", "max_failure_action", "biometric_enabled", "require_biometric_on_launch", "two_factor_enabled",
    "last_password_change_wall_ms", "passcode_length", "reset_code_length", "reset_code_lifetime_seconds",
    "reset_request_interval_seconds", "reset_requests_per_day"};
static const char *state_keys[] = {"attempt_seq", "cleared_seq", "lockout_boot_id", "lockout_start_ms",
    "lockout_start_wall_ms", "lockout_duration_ms", "reset_required", "locked", "lock_reason", "background_boot_id",
    "background_ms", "background_wall_ms", "background_pid", "background_process_start", "launch_needs_passcode",
    "biometric_available", "biometric_kind", "biometric_failures", "last_passcode_boot_id", "last_passcode_ms",
    "last_passcode_wall_ms", "wipe_pending", "pepper_check", "integrity_mac"};
#define COUNT(a) (sizeof a / sizeof a[0])

static size_t nplaces(void) { return COUNT(columns) + COUNT(settings_keys) + COUNT(state_keys); }

static void place_sql(size_t place, size_t value, char *sql, size_t size) {
    const char *v = values[value];
    if (place < COUNT(columns)) {
        snprintf(sql, size, "UPDATE %s SET %s = %s", columns[place][0], columns[place][1], v);
    } else if (place < COUNT(columns) + COUNT(settings_keys)) {
        snprintf(sql, size, "INSERT OR REPLACE INTO settings VALUES('%s', %s)", settings_keys[place - COUNT(columns)], v);
    } else {
        snprintf(sql, size, "INSERT OR REPLACE INTO state VALUES('%s', %s)", state_keys[place - COUNT(columns) - COUNT(settings_keys)], v);
    }
}

int main(int argc, char **argv) {
    char dir[] = "/tmp/passcode-hostile-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    char templates[2][128], work[128], sql[256], all[4096];
    snprintf(work, sizeof work, "%s/work.db", dir);
    for (use_pepper = 0; use_pepper < 2; use_pepper++) {
        snprintf(templates[use_pepper], sizeof templates[0], "%s/template%d.db", dir, use_pepper);
        make_template(templates[use_pepper]);
    }
    long edits = 0;
    for (use_pepper = 0; use_pepper < 2; use_pepper++) {
        for (size_t p = 0; p < nplaces(); p++) {
            for (size_t v = 0; v < NVALUES; v++) {
                place_sql(p, v, sql, sizeof sql);
                current_edit = sql;
                copy_file(templates[use_pepper], work);
                edit(work, sql);
                exercise(work);
                edits++;
            }
        }
    }
    long random_stores = argc > 1 ? atol(argv[1]) : 0;
    srand(argc > 2 ? (unsigned)atol(argv[2]) : 1u);
    for (long r = 0; r < random_stores; r++) {
        use_pepper = (int)(r % 2);
        copy_file(templates[use_pepper], work);
        all[0] = 0;
        int k = 2 + rand() % 4;
        for (int e = 0; e < k; e++) {
            place_sql((size_t)rand() % nplaces(), (size_t)rand() % NVALUES, sql, sizeof sql);
            edit(work, sql);
            strncat(all, sql, sizeof all - strlen(all) - 3);
            strcat(all, "; ");
        }
        current_edit = all;
        exercise(work);
    }
    printf("hostile store: %ld single edits (%zu places x %zu values, without and with a pepper), %ld random "
           "multi-edit stores: %ld stores exercised, 0 crashes, every status documented (ok %ld, corrupt %ld, tampered %ld)\n",
           edits, nplaces(), (size_t)NVALUES, random_stores, runs, statuses[0], statuses[PASSCODE_ERR_CORRUPT],
           statuses[PASSCODE_ERR_TAMPERED]);
    snprintf(sql, sizeof sql, "rm -rf '%s'", dir);
    if (system(sql) != 0) return 2;
    return 0;
}
