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

typedef struct { int32_t setting; int64_t weaker, stronger; } change;

/* Every weakening change a host can ask for, from the defaults (or a stronger start). */
static const change weakening[] = {
    {PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600, 60},
    {PASSCODE_SETTING_LOCK_AT_LAUNCH, 0, 1},
    {PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_ANDROID, -1},
    {PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE, PASSCODE_MAX_FAILURE_ACTION_FORCED_LOGOUT},
    {PASSCODE_SETTING_BIOMETRIC_ENABLED, 1, 0},
    {PASSCODE_SETTING_TWO_FACTOR_ENABLED, 0, 1},
    {PASSCODE_SETTING_RESET_CODE_LENGTH, 6, 10},
    {PASSCODE_SETTING_RESET_CODE_LIFETIME_SECONDS, 3600, 300},
    {PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS, 10, 120},
    {PASSCODE_SETTING_RESET_REQUESTS_PER_DAY, 20, 2},
};
#define NCHANGES (sizeof weakening / sizeof weakening[0])

static passcode_store *prepared(char *path, size_t size) {
    passcode_store *s = new_store(path, size);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_OTHER), PASSCODE_OK);
    /* Starting points from which each weakening is possible: two-factor on, require-on-launch below. */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_TWO_FACTOR_ENABLED, 1), PASSCODE_OK);
    CHECK_STATUS(passcode_set_settings_hook(s, counting_hook, NULL), PASSCODE_OK);
    return s;
}

static void test_every_weakening_change_needs_a_fresh_passcode(void) {
    for (size_t i = 0; i < NCHANGES; i++) {
        char path[512];
        passcode_store *s = prepared(path, sizeof path);
        const change *c = &weakening[i];
        int64_t before = get_setting(s, c->setting);
        int32_t w = 0;
        CHECK_STATUS(passcode_setting_weakens(c->setting, before, c->weaker, &w), PASSCODE_OK);
        CHECK(w == 1);
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
    /* require-biometric-on-launch off, and the custom table. */
    char path[512];
    passcode_store *s = prepared(path, sizeof path);
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
    CHECK_STATUS(passcode_event_report(s, PASSCODE_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
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
        passcode_event_report(a, PASSCODE_EVENT_LAUNCHED, NULL);
        uint32_t zero[] = {0};
        refused += passcode_set_custom_schedule(a, zero, 1, 0) != PASSCODE_OK;
        refused += passcode_setting_set(a, PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_ANDROID) != PASSCODE_OK;
        refused += passcode_setting_set(a, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE) != PASSCODE_OK;
        refused += passcode_setting_set(a, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0) != PASSCODE_OK;
        passcode_event_report(a, PASSCODE_EVENT_FOREGROUND, NULL);  /* a careless host that never locks again */
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
    RUN(test_every_weakening_change_needs_a_fresh_passcode);
    RUN(test_no_setting_changes_while_locked);
    RUN(test_a_later_process_cannot_switch_the_lockout_off);
}
