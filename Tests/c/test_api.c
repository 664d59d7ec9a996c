/* C tests for every function of passcode.h: good input, bad input, and that bad input
 * changes nothing, split by area into Tests/c/api_*.c. Built with -std=c99 -Wall -Wextra
 * -Wpedantic -Werror against the built library; run by `make test-c`.
 *   test_api              every test
 *   test_api TEXT         only the tests whose name contains TEXT (also TEST=TEXT in the
 *                         environment; `make test-c TEST=TEXT` passes it on)
 *   test_api --list       the tests' names, in the order they run
 * PASSCODE_TEST_BACKEND=service runs them in service mode (api_support.h), against the passcoded
 * of Tests/service/test_service.py, as root, PASSCODE_TEST_CLOCK_FILE naming its clock file.
 * Either way the last lines count the tests that run on both back ends and those marked
 * embedded-only (by reason) or not yet through the service (by call); with
 * PASSCODE_TEST_RUN_NOT_YET=1 the latter run anyway (which marks can go after a merge? one
 * test at a time is best: a test whose calls all fail may crash on what they did not return). */
#include "api_support.h"

char tmp_root[256];
int path_counter;
test_clock the_clock = { 1000000, 1700000000000LL, 42 };
int tl_passed, tl_failed;
const char *tl_current = "";
const char *tl_filter;
int tl_listing, tl_ran;
int service_backend, run_not_yet;

/* ---- the back ends: marks, counts, the service's clock ---------------------------------- */

/* The marks of the tests that ran, by kind and reason (or call). */
struct mark { const char *kind, *why; int count; };
static struct mark marks[64];
static int mark_kinds, marked_tests;
static const char *marked_current;  /* the test the last mark was made in */
static int run_not_yet_current;     /* that test is marked not yet, and runs anyway */

void mark_test(const char *kind, const char *why) {
    if (marked_current == tl_current) return;  /* one mark a test: the first */
    marked_current = tl_current;
    run_not_yet_current = run_not_yet && !strcmp(kind, "not yet through the service");
    marked_tests++;
    int i = 0;
    while (i < mark_kinds && (strcmp(marks[i].kind, kind) || strcmp(marks[i].why, why))) i++;
    if (i == mark_kinds) {
        if (mark_kinds == 64) abort();
        marks[mark_kinds++] = (struct mark){ kind, why, 0 };
    }
    marks[i].count++;
    if (service_backend) printf("%s%s: %s: %s\n", kind, run_not_yet_current ? " (run anyway)" : "", tl_current, why);
}

static void print_counts(void) {
    if (service_backend) printf("service mode: %d tests ran through the service, %d did not:\n", tl_ran - marked_tests, marked_tests);
    else printf("embedded store: %d tests ran; in service mode %d of them run too, %d do not:\n", tl_ran, tl_ran - marked_tests, marked_tests);
    for (int k = 0; k < 2; k++) {
        const char *kind = k ? "not yet through the service" : "embedded-only";
        int total = 0;
        for (int i = 0; i < mark_kinds; i++) total += strcmp(marks[i].kind, kind) ? 0 : marks[i].count;
        printf("  %s: %d\n", kind, total);
        for (int i = 0; i < mark_kinds; i++)
            if (!strcmp(marks[i].kind, kind)) printf("    %3d  %s\n", marks[i].count, marks[i].why);
    }
}

/* The service's clock moves `ms` forward: the offset in its root-owned clock file (seconds, or
 * ms with an "ms" suffix; other processes may have moved it too) grows by `ms`, written to a
 * new file renamed over it (the daemon never reads half a number). */
static void fprintd_mock(const char *call, const char *what) {
    char command[400];
    snprintf(command, sizeof command, "busctl --system call net.reactivated.Fprint /net/reactivated/Fprint/Manager "
             "org.freedesktop.DBus.Mock %s >/dev/null", call);
    if (system(command) != 0) {
        FAIL_MSG("the fprintd template cannot %s (is it on the suite's bus?)", what);
    }
}

void service_reader(int on) {
    static int plugged;  /* one reader at most: a second service_reader(1) keeps the first */
    if (!service_backend || on == plugged) return;
    plugged = on;
    if (on) fprintd_mock("AddDevice sas 'Test Sensor' 1 right-index-finger", "add a reader");
    else fprintd_mock("RemoveObject o /net/reactivated/Fprint/Device/0", "remove the reader");
}

void service_finger(const char *result) {
    if (!service_backend) return;
    char call[200];
    snprintf(call, sizeof call, "QueueVerifyResult ss /net/reactivated/Fprint/Device/0 %s", result);
    fprintd_mock(call, "queue a finger");
}

void advance_service_clock(int64_t ms) {
    const char *file = getenv("PASSCODE_TEST_CLOCK_FILE");
    char tmp[600], text[64] = "";
    if (!file || !*file || ms < 0) {
        FAIL_MSG("the service's clock cannot move %lld ms (PASSCODE_TEST_CLOCK_FILE: %s)", (long long)ms, file ? file : "unset");
        return;
    }
    FILE *f = fopen(file, "r");
    if (f && !fgets(text, sizeof text, f)) text[0] = 0;
    if (f) fclose(f);
    char *end = text;
    long long offset_ms = strtoll(text, &end, 10);
    offset_ms = strncmp(end, "ms", 2) ? offset_ms * 1000 : offset_ms;
    snprintf(tmp, sizeof tmp, "%s.new", file);
    f = fopen(tmp, "w");
    if (!f || fprintf(f, "%lldms%s\n", offset_ms + (long long)ms, strstr(end, "frozen") ? " frozen" : "") < 0 || fclose(f) != 0 || chmod(tmp, 0644) != 0 || rename(tmp, file) != 0) {
        perror("the service's clock file");
        abort();
    }
}

/* ---- reset codes: the host's callback, or passcoded's mail (api_support.h) --------------------- */

void mailbox_attach(passcode_store *s, mailbox *m) {
    if (!service_backend) {
        CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, m), PASSCODE_OK);
        return;
    }
    static int recipients;
    /* The host cannot take the code in service mode. */
    CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, m), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
    if (!m->to[0]) snprintf(m->to, sizeof m->to, "r%d-%d@example.org", (int)getpid(), ++recipients);
    CHECK_STATUS(passcode_reset_recipient_set(s, m->to, PC1, LEN), PASSCODE_OK);
    char masked[256] = "";
    CHECK_STATUS(passcode_reset_recipient(s, masked, sizeof masked), PASSCODE_OK);
    CHECK(masked[0] == 'r' && !strcmp(masked + 1, "***@example.org"));
}

/* The mails the relay received for `to` since the last call (read and removed): the code of the
 * newest delivered one into `code`; returns the delivered ones, `*refused` the refused ones. */
static int collect_mail(const char *to, char *code, size_t size, int *refused) {
    const char *dir = getenv("PASSCODE_TEST_MAIL_DIR");
    int delivered = 0, newest = -1;
    *refused = 0;
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        FAIL_MSG("no relay's mail folder (PASSCODE_TEST_MAIL_DIR: %s)", dir ? dir : "unset");
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        int is_refused = !strncmp(name, "refused-", 8);
        const char *rest = is_refused ? name + 8 : name;
        const char *dash = strchr(rest, '-');
        if (!dash || rest[0] < '0' || rest[0] > '9' || strcmp(dash + 1, to)) continue;
        char file[700];
        snprintf(file, sizeof file, "%s/%s", dir, name);
        size_t len = 0;
        char *text = slurp(file, &len);
        unlink(file);
        int seq = atoi(rest);
        const char *at = text ? strstr(text, "reset code is ") : NULL;
        if (is_refused) (*refused)++;
        else {
            delivered++;
            if (at && seq > newest) {
                newest = seq;
                size_t n = 0;
                at += 14;
                while (at[n] >= '0' && at[n] <= '9' && n + 1 < size) { code[n] = at[n]; n++; }
                code[n] = 0;
            }
        }
        free(text);
    }
    closedir(d);
    return delivered;
}

int32_t request_code(passcode_store *s, mailbox *m) {
    if (!service_backend) return passcode_reset_request(s);
    char refuse[600];
    const char *dir = getenv("PASSCODE_TEST_MAIL_DIR");
    snprintf(refuse, sizeof refuse, "%s/refuse", dir ? dir : ".");
    if (m->fail) {
        FILE *f = fopen(refuse, "w");
        if (f) fclose(f);
    }
    int32_t rc = passcode_reset_request(s);
    if (m->fail) unlink(refuse);
    char code[16] = "";
    int refused = 0, delivered = collect_mail(m->to, code, sizeof code, &refused);
    m->handed += delivered + refused;
    if (rc == PASSCODE_OK && (delivered != 1 || !code[0])) {
        FAIL_MSG("passcode_reset_request answered OK, and the relay received %d mails with a code for %s", delivered, m->to);
    } else if (rc != PASSCODE_OK && delivered) {
        FAIL_MSG("passcode_reset_request answered %s, and the relay received a mail for %s", passcode_strerror(rc), m->to);
    }
    if (rc == PASSCODE_OK) snprintf(m->code, sizeof m->code, "%s", code);
    return rc;
}

int32_t request_while_pending(passcode_store *s, mailbox *m) {
    if (!service_backend) return passcode_reset_request(s);
    int32_t rc = passcode_reset_request(s);
    char code[16] = "";
    int refused = 0, delivered = collect_mail(m->to, code, sizeof code, &refused);
    m->handed += delivered + refused;
    if (delivered || refused) {
        FAIL_MSG("a request while a code was pending reached the relay (%d mails for %s)", delivered + refused, m->to);
    }
    return rc;
}

static void remove_tree(const char *dir);

/* A test that runs through the service leaves no file in tmp_root: one that did opened an
 * embedded store, and would pass without the service (it must be marked instead). */
void after_test(const char *name) {
    (void)name;  /* the same as tl_current, which the failure report names */
    if (service_backend && (marked_current != tl_current || run_not_yet_current)) {
        DIR *d = opendir(tmp_root);
        struct dirent *e;
        char found[300] = "";
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !*found) snprintf(found, sizeof found, "%s", e->d_name);
        if (d) closedir(d);
        if (*found) {
            FAIL_MSG("made %s in the test folder: an embedded store in service mode (mark the test)", found);
            remove_tree(tmp_root);
            mkdir(tmp_root, 0700);
        }
    }
}

static void remove_tree(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static void run_all(void) {
    run_open_tests();
    run_passcode_tests();
    run_lockout_tests();
    run_processes_tests();
    run_hooks_tests();
    run_hostile_tests();
    run_policy_tests();
    run_across_change_tests();
    run_overlapping_calls_tests();
    run_events_tests();
    run_key_tests();
    run_reset_rules_tests();
    run_session_tests();
    run_robustness_tests();
    run_file_attack_tests();
    run_remove_tests();
    run_user_tests();
}

int main(int argc, char **argv) {
    /* The second process of the data-key attack (api_key.c). */
    if (argc == 6 && !strcmp(argv[1], "--attack-key")) return key_attack(argv[2], argv[3], argv[4], argv[5]);
    /* A verify in another process (the time-namespace test runs this under unshare). */
    if (argc == 4 && !strcmp(argv[1], "--probe-verify")) {
        passcode_store *s = NULL;
        int32_t rc = passcode_open(argv[2], NULL, &s);
        if (rc == PASSCODE_OK) rc = passcode_verify(s, argv[3], strlen(argv[3]));
        printf("%d\n", rc);
        passcode_close(s);
        return 0;
    }
    /* A process that guesses while -wal and -shm are deleted under it (api_file_attacks.c). */
    if (argc == 3 && !strcmp(argv[1], "--wal-guesser")) return wal_guesser(argv[2]);
    /* The processes of the robustness tests (api_robustness.c). */
    if (argc == 3 && !strcmp(argv[1], "--probe-reset")) return probe_reset(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--probe-launch")) return probe_launch(argv[2]);
    if (argc == 6 && !strcmp(argv[1], "--no-session-child")) {
        the_clock.boot_ms = strtoll(argv[3], NULL, 10);
        the_clock.wall_ms = strtoll(argv[4], NULL, 10);
        the_clock.boot_id = strtoull(argv[5], NULL, 10);
        return no_session_child(argv[2]);
    }
    if (argc == 6 && !strncmp(argv[1], "--session-kind-child", 20)) {
        char name[64];
        the_clock.boot_ms = strtoll(argv[3], NULL, 10);
        the_clock.wall_ms = strtoll(argv[4], NULL, 10);
        the_clock.boot_id = strtoull(argv[5], NULL, 10);
        snprintf(name, sizeof name, "libpasscode-test-29-%d", (int)getpid());
        return session_kind_child(argv[2], strcmp(argv[1], "--session-kind-child-anonymous") ? name : "-");
    }
    /* The second process of the session keyring tests (api_session.c). */
    if (argc >= 2 && !strcmp(argv[1], "--session-child")) return session_child(argc, argv);
    if (argc == 2 && !strcmp(argv[1], "--list")) tl_listing = 1;
    else if (argc == 2 && argv[1][0] != '-') tl_filter = argv[1];
    else if (argc != 1) {
        fprintf(stderr, "usage: %s [TEXT | --list]   (TEXT: run only the tests whose name contains it)\n", argv[0]);
        return 2;
    } else if (getenv("TEST") && *getenv("TEST")) tl_filter = getenv("TEST");
    if (tl_listing) {
        run_all();
        return 0;
    }
    const char *backend = getenv("PASSCODE_TEST_BACKEND");
    if (backend && *backend && strcmp(backend, "embedded")) {
        if (strcmp(backend, "service")) { fprintf(stderr, "PASSCODE_TEST_BACKEND is embedded or service, not %s\n", backend); return 2; }
        service_backend = 1;
        run_not_yet = getenv("PASSCODE_TEST_RUN_NOT_YET") && !strcmp(getenv("PASSCODE_TEST_RUN_NOT_YET"), "1");
    }
    /* Our own session keyring, new and empty, that our child processes share and that goes
     * when we exit: entries the tests make never reach the user's real login session. */
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) { perror("keyctl join"); return 2; }
    snprintf(tmp_root, sizeof tmp_root, "/tmp/passcode-test-XXXXXX");
    if (!mkdtemp(tmp_root)) { perror("mkdtemp"); return 2; }
    run_all();
    remove_tree(tmp_root);
    print_counts();
    return tl_summary();
}
