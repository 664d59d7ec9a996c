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

Run as a program it is `make try-service` (scripts/try-service.sh): main() below.

Everything it makes is named after `users` (the users: "<users>-svc", "<users>-a", ...) or lives
in its temporary folder (`folder` is the folder's name prefix), and cleanup() (also leaving the
with block, an exception or SIGTERM) stops every process in `procs`, deletes the users it made
and removes the folder."""
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
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


def privileged_port():
    """A free loopback port below 1024, for a test's mail relay: passcoded takes a relay without
    STARTTLS only on loopback at a port no user may bind (passcoded(8)); the tests run as root."""
    for candidate in range(1023, 600, -1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return candidate
    raise RuntimeError("no free privileged loopback port for the mail relay")


def write_root_file(path, text, mode=0o644):
    """Writes `text` to `path` (root's, `mode`: others may read it, only root write it)."""
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def free_port_pair():
    """Two consecutive free loopback ports (swtpm's server and its control), chosen by the kernel."""
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port > 65000:
                continue
            try:
                with socket.socket() as b:
                    b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise SystemExit("no two free loopback ports for swtpm")


def start_swtpm(top, name):
    """An swtpm on loopback in the folder `top`/`name` (as Tests/c/test_tpm.c starts them);
    returns (its folder, its TCTI)."""
    folder = os.path.join(top, name)
    os.mkdir(folder, 0o700)
    port = free_port_pair()
    tcti = f"swtpm:host=127.0.0.1,port={port}"
    subprocess.run(["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={folder}",
                    "--server", f"type=tcp,port={port},bindaddr=127.0.0.1", "--ctrl", f"type=tcp,port={port + 1},bindaddr=127.0.0.1",
                    "--flags", "not-need-init,startup-clear", "--daemon", "--pid", f"file={folder}/pid", "--log", f"file={folder}/log"],
                   check=True)
    for _ in range(100):
        if subprocess.run(["tpm2_getcap", "-T", tcti, "properties-fixed"], capture_output=True).returncode == 0:
            return folder, tcti
        time.sleep(0.05)
    raise SystemExit(f"swtpm {name} does not answer")


def stop_swtpm(folder):
    try:
        os.kill(int(open(os.path.join(folder, "pid")).read().strip()), signal.SIGTERM)
    except (OSError, ValueError):
        pass


def pin_index(tcti):
    """The PIN_FAIL index on `tcti` (a fresh swtpm has the one store's alone), or None."""
    out = subprocess.run(["tpm2_nvreadpublic", "-T", tcti], capture_output=True, text=True).stdout
    index, found, in_attributes = None, None, False
    for line in out.splitlines():
        if line and not line[0].isspace() and line.rstrip().endswith(":"):
            index = line.rstrip()[:-1]
        elif line.strip() == "attributes:":
            in_attributes = True
        elif in_attributes and line.strip().startswith("value:"):
            in_attributes = False
            if (int(line.split(":")[1], 16) >> 4) & 0xF == 8 and index:  # TPM_NT_PIN_FAIL
                found = index
    return found


def pin_counts(tcti, owner_file, index):
    """(pinCount, pinLimit) of `index`, read with the owner authorization (root's file, on stdin)."""
    r = subprocess.run(f"xxd -r -p {owner_file} | tpm2_nvread -T {tcti} -C o -P file:- -s 8 {index} | xxd -p",
                       shell=True, capture_output=True, text=True)
    text = r.stdout.strip()
    return (int(text[:8], 16), int(text[8:], 16)) if len(text) == 16 else None


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

    def set_clock(self, seconds, frozen=False, boot=0):
        """Moves the service's clock to `seconds` past the real one (the root-owned offset file
        named by clock_offset_file in the daemon's configuration); `frozen`: standing still but
        for the offset (from the real time passcoded first read it frozen); `boot`: the machine
        as after its boot-th restart, a boot id of its own (0: this boot)."""
        self.clock = seconds
        write_root_file(self.clock_file, f"{seconds}{' frozen' if frozen else ''}{f' boot={boot}' if boot else ''}\n")

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


# make try-service: the bus's policy beyond the default. fprintd's and logind's names may be owned
# by root, as their own policies let them (a fprintd, or the GTK tests' templates, started as
# root with DBUS_SYSTEM_BUS_ADDRESS set); anyone may call them.
TRY_POLICY = """    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="net.reactivated.Fprint"/>
    <allow send_destination="org.freedesktop.login1"/>
"""
TRY_POLICIES = """  <policy user="root"><allow own="net.reactivated.Fprint"/><allow own="org.freedesktop.login1"/></policy>
"""


def main(argv):
    """make try-service: service mode tried without installing anything. As root (passcoded
    starts as root and drops to a user of its own), a private system-like bus with the checkout's
    bus policy and the checkout's passcoded on it, stores in a temporary folder under /tmp, a
    throwaway service user; prints the bus address; runs COMMAND (default: a shell) as the user
    who called sudo with DBUS_SYSTEM_BUS_ADDRESS set to that bus; removes the bus, the daemon, the
    stores and the user when COMMAND ends, and exits with its status. TRY_SERVICE_CONF: lines
    added to passcoded.conf (a mail relay, fprint_timeout, ...: passcoded(8)).

        [TRY_SERVICE_CONF='fprint_timeout = 5'] harness.py PASSCODED [COMMAND...]"""
    if len(argv) < 2:
        print("usage: [TRY_SERVICE_CONF=...] scripts/try-service.sh PASSCODED [COMMAND...]", file=sys.stderr)
        return 2
    passcoded, command = argv[1], argv[2:] or [os.environ.get("SHELL") or "/bin/sh"]
    if os.geteuid() != 0:
        print("try-service: run it as root (sudo make try-service): passcoded starts as root and drops to a user of its own",
              file=sys.stderr)
        return 2
    for tool in ("dbus-daemon", "useradd", "userdel", "setpriv"):
        if not shutil.which(tool):
            print(f"try-service: {tool} is missing (apt-get install dbus-daemon passwd util-linux)", file=sys.stderr)
            return 2
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # Under /tmp: every folder above the stores must be reachable by the service user and
    # writable by root alone (the library's folder check).
    rig = PrivateService(os.path.abspath(passcoded), repo, users=f"passcode-try-{os.getpid()}", folder="passcode-try.",
                         name="try-service", parent="/tmp")
    try:
        rig.add_user(rig.service_user, system=True)
        conf = f"store_root = {rig.store_root}\nuser = {rig.service_user}\n"
        if os.environ.get("TRY_SERVICE_CONF"):
            conf += os.environ["TRY_SERVICE_CONF"] + "\n"
        write_root_file(rig.config_file, conf)
        with open(os.path.join(rig.top, "bus.log"), "w") as bus_log:
            rig.start_bus(TRY_POLICY, stderr=bus_log, policies=TRY_POLICIES)
        rig.start_daemon()
        print(f"""try-service: passcoded runs on a private bus, as {rig.service_user}, stores in {rig.store_root}
  DBUS_SYSTEM_BUS_ADDRESS={rig.address}
  from C:      passcode_options_set_service(opts, "org.example.App") before passcode_open
  from Python: passcode.Store("org.example.App", service="org.example.App")
  the methods: busctl --address={rig.address} introspect org.libpasscode.Passcode1 /org/libpasscode/Passcode1
  passcoded's log: {rig.log_path}; leave the shell (exit) to stop everything""", file=sys.stderr, flush=True)
        run_as = os.environ.get("SUDO_USER") or "root"
        env = rig.env()
        if run_as != "root":
            pw = pwd.getpwnam(run_as)
            env.update(HOME=pw.pw_dir, USER=run_as)
            command = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", "--"] + command
        # While COMMAND runs, ^C is its own (an interactive shell's), and SIGTERM is passed on to
        # it; the bus and passcoded go when it has ended.
        child = subprocess.Popen(command, env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signal.SIGTERM))
        rc = child.wait()
        return rc if rc >= 0 else 128 - rc
    finally:
        rig.cleanup()
        print(f"try-service: stopped; the bus, passcoded, its stores and the user {rig.service_user} are gone", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
