"""The finger read for another user's login store, through the Python binding in service mode,
as pam_passcode's `fingerprint` option reads it (run by test_service.py as root, the fprintd
template on the bus in DBUS_SYSTEM_BUS_ADDRESS, root's process at the seat):
user_fingerprint_ready, user_fingerprint_unlock and user_fingerprint_cancel from another
thread. Usage: user_fingerprint.py UID PASSCODE. Prints "ok"/"FAIL" lines; exits with the failures."""
import sys
import threading
import time

import dbus
import dbusmock
import passcode

UID, PIN = int(sys.argv[1]), sys.argv[2]
failed = 0
bus = dbus.SystemBus()
mock = dbus.Interface(bus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager"), dbusmock.MOCK_IFACE)
READER = str(dbus.Interface(bus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager"),
                            "net.reactivated.Fprint.Manager").GetDefaultDevice())


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failed += 0 if ok else 1


def count(what):
    return sum(1 for m, _ in mock.GetRecord(READER) if str(m) == what)


def wait_count(n, what):
    """Until the reader's record holds `n` entries `what` (its own call: an event, not a time)."""
    for _ in range(1500):
        if count(what) >= n:
            return True
        time.sleep(0.02)
    return False


def events(store, kind):
    return sum(1 for e in store.user_events(UID) if e.kind.name.lower() == kind)


root = passcode.Store("login", service="login")
root.user_set_passcode(UID, PIN)
root.user_verify(UID, PIN)  # a PIN entered in this boot: the finger may be read
root.user_fingerprint_ready(UID)
check(True, "user_fingerprint_ready: a reader, a finger, root at the seat, the PIN entered in this boot")

# A read cancelled from another thread: the call ends as InvalidState, passcoded releases the
# reader at once (fprint_timeout is far), and every later read on that handle ends at once.
reader = passcode.Store("login", service="login")
outcome = {}


def read():
    try:
        reader.user_fingerprint_unlock(UID)
        outcome["r"] = "match"
    except passcode.PasscodeError as e:
        outcome["r"] = type(e).__name__


starts, releases = count("VerifyStart"), count("Release")
th = threading.Thread(target=read)
th.start()
reading = wait_count(starts + 1, "VerifyStart")
reader.user_fingerprint_cancel()
th.join()
released = wait_count(releases + 1, "Release")
claims = count("Claim")
try:
    reader.user_fingerprint_unlock(UID)
    later = "match"
except passcode.PasscodeError as e:
    later = type(e).__name__
check(reading and outcome.get("r") == "InvalidState" and released and later == "InvalidState" and count("Claim") == claims,
      f"user_fingerprint_cancel from another thread: the read ends as {outcome.get('r')}, the reader released; a later read "
      f"on the handle: {later}, nothing claimed")

# A match: counted as the core counts a biometric unlock.
before = events(root, "unlocked_by_biometrics")
mock.QueueVerifyResult(READER, "verify-match")
passcode.Store("login", service="login").user_fingerprint_unlock(UID)
check(events(root, "unlocked_by_biometrics") == before + 1, "user_fingerprint_unlock: a match is a biometric unlock in the log")

# A no-match: PasscodeRequired, counted as a failed match.
before = events(root, "biometric_failed")
mock.QueueVerifyResult(READER, "verify-no-match")
try:
    passcode.Store("login", service="login").user_fingerprint_unlock(UID)
    got = "match"
except passcode.PasscodeError as e:
    got = type(e).__name__
check(got == "PasscodeRequired" and events(root, "biometric_failed") == before + 1,
      f"user_fingerprint_unlock: a no-match is {got}, one failed match in the log")
check(count("Claim") == count("Release"), "every claim released")
sys.exit(1 if failed else 0)
