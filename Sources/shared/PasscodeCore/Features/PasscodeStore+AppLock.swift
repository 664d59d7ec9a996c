// The app's lock state, shared by every process through the store.

/// The lock state a host draws (`passcode_lock_state`).
public struct LockStatus: Equatable, Sendable {
    public var locked: Bool
    public var reason: LockReason

    public init(locked: Bool, reason: LockReason) {
        self.locked = locked
        self.reason = reason
    }
}

/// What a lock screen draws (`passcode_lock_screen_read`), read at one moment.
public struct LockScreen: Equatable, Sendable {
    public var status: LockStatus
    public var lockoutSeconds: Int64
    public var failedAttempts: Int64
    public var resetRequired: Bool
    public var refusal: BiometricRefusal
    public var lead: Bool
    public var kind: BiometricKind
    public var passcodeSet: Bool
    public var lockEnabled: Bool

    public init(status: LockStatus, lockoutSeconds: Int64, failedAttempts: Int64, resetRequired: Bool, refusal: BiometricRefusal,
                lead: Bool, kind: BiometricKind, passcodeSet: Bool, lockEnabled: Bool) {
        self.status = status
        self.lockoutSeconds = lockoutSeconds
        self.failedAttempts = failedAttempts
        self.resetRequired = resetRequired
        self.refusal = refusal
        self.lead = lead
        self.kind = kind
        self.passcodeSet = passcodeSet
        self.lockEnabled = lockEnabled
    }
}

/// A lock screen laid out as the layer above hands it out (`PasscodeStore.copyLockScreen`):
/// opaque bytes here, 96 of them (the C struct `passcode_lock_screen` takes 64).
public struct LockScreenImage {
    public var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    /// All bytes zero.
    public init() { words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }
}

extension PasscodeStore {
    /// Records an app event and returns the lock state after it (`passcode_event_report`).
    /// While the lock is disabled or no passcode is set, nothing locks.
    @discardableResult
    public func report(_ event: AppEvent) throws(PasscodeError) -> LockStatus {
        try report(event, from: ProcessIdentity.current)
    }

    /// `report(_:)` for an event `process` reported (passcoded: the caller, from the bus). The
    /// process that reported BACKGROUND ends the trip with its own FOREGROUND; another process's
    /// FOREGROUND does not, nor does a launch while that process still runs.
    @discardableResult
    public func report(_ event: AppEvent, from process: ReportingProcess) throws(PasscodeError) -> LockStatus {
        let now = try now()
        return try write { () throws(PasscodeError) in
            let enabled = try lockEnabledLocked()
            // "Require on App Launch" locks a launch too (the table at passcode_biometric_lead).
            let lockAtLaunch = try flag(.lockAtLaunch) ? true : flag(.requireBiometricOnLaunch)
            let everyLaunch = try flag(.passcodeAfterEveryLaunch)
            let timeout = try value(.autoLockSeconds)
            try update(LockState.self) { lock in
                switch event {
                case .launched:
                    // Per boot, as on iOS: only with "passcode after every launch" does a launch
                    // itself need the passcode (a new boot always does: BiometricPolicy).
                    lock.launchNeedsPasscode = enabled && everyLaunch
                    if enabled && lockAtLaunch { lock.lock(.launch) }
                    // A process killed in the background: the auto-lock rule applies to the time
                    // recorded there, as a return to the foreground does (a kill resets nothing).
                    lock.cameToForeground(now: now, enabled: enabled, timeoutSeconds: timeout, launch: true, process: process)
                case .background:
                    lock.wentToBackground(now: now, enabled: enabled, timeoutSeconds: timeout, process: process)
                case .foreground:
                    lock.cameToForeground(now: now, enabled: enabled, timeoutSeconds: timeout, launch: false, process: process)
                case .lockNow:
                    if enabled { lock.lock(.requested) }
                }
            }
            let status = try lockStatusLocked()
            // "Lock now" keeps the session keyring's entry, so a biometric match may unlock again.
            switch KeyRule.after(event, locked: status.locked) {
            case .keep: break
            case .suspend: suspendKeyLocked()
            case .drop: dropKeyLocked(revokeSession: false)
            }
            return status
        }
    }

    /// Whether the app is locked now, and why (`passcode_lock_state`).
    public func lockStatus() throws(PasscodeError) -> LockStatus {
        try cachedRead(.lockStatus) { () throws(PasscodeError) in try lockStatusLocked() }
    }

    func lockStatusLocked() throws(PasscodeError) -> LockStatus {
        try lockStatus(of: load(LockState.self)) { () throws(PasscodeError) in try lockEnabledLocked() }
    }

    /// The lock state `lock` stands for; `enabled` is asked only when a logout does not decide.
    private func lockStatus<E: Error>(of lock: LockState, enabled: () throws(E) -> Bool) throws(E) -> LockStatus {
        if lock.locked && lock.reason == .loggedOut { return LockStatus(locked: true, reason: .loggedOut) }
        guard try enabled(), lock.locked else { return LockStatus(locked: false, reason: .none) }
        return LockStatus(locked: true, reason: lock.reason)
    }

    // MARK: - Biometrics

    /// The host says whether biometrics are available and of which kind
    /// (`passcode_biometric_set_available`). A report, not a choice of the user's: it changes no
    /// setting. While they are unavailable biometric policy refuses them (`biometricUnavailable`),
    /// so "Require on App Launch" still locks every launch and the lock screen asks for the
    /// passcode; when the reader is back, the user's settings are as they left them.
    public func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws(PasscodeError) {
        try write { () throws(PasscodeError) in
            try update(BiometricState.self) { bio in
                bio.available = available
                bio.kind = kind
            }
        }
    }

    /// The kind of biometrics the host reported.
    public func biometricKind() throws(PasscodeError) -> BiometricKind {
        try read { () throws(PasscodeError) in try load(BiometricState.self).kind }
    }

    /// The settings label: "Passcode & Face ID", "Passcode & Touch ID", "Passcode & Fingerprint", "Passcode & Biometric".
    public func securityLabel() throws(PasscodeError) -> String {
        try biometricKind().securityLabel
    }

    /// Whether biometrics may unlock now, and why not (`passcode_biometric_check`).
    public func biometricRefusal() throws(PasscodeError) -> BiometricRefusal {
        let now = try now()
        return try biometricInputs().refusal(now: now)
    }

    /// As `biometricRefusal`, for a login store whose PAM stack turned the fingerprint on
    /// (pam_passcode's `fingerprint` option): the stack is the switch, so `biometric_enabled` is
    /// not read; every other rule is the core's (a passcode entered in this boot and within 48
    /// hours, fewer than 5 failed matches, no lockout, no required reset, a reader available).
    public func loginFingerprintRefusal() throws(PasscodeError) -> BiometricRefusal {
        let now = try now()
        var inputs = try biometricInputs()
        inputs.biometricEnabled = true
        return inputs.refusal(now: now)
    }

    /// A match read for a login store whose PAM stack turned the fingerprint on: unlocks as
    /// `biometricUnlock` does, under `loginFingerprintRefusal`'s rules.
    public func loginFingerprintUnlock() throws(PasscodeError) {
        _ = try biometricUnlock(needKey: false, enabledByStack: true)
    }

    /// The refusal `biometricUnlockKey` gives before a match is read: the policy's, else
    /// `keyNotInMemory` when this handle holds no key and no session keyring may hold one (so a
    /// reader is not asked for a finger whose match could release nothing).
    public func biometricKeyRefusal() throws(PasscodeError) -> BiometricRefusal {
        let now = try now()
        return try read { () throws(PasscodeError) -> BiometricRefusal in
            let r = try biometricRefusalLocked(now: now)
            if r == .none && heldKey == nil && !options.sessionKeyring { return .keyNotInMemory }
            return r
        }
    }

    /// Whether the lock screen should start with the biometric prompt (`passcode_biometric_lead`).
    public func biometricLead() throws(PasscodeError) -> Bool {
        let now = try now()
        let inputs = try biometricInputs()
        return inputs.lead(refusal: inputs.refusal(now: now))
    }

    /// Everything a lock screen draws, under one lock and one change-stamp check
    /// (`passcode_lock_screen_read`): the cached biometric inputs hold every row it needs; the
    /// clock is applied afterwards, so a lockout counts down without reading the file again.
    /// The clock is read only when an answer depends on it: a lockout is recorded, or the
    /// biometric policy gets as far as its time checks (with biometrics off it never does).
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    public func lockScreen() throws(PasscodeError) -> LockScreen {
        try lockScreenReading().screen
    }

    /// `lockScreen()`, and whether that answer holds until the store changes: true when the
    /// clock was not read for it (no lockout recorded, the biometric policy settled before its
    /// time checks), so no field of it depends on when it is asked (passcoded pushes it).
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    public func lockScreenReading() throws(PasscodeError) -> (screen: LockScreen, clockFree: Bool) {
        // A clock-free screen holds until the store changes, so it is kept (a typed slot): a
        // lock screen's redraw then costs what passcode_is_set costs, one stamp check.
        let kept = try cachedRead(get: { $0.answers.screen }, set: { $0.answers.screen = $1 }) { () throws(PasscodeError) in
            PasscodeStore.screen(try biometricInputsLocked(), now: nil).map(ScreenAnswer.clockFree) ?? .needsClock
        }
        if case .clockFree(let screen) = kept { return (screen, true) }
        let inputs = try biometricInputs()
        if let screen = PasscodeStore.screen(inputs, now: nil) { return (screen, true) }  // changed meanwhile
        return (PasscodeStore.screen(inputs, now: try self.now())!, false)
    }

    /// The lock screen `inputs` give: without a clock reading (`now` nil) only when no field of
    /// it depends on the time (no lockout recorded, the biometric policy settled before its time
    /// checks), else nil; with one, always.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    static func screen(_ inputs: BiometricInputs, now: ClockReading?) -> LockScreen? {
        let settled = BiometricPolicy.settledRefusal(inputs.facts(lockedOut: false))
        let clockFree = settled != nil && inputs.attempts.lockoutDurationMs <= 0
        if !clockFree && now == nil { return nil }
        let refusal = settled ?? inputs.refusal(now: now!)
        let lockoutMs = clockFree ? 0 : inputs.attempts.lockoutRemaining(now: now!)
        return LockScreen(status: inputs.status, lockoutSeconds: (lockoutMs + 999) / 1000,
                          failedAttempts: inputs.attempts.failures, resetRequired: inputs.attempts.resetRequired,
                          refusal: refusal, lead: inputs.lead(refusal: refusal), kind: inputs.bio.kind,
                          passcodeSet: inputs.passcodeSet, lockEnabled: inputs.lockEnabled)
    }

    /// `lockScreen()` in the layout of the layer above: `make` writes it there (the C struct of
    /// libpasscode's `passcode_lock_screen_read`, at most `LockScreenImage`'s size), and
    /// `count` bytes of that from byte `start` on are copied to `destination`. The image is kept
    /// while the store is unchanged (the rule of `cachedRead`, under the same stamp) and the
    /// screen needs no clock, and a poll then copies it out in place, at the cost of
    /// `isPasscodeSet()`, instead of building and converting every field again. `make` depends
    /// on its argument alone and runs under the handle lock.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    public func copyLockScreen(to destination: UnsafeMutableRawPointer, from start: Int, count: Int,
                               make: (LockScreen, UnsafeMutableRawPointer) -> Void) throws(PasscodeError) {
        let copied = try lock.withLock { () throws(PasscodeError) -> Bool in
            let stamp = db.changeStamp()
            if let stamp, stamp == answers.stamp, answers.screenImageKept == .clockFree {
                withUnsafeBytes(of: &answers.screenImage) { destination.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
                return true
            }
            return try copyLockScreenLocked(stamp, to: destination, from: start, count: count, make: make)
        }
        if !copied { try copyClockedLockScreen(to: destination, from: start, count: count, make: make) }
    }

    /// `copyLockScreen` when the image kept is not of the store now (under the handle lock):
    /// the screen read, its image kept when it needs no clock (under `stamp`, as `cachedRead`
    /// keeps an answer) and copied; false when it needs the clock.
    @inline(never)  // the poll's usual path above stays small
    private func copyLockScreenLocked(_ stamp: ChangeStamp?, to destination: UnsafeMutableRawPointer, from start: Int, count: Int,
                                      make: (LockScreen, UnsafeMutableRawPointer) -> Void) throws(PasscodeError) -> Bool {
        if let stamp, stamp == answers.stamp, answers.screenImageKept == .needsClock { return false }
        let screen = try readLocked(.check) { () throws(PasscodeError) in PasscodeStore.screen(try biometricInputsLocked(), now: nil) }
        var image = LockScreenImage()
        if let screen { withUnsafeMutableBytes(of: &image) { make(screen, $0.baseAddress!) } }
        if let stamp {
            if stamp != answers.stamp { answers = Answers(stamp: stamp) }
            answers.screenImageKept = screen == nil ? .needsClock : .clockFree
            answers.screenImage = image
        }
        guard screen != nil else { return false }
        withUnsafeBytes(of: &image) { destination.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
        return true
    }

    /// `copyLockScreen` for a screen a field of which depends on the time (a lockout, the
    /// biometric policy's time checks): read with the clock, never kept.
    @inline(never)
    private func copyClockedLockScreen(to destination: UnsafeMutableRawPointer, from start: Int, count: Int,
                                       make: (LockScreen, UnsafeMutableRawPointer) -> Void) throws(PasscodeError) {
        let screen = try lockScreenReading().screen
        var image = LockScreenImage()
        withUnsafeMutableBytes(of: &image) { make(screen, $0.baseAddress!) }
        withUnsafeBytes(of: &image) { destination.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
    }

    /// What `copyLockScreen` keeps while the store is unchanged.
    enum ScreenImageKept {
        case nothing
        /// `Answers.screenImage` holds the screen, which depends on the store alone.
        case clockFree
        /// A field depends on the time: read the clock.
        case needsClock
    }

    /// What `lockScreenReading` keeps while the store is unchanged.
    enum ScreenAnswer {
        /// The screen, which depends on the store alone.
        case clockFree(LockScreen)
        /// A field depends on the time: read the clock.
        case needsClock
    }

    /// The biometric inputs, from the handle's cache while the store is unchanged (a typed slot:
    /// the lock screen reads them on every redraw).
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    func biometricInputs() throws(PasscodeError) -> BiometricInputs {
        try cachedRead(get: { $0.answers.biometricInputs }, set: { $0.answers.biometricInputs = $1 }) { () throws(PasscodeError) in try biometricInputsLocked() }
    }

    /// What the biometric policy reads from the store; the clock is applied by `refusal(now:)`.
    struct BiometricInputs {
        var bio: BiometricState
        var attempts: AttemptState
        var passcodeSet: Bool
        var lockEnabled: Bool
        var biometricEnabled: Bool
        var launchNeedsPasscode: Bool
        var status: LockStatus
        var requireOnLaunch: Bool

        func refusal(now: ClockReading) -> BiometricRefusal {
            BiometricPolicy.refusal(facts(lockedOut: attempts.lockoutRemaining(now: now) > 0), now: now)
        }

        func facts(lockedOut: Bool) -> BiometricPolicy.Facts {
            BiometricPolicy.Facts(
                passcodeSet: passcodeSet,
                lockEnabled: lockEnabled,
                biometricEnabled: biometricEnabled,
                biometricAvailable: bio.available,
                resetRequired: attempts.resetRequired,
                lockedOut: lockedOut,
                firstUnlockAfterLaunch: launchNeedsPasscode,
                lastPasscodeEntry: bio.lastPasscodeEntry,
                biometricFailures: bio.failures)
        }

        /// Whether the prompt opens by itself, given the refusal now (the table at passcode_biometric_lead).
        func lead(refusal: BiometricRefusal) -> Bool {
            guard status.locked, refusal == .none else { return false }
            return status.reason != .launch || requireOnLaunch
        }
    }

    /// Each row once: the passcode row, the lock state and the lock switch feed several inputs.
    func biometricInputsLocked() throws(PasscodeError) -> BiometricInputs {
        let bio = try load(BiometricState.self), attempts = try load(AttemptState.self)
        let passcodeSet = try passcodeRowLocked() != nil
        let lockEnabled = try passcodeSet ? flag(.lockEnabled) : false  // lockEnabledLocked, without a second row read
        let lock = try load(LockState.self)
        return BiometricInputs(bio: bio, attempts: attempts, passcodeSet: passcodeSet, lockEnabled: lockEnabled,
                               biometricEnabled: try flag(.biometricEnabled), launchNeedsPasscode: lock.launchNeedsPasscode,
                               status: lockStatus(of: lock) { lockEnabled }, requireOnLaunch: try flag(.requireBiometricOnLaunch))
    }

    private func biometricRefusalLocked(now: ClockReading, enabledByStack: Bool = false) throws(PasscodeError) -> BiometricRefusal {
        var inputs = try biometricInputsLocked()
        if enabledByStack { inputs.biometricEnabled = true }
        return inputs.refusal(now: now)
    }

    /// The host reports a successful biometric match (`passcode_biometric_unlock`). Unlocks when
    /// policy allows; otherwise throws `passcodeRequired` with the reason, and stays locked. A
    /// data key this handle holds is released again.
    public func biometricUnlock() throws(PasscodeError) {
        _ = try biometricUnlock(needKey: false)
    }

    /// As `biometricUnlock`, and returns the data key (`passcode_biometric_unlock_key`): the key
    /// this handle holds since a passcode unlock, or the one the session keyring's entry opens
    /// (a passcode unlock in an earlier process of this boot and login session). Without either
    /// the refusal is `keyNotInMemory`.
    public func biometricUnlockKey() throws(PasscodeError) -> SecretBytes {
        guard let key = try biometricUnlock(needKey: true) else { throw PasscodeError.keyNotReleased }
        return key
    }

    private func biometricUnlock(needKey: Bool, enabledByStack: Bool = false) throws(PasscodeError) -> SecretBytes? {
        let now = try now()
        let outcome: Result<SecretBytes?, PasscodeError> = try write { () throws(PasscodeError) in
            var r = try biometricRefusalLocked(now: now, enabledByStack: enabledByStack)
            if r == .none && heldKey == nil && !isClosedLocked { heldKey = keyFromSessionKeyringLocked() }
            if r == .none && needKey && heldKey == nil {
                // Without a session keyring of its own the process keeps nothing across launches
                // (no @us fallback): say so, rather than "not in memory", so the host can tell.
                if options.sessionKeyring && !SessionKeyring.isAvailable { return .failure(.noSessionKeyring) }
                r = .keyNotInMemory
            }
            switch r {
            case .none: break
            case .passcodeNotUsedFor48Hours, .tooManyBiometricFailures, .resetRequired, .deviceRestarted, .noPasscode:
                dropKeyLocked()  // only the passcode may bring the key back
                return .failure(.passcodeRequired(r))
            default:
                return .failure(.passcodeRequired(r))
            }
            try update(LockState.self) { $0.unlock() }
            try update(BiometricState.self) { $0.failures = 0 }
            try logLocked(.unlockedByBiometrics, now: now)
            heldKey?.released = true
            if needKey { try markKeyUsedLocked() }
            return .success(heldKey?.key.copy())
        }
        return try outcome.get()
    }

    /// The host reports a failed biometric match (`passcode_biometric_failed`); returns how
    /// many failed since the last unlock. After 5 the passcode is needed.
    @discardableResult
    public func biometricFailed() throws(PasscodeError) -> Int64 {
        let now = try now()
        return try write { () throws(PasscodeError) in
            try logLocked(.biometricFailed, now: now)
            let failures = try update(BiometricState.self) { bio in
                bio.failures += 1
                return bio.failures
            }
            if KeyRule.dropsAfterBiometricFailures(failures) { dropKeyLocked() }
            return failures
        }
    }
}
