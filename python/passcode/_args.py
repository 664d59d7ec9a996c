"""Arguments on their way to C: checked conversions, and secrets lent as (pointer, length) and
wiped after the call."""
import ctypes
from ctypes import POINTER, c_char_p
from typing import Any, Callable, List, Optional, Tuple, Union

from ._enums import Status
from ._errors import InvalidArgument

#: A passcode or code: ASCII digits as str or bytes.
Digits = Union[str, bytes, bytearray]
#: Secret bytes (a key): a bytearray can be wiped afterwards.
Secret = Union[bytes, bytearray]


def _bytes(value: object, what: str) -> bytearray:
    """A mutable copy of a secret, so that it can be wiped after the call."""
    if isinstance(value, str):
        try:
            return bytearray(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise InvalidArgument(f"{what} is not valid text", Status.ERR_MISUSE) from None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytearray(value)
    raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")


def _text(value: Optional[str], what: str, allow_none: bool = False) -> Optional[bytes]:
    if value is None:
        if allow_none:
            return None
        raise TypeError(f"{what} must be a str, not None")
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    return value.encode("utf-8")


def _wipe(buf: bytearray) -> None:
    for i in range(len(buf)):
        buf[i] = 0


class _SecretBuffer:
    """A bytearray lent to C as (uint8_t *, length). A copy made for the call (from bytes) is
    wiped afterwards; a caller's bytearray is lent as it is."""

    def __init__(self, value: object, what: str):
        if isinstance(value, bytearray):
            self._data, self._copy = value, False
        elif isinstance(value, (bytes, memoryview)):
            self._data, self._copy = bytearray(value), True
        else:
            raise TypeError(f"{what} must be bytes or bytearray, not {type(value).__name__}")
        self.length = len(self._data)
        self._raw = (ctypes.c_uint8 * max(self.length, 1)).from_buffer(self._data) if self._data else None
        self.pointer = ctypes.cast(self._raw, POINTER(ctypes.c_uint8)) if self._raw is not None else None

    def __enter__(self) -> "_SecretBuffer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.pointer = None
        self._raw = None
        if self._copy:
            wipe(self._data)


def wipe(buffer: bytearray) -> None:
    """Overwrites a bytearray with zeros in place (for keys and unsealed data)."""
    _wipe(buffer)



def _call_with_secrets(fn: Callable[..., Any], handle: Any, *secrets_and_args: Any) -> Any:
    """Calls fn(handle, ...) where each bytearray argument is passed as (pointer, length) and wiped after."""
    args: List[Any] = []
    buffers: List[Tuple[bytearray, Any]] = []
    for a in secrets_and_args:
        if isinstance(a, bytearray):
            raw = (ctypes.c_char * max(len(a), 1)).from_buffer(a) if a else None
            buffers.append((a, raw))
            args += [ctypes.cast(raw, c_char_p) if raw is not None else c_char_p(b""), len(a)]
        else:
            args.append(a)
    try:
        return fn(handle, *args)
    finally:
        for a, raw in buffers:
            del raw
            _wipe(a)


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return value
