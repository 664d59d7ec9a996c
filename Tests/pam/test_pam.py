"""make test-pam: pam_passcode.so and passcodectl against passcoded on a private system-like bus,
as root. Starts the bus and the checkout's passcoded (stores and a clock offset file in a
temporary folder, a service user of its own), makes two users, writes PAM service files (one
for pam_wrapper in the folder, one in /etc/pam.d for pamtester) and removes all of it after.

    Tests/pam/test_pam.py BUILD_DIR REPO

The bus, passcoded and the users are Tests/service/harness.py's; PAM_TEST_USERS=prefix names the
users ("<prefix>-svc", "<prefix>-a", "<prefix>-b", "<prefix>-c", the greeter account "<prefix>-g"; by
default "pp" and the process id). PAM_ONLY=login: only the login state's tests (login_state_tests, login_tpm_tests).

Each check prints "ok   name: what was seen" or "FAIL name: ..."; exit 1 on any failure. The
lockout transcript, the guesses another user's process got and what a user's own enrolment got
are printed under "note:" lines."""
import json
import os
import pwd
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "service"))
import harness  # noqa: E402  (the private bus, passcoded and the users)
import pam_fingerprint  # noqa: E402  (the fingerprint option, Tests/pam/pam_fingerprint.py)

BUILD, REPO = sys.argv[1], sys.argv[2]
MODULE = f"{BUILD}/pam_passcode.so"
CTL = f"{BUILD}/passcodectl"
WRAPPER = "/usr/lib/x86_64-linux-gnu/libpam_wrapper.so"
SET_ITEMS = "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_set_items.so"
PAM_SUCCESS, PAM_PERM_DENIED, PAM_AUTH_ERR, PAM_AUTHINFO_UNAVAIL, PAM_MAXTRIES = 0, 6, 7, 9, 11
PAM_IGNORE, PAM_CONV_ERR = 25, 19

failures = []


def check(name, cond, seen):
    print(("ok   " if cond else "FAIL ") + f"{name}: {seen}", flush=True)
    if not cond:
        failures.append(name)


class Rig(harness.PrivateService):
    """The private bus, passcoded and the users (Tests/service/harness.py), and the PAM service
    files: pam_wrapper's in the folder, pamtester's in /etc/pam.d."""

    def __init__(self):
        tag = os.environ.get("PAM_TEST_USERS") or f"pp{os.getpid() % 100000}"
        super().__init__(f"{BUILD}/passcoded", REPO, users=tag, folder="passcode-pam.", name="test-pam")
        self.dir = self.top
        self.users = [self.user("a"), self.user("b")]
        # The login state's reader: its user, and a greeter account passcoded.conf names.
        self.target, self.greeter = self.user("c"), self.user("g")
        self.etc_service = f"/etc/pam.d/passcode-test-{tag}"

    @property
    def offset(self):
        return self.clock

    def run(self, *args, **kw):
        return subprocess.run(list(args), capture_output=True, text=True, **kw)

    def start(self):
        self.add_user(self.service_user, system=True)
        for u in self.users + [self.target]:
            self.add_user(u)
        self.add_user(self.greeter, system=True)
        self.set_clock(0)
        self.configure()
        # fprintd's and logind's names for their templates (Tests/pam/pam_fingerprint.py), owned by root.
        self.start_bus(harness.TRY_POLICY, stderr=subprocess.DEVNULL, policies=harness.TRY_POLICIES)
        self.start_daemon()
        # pam_wrapper's service folder, and pamtester's service in /etc/pam.d.
        os.mkdir(f"{self.dir}/pam.d")
        os.chmod(f"{self.dir}/pam.d", 0o755)
        self.service("plain", f"auth required {MODULE}\naccount required {MODULE}\n"
                              f"password required {MODULE}\n")
        self.service("nullok", f"auth [success=done ignore=ignore default=die] {MODULE} nullok\nauth required pam_permit.so\n")
        # A password-plus-PIN stack and a PIN-or-password one (pam_permit stands for a right password).
        self.service("pin-after-password", f"auth required pam_permit.so\nauth required {MODULE} nullok\n")
        self.service("pin-or-password", f"auth sufficient {MODULE} nullok\nauth required pam_permit.so\n")
        self.service("authtok", f"auth required {SET_ITEMS}\nauth required {MODULE}\n")
        with open(self.etc_service, "w") as f:
            f.write(f"auth required {MODULE}\naccount required {MODULE}\npassword required {MODULE}\n")

    def configure(self, extra=None):
        """passcoded.conf: the test's stores and clock, the greeter account, and `extra` lines
        (None: the greeter named; a string: those lines instead)."""
        self.write_root_file(self.config_file, f"store_root = {self.store_root}\nuser = {self.service_user}\n"
                                               f"clock_offset_file = {self.clock_file}\n"
                                               + (f"greeter_users = nobody-here,{self.greeter}\n" if extra is None else extra))

    def service(self, name, text):
        with open(f"{self.dir}/pam.d/{name}", "w") as f:
            f.write(text)

    def env(self, **extra):
        # The module and passcodectl are built without an rpath: the checkout's library by LD_LIBRARY_PATH.
        return super().env(LD_LIBRARY_PATH=BUILD, **extra)

    def pamcase(self, service, user, op, expected, *answers, run_as=None, no_library=False, **env):
        env = {"LC_ALL": "C", **env}  # the checks match English text, unless one asks for a language
        e = self.env(LD_PRELOAD=WRAPPER, PAM_WRAPPER="1", PAM_WRAPPER_SERVICE_DIR=f"{self.dir}/pam.d", **env)
        e = {k: v for k, v in e.items() if v is not None}  # None: that variable unset
        hide = []
        if no_library:
            # No libpasscode anywhere the module looks: not the checkout's (no LD_LIBRARY_PATH), and
            # every installed copy hidden (Tests/packaging/hide_installed.sh, a mount namespace).
            # pam_wrapper writes what the modules log (pam_syslog) to stderr.
            del e["LD_LIBRARY_PATH"]
            hide = [f"{REPO}/Tests/packaging/hide_installed.sh", ""]
        r = self.run(*self.as_user(run_as), *hide, "/usr/bin/python3", f"{REPO}/Tests/pam/pamcase.py", service, user, op,
                     str(expected), *answers, env=e)
        try:
            answer = json.loads(r.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            answer = {"ok": False, "error": f"no answer: {r.stdout} {r.stderr}"}
        if no_library:
            answer["log"] = r.stderr
        return answer

    def pamtester(self, user, op, stdin, *extra, run_as=None, env=None):
        args = [*self.as_user(run_as), "pamtester", "-v", *extra, os.path.basename(self.etc_service), user, op]
        return self.run(*args, input=stdin, env=env or self.env())

    def run_bytes(self, *args, stdin=b""):
        return subprocess.run(list(args), input=stdin, capture_output=True, env=self.env())

    def ctl(self, *args, run_as=None, stdin=None):
        return self.run(*self.as_user(run_as), CTL, *args, input=stdin, env=self.env())

    def bus_call(self, user, method, sig, *args):
        """A call on passcoded as `user`'s process (None: root), by busctl."""
        return self.run(*self.as_user(user), "busctl", f"--address={self.address}", "call", "org.libpasscode.Passcode1",
                        "/org/libpasscode/Passcode1", "org.libpasscode.Passcode1", method, sig, *args, env=self.env())

    def failed_attempts(self, user):
        line = self.ctl("status", user).stdout
        if "no passcode" in line:
            return None
        return int(re.search(r" digits?, (\d+) failures?,", line).group(1))

    def cleanup(self):
        self.stop_daemon()
        if os.path.exists(self.etc_service):
            os.unlink(self.etc_service)
        super().cleanup()


def tests(r):
    a, b = r.users
    pin = "048213"
    # Enrolment: the user's own process is refused, root sets it.
    own = r.ctl("--stdin", "set", a, run_as=a, stdin=pin + "\n")
    check("enrol-own-refused", own.returncode == 1 and "root" in own.stdout and r.failed_attempts(a) is None,
          f"exit {own.returncode}: {own.stdout.strip()}")
    print(f"note: {a}'s own process setting its login passcode: exit {own.returncode}, '{own.stdout.strip()}'")
    py = r.run(*r.as_user(a), "/usr/bin/python3", "-c",
               f"import sys; sys.path.insert(0, '{REPO}/python'); import passcode\n"
               "s = passcode.Store('login', service='login')\n"
               "try:\n    s.set_passcode('135790'); print('set')\nexcept passcode.PasscodeError as e:\n    print(type(e).__name__)",
               env=r.env(PASSCODE_LIBRARY=f"{BUILD}/libpasscode.so"))
    check("enrol-own-binding-refused", "set" not in py.stdout.split() and r.failed_attempts(a) is None,
          f"the binding's set_passcode on the login store as {a}: {py.stdout.strip() or py.stderr.strip()[-200:]}")
    print(f"note: {a}'s own process through the Python binding (SetPasscodeKey): {py.stdout.strip()}")
    # passcodectl --stdin: a line with a NUL, or longer than a passcode can be, is refused whole
    # (it was cut: root's "4810<NUL>99" set the PIN 4810).
    nul = r.run_bytes(CTL, "--stdin", "set", a, stdin=b"4810\x0099\n")
    longer = r.ctl("--stdin", "set", a, stdin="381947" + " " * 70 + "\n")
    check("ctl-stdin-nul-or-long-refused", nul.returncode == 1 and longer.returncode == 1 and r.failed_attempts(a) is None
          and b"not a passcode" in nul.stdout and "not a passcode" in longer.stdout,
          f"exit {nul.returncode} {nul.stdout.decode().strip()} / exit {longer.returncode} {longer.stdout.strip()}")
    bad = r.ctl("--app", "", "status", a)
    check("ctl-bad-app-says-why", bad.returncode == 2 and bad.stdout.startswith(f"{a}: ") and len(bad.stdout.strip()) > len(a) + 1,
          f"an empty --app: exit {bad.returncode}, '{bad.stdout.strip()}'")
    root = r.ctl("--stdin", "set", a, stdin=pin + "\n")
    check("enrol-root", root.returncode == 0 and r.failed_attempts(a) == 0, root.stdout.strip())
    status = r.ctl("status", a)
    check("status-line", status.returncode == 0 and len(status.stdout.splitlines()) == 1 and "6 digits" in status.stdout,
          status.stdout.strip())
    ch = r.run_bytes(*r.as_user(a), CTL, "--stdin", "change", stdin=f"{pin}\0junk\n381947\n".encode())
    x = r.pamcase("plain", a, "authenticate", PAM_SUCCESS, pin)
    check("ctl-stdin-change-nul-refused", ch.returncode == 1 and b"not a passcode" in ch.stdout and x["ok"] and r.failed_attempts(a) == 0,
          f"a current passcode with a NUL and more after it: exit {ch.returncode} {ch.stdout.decode().strip()}; the PIN unchanged")
    busctl = r.run(*r.as_user(a), "busctl", f"--address={r.address}", "call", "org.libpasscode.Passcode1",
                   "/org/libpasscode/Passcode1", "org.libpasscode.Passcode1", "DeleteAccount", "ss", "login", "DELETE", env=r.env())
    check("delete-account-own-refused", busctl.returncode != 0 and "root only" in busctl.stderr and r.failed_attempts(a) == 0,
          busctl.stderr.strip())
    replace = r.ctl("remove", a, run_as=a, stdin="")
    check("replace-own-needs-passcode", replace.returncode != 0 and r.failed_attempts(a) == 0, replace.stdout.strip())

    # Without its library (libpasscode.so.0 nowhere the module looks, as for a setuid sudo when
    # the library is outside the loader's cache): never silent. The module answers
    # PAM_AUTHINFO_UNAVAIL with nothing asked or counted, a PIN-or-password stack goes on to the
    # password, and the log names the library and what to do.
    x = r.pamcase("plain", a, "authenticate", PAM_AUTHINFO_UNAVAIL, no_library=True)
    y = r.pamcase("pin-or-password", a, "authenticate", PAM_SUCCESS, no_library=True)
    logged = [line for line in x["log"].splitlines() if "cannot load libpasscode.so.0" in line]
    check("no-library-unavail-logged", x["ok"] and y["ok"] and len(logged) == 1 and "ldconfig" in logged[0]
          and r.failed_attempts(a) == 0,
          f"PAM_AUTHINFO_UNAVAIL, the stack on to the password, failures {r.failed_attempts(a)}, the log: "
          f"{logged[0].strip() if logged else x}")

    # Outcomes.
    x = r.pamcase("plain", a, "authenticate", PAM_SUCCESS, pin)
    check("right-leading-zero", x["ok"], f"{pin} -> PAM_SUCCESS {x}")
    x = r.pamcase("plain", a, "authenticate", PAM_AUTH_ERR, "111111")
    check("wrong", x["ok"] and r.failed_attempts(a) == 1, f"PAM_AUTH_ERR, failures {r.failed_attempts(a)}")
    # passcodectl speaks of people: the user's name, also for its own process naming no one (not
    # "uid N"), and a count's noun in the singular for one.
    own = r.ctl("status", run_as=a).stdout.strip()
    check("ctl-own-status-by-name", own.startswith(f"{a}: set, 6 digits, 1 failure, lockout 0 seconds,") and "uid" not in own, own)
    x = r.pamcase("plain", a, "authenticate", PAM_AUTH_ERR, "111111")
    check("same-wrong-twice-counts-once", x["ok"] and r.failed_attempts(a) == 1, f"failures {r.failed_attempts(a)}")
    for bad in ["", "12a456", "12345", "1234567", " 48213"]:
        x = r.pamcase("plain", a, "authenticate", PAM_AUTH_ERR, bad)
        check(f"not-a-passcode {bad!r}", x["ok"] and r.failed_attempts(a) == 1, f"failures {r.failed_attempts(a)}")
    # The conversation gives no answer at all (PAM_CONV_ERR), or 10 MB of digits: nothing counted.
    x = r.pamcase("plain", a, "authenticate", PAM_CONV_ERR)
    check("no-answer", x["ok"] and r.failed_attempts(a) == 1, f"PAM_CONV_ERR, failures {r.failed_attempts(a)}")
    with open(f"{r.dir}/long-answer", "w") as f:
        f.write("1" * (10 << 20))
    x = r.pamcase("plain", a, "authenticate", PAM_AUTH_ERR, f"@file:{r.dir}/long-answer")
    check("ten-mb-answer", x["ok"] and r.failed_attempts(a) == 1 and any("6 digits" in e for e in x.get("errors", [])),
          f"PAM_AUTH_ERR, '{(x.get('errors') or [''])[0]}', failures {r.failed_attempts(a)}")
    # PAM_AUTHTOK handed over by another module (pam_set_items) is never used: the conversation's empty answer counts nothing.
    x = r.pamcase("authtok", a, "authenticate", PAM_AUTH_ERR, "", HOST_AUTHTOK=pin, PAM_AUTHTOK=pin)
    check("authtok-ignored", x["ok"] and r.failed_attempts(a) == 1, f"{x}, failures {r.failed_attempts(a)}")
    # acct_mgmt and setcred: never a success, never a reset.
    x = r.pamcase("plain", a, "account", PAM_SUCCESS)
    check("acct-mgmt-no-success", not x["ok"] and r.failed_attempts(a) == 1, f"not PAM_SUCCESS; failures {r.failed_attempts(a)}")
    x = r.pamcase("plain", a, "setcred", PAM_SUCCESS)
    check("setcred-no-success", not x["ok"] and r.failed_attempts(a) == 1, f"not PAM_SUCCESS; failures {r.failed_attempts(a)}")
    # A remote PAM_RHOST is refused by default; SSH_* variables change nothing.
    t = r.pamtester(a, "authenticate", pin + "\n", "-I", "rhost=203.0.113.9")
    check("remote-refused", t.returncode != 0 and "retrieve authentication" in t.stderr and r.failed_attempts(a) == 1,
          t.stderr.strip().splitlines()[-1])
    ssh = r.env(SSH_CONNECTION="203.0.113.9 5555 10.0.0.1 22", SSH_CLIENT="203.0.113.9 5555 22", SSH_TTY="/dev/pts/9")
    t = r.pamtester(a, "authenticate", "222222\n", env=ssh)
    check("ssh-vars-ignored", t.returncode != 0 and "Authentication failure" in t.stderr and r.failed_attempts(a) == 2,
          f"a wrong passcode with SSH_* set is counted as any other: failures {r.failed_attempts(a)}")
    # Cross-user: b's process names a's store.
    before = r.failed_attempts(a)
    got = 0
    for guess in ["333333", "444444", pin]:
        t = r.pamtester(a, "authenticate", guess + "\n", run_as=b)
        if "retrieve authentication" not in t.stderr:
            got += 1
    st = r.ctl("status", a, run_as=b)
    check("cross-user-zero-guesses", got == 0 and r.failed_attempts(a) == before and st.returncode == 1,
          f"{b}'s process: {got} guesses reached {a}'s store; status as {b}: {st.stdout.strip()}")
    print(f"note: guesses {b}'s process got against {a}'s login store: {got} (failures stayed {before})")
    # A setuid program that b runs (su, polkit's agent helper: real uid b, effective uid 0) is root
    # to passcoded: the module refuses it before asking, nothing counted, chauthtok included.
    before = r.failed_attempts(a)
    ruid_b, ruid_a = str(pwd.getpwnam(b).pw_uid), str(pwd.getpwnam(a).pw_uid)
    seen = [r.pamcase("plain", a, "authenticate", PAM_AUTHINFO_UNAVAIL, guess, PAMCASE_RUID=ruid_b) for guess in ["333333", pin]]
    seen.append(r.pamcase("plain", a, "chauthtok", PAM_AUTHINFO_UNAVAIL, "555555", "381947", "381947", PAMCASE_RUID=ruid_b))
    got = sum(1 for x in seen if not x["ok"])
    check("setuid-cross-user-zero-guesses", got == 0 and r.failed_attempts(a) == before,
          f"su-like as {b} (real uid {b}, effective root): {got} of 3 calls reached {a}'s store, failures {before} -> {r.failed_attempts(a)}")
    print(f"note: guesses a setuid program run by {b} got against {a}'s login store: {got}")
    # sudo's own case (real uid a, the user it authenticates) still works.
    x = r.pamcase("plain", a, "authenticate", PAM_SUCCESS, pin, PAMCASE_RUID=ruid_a)
    check("setuid-own-user", x["ok"] and r.failed_attempts(a) == 0, f"sudo-like as {a}: {x}")
    # A screen locker running as the user itself.
    t = r.pamtester(a, "authenticate", pin + "\n", run_as=a)
    check("screen-locker-as-user", t.returncode == 0 and r.failed_attempts(a) == 0, t.stderr.strip().splitlines()[-1])
    # Lockout: 5 failures, then PAM_MAXTRIES with the wait.
    transcript = []
    for guess in ["500001", "500002", "500003", "500004", "500005", "500006"]:
        t = r.pamtester(a, "authenticate", guess + "\n")
        transcript.append(f"$ echo {guess} | pamtester -v {os.path.basename(r.etc_service)} {a} authenticate\n{t.stdout}{t.stderr}".rstrip())
    last = transcript[-1]
    x = r.pamcase("plain", a, "authenticate", PAM_MAXTRIES, pin)
    check("lockout-maxtries", x["ok"] and any("try again in" in m for m in x.get("errors", [])),
          f"right passcode while locked out: PAM_MAXTRIES, {x.get('errors')}")
    check("lockout-transcript", "try again in" in last and "retries" in last, last.splitlines()[-1])
    # The same lockout in the user's language (the table's PAM_LOCKED_MINUTES, pam_passcode's domain),
    # and English for a language without a catalogue.
    for language, expected in (("de_DE.UTF-8", "Code gesperrt: Versuche es in "), ("fr", "Code verrouillé : réessayez dans "),
                               ("xx_YY", "Passcode locked: try again in ")):
        x = r.pamcase("plain", a, "authenticate", PAM_MAXTRIES, pin, LC_ALL=None, LANG="C.UTF-8", LANGUAGE=language)
        check(f"lockout-text-{language}", x["ok"] and any(m.startswith(expected) for m in x.get("errors", [])), f"{x.get('errors')}")
    # A lockout answered to a call by uid carries that user's wait, not root's own store's (0).
    ch = r.ctl("--stdin", "change", a, stdin=f"{pin}\n381947\n")
    wait = re.search(r"locked out for (\d+) (?:more )?seconds?", ch.stdout)
    check("lockout-wait-by-uid", ch.returncode != 0 and wait and 0 < int(wait.group(1)) <= 300,
          f"root's passcodectl change {a} in the lockout: '{ch.stdout.strip()}'")
    print("note: pamtester transcript of a lockout:\n" + "\n".join(transcript))
    st = r.ctl("status", a).stdout.strip()
    check("ctl-status-counts-in-words", re.fullmatch(rf"{a}: set, 6 digits, [2-9] failures, lockout \d+ seconds?, reset not required", st) is not None, st)
    # silent: no text.
    r.service("silent", f"auth required {MODULE} silent\n")
    x = r.pamcase("silent", a, "authenticate", PAM_MAXTRIES, pin)
    check("silent-no-text", x["ok"] and not x.get("errors"), f"{x}")
    # Root's reset clears it.
    rs = r.ctl("reset", a)
    own_reset = r.ctl("reset", a, run_as=a)
    check("reset-root-only", rs.returncode == 0 and own_reset.returncode == 1, f"{rs.stdout.strip()} / as {a}: {own_reset.stdout.strip()}")
    x = r.pamcase("plain", a, "authenticate", PAM_SUCCESS, pin)
    check("after-reset", x["ok"] and r.failed_attempts(a) == 0, f"{x}")
    # Reset required: failures past the schedule's last lockout (the clock moved past each wait).
    n = 0
    for i in range(30):
        r.set_clock(r.offset + 2 * 86400)
        x = r.pamcase("plain", a, "authenticate", PAM_AUTH_ERR, f"7{i:05d}")
        n += 1
        st = r.ctl("status", a).stdout
        if "reset required" in st:
            break
    r.set_clock(r.offset + 2 * 86400)
    x = r.pamcase("plain", a, "authenticate", PAM_MAXTRIES, pin)
    check("reset-required-maxtries", x["ok"] and any("reset is required" in m for m in x.get("errors", [])),
          f"after {n} failures: {x}")
    r.ctl("reset", a)
    # passcoded killed mid-verify keeps the attempt.
    kept = False
    for delay in (0.05, 0.1, 0.2, 0.4):
        before = r.failed_attempts(a)
        p = subprocess.Popen(["pamtester", os.path.basename(r.etc_service), a, "authenticate"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=r.env())
        p.stdin.write(f"8{int(delay * 1000):05d}\n")
        p.stdin.flush()
        time.sleep(delay)
        r.stop_daemon(signal.SIGKILL)
        out, err = p.communicate()
        r.start_daemon()
        after = r.failed_attempts(a)
        if after == before + 1 and "retrieve authentication" in err:
            kept = True
            break
    check("killed-mid-verify-keeps-attempt", kept, f"pamtester got AUTHINFO_UNAVAIL, failures {before} -> {after}")
    r.ctl("reset", a)
    # passcoded unreachable: PAM_AUTHINFO_UNAVAIL, never IGNORE or SUCCESS.
    r.stop_daemon()
    x = r.pamcase("plain", a, "authenticate", PAM_AUTHINFO_UNAVAIL, pin)
    y = r.pamcase("nullok", a, "authenticate", PAM_AUTHINFO_UNAVAIL, pin)
    check("unreachable", x["ok"] and y["ok"], "PAM_AUTHINFO_UNAVAIL, with nullok too")
    c = r.ctl("status", a)
    check("ctl-unreachable", c.returncode == 3, c.stdout.strip())
    # A uid with no name in the password database is named by its number, the one case it is.
    nameless = next(u for u in range(61000, 62000) if not any(p.pw_uid == u for p in pwd.getpwall()))
    c = r.run("setpriv", f"--reuid={nameless}", f"--regid={nameless}", "--clear-groups", "--", CTL, "status", env=r.env())
    check("ctl-nameless-uid-by-number", c.stdout.startswith(f"uid {nameless}: passcoded unreachable"), c.stdout.strip())
    r.start_daemon()
    # No login store: AUTHINFO_UNAVAIL, IGNORE with nullok.
    x = r.pamcase("plain", b, "authenticate", PAM_AUTHINFO_UNAVAIL, "123456")
    y = r.pamcase("nullok", b, "authenticate", PAM_SUCCESS, "123456")
    z = r.pamcase("pin-after-password", b, "authenticate", PAM_SUCCESS)
    check("no-store", x["ok"] and y["ok"] and z["ok"],
          "PAM_AUTHINFO_UNAVAIL; with nullok PAM_IGNORE (the stack's pam_permit decides, the password alone in a password-plus-PIN stack)")
    # The module opens nothing but the bus socket.
    s = r.run("strace", "-f", "-qq", "-e", "trace=openat,open,creat,connect", "-o", f"{r.dir}/strace", "pamtester",
              os.path.basename(r.etc_service), a, "authenticate", input=pin + "\n", env=r.env())
    with open(f"{r.dir}/strace") as f:
        lines = f.read().splitlines()
    writes = [ln for ln in lines if ("O_WRONLY" in ln or "O_RDWR" in ln or "O_CREAT" in ln or "creat(" in ln) and "ENOENT" not in ln]
    # (a connect that failed, such as libc's try of nscd for the user's name, reached nothing)
    connects = [ln for ln in lines if "connect(" in ln and "= -1" not in ln and f"{r.dir}/bus" not in ln]
    stores = [ln for ln in lines if "/stores" in ln]
    check("opens-only-the-bus", s.returncode == 0 and not writes and not connects and not stores,
          f"no file opened to write, no socket but {r.dir}/bus, no store: {writes[:2]} {connects[:2]} {stores[:2]}")
    # chauthtok: a first passcode as root (passwd after pam_unix), a change by the user.
    t = r.pamtester(b, "chauthtok", "381947\n381947\n")
    check("chauthtok-first-as-root", t.returncode == 0 and r.failed_attempts(b) == 0, (t.stdout + t.stderr).strip())
    t = r.pamtester(b, "chauthtok", "381947\n582046\n582046\n", run_as=b)
    x = r.pamcase("plain", b, "authenticate", PAM_SUCCESS, "582046")
    check("chauthtok-change-by-user", t.returncode == 0 and x["ok"], (t.stdout + t.stderr).strip())
    # No process of the user turns "has a PIN" into "has none", not even with the
    # PIN; root's removal takes the whole login store, and only then does nullok pass the user.
    rm = r.ctl("--stdin", "remove", b, run_as=b, stdin="582046\n")
    check("remove-own-login-pin-refused", rm.returncode != 0 and "root" in (rm.stdout + rm.stderr) and r.failed_attempts(b) == 0,
          f"{(rm.stdout + rm.stderr).strip()}; the PIN still set: {r.failed_attempts(b) == 0}")
    rm2 = r.bus_call(b, "RemovePasscode", "ss", "login", "582046")
    check("remove-own-login-pin-refused-bus", rm2.returncode != 0 and "root" in rm2.stderr and r.failed_attempts(b) == 0,
          rm2.stderr.strip())
    uid_b = pwd.getpwnam(b).pw_uid
    store_b = f"{r.dir}/stores/{uid_b}/login.db"
    had = os.path.exists(store_b)
    rm = r.ctl("remove", b)
    x = r.pamcase("nullok", b, "authenticate", PAM_SUCCESS)
    y = r.pamcase("plain", b, "authenticate", PAM_AUTHINFO_UNAVAIL)
    check("remove-login-root-takes-the-store", rm.returncode == 0 and had and not os.path.exists(store_b)
          and r.failed_attempts(b) is None and x["ok"] and y["ok"],
          f"{rm.stdout.strip()}; login store there before: {had}, after: {os.path.exists(store_b)}; nullok then PAM_IGNORE "
          f"(the stack's pam_permit: {x.get('ok')}), plain PAM_AUTHINFO_UNAVAIL: {y.get('ok')}")
    t = r.pamtester(b, "chauthtok", "381947\n381947\n", run_as=b)
    check("chauthtok-first-as-user-refused", t.returncode != 0 and r.failed_attempts(b) is None,
          t.stderr.strip().splitlines()[-1] if t.stderr.strip() else t.stdout)
    lg = r.ctl("log", a)
    check("log", lg.returncode == 0 and "failed_attempt" in lg.stdout and "passcode_set" in lg.stdout,
          f"{len(lg.stdout.splitlines())} events")
    # "Forgot" on the login store, from the user's own process, needs no PIN: it must not turn
    # "has a PIN" into "has none" (nullok would then answer IGNORE and the password alone, or
    # nothing at all, would let the user in). The PIN stays, reset-required, until root resets it.
    events = len(lg.stdout.splitlines())
    x = r.pamcase("pin-after-password", a, "authenticate", PAM_SUCCESS, pin)
    check("pin-after-password-needs-the-pin", x["ok"], f"password and the PIN: PAM_SUCCESS {x}")
    fg = r.bus_call(a, "Forgot", "s", "login")
    st = r.ctl("status", a)
    blind = [r.pamcase(stack, a, "authenticate", PAM_MAXTRIES, *answer)
             for stack in ("nullok", "pin-after-password", "plain") for answer in ((), (pin,))]
    check("forgot-login-keeps-the-pin-reset-required",
          fg.returncode == 0 and r.failed_attempts(a) is not None and "reset required" in st.stdout and all(x["ok"] for x in blind)
          and any("reset is required" in m for x in blind for m in x.get("errors", [])),
          f"Forgot as {a}: exit {fg.returncode} {fg.stderr.strip()}; status '{st.stdout.strip()}'; "
          f"nullok, password-plus-PIN and plain stacks, no answer and the PIN: {[x.get('ok') for x in blind]} (PAM_MAXTRIES each)")
    x = r.pamcase("pin-or-password", a, "authenticate", PAM_SUCCESS)
    check("forgot-login-sufficient-goes-on-to-the-password", x["ok"], f"a sufficient line, then the password: {x}")
    # Nothing else the user's process may call turns it into "no PIN", not even with the PIN.
    rm = r.ctl("--stdin", "remove", a, run_as=a, stdin=pin + "\n")
    ch = r.ctl("--stdin", "change", run_as=a, stdin=f"{pin}\n381947\n")
    rs = r.bus_call(a, "RemoveStore", "ss", "login", pin)
    fl = r.bus_call(a, "SetSetting", "ssx", "login", "max_failure_action", "1")
    vf = r.bus_call(a, "Verify", "ss", "login", "000000")
    check("forgot-login-user-cannot-undo",
          rm.returncode != 0 and ch.returncode != 0 and rs.returncode != 0 and "root" in rs.stderr and fl.returncode != 0
          and r.failed_attempts(a) is not None and "reset required" in r.ctl("status", a).stdout,
          f"remove with the PIN: {rm.stdout.strip()}; change: {ch.stdout.strip()}; RemoveStore with the PIN: {rs.stderr.strip()}; "
          f"max_failure_action forced logout: {fl.stderr.strip()}; Verify: {vf.stderr.strip()}")
    lg2 = r.ctl("log", a)
    again = r.ctl("--stdin", "set", a, run_as=a, stdin=pin + "\n")
    check("forgot-login-logged", "passcode_set" in lg2.stdout and "forgot" in lg2.stdout
          and len(lg2.stdout.splitlines()) > events and again.returncode == 1,
          f"log {events} -> {len(lg2.stdout.splitlines())} events; own set after: exit {again.returncode}")
    # Root's reset ends it: the same PIN works again, in every stack.
    rs = r.ctl("reset", a)
    ok = [r.pamcase(stack, a, "authenticate", PAM_SUCCESS, pin) for stack in ("plain", "nullok", "pin-after-password")]
    check("forgot-login-root-reset-restores-the-pin", rs.returncode == 0 and all(x["ok"] for x in ok) and r.failed_attempts(a) == 0,
          f"{rs.stdout.strip()}; {[x.get('ok') for x in ok]}")
    # Root's RemoveStore of root's own login store is still root's to do.
    own = r.bus_call(None, "RemoveStore", "ss", "login", "")
    check("remove-store-login-root", own.returncode == 0, own.stderr.strip() or "root removed its own (empty) login store")


class Reader:
    """An example locker state reader (examples/python/locker_state.py or examples/c/locker_state.c)
    running as `user`, watching `uid`'s login store; its lines read by a thread, taken by `wait`."""

    def __init__(self, r, label, user, uid, program):
        self.label, self.lines, self.seen = label, queue.Queue(), []
        cmd = ["/usr/bin/python3", f"{REPO}/examples/python/locker_state.py", "--uid", str(uid)] if program == "python" \
            else [program, str(uid)]
        self.p = subprocess.Popen(r.as_user(user) + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env=r.env(), cwd="/")
        r.procs[f"reader-{label}"] = self.p
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait(self, want, guard=60):
        """The first line from now on that `want` (a function of the line) accepts, or None when the
        reader ended first (`guard` seconds: only against a hang, never a measure)."""
        end = time.monotonic() + guard
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                return None
            if line is None:
                self.lines.put(None)
                return None
            self.seen.append(line)
            if want(line):
                return line

    def push(self, **fields):
        """The next push line whose fields have these values."""
        def match(line):
            if not line.startswith("push "):
                return False
            got = dict(w.split("=") for w in line.split()[1:])
            return all(got.get(k) == str(v) for k, v in fields.items())
        return self.wait(match)

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def state_of(x):
    """The fields of PAM_PASSCODE_STATE in a pamcase answer's environment, as numbers."""
    text = (x.get("env") or {}).get("PAM_PASSCODE_STATE")
    if text is None:
        return None
    return {k: int(v) for k, v in (w.split(":") for w in text.split())}


def login_state_tests(r):
    """A login store's lock state without parsing text: pam_passcode's PAM_PASSCODE_STATE, and
    passcoded's login object pushed to the user's own process and to a greeter account (the two
    example readers, Python and C), never to another uid; the lockout outlives a restart of
    passcoded and a reboot (a new boot id: the lockout starts again in full), escalating."""
    c, g, b = r.target, r.greeter, r.users[1]
    uid_c = pwd.getpwnam(c).pw_uid
    pin = "602913"
    reader_c = f"{r.dir}/locker_state"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsystemd"], capture_output=True, text=True).stdout.split()
    cc = subprocess.run(["cc", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror", "-o", reader_c,
                         f"{REPO}/examples/c/locker_state.c"] + flags, capture_output=True, text=True)
    check("example-c-reader-builds", cc.returncode == 0, cc.stderr.strip()[-300:] or f"cc examples/c/locker_state.c -> {reader_c}")
    # The frozen clock: two readings are exactly as far apart as the test says (until a restart,
    # which reads the real clock again).
    r.set_clock(r.offset + 3 * 86400, frozen=True)
    st = r.ctl("--stdin", "set", c, stdin=pin + "\n")
    check("login-state-enrol", st.returncode == 0, st.stdout.strip())
    check("greeter-unknown-name-logged", "greeter_users: no account nobody-here" in r.log_text(),
          "an account greeter_users names that does not exist reads nothing, and the log says so")
    readers = {"own-python": Reader(r, "own-python", c, uid_c, "python"), "own-c": Reader(r, "own-c", c, uid_c, reader_c),
               "greeter-python": Reader(r, "greeter-python", g, uid_c, "python"), "greeter-c": Reader(r, "greeter-c", g, uid_c, reader_c),
               "other-python": Reader(r, "other-python", b, uid_c, "python"), "other-c": Reader(r, "other-c", b, uid_c, reader_c)}
    spy = None
    try:
        for name, rd in readers.items():
            first = rd.push(state=0, failures=0, left=5, next=60)
            if name.startswith("other"):
                refused = first is None and any(line.startswith("refused:") and "Permission" in line for line in rd.seen)
                check(f"login-state-{name}-refused", refused, f"{b} (another uid) watching {c}'s login store: {rd.seen}")
            else:
                check(f"login-state-{name}-watches", first is not None, f"{name}: {first}")
        # Another uid: no watch, no property, no signal (an eavesdropping match too).
        spy = subprocess.Popen(r.as_user(b) + ["/usr/bin/python3", f"{REPO}/Tests/service/client.py", r.address],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/")
        r.procs["spy"] = spy

        def ask(req):
            spy.stdin.write(json.dumps(req) + "\n")
            spy.stdin.flush()
            return json.loads(spy.stdout.readline())
        path = next(line.split()[1] for line in readers["own-python"].seen if line.startswith("watching "))
        ask({"signals": 0})
        # Wrong PINs through pam_passcode: each is pushed, and PAM_PASSCODE_STATE says where it stands.
        states = []
        for i in range(5):
            x = r.pamcase("plain", c, "authenticate", PAM_AUTH_ERR, f"71{i:04d}")
            states.append(state_of(x))
        print("note: PAM_PASSCODE_STATE after each of 5 wrong PINs:\n" + "\n".join(f"  {s}" for s in states))
        want3 = {"version": 1, "state": 0, "lockout": 0, "failures": 3, "left": 2, "next": 60}
        check("pam-env-counts-down", states[2] is not None and all(states[2].get(k) == v for k, v in want3.items()),
              f"after 3: {states[2]}")
        want = {"version": 1, "state": 1, "lockout": 60, "failures": 5, "left": 1, "next": 300}
        check("pam-env-locked-not-wrong", states[4] is not None and all(states[4].get(k) == v for k, v in want.items())
              and states[4]["fingerprint"] != 0, f"after 5: {states[4]} (locked out 60 s, 1 more wrong PIN starts 300 s)")
        for name in ("own-python", "own-c", "greeter-python", "greeter-c"):
            got = readers[name].push(state=1, lockout=60, failures=5, left=1, next=300)
            tick = readers[name].wait(lambda line: line.startswith("countdown ") and int(line.split()[1]) < 60)
            check(f"login-state-{name}-pushed-countdown", got is not None and tick is not None,
                  f"{name} ({c if name.startswith('own') else g}): '{got}', then its own countdown '{tick}'")
        print("note: what each reader printed:\n" + "\n".join(
            f"  {name} ({c if name.startswith('own') else g if name.startswith('greeter') else b}): " + " | ".join(rd.seen[-6:])
            for name, rd in readers.items()))
        watch = ask({"call": "WatchLogin", "sig": "(su)", "args": ["login", uid_c]})
        prop = ask({"prop": path, "name": "State", "interface": "org.libpasscode.Passcode1.Login"})
        once = ask({"call": "UserGetLockout", "sig": "(su)", "args": ["login", uid_c]})
        heard = ask({"signals": 0})
        check("login-state-other-uid-gets-nothing",
              watch.get("error", "").endswith("Permission") and prop.get("error") == "org.libpasscode.Error.NotWatched"
              and once.get("error", "").endswith("Permission") and not heard.get("ok"),
              f"{b}: WatchLogin {watch.get('error')}, Get State {prop.get('error')}, UserGetLockout {once.get('error')}, "
              f"PropertiesChanged heard {heard.get('ok')}")
        # The greeter reads login stores only, and only by watching; root reads once.
        gw = subprocess.run(r.as_user(g) + ["busctl", f"--address={r.address}", "call", "org.libpasscode.Passcode1",
                                             "/org/libpasscode/Passcode1", "org.libpasscode.Passcode1", "WatchLogin", "su",
                                             "org.example.app", str(uid_c)], capture_output=True, text=True, env=r.env())
        root = r.bus_call(None, "UserGetLockout", "su", "login", str(uid_c))
        check("login-state-greeter-login-stores-only", gw.returncode != 0 and "login store" in gw.stderr
              and root.returncode == 0 and root.stdout.split()[4:7] == ["1", "60", "5"],
              f"greeter's WatchLogin of an app store: {gw.stderr.strip()}; root's UserGetLockout: {root.stdout.strip()}")

        # Durable: a restart of passcoded keeps the lockout, a reboot starts it again in full, and
        # each lockout after it is longer (the schedule, not a fixed window).
        transcript = []

        def attempt(label, code, expected):
            x = r.pamcase("plain", c, "authenticate", expected, code)
            s = state_of(x) or {}
            transcript.append(f"  {label}: {'PAM_MAXTRIES' if expected == PAM_MAXTRIES else 'PAM_AUTH_ERR'} {x.get('ok')} {s}"
                              + ("" if x.get("ok") else f" ({x.get('error')})"))
            return x["ok"], s
        # In one passcoded, on its frozen clock: 30 s into the lockout, then a reboot (a new boot id)
        # starts it again in full; its end, then the 6th wrong PIN: 300 s, not the same 60.
        r.set_clock(r.offset + 30, frozen=True)
        ok1, s1 = attempt("30 s later, the right PIN", pin, PAM_MAXTRIES)
        r.set_clock(r.offset, frozen=True, boot=1)
        ok2, s2 = attempt("rebooted (a new boot id), the right PIN", pin, PAM_MAXTRIES)
        check("lockout-survives-reboot-in-full", ok1 and ok2 and (s1.get("state"), s1.get("lockout")) == (1, 30)
              and (s2.get("state"), s2.get("lockout"), s2.get("failures")) == (1, 60, 5),
              f"30 s in {s1}; after the reboot {s2}: locked, its 60 seconds again in full")
        r.set_clock(r.offset + 61, frozen=True, boot=1)
        ok3, s3 = attempt("61 s later, a wrong PIN (the 6th)", "710006", PAM_AUTH_ERR)
        # A restart of passcoded (its frozen clock read again: later by the seconds this test took).
        r.stop_daemon()
        r.start_daemon()
        ok4, s4 = attempt("passcoded restarted, the right PIN", pin, PAM_MAXTRIES)
        check("lockout-survives-restart", ok3 and ok4 and (s3.get("state"), s3.get("lockout"), s3.get("next")) == (1, 300, 900)
              and s4.get("state") == 1 and 0 < s4.get("lockout", 0) <= 300 and s4.get("failures") == 6,
              f"the 6th wrong PIN {s3}; after the restart {s4}")
        for name in ("own-python", "greeter-c"):
            got = readers[name].wait(lambda line: line.startswith("watching "))
            check(f"login-state-{name}-watches-again", got is not None,
                  f"{name} after passcoded's restart: '{got}' ({' | '.join(readers[name].seen[-4:])})")
        # Restarted and rebooted: locked, the 300 s again in full; after them the 7th: 900 s.
        r.stop_daemon()
        r.set_clock(r.offset, frozen=True, boot=2)
        r.start_daemon()
        ok5, s5 = attempt("restarted and rebooted, the right PIN", pin, PAM_MAXTRIES)
        r.set_clock(r.offset + 301, frozen=True, boot=2)
        ok6, s6 = attempt("301 s later, a wrong PIN (the 7th)", "710007", PAM_AUTH_ERR)
        print("note: the login lockout through pam_passcode, across restarts and reboots:\n" + "\n".join(transcript))
        check("lockout-escalates-across-restarts", ok5 and ok6 and (s5.get("state"), s5.get("lockout"), s5.get("failures")) == (1, 300, 6)
              and (s6.get("state"), s6.get("lockout"), s6.get("failures"), s6.get("next")) == (1, 900, 7, 900),
              f"after a restart and a reboot {s5}; the 7th {s6}")
        got = readers["greeter-python"].push(state=1, lockout=900, failures=7, left=1, next=900)
        check("login-state-greeter-pushed-after-restarts", got is not None, f"greeter's reader: '{got}'")
        # Without greeter_users the greeter account reads nothing.
        r.stop_daemon()
        r.configure("")
        r.start_daemon()
        gone = Reader(r, "greeter-unnamed", g, uid_c, "python")
        first = gone.wait(lambda line: line.startswith(("refused:", "push ")))
        check("login-state-greeter-needs-the-setting", first is not None and first.startswith("refused:") and "Permission" in first,
              f"{g} with greeter_users unset: '{first}'")
        gone.stop()
        r.stop_daemon()
        r.configure()
        r.start_daemon()
    finally:
        for rd in readers.values():
            rd.stop()
        if spy is not None and spy.poll() is None:
            spy.kill()
            spy.wait()
    r.ctl("reset", c)
    r.set_clock(r.offset)


def login_tpm_tests(r):
    """Where passcoded holds a provisioned TPM (an swtpm, scripts/tpm-provision.sh), a login
    store's PIN is bound as any store's: each wrong PIN pam_passcode sends is counted by the PIN's
    PIN_FAIL index in the TPM, the count outlives a restart of passcoded and a reboot, and the right
    PIN sets it back."""
    for tool in ("swtpm", "tpm2_getcap", "tpm2_nvreadpublic", "tpm2_nvread", "xxd"):
        if not shutil.which(tool):
            print(f"SKIPPED login-tpm: {tool} is missing (make deps installs it)")
            return
    c = r.target
    pin = "602913"
    owner, lockout = f"{r.dir}/tpm-owner-auth", f"{r.dir}/tpm-lockout-auth"
    folder, tcti = harness.start_swtpm(r.dir, "swtpm-login")
    try:
        prov = r.run(f"{REPO}/scripts/tpm-provision.sh", "--tcti", tcti, "--owner-auth-file", owner, "--lockout-auth-file", lockout)
        check("login-tpm-provisioned", prov.returncode == 0, prov.stderr.strip()[-200:] or "scripts/tpm-provision.sh on the swtpm")
        r.stop_daemon()
        r.configure(f"greeter_users = {r.greeter}\ntpm = {tcti}\ntpm_owner_auth_file = {owner}\n")
        r.start_daemon()
        r.set_clock(r.offset + 86400, frozen=True, boot=3)
        rm, st = r.ctl("remove", c), r.ctl("--stdin", "set", c, stdin=pin + "\n")
        index = harness.pin_index(tcti)
        seen = [("enrolled", harness.pin_counts(tcti, owner, index) if index else None, None)]
        for i in range(3):
            x = r.pamcase("plain", c, "authenticate", PAM_AUTH_ERR, f"72{i:04d}")
            seen.append((f"wrong PIN {i + 1} through pam_passcode", harness.pin_counts(tcti, owner, index), state_of(x)))
        r.stop_daemon()
        r.set_clock(r.offset, frozen=True, boot=4)
        r.start_daemon()
        seen.append(("passcoded restarted, the machine rebooted", harness.pin_counts(tcti, owner, index), None))
        x = r.pamcase("plain", c, "authenticate", PAM_AUTH_ERR, "720009")
        seen.append(("wrong PIN 4 after them", harness.pin_counts(tcti, owner, index), state_of(x)))
        y = r.pamcase("plain", c, "authenticate", PAM_SUCCESS, pin)
        seen.append(("the right PIN", harness.pin_counts(tcti, owner, index), state_of(y)))
        print(f"note: the login store's PIN_FAIL index {index} in the swtpm, (pinCount, pinLimit), through pam_passcode:\n"
              + "\n".join(f"  {label}: {counts}{f' PAM_PASSCODE_STATE {s}' if s else ''}" for label, counts, s in seen))
        counts = [s[1] for s in seen]
        check("login-tpm-pin-fail-counts", rm.returncode == 0 and st.returncode == 0 and index is not None
              and counts == [(0, 10), (1, 10), (2, 10), (3, 10), (3, 10), (4, 10), (0, 10)]
              and seen[5][2] and seen[5][2]["failures"] == 4 and seen[6][2] is None and y["ok"],
              f"{counts}: each wrong PIN counted by the TPM, kept across a restart and a reboot, set back by the right PIN")
        log = r.log_text()
        check("login-tpm-passcoded-provisioned", f"bound to the TPM at {tcti} (provisioned" in log,
              "passcoded says it binds its stores to the provisioned swtpm")
    finally:
        r.stop_daemon()
        harness.stop_swtpm(folder)
        r.ctl("remove", c)
        r.configure()
        r.set_clock(r.offset)
        r.start_daemon()


def main():
    if os.getuid() != 0:
        print("test-pam: needs root")
        return 2
    with Rig() as r:
        r.start()
        if os.environ.get("PAM_ONLY") != "login":
            tests(r)
            pam_fingerprint.tests(r, check, MODULE)
        login_state_tests(r)
        login_tpm_tests(r)
    leftover = [u for u in r.made if subprocess.run(["getent", "passwd", u], capture_output=True).returncode == 0]
    check("cleanup", not leftover and not os.path.exists(r.dir) and not os.path.exists(r.etc_service),
          f"users, folder and /etc/pam.d file gone: {leftover}")
    print(f"test-pam: {len(failures)} failed" + (": " + ", ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
