// Setting, verifying, changing, disabling, enabling and removing the passcode.
//
// Verify is write-ahead: the attempt is committed (synchronous=FULL) before the passcode is
// checked and cleared only after success, so killing the process never gives a free guess.
// The Argon2id work runs outside the handle lock and outside any database transaction.

extension PasscodeStore {
    // MARK: - Queries

    /// Whether a passcode is set (`passcode_is_set`).
    public func isPasscodeSet() throws -> Bool {
        try readOne { try db.scalar("SELECT count(*) FROM passcode")?.int ?? 0 > 0 }
    }

    /// Whether the passcode lock is on: a passcode is set and the lock is enabled
    /// (`passcode_is_enabled`).
    public func isLockEnabled() throws -> Bool {
        try read { try lockEnabledLocked() }
    }

    func lockEnabledLocked() throws -> Bool {
        let set = try db.scalar("SELECT count(*) FROM passcode")?.int ?? 0 > 0
        return try set && setting(SettingKey.lockEnabled, default: 1) != 0
    }

    /// The passcode length: the set passcode's, else the configured one (`passcode_length`).
    public func passcodeLength() throws -> Int {
        try read { try lengthLocked() }
    }

    func lengthLocked() throws -> Int {
        if let n = try db.scalar("SELECT length FROM passcode")?.int { return Int(n) }
        return Int(try setting(SettingKey.length, default: Int64(PasscodePolicy.defaultLength)))
    }

    /// Sets the length new passcodes must have; only while none is set (`passcode_set_length`).
    public func setPasscodeLength(_ n: Int) throws {
        guard n >= PasscodePolicy.minLength && n <= PasscodePolicy.maxLength else {
            throw PasscodeError.invalidSetting("the passcode length must be from \(PasscodePolicy.minLength) to \(PasscodePolicy.maxLength)")
        }
        try write {
            if try db.scalar("SELECT count(*) FROM passcode")?.int ?? 0 > 0 {
                throw PasscodeError.state("the length is fixed while a passcode is set")
            }
            try putSetting(SettingKey.length, .int(Int64(n)))
        }
    }

    /// Failures since the last successful unlock (`passcode_failed_attempts`).
    public func failedAttempts() throws -> Int {
        try read { Int(try failuresLocked()) }
    }

    func failuresLocked() throws -> Int64 {
        try max(0, state(StateKey.attemptSeq) - state(StateKey.clearedSeq))
    }

    // MARK: - Set, change, remove

    /// Sets the first passcode and turns the lock on (`passcode_set`).
    public func setPasscode(_ code: SecretBytes) throws {
        let length = try passcodeLength()
        try checkFormat(code, length: length)
        try checkStrength(code)
        let hash = try Sodium.hash(hashInput(code), cost: options.cost)
        let now = now()
        try write {
            if try db.scalar("SELECT count(*) FROM passcode")?.int ?? 0 > 0 { throw PasscodeError.alreadySet }
            try db.query("INSERT INTO passcode(id, hash, length, set_wall_ms) VALUES(1, ?, ?, ?)",
                         [.text(hash), .int(Int64(length)), .int(now.wallMs)])
            try putSetting(SettingKey.lockEnabled, .int(1))
            try clearAttemptStateLocked()
            try putState(StateKey.lastPasscodeBootID, Int64(bitPattern: now.bootID))
            try putState(StateKey.lastPasscodeMs, now.bootMs)
        }
    }

    /// Replaces the passcode after checking the current one (`passcode_change`). A wrong
    /// current passcode counts as a failed attempt; a weak new one is refused first, uncounted.
    public func changePasscode(current: SecretBytes, new: SecretBytes) throws {
        let length = try passcodeLength()
        try checkFormat(current, length: length)
        try checkFormat(new, length: length)
        try checkStrength(new)
        try verify(current)
        try replaceVerifiedPasscode(new)
    }

    /// Removes the passcode after checking it (`passcode_remove`): the lock goes off and
    /// every counter is cleared.
    public func removePasscode(current: SecretBytes) throws {
        try checkFormat(current, length: try passcodeLength())
        try verify(current)
        try write { try removePasscodeLocked() }
        forgetWrongGuesses()
    }

    func removePasscodeLocked() throws {
        try db.query("DELETE FROM passcode")
        try db.query("DELETE FROM reset_code")
        try putSetting(SettingKey.biometricEnabled, .int(0))
        try clearAttemptStateLocked()
        try putState(StateKey.locked, 0)
        try putState(StateKey.lockReason, 0)
        try putState(StateKey.backgroundMs, -1)
        try putState(StateKey.launchNeedsPasscode, 0)
    }

    /// Turns the lock off after checking the passcode, keeping it stored (`passcode_disable`).
    public func disable(current: SecretBytes) throws {
        try checkFormat(current, length: try passcodeLength())
        try verify(current)
        try changeSetting(SettingKey.lockEnabled, to: .int(0))
        try write {
            try putState(StateKey.locked, 0)
            try putState(StateKey.lockReason, 0)
        }
    }

    /// Turns the lock on again with the stored passcode (`passcode_enable`).
    public func enable() throws {
        if try !isPasscodeSet() { throw PasscodeError.noPasscode }
        try changeSetting(SettingKey.lockEnabled, to: .int(1))
    }

    // MARK: - Verify

    /// Checks `code` against the stored passcode (`passcode_verify`). Throws `wrongPasscode`,
    /// `lockedOut`, `resetRequired`, `loggedOut`, `noPasscode` or a store error.
    public func verify(_ code: SecretBytes) throws {
        let fingerprint = Sodium.mac(code, key: fingerprintKey)
        let start = now()
        // 1. Write-ahead: count the attempt durably, or refuse without looking at the passcode.
        let begun: AttemptStart = try write { try beginAttemptLocked(code, fingerprint: fingerprint, now: start) }
        let seq: Int64, hash: String
        switch begun {
        case .blocked(let error): throw error
        case .loggedOut:
            hooks.logout?(1)
            throw PasscodeError.loggedOut
        case .repeatOfWrongGuess: throw PasscodeError.wrongPasscode
        case .proceed(let s, let h): (seq, hash) = (s, h)
        }
        // 2. The expensive check, with no lock held.
        let input = hashInput(code)
        let ok = Sodium.verify(input, hash: hash)
        var upgraded: String?
        if ok && Sodium.needsRehash(hash, cost: options.cost) {
            upgraded = try? Sodium.hash(input, cost: options.cost)
        }
        // 3. Record the answer.
        let end = now()
        if ok {
            try write { try finishSuccessLocked(seq: seq, now: end, oldHash: hash, newHash: upgraded) }
            return
        }
        let outcome: FailureOutcome = try write { try finishFailureLocked(fingerprint: fingerprint, hash: hash, now: end) }
        switch outcome {
        case .wrong: throw PasscodeError.wrongPasscode
        case .resetRequired: throw PasscodeError.resetRequired
        case .loggedOut:
            hooks.logout?(1)
            throw PasscodeError.loggedOut
        }
    }

    enum AttemptStart {
        case proceed(seq: Int64, hash: String)
        case repeatOfWrongGuess
        case blocked(PasscodeError)
        case loggedOut
    }

    enum FailureOutcome { case wrong, resetRequired, loggedOut }

    private func beginAttemptLocked(_ code: SecretBytes, fingerprint: [UInt8], now: ClockReading) throws -> AttemptStart {
        guard let row = try db.query("SELECT hash, length FROM passcode").first, let hash = row[0].text else {
            throw PasscodeError.noPasscode
        }
        // A malformed entry is not an attempt: refused before anything is counted or checked.
        try checkFormat(code, length: Int(row[1].int ?? 0))
        if try state(StateKey.resetRequired) != 0 {
            if try maxFailureActionLocked() == .forcedLogout {
                try removePasscodeLocked()
                return .loggedOut
            }
            return .blocked(.resetRequired)
        }
        let remaining = try lockoutRemainingMsLocked(now: now, persist: true)
        if remaining > 0 { return .blocked(.lockedOut(seconds: (remaining + 999) / 1000)) }
        if isRecentWrongGuess(fingerprint, hash: hash, now: now) { return .repeatOfWrongGuess }

        let seq = try state(StateKey.attemptSeq) + 1
        try putState(StateKey.attemptSeq, seq)
        let failures = seq - (try state(StateKey.clearedSeq))
        // The lockout this attempt earns if it fails is set now; success lifts it.
        switch try scheduleLocked().step(afterFailures: Int(failures)) {
        case .none: break
        case .delay(let seconds): try startLockoutLocked(seconds: seconds, now: now)
        case .maximum:
            switch try maxFailureActionLocked() {
            case .requireReset, .forcedLogout: try putState(StateKey.resetRequired, 1)
            case .none: try startLockoutLocked(seconds: try scheduleLocked().longestDelay, now: now)
            }
        }
        return .proceed(seq: seq, hash: hash)
    }

    private func finishSuccessLocked(seq: Int64, now: ClockReading, oldHash: String, newHash: String?) throws {
        let cleared = max(try state(StateKey.clearedSeq), seq)
        try putState(StateKey.clearedSeq, cleared)
        if try state(StateKey.attemptSeq) - cleared <= 0 {
            try putState(StateKey.lockoutDurationMs, 0)
            try putState(StateKey.resetRequired, 0)
        }
        try putState(StateKey.locked, 0)
        try putState(StateKey.lockReason, 0)
        try putState(StateKey.lastPasscodeBootID, Int64(bitPattern: now.bootID))
        try putState(StateKey.lastPasscodeMs, now.bootMs)
        try putState(StateKey.biometricFailures, 0)
        try putState(StateKey.launchNeedsPasscode, 0)
        if let newHash {
            try db.query("UPDATE passcode SET hash = ? WHERE id = 1 AND hash = ?", [.text(newHash), .text(oldHash)])
        }
    }

    private func finishFailureLocked(fingerprint: [UInt8], hash: String, now: ClockReading) throws -> FailureOutcome {
        rememberWrongGuess(fingerprint, hash: hash, now: now)
        guard try state(StateKey.resetRequired) != 0 else { return .wrong }
        if try maxFailureActionLocked() == .forcedLogout {
            try removePasscodeLocked()
            return .loggedOut
        }
        return .resetRequired
    }

    // MARK: - Lockout state

    /// Milliseconds left in the current lockout. A reboot (new boot id) starts a pending
    /// lockout again in full; a clock reading before the start does the same, so a lockout is
    /// never shortened and never longer than its duration.
    func lockoutRemainingMsLocked(now: ClockReading, persist: Bool) throws -> Int64 {
        let duration = try state(StateKey.lockoutDurationMs)
        guard duration > 0 else { return 0 }
        let bootID = UInt64(bitPattern: try state(StateKey.lockoutBootID))
        let start = try state(StateKey.lockoutStartMs)
        if bootID != now.bootID || now.bootMs < start {
            if persist {
                try putState(StateKey.lockoutBootID, Int64(bitPattern: now.bootID))
                try putState(StateKey.lockoutStartMs, now.bootMs)
            }
            return duration
        }
        let remaining = start + duration - now.bootMs
        if remaining <= 0 {
            if persist { try putState(StateKey.lockoutDurationMs, 0) }
            return 0
        }
        return remaining
    }

    func startLockoutLocked(seconds: Int64, now: ClockReading) throws {
        try putState(StateKey.lockoutBootID, Int64(bitPattern: now.bootID))
        try putState(StateKey.lockoutStartMs, now.bootMs)
        try putState(StateKey.lockoutDurationMs, seconds * 1000)
    }

    func clearAttemptStateLocked() throws {
        try putState(StateKey.clearedSeq, try state(StateKey.attemptSeq))
        try putState(StateKey.lockoutDurationMs, 0)
        try putState(StateKey.resetRequired, 0)
        try putState(StateKey.biometricFailures, 0)
    }

    /// Seconds left in the current lockout, 0 when none (`passcode_lockout_remaining`).
    public func lockoutRemainingSeconds() throws -> Int64 {
        let now = now()
        let ms = try read { try lockoutRemainingMsLocked(now: now, persist: false) }
        return (ms + 999) / 1000
    }

    /// Whether the maximum number of failures requires a reset (`passcode_is_reset_required`).
    public func isResetRequired() throws -> Bool {
        try read { try state(StateKey.resetRequired) != 0 }
    }

    // MARK: - Repeated wrong guesses (memory only)

    private static let repeatWindowMs: Int64 = 5 * 60 * 1000
    private static let repeatMemory = 5

    private func isRecentWrongGuess(_ fp: [UInt8], hash: String, now: ClockReading) -> Bool {
        let tagged = Sodium.macOf(fp, hash: hash, key: fingerprintKey)
        return recentWrongGuesses.contains {
            now.bootMs - $0.bootMs < PasscodeStore.repeatWindowMs && now.bootMs >= $0.bootMs
                && Sodium.constantTimeEqual($0.fingerprint, tagged)
        }
    }

    private func rememberWrongGuess(_ fp: [UInt8], hash: String, now: ClockReading) {
        recentWrongGuesses.removeAll { now.bootMs - $0.bootMs >= PasscodeStore.repeatWindowMs || now.bootMs < $0.bootMs }
        recentWrongGuesses.append((Sodium.macOf(fp, hash: hash, key: fingerprintKey), now.bootMs))
        if recentWrongGuesses.count > PasscodeStore.repeatMemory { recentWrongGuesses.removeFirst() }
    }

    func forgetWrongGuesses() {
        lock.withLock { recentWrongGuesses.removeAll() }
    }

    // MARK: - Input checks

    func checkFormat(_ code: SecretBytes, length: Int) throws {
        guard code.count == length else {
            throw PasscodeError.format("the passcode must have exactly \(length) digits")
        }
        guard code.isAllDigits else { throw PasscodeError.format("the passcode may contain only the digits 0-9") }
    }

    func checkStrength(_ code: SecretBytes) throws {
        if options.allowWeak { return }
        var digits = code.digitValues()
        defer { Sodium.wipe(&digits) }
        if let why = PasscodePolicy.weakness(digits) { throw PasscodeError.weakPasscode(why) }
    }

    /// What Argon2id hashes: the digits, or with a pepper their keyed BLAKE2b.
    func hashInput(_ code: SecretBytes) -> SecretBytes {
        guard let pepper = options.pepper else { return code }
        return Sodium.keyedHash(code, key: pepper)
    }
}
