"""Binding a store to a TPM 2.0, and what that binding promises."""
from ctypes import byref, c_int64
from typing import Dict

from ._args import Digits, _bytes, _call_with_secrets
from ._enums import TpmPostureItem
from ._ffi import lib as _lib
from ._handle import _StoreBase


class _Tpm(_StoreBase):
    """Store: the TPM binding."""

    @property
    def tpm_bound(self) -> bool:
        """Whether the store is bound to a TPM (passcode_tpm_is_bound)."""
        return bool(self._out_int(_lib.passcode_tpm_is_bound))

    def tpm_posture(self) -> Dict[str, int]:
        """What the store's TPM binding promises and the TPM settings it rests on
        (passcode_tpm_posture): {"owner_auth_set": 0|1, "lockout_auth_set": 0|1, "max_tries": n,
        "recovery_time": s, "lockout_recovery": s, "lockout_counter": n, "no_offline_search": 0|1,
        "hardware_guess_limit": 0|1, "guess_limit": n}. A binding always means no offline search
        off this machine; a hardware guess limit only where the TPM is provisioned."""
        out: Dict[str, int] = {}
        for item in TpmPostureItem:
            value = c_int64()
            _lib.passcode_tpm_posture(self._h(), int(item), byref(value))
            out[item.name.lower()] = value.value
        return out

    def tpm_bind(self, digits: Digits) -> None:
        """Binds a store with a passcode to the TPM it was opened with; checks the passcode
        first (counted), keeps the data key (passcode_tpm_bind)."""
        _call_with_secrets(_lib.passcode_tpm_bind, self._h(), _bytes(digits, "the passcode"))

    def tpm_unbind(self, digits: Digits) -> None:
        """Unbinds a bound store; the passcode is checked through the TPM (passcode_tpm_unbind)."""
        _call_with_secrets(_lib.passcode_tpm_unbind, self._h(), _bytes(digits, "the passcode"))
