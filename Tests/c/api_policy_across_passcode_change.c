/* "A passcode's policy belongs to that passcode", attacked: sequences that carry
 * a rule, a proof or a length across a passcode change made while the call waits on its hook.
 *
 * The common shape: a call of the attacker's handle checks its permission in one transaction
 * (changeSetting / setCustomSchedule: checkChangeAllowedLocked inside `read`; disable, remove,
 * change: a verify), then asks a host hook with no lock held, then writes in a second
 * transaction that does not check again. A hook of the attacker's own handle can wait there for
 * as long as it likes; here it stands for that wait by doing what the victim does meanwhile
 * (forgot on another handle, the user's new passcode on the app's handle). Every write now
 * checks again (checkChangeAllowedLocked, checkStillProvedLocked). The hook-reentry tests are
 * embedded only; test_across_change_through_service_hook and _remove run the same window through
 * passcoded, whose uid's calls overlap while one waits on its hook. */
#include "api_support.h"


/* What the victim does while the attacker's hook waits: (optionally) the attacker's forgot on a
 * second handle of its own, then the user's new passcode on the app's handle. */
typedef struct {
    passcode_store *victim, *forgetter;
    const char *victims_passcode;
    int32_t on_event;  /* lifecycle hook: the event to act on (0: the settings hook) */
    int fired;
    int32_t forgot_rc, set_rc;
} window;

static void victim_acts(window *w) {
    if (w->fired) return;
    w->fired = 1;
    w->forgot_rc = w->forgetter ? passcode_forgot(w->forgetter) : PASSCODE_OK;
    w->set_rc = passcode_set(w->victim, w->victims_passcode, LEN);
}

static int32_t window_settings_hook(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t n) {
    (void)key; (void)old; (void)new_value; (void)msg; (void)n;
    victim_acts(p);
    return 0;
}

static int32_t window_lifecycle_hook(void *p, int32_t event, char *msg, size_t n) {
    (void)msg; (void)n;
    window *w = p;
    if (event == w->on_event) victim_acts(w);
    return 0;
}

static int32_t lock_state_of(passcode_store *s, int32_t *reason) {
    int32_t locked = -1;
    *reason = -1;
    if (passcode_lock_state(s, &locked, reason) != PASSCODE_OK) return -1;
    return locked;
}

/* 1. Before the app's first setup: the attacker starts a weakening change while no passcode
 * exists (nothing to prove), its settings hook waits while the user sets the first passcode,
 * then the change is written under the user's passcode. */
static void test_across_change_rule_written_after_the_first_passcode(void) {
    EMBEDDED_ONLY("the attacker's hook waits inside its call while the victim acts (passcoded: one call at a time per uid)");
    char path[512];
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path);
    window w = {.victim = v, .victims_passcode = PC2};
    CHECK_STATUS(passcode_set_settings_hook(a, window_settings_hook, &w), PASSCODE_OK);
    uint32_t zero[1] = {0};
    int32_t rc = passcode_set_custom_schedule(a, zero, 1, 0);
    int32_t set = 0;
    CHECK_STATUS(passcode_is_set(v, &set), PASSCODE_OK);
    int64_t schedule = get_setting(v, PASSCODE_SETTING_LOCKOUT_SCHEDULE);
    CHECK(w.fired && w.set_rc == PASSCODE_OK && set == 1);
    int found = 0, wrong = attacker_guesses(a, LEN, PC2, 1000, &found);
    printf("across a passcode change: a rule written after the first passcode: custom schedule call %s, schedule %lld after the user's "
           "passcode; then %d wrong answers, passcode %s\n", passcode_strerror(rc), (long long)schedule, wrong, found ? "FOUND" : "not found");
    CHECK(rc != PASSCODE_OK);
    CHECK(wrong <= 10 && !found);
    passcode_close(a);
    passcode_close(v);
}

/* 2. Forgot, weaken, forgot again, with the weakening call held open across the
 * second forgot and the user's new passcode: the proof of the attacker's passcode, checked
 * before the hook, writes the rule under the user's passcode. */
static void test_across_change_forgot_inside_a_weakening_call(void) {
    EMBEDDED_ONLY("the attacker's hook waits inside its call while the victim acts (passcoded: one call at a time per uid)");
    char path[512];
    mailbox am = {0}, vm = {0};
    passcode_store *v = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_logout_callback(v, mailbox_logout, &vm), PASSCODE_OK);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_forgot(a), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);  /* the attacker's own passcode: a proof */
    window w = {.victim = v, .forgetter = a2, .victims_passcode = PC2};
    CHECK_STATUS(passcode_set_settings_hook(a, window_settings_hook, &w), PASSCODE_OK);
    uint32_t zero[1] = {0};
    int32_t rc = passcode_set_custom_schedule(a, zero, 1, 0);
    int32_t reason = 0, locked = lock_state_of(v, &reason);
    CHECK(w.fired && w.forgot_rc == PASSCODE_OK && w.set_rc == PASSCODE_OK);
    int64_t schedule = get_setting(v, PASSCODE_SETTING_LOCKOUT_SCHEDULE);
    int found = 0, wrong = attacker_guesses(a, LEN, PC2, 1000, &found);
    printf("across a passcode change: forgot inside a weakening call: forgot %s, the user's passcode %s, custom schedule call %s, schedule %lld "
           "(app locked %d reason %d); then %d wrong answers, passcode %s\n", passcode_strerror(w.forgot_rc), passcode_strerror(w.set_rc),
           passcode_strerror(rc), (long long)schedule, locked, reason, wrong, found ? "FOUND" : "not found");
    CHECK(rc != PASSCODE_OK);
    CHECK(wrong <= 10 && !found);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

/* 2b. The same window turns biometric unlock on under the user's new passcode (a reset and a new
 * passcode turn it off); a match the attacker's handle reports then unlocks the app. */
static void test_across_change_biometrics_turned_on(void) {
    EMBEDDED_ONLY("the attacker's hook waits inside its call while the victim acts (passcoded: one call at a time per uid)");
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_set_available(a, 1, 1), PASSCODE_OK);
    window w = {.victim = v, .forgetter = a2, .victims_passcode = PC2};
    CHECK_STATUS(passcode_set_settings_hook(a, window_settings_hook, &w), PASSCODE_OK);
    int32_t rc = passcode_setting_set(a, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1);
    CHECK(w.fired && w.set_rc == PASSCODE_OK);
    int64_t bio = get_setting(v, PASSCODE_SETTING_BIOMETRIC_ENABLED);
    CHECK_STATUS(passcode_event_report(v, PASSCODE_APP_EVENT_LOCK_NOW, NULL), PASSCODE_OK);
    int32_t refusal = -1;
    int32_t unlock = passcode_biometric_unlock(a, &refusal);
    int32_t reason = 0, locked = lock_state_of(v, &reason);
    printf("biometrics across a new passcode: setting call %s, biometric_enabled %lld under the user's passcode; "
           "the attacker's reported match %s, app locked %d\n", passcode_strerror(rc), (long long)bio, passcode_strerror(unlock), locked);
    CHECK(rc != PASSCODE_OK && bio == 0);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

/* 3. The same window in passcode_disable: the attacker's passcode verified, the lock switched
 * off under the user's new passcode. */
static void test_across_change_disable(void) {
    EMBEDDED_ONLY("the attacker's hook waits inside its call while the victim acts (passcoded: one call at a time per uid)");
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);
    window w = {.victim = v, .forgetter = a2, .victims_passcode = PC2};
    CHECK_STATUS(passcode_set_settings_hook(a, window_settings_hook, &w), PASSCODE_OK);
    int32_t rc = passcode_disable(a, PC3, LEN);
    int32_t enabled = -1, set = -1, reason = 0, locked = lock_state_of(v, &reason);
    CHECK_STATUS(passcode_is_enabled(v, &enabled), PASSCODE_OK);
    CHECK_STATUS(passcode_is_set(v, &set), PASSCODE_OK);
    CHECK(w.fired && w.set_rc == PASSCODE_OK);
    printf("disable across a new passcode: disable %s; the user's passcode set %d, lock enabled %d, app locked %d\n",
           passcode_strerror(rc), set, enabled, locked);
    CHECK(rc != PASSCODE_OK);
    CHECK(enabled == 1);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

/* 4. The window in passcode_remove (the lifecycle hook): the attacker's passcode verified, the
 * user's new passcode removed, the app left unlocked and not logged out. */
static void test_across_change_remove(void) {
    EMBEDDED_ONLY("the attacker's hook waits inside its call while the victim acts (passcoded: one call at a time per uid)");
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);
    window w = {.victim = v, .forgetter = a2, .victims_passcode = PC2, .on_event = PASSCODE_LIFECYCLE_EVENT_REMOVED};
    CHECK_STATUS(passcode_set_lifecycle_callback(a, window_lifecycle_hook, &w), PASSCODE_OK);
    int32_t rc = passcode_remove(a, PC3, LEN);
    int32_t set = -1, reason = 0, locked = lock_state_of(v, &reason);
    CHECK_STATUS(passcode_is_set(v, &set), PASSCODE_OK);
    CHECK(w.fired && w.set_rc == PASSCODE_OK);
    printf("remove across a new passcode: remove %s; the user's passcode still set %d; app locked %d reason %d\n",
           passcode_strerror(rc), set, locked, reason);
    CHECK(rc != PASSCODE_OK);
    CHECK(set == 1);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

/* 5. The window in passcode_change: the attacker's passcode verified, the user's new passcode
 * replaced by one the attacker chose (with the attacker's data key), and a proof of it. */
static void test_across_change_passcode_change(void) {
    EMBEDDED_ONLY("the attacker's hook waits inside its call while the victim acts (passcoded: one call at a time per uid)");
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);
    window w = {.victim = v, .forgetter = a2, .victims_passcode = PC2, .on_event = PASSCODE_LIFECYCLE_EVENT_CHANGED};
    CHECK_STATUS(passcode_set_lifecycle_callback(a, window_lifecycle_hook, &w), PASSCODE_OK);
    int32_t rc = passcode_change(a, PC3, LEN, PC1, LEN);
    CHECK(w.fired && w.set_rc == PASSCODE_OK);
    int32_t users = passcode_verify(v, PC2, LEN);
    int32_t weaken = passcode_setting_set(a, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE);
    printf("change across a new passcode: change %s; the user's passcode now %s; the attacker's weakening call %s\n",
           passcode_strerror(rc), passcode_strerror(users), passcode_strerror(weaken));
    CHECK(rc != PASSCODE_OK);
    CHECK(users == PASSCODE_OK);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

static void type_digits(passcode_flow *f, const char *digits) {
    for (const char *p = digits; *p; p++) passcode_flow_digit(f, *p - '0');
}

/* 6. An embedded change flow keeps the key its current-passcode step gave and replaces "the"
 * passcode later without checking that it is still the one it verified. */
static void test_across_change_flow_outlives_its_passcode(void) {
    EMBEDDED_ONLY("the embedded change flow (service mode checks the current passcode again)");
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);
    passcode_flow *f = NULL;
    CHECK_STATUS(passcode_flow_new(a, PASSCODE_FLOW_KIND_CHANGE, &f), PASSCODE_OK);
    type_digits(f, PC3);
    int32_t step = -1, result = -1;
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_ENTER_NEW);
    CHECK_STATUS(passcode_forgot(a2), PASSCODE_OK);
    CHECK_STATUS(passcode_set(v, PC2, LEN), PASSCODE_OK);  /* the user's new passcode */
    type_digits(f, PC1);
    type_digits(f, PC1);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    int32_t users = passcode_verify(v, PC2, LEN);
    int32_t weaken = passcode_setting_set(a, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_NONE);
    printf("a change flow across forgot and a new passcode: flow result %d (1 = success); the user's passcode now %s; "
           "the attacker's weakening call %s\n", result, passcode_strerror(users), passcode_strerror(weaken));
    CHECK(result != PASSCODE_FLOW_RESULT_SUCCESS);
    CHECK(users == PASSCODE_OK);
    passcode_flow_free(f);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

/* 7. A length chosen by the attacker's handle for its own passcode is carried by the reset by
 * email into the user's new passcode (completeReset takes the old row's length). */
static void test_across_change_reset_carries_the_attackers_length(void) {
    char path[512];
    mailbox am = {0}, vm = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(v, PC1, LEN), PASSCODE_OK);
    mailbox_attach(v, &vm);  /* the user's mailbox (in service mode: the store's recipient) */
    CHECK_STATUS(passcode_forgot(a), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(a, 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, "3860", 4), PASSCODE_OK);  /* the attacker's 4-digit passcode */
    if (service_backend) {
        /* passcoded's recipient belonged to the forgotten passcode: the attacker's has none (the
         * attacker cannot have codes mailed to an address it chose without the user's proof); the
         * user's is set again (root's store: no passcode needed). */
        char masked[256] = "x";
        CHECK_STATUS(passcode_reset_recipient(v, masked, sizeof masked), PASSCODE_OK);
        CHECK(masked[0] == 0);
        mailbox_attach(v, &vm);
    }
    /* The user does not know it: the reset by email. */
    CHECK_STATUS(request_code(v, &vm), PASSCODE_OK);
    int32_t vlen = 0;
    CHECK_STATUS(passcode_length(v, &vlen), PASSCODE_OK);
    int32_t six = passcode_reset_complete(v, vm.code, strlen(vm.code), PC2, LEN);
    int32_t four = six == PASSCODE_OK ? -1 : passcode_reset_complete(v, vm.code, strlen(vm.code), "7314", 4);
    int found = 0, wrong = attacker_guesses(a, 4, "7314", 1000, &found);
    printf("across a passcode change: the reset by email after the attacker's 4-digit passcode: length %d for the user; a 6-digit new passcode %s, "
           "a 4-digit one %s; then %d wrong answers at 4 digits, passcode %s\n", vlen, passcode_strerror(six),
           four < 0 ? "-" : passcode_strerror(four), wrong, found ? "FOUND" : "not found");
    /* The current passcode keeps its 4 digits until the reset is done; the new one has the
     * default 6, whatever length the attacker chose for the passcode it replaces. */
    int32_t after = 0;
    CHECK_STATUS(passcode_length(v, &after), PASSCODE_OK);
    CHECK(vlen == 4 && six == PASSCODE_OK && after == LEN);
    passcode_close(a);
    passcode_close(v);
}

/* ---- through passcoded: the same window, checked to hold ------------------------------- */

typedef struct {
    passcode_store *victim, *forgetter;
    int32_t forgot_rc, set_rc;
    struct timespec done;
} victim_thread;

static void *victim_in_thread(void *p) {
    victim_thread *t = p;
    t->forgot_rc = t->forgetter ? passcode_forgot(t->forgetter) : PASSCODE_OK;
    t->set_rc = passcode_set(t->victim, PC2, LEN);
    clock_gettime(CLOCK_MONOTONIC, &t->done);
    return NULL;
}

typedef struct { pthread_t thread; victim_thread *t; int started; } slow_hook;

/* The attacker's settings hook: starts the victim's thread (forgot, the user's passcode, on
 * connections of their own) and answers only 3 s later. */
static int32_t slow_settings_hook(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t n) {
    (void)key; (void)old; (void)new_value; (void)msg; (void)n;
    slow_hook *h = p;
    if (!h->started) {
        h->started = 1;
        pthread_create(&h->thread, NULL, victim_in_thread, h->t);
        sleep(3);
    }
    return 0;
}

static void test_across_change_through_service_hook(void) {
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);  /* the attacker's passcode: a proof */
    victim_thread t = {.victim = v, .forgetter = a2};
    slow_hook h = {.t = &t};
    CHECK_STATUS(passcode_set_settings_hook(a, slow_settings_hook, &h), PASSCODE_OK);
    uint32_t zero[1] = {0};
    int32_t rc = passcode_set_custom_schedule(a, zero, 1, 0);
    if (h.started) pthread_join(h.thread, NULL);
    CHECK(h.started && t.forgot_rc == PASSCODE_OK && t.set_rc == PASSCODE_OK);
    int64_t schedule = get_setting(v, PASSCODE_SETTING_LOCKOUT_SCHEDULE);
    int found = 0, wrong = attacker_guesses(a, LEN, PC2, 300, &found);
    printf("across a passcode change (%s): forgot and the user's passcode while the attacker's hook waits 3 s: custom schedule call %s, "
           "forgot %s, set %s, schedule %lld; then %d wrong answers, passcode %s\n", service_backend ? "service" : "embedded",
           passcode_strerror(rc), passcode_strerror(t.forgot_rc), passcode_strerror(t.set_rc), (long long)schedule,
           wrong, found ? "FOUND" : "not found");
    CHECK(wrong <= 10 && !found);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

static int32_t slow_lifecycle_hook(void *p, int32_t event, char *msg, size_t n) {
    (void)msg; (void)n;
    slow_hook *h = p;
    if (event == PASSCODE_LIFECYCLE_EVENT_REMOVED && !h->started) {
        h->started = 1;
        pthread_create(&h->thread, NULL, victim_in_thread, h->t);
        sleep(3);
    }
    return 0;
}

/* The remove window (4) with the victim on threads of its own: held through passcoded. */
static void test_across_change_through_service_remove(void) {
    char path[512];
    mailbox am = {0};
    passcode_store *v = new_store(path, sizeof path);
    passcode_store *a = open_fast(path), *a2 = open_fast(path);
    CHECK_STATUS(passcode_set_logout_callback(a2, mailbox_logout, &am), PASSCODE_OK);
    CHECK_STATUS(passcode_set(a, PC3, LEN), PASSCODE_OK);
    victim_thread t = {.victim = v, .forgetter = a2};
    slow_hook h = {.t = &t};
    CHECK_STATUS(passcode_set_lifecycle_callback(a, slow_lifecycle_hook, &h), PASSCODE_OK);
    int32_t rc = passcode_remove(a, PC3, LEN);
    if (h.started) pthread_join(h.thread, NULL);
    int32_t set = -1;
    CHECK_STATUS(passcode_is_set(v, &set), PASSCODE_OK);
    printf("across a passcode change (%s): forgot and the user's passcode while the attacker's remove waits 3 s in its lifecycle hook: remove %s, "
           "forgot %s, set %s; the user's passcode still set %d\n", service_backend ? "service" : "embedded", passcode_strerror(rc),
           passcode_strerror(t.forgot_rc), passcode_strerror(t.set_rc), set);
    CHECK(set == 1);
    passcode_close(a2);
    passcode_close(a);
    passcode_close(v);
}

void run_across_change_tests(void) {
    RUN(test_across_change_rule_written_after_the_first_passcode);
    RUN(test_across_change_forgot_inside_a_weakening_call);
    RUN(test_across_change_biometrics_turned_on);
    RUN(test_across_change_disable);
    RUN(test_across_change_remove);
    RUN(test_across_change_passcode_change);
    RUN(test_across_change_flow_outlives_its_passcode);
    RUN(test_across_change_reset_carries_the_attackers_length);
    RUN(test_across_change_through_service_hook);
    RUN(test_across_change_through_service_remove);
}
