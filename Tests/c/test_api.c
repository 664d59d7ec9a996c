/* C tests for every function of passcode.h: good input, bad input, and that bad input
 * changes nothing. Built with -std=c99 -Wall -Wextra -Wpedantic -Werror against the built
 * library; run by `make test-c`. */
#include <passcode.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

/* Passcodes the weak-passcode rules accept. */
#define PC1 "386491"
#define PC2 "915372"
#define PC3 "502817"
#define LEN 6

static char tmp_root[256];
static int path_counter;

/* ---- helpers ---------------------------------------------------------------------------- */

/* A host clock the tests move by hand. */
typedef struct { int64_t boot_ms, wall_ms; uint64_t boot_id; } test_clock;
static test_clock the_clock = { 1000000, 1700000000000LL, 42 };

static void clock_cb(void *payload, int64_t *boot_ms, int64_t *wall_ms, uint64_t *boot_id) {
    test_clock *c = payload;
    *boot_ms = c->boot_ms;
    *wall_ms = c->wall_ms;
    *boot_id = c->boot_id;
}

static void new_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%d-%s", tmp_root, ++path_counter, name);
}

/* Cheap Argon2id (t=1, 8 KiB) so that tests run fast, plus the test clock. */
static passcode_options *fast_options(void) {
    passcode_options *o = NULL;
    if (passcode_options_new(&o) != PASSCODE_OK) abort();
    if (passcode_options_set_cost_explicit(o, 1, 8192) != PASSCODE_OK) abort();
    if (passcode_options_set_clock(o, clock_cb, &the_clock) != PASSCODE_OK) abort();
    return o;
}

static passcode_store *open_fast(const char *path) {
    passcode_options *o = fast_options();
    passcode_store *s = NULL;
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (rc != PASSCODE_OK) {
        fprintf(stderr, "open %s: %s (%s)\n", path, passcode_strerror(rc), passcode_errmsg(NULL));
        abort();
    }
    return s;
}

static passcode_store *new_store(char *path, size_t size) {
    new_path(path, size, "store.db");
    return open_fast(path);
}

/* The whole content of a file, to show that a failed call changed nothing. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { *len = 0; return NULL; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static int same_file(const char *path, const char *before, size_t before_len) {
    size_t len;
    char *now = slurp(path, &len);
    int same = now && len == before_len && memcmp(now, before, len) == 0;
    free(now);
    return same;
}

static int exists(const char *path) { struct stat st; return stat(path, &st) == 0; }

static int64_t get_setting(passcode_store *s, int32_t which) {
    int64_t v = -999;
    if (passcode_setting_get(s, which, &v) != PASSCODE_OK) return -999;
    return v;
}

static int32_t failures(passcode_store *s) {
    int32_t n = -1;
    passcode_failed_attempts(s, &n);
    return n;
}

static int64_t lockout(passcode_store *s) {
    int64_t n = -1;
    passcode_lockout_remaining(s, &n);
    return n;
}

/* ---- version and errors ------------------------------------------------------------------ */

static void test_version(void) {
    CHECK(passcode_version_number() == PASSCODE_VERSION_NUMBER);
    CHECK(strcmp(passcode_version_string(), PASSCODE_VERSION_STRING) == 0);
}

static void test_strerror_names_every_status(void) {
    for (int32_t s = PASSCODE_OK; s <= PASSCODE_ERR_INTERNAL; s++) {
        const char *t = passcode_strerror(s);
        CHECK(t != NULL && strlen(t) > 0 && strcmp(t, "unknown status") != 0);
    }
    CHECK(strcmp(passcode_strerror(-1), "unknown status") == 0);
    CHECK(strcmp(passcode_strerror(100000), "unknown status") == 0);
    CHECK(strcmp(passcode_strerror(PASSCODE_ERR_WRONG_PASSCODE), "incorrect passcode") == 0);
}

/* ---- options ----------------------------------------------------------------------------- */

static void test_options_bad_input(void) {
    passcode_options *o = NULL;
    CHECK_STATUS(passcode_options_new(NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_new(&o), PASSCODE_OK);
    CHECK(o != NULL);
    CHECK_STATUS(passcode_options_set_cost(o, 3), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_cost(o, -1), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_cost(o, PASSCODE_COST_MODERATE), PASSCODE_OK);
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 0, 8192), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 1, 100), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 1, SIZE_MAX), PASSCODE_ERR_MISUSE);
    uint8_t pepper[32] = {0};
    CHECK_STATUS(passcode_options_set_pepper(o, pepper, 31), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_pepper(o, NULL, 32), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_pepper(o, pepper, 32), PASSCODE_OK);
    CHECK_STATUS(passcode_options_set_pepper(o, NULL, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_options_set_allow_weak(o, 2), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_busy_timeout(o, -1), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_busy_timeout(o, 700000), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_busy_timeout(o, 5000), PASSCODE_OK);
    CHECK_STATUS(passcode_options_set_clock(o, NULL, NULL), PASSCODE_OK);
    passcode_options_free(o);
    /* A freed options object, and one that never came from the library. */
    CHECK_STATUS(passcode_options_set_cost(o, 0), PASSCODE_ERR_INVALID_HANDLE);
    int not_a_handle = 0;
    CHECK_STATUS(passcode_options_set_allow_weak((passcode_options *)&not_a_handle, 1), PASSCODE_ERR_INVALID_HANDLE);
    passcode_options_free(NULL);
    passcode_options_free((passcode_options *)&not_a_handle);
    char path[512];
    new_path(path, sizeof path, "bad-options.db");
    passcode_store *s = (passcode_store *)&not_a_handle;
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_ERR_INVALID_HANDLE);
    CHECK(s == NULL);
    CHECK(!exists(path));
}

/* ---- opening ----------------------------------------------------------------------------- */

static void test_open_creates_store_with_mode_0600(void) {
    char path[512];
    mode_t old = umask(0);  /* even with a permissive umask */
    passcode_store *s = new_store(path, sizeof path);
    umask(old);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 0);
    CHECK_STATUS(passcode_is_enabled(s, &v), PASSCODE_OK);
    CHECK(v == 0);
    CHECK_STATUS(passcode_length(s, &v), PASSCODE_OK);
    CHECK(v == 6);
    passcode_close(s);
    /* The WAL files SQLite makes next to it have the same mode. */
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (exists(wal)) { CHECK(stat(wal, &st) == 0 && (st.st_mode & 0777) == 0600); }
}

static void test_open_bad_paths(void) {
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(NULL, NULL, &s), PASSCODE_ERR_MISUSE);
    CHECK(strlen(passcode_errmsg(NULL)) > 0);
    CHECK_STATUS(passcode_open("x.db", NULL, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_open("", NULL, &s), PASSCODE_ERR_MISUSE);

    char path[512];
    snprintf(path, sizeof path, "%s/no/such/folder/store.db", tmp_root);
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NOT_FOUND);
    CHECK(s == NULL);
    CHECK(strstr(passcode_errmsg(NULL), "folder") != NULL);
    CHECK(!exists(path));

    CHECK_STATUS(passcode_open(tmp_root, NULL, &s), PASSCODE_ERR_IS_DIRECTORY);
    CHECK(s == NULL);
}

static void test_open_refuses_foreign_files_and_changes_nothing(void) {
    char path[512];
    new_path(path, sizeof path, "notes.txt");
    FILE *f = fopen(path, "w");
    fputs("these are not the droids you are looking for\n", f);
    fclose(f);
    size_t len;
    char *before = slurp(path, &len);
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NOT_A_STORE);
    CHECK(s == NULL);
    CHECK(same_file(path, before, len));
    free(before);

    /* Another program's SQLite database: refused, and not switched to WAL or otherwise touched. */
    new_path(path, sizeof path, "other.sqlite");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3; c=sqlite3.connect('%s'); c.execute('create table t(x)'); c.commit()\"", path);
    CHECK(system(cmd) == 0);
    before = slurp(path, &len);
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NOT_A_STORE);
    CHECK(same_file(path, before, len));
    free(before);
}

static void test_open_refuses_newer_schema(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3; c=sqlite3.connect('%s'); c.execute('pragma user_version=99'); c.commit()\"", path);
    CHECK(system(cmd) == 0);
    size_t len;
    char *before = slurp(path, &len);
    s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NEWER_SCHEMA);
    CHECK(strstr(passcode_errmsg(NULL), "99") != NULL);
    CHECK(same_file(path, before, len));
    free(before);
}

static void test_open_garbage_and_truncated_files(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* Random bytes over the header page. */
    int fd = open(path, O_WRONLY);
    unsigned char junk[100];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(i * 37 + 11);
    CHECK(pwrite(fd, junk, sizeof junk, 0) == (ssize_t)sizeof junk);
    close(fd);
    s = NULL;
    int32_t rc = passcode_open(path, NULL, &s);
    CHECK(rc == PASSCODE_ERR_NOT_A_STORE || rc == PASSCODE_ERR_CORRUPT);
    CHECK(s == NULL);
    /* A store cut short. */
    s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    CHECK(truncate(path, 1500) == 0);
    s = NULL;
    rc = passcode_open(path, NULL, &s);
    if (rc == PASSCODE_OK) {
        int32_t v;
        rc = passcode_is_set(s, &v);
        passcode_close(s);
    }
    CHECK(rc == PASSCODE_ERR_CORRUPT || rc == PASSCODE_ERR_NOT_A_STORE);
}

/* Read-only: a real read-only file system when we may mount one (root), else file modes. */
static void test_open_read_only_location(void) {
    char dir[512], path[600];
    new_path(dir, sizeof dir, "ro");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/store.db", dir);
    int mounted = 0;
    if (geteuid() == 0) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=4m tmpfs '%s' 2>/dev/null", dir);
        mounted = system(cmd) == 0;
    }
    passcode_store *s = open_fast(path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    char cmd[1400];
    if (mounted) {
        snprintf(cmd, sizeof cmd, "mount -o remount,ro '%s'", dir);
    } else {
        snprintf(cmd, sizeof cmd, "chmod 0400 '%s' && chmod 0500 '%s'", path, dir);
    }
    CHECK(system(cmd) == 0);
    printf("read-only test on a %s\n", mounted ? "read-only tmpfs mount" : "chmod'ed folder");
    size_t len;
    char *before = slurp(path, &len);
    s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_READ_ONLY);
    CHECK(s == NULL);
    CHECK(same_file(path, before, len));
    /* A new store in a read-only folder: refused, nothing created. */
    char other[700];
    snprintf(other, sizeof other, "%s/new.db", dir);
    CHECK_STATUS(passcode_open(other, NULL, &s), PASSCODE_ERR_READ_ONLY);
    CHECK(!exists(other));
    free(before);
    if (mounted) {
        snprintf(cmd, sizeof cmd, "umount '%s'", dir);
    } else {
        snprintf(cmd, sizeof cmd, "chmod 0700 '%s'", dir);
    }
    CHECK(system(cmd) == 0);
}

/* A full disk: every write returns a clear status and the store stays as it was. */
static void test_full_disk_changes_nothing(void) {
    if (geteuid() != 0) { printf("full-disk test needs root to mount a small tmpfs; run as root in CI\n"); return; }
    char dir[512], path[600], filler[700], cmd[1400];
    new_path(dir, sizeof dir, "full");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=512k tmpfs '%s'", dir);
    if (system(cmd) != 0) { printf("full-disk test: cannot mount tmpfs here\n"); return; }
    snprintf(path, sizeof path, "%s/store.db", dir);
    passcode_store *s = open_fast(path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    /* Fill the file system. */
    snprintf(filler, sizeof filler, "%s/filler", dir);
    int fd = open(filler, O_CREAT | O_WRONLY, 0600);
    char block[4096];
    memset(block, 'x', sizeof block);
    while (write(fd, block, sizeof block) > 0) {}
    while (write(fd, block, 1) > 0) {}
    close(fd);
    int32_t rc = passcode_change(s, PC1, LEN, PC2, LEN);
    CHECK(rc == PASSCODE_ERR_FULL || rc == PASSCODE_ERR_IO);
    CHECK(strlen(passcode_errmsg(s)) > 0);
    rc = passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60);
    CHECK(rc == PASSCODE_OK || rc == PASSCODE_ERR_FULL || rc == PASSCODE_ERR_IO);
    /* A verify either records its attempt and answers, or refuses without checking: never an
     * answer that was not counted. */
    for (int i = 0; i < 5; i++) {
        int32_t before = failures(s);
        char g[16];
        snprintf(g, sizeof g, "90%04d", 4321 + i * 7);
        rc = passcode_verify(s, g, 6);
        CHECK(rc == PASSCODE_ERR_WRONG_PASSCODE || rc == PASSCODE_ERR_FULL || rc == PASSCODE_ERR_IO);
        if (rc == PASSCODE_ERR_WRONG_PASSCODE) { CHECK(failures(s) == before + 1); }
        else { CHECK(failures(s) == before); }
    }
    rc = passcode_session_record(s, "x", "Phone", "Android", 1, NULL, 0);
    CHECK(rc == PASSCODE_OK || rc == PASSCODE_ERR_FULL || rc == PASSCODE_ERR_IO);
    int32_t set_now = 0;
    CHECK_STATUS(passcode_is_set(s, &set_now), PASSCODE_OK);  /* reads still work */
    CHECK(set_now == 1);
    unlink(filler);
    /* Still the old passcode. */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    passcode_close(s);
    s = open_fast(path);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    snprintf(cmd, sizeof cmd, "umount '%s'", dir);
    CHECK(system(cmd) == 0);
}


/* Another process holding the store makes a call wait (bounded), not fail at once. */
static void test_busy_store_waits_then_gives_a_clear_status(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    for (int round = 0; round < 2; round++) {
        int ready[2];
        CHECK(pipe(ready) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            char cmd[900];
            /* Hold the write lock for 0.6 s with another SQLite client. */
            snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3,time,os; c=sqlite3.connect('%s', isolation_level=None); "
                     "c.execute('begin immediate'); os.write(%d, b'x'); time.sleep(0.6); c.execute('commit')\"", path, ready[1]);
            _exit(system(cmd) == 0 ? 0 : 1);
        }
        char x;
        CHECK(read(ready[0], &x, 1) == 1);
        passcode_options *o = fast_options();
        if (round == 1) passcode_options_set_busy_timeout(o, 100);
        passcode_store *t = NULL;
        CHECK_STATUS(passcode_open(path, o, &t), PASSCODE_OK);
        passcode_options_free(o);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int32_t rc = passcode_setting_set(t, PASSCODE_SETTING_AUTO_LOCK_SECONDS, round == 0 ? 60 : 300);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double waited = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        if (round == 0) {
            CHECK_STATUS(rc, PASSCODE_OK);          /* waited for the other writer */
            CHECK(waited > 0.3);
        } else {
            CHECK_STATUS(rc, PASSCODE_ERR_BUSY);    /* a 100 ms bound: a clear status, nothing changed */
            CHECK(waited < 0.5);
            CHECK(strstr(passcode_errmsg(t), "busy") != NULL);
        }
        int status;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK(get_setting(t, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 60);
        passcode_close(t);
        close(ready[0]); close(ready[1]);
    }
}

/* ---- handles ----------------------------------------------------------------------------- */

static void test_closed_and_foreign_handles(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    passcode_close(s);
    int32_t v;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_set(NULL, PC1, LEN), PASSCODE_ERR_INVALID_HANDLE);
    long junk[4] = {1, 2, 3, 4};
    passcode_store *foreign = (passcode_store *)junk;
    CHECK_STATUS(passcode_set(foreign, PC1, LEN), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_enable(foreign), PASSCODE_ERR_INVALID_HANDLE);
    CHECK(strcmp(passcode_errmsg(foreign), passcode_strerror(PASSCODE_ERR_INVALID_HANDLE)) == 0);
    passcode_close(NULL);
    passcode_close(s);        /* closing twice does nothing */
    passcode_close(foreign);  /* nor does closing what is not ours */
    CHECK(junk[0] == 1 && junk[3] == 4);
}


typedef struct { passcode_store *s; char msg[128]; } msg_arg;
static void *format_error_thread(void *p) {
    msg_arg *a = p;
    passcode_verify(a->s, "12", 2);
    snprintf(a->msg, sizeof a->msg, "%s", passcode_errmsg(a->s));
    return NULL;
}

/* Error messages are kept per thread: another thread's failure never replaces this one's. */
static void test_error_messages_are_per_thread(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    const char *mine = passcode_errmsg(s);
    CHECK(strcmp(mine, "incorrect passcode") == 0);
    msg_arg a = { s, "" };
    pthread_t t;
    pthread_create(&t, NULL, format_error_thread, &a);
    pthread_join(t, NULL);
    CHECK(strstr(a.msg, "exactly 6 digits") != NULL);
    CHECK(strcmp(mine, "incorrect passcode") == 0);  /* the pointer is still valid and unchanged */
    CHECK(strcmp(passcode_errmsg(s), "incorrect passcode") == 0);
    passcode_close(s);
}

/* ---- the passcode ------------------------------------------------------------------------ */

static void test_set_verify_survives_restart(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_ERR_ALREADY_SET);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    CHECK_STATUS(passcode_is_enabled(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    passcode_close(s);
    s = open_fast(path);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_bad_passcode_input_changes_nothing(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, NULL, 6), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set(s, "12345", 5), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "3864291", 7), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "38a429", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "386\0" "29", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "38642\xff", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, " 86429", 6), PASSCODE_ERR_FORMAT);
    int32_t v = -1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    /* Malformed entries are not attempts. */
    CHECK_STATUS(passcode_verify(s, "38642", 5), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_verify(s, "38642x", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_verify(s, NULL, 6), PASSCODE_ERR_MISUSE);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_is_set(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_is_enabled(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_length(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_failed_attempts(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_lockout_remaining(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_is_reset_required(s, NULL), PASSCODE_ERR_MISUSE);
    /* An overlong buffer is a format error, not a crash. */
    static char huge[100000];
    memset(huge, '7', sizeof huge);
    CHECK_STATUS(passcode_verify(s, huge, sizeof huge), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_weak_passcodes_are_refused_with_a_reason(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    const char *weak[] = {"111111", "123456", "654321", "246813", "902468", "121212", "123123",
                          "112233", "123321", "250390", "122590", "900325", "159753", "147258"};
    for (size_t i = 0; i < sizeof weak / sizeof *weak; i++) {
        CHECK_STATUS(passcode_set(s, weak[i], 6), PASSCODE_ERR_WEAK_PASSCODE);
        const char *msg = passcode_errmsg(s);
        CHECK(strlen(msg) > 20);
        CHECK(strstr(msg, weak[i]) == NULL);  /* the message never repeats the digits */
    }
    CHECK(strstr(passcode_errmsg(s), "") != NULL);
    int32_t v = -1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    /* A change to a weak passcode is refused before the current one is even checked. */
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC2, LEN, "111111", 6), PASSCODE_ERR_WEAK_PASSCODE);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* A store option relaxes the rule. */
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_allow_weak(o, 1), PASSCODE_OK);
    new_path(path, sizeof path, "weak-ok.db");
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_set(s, "123456", 6), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, "123456", 6), PASSCODE_OK);
    passcode_close(s);
}

static void test_change_needs_current_and_counts_wrong_current(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC3, LEN, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);
    CHECK_STATUS(passcode_change(s, PC1, LEN, "91537", 5), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_change(s, NULL, LEN, PC2, LEN), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
}

/* Seed 002 cases 14-16: disable keeps the passcode; re-enable works with the same one. */
static void test_disable_keeps_passcode_and_enable_restores_it(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_enable(s), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_disable(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    int32_t v = -1;
    passcode_is_enabled(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_disable(s, PC1, LEN), PASSCODE_OK);
    passcode_is_enabled(s, &v);
    CHECK(v == 0);
    passcode_is_set(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_enable(s), PASSCODE_OK);
    passcode_is_enabled(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_remove_needs_current(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_remove(s, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_remove(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    int32_t v = -1;
    passcode_is_set(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_remove(s, PC1, LEN), PASSCODE_OK);
    passcode_is_set(s, &v);
    CHECK(v == 0);
    passcode_is_enabled(s, &v);
    CHECK(v == 0);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_length_is_fixed_per_store(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_length(s, 3), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_length(s, 13), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_length(s, 4), PASSCODE_OK);
    int32_t v = 0;
    passcode_length(s, &v);
    CHECK(v == 4);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "1234", 4), PASSCODE_ERR_WEAK_PASSCODE);
    CHECK_STATUS(passcode_set(s, "3860", 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(s, 6), PASSCODE_ERR_STATE);
    CHECK_STATUS(passcode_verify(s, "3860", 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(s, 12), PASSCODE_ERR_STATE);
    CHECK_STATUS(passcode_remove(s, "3860", 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(s, 12), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, "386491150372", 12), PASSCODE_OK);
    passcode_close(s);
    s = open_fast(path);
    passcode_length(s, &v);
    CHECK(v == 12);
    CHECK_STATUS(passcode_verify(s, "386491150372", 12), PASSCODE_OK);
    passcode_close(s);
}

/* ---- hashing ----------------------------------------------------------------------------- */

static int read_hash(const char *path, char *out, size_t size) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3; print(sqlite3.connect('%s').execute('select hash from passcode').fetchone()[0])\"", path);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    int ok = fgets(out, (int)size, p) != NULL;
    pclose(p);
    out[strcspn(out, "\n")] = 0;
    return ok;
}

static void test_stored_hash_is_standard_argon2id_and_upgrades(void) {
    char path[512], hash[256], hash2[256];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    CHECK(read_hash(path, hash, sizeof hash));
    CHECK(strncmp(hash, "$argon2id$v=19$m=8,t=1,p=1$", 27) == 0);
    CHECK(strstr(hash, PC1) == NULL);
    /* Any Argon2 implementation can check it: Python's hashlib has none, so ask libsodium's CLI-free path via the test's own check below. */
    /* Opened with another cost: the next successful verify re-hashes. */
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 2, 16384), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(read_hash(path, hash2, sizeof hash2) && strcmp(hash, hash2) == 0);  /* not on failure */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK(read_hash(path, hash2, sizeof hash2));
    CHECK(strncmp(hash2, "$argon2id$v=19$m=16,t=2,p=1$", 28) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_default_cost_is_interactive(void) {
    char path[512], hash[256];
    new_path(path, sizeof path, "interactive.db");
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    CHECK(read_hash(path, hash, sizeof hash));
    CHECK(strncmp(hash, "$argon2id$v=19$m=65536,t=2,p=1$", 31) == 0);
}

static void test_pepper_is_needed_to_verify(void) {
    char path[512];
    uint8_t pepper[32], other[32];
    for (int i = 0; i < 32; i++) { pepper[i] = (uint8_t)(i * 7 + 1); other[i] = (uint8_t)(i * 7 + 2); }
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_pepper(o, pepper, 32), PASSCODE_OK);
    new_path(path, sizeof path, "pepper.db");
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* Without the pepper, or with another: a wrong passcode, never a crash. */
    s = open_fast(path);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    passcode_close(s);
    CHECK_STATUS(passcode_options_set_pepper(o, other, 32), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    passcode_close(s);
    CHECK_STATUS(passcode_options_set_pepper(o, pepper, 32), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    passcode_options_free(o);
}

/* ---- lockout ----------------------------------------------------------------------------- */

static void wrong_guess(passcode_store *s, int i, int32_t want) {
    char g[16];
    snprintf(g, sizeof g, "9%05d", (13579 + i * 2) % 100000);  /* distinct wrong guesses */
    CHECK_STATUS(passcode_verify(s, g, 6), want);
}

static void test_apple_schedule_every_step(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    const int64_t expect[] = {0, 0, 0, 0, 60, 300, 900, 900, 3600};
    for (int i = 0; i < 9; i++) {
        wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(failures(s) == i + 1);
        CHECK(lockout(s) == expect[i]);
        if (expect[i] > 0) {
            /* During the lockout the passcode is not even checked: the right one is refused too. */
            CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
            CHECK(failures(s) == i + 1);
            the_clock.boot_ms += expect[i] * 1000 - 1000;
            CHECK(lockout(s) == 1);
            CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
            the_clock.boot_ms += 1000;
            CHECK(lockout(s) == 0);
        }
    }
    /* The 10th failure: "require reset" (the default action). */
    wrong_guess(s, 9, PASSCODE_ERR_RESET_REQUIRED);
    int32_t v = 0;
    CHECK_STATUS(passcode_is_reset_required(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(s);
}

static void test_success_resets_counter(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    for (int i = 0; i < 4; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 4);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK(failures(s) == 0);
    wrong_guess(s, 20, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);
    CHECK(lockout(s) == 0);
    passcode_close(s);
}

static void test_same_wrong_guess_counts_once(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);
    CHECK_STATUS(passcode_verify(s, PC3, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 2);
    /* Five minutes later the repeat counts again. */
    the_clock.boot_ms += 5 * 60 * 1000;
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 3);
    /* Memory only: another handle (another process) counts it. */
    passcode_store *t = open_fast(path);
    CHECK_STATUS(passcode_verify(t, PC3, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(t) == 4);
    passcode_close(t);
    passcode_close(s);
}

static void test_lockout_ignores_wall_clock_and_restarts_after_reboot(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    for (int i = 0; i < 5; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(lockout(s) == 60);
    /* The wall clock a year forward, then a year back: no effect. */
    the_clock.wall_ms += 365LL * 86400 * 1000;
    CHECK(lockout(s) == 60);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    the_clock.wall_ms -= 2 * 365LL * 86400 * 1000;
    CHECK(lockout(s) == 60);
    /* 30 s pass, then a reboot: the lockout starts again in full, never endless. */
    the_clock.boot_ms += 30000;
    CHECK(lockout(s) == 30);
    the_clock.boot_id += 1;
    the_clock.boot_ms = 5000;
    CHECK(lockout(s) == 60);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    the_clock.boot_ms += 60000;
    CHECK(lockout(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_android_and_custom_schedules(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, 1), PASSCODE_OK);
    const int64_t expect[] = {0, 0, 0, 0, 60, 300, 900, 1800, 5400, 243 * 60, 729 * 60};
    for (int i = 0; i < 11; i++) {
        wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(lockout(s) == expect[i]);
        the_clock.boot_ms += expect[i] * 1000;
    }
    passcode_close(s);

    s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, 2), PASSCODE_ERR_INVALID_SETTING);
    uint32_t delays[] = {0, 10, 20};
    CHECK_STATUS(passcode_set_custom_schedule(s, NULL, 3, 5), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 0, 5), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 3, 5), PASSCODE_OK);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE) == 2);
    const int64_t cexpect[] = {0, 10, 20, 20};
    for (int i = 0; i < 4; i++) {
        wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(lockout(s) == cexpect[i]);
        the_clock.boot_ms += cexpect[i] * 1000;
    }
    wrong_guess(s, 4, PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(s);
}

static int logout_calls;
static void on_logout(void *payload, int32_t reason) { (void)reason; *(int *)payload += 1; }

static void test_max_failure_actions(void) {
    char path[512];
    uint32_t delays[] = {0};
    /* "none": the attempts go on with the longest delay. */
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 1, 3), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, 7), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE), PASSCODE_OK);
    for (int i = 0; i < 3; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* "forced logout": the passcode is removed and the host is told. */
    s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 1, 3), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_FORCED_LOGOUT), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(s, on_logout, &logout_calls), PASSCODE_OK);
    logout_calls = 0;
    wrong_guess(s, 0, PASSCODE_ERR_WRONG_PASSCODE);
    wrong_guess(s, 1, PASSCODE_ERR_WRONG_PASSCODE);
    wrong_guess(s, 2, PASSCODE_ERR_LOGGED_OUT);
    CHECK(logout_calls == 1);
    int32_t v = 1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    passcode_close(s);
}

/* ---- settings ---------------------------------------------------------------------------- */

static void test_settings_validate_and_persist(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCK_AT_LAUNCH) == 1);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE) == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 120), PASSCODE_ERR_INVALID_SETTING);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 2), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_setting_set(s, 999, 1), PASSCODE_ERR_MISUSE);
    int64_t v;
    CHECK_STATUS(passcode_setting_get(s, -1, &v), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL), PASSCODE_ERR_MISUSE);
    /* Biometric unlock needs a passcode. */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_ERR_INVALID_SETTING);
    CHECK(get_setting(s, PASSCODE_SETTING_BIOMETRIC_ENABLED) == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_ENABLED, 0), PASSCODE_ERR_INVALID_SETTING);
    passcode_close(s);
    s = open_fast(path);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 300);
    passcode_close(s);
}

/* ---- processes and threads --------------------------------------------------------------- */

static void test_two_processes_see_each_other(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    pid_t pid = fork();
    if (pid == 0) {
        passcode_store *c = open_fast(path);
        int ok = passcode_set(c, PC1, LEN) == PASSCODE_OK
              && passcode_setting_set(c, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60) == PASSCODE_OK;
        passcode_close(c);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    int32_t v = 0;
    passcode_is_set(s, &v);
    CHECK(v == 1);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 60);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

typedef struct { passcode_store *s; int index; int ok; } thread_arg;

static void *thread_main(void *p) {
    thread_arg *a = p;
    a->ok = 1;
    for (int i = 0; i < 4; i++) {
        char g[16];
        snprintf(g, sizeof g, "7%02d%03d", a->index % 100, i % 1000);
        if (passcode_verify(a->s, g, 6) != PASSCODE_ERR_WRONG_PASSCODE) a->ok = 0;
        int32_t v;
        if (passcode_is_set(a->s, &v) != PASSCODE_OK || v != 1) a->ok = 0;
    }
    return NULL;
}

static void test_threads_share_a_handle(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    uint32_t delays[] = {0};
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 1, 0), PASSCODE_OK);  /* no lockout */
    enum { N = 8 };
    pthread_t t[N];
    thread_arg a[N];
    for (int i = 0; i < N; i++) { a[i].s = s; a[i].index = i; pthread_create(&t[i], NULL, thread_main, &a[i]); }
    int all_ok = 1;
    for (int i = 0; i < N; i++) { pthread_join(t[i], NULL); all_ok &= a[i].ok; }
    CHECK(all_ok);
    CHECK(failures(s) == N * 4);  /* every attempt counted exactly once */
    passcode_close(s);
}


/* ---- write-ahead, processes, lock state, biometrics -------------------------------------- */

/* A child verifies a wrong passcode with an expensive hash; as soon as its attempt is visible
 * in the store (before Argon2id finished), it is killed. The attempt stays counted. */
static void test_killed_mid_verify_keeps_the_attempt(void) {
    char path[512];
    new_path(path, sizeof path, "kill.db");
    passcode_options *slow = fast_options();
    /* The stored hash's own cost decides how long a verify takes: make it expensive. */
    CHECK_STATUS(passcode_options_set_cost(slow, PASSCODE_COST_MODERATE), PASSCODE_OK);
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, slow, &s), PASSCODE_OK);
    passcode_options_free(slow);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    for (int round = 0; round < 3; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            passcode_options *o = NULL;
            passcode_options_new(&o);
            passcode_options_set_cost(o, PASSCODE_COST_MODERATE);  /* 256 MiB: slow on purpose */
            passcode_options_set_clock(o, clock_cb, &the_clock);
            passcode_store *c = NULL;
            if (passcode_open(path, o, &c) != PASSCODE_OK) _exit(3);
            char g[16];
            snprintf(g, sizeof g, "90%04d", 1357 + round * 2);
            passcode_verify(c, g, 6);
            _exit(0);  /* not reached in time */
        }
        passcode_store *watch = open_fast(path);
        int seen = 0;
        for (int i = 0; i < 20000 && !seen; i++) {
            if (failures(watch) == round + 1) seen = 1;
            else { struct timespec ts = {0, 100000}; nanosleep(&ts, NULL); }
        }
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(seen);
        CHECK(WIFSIGNALED(status));  /* killed before it could answer */
        passcode_close(watch);
        passcode_store *after = open_fast(path);
        CHECK(failures(after) == round + 1);
        passcode_close(after);
    }
    s = open_fast(path);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK(failures(s) == 0);
    passcode_close(s);
}

/* Several processes failing at once: the shared counter is exact. */
static void test_processes_failing_at_once_count_exactly(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    uint32_t delays[] = {0};
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 1, 0), PASSCODE_OK);
    enum { P = 4, K = 6 };
    pid_t pids[P];
    for (int p = 0; p < P; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            passcode_store *c = open_fast(path);
            int bad = 0;
            for (int k = 0; k < K; k++) {
                char g[16];
                snprintf(g, sizeof g, "8%02d%03d", p, k);
                if (passcode_verify(c, g, 6) != PASSCODE_ERR_WRONG_PASSCODE) bad++;
            }
            passcode_close(c);
            _exit(bad);
        }
    }
    int all_ok = 1;
    for (int p = 0; p < P; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        all_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    CHECK(all_ok);
    CHECK(failures(s) == P * K);
    passcode_close(s);
}

static void test_lock_state_through_the_c_api(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    int32_t locked = -1, reason = -1;
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 0);  /* no passcode: nothing locks */
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, 42, &locked), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    the_clock.boot_ms += 2000;
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK(locked == 0);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    the_clock.boot_ms += 10000;
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_BACKGROUND);
    CHECK_STATUS(passcode_lock_state(s, NULL, &reason), PASSCODE_ERR_MISUSE);
    /* Another process sees it, and a relaunch locks. */
    passcode_store *t = open_fast(path);
    CHECK_STATUS(passcode_lock_state(t, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_verify(t, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 0 && reason == PASSCODE_LOCK_REASON_NONE);
    CHECK_STATUS(passcode_event_report(t, PASSCODE_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(reason == PASSCODE_LOCK_REASON_LAUNCH);
    passcode_close(t);
    passcode_close(s);
}

static void test_biometrics_through_the_c_api(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    const char *label = NULL;
    CHECK_STATUS(passcode_security_label(s, &label), PASSCODE_OK);
    CHECK(strcmp(label, "Passcode & Biometric") == 0);
    CHECK_STATUS(passcode_security_label(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_biometric_set_available(s, 2, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, 9), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    CHECK_STATUS(passcode_security_label(s, &label), PASSCODE_OK);
    CHECK(strcmp(label, "Passcode & Face ID") == 0);
    int32_t refusal = -1;
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_check(s, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_NOT_ENABLED);
    CHECK_STATUS(passcode_biometric_check(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_LAUNCHED, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_FIRST_UNLOCK_AFTER_LAUNCH);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE);
    int32_t count = 0;
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    for (int i = 0; i < 5; i++) CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
    CHECK(count == 5);
    CHECK_STATUS(passcode_biometric_unlock(s, NULL), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_TOO_MANY_BIOMETRIC_FAILURES);
    int32_t locked = 0;
    passcode_lock_state(s, &locked, NULL);
    CHECK(locked == 1);
    passcode_close(s);
}


/* ---- reset codes, flows, hooks, account (issues 4 and 5) ---------------------------------- */

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

static void test_reset_code_through_the_c_api(void) {
    char path[512];
    host_state h;
    memset(&h, 0, sizeof h);
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_STATE);  /* no delivery callback */
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, deliver_cb, &h), PASSCODE_OK);
    CHECK_STATUS(passcode_set_notice_callback(s, notice_cb, &h), PASSCODE_OK);
    h.fail = 1;
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_HOOK_FAILED);
    CHECK(strcmp(passcode_errmsg(s), "mail server down") == 0);
    int32_t pending = -1;
    CHECK_STATUS(passcode_reset_pending(s, &pending), PASSCODE_OK);
    CHECK(pending == 0);
    h.fail = 0;
    the_clock.boot_ms += 61000;
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    CHECK(strlen(h.code) == 8);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_RATE_LIMITED);
    CHECK(strstr(passcode_errmsg(s), "60 seconds") != NULL);
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
    the_clock.boot_ms += 61000;
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    the_clock.boot_ms += 900000;
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
    the_clock.boot_ms += 60000;
    CHECK_STATUS(passcode_flow_refresh(f), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_ENTER_PASSCODE && result == PASSCODE_FLOW_RESULT_IN_PROGRESS);
    type_digits(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(result == PASSCODE_FLOW_RESULT_SUCCESS);
    passcode_flow_free(f);
    /* A flow keeps working after its store handle is closed (it holds the store). */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_DISABLE, &f), PASSCODE_OK);
    passcode_close(s);
    type_digits(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(result == PASSCODE_FLOW_RESULT_SUCCESS);
    passcode_flow_free(f);
    s = open_fast(path);
    int32_t v = 1;
    passcode_is_enabled(s, &v);
    CHECK(v == 0);
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
    CHECK(get_setting(s, PASSCODE_SETTING_LAST_PASSWORD_CHANGE) == the_clock.wall_ms);
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
    passcode_setting_set(reentrant_store, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60);
}
static int32_t reentrant_hook(void *payload, const char *key, const char *o, const char *n, char *m, size_t size) {
    (void)payload; (void)key; (void)o; (void)n; (void)m; (void)size;
    int64_t v = 0;
    return passcode_setting_get(reentrant_store, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v) == PASSCODE_OK ? 0 : 1;
}

static void test_callbacks_may_call_back_into_the_library(void) {
    char path[512];
    reentrant_store = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(reentrant_store, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_settings_hook(reentrant_store, reentrant_hook, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(reentrant_store, reentrant_logout, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(reentrant_store), PASSCODE_OK);
    CHECK(reentrant_seen == 0);  /* the callback saw the passcode already removed */
    CHECK(get_setting(reentrant_store, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 60);  /* and its own change went through the hook */
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

/* ---- main -------------------------------------------------------------------------------- */

static void remove_tree(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
    snprintf(tmp_root, sizeof tmp_root, "/tmp/passcode-test-XXXXXX");
    if (!mkdtemp(tmp_root)) { perror("mkdtemp"); return 2; }
    RUN(test_version);
    RUN(test_strerror_names_every_status);
    RUN(test_options_bad_input);
    RUN(test_open_creates_store_with_mode_0600);
    RUN(test_open_bad_paths);
    RUN(test_open_refuses_foreign_files_and_changes_nothing);
    RUN(test_open_refuses_newer_schema);
    RUN(test_open_garbage_and_truncated_files);
    RUN(test_open_read_only_location);
    RUN(test_full_disk_changes_nothing);
    RUN(test_busy_store_waits_then_gives_a_clear_status);
    RUN(test_closed_and_foreign_handles);
    RUN(test_error_messages_are_per_thread);
    RUN(test_set_verify_survives_restart);
    RUN(test_bad_passcode_input_changes_nothing);
    RUN(test_weak_passcodes_are_refused_with_a_reason);
    RUN(test_change_needs_current_and_counts_wrong_current);
    RUN(test_disable_keeps_passcode_and_enable_restores_it);
    RUN(test_remove_needs_current);
    RUN(test_length_is_fixed_per_store);
    RUN(test_stored_hash_is_standard_argon2id_and_upgrades);
    RUN(test_default_cost_is_interactive);
    RUN(test_pepper_is_needed_to_verify);
    RUN(test_apple_schedule_every_step);
    RUN(test_success_resets_counter);
    RUN(test_same_wrong_guess_counts_once);
    RUN(test_lockout_ignores_wall_clock_and_restarts_after_reboot);
    RUN(test_android_and_custom_schedules);
    RUN(test_max_failure_actions);
    RUN(test_settings_validate_and_persist);
    RUN(test_two_processes_see_each_other);
    RUN(test_threads_share_a_handle);
    RUN(test_killed_mid_verify_keeps_the_attempt);
    RUN(test_processes_failing_at_once_count_exactly);
    RUN(test_lock_state_through_the_c_api);
    RUN(test_biometrics_through_the_c_api);
    RUN(test_reset_code_through_the_c_api);
    RUN(test_flows_through_the_c_api);
    RUN(test_settings_hook_through_the_c_api);
    RUN(test_account_through_the_c_api);
    RUN(test_callbacks_may_call_back_into_the_library);
    RUN(test_settings_hook_is_not_asked_about_impossible_changes);
    remove_tree(tmp_root);
    return tl_summary();
}
