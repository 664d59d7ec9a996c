// The seam's calls on another user's store, named by uid (passcoded's User* methods, for
// pam_passcode(8) and passcodectl(8)): the service client carries them (ServiceClient+User.swift);
// the embedded store has no users but its own file's, so it refuses them.
import PasscodeCore

/// A store's state as `passcode_user_state` gives it.
package struct UserState: Sendable {
    package var isSet: Bool
    package var failures: UInt32
    package var lockoutSeconds: Int64
    package var resetRequired: Bool
    package var length: Int32
}

/// A login store's lock state as `passcode_user_lockout` gives it (passcoded's login objects).
package struct UserLockout: Sendable {
    /// A passcode_login_state.
    package var state: LoginState
    package var lockoutSeconds: Int64
    package var failures: UInt32
    /// Wrong passcodes before the next delay or reset (-1: none ahead).
    package var attemptsLeft: Int32
    /// The delay that one starts in seconds; -1: it requires a reset; 0: none ahead.
    package var nextDelaySeconds: Int64
    /// A passcode_biometric_refusal (none: a finger may be used now).
    package var fingerprintRefusal: BiometricRefusal
}

package protocol UserBackend: AnyObject {
    func userState(uid: UInt32) throws(PasscodeError) -> UserState
    func userLockout(uid: UInt32) throws(PasscodeError) -> UserLockout
    func userVerify(uid: UInt32, _ code: SecretBytes) throws(PasscodeError)
    func userSet(uid: UInt32, _ code: SecretBytes) throws(PasscodeError)
    func userChange(uid: UInt32, current: SecretBytes, new: SecretBytes) throws(PasscodeError)
    /// `current` nil: removed without it (root only).
    func userRemove(uid: UInt32, current: SecretBytes?) throws(PasscodeError)
    func userReset(uid: UInt32) throws(PasscodeError)
    func userEvents(uid: UInt32) throws(PasscodeError) -> [SecurityEventRecord]
    /// Whether passcoded may read a finger for the store now: PASSCODE_REQUIRED with why not.
    func userFingerprintReady(uid: UInt32) throws(PasscodeError)
    /// A finger read by passcoded for the store: a match unlocks, as the core counts one.
    func userFingerprintUnlock(uid: UInt32) throws(PasscodeError)
    /// Ends a read waiting on this handle (any thread), and every later one.
    func userFingerprintCancel()
}

/// The embedded store: no uid to name.
extension PasscodeStore: UserBackend {
    private static func noUsers() -> PasscodeError {
        .notInServiceMode("a user's store is named by uid through the passcode service only: open the handle in service mode (passcode_options_set_service)")
    }
    package func userState(uid: UInt32) throws(PasscodeError) -> UserState { throw PasscodeStore.noUsers() }
    package func userLockout(uid: UInt32) throws(PasscodeError) -> UserLockout { throw PasscodeStore.noUsers() }
    package func userVerify(uid: UInt32, _ code: SecretBytes) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userSet(uid: UInt32, _ code: SecretBytes) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userChange(uid: UInt32, current: SecretBytes, new: SecretBytes) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userRemove(uid: UInt32, current: SecretBytes?) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userReset(uid: UInt32) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userEvents(uid: UInt32) throws(PasscodeError) -> [SecurityEventRecord] { throw PasscodeStore.noUsers() }
    package func userFingerprintReady(uid: UInt32) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userFingerprintUnlock(uid: UInt32) throws(PasscodeError) { throw PasscodeStore.noUsers() }
    package func userFingerprintCancel() {}
}
