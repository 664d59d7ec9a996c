#!/usr/bin/python3
"""passcode_gtk.py: the GTK 4 / libadwaita front end of libpasscode, the one a Linux app copies.

    passcode_gtk.py [--store PATH] [--smtp HOST[:PORT]] [--mail-from ADDR] [--mail-to ADDR] [--tpm [TCTI]]

The mail server can also come from PASSCODE_DEMO_SMTP=HOST[:PORT] (for `make demo`). Without one,
`python3 -m aiosmtpd -n` is a local sink that prints every mail (localhost:8025).

Every decision (is the app locked, may a fingerprint unlock, how long is the lockout, does this
setting change need the passcode) comes from the library through the Python binding. What this
file adds is the desktop: the screens of the design, logind and the window's visibility reporting
background and foreground, fprintd as the fingerprint reader, and the reset code as an email.
"""
import argparse
import datetime
import gettext
import locale
import logging
import os
import socket
import sys
import threading
from typing import Callable, List, Optional

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Adw", "1")
from gi.repository import Adw, Gdk, Gio, GLib, Gtk  # noqa: E402

try:
    import passcode
except ImportError as e:  # the package itself, or libpasscode.so.0 (the message names both)
    sys.exit(f"passcode_gtk: {e}\n  install the binding (pip install ./python, or the python3-passcode package),"
             " or run from the source tree with PYTHONPATH=python")
from passcode import (BiometricKind, BiometricRefusal, Event, FlowKind, FlowResult, FlowStep,  # noqa: E402
                      LockReason, Message, SecurityEvent, Setting, message_of, message_text)

from desktop import SINK_COMMAND, SINK_PORT, Fingerprint, Logind, Mailer, MailError, system_bus  # noqa: E402

APP_ID = "org.libpasscode.Demo"


def translations() -> gettext.NullTranslations:
    """The front ends' words in the user's language (gettext domain passcode-demo: this checkout's
    build/share/locale, else the system's); the library's words follow the same locale. As the C
    library does, the "C" locale means English whatever LANGUAGE says."""
    try:
        locale.setlocale(locale.LC_ALL, "")
    except locale.Error:
        pass
    if locale.setlocale(locale.LC_MESSAGES) in ("C", "POSIX"):
        return gettext.NullTranslations()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "share", "locale")
    return gettext.translation("passcode-demo", here if os.path.isdir(here) else None, fallback=True)


_T = translations()
_, ngettext = _T.gettext, _T.ngettext

CSS = b"""
.lock-screen { background-color: @window_bg_color; }
.pad-key { min-width: 72px; min-height: 72px; border-radius: 36px; padding: 0; font-size: 22pt; font-weight: 300; }
.pad-key label { min-height: 0; padding: 0; }
.pad-key.delete { font-size: 14pt; }
.pad-dot { min-width: 12px; min-height: 12px; border-radius: 8px; border: 2px solid alpha(@window_fg_color, 0.55); }
.pad-dot.filled { background-color: @window_fg_color; border-color: @window_fg_color; }
.pad-error { color: @error_color; font-weight: bold; }
.pad-countdown { font-variant-numeric: tabular-nums; }
@keyframes shake {
  0% { transform: translateX(0); } 15% { transform: translateX(-14px); } 30% { transform: translateX(14px); }
  45% { transform: translateX(-10px); } 60% { transform: translateX(10px); } 75% { transform: translateX(-4px); }
  100% { transform: translateX(0); }
}
.shake { animation: shake 450ms ease-in-out; }
.badge { padding: 2px 8px; border-radius: 9px; font-size: 9pt; font-weight: bold;
         background-color: alpha(@accent_bg_color, 0.2); color: @accent_color; }
.note-view { padding: 12px; border-radius: 12px; }
.note-view text { background-color: transparent; }
.note-view:disabled { background-color: alpha(@card_bg_color, 0.5); }
.request-error { color: @error_color; }
"""

#: A toast's close button, as a screen reader names it.
CLOSE = _("Close")

#: The pad's error line: at most this many lines, and the space for them is always kept, so
#: nothing above or below moves when a message appears (HIG: no layout jumps).
ERROR_LINES = 2

#: A toast's show animation, with a margin (libadwaita 1.2 must not dismiss it before; see App._dismiss).
TOAST_SHOW_US = 500_000

KIND_TITLES = {FlowKind.UNLOCK: _("Enter Passcode"), FlowKind.CREATE: _("Create Passcode"),
               FlowKind.CHANGE: _("Change Passcode"), FlowKind.DISABLE: _("Turn Passcode Off"),
               FlowKind.RESET: _("Reset Passcode")}


def duration_text(seconds: int) -> str:
    """An auto-lock choice as a person reads it: "Immediately", "After 1 minute", "After 1 hour"."""
    if seconds == 0:
        return _("Immediately")
    if seconds % 3600 == 0:
        return ngettext("After %d hour", "After %d hours", seconds // 3600) % (seconds // 3600)
    if seconds % 60 == 0:
        return ngettext("After %d minute", "After %d minutes", seconds // 60) % (seconds // 60)
    return ngettext("After %d second", "After %d seconds", seconds) % seconds


def wait_text(seconds: int) -> str:
    return "%d:%02d" % (seconds // 60, seconds % 60)


def event_text(kind: SecurityEvent) -> str:
    """A log entry's name, the library's (its message table)."""
    return message_text(message_of(kind))


#: The app's own log (stderr, or the journal under a desktop session): what a screen says in the
#: app's words, with the detail a person would not read there.
LOG = logging.getLogger("passcode_gtk")

def service_mail_words(e: passcode.PasscodeError) -> str:
    """passcoded's refusal to mail (RESET_DELIVERY_UNAVAILABLE) in the app's words; its own text
    (the relay's address, the server's reply) goes to the app's log, not on the screen."""
    LOG.warning("the passcode service could not mail: %s", e.message)
    if "no mail relay is configured" in e.message:
        return _("This computer’s passcode service has no mail server set up, so it cannot email a code. "
                 "Use “Forgot Passcode?” to sign out and create a new passcode.")
    if "recipient" in e.message:
        return _("No confirmed email address for reset codes yet: set one under Security, “Email for Reset Codes”.")
    return _("The passcode service could not send the email: its mail server did not take it. "
             "Try again later, or use “Forgot Passcode?” to sign out and create a new passcode.")


def accessible_label(widget: Gtk.Widget, text: str) -> None:
    """What a screen reader says for a control without a visible label (GTK 4.8 has no getter,
    so the text is kept on the wrapper too, for the tests)."""
    widget.update_property([Gtk.AccessibleProperty.LABEL], [text])
    widget.a11y_label = text  # type: ignore[attr-defined]


def presentation(cls, **props) -> Gtk.Widget:
    """A widget of class cls that a screen reader skips (an icon beside its text, a passcode dot)."""
    return cls(accessible_role=Gtk.AccessibleRole.PRESENTATION, **props)


def name_close_buttons(root: Gtk.Widget) -> None:
    """libadwaita 1.2 gives a toast's close button no name (a screen reader says "GtkImage"):
    each one under root gets one."""
    stack = [root]
    while stack:
        w = stack.pop()
        if isinstance(w, Gtk.Button) and not hasattr(w, "a11y_label") and w.get_icon_name() == "window-close-symbolic":
            accessible_label(w, CLOSE)
        child = w.get_first_child()
        while child is not None:
            stack.append(child)
            child = child.get_next_sibling()


def name_buttons_by_label(root: Gtk.Widget) -> None:
    """libadwaita 1.2's dialog buttons are labelled by their label twice over (a screen reader
    says "Cancel Cancel"): each button under root with a label is named by it, once."""
    stack = [root]
    while stack:
        w = stack.pop()
        if isinstance(w, Gtk.Button) and w.get_label():
            w.reset_relation(Gtk.AccessibleRelation.LABELLED_BY)
            accessible_label(w, w.get_label())
        child = w.get_first_child()
        while child is not None:
            stack.append(child)
            child = child.get_next_sibling()


def save_png(widget: Gtk.Widget, path: str) -> None:
    """Renders a realized widget (a window, a page) to a PNG, as the screenshots are made.
    PyGObject before 3.46 cannot hold a GskRenderNode, so the three calls that pass one go
    through ctypes (the same GTK the process already loaded)."""
    import ctypes
    gtk = ctypes.CDLL("libgtk-4.so.1")
    gtk.gtk_snapshot_to_node.restype = ctypes.c_void_p
    gtk.gtk_snapshot_to_node.argtypes = [ctypes.c_void_p]
    gtk.gsk_renderer_render_texture.restype = ctypes.c_void_p
    gtk.gsk_renderer_render_texture.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    gtk.gdk_texture_save_to_png.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    gtk.gsk_render_node_unref.argtypes = [ctypes.c_void_p]
    gtk.g_object_unref.argtypes = [ctypes.c_void_p]

    def ptr(obj: object) -> int:
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        return int(get(obj.__gpointer__, None))  # type: ignore[attr-defined]

    w, h = widget.get_width(), widget.get_height()
    snap = Gtk.Snapshot()
    Gtk.WidgetPaintable.new(widget).snapshot(snap, w, h)
    node = gtk.gtk_snapshot_to_node(ptr(snap))
    rect = (ctypes.c_float * 4)(0, 0, w, h)
    texture = gtk.gsk_renderer_render_texture(ptr(widget.get_native().get_renderer()), node, rect)
    try:
        if not texture or not gtk.gdk_texture_save_to_png(texture, path.encode()):
            raise OSError("cannot render %s to %s" % (type(widget).__name__, path))
    finally:
        if node:
            gtk.gsk_render_node_unref(node)
        if texture:
            gtk.g_object_unref(texture)


# -- the number pad ------------------------------------------------------------------------------

class PadView(Gtk.Box):
    """Title, dots, error, countdown and the 3x4 pad (1-9, empty, 0, delete), driven by one flow
    of the library. Keys: digits, Backspace; the owner handles Escape."""

    def __init__(self, on_finished: Callable[["PadView"], None]):
        super().__init__(orientation=Gtk.Orientation.VERTICAL, spacing=14,
                         halign=Gtk.Align.CENTER, valign=Gtk.Align.CENTER)
        self.on_finished = on_finished
        self.flow: Optional[passcode.Flow] = None
        self.step_subtitles: dict = {}  # FlowStep (None: any other) -> the subtitle's markup
        self.shake_count = 0        # the shakes this view played (tests read it)
        self._seen_shakes = 0
        self.icon = presentation(Gtk.Image, icon_name="system-lock-screen-symbolic", pixel_size=40)
        self.title = Gtk.Label(css_classes=["title-2"], wrap=True, justify=Gtk.Justification.CENTER)
        self.subtitle = Gtk.Label(css_classes=["dim-label"], wrap=True, justify=Gtk.Justification.CENTER,
                                  max_width_chars=36, visible=False)
        self.dots = presentation(Gtk.Box, spacing=16, halign=Gtk.Align.CENTER, valign=Gtk.Align.CENTER)
        self.countdown = presentation(Gtk.Label, css_classes=["title-3", "pad-countdown"], visible=False,
                                      valign=Gtk.Align.CENTER)
        # The dots and the countdown share one slot, and the error keeps its two lines' space
        # when empty: the icon, title and pad stay where they are whatever shows.
        # For a screen reader the slot is the passcode's one control: it has the keyboard focus
        # while the pad shows (digits typed anywhere in the window go to the flow), its name says
        # how many digits are in ("3 of 6 digits entered", never the dots' shapes) or the
        # lockout, and its description is what just went wrong or what to do now (the error,
        # the fingerprint prompt). A screen reader speaks a change of either on the focused
        # control; GTK 4.8 has no call to announce a text (gtk_accessible_announce is 4.14).
        self.dots_slot = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, halign=Gtk.Align.CENTER,
                                 margin_top=8, height_request=34, valign=Gtk.Align.CENTER,
                                 accessible_role=Gtk.AccessibleRole.STATUS, focusable=True, visible=False)
        self.notice = ""  # what the pad asks for besides digits (the fingerprint prompt), said as the error is
        self._lockout_name = ""  # the countdown when the lockout began, renewed every 15 s (not said every second)
        self._said = ("", "")
        self.dots_slot.append(self.dots)
        self.dots_slot.append(self.countdown)
        self.error = Gtk.Label(css_classes=["pad-error"], wrap=True, justify=Gtk.Justification.CENTER,
                               max_width_chars=44, width_chars=44, lines=ERROR_LINES, ellipsize=3,  # Pango.EllipsizeMode.END
                               visible=False, valign=Gtk.Align.START)
        self.error.connect("notify::label", lambda *_: self._update_accessible())
        self.error.connect("notify::visible", lambda *_: self._update_accessible())
        probe = Gtk.Label(css_classes=["pad-error"], label="\n".join(["Ag"] * ERROR_LINES))
        self.error_slot = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, halign=Gtk.Align.CENTER,
                                  height_request=probe.measure(Gtk.Orientation.VERTICAL, -1)[1])
        self.error_slot.append(self.error)
        self.grid = Gtk.Grid(row_spacing=14, column_spacing=24, halign=Gtk.Align.CENTER, margin_top=10)
        self.keys: dict = {}
        for i, key in enumerate(["1", "2", "3", "4", "5", "6", "7", "8", "9", "", "0", "del"]):
            if not key:
                continue
            if key == "del":
                b = Gtk.Button(icon_name="edit-clear-symbolic", css_classes=["pad-key", "delete", "flat", "circular"],
                               halign=Gtk.Align.CENTER, valign=Gtk.Align.CENTER)
                accessible_label(b, _("Delete"))
                b.connect("clicked", lambda _b: self.delete())
            else:
                b = Gtk.Button(label=key, css_classes=["pad-key", "circular"],
                               halign=Gtk.Align.CENTER, valign=Gtk.Align.CENTER)
                accessible_label(b, _("Digit %s") % key)
                b.connect("clicked", lambda _b, d=int(key): self.digit(d))
            b.set_focus_on_click(False)
            b.set_size_request(72, 72)  # every key the same circle, whatever its row holds
            self.keys[key] = b
            self.grid.attach(b, i % 3, i // 3, 1, 1)
        self.extra = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin_top=8)
        for w in (self.icon, self.title, self.subtitle, self.dots_slot, self.error_slot, self.grid, self.extra):
            self.append(w)

    # -- driving the flow --
    def bind(self, flow: Optional[passcode.Flow]) -> None:
        self.flow = flow
        self._seen_shakes = flow.shakes if flow else 0
        self._lockout_name = ""
        self.notice = ""
        self.dots_slot.set_visible(flow is not None)  # no passcode control without a flow to enter it into
        self.refresh()
        if flow is not None:
            self.dots_slot.grab_focus()  # a new flow: the keyboard (and a screen reader) is on the passcode

    def say(self, notice: str) -> None:
        """What the pad asks for now besides digits ("Touch the fingerprint reader…"), or ""."""
        self.notice = notice
        self._update_accessible()

    def _update_accessible(self) -> None:
        """The slot's name and description (see __init__), set only when they change: a screen
        reader speaks every change."""
        f = self.flow
        if f is None:
            return
        filled, length = f.dots
        if f.step == FlowStep.LOCKED_OUT:
            if not self._lockout_name or f.lockout_remaining % 15 == 0:  # not every second: every 15
                self._lockout_name = self.countdown.get_label()
            name, description = self._lockout_name, f.error
        else:
            self._lockout_name = ""
            name = _("%d of %d digits entered") % (filled, length)
            description = self.error.get_label() if self.error.get_visible() else self.notice
        if (name, description) != self._said:
            self._said = (name, description)
            accessible_label(self.dots_slot, name)
            self.dots_slot.update_property([Gtk.AccessibleProperty.DESCRIPTION], [description])
            self.dots_slot.a11y_description = description  # type: ignore[attr-defined]  (a toast's text gives it back: App.announce)

    def digit(self, d: int) -> None:
        if not self.flow or self.flow.step in (FlowStep.FINISHED, FlowStep.LOCKED_OUT):
            return
        try:
            self.flow.digit(d)  # at the last digit this runs Argon2id (~0.1-1 s)
        except passcode.PasscodeError:
            pass  # the flow's error and status say what happened; refresh shows them
        self.refresh()

    def delete(self) -> None:
        if self.flow and self.flow.step not in (FlowStep.FINISHED, FlowStep.LOCKED_OUT):
            self.flow.delete()
            self.refresh()

    def key_pressed(self, keyval: int) -> bool:
        name = Gdk.keyval_name(keyval) or ""
        if name.startswith("KP_"):
            name = name[3:]
        if len(name) == 1 and name.isdigit():
            self.digit(int(name))
            return True
        if name in ("BackSpace", "Delete"):
            self.delete()
            return True
        return False

    def refresh(self) -> None:
        f = self.flow
        if f is None:
            return
        f.refresh()
        step = f.step
        filled, length = f.dots
        self.title.set_label(f.prompt)
        if self.step_subtitles:  # a line under the title for some steps (None: the others')
            text = self.step_subtitles.get(step, self.step_subtitles.get(None, ""))
            self.subtitle.set_markup(text)
            self.subtitle.set_visible(bool(text))
        while len(list(self._children(self.dots))) != length:
            kids = list(self._children(self.dots))
            if len(kids) > length:
                self.dots.remove(kids[-1])
            else:
                self.dots.append(presentation(Gtk.Box, css_classes=["pad-dot"], valign=Gtk.Align.CENTER))
        for i, dot in enumerate(self._children(self.dots)):
            (dot.add_css_class if i < filled else dot.remove_css_class)("filled")
        locked_out = step == FlowStep.LOCKED_OUT
        self.error.set_label(f.error)
        self.error.set_visible(bool(f.error) and not locked_out)  # the countdown says it
        self.countdown.set_visible(locked_out)
        if locked_out:
            self.countdown.set_label(_("Try again in %s") % wait_text(f.lockout_remaining))
        self._update_accessible()
        self.dots.set_visible(not locked_out and step != FlowStep.FINISHED)
        self.grid.set_sensitive(not locked_out and step != FlowStep.FINISHED)
        if f.shakes != self._seen_shakes:
            self._seen_shakes = f.shakes
            self.shake()
        if step == FlowStep.FINISHED:
            self.on_finished(self)

    def shake(self) -> None:
        """A wrong passcode: the dots shake (CSS animation) and the error shows in red."""
        self.shake_count += 1
        self.dots.remove_css_class("shake")
        self.dots.add_css_class("shake")
        GLib.timeout_add(500, lambda: self.dots.remove_css_class("shake") and False)

    @staticmethod
    def _children(box: Gtk.Widget):
        child = box.get_first_child()
        while child is not None:
            yield child
            child = child.get_next_sibling()


# -- sheets: create, change, disable, confirm, reset ----------------------------------------------

class FlowSheet(Adw.Window):
    """A modal sheet over the window with one flow: create, change and disable, the passcode
    confirmation a weakening change asks for, and the email reset (send the code, enter it, the
    new passcode, confirm)."""

    def __init__(self, app: "App", kind: FlowKind, done: Callable[[FlowResult, str], None],
                 title: Optional[str] = None, why: str = ""):
        super().__init__(modal=True, transient_for=app.window, default_width=420, default_height=680,
                         title=title or KIND_TITLES[kind])
        self.app, self.kind, self.done = app, kind, done
        accessible_label(self, title or KIND_TITLES[kind])
        self.flow: Optional[passcode.Flow] = None
        self.finished = False
        header = Adw.HeaderBar(show_end_title_buttons=False,
                               title_widget=Adw.WindowTitle(title=title or KIND_TITLES[kind]))
        cancel = Gtk.Button(label=_("Cancel"))
        cancel.connect("clicked", lambda _b: self.cancel())
        header.pack_start(cancel)
        self.pad = PadView(self._finished)
        if why:  # markup (a quoted row title is kept on one line)
            self.pad.subtitle.set_markup(why)
            self.pad.subtitle.set_visible(True)
        self.stack = Gtk.Stack(vexpand=True, transition_type=Gtk.StackTransitionType.SLIDE_LEFT)
        self.stack.add_named(self.pad, "pad")
        if kind == FlowKind.RESET:
            self.stack.add_named(self._request_page(), "request")
            self.stack.set_visible_child_name("request")
        else:
            self._start()
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        box.append(header)
        box.append(self.stack)
        self.set_content(box)
        keys = Gtk.EventControllerKey()
        keys.connect("key-pressed", self._key)
        self.add_controller(keys)
        self.connect("close-request", lambda _w: (self.cancel(), True)[1])
        # The keyboard starts where the sheet's work is: the passcode, or Send Code.
        self.set_focus(self.send_button if kind == FlowKind.RESET else self.pad.dots_slot)

    def _request_page(self) -> Gtk.Widget:
        digits = self.app.store.get_setting(Setting.RESET_CODE_LENGTH)  # the library's number, not a copy
        to = self.app.reset_address()
        if to:
            text = ngettext("We will send a %d-digit code to %s. Enter it here to choose a new passcode.",
                            "We will send a %d-digit code to %s. Enter it here to choose a new passcode.", digits) % (digits, to)
            if str(digits).startswith("8") or digits in (11, 18):
                text = text.replace("send a ", "send an ", 1)  # English's "an 8-digit code" (no other language has the words)
        else:  # service mode: passcoded mails the code, to the address set under Security
            text = _("No email address is set for reset codes. Set one under Security, "
                     "“Email for Reset Codes”, while you know your passcode.")
        page = Adw.StatusPage(icon_name="mail-send-symbolic", title=_("Reset via Email"), description=text)
        self.request_description = page.get_description()
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12)
        self.send_button = Gtk.Button(label=_("Send Code"), css_classes=["suggested-action", "pill"], halign=Gtk.Align.CENTER)
        self.send_button.connect("clicked", lambda _b: self.send_code())
        self.request_error = Gtk.Label(css_classes=["request-error"], wrap=True, visible=False, max_width_chars=40,
                                       justify=Gtk.Justification.CENTER, halign=Gtk.Align.CENTER)
        box.append(self.send_button)
        box.append(self.request_error)
        page.set_child(box)
        return page

    def send_code(self) -> None:
        """Asks the library for a code; it hands the code to App.deliver, which emails it."""
        try:
            self.app.store.request_reset_code()
        except passcode.RateLimited as e:
            # The library's words for the refusal, with the wait in them once (its code and number:
            # RESET_REQUEST_WAIT_SECONDS or _MINUTES), in the user's language.
            self.request_error.set_label(person_words(e))
            self.request_error.set_visible(True)
            return
        except passcode.PasscodeError as e:
            # The binding does not pass a callback's exception text to the library (it could
            # hold a secret); the mailer's own failure names only the server. passcoded's is
            # said in the app's words, its text logged.
            failure = self.app.last_mail_failure
            if self.app.service and isinstance(e, passcode.ResetDeliveryUnavailable):
                self.request_error.set_markup(GLib.markup_escape_text(service_mail_words(e)))
            else:
                self.request_error.set_markup(mail_failure_markup(failure) if failure is not None
                                              else GLib.markup_escape_text(person_words(e)))
            self.request_error.set_visible(True)
            self.app.refresh()
            return
        # Where the code went: the masked address (passcoded answers it in service mode); never the code.
        self.sent_to = self.app.reset_address()
        self.pad.step_subtitles = {FlowStep.ENTER_CODE: _("The code was sent to %s.") % unbroken(self.sent_to),
                                   None: GLib.markup_escape_text(_("Your reset code was accepted."))}
        self._start()
        self.stack.set_visible_child_name("pad")

    def _start(self) -> None:
        try:
            self.flow = self.app.store.flow(self.kind)
        except passcode.PasscodeError as e:
            message = e.message
            self.app.toast(message)
            GLib.idle_add(lambda: self._close(FlowResult.FAILED, message) and False)
            return
        self.pad.bind(self.flow)

    def _key(self, _c, keyval: int, _code: int, _state) -> bool:
        if Gdk.keyval_name(keyval) == "Escape":
            self.cancel()
            return True
        return self.pad.key_pressed(keyval)

    def cancel(self) -> None:
        if self.flow and self.flow.step != FlowStep.FINISHED:
            self.flow.cancel()
            self.pad.refresh()
        elif not self.finished:
            self._close(FlowResult.CANCELLED, "")

    def _finished(self, pad: PadView) -> None:
        assert self.flow is not None
        self._close(self.flow.result, self.flow.error)

    def _close(self, result: FlowResult, error: str) -> None:
        if self.finished:
            return
        self.finished = True
        if self.flow:
            self.flow.close()
            self.flow = None
        self.app.sheet = None
        self.destroy()
        self.done(result, error)


class RecipientSheet(Adw.Window):
    """Service mode: the address passcoded mails reset codes to. Setting or changing it needs the
    passcode, which passcoded checks and counts as any attempt; passcoded then mails the address a
    confirmation code, which the sheet asks for next (with the passcode again): only a confirmed
    address gets reset codes. Root's own stores need neither (passcoded takes root's word)."""

    def __init__(self, app: "App"):
        title = _("Email for Reset Codes")
        super().__init__(modal=True, transient_for=app.window, default_width=420, default_height=680, title=title)
        self.app = app
        accessible_label(self, title)
        header = Adw.HeaderBar(show_end_title_buttons=False, title_widget=Adw.WindowTitle(title=title))
        cancel = Gtk.Button(label=_("Cancel"))
        cancel.connect("clicked", lambda _b: self.close_sheet())
        header.pack_start(cancel)
        now = app.reset_address()
        group = Adw.PreferencesGroup(
            description=_("If you forget your passcode, the passcode service emails a reset code to this address. ")
                        + (_("Codes now go to %s. ") % now if now else "") + _("Enter your passcode to change it."))
        self.group = group
        self.address = Adw.EntryRow(title=_("Email Address"))
        self.code = Adw.EntryRow(title=_("Confirmation Code"), visible=False, input_purpose=Gtk.InputPurpose.DIGITS)
        self.passcode = Adw.PasswordEntryRow(title=_("Passcode"))
        self.waiting = ""  # the masked address a confirmation code was mailed to
        for row in (self.address, self.code, self.passcode):
            group.add(row)
            row.connect("changed", lambda _e: self.error.set_visible(False))
            row.connect("entry-activated", lambda _e: self.save())
        self.error = Gtk.Label(css_classes=["pad-error"], wrap=True, visible=False, max_width_chars=40,
                               justify=Gtk.Justification.CENTER, halign=Gtk.Align.CENTER)
        self.save_button = Gtk.Button(label=_("Save"), css_classes=["suggested-action", "pill"], halign=Gtk.Align.CENTER)
        self.save_button.connect("clicked", lambda _b: self.save())
        body = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=18, margin_top=24, margin_bottom=24,
                       margin_start=18, margin_end=18)
        for w in (presentation(Gtk.Image, icon_name="mail-send-symbolic", pixel_size=40), group, self.save_button, self.error):
            body.append(w)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        box.append(header)
        box.append(body)
        self.set_content(box)
        keys = Gtk.EventControllerKey()
        keys.connect("key-pressed", lambda _c, keyval, _k, _s: Gdk.keyval_name(keyval) == "Escape" and (self.close_sheet(), True)[1])
        self.add_controller(keys)
        self.connect("close-request", lambda _w: (self.close_sheet(), True)[1])

    def save(self) -> None:
        digits = self.passcode.get_text()
        self.passcode.set_text("")  # not kept on screen, right or wrong
        address = self.address.get_text().strip()
        try:
            if self.waiting:
                self.app.store.confirm_reset_recipient(self.code.get_text().strip(), digits)
            else:
                self.app.store.set_reset_recipient(address, digits)
        except passcode.ResetDeliveryUnavailable as e:  # the confirmation code could not be mailed
            self.error.set_label(service_mail_words(e))
            self.error.set_visible(True)
            return
        except (passcode.InvalidArgument, passcode.FormatError) as e:  # what was typed is not an address or a code
            LOG.info("%s", e)
            self.error.set_label(_("Enter the confirmation code from the email and your passcode.") if self.waiting
                                 else _("Enter an email address and your passcode."))
            self.error.set_visible(True)
            return
        except passcode.PasscodeError as e:
            # The library's words ("Incorrect code. 2 more tries before it is discarded." fits the
            # confirmation code too), in the user's language.
            self.error.set_label(person_words(e))
            self.error.set_visible(True)
            return
        masked = "%s***%s" % (address[0], address[address.rindex("@"):]) if "@" in address else ""
        if address and not self.waiting and self.app.reset_address() != masked:
            # Not the recipient yet (passcoded takes root's word at once): the address waits for
            # the code passcoded mailed to it.
            self.waiting = masked
            self.group.set_description(_("A confirmation code was sent to %s. Enter it with your passcode: reset "
                                         "codes go there once it is confirmed.") % self.waiting)
            self.address.set_visible(False)
            self.code.set_visible(True)
            self.save_button.set_label(_("Confirm"))
            self.code.grab_focus()
            return
        self.close_sheet()
        to = self.app.reset_address()
        self.app.toast(_("Reset codes will be sent to %s") % to if to else _("No email address for reset codes"))

    def close_sheet(self) -> None:
        self.app.sheet = None
        self.destroy()
        self.app.refresh()


# -- the lock screen -----------------------------------------------------------------------------

class LockView(Gtk.Stack):
    """Opaque, over the app's content: the pad with "Forgot Passcode?" and the fingerprint button,
    or "Signed Out" after forgot passcode / the forced logout, or "Reset Required"."""

    def __init__(self, app: "App"):
        super().__init__(css_classes=["lock-screen"], hexpand=True, vexpand=True,
                         transition_type=Gtk.StackTransitionType.CROSSFADE)
        self.app = app
        self.pad = PadView(lambda _p: app.lock_flow_finished())
        self.bio_button = Gtk.Button(css_classes=["flat"], halign=Gtk.Align.CENTER)
        self.bio_button.set_child(Adw.ButtonContent(icon_name="auth-fingerprint-symbolic", label=_("Use Fingerprint")))
        # Its name is what it shows (a voice command says what it sees); while the reader waits
        # for a finger ("Touch the fingerprint reader…"), the pad says that too.
        self._bio_idle = self.bio_button.get_child().get_label()
        self.bio_button.get_child().connect("notify::label", lambda c, _p: self._bio_label(c.get_label()))
        self._bio_label(self._bio_idle)
        self.bio_button.connect("clicked", lambda _b: app.start_fingerprint())
        self.forgot_button = Gtk.Button(label=_("Forgot Passcode?"), css_classes=["flat"], halign=Gtk.Align.CENTER)
        self.forgot_button.connect("clicked", lambda _b: app.confirm_forgot())
        # The fingerprint button's space is kept when it is hidden (a stack as tall as the button):
        # the passcode entry stays where it is with or without it (no layout jump).
        self.bio_slot = Gtk.Stack(vhomogeneous=True, hhomogeneous=False)
        self.bio_slot.add_named(self.bio_button, "button")
        self.bio_slot.add_named(Gtk.Box(), "none")
        self.pad.extra.append(self.bio_slot)
        self.pad.extra.append(self.forgot_button)
        accessible_label(self.pad, _("Lock Screen"))
        self.add_named(self.pad, "pad")
        self.connect("notify::visible-child", lambda *_: self.focus_current())
        self.signed_out = self._status_page("signed-out", "system-users-symbolic", _("Signed Out"),
                                            _("Sign in to your account again, then create a new passcode."),
                                            _("Sign In Again"), app.sign_in_again)
        self.reset_page = self._status_page("reset-required", "dialog-warning-symbolic", _("Passcode Reset Required"),
                                            _("Too many failed attempts. Reset your passcode with a code sent by email."),
                                            _("Reset via Email"), app.open_reset)
        # After deleting the account, a screen that says so (not "Signed Out").
        self.deleted_page = self._status_page("account-deleted", "user-trash-symbolic", _("Account Deleted"),
                                              _("Your account, its passcode, its devices and its security log were "
                                                "deleted from this computer."), _("Done"), app.deleted_done)

    def _bio_label(self, label: str) -> None:
        self.bio_button.a11y_label = label  # type: ignore[attr-defined]  (AdwButtonContent's label names the button)
        self.pad.say("" if label == self._bio_idle else label)

    def focus_current(self) -> None:
        """The keyboard on what the lock screen shows: the passcode, or the page's one button."""
        child = self.get_visible_child()
        target = self.pad.dots_slot if child is self.pad else child.get_child() if child else None
        if target is not None:
            target.grab_focus()

    @property
    def bio_shown(self) -> bool:
        return self.bio_slot.get_visible_child_name() == "button"

    def show_bio(self, shown: bool) -> None:
        self.bio_slot.set_visible_child_name("button" if shown else "none")

    def _status_page(self, name: str, icon: str, title: str, description: str, button: str,
                     action: Callable[[], None]) -> Adw.StatusPage:
        page = Adw.StatusPage(icon_name=icon, title=title, description=description)
        accessible_label(page, title)
        b = Gtk.Button(label=button, css_classes=["suggested-action", "pill"], halign=Gtk.Align.CENTER)
        b.connect("clicked", lambda _b: action())
        page.set_child(b)
        self.add_named(page, name)
        return page


# -- the app -------------------------------------------------------------------------------------

class App:
    """One window over one store. `clock` (tests) replaces the system clock, as in the binding."""

    def __init__(self, application: Adw.Application, store_path: str, *, clock=None, tpm=None,
                 mailer: Optional[Mailer] = None, bus: Optional[Gio.DBusConnection] = None,
                 username: Optional[str] = None, service: Optional[str] = None):
        self.application = application
        self.store_path = store_path
        # service: an application id; the store is the one passcoded keeps for it (service mode),
        # store_path only a label. The note is sealed with that store's key: a file of its own.
        self.service = service
        self.note_path = f"{store_path}.{service}.note" if service else store_path + ".note"
        self.store = passcode.Store(store_path, clock=clock, tpm=tpm, service=service)
        self.clock = clock
        self.account_deleted = False  # the "Account Deleted" screen shows until Done
        self.session_names: dict = {}  # session id -> device name, for the log (ids are not for people)
        self._toasts: List[tuple] = []  # (page, toast) on screen
        self._page_free_at: dict = {}  # page -> when (monotonic us) a toast dismissed late leaves it
        self._closed = False
        self.late_dismissals: set = set()  # toasts that go once their show animation ends
        self._unlock_fade: Optional[Adw.TimedAnimation] = None
        self._focus_before_lock: Optional[Gtk.Widget] = None
        self.mailer = mailer or Mailer()
        self.sheet: Optional[FlowSheet] = None
        self.dialog: Optional[Adw.MessageDialog] = None
        self.lock_flow: Optional[passcode.Flow] = None
        self.last_toast = ""
        self.last_toast_page = ""
        self._toast: Optional[Adw.Toast] = None
        self.last_mail_error = ""
        self.last_mail_failure: Optional[MailError] = None
        self._note_problem = ""
        self._note_removed = ""  # said until a new note is saved: the old one could not be kept
        self.in_background = False
        self._updating = False
        self._service_finger: Optional[threading.Thread] = None  # service mode: passcoded reading a finger
        try:
            self.store.on_reset_code(self.deliver)
        except passcode.RefusedInServiceMode:
            pass  # service mode: passcoded delivers reset codes itself, or refuses a request with its reason
        self.store.on_logout(lambda _reason: GLib.idle_add(self.refresh))
        self.store.on_account_deleted(self._on_account_deleted)
        self.fingerprint = Fingerprint(bus, username or os.environ.get("USER") or "user")
        self.logind = Logind(bus, self.on_prepare_for_sleep, self.on_session_lock)
        self._fill_sessions()
        self._build()
        self.update_biometrics()
        self.store.report(Event.LAUNCHED)
        self.refresh()
        self._ticker = GLib.timeout_add(500, self._tick)
        # The first launch (no passcode yet, no sign-in pending): "Create a passcode", over the
        # Security page where the passcode lives. Cancel leaves the lock off, said on that page.
        self.first_launch = not self.store.is_set and not self.store.locked
        if self.first_launch:
            self.views.set_visible_child_name("security")
            GLib.idle_add(self._first_launch)

    def _first_launch(self) -> bool:
        if self.sheet is None and self.dialog is None and not self.store.is_set and not self.store.locked:
            self.open_flow(FlowKind.CREATE, why=GLib.markup_escape_text(
                _("Welcome. Create a passcode to protect the app and your secret note.")))
        return False

    # -- host callbacks --
    def deliver(self, code: str) -> None:
        """The library's reset-code callback: the front end is the host, and emails the code.
        Raising makes the library record "delivery failed" with this message (never the code)."""
        try:
            self.mailer.send(code, self.store.get_setting(Setting.RESET_CODE_LIFETIME_SECONDS))
            self.last_mail_error, self.last_mail_failure = "", None
        except MailError as e:
            self.last_mail_error, self.last_mail_failure = str(e), e
            raise

    def _on_account_deleted(self) -> None:
        self.account_deleted = True
        self.session_names.clear()

    def now_ms(self) -> int:
        """The wall clock in ms: the one the library uses (a test's clock, else the system's)."""
        if self.clock is not None:
            return int(self.clock()[1])
        return int(datetime.datetime.now().timestamp() * 1000)

    def _fill_sessions(self) -> None:
        """The account's devices. A real app gets them from its backend; the demo records this
        machine and, on first run, two other devices so that the page has something to show."""
        now = int(datetime.datetime.now().timestamp() * 1000)
        try:
            sessions = self.store.sessions()
            known = {s.id for s in sessions}
            self.session_names.update({s.id: s.device_name for s in sessions})
            self.store.record_session("this-device", socket.gethostname(), "Linux · GTK", now, None, True)
            if len(known) == 0:
                self.store.record_session("phone", "Pixel 8", "Android", now - 3 * 3600_000, "Berlin", False)
                self.store.record_session("laptop", "MacBook Air", "macOS", now - 5 * 86400_000, "Lisbon", False)
            self.session_names.update({s.id: s.device_name for s in self.store.sessions()})
        except passcode.PasscodeError:
            pass  # locked stores and such: the page shows what is there

    # -- building the window --
    def _build(self) -> None:
        css = Gtk.CssProvider()
        if Gtk.get_minor_version() < 12:
            css.load_from_data(CSS)
        else:  # GTK 4.12 takes a string and its length
            css.load_from_data(CSS.decode(), -1)
        Gtk.StyleContext.add_provider_for_display(Gdk.Display.get_default(), css,
                                                  Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
        self.window = Adw.ApplicationWindow(application=self.application, title=_("Passcode Demo"),
                                            default_width=460, default_height=760)
        self.views = Adw.ViewStack(vexpand=True)
        # Each page has its own toast overlay: a toast shows over the page that caused it, never
        # over the view switcher below, and goes when another page is shown (HIG: toasts).
        self.page_toasts: dict = {}
        for build, name, title, icon in ((self._note_page, "note", _("Note"), "document-edit-symbolic"),
                                         (self._security_page, "security", _("Security"), "security-high-symbolic"),
                                         (self._account_page, "account", _("Account"), "avatar-default-symbolic"),
                                         (self._log_page, "log", _("Log"), "document-open-recent-symbolic")):
            overlay = Adw.ToastOverlay(child=build())
            accessible_label(overlay, title)
            self.page_toasts[name] = overlay
            self.views.add_titled_with_icon(overlay, name, title, icon)
        self.views.connect("notify::visible-child", lambda *_: self._page_changed())
        # The pages are switched from the bar at the bottom (the window is phone-sized). A plain
        # window title, as on the lock screen: libadwaita 1.2's AdwViewSwitcherTitle asks for the
        # wide switcher's width (513 px) and so is pushed off centre by the header's buttons.
        # The subtitle says which back end the store is on (the window's and the lock screen's).
        backend = _("Service mode (passcoded)") if self.service else ""
        self.title = Adw.WindowTitle(title=_("Passcode Demo"), subtitle=backend)
        header = Adw.HeaderBar(title_widget=self.title)
        lock = Gtk.Button(icon_name="system-lock-screen-symbolic", tooltip_text=_("Lock Now"))
        accessible_label(lock, _("Lock now"))
        lock.connect("clicked", lambda _b: self.report(Event.LOCK_NOW))
        self.lock_button = lock
        header.pack_start(lock)  # the start side: the window's buttons fill the end, and the title stays centred
        bar = Adw.ViewSwitcherBar(stack=self.views, reveal=True)
        content = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        content.append(header)
        content.append(self.views)
        content.append(bar)
        self.lock_view = LockView(self)
        lock_box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, css_classes=["lock-screen"])
        self.lock_title = Adw.WindowTitle(title=_("Passcode Demo"), subtitle=backend)
        lock_box.append(Adw.HeaderBar(title_widget=self.lock_title, css_classes=["flat"]))
        lock_box.append(self.lock_view)
        self.lock_box = lock_box
        overlay = Gtk.Overlay(child=content)
        overlay.add_overlay(lock_box)
        self.content = content
        self.window.set_content(overlay)
        keys = Gtk.EventControllerKey()
        keys.connect("key-pressed", self._key)
        self.window.add_controller(keys)
        self.window.connect("notify::visible", lambda *_: self.on_visibility())
        self.window.connect("realize", lambda *_: self._watch_toplevel())

    def _watch_toplevel(self) -> None:
        surface = self.window.get_surface()
        if isinstance(surface, Gdk.Toplevel):
            surface.connect("notify::state", lambda s, _p: self.on_toplevel_state(s.get_state()))

    def _key(self, _c, keyval: int, _code: int, _state) -> bool:
        if self.lock_box.get_visible() and self._unlock_fade is None and self.lock_view.get_visible_child_name() == "pad":
            return self.lock_view.pad.key_pressed(keyval)
        return False

    def _note_page(self) -> Gtk.Widget:
        page = Adw.PreferencesPage()
        group = Adw.PreferencesGroup(title=_("Secret Note"),
                                     description=_("Encrypted with your passcode: readable only while the app is unlocked."))
        self.note_view = Gtk.TextView(wrap_mode=Gtk.WrapMode.WORD_CHAR, css_classes=["card", "note-view"],
                                      height_request=220, top_margin=12, bottom_margin=12, left_margin=12, right_margin=12)
        accessible_label(self.note_view, _("Secret note"))
        self.note_status = Gtk.Label(css_classes=["dim-label"], xalign=0, wrap=True)
        # Save is insensitive while it cannot work (no passcode, or the key not released by a
        # passcode unlock) and while there is nothing new to save (GNOME's editors do the same).
        save = Gtk.Button(label=_("Save Note"), css_classes=["suggested-action"], halign=Gtk.Align.END, sensitive=False)
        save.connect("clicked", lambda _b: self.save_note())
        self.save_button = save
        self.note_view.get_buffer().connect("modified-changed", lambda _b: self._update_save())
        # Without a passcode, the way to get one is here too.
        self.note_create_button = Gtk.Button(label=_("Create Passcode…"), halign=Gtk.Align.START, hexpand=True,
                                             visible=False)
        self.note_create_button.connect("clicked", lambda _b: self.open_flow(FlowKind.CREATE))
        buttons = Gtk.Box(spacing=12)
        buttons.append(self.note_create_button)
        buttons.append(save)
        save.set_hexpand(True)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=10)
        box.append(self.note_view)
        box.append(self.note_status)
        box.append(buttons)
        group.add(box)
        page.add(group)
        return page

    def _switch_row(self, title: str, subtitle: str, on_change: Callable[[bool], None]) -> "tuple[Adw.ActionRow, Gtk.Switch]":
        row = Adw.ActionRow(title=title, subtitle=subtitle)
        sw = Gtk.Switch(valign=Gtk.Align.CENTER)
        # The row names it (an activatable widget is labelled by the row's title): a label of its
        # own would be read twice ("Passcode Lock Passcode Lock").
        sw.a11y_label = title  # type: ignore[attr-defined]
        sw.connect("notify::active", lambda s, _p: None if self._updating else on_change(s.get_active()))
        row.add_suffix(sw)
        row.set_activatable_widget(sw)
        return row, sw

    def _opening_row(self, title: str, icon: str, action: Callable[[], None]) -> "tuple[Adw.ActionRow, Gtk.Button]":
        """A row that opens a sheet. Its icon is a button that does what the row does: the
        keyboard activates the row (Tab, Enter), a screen reader's "click" action the button (a
        GTK 4.8 row has no action of its own). The button is out of the Tab order, so each row
        is one stop."""
        row = Adw.ActionRow(title=title, activatable=True)
        button = Gtk.Button(icon_name=icon, css_classes=["flat"], valign=Gtk.Align.CENTER, focusable=False)
        accessible_label(button, title)
        button.connect("clicked", lambda _b: action())
        row.connect("activated", lambda _r: action())
        row.add_suffix(button)
        return row, button

    def _security_page(self) -> Gtk.Widget:
        page = Adw.PreferencesPage()
        self.passcode_group = Adw.PreferencesGroup(title=_("Passcode"))
        self.lock_row, self.lock_switch = self._switch_row(_("Passcode Lock"), _("Ask for the passcode to open the app"),
                                                           self.toggle_lock)
        self.change_row, self.change_chevron = self._opening_row(_("Change Passcode"), "go-next-symbolic",
                                                                 lambda: self.open_flow(FlowKind.CHANGE))
        self.reset_row, self.reset_icon = self._opening_row(_("Reset Passcode via Email"), "mail-send-symbolic", self.open_reset)
        # Service mode: where passcoded mails reset codes (needs the passcode to set or change).
        self.recipient_row, self.recipient_chevron = self._opening_row(_("Email for Reset Codes"), "go-next-symbolic",
                                                                       self.open_recipient)
        self.recipient_row.set_visible(bool(self.service))
        for r in (self.lock_row, self.change_row, self.reset_row, self.recipient_row):
            self.passcode_group.add(r)
        unlock = Adw.PreferencesGroup(title=_("Unlocking"))
        self.bio_row, self.bio_switch = self._switch_row(_("Unlock with Fingerprint"), "", self.toggle_biometric)
        # "Require on App Launch", usable only with biometric unlock on.
        self.bio_launch_row, self.bio_launch_switch = self._switch_row(
            _("Require on App Launch"), _("Open the fingerprint prompt every time the app starts"),
            lambda on: self.change_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH, int(on), _("Require on App Launch")))
        self.autolock_choices: List[int] = passcode.setting_choices(Setting.AUTO_LOCK_SECONDS)
        self.autolock_row = Adw.ComboRow(title=_("Auto-Lock"), subtitle=_("After the app goes to the background"),
                                         model=Gtk.StringList.new([duration_text(c) for c in self.autolock_choices]))
        self.autolock_row.connect("notify::selected", lambda r, _p: None if self._updating else
                                  self.change_setting(Setting.AUTO_LOCK_SECONDS, self.autolock_choices[r.get_selected()],
                                                      "Auto-Lock"))
        self.launch_row, self.launch_switch = self._switch_row(
            _("Lock at Launch"), _("Ask for the passcode every time the app starts"),
            lambda on: self.change_setting(Setting.LOCK_AT_LAUNCH, int(on), _("Lock at Launch")))
        for r in (self.bio_row, self.bio_launch_row, self.autolock_row, self.launch_row):
            unlock.add(r)
        page.add(self.passcode_group)
        page.add(unlock)
        return page

    def _account_page(self) -> Gtk.Widget:
        page = Adw.PreferencesPage()
        # One group, "Sign-In": the password (when it last changed; it opens to change it) and
        # two-factor authentication, each named once.
        pw = Adw.PreferencesGroup(title=_("Sign-In"))
        self.password_form = Adw.ExpanderRow(title=_("Password"))
        self.password_row = self.password_form  # its subtitle says when the password last changed
        self.pw_current = Adw.PasswordEntryRow(title=_("Current Password"))
        self.pw_new = Adw.PasswordEntryRow(title=_("New Password"))
        self.pw_confirm = Adw.PasswordEntryRow(title=_("Confirm New Password"))
        self.pw_error = Gtk.Label(css_classes=["pad-error"], wrap=True, xalign=0, visible=False,
                                  margin_start=12, margin_top=6, margin_bottom=6)
        pw_button = Gtk.Button(label=_("Change Password"), css_classes=["suggested-action"], halign=Gtk.Align.END,
                               margin_top=6, margin_bottom=6, margin_end=12)
        pw_button.connect("clicked", lambda _b: self.change_password())
        for w in (self.pw_current, self.pw_new, self.pw_confirm, self.pw_error, pw_button):
            self.password_form.add_row(w)
        # The expander row is named by its title; the error and the button are wrapped in plain
        # rows, which are no stop of their own for the keyboard (the button is).
        accessible_label(self.password_form, self.password_form.get_title())
        for w in (self.pw_error, pw_button):
            w.get_parent().set_activatable(False)
            w.get_parent().set_focusable(False)
        for entry in (self.pw_current, self.pw_new, self.pw_confirm):
            # The error is about what was typed: it goes as soon as the fields change; Enter submits.
            entry.connect("changed", lambda _e: self.pw_error.set_visible(False))
            entry.connect("entry-activated", lambda _e: self.change_password())
        pw.add(self.password_form)
        self.twofa_row, self.twofa_switch = self._switch_row(
            _("Two-Factor Authentication"), _("A code from your authenticator app at sign-in"),
            lambda on: self.change_setting(Setting.TWO_FACTOR_ENABLED, int(on), _("Two-Factor Authentication")))
        pw.add(self.twofa_row)
        self.devices_group = Adw.PreferencesGroup(title=_("Devices"), description=_("Where your account is signed in"))
        self.device_rows: List[Adw.ActionRow] = []
        self.sign_out_others_button = Gtk.Button(label=_("Sign Out All Other Devices"), css_classes=["destructive-action"],
                                                 halign=Gtk.Align.CENTER, margin_top=12)
        self.sign_out_others_button.connect("clicked", lambda _b: self.confirm_sign_out_others())
        danger = Adw.PreferencesGroup()  # the row names it
        delete_row = Adw.ActionRow(title=_("Delete Account"), subtitle=_("Removes your account, its passcode and its log"))
        delete = Gtk.Button(label=_("Delete…"), css_classes=["destructive-action"], valign=Gtk.Align.CENTER)
        accessible_label(delete, _("Delete account"))
        delete.connect("clicked", lambda _b: self.confirm_delete())
        delete_row.add_suffix(delete)
        danger.add(delete_row)
        page.add(pw)
        page.add(self.devices_group)
        others = Adw.PreferencesGroup()
        others.add(self.sign_out_others_button)
        page.add(others)
        page.add(danger)
        return page

    def _log_page(self) -> Gtk.Widget:
        page = Adw.PreferencesPage()
        self.log_group = Adw.PreferencesGroup(title=_("Security Log"), description=_("Newest first"))
        self.log_rows: List[Adw.ActionRow] = []
        page.add(self.log_group)
        return page

    # -- the state shown: everything read back from the library --
    def refresh(self) -> bool:
        s = self.store
        screen = s.lock_screen()  # one call for everything the lock screen shows
        locked, reason = screen.locked, screen.reason
        self._show_lock(locked)
        if locked:
            self._dismiss_toasts()  # the app's messages go with its content
            self._clear_note()  # no plaintext kept while locked
            if reason == LockReason.LOGGED_OUT:
                self._end_lock_flow()
                self.lock_view.set_visible_child_name("account-deleted" if self.account_deleted else "signed-out")
            elif screen.reset_required:
                self._end_lock_flow()
                self.lock_view.set_visible_child_name("reset-required")
            else:
                if self.lock_flow is None:
                    self.lock_flow = s.flow(FlowKind.UNLOCK)
                    self.lock_view.pad.bind(self.lock_flow)
                    if screen.biometric_lead:  # the fingerprint prompt opens by itself
                        GLib.idle_add(lambda: self.start_fingerprint() and False)
                self.lock_view.set_visible_child_name("pad")
                self.lock_view.show_bio(screen.biometric_refusal == BiometricRefusal.NONE)
                waiting = self._service_finger is not None or self.fingerprint.verifying
                self.lock_view.bio_button.get_child().set_label(_("Touch the fingerprint reader…") if waiting else "Use Fingerprint")
        else:
            self._end_lock_flow()
            self.fingerprint.cancel()  # unlocked another way: the reader is released
            self._refresh_pages()
        return False

    def _show_lock(self, locked: bool) -> None:
        """The lock screen comes and goes with an opacity transition. It covers the app
        at once (the content is never seen after a lock); an unlock fades it out in 250 ms, with
        the lock screen no longer taking input. While it shows, the content under it takes none
        either: no Tab, and no screen reader's action, reaches a control the lock covers."""
        if locked:
            if self._unlock_fade is not None:
                self._unlock_fade.skip()
                self._unlock_fade = None
            covering = self.lock_box.get_visible()
            if not covering:  # the keyboard comes back where it was after the unlock
                self._focus_before_lock = self.window.get_focus()
            self.content.set_sensitive(False)
            self.lock_box.set_opacity(1.0)
            self.lock_box.set_sensitive(True)
            self.lock_box.set_visible(True)
            if not covering:
                self.lock_view.focus_current()
            return
        if not self.lock_box.get_visible() or self._unlock_fade is not None:
            return
        self.lock_box.set_sensitive(False)
        self.content.set_sensitive(True)
        back = self._focus_before_lock
        self._focus_before_lock = None
        if back is not None and back.is_ancestor(self.content) and back.get_visible() and back.is_sensitive():
            back.grab_focus()
        else:
            self.window.set_focus(None)
        fade = Adw.TimedAnimation(widget=self.lock_box, value_from=1.0, value_to=0.0, duration=250,
                                  target=Adw.PropertyAnimationTarget.new(self.lock_box, "opacity"))

        def done(_a: Adw.Animation) -> None:
            if self._unlock_fade is fade:
                self._unlock_fade = None
                self.lock_box.set_visible(False)
                self.lock_box.set_opacity(1.0)
        fade.connect("done", done)
        self._unlock_fade = fade
        fade.play()

    def _end_lock_flow(self) -> None:
        if self.lock_flow is not None:
            self.lock_flow.close()
            self.lock_flow = None
            self.lock_view.pad.bind(None)

    def _refresh_pages(self) -> None:
        s = self.store
        self._updating = True
        try:
            bio_available = s.security_label != message_text(message_of(BiometricKind.NONE))  # kind NONE: no reader
            self.passcode_group.set_title(GLib.markup_escape_text(s.security_label) if bio_available else _("Passcode"))
            self.lock_switch.set_active(s.is_enabled)
            self.lock_row.set_subtitle(_("Ask for the passcode to open the app") if s.is_enabled or not s.is_set else
                                       _("Off. Your passcode is kept for turning the lock on again."))
            self.lock_button.set_visible(s.is_enabled)  # nothing to lock without a passcode
            self.change_row.set_sensitive(s.is_enabled)
            self.reset_row.set_sensitive(s.is_set)
            if self.service:
                # passcoded mails the code only to a confirmed address: without one, the reset is
                # not offered (the row says what comes first).
                to = self.reset_address()
                self.reset_row.set_sensitive(s.is_set and bool(to))
                self.reset_row.set_subtitle("" if to or not s.is_set else _("Set an email for reset codes first"))
                self.recipient_row.set_sensitive(s.is_set)
                self.recipient_row.set_subtitle(to if to else _("Not set: needed to reset a forgotten passcode by email"))
            for row, image in ((self.change_row, self.change_chevron), (self.reset_row, self.reset_icon),
                               (self.recipient_row, self.recipient_chevron)):
                image.set_opacity(1.0 if row.get_sensitive() else 0.4)  # a disabled row dims its chevron too
            # The fingerprint switch only with the passcode lock on (the library refuses
            # it otherwise); without a reader, a disabled row that says "Not available".
            bio_on = bool(s.get_setting(Setting.BIOMETRIC_ENABLED))
            self.bio_row.set_visible(s.is_enabled)
            self.bio_row.set_sensitive(bio_available)
            self.bio_row.set_subtitle(_("Unlock with your fingerprint instead of the passcode") if bio_available
                                      else _("Not available: no fingerprint reader with an enrolled finger"))
            self.bio_switch.set_active(bio_on and bio_available)
            self.bio_launch_row.set_visible(s.is_enabled)
            self.bio_launch_row.set_sensitive(bio_available and bio_on)
            self.bio_launch_switch.set_active(bool(s.get_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH)))
            t = s.get_setting(Setting.AUTO_LOCK_SECONDS)
            if t in self.autolock_choices:
                self.autolock_row.set_selected(self.autolock_choices.index(t))
            self.launch_switch.set_active(bool(s.get_setting(Setting.LOCK_AT_LAUNCH)))
            changed = s.get_setting(Setting.LAST_PASSWORD_CHANGE)
            self.password_row.set_subtitle(_changed(changed, self.now_ms()) if changed else _("Never changed"))
            self.twofa_switch.set_active(bool(s.get_setting(Setting.TWO_FACTOR_ENABLED)))
        finally:
            self._updating = False
        self._refresh_note()
        page = self.views.get_visible_child_name()
        if page == "account":  # the lists are rebuilt only while they are on screen
            self._refresh_devices()
        elif page == "log":
            self._refresh_log()

    def _clear_note(self) -> None:
        buf = self.note_view.get_buffer()
        buf.set_text("")
        buf.set_modified(False)

    def note_available(self) -> bool:
        """Whether a note can be saved now: a passcode, and the key it released at unlock."""
        return self.store.is_set and self.store.key_released

    def _update_save(self) -> None:
        """Save Note and the line above it: what can be done with the note now."""
        available = self.note_available()
        modified = self.note_view.get_buffer().get_modified()
        self.save_button.set_sensitive(available and modified)
        self.note_create_button.set_visible(not self.store.is_set)
        if not self.store.is_set:
            status = _("Create a passcode to keep a secret note.")
        elif not available:
            status = _("Unlock with your passcode to read or write the note: this fingerprint unlock did not open it.")
        elif self._note_problem:
            status = self._note_problem
        elif modified:
            status = _("Not saved yet.")
        elif os.path.exists(self.note_path):
            status = _("Saved.")
        else:
            status = _("No note yet.")
        self.note_status.set_label(status)

    def _refresh_note(self) -> None:
        available = self.note_available()
        buf = self.note_view.get_buffer()
        self.note_view.set_editable(available)  # nothing typed that could not be kept
        self.note_view.set_cursor_visible(available)
        self.note_view.set_sensitive(available)  # dimmed while it cannot be written
        self._note_problem = self._note_removed
        if available and not buf.get_modified():  # being edited: what is typed stays until it is saved
            try:
                with open(self.note_path, "rb") as f:
                    sealed = f.read(4096 + 64)
                plain = self.store.unseal(sealed)
                buf.set_text(plain.decode("utf-8", "replace"))
                buf.set_modified(False)
                passcode.wipe(plain)
            except FileNotFoundError:
                pass
            except passcode.ForeignCiphertext:
                # Sealed with a key this store no longer has (a reset or a new passcode replaced
                # it): no passcode reads it again, so it goes, and no screen promises otherwise.
                os.unlink(self.note_path)
                self._note_problem = self._note_removed = _("The old note was sealed with a key this passcode no longer has "
                                                            "(a reset or a new passcode replaced it), so it was removed.")
            except passcode.PasscodeError as e:
                self._note_problem = _("This note cannot be read: %s") % person_words(e)
        self._update_save()

    def _refresh_devices(self) -> None:
        for row in self.device_rows:
            self.devices_group.remove(row)
        self.device_rows = []
        sessions = self.store.sessions()
        self.session_names.update({x.id: x.device_name for x in sessions})
        self.devices_group.set_description(ngettext("%d device where your account is signed in",
                                                    "%d devices where your account is signed in", len(sessions))
                                           % len(sessions))
        for sess in sessions:
            row = Adw.ActionRow(title=sess.device_name, use_markup=False,
                                subtitle="%s · %s%s" % (sess.platform, _ago(sess.last_active_ms),
                                                        " · " + sess.location if sess.location else ""))
            row.add_prefix(presentation(Gtk.Image, icon_name="computer-symbolic" if "Linux" in sess.platform or "mac" in sess.platform
                                     else "phone-symbolic"))
            if sess.is_current:
                row.add_suffix(Gtk.Label(label=_("This device"), css_classes=["badge"], valign=Gtk.Align.CENTER))
            else:
                b = Gtk.Button(label=_("Sign Out"), valign=Gtk.Align.CENTER, css_classes=["flat"])
                accessible_label(b, _("Sign out %s") % sess.device_name)
                b.connect("clicked", lambda _b, sid=sess.id, name=sess.device_name: self.confirm_sign_out(sid, name))
                row.add_suffix(b)
            self.devices_group.add(row)
            self.device_rows.append(row)
        self.sign_out_others_button.set_sensitive(any(not x.is_current for x in sessions))

    def _refresh_log(self) -> None:
        for row in self.log_rows:
            self.log_group.remove(row)
        self.log_rows = []
        events = self.store.events()
        self.log_group.set_description(ngettext("%d event, newest first", "%d events, newest first", len(events)) % len(events))
        for e in events[:200]:
            detail = e.detail
            if e.kind == SecurityEvent.LOCKOUT_STARTED and detail.isdigit():
                detail = _("for %s") % wait_text(int(detail))
            elif e.kind == SecurityEvent.SETTING_CHANGED and detail:
                detail = e.text  # in words (the library's message table), not the store's keys
            elif e.kind == SecurityEvent.SESSION_SIGNED_OUT:
                detail = self.session_names.get(detail, detail)  # the device's name, not its session id
            row = Adw.ActionRow(title=event_text(e.kind), use_markup=False,
                                subtitle=_when(e.wall_ms) + (" · " + detail if detail else ""))
            self.log_group.add(row)
            self.log_rows.append(row)

    # -- the desktop reports --
    def report(self, event: Event) -> None:
        self.store.report(event)
        if event == Event.BACKGROUND:
            self.fingerprint.cancel()
        self.refresh()

    def on_prepare_for_sleep(self, sleeping: bool) -> None:
        """logind: suspend is background, resume is foreground (the boot clock counts the sleep)."""
        self.report(Event.BACKGROUND if sleeping else Event.FOREGROUND)

    def on_session_lock(self) -> None:
        """logind: the screen is being locked; lock the app now."""
        self.report(Event.LOCK_NOW)

    def on_visibility(self) -> None:
        hidden = not self.window.get_visible()
        if hidden != self.in_background:
            self.in_background = hidden
            self.report(Event.BACKGROUND if hidden else Event.FOREGROUND)

    def on_toplevel_state(self, state: Gdk.ToplevelState) -> None:
        minimized = bool(state & Gdk.ToplevelState.MINIMIZED)
        if minimized != self.in_background:
            self.in_background = minimized
            self.report(Event.BACKGROUND if minimized else Event.FOREGROUND)

    def update_biometrics(self) -> None:
        """fprintd decides whether there is a fingerprint to unlock with; the library decides the rest."""
        available = self.fingerprint.available()
        self.store.set_biometric_availability(available, BiometricKind.FINGERPRINT if available else BiometricKind.NONE)

    def _tick(self) -> bool:
        """Twice a second: the lockout countdown on the lock screen."""
        pad = self.lock_view.pad
        if self.lock_flow is not None and self.lock_flow.step == FlowStep.LOCKED_OUT:
            pad.refresh()
        if self._toasts:  # a toast queued behind another shows later
            name_close_buttons(self.page_toasts[self.views.get_visible_child_name()])
        return True

    # -- the lock screen --
    def lock_flow_finished(self) -> None:
        f = self.lock_flow
        if f is None:
            return
        if f.result == FlowResult.SUCCESS:
            self.unlocked()
        GLib.idle_add(self.refresh)

    def unlocked(self) -> None:
        """Android's notice: what happened while the app was locked."""
        n = self.store.failures_since_unlock
        if n > 0:
            self.toast(ngettext("%d failed attempt since your last unlock", "%d failed attempts since your last unlock", n) % n)

    def start_fingerprint(self) -> None:
        if self.store.biometric_refusal != BiometricRefusal.NONE:
            return
        if self.service:
            self._start_service_fingerprint()
            return
        if self.fingerprint.verifying:  # already waiting for a finger (the prompt opened by itself)
            return
        if self.fingerprint.verify(self.on_fingerprint):
            self.lock_view.bio_button.get_child().set_label(_("Touch the fingerprint reader…"))
        else:
            self.toast(_("Fingerprint reader: %s") % self.fingerprint.problem)

    def _start_service_fingerprint(self) -> None:
        """Service mode: passcoded reads the finger itself through fprintd (the host reports no
        match). The call waits for the finger (up to passcoded's fprint_timeout), so it runs on a
        thread, on a handle of its own: the lock screen's handle stays free, and the passcode can
        be typed meanwhile (passcoded answers the other connections while it waits)."""
        if self._service_finger is not None:  # already waiting for a finger
            return
        pad = self.lock_view.pad
        pad.error.set_visible(False)
        self.lock_view.bio_button.get_child().set_label(_("Touch the fingerprint reader…"))
        service, label = self.service, self.store_path

        def read() -> None:
            error: Optional[passcode.PasscodeError] = None
            try:
                with passcode.Store(label, service=service) as reader:
                    reader.biometric_unlock()
            except passcode.PasscodeError as e:
                error = e
            GLib.idle_add(lambda: self._service_fingerprint_done(error) and False)
        self._service_finger = threading.Thread(target=read, name="fingerprint", daemon=True)
        self._service_finger.start()

    def _service_fingerprint_done(self, error: Optional[passcode.PasscodeError]) -> None:
        self._service_finger = None
        if self._closed:
            return
        self.lock_view.bio_button.get_child().set_label(_("Use Fingerprint"))
        pad = self.lock_view.pad
        if error is None:
            self._end_lock_flow()
            self.unlocked()
            # The unlock was another handle's: passcoded pushes it to this one's connection too,
            # which may come a moment after the reply. Until it did, look again (at most 2 s).
            tries = [40]

            def again() -> bool:
                tries[0] -= 1
                if self._closed:
                    return False
                self.refresh()
                return self.store.locked and tries[0] > 0
            if self.store.locked:
                GLib.timeout_add(50, again)
        elif self.store.locked:  # unlocked meanwhile with the passcode: nothing to say
            if isinstance(error, passcode.PasscodeRequired) and getattr(error, "reason", None) == BiometricRefusal.NONE:
                pad.shake()  # no match: counted by passcoded, as a wrong passcode shakes
            pad.error.set_label(fingerprint_words(error))
            pad.error.set_visible(True)
        self.refresh()

    def on_fingerprint(self, result: str) -> None:
        pad = self.lock_view.pad
        if result == "verify-match":
            try:
                # The key-releasing unlock, so that the note can be read and written after it; a
                # process that holds no key (a later launch without the session keyring) still
                # unlocks, and the note waits for the passcode.
                try:
                    passcode.wipe(self.store.biometric_unlock_key())
                except passcode.PasscodeRequired as e:
                    if getattr(e, "reason", None) != BiometricRefusal.KEY_NOT_IN_MEMORY:
                        raise
                    self.store.biometric_unlock()
                self._end_lock_flow()
                self.unlocked()
            except passcode.PasscodeRequired as e:
                pad.error.set_label(person_words(e))
                pad.error.set_visible(True)
        elif result == "verify-no-match":
            self.store.biometric_failed()
            pad.shake()
            pad.error.set_label(_("Fingerprint not recognised. Try again or enter your passcode."))
            pad.error.set_visible(True)
        else:
            self.toast(_("Fingerprint reader: %s") % result)
        self.refresh()

    def confirm_forgot(self) -> None:
        to = self.reset_address()
        d = Adw.MessageDialog(transient_for=self.window, modal=True, heading=_("Forgot Passcode?"),
                              body=_("Get a reset code by email at %s to choose a new passcode. Or sign out: your "
                                     "passcode is removed, and you create a new one after signing in to your account "
                                     "again.") % to if to else
                                   _("You will be signed out and your passcode removed. Sign in to your account "
                                     "again to create a new one."))
        d.add_response("cancel", _("Cancel"))
        d.add_response("sign-out", _("Sign Out"))
        d.set_response_appearance("sign-out", Adw.ResponseAppearance.DESTRUCTIVE)
        if to:  # a code can be sent (service mode: an address is set for this store)
            d.add_response("email", _("Email Code"))
            d.set_response_appearance("email", Adw.ResponseAppearance.SUGGESTED)
        d.set_default_response("cancel")
        accessible_label(d, _("Forgot Passcode"))
        d.connect("response", lambda _d, r: self._forgot(r))
        self._dismiss_toasts()
        self.dialog = d
        name_buttons_by_label(d)
        d.present()

    def _forgot(self, response: str) -> None:
        self.dialog = None
        if response == "email":
            self.open_reset()
            return
        if response == "sign-out":
            self.store.forgot()
            self._end_lock_flow()
        self.refresh()

    def sign_in_again(self) -> None:
        """The account sign-in is the host's (not this library's); then a new passcode."""
        self.open_flow(FlowKind.CREATE)

    # -- sheets --
    def open_flow(self, kind: FlowKind, then: Optional[Callable[[], None]] = None,
                  title: Optional[str] = None, why: str = "") -> None:
        def done(result: FlowResult, error: str) -> None:
            if result == FlowResult.SUCCESS and kind in (FlowKind.CREATE, FlowKind.RESET):
                # A new passcode (after Delete Account, or forgot passcode) starts from the store's
                # defaults: the reader is reported again, so the fingerprint row says what is true.
                self.update_biometrics()
            if result == FlowResult.SUCCESS:
                if then:
                    then()
                elif kind != FlowKind.UNLOCK:
                    self.toast({FlowKind.CREATE: _("Passcode created"), FlowKind.CHANGE: _("Passcode changed"),
                                FlowKind.DISABLE: _("Passcode lock off; your passcode is kept"),
                                FlowKind.RESET: _("Passcode reset")}[kind] + (": " + error if error else ""))
            elif result not in (FlowResult.CANCELLED,) and error:
                self.toast(error)
            self.refresh()
        self._dismiss_toasts()  # a sheet takes the attention: no toast left under it
        self.sheet = FlowSheet(self, kind, done, title=title, why=why)
        self.sheet.present()

    def open_reset(self) -> None:
        self.open_flow(FlowKind.RESET)

    def open_recipient(self) -> None:
        self._dismiss_toasts()
        self.sheet = RecipientSheet(self)  # type: ignore[assignment]
        self.sheet.present()

    def reset_address(self) -> str:
        """Where reset codes go, masked (j***@example.org): passcoded's answer in service mode
        ("" while none is set), else the demo's mailer's."""
        if self.service:
            try:
                return self.store.reset_recipient
            except passcode.PasscodeError:
                return ""
        return self.mailer.masked_recipient()

    def guarded(self, action: Callable[[], None], what: str) -> None:
        """A settings change; a weakening one needs the passcode within 5 minutes (the library
        says so with PasscodeRequired): ask for it, then try once more."""
        try:
            action()
        except passcode.PasscodeRequired:
            self.open_flow(FlowKind.UNLOCK, then=lambda: self._retry(action), title=_("Confirm Passcode"),
                           why=_("Enter your passcode to change “%s”.") % unbroken(what))
        except passcode.PasscodeError as e:
            self.toast(e.message)
        self.refresh()

    def _retry(self, action: Callable[[], None]) -> None:
        try:
            action()
        except passcode.PasscodeError as e:
            self.toast(e.message)

    def change_setting(self, setting: Setting, value: int, what: str) -> None:
        if self.store.get_setting(setting) == value:  # a switch re-notifying what is stored already
            return
        self.guarded(lambda: self.store.set_setting(setting, value), what)

    def toggle_lock(self, on: bool) -> None:
        """The switch shows what is stored; a sheet changes it, so the switch may notify twice."""
        s = self.store
        if on == s.is_enabled or self.sheet is not None:
            return
        if on and s.is_set:
            self.guarded(s.enable, _("Passcode Lock"))  # refreshes
            return
        if on:
            self.open_flow(FlowKind.CREATE)
        else:  # turning the lock off keeps the passcode, and says so
            self.open_flow(FlowKind.DISABLE, why=GLib.markup_escape_text(
                _("Your passcode will be kept, but the lock screen will no longer appear.")))
        self.refresh()  # the switch shows what is stored while the sheet is open

    def toggle_biometric(self, on: bool) -> None:
        self.update_biometrics()
        self.change_setting(Setting.BIOMETRIC_ENABLED, int(on), _("Unlock with Fingerprint"))

    def save_note(self) -> None:
        buf = self.note_view.get_buffer()
        text = buf.get_text(buf.get_start_iter(), buf.get_end_iter(), False).encode()[:4096]
        if not self.store.is_set:
            self.toast(_("Create a passcode first to keep a secret note"))
            return
        try:
            sealed = self.store.seal(text)
        except passcode.KeyNotReleased:
            self.toast(_("Unlock with your passcode to save the note"))
            return
        except passcode.PasscodeError as e:
            self.toast(person_words(e))
            return
        fd = os.open(self.note_path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(sealed)
        buf.set_modified(False)
        self._note_removed = ""
        self.toast(_("Saved"))
        self.refresh()

    # -- account --
    def change_password(self) -> None:
        try:
            self.store.check_password_change(self.pw_current.get_text(), self.pw_new.get_text(), self.pw_confirm.get_text())
        except passcode.PasscodeError as e:
            self.pw_error.set_label(person_words(e))
            self.pw_error.set_visible(True)
            return
        for entry in (self.pw_current, self.pw_new, self.pw_confirm):
            entry.set_text("")
        self.pw_error.set_visible(False)
        self.password_form.set_expanded(False)
        self.toast(_("Password changed"))
        self.refresh()

    def _confirm(self, heading: str, body: str, action: str, then: Callable[[], None]) -> None:
        """A destructive action asks first (confirmation dialogs for all sign-outs)."""
        d = Adw.MessageDialog(transient_for=self.window, modal=True, heading=heading, body=body)
        accessible_label(d, heading)
        d.add_response("cancel", _("Cancel"))
        d.add_response("confirm", action)
        d.set_response_appearance("confirm", Adw.ResponseAppearance.DESTRUCTIVE)
        d.set_default_response("cancel")
        d.set_close_response("cancel")

        def answered(_d, response: str) -> None:
            self.dialog = None
            if response == "confirm":
                then()
        d.connect("response", answered)
        self._dismiss_toasts()  # no toast left under the dialog, over what it asks about
        self.dialog = d
        name_buttons_by_label(d)
        d.present()

    def confirm_sign_out(self, session_id: str, name: str) -> None:
        self._confirm(_("Sign Out %s?") % name, _("%s will need to sign in to your account again.") % name,
                      _("Sign Out"), lambda: self.sign_out(session_id))

    def confirm_sign_out_others(self) -> None:
        n = sum(1 for x in self.store.sessions() if not x.is_current)
        self._confirm(_("Sign Out All Other Devices?"),
                      ngettext("%d device will need to sign in to your account again. This device stays signed in.",
                               "%d devices will need to sign in to your account again. This device stays signed in.", n)
                      % n, _("Sign Out All"), self.sign_out_others)

    def sign_out(self, session_id: str) -> None:
        try:
            self.store.sign_out(session_id)
            self.toast(_("Device signed out"))
        except passcode.PasscodeError as e:
            self.toast(person_words(e))
        self.refresh()

    def sign_out_others(self) -> None:
        n = self.store.sign_out_others()
        self.toast(ngettext("%d device signed out", "%d devices signed out", n) % n)
        self.refresh()

    def confirm_delete(self) -> None:
        d = Adw.MessageDialog(transient_for=self.window, modal=True, heading=_("Delete Account?"),
                              body=_("This cannot be undone. What will be deleted:"))
        accessible_label(d, _("Delete Account"))
        extra = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12)
        gone = Gtk.ListBox(css_classes=["boxed-list"], selection_mode=Gtk.SelectionMode.NONE)
        self.delete_list = []
        for icon, what in (("dialog-password-symbolic", _("Your passcode and security settings")),
                           ("computer-symbolic", _("Your devices and sessions")),
                           ("document-open-recent-symbolic", _("Your security log")),
                           ("document-edit-symbolic", _("The secret note"))):
            row = Adw.ActionRow(title=what)
            row.add_prefix(presentation(Gtk.Image, icon_name=icon))
            gone.append(row)
            self.delete_list.append(what)
        warning = Gtk.Box(spacing=8, halign=Gtk.Align.CENTER)
        warning.append(presentation(Gtk.Image, icon_name="dialog-warning-symbolic", css_classes=["error"]))
        warning.append(Gtk.Label(label=_("Type DELETE to confirm"), css_classes=["heading"]))
        entry = Gtk.Entry(placeholder_text="DELETE")
        accessible_label(entry, _("Type DELETE to confirm"))
        for w in (gone, warning, entry):
            extra.append(w)
        d.set_extra_child(extra)
        d.add_response("cancel", _("Cancel"))
        d.add_response("delete", _("Delete Account"))
        d.set_response_appearance("delete", Adw.ResponseAppearance.DESTRUCTIVE)
        d.set_response_enabled("delete", False)
        entry.connect("changed", lambda e: d.set_response_enabled("delete", e.get_text() == "DELETE"))
        d.connect("response", lambda _d, r: self._delete(r, entry.get_text()))
        self._dismiss_toasts()
        self.dialog, self.delete_entry = d, entry
        name_buttons_by_label(d)
        d.set_focus(entry)  # the keyboard starts where the word is typed
        d.present()

    def _delete(self, response: str, typed: str) -> None:
        self.dialog = None
        if response == "delete":
            try:
                self.store.delete_account(typed)
                if os.path.exists(self.note_path):
                    os.unlink(self.note_path)
                self._clear_note()
            except passcode.PasscodeError as e:
                self.toast(person_words(e))
        self.refresh()

    def toast(self, text: str, page: Optional[str] = None) -> None:
        """A toast over the page that caused it (the visible one unless named)."""
        page = page or self.views.get_visible_child_name()
        # The newest says what is true now: an older one on the page (queued behind it by
        # AdwToastOverlay, so shown first) goes.
        for p, older in list(self._toasts):
            if p == page:
                self._dismiss(older)
        self.last_toast = text
        self.last_toast_page = page
        toast = Adw.Toast(title=GLib.markup_escape_text(sentence(text)), timeout=4)
        # The whole text, broken over lines when long, never cut ("… j***@example…"): a label of
        # the app's own as the title (AdwToast's own ellipsizes).
        # As wide as the window leaves a toast (its margins, padding and close button take about
        # 105 px; a character of its bold font about 9.6 px), so that it is never wider than shown.
        chars = max(20, int((self.window.get_width() - 105) / 9.6))
        label = Gtk.Label(label=sentence(text), wrap=True, max_width_chars=chars, justify=Gtk.Justification.CENTER,
                          css_classes=["heading"])
        toast.set_custom_title(label)
        toast.text = sentence(text)  # type: ignore[attr-defined]
        toast.connect("dismissed", self._toast_dismissed)
        # It shows once the older ones on its page are gone (AdwToastOverlay queues it).
        toast.shown_at = max(GLib.get_monotonic_time(), self._page_free_at.get(page, 0))  # type: ignore[attr-defined]
        self._toast = toast
        self._toasts.append((page, toast))
        self.page_toasts[page].add_toast(toast)
        name_close_buttons(self.page_toasts[page])
        self.announce(toast)

    def announce(self, toast: Adw.Toast) -> None:
        """Says a toast to a screen reader. libadwaita 1.2 does not announce toasts, GTK 4.8 has
        no call that announces a text (gtk_accessible_announce is 4.14), and a label with the
        alert role makes no event; a screen reader (Orca) speaks a change of the focused
        control's description. So the toast's text is the focused control's description while
        the toast is on screen, and the control's own comes back when it goes. It is set once the
        handlers already queued have run, so that it lands where the focus settles (an unlock
        gives the focus back to the control that had it; a sheet that could not start closes),
        and once that control has the focus (after a sheet, when its window has it again)."""
        def say() -> bool:
            if self._closed or all(t is not toast for _p, t in self._toasts):
                return False  # gone already
            top = next((w for w in (self.dialog, self.sheet) if w is not None and w.get_visible()), self.window)
            target = top.get_focus() or top
            if target is not top and not target.has_focus():
                def focused(w: Gtk.Widget, _p: object) -> None:
                    if w.has_focus():  # said after the focus event, which a screen reader takes first
                        w.disconnect(waiting)
                        GLib.idle_add(say, priority=GLib.PRIORITY_LOW)
                waiting = target.connect("notify::has-focus", focused)
                toast.connect("dismissed", lambda _t: target.handler_is_connected(waiting) and target.disconnect(waiting))
                return False
            target.a11y_toast = toast  # type: ignore[attr-defined]
            target.update_property([Gtk.AccessibleProperty.DESCRIPTION], [toast.text])  # type: ignore[attr-defined]
            toast.connect("dismissed", lambda _t: self._unannounce(target, toast))
            return False
        GLib.idle_add(say, priority=GLib.PRIORITY_LOW)

    @staticmethod
    def _unannounce(widget: Gtk.Widget, toast: Adw.Toast) -> None:
        """The control's own description back, unless a newer toast's text is on it."""
        if getattr(widget, "a11y_toast", None) is not toast:
            return
        widget.a11y_toast = None  # type: ignore[attr-defined]
        own = getattr(widget, "a11y_description", None)
        if own is None:
            widget.reset_property(Gtk.AccessibleProperty.DESCRIPTION)
        else:
            widget.update_property([Gtk.AccessibleProperty.DESCRIPTION], [own])

    def _toast_dismissed(self, toast: Adw.Toast) -> None:
        self._toasts = [(p, t) for p, t in self._toasts if t is not toast]
        if self._toast is toast:
            self._toast = None

    def _dismiss(self, toast: Adw.Toast) -> None:
        """Takes a toast away. libadwaita 1.2 crashes when a toast is dismissed during its show
        animation (its AdwTimedAnimation's "done" runs on a freed closure): a toast that is still
        coming in is dismissed once it is in (TOAST_SHOW_US after it started); it is no longer
        counted as on screen from now."""
        page = next((p for p, t in self._toasts if t is toast), None)
        self._toast_dismissed(toast)
        at = toast.shown_at + TOAST_SHOW_US  # type: ignore[attr-defined]
        wait_ms = (at - GLib.get_monotonic_time()) // 1000
        if wait_ms <= 0:
            toast.dismiss()
            return
        if page is not None:
            self._page_free_at[page] = max(self._page_free_at.get(page, 0), at)

        def later() -> bool:
            self.late_dismissals.discard(toast)
            if not self._closed:
                toast.dismiss()
            return False
        self.late_dismissals.add(toast)
        GLib.timeout_add(int(wait_ms), later)

    def _dismiss_toasts(self, keep: Optional[str] = None) -> None:
        for page, toast in list(self._toasts):
            if page != keep:
                self._dismiss(toast)

    def toasts_on(self, page: str) -> List[str]:
        """The texts of the toasts on a page (tests)."""
        return [t.text for p, t in self._toasts if p == page]

    def _page_changed(self) -> None:
        """A toast belongs to its page: switching pages takes the others' toasts away."""
        self._dismiss_toasts(keep=self.views.get_visible_child_name())
        self.refresh()

    def deleted_done(self) -> None:
        """ "Account Deleted" → the start again: sign in (the host's), then a new passcode."""
        self.account_deleted = False
        self.refresh()

    def close(self) -> None:
        self._closed = True
        GLib.source_remove(self._ticker)
        self.fingerprint.cancel()
        self.logind.close()
        self._end_lock_flow()
        self.store.close()


def unbroken(text: str) -> str:
    """Markup that Pango never breaks inside: a host:port, a command, a quoted row title."""
    return '<span allow_breaks="false">%s</span>' % GLib.markup_escape_text(text)


def mail_failure_markup(e: MailError) -> str:
    """A failed send as one sentence for a person. When nothing answered, it names a local sink
    to start (it prints every mail it receives) and how to point the demo at it."""
    where = unbroken("%s:%d" % (e.host, e.port))
    sink = unbroken(SINK_COMMAND)
    if e.no_server and e.port == SINK_PORT:
        return _("No mail server answered at %s; start the local one with “%s”, then send the code again.") % (where, sink)
    if e.no_server:
        return (_("No mail server answered at %s; to try the reset without one, run “%s” and start the demo "
                  "with %s.") % (where, sink, unbroken("--smtp localhost:%d" % SINK_PORT)))
    return _("Could not send the email through %s (%s).") % (where, GLib.markup_escape_text(e.reason))


def fingerprint_words(e: passcode.PasscodeError) -> str:
    """What passcoded answered a fingerprint check, as the lock screen says it: each case in a
    person's words (never a status or a C name); a refusal of the policy in the library's."""
    if isinstance(e, passcode.BiometricTimeout):
        return _("No finger was read in time. Try the fingerprint again, or enter your passcode.")
    if isinstance(e, passcode.BiometricReaderBusy):
        return _("The fingerprint reader is in use by another program. Enter your passcode.")
    if isinstance(e, passcode.BiometricUnavailable):
        return _("No fingerprint reader with an enrolled finger. Enter your passcode.")
    if isinstance(e, passcode.PasscodeRequired) and getattr(e, "reason", None) == BiometricRefusal.NONE:
        return _("Fingerprint not recognised. Try again or enter your passcode.")
    return person_words(e)


def person_words(e: passcode.PasscodeError) -> str:
    """A refusal as a person reads it: the library's message for it (its code and number, in the
    user's language), never the programmer's text; a failure without one is "Something went wrong"
    on screen and its text goes to the app's log."""
    message, _number = e.person
    if message == Message.NONE:
        LOG.warning("%s", e)
        return message_text(Message.SOMETHING_WENT_WRONG)
    return e.text


def sentence(text: str) -> str:
    """The library's messages are lower-case clauses ("the new password must have ..."); on a
    screen they start with a capital."""
    return text[:1].upper() + text[1:]


def _date(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%d %B %Y")


def _since(ms: int, now_ms: int) -> str:
    """When something happened, as the design says it: "Just now", "5 minutes ago", "Today at
    14:05", else the date."""
    seconds = max(0, (now_ms - ms) // 1000)
    if seconds < 60:
        return _("Just now")
    if seconds < 3600:
        return ngettext("%d minute ago", "%d minutes ago", seconds // 60) % (seconds // 60)
    then, now = datetime.datetime.fromtimestamp(ms / 1000), datetime.datetime.fromtimestamp(now_ms / 1000)
    if then.date() == now.date():
        return _("Today at %s") % then.strftime("%H:%M")
    return _date(ms)


def _changed(ms: int, now_ms: int) -> str:
    """ "Changed just now", "Changed 5 minutes ago", "Changed today at 14:05", "Changed on 01 May 2026"."""
    seconds = max(0, (now_ms - ms) // 1000)
    if seconds < 60:
        return _("Changed just now")
    if seconds < 3600:
        return ngettext("Changed %d minute ago", "Changed %d minutes ago", seconds // 60) % (seconds // 60)
    then, now = datetime.datetime.fromtimestamp(ms / 1000), datetime.datetime.fromtimestamp(now_ms / 1000)
    if then.date() == now.date():
        return _("Changed today at %s") % then.strftime("%H:%M")
    return _("Changed on %s") % _date(ms)


def _when(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


def _ago(ms: int) -> str:
    seconds = max(0, int(datetime.datetime.now().timestamp()) - ms // 1000)
    if seconds >= 86400:
        return ngettext("%d day ago", "%d days ago", seconds // 86400) % (seconds // 86400)
    if seconds >= 3600:
        return ngettext("%d hour ago", "%d hours ago", seconds // 3600) % (seconds // 3600)
    if seconds >= 60:
        return ngettext("%d minute ago", "%d minutes ago", seconds // 60) % (seconds // 60)
    return _("Active now")


def mail_server(option: Optional[str]) -> "tuple[Optional[str], Optional[int]]":
    """--smtp HOST[:PORT], else $PASSCODE_DEMO_SMTP (for `make demo`); None: the Mailer's default."""
    host, _, port = (option or os.environ.get("PASSCODE_DEMO_SMTP") or "").partition(":")
    return host or None, int(port) if port else None


def default_store() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    folder = os.path.join(state, "passcode")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.join(folder, "demo.db")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", help="the store file (default: ~/.local/state/passcode/demo.db)")
    p.add_argument("--smtp", metavar="HOST[:PORT]",
                   help="the mail server for reset codes (default: $PASSCODE_DEMO_SMTP, else mail.ini, else localhost:25;"
                        " for a local sink: python3 -m aiosmtpd -n, and --smtp localhost:8025)")
    p.add_argument("--mail-from", metavar="ADDR")
    p.add_argument("--mail-to", metavar="ADDR", help="where the reset code goes (default: $USER@localhost)")
    p.add_argument("--tpm", nargs="?", const=True, default=None, metavar="TCTI",
                   help="bind the store to the TPM (/dev/tpmrm0, or a tpm2-tss TCTI)")
    p.add_argument("--service", metavar="APP_ID",
                   help="service mode: the store passcoded keeps for APP_ID, through the system bus")
    a = p.parse_args()
    host, port = mail_server(a.smtp)
    mailer = Mailer(host, port, a.mail_from, a.mail_to)
    application = Adw.Application(application_id=APP_ID, flags=Gio.ApplicationFlags.NON_UNIQUE)
    state: dict = {}

    def activate(app: Adw.Application) -> None:
        if "app" in state:
            state["app"].window.present()
            return
        path = a.store or default_store()
        try:
            state["app"] = App(app, path, tpm=a.tpm, mailer=mailer, bus=system_bus(), service=a.service)
        except passcode.PasscodeError as e:
            where = f"passcoded's store for {a.service}" if a.service else path
            print(f"cannot open {where}: {e.message}", file=sys.stderr)
            state["failed"] = True
            app.quit()
            return
        state["app"].window.present()

    application.connect("activate", activate)
    rc = application.run([sys.argv[0]])
    if state.get("failed"):
        return 1
    if "app" in state:
        state["app"].close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
