// Whether a caller is at the machine: logind's session of the calling process (by its pid, from
// the bus daemon's record of the connection), asked on a connection of passcoded's own to the
// system bus (sd_bus_open_system: DBUS_SYSTEM_BUS_ADDRESS when set), as passcode_fprint.c asks
// fprintd. fprintd's own policy lets the active local session verify; passcoded claims the
// reader for a caller only when that caller's process is in such a session itself: active, not
// remote, on a seat, and (but for root, whose PAM call runs in the session of the user it
// checks) of the caller's own uid. Another session of the same uid does not count: a sudo over
// ssh is not approved by a touch at the seat.
#include "passcode_bus.h"

#include <stdio.h>
#include <string.h>

#define LOGIN_NAME "org.freedesktop.login1"
#define LOGIN_MANAGER "/org/freedesktop/login1"
#define LOGIN_MANAGER_IFACE "org.freedesktop.login1.Manager"
#define LOGIN_SESSION_IFACE "org.freedesktop.login1.Session"

static void say(char *message, size_t size, const char *format, const char *a) {
    if (message && size) snprintf(message, size, format, a ? a : "");
}

/* The uid of the connection that owns `name`, or (uint32_t)-1; its unique name in `owner`. */
static uint32_t owner_uid(sd_bus *bus, const char *name, char *owner, size_t owner_size) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    uint32_t uid = (uint32_t)-1;
    const char *unique = NULL;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", &e, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "s", &unique);
    if (r >= 0 && unique != NULL && strlen(unique) < owner_size) snprintf(owner, owner_size, "%s", unique);
    else r = -1;
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    reply = NULL;
    if (r < 0) return uid;
    r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "GetConnectionUnixUser", &e, &reply, "s", owner);
    if (r < 0 || sd_bus_message_read(reply, "u", &uid) < 0) uid = (uint32_t)-1;
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return uid;
}

static int session_bool(sd_bus *bus, const char *owner, const char *path, const char *property, int *out) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_trivial(bus, owner, path, LOGIN_SESSION_IFACE, property, &e, 'b', out);
    sd_bus_error_free(&e);
    return r;
}

/* The session's seat id (empty: none) and user's uid. */
static int session_seat_and_user(sd_bus *bus, const char *owner, const char *path, char *seat, size_t seat_size, uint32_t *uid) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *id = NULL, *object = NULL;
    int r = sd_bus_get_property(bus, owner, path, LOGIN_SESSION_IFACE, "Seat", &e, &reply, "(so)");
    if (r >= 0) r = sd_bus_message_read(reply, "(so)", &id, &object);
    if (r >= 0) snprintf(seat, seat_size, "%s", id ? id : "");
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    reply = NULL;
    if (r < 0) return r;
    r = sd_bus_get_property(bus, owner, path, LOGIN_SESSION_IFACE, "User", &e, &reply, "(uo)");
    if (r >= 0) r = sd_bus_message_read(reply, "(uo)", uid, &object);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return r;
}

int passcode_seat_check(pid_t pid, uid_t caller, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    sd_bus *bus = NULL;
    int r = sd_bus_open_system(&bus);
    if (r < 0) {
        say(message, message_size, "whether the caller is at the machine cannot be told: the system bus cannot be reached (%s)", strerror(-r));
        return PASSCODE_SEAT_UNKNOWN;
    }
    /* logind runs as root, and its bus policy lets root alone own its name: an owner of another
     * uid (a bus that lets anyone own it, or the name left free) is not logind. Every later call
     * goes to the unique name found to run as root. */
    char owner[256];
    uint32_t uid = owner_uid(bus, LOGIN_NAME, owner, sizeof owner);
    if (uid == (uint32_t)-1) {
        sd_bus_flush_close_unref(bus);
        say(message, message_size, "whether the caller is at the machine cannot be told: logind (%s) is not on the system bus", LOGIN_NAME);
        return PASSCODE_SEAT_UNKNOWN;
    }
    if (uid != 0) {
        sd_bus_flush_close_unref(bus);
        say(message, message_size, "the owner of %s on the system bus does not run as root: it is not logind, and its answers are not taken", LOGIN_NAME);
        return PASSCODE_SEAT_UNKNOWN;
    }

    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    const char *path = NULL;
    char session[512];
    r = sd_bus_call_method(bus, owner, LOGIN_MANAGER, LOGIN_MANAGER_IFACE, "GetSessionByPID", &e, &reply, "u", (uint32_t)pid);
    if (r >= 0) r = sd_bus_message_read(reply, "o", &path);
    if (r >= 0 && path != NULL && strlen(path) < sizeof session) snprintf(session, sizeof session, "%s", path);
    else if (r >= 0) r = -1;
    sd_bus_message_unref(reply);
    if (r < 0) {
        int none = e.name && strcmp(e.name, "org.freedesktop.login1.NoSessionForPID") == 0;
        if (none) say(message, message_size, "the calling process is in no login session%s", NULL);
        else say(message, message_size, "logind's GetSessionByPID failed: %s", e.name ? e.name : "no session path");
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(bus);
        return none ? PASSCODE_SEAT_NOT_THERE : PASSCODE_SEAT_UNKNOWN;
    }
    sd_bus_error_free(&e);

    int active = 0, remote = 1;
    char seat[256] = "";
    uint32_t session_uid = (uint32_t)-1;
    if (session_bool(bus, owner, session, "Active", &active) < 0 || session_bool(bus, owner, session, "Remote", &remote) < 0
        || session_seat_and_user(bus, owner, session, seat, sizeof seat, &session_uid) < 0) {
        sd_bus_flush_close_unref(bus);
        say(message, message_size, "logind did not answer the caller's session's Active, Remote, Seat and User (%s)", session);
        return PASSCODE_SEAT_UNKNOWN;
    }
    sd_bus_flush_close_unref(bus);
    if (remote) {
        say(message, message_size, "the calling process's login session is remote (%s)", session);
        return PASSCODE_SEAT_NOT_THERE;
    }
    if (seat[0] == 0) {
        say(message, message_size, "the calling process's login session is on no seat (%s)", session);
        return PASSCODE_SEAT_NOT_THERE;
    }
    if (!active) {
        say(message, message_size, "the calling process's login session is not the active one on its seat (%s)", session);
        return PASSCODE_SEAT_NOT_THERE;
    }
    if (caller != 0 && session_uid != (uint32_t)caller) {
        say(message, message_size, "the calling process's login session is another user's (%s)", session);
        return PASSCODE_SEAT_NOT_THERE;
    }
    return PASSCODE_SEAT_YES;
}
