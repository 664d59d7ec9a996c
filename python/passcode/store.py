"""The store: opening and closing it, the passcode, and its other parts by concept (settings.py,
lock.py, reset.py, keys.py, account.py, callbacks.py, tpm.py), joined into one Store class."""
import ctypes
import os
from ctypes import byref, c_int64
from typing import TYPE_CHECKING, Callable, Optional, Tuple, Union

from . import _ffi
from ._args import Digits, _bytes, _call_with_secrets, _int
from ._enums import Cost, FlowKind, Status
from ._errors import InvalidArgument, PasscodeError
from ._handle import _LOW, _Scratch, _fill
from .account import _Account
from .aio import twin
from .callbacks import _Callbacks, _clock_callback
from .flow import Flow
from .keys import _Keys
from .lock import _Lock
from .reset import _Reset
from .settings import _Settings
from .tpm import _Tpm
from .user import _Users

_lib = _ffi.lib
_is_set = _ffi.fast("passcode_is_set")


def version() -> str:
    """The loaded library's version, e.g. "1.2.3"."""
    return str(_lib.passcode_version_string().decode())



def strerror(status: int) -> str:
    """A status's short English text (passcode_strerror)."""
    return str(_lib.passcode_strerror(int(status)).decode())



class Store(_Settings, _Lock, _Reset, _Keys, _Account, _Callbacks, _Tpm, _Users):
    """A libpasscode store (one SQLite file), usable as a context manager.

    Several processes and threads may use one store. Callbacks are called on the thread of the
    call that triggers them; an exception inside one is reported as that hook's failure.

    One rule for the API's shape: a state the store reports (no arguments, no side effect) is a
    property (`is_set`, `locked`, `security_label`, `biometric_refusal`); whatever changes the
    store, reports an event or takes an argument is a method (`verify`, `report`, `set_setting`).
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
                 tpm: Union[None, bool, str] = None, tpm_owner_auth_file: Optional[str] = None,
                 service: Optional[str] = None):
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
        service: an application id: service mode (passcode_options_set_service), the store
        passcoded keeps for this user under that id, over the system bus, instead of a file
        (`path` is then only a label). The service refuses cost, pepper, allow_weak, clock and
        the TPM options (RefusedInServiceMode); ServiceUnavailable when it cannot be reached.
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
            if service is not None:
                if not isinstance(service, str):
                    raise TypeError(f"service must be an application id (str), not {type(service).__name__}")
                _lib.passcode_options_set_service(opts, service.encode())
            if clock is not None:
                self._callbacks["clock"] = _clock_callback(clock)
                _lib.passcode_options_set_clock(opts, self._callbacks["clock"], None)
            handle = _ffi.STORE()
            raw_path = path.encode() if isinstance(path, str) else path
            if b"\0" in raw_path:
                raise InvalidArgument("the path contains a NUL byte", Status.ERR_MISUSE)
            _lib.passcode_open(raw_path, opts, byref(handle))
            self._handle = handle
        finally:
            _lib.passcode_options_free(opts)

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

    def remove_store(self, current: Optional[Digits] = None) -> None:
        """Removes the whole store: its file, -wal and -shm, and what it keeps outside them
        (passcode_store_remove); in service mode the store passcoded keeps for the app id, which
        frees one of the user's stores. With a passcode set, `current` must be it (checked and
        counted as verify counts it: WrongPasscode, LockedOut, ...; PasscodeRequired without
        it); with none set, leave it None (NoPasscode otherwise). Afterwards every call on this
        object, and on every other object open on the store, raises StoreRemoved; close() it as
        usual. Opening the path (or app id) again gives a new, empty store."""
        if current is None:
            _lib.passcode_store_remove(self._h(), None, 0)
        else:
            _call_with_secrets(_lib.passcode_store_remove, self._h(), _bytes(current, "the passcode"))

    # -- the same, for asyncio (aio.py): each runs in the loop's executor (Argon2id takes ~0.1 s)

    set_passcode_async = twin(set_passcode)
    verify_async = twin(verify)
    authorize_async = twin(authorize)
    change_async = twin(change)
    disable_async = twin(disable)
    remove_async = twin(remove)
    remove_store_async = twin(remove_store)

    @property
    def is_set(self) -> bool:
        """Whether a passcode is set, enabled or not (passcode_is_set)."""
        # The hot query, at about the cost of a bare ctypes call: no argtypes conversion, no
        # errcheck call, no out-buffer made per call (Tests/bench/bench.py measures it).
        raw: bytearray
        try:
            ref, _, raw = self._scratch.i32
        except AttributeError:  # this thread's first query of the store
            ref, _, raw = _fill(self._scratch).i32
        rc = _is_set(self._handle, ref)  # closed: NULL, which the library refuses
        if rc:
            self._h()  # a closed store raises InvalidHandle, as everywhere
            _ffi.check_status(rc, _is_set, (self._handle,))
        return raw[_LOW] == 1

    @property
    def is_enabled(self) -> bool:
        """Whether the passcode lock is on: a passcode is set and not turned off (passcode_is_enabled)."""
        return bool(self._out_int(_lib.passcode_is_enabled))

    @property
    def length(self) -> int:
        """Digits of the passcode (4-12): the set passcode's; settable only while none is set,
        and then only for this Store's own first set_passcode() (another handle gets 6)."""
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

    # -- flows --------------------------------------------------------------------------------

    def flow(self, kind: FlowKind) -> "Flow":
        """Starts an entry flow (passcode_flow_new)."""
        return Flow(self, FlowKind(kind))


def _one_class(cls: type) -> type:
    """The same class with its parts' members (settings.py, lock.py, ...: private mixins that keep
    the source split by concept) copied into it, and `object` its only base: help(passcode.Store)
    then shows one class and its members, not a method resolution order of private classes."""
    namespace = {}
    for part in reversed(cls.__mro__[:-1]):  # object last, left out
        for name, member in vars(part).items():
            if name not in ("__dict__", "__weakref__"):
                namespace[name] = member
    return type(cls.__name__, (object,), namespace)


if not TYPE_CHECKING:  # type checkers read the class above, with its parts
    Store = _one_class(Store)
