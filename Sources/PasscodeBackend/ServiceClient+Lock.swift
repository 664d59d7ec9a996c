// Service mode's calls for lock, app events, biometric policy and the security log, carried to
// passcoded (Service+Lock.swift). The reporting process of an event is the caller the bus
// names, never an argument; a biometric *match* is never carried (the C calls refuse it).
import PasscodeCore

extension ServiceClient {
    package func report(_ event: AppEvent) throws -> LockStatus {
        let answer = try callReportEvent(event: event.rawValue)
        // As embedded, a lock takes the key from this handle: "lock now" drops it, any other lock
        // keeps it only for a biometric unlock, which service mode refuses (so it is dropped too).
        if answer.locked { keyState.dropKey() }
        return LockStatus(locked: answer.locked, reason: answer.reason)
    }

    package func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws {
        try callSetBiometricAvailability(available: available, kind: kind.rawValue)
    }

    // The label, the check and the lead are fields of what a lock screen reads (GetLockScreen),
    // computed by the same core at one moment.
    package func securityLabel() throws -> String { try lockScreen().kind.securityLabel }
    package func biometricRefusal() throws -> BiometricRefusal { try lockScreen().refusal }
    package func biometricLead() throws -> Bool { try lockScreen().lead }

    package func biometricFailed() throws -> Int64 {
        try callBiometricFailed()
    }

    package func events() throws -> [SecurityEventRecord] {
        try callGetEventLog().map { SecurityEventRecord(kind: $0.0, wallMs: $0.1, detail: $0.2) }
    }

    package func failureSummary() throws -> (failures: Int, lastFailureWallMs: Int64?) {
        let summary = try callGetFailureSummary()
        return (Int(summary.failures), summary.hasLast ? summary.lastWallMs : nil)
    }

    /// As `set(_:to:)`: no passcode goes with the table; passcoded asks the proof of a passcode
    /// entered on this connection within 5 minutes (it keeps it per connection) and the app unlocked.
    package func setCustomSchedule(delays: [Int64], maxFailures: Int) throws {
        try PasscodeStore.checkCustomScheduleCount(delays.count)  // the bus carries 1 to 100 only
        let table = delays.map { UInt32(clamping: $0) }
        try callSetCustomSchedule(delays: table, maxFailures: UInt32(clamping: maxFailures))
    }

    package func isTPMBound() throws -> Bool {
        try callIsTPMBound()
    }
}
