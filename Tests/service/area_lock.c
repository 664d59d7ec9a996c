/* Lock, app events, biometric policy and the security log through passcoded (run by
 * test_service.py as a test user: area_lock APP_ID GOOD). Where the clock does not matter, the
 * same sequence runs on an embedded store in a temp folder and every status and message is
 * compared; the auto-lock rules across two host processes (this one and a child, exec'd as the
 * same user) move the service's clock, and are checked against the documented rules. */
#include "service_support.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *good;

/* The status of a call on both stores, the same, with the same message, and `want`. */
static void same(const char *what, passcode_store *s, passcode_status rs, passcode_store *e, passcode_status re,
                 passcode_status want) {
    const char *ms = rs != PASSCODE_OK ? passcode_errmsg(s) : "", *me = re != PASSCODE_OK ? passcode_errmsg(e) : "";
    CHECK_MSG(rs == want && re == want && strcmp(ms ? ms : "", me ? me : "") == 0,
              "%s: service %s, embedded %s, want %s; messages \"%s\" / \"%s\"", what, passcode_strerror(rs),
              passcode_strerror(re), passcode_strerror(want), ms ? ms : "", me ? me : "");
}

/* The fprintd template on this bus (test_service.py starts it, with no reader): a call to its
 * control interface, as Tests/c's service_reader does. */
static int fprintd_mock(const char *call) {
    char command[400];
    snprintf(command, sizeof command, "busctl --system call net.reactivated.Fprint /net/reactivated/Fprint/Manager "
             "org.freedesktop.DBus.Mock %s >/dev/null", call);
    return system(command);
}

static int locked_of(passcode_store *st) {
    int locked = -1, reason = -1;
    if (passcode_lock_state(st, &locked, &reason) != PASSCODE_OK) return -1;
    return locked ? 100 + reason : 0;
}

/* ---- the child: a second host process reporting events on its own handle ---- */
static int child_main(const char *app) {
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        int event = -1, locked = -1;
        if (strncmp(line, "quit", 4) == 0) break;
        if (sscanf(line, "event %d", &event) != 1) continue;
        passcode_status st = s ? passcode_event_report(s, event, &locked) : rc;
        fprintf(stderr, "child-answer %d %d\n", (int)st, locked);  /* stderr: the parent's pipe */
        fflush(stderr);
    }
    passcode_close(s);
    return 0;
}

typedef struct { pid_t pid; FILE *to, *from; } child;

static child spawn(const char *app) {
    int down[2], up[2];
    child c = {0, NULL, NULL};
    if (pipe(down) != 0 || pipe(up) != 0) return c;
    c.pid = fork();
    if (c.pid == 0) {
        dup2(down[0], 0);
        dup2(up[1], 2);
        close(down[1]);
        close(up[0]);
        execl("/proc/self/exe", "area_lock", "--child", app, (char *)NULL);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    c.to = fdopen(down[1], "w");
    c.from = fdopen(up[0], "r");
    return c;
}

/* The child's status for `event` (its locked answer in *locked). */
static passcode_status child_event(child *c, int event, int *locked) {
    fprintf(c->to, "event %d\n", event);
    fflush(c->to);
    char line[128];
    int st = -1;
    *locked = -1;
    while (fgets(line, sizeof line, c->from))
        if (sscanf(line, "child-answer %d %d", &st, locked) == 2) return (passcode_status)st;
    return (passcode_status)-1;
}

static void child_quit(child *c) {
    fprintf(c->to, "quit\n");
    fclose(c->to);
    fclose(c->from);
    int status = 0;
    waitpid(c->pid, &status, 0);
}

static passcode_status report(passcode_store *st, int event, int *locked) {
    *locked = -1;
    return passcode_event_report(st, event, locked);
}

/* A service store of its own, passcode set, unlocked, with the auto-lock after 60 s. */
static passcode_store *timed_store(const char *app, int lock_at_launch) {
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    if (!s) return NULL;
    int locked;
    CHECK_STATUS(passcode_set(s, good, strlen(good)), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, lock_at_launch), PASSCODE_OK);
    CHECK_STATUS(report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    return s;
}

static void two_processes(const char *base) {
    char app[128];
    int locked, clocked;

    /* 1. BACKGROUND in A, FOREGROUND in B: A's timer goes on. */
    snprintf(app, sizeof app, "%s.two1", base);
    passcode_store *a = timed_store(app, 1);
    if (!a) { CHECK_MSG(0, "open %s", app); return; }
    child b = spawn(app);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_BACKGROUND, &locked), PASSCODE_OK);
    move_service_clock(30);
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_FOREGROUND, &clocked) == PASSCODE_OK && clocked == 0,
              "31 s after A went to the background, B's FOREGROUND: not locked (%d)", clocked);
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 1 && locked_of(a) == 100 + PASSCODE_LOCK_REASON_BACKGROUND,
              "62 s after A's BACKGROUND, A's FOREGROUND locks (B's FOREGROUND did not restart A's timer): locked %d, state %d",
              locked, locked_of(a));
    CHECK_STATUS(passcode_verify(a, good, strlen(good)), PASSCODE_OK);

    /* The control: A's own FOREGROUND ends A's trip, so 30 s later nothing locks. */
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_BACKGROUND, &locked), PASSCODE_OK);
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 0, "control: A back after 31 s, not locked (%d)", locked);
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 0, "control: A's own FOREGROUND ended its trip: 31 s later still unlocked (%d)", locked);

    /* 2. A second BACKGROUND (from B) restarts no timer. */
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_BACKGROUND, &locked), PASSCODE_OK);
    move_service_clock(30);
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_BACKGROUND, &clocked) == PASSCODE_OK && clocked == 0,
              "B's BACKGROUND 31 s after A's: not locked (%d)", clocked);
    move_service_clock(30);
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_FOREGROUND, &clocked) == PASSCODE_OK && clocked == 1,
              "B's FOREGROUND 31 s after its own BACKGROUND but 62 s after A's: locked (the earliest counts): %d", clocked);
    CHECK_STATUS(passcode_verify(a, good, strlen(good)), PASSCODE_OK);
    child_quit(&b);
    passcode_close(a);

    /* 3. A launch and the process that went to the background: alive, its record stays. */
    snprintf(app, sizeof app, "%s.two3", base);
    a = timed_store(app, 0);
    if (!a) { CHECK_MSG(0, "open %s", app); return; }
    b = spawn(app);
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_BACKGROUND, &clocked) == PASSCODE_OK && clocked == 0, "B goes to the background");
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 0, "A launches 31 s later, lock at launch off: not locked (%d)", locked);
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 1 && locked_of(a) == 100 + PASSCODE_LOCK_REASON_BACKGROUND,
              "B still runs: its record stayed through A's launch; 62 s after it A's FOREGROUND locks (%d)", locked);
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_FOREGROUND, &clocked) == PASSCODE_OK && clocked == 1,
              "B comes back (its own FOREGROUND: the rule applies, and its trip ends): locked (%d)", clocked);
    CHECK_STATUS(passcode_verify(a, good, strlen(good)), PASSCODE_OK);

    /* Gone: B goes to the background and exits; A's launch sees it gone and ends the record. */
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_BACKGROUND, &clocked) == PASSCODE_OK && clocked == 0, "B goes to the background again");
    child_quit(&b);
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 0, "B has exited; A launches 31 s later: not locked (%d)", locked);
    move_service_clock(30);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_FOREGROUND, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 0, "the launch ended the record of the gone process: 62 s after it, A's FOREGROUND does not lock (%d)", locked);

    /* The rule at a launch after a kill still counts the time in the background. */
    b = spawn(app);
    CHECK_MSG(child_event(&b, PASSCODE_APP_EVENT_BACKGROUND, &clocked) == PASSCODE_OK && clocked == 0, "B goes to the background, then is killed");
    kill(b.pid, SIGKILL);
    child_quit(&b);
    move_service_clock(60);
    CHECK_STATUS(report(a, PASSCODE_APP_EVENT_LAUNCHED, &locked), PASSCODE_OK);
    CHECK_MSG(locked == 1 && locked_of(a) == 100 + PASSCODE_LOCK_REASON_BACKGROUND,
              "a launch 61 s after the killed process went to the background locks (%d, state %d)", locked, locked_of(a));
    passcode_close(a);
}

/* The security log of both stores: the same kinds and details, in the same order. */
static void same_logs(passcode_store *s, passcode_store *e, const char *when) {
    passcode_event_log *ls = NULL, *le = NULL;
    CHECK_STATUS(passcode_event_log_new(s, &ls), PASSCODE_OK);
    CHECK_STATUS(passcode_event_log_new(e, &le), PASSCODE_OK);
    size_t n = passcode_event_log_count(ls), ne = passcode_event_log_count(le);
    int alike = n == ne && n > 0, ordered = 1;
    int64_t previous = INT64_MAX;
    for (size_t i = 0; alike && i < n; i++) {
        int32_t ks, ke;
        int64_t ws, we;
        const char *ds, *de;
        passcode_event_log_get(ls, i, &ks, &ws, &ds);
        passcode_event_log_get(le, i, &ke, &we, &de);
        if (ks != ke || strcmp(ds, de) != 0 || ws <= 0) alike = 0;
        if (ws > previous) ordered = 0;
        previous = ws;
        printf("     log %zu: %s \"%s\" / %s \"%s\"\n", i, passcode_event_log_kind_name(ks), ds, passcode_event_log_kind_name(ke), de);
    }
    CHECK_MSG(alike && ordered, "%s: the service's log has the embedded one's %zu entries (%zu there), kinds and details, newest first",
              when, n, ne);
    int32_t k;
    CHECK_STATUS(passcode_event_log_get(ls, n, &k, NULL, NULL), PASSCODE_ERR_MISUSE);
    passcode_event_log_free(ls);
    passcode_event_log_free(le);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--child") == 0) return child_main(argv[2]);
    if (argc != 3) { fprintf(stderr, "usage: area_lock APP_ID GOOD\n"); return 100; }
    signal(SIGPIPE, SIG_IGN);  /* a killed child's pipe */
    good = argv[2];
    const size_t n = strlen(good);
    passcode_status rc;
    passcode_store *s = open_service(argv[1], &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open in service mode: %s", passcode_strerror(rc));
    if (!s) return 1;
    char dir[] = "/tmp/area_lock.XXXXXX", path[64];
    if (!mkdtemp(dir)) return 100;
    snprintf(path, sizeof path, "%s/e.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *e = NULL;
    rc = passcode_open(path, o, &e);
    passcode_options_free(o);
    CHECK_MSG(rc == PASSCODE_OK, "an embedded store to compare with: %s", passcode_strerror(rc));
    if (!e) return 1;

    int ls, le, rs, re, ks, ke;
    int32_t fs, fe;
    int64_t ws, we;
    const char *label_s = NULL, *label_e = NULL;

    /* Events before a passcode: nothing locks; an unknown event is MISUSE. */
    same("an unknown event", s, passcode_event_report(s, 99, &ls), e, passcode_event_report(e, 99, &le), PASSCODE_ERR_MISUSE);
    same("LAUNCHED without a passcode", s, passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_LAUNCHED, &le), PASSCODE_OK);
    CHECK_MSG(ls == 0 && le == 0, "nothing locks without a passcode (%d / %d)", ls, le);
    same("failure summary of a new store", s, passcode_failure_summary(s, &fs, &ws), e, passcode_failure_summary(e, &fe, &we), PASSCODE_OK);
    CHECK_MSG(fs == 0 && fe == 0 && ws == 0 && we == 0, "no failures yet: %d at %lld / %d at %lld", fs, (long long)ws, fe, (long long)we);
    same("failure summary, NULL out", s, passcode_failure_summary(s, NULL, NULL), e, passcode_failure_summary(e, NULL, NULL), PASSCODE_ERR_MISUSE);
    same("event log, NULL out", s, passcode_event_log_new(s, NULL), e, passcode_event_log_new(e, NULL), PASSCODE_ERR_MISUSE);
    passcode_event_log *empty_s = NULL, *empty_e = NULL;
    same("the log of a new store", s, passcode_event_log_new(s, &empty_s), e, passcode_event_log_new(e, &empty_e), PASSCODE_OK);
    CHECK_MSG(empty_s && empty_e && passcode_event_log_count(empty_s) == 0 && passcode_event_log_count(empty_e) == 0,
              "a new store's log is empty (%zu / %zu)", passcode_event_log_count(empty_s), passcode_event_log_count(empty_e));
    passcode_event_log_free(empty_s);
    passcode_event_log_free(empty_e);

    same("set", s, passcode_set(s, good, n), e, passcode_set(e, good, n), PASSCODE_OK);
    same("LAUNCHED", s, passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_LAUNCHED, &le), PASSCODE_OK);
    CHECK_MSG(ls == 1 && le == 1 && locked_of(s) == 100 + PASSCODE_LOCK_REASON_LAUNCH && locked_of(e) == locked_of(s),
              "a launch locks (lock at launch): %d / %d, state %d / %d", ls, le, locked_of(s), locked_of(e));
    same("a wrong passcode", s, passcode_verify(s, "000001", 6), e, passcode_verify(e, "000001", 6), PASSCODE_ERR_WRONG_PASSCODE);
    same("another wrong passcode", s, passcode_verify(s, "000002", 6), e, passcode_verify(e, "000002", 6), PASSCODE_ERR_WRONG_PASSCODE);
    same("failure summary while locked", s, passcode_failure_summary(s, &fs, &ws), e, passcode_failure_summary(e, &fe, &we), PASSCODE_OK);
    CHECK_MSG(fs == 2 && fe == 2 && ws > 0 && we > 0, "2 failures since the last unlock: %d / %d, last at %lld / %lld", fs, fe, (long long)ws, (long long)we);
    same("the right passcode", s, passcode_verify(s, good, n), e, passcode_verify(e, good, n), PASSCODE_OK);
    same("failure summary after the unlock", s, passcode_failure_summary(s, &fs, &ws), e, passcode_failure_summary(e, &fe, &we), PASSCODE_OK);
    CHECK_MSG(fs == 2 && fe == 2 && ws > 0, "after the unlock: the 2 failures before it (%d / %d)", fs, fe);

    /* The TPM is the service's, and this passcoded's configuration names none: its store is not
     * bound (as an embedded store without a binding), and the posture is MISUSE naming
     * passcoded.conf, as for a store opened without the TPM option (tpm_service.c: with one). */
    int32_t bound_s = -1, bound_e = -1;
    same("tpm_is_bound", s, passcode_tpm_is_bound(s, &bound_s), e, passcode_tpm_is_bound(e, &bound_e), PASSCODE_OK);
    CHECK_MSG(bound_s == 0 && bound_e == 0, "not bound to a TPM (%d / %d)", bound_s, bound_e);
    CHECK_STATUS(passcode_tpm_is_bound(s, NULL), PASSCODE_ERR_MISUSE);
    int64_t posture = -1;
    CHECK_STATUS(passcode_tpm_posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH, &posture), PASSCODE_ERR_MISUSE);
    CHECK_MSG(posture == -1 && strstr(passcode_errmsg(s), "passcoded.conf") != NULL, "the posture in service mode: \"%s\"", passcode_errmsg(s));
    CHECK_STATUS(passcode_tpm_posture(e, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH, &posture), PASSCODE_ERR_MISUSE);

    /* LOCK_NOW locks; lock state and the lock screen say so. */
    same("LOCK_NOW", s, passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_LOCK_NOW, &le), PASSCODE_OK);
    passcode_lock_screen screen = {.size = sizeof screen};
    CHECK_STATUS(passcode_lock_screen_read(s, &screen), PASSCODE_OK);
    CHECK_MSG(ls == 1 && le == 1 && locked_of(s) == 100 + PASSCODE_LOCK_REASON_REQUESTED && screen.locked == 1 &&
              screen.reason == PASSCODE_LOCK_REASON_REQUESTED, "LOCK_NOW locks, reason REQUESTED (state %d, screen %d/%d)",
              locked_of(s), screen.locked, screen.reason);
    /* Locked with a passcode entered on the handle a moment ago: a weakening change is refused
     * as embedded (the service does not check the kept passcode, which would unlock the app),
     * the app stays locked, the value stays; and the lock took the data key from the handle. */
    int64_t auto_s = -1, auto_e = -1;
    passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &auto_s);
    passcode_setting_get(e, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &auto_e);
    same("a weakening change while locked (passcode entered before the lock)", s,
         passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), e,
         passcode_setting_set(e, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_ERR_APP_LOCKED);
    int64_t after_s = -1, after_e = -1;
    passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &after_s);
    passcode_setting_get(e, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &after_e);
    CHECK_MSG(after_s == auto_s && after_e == auto_e && locked_of(s) == 100 + PASSCODE_LOCK_REASON_REQUESTED,
              "the value stays (%lld / %lld) and the app stays locked (state %d)", (long long)after_s, (long long)after_e, locked_of(s));
    uint8_t sealed_s[64], sealed_e[64];
    size_t sealed_len = 0;
    same("seal after LOCK_NOW", s, passcode_seal(s, (const uint8_t *)"note", 4, sealed_s, sizeof sealed_s, &sealed_len), e,
         passcode_seal(e, (const uint8_t *)"note", 4, sealed_e, sizeof sealed_e, &sealed_len), PASSCODE_ERR_KEY_NOT_RELEASED);
    same("the right passcode unlocks", s, passcode_verify(s, good, n), e, passcode_verify(e, good, n), PASSCODE_OK);
    same("BACKGROUND", s, passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_BACKGROUND, &le), PASSCODE_OK);
    same("FOREGROUND at once", s, passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_FOREGROUND, &le), PASSCODE_OK);
    CHECK_MSG(ls == 0 && le == 0, "back at once (within the auto-lock time): unlocked (%d / %d)", ls, le);

    /* Biometric policy: a report of availability and kind; the label, check, lead, failures. */
    same("available 2", s, passcode_biometric_set_available(s, 2, 1), e, passcode_biometric_set_available(e, 2, 1), PASSCODE_ERR_MISUSE);
    same("kind 77", s, passcode_biometric_set_available(s, 1, 77), e, passcode_biometric_set_available(e, 1, 77), PASSCODE_ERR_MISUSE);
    same("label before a report", s, passcode_security_label(s, &label_s), e, passcode_security_label(e, &label_e), PASSCODE_OK);
    CHECK_MSG(label_s && label_e && strcmp(label_s, label_e) == 0, "the label before a report: \"%s\" / \"%s\"", label_s, label_e);
    /* In service mode the report is the moment passcoded asks fprintd: with no reader there, a
     * report of Face ID is not taken (the policy reads "unavailable"; the label keeps the host's kind). */
    same("Face ID reported, no reader", s, passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), e,
         passcode_biometric_set_available(e, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    same("label", s, passcode_security_label(s, &label_s), e, passcode_security_label(e, &label_e), PASSCODE_OK);
    CHECK_MSG(label_s && strcmp(label_s, "Passcode & Face ID") == 0 && strcmp(label_s, label_e) == 0, "the label: \"%s\" / \"%s\"", label_s, label_e);
    CHECK_STATUS(passcode_biometric_check(s, &rs), PASSCODE_OK);
    CHECK_MSG(rs == PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_UNAVAILABLE,
              "the host's report of a reader fprintd does not have is not taken: refusal %d (unavailable)", rs);
    /* A reader with a finger (the fprintd template's): the same report is fprintd's "available",
     * a fingerprint, on both back ends from here on. */
    CHECK_MSG(fprintd_mock("AddDevice sas 'Test Sensor' 1 right-index-finger") == 0, "the fprintd template adds a reader");
    same("fingerprint available", s, passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), e,
         passcode_biometric_set_available(e, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    same("label", s, passcode_security_label(s, &label_s), e, passcode_security_label(e, &label_e), PASSCODE_OK);
    CHECK_MSG(label_s && strcmp(label_s, "Passcode & Fingerprint") == 0 && strcmp(label_s, label_e) == 0, "the label: \"%s\" / \"%s\"", label_s, label_e);
    same("a report of no reader while fprintd has one", s, passcode_biometric_set_available(s, 0, PASSCODE_BIOMETRIC_KIND_NONE), e,
         passcode_biometric_set_available(e, 1, PASSCODE_BIOMETRIC_KIND_FINGERPRINT), PASSCODE_OK);
    same("label", s, passcode_security_label(s, &label_s), e, passcode_security_label(e, &label_e), PASSCODE_OK);
    CHECK_MSG(label_s && strcmp(label_s, "Passcode & Fingerprint") == 0 && strcmp(label_s, label_e) == 0,
              "fprintd's reader stays (the host's \"none\" not taken): \"%s\" / \"%s\"", label_s, label_e);
    same("label, NULL out", s, passcode_security_label(s, NULL), e, passcode_security_label(e, NULL), PASSCODE_ERR_MISUSE);
    same("check with biometrics off", s, passcode_biometric_check(s, &rs), e, passcode_biometric_check(e, &re), PASSCODE_OK);
    CHECK_MSG(rs == PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_NOT_ENABLED && rs == re, "biometrics off: refusal %d / %d", rs, re);
    int64_t setting = -1;
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, &setting), PASSCODE_OK);
    CHECK_MSG(setting == 0, "the availability report changed no setting (biometric_enabled %lld)", (long long)setting);
    same("check, NULL out", s, passcode_biometric_check(s, NULL), e, passcode_biometric_check(e, NULL), PASSCODE_ERR_MISUSE);
    same("lead, NULL out", s, passcode_biometric_lead(s, NULL), e, passcode_biometric_lead(e, NULL), PASSCODE_ERR_MISUSE);

    /* The log so far (no setting changed yet: a change with a proof counts a verify in service mode). */
    same_logs(s, e, "before any setting change");

    same("biometrics on", s, passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), e,
         passcode_setting_set(e, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    same("check, unlocked", s, passcode_biometric_check(s, &rs), e, passcode_biometric_check(e, &re), PASSCODE_OK);
    CHECK_MSG(rs == re, "the refusal while unlocked: %d / %d", rs, re);
    same("LOCK_NOW", s, passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_LOCK_NOW, &le), PASSCODE_OK);
    same("check, locked", s, passcode_biometric_check(s, &rs), e, passcode_biometric_check(e, &re), PASSCODE_OK);
    same("lead, locked", s, passcode_biometric_lead(s, &ks), e, passcode_biometric_lead(e, &ke), PASSCODE_OK);
    CHECK_MSG(rs == PASSCODE_BIOMETRIC_REFUSAL_NONE && re == rs && ks == 1 && ke == 1,
              "locked by LOCK_NOW after a passcode: a match may unlock (refusal %d / %d), the prompt leads (%d / %d)", rs, re, ks, ke);
    for (int i = 1; i <= 5; i++) {
        int32_t cs = -1, ce = -1;
        same("a failed match", s, passcode_biometric_failed(s, &cs), e, passcode_biometric_failed(e, &ce), PASSCODE_OK);
        CHECK_MSG(cs == i && ce == i, "failed matches: %d / %d", cs, ce);
    }
    same("check after 5 failed matches", s, passcode_biometric_check(s, &rs), e, passcode_biometric_check(e, &re), PASSCODE_OK);
    same("lead after 5 failed matches", s, passcode_biometric_lead(s, &ks), e, passcode_biometric_lead(e, &ke), PASSCODE_OK);
    CHECK_MSG(rs == PASSCODE_BIOMETRIC_REFUSAL_TOO_MANY_BIOMETRIC_FAILURES && re == rs && ks == 0 && ke == 0,
              "after 5 failed matches: refusal %d / %d, no lead (%d / %d)", rs, re, ks, ke);
    int32_t failures = -1;
    CHECK_STATUS(passcode_failed_attempts(s, &failures), PASSCODE_OK);
    CHECK_MSG(failures == 0, "failed matches do not count as passcode failures (%d)", failures);
    CHECK_MSG(locked_of(s) == 100 + PASSCODE_LOCK_REASON_REQUESTED, "still locked (%d)", locked_of(s));
    same("the passcode unlocks", s, passcode_verify(s, good, n), e, passcode_verify(e, good, n), PASSCODE_OK);

    /* A match the host reports is never taken in service mode: passcoded reads the finger itself
     * through fprintd, and the reader is gone now: N tries, 0 accepted, each BIOMETRIC_UNAVAILABLE. */
    CHECK_MSG(fprintd_mock("RemoveObject o /net/reactivated/Fprint/Device/0") == 0, "the fprintd template removes its reader");
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &ls), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_check(s, &rs), PASSCODE_OK);
    CHECK_MSG(rs == PASSCODE_BIOMETRIC_REFUSAL_NONE, "policy would allow a match now (refusal %d)", rs);
    int accepted = 0, refused = 0;
    unsigned char key[32];
    for (int i = 0; i < 20; i++) {
        int32_t refusal = -1;
        passcode_status a = passcode_biometric_unlock(s, &refusal);
        passcode_status b = passcode_biometric_unlock_key(s, key, sizeof key, &refusal);
        accepted += (a == PASSCODE_OK) + (b == PASSCODE_OK);
        refused += (a == PASSCODE_ERR_BIOMETRIC_UNAVAILABLE) + (b == PASSCODE_ERR_BIOMETRIC_UNAVAILABLE);
    }
    CHECK_MSG(accepted == 0 && refused == 40 && locked_of(s) == 100 + PASSCODE_LOCK_REASON_REQUESTED,
              "40 unlocks without a reader (unlock and unlock_key): %d accepted, %d BIOMETRIC_UNAVAILABLE, still locked", accepted, refused);
    const char *why = passcode_errmsg(s);
    CHECK_MSG(why && strstr(why, "fprintd"), "the answer names fprintd: %s", why ? why : "(null)");
    CHECK_STATUS(passcode_verify(s, good, n), PASSCODE_OK);

    /* The custom lockout table: any change weakens, so it needs the passcode on this handle. */
    uint32_t delays[3] = {0, 0, 30};
    uint32_t many[101] = {0};
    uint32_t huge[1] = {367u * 86400u};
    same("NULL delays", s, passcode_set_custom_schedule(s, NULL, 3, 0), e, passcode_set_custom_schedule(e, NULL, 3, 0), PASSCODE_ERR_MISUSE);
    same("0 delays", s, passcode_set_custom_schedule(s, delays, 0, 0), e, passcode_set_custom_schedule(e, delays, 0, 0), PASSCODE_ERR_INVALID_SETTING);
    same("101 delays", s, passcode_set_custom_schedule(s, many, 101, 0), e, passcode_set_custom_schedule(e, many, 101, 0), PASSCODE_ERR_INVALID_SETTING);
    same("a delay over 366 days", s, passcode_set_custom_schedule(s, huge, 1, 0), e, passcode_set_custom_schedule(e, huge, 1, 0), PASSCODE_ERR_INVALID_SETTING);
    same("max failures 10001", s, passcode_set_custom_schedule(s, delays, 3, 10001), e, passcode_set_custom_schedule(e, delays, 3, 10001),
         PASSCODE_ERR_INVALID_SETTING);
    same("LOCK_NOW", s, passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, &ls), e,
         passcode_event_report(e, PASSCODE_APP_EVENT_LOCK_NOW, &le), PASSCODE_OK);
    /* A fresh handle of each: no passcode entered on it. */
    passcode_store *s2 = open_service(argv[1], &rc), *e2 = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_open(path, o, &e2);
    passcode_options_free(o);
    same("the table while locked", s, passcode_set_custom_schedule(s, delays, 3, 0), e, passcode_set_custom_schedule(e, delays, 3, 0),
         PASSCODE_ERR_APP_LOCKED);
    same("the passcode unlocks", s, passcode_verify(s, good, n), e, passcode_verify(e, good, n), PASSCODE_OK);
    same("the table on a handle without the passcode", s2, passcode_set_custom_schedule(s2, delays, 3, 0), e2,
         passcode_set_custom_schedule(e2, delays, 3, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    int64_t kind_s = -1, kind_e = -1;
    passcode_setting_get(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, &kind_s);
    CHECK_MSG(kind_s == PASSCODE_LOCKOUT_SCHEDULE_APPLE, "refused: the schedule is still Apple's (%lld)", (long long)kind_s);
    same("the table after the passcode", s, passcode_set_custom_schedule(s, delays, 3, 0), e, passcode_set_custom_schedule(e, delays, 3, 0),
         PASSCODE_OK);
    passcode_setting_get(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, &kind_s);
    passcode_setting_get(e, PASSCODE_SETTING_LOCKOUT_SCHEDULE, &kind_e);
    CHECK_MSG(kind_s == PASSCODE_LOCKOUT_SCHEDULE_CUSTOM && kind_e == kind_s, "the custom schedule is selected (%lld / %lld)",
              (long long)kind_s, (long long)kind_e);
    /* Its effect: no wait after the 1st and 2nd failures, 30 s after the 3rd. */
    const char *guesses[3] = {"000003", "000004", "000005"};  /* a repeated guess counts once */
    for (int i = 0; i < 3; i++)
        same("a wrong passcode", s2, passcode_verify(s2, guesses[i], 6), e2, passcode_verify(e2, guesses[i], 6), PASSCODE_ERR_WRONG_PASSCODE);
    int64_t out_s = -1, out_e = -1;
    passcode_lockout_remaining(s2, &out_s);
    passcode_lockout_remaining(e2, &out_e);
    CHECK_MSG(out_s > 25 && out_s <= 30 && out_e > 25 && out_e <= 30, "3 failures under the table {0, 0, 30}: locked out %lld / %lld s",
              (long long)out_s, (long long)out_e);
    same("a guess during the lockout", s2, passcode_verify(s2, good, n), e2, passcode_verify(e2, good, n), PASSCODE_ERR_LOCKED_OUT);
    passcode_close(s2);
    passcode_close(e2);
    /* The log keeps the change (passcoded's check of the passcode shows as an unlock too). */
    passcode_event_log *log = NULL;
    CHECK_STATUS(passcode_event_log_new(s, &log), PASSCODE_OK);
    int found = 0;
    for (size_t i = 0; i < passcode_event_log_count(log); i++) {
        int32_t k = -1;
        const char *detail = NULL;
        passcode_event_log_get(log, i, &k, NULL, &detail);
        if (k == PASSCODE_LOG_KIND_SETTING_CHANGED && detail && strstr(detail, "30")) found++;
    }
    CHECK_MSG(found == 1, "the service's log has the table's change (%d)", found);
    passcode_event_log_free(log);
    passcode_close(s);
    passcode_close(e);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("     (could not remove %s)\n", dir);

    /* Two host processes, the service's clock moved. */
    two_processes(argv[1]);
    return tl_failures_status();
}
