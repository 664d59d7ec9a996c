// When a biometric match may unlock: the refusals and the pure rule that picks one.

extension BiometricRefusal: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .none: return "biometrics may unlock"
        case .firstUnlockAfterLaunch: return "the first unlock after launch needs the passcode"
        case .passcodeNotUsedFor48Hours: return "the passcode has not been entered for 48 hours"
        case .tooManyBiometricFailures: return "5 biometric matches failed since the last unlock"
        case .lockedOut: return "a lockout is in progress"
        case .lockDisabled: return "the passcode lock is disabled"
        case .biometricNotEnabled: return "biometric unlock is not turned on"
        case .biometricUnavailable: return "biometrics are not available"
        case .noPasscode: return "no passcode is set"
        case .resetRequired: return "the passcode must be reset"
        case .deviceRestarted: return "the device restarted since the passcode was last entered"
        case .keyNotInMemory: return "the data key is not in this process's memory (a new launch, or lock now): enter the passcode"
        }
    }
}

extension BiometricKind {
    /// The settings label: "Passcode & Face ID", "Passcode & Touch ID", "Passcode & Fingerprint", "Passcode & Biometric".
    public var securityLabel: String { "Passcode & " + displayName }

    /// The name to show: "Face ID", "Touch ID", "Fingerprint" or "Biometric".
    public var displayName: String {
        switch self {
        case .faceID: return "Face ID"
        case .touchID: return "Touch ID"
        case .fingerprint: return "Fingerprint"
        case .none, .other: return "Biometric"
        }
    }
}

public enum BiometricPolicy {
    /// The passcode is needed after this long without it (Apple: 48 hours).
    public static let passcodeMaxAgeMs: Int64 = 48 * 3600 * 1000
    /// The passcode is needed after this many failed matches since the last unlock.
    public static let maxBiometricFailures: Int64 = 5

    /// The facts the decision rests on.
    public struct Facts: Sendable {
        public var passcodeSet: Bool
        public var lockEnabled: Bool
        public var biometricEnabled: Bool
        public var biometricAvailable: Bool
        public var resetRequired: Bool
        public var lockedOut: Bool
        public var firstUnlockAfterLaunch: Bool
        public var lastPasscodeEntry: BootInstant?
        public var biometricFailures: Int64
        public init(passcodeSet: Bool, lockEnabled: Bool, biometricEnabled: Bool, biometricAvailable: Bool,
                    resetRequired: Bool, lockedOut: Bool, firstUnlockAfterLaunch: Bool,
                    lastPasscodeEntry: BootInstant?, biometricFailures: Int64) {
            self.passcodeSet = passcodeSet
            self.lockEnabled = lockEnabled
            self.biometricEnabled = biometricEnabled
            self.biometricAvailable = biometricAvailable
            self.resetRequired = resetRequired
            self.lockedOut = lockedOut
            self.firstUnlockAfterLaunch = firstUnlockAfterLaunch
            self.lastPasscodeEntry = lastPasscodeEntry
            self.biometricFailures = biometricFailures
        }
    }

    /// The refusal the stored facts decide alone, before any that depends on the time (the
    /// lockout, the launch, the restart, the 48 hours); nil when the time decides. `lockedOut`
    /// is not read.
    public static func settledRefusal(_ f: Facts) -> BiometricRefusal? {
        if !f.passcodeSet { return .noPasscode }
        if !f.lockEnabled { return .lockDisabled }
        if !f.biometricAvailable { return .biometricUnavailable }
        if !f.biometricEnabled { return .biometricNotEnabled }
        if f.resetRequired { return .resetRequired }
        return nil
    }

    /// `.none` when a biometric success may unlock now, else why the passcode is needed.
    public static func refusal(_ f: Facts, now: ClockReading) -> BiometricRefusal {
        if let settled = settledRefusal(f) { return settled }
        if f.lockedOut { return .lockedOut }
        if f.firstUnlockAfterLaunch { return .firstUnlockAfterLaunch }
        guard let last = f.lastPasscodeEntry, let age = last.elapsedMs(now: now) else { return .deviceRestarted }
        // By both clocks (the longer): a boot clock set back in a time namespace does not make
        // an old passcode entry young.
        if age >= passcodeMaxAgeMs { return .passcodeNotUsedFor48Hours }
        if f.biometricFailures >= maxBiometricFailures { return .tooManyBiometricFailures }
        return .none
    }
}
