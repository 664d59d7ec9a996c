#!/usr/bin/env python3
"""passcode_demo.py: the terminal front end of examples/c/passcode_demo.c, in Python through the
binding. Same keys, same commands, same screens (Tests/frontends checks both).

    passcode_demo.py [--store PATH | --service APP_ID] [--script] [--fake-clock] [--tpm [TCTI]]
"""
import argparse
import contextlib
import datetime
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
                      LockReason, LogoutReason, Notice, Setting)

FLAGS = {"bio": Setting.BIOMETRIC_ENABLED, "launch-lock": Setting.LOCK_AT_LAUNCH,
         "bio-launch": Setting.REQUIRE_BIOMETRIC_ON_LAUNCH, "every-launch": Setting.PASSCODE_AFTER_EVERY_LAUNCH}
KIND_NAMES = {FlowKind.UNLOCK: "unlock", FlowKind.CREATE: "create", FlowKind.CHANGE: "change",
              FlowKind.DISABLE: "disable", FlowKind.RESET: "reset"}
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
        return "immediately"
    for unit, name in ((3600, "hour"), (60, "minute")):
        if seconds % unit == 0:
            n = seconds // unit
            return "%d %s%s" % (n, name, "" if n == 1 else "s")
    return "%d seconds" % seconds


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
        print(f"TPM posture: owner authorization {'set' if p['owner_auth_set'] else 'not set'}, "
              f"lockout authorization {'set' if p['lockout_auth_set'] else 'not set'}; "
              f"lockout after {p['max_tries']} failures, one forgotten every {p['recovery_time']} s")
        if not p["no_offline_search"]:
            print("TPM promises: nothing until the store is bound")
        elif p["hardware_guess_limit"]:
            print(f"TPM promises: no offline search off this machine; a hardware guess limit of {p['guess_limit']}")
        else:
            print("TPM promises: no offline search off this machine; no hardware guess limit (the TPM is not provisioned)")

    def open_store(self) -> None:
        clock = (lambda: (self.boot_ms, self.wall_ms, self.boot_id)) if self.fake else None
        self.store = passcode.Store(self.path, clock=clock, tpm=self.tpm, service=self.service)
        if self.tpm is not None:
            self.say("TPM: " + ("the store is bound to it" if self.store.tpm_bound else "the first passcode binds the store to it"))
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
        self.say("(app relaunched)")
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
        print("+------------------ email ------------------+")
        print("| Your libpasscode reset code: %-12s |" % ("********" if self.script else code))
        print("+--------------------------------------------+")

    def on_logout(self, reason: LogoutReason) -> None:
        why = "forgot passcode" if reason == LogoutReason.FORGOT_PASSCODE else "too many failed attempts"
        self.notice = f"logged out ({why}); please sign in again"

    def on_notice(self, notice: Notice) -> None:
        if notice == Notice.PASSCODE_RESET:
            self.notice = "your passcode was reset"

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
            self.say(f"error: {e.message}")
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
            print("--" if self.script else "\npress any key to go back")
            sys.stdout.flush()
            return
        if self.confirm_forgot:
            print("screen: forgot passcode?")
            print("You will need to sign in again. Your passcode will be removed.")
            print("keys: [y] Sign Out  [n] Cancel")
        elif self.flow:
            f = self.flow
            f.refresh()
            step, result = f.step, f.result
            filled, length = f.dots
            shakes = f.shakes
            print("screen: %s" % ("confirm passcode" if self.proof else "lock" if self.flow_kind == FlowKind.UNLOCK
                                  else KIND_NAMES[self.flow_kind]))
            print(f"prompt: {f.prompt}")
            if step == FlowStep.LOCKED_OUT:
                left = f.lockout_remaining
                print("lockout: %d:%02d" % (left // 60, left % 60))
            elif step != FlowStep.FINISHED:
                # The count in words beside the dots, as the GTK demo names them for a screen
                # reader: a console screen reader reads "*" and "_" as shapes, not as a count.
                dots = "".join("*" if i < filled else "_" for i in range(min(length, 12)))
                print(f"dots: {dots}  {filled} of {length} digits entered"
                      + ("   <<< shake >>>" if shakes != self.last_shakes else ""))
            self.last_shakes = shakes
            if f.error:
                print(f"error: {f.error}")
            if self.flow_kind == FlowKind.UNLOCK and not self.proof and step != FlowStep.FINISHED:
                if s.biometric_lead:  # the prompt opens by itself
                    print("biometric: %s prompt shown ([b] match, [n] no match)" % s.security_label[len("Passcode & "):])
                elif s.biometric_refusal == BiometricRefusal.NONE:  # offered only when a match may unlock
                    print("biometric: [b] %s" % s.security_label[len("Passcode & "):])
                print("forgot: [f] Forgot Passcode?")
            if not self.script and step not in (FlowStep.FINISHED, FlowStep.LOCKED_OUT):
                print("\n    1   2   3\n    4   5   6\n    7   8   9\n        0  del")  # a word, not a shape
        elif self.logged_out:
            print("screen: logged out")
            print("Signed out. Sign in to your account again, then create a new passcode.")
            if not self.script:
                print("\nkeys: [c]reate a passcode [q]uit")
        elif s.locked:
            print("screen: lock")
        else:
            lock = "on" if s.is_enabled else ("off (passcode kept)" if s.is_set else "off")
            print("screen: home")
            print("settings: %s | lock %s | biometric %s | auto-lock %s" % (
                s.security_label, lock, "on" if s.get_setting(Setting.BIOMETRIC_ENABLED) else "off",
                duration_text(s.get_setting(Setting.AUTO_LOCK_SECONDS))))

            def onoff(setting: Setting) -> str:
                return "on" if s.get_setting(setting) else "off"
            print("launch: lock at launch %s | require biometrics on launch %s | passcode after every launch %s" % (
                onoff(Setting.LOCK_AT_LAUNCH), onoff(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH),
                onoff(Setting.PASSCODE_AFTER_EVERY_LAUNCH)))
            if self.service:  # passcoded mails reset codes: where to, masked
                try:
                    print("reset address: %s" % (s.reset_recipient or "none (m sets one)"))
                except passcode.PasscodeError:
                    pass
            self.note_line()
            if not self.script:
                print("\nkeys: [c]reate [g] change [d]isable [e]nable [r]eset-email [w]rite note\n"
                      "      [t]imeout [i] biometric [a] require on launch [h] background [l]ock\n"
                      "      %s[v]iew log [q]uit" % ("[m] reset address [k] its code " if self.service else ""))
        if self.notice:
            print(f"notice: {self.notice}")
            self.notice = ""
        if self.script:
            print("--")
        else:
            if self.said:
                print("\n" + "\n".join(self.said))
                self.said = []
            if self.mail_shown:
                print("\n+------------------ email ------------------+")
                print("| Your libpasscode reset code: %-12s |" % self.email)
                print("+------------- any other key closes -------+")
            print("\n" + self.banner)
        sys.stdout.flush()

    def note_line(self) -> None:
        """The secret note's line: readable only while an unlock released the data key."""
        try:
            with open(self.note_path, "rb") as f:
                sealed = f.read(4096 + 64)
        except FileNotFoundError:
            print("note: (none)")
            return
        try:
            plain = self.store.unseal(sealed)
            print("note: %s" % plain.decode("utf-8", "replace"))
            passcode.wipe(plain)
        except passcode.KeyNotReleased:
            print("note: sealed (enter the passcode to read it)")
        except passcode.ForeignCiphertext:
            # Sealed with a key this store no longer has (a reset or a new passcode replaced it):
            # no passcode reads it again, so it goes, and no screen promises that the passcode would.
            os.unlink(self.note_path)
            print("note: (none; the old one was sealed with a data key this store no longer has, and was removed)")
        except passcode.PasscodeError as e:
            print("note: damaged (%s)" % passcode.strerror(e.status))

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
            return "unlock: done; %d failed attempt%s since your last unlock" % (n, "" if n == 1 else "s")
        return "unlock: done"

    def show_log(self) -> None:
        """The security event log, newest first, as a screen."""
        events = self.store.events()
        print("screen: security log (%d event%s, newest first)" % (len(events), "" if len(events) == 1 else "s"))
        for e in events:
            when = datetime.datetime.fromtimestamp(e.wall_ms // 1000, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
            detail = e.detail
            if e.kind == passcode.SecurityEvent.LOCKOUT_STARTED and detail.isdigit():
                detail = duration_text(int(detail))  # its length, in seconds: said with its unit
            elif e.kind == passcode.SecurityEvent.SETTING_CHANGED and detail:
                detail = e.text  # in words (the library's message table), not the store's keys
            print("  %s  %s%s" % (when, e.kind.name.lower().replace("_", " "), ": " + detail if detail else ""))

    def settle(self) -> None:
        if self.flow and self.flow.step == FlowStep.FINISHED:
            result, err = self.flow.result, self.flow.error
            name = KIND_NAMES[self.flow_kind]
            if self.proof:  # the passcode a setting change asked for
                setting, value = self.proof
                self.proof = None
                if result != FlowResult.SUCCESS:
                    what = "setting: not changed"
                else:
                    try:
                        self.store.set_setting(setting, value)
                        what = "setting: done"
                    except passcode.PasscodeError as e:
                        what = f"error: {e.message}"
            elif result == FlowResult.SUCCESS and self.flow_kind == FlowKind.UNLOCK:
                what = self.unlocked_notice()
            else:
                what = (f"{name}: done" + (f"; {err}" if err else "") if result == FlowResult.SUCCESS
                        else f"{name}: cancelled" if result == FlowResult.CANCELLED else err)
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
                self.notice = "This change weakens protection: enter your passcode to confirm it."

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
                    self.say("error: no passcode entry on screen (c creates a passcode)")
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
                        self.notice = ("the same wrong passcode again: counted once (a repeat is not another guess), "
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
                    self.say("error: restart needs --fake-clock")
                else:
                    self.boot_id += 1
                    self.boot_ms = 1_000_000
                    self.say("(device restarted)")
                    self.relaunch()
            elif cmd == "background":
                self.event(Event.BACKGROUND)
                self.say("(app in background)")
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
                    print("\nTouch the fingerprint reader...", flush=True)  # passcoded waits for a finger
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
                    self.say(f"biometric refused: {e.message}")
            elif cmd == "bio-fail":  # a failed match is said, with the count so far
                count = s.biometric_failed()
                self.notice = "biometric: no match; %d failed match%s since your last unlock" % (count, "" if count == 1 else "es")
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
                    self.say(f"error: {e.message}")
                if s.reset_pending:
                    self.start_flow(FlowKind.RESET)
            elif cmd in ("create", "change", "disable", "reset"):
                self.start_flow({"create": FlowKind.CREATE, "change": FlowKind.CHANGE,
                                 "disable": FlowKind.DISABLE, "reset": FlowKind.RESET}[cmd])
            elif cmd == "enable":
                s.enable()
                self.notice = "enable: done"
            elif cmd == "reset-request":
                s.request_reset_code()
            elif cmd == "recipient":
                # Service mode: the address for reset codes, set with the passcode; passcoded mails
                # it a confirmation code, given back with the passcode (recipient-confirm).
                s.set_reset_recipient(arg or "", arg2 or "")
                self.notice = f"reset address: a confirmation code was mailed to {arg}; enter it with the passcode"
            elif cmd == "recipient-confirm":
                s.confirm_reset_recipient(arg or "", arg2 or "")
                self.notice = f"reset address: confirmed; reset codes go to {s.reset_recipient}"
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
                self.say(f"error: unknown command '{cmd}'")
        except passcode.PasscodeError as e:
            self.say(f"error: {e.message}")
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
                    first = input("address for reset codes: " if c == "m" else "confirmation code from the email: ")
                    digits = getpass.getpass("passcode (not shown): ")
                finally:
                    tty.setcbreak(fd)
                app.command("recipient" if c == "m" else "recipient-confirm", first, digits)
            elif c == "w":
                termios.tcsetattr(fd, termios.TCSANOW, saved)
                try:
                    text = input("note text: ")
                finally:
                    tty.setcbreak(fd)
                app.command("note", text)
            elif c == "h":
                app.command("background")
                print("press any key to come back")
                sys.stdout.flush()
                sys.stdin.read(1)
                app.command("foreground")
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def main() -> int:
    try:  # the library's messages (prompts, errors, the log in words) follow the locale
        locale.setlocale(locale.LC_ALL, "")
    except locale.Error:
        pass
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
        where = f"passcoded's store for {a.service}" if a.service else path
        print(f"cannot open {where}: {e.message}", file=sys.stderr)
        return 1
    if a.service:
        app.banner = f"libpasscode {passcode.version()} demo, service mode: passcoded's store for {a.service}"
    else:
        app.banner = f"libpasscode {passcode.version()} demo, store {'(script)' if script else path}"
    print(app.banner)
    app.command("launch")
    # The first launch, with no passcode yet (and no sign-in pending): "Create a passcode".
    if not app.store.is_set and not app.flow and not app.logged_out:
        app.notice = "Welcome: create a passcode to protect the app."
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
