// When the app locks: at launch, after time in the background, or on request. Pure rules.

/// What the host reports about the app (`passcode_event`).
@c(passcode_event)
public enum AppEvent: Int32, Sendable {
    /// The app process started.
    case launched = 0
    /// The app went to the background.
    case background = 1
    /// The app came back to the foreground.
    case foreground = 2
    /// The user or the host asked to lock now.
    case lockNow = 3
}

/// Why the app is locked (`passcode_lock_state`'s reason).
@c(passcode_lock_reason)
public enum LockReason: Int32, Sendable {
    /// Not locked.
    case none = 0
    /// Locked at launch (the default whenever the lock is on).
    case launch = 1
    /// Locked on returning after at least the auto-lock timeout in the background.
    case background = 2
    /// Locked because the host or the user asked.
    case requested = 3
    /// Locked because the device restarted while the app was in the background.
    case restart = 4
}

/// A moment on the boot-time clock, tied to the boot it was read in.
public struct BootInstant: Equatable, Sendable {
    public var bootID: UInt64
    public var ms: Int64
    public init(bootID: UInt64, ms: Int64) { self.bootID = bootID; self.ms = ms }
}

public enum AutoLockPolicy {
    /// With the "immediately" timeout, quick app switches shorter than this do not lock.
    public static let gracePeriodMs: Int64 = 5000

    /// Whether returning to the foreground now locks, after going to the background at
    /// `since`. A reboot in between, or a clock reading before `since`, locks: time that
    /// cannot be measured is never taken as short.
    public static func lockOnReturn(timeoutSeconds: Int64, since: BootInstant, now: ClockReading) -> LockReason {
        if since.bootID != now.bootID { return .restart }
        if now.bootMs < since.ms { return .background }
        let threshold = timeoutSeconds == 0 ? gracePeriodMs : timeoutSeconds * 1000
        return now.bootMs - since.ms >= threshold ? .background : .none
    }
}

/// What the host reports about biometrics (`passcode_biometric_kind`).
@c(passcode_biometric_kind)
public enum BiometricKind: Int32, Sendable {
    /// No biometrics.
    case none = 0
    /// Face ID: "Passcode & Face ID".
    case faceID = 1
    /// Touch ID: "Passcode & Touch ID".
    case touchID = 2
    /// Another kind (fingerprint reader, iris): shown as "Biometric".
    case other = 3

    /// The name the seeds show: "Face ID", "Touch ID" or "Biometric".
    public var displayName: String {
        switch self {
        case .faceID: return "Face ID"
        case .touchID: return "Touch ID"
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

    /// `.none` when a biometric success may unlock now, else why the passcode is needed.
    public static func refusal(_ f: Facts, now: ClockReading) -> BiometricRefusal {
        if !f.passcodeSet { return .noPasscode }
        if !f.lockEnabled { return .lockDisabled }
        if !f.biometricAvailable { return .biometricUnavailable }
        if !f.biometricEnabled { return .biometricNotEnabled }
        if f.resetRequired { return .resetRequired }
        if f.lockedOut { return .lockedOut }
        if f.firstUnlockAfterLaunch { return .firstUnlockAfterLaunch }
        guard let last = f.lastPasscodeEntry, last.bootID == now.bootID, now.bootMs >= last.ms else {
            return .deviceRestarted
        }
        if now.bootMs - last.ms >= passcodeMaxAgeMs { return .passcodeNotUsedFor48Hours }
        if f.biometricFailures >= maxBiometricFailures { return .tooManyBiometricFailures }
        return .none
    }
}
