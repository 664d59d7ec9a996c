// The stores passcoded serves as objects whose lock-screen fields are D-Bus properties
// (interface PASSCODE_BUS_STORE_INTERFACE, at PASSCODE_BUS_STORE_PREFIX/<app id, sd_bus_path_encode'd>).
// The properties are the caller's own: a getter answers the store of the caller's uid with that
// app id, and PropertiesChanged is never broadcast: it is sent, addressed, to each connection of
// the store's uid that asked for it (the Watch method), and to no one else.
#ifndef PASSCODE_BUS_PROPS_H
#define PASSCODE_BUS_PROPS_H

#include <systemd/sd-bus.h>
#include <stdint.h>
#include <sys/types.h>

// The prefix, the interface and passcode_bus_props (what is pushed of one store: nothing secret,
// the fields of passcode_lock_screen_read and the state queries) are generated from the XML.
// `settled`: no field depends on the time it is read (no lockout recorded, the biometric policy
// settled before its time checks): the values hold until the next push. Otherwise
// `lockout_remaining`, `biometric_refusal` and `biometric_lead` were true when the push was made
// only. `generation` grows with every push of the store (a later one supersedes an earlier one).
#include "passcode_bus_store.h"

/// Fills `out` with the last values pushed of the store `app_id` of `uid`, for the call `m` (its
/// sender is admitted to that store as a method call naming it would be: a sandboxed caller to
/// its own app's stores only). -ENOENT when none is kept (no connection of that uid watches it);
/// -EACCES when the sender is refused, with the D-Bus error's name and message in `name` and
/// `text` (NUL-terminated, cut to their sizes).
typedef int (*passcode_bus_props_lookup)(sd_bus_message *m, uid_t uid, const char *app_id, passcode_bus_props *out, char *name,
                                         size_t name_size, char *text, size_t text_size);

/// Publishes the store objects under PASSCODE_BUS_STORE_PREFIX; their getters ask `lookup` with
/// the caller's uid (from the bus daemon's record, as passcode_bus_sender_uid), never another.
int passcode_bus_add_store_objects(sd_bus *bus, passcode_bus_props_lookup lookup);

/// The object path of the store `app_id` (sd_bus_path_encode: any byte is escaped); free() it.
/// NULL on failure.
char *passcode_bus_store_path(const char *app_id);

/// Sends PropertiesChanged(PASSCODE_BUS_STORE_INTERFACE, every property, []) of the store
/// `app_id`, addressed to `destination` (a unique name) alone. Returns 0 or a negative errno.
int passcode_bus_send_props_changed(sd_bus *bus, const char *destination, const char *app_id, const passcode_bus_props *p);

/// Fills `out` with the last values pushed of `uid`'s login store `app_id`, for the call `m`
/// when its sender watches that store (WatchLogin admitted it); -ENOENT otherwise.
typedef int (*passcode_bus_login_lookup)(sd_bus_message *m, uint32_t uid, const char *app_id, passcode_bus_login_props *out);

/// Publishes the login stores' objects under PASSCODE_BUS_LOGIN_PREFIX (<uid>/<app id>); their
/// getters ask `lookup`, which answers a connection that watches the store and no other.
int passcode_bus_add_login_objects(sd_bus *bus, passcode_bus_login_lookup lookup);

/// The object path of `uid`'s login store `app_id` (sd_bus_path_encode_many); free() it. NULL on failure.
char *passcode_bus_login_path(uint32_t uid, const char *app_id);

/// Sends PropertiesChanged(PASSCODE_BUS_LOGIN_INTERFACE, every property, []) of `uid`'s login
/// store `app_id`, addressed to `destination` (a unique name) alone. Returns 0 or a negative errno.
int passcode_bus_send_login_changed(sd_bus *bus, const char *destination, uint32_t uid, const char *app_id,
                                    const passcode_bus_login_props *p);

#endif
