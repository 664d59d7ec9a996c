// Status codes and the one mapping from `PasscodeError` to them.
import PasscodeCore

/// The result of every libpasscode call that can fail. 0 is success; values are only ever
/// appended, never renumbered. `passcode_strerror` gives a short text for each, and
/// `passcode_errmsg` the detailed message of a handle's last failure.
// Each status is defined here once: its number and doc comment (the header's), its text in
// `text` below, and after `// python:` the Python exception class and its bases, from which
// scripts/gen_lists.py writes python/passcode/_errors.py (`make header`).
@c(passcode_status)
public enum Status: Int32 {
    /// Success.
    case ok = 0
    /// A NULL pointer or an argument out of range: a bug in the caller. Nothing changed.
    case errMisuse = 1  // python: InvalidArgument(PasscodeError, ValueError)
    /// The handle was closed, or never came from this library.
    case errInvalidHandle = 2  // python: InvalidHandle(PasscodeError)
    /// The passcode has the wrong number of digits or a character that is not 0-9. Not counted as an attempt.
    case errFormat = 3  // python: FormatError(PasscodeError, ValueError)
    /// The passcode is wrong. The attempt was counted.
    case errWrongPasscode = 4  // python: WrongPasscode(PasscodeError)
    /// The new passcode is too easy to guess; the message says why. Nothing changed.
    case errWeakPasscode = 5  // python: WeakPasscode(PasscodeError, ValueError)
    /// No passcode is set.
    case errNoPasscode = 6  // python: NoPasscode(PasscodeError)
    /// A passcode is already set; change or remove it instead.
    case errAlreadySet = 7  // python: AlreadySet(PasscodeError)
    /// Too many failed attempts: wait `passcode_lockout_remaining` seconds. The passcode was not checked.
    case errLockedOut = 8  // python: LockedOut(_Waits, PasscodeError)
    /// The maximum number of failures was reached: only a reset lets a passcode in again.
    case errResetRequired = 9  // python: ResetRequired(PasscodeError)
    /// The folder for the store does not exist.
    case errNotFound = 10  // python: NotFound(StoreError)
    /// The store path is a directory.
    case errIsDirectory = 11  // python: IsDirectory(StoreError)
    /// The store or its folder cannot be written.
    case errReadOnly = 12  // python: ReadOnly(StoreError)
    /// The file is not a libpasscode store.
    case errNotAStore = 13  // python: NotAStore(StoreError)
    /// The store was written by a newer libpasscode (a newer schema version).
    case errNewerSchema = 14  // python: NewerSchema(StoreError)
    /// The store file is damaged.
    case errCorrupt = 15  // python: Corrupt(StoreError)
    /// The disk is full. Nothing changed.
    case errFull = 16  // python: DiskFull(StoreError)
    /// Another process held the store longer than the busy timeout.
    case errBusy = 17  // python: Busy(StoreError)
    /// Reading or writing the store failed.
    case errIO = 18  // python: StoreIOError(StoreError)
    /// Out of memory.
    case errNoMem = 19  // python: OutOfMemory(PasscodeError, MemoryError)
    /// The operating system refused access.
    case errPermission = 20  // python: PermissionDenied(StoreError)
    /// A setting value that is not allowed, or a setting change the current state forbids.
    case errInvalidSetting = 21  // python: InvalidSetting(PasscodeError, ValueError)
    /// The call does not fit the store's state (e.g. changing the length while a passcode is set).
    case errState = 22  // python: InvalidState(PasscodeError)
    /// A host hook reported failure; the change was rolled back. `passcode_errmsg` has the hook's message.
    case errHookFailed = 23  // python: HookFailed(PasscodeError)
    /// Biometrics are not available on this device.
    case errBiometricUnavailable = 24  // python: BiometricUnavailable(PasscodeError)
    /// Ask for the passcode. Three uses: biometrics may not unlock now (the out value of
    /// `passcode_biometric_unlock` says why); a setting change weakens protection and the
    /// passcode was not entered on this handle within the last 5 minutes (`passcode_authorize`
    /// gives that proof); or `passcode_store_remove` was given no passcode for a store that has
    /// one. Nothing changed.
    case errPasscodeRequired = 25  // python: PasscodeRequired(_WithReason)
    /// The maximum number of failures removed the passcode; the logout callback was called.
    case errLoggedOut = 26  // python: LoggedOut(PasscodeError)
    /// The caller's buffer is too small.
    case errBufferTooSmall = 27  // python: BufferTooSmall(PasscodeError)
    /// An unexpected internal error.
    case errInternal = 28  // python: InternalError(PasscodeError)
    /// Too many reset-code requests; `passcode_errmsg` says when the next is allowed.
    case errRateLimited = 29  // python: RateLimited(_Waits, PasscodeError)
    /// No reset code is pending: never requested, already used, or discarded after 5 wrong tries.
    case errNoResetCode = 30  // python: NoResetCode(PasscodeError)
    /// The reset code is wrong; the message says how many tries are left.
    case errWrongResetCode = 31  // python: WrongResetCode(PasscodeError)
    /// The reset code has expired; request a new one.
    case errResetCodeExpired = 32  // python: ResetCodeExpired(PasscodeError)
    /// Not returned since 0.2: a replaced code is gone, and checking one is like checking any
    /// wrong code (the value stays reserved).
    case errResetCodeReplaced = 33  // python: ResetCodeReplaced(PasscodeError)
    /// The current account password is empty.
    case errPasswordEmpty = 34  // python: PasswordEmpty(PasswordError)
    /// The new account password has fewer than 8 characters (Unicode code points).
    case errPasswordTooShort = 35  // python: PasswordTooShort(PasswordError)
    /// The new account password has more than 256 characters.
    case errPasswordTooLong = 36  // python: PasswordTooLong(PasswordError)
    /// The confirmation differs from the new account password.
    case errPasswordMismatch = 37  // python: PasswordMismatch(PasswordError)
    /// No device session has that id.
    case errSessionNotFound = 38  // python: SessionNotFound(_PlainText, KeyError)
    /// This device's own session cannot be signed out from the session list.
    case errSessionIsCurrent = 39  // python: SessionIsCurrent(PasscodeError)
    /// The confirmation text is not exactly "DELETE"; nothing was touched.
    case errConfirmationMismatch = 40  // python: ConfirmationMismatch(PasscodeError, ValueError)
    /// The call needs a host callback that is not registered: `passcode_forgot` needs the
    /// logout callback and `passcode_delete_account` the account-deleted callback, so that the
    /// host really logs the user out. Nothing changed.
    case errCallbackRequired = 41  // python: CallbackRequired(PasscodeError)
    /// The store's security state (passcode, counters, lock state, settings, reset code) was
    /// changed outside libpasscode. Detected only with a pepper, which keys a MAC over that
    /// state. Like the maximum-failure state: every call but the reset by email, `passcode_forgot`
    /// and `passcode_delete_account` returns this until one of them completes.
    case errTampered = 42  // python: Tampered(PasscodeError)
    /// The data was deleted, but another connection still reads an old snapshot, so old bytes
    /// remain in the write-ahead log; they are removed when it ends (at the next open at the latest).
    case errWipePending = 43  // python: WipePending(PasscodeError)
    /// The store was set up with a pepper and this open gave none or another one, or it was set
    /// up without one and this open gave one. Nothing was changed.
    case errWrongPepper = 44  // python: WrongPepper(PasscodeError)
    /// The app is locked (`passcode_lock_state`): no setting changes until it is unlocked.
    /// Nothing changed, and the settings hook was not asked.
    case errAppLocked = 45  // python: AppLocked(PasscodeError)
    /// The data key is not released on this handle: unlock with the passcode (or a biometric
    /// unlock policy allows, after a passcode unlock in this process) first. Nothing changed.
    case errKeyNotReleased = 46  // python: KeyNotReleased(PasscodeError)
    /// The sealed data is not libpasscode's, too short, of an unknown format version, or was
    /// changed or damaged: nothing was decrypted.
    case errBadCiphertext = 47  // python: BadCiphertext(PasscodeError, ValueError)
    /// The sealed data was sealed with another data key: another store's, or this store's
    /// before a reset replaced its key. Nothing was decrypted.
    case errForeignCiphertext = 48  // python: ForeignCiphertext(PasscodeError, ValueError)
    /// Not a failure of the reset: the new passcode is set and the app unlocked. But without
    /// the recovery key the data key could not be kept: a new one replaces it, and data sealed
    /// before cannot be unsealed any more. Returned only when the old key was ever used by the
    /// host (`passcode_unlock_key`, `passcode_seal`, a flow's key, a recovery key).
    case errKeyReplaced = 49  // python: KeyReplaced(PasscodeError)
    /// The recovery key does not open the store's recovery copy (or none is set); nothing
    /// changed and the reset code was not used up.
    case errWrongRecoveryKey = 50  // python: WrongRecoveryKey(PasscodeError)
    /// The TPM cannot be used: tpm2-tss is not installed, or no TPM answers at the TCTI (the
    /// message says which). Nothing changed; a bound store does not open without it.
    case errTpmUnavailable = 51  // python: TPMUnavailable(TPMError)
    /// The store is bound to a TPM: open it with `passcode_options_set_tpm`.
    case errTpmRequired = 52  // python: TPMRequired(TPMError)
    /// The store is bound to another TPM, or to this one before it was cleared: no passcode can
    /// be checked. The reset by email (or forgot passcode) binds it to this TPM again.
    case errTpmMismatch = 53  // python: TPMMismatch(TPMError)
    /// The TPM's own dictionary-attack lockout is active (shared with the machine's other TPM
    /// users): wait up to `passcode_errwait` seconds (0: until the TPM's owner resets it).
    case errTpmLockout = 54  // python: TPMLockout(_Waits, TPMError)
    /// The file is older than the TPM's attempt counter (a restored copy): logged, and a reset
    /// is required, as after the maximum number of failures.
    case errTpmRollback = 55  // python: TPMRollback(TPMError)
    /// The TPM refused an operation for another reason; the message has its response code.
    case errTpm = 56  // python: TPMFailed(TPMError)
    /// The store's schema is not one libpasscode made: the file holds a trigger, a view, an
    /// index, a table or a column that no libpasscode version creates, or a changed definition
    /// (planted by whoever could write the file). Refused at open, or at the next call when it
    /// appears while the store is open, before anything is written; `passcode_errmsg` names an
    /// object. Such objects never run: triggers and views are off on every connection.
    case errForeignSchema = 57  // python: ForeignSchema(PasscodeError)
    /// `passcode_biometric_unlock_key` in a process without a session keyring of its own (its
    /// session keyring is the user session keyring, which any login session of the user can read):
    /// libpasscode keeps nothing in the kernel keyring there, so after a relaunch only the
    /// passcode releases the data key. The app stays locked; nothing changed.
    case errNoSessionKeyring = 58  // python: NoSessionKeyring(PasscodeRequired)
    /// The host's clock (`passcode_options_set_clock`) gave a reading outside the accepted range:
    /// the boot clock 0 to 2^61 - 1 ms, the wall clock -(2^61 - 1) to 2^61 - 1 ms. Nothing
    /// changed; the message names the clock and the value.
    case errClockOutOfRange = 59  // python: ClockOutOfRange(PasscodeError, ValueError)
    /// Provisioned TPM: the store's PIN_FAIL index has counted its limit of failed guesses
    /// (through the library or around it); the TPM refuses even the right passcode. A reset by
    /// email (or forgot passcode) gives the store a new index.
    case errTpmGuessLimit = 60  // python: TPMGuessLimit(TPMError)
    /// The TPM's owner authorization is needed (it is set, or the store is provisioned) and the
    /// administrator's file (`passcode_options_set_tpm_owner_auth_file`) is missing, readable by
    /// others than root, malformed, or holds another value. Nothing changed.
    case errTpmOwnerAuth = 61  // python: TPMOwnerAuth(TPMError)
    /// Service mode (`passcode_options_set_service`): the host asked for something that would
    /// let it choose the rules or see a secret, which the service decides alone: the clock, the
    /// Argon2id cost, a pepper, weak passcodes, the TPM options (at `passcode_open`), a
    /// biometric match the host reports, a reset code handed to the host. The message names the
    /// option or call. Nothing was sent to the service; nothing changed.
    case errRefusedInServiceMode = 62  // python: RefusedInServiceMode(ServiceError)
    /// Service mode: the service cannot be reached: libsystemd (libsystemd.so.0) is not
    /// installed, the system bus (or `DBUS_SYSTEM_BUS_ADDRESS`) does not answer, passcoded is
    /// not installed or not running, or its reply was not the one expected; the message says
    /// which. Whether a call that was sent took effect is not known: read the state again.
    case errServiceUnavailable = 63  // python: ServiceUnavailable(ServiceError)
    /// Service mode: this call is not offered by the service yet (the message names it). The
    /// embedded store offers it. Nothing was sent; nothing changed.
    case errNotInServiceMode = 64  // python: NotInServiceMode(ServiceError)
    /// The store was removed (`passcode_store_remove`, through this handle or another, in this
    /// process or another): the handle reaches nothing any more and never writes to the removed
    /// file. Close it; `passcode_open` on the same path (or app id) makes a new, empty store.
    case errStoreRemoved = 65  // python: StoreRemoved(StoreError)
    /// Service mode: passcoded cannot mail a reset code: no relay is configured in
    /// passcoded.conf, the relay cannot be reached or refused the message, or the store has no
    /// recipient (the message says which; it never holds the code). A request that reached the
    /// relay step counts against the day's requests. "Forgot passcode" stays available.
    case errResetDeliveryUnavailable = 66  // python: ResetDeliveryUnavailable(ServiceError)
    /// Service mode: passcoded asked fprintd for a finger and none was read within passcoded.conf's
    /// `fprint_timeout`. Still locked; nothing was counted. Offer the fingerprint again or the
    /// passcode pad.
    case errBiometricTimeout = 67  // python: BiometricTimeout(PasscodeError)
    /// Service mode: the fingerprint reader is in use by another program (fprintd answered
    /// AlreadyInUse). Still locked; nothing was counted. Try again later, or enter the passcode.
    case errBiometricReaderBusy = 68  // python: BiometricReaderBusy(PasscodeError)
    /// Service mode, from inside a sandbox (Flatpak): the store named is not the app's own. The
    /// service read the app's id from its sandbox; such an app may open that id and names under
    /// it (`org.example.App.work`), nothing else. The message names the verified id. Nothing was
    /// opened or counted.
    case errSandboxWrongApp = 69  // python: SandboxWrongApp(ServiceError)
    /// Service mode, from inside a sandbox: the store was first opened by another sandboxed app
    /// (an app whose id the name falls under) and is that app's. The message names both ids.
    /// Nothing was opened or counted.
    case errSandboxStoreOfAnotherApp = 70  // python: SandboxStoreOfAnotherApp(ServiceError)
    /// Service mode, from inside a sandbox: the service cannot verify which app the caller is:
    /// its sandbox's `/.flatpak-info` is malformed (no `[Application]` name, too large, binary, a
    /// symbolic link, an id Flatpak would refuse) or could not be read. The message says which.
    /// Nothing was opened or counted; the connection stays refused.
    case errSandboxUnverified = 71  // python: SandboxUnverified(ServiceError)
}

extension PasscodeError {
    /// The one place where errors become status codes.
    var status: Status {
        switch self {
        case .misuse: return .errMisuse
        case .format: return .errFormat
        case .wrongPasscode: return .errWrongPasscode
        case .weakPasscode: return .errWeakPasscode
        case .noPasscode: return .errNoPasscode
        case .alreadySet: return .errAlreadySet
        case .lockedOut: return .errLockedOut
        case .resetRequired: return .errResetRequired
        case .notFound: return .errNotFound
        case .isDirectory: return .errIsDirectory
        case .readOnly: return .errReadOnly
        case .notAStore: return .errNotAStore
        case .newerSchema: return .errNewerSchema
        case .corrupt: return .errCorrupt
        case .full: return .errFull
        case .busy: return .errBusy
        case .io: return .errIO
        case .outOfMemory: return .errNoMem
        case .permission: return .errPermission
        case .invalidSetting: return .errInvalidSetting
        case .state: return .errState
        case .hookFailed: return .errHookFailed
        case .biometricUnavailable: return .errBiometricUnavailable
        case .passcodeRequired: return .errPasscodeRequired
        case .loggedOut: return .errLoggedOut
        case .bufferTooSmall: return .errBufferTooSmall
        case .internalError: return .errInternal
        case .rateLimited: return .errRateLimited
        case .noResetCode: return .errNoResetCode
        case .wrongResetCode: return .errWrongResetCode
        case .resetCodeExpired: return .errResetCodeExpired
        case .passwordEmpty: return .errPasswordEmpty
        case .passwordTooShort: return .errPasswordTooShort
        case .passwordTooLong: return .errPasswordTooLong
        case .passwordMismatch: return .errPasswordMismatch
        case .sessionNotFound: return .errSessionNotFound
        case .sessionIsCurrent: return .errSessionIsCurrent
        case .confirmationMismatch: return .errConfirmationMismatch
        case .callbackRequired: return .errCallbackRequired
        case .tampered: return .errTampered
        case .wipePending: return .errWipePending
        case .wrongPepper: return .errWrongPepper
        case .proofRequired: return .errPasscodeRequired
        case .appLocked: return .errAppLocked
        case .keyNotReleased: return .errKeyNotReleased
        case .badCiphertext: return .errBadCiphertext
        case .foreignCiphertext: return .errForeignCiphertext
        case .keyReplaced: return .errKeyReplaced
        case .wrongRecoveryKey: return .errWrongRecoveryKey
        case .tpmUnavailable: return .errTpmUnavailable
        case .tpmRequired: return .errTpmRequired
        case .tpmMismatch: return .errTpmMismatch
        case .tpmLockout: return .errTpmLockout
        case .tpmRollback: return .errTpmRollback
        case .tpmFailed: return .errTpm
        case .foreignSchema: return .errForeignSchema
        case .noSessionKeyring: return .errNoSessionKeyring
        case .clockOutOfRange: return .errClockOutOfRange
        case .tpmGuessLimit: return .errTpmGuessLimit
        case .tpmOwnerAuth: return .errTpmOwnerAuth
        case .refusedInServiceMode: return .errRefusedInServiceMode
        case .serviceUnavailable: return .errServiceUnavailable
        case .notInServiceMode: return .errNotInServiceMode
        case .storeRemoved: return .errStoreRemoved
        case .resetDeliveryUnavailable: return .errResetDeliveryUnavailable
        case .biometricTimeout: return .errBiometricTimeout
        case .biometricReaderBusy: return .errBiometricReaderBusy
        case .passcodeNeeded: return .errPasscodeRequired
        case .service(let status, _, _): return Status(rawValue: status) ?? .errInternal
        }
    }
}

extension Status {
    var text: String {
        switch self {
        case .ok: return "success"
        case .errMisuse: return "invalid argument"
        case .errInvalidHandle: return "invalid or closed handle"
        case .errFormat: return "passcode has the wrong length or a non-digit"
        case .errWrongPasscode: return "incorrect passcode"
        case .errWeakPasscode: return "passcode too easy to guess"
        case .errNoPasscode: return "no passcode is set"
        case .errAlreadySet: return "a passcode is already set"
        case .errLockedOut: return "locked out after failed attempts"
        case .errResetRequired: return "passcode reset required"
        case .errNotFound: return "store folder not found"
        case .errIsDirectory: return "store path is a directory"
        case .errReadOnly: return "store is read-only"
        case .errNotAStore: return "file is not a libpasscode store"
        case .errNewerSchema: return "store made by a newer libpasscode"
        case .errCorrupt: return "store is corrupt"
        case .errFull: return "disk full"
        case .errBusy: return "store busy"
        case .errIO: return "input/output error"
        case .errNoMem: return "out of memory"
        case .errPermission: return "permission denied"
        case .errInvalidSetting: return "invalid setting value"
        case .errState: return "not allowed in the current state"
        case .errHookFailed: return "host hook failed"
        case .errBiometricUnavailable: return "biometrics unavailable"
        case .errPasscodeRequired: return "passcode required"
        case .errLoggedOut: return "logged out after too many failures"
        case .errBufferTooSmall: return "buffer too small"
        case .errInternal: return "internal error"
        case .errRateLimited: return "too many reset-code requests"
        case .errNoResetCode: return "no reset code pending"
        case .errWrongResetCode: return "incorrect reset code"
        case .errResetCodeExpired: return "reset code expired"
        case .errResetCodeReplaced: return "reset code replaced by a newer one"
        case .errPasswordEmpty: return "current password is empty"
        case .errPasswordTooShort: return "new password too short"
        case .errPasswordTooLong: return "new password too long"
        case .errPasswordMismatch: return "password confirmation does not match"
        case .errSessionNotFound: return "no such session"
        case .errSessionIsCurrent: return "cannot sign out this device's session"
        case .errConfirmationMismatch: return "confirmation text is not DELETE"
        case .errCallbackRequired: return "a required host callback is not registered"
        case .errTampered: return "store changed outside libpasscode"
        case .errWipePending: return "deleted; old bytes remain until another connection ends"
        case .errWrongPepper: return "the pepper does not fit this store"
        case .errAppLocked: return "the app is locked"
        case .errKeyNotReleased: return "the data key is not released"
        case .errBadCiphertext: return "sealed data damaged or not libpasscode's"
        case .errForeignCiphertext: return "sealed with another data key"
        case .errKeyReplaced: return "reset done; the data key was replaced"
        case .errWrongRecoveryKey: return "wrong recovery key"
        case .errTpmUnavailable: return "TPM unavailable"
        case .errTpmRequired: return "store is bound to a TPM"
        case .errTpmMismatch: return "store is bound to another TPM"
        case .errTpmLockout: return "TPM lockout active"
        case .errTpmRollback: return "store file older than the TPM's counter"
        case .errTpm: return "TPM error"
        case .errForeignSchema: return "store schema not made by libpasscode"
        case .errNoSessionKeyring: return "no session keyring of its own: the passcode is needed"
        case .errClockOutOfRange: return "clock reading out of range"
        case .errTpmGuessLimit: return "the TPM's guess limit is used up"
        case .errTpmOwnerAuth: return "TPM owner authorization missing or wrong"
        case .errRefusedInServiceMode: return "refused in service mode: the service decides this"
        case .errServiceUnavailable: return "the passcode service cannot be reached"
        case .errNotInServiceMode: return "not offered by the passcode service yet"
        case .errStoreRemoved: return "the store was removed"
        case .errResetDeliveryUnavailable: return "the reset code cannot be mailed"
        case .errBiometricTimeout: return "no finger was read in time"
        case .errBiometricReaderBusy: return "the fingerprint reader is in use by another program"
        case .errSandboxWrongApp: return "the store is not the sandboxed app's own"
        case .errSandboxStoreOfAnotherApp: return "the store belongs to another sandboxed app"
        case .errSandboxUnverified: return "the sandboxed app's id cannot be verified"
        }
    }
}

// MARK: - Errors

/// A short English text for a status code.
/// - Parameters:
///   - status: Any value (an int32_t, so that a status kept in an int passes in C++ too);
///     unknown ones give "unknown status".
/// - Returns: A static string owned by the library; never free it.
@c(passcode_strerror)  // man: passcode-errors
public func passcode_strerror(_ status: Int32) -> UnsafePointer<CChar>? {
    CStrings.intern(Status(rawValue: status)?.text ?? "unknown status")
}
