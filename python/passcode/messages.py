"""The messages a person may see: each has a stable code (Message), the same in every language;
message_text() gives its text in the program's language, through the library's catalogue. The
library never sets the locale: call locale.setlocale(locale.LC_ALL, "") at the start of a
program that shows them (GTK does it for a GTK program)."""
from ctypes import byref, c_int32
from typing import Union

from . import _ffi
from ._enums import BiometricKind, BiometricRefusal, Message, MessageTopic, SecurityEvent

_lib = _ffi.lib


def message_text(message: Union[Message, int], number: int = 0) -> str:
    """The text of `message` in the program's language, `number` in place of its %d and choosing
    its plural form ("1 minute", "5 minutes"); "" for Message.NONE (passcode_message_text)."""
    out = _lib.passcode_message_text(int(message), int(number))
    return (out or b"").decode()


def message_of(value: Union[BiometricRefusal, BiometricKind, SecurityEvent]) -> Message:
    """The Message for a biometric refusal (in words), a biometric kind (the security settings'
    label) or a security log kind (the entry's name) (passcode_message_of)."""
    if isinstance(value, BiometricRefusal):
        topic = MessageTopic.BIOMETRIC_REFUSAL
    elif isinstance(value, BiometricKind):
        topic = MessageTopic.SECURITY_LABEL
    elif isinstance(value, SecurityEvent):
        topic = MessageTopic.LOG_KIND
    else:
        raise TypeError(f"message_of takes a BiometricRefusal, BiometricKind or SecurityEvent, not {type(value).__name__}")
    out = c_int32()
    _lib.passcode_message_of(int(topic), int(value), byref(out))
    return Message(out.value)
