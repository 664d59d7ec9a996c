"""Every feature through Python, bad input from Python, and callbacks that raise."""
import os
import subprocess
import sys
import threading

import pytest

import passcode
from passcode import (BiometricKind, BiometricRefusal, Event, FlowKind, FlowResult, FlowStep, LifecycleEvent, LockReason,
                      LogoutReason, Notice, Setting)

from conftest import SERVICE, PC1, PC2, PC3, ROOT, ONLY_CLOCK, ONLY_FILE, ONLY_OPEN, ONLY_PEPPER, ONLY_PROCESS


@pytest.mark.embedded_only(ONLY_FILE)
def test_set_verify_and_persist(tmp_path, clock):
    path = str(tmp_path / "p.db")
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        assert not s.is_set
        s.set_passcode(PC1)
        assert s.is_set and s.is_enabled and s.length == 6
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        with pytest.raises(passcode.WrongPasscode) as e:
            s.verify(PC2)
        assert e.value.status == passcode.Status.ERR_WRONG_PASSCODE
        assert "incorrect passcode" in str(e.value)
        assert s.failed_attempts == 1
        s.verify(PC1.encode())
        assert s.failed_attempts == 0


def test_change_disable_enable_remove(locked_store):
    s = locked_store
    with pytest.raises(passcode.WeakPasscode) as e:
        s.change(PC1, "123456")
    assert "123456" not in str(e.value)
    s.change(PC1, PC2)
    s.disable(PC2)
    assert s.is_set and not s.is_enabled
    s.enable()
    assert s.is_enabled
    with pytest.raises(passcode.WrongPasscode):
        s.remove(PC1)
    s.remove(PC2)
    assert not s.is_set


def test_lockout_carries_seconds_remaining(locked_store, clock):
    for i in range(5):
        with pytest.raises(passcode.WrongPasscode):
            locked_store.verify(f"90000{i}")
    with pytest.raises(passcode.LockedOut) as e:
        locked_store.verify(PC1)
    assert e.value.seconds_remaining == 60
    clock.advance(60)
    locked_store.verify(PC1)


def test_lock_state_and_lifecycle(locked_store, clock):
    s = locked_store
    s.set_setting(Setting.AUTO_LOCK_SECONDS, 60)
    assert s.report(Event.LAUNCHED) is True
    assert s.lock_state == (True, LockReason.LAUNCH)
    s.verify(PC1)
    s.report(Event.BACKGROUND)
    clock.advance(61)
    assert s.report(Event.FOREGROUND) is True
    assert s.lock_state[1] == LockReason.BACKGROUND


def test_biometrics(locked_store, finger):
    # Embedded the host reports a match; in service mode passcoded reads the finger (fprintd).
    s = locked_store
    with pytest.raises(passcode.BiometricUnavailable):
        s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
    s.set_biometric_availability(True, BiometricKind.TOUCH_ID)
    # In service mode the kind is fprintd's (a fingerprint reader is there), not the host's word.
    assert s.security_label == ("Passcode & Fingerprint" if SERVICE else "Passcode & Touch ID")
    s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
    assert s.security_label == "Passcode & Fingerprint"
    s.set_biometric_availability(True, BiometricKind.TOUCH_ID)
    s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
    s.report(Event.LAUNCHED)  # per boot, as on iOS: the passcode was entered in this boot
    assert s.locked and not s.biometric_lead  # locked at launch: the pad leads
    finger("verify-match")
    s.biometric_unlock()
    assert not s.locked
    s.set_setting(Setting.PASSCODE_AFTER_EVERY_LAUNCH, 1)
    s.report(Event.LAUNCHED)
    with pytest.raises(passcode.PasscodeRequired) as e:
        s.biometric_unlock()
    assert e.value.reason == BiometricRefusal.FIRST_UNLOCK_AFTER_LAUNCH
    s.verify(PC1)
    s.set_setting(Setting.PASSCODE_AFTER_EVERY_LAUNCH, 0)
    s.set_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH, 1)
    s.report(Event.LAUNCHED)
    assert s.locked and s.biometric_lead  # "Require on App Launch": the prompt leads
    s.verify(PC1)
    s.report(Event.LOCK_NOW)
    assert s.biometric_refusal == BiometricRefusal.NONE
    finger("verify-match")
    s.biometric_unlock()
    assert not s.locked
    s.report(Event.LOCK_NOW)
    if SERVICE:  # a finger that does not match: passcoded counts it as a failed match
        finger("verify-no-match")
        with pytest.raises(passcode.PasscodeRequired):
            s.biometric_unlock()
    assert s.biometric_failed() == (2 if SERVICE else 1)
    assert s.locked


def test_lifecycle_hook_hears_each_change_and_can_refuse_it(store):
    seen = []
    refuse = []

    def hook(event):
        if refuse:
            raise RuntimeError("backend offline")
        seen.append(event)

    store.lifecycle_hook(hook)
    refuse.append(1)
    with pytest.raises(passcode.HookFailed) as e:
        store.set_passcode(PC1)
    assert "backend offline" in e.value.message and not store.is_set
    refuse.clear()
    store.set_passcode(PC1)
    store.change(PC1, PC2)
    store.disable(PC2)
    store.enable()
    store.remove(PC2)
    assert seen == [LifecycleEvent.SET, LifecycleEvent.CHANGED, LifecycleEvent.DISABLED,
                    LifecycleEvent.ENABLED, LifecycleEvent.REMOVED]
    store.lifecycle_hook(None)
    store.set_passcode(PC1)
    assert len(seen) == 5


def test_settings_hook_rolls_back_and_exceptions_become_failures(store):
    seen = []

    def hook(key, old, new):
        seen.append((key, old, new))
        raise RuntimeError("backend offline")

    store.settings_hook(hook)
    with pytest.raises(passcode.HookFailed) as e:
        store.set_setting(Setting.AUTO_LOCK_SECONDS, 300)
    assert "backend offline" in e.value.message
    assert store.get_setting(Setting.AUTO_LOCK_SECONDS) == 900
    assert seen == [("auto_lock_seconds", "900", "300")]
    store.settings_hook(None)
    store.set_setting(Setting.AUTO_LOCK_SECONDS, 300)
    assert store.get_setting(Setting.AUTO_LOCK_SECONDS) == 300
    with pytest.raises(passcode.InvalidSetting):
        store.set_setting(Setting.AUTO_LOCK_SECONDS, 120)


def test_reset_code_flow_and_notices(locked_store, clock, mailbox):
    s = locked_store
    notices = []
    mailbox.attach(s)  # the host's callback; in service mode passcoded mails the code
    s.on_notice(notices.append)
    mailbox.request(s)
    codes = mailbox.codes
    assert len(codes) == 1 and len(codes[0]) == 8 and codes[0].isdigit()
    assert s.reset_pending
    if SERVICE:
        # passcoded sends and spends nothing while a code is pending: no mail, no error.
        s.request_reset_code()
        assert mailbox._collect(os.environ["PASSCODE_TEST_MAIL_DIR"]) == [] and mailbox.codes == codes
        assert s.reset_retry_after == 60
    else:
        with pytest.raises(passcode.RateLimited) as e:
            mailbox.request(s)
        assert e.value.seconds_remaining == 60
    clock.advance(45)
    assert s.reset_retry_after == 15
    with s.flow(FlowKind.RESET) as f:
        f.type(codes[0])
        assert f.step == FlowStep.ENTER_NEW
        f.type(PC2)
        f.type(PC2)
        assert f.result == FlowResult.SUCCESS
    assert notices == [Notice.PASSCODE_RESET]
    s.verify(PC2)


def test_failed_delivery_fails_the_request_without_leaking_the_code(locked_store, mailbox):
    if not SERVICE:
        # The host's callback raises: its exception names the code, the error does not.
        captured = []

        def deliver(code):
            captured.append(code)
            raise ValueError(f"cannot send {code}")

        locked_store.on_reset_code(deliver)
        with pytest.raises(passcode.HookFailed) as e:
            locked_store.request_reset_code()
        assert captured and captured[0] not in str(e.value)
        assert "ValueError" in str(e.value)
    else:
        # passcoded's relay refuses the mail: the code it made is in no reply.
        mailbox.attach(locked_store)
        mailbox.fail = True
        with pytest.raises(passcode.ResetDeliveryUnavailable) as e:
            mailbox.request(locked_store)
        assert len(mailbox.handed) == 1 and mailbox.handed[0] not in str(e.value)
        assert "forgot passcode" in str(e.value)
    assert not locked_store.reset_pending


def test_reset_recipient_needs_the_passcode_and_is_shown_masked(locked_store):
    s = locked_store
    if not SERVICE:
        # The embedded store hands its codes to on_reset_code: there is no recipient to keep.
        with pytest.raises(passcode.InvalidState):
            s.set_reset_recipient("jane.doe@example.org", PC1)
        with pytest.raises(passcode.InvalidState):
            s.confirm_reset_recipient("12345678", PC1)
        with pytest.raises(passcode.InvalidState):
            s.reset_recipient
        assert s.failed_attempts == 0
        return
    assert s.reset_recipient == ""
    if os.geteuid() == 0:
        # Root sets its own stores' recipient without the passcode (passcoded(8)); nothing counted.
        s.set_reset_recipient("root.admin@example.org", PC3)
        assert s.reset_recipient == "r***@example.org" and s.failed_attempts == 0
    else:
        with pytest.raises(passcode.WrongPasscode):
            s.set_reset_recipient("jane.doe@example.org", PC3)
        assert s.reset_recipient == "" and s.failed_attempts == 1
    with pytest.raises(passcode.InvalidArgument):
        s.set_reset_recipient("not an address", PC1)
    with pytest.raises(passcode.InvalidState):
        s.confirm_reset_recipient("12345678", PC1)  # no address waits for a code
    if os.geteuid() == 0:
        s.set_reset_recipient("jane.doe@example.org", PC1)
        assert s.reset_recipient == "j***@example.org"
    # A user's address waits for the code passcoded mails to it (test_service.py's mail test
    # confirms one); "" removes the recipient either way.
    s.set_reset_recipient("", PC1)
    assert s.reset_recipient == ""


def test_void_callbacks_that_raise_never_crash(locked_store):
    def boom(*_):
        raise RuntimeError("host bug")

    locked_store.on_logout(boom)
    locked_store.forgot()
    assert not locked_store.is_set


def test_remove_store_with_the_passcode_or_freely_without_one(locked_store, clock, tmp_path):
    s = locked_store
    path = s._path
    with pytest.raises(passcode.PasscodeRequired):
        s.remove_store()
    with pytest.raises(passcode.WrongPasscode):
        s.remove_store(PC2)
    assert s.failed_attempts == 1 and s.is_set  # counted, nothing removed
    s.remove_store(PC1)
    with pytest.raises(passcode.StoreRemoved) as e:
        s.verify(PC1)
    assert e.value.status == passcode.Status.ERR_STORE_REMOVED and "removed" in e.value.message
    with pytest.raises(passcode.StoreRemoved):
        _ = s.is_set
    s.close()
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as fresh:
        assert not fresh.is_set and fresh.failed_attempts == 0
        with pytest.raises(passcode.NoPasscode):
            fresh.remove_store(PC1)
        fresh.remove_store()
        with pytest.raises(passcode.StoreRemoved):
            fresh.set_passcode(PC1)


def test_forgot_passcode_logs_out(locked_store):
    reasons = []
    locked_store.on_logout(reasons.append)
    locked_store.forgot()
    assert reasons == [LogoutReason.FORGOT_PASSCODE]


def test_flows(store):
    with store.flow(FlowKind.CREATE) as f:
        assert f.prompt == "Enter a passcode"
        f.type("38")
        assert f.dots == (2, 6)
        f.delete()
        assert f.dots == (1, 6)
        f.delete()
        f.type(PC1)
        f.type(PC2)
        assert f.error == "Passcodes don't match. Try again." and f.shakes == 1
        f.type(PC1)
        f.type(PC1)
        assert f.result == FlowResult.SUCCESS
        with pytest.raises(passcode.InvalidState):
            f.digit(1)
    with store.flow(FlowKind.UNLOCK) as f:
        f.type(PC2)
        assert f.error == "Incorrect passcode" and f.status == passcode.Status.ERR_WRONG_PASSCODE
        with pytest.raises(passcode.InvalidArgument):
            f.digit(12)
        with pytest.raises(passcode.InvalidArgument):
            f.type("1a")
    with pytest.raises(passcode.AlreadySet):
        store.flow(FlowKind.CREATE)


def test_account(store):
    deleted = []
    store.on_account_deleted(lambda: deleted.append(True))
    with pytest.raises(passcode.PasswordTooShort):
        store.check_password_change("old", "short", "short")
    with pytest.raises(passcode.PasswordMismatch):
        store.check_password_change("old", "long enough", "long enougH")
    with pytest.raises(passcode.PasswordEmpty):
        store.check_password_change("", "long enough", "long enough")
    store.check_password_change("old", "ünïcødé!", "ünïcødé!")
    assert store.get_setting(Setting.LAST_PASSWORD_CHANGE) > 0
    store.record_session("me", "My Laptop", "Linux", 3000, "Berlin", is_current=True)
    store.record_session("tab", "Tablet", "Android", 2000)
    store.record_session("mac", "MacBook Pro", "macOS", 1000, "Leeds")
    assert [x.id for x in store.sessions()] == ["me", "tab", "mac"]
    assert store.sessions()[1].location is None
    with pytest.raises(passcode.SessionIsCurrent):
        store.sign_out("me")
    with pytest.raises(passcode.SessionNotFound):
        store.sign_out("nope")

    def refuse(sid):
        if sid == "mac":
            raise ConnectionError("backend down")

    store.session_hook(refuse)
    with pytest.raises(passcode.HookFailed):
        store.sign_out_others()
    assert [x.id for x in store.sessions()] == ["me", "mac"]
    with pytest.raises(passcode.ConfirmationMismatch):
        store.delete_account("delete")
    assert deleted == []
    store.delete_account("DELETE")
    assert deleted == [True] and store.sessions() == []


@pytest.mark.parametrize("bad", [None, 123456, 3.5, ["3", "8"], object()])
def test_wrong_types_raise_type_error_and_change_nothing(locked_store, bad):
    with pytest.raises(TypeError):
        locked_store.verify(bad)
    assert locked_store.failed_attempts == 0


@pytest.mark.parametrize("bad", ["38649", "3864911", "38a491", "38\x00491", "３８６４９１", "x" * 100_000, b"\xff" * 6, ""])
def test_malformed_passcodes_are_format_errors_and_not_attempts(locked_store, bad):
    with pytest.raises((passcode.FormatError, passcode.InvalidArgument)):
        locked_store.verify(bad)
    assert locked_store.failed_attempts == 0


@pytest.mark.embedded_only(ONLY_OPEN)
def test_other_bad_input(store, tmp_path):
    with pytest.raises(TypeError):
        store.get_setting("auto_lock_seconds")
    with pytest.raises(ValueError):
        store.get_setting(99)
    with pytest.raises(TypeError):
        store.set_setting(Setting.AUTO_LOCK_SECONDS, "60")
    with pytest.raises(TypeError):
        store.record_session(None, "x", "y", 0)
    with pytest.raises(TypeError):
        passcode.Store(42)
    with pytest.raises(passcode.NotFound):
        passcode.Store(str(tmp_path / "missing" / "x.db"))
    with pytest.raises(passcode.IsDirectory):
        passcode.Store(str(tmp_path))
    with pytest.raises(passcode.InvalidArgument):
        passcode.Store(str(tmp_path / "p.db"), pepper=b"short")
    with pytest.raises(passcode.InvalidArgument):
        passcode.Store(str(tmp_path / "nul\0.db"))
    assert not (tmp_path / "p.db").exists()
    (tmp_path / "text.db").write_text("hello")
    os.chmod(tmp_path / "text.db", 0o644)
    with pytest.raises(passcode.NotAStore) as e:  # not ours: no advice to chmod another program's file
        passcode.Store(str(tmp_path / "text.db"))
    assert "not a libpasscode store" in e.value.message and "chmod" not in e.value.message
    os.chmod(tmp_path / "text.db", 0o600)
    with pytest.raises(passcode.NotAStore):
        passcode.Store(str(tmp_path / "text.db"))
    with pytest.raises(ValueError):
        store.length = 3
    store.close()
    with pytest.raises(passcode.InvalidHandle):
        store.is_set
    store.close()


@pytest.mark.embedded_only(ONLY_PEPPER)
def test_pepper(tmp_path, clock):
    path = str(tmp_path / "pep.db")
    with passcode.Store(path, ops_limit=1, mem_limit=8192, pepper=bytes(range(32)), clock=clock) as s:
        s.set_passcode(PC1)
        s.verify(PC1)
    with pytest.raises(passcode.WrongPepper):
        passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock)
    with pytest.raises(passcode.WrongPepper):
        passcode.Store(path, ops_limit=1, mem_limit=8192, pepper=bytes(32), clock=clock)
    with passcode.Store(path, ops_limit=1, mem_limit=8192, pepper=bytes(range(32)), clock=clock) as s:
        s.verify(PC1)


def test_threads_share_a_store(locked_store):
    locked_store.set_custom_schedule([0], 0)
    errors = []

    def worker(n):
        for i in range(3):
            try:
                locked_store.verify(f"7{n:02d}{i:03d}")
            except passcode.WrongPasscode:
                pass
            except Exception as e:
                errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert locked_store.failed_attempts == 24


def test_queries_from_new_threads_read_their_own_answers(locked_store):
    """The hot queries' out-buffers are per thread and made at a thread's first query: a thread
    that starts after the store was opened reads the same answers as the thread that opened it."""
    locked_store.set_custom_schedule([0], 0)
    with pytest.raises(passcode.WrongPasscode):
        locked_store.verify("900001")
    expected = (locked_store.is_set, locked_store.failed_attempts, locked_store.lockout_remaining, locked_store.lock_screen())
    seen, errors = [], []

    def worker():
        try:
            for _ in range(200):
                seen.append((locked_store.is_set, locked_store.failed_attempts, locked_store.lockout_remaining,
                             locked_store.lock_screen()))
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert expected[0] is True and expected[1] == 1
    assert len(seen) == 800 and all(answer == expected for answer in seen)


def test_version_mismatch_is_a_clear_import_error(tmp_path):
    code = ("import sys; sys.path.insert(0, %r); from passcode import _ffi; _ffi.EXPECTED_VERSION = (9, 0); "
            "_ffi.load()" % os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0
    assert "does not fit this binding" in r.stderr


def test_missing_library_is_a_clear_import_error():
    env = dict(os.environ, PASSCODE_LIBRARY="/nonexistent/libpasscode.so.0")
    r = subprocess.run([sys.executable, "-c", "import passcode"], capture_output=True, text=True, env=env,
                       cwd=os.path.join(ROOT, "python"))
    assert r.returncode != 0 and "set PASSCODE_LIBRARY" in r.stderr


def test_settings_describe_themselves():
    assert passcode.setting_choices(Setting.AUTO_LOCK_SECONDS) == [0, 60, 300, 900, 1800, 3600]
    assert passcode.setting_choices(Setting.LOCKOUT_SCHEDULE) == [int(v) for v in passcode.Schedule]
    assert passcode.setting_choices(Setting.RESET_CODE_LENGTH) == []
    assert passcode.setting_bounds(Setting.RESET_CODE_LENGTH) == (6, 10)
    assert passcode.setting_default(Setting.AUTO_LOCK_SECONDS) == 900
    assert passcode.setting_weakens(Setting.AUTO_LOCK_SECONDS, 60, 3600)
    assert not passcode.setting_weakens(Setting.AUTO_LOCK_SECONDS, 3600, 60)
    with pytest.raises(ValueError):  # not a Setting
        passcode.setting_bounds(99)


def test_failures_raise_through_errcheck_with_the_library_message(locked_store, clock):
    # No hand-written status checks: the ctypes table raises, with the handle's own message.
    with pytest.raises(passcode.FormatError) as e:
        locked_store.verify("12")
    assert "6 digits" in e.value.message
    flow = locked_store.flow(FlowKind.UNLOCK)
    with pytest.raises(passcode.InvalidArgument) as e:
        flow.digit(11)  # a flow's failure carries its store's message
    assert "0 to 9" in e.value.message
    flow.close()
    for i in range(5):
        with pytest.raises(passcode.WrongPasscode):
            locked_store.verify("9%05d" % (13579 + 2 * i))
    clock.advance(15)
    with pytest.raises(passcode.LockedOut) as e:
        locked_store.verify(PC1)
    assert e.value.seconds_remaining == 45  # from the failure itself, not a second query


def test_binding_version_comes_from_the_version_file():
    with open(os.path.join(ROOT, "VERSION")) as f:
        assert passcode.__version__ == f.read().strip()


def test_weakening_needs_a_fresh_passcode(locked_store, clock):
    # set_passcode was the proof; 5 minutes later it is stale
    clock.advance(301)
    with pytest.raises(passcode.PasscodeRequired):
        locked_store.set_setting(Setting.AUTO_LOCK_SECONDS, 3600)
    locked_store.set_setting(Setting.AUTO_LOCK_SECONDS, 60)  # shorter: no proof needed
    locked_store.authorize(PC1)
    locked_store.set_setting(Setting.AUTO_LOCK_SECONDS, 3600)
    locked_store.report(Event.LOCK_NOW)
    with pytest.raises(passcode.AppLocked):
        locked_store.set_setting(Setting.AUTO_LOCK_SECONDS, 60)


def test_security_log_and_failure_summary(locked_store, clock):
    for i in range(3):
        with pytest.raises(passcode.WrongPasscode):
            locked_store.verify("9%05d" % (24680 + 2 * i))
    assert locked_store.failures_since_unlock == 3
    last = locked_store.last_failure_ms
    locked_store.verify(PC1)
    assert locked_store.failures_since_unlock == 3  # what to tell the user right after the unlock
    assert locked_store.last_failure_ms == last
    kinds = [e.kind for e in locked_store.events()]
    assert kinds[0] == passcode.SecurityEvent.UNLOCKED_BY_PASSCODE  # newest first
    assert kinds.count(passcode.SecurityEvent.FAILED_ATTEMPT) == 3
    assert kinds[-1] == passcode.SecurityEvent.PASSCODE_SET
    assert all(PC1 not in e.detail for e in locked_store.events())


def test_version_of_the_binding_and_the_library_agree_in_tree():
    assert passcode.__version__ == passcode.version()
    assert os.path.exists(os.path.join(os.path.dirname(passcode.__file__), "py.typed"))


def _singles(s):
    """What the single calls say: the lock screen must say the same."""
    locked, reason = s.lock_state
    return (locked, reason, s.lockout_remaining, s.failed_attempts, s.reset_required, s.biometric_refusal,
            s.biometric_lead, s.security_label, s.is_set, s.is_enabled)


def _screen(s):
    v = s.lock_screen()
    return (v.locked, v.reason, v.lockout_seconds, v.failed_attempts, v.reset_required, v.biometric_refusal,
            v.biometric_lead, v.security_label, v.passcode_set, v.lock_enabled)


def test_lock_screen_is_one_immutable_value_that_agrees_with_the_single_calls(store, clock, reader):
    s = store
    v = s.lock_screen()
    assert isinstance(v, passcode.LockScreen) and v.passcode_set is False and v.locked is False
    assert v.reason is LockReason.NONE and v.biometric_refusal is BiometricRefusal.NO_PASSCODE
    assert v.biometric_kind is BiometricKind.NONE and v.security_label == "Passcode & Biometric"
    with pytest.raises(AttributeError):
        v.locked = True  # type: ignore[misc]
    assert _screen(s) == _singles(s)
    s.set_passcode(PC1)
    s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
    s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
    s.set_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH, 1)
    s.report(Event.LAUNCHED)
    v = s.lock_screen()
    assert v.locked and v.reason is LockReason.LAUNCH and v.biometric_kind is BiometricKind.FINGERPRINT
    assert v.biometric_refusal is BiometricRefusal.NONE and v.biometric_lead is True  # the clock-dependent path
    assert v.security_label == "Passcode & Fingerprint" and _screen(s) == _singles(s)
    for i in range(5):
        with pytest.raises(passcode.WrongPasscode):
            s.verify(f"90000{i}")
    v = s.lock_screen()
    assert v.failed_attempts == 5 and v.lockout_seconds == 60 and v.biometric_refusal is BiometricRefusal.LOCKED_OUT
    assert not v.biometric_lead and _screen(s) == _singles(s)
    clock.advance(45)  # only the clock moves: the countdown, from the cached state
    assert s.lock_screen().lockout_seconds == 15 and _screen(s) == _singles(s)
    clock.advance(15)
    v = s.lock_screen()
    assert v.lockout_seconds == 0 and v.biometric_refusal is BiometricRefusal.NONE and _screen(s) == _singles(s)
    s.close()
    with pytest.raises(passcode.InvalidHandle):
        s.lock_screen()


@pytest.mark.embedded_only(ONLY_PROCESS)
def test_lock_screen_sees_another_process_commit_at_the_next_call(locked_store, tmp_path):
    s = locked_store
    path = str(tmp_path / "store.db")
    for _ in range(50):
        assert not s.lock_screen().locked  # warm
    code = ("import passcode, sys\n"
            "with passcode.Store(sys.argv[1], ops_limit=1, mem_limit=8192) as o:\n"
            "    o.report(passcode.Event.LOCK_NOW)\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([sys.executable, "-c", code, path], check=True, env=env)
    v = s.lock_screen()
    assert v.locked and v.reason is LockReason.REQUESTED
