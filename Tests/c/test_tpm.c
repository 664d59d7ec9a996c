/* The TPM binding against real TPMs: two swtpm instances this program starts on loopback (state
 * in a temporary folder, stopped at the end), driven through tpm2-tss by the library and, for the
 * TPM's own settings (lockout parameters, clear), by tpm2-tools. Needs swtpm and tpm2-tools. */
#include <passcode.h>
#include <sqlite3.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define PC1 "386491"
#define PC2 "915372"
#define LEN 6

static char root[256];
static int counter;

typedef struct { int port; char tcti[96]; char dir[300]; } tpm;
static tpm A, B, P;
/* The owner authorization file the stores are opened with (provisioned mode); NULL: the default. */
static const char *owner_auth_file;
/* The pepper the stores are opened with; NULL: none. */
static const uint8_t *store_pepper;
static const uint8_t test_pepper[32] = {30, 30, 30, 1, 2, 3, 4, 5};

typedef struct { int64_t boot_ms, wall_ms; uint64_t boot_id; } test_clock;
static test_clock the_clock = { 1000, 1700000000000, 7 };
static void clock_cb(void *p, int64_t *b, int64_t *w, uint64_t *id) {
    test_clock *c = p; *b = c->boot_ms; *w = c->wall_ms; *id = c->boot_id;
}
static void advance(int64_t seconds) { the_clock.boot_ms += seconds * 1000; the_clock.wall_ms += seconds * 1000; }

/* ---- swtpm and tpm2-tools ------------------------------------------------------------------ */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static int sh(const char *fmt, ...) {
    char cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void tpm_start(tpm *t, const char *name, int port) {
    t->port = port;
    snprintf(t->dir, sizeof t->dir, "%s/%s", root, name);
    mkdir(t->dir, 0700);
    snprintf(t->tcti, sizeof t->tcti, "swtpm:host=127.0.0.1,port=%d", port);
    if (sh("swtpm socket --tpm2 --tpmstate dir=%s --server type=tcp,port=%d,bindaddr=127.0.0.1 "
           "--ctrl type=tcp,port=%d,bindaddr=127.0.0.1 --flags not-need-init,startup-clear "
           "--daemon --pid file=%s/pid --log file=%s/log", t->dir, port, port + 1, t->dir, t->dir) != 0) {
        fprintf(stderr, "could not start swtpm on port %d\n", port);
        exit(2);
    }
    for (int i = 0; i < 100; i++) {  /* until it answers */
        if (sh("tpm2_getcap -T %s properties-fixed >/dev/null 2>&1", t->tcti) == 0) return;
        usleep(50000);
    }
    fprintf(stderr, "swtpm on port %d does not answer\n", port);
    exit(2);
}

static void tpm_stop(tpm *t) {
    if (t->port) sh("kill $(cat %s/pid) 2>/dev/null", t->dir);
}

/* The TPM's dictionary-attack parameters: lockout after max_tries, one failure forgotten per
 * interval seconds; the failure count cleared. */
static void tpm_lockout_params(tpm *t, int max_tries) {
    CHECK(sh("tpm2_dictionarylockout -T %s -c >/dev/null 2>&1 && tpm2_dictionarylockout -T %s -s -n %d -t 1000 -l 1000 >/dev/null 2>&1",
             t->tcti, t->tcti, max_tries) == 0);
}

/* The TPM's lockout counter (failed authorizations it has counted). */
static long tpm_failures(tpm *t) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tpm2_getcap -T %s properties-variable 2>/dev/null | sed -n 's/^TPM2_PT_LOCKOUT_COUNTER: //p'", t->tcti);
    FILE *p = popen(cmd, "r");
    long v = -1;
    if (p) { if (fscanf(p, "%li", &v) != 1) v = -1; pclose(p); }
    return v;
}

/* ---- stores --------------------------------------------------------------------------------- */

static void new_path(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%d-%s", root, ++counter, name); }

static passcode_options *opts(const char *tcti) {
    passcode_options *o = NULL;
    if (passcode_options_new(&o) != PASSCODE_OK) abort();
    passcode_options_set_cost_explicit(o, 1, 8192);
    passcode_options_set_clock(o, clock_cb, &the_clock);
    passcode_options_set_session_keyring(o, 0);
    if (tcti) passcode_options_set_tpm(o, tcti);
    if (tcti && owner_auth_file) passcode_options_set_tpm_owner_auth_file(o, owner_auth_file);
    if (store_pepper) passcode_options_set_pepper(o, store_pepper, 32);
    return o;
}

static int32_t open_with(const char *path, const char *tcti, passcode_store **out) {
    passcode_options *o = opts(tcti);
    int32_t rc = passcode_open(path, o, out);
    passcode_options_free(o);
    return rc;
}

static passcode_store *must_open(const char *path, const char *tcti) {
    passcode_store *s = NULL;
    int32_t rc = open_with(path, tcti, &s);
    if (rc != PASSCODE_OK) { fprintf(stderr, "open %s: %s (%s)\n", path, passcode_strerror(rc), passcode_errmsg(NULL)); abort(); }
    return s;
}

/* A new store at a new path named `name`, opened with `tcti` (NULL: no TPM), with PC1 set. */
static passcode_store *with_passcode(char *path, size_t size, const char *name, const char *tcti) {
    new_path(path, size, name);
    passcode_store *s = must_open(path, tcti);
    int32_t rc = passcode_set(s, PC1, LEN);
    if (rc != PASSCODE_OK) fprintf(stderr, "  set %s: %s\n", name, passcode_errmsg(s));
    CHECK_STATUS(rc, PASSCODE_OK);
    return s;
}

static size_t slurp(const char *path, unsigned char *buf, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, size, f);
    fclose(f);
    return n;
}

static void copy_file(const char *from, const char *to) {
    CHECK(sh("cp %s %s && chmod 600 %s", from, to, to) == 0);
}

/* One write to the store file with a plain SQLite connection, as an attacker makes it; 0 on success. */
static int file_edit(const char *path, const char *sql) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}
static int32_t failed(passcode_store *s) { int32_t n = -1; passcode_failed_attempts(s, &n); return n; }

/* A distinct wrong passcode per call (a repeat of the same wrong one is not counted twice). */
static const char *wrong(void) {
    static char buf[8];
    static int n = 100000;
    snprintf(buf, sizeof buf, "%06d", n += 7919);
    return buf;
}

static int newest_event(passcode_store *s, int32_t kind, const char **detail) {
    passcode_event_log *log = NULL;
    if (passcode_event_log_new(s, &log) != PASSCODE_OK) return 0;
    int found = 0;
    for (size_t i = 0; i < passcode_event_log_count(log) && !found; i++) {
        int32_t k = -1;
        const char *d = NULL;
        passcode_event_log_get(log, i, &k, NULL, &d);
        if (k == kind) { found = 1; if (detail) { static char keep[128]; snprintf(keep, sizeof keep, "%s", d); *detail = keep; } }
    }
    passcode_event_log_free(log);
    return found;
}

static char mailbox[16];
static int32_t deliver(void *p, const char *code, size_t n, char *msg, size_t size) {
    (void)p; (void)msg; (void)size;
    memcpy(mailbox, code, n < sizeof mailbox - 1 ? n : sizeof mailbox - 1);
    mailbox[n < sizeof mailbox - 1 ? n : sizeof mailbox - 1] = 0;
    return 0;
}

/* A reset by email to `passcode` (the data key kept or replaced). */
static void reset_by_email(passcode_store *s, const char *passcode) {
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, deliver, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_request(s), PASSCODE_OK);
    int32_t rc = passcode_reset_complete(s, mailbox, strlen(mailbox), passcode, LEN);
    CHECK(rc == PASSCODE_OK || rc == PASSCODE_ERR_KEY_REPLACED);
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* Set up with the option: bound; the passcode unlocks and releases the same data key through
 * the TPM after a reopen; a wrong one is refused; the file's verifier names the TPM. */
static void test_unlock_and_key_through_the_tpm(void) {
    tpm_lockout_params(&A, 32);
    char path[300];
    new_path(path, sizeof path, "bound.db");
    passcode_store *s = must_open(path, A.tcti);
    int32_t bound = -1;
    CHECK_STATUS(passcode_tpm_is_bound(s, &bound), PASSCODE_OK);
    CHECK(bound == 0);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_tpm_is_bound(s, &bound), PASSCODE_OK);
    CHECK(bound == 1);
    uint8_t k1[32], k2[32];
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, k1, sizeof k1), PASSCODE_OK);
    passcode_close(s);

    s = must_open(path, A.tcti);
    long before = tpm_failures(&A);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(tpm_failures(&A) == before + 1);  /* the TPM counted the wrong guess itself */
    CHECK(failed(s) == 1);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, k2, sizeof k2), PASSCODE_OK);
    CHECK(memcmp(k1, k2, 32) == 0);
    CHECK(failed(s) == 0);
    /* change and disable go through the TPM too */
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_unlock_key(s, PC2, LEN, k2, sizeof k2), PASSCODE_OK);
    CHECK(memcmp(k1, k2, 32) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    passcode_close(s);
    CHECK(sh("python3 -c \"import sqlite3,sys; v=sqlite3.connect(sys.argv[1]).execute('SELECT verifier FROM passcode').fetchone()[0]; "
             "sys.exit(0 if ',tpm\\$' in v and v.count('\\$') == 7 else 1)\" %s", path) == 0);
}

/* A bound store opens only with the option, and only with a TPM that answers: nothing changes. */
static void test_open_rules(void) {
    char path[300], missing[300];
    passcode_store *s = with_passcode(path, sizeof path, "rules.db", A.tcti);
    passcode_close(s);
    static unsigned char before[1 << 16], after[1 << 16];
    size_t n1 = slurp(path, before, sizeof before);

    s = NULL;
    CHECK_STATUS(open_with(path, NULL, &s), PASSCODE_ERR_TPM_REQUIRED);
    CHECK(s == NULL);
    CHECK_STATUS(open_with(path, "swtpm:host=127.0.0.1,port=1", &s), PASSCODE_ERR_TPM_UNAVAILABLE);
    CHECK(strstr(passcode_errmsg(NULL), "port=1") != NULL);
    size_t n2 = slurp(path, after, sizeof after);
    CHECK(n1 == n2 && memcmp(before, after, n1) == 0);

    /* no TPM for a new store: no file is made */
    new_path(missing, sizeof missing, "never.db");
    CHECK_STATUS(open_with(missing, "swtpm:host=127.0.0.1,port=1", &s), PASSCODE_ERR_TPM_UNAVAILABLE);
    CHECK(access(missing, F_OK) != 0);
    /* options: a bad TCTI string is refused */
    passcode_options *o = NULL;
    passcode_options_new(&o);
    CHECK_STATUS(passcode_options_set_tpm(o, ""), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_options_set_tpm(NULL, A.tcti), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_options_set_tpm(o, NULL), PASSCODE_OK);
    passcode_options_free(o);
}

/* Wrong guesses reach the TPM's own lockout; the status says so, with the wait, and nothing is
 * counted while it lasts; once its owner clears it, the passcode works. */
static void test_tpm_lockout(void) {
    tpm_lockout_params(&A, 3);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "lockout.db", A.tcti);
    for (int i = 0; i < 3; i++) CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failed(s) == 3);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_TPM_LOCKOUT);
    int64_t wait = passcode_errwait(s);
    printf("  TPM lockout after 3 wrong guesses: \"%s\", wait %lld s\n", passcode_errmsg(s), (long long)wait);
    CHECK(wait > 0 && wait <= 1000);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_LOCKOUT);  /* not even the right one */
    CHECK(failed(s) == 3);  /* not counted: no guess was checked */
    tpm_lockout_params(&A, 32);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

/* The file next to another TPM, or after its own TPM was cleared: no passcode verifies, the
 * status says the TPM does not match, nothing is counted; a reset by email binds it again. */
static void test_other_tpm_and_cleared_tpm(void) {
    tpm_lockout_params(&A, 32);
    tpm_lockout_params(&B, 32);
    char path[300], copy[300];
    new_path(path, sizeof path, "onB.db");
    new_path(copy, sizeof copy, "copied-to-A.db");
    passcode_store *s = must_open(path, B.tcti);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    copy_file(path, copy);

    s = must_open(copy, A.tcti);  /* another machine's TPM */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_MISMATCH);
    printf("  copied next to another TPM: \"%s\"\n", passcode_errmsg(s));
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_TPM_MISMATCH);
    CHECK(failed(s) == 0);
    /* the way back: a reset by email seals the store to this TPM */
    reset_by_email(s, PC2);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);

    CHECK(sh("tpm2_clear -T %s -c p >/dev/null 2>&1", B.tcti) == 0);  /* B's owner seed is new */
    s = must_open(path, B.tcti);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_MISMATCH);
    CHECK(failed(s) == 0);
    passcode_close(s);
}

/* A copy of the file taken before five failures, put back: the failures are not given back. */
static void test_restored_copy_gives_no_guesses_back(void) {
    tpm_lockout_params(&A, 32);
    char path[300], saved[300];
    new_path(path, sizeof path, "rollback.db");
    new_path(saved, sizeof saved, "rollback-saved.db");
    passcode_store *s = must_open(path, A.tcti);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    copy_file(path, saved);

    s = must_open(path, A.tcti);
    for (int i = 0; i < 5; i++) {
        CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
        advance(3600);
    }
    CHECK(failed(s) == 5);
    passcode_close(s);
    copy_file(saved, path);  /* the attacker puts the old file back */

    s = must_open(path, A.tcti);
    CHECK(failed(s) == 0);  /* the file says so... */
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_ROLLBACK);  /* ...the TPM does not */
    printf("  restored copy: \"%s\"\n", passcode_errmsg(s));
    const char *detail = NULL;
    CHECK(newest_event(s, PASSCODE_LOG_KIND_TPM_ROLLBACK, &detail));
    if (detail) printf("  logged: tpm rollback, \"%s\"\n", detail);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_RESET_REQUIRED);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_RESET_REQUIRED);
    /* a reset brings it back, in step with the TPM */
    reset_by_email(s, PC2);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
}

/* The binding is a row of the file. Written to 0, the user's own reset by email sealed the
 * store unbound, and older copies then gave their guesses back (the release before this test:
 * bound 0 after the reset, and a restored copy answered wrong passcodes again, 45 guesses in 5
 * rounds against the policy's 9). The reset now takes the TPM from the host's option, never
 * from the file: still bound, and a restored copy is TPM_ROLLBACK. With a pepper (the edit is
 * detected: the reset is the way out) and without one ("reset required" written too, so that
 * the user resets). */
static void test_reset_keeps_the_binding(void) {
    tpm_lockout_params(&A, 32);
    for (int peppered = 1; peppered >= 0; peppered--) {
        store_pepper = peppered ? test_pepper : NULL;
        char path[300], saved[300];
        passcode_store *s = with_passcode(path, sizeof path, "unbound-by-edit.db", A.tcti);
        new_path(saved, sizeof saved, "unbound-by-edit-saved.db");
        passcode_close(s);
        CHECK(file_edit(path, peppered ? "UPDATE state SET value = 0 WHERE key = 'tpm_bound'"
                                       : "UPDATE state SET value = 0 WHERE key = 'tpm_bound';"
                                         "INSERT OR REPLACE INTO state VALUES('reset_required', 1)") == 0);
        s = must_open(path, A.tcti);
        reset_by_email(s, PC2);
        int32_t bound = -1;
        CHECK_STATUS(passcode_tpm_is_bound(s, &bound), PASSCODE_OK);
        passcode_close(s);
        copy_file(path, saved);
        s = must_open(path, A.tcti);
        int answered = 0;
        for (int i = 0; i < 3; i++) answered += passcode_verify(s, wrong(), LEN) == PASSCODE_ERR_WRONG_PASSCODE;
        passcode_close(s);
        copy_file(saved, path);  /* the attacker puts the copy back */
        s = must_open(path, A.tcti);
        int32_t rc = passcode_verify(s, wrong(), LEN);
        printf("  %s, tpm_bound written to 0%s, then the user's reset: bound %d; %d wrong guesses, the copy put back: %s\n",
               peppered ? "pepper" : "no pepper", peppered ? "" : " and reset required", (int)bound, answered, passcode_strerror(rc));
        CHECK(bound == 1);
        CHECK(answered == 3);
        CHECK_STATUS(rc, PASSCODE_ERR_TPM_ROLLBACK);
        passcode_close(s);
    }
    store_pepper = NULL;
}

/* No TPM reachable any more (it stops during the session): its status, nothing counted. */
static void test_tpm_gone(void) {
    tpm C = {0};
    tpm_start(&C, "tpmC", 2341);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "gone.db", C.tcti);
    tpm_stop(&C);
    usleep(200000);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_UNAVAILABLE);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_TPM_UNAVAILABLE);
    CHECK(failed(s) == 0);
    passcode_close(s);
}

/* Binding an existing store needs its passcode and keeps the data key; unbinding too. */
static void test_bind_and_unbind(void) {
    tpm_lockout_params(&A, 32);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "later.db", NULL);
    uint8_t k1[32], k2[32];
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, k1, sizeof k1), PASSCODE_OK);
    CHECK_STATUS(passcode_tpm_bind(s, PC1, LEN), PASSCODE_ERR_MISUSE);  /* opened without the option */
    passcode_close(s);

    s = must_open(path, A.tcti);
    int32_t bound = -1;
    passcode_tpm_is_bound(s, &bound);
    CHECK(bound == 0);  /* the option alone binds nothing that has a passcode */
    CHECK_STATUS(passcode_tpm_bind(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_tpm_bind(s, PC1, LEN), PASSCODE_OK);
    passcode_tpm_is_bound(s, &bound);
    CHECK(bound == 1);
    CHECK_STATUS(passcode_tpm_bind(s, PC1, LEN), PASSCODE_ERR_STATE);
    passcode_close(s);
    CHECK_STATUS(open_with(path, NULL, &s), PASSCODE_ERR_TPM_REQUIRED);

    s = must_open(path, A.tcti);
    long before = tpm_failures(&A);
    CHECK_STATUS(passcode_tpm_unbind(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(tpm_failures(&A) == before + 1);  /* that guess went through the TPM */
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, k2, sizeof k2), PASSCODE_OK);
    CHECK(memcmp(k1, k2, 32) == 0);
    CHECK_STATUS(passcode_tpm_unbind(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    s = must_open(path, NULL);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, k2, sizeof k2), PASSCODE_OK);
    CHECK(memcmp(k1, k2, 32) == 0);
    CHECK_STATUS(passcode_tpm_unbind(s, PC1, LEN), PASSCODE_ERR_STATE);
    passcode_close(s);
}

static void on_deleted(void *p) { (void)p; }

/* The file is input: a bound store's TPM values written by an attacker give a specific status,
 * count nothing and crash nothing. */
static void test_hostile_binding_values(void) {
    tpm_lockout_params(&A, 32);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "hostile.db", A.tcti);
    passcode_close(s);
    const char *py = "python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()\" %s \"%s\"";
    /* a counter index outside the library's range */
    CHECK(sh(py, path, "UPDATE state SET value = 5 WHERE key = 'tpm_nv_index'") == 0);
    s = must_open(path, A.tcti);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_CORRUPT);
    CHECK(failed(s) == 0);
    passcode_close(s);
    /* the sealed object's private blob changed: the TPM refuses to load it */
    s = with_passcode(path, sizeof path, "hostile2.db", A.tcti);
    passcode_close(s);
    CHECK(sh(py, path, "UPDATE passcode SET verifier = substr(verifier, 1, length(verifier) - 12) || 'AAAAAAAAAAAA'") == 0);
    s = must_open(path, A.tcti);
    int32_t rc = passcode_verify(s, PC1, LEN);
    CHECK(rc == PASSCODE_ERR_TPM_MISMATCH || rc == PASSCODE_ERR_CORRUPT);
    CHECK(failed(s) == 0);
    passcode_close(s);
    /* bound, but the verifier says nothing of the TPM */
    s = with_passcode(path, sizeof path, "hostile3.db", NULL);
    passcode_close(s);
    CHECK(sh(py, path, "INSERT INTO state(key, value) VALUES('tpm_bound', 1)") == 0);
    CHECK_STATUS(open_with(path, NULL, &s), PASSCODE_ERR_TPM_REQUIRED);
    s = must_open(path, A.tcti);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_CORRUPT);
    CHECK(failed(s) == 0);
    passcode_close(s);
}

/* Removing the passcode or deleting the account keeps the binding: the next passcode is sealed
 * in the same TPM, and the store still opens only with it. */
static void test_binding_outlives_removal_and_account_deletion(void) {
    tpm_lockout_params(&A, 32);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "stays.db", A.tcti);
    CHECK_STATUS(passcode_remove(s, PC1, LEN), PASSCODE_OK);
    int32_t bound = -1;
    passcode_tpm_is_bound(s, &bound);
    CHECK(bound == 1);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set_account_deleted_callback(s, on_deleted, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK);
    passcode_tpm_is_bound(s, &bound);
    CHECK(bound == 1);
    passcode_close(s);
    CHECK_STATUS(open_with(path, NULL, &s), PASSCODE_ERR_TPM_REQUIRED);
    s = must_open(path, A.tcti);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    long before = tpm_failures(&A);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(tpm_failures(&A) == before + 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

/* The attacker's process: opens `path` with `tcti` and guesses `tries` passcodes (the right one
 * last), advancing the host clock past every lockout. Exits with the number of guesses whose
 * answer it learned (WRONG_PASSCODE or OK); the first other status ends the run. */
static int attacker(const char *path, const char *tcti, int tries) {
    pid_t pid = fork();
    if (pid == 0) {
        passcode_store *s = NULL;
        int32_t orc = open_with(path, tcti, &s);
        if (orc != PASSCODE_OK) { fprintf(stdout, "  attacker could not open: %s\n", passcode_strerror(orc)); _exit(0); }
        int learned = 0;
        for (int i = 0; i < tries; i++) {
            int32_t rc = passcode_verify(s, i == tries - 1 ? PC1 : wrong(), LEN);
            if (rc == PASSCODE_ERR_LOCKED_OUT) { advance(passcode_errwait(s) + 1); i--; continue; }
            if (rc != PASSCODE_ERR_WRONG_PASSCODE && rc != PASSCODE_OK) {
                fprintf(stdout, "  attacker stopped by: %s\n", passcode_strerror(rc));
                break;
            }
            learned++;
        }
        _exit(learned);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The attacks, each from a second process: the file put back after five failures, the
 * file next to another TPM, and plain guessing into the TPM's lockout. */
static void test_attacks_from_a_second_process(void) {
    tpm_lockout_params(&A, 32);
    tpm_lockout_params(&B, 32);
    char path[300], saved[300], other[300];
    passcode_store *s = with_passcode(path, sizeof path, "attacked.db", A.tcti);
    passcode_close(s);
    new_path(saved, sizeof saved, "attacked-saved.db");
    copy_file(path, saved);
    s = must_open(path, A.tcti);
    for (int i = 0; i < 5; i++) { CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE); advance(3600); }
    passcode_close(s);
    copy_file(saved, path);  /* the attacker restores the copy, then guesses */
    int got = attacker(path, A.tcti, 20);
    printf("  restored copy, 20 tries from a second process: %d guesses answered\n", got);
    CHECK(got == 0);

    new_path(other, sizeof other, "attacked-elsewhere.db");
    copy_file(saved, other);
    got = attacker(other, B.tcti, 20);
    printf("  the file next to another TPM, 20 tries from a second process: %d guesses answered\n", got);
    CHECK(got == 0);

    s = with_passcode(path, sizeof path, "guessed.db", A.tcti);
    passcode_close(s);
    tpm_lockout_params(&A, 3);
    got = attacker(path, A.tcti, 20);
    printf("  plain guessing with the TPM's lockout at 3 tries: %d guesses answered\n", got);
    CHECK(got == 3);
    tpm_lockout_params(&A, 32);
}

/* ---- the posture and the direct attack ---------------------------------------------------- */

static int64_t posture(passcode_store *s, int32_t item) {
    int64_t v = -1;
    int32_t rc = passcode_tpm_posture(s, item, &v);
    if (rc != PASSCODE_OK) fprintf(stderr, "  posture %d: %s (%s)\n", item, passcode_strerror(rc), passcode_errmsg(s));
    return rc == PASSCODE_OK ? v : -1;
}

typedef struct { int answered, clears, found, key; char stopped[32]; } attack_result;

/* Tests/c/tpm_direct_attack.py in a second process: the file, the TPM, tpm2-tools, no library.
 * Its lines (every guess) are printed; the tally is parsed from its last line. */
static attack_result direct_attack_right(const char *path, const char *tcti, const char *right, int wrong_count, const char *flags) {
    attack_result r = { -1, -1, -1, -1, "" };
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "python3 %s %s %s %s %d %s 2>&1", ATTACK_SCRIPT, path, tcti, right, wrong_count, flags);
    FILE *p = popen(cmd, "r");
    if (!p) return r;
    char line[512];
    while (fgets(line, sizeof line, p)) {
        if (sscanf(line, "RESULT answered=%d clears=%d found=%d key=%d stopped=%31s", &r.answered, &r.clears, &r.found, &r.key,
                   r.stopped) == 5) continue;
        printf("   %s", line);
    }
    pclose(p);
    printf("  direct attack (%d wrong then the right one%s%s): %d guesses answered, %d lockout clears, passcode %s, data key %s (%s)\n",
           wrong_count, *flags ? ", " : "", flags, r.answered, r.clears, r.found == 1 ? "FOUND" : "not found",
           r.key == 1 ? "recovered" : "not recovered", r.stopped);
    return r;
}
static attack_result direct_attack(const char *path, const char *tcti, int wrong_count, const char *flags) {
    return direct_attack_right(path, tcti, PC1, wrong_count, flags);
}

/* The posture of an unprovisioned TPM (owner and lockout authorizations empty, as Linux leaves
 * them), said plainly: no offline search off this machine, and no hardware guess limit. */
static void test_posture_unprovisioned(void) {
    tpm_lockout_params(&A, 3);
    char path[300];
    new_path(path, sizeof path, "posture.db");
    passcode_store *s = must_open(path, A.tcti);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH) == 0);  /* not bound yet: nothing promised */
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET) == 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_AUTH_SET) == 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES) == 3);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_RECOVERY_TIME) == 1000);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_RECOVERY) == 1000);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_COUNTER) == 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH) == 1);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT) == 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT) == 0);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_COUNTER) == 1);
    int64_t v = 0;
    CHECK_STATUS(passcode_tpm_posture(s, 99, &v), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_tpm_posture(s, PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_tpm_posture(NULL, PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES, &v), PASSCODE_ERR_INVALID_HANDLE);
    passcode_close(s);
    /* The file is input: its verifier edited to name a PIN_FAIL index the sealed object's policy
     * does not name (there is none on this unprovisioned TPM). The binding then holds nothing the
     * library can check, and the posture says so, as the header does. */
    const char *py = "python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()\" %s \"%s\"";
    CHECK(sh(py, path, "UPDATE passcode SET verifier = replace(verifier, ',tpm' || char(36), ',tpmpin' || char(36)) || char(36) || '01312345'") == 0);
    s = must_open(path, A.tcti);
    int64_t edited = posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH);
    printf("  unprovisioned, the verifier edited to name index 0x01312345: no_offline_search %lld, guess_limit %lld\n",
           (long long)edited, (long long)posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT));
    CHECK(edited == 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT) == 0);
    passcode_close(s);
    s = with_passcode(path, sizeof path, "posture-none.db", NULL);
    CHECK_STATUS(passcode_tpm_posture(s, PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES, &v), PASSCODE_ERR_MISUSE);  /* no TPM option */
    passcode_close(s);
    tpm_lockout_params(&A, 32);
}

/* The direct attack on an unprovisioned TPM, from a second process: the primary rebuilt,
 * the sealed blobs loaded from the file, guesses unsealed with tpm2-tools, the DA lockout cleared
 * with `tpm2_dictionarylockout -c` whenever it locks: every guess is answered, the passcode and
 * the data key are found, the library's counters never move; the posture said so beforehand. */
static void test_direct_attack_unprovisioned(void) {
    tpm_lockout_params(&A, 3);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "direct.db", A.tcti);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT) == 0);
    passcode_close(s);
    attack_result r = direct_attack(path, A.tcti, 20, "--clear-lockout");
    CHECK(r.answered == 21);
    CHECK(r.found == 1 && r.key == 1);
    CHECK(r.clears >= 6);  /* 3 tries per lockout */
    /* without clearing, the DA lockout stops it at maxTries: a rate limit, not a guess limit */
    tpm_lockout_params(&A, 3);
    r = direct_attack(path, A.tcti, 20, "");
    CHECK(r.answered == 3 && r.found == 0);
    s = must_open(path, A.tcti);
    CHECK(failed(s) == 0);  /* the library never saw a guess */
    tpm_lockout_params(&A, 32);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    tpm_lockout_params(&A, 32);
}

/* The store's values in the file: the PIN_FAIL index (0: none) and the attempt counter's index. */
static unsigned long file_index(const char *path, const char *what) {
    char cmd[600];
    if (!strcmp(what, "pin"))
        snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3,sys; v=sqlite3.connect(sys.argv[1]).execute('SELECT verifier FROM passcode').fetchone()[0]; "
                 "print(int(v.split('$')[-1], 16) if ',tpmpin$' in v else 0)\" %s", path);
    else
        snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("
                 "\\\"SELECT value FROM state WHERE key = 'tpm_nv_index'\\\").fetchone()[0])\" %s", path);
    FILE *p = popen(cmd, "r");
    unsigned long v = 0;
    if (p) { if (fscanf(p, "%lu", &v) != 1) v = 0; pclose(p); }
    return v;
}

static char owner_file[300], lockout_file[300];
static char pre_path[300];  /* a store bound to P before it was provisioned */

/* A watcher in a child process: samples every /proc/PID/cmdline (what any user can read) in a
 * tight loop and appends each one that names a tpm2 tool to `out`, until killed. */
static pid_t cmdline_watcher(const char *out) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    FILE *f = fopen(out, "w");
    if (!f) _exit(1);
    setvbuf(f, NULL, _IONBF, 0);
    for (;;) {
        DIR *d = opendir("/proc");
        if (!d) _exit(1);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            char path[300], buf[4096];
            snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
            int fd = open(path, O_RDONLY);
            if (fd < 0) continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n <= 0) continue;
            for (ssize_t i = 0; i < n; i++) if (buf[i] == 0) buf[i] = ' ';
            buf[n] = 0;
            if (strstr(buf, "tpm2_")) fprintf(f, "%s\n", buf);
        }
        closedir(d);
    }
}

/* The first 64 characters of a file (a hex authorization). */
static void read_hex(const char *path, char out[65]) {
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fscanf(f, "%64s", out) != 1) out[0] = 0;
    fclose(f);
}

/* Provisions P as an administrator would (scripts/tpm-provision.sh: owner and lockout
 * authorizations set, the owner's in a root-only file), and persists the storage root key at
 * 0x81000001 as systemd's tpm2-setup does, which gives the attacker the primary.
 * Meanwhile a watcher samples every process's command line (readable by any user): neither
 * secret may ever appear there, in the script or in this test's own tpm2 commands. Then, on A,
 * the script refuses a target folder others can write to (where a planted symlink would take the
 * secret), writing nothing through it. */
static void provision(void) {
    tpm_lockout_params(&P, 32);
    passcode_store *s = with_passcode(pre_path, sizeof pre_path, "pre-provisioning.db", P.tcti);
    passcode_close(s);

    snprintf(owner_file, sizeof owner_file, "%s/tpm-owner-auth", root);
    snprintf(lockout_file, sizeof lockout_file, "%s/tpm-lockout-auth", root);
    char seen[300];
    snprintf(seen, sizeof seen, "%s/cmdlines-seen", root);
    pid_t w = cmdline_watcher(seen);
    usleep(100000);
    CHECK(sh("%s --tcti %s --owner-auth-file %s --lockout-auth-file %s >/dev/null", PROVISION_SCRIPT, P.tcti, owner_file, lockout_file) == 0);
    CHECK(sh("xxd -r -p %s | tpm2_createprimary -T %s -C o -P file:- -g sha256 -G ecc256:aes128cfb "
             "-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|decrypt|noda' -c %s/srk.ctx >/dev/null 2>&1 && "
             "xxd -r -p %s | tpm2_evictcontrol -T %s -C o -P file:- -c %s/srk.ctx 0x81000001 >/dev/null 2>&1; tpm2_flushcontext -T %s -t >/dev/null 2>&1",
             owner_file, P.tcti, root, owner_file, P.tcti, root, P.tcti) == 0);
    usleep(100000);
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    struct stat st;
    CHECK(stat(owner_file, &st) == 0 && (st.st_mode & 077) == 0 && st.st_uid == 0);

    char ohex[65], lhex[65];
    read_hex(owner_file, ohex);
    read_hex(lockout_file, lhex);
    CHECK(strlen(ohex) == 64 && strlen(lhex) == 64);
    int lines = 0, changeauth = 0, leaked = 0;
    FILE *f = fopen(seen, "r");
    char line[4200];
    while (f && fgets(line, sizeof line, f)) {
        lines++;
        if (strstr(line, "tpm2_changeauth")) changeauth++;
        if ((ohex[0] && strstr(line, ohex)) || (lhex[0] && strstr(line, lhex))) leaked++;
    }
    if (f) fclose(f);
    printf("  command-line watcher: %d tpm2 command lines sampled (%d of tpm2_changeauth), %d with a secret\n",
           lines, changeauth, leaked);
    if (changeauth == 0) printf("  NOT VERIFIED: the watcher saw no tpm2_changeauth (too slow on this machine?)\n");
    CHECK(changeauth > 0);
    CHECK(leaked == 0);

    /* A (unprovisioned, its tests done): a target folder others can write to is refused */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/w6", root);
    CHECK(sh("mkdir -m 777 %s && chmod 777 %s && ln -s %s/stolen %s/tpm-owner-auth.new && "
             "ln -s %s/stolen-l %s/tpm-lockout-auth.new", bad, bad, bad, bad, bad, bad) == 0);
    CHECK(sh("%s --tcti %s --owner-auth-file %s/tpm-owner-auth --lockout-auth-file %s/tpm-lockout-auth >/dev/null 2>&1",
             PROVISION_SCRIPT, A.tcti, bad, bad) != 0);
    CHECK(sh("test ! -e %s/stolen && test ! -e %s/stolen-l && test ! -e %s/tpm-owner-auth", bad, bad, bad) == 0);
}

/* A new store on the provisioned P, with PC1, closed. */
static void new_provisioned_store(char *path, size_t size, const char *name) {
    const char *keep = owner_auth_file;
    owner_auth_file = owner_file;
    passcode_close(with_passcode(path, size, name, P.tcti));
    owner_auth_file = keep;
}

/* Guesses between the owner's unlocks (an interleaving of guesses): another process makes 9
 * wrong guesses through TPM2_PolicySecret (one less than the limit, so the index never blocks),
 * the owner unlocks (which zeroes pinCount), and again, five times. The library sees the index's
 * pinCount above its own failures, charges the excess to the store (logged as tampering) and
 * puts it back into pinCount after the success: all the other process's guesses together stay
 * within the limit (10), where before each unlock gave it 9 more (45 of 45 answered). */
static void test_provisioned_interleaved_attack(void) {
    char path[300];
    new_provisioned_store(path, sizeof path, "prov-interleaved.db");
    const char *keep = owner_auth_file;
    owner_auth_file = owner_file;
    int answered = 0, unlocked = 0;
    for (int round = 0; round < 5; round++) {
        attack_result r = direct_attack_right(path, P.tcti, "000000", 8, "--srk 0x81000001");
        CHECK(r.found == 0);
        if (r.answered > 0) answered += r.answered;
        passcode_store *s = must_open(path, P.tcti);
        int st = passcode_verify(s, PC1, LEN);
        if (st == PASSCODE_OK) unlocked++;
        printf("  round %d: %d outside guesses answered, the owner's unlock: %s\n", round + 1, r.answered, passcode_strerror(st));
        passcode_close(s);
        advance(3600);
    }
    printf("  interleaved: %d outside guesses answered in all (limit 10), the owner unlocked %d times\n", answered, unlocked);
    CHECK(answered <= 10);
    CHECK(unlocked >= 1);

    /* The limit used up: the right passcode, again and again, is GUESS_LIMIT every time, counts
     * nothing (no failure, no lockout), and the store requires a reset. */
    passcode_store *s = must_open(path, P.tcti);
    int32_t failures_before = -1, failures_after = -1, reset = 0, guess_limit = 0;
    CHECK_STATUS(passcode_failed_attempts(s, &failures_before), PASSCODE_OK);
    for (int i = 0; i < 12; i++) if (passcode_verify(s, PC1, LEN) == PASSCODE_ERR_TPM_GUESS_LIMIT) guess_limit++;
    CHECK_STATUS(passcode_failed_attempts(s, &failures_after), PASSCODE_OK);
    CHECK_STATUS(passcode_is_reset_required(s, &reset), PASSCODE_OK);
    printf("  limit used up: %d of 12 right passcodes answered GUESS_LIMIT, failures %d -> %d, reset required %d\n",
           guess_limit, failures_before, failures_after, reset);
    CHECK(guess_limit == 12);
    CHECK(failures_after == failures_before);
    CHECK(reset == 1);
    passcode_close(s);
    owner_auth_file = keep;
}

/* Provisioned: the posture says so; the store's check goes through a PIN_FAIL index with the
 * policy's guess limit (Apple's table: 10); the library's own verify works and counts as before. */
static void test_provisioned_posture_and_verify(void) {
    char path[300];
    owner_auth_file = owner_file;
    passcode_store *s = with_passcode(path, sizeof path, "prov.db", P.tcti);
    CHECK(file_index(path, "pin") != 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET) == 1);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_AUTH_SET) == 1);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH) == 1);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT) == 1);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT) == 10);
    for (int i = 0; i < 3; i++) CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failed(s) == 3);
    uint8_t k1[32], k2[32];
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, k1, sizeof k1), PASSCODE_OK);
    CHECK(failed(s) == 0);
    /* nine wrong (past the schedule's delays), then the right one: still the tenth guess */
    for (int i = 0; i < 9; i++) {
        int32_t rc = passcode_verify(s, wrong(), LEN);
        if (rc == PASSCODE_ERR_LOCKED_OUT) { advance(passcode_errwait(s) + 1); i--; continue; }
        CHECK_STATUS(rc, PASSCODE_ERR_WRONG_PASSCODE);
    }
    CHECK(failed(s) == 9);
    for (;;) {
        int32_t rc = passcode_unlock_key(s, PC1, LEN, k2, sizeof k2);
        if (rc == PASSCODE_ERR_LOCKED_OUT) { advance(passcode_errwait(s) + 1); continue; }
        CHECK_STATUS(rc, PASSCODE_OK);
        break;
    }
    CHECK(memcmp(k1, k2, 32) == 0);
    CHECK(failed(s) == 0);
    /* change: a new index, the old one removed by nobody but the library */
    unsigned long before = file_index(path, "pin");
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK(file_index(path, "pin") != 0 && file_index(path, "pin") != before);
    CHECK(sh("tpm2_nvreadpublic -T %s 0x%lx >/dev/null 2>&1", P.tcti, before) != 0);  /* the old index is gone */
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
    /* without the owner authorization file the provisioned TPM gives nothing: a specific status */
    owner_auth_file = "/nonexistent-30/tpm-owner-auth";
    s = must_open(path, P.tcti);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_TPM_OWNER_AUTH);
    printf("  without the owner authorization: \"%s\"\n", passcode_errmsg(s));
    CHECK(failed(s) == 0);
    passcode_close(s);
    /* a file others may read is refused at open, never ignored */
    char loose[300];
    snprintf(loose, sizeof loose, "%s/loose-auth", root);
    CHECK(sh("cp %s %s && chmod 644 %s", owner_file, loose, loose) == 0);
    owner_auth_file = loose;
    CHECK_STATUS(open_with(path, P.tcti, &s), PASSCODE_ERR_TPM_OWNER_AUTH);
    /* not 64 hex digits: refused at open */
    CHECK(sh("printf 'not-hex' > %s && chmod 600 %s", loose, loose) == 0);
    CHECK_STATUS(open_with(path, P.tcti, &s), PASSCODE_ERR_TPM_OWNER_AUTH);
    /* well formed but not the TPM's: refused at the first use that needs it, nothing counted */
    CHECK(sh("printf '%%064d\\n' 0 > %s", loose) == 0);
    s = must_open(path, P.tcti);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_TPM_OWNER_AUTH);
    printf("  another owner authorization: \"%s\"\n", passcode_errmsg(s));
    CHECK(failed(s) == 0);
    passcode_close(s);
    owner_auth_file = NULL;
}

/* Provisioned, with a pepper: the reset made while the MAC fails made the new PIN_FAIL index's
 * limit from the file's settings, the attacker's (the release before this test: guess limit 0,
 * no hardware limit, with max_failure_action "none" written; 20 with Android's schedule
 * written). Now the default policy's, which the reset leaves: 10. */
static void test_provisioned_reset_after_an_edit(void) {
    const char *edits[] = {"INSERT OR REPLACE INTO settings VALUES('max_failure_action', 2)",
                           "INSERT OR REPLACE INTO settings VALUES('lockout_schedule', 1)"};
    owner_auth_file = owner_file;
    store_pepper = test_pepper;
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char path[300];
        passcode_store *s = with_passcode(path, sizeof path, "prov-edited.db", P.tcti);
        int64_t before = posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT);
        CHECK(file_edit(path, edits[i]) == 0);
        int32_t v = 0;
        CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_ERR_TAMPERED);
        reset_by_email(s, PC2);
        int64_t after = posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT);
        int64_t hardware = posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT);
        printf("  provisioned, pepper, \"%s\" written, then a reset: the TPM's guess limit %lld before, %lld after (hardware limit %lld)\n",
               edits[i], (long long)before, (long long)after, (long long)hardware);
        CHECK(before == 10);
        CHECK(after == 10);
        CHECK(hardware == 1);
        passcode_close(s);
    }
    store_pepper = NULL;
    owner_auth_file = NULL;
}


/* A store bound before the TPM was provisioned keeps working with the owner authorization, and
 * promises no guess limit until its next new passcode, which gets the PIN_FAIL index. The
 * posture's "no" is true: the direct attack with the persisted key finds its passcode. */
static void test_store_bound_before_provisioning(void) {
    owner_auth_file = owner_file;
    passcode_store *s = must_open(pre_path, P.tcti);
    CHECK(file_index(pre_path, "pin") == 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT) == 0);
    /* and the posture is right: with no PIN_FAIL index the owner and lockout authorizations alone
     * leave the DA lockout (32 tries here) as the only limit, and the attack finds the passcode */
    attack_result r = direct_attack(pre_path, P.tcti, 20, "--srk 0x81000001");
    CHECK(r.answered == 21 && r.found == 1 && r.key == 1);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK(file_index(pre_path, "pin") != 0);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT) == 1);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
    unsigned long ctr = file_index(pre_path, "counter");
    CHECK(sh("tpm2_nvincrement -T %s -C 0x%lx 0x%lx >/dev/null 2>&1", P.tcti, ctr, ctr) != 0);  /* its new counter is the owner's */
    /* removing the passcode removes its index from the TPM */
    unsigned long pin = file_index(pre_path, "pin");
    s = must_open(pre_path, P.tcti);
    CHECK_STATUS(passcode_remove(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
    CHECK(sh("tpm2_nvreadpublic -T %s 0x%lx >/dev/null 2>&1", P.tcti, pin) != 0);
    owner_auth_file = NULL;
}

/* The pinCount and pinLimit of an NV index (owner authorization), as "count/limit", or "-". */
static void pin_counts(unsigned long index, char *out, size_t size) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "xxd -r -p %s | tpm2_nvread -T %s -C o -P file:- -s 8 0x%lx 2>/dev/null | xxd -p", owner_file, P.tcti, index);
    snprintf(out, size, "-");
    FILE *p = popen(cmd, "r");
    char hex[40] = "";
    if (p) { if (fscanf(p, "%39s", hex) != 1) hex[0] = 0; pclose(p); }
    unsigned long count, limit;
    if (strlen(hex) == 16 && sscanf(hex, "%8lx%8lx", &count, &limit) == 2) snprintf(out, size, "%lu/%lu", count, limit);
}

/* The file names the passcode's PIN_FAIL index, and the file is input: someone who can write it
 * names another PIN_FAIL index of the same TPM instead (here one defined with a pinLimit of 1000,
 * the kind and attributes of the library's own). The sealed object's policy names the store's own
 * index, so that one still limits every guess: the posture promises nothing for the other one, and
 * verify refuses with TPM_MISMATCH naming what did not match, counting nothing anywhere. The
 * file's own index put back, the store works and promises its limit as before; named again, a
 * reset does not remove the named index (which may be another store's). */
static void test_provisioned_index_named_in_the_file(void) {
    char path[300];
    new_provisioned_store(path, sizeof path, "prov-renamed.db");
    owner_auth_file = owner_file;
    unsigned long own = file_index(path, "pin"), other = own == 0x13ffff0 ? 0x13ffff1 : 0x13ffff0;
    CHECK(own != 0);
    char bytes[300];
    snprintf(bytes, sizeof bytes, "%s/pin-1000", root);
    CHECK(sh("printf '\\000\\000\\000\\000\\000\\000\\003\\350' > %s", bytes) == 0);
    CHECK(sh("xxd -r -p %s | tpm2_nvdefine -T %s -C o -P file:- -s 8 -a 'nt=pinfail|ownerwrite|ownerread|no_da' -p other 0x%lx >/dev/null 2>&1",
             owner_file, P.tcti, other) == 0);
    CHECK(sh("xxd -r -p %s | tpm2_nvwrite -T %s -C o -P file:- -i %s 0x%lx >/dev/null 2>&1", owner_file, P.tcti, bytes, other) == 0);
    const char *py = "python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()\" %s \"%s\"";
    char sql[300];
    snprintf(sql, sizeof sql, "UPDATE passcode SET verifier = substr(verifier, 1, length(verifier) - 8) || '%08lx'", other);
    CHECK(sh(py, path, sql) == 0);
    CHECK(file_index(path, "pin") == other);

    passcode_store *s = must_open(path, P.tcti);
    int64_t hw = posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT), limit = posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT);
    int64_t bound = posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH);
    printf("  the file names 0x%lx (pinLimit 1000) for 0x%lx: posture hardware_guess_limit %lld, guess_limit %lld, no_offline_search %lld\n",
           other, own, (long long)hw, (long long)limit, (long long)bound);
    CHECK(hw == 0);
    CHECK(limit == 0);
    CHECK(bound == 0);
    char own_before[40], other_before[40], own_after[40], other_after[40];
    pin_counts(own, own_before, sizeof own_before);
    pin_counts(other, other_before, sizeof other_before);
    int32_t right = passcode_verify(s, PC1, LEN);
    char msg[400];
    snprintf(msg, sizeof msg, "%s", passcode_errmsg(s));
    int32_t wrong_rc = passcode_verify(s, wrong(), LEN);
    pin_counts(own, own_after, sizeof own_after);
    pin_counts(other, other_after, sizeof other_after);
    printf("  verify: right passcode %s (\"%s\"), a wrong one %s; failures %d; pinCount/pinLimit: store's index %s -> %s, named one %s -> %s\n",
           passcode_strerror(right), msg, passcode_strerror(wrong_rc), failed(s), own_before, own_after, other_before, other_after);
    CHECK_STATUS(right, PASSCODE_ERR_TPM_MISMATCH);
    CHECK_STATUS(wrong_rc, PASSCODE_ERR_TPM_MISMATCH);
    char named[16];
    snprintf(named, sizeof named, "0x%08lx", other);
    CHECK(strstr(msg, named) != NULL);
    CHECK(failed(s) == 0);
    CHECK(!strcmp(own_before, own_after) && !strcmp(other_before, other_after));
    CHECK(!strcmp(other_after, "0/1000"));
    passcode_close(s);

    /* the file's own index back: the store works, and promises its own limit */
    snprintf(sql, sizeof sql, "UPDATE passcode SET verifier = substr(verifier, 1, length(verifier) - 8) || '%08lx'", own);
    CHECK(sh(py, path, sql) == 0);
    s = must_open(path, P.tcti);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT) == 1);
    CHECK(posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT) == 10);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);

    /* named again, then a reset by email (no passcode needed): the new passcode gets a new index,
     * and the old one the file names is not removed on the file's word (it may be another store's):
     * the library removes an index only when the old sealed object's policy names it */
    snprintf(sql, sizeof sql, "UPDATE passcode SET verifier = substr(verifier, 1, length(verifier) - 8) || '%08lx'", other);
    CHECK(sh(py, path, sql) == 0);
    s = must_open(path, P.tcti);
    reset_by_email(s, PC2);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
    int kept = sh("tpm2_nvreadpublic -T %s 0x%lx >/dev/null 2>&1", P.tcti, other) == 0;
    printf("  a reset by email with the file naming 0x%lx: that index %s\n", other, kept ? "still defined" : "REMOVED by the library");
    CHECK(kept);
    sh("xxd -r -p %s | tpm2_nvundefine -T %s -C o -P file:- 0x%lx >/dev/null 2>&1", owner_file, P.tcti, own);  /* left by the reset */
    CHECK(sh("xxd -r -p %s | tpm2_nvundefine -T %s -C o -P file:- 0x%lx >/dev/null 2>&1", owner_file, P.tcti, other) == 0);
    owner_auth_file = NULL;
}

/* Provisioned: the direct attack from a second process gets at most the guess limit
 * (10), with and without `tpm2_dictionarylockout -c`; without the persisted key it gets none.
 * The owner then finds the TPM refusing even the right passcode; a reset brings the store back. */
static void test_provisioned_direct_attack(void) {
    char path[300], path2[300];
    new_provisioned_store(path, sizeof path, "prov-attacked.db");
    new_provisioned_store(path2, sizeof path2, "prov-attacked2.db");

    attack_result r = direct_attack(path, P.tcti, 20, "--clear-lockout");
    CHECK(r.answered == 0 && r.found == 0);  /* no owner authorization: no primary */
    CHECK(!strcmp(r.stopped, "no-primary"));
    r = direct_attack(path2, P.tcti, 20, "--srk 0x81000001");
    CHECK(r.answered == 10 && r.found == 0);
    CHECK(!strcmp(r.stopped, "pin-limit"));
    /* even the administrator's DA reset (with the lockout authorization) gives none back */
    CHECK(sh("xxd -r -p %s | tpm2_dictionarylockout -T %s -c -p file:- >/dev/null 2>&1", lockout_file, P.tcti) == 0);
    r = direct_attack(path2, P.tcti, 20, "--srk 0x81000001");
    CHECK(r.answered == 0 && r.found == 0);
    CHECK(!strcmp(r.stopped, "pin-limit"));
    r = direct_attack(path, P.tcti, 20, "--clear-lockout --srk 0x81000001");
    CHECK(r.answered == 10 && r.found == 0 && r.clears == 0);
    CHECK(!strcmp(r.stopped, "pin-limit"));

    owner_auth_file = owner_file;
    passcode_store *s = must_open(path, P.tcti);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_GUESS_LIMIT);
    printf("  the owner after the attack: \"%s\"\n", passcode_errmsg(s));
    reset_by_email(s, PC2);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
    owner_auth_file = NULL;
}

/* Provisioned: the store's NV indexes can be written only with the owner authorization the
 * library holds: an owner-less nvwrite of the PIN_FAIL index, an nvincrement of it or of the
 * attempt counter (what any member of `tss` could do unprovisioned), an undefine, all fail. */
static void test_provisioned_nv_is_the_librarys(void) {
    char path[300], plain[300];
    new_provisioned_store(path, sizeof path, "prov-nv.db");
    owner_auth_file = owner_file;
    passcode_store *s;
    unsigned long pin = file_index(path, "pin"), ctr = file_index(path, "counter");
    CHECK(pin != 0 && ctr != 0);
    char zero[300];
    snprintf(zero, sizeof zero, "%s/zero8", root);
    CHECK(sh("head -c 8 /dev/zero > %s", zero) == 0);
    const char *q = ">/dev/null 2>&1";
    CHECK(sh("tpm2_nvwrite -T %s -C o 0x%lx -i %s %s", P.tcti, pin, zero, q) != 0);
    CHECK(sh("tpm2_nvwrite -T %s -C 0x%lx 0x%lx -i %s %s", P.tcti, pin, pin, zero, q) != 0);
    CHECK(sh("tpm2_nvincrement -T %s -C 0x%lx 0x%lx %s", P.tcti, pin, pin, q) != 0);
    CHECK(sh("tpm2_nvincrement -T %s -C 0x%lx 0x%lx %s", P.tcti, ctr, ctr, q) != 0);
    CHECK(sh("tpm2_nvincrement -T %s -C o 0x%lx %s", P.tcti, ctr, q) != 0);
    CHECK(sh("tpm2_nvundefine -T %s -C o 0x%lx %s", P.tcti, pin, q) != 0);
    CHECK(sh("tpm2_nvundefine -T %s -C o 0x%lx %s", P.tcti, ctr, q) != 0);
    printf("  provisioned: owner-less nvwrite, nvincrement (PIN_FAIL index, counter) and nvundefine all refused\n");
    s = must_open(path, P.tcti);
    CHECK_STATUS(passcode_verify(s, wrong(), LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);  /* in step: nobody moved the counter */
    /* deleting the account removes the passcode's index from the TPM (the binding stays) */
    CHECK_STATUS(passcode_set_account_deleted_callback(s, on_deleted, NULL), PASSCODE_OK);
    CHECK_STATUS(passcode_delete_account(s, "DELETE"), PASSCODE_OK);
    CHECK(sh("tpm2_nvreadpublic -T %s 0x%lx >/dev/null 2>&1", P.tcti, pin) != 0);
    passcode_close(s);
    owner_auth_file = NULL;
    /* for comparison, unprovisioned: anyone increments the counter and forces a reset */
    tpm_lockout_params(&A, 32);
    s = with_passcode(plain, sizeof plain, "plain-nv.db", A.tcti);
    passcode_close(s);
    ctr = file_index(plain, "counter");
    CHECK(sh("tpm2_nvincrement -T %s -C 0x%lx 0x%lx %s && tpm2_nvincrement -T %s -C 0x%lx 0x%lx %s", A.tcti, ctr, ctr, q, A.tcti, ctr, ctr, q) == 0);
    s = must_open(plain, A.tcti);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_TPM_ROLLBACK);
    printf("  unprovisioned, for comparison: nvincrement of the counter by anyone forces a reset\n");
    passcode_close(s);
}

/* Killed at random moments while guessing through the TPM: every guess the TPM checked (its
 * lockout counter) was counted in the file first, and no kill makes the file look restored. */
static void test_kill_during_tpm_operations(void) {
    tpm_lockout_params(&A, 1000);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "killed.db", A.tcti);
    uint32_t none[1] = { 0 };
    CHECK_STATUS(passcode_set_custom_schedule(s, none, 1, 0), PASSCODE_OK);  /* no delays, no maximum */
    passcode_close(s);
    long base = tpm_failures(&A);
    srand((unsigned)time(NULL));
    int rounds = 12;
    for (int r = 0; r < rounds; r++) {
        pid_t pid = fork();
        if (pid == 0) {
            passcode_store *c = must_open(path, A.tcti);
            for (;;) passcode_verify(c, wrong(), LEN);
        }
        usleep(20000 + rand() % 180000);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        /* swtpm has no resource manager (the kernel's /dev/tpmrm0 is one): what the killed
         * process had loaded stays until flushed */
        sh("tpm2_flushcontext -T %s -t >/dev/null 2>&1; tpm2_flushcontext -T %s -l >/dev/null 2>&1", A.tcti, A.tcti);
    }
    s = must_open(path, A.tcti);
    long checked = tpm_failures(&A) - base;
    int32_t counted = failed(s);
    printf("  %d kills: the TPM checked %ld wrong guesses, the file counted %d failed attempts\n", rounds, checked, counted);
    CHECK(checked > 0);
    CHECK(counted >= checked);
    int32_t rc = passcode_verify(s, PC1, LEN);
    if (rc != PASSCODE_OK) fprintf(stderr, "  %s\n", passcode_errmsg(s));
    CHECK_STATUS(rc, PASSCODE_OK);  /* in step: no false rollback */
    passcode_close(s);
}

/* Binding and unbinding re-wrap the data key under the same passcode, so
 * the proof the bind's own passcode entry gave should hold on that handle (the passcode did not
 * change); today the new verifier's digest leaves it naming a wrap that is gone. */
static void test_bind_keeps_its_own_proof(void) {
    tpm_lockout_params(&A, 32);
    char path[300];
    passcode_store *s = with_passcode(path, sizeof path, "proof.db", NULL);
    passcode_close(s);
    s = must_open(path, A.tcti);
    CHECK_STATUS(passcode_tpm_bind(s, PC1, LEN), PASSCODE_OK);
    int32_t after_bind = passcode_setting_set(s, PASSCODE_SETTING_AUTO_LOCK_SECONDS, 3600);
    CHECK_STATUS(passcode_tpm_unbind(s, PC1, LEN), PASSCODE_OK);
    int32_t after_unbind = passcode_setting_set(s, PASSCODE_SETTING_LOCK_AT_LAUNCH, 0);
    printf("bind: a weakening change right after passcode_tpm_bind on the same handle: %s; after passcode_tpm_unbind: %s\n",
           passcode_strerror(after_bind), passcode_strerror(after_unbind));
    CHECK(after_bind == PASSCODE_OK && after_unbind == PASSCODE_OK);
    passcode_close(s);
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/passcode-tpm-XXXXXX");
    if (!mkdtemp(root)) { perror("mkdtemp"); return 2; }
    setvbuf(stdout, NULL, _IONBF, 0);
    tl_filter = getenv("TPM_TEST");  /* run only the tests whose name contains it */
    int base = 23000 + (getpid() % 1000) * 8;
    tpm_start(&A, "tpmA", base);
    tpm_start(&B, "tpmB", base + 2);
    RUN(test_unlock_and_key_through_the_tpm);
    RUN(test_open_rules);
    RUN(test_tpm_lockout);
    RUN(test_other_tpm_and_cleared_tpm);
    RUN(test_restored_copy_gives_no_guesses_back);
    RUN(test_reset_keeps_the_binding);
    RUN(test_tpm_gone);
    RUN(test_bind_and_unbind);
    RUN(test_bind_keeps_its_own_proof);
    RUN(test_binding_outlives_removal_and_account_deletion);
    RUN(test_hostile_binding_values);
    RUN(test_attacks_from_a_second_process);
    RUN(test_posture_unprovisioned);
    RUN(test_direct_attack_unprovisioned);
    tpm_start(&P, "tpmP", base + 4);
    provision();
    RUN(test_provisioned_posture_and_verify);
    RUN(test_provisioned_index_named_in_the_file);
    RUN(test_provisioned_reset_after_an_edit);
    RUN(test_store_bound_before_provisioning);
    RUN(test_provisioned_direct_attack);
    RUN(test_provisioned_interleaved_attack);
    RUN(test_provisioned_nv_is_the_librarys);
    RUN(test_kill_during_tpm_operations);
    tpm_stop(&A);
    tpm_stop(&B);
    tpm_stop(&P);
    sh("rm -rf %s", root);
    return tl_summary();
}
