/* libFuzzer target: each input is a program of API calls on one store (opened once, cheap
 * Argon2id, a host clock the input moves). Built with -fsanitize=fuzzer,address,undefined.
 * Every call must return a known status; the failure counter never goes negative. */
#include <passcode.h>
#include <enum_bounds.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static passcode_store *store;
static int64_t boot = 1000000, wall = 1700000000000LL;
static uint64_t boot_id = 1;
static char code[16];

/* A failed check says which one (file:line, the condition, the values) before it aborts: the store
 * carries state from input to input, so the crash input alone may not replay the failure, and this
 * line in the fuzzer's output is then the record of it. */
static void failed(int line, const char *condition, const char *format, ...) __attribute__((format(printf, 3, 4), noreturn));
static void failed(int line, const char *condition, const char *format, ...) {
    va_list ap;
    fprintf(stderr, "fuzz_api: %s:%d: check failed: %s (", __FILE__, line, condition);
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fprintf(stderr, "); the store's last message: %s\n", store ? passcode_errmsg(store) : "(no store)");
    fflush(stderr);
    abort();
}
#define REQUIRE(condition, ...) do { if (!(condition)) failed(__LINE__, #condition, __VA_ARGS__); } while (0)

static void clock_cb(void *p, int64_t *b, int64_t *w, uint64_t *id) { (void)p; *b = boot; *w = wall; *id = boot_id; }
static int32_t deliver(void *p, const char *c, size_t n, char *m, size_t size) {
    (void)p; (void)m; (void)size;
    if (n < sizeof code) { memcpy(code, c, n); code[n] = 0; }
    return 0;
}
static int32_t hook(void *p, const char *k, const char *o, const char *n, char *m, size_t size) {
    (void)p; (void)k; (void)o; (void)n;
    return (wall & 1) ? (snprintf(m, size, "odd"), 1) : 0;
}

static int32_t lifecycle(void *p, int32_t event, char *m, size_t size) {
    (void)p;
    REQUIRE(event >= TEST_FIRST_LIFECYCLE_EVENT && event <= TEST_LAST_LIFECYCLE_EVENT, "event %d", (int)event);
    return (wall & 2) ? (snprintf(m, size, "backend"), 1) : 0;
}

static void on_logout(void *p, int32_t reason) { (void)p; (void)reason; }
static void on_deleted(void *p) { (void)p; }

static char dir[] = "/dev/shm/passcode-fuzz-XXXXXX", path[64];  /* a 0700 folder of its own */

/* At the end of a run (not after a crash: then the store is evidence) the folder goes. */
static void remove_store(void) {
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char file[80];
    passcode_close(store);
    store = NULL;
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        snprintf(file, sizeof file, "%s%s", path, suffixes[k]);
        unlink(file);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    REQUIRE(mkdtemp(dir) != NULL, "%s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/store.db", dir);
    unlink(path);
    atexit(remove_store);
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_options_set_clock(o, clock_cb, NULL);
    int32_t rc = passcode_open(path, o, &store);
    REQUIRE(rc == PASSCODE_OK, "passcode_open(%s): %d %s", path, (int)rc, passcode_strerror(rc));
    passcode_options_free(o);
    passcode_set_reset_delivery_callback(store, deliver, NULL);
    passcode_set_settings_hook(store, hook, NULL);
    passcode_set_logout_callback(store, on_logout, NULL);
    passcode_set_account_deleted_callback(store, on_deleted, NULL);
    passcode_set_lifecycle_callback(store, lifecycle, NULL);
    return 0;
}

/* check(rc): reported at the line of the call that returned rc. */
static void check_at(int line, int32_t rc) {
    /* A status the library does not name is a bug; a bound here would go stale with every new one. */
    if (strcmp(passcode_strerror(rc), "unknown status") == 0) failed(line, "a known status", "status %d", (int)rc);
    if (rc == PASSCODE_ERR_INTERNAL || rc == PASSCODE_ERR_BUSY || rc == PASSCODE_ERR_CORRUPT)
        failed(line, "rc != INTERNAL, BUSY, CORRUPT", "status %d, %s", (int)rc, passcode_strerror(rc));
}
#define check(rc) check_at(__LINE__, (rc))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t i = 0;
    passcode_flow *flow = NULL;
    int32_t i32;
    int64_t i64;
    const char *str;
#define NEXT() (i < size ? data[i++] : 0)
    while (i < size) {
        uint8_t op = NEXT() % 32;
        size_t n = NEXT() % 16;
        if (n > size - i) n = size - i;
        const char *arg = (const char *)data + i;
        i += n;
        switch (op) {
        case 0: check(passcode_set(store, arg, n)); break;
        case 1: check((n & 1) ? passcode_authorize(store, arg, n) : passcode_verify(store, arg, n)); break;
        case 2: check(passcode_change(store, arg, n / 2, arg + n / 2, n - n / 2)); break;
        case 3: check(passcode_disable(store, arg, n)); break;
        case 4: check(passcode_enable(store)); break;
        case 5: check(passcode_remove(store, arg, n)); break;
        case 6: check(passcode_setting_get(store, (int32_t)(NEXT() % 20) - 2, &i64)); break;
        case 7: {
            int32_t which = (int32_t)(NEXT() % 20) - 2;
            int64_t value = (int64_t)NEXT();
            if (NEXT() % 2) value *= 60;
            check(passcode_setting_set(store, which, value));
            break;
        }
        case 8: check(passcode_event_report(store, (int32_t)(NEXT() % 6) - 1, &i32)); break;
        case 9:  /* wrapping on purpose: case 31 puts the clocks anywhere */
            boot = (int64_t)((uint64_t)boot + (uint64_t)NEXT() * 7000);
            wall = (int64_t)((uint64_t)wall + (uint64_t)(int64_t)(int8_t)NEXT() * 86400000ULL);
            if (NEXT() == 0) boot_id++;
            break;
        case 10: {
            int32_t available = NEXT() % 3, kind = (int32_t)(NEXT() % 5);
            check(passcode_biometric_set_available(store, available, kind));
            break;
        }
        case 11: {  /* the answer only when the call succeeded: a refused one (the clocks out of range, say) writes none */
            int32_t lead = -1, rc = passcode_biometric_lead(store, &lead);
            check(rc);
            REQUIRE(rc != PASSCODE_OK || lead == 0 || lead == 1, "status %d, biometric lead %d", (int)rc, (int)lead);
            check(passcode_biometric_unlock(store, &i32));
            break;
        }
        case 12: check(passcode_biometric_failed(store, &i32)); break;
        case 13:
            if (flow) { passcode_flow_free(flow); flow = NULL; }
            check(passcode_flow_new(store, (int32_t)(NEXT() % 6), &flow));
            break;
        case 14: if (flow) for (size_t k = 0; k < n; k++) check(passcode_flow_digit(flow, (int32_t)(arg[k] % 12))); break;
        case 15:
            if (flow) {
                check(passcode_flow_delete(flow)); check(passcode_flow_refresh(flow));
                check(passcode_flow_state(flow, &i32, &i32)); check(passcode_flow_prompt(flow, &str));
                check(passcode_flow_error(flow, &str, &i32)); check(passcode_flow_lockout_remaining(flow, &i64));
            }
            break;
        case 16: if (flow) check(passcode_flow_cancel(flow)); break;
        case 17: check(passcode_reset_request(store)); break;
        case 18: if (NEXT() % 2) check(passcode_reset_check(store, code, strlen(code))); else check(passcode_reset_check(store, arg, n)); break;
        case 19: check(passcode_reset_complete(store, code, strlen(code), arg, n)); break;
        case 20: check(passcode_forgot(store)); break;
        case 21: {
            char id[17];
            memcpy(id, arg, n); id[n] = 0;
            int64_t active = NEXT();
            int32_t current = NEXT() % 3;
            check(passcode_session_record(store, id, "device", "platform", active, n % 2 ? NULL : id, current));
            check(passcode_session_sign_out(store, id));
            break;
        }
        case 22: check(passcode_password_change_check(store, arg, n / 3, arg + n / 3, n / 3, arg + n / 3, n - 2 * (n / 3))); break;
        case 23: {
            char text[17];
            memcpy(text, arg, n); text[n] = 0;
            check(passcode_delete_account(store, NEXT() == 7 ? "DELETE" : text));
            break;
        }
        case 24: {  /* the event log snapshot, read whole and past its end */
            passcode_event_log *log = NULL;
            check(passcode_event_log_new(store, &log));
            size_t count = passcode_event_log_count(log);
            for (size_t k = 0; k <= count; k++) {
                int32_t kind;
                int64_t wall;
                const char *detail;
                int32_t rc = passcode_event_log_get(log, k, &kind, &wall, &detail);
                /* The library names every kind it logs. */
                REQUIRE(k == count || (rc == PASSCODE_OK && passcode_event_log_kind_name(kind) && detail),
                        "entry %zu of %zu: status %d, kind %d, detail %s", k, count, (int)rc, (int)kind, detail ? "set" : "NULL");
                REQUIRE(k < count || rc == PASSCODE_ERR_MISUSE, "entry %zu of %zu: status %d", k, count, (int)rc);
            }
            passcode_event_log_free(log);
            int32_t since = -1, src = passcode_failure_summary(store, &since, &i64);
            check(src);
            REQUIRE(src != PASSCODE_OK || since >= 0, "status %d, failures since unlock %d", (int)src, (int)since);
            /* The lock screen in one call, with a size that may be too small: MISUSE then, and
             * what it fills must be sane and agree with the single call of the same moment. */
            passcode_lock_screen screen;
            memset(&screen, 0, sizeof screen);
            screen.size = NEXT() % 2 ? sizeof screen : (size_t)NEXT() % (sizeof screen + 1);
            int32_t rc = passcode_lock_screen_read(store, &screen);
            check(rc);
            if (rc == PASSCODE_OK && screen.size == sizeof screen) {
                int32_t failures = -1;
                REQUIRE(screen.locked >= 0 && screen.locked <= 1 && screen.lockout_seconds >= 0 && screen.security_label,
                        "locked %d, lockout %lld s, label %s", (int)screen.locked, (long long)screen.lockout_seconds,
                        screen.security_label ? "set" : "NULL");
                int32_t frc = passcode_failed_attempts(store, &failures);
                REQUIRE(frc != PASSCODE_OK || failures == screen.failed_attempts, "failed attempts %d, the lock screen says %d",
                        (int)failures, (int)screen.failed_attempts);
            }
            REQUIRE(rc != PASSCODE_ERR_MISUSE || screen.size < offsetof(passcode_lock_screen, reason) + sizeof(int32_t),
                    "MISUSE for size %zu", screen.size);
            break;
        }
        case 25: {
            int32_t which = (int32_t)(NEXT() % 16);
            int64_t value = (int64_t)(int8_t)NEXT() * 60;
            check(passcode_setting_set(store, which, value));
            break;
        }
        case 26: case 28: {  /* the data key: released only on success, else a zeroed buffer */
            uint8_t key[32];
            int32_t rc;
            memset(key, 0xAA, sizeof key);
            if (op == 26) rc = passcode_unlock_key(store, arg, n, key, sizeof key);
            else if (NEXT() % 2) rc = passcode_biometric_unlock_key(store, key, sizeof key, &i32);
            else rc = passcode_flow_take_key(flow, key, sizeof key);  /* NULL flow: INVALID_HANDLE, zeroed */
            check(rc);
            uint8_t acc = 0;
            for (size_t k = 0; k < sizeof key; k++) acc |= key[k];
            REQUIRE((rc == PASSCODE_OK) == (acc != 0), "op %d: status %d, key %s", (int)op, (int)rc, acc ? "written" : "zero");
            break;
        }
        case 27: {  /* seal then unseal: the same bytes back; the raw input never unseals */
            uint8_t sealed[16 + 52], back[16 + 52];
            size_t len = 0, got = 0;
            int32_t rc = passcode_seal(store, (const uint8_t *)arg, n, sealed, sizeof sealed, &len);
            check(rc);
            if (rc == PASSCODE_OK) {
                REQUIRE(len == n + passcode_seal_overhead(), "sealed %zu bytes into %zu", n, len);
                size_t at = NEXT() % len;
                uint8_t flip = (uint8_t)(1 + NEXT() % 255);
                if (NEXT() % 2) sealed[at] ^= flip;
                else {
                    int32_t urc = passcode_unseal(store, sealed, len, back, sizeof back, &got);
                    REQUIRE(urc == PASSCODE_OK && got == n && memcmp(back, arg, n) == 0,
                            "unseal: status %d, %zu bytes back of %zu", (int)urc, got, n);
                }
                check(passcode_unseal(store, sealed, len, back, sizeof back, &got));
            }
            REQUIRE(passcode_unseal(store, (const uint8_t *)arg, n, back, sizeof back, &got) != PASSCODE_OK, "%zu raw bytes unsealed", n);
            break;
        }
        case 29: {  /* the recovery key */
            uint8_t rk[32] = {0};
            memcpy(rk, arg, n);
            switch (NEXT() % 4) {
            case 0: check(passcode_set_recovery_key(store, rk, sizeof rk)); break;
            case 1: check(passcode_clear_recovery_key(store)); break;
            case 2: check(passcode_has_recovery_key(store, &i32)); break;
            default: check(passcode_reset_complete_with_recovery_key(store, code, strlen(code), "386491", 6, rk, sizeof rk)); break;
            }
            break;
        }
        case 30: {  /* lengths: the caller's buffers are never touched past what a length allows */
            /* Impossible lengths: over PTRDIFF_MAX, and the seal/unseal ones between their 2^32
             * maximum and INT64_MAX - 52 (with capacities no buffer has: refused, nothing read). */
            static const size_t huge[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2, (size_t)1 << 63, 4097,
                                          ((size_t)1 << 32) + 53, ((size_t)1 << 38) + 100, (size_t)1 << 40, (size_t)1 << 47,
                                          (size_t)1 << 62, (size_t)INT64_MAX - 52, (size_t)INT64_MAX - 51};
            static const size_t key_lengths[] = {0, 1, 16, 31, 33, 64, SIZE_MAX, SIZE_MAX - 31, SIZE_MAX / 2, PTRDIFF_MAX};
            static const size_t capacities[] = {(size_t)1 << 47, (size_t)INT64_MAX, SIZE_MAX, 128};
            size_t len = huge[NEXT() % 12], klen = key_lengths[NEXT() % 10];
            uint8_t key[64], out[128], sealed[128] = {0x50, 0x43, 0x53, 0x01};
            size_t got = 0;
            /* A real capacity for a length that could be real (its bytes are not there to read);
             * else one no buffer has (2^47 and more): refused before anything is written. */
            size_t cap = len > ((size_t)1 << 32) + 52 ? capacities[NEXT() % 4] : sizeof out;
            int64_t values[1];
            memset(key, 0xAA, sizeof key);
            switch (NEXT() % 13) {
            case 0: check(passcode_unlock_key(store, arg, n, key, klen)); break;
            case 1: check(passcode_biometric_unlock_key(store, key, klen, &i32)); break;
            case 2: check(passcode_flow_take_key(flow, key, klen)); break;  /* NULL or a closed store's flow too */
            case 3: check(passcode_verify(store, arg, len)); break;
            case 4: check(passcode_set(store, arg, len)); break;
            case 5: check(passcode_reset_check(store, arg, len)); break;
            case 6: check(passcode_reset_complete(store, code, strlen(code), arg, len)); break;
            case 7: check(passcode_seal(store, (const uint8_t *)arg, len, out, cap, &got)); break;
            case 8: check(passcode_unseal(store, sealed, len, out, cap, &got)); break;
            case 9: check(passcode_set_recovery_key(store, key, len)); break;
            case 10: check(passcode_password_change_check(store, arg, len, arg, n, arg, n)); break;
            case 11: {  /* an impossible capacity (over (2^47 - 1) / 8 values): MISUSE; else the room of one value */
                const size_t most = ((((size_t)1) << 47) - 1) / 8;
                int32_t rc = passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, values, len > most ? len : 1, &got);
                REQUIRE(rc == (len > most ? PASSCODE_ERR_MISUSE : PASSCODE_ERR_BUFFER_TOO_SMALL), "capacity %zu: status %d", len, (int)rc);
                break;
            }
            default: check(passcode_password_change_check(store, "old", 3, arg, n, arg, len)); break;
            }
            for (size_t k = 32; k < sizeof key; k++)  /* never past the key's size */
                REQUIRE(key[k] == 0xAA, "byte %zu written past the key (length %zu)", k, klen);
            if (klen != 32)  /* a wrong length: untouched */
                for (size_t k = 0; k < 32; k++) REQUIRE(key[k] == 0xAA, "byte %zu written for key length %zu", k, klen);
            break;
        }
        case 31: {  /* clocks anywhere, in or out of the accepted range */
            static const int64_t at[] = {0, 1, -1, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1,
                                         (INT64_MAX / 4), (INT64_MAX / 4) + 1, -(INT64_MAX / 4), 1000000, 1700000000000LL};
            boot = at[NEXT() % 12];
            wall = at[NEXT() % 12];
            int32_t rc = passcode_reset_request(store);
            check(rc);
            int in_range = boot >= 0 && boot <= INT64_MAX / 4 && wall >= -(INT64_MAX / 4) && wall <= INT64_MAX / 4;
            REQUIRE(in_range || rc == PASSCODE_ERR_CLOCK_OUT_OF_RANGE || rc == PASSCODE_ERR_STATE,
                    "boot %lld, wall %lld: status %d", (long long)boot, (long long)wall, (int)rc);
            check(passcode_verify(store, arg, n));
            check(passcode_event_report(store, (int32_t)(NEXT() % 4), &i32));
            check(passcode_biometric_unlock(store, &i32));
            check(passcode_lockout_remaining(store, &i64));
            /* Service mode with the host's clock, under any app id: refused at the open, before
             * any bus is reached (an id refused by the setter leaves the embedded store). */
            passcode_options *so = NULL;
            passcode_options_new(&so);
            char id[17];
            memcpy(id, arg, n);
            id[n] = 0;
            int32_t src = passcode_options_set_service(so, id);
            check(src);
            passcode_options_set_cost_explicit(so, 1, 8192);
            passcode_options_set_clock(so, clock_cb, NULL);
            passcode_store *other = NULL;
            int32_t orc = passcode_open(path, so, &other);
            check(orc);
            REQUIRE(src != PASSCODE_OK || (orc == PASSCODE_ERR_REFUSED_IN_SERVICE_MODE && other == NULL),
                    "service mode with a host clock, app id of %zu bytes: set %d, open %d", n, (int)src, (int)orc);
            passcode_close(other);
            passcode_options_free(so);
            break;
        }
        }
        int32_t frc = passcode_failed_attempts(store, &i32);
        REQUIRE(frc == PASSCODE_OK && i32 >= 0, "op %d: failed attempts: status %d, %d", (int)op, (int)frc, (int)i32);
    }
    passcode_flow_free(flow);
    return 0;
}
