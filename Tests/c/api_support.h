/* Helpers shared by the C API tests (Tests/c/api_*.c): a temporary folder, a clock the tests
 * move by hand, cheap Argon2id, and file snapshots to show that a failed call changed nothing.
 *
 * Two back ends: by default every helper opens an embedded store. With
 * PASSCODE_TEST_BACKEND=service the helpers (open_fast, new_store, store_with_passcode) open
 * the store in service mode instead (passcode_options_set_service, an app id made from the
 * path), against the passcoded that Tests/service/test_service.py starts, and advance_ms moves
 * the service's clock (PASSCODE_TEST_CLOCK_FILE: the root-owned offset file named in the
 * daemon's configuration; the suite then runs as root). A test that cannot run through the
 * service starts with EMBEDDED_ONLY(reason) (a refused option, the store file, a file attack)
 * or NOT_YET_IN_SERVICE("call") (a call the service does not carry yet: to remove once it
 * does); test_api counts and prints both. */
#ifndef API_SUPPORT_H
#define API_SUPPORT_H
#define TESTLIB_SHARED
#include <passcode.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/keyctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After each test, test_api checks that a service-mode test made no file of its own. */
void after_test(const char *name);
#define TL_AFTER_TEST(name) after_test(name)
#include "testlib.h"

/* Passcodes the weak-passcode rules accept. */
#define PC1 "386491"
#define PC2 "915372"
#define PC3 "502817"
#define LEN 6

/* Set up by test_api.c's main. */
extern char tmp_root[256];
extern int path_counter;

/* ---- the back end ----------------------------------------------------------------------- */

/* 1 when PASSCODE_TEST_BACKEND=service (test_api.c's main reads it). */
extern int service_backend;
/* 1 when PASSCODE_TEST_RUN_NOT_YET=1 as well: the tests marked NOT_YET_IN_SERVICE run anyway
 * (after a merge, to see which marks can go: those tests pass). */
extern int run_not_yet;
/* Records that the current test does not run through the service, and why (test_api.c
 * counts the marks on both back ends; in service mode the test then returns). */
void mark_test(const char *kind, const char *why);

/* Why a test stays embedded-only: the reasons the counts are grouped by. */
#define ONLY_CLOCK "the host clock (boot and wall apart, boot_id restarts, time going back)"
#define ONLY_PEPPER "a host pepper"
#define ONLY_WEAK "allow_weak"
#define ONLY_COST "an Argon2id cost of the host's"
#define ONLY_TPM "TPM options"
#define ONLY_KEYRING "the host's session keyring (passcoded keeps none)"
#define ONLY_FILE "reads, writes or snapshots the store file or its -wal"
#define ONLY_OPEN "the embedded open: a path, its folder and options of the host's"
#define ONLY_ATTACK "a file attack on the store"
#define ONLY_PROCESS "another process of the host opens the store by its path"
#define ONLY_REPLACE "a pending reset code replaced (passcoded sends none while one is pending)"

/* Service mode: the fprintd template on the suite's bus (test_service.py starts it, with no
 * reader: a biometric unlock then answers BIOMETRIC_UNAVAILABLE at once, and a host's report of
 * biometrics is not taken, passcoded asks fprintd): service_reader(1) adds a reader with a finger
 * enrolled (once: again is a no-op), service_reader(0) removes it again; service_finger is the
 * finger it reads next ("verify-match", "verify-no-match"). Embedded: nothing (the host reports
 * the match itself). */
void service_reader(int on);
void service_finger(const char *result);

/* The first statement of a test that must stay on the embedded store. */
#define EMBEDDED_ONLY(why) do { mark_test("embedded-only", why); if (service_backend) return; } while (0)
/* The first statement of a test that needs a call the service does not carry yet. */
#define NOT_YET_IN_SERVICE(call) do { mark_test("not yet through the service", call); if (service_backend && !run_not_yet) return; } while (0)

/* ---- helpers ---------------------------------------------------------------------------- */

/* A host clock the tests move by hand. */
typedef struct { int64_t boot_ms, wall_ms; uint64_t boot_id; } test_clock;
extern test_clock the_clock;

static inline void clock_cb(void *payload, int64_t *boot_ms, int64_t *wall_ms, uint64_t *boot_id) {
    test_clock *c = payload;
    *boot_ms = c->boot_ms;
    *wall_ms = c->wall_ms;
    *boot_id = c->boot_id;
}

static inline void new_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%d-%s", tmp_root, ++path_counter, name);
}

/* Cheap Argon2id (t=1, 8 KiB) so that tests run fast, plus the test clock. */
static inline passcode_options *fast_options(void) {
    passcode_options *o = NULL;
    if (passcode_options_new(&o) != PASSCODE_OK) abort();
    if (passcode_options_set_cost_explicit(o, 1, 8192) != PASSCODE_OK) abort();
    if (passcode_options_set_clock(o, clock_cb, &the_clock) != PASSCODE_OK) abort();
    return o;
}

/* The service's app id for a test path: what follows tmp_root, with every character an app id
 * may not hold made '_', after the temporary folder's own suffix (a run of its own). */
static inline void service_app_id(const char *path, char *out, size_t size) {
    const char *rest = strncmp(path, tmp_root, strlen(tmp_root)) ? path : path + strlen(tmp_root);
    const char *suffix = strrchr(tmp_root, '-');
    char raw[512];
    snprintf(raw, sizeof raw, "t%s%s", suffix ? suffix : "-", rest);
    size_t n = 0;
    for (const char *c = raw; *c && n + 1 < size && n < 64; c++) {
        int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-';
        out[n++] = ok ? *c : '_';
    }
    out[n] = 0;
    if (strlen(raw) > 64) {  /* too long: keep it apart by a hash of the whole path */
        uint32_t h = 2166136261u;
        for (const char *c = path; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
        snprintf(out + (n > 55 ? 55 : n), size - (n > 55 ? 55 : n), "-%08x", h);
    }
}

/* Options for `path`: cheap Argon2id and the test clock, or in service mode the app id only
 * (the service chooses the cost and the clock). */
static inline passcode_options *test_options(const char *path) {
    if (!service_backend) return fast_options();
    passcode_options *o = NULL;
    char id[80];
    service_app_id(path, id, sizeof id);
    if (passcode_options_new(&o) != PASSCODE_OK || passcode_options_set_service(o, id) != PASSCODE_OK) abort();
    return o;
}

static inline passcode_store *open_fast(const char *path) {
    passcode_options *o = test_options(path);
    passcode_store *s = NULL;
    int32_t rc = passcode_open(path, o, &s);
    passcode_options_free(o);
    if (rc != PASSCODE_OK) {
        fprintf(stderr, "open %s: %s (%s)\n", path, passcode_strerror(rc), passcode_errmsg(NULL));
        abort();
    }
    return s;
}

static inline passcode_store *new_store(char *path, size_t size) {
    new_path(path, size, "store.db");
    return open_fast(path);
}

/* The whole content of a file, to show that a failed call changed nothing. */
static inline char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { *len = 0; return NULL; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static inline int same_file(const char *path, const char *before, size_t before_len) {
    size_t len;
    char *now = slurp(path, &len);
    int same = now && len == before_len && memcmp(now, before, len) == 0;
    free(now);
    return same;
}

static inline int exists(const char *path) { struct stat st; return stat(path, &st) == 0; }
/* Whether `path` followed by `suffix` ("-wal", "-shm") exists. */
static inline int exists2(const char *path, const char *suffix) {
    char p[600];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return exists(p);
}

static inline int64_t get_setting(passcode_store *s, int32_t which) {
    int64_t v = -999;
    if (passcode_setting_get(s, which, &v) != PASSCODE_OK) return -999;
    return v;
}

static inline int32_t failures(passcode_store *s) {
    int32_t n = -1;
    passcode_failed_attempts(s, &n);
    return n;
}

static inline int64_t lockout(passcode_store *s) {
    int64_t n = -1;
    passcode_lockout_remaining(s, &n);
    return n;
}


/* In service mode: the service's clock moves `ms` (test_api.c writes the offset file). */
void advance_service_clock(int64_t ms);

/* Time passes: both clocks move (a lockout ends only when both say its delay has passed). */
static inline void advance_ms(int64_t ms) {
    the_clock.boot_ms += ms;
    the_clock.wall_ms += ms;
    if (service_backend) advance_service_clock(ms);
}

/* The i-th of a series of distinct wrong guesses, expecting `want`. */
static inline void wrong_guess(passcode_store *s, int i, int32_t want) {
    char g[16];
    snprintf(g, sizeof g, "9%05d", (13579 + i * 2) % 100000);
    CHECK_STATUS(passcode_verify(s, g, 6), want);
}

/* The attacks on a passcode's own policy (api_policy.c, api_policy_across_passcode_change.c,
 * api_overlapping_calls_in_service.c): the attacker guesses distinct wrong passcodes of `len` digits, lockouts waited out, until the store stops checking them (reset required,
 * logged out) or `budget` guesses: returns the wrong answers it got; `*found` is set when a
 * guess was the passcode. */
static inline int attacker_guesses(passcode_store *a, int len, const char *victims, int budget, int *found) {
    int wrong = 0;
    *found = 0;
    for (int i = 0, tries = 0; i < budget && tries < budget * 4; tries++) {
        char g[16];
        snprintf(g, sizeof g, "%0*d", len, (int)((104729L * (i + 1) + 7) % (len == 4 ? 10000 : 1000000)));
        if (victims && !strcmp(g, victims)) { i++; continue; }
        int32_t rc = passcode_verify(a, g, (size_t)len);
        if (rc == PASSCODE_ERR_LOCKED_OUT) { advance_ms((passcode_errwait(a) + 1) * 1000); continue; }
        i++;
        if (rc == PASSCODE_OK) { *found = 1; break; }
        if (rc == PASSCODE_ERR_WRONG_PASSCODE) { wrong++; continue; }
        if (rc != PASSCODE_ERR_RESET_REQUIRED && rc != PASSCODE_ERR_LOGGED_OUT)
            printf("  the attacker's guess %d: %s\n", i, passcode_errmsg(a));
        break;  /* reset required, logged out: no more answers */
    }
    return wrong;
}

/* A host's mailbox: the reset callbacks record what they were told. `fail` makes delivery fail.
 * In service mode it is the store's recipient instead (`to`), and request_code reads the code
 * from the mail passcoded sent; `handed` counts the codes that reached the mailbox or the relay,
 * delivered or not. */
typedef struct { char code[16]; int fail; int logouts, deleted; char to[96]; int handed; } mailbox;

static inline int32_t mailbox_deliver(void *payload, const char *code, size_t length, char *message, size_t size) {
    mailbox *m = payload;
    m->handed++;
    if (m->fail) { snprintf(message, size, "network down"); return 1; }
    memcpy(m->code, code, length < sizeof m->code ? length : sizeof m->code - 1);
    m->code[length < sizeof m->code ? length : sizeof m->code - 1] = 0;
    return 0;
}
static inline void mailbox_logout(void *payload, int32_t reason) { (void)reason; ((mailbox *)payload)->logouts++; }
static inline void mailbox_deleted(void *payload) { ((mailbox *)payload)->deleted++; }

/* ---- reset codes on both back ends --------------------------------------------------------- */

/* Embedded: the host's delivery callback gets the code. Service mode: passcoded mails it to the
 * store's recipient through the relay test_service.py runs (aiosmtpd on loopback), which writes
 * each mail it received into PASSCODE_TEST_MAIL_DIR (NNNNNN-RECIPIENT; refused-NNNNNN-RECIPIENT
 * while the file "refuse" is there, when it refuses every mail); the host gets no code. */

/* What a failed delivery answers: the host's callback failed, or passcoded's relay did. */
#define DELIVERY_FAILED (service_backend ? PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE : PASSCODE_ERR_HOOK_FAILED)

/* `m` becomes the store's mailbox. Embedded: its delivery callback. Service mode: a recipient of
 * its own (passcode_reset_recipient_set; the suite runs as root, whose stores need no passcode
 * for it, but the store must have one), and the host's callback is refused. */
void mailbox_attach(passcode_store *s, mailbox *m);
/* passcode_reset_request; on PASSCODE_OK m->code holds the code that was sent: from the host's
 * callback, or in service mode from the one mail the relay received for m->to (a success
 * without exactly one mail, or a failure with a delivered one, fails the test). m->fail makes
 * the delivery fail (the callback fails; the relay refuses the mail). */
int32_t request_code(passcode_store *s, mailbox *m);
/* passcode_reset_request while m->code is pending. Embedded: the request as ever (the interval
 * refuses it, or a new code replaces the old). Service mode: passcoded sends and spends nothing
 * while a code is pending and answers OK; a mail reaching the relay fails the test. */
int32_t request_while_pending(passcode_store *s, mailbox *m);

/* A new store with PC1 set and `m` as its reset-code mailbox. */
static inline passcode_store *store_with_passcode(char *path, size_t size, mailbox *m) {
    passcode_store *s = new_store(path, size);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    mailbox_attach(s, m);
    return s;
}

/* Runs this test program again as `self MODE PATH BOOT_MS WALL_MS BOOT_ID` (a second process
 * on the test clock, with `boot_id`) and reads the first line it prints into `line`. */
static inline int run_self(const char *mode, const char *path, uint64_t boot_id, char *line, size_t size) {
    char self[512], cmd[1400];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return 0;
    self[len] = 0;
    snprintf(cmd, sizeof cmd, "'%s' %s '%s' %lld %lld %llu", self, mode, path, (long long)the_clock.boot_ms,
             (long long)the_clock.wall_ms, (unsigned long long)boot_id);
    FILE *p = popen(cmd, "r");
    int ok = p && fgets(line, (int)size, p);
    if (p) pclose(p);
    return ok;
}

/* Each area's tests (Tests/c/api_<area>.c). */
void run_open_tests(void);
void run_passcode_tests(void);
void run_lockout_tests(void);
void run_processes_tests(void);
void run_hooks_tests(void);
void run_hostile_tests(void);
void run_policy_tests(void);
void run_across_change_tests(void);
void run_overlapping_calls_tests(void);
void run_events_tests(void);
void run_key_tests(void);
int key_attack(const char *path, const char *boot_ms, const char *wall_ms, const char *boot_id);
void run_reset_rules_tests(void);
void run_session_tests(void);
int session_child(int argc, char **argv);
void run_robustness_tests(void);
int probe_reset(const char *path);
int probe_launch(const char *path);
int no_session_child(const char *path);
void run_file_attack_tests(void);
void run_remove_tests(void);
void run_user_tests(void);
int wal_guesser(const char *path);
int session_kind_child(const char *path, const char *name);
#endif
