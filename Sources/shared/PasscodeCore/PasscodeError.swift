// Every way a libpasscode call can fail, as one typed error. The C layer maps each case to a
// status code in exactly one place (Sources/libpasscode/Passcode/Status.swift).


public enum PasscodeError: Error, Equatable, Sendable {
    /// A NULL pointer or an argument out of range: a bug in the caller.
    case misuse(String)
    /// The passcode has the wrong length or a character that is not a digit.
    case format(String)
    case wrongPasscode
    case weakPasscode(String)
    case noPasscode
    case alreadySet
    /// Failed attempts locked the passcode out for this many more seconds.
    case lockedOut(seconds: Int64)
    /// The maximum number of failures was reached; only a reset lets a passcode in again.
    case resetRequired
    case notFound(String)
    case isDirectory(String)
    case readOnly(String)
    case notAStore(String)
    case newerSchema(found: Int, supported: Int)
    case corrupt(String)
    case full(String)
    case busy(String)
    case io(String)
    case outOfMemory(String)
    case permission(String)
    case invalidSetting(String)
    /// The call does not fit the store's current state (e.g. changing the length while set).
    case state(String)
    /// A host hook reported failure; the change was rolled back. Carries the hook's message.
    case hookFailed(String)
    case biometricUnavailable
    /// Biometrics may not unlock now; the passcode is needed.
    case passcodeRequired(BiometricRefusal)
    /// The maximum number of failures removed the passcode and logged the user out.
    case loggedOut
    case bufferTooSmall(needed: Int)
    /// Reset-code requests are rate-limited; the next is allowed after this many seconds.
    case rateLimited(seconds: Int64)
    /// No reset code is pending (never requested, used, or discarded after 5 wrong tries).
    case noResetCode
    /// The reset code is wrong. `triesLeft` more before it is discarded.
    case wrongResetCode(triesLeft: Int)
    case resetCodeExpired
    case passwordEmpty
    case passwordTooShort(minimum: Int)
    case passwordTooLong(maximum: Int)
    case passwordMismatch
    case sessionNotFound
    case sessionIsCurrent
    case confirmationMismatch
    case internalError(String)
    /// The call needs a host callback that is not registered; nothing changed.
    case callbackRequired(String)
    /// The security state in the file was changed outside libpasscode (seen with a pepper).
    case tampered
    /// The data is deleted, but another connection kept old bytes in the write-ahead log.
    case wipePending
    /// The open gave no pepper, or another one, than the store was set up with.
    case wrongPepper(String)
    /// A change that weakens protection needs the passcode entered on this handle within 5 minutes.
    case proofRequired(String)
    /// The app is locked: no setting changes until it is unlocked.
    case appLocked
    /// The data key is not released on this handle.
    case keyNotReleased
    /// Sealed data that is not libpasscode's, too short, or changed.
    case badCiphertext(String)
    /// Sealed with another data key.
    case foreignCiphertext
    /// A reset completed with a new data key (the old one could not be kept).
    case keyReplaced
    /// The recovery key does not open the recovery copy.
    case wrongRecoveryKey(String)
    /// The host asked for the TPM (or the store is bound to one) and none can be used.
    case tpmUnavailable(String)
    /// The store is bound to a TPM and was opened without `passcode_options_set_tpm`.
    case tpmRequired
    /// The store is bound to another TPM, or to this one before it was cleared.
    case tpmMismatch(String)
    /// The TPM's own dictionary-attack lockout: no guess can be checked for up to this many seconds.
    case tpmLockout(seconds: Int64)
    /// The file is older than the TPM's attempt counter: a restored copy. A reset is required.
    case tpmRollback
    /// The TPM refused an operation for another reason (its response code in the message).
    case tpmFailed(String)
    /// The file's schema (sqlite_master) is not one libpasscode made: a trigger, view, index,
    /// table or column that no version creates, or a changed definition. Refused before any write.
    case foreignSchema(String)
    /// This process has no session keyring of its own (its session keyring is the user's,
    /// which every login session of the user reads): the key for a biometric unlock after a
    /// relaunch is never kept there, so only the passcode releases the data key.
    case noSessionKeyring
    /// The host's clock gave a reading outside the range libpasscode accepts (`ClockReading.bootRange`,
    /// `ClockReading.wallRange`); nothing was done. The message names the clock and the value.
    case clockOutOfRange(String)
    /// Provisioned: the store's PIN_FAIL index counted its limit of failed guesses, wherever they
    /// came from; the TPM refuses even the right passcode until a reset.
    case tpmGuessLimit
    /// The owner authorization is needed and missing, unsafe, malformed or not the TPM's.
    case tpmOwnerAuth(String)
    /// Service mode: an option or call that would let the host choose the rules or see a secret.
    case refusedInServiceMode(String)
    /// Service mode: libsystemd, the bus or the service cannot be reached.
    case serviceUnavailable(String)
    /// Service mode: the service does not offer this call yet.
    case notInServiceMode(String)
    /// Service mode: passcoded cannot mail a reset code (no relay, none reachable, no recipient).
    case resetDeliveryUnavailable(String)
    /// Service mode: no finger was read on the reader within passcoded's bound; nothing was counted.
    case biometricTimeout(String)
    /// Service mode: the fingerprint reader is claimed by another program; nothing was counted.
    case biometricReaderBusy(String)
    /// The store was removed (`removeStore`, here or through another handle or process): this
    /// handle reaches nothing any more; opening the path again makes a new, empty store.
    case storeRemoved
    /// Removing a store that has a passcode needs that passcode; none was given. Nothing changed.
    case passcodeNeeded(String)
    /// Service mode: a failure passcoded answered, carried as it came: the status (a raw value of
    /// the C layer's `Status`), the message and the wait the embedded store would have given.
    case service(status: Int32, message: String, waitSeconds: Int64)

    /// The seconds to wait that the error carries: until the next attempt (a lockout) or the
    /// next reset-code request (the rate limit); 0 for the others.
    public var waitSeconds: Int64 {
        switch self {
        case .lockedOut(let s), .rateLimited(let s), .tpmLockout(let s): return s
        case .service(_, _, let s): return s
        default: return 0
        }
    }

    /// A message for people: never contains a passcode or a code.
    public var message: String {
        switch self {
        case .misuse(let m): return m
        case .format(let m): return m
        case .wrongPasscode: return "incorrect passcode"
        case .weakPasscode(let m): return "passcode too easy to guess: \(m)"
        case .noPasscode: return "no passcode is set"
        case .alreadySet: return "a passcode is already set; change or remove it instead"
        case .lockedOut(let s): return "too many failed attempts; try again in \(s) seconds"
        case .resetRequired: return "too many failed attempts; the passcode must be reset"
        case .notFound(let m), .isDirectory(let m), .readOnly(let m), .notAStore(let m),
             .corrupt(let m), .full(let m), .busy(let m), .io(let m), .outOfMemory(let m),
             .permission(let m), .invalidSetting(let m), .state(let m), .internalError(let m):
            return m
        case .newerSchema(let found, let supported):
            return "the store has schema version \(found); this libpasscode supports up to \(supported)"
        case .hookFailed(let m): return m.isEmpty ? "the host's hook reported failure" : m
        case .biometricUnavailable: return "biometrics are not available on this device"
        case .passcodeRequired(let r): return "the passcode is required: \(r.description)"
        case .loggedOut: return "too many failed attempts; the passcode was removed and the user logged out"
        case .bufferTooSmall(let n): return "the buffer is too small; \(n) bytes are needed"
        case .rateLimited(let s): return "too many reset-code requests; the next is allowed in \(s) seconds"
        case .noResetCode: return "no reset code is pending; request a new one"
        case .wrongResetCode(let left):
            return left > 0 ? "incorrect reset code; \(left) more tries before it is discarded" : "incorrect reset code; it was discarded, request a new one"
        case .resetCodeExpired: return "the reset code has expired; request a new one"
        case .passwordEmpty: return "enter your current password"
        case .passwordTooShort(let n): return "the new password must have at least \(n) characters"
        case .passwordTooLong(let n): return "the new password may have at most \(n) characters"
        case .passwordMismatch: return "the confirmation does not match the new password"
        case .sessionNotFound: return "no such session"
        case .sessionIsCurrent: return "this device's own session cannot be signed out here; log out instead"
        case .confirmationMismatch: return "type DELETE, in capitals, to confirm"
        case .callbackRequired(let m), .wrongPepper(let m): return m
        case .proofRequired(let what):
            return "changing \(what) weakens protection: enter the passcode first (passcode_authorize), then change it within 5 minutes"
        case .appLocked: return "the app is locked: unlock it before changing a setting"
        case .keyNotReleased: return "the data key is not released: unlock with the passcode first"
        case .badCiphertext(let m), .wrongRecoveryKey(let m): return m
        case .tpmUnavailable(let m), .tpmMismatch(let m), .tpmFailed(let m), .clockOutOfRange(let m), .tpmOwnerAuth(let m): return m
        case .noSessionKeyring:
            return "this process has no session keyring of its own, so the data key is not kept across launches: enter the passcode"
        case .tpmGuessLimit:
            return "the TPM's guess limit for this store is used up (the failed guesses may have come from outside the app): the passcode must be reset"
        case .tpmRequired: return "the store is bound to a TPM: open it with passcode_options_set_tpm"
        case .tpmLockout(let s):
            return s > 0 ? "the TPM's dictionary-attack lockout is active; no passcode can be checked for up to \(s) seconds"
                         : "the TPM's dictionary-attack lockout is active until its owner resets it"
        case .tpmRollback:
            return "the store file is older than the TPM's attempt counter (a restored copy): the passcode must be reset"
        case .foreignCiphertext: return "the data was sealed with another data key (another store's, or this one's before a reset replaced it)"
        case .keyReplaced:
            return "the passcode was reset, but without the recovery key the data key could not be kept: data sealed before cannot be unsealed any more"
        case .foreignSchema(let m): return m
        case .refusedInServiceMode(let m), .serviceUnavailable(let m), .notInServiceMode(let m): return m
        case .storeRemoved:
            return "the store was removed (passcode_store_remove): this handle reaches nothing any more; close it, and open the store again for a new, empty one"
        case .passcodeNeeded(let m), .resetDeliveryUnavailable(let m): return m
        case .biometricTimeout(let m), .biometricReaderBusy(let m): return m
        case .service(_, let m, _): return m
        case .tampered:
            return "the store's security state was changed outside libpasscode; only a reset by email, forgot passcode or deleting the account can go on"
        case .wipePending:
            return "the data is deleted, but another connection still holds old bytes in the store's log; they are removed when it closes or at the next open"
        }
    }
}
