"""Resetting a forgotten passcode: reset codes, "forgot passcode"."""
from ctypes import c_int64
from typing import Optional

from ._args import Digits, Secret, _SecretBuffer, _bytes, _call_with_secrets
from ._ffi import lib as _lib
from ._handle import _StoreBase
from .aio import twin


class _Reset(_StoreBase):
    """Store: reset codes and "forgot passcode"."""

    def request_reset_code(self) -> None:
        """Makes a reset code and hands it to the on_reset_code callback (passcode_reset_request).
        Raises RateLimited (with seconds_remaining) when requests come too often."""
        _lib.passcode_reset_request(self._h())

    @property
    def reset_retry_after(self) -> int:
        """Seconds until request_reset_code is allowed again; 0 when it is allowed now."""
        return self._out_int(_lib.passcode_reset_retry_after, c_int64)

    def check_reset_code(self, code: Digits) -> None:
        """Checks a reset code without using it; raises WrongResetCode (tries left in the message),
        ResetCodeExpired or NoResetCode (passcode_reset_check)."""
        _call_with_secrets(_lib.passcode_reset_check, self._h(), _bytes(code, "the reset code"))

    def complete_reset(self, code: Digits, new_passcode: Digits, recovery_key: Optional[Secret] = None) -> None:
        """Sets a new passcode with a reset code. With the recovery key (see set_recovery_key) the
        data key is kept; without it a new one replaces it, and if the old one was ever taken,
        KeyReplaced is raised *after* the reset completed (passcode_reset_complete)."""
        code_b, new_b = _bytes(code, "the reset code"), _bytes(new_passcode, "the new passcode")
        if recovery_key is None:
            _call_with_secrets(_lib.passcode_reset_complete, self._h(), code_b, new_b)
            return
        with _SecretBuffer(recovery_key, "the recovery key") as rk:
            _call_with_secrets(_lib.passcode_reset_complete_with_recovery_key, self._h(), code_b, new_b, rk.pointer, rk.length)

    complete_reset_async = twin(complete_reset)

    @property
    def reset_pending(self) -> bool:
        """Whether a reset code was sent and is still usable (passcode_reset_pending)."""
        return bool(self._out_int(_lib.passcode_reset_pending))

    def forgot(self) -> None:
        """ "Forgot passcode": removes it, clears lock state, calls on_logout (passcode_forgot)."""
        _lib.passcode_forgot(self._h())
