// What a TPM-bound store can promise, said plainly (passcode-tpm(7), "What a binding promises:
// the posture"; `passcode_tpm_posture`). Pure: the TPM's settings and the store's binding in, the
// promises out.
//
// Binding always means no offline search off this machine: every guess needs this TPM to unseal.
// A hardware guess limit is more: it holds only against a process that can reach the TPM when
// nobody but the library can reset the count, that is when the store's passcode check goes through
// a PIN_FAIL NV index (whose count no DA lockout reset touches) and the owner authorization is set
// (else anyone who reaches the TPM can rewrite that index, or undefine it and define it again with
// the same name). The TPM's DA lockout alone is no limit while the lockout authorization is empty:
// `tpm2_dictionarylockout -c` clears it, and even with one set it forgets a failure every
// recoveryTime seconds.

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
