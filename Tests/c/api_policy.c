/* C API tests: the library defends its own policy. A change that weakens protection needs the
 * passcode entered on the handle within 5 minutes; nothing changes while the app is locked. */
#include "api_support.h"

#include <sys/wait.h>

static int hook_calls;
static int32_t counting_hook(void *p, const char *k, const char *o, const char *n, char *m, size_t size) {
    (void)p; (void)k; (void)o; (void)n; (void)m; (void)size;
    hook_calls++;
    return 0;
}

typedef struct { int32_t setting; int64_t start, weaker, stronger; } change;

/* The values worth trying for a setting: its choices, or its bounds, its default and their
 * neighbours. Returns the count. */
static size_t probe_values(int32_t setting, int64_t *out, size_t room) {
    size_t n = 0;
    CHECK_STATUS(passcode_setting_choices(setting, out, room, &n), PASSCODE_OK);
    if (n > 0) return n;
    int64_t lo, hi, d;
    CHECK_STATUS(passcode_setting_bounds(setting, &lo, &hi), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_default(setting, &d), PASSCODE_OK);
    int64_t cand[] = {lo, lo < hi ? lo + 1 : lo, d, hi > lo ? hi - 1 : hi, hi};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        size_t j = 0;
        while (j < n && out[j] != cand[i]) j++;
        if (j == n && n < room) out[n++] = cand[i];
    }
    return n;
}

static int weakens(int32_t setting, int64_t from, int64_t to) {
    int32_t w = -1;
    CHECK_STATUS(passcode_setting_weakens(setting, from, to, &w), PASSCODE_OK);
    return w == 1;
}

/* A weakening change of `setting`, asked of the library: from its default when one weakens it,
 * else from the first value that has one; `stronger` is a value reachable from `start` without
 * weakening (-1 when none). Returns 0 for a setting no change weakens. */
static int weakening_change(int32_t setting, change *c) {
    int64_t v[64], d;
    size_t n = probe_values(setting, v, 64);
    CHECK_STATUS(passcode_setting_default(setting, &d), PASSCODE_OK);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t a = 0; a < n; a++) {
            if ((pass == 0) != (v[a] == d)) continue;
            for (size_t b = 0; b < n; b++) {
                if (a == b || !weakens(setting, v[a], v[b])) continue;
                *c = (change){setting, v[a], v[b], -1};
                for (size_t k = 0; k < n; k++)
                    if (k != a && !weakens(setting, v[a], v[k]) && weakens(setting, v[k], v[b])) { c->stronger = v[k]; break; }
                return 1;
            }
        }
    }
    return 0;
}

/* Settings whose weakening change is not made with passcode_setting_set, and where it is. */
static int made_elsewhere(int32_t setting) {
    return setting == PASSCODE_SETTING_LOCK_ENABLED;  /* passcode_disable, which checks the passcode */
}

/* Sets `setting` to `value` (with the fresh proof of passcode_set); when the store's state
 * refuses it, every other on/off setting is turned on first (biometric unlock before "Require
 * on App Launch"). */
static int reach(passcode_store *s, int32_t setting, int64_t value) {
    if (passcode_setting_set(s, setting, value) == PASSCODE_OK) return 1;
    for (int32_t o = 0; passcode_setting_name(o); o++) {
        int64_t lo, hi;
        if (o != setting && passcode_setting_bounds(o, &lo, &hi) == PASSCODE_OK && lo == 0 && hi == 1)
            passcode_setting_set(s, o, 1);
    }
    return passcode_setting_set(s, setting, value) == PASSCODE_OK;
}

static passcode_store *prepared(char *path, size_t size) {
    passcode_store *s = new_store(path, size);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    service_reader(1);  /* service mode: the report is fprintd's answer */
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_OTHER), PASSCODE_OK);
    CHECK_STATUS(passcode_set_settings_hook(s, counting_hook, NULL), PASSCODE_OK);
    return s;
}

static void test_every_setting_has_a_name_default_and_a_weakening_answer(void) {
    int32_t count = 0, weakening = 0;
    for (int32_t i = 0; passcode_setting_name(i); i++, count++) {
        change c;
        weakening += weakening_change(i, &c);
        int64_t d, lo, hi;
        CHECK_STATUS(passcode_setting_default(i, &d), PASSCODE_OK);
        CHECK_STATUS(passcode_setting_bounds(i, &lo, &hi), PASSCODE_OK);
        CHECK(lo <= d && d <= hi);
    }
    /* The names end where the settings do: the next value and -1 are no setting. */
    int64_t d;
    CHECK_STATUS(passcode_setting_default(count, &d), PASSCODE_ERR_MISUSE);
    CHECK(passcode_setting_name(-1) == NULL);
    CHECK(weakening > count / 2);
}

static void test_every_weakening_change_needs_a_fresh_passcode(void) {
    int tested = 0;
    for (int32_t setting = 0; passcode_setting_name(setting); setting++) {
        change change_, *c = &change_;
        if (!weakening_change(setting, c)) continue;
        char path[512];
        passcode_store *s = prepared(path, sizeof path);
        if (made_elsewhere(setting)) {  /* refused here even with a fresh proof */
            CHECK_STATUS(passcode_setting_set(s, setting, c->weaker), PASSCODE_ERR_INVALID_SETTING);
            CHECK(get_setting(s, setting) == c->start);
            passcode_close(s);
            continue;
        }
        if (!reach(s, setting, c->start)) {
            FAIL_MSG("setting %s: cannot reach %lld, the start of its weakening change",
                     passcode_setting_name(setting), (long long)c->start);
        }
        tested++;
        int64_t before = get_setting(s, c->setting);
        CHECK(before == c->start);
        CHECK(weakens(c->setting, before, c->weaker));
        /* No proof (the one passcode_set gave is older than 5 minutes): refused, nothing asked. */
        advance_ms(5 * 60 * 1000 + 1000);
        hook_calls = 0;
        CHECK_STATUS(passcode_setting_set(s, c->setting, c->weaker), PASSCODE_ERR_PASSCODE_REQUIRED);
        CHECK(hook_calls == 0);
        CHECK(get_setting(s, c->setting) == before);
        /* A biometric unlock is no proof. (In service mode passcoded reads the finger through
         * fprintd, which has no reader on the suite's bus here: the call would record the reader
         * missing, and enabling biometrics below would then be refused for that.) */
        if (!service_backend) passcode_biometric_unlock(s, NULL);
        CHECK_STATUS(passcode_setting_set(s, c->setting, c->weaker), PASSCODE_ERR_PASSCODE_REQUIRED);
        /* A strengthening change needs none. */
        if (c->stronger >= 0) {
            CHECK_STATUS(passcode_setting_set(s, c->setting, c->stronger), PASSCODE_OK);
            CHECK(get_setting(s, c->setting) == c->stronger);
        }
        /* The proof: accepted right after it... */
        CHECK_STATUS(passcode_authorize(s, PC1, LEN), PASSCODE_OK);
        advance_ms(5 * 60 * 1000);
        CHECK_STATUS(passcode_setting_set(s, c->setting, c->weaker), PASSCODE_OK);
        CHECK(get_setting(s, c->setting) == c->weaker);
        /* ...and refused 5 minutes and one second after it. */
        if (c->stronger >= 0) {
            CHECK_STATUS(passcode_setting_set(s, c->setting, c->stronger), PASSCODE_OK);
            advance_ms(1000);
            CHECK_STATUS(passcode_setting_set(s, c->setting, c->weaker), PASSCODE_ERR_PASSCODE_REQUIRED);
            CHECK(get_setting(s, c->setting) == c->stronger);
        }
        passcode_close(s);
    }
    CHECK(tested >= 10);
    /* require-biometric-on-launch off, and the custom table. */
    char path[512];
    passcode_store *s = prepared(path, sizeof path);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_TWO_FACTOR_ENABLED, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);  /* proof of passcode_set */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, 1), PASSCODE_OK);
    advance_ms(301000);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    uint32_t none[] = {0};
    CHECK_STATUS(passcode_set_custom_schedule(s, none, 1, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE) == PASSCODE_LOCKOUT_SCHEDULE_APPLE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);  /* a verify is a proof too */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, 0), PASSCODE_OK);
    CHECK_STATUS(passcode_set_custom_schedule(s, none, 1, 0), PASSCODE_OK);
    passcode_close(s);
    /* With no passcode set, nothing needs proof (first setup). */
    passcode_store *fresh = new_store(path, sizeof path);
    CHECK_STATUS(passcode_setting_set(fresh, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(fresh, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_ANDROID), PASSCODE_OK);
    passcode_close(fresh);
    service_reader(0);
}

static void test_no_setting_changes_while_locked(void) {
    char path[512];
    passcode_store *s = prepared(path, sizeof path);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    hook_calls = 0;
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_ERR_APP_LOCKED);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_ERR_APP_LOCKED);
    uint32_t none[] = {0};
    CHECK_STATUS(passcode_set_custom_schedule(s, none, 1, 0), PASSCODE_ERR_APP_LOCKED);
    CHECK(hook_calls == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    passcode_close(s);
    service_reader(0);
}

/* The attack: a later process of a careless host opens the store (the app just
 * launched, so it is locked), tries every way to switch the lockout off, then guesses for 24
 * simulated hours. Under the defaults it gets at most 10 guesses and never finds the passcode. */
static void test_a_later_process_cannot_switch_the_lockout_off(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    advance_ms(3600 * 1000);
    int pipefd[2];
    if (pipe(pipefd) != 0) abort();
    pid_t pid = fork();
    if (pid == 0) {
        passcode_store *a = open_fast(path);
        int32_t refused = 0;
        passcode_event_report(a, PASSCODE_APP_EVENT_LAUNCHED, NULL);
        uint32_t zero[] = {0};
        refused += passcode_set_custom_schedule(a, zero, 1, 0) != PASSCODE_OK;
        refused += passcode_setting_set(a, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_ANDROID) != PASSCODE_OK;
        refused += passcode_setting_set(a, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE) != PASSCODE_OK;
        refused += passcode_setting_set(a, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0) != PASSCODE_OK;
        passcode_event_report(a, PASSCODE_APP_EVENT_FOREGROUND, NULL);  /* a careless host that never locks again */
        refused += passcode_set_custom_schedule(a, zero, 1, 0) != PASSCODE_OK;
        int32_t checked = 0, found = 0;
        int64_t end = the_clock.boot_ms + 24LL * 3600 * 1000;
        for (int guess = 0; the_clock.boot_ms < end && guess < 1000000; guess++) {
            char g[16];
            snprintf(g, sizeof g, "%06d", guess);
            int32_t rc = passcode_verify(a, g, 6);
            if (rc == PASSCODE_OK) { found = 1; break; }
            if (rc == PASSCODE_ERR_WRONG_PASSCODE) checked++;
            if (rc == PASSCODE_ERR_LOCKED_OUT) { advance_ms(passcode_errwait(a) * 1000); guess--; continue; }
            if (rc == PASSCODE_ERR_RESET_REQUIRED) break;
            advance_ms(1000);
        }
        int32_t out[3] = {refused, checked, found};
        if (write(pipefd[1], out, sizeof out) != sizeof out) _exit(1);
        _exit(0);
    }
    int32_t out[3] = {0, 0, 0};
    CHECK(read(pipefd[0], out, sizeof out) == sizeof out);
    waitpid(pid, NULL, 0);
    close(pipefd[0]);
    close(pipefd[1]);
    CHECK(out[0] == 5);   /* every path to a weaker policy refused */
    CHECK(out[1] <= 10);  /* at most 10 guesses checked in 24 hours */
    CHECK(out[2] == 0);   /* the passcode not found */
    printf("careless host: %d weakening calls refused; %d guesses checked in 24 simulated hours; passcode %s\n",
           out[0], out[1], out[2] ? "FOUND" : "not found");
}


/* ---- a passcode's policy belongs to that passcode ---------------------------------------
 * An attacker with a handle of its own (embedded: any code of the host; in service mode: another
 * process of the same uid, its own bus connection) on the victim's store. Each test ends with
 * the attacker guessing the victim's passcode, lockouts waited out on the test clock, and prints
 * the wrong answers it got: at most 10, as the default policy says. */


/* The weakest rules a handle can set: a custom table of one 0 s delay and no maximum, no
 * action at the maximum, an hour of auto-lock, no lock at launch. Returns how many took. */
static int weaken_everything(passcode_store *a) {
    uint32_t zero[1] = {0};
    int took = passcode_set_custom_schedule(a, zero, 1, 0) == PASSCODE_OK;
    took += passcode_setting_set(a, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE) == PASSCODE_OK;
    took += passcode_setting_set(a, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600) == PASSCODE_OK;
    took += passcode_setting_set(a, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0) == PASSCODE_OK;
    took += passcode_setting_set(a, PASSCODE_SETTING_RESET_CODE_LENGTH, 6) == PASSCODE_OK;
    return took;
}

/* Every setting a weakening change could have moved reads its default. */
static int all_defaults(passcode_store *s) {
    int ok = 1;
    for (int32_t i = 0; passcode_setting_name(i); i++) {
        int64_t d = 0, v = get_setting(s, i);
        passcode_setting_default(i, &d);
        if (i == PASSCODE_SETTING_LOCK_ENABLED || i == PASSCODE_SETTING_LAST_PASSWORD_CHANGE) continue;
        if (v != d) {
            printf("  setting %s is %lld, its default %lld\n", passcode_setting_name(i), (long long)v, (long long)d);
            ok = 0;
        }
    }
    return ok;
}

/* Forgot, weaken, forgot: the attacker logs the app out, sets a passcode of its own (a proof),
 * weakens every rule, logs out again; the user sets a new passcode. */
static void test_forgot_weaken_forgot_carries_no_rule(void) {
    char path[512];
    mailbox am = {0}, vm = {0};
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_logout_callback(v, mailbox_logout, &vm), PASSCODE_OK);
    passcode_store *a = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(a), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);  /* the attacker's own passcode: a proof */
    int took = weaken_everything(a);
    CHECK(took == 5);  /* under its own passcode, with its proof, all of it is allowed */
    CHECK_STATUS(passcode_forgot(a), PASSCODE_OK);
    int32_t locked = -1, reason = -1;
    CHECK_STATUS(passcode_lock_state(v, &locked, &reason), PASSCODE_OK);
    CHECK(locked == 1 && reason == PASSCODE_LOCK_REASON_LOGGED_OUT);
    CHECK_STATUS(passcode_set(v, PC2, LEN), PASSCODE_OK);  /* the user sets up again */
    CHECK(all_defaults(v));
    CHECK(all_defaults(a));
    /* The log says what the new passcode reset. */
    passcode_event_log *log = NULL;
    CHECK_STATUS(passcode_event_log_new(v, &log), PASSCODE_OK);
    int said = 0;
    for (size_t i = 0; log && i < passcode_event_log_count(log); i++) {
        int32_t kind = 0;
        int64_t wall = 0;
        const char *detail = NULL;
        if (passcode_event_log_get(log, i, &kind, &wall, &detail) != PASSCODE_OK) continue;
        if (detail && strstr(detail, "safe defaults") && strstr(detail, "max_failure_action")) said = 1;
    }
    passcode_event_log_free(log);
    CHECK(said);
    int found = 0, wrong = attacker_guesses(a, LEN, PC2, 1000, &found);
    printf("forgot, weaken, forgot: %d rules weakened under the attacker's passcode; then %d wrong answers, passcode %s\n",
           took, wrong, found ? "FOUND" : "not found");
    CHECK(wrong <= 10 && !found);
    passcode_close(a);
    passcode_close(v);
}

/* A stale proof: the attacker's handle proved its own passcode; forgot, and the user's new
 * passcode, leave it naming a passcode that is gone. So does a change on another handle. */
static void test_a_proof_dies_with_its_passcode(void) {
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);  /* the attacker's proof */
    CHECK_STATUS(passcode_forgot(a), PASSCODE_OK);
    CHECK_STATUS(passcode_set(v, PC2, LEN), PASSCODE_OK);
    int took = weaken_everything(a);
    CHECK(took == 0);
    CHECK_STATUS(passcode_setting_set(a, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(all_defaults(v));
    /* The user's own handle has the proof its passcode gave. */
    CHECK_STATUS(passcode_setting_set(v, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_OK);
    /* A handle that proved the passcode loses its proof when another handle changes it. */
    passcode_store *b = open_fast(path);
    CHECK_STATUS(passcode_authorize(b, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(v, PC2, LEN, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(b, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_setting_set(v, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);  /* the changer proved the new one */
    CHECK_STATUS(passcode_setting_set(v, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 900), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(v, PASSCODE_SETTING_LOCK_AT_LAUNCH, 1), PASSCODE_OK);
    int found = 0, wrong = attacker_guesses(a, LEN, PC1, 300, &found);
    printf("a stale proof: %d of 5 weakening calls took after the new passcode; then %d wrong answers, passcode %s\n",
           took, wrong, found ? "FOUND" : "not found");
    CHECK(wrong <= 10 && !found);
    passcode_close(b);
    passcode_close(a);
    passcode_close(v);
}

/* Rules and a length set while no passcode exists (before the first setup, and while logged
 * out) do not outlive the next first passcode. */
static void test_rules_set_before_the_first_passcode_do_not_outlive_it(void) {
    for (int round = 0; round < 2; round++) {
        char path[512];
        mailbox am = {0};
        passcode_store *v = new_store(path, sizeof path);
        passcode_store *a = open_fast(path);
        if (round == 1) {  /* logged out: the attacker's forgot after the user's first passcode */
            CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
            CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
            CHECK_STATUS(passcode_forgot(a), PASSCODE_OK);
        }
        int took = weaken_everything(a);
        CHECK(took == (round == 0 ? 5 : 0));  /* no passcode: nothing to prove; logged out: the app is locked */
        CHECK_STATUS(passcode_set_length(a, 4), PASSCODE_OK);
        int32_t alen = 0, vlen = 0;
        CHECK_STATUS(passcode_length(a, &alen), PASSCODE_OK);
        CHECK_STATUS(passcode_length(v, &vlen), PASSCODE_OK);
        CHECK(alen == 4 && vlen == LEN);  /* the choice is the attacker's handle's alone */
        CHECK_STATUS(passcode_set(v, "2580", 4), PASSCODE_ERR_FORMAT);
        CHECK_STATUS(passcode_set(v, PC2, LEN), PASSCODE_OK);
        CHECK_STATUS(passcode_length(a, &alen), PASSCODE_OK);
        CHECK(alen == LEN);
        CHECK(all_defaults(v));
        int found4 = 0, wrong4 = attacker_guesses(a, 4, NULL, 100, &found4);
        CHECK(wrong4 == 0);  /* 4 digits are no passcode of this store: refused, not checked */
        int found = 0, wrong = attacker_guesses(a, LEN, PC2, 500, &found);
        printf("rules set %s: %d rules and a length of 4 set; then %d wrong answers, passcode %s\n",
               round ? "while logged out" : "before the first passcode", took, wrong, found ? "FOUND" : "not found");
        CHECK(wrong <= 10 && !found);
        passcode_close(a);
        passcode_close(v);
    }
}

/* The length a handle chose is used by its own first passcode. */
static void test_a_chosen_length_counts_for_its_handle(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_length(s, 4), PASSCODE_OK);
    CHECK(get_setting(s, PASSCODE_SETTING_PASSCODE_LENGTH) == 4);
    CHECK_STATUS(passcode_set(s, "3860", 4), PASSCODE_OK);
    passcode_store *other = open_fast(path);
    int32_t n = 0;
    CHECK_STATUS(passcode_length(other, &n), PASSCODE_OK);
    CHECK(n == 4);  /* the passcode's own length, for every handle */
    CHECK_STATUS(passcode_set_length(other, 6), PASSCODE_ERR_STATE);
    passcode_close(other);
    passcode_close(s);
}

/* Clearing the recovery key needs the app unlocked and a fresh proof, as a weakening change. */
static void test_clearing_the_recovery_key_needs_a_proof(void) {
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    uint8_t rk[32];
    memset(rk, 0x5a, sizeof rk);
    CHECK_STATUS(passcode_set_recovery_key(v, rk, sizeof rk), PASSCODE_OK);
    passcode_store *a = open_fast(path);
    CHECK_STATUS(passcode_clear_recovery_key(a), PASSCODE_ERR_PASSCODE_REQUIRED);
    int32_t has = 0;
    CHECK_STATUS(passcode_has_recovery_key(v, &has), PASSCODE_OK);
    CHECK(has == 1);
    CHECK_STATUS(passcode_event_report(v, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_clear_recovery_key(a), PASSCODE_ERR_APP_LOCKED);
    CHECK_STATUS(passcode_clear_recovery_key(v), PASSCODE_ERR_APP_LOCKED);
    CHECK_STATUS(passcode_has_recovery_key(v, &has), PASSCODE_OK);
    CHECK(has == 1);
    CHECK_STATUS(passcode_verify(v, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_clear_recovery_key(v), PASSCODE_OK);
    CHECK_STATUS(passcode_has_recovery_key(v, &has), PASSCODE_OK);
    CHECK(has == 0);
    passcode_close(a);
    passcode_close(v);
}

void run_policy_tests(void) {
    RUN(test_every_setting_has_a_name_default_and_a_weakening_answer);
    RUN(test_every_weakening_change_needs_a_fresh_passcode);
    RUN(test_no_setting_changes_while_locked);
    RUN(test_a_later_process_cannot_switch_the_lockout_off);
    RUN(test_forgot_weaken_forgot_carries_no_rule);
    RUN(test_a_proof_dies_with_its_passcode);
    RUN(test_rules_set_before_the_first_passcode_do_not_outlive_it);
    RUN(test_a_chosen_length_counts_for_its_handle);
    RUN(test_clearing_the_recovery_key_needs_a_proof);
}
