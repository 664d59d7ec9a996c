// The seam's calls for reset codes, the account, device sessions and the recovery key: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Account.swift).
import PasscodeCore

package protocol AccountBackend: AnyObject {
    // Reset by code. A request: embedded, the code goes to the host's delivery callback (nil);
    // service mode, passcoded mails it to the store's recipient (the masked address).
    func requestReset() throws(PasscodeError) -> String?
    /// The recipient of mailed codes (service mode; the masked address back). Embedded: `state`.
    func setResetRecipient(_ address: String, passcode: SecretBytes) throws(PasscodeError) -> String
    /// The confirmation code mailed to a new recipient, with the passcode (service mode; the
    /// masked recipient back). Embedded: `state`.
    func confirmResetRecipient(code: SecretBytes, passcode: SecretBytes) throws(PasscodeError) -> String
    /// The masked recipient, "" when none (service mode). Embedded: `state`.
    func resetRecipient() throws(PasscodeError) -> String
    func resetRetryAfterSeconds() throws(PasscodeError) -> Int64
    func checkReset(_ code: SecretBytes) throws(PasscodeError)
    /// `completeReset` without the key in the answer: true when a data key the host had been
    /// given was replaced (`PASSCODE_ERR_KEY_REPLACED`). With `recoveryKey` the key is kept.
    func resetPasscode(code: SecretBytes, newPasscode: SecretBytes, recoveryKey: SecretBytes?) throws(PasscodeError) -> Bool
    func isResetCodePending() throws(PasscodeError) -> Bool
    func forgotPasscode() throws(PasscodeError)
    // The recovery key.
    func setRecoveryKey(_ recoveryKey: SecretBytes) throws(PasscodeError)
    func clearRecoveryKey() throws(PasscodeError)
    func hasRecoveryKey() throws(PasscodeError) -> Bool
    // The account.
    func checkPasswordChange(current: SecretBytes, new: SecretBytes, confirmation: SecretBytes) throws(PasscodeError)
    func deleteAccount(confirmation: String) throws(PasscodeError)
    // Device sessions.
    func recordSession(_ s: DeviceSession) throws(PasscodeError)
    func sessions() throws(PasscodeError) -> [DeviceSession]
    func signOutSession(id: String) throws(PasscodeError)
    func signOutOtherSessionsReporting() throws(PasscodeError) -> (signedOut: Int, failure: String?)
}

/// The embedded back end: the core's own calls (the others have the same names).
extension PasscodeStore: AccountBackend {
    package func requestReset() throws(PasscodeError) -> String? {
        try requestResetCode()
        return nil
    }

    package func setResetRecipient(_ address: String, passcode: SecretBytes) throws(PasscodeError) -> String {
        throw PasscodeError.state("the reset recipient is passcoded's (service mode); the embedded store hands codes to the delivery callback")
    }

    package func confirmResetRecipient(code: SecretBytes, passcode: SecretBytes) throws(PasscodeError) -> String {
        throw PasscodeError.state("the reset recipient is passcoded's (service mode); the embedded store hands codes to the delivery callback")
    }

    package func resetRecipient() throws(PasscodeError) -> String {
        throw PasscodeError.state("the reset recipient is passcoded's (service mode); the embedded store hands codes to the delivery callback")
    }

    package func checkReset(_ code: SecretBytes) throws(PasscodeError) { _ = try checkResetCode(code) }

    package func resetPasscode(code: SecretBytes, newPasscode: SecretBytes, recoveryKey: SecretBytes?) throws(PasscodeError) -> Bool {
        try completeReset(code: code, newPasscode: newPasscode, recoveryKey: recoveryKey).replaced
    }
}
