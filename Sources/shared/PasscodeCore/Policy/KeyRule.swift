// When a handle's data key goes: stated once, here. The embedded store applies it to the key its
// handle holds (PasscodeStore+DataKey.swift); in service mode the client applies the same rule
// to the key it holds in the host's process, on the service's answers.

/// What a handle does with the data key it holds.
public enum KeyRule {
    /// What happens to a held key.
    public enum Effect: Sendable, Equatable {
        /// It stays released.
        case keep
        /// Held, but released again only by a biometric unlock the policy allows (or the passcode).
        case suspend
        /// Wiped: only the passcode brings it back.
        case drop
    }

    /// After an app event that left the app `locked`: "lock now" wipes the key (a biometric
    /// match may still unlock, through the session keyring's entry, as on iOS); any other lock
    /// keeps it only for a biometric unlock.
    public static func after(_ event: AppEvent, locked: Bool) -> Effect {
        guard locked else { return .keep }
        return event == .lockNow ? .drop : .suspend
    }

    /// After `failures` failed biometric matches since the last unlock: from the 5th, the
    /// passcode is needed, and the key goes.
    public static func dropsAfterBiometricFailures(_ failures: Int64) -> Bool {
        failures >= BiometricPolicy.maxBiometricFailures
    }

    /// After a passcode entry refused with `error`: the maximum failures (a reset required, the
    /// user logged out), the TPM's refusals of the passcode, or no passcode any more.
    public static func drops(after error: PasscodeError) -> Bool {
        switch error {
        case .resetRequired, .loggedOut, .noPasscode, .tpmRollback, .tpmGuessLimit: return true
        default: return false
        }
    }
}
