// Every security setting in one place: read, validated, changed through the host's hook.

/// The settings a host can read and change (`passcode_setting`).
@c(passcode_setting)
public enum Setting: Int32, Sendable, CaseIterable {
    /// 1 while a passcode is set and the lock is on. Set 1 to enable; turning it off needs
    /// the passcode (`passcode_disable`).
    case lockEnabled = 0
    /// Seconds in the background before the app locks: 0 (immediately, with a 5-second grace
    /// period), 60, 300, 900 (default), 1800 or 3600.
    case autoLockSeconds = 1
    /// 1 (default): the app is locked at every launch while the lock is on.
    case lockAtLaunch = 2
    /// 0 Apple (default), 1 Android 16, 2 custom (set with `passcode_set_custom_schedule`).
    case lockoutSchedule = 3
    /// A `MaxFailureAction`.
    case maxFailureAction = 4
    /// 1: biometrics may unlock (needs a passcode and available biometrics).
    case biometricEnabled = 5
    /// 1: ask for biometrics when the app launches (needs biometric unlock on).
    case requireBiometricOnLaunch = 6
    /// 1: the account uses two-factor authentication (the host's backend enforces it).
    case twoFactorEnabled = 7
    /// Read only: wall-clock milliseconds of the last account password change, 0 if never.
    case lastPasswordChange = 8
    /// Digits of the passcode (4-12; changeable only while none is set).
    case passcodeLength = 9
    /// Digits of an emailed reset code: 6 to 10 (default 8).
    case resetCodeLength = 10
    /// Seconds a reset code stays valid: 60 to 86400 (default 900, 15 minutes).
    case resetCodeLifetimeSeconds = 11
    /// Seconds between two reset-code requests: 0 to 86400 (default 60).
    case resetRequestIntervalSeconds = 12
    /// Reset-code requests allowed in 24 hours: 1 to 100 (default 5).
    case resetRequestsPerDay = 13

    var key: String {
        switch self {
        case .lockEnabled: return SettingKey.lockEnabled
        case .autoLockSeconds: return SettingKey.autoLockSeconds
        case .lockAtLaunch: return SettingKey.lockAtLaunch
        case .lockoutSchedule: return SettingKey.schedule
        case .maxFailureAction: return SettingKey.maxFailureAction
        case .biometricEnabled: return SettingKey.biometricEnabled
        case .requireBiometricOnLaunch: return SettingKey.requireBiometricOnLaunch
        case .twoFactorEnabled: return SettingKey.twoFactorEnabled
        case .lastPasswordChange: return SettingKey.lastPasswordChangeMs
        case .passcodeLength: return SettingKey.length
        case .resetCodeLength: return SettingKey.resetCodeLength
        case .resetCodeLifetimeSeconds: return SettingKey.resetCodeLifetime
        case .resetRequestIntervalSeconds: return SettingKey.resetRequestInterval
        case .resetRequestsPerDay: return SettingKey.resetRequestsPerDay
        }
    }

    var defaultValue: Int64 {
        switch self {
        case .lockEnabled, .lockAtLaunch: return 1
        case .autoLockSeconds: return 900
        case .passcodeLength: return Int64(PasscodePolicy.defaultLength)
        case .resetCodeLength: return 8
        case .resetCodeLifetimeSeconds: return 900
        case .resetRequestIntervalSeconds: return 60
        case .resetRequestsPerDay: return 5
        default: return 0
        }
    }

    /// The auto-lock choices the seeds offer, in seconds.
    public static let autoLockChoices: [Int64] = [0, 60, 300, 900, 1800, 3600]
}

extension PasscodeStore {
    /// The current value of `setting` (`passcode_setting_get`).
    public func get(_ setting: Setting) throws -> Int64 {
        switch setting {
        case .lockEnabled, .passcodeLength: return try read { try getLocked(setting) }
        default: return try readOne { try getLocked(setting) }  // one SELECT
        }
    }

    func getLocked(_ setting: Setting) throws -> Int64 {
        switch setting {
        case .lockEnabled: return try lockEnabledLocked() ? 1 : 0
        case .passcodeLength: return Int64(try lengthLocked())
        default: return try self.setting(setting.key, default: setting.defaultValue)
        }
    }

    /// Changes `setting` (`passcode_setting_set`). Invalid values throw `invalidSetting` and
    /// change nothing; a host hook that fails throws `hookFailed` with its message and the old
    /// value stays.
    public func set(_ setting: Setting, to value: Int64) throws {
        switch setting {
        case .lockEnabled:
            if value == 1 { return try enable() }
            throw PasscodeError.invalidSetting("turning the lock off needs the passcode: use passcode_disable")
        case .passcodeLength:
            // Everything that can refuse the change is checked before the host's hook is asked.
            guard value >= Int64(PasscodePolicy.minLength) && value <= Int64(PasscodePolicy.maxLength) else {
                throw PasscodeError.invalidSetting("the passcode length must be from \(PasscodePolicy.minLength) to \(PasscodePolicy.maxLength)")
            }
            if try isPasscodeSet() { throw PasscodeError.state("the length is fixed while a passcode is set") }
            try callSettingHook(setting.key, old: try get(.passcodeLength), new: value)
            return try setPasscodeLength(Int(value))
        case .lastPasswordChange:
            throw PasscodeError.invalidSetting("the last password change time is read only; it is set by passcode_password_change_check")
        default:
            try validate(setting, value)
            try changeSetting(setting.key, to: .int(value), check: { try self.validateInState(setting, value) })
        }
    }

    private func validate(_ setting: Setting, _ value: Int64) throws {
        let ok: Bool
        switch setting {
        case .autoLockSeconds: ok = Setting.autoLockChoices.contains(value)
        case .lockAtLaunch, .biometricEnabled, .requireBiometricOnLaunch, .twoFactorEnabled: ok = value == 0 || value == 1
        case .lockoutSchedule: ok = value == 0 || value == 1 || value == 2
        case .maxFailureAction: ok = MaxFailureAction(rawValue: Int32(truncatingIfNeeded: value)) != nil && value <= Int64(Int32.max)
        case .resetCodeLength: ok = (6...10).contains(value)
        case .resetCodeLifetimeSeconds: ok = (60...86400).contains(value)
        case .resetRequestIntervalSeconds: ok = (0...86400).contains(value)
        case .resetRequestsPerDay: ok = (1...100).contains(value)
        default: ok = true
        }
        guard ok else { throw PasscodeError.invalidSetting("\(value) is not a valid value for \(setting.key)") }
    }

    /// Rules that depend on the rest of the store, checked inside the writing transaction.
    private func validateInState(_ setting: Setting, _ value: Int64) throws {
        switch setting {
        case .biometricEnabled where value == 1:
            if try db.scalar("SELECT count(*) FROM passcode")?.int ?? 0 == 0 {
                throw PasscodeError.invalidSetting("biometric unlock needs a passcode to be set")
            }
            if try state(StateKey.biometricAvailable) == 0 {
                throw PasscodeError.biometricUnavailable
            }
        case .requireBiometricOnLaunch where value == 1:
            if try self.setting(SettingKey.biometricEnabled, default: 0) == 0 {
                throw PasscodeError.invalidSetting("requiring biometrics at launch needs biometric unlock to be on")
            }
        case .lockoutSchedule where value == 2:
            if try settingText(SettingKey.customSchedule) == nil {
                throw PasscodeError.invalidSetting("set a custom schedule with passcode_set_custom_schedule first")
            }
        default: break
        }
    }

    /// Writes one setting after the host's hook agreed. The hook is called with no lock held,
    /// so it may take its time (a network call) and may call back into the library.
    func changeSetting(_ key: String, to value: SQLValue, check: () throws -> Void = {}) throws {
        let old: Int64 = try read { try setting(key, default: Setting.allCases.first { $0.key == key }?.defaultValue ?? 0) }
        if case .int(let v) = value, v == old { return }
        // Validate before asking the host, so the hook never sees a change that cannot happen.
        try read { try check() }
        if case .int(let v) = value { try callSettingHook(key, old: old, new: v) }
        try write {
            try check()
            try putSetting(key, value)
            if key == SettingKey.biometricEnabled, value == .int(0) {
                try putSetting(SettingKey.requireBiometricOnLaunch, .int(0))
            }
        }
    }

    private func callSettingHook(_ key: String, old: Int64, new: Int64) throws {
        if let hook = hooks.settingChange, let failure = hook(key, String(old), String(new)) {
            throw PasscodeError.hookFailed(failure)
        }
    }

    /// Installs a custom lockout table and selects it (`passcode_set_custom_schedule`).
    public func setCustomSchedule(delays: [Int64], maxFailures: Int) throws {
        guard !delays.isEmpty, delays.count <= 100, delays.allSatisfy({ $0 >= 0 && $0 <= 366 * 86400 }) else {
            throw PasscodeError.invalidSetting("a custom schedule needs 1 to 100 delays, each 0 to 366 days in seconds")
        }
        guard maxFailures >= 0 && maxFailures <= 10_000 else {
            throw PasscodeError.invalidSetting("the maximum number of failures must be 0 (never) to 10000")
        }
        let text = delays.map(String.init).joined(separator: ",") + ";" + String(maxFailures)
        try callSettingHook(SettingKey.customSchedule, old: try get(.lockoutSchedule), new: 2)
        try write {
            try putSetting(SettingKey.customSchedule, .text(text))
            try putSetting(SettingKey.schedule, .int(2))
        }
    }

    func scheduleLocked() throws -> LockoutSchedule {
        switch try setting(SettingKey.schedule, default: 0) {
        case 1: return .android
        case 2:
            if let text = try settingText(SettingKey.customSchedule) {
                let parts = text.split(separator: ";", omittingEmptySubsequences: false)
                let delays = parts[0].split(separator: ",").compactMap { Int64($0) }
                let maxFailures = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                return .custom(delays: delays, maxFailures: maxFailures)
            }
            return .apple
        default: return .apple
        }
    }

    func maxFailureActionLocked() throws -> MaxFailureAction {
        MaxFailureAction(rawValue: Int32(truncatingIfNeeded: try setting(SettingKey.maxFailureAction, default: 0))) ?? .requireReset
    }
}
