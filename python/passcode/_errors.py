"""Exceptions: one class per status, all under PasscodeError. Messages come from the library
and never contain a passcode or a code."""
from typing import Any, Dict, Optional, Type

from ._enums import Status


class PasscodeError(Exception):
    """A libpasscode call failed. `status` is the Status, `message` the library's text."""

    status = Status.ERR_INTERNAL

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = Status(status)

    def __str__(self) -> str:
        return f"{self.message} [{self.status.name}]"


class _Waits(PasscodeError):
    """A failure that carries how long to wait: `seconds_remaining`."""

    def __init__(self, message: str, status: Optional[int] = None, seconds_remaining: int = 0):
        super().__init__(message, status)
        self.seconds_remaining = seconds_remaining


class InvalidArgument(PasscodeError, ValueError):
    status = Status.ERR_MISUSE


class InvalidHandle(PasscodeError):
    status = Status.ERR_INVALID_HANDLE


class FormatError(PasscodeError, ValueError):
    status = Status.ERR_FORMAT


class WrongPasscode(PasscodeError):
    status = Status.ERR_WRONG_PASSCODE


class WeakPasscode(PasscodeError, ValueError):
    status = Status.ERR_WEAK_PASSCODE


class NoPasscode(PasscodeError):
    status = Status.ERR_NO_PASSCODE


class AlreadySet(PasscodeError):
    status = Status.ERR_ALREADY_SET


class LockedOut(_Waits, PasscodeError):
    """Failed attempts locked the passcode out; `seconds_remaining` says for how long."""
    status = Status.ERR_LOCKED_OUT


class ResetRequired(PasscodeError):
    status = Status.ERR_RESET_REQUIRED


class StoreError(PasscodeError, OSError):
    """The store file could not be opened, read or written."""


class NotFound(StoreError):
    status = Status.ERR_NOT_FOUND


class IsDirectory(StoreError):
    status = Status.ERR_IS_DIRECTORY


class ReadOnly(StoreError):
    status = Status.ERR_READ_ONLY


class NotAStore(StoreError):
    status = Status.ERR_NOT_A_STORE


class NewerSchema(StoreError):
    status = Status.ERR_NEWER_SCHEMA


class Corrupt(StoreError):
    status = Status.ERR_CORRUPT


class DiskFull(StoreError):
    status = Status.ERR_FULL


class Busy(StoreError):
    status = Status.ERR_BUSY


class StoreIOError(StoreError):
    status = Status.ERR_IO


class PermissionDenied(StoreError):
    status = Status.ERR_PERMISSION


class InvalidSetting(PasscodeError, ValueError):
    status = Status.ERR_INVALID_SETTING


class InvalidState(PasscodeError):
    status = Status.ERR_STATE


class HookFailed(PasscodeError):
    """A host hook refused; the change was rolled back. The message is the hook's."""
    status = Status.ERR_HOOK_FAILED


class BiometricUnavailable(PasscodeError):
    status = Status.ERR_BIOMETRIC_UNAVAILABLE


class PasscodeRequired(PasscodeError):
    """Biometrics may not unlock now; `reason` is a BiometricRefusal."""
    status = Status.ERR_PASSCODE_REQUIRED

    def __init__(self, message: str, status: Optional[int] = None, reason: Optional[int] = None):
        super().__init__(message, status)
        self.reason = reason


class LoggedOut(PasscodeError):
    status = Status.ERR_LOGGED_OUT


class RateLimited(_Waits, PasscodeError):
    """Too many reset-code requests; `seconds_remaining` says when the next is allowed."""
    status = Status.ERR_RATE_LIMITED


class NoResetCode(PasscodeError):
    status = Status.ERR_NO_RESET_CODE


class WrongResetCode(PasscodeError):
    status = Status.ERR_WRONG_RESET_CODE


class ResetCodeExpired(PasscodeError):
    status = Status.ERR_RESET_CODE_EXPIRED


class ResetCodeReplaced(PasscodeError):
    status = Status.ERR_RESET_CODE_REPLACED


class PasswordError(PasscodeError, ValueError):
    """A change-password check failed."""


class PasswordEmpty(PasswordError):
    status = Status.ERR_PASSWORD_EMPTY


class PasswordTooShort(PasswordError):
    status = Status.ERR_PASSWORD_TOO_SHORT


class PasswordTooLong(PasswordError):
    status = Status.ERR_PASSWORD_TOO_LONG


class PasswordMismatch(PasswordError):
    status = Status.ERR_PASSWORD_MISMATCH


class SessionNotFound(PasscodeError, KeyError):
    status = Status.ERR_SESSION_NOT_FOUND

    def __str__(self) -> str:
        return PasscodeError.__str__(self)


class SessionIsCurrent(PasscodeError):
    status = Status.ERR_SESSION_IS_CURRENT


class ConfirmationMismatch(PasscodeError, ValueError):
    status = Status.ERR_CONFIRMATION_MISMATCH


class CallbackRequired(PasscodeError):
    """forgot() needs on_logout, delete_account() needs on_account_deleted; nothing changed."""
    status = Status.ERR_CALLBACK_REQUIRED


class Tampered(PasscodeError):
    """The store's security state was changed outside libpasscode (seen with a pepper): only the
    reset by email, forgot() or delete_account() go on."""
    status = Status.ERR_TAMPERED


class WipePending(PasscodeError):
    """Deleted, but another connection keeps old bytes in the store's log for now."""
    status = Status.ERR_WIPE_PENDING


class WrongPepper(PasscodeError):
    """The pepper given (or its absence) is not the one the store was set up with."""
    status = Status.ERR_WRONG_PEPPER


class AppLocked(PasscodeError):
    """The app is locked: no setting changes until it is unlocked."""
    status = Status.ERR_APP_LOCKED


class KeyNotReleased(PasscodeError):
    """The data key is not released on this store object: unlock with the passcode first."""
    status = Status.ERR_KEY_NOT_RELEASED


class BadCiphertext(PasscodeError, ValueError):
    """The sealed data is not libpasscode's, too short, or was changed; nothing was decrypted."""
    status = Status.ERR_BAD_CIPHERTEXT


class ForeignCiphertext(PasscodeError, ValueError):
    """The data was sealed with another data key (another store's, or this one's before a reset)."""
    status = Status.ERR_FOREIGN_CIPHERTEXT


class KeyReplaced(PasscodeError):
    """Raised by complete_reset *after* the reset completed: without the recovery key the data
    key could not be kept, so data sealed before cannot be unsealed any more."""
    status = Status.ERR_KEY_REPLACED


class WrongRecoveryKey(PasscodeError):
    """The recovery key does not open the store's recovery copy (or none is set); nothing changed."""
    status = Status.ERR_WRONG_RECOVERY_KEY


class TPMError(PasscodeError):
    """A problem with the TPM a store is bound to (or was asked to use)."""


class TPMUnavailable(TPMError):
    """tpm2-tss is not installed, or no TPM answers at the TCTI; nothing changed."""
    status = Status.ERR_TPM_UNAVAILABLE


class TPMRequired(TPMError):
    """The store is bound to a TPM: open it with Store(path, tpm=...)."""
    status = Status.ERR_TPM_REQUIRED


class TPMMismatch(TPMError):
    """The store is bound to another TPM, or to this one before it was cleared; a reset by
    email binds it to this TPM again."""
    status = Status.ERR_TPM_MISMATCH


class TPMLockout(_Waits, TPMError):
    """The TPM's own dictionary-attack lockout; `seconds_remaining` is an upper bound on the
    wait (0: until the TPM's owner resets it). Nothing was counted."""
    status = Status.ERR_TPM_LOCKOUT


class TPMRollback(TPMError):
    """The store file is older than the TPM's attempt counter (a restored copy): logged, and a
    reset is required."""
    status = Status.ERR_TPM_ROLLBACK


class TPMFailed(TPMError):
    """The TPM refused an operation for another reason (its response code in the message)."""
    status = Status.ERR_TPM


class ForeignSchema(PasscodeError):
    """The store's schema is not one libpasscode made (a trigger, view, index, table or column
    no version creates): refused before anything was written."""
    status = Status.ERR_FOREIGN_SCHEMA
class NoSessionKeyring(PasscodeRequired):
    """biometric_unlock_key in a process without a session keyring of its own: nothing is kept in
    the user's session keyring (@us), so after a relaunch only the passcode releases the data key. The
    app stays locked."""
    status = Status.ERR_NO_SESSION_KEYRING


class ClockOutOfRange(PasscodeError, ValueError):
    """The host's clock gave a reading outside the accepted range (boot 0 to 2**61 - 1 ms, wall
    -(2**61 - 1) to 2**61 - 1 ms); nothing changed. The message names the clock and the value."""
    status = Status.ERR_CLOCK_OUT_OF_RANGE


class TPMGuessLimit(TPMError):
    """Provisioned TPM: the store's PIN_FAIL index counted its limit of failed guesses (through
    the library or around it); the TPM refuses even the right passcode until a reset."""
    status = Status.ERR_TPM_GUESS_LIMIT


class TPMOwnerAuth(TPMError):
    """The TPM's owner authorization is needed and the administrator's file is missing, readable
    by others, malformed or holds another value (Store(..., tpm_owner_auth_file=...)); nothing changed."""
    status = Status.ERR_TPM_OWNER_AUTH


_BY_STATUS: Dict[Status, Type[PasscodeError]] = {}
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, PasscodeError) and "status" in _cls.__dict__:
        _BY_STATUS[_cls.status] = _cls


def error_for(status: int, message: str, **extra: Any) -> PasscodeError:
    """The exception for a non-zero status."""
    try:
        st = Status(status)
    except ValueError:
        return PasscodeError(message or f"unknown status {status}", Status.ERR_INTERNAL)
    cls = _BY_STATUS.get(st, PasscodeError)
    return cls(message, st, **extra)
