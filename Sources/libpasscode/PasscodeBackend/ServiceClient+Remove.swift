// Removing the store in service mode: passcoded removes the file it keeps for this app id
// (Service+Remove.swift), which frees one of the user's stores.
import PasscodeCore

extension ServiceClient {
    /// `passcode_store_remove`: RemoveStore(app_id, passcode), the passcode "" when none is set
    /// (passcoded answers as the embedded store: PASSCODE_REQUIRED, NO_PASSCODE, a verify's
    /// statuses). Afterwards the handle holds no key and no proof; the C layer answers
    /// STORE_REMOVED to its later calls.
    package func removeStore(current: SecretBytes?) throws(PasscodeError) {
        try callRemoveStore(passcode: current ?? SecretBytes(count: 0))
        forgetProof()
    }
}
