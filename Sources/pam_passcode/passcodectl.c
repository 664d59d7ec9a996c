/* passcodectl: a user's login passcode as passcoded keeps it, as faillock is for its tallies.
 *
 *   passcodectl [--app APP] [--stdin] status [USER]
 *   passcodectl [--app APP] [--stdin] set USER        (root)
 *   passcodectl [--app APP] [--stdin] change [USER]
 *   passcodectl [--app APP] [--stdin] remove USER     (root; a login store's whole store)
 *   passcodectl [--app APP] reset USER                (root)
 *   passcodectl [--app APP] log [USER]
 *
 * One line per answer, naming the user by name (the number only for a uid with no name), with
 * counts in words ("1 failure", "2 failures"); exit 0 done, 1 refused (a wrong passcode, no right, nothing to do),
 * 2 usage, 3 passcoded unreachable, 4 locked out or reset required. Passcodes come from the
 * terminal without echo, or with --stdin one a line from standard input. */

#include <passcode.h>
#include <sodium.h>
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "passcode_app_id.h"

enum { EXIT_DONE = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_UNREACHABLE = 3, EXIT_LOCKED = 4 };

static int from_stdin = 0;

static int usage(void)
{
    fputs("usage: passcodectl [--app APP] [--stdin] status [USER] | set USER | change [USER] | remove USER | reset USER | log [USER]\n", stderr);
    return EXIT_USAGE;
}

/* Set by read_code: the line had a NUL or did not fit buf. */
static int bad_line = 0;

/* One line of digits into buf, without echo on a terminal: 0, or -1 at the end of input, or -1
 * with bad_line set for a line with a NUL or longer than buf holds (such a line is read to its
 * end and refused whole, never cut: its rest is not taken as the next passcode, and no byte of
 * it after a NUL is silently dropped). */
static int read_code(const char *prompt, char *buf, size_t size)
{
    FILE *in = stdin;
    FILE *tty = NULL;
    struct termios old, quiet;
    int restore = 0;
    if (!from_stdin) {
        tty = fopen("/dev/tty", "r+");
        if (tty == NULL) {
            fputs("passcodectl: no terminal to ask the passcode on (use --stdin)\n", stderr);
            return -1;
        }
        in = tty;
        fputs(prompt, tty);
        fflush(tty);
        if (tcgetattr(fileno(tty), &old) == 0) {
            quiet = old;
            quiet.c_lflag &= ~(tcflag_t)ECHO;
            restore = tcsetattr(fileno(tty), TCSAFLUSH, &quiet) == 0;
        }
    }
    size_t n = 0;
    int ch, bad = 0;
    while ((ch = fgetc(in)) != EOF && ch != '\n') {
        if (ch == '\0' || n + 1 >= size) bad = 1;
        else buf[n++] = (char)ch;
    }
    int got = n > 0 || bad || ch == '\n';
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\r') buf[--n] = '\0';
    if (restore) tcsetattr(fileno(tty), TCSAFLUSH, &old);
    if (tty) {
        fputc('\n', tty);
        fclose(tty);
    }
    if (bad) {
        sodium_memzero(buf, size);
        bad_line = 1;
    }
    return got && !bad ? 0 : -1;
}

/* "1 failure", "2 failures": a count and its noun, as a person reads it. */
static const char *counted(char *buf, size_t size, long long n, const char *one, const char *many)
{
    snprintf(buf, size, "%lld %s", n, n == 1 ? one : many);
    return buf;
}

/* The line of a passcode not read. */
static void no_code(const char *who)
{
    if (bad_line) printf("%s: not a passcode (a line with a NUL, or too long); nothing was changed\n", who);
    else printf("%s: no passcode given\n", who);
}

static int user_uid(const char *name, uid_t *uid)
{
    if (name == NULL) {
        *uid = getuid();
        return 0;
    }
    struct passwd *pw = getpwnam(name);
    if (pw == NULL) {
        printf("%s: no such user\n", name);
        return -1;
    }
    *uid = pw->pw_uid;
    return 0;
}

/* The exit code and line of a failed call. */
static int failed(passcode_store *store, const char *who, int s)
{
    const char *why = passcode_errmsg(store);
    switch (s) {
    case PASSCODE_ERR_LOCKED_OUT: {
        char wait[48];
        printf("%s: locked out for %s more\n", who, counted(wait, sizeof wait, (long long)passcode_errwait(store), "second", "seconds"));
        return EXIT_LOCKED;
    }
    case PASSCODE_ERR_RESET_REQUIRED:
        printf("%s: reset required (passcodectl reset, as root)\n", who);
        return EXIT_LOCKED;
    case PASSCODE_ERR_SERVICE_UNAVAILABLE:
        printf("%s: passcoded unreachable: %s\n", who, why && *why ? why : passcode_strerror(s));
        return EXIT_UNREACHABLE;
    default:
        printf("%s: %s\n", who, why && *why ? why : passcode_strerror(s));
        return EXIT_REFUSED;
    }
}

int main(int argc, char **argv)
{
    const char *app = "login";
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--stdin") == 0) from_stdin = 1;
        else if (strcmp(argv[i], "--app") == 0 && i + 1 < argc) app = argv[++i];
        else if (strcmp(argv[i], "--help") == 0) { usage(); return EXIT_DONE; }
        else return usage();
    }
    if (i >= argc) return usage();
    const char *cmd = argv[i++];
    const char *name = i < argc ? argv[i++] : NULL;
    if (i < argc) return usage();
    int needs_user = strcmp(cmd, "set") == 0 || strcmp(cmd, "remove") == 0 || strcmp(cmd, "reset") == 0;
    int takes_user = needs_user || strcmp(cmd, "status") == 0 || strcmp(cmd, "change") == 0 || strcmp(cmd, "log") == 0;
    if (!takes_user || (needs_user && name == NULL)) return usage();
    uid_t uid;
    if (user_uid(name, &uid) != 0) return EXIT_REFUSED;
    /* The user by name: the one given, else the caller's own from the password database; the
     * number only for a uid that has no name there. */
    char who[96];
    struct passwd *self = name ? NULL : getpwuid(uid);
    if (name) snprintf(who, sizeof who, "%s", name);
    else if (self && self->pw_name && *self->pw_name) snprintf(who, sizeof who, "%s", self->pw_name);
    else snprintf(who, sizeof who, "uid %u", (unsigned)uid);
    if (!passcode_app_id_valid(app)) { /* passcoded's own rule (passcode_app_id.h), asked of no one */
        printf("%s: %s\n", who, PASSCODE_APP_ID_REFUSAL);
        return EXIT_USAGE;
    }

    passcode_options *opts = NULL;
    passcode_store *store = NULL;
    int s = passcode_options_new(&opts);
    if (s == PASSCODE_OK) s = passcode_options_set_service(opts, app);
    if (s == PASSCODE_OK) s = passcode_open(app, opts, &store); /* service mode: the path is not used */
    passcode_options_free(opts);
    if (s != PASSCODE_OK) {
        const char *why = passcode_errmsg(NULL);
        if (s == PASSCODE_ERR_SERVICE_UNAVAILABLE) printf("%s: passcoded unreachable: %s\n", who, why && *why ? why : passcode_strerror(s));
        else printf("%s: %s\n", who, why && *why ? why : passcode_strerror(s));
        return s == PASSCODE_ERR_SERVICE_UNAVAILABLE ? EXIT_UNREACHABLE : EXIT_USAGE;
    }
    int32_t is_set = 0, reset_required = 0, length = 0;
    uint32_t failures = 0;
    int64_t lockout = 0;
    int rc = EXIT_DONE;
    char a[72] = "", b[72] = "", c[72] = "";
    if (strcmp(cmd, "log") == 0) {
        passcode_event_log *log = NULL;
        s = passcode_user_event_log_new(store, uid, &log);
        if (s != PASSCODE_OK) {
            rc = failed(store, who, s);
        } else {
            size_t n = passcode_event_log_count(log);
            for (size_t k = 0; k < n; k++) {
                int32_t kind = 0;
                int64_t ms = 0;
                const char *detail = NULL;
                if (passcode_event_log_get(log, k, &kind, &ms, &detail) != PASSCODE_OK) continue;
                time_t t = (time_t)(ms / 1000);
                struct tm tm;
                char when[32] = "?";
                if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
                const char *kn = passcode_event_log_kind_name(kind);
                printf("%s %s%s%s\n", when, kn ? kn : "?", detail && *detail ? " " : "", detail ? detail : "");
            }
            passcode_event_log_free(log);
        }
        goto out;
    }
    s = passcode_user_state(store, uid, &is_set, &failures, &lockout, &reset_required, &length);
    if (s != PASSCODE_OK) {
        rc = failed(store, who, s);
        goto out;
    }
    if (strcmp(cmd, "status") == 0) {
        if (!is_set) printf("%s: no passcode\n", who);
        else {
            char digits[32], fails[32], wait[48];
            printf("%s: set, %s, %s, lockout %s, reset %s\n", who, counted(digits, sizeof digits, length, "digit", "digits"),
                   counted(fails, sizeof fails, failures, "failure", "failures"),
                   counted(wait, sizeof wait, lockout, "second", "seconds"), reset_required ? "required" : "not required");
        }
    } else if (strcmp(cmd, "set") == 0) {
        if (is_set) {
            printf("%s: a passcode is set (change, or remove it first)\n", who);
            rc = EXIT_REFUSED;
        } else if (read_code("New passcode: ", a, sizeof a) != 0 || (!from_stdin && read_code("Retype: ", b, sizeof b) != 0)) {
            no_code(who);
            rc = EXIT_REFUSED;
        } else if (!from_stdin && (strlen(a) != strlen(b) || sodium_memcmp(a, b, strlen(a)) != 0)) {
            printf("%s: the passcodes do not match\n", who);
            rc = EXIT_REFUSED;
        } else if ((s = passcode_user_set(store, uid, a, strlen(a))) != PASSCODE_OK) {
            rc = failed(store, who, s);
        } else {
            printf("%s: passcode set\n", who);
        }
    } else if (strcmp(cmd, "change") == 0) {
        if (!is_set) {
            printf("%s: no passcode\n", who);
            rc = EXIT_REFUSED;
        } else if (read_code("Current passcode: ", a, sizeof a) != 0 || read_code("New passcode: ", b, sizeof b) != 0
                   || (!from_stdin && read_code("Retype: ", c, sizeof c) != 0)) {
            no_code(who);
            rc = EXIT_REFUSED;
        } else if (!from_stdin && (strlen(b) != strlen(c) || sodium_memcmp(b, c, strlen(b)) != 0)) {
            printf("%s: the passcodes do not match\n", who);
            rc = EXIT_REFUSED;
        } else if ((s = passcode_user_change(store, uid, a, strlen(a), b, strlen(b))) != PASSCODE_OK) {
            rc = failed(store, who, s);
        } else {
            printf("%s: passcode changed\n", who);
        }
    } else if (strcmp(cmd, "remove") == 0) {
        if (geteuid() == 0) {
            /* Root: also a login store without a passcode (left by 0.9) goes, which passcoded does. */
            s = passcode_user_remove(store, uid, NULL, 0);
            if (s == PASSCODE_ERR_NO_PASSCODE) {
                printf("%s: no passcode\n", who);
                rc = EXIT_REFUSED;
            } else if (s != PASSCODE_OK) {
                rc = failed(store, who, s);
            } else {
                printf("%s: passcode removed\n", who);
            }
        } else if (!is_set) {
            printf("%s: no passcode\n", who);
            rc = EXIT_REFUSED;
        } else if (read_code("Passcode: ", a, sizeof a) != 0) {
            no_code(who);
            rc = EXIT_REFUSED;
        } else if ((s = passcode_user_remove(store, uid, a, strlen(a))) != PASSCODE_OK) {
            rc = failed(store, who, s);
        } else {
            printf("%s: passcode removed\n", who);
        }
    } else { /* reset */
        if ((s = passcode_user_reset(store, uid)) != PASSCODE_OK) rc = failed(store, who, s);
        else printf("%s: failures cleared\n", who);
    }
out:
    sodium_memzero(a, sizeof a);
    sodium_memzero(b, sizeof b);
    sodium_memzero(c, sizeof c);
    passcode_close(store);
    return rc;
}
