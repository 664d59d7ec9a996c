"""The GTK front end (examples/gtk) under Xvfb, with the desktop around it faked the way Linux
tests do: python-dbusmock's logind and our fprintd template on a private system bus, and aiosmtpd
as the mail server on loopback. Asserts on widget state; saves a screenshot of every screen to
$SCREENSHOT_DIR (make screenshots: docs/screenshots).

    xvfb-run -a /usr/bin/python3 -m unittest Tests/gtk/test_gtk.py      (Tests/gtk/run.sh)
"""
import os
import pwd
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
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Adw, Gdk, GdkPixbuf, Gio, GLib, Gtk, Pango  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "gtk"))
sys.path.insert(0, os.path.join(HERE, "..", "service"))
sys.path.insert(0, HERE)
import desktop  # noqa: E402
from harness import privileged_port  # noqa: E402  (Tests/service/harness.py)
from gtk_loop import Mailbox, free_port, spin, spin_until  # noqa: E402
import passcode  # noqa: E402
import passcode_gtk as pg  # noqa: E402
from passcode import Event, FlowKind, FlowStep, LockReason, SecurityEvent, Setting  # noqa: E402

SHOTS = os.environ.get("SCREENSHOT_DIR") or os.path.join(HERE, "..", "..", "build", "screenshots")
PASSCODE, OTHER = "258036", "395172"
SESSION = "/org/freedesktop/login1/session/c1"


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


def pango_text(markup):
    return Pango.parse_markup(markup, -1, "\0")[2]


def layout_lines(label):
    """The lines a wrapped label shows, as Pango laid them out."""
    layout = label.get_layout()
    text = layout.get_text().encode()
    return [text[line.start_index:line.start_index + line.length].decode() for line in layout.get_lines_readonly()]


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
        Gtk.Settings.get_default().set_property("gtk-cursor-blink", False)  # the same screenshot every run
        cls.application = Adw.Application(application_id="org.libpasscode.DemoTest", flags=0)
        cls.application.register(None)
        os.makedirs(SHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        # GLib's shared system bus connection raises SIGTERM when its bus goes (exit-on-close):
        # the private bus stops here, and the service-mode tests run on after.
        bus = desktop.system_bus()
        if bus is not None:
            bus.set_exit_on_close(False)
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

    def open_app(self, mail_port=None, mail_host="127.0.0.1", first_launch=False):
        """The app on the test's store. Its first launch opens "Create Passcode" (with no passcode
        set); unless first_launch, that sheet is cancelled here, as the tests start from there."""
        mailer = desktop.Mailer(mail_host, mail_port or self.smtp_port, "demo@example.org", "alice@example.org",
                                config=os.devnull)
        app = pg.App(self.application, os.path.join(self.tmp.name, "demo.db"), clock=lambda: tuple(self.clock),
                     mailer=mailer, bus=desktop.system_bus(), username="alice")
        app.window.present()
        spin(0.2)
        if not first_launch and app.first_launch:
            self.assertIsNotNone(app.sheet)
            app.sheet.cancel()
            spin()
            self.assertIsNone(app.sheet)
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

    def visible_name(self):
        """The accessible name of what a user sees on top: a dialog, a sheet, the lock screen's
        page, else the view stack's page."""
        app = self.app
        if app.dialog is not None and app.dialog.get_visible():
            return app.dialog.a11y_label, app.dialog
        if app.sheet is not None and app.sheet.get_visible():
            return app.sheet.a11y_label, app.sheet
        if app.lock_box.get_visible():
            return app.lock_view.get_visible_child().a11y_label, None
        return app.views.get_visible_child().a11y_label, None

    def shot(self, name):
        """Saves the screen as NAME.png; NAME (after its number) starts with the accessible name
        of what is on top, so every screenshot shows what its name says. A dialog or sheet is
        shot over its parent window, dimmed, as a user sees it."""
        spin_until(lambda: not self.app.late_dismissals, timeout=2)  # toasts taken away while coming in
        spin(0.6)  # animations (the shake, page transitions, a toast going) end
        shown, top = self.visible_name()
        slug = re.sub(r"[^a-z0-9]+", "-", shown.lower()).strip("-")
        self.assertTrue(name.split("-", 1)[1].startswith(slug), "%s.png would show %r" % (name, shown))
        path = os.path.join(SHOTS, name + ".png")
        if top is None:
            pg.save_png(self.app.window, path)
            return
        pg.save_png(self.app.window, path + ".parent")
        pg.save_png(top, path + ".top")
        try:
            base = GdkPixbuf.Pixbuf.new_from_file(path + ".parent")
            over = GdkPixbuf.Pixbuf.new_from_file(path + ".top")
        finally:
            os.unlink(path + ".parent")
            os.unlink(path + ".top")
        w, h = base.get_width(), base.get_height()
        dim = GdkPixbuf.Pixbuf.new(GdkPixbuf.Colorspace.RGB, True, 8, w, h)
        dim.fill(0x00000066)  # the dimmed parent of a modal
        dim.composite(base, 0, 0, w, h, 0, 0, 1, 1, GdkPixbuf.InterpType.NEAREST, 255)
        ow, oh = min(over.get_width(), w), min(over.get_height(), h)
        x, y = (w - ow) // 2, (h - oh) // 2
        over.composite(base, x, y, ow, oh, x, y, 1, 1, GdkPixbuf.InterpType.NEAREST, 255)
        base.savev(path, "png", [], [])

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
        self.app.views.set_visible_child_name("security")
        spin()
        self.assertFalse(self.app.lock_button.get_visible())  # nothing to lock without a passcode
        self.assertLess(self.app.change_chevron.get_opacity(), 1.0)  # a disabled row dims its chevron
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
        self.shot("02-create-passcode")
        self.type_keys(sheet.pad, ["0", "KP_3", "KP_6"])  # the keypad's digits too
        self.assertEqual(sheet.pad.title.get_label(), "Confirm passcode")
        self.type_keys(sheet.pad, PASSCODE)
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.is_enabled)
        self.assertEqual(self.app.last_toast, "Passcode created")
        self.shot("03-security-passcode-on")
        # change: current, new, confirm
        self.app.change_row.emit("activated")
        sheet = self.app.sheet
        self.assertEqual(sheet.get_title(), "Change Passcode")
        self.click_digits(sheet.pad, "111222")
        self.assertEqual(sheet.pad.shake_count, 1)
        self.click_digits(sheet.pad, PASSCODE + OTHER + OTHER)
        self.assertIsNone(self.app.sheet)
        self.assertEqual(self.app.last_toast, "Passcode changed")
        # disable: the switch off asks for the passcode
        self.app.lock_switch.set_active(False)
        sheet = self.app.sheet
        self.assertEqual(sheet.get_title(), "Turn Passcode Off")
        self.assertIn("passcode will be kept", sheet.pad.subtitle.get_label())
        self.assertTrue(self.app.store.is_enabled)  # nothing changes until the passcode is entered
        self.shot("19-turn-passcode-off")
        self.click_digits(sheet.pad, OTHER)
        self.assertFalse(self.app.store.is_enabled)
        self.assertFalse(self.app.lock_switch.get_active())
        self.assertIn("kept", self.app.last_toast)
        self.assertEqual(self.app.toasts_on("security"), ["Passcode lock off; your passcode is kept"])  # only the newest
        self.assertIn("kept for turning the lock on again", self.app.lock_row.get_subtitle())
        self.assertFalse(self.app.bio_row.get_visible())  # no fingerprint switch with the lock off
        self.assertFalse(self.app.lock_button.get_visible())
        self.shot("20-security-passcode-off")
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
        self.assertEqual(self.app.store.get_setting(Setting.AUTO_LOCK_SECONDS), 60)
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

    def test_lock_screen_covers_at_once_and_fades_out(self):
        """An opacity transition, but never a glimpse of the content on lock."""
        self.create()
        self.app.report(Event.LOCK_NOW)
        self.assertTrue(self.lock_visible())
        self.assertEqual(self.app.lock_box.get_opacity(), 1.0)  # at once
        self.click_digits(self.app.lock_view.pad, PASSCODE)
        self.assertFalse(self.app.store.locked)
        self.assertTrue(self.lock_visible())  # still there, fading, taking no input
        self.assertIsNotNone(self.app._unlock_fade)
        self.assertFalse(self.app.lock_box.get_sensitive())
        self.assertTrue(spin_until(lambda: not self.lock_visible(), timeout=2))
        self.app.report(Event.LOCK_NOW)  # and back at once, whole
        self.assertTrue(self.lock_visible())
        self.assertEqual(self.app.lock_box.get_opacity(), 1.0)
        self.assertTrue(self.app.lock_box.get_sensitive())

    def test_a_setting_the_backend_refuses_is_reverted(self):
        """The change fails at the backend (the settings hook): an error, and the
        picker shows the stored value again."""
        self.create()
        def backend(key, old, new):
            raise RuntimeError("the server is unreachable: the account service at accounts.example.org did not answer "
                               "within 30 seconds")
        self.app.store.settings_hook(backend)
        before = self.app.store.get_setting(Setting.AUTO_LOCK_SECONDS)
        self.app.autolock_row.set_selected(self.app.autolock_choices.index(60))
        spin()
        self.assertEqual(self.app.store.get_setting(Setting.AUTO_LOCK_SECONDS), before)
        self.assertEqual(self.app.autolock_choices[self.app.autolock_row.get_selected()], before)
        self.assertTrue(self.app.last_toast)
        self.assertEqual(self.app.last_toast_page, "security")
        self.assert_toast_whole(pg.sentence(self.app.last_toast))
        self.shot("26-security-setting-refused")

    def assert_toast_whole(self, text):
        """The newest toast shows all of `text`, broken over lines when long, never cut."""
        toast = self.app._toast
        self.assertIsNotNone(toast)
        label = toast.get_custom_title()
        self.assertIsInstance(label, Gtk.Label)
        self.assertEqual(label.get_label(), text)
        self.assertTrue(label.get_wrap())
        self.assertEqual(label.get_ellipsize(), Pango.EllipsizeMode.NONE)
        # ...and inside the window, where it shows: none of it past the toast's clipped edge
        self.assertTrue(spin_until(lambda: label.get_mapped(), timeout=5))
        spin(0.6)
        ok, bounds = label.compute_bounds(self.app.window)
        self.assertTrue(ok)
        width = self.app.window.get_width()
        self.assertTrue(0 <= bounds.get_x() and bounds.get_x() + bounds.get_width() <= width,
                        (bounds.get_x(), bounds.get_width(), width))
        layout_width = label.get_layout().get_pixel_size()[0]
        self.assertLessEqual(layout_width, bounds.get_width() + 1, "the text is wider than its label")

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
        self.shot("05-lock-screen-wrong-passcode")
        for wrong in ("111223", "111224", "111225", "111226"):  # a repeated wrong one counts once
            self.click_digits(pad, wrong)
        self.assertEqual(pad.flow.step, FlowStep.LOCKED_OUT)
        self.assertTrue(pad.countdown.get_visible())
        self.assertEqual(pad.countdown.get_label(), "Try again in 1:00")
        self.assertFalse(pad.error.get_visible())  # the countdown says it once
        self.assertFalse(pad.grid.get_sensitive())
        self.shot("06-lock-screen-lockout")
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
        self.shot("07-security-unlocked-notice")
        self.app.views.set_visible_child_name("log")
        spin()
        titles = [r.get_title() for r in self.app.log_rows]
        self.assertEqual(titles[:3], ["Unlocked by passcode", "Lockout started", "Failed attempt"])
        self.assertEqual(titles.count("Failed attempt"), 5)
        self.assertIn("Lockout started", titles)
        self.shot("08-log-after-lockout")

    def test_fingerprint_match_and_no_match(self):
        self.create()
        self.assertEqual(self.app.passcode_group.get_title(), "Passcode & Fingerprint")
        self.assertTrue(self.app.bio_row.get_visible())
        self.app.bio_switch.set_active(True)  # weakening, but the passcode was just entered
        self.assertTrue(self.app.store.get_setting(Setting.BIOMETRIC_ENABLED))
        # "Require on App Launch" is a switch, usable once biometric unlock is on
        self.assertTrue(self.app.bio_launch_row.get_visible())
        self.assertTrue(self.app.bio_launch_row.get_sensitive())
        self.app.bio_launch_switch.set_active(True)
        self.assertEqual(self.app.store.get_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH), 1)
        self.app.report(Event.LOCK_NOW)
        bio = self.app.lock_view.bio_button
        self.assertTrue(self.app.lock_view.bio_shown)
        self.shot("09-lock-screen-fingerprint")
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
        # both verifications (no match, then match) claimed the reader and released it again
        record = [tuple(str(x) for x in r) for r in
                  self.fprintd_obj.GetRecord(self.reader, dbus_interface=dbusmock.MOCK_IFACE)]
        self.assertEqual([m for m, _ in record[-8:]],
                         ["Claim", "VerifyStart", "VerifyStop", "Release"] * 2)
        self.assertTrue(all(a == "any" for m, a in record if m == "VerifyStart"))
        # no enrolled finger: fprintd says so, the library hears "no biometrics"; the row stays,
        # disabled, and says "Not available"
        self.fprintd_obj.SetEnrolledFingers(self.reader, dbus.Array([], signature="s"), dbus_interface=dbusmock.MOCK_IFACE)
        self.app.update_biometrics()
        self.app.refresh()
        self.assertTrue(self.app.bio_row.get_visible())
        self.assertFalse(self.app.bio_row.get_sensitive())
        self.assertTrue(self.app.bio_row.get_subtitle().startswith("Not available"))
        self.assertFalse(self.app.bio_switch.get_active())
        self.assertFalse(self.app.bio_launch_row.get_sensitive())
        self.app.views.set_visible_child_name("security")
        self.shot("21-security-fingerprint-not-available")
        self.app.report(Event.LOCK_NOW)
        self.assertFalse(self.app.lock_view.bio_shown)

    def test_reset_through_the_email_received(self):
        self.create()
        self.app.views.set_visible_child_name("security")
        self.app.reset_row.emit("activated")
        sheet = self.app.sheet
        self.assertEqual(sheet.stack.get_visible_child_name(), "request")
        self.shot("10-reset-passcode-request")
        sheet.send_button.emit("clicked")
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1))
        msg = self.mailbox.messages[0]
        self.assertEqual(msg["To"], "alice@example.org")
        self.assertEqual(msg["Subject"], "Your passcode reset code")
        code = re.search(r"reset code is (\d+)\.", msg.get_payload()).group(1)
        self.assertEqual(sheet.pad.flow.step, FlowStep.ENTER_CODE)
        self.shot("11-reset-passcode-code")
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
        # The default server, localhost:25, as a new user meets it (the screenshot shows that),
        # unless a mail server runs here: then a free port, where nobody listens.
        self.dead_host, self.dead_port = "localhost", 25
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", 25)) == 0:
                self.dead_host, self.dead_port = "127.0.0.1", free_port()
        self.app = self.open_app(mail_host=self.dead_host, mail_port=self.dead_port)
        self.create()
        self.app.reset_row.emit("activated")
        sheet = self.app.sheet
        sheet.send_button.emit("clicked")
        spin()
        self.assertTrue(sheet.request_error.get_visible())
        text = sheet.request_error.get_text()
        where = "%s:%d" % (self.dead_host, self.dead_port)
        # one sentence for a person: where nothing answered, a local sink to start, the option
        # that points the demo at it; never an exception's name
        self.assertEqual(text, "No mail server answered at %s; to try the reset without one, run “python3 -m aiosmtpd "
                               "-n” and start the demo with --smtp localhost:8025." % where)
        self.assertNotIn("\n", text)
        self.assertNotRegex(text, r"[A-Z][a-z]+(Error|Exception)")
        lines = layout_lines(sheet.request_error)
        for unbroken in (where, "python3 -m aiosmtpd -n", "--smtp localhost:8025"):
            self.assertTrue(any(unbroken in line for line in lines), (unbroken, lines))  # never split over lines
        self.assertEqual(sheet.request_error.get_justify(), Gtk.Justification.CENTER)
        self.assertEqual(sheet.send_button.get_halign(), Gtk.Align.CENTER)
        self.assertLess(sheet.send_button.get_width(), sheet.get_width() // 2)  # the pill keeps its size
        self.shot("22-reset-passcode-send-error")
        self.assertEqual(sheet.stack.get_visible_child_name(), "request")
        self.assertTrue(self._logged(SecurityEvent.RESET_CODE_DELIVERY_FAILED))
        self.assertEqual(self.mailbox.messages, [])

    def test_forgot_passcode(self):
        self.create()
        self.app.report(Event.LOCK_NOW)
        self.app.lock_view.forgot_button.emit("clicked")
        spin()
        self.assertIsNotNone(self.app.dialog)
        self.shot("12-forgot-passcode-confirm")
        self.app.dialog.response("cancel")
        spin()
        self.assertEqual(self.app.lock_view.get_visible_child_name(), "pad")
        self.assertTrue(self.app.store.is_set)
        # "Email Code" opens the reset by email, over the lock screen; cancelled, nothing changed
        self.app.lock_view.forgot_button.emit("clicked")
        self.assertIn("a***@example.org", self.app.dialog.get_body())
        self.app.dialog.response("email")
        spin()
        self.assertEqual(self.app.sheet.stack.get_visible_child_name(), "request")
        self.app.sheet.cancel()
        spin()
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.lock_visible())
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
        self.assertTrue(self.app.store.get_setting(Setting.LOCK_AT_LAUNCH))
        self.assertTrue(self.app.launch_switch.get_active())  # shows what is stored
        self.shot("14-confirm-passcode")
        self.assertEqual(sheet.pad.subtitle.get_text(), "Enter your passcode to change “Lock at Launch”.")
        self.assertTrue(any("“Lock at Launch”" in line for line in layout_lines(sheet.pad.subtitle)),
                        layout_lines(sheet.pad.subtitle))  # a row's title is never broken
        self.click_digits(sheet.pad, PASSCODE)
        self.assertFalse(self.app.store.get_setting(Setting.LOCK_AT_LAUNCH))
        self.assertFalse(self.app.launch_switch.get_active())
        self.app.launch_switch.set_active(True)  # strengthening: no sheet
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.get_setting(Setting.LOCK_AT_LAUNCH))

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
        self.shot("15-account-password-error")
        self.app.pw_new.set_text("a much longer one")
        self.assertFalse(self.app.pw_error.get_visible())  # the error goes when the fields change
        self.app.pw_confirm.set_text("a much longer one")
        self.app.pw_confirm.emit("entry-activated")  # Enter submits
        spin()
        self.assertFalse(self.app.pw_error.get_visible())
        self.assertEqual(self.app.last_toast, "Password changed")
        self.assertEqual(self.app.password_row.get_subtitle(), "Changed just now")
        self.advance(3 * 60)
        self.app.refresh()
        self.assertEqual(self.app.password_row.get_subtitle(), "Changed 3 minutes ago")
        self.assertEqual(self.app.devices_group.get_description(), "3 devices where your account is signed in")
        # Sign Out asks first, Cancel keeps the device
        spin(0.6)  # "Password changed" is in, read...
        self.assertEqual(self.app.toasts_on("account"), ["Password changed"])
        phone = [r for r in self.app.device_rows if r.get_title() == "Pixel 8"][0]
        [w for w in widgets(phone) if isinstance(w, Gtk.Button)][0].emit("clicked")
        spin()
        self.assertEqual(self.app.dialog.get_heading(), "Sign Out Pixel 8?")
        self.assertEqual(self.app.toasts_on("account"), [])  # ...and goes: nothing covered under the dialog
        self.shot("18-sign-out-pixel-8")
        self.app.dialog.response("cancel")
        spin()
        self.assertIn("Pixel 8", [r.get_title() for r in self.app.device_rows])
        phone = [r for r in self.app.device_rows if r.get_title() == "Pixel 8"][0]
        [w for w in widgets(phone) if isinstance(w, Gtk.Button)][0].emit("clicked")
        self.app.dialog.response("confirm")
        spin()
        self.assertNotIn("Pixel 8", [r.get_title() for r in self.app.device_rows])
        self.assertTrue(self._logged(SecurityEvent.SESSION_SIGNED_OUT))
        self.assertEqual(self.app.devices_group.get_description(), "2 devices where your account is signed in")
        self.app.sign_out_others_button.emit("clicked")
        spin()
        self.assertEqual(self.app.dialog.get_heading(), "Sign Out All Other Devices?")
        self.assertEqual(len(self.app.device_rows), 2)  # nothing yet
        self.app.dialog.response("confirm")
        spin()
        self.assertEqual(len(self.app.device_rows), 1)
        # the log names devices, not session ids
        self.app.views.set_visible_child_name("log")
        spin()
        signed_out = [r.get_subtitle() for r in self.app.log_rows if r.get_title() == "Session signed out"]
        self.assertTrue(any(x.endswith("· Pixel 8") for x in signed_out), signed_out)
        self.assertFalse(any(x.endswith("· phone") for x in signed_out), signed_out)
        self.app.views.set_visible_child_name("account")
        spin()
        self.assertFalse(self.app.sign_out_others_button.get_sensitive())
        self.app.twofa_switch.set_active(True)
        self.assertTrue(self.app.store.get_setting(Setting.TWO_FACTOR_ENABLED))
        # the log says a setting change in words, not the store's key and values
        self.app.views.set_visible_child_name("log")
        spin()
        changed = [r.get_subtitle() for r in self.app.log_rows if r.get_title() == "Setting changed"]
        self.assertTrue(changed and changed[0].endswith("· Two-factor authentication turned on"), changed)
        self.assertFalse(any("two_factor_enabled" in x for x in changed), changed)
        self.app.views.set_visible_child_name("account")
        spin()
        # delete account: enabled only once DELETE is typed
        self.app.confirm_delete()
        spin()
        d = self.app.dialog
        self.assertFalse(d.get_response_enabled("delete"))
        self.app.delete_entry.set_text("delete")
        self.assertFalse(d.get_response_enabled("delete"))
        self.app.delete_entry.set_text("DELETE")
        self.assertTrue(d.get_response_enabled("delete"))
        self.assertEqual(self.app.delete_list, ["Your passcode and security settings", "Your devices and sessions",
                                                "Your security log", "The secret note"])  # the design's list
        self.assertIn("cannot be undone", d.get_body())
        self.shot("16-delete-account")
        d.response("delete")
        spin()
        self.assertFalse(self.app.store.is_set)
        self.assertEqual(self.app.lock_view.get_visible_child_name(), "account-deleted")  # not "Signed Out"
        self.shot("17-account-deleted")
        self.app.lock_view.deleted_page.get_child().emit("clicked")  # Done
        spin()
        self.assertEqual(self.app.lock_view.get_visible_child_name(), "signed-out")
        # signed in again, a new passcode: the fingerprint row says the reader is there (fprintd's
        # answer reported again), not "Not available" until the app restarts
        self.app.sign_in_again()
        sheet = self.app.sheet
        self.click_digits(sheet.pad, OTHER)
        self.click_digits(sheet.pad, OTHER)
        self.assertIsNone(self.app.sheet)
        self.app.views.set_visible_child_name("security")
        spin()
        self.assertTrue(self.app.bio_row.get_visible())
        self.assertTrue(self.app.bio_row.get_sensitive())
        self.assertFalse(self.app.bio_row.get_subtitle().startswith("Not available"), self.app.bio_row.get_subtitle())

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
        # Forgot passcode, signed in again, a new passcode: a new data key. The old note can never
        # be read again, so it goes, and the page says so (not "unlock with your passcode").
        self.app.report(Event.LOCK_NOW)
        self.app.lock_view.forgot_button.emit("clicked")
        spin()
        self.app.dialog.response("sign-out")
        spin()
        self.app.sign_in_again()
        sheet = self.app.sheet
        self.click_digits(sheet.pad, OTHER)
        self.click_digits(sheet.pad, OTHER)
        self.assertIsNone(self.app.sheet)
        self.app.views.set_visible_child_name("note")
        spin()
        self.assertFalse(os.path.exists(self.app.note_path))
        self.app.refresh()  # said until a new note is saved
        self.assertEqual(self.app.note_status.get_label(), "The old note was sealed with a key this passcode no longer has "
                                                           "(a reset or a new passcode replaced it), so it was removed.")
        self.app.note_view.get_buffer().set_text("a new one")
        self.app.save_note()
        self.assertEqual(self.app.note_status.get_label(), "Saved.")

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

    def test_toasts_belong_to_their_page(self):
        self.create()  # on the Security page
        self.assertEqual(self.app.toasts_on("security"), ["Passcode created"])
        # the view switcher is outside every page's toast overlay: a toast never covers it
        bar = [w for w in widgets(self.app.window) if isinstance(w, Adw.ViewSwitcherBar)][0]
        p = bar.get_parent()
        while p is not None:
            self.assertNotIsInstance(p, Adw.ToastOverlay)
            p = p.get_parent()
        self.app.views.set_visible_child_name("account")
        spin()
        self.assertEqual(self.app.toasts_on("security"), [])  # a stale toast does not follow
        self.assertEqual(self.app.toasts_on("account"), [])
        self.app.views.set_visible_child_name("note")
        self.app.note_view.get_buffer().set_text("x")
        self.app.save_note()
        self.assertEqual(self.app.toasts_on("note"), ["Saved"])  # GNOME's word, not "sealed"
        self.app.views.set_visible_child_name("log")
        spin()
        self.assertEqual(self.app.toasts_on("note"), [])

    def test_toasts_replaced_and_dismissed_while_coming_in(self):
        """libadwaita 1.2 crashes when a toast is dismissed during its show animation: toasts
        replaced at once, and a dialog opened over one that just came, are taken away safely."""
        self.app.views.set_visible_child_name("account")
        for i in range(5):
            self.app.toast("toast %d" % i)
            spin(0.01)
        self.assertEqual(self.app.toasts_on("account"), ["Toast 4"])
        self.app.confirm_sign_out_others()
        self.assertEqual(self.app.toasts_on("account"), [])
        spin(0.8)
        self.app.dialog.response("cancel")
        spin(0.3)
        self.app.toast("after")
        self.assertEqual(self.app.toasts_on("account"), ["After"])

    def test_save_note_without_a_passcode_says_so(self):
        self.app.views.set_visible_child_name("note")
        self.app.note_view.get_buffer().set_text("x")
        self.app.save_note()
        self.assertEqual(self.app.last_toast, "Create a passcode first to keep a secret note")
        self.assertFalse(os.path.exists(self.app.note_path))

    def test_fingerprint_switch_needs_the_lock_on(self):
        """No fingerprint switch with the passcode off; the library refuses it there."""
        self.app.views.set_visible_child_name("security")
        spin()
        self.assertFalse(self.app.bio_row.get_visible())
        self.assertFalse(self.app.bio_launch_row.get_visible())
        self.create()
        self.assertTrue(self.app.bio_row.get_visible() and self.app.bio_row.get_sensitive())
        self.assertFalse(self.app.bio_launch_row.get_sensitive())  # needs biometric unlock on
        self.app.lock_switch.set_active(False)
        self.click_digits(self.app.sheet.pad, PASSCODE)
        self.assertFalse(self.app.store.is_enabled)
        self.assertFalse(self.app.bio_row.get_visible())
        with self.assertRaises(passcode.InvalidSetting):
            self.app.store.set_setting(Setting.BIOMETRIC_ENABLED, 1)
        self.assertEqual(self.app.store.get_setting(Setting.BIOMETRIC_ENABLED), 0)

    def _y(self, widget, root):
        return widget.translate_coordinates(root, 0, 0)[1]

    def test_pad_keys_are_round_and_nothing_moves_when_an_error_shows(self):
        self.app.views.set_visible_child_name("security")
        self.app.lock_switch.set_active(True)
        sheet = self.app.sheet
        pad = sheet.pad
        spin(0.3)
        sizes = {k: (b.get_width(), b.get_height()) for k, b in pad.keys.items()}
        self.assertEqual(set(sizes.values()), {(72, 72)}, sizes)  # the 0 key too: a circle, not an oval
        before = [self._y(w, sheet) for w in (pad.icon, pad.title, pad.dots_slot, pad.grid)]
        self.type_keys(pad, "123456")  # weak: the longest message there is
        spin(0.3)
        self.assertIn("harder passcode", pad.error.get_label())
        self.assertLessEqual(pad.error.get_layout().get_line_count(), pg.ERROR_LINES)
        self.assertFalse(pad.error.get_layout().is_ellipsized(), pad.error.get_label())  # the whole message fits
        self.assertEqual([self._y(w, sheet) for w in (pad.icon, pad.title, pad.dots_slot, pad.grid)], before)
        self.type_keys(pad, PASSCODE + OTHER)  # a mismatch
        spin(0.3)
        self.assertIn("don't match", pad.error.get_label())
        self.assertEqual([self._y(w, sheet) for w in (pad.icon, pad.title, pad.dots_slot, pad.grid)], before)

    def test_reset_numbers_come_from_the_library_and_the_wait_is_said_once(self):
        self.create()
        self.app.reset_row.emit("activated")
        sheet = self.app.sheet
        n = self.app.store.get_setting(Setting.RESET_CODE_LENGTH)
        self.assertIn("send %s %d-digit code" % ("an" if n in (8, 11, 18) else "a", n), sheet.request_description)
        self.assertEqual(sheet.pad.flow, None)
        sheet.send_button.emit("clicked")
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1))
        code = re.search(r"reset code is (\d+)\.", self.mailbox.messages[0].get_payload()).group(1)
        self.assertEqual(len(code), n)
        self.assertEqual(sheet.pad.flow.dots, (0, n))
        sheet.cancel()
        spin()
        self.app.reset_row.emit("activated")
        sheet = self.app.sheet
        self.advance(36)
        sheet.send_button.emit("clicked")  # within a minute: rate-limited
        spin()
        text = sheet.request_error.get_label()
        # The library's words for the refusal, from its code and number (so in the user's
        # language), not the programmer's message; the wait in it once.
        self.assertEqual(text, passcode.message_text(passcode.Message.RESET_REQUEST_WAIT_SECONDS, 24))
        self.assertEqual(text, "Too many code requests. Try again in 24 seconds.")

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

    def test_mail_failure_messages(self):
        """Each failure is one sentence; at the sink's own port it says to start the sink."""
        m = pg.mail_failure_markup
        e = desktop.MailError("localhost", 8025, "the server refused the connection", True)
        self.assertEqual(pango_text(m(e)), "No mail server answered at localhost:8025; start the local one with "
                                           "“python3 -m aiosmtpd -n”, then send the code again.")
        e = desktop.MailError("localhost", 25, "the server refused the connection", True)
        self.assertIn("at localhost:25; to try the reset without one, run “python3 -m aiosmtpd -n”", pango_text(m(e)))
        e = desktop.MailError("mail.example.org", 25, "the server's name is unknown", False)
        self.assertEqual(pango_text(m(e)), "Could not send the email through mail.example.org:25 (the server's name is unknown).")
        # the port from the environment when no option names one (make demo)
        os.environ["PASSCODE_DEMO_SMTP"] = "localhost:8025"
        try:
            self.assertEqual(pg.mail_server(None), ("localhost", 8025))
            self.assertEqual(pg.mail_server("mail.example.org"), ("mail.example.org", None))
        finally:
            del os.environ["PASSCODE_DEMO_SMTP"]
        self.assertEqual(pg.mail_server(None), (None, None))

    def test_first_launch_asks_for_a_passcode(self):
        """No passcode yet: the app opens "Create Passcode" over the Security page; cancelled, it
        opens it again at the next launch; once a passcode is set, never again."""
        self.close_app()
        self.app = self.open_app(first_launch=True)
        self.assertTrue(self.app.first_launch)
        self.assertIsNotNone(self.app.sheet)
        self.assertEqual(self.app.sheet.get_title(), "Create Passcode")
        self.assertEqual(self.visible_name()[0], "Create Passcode")
        self.assertEqual(self.app.views.get_visible_child_name(), "security")
        self.assertIn("Create a passcode", self.app.sheet.pad.subtitle.get_text())
        self.shot("23-create-passcode-first-launch")
        self.app.sheet.cancel()
        spin()
        self.assertIsNone(self.app.sheet)
        self.assertEqual(self.visible_name()[0], "Security")
        self.assertFalse(self.app.lock_switch.get_active())
        self.close_app()
        self.app = self.open_app(first_launch=True)
        self.assertEqual(self.app.sheet.get_title(), "Create Passcode")
        self.click_digits(self.app.sheet.pad, PASSCODE + PASSCODE)
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.app.store.is_enabled)
        self.assertEqual(self.app.last_toast, "Passcode created")
        self.close_app()
        self.app = self.open_app(first_launch=True)
        self.assertFalse(self.app.first_launch)
        self.assertIsNone(self.app.sheet)
        self.assertTrue(self.lock_visible())  # the passcode it made is asked for

    def test_save_note_is_insensitive_while_it_cannot_work(self):
        self.app.views.set_visible_child_name("note")
        spin()
        save = self.app.save_button
        self.assertFalse(save.get_sensitive())  # no passcode: nothing can be saved
        self.assertFalse(self.app.note_view.get_editable())
        self.assertEqual(self.app.note_status.get_label(), "Create a passcode to keep a secret note.")
        self.assertTrue(self.app.note_create_button.get_visible())  # and the way to one
        self.shot("24-note-no-passcode")
        self.app.note_create_button.emit("clicked")
        self.assertEqual(self.app.sheet.get_title(), "Create Passcode")
        self.app.sheet.cancel()
        spin()
        self.create()
        self.app.views.set_visible_child_name("note")
        spin()
        self.assertTrue(self.app.note_view.get_editable())
        self.assertFalse(self.app.note_create_button.get_visible())
        self.assertFalse(save.get_sensitive())  # nothing to save yet
        self.app.note_view.get_buffer().insert_at_cursor("x", -1)  # as typing does
        self.assertTrue(save.get_sensitive())
        self.assertEqual(self.app.note_status.get_label(), "Not saved yet.")
        save.emit("clicked")
        spin()
        self.assertEqual(self.app.last_toast, "Saved")
        self.assertFalse(save.get_sensitive())  # saved: nothing new
        self.assertEqual(self.app.note_status.get_label(), "Saved.")
        # a fingerprint unlock after the passcode's in the same run releases the key: the note is
        # read back and Save works (the terminal demos do the same)
        self.app.views.set_visible_child_name("security")
        self.app.bio_switch.set_active(True)
        self.app.report(Event.LOCK_NOW)
        self.fprintd_obj.QueueVerifyResult(self.reader, "verify-match", dbus_interface=dbusmock.MOCK_IFACE)
        self.app.lock_view.bio_button.emit("clicked")
        self.assertTrue(spin_until(lambda: not self.lock_visible()), (self.app.last_toast, self.app.lock_view.pad.error.get_label()))
        self.assertTrue(self._logged(SecurityEvent.UNLOCKED_BY_BIOMETRICS))
        self.app.views.set_visible_child_name("note")
        spin()
        self.assertTrue(self.app.store.key_released)
        self.assertTrue(self.app.note_view.get_editable())
        buf = self.app.note_view.get_buffer()
        self.assertEqual(buf.get_text(buf.get_start_iter(), buf.get_end_iter(), False), "x")
        self.assertEqual(self.app.note_status.get_label(), "Saved.")
        self.assertFalse(save.get_sensitive())  # nothing new yet
        buf.insert(buf.get_end_iter(), "y", -1)  # as typing does
        self.assertTrue(save.get_sensitive())
        save.emit("clicked")
        spin()
        self.assertEqual(self.app.last_toast, "Saved")
        with open(self.app.note_path, "rb") as f:
            self.assertEqual(bytes(self.app.store.unseal(f.read())), b"xy")
        self.shot("25-note-after-fingerprint")

    def test_the_screens_follow_the_language(self):
        """LANGUAGE=de and fr: the lock screen, the security page, the log in that language, the
        library's words (prompt, error, log entries) and the front end's; an unknown language
        and the C locale: English. Each in a process of its own (Tests/gtk/language.py)."""
        cases = {"de_DE.UTF-8": ("C.UTF-8", ["Code eingeben", "Falscher Code", "Code vergessen?", "Code gesperrt",
                                             "Codesperre", "Sicherheitsprotokoll", "Fehlversuch", "Zu viele Versuche"]),
                 "fr": ("C.UTF-8", ["Saisir le code", "Code incorrect", "Code oublié ?", "Verrouillage par code",
                                    "Journal de sécurité", "Tentative échouée"]),
                 "xx_YY": ("C.UTF-8", ["Enter Passcode", "Incorrect passcode", "Forgot Passcode?", "Security Log"]),
                 "de": ("C", ["Enter Passcode", "Incorrect passcode", "Forgot Passcode?", "Failed attempt"])}
        for language, (lang, expected) in cases.items():
            env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k not in ("LANG", "LANGUAGE")}
            env.update(LANG=lang, LANGUAGE=language)
            out = os.path.join(self.tmp.name, "shots-" + language)
            r = subprocess.run([sys.executable, os.path.join(HERE, "language.py"), out] + expected, env=env,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, "LANGUAGE=%s LANG=%s: %s%s" % (language, lang, r.stdout, r.stderr[-2000:]))

    def test_words_for_a_person_on_the_note_page(self):
        self.create()
        self.app.views.set_visible_child_name("note")
        self.app.note_view.get_buffer().set_text("x")
        self.app.save_note()
        self.app.refresh()
        spin()
        texts = [w.get_label() for w in widgets(self.app.page_toasts["note"]) if isinstance(w, Gtk.Label)]
        texts += [w.get_description() or "" for w in widgets(self.app.page_toasts["note"])
                  if isinstance(w, Adw.PreferencesGroup)]
        texts.append(self.app.last_toast)
        self.assertIn("Saved.", texts)
        for t in texts:
            self.assertNotRegex(t.lower(), r"seal|data key|released", t)

    def test_title_is_centred_on_every_page(self):
        self.create()  # the lock button shows in the header too
        win = self.app.window
        def centre(title):
            label = [w for w in widgets(title) if isinstance(w, Gtk.Label) and w.get_label() == "Passcode Demo"][0]
            ok, b = label.compute_bounds(win)
            self.assertTrue(ok)
            return b.get_x() + b.get_width() / 2
        for page in ("note", "security", "account", "log"):
            self.app.views.set_visible_child_name(page)
            spin(0.3)
            self.assertAlmostEqual(centre(self.app.title), win.get_width() / 2, delta=3, msg=page)
        self.app.report(Event.LOCK_NOW)
        spin(0.3)
        self.assertAlmostEqual(centre(self.app.lock_title), win.get_width() / 2, delta=3, msg="lock screen")

    def test_lock_screen_does_not_move_with_the_fingerprint_line(self):
        self.create()
        self.app.bio_switch.set_active(True)
        pad = self.app.lock_view.pad
        def places():
            spin(0.3)
            return [self._y(w, self.app.window) for w in (pad.icon, pad.title, pad.dots_slot, pad.grid,
                                                           self.app.lock_view.forgot_button)]
        self.app.report(Event.LOCK_NOW)
        self.assertTrue(self.app.lock_view.bio_shown)
        with_line = places()
        self.click_digits(pad, PASSCODE)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        self.fprintd_obj.SetEnrolledFingers(self.reader, dbus.Array([], signature="s"), dbus_interface=dbusmock.MOCK_IFACE)
        self.app.update_biometrics()
        self.app.report(Event.LOCK_NOW)
        self.assertFalse(self.app.lock_view.bio_shown)
        self.assertEqual(places(), with_line)

    def test_no_title_is_repeated(self):
        """A group's title is not one of its rows' titles, and a row's title is not the label of a
        button in it ("Two-Factor Authentication", "Delete Account", "Change Password")."""
        self.create()
        for page in ("note", "security", "account", "log"):
            self.app.views.set_visible_child_name(page)
            spin()
            root = self.app.page_toasts[page]
            for group in (w for w in widgets(root) if isinstance(w, Adw.PreferencesGroup)):
                rows = [w.get_title() for w in widgets(group) if isinstance(w, Adw.PreferencesRow)]
                self.assertNotIn(group.get_title(), rows, page)
            for row in (w for w in widgets(root) if isinstance(w, Adw.PreferencesRow)):
                buttons = [w.get_label() for w in widgets(row) if isinstance(w, Gtk.Button) and w.get_label()]
                self.assertNotIn(row.get_title(), buttons, page)

    def _logged(self, kind):
        return any(e.kind == kind for e in self.app.store.events())


class GtkServiceMode(unittest.TestCase):
    """The front end on the store passcoded keeps (--service): passcoded for this checkout on a
    private bus of its own (scripts/try-service.sh, as root: it makes a service user and removes
    it after), the real clock (the service refuses a host's clock). passcoded mails reset codes
    through an aiosmtpd relay on loopback (TRY_SERVICE_CONF) and reads fingers through the fprintd
    template, run as root on that bus (passcoded takes fprintd's answers from root alone)."""
    shot = GtkFrontEnd.shot
    assert_toast_whole = GtkFrontEnd.assert_toast_whole
    visible_name = GtkFrontEnd.visible_name
    click_digits = GtkFrontEnd.click_digits
    create = GtkFrontEnd.create
    lock_visible = GtkFrontEnd.lock_visible
    _count = GtkFrontEnd._count
    _logged = GtkFrontEnd._logged
    APP_ID = "org.libpasscode.DemoServiceTest"
    FPRINT_TIMEOUT = 2

    @classmethod
    def setUpClass(cls):
        passcoded = os.environ.get("PASSCODED", "")
        if os.getuid() != 0:  # as test-service: passcoded starts as root and drops to a user it is given
            if os.environ.get("PASSCODE_SKIPPED"):  # make test's summary counts it (Tests/run_groups.sh)
                with open(os.path.join(os.environ["PASSCODE_SKIPPED"], "parts"), "a") as parts:
                    parts.write("test-gtk: the lock screen through passcoded (service mode needs root)\n")
            raise unittest.SkipTest("service mode needs root (a service user is created and removed)")
        if not os.access(passcoded, os.X_OK):
            raise AssertionError("PASSCODED=%r is not passcoded (Tests/gtk/run.sh passes BUILD_DIR/passcoded)" % passcoded)
        cls.mailbox = Mailbox()
        cls.smtp = Controller(cls.mailbox, hostname="127.0.0.1", port=privileged_port())
        cls.smtp.start()
        conf = ("smtp_host = 127.0.0.1\nsmtp_port = %d\nsmtp_starttls = no\nsmtp_from = passcode@example.org\n"
                "smtp_timeout = 5\nfprint_timeout = %d\nfprint_checks_per_minute = 60\nargon2_ops = 1\nargon2_mem = 8192"
                % (cls.smtp.port, cls.FPRINT_TIMEOUT))
        script = os.path.join(HERE, "..", "..", "scripts", "try-service.sh")
        # The command under try-service prints the bus address and waits for its stdin to close.
        cls.service = subprocess.Popen([script, passcoded, "sh", "-c", 'echo "$DBUS_SYSTEM_BUS_ADDRESS"; exec cat >/dev/null'],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       env=dict(os.environ, SUDO_USER="", TRY_SERVICE_CONF=conf))
        address = cls.service.stdout.readline().strip()
        if not address.startswith("unix:"):
            cls.service.stdin.close()
            cls.smtp.stop()
            raise AssertionError("try-service did not start: %s" % cls.service.stderr.read())
        cls.saved_bus = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = address
        # fprintd: the template, as root (this process), on passcoded's bus, with one reader.
        cls.fprintd = subprocess.Popen([sys.executable, "-m", "dbusmock", "--template", os.path.join(HERE, "fprintd_template.py")],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cls.fbus = dbus.bus.BusConnection(address)
        if not spin_until(lambda: cls.fbus.name_has_owner("net.reactivated.Fprint"), timeout=20):
            raise AssertionError("the fprintd template did not start on try-service's bus")
        cls.fprintd_obj = cls.fbus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager")
        cls.reader = str(cls.fprintd_obj.AddDevice("Synaptics Sensor", ["right-index-finger"], dbus_interface=dbusmock.MOCK_IFACE))
        # logind: python-dbusmock's template with GetSessionByPID (Tests/service/logind_template.py),
        # as root, on that bus; this process (root, the app) in an active local session on seat0, as
        # passcoded wants of a caller before it claims the reader.
        cls.logind = subprocess.Popen([sys.executable, "-m", "dbusmock", "--template",
                                       os.path.join(HERE, "..", "service", "logind_template.py")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not spin_until(lambda: cls.fbus.name_has_owner("org.freedesktop.login1"), timeout=20):
            raise AssertionError("the logind template did not start on try-service's bus")
        logind = cls.fbus.get_object("org.freedesktop.login1", "/org/freedesktop/login1")
        logind.AddSession("c1", "seat0", dbus.UInt32(os.getuid()), "root", True, dbus_interface=dbusmock.MOCK_IFACE)
        logind.SetSessionOfUID(dbus.UInt32(os.getuid()), "c1", dbus_interface=dbusmock.MOCK_IFACE)
        # The app's own connection to that bus (GLib's shared system bus may be the earlier class's, closed).
        cls.gbus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        cls.application = getattr(GtkFrontEnd, "application", None)
        if cls.application is None:
            Adw.init()
            Gtk.Settings.get_default().set_property("gtk-cursor-blink", False)
            cls.application = Adw.Application(application_id="org.libpasscode.DemoTest", flags=0)
            cls.application.register(None)
        os.makedirs(SHOTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        for p in (cls.fprintd, cls.logind):
            p.terminate()
            p.wait()
        cls.gbus.close_sync(None)
        cls.fbus.close()
        cls.smtp.stop()
        cls.service.stdin.close()  # try-service removes the bus, passcoded, its stores and its user
        cls.service.wait(timeout=30)
        cls.service.stdout.close()
        cls.service.stderr.close()
        if cls.saved_bus is None:
            os.environ.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = cls.saved_bus

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        GtkServiceMode.count = getattr(GtkServiceMode, "count", 0) + 1
        self.app_id = "%s.Test%d" % (self.APP_ID, self.count)  # a store of its own for each test
        self.mailbox.messages.clear()
        self.fprintd_obj.SetEnrolledFingers(self.reader, ["right-index-finger"], dbus_interface=dbusmock.MOCK_IFACE)
        self.fprintd_obj.SetBusy(self.reader, False, dbus_interface=dbusmock.MOCK_IFACE)
        self.app = pg.App(self.application, os.path.join(self.tmp.name, "demo.db"), bus=self.gbus, username="root",
                          service=self.app_id)
        self.app.window.present()
        spin(0.2)
        if self.app.first_launch and self.app.sheet:
            self.app.sheet.cancel()
            spin()

    def tearDown(self):
        spin_until(lambda: self.app._service_finger is None, timeout=self.FPRINT_TIMEOUT + 10)  # no check left running
        GtkFrontEnd.close_app(self)
        self.tmp.cleanup()

    def test_lock_screen_through_passcoded(self):
        app = self.app
        self.assertEqual(app.lock_title.get_subtitle(), "Service mode (passcoded)")
        self.assertEqual(app.title.get_subtitle(), "Service mode (passcoded)")
        self.create()
        # The store is passcoded's, not a file next to the label path.
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "demo.db")))
        app.report(Event.LOCK_NOW)
        spin()
        self.assertTrue(self.lock_visible())
        pad = app.lock_view.pad
        self.shot("40-lock-screen-service-mode")
        self.click_digits(pad, "111222")
        self.assertEqual(pad.error.get_label(), "Incorrect passcode")
        self.assertTrue(pad.error.get_visible())
        self.assertTrue(self.lock_visible())
        self.shot("41-lock-screen-service-mode-wrong-passcode")
        # Counted by passcoded: a new handle (a relaunch) sees the failed attempt.
        other = passcode.Store("label", service=self.app_id)
        try:
            self.assertEqual(other.failed_attempts, 1)
        finally:
            other.close()
        self.click_digits(pad, PASSCODE)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        self.assertEqual(app.last_toast, "1 failed attempt since your last unlock")
        app.report(Event.LOCK_NOW)
        spin()
        for wrong in ("111223", "111224", "111225", "111226", "111227"):
            self.click_digits(pad, wrong)
        self.assertEqual(pad.flow.step, FlowStep.LOCKED_OUT)
        self.assertTrue(pad.countdown.get_visible())
        self.assertRegex(pad.countdown.get_label(), r"^Try again in (1:00|0:5\d)$")
        self.assertFalse(pad.grid.get_sensitive())
        self.shot("42-lock-screen-service-mode-lockout")

    def test_reset_by_email_offered_only_with_an_address_and_a_failure_in_words(self):
        """Nothing is offered that cannot work: without a confirmed address "Reset Passcode via
        Email" is dimmed (its icon too) and says what comes first, and "Email for Reset Codes" is
        dimmed with its arrow while there is no passcode. A mail passcoded's relay refuses is said
        in the app's words; passcoded's own text (the relay's address, its reply) goes to the
        app's log, not on the screen; nothing changed, no code in the host."""
        app = self.app
        app.views.set_visible_child_name("security")
        spin()
        self.assertFalse(app.recipient_row.get_sensitive())
        self.assertEqual(app.recipient_chevron.get_opacity(), 0.4)  # the dimmed row's arrow dimmed too
        self.create()
        spin()
        self.assertTrue(app.recipient_row.get_sensitive())
        self.assertEqual(app.recipient_chevron.get_opacity(), 1.0)
        self.assertFalse(app.reset_row.get_sensitive())
        self.assertEqual(app.reset_icon.get_opacity(), 0.4)
        self.assertEqual(app.reset_row.get_subtitle(), "Set an email for reset codes first")
        self.shot("53-security-service-mode-no-reset-address")
        app.store.set_reset_recipient("jane@example.org", PASSCODE)  # root's own store: no confirmation
        app.refresh()
        self.assertTrue(app.reset_row.get_sensitive())
        self.assertEqual(app.reset_row.get_subtitle(), "")
        self.mailbox.refuse = True
        try:
            app.reset_row.emit("activated")
            sheet = app.sheet
            with self.assertLogs("passcode_gtk", level="WARNING") as logged:
                sheet.send_button.emit("clicked")
                spin()
        finally:
            self.mailbox.refuse = False
        self.assertTrue(sheet.request_error.get_visible())
        said = sheet.request_error.get_text()
        self.assertTrue(said.startswith("The passcode service could not send the email"), said)
        self.assertNotIn("127.0.0.1", said)
        self.assertIn("127.0.0.1", " ".join(logged.output))  # the detail is in the log
        self.assertEqual(sheet.stack.get_visible_child_name(), "request")
        self.shot("52-reset-passcode-mail-refused-service-mode")
        self.assertTrue(app.store.is_enabled)  # nothing changed

    def labels(self, root):
        return [w.get_label() for w in widgets(root) if isinstance(w, Gtk.Label) and w.get_label()]

    def test_reset_by_email_through_passcoded(self):
        """The whole email reset through passcoded: the recipient set with the passcode (a wrong
        one refused and counted), "Forgot Passcode?" on the lock screen, the code passcoded mailed
        to the relay typed in, a new passcode, the store unlocked with it. The screens show the
        masked address passcoded answers, never the code."""
        app = self.app
        self.create()
        app.views.set_visible_child_name("security")
        spin()
        self.assertTrue(app.recipient_row.get_visible() and app.recipient_row.get_sensitive())
        self.assertEqual(app.recipient_row.get_subtitle(), "Not set: needed to reset a forgotten passcode by email")
        app.recipient_row.emit("activated")
        sheet = app.sheet
        self.assertIsInstance(sheet, pg.RecipientSheet)
        # Not an address: refused with passcoded's reason, nothing set. (A wrong passcode cannot be
        # shown here: this test runs as root, whose own stores need none; test-service checks it.)
        sheet.address.set_text("jane.example.org")
        sheet.passcode.set_text(PASSCODE)
        sheet.save_button.emit("clicked")
        spin()
        self.assertIs(app.sheet, sheet)  # refused: still open, saying why
        self.assertTrue(sheet.error.get_visible())
        self.assertRegex(sheet.error.get_label(), r"^[A-Z].*address.*\.$")
        self.assertEqual(sheet.passcode.get_text(), "")  # not kept on screen
        self.assertEqual(app.store.reset_recipient, "")
        sheet.address.set_text("jane@example.org")
        self.assertFalse(sheet.error.get_visible())  # the error goes when the fields change
        sheet.passcode.set_text(PASSCODE)
        spin()
        self.shot("43-email-for-reset-codes")
        sheet.save_button.emit("clicked")
        spin()
        self.assertIsNone(app.sheet)
        self.assertEqual(app.store.reset_recipient, "j***@example.org")
        self.assertEqual(app.last_toast, "Reset codes will be sent to j***@example.org")
        self.assert_toast_whole("Reset codes will be sent to j***@example.org")
        self.shot("54-security-service-mode-reset-address-toast")
        self.assertEqual(app.recipient_row.get_subtitle(), "j***@example.org")
        # Forgotten at the lock screen: "Forgot Passcode?" offers the emailed code.
        app.report(Event.LOCK_NOW)
        spin()
        app.lock_view.forgot_button.emit("clicked")
        spin()
        self.assertIn("j***@example.org", app.dialog.get_body())
        self.assertEqual(app.dialog.get_response_label("email"), "Email Code")
        self.shot("44-forgot-passcode-service-mode")
        app.dialog.response("email")
        spin()
        sheet = app.sheet
        self.assertEqual(sheet.stack.get_visible_child_name(), "request")
        self.assertIn("code to j***@example.org", sheet.request_description)
        self.shot("45-reset-passcode-request-service-mode")
        sheet.send_button.emit("clicked")
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1, timeout=10), sheet.request_error.get_text())
        msg = self.mailbox.messages[0]
        self.assertEqual(msg["To"], "jane@example.org")
        code = re.search(r"reset code is (\d+)", msg.get_payload()).group(1)
        self.assertEqual(len(code), app.store.get_setting(Setting.RESET_CODE_LENGTH))
        self.assertEqual(sheet.pad.flow.step, FlowStep.ENTER_CODE)
        self.assertEqual(pango_text(sheet.pad.subtitle.get_label()), "The code was sent to j***@example.org.")
        self.assertTrue(sheet.pad.subtitle.get_visible())
        shown = " ".join(self.labels(sheet) + self.labels(app.window))
        self.assertNotIn(code, shown)  # the host never has the code to show
        self.assertNotIn("jane@", shown)  # nor the full address
        self.shot("46-reset-passcode-code-service-mode")
        self.click_digits(sheet.pad, code[:-1] + str((int(code[-1]) + 1) % 10))  # a wrong code: said, not taken
        self.assertEqual(sheet.pad.flow.step, FlowStep.ENTER_CODE)
        self.assertTrue(sheet.pad.error.get_visible())
        self.click_digits(sheet.pad, code)
        self.assertEqual(sheet.pad.flow.step, FlowStep.ENTER_NEW)
        self.assertEqual(pango_text(sheet.pad.subtitle.get_label()), "Your reset code was accepted.")
        self.click_digits(sheet.pad, OTHER[:3])
        self.shot("47-reset-passcode-new-passcode-service-mode")
        self.click_digits(sheet.pad, OTHER[3:] + OTHER)
        self.assertIsNone(app.sheet)
        self.assertTrue(self._logged(SecurityEvent.RESET_COMPLETED))
        self.assertEqual(app.last_toast, "Passcode reset")
        # The new passcode unlocks; the old one no longer does (a new handle: passcoded's store).
        app.report(Event.LOCK_NOW)
        spin()
        pad = app.lock_view.pad
        self.click_digits(pad, PASSCODE)
        self.assertEqual(pad.error.get_label(), "Incorrect passcode")
        self.click_digits(pad, OTHER)
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        self.assertFalse(app.store.locked)

    def test_reset_address_confirmation_step(self):
        """A user who is not root (root's word needs no confirmation): the address set with the
        passcode waits for the code passcoded mailed to it; the sheet asks for that code with the
        passcode; a wrong code is said; the right one makes it the recipient, said in a toast
        that shows the whole masked address. The app's store is opened as that user (its bus
        connection is the user's)."""
        user = os.environ.get("SERVICE_TEST_USERS", "passcode-gtk-test") + "-gtk"  # SERVICE_TEST_USERS: the users' prefix
        subprocess.run(["userdel", user], stderr=subprocess.DEVNULL)
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", user], check=True)
        self.addCleanup(subprocess.run, ["userdel", "-f", user], stderr=subprocess.DEVNULL)
        app = self.app
        os.seteuid(pwd.getpwnam(user).pw_uid)
        try:
            store = passcode.Store(os.path.join(self.tmp.name, "demo.db"), service=self.app_id)
        finally:
            os.seteuid(0)
        app.store.close()
        app.store = store
        app.refresh()
        self.create()
        app.views.set_visible_child_name("security")
        spin()
        app.recipient_row.emit("activated")
        sheet = app.sheet
        sheet.address.set_text("jane")  # not an address: said in the app's words, nothing sent
        sheet.passcode.set_text(PASSCODE)
        sheet.save_button.emit("clicked")
        spin()
        self.assertEqual(sheet.error.get_label(), "Enter an email address and your passcode.")
        self.assertTrue(sheet.address.get_visible())
        sheet.address.set_text("jane@example.org")
        sheet.passcode.set_text(PASSCODE)
        sheet.save_button.emit("clicked")
        spin()
        self.assertIs(app.sheet, sheet)  # the confirmation step, in the same sheet
        self.assertTrue(sheet.code.get_visible() and not sheet.address.get_visible())
        self.assertEqual(sheet.save_button.get_label(), "Confirm")
        self.assertIn("A confirmation code was sent to j***@example.org", sheet.group.get_description())
        self.assertEqual(app.store.reset_recipient, "")  # not the recipient until confirmed
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1, timeout=10))
        code = re.search(r"confirmation code in the app: (\d+)", self.mailbox.messages[0].get_payload()).group(1)
        sheet.code.set_text("00000000" if code != "00000000" else "11111111")  # a wrong code, the same on every shot
        sheet.passcode.set_text(PASSCODE)
        sheet.save_button.emit("clicked")
        spin()
        self.assertIs(app.sheet, sheet)
        self.assertTrue(sheet.error.get_visible())
        self.assertTrue(sheet.error.get_label().startswith("Incorrect code. "), sheet.error.get_label())  # the library's words
        self.shot("55-email-for-reset-codes-confirmation-code")
        sheet.code.set_text(code)
        sheet.passcode.set_text(PASSCODE)
        sheet.save_button.emit("clicked")
        spin()
        self.assertIsNone(app.sheet)
        self.assertEqual(app.store.reset_recipient, "j***@example.org")
        self.assertEqual(app.recipient_row.get_subtitle(), "j***@example.org")
        self.assertTrue(app.reset_row.get_sensitive())
        self.assert_toast_whole("Reset codes will be sent to j***@example.org")

    def test_fingerprint_through_passcoded(self):
        """passcoded reads the finger through fprintd (the template, root's, on its bus): no match
        shakes, says so and is counted; no finger within fprint_timeout says "no finger read" and
        counts nothing; a reader in use says so and counts nothing; a match unlocks. Each claim
        named the caller's user and was released."""
        app = self.app
        self.create()
        app.bio_switch.set_active(True)  # weakening, but the passcode was just entered on this connection
        self.assertTrue(app.store.get_setting(Setting.BIOMETRIC_ENABLED))
        mock = dbus.Interface(self.fprintd_obj, dbusmock.MOCK_IFACE)
        before = len(mock.GetRecord(self.reader))
        app.report(Event.LOCK_NOW)
        spin()
        self.assertTrue(self.lock_visible())
        self.assertTrue(app.lock_view.bio_shown)
        bio, pad = app.lock_view.bio_button, app.lock_view.pad

        def check(queued=None):
            if queued:
                mock.QueueVerifyResult(self.reader, queued)
            t = time.monotonic()
            bio.emit("clicked")
            self.assertEqual(bio.get_child().get_label(), "Touch the fingerprint reader…")
            self.assertTrue(spin_until(lambda: app._service_finger is None, timeout=self.FPRINT_TIMEOUT + 10))
            spin(0.1)
            return time.monotonic() - t

        # No match: shaken, said, counted by passcoded (the host reports nothing).
        check("verify-no-match")
        self.assertTrue(self.lock_visible())
        self.assertEqual(pad.error.get_label(), "Fingerprint not recognised. Try again or enter your passcode.")
        self.assertTrue(pad.error.get_visible())
        self.assertEqual(pad.shake_count, 1)
        self.assertEqual(self._count(SecurityEvent.BIOMETRIC_FAILED), 1)
        self.assertEqual(bio.get_child().get_label(), "Use Fingerprint")
        self.shot("48-lock-screen-service-mode-fingerprint-not-recognised")
        # No finger: the prompt waits, then says no finger was read; nothing counted.
        t = time.monotonic()
        bio.emit("clicked")
        spin(0.3)
        self.assertEqual(bio.get_child().get_label(), "Touch the fingerprint reader…")
        self.assertFalse(pad.error.get_visible())  # the last answer goes with a new check
        self.shot("49-lock-screen-service-mode-fingerprint")
        self.assertTrue(spin_until(lambda: app._service_finger is None, timeout=self.FPRINT_TIMEOUT + 10))
        spin(0.1)
        self.assertEqual(pad.error.get_label(), "No finger was read in time. Try the fingerprint again, or enter your passcode.")
        self.assertGreaterEqual(time.monotonic() - t, self.FPRINT_TIMEOUT - 0.2)  # passcoded waited for a finger
        self.assertEqual(pad.shake_count, 1)
        self.assertEqual(self._count(SecurityEvent.BIOMETRIC_FAILED), 1)
        self.assertTrue(self.lock_visible())
        self.shot("50-lock-screen-service-mode-no-finger-read")
        # The reader in use by another program: said; nothing counted.
        mock.SetBusy(self.reader, True)
        check()
        mock.SetBusy(self.reader, False)
        self.assertEqual(pad.error.get_label(), "The fingerprint reader is in use by another program. Enter your passcode.")
        self.assertEqual(self._count(SecurityEvent.BIOMETRIC_FAILED), 1)
        self.assertEqual(pad.shake_count, 1)
        self.assertTrue(self.lock_visible())
        self.shot("51-lock-screen-service-mode-reader-busy")
        # No finger enrolled any more (fprintd says so to passcoded): said, nothing counted, and the
        # button goes (passcoded wrote fprintd's answer as the store's availability).
        self.fprintd_obj.SetEnrolledFingers(self.reader, dbus.Array([], signature="s"), dbus_interface=dbusmock.MOCK_IFACE)
        check()
        self.assertEqual(pad.error.get_label(), "No fingerprint reader with an enrolled finger. Enter your passcode.")
        self.assertEqual(self._count(SecurityEvent.BIOMETRIC_FAILED), 1)
        self.assertFalse(app.lock_view.bio_shown)
        self.fprintd_obj.SetEnrolledFingers(self.reader, ["right-index-finger"], dbus_interface=dbusmock.MOCK_IFACE)
        app.update_biometrics()  # the host sees the finger again
        app.refresh()
        self.assertTrue(app.lock_view.bio_shown)
        # A match unlocks.
        check("verify-match")
        self.assertTrue(spin_until(lambda: not self.lock_visible()))
        self.assertTrue(self._logged(SecurityEvent.UNLOCKED_BY_BIOMETRICS))
        record = [(str(m), str(a)) for m, a in mock.GetRecord(self.reader)][before:]
        claims = [a for m, a in record if m == "Claim"]
        self.assertEqual(claims, ["root"] * 3, record)  # no match, no finger, match (busy: refused)
        self.assertEqual(sum(1 for m, _ in record if m == "Release"), 3, record)
        self.assertEqual(sum(1 for m, _ in record if m == "VerifyStart"), sum(1 for m, _ in record if m == "VerifyStop"), record)
        self.assertTrue(all(a == "any" for m, a in record if m == "VerifyStart"), record)


if __name__ == "__main__":
    unittest.main()
