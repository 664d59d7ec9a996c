// The seam's calls for reset codes, the account, device sessions and the recovery key: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Account.swift).
import PasscodeCore

package protocol AccountBackend: AnyObject {
    // Reset by code (requesting a code stays embedded only: it hands the code to the host).
    func resetRetryAfterSeconds() throws -> Int64
    func checkReset(_ code: SecretBytes) throws
    /// `completeReset` without the key in the answer: true when a data key the host had been
    /// given was replaced (`PASSCODE_ERR_KEY_REPLACED`). With `recoveryKey` the key is kept.
    func resetPasscode(code: SecretBytes, newPasscode: SecretBytes, recoveryKey: SecretBytes?) throws -> Bool
    func isResetCodePending() throws -> Bool
    func forgotPasscode() throws
    // The recovery key.
    func setRecoveryKey(_ recoveryKey: SecretBytes) throws
    func clearRecoveryKey() throws
    func hasRecoveryKey() throws -> Bool
    // The account.
    func checkPasswordChange(current: SecretBytes, new: SecretBytes, confirmation: SecretBytes) throws
    func deleteAccount(confirmation: String) throws
    // Device sessions.
    func recordSession(_ s: DeviceSession) throws
    func sessions() throws -> [DeviceSession]
    func signOutSession(id: String) throws
    func signOutOtherSessionsReporting() throws -> (signedOut: Int, failure: String?)
}

/// The embedded back end: the core's own calls (the others have the same names).
extension PasscodeStore: AccountBackend {
    package func checkReset(_ code: SecretBytes) throws { _ = try checkResetCode(code) }

    package func resetPasscode(code: SecretBytes, newPasscode: SecretBytes, recoveryKey: SecretBytes?) throws -> Bool {
        try completeReset(code: code, newPasscode: newPasscode, recoveryKey: recoveryKey).replaced
    }
}
