// The one seam behind the C ABI: a store handle calls a back end, either the embedded store
// (PasscodeStore in the host's process, the default) or passcoded's client (service mode, the
// stores under another uid). The rules live once, in PasscodeStore: passcoded runs the same
// core, and its client only carries the calls (ServiceClient.swift).
import PasscodeCore

/// What the C calls that both back ends offer need. Calls outside this protocol reach the
/// embedded store only (`withStore`); in service mode they answer `PASSCODE_ERR_NOT_IN_SERVICE_MODE`
/// or, when they would let the host choose a rule or see a secret, `PASSCODE_ERR_REFUSED_IN_SERVICE_MODE`.
package protocol StoreBackend: AnyObject, Sendable, LockBackend, AccountBackend, KeyBackend, HookBackend, UserBackend {
    func isPasscodeSet() throws(PasscodeError) -> Bool
    func isLockEnabled() throws(PasscodeError) -> Bool
    func setFirstPasscode(_ code: SecretBytes) throws(PasscodeError)
    func checkPasscode(_ code: SecretBytes) throws(PasscodeError)
    func authorize(_ code: SecretBytes) throws(PasscodeError)
    func changePasscode(current: SecretBytes, new: SecretBytes) throws(PasscodeError)
    func removePasscode(current: SecretBytes) throws(PasscodeError)
    func turnOff(current: SecretBytes) throws(PasscodeError)
    func enable() throws(PasscodeError)
    func failedAttempts() throws(PasscodeError) -> Int
    func passcodeLength() throws(PasscodeError) -> Int
    func setPasscodeLength(_ n: Int) throws(PasscodeError)
    func lockoutRemainingSeconds() throws(PasscodeError) -> Int64
    func isResetRequired() throws(PasscodeError) -> Bool
    func get(_ setting: Setting) throws(PasscodeError) -> Int64
    func set(_ setting: Setting, to value: Int64) throws(PasscodeError)
    func lockStatus() throws(PasscodeError) -> LockStatus
    func lockScreen() throws(PasscodeError) -> LockScreen
    /// `lockScreen()` as `make` lays it out, `count` bytes of it from `start` copied to
    /// `destination`; the embedded store keeps the layout while the store is unchanged
    /// (`PasscodeStore.copyLockScreen`).
    func copyLockScreen(to destination: UnsafeMutableRawPointer, from start: Int, count: Int,
                        make: (LockScreen, UnsafeMutableRawPointer) -> Void) throws(PasscodeError)
    /// Removes the whole store (`passcode_store_remove`); `current`: its passcode, nil when none is set.
    func removeStore(current: SecretBytes?) throws(PasscodeError)
    func close()
}

/// The embedded back end: the store itself, as before the seam.
extension PasscodeStore: StoreBackend {
    package func setFirstPasscode(_ code: SecretBytes) throws(PasscodeError) { _ = try setPasscode(code) }
    package func checkPasscode(_ code: SecretBytes) throws(PasscodeError) { _ = try verify(code) }
    package func turnOff(current: SecretBytes) throws(PasscodeError) { _ = try disable(current: current) }
}
