"""A byte relay in the place of xdg-dbus-proxy, for the library's own client where the installed
xdg-dbus-proxy cannot carry sd-bus's connections (before 0.1.6, which Debian 12's 0.1.4 is:
sd-bus sends its authentication and BEGIN at once, and the older proxy then reads the bus's
answers as messages). Like the proxy it runs as the user in a bubblewrap of its own holding the
app's /.flatpak-info, makes the sandbox's socket, and holds its own connection to the bus for each
of the app's: the bus sees its pid, as it sees the proxy's. It filters nothing.

    relay.py UPSTREAM_SOCKET LISTEN_SOCKET"""
import os
import socket
import sys
import threading


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main(upstream, path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    while True:
        client, _ = server.accept()
        bus = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        bus.connect(upstream)
        for a, b in ((client, bus), (bus, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
