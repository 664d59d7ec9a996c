#!/usr/bin/env python3
"""passcode_demo.py: the terminal front end of examples/c/passcode_demo.c, in Python through the
binding. Same keys, same commands, same screens (Tests/frontends checks both), in the user's
language as the C demo (its words through the gettext domain passcode-demo).

    passcode_demo.py [--store PATH | --service APP_ID] [--script] [--fake-clock] [--tpm [TCTI]]
"""
import argparse
import contextlib
import datetime
import gettext
import io
import locale
import os
import shutil
import sys
import textwrap
from typing import List, Optional, Tuple, Union

try:
    import passcode
except ImportError as e:  # the package itself, or libpasscode.so.0 (the message names both)
    sys.exit(f"passcode_demo: {e}\n  install the binding (pip install ./python, or the python3-passcode package),"
             " or run from the source tree with PYTHONPATH=python")
from passcode import (BiometricKind, BiometricRefusal, Event, FlowKind, FlowResult, FlowStep,  # noqa: E402
                      LockReason, LogoutReason, Message, Notice, Setting)


def translations() -> gettext.NullTranslations:
    """The demo's own words in the user's language (gettext domain passcode-demo, as the C and GTK
    demos: this checkout's build/share/locale, else the system's); the library's words follow the
    same locale. As the C library does, the "C" locale means English whatever LANGUAGE says."""
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


def N_(text: str) -> str:
    """A text to translate where it is shown, not where it is written."""
    return text


FLAGS = {"bio": Setting.BIOMETRIC_ENABLED, "launch-lock": Setting.LOCK_AT_LAUNCH,
         "bio-launch": Setting.REQUIRE_BIOMETRIC_ON_LAUNCH, "every-launch": Setting.PASSCODE_AFTER_EVERY_LAUNCH}
# TRANSLATORS: a flow's name, in "screen: %s", "%s: done" and "%s: cancelled".
KIND_NAMES = {FlowKind.UNLOCK: N_("unlock"), FlowKind.CREATE: N_("create"), FlowKind.CHANGE: N_("change"),
              FlowKind.DISABLE: N_("disable"), FlowKind.RESET: N_("reset")}
BIOMETRIC_NAMES = {BiometricKind.FACE_ID: "Face ID", BiometricKind.TOUCH_ID: "Touch ID",
                   BiometricKind.FINGERPRINT: N_("Fingerprint")}


def kind_name(kind: FlowKind) -> str:
    return _(KIND_NAMES[kind])


def biometric_name(kind: BiometricKind) -> str:
    """The biometric the device reports, by name ("Face ID"), for the lock screen's keys."""
    return _(BIOMETRIC_NAMES.get(kind, N_("Biometric")))


def failure_words(e: "passcode.PasscodeError") -> str:
    """What a person reads for a failure: the library's message for it (from its code, in the
    user's language); the programmer's text only for a failure a person cannot act on, where its
    detail is what a developer trying the demo needs."""
    if e.person[0] in (Message.NONE, Message.SOMETHING_WENT_WRONG):
        return e.message
    return e.text


def count_words(filled: int, length: int) -> str:
    """The dots in words, as the GTK demo names them for a screen reader."""
    # TRANSLATORS: the passcode's dots in words for a screen reader: digits typed of the digits it takes.
    return ngettext("%d of %d digit entered", "%d of %d digits entered", length) % (filled, length)


def box_edge(width: int, title: str = "") -> str:
    """A box's top or bottom border with title in its middle: "+------ email ------+"."""
    t = " %s " % title if title else ""
    left = (width - 2 - len(t)) // 2
    return "+" + "-" * left + t + "-" * (width - 2 - len(t) - left) + "+"


def mail_box(code: str, closing: bool = False) -> str:
    """The "email" (there is no mail server): a box as wide as its line."""
    text = _("Your libpasscode reset code: %s") % code
    inner = max(41, len(text))
    return "\n".join([box_edge(inner + 4, _("email")), "| %s%s |" % (text, " " * (inner - len(text))),
                      box_edge(inner + 4, _("any other key closes") if closing else "")])

def wrapped(text: str, width: int) -> str:
    """Each line longer than width broken at spaces (a word longer than a line is cut), its
    continuation indented as the line is: the terminal would break it mid-word."""
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        if len(indent) > width // 2:
            indent = ""
        lines.append(textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False))
    return "\n".join(lines)


def duration_text(seconds: int) -> str:
    """An auto-lock choice as a person reads it: "immediately", "1 minute", "1 hour"."""
    if seconds == 0:
        return _("immediately")
    if seconds % 3600 == 0:
        return ngettext("%d hour", "%d hours", seconds // 3600) % (seconds // 3600)
    if seconds % 60 == 0:
        return ngettext("%d minute", "%d minutes", seconds // 60) % (seconds // 60)
    return ngettext("%d second", "%d seconds", seconds) % seconds


class App:
    def __init__(self, path: str, script: bool, fake_clock: bool, tpm: Union[bool, str, None] = None,
                 service: Optional[str] = None):
        self.script = script
        self.service = service  # --service APP_ID: the store passcoded keeps (path is then a label)
        self.tpm = tpm
        self.fake = fake_clock
        self.boot_ms, self.wall_ms, self.boot_id = 1_000_000, 1_767_225_600_000, 1
        self.path = path
        self.flow: Optional[passcode.Flow] = None
        self.flow_kind = FlowKind.UNLOCK
        self.email = ""
        self.confirm_forgot = False  # "Forgot Passcode?" asks before it signs out
        self.mail_shown = False      # interactive: the "email" stays on screen until a key
        self.banner = ""             # "libpasscode X demo, store PATH": at the bottom of every screen
        self.said: List[str] = []    # interactive: what commands said since the last screen
        self.last_shakes = 0
        self.notice = ""
        self.log_next = False  # the next screen is the security log
        # A setting change that waits for the passcode, entered in an unlock flow (the proof).
        self.proof: Optional[Tuple[Setting, int]] = None
        # the secret note, sealed with the store's data key (the service store's: a file of its own)
        self.note_path = f"{path}.{service}.note" if service else path + ".note"
        self.open_store()

    def say_tpm_posture(self) -> None:
        """What the store's TPM binding promises, said plainly (passcode_tpm_posture)."""
        p = self.store.tpm_posture()
        # TRANSLATORS: each "%s" after "authorization" is "set" or "not set"; "s" is seconds.
        print(ngettext("TPM posture: owner authorization %s, lockout authorization %s; lockout after %d failure, one forgotten every %d s",
                       "TPM posture: owner authorization %s, lockout authorization %s; lockout after %d failures, one forgotten every %d s",
                       p["max_tries"])
              % (_("set") if p["owner_auth_set"] else _("not set"), _("set") if p["lockout_auth_set"] else _("not set"),
                 p["max_tries"], p["recovery_time"]))
        if not p["no_offline_search"]:
            print(_("TPM promises: nothing until the store is bound"))
        elif p["hardware_guess_limit"]:
            print(_("TPM promises: no offline search off this machine; a hardware guess limit of %d") % p["guess_limit"])
        else:
            print(_("TPM promises: no offline search off this machine; no hardware guess limit (the TPM is not provisioned)"))

    def open_store(self) -> None:
        clock = (lambda: (self.boot_ms, self.wall_ms, self.boot_id)) if self.fake else None
        self.store = passcode.Store(self.path, clock=clock, tpm=self.tpm, service=self.service)
        if self.tpm is not None:
            self.say(_("TPM: %s") % (_("the store is bound to it") if self.store.tpm_bound else _("the first passcode binds the store to it")))
            self.say_tpm_posture()
        try:
            self.store.on_reset_code(self.deliver)
        except passcode.RefusedInServiceMode:
            pass  # service mode: passcoded delivers reset codes itself, or refuses a request with its reason
        self.store.on_logout(self.on_logout)
        self.store.on_notice(self.on_notice)

    def relaunch(self) -> None:
        """The app quits and starts again: a new handle, nothing kept in memory, then "launched"."""
        self.end_flow()
        self.store.close()
        self.open_store()
        self.say(_("(app relaunched)"))
        self.event(Event.LAUNCHED)

    # -- host callbacks -------------------------------------------------------------------------
    def say(self, text: str) -> None:
        """What a command says: printed in scripted mode; kept for the bottom of the next screen
        when interactive (the screen is cleared first), so every refusal stays readable."""
        if self.script:
            print(text)
        else:
            self.said.append(text)

    def deliver(self, code: str) -> None:
        self.email = code
        if not self.script:  # drawn by draw() until a key other than a digit (interactive)
            self.mail_shown = True
            return
        print(mail_box("********"))  # scripted runs print the same every time: the code is masked

    def on_logout(self, reason: LogoutReason) -> None:
        self.notice = (_("logged out (forgot passcode); please sign in again") if reason == LogoutReason.FORGOT_PASSCODE
                       else _("logged out (too many failed attempts); please sign in again"))

    def on_notice(self, notice: Notice) -> None:
        if notice == Notice.PASSCODE_RESET:
            self.notice = _("your passcode was reset")

    # -- flows ----------------------------------------------------------------------------------
    def end_flow(self) -> None:
        if self.flow:
            self.flow.close()
        self.flow = None
        self.proof = None

    def start_flow(self, kind: FlowKind) -> None:
        self.end_flow()
        try:
            self.flow = self.store.flow(kind)
        except passcode.PasscodeError as e:
            self.say(_("error: %s") % failure_words(e))
            return
        self.flow_kind = kind
        self.last_shakes = 0

    @property
    def logged_out(self) -> bool:
        """After "forgot passcode" (or the forced logout) the user must sign in again."""
        return self.store.lock_state == (True, LockReason.LOGGED_OUT)

    def ensure_lock_screen(self) -> None:
        if self.store.locked and not self.logged_out and not self.flow:
            self.start_flow(FlowKind.UNLOCK)

    def draw(self) -> None:
        """The screen: in scripted mode as it is; interactive, cleared first and wrapped at word
        boundaries to the terminal's width (COLUMNS, else the terminal's own)."""
        if self.script:
            self.draw_screen()
            return
        screen = io.StringIO()
        with contextlib.redirect_stdout(screen):
            self.draw_screen()
        width = max(20, shutil.get_terminal_size().columns)
        sys.stdout.write("\033[2J\033[H" + wrapped(screen.getvalue(), width))
        sys.stdout.flush()

    def draw_screen(self) -> None:
        s = self.store
        if self.log_next:
            self.log_next = False
            self.show_log()
            print("--" if self.script else "\n" + _("press any key to go back"))
            sys.stdout.flush()
            return
        if self.confirm_forgot:
            print(_("screen: forgot passcode?"))
            print("%s %s" % (_("You will need to sign in again."), _("Your passcode will be removed.")))
            print(_("keys: [y] Sign Out  [n] Cancel"))
        elif self.flow:
            f = self.flow
            f.refresh()
            step, result = f.step, f.result
            filled, length = f.dots
            shakes = f.shakes
            # TRANSLATORS: %s is a flow's name ("create"), "confirm passcode" or "lock".
            print(_("screen: %s") % (_("confirm passcode") if self.proof else _("lock") if self.flow_kind == FlowKind.UNLOCK
                                     else kind_name(self.flow_kind)))
            print(_("prompt: %s") % f.prompt)
            if step == FlowStep.LOCKED_OUT:
                left = f.lockout_remaining
                print(_("lockout: %d:%02d") % (left // 60, left % 60))
            elif step != FlowStep.FINISHED:
                # The count in words beside the dots, as the GTK demo names them for a screen
                # reader: a console screen reader reads "*" and "_" as shapes, not as a count.
                dots = "".join("*" if i < filled else "_" for i in range(min(length, 12)))
                if shakes != self.last_shakes:
                    print(_("dots: %s  %s   <<< shake >>>") % (dots, count_words(filled, length)))
                else:
                    print(_("dots: %s  %s") % (dots, count_words(filled, length)))
            self.last_shakes = shakes
            if f.error:
                print(_("error: %s") % f.error)
            if self.flow_kind == FlowKind.UNLOCK and not self.proof and step != FlowStep.FINISHED:
                bio = biometric_name(s.lock_screen().biometric_kind)
                if s.biometric_lead:  # the prompt opens by itself
                    print(_("biometric: %s prompt shown ([b] match, [n] no match)") % bio)
                elif s.biometric_refusal == BiometricRefusal.NONE:  # offered only when a match may unlock
                    print(_("biometric: [b] %s") % bio)
                print(_("forgot: [f] Forgot Passcode?"))
            if not self.script and step not in (FlowStep.FINISHED, FlowStep.LOCKED_OUT):
                # TRANSLATORS: the number pad's delete key, a word (not a shape) a screen reader reads: at most 5 characters.
                print("\n    1   2   3\n    4   5   6\n    7   8   9\n        0  %s" % _("del"))  # a word, not a shape
        elif self.logged_out:
            print(_("screen: logged out"))
            print(_("Signed out. Sign in to your account again, then create a new passcode."))
            if not self.script:
                print("\n" + _("keys: [c]reate a passcode [q]uit"))
        elif s.locked:
            print(_("screen: lock"))
        else:
            def onoff(setting: Setting) -> str:
                return _("on") if s.get_setting(setting) else _("off")
            lock = _("on") if s.is_enabled else (_("off (passcode kept)") if s.is_set else _("off"))
            print(_("screen: home"))
            # TRANSLATORS: each %s after "lock", "biometric" is "on" or "off" (or "off (passcode kept)").
            print(_("settings: %s | lock %s | biometric %s | auto-lock %s") % (
                s.security_label, lock, onoff(Setting.BIOMETRIC_ENABLED), duration_text(s.get_setting(Setting.AUTO_LOCK_SECONDS))))
            print(_("launch: lock at launch %s | require biometrics on launch %s | passcode after every launch %s") % (
                onoff(Setting.LOCK_AT_LAUNCH), onoff(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH),
                onoff(Setting.PASSCODE_AFTER_EVERY_LAUNCH)))
            if self.service:  # passcoded mails reset codes: where to, masked
                try:
                    print(_("reset address: %s") % (s.reset_recipient or _("none (m sets one)")))
                except passcode.PasscodeError:
                    pass
            self.note_line()
            if not self.script:
                # TRANSLATORS: the home screen's keys: each letter in brackets is the key to press (not translated).
                print("\n" + _("keys: [c]reate [g] change [d]isable [e]nable [r]eset-email [w]rite note"))
                print("      " + _("[t]imeout [i] biometric [a] require on launch [h] background [l]ock"))
                print("      " + (_("[m] reset address [k] its code ") if self.service else "") + _("[v]iew log [q]uit"))
        if self.notice:
            print(_("notice: %s") % self.notice)
            self.notice = ""
        if self.script:
            print("--")
        else:
            if self.said:
                print("\n" + "\n".join(self.said))
                self.said = []
            if self.mail_shown:
                print("\n" + mail_box(self.email, closing=True))
            print("\n" + self.banner)
        sys.stdout.flush()

    def note_line(self) -> None:
        """The secret note's line: readable only while an unlock released the data key."""
        try:
            with open(self.note_path, "rb") as f:
                sealed = f.read(4096 + 64)
        except FileNotFoundError:
            print(_("note: (none)"))
            return
        try:
            plain = self.store.unseal(sealed)
            print(_("note: %s") % plain.decode("utf-8", "replace"))
            passcode.wipe(plain)
        except passcode.KeyNotReleased:
            print(_("note: sealed (enter the passcode to read it)"))
        except passcode.ForeignCiphertext:
            # Sealed with a key this store no longer has (a reset or a new passcode replaced it):
            # no passcode reads it again, so it goes, and no screen promises that the passcode would.
            os.unlink(self.note_path)
            print(_("note: (none; the old one was sealed with a data key this store no longer has, and was removed)"))
        except passcode.PasscodeError as e:
            print(_("note: damaged (%s)") % passcode.strerror(e.status))

    def write_note(self, text: str) -> None:
        """Seals the text with the data key into the note file (mode 0600)."""
        sealed = self.store.seal(text.encode()[:4096])
        fd = os.open(self.note_path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(sealed)

    def unlocked_notice(self) -> str:
        """ "unlock: done", and as Android does, what happened while the app was locked."""
        n = self.store.failures_since_unlock
        if n > 0:
            return ngettext("unlock: done; %d failed attempt since your last unlock",
                            "unlock: done; %d failed attempts since your last unlock", n) % n
        return _("unlock: done")

    def show_log(self) -> None:
        """The security event log, newest first, as a screen: each entry by the library's name for it."""
        events = self.store.events()
        print(ngettext("screen: security log (%d event, newest first)", "screen: security log (%d events, newest first)",
                       len(events)) % len(events))
        for e in events:
            when = datetime.datetime.fromtimestamp(e.wall_ms // 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
            detail = e.detail
            if e.kind == passcode.SecurityEvent.LOCKOUT_STARTED and detail.isdigit():
                detail = duration_text(int(detail))  # its length, in seconds: said with its unit
            elif e.kind == passcode.SecurityEvent.SETTING_CHANGED and detail:
                detail = e.text  # in words (the library's message table), not the store's keys
            name = passcode.message_text(passcode.message_of(e.kind))
            # TRANSLATORS: a log entry's name and its detail ("Lockout started: 1 minute").
            print("  %s  %s" % (when, _("%s: %s") % (name, detail) if detail else name))

    def settle(self) -> None:
        if self.flow and self.flow.step == FlowStep.FINISHED:
            result, err = self.flow.result, self.flow.error
            name = kind_name(self.flow_kind)
            if self.proof:  # the passcode a setting change asked for
                setting, value = self.proof
                self.proof = None
                if result != FlowResult.SUCCESS:
                    what = _("setting: not changed")
                else:
                    try:
                        self.store.set_setting(setting, value)
                        what = _("setting: done")
                    except passcode.PasscodeError as e:
                        what = _("error: %s") % failure_words(e)
            elif result == FlowResult.SUCCESS and self.flow_kind == FlowKind.UNLOCK:
                what = self.unlocked_notice()
            elif result == FlowResult.SUCCESS:
                # TRANSLATORS: %s is a flow's name ("create"); the second %s what it says (a reset that kept no data).
                what = _("%s: done; %s") % (name, err) if err else _("%s: done") % name
            else:
                what = _("%s: cancelled") % name if result == FlowResult.CANCELLED else err
            self.notice = self.notice + ("; " if self.notice and what else "") + what
            self.end_flow()
        self.ensure_lock_screen()

    def set_setting(self, setting: Setting, value: int) -> None:
        """A setting change. One that weakens protection needs the passcode entered within 5
        minutes: the demo says so in the user's words and asks for it in place (an unlock flow,
        whose passcode is the proof), then makes the change."""
        try:
            self.store.set_setting(setting, value)
        except passcode.PasscodeRequired:
            self.start_flow(FlowKind.UNLOCK)
            if self.flow:
                self.proof = (setting, value)
                self.notice = _("This change weakens protection: enter your passcode to confirm it.")

    def event(self, e: Event) -> None:
        self.store.report(e)
        if not self.store.locked and self.flow and self.flow_kind == FlowKind.UNLOCK:
            self.end_flow()

    def command(self, cmd: str, arg: Optional[str] = None, arg2: Optional[str] = None) -> bool:
        s = self.store
        if self.confirm_forgot and cmd not in ("yes", "no"):
            self.confirm_forgot = False  # anything else cancels
        try:
            if cmd.isdigit() and cmd.isascii():
                flow = self.flow
                if not flow:
                    self.say(_("error: no passcode entry on screen (c creates a passcode)"))
                else:
                    unlock = self.flow_kind == FlowKind.UNLOCK
                    shakes, failures = (flow.shakes, s.failures_since_unlock) if unlock else (0, 0)
                    for ch in cmd:
                        try:
                            flow.digit(int(ch))
                        except passcode.PasscodeError:
                            break
                    # A wrong passcode that did not count: the library counts a repeat of one wrong
                    # code once (a typo typed again is not another guess), so it brings no lockout nearer.
                    if unlock and flow.shakes != shakes and 0 < s.failures_since_unlock == failures:
                        self.notice = _("the same wrong passcode again: counted once (a repeat is not another guess), "
                                        "so it brings no lockout nearer")
            elif cmd == "del":
                if self.flow:
                    self.flow.delete()
            elif cmd == "cancel":
                if self.flow and (self.flow_kind != FlowKind.UNLOCK or self.proof):
                    self.flow.cancel()
            elif cmd == "launch":
                self.event(Event.LAUNCHED)
            elif cmd == "relaunch":
                self.relaunch()
            elif cmd == "restart":
                if not self.fake:
                    self.say(_("error: restart needs --fake-clock"))
                else:
                    self.boot_id += 1
                    self.boot_ms = 1_000_000
                    self.say(_("(device restarted)"))
                    self.relaunch()
            elif cmd == "background":
                self.event(Event.BACKGROUND)
                self.say(_("(app in background)"))
            elif cmd == "foreground":
                self.event(Event.FOREGROUND)
            elif cmd == "lock":
                self.event(Event.LOCK_NOW)
            elif cmd == "wait":
                n = int(arg or 0)
                if self.fake:
                    self.boot_ms += n * 1000
                    self.wall_ms += n * 1000
                else:
                    import time
                    time.sleep(n)
            elif cmd == "bio-ok":
                if self.service and not self.script and s.biometric_refusal == BiometricRefusal.NONE:
                    print("\n" + _("Touch the fingerprint reader..."), flush=True)  # passcoded waits for a finger
                # The key-releasing unlock, so that the secret note can be read and written after
                # it; a process that holds no key (after a relaunch without the session keyring)
                # still unlocks, and the note waits for the passcode.
                try:
                    try:
                        passcode.wipe(s.biometric_unlock_key())
                    except passcode.PasscodeRequired as e:
                        if getattr(e, "reason", None) != BiometricRefusal.KEY_NOT_IN_MEMORY:
                            raise
                        s.biometric_unlock()
                    self.end_flow()
                    self.notice = self.unlocked_notice()
                except passcode.PasscodeRequired as e:
                    self.say(_("biometric refused: %s") % failure_words(e))
            elif cmd == "bio-fail":  # a failed match is said, with the count so far
                count = s.biometric_failed()
                self.notice = ngettext("biometric: no match; %d failed match since your last unlock",
                                       "biometric: no match; %d failed matches since your last unlock", count) % count
            elif cmd == "log":
                self.log_next = True
            elif cmd == "note":
                self.write_note(arg or "")
            elif cmd == "forgot":
                self.confirm_forgot = True
            elif cmd == "yes" and self.confirm_forgot:
                self.confirm_forgot = False
                s.forgot()
                self.end_flow()
            elif cmd == "no" and self.confirm_forgot:
                self.confirm_forgot = False
            elif cmd == "reset-email":
                # The r key: the code is requested, then its entry opens. A refusal is said; the
                # entry still opens while an earlier code is pending, and not when there is none.
                try:
                    s.request_reset_code()
                except passcode.PasscodeError as e:
                    self.say(_("error: %s") % failure_words(e))
                if s.reset_pending:
                    self.start_flow(FlowKind.RESET)
            elif cmd in ("create", "change", "disable", "reset"):
                self.start_flow({"create": FlowKind.CREATE, "change": FlowKind.CHANGE,
                                 "disable": FlowKind.DISABLE, "reset": FlowKind.RESET}[cmd])
            elif cmd == "enable":
                s.enable()
                self.notice = _("enable: done")
            elif cmd == "reset-request":
                s.request_reset_code()
            elif cmd == "recipient":
                # Service mode: the address for reset codes, set with the passcode; passcoded mails
                # it a confirmation code, given back with the passcode (recipient-confirm).
                s.set_reset_recipient(arg or "", arg2 or "")
                self.notice = _("reset address: a confirmation code was mailed to %s; enter it with the passcode") % arg
            elif cmd == "recipient-confirm":
                s.confirm_reset_recipient(arg or "", arg2 or "")
                self.notice = _("reset address: confirmed; reset codes go to %s") % s.reset_recipient
            elif cmd == "code":
                if self.flow:
                    for ch in self.email:
                        self.flow.digit(int(ch))
            elif cmd == "biometrics":
                kind = {"faceid": BiometricKind.FACE_ID, "touchid": BiometricKind.TOUCH_ID, "fingerprint": BiometricKind.FINGERPRINT,
                        "other": BiometricKind.OTHER}.get(arg or "", BiometricKind.NONE)
                s.set_biometric_availability(kind != BiometricKind.NONE, kind)
            elif cmd in FLAGS:
                self.set_setting(FLAGS[cmd], 1 if arg == "on" else 0)
            elif cmd == "timeout":
                self.set_setting(Setting.AUTO_LOCK_SECONDS, int(arg) if arg else -1)
            elif cmd == "show":
                pass
            elif cmd == "quit":
                return False
            else:
                self.say(_("error: unknown command '%s'") % cmd)
        except passcode.PasscodeError as e:
            self.say(_("error: %s") % failure_words(e))
        self.settle()
        self.draw()
        return True


def default_store() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    folder = os.path.join(state, "passcode")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.join(folder, "demo.db")


KEYS = {"\x7f": "del", "\x08": "del", "\x1b": "cancel", "b": "bio-ok", "n": "bio-fail", "r": "reset-email",
        "c": "create", "g": "change", "d": "disable", "e": "enable", "l": "lock", "v": "log"}


def interactive(app: App) -> None:
    import termios
    import tty
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        while True:
            c = sys.stdin.read(1)
            if not c or c == "q":
                break
            if app.mail_shown and not c.isdigit() and c not in ("\x7f", "\x08"):
                app.mail_shown = False  # the key closes the email and does nothing else
                app.draw()
                continue
            if c.isdigit():
                app.command(c)
            elif c in KEYS:
                app.command(KEYS[c])
            elif c == "f":
                app.command("forgot")  # the confirmation is on screen: y signs out, any other key cancels
                sys.stdout.flush()
                app.command("yes" if sys.stdin.read(1) in ("y", "Y") else "no")
            elif c == "a":
                app.command("bio-launch", "off" if app.store.get_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH) else "on")
            elif c == "i":
                app.command("biometrics", "faceid")
                app.command("bio", "off" if app.store.get_setting(Setting.BIOMETRIC_ENABLED) else "on")
            elif c == "t":
                cycle = passcode.setting_choices(Setting.AUTO_LOCK_SECONDS)  # from the library, not a copy
                t = app.store.get_setting(Setting.AUTO_LOCK_SECONDS)
                app.command("timeout", str(cycle[(cycle.index(t) + 1) % len(cycle)] if t in cycle else cycle[0]))
            elif c in ("m", "k") and app.service:  # the reset address, then the code mailed to it
                import getpass
                termios.tcsetattr(fd, termios.TCSANOW, saved)
                try:
                    first = input(_("address for reset codes: ") if c == "m" else _("confirmation code from the email: "))
                    digits = getpass.getpass(_("passcode (not shown): "))
                finally:
                    tty.setcbreak(fd)
                app.command("recipient" if c == "m" else "recipient-confirm", first, digits)
            elif c == "w":
                termios.tcsetattr(fd, termios.TCSANOW, saved)
                try:
                    text = input(_("note text: "))
                finally:
                    tty.setcbreak(fd)
                app.command("note", text)
            elif c == "h":
                app.command("background")
                print(_("press any key to come back"))
                sys.stdout.flush()
                sys.stdin.read(1)
                app.command("foreground")
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def main() -> int:
    # The locale is set (translations(), at import): the demo's words and the library's (prompts,
    # errors, the log in words) follow it.
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store")
    p.add_argument("--service", metavar="APP_ID",
                   help="service mode: the store passcoded keeps for APP_ID, through the system bus")
    p.add_argument("--script", action="store_true")
    p.add_argument("--fake-clock", action="store_true")
    p.add_argument("--tpm", nargs="?", const=True, default=None, metavar="TCTI",
                   help="bind the store to the TPM (/dev/tpmrm0, or a tpm2-tss TCTI such as swtpm:host=127.0.0.1,port=2321)")
    a = p.parse_args()
    script = a.script or not sys.stdin.isatty()
    path = a.store or default_store()
    try:
        app = App(path, script, a.fake_clock, a.tpm, a.service)
    except passcode.PasscodeError as e:
        if a.service:
            print(_("cannot open passcoded's store for %s: %s") % (a.service, e.message), file=sys.stderr)
        else:
            print(_("cannot open %s: %s") % (path, e.message), file=sys.stderr)
        return 1
    if a.service:
        app.banner = _("libpasscode %s demo, service mode: passcoded's store for %s") % (passcode.version(), a.service)
    else:
        app.banner = _("libpasscode %s demo, store %s") % (passcode.version(), _("(script)") if script else path)
    print(app.banner)
    app.command("launch")
    # The first launch, with no passcode yet (and no sign-in pending): "Create a passcode".
    if not app.store.is_set and not app.flow and not app.logged_out:
        app.notice = _("Welcome: create a passcode to protect the app.")
        app.command("create")
    if script:
        go = True
        for line in sys.stdin:
            toks = line.split()
            i = 0
            while go and i < len(toks):
                tok = toks[i]
                if tok.startswith("#"):
                    break
                arg = arg2 = None
                if tok in ("wait", "timeout", "biometrics", "note", "recipient", "recipient-confirm", *FLAGS) and i + 1 < len(toks):
                    i += 1
                    arg = toks[i]
                if tok in ("recipient", "recipient-confirm") and i + 1 < len(toks):
                    i += 1
                    arg2 = toks[i]
                print(f"> {tok}{' ' + arg if arg else ''}{' ******' if arg2 else ''}")  # the passcode not echoed
                go = app.command(tok, arg, arg2)
                i += 1
            if not go:
                break
    else:
        interactive(app)
    app.end_flow()
    app.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
