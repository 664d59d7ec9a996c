// Reset codes sent by email, and "forgot passcode".
//
// A reset code is random digits from libsodium, stored only as a salted keyed BLAKE2b hash
// (with the pepper, when there is one) and handed once to the host's delivery callback.
// Codes expire, work once, are discarded after 5 wrong tries, and requests are rate-limited.
// Reset-code tries never count against the passcode lockout, and a lockout never blocks them.

extension PasscodeStore {
    static let resetCodeMaxTries: Int64 = 5
    static let dayMs: Int64 = 86_400_000

    /// Makes a new reset code, replacing any earlier one, and hands it to the host's delivery
    /// callback (`passcode_reset_request`). Throws `rateLimited`, or `hookFailed` with the
    /// host's message when delivery failed (the new code is then discarded).
    public func requestResetCode() throws {
        guard let deliver = hooks.deliverResetCode else {
            throw PasscodeError.state("no reset-code delivery callback is registered")
        }
        let now = now()
        // 1. The rate limit; the request is recorded even if delivery fails later.
        let limit: Result<Void, PasscodeError> = try write {
            let wait = try resetRequestWaitLocked(now: now, prune: true)
            if wait > 0 { return .failure(.rateLimited(seconds: wait)) }
            try db.query("INSERT INTO reset_request(boot_id, boot_ms, wall_ms) VALUES(?, ?, ?)",
                         [.int(Int64(bitPattern: now.bootID)), .int(now.bootMs), .int(now.wallMs)])
            return .success(())
        }
        try limit.get()
        // 2. A new code, stored only as a salted hash.
        let length = try read { try value(.resetCodeLength) }
        let code = SecretBytes(count: Int(length))
        code.withMutableBytes { b in
            for i in 0..<b.count { b[i] = 0x30 + UInt8(Sodium.randomUniform(10)) }
        }
        let salt = Sodium.randomBytes(16)
        let hash = resetCodeHash(code, salt: salt)
        let (generation, previous): (Int64, Int64?) = try write {
            let lifetime = try value(.resetCodeLifetimeSeconds)
            let previous = try db.scalar("SELECT max(generation) FROM reset_code WHERE replaced = 0")?.int
            try db.query("UPDATE reset_code SET replaced = 1 WHERE replaced = 0")
            let gen = (try db.scalar("SELECT max(generation) FROM reset_code")?.int ?? 0) + 1
            try db.query("""
                INSERT INTO reset_code(generation, salt, hash, boot_id, expires_boot_ms, expires_wall_ms)
                VALUES(?, ?, ?, ?, ?, ?)
                """, [.int(gen), .blob(salt), .blob(hash), .int(Int64(bitPattern: now.bootID)),
                      .int(now.bootMs &+ lifetime * 1000), .int(now.wallMs &+ lifetime * 1000)])
            // Keep a few replaced codes (hashes only) to tell "replaced" from "wrong".
            try db.query("DELETE FROM reset_code WHERE generation <= ?", [.int(gen - 6)])
            return (gen, previous)
        }
        // 3. Delivery, with no lock held. On failure the new code is discarded.
        if let failure = deliver(code) {
            try write {
                try db.query("DELETE FROM reset_code WHERE generation = ?", [.int(generation)])
                if let previous {
                    try db.query("UPDATE reset_code SET replaced = 0 WHERE generation = ?", [.int(previous)])
                }
            }
            throw PasscodeError.hookFailed(failure.isEmpty ? "the reset code could not be delivered" : failure)
        }
    }

    /// Seconds until the next reset-code request is allowed, 0 when it is allowed now
    /// (`passcode_reset_retry_after`).
    public func resetRetryAfterSeconds() throws -> Int64 {
        let now = now()
        return try read { try resetRequestWaitLocked(now: now, prune: false) }
    }

    /// The rate limit: one request per interval and a number per 24 hours. Requests older than a
    /// day are deleted when `prune` (inside a write transaction).
    private func resetRequestWaitLocked(now: ClockReading, prune: Bool) throws -> Int64 {
        let interval = try value(.resetRequestIntervalSeconds) * 1000
        let perDay = try value(.resetRequestsPerDay)
        var ages: [Int64] = []
        for r in try db.query("SELECT rowid, boot_id, boot_ms, wall_ms FROM reset_request") {
            let age = requestAge(bootID: UInt64(bitPattern: r[1].int ?? 0), bootMs: r[2].int ?? 0, wallMs: r[3].int ?? 0, now: now)
            if age < PasscodeStore.dayMs {
                ages.append(age)
            } else if prune {
                try db.query("DELETE FROM reset_request WHERE rowid = ?", [r[0]])
            }
        }
        var wait: Int64 = 0
        if let youngest = ages.min(), youngest < interval { wait = interval - youngest }
        if Int64(ages.count) >= perDay, let oldest = ages.max() { wait = max(wait, PasscodeStore.dayMs - oldest) }
        return (wait + 999) / 1000
    }

    /// Age of a recorded request: on the boot-time clock within one boot, else by the wall clock.
    private func requestAge(bootID: UInt64, bootMs: Int64, wallMs: Int64, now: ClockReading) -> Int64 {
        // Values from the file are data: an age that overflows is taken as more than a day.
        let (age, overflow) = bootID == now.bootID ? now.bootMs.subtractingReportingOverflow(bootMs)
                                                   : now.wallMs.subtractingReportingOverflow(wallMs)
        return overflow ? PasscodeStore.dayMs : max(0, age)
    }

    /// The one expiry rule: a code lives on the boot-time clock of the boot it was made in, so a
    /// reboot or the end of its lifetime ends it (a damaged row is expired too).
    static func resetCodeExpired(bootID: Int64?, expiresBootMs: Int64?, now: ClockReading) -> Bool {
        guard let bootID, let expiresBootMs else { return true }
        return UInt64(bitPattern: bootID) != now.bootID || now.bootMs >= expiresBootMs
    }

    func resetCodeHash(_ code: SecretBytes, salt: [UInt8]) -> [UInt8] {
        Sodium.mac(hashInput(code), key: salt)
    }

    /// The number of digits reset codes have (`PASSCODE_SETTING_RESET_CODE_LENGTH`).
    public func resetCodeLength() throws -> Int {
        Int(try read { try value(.resetCodeLength) })
    }

    /// Whether an unexpired reset code is pending (`passcode_reset_pending`).
    public func isResetCodePending() throws -> Bool {
        let now = now()
        return try read {
            guard let row = try db.query("SELECT boot_id, expires_boot_ms FROM reset_code WHERE replaced = 0 ORDER BY generation DESC LIMIT 1").first else { return false }
            return !PasscodeStore.resetCodeExpired(bootID: row[0].int, expiresBootMs: row[1].int, now: now)
        }
    }

    /// Checks a reset code without using it up (`passcode_reset_check`): the flow asks for the
    /// new passcode only after this. Each call counts as one of the code's 5 tries.
    /// Returns the code's generation.
    @discardableResult
    public func checkResetCode(_ code: SecretBytes) throws -> Int64 {
        let length = try resetCodeLength()
        guard code.count == length, code.isAllDigits else {
            throw PasscodeError.format("the reset code must have exactly \(length) digits")
        }
        let now = now()
        let outcome: Result<Int64, PasscodeError> = try write {
            let rows = try db.query("SELECT generation, salt, hash, boot_id, expires_boot_ms, tries, replaced FROM reset_code ORDER BY generation DESC")
            let matches: (([SQLValue]) -> Bool) = { row in
                Sodium.constantTimeEqual(self.resetCodeHash(code, salt: row[1].blob ?? []), row[2].blob ?? [])
            }
            let replacedMatch = rows.contains { $0[6].int == 1 && matches($0) }
            guard let current = rows.first(where: { $0[6].int == 0 }) else {
                return .failure(replacedMatch ? .resetCodeReplaced : .noResetCode)
            }
            let gen = current[0].int ?? 0
            if PasscodeStore.resetCodeExpired(bootID: current[3].int, expiresBootMs: current[4].int, now: now) {
                try db.query("DELETE FROM reset_code WHERE generation = ?", [.int(gen)])
                return .failure(.resetCodeExpired)
            }
            let tries = (current[5].int ?? 0) + 1
            try db.query("UPDATE reset_code SET tries = ? WHERE generation = ?", [.int(tries), .int(gen)])
            if matches(current) { return .success(gen) }
            if replacedMatch { return .failure(.resetCodeReplaced) }
            if tries >= PasscodeStore.resetCodeMaxTries {
                try db.query("DELETE FROM reset_code WHERE generation = ?", [.int(gen)])
                return .failure(.wrongResetCode(triesLeft: 0))
            }
            return .failure(.wrongResetCode(triesLeft: Int(PasscodeStore.resetCodeMaxTries - tries)))
        }
        return try outcome.get()
    }

    /// Sets a new passcode with a valid reset code (`passcode_reset_complete`). The code is used
    /// up; the lockout, failure counter, "reset required" state and the lock are cleared; the
    /// host's notification callback hears `passcodeReset`. Works while locked out.
    public func completeReset(code: SecretBytes, newPasscode: SecretBytes) throws {
        let length = try passcodeLength()
        try checkFormat(newPasscode, length: length)
        try checkStrength(newPasscode)
        let generation = try checkResetCode(code)
        let hash = try Sodium.hash(hashInput(newPasscode), cost: options.cost)
        let now = now()
        try write {
            let current = try db.scalar("SELECT generation FROM reset_code WHERE replaced = 0 AND generation = ?", [.int(generation)])
            guard current != nil else { throw PasscodeError.resetCodeReplaced }
            try db.query("DELETE FROM reset_code")
            try db.query("INSERT OR REPLACE INTO passcode(id, hash, length, set_wall_ms) VALUES(1, ?, ?, ?)",
                         [.text(hash), .int(Int64(length)), .int(now.wallMs)])
            try putSetting(.lockEnabled, 1)
            try update(AttemptState.self) { $0.clearAttempts() }
            try update(LockState.self) { lock in
                lock.unlock()
                lock.launchNeedsPasscode = false
            }
            try update(BiometricState.self) { $0.passcodeEntered(now: now) }
        }
        forgetWrongGuesses()
        hooks.notify?(Notice.passcodeReset.rawValue)
    }

    /// "Forgot passcode" on the lock screen (`passcode_forgot`): removes the passcode, clears
    /// lock state, counters and any reset code, and calls the host's logout callback.
    public func forgotPasscode() throws {
        try write { try removePasscodeLocked() }
        forgetWrongGuesses()
        hooks.logout?(LogoutReason.forgotPasscode.rawValue)
    }

    /// Replaces the passcode once the caller has verified the current one (flows only).
    func replaceVerifiedPasscode(_ new: SecretBytes) throws {
        try checkFormat(new, length: try passcodeLength())
        try checkStrength(new)
        let hash = try Sodium.hash(hashInput(new), cost: options.cost)
        let now = now()
        try write {
            try db.query("UPDATE passcode SET hash = ?, set_wall_ms = ? WHERE id = 1", [.text(hash), .int(now.wallMs)])
            if try db.scalar("SELECT changes()")?.int ?? 0 == 0 { throw PasscodeError.noPasscode }
        }
        forgetWrongGuesses()
    }

    /// Why `code` would be refused as a new passcode, or nil (flows use it before confirming).
    func weakness(_ code: SecretBytes) -> String? {
        do { try checkStrength(code); return nil } catch let e as PasscodeError {
            if case .weakPasscode(let why) = e { return why }
            return e.message
        } catch { return nil }
    }
}
