/* Biometrics per boot, "Require on App Launch", the data key in the session keyring across
 * processes, and the lifecycle callback. test_api runs in a session keyring of its
 * own (test_api.c), shared with the child processes it starts. */
#include "api_support.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>

#define KEY 32
static const char proof_text[] = "session-proof";

/* ---- the session keyring, seen from outside the library ---------------------------------- */

typedef struct { int count; char name[128]; unsigned perm; unsigned uid; int32_t serial; } entries;

/* The libpasscode entries of our session keyring, with the last one's name and permissions. */
static entries session_entries(void) {
    entries e = {0};
    int32_t ids[256];
    long n = syscall(SYS_keyctl, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, ids, sizeof ids);
    if (n < 0) return e;
    if (n > (long)sizeof ids) n = sizeof ids;
    for (long i = 0; i < n / 4; i++) {
        char d[256];
        long k = syscall(SYS_keyctl, KEYCTL_DESCRIBE, ids[i], d, sizeof d);
        if (k <= 0) continue;
        d[sizeof d - 1] = 0;
        char type[32], desc[128];
        unsigned uid = 0, gid = 0, perm = 0;
        if (sscanf(d, "%31[^;];%u;%u;%x;%127s", type, &uid, &gid, &perm, desc) != 5) continue;
        if (strcmp(type, "user") || strncmp(desc, "libpasscode:", 12)) continue;
        e.count++;
        snprintf(e.name, sizeof e.name, "%s", desc);
        e.perm = perm;
        e.uid = uid;
        e.serial = ids[i];
    }
    return e;
}

static void clear_session_entries(void) {
    int32_t ids[256];
    long n = syscall(SYS_keyctl, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, ids, sizeof ids);
    for (long i = 0; i < n / 4 && i < 256; i++) {
        char d[256];
        if (syscall(SYS_keyctl, KEYCTL_DESCRIBE, ids[i], d, sizeof d) > 0 && strstr(d, ";libpasscode:"))
            syscall(SYS_keyctl, KEYCTL_INVALIDATE, ids[i]);
    }
}

static int session_count(void) { return session_entries().count; }

/* ---- the second process --------------------------------------------------------------------- */

static void hex(const uint8_t *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* test_api --session-child PATH BOOT_MS WALL_MS BOOT_ID: a later launch of the app in this login
 * session. It reports the launch, goes to the background past the auto-lock, comes back, and
 * reports a biometric match; prints "status refusal locked-before lead sealed-proof-hex". */
int session_child(int argc, char **argv) {
    if (argc != 6) return 2;
    the_clock.boot_ms = strtoll(argv[3], NULL, 10);
    the_clock.wall_ms = strtoll(argv[4], NULL, 10);
    the_clock.boot_id = strtoull(argv[5], NULL, 10);
    passcode_store *s = open_fast(argv[2]);
    int32_t locked = 0, refusal = -1, lead = -1;
    uint8_t key[KEY], sealed[sizeof proof_text + 64];
    size_t n = 0;
    char text[2 * sizeof sealed + 2] = "-";
    passcode_event_report(s, PASSCODE_APP_EVENT_LAUNCHED, &locked);
    passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL);
    the_clock.boot_ms += 3600 * 1000;
    passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, &locked);
    passcode_biometric_lead(s, &lead);
    int32_t rc = passcode_biometric_unlock_key(s, key, KEY, &refusal);
    if (rc == PASSCODE_OK && passcode_seal(s, (const uint8_t *)proof_text, sizeof proof_text, sealed, sizeof sealed, &n) == PASSCODE_OK)
        hex(sealed, n, text);
    printf("%d %d %d %d %s\n", rc, refusal, locked, lead, text);
    passcode_close(s);
    return 0;
}

typedef struct { int rc, refusal, locked, lead; char sealed[256]; } child_result;

static child_result run_child(const char *path, uint64_t boot_id) {
    char line[512] = "";
    child_result r = { -1, -1, -1, -1, "" };
    CHECK(run_self("--session-child", path, boot_id, line, sizeof line));
    CHECK(sscanf(line, "%d %d %d %d %255s", &r.rc, &r.refusal, &r.locked, &r.lead, r.sealed) == 5);
    return r;
}

/* Whether the child's sealed proof opens with this handle's key (the same data key). */
static int opens_here(passcode_store *s, const char *hexs) {
    uint8_t sealed[128], out[64];
    size_t n = strlen(hexs) / 2, got = 0;
    if (n == 0 || n > sizeof sealed) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hexs + 2 * i, "%2x", &v) != 1) return 0;
        sealed[i] = (uint8_t)v;
    }
    return passcode_unseal(s, sealed, n, out, sizeof out, &got) == PASSCODE_OK && got == sizeof proof_text
           && memcmp(out, proof_text, got) == 0;
}

/* A store with a passcode and biometric unlock on, unlocked (the passcode just entered). */
static passcode_store *biometric_store(char *path, size_t size, mailbox *m) {
    passcode_store *s = store_with_passcode(path, size, m);
    CHECK_STATUS(passcode_set_logout_callback(s, mailbox_logout, m), PASSCODE_OK);
    CHECK_STATUS(passcode_set_account_deleted_callback(s, mailbox_deleted, m), PASSCODE_OK);
    CHECK_STATUS(passcode_biometric_set_available(s, 1, PASSCODE_BIOMETRIC_KIND_FACE_ID), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    return s;
}

static void relaunch(passcode_store **s, const char *path) {
    passcode_close(*s);
    *s = open_fast(path);
    CHECK_STATUS(passcode_event_report(*s, PASSCODE_APP_EVENT_LAUNCHED, NULL), PASSCODE_OK);
}

static void background_past_timeout(passcode_store *s, int32_t *locked) {
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_BACKGROUND, NULL), PASSCODE_OK);
    advance_ms(3600 * 1000);
    CHECK_STATUS(passcode_event_report(s, PASSCODE_APP_EVENT_FOREGROUND, locked), PASSCODE_OK);
}

/* ---- per boot, as on iOS ---------------------------------------------------------------------- */

/* Lock at launch off: relaunch in the same boot, background past the
 * timeout, come back: locked, the biometric prompt leads, and a match unlocks (in service mode
 * passcoded's match, read through the fprintd template). "Passcode after every launch" keeps the
 * stricter rule. */
static void test_biometrics_per_boot(void) {
    char path[512];
    mailbox m = {0};
    int32_t locked = 0, refusal = -1, lead = -1;
    service_reader(1);
    passcode_store *s = biometric_store(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    relaunch(&s, path);
    CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 0);  /* a fresh launch does not lock */
    background_past_timeout(s, &locked);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
    CHECK(lead == 1);  /* test 7: the prompt shows automatically */
    CHECK_STATUS(passcode_biometric_lead(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_biometric_lead(NULL, &lead), PASSCODE_ERR_INVALID_HANDLE);
    service_finger("verify-match");
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);  /* test 8 */
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE);
    CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 0);
    /* A finger that does not match: counted as a failed match, still locked (embedded the host
     * reports it; in service mode passcoded read it, and the host's report is the second). */
    background_past_timeout(s, &locked);
    int32_t count = -1;
    if (service_backend) {
        service_finger("verify-no-match");
        CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    }
    CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
    CHECK(count == (service_backend ? 2 : 1));
    CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 1);
    service_finger("verify-match");
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);
    CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
    CHECK(locked == 0);
    /* "Passcode after every launch" keeps the stricter rule. */
    CHECK(get_setting(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH) == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 1), PASSCODE_OK);
    relaunch(&s, path);
    background_past_timeout(s, &locked);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_FIRST_UNLOCK_AFTER_LAUNCH);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    /* Turning it off again weakens: it needs the passcode within 5 minutes. */
    advance_ms(6 * 60 * 1000);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 0), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK_STATUS(passcode_authorize(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 0), PASSCODE_OK);
    passcode_close(s);
    service_reader(0);
}

/* After a restart (a new boot id) only the passcode unlocks; then a match does again. The boot id
 * is the host clock's: passcoded's is the machine's, which a test cannot restart. */
static void test_biometrics_after_a_restart(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512];
    mailbox m = {0};
    int32_t locked = 0, refusal = -1, lead = -1;
    passcode_store *s = biometric_store(path, sizeof path, &m);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0), PASSCODE_OK);
    the_clock.boot_id++;
    relaunch(&s, path);
    background_past_timeout(s, &locked);
    CHECK(locked == 1);
    CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
    CHECK(lead == 0);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_ERR_PASSCODE_REQUIRED);
    CHECK(refusal == PASSCODE_BIOMETRIC_REFUSAL_DEVICE_RESTARTED);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    background_past_timeout(s, &locked);
    CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);  /* the boot's first unlock was done */
    passcode_close(s);
}

/* The table at passcode_biometric_lead: every combination of lock at launch and "Require on
 * App Launch", what a launch does and what the lock screen leads with. */
static void test_require_on_app_launch_table(void) {
    service_reader(1);  /* in service mode passcoded reads the finger (the fprintd template) */
    static const struct { int at_launch, require, locks, lead; } rows[] = {
        { 0, 0, 0, -1 }, { 1, 0, 1, 0 }, { 0, 1, 1, 1 }, { 1, 1, 1, 1 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char path[512];
        mailbox m = {0};
        int32_t locked = -1, lead = -1, reason = -1, refusal = -1;
        passcode_store *s = biometric_store(path, sizeof path, &m);
        CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, rows[i].at_launch), PASSCODE_OK);
        CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, rows[i].require), PASSCODE_OK);
        relaunch(&s, path);
        CHECK_STATUS(passcode_lock_state(s, &locked, &reason), PASSCODE_OK);
        CHECK(locked == rows[i].locks);
        CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
        if (rows[i].locks) {
            CHECK(reason == PASSCODE_LOCK_REASON_LAUNCH && lead == rows[i].lead);
            service_finger("verify-match");
            CHECK_STATUS(passcode_biometric_unlock(s, &refusal), PASSCODE_OK);  /* per boot: allowed */
            CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
            CHECK(locked == 0);
        } else {
            CHECK(lead == 0);  /* nothing to lead: not locked */
            background_past_timeout(s, &locked);
            CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
            CHECK(locked == 1 && lead == 1);  /* a later lock leads with the prompt */
        }
        /* With "passcode after every launch", a launch never leads with biometrics. */
        if (rows[i].require) {
            CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
            CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 1), PASSCODE_OK);
            relaunch(&s, path);
            CHECK_STATUS(passcode_lock_state(s, &locked, NULL), PASSCODE_OK);
            CHECK_STATUS(passcode_biometric_lead(s, &lead), PASSCODE_OK);
            CHECK_STATUS(passcode_biometric_check(s, &refusal), PASSCODE_OK);
            CHECK(locked == 1 && lead == 0 && refusal == PASSCODE_BIOMETRIC_REFUSAL_FIRST_UNLOCK_AFTER_LAUNCH);
        }
        printf("lock_at_launch=%d require_on_launch=%d: launch %s, lead %s\n", rows[i].at_launch, rows[i].require,
               rows[i].locks ? "locks" : "does not lock", rows[i].lead == 1 ? "biometric prompt" : rows[i].lead == 0 ? "passcode pad" : "-");
        passcode_close(s);
    }
    service_reader(0);
}

/* ---- the data key across processes: the session keyring ------------------------------------- */

static void show_session_keyring(int32_t serial) {
    if (system("command -v keyctl > /dev/null 2>&1") == 0) {
        char cmd[64];
        printf("$ keyctl show @s\n");
        fflush(stdout);
        if (system("keyctl show @s") != 0) printf("(keyctl show failed)\n");
        snprintf(cmd, sizeof cmd, "keyctl rdescribe %d", (int)serial);
        printf("$ %s   (type;uid;gid;permissions;name)\n", cmd);
        fflush(stdout);
        if (system(cmd) != 0) printf("(keyctl rdescribe failed)\n");
    } else {
        printf("(keyctl not installed: the keyutils package; make test installs it)\n");
    }
    fflush(stdout);
}

static void test_a_later_process_of_the_session_gets_the_key_by_biometrics(void) {
    EMBEDDED_ONLY(ONLY_CLOCK);
    char path[512];
    mailbox m = {0};
    clear_session_entries();
    passcode_store *s = biometric_store(path, sizeof path, &m);
    entries e = session_entries();
    CHECK(e.count == 1);
    CHECK(e.perm == 0x3f000000u);  /* possessor: all; user, group, other: nothing */
    CHECK(e.uid == (unsigned)getuid());
    printf("session keyring: %d entry %s, permissions %08x (possessor only)\n", e.count, e.name, e.perm);
    show_session_keyring(e.serial);
    /* The second process: biometric release of the same key (it seals, we unseal). */
    child_result r = run_child(path, the_clock.boot_id);
    /* (Locked at launch: the pad leads, with the biometric button; see the lead table.) */
    CHECK(r.rc == PASSCODE_OK && r.refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE && r.locked == 1 && r.lead == 0);
    CHECK(opens_here(s, r.sealed));
    printf("second process, same boot and session: biometric release OK, sealed data opens in the first\n");
    /* A new boot id: refused, and the entry goes. */
    r = run_child(path, the_clock.boot_id + 1);
    CHECK(r.rc == PASSCODE_ERR_PASSCODE_REQUIRED && r.refusal == PASSCODE_BIOMETRIC_REFUSAL_DEVICE_RESTARTED);
    CHECK(!strcmp(r.sealed, "-") && r.lead == 0);
    CHECK(session_count() == 0);
    r = run_child(path, the_clock.boot_id);
    CHECK(r.rc == PASSCODE_ERR_PASSCODE_REQUIRED && r.refusal == PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY);
    /* The next passcode unlock puts it back. */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK(session_count() == 1);
    /* A process that opted out changes an unrelated setting: the entry stays (only the settings
     * that forbid it, and the security events, remove it). */
    {
        passcode_options *o = fast_options();
        passcode_store *other = NULL;
        CHECK_STATUS(passcode_options_set_session_keyring(o, 0), PASSCODE_OK);
        CHECK_STATUS(passcode_open(path, o, &other), PASSCODE_OK);
        passcode_options_free(o);
        CHECK_STATUS(passcode_setting_set(other, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 60), PASSCODE_OK);
        CHECK(session_count() == 1);
        passcode_close(other);
    }
    r = run_child(path, the_clock.boot_id);
    CHECK(r.rc == PASSCODE_OK && opens_here(s, r.sealed));
    passcode_close(s);
    clear_session_entries();
}

/* A changed passcode, and a reset by email, move the entry (a new wrap, a new name): the old
 * one goes, and a later process gets the key the store has now. */
static void test_a_change_or_reset_moves_the_entry(void) {
    /* Service mode's counterpart of the reset: test_a_reset_by_mail_replaces_the_key_and_turns_biometrics_off. */
    EMBEDDED_ONLY(ONLY_KEYRING);
    char path[512], before[128];
    mailbox m = {0};
    clear_session_entries();
    passcode_store *s = biometric_store(path, sizeof path, &m);
    snprintf(before, sizeof before, "%s", session_entries().name);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    entries e = session_entries();
    CHECK(e.count == 1 && strcmp(e.name, before) != 0);
    child_result r = run_child(path, the_clock.boot_id);
    CHECK(r.rc == PASSCODE_OK && opens_here(s, r.sealed));
    /* A reset by email from a handle that never held the key. */
    snprintf(before, sizeof before, "%s", e.name);
    passcode_close(s);
    s = open_fast(path);
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    CHECK(session_count() == 1);  /* a request alone changes nothing */
    /* Done; the child sealed with the old key, so the reset says that key was replaced. */
    CHECK_STATUS(passcode_reset_complete(s, m.code, strlen(m.code), PC3, LEN), PASSCODE_ERR_KEY_REPLACED);
    /* A reset proves the user, not the passcode: biometric unlock starts off again,
     * and the host turns it back on with the proof the new passcode gave. */
    int64_t bio = -1;
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, &bio), PASSCODE_OK);
    CHECK(bio == 0 && session_count() == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);
    e = session_entries();
    CHECK(e.count == 1 && strcmp(e.name, before) != 0);
    r = run_child(path, the_clock.boot_id);
    CHECK(r.rc == PASSCODE_OK && opens_here(s, r.sealed));  /* the new key: this handle has it */
    passcode_close(s);
    clear_session_entries();
}

/* A reset by email from a handle that never held the key says that the key taken earlier was
 * replaced, and biometric unlock starts off again (a reset proves the user, not the passcode),
 * which the new passcode's proof turns back on; on both back ends, the code from the host's
 * callback or, in service mode, from passcoded's mail. */
static void test_a_reset_by_mail_replaces_the_key_and_turns_biometrics_off(void) {
    char path[512];
    mailbox m = {0};
    uint8_t key[KEY], out[KEY];
    int64_t bio = -1;
    service_reader(1);
    passcode_store *s = biometric_store(path, sizeof path, &m);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
    passcode_close(s);
    s = open_fast(path);
    mailbox_attach(s, &m);
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, &bio), PASSCODE_OK);
    CHECK(bio == 1);  /* a request alone changes nothing */
    CHECK_STATUS(passcode_reset_complete(s, m.code, strlen(m.code), PC3, LEN), PASSCODE_ERR_KEY_REPLACED);
    CHECK_STATUS(passcode_setting_get(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, &bio), PASSCODE_OK);
    CHECK(bio == 0);
    CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 1), PASSCODE_OK);  /* the new passcode's proof */
    CHECK_STATUS(passcode_unlock_key(s, PC3, LEN, out, KEY), PASSCODE_OK);
    CHECK(memcmp(out, key, KEY) != 0);  /* the reset did complete, with a new key */
    passcode_close(s);
    clear_session_entries();
    service_reader(0);
}

/* A later launch of the app (a new handle) asks for the key by a match (in service mode
 * passcoded reads it: a match is queued): the status, and a released key must be `key`. */
static int32_t later_launch_key(const char *path, const uint8_t key[KEY]) {
    uint8_t out[KEY];
    int32_t refusal = -1;
    passcode_store *t = open_fast(path);
    CHECK_STATUS(passcode_event_report(t, PASSCODE_APP_EVENT_LAUNCHED, NULL), PASSCODE_OK);
    service_finger("verify-match");
    int32_t rc = passcode_biometric_unlock_key(t, out, KEY, &refusal);
    if (rc == PASSCODE_OK) CHECK(memcmp(out, key, KEY) == 0);
    passcode_close(t);
    return rc;
}

/* Each such event takes the entry out, whichever process made it: a later launch no longer gets
 * the key by a match. In service mode, where passcoded holds the key instead of the session
 * keyring, the same events make it let go of it. */
static void test_revocation(void) {
    static const char *events[] = {
        "5 failed matches", "maximum failures", "forgot passcode", "delete account", "remove passcode",
        "passcode after every launch", "biometric unlock off",
    };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        char path[512];
        mailbox m = {0};
        uint8_t key[KEY];
        int32_t count = 0, locked = 0;
        service_reader(1);  /* a reader of its own each time: a match a refusal left unread goes with it */
        clear_session_entries();
        passcode_store *s = biometric_store(path, sizeof path, &m);
        CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, KEY), PASSCODE_OK);
        if (!service_backend) CHECK(session_count() == 1);
        passcode_close(s);
        CHECK_STATUS(later_launch_key(path, key), PASSCODE_OK);  /* before the event: it does */
        /* The event happens in a handle that never held the key (another process's view). */
        s = open_fast(path);
        CHECK_STATUS(passcode_set_logout_callback(s, mailbox_logout, &m), PASSCODE_OK);
        CHECK_STATUS(passcode_set_account_deleted_callback(s, mailbox_deleted, &m), PASSCODE_OK);
        switch (i) {
        case 0:
            background_past_timeout(s, &locked);
            for (int k = 0; k < 5; k++) CHECK_STATUS(passcode_biometric_failed(s, &count), PASSCODE_OK);
            break;
        case 1:
            for (int k = 0; k < 40 && (service_backend || session_count() > 0); k++) {
                char guess[8];
                snprintf(guess, sizeof guess, "%06d", 100000 + k * 7919);
                int32_t rc = passcode_verify(s, guess, LEN);
                if (rc == PASSCODE_ERR_LOCKED_OUT) advance_ms(passcode_errwait(s) * 1000);
                else if (rc == PASSCODE_ERR_RESET_REQUIRED) break;
            }
            CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_RESET_REQUIRED);
            break;
        case 2: CHECK_STATUS(passcode_forgot(s), PASSCODE_OK); break;
        case 3: CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK); break;
        case 4: CHECK_STATUS(passcode_remove(s, PC1, LEN), PASSCODE_OK); break;
        case 5: CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, 1), PASSCODE_OK); break;
        case 6:
            CHECK_STATUS(passcode_authorize(s, PC1, LEN), PASSCODE_OK);  /* puts it back first... */
            if (!service_backend) CHECK(session_count() == 1);
            CHECK_STATUS(passcode_setting_set(s, PASSCODE_SETTING_BIOMETRIC_ENABLED, 0), PASSCODE_OK);  /* ...then off */
            break;
        }
        int32_t later = later_launch_key(path, key);
        CHECK(later != PASSCODE_OK);
        if (!service_backend) {
            CHECK(session_count() == 0);
            child_result r = run_child(path, the_clock.boot_id);
            CHECK(r.rc != PASSCODE_OK && !strcmp(r.sealed, "-"));
            printf("session keyring entry removed on: %s (second process then: %s)\n", events[i], passcode_strerror(r.rc));
        } else {
            printf("passcoded let go of the key on: %s (a later launch's match then: %s)\n", events[i], passcode_strerror(later));
        }
        passcode_close(s);
        service_reader(0);
    }
    clear_session_entries();
}

/* ---- the lifecycle callback -------------------------------------------------------------------- */

typedef struct { int events[32]; int count, calls, fail; } lifecycle_log;

static int32_t on_lifecycle(void *payload, int32_t event, char *message, size_t size) {
    lifecycle_log *l = payload;
    l->calls++;
    if (l->fail) { snprintf(message, size, "backend offline"); return 1; }
    if (l->count < 32) l->events[l->count++] = event;
    return 0;
}

static void test_lifecycle_callback(void) {
    char path[512];
    mailbox m = {0};
    lifecycle_log l = {0};
    int32_t enabled = -1, set = -1;
    new_path(path, sizeof path, "lifecycle.db");
    passcode_store *s = open_fast(path);
    CHECK_STATUS(passcode_set_lifecycle_callback(NULL, on_lifecycle, &l), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_set_lifecycle_callback(s, on_lifecycle, &l), PASSCODE_OK);
    CHECK_STATUS(passcode_set_logout_callback(s, mailbox_logout, &m), PASSCODE_OK);
#define REFUSED_THEN_DONE(call, unchanged) do { \
        l.fail = 1; \
        CHECK_STATUS(call, PASSCODE_ERR_HOOK_FAILED); \
        CHECK(strstr(passcode_errmsg(s), "backend offline") != NULL); \
        CHECK(unchanged); \
        l.fail = 0; \
        CHECK_STATUS(call, PASSCODE_OK); \
    } while (0)
    REFUSED_THEN_DONE(passcode_set(s, PC1, LEN), passcode_is_set(s, &set) == PASSCODE_OK && set == 0);
    REFUSED_THEN_DONE(passcode_change(s, PC1, LEN, PC2, LEN), passcode_verify(s, PC1, LEN) == PASSCODE_OK);
    REFUSED_THEN_DONE(passcode_disable(s, PC2, LEN), passcode_is_enabled(s, &enabled) == PASSCODE_OK && enabled == 1);
    REFUSED_THEN_DONE(passcode_enable(s), passcode_is_enabled(s, &enabled) == PASSCODE_OK && enabled == 0);
    mailbox_attach(s, &m);  /* the host's callback; in service mode passcoded mails the code */
    CHECK_STATUS(request_code(s, &m), PASSCODE_OK);
    REFUSED_THEN_DONE(passcode_reset_complete(s, m.code, strlen(m.code), PC3, LEN),
                      passcode_reset_check(s, m.code, strlen(m.code)) == PASSCODE_OK);  /* still pending, nothing replaced */
    REFUSED_THEN_DONE(passcode_remove(s, PC3, LEN), passcode_is_set(s, &set) == PASSCODE_OK && set == 1);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    REFUSED_THEN_DONE(passcode_forgot(s), passcode_is_set(s, &set) == PASSCODE_OK && set == 1 && m.logouts == 0);
    CHECK(m.logouts == 1);
#undef REFUSED_THEN_DONE
    static const int want[] = {
        PASSCODE_LIFECYCLE_EVENT_SET, PASSCODE_LIFECYCLE_EVENT_CHANGED, PASSCODE_LIFECYCLE_EVENT_DISABLED,
        PASSCODE_LIFECYCLE_EVENT_ENABLED, PASSCODE_LIFECYCLE_EVENT_RESET, PASSCODE_LIFECYCLE_EVENT_REMOVED,
        PASSCODE_LIFECYCLE_EVENT_SET, PASSCODE_LIFECYCLE_EVENT_FORGOT,
    };
    CHECK(l.count == (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < l.count && i < (int)(sizeof want / sizeof want[0]); i++) CHECK(l.events[i] == want[i]);
    /* A wrong current passcode is refused (and counted) before the host is asked. */
    int calls = l.calls;
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC3, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(l.calls == calls + 1 && failures(s) == 1);
    /* A flow: a refusal at the last digit shows the host's message and stays at "confirm". */
    passcode_flow *f = NULL;
    int32_t step = -1, result = -1, status = -1;
    const char *text = NULL;
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_CHANGE, &f), PASSCODE_OK);
    for (const char *p = PC2 PC3; *p; p++) CHECK_STATUS(passcode_flow_digit(f, *p - '0'), PASSCODE_OK);
    l.fail = 1;
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_CONFIRM_NEW);
    for (const char *p = PC3; *p; p++) CHECK_STATUS(passcode_flow_digit(f, *p - '0'), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_error(f, &text, &status), PASSCODE_OK);
    int32_t prompt = -1, error = -1;
    CHECK_STATUS(passcode_flow_messages(f, &prompt, &error, NULL), PASSCODE_OK);
    /* The person reads the table's words (the host's hook message stays in passcode_errmsg). */
    CHECK(step == PASSCODE_FLOW_STEP_CONFIRM_NEW && status == PASSCODE_ERR_HOOK_FAILED && error == PASSCODE_MESSAGE_CHANGE_REFUSED &&
          strcmp(text, "The change was not accepted. Try again later.") == 0);
    l.fail = 0;
    for (const char *p = PC3; *p; p++) CHECK_STATUS(passcode_flow_digit(f, *p - '0'), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_state(f, &step, &result), PASSCODE_OK);
    CHECK(step == PASSCODE_FLOW_STEP_FINISHED && result == PASSCODE_FLOW_RESULT_SUCCESS);
    CHECK(l.events[l.count - 1] == PASSCODE_LIFECYCLE_EVENT_CHANGED);
    passcode_flow_free(f);
    CHECK_STATUS(passcode_verify(s, PC3, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_lifecycle_callback(s, NULL, NULL), PASSCODE_OK);
    passcode_close(s);
}

void run_session_tests(void) {
    RUN(test_biometrics_per_boot);
    RUN(test_biometrics_after_a_restart);
    RUN(test_require_on_app_launch_table);
    RUN(test_a_later_process_of_the_session_gets_the_key_by_biometrics);
    RUN(test_a_change_or_reset_moves_the_entry);
    RUN(test_a_reset_by_mail_replaces_the_key_and_turns_biometrics_off);
    RUN(test_revocation);
    RUN(test_lifecycle_callback);
}
