#!/usr/bin/env python3
"""make check-bus fails when one end of passcoded's interfaces lacks what the XML defines.

Each case copies what scripts/gen_bus.py reads (scripts/, service/, Sources/, docs/passcode-service.3.md) into a
temporary folder, breaks one thing there (a property or a hook gone from one side, a generated
file edited, the XML changed alone) and runs `gen_bus.py --check` on the copy: it must fail, with
a message that names what is missing. The untouched copy must pass. Plain Python, no build.
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

STORE_INC = "Sources/passcoded/CPasscodeBus/passcode_bus_store.inc"
PROPS_DAEMON = "Sources/passcoded/Daemon/Service+Properties.swift"
PROPS_CLIENT = "Sources/libpasscode/PasscodeBackend/ServiceClient+Cache.swift"
HOOKS_DAEMON = "Sources/passcoded/Daemon/Service+Hooks.swift"
HOOKS_CLIENT = "Sources/libpasscode/PasscodeBackend/ServiceClient+Hooks.swift"
XML = "service/org.libpasscode.Passcode1.xml"
APP_ID_C = "Sources/pam_passcode/passcode_app_id.h"
ACCOUNT = "Sources/passcoded/Daemon/Service+Account.swift"
LOGIN_DAEMON = "Sources/passcoded/Daemon/Service+Login.swift"


def edit(path, old, new, count=1):
    """Replaces `old` (a regular expression) in `path`; the case is void if it does not occur."""
    def change(tree):
        p = tree / path
        text = p.read_text()
        changed, n = re.subn(old, new, text, count=count, flags=re.M)
        if n == 0:
            raise SystemExit(f"check-bus self-test: {path} has no {old!r} (the case needs updating)")
        p.write_text(changed)
    return change


def both(*changes):
    def change(tree):
        for c in changes:
            c(tree)
    return change


CASES = [
    ("a property left out of the generated sd-bus table",
     edit(STORE_INC, r'^    SD_BUS_PROPERTY\("BiometricLead".*\n', ""),
     "passcode_bus_store.inc differs from what scripts/gen_bus.py writes"),
    ("a property passcoded never sets",
     edit(PROPS_DAEMON, r"biometric_lead: screen\.lead \? 1 : 0,", ""),
     "property BiometricLead (org.libpasscode.Passcode1.Store, service/org.libpasscode.Passcode1.xml): passcoded never sets it"),
    ("a property the client never reads",
     edit(PROPS_CLIENT, r"let lead = values\.biometricLead,", "let lead = Optional(false),"),
     "property BiometricLead (org.libpasscode.Passcode1.Store, service/org.libpasscode.Passcode1.xml): the client never reads it"),
    ("a property added to the XML, not to Watch's reply",
     edit(XML, r'(    <property name="BiometricKind" type="i" access="read"/>\n)',
          r'\1    <property name="Unlocked" type="b" access="read"/>\n'),
     "Watch answers, after its path, the properties of org.libpasscode.Passcode1.Store in order"),
    ("a property added to the XML (and Watch) alone",
     both(edit(XML, r'(    <property name="BiometricKind" type="i" access="read"/>\n)',
               r'\1    <property name="Unlocked" type="b" access="read"/>\n'),
          edit(XML, r'(      <arg name="kind" type="i" direction="out"/>\n    </method>\n    <!-- ==== another user)',
               r'      <arg name="kind" type="i" direction="out"/>\n      <arg name="unlocked" type="b" direction="out"/>\n    </method>\n    <!-- ==== another user')),
     "passcode_bus_store.h differs from what scripts/gen_bus.py writes"),
    ("Watch's generation typed apart from the Generation property",
     edit(XML, r'<arg name="generation" type="t" direction="out"/>', '<arg name="generation" type="x" direction="out"/>'),
     "Watch answers, after its path, the properties of org.libpasscode.Passcode1.Store in order"),
    ("a hook passcoded never asks",
     edit(HOOKS_DAEMON, r"^.*h\.notify = \{ \[self\] notice in tell\(\.notice\(notice: notice\)\) \}.*\n", ""),
     "hook Notice (org.libpasscode.Hook1, service/org.libpasscode.Passcode1.xml): passcoded never asks it"),
    ("a hook the client never answers",
     edit(HOOKS_CLIENT, r"^ *case \.notice\(let value\):\n.*\n", ""),
     "hook Notice (org.libpasscode.Hook1, service/org.libpasscode.Passcode1.xml): the client never answers it"),
    ("a hook added to the XML alone",
     edit(XML, r'(  <interface name="org.libpasscode.Hook1">\n.*\n)',
          r'\1    <method name="Locked">\n      <annotation name="org.libpasscode.Flag" value="locked=64"/>\n'
          r'      <annotation name="org.libpasscode.Hook" value="locked"/>\n'
          r'      <annotation name="org.freedesktop.DBus.Method.NoReply" value="true"/>\n    </method>\n'),
     "hook Locked (org.libpasscode.Hook1, service/org.libpasscode.Passcode1.xml): passcoded never asks it"),
    ("the app id's rule edited in C alone",
     edit(APP_ID_C, r"#define PASSCODE_APP_ID_MAX_BYTES 64", "#define PASSCODE_APP_ID_MAX_BYTES 128"),
     "passcode_app_id.h differs from what scripts/gen_bus.py writes"),
    ("a generated handler written by hand too",
     edit(ACCOUNT, r"(    // MARK: Recovery key\n)",
          r"\1    func handleResetCheck(_ call: BusCall, appID app: AppID, code: SecretBytes) throws -> Prepared { fatalError() }\n"),
     "ResetCheck (service/org.libpasscode.Passcode1.xml): its handler handleResetCheck is generated"),
    ("a login property passcoded never sets",
     edit(LOGIN_DAEMON, r"attempts_left: next\.map \{ Int32\(clamping: \$0\.failuresLeft\) \} \?\? -1,", ""),
     "property AttemptsLeft (org.libpasscode.Passcode1.Login, service/org.libpasscode.Passcode1.xml): passcoded never sets it"),
    ("a login property added to the XML, not to WatchLogin's reply",
     edit(XML, r'(    <property name="FingerprintRefusal" type="i" access="read"/>\n)',
          r'\1    <property name="Unlocked" type="b" access="read"/>\n'),
     "answers, after its path, the properties of org.libpasscode.Passcode1.Login in order"),
]


def copy_tree(into):
    for part in ("scripts", "service", "Sources"):
        shutil.copytree(ROOT / part, into / part, ignore=shutil.ignore_patterns(".build", "__pycache__"))
    (into / "docs").mkdir(exist_ok=True)
    shutil.copy(ROOT / "docs" / "passcode-service.3.md", into / "docs" / "passcode-service.3.md")


def check(tree):
    r = subprocess.run([sys.executable, str(tree / "scripts" / "gen_bus.py"), "--check"], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="check-bus-") as tmp:
        pristine = Path(tmp) / "pristine"
        copy_tree(pristine)
        rc, out = check(pristine)
        if rc != 0:
            print(f"check-bus self-test: FAIL: the untouched copy does not pass:\n{out}", file=sys.stderr)
            return 1
        for name, change, expected in CASES:
            tree = Path(tmp) / "case"
            shutil.copytree(pristine, tree)
            change(tree)
            rc, out = check(tree)
            if rc == 1 and expected in out:
                print(f"ok   check-bus fails on {name}")
            else:
                failed += 1
                print(f"FAIL check-bus on {name}: exit {rc}, and its output does not say {expected!r}:\n{out}", file=sys.stderr)
            shutil.rmtree(tree)
    print(f"check-bus self-test: {len(CASES) - failed} of {len(CASES)} broken copies refused")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
