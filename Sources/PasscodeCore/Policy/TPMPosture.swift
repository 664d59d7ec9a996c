// What a TPM-bound store can promise, said plainly (README "Binding a store to the TPM",
// `passcode_tpm_posture`). Pure: the TPM's settings and the store's binding in, the promises out.
//
// Binding always means no offline search off this machine: every guess needs this TPM to unseal.
// A hardware guess limit is more: it holds only against a process that can reach the TPM when
// nobody but the library can reset the count, that is when the store's passcode check goes through
// a PIN_FAIL NV index (whose count no DA lockout reset touches) and the owner authorization is set
// (else anyone who reaches the TPM can rewrite that index, or undefine it and define it again with
// the same name). The TPM's DA lockout alone is no limit while the lockout authorization is empty:
// `tpm2_dictionarylockout -c` clears it, and even with one set it forgets a failure every
// recoveryTime seconds.

/// What `passcode_tpm_posture` reports, one value per call.
@c(passcode_tpm_posture_item)
public enum TPMPostureItem: Int32, Sendable, CaseIterable {
    /// 1 when the TPM's owner (storage) hierarchy has an authorization (TPM2_PT_PERMANENT
    /// ownerAuthSet), else 0: then anyone who reaches the TPM may define, rewrite and remove NV
    /// indexes of the owner hierarchy.
    case ownerAuthSet = 0
    /// 1 when the TPM's lockout hierarchy has an authorization (lockoutAuthSet), else 0: then
    /// anyone who reaches the TPM may clear its dictionary-attack lockout (`tpm2_dictionarylockout -c`).
    case lockoutAuthSet = 1
    /// The failed authorizations after which the TPM locks out (TPM2_PT_MAX_AUTH_FAIL, maxTries).
    case maxTries = 2
    /// Seconds after which the TPM forgets one failure (TPM2_PT_LOCKOUT_INTERVAL, recoveryTime).
    case recoveryTime = 3
    /// Seconds the lockout hierarchy waits after a failed lockout authorization
    /// (TPM2_PT_LOCKOUT_RECOVERY, lockoutRecovery).
    case lockoutRecovery = 4
    /// The failures the TPM's dictionary-attack lockout counts now (TPM2_PT_LOCKOUT_COUNTER).
    case lockoutCounter = 5
    /// 1 when the store is bound to this TPM: no guess of its passcode can be checked off this
    /// machine, not even with a copy of the file (the promise every binding makes), else 0. Also 0
    /// when the file names a PIN_FAIL index that the sealed object's policy does not name (the
    /// file was changed, or the TPM is another or was cleared): then the binding holds nothing
    /// the library can check.
    case noOfflineSearch = 6
    /// 1 when the TPM itself limits the guesses, against any process that reaches it and clears
    /// its DA lockout without the owner authorization: the store's passcode check goes through a
    /// PIN_FAIL index (provisioned mode) and the owner authorization is set. 0 otherwise: the library's counters and the
    /// TPM's DA lockout then bind only callers that go through the library.
    case hardwareGuessLimit = 7
    /// The failures the store's PIN_FAIL index allows before it refuses even the right passcode
    /// (its pinLimit, the policy's guess limit); 0 when the store has no such index. Only the
    /// index the sealed object's policy names counts: the file names one, and a name the TPM's
    /// copy of the object does not agree with gives 0 (checked by loading the object).
    case guessLimit = 8
}

/// A TPM's settings and a store's binding to it, and what the binding therefore promises.
public struct TPMPosture: Sendable, Equatable {
    public var ownerAuthSet = false
    public var lockoutAuthSet = false
    public var maxTries: UInt32 = 0
    public var recoveryTime: UInt32 = 0
    public var lockoutRecovery: UInt32 = 0
    public var lockoutCounter: UInt32 = 0
    /// The store is bound to this TPM.
    public var bound = false
    /// The pinLimit of the store's PIN_FAIL index; 0 when its check goes through none.
    public var guessLimit: UInt32 = 0

    public init() {}

    /// Every binding: no offline search off this machine.
    public var noOfflineSearch: Bool { bound }
    /// Only provisioned: a PIN_FAIL index under an owner authorization nobody else has.
    public var hardwareGuessLimit: Bool { bound && guessLimit > 0 && ownerAuthSet }

    public func value(_ item: TPMPostureItem) -> Int64 {
        switch item {
        case .ownerAuthSet: return ownerAuthSet ? 1 : 0
        case .lockoutAuthSet: return lockoutAuthSet ? 1 : 0
        case .maxTries: return Int64(maxTries)
        case .recoveryTime: return Int64(recoveryTime)
        case .lockoutRecovery: return Int64(lockoutRecovery)
        case .lockoutCounter: return Int64(lockoutCounter)
        case .noOfflineSearch: return noOfflineSearch ? 1 : 0
        case .hardwareGuessLimit: return hardwareGuessLimit ? 1 : 0
        case .guessLimit: return Int64(guessLimit)
        }
    }
}
