import Glibc

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

public enum PasswordRules {
    public static let minimumLength = 8
    public static let maximumLength = 256

    /// Code points in valid UTF-8, or nil for invalid UTF-8 (checked without making a String).
    static func codePoints(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0, count = 0
        while i < bytes.count {
            let b = bytes[i]
            let n: Int
            switch b {
            case 0x00...0x7f: n = 1
            case 0xc2...0xdf: n = 2
            case 0xe0...0xef: n = 3
            case 0xf0...0xf4: n = 4
            default: return nil
            }
            guard i + n <= bytes.count else { return nil }
            for k in 1..<max(n, 1) where bytes[i + k] & 0xc0 != 0x80 { return nil }
            if n == 3 {
                let v = (Int(b & 0x0f) << 12) | (Int(bytes[i + 1] & 0x3f) << 6)
                if v < 0x800 || (0xd800...0xdfff).contains(v | Int(bytes[i + 2] & 0x3f)) { return nil }
            }
            if n == 4 {
                let v = (Int(b & 0x07) << 18) | (Int(bytes[i + 1] & 0x3f) << 12)
                if v < 0x10000 || v > 0x10ffff { return nil }
            }
            if b == 0 { return nil }  // an embedded NUL is not part of a password
            i += n
            count += 1
        }
        return count
    }
}

extension PasscodeStore {
    // MARK: - Password change

    /// Checks a change of the account password the host's backend owns
    /// (`passcode_password_change_check`): current not empty; new 8 to 256 code points of valid
    /// UTF-8; confirmation equal to new. On success records the time of the change.
    public func checkPasswordChange(current: SecretBytes, new: SecretBytes, confirmation: SecretBytes) throws {
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
        try write { try putSetting(.lastPasswordChange, max(0, now.wallMs)) }
    }

    // MARK: - Device sessions

    /// Adds or updates a session (`passcode_session_record`). Marking one current unmarks the others.
    public func recordSession(_ s: DeviceSession) throws {
        guard !s.id.isEmpty, s.id.utf8.count <= 256, s.deviceName.utf8.count <= 256, s.platform.utf8.count <= 256,
              (s.location?.utf8.count ?? 0) <= 256 else {
            throw PasscodeError.misuse("session fields must be 1 to 256 bytes (id) and at most 256 bytes (others)")
        }
        try write {
            if s.isCurrent { try db.query("UPDATE session SET is_current = 0") }
            try db.query("""
                INSERT INTO session(id, device_name, platform, last_active_wall_ms, location, is_current)
                VALUES(?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET device_name = excluded.device_name, platform = excluded.platform,
                    last_active_wall_ms = excluded.last_active_wall_ms, location = excluded.location,
                    is_current = excluded.is_current
                """, [.text(s.id), .text(s.deviceName), .text(s.platform), .int(s.lastActiveWallMs),
                      s.location.map { .text($0) } ?? .null, .int(s.isCurrent ? 1 : 0)])
        }
    }

    /// Every session, this device first, then the most recently active (`passcode_session_list_new`).
    public func sessions() throws -> [DeviceSession] {
        try read {
            try db.query("SELECT id, device_name, platform, last_active_wall_ms, location, is_current FROM session ORDER BY is_current DESC, last_active_wall_ms DESC, id").map {
                DeviceSession(id: $0[0].text ?? "", deviceName: $0[1].text ?? "", platform: $0[2].text ?? "",
                              lastActiveWallMs: $0[3].int ?? 0, location: $0[4].text, isCurrent: $0[5].int == 1)
            }
        }
    }

    /// Signs one session out after the host's hook revoked it (`passcode_session_sign_out`).
    /// This device's session cannot be signed out here.
    public func signOutSession(id: String) throws {
        let row = try read { try db.query("SELECT is_current FROM session WHERE id = ?", [.text(id)]).first }
        guard let row else { throw PasscodeError.sessionNotFound }
        guard row[0].int != 1 else { throw PasscodeError.sessionIsCurrent }
        if let hook = hooks.signOutSession, let failure = hook(id) { throw PasscodeError.hookFailed(failure) }
        let now = try now()
        try write {
            try db.query("DELETE FROM session WHERE id = ? AND is_current = 0", [.text(id)])
            try logLocked(.sessionSignedOut, id, now: now)
        }
    }

    /// Signs out every session but this device's (`passcode_session_sign_out_others`). Each goes
    /// through the hook; sessions whose hook failed stay, and the first failure is reported.
    /// Returns how many were signed out.
    @discardableResult
    public func signOutOtherSessions() throws -> Int {
        let (count, failure) = try signOutOtherSessionsReporting()
        if let failure { throw PasscodeError.hookFailed(failure) }
        return count
    }

    /// As `signOutOtherSessions`, returning the count and the first hook failure instead of throwing it.
    public func signOutOtherSessionsReporting() throws -> (signedOut: Int, failure: String?) {
        let ids = try read { try db.query("SELECT id FROM session WHERE is_current = 0").compactMap { $0[0].text } }
        var done: [String] = [], failure: String?
        let hook = hooks.signOutSession
        for id in ids {
            if let hook, let f = hook(id) { failure = failure ?? f; continue }
            done.append(id)
        }
        let now = try now()
        try write {
            for id in done {
                try db.query("DELETE FROM session WHERE id = ? AND is_current = 0", [.text(id)])
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
    public func deleteAccount(confirmation: String) throws {
        guard confirmation == "DELETE" else { throw PasscodeError.confirmationMismatch }
        guard let deleted = hooks.accountDeleted else {
            throw PasscodeError.callbackRequired("deleting the account needs an account-deleted callback (passcode_set_account_deleted_callback)")
        }
        let now = try now()
        let pin = try? currentPinIndex()
        try write(.resolve) {
            revokeSessionKeyLocked()  // before the wrap it is named after goes
            // The TPM binding stays: it belongs to the store, not the account (the next passcode is
            // sealed in the same TPM, with the same attempt counter, which stays in step).
            let binding = try load(TPMState.self)
            for table in ["passcode", "recovery", "settings", "state", "reset_code", "reset_request", "session", "event"] {
                try db.query("DELETE FROM \(table)")
            }
            try save(binding, over: TPMState())
            try update(LockState.self) { $0.logOut() }
            try logLocked(.accountDeleted, now: now)  // the log went with the account; this is all it says
        }
        lock.withLock {
            _ = try? db.exec("VACUUM")  // with a reader elsewhere it cannot run; secure_delete has zeroed the pages
            recentWrongGuesses.removeAll()
            dropKeyLocked()
        }
        retirePin(pin)  // provisioned: the passcode's PIN_FAIL index goes with it
        deleted()
        try wipeLog()
    }

    /// Truncates the write-ahead log, so that deleted bytes are gone from it too, retrying while
    /// another connection reads (up to the busy timeout). Throws `wipePending` when it could not.
    func wipeLog() throws {
        if try emptyLogIntoMainFile() { return }
        // Remembered, so that the next open finishes it.
        try write(.resolve) { _ = try db.query("INSERT OR REPLACE INTO state(key, value) VALUES(?, 1)", [.text(PasscodeStore.wipePendingKey)]) }
        throw PasscodeError.wipePending
    }

    /// Copies the whole write-ahead log into the main database file and empties it (a
    /// truncating checkpoint), retrying while another connection reads, up to the busy timeout.
    /// True when done: then every commit so far is in the main file alone, and deleting the
    /// `-wal` and `-shm` files loses nothing; the log keeps no old page either.
    func emptyLogIntoMainFile() throws -> Bool {
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(options.busyTimeoutMs)
        while true {
            if try lock.withLock({ try db.checkpointTruncate() }) { return true }
            clock_gettime(CLOCK_MONOTONIC, &clock)
            if Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 >= deadline { return false }
            usleep(20_000)
        }
    }

    /// After a passcode change, reset or removal: the old wrap must not outlive it in the log
    /// (a copy of the main file and its `-wal` would open the data key with the old passcode).
    /// The change is made either way; when another connection holds the log, the next open
    /// (or the next checkpoint) finishes the job, as after a wipe.
    func flushLogAfterChange() {
        do { try wipeLog() } catch {}
    }

    static let wipePendingKey = "wipe_pending"

    /// At open: a wipe that another connection held up is finished now if it can be.
    func finishPendingWipe() throws {
        let pending = try lock.withLock { try db.scalar("SELECT value FROM state WHERE key = ?", [.text(PasscodeStore.wipePendingKey)]) != nil }
        guard pending, try lock.withLock({ try db.checkpointTruncate() }) else { return }
        try write(.resolve) { _ = try db.query("DELETE FROM state WHERE key = ?", [.text(PasscodeStore.wipePendingKey)]) }
        _ = try lock.withLock { try db.checkpointTruncate() }
    }
}
