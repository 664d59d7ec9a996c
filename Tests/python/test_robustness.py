"""Through the binding: host reports change no setting, a launch applies the auto-lock,
clock readings out of range raise ClockOutOfRange, closing a store ends its flows, and every
status has an exception class of its own."""
import pytest

import passcode
from passcode import BiometricKind, Event, FlowKind, LockReason, Setting, Status

from conftest import PC1, ONLY_CLOCK


def test_every_status_has_its_own_exception_class():
    # Status is generated from the header, the classes from each status's definition: a status
    # without a class fails `make header`, and one whose class is lost fails here.
    classes = set()
    for st in Status:
        if st == Status.OK:
            continue
        cls = type(passcode._errors._error_for(int(st), "m"))
        assert cls is not passcode.PasscodeError and cls.status == st, st.name
        assert getattr(passcode, cls.__name__) is cls, cls.__name__  # exported by the package
        classes.add(cls)
    assert len(classes) == len(Status) - 1
    assert issubclass(passcode.OutOfMemory, MemoryError)
    assert isinstance(passcode._errors._error_for(int(Status.ERR_NO_SESSION_KEYRING), "m"), passcode.NoSessionKeyring)
    assert issubclass(passcode.NoSessionKeyring, passcode.PasscodeRequired)  # hosts catching the old status still do
    assert isinstance(passcode._errors._error_for(int(Status.ERR_CLOCK_OUT_OF_RANGE), "m"), passcode.ClockOutOfRange)


def require_on_launch_store(path, clock):
    """A store with a passcode, a reader, biometric unlock and "Require on App Launch" on, lock
    at launch off; open, for the caller to close."""
    s = passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock)
    s.set_passcode(PC1)
    s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
    s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
    s.set_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH, 1)
    s.set_setting(Setting.LOCK_AT_LAUNCH, 0)
    return s


def test_a_missing_reader_changes_no_setting_and_the_launch_asks_for_the_passcode(tmp_path, clock, reader):
    path = str(tmp_path / "reader.db")
    with require_on_launch_store(path, clock) as s:
        before = {k: s.get_setting(k) for k in Setting}
    reader.unplug()  # what passcoded hears from fprintd; embedded, the host's report says it
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:  # the GTK start-up
        s.set_biometric_availability(False, BiometricKind.NONE)
        s.report(Event.LAUNCHED)
        assert s.lock_state == (True, LockReason.LAUNCH)
        assert not s.biometric_lead
        assert {k: s.get_setting(k) for k in Setting} == before
        s.verify(PC1)


def test_a_launch_after_a_kill_in_the_background_applies_the_auto_lock(tmp_path, clock):
    path = str(tmp_path / "autolock.db")
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        s.set_setting(Setting.LOCK_AT_LAUNCH, 0)
        s.report(Event.BACKGROUND)
    clock.advance(2 * 3600)
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.report(Event.LAUNCHED)
        assert s.lock_state == (True, LockReason.BACKGROUND)


@pytest.mark.parametrize("boot,wall", [(-1, 0), (2**61, 0), (2**63 - 1, 0), (0, 2**63 - 1), (0, -(2**63))])
@pytest.mark.embedded_only(ONLY_CLOCK)
def test_a_clock_out_of_range_raises_clock_out_of_range(tmp_path, clock, boot, wall):
    with passcode.Store(str(tmp_path / "clock.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        clock.boot, clock.wall = boot, wall
        with pytest.raises(passcode.ClockOutOfRange) as e:
            s.verify(PC1)
        assert "clock" in e.value.message
        with pytest.raises(passcode.ClockOutOfRange):
            s.report(Event.BACKGROUND)
        clock.boot, clock.wall = 1_000_000, 1_700_000_000_000
        assert s.failed_attempts == 0  # refused before anything was counted
        s.verify(PC1)


def test_closing_the_store_ends_its_flows(tmp_path, clock):
    s = passcode.Store(str(tmp_path / "flows.db"), ops_limit=1, mem_limit=8192, clock=clock)
    s.set_passcode(PC1)
    s.report(Event.LOCK_NOW)
    flow = s.flow(FlowKind.UNLOCK)
    s.close()
    with pytest.raises(passcode.InvalidArgument):
        flow.digit(3)
    flow.close()


# After the security review.

def test_biometric_off_keeps_require_on_launch_and_the_next_launch_locks(tmp_path, clock, finger):
    path = str(tmp_path / "bio-off.db")
    require_on_launch_store(path, clock).close()
    clock.advance(600)
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.report(Event.LAUNCHED)
        finger("verify-match")
        s.biometric_unlock()  # a match, no passcode
        s.set_setting(Setting.BIOMETRIC_ENABLED, 0)  # a strengthening change: no proof
        assert s.get_setting(Setting.REQUIRE_BIOMETRIC_ON_LAUNCH) == 1
    clock.advance(2 * 3600)
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.report(Event.LAUNCHED)
        assert s.lock_state == (True, LockReason.LAUNCH)


def test_a_second_background_report_keeps_the_earliest_time(tmp_path, clock):
    with passcode.Store(str(tmp_path / "bg.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        s.report(Event.BACKGROUND)  # minimized
        clock.advance(2 * 3600)
        s.report(Event.BACKGROUND)  # suspend
        clock.advance(10)
        s.report(Event.FOREGROUND)  # resume
        s.report(Event.FOREGROUND)  # restored
        assert s.lock_state == (True, LockReason.BACKGROUND)


@pytest.mark.embedded_only(ONLY_CLOCK)
def test_auto_lock_and_the_48_hours_count_by_the_wall_clock_too(tmp_path, clock):
    path = str(tmp_path / "clocks.db")
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        s.set_setting(Setting.LOCK_AT_LAUNCH, 0)
        s.report(Event.BACKGROUND)
    clock.boot += 60_000  # a boot clock set back in a time namespace: 1 minute
    clock.wall += 2 * 3600_000  # the wall clock: 2 hours
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.report(Event.LAUNCHED)
        assert s.lock_state == (True, LockReason.BACKGROUND)
        s.verify(PC1)
        s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
        s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
        s.report(Event.LOCK_NOW)
        clock.boot += 3600_000
        clock.wall += 49 * 3600_000
        assert s.biometric_refusal == passcode.BiometricRefusal.PASSCODE_NOT_USED_FOR_48_HOURS


def test_failed_deliveries_count_toward_the_daily_limit(tmp_path, clock, mailbox):
    # Embedded: the host's callback raises; service mode: the relay refuses passcoded's mail.
    with passcode.Store(str(tmp_path / "deliver.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        mailbox.attach(s)
        mailbox.fail = True
        failed = 0
        for _ in range(30):
            with pytest.raises((mailbox.Failed, passcode.RateLimited)) as e:
                mailbox.request(s)
            failed += isinstance(e.value, mailbox.Failed)
            clock.advance(61)
        per_day = s.get_setting(Setting.RESET_REQUESTS_PER_DAY)
        assert len(mailbox.handed) == failed == per_day and not mailbox.codes
        mailbox.fail = False
        with pytest.raises(passcode.RateLimited):
            mailbox.request(s)
        clock.advance(86400)
        mailbox.request(s)
        assert len(mailbox.codes) == 1 and len(mailbox.codes[0]) == 8


@pytest.mark.embedded_only(ONLY_CLOCK)
def test_a_reset_request_from_a_boot_clock_ahead_does_not_rate_limit_the_user(tmp_path, clock):
    with passcode.Store(str(tmp_path / "ahead.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        s.on_reset_code(lambda code: None)
        clock.boot += 10 * 86400_000
        s.request_reset_code()  # from a namespace 10 days ahead
        clock.boot -= 10 * 86400_000
        clock.advance(65)
        s.request_reset_code()  # the user's, 65 s later: no RateLimited
