"""The app lock and biometrics: app events, the lock state, the lock screen in one call."""
import ctypes
import struct
import warnings
from ctypes import byref, c_char_p, c_int32
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

from . import _ffi
from ._enums import BiometricKind, BiometricRefusal, Event, LockReason
from ._errors import PasscodeRequired
from ._handle import _StoreBase, _fill

_lib = _ffi.lib


class LockScreen(NamedTuple):
    """What a lock screen draws, read at one moment (Store.lock_screen, passcode_lock_screen_read).
    A NamedTuple: immutable, and the cheapest typed value to build (a frozen dataclass costs
    several times more per poll)."""
    locked: bool
    reason: LockReason
    lockout_seconds: int
    failed_attempts: int
    reset_required: bool
    biometric_refusal: BiometricRefusal
    biometric_lead: bool
    biometric_kind: BiometricKind
    security_label: str
    passcode_set: bool
    lock_enabled: bool


class _Members(Dict[int, Any]):
    """value -> enum member (or text), filled on first use: a dict lookup instead of an enum
    constructor call in the hot queries. A value this binding does not know goes to `make`."""

    def __init__(self, make: Callable[[int], Any]):
        super().__init__()
        self._make = make

    def __missing__(self, key: int) -> Any:
        value = self[key] = self._make(key)
        return value


_REASONS = _Members(LockReason)
_REFUSALS = _Members(BiometricRefusal)
_KINDS = _Members(BiometricKind)
#: The library's static label strings by address (they live as long as the process).
_LABELS = _Members(lambda address: ctypes.string_at(address).decode() if address else "")
_new_tuple = tuple.__new__
_lock_screen_read = _ffi.fast("passcode_lock_screen_read")
#: passcode_lock_screen read in one C call (struct.unpack_from) instead of one ctypes descriptor
#: per field; native alignment, so it matches the C layout (checked against ctypes below).
_LOCK_SCREEN = struct.Struct("@N2iq7iP")
_LOCK_SCREEN_SIZE = ctypes.sizeof(_ffi.lock_screen_t)
assert _LOCK_SCREEN.size == _LOCK_SCREEN_SIZE, "passcode_lock_screen: struct and ctypes layouts differ"
_unpack_lock_screen = _LOCK_SCREEN.unpack_from


class _Lock(_StoreBase):
    """Store: the app lock and biometrics."""

    def report(self, event: Event) -> bool:
        """Reports an app event; returns whether the app is locked after it."""
        locked = c_int32()
        _lib.passcode_event_report(self._h(), int(Event(event)), byref(locked))
        return bool(locked.value)

    @property
    def lock_state(self) -> Tuple[bool, LockReason]:
        """(locked, why): whether the app is locked and the LockReason (passcode_lock_state)."""
        locked, reason = c_int32(), c_int32()
        _lib.passcode_lock_state(self._h(), byref(locked), byref(reason))
        return bool(locked.value), LockReason(reason.value)

    @property
    def locked(self) -> bool:
        """Whether the app is locked: the lock screen belongs on top (passcode_lock_state)."""
        return self.lock_state[0]

    def lock_screen(self) -> LockScreen:
        """Everything a lock screen draws, in one call at the cost of about one `is_set`
        (passcode_lock_screen_read): poll it on every redraw."""
        scratch = self._scratch
        try:
            ref = scratch.screen_ref
        except AttributeError:  # this thread's first query of the store
            ref = _fill(scratch).screen_ref
        rc = _lock_screen_read(self._handle, ref)  # closed: NULL, which the library refuses
        if rc:
            self._h()  # a closed store raises InvalidHandle, as everywhere
            _ffi.check_status(rc, _lock_screen_read, (self._handle,))
        last: Optional[Tuple[bytes, LockScreen]] = scratch.last_screen
        if last is not None and scratch.screen_bytes == last[0]:
            return last[1]
        _, locked, reason, left, failed, reset, refusal, lead, kind, is_set, enabled, label = _unpack_lock_screen(scratch.screen)
        value: LockScreen = _new_tuple(LockScreen, (locked == 1, _REASONS[reason], left, failed, reset == 1, _REFUSALS[refusal],
                                                    lead == 1, _KINDS[kind], _LABELS[label], is_set == 1, enabled == 1))
        scratch.last_screen = (scratch.screen_bytes.tobytes(), value)
        return value

    def set_biometric_availability(self, available: bool, kind: BiometricKind = BiometricKind.NONE) -> None:
        """Tells the library whether biometrics are available and of which kind; unavailable ones
        switch biometric unlock off (passcode_biometric_set_available)."""
        _lib.passcode_biometric_set_available(self._h(), 1 if available else 0, int(BiometricKind(kind)))

    @property
    def security_label(self) -> str:
        """ "Passcode & Face ID", "Passcode & Touch ID", "Passcode & Fingerprint" or "Passcode &
        Biometric" (passcode_security_label)."""
        out = c_char_p()
        _lib.passcode_security_label(self._h(), byref(out))
        return (out.value or b"").decode()

    @property
    def biometric_refusal(self) -> BiometricRefusal:
        """Whether biometrics may unlock now (NONE), else why not (passcode_biometric_check)."""
        return _REFUSALS[self._out_int(_lib.passcode_biometric_check)]  # type: ignore[no-any-return]

    def biometric_check(self) -> BiometricRefusal:
        """Deprecated since 0.7: the property `biometric_refusal` (a state is a property)."""
        warnings.warn("Store.biometric_check() is deprecated; use the property Store.biometric_refusal",
                      DeprecationWarning, stacklevel=2)
        return self.biometric_refusal

    @property
    def biometric_lead(self) -> bool:
        """Whether the lock screen should open the biometric prompt by itself (the table at
        passcode_biometric_lead: lock at launch x "Require on App Launch")."""
        return bool(self._out_int(_lib.passcode_biometric_lead))

    def biometric_unlock(self) -> None:
        """Reports a biometric success; raises PasscodeRequired (with .reason) when policy refuses
        or (service mode) the finger passcoded read did not match; in service mode also
        BiometricTimeout (no finger read in time), BiometricReaderBusy (the reader is in use by
        another program) and BiometricUnavailable (no reader or enrolled finger), none counted."""
        refusal = c_int32()
        try:
            _lib.passcode_biometric_unlock(self._h(), byref(refusal))
        except PasscodeRequired as e:
            e.reason = BiometricRefusal(refusal.value)
            raise

    def biometric_failed(self) -> int:
        """Reports a failed biometric match; returns the count since the last unlock."""
        return self._out_int(_lib.passcode_biometric_failed)
