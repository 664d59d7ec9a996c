"""desktop.py: the Linux desktop around the GTK front end, through Gio's D-Bus and smtplib.

- Logind: the manager's PrepareForSleep (true: going to sleep, false: resumed) and the session's
  Lock signal (the screen is being locked: lock the app now).
- Fingerprint: fprintd (net.reactivated.Fprint): the default device, the user's enrolled fingers,
  and one verification at a time.
- Mail: the reset code as a real email through SMTP; server, sender and recipient from options or
  ~/.config/libpasscode-demo/mail.ini.

Nothing here decides anything about the passcode: it reports to the library what happened.
"""
import configparser
import os
import smtplib
import socket
from email.message import EmailMessage
from typing import Callable, List, Optional

from gi.repository import Gio, GLib

LOGIN1 = "org.freedesktop.login1"
LOGIN1_PATH = "/org/freedesktop/login1"
LOGIN1_MANAGER = "org.freedesktop.login1.Manager"
LOGIN1_SESSION = "org.freedesktop.login1.Session"
FPRINT = "net.reactivated.Fprint"
FPRINT_MANAGER_PATH = "/net/reactivated/Fprint/Manager"
FPRINT_MANAGER = "net.reactivated.Fprint.Manager"
FPRINT_DEVICE = "net.reactivated.Fprint.Device"
TIMEOUT_MS = 5000


def system_bus() -> Optional[Gio.DBusConnection]:
    """The system bus (DBUS_SYSTEM_BUS_ADDRESS when set, as the tests' private bus is), or None."""
    try:
        return Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    except GLib.Error:
        return None


def _call(bus: Gio.DBusConnection, name: str, path: str, iface: str, method: str,
          args: Optional[GLib.Variant], reply: Optional[str]) -> tuple:
    result = bus.call_sync(name, path, iface, method, args, GLib.VariantType(reply) if reply else None,
                           Gio.DBusCallFlags.NONE, TIMEOUT_MS, None)
    return result.unpack() if result is not None else ()


class Logind:
    """Suspend/resume and the session's Lock signal, from systemd-logind."""

    def __init__(self, bus: Optional[Gio.DBusConnection], on_sleep: Callable[[bool], None],
                 on_lock: Callable[[], None]):
        self.bus = bus
        self.session_path = ""
        self._subscriptions: List[int] = []
        if bus is None:
            return
        self._subscriptions.append(bus.signal_subscribe(
            LOGIN1, LOGIN1_MANAGER, "PrepareForSleep", LOGIN1_PATH, None, Gio.DBusSignalFlags.NONE,
            lambda _c, _s, _p, _i, _n, params: on_sleep(bool(params.unpack()[0]))))
        self.session_path = self._find_session()
        self._subscriptions.append(bus.signal_subscribe(
            LOGIN1, LOGIN1_SESSION, "Lock", self.session_path, None, Gio.DBusSignalFlags.NONE,
            lambda *_: on_lock()))

    def _find_session(self) -> str:
        """Our session's object path: by XDG_SESSION_ID, else by our PID, else logind's "auto"."""
        assert self.bus is not None
        sid = os.environ.get("XDG_SESSION_ID")
        try:
            if sid:
                return str(_call(self.bus, LOGIN1, LOGIN1_PATH, LOGIN1_MANAGER, "GetSession",
                                 GLib.Variant("(s)", (sid,)), "(o)")[0])
            return str(_call(self.bus, LOGIN1, LOGIN1_PATH, LOGIN1_MANAGER, "GetSessionByPID",
                             GLib.Variant("(u)", (os.getpid(),)), "(o)")[0])
        except GLib.Error:
            return LOGIN1_PATH + "/session/auto"

    def close(self) -> None:
        if self.bus is not None:
            for sub in self._subscriptions:
                self.bus.signal_unsubscribe(sub)
        self._subscriptions = []


class Fingerprint:
    """fprintd's default reader: whether it can unlock (a device and an enrolled finger), and one
    verification at a time. The result reaches `done` as fprintd's string: "verify-match",
    "verify-no-match", or an error such as "verify-unknown-error"."""

    def __init__(self, bus: Optional[Gio.DBusConnection], username: str):
        self.bus = bus
        self.username = username
        self.device = ""
        self.problem = ""
        self._sub = 0
        self._claimed = ""  # the device a verification runs on (stopped there, whatever `device` says now)
        self._done: Optional[Callable[[str], None]] = None

    def available(self) -> bool:
        """Asks fprintd now: a default device with at least one enrolled finger."""
        self.device = ""
        if self.bus is None:
            self.problem = "no system bus"
            return False
        try:
            device = str(_call(self.bus, FPRINT, FPRINT_MANAGER_PATH, FPRINT_MANAGER, "GetDefaultDevice", None, "(o)")[0])
            fingers = _call(self.bus, FPRINT, device, FPRINT_DEVICE, "ListEnrolledFingers",
                            GLib.Variant("(s)", (self.username,)), "(as)")[0]
        except GLib.Error as e:
            self.problem = e.message
            return False
        if not fingers:
            self.problem = "no finger enrolled"
            return False
        self.device, self.problem = device, ""
        return True

    @property
    def verifying(self) -> bool:
        return self._done is not None

    def verify(self, done: Callable[[str], None]) -> bool:
        """Claims the reader and starts a verification; `done` hears the result once. False when
        it could not start (the reader is gone or busy); `problem` says why."""
        if self._done is not None or (not self.device and not self.available()):
            return False
        assert self.bus is not None
        self._done = done
        self._claimed = self.device
        self._sub = self.bus.signal_subscribe(FPRINT, FPRINT_DEVICE, "VerifyStatus", self.device, None,
                                              Gio.DBusSignalFlags.NONE, self._status)
        try:
            _call(self.bus, FPRINT, self.device, FPRINT_DEVICE, "Claim", GLib.Variant("(s)", (self.username,)), None)
            _call(self.bus, FPRINT, self.device, FPRINT_DEVICE, "VerifyStart", GLib.Variant("(s)", ("any",)), None)
        except GLib.Error as e:
            self.problem = e.message
            self._finish(None)
            return False
        return True

    def _status(self, _c, _s, _p, _i, _n, params: GLib.Variant) -> None:
        result, finished = params.unpack()
        if finished or result in ("verify-match", "verify-no-match"):
            self._finish(str(result))

    def _finish(self, result: Optional[str]) -> None:
        done, self._done = self._done, None
        if self.bus is not None and self._sub:
            self.bus.signal_unsubscribe(self._sub)
            self._sub = 0
        claimed, self._claimed = self._claimed, ""
        if self.bus is not None and claimed:
            for method in ("VerifyStop", "Release"):
                try:
                    _call(self.bus, FPRINT, claimed, FPRINT_DEVICE, method, None, None)
                except GLib.Error:
                    pass
        if done is not None and result is not None:
            done(result)

    def cancel(self) -> None:
        if self._done is not None:
            self._finish(None)


class Mailer:
    """Sends the reset code by SMTP. Settings: options (the front end's --smtp HOST[:PORT], else
    $PASSCODE_DEMO_SMTP), else the [smtp] section of $XDG_CONFIG_HOME/libpasscode-demo/mail.ini
    (host, port, from, to), else localhost:25 and the user's local mailbox."""

    def __init__(self, host: Optional[str] = None, port: Optional[int] = None,
                 sender: Optional[str] = None, recipient: Optional[str] = None,
                 config: Optional[str] = None):
        cfg = configparser.ConfigParser()
        cfg.read(config or self.config_path())
        smtp = cfg["smtp"] if cfg.has_section("smtp") else {}
        user = os.environ.get("USER") or "user"
        self.host = host or smtp.get("host", "localhost")
        self.port = int(port or smtp.get("port", "25"))
        self.sender = sender or smtp.get("from", "libpasscode demo <noreply@%s>" % socket.gethostname())
        self.recipient = recipient or smtp.get("to", "%s@localhost" % user)

    @staticmethod
    def config_path() -> str:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        return os.path.join(base, "libpasscode-demo", "mail.ini")

    def masked_recipient(self) -> str:
        """j***@example.com: enough for the user to recognise the address on a lock screen."""
        name, _, domain = self.recipient.rpartition("<")[2].rstrip(">").partition("@")
        return (name[:1] + "***@" + domain) if domain else name[:1] + "***"

    def send(self, code: str, lifetime_seconds: int) -> None:
        """Raises MailError (an OSError) with a message that never contains the code."""
        msg = EmailMessage()
        msg["Subject"] = "Your passcode reset code"
        msg["From"] = self.sender
        msg["To"] = self.recipient
        minutes = max(1, lifetime_seconds // 60)
        msg.set_content(
            "Your reset code is %s.\n\nEnter it in the app to choose a new passcode. It expires in %d minute%s.\n"
            "If you did not ask for it, ignore this email: your passcode stays as it is.\n"
            % (code, minutes, "" if minutes == 1 else "s"))
        try:
            with smtplib.SMTP(self.host, self.port, timeout=10) as smtp:
                smtp.send_message(msg)
        except (OSError, smtplib.SMTPException) as e:
            # The exception's own text may quote the message; say only where and, in words a
            # person reads (no exception names), why it failed.
            raise MailError(self.host, self.port, send_failure(e),
                            isinstance(e, (ConnectionRefusedError, TimeoutError, socket.timeout))) from None
        finally:
            msg.set_content("")


#: The local sink the message suggests when no mail server answers (it prints every mail it
#: receives, and listens on localhost:8025).
SINK_COMMAND = "python3 -m aiosmtpd -n"
SINK_PORT = 8025


class MailError(OSError):
    """A send that failed: where (host, port), why (`reason`, a clause for a person), and whether
    nothing answered there (`no_server`: refused or silent, so a local sink would help)."""

    def __init__(self, host: str, port: int, reason: str, no_server: bool):
        self.host, self.port, self.reason, self.no_server = host, port, reason, no_server
        super().__init__("could not send the email through %s:%d: %s" % (host, port, reason))


def send_failure(e: BaseException) -> str:
    """Why a send failed, as a clause for a person: never an exception's name or its text (which
    may quote the message, and so the code)."""
    if isinstance(e, ConnectionRefusedError):
        return "the server refused the connection"
    if isinstance(e, (TimeoutError, socket.timeout)):
        return "the server did not answer"
    if isinstance(e, socket.gaierror):
        return "the server's name is unknown"
    if isinstance(e, smtplib.SMTPAuthenticationError):
        return "the server did not accept the sign-in"
    if isinstance(e, smtplib.SMTPRecipientsRefused):
        return "the server refused the recipient"
    if isinstance(e, smtplib.SMTPServerDisconnected):
        return "the server closed the connection"
    if isinstance(e, smtplib.SMTPException):
        return "the server refused the message"
    if isinstance(e, OSError) and e.errno:
        return os.strerror(e.errno).lower()
    return "the server could not be reached"
