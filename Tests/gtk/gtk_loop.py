"""What the GTK tests share: the mail relay's handler, a free loopback port, and the GLib main
loop run for a while or until a condition holds (D-Bus signals, idle callbacks and AT-SPI's
events arrive through it)."""
import email
import socket
import time

from gi.repository import GLib


class Mailbox:
    """aiosmtpd's handler: keeps every message the server received."""

    def __init__(self):
        self.messages = []
        self.refuse = False  # the relay refuses every mail (a relay that will not take it)

    async def handle_DATA(self, server, session, envelope):
        if self.refuse:
            return "554 5.7.1 relaying refused"
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spin(seconds=0.05):
    """Runs the GLib main loop for `seconds`."""
    ctx = GLib.MainContext.default()
    end = time.monotonic() + seconds
    while True:
        while ctx.pending():
            ctx.iteration(False)
        if time.monotonic() >= end:
            break
        time.sleep(0.005)


def spin_until(cond, timeout=5.0, ignore=()):
    """Runs the main loop until cond() holds (True) or `timeout` passes (cond()'s last answer);
    an exception of the types in `ignore` counts as "not yet"."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        spin(0.02)
        try:
            if cond():
                return True
        except ignore:
            pass
    return cond()
