/* libpasscode in service mode, as a host process of a user: the C API over passcoded on the
 * private bus that Tests/service/test_service.py starts (DBUS_SYSTEM_BUS_ADDRESS), run as that
 * test user. Usage: service_client basics|attack|down|bench APP_ID STORE_ROOT|OPS,MEM GOOD_PASSCODE,
 * or service_client fake APP_ID silent|key|owner GOOD_PASSCODE against a fake service.
 * Prints "ok   ..." / "FAIL ..." lines, and "LOCKED <seconds>" when a lockout holds the guesses:
 * it then waits for a line on stdin (the test moves the service's clock, which only root can).
 * Exit status: the number of failed checks (at most 100). */
#include "service_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *app, *good;

static void clock_cb(void *p, int64_t *boot, int64_t *wall, uint64_t *id) { (void)p; *boot = 1; *wall = 1; *id = 1; }
static int32_t deliver(void *p, const char *code, size_t n, char *msg, size_t size) { (void)p; (void)code; (void)n; (void)msg; (void)size; return 0; }

/* Each option the service decides: the open refuses it, naming it. */
static void refused_options(void) {
    static const uint8_t pepper[32] = {1};
    for (int k = 0; k < 7; k++) {
        passcode_options *o = NULL;
        passcode_options_new(&o);
        const char *what = "";
        switch (k) {
        case 0: what = "clock"; passcode_options_set_clock(o, clock_cb, NULL); break;
        case 1: what = "Argon2id cost"; passcode_options_set_cost(o, PASSCODE_COST_SENSITIVE); break;
        case 2: what = "Argon2id cost"; passcode_options_set_cost_explicit(o, 1, 8192); break;
        case 3: what = "pepper"; passcode_options_set_pepper(o, pepper, 32); break;
        case 4: what = "allow_weak"; passcode_options_set_allow_weak(o, 1); break;
        case 5: what = "TPM option"; passcode_options_set_tpm(o, "device:/dev/tpmrm0"); break;
        case 6: what = "TPM owner authorization file"; passcode_options_set_tpm_owner_auth_file(o, "/etc/passcode/x"); break;
        }
        /* The option first, then service mode (and the other order for the clock). */
        passcode_options_set_service(o, app);
        passcode_store *s = NULL;
        passcode_status rc = passcode_open("ignored", o, &s);
        const char *msg = passcode_errmsg(NULL);
        CHECK_MSG(rc == PASSCODE_ERR_REFUSED_IN_SERVICE_MODE && s == NULL && strstr(msg, what) != NULL,
                  "service mode with the host's %s: %s, \"%s\"", what, passcode_strerror(rc), msg);
        passcode_close(s);
        passcode_options_free(o);
    }
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_service(o, app);
    passcode_options_set_clock(o, clock_cb, NULL);
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open("ignored", o, &s), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
    passcode_options_free(o);
}

/* The calls that would let the host report a match (now passcoded's own check through fprintd)
 * or see a reset code, and calls not offered. */
static void refused_calls(passcode_store *s) {
    int32_t refusal = -1;
    uint8_t key[32];
    /* A match is passcoded's to read through fprintd, none is on this bus: nothing unlocks. */
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_BIOMETRIC_UNAVAILABLE);
    CHECK_MSG(strstr(passcode_errmsg(s), "fprintd") != NULL, "its message names fprintd: %s", passcode_errmsg(s));
    CHECK_STATUS(passcode_biometric_unlock_key(s, key, sizeof key, &refusal), PASSCODE_ERR_BIOMETRIC_UNAVAILABLE);
    /* A request is passcoded's to mail (test-service's default configuration names no relay). */
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE);
    CHECK_MSG(strstr(passcode_errmsg(s), "mail relay") != NULL, "its message says no mail relay is configured: %s", passcode_errmsg(s));
    /* Each refusal says what was refused, in words a caller of any binding reads: no message
     * starts with a C function's name. */
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, deliver, NULL), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
    CHECK_MSG(!strncmp(passcode_errmsg(s), "a reset code handed to the host is refused in service mode", 58),
              "the refused delivery callback, in the caller's words: \"%s\"", passcode_errmsg(s));
    CHECK_STATUS(passcode_tpm_bind(s, good, strlen(good)), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
    CHECK_MSG(!strncmp(passcode_errmsg(s), "binding to a TPM the host names is refused in service mode", 58),
              "the refused TPM binding, in the caller's words: \"%s\"", passcode_errmsg(s));
    CHECK_STATUS(passcode_tpm_unbind(s, good, strlen(good)), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
    CHECK_MSG(!strncmp(passcode_errmsg(s), "unbinding the TPM is refused in service mode", 44),
              "the refused TPM unbinding, in the caller's words: \"%s\"", passcode_errmsg(s));
    passcode_flow *flow = NULL;
    /* Flows run through the service (area_key.c); service mode hands no reset code to the host,
     * so a reset flow has none to take, as an embedded store without a requested code. */
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_RESET, &flow), PASSCODE_ERR_NO_RESET_CODE);
    CHECK_MSG(flow == NULL, "no reset flow is made");
}

static void basics(void) {
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open in service mode: %s %s", passcode_strerror(rc), passcode_errmsg(NULL));
    if (!s) return;
    int32_t v = -1;
    int64_t w = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 0, "a new store has no passcode");
    CHECK_STATUS(passcode_length(s, &v), PASSCODE_OK);
    CHECK_MSG(v == 6, "six digits by default: %d", (int)v);
    CHECK_STATUS(passcode_set_length(s, 3), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_length(s, 8), PASSCODE_OK);
    passcode_length(s, &v);
    CHECK_MSG(v == 8, "eight digits now: %d", (int)v);
    /* The length chosen is this connection's alone: another connection of the same
     * process sees the default, and cannot choose one for this connection's first passcode. */
    passcode_status orc;
    passcode_store *other = open_service(app, &orc);
    int32_t ov = -1;
    if (other) passcode_length(other, &ov);
    CHECK_MSG(other && ov == 6, "another connection still sees six digits: %d", (int)ov);
    if (other) {
        CHECK_STATUS(passcode_set_length(other, 4), PASSCODE_OK);
        passcode_close(other);
    }
    passcode_length(s, &v);
    CHECK_MSG(v == 8, "and its choice of four is not this connection's: %d", (int)v);
    CHECK_STATUS(passcode_set_length(s, 6), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, "123456", 6), PASSCODE_ERR_WEAK_PASSCODE);
    CHECK_STATUS(passcode_set(s, "12a456", 6), PASSCODE_ERR_FORMAT);
    char longer[300];
    memset(longer, '7', sizeof longer);
    CHECK_STATUS(passcode_set(s, longer, sizeof longer), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, good, strlen(good)), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, "730185", 6), PASSCODE_ERR_ALREADY_SET);
    CHECK_STATUS(passcode_set_length(s, 8), PASSCODE_ERR_STATE);
    passcode_is_set(s, &v);
    CHECK_MSG(v == 1, "is_set after set");
    passcode_is_enabled(s, &v);
    CHECK_MSG(v == 1, "is_enabled after set");
    CHECK_STATUS(passcode_verify(s, "000111", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_MSG(strcmp(passcode_errmsg(s), "incorrect passcode") == 0, "the core's message comes back: \"%s\"", passcode_errmsg(s));
    passcode_failed_attempts(s, &v);
    CHECK_MSG(v == 1, "the failure is counted: %d", (int)v);
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_OK);
    passcode_failed_attempts(s, &v);
    CHECK_MSG(v == 0, "a right passcode clears the count: %d", (int)v);
    CHECK_STATUS(passcode_lockout_remaining(s, &w), PASSCODE_OK);
    CHECK_MSG(w == 0, "no lockout: %lld", (long long)w);
    int32_t locked = -1, reason = -1;
    CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
    CHECK_MSG(locked == 0 && reason == PASSCODE_LOCK_REASON_NONE, "unlocked after the right passcode: %d %d", (int)locked, (int)reason);
    passcode_lock_screen screen;
    memset(&screen, 0xff, sizeof screen);
    screen.size = sizeof screen;
    CHECK_STATUS(passcode_lock_screen_read(s, &screen), PASSCODE_OK);
    CHECK_MSG(screen.passcode_set == 1 && screen.lock_enabled == 1 && screen.locked == 0 && screen.failed_attempts == 0
              && screen.lockout_seconds == 0 && screen.reset_required == 0 && screen.security_label != NULL,
              "the lock screen: set %d, on %d, locked %d, failures %d, label %s", (int)screen.passcode_set, (int)screen.lock_enabled,
              (int)screen.locked, (int)screen.failed_attempts, screen.security_label ? screen.security_label : "NULL");
    passcode_is_reset_required(s, &v);
    CHECK_MSG(v == 0, "no reset required");

    /* Settings: read, a weakening change needs passcode_authorize (checked by the service). */
    int64_t value = -1, fallback = -2;
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &value), PASSCODE_OK);
    passcode_setting_default(PASSCODE_SETTING_AUTO_LOCK_SECONDS, &fallback);
    CHECK_MSG(value == fallback, "auto-lock is the default in a new store: %lld", (long long)value);
    /* A handle of its own (a passcode set or checked on a handle proves the user there). */
    passcode_store *fresh = open_service(app, &rc);
    CHECK_STATUS(passcode_setting_set(fresh, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_setting_set(fresh, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 7), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_authorize(fresh, "999111", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_setting_set(fresh, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_authorize(fresh, good, strlen(good)), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(fresh, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_OK);
    passcode_close(fresh);
    /* The handle that verified the passcode has the proof too, as embedded. */
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 1800), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600), PASSCODE_OK);
    passcode_setting_get(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &value);
    CHECK_MSG(value == 3600, "the change is stored: %lld", (long long)value);
    CHECK_STATUS(passcode_setting_get(s, 9999, &value), PASSCODE_ERR_MISUSE);

    /* A second handle (another connection) sees the same store. */
    passcode_store *t = open_service(app, &rc);
    value = 0;
    if (t) passcode_setting_get(t, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &value);
    CHECK_MSG(t && value == 3600, "another handle sees the change: %lld", (long long)value);
    passcode_close(t);

    /* Change, disable, enable, remove. */
    CHECK_STATUS(passcode_change(s, "111333", 6, "730185", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_change(s, good, strlen(good), "730185", 6), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, "730185", 6), PASSCODE_OK);
    CHECK_STATUS(passcode_disable(s, "730185", 6), PASSCODE_OK);
    passcode_is_enabled(s, &v);
    CHECK_MSG(v == 0, "disabled: the lock is off");
    passcode_is_set(s, &v);
    CHECK_MSG(v == 1, "disabled: the passcode stays");
    CHECK_STATUS(passcode_enable(s), PASSCODE_OK);
    passcode_is_enabled(s, &v);
    CHECK_MSG(v == 1, "enabled again");
    CHECK_STATUS(passcode_remove(s, "111222", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_remove(s, "730185", 6), PASSCODE_OK);
    passcode_is_set(s, &v);
    CHECK_MSG(v == 0, "removed");
    CHECK_STATUS(passcode_enable(s), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, good, strlen(good)), PASSCODE_OK);

    refused_calls(s);
    passcode_close(s);
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_ERR_INVALID_HANDLE);

    /* An app id the service refuses, at the open. */
    s = open_service("../etc", &rc);
    CHECK_MSG(rc == PASSCODE_ERR_MISUSE && s == NULL, "the app id ../etc: %s, \"%s\"", passcode_strerror(rc), passcode_errmsg(NULL));
    passcode_options *o = NULL;
    passcode_options_new(&o);
    CHECK_STATUS(passcode_options_set_service(o, ""), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_service(o, "x123456789x123456789x123456789x123456789x123456789x123456789x12345"), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_service(NULL, app), PASSCODE_ERR_INVALID_HANDLE);
    passcode_options_free(o);
}

/* The promise: a process of the user, with the library, against its store under the service. */
static void attack(const char *store_root) {
    char folder[512], file[600], wal[620], copy[600];
    snprintf(folder, sizeof folder, "%s/%u", store_root, (unsigned)getuid());
    snprintf(file, sizeof file, "%s/%s.db", folder, app);
    snprintf(wal, sizeof wal, "%s-wal", file);
    snprintf(copy, sizeof copy, "%s/planted.db", folder);
    struct { const char *what; int rc; } tries[7];
    int n = 0;
    errno = 0; tries[n].what = "open to read (copy)"; tries[n++].rc = open(file, O_RDONLY) < 0 ? errno : 0;
    errno = 0; tries[n].what = "open to write"; tries[n++].rc = open(file, O_WRONLY) < 0 ? errno : 0;
    errno = 0; tries[n].what = "delete"; tries[n++].rc = unlink(file) < 0 ? errno : 0;
    errno = 0; tries[n].what = "delete the -wal"; tries[n++].rc = unlink(wal) < 0 ? errno : 0;
    errno = 0; tries[n].what = "rename"; tries[n++].rc = rename(file, copy) < 0 ? errno : 0;
    errno = 0; tries[n].what = "plant a file"; tries[n++].rc = open(copy, O_WRONLY | O_CREAT, 0600) < 0 ? errno : 0;
    DIR *d = opendir(folder);
    tries[n].what = "list the folder"; tries[n++].rc = d ? 0 : errno;
    if (d) closedir(d);
    int denied = 0;
    for (int i = 0; i < n; i++) {
        printf("     attack on the files: %s: %s\n", tries[i].what, tries[i].rc ? strerror(tries[i].rc) : "ALLOWED");
        if (tries[i].rc == EACCES) denied++;
    }
    CHECK_MSG(denied == n, "every attempt on the store's files is refused (permission denied): %d of %d", denied, n);

    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    if (!s) { CHECK_MSG(0, "open for the guesses: %s", passcode_strerror(rc)); return; }
    int checked = 0, lockouts = 0, found = 0, first_lockout_after = -1;
    int64_t first_wait = -1;
    for (int i = 0; i < 40; i++) {
        char guess[8];
        snprintf(guess, sizeof guess, "%06d", (100000 + 7919 * i) % 1000000);
        if (strcmp(guess, good) == 0) continue;
        rc = passcode_verify(s, guess, 6);
        if (rc == PASSCODE_OK) { found = 1; break; }
        if (rc == PASSCODE_ERR_WRONG_PASSCODE) { checked++; continue; }
        if (rc == PASSCODE_ERR_LOCKED_OUT) {
            int64_t remaining = -1;
            passcode_lockout_remaining(s, &remaining);
            if (first_lockout_after < 0) { first_lockout_after = checked; first_wait = passcode_errwait(s); }
            lockouts++;
            printf("LOCKED %lld\n", (long long)remaining);
            fflush(stdout);
            char line[16];
            if (!fgets(line, sizeof line, stdin)) break;
            i--;  /* the same guess again, after the wait */
            continue;
        }
        if (rc == PASSCODE_ERR_RESET_REQUIRED) { checked++; break; }  /* the one that reached the maximum */
        CHECK_MSG(0, "unexpected answer to a guess: %s %s", passcode_strerror(rc), passcode_errmsg(s));
        break;
    }
    int32_t failures = -1, reset = -1;
    passcode_failed_attempts(s, &failures);
    passcode_is_reset_required(s, &reset);
    printf("     guesses through the API: %d checked, passcode found: %s; lockouts waited out: %d; "
           "first lockout after %d failures, passcode_errwait %lld s; the store counts %d, reset required %d\n",
           checked, found ? "YES" : "no", lockouts, first_lockout_after, (long long)first_wait, (int)failures, (int)reset);
    CHECK_MSG(first_lockout_after == 5 && first_wait == 60, "locked out for 60 s after 5 failures (LOCKED_OUT, errwait)");
    CHECK_MSG(checked == 10 && !found && reset == 1, "at most 10 guesses under the defaults, passcode not found");
    CHECK_STATUS(passcode_verify(s, good, strlen(good)), PASSCODE_ERR_RESET_REQUIRED);
    int32_t refusal = -1;
    int biometric_tries = 0, biometric_in = 0, reset_tries = 0, reset_given = 0;
    for (int i = 0; i < 20; i++, biometric_tries++)
        if (passcode_biometric_unlock(s, &refusal) == PASSCODE_OK) biometric_in++;  /* no fprintd here: none can match */
    for (int i = 0; i < 20; i++, reset_tries++) {
        if (passcode_set_reset_delivery_callback(s, deliver, NULL) != PASSCODE_ERR_REFUSED_IN_SERVICE_MODE) reset_given++;
        if (passcode_reset_request(s) != PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE) reset_given++;
    }
    printf("     fake biometric matches: %d reported, %d accepted; reset codes asked: %d, %d handed over\n",
           biometric_tries, biometric_in, reset_tries, reset_given);
    CHECK_MSG(biometric_in == 0 && reset_given == 0, "fake biometric matches and reset-code requests are refused");
    passcode_close(s);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Right-passcode verifies through the service and on an embedded store of the same Argon2id
 * cost ("OPS,MEM", the service's configuration), in this process's temporary folder. */
static void bench(const char *cost) {
    unsigned long long ops = 0, mem = 0;
    if (sscanf(cost, "%llu,%llu", &ops, &mem) != 2) { CHECK_MSG(0, "bench: the cost %s", cost); return; }
    char dir[] = "/tmp/passcode-service-bench-XXXXXX", file[64];
    if (!mkdtemp(dir)) { CHECK_MSG(0, "bench: mkdtemp"); return; }
    snprintf(file, sizeof file, "%s/bench.db", dir);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, ops, (size_t)mem);
    passcode_store *embedded = NULL;
    passcode_status rc = passcode_open(file, o, &embedded);
    passcode_options_free(o);
    passcode_store *service = open_service(app, &rc);
    enum { ROUNDS = 3 };
    double took[2] = {0, 0};
    int ok = embedded && service && passcode_set(embedded, good, strlen(good)) == PASSCODE_OK
             && passcode_set(service, good, strlen(good)) == PASSCODE_OK;
    for (int r = 0; ok && r < ROUNDS; r++)
        for (int k = 0; k < 2; k++) {
            double t = now_seconds();
            ok = ok && passcode_verify(k ? service : embedded, good, strlen(good)) == PASSCODE_OK;
            took[k] += now_seconds() - t;
        }
    printf("     verify (Argon2id ops %llu, %llu MiB), %d rounds: embedded %.3f s, through passcoded %.3f s a verify: %.3fx\n",
           ops, mem >> 20, ROUNDS, took[0] / ROUNDS, took[1] / ROUNDS, took[0] > 0 ? took[1] / took[0] : 0.0);
    CHECK_MSG(ok, "bench: every verify succeeded on both back ends");
    passcode_close(embedded);
    passcode_close(service);
    for (const char *const *end = (const char *const[]){"", "-wal", "-shm", NULL}; *end; end++) {
        char name[80];
        snprintf(name, sizeof name, "%s%s", file, *end);
        unlink(name);
    }
    rmdir(dir);
}

/* The client knows its service (test_service.py starts Tests/service/fake_service.py in its
 * place): "silent", a name owner that never answers (the test shortens the bound of a call,
 * PASSCODE_SERVICE_TIMEOUT_MS, to 2 s); "key", a root-owned one that hands out a key of zeros or
 * of the wrong length; "owner", one of another uid, or on a bus that is not root's; "takeover",
 * passcoded at the open, then (after "SWAP", once the test answers) one of another uid in its
 * place: the same handle's next calls reach it not. */
static void fake(const char *kind) {
    double t = now_seconds();
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    double took = now_seconds() - t;
    if (strcmp(kind, "takeover") == 0) {
        CHECK_MSG(rc == PASSCODE_OK && s != NULL, "passcoded answers the open: %s", passcode_strerror(rc));
        if (!s) return;
        printf("SWAP\n");
        fflush(stdout);
        char line[16];
        if (!fgets(line, sizeof line, stdin)) exit(100);
        rc = passcode_verify(s, good, strlen(good));
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE, "the name's new owner is checked before the handle's next call: %s, \"%s\"",
                  passcode_strerror(rc), passcode_errmsg(s));
        uint8_t key[32];
        rc = passcode_unlock_key(s, good, strlen(good), key, sizeof key);
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE, "and before the next: %s", passcode_strerror(rc));
        passcode_close(s);
    } else if (strcmp(kind, "silent") == 0) {
        /* Its returning at all is the check (the test kills this process after 30 s, a guard
         * against a hang, not a measure of the bound); the time is printed. */
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE && s == NULL,
                  "a service that never answers: passcode_open returned in %.2f s: %s, \"%s\"", took, passcode_strerror(rc), passcode_errmsg(NULL));
    } else if (strcmp(kind, "owner") == 0) {
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE && s == NULL, "a name owner that is not passcoded: %s, \"%s\"",
                  passcode_strerror(rc), passcode_errmsg(NULL));
        /* Had the open worked, the passcode would go next: it must not. */
        if (s) {
            uint8_t key[32];
            passcode_unlock_key(s, good, strlen(good), key, sizeof key);
        }
    } else {
        CHECK_MSG(rc == PASSCODE_OK && s != NULL, "the fake service answers the open: %s", passcode_strerror(rc));
        if (!s) return;
        uint8_t key[32];
        rc = passcode_unlock_key(s, good, strlen(good), key, sizeof key);
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE, "its key refused by passcode_unlock_key: %s, \"%s\"", passcode_strerror(rc),
                  passcode_errmsg(s));
        rc = passcode_verify(s, good, strlen(good));
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE, "and by passcode_verify: %s, \"%s\"", passcode_strerror(rc), passcode_errmsg(s));
        const uint8_t note[] = "a note";
        uint8_t sealed[256];
        size_t n = 0;
        rc = passcode_seal(s, note, sizeof note, sealed, sizeof sealed, &n);
        CHECK_MSG(rc == PASSCODE_ERR_KEY_NOT_RELEASED, "nothing is sealed with it: passcode_seal -> %s", passcode_strerror(rc));
        passcode_close(s);
    }
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: service_client basics|attack|down|bench|fake APP_ID STORE_ROOT|OPS,MEM|KIND GOOD\n"); return 100; }
    app = argv[2];
    good = argv[4];
    if (strcmp(argv[1], "basics") == 0) {
        basics();
        refused_options();
        /* No bus at the address: the service cannot be reached. */
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
        passcode_status rc;
        passcode_store *s = open_service(app, &rc);
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE && s == NULL, "no bus: %s, \"%s\"", passcode_strerror(rc), passcode_errmsg(NULL));
    } else if (strcmp(argv[1], "bench") == 0) {
        bench(argv[3]);
    } else if (strcmp(argv[1], "fake") == 0) {
        fake(argv[3]);
    } else if (strcmp(argv[1], "down") == 0) {
        /* The bus answers, passcoded does not run: the open says so. */
        passcode_status rc;
        passcode_store *s = open_service(app, &rc);
        CHECK_MSG(rc == PASSCODE_ERR_SERVICE_UNAVAILABLE && s == NULL, "passcoded not running: %s, \"%s\"", passcode_strerror(rc), passcode_errmsg(NULL));
    } else {
        attack(argv[3]);
    }
    return tl_failures_status();
}
