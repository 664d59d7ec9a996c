#!/usr/bin/python3
"""A fake passcoded for the client's own checks (test_service.py): it owns
org.libpasscode.Passcode1 on the bus at ADDRESS and answers as MODE says, logging the member of
every call of the service's interface it receives (one line each, to stdout, never an argument).
Usage: fake_service.py ADDRESS MODE. Prints "READY" once it owns the name. MODE:
  silent     takes every call of the service's interface and never answers it (Peer answered)
  mute       answers nothing at all, org.freedesktop.DBus.Peer included
  zerokey    answers as a passcoded with a passcode set: every key is 32 zero bytes
  shortkey   the same with a key of 16 bytes
  answer     the same with a key of 32 bytes that is not all zeros (the foreign owner's bait)
"""
import sys

import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = IFACE = "org.libpasscode.Passcode1"
ADDRESS, MODE = sys.argv[1], sys.argv[2]
KEYS = {"zerokey": bytes(32), "shortkey": bytes(range(1, 17)), "answer": bytes(range(1, 33))}
KEY_METHODS = ("UnlockKey", "VerifyKey", "SetPasscodeKey", "ChangePasscodeKey", "DisablePasscodeKey")

conn = Gio.DBusConnection.new_for_address_sync(
    ADDRESS, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def body_of(member):
    """The reply's body a passcoded with a passcode set would give (None: no body)."""
    if member == "GetState":
        return GLib.Variant("(bbuxb)", (True, True, 0, 0, False))
    if member in KEY_METHODS:
        return GLib.Variant("(ay)", (KEYS[MODE],))
    if member == "Verify":
        return GLib.Variant("(bx)", (True, 0))
    return None


def on_message(connection, message, incoming):
    if not incoming or message.get_message_type() != Gio.DBusMessageType.METHOD_CALL:
        return message
    interface = message.get_interface()
    if MODE == "mute":
        return None
    if interface != IFACE:
        return message  # Peer, Introspectable: GDBus answers them
    print("CALL " + (message.get_member() or ""), flush=True)
    if MODE == "silent":
        return None  # taken, never answered
    reply = message.new_method_reply()
    body = body_of(message.get_member())
    if body is not None:
        reply.set_body(body)
    connection.send_message(reply, Gio.DBusSendMessageFlags.NONE)
    return None


conn.add_filter(on_message)
owned = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                       GLib.Variant("(su)", (NAME, 4)), GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
if owned != 1:
    print(f"fake_service: RequestName answered {owned}", flush=True)
    sys.exit(1)
print("READY", flush=True)
GLib.MainLoop().run()
