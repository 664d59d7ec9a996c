/* passcoded lets a uid's calls overlap where one waits on its
 * host's hook. Each test is a same-uid attacker on connections of its own (each handle is a bus
 * connection in service mode) against the app's handle. Service mode only: embedded, a handle's
 * hooks run in-process and test_across_change_* (api_policy_across_passcode_change.c) already cover the windows. */
#include "api_support.h"

#define SERVICE_ONLY_TEST() do { mark_test("embedded-only", "a same-uid attacker on passcoded's overlapping calls"); \
    if (!service_backend) return; } while (0)

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}


/* ---- 1. (a known limit, see run_overlapping_calls_tests) ------------------------------------------- */

/* ---- 2. the victim's proof, made while the attacker's call waits, is not the attacker's ----- */

typedef struct {
    passcode_store *v;
    int32_t set_rc, weaken_rc;
    pthread_t thread;
    int started;
} proof_window;

static void *victim_sets_and_weakens(void *p) {
    proof_window *w = p;
    w->set_rc = passcode_set(w->v, PC2, LEN);
    w->weaken_rc = passcode_setting_set(w->v, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600);
    return NULL;
}

static int32_t attacker_settings_window(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t n) {
    (void)key; (void)old; (void)new_value; (void)msg; (void)n;
    proof_window *w = p;
    if (!w->started) {
        w->started = 1;
        pthread_create(&w->thread, NULL, victim_sets_and_weakens, w);
        sleep(3);
    }
    return 0;
}

static void test_overlap_victims_proof_made_during_the_wait(void) {
    SERVICE_ONLY_TEST();
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path);
    proof_window w = {.v = v};
    CHECK_STATUS(passcode_set_settings_hook(a, attacker_settings_window, &w), PASSCODE_OK);
    /* No passcode yet: the weakening needs no proof before the hook; the user's passcode and
     * proof come while the hook waits. */
    int32_t rc = passcode_setting_set(a, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0);
    if (w.started) pthread_join(w.thread, NULL);
    int64_t lal = get_setting(v, PASSCODE_SETTING_LOCK_AT_LAUNCH), al = get_setting(v, PASSCODE_SETTING_AUTO_LOCK_SECONDS);
    int found = 0, wrong = attacker_guesses(a, 6, PC2, 100, &found);
    printf("overlapping calls: the user's passcode and proof while the attacker's weakening waits: attacker %s, user set %s, user's own "
           "weakening %s; lock_at_launch %lld, auto-lock %lld; then %d wrong answers, passcode %s\n", passcode_strerror(rc),
           passcode_strerror(w.set_rc), passcode_strerror(w.weaken_rc), (long long)lal, (long long)al, wrong, found ? "FOUND" : "not found");
    CHECK(w.started && w.set_rc == PASSCODE_OK);
    CHECK(rc == PASSCODE_ERR_PASSCODE_REQUIRED && lal == 1);
    CHECK(w.weaken_rc == PASSCODE_OK && al == 3600);  /* the user's own proof holds */
    CHECK(wrong <= 10 && !found);
    passcode_close(a);
    passcode_close(v);
}

/* ---- 3. the store removed and made again while the attacker's weakening waits -------------- */

typedef struct {
    passcode_store *remover, *v;
    int32_t remove_rc, set_rc;
    pthread_t thread;
    int started;
} remove_window;

static void *remove_then_victim_sets(void *p) {
    remove_window *w = p;
    w->remove_rc = passcode_store_remove(w->remover, NULL, 0);
    w->set_rc = passcode_set(w->v, PC2, LEN);
    return NULL;
}

static int32_t attacker_settings_remove_window(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t n) {
    (void)key; (void)old; (void)new_value; (void)msg; (void)n;
    remove_window *w = p;
    if (!w->started) {
        w->started = 1;
        pthread_create(&w->thread, NULL, remove_then_victim_sets, w);
        sleep(3);
    }
    return 0;
}

static void test_overlap_store_removed_during_the_wait(void) {
    SERVICE_ONLY_TEST();
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    remove_window w = {.remover = a2, .v = v};
    CHECK_STATUS(passcode_set_settings_hook(a, attacker_settings_remove_window, &w), PASSCODE_OK);
    uint32_t zero[1] = {0};
    int32_t rc = passcode_set_custom_schedule(a, zero, 1, 0);
    if (w.started) pthread_join(w.thread, NULL);
    int64_t sched = get_setting(v, PASSCODE_SETTING_LOCKOUT_SCHEDULE);
    int32_t set = -1;
    CHECK_STATUS(passcode_is_set(v, &set), PASSCODE_OK);
    int found = 0, wrong = attacker_guesses(a, 6, PC2, 100, &found);
    printf("overlapping calls: the store removed (no passcode) and the user's first passcode while the attacker's custom schedule waits: "
           "remove %s, user set %s, attacker %s (%s); schedule %lld; then %d wrong answers, passcode %s\n",
           passcode_strerror(w.remove_rc), passcode_strerror(w.set_rc), passcode_strerror(rc), passcode_errmsg(a), (long long)sched,
           wrong, found ? "FOUND" : "not found");
    CHECK(w.started && w.remove_rc == PASSCODE_OK && w.set_rc == PASSCODE_OK && set == 1);
    CHECK(rc != PASSCODE_OK && sched == 0);
    CHECK(wrong <= 10 && !found);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

/* ---- 4. the app's removal waits on its hook; meanwhile forgot, removal, a new passcode ------- */

typedef struct {
    passcode_store *a, *a3;
    int32_t forgot_rc, remove_rc, set_rc;
    pthread_t thread;
    int started;
} victim_remove_window;

static void *attacker_replaces_store(void *p) {
    victim_remove_window *w = p;
    w->forgot_rc = passcode_forgot(w->a);
    w->remove_rc = passcode_store_remove(w->a, NULL, 0);
    w->set_rc = passcode_set(w->a3, PC3, LEN);  /* a handle of its own: `a` answers STORE_REMOVED now */
    return NULL;
}

static int32_t victim_slow_removed_hook(void *p, int32_t event, char *msg, size_t n) {
    (void)msg; (void)n;
    victim_remove_window *w = p;
    if (event == PASSCODE_LIFECYCLE_EVENT_REMOVED && !w->started) {
        w->started = 1;
        pthread_create(&w->thread, NULL, attacker_replaces_store, w);
        sleep(3);
    }
    return 0;
}

static void test_overlap_apps_removal_across_a_replaced_store(void) {
    SERVICE_ONLY_TEST();
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    passcode_store *a = open_fast(path), *a3 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    victim_remove_window w = {.a = a, .a3 = a3};
    CHECK_STATUS(passcode_set_lifecycle_callback(v, victim_slow_removed_hook, &w), PASSCODE_OK);
    int32_t rc = passcode_store_remove(v, PC1, LEN);
    char msg[300];
    snprintf(msg, sizeof msg, "%s", passcode_errmsg(v));
    if (w.started) pthread_join(w.thread, NULL);
    passcode_store *probe = open_fast(path);
    int32_t set = -1, fails = failures(probe);
    CHECK_STATUS(passcode_is_set(probe, &set), PASSCODE_OK);
    int32_t verify_a = passcode_verify(probe, PC3, LEN);
    printf("overlapping calls: the app's removal waits on its hook while another process forgets, removes and sets a passcode: forgot %s, "
           "remove %s, set %s; the app's removal %s (%s); afterwards passcode set %d, failures %d, the new passcode %s\n",
           passcode_strerror(w.forgot_rc), passcode_strerror(w.remove_rc), passcode_strerror(w.set_rc), passcode_strerror(rc), msg,
           set, fails, passcode_strerror(verify_a));
    CHECK(w.started);
    /* The app's passcode is never tried on the store that replaced the one it proved. */
    CHECK(rc == PASSCODE_ERR_STORE_REMOVED && fails == 0);
    passcode_close(probe);
    passcode_close(a3);
    passcode_close(a);
    passcode_close(v);
}

/* ---- 5. the proofs passcoded keeps for a uid are all dropped by its 1024th new entry ------- */

static void test_overlap_proof_book_flushed_by_the_same_uid(void) {
    SERVICE_ONLY_TEST();
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);  /* the app's proof */
    CHECK_STATUS(passcode_setting_set(v, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 1800), PASSCODE_OK);  /* it holds */
    /* The attacker: a length chosen on one app id of its own, a new connection each time, closed. */
    char apaths[1][512];
    new_path(apaths[0], sizeof apaths[0], "other.db");
    double t = mono_s();
    int made = 0;
    for (int i = 0; i < 1100; i++) {
        passcode_store *a = open_fast(apaths[0]);
        if (passcode_set_length(a, 8) == PASSCODE_OK) made++;
        passcode_close(a);
    }
    double took = mono_s() - t;
    int32_t rc = passcode_setting_set(v, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600);
    printf("overlapping calls: 1100 same-uid connections, one after another, choosing a length on one app id of their own (%d ok, %.1f s): the app's weakening with its "
           "fresh proof then %s (%s)\n", made, took, passcode_strerror(rc), passcode_errmsg(v));
    CHECK(rc == PASSCODE_OK);
    passcode_close(v);
}

/* ---- 6. a host that dies inside its hook ---------------------------------------------------- */

static int32_t dying_lifecycle(void *p, int32_t event, char *msg, size_t n) {
    (void)p; (void)event; (void)msg; (void)n;
    _exit(0);
}

static void test_overlap_host_dies_in_its_hook(void) {
    SERVICE_ONLY_TEST();
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    fflush(stdout);
    double t = mono_s();
    pid_t pid = fork();
    if (pid == 0) {
        mailbox m = {0};
        passcode_store *a = open_fast(path);
        passcode_set_logout_callback(a, mailbox_logout, &m);
        passcode_set_lifecycle_callback(a, dying_lifecycle, NULL);
        passcode_forgot(a);
        _exit(3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    usleep(200000);
    int32_t set = -1;
    int32_t q = passcode_is_set(v, &set);
    int32_t ver = passcode_verify(v, PC1, LEN);
    printf("overlapping calls: a same-uid host exits inside its forgot's lifecycle hook (exit %d): then the app's query %s, passcode set %d, "
           "verify %s, %.2f s\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, passcode_strerror(q), set, passcode_strerror(ver), mono_s() - t);
    CHECK(q == PASSCODE_OK && set == 1 && ver == PASSCODE_OK);
    passcode_close(v);
}

/* ---- 7. a host hook that calls back into its own handle ------------------------------------ */

typedef struct { passcode_store *s; int32_t rc; double took; } reentrant;

static int32_t reentrant_settings(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t n) {
    (void)key; (void)old; (void)new_value; (void)msg; (void)n;
    reentrant *r = p;
    int32_t set = -1;
    double t = mono_s();
    r->rc = passcode_is_set(r->s, &set);
    r->took = mono_s() - t;
    return 0;
}

static void test_overlap_hook_calls_back_into_its_handle(void) {
    SERVICE_ONLY_TEST();
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    reentrant r = {.s = v, .rc = -1};
    CHECK_STATUS(passcode_set_settings_hook(v, reentrant_settings, &r), PASSCODE_OK);
    double t = mono_s();
    int32_t rc = passcode_setting_set(v, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60);
    printf("overlapping calls: the app's settings hook calls passcode_is_set on its own handle: inner %s in %.2f s, the change %s in %.2f s\n",
           passcode_strerror(r.rc), r.took, passcode_strerror(rc), mono_s() - t);
    passcode_close(v);
}

void run_overlapping_calls_tests(void) {
    /* test_overlap_held_hook_slots_refuse_the_apps_hooks is a known limit, not a test that passes:
     * two held hook waits of a same-uid process make the app's hook-asking calls HOOK_FAILED at
     * once (a refusal, not a wait; passcoded(8)). */
    RUN(test_overlap_victims_proof_made_during_the_wait);
    RUN(test_overlap_store_removed_during_the_wait);
    RUN(test_overlap_apps_removal_across_a_replaced_store);
    RUN(test_overlap_proof_book_flushed_by_the_same_uid);
    RUN(test_overlap_host_dies_in_its_hook);
    RUN(test_overlap_hook_calls_back_into_its_handle);
}
