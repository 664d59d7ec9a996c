"""The Python binding in service mode (Store(..., service=APP_ID)), as a process of a test user
against passcoded on the bus in DBUS_SYSTEM_BUS_ADDRESS (run by test_service.py).
Usage: service_python.py APP_ID GOOD_PASSCODE. Prints "ok"/"FAIL" lines; exits with the failures.

passcoded sends codes and numbers, never prose for people: the texts a person reads are made in this
process from them, in its own language (German here, LANGUAGE=de, and English in the C locale)."""
import locale
import os
import sys
from ctypes import byref, c_int32, c_int64

import passcode
from passcode import InvalidArgument, LockReason, Message, SecurityEvent, Setting
from passcode._ffi import EVENT_LOG, lib

APP, GOOD = sys.argv[1], sys.argv[2]
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failed += 0 if ok else 1


def in_german(fn):
    """fn() with this process's messages in German: LANGUAGE=de in the C.UTF-8 locale (which needs
    no German locale installed); then the C locale again. None, with SKIPPED, without C.UTF-8."""
    os.environ["LANGUAGE"] = "de"
    try:
        locale.setlocale(locale.LC_ALL, "C.UTF-8")
    except locale.Error:
        print("SKIPPED a German text: this machine has no C.UTF-8 locale", flush=True)
        return None
    try:
        return fn()
    finally:
        locale.setlocale(locale.LC_ALL, "C")


def person_reads(store):
    """passcode_errmessage of the store: (message, number)."""
    code, number = c_int32(-1), c_int64(-1)
    lib.passcode_errmessage(store._h(), byref(code), byref(number))
    return code.value, number.value


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
e = raises(passcode.WrongPasscode, lambda: s.verify("000111"), "a wrong passcode")
check(s.failed_attempts == 1, f"counted: {s.failed_attempts}")
shown = person_reads(s)
check(shown == (Message.INCORRECT_PASSCODE, 0) and e is not None and e.person == shown,
      f"passcode_errmessage: what a person reads for passcoded's WrongPasscode: {shown}")
text = in_german(lambda: passcode.message_text(*shown))
check(text in (None, "Falscher Code") and passcode.message_text(*shown) == "Incorrect passcode",
      f"its text in German, made here from the code: {text!r}; in the C locale: {passcode.message_text(*shown)!r}")
raises(InvalidArgument, lambda: lib.passcode_errmessage(s._h(), None, None), "passcode_errmessage with a NULL out_message")
check(person_reads(s) == shown and s.failed_attempts == 1, "the refused call changed nothing")
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
# The log's entries in words, as codes: passcoded's detail ("auto_lock_seconds 3600 -> 1800") read
# here as AUTO_LOCK_MINUTES 30; an index past the end and a NULL out_message refused.
log = EVENT_LOG()
lib.passcode_event_log_new(s._h(), byref(log))
count = lib.passcode_event_log_count(log)
code = c_int32(-1)
raises(InvalidArgument, lambda: lib.passcode_event_log_message(log, count, 0, byref(code), None), "a log index past its end")
raises(InvalidArgument, lambda: lib.passcode_event_log_message(log, 0, 0, None, None), "a log entry with a NULL out_message")
lib.passcode_event_log_message(log, 0, 1, byref(code), None)
check(code.value == Message.NONE, f"after a setting change's one part: NONE ({code.value})")
lib.passcode_event_log_free(log)
newest = s.events()[0]
check(newest.kind == SecurityEvent.SETTING_CHANGED and newest.words == ((Message.AUTO_LOCK_MINUTES, 30),),
      f"the newest entry in words: {newest.words}")
text = in_german(lambda: passcode.message_text(*newest.words[0]))
check(text in (None, "Automatische Sperre auf 30 Minuten gesetzt")
      and passcode.message_text(*newest.words[0]) == "Auto-lock set to 30 minutes", f"in German: {text!r}")
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
check(f.messages == (Message.ENTER_PASSCODE, Message.NONE, 0), f"the flow's codes: {f.messages}")
f.type("000001")
check(f.error == "Incorrect passcode" and f.shakes == 1 and s.failed_attempts == 1, f"an unlock flow's wrong passcode: {f.error}")
check(f.messages == (Message.ENTER_PASSCODE, Message.INCORRECT_PASSCODE, 0), f"its codes: {f.messages}")
text = in_german(lambda: [passcode.message_text(m) for m in f.messages[:2]])
check(text in (None, ["Code eingeben", "Falscher Code"]), f"in German: {text}")
f.type(GOOD)
key = f.take_key()
check(f.result == passcode.FlowResult.SUCCESS and len(key) == 32 and s.failed_attempts == 0, f"the flow unlocks: {f.result}")
check(f.messages == (Message.FLOW_DONE, Message.NONE, 0), f"a finished flow's codes: {f.messages}")
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
