// passcoded's methods for reset codes, the account, device sessions and the recovery key.
// Each calls the core call the embedded C API calls, on the handle kept for (uid, app id), a
// query on the blank store when the app id has no store, and the recovery key on a handle of
// the call's own (its proof is this call's only). Codes, passcodes, passwords and the recovery
// key come as `ay` (the message is sensitive: `handle`), copied into wiped buffers.
import CPasscodeBus
import Glibc
import Passcode
import PasscodeCore

extension Service {
    /// The longest secret (`ay`) read here: the C API's own limit for a code or password.
    static let maxSecretBytes = 4096
    /// The longest session field read here: the C API's (`text`), so the core's own check of
    /// 256 bytes gives the embedded status and message.
    static let maxSessionFieldBytes = 1024

    /// The call `member` of this area, read and ready to run; nil when `member` is not one of them.
    func prepareAccount(_ member: String, _ m: OpaquePointer, _ caller: uid_t) throws -> Prepared? {
        let stores = self.stores
        switch member {
        // MARK: Reset by code (a code is never handed to the caller: there is no request here)
        case "ResetRetryAfter":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStoreForQuery(uid: caller, appID: app) { [.int64(try $0.resetRetryAfterSeconds())] }
            }
        case "ResetCheck":
            let app = try readString(m, "app_id")
            let code = try readSecretBytes(m, "code")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { _ = try $0.checkResetCode(code) }
                return []
            }
        case "ResetComplete":
            let app = try readString(m, "app_id")
            let code = try readSecretBytes(m, "code")
            let new = try readSecretBytes(m, "new_passcode")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { s in
                    [.bool(try s.completeReset(code: code, newPasscode: new).replaced)]
                }
            }
        case "ResetCompleteWithRecoveryKey":
            let app = try readString(m, "app_id")
            let code = try readSecretBytes(m, "code")
            let new = try readSecretBytes(m, "new_passcode")
            let recovery = try readRecoveryKey(m)
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { _ = try $0.completeReset(code: code, newPasscode: new, recoveryKey: recovery) }
                return []
            }
        case "ResetPending":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStoreForQuery(uid: caller, appID: app) { [.bool(try $0.isResetCodePending())] }
            }
        case "Forgot":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.forgotPasscode() }
                return []
            }
        // MARK: Recovery key
        case "SetRecoveryKey":
            let app = try readString(m, "app_id")
            let recovery = try readRecoveryKey(m)
            let proof = try readSecretBytes(m, "passcode")
            return Prepared(uid: caller) {
                try stores.withFreshStore(uid: caller, appID: app) { s in
                    try Service.releaseKey(s, proof: proof)
                    try s.setRecoveryKey(recovery)
                }
                return []
            }
        case "ClearRecoveryKey":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.clearRecoveryKey() }
                return []
            }
        case "HasRecoveryKey":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStoreForQuery(uid: caller, appID: app) { [.bool(try $0.hasRecoveryKey())] }
            }
        // MARK: Account
        case "PasswordChangeCheck":
            let app = try readString(m, "app_id")
            let current = try readSecretBytes(m, "current")
            let new = try readSecretBytes(m, "new_password")
            let confirmation = try readSecretBytes(m, "confirmation")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.checkPasswordChange(current: current, new: new, confirmation: confirmation) }
                return []
            }
        case "DeleteAccount":
            let app = try readString(m, "app_id")
            let confirmation = try readString(m, "confirmation")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.deleteAccount(confirmation: confirmation) }
                return []
            }
        // MARK: Device sessions
        case "SessionRecord":
            let app = try readString(m, "app_id")
            let id = try readField(m, "id"), device = try readField(m, "device_name"), platform = try readField(m, "platform")
            var last: Int64 = 0, hasLocation: Int32 = 0, current: Int32 = 0
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "x")), &last), "last_active_ms")
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "i")), &hasLocation), "has_location")
            let location = try readField(m, "location")
            try check(sd_bus_message_read_basic(m, CChar(UInt8(ascii: "i")), &current), "is_current")
            guard current == 0 || current == 1 else { throw PasscodeError.misuse("is_current must be 0 or 1") }
            let session = DeviceSession(id: id, deviceName: device, platform: platform, lastActiveWallMs: last,
                                        location: hasLocation != 0 ? location : nil, isCurrent: current == 1)
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.recordSession(session) }
                return []
            }
        case "SessionList":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStoreForQuery(uid: caller, appID: app) { s in
                    [.array(element: "(sssxbsb)", try s.sessions().map { e in
                        [.string(e.id), .string(e.deviceName), .string(e.platform), .int64(e.lastActiveWallMs),
                         .bool(e.location != nil), .string(e.location ?? ""), .bool(e.isCurrent)]
                    })]
                }
            }
        case "SessionSignOut":
            let app = try readString(m, "app_id")
            let id = try readField(m, "id")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.signOutSession(id: id) }
                return []
            }
        case "SessionSignOutOthers":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { s in
                    let (count, failure) = try s.signOutOtherSessionsReporting()
                    return [.uint32(UInt32(clamping: count)), .bool(failure != nil), .string(failure ?? "")]
                }
            }
        default: return nil
        }
    }

    /// What embedded is "the data key released on this handle": the app unlocked (a lock now,
    /// the auto-lock or a launch suspends it) and the passcode entered on this caller's handle
    /// (its `proof`, checked now, counted as a verify). Else `PASSCODE_ERR_KEY_NOT_RELEASED`, as
    /// embedded; a proof that no longer holds (the passcode changed meanwhile) says the same.
    static func releaseKey(_ s: PasscodeStore, proof: SecretBytes) throws {
        guard proof.count > 0, try !s.lockStatus().locked else { throw PasscodeError.keyNotReleased }
        do {
            try s.authorize(proof)
        } catch let e as PasscodeError {
            switch e {
            case .wrongPasscode, .lockedOut, .resetRequired, .format: throw PasscodeError.keyNotReleased
            default: throw e
            }
        }
    }

    /// A secret `ay` argument of up to `maxSecretBytes`, copied into a wiped buffer (an empty
    /// one is read as empty: the core answers it as embedded).
    func readSecretBytes(_ m: OpaquePointer, _ what: String) throws -> SecretBytes {
        var p: UnsafeRawPointer?
        var n = 0
        guard sd_bus_message_read_array(m, CChar(UInt8(ascii: "y")), &p, &n) >= 0 else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "cannot read the argument \(what)")
        }
        guard n <= Service.maxSecretBytes else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is longer than \(Service.maxSecretBytes) bytes")
        }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: n > 0 ? p : nil, count: n))
    }

    /// The recovery key: exactly 32 bytes, else `PASSCODE_ERR_MISUSE` before anything else, with
    /// the C API's message (its entry points check the same first).
    func readRecoveryKey(_ m: OpaquePointer) throws -> SecretBytes {
        let key = try readSecretBytes(m, "recovery_key")
        guard key.count == 32 else { throw PasscodeError.misuse("the recovery key must be 32 bytes, not \(key.count)") }
        return key
    }

    /// A session's string field, up to `maxSessionFieldBytes`.
    func readField(_ m: OpaquePointer, _ what: String) throws -> String {
        var p: UnsafePointer<CChar>?
        try check(passcode_bus_read_string(m, &p), what)
        guard let p else { throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is missing") }
        guard strnlen(p, Service.maxSessionFieldBytes + 1) <= Service.maxSessionFieldBytes else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(what) is longer than \(Service.maxSessionFieldBytes) bytes")
        }
        return String(cString: p)
    }
}
