#!/usr/bin/python3
# An attacker's relay (test_service.py mail_through_service): run as another uid, it binds the
# configured relay's loopback port while the real relay is down, answers SMTP, and prints on
# stdout what passcoded sent it ("bound" first, or "refused: ..." when the port cannot be bound).
import socket
import sys

port, wait = int(sys.argv[1]), float(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", port))
except OSError as e:
    print(f"refused: {e}", flush=True)
    sys.exit(0)
s.listen(4)
print("bound", flush=True)
s.settimeout(wait)
try:
    c, _ = s.accept()
except socket.timeout:
    sys.exit(0)
c.settimeout(wait)
f = c.makefile("rwb")
f.write(b"220 relay ESMTP\r\n"); f.flush()
data = False
while True:
    line = f.readline()
    if not line:
        break
    sys.stdout.write(line.decode("utf-8", "replace"))
    if data:
        if line in (b".\r\n", b".\n"):
            data = False
            f.write(b"250 OK\r\n"); f.flush()
        continue
    cmd = line[:4].upper()
    if cmd in (b"EHLO", b"HELO"):
        f.write(b"250 relay\r\n")
    elif cmd == b"DATA":
        data = True
        f.write(b"354 go\r\n")
    elif cmd == b"QUIT":
        f.write(b"221 bye\r\n"); f.flush()
        break
    else:
        f.write(b"250 OK\r\n")
    f.flush()
sys.stdout.flush()
