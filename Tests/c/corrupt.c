/* corrupt ROUNDS: damages a real store (random bytes overwritten, a page zeroed, or the file
 * cut short) and then opens and uses it in a child process. Every call must return a known
 * status, and the child must never crash. Prints what the damaged stores answered. */
#include <passcode.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

static int known(int32_t rc) {
    return (rc >= PASSCODE_OK && rc <= PASSCODE_ERR_WRONG_RECOVERY_KEY && rc != PASSCODE_ERR_INTERNAL) || rc == PASSCODE_ERR_FOREIGN_SCHEMA;
}
static void on_deleted(void *p) { (void)p; }

static int32_t deliver(void *p, const char *c, size_t n, char *m, size_t s) { (void)p; (void)c; (void)n; (void)m; (void)s; return 0; }

static int probe(const char *path) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_options_set_busy_timeout(o, 200);
    passcode_store *s = NULL;
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (!known(rc)) return 100 + rc;
    if (rc != PASSCODE_OK) return rc;  /* refused at open: fine */
    passcode_set_reset_delivery_callback(s, deliver, NULL);
    passcode_set_account_deleted_callback(s, on_deleted, NULL);
    int32_t v;
    int64_t w;
    passcode_session_list *l = NULL;
    int worst = 0;
#define PROBE(call) do { int32_t rc_ = (call); \
        if (!known(rc_)) { fprintf(stderr, "%s: status %d (%s)\n", #call, rc_, passcode_errmsg(s)); return 100 + rc_; } \
        if (rc_ != PASSCODE_OK && rc_ != PASSCODE_ERR_RATE_LIMITED && rc_ != PASSCODE_ERR_WRONG_PASSCODE && rc_ > worst) worst = rc_; } while (0)
    PROBE(passcode_is_set(s, &v));
    PROBE(passcode_verify(s, "915372", 6));
    PROBE(passcode_verify(s, "386491", 6));
    PROBE(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &w));
    PROBE(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60));
    PROBE(passcode_lock_state(s, &v, &v));
    PROBE(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &v));
    PROBE(passcode_reset_pending(s, &v));
    PROBE(passcode_reset_request(s));
    PROBE(passcode_session_list_new(s, &l));
    passcode_session_list_free(l);
    PROBE(passcode_change(s, "386491", 6, "502817", 6));
    PROBE(passcode_delete_account(s, "DELETE"));
    passcode_close(s);
    return worst;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--probe")) return probe(argv[2]);
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    char dir[] = "/tmp/passcode-corrupt-XXXXXX";
    if (!mkdtemp(dir)) return 2;
    char good[256], bad[256];
    snprintf(good, sizeof good, "%s/good.db", dir);
    snprintf(bad, sizeof bad, "%s/bad.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *s = NULL;
    if (passcode_open(good, o, &s) != PASSCODE_OK) return 2;
    passcode_options_free(o);
    passcode_set(s, "386491", 6);
    passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300);
    passcode_session_record(s, "me", "Laptop", "Linux", 5, "Here", 1);
    passcode_session_record(s, "you", "Phone", "Android", 4, NULL, 0);
    passcode_set_reset_delivery_callback(s, deliver, NULL);
    passcode_reset_request(s);
    passcode_verify(s, "915372", 6);
    passcode_close(s);  /* the WAL is checkpointed into the file on close */
    struct stat st;
    stat(good, &st);
    FILE *f = fopen(good, "rb");
    unsigned char *orig = malloc((size_t)st.st_size);
    if (fread(orig, 1, (size_t)st.st_size, f) != (size_t)st.st_size) return 2;
    fclose(f);
    srand((unsigned)time(NULL));
    int opened = 0, refused = 0, crashed = 0, unknown = 0, by_status[64] = {0};
    for (int r = 0; r < rounds; r++) {
        char side[300];
        unlink(bad);
        snprintf(side, sizeof side, "%s-wal", bad); unlink(side);
        snprintf(side, sizeof side, "%s-shm", bad); unlink(side);
        unsigned char *copy = malloc((size_t)st.st_size);
        memcpy(copy, orig, (size_t)st.st_size);
        size_t len = (size_t)st.st_size;
        switch (r % 3) {
        case 0: { int k = 1 + rand() % 64; while (k--) copy[(size_t)rand() % len] = (unsigned char)rand(); break; }
        case 1: { size_t page = ((size_t)rand() % (len / 4096)) * 4096; memset(copy + page, 0, 4096); break; }
        default: len = (size_t)rand() % len; break;
        }
        int fd = open(bad, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (write(fd, copy, len) != (ssize_t)len) return 2;
        close(fd);
        free(copy);
        pid_t pid = fork();
        if (pid == 0) _exit(probe(bad));
        int status;
        waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) {
            /* Kept for the report: the damaged file reproduces the crash (`corrupt --probe FILE`). */
            char keep[300], cmd[700];
            snprintf(keep, sizeof keep, "/tmp/passcode-corrupt-crash-%d-%d.db", (int)getpid(), r);
            snprintf(cmd, sizeof cmd, "cp '%s' '%s'", bad, keep);
            if (system(cmd) != 0) keep[0] = 0;
            crashed++;
            FAIL_MSG("round %d: crashed with signal %d; damaged store kept as %s", r, WTERMSIG(status), keep);
            continue;
        }
        int code = WEXITSTATUS(status);
        CHECK_MSG(code < 100, "round %d: a call returned a status the library does not name (%d, above)", r, code - 100);
        if (code >= 100) { unknown++; continue; }
        if (code == 0) opened++; else { refused++; by_status[code & 63]++; }
    }
    printf("corrupted stores: %d; usable: %d; refused with a status: %d (", rounds, opened, refused);
    for (int i = 1; i < 64; i++) if (by_status[i]) printf(" %s: %d;", passcode_strerror(i), by_status[i]);
    printf(" ); crashes: %d; unknown statuses: %d\n", crashed, unknown);
    snprintf(bad, sizeof bad, "rm -rf %s", dir);
    if (system(bad) != 0) return 2;
    return tl_summary();
}
