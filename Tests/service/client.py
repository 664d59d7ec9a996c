#!/usr/bin/python3
"""A client of passcoded that runs as one test user: reads one JSON request a line on stdin and
answers one JSON line on stdout. Requests:
  {"call": METHOD, "sig": "(ss)", "args": [...]}          one call on this process's connection
  {"file": PATH}                                          open/write/delete/list the store as this user
  {"many": N, "call": ..., "sig": ..., "args": [...]}     N connections calling at once
  {"raw": N, "start": S}                                 N random calls (odd names, signatures, bytes)
  {"own": NAME}                                          ask the bus for NAME
  {"stall": N, "connections": C, "app": APP, "flags": F, "call": ..., "sig": ..., "args": [...]}
      the same-uid staller: C connections of this uid each register hooks (SetHooks APP F) that never
      answer, and queue N calls each at once; answers when a hook is being asked (kept until exit);
      with "fds": D each call also carries D file descriptors (the descriptor attack)
  {"stalled": 0}                                         what the staller's connections saw so far (the hooks
                                                         asked, the answers by name, the hook timeouts among them)
  {"hooked": APP, "flags": F, "after": S, "call": ..., "sig": ..., "args": [...]}
      a host whose hooks answer: a new connection registers hooks (SetHooks APP F), allows every
      hook asked S seconds after it is asked, and makes one call; its answer, and "hooks": the
      members of the hooks asked (and notifications told) during it
  {"listen": APP, "flags": F}                            a host that only listens: a new connection registers hooks
                                                         (SetHooks APP F), kept until exit, allowing every hook asked
  {"heard": 0}                                           the members of the hooks the listeners were asked or told
  {"props": PATH}                                        Properties.GetAll of a store's object (its interface)
  {"prop": PATH, "name": NAME}                           Properties.Get of one property of a store's object
                                                         ("interface": another, as a login object's)
  {"signals": 0}                                         the PropertiesChanged this connection received
                                                         since the last ask (it listens for every one
                                                         the bus lets it, with an eavesdropping match too)
  {"monitor": 0}                                         ask the bus to become a monitor (a new connection)
  {"watchclose": N, "apps": [...]}                       N times: a new connection sends Watch of each app
                                                         without waiting for the replies, and closes
  {"load": S, "app": APP, "good": CODE, "start": SEED}    this uid doing everything at once for S seconds: verifies,
                                                         wrong guesses, state queries, watches, random calls, each
                                                         on a connection of its own, and a hooked staller; answers
                                                         the count of each outcome
"""
import json
import os
import random
import sys
import threading
import time

import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = PATH = IFACE = "org.libpasscode.Passcode1"
PATH = "/org/libpasscode/Passcode1"
ADDRESS = sys.argv[1]


def connect():
    return Gio.DBusConnection.new_for_address_sync(
        ADDRESS, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def answer_of(fn):
    try:
        v = fn()
        return {"ok": list(v.unpack()) if v is not None else []}
    except GLib.Error as e:
        name = Gio.DBusError.get_remote_error(e)
        message = e.message
        prefix = f"GDBus.Error:{name}: "
        return {"error": name, "message": message[len(prefix):] if message.startswith(prefix) else message}


def call(conn, method, sig, args, iface=IFACE, timeout=60000):
    body = GLib.Variant(sig, tuple(args)) if sig else None
    return answer_of(lambda: conn.call_sync(NAME, PATH, iface, method, body, None, Gio.DBusCallFlags.NONE, timeout, None))


def try_file(path):
    out = {}
    for what, fn in [("stat", lambda: os.stat(path)),
                     ("open-read", lambda: os.close(os.open(path, os.O_RDONLY))),
                     ("open-write", lambda: os.close(os.open(path, os.O_WRONLY))),
                     ("delete", lambda: os.unlink(path)),
                     ("list-folder", lambda: os.listdir(os.path.dirname(path))),
                     ("create-beside", lambda: os.close(os.open(path + "-planted", os.O_CREAT | os.O_WRONLY, 0o600)))]:
        try:
            fn()
            out[what] = "allowed"
        except OSError as e:
            out[what] = os.strerror(e.errno)
    return out


def many(n, method, sig, args):
    conns = [connect() for _ in range(n)]
    loop = GLib.MainLoop()
    results = []

    def done(conn, res):
        results.append(answer_of(lambda: conn.call_finish(res)))
        if len(results) == n:
            loop.quit()

    for c in conns:
        c.call(NAME, PATH, IFACE, method, GLib.Variant(sig, tuple(args)), None, Gio.DBusCallFlags.NONE, 120000, None, done)
    GLib.timeout_add_seconds(110, loop.quit)
    loop.run()
    return {"answered": len(results), "results": results}


def watch_and_close(n, apps):
    for _ in range(n):
        c = connect()
        for app in apps:
            c.call(NAME, PATH, IFACE, "Watch", GLib.Variant("(s)", (app,)), None, Gio.DBusCallFlags.NO_AUTO_START, 120000, None, None)
        c.flush_sync(None)
        c.close_sync(None)
    return {"ok": n}


stallers = []  # the staller's connections, kept open until the process ends
stall_seen = {"hooks asked": 0, "answers": {}, "hook timeouts": 0}
stall_lock = threading.Lock()
hook_asked = threading.Event()


def stall_filter(conn, message, incoming, *unused):
    """Every message that reaches a staller's connection after its SetHooks is dropped: the
    service's calls to its hooks are never answered (nor refused: no reply at all), and the
    answers to its queued calls are only counted."""
    if not incoming:
        return message
    with stall_lock:
        if message.get_message_type() == Gio.DBusMessageType.METHOD_CALL and message.get_path() == "/org/libpasscode/Hook":
            stall_seen["hooks asked"] += 1
            hook_asked.set()
        elif message.get_reply_serial():
            name = message.get_error_name() or "ok"
            stall_seen["answers"][name] = stall_seen["answers"].get(name, 0) + 1
            body = message.get_body() if name != "ok" else None
            text = body[0] if body is not None and body.n_children() > 0 and body.get_child_value(0).is_of_type(GLib.VariantType("s")) else ""
            if "did not answer its hook" in text:  # a call that waited out its hook's timeout in passcoded
                stall_seen["hook timeouts"] += 1
    return None


def stall(n, connections, app, flags, method, sig, args, fds=0):
    conns = [connect() for _ in range(connections)]
    carried = [os.open("/dev/null", os.O_RDONLY) for _ in range(fds)]
    for c in conns:  # every connection's hooks first: a SetHooks queued behind a stalled call would wait too
        r = call(c, "SetHooks", "(su)", [app, flags])
        if "error" in r:
            return r
    for c in conns:
        c.add_filter(stall_filter)
        for _ in range(n):  # sent at once, none waited for: the queue the service holds
            m = Gio.DBusMessage.new_method_call(NAME, PATH, IFACE, method)
            m.set_body(GLib.Variant(sig, tuple(args)))
            if carried:
                m.set_unix_fd_list(fd_list(carried))
            c.send_message(m, Gio.DBusSendMessageFlags.NONE)
        stallers.append(c)
    return {"queued": n * connections, "hook asked": hook_asked.wait(15)}


def hooked(app, flags, after, method, sig, args):
    c = connect()
    asked = []

    def on_message(conn, message, incoming, *unused):
        if not incoming or message.get_message_type() != Gio.DBusMessageType.METHOD_CALL or message.get_path() != "/org/libpasscode/Hook":
            return message
        asked.append(message.get_member())
        if message.get_flags() & Gio.DBusMessageFlags.NO_REPLY_EXPECTED:
            return None
        reply = Gio.DBusMessage.new_method_reply(message)
        reply.set_body(GLib.Variant("(s)", ("",)))  # "": allowed
        # Sent from a thread of its own: the filter runs on GDBus's worker, which must not block.
        timer = threading.Timer(after, lambda: conn.send_message(reply, Gio.DBusSendMessageFlags.NONE))
        timer.daemon = True
        timer.start()
        return None

    c.add_filter(on_message)
    r = call(c, "SetHooks", "(su)", [app, flags])
    if "error" in r:
        return r
    out = call(c, method, sig, args)
    out["hooks"] = list(asked)
    return out


listeners = []
heard_hooks = []


def listen_hooks(app, flags):
    c = connect()

    def on_message(conn, message, incoming, *unused):
        if not incoming or message.get_message_type() != Gio.DBusMessageType.METHOD_CALL or message.get_path() != "/org/libpasscode/Hook":
            return message
        with heard_lock:
            heard_hooks.append(message.get_member())
        if not message.get_flags() & Gio.DBusMessageFlags.NO_REPLY_EXPECTED:
            reply = Gio.DBusMessage.new_method_reply(message)
            reply.set_body(GLib.Variant("(s)", ("",)))
            threading.Thread(target=lambda: conn.send_message(reply, Gio.DBusSendMessageFlags.NONE), daemon=True).start()
        return None

    c.add_filter(on_message)
    r = call(c, "SetHooks", "(su)", [app, flags])
    listeners.append(c)
    return r


def load(seconds, app, good, start):
    end = time.monotonic() + seconds
    wrong_app = app + ".Wrong"
    outcomes = {}
    lock = threading.Lock()

    def count(what, r):
        with lock:
            key = what + " " + (r.get("error") or "ok").rsplit(".", 1)[-1]
            outcomes[key] = outcomes.get(key, 0) + 1

    def loop(what, body):
        conn = connect()
        i = 0
        while time.monotonic() < end:
            body(conn, i)
            i += 1

    first = connect()
    for a in (app, wrong_app):
        call(first, "SetPasscode", "(ss)", [a, good])  # AlreadySet from an earlier run is fine
    bodies = {
        "verify": lambda c, i: count("verify", call(c, "Verify", "(ss)", [app, good])),
        "wrong": lambda c, i: count("wrong", call(c, "Verify", "(ss)", [wrong_app, "%06d" % (i * 7919 % 1000000)])),
        "query": lambda c, i: count("query", call(c, "GetState" if i % 2 else "GetLockScreen", "(s)", [app])),
        # Five a second: a connection a call opened without pause is the bus daemon's load, not passcoded's.
        "watch": lambda c, i: (count("watch", watch_and_close(1, [app, wrong_app])), time.sleep(0.2)),
        "random": lambda c, i: [count("random", {"error": k}) for k in raw(4, c, start + i)["outcomes"]],
    }
    threads = [threading.Thread(target=loop, args=item, daemon=True) for item in bodies.items()]
    # The staller: two connections whose hooks never answer, 4 calls queued each (40 s of waits).
    threads.append(threading.Thread(target=lambda: stall(4, 2, app + ".Stall", 1 | 2 | 8, "Forgot", "(s)", [app + ".Stall"]),
                                    daemon=True))
    for t in threads:
        t.start()
    for t in threads[:-1]:
        t.join()
    return {"outcomes": outcomes}


def fd_list(fds):
    """A Gio.UnixFDList holding a copy of each of `fds` (the list takes its own duplicates)."""
    out = Gio.UnixFDList.new()
    for fd in fds:
        out.append(fd)
    return out


def raw(n, conn, start):
    rng = random.Random(start)
    names = ["GetState", "Verify", "SetPasscode", "SetSetting", "DisablePasscode", "EnablePasscode", "GetLockScreen",
             "GetLength", "SetLength", "Nope", "verify", "X" * 255]
    sigs = ["", "(s)", "(ss)", "(ay)", "(i)", "(si)", "(sss)", "(ssxs)", "(a{sv})", "(u)"]
    outcomes = {}
    for _ in range(n):
        method, sig = rng.choice(names), rng.choice(sigs)
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        vals = {"s": blob.decode("latin-1"), "ay": blob, "i": rng.randrange(-2**31, 2**31), "x": rng.randrange(-2**63, 2**63),
                "u": rng.randrange(2**32), "a{sv}": {"k": GLib.Variant("ay", blob)}}
        if sig in ("", None):
            args = []
        elif sig == "(ay)":
            args = [blob]
        elif sig == "(a{sv})":
            args = [vals["a{sv}"]]
        else:
            args = [vals[c] for c in sig.strip("()")]
        r = call(conn, method, sig, args, timeout=10000)
        key = r.get("error", "ok")
        outcomes[key] = outcomes.get(key, 0) + 1
    return {"outcomes": outcomes}


heard = []
heard_lock = threading.Lock()


def listen(conn):
    """Every PropertiesChanged this connection receives (a filter: GDBus's own thread, no main
    loop), as [sender, path, destination]; and matches asking the bus for all of them, an
    eavesdropping one too (the system bus's policy must give it nothing addressed to others)."""
    def on_message(c, message, incoming):
        if incoming and message.get_message_type() == Gio.DBusMessageType.SIGNAL and message.get_member() == "PropertiesChanged":
            with heard_lock:
                heard.append([message.get_sender(), message.get_path(), message.get_destination()])
        return message
    conn.add_filter(on_message)
    for rule in ("type='signal',interface='org.freedesktop.DBus.Properties'",
                 "type='signal',interface='org.freedesktop.DBus.Properties',eavesdrop='true'"):
        answer_of(lambda: conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
                                         GLib.Variant("(s)", (rule,)), None, Gio.DBusCallFlags.NONE, 10000, None))


def main():
    conn = connect()
    listen(conn)
    for line in sys.stdin:
        req = json.loads(line)
        if "file" in req:
            out = try_file(req["file"])
        elif "many" in req:
            out = many(req["many"], req["call"], req["sig"], req["args"])
        elif "own" in req:
            out = answer_of(lambda: conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                                                   GLib.Variant("(su)", (req["own"], 0)), None, Gio.DBusCallFlags.NONE, 10000, None))
        elif "stall" in req:
            out = stall(req["stall"], req.get("connections", 1), req["app"], req["flags"], req["call"], req["sig"], req["args"],
                        req.get("fds", 0))
        elif "load" in req:
            out = load(req["load"], req["app"], req["good"], req.get("start", 31))
        elif "listen" in req:
            out = listen_hooks(req["listen"], req["flags"])
        elif "heard" in req:
            with heard_lock:
                out = {"ok": list(heard_hooks)}
        elif "hooked" in req:
            out = hooked(req["hooked"], req["flags"], req.get("after", 0), req["call"], req["sig"], req["args"])
        elif "stalled" in req:
            with stall_lock:
                out = json.loads(json.dumps(stall_seen))
        elif "raw" in req:
            out = raw(req["raw"], conn, req.get("start", 31))
        elif "props" in req:
            out = answer_of(lambda: conn.call_sync(NAME, req["props"], "org.freedesktop.DBus.Properties", "GetAll",
                                                   GLib.Variant("(s)", ("org.libpasscode.Passcode1.Store",)), None,
                                                   Gio.DBusCallFlags.NONE, 10000, None))
            if "ok" in out:
                out["ok"] = [dict(out["ok"][0])]
        elif "prop" in req:
            out = answer_of(lambda: conn.call_sync(NAME, req["prop"], "org.freedesktop.DBus.Properties", "Get",
                                                   GLib.Variant("(ss)", (req.get("interface", "org.libpasscode.Passcode1.Store"), req["name"])), None,
                                                   Gio.DBusCallFlags.NONE, 10000, None))
        elif "signals" in req:
            with heard_lock:
                out = {"ok": list(heard)}
                heard.clear()
        elif "watchclose" in req:
            out = watch_and_close(req["watchclose"], req["apps"])
        elif "monitor" in req:
            out = answer_of(lambda: connect().call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Monitoring",
                                                        "BecomeMonitor", GLib.Variant("(asu)", (["type='signal'"], 0)), None,
                                                        Gio.DBusCallFlags.NONE, 10000, None))
        else:
            out = call(conn, req["call"], req.get("sig"), req.get("args", []), req.get("iface", IFACE))
        out["uid"] = os.getuid()
        print(json.dumps(out), flush=True)


main()
