/* C API tests: lockout schedules, maximum failures, settings. */
#include "api_support.h"

/* ---- lockout ----------------------------------------------------------------------------- */

static void test_apple_schedule_every_step(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    const int64_t expect[] = {0, 0, 0, 0, 60, 300, 900, 900, 3600};
    for (int i = 0; i < 9; i++) {
        wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(failures(s) == i + 1);
        CHECK(lockout(s) == expect[i]);
        if (expect[i] > 0) {
            /* During the lockout the passcode is not even checked: the right one is refused too. */
            CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
            CHECK(failures(s) == i + 1);
            advance_ms(expect[i] * 1000 - 1000);
            CHECK(lockout(s) == 1);
            CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
            advance_ms(1000);
            CHECK(lockout(s) == 0);
        }
    }
    /* The 10th failure: "require reset" (the default action). */
    wrong_guess(s, 9, PASSCODE_ERR_RESET_REQUIRED);
    int32_t v = 0;
    CHECK_STATUS(passcode_is_reset_required(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(s);
}

static void test_success_resets_counter(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    for (int i = 0; i < 4; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 4);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK(failures(s) == 0);
    wrong_guess(s, 20, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);
    CHECK(lockout(s) == 0);
    passcode_close(s);
}

static void test_same_wrong_guess_counts_once(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);
    CHECK_STATUS(passcode_verify(s, PC3, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 2);
    /* Five minutes later the repeat counts again. */
    advance_ms(5 * 60 * 1000);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 3);
    /* Memory only: another handle (another process) counts it. */
    passcode_store *t = open_fast(path);
    CHECK_STATUS(passcode_verify(t, PC3, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(t) == 4);
    passcode_close(t);
    passcode_close(s);
}

static void test_lockout_ignores_wall_clock_and_restarts_after_reboot(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    for (int i = 0; i < 5; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(lockout(s) == 60);
    /* The wall clock a year forward, then a year back: no effect. */
    the_clock.wall_ms += 365LL * 86400 * 1000;
    CHECK(lockout(s) == 60);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    the_clock.wall_ms -= 2 * 365LL * 86400 * 1000;
    CHECK(lockout(s) == 60);
    /* 30 s pass, then a reboot: the lockout starts again in full, never endless. */
    advance_ms(30000);
    CHECK(lockout(s) == 30);
    the_clock.boot_id += 1;
    the_clock.boot_ms = 5000;
    CHECK(lockout(s) == 60);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    advance_ms(60000);
    CHECK(lockout(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_android_and_custom_schedules(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, 1), PASSCODE_OK);
    const int64_t expect[] = {0, 0, 0, 0, 60, 300, 900, 1800, 5400, 243 * 60, 729 * 60};
    for (int i = 0; i < 11; i++) {
        wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(lockout(s) == expect[i]);
        advance_ms(expect[i] * 1000);
    }
    passcode_close(s);

    s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE, 2), PASSCODE_ERR_INVALID_SETTING);
    uint32_t delays[] = {0, 10, 20};
    CHECK_STATUS(passcode_set_custom_schedule(s, NULL, 3, 5), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 0, 5), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 3, 5), PASSCODE_OK);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE) == 2);
    const int64_t cexpect[] = {0, 10, 20, 20};
    for (int i = 0; i < 4; i++) {
        wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
        CHECK(lockout(s) == cexpect[i]);
        advance_ms(cexpect[i] * 1000);
    }
    wrong_guess(s, 4, PASSCODE_ERR_RESET_REQUIRED);
    passcode_close(s);
}

static int logout_calls;
static void on_logout(void *payload, int32_t reason) { (void)reason; *(int *)payload += 1; }

static void test_max_failure_actions(void) {
    char path[512];
    uint32_t delays[] = {0};
    /* "none": the attempts go on with the longest delay. */
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 1, 3), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, 7), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE), PASSCODE_OK);
    for (int i = 0; i < 3; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* "forced logout": the passcode is removed and the host is told. */
    s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_custom_schedule(s, delays, 1, 3), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_FORCED_LOGOUT), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(s, on_logout, &logout_calls), PASSCODE_OK);
    logout_calls = 0;
    wrong_guess(s, 0, PASSCODE_ERR_WRONG_PASSCODE);
    wrong_guess(s, 1, PASSCODE_ERR_WRONG_PASSCODE);
    wrong_guess(s, 2, PASSCODE_ERR_LOGGED_OUT);
    CHECK(logout_calls == 1);
    int32_t v = 1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    passcode_close(s);
}

/* ---- settings ---------------------------------------------------------------------------- */

static void test_settings_validate_and_persist(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCK_AT_LAUNCH) == 1);
    CHECK(get_setting(s, PASSCODE_SETTING_LOCKOUT_SCHEDULE) == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 120), PASSCODE_ERR_INVALID_SETTING);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 900);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 2), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_setting_set(s, 999, 1), PASSCODE_ERR_MISUSE);
    int64_t v;
    CHECK_STATUS(passcode_setting_get(s, -1, &v), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL), PASSCODE_ERR_MISUSE);
    /* Biometric unlock needs a passcode. */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_ERR_INVALID_SETTING);
    CHECK(get_setting(s, PASSCODE_SETTING_BIOMETRIC_ENABLED) == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_ENABLED, 0), PASSCODE_ERR_INVALID_SETTING);
    passcode_close(s);
    s = open_fast(path);
    CHECK(get_setting(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS) == 300);
    passcode_close(s);
}

/* The library describes its settings, so front ends never copy the choices. */
static void test_settings_describe_themselves(void) {
    int64_t lo = -1, hi = -1, values[16], d = -1;
    size_t n = 99;
    CHECK_STATUS(passcode_setting_bounds(PASSCODE_SETTING_AUTO_LOCK_SECONDS, &lo, &hi), PASSCODE_OK);
    CHECK(lo == 0 && hi == 3600);
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, values, 16, &n), PASSCODE_OK);
    CHECK(n == 6 && values[0] == 0 && values[1] == 60 && values[2] == 300 && values[3] == 900 && values[4] == 1800 && values[5] == 3600);
    n = 0;
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, NULL, 0, &n), PASSCODE_ERR_BUFFER_TOO_SMALL);
    CHECK(n == 6);  /* the count is given even when the room is too small */
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_LOCKOUT_SCHEDULE, values, 16, &n), PASSCODE_OK);
    CHECK(n == 3 && values[0] == PASSCODE_LOCKOUT_SCHEDULE_APPLE && values[1] == PASSCODE_LOCKOUT_SCHEDULE_ANDROID
          && values[2] == PASSCODE_LOCKOUT_SCHEDULE_CUSTOM);
    CHECK_STATUS(passcode_setting_choices(PASSCODE_SETTING_RESET_CODE_LENGTH, values, 16, &n), PASSCODE_OK);
    CHECK(n == 0);  /* a range, no list */
    CHECK_STATUS(passcode_setting_bounds(PASSCODE_SETTING_RESET_CODE_LENGTH, &lo, &hi), PASSCODE_OK);
    CHECK(lo == 6 && hi == 10);
    CHECK_STATUS(passcode_setting_bounds(PASSCODE_SETTING_PASSCODE_LENGTH, &lo, &hi), PASSCODE_OK);
    CHECK(lo == 4 && hi == 12);
    CHECK_STATUS(passcode_setting_default(PASSCODE_SETTING_RESET_REQUESTS_PER_DAY, &d), PASSCODE_OK);
    CHECK(d == 5);
    /* Every setting's default is what a new store reads, and lies in its bounds. */
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    for (int32_t k = PASSCODE_SETTING_AUTO_LOCK_SECONDS; k <= PASSCODE_SETTING_RESET_REQUESTS_PER_DAY; k++) {
        CHECK_STATUS(passcode_setting_default(k, &d), PASSCODE_OK);
        CHECK_STATUS(passcode_setting_bounds(k, &lo, &hi), PASSCODE_OK);
        CHECK(get_setting(s, k) == d);
        CHECK(lo <= d && d <= hi);
    }
    passcode_close(s);
    /* Which changes weaken protection. */
    int32_t w = -1;
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60, 3600, &w), PASSCODE_OK);
    CHECK(w == 1);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600, 60, &w), PASSCODE_OK);
    CHECK(w == 0);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_LOCK_AT_LAUNCH, 1, 0, &w), PASSCODE_OK);
    CHECK(w == 1);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_LOCKOUT_SCHEDULE, PASSCODE_LOCKOUT_SCHEDULE_ANDROID, PASSCODE_LOCKOUT_SCHEDULE_APPLE, &w), PASSCODE_OK);
    CHECK(w == 1);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_REQUIRE_RESET, PASSCODE_MAX_FAILURE_ACTION_NONE, &w), PASSCODE_OK);
    CHECK(w == 1);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE, PASSCODE_MAX_FAILURE_ACTION_REQUIRE_RESET, &w), PASSCODE_OK);
    CHECK(w == 0);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_RESET_CODE_LENGTH, 8, 6, &w), PASSCODE_OK);
    CHECK(w == 1);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_RESET_REQUEST_INTERVAL_SECONDS, 60, 0, &w), PASSCODE_OK);
    CHECK(w == 1);
    CHECK_STATUS(passcode_setting_weakens(PASSCODE_SETTING_BIOMETRIC_ENABLED, 0, 1, &w), PASSCODE_OK);
    CHECK(w == 1);
}

/* A lockout's seconds come with the failure itself (passcode_errwait), per thread and handle. */
static void test_lockout_seconds_come_with_the_failure(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    for (int i = 0; i < 5; i++) wrong_guess(s, i, PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(passcode_errwait(s) == 0);  /* a wrong passcode carries no wait */
    advance_ms(10000);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_LOCKED_OUT);
    CHECK(passcode_errwait(s) == 50);
    CHECK_STATUS(passcode_verify(s, "12", 2), PASSCODE_ERR_FORMAT);
    CHECK(passcode_errwait(s) == 0);  /* replaced by the next failure */
    CHECK(passcode_errwait(NULL) == 0);
    passcode_close(s);
    CHECK(passcode_errwait(s) == 0);  /* a closed handle */
    advance_ms(60000);
}

void run_lockout_tests(void) {
    RUN(test_settings_describe_themselves);
    RUN(test_lockout_seconds_come_with_the_failure);
    RUN(test_apple_schedule_every_step);
    RUN(test_success_resets_counter);
    RUN(test_same_wrong_guess_counts_once);
    RUN(test_lockout_ignores_wall_clock_and_restarts_after_reboot);
    RUN(test_android_and_custom_schedules);
    RUN(test_max_failure_actions);
    RUN(test_settings_validate_and_persist);
}
