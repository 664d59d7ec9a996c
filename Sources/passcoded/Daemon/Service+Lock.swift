// passcoded's methods for lock, app events, biometric policy and the security log.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    func handleReportEvent(_ call: BusCall, appID app: AppID, event value: Int32) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        // The reporter is read now, on the bus thread, while the caller waits for its answer.
        let process = try callerProcess(call.message)
        return Prepared(uid: caller) {
            guard let event = AppEvent(checked: value) else { throw PasscodeError.misuse("unknown event \(value)") }
            return try stores.withStore(uid: caller, appID: app) { s in
                let status = try s.report(event, from: process)
                return [.bool(status.locked), .int32(status.reason.rawValue)]
            }
        }
    }

    func handleSetBiometricAvailability(_ call: BusCall, appID app: AppID, available _: Bool, kind value: Int32) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            guard let kind = BiometricKind(checked: value) else { throw PasscodeError.misuse("unknown biometric kind \(value)") }
            // The host's word on the reader is not taken: its report is the moment to
            // ask fprintd, whose answer (a reader with a finger of this user's) is what the policy
            // reads; the host's kind names what it shows while fprintd has no reader.
            var buffer = [CChar](repeating: 0, count: 512)
            let available = passcode_fprint_probe(caller, &buffer, buffer.count) == Int32(PASSCODE_FPRINT_OK)
            try stores.withStore(uid: caller, appID: app) { try $0.setBiometricAvailability(available, kind: available ? .fingerprint : kind) }
            return []
        }
    }

    func handleGetEventLog(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            // The store's own log, then its removed predecessors' (KeptEvents.swift).
            let events = try stores.withStoreForQuery(uid: caller, appID: app) { try $0.events() } + stores.keptEvents(uid: caller, appID: app)
            return [.structs("ixs", events.map { [.int32($0.kind.rawValue), .int64($0.wallMs), .string($0.detail)] })]
        }
    }

    func handleGetFailureSummary(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStoreForQuery(uid: caller, appID: app) { s in
                let summary = try s.failureSummary()
                return [.uint32(UInt32(clamping: summary.failures)), .bool(summary.lastFailureWallMs != nil),
                        .int64(summary.lastFailureWallMs ?? 0)]
            }
        }
    }

    func handleSetCustomSchedule(_ call: BusCall, appID app: AppID, delays: [Int64], maxFailures: UInt32) throws -> Prepared {
        let stores = self.stores, caller = call.caller, most = Int(maxFailures)
        return Prepared(uid: caller) {
            // The embedded call's order: a table out of range is refused first; the core then
            // asks the app unlocked and the connection's proof (Proofs.swift).
            try PasscodeStore.checkCustomSchedule(delays: delays, maxFailures: most)
            try stores.withStore(uid: caller, appID: app) { try $0.setCustomSchedule(delays: delays, maxFailures: most) }
            return []
        }
    }

    /// The delays of SetCustomSchedule ('au'): 1 to 100, as the C call allows (the same status and
    /// message past them); nothing larger is copied.
    func readDelays(_ m: OpaquePointer, _ what: String) throws -> [Int64] {
        var p: UnsafeRawPointer?
        var size = 0
        try check(sd_bus_message_read_array(m, CChar(UInt8(ascii: "u")), &p, &size) >= 0 ? 1 : 0, what)
        let count = size / MemoryLayout<UInt32>.size
        try PasscodeStore.checkCustomScheduleCount(count)
        guard let p else { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is missing") }
        return (0..<count).map { Int64(p.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
    }

    /// The process that sent `m`: its pid from the bus daemon's record of the connection, its
    /// start time read from /proc now (so a pid used again later is another process).
    func callerProcess(_ m: OpaquePointer) throws -> ReportingProcess {
        var pid: pid_t = 0
        guard passcode_bus_sender_pid(m, &pid) >= 0 else {
            throw CallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "the caller's process cannot be established")
        }
        return ReportingProcess(pid: Int64(pid))
    }
}
