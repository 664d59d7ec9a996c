// passcoded's sandbox reader (passcode_sandbox.c): which Flatpak or bubblewrap app a process is,
// read from the `/.flatpak-info` of its own root by a small helper that keeps root's reading
// rights while passcoded itself runs as its own user.
#ifndef PASSCODE_SANDBOX_H
#define PASSCODE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// The longest app id a sandbox may have (Flatpak's limit), in bytes.
#define PASSCODE_SANDBOX_ID_MAX 255

/// The helper's answers.
enum {
    PASSCODE_SANDBOX_NONE = 0,        // the process's root has no /.flatpak-info: not sandboxed
    PASSCODE_SANDBOX_APP = 1,         // sandboxed, its app id read and checked
    PASSCODE_SANDBOX_MALFORMED = 2,   // a /.flatpak-info that is no valid one (the message says how)
    PASSCODE_SANDBOX_UNVERIFIED = 3,  // the process could not be read, or was gone or replaced meanwhile
    PASSCODE_SANDBOX_UNAVAILABLE = 4, // the helper did not answer in time, or is not running: ask again later
};

/// Starts the helper: a child of passcoded, forked while it is still root, that keeps uid 0 with
/// two capabilities only (CAP_SYS_PTRACE, to open /proc/<pid>/root of another uid's process, and
/// CAP_DAC_READ_SEARCH, to read the file inside) and nothing else open but its end of a
/// socketpair and standard error. It answers `passcode_sandbox_query` and dies with passcoded.
/// Call before opening anything that must not reach it. Waits (5 s at most) for the helper to
/// say it holds those two capabilities. Returns passcoded's end of the socketpair, or -1 (errno
/// set; EPERM: the helper could not keep them, e.g. a unit's CapabilityBoundingSet= lacks them).
int passcode_sandbox_helper_start(void);

/// Asks the helper which app the process `pid` is: a PASSCODE_SANDBOX_* answer; the app id in
/// `id` (NUL-terminated) for PASSCODE_SANDBOX_APP, else what went wrong in `message`. Waits at
/// most `timeout_ms` (no answer in time: PASSCODE_SANDBOX_UNAVAILABLE). Called from one thread
/// at a time.
int passcode_sandbox_query(int fd, pid_t pid, int timeout_ms, char *id, size_t id_size, char *message, size_t message_size);

/// Sends the helper the question `serial`: which app is the process `pid` of the caller `uid` (the
/// helper reads for one question of a uid at a time). Never waits: 0, or a negative errno
/// (-EAGAIN: the socket is full).
int passcode_sandbox_ask(int fd, uint32_t serial, pid_t pid, uid_t uid);

/// Takes one answer of the helper if one is there, never waiting: a PASSCODE_SANDBOX_* answer
/// with its question's number in `serial` (the id, or the message, as passcode_sandbox_query);
/// -EAGAIN when none is there; another negative errno when the helper is gone.
int passcode_sandbox_take(int fd, uint32_t *serial, char *id, size_t id_size, char *message, size_t message_size);

/// Whether `text` (its `n` bytes) is an app id as Flatpak allows one: at most 255 bytes, at
/// least three elements separated by '.', each from [A-Za-z0-9_-] and not starting with a digit,
/// '-' only in the last element. 1 or 0.
int passcode_sandbox_id_valid(const char *text, size_t n);

/// The app id a `/.flatpak-info`'s text (`n` bytes) names: its [Application] group's `name`.
/// PASSCODE_SANDBOX_APP with the id in `id`, or PASSCODE_SANDBOX_MALFORMED with the reason in
/// `message`. No file is read: the helper's parser, on its own for the tests.
int passcode_sandbox_parse_info(const char *text, size_t n, char *id, size_t id_size, char *message, size_t message_size);

#endif
