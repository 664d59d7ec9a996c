#!/usr/bin/python3
"""A caller that builds its own mount namespace after it connected, as any local user can: it
connects to passcoded's bus first (a single thread, with no library: a process with threads
cannot make a user namespace), then makes a user and mount namespace of its own, shaped by MODE:
  moved-overlay   a root (a tmpfs) whose /.flatpak-info, naming APP, is an overlay's file bound
                  there first, then moved on top of a tmpfs file bound there later: the mount
                  table's last line for /.flatpak-info names tmpfs, the file reached is the
                  overlay's (which may stack a FUSE mount whose daemon never answers).
It prints "READY", waits for a line on stdin, calls GetState(APP), prints the answer as one JSON
line, and waits for another line.
    namespaced_caller.py BUS-SOCKET FOLDER MODE APP"""
import ctypes
import json
import os
import socket
import struct
import sys

CLONE_NEWUSER, CLONE_NEWNS, MS_REC, MS_PRIVATE = 0x10000000, 0x00020000, 0x4000, 0x40000


def pad(b, n):
    return b + b"\0" * ((-len(b)) % n)


def string(s, code="s"):
    e = s.encode()
    return (struct.pack("<B", len(e)) if code == "g" else struct.pack("<I", len(e))) + e + b"\0"


class Bus:
    """Just enough D-Bus on one socket: EXTERNAL auth, method calls with string arguments, replies."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        line = b""
        while not line.endswith(b"\r\n"):
            line += self.s.recv(1)
        if not line.startswith(b"OK"):
            sys.exit(f"namespaced_caller: the bus refused: {line!r}")
        self.s.sendall(b"BEGIN\r\n")
        self.serial, self.buffer = 0, b""
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", [])

    def call(self, dest, path, interface, member, args):
        body = b""
        for a in args:
            body = pad(body, 4) + string(a)
        self.serial += 1
        fields = b""
        for code, typ, value in ((1, "o", path), (2, "s", interface), (3, "s", member), (6, "s", dest)) + (((8, "g", "s" * len(args)),) if args else ()):
            fields = pad(fields, 8) + struct.pack("<B", code) + string(typ, "g") + string(value, typ)
        header = struct.pack("<cBBBIII", b"l", 1, 0, 1, len(body), self.serial, len(fields)) + fields
        self.s.sendall(pad(header, 8) + body)
        while True:  # the reply to this call (signals and other messages are passed over)
            while len(self.buffer) < 16:
                self.buffer += self.recv()
            size, _, flen = struct.unpack("<III", self.buffer[4:16])
            total = 16 + flen + ((-(16 + flen)) % 8) + size
            while len(self.buffer) < total:
                self.buffer += self.recv()
            message, self.buffer = self.buffer[:total], self.buffer[total:]
            kind, fields, body = message[1], message[16:16 + flen], message[total - size:]
            reply, error, i = None, None, 0
            while i < len(fields):
                i += (-i) % 8
                code, n = fields[i], fields[i + 1]
                typ = fields[i + 2:i + 2 + n].decode()
                i += 3 + n
                if typ == "u":
                    i += (-i) % 4
                    value, i = struct.unpack("<I", fields[i:i + 4])[0], i + 4
                elif typ in "so":
                    i += (-i) % 4
                    n = struct.unpack("<I", fields[i:i + 4])[0]
                    value, i = fields[i + 4:i + 4 + n].decode(), i + 5 + n
                else:  # "g"
                    n = fields[i]
                    value, i = fields[i + 1:i + 1 + n].decode(), i + 2 + n
                if code == 5:
                    reply = value
                if code == 4:
                    error = value
            if kind in (2, 3) and reply == self.serial:
                text = body[4:4 + struct.unpack("<I", body[:4])[0]].decode(errors="replace") if kind == 3 and len(body) >= 4 else ""
                return {"error": error.rsplit(".", 1)[-1], "message": text} if kind == 3 else {"ok": True}

    def recv(self):
        data = self.s.recv(65536)
        if not data:
            sys.exit("namespaced_caller: the bus closed the connection")
        return data


MS_BIND, MS_MOVE = 0x1000, 0x2000


def mount(source, target, kind, flags=0, data=None):
    if libc.mount(source.encode() if source else None, target.encode(), kind.encode() if kind else None, flags,
                  data.encode() if data else None) != 0:
        sys.exit(f"namespaced_caller: mount {kind or source} on {target}: {os.strerror(ctypes.get_errno())}")


socket_path, folder, mode, app = sys.argv[1:5]
bus = Bus(socket_path)
uid, gid = os.getuid(), os.getgid()
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
    sys.exit(f"namespaced_caller: unshare: {os.strerror(ctypes.get_errno())}")
for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
    with open(f"/proc/self/{name}", "w") as f:
        f.write(text)
mount("none", "/", None, MS_REC | MS_PRIVATE)
mount("none", folder, "tmpfs")
os.chdir(folder)
if mode == "moved-overlay":
    for d in ("root", "lower", "empty", "overlay"):
        os.mkdir(d)
    mount("none", "root", "tmpfs", 0, "mode=0755")
    for path in ("lower/.flatpak-info", "root/.flatpak-info", "root/.tmpfs-file", "stage"):
        with open(path, "w") as f:
            f.write(f"[Application]\nname={app}\n")
    mount("overlay", "overlay", "overlay", 0, f"lowerdir={folder}/lower:{folder}/empty")
    mount(f"{folder}/overlay/.flatpak-info", "stage", None, MS_BIND)              # the overlay's file, bound first
    mount(f"{folder}/root/.tmpfs-file", "root/.flatpak-info", None, MS_BIND)     # a tmpfs file, bound later
    mount(f"{folder}/stage", "root/.flatpak-info", None, MS_MOVE)                # the first moved on top
    os.chroot("root")
    os.chdir("/")
else:
    sys.exit(f"namespaced_caller: unknown mode {mode}")
print("READY", flush=True)
sys.stdin.readline()
print(json.dumps(bus.call("org.libpasscode.Passcode1", "/org/libpasscode/Passcode1", "org.libpasscode.Passcode1", "GetState", [app])), flush=True)
sys.stdin.readline()
