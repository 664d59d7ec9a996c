"""A private system-like bus with service/'s policy, the checkout's passcoded on it, and users made
for the test: the one copy of that setup, used by Tests/service/test_service.py and
Tests/pam/test_pam.py (as root).

    with PrivateService(passcoded, repo, users="pch4", folder="passcoded-test.") as rig:
        svc = rig.add_user(rig.service_user, system=True)
        rig.set_clock(0)
        rig.write_root_file(rig.config_file, f"store_root = {rig.store_root}\\nuser = {rig.service_user}\\n")
        rig.start_bus()
        rig.start_daemon()
        ... rig.address (DBUS_SYSTEM_BUS_ADDRESS), rig.as_user(name) + [command] ...

Everything it makes is named after `users` (the users: "<users>-svc", "<users>-a", ...) or lives
in its temporary folder (`folder` is the folder's name prefix), and cleanup() (also leaving the
with block, an exception or SIGTERM) stops every process in `procs`, deletes the users it made
and removes the folder."""
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

# What a system bus lets anyone do, as the distribution's system.conf says; the service's own
# policy (service/org.libpasscode.Passcode1.conf) is included after it.
DEFAULT_POLICY = """    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
"""


def write_root_file(path, text, mode=0o644):
    """Writes `text` to `path` (root's, `mode`: others may read it, only root write it)."""
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def as_user(user):
    """The command prefix that runs a command as `user` (its uid, its group, no other group);
    none for None or "root"."""
    if user is None or user == "root":
        return []
    pw = pwd.getpwnam(user)
    return ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"]


class PrivateService:
    """The bus, the daemon and the users of one test run. `users` is the users' name prefix,
    `folder` the temporary folder's; `name` says whose run it is in the messages."""

    def __init__(self, passcoded, repo, users, folder, name="test", parent=None):
        self.passcoded, self.repo, self.prefix, self.name = passcoded, repo, users, name
        self.service_user = f"{users}-svc"
        self.top = tempfile.mkdtemp(prefix=folder, dir=parent)
        os.chmod(self.top, 0o711)  # traversable by the test users (the bus socket) and the service user
        self.store_root = os.path.join(self.top, "stores")
        self.socket_path = os.path.join(self.top, "bus")
        self.address = "unix:path=" + self.socket_path
        self.bus_config = os.path.join(self.top, "bus.conf")
        self.clock_file = os.path.join(self.top, "clock-offset")
        self.config_file = os.path.join(self.top, "passcoded.conf")
        self.log_path = os.path.join(self.top, "daemon.log")
        self.procs = {}
        self.made = []  # the users it made
        self.clock = 0
        self._cleaned = False
        self._old_sigterm = signal.signal(signal.SIGTERM, self._on_sigterm)

    def _on_sigterm(self, signum, frame):
        raise SystemExit(f"{self.name}: terminated (SIGTERM); cleaning up")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def user(self, suffix):
        """The name of the test's user `suffix`: "<users>-<suffix>"."""
        return f"{self.prefix}-{suffix}"

    def add_user(self, name, system=False):
        """Makes the user `name` (a leftover of an earlier run deleted first): no home, no shell,
        a group of its own; deleted by cleanup. Returns its passwd entry."""
        subprocess.run(["userdel", name], stderr=subprocess.DEVNULL)
        subprocess.run(["useradd", "--system" if system else "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "--user-group", name], check=True)
        self.made.append(name)
        return pwd.getpwnam(name)

    write_root_file = staticmethod(write_root_file)
    as_user = staticmethod(as_user)

    def set_clock(self, seconds):
        """Moves the service's clock to `seconds` past the real one (the root-owned offset file
        named by clock_offset_file in the daemon's configuration)."""
        self.clock = seconds
        write_root_file(self.clock_file, f"{seconds}\n")

    def start_bus(self, extra_policy="", stderr=None, policies=""):
        """Writes the bus configuration (DEFAULT_POLICY, then `extra_policy`, lines of the default
        context; `policies`, whole <policy> elements; then the service's policy) and starts
        dbus-daemon on the socket, which anyone may connect to."""
        write_root_file(self.bus_config, f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>{self.address}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
{DEFAULT_POLICY}{extra_policy}  </policy>
{policies}  <include>{self.repo}/service/org.libpasscode.Passcode1.conf</include>
</busconfig>
""")
        self.procs["bus"] = subprocess.Popen(["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + self.bus_config],
                                             stderr=stderr)
        for _ in range(200):
            if os.path.exists(self.socket_path):
                os.chmod(self.socket_path, 0o666)
                return
            time.sleep(0.05)
        raise SystemExit(f"{self.name}: the private bus did not start")

    def start_daemon(self, wrapper=()):
        """Starts passcoded (`wrapper`: a command it runs under) with config_file on the bus, its
        stderr appended to log_path, and waits for this start's own "ready" line (the log keeps
        the earlier starts' lines). Returns the process (also procs["daemon"])."""
        before = self.log_text().count("ready")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)
        log = open(self.log_path, "a")
        p = subprocess.Popen(list(wrapper) + [self.passcoded, "--config", self.config_file], env=env, stderr=log, text=True)
        log.close()
        self.procs["daemon"] = p
        for _ in range(200):
            if self.log_text().count("ready") > before or p.poll() is not None:
                break
            time.sleep(0.05)
        if self.log_text().count("ready") <= before:
            raise SystemExit(f"{self.name}: passcoded did not start: {self.log_text()[-2000:]}")
        return p

    def stop_daemon(self, sig=signal.SIGTERM):
        """Sends passcoded `sig` and waits for it to end."""
        p = self.procs.get("daemon")
        if p and p.poll() is None:
            p.send_signal(sig)
            p.wait()

    def daemon_alive(self):
        return "daemon" in self.procs and self.procs["daemon"].poll() is None

    def log_text(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def env(self, **extra):
        """The environment of a client of the private bus."""
        return dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address, **extra)

    def cleanup(self):
        """Kills every process in procs still running, deletes the users it made, removes the
        folder. Safe to call twice."""
        if self._cleaned:
            return
        self._cleaned = True
        for p in list(self.procs.values()):
            if p.poll() is None:
                p.kill()
                p.wait()
        for u in self.made:
            r = subprocess.run(["userdel", "-f", u], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{self.name}: cleanup: userdel {u} failed: {r.stderr.strip()}", flush=True)
        shutil.rmtree(self.top, ignore_errors=True)
        signal.signal(signal.SIGTERM, self._old_sigterm)

