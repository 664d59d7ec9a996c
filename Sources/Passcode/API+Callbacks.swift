// The C ABI for host callbacks. Every callback gets the host's `payload` back unchanged and
// is called with no library lock held, on the thread of the call that triggered it.
import PasscodeCore

/// Why the library asks the host to log the user out.
@c(passcode_logout_reason)
public enum LogoutReason: Int32 {
    /// The maximum number of failed attempts, with the "forced logout" action.
    case maxFailures = 1
    /// The user chose "forgot passcode" on the lock screen.
    case forgotPasscode = 2
}

// MARK: - Callbacks

/// Registers the function told when the library logs the user out (the "forced logout"
/// maximum-failure action, or "forgot passcode"). The passcode is already removed when it runs.
/// - Parameters:
///   - store: The store.
///   - callback: Called with `payload` and a `passcode_logout_reason`; NULL to remove it.
///   - payload: Handed back unchanged; it must stay valid while the callback is registered.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_set_logout_callback)
public func passcode_set_logout_callback(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withStore(store) { s in
        var hook: (@Sendable (Int32) -> Void)?
        if let callback {
            let p = Payload(raw: payload)
            hook = { reason in callback(p.raw, reason) }
        }
        s.updateHooks { $0.logout = hook }
    }
}
