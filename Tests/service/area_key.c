/* The data key, sealing and entry flows through passcoded (run by test_service.py as
 * `area_key APP_ID GOOD`): each sequence runs on an embedded store in a temp folder (at the test
 * service's Argon2id cost) and through the service, and both must give the same statuses,
 * steps, prompts, dots, shakes, error texts and (per store) the same key. A second process of the
 * same user (fork + exec of this program as `area_key --child APP_ID PASSCODE HEX`) must not
 * unseal what the first sealed until it unlocks for itself. */
#define _GNU_SOURCE
#include "service_support.h"

#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#define NEW2 "284619"
#define WRONG "000001"
#define KEYLEN 32

typedef struct {
    const char *name;
    passcode_store *s;
    char log[16384];  /* every flow observation, compared between the two sides */
} side;

static void note(side *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(side *d, const char *fmt, ...) {
    size_t n = strlen(d->log);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->log + n, sizeof d->log - n, fmt, ap);
    va_end(ap);
}

static void type(passcode_flow *f, const char *digits) {
    for (const char *p = digits; *p; p++) passcode_flow_digit(f, *p - '0');
}

/* Checks the flow's step, result, prompt, dots, error line, last status and shake count, and
 * records them in the side's log. */
static void expect(side *d, passcode_flow *f, const char *what, int step, int result, const char *prompt, int filled,
                   int length, const char *error, passcode_status status, int shakes) {
    int32_t st = -1, rs = -1, fl = -1, ln = -1, sh = -1;
    const char *pr = NULL, *er = NULL;
    int32_t es = -1;
    passcode_status r1 = passcode_flow_state(f, &st, &rs), r2 = passcode_flow_prompt(f, &pr), r3 = passcode_flow_dots(f, &fl, &ln);
    passcode_status r4 = passcode_flow_error(f, &er, &es), r5 = passcode_flow_shakes(f, &sh);
    int calls_ok = r1 == PASSCODE_OK && r2 == PASSCODE_OK && r3 == PASSCODE_OK && r4 == PASSCODE_OK && r5 == PASSCODE_OK;
    const char *p = pr ? pr : "(null)", *e = er ? er : "(null)";
    note(d, "%s: step %d result %d prompt '%s' dots %d/%d error '%s' status %d shakes %d\n", what, st, rs, p, fl, ln, e, es, sh);
    int ok = calls_ok && st == step && rs == result && strcmp(p, prompt) == 0 && fl == filled && ln == length &&
             (error ? strcmp(e, error) == 0 : strlen(e) > 0) && es == (int32_t)status && sh == shakes;
    CHECK_MSG(ok, "%s %s: step %d result %d prompt '%s' dots %d/%d error '%s' status %s shakes %d", d->name, what, st, rs, p, fl, ln, e,
              passcode_strerror(es), sh);
}

static int32_t failures(side *d) {
    int32_t n = -1;
    passcode_failed_attempts(d->s, &n);
    return n;
}

/* Runs the flows on one side; `key` receives the key the create flow gave. */
static void run_flows(side *d, const char *good, uint8_t key[KEYLEN]) {
    passcode_flow *f = NULL;
    passcode_status rc = passcode_flow_new(d->s, PASSCODE_FLOW_KIND_UNLOCK, &f);
    CHECK_MSG(rc == PASSCODE_ERR_NO_PASSCODE && f == NULL, "%s: an unlock flow without a passcode -> %s", d->name, passcode_strerror(rc));
    note(d, "unlock without passcode: %d\n", rc);
    rc = passcode_flow_new(d->s, PASSCODE_FLOW_KIND_RESET, &f);
    CHECK_MSG(rc == PASSCODE_ERR_NO_PASSCODE, "%s: a reset flow without a passcode -> %s", d->name, passcode_strerror(rc));
    note(d, "reset without passcode: %d\n", rc);
    rc = passcode_flow_new(d->s, 99, &f);
    CHECK_MSG(rc == PASSCODE_ERR_MISUSE, "%s: an unknown kind -> %s", d->name, passcode_strerror(rc));

    /* Create: a weak passcode, a mismatch, then the passcode. */
    CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_CREATE, &f), PASSCODE_OK);
    expect(d, f, "create", PASSCODE_FLOW_STEP_ENTER_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter a passcode", 0, 6, "", PASSCODE_OK, 0);
    type(f, "12");
    passcode_flow_delete(f);
    expect(d, f, "create, 1 digit", PASSCODE_FLOW_STEP_ENTER_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter a passcode", 1, 6, "",
           PASSCODE_OK, 0);
    passcode_flow_delete(f);
    type(f, "111111");
    expect(d, f, "create, weak", PASSCODE_FLOW_STEP_ENTER_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter a passcode", 0, 6, NULL,
           PASSCODE_ERR_WEAK_PASSCODE, 1);
    type(f, good);
    expect(d, f, "create, confirm", PASSCODE_FLOW_STEP_CONFIRM_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Confirm passcode", 0, 6, "",
           PASSCODE_OK, 1);
    type(f, NEW2);
    expect(d, f, "create, mismatch", PASSCODE_FLOW_STEP_ENTER_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter a passcode", 0, 6,
           "Passcodes don't match. Try again.", PASSCODE_ERR_STATE, 2);
    uint8_t k[KEYLEN];
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_ERR_KEY_NOT_RELEASED);
    type(f, good);
    type(f, good);
    expect(d, f, "create, done", PASSCODE_FLOW_STEP_FINISHED, PASSCODE_FLOW_RESULT_SUCCESS, "Done", 0, 6, "", PASSCODE_OK, 2);
    CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_STATE);
    CHECK_STATUS(passcode_flow_take_key(f, key, KEYLEN), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_ERR_KEY_NOT_RELEASED);
    passcode_flow_free(f);
    int32_t set = -1;
    passcode_is_set(d->s, &set);
    CHECK_MSG(set == 1, "%s: the create flow set the passcode (is_set %d)", d->name, set);
    rc = passcode_flow_new(d->s, PASSCODE_FLOW_KIND_CREATE, &f);
    CHECK_MSG(rc == PASSCODE_ERR_ALREADY_SET, "%s: a second create flow -> %s", d->name, passcode_strerror(rc));
    note(d, "create again: %d\n", rc);
    rc = passcode_flow_new(d->s, PASSCODE_FLOW_KIND_RESET, &f);
    CHECK_MSG(rc == PASSCODE_ERR_NO_RESET_CODE, "%s: a reset flow with no code pending -> %s", d->name, passcode_strerror(rc));
    note(d, "reset without code: %d\n", rc);

    /* Unlock: a wrong passcode counts one failure; the right one gives the same key. */
    CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
    expect(d, f, "unlock", PASSCODE_FLOW_STEP_ENTER_PASSCODE, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter Passcode", 0, 6, "", PASSCODE_OK, 0);
    type(f, WRONG);
    expect(d, f, "unlock, wrong", PASSCODE_FLOW_STEP_ENTER_PASSCODE, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter Passcode", 0, 6,
           "Incorrect passcode", PASSCODE_ERR_WRONG_PASSCODE, 1);
    CHECK_MSG(failures(d) == 1, "%s: the flow's wrong passcode counted one failure (%d)", d->name, failures(d));
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_ERR_KEY_NOT_RELEASED);
    type(f, good);
    expect(d, f, "unlock, done", PASSCODE_FLOW_STEP_FINISHED, PASSCODE_FLOW_RESULT_SUCCESS, "Done", 0, 6, "", PASSCODE_OK, 1);
    CHECK_MSG(failures(d) == 0, "%s: the unlock cleared the failures (%d)", d->name, failures(d));
    memset(k, 0, KEYLEN);
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_OK);
    CHECK_MSG(memcmp(k, key, KEYLEN) == 0, "%s: the unlock flow's key is the create flow's", d->name);
    passcode_flow_free(f);

    /* Change: wrong current, then current, a new one confirmed; the key stays. */
    CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_CHANGE, &f), PASSCODE_OK);
    expect(d, f, "change", PASSCODE_FLOW_STEP_ENTER_CURRENT, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter current passcode", 0, 6, "",
           PASSCODE_OK, 0);
    type(f, WRONG);
    expect(d, f, "change, wrong", PASSCODE_FLOW_STEP_ENTER_CURRENT, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter current passcode", 0, 6,
           "Incorrect passcode", PASSCODE_ERR_WRONG_PASSCODE, 1);
    type(f, good);
    expect(d, f, "change, new", PASSCODE_FLOW_STEP_ENTER_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter new passcode", 0, 6, "",
           PASSCODE_OK, 1);
    type(f, NEW2);
    expect(d, f, "change, confirm", PASSCODE_FLOW_STEP_CONFIRM_NEW, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Confirm new passcode", 0, 6, "",
           PASSCODE_OK, 1);
    type(f, NEW2);
    expect(d, f, "change, done", PASSCODE_FLOW_STEP_FINISHED, PASSCODE_FLOW_RESULT_SUCCESS, "Done", 0, 6, "", PASSCODE_OK, 1);
    memset(k, 0, KEYLEN);
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_OK);
    CHECK_MSG(memcmp(k, key, KEYLEN) == 0, "%s: the change flow kept the key", d->name);
    passcode_flow_free(f);
    CHECK_STATUS(passcode_verify(d->s, good, 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(d->s, NEW2, 6), PASSCODE_OK);

    /* Disable with the new passcode: the lock goes off, the key is the same. */
    CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_DISABLE, &f), PASSCODE_OK);
    expect(d, f, "disable", PASSCODE_FLOW_STEP_ENTER_PASSCODE, PASSCODE_FLOW_RESULT_IN_PROGRESS, "Enter passcode to disable", 0, 6, "",
           PASSCODE_OK, 0);
    type(f, NEW2);
    expect(d, f, "disable, done", PASSCODE_FLOW_STEP_FINISHED, PASSCODE_FLOW_RESULT_SUCCESS, "Done", 0, 6, "", PASSCODE_OK, 0);
    memset(k, 0, KEYLEN);
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_OK);
    CHECK_MSG(memcmp(k, key, KEYLEN) == 0, "%s: the disable flow's key is the same", d->name);
    passcode_flow_free(f);
    int32_t enabled = -1;
    passcode_is_enabled(d->s, &enabled);
    CHECK_MSG(enabled == 0, "%s: the disable flow turned the lock off (%d)", d->name, enabled);
    note(d, "enabled after disable: %d\n", enabled);
    CHECK_STATUS(passcode_enable(d->s), PASSCODE_OK);

    /* Cancel: nothing committed, the flow says so. */
    CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_CHANGE, &f), PASSCODE_OK);
    type(f, "28");
    passcode_flow_cancel(f);
    expect(d, f, "change, cancelled", PASSCODE_FLOW_STEP_FINISHED, PASSCODE_FLOW_RESULT_CANCELLED, "Cancelled", 0, 6, "", PASSCODE_OK, 0);
    CHECK_STATUS(passcode_flow_take_key(f, k, KEYLEN), PASSCODE_ERR_KEY_NOT_RELEASED);
    passcode_flow_free(f);

    /* Closing the store ends a flow. */
    CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
    type(f, "2846");
    passcode_close(d->s);
    d->s = NULL;
    CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_MISUSE);
    passcode_flow_free(f);
}

static void tohex(const uint8_t *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* The second process: it cannot unseal the first one's data without unlocking itself. */
static int child(const char *app, const char *code, const char *hex) {
    size_t n = strlen(hex) / 2;
    uint8_t sealed[256], plain[256];
    for (size_t i = 0; i < n && i < sizeof sealed; i++) sscanf(hex + 2 * i, "%2hhx", &sealed[i]);
    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    CHECK_MSG(s != NULL, "second process: open in service mode: %s", passcode_strerror(rc));
    if (!s) return 1;
    size_t out_len = 0;
    CHECK_STATUS(passcode_unseal(s, sealed, n, plain, sizeof plain, &out_len), PASSCODE_ERR_KEY_NOT_RELEASED);
    uint8_t key[KEYLEN];
    CHECK_STATUS(passcode_unlock_key(s, code, strlen(code), key, KEYLEN), PASSCODE_OK);
    out_len = 0;
    CHECK_STATUS(passcode_unseal(s, sealed, n, plain, sizeof plain, &out_len), PASSCODE_OK);
    CHECK_MSG(out_len == 11 && memcmp(plain, "hello world", 11) == 0, "second process: after its own unlock it unseals the data");
    passcode_close(s);
    return tl_failed;
}

/* Opens the embedded store `path` at the test service's Argon2id cost. */
static passcode_store *open_embedded(const char *path) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_store *s = NULL;
    passcode_status rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    CHECK_MSG(rc == PASSCODE_OK, "open the embedded store: %s %s", passcode_strerror(rc), passcode_errmsg(NULL));
    return s;
}

/* The data key and sealing on a new handle of one side; returns the key (in `key`) and data
 * sealed with it (in `sealed`, its length in *sealed_len). */
static void run_key(side *d, uint8_t key[KEYLEN], uint8_t *sealed, size_t *sealed_len) {
    uint8_t k[KEYLEN], k2[KEYLEN], out[128], plain[128];
    size_t len = 0;
    CHECK_STATUS(passcode_seal(d->s, (const uint8_t *)"hello world", 11, out, sizeof out, &len), PASSCODE_ERR_KEY_NOT_RELEASED);
    memset(k, 0xAA, KEYLEN);
    CHECK_STATUS(passcode_unlock_key(d->s, WRONG, 6, k, KEYLEN), PASSCODE_ERR_WRONG_PASSCODE);
    int zero = 1;
    for (int i = 0; i < KEYLEN; i++) zero &= k[i] == 0;
    CHECK_MSG(zero, "%s: a wrong passcode gives no key (the buffer is zeroed)", d->name);
    CHECK_MSG(failures(d) == 1, "%s: the wrong passcode counted one failure (%d)", d->name, failures(d));
    CHECK_STATUS(passcode_seal(d->s, (const uint8_t *)"hello world", 11, out, sizeof out, &len), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_unlock_key(d->s, NEW2, 6, k, 16), PASSCODE_ERR_MISUSE);
    CHECK_MSG(failures(d) == 1, "%s: a misused buffer checks and counts nothing (%d)", d->name, failures(d));
    CHECK_STATUS(passcode_unlock_key(d->s, NEW2, 6, k, KEYLEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unlock_key(d->s, NEW2, 6, k2, KEYLEN), PASSCODE_OK);
    CHECK_MSG(memcmp(k, k2, KEYLEN) == 0 && memcmp(k, key, KEYLEN) == 0, "%s: unlock_key gives the same key twice, the flows' key", d->name);
    CHECK_MSG(failures(d) == 0, "%s: the unlock cleared the failures (%d)", d->name, failures(d));
    /* Sealing: too small a buffer says how much, then the round trip, then damage. */
    CHECK_STATUS(passcode_seal(d->s, (const uint8_t *)"hello world", 11, out, 20, &len), PASSCODE_ERR_BUFFER_TOO_SMALL);
    CHECK_MSG(len == 11 + passcode_seal_overhead(), "%s: the needed length is reported (%zu)", d->name, len);
    CHECK_STATUS(passcode_seal(d->s, (const uint8_t *)"hello world", 11, out, sizeof out, &len), PASSCODE_OK);
    size_t plen = 0;
    CHECK_STATUS(passcode_unseal(d->s, out, len, plain, sizeof plain, &plen), PASSCODE_OK);
    CHECK_MSG(plen == 11 && memcmp(plain, "hello world", 11) == 0, "%s: the key unseals what was sealed", d->name);
    memcpy(sealed, out, len);
    *sealed_len = len;
    out[len - 1] ^= 1;
    CHECK_STATUS(passcode_unseal(d->s, out, len, plain, sizeof plain, &plen), PASSCODE_ERR_BAD_CIPHERTEXT);
    CHECK_STATUS(passcode_unseal(d->s, out, 10, plain, sizeof plain, &plen), PASSCODE_ERR_BAD_CIPHERTEXT);
    CHECK_STATUS(passcode_unseal(d->s, sealed, *sealed_len, plain, 5, &plen), PASSCODE_ERR_BUFFER_TOO_SMALL);
    CHECK_MSG(plen == 11, "%s: unseal reports the needed length (%zu)", d->name, plen);
    passcode_close(d->s);
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--child") == 0) { child(argv[2], argv[3], argv[4]); return tl_failures_status(); }
    if (argc != 3) { fprintf(stderr, "usage: area_key APP_ID GOOD\n"); return 100; }
    const char *app = argv[1], *good = argv[2];
    char dir[] = "/tmp/area_key.XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 100; }
    char path[128];
    snprintf(path, sizeof path, "%s/embedded.db", dir);

    static side emb = {.name = "embedded"}, svc = {.name = "service"};
    passcode_status rc;
    emb.s = open_embedded(path);
    svc.s = open_service(app, &rc);
    CHECK_MSG(svc.s != NULL, "open in service mode: %s", passcode_strerror(rc));
    if (!emb.s || !svc.s) return 1;
    int32_t set = -1;
    passcode_is_set(svc.s, &set);
    CHECK_MSG(set == 0, "the service's store starts without a passcode");

    /* 1. Flows, the same on both. */
    uint8_t ekey[KEYLEN], skey[KEYLEN];
    run_flows(&emb, good, ekey);
    run_flows(&svc, good, skey);
    CHECK_MSG(strcmp(emb.log, svc.log) == 0, "the flows gave the same steps, prompts, dots, errors, statuses and shakes (%zu bytes of notes)",
              strlen(emb.log));
    if (strcmp(emb.log, svc.log) != 0) printf("embedded:\n%s\nservice:\n%s\n", emb.log, svc.log);
    CHECK_MSG(memcmp(ekey, skey, KEYLEN) != 0, "the two stores have keys of their own");

    /* 2. The data key and sealing, on new handles. */
    uint8_t esealed[128], ssealed[128], plain[128];
    size_t elen = 0, slen = 0, plen = 0;
    emb.s = open_embedded(path);
    svc.s = open_service(app, &rc);
    if (!emb.s || !svc.s) return 1;
    run_key(&emb, ekey, esealed, &elen);
    run_key(&svc, skey, ssealed, &slen);

    /* 3. Handles: a verify releases the key, close and removal drop it, another store's data is foreign. */
    svc.s = open_service(app, &rc);
    emb.s = open_embedded(path);
    CHECK_STATUS(passcode_unseal(svc.s, ssealed, slen, plain, sizeof plain, &plen), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_verify(svc.s, NEW2, 6), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(emb.s, NEW2, 6), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(svc.s, ssealed, slen, plain, sizeof plain, &plen), PASSCODE_OK);
    CHECK_MSG(plen == 11 && memcmp(plain, "hello world", 11) == 0, "service: after passcode_verify the handle unseals");
    CHECK_STATUS(passcode_unseal(svc.s, esealed, elen, plain, sizeof plain, &plen), PASSCODE_ERR_FOREIGN_CIPHERTEXT);
    CHECK_STATUS(passcode_unseal(emb.s, ssealed, slen, plain, sizeof plain, &plen), PASSCODE_ERR_FOREIGN_CIPHERTEXT);

    /* 4. A second process of the same user, while this one holds the key. */
    char hex[2 * sizeof ssealed + 1];
    tohex(ssealed, slen, hex);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "area_key", "--child", app, NEW2, hex, (char *)NULL);
        _exit(127);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the second process ran its checks (exit %d)", WEXITSTATUS(status));
    CHECK_STATUS(passcode_unseal(svc.s, ssealed, slen, plain, sizeof plain, &plen), PASSCODE_OK);

    /* 5. Removing the passcode drops the key on both; setting one releases a new key. */
    CHECK_STATUS(passcode_remove(emb.s, NEW2, 6), PASSCODE_OK);
    CHECK_STATUS(passcode_remove(svc.s, NEW2, 6), PASSCODE_OK);
    CHECK_STATUS(passcode_unseal(emb.s, esealed, elen, plain, sizeof plain, &plen), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_unseal(svc.s, ssealed, slen, plain, sizeof plain, &plen), PASSCODE_ERR_KEY_NOT_RELEASED);
    CHECK_STATUS(passcode_set(emb.s, NEW2, 6), PASSCODE_OK);
    CHECK_STATUS(passcode_set(svc.s, NEW2, 6), PASSCODE_OK);
    for (int i = 0; i < 2; i++) {
        side *d = i ? &svc : &emb;
        uint8_t out[128];
        size_t len = 0;
        CHECK_STATUS(passcode_seal(d->s, (const uint8_t *)"hello world", 11, out, sizeof out, &len), PASSCODE_OK);
        CHECK_STATUS(passcode_unseal(d->s, out, len, plain, sizeof plain, &plen), PASSCODE_OK);
        CHECK_STATUS(passcode_unseal(d->s, i ? ssealed : esealed, i ? slen : elen, plain, sizeof plain, &plen), PASSCODE_ERR_FOREIGN_CIPHERTEXT);
    }

    /* 6. A flow into a lockout (5 failures: 60 s), the same on both; unlock_key is refused
     * during it, with no key; the service's clock moves on and the flow takes digits again. */
    static side *both[2] = {&emb, &svc};
    for (int i = 0; i < 2; i++) {
        side *d = both[i];
        passcode_flow *f = NULL;
        CHECK_STATUS(passcode_flow_new(d->s, PASSCODE_FLOW_KIND_UNLOCK, &f), PASSCODE_OK);
        const char *wrongs[] = {"000001", "000002", "000003", "000004", "000005"};
        for (int w = 0; w < 5; w++) type(f, wrongs[w]);
        int32_t st = -1, rs = -1, sh = -1, es = -1;
        const char *er = NULL;
        passcode_flow_state(f, &st, &rs);
        passcode_flow_error(f, &er, &es);
        passcode_flow_shakes(f, &sh);
        CHECK_MSG(st == PASSCODE_FLOW_STEP_LOCKED_OUT && rs == PASSCODE_FLOW_RESULT_LOCKED_OUT && sh == 5 && es == PASSCODE_ERR_WRONG_PASSCODE &&
                  er && strncmp(er, "Too many attempts. Try again in ", 32) == 0,
                  "%s: the fifth wrong passcode locks the flow out: step %d result %d shakes %d error '%s'", d->name, st, rs, sh, er ? er : "");
        CHECK_MSG(failures(d) == 5, "%s: five failures counted (%d)", d->name, failures(d));
        CHECK_STATUS(passcode_flow_digit(f, 1), PASSCODE_ERR_STATE);
        int64_t left = -1;
        CHECK_STATUS(passcode_flow_lockout_remaining(f, &left), PASSCODE_OK);
        CHECK_MSG(left > 0 && left <= 60, "%s: the flow counts the lockout down (%lld s)", d->name, (long long)left);
        uint8_t k[KEYLEN];
        memset(k, 0xAA, KEYLEN);
        CHECK_STATUS(passcode_unlock_key(d->s, NEW2, 6, k, KEYLEN), PASSCODE_ERR_LOCKED_OUT);
        int zero = 1;
        for (int b = 0; b < KEYLEN; b++) zero &= k[b] == 0;
        CHECK_MSG(zero && passcode_errwait(d->s) > 0, "%s: no key during the lockout; errwait %lld s", d->name, (long long)passcode_errwait(d->s));
        if (d == &svc) {
            passcode_lockout_remaining(d->s, &left);
            move_service_clock(left);
            CHECK_STATUS(passcode_flow_refresh(f), PASSCODE_OK);
            passcode_flow_state(f, &st, &rs);
            CHECK_MSG(st == PASSCODE_FLOW_STEP_ENTER_PASSCODE && rs == PASSCODE_FLOW_RESULT_IN_PROGRESS,
                      "service: after the lockout the flow takes digits again (step %d result %d)", st, rs);
            type(f, NEW2);
            passcode_flow_state(f, &st, &rs);
            uint8_t fk[KEYLEN];
            CHECK_STATUS(passcode_flow_take_key(f, fk, KEYLEN), PASSCODE_OK);
            CHECK_STATUS(passcode_unlock_key(d->s, NEW2, 6, k, KEYLEN), PASSCODE_OK);
            CHECK_MSG(rs == PASSCODE_FLOW_RESULT_SUCCESS && memcmp(fk, k, KEYLEN) == 0 && failures(d) == 0,
                      "service: then the passcode unlocks and the flow gives the key");
        }
        passcode_flow_free(f);
    }

    /* 7. The maximum failures (a reset required) wipe the service handle's key, as embedded. */
    {
        uint8_t out[128];
        size_t len = 0;
        CHECK_STATUS(passcode_seal(svc.s, (const uint8_t *)"hello world", 11, out, sizeof out, &len), PASSCODE_OK);
        passcode_status r = PASSCODE_OK;
        char guess[8];
        for (int g = 10; g < 40 && r != PASSCODE_ERR_RESET_REQUIRED; g++) {
            snprintf(guess, sizeof guess, "0000%02d", g);
            r = passcode_verify(svc.s, guess, 6);
            if (r == PASSCODE_ERR_LOCKED_OUT) {
                int64_t left = 0;
                passcode_lockout_remaining(svc.s, &left);
                move_service_clock(left);
            }
        }
        CHECK_MSG(r == PASSCODE_ERR_RESET_REQUIRED, "service: wrong passcodes up to the maximum: %s", passcode_strerror(r));
        CHECK_STATUS(passcode_seal(svc.s, (const uint8_t *)"hello world", 11, out, sizeof out, &len), PASSCODE_ERR_KEY_NOT_RELEASED);
        CHECK_STATUS(passcode_unseal(svc.s, ssealed, slen, plain, sizeof plain, &plen), PASSCODE_ERR_KEY_NOT_RELEASED);
    }

    passcode_close(emb.s);
    passcode_close(svc.s);
    unlink(path);
    char side_file[160];
    const char *suffixes[] = {"-wal", "-shm", "-journal"};
    for (int i = 0; i < 3; i++) {
        snprintf(side_file, sizeof side_file, "%s%s", path, suffixes[i]);
        unlink(side_file);
    }
    rmdir(dir);
    return tl_failures_status();
}
