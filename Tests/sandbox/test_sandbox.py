#!/usr/bin/python3
"""make test-sandbox (root): apps in a sandbox reach passcoded as a Flatpak's do, and each is
confined to the app id its sandbox names.

The sandbox is built as flatpak builds one, from Debian's bubblewrap and xdg-dbus-proxy:
xdg-dbus-proxy runs as the user in a bubblewrap of its own holding a /.flatpak-info that names
the app, filtering the bus with --talk=org.libpasscode.Passcode1; the app runs in a second
bubblewrap where the proxy's socket is bound at /run/dbus/system_bus_socket. passcoded runs on
the test's private bus outside (Tests/service/harness.py), started as root and dropping to its
own user as it ships. Inside, the Python and C quick starts in service mode
(sandboxed_quickstart.py, sandboxed_quickstart.c), through the installed xdg-dbus-proxy whatever
its version (the library's client authenticates one line at a time, which every version carries),
and client.py (one connection, raw calls). Each step prints what the caller got.

    test_sandbox.py BUILD_DIR REPO     (SANDBOX_TEST_USERS: the users' prefix, default pcflat)
"""
import copy
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "service"))
from harness import PrivateService, write_root_file  # noqa: E402

GOOD, APP, OTHER, EVIL = "386491", "org.example.App", "org.other.App", "org.evil.App"
CYCLES = 50  # opens and closes of one store counted for leaks
failures = []


def check(ok, what):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)


def skip(reason):
    print(f"SKIPPED test-sandbox: {reason}", flush=True)
    if os.environ.get("PASSCODE_SKIPPED"):  # make test's summary counts it (Tests/run_groups.sh)
        with open(os.path.join(os.environ["PASSCODE_SKIPPED"], "test-sandbox"), "w") as f:
            f.write(reason + "\n")
    sys.exit(0)


# What every sandbox sees of the host: /usr and /etc read-only, as a Flatpak runtime is.
BASE = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--ro-bind", "/etc", "/etc",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--unshare-pid", "--die-with-parent"]


class Sandbox:
    """One app's sandbox: its proxy (a bwrap of its own with `info` at /.flatpak-info, running
    xdg-dbus-proxy as the user) and the way to run commands in the app's bwrap."""

    def __init__(self, rig, user, name, info_text):
        self.rig, self.user, self.dir = rig, user, os.path.join(rig.top, name)
        os.mkdir(self.dir, 0o700)
        self.proxy_info = os.path.join(self.dir, "proxy-info")  # the proxy's view (flatpak makes it; the app cannot write it)
        self.app_info = os.path.join(self.dir, "app-info")  # the app's own view
        self.socket = os.path.join(self.dir, "bus")
        for path in (self.proxy_info, self.app_info):
            with open(path, "w") as f:
                f.write(info_text)
        self.owner = __import__("pwd").getpwnam(user)
        os.chown(self.dir, self.owner.pw_uid, self.owner.pw_gid)
        os.chown(self.app_info, self.owner.pw_uid, self.owner.pw_gid)  # the app may rewrite its own view
        proxy = ["--", "xdg-dbus-proxy", rig.address, self.socket, "--filter", "--talk=org.libpasscode.Passcode1"]
        cmd = rig.as_user(user) + ["bwrap"] + BASE + ["--bind", self.dir, self.dir, "--ro-bind", self.proxy_info, "/.flatpak-info",
                                                      "--bind", rig.socket_path, rig.socket_path] + proxy
        self.proxy = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        rig.procs[name + "-proxy"] = self.proxy
        for _ in range(200):
            if os.path.exists(self.socket) or self.proxy.poll() is not None:
                break
            time.sleep(0.02)
        if not os.path.exists(self.socket):
            raise SystemExit(f"test-sandbox: the proxy did not start: {self.proxy.stderr.read() if self.proxy.poll() is not None else ''}")

    def command(self, argv, env=None):
        """`argv` in the app's bwrap: the proxy's socket at /run/dbus/system_bus_socket, the
        checkout read-only, DBUS_SYSTEM_BUS_ADDRESS naming another socket (the sandbox ignores it)."""
        repo = self.rig.repo
        extra = []
        for k, v in (env or {}).items():
            extra += ["--setenv", k, v]
        return self.rig.as_user(self.user) + ["bwrap"] + BASE + [
            "--ro-bind", repo, repo, "--tmpfs", "/run", "--bind", self.socket, "/run/dbus/system_bus_socket",
            "--bind", self.app_info, "/.flatpak-info",
            "--setenv", "DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/tmp/elsewhere", "--setenv", "HOME", "/tmp"] + extra + ["--"] + argv


class Driver:
    """A quick start (C or Python) in the sandbox, one command a line; answers parsed."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def __call__(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline().strip()
        if not answer:
            answer = f"(no answer; stderr: {self.p.stderr.read()[-400:]})"
        return answer

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def status(answer):
    """The status number of a driver's answer ("verify: 4 ... | ...")."""
    try:
        return int(answer.split(":", 1)[1].split()[0])
    except (IndexError, ValueError):
        return None


class BusClient:
    """client.py in the app's bwrap: one connection, raw calls to passcoded."""

    def __init__(self, sandbox):
        argv = sandbox.command(["/usr/bin/python3", os.path.join(sandbox.rig.repo, "Tests/service/client.py"),
                                "unix:path=/run/dbus/system_bus_socket"])
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, method, sig, *args):
        return self.request({"call": method, "sig": sig, "args": list(args)})

    def request(self, req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


class OutsideClient(BusClient):
    """client.py outside any sandbox, as `user`: one connection to the test's bus."""

    def __init__(self, rig, user):
        argv = rig.as_user(user) + ["/usr/bin/python3", os.path.join(rig.repo, "Tests/service/client.py"), rig.address]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def sandbox_reader(daemon_pid):
    """The pid of passcoded's sandbox reader (its child named passcoded-sandbox), or None."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        if comm.startswith("passcoded-sandb") and int(stat[stat.rindex(")") + 2:].split()[1]) == daemon_pid:
            return int(entry)
    return None


def error_of(r):
    return r.get("error", "").rsplit(".", 1)[-1] if "error" in r else "ok"


def info(name):
    return f"[Application]\nname={name}\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=1\n"


def budget(drive, rig, label):
    """Wrong guesses until the store requires a reset, the service's clock moved past each
    lockout: how many were checked."""
    checked = 0
    for i in range(30):
        a = drive(f"verify {100000 + 7919 * i:06d}")
        s = status(a)
        if s == 4:  # WRONG_PASSCODE
            checked += 1
        elif s == 8:  # LOCKED_OUT: only root moves the service's clock
            rig.set_clock(rig.clock + 3 * 3600)
        elif s == 9:  # RESET_REQUIRED: the guess that reached the maximum was checked and counted
            checked += 1
            break
        else:
            check(False, f"{label}: unexpected answer to a guess: {a}")
            break
    return checked


def check_manifest(repo):
    """The GTK demo's flatpak-builder manifest: JSON, the one bus name its sandbox may talk to,
    and read by flatpak-builder --show-manifest where that is installed (building it needs the
    GNOME runtime from Flathub, which a test machine cannot fetch)."""
    path = os.path.join(repo, "examples/flatpak/org.libpasscode.Demo.json")
    with open(path) as f:
        manifest = json.load(f)
    args = manifest.get("finish-args", [])
    print(f"-- {os.path.relpath(path, repo)}: app {manifest.get('app-id')}, finish-args {args}", flush=True)
    check("--system-talk-name=org.libpasscode.Passcode1" in args and not any(a.startswith("--socket=system-bus") for a in args),
          "the manifest is JSON and lets the app talk to org.libpasscode.Passcode1 alone on the system bus")
    if shutil.which("flatpak-builder"):
        p = subprocess.run(["flatpak-builder", "--show-manifest", path], capture_output=True, text=True, timeout=60, cwd="/tmp")
        check(p.returncode == 0 and json.loads(p.stdout).get("id") == manifest.get("app-id"),
              f"flatpak-builder --show-manifest reads it{'' if p.returncode == 0 else ': ' + p.stderr.strip()[:300]}")
    else:
        print("     (flatpak-builder is not installed: --show-manifest not run)")


def moved_overlay_section(rig, user):
    """A /.flatpak-info whose top mount is an overlay's file moved over a tmpfs file."""
    print("-- a /.flatpak-info that is an overlay's file moved on top of a tmpfs file (the mount table's last line for it says tmpfs)", flush=True)
    folder = os.path.join(rig.top, "moved-overlay")
    os.mkdir(folder, 0o700)
    pw = pwd.getpwnam(user)
    os.chown(folder, pw.pw_uid, pw.pw_gid)
    c = subprocess.Popen(rig.as_user(user) + ["/usr/bin/python3", os.path.join(HERE, "namespaced_caller.py"), rig.address.split("=", 1)[1],
                                              folder, "moved-overlay", APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = c.stdout.readline().strip()
        c.stdin.write("go\n")
        c.stdin.flush()
        got = json.loads(c.stdout.readline() or "{}")
    finally:
        c.kill()
        c.wait()
    print(f"     made: {ready}; GetState({APP}) -> {got}")
    check(ready == "READY" and got.get("error") == "SandboxUnverified" and "overlay" in got.get("message", ""),
          "the file reached is checked, not the table's last line: its overlay is refused unread (SANDBOX_UNVERIFIED)")


def main(argv):
    check_manifest(os.path.abspath(argv[2]))
    if failures:
        return 1
    if os.geteuid() != 0:
        skip("needs root (it creates users and starts passcoded as root)")
    missing = [t for t in ("bwrap", "xdg-dbus-proxy", "dbus-daemon", "setpriv", "useradd") if not shutil.which(t)]
    if missing:
        skip(f"{' and '.join(missing)} missing (apt-get install bubblewrap xdg-dbus-proxy; make deps)")
    build, repo = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    started = time.monotonic()
    prefix = os.environ.get("SANDBOX_TEST_USERS", "pcflat")
    with PrivateService(os.path.join(build, "passcoded"), repo, users=prefix, folder="passcoded-sandbox.",
                        name="test-sandbox", parent="/tmp") as rig:
        rig.add_user(rig.service_user, system=True)
        user = rig.user("a")
        rig.add_user(user)
        rig.set_clock(0)
        write_root_file(rig.config_file, f"store_root = {rig.store_root}\nuser = {rig.service_user}\n"
                        f"clock_offset_file = {rig.clock_file}\nargon2_ops = 1\nargon2_mem = {8 << 20}\n")
        rig.start_bus()
        rig.start_daemon()
        daemon_uid = int(open(f"/proc/{rig.procs['daemon'].pid}/status").read().split("Uid:")[1].split()[0])
        check(daemon_uid == __import__("pwd").getpwnam(rig.service_user).pw_uid,
              f"passcoded runs as its own user ({rig.service_user}, uid {daemon_uid}), as it ships")
        # Probe: may this user make a bubblewrap (unprivileged user namespaces)?
        probe = subprocess.run(rig.as_user(user) + ["bwrap"] + BASE + ["--", "true"], capture_output=True, text=True)
        if probe.returncode != 0:
            rig.cleanup()
            skip(f"bwrap cannot make a sandbox as a user here: {probe.stderr.strip()[:200]}")

        app = Sandbox(rig, user, "sb-app", info(APP))
        # The library's client is sd-bus's, which sends its authentication and BEGIN in one write;
        # xdg-dbus-proxy before 0.1.6 ends such a connection. The client sends it one line at a
        # time (Sources/libpasscode/CSandboxBus/sandbox_bus.c), so the proxy installed here carries it.
        version = (subprocess.run(["xdg-dbus-proxy", "--version"], capture_output=True, text=True).stdout.split() or ["?"])[-1]
        print(f"-- the library's client through xdg-dbus-proxy {version} itself, in its own bubblewrap with the app's "
              f"/.flatpak-info, its socket at /run/dbus/system_bus_socket in the app's", flush=True)
        library_sandbox = app
        lib_env = {"LD_LIBRARY_PATH": build, "PASSCODE_LIBRARY": os.path.join(build, "libpasscode.so.0"),
                   "PYTHONPATH": os.path.join(repo, "python")}
        clients = [("C", [os.path.join(build, "sandboxed_quickstart")]),
                   ("Python", ["/usr/bin/python3", os.path.join(HERE, "sandboxed_quickstart.py")])]
        for label, program in clients:
            store = APP if label == "C" else APP + ".py"
            print(f"-- the {label} quick start in service mode, in the sandbox of {APP} (store {store})", flush=True)
            d = Driver(library_sandbox.command(program, lib_env))
            for line, want in ((f"open {store}", 0), (f"set {GOOD}", 0), ("verify 000000", 4), (f"verify {GOOD}", 0)):
                a = d(line)
                print(f"     {line} -> {a}")
                check(status(a) == want, f"{label}: {line} answers {want} through the proxy (DBUS_SYSTEM_BUS_ADDRESS, naming "
                      f"another socket, ignored)")
            checked = budget(d, rig, label)
            a = d("state")
            print(f"     guesses checked: {checked}; {a}")
            check(checked == 10 and "failures=10" in a, f"{label}: at most 10 guesses are checked, as outside")
            a = d(f"open {OTHER}")
            print(f"     open {OTHER} -> {a}")
            check(status(a) == 69 and APP in a, f"{label}: {OTHER}'s store is refused (SANDBOX_WRONG_APP, naming {APP})")
            a = d(f"cycles {CYCLES} {store}")
            print(f"     cycles -> {a}")
            counts = re.search(r"fds (\d+) -> (\d+), threads (\d+) -> (\d+)", a)
            check(status(a) == 0 and counts is not None and counts[1] == counts[2] and counts[3] == counts[4],
                  f"{label}: {CYCLES} opens and closes through the proxy leave no fd and no thread behind")
            if label == "C":
                a = d(f"open {store}")
                a = d("fork")
                print(f"     fork -> {a}")
                check(status(a) == 0 and "answered" in a, f"{label}: a child made by fork() is answered (on a connection of its "
                      f"own: the parent's is left alone), and the parent's connection still answers after it")
            d.close()
        print("-- a bus socket in the sandbox that never answers the authentication", flush=True)
        silent = copy.copy(app)
        silent.socket = os.path.join(rig.top, "silent-bus")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(silent.socket)
        os.chmod(silent.socket, 0o666)
        listener.listen(8)  # never accepted, never answered
        d = Driver(silent.command(clients[0][1], dict(lib_env, PASSCODE_SERVICE_TIMEOUT_MS="1500")))
        began = time.monotonic()
        a = d(f"open {APP}")
        took = time.monotonic() - began
        d.close()
        listener.close()
        print(f"     open {APP} -> {a} ({took:.1f} s)")
        check(status(a) == 63 and "timed out" in a and "--system-talk-name" in a and took < 10,
              "the open fails within the calls' bound (PASSCODE_SERVICE_TIMEOUT_MS), SERVICE_UNAVAILABLE naming the finish-arg")
        other_files = [f for f in os.listdir(os.path.join(rig.store_root, str(app.owner.pw_uid))) if f.startswith(OTHER)]
        check(other_files == [], f"nothing was made or counted for {OTHER}: {other_files}")

        print(f"-- a second sandbox, of {OTHER}, asks for {APP}'s store", flush=True)
        guarded = APP + ".guarded"  # a store of the app's with a passcode and no failure yet
        c = BusClient(app)
        r = c.call("SetPasscode", "(ss)", guarded, GOOD)
        check(error_of(r) == "ok", f"{APP} sets a passcode on {guarded}: {r}")
        c.close()
        other = Sandbox(rig, user, "sb-other", info(OTHER))
        c = BusClient(other)
        for method, sig, args in (("Verify", "(ss)", (guarded, GOOD)), ("Verify", "(ss)", (guarded, "000000")),
                                  ("Verify", "(ss)", (APP, "000000")), ("GetState", "(s)", (APP,))):
            r = c.call(method, sig, *args)
            print(f"     {method}{args} -> {r}")
            check(error_of(r) == "SandboxWrongApp" and OTHER in r.get("message", ""),
                  f"{OTHER}: {method} of {APP}'s store refused, naming {OTHER}")
        r = c.call("GetState", "(s)", APP + "\nstatus 0: ok\x1b[0m")
        print(f"     GetState(a name with a newline and an escape) -> {r}")
        check(error_of(r) == "SandboxWrongApp" and "\n" not in r.get("message", "") and "\x1b" not in r.get("message", "")
              and "\\n" in r.get("message", ""), "a name quoted in a refusal has its control characters escaped (a newline as \\n)")
        r = c.call("GetState", "(s)", OTHER + ".work")
        print(f"     GetState({OTHER}.work) -> {r}")
        check(error_of(r) == "ok", f"{OTHER}: a store under its own id answers")
        c.close()
        outside = subprocess.run(rig.as_user(user) + ["/usr/bin/python3", os.path.join(repo, "Tests/service/client.py"), rig.address],
                                 input=json.dumps({"call": "GetState", "sig": "(s)", "args": [guarded]}) + "\n",
                                 capture_output=True, text=True)
        state = json.loads(outside.stdout)
        print(f"     outside the sandbox, GetState({guarded}) -> {state}")
        check(state.get("ok", [0, 0, -1])[:3] == [True, True, 0], f"{guarded} counts no failure: no guess of {OTHER} was counted")

        print(f"-- {EVIL} reads the properties of {APP}'s store object while {APP} watches it", flush=True)
        path = "/org/libpasscode/Passcode1/store/" + "".join(ch if ch.isalnum() else f"_{ord(ch):02x}" for ch in guarded)
        victim = BusClient(app)
        r = victim.call("Watch", "(s)", guarded)
        check(error_of(r) == "ok" and r["ok"][0] == path, f"{APP} watches {guarded} ({path}): {error_of(r)}")
        mine = victim.request({"props": path})
        check(error_of(mine) == "ok" and mine["ok"][0].get("IsSet") is True, f"{APP} reads its own store's properties: {mine}")
        evil = Sandbox(rig, user, "sb-evil", info(EVIL))
        c = BusClient(evil)
        r_first = c.request({"props": path})  # before any call: its sandbox not read yet
        check("ok" not in r_first, f"{EVIL}: GetAll before any call of its own reads nothing: {error_of(r_first)}")
        check(error_of(c.call("GetState", "(s)", EVIL)) == "ok", f"{EVIL} calls on its own store")
        r_all = c.request({"props": path})
        r_one = c.request({"prop": path, "name": "FailedAttempts"})
        r_w = c.call("Watch", "(s)", guarded)
        print(f"     {EVIL}: GetAll -> {r_all}; Get(FailedAttempts) -> {r_one}; Watch -> {error_of(r_w)}")
        check("ok" not in r_all and "ok" not in r_one and EVIL in r_all.get("message", "") and EVIL in r_one.get("message", ""),
              f"{EVIL}: Get and GetAll on {APP}'s store object are refused, naming {EVIL}, with no values")
        check(error_of(r_w) == "SandboxWrongApp", f"{EVIL}: Watch of {APP}'s store refused")
        r = victim.call("Verify", "(ss)", guarded, GOOD)
        sig = c.request({"signals": 0})
        check(sig.get("ok") == [], f"{EVIL} receives no PropertiesChanged of {APP}'s store: {sig}")
        mine = victim.request({"prop": path, "name": "IsSet"})
        check(error_of(mine) == "ok", f"{APP}'s own Get still answers: {mine}")
        c.close()
        victim.close()

        print(f"-- an app whose id is under another's ({APP}.work) cannot open a store {APP} marked", flush=True)
        nested = Sandbox(rig, user, "sb-nested", info(APP + ".work"))
        c = BusClient(app)
        r = c.call("GetState", "(s)", APP + ".work")
        print(f"     {APP}: GetState({APP}.work) -> {r}")
        check(error_of(r) == "ok", f"{APP} marks {APP}.work, a store under its id")
        c.close()
        c = BusClient(nested)
        r = c.call("GetState", "(s)", APP + ".work")
        print(f"     {APP}.work: GetState({APP}.work) -> {r}")
        check(error_of(r) == "SandboxStoreOfAnotherApp" and APP in r.get("message", "") and APP + ".work" in r.get("message", ""),
              f"the app {APP}.work cannot open the store {APP} marked (SANDBOX_STORE_OF_ANOTHER_APP)")
        c.close()

        print(f"-- a store made outside a sandbox is marked at its first use from one", flush=True)
        old_store = APP + ".old"
        folder = os.path.join(rig.store_root, str(app.owner.pw_uid))
        r = subprocess.run(rig.as_user(user) + ["/usr/bin/python3", os.path.join(repo, "Tests/service/client.py"), rig.address],
                           input=json.dumps({"call": "SetPasscode", "sig": "(ss)", "args": [old_store, GOOD]}) + "\n",
                           capture_output=True, text=True)
        unmarked = not os.path.exists(os.path.join(folder, old_store + ".app"))
        c = BusClient(app)
        r2 = c.call("GetState", "(s)", old_store)
        c.close()
        mark = open(os.path.join(folder, old_store + ".app")).read().strip() if os.path.exists(os.path.join(folder, old_store + ".app")) else None
        print(f"     outside: SetPasscode({old_store}) -> {r.stdout.strip()}; unmarked: {unmarked}; "
              f"{APP}: GetState -> {error_of(r2)}; its mark now: {mark}")
        check(unmarked and error_of(r2) == "ok" and mark == APP, f"{old_store}, unmarked, is marked {APP} at its first sandboxed use")

        long_id = "org.example." + "L" * 230  # 242 bytes: longer than the 64 of an unsandboxed caller's id
        print(f"-- an app with an id of {len(long_id)} bytes opens its own store", flush=True)
        c = BusClient(Sandbox(rig, user, "sb-long", info(long_id)))
        r1, r2 = c.call("SetPasscode", "(ss)", long_id, GOOD), c.call("Verify", "(ss)", long_id, "000000")
        print(f"     SetPasscode -> {error_of(r1)}; a wrong Verify -> {error_of(r2)}")
        files = [f for f in os.listdir(os.path.join(rig.store_root, str(app.owner.pw_uid))) if f.startswith("org.example.LLL")]
        check(error_of(r1) == "ok" and error_of(r2) == "WrongPasscode" and any("+" in f and f.endswith(".db") for f in files),
              f"a verified id of {len(long_id)} bytes has its store (a file named by a hash: {sorted(files)})")
        c.close()

        print(f"-- a sandboxed process swaps /.flatpak-info after connecting", flush=True)
        c = BusClient(app)
        r1 = c.call("GetState", "(s)", APP)
        with open(app.proxy_info, "r+") as f:  # the connection's own process's view, rewritten in place
            f.truncate(0)
            f.write(info(OTHER))
        r2 = c.call("GetState", "(s)", OTHER)
        r3 = c.call("GetState", "(s)", APP)
        print(f"     before: GetState({APP}) -> {error_of(r1)}; after the swap: GetState({OTHER}) -> {r2}; GetState({APP}) -> {error_of(r3)}")
        check(error_of(r1) == "ok" and error_of(r2) == "SandboxWrongApp" and APP in r2.get("message", "") and error_of(r3) == "ok",
              "the connection keeps the id it was verified with: nothing more")
        c.close()
        with open(app.proxy_info, "w") as f:
            f.write(info(APP))
        d = Driver(library_sandbox.command(["/bin/sh", "-c", f"printf '%s' '{info(OTHER)}' > /.flatpak-info; exec \"$@\"", "sh"]
                               + clients[0][1], lib_env))
        a = d(f"open {OTHER}")
        print(f"     the app rewrites its own /.flatpak-info to {OTHER}, then: open {OTHER} -> {a}")
        check(status(a) == 69 and APP in a, "the app's own view names nothing: the proxy's sandbox is read")
        d.close()

        print("-- the sandbox reader stops answering for a while (SIGSTOP), then answers again", flush=True)
        reader = sandbox_reader(rig.procs["daemon"].pid)
        check(reader is not None, f"the sandbox reader runs beside passcoded (pid {reader})")
        if reader is not None:
            inside, outside_c = BusClient(app), OutsideClient(rig, user)
            os.kill(reader, signal.SIGSTOP)
            try:
                r1, o1 = inside.call("GetState", "(s)", APP), outside_c.call("GetState", "(s)", OTHER)
            finally:
                os.kill(reader, signal.SIGCONT)
            r2, o2 = inside.call("GetState", "(s)", APP), outside_c.call("GetState", "(s)", OTHER)
            print(f"     stopped: sandboxed -> {r1.get('message', r1)}; unsandboxed -> {o1.get('message', o1)}")
            print(f"     continued, the same connections: sandboxed -> {error_of(r2)}; unsandboxed -> {error_of(o2)}")
            check(error_of(r1) == "SandboxUnverified" and "in time" in r1.get("message", "")
                  and error_of(o1) == "SandboxUnverified", "while the reader is stopped, a new connection's call is refused (SANDBOX_UNVERIFIED)")
            check(error_of(r2) == "ok" and error_of(o2) == "ok",
                  "once it answers again, the same connections' next calls are answered: a reader that did not answer is asked again")
            print("-- while the reader is stopped, a new connection's first call waits; a verified connection's call is answered", flush=True)
            waiting = BusClient(app)
            got = {}
            os.kill(reader, signal.SIGSTOP)
            try:
                t = threading.Thread(target=lambda: got.update(first=waiting.call("GetState", "(s)", APP)))
                t.start()
                time.sleep(0.5)  # (its call sent first; nothing is asserted on the time)
                r3 = outside_c.call("GetState", "(s)", OTHER)  # verified above: no reader needed
                pending = "first" not in got
            finally:
                os.kill(reader, signal.SIGCONT)
            t.join(timeout=30)
            print(f"     verified connection -> {error_of(r3)} while the new one's call was {'still waiting' if pending else 'answered'}; "
                  f"the new one then -> {got.get('first', {}).get('message', error_of(got.get('first', {})))}")
            check(error_of(r3) == "ok" and pending,
                  "a verified connection's call is answered while a new connection's sandbox read is outstanding (the bus thread does not wait)")
            waiting.close()
            inside.close()
            outside_c.close()

            moved_overlay_section(rig, user)

        print("-- malformed /.flatpak-info files: each a refusal of its own kind, nothing opened", flush=True)
        cases = [("no [Application] name", "[Instance]\ninstance-id=1\n", "no name"),
                 ("binary", "[Application]\nname=org.example.App\n\x01\x02\n", "binary"),
                 ("name too long", info("org.example." + "a" * 300), "more than 255"),
                 ("not an app id", info("org/../etc"), "no valid app id"),
                 ("huge", info(APP) + "#" * 70000 + "\n", "more than 65536"),
                 ("symbolic link", None, "symbolic link")]
        if shutil.which("rofiles-fuse") and shutil.which("fusermount3"):  # (ostree's; a FUSE file is never read)
            cases.append(("FUSE file", info(APP), "FUSE"))
        # A kernel-made file (proc, sysfs, ...) may wait on a lock its user holds (an epoll's fdinfo
        # while the epoll waits on FUSE): only a memory or disk filesystem's file is read.
        cases.append(("proc file", info(APP), "proc filesystem"))
        for label, text, want in cases:
            folder = os.path.join(rig.top, "bad-" + label.split()[0])
            os.mkdir(folder, 0o755)
            path = os.path.join(folder, "info")
            bind = ["--ro-bind", path, "/.flatpak-info"]
            mount = None
            if text is None:
                with open(path, "w") as f:
                    f.write(info(APP))
                bind = ["--ro-bind", path, "/real-info", "--symlink", "/real-info", "/.flatpak-info"]
            else:
                with open(path, "w") as f:
                    f.write(text)
            if label == "proc file":
                bind = ["--ro-bind", "/proc/version", "/.flatpak-info"]
            if label == "FUSE file":  # the same file seen through rofiles-fuse, mounted by root for the user
                mount = os.path.join(rig.top, "fuse")
                os.mkdir(mount, 0o755)
                subprocess.run(["rofiles-fuse", "-o", "allow_other", folder, mount], check=True, timeout=30)
                bind = ["--ro-bind", os.path.join(mount, "info"), "/.flatpak-info"]
            argv = rig.as_user(user) + ["bwrap"] + BASE + ["--ro-bind", repo, repo, "--bind", rig.socket_path, rig.socket_path] + bind + [
                "--", "/usr/bin/python3", os.path.join(repo, "Tests/service/client.py"), rig.address]
            p = subprocess.run(argv, input=json.dumps({"call": "GetState", "sig": "(s)", "args": [APP]}) + "\n",
                               capture_output=True, text=True, timeout=60)
            if mount:
                subprocess.run(["fusermount3", "-u", mount], timeout=30)
            r = json.loads(p.stdout or "{}")
            print(f"     {label}: {r}")
            check(error_of(r) == "SandboxUnverified" and want in r.get("message", ""), f"a /.flatpak-info with {label}: SANDBOX_UNVERIFIED ({want})")
        # An overlay, which a user namespace may mount, may stack a FUSE mount while the mount table
        # names "overlay": a /.flatpak-info on one is not read either.
        folder = os.path.join(rig.top, "overlay-info")
        target = os.path.join(rig.top, "overlay-root")
        empty = os.path.join(rig.top, "overlay-empty")
        os.mkdir(empty, 0o755)
        os.mkdir(folder, 0o755)
        os.mkdir(target, 0o755)
        with open(os.path.join(folder, ".flatpak-info"), "w") as f:
            f.write(info(APP))
        # (the checkout's top folder, unless it is one of these already: a clone under /tmp)
        binds = list(dict.fromkeys(["/usr", "/etc", "/tmp", "/" + repo.strip("/").split("/")[0]]))
        for b in binds:
            os.mkdir(folder + b, 0o755)
        for link, to in (("lib", "usr/lib"), ("lib64", "usr/lib64"), ("bin", "usr/bin")):
            os.symlink(to, os.path.join(folder, link))
        script = ("import ctypes, os, sys\n"
                  "libc = ctypes.CDLL(None, use_errno=True)\n"
                  "uid, gid = os.getuid(), os.getgid()\n"
                  "assert libc.unshare(0x10000000 | 0x00020000) == 0, 'unshare'\n"  # a user and a mount namespace
                  "for n, t in (('setgroups', 'deny'), ('uid_map', f'{uid} {uid} 1'), ('gid_map', f'{gid} {gid} 1')):\n"
                  "    open(f'/proc/self/{n}', 'w').write(t)\n"
                  "assert libc.mount(b'none', b'/', None, 0x4000 | 0x40000, None) == 0, 'private'\n"
                  f"assert libc.mount(b'overlay', b'{target}', b'overlay', 0, b'lowerdir={folder}:{empty}') == 0, os.strerror(ctypes.get_errno())\n"
                  f"for b in {binds!r}:\n"
                  f"    assert libc.mount(b.encode(), ('{target}' + b).encode(), None, 0x1000 | 0x4000, None) == 0, 'bind ' + b\n"
                  f"os.chroot('{target}')\n"
                  f"os.execv('/usr/bin/python3', ['python3', '{os.path.join(repo, 'Tests/service/client.py')}', '{rig.address}'])\n")
        p = subprocess.run(rig.as_user(user) + ["/usr/bin/python3", "-c", script],
                           input=json.dumps({"call": "GetState", "sig": "(s)", "args": [APP]}) + "\n", capture_output=True, text=True, timeout=60)
        if p.stdout.strip():
            r = json.loads(p.stdout)
            print(f"     overlay file: {r}")
            check(error_of(r) == "SandboxUnverified" and "overlay" in r.get("message", ""),
                  "a /.flatpak-info on an overlay: SANDBOX_UNVERIFIED (overlay), not read")
        else:
            print(f"     (an overlay cannot be made here: {p.stderr.strip()[-400:]})")
        check(rig.daemon_alive(), "passcoded is still running")

        print("-- passcoded where the sandbox reader cannot keep its two capabilities", flush=True)
        p = subprocess.run(["setpriv", "--bounding-set", "-sys_ptrace", "--", rig.passcoded, "--config", rig.config_file],
                           env=rig.env(), capture_output=True, text=True, timeout=30)
        print(f"     without CAP_SYS_PTRACE in its bounding set: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        check(p.returncode != 0 and "CapabilityBoundingSet" in p.stderr,
              "passcoded refuses to start rather than serve sandboxed callers it cannot tell apart")

        print("-- outside a sandbox nothing changes", flush=True)
        r = subprocess.run(rig.as_user(user) + ["/usr/bin/python3", os.path.join(repo, "Tests/service/client.py"), rig.address],
                           input=json.dumps({"call": "GetState", "sig": "(s)", "args": [OTHER]}) + "\n", capture_output=True, text=True)
        print(f"     GetState({OTHER}) unsandboxed -> {r.stdout.strip()}")
        check(error_of(json.loads(r.stdout)) == "ok", "an unsandboxed caller names any store of its uid, as before")

        print("-- the sandbox reader killed: passcoded ends with an error (systemd's Restart=on-failure starts it again)", flush=True)
        reader = sandbox_reader(rig.procs["daemon"].pid)
        os.kill(reader, signal.SIGKILL)
        c = OutsideClient(rig, user)
        r = c.call("GetState", "(s)", OTHER)  # a new connection: a question for a reader that is gone
        try:
            code = rig.procs["daemon"].wait(timeout=30)
        except subprocess.TimeoutExpired:
            code = None
        c.close()
        print(f"     a new connection's call -> {r.get('message', error_of(r))[:120]}; passcoded's exit status: {code}")
        check(code not in (None, 0), "passcoded does not stay up refusing every sandboxed and unsandboxed caller: it exits non-zero")

        log = rig.log_text()
    elapsed = time.monotonic() - started
    print(f"test-sandbox: {len(failures)} failed, {elapsed:.1f} s")
    if failures:
        print("passcoded's log:\n" + log[-3000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
