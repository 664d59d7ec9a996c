"""Callbacks into Python: the host's hooks (which may refuse a change), the lifecycle callbacks
and the host clock. A callback runs on the thread of the call that triggers it."""
import ctypes
from typing import Any, Callable, Optional, Tuple

from . import _ffi
from ._enums import LifecycleEvent, LogoutReason, Notice
from ._handle import _StoreBase

_lib = _ffi.lib


def _hook_message(exc: BaseException) -> bytes:
    # The exception's own text might carry a secret (a code), so only its type is passed on.
    return f"the Python callback raised {type(exc).__name__}".encode()


def _write_message(buffer: Any, size: int, text: bytes) -> None:
    if buffer and size:
        data = text[: size - 1] + b"\0"
        ctypes.memmove(buffer, data, len(data))


def _clock_callback(clock: Callable[[], Tuple[int, int, int]]) -> Any:
    """The C clock callback (passcode_options_set_clock) that asks `clock()`."""
    def cb(_payload: Any, boot: Any, wall: Any, boot_id: Any) -> None:
        try:
            b, w, i = clock()
            boot[0], wall[0], boot_id[0] = int(b), int(w), int(i) & 0xFFFFFFFFFFFFFFFF
        except BaseException:  # a clock that fails reads as "a new boot": never a shorter lockout
            boot[0], wall[0], boot_id[0] = 0, 0, 0xFFFFFFFFFFFFFFFF
    return _ffi.CLOCK_CB(cb)


def _told(call: Callable[..., None]) -> Callable[..., None]:
    """A C callback that tells the host something: call(*values); an exception is swallowed (the
    library has nothing to undo)."""
    def w(_p: Any, *values: Any) -> None:
        try:
            call(*values)
        except BaseException:
            pass
    return w


def _asked(call: Callable[..., None], secret: bool = False) -> Callable[..., int]:
    """A C hook that may refuse: call(*values) before the trailing (message, size); an exception
    refuses, its message (or, when the values hold a secret, only its type) becomes the error's."""
    def w(_p: Any, *args: Any) -> int:
        *values, message, size = args
        try:
            call(*values)
            return 0
        except BaseException as e:
            _write_message(message, size, _hook_message(e) if secret else (str(e) or type(e).__name__).encode())
            return 1
    return w


class _Callbacks(_StoreBase):
    """Store: hooks and callbacks. Each takes a callable, or None to unregister."""

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
        self._register("logout", _lib.passcode_set_logout_callback, _ffi.INT_CB,
                       None if fn is None else _told(lambda reason: fn(LogoutReason(reason))))

    def on_notice(self, fn: Optional[Callable[[Notice], None]]) -> None:
        """fn(notice), e.g. Notice.PASSCODE_RESET, to tell the user."""
        self._register("notice", _lib.passcode_set_notice_callback, _ffi.INT_CB,
                       None if fn is None else _told(lambda notice: fn(Notice(notice))))

    def on_reset_code(self, fn: Optional[Callable[[str], None]]) -> None:
        """fn(code) delivers a reset code (sends the email). Raising means delivery failed: the
        code is discarded and request_reset_code raises HookFailed."""
        self._register("reset", _lib.passcode_set_reset_delivery_callback, _ffi.DELIVERY_CB,
                       None if fn is None else _asked(lambda code, length: fn(ctypes.string_at(code, length).decode()), secret=True))

    def settings_hook(self, fn: Optional[Callable[[str, str, str], None]]) -> None:
        """fn(key, old, new) before a setting change is committed; raise to refuse it (the
        exception's message becomes the error's)."""
        self._register("settings", _lib.passcode_set_settings_hook, _ffi.SETTINGS_CB,
                       None if fn is None else _asked(lambda key, old, new: fn(key.decode(), old.decode(), new.decode())))

    def lifecycle_hook(self, fn: Optional[Callable[[LifecycleEvent], None]]) -> None:
        """fn(event) before a passcode lifecycle change (set, changed, reset, disabled, enabled,
        removed, forgot) is committed, to keep a backend in step; raise to refuse it (nothing
        changes, the call raises HookFailed with the exception's message)."""
        self._register("lifecycle", _lib.passcode_set_lifecycle_callback, _ffi.LIFECYCLE_CB,
                       None if fn is None else _asked(lambda event: fn(LifecycleEvent(event))))

    def session_hook(self, fn: Optional[Callable[[str], None]]) -> None:
        """fn(session_id) before a session is signed out; raise to keep it."""
        self._register("session", _lib.passcode_set_session_hook, _ffi.SESSION_CB,
                       None if fn is None else _asked(lambda sid: fn(sid.decode())))

    def on_account_deleted(self, fn: Optional[Callable[[], None]]) -> None:
        """Registers `fn()`, called after delete_account wiped the store; None unregisters
        (passcode_set_account_deleted_callback)."""
        self._register("deleted", _lib.passcode_set_account_deleted_callback, _ffi.VOID_CB,
                       None if fn is None else _told(lambda: fn()))
