"""Settings: what the library says about each (bounds, choices, default, weakening) and a store's
values."""
import ctypes
import warnings
from ctypes import byref, c_int32, c_int64
from typing import List, Tuple

from ._args import _int
from ._enums import Setting, Status
from ._errors import PasscodeError
from ._ffi import lib as _lib
from ._handle import _StoreBase


def setting_bounds(setting: Setting) -> Tuple[int, int]:
    """The smallest and largest value a setting allows (passcode_setting_bounds)."""
    lo, hi = c_int64(), c_int64()
    _lib.passcode_setting_bounds(int(Setting(setting)), byref(lo), byref(hi))
    return lo.value, hi.value


def setting_choices(setting: Setting) -> List[int]:
    """The values a setting offers, in display order; [] when every value in its bounds is
    allowed (passcode_setting_choices). Front ends build their pickers from this."""
    count = ctypes.c_size_t()
    try:
        _lib.passcode_setting_choices(int(Setting(setting)), None, 0, byref(count))
        return []
    except PasscodeError as e:
        if e.status != Status.ERR_BUFFER_TOO_SMALL:
            raise
    values = (c_int64 * count.value)()
    _lib.passcode_setting_choices(int(Setting(setting)), values, count.value, byref(count))
    return list(values[:count.value])


def setting_default(setting: Setting) -> int:
    """A setting's value in a new store (passcode_setting_default)."""
    out = c_int64()
    _lib.passcode_setting_default(int(Setting(setting)), byref(out))
    return out.value


def setting_weakens(setting: Setting, old: int, new: int) -> bool:
    """Whether changing `setting` from `old` to `new` weakens protection (passcode_setting_weakens)."""
    out = c_int32()
    _lib.passcode_setting_weakens(int(Setting(setting)), _int(old, "old"), _int(new, "new"), byref(out))
    return bool(out.value)


class _Settings(_StoreBase):
    """Store: a store's settings."""

    def get_setting(self, setting: Setting) -> int:
        """A setting's value (passcode_setting_get)."""
        out = c_int64()
        _lib.passcode_setting_get(self._h(), int(Setting(_int(setting, "setting"))), byref(out))
        return out.value

    def set_setting(self, setting: Setting, value: int) -> None:
        """Changes a setting, after the settings hook agreed (passcode_setting_set). A change that
        weakens protection needs the passcode entered on this store within 5 minutes (`authorize`):
        PasscodeRequired otherwise."""
        _lib.passcode_setting_set(self._h(), int(Setting(_int(setting, "setting"))), _int(int(value) if isinstance(value, bool) else value, "value"))

    def get(self, setting: Setting) -> int:
        """Deprecated since 0.8: `get_setting` (one verb, one job: `set` sat beside `set_passcode`)."""
        warnings.warn("Store.get() is deprecated; use Store.get_setting()", DeprecationWarning, stacklevel=2)
        return self.get_setting(setting)

    def set(self, setting: Setting, value: int) -> None:
        """Deprecated since 0.8: `set_setting` (one verb, one job: `set` sat beside `set_passcode`)."""
        warnings.warn("Store.set() is deprecated; use Store.set_setting()", DeprecationWarning, stacklevel=2)
        self.set_setting(setting, value)

    def set_custom_schedule(self, delays: List[int], max_failures: int = 0) -> None:
        """Installs and selects a custom lockout table (passcode_set_custom_schedule)."""
        arr = (ctypes.c_uint32 * max(len(delays), 1))(*[_int(d, "delay") for d in delays])
        _lib.passcode_set_custom_schedule(self._h(), arr, len(delays), _int(max_failures, "max_failures"))
