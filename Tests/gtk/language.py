#!/usr/bin/python3
"""The GTK front end in the language LANGUAGE names: its main screens, checked and saved.

    LANGUAGE=de LANG=C.UTF-8 xvfb-run -a python3 Tests/gtk/language.py OUT_DIR EXPECTED...

Opens the demo on a new store (no system bus: no fingerprint reader, no logind), creates a
passcode, then shows the create sheet, the security page, the lock screen (also after a wrong
passcode and in a lockout), the account page and the log, saving each as OUT_DIR/NN-name.png
(docs/screenshots/de: `make screenshots` in German). Each EXPECTED text must be on some screen's
labels (the test gives German words; with LANGUAGE unset, English ones); exit 1 names the missing."""
import os
import sys
import tempfile

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Adw", "1")
from gi.repository import Adw, GLib, Gtk  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "gtk"))
sys.path.insert(0, HERE)
from gtk_loop import spin  # noqa: E402
import desktop  # noqa: E402
import passcode_gtk as pg  # noqa: E402
from passcode import FlowKind  # noqa: E402

PASSCODE = "258036"


def labels(widget):
    """Every text the widget tree shows (labels, titles, subtitles, button labels)."""
    out = []
    stack = [widget]
    while stack:
        w = stack.pop()
        for prop in ("label", "title", "subtitle", "description"):
            try:
                v = w.get_property(prop)
            except TypeError:
                continue
            if isinstance(v, str) and v:
                out.append(v)
        child = w.get_first_child()
        while child is not None:
            stack.append(child)
            child = child.get_next_sibling()
    return out


def main(argv):
    out_dir, expected = argv[1], argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    Adw.init()
    Gtk.Settings.get_default().set_property("gtk-cursor-blink", False)
    application = Adw.Application(application_id="org.libpasscode.DemoLanguage", flags=0)
    application.register(None)
    seen = []
    clock = [1_000_000, 1_767_225_600_000, 1]
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o700)
        mailer = desktop.Mailer("127.0.0.1", 9, "demo@example.org", "alice@example.org", config=os.devnull)
        app = pg.App(application, os.path.join(tmp, "demo.db"), clock=lambda: tuple(clock), mailer=mailer, bus=None,
                     username="alice")
        app.window.set_default_size(420, 760)
        app.window.present()
        spin(0.5)

        def shot(name, widget=None):
            spin(0.6)
            seen.extend(labels(app.window) + (labels(widget) if widget is not None else []))
            pg.save_png(widget or app.window, os.path.join(out_dir, name + ".png"))

        sheet = app.sheet  # the first launch asks for a passcode
        shot("02-create-passcode", sheet)
        for ch in PASSCODE:
            sheet.pad.keys[ch].emit("clicked")
        spin()
        for ch in PASSCODE:
            sheet.pad.keys[ch].emit("clicked")
        spin(0.3)
        app.views.set_visible_child_name("security")
        shot("03-security-passcode-on")
        app.views.set_visible_child_name("account")
        shot("15-account")
        app.report(pg.Event.LOCK_NOW)
        spin(0.3)
        shot("04-lock-screen")
        pad = app.lock_view.pad
        for code in ("111112", "111113", "111114", "111115"):
            for ch in code:
                pad.keys[ch].emit("clicked")
            spin(0.1)
        shot("05-lock-screen-wrong-passcode")
        for ch in "111116":
            pad.keys[ch].emit("clicked")
        spin(0.3)
        app._tick()
        shot("06-lock-screen-lockout")
        clock[0] += 61_000
        clock[1] += 61_000
        spin(0.6)
        for ch in PASSCODE:
            pad.keys[ch].emit("clicked")
        spin(0.3)
        app.views.set_visible_child_name("log")
        shot("08-log-after-lockout")
        app.window.destroy()
        app.close()
        spin(0.05)
    missing = [t for t in expected if not any(t in s for s in seen)]
    if missing:
        print("language: not on any screen: " + "; ".join(missing))
        print("language: the screens said: " + " | ".join(sorted(set(seen)))[:3000])
        return 1
    print(f"language: {len(expected)} texts found on the screens; screenshots in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
