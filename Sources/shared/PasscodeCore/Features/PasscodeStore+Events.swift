// The security event log: every security event is written in the same transaction as the change
// it records (a failed attempt in the write-ahead transaction), so a kill loses neither. Events
// carry their wall-clock time (display only), their kind and a detail that is never secret (no
// digits, codes or hashes). The log keeps the newest 1,000 events of the last 90 days.

extension SecurityEvent {
    /// The kind's name (`passcode_event_log_kind_name`): its case in lower case with underscores.
    public var name: String {
        switch self {
        case .failedAttempt: return "failed_attempt"
        case .lockoutStarted: return "lockout_started"
        case .unlockedByPasscode: return "unlocked_by_passcode"
        case .unlockedByBiometrics: return "unlocked_by_biometrics"
        case .biometricFailed: return "biometric_failed"
        case .maxFailuresReached: return "max_failures_reached"
        case .passcodeSet: return "passcode_set"
        case .passcodeChanged: return "passcode_changed"
        case .passcodeDisabled: return "passcode_disabled"
        case .passcodeEnabled: return "passcode_enabled"
        case .passcodeRemoved: return "passcode_removed"
        case .resetCodeRequested: return "reset_code_requested"
        case .resetCodeDelivered: return "reset_code_delivered"
        case .resetCodeDeliveryFailed: return "reset_code_delivery_failed"
        case .resetCompleted: return "reset_completed"
        case .resetCodeExpired: return "reset_code_expired"
        case .forgotPasscode: return "forgot_passcode"
        case .settingChanged: return "setting_changed"
        case .sessionSignedOut: return "session_signed_out"
        case .accountDeleted: return "account_deleted"
        case .tamperDetected: return "tamper_detected"
        case .tpmRollback: return "tpm_rollback"
        }
    }
}

/// One entry of the log.
public struct SecurityEventRecord: Equatable, Sendable {
    public var kind: SecurityEvent
    public var wallMs: Int64
    public var detail: String

    public init(kind: SecurityEvent, wallMs: Int64, detail: String) {
        self.kind = kind
        self.wallMs = wallMs
        self.detail = detail
    }
}

extension PasscodeStore {
    static let eventLogMaxCount: Int64 = 1000
    static let eventLogMaxAgeMs: Int64 = 90 * 86_400_000

    /// Appends an event inside the caller's write transaction and keeps the log bounded.
    /// Returns the event's id.
    @discardableResult
    func logLocked(_ kind: SecurityEvent, _ detail: String = "", now: ClockReading) throws(PasscodeError) -> Int64 {
        let id = try db.addEvent(kind: kind.rawValue, wallMs: now.wallMs, detail: detail)
        let (oldest, overflow) = now.wallMs.subtractingReportingOverflow(PasscodeStore.eventLogMaxAgeMs)
        try db.deleteEvents(upTo: id - PasscodeStore.eventLogMaxCount, before: overflow ? nil : oldest)
        return id
    }

    /// The log, newest first (`passcode_event_log_new`). Rows with an unknown kind are skipped.
    public func events() throws(PasscodeError) -> [SecurityEventRecord] {
        try read(.recover) { () throws(PasscodeError) in try eventsLocked() }  // readable on a tampered store too: it says what happened
    }

    /// The log, newest first, in the caller's transaction.
    func eventsLocked() throws(PasscodeError) -> [SecurityEventRecord] {
        try db.events().compactMap { row in
            guard let raw = row.kind, let kind = SecurityEvent(checked: Int32(clamping: raw)) else { return nil }
            return SecurityEventRecord(kind: kind, wallMs: row.wallMs, detail: row.detail)
        }
    }

    /// What to tell the user after an unlock, as Android does: the failed attempts since the
    /// previous unlock and the wall-clock time of the last one (`passcode_failure_summary`). While
    /// failures follow the latest unlock, those are counted instead.
    public func failureSummary() throws(PasscodeError) -> (failures: Int, lastFailureWallMs: Int64?) {
        try read { () throws(PasscodeError) in
            let unlocks = [SecurityEvent.unlockedByPasscode.rawValue, SecurityEvent.unlockedByBiometrics.rawValue]
            let latest = try db.latestEventID(of: unlocks)
            func count(after: Int64, before: Int64) throws(PasscodeError) -> (Int, Int64?) {
                try db.countEvents(of: SecurityEvent.failedAttempt.rawValue, after: after, before: before)
            }
            let since = try count(after: latest, before: Int64.max)
            if since.0 > 0 || latest == 0 { return since }
            return try count(after: try db.latestEventID(of: unlocks, before: latest), before: latest)
        }
    }
}
