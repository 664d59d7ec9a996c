"""The GTK front end (examples/gtk) under Xvfb, with the desktop around it faked the way Linux
tests do: python-dbusmock's logind and our fprintd template on a private system bus, and aiosmtpd
as the mail server on loopback. Asserts on widget state; saves a screenshot of every screen to
$SCREENSHOT_DIR (make screenshots: docs/screenshots).

    xvfb-run -a /usr/bin/python3 -m unittest Tests/gtk/test_gtk.py      (scripts/check_gtk.sh)
"""
import email
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import dbus
import dbusmock
import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Adw", "1")
from aiosmtpd.controller import Controller  # noqa: E402
from gi.repository import Adw, Gdk, GLib, Gtk  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "gtk"))
import desktop  # noqa: E402
import passcode  # noqa: E402
import passcode_gtk as pg  # noqa: E402
from passcode import Event, FlowKind, FlowStep, LockReason, SecurityEvent, Setting  # noqa: E402

SHOTS = os.environ.get("SCREENSHOT_DIR") or os.path.join(HERE, "..", "..", "build", "screenshots")
PASSCODE, OTHER = "258036", "395172"
SESSION = "/org/freedesktop/login1/session/c1"


class Mailbox:
    """aiosmtpd's handler: keeps every message the server received."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spin(seconds=0.05):
    """Runs the GLib main loop for a while: D-Bus signals and idle callbacks arrive."""
    ctx = GLib.MainContext.default()
    end = time.monotonic() + seconds
    while True:
        while ctx.pending():
            ctx.iteration(False)
        if time.monotonic() >= end:
            break
        time.sleep(0.005)


def spin_until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        spin(0.02)
        if cond():
            return True
    return cond()


def widgets(root):
    """Every widget under root, depth first."""
    stack = [root]
    while stack:
        w = stack.pop()
        yield w
        child = w.get_last_child()
        while child is not None:
            stack.append(child)
            child = child.get_prev_sibling()


class GtkFrontEnd(dbusmock.DBusTestCase):
    @classmethod
    def setUpClass(cls):
        cls.start_system_bus()
        cls.dbus_con = cls.get_dbus(system_bus=True)
        cls.logind, cls.logind_obj = cls.spawn_server_template("logind", {}, stdout=subprocess.DEVNULL)
        cls.logind_obj.AddSession("c1", "seat0", dbus.UInt32(os.getuid()), "alice", True, dbus_interface=dbusmock.MOCK_IFACE)
        os.environ["XDG_SESSION_ID"] = "c1"
        cls.fprintd, cls.fprintd_obj = cls.spawn_server_template(os.path.join(HERE, "fprintd_template.py"), {},
                                                                 stdout=subprocess.DEVNULL)
        cls.reader = str(cls.fprintd_obj.AddDevice("Synaptics Sensor", ["right-index-finger"],
                                                   dbus_interface=dbusmock.MOCK_IFACE))
        cls.mailbox = Mailbox()
        cls.smtp_port = free_port()
        cls.smtp = Controller(cls.mailbox, hostname="127.0.0.1", port=cls.smtp_port)
        cls.smtp.start()
        Adw.init()
        cls.application = Adw.Application(application_id="org.libpasscode.DemoTest", flags=0)
        cls.application.register(None)
        os.makedirs(SHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.smtp.stop()
        for p in (cls.logind, cls.fprintd):
            p.terminate()
            p.wait()
        super().tearDownClass()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.clock = [1_000_000, 1_767_225_600_000, 1]  # boot ms, wall ms, boot id
        self.fprintd_obj.SetEnrolledFingers(self.reader, ["right-index-finger"], dbus_interface=dbusmock.MOCK_IFACE)
        self.mailbox.messages.clear()
        self.app = self.open_app()

    def tearDown(self):
        self.close_app()
        self.tmp.cleanup()

    def open_app(self, mail_port=None):
        mailer = desktop.Mailer("127.0.0.1", mail_port or self.smtp_port, "demo@example.org", "alice@example.org",
                                config=os.devnull)
        app = pg.App(self.application, os.path.join(self.tmp.name, "demo.db"), clock=lambda: tuple(self.clock),
                     mailer=mailer, bus=desktop.system_bus(), username="alice")
        app.window.present()
        spin(0.2)
        return app

    def close_app(self):
        if self.app.sheet:
            self.app.sheet.destroy()
        if self.app.dialog:
            self.app.dialog.destroy()
        self.app.window.destroy()
        self.app.close()
        spin(0.05)

    # -- helpers --
    def advance(self, seconds):
        self.clock[0] += seconds * 1000
        self.clock[1] += seconds * 1000

    def shot(self, name, widget=None):
        spin(0.6)  # animations (the shake, page transitions) end
        pg.save_png(widget or self.app.window, os.path.join(SHOTS, name + ".png"))

    def type_keys(self, pad, digits):
        """Through the key handler, as the keyboard does (digits, keypad digits, BackSpace)."""
        for ch in digits:
            handled = pad.key_pressed(Gdk.keyval_from_name(ch))
            self.assertTrue(handled, ch)
        spin()

    def click_digits(self, pad, digits):
        for ch in digits:
            pad.keys[ch].emit("clicked")
        spin()

    def create(self, digits=PASSCODE):
        self.app.views.set_visible_child_name("security")
        self.app.lock_switch.set_active(True)  # the switch opens the create sheet
        sheet = self.app.sheet
        self.assertIsNotNone(sheet)
        self.click_digits(sheet.pad, digits)
        self.assertEqual(sheet.pad.title.get_label(), "Confirm passcode")
        self.click_digits(sheet.pad, digits)
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.is_enabled)
        self.assertTrue(self.app.lock_switch.get_active())

    def lock_visible(self):
        return self.app.lock_box.get_visible()

    def emit_sleep(self, sleeping):
        self.logind_obj.EmitSignal("org.freedesktop.login1.Manager", "PrepareForSleep", "b", [sleeping],
                                   dbus_interface=dbusmock.MOCK_IFACE)

    # -- the tests --
    def test_create_change_disable_enable(self):
        self.shot("01-security-no-passcode")
        self.assertFalse(self.app.lock_switch.get_active())
        self.assertFalse(self.app.change_row.get_sensitive())
        self.app.views.set_visible_child_name("security")
        self.app.lock_switch.set_active(True)
        sheet = self.app.sheet
        self.type_keys(sheet.pad, "1234")  # a weak one: refused with the library's reason
        self.type_keys(sheet.pad, "56")
        self.assertIn("harder passcode", sheet.pad.error.get_label())
        self.assertTrue(sheet.pad.error.get_visible())
        self.type_keys(sheet.pad, "2580")
        self.type_keys(sheet.pad, ["BackSpace"])
        self.assertEqual(sheet.pad.flow.dots, (3, 6))
        self.shot("02-create-sheet", sheet)
        self.type_keys(sheet.pad, ["0", "KP_3", "KP_6"])  # the keypad's digits too
        self.assertEqual(sheet.pad.title.get_label(), "Confirm passcode")
        self.type_keys(sheet.pad, PASSCODE)
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.is_enabled)
        self.assertEqual(self.app.last_toast, "Passcode created")
        self.shot("03-security-passcode-on")
        # change (seed 001): current, new, confirm
        self.app.change_row.emit("activated")
        sheet = self.app.sheet
        self.assertEqual(sheet.get_title(), "Change Passcode")
        self.click_digits(sheet.pad, "111222")
        self.assertEqual(sheet.pad.shake_count, 1)
        self.click_digits(sheet.pad, PASSCODE + OTHER + OTHER)
        self.assertIsNone(self.app.sheet)
        self.assertEqual(self.app.last_toast, "Passcode changed")
        # disable (seed 000): the switch off asks for the passcode
        self.app.lock_switch.set_active(False)
        sheet = self.app.sheet
        self.assertEqual(sheet.get_title(), "Turn Passcode Off")
        self.assertTrue(self.app.store.is_enabled)  # nothing changes until the passcode is entered
        self.click_digits(sheet.pad, OTHER)
        self.assertFalse(self.app.store.is_enabled)
        self.assertFalse(self.app.lock_switch.get_active())
        # Escape on a sheet cancels it and changes nothing
        self.app.lock_switch.set_active(True)  # enable: strengthening, no sheet
        self.assertTrue(self.app.store.is_enabled)
        self.assertIsNone(self.app.sheet)
        self.app.lock_switch.set_active(False)
        sheet = self.app.sheet
        sheet._key(None, Gdk.KEY_Escape, 0, 0)
        spin()
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.is_enabled)
        self.assertTrue(self.app.lock_switch.get_active())

    def test_lock_on_suspend_and_resume(self):
        self.create()
        self.app.autolock_row.set_selected(self.app.autolock_choices.index(60))  # shorter: no proof needed
        self.assertEqual(self.app.store.get(Setting.AUTO_LOCK_SECONDS), 60)
        self.emit_sleep(True)
        self.assertTrue(spin_until(lambda: self.app.store.lock_state == (False, LockReason.NONE) and
                                   self._logged(SecurityEvent.SETTING_CHANGED)))
        self.advance(30)  # a short sleep: still unlocked on resume
        self.emit_sleep(False)
        spin(0.3)
        self.assertFalse(self.lock_visible())
        self.emit_sleep(True)
        spin(0.3)
        self.advance(600)  # asleep for 10 minutes, longer than the auto-lock
        self.emit_sleep(False)
        self.assertTrue(spin_until(self.lock_visible))
        self.assertEqual(self.app.store.lock_state, (True, LockReason.BACKGROUND))
        self.assertEqual(self.app.note_view.get_buffer().get_char_count(), 0)
        self.click_digits(self.app.lock_view.pad, PASSCODE)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))

    def test_session_lock_signal_locks_now(self):
        self.create()
        self.assertFalse(self.lock_visible())
        self.assertIsNotNone(self.app._toast)  # "Passcode created"
        self.dbus_con.get_object("org.freedesktop.login1", SESSION).Lock(dbus_interface="org.freedesktop.login1.Session")
        self.assertTrue(spin_until(self.lock_visible))
        self.assertEqual(self.app.store.lock_state, (True, LockReason.REQUESTED))
        self.assertIsNone(self.app._toast)  # dismissed with the content it belonged to
        self.shot("04-lock-screen")

    def test_window_hidden_is_background(self):
        self.create()
        self.app.window.set_visible(False)
        spin(0.1)
        self.advance(16 * 60)  # the default auto-lock is 15 minutes
        self.app.window.set_visible(True)
        self.assertTrue(spin_until(self.lock_visible))
        self.assertEqual(self.app.store.lock_state, (True, LockReason.BACKGROUND))

    def test_wrong_passcode_shake_lockout_countdown_and_notice(self):
        self.create()
        self.app.report(Event.LOCK_NOW)
        pad = self.app.lock_view.pad
        self.click_digits(pad, "111222")
        self.assertEqual(pad.shake_count, 1)
        self.assertIn("shake", pad.dots.get_css_classes())
        self.assertEqual(pad.error.get_label(), "Incorrect passcode")
        self.assertTrue(pad.error.get_visible())
        self.shot("05-lock-wrong-passcode")
        for wrong in ("111223", "111224", "111225", "111226"):  # a repeated wrong one counts once
            self.click_digits(pad, wrong)
        self.assertEqual(pad.flow.step, FlowStep.LOCKED_OUT)
        self.assertTrue(pad.countdown.get_visible())
        self.assertEqual(pad.countdown.get_label(), "Try again in 1:00")
        self.assertFalse(pad.error.get_visible())  # the countdown says it once
        self.assertFalse(pad.grid.get_sensitive())
        self.shot("06-lock-lockout")
        self.advance(25)
        self.app._tick()
        self.assertEqual(pad.countdown.get_label(), "Try again in 0:35")
        self.advance(35)
        self.app._tick()
        self.assertFalse(pad.countdown.get_visible())
        self.assertTrue(pad.grid.get_sensitive())
        self.click_digits(pad, PASSCODE)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        self.assertEqual(self.app.last_toast, "5 failed attempts since your last unlock")
        self.shot("07-unlocked-notice")
        self.app.views.set_visible_child_name("log")
        spin()
        titles = [r.get_title() for r in self.app.log_rows]
        self.assertEqual(titles[:3], ["Unlocked by passcode", "Lockout started", "Failed attempt"])
        self.assertEqual(titles.count("Failed attempt"), 5)
        self.assertIn("Lockout started", titles)
        self.shot("08-security-log")

    def test_fingerprint_match_and_no_match(self):
        self.create()
        self.assertEqual(self.app.passcode_group.get_title(), "Passcode & Fingerprint")
        self.assertTrue(self.app.bio_row.get_visible())
        self.app.bio_switch.set_active(True)  # weakening, but the passcode was just entered
        self.assertTrue(self.app.store.get(Setting.BIOMETRIC_ENABLED))
        self.app.report(Event.LOCK_NOW)
        bio = self.app.lock_view.bio_button
        self.assertTrue(bio.get_visible())
        self.shot("09-lock-fingerprint")
        bio.emit("clicked")  # the reader waits for a finger
        spin(0.2)
        self.assertEqual(bio.get_child().get_label(), "Touch the fingerprint reader…")
        self.assertTrue(self.lock_visible())
        self.fprintd_obj.QueueVerifyResult(self.reader, "verify-no-match", dbus_interface=dbusmock.MOCK_IFACE)
        self.assertTrue(spin_until(lambda: self._logged(SecurityEvent.BIOMETRIC_FAILED)))
        self.assertEqual(self._count(SecurityEvent.BIOMETRIC_FAILED), 1)
        self.assertTrue(self.lock_visible())
        self.assertIn("not recognised", self.app.lock_view.pad.error.get_label())
        self.assertEqual(self.app.lock_view.pad.shake_count, 1)
        self.fprintd_obj.QueueVerifyResult(self.reader, "verify-match", dbus_interface=dbusmock.MOCK_IFACE)
        bio.emit("clicked")
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        self.assertEqual(self._count(SecurityEvent.BIOMETRIC_FAILED), 1)
        self.assertTrue(self._logged(SecurityEvent.UNLOCKED_BY_BIOMETRICS))
        # no enrolled finger: fprintd says so, the library hears "no biometrics", the switch goes
        self.fprintd_obj.SetEnrolledFingers(self.reader, dbus.Array([], signature="s"), dbus_interface=dbusmock.MOCK_IFACE)
        self.app.update_biometrics()
        self.app.refresh()
        self.assertFalse(self.app.bio_row.get_visible())
        self.app.report(Event.LOCK_NOW)
        self.assertFalse(self.app.lock_view.bio_button.get_visible())

    def test_reset_through_the_email_received(self):
        self.create()
        self.app.views.set_visible_child_name("security")
        self.app.reset_row.emit("activated")
        sheet = self.app.sheet
        self.assertEqual(sheet.stack.get_visible_child_name(), "request")
        self.shot("10-reset-request", sheet)
        sheet.send_button.emit("clicked")
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1))
        msg = self.mailbox.messages[0]
        self.assertEqual(msg["To"], "alice@example.org")
        self.assertEqual(msg["Subject"], "Your passcode reset code")
        code = re.search(r"reset code is (\d+)\.", msg.get_payload()).group(1)
        self.assertEqual(sheet.pad.flow.step, FlowStep.ENTER_CODE)
        self.shot("11-reset-code", sheet)
        self.click_digits(sheet.pad, code)
        self.assertEqual(sheet.pad.flow.step, FlowStep.ENTER_NEW)
        self.click_digits(sheet.pad, OTHER + OTHER)
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self._logged(SecurityEvent.RESET_COMPLETED))
        self.app.report(Event.LOCK_NOW)
        self.click_digits(self.app.lock_view.pad, OTHER)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))

    def test_reset_email_that_cannot_be_sent(self):
        self.close_app()
        self.app = self.open_app(mail_port=free_port())  # nobody listens there
        self.create()
        self.app.reset_row.emit("activated")
        sheet = self.app.sheet
        sheet.send_button.emit("clicked")
        spin()
        self.assertTrue(sheet.request_error.get_visible())
        self.assertIn("Could not send the email through 127.0.0.1", sheet.request_error.get_label())
        self.assertEqual(sheet.stack.get_visible_child_name(), "request")
        self.assertTrue(self._logged(SecurityEvent.RESET_CODE_DELIVERY_FAILED))
        self.assertEqual(self.mailbox.messages, [])

    def test_forgot_passcode(self):
        self.create()
        self.app.report(Event.LOCK_NOW)
        self.app.lock_view.forgot_button.emit("clicked")
        spin()
        self.assertIsNotNone(self.app.dialog)
        self.shot("12-forgot-confirm", self.app.dialog)
        self.app.dialog.response("cancel")
        spin()
        self.assertEqual(self.app.lock_view.get_visible_child_name(), "pad")
        self.assertTrue(self.app.store.is_set)
        self.app.lock_view.forgot_button.emit("clicked")
        self.app.dialog.response("sign-out")
        spin()
        self.assertEqual(self.app.lock_view.get_visible_child_name(), "signed-out")
        self.assertEqual(self.app.store.lock_state, (True, LockReason.LOGGED_OUT))
        self.shot("13-signed-out")
        self.app.sign_in_again()
        self.click_digits(self.app.sheet.pad, OTHER + OTHER)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))

    def test_weakening_needs_the_passcode(self):
        self.create()
        self.advance(5 * 60 + 1)  # the proof from creating it is older than 5 minutes
        self.app.launch_switch.set_active(False)  # weakening
        spin()
        sheet = self.app.sheet
        self.assertIsNotNone(sheet)
        self.assertEqual(sheet.get_title(), "Confirm Passcode")
        self.assertTrue(self.app.store.get(Setting.LOCK_AT_LAUNCH))
        self.assertTrue(self.app.launch_switch.get_active())  # shows what is stored
        self.shot("14-confirm-passcode", sheet)
        self.click_digits(sheet.pad, PASSCODE)
        self.assertFalse(self.app.store.get(Setting.LOCK_AT_LAUNCH))
        self.assertFalse(self.app.launch_switch.get_active())
        self.app.launch_switch.set_active(True)  # strengthening: no sheet
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.get(Setting.LOCK_AT_LAUNCH))

    def test_account_devices_password_and_delete(self):
        self.create()
        self.app.views.set_visible_child_name("account")
        spin()
        titles = [r.get_title() for r in self.app.device_rows]
        self.assertEqual(len(titles), 3)
        self.assertIn("Pixel 8", titles)
        current = [r for r in self.app.device_rows if any(
            isinstance(w, Gtk.Label) and w.get_label() == "This device" for w in widgets(r))]
        self.assertEqual(len(current), 1)
        self.assertEqual(current[0].get_title(), socket.gethostname())
        self.app.password_form.set_expanded(True)
        self.app.pw_current.set_text("old password")
        self.app.pw_new.set_text("short")
        self.app.pw_confirm.set_text("short")
        self.app.change_password()
        self.assertTrue(self.app.pw_error.get_visible())
        self.shot("15-account")
        self.app.pw_new.set_text("a much longer one")
        self.app.pw_confirm.set_text("a much longer one")
        self.app.change_password()
        self.assertFalse(self.app.pw_error.get_visible())
        self.assertNotEqual(self.app.password_row.get_subtitle(), "Never")
        phone = [r for r in self.app.device_rows if r.get_title() == "Pixel 8"][0]
        [w for w in widgets(phone) if isinstance(w, Gtk.Button)][0].emit("clicked")
        spin()
        self.assertNotIn("Pixel 8", [r.get_title() for r in self.app.device_rows])
        self.assertTrue(self._logged(SecurityEvent.SESSION_SIGNED_OUT))
        self.app.sign_out_others_button.emit("clicked")
        spin()
        self.assertEqual(len(self.app.device_rows), 1)
        self.assertFalse(self.app.sign_out_others_button.get_sensitive())
        self.app.twofa_switch.set_active(True)
        self.assertTrue(self.app.store.get(Setting.TWO_FACTOR_ENABLED))
        # delete account: enabled only once DELETE is typed
        self.app.confirm_delete()
        spin()
        d = self.app.dialog
        self.assertFalse(d.get_response_enabled("delete"))
        self.app.delete_entry.set_text("delete")
        self.assertFalse(d.get_response_enabled("delete"))
        self.app.delete_entry.set_text("DELETE")
        self.assertTrue(d.get_response_enabled("delete"))
        self.shot("16-delete-account", d)
        d.response("delete")
        spin()
        self.assertFalse(self.app.store.is_set)
        self.assertEqual(self.app.last_toast, "Your account was deleted")

    def test_secret_note_readable_only_unlocked(self):
        self.create()
        self.app.views.set_visible_child_name("note")
        self.app.note_view.get_buffer().set_text("the safe's combination")
        self.app.save_note()
        with open(self.app.note_path, "rb") as f:
            self.assertNotIn(b"combination", f.read())
        self.assertEqual(os.stat(self.app.note_path).st_mode & 0o777, 0o600)
        self.app.report(Event.LOCK_NOW)
        self.assertEqual(self.app.note_view.get_buffer().get_char_count(), 0)
        self.click_digits(self.app.lock_view.pad, PASSCODE)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        buf = self.app.note_view.get_buffer()
        self.assertEqual(buf.get_text(buf.get_start_iter(), buf.get_end_iter(), False), "the safe's combination")
        self.shot("00-note-unlocked")

    def test_every_control_has_an_accessible_name(self):
        self.create()
        self.app.report(Event.LOCK_NOW)
        roots = [self.app.window]
        self.app.views.set_visible_child_name("security")
        missing = []
        for root in roots:
            for w in widgets(root):
                if isinstance(w, (Gtk.Button, Gtk.Switch)) and not isinstance(w, Gtk.MenuButton):
                    name = getattr(w, "a11y_label", None) or w.get_tooltip_text() or (
                        isinstance(w, Gtk.Button) and w.get_label())
                    if not name and isinstance(w, Gtk.Button):
                        name = any(isinstance(c, Gtk.Label) and c.get_label() for c in widgets(w))
                    if not name and not self._adw_internal(w):
                        missing.append(type(w).__name__ + " " + (w.get_css_name() or ""))
        self.assertEqual(missing, [])

    @staticmethod
    def _adw_internal(w):
        """libadwaita's own buttons (window controls, view switcher) are labelled by libadwaita."""
        p = w.get_parent()
        while p is not None:
            if isinstance(p, (Gtk.WindowControls, Adw.ViewSwitcher, Adw.ViewSwitcherBar, Adw.ViewSwitcherTitle,
                              Adw.ComboRow, Adw.ExpanderRow, Adw.PasswordEntryRow, Adw.ToastOverlay)) and \
                    not isinstance(w.get_parent(), Adw.ToastOverlay):
                return True
            p = p.get_parent()
        return False

    def _count(self, kind):
        return sum(1 for e in self.app.store.events() if e.kind == kind)

    def test_mail_settings_from_the_config_file(self):
        ini = os.path.join(self.tmp.name, "mail.ini")
        with open(ini, "w") as f:
            f.write("[smtp]\nhost = mail.example.org\nport = 2525\nfrom = Demo <d@example.org>\nto = bob@example.org\n")
        m = desktop.Mailer(config=ini)
        self.assertEqual((m.host, m.port, m.sender, m.recipient), ("mail.example.org", 2525, "Demo <d@example.org>", "bob@example.org"))
        self.assertEqual(m.masked_recipient(), "b***@example.org")
        m = desktop.Mailer("127.0.0.1", self.smtp_port, config=ini)  # options win over the file
        self.assertEqual((m.host, m.port, m.recipient), ("127.0.0.1", self.smtp_port, "bob@example.org"))
        m.send("123456", 600)
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1))
        self.assertIn("expires in 10 minutes", self.mailbox.messages[0].get_payload())

    def _logged(self, kind):
        return any(e.kind == kind for e in self.app.store.events())


if __name__ == "__main__":
    unittest.main()
