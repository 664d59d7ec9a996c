"""The data key from Python: unlock_key, seal/unseal, flows, the recovery key."""
import pytest

import passcode
from passcode import BiometricKind, BiometricRefusal, Event, FlowKind, FlowResult, Setting

from conftest import PC1, PC2, PC3, SERVICE, ONLY_KEYRING


def test_unlock_key_is_a_wipeable_bytearray_stable_across_change(locked_store):
    key = locked_store.unlock_key(PC1)
    assert isinstance(key, bytearray) and len(key) == passcode.KEY_BYTES == 32 and any(key)
    locked_store.change(PC1, PC2)
    assert locked_store.unlock_key(PC2) == key
    with pytest.raises(passcode.WrongPasscode):
        locked_store.unlock_key(PC1)
    assert locked_store.failed_attempts == 1
    passcode.wipe(key)
    assert key == bytearray(32)


def test_seal_and_unseal(locked_store, tmp_path, clock):
    locked_store.unlock_key(PC1)
    blob = locked_store.seal(b"my secret note")
    assert len(blob) == len(b"my secret note") + passcode.SEAL_OVERHEAD and b"secret" not in blob
    back = locked_store.unseal(blob)
    assert isinstance(back, bytearray) and back == b"my secret note"
    assert locked_store.unseal(locked_store.seal(b"")) == b""
    damaged = bytearray(blob)
    damaged[-1] ^= 1
    with pytest.raises(passcode.BadCiphertext):
        locked_store.unseal(bytes(damaged))
    with pytest.raises(passcode.BadCiphertext):
        locked_store.unseal(blob[:20])
    with passcode.Store(str(tmp_path / "other.db"), ops_limit=1, mem_limit=8192, clock=clock) as other:
        other.set_passcode(PC2)
        with pytest.raises(passcode.ForeignCiphertext):
            other.unseal(blob)
    locked_store.report(Event.LOCK_NOW)
    assert not locked_store.key_released
    with pytest.raises(passcode.KeyNotReleased):
        locked_store.unseal(blob)


def test_flow_gives_the_key_once(locked_store):
    key = locked_store.unlock_key(PC1)
    with locked_store.flow(FlowKind.UNLOCK) as f:
        f.type(PC1)
        assert f.result == FlowResult.SUCCESS
        assert f.take_key() == key
        with pytest.raises(passcode.KeyNotReleased):
            f.take_key()


@pytest.mark.embedded_only(ONLY_KEYRING)  # its first half on both back ends: test_a_later_launch_gets_the_key_by_a_match_only
def test_biometric_release_after_a_launch_comes_from_the_session_keyring(tmp_path, clock):
    path = str(tmp_path / "bio.db")
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        first = s.unlock_key(PC1)
        s.set_biometric_availability(True, BiometricKind.FACE_ID)
        s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
    # A new launch with the session keyring (the default): the first launch's passcode unlock
    # is enough in this boot and login session.
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.report(Event.BACKGROUND)
        clock.advance(3600)
        s.report(Event.FOREGROUND)
        assert s.biometric_unlock_key() == first
    # A host that opted out: only a passcode unlock in this process releases it.
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock, session_keyring=False) as s:
        s.report(Event.BACKGROUND)
        clock.advance(3600)
        s.report(Event.FOREGROUND)
        with pytest.raises(passcode.PasscodeRequired) as e:
            s.biometric_unlock_key()
        assert e.value.reason == BiometricRefusal.KEY_NOT_IN_MEMORY
        key = s.unlock_key(PC1)
        s.report(Event.BACKGROUND)
        clock.advance(3600)
        s.report(Event.FOREGROUND)
        assert not s.key_released
        assert s.biometric_unlock_key() == key
        assert s.key_released


def test_a_later_launch_gets_the_key_by_a_match_only(tmp_path, clock, finger):
    """The first half of the session-keyring test on both back ends: after a passcode unlock, a
    later launch (a new handle) gets the same data key by a match (embedded from the session
    keyring, in service mode from passcoded, which read the finger through fprintd); a finger
    that does not match gets nothing and leaves it locked."""
    path = str(tmp_path / "later.db")
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        s.set_passcode(PC1)
        first = s.unlock_key(PC1)
        s.set_biometric_availability(True, BiometricKind.FINGERPRINT)
        s.set_setting(Setting.BIOMETRIC_ENABLED, 1)
    with passcode.Store(path, ops_limit=1, mem_limit=8192, clock=clock) as s:
        assert s.report(Event.LAUNCHED) is True and s.locked
        assert not s.key_released
        if SERVICE:
            finger("verify-no-match")
            with pytest.raises(passcode.PasscodeRequired):
                s.biometric_unlock_key()
        else:
            assert s.biometric_failed() == 1  # the host's report of a finger that did not match
        assert s.locked and not s.key_released
        finger("verify-match")
        assert s.biometric_unlock_key() == first
        assert not s.locked and s.key_released


def test_reset_keeps_the_key_only_with_the_recovery_key(locked_store, clock, mailbox):
    codes = mailbox.codes  # the host's callback; in service mode passcoded's mail
    mailbox.attach(locked_store)
    key = locked_store.unlock_key(PC1)
    blob = locked_store.seal(b"note")
    recovery = bytes(range(32))
    locked_store.set_recovery_key(recovery)
    assert locked_store.has_recovery_key
    mailbox.request(locked_store)
    with pytest.raises(passcode.WrongRecoveryKey):
        locked_store.complete_reset(codes[-1], PC2, recovery_key=bytes(32))
    locked_store.complete_reset(codes[-1], PC2, recovery_key=recovery)
    assert locked_store.unseal(blob) == b"note"
    clock.advance(3600)
    mailbox.request(locked_store)
    with pytest.raises(passcode.KeyReplaced):
        locked_store.complete_reset(codes[-1], PC3)
    assert locked_store.unlock_key(PC3) != key  # the reset did complete
    with pytest.raises(passcode.ForeignCiphertext):
        locked_store.unseal(blob)
