// Service mode's calls for lock, app events, biometric policy and the security log, carried to
// passcoded (Service+Lock.swift). The reporting process of an event is the caller the bus
// names, never an argument; a biometric *match* is never carried (the C calls refuse it).
import PasscodeCore

extension ServiceClient {
    func report(_ event: AppEvent) throws(PasscodeError) -> LockStatus {
        var status: LockStatus?
        try call("ReportEvent", [.int32(event.rawValue)]) { (r) throws(PasscodeError) in
            let locked = try r.bool(), raw = try r.int32()
            guard let reason = LockReason(checked: raw) else { throw r.unexpected() }
            status = LockStatus(locked: locked, reason: reason)
        }
        // As embedded, a lock takes the key from this handle: "lock now" drops it, any other lock
        // keeps it only for a biometric unlock, which service mode refuses (so it is dropped too).
        if status!.locked { keyState.dropKey() }
        return status!
    }

    func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws(PasscodeError) {
        try call("SetBiometricAvailability", [.bool(available), .int32(kind.rawValue)]) { _ in }
    }

    // The label, the check and the lead are fields of what a lock screen reads (GetLockScreen),
    // computed by the same core at one moment.
    func securityLabel() throws(PasscodeError) -> String { try lockScreen().kind.securityLabel }
    func biometricRefusal() throws(PasscodeError) -> BiometricRefusal { try lockScreen().refusal }
    func biometricLead() throws(PasscodeError) -> Bool { try lockScreen().lead }

    func biometricFailed() throws(PasscodeError) -> Int64 {
        var count: Int64 = 0
        try call("BiometricFailed", []) { (p0) throws(PasscodeError) in count = try p0.int64() }
        return count
    }

    func events() throws(PasscodeError) -> [SecurityEventRecord] {
        var log: [SecurityEventRecord] = []
        try call("GetEventLog", []) { (r) throws(PasscodeError) in
            try r.structs("ixs") { () throws(PasscodeError) in
                let raw = try r.int32(), wallMs = try r.int64(), detail = try r.string()
                guard let kind = SecurityEvent(checked: raw) else { throw r.unexpected() }
                log.append(SecurityEventRecord(kind: kind, wallMs: wallMs, detail: detail))
            }
        }
        return log
    }

    func failureSummary() throws(PasscodeError) -> (failures: Int, lastFailureWallMs: Int64?) {
        var summary: (Int, Int64?) = (0, nil)
        try call("GetFailureSummary", []) { (r) throws(PasscodeError) in
            let failures = try r.uint32(), has = try r.bool(), last = try r.int64()
            summary = (Int(failures), has ? last : nil)
        }
        return summary
    }

    /// As `set(_:to:)`: the passcode this handle proved within 5 minutes goes with the table,
    /// and passcoded checks it on a handle of the call's own.
    func setCustomSchedule(delays: [Int64], maxFailures: Int) throws(PasscodeError) {
        try PasscodeStore.checkCustomScheduleCount(delays.count)  // the bus carries 1 to 100 only
        let table = delays.map { UInt32(clamping: $0) }
        try call("SetCustomSchedule", [.uint32s(table), .uint32(UInt32(clamping: maxFailures))]) { _ in }
    }

    func isTPMBound() throws(PasscodeError) -> Bool {
        var bound = false
        try call("IsTPMBound", []) { (p0) throws(PasscodeError) in bound = try p0.bool() }
        return bound
    }
}
