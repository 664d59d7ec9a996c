#!/usr/bin/env python3
"""make install, make install-service and their uninstalls (the Makefile gives the file list).

  scripts/install.py install   --manifest FILE [--destdir DIR] [--reads VAR=DIR]... [--libdir DIR] [--module PATH] < LIST
  scripts/install.py uninstall --manifest FILE [--destdir DIR]
  scripts/install.py pamdir    (the directory this machine's libpam loads modules from)

LIST has one entry a line, the last word the make variable that chose the destination's folder
(`-`: one under PREFIX, which nothing on the machine reads by itself):
  file MODE SRC DEST VAR       one file
  link TARGET DEST VAR         a symbolic link
  files MODE DESTDIR VAR SRC...  files into a folder (the man pages)
  tree SRC DEST VAR            a folder's files, recursively (the HTML)

Three ways to run, chosen by DESTDIR and the user:
- DESTDIR set (a staged install, debian/rules): every file where the list says under DESTDIR,
  nothing checked on this machine, no manifest, no ldconfig.
- root, no DESTDIR (the live system): before anything is written, each destination is checked:
  a folder the machine does not read (PAMDIR=/usr/local/lib/security: libpam loads modules from
  one folder only) is refused in one line saying what to do, and so is a file a Debian package
  owns (`dpkg -S`, also by its other name on a merged /usr), naming the package. Then each file
  is installed and written to the manifest as it lands, with the folders the install created;
  ldconfig runs when the library is not in the loader's cache; --module's pam_passcode.so is
  loaded under `env -i` and must find libpasscode.so.0 as a setuid sudo would.
- not root, no DESTDIR (a prefix of one's own, PREFIX=$HOME/.local): the files under PREFIX; the
  ones for system folders (PAMDIR, PAMCONFIGDIR, the bus's, polkit's, systemd's) are left out,
  saying so in one line (they need root).

uninstall reads the manifest: where the pam-auth-update profile is in it, `pam-auth-update
--package --remove passcode` runs first (as the package's prerm does); then each file and link
it lists is removed (one a Debian package owns by now is left, saying so), then each folder the
install created, if empty, deepest first; the manifest last, and its folder when empty. Nothing
else is touched: no PAM stack file, no folder that was there before.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.geteuid() == 0
# The folders only root writes, whose files the machine reads from fixed places.
SYSTEM_VARS = ("PAMDIR", "PAMCONFIGDIR", "DBUSPOLICYDIR", "DBUSSERVICEDIR", "POLKITRULESDIR", "SYSTEMDUNITDIR", "SYSUSERSDIR")
WHO_READS = {
    "PAMDIR": "libpam loads modules",
    "PAMCONFIGDIR": "pam-auth-update reads profiles",
    "DBUSPOLICYDIR": "the system bus reads policies",
    "DBUSSERVICEDIR": "the system bus reads activation files",
    "POLKITRULESDIR": "polkitd reads rules",
    "SYSTEMDUNITDIR": "systemd reads units",
    "SYSUSERSDIR": "systemd-sysusers reads",
    "LIBDIR": "the dynamic loader finds libraries (ldconfig -v lists them)",
}


def say(*a):
    print(*a, flush=True)


def die(msg):
    print(msg, file=sys.stderr, flush=True)
    sys.exit(1)


def multiarch():
    for cmd in (["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], ["gcc", "-print-multiarch"]):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            continue
        if out:
            return out
    return ""


def pamdir():
    """pam.pc's securedir, else the security folder beside libpam.so.0 (the multiarch one first)."""
    try:
        d = subprocess.run(["pkg-config", "--variable=securedir", "pam"], capture_output=True, text=True).stdout.strip()
    except OSError:
        d = ""
    if d:
        return d.rstrip("/")
    ma = multiarch()
    for lib in ([f"/lib/{ma}", f"/usr/lib/{ma}"] if ma else []) + ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]:
        if os.path.exists(f"{lib}/libpam.so.0"):
            return f"{lib}/security"
    return f"/lib/{ma}/security" if ma else "/lib/security"


def real(path):
    return os.path.realpath(path)


def bus_dirs(element, defaults):
    """The folders the system bus reads for `element` (includedir, servicedir), from its config."""
    dirs = list(defaults)
    for conf in ("/usr/share/dbus-1/system.conf", "/etc/dbus-1/system.conf"):
        try:
            text = open(conf).read()
        except OSError:
            continue
        for d in re.findall(rf"<{element}>\s*([^<\s]+)\s*</{element}>", text):
            dirs.append(d if d.startswith("/") else os.path.join(os.path.dirname(conf), d))
        if element == "servicedir" and "<standard_system_servicedirs/>" not in text and conf.startswith("/usr"):
            dirs = [d for d in dirs if d not in defaults]
    return dirs


def loader_dirs():
    out = subprocess.run(["ldconfig", "-N", "-v"], capture_output=True, text=True).stdout
    dirs = [line.split(":")[0] for line in out.splitlines() if line.startswith("/")]
    return dirs + ["/lib", "/usr/lib", "/lib64", "/usr/lib64"]


def machine_reads(pam):
    ma = multiarch()
    return {
        "PAMDIR": [pam],
        "PAMCONFIGDIR": ["/usr/share/pam-configs"],
        "DBUSPOLICYDIR": bus_dirs("includedir", ["/usr/share/dbus-1/system.d", "/etc/dbus-1/system.d"]),
        "DBUSSERVICEDIR": bus_dirs("servicedir", ["/usr/local/share/dbus-1/system-services",
                                                  "/usr/share/dbus-1/system-services", "/lib/dbus-1/system-services"]),
        "POLKITRULESDIR": ["/etc/polkit-1/rules.d", "/usr/share/polkit-1/rules.d"],
        "SYSTEMDUNITDIR": ["/etc/systemd/system", "/usr/local/lib/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"],
        "SYSUSERSDIR": ["/etc/sysusers.d", "/usr/local/lib/sysusers.d", "/usr/lib/sysusers.d"],
        "LIBDIR": loader_dirs() + ([f"/lib/{ma}", f"/usr/lib/{ma}"] if ma else []),
    }


def other_names(path):
    """The path and, on a merged /usr, its other spelling (dpkg knows a file by the one it shipped)."""
    names = [path]
    m = re.match(r"^/usr/(bin|sbin|lib|lib32|lib64|libx32)(/.*)$", path)
    if m:
        names.append(f"/{m.group(1)}{m.group(2)}")
    m = re.match(r"^/(bin|sbin|lib|lib32|lib64|libx32)(/.*)$", path)
    if m:
        names.append(f"/usr/{m.group(1)}{m.group(2)}")
    r = real(os.path.dirname(path))
    names.append(os.path.join(r, os.path.basename(path)))
    return list(dict.fromkeys(names))


def dpkg_owners(paths):
    """{path: package} for each path a Debian package owns (dpkg -S), by any of its names."""
    if not shutil.which("dpkg"):
        return {}
    alias = {}
    for p in paths:
        for n in other_names(p):
            alias.setdefault(n, p)
    owners = {}
    names = list(alias)
    for i in range(0, len(names), 200):
        out = subprocess.run(["dpkg", "-S", *names[i:i + 200]], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("diversion by") or ": " not in line:
                continue
            pkg, path = line.split(": ", 1)
            if path in alias:
                owners.setdefault(alias[path], pkg)
    return owners


def parse_list(text):
    """(kind, mode, src, dest, var) for each file to write, in order."""
    out = []
    for line in text.splitlines():
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        kind = w[0]
        if kind == "file":
            out.append(("file", int(w[1], 8), w[2], w[3], w[4]))
        elif kind == "link":
            out.append(("link", None, w[1], w[2], w[3]))
        elif kind == "files":
            mode, dest, var = int(w[1], 8), w[2], w[3]
            for src in w[4:]:
                out.append(("file", mode, src, os.path.join(dest, os.path.basename(src)), var))
        elif kind == "tree":
            src, dest, var = w[1], w[2], w[3]
            for top, dirs, files in os.walk(src):
                dirs.sort()
                for f in sorted(files):
                    s = os.path.join(top, f)
                    out.append(("file", 0o644, s, os.path.join(dest, os.path.relpath(s, src)), var))
        else:
            die(f"install: unknown entry: {line}")
    return out


class Manifest:
    """The manifest: `d PATH` a folder the install created, `f PATH` a file, `l PATH` a link; kept as
    a union with the one a previous install left, appended to as each file lands."""

    def __init__(self, path, created_dirs):
        self.path = path
        self.entries = []
        if os.path.exists(path):
            self.entries = [tuple(line.rstrip("\n").split(" ", 1)) for line in open(path) if " " in line]
        self.seen = set(self.entries)
        for d in created_dirs:
            self.add("d", d)

    def add(self, kind, path):
        if (kind, path) in self.seen:
            return
        self.seen.add((kind, path))
        self.entries.append((kind, path))
        with open(self.path, "a") as f:
            f.write(f"{kind} {path}\n")


def makedirs(path, created):
    """mkdir -p, noting each folder it made, outermost first."""
    missing = []
    p = path
    while p and p != "/" and not os.path.lexists(p):
        missing.append(p)
        p = os.path.dirname(p)
    for d in reversed(missing):
        os.mkdir(d, 0o755)
        os.chmod(d, 0o755)
        created.append(d)


def put(kind, mode, src, dest):
    tmp = f"{dest}.passcode-new"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    if kind == "link":
        os.symlink(src, tmp)
    else:
        shutil.copyfile(src, tmp)
        os.chmod(tmp, mode)
    if os.path.isdir(dest) and not os.path.islink(dest):
        os.unlink(tmp)
        die(f"install: {dest} is a folder; nothing written there")
    os.replace(tmp, dest)


def describe(entries, tree_of):
    """The lines to print: one a file; a tree (the HTML) or a folder of many files (man3) as one line."""
    keys = []
    for kind, _mode, src, dest, var in entries:
        d = os.path.dirname(dest)
        many = sum(1 for e in entries if os.path.dirname(e[3]) == d) > 4
        key = tree_of(dest) or (d if many else None)
        keys.append((key, kind, src, dest, var))
    lines, done = [], set()
    for key, kind, src, dest, var in keys:
        where = f"  ({var}: where {WHO_READS[var]})" if var in SYSTEM_VARS else ""
        if key is None:
            lines.append(f"  {dest}{' -> ' + src if kind == 'link' else ''}{where}")
        elif key not in done:
            done.add(key)
            lines.append(f"  {key}/ ({sum(1 for k in keys if k[0] == key)} files){where}")
    return lines


def install(args):
    manifest_path, destdir = args["manifest"], args["destdir"]
    entries = parse_list(sys.stdin.read())
    trees = args["tree"]

    def tree_of(dest):
        for t in trees:
            if dest.startswith(t + "/"):
                return t
        return None

    if destdir:
        for kind, mode, src, dest, _var in entries:
            target = destdir + dest
            os.makedirs(os.path.dirname(target), exist_ok=True)
            put(kind, mode, src, target)
        say(f"{args['what']}: staged under {destdir} (nothing checked on this machine, no manifest):")
        for line in describe(entries, tree_of):
            say(line)
        return
    left_out = [e for e in entries if e[4] in SYSTEM_VARS and not ROOT]
    if left_out:
        names = sorted({f"{e[4]}={os.path.dirname(e[3])}" for e in left_out})
        say(f"{args['what']}: left out, not root: {', '.join(os.path.basename(e[3]) for e in left_out)} "
            f"(system folders {', '.join(names)}; sudo make {args['what']} puts them there)")
        entries = [e for e in entries if e not in left_out]
    if ROOT:
        reads = machine_reads(args["reads"].get("PAMDIR") or pamdir())
        for var, d in args["reads"].items():
            reads.setdefault(var, []).insert(0, d)
        bad = []
        for var in sorted({e[4] for e in entries if e[4] in SYSTEM_VARS}):
            folder = os.path.dirname(next(e[3] for e in entries if e[4] == var))
            known = reads.get(var, [])
            if real(folder) not in {real(k) for k in known}:
                bad.append(f"{args['what']}: {var}={folder} is not read by this machine ({WHO_READS[var]} from "
                           f"{' or '.join(dict.fromkeys(known))}): run make {args['what']} without {var}=, or {var}={known[0]}")
        owners = dpkg_owners([e[3] for e in entries])
        for kind, _m, _s, dest, _v in entries:
            if dest in owners:
                bad.append(f"{args['what']}: {dest} belongs to the Debian package {owners[dest]}: nothing written "
                           f"(remove the package, or install elsewhere: PREFIX=/usr/local and the defaults)")
                break
        if bad:
            die("\n".join(bad))
    created = []
    makedirs(os.path.dirname(manifest_path), created)
    manifest = Manifest(manifest_path, created)
    for kind, mode, src, dest, _var in entries:
        created = []
        makedirs(os.path.dirname(dest), created)
        for d in created:
            manifest.add("d", d)
        # In the manifest before it is written: an install cut short is still taken back out.
        manifest.add("l" if kind == "link" else "f", dest)
        put(kind, mode, src, dest)
    say(f"{args['what']}: installed (manifest {manifest_path}):")
    for line in describe(entries, tree_of):
        say(line)
    if args["libdir"]:
        library(args, reads if ROOT else None)
    if args["module"] and ROOT and any(e[3] == args["module"] for e in entries):
        check_module(args)


def library(args, reads):
    """ldconfig where the library is new to the loader's cache; or what to do."""
    libdir = args["libdir"]
    soname = os.path.join(libdir, "libpasscode.so.0")
    if reads is None:
        say(f"{args['what']}: {libdir} is yours: programs find libpasscode.so.0 there by an rpath or LD_LIBRARY_PATH (README)")
        return
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    if real(libdir) in {real(d) for d in reads["LIBDIR"]}:
        if not re.search(rf"\slibpasscode\.so\.0 \(.*=> {re.escape(soname)}$", cache, re.M):
            r = subprocess.run(["ldconfig"], capture_output=True, text=True)
            if r.returncode != 0:
                die(f"{args['what']}: ldconfig failed: {r.stderr.strip()}")
            say(f"{args['what']}: ran ldconfig: {soname} is in the loader's cache")
    else:
        say(f"{args['what']}: LIBDIR={libdir} is not a folder the dynamic loader reads: pam_passcode.so loads "
            f"{soname} by its path, but passcodectl and other programs will not find it: "
            f"echo {libdir} > /etc/ld.so.conf.d/libpasscode.conf && ldconfig (or make install with LIBDIR=/usr/local/lib)")


def check_module(args):
    """The installed module, loaded as a setuid program would (env -i: no LD_LIBRARY_PATH), finds its library."""
    code = ("import ctypes, sys\n"
            "m = ctypes.CDLL(sys.argv[1])\n"
            "f = m.pam_passcode_library\n"
            "f.restype = ctypes.c_char_p\n"
            "why = ctypes.c_char_p()\n"
            "p = f(ctypes.byref(why))\n"
            "print(p.decode() if p else 'NONE ' + (why.value or b'').decode())\n")
    r = subprocess.run(["env", "-i", sys.executable, "-c", code, args["module"]], capture_output=True, text=True)
    out = r.stdout.strip()
    if r.returncode != 0 or not out or out.startswith("NONE"):
        die(f"{args['what']}: FAIL: {args['module']} does not find libpasscode.so.0 as sudo, su and login would load it "
            f"({out[5:] if out.startswith('NONE') else r.stderr.strip()[-300:]}): the passcode would never be asked; "
            f"run ldconfig, or install with LIBDIR=/usr/local/lib")
    say(f"{args['what']}: checked: {args['module']} loads {out} with an empty environment, as sudo, su and login do")


def uninstall(args):
    manifest_path, destdir = args["manifest"], args["destdir"]
    what = args["what"]
    if destdir:
        say(f"{what}: a staged install (DESTDIR) keeps no manifest: remove {destdir} itself")
        return
    if not os.path.exists(manifest_path):
        say(f"{what}: no manifest at {manifest_path}: nothing installed there by make {what.replace('un', '', 1)} (or PREFIX= differs)")
        return
    entries = [tuple(line.rstrip("\n").split(" ", 1)) for line in open(manifest_path) if " " in line]
    files = [p for k, p in entries if k in ("f", "l")]
    if any(p.endswith("/pam-configs/passcode") and os.path.exists(p) for p in files):
        if ROOT and shutil.which("pam-auth-update"):
            r = subprocess.run(["pam-auth-update", "--package", "--remove", "passcode"], capture_output=True, text=True)
            if r.returncode != 0:
                die(f"{what}: pam-auth-update --package --remove passcode failed ({r.stderr.strip()}): nothing removed")
            say(f"{what}: ran pam-auth-update --package --remove passcode (the profile out of the PAM stacks it was in)")
        elif not ROOT:
            die(f"{what}: the pam-auth-update profile is installed: as root (sudo make {what}), pam-auth-update takes it out of the stacks first")
    owners = dpkg_owners([p for p in files if os.path.lexists(p)]) if ROOT else {}
    removed, kept = [], []
    for p in files:
        if p in owners:
            kept.append(f"{p} (the Debian package {owners[p]} owns it now)")
        elif os.path.lexists(p) and not (os.path.isdir(p) and not os.path.islink(p)):
            os.unlink(p)
            removed.append(p)
    dirs = sorted((p for k, p in entries if k == "d"), key=lambda p: p.count("/"), reverse=True)
    os.unlink(manifest_path)
    mdir = os.path.dirname(manifest_path)
    for d in dirs + ([mdir] if mdir not in dirs else []):
        try:
            os.rmdir(d)
            removed.append(d + "/")
        except OSError:
            pass
    say(f"{what}: removed {len(removed)} files and folders listed in {manifest_path}:")
    for line in compact(removed):
        say(line)
    for k in kept:
        say(f"{what}: left {k}")
    # The loader's cache named the library just removed: it is rebuilt without it.
    if ROOT and any(os.path.basename(p) == "libpasscode.so.0" for p in removed) and shutil.which("ldconfig"):
        subprocess.run(["ldconfig"], check=False)
        say(f"{what}: ran ldconfig: libpasscode.so.0 is out of the loader's cache")


def compact(paths):
    by_dir = {}
    for p in paths:
        by_dir.setdefault(os.path.dirname(p.rstrip("/")), []).append(p)
    out, done = [], set()
    for p in paths:
        d = os.path.dirname(p.rstrip("/"))
        if len(by_dir[d]) > 4:
            top = d
            while os.path.dirname(top) in by_dir and len(by_dir[os.path.dirname(top)]) > 4:
                top = os.path.dirname(top)
            if top not in done:
                done.add(top)
                out.append(f"  {top}/ ({sum(len(v) for k, v in by_dir.items() if k == top or k.startswith(top + '/'))} entries)")
            continue
        if not any(d == t or d.startswith(t + "/") or p.rstrip("/") == t for t in done):
            out.append(f"  {p}")
    return out


def main():
    argv = sys.argv[1:]
    if not argv:
        die(__doc__)
    cmd = argv.pop(0)
    if cmd == "pamdir":
        print(pamdir())
        return
    args = {"manifest": None, "destdir": "", "reads": {}, "libdir": "", "module": "", "what": cmd, "tree": []}
    while argv:
        opt = argv.pop(0)
        val = argv.pop(0) if argv else die(f"{opt} needs a value")
        if opt == "--manifest":
            args["manifest"] = val
        elif opt == "--destdir":
            args["destdir"] = val.rstrip("/")
        elif opt == "--reads":
            k, v = val.split("=", 1)
            args["reads"][k] = v
        elif opt == "--libdir":
            args["libdir"] = val
        elif opt == "--module":
            args["module"] = val
        elif opt == "--what":
            args["what"] = val
        elif opt == "--tree":
            args["tree"].append(val)
        else:
            die(f"unknown option {opt}")
    if not args["manifest"]:
        die("--manifest is needed")
    if cmd == "install":
        install(args)
    elif cmd == "uninstall":
        uninstall(args)
    else:
        die(__doc__)


if __name__ == "__main__":
    main()
