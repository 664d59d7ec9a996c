"""The account: password-change checks, device sessions, the security event log, deletion."""
from ctypes import byref, c_char_p, c_int32, c_int64
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from . import _ffi
from ._args import _bytes, _call_with_secrets, _int, _text
from ._enums import Message, SecurityEvent
from ._handle import _StoreBase
from .messages import message_text

_lib = _ffi.lib


@dataclass(frozen=True)
class LoggedEvent:
    """One entry of the security event log (passcode_event_log_get)."""
    kind: SecurityEvent
    wall_ms: int
    detail: str
    #: The entry in words, as codes (passcode_event_log_message): the event's name, or a setting
    #: change's words, or Message.DEFAULTS_RESTORED followed by each change it lists; each with
    #: its number. passcode.message_text() gives each in the program's language.
    words: Tuple[Tuple[Message, int], ...] = ()

    @property
    def text(self) -> str:
        """`words` in the program's language: the first, then the changes it lists after it."""
        parts = [message_text(m, n) for m, n in self.words]
        if len(parts) > 1:
            return parts[0] + " " + ", ".join(parts[1:])
        return parts[0] if parts else self.detail


@dataclass(frozen=True)
class Session:
    """A device session the host recorded (passcode_session_record)."""
    id: str
    device_name: str
    platform: str
    last_active_ms: int
    location: Optional[str]
    is_current: bool



def _text_of(p: c_char_p) -> str:
    return (p.value or b"").decode()


def _session(sessions: Any, i: int) -> Session:
    """Row i of a passcode_session_list."""
    sid, name, plat, loc = c_char_p(), c_char_p(), c_char_p(), c_char_p()
    active, current = c_int64(), c_int32()
    _lib.passcode_session_list_get(sessions, i, byref(sid), byref(name), byref(plat), byref(active), byref(loc), byref(current))
    return Session(_text_of(sid), _text_of(name), _text_of(plat), active.value,
                   _text_of(loc) if loc.value is not None else None, bool(current.value))


def read_event_log(log: Any) -> List[LoggedEvent]:
    """Every entry of a passcode_event_log snapshot, which it frees."""
    try:
        out = []
        for i in range(_lib.passcode_event_log_count(log)):
            kind, wall, detail = c_int32(), c_int64(), c_char_p()
            _lib.passcode_event_log_get(log, i, byref(kind), byref(wall), byref(detail))
            words = []
            for part in range(64):
                code, number = c_int32(), c_int64()
                _lib.passcode_event_log_message(log, i, part, byref(code), byref(number))
                if code.value == Message.NONE:
                    break
                words.append((Message(code.value), number.value))
            out.append(LoggedEvent(SecurityEvent(kind.value), wall.value, _text_of(detail), tuple(words)))
        return out
    finally:
        _lib.passcode_event_log_free(log)


class _Account(_StoreBase):
    """Store: the account, its sessions and its event log."""

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
        sessions = _ffi.SESSION_LIST()
        _lib.passcode_session_list_new(self._h(), byref(sessions))
        try:
            return [_session(sessions, i) for i in range(_lib.passcode_session_list_count(sessions))]
        finally:
            _lib.passcode_session_list_free(sessions)

    def events(self) -> List[LoggedEvent]:
        """The security event log, newest first (passcode_event_log_new)."""
        log = _ffi.EVENT_LOG()
        _lib.passcode_event_log_new(self._h(), byref(log))
        return read_event_log(log)

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
