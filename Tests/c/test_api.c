/* C tests for every function of passcode.h: good input, bad input, and that bad input
 * changes nothing, split by area into Tests/c/api_*.c. Built with -std=c99 -Wall -Wextra
 * -Wpedantic -Werror against the built library; run by `make test-c`.
 *   test_api              every test
 *   test_api TEXT         only the tests whose name contains TEXT (also TEST=TEXT in the
 *                         environment; `make test-c TEST=TEXT` passes it on)
 *   test_api --list       the tests' names, in the order they run */
#include "api_support.h"

char tmp_root[256];
int path_counter;
test_clock the_clock = { 1000000, 1700000000000LL, 42 };
int tl_passed, tl_failed;
const char *tl_current = "";
const char *tl_filter;
int tl_listing, tl_ran;

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
    run_events_tests();
    run_key_tests();
    run_reset_rules_tests();
    run_session_tests();
    run_robustness_tests();
    run_file_attack_tests();
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
    /* Our own session keyring, new and empty, that our child processes share and that goes
     * when we exit: entries the tests make never reach the user's real login session. */
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) { perror("keyctl join"); return 2; }
    snprintf(tmp_root, sizeof tmp_root, "/tmp/passcode-test-XXXXXX");
    if (!mkdtemp(tmp_root)) { perror("mkdtemp"); return 2; }
    run_all();
    remove_tree(tmp_root);
    return tl_summary();
}
