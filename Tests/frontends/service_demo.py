#!/usr/bin/python3
"""The terminal front ends in service mode with a fingerprint reader and a mail relay: passcoded
for this checkout on a private bus (Tests/service/harness.py, as root), python-dbusmock's fprintd
(Tests/gtk/fprintd_template.py) and logind (Tests/service/logind_template.py) run as root on it,
an aiosmtpd relay on a privileged loopback port. Each part runs the demo in scripted mode:

- a fingerprint after "lock now": passcode_biometric_unlock_key refuses with KEY_NOT_IN_MEMORY
  before the reader is claimed, so the demo falls back to passcode_biometric_unlock (one finger
  read, one claim) and unlocks; the note waits for the passcode, which then reads it;
- a reset request with no passcode: the library's NO_PASSCODE message;
- the reset address, as a user who is not root (root's word needs no confirmation): set with the
  passcode, the confirmation code passcoded mailed typed back with the passcode, the masked
  address on the home screen, then a reset by the code mailed there;
- the ncurses screen in a tmux pane: b says "Touch the fingerprint reader..." while passcoded
  waits for the finger (none comes).

    Tests/frontends/service_demo.py PASSCODED DEMO-COMMAND...
SERVICE_TEST_USERS: the prefix of the users it makes (default passcode-demo-test)."""
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "Tests", "service"))
from harness import TRY_POLICIES, TRY_POLICY, PrivateService, privileged_port, write_root_file  # noqa: E402

import dbus  # noqa: E402
import dbusmock  # noqa: E402
from aiosmtpd.controller import Controller  # noqa: E402

GOOD, NEW = "386491", "502817"
ARGS = {"wait": 1, "timeout": 1, "biometrics": 1, "note": 1, "bio": 1, "launch-lock": 1, "bio-launch": 1, "every-launch": 1,
        "recipient": 2, "recipient-confirm": 2}
failures = []


def check(ok, what):
    print(("ok   " + what.split(":\n")[0]) if ok else ("FAIL " + what), flush=True)
    if not ok:
        failures.append(what)


class Mailbox:
    def __init__(self):
        self.bodies = queue.Queue()

    async def handle_DATA(self, server, session, envelope):
        self.bodies.put(envelope.content.decode("utf-8", "replace"))
        return "250 OK"

    def code(self, pattern):
        """The digits `pattern` finds in the next mail (a hang guard of 60 s, not a bound)."""
        body = self.bodies.get(timeout=60)
        found = re.findall(pattern, body)
        return found[0] if found else ""


class Demo:
    """The demo in scripted mode on a pipe: a line of commands in, its screens out up to the
    "--" that ends the screen of each command."""

    def __init__(self, command, env, user=None):
        self.p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, env=env, preexec_fn=user)
        self.lines = queue.Queue()
        self.all = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def run(self, commands):
        """Sends `commands` (one line) and returns what the demo printed for them."""
        toks, n = commands.split(), 0
        while toks:  # one screen a command; the demo's commands with arguments take them along
            n += 1
            toks = toks[1 + ARGS.get(toks[0], 0):]
        self.p.stdin.write(commands + "\n")
        self.p.stdin.flush()
        out, screens = [], 0
        while screens < n:
            line = self.lines.get(timeout=120)  # a hang guard: every command answers
            if line is None:
                break
            out.append(line)
            self.all.append(line)
            if line == "--":
                screens += 1
        return "\n".join(out)

    def start(self):
        """The output up to the first launch's screens (two: launch, and create)."""
        out = []
        while True:
            line = self.lines.get(timeout=120)
            if line is None:
                break
            out.append(line)
            if line == "--" and sum(1 for x in out if x == "--") == 2:
                break
        return "\n".join(out)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)
        return "\n".join(self.all)


def main(argv):
    passcoded, demo = argv[1], argv[2:]
    curses_ran = False
    if os.path.basename(demo[0]).startswith("python"):  # the system's, which a user who is not root may run
        demo = [sys.executable] + demo[1:]
    name = " ".join(os.path.basename(x) for x in demo)
    prefix = os.environ.get("SERVICE_TEST_USERS", "passcode-demo-test")
    mailbox = Mailbox()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=privileged_port())
    smtp.start()
    rig = PrivateService(os.path.abspath(passcoded), REPO, users=prefix, folder="passcode-demo.", name="service_demo", parent="/tmp")
    try:
        rig.add_user(rig.service_user, system=True)
        person = rig.add_user(rig.user("demo"))
        write_root_file(rig.config_file, f"store_root = {rig.store_root}\nuser = {rig.service_user}\nargon2_ops = 1\n"
                                         f"argon2_mem = 8192\nfprint_timeout = 30\nfprint_checks_per_minute = 60\n"
                                         f"smtp_host = 127.0.0.1\nsmtp_port = {smtp.port}\nsmtp_starttls = no\n"
                                         "smtp_from = passcode@example.org\nsmtp_timeout = 10\n")
        with open(os.path.join(rig.top, "bus.log"), "w") as bus_log:
            rig.start_bus(TRY_POLICY, stderr=bus_log, policies=TRY_POLICIES)
        rig.start_daemon()
        env = rig.env()
        # fprintd with one reader (a finger of every user's), logind with root at the seat.
        rig.procs["fprintd"] = subprocess.Popen([sys.executable, "-m", "dbusmock", "--template",
                                                 os.path.join(REPO, "Tests", "gtk", "fprintd_template.py")],
                                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rig.procs["logind"] = subprocess.Popen([sys.executable, "-m", "dbusmock", "--template",
                                                os.path.join(REPO, "Tests", "service", "logind_template.py")],
                                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        bus = dbus.bus.BusConnection(rig.address)
        for wanted in ("net.reactivated.Fprint", "org.freedesktop.login1"):
            for _ in range(400):
                if bus.name_has_owner(wanted):
                    break
                time.sleep(0.05)
            else:
                raise SystemExit(f"service_demo: {wanted} did not start on the private bus")
        fprintd = dbus.Interface(bus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager"), dbusmock.MOCK_IFACE)
        reader = str(fprintd.AddDevice("Test Sensor", ["right-index-finger"]))
        logind = dbus.Interface(bus.get_object("org.freedesktop.login1", "/org/freedesktop/login1"), dbusmock.MOCK_IFACE)
        logind.AddSession("c1", "seat0", dbus.UInt32(0), "root", True)
        logind.SetSessionOfUID(dbus.UInt32(0), "c1")

        def claims():
            return sum(1 for m, _ in fprintd.GetRecord(reader) if str(m) == "Claim")

        tmp = tempfile.mkdtemp(prefix="passcode-demo-files.")
        os.chmod(tmp, 0o777)
        try:
            # 1. No passcode: a reset request answers NO_PASSCODE (as embedded), not "no relay"
            # or "no recipient". Then a fingerprint after "lock now".
            d = Demo(demo + ["--service", "org.example.DemoFinger", "--store", os.path.join(tmp, "root.db"), "--script"], env)
            d.start()
            out = d.run("cancel reset-email")
            check("error: No passcode is set." in out, f"{name}: a reset request with no passcode says NO_PASSCODE's message:\n{out}")
            d.run(f"create {GOOD} {GOOD}")
            out = d.run("biometrics fingerprint bio on note secret-words")
            check("note: secret-words" in out, f"{name}: fingerprint on, a note sealed:\n{out}")
            before = claims()
            fprintd.QueueVerifyResult(reader, "verify-match")
            out = d.run("lock bio-ok")
            check("notice: unlock: done" in out and "screen: home" in out and "note: sealed (enter the passcode to read it)" in out
                  and claims() == before + 1,
                  f"{name}: after lock now the finger unlocks (the key refused first, KEY_NOT_IN_MEMORY, no finger read), "
                  f"one claim ({claims() - before}), the note waits for the passcode:\n{out}")
            out = d.run(f"lock {GOOD}")
            check("note: secret-words" in out, f"{name}: the passcode reads the note again:\n{out}")
            d.close()

            # 2. The reset address, as a user who is not root: set, confirmed, used.
            os.chown(tmp, person.pw_uid, person.pw_gid)
            as_person = lambda: (os.setgroups([]), os.setgid(person.pw_gid), os.setuid(person.pw_uid))  # noqa: E731
            d = Demo(demo + ["--service", "org.example.DemoMail", "--store", os.path.join(tmp, "person.db"), "--script"],
                     dict(env, HOME=tmp, USER=person.pw_name), user=as_person)
            d.start()
            out = d.run(f"create {GOOD} {GOOD}")
            check("reset address: none" in out, f"{name}: the home screen says no reset address is set:\n{out}")
            out = d.run(f"recipient jane@example.org {GOOD}")
            code = mailbox.code(r"confirmation code in the app: (\d+)")
            check("a confirmation code was mailed to jane@example.org" in out and code and GOOD not in out,
                  f"{name}: the address set with the passcode (not echoed); passcoded mailed a confirmation code:\n{out}")
            out = d.run(f"recipient-confirm {code} {GOOD}")
            check("notice: reset address: confirmed; reset codes go to j***@example.org" in out
                  and "reset address: j***@example.org" in out,
                  f"{name}: the confirmation code with the passcode: the masked address is the recipient:\n{out}")
            out = d.run("reset-email")
            reset = mailbox.code(r"\b(\d{8})\b")
            check("screen: reset" in out and reset, f"{name}: r mails a reset code to that address and opens its entry:\n{out}")
            out = d.run(f"{reset} {NEW} {NEW}")
            check("reset: done" in out, f"{name}: the mailed code and a new passcode reset it:\n{out}")
            d.close()

            # 3. The ncurses screen (the C demo's): b says to touch the reader while passcoded waits.
            curses_ran = demo[0].endswith("passcode_demo") and bool(shutil.which("tmux"))
            if curses_ran:
                sock = f"passcode-service-demo-{os.getpid()}"
                label = os.path.join(tmp, "curses.db")

                def screen():
                    return subprocess.run(["tmux", "-L", sock, "capture-pane", "-p", "-t", "demo"], capture_output=True, text=True).stdout

                def wait_for(text):
                    for _ in range(300):
                        if text in screen():
                            return True
                        time.sleep(0.1)
                    return False

                def keys(*k):
                    subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "demo", *k], check=True)
                    time.sleep(0.3)
                try:
                    inner = " ".join(f"'{x}'" for x in demo + ["--service", "org.example.DemoCurses", "--store", label])
                    subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "demo", "-x", "80", "-y", "24",
                                    f"env DBUS_SYSTEM_BUS_ADDRESS='{rig.address}' LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color "
                                    f"{inner}; sleep 60"], check=True, env=env)
                    ok = wait_for("Create Passcode")
                    keys(*GOOD)
                    keys(*GOOD)
                    ok = ok and wait_for("create: done")
                    keys("i")  # biometrics on (the demo names the kind; passcoded asks fprintd)
                    keys("l")
                    ok = ok and wait_for("[b] ")  # "[b] Use Face ID", or "Face ID prompt shown: [b] match" when it opens by itself
                    before = claims()
                    keys("b")  # nothing queued: passcoded waits for a finger (fprint_timeout 30 s)
                    shown = wait_for("Touch the fingerprint reader...")
                    check(ok and shown and claims() == before + 1,
                          f"{name}: b in the ncurses demo says to touch the reader while passcoded waits:\n{screen()}")
                finally:
                    subprocess.run(["tmux", "-L", sock, "kill-server"], stderr=subprocess.DEVNULL)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        smtp.stop()
        rig.cleanup()
    if failures:
        print(f"service_demo: {len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print(f"front end ({name}) in service mode with a reader and a relay: the finger after lock now, NO_PASSCODE, "
          "the reset address set and confirmed" + (", the ncurses wait for a finger said" if curses_ran else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
