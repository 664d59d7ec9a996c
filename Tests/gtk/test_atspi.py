"""The GTK front end (examples/gtk) as a screen-reader user meets it: the demo runs as its own
process on the accessibility bus (AT-SPI, under Xvfb and a private session bus: Tests/gtk/run.sh),
and this test reads it as Orca does, from the outside: found by its pid, each screen's controls read
back (name and role), pressed through their AT-SPI actions or reached with the keyboard alone.

- Every screen a flow passes through is checked whole: every control (a button, switch, row, entry,
  the passcode) has a name a person can say, not a widget class or a shape, not said twice, and
  the role its kind has.
- The passcode's dots are one control whose name says how many digits are in ("3 of 6 digits
  entered"); an error, the lockout countdown and the fingerprint prompt change the focused
  control's name or description when they appear, which a screen reader speaks; so does a toast's
  text (libadwaita 1.2 does not announce toasts).
- Create, unlock (after a wrong passcode), change, turn off, reset by email and delete the account
  are each done twice: with the keyboard alone (keys synthesised through AT-SPI's device events, as
  Orca passes them on; no pointer event at all) and with AT-SPI actions alone (no key, but for the
  word DELETE: GTK 4.8 has no editable-text interface, so it is typed into the entry focused
  through AT-SPI).

The desktop around it is faked as in test_gtk.py: python-dbusmock's logind and the fprintd
template on a private system bus, aiosmtpd as the mail server on loopback. The group prints the
count of screens and controls checked and the flows done.

    xvfb-run -a dbus-run-session -- /usr/bin/python3 -m unittest Tests/gtk/test_atspi.py   (Tests/gtk/run.sh)
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

import dbus
import dbusmock
import gi

gi.require_version("Atspi", "2.0")
from aiosmtpd.controller import Controller  # noqa: E402
from gi.repository import Atspi, GLib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gtk_loop  # noqa: E402
from gtk_loop import Mailbox, free_port, spin  # noqa: E402
ROOT = os.path.join(HERE, "..", "..")
DEMO = os.path.join(ROOT, "examples", "gtk", "passcode_gtk.py")
PASSCODE, OTHER, THIRD = "258036", "395172", "417293"
R = Atspi.Role

#: What a control is: a role a person presses, types into or reads as the passcode.
CONTROL_ROLES = {R.PUSH_BUTTON, R.TOGGLE_BUTTON, R.CHECK_BOX, R.RADIO_BUTTON, R.LIST_ITEM, R.COMBO_BOX,
                 R.TEXT, R.PASSWORD_TEXT, R.ENTRY, R.STATUS_BAR, R.MENU_ITEM, R.LINK, R.PAGE_TAB,
                 R.SLIDER, R.SPIN_BUTTON, R.TOGGLE_BUTTON}
#: The role each control of the demo must have, by its name (the first pattern that matches).
ROLES = [
    (r"\d+ of \d+ digits entered|Try again in \d+:\d\d", {R.STATUS_BAR}),  # the passcode: not a picture of dots
    (r"Digit \d|Delete|Lock now|Cancel|Send Code|Save Note|Create Passcode…|Sign In Again|Done|Reset via Email"
     r"|Forgot Passcode\?|Use Fingerprint|Touch the fingerprint reader…|Delete account|Delete Account|Sign Out.*"
     r"|Change Password|Change Passcode|Reset Passcode via Email|Email for Reset Codes|Email Code|Close|Minimize"
     r"|Maximize", {R.PUSH_BUTTON, R.LIST_ITEM}),
    (r"Passcode Lock|Unlock with Fingerprint|Require on App Launch|Lock at Launch|Two-Factor Authentication",
     {R.CHECK_BOX, R.TOGGLE_BUTTON, R.LIST_ITEM}),  # a switch, and the row that holds it
    (r"Note|Security|Account|Log", {R.PAGE_TAB}),  # the view switcher
    (r"Auto-Lock", {R.COMBO_BOX}),
    (r"Secret note|Type DELETE to confirm", {R.TEXT, R.ENTRY}),
    (r"(Current |New |Confirm New )?Password", {R.PASSWORD_TEXT, R.TEXT, R.LIST_ITEM}),
]
#: Keys by name: X keysyms, as Atspi.generate_keyboard_event takes them.
KEYSYMS = {"Tab": 0xFF09, "Return": 0xFF0D, "space": 0x20, "Escape": 0xFF1B}
TOTALS = {"screens": [], "controls": 0, "flows": []}


def spin_until(cond, timeout=10.0):
    """gtk_loop.spin_until, an AT-SPI object that went while it was read counting as "not yet"."""
    return gtk_loop.spin_until(cond, timeout, ignore=(GLib.Error,))


def states(obj):
    return obj.get_state_set()


def descendants(obj):
    """obj and everything under it, depth first; a control's own parts (a combo box's list, a
    button's label) are its own business and not walked into."""
    stack = [obj]
    while stack:
        o = stack.pop()
        try:
            role, n = o.get_role(), o.get_child_count()
        except GLib.Error:
            continue
        yield o
        if o is not obj and role in CONTROL_ROLES and role != R.LIST_ITEM:
            continue
        for i in range(n - 1, -1, -1):
            child = o.get_child_at_index(i)
            if child is not None:
                stack.append(child)


class ScreenReader(dbusmock.DBusTestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.start_system_bus()
        cls.logind, cls.logind_obj = cls.spawn_server_template("logind", {}, stdout=subprocess.DEVNULL)
        cls.logind_obj.AddSession("c1", "seat0", dbus.UInt32(os.getuid()), "alice", True, dbus_interface=dbusmock.MOCK_IFACE)
        cls.fprintd, cls.fprintd_obj = cls.spawn_server_template(os.path.join(HERE, "fprintd_template.py"), {},
                                                                 stdout=subprocess.DEVNULL)
        cls.reader = str(cls.fprintd_obj.AddDevice("Synaptics Sensor", ["right-index-finger"],
                                                   dbus_interface=dbusmock.MOCK_IFACE))
        cls.mailbox = Mailbox()
        cls.smtp = Controller(cls.mailbox, hostname="127.0.0.1", port=free_port())
        cls.smtp.start()
        cls.events = []
        cls.listener = Atspi.EventListener.new(cls._event)
        for kind in ("object:state-changed:focused", "object:property-change:accessible-name",
                     "object:property-change:accessible-description"):
            cls.listener.register(kind)

    @classmethod
    def tearDownClass(cls):
        for kind in ("object:state-changed:focused", "object:property-change:accessible-name",
                     "object:property-change:accessible-description"):
            cls.listener.deregister(kind)
        cls.smtp.stop()
        for p in (cls.logind, cls.fprintd):
            p.terminate()
            p.wait()
        super().tearDownClass()
        if TOTALS["screens"]:
            print("\nAT-SPI: %d screens and %d controls checked (names and roles): %s"
                  % (len(TOTALS["screens"]), TOTALS["controls"], "; ".join(TOTALS["screens"])), file=sys.stderr)
        for flow in TOTALS["flows"]:
            print("AT-SPI: done %s" % flow, file=sys.stderr)

    @classmethod
    def _event(cls, e):
        """Every event, read at once (the object may be gone later): what a screen reader hears."""
        try:
            src = e.source
            focused = states(src).contains(Atspi.StateType.FOCUSED)
            cls.events.append((e.type, src.get_role(), src.get_name(), e.detail1,
                               e.any_data if isinstance(e.any_data, str) else None, focused, src))
        except GLib.Error:
            pass

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.events.clear()
        self.mailbox.messages.clear()
        self.proc = None
        self.app = None

    def tearDown(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc.stderr.close()
        self.tmp.cleanup()

    # -- the app --
    def launch(self):
        env = dict(os.environ, USER="alice", XDG_SESSION_ID="c1", XDG_CONFIG_HOME=self.tmp.name,
                   XDG_STATE_HOME=self.tmp.name)
        env.pop("NO_AT_BRIDGE", None)
        env.pop("GTK_A11Y", None)
        self.proc = subprocess.Popen([sys.executable, DEMO, "--store", os.path.join(self.tmp.name, "demo.db"),
                                      "--smtp", "127.0.0.1:%d" % self.smtp.port, "--mail-from", "demo@example.org",
                                      "--mail-to", "alice@example.org"],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def found():
            desktop = Atspi.get_desktop(0)
            for i in range(desktop.get_child_count()):
                a = desktop.get_child_at_index(i)
                if a is not None and a.get_process_id() == self.proc.pid and a.get_child_count() > 0:
                    self.app = a
                    return True
            return False
        self.assertTrue(spin_until(found, timeout=20), "the demo (pid %d) did not appear on the accessibility bus: %s"
                        % (self.proc.pid, self.proc.stderr.read1(4096) if self.proc.poll() is not None else ""))

    def windows(self):
        return [w for w in (self.app.get_child_at_index(i) for i in range(self.app.get_child_count())) if w is not None]

    def window(self, name, timeout=10.0):
        """The toplevel named `name` (a sheet, a dialog, the main window), once it is there."""
        got = []
        self.assertTrue(spin_until(lambda: got.extend(w for w in self.windows() if w.get_name() == name) or got,
                                   timeout=timeout), "no window %r: %s" % (name, [w.get_name() for w in self.windows()]))
        return got[0]

    def gone(self, name):
        self.assertTrue(spin_until(lambda: all(w.get_name() != name for w in self.windows())), "%r stays" % name)

    def find(self, name, role=None, root=None, sensitive=None, timeout=10.0):
        """The control named `name` (a string or a compiled pattern), in any window of the app."""
        got = []

        def look():
            for w in ([root] if root else self.windows()):
                for o in descendants(w):
                    n = o.get_name() or ""
                    if (name.fullmatch(n) if isinstance(name, re.Pattern) else n == name) and \
                            (role is None or o.get_role() == role) and \
                            (sensitive is None or states(o).contains(Atspi.StateType.SENSITIVE) == sensitive):
                        got.append(o)
                        return True
            return False
        self.assertTrue(spin_until(look, timeout=timeout), "no control %r (%s) on screen" % (name, role))
        return got[0]

    def passcode_field(self, root=None):
        return self.find(re.compile(r"\d+ of \d+ digits entered|Try again in .*"), R.STATUS_BAR, root=root)

    # -- what a screen reader reads --
    def check_screen(self, screen):
        """Every control in every window of the app: a name a person can say, and its role."""
        problems, count = [], 0
        for w in self.windows():
            for o in descendants(w):
                if o is w:
                    continue  # the window: named by its title, not a control
                role = o.get_role()
                st = states(o)
                acting = o.get_action_iface() is not None and o.get_action_iface().get_n_actions() > 0 \
                    and role not in (R.LABEL, R.FRAME)
                if role not in CONTROL_ROLES and not st.contains(Atspi.StateType.FOCUSABLE) and not acting:
                    continue
                if role in (R.SCROLL_PANE, R.LIST, R.FRAME) or (role == R.LIST_ITEM and not st.contains(Atspi.StateType.FOCUSABLE)):
                    continue  # containers: their items are the controls
                count += 1
                name = (o.get_name() or "").strip()
                what = "%s %r in %r" % (o.get_role_name(), name, w.get_name())
                if not name:
                    inside = [(c.get_role_name(), c.get_name()) for c in descendants(o) if c is not o][:6]
                    problems.append("no name: %s (holding %s)" % (what, inside))
                    continue
                if re.fullmatch(r"(Gtk|Adw)\w+", name) or not re.search(r"\w", name):
                    problems.append("a widget's class or a shape, not a name: " + what)
                words = name.split()
                if len(words) % 2 == 0 and words and words[:len(words) // 2] == words[len(words) // 2:]:
                    problems.append("the name said twice: " + what)
                if role not in CONTROL_ROLES:
                    problems.append("pressed or focused, but not a control's role: " + what)
                for pattern, roles in ROLES:
                    if re.fullmatch(pattern, name):
                        if role not in roles:
                            problems.append("the wrong role: %s (wanted %s)" % (what, "/".join(
                                Atspi.role_get_name(r) for r in roles)))
                        break
        self.assertEqual(problems, [], screen)
        self.assertGreater(count, 0, screen)
        TOTALS["screens"].append(screen)
        TOTALS["controls"] += count

    def mark(self):
        return len(self.events)

    def heard(self, since, pattern, focused=True):
        """Whether a screen reader was told `pattern` since the mark: a name or description change
        of the focused control (what Orca speaks), or focus moving to a control of that name."""
        for kind, _role, name, detail, data, was_focused, _src in self.events[since:]:
            text = data if kind.startswith("object:property-change") else name if detail == 1 else None
            if text and re.search(pattern, text) and (was_focused or not focused):
                return True
        return False

    def assert_heard(self, since, pattern, timeout=10.0):
        self.assertTrue(spin_until(lambda: self.heard(since, pattern), timeout=timeout),
                        "not said: %r; heard: %s" % (pattern, [(k.split(":")[-1], n, d) for k, _r, n, _x, d, _f, _s
                                                               in self.events[since:]][-12:]))

    # -- the keyboard --
    def key(self, name):
        sym = KEYSYMS.get(name, ord(name) if len(name) == 1 else None)
        Atspi.generate_keyboard_event(sym, None, Atspi.KeySynthType.SYM)

    def type(self, text):
        for ch in text:
            self.key(ch)
        spin(0.05)

    def focused(self):
        """The control with the keyboard focus: the one whose state says so in the window on top."""
        windows = self.windows()
        # The newest modal window (a sheet, a dialog) is the one on top; each window keeps its
        # own focus. (Without a window manager no window is "active".)
        for w in sorted(reversed(windows), key=lambda w: not states(w).contains(Atspi.StateType.MODAL)):
            for o in descendants(w):
                if states(o).contains(Atspi.StateType.FOCUSED):
                    return o
        return None

    def focus_is(self, pattern):
        """Waits until the focused control's name matches `pattern`."""
        self.assertTrue(spin_until(lambda: self.focused() is not None and
                                   re.fullmatch(pattern, self.focused().get_name() or "")),
                        "the focus is on %r, not %r" % (self.focused() and self.focused().get_name(), pattern))

    def tab_to(self, name, limit=40):
        """Tab until the focus is on the control named `name`, as a screen-reader user listens
        for it: each Tab's focus event says where the focus went."""
        seen = []
        for _ in range(limit):
            mark = self.mark()
            self.key("Tab")
            moved = []
            if not spin_until(lambda: moved.extend(e for e in self.events[mark:]
                                                   if e[0] == "object:state-changed:focused" and e[3] == 1) or moved,
                              timeout=2):
                seen.append(None)  # no event: Tab went nowhere new
                continue
            here = moved[-1][2]
            if here == name:
                return moved[-1][6]
            seen.append(here)
        self.fail("Tab never reached %r; it went through %s" % (name, seen))

    def wait_field(self, pattern, root=None):
        self.assertTrue(spin_until(lambda: re.fullmatch(pattern, self.passcode_field(root).get_name() or "")),
                        self.passcode_field(root).get_name())

    def unlocked(self, main):
        """Waits until the lock screen is gone from the main window (its passcode control with it)."""
        self.assertTrue(spin_until(lambda: not any(o.get_role() == R.STATUS_BAR for o in descendants(main))),
                        "the lock screen stays")

    def mail_code(self):
        self.assertTrue(spin_until(lambda: len(self.mailbox.messages) == 1, timeout=15), "no mail")
        return re.search(r"reset code is (\d+)\.", self.mailbox.messages[0].get_payload()).group(1)

    # -- AT-SPI actions --
    def press(self, name, role=None, root=None):
        obj = self.find(name, role, root=root, sensitive=True)
        # on screen (laid out: a page just switched to is drawn a frame later); an action on a
        # button not yet drawn does nothing in GTK 4.8
        self.assertTrue(spin_until(lambda: obj.get_extents(Atspi.CoordType.WINDOW).width > 0), "%r not drawn" % name)
        action = obj.get_action_iface()
        self.assertIsNotNone(action, "%r has no action" % name)
        self.assertTrue(action.do_action(0), name)
        spin(0.05)
        return obj

    def digit_keys(self, root):
        """The pad's keys under root, found once (a walk of the tree is a round trip per object)."""
        keys = {}
        self.assertTrue(spin_until(lambda: keys.update({o.get_name()[-1]: o for o in descendants(root)
                                                         if o.get_role() == R.PUSH_BUTTON and
                                                         re.fullmatch(r"Digit \d", o.get_name() or "")}) or
                                   len(keys) == 10), "no pad in %r" % root.get_name())
        return keys

    def press_digits(self, digits, root=None):
        """The pad's keys by their actions, each after the passcode control said the last one (a
        button pressed again while it still shows the last press, GTK's 250 ms, does nothing)."""
        keys = self.digit_keys(root)
        for i, d in enumerate(digits):
            mark = self.mark()
            self.assertTrue(keys[d].get_action_iface().do_action(0), "Digit " + d)
            if i + 1 < len(digits):
                self.assertTrue(spin_until(lambda: any(e[0] == "object:property-change:accessible-name" and
                                                       e[1] == R.STATUS_BAR for e in self.events[mark:])),
                                "digit %d of %s not taken" % (i + 1, digits))

    # -- the tests --
    def test_every_flow_by_keyboard_alone(self):
        self.launch()
        sheet = self.window("Create Passcode")  # the first launch asks for one
        self.focus_is(r"0 of 6 digits entered")  # the keyboard is on the passcode
        self.check_screen("Create Passcode")
        mark = self.mark()
        self.type(PASSCODE[:3])
        self.assert_heard(mark, r"^3 of 6 digits entered$")  # the dots, said as a count
        self.type(PASSCODE[3:])
        self.wait_field(r"0 of 6 digits entered", root=sheet)
        self.check_screen("Create Passcode: confirm")
        self.type(PASSCODE)
        self.gone("Create Passcode")
        TOTALS["flows"].append("create by keyboard")
        main = self.window("Passcode Demo")
        self.check_screen("Security, passcode on")
        # unlock, after a wrong passcode
        self.tab_to("Lock now")
        self.key("Return")
        self.wait_field(r"0 of 6 digits entered", root=main)
        self.focus_is(r"0 of 6 digits entered")  # the lock screen has the keyboard
        self.check_screen("Lock screen")
        mark = self.mark()
        self.type("111222")
        self.assert_heard(mark, r"^Incorrect passcode$")
        self.check_screen("Lock screen, wrong passcode")
        mark = self.mark()
        self.type(PASSCODE)
        self.unlocked(main)
        self.assert_heard(mark, r"^1 failed attempt since your last unlock$")  # the toast, where the focus went back
        TOTALS["flows"].append("unlock by keyboard, after a wrong passcode, its toast said")
        # change
        self.tab_to("Change Passcode")
        self.key("Return")
        sheet = self.window("Change Passcode")
        self.check_screen("Change Passcode")
        mark = self.mark()
        self.type(PASSCODE + OTHER + OTHER)
        self.gone("Change Passcode")
        self.assert_heard(mark, r"^Passcode changed$")  # the toast, said on the row the focus is back on
        told = [e[6] for e in self.events[mark:] if e[0].endswith("accessible-description") and e[4] == "Passcode changed"]
        TOTALS["flows"].append("change by keyboard, its toast said")
        # reset by email
        self.tab_to("Reset Passcode via Email")
        self.key("Return")
        sheet = self.window("Reset Passcode")
        self.focus_is("Send Code")
        self.check_screen("Reset Passcode: send the code")
        self.key("Return")
        code = self.mail_code()
        self.wait_field(r"0 of %d digits entered" % len(code), root=sheet)
        self.check_screen("Reset Passcode: the code")
        self.type(code)
        self.wait_field(r"0 of 6 digits entered", root=sheet)
        self.type(THIRD + THIRD)
        self.gone("Reset Passcode")
        TOTALS["flows"].append("reset by email by keyboard")
        # turn off
        row = self.tab_to("Passcode Lock")
        self.key("space")
        self.window("Turn Passcode Off")
        self.check_screen("Turn Passcode Off")
        self.type(THIRD)
        self.gone("Turn Passcode Off")
        switch = self.find("Passcode Lock", R.CHECK_BOX)
        self.assertTrue(spin_until(lambda: not states(switch).contains(Atspi.StateType.CHECKED)), row.get_name())
        TOTALS["flows"].append("turn off by keyboard")
        # delete the account
        self.tab_to("Account")
        self.key("space")
        self.tab_to("Delete account")
        self.key("Return")
        dialog = self.window("Delete Account")
        self.check_screen("Delete Account")
        self.focus_is("Type DELETE to confirm")  # the dialog opens on the entry
        self.type("DELETE")
        self.tab_to("Delete Account")
        self.key("Return")
        self.gone("Delete Account")
        self.focus_is("Done")  # the screen that says the account is gone
        self.check_screen("Account Deleted")
        self.key("Return")
        self.focus_is("Sign In Again")
        self.check_screen("Signed Out")
        self.assertIsNotNone(dialog)
        # the change's toast has long gone (4 s), and its text with it: the row's own description is back
        self.assertTrue(spin_until(lambda: told[0].get_description() != "Passcode changed"), told[0].get_name())
        TOTALS["flows"].append("delete account by keyboard")

    def test_every_flow_by_actions_alone(self):
        self.launch()
        sheet = self.window("Create Passcode")
        self.press_digits(PASSCODE + PASSCODE, root=sheet)
        self.gone("Create Passcode")
        TOTALS["flows"].append("create by actions")
        main = self.window("Passcode Demo")
        # the content under the lock screen takes no action while it shows
        self.press("Lock now", R.PUSH_BUTTON)
        self.wait_field(r"0 of 6 digits entered", root=main)
        hidden = self.find("Change Passcode", R.PUSH_BUTTON)  # under the lock screen
        hidden.get_action_iface().do_action(0)  # refused: the lock covers it (the app answers calls in order)
        mark = self.mark()
        self.press_digits("111222", root=main)
        self.assertTrue(spin_until(lambda: self.heard(mark, r"^Incorrect passcode$", focused=False)),
                        ([w.get_name() for w in self.windows()], self.events[mark:][-5:]))
        self.press_digits(PASSCODE, root=main)
        self.unlocked(main)
        self.assertNotIn("Change Passcode", [w.get_name() for w in self.windows()])
        TOTALS["flows"].append("unlock by actions, after a wrong passcode")
        self.press("Change Passcode", R.PUSH_BUTTON)
        sheet = self.window("Change Passcode")
        self.press_digits(PASSCODE + OTHER + OTHER, root=sheet)
        self.gone("Change Passcode")
        TOTALS["flows"].append("change by actions")
        self.press("Reset Passcode via Email", R.PUSH_BUTTON)
        sheet = self.window("Reset Passcode")
        self.press("Send Code", R.PUSH_BUTTON, root=sheet)
        code = self.mail_code()
        self.press_digits(code, root=sheet)
        self.wait_field(r"0 of 6 digits entered", root=sheet)
        self.press_digits(THIRD + THIRD, root=sheet)
        self.gone("Reset Passcode")
        TOTALS["flows"].append("reset by email by actions")
        self.press("Passcode Lock", R.CHECK_BOX)
        sheet = self.window("Turn Passcode Off")
        self.press_digits(THIRD, root=sheet)
        self.gone("Turn Passcode Off")
        switch = self.find("Passcode Lock", R.CHECK_BOX)
        self.assertTrue(spin_until(lambda: not states(switch).contains(Atspi.StateType.CHECKED)))
        TOTALS["flows"].append("turn off by actions")
        self.press("Account", R.PAGE_TAB)
        self.press("Delete account", R.PUSH_BUTTON)
        dialog = self.window("Delete Account")
        entry = self.find("Type DELETE to confirm", root=dialog)
        # GTK 4.8 has no AT-SPI editable-text interface (nor Component.GrabFocus): the word goes
        # in as an AT types it, as key events into the entry, which has the focus.
        self.assertIsNotNone(entry)
        self.focus_is("Type DELETE to confirm")
        self.type("DELETE")
        self.press("Delete Account", R.PUSH_BUTTON, root=dialog)
        self.gone("Delete Account")
        self.press("Done", R.PUSH_BUTTON)
        self.find("Sign In Again", R.PUSH_BUTTON)
        TOTALS["flows"].append("delete account by actions")

    def test_error_lockout_and_fingerprint_prompt_are_said(self):
        import passcode  # the store made beforehand: a passcode, and fingerprint unlock on
        from passcode import BiometricKind, Setting
        with passcode.Store(os.path.join(self.tmp.name, "demo.db")) as store:
            store.set_passcode(PASSCODE)
            store.set_biometric_availability(True, BiometricKind.FINGERPRINT)
            store.set_setting(Setting.BIOMETRIC_ENABLED, 1)
        self.launch()
        main = self.window("Passcode Demo")
        self.wait_field(r"0 of 6 digits entered", root=main)  # locked at launch
        self.check_screen("Lock screen with fingerprint")
        mark = self.mark()
        self.press("Use Fingerprint", R.PUSH_BUTTON)
        self.assert_heard(mark, r"^Touch the fingerprint reader…$")  # the prompt, said on the passcode
        self.check_screen("Lock screen, waiting for a finger")
        mark = self.mark()
        self.fprintd_obj.QueueVerifyResult(self.reader, "verify-no-match", dbus_interface=dbusmock.MOCK_IFACE)
        self.assert_heard(mark, r"^Fingerprint not recognised")
        mark = self.mark()
        self.type("111222")
        self.assert_heard(mark, r"^Incorrect passcode$")
        mark = self.mark()
        for wrong in ("111223", "111224", "111225", "111226"):  # digits typed in the lockout go nowhere
            self.type(wrong)
        self.assert_heard(mark, r"^Try again in 1:00$")  # the countdown, when it appears
        self.assert_heard(mark, r"^Too many attempts")
        self.check_screen("Lock screen, locked out")
        TOTALS["flows"].append("an error, the lockout countdown and the fingerprint prompt said when they appear")


if __name__ == "__main__":
    unittest.main()
