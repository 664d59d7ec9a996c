/* Faults and load through the library's client (the C API in service mode), run as a test user
 * by Tests/service/test_service.py against passcoded on its private bus:
 *   service_faults killverify APP GOOD       passcoded SIGKILLed during a verify (after "CALLING"
 *                                            and a line on stdin, the test kills it once the
 *                                            attempt is in the store; restarts it on "RESTART")
 *   service_faults quitter APP GOOD          a client process SIGKILLed during its verify
 *   service_faults crowd APP GOOD N          N client processes verifying at once
 *   service_faults flood APP GOOD PROCS CALLS  one uid flooding; prints "FLOODING", then its numbers
 *   service_faults latency APP GOOD          another uid's verify latency: idle, then (after a line
 *                                            on stdin) during the flood
 *   service_faults fork APP GOOD             fork() after opening in service mode
 *   service_faults fuzz APP CALLS SEED       random C API calls with random arguments
 *   service_faults bench APP GOOD DIR OPS,MEM  bench rows against an embedded store in DIR
 *   service_faults victim APP GOOD           a process of a uid another process of which stalls:
 *                                            prints "READY", and after a line on stdin
 *                                            times its open, a query, a verify and a setting
 *                                            change: "WAITS o q v s"
 * Prints "ok   ..." / "FAIL ..." lines (service_support.h); exit status: the failed checks. */
#include "service_support.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *app, *good;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wait_line(void) {
    char line[16];
    if (!fgets(line, sizeof line, stdin)) exit(100);
}

static int32_t failures_of(passcode_store *s) {
    int32_t v = -1;
    passcode_failed_attempts(s, &v);
    return v;
}

/* A store with the passcode `good` set (made once; later runs find it set). */
static passcode_store *ready_store(const char *id) {
    passcode_status rc;
    passcode_store *s = open_service(id, &rc);
    if (!s) { CHECK_MSG(0, "open %s in service mode: %s %s", id, passcode_strerror(rc), passcode_errmsg(NULL)); return NULL; }
    int32_t set = 0;
    passcode_is_set(s, &set);
    if (!set) {
        rc = passcode_set(s, good, strlen(good));
        if (rc != PASSCODE_OK) CHECK_MSG(0, "set the passcode of %s: %s %s", id, passcode_strerror(rc), passcode_errmsg(s));
    }
    return s;
}

/* (a) passcoded killed with SIGKILL while it checks a wrong passcode. */
/* A settings hook that refuses every change and counts how often it is asked. */
static int refusals_asked;
static int32_t counting_refuser(void *payload, const char *name, const char *old_value, const char *new_value, char *message, size_t size) {
    (void)payload; (void)name; (void)old_value; (void)new_value;
    refusals_asked++;
    snprintf(message, size, "refused by the host");
    return 1;
}

static void killverify(void) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    /* The host's settings hook, registered with this passcoded: it must still be asked after the
     * restart (never a change made without it by the next passcoded). */
    CHECK_STATUS(passcode_set_settings_hook(s, counting_refuser, NULL), PASSCODE_OK);
    double t = now_seconds();
    CHECK_STATUS(passcode_verify(s, "246813", 6), PASSCODE_ERR_WRONG_PASSCODE);
    double took = now_seconds() - t;
    int32_t before = failures_of(s);
    printf("CALLING %.3f\n", took);  /* the test watches the store, answers, and kills passcoded */
    fflush(stdout);                    /* once this verify's attempt is in the store */
    wait_line();
    passcode_status rc = passcode_verify(s, "135792", 6);
    CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE, "the verify during which passcoded was killed: %s, \"%s\" (a wrong passcode; a verify takes %.2f s)",
              passcode_strerror(rc), passcode_errmsg(s), took);
    int32_t v = -1;
    CHECK_STATUS(passcode_failed_attempts(s, &v), PASSCODE_ERR_SERVICE_UNAVAILABLE);
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_ERR_SERVICE_UNAVAILABLE);
    printf("RESTART\n");  /* the test starts passcoded again and answers */
    fflush(stdout);
    wait_line();
    /* The same handle, once passcoded is back: the failure was counted before the kill. */
    v = -1;
    passcode_status got = passcode_failed_attempts(s, &v);
    CHECK_MSG(got == PASSCODE_OK && v == before + 1, "the same handle after the restart: %s; failures %d before the killed verify, %d after (no failure lost)",
              passcode_strerror(got), (int)before, (int)v);
    CHECK_STATUS(passcode_verify(s, "135792", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_MSG(failures_of(s) == before + 2, "the next wrong passcode counts on: %d", (int)failures_of(s));
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    CHECK_MSG(failures_of(s) == 0, "the right passcode clears the count");
    int64_t was = -1, now = -1;
    passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &was);
    int asked = refusals_asked;
    passcode_status hooked = passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, was == 60 ? 0 : 60);
    passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &now);
    CHECK_MSG(hooked == PASSCODE_ERR_HOOK_FAILED && refusals_asked == asked + 1 && now == was,
              "the host's settings hook after passcoded's restart: %s, asked %d time(s), auto-lock %lld -> %lld",
              passcode_strerror(hooked), refusals_asked - asked, (long long)was, (long long)now);
    passcode_close(s);
}

/* Whether the process's main thread is blocked waiting for a descriptor (poll, ppoll, select,
 * pselect6, epoll_wait, epoll_pwait: the first field of /proc/PID/syscall on x86_64), as a
 * service client is between sending a call and reading its answer. */
static int blocked_in_poll(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long nr = -1;
    int read_one = fscanf(f, "%ld", &nr) == 1;
    fclose(f);
    return read_one && (nr == 7 || nr == 271 || nr == 23 || nr == 270 || nr == 232 || nr == 281);
}

/* (b) a client process killed while its verify runs in passcoded. */
static void quitter(void) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    double t = now_seconds();
    CHECK_STATUS(passcode_verify(s, "864202", 6), PASSCODE_ERR_WRONG_PASSCODE);
    double took = now_seconds() - t;
    int32_t before = failures_of(s);
    int ready[2];
    if (pipe(ready) != 0) { CHECK_MSG(0, "pipe"); return; }
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        passcode_status rc;
        passcode_store *own = open_service(app, &rc);
        /* A first call on the handle: the connection, its authentication and the check of the
         * name's owner are done before the verify, so the verify's first wait (below) is for its
         * own answer, after its call went out. */
        if (!own || failures_of(own) < 0) _exit(3);
        if (write(ready[1], "x", 1) != 1) _exit(2);
        passcode_verify(own, "975310", 6);
        _exit(1);  /* not reached: killed during the call */
    }
    close(ready[1]);
    char c;
    int started = read(ready[0], &c, 1) == 1;
    close(ready[0]);
    /* Killed once its call is on the bus: the client then waits in poll for the answer
     * (/proc/PID/syscall names the system call its main thread is blocked in), and passcoded
     * counts the attempt before it answers. The moment is an event, not a guess at how long the
     * client takes to send (which a loaded machine stretches); the count is read after. */
    double asked = now_seconds();
    int waiting = 0;
    while (!waiting && now_seconds() - asked < 60) {
        waiting = blocked_in_poll(pid);
        if (!waiting) usleep(2000);
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(started && waiting && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
              "the client was killed while it waited for passcoded's answer to its verify, %.3f s after it began "
              "(a verify takes %.2f s)", now_seconds() - asked, took);
    usleep((useconds_t)(took * 1.5e6));  /* the service finishes the abandoned call */
    int32_t after = failures_of(s);
    /* Counted once, or (when the client died before passcoded could ask the bus who sent the
     * call: the sender had left) refused unchecked; never counted twice. Which of the two, the
     * client cannot tell from here (test-service's kill of passcoded itself, once the attempt is
     * in the store, is the check that an attempt is counted before its answer). */
    CHECK_MSG(after == before + 1 || after == before,
              "the killed client's attempt is counted at most once: failures %d -> %d (%s)", (int)before, (int)after,
              after == before + 1 ? "counted" : "refused unchecked: the sender had left the bus");
    passcode_status rc;
    passcode_store *fresh = open_service(app, &rc);
    CHECK_MSG(fresh != NULL, "the store opens after the kill: %s", passcode_strerror(rc));
    if (fresh) {
        CHECK_STATUS(passcode_verify(fresh, good, strlen(good)), PASSCODE_OK);
        CHECK_MSG(failures_of(fresh) == 0 && failures_of(s) == 0, "and verifies: the count is cleared on both handles");
        passcode_close(fresh);
    }
    passcode_close(s);
}

/* (c) N processes, each with its own handle, verifying at once: one in 25 with a wrong passcode
 * (fewer than the 5 failures of the first lockout, however the calls are ordered). */
static void crowd(int n) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    int go[2], done[2];
    if (pipe(go) != 0 || pipe(done) != 0) { CHECK_MSG(0, "pipe"); return; }
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        int bad = i % 25 == 0;
        wrong += bad;
        pids[i] = fork();
        if (pids[i] == 0) {
            close(go[1]);
            passcode_status rc;
            passcode_store *own = open_service(app, &rc);
            if (write(done[1], "o", 1) != 1) _exit(251);
            char c;
            if (read(go[0], &c, 1) != 0) _exit(252);  /* released when the parent closes go[1] */
            if (!own) _exit(250);
            rc = bad ? passcode_verify(own, "555123", 6) : passcode_verify(own, good, strlen(good));
            passcode_close(own);
            _exit(rc);
        }
    }
    close(go[0]);
    close(done[1]);
    char c;
    int opened = 0;
    while (opened < n && read(done[0], &c, 1) == 1) opened++;
    double t = now_seconds();
    close(go[1]);
    int ok = 0, wrong_seen = 0, other = 0, first_other = -1;
    for (int i = 0; i < n; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
        int bad = i % 25 == 0;
        if (!bad && code == PASSCODE_OK) ok++;
        else if (bad && code == PASSCODE_ERR_WRONG_PASSCODE) wrong_seen++;
        else { other++; if (first_other < 0) first_other = code; }
    }
    double took = now_seconds() - t;
    printf("     %d client processes verifying at once through the library: %d unlocked, %d wrong passcodes refused, %d other (first: %d), in %.2f s\n",
           n, ok, wrong_seen, other, first_other, took);
    CHECK_MSG(opened == n && ok == n - wrong && wrong_seen == wrong && other == 0,
              "%d processes at once: every one answered with its status (%d PASSCODE_OK, %d PASSCODE_ERR_WRONG_PASSCODE)", n, n - wrong, wrong);
    int32_t v = -1;
    CHECK_STATUS(passcode_failed_attempts(s, &v), PASSCODE_OK);
    CHECK_MSG(v >= 0 && v <= wrong, "the count afterwards is within what the wrong ones could leave: %d", (int)v);
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    free(pids);
    passcode_close(s);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* (d) the flooding uid: PROCS processes, CALLS right verifies each, all at once. */
static void flood(int procs, int calls) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    passcode_close(s);
    int go[2], done[2], results[2];
    if (pipe(go) != 0 || pipe(done) != 0 || pipe(results) != 0) { CHECK_MSG(0, "pipe"); return; }
    for (int i = 0; i < procs; i++) {
        if (fork() == 0) {
            close(go[1]);
            passcode_status rc;
            passcode_store *own = open_service(app, &rc);
            if (write(done[1], "o", 1) != 1) _exit(1);
            char c;
            if (read(go[0], &c, 1) != 0) _exit(1);
            double sum = 0;
            int ok = 0;
            /* Each answered verify adds a byte to the counter file the other uid reads. */
            const char *counter = getenv("FLOOD_COUNTER");
            int tally = counter ? open(counter, O_WRONLY | O_APPEND) : -1;
            for (int k = 0; own && k < calls; k++) {
                double t = now_seconds();
                ok += passcode_verify(own, good, strlen(good)) == PASSCODE_OK;
                sum += now_seconds() - t;
                if (tally >= 0 && write(tally, "v", 1) != 1) _exit(1);
            }
            double row[2] = {sum, (double)ok};
            if (write(results[1], row, sizeof row) != (ssize_t)sizeof row) _exit(1);
            _exit(0);
        }
    }
    close(go[0]);
    close(done[1]);
    close(results[1]);
    char c;
    int opened = 0;
    while (opened < procs && read(done[0], &c, 1) == 1) opened++;
    double t = now_seconds();
    close(go[1]);
    printf("FLOODING\n");
    fflush(stdout);
    double sum = 0, row[2];
    int ok = 0;
    while (read(results[0], row, sizeof row) == (ssize_t)sizeof row) { sum += row[0]; ok += (int)row[1]; }
    while (wait(NULL) > 0) {}
    double took = now_seconds() - t;
    printf("FLOOD %.6f %.3f\n", sum / (procs * calls), took);
    printf("     the flood: %d processes x %d verifies of one uid, %d answered PASSCODE_OK in %.2f s (%.0f verifies/s), "
           "each verify waited %.1f ms on average\n", procs, calls, ok, took, ok / took, sum / (procs * calls) * 1e3);
    CHECK_MSG(opened == procs && ok == procs * calls, "every verify of the flood is answered PASSCODE_OK (%d of %d)", ok, procs * calls);
}

/* The flood's answered verifies so far: the size of the counter file (FLOOD_COUNTER). */
static long flood_answered(void) {
    const char *counter = getenv("FLOOD_COUNTER");
    struct stat st;
    return counter && stat(counter, &st) == 0 ? (long)st.st_size : -1;
}

/* (d) the other uid: 10 verifies idle, then 10 during the flood (after a line on stdin); for
 * each of those, how many of the flood's verifies were answered while it waited. */
static void latency(void) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    double idle[10], busy[10];
    long most_passed = 0;
    int ok = 0;
    for (int round = 0; round < 2; round++) {
        double *into = round ? busy : idle;
        if (round) { printf("READY\n"); fflush(stdout); wait_line(); }
        for (int i = 0; i < 10; i++) {
            long before = flood_answered();
            double t = now_seconds();
            ok += passcode_verify(s, good, strlen(good)) == PASSCODE_OK;
            into[i] = now_seconds() - t;
            long passed = flood_answered() - before;
            if (round && passed > most_passed) most_passed = passed;
        }
        qsort(into, 10, sizeof *into, compare_doubles);
    }
    printf("LATENCY %.6f %.6f %.6f %.6f %ld\n", idle[5], idle[9], busy[5], busy[9], most_passed);
    printf("     another uid's verify: idle median %.1f ms (max %.1f), during the flood median %.1f ms (max %.1f): %.1fx\n",
           idle[5] * 1e3, idle[9] * 1e3, busy[5] * 1e3, busy[9] * 1e3, idle[5] > 0 ? busy[5] / idle[5] : 0);
    CHECK_MSG(ok == 20, "another uid's verifies are all answered PASSCODE_OK, idle and during the flood (%d of 20)", ok);
    passcode_close(s);
}

/* The victim of a staller of its own uid: the store is made and checked first; then,
 * after a line on stdin (the staller's calls queued and its hook being asked), a new open, a
 * query, a verify and a setting change are each timed. "WAITS open query verify setting"
 * (seconds; -1: not reached). */
static void victim(void) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    passcode_close(s);
    printf("READY\n");
    fflush(stdout);
    wait_line();
    double waits[4] = {-1, -1, -1, -1}, t = now_seconds();
    passcode_status open_rc, query_rc = PASSCODE_OK, verify_rc = PASSCODE_OK;
    s = open_service(app, &open_rc);
    waits[0] = now_seconds() - t;
    int32_t set = -1;
    if (s) {
        t = now_seconds();
        query_rc = passcode_is_set(s, &set);
        waits[1] = now_seconds() - t;
        t = now_seconds();
        verify_rc = passcode_verify(s, good, strlen(good));
        waits[2] = now_seconds() - t;
    }
    /* Its own hooks only: it has none, so a stronger auto-lock asks no hook (the staller's
     * settings hook, registered on the same store, would never answer). */
    passcode_status setting_rc = PASSCODE_OK;
    if (s) {
        t = now_seconds();
        setting_rc = passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60);
        waits[3] = now_seconds() - t;
    }
    printf("WAITS %.3f %.3f %.3f %.3f\n", waits[0], waits[1], waits[2], waits[3]);
    fflush(stdout);
    if (!s) {
        CHECK_MSG(0, "the victim's open is answered: %s after %.2f s", passcode_strerror(open_rc), waits[0]);
        return;
    }
    CHECK_MSG(query_rc == PASSCODE_OK && set == 1 && verify_rc == PASSCODE_OK && setting_rc == PASSCODE_OK,
              "the victim's open (%.2f s), query (%s, %.2f s), verify (%s, %.2f s) and setting change with no hook (%s, %.2f s) "
              "are answered, its passcode still set", waits[0], passcode_strerror(query_rc), waits[1], passcode_strerror(verify_rc), waits[2],
              passcode_strerror(setting_rc), waits[3]);
    passcode_close(s);
}

static int32_t refusing_hook(void *payload, const char *name, const char *old_value, const char *new_value, char *message, size_t size) {
    (void)payload; (void)name; (void)old_value; (void)new_value;
    snprintf(message, size, "refused by the child's host");
    return 1;
}

/* 3. fork() after opening in service mode: the child's calls on the inherited handle work on a
 * connection of its own, and the parent's handle goes on working, whatever the child did. */
static void forked(void) {
    passcode_store *s = ready_store(app);
    if (!s) return;
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    int pipefd[2];
    if (pipe(pipefd) != 0) { CHECK_MSG(0, "pipe"); return; }
    pid_t pid = fork();
    if (pid == 0) {
        /* The child: the inherited handle answers as in the parent. */
        close(pipefd[0]);
        int32_t v = -1, results[6];
        results[0] = passcode_verify(s, "777001", 6);
        results[1] = passcode_failed_attempts(s, &v);
        results[2] = v;
        results[3] = passcode_verify(s, good, strlen(good));
        v = -1;
        results[4] = passcode_failed_attempts(s, &v);
        results[5] = v;
        passcode_close(s);  /* the child's connection; the parent's is left alone */
        _exit(write(pipefd[1], results, sizeof results) == (ssize_t)sizeof results ? 0 : 1);
    }
    close(pipefd[1]);
    int32_t r[6] = {-1, -1, -1, -1, -1, -1};
    ssize_t got = read(pipefd[0], r, sizeof r);
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(got == (ssize_t)sizeof r && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child ran and closed its handle");
    CHECK_MSG(r[0] == PASSCODE_ERR_WRONG_PASSCODE, "the child's verify of a wrong passcode on the inherited handle: %s (not SERVICE_UNAVAILABLE)",
              passcode_strerror(r[0]));
    CHECK_MSG(r[1] == PASSCODE_OK && r[2] == 1, "the child reads the failure it caused: %s, %d", passcode_strerror(r[1]), (int)r[2]);
    CHECK_MSG(r[3] == PASSCODE_OK && r[4] == PASSCODE_OK && r[5] == 0, "the child's right passcode unlocks: %s, failures %d", passcode_strerror(r[3]), (int)r[5]);
    /* The parent's handle and connection, after the child used and closed its copy. */
    CHECK_STATUS(passcode_verify(s, "777002", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_MSG(failures_of(s) == 1, "the parent's handle works on after the child closed its copy: failures %d", (int)failures_of(s));
    /* A child that only closes the handle, and one that exits with it open. */
    for (int k = 0; k < 2; k++) {
        pid = fork();
        if (pid == 0) {
            if (k == 0) passcode_close(s);
            _exit(0);
        }
        waitpid(pid, &status, 0);
        CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    }
    /* A grandchild: the child's connection is not the grandchild's either. */
    pid = fork();
    if (pid == 0) {
        int32_t v = -1;
        if (passcode_failed_attempts(s, &v) != PASSCODE_OK) _exit(3);
        pid_t inner = fork();
        if (inner == 0) _exit(passcode_verify(s, good, strlen(good)) == PASSCODE_OK ? 0 : 4);
        int st = 0;
        waitpid(inner, &st, 0);
        _exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 && passcode_is_set(s, &v) == PASSCODE_OK && v == 1 ? 0 : 5);
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a child and its own child each call on the handle: exit %d",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    /* The host's settings hook, registered in the parent, is asked in the child too (passcoded ties
     * callbacks to a connection: the child's own connection registers them again). */
    CHECK_STATUS(passcode_set_settings_hook(s, refusing_hook, NULL), PASSCODE_OK);
    pid = fork();
    if (pid == 0) {
        int64_t before = -1, after = -1;
        passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &before);
        int32_t rc = passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, before == 60 ? 0 : 60);
        passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &after);
        const char *msg = passcode_errmsg(s);
        _exit(rc == PASSCODE_ERR_HOOK_FAILED && after == before && msg && strstr(msg, "refused by the child's host") ? 0 : 1);
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the settings hook is asked in a child made by fork(): HOOK_FAILED, value kept (exit %d)",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK_STATUS(passcode_set_settings_hook(s, NULL, NULL), PASSCODE_OK);
    passcode_close(s);
    /* A child of a handle the parent closed: INVALID_HANDLE, as in the parent. */
    pid = fork();
    if (pid == 0) { int32_t v; _exit(passcode_is_set(s, &v) == PASSCODE_ERR_INVALID_HANDLE ? 0 : 1); }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a closed handle in a child: PASSCODE_ERR_INVALID_HANDLE");
}

/* 2. Random calls. */
static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

#define BUF 8192
static char text[BUF + 1];
static uint8_t bytes[BUF];
/* Whether a passcode of this call is not UTF-8 text (see note()). */
static int secret_not_utf8;

/* Strict UTF-8, as D-Bus requires of a string (no overlong form, surrogate or code point past
 * U+10FFFF); the text is read up to its first NUL, as the client sends it. */
static int is_utf8(const char *p, size_t n) {
    const unsigned char *u = (const unsigned char *)p;
    for (size_t i = 0; i < n && u[i];) {
        size_t extra = u[i] < 0x80 ? 0 : (u[i] & 0xe0) == 0xc0 ? 1 : (u[i] & 0xf0) == 0xe0 ? 2 : (u[i] & 0xf8) == 0xf0 ? 3 : 9;
        if (extra == 9 || (extra && i + extra >= n)) return 0;
        uint32_t cp = extra == 0 ? u[i] : extra == 1 ? u[i] & 0x1fu : extra == 2 ? u[i] & 0x0fu : u[i] & 0x07u;
        for (size_t k = 1; k <= extra; k++) {
            if ((u[i + k] & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (u[i + k] & 0x3fu);
        }
        static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
        if (cp < least[extra] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
        i += extra + 1;
    }
    return 1;
}

static const char *random_digits(size_t *length);
static const char *digits_of(size_t *length) {
    size_t n = 0;
    const char *d = random_digits(&n);
    if (d && n <= 4096 && !is_utf8(d, n)) secret_not_utf8 = 1;
    *length = n;
    return d;
}

static const char *random_digits(size_t *length) {
    switch (below(8)) {
    case 0: *length = 6; return good;
    case 1: *length = 6; return "123456";  /* weak */
    case 2: *length = below(2) ? SIZE_MAX : (size_t)1 << 40; return below(2) ? NULL : text;  /* huge: never read */
    case 3: *length = below(5) ? 6 : below(10); return NULL;
    default: break;
    }
    static const size_t lengths[] = {0, 1, 4, 5, 6, 7, 8, 9, 255, 256, 257, 4096, 4097};
    *length = below(4) ? lengths[below(sizeof lengths / sizeof *lengths)] : below(BUF);
    int kind = (int)below(4);
    for (size_t i = 0; i < *length && i < BUF; i++)
        text[i] = kind == 0 ? (char)('0' + below(10)) : kind == 1 ? (char)below(256) : kind == 2 ? (i == 2 ? '\0' : (char)('0' + below(10))) : 'x';
    text[BUF] = '\0';
    return text;
}
static const char *string_of(void) {
    if (below(5) == 0) return NULL;
    size_t n = below(4) ? below(80) : below(BUF);
    for (size_t i = 0; i < n; i++) text[i] = (char)(1 + below(255));
    text[n] = '\0';
    return text;
}
static int32_t int_of(void) {
    static const int32_t edges[] = {0, 1, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 63, 64, 65, 255, INT32_MAX, INT32_MIN};
    return below(3) ? edges[below(sizeof edges / sizeof *edges)] : (int32_t)rnd();
}
static int64_t long_of(void) {
    static const int64_t edges[] = {0, 1, -1, 30, 60, 300, 900, 3600, 86400, INT64_MAX, INT64_MIN};
    return below(2) ? edges[below(sizeof edges / sizeof *edges)] : (int64_t)rnd();
}
static int32_t cb_int(void *p, int32_t a, char *m, size_t n) { (void)p; (void)a; (void)m; (void)n; return 0; }
static int32_t cb_hook(void *p, const char *a, const char *b, const char *c, char *m, size_t n) { (void)p; (void)a; (void)b; (void)c; (void)m; (void)n; return 0; }
static void cb_void(void *p) { (void)p; }
static void cb_notice(void *p, int32_t a) { (void)p; (void)a; }
static int32_t cb_session(void *p, const char *a, char *m, size_t n) { (void)p; (void)a; (void)m; (void)n; return 0; }
static int32_t cb_deliver(void *p, const char *c, size_t n, char *m, size_t size) { (void)p; (void)c; (void)n; (void)m; (void)size; return 0; }

static passcode_store *stores[4];
static passcode_flow *flows[2];
static long counts[256];
static int unknown, unavailable, unavailable_not_utf8;

static void note(passcode_store *s, passcode_status st, const char *what) {
    if (st < 0 || st > 255 || strcmp(passcode_strerror(st), "unknown status") == 0) {
        unknown++;
        printf("     undocumented status %d from %s\n", (int)st, what);
    } else {
        counts[st]++;
    }
    if (st != PASSCODE_ERR_SERVICE_UNAVAILABLE) return;
    /* The bus is up and the daemon answers: nothing a host passes may make a call unreachable
     * (a passcode that is not UTF-8 was one: it could not be a D-Bus string, and answered
     * SERVICE_UNAVAILABLE where the embedded store answers FORMAT). */
    if (secret_not_utf8) unavailable_not_utf8++;
    if (unavailable++ < 3) printf("     SERVICE_UNAVAILABLE from %s: %s\n", what, passcode_errmsg(s));
}

/* A passcode with a byte that is not UTF-8, on both back ends: the same status and message. */
static void probe_not_utf8(passcode_store *service) {
    char dir[] = "/tmp/passcode-faults-probe-XXXXXX", file[64];
    if (!mkdtemp(dir)) return;
    snprintf(file, sizeof file, "%s/probe.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *embedded = NULL;
    passcode_open(file, o, &embedded);
    passcode_options_free(o);
    passcode_set(embedded, good, strlen(good));
    const char bad[] = "12\xff" "456";
    passcode_status e = passcode_verify(embedded, bad, 6), v = passcode_verify(service, bad, 6);
    char em[200];
    snprintf(em, sizeof em, "%s", passcode_errmsg(embedded));
    CHECK_MSG(e == PASSCODE_ERR_FORMAT && v == e && strcmp(em, passcode_errmsg(service)) == 0,
              "passcode_verify with \"12\\xff456\": embedded %s (\"%s\"), in service mode %s (\"%s\")",
              passcode_strerror(e), em, passcode_strerror(v), passcode_errmsg(service));
    passcode_close(embedded);
    for (const char *const *end = (const char *const[]){"", "-wal", "-shm", "-journal", NULL}; *end; end++) {
        char name[80];
        snprintf(name, sizeof name, "%s%s", file, *end);
        unlink(name);
    }
    rmdir(dir);
}

static void fuzz(long calls, uint64_t seed) {
    rng_state = seed * 2654435761u + 88172645463325252ull;
    char app2[80];
    snprintf(app2, sizeof app2, "%s-2", app);
    const char *apps[] = {app, app2};
    long made = 0;
    for (int k = 0; k < 4; k++) {
        passcode_status rc;
        stores[k] = k < 2 ? ready_store(apps[k]) : open_service(apps[k - 2], &rc);
    }
    probe_not_utf8(stores[0]);
    for (long i = 0; i < calls; i++) {
        secret_not_utf8 = 0;
        int slot = (int)below(4);
        passcode_store *s = below(20) ? stores[slot] : NULL;
        size_t n1, n2;
        const char *d1, *d2;
        int32_t i1 = 0, i2 = 0;
        int64_t l1 = 0;
        size_t z = 0;
        const char *str = NULL;
        uint8_t key[64];
        passcode_lock_screen screen;
        passcode_status st = PASSCODE_OK;
        int32_t *o32 = below(8) ? &i1 : NULL;
        int64_t *o64 = below(8) ? &l1 : NULL;
        int fn = (int)below(48);
        if (fn >= 44) fn = 0;  /* reopen more often than close: most calls reach an open handle */
        const char *what = "?";
        switch (fn) {
        case 0: case 1: {  /* open (or reopen) a slot in service mode, now and then with an odd app id */
            what = "passcode_open";
            passcode_options *o = NULL;
            passcode_options_new(&o);
            passcode_options_set_service(o, below(10) ? apps[below(2)] : string_of());
            if (below(10) == 0) passcode_options_set_busy_timeout(o, int_of());
            passcode_store *fresh = NULL;
            st = passcode_open(below(2) ? "ignored" : string_of(), o, below(30) ? &fresh : NULL);
            passcode_options_free(o);
            /* The slot's old handle is closed (leaked ones would reach the bus's 256 connections
             * a uid, where an open answers SERVICE_UNAVAILABLE). */
            if (fresh) { made++; passcode_close(stores[slot]); stores[slot] = fresh; }
            break;
        }
        case 2: what = "passcode_close"; passcode_close(s); break;  /* the pointer stays: a closed handle */
        case 3: case 4: what = "passcode_verify"; d1 = digits_of(&n1); st = passcode_verify(s, d1, n1); break;
        case 5: what = "passcode_set"; d1 = digits_of(&n1); st = passcode_set(s, d1, n1); break;
        case 6: what = "passcode_authorize"; d1 = digits_of(&n1); st = passcode_authorize(s, d1, n1); break;
        case 7: what = "passcode_change"; d1 = digits_of(&n1); { const char *c1 = d1 == text ? good : d1; size_t m1 = n1; d2 = digits_of(&n2); st = passcode_change(s, c1, c1 == good ? 6 : m1, d2, n2); } break;
        case 8: what = "passcode_disable"; d1 = digits_of(&n1); st = passcode_disable(s, d1, n1); break;
        case 9: what = "passcode_enable"; st = passcode_enable(s); break;
        case 10: what = "passcode_remove"; d1 = digits_of(&n1); st = passcode_remove(s, d1, n1); break;
        case 11: what = "passcode_is_set"; st = passcode_is_set(s, o32); break;
        case 12: what = "passcode_is_enabled"; st = passcode_is_enabled(s, o32); break;
        case 13: what = "passcode_length"; st = passcode_length(s, o32); break;
        case 14: what = "passcode_set_length"; st = passcode_set_length(s, int_of()); break;
        case 15: what = "passcode_failed_attempts"; st = passcode_failed_attempts(s, o32); break;
        case 16: what = "passcode_lockout_remaining"; st = passcode_lockout_remaining(s, o64); break;
        case 17: what = "passcode_is_reset_required"; st = passcode_is_reset_required(s, o32); break;
        case 18: what = "passcode_setting_get"; st = passcode_setting_get(s, (passcode_setting)int_of(), o64); break;
        case 19: what = "passcode_setting_set"; st = passcode_setting_set(s, (passcode_setting)int_of(), long_of()); break;
        case 20: what = "passcode_lock_state"; st = passcode_lock_state(s, o32, below(8) ? &i2 : NULL); break;
        case 21: {
            what = "passcode_lock_screen_read";
            memset(&screen, 0, sizeof screen);
            static const uint32_t sizes[] = {0, 4, 8, sizeof screen - 1, sizeof screen};
            screen.size = sizes[below(5)];
            st = passcode_lock_screen_read(s, below(8) ? &screen : NULL);
            break;
        }
        case 22: what = "passcode_event_report"; st = passcode_event_report(s, (passcode_app_event)int_of(), o32); break;
        case 23: what = "passcode_security_label"; st = passcode_security_label(s, below(8) ? &str : NULL); break;
        case 24: what = "passcode_biometric_check"; st = passcode_biometric_check(s, o32); break;
        case 25: what = "passcode_biometric_unlock"; st = passcode_biometric_unlock(s, o32); break;
        case 26: what = "passcode_biometric_set_available"; st = passcode_biometric_set_available(s, int_of(), (passcode_biometric_kind)int_of()); break;
        case 27: {
            what = "passcode_set_custom_schedule";
            uint32_t delays[64];
            for (int k = 0; k < 64; k++) delays[k] = (uint32_t)below(4) ? (uint32_t)below(3600) : (uint32_t)rnd();
            size_t count = below(8) ? below(65) : SIZE_MAX;
            st = passcode_set_custom_schedule(s, count == SIZE_MAX ? NULL : delays, count, (uint32_t)int_of());
            break;
        }
        case 28: {
            what = "passcode_flow_new";
            passcode_flow *f = NULL;
            st = passcode_flow_new(s, (passcode_flow_kind)int_of(), below(10) ? &f : NULL);
            if (f) { int k = (int)below(2); passcode_flow_free(flows[k]); flows[k] = f; }
            break;
        }
        case 29: {
            what = "passcode_flow_*";
            passcode_flow *f = below(10) ? flows[below(2)] : NULL;
            switch (below(6)) {
            case 0: st = passcode_flow_digit(f, below(2) ? (int32_t)below(10) : int_of()); break;
            case 1: st = passcode_flow_delete(f); break;
            case 2: st = passcode_flow_cancel(f); break;
            case 3: st = passcode_flow_refresh(f); break;
            case 4: st = passcode_flow_state(f, o32, below(8) ? &i2 : NULL); break;
            default: st = passcode_flow_take_key(f, key, below(2) ? 32 : below(65)); break;
            }
            break;
        }
        case 30: what = "passcode_reset_request"; st = passcode_reset_request(s); break;
        case 31: what = "passcode_reset_check"; d1 = digits_of(&n1); st = passcode_reset_check(s, d1, n1); break;
        case 32: what = "passcode_reset_complete"; d1 = digits_of(&n1); { const char *c1 = d1 == text ? "12345678" : d1; size_t m1 = c1 == d1 ? n1 : 8; d2 = digits_of(&n2); st = passcode_reset_complete(s, c1, m1, d2, n2); } break;
        case 33: what = "passcode_forgot"; st = passcode_forgot(s); break;
        case 34: what = "passcode_unlock_key"; d1 = digits_of(&n1); st = passcode_unlock_key(s, d1, n1, below(8) ? key : NULL, below(2) ? 32 : below(65)); break;
        case 35: {
            what = "passcode_seal/unseal";
            size_t plain = below(2) ? below(256) : below(BUF / 2), cap = below(2) ? BUF / 2 : below(BUF / 2);
            st = below(2) ? passcode_seal(s, bytes, plain, bytes + BUF / 2, cap, below(8) ? &z : NULL)
                          : passcode_unseal(s, bytes, plain, bytes + BUF / 2, cap, below(8) ? &z : NULL);
            break;
        }
        case 36: {
            what = "passcode_event_log_new";
            passcode_event_log *log = NULL;
            st = passcode_event_log_new(s, below(10) ? &log : NULL);
            if (log) { size_t c = passcode_event_log_count(log); if (c) st = passcode_event_log_get(log, below(c + 2), o32, o64, &str); passcode_event_log_free(log); }
            break;
        }
        case 37: {
            what = "passcode_session_list_new";
            passcode_session_list *list = NULL;
            st = passcode_session_list_new(s, below(10) ? &list : NULL);
            if (list) passcode_session_list_free(list);
            break;
        }
        case 38: what = "passcode_session_record"; st = passcode_session_record(s, string_of(), "device", "linux", long_of(), NULL, int_of()); break;
        case 39: {
            what = "passcode_set_*callback";
            switch (below(7)) {
            case 0: st = passcode_set_settings_hook(s, below(2) ? cb_hook : NULL, NULL); break;
            case 1: st = passcode_set_lifecycle_callback(s, below(2) ? cb_int : NULL, NULL); break;
            case 2: st = passcode_set_notice_callback(s, below(2) ? cb_notice : NULL, NULL); break;
            case 3: st = passcode_set_logout_callback(s, below(2) ? cb_notice : NULL, NULL); break;
            case 4: st = passcode_set_account_deleted_callback(s, below(2) ? cb_void : NULL, NULL); break;
            case 5: st = passcode_set_session_hook(s, below(2) ? cb_session : NULL, NULL); break;
            default: st = passcode_set_reset_delivery_callback(s, below(2) ? cb_deliver : NULL, NULL); break;
            }
            break;
        }
        case 40: what = "passcode_failure_summary"; st = passcode_failure_summary(s, o32, o64); break;
        case 41: what = "passcode_has_recovery_key"; st = passcode_has_recovery_key(s, o32); break;
        case 42: what = "passcode_set_recovery_key"; st = passcode_set_recovery_key(s, below(8) ? bytes : NULL, below(2) ? 32 : below(BUF)); break;
        default: what = "passcode_tpm_*"; d1 = digits_of(&n1); st = below(2) ? passcode_tpm_is_bound(s, o32) : passcode_tpm_bind(s, d1, n1); break;
        }
        if (fn != 2) note(fn == 0 ? NULL : s, st, what);
        (void)passcode_errmsg(s);
        (void)passcode_errwait(s);
    }
    printf("     %ld random calls (seed %llu, %ld stores opened):", calls, (unsigned long long)seed, made);
    for (int k = 0; k < 256; k++)
        if (counts[k]) printf(" %s %ld;", passcode_strerror(k), counts[k]);
    printf("\n");
    CHECK_MSG(unknown == 0, "every status is a documented one (passcode_strerror knows it): %d unknown", unknown);
    CHECK_MSG(unavailable == 0, "no call answered SERVICE_UNAVAILABLE: %d did (%d of them with a passcode that is not UTF-8)",
              unavailable, unavailable_not_utf8);
    CHECK_MSG(counts[PASSCODE_ERR_NOT_IN_SERVICE_MODE] == 0, "every call is offered in service mode (NOT_IN_SERVICE_MODE: %ld)",
              counts[PASSCODE_ERR_NOT_IN_SERVICE_MODE]);
    for (int k = 0; k < 4; k++) passcode_close(stores[k]);
    for (int k = 0; k < 2; k++) passcode_flow_free(flows[k]);
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    int32_t v = -1;
    CHECK_MSG(s && passcode_is_set(s, &v) == PASSCODE_OK, "after the random calls the service answers a new handle: %s", passcode_strerror(rc));
    passcode_close(s);
}

/* 4. Bench rows: verify through passcoded vs embedded (both stores on tmpfs, the same cost), a
 * cached query through passcoded vs embedded; ratios against the embedded store of this run. */
static void bench(const char *dir, const char *cost) {
    unsigned long long ops = 0, mem = 0;
    if (sscanf(cost, "%llu,%llu", &ops, &mem) != 2) { CHECK_MSG(0, "bench: the cost %s", cost); return; }
    char file[600];
    snprintf(file, sizeof file, "%s/bench.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, ops, (size_t)mem);
    passcode_store *embedded = NULL;
    passcode_status rc = passcode_open(file, o, &embedded);
    passcode_options_free(o);
    passcode_store *service = ready_store(app);
    int ok = embedded && service && passcode_set(embedded, good, strlen(good)) == PASSCODE_OK;
    enum { ROUNDS = 15, QUERIES = 2000, MAX_RUNS = 25 };
    /* PASSCODE_BENCH_RUNS (make bench-service BENCH_RUNS=n; default 5) runs of ROUNDS pairs. */
    const char *runs_env = getenv("PASSCODE_BENCH_RUNS");
    int runs = runs_env && *runs_env ? atoi(runs_env) : 5;
    runs = runs < 1 ? 1 : runs > MAX_RUNS ? MAX_RUNS : runs;
    double took[MAX_RUNS][2], query[2] = {0, 0}, ratio[ROUNDS], run_ratio[MAX_RUNS], sorted[MAX_RUNS];
    for (int k = 0; ok && k < 2; k++) ok = passcode_verify(k ? service : embedded, good, strlen(good)) == PASSCODE_OK;  /* warm */
    /* Pairs, the order alternating, so that a drift of the machine's load hits both alike; a
     * run's ratio is the median of its pairs' ratios (the means are printed too), and the row
     * is the median run, every run's ratio listed. */
    for (int run = 0; ok && run < runs; run++) {
        took[run][0] = took[run][1] = 0;
        for (int r = 0; ok && r < ROUNDS; r++) {
            double pair[2] = {0, 0};
            for (int j = 0; j < 2; j++) {
                int k = (r + j) % 2;
                double t = now_seconds();
                ok = ok && passcode_verify(k ? service : embedded, good, strlen(good)) == PASSCODE_OK;
                pair[k] = now_seconds() - t;
                took[run][k] += pair[k];
            }
            ratio[r] = pair[0] > 0 ? pair[1] / pair[0] : 0;
        }
        qsort(ratio, ROUNDS, sizeof *ratio, compare_doubles);
        run_ratio[run] = sorted[run] = ratio[ROUNDS / 2];
    }
    qsort(sorted, (size_t)runs, sizeof *sorted, compare_doubles);
    double middle = sorted[(runs - 1) / 2];
    int at = 0;
    while (at < runs - 1 && run_ratio[at] != middle) at++;
    for (int k = 0; ok && k < 2; k++) {
        int32_t v;
        /* The first query of a handle in service mode asks passcoded to push the store (Watch);
         * the row is the queries after it, answered from what was pushed. */
        ok = passcode_failed_attempts(k ? service : embedded, &v) == PASSCODE_OK;
        double t = now_seconds();
        for (int q = 0; q < QUERIES; q++) ok = ok && passcode_failed_attempts(k ? service : embedded, &v) == PASSCODE_OK;
        query[k] = (now_seconds() - t) / QUERIES;
    }
    printf("BENCH verify through passcoded vs embedded (Argon2id ops %llu, %llu MiB, both on tmpfs): %.4f s vs %.4f s a verify (means of %d), "
           "median of the pairs' ratios %.3fx, the median of %d runs (bar <= 1.03x: %s); each run's:", ops, mem >> 20,
           took[at][1] / ROUNDS, took[at][0] / ROUNDS, ROUNDS, middle, runs, middle <= 1.03 ? "within" : "MISSED");
    for (int run = 0; run < runs; run++) printf(" %.3f", run_ratio[run]);
    printf("\n");
    printf("BENCH cached query (passcode_failed_attempts, pushed by passcoded): embedded %.2f us, through passcoded %.2f us a call "
           "(bar <= 2 us: %s): %.1fx embedded (report)\n",
           query[0] * 1e6, query[1] * 1e6, query[1] <= 2e-6 ? "within" : "MISSED", query[0] > 0 ? query[1] / query[0] : 0.0);
    CHECK_MSG(ok, "bench: every call succeeded on both back ends (%s)", passcode_strerror(rc));
    passcode_close(embedded);
    passcode_close(service);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: service_faults MODE APP_ID GOOD|CALLS [ARGS]\n"); return 100; }
    const char *mode = argv[1];
    app = argv[2];
    good = argv[3];
    if (strcmp(mode, "killverify") == 0) killverify();
    else if (strcmp(mode, "quitter") == 0) quitter();
    else if (strcmp(mode, "crowd") == 0) crowd(argc > 4 ? atoi(argv[4]) : 100);
    else if (strcmp(mode, "flood") == 0 && argc == 6) flood(atoi(argv[4]), atoi(argv[5]));
    else if (strcmp(mode, "latency") == 0) latency();
    else if (strcmp(mode, "victim") == 0) victim();
    else if (strcmp(mode, "fork") == 0) forked();
    else if (strcmp(mode, "fuzz") == 0 && argc == 5) { good = "902714"; fuzz(atol(argv[3]), strtoull(argv[4], NULL, 10)); }
    else if (strcmp(mode, "bench") == 0 && argc == 6) bench(argv[4], argv[5]);
    else { fprintf(stderr, "service_faults: unknown mode or arguments\n"); return 100; }
    return tl_failures_status();
}
