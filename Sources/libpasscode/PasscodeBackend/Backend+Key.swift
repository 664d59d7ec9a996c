// The seam's calls for the data key, sealing and entry flows: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Key.swift).
import PasscodeCore

/// The data key, sealing and the store of entry flows (`FlowStore`, so that one `PasscodeFlow`
/// runs over either back end).
package protocol KeyBackend: AnyObject, FlowStore {
    /// Verifies like `passcode_verify` and returns the data key (`passcode_unlock_key`), released
    /// on this handle.
    func unlockKey(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes
    /// Seals with the key released on this handle (`passcode_seal`); the sealed length.
    func seal(_ plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int
    /// Opens with the key released on this handle (`passcode_unseal`); the plain length.
    func unseal(_ sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int
    /// Whether the handle was closed (a flow made at that moment ends at once).
    var isClosed: Bool { get }
}

/// The embedded store: `unlockKey`, `seal`, `unseal` and `isClosed` are its own.
extension PasscodeStore: KeyBackend {}
