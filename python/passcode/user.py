"""A user's store named by uid, through passcoded: what pam_passcode, passcodectl and a screen
locker call (passcode_user_state and the other calls of passcode-user(3)).

These calls need a Store opened in service mode (`Store(label, service=app_id)`): the store
named is the one passcoded keeps for that uid under the handle's app id. Root may name any uid;
any other caller only its own, and setting a first passcode, clearing the failures or removing a
passcode without it are root's alone (PermissionDenied otherwise). An embedded store has no users
to name: every call raises NotInServiceMode and changes nothing.
"""
from ctypes import byref, c_int32, c_int64, c_uint32
from typing import List, NamedTuple, Optional

from . import _ffi
from ._args import Digits, _bytes, _call_with_secrets, _int
from ._enums import BiometricRefusal, LoginState, Status
from ._errors import InvalidArgument
from ._handle import _StoreBase
from .account import LoggedEvent, read_event_log
from .aio import twin

_lib = _ffi.lib


class UserState(NamedTuple):
    """A user's store as a lock screen or `passcodectl status` shows it (passcode_user_state)."""
    is_set: bool
    failures: int
    lockout_seconds: int
    reset_required: bool
    length: int


class UserLockout(NamedTuple):
    """A login store's lock state, in numbers, as a greeter or a screen locker draws it
    (passcode_user_lockout; pam_passcode's PAM_PASSCODE_STATE)."""
    state: LoginState
    lockout_seconds: int
    failures: int
    #: Wrong passcodes before the next delay or the required reset; -1 when none is ahead.
    attempts_left: int
    #: The seconds of the delay that one starts; -1 when it requires a reset instead.
    next_delay: int
    #: Why a finger may not be used now (NONE: it may).
    fingerprint_refusal: BiometricRefusal


def _uid(uid: object) -> int:
    n = _int(uid, "uid")
    if not 0 <= n <= 0xFFFFFFFF:
        raise InvalidArgument(f"uid {n} is not a uid (0 to 4294967295)", Status.ERR_MISUSE)
    return n


class _Users(_StoreBase):
    """Store: a user's store named by uid (service mode)."""

    def user_state(self, uid: int) -> UserState:
        """The state of uid's store; reads only, counts nothing; a user with no store has
        is_set False (passcode_user_state)."""
        is_set, failures, lockout, reset, length = c_int32(), c_uint32(), c_int64(), c_int32(), c_int32()
        _lib.passcode_user_state(self._h(), _uid(uid), byref(is_set), byref(failures), byref(lockout),
                                 byref(reset), byref(length))
        return UserState(bool(is_set.value), failures.value, lockout.value, bool(reset.value), length.value)

    def user_lockout(self, uid: int) -> UserLockout:
        """The lock state of uid's login store (the handle's app id `login` or `login.NAME`):
        locked out and for how long, the wrong passcodes left before the next delay, whether a
        finger may be used now; reads only (passcode_user_lockout)."""
        state, lockout, failures, left, delay, refusal = c_int32(), c_int64(), c_uint32(), c_int32(), c_int64(), c_int32()
        _lib.passcode_user_lockout(self._h(), _uid(uid), byref(state), byref(lockout), byref(failures), byref(left),
                                   byref(delay), byref(refusal))
        return UserLockout(LoginState(state.value), lockout.value, failures.value, left.value, delay.value,
                           BiometricRefusal(refusal.value))

    def user_verify(self, uid: int, digits: Digits) -> None:
        """Checks uid's passcode: one attempt, counted as verify counts it; raises WrongPasscode,
        LockedOut (with seconds_remaining), ... as verify does (passcode_user_verify)."""
        _call_with_secrets(_lib.passcode_user_verify, self._h(), _uid(uid), _bytes(digits, "the passcode"))

    def user_set_passcode(self, uid: int, digits: Digits) -> None:
        """Sets uid's first passcode; its length is the passcode's (4 to 12 digits). Root only
        (passcode_user_set)."""
        _call_with_secrets(_lib.passcode_user_set, self._h(), _uid(uid), _bytes(digits, "the passcode"))

    def user_change(self, uid: int, current: Digits, new: Digits) -> None:
        """Replaces uid's passcode after checking the current one, counted as a verify
        (passcode_user_change)."""
        _call_with_secrets(_lib.passcode_user_change, self._h(), _uid(uid), _bytes(current, "the current passcode"),
                           _bytes(new, "the new passcode"))

    def user_remove(self, uid: int, current: Optional[Digits] = None) -> None:
        """Removes uid's passcode: with `current` (checked and counted), or without it (root
        only); the lock goes off and every counter is cleared (passcode_user_remove)."""
        h, n = self._h(), _uid(uid)
        if current is None:
            _lib.passcode_user_remove(h, n, None, 0)
        else:
            _call_with_secrets(_lib.passcode_user_remove, h, n, _bytes(current, "the passcode"))

    def user_reset(self, uid: int) -> None:
        """Clears uid's failures, lockout and required reset, keeping the passcode (as
        faillock --reset clears its tally). Root only; logged as a completed reset
        (passcode_user_reset)."""
        _lib.passcode_user_reset(self._h(), _uid(uid))

    def user_fingerprint_ready(self, uid: int) -> None:
        """Returns when passcoded may read a finger for uid's store now (a reader with a finger
        of the user's, the caller at the machine, the core's rules); else raises
        PasscodeRequired saying why. Claims and counts nothing (passcode_user_fingerprint_ready)."""
        _lib.passcode_user_fingerprint_ready(self._h(), _uid(uid))

    def user_fingerprint_unlock(self, uid: int) -> None:
        """Has passcoded read a finger for uid's store and waits for it: returns on a match
        (counted as a biometric unlock); raises PasscodeRequired on a no-match (a failed
        match) or when the rules need the passcode, BiometricUnavailable, ... ; InvalidState
        after user_fingerprint_cancel (passcode_user_fingerprint_unlock)."""
        _lib.passcode_user_fingerprint_unlock(self._h(), _uid(uid))

    def user_fingerprint_cancel(self) -> None:
        """From another thread: ends the user_fingerprint_unlock waiting on this store, and
        every later one; passcoded releases the reader at once (passcode_user_fingerprint_cancel)."""
        _lib.passcode_user_fingerprint_cancel(self._h())

    def user_events(self, uid: int) -> List[LoggedEvent]:
        """uid's security event log, newest first (passcode_user_event_log_new)."""
        log = _ffi.EVENT_LOG()
        _lib.passcode_user_event_log_new(self._h(), _uid(uid), byref(log))
        return read_event_log(log)

    # -- the calls that run Argon2id, for asyncio (aio.py) -----------------------------------

    user_verify_async = twin(user_verify)
    user_set_passcode_async = twin(user_set_passcode)
    user_change_async = twin(user_change)
    user_remove_async = twin(user_remove)
