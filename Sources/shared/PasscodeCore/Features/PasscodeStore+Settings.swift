// Every security setting, defined once: its stored name, default, allowed values, which
// changes weaken protection, and what it needs from the rest of the store. `Setting.spec` has
// no `default:` branch, so a new setting that forgets a part does not compile.

/// Which changes of a setting weaken protection.
public enum Weakening: Sendable, Equatable {
    /// No change weakens (or the setting cannot be changed directly).
    case never
    /// A larger value weakens (a longer auto-lock, more requests a day).
    case whenRaised
    /// A smaller value weakens (lock at launch off, a shorter reset code).
    case whenLowered
    /// Any change weakens (the lockout schedule).
    case onAnyChange
    /// Changing to this value weakens (the "nothing more" maximum-failure action).
    case whenSetTo(Int64)

    public func weakens(from old: Int64, to new: Int64) -> Bool {
        switch self {
        case .never: return false
        case .whenRaised: return new > old
        case .whenLowered: return new < old
        case .onAnyChange: return new != old
        case .whenSetTo(let v): return new == v && old != v
        }
    }
}

/// How `passcode_setting_set` may write a setting.
enum SettingWriter: Sendable {
    /// A plain stored value.
    case plain
    /// The lock switch: 1 is `enable()`, 0 needs the passcode (`passcode_disable`).
    case lockSwitch
    /// The passcode length: only while no passcode is set.
    case passcodeLength
    /// Not writable by the host; the text says what sets it.
    case readOnly(String)
}

/// What a setting's new value needs from the rest of the store, checked in the writing transaction.
enum SettingRequirement: Sendable {
    case nothing
    /// Value 1 needs a passcode, the passcode lock on and available biometrics.
    case passcodeAndBiometricsToEnable
    /// Value 1 needs biometric unlock on.
    case biometricUnlockToEnable
    /// The custom value needs a custom table installed first.
    case customScheduleForCustom
}

/// One setting's whole definition.
public struct SettingSpec: Sendable {
    /// The row name in the `settings` table, also the name the settings hook hears.
    public let key: String
    public let defaultValue: Int64
    /// The allowed values: every integer in `range`, or only `choices` when there are some.
    public let range: ClosedRange<Int64>
    public let choices: [Int64]?
    public let weakening: Weakening
    let writer: SettingWriter
    let requirement: SettingRequirement

    public func allows(_ value: Int64) -> Bool {
        if let choices { return choices.contains(value) }
        return range.contains(value)
    }

    /// Whether `value` is weaker than the default: a rule that a new passcode, set without the
    /// previous one proved, does not inherit (`restoreSafeDefaultsLocked`).
    public func isWeakerThanDefault(_ value: Int64) -> Bool {
        weakening.weakens(from: defaultValue, to: value)
    }
}

extension Setting {
    /// The auto-lock choices, in seconds.
    public static let autoLockChoices: [Int64] = [0, 60, 300, 900, 1800, 3600]

    public var spec: SettingSpec {
        switch self {
        case .lockEnabled:
            return SettingSpec(key: "lock_enabled", defaultValue: 1, range: 0...1, choices: nil,
                               weakening: .whenLowered, writer: .lockSwitch, requirement: .nothing)
        case .autoLockSeconds:
            return SettingSpec(key: "auto_lock_seconds", defaultValue: 900, range: 0...3600, choices: Setting.autoLockChoices,
                               weakening: .whenRaised, writer: .plain, requirement: .nothing)
        case .lockAtLaunch:
            return SettingSpec(key: "lock_at_launch", defaultValue: 1, range: 0...1, choices: nil,
                               weakening: .whenLowered, writer: .plain, requirement: .nothing)
        case .lockoutSchedule:
            return SettingSpec(key: "lockout_schedule", defaultValue: Int64(LockoutScheduleKind.apple.rawValue),
                               range: 0...2, choices: LockoutScheduleKind.allCases.map { Int64($0.rawValue) },
                               weakening: .onAnyChange, writer: .plain, requirement: .customScheduleForCustom)
        case .maxFailureAction:
            return SettingSpec(key: "max_failure_action", defaultValue: Int64(MaxFailureAction.requireReset.rawValue),
                               range: 0...2, choices: MaxFailureAction.allCases.map { Int64($0.rawValue) },
                               weakening: .whenSetTo(Int64(MaxFailureAction.none.rawValue)), writer: .plain, requirement: .nothing)
        case .biometricEnabled:
            return SettingSpec(key: "biometric_enabled", defaultValue: 0, range: 0...1, choices: nil,
                               weakening: .whenRaised, writer: .plain, requirement: .passcodeAndBiometricsToEnable)
        case .requireBiometricOnLaunch:
            return SettingSpec(key: "require_biometric_on_launch", defaultValue: 0, range: 0...1, choices: nil,
                               weakening: .whenLowered, writer: .plain, requirement: .biometricUnlockToEnable)
        case .twoFactorEnabled:
            return SettingSpec(key: "two_factor_enabled", defaultValue: 0, range: 0...1, choices: nil,
                               weakening: .whenLowered, writer: .plain, requirement: .nothing)
        case .lastPasswordChange:
            return SettingSpec(key: "last_password_change_wall_ms", defaultValue: 0, range: 0...Int64.max, choices: nil,
                               weakening: .never, writer: .readOnly("the last password change time is read only; it is set by passcode_password_change_check"),
                               requirement: .nothing)
        case .passcodeLength:
            return SettingSpec(key: "passcode_length", defaultValue: Int64(PasscodePolicy.defaultLength),
                               range: Int64(PasscodePolicy.minLength)...Int64(PasscodePolicy.maxLength), choices: nil,
                               weakening: .never, writer: .passcodeLength, requirement: .nothing)
        case .resetCodeLength:
            return SettingSpec(key: "reset_code_length", defaultValue: 8, range: 6...10, choices: nil,
                               weakening: .whenLowered, writer: .plain, requirement: .nothing)
        case .resetCodeLifetimeSeconds:
            return SettingSpec(key: "reset_code_lifetime_seconds", defaultValue: 900, range: 60...86400, choices: nil,
                               weakening: .whenRaised, writer: .plain, requirement: .nothing)
        case .resetRequestIntervalSeconds:
            return SettingSpec(key: "reset_request_interval_seconds", defaultValue: 60, range: 0...86400, choices: nil,
                               weakening: .whenLowered, writer: .plain, requirement: .nothing)
        case .resetRequestsPerDay:
            return SettingSpec(key: "reset_requests_per_day", defaultValue: 5, range: 1...100, choices: nil,
                               weakening: .whenRaised, writer: .plain, requirement: .nothing)
        case .passcodeAfterEveryLaunch:
            return SettingSpec(key: "passcode_after_every_launch", defaultValue: 0, range: 0...1, choices: nil,
                               weakening: .whenLowered, writer: .plain, requirement: .nothing)
        }
    }

    /// The row name in the `settings` table.
    var key: String { spec.key }
}

/// The custom lockout table's row (not a `Setting`: it is set with `passcode_set_custom_schedule`).
enum CustomScheduleRow {
    static let key = "lockout_custom"
    static let delays: ClosedRange<Int64> = 0...(366 * 86400)
    static let count: ClosedRange<Int> = 1...100
    static let maxFailures: ClosedRange<Int> = 0...10_000

    static func encode(delays: [Int64], maxFailures: Int) -> String {
        delays.map(String.init).joined(separator: ",") + ";" + String(maxFailures)
    }

    /// Parses the stored text; any value outside the limits `passcode_set_custom_schedule`
    /// enforces is damage, reported and never used.
    static func decode(_ text: String) throws(PasscodeError) -> LockoutSchedule {
        let damaged = PasscodeError.corrupt("the store's custom lockout schedule (\(key)) is damaged or out of range")
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 2, let maxFailures = Int(parts[1]), CustomScheduleRow.maxFailures.contains(maxFailures) else { throw damaged }
        var delays: [Int64] = []
        for item in parts[0].split(separator: ",", omittingEmptySubsequences: false) {
            guard let d = Int64(item), CustomScheduleRow.delays.contains(d) else { throw damaged }
            delays.append(d)
        }
        guard count.contains(delays.count) else { throw damaged }
        return .custom(delays: delays, maxFailures: maxFailures)
    }
}

extension PasscodeStore {
    // MARK: - Reading (typed: no caller states a default)

    /// The stored value of `setting`, or its default when none is stored. A stored value the
    /// spec does not allow is damage: `corrupt`, naming the setting.
    func value(_ setting: Setting) throws(PasscodeError) -> Int64 {
        let spec = setting.spec
        guard let stored = try db.setting(spec.key) else {
            return spec.defaultValue
        }
        guard let v = stored.int, spec.allows(v) else {
            throw PasscodeError.corrupt("the store's setting \(spec.key) has a value outside its range")
        }
        return v
    }

    /// A 0/1 setting as a Bool.
    func flag(_ setting: Setting) throws(PasscodeError) -> Bool { try value(setting) != 0 }

    func putSetting(_ setting: Setting, _ value: Int64) throws(PasscodeError) {
        try db.putSetting(setting.key, .int(value))
    }

    /// The current value of `setting` (`passcode_setting_get`).
    public func get(_ setting: Setting) throws(PasscodeError) -> Int64 {
        if case .passcodeLength = setting.spec.writer { return Int64(try passcodeLength()) }  // this handle's choice
        return try cachedRead(.setting(setting)) { () throws(PasscodeError) in try effectiveValueLocked(setting) }
    }

    /// The value as the host sees it: the lock switch is off without a passcode, and the
    /// length is the set passcode's.
    func effectiveValueLocked(_ setting: Setting) throws(PasscodeError) -> Int64 {
        switch setting.spec.writer {
        case .lockSwitch: return try lockEnabledLocked() ? 1 : 0
        case .passcodeLength: return Int64(try lengthLocked())
        case .plain, .readOnly: return try value(setting)
        }
    }

    // MARK: - Writing

    /// Changes `setting` (`passcode_setting_set`). Invalid values throw `invalidSetting` and
    /// change nothing; a host hook that fails throws `hookFailed` with its message and the old
    /// value stays.
    public func set(_ setting: Setting, to value: Int64) throws(PasscodeError) {
        let spec = setting.spec
        switch spec.writer {
        case .readOnly(let why): throw PasscodeError.invalidSetting(why)
        case .lockSwitch:
            if value == 1 { return try enable() }
            throw PasscodeError.invalidSetting("turning the lock off needs the passcode: use passcode_disable")
        case .passcodeLength:
            return try setPasscodeLength(Int(clamping: value))
        case .plain:
            try checkAllowed(setting, value)
            try changeSetting(setting, to: value)
        }
    }

    // MARK: - The library defends its policy

    /// A passcode entered within this long on this handle proves the user for a weakening change.
    public static let proofWindowMs: Int64 = 5 * 60 * 1000

    /// Records that the passcode whose verifier is `verifier` was entered correctly now. The proof
    /// names that passcode (`Proof.passcode`), so any later change of it (a set, change, forgot,
    /// reset, removal or an edit of the file) leaves the proof naming a passcode that is gone.
    func recordProof(_ now: ClockReading, verifier: String) {
        let proof = Proof(at: BootInstant(bootID: now.bootID, ms: now.bootMs), passcode: Proof.digest(verifier))
        lock.withLock { connection.proof = proof }
    }

    /// What every setting change needs before the host's hook is asked: the app unlocked, and,
    /// for a change that weakens protection while a passcode is set, a fresh proof of that very
    /// passcode (entered on this handle within 5 minutes on the boot clock, and not changed since).
    /// A biometric unlock is no proof. Called inside a transaction (the handle lock is held).
    func checkChangeAllowedLocked(_ what: String, weakens: Bool, now: ClockReading) throws(PasscodeError) {
        if try lockStatusLocked().locked { throw PasscodeError.appLocked }
        guard weakens, let row = try passcodeRowLocked() else { return }
        guard let proof = connection.proof, proof.at.bootID == now.bootID, now.bootMs >= proof.at.ms,
              now.bootMs - proof.at.ms <= PasscodeStore.proofWindowMs, proof.names(row.text) else {
            throw PasscodeError.proofRequired(what)
        }
    }

    /// For a call that verified the passcode and then writes (remove, change, a TPM re-wrap): the
    /// passcode is still the one this handle proved. The host's hook runs between the two with no
    /// lock held, and another handle or process may have replaced the passcode meanwhile (forgot,
    /// then a new one); writing then would act on a passcode this handle never proved. Called in
    /// the writing transaction.
    func checkStillProvedLocked() throws(PasscodeError) {
        guard let row = try passcodeRowLocked(), connection.proof?.names(row.text) == true else {
            throw PasscodeError.state("the passcode was changed by another handle or process during this call; nothing changed")
        }
    }

    /// The passcode row's verifier now (nil: no passcode), for a call that asks the host's hook
    /// before it writes and must act on the passcode it was asked about (`checkPasscodeUnchangedLocked`).
    func passcodeSeen(_ use: IntegrityUse = .check) throws(PasscodeError) -> String? {
        try read(use, { () throws(PasscodeError) in try passcodeRowLocked()?.text })
    }

    /// For a call that acts on the passcode there when it was asked, with no proof of it (forgot):
    /// the passcode is still that one (`seen`, from `passcodeSeen`), or still none. The host's hook
    /// runs between the two with no lock held, and another handle or process may have set a new
    /// passcode meanwhile; forgetting it would remove a passcode the caller never asked about.
    /// Called in the writing transaction.
    func checkPasscodeUnchangedLocked(since seen: String?) throws(PasscodeError) {
        let now = try passcodeRowLocked()?.text
        let same: Bool
        switch (seen, now) {
        case (nil, nil): same = true
        case (let a?, let b?): same = Sodium.constantTimeEqual(Proof.digest(a), Proof.digest(b))
        default: same = false
        }
        guard same else {
            throw PasscodeError.state("the passcode was set or changed by another handle or process during this call; nothing changed")
        }
    }

    /// A passcode set without the previous one proved in the same operation (the first one, after
    /// forgot, a logout, a reset or a removal) starts from the safe defaults: every setting whose
    /// stored value is weaker than its default (the setting's own `weakening` says which are)
    /// goes back to the default, and the custom lockout table goes. Rules written while no
    /// passcode existed, by any code of the user, so never outlive the next passcode; the host
    /// that wants a weaker rule sets it again with the proof the new passcode gave. The log says
    /// what was reset. Called in the transaction that stores the new passcode.
    func restoreSafeDefaultsLocked(now: ClockReading) throws(PasscodeError) {
        var restored: [String] = []
        for setting in Setting.allCases {
            let spec = setting.spec
            guard case .plain = spec.writer, let stored = try db.setting(spec.key) else { continue }
            // A damaged value is weaker than any: it goes too.
            if let v = stored.int, spec.allows(v), !spec.isWeakerThanDefault(v) { continue }
            try putSetting(setting, spec.defaultValue)
            restored.append("\(spec.key) \(stored.int.map(String.init) ?? "?") -> \(spec.defaultValue)")
        }
        if try db.setting(CustomScheduleRow.key) != nil {
            try db.deleteSetting(CustomScheduleRow.key)
            restored.append("\(CustomScheduleRow.key) removed")
        }
        // The length is chosen per handle now (`ConnectionState.chosenLength`); a stored one is old.
        if try db.setting(Setting.passcodeLength.key) != nil { try db.deleteSetting(Setting.passcodeLength.key) }
        if !restored.isEmpty {
            try logLocked(.settingChanged, "a new passcode starts from the safe defaults: " + restored.joined(separator: ", "), now: now)
        }
    }

    func checkAllowed(_ setting: Setting, _ value: Int64) throws(PasscodeError) {
        guard setting.spec.allows(value) else {
            throw PasscodeError.invalidSetting("\(value) is not a valid value for \(setting.key)")
        }
    }

    /// What the new value needs from the rest of the store; called inside the transaction.
    private func checkRequirementLocked(_ setting: Setting, _ value: Int64) throws(PasscodeError) {
        switch setting.spec.requirement {
        case .nothing: break
        case .passcodeAndBiometricsToEnable where value == 1:
            if try passcodeRowLocked() == nil {
                throw PasscodeError.invalidSetting("biometric unlock needs a passcode to be set")
            }
            // The biometric switch exists only while the passcode lock is on; a
            // disabled lock must not keep (or gain) a way to unlock that it does not show.
            if try !flag(.lockEnabled) {
                throw PasscodeError.invalidSetting("biometric unlock needs the passcode lock to be on")
            }
            if try !load(BiometricState.self).available { throw PasscodeError.biometricUnavailable }
        case .biometricUnlockToEnable where value == 1:
            if try !flag(.biometricEnabled) {
                throw PasscodeError.invalidSetting("requiring biometrics at launch needs biometric unlock to be on")
            }
        case .customScheduleForCustom where value == Int64(LockoutScheduleKind.custom.rawValue):
            if try db.setting(CustomScheduleRow.key) == nil {
                throw PasscodeError.invalidSetting("set a custom schedule with passcode_set_custom_schedule first")
            }
        case .passcodeAndBiometricsToEnable, .biometricUnlockToEnable, .customScheduleForCustom: break
        }
    }

    /// Writes one setting after the host's hook agreed. The hook is called with no lock held,
    /// so it may take its time (a network call) and may call back into the library.
    func changeSetting(_ setting: Setting, to value: Int64) throws(PasscodeError) {
        let now = try now()
        // Everything that can refuse the change is checked before the host is asked, so the hook
        // never sees a change that cannot happen.
        let old: Int64 = try read { () throws(PasscodeError) in
            let old = try self.value(setting)
            if value != old {
                try checkChangeAllowedLocked(setting.key, weakens: setting.spec.weakening.weakens(from: old, to: value), now: now)
                try checkRequirementLocked(setting, value)
            }
            return old
        }
        if value == old { return }
        try callSettingHook(setting.key, old: old, new: value)
        if setting == .lockEnabled { try callLifecycleHook(value == 1 ? .enabled : .disabled) }
        try write { () throws(PasscodeError) in
            // Checked again where it is written: the hook ran with no lock held, and meanwhile
            // the app may have locked, or the passcode this handle proved may have been replaced.
            let current = try self.value(setting)
            let weakens = setting.spec.weakening.weakens(from: old, to: value) || setting.spec.weakening.weakens(from: current, to: value)
            try checkChangeAllowedLocked(setting.key, weakens: weakens, now: now)
            try checkRequirementLocked(setting, value)
            try putSetting(setting, value)
            if setting == .lockEnabled {
                try logLocked(value == 1 ? .passcodeEnabled : .passcodeDisabled, now: now)
            } else {
                try logLocked(.settingChanged, "\(setting.key) \(old) -> \(value)", now: now)
            }
            // The session keyring follows: biometric unlock off, or a passcode after every
            // launch, takes the entry out (whichever process put it there).
            if try !sessionKeyringAllowedLocked() { revokeSessionKeyLocked() } else { syncSessionKeyringLocked() }
        }
        flushLogAfterChange()  // deleting -wal and -shm must not take the change back
    }

    /// Asks the host's lifecycle callback, with no lock held, before `event` is committed.
    func callLifecycleHook(_ event: LifecycleEvent) throws(PasscodeError) {
        if let hook = hooks.lifecycle, let failure = hook(event.rawValue) {
            throw PasscodeError.hookFailed(failure)
        }
    }

    func callSettingHook(_ key: String, old: Int64, new: Int64) throws(PasscodeError) {
        if let hook = hooks.settingChange, let failure = hook(key, String(old), String(new)) {
            throw PasscodeError.hookFailed(failure)
        }
    }

    /// Refuses a custom lockout table of `count` delays outside `CustomScheduleRow.count`
    /// (the C layer asks before it reads the caller's array).
    public static func checkCustomScheduleCount(_ count: Int) throws(PasscodeError) {
        guard CustomScheduleRow.count.contains(count) else {
            throw PasscodeError.invalidSetting("a custom schedule needs \(CustomScheduleRow.count.lowerBound) to \(CustomScheduleRow.count.upperBound) delays")
        }
    }

    /// Refuses a custom lockout table outside the allowed counts and ranges (first, before anything
    /// is asked of the store; passcoded also checks it before it opens the caller's store).
    public static func checkCustomSchedule(delays: [Int64], maxFailures: Int) throws(PasscodeError) {
        try PasscodeStore.checkCustomScheduleCount(delays.count)
        guard delays.allSatisfy({ CustomScheduleRow.delays.contains($0) }) else {
            throw PasscodeError.invalidSetting("a custom schedule needs delays of 0 to 366 days in seconds each")
        }
        guard CustomScheduleRow.maxFailures.contains(maxFailures) else {
            throw PasscodeError.invalidSetting("the maximum number of failures must be 0 (never) to 10000")
        }
    }

    /// Installs a custom lockout table and selects it (`passcode_set_custom_schedule`).
    public func setCustomSchedule(delays: [Int64], maxFailures: Int) throws(PasscodeError) {
        try PasscodeStore.checkCustomSchedule(delays: delays, maxFailures: maxFailures)
        let custom = Int64(LockoutScheduleKind.custom.rawValue)
        let now = try now()
        let old: Int64 = try read { () throws(PasscodeError) in
            try checkChangeAllowedLocked("the lockout schedule", weakens: true, now: now)  // any change of the table
            return try value(.lockoutSchedule)
        }
        try callSettingHook(CustomScheduleRow.key, old: old, new: custom)
        try write { () throws(PasscodeError) in
            try checkChangeAllowedLocked("the lockout schedule", weakens: true, now: now)  // again, after the hook
            let table = CustomScheduleRow.encode(delays: delays, maxFailures: maxFailures)
            try db.putSetting(CustomScheduleRow.key, .text(table))
            try putSetting(.lockoutSchedule, custom)
            try logLocked(.settingChanged, "\(CustomScheduleRow.key) -> \(table)", now: now)
        }
        flushLogAfterChange()
    }

    func scheduleLocked() throws(PasscodeError) -> LockoutSchedule {
        switch LockoutScheduleKind(checked: Int32(try value(.lockoutSchedule)))! {  // value() checked the range
        case .apple: return .apple
        case .android: return .android
        case .custom:
            guard let text = try db.setting(CustomScheduleRow.key)?.text else {
                throw PasscodeError.corrupt("the store selects a custom lockout schedule but has none")
            }
            return try CustomScheduleRow.decode(text)
        }
    }

    func maxFailureActionLocked() throws(PasscodeError) -> MaxFailureAction {
        MaxFailureAction(checked: Int32(try value(.maxFailureAction)))!  // value() checked the range
    }
}

/// A proof of the passcode: when it was entered (the boot clock) and which passcode it was (a
/// digest of its verifier, which a new salt makes new at every set, change and reset).
public struct Proof: Sendable, Equatable {
    let at: BootInstant
    let passcode: [UInt8]

    static func digest(_ verifier: String) -> [UInt8] {
        Sodium.publicHash(Array(verifier.utf8), key: Array("libpasscode proof of a passcode".utf8), count: 32)
    }

    /// Whether this proof is of the passcode whose verifier is `verifier` (the one the store holds now).
    func names(_ verifier: String) -> Bool {
        Sodium.constantTimeEqual(passcode, Proof.digest(verifier))
    }
}

/// What a handle (embedded) or a bus connection (passcoded) holds for itself, memory only: the
/// proof of the passcode a weakening change needs, and the passcode length it chose while no
/// passcode was set (`setPasscodeLength`), which only its own next `setPasscode` uses.
public struct ConnectionState: Sendable, Equatable {
    public var proof: Proof?
    public var chosenLength: Int?
    public init() {}
    public var isEmpty: Bool { proof == nil && chosenLength == nil }
}

