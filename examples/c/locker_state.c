/* What a screen locker or a greeter shows of a user's login PIN, without parsing PAM's text and
 * without polling (sd-bus and sd-event, from libsystemd): passcoded's WatchLogin answers the login
 * store's state now, and from then on passcoded sends its PropertiesChanged to this connection
 * alone whenever a call changed it; the seconds of a lockout are counted down here, by a timer,
 * from the moment the push arrived. When passcoded itself restarts (its name gets a new owner),
 * the watch is made again.
 *
 *   cc locker_state.c $(pkg-config --cflags --libs libsystemd) -o locker_state
 *   ./locker_state [UID [APP [PUSHES]]]      (default: this process's uid, "login", run until killed)
 *
 * It runs as the user itself (a screen locker), as root, or as an account passcoded.conf's
 * greeter_users names (a greeter); passcoded refuses any other account. It prints the lines
 * examples/python/locker_state.py prints ("push generation=... state=...", "countdown N"). The bus
 * is the system bus, or DBUS_SYSTEM_BUS_ADDRESS. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#define NAME "org.libpasscode.Passcode1"
#define LOGIN_INTERFACE "org.libpasscode.Passcode1.Login"

/* The properties of org.libpasscode.Passcode1.Login (WatchLogin's reply after the path). */
struct login {
    uint64_t generation;
    int settled, state;
    int64_t lockout;
    uint32_t failures;
    int32_t left;
    int64_t next;
    int32_t fingerprint;
};

static struct {
    sd_event *event;
    sd_event_source *timer;
    char *path;
    char *owner; /* passcoded's unique name: only its signals are read */
    int64_t generation;
    uint64_t deadline_usec; /* CLOCK_MONOTONIC, when the lockout ends */
    int pushes_left;        /* -1: run until killed */
} r = {.generation = -1, .pushes_left = -1};

static void counted(void)
{
    if (r.pushes_left > 0 && --r.pushes_left == 0) sd_event_exit(r.event, 0);
}

static int tick(sd_event_source *s, uint64_t usec, void *userdata)
{
    (void)userdata;
    int64_t left = r.deadline_usec > usec ? (int64_t)((r.deadline_usec - usec + 500000) / 1000000) : 0;
    printf("countdown %lld\n", (long long)left);
    fflush(stdout);
    if (left > 0) return sd_event_source_set_time(s, usec + 1000000);
    printf("say: The PIN may be tried again.\n");
    fflush(stdout);
    sd_event_source_set_enabled(s, SD_EVENT_OFF);
    counted();
    return 0;
}

static void show(const struct login *p)
{
    if ((int64_t)p->generation <= r.generation) return; /* an older push than one already shown */
    r.generation = (int64_t)p->generation;
    printf("push generation=%llu state=%d lockout=%lld failures=%u left=%d next=%lld fingerprint=%d\n",
           (unsigned long long)p->generation, p->state, (long long)p->lockout, (unsigned)p->failures, (int)p->left,
           (long long)p->next, (int)p->fingerprint);
    if (p->state == 1)
        printf("say: Locked: try again in %lld minute(s).\n", (long long)((p->lockout + 59) / 60));
    if ((p->state == 0 || p->state == 1) && p->left > 0) {
        if (p->next < 0) printf("say: %d more wrong PIN(s) require a reset.\n", (int)p->left);
        else printf("say: %d more wrong PIN(s) start a wait of %lld minute(s).\n", (int)p->left, (long long)((p->next + 59) / 60));
    }
    fflush(stdout);
    if (r.timer) sd_event_source_set_enabled(r.timer, SD_EVENT_OFF);
    if (p->state == 1 && p->lockout > 0) {
        uint64_t now = 0;
        sd_event_now(r.event, CLOCK_MONOTONIC, &now);
        r.deadline_usec = now + (uint64_t)p->lockout * 1000000;
        if (!r.timer) {
            sd_event_add_time(r.event, &r.timer, CLOCK_MONOTONIC, now + 1000000, 0, tick, NULL);
        } else {
            sd_event_source_set_time(r.timer, now + 1000000);
            sd_event_source_set_enabled(r.timer, SD_EVENT_ON);
        }
    } else {
        counted();
    }
}

/* PropertiesChanged(s interface, a{sv} changed, as invalidated) of the watched object. */
static int on_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
    (void)userdata;
    (void)error;
    const char *iface = NULL, *name = NULL;
    const char *sender = sd_bus_message_get_sender(m);
    if (!r.path || !r.owner || !sender || strcmp(sender, r.owner) != 0 || strcmp(sd_bus_message_get_path(m), r.path) != 0) return 0;
    if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, LOGIN_INTERFACE) != 0) return 0;
    struct login p = {0};
    if (sd_bus_message_enter_container(m, 'a', "{sv}") < 0) return 0;
    while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
        if (sd_bus_message_read(m, "s", &name) < 0) return 0;
        int k = 0;
        if (!strcmp(name, "Generation")) k = sd_bus_message_read(m, "v", "t", &p.generation);
        else if (!strcmp(name, "Settled")) k = sd_bus_message_read(m, "v", "b", &p.settled);
        else if (!strcmp(name, "State")) k = sd_bus_message_read(m, "v", "i", &p.state);
        else if (!strcmp(name, "LockoutRemaining")) k = sd_bus_message_read(m, "v", "x", &p.lockout);
        else if (!strcmp(name, "FailedAttempts")) k = sd_bus_message_read(m, "v", "u", &p.failures);
        else if (!strcmp(name, "AttemptsLeft")) k = sd_bus_message_read(m, "v", "i", &p.left);
        else if (!strcmp(name, "NextDelay")) k = sd_bus_message_read(m, "v", "x", &p.next);
        else if (!strcmp(name, "FingerprintRefusal")) k = sd_bus_message_read(m, "v", "i", &p.fingerprint);
        else k = sd_bus_message_skip(m, "v"); /* a property this reader does not know */
        if (k < 0 || sd_bus_message_exit_container(m) < 0) return 0;
    }
    show(&p);
    return 0;
}

static uint32_t watched_uid;
static const char *watched_app;

/* WatchLogin(app, uid): the state now, and the pushes from then on. 0, or -1 when refused. */
static int watch(sd_bus *bus)
{
    sd_bus_message *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int k = sd_bus_call_method(bus, NAME, "/org/libpasscode/Passcode1", NAME, "WatchLogin", &error, &reply, "su", watched_app,
                               watched_uid);
    if (k < 0) {
        printf("refused: %s %s\n", error.name ? error.name : "", error.message ? error.message : strerror(-k));
        fflush(stdout);
        sd_bus_error_free(&error);
        return -1;
    }
    const char *path = NULL;
    struct login p = {0};
    k = sd_bus_message_read(reply, "stbixuix", &path, &p.generation, &p.settled, &p.state, &p.lockout, &p.failures, &p.left,
                            &p.next);
    if (k >= 0) k = sd_bus_message_read(reply, "i", &p.fingerprint);
    if (k < 0) {
        fprintf(stderr, "locker_state: WatchLogin's reply: %s\n", strerror(-k));
        sd_bus_message_unref(reply);
        return -1;
    }
    free(r.path);
    free(r.owner);
    r.path = strdup(path);
    r.owner = strdup(sd_bus_message_get_sender(reply));
    r.generation = -1; /* a new passcoded counts its pushes from 1 */
    printf("watching %s\n", r.path);
    show(&p);
    sd_bus_message_unref(reply);
    return 0;
}

/* NameOwnerChanged(name, old, new) of passcoded's name: a new passcoded is watched again. */
static int on_owner(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
    (void)error;
    const char *name = NULL, *old = NULL, *new = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old, &new) < 0 || strcmp(name, NAME) != 0) return 0;
    if (!new || !*new) {
        printf("passcoded left the bus: waiting for it\n");
        fflush(stdout);
        return 0;
    }
    if (watch(userdata) < 0) sd_event_exit(r.event, 1);
    return 0;
}

int main(int argc, char **argv)
{
    watched_uid = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : (uint32_t)getuid();
    watched_app = argc > 2 ? argv[2] : "login";
    r.pushes_left = argc > 3 ? atoi(argv[3]) : -1;
    sd_bus *bus = NULL;
    int k = sd_bus_open_system(&bus);
    if (k < 0) {
        fprintf(stderr, "locker_state: no system bus: %s\n", strerror(-k));
        return 1;
    }
    sd_event_default(&r.event);
    sd_bus_attach_event(bus, r.event, 0);
    /* Subscribed before the watch: a push between the reply and the subscription is never lost.
     * Any peer may send this connection a signal: on_changed reads passcoded's own only. */
    k = sd_bus_match_signal(bus, NULL, NULL, NULL, "org.freedesktop.DBus.Properties", "PropertiesChanged", on_changed, NULL);
    if (k >= 0)
        k = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "NameOwnerChanged", on_owner, bus);
    if (k < 0 || watch(bus) < 0) return 1;
    k = sd_event_loop(r.event);
    free(r.path);
    free(r.owner);
    sd_bus_flush_close_unref(bus);
    sd_event_unref(r.event);
    return k < 0 ? 1 : 0;
}
