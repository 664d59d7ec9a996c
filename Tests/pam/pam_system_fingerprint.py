"""make test-pam-system's `fingerprint` part (Tests/pam/test_pam_system.py calls run() inside its
mount namespace): pam_passcode's `fingerprint` option through the real sudo, su and login, with
the fprintd template (Tests/gtk/fprintd_template.py: every Claim and Release recorded) and
logind's (Tests/service/logind_template.py) on the namespace's own system bus, passcoded started
by activation. The user "<prefix>-f" has a PIN and a finger enrolled; the user's processes (sudo
and su run by the user) are in an active local session on seat0, root's are in none (login on a
text console: no session before it authenticates). Then the wrong answers over the PIN and the
finger together, through sudo, su and the bus in a mix, until the store takes no more: at most
10 PINs and 5 failed matches reach it, printed."""
import os
import pwd
import re
import subprocess
import time

PIN = "739164"
FINGER_PROMPT = "Passcode (6 digits), or touch the reader and press Enter: "
PIN_PROMPT = "Passcode (6 digits): "
MOCKS_POLICY = "/etc/dbus-1/system.d/ppsys-fingerprint-mocks.conf"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def run(m, t):
    """`t`: test_pam_system's module (its check, note, sudo, su, login, done, ...)."""
    try:
        import dbus
        import dbusmock
    except ImportError as e:
        print(f"SKIPPED test-pam-system fingerprint: python3-dbusmock is missing ({e}; make deps-test installs it)", flush=True)
        return
    f = f"{t.PREFIX}-f"
    m.add_user(f)
    with open("/etc/sudoers", "a") as fh:
        fh.write(f"{f} ALL=(ALL:ALL) ALL\n")
    uid = pwd.getpwnam(f).pw_uid
    # The templates' names: root may own them, anyone may call them (as fprintd's and logind's
    # own policies say); then passcoded again with the claims limit at its top.
    with open(MOCKS_POLICY, "w") as fh:
        fh.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"\n'
                 ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n<busconfig>\n'
                 '  <policy user="root"><allow own="net.reactivated.Fprint"/><allow own="org.freedesktop.login1"/></policy>\n'
                 '  <policy context="default"><allow send_destination="net.reactivated.Fprint"/>'
                 '<allow send_destination="org.freedesktop.login1"/></policy>\n</busconfig>\n')
    m.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
    m.write_conf(extra="fprint_checks_per_minute = 60\nfprint_timeout = 60\n")
    m.kill_passcoded()
    env = t.clean_env(DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={t.BUS_SOCKET}")
    mocks = [subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template", os.path.join(REPO, path)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for path in ("Tests/gtk/fprintd_template.py", "Tests/service/logind_template.py")]
    try:
        bus = dbus.bus.BusConnection(f"unix:path={t.BUS_SOCKET}")
        for name in ("net.reactivated.Fprint", "org.freedesktop.login1"):
            for _ in range(400):
                if bus.name_has_owner(name):
                    break
                time.sleep(0.025)
        fmock = dbus.Interface(bus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager"), dbusmock.MOCK_IFACE)
        path = str(fmock.AddDevice("reader", ["right-index-finger"]))
        logind = dbus.Interface(bus.get_object("org.freedesktop.login1", "/org/freedesktop/login1"), dbusmock.MOCK_IFACE)
        logind.AddSession("f1", "seat0", dbus.UInt32(uid), f, True)
        logind.SetSessionOfUID(dbus.UInt32(uid), "f1")
        parts(m, t, f, fmock, path)
    finally:
        for p in mocks:
            p.kill()
            p.wait()
        os.unlink(MOCKS_POLICY)
        m.write_conf()
        m.kill_passcoded()


def parts(m, t, f, fmock, path):
    check, note = t.check, t.note

    def record():
        return [(str(a), str(b)) for a, b in fmock.GetRecord(path)]

    def count(what):
        return sum(1 for x, _ in record() if x == what)

    def released():
        return count("Claim") == count("Release")

    def wait_count(n, what, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if count(what) >= n:
                return True
            time.sleep(0.02)
        return False

    def biometric_failed():
        return len(re.findall(r"biometric_failed", m.ctl("log", f).stdout))

    st = m.ctl("--stdin", "set", f, stdin=PIN + "\n")
    common = open("/etc/pam.d/common-auth").read()
    with open("/etc/pam.d/common-auth", "w") as fh:
        fh.write(common.replace("pam_passcode.so debug", "pam_passcode.so debug fingerprint"))
    try:
        # The first login after boot needs the PIN. In the namespace a file bound over
        # /proc/sys/kernel/random/boot_id is another boot for passcoded (started again by the
        # bus): sudo asks the PIN alone there, nothing claimed; back in this boot (the PIN last
        # entered in the other one) the same; after that PIN the finger is offered again.
        def sudo_pin(expect_finger):
            s = t.sudo(m, f)
            shown = s.expect(r"Passcode \(6 digits\)[^:]*: ") is not None
            offered = FINGER_PROMPT in s.out
            s.send(PIN + "\n")
            got = s.expect("SUDO-OK") is not None
            t.done(s)
            return shown and got and offered == expect_finger, s
        first, _ = sudo_pin(True)
        fake = f"{t.WORK}/boot_id"
        with open(fake, "w") as fh:
            fh.write("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n")
        t.sh("mount", "--bind", fake, "/proc/sys/kernel/random/boot_id")
        m.kill_passcoded()
        c0 = count("Claim")
        rebooted, s1 = sudo_pin(False)
        t.sh("umount", "/proc/sys/kernel/random/boot_id")
        m.kill_passcoded()
        back, _ = sudo_pin(False)
        c1 = count("Claim")  # (the read offered next may or may not claim before the PIN ends it)
        again, _ = sudo_pin(True)
        check("fp-sudo-first-login-after-boot-pin", st.returncode == 0 and first and rebooted and back and again and c1 == c0,
              f"passcodectl set {f}: '{st.stdout.strip()}'; sudo offered the finger in the boot the PIN was entered in; after a "
              f"reboot (another boot id, passcoded started again by the bus) '{PIN_PROMPT.strip()}' alone and nothing claimed, "
              f"the PIN let {f} in; back in this boot the same; then the finger offered again")

        # sudo: a match while the PIN prompt is open, then Enter.
        s0, c0 = count("VerifyStart"), count("Claim")
        s = t.sudo(m, f)
        asked = s.expect(re.escape(FINGER_PROMPT)) is not None
        reading = wait_count(s0 + 1, "VerifyStart")
        fmock.QueueVerifyResult(path, "verify-match")
        back = wait_count(c0 + 1, "Release")
        s.send("\n")
        got = s.expect("SUDO-OK") is not None
        rc = t.done(s)
        check("fp-sudo-match-while-prompt-open", asked and reading and back and got and rc == 0 and m.failures(f) == 0 and released(),
              f"sudo asked '{FINGER_PROMPT.strip()}'; the reader read, matched and was released before Enter; "
              f"Enter let {f} in (exit {rc}); failures 0")
        note(f"the real sudo with `fingerprint`, a finger then Enter:\n$ sudo -S echo SUDO-OK\n{s.out.strip()}")

        # su (the user's own): the PIN while the finger is read; the reader released.
        s0 = count("VerifyStart")
        s = t.su(m, f, f)
        asked = s.expect(re.escape(FINGER_PROMPT)) is not None
        reading = wait_count(s0 + 1, "VerifyStart")
        s.send(PIN + "\n")
        got = s.expect(t.GRANTED["su"]) is not None
        rc = t.done(s)
        check("fp-su-pin-while-reading-releases", asked and reading and got and released() and record()[-2:] == [("VerifyStop", ""), ("Release", "")],
              f"su asked '{FINGER_PROMPT.strip()}', the PIN typed while the reader waited let {f} in (exit {rc}); "
              f"the record ends {record()[-2:]}")

        # login on a text console: no logind session before it authenticates, so the seat rule
        # gives the PIN alone; the reader is not claimed.
        c0 = count("Claim")
        s = t.login(m, f)
        plain = s.expect(re.escape(PIN_PROMPT)) is not None and FINGER_PROMPT not in s.out
        s.send(PIN + "\n")
        t.after_auth("login", s)
        got = s.expect(t.GRANTED["login"]) is not None
        t.done(s)
        check("fp-login-console-pin-only", plain and got and count("Claim") == c0,
              f"login on a pty (no session at the seat yet): '{PIN_PROMPT.strip()}' alone, the PIN let {f} in, nothing claimed")

        budget(m, t, f, fmock, path, record, count, released, biometric_failed)
    finally:
        with open("/etc/pam.d/common-auth", "w") as fh:
            fh.write(common)


def budget(m, t, f, fmock, path, record, count, released, biometric_failed):
    """Wrong answers over the PIN and the finger, through sudo, su and the bus, in a mix, each
    lockout waited out on the test clock, until the store takes no more."""
    check, note = t.check, t.note
    seq0, nm0 = m.attempt_seq(f), biometric_failed()
    tried_pins = tried_fingers = 0
    for rnd in range(16):
        st = m.state(f)
        if st and st[2]:
            break  # a reset is required: no PIN is taken any more
        if st and st[1] > 0:
            m.set_clock(m.clock + st[1] + 1)
        prog = ("sudo", "su")[rnd % 2]
        s = t.start(m, prog, f)
        asked = s.expect(r"Passcode \(6 digits\)") is not None
        if asked and FINGER_PROMPT in s.out:
            # The finger offered (the rules allow one): a no-match while the prompt is open.
            before = biometric_failed()
            fmock.QueueVerifyResult(path, "verify-no-match")
            tried_fingers += 1
            end = time.monotonic() + 15
            while time.monotonic() < end and biometric_failed() == before:
                time.sleep(0.02)
        s.send(f"9{rnd:02d}{rnd % 7}13\n")
        tried_pins += 1
        t.password_then_in(m, prog, s, f)
        # and through the bus, as the user's own process (a screen locker): a wrong PIN, and a
        # finger when passcoded says one may be read, a no-match
        bus_call = [*t.as_user(f), "busctl", "--system", "call", t.BUS_NAME, "/org/libpasscode/Passcode1", "org.libpasscode.Passcode1"]
        uid = str(pwd.getpwnam(f).pw_uid)
        subprocess.run(bus_call + ["UserVerify", "sus", "login", uid, f"8{rnd:02d}5{rnd % 3}0"], capture_output=True, text=True,
                       env=t.clean_env())
        tried_pins += 1
        ready = subprocess.run(bus_call + ["UserFingerprintReady", "su", "login", uid], capture_output=True, text=True, env=t.clean_env())
        if ready.stdout.startswith("bs true"):
            fmock.QueueVerifyResult(path, "verify-no-match")
            subprocess.run(bus_call + ["UserFingerprintUnlock", "su", "login", uid], capture_output=True, text=True, env=t.clean_env())
            tried_fingers += 1
    pins = m.attempt_seq(f) - seq0
    matches = biometric_failed() - nm0
    st = m.state(f)
    check("fp-budget-at-most-10-pins-5-matches", pins <= 10 and matches <= 5 and st and st[2] and released(),
          f"{tried_pins} wrong PINs and {tried_fingers} wrong fingers tried through sudo, su and the bus: {pins} PINs and "
          f"{matches} failed matches reached the store, then a reset was required; the reader released")
    note(f"wrong answers over the PIN and the finger together (sudo, su and the bus, mixed): {pins} PINs (at most 10), "
         f"{matches} failed matches (at most 5)")
    m.ctl("reset", f)
    m.set_clock(0)
