// The sd-bus method table of passcoded: SD_BUS_METHOD and SD_BUS_VTABLE_START are macros, which
// Swift cannot import, so the table lives in C (generated from service/org.libpasscode.Passcode1.xml
// into passcode_bus_vtable.inc) and sends every call to one Swift function.
#ifndef PASSCODE_BUS_H
#define PASSCODE_BUS_H

#include <systemd/sd-bus.h>
#include <sys/types.h>

/// Called for every method of the table, with the method's name; sd-bus has already checked
/// the signature against the table (a wrong one gets org.freedesktop.DBus.Error.InvalidArgs).
/// Returns what an sd-bus method handler returns: >= 0 after replying, < 0 (a negative errno)
/// to have sd-bus reply with an error.
typedef int (*passcode_bus_handler)(sd_bus_message *m, const char *member, sd_bus_error *error);

/// Connects to the system bus as sd_bus_open_system does ($DBUS_SYSTEM_BUS_ADDRESS, else
/// /run/dbus/system_bus_socket), but declines file descriptors: passcoded's interface takes
/// none, and a call that carries some never reaches it (the bus daemon answers its sender
/// org.freedesktop.DBus.Error.NotSupported). A queued message would otherwise keep its
/// descriptors open in passcoded until answered. Returns 0 or a negative errno.
int passcode_bus_open_system_without_fds(sd_bus **out);

/// Whether `bus` may receive file descriptors (1) or not (0): the check that the refusal held.
int passcode_bus_accepts_fds(sd_bus *bus);

/// Raises the soft limit of open descriptors to `want` (and, as root, the hard limit with it
/// when it is lower). Returns the soft limit now in force.
long passcode_bus_raise_nofile(long want);

/// Publishes the interface (its path and name: the XML's) with `handler` behind every method.
int passcode_bus_add_object(sd_bus *bus, passcode_bus_handler handler);

/// The uid of the process that sent `m`, from the bus daemon's record of the connection
/// (its SO_PEERCRED at connect time), never from /proc ("augmented" credentials are refused:
/// a pid can be reused). Returns 0 or a negative errno.
int passcode_bus_sender_uid(sd_bus_message *m, uid_t *out);

/// The pid of the process that sent `m`, from the bus daemon's record of the connection (as
/// the uid; "augmented" credentials are refused). Returns 0 or a negative errno.
int passcode_bus_sender_pid(sd_bus_message *m, pid_t *out);

/// The pid of the connection `name` (a unique name), asked of the bus daemon at this moment:
/// the check, after a sandbox was read through the pid, that the connection's pid is still that
/// one. Returns 0 or a negative errno.
int passcode_bus_name_pid(sd_bus *bus, const char *name, pid_t *out);

/// sd_bus_message_read_basic for one string argument ('s').
int passcode_bus_read_string(sd_bus_message *m, const char **out);


/// Drops every supplementary group, then the real, effective and saved gid and uid, sets
/// no_new_privs, and checks that root cannot be regained. Returns NULL, or what failed.
const char *passcode_bus_drop_privileges(uid_t uid, gid_t gid);

/// The same, keeping `keep` as the one supplementary group ((gid_t)-1: none): the group of the
/// TPM device passcoded.conf names (/dev/tpmrm0 is root:tss 0660), never root's.
const char *passcode_bus_drop_privileges_keeping(uid_t uid, gid_t gid, gid_t keep);

/// Called with the unique name of a connection that left the bus.
typedef void (*passcode_bus_gone_handler)(const char *unique_name);

/// Watches the bus daemon's NameOwnerChanged signal and calls `handler` (on the bus thread, from
/// sd_bus_process) for every unique name that loses its owner: a connection that closed. Only
/// the bus daemon's own signal is taken (its sender is org.freedesktop.DBus). Returns 0 or a
/// negative errno.
int passcode_bus_watch_gone(sd_bus *bus, passcode_bus_gone_handler handler);

/// A non-blocking eventfd (sys/eventfd.h does not import into Swift): the workers wake the bus
/// thread through it. Returns the descriptor or -1.
int passcode_bus_eventfd(void);

// passcoded's fingerprint check through fprintd (passcode_fprint.c): the outcomes.
enum {
    PASSCODE_FPRINT_OK = 0,         // (probe) a reader with a finger enrolled for the user
    PASSCODE_FPRINT_MATCH = 1,
    PASSCODE_FPRINT_NO_MATCH = 2,
    PASSCODE_FPRINT_TIMEOUT = 3,    // no finger read within the bound
    PASSCODE_FPRINT_BUSY = 4,       // the reader claimed by another program (AlreadyInUse)
    PASSCODE_FPRINT_NO_READER = 5,  // no fprintd, or no device
    PASSCODE_FPRINT_NO_FINGER = 6,  // no finger enrolled for the user
    PASSCODE_FPRINT_FAILED = 7,     // anything else; the message says what
    PASSCODE_FPRINT_CANCELLED = 8,  // (verify) `*cancel` was set while the finger was awaited
    PASSCODE_FPRINT_CALLER_GONE = 9,  // (verify) the caller's connection left the bus meanwhile
};

// Whether fprintd has a reader with a finger enrolled for the user of `uid`.
int passcode_fprint_probe(uid_t uid, char *message, size_t message_size);

// Claims the default reader for the user of `uid`, VerifyStart("any"), waits for VerifyStatus up
// to `timeout_usec` or until `*cancel` is set (passcode_fprint_cancel, from another thread: read
// at least every 50 ms), or the connection named `caller` (a unique name; NULL: none watched)
// leaves the bus (CALLER_GONE, also when it left before the wait began), or fprintd does
// (FAILED), then always VerifyStop (if started) and Release (if claimed).
int passcode_fprint_verify(uid_t uid, uint64_t timeout_usec, const int *cancel, const char *caller, char *message, size_t message_size);

// Sets `*cancel` (atomically) for the passcode_fprint_verify waiting on it.
void passcode_fprint_cancel(int *cancel);

// Whether a caller is at the machine (passcode_seat.c): logind's answer for the calling process.
enum {
    PASSCODE_SEAT_YES = 0,        // its own session is active, local and on a seat
    PASSCODE_SEAT_NOT_THERE = 1,  // no session, or a remote, inactive, seatless or other user's one
    PASSCODE_SEAT_UNKNOWN = 2,    // no logind (a root-owned org.freedesktop.login1), or it failed
};

// Asks logind (org.freedesktop.login1, only if its owner runs as root) for the session of `pid`
// (GetSessionByPID) and its Active, Remote, Seat and User: YES when it is active, not remote, on
// a seat and, unless `caller` is root, of the user `caller`. Else the reason in `message`.
int passcode_seat_check(pid_t pid, uid_t caller, char *message, size_t message_size);

#endif
