/* C API tests: the store file and its folder are attacker input. Each attack is made
 * from a second process, as an attacker who can write the file would make it, and each test
 * prints what the attacker got: guesses beyond the policy's 9 (then a reset) are a failure. */
#include "api_support.h"

#include <dirent.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <sys/time.h>

static const uint8_t attack_pepper[32] = {28, 28, 28, 1, 2, 3, 4, 5};

static passcode_options *peppered_options(void) {
    passcode_options *o = fast_options();
    if (passcode_options_set_pepper(o, attack_pepper, 32) != PASSCODE_OK) abort();
    return o;
}

static int32_t open_peppered(const char *path, passcode_store **out) {
    passcode_options *o = peppered_options();
    int32_t rc = passcode_open(path, o, out);
    passcode_options_free(o);
    return rc;
}

/* The app: a new peppered store at a new path named `name`, with PC1 set. */
static passcode_store *peppered_app(char *path, size_t size, const char *name) {
    new_path(path, size, name);
    passcode_store *app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);
    CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK);
    return app;
}

/* Runs `sql` on the file from a second process with a plain SQLite connection (no defences):
 * one write to the file, as the attacker makes it. Returns SQLite's result. */
static int attacker_writes(const char *path, const char *sql) {
    pid_t pid = fork();
    if (pid == 0) {
        sqlite3 *db = NULL;
        int rc = sqlite3_open(path, &db);
        if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        sqlite3_close(db);
        _exit(rc == SQLITE_OK ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* Distinct wrong guesses until the store stops answering "wrong" (a lockout is waited out on
 * the test clock), at most `max`. Returns the number of wrong-passcode answers, i.e. the
 * guesses the attacker got checked, and the status that ended the series. */
static int guess_until_refused(passcode_store *s, int max, int32_t *ended) {
    int got = 0;
    *ended = PASSCODE_OK;
    for (int i = 0; got < max && i < 4 * max; i++) {
        char g[16];
        snprintf(g, sizeof g, "%06d", (123457 + i * 7919) % 1000000);
        if (!strcmp(g, PC1)) continue;
        int32_t rc = passcode_verify(s, g, 6);
        if (rc == PASSCODE_ERR_WRONG_PASSCODE) { got++; continue; }
        if (rc == PASSCODE_ERR_LOCKED_OUT) { advance_ms(24LL * 3600 * 1000); continue; }  /* waited out */
        if (rc == PASSCODE_ERR_WEAK_PASSCODE || rc == PASSCODE_ERR_FORMAT) continue;
        *ended = rc;
        return got;
    }
    *ended = PASSCODE_OK;
    return got;
}

/* The policy (Apple's table, the default): 9 wrong answers, and the 10th attempt ends in a
 * reset. An attacker who keeps cleared_seq one behind attempt_seq gets every guess instead. */
#define POLICY_GUESSES 9
#define ATTACK_TRIES 200

static const char *trigger_attack_sql =
    "CREATE TRIGGER forgive_u AFTER UPDATE ON state WHEN NEW.key = 'attempt_seq' BEGIN "
    "  UPDATE state SET value = NEW.value - 1 WHERE key = 'cleared_seq'; END;"
    "CREATE TRIGGER forgive_i AFTER INSERT ON state WHEN NEW.key = 'attempt_seq' BEGIN "
    "  UPDATE state SET value = NEW.value - 1 WHERE key = 'cleared_seq'; END;";

/* Attack 1: a trigger planted by one write to the file runs inside the library's own
 * write-ahead transaction and forgives each attempt; with a pepper the MAC was sealed over the
 * forged state. The release before these checks: 200 of 200 guesses answered (a longer run: 73,947, passcode found). */
static void test_planted_trigger_buys_no_guess(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    passcode_store *app = peppered_app(path, sizeof path, "trigger.db");
    CHECK_STATUS(passcode_verify(app, PC1, LEN), PASSCODE_OK);  /* an unlock: cleared_seq has a row */
    /* Planted while the app has the store open (triggers, as an attacker writes them). */
    CHECK(attacker_writes(path, trigger_attack_sql) == 0);
    int32_t ended = 0;
    int got = guess_until_refused(app, ATTACK_TRIES, &ended);
    printf("  trigger attack, store open in the app: %d guesses checked, then %s\n", got, passcode_strerror(ended));
    CHECK(got <= POLICY_GUESSES);
    CHECK_STATUS(ended, PASSCODE_ERR_FOREIGN_SCHEMA);
    passcode_close(app);
    /* The app launched again, with its pepper: refused before anything is written. */
    size_t before_len = 0;
    char *before = slurp(path, &before_len);
    passcode_store *again = NULL;
    CHECK_STATUS(open_peppered(path, &again), PASSCODE_ERR_FOREIGN_SCHEMA);
    CHECK(again == NULL);
    CHECK(strstr(passcode_errmsg(NULL), "forgive_") != NULL);  /* the message names the object */
    CHECK(same_file(path, before, before_len));
    free(before);
}

/* The same store without the trigger, as the control: the policy holds, 9 then reset. */
static void test_policy_control_nine_then_reset(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    passcode_store *app = peppered_app(path, sizeof path, "control.db");
    int32_t ended = 0;
    int got = guess_until_refused(app, ATTACK_TRIES, &ended);
    printf("  control, no attack: %d guesses checked, then %s\n", got, passcode_strerror(ended));
    CHECK(got == POLICY_GUESSES);
    CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(app);
}

/* Milliseconds on the monotonic clock. */
static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Attack 1b: a trigger (and a view) whose SQL never ends. The release before these checks hung inside
 * passcode_event_report (killed after 30 s). The app's calls run in a child with a 20 s alarm:
 * they must return a documented status, well within it. */
static void test_endless_trigger_does_not_hang(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    passcode_store *app = peppered_app(path, sizeof path, "endless.db");
    const char *endless =
        "CREATE TRIGGER endless_u AFTER UPDATE ON state BEGIN "
        "  SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); END;"
        "CREATE TRIGGER endless_i AFTER INSERT ON state BEGIN "
        "  SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); END;"
        "CREATE VIEW endless_v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;";
    CHECK(attacker_writes(path, endless) == 0);
    int out[2];
    CHECK(pipe(out) == 0);
    int64_t start = mono_ms();
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        alarm(20);
        int32_t r[3];
        r[0] = passcode_event_report(app, PASSCODE_APP_EVENT_LOCK_NOW, NULL);
        r[1] = passcode_verify(app, PC2, LEN);
        passcode_store *again = NULL;
        r[2] = open_peppered(path, &again);
        passcode_close(again);
        _exit(write(out[1], r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(out[1]);
    int32_t r[3] = {-1, -1, -1};
    ssize_t n = read(out[0], r, sizeof r);
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    int64_t took = mono_ms() - start;
    printf("  endless trigger and view: event_report %s, verify %s, open %s, in %lld ms\n", passcode_strerror(r[0]),
           passcode_strerror(r[1]), passcode_strerror(r[2]), (long long)took);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);  /* not killed by the alarm */
    CHECK(n == (ssize_t)sizeof r);
    CHECK(took < 10000);
    CHECK_STATUS(r[0], PASSCODE_ERR_FOREIGN_SCHEMA);
    CHECK_STATUS(r[1], PASSCODE_ERR_FOREIGN_SCHEMA);
    CHECK_STATUS(r[2], PASSCODE_ERR_FOREIGN_SCHEMA);
    passcode_close(app);
}

/* Every other kind of object the schema check must refuse: an index, a table, a column, a
 * changed type; each planted in a fresh store, which then does not open, unchanged. */
static void test_foreign_objects_are_refused_at_open(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    const char *plants[] = {
        "CREATE INDEX extra_i ON event(kind)",
        "CREATE TABLE extra_t(x)",
        "ALTER TABLE session ADD COLUMN extra_c TEXT",
        "PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql = replace(sql, 'tries INTEGER', 'tries TEXT') "
        "WHERE name = 'reset_code'; PRAGMA writable_schema=OFF;",
        "CREATE VIEW extra_v AS SELECT 1",
    };
    for (size_t i = 0; i < sizeof plants / sizeof *plants; i++) {
        char path[512];
        new_path(path, sizeof path, "plant.db");
        passcode_store *s = open_fast(path);
        CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
        passcode_close(s);
        CHECK(attacker_writes(path, plants[i]) == 0);
        size_t len = 0;
        char *before = slurp(path, &len);
        passcode_options *o = fast_options();
        passcode_store *x = NULL;
        int32_t rc = passcode_open(path, o, &x);
        passcode_options_free(o);
        if (rc != PASSCODE_ERR_FOREIGN_SCHEMA) fprintf(stderr, "  plant %zu (%s): %s\n", i, plants[i], passcode_strerror(rc));
        CHECK_STATUS(rc, PASSCODE_ERR_FOREIGN_SCHEMA);
        CHECK(same_file(path, before, len));
        free(before);
        passcode_close(x);
    }
}

/* ---- a failure is in the main file before the passcode is checked --------------------------- */

static void path_with(char *out, size_t size, const char *path, const char *suffix) {
    snprintf(out, size, "%s%s", path, suffix);
}

/* A third process holds a read transaction open on the store until `release` is closed. */
static pid_t hold_reader(const char *path, int *release) {
    int ready[2], hold[2];
    if (pipe(ready) != 0 || pipe(hold) != 0) abort();
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(hold[1]);
        sqlite3 *db = NULL;
        sqlite3_open(path, &db);
        sqlite3_exec(db, "BEGIN; SELECT count(*) FROM state;", NULL, NULL, NULL);
        char c = 1;
        if (write(ready[1], &c, 1) != 1) _exit(1);
        while (read(hold[0], &c, 1) > 0) {}
        _exit(0);
    }
    close(ready[1]);
    close(hold[0]);
    char c;
    if (read(ready[0], &c, 1) != 1) abort();
    close(ready[0]);
    *release = hold[1];
    return pid;
}

/* Attack 3: 4 guesses per process, SIGKILL, rm -wal -shm, again; a reader held open
 * in a third process. The release before these checks (pepper on): 201 guesses, found, failures back to 0. Now each
 * attempt is in the main file before Argon2id starts, or refused as busy and not checked. */
static void test_deleted_wal_buys_no_guess(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], wal[600], shm[600];
    new_path(path, sizeof path, "walrm.db");
    path_with(wal, sizeof wal, path, "-wal");
    path_with(shm, sizeof shm, path, "-shm");
    passcode_store *app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);
    CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK);
    passcode_close(app);
    int release = -1;
    pid_t reader = hold_reader(path, &release);
    int got = 0, busy = 0, rounds = 0, next = 0;
    int32_t ended = PASSCODE_OK;
    for (; rounds < 60 && ended == PASSCODE_OK; rounds++) {
        advance_ms(24LL * 3600 * 1000);  /* a day between rounds: any lockout is over */
        int results[2];
        if (pipe(results) != 0) abort();
        pid_t pid = fork();
        if (pid == 0) {
            close(results[0]);
            passcode_options *o = peppered_options();
            passcode_options_set_busy_timeout(o, 300);
            passcode_store *g = NULL;
            int32_t rc = passcode_open(path, o, &g);
            if (rc != PASSCODE_OK) { if (write(results[1], &rc, sizeof rc) < 0) _exit(1); _exit(0); }
            for (int k = 0, tries = 0; k < 4 && tries < 12; tries++) {
                char guess[16];
                snprintf(guess, sizeof guess, "%06d", (234567 + (next + k) * 7919) % 1000000);
                rc = passcode_verify(g, guess, 6);
                if (rc == PASSCODE_ERR_LOCKED_OUT) { advance_ms(24LL * 3600 * 1000); continue; }
                if (write(results[1], &rc, sizeof rc) != (ssize_t)sizeof rc) _exit(1);
                k++;
            }
            pause();  /* killed here */
            _exit(0);
        }
        close(results[1]);
        int32_t rc;
        for (int k = 0; k < 4 && read(results[0], &rc, sizeof rc) == (ssize_t)sizeof rc; k++) {
            if (rc == PASSCODE_ERR_WRONG_PASSCODE) got++;
            else if (rc == PASSCODE_ERR_BUSY) busy++;
            else { ended = rc; break; }
        }
        close(results[0]);
        next += 4;
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        unlink(wal);
        unlink(shm);
    }
    close(release);
    waitpid(reader, NULL, 0);
    printf("  deleted WAL: %d guesses checked in %d processes (SIGKILL, -wal/-shm deleted after each; %d refused busy while "
           "the third process read), then %s\n", got, rounds, busy, passcode_strerror(ended));
    CHECK(got <= POLICY_GUESSES);
    CHECK(busy > 0);  /* the held reader was seen: its attempts were not checked */
    CHECK(ended == PASSCODE_ERR_RESET_REQUIRED);
    passcode_store *after = NULL;
    CHECK_STATUS(open_peppered(path, &after), PASSCODE_OK);
    int32_t required = 0;
    CHECK_STATUS(passcode_is_reset_required(after, &required), PASSCODE_OK);
    CHECK(required == 1);
    passcode_close(after);
}

static int file_contains(const char *path, const char *needle) {
    size_t len = 0, n = strlen(needle);
    char *data = slurp(path, &len);
    int found = 0;
    for (size_t i = 0; data && n <= len && i + n <= len && !found; i++) found = memcmp(data + i, needle, n) == 0;
    free(data);
    return found;
}

static int copy_to(const char *from, const char *to) {
    size_t len = 0;
    char *data = slurp(from, &len);
    if (!data) return 0;
    int fd = open(to, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    int ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
    if (fd >= 0) close(fd);
    free(data);
    return ok;
}

/* Attack 3b: after a passcode change, a copy of the store and its -wal taken while the
 * app runs must not open the data key with the old passcode, nor hold the old wrap's bytes.
 * the release before these checks: the main file alone still had the old wrap (the change was only in the log). */
static void test_old_passcode_gone_after_change(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], wal[600];
    new_path(path, sizeof path, "change.db");
    path_with(wal, sizeof wal, path, "-wal");
    passcode_store *app = open_fast(path);
    CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK);
    char old[4096] = "";
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &raw);
    if (sqlite3_prepare_v2(raw, "SELECT verifier FROM passcode", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        snprintf(old, sizeof old, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(raw);
    CHECK(strlen(old) > 40);
    CHECK_STATUS(passcode_change(app, PC1, LEN, PC2, LEN), PASSCODE_OK);
    /* The copies, taken while the app still has the store open. */
    char both[600], both_wal[700], main_only[600];
    new_path(both, sizeof both, "copy.db");
    path_with(both_wal, sizeof both_wal, both, "-wal");
    new_path(main_only, sizeof main_only, "main-only.db");
    CHECK(copy_to(path, both));
    if (exists(wal)) CHECK(copy_to(wal, both_wal));
    CHECK(copy_to(path, main_only));
    int old_bytes = file_contains(both, old) + (exists(both_wal) && file_contains(both_wal, old));
    const char *copies[] = {both, main_only};
    int32_t with_old[2], with_new[2];
    for (int i = 0; i < 2; i++) {
        passcode_store *c = open_fast(copies[i]);
        with_old[i] = passcode_verify(c, PC1, LEN);
        with_new[i] = passcode_verify(c, PC2, LEN);
        passcode_close(c);
    }
    printf("  copy after a change: old wrap's bytes in the copy: %s; old passcode on store+wal: %s, on the main file "
           "alone: %s; new passcode: %s, %s\n", old_bytes ? "FOUND" : "none", passcode_strerror(with_old[0]),
           passcode_strerror(with_old[1]), passcode_strerror(with_new[0]), passcode_strerror(with_new[1]));
    CHECK(old_bytes == 0);
    CHECK_STATUS(with_old[0], PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(with_old[1], PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(with_new[0], PASSCODE_OK);
    CHECK_STATUS(with_new[1], PASSCODE_OK);
    passcode_close(app);
}

/* ---- only our files: another local user ------------------------------------------------------ */

/* Runs `body` as `uid`/`gid` in a child; returns its exit status. */
static int as_user(uid_t uid, gid_t gid, int (*body)(const char *), const char *arg) {
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(gid) != 0 || setuid(uid) != 0) _exit(90);
        _exit(body(arg));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

/* The attacker (another uid) makes a store of its own with its own passcode (PC3), then a hot
 * journal from it (synchronous=OFF: the header counts its records), copied while its
 * transaction is open to <shared>/s.db-journal with mode 0666. */
static int plant_journal(const char *shared) {
    char own[300], mine[400], journal[500], planted[500];
    snprintf(own, sizeof own, "%s/attacker", shared);
    if (mkdir(own, 0700) != 0) return 10;
    snprintf(mine, sizeof mine, "%s/s.db", own);
    passcode_store *s = NULL;
    passcode_options *o = fast_options();
    int32_t rc = passcode_open(mine, o, &s);
    passcode_options_free(o);
    if (rc != PASSCODE_OK || passcode_set(s, PC3, LEN) != PASSCODE_OK) return 11;
    passcode_close(s);
    sqlite3 *db = NULL;
    if (sqlite3_open(mine, &db) != SQLITE_OK) return 12;
    sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF; BEGIN; UPDATE passcode SET length = length; "
                     "UPDATE settings SET value = value; UPDATE state SET value = value; UPDATE event SET kind = kind; "
                     "PRAGMA user_version = 4;", NULL, NULL, NULL);
    snprintf(journal, sizeof journal, "%s-journal", mine);
    snprintf(planted, sizeof planted, "%s/s.db-journal", shared);
    int ok = copy_to(journal, planted) && chmod(planted, 0666) == 0;
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    return ok ? 0 : 13;
}

/* The attacker races the victim's open: it keeps trying to create <dir>/r.db-wal and -shm
 * (0666, its own) for a second. Exits with the number of files it made (0 to 2). */
static int race_sidecars(const char *dir) {
    char wal[600], shm[600];
    snprintf(wal, sizeof wal, "%s/r.db-wal", dir);
    snprintf(shm, sizeof shm, "%s/r.db-shm", dir);
    int made = 0, have_wal = 0, have_shm = 0;
    int64_t end = mono_ms() + 1000;
    while (mono_ms() < end && made < 2) {
        if (!have_wal) { int fd = open(wal, O_CREAT | O_EXCL | O_RDWR, 0666); if (fd >= 0) { fchmod(fd, 0666); close(fd); have_wal = 1; made++; } }
        if (!have_shm) { int fd = open(shm, O_CREAT | O_EXCL | O_RDWR, 0666); if (fd >= 0) { fchmod(fd, 0666); close(fd); have_shm = 1; made++; } }
    }
    return made;
}

/* Attack 2, from a second uid (useradd'ed here, removed at the end; CI runs as
 * root). The release before these checks: the 0666 journal rolled the victim's store back to the attacker's content, and
 * the attacker's passcode was accepted; a store directly in a sticky shared folder was fine. */
static void test_another_user_cannot_plant_sidecars(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    if (geteuid() != 0) {
        printf("  NOT RUN: the second-uid attacks need root to add a user (useradd); CI runs them as root\n");
        return;
    }
    char user[32], cmd[512];
    snprintf(user, sizeof user, "pc28atk%d", (int)(getpid() % 100000));
    snprintf(cmd, sizeof cmd, "useradd -M -N -s /usr/sbin/nologin %s", user);
    CHECK(system(cmd) == 0);
    struct passwd *pw = getpwnam(user);
    CHECK(pw != NULL);
    if (!pw) return;
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    char shared[64];
    snprintf(shared, sizeof shared, "/tmp/pc28-shared-XXXXXX");
    CHECK(mkdtemp(shared) != NULL && chmod(shared, 01777) == 0);  /* like /tmp */
    /* The victim's store, made in a private folder and then kept in the shared one, as the release before these checks allowed. */
    char made[512], victim[600];
    new_path(made, sizeof made, "victim.db");
    passcode_store *s = open_fast(made);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    snprintf(victim, sizeof victim, "%s/s.db", shared);
    CHECK(copy_to(made, victim));
    int planted = as_user(uid, gid, plant_journal, shared);
    CHECK(planted == 0);
    passcode_store *v = NULL;
    passcode_options *o = fast_options();
    int32_t opened = passcode_open(victim, o, &v);
    char why[600];
    snprintf(why, sizeof why, "%s", passcode_errmsg(NULL));
    int32_t theirs = opened == PASSCODE_OK ? passcode_verify(v, PC3, LEN) : opened;
    passcode_close(v);
    printf("  planted 0666 journal (uid %lu): victim's open: %s; attacker's passcode: %s%s%s\n", (unsigned long)uid,
           passcode_strerror(opened), passcode_strerror(theirs), opened ? "\n    refusal: " : "", opened ? why : "");
    CHECK_STATUS(opened, PASSCODE_ERR_PERMISSION);
    CHECK(strstr(why, shared) != NULL);  /* names the folder */
    CHECK(theirs != PASSCODE_OK);
    /* The victim's file was not replayed: the victim's passcode still opens it, from a private folder. */
    char safe[512];
    new_path(safe, sizeof safe, "victim-after.db");
    CHECK(copy_to(victim, safe));
    s = open_fast(safe);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* Racing -wal/-shm creation while the victim opens: in the shared folder... */
    pid_t racer = fork();
    if (racer == 0) _exit(as_user(uid, gid, race_sidecars, shared));
    char racy[600];
    snprintf(racy, sizeof racy, "%s/r.db", shared);
    int32_t in_shared = passcode_open(racy, o, &v);
    passcode_close(v);
    int status = 0;
    waitpid(racer, &status, 0);
    int won_shared = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    /* ...and in the victim's own 0700 folder, where the attacker cannot even look. */
    char own[512], racy_own[600];
    new_path(own, sizeof own, "own-folder");
    CHECK(mkdir(own, 0700) == 0);
    CHECK(chmod(tmp_root, 0711) == 0);  /* let the attacker reach it, to try */
    racer = fork();
    if (racer == 0) _exit(as_user(uid, gid, race_sidecars, own));
    snprintf(racy_own, sizeof racy_own, "%s/r.db", own);
    int32_t in_own = passcode_open(racy_own, o, &v);
    if (in_own == PASSCODE_OK) CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    passcode_close(v);
    waitpid(racer, &status, 0);
    int won_own = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    CHECK(chmod(tmp_root, 0700) == 0);
    passcode_options_free(o);
    printf("  racing -wal/-shm (uid %lu): shared folder: attacker made %d file(s), victim's open %s; own 0700 folder: "
           "attacker made %d, victim's open %s\n", (unsigned long)uid, won_shared, passcode_strerror(in_shared), won_own,
           passcode_strerror(in_own));
    CHECK_STATUS(in_shared, PASSCODE_ERR_PERMISSION);
    CHECK(won_own == 0);
    CHECK_STATUS(in_own, PASSCODE_OK);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'; userdel %s", shared, user);
    CHECK(system(cmd) == 0);
}

/* ---- with a pepper, the MAC covers every table ------------------------------------------------ */

/* Attack 4: deleting reset_request or event rows went unnoticed with a pepper (the release before these checks),
 * and editing reset_code.tries gave 200 tries at a pending code: the reset path did not check
 * the MAC. Each edit is made by a second process. */
/* A peppered store with PC1, a pending reset code delivered to `m`, and a device session. */
static passcode_store *peppered_with_pending_code(char *path, size_t size, const char *name, mailbox *m) {
    passcode_store *s = peppered_app(path, size, name);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, m), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    CHECK_STATUS(passcode_session_record(s, "x", "Phone", "Android", 5, NULL, 0), PASSCODE_OK);
    return s;
}

static void test_pepper_covers_every_table(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    const char *edits[] = {"DELETE FROM event", "DELETE FROM reset_request", "UPDATE session SET is_current = 1"};
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char path[512];
        mailbox m = {0};
        passcode_store *s = peppered_with_pending_code(path, sizeof path, "mac.db", &m);
        CHECK(attacker_writes(path, edits[i]) == 0);
        int32_t v = 0;
        int32_t rc = passcode_is_set(s, &v);
        printf("  pepper, %s: %s\n", edits[i], passcode_strerror(rc));
        CHECK_STATUS(rc, PASSCODE_ERR_TAMPERED);
        passcode_close(s);
    }
    /* The pending code's tries, forgiven by the attacker after each wrong one. */
    char path[512];
    mailbox m = {0};
    passcode_store *s = peppered_with_pending_code(path, sizeof path, "tries.db", &m);
    int answered = 0;
    int32_t rc = PASSCODE_OK;
    for (int i = 0; i < 40; i++) {
        char wrong[16];
        snprintf(wrong, sizeof wrong, "%08d", 10000000 + i * 7);
        if (!strcmp(wrong, m.code)) continue;
        rc = passcode_reset_check(s, wrong, strlen(wrong));
        if (rc != PASSCODE_ERR_WRONG_RESET_CODE) break;
        answered++;
        CHECK(attacker_writes(path, "UPDATE reset_code SET tries = 0") == 0);
    }
    printf("  pepper, reset_code.tries forgiven after each wrong code: %d codes checked (policy: 5), then %s\n", answered,
           passcode_strerror(rc));
    CHECK(answered <= 5);
    CHECK(rc == PASSCODE_ERR_NO_RESET_CODE);
    int32_t pending = 1;
    CHECK_STATUS(passcode_reset_pending(s, &pending), PASSCODE_OK);
    CHECK(pending == 0);
    passcode_close(s);
}

/* A value over the connection's lowered length limit (1 MB), here a 2 MB
 * event detail written by a second process, surfaced as PASSCODE_ERR_INTERNAL (SQLITE_TOOBIG was
 * not mapped), and with a pepper on every call, the recovery paths too: the store could not be
 * recovered. Now: an edit (TAMPERED with a pepper, CORRUPT naming the limit without one), and
 * the reset request, forgot and delete account still work, dropping the row they cannot read. */
static void big_value_logout(void *ctx, int32_t reason) { (void)reason; (*(int *)ctx)++; }
static void big_value_deleted(void *ctx) { (*(int *)ctx)++; }

static void test_big_value_leaves_recovery(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    const char *big = "INSERT INTO event(wall_ms, kind, detail) VALUES(1, 1, hex(zeroblob(1000001)))";
    char path[512];
    mailbox m = {0};
    passcode_store *s = peppered_app(path, sizeof path, "toobig.db");
    CHECK(attacker_writes(path, big) == 0);
    int32_t v = 0;
    int32_t rc = passcode_is_set(s, &v);
    printf("  pepper, a 2 MB event detail: is_set %s\n", passcode_strerror(rc));
    CHECK_STATUS(rc, PASSCODE_ERR_TAMPERED);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    rc = passcode_reset_request(s);
    printf("  pepper, a 2 MB event detail: reset_request %s\n", passcode_strerror(rc));
    CHECK_STATUS(rc, PASSCODE_OK);
    int logouts = 0, deleted = 0;
    CHECK_STATUS(passcode_set_logout_callback(s, big_value_logout, &logouts), PASSCODE_OK);
    rc = passcode_forgot(s);
    printf("  pepper, a 2 MB event detail: forgot %s\n", passcode_strerror(rc));
    CHECK_STATUS(rc, PASSCODE_OK);
    CHECK(logouts == 1);
    /* The row is gone and the store sealed again: a new passcode works. */
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 0);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    /* Again, then the account deleted. */
    CHECK(attacker_writes(path, big) == 0);
    CHECK_STATUS(passcode_set_account_deleted_callback(s, big_value_deleted, &deleted), PASSCODE_OK);
    rc = passcode_delete_account(s, "DELETE");
    printf("  pepper, a 2 MB event detail: delete_account %s\n", passcode_strerror(rc));
    CHECK_STATUS(rc, PASSCODE_OK);
    CHECK(deleted == 1);
    passcode_close(s);
    /* Without a pepper: CORRUPT, with the limit in the message. */
    new_path(path, sizeof path, "toobig-plain.db");
    passcode_store *plain = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &plain), PASSCODE_OK);
    CHECK_STATUS(passcode_set(plain, PC1, LEN), PASSCODE_OK);
    CHECK(attacker_writes(path, "UPDATE passcode SET verifier = hex(zeroblob(1000001))") == 0);
    rc = passcode_verify(plain, PC1, LEN);
    printf("  no pepper, a 2 MB verifier: verify %s (%s)\n", passcode_strerror(rc), passcode_errmsg(plain));
    CHECK_STATUS(rc, PASSCODE_ERR_CORRUPT);
    CHECK(strstr(passcode_errmsg(plain), "1000000 bytes") != NULL);
    passcode_close(plain);
}

/* A folder above the store's renamed away: only the store's own folder was checked. Another user
 * who owns (or may write) a folder above the victim's 0700 folder renames it away and puts a
 * folder of their own in its place: a fresh store, the passcode gone. Now every ancestor up to /
 * is checked, as OpenSSH's StrictModes does: refused with PERMISSION naming that folder. */
static void test_another_users_ancestor_is_refused(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    if (geteuid() != 0) {
        printf("  NOT RUN: the second-uid attack needs root to add a user (useradd); CI runs it as root\n");
        return;
    }
    char user[32], cmd[600];
    snprintf(user, sizeof user, "pc28anc%d", (int)(getpid() % 100000));
    snprintf(cmd, sizeof cmd, "useradd -M -N -s /usr/sbin/nologin %s", user);
    CHECK(system(cmd) == 0);
    struct passwd *pw = getpwnam(user);
    CHECK(pw != NULL);
    if (!pw) return;
    char outer[64], inner[128], store[192];
    snprintf(outer, sizeof outer, "/tmp/pc28-anc-XXXXXX");
    CHECK(mkdtemp(outer) != NULL && chmod(outer, 0755) == 0);
    snprintf(inner, sizeof inner, "%s/victim", outer);
    CHECK(mkdir(inner, 0700) == 0);
    snprintf(store, sizeof store, "%s/s.db", inner);
    /* Control: the outer folder root's and 0755: accepted. */
    passcode_options *o = fast_options();
    passcode_store *v = NULL;
    CHECK_STATUS(passcode_open(store, o, &v), PASSCODE_OK);
    passcode_close(v);
    v = NULL;
    /* The outer folder the other user's (who may rename `victim`): refused, naming it. */
    CHECK(chown(outer, pw->pw_uid, pw->pw_gid) == 0);
    int32_t rc = passcode_open(store, o, &v);
    char why[600];
    snprintf(why, sizeof why, "%s", passcode_errmsg(NULL));
    printf("  a folder above the store owned by another user: %s (%s)\n", passcode_strerror(rc), why);
    CHECK_STATUS(rc, PASSCODE_ERR_PERMISSION);
    CHECK(strstr(why, outer) != NULL);
    if (v) passcode_close(v);
    v = NULL;
    /* Root's again but group-writable, not sticky: refused; root's and sticky, like /tmp: accepted. */
    CHECK(chown(outer, 0, 0) == 0 && chmod(outer, 0775) == 0);
    CHECK_STATUS(passcode_open(store, o, &v), PASSCODE_ERR_PERMISSION);
    if (v) passcode_close(v);
    v = NULL;
    CHECK(chmod(outer, 01777) == 0);
    CHECK_STATUS(passcode_open(store, o, &v), PASSCODE_OK);
    if (v) passcode_close(v);
    passcode_options_free(o);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'; userdel %s", outer, user);
    CHECK(system(cmd) == 0);
}

/* ---- the writes that end a detected edit keep nothing of it --------------------------------- */

/* The custom lockout table with no delay and no maximum, as an attacker writes it. */
static const char *no_lockout_sql =
    "INSERT OR REPLACE INTO settings VALUES('lockout_custom', '0;0');"
    "INSERT OR REPLACE INTO settings VALUES('lockout_schedule', 2)";

/* With a pepper, settings written while the MAC fails used to survive the reset that ended the
 * edit: it sealed them as it found them (the release before this test: 200 wrong answers after
 * the reset, of 200 tried; a 4-digit passcode length kept). Now that write puts every setting and
 * the lock state back to their defaults: 9 then reset, and the default length. */
static void test_resolving_write_keeps_no_attacker_setting(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    mailbox m = {0};
    passcode_store *app = peppered_app(path, sizeof path, "resolve.db");
    CHECK_STATUS(passcode_set_reset_delivery_callback(app, mailbox_deliver, &m), PASSCODE_OK);
    CHECK(attacker_writes(path, no_lockout_sql) == 0);
    CHECK(attacker_writes(path, "UPDATE passcode SET length = 4;"
                                "INSERT OR REPLACE INTO settings VALUES('passcode_length', 4)") == 0);
    int32_t v = 0;
    CHECK_STATUS(passcode_is_set(app, &v), PASSCODE_ERR_TAMPERED);
    int32_t length = 0;
    CHECK_STATUS(passcode_length(app, &length), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(app), PASSCODE_OK);
    int32_t short_rc = passcode_reset_complete(app, m.code, strlen(m.code), "1397", 4);
    /* KEY_REPLACED: whether the key was handed out cannot be believed after an edit either. */
    int32_t rc = passcode_reset_complete(app, m.code, strlen(m.code), PC1, LEN);
    int32_t ended = 0;
    int got = rc == PASSCODE_ERR_KEY_REPLACED ? guess_until_refused(app, ATTACK_TRIES, &ended) : -1;
    printf("  pepper, no lockout and a 4-digit length written, then a reset: length %d, a 4-digit reset %s, "
           "a 6-digit one %s, then %d guesses checked, then %s\n",
           (int)length, passcode_strerror(short_rc), passcode_strerror(rc), got, passcode_strerror(ended));
    CHECK(length == LEN);
    CHECK_STATUS(short_rc, PASSCODE_ERR_FORMAT);
    CHECK_STATUS(rc, PASSCODE_ERR_KEY_REPLACED);
    CHECK(got == POLICY_GUESSES);
    CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
    CHECK(get_setting(app, PASSCODE_SETTING_LOCKOUT_SCHEDULE) == PASSCODE_LOCKOUT_SCHEDULE_APPLE);
    passcode_close(app);

    /* "Forgot passcode" ends the edit as well: the next passcode gets the default policy. */
    passcode_store *forgot = peppered_app(path, sizeof path, "resolve-forgot.db");
    CHECK_STATUS(passcode_set_logout_callback(forgot, mailbox_logout, &m), PASSCODE_OK);
    CHECK(attacker_writes(path, no_lockout_sql) == 0);
    CHECK_STATUS(passcode_forgot(forgot), PASSCODE_OK);
    CHECK_STATUS(passcode_set(forgot, PC1, LEN), PASSCODE_OK);
    got = guess_until_refused(forgot, ATTACK_TRIES, &ended);
    printf("  pepper, no lockout written, then forgot passcode: %d guesses checked, then %s\n", got, passcode_strerror(ended));
    CHECK(got == POLICY_GUESSES);
    CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(forgot);

    /* A planted "wipe pending" row made the next open seal the store as it was (the release
     * before this test: 200 guesses). Now the store stays tampered. */
    passcode_store *wiped = peppered_app(path, sizeof path, "resolve-wipe.db");
    passcode_close(wiped);
    CHECK(attacker_writes(path, "INSERT OR REPLACE INTO settings VALUES('lockout_custom', '0;0');"
                                "INSERT OR REPLACE INTO settings VALUES('lockout_schedule', 2);"
                                "INSERT OR REPLACE INTO state VALUES('wipe_pending', 1)") == 0);
    CHECK_STATUS(open_peppered(path, &wiped), PASSCODE_OK);
    got = guess_until_refused(wiped, ATTACK_TRIES, &ended);
    printf("  pepper, no lockout and a wipe-pending row written, then opened: %d guesses checked, then %s\n", got,
           passcode_strerror(ended));
    CHECK(got == 0);
    CHECK_STATUS(ended, PASSCODE_ERR_TAMPERED);
    passcode_close(wiped);
}

/* Counts the reset codes delivered in `rounds` requests a minute apart, with `between` (SQL, or
 * NULL) written by a second process after each. */
static int codes_delivered(passcode_store *s, const char *path, mailbox *m, int rounds, const char *between,
                           size_t *shortest) {
    int codes = 0;
    *shortest = 99;
    for (int i = 0; i < rounds; i++) {
        m->code[0] = 0;
        if (passcode_reset_request(s) == PASSCODE_OK) {
            codes++;
            if (strlen(m->code) < *shortest) *shortest = strlen(m->code);
        }
        if (between) CHECK(attacker_writes(path, between) == 0);
        advance_ms(61 * 1000);
    }
    return codes;
}

/* With a pepper, the reset path goes on while the MAC fails. It used to read the reset settings
 * from the file and to re-seal whatever reset requests it found, so deleting them gave the day's
 * budget back (the release before this test: 20 codes in 20 minutes, 6 digits each, with the
 * settings written). Now: the default settings while the MAC fails, and deleted requests count
 * as the whole day's budget spent. */
static void test_file_edits_buy_no_reset_codes(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    mailbox m = {0};
    size_t shortest = 0;
    passcode_store *s = peppered_app(path, sizeof path, "reset-budget.db");
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    int codes = codes_delivered(s, path, &m, 20, "DELETE FROM reset_request", &shortest);
    printf("  pepper, reset requests deleted after each request: %d codes in 20 minutes (policy: 5 a day)\n", codes);
    CHECK(codes >= 1 && codes <= 5);
    passcode_close(s);

    s = peppered_app(path, sizeof path, "reset-settings.db");
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    CHECK(attacker_writes(path, "INSERT OR REPLACE INTO settings VALUES('reset_requests_per_day', 100);"
                                "INSERT OR REPLACE INTO settings VALUES('reset_request_interval_seconds', 0);"
                                "INSERT OR REPLACE INTO settings VALUES('reset_code_length', 6);"
                                "INSERT OR REPLACE INTO settings VALUES('reset_code_lifetime_seconds', 86400)") == 0);
    codes = codes_delivered(s, path, &m, 20, NULL, &shortest);
    printf("  pepper, 100 requests a day, no interval and 6-digit codes written: %d codes in 20 minutes, "
           "the shortest %zu digits (policy: 5 a day, 8 digits)\n", codes, shortest);
    CHECK(codes == 5);
    CHECK(shortest == 8);
    passcode_close(s);
}

/* Opens `path` without a pepper, on the test clock. */
static int32_t open_plain(const char *path, passcode_store **out) {
    passcode_options *o = fast_options();
    int32_t rc = passcode_open(path, o, out);
    passcode_options_free(o);
    return rc;
}

/* The root page of a table in sqlite_master, read as the attacker reads it (-1: none). */
static int root_page(const char *path, const char *table) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int page = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE name = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) page = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return page;
}

/* The schema check compared the SQL text of sqlite_master, not where each table is: swapping
 * the root pages of settings and state (the same shape) passed it, and the state was read from
 * the settings' b-tree: failures forgiven (the release before this test: the store opened and
 * answered 200 more guesses after the policy's 9, without a pepper). Now refused at open. A
 * table put on another's page, or on page 1, is refused too. */
static void test_swapped_root_pages_are_refused(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], sql[512];
    new_path(path, sizeof path, "rootpage.db");
    passcode_store *app = NULL;
    CHECK_STATUS(open_plain(path, &app), PASSCODE_OK);
    CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(app, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    int32_t ended = 0;
    int got = guess_until_refused(app, ATTACK_TRIES, &ended);
    CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(app);
    int settings = root_page(path, "settings"), state = root_page(path, "state");
    CHECK(settings > 1 && state > 1);
    snprintf(sql, sizeof sql, "PRAGMA writable_schema = ON;"
             "UPDATE sqlite_master SET rootpage = %d WHERE name = 'settings';"
             "UPDATE sqlite_master SET rootpage = %d WHERE name = 'state';", state, settings);
    CHECK(attacker_writes(path, sql) == 0);
    app = NULL;
    int32_t rc = open_plain(path, &app);
    int more = 0;
    if (rc == PASSCODE_OK) more = guess_until_refused(app, ATTACK_TRIES, &ended);
    printf("  settings and state root pages swapped after %d guesses: open %s (%s), %d more guesses checked\n", got,
           passcode_strerror(rc), rc == PASSCODE_OK ? "" : passcode_errmsg(NULL), more);
    CHECK(more == 0);
    CHECK(rc == PASSCODE_ERR_FOREIGN_SCHEMA || rc == PASSCODE_ERR_CORRUPT);
    if (app) passcode_close(app);
    /* One table on another's page, and one on page 1. */
    const char *onto[] = {"event", "sqlite_master"};
    for (size_t i = 0; i < 2; i++) {
        new_path(path, sizeof path, "rootpage-dup.db");
        app = NULL;
        CHECK_STATUS(open_plain(path, &app), PASSCODE_OK);
        CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK);
        passcode_close(app);
        snprintf(sql, sizeof sql, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = %d WHERE name = 'reset_request';",
                 i == 0 ? root_page(path, "event") : 1);
        CHECK(attacker_writes(path, sql) == 0);
        app = NULL;
        rc = open_plain(path, &app);
        printf("  reset_request put on the page of %s: open %s\n", onto[i], passcode_strerror(rc));
        CHECK(rc == PASSCODE_ERR_FOREIGN_SCHEMA || rc == PASSCODE_ERR_CORRUPT);
        if (app) passcode_close(app);
    }
}

/* ---- -wal and -shm deleted while the store is open ------------------------------------------ */

/* A command to a guessing process (`--wal-guesser`): 'g' guesses the `index`-th wrong passcode
 * at the clock given, 'd' deletes the store's -wal and -shm, 'q' closes the store and exits.
 * Each is answered with a status. */
typedef struct { char op; int32_t index; int64_t boot_ms, wall_ms; } guesser_command;

static void distinct_guess(int32_t index, char out[16]) {
    snprintf(out, 16, "%06d", (345679 + index * 7919) % 1000000);
    if (!strcmp(out, PC1)) snprintf(out, 16, "%06d", (345680 + index * 7919) % 1000000);
}

/* The guessing process: a new program (exec'd, so it shares none of SQLite's state with the
 * test), which opens the store and keeps it open until told to quit. */
int wal_guesser(const char *path) {
    passcode_store *g = NULL;
    int32_t rc = open_peppered(path, &g);
    if (write(1, &rc, sizeof rc) != (ssize_t)sizeof rc) return 1;
    guesser_command c;
    while (read(0, &c, sizeof c) == (ssize_t)sizeof c && c.op != 'q') {
        the_clock.boot_ms = c.boot_ms;
        the_clock.wall_ms = c.wall_ms;
        if (c.op == 'g') {
            char guess[16];
            distinct_guess(c.index, guess);
            rc = g ? passcode_verify(g, guess, 6) : PASSCODE_ERR_IO;
            if (rc != PASSCODE_OK && rc != PASSCODE_ERR_WRONG_PASSCODE && rc != PASSCODE_ERR_RESET_REQUIRED && rc != PASSCODE_ERR_BUSY)
                fprintf(stderr, "  guesser %d: %s (%s)\n", (int)getpid(), passcode_strerror(rc), passcode_errmsg(g));
        } else {
            char name[600];
            path_with(name, sizeof name, path, "-wal");
            rc = unlink(name);
            path_with(name, sizeof name, path, "-shm");
            rc |= unlink(name);
        }
        if (write(1, &rc, sizeof rc) != (ssize_t)sizeof rc) return 1;
    }
    if (g) passcode_close(g);
    return 0;
}

typedef struct { pid_t pid; int to, from; } guesser;

static int32_t start_guesser(const char *path, guesser *out) {
    int down[2], up[2];
    char self[512];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || pipe(down) != 0 || pipe(up) != 0) abort();
    self[len] = 0;
    out->pid = fork();
    if (out->pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 1);
        close(down[0]); close(down[1]); close(up[0]); close(up[1]);
        execl(self, self, "--wal-guesser", path, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    out->to = down[1];
    out->from = up[0];
    int32_t rc = PASSCODE_ERR_IO;
    if (read(out->from, &rc, sizeof rc) != (ssize_t)sizeof rc) rc = PASSCODE_ERR_IO;
    return rc;
}

static int32_t tell_guesser(guesser *g, char op, int32_t index) {
    guesser_command c;
    memset(&c, 0, sizeof c);  /* no uninitialised padding written to the pipe (valgrind) */
    c.op = op;
    c.index = index;
    c.boot_ms = the_clock.boot_ms;
    c.wall_ms = the_clock.wall_ms;
    int32_t rc = PASSCODE_ERR_IO;
    if (write(g->to, &c, sizeof c) != (ssize_t)sizeof c || read(g->from, &rc, sizeof rc) != (ssize_t)sizeof rc) return PASSCODE_ERR_IO;
    return rc;
}

static void stop_guesser(guesser *g) {
    guesser_command c;
    memset(&c, 0, sizeof c);
    c.op = 'q';
    if (write(g->to, &c, sizeof c) != (ssize_t)sizeof c) kill(g->pid, SIGKILL);
    close(g->to);
    close(g->from);
    waitpid(g->pid, NULL, 0);
}

/* The tally of one series: wrong answers (guesses checked), refusals as busy, other statuses. */
typedef struct { int wrong, busy, other, reset; int32_t last_other; } tally;

static void count(tally *t, int32_t rc) {
    if (rc == PASSCODE_ERR_WRONG_PASSCODE) t->wrong++;
    else if (rc == PASSCODE_ERR_BUSY || rc == PASSCODE_ERR_LOCKED_OUT) t->busy++;
    else if (rc == PASSCODE_ERR_RESET_REQUIRED) t->reset++;
    else { t->other++; t->last_other = rc; }
}

/* The app holds the store open and keeps guessing. In each round a new attacker's process opens
 * the store, guesses, deletes -wal and -shm while it and the app hold the store open, keeps its
 * connection open and guesses again; the app guesses in between; every attacker stays open to
 * the end and guesses again in later rounds. In the release before this test the app and each
 * new process went on with a log and a wal-index of their own, and each counted the attempts in
 * its own page cache: 15 wrong answers against the policy's 9 (24 with the reader). Now every
 * write takes the writers' lock and, when the -wal or -shm path names another file than its
 * connection has open, opens the store again first. With `reader`, a third process holds a read
 * transaction open the whole time (its attempts are refused as busy until the files move). */
static void deleted_wal_while_open(int reader) {
    char path[512];
    passcode_store *app = peppered_app(path, sizeof path, reader ? "walopen-reader.db" : "walopen.db");
    int release = -1;
    /* One unlock first: its attempt's checkpoint puts the passcode into the store file (a
     * passcode set and never used yet lives in the log alone; deleted with it while a reader
     * held the log, it is gone, and every process answers "no passcode"). */
    if (reader) CHECK_STATUS(passcode_verify(app, PC1, LEN), PASSCODE_OK);
    pid_t reader_pid = reader ? hold_reader(path, &release) : 0;
    enum { ROUNDS = 8 };
    guesser attackers[ROUNDS];
    int started = 0, index = 0;
    tally app_t = {0}, att_t = {0};
    for (int round = 0; round < ROUNDS; round++) {
        int32_t rc = start_guesser(path, &attackers[started]);
        if (rc != PASSCODE_OK) {
            printf("  round %d: the attacker's open: %s\n", round, passcode_strerror(rc));
            count(&att_t, rc);
            stop_guesser(&attackers[started]);
            continue;
        }
        guesser *now = &attackers[started++];
        advance_ms(24LL * 3600 * 1000);
        count(&att_t, tell_guesser(now, 'g', index++));
        advance_ms(24LL * 3600 * 1000);
        char guess[16];
        distinct_guess(index++, guess);
        count(&app_t, passcode_verify(app, guess, 6));
        CHECK(tell_guesser(now, 'd', 0) == 0);  /* both hold the store open */
        advance_ms(24LL * 3600 * 1000);
        count(&att_t, tell_guesser(now, 'g', index++));
        for (int k = 0; k + 1 < started; k++) {  /* the earlier attackers, still open */
            advance_ms(24LL * 3600 * 1000);
            count(&att_t, tell_guesser(&attackers[k], 'g', index++));
        }
        advance_ms(24LL * 3600 * 1000);
        distinct_guess(index++, guess);
        count(&app_t, passcode_verify(app, guess, 6));
    }
    for (int k = 0; k < started; k++) stop_guesser(&attackers[k]);
    if (reader) {
        close(release);
        waitpid(reader_pid, NULL, 0);
    }
    int wrong = app_t.wrong + att_t.wrong;
    printf("  -wal/-shm deleted while the app and %d attackers' processes held the store open%s: %d wrong answers "
           "(attackers %d, app %d), %d refused busy or locked out, %d reset required, %d other (last: %s)\n",
           started, reader ? ", a reader held in a third process" : "", wrong, att_t.wrong, app_t.wrong,
           app_t.busy + att_t.busy, app_t.reset + att_t.reset, app_t.other + att_t.other,
           passcode_strerror(att_t.other ? att_t.last_other : app_t.last_other));
    CHECK(wrong <= POLICY_GUESSES);
    CHECK(app_t.other + att_t.other == 0);  /* no handle failed: a stale one opened the files again */
    passcode_close(app);
    passcode_store *after = NULL;
    CHECK_STATUS(open_peppered(path, &after), PASSCODE_OK);
    int32_t required = 0, failed = 0;
    CHECK_STATUS(passcode_is_reset_required(after, &required), PASSCODE_OK);
    CHECK_STATUS(passcode_failed_attempts(after, &failed), PASSCODE_OK);
    printf("  a new handle afterwards: %d failures counted, reset required: %d\n", failed, required);
    if (!reader) CHECK(required == 1);
    CHECK(failed >= wrong);  /* every checked guess is counted in the file */
    passcode_close(after);
}

/* Two handles of the app's process share SQLite's record of the old -shm: one cannot join the
 * new files while the other keeps the old ones open. Its attempt is refused (IO), the passcode
 * not checked; the host closes its handles, and a new one goes on with the count. */
static void test_deleted_wal_with_two_handles_in_one_process(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    passcode_store *app = peppered_app(path, sizeof path, "walopen-two.db");
    passcode_store *other = NULL;
    CHECK_STATUS(open_peppered(path, &other), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(other, PC1, LEN), PASSCODE_OK);  /* both have the files open */
    guesser attacker;
    CHECK_STATUS(start_guesser(path, &attacker), PASSCODE_OK);
    CHECK(tell_guesser(&attacker, 'd', 0) == 0);
    advance_ms(24LL * 3600 * 1000);
    CHECK_STATUS(tell_guesser(&attacker, 'g', 900), PASSCODE_ERR_WRONG_PASSCODE);  /* on new files */
    char guess[16];
    distinct_guess(901, guess);
    advance_ms(24LL * 3600 * 1000);
    int32_t rc = passcode_verify(app, guess, 6);
    printf("  a second handle keeps the old -shm: the first one's guess: %s (%s)\n", passcode_strerror(rc), passcode_errmsg(app));
    CHECK_STATUS(rc, PASSCODE_ERR_IO);
    passcode_close(other);
    passcode_close(app);
    app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);
    int32_t counted = failures(app);
    printf("  all handles closed, a new one: %d failures counted (the attacker's, and the refused attempt, not checked)\n", counted);
    CHECK(counted >= 1);  /* the attacker's guess is not lost */
    advance_ms(24LL * 3600 * 1000);
    CHECK_STATUS(passcode_verify(app, guess, 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(app) == counted + 1);
    stop_guesser(&attacker);
    passcode_close(app);
}

static void test_deleted_wal_while_open_buys_no_guess(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    deleted_wal_while_open(0);
}
static void test_deleted_wal_while_open_with_a_reader_buys_no_guess(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    deleted_wal_while_open(1);
}

/* One number read from the file as the attacker reads it (-1: none). */
static int file_count(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int n = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static const char *empty_every_table_sql =
    "DELETE FROM passcode; DELETE FROM recovery; DELETE FROM settings; DELETE FROM state;"
    "DELETE FROM reset_code; DELETE FROM reset_request; DELETE FROM event; DELETE FROM session;";

/* With a pepper, emptying every table made the store look new: "no passcode", the attacker's
 * own passcode accepted, the lock and "reset required" gone without a trace (the release before
 * this test: is_set 0, passcode_set OK, and after a reopen no lock, no reset required, no
 * event). A store that held our schema is never new again: it is tampered until a reset. The
 * state table alone pointed at an empty page was refused as "set up without a pepper"; it is
 * tampered too. Without a pepper the emptied store opens as new: conceded (passcode(7)). */
static void test_emptied_store_is_not_new(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    mailbox m = {0};
    passcode_store *app = peppered_app(path, sizeof path, "emptied.db");
    CHECK_STATUS(passcode_set_reset_delivery_callback(app, mailbox_deliver, &m), PASSCODE_OK);
    int32_t ended = 0;
    int got = guess_until_refused(app, ATTACK_TRIES, &ended);
    CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
    CHECK(attacker_writes(path, empty_every_table_sql) == 0);
    int32_t v = -1;
    int32_t open_rc = passcode_is_set(app, &v);
    int32_t set_rc = passcode_set(app, PC3, LEN);
    printf("  pepper, every table emptied after %d guesses (then %s), the app still open: is_set %s, "
           "the attacker's passcode_set %s\n", got, passcode_strerror(ended), passcode_strerror(open_rc), passcode_strerror(set_rc));
    CHECK_STATUS(open_rc, PASSCODE_ERR_TAMPERED);
    CHECK_STATUS(set_rc, PASSCODE_ERR_TAMPERED);
    passcode_close(app);
    CHECK(attacker_writes(path, empty_every_table_sql) == 0);
    app = NULL;
    int32_t reopen = open_peppered(path, &app);
    int32_t rr = -1, locked = -1;
    int32_t a = app ? passcode_is_set(app, &v) : -1;
    int32_t b = app ? passcode_is_reset_required(app, &rr) : -1;
    int32_t c = app ? passcode_lock_state(app, &locked, NULL) : -1;
    int more = app ? guess_until_refused(app, ATTACK_TRIES, &ended) : -1;
    printf("  emptied again, the app reopened: open %s; is_set %s, reset_required %s, lock_state %s; %d guesses checked, then %s\n",
           passcode_strerror(reopen), passcode_strerror(a), passcode_strerror(b), passcode_strerror(c), more, passcode_strerror(ended));
    CHECK_STATUS(reopen, PASSCODE_OK);
    CHECK_STATUS(a, PASSCODE_ERR_TAMPERED);
    CHECK_STATUS(b, PASSCODE_ERR_TAMPERED);
    CHECK_STATUS(c, PASSCODE_ERR_TAMPERED);
    CHECK(more == 0);
    /* The way out: the reset by email (the host is told its key changed), then the policy. The
     * reset requests went with the rest, and deleted requests count as the day's budget spent
     * (test_file_edits_buy_no_reset_codes): the first code comes a day later. */
    int32_t reset = PASSCODE_ERR_INTERNAL;
    if (app) {
        CHECK_STATUS(passcode_set_reset_delivery_callback(app, mailbox_deliver, &m), PASSCODE_OK);
        int32_t early = passcode_reset_request(app);
        printf("  a reset code asked for at once: %s\n", passcode_strerror(early));
        CHECK_STATUS(early, PASSCODE_ERR_RATE_LIMITED);
        advance_ms(24LL * 3600 * 1000 + 1000);
        CHECK_STATUS(passcode_reset_request(app), PASSCODE_OK);
        reset = passcode_reset_complete(app, m.code, strlen(m.code), PC2, LEN);
        more = guess_until_refused(app, ATTACK_TRIES, &ended);
        printf("  then a reset by email: %s, then %d guesses checked, then %s\n", passcode_strerror(reset), more, passcode_strerror(ended));
        CHECK_STATUS(reset, PASSCODE_ERR_KEY_REPLACED);
        CHECK(more == POLICY_GUESSES);
        CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
        passcode_close(app);
    }
    app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);  /* sealed again: opens as before */
    if (app) passcode_close(app);

    /* Without a pepper nothing can tell an emptied store from a new one (conceded). */
    app = peppered_app(path, sizeof path, "emptied-plain.db");
    passcode_close(app);
    CHECK(attacker_writes(path, empty_every_table_sql) == 0);
    app = NULL;
    int32_t plain = open_plain(path, &app);
    v = -1;
    if (app) { CHECK_STATUS(passcode_is_set(app, &v), PASSCODE_OK); passcode_close(app); }
    printf("  an emptied peppered store opened by a host with no pepper: open %s, a passcode set: %d (not detected: no key)\n",
           passcode_strerror(plain), (int)v);
    CHECK_STATUS(plain, PASSCODE_OK);
    CHECK(v == 0);

    /* The state table alone pointed at an empty page of its own shape. */
    app = peppered_app(path, sizeof path, "orphan-state.db");
    got = guess_until_refused(app, ATTACK_TRIES, &ended);
    passcode_close(app);
    CHECK(attacker_writes(path, "CREATE TABLE x(key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID; PRAGMA writable_schema = ON;"
                                "UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'x') WHERE name = 'state';"
                                "DELETE FROM sqlite_master WHERE name = 'x';") == 0);
    app = NULL;
    int32_t orc = open_peppered(path, &app);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", orc == PASSCODE_OK ? "" : passcode_errmsg(NULL));
    int32_t call = app ? passcode_verify(app, PC1, LEN) : orc;
    if (call != PASSCODE_OK && app) snprintf(msg, sizeof msg, "%s", passcode_errmsg(app));
    printf("  pepper, state pointed at an empty page after %d guesses: open %s, verify %s (\"%s\")\n", got,
           passcode_strerror(orc), passcode_strerror(call), msg);
    CHECK(strstr(msg, "without a pepper") == NULL);
    CHECK(orc == PASSCODE_OK || orc == PASSCODE_ERR_FOREIGN_SCHEMA || orc == PASSCODE_ERR_CORRUPT);
    if (orc == PASSCODE_OK) CHECK_STATUS(call, PASSCODE_ERR_TAMPERED);
    if (app) passcode_close(app);
}

/* Rows the write that ends a detected edit kept: a handed-out flag written to 0 made the reset
 * say OK instead of KEY_REPLACED (the host not told its key changed), a planted device session
 * stayed in the list, and deleted events left no trace (the release before this test: OK, 1
 * session 'evil', no word of the log's edit). Now: KEY_REPLACED, no session kept, and the log
 * says that the entries before may have been edited. */
static void test_reset_after_an_edit_keeps_no_unauthenticated_row(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512];
    mailbox m = {0};
    passcode_store *app = peppered_app(path, sizeof path, "kept-rows.db");
    CHECK_STATUS(passcode_set_reset_delivery_callback(app, mailbox_deliver, &m), PASSCODE_OK);
    uint8_t key[32];
    CHECK_STATUS(passcode_unlock_key(app, PC1, LEN, key, sizeof key), PASSCODE_OK);
    CHECK(attacker_writes(path, "INSERT INTO session VALUES('evil', 'Attacker Phone', 'ios', 1764000000000, 'Nowhere', 1);"
                                "DELETE FROM event; INSERT OR REPLACE INTO state VALUES('data_key_handed_out', 0)") == 0);
    int32_t v = 0;
    CHECK_STATUS(passcode_is_set(app, &v), PASSCODE_ERR_TAMPERED);
    CHECK_STATUS(passcode_reset_request(app), PASSCODE_OK);
    int32_t rc = passcode_reset_complete(app, m.code, strlen(m.code), PC2, LEN);
    passcode_session_list *list = NULL;
    size_t sessions = 99;
    if (passcode_session_list_new(app, &list) == PASSCODE_OK) {
        sessions = passcode_session_list_count(list);
        passcode_session_list_free(list);
    }
    int noted = file_count(path, "SELECT count(*) FROM event WHERE detail LIKE '%log before this entry may have been edited%'");
    printf("  pepper, a session planted, the log deleted, the handed-out flag written to 0: reset %s, %zu sessions kept, "
           "%d log entries saying the log was edited\n", passcode_strerror(rc), sessions, noted);
    CHECK_STATUS(rc, PASSCODE_ERR_KEY_REPLACED);
    CHECK(sessions == 0);
    CHECK(noted == 1);
    passcode_close(app);
}

/* Copies the reset rows (code, requests) and their own MAC into `snapshot` (a file of its own). */
static void save_reset_rows(const char *path, const char *snapshot) {
    char sql[1024];
    unlink(snapshot);
    snprintf(sql, sizeof sql, "ATTACH '%s' AS s; CREATE TABLE s.rc AS SELECT * FROM reset_code;"
             "CREATE TABLE s.rr AS SELECT rowid AS rid, boot_id, boot_ms, wall_ms, failed FROM reset_request;"
             "CREATE TABLE s.mac AS SELECT value FROM state WHERE key = 'reset_mac';", snapshot);
    CHECK(attacker_writes(path, sql) == 0);
}

/* Puts the rows saved by `save_reset_rows` back (the store is tampered by the first). */
static void put_reset_rows_back(const char *path, const char *snapshot) {
    char sql[1024];
    snprintf(sql, sizeof sql, "ATTACH '%s' AS s; DELETE FROM main.reset_code; INSERT INTO main.reset_code SELECT * FROM s.rc;"
             "DELETE FROM main.reset_request; INSERT INTO main.reset_request(rowid, boot_id, boot_ms, wall_ms, failed) SELECT * FROM s.rr;"
             "UPDATE main.state SET value = (SELECT value FROM s.mac) WHERE key = 'reset_mac';", snapshot);
    CHECK(attacker_writes(path, sql) == 0);
}

/* Copying earlier genuine reset rows back (their own MAC with them) while the store is tampered:
 * that MAC proves them genuine, not current, and nothing else in a tampered file can date them
 * (a rollback, passcode(7)). The release before this test: 60 wrong tries at one code in 12 rounds,
 * and 30 codes in 30 minutes. The handle that takes the tries and makes the requests now counts
 * them itself: no more than the policy (5 tries a code, 5 codes a day) while the app runs; a
 * restart of the app gets the file's word again (passcode(7)). */
static void test_replayed_reset_rows_buy_nothing_while_the_app_runs(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], snapshot[600];
    mailbox m = {0};
    passcode_store *app = peppered_app(path, sizeof path, "replay-tries.db");
    snprintf(snapshot, sizeof snapshot, "%s.rows", path);
    CHECK_STATUS(passcode_set_reset_delivery_callback(app, mailbox_deliver, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(app), PASSCODE_OK);
    size_t length = strlen(m.code);
    save_reset_rows(path, snapshot);
    int wrong = 0;
    int32_t last = PASSCODE_OK;
    for (int round = 0; round < 12; round++) {
        for (int i = 0; i < 5; i++) {
            char g[16];
            snprintf(g, sizeof g, "%0*d", (int)length, 10000000 + round * 10 + i);
            if (!strcmp(g, m.code)) continue;
            last = passcode_reset_check(app, g, length);
            if (last != PASSCODE_ERR_WRONG_RESET_CODE) break;
            wrong++;
        }
        put_reset_rows_back(path, snapshot);
        advance_ms(1000);
    }
    printf("  pepper, the reset rows put back after each 5 tries: %d wrong tries at one code in 12 rounds (policy 5), then %s\n",
           wrong, passcode_strerror(last));
    CHECK(wrong <= 5);
    passcode_close(app);
    unlink(snapshot);

    app = peppered_app(path, sizeof path, "replay-codes.db");
    CHECK_STATUS(passcode_set_reset_delivery_callback(app, mailbox_deliver, &m), PASSCODE_OK);
    save_reset_rows(path, snapshot);
    int codes = 0;
    for (int i = 0; i < 30; i++) {
        if (passcode_reset_request(app) == PASSCODE_OK) codes++;
        put_reset_rows_back(path, snapshot);
        advance_ms(61 * 1000);
    }
    printf("  pepper, the empty request rows put back after each request: %d codes in 30 minutes (policy 5 a day)\n", codes);
    CHECK(codes <= 5);
    passcode_close(app);
    unlink(snapshot);
}

/* From a second process: the store file truncated to 0 bytes (`: > s.db`), then, if `sql` is
 * not NULL, an SQLite database with no table written in its place by running `sql` on it. Write
 * access to the file alone, not to its folder. Returns 0 when done. */
static int attacker_empties_file(const char *path, const char *sql) {
    pid_t pid = fork();
    if (pid == 0) _exit(truncate(path, 0) == 0 ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    return sql ? attacker_writes(path, sql) : 0;
}

/* With a pepper, a store truncated to 0 bytes, or with an empty database written over it in
 * place, opened as a new store: no passcode, no lock, no "reset required" (the release before
 * this test: open OK, is_set 0, the attacker's passcode_set OK). A new store is now built under
 * a temporary name and linked to its path, so an empty file at the path was never ours: with
 * a pepper it is tampered until a reset, like an emptied store. */
static void test_truncated_store_is_not_new(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    static const char *const ways[] = {NULL, "CREATE TABLE t(x); DROP TABLE t;", "PRAGMA user_version = 0; VACUUM;"};
    static const char *const names[] = {"truncated to 0 bytes", "an empty database written over it", "an empty database (VACUUM)"};
    for (int w = 0; w < 3; w++) {
        char path[512], wal[600], shm[600];
        passcode_store *app = peppered_app(path, sizeof path, "truncated.db");
        path_with(wal, sizeof wal, path, "-wal");
        path_with(shm, sizeof shm, path, "-shm");
        int32_t ended = 0;
        int got = guess_until_refused(app, ATTACK_TRIES, &ended);
        CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
        passcode_close(app);
        CHECK(access(wal, F_OK) != 0);  /* the last close emptied the log into the file */
        CHECK(attacker_empties_file(path, ways[w]) == 0);
        struct stat st;
        CHECK(stat(path, &st) == 0);
        app = NULL;
        int32_t reopen = open_peppered(path, &app);
        int32_t v = -1, rr = -1;
        int32_t a = app ? passcode_is_set(app, &v) : -1;
        int32_t b = app ? passcode_is_reset_required(app, &rr) : -1;
        int32_t set_rc = app ? passcode_set(app, PC3, LEN) : -1;
        int more = app ? guess_until_refused(app, ATTACK_TRIES, &ended) : 0;
        printf("  pepper, %d guesses then %s; file %s (%lld bytes), the app reopened: open %s; is_set %s, "
               "reset_required %s, the attacker's passcode_set %s; %d more guesses checked\n",
               got, "reset required", names[w], (long long)st.st_size, passcode_strerror(reopen), passcode_strerror(a),
               passcode_strerror(b), passcode_strerror(set_rc), more);
        CHECK_STATUS(reopen, PASSCODE_OK);
        CHECK_STATUS(a, PASSCODE_ERR_TAMPERED);
        CHECK_STATUS(b, PASSCODE_ERR_TAMPERED);
        CHECK_STATUS(set_rc, PASSCODE_ERR_TAMPERED);
        CHECK(more == 0);
        if (app) passcode_close(app);
        /* Without a pepper nothing can tell it from a new store (conceded, passcode(7)). */
        if (w == 0) {
            char plain_path[512];
            new_path(plain_path, sizeof plain_path, "truncated-plain.db");
            passcode_store *p = open_fast(plain_path);
            CHECK_STATUS(passcode_set(p, PC1, LEN), PASSCODE_OK);
            passcode_close(p);
            CHECK(attacker_empties_file(plain_path, NULL) == 0);
            p = open_fast(plain_path);
            v = -1;
            CHECK_STATUS(passcode_is_set(p, &v), PASSCODE_OK);
            printf("  no pepper, truncated to 0 bytes: opens as a new store, a passcode set: %d (not detected: no key)\n", (int)v);
            CHECK(v == 0);
            passcode_close(p);
        }
    }
}

/* A new store leaves nothing but its own file: the temporary name it was built under is gone,
 * and four processes creating the same store at once all open the one store, where exactly one
 * sets the first passcode. (Before the library stopped closing descriptors of its own on the
 * -shm, a process that opened the store next could take the wal-index for abandoned and rebuild
 * it under the others: about 1 round in 7 had two processes both set a first passcode, one
 * commit lost.) 40 rounds. */
static void test_new_store_is_made_whole(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    int rounds = 40, whole = 0, leftovers = 0, failed = 0;
    for (int r = 0; r < rounds; r++) {
        char dir[512], path[600];
        new_path(dir, sizeof dir, "made-whole");
        CHECK(mkdir(dir, 0700) == 0);
        snprintf(path, sizeof path, "%s/s.db", dir);
        pid_t kids[4];
        for (int k = 0; k < 4; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                passcode_options *o = peppered_options();
                passcode_store *s = NULL;
                int32_t rc = passcode_open(path, o, &s);
                passcode_options_free(o);
                if (rc != PASSCODE_OK) _exit(10);
                rc = passcode_set(s, PC1, LEN);
                passcode_close(s);
                _exit(rc == PASSCODE_OK ? 0 : rc == PASSCODE_ERR_ALREADY_SET ? 1 : 11);
            }
        }
        int set = 0, already = 0, other = 0;
        for (int k = 0; k < 4; k++) {
            int status = 0;
            waitpid(kids[k], &status, 0);
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
            if (code == 0) set++; else if (code == 1) already++; else other++;
        }
        int entries = 0;
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (strstr(e->d_name, ".new-")) entries++;  /* -wal and -shm may stay: SQLite's */
        }
        if (d) closedir(d);
        if (set == 1 && already == 3) whole++;
        if (other) failed++;
        if (entries != 0) leftovers++;
    }
    printf("  4 processes create one peppered store at once, %d rounds: exactly one first passcode in %d, "
           "a failed open or set in %d, temporary files left beside the store in %d\n", rounds, whole, failed, leftovers);
    CHECK(whole == rounds);
    CHECK(failed == 0);
    CHECK(leftovers == 0);
}

/* A first passcode that was only in -wal was lost with it: deleting -wal and -shm while the app
 * ran took the lock off (the release before this test: is_set 0 in the attacker's process, and
 * with a pepper the store then refused the pepper). passcode_set (and every setting change)
 * now empties the log into the file before it returns. */
static void test_first_passcode_survives_deleted_wal(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], wal[600], shm[600];
    new_path(path, sizeof path, "first-wal.db");
    path_with(wal, sizeof wal, path, "-wal");
    path_with(shm, sizeof shm, path, "-shm");
    /* The other process is forked before the app opens the store (SQLite's state must not be
     * inherited through fork) and waits for the go. */
    int go[2], results[2];
    if (pipe(go) != 0 || pipe(results) != 0) abort();
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]);
        close(results[0]);
        char c;
        if (read(go[0], &c, 1) != 1) _exit(1);
        passcode_store *g = NULL;
        int32_t out[4] = {-1, -1, -1, -1};
        out[0] = open_peppered(path, &g);
        if (out[0] != PASSCODE_OK) fprintf(stderr, "  open: %s\n", passcode_errmsg(NULL));
        int32_t v = -1;
        int64_t seconds = -1;
        if (g) {
            out[1] = passcode_is_set(g, &v);
            out[2] = v;
            out[3] = passcode_setting_get(g, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &seconds) == PASSCODE_OK ? (int32_t)seconds : -1;
            passcode_close(g);
        }
        if (write(results[1], out, sizeof out) < 0) _exit(1);
        _exit(0);
    }
    close(go[0]);
    close(results[1]);
    passcode_store *app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);
    CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(app, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    /* The app stays open (its connection keeps the log); the attacker deletes the log files. */
    unlink(wal);
    unlink(shm);
    if (write(go[1], "g", 1) != 1) abort();
    close(go[1]);
    int32_t out[4] = {-1, -1, -1, -1};
    if (read(results[0], out, sizeof out) != (ssize_t)sizeof out) CHECK(0);
    close(results[0]);
    waitpid(pid, NULL, 0);
    passcode_close(app);
    app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);
    int32_t ended = 0;
    int got = app ? guess_until_refused(app, ATTACK_TRIES, &ended) : -1;
    printf("  pepper, -wal/-shm deleted after the first passcode and a setting: another process opens %s, is_set %s = %d, "
           "auto-lock %d s; then %d guesses checked, then %s\n", passcode_strerror(out[0]), passcode_strerror(out[1]),
           (int)out[2], (int)out[3], got, passcode_strerror(ended));
    CHECK_STATUS(out[0], PASSCODE_OK);
    CHECK_STATUS(out[1], PASSCODE_OK);
    CHECK(out[2] == 1);
    CHECK(out[3] == 60);
    CHECK(got == POLICY_GUESSES);
    CHECK_STATUS(ended, PASSCODE_ERR_RESET_REQUIRED);
    if (app) passcode_close(app);
}

/* What a crashed creation left beside the store: a sealed store with no passcode, built in the
 * private folder `STORE.new-HEX`. Whoever may write the store file could copy it in as a new
 * store that passes the pepper's check (the release before this test: open OK, is_set 0, the
 * attacker's passcode_set OK). Every open removes such strays; one a process is building in
 * (the folder's flock held) is left alone. */
static void test_stray_temporary_is_removed(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char dir[256], path[300], stray_dir[320], stray[340], busy[320], cmd[3000];
    new_path(dir, sizeof dir, "stray");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/s.db", dir);
    snprintf(stray_dir, sizeof stray_dir, "%s/s.db.new-5eed", dir);
    snprintf(stray, sizeof stray, "%s/store", stray_dir);
    snprintf(busy, sizeof busy, "%s/s.db.new-b0b", dir);
    CHECK(mkdir(stray_dir, 0700) == 0);
    CHECK(mkdir(busy, 0700) == 0);
    /* A sealed empty store, as a creation killed before the link leaves it, and its -wal. */
    passcode_store *s = NULL;
    CHECK_STATUS(open_peppered(stray, &s), PASSCODE_OK);
    if (s) passcode_close(s);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/store' && : > '%s-wal' && chmod 600 '%s-wal'", stray, busy, stray, stray);
    CHECK(system(cmd) == 0);
    int hold[2], ready[2];
    if (pipe(hold) != 0 || pipe(ready) != 0) abort();
    pid_t builder = fork();
    if (builder == 0) {  /* "building" in s.db.new-b0b: holds the folder's flock */
        close(hold[1]);
        close(ready[0]);
        int fd = open(busy, O_RDONLY | O_DIRECTORY);
        if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        char c;
        if (read(hold[0], &c, 1) < 0) _exit(1);
        _exit(0);
    }
    close(hold[0]);
    close(ready[1]);
    char c;
    if (read(ready[0], &c, 1) != 1) CHECK(0);
    close(ready[0]);
    passcode_store *app = NULL;
    CHECK_STATUS(open_peppered(path, &app), PASSCODE_OK);
    if (app) { CHECK_STATUS(passcode_set(app, PC1, LEN), PASSCODE_OK); passcode_close(app); }
    int stray_left = access(stray, F_OK) == 0, dir_left = access(stray_dir, F_OK) == 0, busy_left = access(busy, F_OK) == 0;
    int32_t is = -1;
    if (stray_left) {  /* the attack the stray allowed: copied over the store, the app closed */
        snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", stray, path);
        CHECK(system(cmd) == 0);
        app = NULL;
        if (open_peppered(path, &app) == PASSCODE_OK && app) { passcode_is_set(app, &is); passcode_close(app); }
    }
    close(hold[1]);
    waitpid(builder, NULL, 0);
    printf("  after an open: a stray sealed store %s (its folder %s), a folder being built in %s%s\n",
           stray_left ? "LEFT" : "removed", dir_left ? "LEFT" : "removed", busy_left ? "kept" : "REMOVED",
           stray_left && is == 0 ? "; the stray copied over the store: a new store, no passcode" : "");
    CHECK(!stray_left);
    CHECK(!dir_left);
    CHECK(busy_left);
}

/* The store file truncated and its -wal/-shm deleted while the app runs (write access to the
 * folder): the handle opened the store again and set the empty file up as a new store without
 * the pepper's check value, so every later open with the pepper said WRONG_PEPPER and the
 * reset could not be reached. Now the handle is refused (TAMPERED) and the next open, with the
 * pepper, finds a store whose rows were deleted: TAMPERED until the reset, 0 guesses. */
static void test_truncated_under_the_app_with_deleted_log(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], wal[600], shm[600];
    passcode_store *app = peppered_app(path, sizeof path, "truncated-open.db");
    path_with(wal, sizeof wal, path, "-wal");
    path_with(shm, sizeof shm, path, "-shm");
    CHECK(attacker_empties_file(path, NULL) == 0);
    unlink(wal);
    unlink(shm);
    int32_t ended = 0;
    int got = guess_until_refused(app, ATTACK_TRIES, &ended);
    passcode_close(app);
    app = NULL;
    int32_t reopen = open_peppered(path, &app);
    int32_t v = -1;
    int32_t a = app ? passcode_is_set(app, &v) : reopen;
    int more = app ? guess_until_refused(app, ATTACK_TRIES, &ended) : 0;
    int32_t forgot = app ? passcode_forgot(app) : reopen;
    printf("  pepper, truncated and -wal/-shm deleted under the app: %d guesses checked by the app; reopened: open %s, "
           "is_set %s, %d guesses; forgot passcode: %s\n", got, passcode_strerror(reopen), passcode_strerror(a), more,
           passcode_strerror(forgot));
    CHECK(got == 0);
    CHECK_STATUS(reopen, PASSCODE_OK);
    CHECK_STATUS(a, PASSCODE_ERR_TAMPERED);
    CHECK(more == 0);
    if (app) passcode_close(app);
}

/* A symbolic link at the store path (dangling or not) is refused as such, every time. */
static void test_symlink_at_store_path_is_refused(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    char path[512], target[600];
    new_path(path, sizeof path, "link.db");
    snprintf(target, sizeof target, "%s-target", path);
    CHECK(symlink(target, path) == 0);
    passcode_store *s = NULL;
    int32_t rc = open_peppered(path, &s);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", passcode_errmsg(NULL));
    printf("  a dangling symbolic link at the store path: %s (\"%s\")\n", passcode_strerror(rc), msg);
    CHECK_STATUS(rc, PASSCODE_ERR_NOT_A_STORE);
    CHECK(strstr(msg, "symbolic link") != NULL);
    CHECK(access(target, F_OK) != 0);  /* nothing created through it */
    unlink(path);
}

/* A process of the same user that can only read the store file stops the creating process as
 * the new store gets its name (SIGSTOP), takes the store file's flock (the writers' lock) and
 * lets it go on: its own open waits out the busy timeout and fails BUSY. Its error path then
 * deleted the store it had just linked, which another process may already use (once:
 * a first passcode set and acknowledged meanwhile was gone, the next launch a new store, 5 of 5
 * tries). Once linked, the store stays. */
static void test_failed_open_keeps_the_new_store(void) {
    EMBEDDED_ONLY(ONLY_ATTACK);
    int busy = 0, kept = 0, tries = 0;
    for (; tries < 10; tries++) {
        char dir[256], path[300];
        new_path(dir, sizeof dir, "keep-new");
        CHECK(mkdir(dir, 0700) == 0);
        snprintf(path, sizeof path, "%s/s.db", dir);
        int watch = inotify_init1(IN_CLOEXEC);
        if (watch < 0 || inotify_add_watch(watch, dir, IN_CREATE) < 0) { CHECK(0); return; }
        int results[2];
        if (pipe(results) != 0) abort();
        pid_t creator = fork();
        if (creator == 0) {
            close(results[0]);
            passcode_options *o = peppered_options();
            passcode_options_set_busy_timeout(o, 300);
            passcode_store *s = NULL;
            int32_t rc = passcode_open(path, o, &s);
            if (write(results[1], &rc, sizeof rc) < 0) _exit(1);
            _exit(0);
        }
        close(results[1]);
        int lock_fd = -1;
        char events[4096] __attribute__((aligned(8)));
        for (int done = 0; !done;) {
            ssize_t n = read(watch, events, sizeof events);
            if (n <= 0) break;
            for (char *p = events; p < events + n;) {
                struct inotify_event *e = (struct inotify_event *)p;
                if (e->len && !strcmp(e->name, "s.db")) {
                    kill(creator, SIGSTOP);
                    lock_fd = open(path, O_RDONLY | O_CLOEXEC);
                    if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) != 0) { close(lock_fd); lock_fd = -1; }
                    kill(creator, SIGCONT);
                    done = 1;
                    break;
                }
                p += sizeof *e + e->len;
            }
        }
        close(watch);
        int32_t rc = -1;
        if (read(results[0], &rc, sizeof rc) != (ssize_t)sizeof rc) rc = -1;
        close(results[0]);
        waitpid(creator, NULL, 0);
        if (lock_fd >= 0) close(lock_fd);
        if (rc == PASSCODE_ERR_BUSY) {
            busy++;
            passcode_store *s = NULL;
            int32_t v = -1;
            if (access(path, F_OK) == 0 && open_peppered(path, &s) == PASSCODE_OK && s && passcode_is_set(s, &v) == PASSCODE_OK && v == 0) kept++;
            if (s) passcode_close(s);
        }
        if (busy >= 3) { tries++; break; }
    }
    printf("  the creator stopped as its store got its name, the store's flock taken: %d of %d tries ended BUSY; "
           "the new store kept (whole, sealed) in %d of them\n", busy, tries, kept);
    CHECK(busy > 0);
    CHECK(kept == busy);
}

void run_file_attack_tests(void) {
    RUN(test_policy_control_nine_then_reset);
    RUN(test_planted_trigger_buys_no_guess);
    RUN(test_endless_trigger_does_not_hang);
    RUN(test_foreign_objects_are_refused_at_open);
    RUN(test_deleted_wal_buys_no_guess);
    RUN(test_old_passcode_gone_after_change);
    RUN(test_another_user_cannot_plant_sidecars);
    RUN(test_pepper_covers_every_table);
    RUN(test_big_value_leaves_recovery);
    RUN(test_another_users_ancestor_is_refused);
    RUN(test_resolving_write_keeps_no_attacker_setting);
    RUN(test_file_edits_buy_no_reset_codes);
    RUN(test_swapped_root_pages_are_refused);
    RUN(test_deleted_wal_while_open_buys_no_guess);
    RUN(test_deleted_wal_while_open_with_a_reader_buys_no_guess);
    RUN(test_emptied_store_is_not_new);
    RUN(test_reset_after_an_edit_keeps_no_unauthenticated_row);
    RUN(test_replayed_reset_rows_buy_nothing_while_the_app_runs);
    RUN(test_deleted_wal_with_two_handles_in_one_process);
    RUN(test_truncated_store_is_not_new);
    RUN(test_new_store_is_made_whole);
    RUN(test_first_passcode_survives_deleted_wal);
    RUN(test_stray_temporary_is_removed);
    RUN(test_truncated_under_the_app_with_deleted_log);
    RUN(test_symlink_at_store_path_is_refused);
    RUN(test_failed_open_keeps_the_new_store);
}
