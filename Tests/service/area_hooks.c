/* The host's callbacks and hooks in service mode (run by test_service.py as area_hooks APP_ID
 * GOOD): the settings hook and the lifecycle callback stay in this process and passcoded's core
 * asks them over the bus, where the embedded core asks them. The same sequence runs on an
 * embedded store in a temp folder and on the service's store, and every step's status, message,
 * effect and the hooks' calls must be the same. Then what only the service has: a host that does
 * not answer in time (HOOK_FAILED, nothing changed, the daemon answers again), a callback that
 * calls the library (MISUSE), and the registration of the notifications. */
#include "service_support.h"

#include <unistd.h>

#define LOG_SIZE 8192

typedef struct {
    int refuse_setting;       /* the settings hook refuses */
    int32_t refuse_event;     /* the lifecycle callback refuses this event (0: none) */
    unsigned sleep_seconds;   /* the settings hook sleeps this long first */
    passcode_store *store;    /* for the callback that calls the library */
    int reenter;              /* the settings hook calls passcode_setting_get on `store` */
    passcode_status inner;    /* what that call answered */
    char log[LOG_SIZE];       /* every hook call, in order */
} host;

static void add(host *h, const char *line) {
    size_t n = strlen(h->log);
    snprintf(h->log + n, LOG_SIZE - n, "%s\n", line);
}

static int32_t settings_cb(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t size) {
    host *h = p;
    char line[256];
    snprintf(line, sizeof line, "setting %s %s -> %s", key, old, new_value);
    add(h, line);
    if (h->sleep_seconds) sleep(h->sleep_seconds);
    if (h->reenter) {
        int64_t v = 0;
        h->inner = passcode_setting_get(h->store, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v);
    }
    if (h->refuse_setting) {
        snprintf(msg, size, "backend said no (%s)", new_value);
        return 1;
    }
    return 0;
}

static int32_t lifecycle_cb(void *p, int32_t event, char *msg, size_t size) {
    host *h = p;
    char line[64];
    snprintf(line, sizeof line, "lifecycle %d", event);
    add(h, line);
    if (event == h->refuse_event) {
        snprintf(msg, size, "lifecycle %d refused by the host", event);
        return 1;
    }
    return 0;
}

/* What one step gave: its status, its message on failure, and the state after it. */
static void step(passcode_store *s, host *h, char *out, size_t size, const char *what, passcode_status rc) {
    int32_t is_set = -1, enabled = -1;
    int64_t auto_lock = -1;
    passcode_is_set(s, &is_set);
    passcode_is_enabled(s, &enabled);
    passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &auto_lock);
    size_t n = strlen(out);
    snprintf(out + n, size - n, "%s: %s%s%s | set %d enabled %d auto_lock %lld\n", what, passcode_strerror(rc),
             rc == PASSCODE_OK ? "" : " ", rc == PASSCODE_OK ? "" : passcode_errmsg(s), is_set, enabled, (long long)auto_lock);
    n = strlen(h->log);
    (void)n;
}

#define STEP(call) do { passcode_status rc_ = (call); step(s, h, out, size, #call, rc_); } while (0)

/* The sequence both back ends run: each lifecycle change refused, then allowed; a setting
 * refused, then allowed; a wrong passcode refused before the callback is asked. */
static void sequence(passcode_store *s, host *h, const char *good, char *out, size_t size) {
    const char *next = strcmp(good, "382951") == 0 ? "468213" : "382951";
    size_t glen = strlen(good), nlen = strlen(next);
    out[0] = 0;
    STEP(passcode_set_lifecycle_callback(s, lifecycle_cb, h));
    STEP(passcode_set_settings_hook(s, settings_cb, h));
    h->refuse_event = PASSCODE_LIFECYCLE_EVENT_SET;
    STEP(passcode_set(s, good, glen));
    h->refuse_event = 0;
    STEP(passcode_set(s, good, glen));
    h->refuse_setting = 1;
    STEP(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300));
    h->refuse_setting = 0;
    STEP(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300));
    h->refuse_event = PASSCODE_LIFECYCLE_EVENT_CHANGED;
    STEP(passcode_change(s, "000000", 6, next, nlen));
    STEP(passcode_change(s, good, glen, next, nlen));
    STEP(passcode_verify(s, good, glen));
    h->refuse_event = 0;
    STEP(passcode_change(s, good, glen, next, nlen));
    STEP(passcode_verify(s, next, nlen));
    h->refuse_event = PASSCODE_LIFECYCLE_EVENT_DISABLED;
    STEP(passcode_disable(s, next, nlen));
    h->refuse_event = 0;
    STEP(passcode_disable(s, next, nlen));
    h->refuse_event = PASSCODE_LIFECYCLE_EVENT_ENABLED;
    STEP(passcode_enable(s));
    h->refuse_event = 0;
    STEP(passcode_enable(s));
    h->refuse_event = PASSCODE_LIFECYCLE_EVENT_REMOVED;
    STEP(passcode_remove(s, "000000", 6));
    STEP(passcode_remove(s, next, nlen));
    h->refuse_event = 0;
    STEP(passcode_remove(s, next, nlen));
    /* Removed: no longer asked. */
    STEP(passcode_set_settings_hook(s, NULL, NULL));
    STEP(passcode_set_lifecycle_callback(s, NULL, NULL));
    h->refuse_setting = 1;
    h->refuse_event = PASSCODE_LIFECYCLE_EVENT_SET;
    STEP(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 1800));
    STEP(passcode_set(s, good, glen));
    h->refuse_setting = 0;
    h->refuse_event = 0;
}

/* Prints the lines of `a` and `b` side by side where they differ; 1 when they are the same. */
static int same(const char *what, const char *a, const char *b) {
    if (strcmp(a, b) == 0) return 1;
    printf("# %s differ:\n# embedded:\n%s# service:\n%s", what, a, b);
    return 0;
}

/* The logout callback: when it ran, counted in verifies returned. */
static int verifies_returned, logout_calls, logout_seen_at = -1;
static int32_t logout_reason = -1;
static void logout_cb(void *p, int32_t reason) {
    (void)p;
    logout_calls++;
    logout_reason = reason;
    logout_seen_at = verifies_returned;
}

/* The maximum-failure logout in service mode: the core's logout notification reaches the host
 * before the verify that caused it returns (passcoded sends it before that call's reply). */
static void forced_logout(const char *app, const char *good) {
    char id[128];
    snprintf(id, sizeof id, "%s.logout", app);
    passcode_status rc;
    passcode_store *s = open_service(id, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open %s in service mode: %s", id, passcode_strerror(rc));
    if (!s) return;
    CHECK_STATUS(passcode_set_logout_callback(s, logout_cb, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, good, strlen(good)), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_MAX_FAILURE_ACTION, PASSCODE_MAX_FAILURE_ACTION_FORCED_LOGOUT), PASSCODE_OK);
    passcode_status last = PASSCODE_OK;
    int wrong = 0;
    for (int i = 0; i < 40 && logout_calls == 0; i++) {
        char guess[8];
        snprintf(guess, sizeof guess, "%06d", (100000 + 7919 * i) % 1000000);
        if (strcmp(guess, good) == 0) continue;
        last = passcode_verify(s, guess, 6);
        verifies_returned++;
        if (last == PASSCODE_ERR_WRONG_PASSCODE) { wrong++; continue; }
        if (last == PASSCODE_ERR_LOCKED_OUT) {
            int64_t remaining = 0;
            passcode_lockout_remaining(s, &remaining);
            move_service_clock(remaining);
            i--;
            continue;
        }
        break;
    }
    CHECK_MSG(logout_calls == 1 && logout_reason == PASSCODE_LOGOUT_REASON_MAX_FAILURES,
              "the maximum failures logged out through the host's callback: %d call(s), reason %d (after %d wrong, then %s)",
              logout_calls, logout_reason, wrong, passcode_strerror(last));
    CHECK_MSG(logout_seen_at == verifies_returned - 1, "the callback ran inside the verify that caused it, before it returned (%d of %d)",
              logout_seen_at, verifies_returned);
    int32_t is_set = -1;
    CHECK_STATUS(passcode_is_set(s, &is_set), PASSCODE_OK);
    CHECK_MSG(is_set == 0, "and the passcode is gone, as the callback was told");
    passcode_close(s);
}

static int has_line(const char *text, const char *line) {
    return strstr(text, line) != NULL;
}

/* `area_hooks APP_ID GOOD hang` (test_service.py): a settings hook that says "HANGING" and does
 * not answer in time; meanwhile test_service.py checks that another uid is answered. */
static int32_t hanging_cb(void *p, const char *key, const char *old, const char *new_value, char *msg, size_t size) {
    (void)p; (void)key; (void)old; (void)new_value; (void)msg; (void)size;
    printf("HANGING\n");
    fflush(stdout);
    sleep(12);
    return 0;
}

static int hang(const char *app) {
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open %s in service mode: %s", app, passcode_strerror(rc));
    if (!s) return 1;
    CHECK_STATUS(passcode_set_settings_hook(s, hanging_cb, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_ERR_HOOK_FAILED);
    int64_t v = 0;
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v), PASSCODE_OK);
    CHECK_MSG(v == 900, "the hook that did not answer changed nothing: auto_lock %lld", (long long)v);
    passcode_close(s);
    return tl_failures_status();
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[3], "hang") == 0) return hang(argv[1]);
    if (argc != 3) { fprintf(stderr, "usage: area_hooks APP_ID GOOD [hang]\n"); return 100; }
    const char *app = argv[1], *good = argv[2];
    static char embedded_out[LOG_SIZE], service_out[LOG_SIZE];
    static host he, hs;

    /* The embedded store, in a temp folder. */
    char dir[] = "/tmp/area-hooks.XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 100; }
    char path[256];
    snprintf(path, sizeof path, "%s/store.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *e = NULL;
    passcode_status rc = passcode_open(path, o, &e);
    passcode_options_free(o);
    CHECK_MSG(rc == PASSCODE_OK, "open an embedded store: %s", passcode_strerror(rc));
    if (!e) return 1;
    sequence(e, &he, good, embedded_out, sizeof embedded_out);
    passcode_close(e);

    passcode_store *s = open_service(app, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open in service mode: %s", passcode_strerror(rc));
    if (!s) return 1;
    sequence(s, &hs, good, service_out, sizeof service_out);
    printf("# service mode, step by step:\n");
    for (const char *p = service_out; *p; ) {
        const char *nl = strchr(p, '\n');
        printf("#   %.*s\n", (int)(nl - p), p);
        p = nl + 1;
    }

    /* What the sequence must show (the service's own run), then the same as embedded. */
    CHECK_MSG(has_line(service_out, "passcode_set_lifecycle_callback(s, lifecycle_cb, h): success"), "the lifecycle callback registers in service mode");
    CHECK_MSG(has_line(service_out, "passcode_set_settings_hook(s, settings_cb, h): success"), "the settings hook registers in service mode");
    CHECK_MSG(has_line(service_out, "passcode_set(s, good, glen): host hook failed lifecycle 1 refused by the host | set 0 enabled 0"),
              "a refused set: HOOK_FAILED with the host's message, no passcode set");
    CHECK_MSG(has_line(service_out, "passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300): host hook failed backend said no (300) | set 1 enabled 1 auto_lock 900"),
              "a refused setting: HOOK_FAILED with the host's message, the old value stays");
    CHECK_MSG(has_line(service_out, "passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300): success | set 1 enabled 1 auto_lock 300"),
              "an allowed setting is made");
    CHECK_MSG(has_line(service_out, "passcode_change(s, \"000000\", 6, next, nlen): incorrect passcode"),
              "a wrong current passcode is refused before the callback is asked");
    CHECK_MSG(has_line(service_out, "passcode_disable(s, next, nlen): host hook failed lifecycle 4 refused by the host | set 1 enabled 1"),
              "a refused disable leaves the lock on");
    CHECK_MSG(has_line(service_out, "passcode_enable(s): host hook failed lifecycle 5 refused by the host | set 1 enabled 0"),
              "a refused enable leaves the lock off");
    CHECK_MSG(has_line(service_out, "passcode_remove(s, next, nlen): host hook failed lifecycle 6 refused by the host | set 1 enabled 1"),
              "a refused remove keeps the passcode");
    CHECK_MSG(has_line(service_out, "passcode_remove(s, next, nlen): success | set 0 enabled 0"), "an allowed remove removes it");
    /* The 1800 s set while no passcode existed is weaker than the default: the new passcode starts
     * from 900 (a rule set with no passcode does not outlive the next first one). */
    CHECK_MSG(has_line(service_out, "passcode_set(s, good, glen): success | set 1 enabled 1 auto_lock 900"),
              "with the hooks removed, neither is asked (a refusing host no longer refuses); the weaker auto-lock set with no passcode is back at its default");
    const char *want_log =
        "lifecycle 1\nlifecycle 1\nsetting auto_lock_seconds 900 -> 300\nsetting auto_lock_seconds 900 -> 300\n"
        "lifecycle 2\nlifecycle 2\n"
        "setting lock_enabled 1 -> 0\nlifecycle 4\nsetting lock_enabled 1 -> 0\nlifecycle 4\n"
        "setting lock_enabled 0 -> 1\nlifecycle 5\nsetting lock_enabled 0 -> 1\nlifecycle 5\n"
        "lifecycle 6\nlifecycle 6\n";
    CHECK_MSG(strcmp(hs.log, want_log) == 0, "the service asked the host's hooks exactly these times, in this order: %s",
              strcmp(hs.log, want_log) == 0 ? "yes" : hs.log);
    CHECK_MSG(same("step results", embedded_out, service_out), "every step's status, message and effect is the embedded store's");
    CHECK_MSG(same("hook calls", he.log, hs.log), "the hooks were asked the same times with the same arguments as embedded");

    /* A host that does not answer in time (passcoded waits 10 s): HOOK_FAILED, nothing changed. */
    int64_t v = 0;
    hs.log[0] = 0;
    CHECK_STATUS(passcode_set_settings_hook(s, settings_cb, &hs), PASSCODE_OK);
    hs.sleep_seconds = 12;
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_ERR_HOOK_FAILED);
    hs.sleep_seconds = 0;
    const char *msg = passcode_errmsg(s);
    CHECK_MSG(msg && strstr(msg, "did not answer") != NULL, "a host that does not answer: \"%s\"", msg ? msg : "(null)");
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v), PASSCODE_OK);
    CHECK_MSG(v == 900, "its late \"allowed\" changed nothing: auto_lock %lld", (long long)v);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &v), PASSCODE_OK);
    CHECK_MSG(v == 60, "the daemon answers again, and a host that answers is heard: auto_lock %lld", (long long)v);

    /* A callback calling the library: the service waits for it, so the call is refused. */
    hs.store = s;
    hs.reenter = 1;
    hs.inner = PASSCODE_OK;
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 300), PASSCODE_OK);
    CHECK_MSG(hs.inner == PASSCODE_ERR_MISUSE, "a call into the library from a hook in service mode: %s", passcode_strerror(hs.inner));
    hs.reenter = 0;
    CHECK_STATUS(passcode_set_settings_hook(s, NULL, NULL), PASSCODE_OK);

    /* A second handle of the same store has hooks of its own: the first's are not asked for it. */
    passcode_store *s2 = open_service(app, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s2 != NULL, "a second handle in service mode: %s", passcode_strerror(rc));
    CHECK_STATUS(passcode_set_settings_hook(s, settings_cb, &hs), PASSCODE_OK);
    hs.refuse_setting = 1;
    hs.log[0] = 0;
    CHECK_STATUS(passcode_setting_set(s2, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
    CHECK_MSG(hs.log[0] == 0, "another handle's change does not ask this handle's hook");
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 900), PASSCODE_ERR_HOOK_FAILED);
    hs.refuse_setting = 0;
    passcode_close(s2);

    /* The notifications register in service mode too; handing reset codes to the host stays refused. */
    CHECK_STATUS(passcode_set_logout_callback(s, NULL, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set_notice_callback(s, NULL, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set_account_deleted_callback(s, NULL, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set_session_hook(s, NULL, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, NULL, NULL), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);

    passcode_close(s);
    forced_logout(app, good);
    unlink(path);
    char side[300];
    snprintf(side, sizeof side, "%s-wal", path); unlink(side);
    snprintf(side, sizeof side, "%s-shm", path); unlink(side);
    rmdir(dir);
    return tl_failures_status();
}
