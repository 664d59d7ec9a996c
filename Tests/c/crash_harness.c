/* crash_harness ROUNDS: kills a busy child with SIGKILL at random moments, ROUNDS times, and
 * checks the store after each kill:
 *   - SQLite's integrity_check says "ok";
 *   - no counted attempt was lost: the failure counter is at least the number of wrong
 *     verifies whose answer the child had seen (and at most the number it had started);
 *   - a setting being changed is either its old or its new value;
 *   - during resets and passcode changes, either the old or the new passcode works, and it
 *     releases the same data key as before (the old wrap or the new one, never none; resets
 *     use the recovery key, so they keep it too).
 * The child reports each step through a pipe before and after it, so the parent knows what
 * could have been revealed when the kill came. Prints "N passed, N failed". */
#include <passcode.h>
#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define PC1 "386491"
#define PC2 "915372"

static int64_t fake_boot = 1000000;
static void fake_clock(void *p, int64_t *boot, int64_t *wall, uint64_t *id) {
    (void)p;
    *boot = fake_boot;
    *wall = 1700000000000LL + fake_boot;
    *id = 9;
}

static uint8_t data_key[32], recovery_key[32];

static char last_code[16];
static int32_t deliver(void *p, const char *code, size_t len, char *msg, size_t size) {
    (void)p; (void)msg; (void)size;
    memcpy(last_code, code, len);
    last_code[len] = 0;
    return 0;
}

static passcode_store *open_store(const char *path) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 64 * 1024);
    passcode_options_set_clock(o, fake_clock, NULL);
    passcode_store *s = NULL;
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (rc != PASSCODE_OK) { fprintf(stderr, "open: %s\n", passcode_errmsg(NULL)); exit(3); }
    return s;
}

static void say(int fd, char what, long n) {
    char line[32];
    int len = snprintf(line, sizeof line, "%c %ld\n", what, n);
    if (write(fd, line, (size_t)len) != len) _exit(4);
}

/* mode 0: wrong verifies and setting changes; mode 1: resets between PC1 and PC2; mode 2:
 * passcode changes between them. */
static void child(const char *path, int fd, int mode, int round) {
    passcode_store *s = open_store(path);
    passcode_set_reset_delivery_callback(s, deliver, NULL);
    for (long i = 0;; i++) {
        if (mode == 0) {
            if (i % 4 == 3) {
                /* Between two actions that allow no more guesses: a change that needs no passcode proof. */
                long v = (i / 4) % 2 ? PASSCODE_MAX_FAILURE_ACTION_REQUIRE_RESET : PASSCODE_MAX_FAILURE_ACTION_FORCED_LOGOUT;
                say(fd, 'T', v);
                if (passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, v) != PASSCODE_OK) _exit(5);
                say(fd, 't', v);
            } else {
                char g[16];
                snprintf(g, sizeof g, "9%02d%03ld", round % 100, i % 1000);
                say(fd, 'S', i);
                int32_t rc = passcode_verify(s, g, 6);
                if (rc != PASSCODE_ERR_WRONG_PASSCODE) { fprintf(stderr, "verify: %d %s\n", rc, passcode_errmsg(s)); _exit(6); }
                say(fd, 'A', i);
            }
        } else if (mode == 1) {
            fake_boot += 86400000;  /* a day later: no rate limit */
            if (passcode_reset_request(s) != PASSCODE_OK) { fprintf(stderr, "request: %s\n", passcode_errmsg(s)); _exit(7); }
            const char *next = i % 2 ? PC1 : PC2;
            say(fd, 'R', i % 2);
            if (passcode_reset_complete_with_recovery_key(s, last_code, strlen(last_code), next, 6, recovery_key, 32) != PASSCODE_OK) {
                fprintf(stderr, "complete: %s\n", passcode_errmsg(s));
                _exit(8);
            }
            say(fd, 'r', i % 2);
        } else {
            const char *from = i % 2 ? PC2 : PC1, *to = i % 2 ? PC1 : PC2;
            say(fd, 'R', i % 2);
            if (passcode_change(s, from, 6, to, 6) != PASSCODE_OK) { fprintf(stderr, "change: %s\n", passcode_errmsg(s)); _exit(9); }
            say(fd, 'r', i % 2);
        }
    }
}

static int integrity_ok(const char *path) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) return 0;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK
          && sqlite3_step(st) == SQLITE_ROW
          && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    char path[] = "/tmp/passcode-crash-XXXXXX";
    if (!mkdtemp(path)) return 2;
    char store_path[128];
    snprintf(store_path, sizeof store_path, "%s/store.db", path);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    passcode_store *s = open_store(store_path);
    passcode_set(s, PC1, 6);
    for (int i = 0; i < 32; i++) recovery_key[i] = (uint8_t)(i * 11 + 3);
    if (passcode_unlock_key(s, PC1, 6, data_key, 32) != PASSCODE_OK || passcode_set_recovery_key(s, recovery_key, 32) != PASSCODE_OK) return 2;
    uint32_t none[] = {0};
    passcode_set_custom_schedule(s, none, 1, 0);  /* no lockout: the child may guess freely */
    passcode_setting_set(s, PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS, 0);
    passcode_close(s);
    long answered_total = 0, started_total = 0, current_setting = PASSCODE_MAX_FAILURE_ACTION_REQUIRE_RESET;
    long all_started = 0, all_answered = 0, all_settings = 0, all_resets = 0, all_changes = 0, key_checks = 0;
    int kills = 0;
    for (int round = 0; round < rounds; round++) {
        int mode = round % 5 == 4 ? 1 : round % 5 == 3 ? 2 : 0;
        fake_boot += 1000LL * 86400000;  /* each child starts far past the last one's clock */
        int fds[2];
        if (pipe(fds) != 0) return 2;
        pid_t pid = fork();
        if (pid == 0) { close(fds[0]); child(store_path, fds[1], mode, round); }
        close(fds[1]);
        struct timespec delay = {0, (long)(rand() % 40000) * 1000L};  /* 0-40 ms */
        nanosleep(&delay, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) kills++;
        else FAIL_MSG("round %d: child exited %d before the kill", round, WEXITSTATUS(status));
        /* What the child had begun and seen. */
        FILE *in = fdopen(fds[0], "r");
        char what;
        long n, answered = 0, started = 0, pending_setting = -1, reset_target = -1, reset_done = -1;
        while (fscanf(in, " %c %ld", &what, &n) == 2) {
            if (what == 'S') started++;
            else if (what == 'A') answered++;
            else if (what == 'T') pending_setting = n;
            else if (what == 't') { current_setting = n; pending_setting = -1; }
            else if (what == 'R') { reset_target = n; reset_done = -1; }
            else if (what == 'r') reset_done = n;
        }
        fclose(in);
        started_total += started;
        answered_total += answered;
        all_started += started;
        all_answered += answered;
        all_settings += pending_setting >= 0;
        all_resets += mode == 1 && reset_target >= 0;
        all_changes += mode == 2 && reset_target >= 0;
        int intact = integrity_ok(store_path);
        CHECK_MSG(intact, "round %d: integrity_check failed", round);
        if (!intact) continue;
        passcode_store *c = open_store(store_path);
        int32_t failures = -1;
        passcode_failed_attempts(c, &failures);
        int64_t setting = -1;
        passcode_setting_get(c, PASSCODE_SETTING_MAX_FAILURE_ACTION, &setting);
        if (mode == 0) {
            CHECK_MSG(failures >= answered_total && failures <= started_total,
                      "round %d: counter %d, answered %ld, started %ld", round, failures, answered_total, started_total);
            CHECK_MSG(setting == current_setting || setting == pending_setting,
                      "round %d: setting %lld, expected %ld or %ld", round, (long long)setting, current_setting, pending_setting);
            if (setting == current_setting || setting == pending_setting) current_setting = setting;
        } else {
            /* A completed reset or change cleared the counter; start counting again from here. */
            if (reset_target >= 0) {
                const char *expect_new = reset_target ? PC1 : PC2, *expect_old = reset_target ? PC2 : PC1;
                uint8_t key[32] = {0};
                int32_t a = passcode_unlock_key(c, expect_new, 6, key, 32);
                int32_t b = a == PASSCODE_OK ? PASSCODE_OK : passcode_unlock_key(c, expect_old, 6, key, 32);
                CHECK_MSG(a == PASSCODE_OK || (b == PASSCODE_OK && reset_done < 0), "round %d: neither passcode works (%d, %d)", round, a, b);
                key_checks++;
                /* A reset proves the user, not the passcode: its new passcode starts from the safe
                 * defaults. This handle just proved it, so the harness's free guessing
                 * is set again. */
                if (mode == 1 && (a == PASSCODE_OK || b == PASSCODE_OK)
                    && (passcode_set_custom_schedule(c, none, 1, 0) != PASSCODE_OK
                        || passcode_setting_set(c, PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS, 0) != PASSCODE_OK)) {
                    FAIL_MSG("round %d: the test policy cannot be set again: %s", round, passcode_errmsg(c));
                }
                CHECK_MSG(memcmp(key, data_key, 32) == 0, "round %d: the data key changed", round);
                /* Back to PC1 for the next rounds, through a reset (the counter is cleared). */
                if (a == PASSCODE_OK && expect_new[0] != PC1[0]) { passcode_change(c, PC2, 6, PC1, 6); }
                else if (a != PASSCODE_OK && expect_old[0] != PC1[0]) { passcode_change(c, PC2, 6, PC1, 6); }
            }
            passcode_failed_attempts(c, &failures);
            answered_total = started_total = failures;
        }
        passcode_close(c);
    }
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", path);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
    printf("crash harness: %d kills; %ld wrong attempts started, %ld answered; %ld kills during a setting change, %ld during a reset, "
           "%ld during a passcode change; %ld data-key checks after a reset or change\n",
           kills, all_started, all_answered, all_settings, all_resets, all_changes, key_checks);
    return tl_summary();
}
