// passcoded's methods for lock, app events, biometric policy and the security log.
import CPasscodeBus
import Glibc
import Passcode
import PasscodeCore

extension Service {
    /// The call `member` of this area, read and ready to run; nil when `member` is not one of them.
    func prepareLock(_ member: String, _ m: OpaquePointer, _ caller: uid_t) throws -> Prepared? {
        let stores = self.stores
        switch member {
        case "ReportEvent":
            let app = try readString(m, "app_id")
            var raw: Int32 = 0
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "i")), &raw), "event")
            // The reporter is read now, on the bus thread, while the caller waits for its answer.
            let process = try callerProcess(m)
            let value = raw
            return Prepared(uid: caller) {
                guard let event = AppEvent(checked: value) else { throw PasscodeError.misuse("unknown event \(value)") }
                return try stores.withStore(uid: caller, appID: app) { s in
                    let status = try s.report(event, from: process)
                    return [.bool(status.locked), .int32(status.reason.rawValue)]
                }
            }
        case "SetBiometricAvailability":
            let app = try readString(m, "app_id")
            var available: Int32 = 0, raw: Int32 = 0
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "b")), &available), "available")
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "i")), &raw), "kind")
            let on = available != 0, value = raw
            return Prepared(uid: caller) {
                guard let kind = BiometricKind(checked: value) else { throw PasscodeError.misuse("unknown biometric kind \(value)") }
                try stores.withStore(uid: caller, appID: app) { try $0.setBiometricAvailability(on, kind: kind) }
                return []
            }
        case "BiometricFailed":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { [.int64(try $0.biometricFailed())] }
            }
        case "GetEventLog":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStoreForQuery(uid: caller, appID: app) { s in
                    [.structs("ixs", try s.events().map { [.int32($0.kind.rawValue), .int64($0.wallMs), .string($0.detail)] })]
                }
            }
        case "IsTPMBound":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) { try stores.withStoreForQuery(uid: caller, appID: app) { [.bool(try $0.isTPMBound())] } }
        case "GetFailureSummary":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStoreForQuery(uid: caller, appID: app) { s in
                    let summary = try s.failureSummary()
                    return [.uint32(UInt32(clamping: summary.failures)), .bool(summary.lastFailureWallMs != nil),
                            .int64(summary.lastFailureWallMs ?? 0)]
                }
            }
        case "SetCustomSchedule":
            let app = try readString(m, "app_id")
            var p: UnsafeRawPointer?
            var size = 0
            try check(sd_bus_message_read_array(m, CChar(UInt8(ascii: "u")), &p, &size) >= 0 ? 1 : 0, "delays")
            // 1 to 100 delays, as the C call allows (the same status and message past them);
            // nothing larger is copied.
            let count = size / MemoryLayout<UInt32>.size
            try PasscodeStore.checkCustomScheduleCount(count)
            guard let p else { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "delays is missing") }
            let delays = (0..<count).map { Int64(p.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
            var maxFailures: UInt32 = 0
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &maxFailures), "max_failures")
            let most = Int(maxFailures)
            return Prepared(uid: caller) {
                // The embedded call's order: a table out of range is refused first; the core then
                // asks the app unlocked and the connection's proof (Proofs.swift).
                try PasscodeStore.checkCustomSchedule(delays: delays, maxFailures: most)
                try stores.withStore(uid: caller, appID: app) { try $0.setCustomSchedule(delays: delays, maxFailures: most) }
                return []
            }
        default: return nil
        }
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
