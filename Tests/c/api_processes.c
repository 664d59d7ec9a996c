/* C API tests: processes, threads, write-ahead counting, lock state, biometrics. */
#include "api_support.h"

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

/* fork() while another thread opens and closes stores: the child's own store calls must never
 * wait for a lock the other thread held at the fork (SQLite's allocator and VFS locks: the
 * library takes them around every fork, Sources/shared/CSQLite/loader.c). Each child opens a
 * store of its own, asks it a question and closes it, under a watchdog: a child that has not
 * ended within 5 s (a hundred times what it takes; 60 s under valgrind) is killed by its SIGALRM
 * and counted as hung. Counts, not times. */
typedef struct { const char *path; volatile int stop; int opens; } opener_arg;

static void *opener_main(void *p) {
    opener_arg *a = p;
    while (!a->stop) {
        passcode_store *s = open_fast(a->path);
        int32_t v;
        passcode_is_set(s, &v);
        passcode_close(s);
        a->opens++;
    }
    return NULL;
}

static void test_fork_while_another_thread_opens(void) {
    EMBEDDED_ONLY(ONLY_PROCESS);
    const char *preload = getenv("LD_PRELOAD");
    int valgrind = preload && strstr(preload, "vgpreload") != NULL;
    int forks = valgrind ? 10 : 100;  /* valgrind: a few */
    char busy[512], mine[512];
    new_path(busy, sizeof busy, "opened-in-a-loop.db");
    passcode_close(open_fast(busy));
    opener_arg a = { busy, 0, 0 };
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, opener_main, &a) == 0, "a thread to open stores");
    int hung = 0, failed = 0;
    for (int i = 0; i < forks; i++) {
        new_path(mine, sizeof mine, "child.db");
        /* The child says how its calls went on a pipe, not by its exit status: under valgrind a
         * child's exit reports the parent's thread's memory, which the child never frees. */
        int told[2];
        REQUIRE(pipe(told) == 0, "a pipe");
        pid_t pid = fork();
        if (pid == 0) {
            close(told[0]);
            alarm(valgrind ? 60 : 5);
            passcode_store *c = NULL;
            passcode_options *o = fast_options();
            int ok = passcode_open(mine, o, &c) == PASSCODE_OK;
            int32_t v = -1;
            ok = ok && passcode_is_set(c, &v) == PASSCODE_OK && v == 0;
            passcode_close(c);
            if (write(told[1], ok ? "y" : "n", 1) != 1) _exit(2);
            _exit(ok ? 0 : 1);
        }
        close(told[1]);
        char answer = 0;
        ssize_t got = read(told[0], &answer, 1);
        close(told[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) hung++;
        else if (got != 1 || answer != 'y') failed++;
    }
    a.stop = 1;
    pthread_join(t, NULL);
    printf("fork while another thread opens: %d forks (%d opens beside them): %d children hung, %d failed\n",
           forks, a.opens, hung, failed);
    CHECK_MSG(hung == 0 && failed == 0, "%d of %d children hung, %d failed", hung, forks, failed);
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
    EMBEDDED_ONLY(ONLY_COST);
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
        /* The log agrees with the counter: the failure was logged in the write-ahead transaction. */
        int32_t logged = 0;
        CHECK_STATUS(passcode_failure_summary(after, &logged, NULL), PASSCODE_OK);
        CHECK(logged == round + 1);
        passcode_close(after);
    }
    s = open_fast(path);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK(failures(s) == 0);
    int32_t told = 0;
    CHECK_STATUS(passcode_failure_summary(s, &told, NULL), PASSCODE_OK);
    CHECK(told == 3);  /* "3 failed attempts since your last unlock" */
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
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 0);  /* no passcode: nothing locks */
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, 42, &locked), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(2000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK(locked == 0);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(10000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
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
    CHECK_STATUS(passcode_event_report(t, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(reason == PASSCODE_LOCK_REASON_LAUNCH);
    passcode_close(t);
    passcode_close(s);
}

static void test_biometrics_through_the_c_api(void) {
    /* In service mode passcoded reads the finger through the fprintd template (service_finger). */
    service_reader(1);
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
    /* In service mode the kind is fprintd's (a fingerprint reader is there), not the host's word. */
    CHECK(strcmp(label, service_backend ? "Passcode & Fingerprint" : "Passcode & Face ID") == 0);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_security_label(s, &label), PASSCODE_OK);
    CHECK(strcmp(label, "Passcode & Fingerprint") == 0);  /* fprintd on Linux */
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT + 1), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_security_label(s, &label), PASSCODE_OK);
    CHECK(strcmp(label, "Passcode & Fingerprint") == 0);  /* the refused call changed nothing */
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    int32_t refusal = -1;
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_check(s, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_NOT_ENABLED);
    CHECK_STATUS(passcode_biometric_check(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    /* Per boot, as on iOS: a launch in the boot of the last passcode entry may unlock by biometrics... */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, NULL), PASSCODE_OK);
    service_finger("verify-match");
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE);
    /* ...unless the host wants the passcode after every launch (a strengthening: no proof). */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_FIRST_UNLOCK_AFTER_LAUNCH);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    service_finger("verify-match");
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE);
    int32_t count = 0;
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    for (int i = 0; i < 5; i++) CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
    CHECK(count == 5);
    CHECK_STATUS(passcode_biometric_unlock(s, NULL), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_TOO_MANY_BIOMETRIC_FAILURES);
    int32_t locked = 0;
    passcode_lock_state(s, &locked, NULL);
    CHECK(locked == 1);
    passcode_close(s);
    service_reader(0);
}

/* ---- cached answers ---------------------------------------------------------------------- */

/* Every cheap query the library answers from its cache (until another connection commits),
 * read twice so that the second answer can come from the cache. */
typedef struct {
    int32_t is_set, is_enabled, length, failed, reset_required, locked, reason, refusal, lead;
    int64_t lockout, auto_lock, lock_switch;
    const char *label;
} answers;

/* The one-call snapshot must say what the single calls say at the same moment. */
static void check_lock_screen_agrees(passcode_store *s, const answers *a) {
    passcode_lock_screen v;
    memset(&v, 0x5a, sizeof v);
    v.size = sizeof v;
    CHECK_STATUS(passcode_lock_screen_read(s, &v), PASSCODE_OK);
    CHECK(v.size == sizeof v);
    CHECK(v.locked == a->locked && v.reason == a->reason && v.lockout_seconds == a->lockout);
    CHECK(v.failed_attempts == a->failed && v.reset_required == a->reset_required);
    CHECK(v.biometric_refusal == a->refusal && v.biometric_lead == a->lead);
    CHECK(v.passcode_set == a->is_set && v.lock_enabled == a->is_enabled);
    CHECK(v.security_label == a->label);  /* the same static string */
}

static answers ask(passcode_store *s) {
    answers a[2];
    memset(a, 0, sizeof a);
    for (int i = 0; i < 2; i++) {
        CHECK_STATUS(passcode_is_set(s, &a[i].is_set), PASSCODE_OK);
        CHECK_STATUS(passcode_is_enabled(s, &a[i].is_enabled), PASSCODE_OK);
        CHECK_STATUS(passcode_length(s, &a[i].length), PASSCODE_OK);
        CHECK_STATUS(passcode_failed_attempts(s, &a[i].failed), PASSCODE_OK);
        CHECK_STATUS(passcode_is_reset_required(s, &a[i].reset_required), PASSCODE_OK);
        CHECK_STATUS(passcode_lock_state(s, &a[i].locked, &a[i].reason), PASSCODE_OK);
        CHECK_STATUS(passcode_biometric_check(s, &a[i].refusal), PASSCODE_OK);
        CHECK_STATUS(passcode_lockout_remaining(s, &a[i].lockout), PASSCODE_OK);
        CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &a[i].auto_lock), PASSCODE_OK);
        CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_LOCK_ENABLED, &a[i].lock_switch), PASSCODE_OK);
        CHECK_STATUS(passcode_biometric_lead(s, &a[i].lead), PASSCODE_OK);
        CHECK_STATUS(passcode_security_label(s, &a[i].label), PASSCODE_OK);
        check_lock_screen_agrees(s, &a[i]);
    }
    CHECK(memcmp(&a[0], &a[1], sizeof a[0]) == 0);  /* the cached answer is the read one */
    return a[0];
}

/* One change, made by the child process on its own open handle when told. */
static int child_step(passcode_store *c, int step) {
    uint32_t minute[] = {0, 60};
    switch (step) {
    case 1: return passcode_set(c, PC1, LEN) == PASSCODE_OK;
    case 2: return passcode_setting_set(c, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300) == PASSCODE_OK;
    case 3: return passcode_verify(c, PC2, LEN) == PASSCODE_ERR_WRONG_PASSCODE;
    case 4: return passcode_set_custom_schedule(c, minute, 2, 0) == PASSCODE_OK
                && passcode_verify(c, PC3, LEN) == PASSCODE_ERR_WRONG_PASSCODE;
    case 5: return passcode_event_report(c, PASSCODE_APP_EVENT_LOCK_NOW, NULL) == PASSCODE_OK;
    case 6: return passcode_disable(c, PC1, LEN) == PASSCODE_ERR_LOCKED_OUT;  /* refused: nothing changes */
    default: return 0;
    }
}

/* A child process that keeps the store at `path` open and runs child_step(step) for each step
 * the parent writes to *go, answering 1 or 0 on *done. */
static pid_t start_stepper(const char *path, int *go, int *done) {
    int to[2], from[2];
    CHECK(pipe(to) == 0 && pipe(from) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        passcode_store *c = open_fast(path);
        char step;
        while (read(to[0], &step, 1) == 1) {
            char ok = (char)child_step(c, step);
            if (write(from[1], &ok, 1) != 1) _exit(2);
        }
        passcode_close(c);
        _exit(0);
    }
    close(to[0]);
    close(from[1]);
    *go = to[1];
    *done = from[0];
    return pid;
}

/* Has the child make one change; 1 when it did as expected. */
static int step_child(int go, int done, char step) {
    char ok = 0;
    return write(go, &step, 1) == 1 && read(done, &ok, 1) == 1 && ok == 1;
}

/* Ends the child; 1 when it exited cleanly. */
static int stop_stepper(pid_t pid, int go, int done) {
    close(go);
    close(done);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A lock screen polls these queries; the library answers them from memory until the store's
 * change stamp moves. A change another process commits must show at the very next call: the
 * child keeps its handle open and changes one thing per step; the parent, whose answers are
 * warm in its cache, asks once right after each step. */
static void test_cached_answers_follow_another_process(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    answers before = ask(s);
    CHECK(before.is_set == 0 && before.is_enabled == 0 && before.length == 6 && before.failed == 0);
    CHECK(before.auto_lock == 900 && before.lock_switch == 0 && before.locked == 0);
    int go, done;
    pid_t pid = start_stepper(path, &go, &done);
    answers now = before;
    for (char step = 1; step <= 6; step++) {
        for (int i = 0; i < 100; i++) (void)ask(s);  /* warm */
        CHECK(step_child(go, done, step));
        answers was = now;
        now = ask(s);
        switch (step) {
        case 1: CHECK(now.is_set == 1 && now.is_enabled == 1 && now.lock_switch == 1 && was.is_set == 0); break;
        case 2: CHECK(now.auto_lock == 300 && was.auto_lock == 900); break;
        case 3: CHECK(now.failed == 1 && was.failed == 0 && now.lockout == 0); break;
        case 4: CHECK(now.failed == 2 && now.lockout == 60 && now.refusal != PASSCODE_BIOMETRIC_REFUSAL_NONE); break;
        case 5: CHECK(now.locked == 1 && now.reason == PASSCODE_LOCK_REASON_REQUESTED && was.locked == 0); break;
        case 6: CHECK(memcmp(&now, &was, sizeof now) == 0); break;  /* a refused call commits nothing */
        }
    }
    CHECK(stop_stepper(pid, go, done));
    /* The clock moves, the file does not: the lockout counts down from the same cached state
     * (advance_ms: in service mode the service's clock moves). */
    advance_ms(25000);
    int64_t left = 0;
    CHECK_STATUS(passcode_lockout_remaining(s, &left), PASSCODE_OK);
    CHECK(left == 35);
    advance_ms(35000);
    CHECK_STATUS(passcode_lockout_remaining(s, &left), PASSCODE_OK);
    CHECK(left == 0);
    passcode_close(s);
}

/* The snapshot alone, warm in its cache, right after each change the other process commits
 * (no single-call query in between that could refresh the cache for it). */
static void test_lock_screen_follows_another_process(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    int go, done;
    pid_t pid = start_stepper(path, &go, &done);
    passcode_lock_screen was, now;
    memset(&now, 0, sizeof now);
    now.size = sizeof now;
    CHECK_STATUS(passcode_lock_screen_read(s, &now), PASSCODE_OK);
    CHECK(now.passcode_set == 0 && now.locked == 0 && now.failed_attempts == 0);
    for (char step = 1; step <= 6; step++) {
        for (int i = 0; i < 100; i++) CHECK_STATUS(passcode_lock_screen_read(s, &now), PASSCODE_OK);  /* warm */
        was = now;
        CHECK(step_child(go, done, step));
        CHECK_STATUS(passcode_lock_screen_read(s, &now), PASSCODE_OK);
        switch (step) {
        case 1: CHECK(now.passcode_set == 1 && now.lock_enabled == 1 && was.passcode_set == 0); break;
        case 2: CHECK(memcmp(&now, &was, sizeof now) == 0); break;  /* the auto-lock is not on the screen */
        case 3: CHECK(now.failed_attempts == 1 && was.failed_attempts == 0 && now.lockout_seconds == 0); break;
        case 4: CHECK(now.failed_attempts == 2 && now.lockout_seconds == 60 && was.lockout_seconds == 0); break;
        case 5: CHECK(now.locked == 1 && now.reason == PASSCODE_LOCK_REASON_REQUESTED && was.locked == 0); break;
        case 6: CHECK(memcmp(&now, &was, sizeof now) == 0); break;  /* a refused call commits nothing */
        }
    }
    CHECK(stop_stepper(pid, go, done));
    /* The clock moves, the file does not: the countdown comes from the cached state. */
    advance_ms(25000);
    CHECK_STATUS(passcode_lock_screen_read(s, &now), PASSCODE_OK);
    CHECK(now.lockout_seconds == 35);
    advance_ms(35000);
    CHECK_STATUS(passcode_lock_screen_read(s, &now), PASSCODE_OK);
    CHECK(now.lockout_seconds == 0 && now.failed_attempts == 2);
    passcode_close(s);
}

/* What a program built against an older, smaller passcode_lock_screen has: the first version's
 * fields only, followed here by memory the library must not touch. */
struct old_lock_screen { size_t size; int32_t locked; int32_t reason; int64_t lockout_seconds; };

static void test_lock_screen_sizes(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    passcode_lock_screen full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    CHECK_STATUS(passcode_lock_screen_read(s, &full), PASSCODE_OK);
    CHECK(full.locked == 1 && full.reason == PASSCODE_LOCK_REASON_REQUESTED && full.failed_attempts == 1);
    CHECK(full.passcode_set == 1 && full.lock_enabled == 1 && full.reset_required == 0);
    CHECK(full.biometric_kind == PASSCODE_BIOMETRIC_KIND_NONE && strcmp(full.security_label, "Passcode & Biometric") == 0);

    /* An older, smaller struct: its fields filled, the bytes after it untouched. */
    struct { struct old_lock_screen v; unsigned char after[64]; } old;
    memset(&old, 0xa5, sizeof old);
    old.v.size = sizeof old.v;
    CHECK_STATUS(passcode_lock_screen_read(s, (passcode_lock_screen *)(void *)&old.v), PASSCODE_OK);
    CHECK(old.v.size == sizeof old.v && old.v.locked == 1 && old.v.reason == PASSCODE_LOCK_REASON_REQUESTED);
    CHECK(old.v.lockout_seconds == full.lockout_seconds);
    int untouched = 1;
    for (size_t i = 0; i < sizeof old.after; i++) untouched &= old.after[i] == 0xa5;
    CHECK(untouched);

    /* A newer, larger struct: the fields this library does not know read 0. */
    struct { passcode_lock_screen v; int64_t newer[4]; unsigned char after[16]; } big;
    memset(&big, 0xa5, sizeof big);
    big.v.size = sizeof big.v + sizeof big.newer;
    CHECK_STATUS(passcode_lock_screen_read(s, &big.v), PASSCODE_OK);
    CHECK(big.v.locked == 1 && big.v.failed_attempts == 1 && big.newer[0] == 0 && big.newer[3] == 0);
    CHECK(big.after[0] == 0xa5 && big.after[15] == 0xa5);

    /* Too small (size unset, or smaller than the first version), a garbage size, NULL: MISUSE,
     * with a message, and the struct unchanged. */
    size_t sizes[] = {0, sizeof(size_t), offsetof(passcode_lock_screen, reason), 4097, (size_t)-1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        passcode_lock_screen bad;
        memset(&bad, 0x5a, sizeof bad);
        bad.size = sizes[i];
        passcode_lock_screen copy = bad;
        CHECK_STATUS(passcode_lock_screen_read(s, &bad), PASSCODE_ERR_MISUSE);
        CHECK(memcmp(&bad, &copy, sizeof bad) == 0);
        CHECK(strstr(passcode_errmsg(s), "sizeof(passcode_lock_screen)") != NULL);
    }
    CHECK_STATUS(passcode_lock_screen_read(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK(strstr(passcode_errmsg(s), "NULL") != NULL);
    CHECK_STATUS(passcode_lock_screen_read(NULL, &full), PASSCODE_ERR_INVALID_HANDLE);
    /* The label follows the reported kind. */
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_screen_read(s, &full), PASSCODE_OK);
    CHECK(full.biometric_kind == PASSCODE_BIOMETRIC_KIND_FINGERPRINT && strcmp(full.security_label, "Passcode & Fingerprint") == 0);
    passcode_close(s);
    CHECK_STATUS(passcode_lock_screen_read(s, &full), PASSCODE_ERR_INVALID_HANDLE);
}

/* Two handles of one process are two connections: one's commit shows in the other's next call. */
static void test_cached_answers_follow_another_handle(void) {
    char path[512];
    passcode_store *a = new_store(path, sizeof path);
    passcode_store *b = open_fast(path);
    for (int round = 0; round < 50; round++) {
        int64_t want = round % 2 ? 60 : 300, got = 0;
        (void)ask(a);
        CHECK_STATUS(passcode_setting_set(b, PASSCODE_SETTING_AUTO_LOCK_SECONDS, want), PASSCODE_OK);
        CHECK_STATUS(passcode_setting_get(a, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &got), PASSCODE_OK);
        CHECK(got == want);
    }
    passcode_close(b);
    passcode_close(a);
}

void run_processes_tests(void) {
    RUN(test_two_processes_see_each_other);
    RUN(test_threads_share_a_handle);
    RUN(test_fork_while_another_thread_opens);
    RUN(test_killed_mid_verify_keeps_the_attempt);
    RUN(test_processes_failing_at_once_count_exactly);
    RUN(test_lock_state_through_the_c_api);
    RUN(test_biometrics_through_the_c_api);
    RUN(test_cached_answers_follow_another_process);
    RUN(test_cached_answers_follow_another_handle);
    RUN(test_lock_screen_follows_another_process);
    RUN(test_lock_screen_sizes);
}
