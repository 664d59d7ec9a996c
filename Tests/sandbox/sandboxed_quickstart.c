/* The C quick start in service mode, run inside a sandbox by Tests/sandbox/test_sandbox.py: it
 * reads one command a line on standard input and prints what the caller got, one line each:
 *   open APP_ID | set CODE | verify CODE | state | close
 * Each answer: "<command>: <status number> <passcode_strerror> | <passcode_errmsg>". */
#include <passcode.h>
#include <stdio.h>
#include <string.h>

static passcode_store *store;

static void answer(const char *what, int32_t rc) {
    const char *message = rc == PASSCODE_OK ? "" : passcode_errmsg(store);
    printf("%s: %d %s | %s\n", what, rc, passcode_strerror(rc), message ? message : "");
    fflush(stdout);
}

int main(void) {
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char *arg = strchr(line, ' ');
        if (arg) *arg++ = 0;
        if (strcmp(line, "open") == 0 && arg) {
            passcode_close(store);
            store = NULL;
            passcode_options *options = NULL;
            int32_t rc = passcode_options_new(&options);
            if (rc == PASSCODE_OK) rc = passcode_options_set_service(options, arg);
            if (rc == PASSCODE_OK) rc = passcode_open(arg, options, &store);
            passcode_options_free(options);
            const char *message = rc == PASSCODE_OK ? "" : passcode_errmsg(NULL);
            printf("open: %d %s | %s\n", rc, passcode_strerror(rc), message ? message : "");
            fflush(stdout);
        } else if (strcmp(line, "set") == 0 && arg) {
            answer("set", passcode_set(store, arg, strlen(arg)));
        } else if (strcmp(line, "verify") == 0 && arg) {
            answer("verify", passcode_verify(store, arg, strlen(arg)));
        } else if (strcmp(line, "state") == 0) {
            int32_t failures = -1, is_set = -1;
            int32_t rc = passcode_failed_attempts(store, &failures);
            if (rc == PASSCODE_OK) rc = passcode_is_set(store, &is_set);
            printf("state: %d set=%d failures=%d\n", rc, is_set, failures);
            fflush(stdout);
        } else if (strcmp(line, "close") == 0) {
            passcode_close(store);
            store = NULL;
            printf("close: 0\n");
            fflush(stdout);
        } else {
            printf("unknown: %s\n", line);
            fflush(stdout);
        }
    }
    passcode_close(store);
    return 0;
}
