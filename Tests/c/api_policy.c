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
            fprintf(stderr, "FAIL: setting %s: cannot reach %lld, the start of its weakening change\n",
                    passcode_setting_name(setting), (long long)c->start);
            CHECK(0);
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
        /* A biometric unlock is no proof. */
        passcode_biometric_unlock(s, NULL);
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
}

/* The attack of the issue: a later process of a careless host opens the store (the app just
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

void run_policy_tests(void) {
    RUN(test_every_setting_has_a_name_default_and_a_weakening_answer);
    RUN(test_every_weakening_change_needs_a_fresh_passcode);
    RUN(test_no_setting_changes_while_locked);
    RUN(test_a_later_process_cannot_switch_the_lockout_off);
}
