"""pam_passcode's `fingerprint` option, for make test-pam (Tests/pam/test_pam.py calls tests()):
the PIN prompt and passcoded's read of the finger at once, through pamtester and its terminal
conversation (a pipe held open, so that the prompt waits while the finger is read), against
the fprintd template (Tests/gtk/fprintd_template.py: it records every Claim, VerifyStart,
VerifyStop and Release) and logind's (Tests/service/logind_template.py: root's processes in an
active local session on seat0). Every case ends with the reader released and the counts as the
core counts them; each rule of the core is a case that fails when the rule is taken out.

The user is "<PAM_TEST_USERS>-f", with a login PIN of its own. Each check prints "ok   name:
..." or "FAIL name: ..."; the counts of wrong answers are "note:" lines."""
import os
import re
import select
import signal
import subprocess
import time

PIN, WRONG = "502718", "111111"
FINGER_PROMPT = "Passcode (6 digits), or touch the reader and press Enter: "
PIN_PROMPT = "Passcode (6 digits): "
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


class Pamtester:
    """pamtester authenticating `user` on `service`, its standard input a pipe the test writes
    when it chooses: until then the module's prompt waits, as a terminal's does."""

    def __init__(self, r, service, user):
        self.p = subprocess.Popen(["pamtester", "-v", service, user, "authenticate"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=r.env())
        r.procs[f"pamtester-{self.p.pid}"] = self.p
        self.out = ""

    def expect(self, text, timeout=30):
        """Reads until `text` (a string) has appeared; False at the end or after `timeout` s."""
        end = time.monotonic() + timeout
        while text not in self.out:
            left = end - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if not ready:
                return False
            data = os.read(self.p.stdout.fileno(), 4096)
            if not data:
                return text in self.out
            self.out += data.decode(errors="replace")
        return True

    def send(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def finish(self, timeout=60):
        """Closes its input, reads to the end; (exit status, output)."""
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        self.expect("\0never\0", timeout)
        try:
            rc = self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        return rc, self.out.strip().replace("\n", " | ")


class Reader:
    """The fprintd template's reader and logind's session, on the rig's bus."""

    def __init__(self, r):
        import dbus
        import dbusmock
        self.r, self.dbus = r, dbus
        self.bus = dbus.bus.BusConnection(r.address)
        self.start_fprintd()
        r.procs["logind"] = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template",
                                              os.path.join(REPO, "Tests", "service", "logind_template.py")],
                                             env=r.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_name("org.freedesktop.login1")
        logind = dbus.Interface(self.bus.get_object("org.freedesktop.login1", "/org/freedesktop/login1"), dbusmock.MOCK_IFACE)
        # pamtester runs as root, as sudo and login do: root's process at the seat.
        logind.AddSession("c1", "seat0", dbus.UInt32(0), "root", True)
        logind.SetSessionOfUID(dbus.UInt32(0), "c1")

    def wait_name(self, name, owned=True):
        for _ in range(400):
            if self.bus.name_has_owner(name) == owned:
                return True
            time.sleep(0.025)
        return False

    def start_fprintd(self, fingers=("right-index-finger",)):
        import dbusmock
        self.r.procs["fprintd"] = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template",
                                                    os.path.join(REPO, "Tests", "gtk", "fprintd_template.py")],
                                                   env=self.r.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_name("net.reactivated.Fprint")
        self.mock = self.dbus.Interface(self.bus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager"),
                                        dbusmock.MOCK_IFACE)
        self.path = str(self.mock.AddDevice("reader", list(fingers)))

    def stop_fprintd(self):
        p = self.r.procs.pop("fprintd")
        p.kill()
        p.wait()
        self.wait_name("net.reactivated.Fprint", owned=False)

    def record(self):
        return [(str(m), str(a)) for m, a in self.mock.GetRecord(self.path)]

    def wait_record(self, count, what, timeout=30):
        """Waits until the record holds `count` entries `what` (an event: the reader's own call)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if sum(1 for m, _ in self.record() if m == what) >= count:
                return True
            time.sleep(0.02)
        return False

    def released(self):
        """Every Claim released: the reader free when the module has answered."""
        rec = self.record()
        return sum(1 for m, _ in rec if m == "Claim") == sum(1 for m, _ in rec if m == "Release")

    def count(self, what):
        return sum(1 for m, _ in self.record() if m == what)

    def claims(self):
        return self.count("Claim")

    def claim_calls(self):
        """Every Claim asked, granted or refused (the template's call log)."""
        import dbusmock
        log = self.dbus.Interface(self.bus.get_object("net.reactivated.Fprint", self.path), dbusmock.MOCK_IFACE).GetCalls()
        return sum(1 for _, method, _ in log if str(method) == "Claim")


def tests(r, check, module):
    try:
        import dbusmock  # noqa: F401
    except ImportError as e:
        print(f"SKIPPED test-pam fingerprint: python3-dbusmock is missing ({e}; make deps-test installs it)", flush=True)
        return
    f = r.user("f")
    r.add_user(f)
    service = os.path.basename(r.etc_service) + "-fp"
    path = f"/etc/pam.d/{service}"
    only = f"{service}-only"
    with open(path, "w") as fh:
        fh.write(f"auth required {module} fingerprint\n")
    with open(f"/etc/pam.d/{only}", "w") as fh:
        fh.write(f"auth required {module} fingerprint=only\n")
    try:
        run(r, check, f, service, only)
    finally:
        os.unlink(path)
        os.unlink(f"/etc/pam.d/{only}")


def restart(r, timeout=30, wrapper=()):
    """passcoded again with `timeout` as fprint_timeout and the claims limit at its top."""
    r.stop_daemon()
    r.write_root_file(r.config_file, f"store_root = {r.store_root}\nuser = {r.service_user}\nclock_offset_file = {r.clock_file}\n"
                                     f"fprint_timeout = {timeout}\nfprint_checks_per_minute = 60\n")
    r.start_daemon(wrapper)


def log_count(r, user, kind):
    return len(re.findall(kind, r.ctl("log", user).stdout))


def run(r, check, f, service, only):
    restart(r)
    dev = Reader(r)
    st = r.ctl("--stdin", "set", f, stdin=PIN + "\n")
    check("fp-enrolled", st.returncode == 0, st.stdout.strip())

    def auth(answer_at_prompt=None, prompt=FINGER_PROMPT):
        t = Pamtester(r, service, f)
        asked = t.expect(prompt)
        if answer_at_prompt is not None:
            t.send(answer_at_prompt)
        return t, asked

    # The first login after boot needs the PIN. A boot is passcoded's boot id
    # (/proc/sys/kernel/random/boot_id): passcoded started again in a mount namespace with another
    # id bound over that file is a machine that rebooted. A PIN entered in this boot: the finger
    # is offered; after the "reboot", the plain prompt and no Claim until the PIN was entered.
    t, _ = auth(PIN + "\n", prompt="Passcode (6 digits)")
    t.finish()
    t, offered = auth(PIN + "\n")
    t.finish()
    boot_id = os.path.join(r.top, "boot_id")
    with open(boot_id, "w") as fh:
        fh.write("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n")
    restart(r, wrapper=["unshare", "-m", "--propagation", "private", "sh", "-c",
                        'mount --bind "$0" /proc/sys/kernel/random/boot_id && exec "$@"', boot_id])
    before = dev.claims()
    t, plain = auth(PIN + "\n", prompt=PIN_PROMPT)
    rc, out = t.finish()
    claimed = dev.claims() - before
    t, again = auth(PIN + "\n")
    rc2, _ = t.finish()
    check("fp-first-login-after-boot-needs-pin", offered and plain and FINGER_PROMPT not in out and rc == 0 and claimed == 0
          and again and rc2 == 0 and dev.released(),
          f"the finger offered in the boot the PIN was entered in; after a reboot (another boot id): the plain prompt, "
          f"no Claim ({claimed}), the PIN let in (exit {rc}); then the finger offered again")
    restart(r)  # this machine's own boot again: the PIN once more
    t, _ = auth(PIN + "\n", prompt="Passcode (6 digits)")
    t.finish()

    # A match while the PIN prompt is open: the reader matched, released, then Enter lets the
    # user in; nothing counted as a failure, the unlock logged as a biometric one.
    f0, bio0 = r.failed_attempts(f), log_count(r, f, "unlocked_by_biometrics")
    s0, c0 = dev.count("VerifyStart"), dev.claims()
    t, asked = auth()
    started = dev.wait_record(s0 + 1, "VerifyStart")
    dev.mock.QueueVerifyResult(dev.path, "verify-match")
    released = dev.wait_record(c0 + 1, "Release")
    t.send("\n")
    rc, out = t.finish()
    check("fp-match-while-prompt-open", asked and started and released and rc == 0 and "successfully" in out
          and r.failed_attempts(f) == f0 and log_count(r, f, "unlocked_by_biometrics") == bio0 + 1 and dev.released(),
          f"the prompt '{FINGER_PROMPT.strip()}' open and the reader read, a match: the reader released before Enter; "
          f"exit {rc} '{out[-40:]}'; failures {f0} -> {r.failed_attempts(f)}; biometric unlocks {bio0} -> "
          f"{log_count(r, f, 'unlocked_by_biometrics')}")

    # The PIN while the finger is read: in, and the reader released (VerifyStop, Release) by the
    # time the module answered.
    s0 = dev.count("VerifyStart")
    t, asked = auth()
    reading = dev.wait_record(s0 + 1, "VerifyStart")
    t.send(PIN + "\n")
    rc, out = t.finish()
    rec = dev.record()
    # Another program (pam_fprintd in the next stack line, GDM's fingerprint service) claims
    # the reader as soon as the module has answered: pam_passcode holds it no longer.
    other = dev.dbus.Interface(dev.dbus.bus.BusConnection(r.address).get_object("net.reactivated.Fprint", dev.path),
                               "net.reactivated.Fprint.Device")
    try:
        other.Claim(f)
        other.Release()
        next_claim = "granted"
    except dev.dbus.exceptions.DBusException as e:
        next_claim = e.get_dbus_name()
    check("fp-pin-while-reading-releases", asked and reading and rc == 0 and dev.released() and rec[-2:] == [("VerifyStop", ""), ("Release", "")]
          and next_claim == "granted",
          f"the PIN typed while the reader waits: exit {rc}; the record ends {rec[-3:]}; another program's Claim right after: {next_claim}")

    # A wrong PIN while the finger is read counts once, as a PIN failure (no failed match).
    f0, nm0 = r.failed_attempts(f), log_count(r, f, "biometric_failed")
    s0 = dev.count("VerifyStart")
    t, asked = auth()
    reading = dev.wait_record(s0 + 1, "VerifyStart")
    t.send(WRONG + "\n")
    rc, out = t.finish()
    check("fp-wrong-pin-counts-once", asked and reading and rc != 0 and "Authentication failure" in out
          and r.failed_attempts(f) == f0 + 1 and log_count(r, f, "biometric_failed") == nm0 and dev.released(),
          f"a wrong PIN while the reader waits: '{out[-40:]}'; PIN failures {f0} -> {r.failed_attempts(f)}, failed matches "
          f"{nm0} -> {log_count(r, f, 'biometric_failed')}; reader released")

    # A no-match is a failed match, the reader is read again, and the PIN still lets the user in.
    nm0, s0 = log_count(r, f, "biometric_failed"), dev.count("VerifyStart")
    t, asked = auth()
    dev.wait_record(s0 + 1, "VerifyStart")
    dev.mock.QueueVerifyResult(dev.path, "verify-no-match")
    again = dev.wait_record(s0 + 2, "VerifyStart")
    t.send(PIN + "\n")
    rc, out = t.finish()
    check("fp-no-match-is-a-failed-match", asked and again and rc == 0 and log_count(r, f, "biometric_failed") == nm0 + 1 and dev.released(),
          f"a no-match: failed matches {nm0} -> {log_count(r, f, 'biometric_failed')}, the finger read again; the PIN: exit {rc}")

    # Five failed matches make the PIN the only way: the fifth ends the reads, and the next
    # login offers no finger (no Claim) until the PIN was entered.
    wrong_matches = 0
    for _ in range(5):
        dev.mock.QueueVerifyResult(dev.path, "verify-no-match")
    t, asked = auth()
    # (the template answers a queued result at each VerifyStart: five reads, then the rule stops them)
    ended = wait_until(lambda: log_count(r, f, "biometric_failed") >= nm0 + 6) and wait_until(dev.released)
    t.send("\n")  # Enter only: not a passcode, nothing counted
    rc, out = t.finish()
    nm = log_count(r, f, "biometric_failed") - (nm0 + 1)
    wrong_matches += nm
    c0 = dev.claims()
    t2, plain = auth(PIN + "\n", prompt=PIN_PROMPT)
    rc2, out2 = t2.finish()
    t3, offered = auth(PIN + "\n")
    rc3, _ = t3.finish()
    check("fp-five-failed-matches-pin-only", asked and ended and nm == 5 and rc != 0 and plain and rc2 == 0
          and offered and rc3 == 0 and dev.released(),
          f"five no-matches in one prompt: {nm} counted, the reads stopped; Enter: '{out[-30:]}'; the next login: the plain "
          f"prompt (no Claim), the PIN lets in (exit {rc2}); after it the finger is offered again")

    # 48 hours since the last PIN: the finger is not offered; after the PIN it is again.
    r.set_clock(48 * 3600 + 60)
    c0 = dev.claims()
    t, plain = auth(PIN + "\n", prompt=PIN_PROMPT)
    rc, out = t.finish()
    c1 = dev.claims()
    t2, offered = auth(PIN + "\n")
    rc2, _ = t2.finish()
    check("fp-48-hours-pin-only", plain and rc == 0 and c1 == c0 and offered and rc2 == 0 and dev.released(),
          f"48 hours after the last PIN: the plain prompt, no Claim ({c1 - c0}), the PIN: exit {rc}; then the finger offered again")
    r.set_clock(0)
    t, _ = auth(PIN + "\n", prompt="Passcode (6 digits)")  # (the clock back: the PIN entered again)
    t.finish()

    # No finger in time: the read ends at fprint_timeout and releases the reader while the
    # prompt is still open; the PIN is still possible, nothing counted.
    restart(r, timeout=2)
    f0, nm0 = r.failed_attempts(f), log_count(r, f, "biometric_failed")
    c0 = dev.claims()
    t, asked = auth()
    gone = dev.wait_record(c0 + 1, "Release") and dev.released()
    t.send(PIN + "\n")
    rc, out = t.finish()
    check("fp-timeout-releases-pin-still-possible", asked and gone and rc == 0 and r.failed_attempts(f) == 0
          and log_count(r, f, "biometric_failed") == nm0,
          f"no finger within fprint_timeout: the reader released while the prompt waited; the PIN then: exit {rc}; nothing counted")
    restart(r, timeout=300)

    # The program killed mid-read (the PAM handle never ends): passcoded sees its connection go
    # and releases the reader, long before fprint_timeout (300 s here).
    c0, s0 = dev.claims(), dev.count("VerifyStart")
    t, asked = auth()
    reading = dev.wait_record(s0 + 1, "VerifyStart")
    t.p.kill()
    t.p.wait()
    gone = dev.wait_record(c0 + 1, "Release", timeout=30)
    check("fp-program-killed-releases", asked and reading and gone and dev.released(),
          f"pamtester SIGKILLed while the reader waited: {dev.record()[-2:]}")

    # The conversation that returns at once (end of input): PAM_CONV_ERR, the read stopped.
    t = Pamtester(r, service, f)
    rc, out = t.finish()
    check("fp-conversation-ends-at-once", rc != 0 and dev.released() and r.failed_attempts(f) == 0,
          f"no input: '{out[-50:]}', the reader released, nothing counted")

    # The reader busy (another program holds it): the finger half ends at its Claim, the PIN lets in.
    dev.mock.SetBusy(dev.path, True)
    t, asked = auth(PIN + "\n")
    rc, out = t.finish()
    dev.mock.SetBusy(dev.path, False)
    check("fp-reader-busy-pin", asked and rc == 0 and dev.released(), f"reader busy: exit {rc}")

    # Two logins of the same user at once: one reads the finger, the other's Claim is refused
    # (one claim at a time, AlreadyInUse); both PINs let in, the reader released.
    s0, asked0, granted0 = dev.count("VerifyStart"), dev.claim_calls(), dev.claims()
    t1, a1 = auth()
    dev.wait_record(s0 + 1, "VerifyStart")
    t2 = Pamtester(r, service, f)
    a2 = t2.expect("Passcode (6 digits)")
    refused = wait_until(lambda: dev.claim_calls() >= asked0 + 2)
    t2.send(PIN + "\n")
    rc2, _ = t2.finish()
    t1.send(PIN + "\n")
    rc1, _ = t1.finish()
    check("fp-two-logins", a1 and a2 and refused and dev.claims() == granted0 + 1 and rc1 == 0 and rc2 == 0 and dev.released()
          and r.failed_attempts(f) == 0,
          f"two at once: {dev.claim_calls() - asked0} Claims asked, {dev.claims() - granted0} granted; exits {rc1}, {rc2}; "
          f"the reader released; failures {r.failed_attempts(f)}")

    # The reader unplugged mid-read (fprintd's verify-disconnected): the read ends, nothing is
    # counted, the reader released; the PIN lets in.
    f0, nm0, s0 = r.failed_attempts(f), log_count(r, f, "biometric_failed"), dev.count("VerifyStart")
    t, asked = auth()
    reading = dev.wait_record(s0 + 1, "VerifyStart")
    c1 = dev.claims()
    dev.mock.QueueVerifyResult(dev.path, "verify-disconnected")
    gone = dev.wait_record(c1, "Release") and wait_until(dev.released)
    t.send(PIN + "\n")
    rc, out = t.finish()
    check("fp-reader-unplugged-mid-read", asked and reading and gone and rc == 0 and r.failed_attempts(f) == f0
          and log_count(r, f, "biometric_failed") == nm0,
          f"verify-disconnected while the prompt waited: the reader released, nothing counted; the PIN: exit {rc}")

    # fprintd's name changing owner mid-read: passcoded ends the read; the PIN lets in, nothing counted.
    s0 = dev.count("VerifyStart")
    t, asked = auth()
    reading = dev.wait_record(s0 + 1, "VerifyStart")
    dev.stop_fprintd()
    t.send(PIN + "\n")
    rc, out = t.finish()
    check("fp-fprintd-gone-mid-read", asked and reading and rc == 0 and r.failed_attempts(f) == 0,
          f"fprintd left the bus while the finger was awaited: the PIN: exit {rc}")
    # fprintd absent, then no finger enrolled: the plain prompt.
    t, plain = auth(PIN + "\n", prompt=PIN_PROMPT)
    rc, _ = t.finish()
    dev.start_fprintd(fingers=())
    t2, plain2 = auth(PIN + "\n", prompt=PIN_PROMPT)
    rc2, _ = t2.finish()
    check("fp-no-fprintd-no-finger-plain", plain and rc == 0 and plain2 and rc2 == 0 and dev.claims() == 0,
          f"no fprintd: the plain prompt (exit {rc}); no finger enrolled: the plain prompt (exit {rc2}), nothing claimed")

    # passcoded killed mid-read: the reader goes back (fprintd releases a claim whose claimer
    # left), the read ends, and the PIN still lets the user in (passcoded started again).
    dev.mock.SetEnrolledFingers(dev.path, ["right-index-finger"])
    t, asked = auth()
    reading = dev.wait_record(1, "VerifyStart")
    r.stop_daemon(signal.SIGKILL)
    gone = dev.wait_record(1, "Release")
    r.start_daemon()
    t.send(PIN + "\n")
    rc, out = t.finish()
    check("fp-passcoded-killed-mid-read", asked and reading and gone and dev.released() and rc == 0 and r.failed_attempts(f) == 0,
          f"passcoded SIGKILLed while the reader waited: {dev.record()[-1]}; the PIN then: exit {rc} '{out[-40:]}'")
    # fingerprint=only (a greeter's second stack): no prompt, "Touch the fingerprint reader.",
    # a match answers PAM_SUCCESS, the reader released; the program killed mid-read releases it;
    # with no finger to read (none enrolled), PAM_AUTHINFO_UNAVAIL and nothing claimed.
    c0 = dev.claims()
    dev.mock.QueueVerifyResult(dev.path, "verify-match")
    t = Pamtester(r, only, f)
    rc, out = t.finish()
    check("fp-only-match", rc == 0 and "Touch the fingerprint reader." in out and "successfully" in out and "Passcode (" not in out
          and dev.claims() == c0 + 1 and dev.released(),
          f"fingerprint=only, a match: '{out[-90:]}', no prompt, one Claim, released")
    t = Pamtester(r, only, f)  # (its message waits in pamtester's buffered output)
    reading = dev.wait_record(c0 + 2, "Claim")
    t.p.kill()
    t.p.wait()
    gone = dev.wait_record(c0 + 2, "Release")
    dev.mock.SetEnrolledFingers(dev.path, [])
    t = Pamtester(r, only, f)
    rc, out = t.finish()
    dev.mock.SetEnrolledFingers(dev.path, ["right-index-finger"])
    check("fp-only-killed-released-and-unavailable", reading and gone and dev.released() and rc != 0
          and "cannot retrieve authentication info" in out and dev.claims() == c0 + 2,
          f"fingerprint=only killed while the reader waited: released; no finger enrolled: '{out[-70:]}', nothing claimed")
    print(f"note: wrong answers through the fingerprint prompt: {wrong_matches} failed matches counted before the PIN was the only way", flush=True)


def wait_until(cond, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False
