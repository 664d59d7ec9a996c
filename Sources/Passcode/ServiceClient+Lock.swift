// Service mode's calls for lock, app events, biometric policy and the security log, carried to
// passcoded (Service+Lock.swift). The reporting process of an event is the caller the bus
// names, never an argument; a biometric *match* is never carried (the C calls refuse it).
import PasscodeCore

extension ServiceClient {
    func report(_ event: AppEvent) throws -> LockStatus {
        var status: LockStatus?
        try call("ReportEvent", [.int32(event.rawValue)]) { r in
            let locked = try r.bool(), raw = try r.int32()
            guard let reason = LockReason(checked: raw) else { throw r.unexpected() }
            status = LockStatus(locked: locked, reason: reason)
        }
        // The core's rule (KeyRule); a suspended key serves only a biometric unlock, which
        // service mode refuses, so here it is dropped too.
        if KeyRule.after(event, locked: status!.locked) != .keep { keyState.dropKey() }
        return status!
    }

    func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws {
        try call("SetBiometricAvailability", [.bool(available), .int32(kind.rawValue)]) { _ in }
    }

    // The label, the check and the lead are fields of what a lock screen reads (GetLockScreen),
    // computed by the same core at one moment.
    func securityLabel() throws -> String { try lockScreen().kind.securityLabel }
    func biometricRefusal() throws -> BiometricRefusal { try lockScreen().refusal }
    func biometricLead() throws -> Bool { try lockScreen().lead }

    func biometricFailed() throws -> Int64 {
        var count: Int64 = 0
        try call("BiometricFailed", []) { count = try $0.int64() }
        if KeyRule.dropsAfterBiometricFailures(count) { keyState.dropKey() }  // the core's rule
        return count
    }

    func events() throws -> [SecurityEventRecord] {
        var log: [SecurityEventRecord] = []
        try call("GetEventLog", []) { r in
            try r.structs("ixs") {
                let raw = try r.int32(), wallMs = try r.int64(), detail = try r.string()
                guard let kind = SecurityEvent(checked: raw) else { throw r.unexpected() }
                log.append(SecurityEventRecord(kind: kind, wallMs: wallMs, detail: detail))
            }
        }
        return log
    }

    func failureSummary() throws -> (failures: Int, lastFailureWallMs: Int64?) {
        var summary: (Int, Int64?) = (0, nil)
        try call("GetFailureSummary", []) { r in
            let failures = try r.uint32(), has = try r.bool(), last = try r.int64()
            summary = (Int(failures), has ? last : nil)
        }
        return summary
    }

    /// Any change of the table weakens: passcoded asks the proof its connection holds, as `set(_:to:)`.
    func setCustomSchedule(delays: [Int64], maxFailures: Int) throws {
        let table = delays.map { UInt32(clamping: $0) }
        try call("SetCustomSchedule", [.uint32s(table), .uint32(UInt32(clamping: maxFailures))]) { _ in }
    }

    func isTPMBound() throws -> Bool {
        var bound = false
        try call("IsTPMBound", []) { bound = try $0.bool() }
        return bound
    }
}
