/* The hostile-store fuzzer: the store file is input too. It writes boundary and wrongly typed
 * values (-1, 0, 2^31, 2^63-1, INT64_MIN, text, a blob, NULL) into every column of every table
 * and every settings and state row of a store that has a passcode, failures, a pending reset
 * code, a custom schedule and a session, then runs the whole API on it. Built with ASan and
 * UBSan against the instrumented library: a crash, a sanitizer report, a status outside the
 * documented ones or PASSCODE_ERR_INTERNAL fails it.
 *   hostile_store            every single edit (make test)
 *   hostile_store N START    also N random stores with several edits each (make fuzz) */
#include <passcode.h>

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../c/testlib.h"

#ifndef FIXTURES
#define FIXTURES "Tests/fixtures"
#endif

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
static uint8_t fixture_pepper[32];  /* Tests/fixtures/make_fixtures.c: 1, 2, ..., 32 */
static const uint8_t *the_pepper = pepper;

/* Every call on a hostile store returns a documented status: REQUIRE, so that a failure aborts
 * where ASan shows it; the statuses are counted for the summary. */
static void documented(int32_t rc, const char *call) {
    REQUIRE(!(rc < PASSCODE_OK || (rc > PASSCODE_ERR_WRONG_RECOVERY_KEY && rc != PASSCODE_ERR_FOREIGN_SCHEMA) || rc == PASSCODE_ERR_INTERNAL),
            "hostile store: %s returned %d (%s) after: %s", call, rc, passcode_strerror(rc), current_edit);
    statuses[rc]++;
}
#define CALL(call) documented((call), #call)

static passcode_options *options(void) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_options_set_clock(o, clock_cb, NULL);
    passcode_options_set_busy_timeout(o, 200);
    if (use_pepper) passcode_options_set_pepper(o, the_pepper, 32);
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
    passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL);
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
    documented(rc, "passcode_open");
    if (rc != PASSCODE_OK) return;
    passcode_set_reset_delivery_callback(s, deliver, NULL);
    passcode_set_logout_callback(s, on_logout, NULL);
    passcode_set_account_deleted_callback(s, on_deleted, NULL);
    int32_t i32, r32;
    int64_t i64;
    const char *str;
    CALL(passcode_is_set(s, &i32));
    CALL(passcode_is_enabled(s, &i32));
    CALL(passcode_length(s, &i32));
    CALL(passcode_failed_attempts(s, &i32));
    CALL(passcode_lockout_remaining(s, &i64));
    CALL(passcode_is_reset_required(s, &i32));
    CALL(passcode_lock_state(s, &i32, &r32));
    for (int32_t k = PASSCODE_SETTING_LOCK_ENABLED; k <= PASSCODE_SETTING_RESET_REQUESTS_PER_DAY; k++) CALL(passcode_setting_get(s, k, &i64));
    CALL(passcode_security_label(s, &str));
    CALL(passcode_biometric_check(s, &i32));
    passcode_lock_screen screen;
    memset(&screen, 0, sizeof screen);
    screen.size = sizeof screen;
    CALL(passcode_lock_screen_read(s, &screen));
    CALL(passcode_reset_pending(s, &i32));
    CALL(passcode_reset_retry_after(s, &i64));
    CALL(passcode_failure_summary(s, &i32, &i64));
    passcode_event_log *log = NULL;
    if (passcode_event_log_new(s, &log) == PASSCODE_OK) {
        for (size_t i = 0; i < passcode_event_log_count(log); i++) {
            const char *detail;
            CALL(passcode_event_log_get(log, i, &i32, &i64, &detail));
        }
        passcode_event_log_free(log);
    }
    passcode_session_list *list = NULL;
    if (passcode_session_list_new(s, &list) == PASSCODE_OK) {
        for (size_t i = 0; i < passcode_session_list_count(list); i++) {
            const char *id, *name, *platform, *location;
            int64_t active;
            CALL(passcode_session_list_get(list, i, &id, &name, &platform, &active, &location, &i32));
        }
        passcode_session_list_free(list);
    }
    for (int32_t kind = PASSCODE_FLOW_KIND_UNLOCK; kind <= PASSCODE_FLOW_KIND_RESET; kind++) {
        passcode_flow *f = NULL;
        if (passcode_flow_new(s, kind, &f) != PASSCODE_OK) continue;
        for (int d = 0; d < 14; d++) passcode_flow_digit(f, (d * 7) % 10);
        CALL(passcode_flow_state(f, &i32, &r32));
        CALL(passcode_flow_dots(f, &i32, &r32));
        CALL(passcode_flow_prompt(f, &str));
        CALL(passcode_flow_error(f, &str, &i32));
        CALL(passcode_flow_lockout_remaining(f, &i64));
        passcode_flow_free(f);
    }
    CALL(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &i32));
    CALL(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &i32));
    CALL(passcode_biometric_unlock(s, &i32));
    CALL(passcode_biometric_failed(s, &i32));
    CALL(passcode_verify(s, "502817", 6));
    CALL(passcode_verify(s, "386491", 6));
    CALL(passcode_authorize(s, "386491", 6));
    CALL(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60));
    CALL(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_CUSTOM));
    CALL(passcode_change(s, "386491", 6, "915372", 6));
    CALL(passcode_reset_check(s, code, strlen(code)));
    CALL(passcode_reset_check(s, "00000000", 8));
    CALL(passcode_reset_request(s));
    CALL(passcode_reset_complete(s, code, strlen(code), "502817", 6));
    CALL(passcode_session_sign_out_others(s, &i32));
    CALL(passcode_password_change_check(s, "old", 3, "correct horse", 13, "correct horse", 13));
    CALL(passcode_forgot(s));
    CALL(passcode_delete_account(s, "DELETE"));
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
/* The settings table's rows: every setting's, by the name the library stores it under, and the
 * custom lockout table's (not a setting: passcode_set_custom_schedule writes it). */
static const char *settings_keys[64];
static size_t nsettings_keys;
static void find_settings_keys(void) {
    for (int32_t i = 0; passcode_setting_name(i) && nsettings_keys < 63; i++) settings_keys[nsettings_keys++] = passcode_setting_name(i);
    settings_keys[nsettings_keys++] = "lockout_custom";
}
static const char *state_keys[] = {"attempt_seq", "cleared_seq", "lockout_boot_id", "lockout_start_ms",
    "lockout_start_wall_ms", "lockout_duration_ms", "reset_required", "locked", "lock_reason", "background_boot_id",
    "background_ms", "background_wall_ms", "background_pid", "background_process_start", "launch_needs_passcode",
    "biometric_available", "biometric_kind", "biometric_failures", "last_passcode_boot_id", "last_passcode_ms",
    "last_passcode_wall_ms", "wipe_pending", "pepper_check", "integrity_mac"};
#define COUNT(a) (sizeof a / sizeof a[0])

static size_t nplaces(void) { return COUNT(columns) + nsettings_keys + COUNT(state_keys); }

static void place_sql(size_t place, size_t value, char *sql, size_t size) {
    const char *v = values[value];
    if (place < COUNT(columns)) {
        snprintf(sql, size, "UPDATE %s SET %s = %s", columns[place][0], columns[place][1], v);
    } else if (place < COUNT(columns) + nsettings_keys) {
        snprintf(sql, size, "INSERT OR REPLACE INTO settings VALUES('%s', %s)", settings_keys[place - COUNT(columns)], v);
    } else {
        snprintf(sql, size, "INSERT OR REPLACE INTO state VALUES('%s', %s)", state_keys[place - COUNT(columns) - nsettings_keys], v);
    }
}

/* ---- the schema fuzzer: the file's schema is input too ----------------------------
 * Objects no libpasscode version makes, planted into stores of every supported version (the
 * current one without and with a pepper, and the v2, v3 and peppered v3 fixtures): triggers on
 * every table (forgiving, endless, raising), views (endless ones too), indexes (on expressions
 * too), extra tables and columns, changed types and dropped objects through writable_schema,
 * and hot rollback journals (ours, and one others may write). Every store runs the whole API
 * under a 20 s alarm: a hang is a failure, as a crash or an undocumented status is. */
static const char *tables_of_store[] = {"passcode", "settings", "state", "reset_code", "reset_request", "session", "event"};
#define ENDLESS "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c)"
static const char *plant_templates[] = {
    "CREATE TRIGGER f_%s AFTER UPDATE ON %s BEGIN UPDATE state SET value = value - 1 WHERE key = 'cleared_seq'; END",
    "CREATE TRIGGER i_%s AFTER INSERT ON %s BEGIN DELETE FROM event; END",
    "CREATE TRIGGER d_%s BEFORE DELETE ON %s BEGIN SELECT RAISE(IGNORE); END",
    "CREATE TRIGGER e_%s AFTER INSERT ON %s BEGIN SELECT " ENDLESS "; END",
    "CREATE TRIGGER r_%s BEFORE UPDATE ON %s BEGIN SELECT RAISE(ABORT, 'no'); END",
    "CREATE VIEW v_%s AS SELECT * FROM %s",
    "CREATE VIEW ve_%s AS SELECT " ENDLESS " AS n FROM %s",
    "CREATE INDEX ix_%s ON %s(rowid)",
    "CREATE INDEX ie_%s ON %s(length(hex(rowid)) + 1)",
    "CREATE TABLE t_%s AS SELECT * FROM %s",
    "ALTER TABLE %s ADD COLUMN extra_%s TEXT DEFAULT 'x'",
    "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql = replace(sql, 'INTEGER', 'TEXT') WHERE name = '%s%.0s'; PRAGMA writable_schema=OFF",
    "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE name = '%s%.0s'; PRAGMA writable_schema=OFF",
    "PRAGMA writable_schema=ON; DELETE FROM sqlite_master WHERE type = 'index' AND tbl_name = '%s%.0s'; PRAGMA writable_schema=OFF",
    "DROP TABLE %s%.0s",
};
#define NPLANTS (sizeof plant_templates / sizeof *plant_templates)
#define NTABLES (sizeof tables_of_store / sizeof *tables_of_store)

static void plant_sql(size_t plant, size_t table, char *sql, size_t size) {
    const char *t = tables_of_store[table];
    /* The templates that name the table twice take (name, table); the others (table, name). */
    if (strncmp(plant_templates[plant], "ALTER", 5) == 0) snprintf(sql, size, plant_templates[plant], t, t);
    else snprintf(sql, size, plant_templates[plant], t, t);
}

/* A hot rollback journal for `path`, made from a copy of it whose transaction changed every
 * row (synchronous=OFF: the header counts its records), copied while that transaction is open;
 * `mode` 0600 (ours: replayed, which is SQLite's own recovery) or 0666 (refused). */
static void plant_journal(const char *path, const char *dir, int mode) {
    char other[256], journal[300], target[300], cmd[1024];
    snprintf(other, sizeof other, "%s/journal-source.db", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && rm -f '%s-wal' '%s-shm'", path, other, other, other);
    if (system(cmd) != 0) abort();
    sqlite3 *db = NULL;
    if (sqlite3_open(other, &db) != SQLITE_OK) abort();
    sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF; BEGIN; UPDATE state SET value = 0; "
                     "UPDATE settings SET value = 0; UPDATE passcode SET length = 99; DELETE FROM event;", NULL, NULL, NULL);
    snprintf(journal, sizeof journal, "%s-journal", other);
    snprintf(target, sizeof target, "%s-journal", path);
    if (access(journal, F_OK) != 0) {
        /* A random plant made the copy refuse the changes (a trigger that raises, a table it
         * dropped): no journal to plant; the store is exercised with its plant alone. */
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
        return;
    }
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod %o '%s'", journal, target, (unsigned)mode, target);
    if (system(cmd) != 0) abort();
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
}

static void alarm_hang(int sig) {
    (void)sig;
    static const char msg[] = "hostile store: a call hung for 20 s (schema fuzzer)\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
    abort();
}

/* The bases: path templates[0..1] (current, without and with a pepper) and the fixtures. */
typedef struct { const char *path; int pepper; const uint8_t *key; const char *name; } base;

static long schema_stores;

static void exercise_schema(const base *b, const char *work, const char *dir, const char *sql, int journal_mode) {
    use_pepper = b->pepper;
    the_pepper = b->key;
    copy_file(b->path, work);
    char journal[300];
    snprintf(journal, sizeof journal, "%s-journal", work);
    unlink(journal);
    if (sql) edit(work, sql);
    if (journal_mode) plant_journal(work, dir, journal_mode);
    alarm(20);
    exercise(work);
    alarm(0);
    unlink(journal);
    schema_stores++;
}

int main(int argc, char **argv) {
    char dir[] = "/tmp/passcode-hostile-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    find_settings_keys();
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
    signal(SIGALRM, alarm_hang);
    for (int i = 0; i < 32; i++) fixture_pepper[i] = (uint8_t)(i + 1);
    base bases[] = {
        {templates[0], 0, pepper, "v4"}, {templates[1], 1, pepper, "v4+pepper"},
        {FIXTURES "/store-v2.db", 0, pepper, "v2"}, {FIXTURES "/store-v3.db", 0, pepper, "v3"},
        {FIXTURES "/store-v3-pepper.db", 1, fixture_pepper, "v3+pepper"},
    };
    size_t nbases = sizeof bases / sizeof *bases;
    char schema_sql[512];
    static char fixture_copies[8][256];
    for (size_t b = 0; b < nbases; b++) {
        char *fixture_copy = fixture_copies[b];
        if (strstr(bases[b].path, FIXTURES)) {  /* fixtures are read-only and not 0600: copy them */
            snprintf(fixture_copy, sizeof fixture_copies[b], "%s/base%zu.db", dir, b);
            char cmd[600];
            snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 600 '%s'", bases[b].path, fixture_copy, fixture_copy);
            if (system(cmd) != 0) abort();
            bases[b].path = fixture_copy;
        }
        exercise_schema(&bases[b], work, dir, NULL, 0);  /* the base itself opens */
        for (size_t p = 0; p < NPLANTS; p++) {
            for (size_t t = 0; t < NTABLES; t++) {
                plant_sql(p, t, schema_sql, sizeof schema_sql);
                current_edit = schema_sql;
                exercise_schema(&bases[b], work, dir, schema_sql, 0);
            }
        }
        current_edit = "a hot journal of ours (replayed)";
        exercise_schema(&bases[b], work, dir, NULL, 0600);
        current_edit = "a hot journal others may write (refused)";
        exercise_schema(&bases[b], work, dir, NULL, 0666);
    }
    long schema_single = schema_stores;
    long random_stores = argc > 1 ? atol(argv[1]) : 0;
    srand(argc > 2 ? (unsigned)atol(argv[2]) : 1u);
    for (long r = 0; r < random_stores; r++) {
        if (r % 4 == 3) {  /* every fourth: a random base with several schema plants, maybe a journal */
            char many[2048] = "";
            for (int e = 0, k = 1 + rand() % 3; e < k; e++) {
                plant_sql((size_t)rand() % NPLANTS, (size_t)rand() % NTABLES, schema_sql, sizeof schema_sql);
                strncat(many, schema_sql, sizeof many - strlen(many) - 3);
                strcat(many, "; ");
            }
            current_edit = many;
            exercise_schema(&bases[(size_t)rand() % nbases], work, dir, many, rand() % 3 == 0 ? (rand() % 2 ? 0600 : 0666) : 0);
            continue;
        }
        the_pepper = pepper;
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
    printf("schema fuzzer: %ld stores of %zu bases (v4, v4+pepper, v2, v3, v3+pepper) x (%zu plants x %zu tables + 2 hot "
           "journals + none), %ld more with random plants: 0 crashes, 0 hangs, every status documented (foreign schema %ld, "
           "permission %ld)\n", schema_single, nbases, (size_t)NPLANTS, (size_t)NTABLES, schema_stores - schema_single,
           statuses[PASSCODE_ERR_FOREIGN_SCHEMA], statuses[PASSCODE_ERR_PERMISSION]);
    snprintf(sql, sizeof sql, "rm -rf '%s'", dir);
    if (system(sql) != 0) return 2;
    return tl_summary();
}
