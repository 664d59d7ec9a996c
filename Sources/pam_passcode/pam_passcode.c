/* pam_passcode: the passcode of a user's `login` store (passcoded) as a PAM module.
 *
 * authenticate asks for the passcode through the conversation (digits only, the store's length)
 * and makes one attempt through passcoded; chauthtok sets or changes it; setcred and acct_mgmt
 * answer PAM_IGNORE (never a success, never a counter reset). The return codes are fixed
 * (pam_passcode(8)): a right passcode PAM_SUCCESS, a wrong one PAM_AUTH_ERR, a lockout or a
 * required reset PAM_MAXTRIES with its text (a "forgot passcode" on the login store is one:
 * passcoded keeps the PIN, reset-required, so nullok never passes it), no passcode PAM_IGNORE
 * with nullok else PAM_AUTHINFO_UNAVAIL, and passcoded unreachable PAM_AUTHINFO_UNAVAIL, never
 * IGNORE or SUCCESS.
 * With `fingerprint`, passcoded reads the user's finger (fprintd) while the PIN is asked, and
 * the first to succeed answers PAM_SUCCESS; `fingerprint=only` reads the finger alone (the
 * finger half, below, says how the two are kept apart and always stopped).
 * The module reads no file and keeps nothing: every count is passcoded's.
 * Every authentication that does not succeed leaves the login store's state, in numbers, in the
 * PAM environment variable PAM_PASSCODE_STATE (put_state, pam_passcode(8)), so that a screen
 * locker driving PAM shows "locked for 4 minutes" without parsing the text; a success removes it.
 *
 * The library is loaded at run time, not linked: a module whose DT_NEEDED library is missing
 * fails libpam's own dlopen, and the stack then goes on without it, silently (only "Password:"
 * appears; a setuid sudo, su or login ignores LD_LIBRARY_PATH, so a library outside the dynamic
 * loader's cache is such a case). load_library() opens "libpasscode.so.0" (the loader's cache and
 * default directories), then PASSCODE_LIBRARY_PATH where one is built in (the copy `make install`
 * puts on the live system: LIBDIR's library; the tested build and the packages' load it by name
 * only); when neither opens, each call logs one LOG_ERR line naming the library and what to do, and
 * answers PAM_AUTHINFO_UNAVAIL, so the stack goes on to the password. The library stays loaded
 * (RTLD_NODELETE): the module may be unloaded and loaded again by each pam_end and pam_start. */
#define PAM_SM_AUTH
#define PAM_SM_ACCOUNT
#define PAM_SM_PASSWORD
#include <security/pam_modules.h>
#include <security/pam_ext.h>
#include <security/pam_modutil.h>
#include <passcode.h>
#include <sodium.h>
#include <dlfcn.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "passcode_app_id.h"

#ifndef PASSCODE_LIBRARY_PATH
#define PASSCODE_LIBRARY_PATH ""
#endif
#define PASSCODE_SONAME "libpasscode.so.0"

/* The library's calls the module makes, each typed by the header's own declaration. */
#define PASSCODE_CALLS(X) X(passcode_open) X(passcode_close) X(passcode_errmsg) X(passcode_errwait) \
    X(passcode_options_new) X(passcode_options_free) X(passcode_options_set_service) X(passcode_strerror) \
    X(passcode_user_state) X(passcode_user_verify) X(passcode_user_set) X(passcode_user_change) X(passcode_message_text) \
    X(passcode_user_fingerprint_ready) X(passcode_user_fingerprint_unlock) X(passcode_user_fingerprint_cancel) \
    X(passcode_user_lockout)
static struct {
#define PASSCODE_FIELD(name) __typeof__(name) *name;
    PASSCODE_CALLS(PASSCODE_FIELD)
#undef PASSCODE_FIELD
    void *handle;
    char error[512];
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void *open_library(void)
{
    void *h = dlopen(PASSCODE_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h != NULL) return h;
    const char *by_name = dlerror();
    snprintf(lib.error, sizeof lib.error, "%s", by_name ? by_name : PASSCODE_SONAME);
    if (strchr(PASSCODE_LIBRARY_PATH, '/') == NULL) return NULL;
    h = dlopen(PASSCODE_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h == NULL) {
        const char *by_path = dlerror();
        size_t n = strlen(lib.error);
        snprintf(lib.error + n, sizeof lib.error - n, "; %s", by_path ? by_path : PASSCODE_LIBRARY_PATH);
    }
    return h;
}

static void load_once(void)
{
    void *h = open_library(), *sym = NULL;
    if (h == NULL) return;
#define PASSCODE_LOAD(name) \
    sym = dlsym(h, #name); \
    memcpy(&lib.name, &sym, sizeof lib.name); \
    if (sym == NULL) { \
        snprintf(lib.error, sizeof lib.error, "%s has no %s (an older library than this module)", PASSCODE_SONAME, #name); \
        return; \
    }
    PASSCODE_CALLS(PASSCODE_LOAD)
#undef PASSCODE_LOAD
    lib.handle = h;
}

/* 1 when the library's calls are there; else 0, logged once per call of the module. */
static int load_library(pam_handle_t *pamh)
{
    pthread_once(&lib_once, load_once);
    if (lib.handle != NULL) return 1;
    if (pamh != NULL)
        pam_syslog(pamh, LOG_ERR, "cannot load %s (%s): no passcode asked; install the package libpasscode0, or "
                   "after make install run ldconfig (then passcodectl status USER runs as root)", PASSCODE_SONAME, lib.error);
    return 0;
}

/* Which library the module loaded, for `make install`'s check (NULL: none, and why in *why). */
PAM_EXTERN const char *pam_passcode_library(const char **why);
PAM_EXTERN const char *pam_passcode_library(const char **why)
{
    if (!load_library(NULL)) {
        if (why != NULL) *why = lib.error;
        return NULL;
    }
    Dl_info info;
    void *addr = NULL;
    memcpy(&addr, &lib.passcode_open, sizeof addr);
    if (dladdr(addr, &info) == 0 || info.dli_fname == NULL) return PASSCODE_SONAME;
    return info.dli_fname;
}

/* From here on each call of the library goes through the table. */
#define passcode_open lib.passcode_open
#define passcode_close lib.passcode_close
#define passcode_errmsg lib.passcode_errmsg
#define passcode_errwait lib.passcode_errwait
#define passcode_options_new lib.passcode_options_new
#define passcode_options_free lib.passcode_options_free
#define passcode_options_set_service lib.passcode_options_set_service
#define passcode_strerror lib.passcode_strerror
#define passcode_user_state lib.passcode_user_state
#define passcode_user_verify lib.passcode_user_verify
#define passcode_user_set lib.passcode_user_set
#define passcode_user_change lib.passcode_user_change
#define passcode_message_text lib.passcode_message_text

/* What the module says to a person: each a row of the library's message table (its PAM_ codes,
 * pam_passcode(8) lists them), in the program's language through the gettext domain pam_passcode
 * (the library's passcode_message_text: the program's locale decides, as for every PAM module). */
static void say(pam_handle_t *pamh, passcode_message message, int64_t number)
{
    pam_error(pamh, "%s", passcode_message_text(message, number));
}

static int ask_digits(pam_handle_t *pamh, passcode_message prompt, int length, char **out)
{
    return pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, out, "%s ", passcode_message_text(prompt, length));
}

#define passcode_user_fingerprint_ready lib.passcode_user_fingerprint_ready
#define passcode_user_fingerprint_unlock lib.passcode_user_fingerprint_unlock
#define passcode_user_fingerprint_cancel lib.passcode_user_fingerprint_cancel

/* fingerprint: the finger (read by passcoded) beside the PIN prompt; FINGER_ONLY: the finger
 * alone, no prompt (a second stack beside the PIN's, as a greeter runs them). */
enum { FINGER_OFF = 0, FINGER_WITH_PIN = 1, FINGER_ONLY = 2 };
#define passcode_user_lockout lib.passcode_user_lockout

struct options {
    int debug, nullok, silent, allow_remote, fingerprint;
    const char *app;
};

/* The login stores: `login`, or `login.<name>`, and an application id by passcoded's one rule
 * (passcode_app_id.h, generated from passcoded's XML as its AppID is); passcoded lets root alone
 * enrol their passcodes, so a user's process cannot enrol the one it passes. */
static int valid_app(const char *app)
{
    if (strncmp(app, "login", 5) != 0) return 0;
    if (app[5] != '\0' && (app[5] != '.' || app[6] == '\0')) return 0;
    return passcode_app_id_valid(app);
}

static int parse(pam_handle_t *pamh, int flags, int argc, const char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->app = "login";
    o->silent = (flags & PAM_SILENT) != 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "debug") == 0) o->debug = 1;
        else if (strcmp(argv[i], "nullok") == 0) o->nullok = 1;
        else if (strcmp(argv[i], "silent") == 0) o->silent = 1;
        else if (strcmp(argv[i], "allow_remote") == 0) o->allow_remote = 1;
        else if (strncmp(argv[i], "app=", 4) == 0) o->app = argv[i] + 4;
        else if (strcmp(argv[i], "fingerprint") == 0) o->fingerprint = FINGER_WITH_PIN;
        else if (strcmp(argv[i], "fingerprint=only") == 0) o->fingerprint = FINGER_ONLY;
        else pam_syslog(pamh, LOG_ERR, "unknown option: %s", argv[i]);
    }
    if (!valid_app(o->app)) {
        pam_syslog(pamh, LOG_ERR, "app= must be login or login.<name>, not %s", o->app);
        return PAM_SERVICE_ERR;
    }
    return PAM_SUCCESS;
}

/* A remote host (PAM_RHOST set and not this machine) is refused unless allow_remote. */
static int remote(pam_handle_t *pamh)
{
    const void *item = NULL;
    if (pam_get_item(pamh, PAM_RHOST, &item) != PAM_SUCCESS || item == NULL) return 0;
    const char *h = item;
    return !(h[0] == '\0' || strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, "::1") == 0);
}

static int target_uid(pam_handle_t *pamh, uid_t *uid, const char **name)
{
    const char *user = NULL;
    int r = pam_get_user(pamh, &user, NULL);
    if (r != PAM_SUCCESS || user == NULL || user[0] == '\0') return r == PAM_SUCCESS ? PAM_USER_UNKNOWN : r;
    struct passwd *pw = pam_modutil_getpwnam(pamh, user);
    if (pw == NULL) return PAM_USER_UNKNOWN;
    *uid = pw->pw_uid;
    *name = user;
    return PAM_SUCCESS;
}

/* The process's real uid is root or the target's. A setuid program that another user runs (su,
 * polkit's agent helper) is root to passcoded, which would let that user guess the target's
 * passcode and lock it out: such a call gets PAM_AUTHINFO_UNAVAIL, nothing asked or counted. */
static int caller_may_name(pam_handle_t *pamh, const struct options *o, uid_t uid)
{
    uid_t real = getuid();
    if (real == 0 || real == uid) return 1;
    if (o->debug) pam_syslog(pamh, LOG_DEBUG, "uid %u may not use uid %u's passcode", (unsigned)real, (unsigned)uid);
    return 0;
}

static int open_store(const struct options *o, passcode_store **out)
{
    passcode_options *opts = NULL;
    *out = NULL;
    int r = passcode_options_new(&opts);
    if (r == PASSCODE_OK) r = passcode_options_set_service(opts, o->app);
    if (r == PASSCODE_OK) r = passcode_open(o->app, opts, out)  /* service mode: the path is not used */;
    passcode_options_free(opts);
    return r;
}

static int digits_only(const char *s, size_t want)
{
    size_t n = strlen(s);
    if (n != want) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

static void wipe_free(char *s)
{
    if (s == NULL) return;
    sodium_memzero(s, strlen(s));
    free(s);
}

static void lockout_text(pam_handle_t *pamh, const struct options *o, int64_t seconds, int reset_required)
{
    if (o->silent) return;
    if (reset_required)
        say(pamh, PASSCODE_MESSAGE_PAM_RESET_REQUIRED, 0);
    else if (seconds > 0)
        say(pamh, PASSCODE_MESSAGE_PAM_LOCKED_MINUTES, (seconds + 59) / 60);
    else
        say(pamh, PASSCODE_MESSAGE_PAM_LOCKED, 0);
}

/* PAM_PASSCODE_STATE, for the application (pam_getenv) and never for a person: decimal numbers
 * only, as key:value words separated by one space (no '=' in the value: PAM's own readers split a
 * variable at an '='), in this order; a later version only adds words at the end, and a reader
 * skips keys it does not know:
 *   version:1 state:S lockout:SECONDS failures:N left:N next:SECONDS fingerprint:R
 * state: a passcode_login_state (0 open, 1 locked out, 2 reset required, 3 no passcode, 4
 * passcoded not asked or unreachable: then every other field is 0, left -1); left: wrong PINs
 * before the next delay or reset (-1: none ahead); next: that delay's seconds (-1: a reset
 * instead); fingerprint: a passcode_biometric_refusal (0: a finger may be used now). */
#define PASSCODE_STATE_ENV "PAM_PASSCODE_STATE"

static void put_state(pam_handle_t *pamh, passcode_store *store, uid_t uid)
{
    int32_t state = PASSCODE_LOGIN_STATE_UNAVAILABLE, left = -1, fingerprint = 0;
    int64_t lockout = 0, next = 0;
    uint32_t failures = 0;
    if (store == NULL || passcode_user_lockout(store, uid, &state, &lockout, &failures, &left, &next, &fingerprint) != PASSCODE_OK) {
        state = PASSCODE_LOGIN_STATE_UNAVAILABLE;
        lockout = next = 0;
        failures = 0;
        left = -1;
        fingerprint = 0;
    }
    char text[192];
    snprintf(text, sizeof text, PASSCODE_STATE_ENV "=version:1 state:%d lockout:%lld failures:%u left:%d next:%lld fingerprint:%d",
             (int)state, (long long)lockout, (unsigned)failures, (int)left, (long long)next, (int)fingerprint);
    if (pam_putenv(pamh, text) != PAM_SUCCESS) pam_syslog(pamh, LOG_ERR, "cannot set %s", PASSCODE_STATE_ENV);
}

/* A success leaves no state behind (the session's environment does not carry it). */
static void clear_state(pam_handle_t *pamh)
{
    if (pam_getenv(pamh, PASSCODE_STATE_ENV) != NULL) (void)pam_putenv(pamh, PASSCODE_STATE_ENV);
}

/* The PAM code of a status passcoded gave for `uid`'s store. */
static int pam_code(pam_handle_t *pamh, const struct options *o, passcode_store *store, uid_t uid, int status)
{
    switch (status) {
    case PASSCODE_OK: return PAM_SUCCESS;
    case PASSCODE_ERR_WRONG_PASSCODE: return PAM_AUTH_ERR;
    case PASSCODE_ERR_LOCKED_OUT: lockout_text(pamh, o, passcode_errwait(store), 0); return PAM_MAXTRIES;
    case PASSCODE_ERR_RESET_REQUIRED: lockout_text(pamh, o, 0, 1); return PAM_MAXTRIES;
    case PASSCODE_ERR_NO_PASSCODE: return o->nullok ? PAM_IGNORE : PAM_AUTHINFO_UNAVAIL;
    default: {
        const char *why = passcode_errmsg(store);
        pam_syslog(pamh, LOG_ERR, "passcoded, uid %u: %s", (unsigned)uid, why && *why ? why : passcode_strerror(status));
        return PAM_AUTHINFO_UNAVAIL;
    }
    }
}

/* ---- The finger (the `fingerprint` option): passcoded reads it through fprintd, on a handle
 * of its own, while the conversation asks for the PIN.
 *
 * The conversation is called from this thread only, the one libpam called the module on; the
 * finger's read runs on a second thread that calls nothing but the library (its own handle),
 * with every signal blocked, so a signal still reaches the program where it waits. The module
 * never returns while that thread runs: every path stops the read (passcode_user_fingerprint_cancel
 * shuts its connection, passcoded sees the connection go, stops the verification and releases
 * the reader) and joins the thread first, so no read outlives the call, and the terminal is read
 * by the conversation alone. A conversation cannot be cut short by a module: after a match the
 * prompt stays until it returns (Enter), and its answer is then wiped unread. */
struct finger {
    passcode_store *store;  /* the read's own handle: its own connection to passcoded */
    uid_t uid;
    pthread_t thread;
    int running;            /* a thread was started (joined by finger_stop) */
    int last;               /* (atomic) no read after the current one: the answer came */
    int status;             /* the last read's outcome, read after the join (PASSCODE_OK: a match) */
};

static void *finger_read(void *arg)
{
    struct finger *f = arg;
    int s;
    for (;;) {
        s = passcode_user_fingerprint_unlock(f->store, f->uid);
        /* A no-match was counted; the finger may be tried again while the core's rules allow it
         * (its fifth failed match makes the PIN the only way) and the answer has not come. */
        if (s != PASSCODE_ERR_PASSCODE_REQUIRED || __atomic_load_n(&f->last, __ATOMIC_ACQUIRE)) break;
        if (passcode_user_fingerprint_ready(f->store, f->uid) != PASSCODE_OK) break;
    }
    f->status = s;
    return NULL;
}

/* Opens the read's handle and asks passcoded whether a finger may be read now; 1 when it may
 * (the handle open), else 0 (the reason logged with debug, nothing claimed or counted). */
static int finger_ready(pam_handle_t *pamh, const struct options *o, uid_t uid, struct finger *f)
{
    memset(f, 0, sizeof *f);
    f->uid = uid;
    int s = open_store(o, &f->store);
    if (s == PASSCODE_OK) s = passcode_user_fingerprint_ready(f->store, uid);
    if (s == PASSCODE_OK) return 1;
    if (o->debug) {
        const char *why = f->store ? passcode_errmsg(f->store) : passcode_errmsg(NULL);
        pam_syslog(pamh, LOG_DEBUG, "no finger read for uid %u: %s", (unsigned)uid, why && *why ? why : passcode_strerror(s));
    }
    passcode_close(f->store);
    f->store = NULL;
    return 0;
}

/* Starts the read on its thread, signals blocked there; 1 when it runs. */
static int finger_start(pam_handle_t *pamh, struct finger *f)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* the new thread inherits the full mask */
    int r = pthread_create(&f->thread, NULL, finger_read, f);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        pam_syslog(pamh, LOG_ERR, "cannot start the fingerprint read: %s", strerror(r));
        return 0;
    }
    f->running = 1;
    return 1;
}

/* Ends the read: with `wait` the current read may finish (the user pressed Enter after
 * touching the reader: up to passcoded's fprint_timeout), else it is cancelled at once. The
 * thread is joined and the handle closed; answers the read's status (PASSCODE_OK: a match). */
static int finger_stop(pam_handle_t *pamh, const struct options *o, struct finger *f, int wait)
{
    int status = PASSCODE_ERR_STATE;
    if (f->running) {
        __atomic_store_n(&f->last, 1, __ATOMIC_RELEASE);
        if (!wait) passcode_user_fingerprint_cancel(f->store);
        pthread_join(f->thread, NULL);
        f->running = 0;
        status = f->status;
        if (o->debug) {
            const char *why = passcode_errmsg(f->store);
            pam_syslog(pamh, LOG_DEBUG, "fingerprint read for uid %u: %s%s%s", (unsigned)f->uid, passcode_strerror(status),
                       why && *why ? ": " : "", why && *why ? why : "");
        }
    }
    passcode_close(f->store);
    f->store = NULL;
    return status;
}

/* `fingerprint=only`: the finger alone, no prompt. PAM_SUCCESS on a match; PAM_AUTH_ERR when
 * it did not match (counted) until the rules need the PIN; PAM_AUTHINFO_UNAVAIL when no finger
 * may be read now (no reader, no finger enrolled, not at the machine, the PIN needed, the reader
 * busy, no finger in time, passcoded gone). Run in a stack of its own beside the PIN's; the
 * program ends that stack (and with it the connection, so passcoded releases the reader) when
 * the other answers first. */
static int finger_only(pam_handle_t *pamh, const struct options *o, uid_t uid)
{
    struct finger f;
    if (!finger_ready(pamh, o, uid, &f)) return PAM_AUTHINFO_UNAVAIL;
    if (!o->silent) pam_info(pamh, "%s", passcode_message_text(PASSCODE_MESSAGE_PAM_TOUCH_READER, 0));
    __atomic_store_n(&f.last, 0, __ATOMIC_RELEASE);
    finger_read(&f);  /* on this thread: no conversation waits meanwhile */
    int status = f.status;
    if (o->debug) {
        const char *why = passcode_errmsg(f.store);
        pam_syslog(pamh, LOG_DEBUG, "fingerprint read for uid %u: %s%s%s", (unsigned)uid, passcode_strerror(status),
                   why && *why ? ": " : "", why && *why ? why : "");
    }
    passcode_close(f.store);
    if (status == PASSCODE_OK) return PAM_SUCCESS;
    if (status == PASSCODE_ERR_PASSCODE_REQUIRED) {
        if (!o->silent) say(pamh, PASSCODE_MESSAGE_PAM_FINGER_NO_MATCH, 0);
        return PAM_AUTH_ERR;
    }
    return PAM_AUTHINFO_UNAVAIL;
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct options o;
    int r = parse(pamh, flags, argc, argv, &o);
    if (r != PAM_SUCCESS) return r;
    /* Until passcoded answers, the state is "not asked" (state:4): never a stale one. */
    put_state(pamh, NULL, 0);
    if (remote(pamh) && !o.allow_remote) {
        if (o.debug) pam_syslog(pamh, LOG_DEBUG, "remote host refused (no allow_remote)");
        return PAM_AUTHINFO_UNAVAIL;
    }
    uid_t uid = 0;
    const char *user = NULL;
    if ((r = target_uid(pamh, &uid, &user)) != PAM_SUCCESS) return r;
    if (!caller_may_name(pamh, &o, uid)) return PAM_AUTHINFO_UNAVAIL;
    if (!load_library(pamh)) return PAM_AUTHINFO_UNAVAIL;
    passcode_store *store = NULL;
    int s = open_store(&o, &store);
    if (s != PASSCODE_OK) {
        /* The reason (no bus, the name not activatable, passcoded failed to start) for the log. */
        const char *why = passcode_errmsg(NULL);
        pam_syslog(pamh, LOG_ERR, "passcoded unreachable: %s", why && *why ? why : passcode_strerror(s));
        return PAM_AUTHINFO_UNAVAIL;
    }
    int32_t is_set = 0, reset_required = 0, length = 0;
    uint32_t failures = 0;
    int64_t lockout = 0;
    s = passcode_user_state(store, uid, &is_set, &failures, &lockout, &reset_required, &length);
    if (s != PASSCODE_OK) {
        r = pam_code(pamh, &o, store, uid, s);
    } else if (!is_set) {
        if (o.debug) pam_syslog(pamh, LOG_DEBUG, "%s has no %s passcode", user, o.app);
        r = o.nullok ? PAM_IGNORE : PAM_AUTHINFO_UNAVAIL;
    } else if (reset_required || lockout > 0) {
        lockout_text(pamh, &o, lockout, reset_required);
        r = PAM_MAXTRIES;
    } else if (o.fingerprint == FINGER_ONLY) {
        r = finger_only(pamh, &o, uid);
    } else {
        /* With `fingerprint`, the finger is read while the PIN is asked: the first to succeed. */
        struct finger f = {0};
        int finger = o.fingerprint == FINGER_WITH_PIN && finger_ready(pamh, &o, uid, &f) && finger_start(pamh, &f);
        /* The conversation's answer only: a PAM_AUTHTOK another module read is never used. */
        char *answer = NULL;
        r = ask_digits(pamh, finger ? PASSCODE_MESSAGE_PAM_PASSCODE_OR_FINGER_PROMPT : PASSCODE_MESSAGE_PAM_PASSCODE_PROMPT, (int)length, &answer);
        int passcode = r == PAM_SUCCESS && answer != NULL && digits_only(answer, (size_t)length);
        /* An empty answer (Enter after touching the reader): the read under way may finish. Any
         * other answer, or a failed conversation: the read stops now. */
        int matched = finger_stop(pamh, &o, &f, r == PAM_SUCCESS && answer != NULL && answer[0] == '\0') == PASSCODE_OK;
        if (r != PAM_SUCCESS || answer == NULL) {
            r = PAM_CONV_ERR;
        } else if (matched) {
            r = PAM_SUCCESS;  /* the finger first: the answer is wiped unread, nothing sent or counted */
        } else if (!passcode) {
            /* Not a passcode of this store: nothing is sent, nothing counted. */
            if (!o.silent) say(pamh, PASSCODE_MESSAGE_PAM_WRONG_LENGTH, length);
            r = PAM_AUTH_ERR;
        } else {
            s = passcode_user_verify(store, uid, answer, (size_t)length);
            r = pam_code(pamh, &o, store, uid, s);
        }
        wipe_free(answer);
    }
    if (o.debug) pam_syslog(pamh, LOG_DEBUG, "authenticate %s: %s", user, pam_strerror(pamh, r));
    /* The state after the attempt (a wrong PIN may have started a lockout), for the application. */
    if (r == PAM_SUCCESS) clear_state(pamh);
    else put_state(pamh, store, uid);
    passcode_close(store);
    return r;
}

/* Never a success (so a stack cannot pass on it) and never a counter reset. */
PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}

static int ask(pam_handle_t *pamh, passcode_message prompt, int length, char **out)
{
    *out = NULL;
    int r = ask_digits(pamh, prompt, length, out);
    if (r != PAM_SUCCESS || *out == NULL) return PAM_CONV_ERR;
    if (!digits_only(*out, (size_t)length)) {
        say(pamh, PASSCODE_MESSAGE_PAM_CHANGE_WRONG_LENGTH, length);
        wipe_free(*out);
        *out = NULL;
        return PAM_AUTHTOK_ERR;
    }
    return PAM_SUCCESS;
}

/* Sets the first passcode (root only: passcoded refuses a user's own process; in a password
 * stack after pam_unix, passwd runs as root) or changes it with the current one. */
PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct options o;
    int r = parse(pamh, flags, argc, argv, &o);
    if (r != PAM_SUCCESS) return r;
    uid_t uid = 0;
    const char *user = NULL;
    if ((r = target_uid(pamh, &uid, &user)) != PAM_SUCCESS) return r;
    if (!caller_may_name(pamh, &o, uid)) return PAM_AUTHINFO_UNAVAIL;
    if (!load_library(pamh)) return PAM_AUTHINFO_UNAVAIL;
    passcode_store *store = NULL;
    int s = open_store(&o, &store);
    if (s != PASSCODE_OK) return PAM_AUTHINFO_UNAVAIL;
    int32_t is_set = 0, length = 0;
    s = passcode_user_state(store, uid, &is_set, NULL, NULL, NULL, &length);
    if (s != PASSCODE_OK) {
        passcode_close(store);
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (flags & PAM_PRELIM_CHECK) {
        passcode_close(store);
        return PAM_SUCCESS;
    }
    char *current = NULL, *new1 = NULL, *new2 = NULL;
    int new_length = is_set ? length : 6;
    if (is_set && (r = ask(pamh, PASSCODE_MESSAGE_PAM_CURRENT_PROMPT, length, &current)) != PAM_SUCCESS) goto done;
    if ((r = ask(pamh, PASSCODE_MESSAGE_PAM_NEW_PROMPT, new_length, &new1)) != PAM_SUCCESS) goto done;
    if ((r = ask(pamh, PASSCODE_MESSAGE_PAM_RETYPE_PROMPT, new_length, &new2)) != PAM_SUCCESS) goto done;
    if (sodium_memcmp(new1, new2, (size_t)new_length) != 0) {
        say(pamh, PASSCODE_MESSAGE_PAM_MISMATCH, 0);
        r = PAM_AUTHTOK_ERR;
        goto done;
    }
    s = is_set ? passcode_user_change(store, uid, current, (size_t)length, new1, (size_t)new_length)
               : passcode_user_set(store, uid, new1, (size_t)new_length);
    switch (s) {
    case PASSCODE_OK: r = PAM_SUCCESS; break;
    case PASSCODE_ERR_WRONG_PASSCODE: r = PAM_AUTH_ERR; break;
    case PASSCODE_ERR_LOCKED_OUT: case PASSCODE_ERR_RESET_REQUIRED: r = pam_code(pamh, &o, store, uid, s); break;
    case PASSCODE_ERR_PERMISSION: say(pamh, PASSCODE_MESSAGE_PAM_ONLY_ROOT_SETS, 0); r = PAM_PERM_DENIED; break;
    case PASSCODE_ERR_WEAK_PASSCODE: case PASSCODE_ERR_FORMAT:
        say(pamh, s == PASSCODE_ERR_WEAK_PASSCODE ? PASSCODE_MESSAGE_PAM_TOO_WEAK : PASSCODE_MESSAGE_PAM_NOT_CHANGED, 0);
        r = PAM_AUTHTOK_ERR;
        break;
    case PASSCODE_ERR_SERVICE_UNAVAILABLE: r = PAM_AUTHINFO_UNAVAIL; break;
    default: r = PAM_AUTHTOK_ERR; break;
    }
done:
    wipe_free(current);
    wipe_free(new1);
    wipe_free(new2);
    passcode_close(store);
    return r;
}
