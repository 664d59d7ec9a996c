// The seam's calls for callbacks and hooks asked of the host: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Hooks.swift).
import PasscodeCore

package protocol HookBackend: AnyObject {
    /// Replaces some of the host's callbacks (`Hooks`). Embedded: kept on the store, which asks
    /// them itself. Service mode: kept in the host, and passcoded is told which ones the handle
    /// has; its core asks them over the bus where the embedded core asks them.
    func updateHooks(_ change: (inout Hooks) -> Void) throws(PasscodeError)
}
