"""The Python binding in service mode (Store(..., service=APP_ID)), as a process of a test user
against passcoded on the bus in DBUS_SYSTEM_BUS_ADDRESS (run by test_service.py).
Usage: service_python.py APP_ID GOOD_PASSCODE. Prints "ok"/"FAIL" lines; exits with the failures."""
import os
import sys

import passcode
from passcode import LockReason, Setting

APP, GOOD = sys.argv[1], sys.argv[2]
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failed += 0 if ok else 1


def raises(cls, fn, what):
    try:
        fn()
    except cls as e:
        check(True, f"{what}: {type(e).__name__}: {e.message}")
        return e
    except Exception as e:  # noqa: BLE001 - reported as a failure with its class
        check(False, f"{what}: {type(e).__name__}: {e}, expected {cls.__name__}")
        return None
    check(False, f"{what}: no error, expected {cls.__name__}")
    return None


s = passcode.Store("service", service=APP)
check(not s.is_set, "a new store in service mode has no passcode")
raises(passcode.WeakPasscode, lambda: s.set_passcode("123456"), "a weak passcode")
s.set_passcode(GOOD)
check(s.is_set and s.is_enabled, "set: the lock is on")
raises(passcode.WrongPasscode, lambda: s.verify("000111"), "a wrong passcode")
check(s.failed_attempts == 1, f"counted: {s.failed_attempts}")
s.verify(GOOD)
check(s.failed_attempts == 0 and s.lock_state == (False, LockReason.NONE), f"the right one unlocks: {s.lock_state}")
screen = s.lock_screen()
check(screen.passcode_set and screen.lock_enabled and not screen.locked, f"the lock screen: {screen}")
other = passcode.Store("service", service=APP)  # a handle that has not seen the passcode
raises(passcode.PasscodeRequired, lambda: other.set_setting(Setting.AUTO_LOCK_SECONDS, 3600), "a weakening change without authorize")
other.authorize(GOOD)
other.set_setting(Setting.AUTO_LOCK_SECONDS, 3600)
check(s.get_setting(Setting.AUTO_LOCK_SECONDS) == 3600, "with authorize it is stored, and the first handle sees it")
other.close()
s.set_setting(Setting.AUTO_LOCK_SECONDS, 1800)
check(s.get_setting(Setting.AUTO_LOCK_SECONDS) == 1800, "the handle that verified the passcode may weaken too, as embedded")
for name, kwargs in (("the clock", {"clock": lambda: (1, 1, 1)}), ("the Argon2id cost", {"cost": passcode.Cost.SENSITIVE}),
                     ("the pepper", {"pepper": bytes(32)}), ("allow_weak", {"allow_weak": True}),
                     ("the TPM option", {"tpm": True})):
    e = raises(passcode.RefusedInServiceMode, lambda: passcode.Store("service", service=APP, **kwargs), f"service mode with {name}")
    check(e is not None and name in e.message and isinstance(e, passcode.ServiceError), f"the message names {name}")
# The host reports no match: passcoded reads the finger through fprintd, and none is on this bus.
e = raises(passcode.BiometricUnavailable, s.biometric_unlock, "a biometric unlock without fprintd")
check(e is not None and "fprintd" in e.message, "the message names fprintd")
# No code for the host: passcoded mails it itself, and this daemon has no relay configured.
e = raises(passcode.ResetDeliveryUnavailable, s.request_reset_code, "a reset code without a relay")
check(e is not None and "relay" in e.message, f"the message says no relay is configured: {e.message if e else ''}")
raises(passcode.NoResetCode, lambda: s.flow(passcode.FlowKind.RESET), "a reset flow: service mode hands the host no reset code")
f = s.flow(passcode.FlowKind.UNLOCK)  # flows run through the service (Tests/service/area_key.c)
f.type("000001")
check(f.error == "Incorrect passcode" and f.shakes == 1 and s.failed_attempts == 1, f"an unlock flow's wrong passcode: {f.error}")
f.type(GOOD)
key = f.take_key()
check(f.result == passcode.FlowResult.SUCCESS and len(key) == 32 and s.failed_attempts == 0, f"the flow unlocks: {f.result}")
sealed = s.seal(b"notes")
check(s.unseal(sealed) == b"notes", "the handle seals and unseals with its key")
check(s.unlock_key(GOOD) == key, "unlock_key gives the flow's key")
f.close()
# The user calls (passcode.user): this process's own uid names this store; another uid, and the
# root-only calls, are refused with nothing counted.
me = os.getuid()
state = s.user_state(me)
check(state == passcode.UserState(True, 0, 0, False, len(GOOD)), f"user_state of its own uid: {state}")
raises(passcode.WrongPasscode, lambda: s.user_verify(me, "000222"), "user_verify with a wrong passcode")
check(s.failed_attempts == 1 and s.user_state(me).failures == 1, f"counted on the store: {s.failed_attempts}")
s.user_verify(me, GOOD)
check(s.failed_attempts == 0, "user_verify with the right one clears the failures")
check(len(s.user_events(me)) > 0 and s.user_events(me)[0].kind == s.events()[0].kind, "user_events is the store's log")
NEW = GOOD[::-1]
s.user_change(me, GOOD, NEW)
s.verify(NEW)
s.user_change(me, NEW, GOOD)
check(s.failed_attempts == 0, "user_change with the current passcode, and back")
raises(passcode.PermissionDenied, lambda: s.user_state(me + 1), "user_state of another uid")
raises(passcode.PermissionDenied, lambda: s.user_lockout(me), "user_lockout of a store that is not a login store")
raises(passcode.PermissionDenied, lambda: s.user_lockout(me + 1), "user_lockout of another uid")
login = passcode.Store("login", service="login")
lo = login.user_lockout(me)
check(lo.state == passcode.LoginState.NO_PASSCODE and lo.attempts_left == -1, f"user_lockout of its own login store, no PIN: {lo}")
raises(passcode.PermissionDenied, lambda: login.user_lockout(me + 1), "user_lockout of another uid's login store")
login.close()
raises(passcode.PermissionDenied, lambda: s.user_verify(me + 1, GOOD), "user_verify of another uid")
raises(passcode.PermissionDenied, lambda: s.user_events(me + 1), "user_events of another uid")
raises(passcode.PermissionDenied, lambda: s.user_set_passcode(me, NEW), "user_set_passcode: root's")
raises(passcode.PermissionDenied, lambda: s.user_reset(me), "user_reset: root's")
raises(passcode.PermissionDenied, lambda: s.user_remove(me), "user_remove without the passcode: root's")
check(s.failed_attempts == 0 and s.is_set, "nothing counted or removed by the refused calls")
# The TPM is passcoded's to choose (passcoded.conf): the host neither binds nor unbinds.
raises(passcode.RefusedInServiceMode, lambda: s.tpm_bind(GOOD), "tpm_bind in service mode")
raises(passcode.RefusedInServiceMode, lambda: s.tpm_unbind(GOOD), "tpm_unbind in service mode")
check(s.failed_attempts == 0, "neither counted an attempt")
s.user_remove(me, GOOD)
check(not s.is_set, "user_remove with the passcode: its own")
s.set_passcode(GOOD)
s.remove(GOOD)
check(not s.is_set, "removed")
s.close()
sys.exit(min(failed, 100))
