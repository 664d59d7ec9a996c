// The status mapping, for passcoded: its replies carry the same statuses the C API returns.
import PasscodeCore

extension PasscodeError {
    /// The status a `passcode_*` call returns for this error (the one mapping, in Status.swift).
    public var passcodeStatus: Status { status }
}

extension Status {
    /// The status's name without its `err` prefix ("WrongPasscode"), as in the D-Bus error
    /// names of passcoded (`org.libpasscode.Error.WrongPasscode`).
    /// A switch without `default`: a new status that forgets its name does not compile (the
    /// enum carries no reflection names: `String(describing:)` gives "Status(rawValue: 5)").
    public var serviceName: String {
        switch self {
        case .ok: return "Ok"
        case .errMisuse: return "Misuse"
        case .errInvalidHandle: return "InvalidHandle"
        case .errFormat: return "Format"
        case .errWrongPasscode: return "WrongPasscode"
        case .errWeakPasscode: return "WeakPasscode"
        case .errNoPasscode: return "NoPasscode"
        case .errAlreadySet: return "AlreadySet"
        case .errLockedOut: return "LockedOut"
        case .errResetRequired: return "ResetRequired"
        case .errNotFound: return "NotFound"
        case .errIsDirectory: return "IsDirectory"
        case .errReadOnly: return "ReadOnly"
        case .errNotAStore: return "NotAStore"
        case .errNewerSchema: return "NewerSchema"
        case .errCorrupt: return "Corrupt"
        case .errFull: return "Full"
        case .errBusy: return "Busy"
        case .errIO: return "IO"
        case .errNoMem: return "NoMem"
        case .errPermission: return "Permission"
        case .errInvalidSetting: return "InvalidSetting"
        case .errState: return "State"
        case .errHookFailed: return "HookFailed"
        case .errBiometricUnavailable: return "BiometricUnavailable"
        case .errPasscodeRequired: return "PasscodeRequired"
        case .errLoggedOut: return "LoggedOut"
        case .errBufferTooSmall: return "BufferTooSmall"
        case .errInternal: return "Internal"
        case .errRateLimited: return "RateLimited"
        case .errNoResetCode: return "NoResetCode"
        case .errWrongResetCode: return "WrongResetCode"
        case .errResetCodeExpired: return "ResetCodeExpired"
        case .errResetCodeReplaced: return "ResetCodeReplaced"
        case .errPasswordEmpty: return "PasswordEmpty"
        case .errPasswordTooShort: return "PasswordTooShort"
        case .errPasswordTooLong: return "PasswordTooLong"
        case .errPasswordMismatch: return "PasswordMismatch"
        case .errSessionNotFound: return "SessionNotFound"
        case .errSessionIsCurrent: return "SessionIsCurrent"
        case .errConfirmationMismatch: return "ConfirmationMismatch"
        case .errCallbackRequired: return "CallbackRequired"
        case .errTampered: return "Tampered"
        case .errWipePending: return "WipePending"
        case .errWrongPepper: return "WrongPepper"
        case .errAppLocked: return "AppLocked"
        case .errKeyNotReleased: return "KeyNotReleased"
        case .errBadCiphertext: return "BadCiphertext"
        case .errForeignCiphertext: return "ForeignCiphertext"
        case .errKeyReplaced: return "KeyReplaced"
        case .errWrongRecoveryKey: return "WrongRecoveryKey"
        case .errTpmUnavailable: return "TpmUnavailable"
        case .errTpmRequired: return "TpmRequired"
        case .errTpmMismatch: return "TpmMismatch"
        case .errTpmLockout: return "TpmLockout"
        case .errTpmRollback: return "TpmRollback"
        case .errTpm: return "Tpm"
        case .errForeignSchema: return "ForeignSchema"
        case .errNoSessionKeyring: return "NoSessionKeyring"
        case .errClockOutOfRange: return "ClockOutOfRange"
        case .errTpmGuessLimit: return "TpmGuessLimit"
        case .errTpmOwnerAuth: return "TpmOwnerAuth"
        case .errRefusedInServiceMode: return "RefusedInServiceMode"
        case .errServiceUnavailable: return "ServiceUnavailable"
        case .errNotInServiceMode: return "NotInServiceMode"
        case .errStoreRemoved: return "StoreRemoved"
        }
    }

    /// The short English text of `passcode_strerror`.
    public var serviceText: String { text }
}
