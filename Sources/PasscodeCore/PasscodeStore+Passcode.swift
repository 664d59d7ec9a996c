// Setting, verifying, changing, disabling, enabling and removing the passcode.
//
// Verify is write-ahead: the attempt is committed (synchronous=FULL) before the passcode is
// checked and cleared only after success, so killing the process never gives a free guess.
// The Argon2id work runs outside the handle lock and outside any database transaction.

extension PasscodeStore {
    // MARK: - The passcode row

    /// The stored passcode, checked as data: a length outside 4-12 or an empty hash is damage.
    struct PasscodeRow {
        let hash: String
        let length: Int
    }

    func passcodeRowLocked() throws -> PasscodeRow? {
        guard let row = try db.query("SELECT hash, length FROM passcode").first else { return nil }
        guard let hash = row[0].text, !hash.isEmpty, hash.utf8.count < Sodium.hashStringBytes,
              let n = row[1].int, (Int64(PasscodePolicy.minLength)...Int64(PasscodePolicy.maxLength)).contains(n) else {
            throw PasscodeError.corrupt("the store's passcode row is damaged or out of range")
        }
        return PasscodeRow(hash: hash, length: Int(n))
    }

    // MARK: - Queries

    /// Whether a passcode is set (`passcode_is_set`).
    public func isPasscodeSet() throws -> Bool {
        try readOne { try passcodeRowLocked() != nil }
    }

    /// Whether the passcode lock is on: a passcode is set and the lock is enabled
    /// (`passcode_is_enabled`).
    public func isLockEnabled() throws -> Bool {
        try read { try lockEnabledLocked() }
    }

    func lockEnabledLocked() throws -> Bool {
        try passcodeRowLocked() != nil && flag(.lockEnabled)
    }

    /// The passcode length: the set passcode's, else the configured one (`passcode_length`).
    public func passcodeLength() throws -> Int {
        try read(.recover) { try lengthLocked() }  // also needed by the reset by email
    }

    func lengthLocked() throws -> Int {
        if let row = try passcodeRowLocked() { return row.length }
        return Int(try value(.passcodeLength))
    }

    /// Sets the length new passcodes must have; only while none is set (`passcode_set_length`).
    /// Everything that can refuse the change is checked before the host's hook is asked.
    public func setPasscodeLength(_ n: Int) throws {
        try checkAllowed(.passcodeLength, Int64(n))
        let old: Int64 = try read {
            if try passcodeRowLocked() != nil { throw PasscodeError.state("the length is fixed while a passcode is set") }
            return try value(.passcodeLength)
        }
        if old != Int64(n) { try callSettingHook(Setting.passcodeLength.key, old: old, new: Int64(n)) }
        try write {
            if try passcodeRowLocked() != nil { throw PasscodeError.state("the length is fixed while a passcode is set") }
            try putSetting(.passcodeLength, Int64(n))
        }
    }

    /// Failures since the last successful unlock (`passcode_failed_attempts`).
    public func failedAttempts() throws -> Int {
        try read { Int(try load(AttemptState.self).failures) }
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
            if try passcodeRowLocked() != nil { throw PasscodeError.alreadySet }
            try db.query("INSERT INTO passcode(id, hash, length, set_wall_ms) VALUES(1, ?, ?, ?)",
                         [.text(hash), .int(Int64(length)), .int(now.wallMs)])
            try putSetting(.lockEnabled, 1)
            try update(AttemptState.self) { $0.clearAttempts() }
            try update(BiometricState.self) { $0.passcodeEntered(now: now) }
            try update(LockState.self) { $0.reset() }  // set up again after a logout
            try logLocked(.passcodeSet, now: now)
        }
        recordProof(now)
    }

    /// Proves the user for a weakening setting change (`passcode_authorize`): exactly a verify
    /// (counted write-ahead, lockout, repeats; a success also unlocks).
    public func authorize(_ code: SecretBytes) throws {
        try verify(code)
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
        let now = now()
        try write {
            try removePasscodeLocked()
            try logLocked(.passcodeRemoved, now: now)
        }
        forgetWrongGuesses()
    }

    /// The passcode, its reset codes and every counter go. After a removal the user asked for
    /// nothing stays locked; after a logout the lock state says so until a new passcode is set.
    func removePasscodeLocked(loggingOut: Bool = false) throws {
        try db.query("DELETE FROM passcode")
        try db.query("DELETE FROM reset_code")
        try putSetting(.biometricEnabled, 0)
        try update(AttemptState.self) { $0.clearAttempts() }
        try update(BiometricState.self) { $0.failures = 0 }
        try update(LockState.self) { loggingOut ? $0.logOut() : $0.reset() }
    }

    /// Turns the lock off after checking the passcode, keeping it stored (`passcode_disable`).
    public func disable(current: SecretBytes) throws {
        try checkFormat(current, length: try passcodeLength())
        try verify(current)
        try changeSetting(.lockEnabled, to: 0)
        try write { try update(LockState.self) { $0.unlock() } }
    }

    /// Turns the lock on again with the stored passcode (`passcode_enable`).
    public func enable() throws {
        if try !isPasscodeSet() { throw PasscodeError.noPasscode }
        try changeSetting(.lockEnabled, to: 1)
    }

    // MARK: - Verify

    /// Checks `code` against the stored passcode (`passcode_verify`). Throws `wrongPasscode`,
    /// `lockedOut`, `resetRequired`, `loggedOut`, `noPasscode` or a store error.
    public func verify(_ code: SecretBytes) throws {
        let fingerprint = Sodium.mac(code, key: fingerprintKey)
        let start = now()
        // 1. Write-ahead: count the attempt durably, or refuse without looking at the passcode.
        let begun: AttemptStart = try write { try beginAttemptLocked(code, fingerprint: fingerprint, now: start) }
        let seq: Int64, hash: String, pending: [Int64]
        switch begun {
        case .blocked(let error): throw error
        case .loggedOut:
            hooks.logout?(LogoutReason.maxFailures.rawValue)
            throw PasscodeError.loggedOut
        case .repeatOfWrongGuess: throw PasscodeError.wrongPasscode
        case .proceed(let s, let h, let e): (seq, hash, pending) = (s, h, e)
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
            try write { try finishSuccessLocked(seq: seq, now: end, oldHash: hash, newHash: upgraded, pendingEvents: pending) }
            recordProof(end)
            return
        }
        let outcome: FailureOutcome = try write { try finishFailureLocked(fingerprint: fingerprint, hash: hash, now: end) }
        switch outcome {
        case .wrong: throw PasscodeError.wrongPasscode
        case .resetRequired: throw PasscodeError.resetRequired
        case .loggedOut:
            hooks.logout?(LogoutReason.maxFailures.rawValue)
            throw PasscodeError.loggedOut
        }
    }

    enum AttemptStart {
        /// `events`: what this attempt logged write-ahead (a failure, a lockout), undone on success.
        case proceed(seq: Int64, hash: String, events: [Int64])
        case repeatOfWrongGuess
        case blocked(PasscodeError)
        case loggedOut
    }

    enum FailureOutcome { case wrong, resetRequired, loggedOut }

    private func beginAttemptLocked(_ code: SecretBytes, fingerprint: [UInt8], now: ClockReading) throws -> AttemptStart {
        guard let row = try passcodeRowLocked() else { throw PasscodeError.noPasscode }
        // A malformed entry is not an attempt: refused before anything is counted or checked.
        try checkFormat(code, length: row.length)
        // The whole policy is read (and range-checked) before anything is written: a damaged
        // schedule or action refuses the attempt as CORRUPT instead of counting it.
        let schedule = try scheduleLocked()
        let action = try maxFailureActionLocked()
        var attempts = try load(AttemptState.self)
        let before = attempts
        if attempts.resetRequired {
            if action == .forcedLogout {
                try removePasscodeLocked(loggingOut: true)
                return .loggedOut
            }
            return .blocked(.resetRequired)
        }
        let remaining = attempts.lockoutRemaining(now: now, restart: true)
        if remaining > 0 {
            try save(attempts, over: before)
            return .blocked(.lockedOut(seconds: (remaining + 999) / 1000))
        }
        if isRecentWrongGuess(fingerprint, hash: row.hash, now: now) {
            try save(attempts, over: before)
            return .repeatOfWrongGuess
        }
        let seq = attempts.beginAttempt()
        // The attempt is logged as a failure now, with the lockout it earns if it fails; a
        // success takes both back (the counter and the log agree after any kill).
        var events = [try logLocked(.failedAttempt, now: now)]
        switch schedule.step(afterFailures: Int(clamping: attempts.failures)) {
        case .none: break
        case .delay(let seconds):
            attempts.startLockout(ms: seconds * 1000, now: now)
            events.append(try logLocked(.lockoutStarted, String(seconds), now: now))
        case .maximum:
            events.append(try logLocked(.maxFailuresReached, now: now))
            switch action {
            case .requireReset, .forcedLogout: attempts.resetRequired = true
            case .none:
                attempts.startLockout(ms: schedule.longestDelay * 1000, now: now)
                events.append(try logLocked(.lockoutStarted, String(schedule.longestDelay), now: now))
            }
        }
        try save(attempts, over: before)
        return .proceed(seq: seq, hash: row.hash, events: events)
    }

    private func finishSuccessLocked(seq: Int64, now: ClockReading, oldHash: String, newHash: String?, pendingEvents: [Int64]) throws {
        for id in pendingEvents { try db.query("DELETE FROM event WHERE id = ?", [.int(id)]) }
        try logLocked(.unlockedByPasscode, now: now)
        try update(AttemptState.self) { $0.succeeded(seq: seq) }
        try update(LockState.self) { lock in
            lock.unlock()
            lock.launchNeedsPasscode = false
        }
        try update(BiometricState.self) { $0.passcodeEntered(now: now) }
        if let newHash {
            try db.query("UPDATE passcode SET hash = ? WHERE id = 1 AND hash = ?", [.text(newHash), .text(oldHash)])
        }
    }

    private func finishFailureLocked(fingerprint: [UInt8], hash: String, now: ClockReading) throws -> FailureOutcome {
        rememberWrongGuess(fingerprint, hash: hash, now: now)
        guard try load(AttemptState.self).resetRequired else { return .wrong }
        if try maxFailureActionLocked() == .forcedLogout {
            try removePasscodeLocked(loggingOut: true)
            return .loggedOut
        }
        return .resetRequired
    }

    // MARK: - Lockout state

    /// Seconds left in the current lockout, 0 when none (`passcode_lockout_remaining`).
    public func lockoutRemainingSeconds() throws -> Int64 {
        let now = now()
        let ms = try read { try load(AttemptState.self).lockoutRemaining(now: now) }
        return (ms + 999) / 1000
    }

    /// Whether the maximum number of failures requires a reset (`passcode_is_reset_required`).
    public func isResetRequired() throws -> Bool {
        try read { try load(AttemptState.self).resetRequired }
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
