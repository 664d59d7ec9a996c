// Setting, verifying, changing, disabling, enabling and removing the passcode.
//
// Verify is write-ahead: the attempt is committed (synchronous=FULL) before the passcode is
// checked and cleared only after success, so killing the process never gives a free guess.
// The Argon2id work runs outside the handle lock and outside any database transaction.

extension PasscodeStore {
    // MARK: - The passcode row

    /// The stored passcode (`Storage.passcode`, checked as data), nil when none is set.
    func passcodeRowLocked() throws(PasscodeError) -> PasscodeRow? { try db.passcode() }

    // MARK: - Queries

    /// Whether a passcode is set (`passcode_is_set`).
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    public func isPasscodeSet() throws(PasscodeError) -> Bool {
        try cachedRead(get: { $0.answers.passcodeSet }, set: { $0.answers.passcodeSet = $1 }) { () throws(PasscodeError) in try passcodeRowLocked() != nil }
    }

    /// Whether the passcode lock is on: a passcode is set and the lock is enabled
    /// (`passcode_is_enabled`).
    public func isLockEnabled() throws(PasscodeError) -> Bool {
        try cachedRead(.lockEnabled) { () throws(PasscodeError) in try lockEnabledLocked() }
    }

    func lockEnabledLocked() throws(PasscodeError) -> Bool {
        try passcodeRowLocked() != nil ? flag(.lockEnabled) : false
    }

    /// The passcode length (`passcode_length`): the set passcode's; with none set, the length
    /// this handle chose (`setPasscodeLength`), else the default.
    public func passcodeLength() throws(PasscodeError) -> Int {
        // Also needed by the reset by email, which goes on while the MAC fails: then the file's
        // length (the passcode row's) may be the attacker's, and the default holds (-1 below).
        let stored: Int = try cachedRead(.length, .recover) { () throws(PasscodeError) in
            try macHoldsLocked() ? (try passcodeRowLocked()?.length ?? 0) : -1
        }
        if stored > 0 { return stored }
        if stored == 0, let chosen = lock.withLock({ connection.chosenLength }) { return chosen }
        return Int(Setting.passcodeLength.spec.defaultValue)
    }

    func lengthLocked() throws(PasscodeError) -> Int {
        if let row = try passcodeRowLocked() { return row.length }
        return connection.chosenLength ?? Int(Setting.passcodeLength.spec.defaultValue)
    }

    /// Chooses the length of the first passcode this handle sets; only while none is set
    /// (`passcode_set_length`). The choice is this handle's alone (in passcoded, the bus
    /// connection's) and is used by its next `setPasscode`: another handle, or another process
    /// of the same user, cannot choose a shorter passcode for the one the app sets. Everything
    /// that can refuse the change is checked before the host's hook is asked.
    public func setPasscodeLength(_ n: Int) throws(PasscodeError) {
        try checkAllowed(.passcodeLength, Int64(n))
        let old: Int64 = try read { () throws(PasscodeError) in
            if try passcodeRowLocked() != nil { throw PasscodeError.state("the length is fixed while a passcode is set") }
            return Int64(try lengthLocked())
        }
        if old != Int64(n) { try callSettingHook(Setting.passcodeLength.key, old: old, new: Int64(n)) }
        try read { () throws(PasscodeError) in
            if try passcodeRowLocked() != nil { throw PasscodeError.state("the length is fixed while a passcode is set") }
            connection.chosenLength = n
        }
    }

    /// Failures since the last successful unlock (`passcode_failed_attempts`).
    public func failedAttempts() throws(PasscodeError) -> Int {
        Int(try attempts().failures)
    }

    // MARK: - Set, change, remove

    /// Sets the first passcode and turns the lock on (`passcode_set`). Creates the store's data
    /// key, wrapped under the passcode, and returns it (released on this handle).
    @discardableResult
    public func setPasscode(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes {
        let length = try passcodeLength()
        try checkFormat(code, length: length)
        try checkStrength(code)
        if try isPasscodeSet() { throw PasscodeError.alreadySet }
        let key = SecretBytes.random(Sodium.keyBytes)
        let new = try newWrap(hashInput(code), dataKey: key, device: try deviceForNewPasscode())
        try callLifecycleHook(.set)
        let now = try now()
        let sessionWanted: Bool = try write { () throws(PasscodeError) in
            if try passcodeRowLocked() != nil { throw PasscodeError.alreadySet }
            try recordBindingLocked(new)
            try db.insertPasscode(verifier: new.wrap.encoded, length: length, setWallMs: now.wallMs)
            try db.deleteRecoveryWrap()
            try update(KeyState.self) { $0.handedOut = false }
            try putSetting(.lockEnabled, 1)
            try update(AttemptState.self) { $0.clearAttempts() }
            try update(BiometricState.self) { $0.passcodeEntered(now: now) }
            try update(LockState.self) { $0.reset() }  // set up again after a logout
            try logLocked(.passcodeSet, now: now)
            // No earlier passcode was proved: the rules start from their safe defaults, no
            // reset recipient set under an earlier passcode stays (PasscodeStore+Recipient.swift),
            // and the length this handle chose has been used.
            try restoreSafeDefaultsLocked(now: now)
            try dropResetRecipientLocked()
            connection.chosenLength = nil
            return try sessionKeyringWantedLocked()
        }
        retirePin(new.oldPin, device: new.binding?.device)
        recordProof(now, verifier: new.wrap.encoded)
        holdKey(key, session: new.session, sessionWanted: sessionWanted)
        flushLogAfterChange()  // the first passcode must not live in -wal alone (deleting it would take the lock off)
        return key
    }

    /// Proves the user for a weakening setting change (`passcode_authorize`): exactly a verify
    /// (counted write-ahead, lockout, repeats; a success also unlocks).
    public func authorize(_ code: SecretBytes) throws(PasscodeError) {
        _ = try verify(code)
    }

    /// Replaces the passcode after checking the current one (`passcode_change`). A wrong
    /// current passcode counts as a failed attempt; a weak new one is refused first, uncounted.
    public func changePasscode(current: SecretBytes, new: SecretBytes) throws(PasscodeError) {
        _ = try changePasscodeReturningKey(current: current, new: new)
    }

    /// `changePasscode` that returns the data key, which stays released on this handle
    /// (passcoded's ChangePasscodeKey, for the handle of a host in service mode).
    public func changePasscodeReturningKey(current: SecretBytes, new: SecretBytes) throws(PasscodeError) -> SecretBytes {
        let length = try passcodeLength()
        try checkFormat(current, length: length)
        try checkFormat(new, length: length)
        try checkStrength(new)
        let key = try verify(current)
        try replaceVerifiedPasscode(new, key: key)
        return key
    }

    /// Removes the passcode after checking it (`passcode_remove`): the lock goes off and
    /// every counter is cleared.
    public func removePasscode(current: SecretBytes) throws(PasscodeError) {
        try checkFormat(current, length: try passcodeLength())
        _ = try verify(current)
        try callLifecycleHook(.removed)
        let now = try now()
        let pin = try? currentSealed()
        try write { () throws(PasscodeError) in
            try checkStillProvedLocked()  // the passcode verified above, not one set since
            try removePasscodeLocked()
            try logLocked(.passcodeRemoved, now: now)
        }
        retirePin(pin)
        forgetWrongGuesses()
        flushLogAfterChange()
    }

    /// The passcode, its reset codes and every counter go. After a removal the user asked for
    /// nothing stays locked; after a logout the lock state says so until a new passcode is set.
    /// The data key goes with the passcode: every wrapped copy is deleted and this handle's wiped.
    func removePasscodeLocked(loggingOut: Bool = false) throws(PasscodeError) {
        dropKeyLocked()  // first: the session keyring's entry is named after the wrap
        try db.deletePasscode()
        try db.deleteRecoveryWrap()
        try db.deleteResetCodes()
        try putSetting(.biometricEnabled, 0)
        try update(AttemptState.self) { $0.clearAttempts() }
        try update(BiometricState.self) { $0.failures = 0 }
        try update(LockState.self) { loggingOut ? $0.logOut() : $0.reset() }
    }

    /// Turns the lock off after checking the passcode, keeping it stored (`passcode_disable`).
    /// Returns the data key, which stays wrapped under the passcode.
    @discardableResult
    public func disable(current: SecretBytes) throws(PasscodeError) -> SecretBytes {
        try checkFormat(current, length: try passcodeLength())
        let key = try verify(current)
        try changeSetting(.lockEnabled, to: 0)
        try write { () throws(PasscodeError) in try update(LockState.self) { $0.unlock() } }
        return key
    }

    /// Turns the lock on again with the stored passcode (`passcode_enable`).
    public func enable() throws(PasscodeError) {
        if try !isPasscodeSet() { throw PasscodeError.noPasscode }
        try changeSetting(.lockEnabled, to: 1)
    }

    // MARK: - Verify

    /// Checks `code` against the stored passcode (`passcode_verify`) and returns the data key,
    /// which stays released on this handle. Throws `wrongPasscode`, `lockedOut`, `resetRequired`,
    /// `loggedOut`, `noPasscode` or a store error. `handingOutKey` (`passcode_unlock_key`) records,
    /// in the success's own transaction, that the host has the key.
    @discardableResult
    public func verify(_ code: SecretBytes, handingOutKey: Bool = false) throws(PasscodeError) -> SecretBytes {
        let fingerprint = Sodium.mac(code, key: fingerprintKey)
        // 0. Bound to a TPM: the TPM must be the store's and not in its own lockout (nothing counted).
        let device = try deviceForAttempt()
        let start = try now()
        // 1. Write-ahead: count the attempt durably (bound: in the TPM's counter too, in the same
        // transaction), or refuse without looking at the passcode.
        // 1b. The record reaches the main database file before the passcode is checked, so that
        // deleting the -wal and -shm files (or killing this process) never takes an attempt back.
        // Another connection holding the log open for longer than the busy timeout makes that
        // impossible: then the attempt stays counted and the passcode is not checked.
        // Both under one hold of the writers' lock (Database.exclusive): no other process writes
        // the file in between, even one that goes on with a log of its own.
        let begun: AttemptStart = try exclusively { () throws(PasscodeError) in
            let begun: AttemptStart = try write { () throws(PasscodeError) in try beginAttemptLocked(code, fingerprint: fingerprint, now: start, device: device) }
            if case .proceed = begun, try !emptyLogIntoMainFile() {
                throw PasscodeError.busy("another connection holds the store's write-ahead log open: the attempt is counted, but the passcode was not checked; try again")
            }
            return begun
        }
        let seq: Int64, row: PasscodeRow, verifier: Verifier, pending: [Int64]
        switch begun {
        case .blocked(let error):
            throw droppingKey(error)
        case .loggedOut:
            hooks.logout?(LogoutReason.maxFailures.rawValue)
            throw droppingKey(.loggedOut)
        case .repeatOfWrongGuess: throw PasscodeError.wrongPasscode
        case .proceed(let s, let r, let v, let e): (seq, row, verifier, pending) = (s, r, v, e)
        }
        // 2. The expensive check, with no lock held: one Argon2id evaluation opens the wrap (or,
        // once, checks a hash from before schema v4; then a second makes the wrap that replaces it).
        let input = hashInput(code)
        var key: SecretBytes?
        var session: SessionEntry?  // the KEK of the wrap the file has afterwards
        var replacement: (wrap: KeyWrap, kek: SecretBytes)?
        switch verifier {
        case .wrapped(let wrap):
            if let opened = try wrap.open(input, device: device) {
                key = opened.key
                session = SessionEntry(name: wrap.sessionName, kek: opened.kek)
                if wrap.cost != options.cost && wrap.tpm?.pinIndex == nil {  // a PIN_FAIL index stays with its wrap
                    replacement = try? KeyWrap.makeReturningKEK(input, dataKey: opened.key, cost: options.cost, device: device)
                }
            }
        case .legacy(let hash):
            if Sodium.verify(input, hash: hash) {
                let fresh = SecretBytes.random(Sodium.keyBytes)
                replacement = try KeyWrap.makeReturningKEK(input, dataKey: fresh, cost: options.cost, device: device)
                key = fresh
            }
        }
        // 3. Record the answer, at the time read (and range-checked) once at the start: a clock
        // that goes out of range during the Argon2id evaluation cannot leave the attempt counted
        // with a "nothing changed" CLOCK_OUT_OF_RANGE, so a correct passcode is never a failure.
        let end = start
        if var key {
            let (replaced, sessionWanted) = try write { () throws(PasscodeError) in
                (try finishSuccessLocked(seq: seq, now: end, old: row.text, new: replacement?.wrap.encoded, pendingEvents: pending,
                                         handingOutKey: handingOutKey),
                 try sessionKeyringWantedLocked())
            }
            if let replacement {
                // Another process may have replaced the same verifier first: then its wrap is
                // the one in the file, and no KEK of ours opens it.
                session = replaced ? SessionEntry(name: replacement.wrap.sessionName, kek: replacement.kek) : nil
            }
            if case .legacy = verifier {
                if replaced {
                    _ = try? lock.withLock { () throws(PasscodeError) in try db.checkpointTruncate() }  // the old hash out of the log too
                } else {
                    (key, session) = try keyAfterLostMigration(input, device: device)
                }
            }
            if let device, case .wrapped(let wrap) = verifier, let pin = wrap.tpm?.pinIndex {
                restoreOutsideGuesses(device, pin: pin)
            }
            recordProof(end, verifier: (replaced ? replacement?.wrap.encoded : nil) ?? row.text)
            holdKey(key, useRecorded: handingOutKey, session: session, sessionWanted: sessionWanted)
            return key
        }
        let outcome: FailureOutcome = try write { () throws(PasscodeError) in try finishFailureLocked(fingerprint: fingerprint, hash: row.text, now: end) }
        switch outcome {
        case .wrong: throw PasscodeError.wrongPasscode
        case .resetRequired:
            throw droppingKey(.resetRequired)
        case .loggedOut:
            if case .wrapped(let wrap) = verifier { retirePin(wrap.tpm, device: device) }  // the passcode went
            hooks.logout?(LogoutReason.maxFailures.rawValue)
            throw droppingKey(.loggedOut)
        }
    }

    /// `error`, after wiping this handle's key when the rule says a refusal of that kind takes it.
    private func droppingKey(_ error: PasscodeError) -> PasscodeError {
        if KeyRule.drops(after: error) { lock.withLock { dropKeyLocked() } }
        return error
    }

    /// Another process migrated the same old hash at the same moment and its wrap won: the key
    /// is the one in that wrap (one more Argon2id evaluation, only in this race).
    private func keyAfterLostMigration(_ input: SecretBytes, device: TPMDevice?) throws(PasscodeError) -> (SecretBytes, SessionEntry) {
        let text = try read(.check, { () throws(PasscodeError) in try passcodeRowLocked()?.text })
        guard let text, case .wrapped(let wrap) = try Verifier.parse(text, limit: options.cost),
              let opened = try wrap.open(input, device: device) else {
            throw PasscodeError.busy("the passcode changed in another process during this call; try again")
        }
        return (opened.key, SessionEntry(name: wrap.sessionName, kek: opened.kek))
    }

    enum AttemptStart {
        /// `events`: what this attempt logged write-ahead (a failure, a lockout), undone on success.
        case proceed(seq: Int64, row: PasscodeRow, verifier: Verifier, events: [Int64])
        case repeatOfWrongGuess
        case blocked(PasscodeError)
        case loggedOut
    }

    enum FailureOutcome { case wrong, resetRequired, loggedOut }

    private func beginAttemptLocked(_ code: SecretBytes, fingerprint: [UInt8], now: ClockReading, device: TPMDevice?) throws(PasscodeError) -> AttemptStart {
        guard let row = try passcodeRowLocked() else { throw PasscodeError.noPasscode }
        // A malformed entry is not an attempt: refused before anything is counted or checked.
        try checkFormat(code, length: row.length)
        // Nor is a damaged verifier, or one asking for more Argon2id work than allowed.
        let verifier = try Verifier.parse(row.text, limit: options.cost)
        // The whole policy is read (and range-checked) before anything is written: a damaged
        // schedule or action refuses the attempt as CORRUPT instead of counting it.
        let schedule = try scheduleLocked()
        let action = try maxFailureActionLocked()
        var attempts = try load(AttemptState.self)
        let before = attempts
        // The verifier read again in this transaction: its sealed object is the one the TPM loaded
        // (cached when unchanged; a verifier changed since is loaded, which checks that its policy
        // names its PIN_FAIL index, before any index is read or anything counted).
        var pinCounts: (pin: UInt32, counts: (count: UInt32, limit: UInt32))?
        if let device, case .wrapped(let wrap) = verifier, let sealed = wrap.tpm {
            _ = try device.load(sealed)
            if let pin = sealed.pinIndex, let counts = try device.pinCounts(pin) { pinCounts = (pin, counts) }  // the one read per attempt
        }
        // The passcode's PIN_FAIL index has counted its limit: the TPM refuses even the right
        // passcode, so nothing more is counted; a reset is required (logged once).
        if let counts = pinCounts?.counts, counts.count >= counts.limit {
            if !attempts.resetRequired {
                attempts.resetRequired = true
                try save(attempts, over: before)
                try logLocked(.maxFailuresReached, "the TPM's guess limit is used up", now: now)
            }
            return .blocked(.tpmGuessLimit)
        }
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
        if isRecentWrongGuess(fingerprint, hash: row.text, now: now) {
            try save(attempts, over: before)
            return .repeatOfWrongGuess
        }
        // Bound: the TPM counts the attempt too; a file behind its counter is a restored copy.
        if let device {
            switch try countAttemptInTPMLocked(device) {
            case .inStep: break
            case .oneLost:  // an attempt killed after the TPM counted it: a failure, as in the TPM
                _ = attempts.beginAttempt()
                try logLocked(.failedAttempt, now: now)
            case .rolledBack(let file, let tpm):
                attempts.resetRequired = true
                try save(attempts, over: before)
                try logLocked(.tpmRollback, "file \(file) tpm \(tpm)", now: now)
                return .blocked(.tpmRollback)
            }
            // Guesses another process made on the passcode's PIN_FAIL index cost the store as
            // many attempts (counted and logged before this one is checked).
            if case let (pin, counts)? = pinCounts {
                let outside = try chargeOutsideGuessesLocked(device, pin: pin, counts: counts, failures: attempts.failures)
                if outside > 0 {
                    for _ in 0..<outside { _ = attempts.beginAttempt() }
                    try logLocked(.tamperDetected, "\(outside) guesses on the TPM's guess-limit index came from outside the app", now: now)
                }
            }
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
        return .proceed(seq: seq, row: row, verifier: verifier, events: events)
    }

    /// Returns whether `new` replaced `old` (false when none was given or another process changed it).
    private func finishSuccessLocked(seq: Int64, now: ClockReading, old: String, new: String?, pendingEvents: [Int64],
                                     handingOutKey: Bool) throws(PasscodeError) -> Bool {
        for id in pendingEvents { try db.deleteEvent(id: id) }
        try logLocked(.unlockedByPasscode, now: now)
        try update(AttemptState.self) { $0.succeeded(seq: seq) }
        try update(LockState.self) { lock in
            lock.unlock()
            lock.launchNeedsPasscode = false
        }
        try update(BiometricState.self) { $0.passcodeEntered(now: now) }
        if handingOutKey { try update(KeyState.self) { $0.handedOut = true } }
        guard let new else { return false }
        return try db.updateVerifier(new, ifStill: old)
    }

    private func finishFailureLocked(fingerprint: [UInt8], hash: String, now: ClockReading) throws(PasscodeError) -> FailureOutcome {
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
    public func lockoutRemainingSeconds() throws(PasscodeError) -> Int64 {
        let now = try now()
        let ms = try attempts().lockoutRemaining(now: now)
        return (ms + 999) / 1000
    }

    /// Whether the maximum number of failures requires a reset (`passcode_is_reset_required`).
    public func isResetRequired() throws(PasscodeError) -> Bool {
        try attempts().resetRequired
    }

    /// Whether a lockout pending from before a reboot is to start again in full now (a read:
    /// until `recordLockoutRestart`, or an attempt, records it, each reading says the whole delay).
    public func lockoutRestartDue() throws(PasscodeError) -> Bool {
        let now = try now()
        return try attempts().lockoutRestartDue(now: now)
    }

    /// Records that a lockout pending from before a reboot starts again now, in full, as an
    /// attempt would (`beginAttempt`): from then on it counts down. Without it, a login screen
    /// that asks for no passcode while locked out (pam_passcode) would wait forever after a
    /// reboot, every reading answering the whole delay again. Nothing is counted; no-op when none
    /// is due.
    public func recordLockoutRestart() throws(PasscodeError) {
        let now = try now()
        try write { () throws(PasscodeError) in
            var attempts = try load(AttemptState.self)
            let before = attempts
            guard attempts.lockoutRestartDue(now: now) else { return }
            _ = attempts.lockoutRemaining(now: now, restart: true)
            try save(attempts, over: before)
        }
    }

    /// What the next wrong passcodes lead to, from the failures counted now (a login screen's "3
    /// wrong answers left before a 5-minute wait"): nil when a reset is already required or no
    /// further failure ever delays (`passcode_user_lockout`).
    public func nextLockout() throws(PasscodeError) -> NextLockout? {
        try read { () throws(PasscodeError) -> NextLockout? in
            let schedule = try scheduleLocked()
            let action = try maxFailureActionLocked()
            let attempts = try load(AttemptState.self)
            guard !attempts.resetRequired, let (left, step) = schedule.nextStep(afterFailures: Int(clamping: attempts.failures)) else {
                return nil
            }
            switch step {
            case .none: return nil
            case .delay(let seconds): return NextLockout(failuresLeft: left, delaySeconds: seconds, requiresReset: false)
            case .maximum:
                // The maximum's action: a reset, or (action none) the schedule's longest delay.
                return action == .none ? NextLockout(failuresLeft: left, delaySeconds: schedule.longestDelay, requiresReset: false)
                    : NextLockout(failuresLeft: left, delaySeconds: 0, requiresReset: true)
            }
        }
    }

    /// The attempt counters as stored; the queries above compute from them.
    private func attempts() throws(PasscodeError) -> AttemptState {
        try cachedRead(.attempts) { () throws(PasscodeError) in try load(AttemptState.self) }
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

    func checkFormat(_ code: SecretBytes, length: Int) throws(PasscodeError) {
        guard code.count == length else {
            throw PasscodeError.format("the passcode must have exactly \(length) digits")
        }
        guard code.isAllDigits else { throw PasscodeError.format("the passcode may contain only the digits 0-9") }
    }

    func checkStrength(_ code: SecretBytes) throws(PasscodeError) {
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

/// What the next wrong passcodes lead to (`PasscodeStore.nextLockout`).
public struct NextLockout: Equatable, Sendable {
    /// Wrong passcodes until the step (1: the next one).
    public var failuresLeft: Int
    /// The delay it starts, in seconds (0 when it requires a reset).
    public var delaySeconds: Int64
    /// It requires a reset instead of a delay (the schedule's maximum).
    public var requiresReset: Bool
}
