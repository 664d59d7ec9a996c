// passcoded's methods for reset codes, the account, device sessions and the recovery key.
// Each calls the core call the embedded C API calls, on the handle kept for (uid, app id), a
// query on the blank store when the app id has no store, and the recovery key on a handle of
// the call's own (its proof is this call's only). Codes, passcodes, passwords and the recovery
// key come as `ay` (the message is sensitive: `handle`), copied into wiped buffers; the
// arguments are read by the generated dispatch (Passcode1.generated.swift).
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    /// The longest secret (`ay`) read here: the C API's own limit for a code or password.
    static let maxSecretBytes = 4096
    /// The longest session field read here: the C API's (`text`), so the core's own check of
    /// 256 bytes gives the embedded status and message.
    static let maxSessionFieldBytes = 1024

    // MARK: Reset by code (a code is never handed to the caller: there is no request here)

    func handleResetComplete(_ call: BusCall, appID app: AppID, code: SecretBytes, newPasscode new: SecretBytes) throws -> Prepared {
        try Service.checkEnrolment(caller: call.caller, app: app)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                [.bool(try s.completeReset(code: code, newPasscode: new).replaced)]
            }
        }
    }

    func handleResetCompleteWithRecoveryKey(_ call: BusCall, appID app: AppID, code: SecretBytes, newPasscode new: SecretBytes,
                                            recoveryKey recovery: SecretBytes) throws -> Prepared {
        try Service.checkEnrolment(caller: call.caller, app: app)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { _ = try $0.completeReset(code: code, newPasscode: new, recoveryKey: recovery) }
            return []
        }
    }

    func handleForgot(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            // A login store's "forgot" keeps the PIN and requires root's reset: asked without the
            // PIN, it must not leave the store without one (nullok would then pass the user).
            let login = Service.isLoginStore(app)
            try stores.withStore(uid: caller, appID: app) { login ? try $0.requireReset() : try $0.forgotPasscode() }
            return []
        }
    }

    // MARK: Recovery key

    func handleSetRecoveryKey(_ call: BusCall, appID app: AppID, recoveryKey recovery: SecretBytes, passcode proof: SecretBytes) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withFreshStore(uid: caller, appID: app) { s in
                try Service.releaseKey(s, proof: proof)
                try s.setRecoveryKey(recovery)
            }
            return []
        }
    }

    // MARK: Account

    func handleDeleteAccount(_ call: BusCall, appID app: AppID, confirmation: String) throws -> Prepared {
        try Service.checkEnrolment(caller: call.caller, app: app)  // it would remove the passcode without it
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { try $0.deleteAccount(confirmation: confirmation) }
            stores.removeLegacyRecipient(uid: caller, appID: app)  // the store's recipient went with its data
            return []
        }
    }

    // MARK: Device sessions

    func handleSessionRecord(_ call: BusCall, appID app: AppID, id: String, deviceName device: String, platform: String,
                             lastActiveMs last: Int64, hasLocation: Int32, location: String, isCurrent current: Int32) throws -> Prepared {
        guard current == 0 || current == 1 else { throw PasscodeError.misuse("is_current must be 0 or 1") }
        let session = DeviceSession(id: id, deviceName: device, platform: platform, lastActiveWallMs: last,
                                    location: hasLocation != 0 ? location : nil, isCurrent: current == 1)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { try $0.recordSession(session) }
            return []
        }
    }

    func handleSessionList(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStoreForQuery(uid: caller, appID: app) { s in
                [.array(element: "(sssxbsb)", try s.sessions().map { e in
                    [.string(e.id), .string(e.deviceName), .string(e.platform), .int64(e.lastActiveWallMs),
                     .bool(e.location != nil), .string(e.location ?? ""), .bool(e.isCurrent)]
                })]
            }
        }
    }

    func handleSessionSignOutOthers(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                let (count, failure) = try s.signOutOtherSessionsReporting()
                return [.uint32(UInt32(clamping: count)), .bool(failure != nil), .string(failure ?? "")]
            }
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
        } catch {  // a PasscodeError: authorize throws only those
            switch error {
            case .wrongPasscode, .lockedOut, .resetRequired, .format: throw PasscodeError.keyNotReleased
            default: throw error
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
    func readRecoveryKey(_ m: OpaquePointer, _ what: String) throws -> SecretBytes {
        let key = try readSecretBytes(m, what)
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
