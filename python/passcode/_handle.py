"""Library handles: closing (close, context manager, garbage collection) and the store's
plumbing shared by the parts of Store (store.py)."""
import ctypes
import sys
import threading
from ctypes import byref, c_int32, c_int64
from typing import Any, Callable, Dict, TypeVar, Union

from . import _ffi
from ._enums import Status
from ._errors import InvalidHandle

_lib = _ffi.lib
_H = TypeVar("_H", bound="_Handle")


class _Handle:
    """A library handle released by `_free` (close, context manager, garbage collection)."""

    _handle: Any = None
    _what = "handle"

    @staticmethod
    def _free(handle: Any) -> None:
        raise NotImplementedError

    def _h(self) -> Any:
        if self._handle is None:
            raise InvalidHandle(f"the {self._what} is closed", Status.ERR_INVALID_HANDLE)
        return self._handle

    def close(self) -> None:
        """Releases the handle; further calls raise InvalidHandle. Safe to call twice."""
        if self._handle is not None:
            self._free(self._handle)
            self._handle = None

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass



#: The fast twin (_ffi.fast) of each function the queries call through `_StoreBase._out_int`.
_FAST = {name: _ffi.fast(name) for name in (
    "passcode_is_enabled", "passcode_length", "passcode_failed_attempts", "passcode_lockout_remaining",
    "passcode_is_reset_required", "passcode_biometric_check", "passcode_biometric_lead", "passcode_tpm_is_bound",
    "passcode_has_recovery_key", "passcode_reset_pending", "passcode_reset_retry_after")}


def _Scratch() -> Any:
    """A store's out-buffers for the hot queries, one set per thread (ctypes releases the GIL
    during a call, so threads must not share them), made once per thread (`_fill`) instead of
    at every call. A plain threading.local: a subclass's attributes are looked up the generic
    way, which cost a fifth of a store.is_set."""
    return threading.local()


def _fill(scratch: Any) -> Any:
    """Makes this thread's buffers in `scratch` (the first query of a store on a thread)."""
    # (pointer for C, view to read the answer): a memoryview over the same bytes reads
    # faster than a ctypes .value; the bytearray itself, faster still, for a 0 or 1.
    raw32, raw64 = bytearray(4), bytearray(8)
    scratch.i32 = (byref(c_int32.from_buffer(raw32)), memoryview(raw32).cast("i"), raw32)
    scratch.i64 = (byref(c_int64.from_buffer(raw64)), memoryview(raw64).cast("q"), raw64)
    scratch.screen = _ffi.lock_screen_t(ctypes.sizeof(_ffi.lock_screen_t))
    scratch.screen_ref = byref(scratch.screen)
    scratch.screen_bytes = memoryview(scratch.screen).cast("B")
    # The last answer and the bytes it was made from: a poll that finds the same bytes (the
    # screen has not changed) hands back the same immutable value instead of building one.
    scratch.last_screen = None
    return scratch


#: The byte of an int32 that holds a 0 or 1 answer (the low one).
_LOW = 0 if sys.byteorder == "little" else 3


class _StoreBase(_Handle):
    """What every part of Store rests on: the handle, the callbacks kept alive, the out-buffers."""

    _path: Union[str, bytes, None] = None
    _callbacks: Dict[str, Any]
    _scratch: Any  # _Scratch(): a threading.local, filled by _fill
    _what = "store"

    @staticmethod
    def _free(handle: Any) -> None:
        _lib.passcode_close(handle)

    def _out_int(self, fn: Callable[..., Any], ctype: Any = c_int32) -> int:
        h = self._handle
        if h is None:
            self._h()  # raises InvalidHandle
        fast = _FAST.get(fn.__name__)
        if fast is None:
            out = ctype()
            fn(h, byref(out))
            return int(out.value)
        view: memoryview
        try:
            ref, view, _ = self._scratch.i32 if ctype is c_int32 else self._scratch.i64
        except AttributeError:  # this thread's first query of the store
            scratch = _fill(self._scratch)
            ref, view, _ = scratch.i32 if ctype is c_int32 else scratch.i64
        rc = fast(h, ref)
        if rc:
            _ffi.check_status(rc, fast, (h,))
        return view[0]
