// The store objects of passcoded and their unicast PropertiesChanged (include/passcode_bus_props.h).
#define _GNU_SOURCE
#include "passcode_bus_props.h"
#include "passcode_bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static passcode_bus_props_lookup current_lookup;
static passcode_bus_login_lookup current_login_lookup;

static int get_prop(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                    void *userdata, sd_bus_error *error);
static int get_login_prop(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                          void *userdata, sd_bus_error *error);

// The properties' table, their append_prop and store_vtable: generated from the XML.
#include "passcode_bus_store.inc"

char *passcode_bus_store_path(const char *app_id) {
    char *path = NULL;
    if (!app_id || sd_bus_path_encode(PASSCODE_BUS_STORE_PREFIX, app_id, &path) < 0) return NULL;
    return path;
}

/// The app id a store path names, or NULL (free() it).
static char *app_of(const char *path) {
    char *app = NULL;
    if (sd_bus_path_decode(path, PASSCODE_BUS_STORE_PREFIX, &app) <= 0) return NULL;
    return app;
}

static int get_prop(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                    void *userdata, sd_bus_error *error) {
    (void)interface;
    (void)userdata;
    int which = 0;
    while (which < PASSCODE_PROP_COUNT && strcmp(props[which].name, property) != 0) which++;
    if (which == PASSCODE_PROP_COUNT) return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "no such property");
    sd_bus_message *m = sd_bus_get_current_message(bus);
    uid_t uid;
    if (!m || passcode_bus_sender_uid(m, &uid) < 0)
        return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "the caller's uid cannot be established");
    char *app = app_of(path);
    if (!app) return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "not a store's path");
    passcode_bus_props p;
    char name[256] = "", text[1024] = "";
    int r = current_lookup ? current_lookup(m, uid, app, &p, name, sizeof name, text, sizeof text) : -ENOSYS;
    free(app);
    if (r == -EACCES)
        return sd_bus_error_set(error, name[0] ? name : SD_BUS_ERROR_ACCESS_DENIED, text[0] ? text : "the caller may not read this store");
    if (r < 0)
        return sd_bus_error_setf(error, "org.libpasscode.Error.NotWatched",
                                 "%s: no connection of this uid watches this store; call Watch(app_id) first", property);
    return append_prop(reply, which, &p);
}

/// Every path under the prefix that decodes to a name is an object (its getters decide the rest).
static int find_store(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found, sd_bus_error *error) {
    (void)bus; (void)interface; (void)userdata; (void)error;
    char *app = app_of(path);
    if (!app) return 0;
    free(app);
    *found = NULL;
    return 1;
}

int passcode_bus_add_store_objects(sd_bus *bus, passcode_bus_props_lookup lookup) {
    current_lookup = lookup;
    return sd_bus_add_fallback_vtable(bus, NULL, PASSCODE_BUS_STORE_PREFIX, PASSCODE_BUS_STORE_INTERFACE, store_vtable,
                                      find_store, NULL);
}

int passcode_bus_send_props_changed(sd_bus *bus, const char *destination, const char *app_id, const passcode_bus_props *p) {
    if (!destination || destination[0] != ':') return -EINVAL;  // a unique name only: never a broadcast
    char *path = passcode_bus_store_path(app_id);
    if (!path) return -EINVAL;
    sd_bus_message *m = NULL;
    int r = sd_bus_message_new_signal(bus, &m, path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    free(path);
    if (r < 0) return r;
    r = sd_bus_message_set_destination(m, destination);
    if (r >= 0) r = sd_bus_message_append(m, "s", PASSCODE_BUS_STORE_INTERFACE);
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "{sv}");
    for (int i = 0; r >= 0 && i < PASSCODE_PROP_COUNT; i++) {
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0) r = sd_bus_message_append(m, "s", props[i].name);
        if (r >= 0) r = sd_bus_message_open_container(m, 'v', props[i].type);
        if (r >= 0) r = append_prop(m, i, p);
        if (r >= 0) r = sd_bus_message_close_container(m);
        if (r >= 0) r = sd_bus_message_close_container(m);
    }
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_append(m, "as", 0);
    if (r >= 0) r = sd_bus_send(bus, m, NULL);
    sd_bus_message_unref(m);
    return r < 0 ? r : 0;
}

// ---- a user's login store, read by uid (PASSCODE_BUS_LOGIN_PREFIX/<uid>/<app id>) ----

char *passcode_bus_login_path(uint32_t uid, const char *app_id) {
    char *path = NULL, number[16];
    if (!app_id) return NULL;
    snprintf(number, sizeof number, "%u", (unsigned)uid);
    if (sd_bus_path_encode_many(&path, PASSCODE_BUS_LOGIN_PREFIX "/%/%", number, app_id) < 0) return NULL;
    return path;
}

/// The uid and app id a login path names (free() *app); 0 or a negative errno.
static int login_of(const char *path, uint32_t *uid, char **app) {
    char *number = NULL;
    *app = NULL;
    if (sd_bus_path_decode_many(path, PASSCODE_BUS_LOGIN_PREFIX "/%/%", &number, app) <= 0 || !number || !*app) {
        free(number);
        free(*app);
        *app = NULL;
        return -EINVAL;
    }
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(number, &end, 10);
    int bad = errno != 0 || end == number || *end != '\0' || number[0] == '-' || number[0] == '+' || v > UINT32_MAX;
    free(number);
    if (bad) {
        free(*app);
        *app = NULL;
        return -EINVAL;
    }
    *uid = (uint32_t)v;
    return 0;
}

static int get_login_prop(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply,
                          void *userdata, sd_bus_error *error) {
    (void)interface;
    (void)userdata;
    int which = 0;
    while (which < PASSCODE_LOGIN_PROP_COUNT && strcmp(login_props[which].name, property) != 0) which++;
    if (which == PASSCODE_LOGIN_PROP_COUNT) return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "no such property");
    sd_bus_message *m = sd_bus_get_current_message(bus);
    uid_t caller;
    if (!m || passcode_bus_sender_uid(m, &caller) < 0)
        return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "the caller's uid cannot be established");
    uint32_t uid = 0;
    char *app = NULL;
    if (login_of(path, &uid, &app) < 0) return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "not a login object's path");
    passcode_bus_login_props p;
    int r = current_login_lookup ? current_login_lookup(m, uid, app, &p) : -ENOSYS;
    free(app);
    if (r < 0)
        return sd_bus_error_setf(error, "org.libpasscode.Error.NotWatched",
                                 "%s: this connection does not watch this login store; call WatchLogin(app_id, uid) first", property);
    return append_login_prop(reply, which, &p);
}

static int find_login(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found, sd_bus_error *error) {
    (void)bus; (void)interface; (void)userdata; (void)error;
    uint32_t uid;
    char *app = NULL;
    if (login_of(path, &uid, &app) < 0) return 0;
    free(app);
    *found = NULL;
    return 1;
}

int passcode_bus_add_login_objects(sd_bus *bus, passcode_bus_login_lookup lookup) {
    current_login_lookup = lookup;
    return sd_bus_add_fallback_vtable(bus, NULL, PASSCODE_BUS_LOGIN_PREFIX, PASSCODE_BUS_LOGIN_INTERFACE, login_vtable,
                                      find_login, NULL);
}

int passcode_bus_send_login_changed(sd_bus *bus, const char *destination, uint32_t uid, const char *app_id,
                                    const passcode_bus_login_props *p) {
    if (!destination || destination[0] != ':') return -EINVAL;  // a unique name only: never a broadcast
    char *path = passcode_bus_login_path(uid, app_id);
    if (!path) return -EINVAL;
    sd_bus_message *m = NULL;
    int r = sd_bus_message_new_signal(bus, &m, path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    free(path);
    if (r < 0) return r;
    r = sd_bus_message_set_destination(m, destination);
    if (r >= 0) r = sd_bus_message_append(m, "s", PASSCODE_BUS_LOGIN_INTERFACE);
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "{sv}");
    for (int i = 0; r >= 0 && i < PASSCODE_LOGIN_PROP_COUNT; i++) {
        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0) r = sd_bus_message_append(m, "s", login_props[i].name);
        if (r >= 0) r = sd_bus_message_open_container(m, 'v', login_props[i].type);
        if (r >= 0) r = append_login_prop(m, i, p);
        if (r >= 0) r = sd_bus_message_close_container(m);
        if (r >= 0) r = sd_bus_message_close_container(m);
    }
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_append(m, "as", 0);
    if (r >= 0) r = sd_bus_send(bus, m, NULL);
    sd_bus_message_unref(m);
    return r < 0 ? r : 0;
}
