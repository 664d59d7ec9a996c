"""Resetting a forgotten passcode: reset codes, "forgot passcode"."""
import ctypes
from ctypes import c_int64
from typing import Optional

from ._args import Digits, Secret, _SecretBuffer, _bytes, _call_with_secrets, _text
from ._ffi import lib as _lib
from ._handle import _StoreBase
from .aio import twin


class _Reset(_StoreBase):
    """Store: reset codes and "forgot passcode"."""

    def request_reset_code(self) -> None:
        """Makes a reset code and hands it to the on_reset_code callback (passcode_reset_request).
        Raises RateLimited (with seconds_remaining) when requests come too often."""
        _lib.passcode_reset_request(self._h())

    def set_reset_recipient(self, address: str, passcode: Digits) -> None:
        """Service mode: asks for a new address to mail this store's reset codes to ("" removes
        the recipient). Needs the passcode, checked by passcoded and counted as any attempt.
        passcoded mails the address a confirmation code; it becomes the recipient only once
        confirm_reset_recipient gives that code back. Raises RateLimited past the administrator's
        mail limits; the embedded store raises InvalidState (its codes go to on_reset_code)
        (passcode_reset_recipient_set)."""
        addr = _text(address, "the address")
        _call_with_secrets(_lib.passcode_reset_recipient_set, self._h(), addr, _bytes(passcode, "the passcode"))

    def confirm_reset_recipient(self, code: Digits, passcode: Digits) -> None:
        """Service mode: the confirmation code mailed to the address set_reset_recipient asked
        for, with the passcode; the address is the recipient afterwards. Raises WrongResetCode
        (tries left in the message), ResetCodeExpired (set the address again), InvalidState (no
        address waiting; the embedded store) (passcode_reset_recipient_confirm)."""
        _call_with_secrets(_lib.passcode_reset_recipient_confirm, self._h(), _bytes(code, "the confirmation code"),
                           _bytes(passcode, "the passcode"))

    @property
    def reset_recipient(self) -> str:
        """Service mode: the masked address reset codes are mailed to (first character, three
        stars, the domain), "" when none is confirmed; never the full address (passcode_reset_recipient)."""
        buf = ctypes.create_string_buffer(256)
        _lib.passcode_reset_recipient(self._h(), buf, len(buf))
        return buf.value.decode("utf-8", "replace")

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
