// Service mode's reset codes (passcoded mails them; none is handed to the host), recovery key, account and
// device sessions: carried to passcoded (Sources/passcoded/Daemon/Service+Account.swift), where the
// same core calls answer them. Codes, passcodes, passwords and the recovery key travel as `ay`
// (their exact bytes, as the embedded store gets them) in sensitive messages.
import PasscodeBus
import PasscodeCore

extension ServiceClient {
    // MARK: - Reset by code

    /// passcoded makes the code and mails it (or, with a code pending, sends nothing); the
    /// answer is the masked address.
    package func requestReset() throws(PasscodeError) -> String? { try callResetRequest().maskedAddress }

    package func setResetRecipient(_ address: String, passcode: SecretBytes) throws(PasscodeError) -> String {
        try callSetResetRecipient(address: address, passcode: passcode)
    }

    package func confirmResetRecipient(code: SecretBytes, passcode: SecretBytes) throws(PasscodeError) -> String {
        try callConfirmResetRecipient(code: code, passcode: passcode)
    }

    package func resetRecipient() throws(PasscodeError) -> String { try callGetResetRecipient() }

    package func checkReset(_ code: SecretBytes) throws(PasscodeError) {
        try callResetCheck(code: code)
    }

    package func resetPasscode(code: SecretBytes, newPasscode: SecretBytes, recoveryKey: SecretBytes?) throws(PasscodeError) -> Bool {
        var replaced = false
        if let recoveryKey {
            try callResetCompleteWithRecoveryKey(code: code, newPasscode: newPasscode, recoveryKey: recoveryKey)
        } else {
            replaced = try callResetComplete(code: code, newPasscode: newPasscode)
        }
        keepProof(newPasscode)  // as embedded: the new passcode, just entered, proves the user
        return replaced
    }

    package func forgotPasscode() throws(PasscodeError) {
        try afterWipe { () throws(PasscodeError) in try callForgot() }
    }

    /// Runs a call that removes the passcode: done (or done with the wipe pending), the kept
    /// proof goes with it.
    private func afterWipe(_ body: () throws(PasscodeError) -> Void) throws(PasscodeError) {
        do {
            try body()
        } catch let f where f.serviceStatus == BusStatus.errWipePending {
            forgetProof()
            throw f
        }
        forgetProof()
    }

    // MARK: - Recovery key

    /// Embedded, the handle's released data key is wrapped; passcoded's handles are shared by
    /// the uid's processes, so this handle's kept passcode (within the core's proof window) goes
    /// with the call, and passcoded releases the key with it, counted as a verify.
    package func setRecoveryKey(_ recoveryKey: SecretBytes) throws(PasscodeError) {
        let proof = recentProof() ?? SecretBytes(count: 0)
        try callSetRecoveryKey(recoveryKey: recoveryKey, passcode: proof)
    }

    // MARK: - Account

    package func deleteAccount(confirmation: String) throws(PasscodeError) {
        try afterWipe { () throws(PasscodeError) in try callDeleteAccount(confirmation: confirmation) }
    }

    // MARK: - Device sessions

    package func recordSession(_ s: DeviceSession) throws(PasscodeError) {
        try callSessionRecord(id: s.id, deviceName: s.deviceName, platform: s.platform, lastActiveMs: s.lastActiveWallMs,
                              hasLocation: s.location == nil ? 0 : 1, location: s.location ?? "", isCurrent: s.isCurrent ? 1 : 0)
    }

    package func sessions() throws(PasscodeError) -> [DeviceSession] {
        try callSessionList().map { id, device, platform, last, hasLocation, location, current in
            DeviceSession(id: id, deviceName: device, platform: platform, lastActiveWallMs: last,
                          location: hasLocation ? location : nil, isCurrent: current)
        }
    }

    package func signOutOtherSessionsReporting() throws(PasscodeError) -> (signedOut: Int, failure: String?) {
        let answer = try callSessionSignOutOthers()
        return (Int(answer.signedOut), answer.failed ? answer.failure : nil)
    }
}
