import CPasscodeShims

// The account-security parts: password-change checks, device sessions, and
// deleting the account so that nothing can be recovered from the store afterwards.

/// A device session the host recorded.
public struct DeviceSession: Equatable, Sendable {
    public var id: String
    public var deviceName: String
    public var platform: String
    public var lastActiveWallMs: Int64
    public var location: String?
    public var isCurrent: Bool
    public init(id: String, deviceName: String, platform: String, lastActiveWallMs: Int64, location: String?, isCurrent: Bool) {
        self.id = id
        self.deviceName = deviceName
        self.platform = platform
        self.lastActiveWallMs = lastActiveWallMs
        self.location = location
        self.isCurrent = isCurrent
    }
}

extension PasscodeStore {
    // MARK: - Password change

    /// Checks a change of the account password the host's backend owns
    /// (`passcode_password_change_check`): current not empty; new 8 to 256 code points of valid
    /// UTF-8; confirmation equal to new. On success records the time of the change.
    public func checkPasswordChange(current: SecretBytes, new: SecretBytes, confirmation: SecretBytes) throws(PasscodeError) {
        guard current.count > 0 else { throw PasscodeError.passwordEmpty }
        guard current.withBytes({ PasswordRules.codePoints($0) }) != nil else {
            throw PasscodeError.format("the current password is not valid UTF-8 text")
        }
        guard let n = new.withBytes({ PasswordRules.codePoints($0) }) else {
            throw PasscodeError.format("the new password is not valid UTF-8 text")
        }
        guard n >= PasswordRules.minimumLength else { throw PasscodeError.passwordTooShort(minimum: PasswordRules.minimumLength) }
        guard n <= PasswordRules.maximumLength else { throw PasscodeError.passwordTooLong(maximum: PasswordRules.maximumLength) }
        guard new.constantTimeEquals(confirmation) else { throw PasscodeError.passwordMismatch }
        let now = try now()
        try write { () throws(PasscodeError) in try putSetting(.lastPasswordChange, max(0, now.wallMs)) }
    }

    // MARK: - Device sessions

    /// Adds or updates a session (`passcode_session_record`). Marking one current unmarks the others.
    public func recordSession(_ s: DeviceSession) throws(PasscodeError) {
        guard !s.id.isEmpty, s.id.utf8.count <= 256, s.deviceName.utf8.count <= 256, s.platform.utf8.count <= 256,
              (s.location?.utf8.count ?? 0) <= 256 else {
            throw PasscodeError.misuse("session fields must be 1 to 256 bytes (id) and at most 256 bytes (others)")
        }
        try write { () throws(PasscodeError) in
            try db.putSession(s)
        }
    }

    /// Every session, this device first, then the most recently active (`passcode_session_list_new`).
    public func sessions() throws(PasscodeError) -> [DeviceSession] {
        try read { () throws(PasscodeError) in try db.sessions() }
    }

    /// Signs one session out after the host's hook revoked it (`passcode_session_sign_out`).
    /// This device's session cannot be signed out here.
    public func signOutSession(id: String) throws(PasscodeError) {
        let current = try read { () throws(PasscodeError) in try db.sessionIsCurrent(id) }
        guard let current else { throw PasscodeError.sessionNotFound }
        guard !current else { throw PasscodeError.sessionIsCurrent }
        if let hook = hooks.signOutSession, let failure = hook(id) { throw PasscodeError.hookFailed(failure) }
        let now = try now()
        try write { () throws(PasscodeError) in
            try db.deleteOtherSession(id)
            try logLocked(.sessionSignedOut, id, now: now)
        }
    }

    /// Signs out every session but this device's (`passcode_session_sign_out_others`). Each goes
    /// through the hook; sessions whose hook failed stay, and the first failure is reported.
    /// Returns how many were signed out.
    @discardableResult
    public func signOutOtherSessions() throws(PasscodeError) -> Int {
        let (count, failure) = try signOutOtherSessionsReporting()
        if let failure { throw PasscodeError.hookFailed(failure) }
        return count
    }

    /// As `signOutOtherSessions`, returning the count and the first hook failure instead of throwing it.
    public func signOutOtherSessionsReporting() throws(PasscodeError) -> (signedOut: Int, failure: String?) {
        let ids = try read { () throws(PasscodeError) in try db.otherSessionIDs() }
        var done: [String] = [], failure: String?
        let hook = hooks.signOutSession
        for id in ids {
            if let hook, let f = hook(id) { failure = failure ?? f; continue }
            done.append(id)
        }
        let now = try now()
        try write { () throws(PasscodeError) in
            for id in done {
                try db.deleteOtherSession(id)
                try logLocked(.sessionSignedOut, id, now: now)
            }
        }
        return (done.count, failure)
    }

    // MARK: - Delete account

    /// Deletes the account's data (`passcode_delete_account`): only with the exact text "DELETE"
    /// and a registered account-deleted callback (fails closed: `callbackRequired`). Every table is
    /// emptied with SQLite's secure_delete, the file is vacuumed and the log truncated, so the
    /// old passcode hash, sessions and codes are gone from the bytes on disk; the lock state then
    /// says `.loggedOut`. If another connection keeps old bytes in the log, `wipePending` says so.
    public func deleteAccount(confirmation: String) throws(PasscodeError) {
        guard confirmation == "DELETE" else { throw PasscodeError.confirmationMismatch }
        guard let deleted = hooks.accountDeleted else {
            throw PasscodeError.callbackRequired("deleting the account needs an account-deleted callback (passcode_set_account_deleted_callback)")
        }
        let now = try now()
        let pin = try? currentSealed()
        try write(.resolve) { () throws(PasscodeError) in
            revokeSessionKeyLocked()  // before the wrap it is named after goes
            // The TPM binding stays: it belongs to the store, not the account (the next passcode is
            // sealed in the same TPM, with the same attempt counter, which stays in step).
            let binding = try load(TPMState.self)
            try db.deleteEveryRow()
            try save(binding, over: TPMState())
            try update(LockState.self) { $0.logOut() }
            try logLocked(.accountDeleted, now: now)  // the log went with the account; this is all it says
        }
        lock.withLock {
            try? db.vacuum()  // with a reader elsewhere it cannot run; secure_delete has zeroed the pages
            recentWrongGuesses.removeAll()
            resetRequestsMade.removeAll()  // the account's requests went with it
            dropKeyLocked()
        }
        retirePin(pin)  // provisioned: the passcode's PIN_FAIL index goes with it
        deleted()
        try wipeLog()
    }

    /// Truncates the write-ahead log, so that deleted bytes are gone from it too, retrying while
    /// another connection reads (up to the busy timeout). Throws `wipePending` when it could not.
    func wipeLog() throws(PasscodeError) {
        if try emptyLogIntoMainFile() { return }
        // Remembered, so that the next open finishes it.
        // `.recover`, not `.resolve`: the row is no proof of anything, so it seals only a store whose MAC holds.
        try write(.recover) { () throws(PasscodeError) in try db.putState(.wipePending, .int(1)) }
        throw PasscodeError.wipePending
    }

    /// Copies the whole write-ahead log into the main database file and empties it (a
    /// truncating checkpoint), retrying while another connection reads, up to the busy timeout.
    /// True when done: then every commit so far is in the main file alone, and deleting the
    /// `-wal` and `-shm` files loses nothing; the log keeps no old page either.
    func emptyLogIntoMainFile() throws(PasscodeError) -> Bool {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(options.busyTimeoutMs)
        while true {
            if try lock.withLock({ () throws(PasscodeError) in try db.checkpointTruncate() }) { return true }
            clock_gettime(CLOCK_MONOTONIC, &clock)
            if Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 >= deadline { return false }
            usleep(20_000)
        }
    }

    /// After a passcode set, change, reset or removal, or a setting change: deleting the `-wal`
    /// and `-shm` files must not take it back, and the old wrap must not outlive it in the log
    /// (a copy of the main file and its `-wal` would open the data key with the old passcode).
    /// The change is made either way; when another connection holds the log, the next open
    /// (or the next checkpoint) finishes the job, as after a wipe.
    func flushLogAfterChange() {
        do { try wipeLog() } catch {}
    }

    /// At open: a wipe that another connection held up is finished now if it can be.
    func finishPendingWipe() throws(PasscodeError) {
        let pending = try lock.withLock { () throws(PasscodeError) in try db.hasState(.wipePending) }
        guard pending, try lock.withLock({ () throws(PasscodeError) in try db.checkpointTruncate() }) else { return }
        // `.recover`: a row planted in a tampered store must not get the store sealed at open.
        try write(.recover) { () throws(PasscodeError) in try db.deleteState(.wipePending) }
        _ = try lock.withLock { () throws(PasscodeError) in try db.checkpointTruncate() }
    }
}
