/* passcode_demo: a terminal front end for libpasscode. It only draws: every key goes to a
 * libpasscode flow, and the screen shows what the flow reports.
 *
 *   passcode_demo [--store PATH | --service APP_ID] [--script] [--fake-clock] [--tpm [TCTI]]
 *   (--service APP_ID: the store passcoded keeps for APP_ID, through the system bus)
 *
 * It speaks the user's language (LANGUAGE=de with LANG=C.UTF-8, say): its own words through the
 * front ends' gettext domain, passcode-demo, and the library's through the library's.
 *
 * --tpm binds the store to the TPM 2.0 (the kernel's /dev/tpmrm0, or a tpm2-tss TCTI such as
 * swtpm:host=127.0.0.1,port=2321): a store set up with it opens only with it.
 *
 * In a terminal it draws the design's screens with ncurses (a boxed number pad, filled and empty
 * dots, the error in red, a shake, the lockout countdown ticking) and reads single keys. What the
 * screen shows is also said in words, for a screen reader's console mode: the dots' count
 * ("3 of 6 digits"), the error with each shake, the lockout in the library's words. With --script (or when input is not a terminal) it reads
 * commands, one or more per line, and prints each screen as plain text, so tests can drive it:
 *   digits (e.g. 386491)   type them        del       delete a digit     cancel   cancel the flow
 *   launch | background | foreground | lock            app lifecycle events
 *   relaunch               quit and start again (a new process as far as the library can tell)
 *   restart                the device restarts, then the app launches (with --fake-clock)
 *   wait N                 advance the fake clock N seconds (with --fake-clock)
 *   bio-ok | bio-fail      a biometric match succeeded / failed
 *   forgot                 "Forgot passcode?" on the lock screen: asks first; yes signs out, no goes back
 *   reset-email            what the r key does: request a reset code, then the reset entry
 *   create | change | disable | enable | reset | reset-request | code (types the emailed code)
 *   biometrics faceid|touchid|fingerprint|other|none    bio on|off    timeout SECONDS    show    quit
 *   launch-lock on|off (lock at launch)   bio-launch on|off ("Require on App Launch")
 *   every-launch on|off (the passcode after every launch, not only after a restart)
 *   recipient ADDRESS PASSCODE          service mode: the address for reset codes (passcoded mails it a confirmation code)
 *   recipient-confirm CODE PASSCODE     service mode: that confirmation code; the address is the recipient then
 */
#define _DEFAULT_SOURCE
#include <passcode.h>

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

/* The demo's own words through the front ends' gettext domain (po/demo; the library's words come
 * translated through its own): this checkout's build/share/locale when the demo runs from it,
 * else the system's. The user's locale chooses the language (setlocale in main). */
#define DEMO_DOMAIN "passcode-demo"
#define _(text) dgettext(DEMO_DOMAIN, text)
#define N_(text) text
/* One form for each number: dngettext(DEMO_DOMAIN, one, many, n), as the catalogue's plural rule
 * picks. */

typedef struct {
    passcode_store *store;
    passcode_flow *flow;      /* the flow on screen, or NULL */
    int flow_kind;
    int script;               /* plain-text output */
    int fake_clock;
    const char *service;      /* --service APP_ID: the store passcoded keeps (the path a label) */
    int tpm;                  /* --tpm given: bind to the TPM at tcti (NULL: /dev/tpmrm0) */
    const char *tcti;
    int64_t fake_boot_ms, fake_wall_ms;
    uint64_t fake_boot_id;
    const char *path;
    char email[16];           /* the last reset code "emailed" */
    int last_shakes;
    char notice[512];
    int show_log;  /* the next screen is the security log */
    size_t log_from;  /* curses: the first event the log screen shows (v again: the next page) */
    char note_path[1100];  /* the secret note, sealed with the store's data key */
    int curses;               /* interactive: ncurses draws the screens */
    char said[6][200];        /* what commands said since the last screen (curses) */
    int nsaid;
    int mail_shown;           /* curses: the "email" box stays until a key other than a digit */
    int proof_pending;        /* a setting change waits for the passcode, entered in an unlock flow */
    int32_t proof_setting;
    int64_t proof_value;
    int confirm_forgot;       /* "Forgot Passcode?" asks before it signs out */
    int32_t unlock_failures;  /* failed attempts counted before the entry being typed (a repeat is not counted) */
    char banner[1200];        /* "libpasscode X demo, store PATH": stays on every screen */
} app;

/* Text of a screen: printed in scripted mode, drawn at the cursor with ncurses. */
static void out(app *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (a->curses) vw_printw(stdscr, fmt, ap);
    else vprintf(fmt, ap);
    va_end(ap);
}

/* A line of a screen: `out` and a newline, so that the translated texts hold no newline (the
 * Python demo prints the same texts). */
static void line(app *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (a->curses) vw_printw(stdscr, fmt, ap);
    else vprintf(fmt, ap);
    va_end(ap);
    out(a, "\n");
}

/* What a command says between screens, a line: printed in scripted mode; with ncurses kept for
 * the next screen. */
static void say(app *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (!a->curses) { vprintf(fmt, ap); putchar('\n'); }
    else if (a->nsaid < 6) {
        char *line = a->said[a->nsaid++];
        vsnprintf(line, sizeof a->said[0], fmt, ap);
        line[strcspn(line, "\n")] = 0;
    }
    va_end(ap);
}

/* What a person reads for the store's last failure: the library's message for it (from its code,
 * in the user's language); the programmer's text (passcode_errmsg) only for a failure a person
 * cannot act on, where its detail is what a developer trying the demo needs. */
static const char *failure_words(app *a) {
    int32_t message = PASSCODE_MESSAGE_NONE;
    int64_t number = 0;
    if (passcode_errmessage(a->store, &message, &number) != PASSCODE_OK || message == PASSCODE_MESSAGE_NONE
        || message == PASSCODE_MESSAGE_SOMETHING_WENT_WRONG)
        return passcode_errmsg(a->store);
    return passcode_message_text(message, number);
}

/* The secret note's line on the home screen: readable only while an unlock released the key. */
static void note_line(app *a) {
    FILE *f = fopen(a->note_path, "rb");
    if (!f) { line(a, "%s", _("note: (none)")); return; }
    uint8_t sealed[4096 + 64], plain[4096];
    size_t n = fread(sealed, 1, sizeof sealed, f), got = 0;
    fclose(f);
    int32_t rc = passcode_unseal(a->store, sealed, n, plain, sizeof plain, &got);
    char text[4096 + 1];
    snprintf(text, sizeof text, "%.*s", (int)got, (const char *)plain);
    if (rc == PASSCODE_OK) line(a, _("note: %s"), text);
    else if (rc == PASSCODE_ERR_KEY_NOT_RELEASED) line(a, "%s", _("note: sealed (enter the passcode to read it)"));
    else if (rc == PASSCODE_ERR_FOREIGN_CIPHERTEXT) {
        /* Sealed with a key this store no longer has (a reset or a new passcode replaced it): no
         * passcode reads it again, so it goes, and no screen promises that the passcode would. */
        unlink(a->note_path);
        line(a, "%s", _("note: (none; the old one was sealed with a data key this store no longer has, and was removed)"));
    }
    else line(a, _("note: damaged (%s)"), passcode_strerror(rc));
    explicit_bzero(plain, sizeof plain);
    explicit_bzero(text, sizeof text);
}

/* Seals `text` with the data key into the note file (mode 0600). */
static int32_t write_note(app *a, const char *text) {
    uint8_t sealed[4096 + 64];
    size_t n = 0, len = strlen(text);
    if (len > 4096) len = 4096;
    int32_t rc = passcode_seal(a->store, (const uint8_t *)text, len, sealed, sizeof sealed, &n);
    if (rc != PASSCODE_OK) return rc;
    int fd = open(a->note_path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, sealed, n) != (ssize_t)n) { if (fd >= 0) close(fd); say(a, _("error: cannot write %s"), a->note_path); return PASSCODE_OK; }
    close(fd);
    return PASSCODE_OK;
}

/* "immediately", "1 minute", "15 minutes", "1 hour": an auto-lock choice as a person reads it. */
static const char *duration_text(int64_t seconds, char *buf, size_t size) {
    unsigned long n = (unsigned long)(seconds % 3600 == 0 ? seconds / 3600 : seconds % 60 == 0 ? seconds / 60 : seconds);
    if (seconds == 0) snprintf(buf, size, "%s", _("immediately"));
    else if (seconds % 3600 == 0) snprintf(buf, size, dngettext(DEMO_DOMAIN, "%d hour", "%d hours", n), (int)n);
    else if (seconds % 60 == 0) snprintf(buf, size, dngettext(DEMO_DOMAIN, "%d minute", "%d minutes", n), (int)n);
    else snprintf(buf, size, dngettext(DEMO_DOMAIN, "%d second", "%d seconds", n), (int)n);
    return buf;
}

static void fake_clock(void *payload, int64_t *boot_ms, int64_t *wall_ms, uint64_t *boot_id) {
    app *a = payload;
    *boot_ms = a->fake_boot_ms;
    *wall_ms = a->fake_wall_ms;
    *boot_id = a->fake_boot_id;
}

/* Columns a text takes on a terminal: its characters in the locale's encoding (UTF-8). */
static int columns(const char *text) {
    size_t n = mbstowcs(NULL, text, 0);
    return n == (size_t)-1 ? (int)strlen(text) : (int)n;
}

/* A box's top or bottom border, `width` columns, with `title` in its middle ("" for none):
 * "+------ email ------+". */
static const char *box_edge(char *buf, size_t size, int width, const char *title) {
    int t = *title ? columns(title) + 2 : 0, left = (width - 2 - t) / 2, right = width - 2 - t - left;
    size_t used = 0;
    buf[0] = 0;
    used += (size_t)snprintf(buf + used, size - used, "+%.*s", left > 0 ? left : 0, "--------------------------------------------------------------------------------");
    if (*title && used < size) used += (size_t)snprintf(buf + used, size - used, " %s ", title);
    if (used < size) snprintf(buf + used, size - used, "%.*s+", right > 0 ? right : 0, "--------------------------------------------------------------------------------");
    return buf;
}

/* The "email": there is no mail server, so the code is shown in a box. */
static int32_t deliver(void *payload, const char *code, size_t length, char *message, size_t size) {
    app *a = payload;
    (void)message; (void)size;
    if (length >= sizeof a->email) return 1;
    memcpy(a->email, code, length);
    a->email[length] = 0;
    if (a->curses) { a->mail_shown = 1; return 0; }  /* drawn as a box until a key (draw) */
    /* Scripted runs must print the same every time: the code is masked there ('code' types it). */
    char text[256], edge[256];
    snprintf(text, sizeof text, _("Your libpasscode reset code: %s"), a->script ? "********" : a->email);
    int inner = columns(text) > 41 ? columns(text) : 41;
    say(a, "%s", box_edge(edge, sizeof edge, inner + 4, _("email")));
    say(a, "| %s%*s |", text, inner - columns(text), "");
    say(a, "%s", box_edge(edge, sizeof edge, inner + 4, ""));
    return 0;
}

static void on_logout(void *payload, int32_t reason) {
    app *a = payload;
    snprintf(a->notice, sizeof a->notice, "%s", reason == PASSCODE_LOGOUT_REASON_FORGOT_PASSCODE
             ? _("logged out (forgot passcode); please sign in again")
             : _("logged out (too many failed attempts); please sign in again"));
}

static void on_notice(void *payload, int32_t notice) {
    app *a = payload;
    if (notice == PASSCODE_NOTICE_PASSCODE_RESET) snprintf(a->notice, sizeof a->notice, "%s", _("your passcode was reset"));
}

/* A flow's name in the screens' lines ("screen: create", "create: done"). */
static const char *kind_name(int kind) {
    switch (kind) {
    /* TRANSLATORS: a flow's name, in "screen: %s", "%s: done" and "%s: cancelled". */
    case PASSCODE_FLOW_KIND_UNLOCK: return _("unlock");
    case PASSCODE_FLOW_KIND_CREATE: return _("create");
    case PASSCODE_FLOW_KIND_CHANGE: return _("change");
    case PASSCODE_FLOW_KIND_DISABLE: return _("disable");
    default: return _("reset");
    }
}

/* The biometric the device reports, by name ("Face ID"), for the lock screen's keys. */
static const char *biometric_name(int32_t kind) {
    switch (kind) {
    case PASSCODE_BIOMETRIC_KIND_FACE_ID: return "Face ID";
    case PASSCODE_BIOMETRIC_KIND_TOUCH_ID: return "Touch ID";
    case PASSCODE_BIOMETRIC_KIND_FINGERPRINT: return _("Fingerprint");
    default: return _("Biometric");
    }
}

/* What the lock screen shows, in one call (passcode_lock_screen_read) on every redraw. */
static passcode_lock_screen lock_screen(app *a) {
    passcode_lock_screen v;
    memset(&v, 0, sizeof v);
    v.size = sizeof v;
    if (passcode_lock_screen_read(a->store, &v) != PASSCODE_OK) v.security_label = "";
    return v;
}

static int is_locked(app *a) {
    return lock_screen(a).locked;
}

/* After "forgot passcode" (or the forced logout) the user must sign in again: no lock screen. */
static int is_logged_out(app *a) {
    passcode_lock_screen v = lock_screen(a);
    return v.locked && v.reason == PASSCODE_LOCK_REASON_LOGGED_OUT;
}

static void end_flow(app *a) {
    passcode_flow_free(a->flow);
    a->flow = NULL;
    a->proof_pending = 0;
}

static void start_flow(app *a, int kind) {
    end_flow(a);
    int32_t rc = passcode_flow_new(a->store, kind, &a->flow);
    if (rc != PASSCODE_OK) {
        say(a, _("error: %s"), failure_words(a));
        a->flow = NULL;
        return;
    }
    a->flow_kind = kind;
    a->last_shakes = 0;
}

/* While locked, the lock screen's unlock flow is always on screen. */
static void ensure_lock_screen(app *a) {
    if (is_locked(a) && !is_logged_out(a) && !a->flow) start_flow(a, PASSCODE_FLOW_KIND_UNLOCK);
}

static void show_log(app *a);

/* -- the ncurses screens: number pad and lock screen ------------------------------------------ */

static int utf8;  /* the locale is UTF-8: filled and empty dots as the design draws them */

static void centered(int y, const char *text) {
    int x = (COLS - columns(text)) / 2;
    mvaddstr(y, x < 0 ? 0 : x, text);
}

static int pad_left, pad_width;  /* the box the pad is drawn in */

/* The dots in words, as the GTK demo names them for a screen reader ("3 of 6 digits entered"):
 * the longest of its forms that fits in `room` columns. A console screen reader reads the dots
 * as shapes ("black circle"); the count is the same information in words. */
static const char *count_words(char *buf, size_t size, int filled, int length, int room) {
    unsigned long n = (unsigned long)(length > 0 ? length : 0);
    /* TRANSLATORS: the passcode's dots in words for a screen reader: digits typed of the digits it takes. */
    snprintf(buf, size, dngettext(DEMO_DOMAIN, "%d of %d digit entered", "%d of %d digits entered", n), filled, length);
    /* TRANSLATORS: a shorter form of "%d of %d digits entered", where that does not fit. */
    if (columns(buf) > room) snprintf(buf, size, dngettext(DEMO_DOMAIN, "%d of %d digit", "%d of %d digits", n), filled, length);
    /* TRANSLATORS: the shortest form of "%d of %d digits entered". */
    if (columns(buf) > room) snprintf(buf, size, _("%d of %d"), filled, length);
    return buf;
}

enum { SHAKE = 3, COUNT_GAP = SHAKE + 1 };  /* the shake's reach; the dots' distance from their count */

/* The dots and their count in words, centred together inside the pad's box; dx moves the dots
 * only (the shake), never out of the box or onto the count, which stays where it is. */
static void draw_dots(int y, int filled, int length, int dx) {
    int inner = pad_width - 2, shown = length < 12 ? length : 12, dots_w = shown > 0 ? shown * 2 - 1 : 0;
    char count[32];
    count_words(count, sizeof count, filled, length, inner - 2 * SHAKE - dots_w - COUNT_GAP);
    int w = dots_w + COUNT_GAP + columns(count), x = pad_left + 1 + (inner - w) / 2;
    if (x < pad_left + 1) x = pad_left + 1;
    if (x + dx < pad_left + 1) dx = pad_left + 1 - x;
    if (dx > COUNT_GAP - 1) dx = COUNT_GAP - 1;
    mvhline(y, pad_left + 1, ' ', inner);  /* inside the box only */
    for (int i = 0; i < shown; i++)
        mvaddstr(y, x + dx + 2 * i, i < filled ? (utf8 ? "\u25cf" : "*") : (utf8 ? "\u25cb" : "_"));
    mvaddnstr(y, x + dots_w + COUNT_GAP, count, pad_left + 1 + inner - (x + dots_w + COUNT_GAP));
}

/* One key of the pad: a 7x3 box with its label in the middle (one character, or a word of up to five). */
static void key_box(int y, int x, const char *label) {
    int w = columns(label) < 5 ? columns(label) : 5, pad = (5 - w) / 2;
    mvaddch(y, x, ACS_ULCORNER); mvhline(y, x + 1, ACS_HLINE, 5); mvaddch(y, x + 6, ACS_URCORNER);
    mvaddch(y + 1, x, ACS_VLINE); mvprintw(y + 1, x + 1, "%*s%s%*s", pad, "", label, 5 - w - pad, ""); mvaddch(y + 1, x + 6, ACS_VLINE);
    mvaddch(y + 2, x, ACS_LLCORNER); mvhline(y + 2, x + 1, ACS_HLINE, 5); mvaddch(y + 2, x + 6, ACS_LRCORNER);
}

/* What the flow on screen reports, read once per screen. */
typedef struct {
    int32_t step, result, filled, length, shakes, status;
    const char *prompt, *error;
} flow_view;

static flow_view read_flow(app *a) {
    flow_view v = {0, 0, 0, 0, 0, 0, "", ""};
    passcode_flow_refresh(a->flow);
    passcode_flow_state(a->flow, &v.step, &v.result);
    passcode_flow_dots(a->flow, &v.filled, &v.length);
    passcode_flow_prompt(a->flow, &v.prompt);
    passcode_flow_error(a->flow, &v.error, &v.status);
    passcode_flow_shakes(a->flow, &v.shakes);
    return v;
}

/* Writes `text` centred on at most `lines` rows from y, broken at spaces to fit `width`
 * columns (the last row ends in "..." when it does not all fit); returns the rows used. */
static int wrapped(int y, int lines, int width, const char *text) {
    int used = 0;
    while (*text && used < lines) {
        while (*text == ' ') text++;
        int n = (int)strlen(text), cut = n;
        if (n > width) {
            cut = width;
            while (cut > 0 && text[cut] != ' ') cut--;
            if (cut == 0) cut = width;
        }
        char row[256];
        if (used == lines - 1 && cut < n) snprintf(row, sizeof row, "%.*s...", width - 3 < cut ? width - 3 : cut, text);
        else snprintf(row, sizeof row, "%.*s", cut, text);
        centered(y + used++, row);
        text += cut;
    }
    return used;
}

/* The pad's box, row by row (a 24-line terminal holds it, its footer, two lines of what the
 * last command said and the banner):
 *   0 border  1 title  2 prompt  3 dots (or the countdown)  4-6 the error, wrapped inside
 *   7-18 the keys  19 border  20 the footer ([b] [n] [f], or "Esc cancels") */
enum { PAD_WIDTH = 37, PAD_HEIGHT = 20, PAD_ERROR_LINES = 3 };

static void draw_pad(app *a) {
    flow_view v = read_flow(a);
    int32_t step = v.step, filled = v.filled, length = v.length, shakes = v.shakes;
    const char *prompt = v.prompt, *error = v.error;
    const char *titles[] = {N_("Locked"), N_("Create Passcode"), N_("Change Passcode"), N_("Turn Passcode Off"), N_("Reset Passcode")};
    int width = PAD_WIDTH, height = PAD_HEIGHT, left = (COLS - width) / 2, top = 0;
    if (left < 0) left = 0;
    pad_left = left;
    pad_width = width;
    attron(A_DIM);
    mvaddch(top, left, ACS_ULCORNER); mvhline(top, left + 1, ACS_HLINE, width - 2); mvaddch(top, left + width - 1, ACS_URCORNER);
    mvvline(top + 1, left, ACS_VLINE, height - 2); mvvline(top + 1, left + width - 1, ACS_VLINE, height - 2);
    mvaddch(top + height - 1, left, ACS_LLCORNER); mvhline(top + height - 1, left + 1, ACS_HLINE, width - 2);
    mvaddch(top + height - 1, left + width - 1, ACS_LRCORNER);
    attroff(A_DIM);
    centered(top + 1, a->flow_kind >= 0 && a->flow_kind <= 4 ? _(titles[a->flow_kind]) : "");
    attron(A_BOLD);
    wrapped(top + 2, 1, width - 4, prompt);
    attroff(A_BOLD);
    int locked_out = step == PASSCODE_FLOW_STEP_LOCKED_OUT;
    if (locked_out) {
        int64_t left_s = 0;
        char when[48];
        passcode_flow_lockout_remaining(a->flow, &left_s);
        snprintf(when, sizeof when, _("Try again in %d:%02d"), (int)(left_s / 60), (int)(left_s % 60));
        attron(A_BOLD);
        centered(top + 3, when);
        attroff(A_BOLD);
    } else if (step != PASSCODE_FLOW_STEP_FINISHED) {
        draw_dots(top + 3, filled, length, 0);
    }
    if (*error) {  /* wrapped inside the box: the border stays whole (in a lockout, its words under the countdown) */
        if (has_colors()) attron(COLOR_PAIR(1) | A_BOLD);
        wrapped(top + 4, PAD_ERROR_LINES, width - 6, error);
        if (has_colors()) attroff(COLOR_PAIR(1) | A_BOLD);
    }
    /* TRANSLATORS: the number pad's delete key, a word (not a shape) a screen reader reads: at most 5 characters. */
    const char *labels[] = {"1", "2", "3", "4", "5", "6", "7", "8", "9", " ", "0", _("del")};  /* a word, not a shape */
    if (locked_out) attron(A_DIM);
    for (int i = 0; i < 12; i++) {
        int y = top + 4 + PAD_ERROR_LINES + (i / 3) * 3, x = (COLS - 25) / 2 + (i % 3) * 9;
        if (i == 9) continue;
        key_box(y, x < 0 ? 0 : x, labels[i]);
    }
    if (locked_out) attroff(A_DIM);
    int y = top + height;
    if (a->flow_kind == PASSCODE_FLOW_KIND_UNLOCK && step != PASSCODE_FLOW_STEP_FINISHED) {
        passcode_lock_screen ls = lock_screen(a);
        const char *bio = biometric_name(ls.biometric_kind);
        char keys[256];
        if (ls.biometric_lead && !a->service)  /* the (simulated) prompt opens by itself: said, as the scripted screen says it;
                                                * in service mode b asks passcoded, which then waits for a finger */
            snprintf(keys, sizeof keys, _("%s prompt shown: [b] match  [n] no match  [f] Forgot Passcode?"), bio);
        else if (ls.biometric_refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE)
            snprintf(keys, sizeof keys, _("[b] Use %s  [n] no match  [f] Forgot Passcode?"), bio);
        else
            snprintf(keys, sizeof keys, "%s", _("[f] Forgot Passcode?"));
        centered(y, keys);
    } else {
        centered(y, _("Esc cancels"));
    }
    if (shakes != a->last_shakes && !locked_out && step != PASSCODE_FLOW_STEP_FINISHED) {
        static const int offsets[] = {-3, 3, -2, 2, -1, 0};
        for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {  /* the shake: a brief offset */
            draw_dots(top + 3, filled, length, offsets[i]);
            refresh();
            napms(45);
        }
    }
    a->last_shakes = shakes;
}

/* The "email" (there is no mail server): a box from row y (above what the last commands said,
 * which it never covers) until a key that is not a digit, so the code can be read while it is
 * typed. */
static void draw_mail(app *a, int y) {
    char text[256];
    snprintf(text, sizeof text, _("Your libpasscode reset code: %s"), a->email);
    const char *closing = _("any other key closes");
    int w = columns(text) + 4 > 48 ? columns(text) + 4 : 48;
    if (columns(closing) + 6 > w) w = columns(closing) + 6;
    int x = (COLS - w) / 2;
    if (x < 0) x = 0;
    mvaddch(y, x, ACS_ULCORNER); mvhline(y, x + 1, ACS_HLINE, w - 2); mvaddch(y, x + w - 1, ACS_URCORNER);
    mvprintw(y, x + 3, " %s ", _("email"));
    mvaddch(y + 1, x, ACS_VLINE); mvhline(y + 1, x + 1, ' ', w - 2); mvaddch(y + 1, x + w - 1, ACS_VLINE);
    attron(A_BOLD); mvaddstr(y + 1, x + 2, text); attroff(A_BOLD);
    mvaddch(y + 2, x, ACS_LLCORNER); mvhline(y + 2, x + 1, ACS_HLINE, w - 2); mvaddch(y + 2, x + w - 1, ACS_LRCORNER);
    mvprintw(y + 2, x + w - 3 - columns(closing), " %s ", closing);
}

/* "Forgot Passcode?" asks first, as the design's alert does. */
static void draw_confirm_forgot(app *a) {
    if (a->curses) {
        int w = 50, x = (COLS - w) / 2, y = 6;
        if (x < 0) x = 0;
        for (int i = 0; i < 7; i++) mvhline(y + i, x, ' ', w);
        mvaddch(y, x, ACS_ULCORNER); mvhline(y, x + 1, ACS_HLINE, w - 2); mvaddch(y, x + w - 1, ACS_URCORNER);
        mvvline(y + 1, x, ACS_VLINE, 5); mvvline(y + 1, x + w - 1, ACS_VLINE, 5);
        mvaddch(y + 6, x, ACS_LLCORNER); mvhline(y + 6, x + 1, ACS_HLINE, w - 2); mvaddch(y + 6, x + w - 1, ACS_LRCORNER);
        attron(A_BOLD); centered(y + 1, _("Forgot Passcode?")); attroff(A_BOLD);
        centered(y + 2, _("You will need to sign in again."));
        centered(y + 3, _("Your passcode will be removed."));
        centered(y + 5, _("[y] Sign Out     any other key: Cancel"));
        return;
    }
    line(a, "%s", _("screen: forgot passcode?"));
    line(a, "%s %s", _("You will need to sign in again."), _("Your passcode will be removed."));
    line(a, "%s", _("keys: [y] Sign Out  [n] Cancel"));
}

/* While a lockout counts down, the screen is redrawn every half second. */
static int ticking(app *a) {
    int32_t step = 0, result = 0;
    return a->flow && passcode_flow_state(a->flow, &step, &result) == PASSCODE_OK && step == PASSCODE_FLOW_STEP_LOCKED_OUT;
}

static void draw(app *a) {
    passcode_lock_screen ls = lock_screen(a);
    int32_t set = ls.passcode_set, enabled = ls.lock_enabled, locked = ls.locked, reason = ls.reason;
    if (a->curses) { erase(); move(0, 0); }
    if (a->show_log) {
        a->show_log = 0;
        show_log(a);
        if (a->script) out(a, "--\n");
        else { out(a, "\n"); line(a, "%s", _("press any key to go back")); }
        fflush(stdout);
        if (a->curses) refresh();
        return;
    }
    if (a->confirm_forgot && !a->curses) draw_confirm_forgot(a);
    else if (a->flow && a->curses) draw_pad(a);
    else if (a->flow) {
        flow_view v = read_flow(a);
        int32_t step = v.step, filled = v.filled, length = v.length, shakes = v.shakes;
        const char *prompt = v.prompt, *error = v.error;
        /* TRANSLATORS: %s is a flow's name ("create"), "confirm passcode" or "lock". */
        line(a, _("screen: %s"), a->proof_pending ? _("confirm passcode") : a->flow_kind == PASSCODE_FLOW_KIND_UNLOCK ? _("lock") : kind_name(a->flow_kind));
        line(a, _("prompt: %s"), prompt);
        if (step == PASSCODE_FLOW_STEP_LOCKED_OUT) {
            int64_t left = 0;
            passcode_flow_lockout_remaining(a->flow, &left);
            line(a, _("lockout: %d:%02d"), (int)(left / 60), (int)(left % 60));
        } else if (step != PASSCODE_FLOW_STEP_FINISHED) {
            char dots[32] = "", count[64];
            for (int i = 0; i < length && i < 12; i++) strcat(dots, i < filled ? "*" : "_");
            count_words(count, sizeof count, filled, length, INT_MAX);
            if (shakes != a->last_shakes) line(a, _("dots: %s  %s   <<< shake >>>"), dots, count);
            else line(a, _("dots: %s  %s"), dots, count);
        }
        a->last_shakes = shakes;
        if (*error) line(a, _("error: %s"), error);
        if (a->flow_kind == PASSCODE_FLOW_KIND_UNLOCK && !a->proof_pending && step != PASSCODE_FLOW_STEP_FINISHED) {
            int32_t refusal = ls.biometric_refusal, lead = ls.biometric_lead;
            const char *bio = biometric_name(ls.biometric_kind);
            if (lead)  /* the prompt opens by itself */
                line(a, _("biometric: %s prompt shown ([b] match, [n] no match)"), bio);
            else if (refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE)  /* offered only when a match may unlock */
                line(a, _("biometric: [b] %s"), bio);
            line(a, "%s", _("forgot: [f] Forgot Passcode?"));
        }
    } else if (locked && reason == PASSCODE_LOCK_REASON_LOGGED_OUT) {
        line(a, "%s", _("screen: logged out"));
        line(a, "%s", _("Signed out. Sign in to your account again, then create a new passcode."));
        if (!a->script) { out(a, "\n"); line(a, "%s", _("keys: [c]reate a passcode [q]uit")); }
    } else if (locked) {
        line(a, "%s", _("screen: lock"));
    } else {
        int64_t timeout = 0, bio = 0, at_launch = 0, bio_launch = 0, every = 0;
        const char *label = ls.security_label;
        passcode_setting_get(a->store, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &timeout);
        passcode_setting_get(a->store, PASSCODE_SETTING_BIOMETRIC_ENABLED, &bio);
        passcode_setting_get(a->store, PASSCODE_SETTING_LOCK_AT_LAUNCH, &at_launch);
        passcode_setting_get(a->store, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, &bio_launch);
        passcode_setting_get(a->store, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, &every);
        line(a, "%s", _("screen: home"));
        char when[64];
        /* TRANSLATORS: each %s after "lock", "biometric" is "on" or "off" (or "off (passcode kept)"). */
        line(a, _("settings: %s | lock %s | biometric %s | auto-lock %s"), label,
             enabled ? _("on") : (set ? _("off (passcode kept)") : _("off")), bio ? _("on") : _("off"),
             duration_text(timeout, when, sizeof when));
        line(a, _("launch: lock at launch %s | require biometrics on launch %s | passcode after every launch %s"),
             at_launch ? _("on") : _("off"), bio_launch ? _("on") : _("off"), every ? _("on") : _("off"));
        if (a->service) {  /* passcoded mails reset codes: where to, masked */
            char masked[256] = "";
            if (passcode_reset_recipient(a->store, masked, sizeof masked) == PASSCODE_OK)
                line(a, _("reset address: %s"), *masked ? masked : _("none (m sets one)"));
        }
        note_line(a);
        if (!a->script) {
            /* TRANSLATORS: the home screen's keys: each letter in brackets is the key to press (not translated). */
            out(a, "\n");
            line(a, "%s", _("keys: [c]reate [g] change [d]isable [e]nable [r]eset-email [w]rite note"));
            line(a, "      %s", _("[t]imeout [i] biometric [a] require on launch [h] background [l]ock"));
            line(a, "      %s%s", a->service ? _("[m] reset address [k] its code ") : "", _("[v]iew log [q]uit"));
        }
    }
    if (a->curses) {
        /* At the bottom: what the last command said and the notice (the last two of them, each
         * a line, so that every refusal shows), the email box over them, and the banner. */
        /* Each message broken at spaces to the width (never cut), the last 3 rows of them shown. */
        enum { ROWS = 3, MAX_ROWS = 24 };
        const char *lines[8];
        int n = 0;
        for (int i = 0; i < a->nsaid; i++) lines[n++] = a->said[i];
        if (a->notice[0]) lines[n++] = a->notice;
        struct { const char *text; int len, bold; } rows[MAX_ROWS];
        int nrows = 0, width = COLS - 2 > 10 ? COLS - 2 : 10;
        for (int i = 0; i < n; i++) {
            const char *t = lines[i];
            while (*t && nrows < MAX_ROWS) {
                while (*t == ' ') t++;
                int len = (int)strlen(t), cut = len;
                if (len > width) {
                    cut = width;
                    while (cut > 0 && t[cut] != ' ') cut--;
                    if (cut == 0) cut = width;  /* one word longer than the row */
                }
                rows[nrows].text = t; rows[nrows].len = cut; rows[nrows].bold = lines[i] == a->notice;
                nrows++;
                t += cut;
            }
        }
        int first = nrows > ROWS ? nrows - ROWS : 0;
        /* The email box sits above the messages shown: the rows under the pad (its footer the
         * last it may cover) hold both, the oldest messages going first when they do not. */
        int box_y = LINES - 1 - (nrows - first) - 3, lowest = a->flow ? PAD_HEIGHT : 0;
        while (a->mail_shown && box_y < lowest && first < nrows) { first++; box_y++; }
        for (int i = first; i < nrows; i++) {
            if (rows[i].bold) attron(A_BOLD);
            mvprintw(LINES - 1 - (nrows - i), 1, "%.*s", rows[i].len, rows[i].text);
            if (rows[i].bold) attroff(A_BOLD);
        }
        /* While the email box shows, the messages stay until the key that closes it. */
        if (!a->mail_shown) { a->nsaid = 0; a->notice[0] = 0; }
        if (a->mail_shown) draw_mail(a, box_y < 0 ? 0 : box_y);
        if (a->confirm_forgot) draw_confirm_forgot(a);
        attron(A_DIM); mvprintw(LINES - 1, 0, "%.*s", COLS - 1, a->banner); attroff(A_DIM);
        refresh();
        return;
    }
    if (a->notice[0]) { line(a, _("notice: %s"), a->notice); a->notice[0] = 0; }
    if (a->script) out(a, "--\n");
    fflush(stdout);
}

/* "unlock: done", and as Android does, what happened while the app was locked. */
static void unlocked_notice(app *a, char *what, size_t size) {
    int32_t failures = 0;
    passcode_failure_summary(a->store, &failures, NULL);
    if (failures > 0)
        snprintf(what, size, dngettext(DEMO_DOMAIN, "unlock: done; %d failed attempt since your last unlock",
                                       "unlock: done; %d failed attempts since your last unlock", (unsigned long)failures), failures);
    else
        snprintf(what, size, "%s", _("unlock: done"));
}

/* A "setting changed" event in words: the library's (passcode_event_log_message, its message
 * table): the change, or "A new passcode starts from the safe defaults:" and each change it lists. */
static const char *setting_words(passcode_event_log *log, size_t index, char *buf, size_t size) {
    buf[0] = 0;
    for (size_t part = 0; part < 64; part++) {
        int32_t message = 0;
        int64_t number = 0;
        if (passcode_event_log_message(log, index, part, &message, &number) != PASSCODE_OK || message == PASSCODE_MESSAGE_NONE) break;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", part == 0 ? "" : part == 1 ? " " : ", ", passcode_message_text(message, number));
    }
    return buf;
}

/* The security event log, newest first, as a screen: each entry by the library's name for it. */
static void show_log(app *a) {
    passcode_event_log *log = NULL;
    if (passcode_event_log_new(a->store, &log) != PASSCODE_OK) { line(a, _("error: %s"), failure_words(a)); return; }
    size_t count = passcode_event_log_count(log), from = a->curses && a->log_from < count ? a->log_from : 0;
    line(a, dngettext(DEMO_DOMAIN, "screen: security log (%d event, newest first)", "screen: security log (%d events, newest first)",
                      (unsigned long)count), (int)count);
    for (size_t i = from; i < passcode_event_log_count(log); i++) {
        int32_t kind = 0;
        int64_t wall = 0;
        const char *detail = "";
        passcode_event_log_get(log, i, &kind, &wall, &detail);
        time_t t = (time_t)(wall / 1000);
        struct tm tm;
        char when[32];
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        int32_t message = PASSCODE_MESSAGE_NONE;
        char name[200];
        passcode_message_of(PASSCODE_MESSAGE_TOPIC_LOG_KIND, kind, &message);
        snprintf(name, sizeof name, "%s", message != PASSCODE_MESSAGE_NONE ? passcode_message_text(message, 0) : _("event"));
        char length[64], words[600];
        if (kind == PASSCODE_LOG_KIND_LOCKOUT_STARTED && *detail)  /* its length, in seconds: said with its unit */
            detail = duration_text(strtoll(detail, NULL, 10), length, sizeof length);
        else if (kind == PASSCODE_LOG_KIND_SETTING_CHANGED && *detail)  /* in words, not the store's keys */
            detail = setting_words(log, i, words, sizeof words);
        if (a->curses && getcury(stdscr) >= LINES - 5) {  /* a page: v shows the next one */
            out(a, "  ");
            line(a, _("events %d-%d of %d: [v] the next ones"), (int)(from + 1), (int)i, (int)count);
            a->log_from = i;
            break;
        }
        if (a->curses && i + 1 == count) a->log_from = 0;  /* the last page: v starts again */
        char entry[1024];
        /* TRANSLATORS: a log entry's name and its detail ("Lockout started: 1 minute"). */
        if (*detail) snprintf(entry, sizeof entry, _("%s: %s"), name, detail);
        else snprintf(entry, sizeof entry, "%s", name);
        line(a, "  %s  %s", when, entry);
    }
    passcode_event_log_free(log);
}

/* After each key: a finished flow leaves the screen. */
static void settle(app *a) {
    int32_t step = 0, result = 0;
    if (a->flow) passcode_flow_state(a->flow, &step, &result);
    if (a->flow && step == PASSCODE_FLOW_STEP_FINISHED) {
        const char *err = "";
        passcode_flow_error(a->flow, &err, NULL);
        char what[512] = "";
        if (a->proof_pending) {  /* the passcode a setting change asked for */
            a->proof_pending = 0;
            if (result != PASSCODE_FLOW_RESULT_SUCCESS) snprintf(what, sizeof what, "%s", _("setting: not changed"));
            else if (passcode_setting_set(a->store, a->proof_setting, a->proof_value) == PASSCODE_OK) snprintf(what, sizeof what, "%s", _("setting: done"));
            else snprintf(what, sizeof what, _("error: %s"), failure_words(a));
        }
        else if (result == PASSCODE_FLOW_RESULT_SUCCESS && a->flow_kind == PASSCODE_FLOW_KIND_UNLOCK) unlocked_notice(a, what, sizeof what);
        /* TRANSLATORS: %s is a flow's name ("create"); the second %s what it says (a reset that kept no data). */
        else if (result == PASSCODE_FLOW_RESULT_SUCCESS && *err) snprintf(what, sizeof what, _("%s: done; %s"), kind_name(a->flow_kind), err);
        else if (result == PASSCODE_FLOW_RESULT_SUCCESS) snprintf(what, sizeof what, _("%s: done"), kind_name(a->flow_kind));
        else if (result == PASSCODE_FLOW_RESULT_CANCELLED) snprintf(what, sizeof what, _("%s: cancelled"), kind_name(a->flow_kind));
        else snprintf(what, sizeof what, "%s", err);
        size_t used = strlen(a->notice);
        snprintf(a->notice + used, sizeof a->notice - used, "%s%s", used && *what ? "; " : "", what);
        end_flow(a);
    }
    ensure_lock_screen(a);
}

static void event(app *a, int32_t e) {
    if (passcode_event_report(a->store, e, NULL) != PASSCODE_OK) say(a, _("error: %s"), failure_words(a));
    if (!is_locked(a) && a->flow && a->flow_kind == PASSCODE_FLOW_KIND_UNLOCK) end_flow(a);
}

/* What the store's TPM binding promises, said plainly (passcode_tpm_posture). */
static void say_tpm_posture(app *a) {
    int64_t v[PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT + 1];
    for (int32_t i = 0; i <= PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT; i++) {
        if (passcode_tpm_posture(a->store, i, &v[i]) != PASSCODE_OK) { say(a, _("TPM: %s"), failure_words(a)); return; }
    }
    /* TRANSLATORS: each "%s" after "authorization" is "set" or "not set"; "s" is seconds. */
    say(a, dngettext(DEMO_DOMAIN, "TPM posture: owner authorization %s, lockout authorization %s; lockout after %d failure, one forgotten every %d s",
                     "TPM posture: owner authorization %s, lockout authorization %s; lockout after %d failures, one forgotten every %d s",
                     (unsigned long)v[PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES]),
        v[PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET] ? _("set") : _("not set"), v[PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_AUTH_SET] ? _("set") : _("not set"),
        (int)v[PASSCODE_TPM_POSTURE_ITEM_MAX_TRIES], (int)v[PASSCODE_TPM_POSTURE_ITEM_RECOVERY_TIME]);
    if (!v[PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH]) { say(a, "%s", _("TPM promises: nothing until the store is bound")); return; }
    if (v[PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT])
        say(a, _("TPM promises: no offline search off this machine; a hardware guess limit of %d"),
            (int)v[PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT]);
    else
        say(a, "%s", _("TPM promises: no offline search off this machine; no hardware guess limit (the TPM is not provisioned)"));
}

/* Opens the store with the demo's options and callbacks; 0 when it cannot. */
static int open_store(app *a) {
    passcode_options *o = NULL;
    passcode_options_new(&o);
    if (a->fake_clock) passcode_options_set_clock(o, fake_clock, a);
    if (a->tpm) passcode_options_set_tpm(o, a->tcti);
    if (a->service && passcode_options_set_service(o, a->service) != PASSCODE_OK) {
        fprintf(stderr, _("cannot use the service for %s: %s"), a->service, passcode_errmsg(NULL));
        fputc('\n', stderr);
        passcode_options_free(o);
        return 0;
    }
    int32_t rc = passcode_open(a->path, o, &a->store);
    passcode_options_free(o);
    if (rc != PASSCODE_OK) {
        if (a->service) fprintf(stderr, _("cannot open passcoded's store for %s: %s"), a->service, passcode_errmsg(NULL));
        else fprintf(stderr, _("cannot open %s: %s"), a->path, passcode_errmsg(NULL));
        fputc('\n', stderr);
        return 0;
    }
    if (a->tpm) {
        int32_t bound = 0;
        passcode_tpm_is_bound(a->store, &bound);
        say(a, _("TPM: %s"), bound ? _("the store is bound to it") : _("the first passcode binds the store to it"));
        say_tpm_posture(a);
    }
    passcode_set_reset_delivery_callback(a->store, deliver, a);
    passcode_set_logout_callback(a->store, on_logout, a);
    passcode_set_notice_callback(a->store, on_notice, a);
    return 1;
}

/* The app quits and starts again: a new handle, nothing kept in memory, then "launched". */
static void relaunch(app *a) {
    end_flow(a);
    passcode_close(a->store);
    a->store = NULL;
    if (!open_store(a)) exit(1);
    say(a, "%s", _("(app relaunched)"));
    event(a, PASSCODE_APP_EVENT_LAUNCHED);
}

/* A setting change. One that weakens protection needs the passcode entered within 5 minutes:
 * the demo says so in the user's words and asks for it in place (an unlock flow, whose passcode
 * is the proof), then makes the change. */
static int32_t set_setting(app *a, int32_t setting, int64_t value) {
    int32_t rc = passcode_setting_set(a->store, setting, value);
    if (rc != PASSCODE_ERR_PASSCODE_REQUIRED) return rc;
    start_flow(a, PASSCODE_FLOW_KIND_UNLOCK);
    if (!a->flow) return PASSCODE_OK;
    a->proof_pending = 1;
    a->proof_setting = setting;
    a->proof_value = value;
    snprintf(a->notice, sizeof a->notice, "%s", _("This change weakens protection: enter your passcode to confirm it."));
    return PASSCODE_OK;
}

static int32_t set_flag(app *a, int32_t setting, const char *arg) {
    return set_setting(a, setting, arg && !strcmp(arg, "on"));
}

/* Runs one command; returns 0 to quit. */
static int command2(app *a, const char *cmd, const char *arg, const char *arg2);

static int command(app *a, const char *cmd, const char *arg) { return command2(a, cmd, arg, NULL); }

/* As command, with a second argument (recipient, recipient-confirm). */
static int command2(app *a, const char *cmd, const char *arg, const char *arg2) {
    int32_t rc = PASSCODE_OK;
    if (a->confirm_forgot && strcmp(cmd, "yes") && strcmp(cmd, "no")) a->confirm_forgot = 0;  /* anything else cancels */
    if (strcmp(cmd, "log")) a->log_from = 0;  /* the log starts from the newest again */
    if (strspn(cmd, "0123456789") == strlen(cmd) && *cmd) {
        if (!a->flow) say(a, "%s", _("error: no passcode entry on screen (c creates a passcode)"));
        else {
            int unlock = a->flow_kind == PASSCODE_FLOW_KIND_UNLOCK;
            int32_t shakes = 0, failures = 0, after = 0;
            if (unlock) { passcode_flow_shakes(a->flow, &shakes); passcode_failure_summary(a->store, &failures, NULL); }
            for (const char *p = cmd; *p; p++) {
                if (passcode_flow_digit(a->flow, *p - '0') != PASSCODE_OK) break;
            }
            /* A wrong passcode that did not count: the library counts a repeat of one wrong code
             * once (a typo typed again is not another guess), so it brings no lockout nearer. */
            int32_t now_shakes = shakes;
            if (unlock && a->flow) passcode_flow_shakes(a->flow, &now_shakes);
            if (unlock && now_shakes != shakes && passcode_failure_summary(a->store, &after, NULL) == PASSCODE_OK && after == failures && after > 0)
                snprintf(a->notice, sizeof a->notice, "%s", _("the same wrong passcode again: counted once (a repeat is not another guess), "
                                                              "so it brings no lockout nearer"));
        }
    } else if (!strcmp(cmd, "del")) { if (a->flow) passcode_flow_delete(a->flow); }
    else if (!strcmp(cmd, "cancel")) { if (a->flow && (a->flow_kind != PASSCODE_FLOW_KIND_UNLOCK || a->proof_pending)) passcode_flow_cancel(a->flow); }
    else if (!strcmp(cmd, "launch")) event(a, PASSCODE_APP_EVENT_LAUNCHED);
    else if (!strcmp(cmd, "relaunch")) relaunch(a);
    else if (!strcmp(cmd, "restart")) {
        if (!a->fake_clock) say(a, "%s", _("error: restart needs --fake-clock"));
        else { a->fake_boot_id++; a->fake_boot_ms = 1000000; say(a, "%s", _("(device restarted)")); relaunch(a); }
    }
    else if (!strcmp(cmd, "background")) { event(a, PASSCODE_APP_EVENT_BACKGROUND); say(a, "%s", _("(app in background)")); }
    else if (!strcmp(cmd, "foreground")) event(a, PASSCODE_APP_EVENT_FOREGROUND);
    else if (!strcmp(cmd, "lock")) event(a, PASSCODE_APP_EVENT_LOCK_NOW);
    else if (!strcmp(cmd, "wait")) {
        long s = arg ? strtol(arg, NULL, 10) : 0;
        if (a->fake_clock) { a->fake_boot_ms += s * 1000; a->fake_wall_ms += s * 1000; }
        else sleep((unsigned)s);
    }
    else if (!strcmp(cmd, "bio-ok")) {
        /* The key-releasing unlock, so that the secret note can be read and written after it; a
         * process that holds no key (after a relaunch without the session keyring) still unlocks,
         * and the note waits for the passcode. */
        int32_t refusal = 0;
        uint8_t key[32];
        if (a->curses && a->service) {  /* passcoded waits for a finger (up to its fprint_timeout): say so */
            passcode_lock_screen ls = lock_screen(a);
            if (ls.biometric_refusal == PASSCODE_BIOMETRIC_REFUSAL_NONE) {
                move(PAD_HEIGHT, 0);
                clrtoeol();
                attron(A_BOLD);
                centered(PAD_HEIGHT, _("Touch the fingerprint reader..."));
                attroff(A_BOLD);
                refresh();
            }
        }
        rc = passcode_biometric_unlock_key(a->store, key, sizeof key, &refusal);
        explicit_bzero(key, sizeof key);
        if (rc != PASSCODE_OK && refusal == PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY)
            rc = passcode_biometric_unlock(a->store, &refusal);
        if (rc == PASSCODE_OK) {
            end_flow(a);
            unlocked_notice(a, a->notice, sizeof a->notice);
        }
        else say(a, _("biometric refused: %s"), failure_words(a));
        rc = PASSCODE_OK;
    }
    else if (!strcmp(cmd, "bio-fail")) {  /* a failed match is said, with the count so far */
        int32_t count = 0;
        rc = passcode_biometric_failed(a->store, &count);
        if (rc == PASSCODE_OK)
            snprintf(a->notice, sizeof a->notice, dngettext(DEMO_DOMAIN, "biometric: no match; %d failed match since your last unlock",
                                                            "biometric: no match; %d failed matches since your last unlock", (unsigned long)count), count);
    }
    else if (!strcmp(cmd, "forgot")) a->confirm_forgot = 1;
    else if (!strcmp(cmd, "yes") && a->confirm_forgot) { a->confirm_forgot = 0; rc = passcode_forgot(a->store); end_flow(a); }
    else if (!strcmp(cmd, "no") && a->confirm_forgot) a->confirm_forgot = 0;
    else if (!strcmp(cmd, "reset-email")) {
        /* The r key: the code is requested, then its entry opens. A refusal is said; the entry
         * still opens while an earlier code is pending, and not when there is none. */
        int32_t pending = 0;
        if (passcode_reset_request(a->store) != PASSCODE_OK) say(a, _("error: %s"), failure_words(a));
        if (passcode_reset_pending(a->store, &pending) == PASSCODE_OK && pending) start_flow(a, PASSCODE_FLOW_KIND_RESET);
    }
    else if (!strcmp(cmd, "log")) a->show_log = 1;
    else if (!strcmp(cmd, "note")) rc = write_note(a, arg ? arg : "");
    else if (!strcmp(cmd, "create")) start_flow(a, PASSCODE_FLOW_KIND_CREATE);
    else if (!strcmp(cmd, "change")) start_flow(a, PASSCODE_FLOW_KIND_CHANGE);
    else if (!strcmp(cmd, "disable")) start_flow(a, PASSCODE_FLOW_KIND_DISABLE);
    else if (!strcmp(cmd, "reset")) start_flow(a, PASSCODE_FLOW_KIND_RESET);
    else if (!strcmp(cmd, "enable")) {
        rc = passcode_enable(a->store);
        if (rc == PASSCODE_OK) snprintf(a->notice, sizeof a->notice, "%s", _("enable: done"));
    }
    else if (!strcmp(cmd, "reset-request")) rc = passcode_reset_request(a->store);
    else if (!strcmp(cmd, "recipient") || !strcmp(cmd, "recipient-confirm")) {
        /* Service mode: the address for reset codes, set with the passcode; passcoded mails it
         * a confirmation code, given back with the passcode (recipient-confirm). */
        const char *code = arg ? arg : "", *digits = arg2 ? arg2 : "";
        char masked[256] = "";
        if (!strcmp(cmd, "recipient")) rc = passcode_reset_recipient_set(a->store, code, digits, strlen(digits));
        else rc = passcode_reset_recipient_confirm(a->store, code, strlen(code), digits, strlen(digits));
        if (rc == PASSCODE_OK && !strcmp(cmd, "recipient"))
            snprintf(a->notice, sizeof a->notice, _("reset address: a confirmation code was mailed to %s; enter it with the passcode"), code);
        else if (rc == PASSCODE_OK && passcode_reset_recipient(a->store, masked, sizeof masked) == PASSCODE_OK)
            snprintf(a->notice, sizeof a->notice, _("reset address: confirmed; reset codes go to %s"), masked);
    }
    else if (!strcmp(cmd, "code")) { if (a->flow) for (const char *p = a->email; *p; p++) passcode_flow_digit(a->flow, *p - '0'); }
    else if (!strcmp(cmd, "biometrics")) {
        int kind = !arg ? 0 : !strcmp(arg, "faceid") ? 1 : !strcmp(arg, "touchid") ? 2 : !strcmp(arg, "other") ? 3 : !strcmp(arg, "fingerprint") ? 4 : 0;
        rc = passcode_biometric_set_available(a->store, kind != 0, kind);
    }
    else if (!strcmp(cmd, "bio")) rc = set_flag(a, PASSCODE_SETTING_BIOMETRIC_ENABLED, arg);
    else if (!strcmp(cmd, "launch-lock")) rc = set_flag(a, PASSCODE_SETTING_LOCK_AT_LAUNCH, arg);
    else if (!strcmp(cmd, "bio-launch")) rc = set_flag(a, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, arg);
    else if (!strcmp(cmd, "every-launch")) rc = set_flag(a, PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH, arg);
    else if (!strcmp(cmd, "timeout")) rc = set_setting(a, PASSCODE_SETTING_AUTO_LOCK_SECONDS, arg ? strtol(arg, NULL, 10) : -1);
    else if (!strcmp(cmd, "show")) { }
    else if (!strcmp(cmd, "quit")) return 0;
    else say(a, _("error: unknown command '%s'"), cmd);
    if (rc != PASSCODE_OK) say(a, _("error: %s"), failure_words(a));
    settle(a);
    draw(a);
    return 1;
}

static int default_store(char *out, size_t size) {
    const char *state = getenv("XDG_STATE_HOME");
    char dir[768];
    if (state && *state) snprintf(dir, sizeof dir, "%s/passcode", state);
    else if (getenv("HOME")) snprintf(dir, sizeof dir, "%s/.local/state/passcode", getenv("HOME"));
    else return 0;
    char partial[768];
    for (char *p = dir + 1; ; p++) {  /* mkdir -p */
        if (*p == '/' || *p == 0) {
            snprintf(partial, sizeof partial, "%.*s", (int)(p - dir), dir);
            if (mkdir(partial, 0700) != 0 && errno != EEXIST) return 0;
            if (*p == 0) break;
        }
    }
    snprintf(out, size, "%s/demo.db", dir);
    return 1;
}

/* Interactive: a line typed on the bottom row after `prompt` (not echoed when `hidden`). */
static void ask(const char *prompt, char *text, int size, int hidden) {
    text[0] = 0;
    mvprintw(LINES - 1, 0, "%s", prompt);
    clrtoeol();
    if (!hidden) echo();
    curs_set(1);
    timeout(-1);
    if (getnstr(text, size - 1) == ERR) text[0] = 0;
    noecho();
    curs_set(0);
    timeout(500);
}

/* Interactive: one key, one command. */
static int key_command(app *a, int c) {
    static char digit[2];
    if (c >= '0' && c <= '9') { digit[0] = (char)c; return command(a, digit, NULL); }
    switch (c) {
    case 127: case 8: case KEY_BACKSPACE: case KEY_DC: return command(a, "del", NULL);
    case 27: return command(a, "cancel", NULL);
    case 'b': return command(a, "bio-ok", NULL);
    case 'n': return command(a, "bio-fail", NULL);
    case 'f': {
        command(a, "forgot", NULL);  /* the confirmation is on screen: y signs out, any other key cancels */
        timeout(-1);
        int k = getch();
        timeout(500);
        return command(a, k == 'y' || k == 'Y' ? "yes" : "no", NULL);
    }
    case 'c': return command(a, "create", NULL);
    case 'g': return command(a, "change", NULL);
    case 'd': return command(a, "disable", NULL);
    case 'e': return command(a, "enable", NULL);
    case 'r': return command(a, "reset-email", NULL);
    case 'l': return command(a, "lock", NULL);
    case 'v': return command(a, "log", NULL);
    case 'm': case 'k': {  /* service mode: the reset address, then the code mailed to it */
        if (!a->service) return command(a, "show", NULL);
        char first[256], digits[64];
        if (c == 'm') ask(_("address for reset codes: "), first, sizeof first, 0);
        else ask(_("confirmation code from the email: "), first, sizeof first, 0);
        ask(_("passcode (not shown): "), digits, sizeof digits, 1);
        int go = command2(a, c == 'm' ? "recipient" : "recipient-confirm", first, digits);
        explicit_bzero(digits, sizeof digits);
        return go;
    }
    case 'w': {
        char text[256] = "";
        mvprintw(LINES - 1, 0, "%s", _("note text: "));
        clrtoeol();
        echo();
        curs_set(1);
        timeout(-1);
        if (getnstr(text, sizeof text - 1) == ERR) text[0] = 0;
        noecho();
        curs_set(0);
        timeout(500);
        return command(a, "note", text);
    }
    case 'a': {
        int64_t on = 0;
        passcode_setting_get(a->store, PASSCODE_SETTING_REQUIRE_BIOMETRIC_ON_LAUNCH, &on);
        return command(a, "bio-launch", on ? "off" : "on");
    }
    case 'i': {
        int64_t bio = 0;
        passcode_setting_get(a->store, PASSCODE_SETTING_BIOMETRIC_ENABLED, &bio);
        command(a, "biometrics", "faceid");
        return command(a, "bio", bio ? "off" : "on");
    }
    case 't': {
        /* The choices come from the library, not from a copy of them. */
        int64_t choices[16], t = 0;
        size_t n = 0;
        if (passcode_setting_choices(PASSCODE_SETTING_AUTO_LOCK_SECONDS, choices, 16, &n) != PASSCODE_OK || n == 0) return 1;
        passcode_setting_get(a->store, PASSCODE_SETTING_AUTO_LOCK_SECONDS, &t);
        size_t i = 0;
        while (i < n && choices[i] != t) i++;
        char next[24];
        snprintf(next, sizeof next, "%lld", (long long)choices[(i + 1) % n]);
        return command(a, "timeout", next);
    }
    case 'h':
        command(a, "background", NULL);
        erase();
        centered(LINES / 2, _("(the app is in the background: press any key to come back)"));
        refresh();
        timeout(-1);
        (void)getch();
        timeout(500);
        return command(a, "foreground", NULL);
    case 'q': return 0;
    default: return 1;
    }
}

/* Where the demo's catalogues are: this checkout's build/share/locale when the demo runs from its
 * examples/c (as the GTK demo finds them); else gettext's own folder (the system's). */
static void bind_catalogues(void) {
    char exe[PATH_MAX], dir[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = 0;
    snprintf(dir, sizeof dir, "%s/../../build/share/locale", exe);
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) bindtextdomain(DEMO_DOMAIN, dir);
}

int main(int argc, char **argv) {
    /* The user's language for what a person reads: the demo's words and the library's (prompts,
     * errors, the log in words), and the character set of the dots. */
    setlocale(LC_ALL, "");
    bind_catalogues();
    bind_textdomain_codeset(DEMO_DOMAIN, "UTF-8");
    app a;
    memset(&a, 0, sizeof a);
    const char *path = NULL;
    char defpath[1024];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--store") && i + 1 < argc) path = argv[++i];
        else if (!strcmp(argv[i], "--service") && i + 1 < argc) a.service = argv[++i];
        else if (!strcmp(argv[i], "--script")) a.script = 1;
        else if (!strcmp(argv[i], "--fake-clock")) a.fake_clock = 1;
        else if (!strcmp(argv[i], "--tpm")) {
            a.tpm = 1;
            if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) a.tcti = argv[++i];
        }
        else { fprintf(stderr, "usage: %s [--store PATH | --service APP_ID] [--script] [--fake-clock] [--tpm [TCTI]]\n", argv[0]); return 2; }
    }
    if (!isatty(STDIN_FILENO)) a.script = 1;
    if (!path) {
        if (!default_store(defpath, sizeof defpath)) { fprintf(stderr, "%s\n", _("no state folder; use --store")); return 1; }
        path = defpath;
    }
    a.fake_boot_ms = 1000000;
    a.fake_wall_ms = 1767225600000LL;
    a.fake_boot_id = 1;
    a.path = path;
    if (!open_store(&a)) return 1;
    if (a.service)  /* the note is sealed with the service store's key: a file of its own */
        snprintf(a.note_path, sizeof a.note_path, "%s.%s.note", path, a.service);
    else
        snprintf(a.note_path, sizeof a.note_path, "%s.note", path);
    if (a.service)
        snprintf(a.banner, sizeof a.banner, _("libpasscode %s demo, service mode: passcoded's store for %s"), passcode_version_string(), a.service);
    else
        snprintf(a.banner, sizeof a.banner, _("libpasscode %s demo, store %s"), passcode_version_string(), a.script ? _("(script)") : path);
    printf("%s\n", a.banner);
    if (!a.script) {
        utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
        initscr();
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        curs_set(0);
        set_escdelay(25);
        timeout(500);  /* getch returns every half second: the lockout countdown ticks */
        if (has_colors()) { start_color(); use_default_colors(); init_pair(1, COLOR_RED, -1); }
        a.curses = 1;
    }
    command(&a, "launch", NULL);
    /* The first launch, with no passcode yet (and no sign-in pending): "Create a passcode". */
    int32_t is_set = 1;
    passcode_is_set(a.store, &is_set);
    if (!is_set && !a.flow && !is_logged_out(&a)) {
        snprintf(a.notice, sizeof a.notice, "%s", _("Welcome: create a passcode to protect the app."));
        command(&a, "create", NULL);
    }
    if (a.script) {
        char line[512];
        int go = 1;
        while (go && fgets(line, sizeof line, stdin)) {
            char *save = NULL;
            for (char *tok = strtok_r(line, " \t\r\n", &save); go && tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
                if (*tok == '#') break;
                char *arg = NULL, *arg2 = NULL;
                int two = !strcmp(tok, "recipient") || !strcmp(tok, "recipient-confirm");
                if (!strcmp(tok, "wait") || !strcmp(tok, "timeout") || !strcmp(tok, "bio") || !strcmp(tok, "biometrics")
                    || !strcmp(tok, "note") || !strcmp(tok, "launch-lock") || !strcmp(tok, "bio-launch")
                    || !strcmp(tok, "every-launch") || two)
                    arg = strtok_r(NULL, " \t\r\n", &save);
                if (two) arg2 = strtok_r(NULL, " \t\r\n", &save);
                printf("> %s%s%s%s\n", tok, arg ? " " : "", arg ? arg : "", arg2 ? " ******" : "");  /* the passcode not echoed */
                go = command2(&a, tok, arg, arg2);
            }
        }
    } else {
        for (;;) {
            int c = getch();
            if (c == ERR) { if (ticking(&a)) draw(&a); continue; }
            if (c == KEY_RESIZE) { draw(&a); continue; }
            if (a.mail_shown && !(c >= '0' && c <= '9') && c != 127 && c != 8 && c != KEY_BACKSPACE && c != KEY_DC) {
                a.mail_shown = 0;  /* the key closes the email and does nothing else */
                draw(&a);
                continue;
            }
            if (!key_command(&a, c)) break;
        }
        endwin();
    }
    end_flow(&a);
    passcode_close(a.store);
    return 0;
}
