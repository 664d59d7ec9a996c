/* C API tests: version and errors, options, opening, handles. */
#include "api_support.h"

#include <dirent.h>

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
    const int32_t tpm_statuses[] = { PASSCODE_ERR_TPM_GUESS_LIMIT, PASSCODE_ERR_TPM_OWNER_AUTH };
    for (size_t i = 0; i < sizeof tpm_statuses / sizeof *tpm_statuses; i++)
        CHECK(strcmp(passcode_strerror(tpm_statuses[i]), "unknown status") != 0);
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
    EMBEDDED_ONLY(ONLY_FILE);
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
    EMBEDDED_ONLY(ONLY_OPEN);
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
    char folder[512];
    snprintf(folder, sizeof folder, "%s/no/such/folder", tmp_root);
    CHECK(strstr(passcode_errmsg(NULL), folder) != NULL);  /* the message names the folder */
    CHECK(!exists(path));

    CHECK_STATUS(passcode_open(tmp_root, NULL, &s), PASSCODE_ERR_IS_DIRECTORY);
    CHECK(s == NULL);
}

static void test_open_refuses_foreign_files_and_changes_nothing(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    char path[512];
    new_path(path, sizeof path, "notes.txt");
    FILE *f = fopen(path, "w");
    fputs("these are not the droids you are looking for\n", f);
    fclose(f);
    chmod(path, 0600);  /* private, so that the content is what gets it refused */
    size_t len;
    char *before = slurp(path, &len);
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NOT_A_STORE);
    CHECK(s == NULL);
    CHECK(same_file(path, before, len));
    free(before);

    /* Readable by others (as /etc/passwd): named as not a store, with no advice to chmod it. */
    chmod(path, 0644);
    before = slurp(path, &len);
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NOT_A_STORE);
    CHECK(strstr(passcode_errmsg(NULL), "not a libpasscode store") != NULL);
    CHECK(strstr(passcode_errmsg(NULL), "chmod") == NULL);
    CHECK(same_file(path, before, len));
    free(before);

    /* Another program's SQLite database: refused, and not switched to WAL or otherwise touched. */
    new_path(path, sizeof path, "other.sqlite");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3; c=sqlite3.connect('%s'); c.execute('create table t(x)'); c.commit()\"", path);
    CHECK(system(cmd) == 0);
    chmod(path, 0600);
    before = slurp(path, &len);
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_ERR_NOT_A_STORE);
    CHECK(same_file(path, before, len));
    free(before);
}

static void test_open_refuses_newer_schema(void) {
    EMBEDDED_ONLY(ONLY_FILE);
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
    EMBEDDED_ONLY(ONLY_FILE);
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
    EMBEDDED_ONLY(ONLY_OPEN);
    char dir[512], path[600];
    new_path(dir, sizeof dir, "ro");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/store.db", dir);
    int mounted = 0;
    if (geteuid() == 0) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=4m,mode=0700 tmpfs '%s' 2>/dev/null", dir);
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
    EMBEDDED_ONLY(ONLY_FILE);
    if (geteuid() != 0) { printf("full-disk test needs root to mount a small tmpfs; run as root in CI\n"); return; }
    char dir[512], path[600], filler[700], cmd[1400];
    new_path(dir, sizeof dir, "full");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=512k,mode=0700 tmpfs '%s'", dir);
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


/* A new store on a nearly full disk: created whole or not at all. The store is built under a
 * temporary name and linked to its path; the close of that temporary store could not copy its
 * log into the file (ENOSPC) and the incomplete file was linked anyway (the release before
 * this test: CORRUPT, "database disk image is malformed", for fillers of 140 to 174 KiB of a
 * 256 KiB file system). */
static void test_new_store_on_a_nearly_full_disk(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    if (geteuid() != 0) { printf("nearly-full-disk test needs root to mount a small tmpfs; run as root in CI\n"); return; }
    char dir[512], path[600], filler[700], cmd[1400];
    new_path(dir, sizeof dir, "nearly-full");
    CHECK(mkdir(dir, 0700) == 0);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=256k,mode=0700 tmpfs '%s'", dir);
    if (system(cmd) != 0) { printf("nearly-full-disk test: cannot mount tmpfs here\n"); return; }
    snprintf(path, sizeof path, "%s/store.db", dir);
    snprintf(filler, sizeof filler, "%s/filler", dir);
    int ok = 0, full = 0, io = 0, other = 0, leftovers = 0;
    for (int kib = 100; kib <= 252; kib += 4) {
        int fd = open(filler, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        char block[1024];
        memset(block, 'x', sizeof block);
        for (int k = 0; k < kib; k++) if (write(fd, block, sizeof block) != (ssize_t)sizeof block) break;
        close(fd);
        passcode_options *o = fast_options();
        passcode_store *s = NULL;
        int32_t rc = passcode_open(path, o, &s);
        passcode_options_free(o);
        if (rc == PASSCODE_OK) {
            ok++;
            int32_t set = passcode_set(s, PC1, LEN);
            CHECK(set == PASSCODE_OK || set == PASSCODE_ERR_FULL || set == PASSCODE_ERR_IO);
            passcode_close(s);
            unlink(filler);
            s = open_fast(path);  /* whole: opens, and holds the passcode exactly when set said OK */
            int32_t is = -1;
            CHECK_STATUS(passcode_is_set(s, &is), PASSCODE_OK);
            CHECK(is == (set == PASSCODE_OK));
            passcode_close(s);
        } else if (rc == PASSCODE_ERR_FULL) {
            full++;
        } else if (rc == PASSCODE_ERR_IO) {
            io++;
        } else {
            other++;
            printf("  filler %d KiB: open %s (%s)\n", kib, passcode_strerror(rc), passcode_errmsg(NULL));
        }
        unlink(filler);
        if (rc != PASSCODE_OK) {  /* nothing left behind */
            DIR *d = opendir(dir);
            for (struct dirent *e; d && (e = readdir(d));) if (e->d_name[0] != '.') leftovers++;
            if (d) closedir(d);
        }
        snprintf(cmd, sizeof cmd, "rm -f '%s'/store.db*", dir);
        CHECK(system(cmd) == 0);
    }
    printf("  new store on a nearly full 256 KiB disk, fillers 100..252 KiB: %d opened whole, %d FULL, %d IO, %d other; "
           "%d files left by a failed open\n", ok, full, io, other, leftovers);
    CHECK(other == 0);
    CHECK(leftovers == 0);
    CHECK(ok > 0 && full + io > 0);
    /* Not lazy: a descriptor a failed open left behind (the -shm mapped for a connection whose
     * log never opened, as one was) makes the file system busy, and this fails. */
    snprintf(cmd, sizeof cmd, "umount '%s'", dir);
    if (system(cmd) != 0) {
        CHECK(0);
        snprintf(cmd, sizeof cmd, "umount -l '%s'", dir);
        if (system(cmd) != 0) printf("  could not unmount %s\n", dir);
    }
}


/* Another process holding the store makes a call wait (bounded), not fail at once. */
static void test_busy_store_waits_then_gives_a_clear_status(void) {
    EMBEDDED_ONLY(ONLY_FILE);
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
        int32_t rc = passcode_setting_set(t, PASSCODE_SETTING_AUTO_LOCK_SECONDS, round == 0 ? 60 : 0);  /* shorter: no proof needed */
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

void run_open_tests(void) {
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
    RUN(test_new_store_on_a_nearly_full_disk);
    RUN(test_busy_store_waits_then_gives_a_clear_status);
    RUN(test_closed_and_foreign_handles);
    RUN(test_error_messages_are_per_thread);
}
