/* No host call weakens the lock in passing, and no argument or clock crashes the process
 * host reports change no setting; a launch applies the auto-lock to the time in the
 * background; reset-code limits and expiry by two clocks; no @us fallback for the session
 * keyring; every length checked before a buffer is touched; clock readings out of range refused
 * and time arithmetic that never traps; passcode_close ends the store's flows and wipes every
 * copy of the data key. The calls that could crash run in a child process, so a crash is a
 * failed check here, not the end of test_api. */
#include "api_support.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>

#define KEY 32

/* Runs `fn(arg)` in a child process; true when it exited normally with every check passed.
 * `*signal_out` gets the signal that ended it, 0 when none. */
static int survives(void (*fn)(void *), void *arg, int *signal_out) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int before = tl_failed;
        fn(arg);
        fflush(stdout);
        fflush(stderr);
        _exit(tl_failed == before ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 0;
    if (signal_out) *signal_out = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Every setting's value, to show that a call changed none. */
static void all_settings(passcode_store *s, int64_t out[15]) {
    for (int32_t k = 0; k < 15; k++) out[k] = get_setting(s, k);
}

/* ---- 1. host reports change no setting ------------------------------------------------------ */

/* A store with a passcode, a fingerprint reader, biometric unlock and "Require on App Launch"
 * on, lock at launch off (the passcode was just set: the proof for the weakening change). */
static passcode_store *require_on_launch_store(char *path, size_t size, mailbox *m) {
    passcode_store *s = store_with_passcode(path, size, m);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    return s;
}

/* The GTK front end at start-up with the reader unplugged: it reports biometrics unavailable,
 * then the launch. "Require on App Launch" stays on, the launch locks, and the lock screen asks
 * for the passcode (no biometric prompt). */
static void test_a_missing_reader_changes_no_setting_and_the_launch_locks(void) {
    char path[512];
    mailbox m = {0};
    int32_t locked = -1, reason = -1, lead = -1, refusal = -1;
    int64_t before[15], after[15];
    service_reader(1);  /* service mode: passcoded asks fprintd at each report */
    passcode_store *s = require_on_launch_store(path, sizeof path, &m);
    all_settings(s, before);
    passcode_close(s);
    service_reader(0);  /* unplugged: what fprintd says in service mode, the host's report embedded */
    s = open_fast(path);  /* the next launch */
    CHECK_STATUS(passcode_biometric_set_available(s, 0, PASSCODE_BIOMETRIC_KIND_NONE), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_LAUNCH);
    all_settings(s, after);
    CHECK(memcmp(before, after, sizeof before) == 0);
    CHECK(get_setting(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH) == 1);
    CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
    CHECK(lead == 0);  /* the passcode pad, not a prompt for a reader that is not there */
    if (service_backend) {
        /* The service takes no match from the host: it asks fprintd, whose reader is
         * unplugged; its check says why not. */
        CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_BIOMETRIC_UNAVAILABLE);
        CHECK_STATUS(passcode_biometric_check(s, &refusal), PASSCODE_OK);
    } else {
        CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    }
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_UNAVAILABLE);
    CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* The reader comes back: the user's settings are as they were. */
    service_reader(1);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_check(s, &refusal), PASSCODE_OK);
    CHECK(refusal != PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_UNAVAILABLE);
    all_settings(s, after);
    CHECK(memcmp(before, after, sizeof before) == 0);
    printf("reader missing at launch: require-on-launch %lld, locked %d (reason %d), lead %d\n",
           (long long)after[PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH], locked, reason, lead);
    passcode_close(s);
    service_reader(0);
}

/* Biometric unlock turned off (a strengthening change, no proof) after a biometric-only unlock
 * keeps "Require on App Launch" as it was (it was turned off with no
 * proof and no log entry), so the next launch, 2 hours later, still locks. */
static void test_biometric_off_keeps_require_on_launch(void) {
    /* In service mode the match is passcoded's, read through the fprintd template. */
    service_reader(1);
    char path[512];
    mailbox m = {0};
    int32_t locked = -1, reason = -1, refusal = -1, lead = -1;
    passcode_close(require_on_launch_store(path, sizeof path, &m));
    passcode_store *s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 1);
    service_finger("verify-match");
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);  /* a match, no passcode */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 0), PASSCODE_OK);
    CHECK(get_setting(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH) == 1);
    passcode_close(s);
    advance_ms(2 * 3600 * 1000);
    s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_LAUNCH);
    CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
    CHECK(lead == 0);  /* biometric unlock is off: the passcode pad */
    printf("biometric unlock off after a biometric-only unlock, relaunch 2 h later: require-on-launch %lld, locked %d\n",
           (long long)get_setting(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH), locked);
    passcode_close(s);
    service_reader(0);
}

/* Every host report, in every state (unlocked, locked, each availability and kind): no setting moves. */
static void test_no_host_report_changes_a_setting(void) {
    char path[512];
    mailbox m = {0};
    int32_t out = 0, refusal = 0;
    int64_t before[15], after[15];
    service_reader(1);  /* service mode: each report is fprintd's answer, a reader */
    passcode_store *s = require_on_launch_store(path, sizeof path, &m);
    all_settings(s, before);
    for (int round = 0; round < 2; round++) {
        for (int32_t kind = PASSCODE_BIOMETRIC_KIND_NONE; kind <= PASSCODE_BIOMETRIC_KIND_FINGERPRINT; kind++) {
            CHECK_STATUS(passcode_biometric_set_available(s, kind % 2, kind), PASSCODE_OK);
            for (int32_t e = PASSCODE_APP_EVENT_LAUNCHED; e <= PASSCODE_APP_EVENT_LOCK_NOW; e++) {
                CHECK_STATUS(passcode_event_report(s, e, &out), PASSCODE_OK);
                advance_ms(3600 * 1000);
            }
            CHECK_STATUS(passcode_biometric_failed(s, &out), PASSCODE_OK);
            service_finger("verify-no-match");  /* service mode: what passcoded reads, if it asks */
            passcode_biometric_unlock(s, &refusal);
        }
        CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);  /* round 2 starts unlocked */
    }
    CHECK_STATUS(passcode_biometric_set_available(s, 0, PASSCODE_BIOMETRIC_KIND_NONE), PASSCODE_OK);
    all_settings(s, after);
    CHECK(memcmp(before, after, sizeof before) == 0);
    passcode_close(s);
    service_reader(0);
}

/* ---- 2. a launch applies the auto-lock rule -------------------------------------------------- */

/* Lock at launch off, auto-lock 15 minutes: killed in the background, relaunched 2 hours later:
 * locked (reason background). Relaunched after 1 minute: not locked. */
static void test_a_launch_applies_the_auto_lock_to_the_time_in_the_background(void) {
    char path[512];
    mailbox m = {0};
    int32_t locked = -1, reason = -1;
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    /* 1 minute in the background, killed, relaunched: the timer had not run out. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    passcode_close(s);
    advance_ms(60 * 1000);
    s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 0);
    /* 2 hours in the background, killed, relaunched. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    passcode_close(s);
    advance_ms(2 * 3600 * 1000);
    s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_BACKGROUND);
    printf("killed in the background, relaunched 2 h later, lock at launch off: locked %d (reason %d)\n", locked, reason);
    /* The record is used once: after the unlock, a second launch does not lock again. */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK(locked == 0);
    /* A restart while in the background locks too (time that cannot be measured is never short).
     * Embedded only: a restart is the host clock's boot_id, which service mode does not take. */
    if (service_backend) {
        passcode_close(s);
        return;
    }
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    passcode_close(s);
    the_clock.boot_id++;
    the_clock.boot_ms = 5000;
    s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_RESTART);
    passcode_close(s);
}

/* Another process (a child, with the same fake clock) reports `event` on the store and ends. */
static void report_from_another_process(const char *path, int32_t event) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        passcode_store *other = open_fast(path);
        int rc = passcode_event_report(other, event, NULL);
        passcode_close(other);
        _exit(rc == PASSCODE_OK ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int locked_now(passcode_store *s, int32_t *reason) {
    int32_t locked = -1;
    CHECK_STATUS(passcode_lock_state(s, &locked, reason), PASSCODE_OK);
    return locked;
}

/* Reports do not restart the auto-lock timer: a second BACKGROUND
 * (this process or another) keeps the earliest time; a FOREGROUND from another process applies
 * the rule and keeps the record, so the app's own return 2 hours later locks; the GTK front
 * end's sequence (minimized, 2 h, suspend: BACKGROUND, resume: FOREGROUND, restored) locks. */
static void test_reports_do_not_restart_the_auto_lock_timer(void) {
    char path[512];
    mailbox m = {0};
    int32_t reason = -1;
    int outcomes[4];
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    /* A second BACKGROUND from another process 2 hours in, the return 1 s later. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(2 * 3600 * 1000);
    report_from_another_process(path, PASSCODE_APP_EVENT_BACKGROUND);
    advance_ms(1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, NULL), PASSCODE_OK);
    outcomes[0] = locked_now(s, &reason);
    CHECK(outcomes[0] == 1 && reason == PASSCODE_LOCK_REASON_BACKGROUND);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* The same from this process. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(2 * 3600 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, NULL), PASSCODE_OK);
    outcomes[1] = locked_now(s, NULL);
    CHECK(outcomes[1] == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* A FOREGROUND from another process 1 minute in; the app returns 2 hours later. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(60 * 1000);
    report_from_another_process(path, PASSCODE_APP_EVENT_FOREGROUND);
    CHECK(locked_now(s, NULL) == 0);  /* 1 minute: the rule does not lock yet */
    advance_ms(2 * 3600 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, NULL), PASSCODE_OK);
    outcomes[2] = locked_now(s, NULL);
    CHECK(outcomes[2] == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* The GTK sequence, default lock at launch. */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);   /* minimized */
    advance_ms(2 * 3600 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);   /* prepare for sleep */
    advance_ms(10 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, NULL), PASSCODE_OK);   /* resumed */
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, NULL), PASSCODE_OK);   /* restored */
    outcomes[3] = locked_now(s, NULL);
    CHECK(outcomes[3] == 1);
    /* After the unlock a short trip to the background does not lock (the record went). */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(10 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, NULL), PASSCODE_OK);
    CHECK(locked_now(s, NULL) == 0);
    printf("locked after 2 h: second BACKGROUND from another process %d, from this one %d, FOREGROUND from another "
           "process at 1 min %d, GTK minimize/suspend/resume/restore %d\n", outcomes[0], outcomes[1], outcomes[2], outcomes[3]);
    passcode_close(s);
}

/* Auto-lock and the 48-hour biometric rule count by both clocks: a
 * boot clock that says 1 minute while the wall clock says 2 hours (a process in a time namespace
 * with its boot clock set back) locks; a biometric match 49 wall-clock hours after the passcode,
 * 1 boot-clock hour, is refused. */
static void test_auto_lock_and_the_48_hours_use_both_clocks(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512];
    mailbox m = {0};
    int32_t locked = -1, reason = -1, refusal = -1;
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    passcode_close(s);
    the_clock.boot_ms += 60 * 1000;
    the_clock.wall_ms += 2 * 3600 * 1000;
    s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    locked = locked_now(s, &reason);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_BACKGROUND);
    passcode_close(s);
    s = require_on_launch_store(path, sizeof path, &m);  /* a new store; the passcode just entered */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    the_clock.boot_ms += 3600 * 1000;
    the_clock.wall_ms += 49 * 3600 * 1000;
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_PASSCODE_NOT_USED_FOR_48_HOURS);
    printf("boot clock +1 min, wall clock +2 h: locked %d (reason %d); biometric match at boot +1 h, wall +49 h: "
           "refusal %d\n", locked, reason, refusal);
    passcode_close(s);
}

/* test_api --probe-launch PATH: a relaunch with the real clocks (run under unshare); prints "locked reason". */
int probe_launch(const char *path) {
    passcode_options *o = NULL;
    passcode_store *s = NULL;
    int32_t locked = -1, reason = -1;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (rc == PASSCODE_OK) rc = passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, NULL);
    if (rc == PASSCODE_OK) rc = passcode_lock_state(s, &locked, &reason);
    printf("%d %d %d\n", rc, locked, reason);
    passcode_close(s);
    return 0;
}

/* Whether this kernel lets this user make a time namespace; if not, says NOT RUN (stdout and
 * stderr) with `what` and the reason. */
static int time_namespace_allowed(const char *what) {
    if (system("unshare --user --map-root-user --time --boottime 1 true >/dev/null 2>&1") == 0) return 1;
    char why[512];
    snprintf(why, sizeof why, "time namespace (%s): NOT RUN: 'unshare --user --map-root-user --time' is not allowed "
             "on this kernel or for this user (needs Linux 5.6+ and unprivileged user namespaces); only the fake-clock "
             "test covers it here", what);
    printf("%s\n", why);
    fprintf(stderr, "WARNING %s\n", why);
    return 0;
}

/* A new store on the real clocks (no fake clock) with the passcode PC1. */
static passcode_store *real_clock_store(char *path, size_t size, const char *name) {
    passcode_options *o = NULL;
    passcode_store *s = NULL;
    new_path(path, size, name);
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    return s;
}

/* Runs `./test_api MODE PATH` in a time namespace whose boot clock is `offset` s off; returns its
 * first line (empty on failure). */
static void probe_in_namespace(long offset, const char *mode, const char *path, char *line, size_t size) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "unshare --user --map-root-user --time --boottime %ld ./test_api %s '%s'", offset, mode, path);
    line[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (!fgets(line, (int)size, p)) line[0] = 0;
    pclose(p);
}

/* A time namespace with the real clocks: killed in the background (lock at launch off,
 * auto-lock "immediately": 5 s of grace), relaunched 7 s later inside `unshare --user
 * --map-root-user --time --boottime -6`, whose boot clock says 1 s: locked by the wall clock. */
static void test_a_time_namespace_does_not_skip_the_auto_lock(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512], line[256];
    if (!time_namespace_allowed("auto-lock")) return;
    passcode_store *s = real_clock_store(path, sizeof path, "timens-autolock.db");
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    passcode_close(s);
    sleep(7);
    probe_in_namespace(-6, "--probe-launch", path, line, sizeof line);
    int rc = -1, locked = -1, reason = -1;
    if (sscanf(line, "%d %d %d", &rc, &locked, &reason) != 3) rc = -1;
    CHECK_STATUS(rc, PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_BACKGROUND);
    printf("time namespace (boot clock 6 s behind), relaunched 7 s after going to the background, 5 s auto-lock: "
           "locked %d (reason %d)\n", locked, reason);
}

/* ---- 3. reset-code limits and expiry by two clocks ------------------------------------------- */

/* The boot clock alone moving (what an unprivileged time namespace does) neither lifts the
 * 1-a-minute or 5-a-day limit nor keeps a code alive; the wall clock alone moving forward does
 * not lift them either; both moving does. */
static void test_reset_limits_and_expiry_use_both_clocks(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);  /* the boot and wall clocks apart (both together: api_hooks.c, api_reset_rules.c) */
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    the_clock.boot_ms += 61 * 1000;  /* the boot clock alone */
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_RATE_LIMITED);
    the_clock.boot_ms -= 61 * 1000;
    the_clock.wall_ms += 61 * 1000;  /* the wall clock alone */
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_RATE_LIMITED);
    the_clock.boot_ms += 61 * 1000;  /* both */
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    for (int i = 0; i < 3; i++) {
        advance_ms(61 * 1000);
        CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    }
    /* Five today. A day more on the boot clock alone: still five today by the wall clock. */
    advance_ms(61 * 1000);
    int issued = 0;
    for (int i = 1; i <= 20; i++) {
        the_clock.boot_ms += 25LL * 3600 * 1000;
        if (passcode_reset_request(s) == PASSCODE_OK) issued++;
    }
    CHECK(issued == 0);
    printf("reset codes issued by moving the boot clock 20 days ahead (fake clock): %d\n", issued);
    /* A code's lifetime (15 minutes) ends when the wall clock says so, even if the boot clock
     * stands still. */
    the_clock.wall_ms += 25LL * 3600 * 1000;  /* now a day passed by both */
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    the_clock.wall_ms += 16 * 60 * 1000;
    CHECK_STATUS(passcode_reset_check(s, m.code, strlen(m.code)), PASSCODE_ERR_RESET_CODE_EXPIRED);
    /* And when the boot clock says so, with the wall clock standing still. */
    advance_ms(61 * 1000);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    the_clock.boot_ms += 16 * 60 * 1000;
    CHECK_STATUS(passcode_reset_check(s, m.code, strlen(m.code)), PASSCODE_ERR_RESET_CODE_EXPIRED);
    /* The wall clock set back before the request: the boot clock alone decides (never endless). */
    the_clock.wall_ms -= 10LL * 86400 * 1000;
    the_clock.boot_ms += 61 * 1000;
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_check(s, m.code, strlen(m.code)), PASSCODE_OK);
    passcode_close(s);
}

/* One request made with the boot clock 10 days ahead (a time namespace, same boot id) does not
 * rate-limit the user (the negative boot age counted as "just now"
 * until the real boot clock caught up, 10 days); it gains the attacker no code either. */
static void test_a_boot_clock_ahead_does_not_rate_limit_the_user(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);  /* the boot and wall clocks apart (both together: api_hooks.c, api_reset_rules.c) */
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    const int64_t ahead = 10LL * 86400 * 1000;
    the_clock.boot_ms += ahead;
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);  /* the attacker's */
    the_clock.boot_ms -= ahead;
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_RATE_LIMITED);  /* the interval, by the wall clock */
    advance_ms(65 * 1000);
    int rc65 = passcode_reset_request(s);
    CHECK_STATUS(rc65, PASSCODE_OK);  /* the user's, 65 s later */
    /* Further requests from the namespace: one a minute by the wall clock, five a day. */
    int issued = 0;
    for (int i = 0; i < 20; i++) {
        the_clock.boot_ms += ahead;
        if (passcode_reset_request(s) == PASSCODE_OK) issued++;
        the_clock.boot_ms -= ahead;
        the_clock.wall_ms += 1000;
    }
    CHECK(issued == 0);
    printf("a request from a boot clock 10 days ahead, the user's 65 s later: %s; further requests from there "
           "within 20 s: %d codes\n", passcode_strerror(rc65), issued);
    passcode_close(s);
}

/* test_api --probe-reset PATH: one reset-code request with the real clocks (run under unshare). */
int probe_reset(const char *path) {
    passcode_options *o = NULL;
    passcode_store *s = NULL;
    mailbox m = {0};
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (rc == PASSCODE_OK) rc = passcode_set_reset_delivery_callback(s, mailbox_deliver, &m);
    if (rc == PASSCODE_OK) rc = passcode_reset_request(s);
    printf("%d\n", rc);
    passcode_close(s);
    return 0;
}

/* The attack: `unshare --user --map-root-user --time --boottime N` moves the boot
 * clock of the requesting process days ahead without privilege. With the wall clock holding the
 * limits, no time namespace gets a code past them. */
static void test_a_time_namespace_does_not_lift_the_reset_limits(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512], cmd[1200];
    new_path(path, sizeof path, "timens-reset.db");
    passcode_options *o = NULL;
    passcode_store *s = NULL;
    mailbox m = {0};
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);  /* the real clocks */
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    passcode_close(s);
    if (system("unshare --user --map-root-user --time --boottime 61 true >/dev/null 2>&1") != 0) {
        const char *why = "time namespace (reset limits): NOT RUN: 'unshare --user --map-root-user --time' is not "
                          "allowed on this kernel or for this user (needs Linux 5.6+ and unprivileged user namespaces); "
                          "only the fake-clock test above covers the reset limits here";
        printf("%s\n", why);
        fprintf(stderr, "WARNING %s\n", why);
        return;
    }
    int issued = 0, limited = 0;
    for (int k = 1; k <= 20; k++) {
        /* Each request a day and an hour further ahead on the boot clock than the one before. */
        snprintf(cmd, sizeof cmd, "unshare --user --map-root-user --time --boottime %d ./test_api --probe-reset '%s'",
                 k * 90000, path);
        FILE *p = popen(cmd, "r");
        int status = -1;
        if (p) {
            if (fscanf(p, "%d", &status) != 1) status = -1;
            pclose(p);
        }
        if (status == PASSCODE_OK) issued++;
        if (status == PASSCODE_ERR_RATE_LIMITED) limited++;
    }
    CHECK(issued == 0 && limited == 20);
    printf("time namespace: 20 requests, each with the boot clock a further 25 h ahead: %d codes issued, %d rate-limited\n",
           issued, limited);
}

/* A time namespace ahead, with the real clocks: one request from `unshare ... --boottime
 * +10 days`, then the user's own request after the interval (set to 3 s here, so the test is
 * short): allowed, since the boot clock behind the request is not taken as "just now". */
static void test_a_time_namespace_ahead_does_not_rate_limit_the_user(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512], line[256];
    mailbox m = {0};
    if (!time_namespace_allowed("reset request from a boot clock ahead")) return;
    passcode_store *s = real_clock_store(path, sizeof path, "timens-ahead.db");
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS, 3), PASSCODE_OK);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    probe_in_namespace(864000, "--probe-reset", path, line, sizeof line);
    int attacker = -1;
    if (sscanf(line, "%d", &attacker) != 1) attacker = -1;
    CHECK_STATUS(attacker, PASSCODE_OK);
    sleep(4);
    int user = passcode_reset_request(s);
    CHECK_STATUS(user, PASSCODE_OK);
    printf("time namespace: a request from a boot clock 10 days ahead, the user's 4 s later (interval 3 s): %s\n",
           passcode_strerror(user));
    passcode_close(s);
}

/* ---- 4. no @us fallback ----------------------------------------------------------------------- */

/* The libpasscode entries of a keyring (KEY_SPEC_...), by serial. */
static int ring_entries(int32_t ring, int32_t *ids_out, int max) {
    int32_t ids[256];
    int count = 0;
    long n = syscall(SYS_keyctl, KEYCTL_READ, ring, ids, sizeof ids);
    if (n > (long)sizeof ids) n = sizeof ids;
    for (long i = 0; i < n / 4; i++) {
        char d[256];
        if (syscall(SYS_keyctl, KEYCTL_DESCRIBE, ids[i], d, sizeof d) > 0 && strstr(d, ";libpasscode:")) {
            if (count < max) ids_out[count] = ids[i];
            count++;
        }
    }
    return count;
}

/* The libpasscode entries of the user session keyring (@us), by serial. */
static int us_entries(int32_t *ids_out, int max) {
    return ring_entries(KEY_SPEC_USER_SESSION_KEYRING, ids_out, max);
}

/* test_api --session-kind-child PATH NAME: a process whose session keyring is a new named one
 * (NAME; "-" for a new anonymous one, as pam_keyinit makes): a passcode unlock, then a relaunch
 * and a biometric match. Prints "status refusal entries-in-the-session-keyring". */
int session_kind_child(const char *path, const char *name) {
    int32_t ids[64], refusal = -1;
    uint8_t key[KEY];
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, strcmp(name, "-") ? name : NULL) < 0) {
        printf("-1 -1 -1\n");
        return 0;
    }
    passcode_store *s = open_fast(path);
    passcode_verify(s, PC1, LEN);
    passcode_close(s);
    int entries = ring_entries(KEY_SPEC_SESSION_KEYRING, ids, 64);
    s = open_fast(path);  /* the relaunch */
    passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, NULL);
    int32_t rc = passcode_biometric_unlock_key(s, key, KEY, &refusal);
    passcode_close(s);
    printf("%d %d %d\n", rc, refusal, entries);
    return 0;
}

/* test_api --no-session-child PATH: a process whose session keyring is the user's (@us), as a
 * process without one of its own gets: a passcode unlock, then a relaunch and a biometric match.
 * Prints "status refusal new-entries-in-@us", and removes the entries it made there. */
int no_session_child(const char *path) {
    char name[64];
    int32_t before[64], after[64], refusal = -1;
    uint8_t key[KEY];
    snprintf(name, sizeof name, "_uid_ses.%u", (unsigned)getuid());
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name) < 0) { printf("-1 -1 -1\n"); return 0; }
    int n_before = us_entries(before, 64);
    passcode_store *s = open_fast(path);
    passcode_verify(s, PC1, LEN);
    passcode_close(s);
    int n_after = us_entries(after, 64);
    s = open_fast(path);  /* the relaunch */
    passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, NULL);
    int32_t rc = passcode_biometric_unlock_key(s, key, KEY, &refusal);
    passcode_close(s);
    for (int i = 0; i < n_after && i < 64; i++) {  /* leave @us as it was */
        int old = 0;
        for (int j = 0; j < n_before && j < 64; j++) old |= before[j] == after[i];
        if (!old) syscall(SYS_keyctl, KEYCTL_INVALIDATE, after[i]);
    }
    printf("%d %d %d\n", rc, refusal, n_after - n_before);
    return 0;
}

static void test_no_user_keyring_fallback(void) {
    EMBEDDED_ONLY(ONLY_PROCESS);
    char path[512], line[256] = "";
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    passcode_close(s);
    CHECK(run_self("--no-session-child", path, the_clock.boot_id, line, sizeof line));
    int rc = -2, refusal = -2, added = -2;
    CHECK(sscanf(line, "%d %d %d", &rc, &refusal, &added) == 3);
    CHECK(rc != -1);  /* the child could join @us */
    CHECK(added == 0);
    CHECK_STATUS(rc, PASSCODE_ERR_NO_SESSION_KEYRING);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY);
    printf("no session keyring of its own: %d entries put in @us, biometric unlock after relaunch: %s\n",
           added, passcode_strerror(rc));
}

/* A named session keyring (`keyctl session NAME`: the user may link and search it, so another
 * login session of the same user can join it or link it into its own) is treated like none
 * no entry, NO_SESSION_KEYRING. The anonymous one pam_keyinit
 * makes keeps working. */
static void test_a_named_session_keyring_is_no_session_keyring(void) {
    EMBEDDED_ONLY(ONLY_PROCESS);
    char path[512], line[256] = "", control[256] = "";
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    passcode_close(s);
    CHECK(run_self("--session-kind-child", path, the_clock.boot_id, line, sizeof line));
    int rc = -2, refusal = -2, entries = -2, crc = -2, crefusal = -2, centries = -2;
    CHECK(sscanf(line, "%d %d %d", &rc, &refusal, &entries) == 3);
    CHECK(rc != -1);  /* the child could join it */
    CHECK_STATUS(rc, PASSCODE_ERR_NO_SESSION_KEYRING);
    CHECK(entries == 0);
    CHECK(run_self("--session-kind-child-anonymous", path, the_clock.boot_id, control, sizeof control));
    CHECK(sscanf(control, "%d %d %d", &crc, &crefusal, &centries) == 3);
    CHECK_STATUS(crc, PASSCODE_OK);
    CHECK(centries == 1);
    printf("named session keyring: %d entries, biometric unlock after relaunch: %s; anonymous (pam_keyinit's): "
           "%d entry, %s\n", entries, passcode_strerror(rc), centries, passcode_strerror(crc));
}

/* ---- 5. every length checked before a buffer is touched ------------------------------------ */

typedef struct { char path[512]; } length_case;

static void call_with_huge_lengths(void *arg) {
    length_case *c = arg;
    passcode_store *s = open_fast(c->path);
    uint8_t key[KEY], out[64];
    size_t got = 0;
    int32_t refusal = -1;
    char code[] = "12345678";
    passcode_flow *f = NULL;
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK(failures(s) == 0);  /* nothing was checked or counted */
    CHECK_STATUS(passcode_biometric_unlock_key(s, key, SIZE_MAX, &refusal), PASSCODE_ERR_MISUSE);
    /* The length is checked before the handle: MISUSE even for an invalid flow. */
    CHECK_STATUS(passcode_flow_take_key(NULL, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_take_key((passcode_flow *)&refusal, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
    for (const char *p = PC1; *p; p++) passcode_flow_digit(f, *p - '0');
    CHECK_STATUS(passcode_flow_take_key(f, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_take_key(f, key, KEY), PASSCODE_OK);  /* the failed call did not use it up */
    passcode_flow_free(f);
    /* Every other exported function with a length, SIZE_MAX each: a status, no crash. */
    CHECK_STATUS(passcode_verify(s, PC1, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_authorize(s, PC1, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, PC1, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_change(s, PC1, SIZE_MAX, PC2, LEN), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_disable(s, PC1, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_remove(s, PC1, SIZE_MAX), PASSCODE_ERR_FORMAT);
    /* In service mode a TPM binding is refused whatever its arguments (the service decides it). */
    CHECK_STATUS(passcode_tpm_bind(s, PC1, SIZE_MAX), service_backend ? PASSCODE_ERR_REFUSED_IN_SERVICE_MODE : PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_tpm_unbind(s, PC1, SIZE_MAX), service_backend ? PASSCODE_ERR_REFUSED_IN_SERVICE_MODE : PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_reset_check(s, code, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_reset_complete(s, code, SIZE_MAX, PC2, LEN), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_reset_complete(s, code, 8, PC2, SIZE_MAX), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_reset_complete_with_recovery_key(s, code, 8, PC2, LEN, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set_recovery_key(s, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_seal(s, key, SIZE_MAX, out, sizeof out, &got), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_seal(s, key, SIZE_MAX / 2, out, sizeof out, &got), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_unseal(s, key, SIZE_MAX, out, sizeof out, &got), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_password_change_check(s, "old", SIZE_MAX, "new password", 12, "new password", 12), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, "new password", SIZE_MAX, "new password", 12), PASSCODE_ERR_PASSWORD_TOO_LONG);
    CHECK_STATUS(passcode_password_change_check(s, "old", 3, "new password", 12, "new password", SIZE_MAX), PASSCODE_ERR_PASSWORD_MISMATCH);
    uint32_t delays[1] = {60};
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, SIZE_MAX, 10), PASSCODE_ERR_INVALID_SETTING);
    int64_t values[1];
    size_t count = 0;
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, values, 1, &count), PASSCODE_ERR_BUFFER_TOO_SMALL);
    passcode_session_list *list = NULL;
    const char *text = NULL;
    int32_t current = 0;
    int64_t active = 0;
    CHECK_STATUS(passcode_session_list_new(s, &list), PASSCODE_OK);
    CHECK_STATUS(passcode_session_list_get(list, SIZE_MAX, &text, &text, &text, &active, &text, &current), PASSCODE_ERR_MISUSE);
    passcode_session_list_free(list);
    passcode_event_log *log = NULL;
    int32_t kind = 0;
    CHECK_STATUS(passcode_event_log_new(s, &log), PASSCODE_OK);
    CHECK_STATUS(passcode_event_log_get(log, SIZE_MAX, &kind, &active, &text), PASSCODE_ERR_MISUSE);
    passcode_event_log_free(log);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    CHECK_STATUS(passcode_options_set_pepper(o, key, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 1, SIZE_MAX), PASSCODE_ERR_MISUSE);
    passcode_options_free(o);
    passcode_close(s);
}

/* Runs `calls` in a child on a new store with a passcode; true when it passed, `*sig` the
 * signal that ended it. */
static int survives_on_a_store(void (*calls)(void *), int *sig) {
    length_case c;
    mailbox m = {0};
    passcode_close(store_with_passcode(c.path, sizeof c.path, &m));
    *sig = 0;
    int ok = survives(calls, &c, sig);
    CHECK(ok);
    return ok;
}

static void test_every_length_is_checked_before_a_buffer_is_touched(void) {
    int sig = 0;
    int ok = survives_on_a_store(call_with_huge_lengths, &sig);
    printf("key_length SIZE_MAX (unlock_key, biometric_unlock_key, flow_take_key, invalid flows) and every other "
           "length: %s\n", ok ? "a status each, no crash" : sig ? strsignal(sig) : "a wrong status");
}

/* A buffer of `size` bytes that ends where a PROT_NONE page begins, filled with 0xAA: a write
 * past it is a SIGSEGV. */
static uint8_t *guarded(size_t size) {
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    mprotect(m + page, (size_t)page, PROT_NONE);
    memset(m + page - size, 0xAA, size);
    return m + page - size;
}

static int untouched(const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) if (b[i] != 0xAA) return 0;
    return 1;
}

/* Impossible lengths with a buffer smaller than they say, and before the handle is checked:
 * MISUSE, and not a byte written (the key calls zeroed
 * min(length, 32) bytes first, so a 16-byte buffer with SIZE_MAX and a NULL handle crashed). */
static void call_with_impossible_sizes(void *arg) {
    length_case *c = arg;
    passcode_store *s = open_fast(c->path);
    uint8_t *small = guarded(16);
    int32_t refusal = -1;
    passcode_flow *bogus = (passcode_flow *)&refusal;
    CHECK_STATUS(passcode_flow_take_key(NULL, small, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_take_key(bogus, small, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_unlock_key(NULL, PC1, LEN, small, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_unlock_key((passcode_store *)&refusal, PC1, LEN, small, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_biometric_unlock_key(NULL, small, SIZE_MAX, &refusal), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, small, 16), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, small, SIZE_MAX), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_biometric_unlock_key(s, small, PTRDIFF_MAX, &refusal), PASSCODE_ERR_MISUSE);
    CHECK(untouched(small, 16));
    CHECK(failures(s) == 0);
    int64_t *one = (int64_t *)(void *)guarded(sizeof(int64_t));
    size_t count = 0;
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, one, SIZE_MAX, &count), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, one, SIZE_MAX / 8 + 1, &count), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, one, (size_t)1 << 44, &count), PASSCODE_ERR_MISUSE);
    CHECK(untouched((const uint8_t *)one, sizeof(int64_t)));
    /* seal and unseal with the key released: lengths from 2^38 to SIZE_MAX, capacities up to
     * SIZE_MAX, a 64 KiB buffer: MISUSE each, nothing read or written. */
    uint8_t key[KEY];
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
    static uint8_t buf[1 << 16];
    size_t got = 0;
    const uint64_t lengths[] = {(UINT64_C(1) << 32) + 53, (UINT64_C(1) << 38) + 100, UINT64_C(1) << 40, UINT64_C(1) << 47,
                                UINT64_C(1) << 62, (uint64_t)INT64_MAX - 52, (uint64_t)INT64_MAX - 51, (uint64_t)INT64_MAX, UINT64_MAX};
    const uint64_t capacities[] = {sizeof buf, UINT64_C(1) << 47, (uint64_t)INT64_MAX, UINT64_MAX};
    int refused = 0, calls = 0;
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
        for (size_t k = 0; k < sizeof capacities / sizeof *capacities; k++) {
            memset(buf, 0xAA, sizeof buf);
            refused += passcode_seal(s, buf, lengths[i], buf, capacities[k], &got) == PASSCODE_ERR_MISUSE;
            refused += passcode_unseal(s, buf, lengths[i], buf, capacities[k], &got) == PASSCODE_ERR_MISUSE;
            calls += 2;
            CHECK(untouched(buf, sizeof buf));
        }
    CHECK(refused == calls);
    /* A real length with an impossible capacity (2^47 and more, or past the end of the address
     * space): refused too, nothing written to a 16-byte buffer; a real one still works. */
    CHECK_STATUS(passcode_seal(s, key, 5, buf, SIZE_MAX, &got), PASSCODE_ERR_MISUSE);
    const uint64_t out_capacities[] = {UINT64_C(1) << 47, UINT64_C(1) << 62, (uint64_t)INT64_MAX - 52, (uint64_t)INT64_MAX};
    for (size_t k = 0; k < 4; k++) {
        CHECK_STATUS(passcode_seal(s, key, 5, small, out_capacities[k], &got), PASSCODE_ERR_MISUSE);
        CHECK_STATUS(passcode_unseal(s, buf, 60, small, out_capacities[k], &got), PASSCODE_ERR_MISUSE);
    }
    CHECK_STATUS(passcode_seal(s, key, 5, (uint8_t *)(uintptr_t)(UINTPTR_MAX - 15), 64, &got), PASSCODE_ERR_MISUSE);
    CHECK(untouched(small, 16));
    CHECK_STATUS(passcode_seal(s, key, 5, buf, sizeof buf, &got), PASSCODE_OK);
    CHECK(got == 5 + passcode_seal_overhead());
    printf("impossible sizes before the handle or with a small buffer: %d of %d seal/unseal calls refused, "
           "key and choices buffers untouched\n", refused, calls);
    passcode_close(s);
}

static void test_impossible_sizes_touch_no_buffer(void) {
    int sig = 0;
    int ok = survives_on_a_store(call_with_impossible_sizes, &sig);
    if (!ok) printf("impossible sizes: %s\n", sig ? strsignal(sig) : "a wrong status or a buffer written");
}

/* ---- 6. clocks out of range, time arithmetic ------------------------------------------------- */

static const int64_t extremes[8] = {
    0, 1, -1, INT64_C(2305843009213693951) /* 2^61 - 1, the largest accepted */, INT64_C(2305843009213693952),
    INT64_MAX - 1, INT64_MAX, INT64_MIN,
};

static int in_boot_range(int64_t v) { return v >= 0 && v <= extremes[3]; }
static int in_wall_range(int64_t v) { return v >= -extremes[3] && v <= extremes[3]; }

typedef struct { char path[512]; int64_t boot, wall; } clock_case;

/* Every call that reads the clock, at one extreme reading, then at a normal one again. A
 * reading out of range is refused with CLOCK_OUT_OF_RANGE and changes nothing. */
static void call_at_extreme_clock(void *arg) {
    clock_case *c = arg;
    mailbox m = {0};
    int32_t i32 = 0;
    int64_t i64 = 0;
    uint8_t key[KEY];
    passcode_flow *f = NULL;
    the_clock.boot_ms = 1000000;
    the_clock.wall_ms = 1700000000000LL;
    passcode_store *s = open_fast(c->path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(s, mailbox_logout, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    for (int k = 0; k < 5; k++) wrong_guess(s, k, PASSCODE_ERR_WRONG_PASSCODE);  /* a lockout */
    the_clock.boot_ms = c->boot;
    the_clock.wall_ms = c->wall;
    int refused = !(in_boot_range(c->boot) && in_wall_range(c->wall));
    char wal[600];
    size_t db_len = 0, wal_len = 0;
    snprintf(wal, sizeof wal, "%s-wal", c->path);
    char *db_before = slurp(c->path, &db_len), *wal_before = slurp(wal, &wal_len);
    for (int round = 0; round < 2; round++) {
        int32_t rc[24];
        int n = 0;
        rc[n++] = passcode_reset_request(s);
        rc[n++] = passcode_reset_retry_after(s, &i64);
        rc[n++] = passcode_reset_pending(s, &i32);
        rc[n++] = passcode_reset_check(s, m.code, strlen(m.code));
        rc[n++] = passcode_verify(s, PC2, LEN);
        rc[n++] = passcode_authorize(s, PC1, LEN);
        rc[n++] = passcode_lockout_remaining(s, &i64);
        rc[n++] = passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &i32);
        rc[n++] = passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, &i32);
        rc[n++] = passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &i32);
        rc[n++] = passcode_biometric_check(s, &i32);
        rc[n++] = passcode_biometric_lead(s, &i32);
        rc[n++] = passcode_biometric_unlock(s, &i32);
        rc[n++] = passcode_biometric_unlock_key(s, key, KEY, &i32);
        rc[n++] = passcode_biometric_failed(s, &i32);
        rc[n++] = passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60);
        rc[n++] = passcode_password_change_check(s, "old", 3, "new password", 12, "new password", 12);
        rc[n++] = passcode_unlock_key(s, PC1, LEN, key, KEY);
        if (passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &f) == PASSCODE_OK) {
            for (const char *p = PC1; *p; p++) passcode_flow_digit(f, *p - '0');
            rc[n++] = passcode_flow_refresh(f);
            rc[n++] = passcode_flow_lockout_remaining(f, &i64);
            passcode_flow_free(f);
            f = NULL;
        }
        rc[n++] = passcode_reset_complete(s, m.code, strlen(m.code), PC3, LEN);
        rc[n++] = passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &i32);
        CHECK_STATUS(passcode_failure_summary(s, &i32, &i64), PASSCODE_OK);  /* reads no clock */
        for (int k = 0; k < n; k++) {
            CHECK(strcmp(passcode_strerror(rc[k]), "unknown status") != 0 && rc[k] != PASSCODE_ERR_INTERNAL);
            CHECK(rc[k] != PASSCODE_ERR_CORRUPT);  /* an accepted extreme reading stores nothing a later read refuses */
            if (round == 0 && refused) CHECK_STATUS(rc[k], PASSCODE_ERR_CLOCK_OUT_OF_RANGE);
            if (round == 1 || !refused) CHECK(rc[k] != PASSCODE_ERR_CLOCK_OUT_OF_RANGE);
        }
        if (round == 0 && refused) CHECK(same_file(c->path, db_before, db_len) && same_file(wal, wal_before, wal_len));
        the_clock.boot_ms = 1000000;  /* round 2: a normal clock again, the store still works */
        the_clock.wall_ms = 1700000000000LL;
    }
    free(db_before);
    free(wal_before);
    passcode_close(s);
}

static void test_extreme_clock_readings_are_refused_never_a_crash(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    int crashed = 0, wrong = 0, refused = 0;
    for (int b = 0; b < 8; b++) {
        for (int w = 0; w < 8; w++) {
            clock_case c;
            new_path(c.path, sizeof c.path, "clock.db");
            c.boot = extremes[b];
            c.wall = extremes[w];
            int sig = 0;
            if (!survives(call_at_extreme_clock, &c, &sig)) {
                if (sig) crashed++; else wrong++;
                fprintf(stderr, "FAIL clock boot=%lld wall=%lld: %s\n", (long long)c.boot, (long long)c.wall,
                        sig ? strsignal(sig) : "a wrong status");
            }
            refused += !(in_boot_range(c.boot) && in_wall_range(c.wall));
        }
    }
    CHECK(crashed == 0 && wrong == 0);
    printf("extreme clocks: 64 boot/wall combinations x every time-using call: %d crashed, %d wrong; "
           "%d combinations refused with CLOCK_OUT_OF_RANGE\n", crashed, wrong, refused);
}

/* A clock that reads right once after it is armed, and out of range (wall INT64_MAX) after that. */
static int glitch_armed, glitch_reads;
static void glitching_clock(void *payload, int64_t *boot_ms, int64_t *wall_ms, uint64_t *boot_id) {
    clock_cb(payload, boot_ms, wall_ms, boot_id);
    if (glitch_armed && glitch_reads++ > 0) *wall_ms = INT64_MAX;
}

/* A clock glitch during passcode_verify: the clock is read and
 * checked once at the start and that reading is used throughout, so a correct passcode is
 * never left counted as a failure behind a CLOCK_OUT_OF_RANGE (12 such calls reached the
 * maximum-failure action before). */
static void test_a_clock_glitch_mid_call_counts_no_correct_passcode(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512];
    mailbox m = {0};
    passcode_close(store_with_passcode(path, sizeof path, &m));
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_clock(o, glitching_clock, &the_clock), PASSCODE_OK);
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    int ok = 0;
    for (int i = 0; i < 12; i++) {
        glitch_armed = 1;
        glitch_reads = 0;
        ok += passcode_verify(s, PC1, LEN) == PASSCODE_OK;
        glitch_armed = 0;
        advance_ms(1000);
    }
    int32_t failed = -1;
    CHECK_STATUS(passcode_failed_attempts(s, &failed), PASSCODE_OK);
    CHECK(ok == 12 && failed == 0);
    printf("12 verifies of the correct passcode, the clock out of range after its first read: %d OK, "
           "%d failures counted\n", ok, failed);
    passcode_close(s);
}

/* ---- 7. passcode_close ends the store's flows and wipes every copy of the key ---------------- */

#define MASK 0x5a

/* Copies of the key (known only masked, so that this test keeps no copy itself) in the
 * process's own readable anonymous and heap memory, read in place from /proc/self/maps. */
static int key_copies_in_memory(const uint8_t masked[KEY]) {
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    int copies = 0;
    if (!maps) return -1;
    while (fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8] = "", name[256] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255[^\n]", &lo, &hi, perms, name) < 3) continue;
        if (perms[0] != 'r') continue;
        if (name[0] && strcmp(name, "[heap]") != 0 && strcmp(name, "[stack]") != 0) continue;  /* files, [vvar], [vdso] */
        const volatile uint8_t *p = (const volatile uint8_t *)lo;
        size_t size = hi - lo;
        for (size_t i = 0; i + KEY <= size; i++) {
            if (p[i] != (uint8_t)(masked[0] ^ MASK)) continue;
            size_t j = 1;
            while (j < KEY && p[i + j] == (uint8_t)(masked[j] ^ MASK)) j++;
            if (j == KEY) copies++;
        }
    }
    fclose(maps);
    return copies;
}

static void test_close_ends_the_flows_and_wipes_every_key_copy(void) {
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], masked[KEY];
    int32_t i32 = 0;
    int64_t i64 = 0;
    const char *text = NULL;
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
    for (int i = 0; i < KEY; i++) masked[i] = key[i] ^ MASK;
    explicit_bzero(key, sizeof key);
    /* A finished unlock flow holds its copy of the key, the handle its own; a second flow waits. */
    passcode_flow *done = NULL, *waiting = NULL;
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &done), PASSCODE_OK);
    for (const char *p = PC1; *p; p++) CHECK_STATUS(passcode_flow_digit(done, *p - '0'), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_state(done, &i32, NULL), PASSCODE_OK);
    CHECK(i32 == PASSCODE_FLOW_STEP_FINISHED);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &waiting), PASSCODE_OK);
    /* Under valgrind (make test-c runs test_api under memcheck too) every byte of the heap the
     * scan reads would be an invalid read: the scan runs in the plain run only. */
    const char *preload = getenv("LD_PRELOAD");
    int under_valgrind = preload && strstr(preload, "vgpreload") != NULL;
    int before = under_valgrind ? -1 : key_copies_in_memory(masked);
    CHECK(under_valgrind || before >= 1);  /* the scan finds the key where it is */
    passcode_close(s);
    int after = under_valgrind ? -1 : key_copies_in_memory(masked);
    CHECK(under_valgrind || after == 0);
    if (under_valgrind) printf("memory scan for the data key: NOT RUN under valgrind (it reads the whole heap); the plain run does it\n");
    else printf("copies of the 32-byte data key in this process's memory: %d before passcode_close, %d after\n", before, after);
    /* Every call on the finished flow: MISUSE. */
    CHECK_STATUS(passcode_flow_digit(done, 3), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_delete(done), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_cancel(done), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_refresh(done), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_state(done, &i32, &i32), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_dots(done, &i32, &i32), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_prompt(done, &text), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_error(done, &text, &i32), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_shakes(done, &i32), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_flow_lockout_remaining(done, &i64), PASSCODE_ERR_MISUSE);
    memset(key, 0xAA, sizeof key);
    CHECK_STATUS(passcode_flow_take_key(done, key, KEY), PASSCODE_ERR_MISUSE);
    CHECK(key[0] == 0 && key[KEY - 1] == 0);
    passcode_flow_free(done);
    passcode_flow_free(waiting);  /* (ended with its store too) */
    /* A lock screen's flow, started before the close and typed into after it, unlocks nothing. */
    s = open_fast(path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &i32), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_UNLOCK, &waiting), PASSCODE_OK);
    passcode_close(s);
    for (const char *p = PC1; *p; p++) CHECK_STATUS(passcode_flow_digit(waiting, *p - '0'), PASSCODE_ERR_MISUSE);
    passcode_flow_free(waiting);
    s = open_fast(path);
    CHECK_STATUS(passcode_lock_state(s, &i32, NULL), PASSCODE_OK);
    CHECK(i32 == 1);
    passcode_close(s);
}

void run_robustness_tests(void) {
    RUN(test_a_missing_reader_changes_no_setting_and_the_launch_locks);
    RUN(test_no_host_report_changes_a_setting);
    RUN(test_biometric_off_keeps_require_on_launch);
    RUN(test_a_launch_applies_the_auto_lock_to_the_time_in_the_background);
    RUN(test_reports_do_not_restart_the_auto_lock_timer);
    RUN(test_auto_lock_and_the_48_hours_use_both_clocks);
    RUN(test_a_time_namespace_does_not_skip_the_auto_lock);
    RUN(test_reset_limits_and_expiry_use_both_clocks);
    RUN(test_a_time_namespace_does_not_lift_the_reset_limits);
    RUN(test_a_boot_clock_ahead_does_not_rate_limit_the_user);
    RUN(test_a_time_namespace_ahead_does_not_rate_limit_the_user);
    RUN(test_no_user_keyring_fallback);
    RUN(test_a_named_session_keyring_is_no_session_keyring);
    RUN(test_every_length_is_checked_before_a_buffer_is_touched);
    RUN(test_impossible_sizes_touch_no_buffer);
    RUN(test_extreme_clock_readings_are_refused_never_a_crash);
    RUN(test_a_clock_glitch_mid_call_counts_no_correct_passcode);
    RUN(test_close_ends_the_flows_and_wipes_every_key_copy);
}
