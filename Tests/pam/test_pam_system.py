"""make test-pam-system: pam_passcode through the real sudo, su, login and runuser, as root, on a
machine of the test's own: a private mount namespace whose /run is a tmpfs, whose /dev is a tmpfs
with the machine's entries bound in and a /dev/log of the test's, and whose /etc, /usr and /var
are copy-on-write copies of the machine's (overlayfs, the changes kept in the tmpfs). In it the
real paths are the test's: Debian's own system bus (dbus-daemon --system, its system.conf) at
/run/dbus/system_bus_socket, passcoded installed by `make install-service` and started by D-Bus
activation through the stock launch helper (never by the test), pam_passcode and passcodectl
installed by `make install`, the stack turned on by pam-auth-update, a sudoers of the test's own.
The users are made inside (useradd, as Tests/service/harness.py makes them), so they live in the
namespace's /etc alone. When the namespace's last process ends, all of it goes.

    Tests/pam/test_pam_system.py BUILD_DIR REPO

PAM_SYSTEM_TEST_USERS=prefix names the users ("<prefix>-svc", "<prefix>-a", ...; default "ppsys");
PAM_SYSTEM_ONLY=basics|concurrency|kill|faults|fingerprint runs one part after the shared set-up
(fingerprint: Tests/pam/pam_system_fingerprint.py);
PAM_SYSTEM_DEBUG=1 adds each check's time, and the bus's and the module's log at the end.
The program is its own parent: it starts itself again inside `unshare -m --propagation
private` (--inside), relays that output, and at the end, or on SIGTERM or SIGINT, kills by pid
every process still in that namespace (the bus, passcoded, a sudo at its prompt), then checks
that nothing the namespace wrote is on the machine.

Each check prints "ok   name: what was seen" or "FAIL name: ..."; transcripts and the concurrency
figures are "note:" lines. Exit 1 on any failure. Where the machine cannot do it (no unshare,
overlayfs, sudo, su, login, the launch helper): "SKIPPED test-pam-system: why", also written to
$PASSCODE_SKIPPED/test-pam-system, and exit 0."""
import os
import pwd
import re
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import pam_system_fingerprint  # the fingerprint option's part (Tests/pam/pam_system_fingerprint.py)

GROUP = "test-pam-system"
PREFIX = os.environ.get("PAM_SYSTEM_TEST_USERS") or "ppsys"
LAUNCH_HELPER = "/usr/lib/dbus-1.0/dbus-daemon-launch-helper"
SYSTEM_CONF = "/usr/share/dbus-1/system.conf"
BUS_SOCKET = "/run/dbus/system_bus_socket"
CONF = "/etc/passcode/passcoded.conf"
WORK = "/run/ppsys"              # the test's own files, in the namespace's tmpfs
OVERLAY = "/run/ppsys-overlay"   # the upper layers of /etc, /usr and /var
LOWER = "/run/ppsys-machine"     # the machine's own /, read-only
STORE_ROOT = f"{WORK}/stores"
CLOCK = f"{WORK}/clock-offset"
PIN_PROMPT = "Passcode (6 digits): "
PIN_A, PIN_B, PIN_K = "048213", "371904", "836194"
LOCKED = re.compile(r"Passcode locked: try again in (\d+) minutes?\.")
RESET_TEXT = "Passcode: a reset is required"
BUS_NAME = "org.libpasscode.Passcode1"


def install_vars():
    """The variables make install, install-service and their uninstalls get: PASSCODE_RECORD=
    (the checkout is the machine's own, outside the namespace: make install writes nothing into
    it)."""
    return ["PASSCODE_RECORD="]


def skip(why):
    print(f"SKIPPED {GROUP}: {why}", flush=True)
    if os.environ.get("PASSCODE_SKIPPED"):
        with open(os.path.join(os.environ["PASSCODE_SKIPPED"], GROUP), "w") as f:
            f.write(why + "\n")
    return 0


def pam_module_dir():
    """The directory libpam loads modules from: its multiarch directory's security/."""
    try:
        arch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
    except OSError:
        arch = ""
    dirs = ([f"/lib/{arch}/security", f"/usr/lib/{arch}/security"] if arch else []) + ["/lib/security", "/lib64/security"]
    return next((d for d in dirs if os.path.exists(os.path.join(d, "pam_unix.so"))), None)


# ---------------------------------------------------------------------------------------------
# The parent: outside the namespace.

def mount_ns(pid):
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


def pids_in(ns):
    """The processes in the mount namespace `ns`; none when `ns` is this process's own (the
    machine's: never a reason to kill anything)."""
    out = []
    if ns is None or ns == mount_ns("self"):
        return out
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid() and mount_ns(d) == ns:
            out.append(int(d))
    return out


def outer(build, repo):
    if os.geteuid() != 0:
        return skip("needs root (a mount namespace, users, the real sudo, su and login)")
    missing = [t for t in ("unshare", "sudo", "su", "login", "runuser", "dbus-daemon", "useradd", "setpriv", "pam-auth-update")
               if not shutil.which(t) and not os.path.exists(f"/usr/sbin/{t}")]
    if missing:
        return skip(f"{', '.join(missing)} missing (make deps)")
    if not os.path.exists(LAUNCH_HELPER) or not os.path.exists(SYSTEM_CONF):
        return skip(f"no {LAUNCH_HELPER} or {SYSTEM_CONF} (dbus-daemon's Debian layout)")
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs ppsys-probe /run && mkdir /run/u /run/w && "
                            "mount -t overlay ppsys-probe -o lowerdir=/etc,upperdir=/run/u,workdir=/run/w /etc"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return skip(f"no private mount namespace with a tmpfs and an overlay here: {probe.stderr.strip()[-200:]}")
    started = time.time()
    had_bus = os.path.exists(BUS_SOCKET)
    marker = f"ppsys-marker-{secrets.token_hex(6)}"
    ns = None
    child = subprocess.Popen(["unshare", "-m", "--propagation", "private", sys.executable, os.path.abspath(__file__),
                              "--inside", build, repo, marker], stdout=subprocess.PIPE, text=True, start_new_session=True)
    stop = {"signal": None}

    def on_signal(signum, frame):
        # The child cleans up and ends (killed after 15 s); its output is read to the end.
        if stop["signal"] is None:
            print(f"{GROUP}: stopped by signal {signum}; cleaning up", flush=True)
            child.send_signal(signal.SIGTERM)
            timer = threading.Timer(15, lambda: child.poll() is None and child.kill())
            timer.daemon = True
            timer.start()
        stop["signal"] = signum

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    wrote = []
    left = []
    rc = 1
    try:
        for line in child.stdout:
            if line.startswith("NAMESPACE "):
                ns = line.split(" ", 1)[1].strip()
                continue
            if line.startswith("WROTE "):
                wrote.append(line.split(" ", 1)[1].rstrip("\n"))
                continue
            print(line, end="", flush=True)
        rc = child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        # Whatever is left in the namespace (a bus, passcoded, a program at its prompt), by
        # pid, until nothing is.
        for _ in range(50):
            pids = pids_in(ns)
            if not pids:
                break
            left += pids
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        for s, h in old.items():
            signal.signal(s, h)
    # Nothing reached the machine: a marker file the namespace wrote in each private tree is not
    # out here; the files the install wrote under /usr/local (no package's) are absent or older
    # than the run; no user of the test's; no system bus socket that was not there before.
    # (Other files under /etc and /var, such as the PAM stack, may be changed out here by
    # something else while the test runs; the markers show that it was not the namespace.)
    markers = [m for m in (f"/{top}/.{marker}" for top in ("etc", "usr", "var", "run", "dev")) if os.path.lexists(m)]
    changed = []
    for path in wrote:
        if not path.startswith("/usr/local/"):
            continue
        try:
            if os.lstat(path).st_mtime >= started - 1:
                changed.append(path)
        except FileNotFoundError:
            pass
    users = [p.pw_name for p in pwd.getpwall() if p.pw_name.startswith(PREFIX + "-")]
    bus = os.path.exists(BUS_SOCKET) and not had_bus
    ok = not markers and not changed and not users and not bus and ns not in (None, mount_ns("self")) and not pids_in(ns)
    print(("ok   " if ok else "FAIL ") + f"machine-unchanged: the markers written in the namespace's /etc, /usr, /var, /run and /dev "
          f"are not out here ({markers}); of the {len(wrote)} files written under /etc, /usr and /var in it, those under /usr/local "
          f"are absent out here or older than the run ({changed[:5]}); no {PREFIX}-* user ({users}); no new {BUS_SOCKET} ({bus}); "
          f"{len(set(left))} leftover processes of the namespace killed by pid", flush=True)
    if not ok or stop["signal"] is not None or rc != 0:
        return 1
    return 0


# ---------------------------------------------------------------------------------------------
# Inside the namespace.

failures = []


T0 = time.monotonic()


def check(name, cond, seen):
    print(("ok   " if cond else "FAIL ") + f"{name}: {seen}" + (f" [{time.monotonic() - T0:.1f}]" if os.environ.get("PAM_SYSTEM_DEBUG") else ""), flush=True)
    if not cond:
        failures.append(name)
    return cond


def note(text):
    print("note: " + text.replace("\n", "\n      "), flush=True)


def sh(*args, check_rc=True, **kw):
    r = subprocess.run(list(args), capture_output=True, text=True, **kw)
    if check_rc and r.returncode != 0:
        raise SystemExit(f"{GROUP}: {' '.join(args)} failed ({r.returncode}): {r.stdout[-1500:]} {r.stderr[-1500:]}")
    return r


def clean_env(**extra):
    return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "LANG": "C",
            "TERM": "dumb", **extra}


class Term:
    """A program on a pseudo-terminal of its own (os.forkpty), run as `user` (None: root), its
    whole output kept in `out`."""

    def __init__(self, argv, user=None, env=None):
        self.argv = argv
        pw = pwd.getpwnam(user) if user else None
        pid, fd = os.forkpty()
        if pid == 0:
            try:
                if pw:
                    os.setgroups([])
                    os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
                    os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
                os.chdir("/")
                e = clean_env(HOME=pw.pw_dir if pw else "/root", USER=user or "root", LOGNAME=user or "root", **(env or {}))
                os.execve(argv[0], argv, e)
            finally:
                os._exit(127)
        self.pid, self.fd, self.out, self.pos, self.status = pid, fd, "", 0, None

    def _read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        if not data:
            return None
        self.out += data.decode(errors="replace").replace("\r\n", "\n")
        return True

    def expect(self, pattern, timeout=20):
        """Reads until `pattern` (a regex) appears after what an earlier expect matched; the
        match, or None at the program's end or after `timeout` seconds."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.out, self.pos)
            if m:
                self.pos = m.end()
                return m
            left = end - time.monotonic()
            if left <= 0 or self._read(left) is None:
                m = rx.search(self.out, self.pos)
                if m:
                    self.pos = m.end()
                return m

    def send(self, text):
        os.write(self.fd, text.encode() if isinstance(text, str) else text)

    def finish(self, timeout=20):
        """Reads to the end; the exit status (None when it had to be killed)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and self._read(end - time.monotonic()) is not None:
            pass
        while self.status is None:
            # (the terminal's end comes a moment before the process can be waited for)
            done, st = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(st)
            elif time.monotonic() > end:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self.status = -1
            else:
                time.sleep(0.005)
        os.close(self.fd)
        return None if self.status == -1 else self.status

    def tail(self, n=6):
        return " | ".join(ln.strip() for ln in self.out.strip().splitlines()[-n:])


class Machine:
    """The namespace's machine: its mounts, users, install, bus and the helpers of the checks."""

    def __init__(self, build, repo):
        self.build, self.repo = build, repo
        self.svc, self.a, self.b, self.c, self.k = (f"{PREFIX}-{s}" for s in ("svc", "a", "b", "c", "k"))
        self.password = {}
        self.bus = None
        self.pamdir = pam_module_dir()
        self.created = []
        self.vars = install_vars()
        self.clock = 0

    # -- the namespace
    def mount(self):
        sh("mount", "--make-rprivate", "/")
        sh("mount", "-t", "tmpfs", "-o", "mode=0755", "ppsys-run", "/run")
        os.makedirs(WORK, mode=0o755)
        os.makedirs(OVERLAY, mode=0o700)
        # The machine's own tree, read-only, beside the copies: what was there before the install.
        os.makedirs(LOWER)
        sh("mount", "--bind", "/", LOWER)
        sh("mount", "-o", "remount,bind,ro", LOWER)
        for top in ("etc", "usr", "var"):
            up, wk = f"{OVERLAY}/{top}/upper", f"{OVERLAY}/{top}/work"
            os.makedirs(up)
            os.makedirs(wk)
            sh("mount", "-t", "overlay", f"ppsys-{top}", "-o", f"lowerdir=/{top},upperdir={up},workdir={wk}", f"/{top}")
        # /dev: a tmpfs with the machine's entries bound in, and a /dev/log of the test's own
        # (PAM's syslog lines: the module's documented messages, and with its debug option
        # each call's return code, which sudo's PAM_SILENT keeps off the terminal).
        real = "/run/ppsys-realdev"
        os.mkdir(real)
        sh("mount", "--rbind", "/dev", real)
        sh("mount", "-t", "tmpfs", "-o", "mode=0755", "ppsys-dev", "/dev")
        for e in sorted(os.listdir(real)):
            src, dst = f"{real}/{e}", f"/dev/{e}"
            if os.path.islink(src):
                os.symlink(os.readlink(src), dst)
            elif e == "ptmx" and os.path.exists(f"{real}/pts/ptmx"):
                os.symlink("pts/ptmx", dst)  # the devpts instance bound at /dev/pts, as the kernel finds it
            elif os.path.isdir(src):
                os.mkdir(dst)
                sh("mount", "--rbind", src, dst)
            else:
                open(dst, "w").close()
                sh("mount", "--bind", src, dst)
        self.syslog = Syslog("/dev/log")
        for d in ("/run/dbus", "/run/lock", "/run/user"):
            os.makedirs(d, exist_ok=True)
        os.chmod("/run/lock", 0o1777)
        open("/run/utmp", "w").close()

    def written(self):
        """Every file the namespace wrote under /etc, /usr and /var (the overlays' upper layers)."""
        out = []
        for top in ("etc", "usr", "var"):
            up = f"{OVERLAY}/{top}/upper"
            for d, dirs, files in os.walk(up):
                for f in files:
                    out.append("/" + top + os.path.join(d, f)[len(up):])
        return sorted(out)

    # -- users
    def add_user(self, name, system=False):
        # (the machine's own /etc shows through: a useradd running out there holds its lock a moment)
        for _ in range(100):
            r = sh("useradd", "--system" if system else "--no-create-home", "--shell", "/usr/sbin/nologin" if system else "/bin/sh",
                   "--user-group", name, check_rc=False)
            if "lock" not in r.stderr:
                break
            time.sleep(0.1)
        if r.returncode != 0:
            raise SystemExit(f"{GROUP}: useradd {name}: {r.stderr.strip()}")
        if not system:
            pw = "Pw-" + secrets.token_hex(8)
            for _ in range(100):
                r = sh("chpasswd", input=f"{name}:{pw}\n", check_rc=False)
                if r.returncode == 0 or "lock" not in r.stderr:
                    break
                time.sleep(0.1)
            self.password[name] = pw

    # -- the install: one place
    def install(self):
        # ---- make install and make install-service, as root, from the checkout, with no
        # variable but PASSCODE_RECORD=: each file goes where the machine reads it ----
        # The Debian packages, when the machine has them, go first, in the namespace alone (its
        # /usr, /etc and /var/lib/dpkg are copies): make install does not overwrite their files.
        pkgs = [p for p in ("python3-passcode", "libpasscode-dev", "libpam-passcode", "passcoded", "libpasscode0")
                if sh("dpkg-query", "-W", "-f", "${Status}", p, check_rc=False).stdout.endswith(" installed")]
        if pkgs:
            r = sh("dpkg", "-r", *pkgs, check_rc=False, env=clean_env(DEBIAN_FRONTEND="noninteractive"))
            note(f"the machine has the packages {' '.join(pkgs)}: removed in the namespace first (dpkg -r: exit {r.returncode})")
        before = set(self.written())
        for target in ("install", "install-service"):
            r = sh("make", "-C", self.repo, "--no-print-directory", target, *self.vars, check_rc=False, env=clean_env(HOME="/root"))
            check(f"make-{target}", r.returncode == 0, f"make {target} {' '.join(self.vars)}: exit {r.returncode}"
                  + ("" if r.returncode == 0 else f": {(r.stdout + r.stderr)[-800:]}"))
        # ---- end of the install ----
        # What the install made (not there on the machine before), for the uninstall's check.
        self.created = sorted(p for p in set(self.written()) - before if not os.path.lexists(LOWER + p))

    def configure(self):
        """passcoded's configuration (its default path, as an administrator writes it): a cheap
        Argon2 cost, the stores and the clock offset in the namespace's tmpfs, the test's service
        user. A sudoers of the test's own."""
        self.set_clock(0)
        self.write_conf()
        with open("/etc/sudoers", "w") as f:
            f.write(f"Defaults passwd_tries=1, timestamp_timeout=0, timestampdir={WORK}/sudo-ts, "
                    f"lecture_status_dir={WORK}/sudo-lectured, lecture=never, !mail_no_user, !mail_badpass, env_reset\n"
                    "root ALL=(ALL:ALL) ALL\n"
                    + "".join(f"{u} ALL=(ALL:ALL) ALL\n" for u in (self.a, self.b, self.c, self.k)))
        os.chmod("/etc/sudoers", 0o440)
        shutil.rmtree("/etc/sudoers.d", ignore_errors=True)

    def write_conf(self, extra="", ops=1, mem=8192):
        os.makedirs(os.path.dirname(CONF), mode=0o755, exist_ok=True)
        with open(CONF, "w") as f:
            f.write(f"store_root = {STORE_ROOT}\nuser = {self.svc}\nargon2_ops = {ops}\nargon2_mem = {mem}\n"
                    f"clock_offset_file = {CLOCK}\n{extra}")
        os.chmod(CONF, 0o644)

    def set_clock(self, seconds):
        self.clock = seconds
        with open(CLOCK, "w") as f:
            f.write(f"{seconds}\n")
        os.chmod(CLOCK, 0o644)

    # -- the bus
    def start_bus(self):
        if os.path.lexists(BUS_SOCKET):  # an earlier bus's
            os.unlink(BUS_SOCKET)
        self.bus_log = open(f"{WORK}/bus.log", "a")
        self.bus = subprocess.Popen(["dbus-daemon", "--system", "--nofork", "--nopidfile", "--nosyslog"],
                                    stdout=self.bus_log, stderr=self.bus_log, env=clean_env())
        for _ in range(250):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                try:
                    c.connect(BUS_SOCKET)
                    return True
                except OSError:
                    time.sleep(0.02)
        return False

    def stop_bus(self):
        if self.bus and self.bus.poll() is None:
            self.bus.terminate()
            self.bus.wait()
        self.bus = None

    def busctl(self, *args):
        return sh("busctl", "--system", *args, check_rc=False, env=clean_env())

    def passcoded_pid(self):
        """passcoded's pid as the bus knows it (None: not running)."""
        r = self.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "GetConnectionUnixProcessID", "s", BUS_NAME)
        return int(r.stdout.split()[1]) if r.returncode == 0 else None

    def kill_passcoded(self, sig=signal.SIGTERM):
        pid = self.passcoded_pid()
        if pid:
            os.kill(pid, sig)
            for _ in range(500):
                if not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split(")")[1].split()[0] == "Z":
                    break
                time.sleep(0.01)
            for _ in range(300):  # the bus has let the name go
                if self.passcoded_pid() is None:
                    break
                time.sleep(0.01)
        return pid

    # -- passcodectl (installed) and the store
    def ctl(self, *args, stdin=None):
        return sh("passcodectl", *args, check_rc=False, input=stdin, env=clean_env())

    def state(self, user):
        """(failures, lockout seconds, reset required) from passcodectl status; None: no passcode."""
        out = self.ctl("status", user).stdout
        m = re.search(r"(\d+) failures?, lockout (-?\d+) (?:s|seconds?), reset (\S+)", out)
        if not m:
            return None
        return int(m.group(1)), int(m.group(2)), m.group(3) not in ("no", "not")

    def failures(self, user):
        s = self.state(user)
        return None if s is None else s[0]

    def store_path(self, user):
        return f"{STORE_ROOT}/{pwd.getpwnam(user).pw_uid}/login.db"

    def attempt_seq(self, user):
        """The store's committed attempt count, read as passcoded's own user (a read-only
        connection: no -wal or -shm of root's made)."""
        r = sh(*as_user(self.svc), "/usr/bin/python3", ATTEMPT_COUNT, self.store_path(user), check_rc=False, env=clean_env())
        try:
            return int(r.stdout.split()[-1])
        except (IndexError, ValueError):
            return None

    def cleanup(self):
        for t in list(LIVE):
            try:
                os.kill(t.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        pid = self.passcoded_pid() if self.bus else None
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.stop_bus()


class Syslog:
    """A syslog socket (AF_UNIX datagrams) and the lines it got, read by a thread."""

    def __init__(self, path):
        self.lines = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        os.chmod(path, 0o666)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            # "<pri>Mon dd hh:mm:ss ident[pid]: text": the text after the ident
            line = data.decode(errors="replace").rstrip("\n\0")
            self.lines.append(re.sub(r"^<\d+>(\w{3} [ \d]\d \d\d:\d\d:\d\d )?", "", line))

    def mark(self):
        time.sleep(0.05)  # what was sent before is read
        return len(self.lines)

    def since(self, mark, pattern=""):
        time.sleep(0.05)
        return [ln for ln in self.lines[mark:] if re.search(pattern, ln)]


ATTEMPT_COUNT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "service", "attempt_count.py")  # the committed count, read as passcoded's user

LIVE = []


def as_user(user):
    pw = pwd.getpwnam(user)
    return ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"]


def term(argv, user=None):
    t = Term(argv, user)
    LIVE.append(t)
    return t


def done(t, timeout=20):
    rc = t.finish(timeout)
    if t in LIVE:
        LIVE.remove(t)
    return rc


# The programs, each asked to authenticate `user` and print a marker when let in.
def sudo(m, user):
    return term(["/usr/bin/sudo", "-S", "/usr/bin/echo", "SUDO-OK"], user)


def su(m, target, run_as):
    return term(["/usr/bin/su", target, "-c", "echo SU-OK-$(id -un)"], run_as)


def login(m, user):
    t = term(["/usr/bin/login", user])
    return t


PASSWORD_PROMPT = {"sudo": r"\[sudo\] password for [^:]+: ", "su": r"Password: ", "login": r"Password: "}
# (login's marker is typed into its shell, which the terminal echoes: the match needs the name after it)
GRANTED = {"sudo": r"SUDO-OK", "su": r"SU-OK-[a-z]", "login": r"LOGIN-OK-[a-z]"}


def start(m, prog, user, run_as=None):
    if prog == "sudo":
        return sudo(m, user)
    if prog == "su":
        return su(m, user, run_as or user)
    return login(m, user)


def after_auth(prog, t):
    """A shell that login started: have it say who it is, and leave."""
    if prog == "login":
        if t.expect(r"\$ |# |This account", timeout=10):
            t.send("echo LOGIN-OK-$(id -un); exit\n")


def password_then_in(m, prog, t, user):
    """At the password prompt: the right password; True when the program then let the user in."""
    if not t.expect(PASSWORD_PROMPT[prog], timeout=15):
        return False
    t.send(m.password[user] + "\n")
    after_auth(prog, t)
    ok = t.expect(GRANTED[prog], timeout=15) is not None
    done(t)
    return ok


def passcoded_started_by_bus(m, pid):
    """True when `pid` is the installed passcoded as D-Bus activation starts it: the launch
    helper sets DBUS_STARTER_BUS_TYPE=system in its environment (the test never starts it)."""
    try:
        env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        exe = os.readlink(f"/proc/{pid}/exe")
    except (OSError, TypeError):
        return False
    return b"DBUS_STARTER_BUS_TYPE=system" in env and exe.endswith("/passcoded")


# pam_passcode's debug line for each authenticate: "authenticate USER: <pam_strerror(code)>".
RESULT = {"success": "Success", "auth_err": "Authentication failure", "maxtries": "Have exhausted maximum number of retries",
          "authinfo_unavail": "Authentication service cannot retrieve authentication info"}


def results(m, mark, prog, user, what):
    return len(m.syslog.since(mark, rf"pam_passcode\({prog}:auth\): authenticate {re.escape(user)}: {RESULT[what]}"))


def setup(m):
    a = m.a
    act = m.busctl("list", "--activatable")
    check("activatable", BUS_NAME in act.stdout, f"busctl --system list --activatable names {BUS_NAME}")
    st = m.ctl("--stdin", "set", a, stdin=PIN_A + "\n")
    m.ctl("--stdin", "set", m.b, stdin=PIN_B + "\n")
    pid = m.passcoded_pid()
    ruid = os.stat(f"/proc/{pid}").st_uid if pid else None
    check("started-by-activation", st.returncode == 0 and passcoded_started_by_bus(m, pid) and ruid == pwd.getpwnam(m.svc).pw_uid,
          f"passcodectl set {a}: '{st.stdout.strip()}'; passcoded (pid {pid}) started by the bus's activation "
          f"(DBUS_STARTER_BUS_TYPE=system in its environment), running as {m.svc}")
    # The README's sudo line: auth [success=done default=ignore] pam_passcode.so before @include common-auth.
    stock_sudo = open("/etc/pam.d/sudo").read()
    with open("/etc/pam.d/sudo", "w") as f:
        f.write(stock_sudo.replace("@include common-auth", "auth [success=done default=ignore] pam_passcode.so\n@include common-auth", 1))
    t = sudo(m, a)
    asked = t.expect(re.escape(PIN_PROMPT)) is not None
    t.send(PIN_A + "\n")
    got = t.expect("SUDO-OK") is not None
    rc = done(t)
    check("readme-sudo-line", asked and got and rc == 0 and "password for" not in t.out,
          f"/etc/pam.d/sudo with the README's line: sudo -S asked '{PIN_PROMPT.strip()}', the PIN let {a} in (exit {rc}), no password asked")
    note(f"the real sudo with the README's line, as {a}:\n$ sudo -S echo SUDO-OK\n" + t.out.replace(PIN_A, "<PIN>").strip())
    with open("/etc/pam.d/sudo", "w") as f:
        f.write(stock_sudo)
    # Every service, by the pam-auth-update profile make install put in place; then the
    # module's debug option on its line, for the return codes in the log.
    r = sh("pam-auth-update", "--enable", "passcode", check_rc=False, env=clean_env(DEBIAN_FRONTEND="noninteractive"))
    common = open("/etc/pam.d/common-auth").read()
    line = next((ln for ln in common.splitlines() if "pam_passcode" in ln), "")
    before_unix = common.find("pam_passcode") < common.find("pam_unix")
    check("pam-auth-update", r.returncode == 0 and line and before_unix,
          f"pam-auth-update --enable passcode: common-auth has '{' '.join(line.split())}' before pam_unix")
    with open("/etc/pam.d/common-auth", "w") as f:
        f.write(common.replace(line, line.rstrip() + " debug"))


def basics(m):
    a, b, c = m.a, m.b, m.c
    # The PIN, right and wrong, through sudo, su (the user's own) and login.
    for prog in ("sudo", "su", "login"):
        t = start(m, prog, a)
        asked = t.expect(re.escape(PIN_PROMPT)) is not None
        t.send(PIN_A + "\n")
        after_auth(prog, t)
        got = t.expect(GRANTED[prog]) is not None
        rc = done(t)
        check(f"{prog}-right-pin", asked and got and not re.search(PASSWORD_PROMPT[prog], t.out) and m.failures(a) == 0,
              f"{prog} asked '{PIN_PROMPT.strip()}', the right PIN let {a} in, no password asked (exit {rc})")
        before, mark = m.failures(a), m.syslog.mark()
        t = start(m, prog, a)
        asked = t.expect(re.escape(PIN_PROMPT)) is not None
        t.send(f"11111{len(prog)}\n")
        inn = password_then_in(m, prog, t, a)
        check(f"{prog}-wrong-pin-counted", asked and inn and m.failures(a) == before + 1 and results(m, mark, prog, a, "auth_err") == 1,
              f"a wrong PIN: PAM_AUTH_ERR, failures {before} -> {m.failures(a)}, then the password prompt, and the password let {a} in")
        if prog == "login":
            note("the real login on a pty, a wrong PIN then the password:\n"
                 + "\n".join(ln for ln in t.out.replace(m.password[a], "<password>").strip().splitlines()
                             if ln.strip() and not ln.startswith(("The programs", "the exact", "individual", "Debian GNU", "permitted"))))
    m.ctl("reset", a)
    # A user with no PIN: straight to the password.
    for prog in ("sudo", "su", "login"):
        mark = m.syslog.mark()
        t = start(m, prog, c)
        inn = password_then_in(m, prog, t, c)
        check(f"{prog}-no-pin-password", inn and PIN_PROMPT.strip() not in t.out and results(m, mark, prog, c, "authinfo_unavail") == 1,
              f"{c} (no PIN): no passcode prompt (PAM_AUTHINFO_UNAVAIL, ignored), the password prompt, let in")
    # runuser: root's, and its PAM file begins with pam_rootok: nothing asked.
    before, mark = m.attempt_seq(a), m.syslog.mark()
    r = sh("runuser", "-u", a, "--", "id", "-un", check_rc=False, env=clean_env())
    r2 = sh(*as_user(b), "runuser", "-u", a, "--", "id", "-un", check_rc=False, env=clean_env())
    check("runuser-not-authenticating", r.returncode == 0 and r.stdout.strip() == a and PIN_PROMPT.strip() not in r.stdout + r.stderr
          and m.attempt_seq(a) == before and r2.returncode != 0 and not m.syslog.since(mark, "pam_passcode"),
          f"root's runuser -u {a}: '{r.stdout.strip()}', nothing asked, the module not called (pam_rootok is sufficient), "
          f"nothing counted; as {b}: exit {r2.returncode} '{r2.stderr.strip()}'")
    # Another user's su: nothing asked, nothing counted.
    before, seq, mark = m.failures(a), m.attempt_seq(a), m.syslog.mark()
    t = su(m, a, b)
    inn = password_then_in(m, "su", t, a)
    refused = m.syslog.since(mark, rf"pam_passcode\(su:auth\): uid {pwd.getpwnam(b).pw_uid} may not use uid {pwd.getpwnam(a).pw_uid}'s passcode")
    check("su-other-user-no-guess", inn and PIN_PROMPT.strip() not in t.out and m.failures(a) == before and m.attempt_seq(a) == seq
          and refused and results(m, mark, "su", a, "authinfo_unavail") == 0,
          f"{b}'s su {a}: no passcode prompt, the module refused before asking ('{refused[0].split(': ', 1)[-1] if refused else None}', "
          f"PAM_AUTHINFO_UNAVAIL), only the password; {a}'s failures {before} -> {m.failures(a)}, attempts {seq} -> {m.attempt_seq(a)}")
    note(f"{b}'s su {a}:\n" + t.out.replace(m.password[a], "<password>").strip())


def tests(m):
    """The parts (PAM_SYSTEM_ONLY=part: that one alone, after the set-up they share)."""
    only = os.environ.get("PAM_SYSTEM_ONLY") or ""
    setup(m)
    if only == "shell":  # a debugging aid: PAM_SYSTEM_CMD run in the machine set up
        r = sh("sh", "-c", os.environ.get("PAM_SYSTEM_CMD", "true"), check_rc=False)
        print(r.stdout, r.stderr)
    if only in ("", "basics"):
        basics(m)
    if only in ("", "concurrency"):
        concurrency(m, m.a, PIN_A)
    if only in ("", "kill"):
        killed_mid_verify(m, m.k, PIN_K)
    if only in ("", "faults"):
        bad_input(m, m.a, PIN_A, m.c)
    if only in ("", "fingerprint"):
        pam_system_fingerprint.run(m, sys.modules[__name__])


def at_prompts(m, progs, user):
    """Starts each program for `user`, waits until every one shows the PIN prompt."""
    ts = [(p, start(m, p, user)) for p in progs]
    asked = [t.expect(re.escape(PIN_PROMPT)) is not None for _, t in ts]
    return ts, all(asked)


def answer_all(m, ts, guesses, user):
    """Every program gets its guess at once, then the password; the programs the password let in."""
    for (_, t), g in zip(ts, guesses):
        t.send(g + "\n")
    return sum(password_then_in(m, prog, t, user) for prog, t in ts)


def concurrency(m, a, pin):
    m.ctl("reset", a)
    seq0, mark = m.attempt_seq(a), m.syslog.mark()
    first = mark
    ts, asked = at_prompts(m, ["sudo"] * 10, a)
    inn = answer_all(m, ts, [f"2{i:05d}" for i in range(10)], a)
    wrong, locked = results(m, mark, "sudo", a, "auth_err"), results(m, mark, "sudo", a, "maxtries")
    f, seq = m.failures(a), m.attempt_seq(a)
    check("ten-sudo-every-wrong-counted", asked and wrong == f == seq - seq0 == 5 and locked == 5 and inn == 10,
          f"ten sudo of {a}, all at the PIN prompt, ten wrong PINs at once: {wrong} wrong answers (PAM_AUTH_ERR), {locked} "
          f"refused as locked out (PAM_MAXTRIES); failures counted {f}, attempts in the store {seq0} -> {seq}; "
          f"each went on to the password and was let in")
    note(f"wrong answers obtained by ten parallel sudo: {wrong} (then the lockout); failures counted: {f}")
    # A lockout, each program: su and login say it, sudo (PAM_SILENT) shows nothing; then the password.
    for prog in ("sudo", "su", "login"):
        mark = m.syslog.mark()
        t = start(m, prog, a)
        said = t.expect(LOCKED.pattern, timeout=0 if prog == "sudo" else 15)
        inn = password_then_in(m, prog, t, a)
        maxtries = results(m, mark, prog, a, "maxtries") == 1
        if prog == "sudo":
            check("sudo-lockout-silent-then-password", said is None and "Passcode" not in t.out and inn and maxtries,
                  f"PAM_MAXTRIES; sudo calls PAM with PAM_SILENT, so the module shows no text: '{t.tail(2)}'; the password let {a} in")
        else:
            check(f"{prog}-lockout-then-password", said is not None and inn and maxtries and PIN_PROMPT.strip() not in t.out,
                  f"'{said.group(0) if said else None}' (PAM_MAXTRIES), no passcode asked, then the password let {a} in")
    # sudo, su and login together, the clock moved past each lockout: at most 10 guesses ever
    # reach the hash (the store's attempts), then a reset is required. A program that loses the
    # race to the verify says the lockout with its wait, as one refused before the prompt does.
    rounds, texts, bare = 0, set(), 0
    while rounds < 12:
        rounds += 1
        m.set_clock(m.clock + 2 * 86400)
        ts, asked = at_prompts(m, ["sudo", "su", "login", "sudo"], a)
        if not asked:
            for _, t in ts:
                done(t, timeout=2)
            break
        answer_all(m, ts, [f"3{rounds:02d}{i:03d}" for i in range(4)], a)
        texts |= {mt.group(0) for _, t in ts for mt in [LOCKED.search(t.out)] if mt}
        bare += sum("Passcode locked.\n" in t.out for _, t in ts)
        st = m.state(a)
        if st and st[2]:
            break
    st = m.state(a)
    evaluated = m.attempt_seq(a) - seq0
    wrong = sum(results(m, first, prog, a, "auth_err") for prog in ("sudo", "su", "login"))
    t = su(m, a, a)
    said = t.expect(re.escape(RESET_TEXT), timeout=15)
    inn = password_then_in(m, "su", t, a)
    check("at-most-ten-then-reset", evaluated == 10 and wrong in (9, 10) and st and st[0] == 10 and st[2] and said and inn,
          f"sudo, su, login and sudo at once each round, {rounds} rounds, the clock moved past each lockout: {evaluated} guesses "
          f"reached the hash in all (answered: {wrong} wrong, {10 - wrong} 'reset required' at the tenth), failures {st and st[0]}, "
          f"reset required; then su says '{RESET_TEXT}...' and the password lets {a} in")
    check("lockout-text-has-the-wait", texts and not bare,
          f"the programs that lost a race to the verify said {sorted(texts)}; without the wait: {bare}")
    note(f"guesses that got an answer, by sudo, su and login together (the ten sudo included): {evaluated} (at most 10: "
         f"{wrong} 'wrong', then 'a reset is required'), then the reset")
    rs = m.ctl("reset", a)
    t = sudo(m, a)
    t.expect(re.escape(PIN_PROMPT))
    t.send(pin + "\n")
    got = t.expect("SUDO-OK") is not None
    done(t)
    check("reset-then-pin", rs.returncode == 0 and got and m.failures(a) == 0, f"passcodectl reset {a}: '{rs.stdout.strip()}'; the PIN works again")
    m.set_clock(0)


def killed_mid_verify(m, k, pin):
    # k's PIN hashed at a higher Argon2 cost (passcoded restarted with it, then back): a verify
    # long enough for the kill to land inside it.
    m.write_conf(ops=3, mem=64 << 20)
    m.kill_passcoded()
    st = m.ctl("--stdin", "set", k, stdin=pin + "\n")
    m.write_conf()
    m.kill_passcoded()
    t = sudo(m, k)
    asked = t.expect(re.escape(PIN_PROMPT)) is not None
    pid = m.passcoded_pid()  # activated by the module's first call, before the prompt
    watch = subprocess.Popen([*as_user(m.svc), "/usr/bin/python3", ATTEMPT_COUNT, m.store_path(k), "--wait", "30"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/", env=clean_env())
    base = int(watch.stdout.readline().split()[1])
    watch.stdin.write("go\n")
    watch.stdin.flush()
    mark = m.syslog.mark()
    t.send(pin + "\n")
    counted = watch.stdout.readline().strip() == "COUNTED"
    watch.wait()
    if pid:
        os.kill(pid, signal.SIGKILL)
    inn = password_then_in(m, "sudo", t, k)
    f = m.failures(k)
    unavail = results(m, mark, "sudo", k, "authinfo_unavail")
    check("killed-mid-verify-counted", st.returncode == 0 and asked and counted and inn and f == 1 and unavail == 1,
          f"sudo of {k}, the right PIN; passcoded (pid {pid}) SIGKILLed once the attempt was in the store (attempts {base} -> "
          f"{base + 1}): no answer (PAM_AUTHINFO_UNAVAIL), so sudo went on to the password and let {k} in; failures {f} (the attempt kept)")
    t = sudo(m, k)
    asked = t.expect(re.escape(PIN_PROMPT)) is not None
    t.send(pin + "\n")
    got = t.expect("SUDO-OK") is not None
    done(t)
    new = m.passcoded_pid()
    check("restarted-by-activation", asked and got and new and new != pid and passcoded_started_by_bus(m, new) and m.failures(k) == 0,
          f"the next sudo: the PIN asked and let {k} in, failures 0; passcoded pid {new}, started again by the bus's activation")


# What the module's log names as the reason passcoded cannot be reached, in each fault.
REASON = {"passcoded-fails-to-start": r".*(Spawn|exited)", "passcoded-not-installed": r"(passcoded is not on the system bus|.*ServiceUnknown)",
          "no-system-bus": r".*cannot connect to the system bus"}


def bad_input(m, a, pin, c):
    # A user that does not exist: login asks for the password as for anyone, and refuses after
    # its 3 s delay (pam_faildelay), read at the end: the checks below run meanwhile.
    nosuch = login(m, f"{PREFIX}-nosuch")
    nosuch_asked = nosuch.expect(PASSWORD_PROMPT["login"]) is not None
    nosuch.send("000000\n")
    t = su(m, f"{PREFIX}-nosuch", a)
    rc = done(t)
    check("su-no-such-user", rc != 0 and PIN_PROMPT.strip() not in t.out and "Password" not in t.out,
          f"su of a user that does not exist: '{t.tail(1)}' (exit {rc}), nothing asked")
    # Not a passcode, typed at the real su (sudo is silent): nothing, a NUL (the answer ends at
    # it), digits around a NUL, a line longer than any passcode, a non-digit.
    seq = m.attempt_seq(a)
    for label, typed in (("nothing", b"\n"), ("a NUL", b"\x00\n"), ("digits, a NUL, digits", b"04\x008213\n"),
                         ("a long line", b"1" * 4000 + b"\n"), ("a non-digit", b"04821x\n")):
        t = su(m, a, a)
        t.expect(re.escape(PIN_PROMPT))
        t.send(typed)
        said = t.expect(r"The passcode is 6 digits\.", timeout=10) is not None
        inn = password_then_in(m, "su", t, a)
        check(f"not-a-passcode {label}", said and inn and m.attempt_seq(a) == seq,
              f"su: 'The passcode is 6 digits.', nothing counted (attempts {seq} -> {m.attempt_seq(a)}), the password let {a} in")
    # passcoded that cannot start, then not installed, then no bus at all: no PIN asked, the
    # password path open, no count lost or invented, the module's message in the log.
    f0, seq0 = m.failures(a), m.attempt_seq(a)
    m.kill_passcoded()
    m.write_conf(extra="no such key = 1\n")
    for label in ("passcoded-fails-to-start", "passcoded-not-installed", "no-system-bus"):
        if label == "passcoded-not-installed":
            m.write_conf()
            service_file = next(f for d in ("/usr/share/dbus-1/system-services", "/usr/local/share/dbus-1/system-services")
                                for f in [f"{d}/{BUS_NAME}.service"] if os.path.exists(f))
            aside = f"{WORK}/activation-file-aside"
            shutil.move(service_file, aside)
            m.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
        elif label == "no-system-bus":
            shutil.move(aside, service_file)
            m.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
            m.stop_bus()
        mark = m.syslog.mark()
        unreach = m.ctl("status", a)
        t = sudo(m, a)
        inn = password_then_in(m, "sudo", t, a)
        logged = m.syslog.since(mark, r"pam_passcode\(sudo:auth\): passcoded unreachable: " + REASON[label])
        check(label, inn and PIN_PROMPT.strip() not in t.out and unreach.returncode == 3 and logged,
              f"sudo asks only the password, which lets {a} in; the module: PAM_AUTHINFO_UNAVAIL, its log says why: "
              f"'{logged[0].split('): ', 1)[-1][:150] if logged else None}'; passcodectl: exit {unreach.returncode}")
    m.start_bus()
    check("faults-nothing-counted", m.failures(a) == f0 and m.attempt_seq(a) == seq0,
          f"after the three: failures {f0} -> {m.failures(a)}, attempts {seq0} -> {m.attempt_seq(a)}")
    # The library gone from the loader's cache: libpam cannot load the module, and says so in the log.
    lib = os.path.realpath(next(p for p in sh("ldconfig", "-p").stdout.split() if "libpasscode.so.0" in p and p.startswith("/")))
    aside = f"{WORK}/libpasscode-aside"
    shutil.move(lib, aside)
    sh("ldconfig")
    mark = m.syslog.mark()
    t = sudo(m, a)
    inn = password_then_in(m, "sudo", t, a)
    said = m.syslog.since(mark, r"unable to dlopen\(.*pam_passcode\.so\).*|libpasscode\.so\.0")
    check("library-missing-logged", inn and PIN_PROMPT.strip() not in t.out and said,
          f"libpasscode.so.0 not in the loader's cache: only the password asked (lets {a} in); the log: "
          f"{' / '.join(x[:120] for x in said[:2])}")
    shutil.move(aside, lib)
    sh("ldconfig")
    # pam_passcode first and the password module missing (a stack that names a module not there).
    stock_sudo = open("/etc/pam.d/sudo").read()
    with open("/etc/pam.d/sudo", "w") as f:
        f.write("auth [success=done default=ignore] pam_passcode.so debug\nauth required pam_ppsys_missing.so\n"
                "@include common-account\n@include common-session-noninteractive\n")
    f0, mark = m.failures(a), m.syslog.mark()
    t = sudo(m, a)
    asked = t.expect(re.escape(PIN_PROMPT)) is not None
    t.send("123450\n")
    rc = done(t)
    wrong_out = t.out
    f1 = m.failures(a)
    t = sudo(m, a)
    asked2 = t.expect(re.escape(PIN_PROMPT)) is not None
    t.send(pin + "\n")
    got = t.expect("SUDO-OK") is not None
    rc2 = done(t)
    missing = m.syslog.since(mark, r"pam_ppsys_missing")
    check("missing-password-module", asked and rc != 0 and "SUDO-OK" not in wrong_out and f1 == f0 + 1 and asked2 and got
          and m.failures(a) == 0 and missing,
          f"pam_passcode, then a module that is not there: a wrong PIN counted once ({f0} -> {f1}) and refused "
          f"('{' '.join(wrong_out.strip().splitlines()[-1:])}', exit {rc}); the right PIN lets {a} in (exit {rc2}); "
          f"libpam's log: '{missing[0][:100] if missing else None}'")
    with open("/etc/pam.d/sudo", "w") as f:
        f.write(stock_sudo)
    refused = nosuch.expect("Login incorrect", timeout=15) is not None
    done(nosuch, timeout=1)
    check("login-no-such-user", nosuch_asked and refused and PIN_PROMPT.strip() not in nosuch.out,
          "login of a user that does not exist: no passcode prompt (PAM_USER_UNKNOWN, ignored), the password prompt, "
          "'Login incorrect' (after login's delay, while the checks above ran)")


def summary(paths):
    """The paths, one a line; a folder's man pages and HTML files as one line with their count."""
    out, groups = [], {}
    for p in paths:
        d = os.path.dirname(p)
        if re.search(r"/man/man3$|/html(/|$)", d):
            key = re.sub(r"/html/.*", "/html", d)
            groups[key] = groups.get(key, 0) + 1
        else:
            out.append(p)
    return "\n".join(sorted(out + [f"{d}/ ({n} files)" for d, n in groups.items()]))


def uninstall(m):
    """make uninstall-service and make uninstall (the same variables as the install) leave none
    of the files the install made, and the PAM stack without the module."""
    if sh("make", "-C", m.repo, "-n", "uninstall-service", check_rc=False).returncode != 0:
        note("no make uninstall-service in this Makefile: the uninstall is not checked")
        if os.environ.get("PASSCODE_SKIPPED"):
            with open(os.path.join(os.environ["PASSCODE_SKIPPED"], "parts"), "a") as f:
                f.write(f"{GROUP}: make uninstall and uninstall-service (no make uninstall-service in the Makefile)\n")
        return
    # The stack as pam-auth-update wrote it (the debug option off), so that it may change it again.
    with open("/etc/pam.d/common-auth") as f:
        common = f.read()
    with open("/etc/pam.d/common-auth", "w") as f:
        f.write(common.replace("pam_passcode.so debug", "pam_passcode.so"))
    m.kill_passcoded()
    rcs = []
    for target in ("uninstall-service", "uninstall"):
        r = sh("make", "-C", m.repo, "--no-print-directory", target, *m.vars, check_rc=False, env=clean_env(HOME="/root"))
        rcs.append(r.returncode)
        if r.returncode != 0:
            note(f"make {target}: {(r.stdout + r.stderr)[-600:]}")
    left = [p for p in m.created if os.path.lexists(p)]
    in_stack = [f for f in os.listdir("/etc/pam.d") if "pam_passcode" in open(f"/etc/pam.d/{f}").read()]
    check("uninstall-leaves-nothing", rcs == [0, 0] and not left and not in_stack,
          f"make uninstall-service and make uninstall (exit {rcs}): of the {len(m.created)} files the install made, "
          f"left: {left[:8]}; PAM files still naming pam_passcode: {in_stack}")


def inside(build, repo, marker):
    print(f"NAMESPACE {os.readlink('/proc/self/ns/mnt')}", flush=True)
    m = Machine(build, repo)
    def on_term(signum, frame):
        raise SystemExit(f"{GROUP}: terminated (signal {signum}); cleaning up")

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    t0 = time.monotonic()
    try:
        if not m.pamdir:
            print(f"FAIL pam-dir: libpam's module directory not found (no pam_unix.so)")
            return 1
        m.mount()
        for top in ("etc", "usr", "var", "run", "dev"):
            open(f"/{top}/.{marker}", "w").close()
        m.add_user(m.svc, system=True)
        for u in (m.a, m.b, m.c, m.k):
            m.add_user(u)
        m.install()
        note("make install and make install-service made, in the namespace:\n" + summary(m.created))
        m.configure()
        cached = re.search(r"libpasscode\.so\.0 \(.*\) => (\S+)", sh("ldconfig", "-p").stdout)
        made = {os.path.realpath(p) for p in m.created}
        check("module-where-libpam-reads", os.path.realpath(f"{m.pamdir}/pam_passcode.so") in made
              and cached and os.path.realpath(cached.group(1)) in made,
              f"{m.pamdir}/pam_passcode.so; the loader's cache finds libpasscode.so.0 at {cached and cached.group(1)}")
        if not check("system-bus", m.start_bus(), f"dbus-daemon --system ({SYSTEM_CONF}) listening on {BUS_SOCKET}"):
            return 1
        tests(m)
        uninstall(m)
    finally:
        m.cleanup()
        if os.environ.get("PAM_SYSTEM_DEBUG"):
            print(open(f"{WORK}/bus.log").read()[-3000:])
            print("\n".join(ln for ln in m.syslog.lines if "pam_passcode" in ln))
        if os.path.isdir(OVERLAY):
            for p in m.written():
                print(f"WROTE {p}", flush=True)
    print(f"{GROUP}: {len(failures)} failed" + (": " + ", ".join(failures) if failures else "")
          + f" ({time.monotonic() - t0:.1f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--inside":
        sys.exit(inside(*sys.argv[2:]))
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(outer(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
