"""libpasscode for Python: the passcode-lock engine, through ctypes.

    import passcode
    with passcode.Store("app.db") as store:
        if not store.is_set:
            store.set_passcode("386491")
        try:
            store.verify("000000")
        except passcode.WrongPasscode:
            print("wrong; failures:", store.failed_attempts)

Every call that fails raises a PasscodeError subclass carrying the status and the library's
message. Passcodes are str or bytes of ASCII digits.
"""
import asyncio
import ctypes
import functools
import os
import struct
import threading
import warnings
from ctypes import POINTER, byref, c_char_p, c_int32, c_int64, c_uint64
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, TypeVar, Union

from . import _ffi
from ._enums import (BiometricKind, BiometricRefusal, Cost, Event, FlowKind, FlowResult, FlowStep,
                     LifecycleEvent, LockReason, LogoutReason, MaxFailureAction, Notice, Schedule, SecurityEvent, Setting,
                     Status, TpmPostureItem)
from ._errors import *  # noqa: F401,F403  (the exception classes are part of the API)
from ._errors import InvalidArgument, InvalidHandle, KeyNotReleased, PasscodeError, PasscodeRequired

__all__ = ["__version__", "Store", "Flow", "Session", "PasscodeError", "version", "setting_bounds", "setting_choices",
           "setting_default", "setting_weakens", "Status", "Cost", "Setting",
           "Event", "LockReason", "BiometricKind", "BiometricRefusal", "FlowKind", "FlowStep",
           "FlowResult", "LifecycleEvent", "MaxFailureAction", "Notice", "LogoutReason", "Schedule", "SecurityEvent",
           "LoggedEvent", "LockScreen", "wipe", "strerror", "KEY_BYTES", "SEAL_OVERHEAD"]

_lib = _ffi.lib

Digits = Union[str, bytes, bytearray]
Secret = Union[bytes, bytearray]

#: The data key's size (passcode_key_bytes) and what seal() adds (passcode_seal_overhead).
KEY_BYTES = _lib.passcode_key_bytes()
SEAL_OVERHEAD = _lib.passcode_seal_overhead()


#: This binding's version (the loaded library's is `version()`).
__version__ = _ffi.__version__


def _binding_version() -> str:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "VERSION"), encoding="ascii") as f:
        return f.read().strip()


#: The binding's version (the package's); `version()` is the loaded library's.
__version__ = _binding_version()


def version() -> str:
    """The loaded library's version, e.g. "1.2.3"."""
    return str(_lib.passcode_version_string().decode())


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


def strerror(status: int) -> str:
    """A status's short English text (passcode_strerror)."""
    return str(_lib.passcode_strerror(int(status)).decode())


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


_T = TypeVar("_T")
_H = TypeVar("_H", bound="_Handle")


async def _in_thread(fn: Callable[..., _T], *args: Any) -> _T:
    """Runs a blocking call (one that runs Argon2id) in the event loop's default executor. ctypes
    releases the GIL for the C call, so the loop, and other threads, go on meanwhile."""
    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(fn, *args))


def _hook_message(exc: BaseException) -> bytes:
    # The exception's own text might carry a secret (a code), so only its type is passed on.
    return f"the Python callback raised {type(exc).__name__}".encode()


def _write_message(buffer: Any, size: int, text: bytes) -> None:
    if buffer and size:
        data = text[: size - 1] + b"\0"
        ctypes.memmove(buffer, data, len(data))


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
_is_set = _ffi.fast("passcode_is_set")
#: The fast twin (_ffi.fast) of each function the queries below call through `_out_int`.
_FAST = {name: _ffi.fast(name) for name in (
    "passcode_is_enabled", "passcode_length", "passcode_failed_attempts", "passcode_lockout_remaining",
    "passcode_is_reset_required", "passcode_biometric_check", "passcode_biometric_lead", "passcode_tpm_is_bound",
    "passcode_has_recovery_key", "passcode_reset_pending", "passcode_reset_retry_after")}
#: passcode_lock_screen read in one C call (struct.unpack_from) instead of one ctypes descriptor
#: per field; native alignment, so it matches the C layout (checked against ctypes below).
_LOCK_SCREEN = struct.Struct("@N2iq7iP")
_LOCK_SCREEN_SIZE = ctypes.sizeof(_ffi.lock_screen_t)
assert _LOCK_SCREEN.size == _LOCK_SCREEN_SIZE, "passcode_lock_screen: struct and ctypes layouts differ"
_unpack_lock_screen = _LOCK_SCREEN.unpack_from


class _Scratch(threading.local):
    """A store's out-buffers for the hot queries, one set per thread (ctypes releases the GIL
    during a call, so threads must not share them), made once instead of at every call."""

    def __init__(self) -> None:
        # (pointer for C, view to read the answer): a memoryview over the same bytes reads
        # faster than a ctypes .value.
        raw32, raw64 = bytearray(4), bytearray(8)
        self.i32 = (byref(c_int32.from_buffer(raw32)), memoryview(raw32).cast("i"))
        self.i64 = (byref(c_int64.from_buffer(raw64)), memoryview(raw64).cast("q"))
        self.screen = _ffi.lock_screen_t(_LOCK_SCREEN_SIZE)
        self.screen_ref = byref(self.screen)
        self.screen_bytes = memoryview(self.screen).cast("B")
        # The last answer and the bytes it was made from: a poll that finds the same bytes (the
        # screen has not changed) hands back the same immutable value instead of building one.
        self.last_screen: Optional[Tuple[bytes, "LockScreen"]] = None


@dataclass(frozen=True)
class LoggedEvent:
    """One entry of the security event log (passcode_event_log_get)."""
    kind: SecurityEvent
    wall_ms: int
    detail: str


@dataclass(frozen=True)
class Session:
    """A device session the host recorded (passcode_session_record)."""
    id: str
    device_name: str
    platform: str
    last_active_ms: int
    location: Optional[str]
    is_current: bool


class Store(_Handle):
    """A libpasscode store (one SQLite file), usable as a context manager.

    Several processes and threads may use one store. Callbacks are called on the thread of the
    call that triggers them; an exception inside one is reported as that hook's failure.

    One rule for the API's shape: a state the store reports (no arguments, no side effect) is a
    property (`is_set`, `locked`, `security_label`, `biometric_refusal`); whatever changes the
    store, reports an event or takes an argument is a method (`verify`, `report`, `set`).
    """

    _path: Union[str, bytes, None] = None

    def __repr__(self) -> str:
        path = self._path.decode(errors="replace") if isinstance(self._path, bytes) else self._path
        if self._handle is None:
            return f"<passcode.Store {path!r} closed>"
        try:
            state = ("passcode on" if self.is_enabled else "passcode off") if self.is_set else "no passcode"
            state += ", locked" if self.locked else ""
        except PasscodeError as e:
            state = e.message
        return f"<passcode.Store {path!r} open: {state}>"

    def __init__(self, path: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"], *, cost: Optional[Cost] = None, ops_limit: Optional[int] = None,
                 mem_limit: Optional[int] = None, pepper: Optional[bytes] = None, allow_weak: bool = False,
                 clock: Optional[Callable[[], Tuple[int, int, int]]] = None,
                 busy_timeout_ms: Optional[int] = None, session_keyring: bool = True,
                 tpm: Union[None, bool, str] = None, tpm_owner_auth_file: Optional[str] = None):
        """Opens (or creates, mode 0600) the store at `path` (str, bytes or os.PathLike).

        cost: an Argon2id preset; ops_limit and mem_limit: explicit values instead.
        pepper: 32 secret bytes kept outside the store. clock: a callable returning
        (boot_ms, wall_ms, boot_id) for hosts with their own time source, and tests.
        session_keyring: False keeps the data key out of the kernel's session keyring
        (passcode_options_set_session_keyring): a biometric match in a later launch then
        unlocks without releasing the key.
        tpm: bind the store to a TPM 2.0 (passcode_options_set_tpm): True for the kernel's
        /dev/tpmrm0, or a tpm2-tss TCTI string such as "swtpm:host=127.0.0.1,port=2321". A
        bound store opens only with it; raises TPMUnavailable when no TPM answers.
        tpm_owner_auth_file: where the administrator's root-only file with the TPM's owner
        authorization is (provisioned mode; passcode_options_set_tpm_owner_auth_file), instead
        of /etc/passcode/tpm-owner-auth.
        """
        self._handle = None
        self._callbacks = {}
        self._scratch = _Scratch()
        if not isinstance(path, (str, bytes, os.PathLike)):
            raise TypeError(f"path must be str, bytes or os.PathLike, not {type(path).__name__}")
        path = os.fspath(path)  # as sqlite3.connect and open() do
        self._path = path
        opts = _ffi.OPTIONS()
        _lib.passcode_options_new(byref(opts))
        try:
            if cost is not None:
                _lib.passcode_options_set_cost(opts, int(Cost(cost)))
            if ops_limit is not None or mem_limit is not None:
                if ops_limit is None or mem_limit is None:
                    raise TypeError("ops_limit and mem_limit go together")
                _lib.passcode_options_set_cost_explicit(opts, _int(ops_limit, "ops_limit"), _int(mem_limit, "mem_limit"))
            if pepper is not None:
                if not isinstance(pepper, (bytes, bytearray)):
                    raise TypeError("pepper must be bytes")
                buf = (ctypes.c_uint8 * max(len(pepper), 1)).from_buffer_copy(bytes(pepper) or b"\0")
                try:
                    _lib.passcode_options_set_pepper(opts, buf, len(pepper))
                finally:
                    ctypes.memset(buf, 0, ctypes.sizeof(buf))
            _lib.passcode_options_set_allow_weak(opts, 1 if allow_weak else 0)
            _lib.passcode_options_set_session_keyring(opts, 1 if session_keyring else 0)
            if tpm is True:
                _lib.passcode_options_set_tpm(opts, None)
            elif isinstance(tpm, str):
                _lib.passcode_options_set_tpm(opts, tpm.encode())
            elif tpm not in (None, False):
                raise TypeError(f"tpm must be None, a bool or a TCTI string, not {type(tpm).__name__}")
            if tpm_owner_auth_file is not None:
                _lib.passcode_options_set_tpm_owner_auth_file(opts, os.fsencode(tpm_owner_auth_file))
            if busy_timeout_ms is not None:
                _lib.passcode_options_set_busy_timeout(opts, _int(busy_timeout_ms, "busy_timeout_ms"))
            if clock is not None:
                self._callbacks["clock"] = self._make_clock(clock)
                _lib.passcode_options_set_clock(opts, self._callbacks["clock"], None)
            handle = _ffi.STORE()
            raw_path = path.encode() if isinstance(path, str) else path
            if b"\0" in raw_path:
                raise InvalidArgument("the path contains a NUL byte", Status.ERR_MISUSE)
            _lib.passcode_open(raw_path, opts, byref(handle))
            self._handle = handle
        finally:
            _lib.passcode_options_free(opts)

    @staticmethod
    def _make_clock(clock: Callable[[], Tuple[int, int, int]]) -> Any:
        def cb(_payload: Any, boot: Any, wall: Any, boot_id: Any) -> None:
            try:
                b, w, i = clock()
                boot[0], wall[0], boot_id[0] = int(b), int(w), int(i) & 0xFFFFFFFFFFFFFFFF
            except BaseException:  # a clock that fails reads as "a new boot": never a shorter lockout
                boot[0], wall[0], boot_id[0] = 0, 0, 0xFFFFFFFFFFFFFFFF
        return _ffi.CLOCK_CB(cb)

    # -- plumbing ---------------------------------------------------------------------------

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
        ref, out = self._scratch.i32 if ctype is c_int32 else self._scratch.i64
        rc = fast(h, ref)
        if rc:
            _ffi.check_status(rc, fast, (h,))
        return out[0]

    # -- the passcode -------------------------------------------------------------------------

    def set_passcode(self, digits: Digits) -> None:
        """Sets the first passcode and turns the lock on (passcode_set)."""
        _call_with_secrets(_lib.passcode_set, self._h(), _bytes(digits, "the passcode"))

    def verify(self, digits: Digits) -> None:
        """Checks the passcode; raises WrongPasscode, LockedOut (with seconds_remaining),
        ResetRequired, LoggedOut, NoPasscode or FormatError (passcode_verify)."""
        _call_with_secrets(_lib.passcode_verify, self._h(), _bytes(digits, "the passcode"))

    def authorize(self, digits: Digits) -> None:
        """Proves the user before a weakening setting change: checked exactly like verify, and for
        5 minutes weakening changes on this store object are allowed (passcode_authorize)."""
        _call_with_secrets(_lib.passcode_authorize, self._h(), _bytes(digits, "the passcode"))

    def change(self, current: Digits, new: Digits) -> None:
        """Replaces the passcode after checking the current one (passcode_change)."""
        _call_with_secrets(_lib.passcode_change, self._h(), _bytes(current, "the current passcode"),
                                       _bytes(new, "the new passcode"))

    def disable(self, current: Digits) -> None:
        """Turns the lock off, keeping the passcode (passcode_disable)."""
        _call_with_secrets(_lib.passcode_disable, self._h(), _bytes(current, "the passcode"))

    def enable(self) -> None:
        """Turns the lock on again with the stored passcode (passcode_enable)."""
        _lib.passcode_enable(self._h())

    def remove(self, current: Digits) -> None:
        """Removes the passcode after checking it (passcode_remove)."""
        _call_with_secrets(_lib.passcode_remove, self._h(), _bytes(current, "the passcode"))

    # -- the same, for asyncio: each runs in the loop's executor (Argon2id takes ~0.1 s) --------

    async def set_passcode_async(self, digits: Digits) -> None:
        """`set_passcode` without blocking the event loop."""
        await _in_thread(self.set_passcode, digits)

    async def verify_async(self, digits: Digits) -> None:
        """`verify` without blocking the event loop (raises the same exceptions)."""
        await _in_thread(self.verify, digits)

    async def authorize_async(self, digits: Digits) -> None:
        """`authorize` without blocking the event loop."""
        await _in_thread(self.authorize, digits)

    async def change_async(self, current: Digits, new: Digits) -> None:
        """`change` without blocking the event loop."""
        await _in_thread(self.change, current, new)

    async def disable_async(self, current: Digits) -> None:
        """`disable` without blocking the event loop."""
        await _in_thread(self.disable, current)

    async def remove_async(self, current: Digits) -> None:
        """`remove` without blocking the event loop."""
        await _in_thread(self.remove, current)

    async def unlock_key_async(self, digits: Digits) -> bytearray:
        """`unlock_key` without blocking the event loop."""
        return await _in_thread(self.unlock_key, digits)

    async def complete_reset_async(self, code: Digits, new_passcode: Digits, recovery_key: Optional["Secret"] = None) -> None:
        """`complete_reset` without blocking the event loop."""
        await _in_thread(self.complete_reset, code, new_passcode, recovery_key)

    @property
    def is_set(self) -> bool:
        """Whether a passcode is set, enabled or not (passcode_is_set)."""
        # The hot query, at about the cost of a bare ctypes call: no argtypes conversion, no
        # errcheck call, no out-buffer made per call (Tests/bench/bench.py measures it).
        ref, out = self._scratch.i32
        rc = _is_set(self._handle, ref)  # closed: NULL, which the library refuses
        if rc:
            self._h()  # a closed store raises InvalidHandle, as everywhere
            _ffi.check_status(rc, _is_set, (self._handle,))
        return out[0] == 1

    # -- the TPM ------------------------------------------------------------------------------

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

    @property
    def is_enabled(self) -> bool:
        """Whether the passcode lock is on: a passcode is set and not turned off (passcode_is_enabled)."""
        return bool(self._out_int(_lib.passcode_is_enabled))

    @property
    def length(self) -> int:
        """Digits of the passcode (4-12); settable only while none is set."""
        return self._out_int(_lib.passcode_length)

    @length.setter
    def length(self, n: int) -> None:
        _lib.passcode_set_length(self._h(), _int(n, "length"))

    @property
    def failed_attempts(self) -> int:
        """Failed passcode attempts counted towards the lockout (passcode_failed_attempts)."""
        return self._out_int(_lib.passcode_failed_attempts)

    @property
    def lockout_remaining(self) -> int:
        """Seconds until the next attempt is allowed; 0 when not locked out."""
        return self._out_int(_lib.passcode_lockout_remaining, c_int64)

    @property
    def reset_required(self) -> bool:
        """Whether the maximum number of failures was reached: only a reset lets a passcode in again
        (passcode_is_reset_required)."""
        return bool(self._out_int(_lib.passcode_is_reset_required))

    # -- settings -----------------------------------------------------------------------------

    def get(self, setting: Setting) -> int:
        """A setting's value (passcode_setting_get)."""
        out = c_int64()
        _lib.passcode_setting_get(self._h(), int(Setting(_int(setting, "setting"))), byref(out))
        return out.value

    def set(self, setting: Setting, value: int) -> None:
        """Changes a setting, after the settings hook agreed (passcode_setting_set)."""
        _lib.passcode_setting_set(self._h(), int(Setting(_int(setting, "setting"))), _int(int(value) if isinstance(value, bool) else value, "value"))

    def set_custom_schedule(self, delays: List[int], max_failures: int = 0) -> None:
        """Installs and selects a custom lockout table (passcode_set_custom_schedule)."""
        arr = (ctypes.c_uint32 * max(len(delays), 1))(*[_int(d, "delay") for d in delays])
        _lib.passcode_set_custom_schedule(self._h(), arr, len(delays), _int(max_failures, "max_failures"))

    # -- lock state and biometrics --------------------------------------------------------------

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
        rc = _lock_screen_read(self._handle, scratch.screen_ref)  # closed: NULL, which the library refuses
        if rc:
            self._h()  # a closed store raises InvalidHandle, as everywhere
            _ffi.check_status(rc, _lock_screen_read, (self._handle,))
        last = scratch.last_screen
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
        """Reports a biometric success; raises PasscodeRequired (with .reason) when policy refuses."""
        refusal = c_int32()
        try:
            _lib.passcode_biometric_unlock(self._h(), byref(refusal))
        except PasscodeRequired as e:
            e.reason = BiometricRefusal(refusal.value)
            raise

    def biometric_failed(self) -> int:
        """Reports a failed biometric match; returns the count since the last unlock."""
        return self._out_int(_lib.passcode_biometric_failed)

    # -- flows, reset, forgot -------------------------------------------------------------------

    def flow(self, kind: FlowKind) -> "Flow":
        """Starts an entry flow (passcode_flow_new)."""
        return Flow(self, FlowKind(kind))

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

    # -- the data key ---------------------------------------------------------------------------

    def unlock_key(self, digits: Digits) -> bytearray:
        """Verifies like verify() and returns the store's 32-byte data key as a bytearray; wipe
        it when done (passcode.wipe(key)). The key also stays released on this object for
        seal() and unseal() until the app locks (passcode_unlock_key)."""
        key = bytearray(KEY_BYTES)
        with _SecretBuffer(key, "the key") as out:
            _call_with_secrets(_lib.passcode_unlock_key, self._h(), _bytes(digits, "the passcode"), out.pointer, out.length)
        return key

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

    @property
    def reset_pending(self) -> bool:
        """Whether a reset code was sent and is still usable (passcode_reset_pending)."""
        return bool(self._out_int(_lib.passcode_reset_pending))

    def forgot(self) -> None:
        """ "Forgot passcode": removes it, clears lock state, calls on_logout (passcode_forgot)."""
        _lib.passcode_forgot(self._h())

    # -- account --------------------------------------------------------------------------------

    def check_password_change(self, current: str, new: str, confirmation: str) -> None:
        """Checks an account-password change; records its time on success."""
        for v, w in ((current, "current"), (new, "new"), (confirmation, "confirmation")):
            if not isinstance(v, (str, bytes, bytearray)):
                raise TypeError(f"the {w} password must be str or bytes, not {type(v).__name__}")
        _call_with_secrets(_lib.passcode_password_change_check, self._h(), _bytes(current, "the current password"),
                                       _bytes(new, "the new password"), _bytes(confirmation, "the confirmation"))

    def record_session(self, id: str, device_name: str, platform: str, last_active_ms: int,
                       location: Optional[str] = None, is_current: bool = False) -> None:
        """Records (or updates) a device session the host knows of; `is_current` marks this
        device's own, which sign_out refuses (passcode_session_record)."""
        _lib.passcode_session_record(self._h(), _text(id, "id"), _text(device_name, "device_name"),
                                                 _text(platform, "platform"), _int(last_active_ms, "last_active_ms"),
                                                 _text(location, "location", allow_none=True), 1 if is_current else 0)

    def sessions(self) -> List[Session]:
        """Every session, this device first."""
        lst = _ffi.SESSION_LIST()
        _lib.passcode_session_list_new(self._h(), byref(lst))
        try:
            out = []
            for i in range(_lib.passcode_session_list_count(lst)):
                sid, name, plat, loc = c_char_p(), c_char_p(), c_char_p(), c_char_p()
                active, current = c_int64(), c_int32()
                _lib.passcode_session_list_get(lst, i, byref(sid), byref(name), byref(plat), byref(active),
                                                           byref(loc), byref(current))
                out.append(Session((sid.value or b"").decode(), (name.value or b"").decode(), (plat.value or b"").decode(), active.value,
                                   (loc.value or b"").decode() if loc.value is not None else None, bool(current.value)))
            return out
        finally:
            _lib.passcode_session_list_free(lst)

    def events(self) -> List[LoggedEvent]:
        """The security event log, newest first (passcode_event_log_new)."""
        log = _ffi.EVENT_LOG()
        _lib.passcode_event_log_new(self._h(), byref(log))
        try:
            out = []
            for i in range(_lib.passcode_event_log_count(log)):
                kind, wall, detail = c_int32(), c_int64(), c_char_p()
                _lib.passcode_event_log_get(log, i, byref(kind), byref(wall), byref(detail))
                out.append(LoggedEvent(SecurityEvent(kind.value), wall.value, (detail.value or b"").decode()))
            return out
        finally:
            _lib.passcode_event_log_free(log)

    @property
    def failures_since_unlock(self) -> int:
        """Failed attempts to tell the user about after an unlock (passcode_failure_summary)."""
        failures = c_int32()
        _lib.passcode_failure_summary(self._h(), byref(failures), None)
        return failures.value

    @property
    def last_failure_ms(self) -> Optional[int]:
        """Wall-clock milliseconds of the last of those failures, or None."""
        failures, last = c_int32(), c_int64()
        _lib.passcode_failure_summary(self._h(), byref(failures), byref(last))
        return last.value or None

    def sign_out(self, session_id: str) -> None:
        """Signs out one other device's session; raises SessionNotFound, or SessionIsCurrent for
        this device's own (passcode_session_sign_out)."""
        _lib.passcode_session_sign_out(self._h(), _text(session_id, "session_id"))

    def sign_out_others(self) -> int:
        """Signs out every other session; returns how many."""
        return self._out_int(_lib.passcode_session_sign_out_others)

    def delete_account(self, confirmation: str) -> None:
        """Wipes the store; only with the exact text "DELETE"."""
        _lib.passcode_delete_account(self._h(), _text(confirmation, "confirmation"))

    # -- callbacks ------------------------------------------------------------------------------

    def _register(self, name: str, setter: Callable[..., Any], cbtype: Any, wrapper: Optional[Callable[..., Any]]) -> None:
        if wrapper is None:
            setter(self._h(), cbtype(), None)  # a NULL function pointer
            self._callbacks.pop(name, None)
            return
        cb = cbtype(wrapper)
        setter(self._h(), cb, None)
        self._callbacks[name] = cb  # kept alive as long as the library may call it

    def on_logout(self, fn: Optional[Callable[[LogoutReason], None]]) -> None:
        """fn(reason) after the library removed the passcode and the user must log in again."""
        if fn is None:
            return self._register("logout", _lib.passcode_set_logout_callback, _ffi.INT_CB, None)
        def w(_p: Any, reason: int) -> None:
            try:
                fn(LogoutReason(reason))
            except BaseException:
                pass
        self._register("logout", _lib.passcode_set_logout_callback, _ffi.INT_CB, w)

    def on_notice(self, fn: Optional[Callable[[Notice], None]]) -> None:
        """fn(notice), e.g. Notice.PASSCODE_RESET, to tell the user."""
        if fn is None:
            return self._register("notice", _lib.passcode_set_notice_callback, _ffi.INT_CB, None)
        def w(_p: Any, notice: int) -> None:
            try:
                fn(Notice(notice))
            except BaseException:
                pass
        self._register("notice", _lib.passcode_set_notice_callback, _ffi.INT_CB, w)

    def on_reset_code(self, fn: Optional[Callable[[str], None]]) -> None:
        """fn(code) delivers a reset code (sends the email). Raising means delivery failed: the
        code is discarded and request_reset_code raises HookFailed."""
        if fn is None:
            return self._register("reset", _lib.passcode_set_reset_delivery_callback, _ffi.DELIVERY_CB, None)
        def w(_p: Any, code: Any, length: int, message: Any, size: int) -> int:
            try:
                fn(ctypes.string_at(code, length).decode())
                return 0
            except BaseException as e:
                _write_message(message, size, _hook_message(e))
                return 1
        self._register("reset", _lib.passcode_set_reset_delivery_callback, _ffi.DELIVERY_CB, w)

    def settings_hook(self, fn: Optional[Callable[[str, str, str], None]]) -> None:
        """fn(key, old, new) before a setting change is committed; raise to refuse it (the
        exception's message becomes the error's)."""
        if fn is None:
            return self._register("settings", _lib.passcode_set_settings_hook, _ffi.SETTINGS_CB, None)
        def w(_p: Any, key: bytes, old: bytes, new: bytes, message: Any, size: int) -> int:
            try:
                fn(key.decode(), old.decode(), new.decode())
                return 0
            except BaseException as e:
                _write_message(message, size, (str(e) or type(e).__name__).encode())
                return 1
        self._register("settings", _lib.passcode_set_settings_hook, _ffi.SETTINGS_CB, w)

    def lifecycle_hook(self, fn: Optional[Callable[[LifecycleEvent], None]]) -> None:
        """fn(event) before a passcode lifecycle change (set, changed, reset, disabled, enabled,
        removed, forgot) is committed, to keep a backend in step; raise to refuse it (nothing
        changes, the call raises HookFailed with the exception's message)."""
        if fn is None:
            return self._register("lifecycle", _lib.passcode_set_lifecycle_callback, _ffi.LIFECYCLE_CB, None)
        def w(_p: Any, event: int, message: Any, size: int) -> int:
            try:
                fn(LifecycleEvent(event))
                return 0
            except BaseException as e:
                _write_message(message, size, (str(e) or type(e).__name__).encode())
                return 1
        self._register("lifecycle", _lib.passcode_set_lifecycle_callback, _ffi.LIFECYCLE_CB, w)

    def session_hook(self, fn: Optional[Callable[[str], None]]) -> None:
        """fn(session_id) before a session is signed out; raise to keep it."""
        if fn is None:
            return self._register("session", _lib.passcode_set_session_hook, _ffi.SESSION_CB, None)
        def w(_p: Any, sid: bytes, message: Any, size: int) -> int:
            try:
                fn(sid.decode())
                return 0
            except BaseException as e:
                _write_message(message, size, (str(e) or type(e).__name__).encode())
                return 1
        self._register("session", _lib.passcode_set_session_hook, _ffi.SESSION_CB, w)

    def on_account_deleted(self, fn: Optional[Callable[[], None]]) -> None:
        """Registers `fn()`, called after delete_account wiped the store; None unregisters
        (passcode_set_account_deleted_callback)."""
        if fn is None:
            return self._register("deleted", _lib.passcode_set_account_deleted_callback, _ffi.VOID_CB, None)
        def w(_p: Any) -> None:
            try:
                fn()
            except BaseException:
                pass
        self._register("deleted", _lib.passcode_set_account_deleted_callback, _ffi.VOID_CB, w)


class Flow(_Handle):
    """An entry flow: feed it key presses, draw what it reports. Usable as a context manager."""

    _what = "flow"

    @staticmethod
    def _free(handle: Any) -> None:
        _ffi.FLOW_STORES.pop(_ffi._address(handle), None)
        _lib.passcode_flow_free(handle)

    def __repr__(self) -> str:
        if self._handle is None:
            return f"<passcode.Flow {FlowKind(self.kind).name} closed>"
        filled, length = self.dots
        return f"<passcode.Flow {FlowKind(self.kind).name} {self.step.name} {filled}/{length}>"

    def __init__(self, store: Store, kind: FlowKind):
        """Starts a flow of `kind` on `store` (passcode_flow_new); Store.flow(kind) says the same."""
        self.store = store
        self.kind = kind
        handle = _ffi.FLOW()
        _lib.passcode_flow_new(store._h(), int(kind), byref(handle))
        self._handle = handle
        _ffi.FLOW_STORES[_ffi._address(handle)] = store._h()

    def take_key(self) -> bytearray:
        """After success, the data key, once (passcode_flow_take_key); KeyNotReleased otherwise."""
        key = bytearray(KEY_BYTES)
        with _SecretBuffer(key, "the key") as out:
            _lib.passcode_flow_take_key(self._h(), out.pointer, out.length)
        return key

    def digit(self, d: int) -> None:
        """Adds one digit (0-9); the entry submits itself at full length."""
        _lib.passcode_flow_digit(self._h(), _int(d, "digit"))

    async def digit_async(self, d: int) -> None:
        """`digit` without blocking the event loop: the last digit runs Argon2id."""
        await _in_thread(self.digit, d)

    def type(self, digits: str) -> None:
        """Adds several digits."""
        for ch in digits:
            if not ch.isdigit() or not ch.isascii():
                raise InvalidArgument("only the digits 0-9 can be typed", Status.ERR_MISUSE)
            self.digit(int(ch))

    def delete(self) -> None:
        """Deletes the last digit typed (passcode_flow_delete)."""
        _lib.passcode_flow_delete(self._h())

    def cancel(self) -> None:
        """Cancels the flow; an unlock flow cannot be cancelled (passcode_flow_cancel)."""
        _lib.passcode_flow_cancel(self._h())

    def refresh(self) -> None:
        """Re-reads the store, so a lockout that ran out or a change by another handle shows
        (passcode_flow_refresh)."""
        _lib.passcode_flow_refresh(self._h())

    @property
    def step(self) -> FlowStep:
        """The flow's step: which entry is on screen, locked out, or finished (passcode_flow_state)."""
        step = c_int32()
        _lib.passcode_flow_state(self._h(), byref(step), None)
        return FlowStep(step.value)

    @property
    def result(self) -> FlowResult:
        """Once finished: success, cancelled or failed (passcode_flow_state)."""
        step, result = c_int32(), c_int32()
        _lib.passcode_flow_state(self._h(), byref(step), byref(result))
        return FlowResult(result.value)

    @property
    def dots(self) -> Tuple[int, int]:
        """(filled, length)"""
        filled, length = c_int32(), c_int32()
        _lib.passcode_flow_dots(self._h(), byref(filled), byref(length))
        return filled.value, length.value

    @property
    def prompt(self) -> str:
        """The title to show above the dots, e.g. "Enter Passcode" (passcode_flow_prompt)."""
        out = c_char_p()
        _lib.passcode_flow_prompt(self._h(), byref(out))
        return (out.value or b"").decode()

    @property
    def error(self) -> str:
        """The message of the last refused entry, "" when none (passcode_flow_error)."""
        out = c_char_p()
        _lib.passcode_flow_error(self._h(), byref(out), None)
        return (out.value or b"").decode()

    @property
    def status(self) -> Status:
        """The status of the last submitted entry."""
        out, st = c_char_p(), c_int32()
        _lib.passcode_flow_error(self._h(), byref(out), byref(st))
        return Status(st.value)

    @property
    def shakes(self) -> int:
        """How many refusals so far: the dots shake whenever it grows (passcode_flow_shakes)."""
        out = c_int32()
        _lib.passcode_flow_shakes(self._h(), byref(out))
        return out.value

    @property
    def lockout_remaining(self) -> int:
        """Seconds until the next entry is allowed; 0 when not locked out (passcode_flow_lockout_remaining)."""
        out = c_int64()
        _lib.passcode_flow_lockout_remaining(self._h(), byref(out))
        return out.value
