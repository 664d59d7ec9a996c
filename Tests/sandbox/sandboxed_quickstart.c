/* The C quick start in service mode, run inside a sandbox by Tests/sandbox/test_sandbox.py: it
 * reads one command a line on standard input and prints what the caller got, one line each:
 *   open APP_ID | set CODE | verify CODE | state | close
 *   cycles N APP_ID: N opens and closes of APP_ID's store in service mode after one more, and this
 *     process's open fds and threads (/proc/self/fd, /proc/self/task) before and after the N
 *   fork: a child made by fork() asks the open store's state (its own connection), then the parent
 * Each answer: "<command>: <status number> <passcode_strerror> | <passcode_errmsg>". */
#include <passcode.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static passcode_store *store;

static void answer(const char *what, int32_t rc) {
    const char *message = rc == PASSCODE_OK ? "" : passcode_errmsg(store);
    printf("%s: %d %s | %s\n", what, rc, passcode_strerror(rc), message ? message : "");
    fflush(stdout);
}

/* The entries of a folder of /proc/self (its . and .. and the listing's own fd not counted). */
static int count_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return strcmp(path, "/proc/self/fd") == 0 ? n - 1 : n;
}

/* One open and close of `app`'s store in service mode. */
static int32_t open_close(const char *app) {
    passcode_options *options = NULL;
    passcode_store *s = NULL;
    int32_t rc = passcode_options_new(&options);
    if (rc == PASSCODE_OK) rc = passcode_options_set_service(options, app);
    if (rc == PASSCODE_OK) rc = passcode_open(app, options, &s);
    passcode_options_free(options);
    passcode_close(s);
    return rc;
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
        } else if (strcmp(line, "cycles") == 0 && arg && strchr(arg, ' ')) {
            char *app = strchr(arg, ' ');
            *app++ = 0;
            int n = atoi(arg);
            int32_t rc = open_close(app);  /* the first: libsystemd loaded, anything made once */
            int fds = count_entries("/proc/self/fd"), threads = count_entries("/proc/self/task");
            for (int i = 0; i < n && rc == PASSCODE_OK; i++) rc = open_close(app);
            printf("cycles: %d %s | %d opens and closes: fds %d -> %d, threads %d -> %d\n", rc, passcode_strerror(rc), n, fds,
                   count_entries("/proc/self/fd"), threads, count_entries("/proc/self/task"));
            fflush(stdout);
        } else if (strcmp(line, "fork") == 0) {
            fflush(stdout);
            pid_t child = fork();
            if (child == 0) {
                int32_t failures = -1;
                _exit(passcode_failed_attempts(store, &failures) == PASSCODE_OK && failures >= 0 ? 0 : 1);
            }
            int how = -1;
            if (child > 0) waitpid(child, &how, 0);
            int32_t failures = -1;
            int32_t rc = passcode_failed_attempts(store, &failures);
            int child_ok = child > 0 && WIFEXITED(how) && WEXITSTATUS(how) == 0;
            printf("fork: %d %s | the child's own call %s; the parent's after it: failures=%d\n", rc, passcode_strerror(rc),
                   child_ok ? "answered" : "failed", failures);
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
