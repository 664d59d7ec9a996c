// Service mode's reset codes (all but handing a code to the host), recovery key, account and
// device sessions: carried to passcoded (Sources/passcoded/Service+Account.swift), where the
// same core calls answer them. Codes, passcodes, passwords and the recovery key travel as `ay`
// (their exact bytes, as the embedded store gets them) in sensitive messages.
import PasscodeCore

extension ServiceClient {
    // MARK: - Reset by code

    func resetRetryAfterSeconds() throws -> Int64 {
        var seconds: Int64 = 0
        try call("ResetRetryAfter", []) { seconds = try $0.int64() }
        return seconds
    }

    func checkReset(_ code: SecretBytes) throws {
        try call("ResetCheck", [.secretBytes(code)]) { _ in }
    }

    func resetPasscode(code: SecretBytes, newPasscode: SecretBytes, recoveryKey: SecretBytes?) throws -> Bool {
        var replaced = false
        if let recoveryKey {
            try call("ResetCompleteWithRecoveryKey", [.secretBytes(code), .secretBytes(newPasscode), .secretBytes(recoveryKey)]) { _ in }
        } else {
            try call("ResetComplete", [.secretBytes(code), .secretBytes(newPasscode)]) { replaced = try $0.bool() }
        }
        keepProof(newPasscode)  // as embedded: the new passcode, just entered, proves the user
        return replaced
    }

    func isResetCodePending() throws -> Bool {
        var pending = false
        try call("ResetPending", []) { pending = try $0.bool() }
        return pending
    }

    func forgotPasscode() throws {
        try afterWipe { try call("Forgot", []) { _ in } }
    }

    /// Runs a call that removes the passcode: done (or done with the wipe pending), the kept
    /// proof goes with it.
    private func afterWipe(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let f as ServiceFailure where f.status == Status.errWipePending.rawValue {
            forgetProof()
            throw f
        }
        forgetProof()
    }

    // MARK: - Recovery key

    /// Embedded, the handle's released data key is wrapped; passcoded's handles are shared by
    /// the uid's processes, so this handle's kept passcode (within the core's proof window) goes
    /// with the call, and passcoded releases the key with it, counted as a verify.
    func setRecoveryKey(_ recoveryKey: SecretBytes) throws {
        let proof = recentProof() ?? SecretBytes(count: 0)
        try call("SetRecoveryKey", [.secretBytes(recoveryKey), .secretBytes(proof)]) { _ in }
    }

    func clearRecoveryKey() throws {
        try call("ClearRecoveryKey", []) { _ in }
    }

    func hasRecoveryKey() throws -> Bool {
        var has = false
        try call("HasRecoveryKey", []) { has = try $0.bool() }
        return has
    }

    // MARK: - Account

    func checkPasswordChange(current: SecretBytes, new: SecretBytes, confirmation: SecretBytes) throws {
        try call("PasswordChangeCheck", [.secretBytes(current), .secretBytes(new), .secretBytes(confirmation)]) { _ in }
    }

    func deleteAccount(confirmation: String) throws {
        try afterWipe { try call("DeleteAccount", [.text(confirmation)]) { _ in } }
    }

    // MARK: - Device sessions

    func recordSession(_ s: DeviceSession) throws {
        try call("SessionRecord", [.text(s.id), .text(s.deviceName), .text(s.platform), .int64(s.lastActiveWallMs),
                                   .int32(s.location == nil ? 0 : 1), .text(s.location ?? ""), .int32(s.isCurrent ? 1 : 0)]) { _ in }
    }

    func sessions() throws -> [DeviceSession] {
        var list: [DeviceSession] = []
        try call("SessionList", []) { r in
            try r.array("(sssxbsb)") { e in
                let id = try e.string(), device = try e.string(), platform = try e.string(), last = try e.int64()
                let hasLocation = try e.bool(), location = try e.string(), current = try e.bool()
                list.append(DeviceSession(id: id, deviceName: device, platform: platform, lastActiveWallMs: last,
                                          location: hasLocation ? location : nil, isCurrent: current))
            }
        }
        return list
    }

    func signOutSession(id: String) throws {
        try call("SessionSignOut", [.text(id)]) { _ in }
    }

    func signOutOtherSessionsReporting() throws -> (signedOut: Int, failure: String?) {
        var count: UInt32 = 0, failed = false, failure = ""
        try call("SessionSignOutOthers", []) { r in
            count = try r.uint32()
            failed = try r.bool()
            failure = try r.string()
        }
        return (Int(count), failed ? failure : nil)
    }
}
