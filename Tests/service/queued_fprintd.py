#!/usr/bin/python3
"""A user's program waiting in the queue for fprintd's name : it asks for
net.reactivated.Fprint without taking it from its owner (the bus queues it), and once the name
passes to it answers as a reader with the caller's finger enrolled, and every verification with
a match, from its own connection. Prints QUEUED, then each call it gets ("CALL member args").
Usage: queued_fprintd.py BUS_ADDRESS"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
NAME, DEV = "net.reactivated.Fprint", "net.reactivated.Fprint.Device"


def said(*what):
    print("CALL " + " ".join(str(x) for x in what), flush=True)


class Manager(dbus.service.Object):
    @dbus.service.method("net.reactivated.Fprint.Manager", in_signature="", out_signature="o")
    def GetDefaultDevice(self):
        said("GetDefaultDevice")
        return dbus.ObjectPath("/net/reactivated/Fprint/Device/0")


class Device(dbus.service.Object):
    @dbus.service.method(DEV, in_signature="s", out_signature="as")
    def ListEnrolledFingers(self, user):
        said("ListEnrolledFingers", user)
        return ["right-index-finger"]

    @dbus.service.method(DEV, in_signature="s", out_signature="")
    def Claim(self, user):
        said("Claim", user)

    @dbus.service.method(DEV, in_signature="s", out_signature="")
    def VerifyStart(self, finger):
        said("VerifyStart", finger)
        GLib.timeout_add(50, lambda: self.VerifyStatus("verify-match", True) and False)

    @dbus.service.method(DEV, in_signature="", out_signature="")
    def VerifyStop(self):
        said("VerifyStop")

    @dbus.service.method(DEV, in_signature="", out_signature="")
    def Release(self):
        said("Release")

    @dbus.service.signal(DEV, signature="sb")
    def VerifyStatus(self, result, done):
        pass


Manager(bus, "/net/reactivated/Fprint/Manager")
Device(bus, "/net/reactivated/Fprint/Device/0")
r = bus.request_name(NAME, 0)  # no flags: queued behind the owner, not replacing it
print("QUEUED" if r == dbus.bus.REQUEST_NAME_REPLY_IN_QUEUE else f"REPLY {r}", flush=True)
GLib.MainLoop().run()
