"""A user's store named by uid (passcode.user: Store.user_state, user_verify, user_set_passcode,
user_change, user_remove, user_reset, user_events and their asyncio twins).

The embedded store has no users to name: every call raises NotInServiceMode and changes nothing.
In service mode (make test-service runs this suite as root: uid 0's stores) the handle's own uid
names the store the handle has open, and root may set, reset and remove without the passcode.
The calls of a user that is not root, and their refusals, are in Tests/service/service_python.py.
"""
import asyncio
import os

import pytest

import passcode
from passcode import SecurityEvent, UserState

from conftest import PC1, PC2, PC3, SERVICE

ME = os.getuid()


@pytest.mark.parametrize("uid", [-1, 2 ** 32, 2 ** 64])
def test_a_uid_out_of_range_is_refused_before_the_library(locked_store, uid):
    for call in (lambda: locked_store.user_state(uid), lambda: locked_store.user_verify(uid, PC2),
                 lambda: locked_store.user_set_passcode(uid, PC2), lambda: locked_store.user_change(uid, PC1, PC2),
                 lambda: locked_store.user_remove(uid), lambda: locked_store.user_reset(uid),
                 lambda: locked_store.user_events(uid)):
        with pytest.raises(passcode.InvalidArgument, match="not a uid"):
            call()
    assert locked_store.failed_attempts == 0
    locked_store.verify(PC1)


def test_a_uid_and_a_passcode_of_the_wrong_type_are_type_errors(locked_store):
    with pytest.raises(TypeError, match="uid must be an int"):
        locked_store.user_state("0")
    with pytest.raises(TypeError, match="uid must be an int"):
        locked_store.user_state(True)
    with pytest.raises(TypeError):
        locked_store.user_verify(ME, 386491)
    assert locked_store.failed_attempts == 0


def test_a_closed_store_raises_invalid_handle(store):
    store.close()
    with pytest.raises(passcode.InvalidHandle):
        store.user_state(ME)
    with pytest.raises(passcode.InvalidHandle):
        store.user_events(ME)


@pytest.mark.embedded_only("the service answers them (test_user_calls_through_the_service)")
def test_user_calls_on_the_embedded_store_are_refused_and_change_nothing(locked_store):
    calls = {
        "user_state": lambda: locked_store.user_state(ME),
        "user_verify": lambda: locked_store.user_verify(ME, PC2),
        "user_set_passcode": lambda: locked_store.user_set_passcode(ME, PC2),
        "user_change": lambda: locked_store.user_change(ME, PC1, PC2),
        "user_remove": lambda: locked_store.user_remove(ME),
        "user_remove with the passcode": lambda: locked_store.user_remove(ME, PC1),
        "user_reset": lambda: locked_store.user_reset(ME),
        "user_events": lambda: locked_store.user_events(ME),
        "user_verify_async": lambda: asyncio.run(locked_store.user_verify_async(ME, PC2)),
        "user_fingerprint_ready": lambda: locked_store.user_fingerprint_ready(ME),
        "user_fingerprint_unlock": lambda: locked_store.user_fingerprint_unlock(ME),
    }
    for name, call in calls.items():
        with pytest.raises(passcode.NotInServiceMode) as e:
            call()
        assert "service mode" in e.value.message, name
        assert isinstance(e.value, passcode.ServiceError)
    assert locked_store.failed_attempts == 0
    assert locked_store.is_set and locked_store.length == 6
    locked_store.verify(PC1)


def test_user_fingerprint_cancel_with_no_read_waiting_does_nothing(locked_store):
    locked_store.user_fingerprint_cancel()  # nothing waits: nothing to end, nothing raised
    assert locked_store.failed_attempts == 0


def test_user_calls_through_the_service(locked_store):
    if not SERVICE:
        pytest.skip("service mode only (make test-service); the embedded store: "
                    "test_user_calls_on_the_embedded_store_are_refused_and_change_nothing")
    s = locked_store
    assert s.user_state(ME) == UserState(is_set=True, failures=0, lockout_seconds=0, reset_required=False, length=6)
    with pytest.raises(passcode.WrongPasscode):
        s.user_verify(ME, PC2)
    assert s.failed_attempts == 1 and s.user_state(ME).failures == 1
    s.user_verify(ME, PC1)
    assert s.failed_attempts == 0
    events = s.user_events(ME)
    assert events == s.events() and events[0].kind == SecurityEvent.UNLOCKED_BY_PASSCODE
    s.user_change(ME, PC1, PC2)
    s.verify(PC2)
    with pytest.raises(passcode.WrongPasscode):
        s.user_verify(ME, PC1)
    s.user_reset(ME)  # root: the failures go, the passcode stays
    assert s.failed_attempts == 0 and s.user_state(ME).is_set
    assert s.user_events(ME)[0].kind == SecurityEvent.RESET_COMPLETED
    s.user_remove(ME)  # root: without the passcode
    assert not s.is_set and s.user_state(ME) == UserState(False, 0, 0, False, s.user_state(ME).length)
    s.user_set_passcode(ME, PC3)
    assert s.is_set
    asyncio.run(s.user_verify_async(ME, PC3))
    with pytest.raises(passcode.AlreadySet):
        s.user_set_passcode(ME, PC1)
    asyncio.run(s.user_remove_async(ME, PC3))
    assert not s.is_set


@pytest.mark.embedded_only("a login store's lock state by uid: Tests/pam/test_pam.py and Tests/service/service_python.py")
def test_user_lockout_of_an_embedded_store_is_not_in_service_mode(locked_store):
    """passcode_user_lockout: a login store's state by uid is passcoded's; an embedded handle
    raises NotInServiceMode and counts nothing (in service mode: Tests/pam/test_pam.py)."""
    with pytest.raises(passcode.NotInServiceMode):
        locked_store.user_lockout(ME)
    with pytest.raises(passcode.InvalidArgument, match="not a uid"):
        locked_store.user_lockout(-1)
    assert locked_store.failed_attempts == 0
    assert [s.name for s in passcode.LoginState] == ["OPEN", "LOCKED_OUT", "RESET_REQUIRED", "NO_PASSCODE", "UNAVAILABLE"]
