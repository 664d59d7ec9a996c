"""The data key: released by a passcode unlock (or a biometric one), sealing and unsealing with it,
and the recovery key that keeps it across a reset."""
import ctypes
from ctypes import byref, c_int32
from typing import Union

from ._args import Digits, Secret, _SecretBuffer, _bytes, _call_with_secrets, wipe
from ._enums import BiometricRefusal
from ._errors import KeyNotReleased, PasscodeError, PasscodeRequired
from ._ffi import lib as _lib
from ._handle import _StoreBase
from .aio import twin

__all__ = ["KEY_BYTES", "SEAL_OVERHEAD", "wipe"]

#: The data key's size (passcode_key_bytes) and what seal() adds (passcode_seal_overhead).
KEY_BYTES = _lib.passcode_key_bytes()
SEAL_OVERHEAD = _lib.passcode_seal_overhead()


class _Keys(_StoreBase):
    """Store: the data key."""

    def unlock_key(self, digits: Digits) -> bytearray:
        """Verifies like verify() and returns the store's 32-byte data key as a bytearray; wipe
        it when done (passcode.wipe(key)). The key also stays released on this object for
        seal() and unseal() until the app locks (passcode_unlock_key)."""
        key = bytearray(KEY_BYTES)
        with _SecretBuffer(key, "the key") as out:
            _call_with_secrets(_lib.passcode_unlock_key, self._h(), _bytes(digits, "the passcode"), out.pointer, out.length)
        return key

    unlock_key_async = twin(unlock_key)

    def biometric_unlock_key(self) -> bytearray:
        """Reports a biometric success and returns the data key; raises PasscodeRequired (with
        .reason) when policy refuses or this process holds no key since a passcode unlock, and
        its subclass NoSessionKeyring when, besides, the process has no session keyring of its
        own to keep the key across launches in (no fallback to the user's keyring)."""
        key = bytearray(KEY_BYTES)
        refusal = c_int32()
        with _SecretBuffer(key, "the key") as out:
            try:
                _lib.passcode_biometric_unlock_key(self._h(), out.pointer, out.length, byref(refusal))
            except PasscodeRequired as e:
                e.reason = BiometricRefusal(refusal.value)
                raise
        return key

    @property
    def key_released(self) -> bool:
        """Whether seal() and unseal() work now on this object (probed without changing anything:
        an empty unseal fails as too short only when the key is released)."""
        try:
            self.unseal(b"")
        except KeyNotReleased:
            return False
        except PasscodeError:
            return True
        return True

    def seal(self, data: Union[bytes, bytearray, memoryview]) -> bytes:
        """Encrypts data with the data key (XChaCha20-Poly1305; passcode_seal). Raises
        KeyNotReleased unless a passcode unlock released the key on this object."""
        plain = bytes(data)
        out = (ctypes.c_uint8 * (len(plain) + SEAL_OVERHEAD))()
        n = ctypes.c_size_t()
        src = (ctypes.c_uint8 * max(len(plain), 1)).from_buffer_copy(plain or b"\0")
        _lib.passcode_seal(self._h(), src, len(plain), out, len(out), byref(n))
        return bytes(out[:n.value])

    def unseal(self, blob: Union[bytes, bytearray, memoryview]) -> bytearray:
        """Decrypts what seal() made; returns a bytearray the caller can wipe. Raises
        BadCiphertext (changed, truncated, not ours), ForeignCiphertext or KeyNotReleased."""
        sealed = bytes(blob)
        out = bytearray(max(len(sealed) - SEAL_OVERHEAD, 0))
        n = ctypes.c_size_t()
        src = (ctypes.c_uint8 * max(len(sealed), 1)).from_buffer_copy(sealed or b"\0")
        with _SecretBuffer(out, "the data") as dst:
            _lib.passcode_unseal(self._h(), src, len(sealed), dst.pointer, dst.length, byref(n))
        return out

    def set_recovery_key(self, recovery_key: Secret) -> None:
        """Wraps the released data key also under 32 bytes the host keeps elsewhere, so that
        complete_reset(..., recovery_key=...) keeps it (passcode_set_recovery_key)."""
        with _SecretBuffer(recovery_key, "the recovery key") as rk:
            _lib.passcode_set_recovery_key(self._h(), rk.pointer, rk.length)

    def clear_recovery_key(self) -> None:
        """Removes the recovery-key wrapping of the data key (passcode_clear_recovery_key)."""
        _lib.passcode_clear_recovery_key(self._h())

    @property
    def has_recovery_key(self) -> bool:
        """Whether a recovery key wraps the data key (passcode_has_recovery_key)."""
        return bool(self._out_int(_lib.passcode_has_recovery_key))
