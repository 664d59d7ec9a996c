// Reset codes sent by email, and "forgot passcode".
//
// A reset code is random digits from libsodium, stored only as an Argon2id hash at the
// passcode's cost (of the code keyed with the pepper, when there is one), so that learning a
// pending code from the file costs at least as much as learning the passcode. It is handed once
// to the host's delivery callback. Only the newest code exists: a new request deletes the old
// one, and a failed delivery leaves none. Every check counts against the code's 5 tries before
// the answer is known (write-ahead, as passcode attempts); a correct one gives its try back.
// Codes expire and work once; requests are rate-limited. Reset-code tries never count against
// the passcode lockout, and a lockout never blocks them.

extension ResetCodeRow {
    /// Expiry, in one place, by two clocks as lockouts: a code lives on the boot-time clock of the
    /// boot it was made in, and ends when either clock says its lifetime is over (a reboot, the
    /// boot clock, or the wall clock). Moving one clock back (a time namespace moves the boot
    /// clock without privilege) never keeps a code alive longer.
    func isExpired(now: ClockReading) -> Bool {
        UInt64(bitPattern: bootID) != now.bootID || now.bootMs >= expiresBootMs || now.wallMs >= expiresWallMs
    }

    /// The expiry times of a code made `now` with `lifetimeMs` (at most a day), kept in the
    /// ranges the row is checked against: the clock reading is in range, so nothing overflows.
    static func expiry(now: ClockReading, lifetimeMs: Int64) -> (bootMs: Int64, wallMs: Int64) {
        (min(now.bootMs + lifetimeMs, maxClockMs), min(now.wallMs + lifetimeMs, ClockReading.wallRange.upperBound))
    }
}

extension PasscodeStore {
    static let dayMs: Int64 = 86_400_000

    /// The digits of the passcode a reset sets: the default, whatever the one it replaces had.
    public static var resetPasscodeLength: Int { Int(Setting.passcodeLength.spec.defaultValue) }

    /// The pending code, if any (the newest row; there is never more than one).
    func resetCodeLocked() throws(PasscodeError) -> ResetCodeRow? {
        try db.resetCode()
    }

    /// Makes a new reset code, replacing any earlier one, and hands it to the host's delivery
    /// callback (`passcode_reset_request`). Throws `rateLimited`, or `hookFailed` with the
    /// host's message when delivery failed (then no code is pending: the new one is discarded
    /// and the earlier one is gone).
    public func requestResetCode() throws(PasscodeError) {
        guard let deliver = hooks.deliverResetCode else {
            throw PasscodeError.state("no reset-code delivery callback is registered")
        }
        let now = try now()
        // The settings are read first: a damaged one refuses the request before anything is written.
        let (length, lifetime) = try read(.recover) { () throws(PasscodeError) in
            guard try resetAllowedLocked() else { throw PasscodeError.noPasscode }
            return (try resetValueLocked(.resetCodeLength), try resetValueLocked(.resetCodeLifetimeSeconds))
        }
        // 1. The rate limit; the request is recorded even if delivery fails later.
        let limit: Result<Int64, PasscodeError> = try write(.recover) { () throws(PasscodeError) in
            let wait = try resetRequestWaitLocked(now: now, prune: true)
            if wait > 0 { return .failure(.rateLimited(seconds: wait)) }
            let request = try db.addResetRequest(bootID: now.bootID, bootMs: now.bootMs, wallMs: now.wallMs)
            resetRequestsMade.append(now)
            try logLocked(.resetCodeRequested, now: now)
            return .success(request)
        }
        let request = try limit.get()
        // 2. A new code, stored only as its Argon2id hash.
        let code = SecretBytes(count: Int(length))
        code.withMutableBytes { b in
            for i in 0..<b.count { b[i] = 0x30 + UInt8(Sodium.randomUniform(10)) }
        }
        let hash = try Sodium.hash(hashInput(code), cost: options.cost)
        let expiry = ResetCodeRow.expiry(now: now, lifetimeMs: lifetime * 1000)
        let generation: Int64 = try write(.recover) { () throws(PasscodeError) in
            try db.replaceResetCode(hash: hash, bootID: now.bootID, expiresBootMs: expiry.bootMs, expiresWallMs: expiry.wallMs)
        }
        // 3. Delivery, with no lock held. On failure the new code is discarded, but the request
        // still counts against the daily limit as well as the interval: the code was handed to
        // the host, and a callback that reports failure may have sent it all the same.
        if let failure = deliver(code) {
            try write(.recover) { () throws(PasscodeError) in
                try db.deleteResetCode(generation: generation)
                try db.markResetRequestFailed(request)
                try logLocked(.resetCodeDeliveryFailed, now: now)
            }
            throw PasscodeError.hookFailed(failure.isEmpty ? "the reset code could not be delivered" : failure)
        }
        try write(.recover) { () throws(PasscodeError) in _ = try logLocked(.resetCodeDelivered, now: now) }
    }

    /// Seconds until the next reset-code request is allowed, 0 when it is allowed now
    /// (`passcode_reset_retry_after`).
    public func resetRetryAfterSeconds() throws(PasscodeError) -> Int64 {
        let now = try now()
        return try read(.recover) { () throws(PasscodeError) in try resetRequestWaitLocked(now: now, prune: false) }
    }

    /// The rate limit: one request per interval, and a number of requests per 24 hours (failed
    /// deliveries count too: their code was handed to the host). Requests older than a day are
    /// deleted when `prune` (inside a write transaction).
    private func resetRequestWaitLocked(now: ClockReading, prune: Bool) throws(PasscodeError) -> Int64 {
        let interval = try resetValueLocked(.resetRequestIntervalSeconds) * 1000
        let perDay = try resetValueLocked(.resetRequestsPerDay)
        var ages: [Int64] = []
        for r in try db.resetRequests() {
            let age = requestAge(bootID: r.bootID, bootMs: r.bootMs, wallMs: r.wallMs, now: now)
            if age < PasscodeStore.dayMs {
                ages.append(age)
            } else if prune {
                try db.deleteResetRequest(r)
            }
        }
        // This handle's own requests count too, whatever the file says (`resetRequestsMade`).
        resetRequestsMade.removeAll { requestAge(bootID: $0.bootID, bootMs: $0.bootMs, wallMs: $0.wallMs, now: now) >= PasscodeStore.dayMs }
        let mine = resetRequestsMade.map { requestAge(bootID: $0.bootID, bootMs: $0.bootMs, wallMs: $0.wallMs, now: now) }
        var wait: Int64 = 0
        for list in [ages, mine] {
            if let youngest = list.min(), youngest < interval { wait = max(wait, interval - youngest) }
            if Int64(list.count) >= perDay, let oldest = list.max() { wait = max(wait, PasscodeStore.dayMs - oldest) }
        }
        return (wait + 999) / 1000
    }

    /// Whether a passcode row exists, read raw: the reset is the way out of a damaged state.
    func passcodeExistsLocked() throws(PasscodeError) -> Bool {
        try db.passcodeExists()
    }

    /// A reset replaces a passcode, so it needs one; except in a store whose edit was detected
    /// (with a pepper), where a deleted passcode row is the edit and the reset the way out.
    public func isResetAllowed() throws(PasscodeError) -> Bool {
        try read(.recover) { () throws(PasscodeError) in try resetAllowedLocked() }
    }

    func resetAllowedLocked() throws(PasscodeError) -> Bool {
        if try passcodeExistsLocked() { return true }
        return integrityKey != nil ? try !isIntactLocked() : false
    }

    /// Age of a recorded request, by two clocks as lockouts: within one boot the younger of the
    /// boot-clock and the wall-clock ages (so moving one clock forward, as a time namespace does
    /// with the boot clock, makes no request older), the boot clock alone when the wall clock went
    /// back before the request (so the limit never lasts for ever); after a reboot the wall clock.
    /// A boot clock behind the request in the same boot is no real clock (the request came from
    /// a time namespace whose boot clock ran ahead, or this reading does): the wall clock's age
    /// decides then, so one request made 10 days ahead does not rate-limit the user for 10 days,
    /// and a namespace behind gains nothing either (the wall clock still counts every request).
    private func requestAge(bootID: UInt64, bootMs: Int64, wallMs: Int64, now: ClockReading) -> Int64 {
        // Values from the file are data: an age that overflows is taken as more than a day.
        let (byWall, wallOverflow) = now.wallMs.subtractingReportingOverflow(wallMs)
        guard bootID == now.bootID else { return wallOverflow ? PasscodeStore.dayMs : max(0, byWall) }
        let (byBoot, bootOverflow) = now.bootMs.subtractingReportingOverflow(bootMs)
        let boot = bootOverflow ? PasscodeStore.dayMs : byBoot
        if boot < 0 { return wallOverflow ? PasscodeStore.dayMs : max(0, byWall) }
        if wallOverflow || byWall < 0 { return boot }
        return min(boot, byWall)
    }

    /// The number of digits reset codes have (`PASSCODE_SETTING_RESET_CODE_LENGTH`).
    public func resetCodeLength() throws(PasscodeError) -> Int {
        Int(try read(.recover) { () throws(PasscodeError) in try resetValueLocked(.resetCodeLength) })
    }

    /// A reset setting as the reset path may use it: the file's value while the MAC holds, the
    /// default (the strictest the library ships) while it fails, so that no edit of the file
    /// buys a shorter code, a longer lifetime or more requests.
    func resetValueLocked(_ setting: Setting) throws(PasscodeError) -> Int64 {
        try macHoldsLocked() ? value(setting) : setting.spec.defaultValue
    }

    /// Reset requests whose rows fail their own MAC (deleted, edited or never sealed) cannot be
    /// counted, and deleting them must not give the day's budget back: they are replaced with
    /// the default day's budget, all made `now`, and sealed under that MAC at once. So an edit
    /// of `reset_request` costs the attacker (and the user) the next 24 hours of requests
    /// instead of buying any; the file cannot say less without failing the MAC again.
    func spendResetBudgetLocked(now: ClockReading) throws(PasscodeError) {
        try db.deleteResetRequests()
        for _ in 0..<Setting.resetRequestsPerDay.spec.defaultValue {
            _ = try db.addResetRequest(bootID: now.bootID, bootMs: now.bootMs, wallMs: now.wallMs)
        }
        try sealResetRowsLocked()
        try logLocked(.tamperDetected, "reset requests could not be authenticated: the day's requests count as used", now: now)
    }

    /// Whether an unexpired reset code with tries left is pending (`passcode_reset_pending`).
    public func isResetCodePending() throws(PasscodeError) -> Bool {
        let now = try now()
        return try read(.recover) { () throws(PasscodeError) in
            guard let code = try resetCodeLocked() else { return false }
            return !code.isExpired(now: now) && code.tries < ResetCodeRow.maxTries
        }
    }

    /// Seconds until the pending reset code expires (at least 1), nil when none can be used
    /// (none, expired, or its tries spent): passcoded answers a request with it rather than
    /// sending another code.
    public func pendingResetCodeSeconds() throws(PasscodeError) -> Int64? {
        let now = try now()
        return try read(.recover) { () throws(PasscodeError) -> Int64? in
            guard let code = try resetCodeLocked(), !code.isExpired(now: now), code.tries < ResetCodeRow.maxTries else { return nil }
            let ms = min(code.expiresBootMs - now.bootMs, code.expiresWallMs - now.wallMs)
            return max(1, (ms + 999) / 1000)
        }
    }

    /// Checks a reset code without using it up (`passcode_reset_check`): the flow asks for the
    /// new passcode only after this. A check is one Argon2id evaluation; it counts against the
    /// code's 5 tries before the answer is known, and a correct one gives its try back.
    /// Returns the code's generation.
    @discardableResult
    public func checkResetCode(_ code: SecretBytes) throws(PasscodeError) -> Int64 {
        let length = try resetCodeLength()
        guard code.count == length, code.isAllDigits else {
            throw PasscodeError.format("the reset code must have exactly \(length) digits")
        }
        let now = try now()
        // 1. Write-ahead: take a try, or refuse without looking at the code.
        let begun: Result<ResetCodeRow, PasscodeError> = try write(.recover) { () throws(PasscodeError) in
            guard let current = try resetCodeLocked() else { return .failure(.noResetCode) }
            if current.isExpired(now: now) {
                try db.deleteResetCodes()
                try logLocked(.resetCodeExpired, now: now)
                return .failure(.resetCodeExpired)
            }
            guard current.tries < ResetCodeRow.maxTries, resetTriesTaken[current.hash, default: 0] < ResetCodeRow.maxTries else {
                try db.deleteResetCodes()
                return .failure(.noResetCode)
            }
            try db.takeResetTry(generation: current.generation)
            resetTriesTaken[current.hash, default: 0] += 1  // this handle's count (`resetTriesTaken`)
            return .success(current)
        }
        let current = try begun.get()
        // As a passcode attempt (PasscodeStore+Passcode.swift, verify): the try is in the main
        // file before the code is checked.
        if try !emptyLogIntoMainFile() {
            throw PasscodeError.busy("another connection holds the store's write-ahead log open: the try is counted, but the code was not checked; try again")
        }
        // 2. One Argon2id evaluation, with no lock held.
        let ok = Sodium.verify(hashInput(code), hash: current.hash)
        // 3. Record the answer.
        let outcome: Result<Int64, PasscodeError> = try write(.recover) { () throws(PasscodeError) in
            guard let latest = try resetCodeLocked(), latest.generation == current.generation else {
                return .failure(.noResetCode)  // replaced or used meanwhile: no distinct answer
            }
            if ok {
                try db.giveBackResetTry(generation: current.generation)
                resetTriesTaken[current.hash, default: 1] -= 1
                return .success(current.generation)
            }
            if latest.tries >= ResetCodeRow.maxTries {
                try db.deleteResetCodes()
                return .failure(.wrongResetCode(triesLeft: 0))
            }
            return .failure(.wrongResetCode(triesLeft: Int(ResetCodeRow.maxTries - latest.tries)))
        }
        return try outcome.get()
    }

    /// Sets a new passcode with a valid reset code (`passcode_reset_complete`). The code is used
    /// up; the lockout, failure counter, "reset required" state and the lock are cleared; the
    /// host's notification callback hears `passcodeReset`. Works while locked out.
    ///
    /// A reset code proves who the user is, not the passcode, so it cannot open the data key.
    /// With `recoveryKey` (the host's, see `setRecoveryKey`) the key is kept; without it a new
    /// one replaces it. Returns the key (released on this handle) and whether a key the host
    /// had been given was replaced (`passcode_reset_complete` then says `keyReplaced`).
    @discardableResult
    public func completeReset(code: SecretBytes, newPasscode: SecretBytes,
                              recoveryKey: SecretBytes? = nil) throws(PasscodeError) -> (key: SecretBytes, replaced: Bool) {
        // The default length: a reset code proves the user, not the passcode, so no length chosen
        // before (by whoever set the passcode it replaces) carries over (`resetPasscodeLength`).
        let length = PasscodeStore.resetPasscodeLength
        try checkFormat(newPasscode, length: length)
        try checkStrength(newPasscode)
        if let recoveryKey, recoveryKey.count != Sodium.keyBytes {
            throw PasscodeError.misuse("the recovery key must be \(Sodium.keyBytes) bytes")
        }
        // A reset replaces a passcode; with none set there is nothing to reset (set one instead).
        guard try isResetAllowed() else { throw PasscodeError.noPasscode }
        let generation = try checkResetCode(code)
        var kept: SecretBytes?
        if let recoveryKey {
            guard let blob = try read(.recover, { () throws(PasscodeError) in try recoveryWrapLocked() }) else {
                throw PasscodeError.wrongRecoveryKey("no recovery key is set for this store; nothing changed")
            }
            guard let key = RecoveryWrap.open(blob, recoveryKey: recoveryKey) else {
                throw PasscodeError.wrongRecoveryKey("the recovery key does not open this store's recovery copy; nothing changed")
            }
            kept = key
        }
        let key = kept ?? SecretBytes.random(Sodium.keyBytes)
        // Bound: sealed in this TPM, with a counter here (a reset is also how a store moves to
        // a new TPM, or past a rollback). Which TPM: `deviceForReset`, never an unauthenticated row.
        let new = try newWrap(hashInput(newPasscode), dataKey: key, device: try deviceForReset())
        try callLifecycleHook(.reset)
        let now = try now()
        let (replaced, sessionWanted): (Bool, Bool) = try write(.resolve) { () throws(PasscodeError) in
            guard try resetCodeLocked()?.generation == generation else { throw PasscodeError.noResetCode }
            try recordBindingLocked(new)
            revokeSessionKeyLocked()  // the old wrap's entry: it opens nothing after this
            var replaced = false
            if kept == nil {
                // Raw reads: a reset is the way out of a damaged state (a damaged flag counts as
                // set, and so does any flag while the MAC failed: `resetUnauthenticatedLocked`;
                // a peppered store without a passcode row is reset only after such an edit).
                let handedOut = (try? load(KeyState.self).handedOut) ?? true
                replaced = try handedOut ? (integrityKey != nil ? true : passcodeExistsLocked()) : false
                try db.deleteRecoveryWrap()  // it wraps the old key
                try update(KeyState.self) { $0.handedOut = false }
            }
            try db.deleteResetCodes()
            try db.replacePasscode(verifier: new.wrap.encoded, length: length, setWallMs: now.wallMs)
            try putSetting(.lockEnabled, 1)
            try update(AttemptState.self) { $0.clearAttempts() }
            try update(LockState.self) { lock in
                lock.unlock()
                lock.launchNeedsPasscode = false
            }
            try update(BiometricState.self) { $0.passcodeEntered(now: now) }
            try logLocked(.resetCompleted, now: now)
            try restoreSafeDefaultsLocked(now: now)  // a reset code proves the user, not the passcode
            return (replaced, try sessionKeyringWantedLocked())
        }
        retirePin(new.oldPin, device: new.binding?.device)
        forgetWrongGuesses()
        flushLogAfterChange()
        recordProof(now, verifier: new.wrap.encoded)
        holdKey(key, session: new.session, sessionWanted: sessionWanted)
        hooks.notify?(Notice.passcodeReset.rawValue)
        return (key, replaced)
    }

    /// "Forgot passcode" on the lock screen (`passcode_forgot`): removes the passcode, clears
    /// lock state, counters and any reset code, and calls the host's logout callback. The
    /// passcode removed is the one there when it was asked: one set or changed while the host's
    /// hook ran (another handle or process) stays, and the call answers `state`.
    /// Fails closed: without a logout callback nothing changes (`callbackRequired`), since an
    /// app that does not log the user out would let "forgot" unlock it. Afterwards the lock state
    /// says `.loggedOut` until a new passcode is set. Old bytes are wiped from the log too; if
    /// another connection keeps them, the call reports `wipePending` after doing the rest.
    public func forgotPasscode() throws(PasscodeError) {
        guard let logout = hooks.logout else {
            throw PasscodeError.callbackRequired("forgot passcode needs a logout callback (passcode_set_logout_callback) to log the user out")
        }
        let asked = try passcodeSeen(.recover)  // as the write below: forgot also ends a tampered state
        try callLifecycleHook(.forgot)
        let now = try now()
        let pin = try? currentSealed()
        try write(.resolve) { () throws(PasscodeError) in
            try checkPasscodeUnchangedLocked(since: asked)  // the passcode forgotten, not one set since
            try removePasscodeLocked(loggingOut: true)
            try logLocked(.forgotPasscode, now: now)
        }
        retirePin(pin)
        forgetWrongGuesses()
        logout(LogoutReason.forgotPasscode.rawValue)
        try wipeLog()
    }

    /// Replaces the passcode once the caller has verified the current one, which gave `key`:
    /// the same data key is wrapped under the new passcode in one row write, so a kill leaves the
    /// old wrap or the new one, never none.
    func replaceVerifiedPasscode(_ new: SecretBytes, key: SecretBytes) throws(PasscodeError) {
        try checkFormat(new, length: try passcodeLength())
        try checkStrength(new)
        let replacement = try newWrap(hashInput(new), dataKey: key, device: try boundDevice())
        try callLifecycleHook(.changed)
        let now = try now()
        try write { () throws(PasscodeError) in
            try checkStillProvedLocked()  // the passcode the caller verified, not one set since
            try recordBindingLocked(replacement)
            revokeSessionKeyLocked()  // the old wrap's entry
            try db.updateVerifier(replacement.wrap.encoded, setWallMs: now.wallMs)
            try logLocked(.passcodeChanged, now: now)
            if heldKey != nil {
                heldKey?.session = replacement.session
                syncSessionKeyringLocked()
            }
        }
        retirePin(replacement.oldPin, device: replacement.binding?.device)
        forgetWrongGuesses()
        recordProof(now, verifier: replacement.wrap.encoded)  // the old passcode's proof named a passcode that is gone
        flushLogAfterChange()
    }

    /// Why `code` would be refused as a new passcode, or nil (flows use it before confirming).
    func weakness(_ code: SecretBytes) -> String? {
        do { try checkStrength(code); return nil } catch {
            if case .weakPasscode(let why) = error { return why }
            return error.message
        }
    }
}
