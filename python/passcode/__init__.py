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

The package is split by concept: store.py (Store: open, close, the passcode), settings.py,
lock.py (app lock, biometrics, the lock screen), reset.py, keys.py (the data key), account.py,
callbacks.py (hooks), tpm.py, user.py (a user's store named by uid, through passcoded),
flow.py (entry flows), messages.py (every message a person may see: its code, its text in the
program's language) and aio.py (the asyncio twins, made from
the blocking calls); _ffi.py declares the C functions. Import everything from `passcode`.
"""
from ._enums import (BiometricKind, BiometricRefusal, Cost, Event, FlowKind, FlowResult, FlowStep,
                     LifecycleEvent, LockReason, LoginState, LogoutReason, MaxFailureAction, Message, MessageTopic, Notice,
                     Schedule, SecurityEvent, Setting, Status)
from ._errors import *  # noqa: F401,F403  (the exception classes are part of the API)
from . import _errors
from ._errors import PasscodeError
from ._version import __version__
from .account import LoggedEvent, Session
from .flow import Flow
from .keys import KEY_BYTES, SEAL_OVERHEAD, wipe
from .messages import message_of, message_text
from .lock import LockScreen
from .settings import setting_bounds, setting_choices, setting_default, setting_weakens
from .store import Store, strerror, version
from .user import UserLockout, UserState

__all__ = ["__version__", "Store", "Flow", "Session", "PasscodeError", "version", "setting_bounds", "setting_choices",
           "setting_default", "setting_weakens", "Status", "Cost", "Setting",
           "Event", "LockReason", "BiometricKind", "BiometricRefusal", "FlowKind", "FlowStep",
           "FlowResult", "LifecycleEvent", "LoginState", "MaxFailureAction", "Notice", "LogoutReason", "Schedule", "SecurityEvent",
           "LoggedEvent", "LockScreen", "UserState", "UserLockout", "wipe", "strerror", "KEY_BYTES", "SEAL_OVERHEAD",
           "Message", "MessageTopic", "message_text", "message_of"]
__all__ += sorted(name for name, value in vars(_errors).items()  # WrongPasscode, LockedOut, ...
                  if not name.startswith("_") and isinstance(value, type) and issubclass(value, PasscodeError)
                  and name not in __all__)

# The public classes show as passcode.X (repr, help, pickling), wherever they are defined.
for _cls in (Store, Flow, LockScreen, LoggedEvent, Session, UserState, UserLockout):
    _cls.__module__ = __name__
del _cls
