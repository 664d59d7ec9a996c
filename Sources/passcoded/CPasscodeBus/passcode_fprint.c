// passcoded's fingerprint check through fprintd (net.reactivated.Fprint), on a connection of its
// own to the system bus (sd_bus_open_system: DBUS_SYSTEM_BUS_ADDRESS when set), so the daemon's
// bus thread keeps answering while a verification waits. The default reader is claimed for the
// caller's user, VerifyStart("any"), VerifyStatus waited for up to a bound; a started
// verification is always stopped and a claim always released, on every path. No secret is read
// or written here: fprintd answers only "match" or "no match".
#include "passcode_bus.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FPRINT_NAME "net.reactivated.Fprint"
#define FPRINT_MANAGER "/net/reactivated/Fprint/Manager"
#define FPRINT_MANAGER_IFACE "net.reactivated.Fprint.Manager"
#define FPRINT_DEVICE_IFACE "net.reactivated.Fprint.Device"

struct verify_state {
    const char *owner;  // fprintd's unique name: a signal from anyone else is not its answer
    const char *caller;  // the connection the check is for (NULL: none watched)
    int done;
    int matched;
    int fprintd_gone;  // fprintd's connection left the bus, or its name passed to another
    int caller_gone;
    char result[64];
};

/* The bus daemon's NameOwnerChanged (its sender checked by the match): fprintd's name leaving
 * the connection the check talks to, or the caller's unique name going. */
static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct verify_state *state = userdata;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || name == NULL || old_owner == NULL) return 0;
    if ((strcmp(name, FPRINT_NAME) == 0 && strcmp(old_owner, state->owner) == 0) || strcmp(name, state->owner) == 0)
        state->fprintd_gone = 1;
    if (state->caller && strcmp(name, state->caller) == 0 && new_owner && new_owner[0] == 0) state->caller_gone = 1;
    return 0;
}

/* Whether `name` has an owner on the bus (1), has none (0), or the bus did not say (-1). */
static int has_owner(sd_bus *bus, const char *name) {
    sd_bus_message *reply = NULL;
    int has = 0;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                               NULL, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "b", &has);
    sd_bus_message_unref(reply);
    return r < 0 ? -1 : has != 0;
}

static int on_verify_status(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct verify_state *state = userdata;
    const char *result = NULL;
    int done = 0;
    const char *sender = sd_bus_message_get_sender(m);
    if (sender == NULL || strcmp(sender, state->owner) != 0) return 0;
    if (sd_bus_message_read(m, "sb", &result, &done) < 0 || result == NULL) return 0;
    // verify-retry-scan and its kind (done false): the reader asks for the finger again.
    if (!done) return 0;
    state->done = 1;
    state->matched = strcmp(result, "verify-match") == 0;
    snprintf(state->result, sizeof state->result, "%s", result);
    return 0;
}

static void say(char *message, size_t size, const char *format, const char *a, const char *b) {
    if (message && size) snprintf(message, size, format, a ? a : "", b ? b : "");
}

static int is_error(const sd_bus_error *e, const char *name) {
    return e->name && strcmp(e->name, name) == 0;
}

static uint64_t now_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

// The reader and the user's fingers: PASSCODE_FPRINT_OK with the device's path in `device`, or
// NO_READER / NO_FINGER / FAILED with the reason in `message`.
static int find_reader(sd_bus *bus, const char *user, char *device, size_t device_size, char *owner, size_t owner_size,
                       char *message, size_t size) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(bus, FPRINT_NAME, FPRINT_MANAGER, FPRINT_MANAGER_IFACE, "GetDefaultDevice", &e, &reply, "");
    if (r < 0) {
        int status = PASSCODE_FPRINT_NO_READER;
        if (is_error(&e, "net.reactivated.Fprint.Error.NoSuchDevice"))
            say(message, size, "no fingerprint reader (fprintd has no device)%s%s", NULL, NULL);
        else if (is_error(&e, "org.freedesktop.DBus.Error.ServiceUnknown") || is_error(&e, "org.freedesktop.DBus.Error.NameHasNoOwner"))
            say(message, size, "no fingerprint reader: fprintd (net.reactivated.Fprint) is not on the system bus%s%s", NULL, NULL);
        else {
            status = PASSCODE_FPRINT_FAILED;
            say(message, size, "fprintd's GetDefaultDevice failed: %s%s", e.name ? e.name : strerror(-r), NULL);
        }
        sd_bus_error_free(&e);
        return status;
    }
    const char *path = NULL;
    r = sd_bus_message_read(reply, "o", &path);
    if (r < 0 || path == NULL || strlen(path) >= device_size) {
        sd_bus_message_unref(reply);
        say(message, size, "fprintd's GetDefaultDevice answered no device path%s%s", NULL, NULL);
        return PASSCODE_FPRINT_FAILED;
    }
    snprintf(device, device_size, "%s", path);
    const char *sender = sd_bus_message_get_sender(reply);
    if (sender == NULL || strlen(sender) >= owner_size) {
        sd_bus_message_unref(reply);
        say(message, size, "fprintd's answer names no sender%s%s", NULL, NULL);
        return PASSCODE_FPRINT_FAILED;
    }
    snprintf(owner, owner_size, "%s", sender);
    sd_bus_message_unref(reply);
    reply = NULL;

    /* fprintd runs as root, and its bus policy lets root alone own its name; a bus whose policy
     * lets anyone own it (or a name left free) must not let a user's program answer for it. */
    uint32_t owner_uid = (uint32_t)-1;
    r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "GetConnectionUnixUser", &e, &reply, "s", owner);
    if (r >= 0) r = sd_bus_message_read(reply, "u", &owner_uid);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    reply = NULL;
    if (r < 0 || owner_uid != 0) {
        char uid_text[32];
        snprintf(uid_text, sizeof uid_text, "%u", (unsigned)owner_uid);
        say(message, size, "the owner of net.reactivated.Fprint on the system bus runs as uid %s%s, not root: it is not fprintd, and its answers are not taken",
            r < 0 ? "(unknown)" : uid_text, NULL);
        return PASSCODE_FPRINT_FAILED;
    }

    /* Every later call goes to the connection just found to run as root (its unique name), not
     * to the well-known name, which another program may own by then (fprintd gone, or restarting,
     * on a bus that lets it): a restarted fprintd is a new connection, and this check fails. */
    r = sd_bus_call_method(bus, owner, device, FPRINT_DEVICE_IFACE, "ListEnrolledFingers", &e, &reply, "s", user);
    if (r < 0) {
        int status = PASSCODE_FPRINT_NO_FINGER;
        if (is_error(&e, "net.reactivated.Fprint.Error.NoEnrolledPrints"))
            say(message, size, "no finger is enrolled for this user on the fingerprint reader%s%s", NULL, NULL);
        else {
            status = PASSCODE_FPRINT_FAILED;
            say(message, size, "fprintd's ListEnrolledFingers failed: %s%s", e.name ? e.name : strerror(-r), NULL);
        }
        sd_bus_error_free(&e);
        return status;
    }
    int fingers = 0;
    r = sd_bus_message_enter_container(reply, 'a', "s");
    if (r >= 0) {
        const char *finger = NULL;
        while (sd_bus_message_read(reply, "s", &finger) > 0) fingers++;
    }
    sd_bus_message_unref(reply);
    if (fingers == 0) {
        say(message, size, "no finger is enrolled for this user on the fingerprint reader%s%s", NULL, NULL);
        return PASSCODE_FPRINT_NO_FINGER;
    }
    return PASSCODE_FPRINT_OK;
}

static int user_name(uid_t uid, char *name, size_t size, char *message, size_t message_size) {
    struct passwd pw, *found = NULL;
    char buffer[4096];
    if (getpwuid_r(uid, &pw, buffer, sizeof buffer, &found) != 0 || found == NULL || strlen(found->pw_name) >= size) {
        say(message, message_size, "the caller's uid has no user name%s%s", NULL, NULL);
        return PASSCODE_FPRINT_FAILED;
    }
    snprintf(name, size, "%s", found->pw_name);
    return PASSCODE_FPRINT_OK;
}

/* The caller's user name, a bus connection of its own, and the reader fprintd (a root-owned
 * name) has for that user with a finger enrolled. On success *bus is open; else it is NULL. */
static int open_reader(uid_t uid, sd_bus **bus, char user[256], char device[512], char owner[256],
                       char *message, size_t message_size) {
    *bus = NULL;
    if (message && message_size) message[0] = 0;
    int status = user_name(uid, user, 256, message, message_size);
    if (status != PASSCODE_FPRINT_OK) return status;
    int r = sd_bus_open_system(bus);
    if (r < 0) {
        *bus = NULL;
        say(message, message_size, "no fingerprint reader: the system bus cannot be reached (%s)%s", strerror(-r), NULL);
        return PASSCODE_FPRINT_NO_READER;
    }
    status = find_reader(*bus, user, device, 512, owner, 256, message, message_size);
    if (status != PASSCODE_FPRINT_OK) *bus = sd_bus_flush_close_unref(*bus);
    return status;
}

int passcode_fprint_probe(uid_t uid, char *message, size_t message_size) {
    char user[256], device[512], owner[256];
    sd_bus *bus = NULL;
    int status = open_reader(uid, &bus, user, device, owner, message, message_size);
    if (bus) sd_bus_flush_close_unref(bus);
    return status;
}

void passcode_fprint_cancel(int *cancel) {
    if (cancel) __atomic_store_n(cancel, 1, __ATOMIC_RELEASE);
}

static int cancelled(const int *cancel) {
    return cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE);
}

int passcode_fprint_verify(uid_t uid, uint64_t timeout_usec, const int *cancel, const char *caller, char *message, size_t message_size) {
    char user[256], device[512], owner[256];
    sd_bus *bus = NULL;
    int status = open_reader(uid, &bus, user, device, owner, message, message_size);
    if (status != PASSCODE_FPRINT_OK) return status;

    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bus, owner, device, FPRINT_DEVICE_IFACE, "Claim", &e, NULL, "s", user);
    if (r < 0) {
        if (is_error(&e, "net.reactivated.Fprint.Error.AlreadyInUse")) {
            status = PASSCODE_FPRINT_BUSY;
            say(message, message_size, "the fingerprint reader is in use by another program%s%s", NULL, NULL);
        } else {
            status = PASSCODE_FPRINT_FAILED;
            say(message, message_size, "fprintd refused to claim the reader: %s%s", e.name ? e.name : strerror(-r), NULL);
        }
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(bus);
        return status;
    }

    // The signal's match before VerifyStart (a reader may answer at once), from fprintd's unique
    // name only: anyone on the bus may send a VerifyStatus signal, only fprintd's counts.
    struct verify_state state = {.owner = owner, .caller = caller};
    sd_bus_slot *slot = NULL, *owners = NULL;
    int started = 0;
    r = sd_bus_match_signal(bus, &slot, owner, device, FPRINT_DEVICE_IFACE, "VerifyStatus", on_verify_status, &state);
    // The names watched before the caller is asked for: a caller gone before the match was
    // added is seen by NameHasOwner, one gone after it by the signal.
    if (r >= 0)
        r = sd_bus_match_signal(bus, &owners, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "NameOwnerChanged", on_owner_changed, &state);
    if (r >= 0 && caller && has_owner(bus, caller) == 0) state.caller_gone = 1;
    if (r < 0) {
        status = PASSCODE_FPRINT_FAILED;
        say(message, message_size, "cannot watch the reader's VerifyStatus and fprintd's name: %s%s", strerror(-r), NULL);
    } else if (state.caller_gone) {
        status = PASSCODE_FPRINT_CALLER_GONE;
        say(message, message_size, "the caller left the bus before the finger was asked for%s%s", NULL, NULL);
    } else {
        r = sd_bus_call_method(bus, owner, device, FPRINT_DEVICE_IFACE, "VerifyStart", &e, NULL, "s", "any");
        if (r < 0) {
            if (is_error(&e, "net.reactivated.Fprint.Error.AlreadyInUse")) {
                status = PASSCODE_FPRINT_BUSY;
                say(message, message_size, "the fingerprint reader is in use by another program%s%s", NULL, NULL);
            } else {
                status = PASSCODE_FPRINT_FAILED;
                say(message, message_size, "fprintd refused to start a verification: %s%s", e.name ? e.name : strerror(-r), NULL);
            }
            sd_bus_error_free(&e);
        } else {
            started = 1;
            uint64_t deadline = now_usec() + timeout_usec;
            status = PASSCODE_FPRINT_TIMEOUT;
            while (!state.done) {
                r = sd_bus_process(bus, NULL);
                if (r < 0) {
                    status = PASSCODE_FPRINT_FAILED;
                    say(message, message_size, "the connection to fprintd failed: %s%s", strerror(-r), NULL);
                    break;
                }
                if (r > 0) continue;
                if (cancelled(cancel)) {  /* unlocked meanwhile: the reader goes back now */
                    status = PASSCODE_FPRINT_CANCELLED;
                    break;
                }
                if (state.caller_gone) {  /* the caller cancelled, or ended: the reader goes back now */
                    status = PASSCODE_FPRINT_CALLER_GONE;
                    say(message, message_size, "the caller left the bus while the finger was awaited%s%s", NULL, NULL);
                    break;
                }
                if (state.fprintd_gone) {
                    status = PASSCODE_FPRINT_FAILED;
                    say(message, message_size, "fprintd left the bus while the finger was awaited (its name changed owner)%s%s", NULL, NULL);
                    break;
                }
                uint64_t now = now_usec();
                if (now >= deadline) break;
                /* In slices, so that a cancel is seen within 50 ms. */
                r = sd_bus_wait(bus, deadline - now < 50000 ? deadline - now : 50000);
                if (r < 0 && r != -EINTR) {
                    status = PASSCODE_FPRINT_FAILED;
                    say(message, message_size, "the connection to fprintd failed: %s%s", strerror(-r), NULL);
                    break;
                }
            }
            if (state.done) {
                if (state.matched) status = PASSCODE_FPRINT_MATCH;
                else if (strcmp(state.result, "verify-no-match") == 0) status = PASSCODE_FPRINT_NO_MATCH;
                else {
                    status = PASSCODE_FPRINT_FAILED;
                    say(message, message_size, "the fingerprint reader failed (%s)%s", state.result, NULL);
                }
            } else if (status == PASSCODE_FPRINT_TIMEOUT) {
                char seconds[32];
                snprintf(seconds, sizeof seconds, "%llu", (unsigned long long)(timeout_usec / 1000000u));
                say(message, message_size, "no finger was read within %s seconds%s", seconds, NULL);
            }
        }
    }
    // Always: the verification stopped, the reader released (their errors change no answer).
    if (started) sd_bus_call_method(bus, owner, device, FPRINT_DEVICE_IFACE, "VerifyStop", NULL, NULL, "");
    sd_bus_call_method(bus, owner, device, FPRINT_DEVICE_IFACE, "Release", NULL, NULL, "");
    sd_bus_slot_unref(slot);
    sd_bus_slot_unref(owners);
    sd_bus_flush_close_unref(bus);
    return status;
}
