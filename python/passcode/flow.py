"""Entry flows: the state machine behind a passcode screen (digits in, dots and prompts out)."""
from ctypes import byref, c_char_p, c_int32, c_int64
from typing import TYPE_CHECKING, Any, Tuple

from . import _ffi
from ._args import _SecretBuffer, _int
from ._enums import FlowKind, FlowResult, FlowStep, Message, Status
from ._errors import InvalidArgument
from ._handle import _Handle
from .aio import twin
from .keys import KEY_BYTES

if TYPE_CHECKING:
    from .store import Store

_lib = _ffi.lib


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

    def __init__(self, store: "Store", kind: FlowKind):
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


    digit_async = twin(digit)

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
    def messages(self) -> Tuple[Message, Message, int]:
        """The codes of what the flow shows, the same in every language: (the prompt, the error
        line or Message.NONE, the error's number: a lockout's seconds or minutes, the tries a
        reset code has left) (passcode_flow_messages). passcode.message_text() gives their text."""
        prompt, error, number = c_int32(), c_int32(), c_int64()
        _lib.passcode_flow_messages(self._h(), byref(prompt), byref(error), byref(number))
        return Message(prompt.value), Message(error.value), number.value

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
