#!/usr/bin/env python3
"""What a screen locker or a greeter shows of a user's login PIN, without parsing PAM's text and
without polling: passcoded's WatchLogin answers the login store's state now, and from then on
passcoded sends its PropertiesChanged to this connection alone whenever a call changed it (a
wrong PIN through pam_passcode, a reset). The seconds of a lockout are counted down here, by a
timer, from the moment the push arrived; nothing is asked of passcoded again, unless passcoded
itself restarts (its name gets a new owner): then the watch is made again.

    locker_state.py [--uid UID] [--app login] [--pushes N]

It runs as the user itself (a screen locker), as root, or as an account passcoded.conf's
greeter_users names (a greeter, Debian-gdm); passcoded refuses any other account. It prints one
line a push, then one a second while a lockout runs, and a sentence a person would read:

    push generation=3 state=1 lockout=60 failures=5 left=1 next=300 fingerprint=4
    say: Locked: try again in 1 minute. 1 more wrong PIN starts a wait of 5 minutes. No fingerprint: locked out.
    countdown 59
    ...
    countdown 0
    say: The PIN may be tried again.

--pushes N: exit after the N-th push's countdown ends (a test). Needs python3-gi (Gio); the bus
is the system bus, or DBUS_SYSTEM_BUS_ADDRESS."""
import argparse
import os
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = "org.libpasscode.Passcode1"
PATH = "/org/libpasscode/Passcode1"
LOGIN_INTERFACE = "org.libpasscode.Passcode1.Login"
# The properties in WatchLogin's reply, after the object's path (service/org.libpasscode.Passcode1.xml).
FIELDS = ["Generation", "Settled", "State", "LockoutRemaining", "FailedAttempts", "AttemptsLeft", "NextDelay",
          "FingerprintRefusal"]
# passcode_login_state and passcode_biometric_refusal (include/passcode.h), as a person reads them.
STATES = {0: "open", 1: "locked out", 2: "reset required", 3: "no PIN"}
REFUSALS = {1: "the first unlock needs the PIN", 2: "the PIN was not used for 48 hours", 3: "too many failed fingerprints",
            4: "locked out", 5: "the lock is off", 6: "fingerprint is off", 7: "no fingerprint reader", 8: "no PIN",
            9: "a reset is required", 10: "the first login after a restart needs the PIN"}


def minutes(seconds):
    m = (seconds + 59) // 60
    return f"{m} minute{'s' if m != 1 else ''}"


class Reader:
    def __init__(self, uid, app, pushes):
        self.uid, self.app, self.pushes_left = uid, app, pushes
        self.generation = -1
        self.deadline = None  # monotonic seconds when the lockout ends
        self.timer = 0
        self.loop = GLib.MainLoop()
        self.bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)

    def start(self):
        self.path, self.owner, self.status = None, None, 0
        # Subscribed before the watch: a push between the reply and the subscription is never lost.
        # Any peer may send this connection a signal: only passcoded's own (its unique name) is read.
        self.bus.signal_subscribe(None, "org.freedesktop.DBus.Properties", "PropertiesChanged", None, LOGIN_INTERFACE,
                                  Gio.DBusSignalFlags.NONE, self.on_changed)
        # The watch is made when passcoded's name has an owner, and again when a new one takes it.
        Gio.bus_watch_name_on_connection(self.bus, NAME, Gio.BusNameWatcherFlags.AUTO_START, self.on_appeared, self.on_vanished)
        self.loop.run()
        return self.status

    def on_appeared(self, bus, name, owner):
        try:
            reply = self.bus.call_sync(NAME, PATH, NAME, "WatchLogin", GLib.Variant("(su)", (self.app, self.uid)), None,
                                       Gio.DBusCallFlags.NONE, 30000, None).unpack()
        except GLib.Error as e:
            print(f"refused: {Gio.DBusError.get_remote_error(e) or ''} {e.message}", flush=True)
            self.status = 1
            self.loop.quit()
            return
        self.path, self.owner = reply[0], owner
        self.generation = -1  # a new passcoded counts its pushes from 1
        print(f"watching {self.path}", flush=True)
        self.show(dict(zip(FIELDS, reply[1:])))

    def on_vanished(self, bus, name):
        if self.path is not None:
            print("passcoded left the bus: waiting for it", flush=True)

    def on_changed(self, bus, sender, path, interface, member, parameters):
        iface, changed, _ = parameters.unpack()
        if sender != self.owner or path != self.path or iface != LOGIN_INTERFACE:
            return
        self.show(changed)

    def show(self, p):
        if p.get("Generation", 0) <= self.generation:
            return  # an older push than one already shown
        self.generation = p["Generation"]
        print("push " + " ".join(f"{k}={p[v]:d}" for k, v in (
            ("generation", "Generation"), ("state", "State"), ("lockout", "LockoutRemaining"), ("failures", "FailedAttempts"),
            ("left", "AttemptsLeft"), ("next", "NextDelay"), ("fingerprint", "FingerprintRefusal"))), flush=True)
        words = []
        if p["State"] == 1:
            words.append(f"Locked: try again in {minutes(p['LockoutRemaining'])}.")
        elif p["State"] in STATES and p["State"] != 0:
            words.append(f"PIN: {STATES[p['State']]}.")
        if p["State"] in (0, 1) and p["AttemptsLeft"] > 0:
            one = p["AttemptsLeft"] == 1
            then = ("requires" if one else "require") + " a reset" if p["NextDelay"] < 0 else \
                ("starts" if one else "start") + f" a wait of {minutes(p['NextDelay'])}"
            words.append(f"{p['AttemptsLeft']} more wrong PIN{'s' if p['AttemptsLeft'] != 1 else ''} {then}.")
        refusal = p["FingerprintRefusal"]
        words.append("Fingerprint: yes." if refusal == 0 else f"No fingerprint: {REFUSALS.get(refusal, 'refused')}.")
        print("say: " + " ".join(words), flush=True)
        if self.timer:
            GLib.source_remove(self.timer)
            self.timer = 0
        if p["State"] == 1 and p["LockoutRemaining"] > 0:
            self.deadline = time.monotonic() + p["LockoutRemaining"]
            self.timer = GLib.timeout_add_seconds(1, self.tick)
        else:
            self.counted()

    def tick(self):
        left = max(0, int(round(self.deadline - time.monotonic())))
        print(f"countdown {left}", flush=True)
        if left > 0:
            return True
        print("say: The PIN may be tried again.", flush=True)
        self.timer = 0
        self.counted()
        return False

    def counted(self):
        if self.pushes_left is not None:
            self.pushes_left -= 1
            if self.pushes_left <= 0:
                self.loop.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uid", type=int, default=os.getuid(), help="the user (default: this process's own)")
    ap.add_argument("--app", default="login", help="the login store: login (default) or login.NAME")
    ap.add_argument("--pushes", type=int, default=None, help="exit after this many pushes have been shown and counted down")
    args = ap.parse_args()
    return Reader(args.uid, args.app, args.pushes).start()


if __name__ == "__main__":
    sys.exit(main())
