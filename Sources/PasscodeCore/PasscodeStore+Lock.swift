// The app's lock state, shared by every process through the store.

/// The lock state a host draws (`passcode_lock_state`).
public struct LockStatus: Equatable, Sendable {
    public var locked: Bool
    public var reason: LockReason
}

extension PasscodeStore {
    /// Records an app event and returns the lock state after it (`passcode_event_report`).
    /// While the lock is disabled or no passcode is set, nothing locks.
    @discardableResult
    public func report(_ event: AppEvent) throws -> LockStatus {
        let now = now()
        return try write {
            let enabled = try lockEnabledLocked()
            switch event {
            case .launched:
                try putState(StateKey.backgroundMs, -1)
                try putState(StateKey.launchNeedsPasscode, enabled ? 1 : 0)
                if try enabled && setting(SettingKey.lockAtLaunch, default: 1) != 0 {
                    try setLockedLocked(.launch)
                }
            case .background:
                try putState(StateKey.backgroundBootID, Int64(bitPattern: now.bootID))
                try putState(StateKey.backgroundMs, now.bootMs)
            case .foreground:
                let since = try state(StateKey.backgroundMs, default: -1)
                try putState(StateKey.backgroundMs, -1)
                if enabled && since >= 0 {
                    let instant = BootInstant(bootID: UInt64(bitPattern: try state(StateKey.backgroundBootID)), ms: since)
                    let timeout = try setting(SettingKey.autoLockSeconds, default: 900)
                    let reason = AutoLockPolicy.lockOnReturn(timeoutSeconds: timeout, since: instant, now: now)
                    if reason != .none { try setLockedLocked(reason) }
                }
            case .lockNow:
                if enabled { try setLockedLocked(.requested) }
            }
            return try lockStatusLocked()
        }
    }

    /// Whether the app is locked now, and why (`passcode_lock_state`).
    public func lockStatus() throws -> LockStatus {
        try read { try lockStatusLocked() }
    }

    func lockStatusLocked() throws -> LockStatus {
        guard try lockEnabledLocked(), try state(StateKey.locked) != 0 else {
            return LockStatus(locked: false, reason: .none)
        }
        return LockStatus(locked: true, reason: LockReason(rawValue: Int32(truncatingIfNeeded: try state(StateKey.lockReason))) ?? .requested)
    }

    private func setLockedLocked(_ reason: LockReason) throws {
        // An earlier reason stays: locked at launch is still "launch" after a background trip.
        if try state(StateKey.locked) == 0 {
            try putState(StateKey.locked, 1)
            try putState(StateKey.lockReason, Int64(reason.rawValue))
        }
    }

    // MARK: - Biometrics

    /// The host says whether biometrics are available and of which kind
    /// (`passcode_biometric_set_available`). Unavailable biometrics switch biometric unlock off.
    public func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws {
        try write {
            try putState(StateKey.biometricAvailable, available ? 1 : 0)
            try putState(StateKey.biometricKind, Int64(kind.rawValue))
            if !available {
                try putSetting(SettingKey.biometricEnabled, .int(0))
                try putSetting(SettingKey.requireBiometricOnLaunch, .int(0))
            }
        }
    }

    /// The kind of biometrics the host reported.
    public func biometricKind() throws -> BiometricKind {
        try read { BiometricKind(rawValue: Int32(truncatingIfNeeded: try state(StateKey.biometricKind))) ?? .none }
    }

    /// The settings label the seeds show: "Passcode & Face ID", "Passcode & Touch ID",
    /// "Passcode & Biometric".
    public func securityLabel() throws -> String {
        "Passcode & " + (try biometricKind()).displayName
    }

    /// Whether biometrics may unlock now, and why not (`passcode_biometric_check`).
    public func biometricRefusal() throws -> BiometricRefusal {
        let now = now()
        return try read { try biometricRefusalLocked(now: now) }
    }

    private func biometricRefusalLocked(now: ClockReading) throws -> BiometricRefusal {
        let lastMs = try state(StateKey.lastPasscodeMs, default: -1)
        let facts = BiometricPolicy.Facts(
            passcodeSet: try db.scalar("SELECT count(*) FROM passcode")?.int ?? 0 > 0,
            lockEnabled: try lockEnabledLocked(),
            biometricEnabled: try setting(SettingKey.biometricEnabled, default: 0) != 0,
            biometricAvailable: try state(StateKey.biometricAvailable) != 0,
            resetRequired: try state(StateKey.resetRequired) != 0,
            lockedOut: try lockoutRemainingMsLocked(now: now, persist: false) > 0,
            firstUnlockAfterLaunch: try state(StateKey.launchNeedsPasscode) != 0,
            lastPasscodeEntry: lastMs < 0 ? nil : BootInstant(bootID: UInt64(bitPattern: try state(StateKey.lastPasscodeBootID)), ms: lastMs),
            biometricFailures: try state(StateKey.biometricFailures))
        return BiometricPolicy.refusal(facts, now: now)
    }

    /// The host reports a successful biometric match (`passcode_biometric_unlock`). Unlocks when
    /// policy allows; otherwise throws `passcodeRequired` with the reason, and stays locked.
    public func biometricUnlock() throws {
        let now = now()
        let refusal: BiometricRefusal = try write {
            let r = try biometricRefusalLocked(now: now)
            if r == .none {
                try putState(StateKey.locked, 0)
                try putState(StateKey.lockReason, 0)
                try putState(StateKey.biometricFailures, 0)
            }
            return r
        }
        if refusal != .none { throw PasscodeError.passcodeRequired(refusal) }
    }

    /// The host reports a failed biometric match (`passcode_biometric_failed`); returns how
    /// many failed since the last unlock. After 5 the passcode is needed.
    @discardableResult
    public func biometricFailed() throws -> Int64 {
        try write {
            let n = try state(StateKey.biometricFailures) + 1
            try putState(StateKey.biometricFailures, n)
            return n
        }
    }
}
