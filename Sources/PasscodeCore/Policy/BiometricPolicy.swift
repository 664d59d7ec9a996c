// When a biometric match may unlock: the refusals and the pure rule that picks one.

/// Why biometrics may not unlock now (`passcode_biometric_unlock`'s out value).
@c(passcode_biometric_refusal)
public enum BiometricRefusal: Int32, Sendable {
    /// Biometrics may unlock now.
    case none = 0
    /// The first unlock after the app launched needs the passcode.
    case firstUnlockAfterLaunch = 1
    /// The passcode was last entered 48 hours ago or more.
    case passcodeNotUsedFor48Hours = 2
    /// 5 biometric matches failed since the last unlock.
    case tooManyBiometricFailures = 3
    /// A lockout after failed passcode attempts is in progress.
    case lockedOut = 4
    /// The passcode lock is disabled: there is nothing to unlock.
    case lockDisabled = 5
    /// Biometric unlock is switched off in the settings.
    case biometricNotEnabled = 6
    /// The host reported no biometrics.
    case biometricUnavailable = 7
    /// No passcode is set.
    case noPasscode = 8
    /// The maximum number of failures requires a reset.
    case resetRequired = 9
    /// The device restarted since the passcode was last entered.
    case deviceRestarted = 10
    /// `passcode_biometric_unlock_key` only: this process does not hold the data key (a new
    /// launch, another handle, or "lock now" wiped it), so only the passcode can release it.
    case keyNotInMemory = 11
}

extension BiometricRefusal: CustomStringConvertible {
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

/// What the host reports about biometrics (`passcode_biometric_kind`).
@c(passcode_biometric_kind)
public enum BiometricKind: Int32, Sendable, CaseIterable {
    /// No biometrics.
    case none = 0
    /// Face ID: "Passcode & Face ID".
    case faceID = 1
    /// Touch ID: "Passcode & Touch ID".
    case touchID = 2
    /// Another kind (iris, voice): shown as "Biometric".
    case other = 3
    /// A fingerprint reader (on Linux: fprintd): "Passcode & Fingerprint".
    case fingerprint = 4

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
