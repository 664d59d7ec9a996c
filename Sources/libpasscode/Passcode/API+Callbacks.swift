// The C ABI for host callbacks. Every callback gets the host's `payload` back unchanged and
// is called with no library lock held, on the thread of the call that triggered it. In service
// mode they stay in the host and passcoded asks them over the bus, in the middle of that call
// (ServiceClient+Hooks.swift); a hook that can refuse then cannot call the library
// (`PASSCODE_ERR_MISUSE`); a notification (logout, notice, account deleted) runs once the call
// that caused it has its answer, and may.
import PasscodeBackend
import PasscodeCore

// MARK: - Callbacks

/// Registers the function told when the library logs the user out (the "forced logout"
/// maximum-failure action, or "forgot passcode"). The passcode is already removed when it runs.
/// In service mode too it runs in the host, before the call that logged out returns (once that
/// call has passcoded's answer: it may call the library).
/// - Parameters:
///   - store: The store.
///   - callback: Called with `payload` and a `passcode_logout_reason`; NULL to remove it.
///   - payload: Handed back unchanged; it must stay valid while the callback is registered.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`; in service mode also `PASSCODE_ERR_SERVICE_UNAVAILABLE` when
///   passcoded cannot be told (the handle keeps the callbacks it had).
@c(passcode_set_logout_callback)  // man: passcode-callbacks
public func passcode_set_logout_callback(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.updateHooks { $0.logout = intHook(callback, payload) } }
}

/// Wraps a C callback that takes an int32 (a reason or a notice) with its payload.
func intHook(_ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
             _ payload: UnsafeMutableRawPointer?) -> (@Sendable (Int32) -> Void)? {
    guard let callback else { return nil }
    let p = Payload(raw: payload)
    return { value in callback(p.raw, value) }
}

/// The size of the message buffer every failing hook may write into (256 bytes, NUL included).
let hookMessageSize = 256

/// Calls a C hook that reports failure by a non-zero return and an optional message.
func callHook(_ body: (UnsafeMutablePointer<CChar>, UInt) -> Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: hookMessageSize)
    let rc = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, UInt(hookMessageSize)) }
    guard rc != 0 else { return nil }
    buffer[hookMessageSize - 1] = 0
    let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return text.isEmpty ? "the host's hook reported failure" : text
}

/// Registers the function that delivers reset codes (by email, say). It gets the code
/// as NUL-terminated digits, valid only during the call: send it, and wipe any copy you made.
/// The code is never stored or logged by the library.
/// - Parameters:
///   - store: The store.
///   - callback: Returns 0 when the code was sent; otherwise non-zero, optionally writing a
///     message (at most `message_size` bytes with the NUL) for `passcode_errmsg`. NULL removes it.
///   - payload: Handed back unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_set_reset_delivery_callback)  // man: passcode-callbacks
public func passcode_set_reset_delivery_callback(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UInt, UnsafeMutablePointer<CChar>?, UInt) -> Int32)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withStore(store, refusedInService: "a reset code handed to the host") { s in
        var hook: (@Sendable (SecretBytes) -> String?)?
        if let callback {
            let p = Payload(raw: payload)
            hook = { code in
                let terminated = SecretBytes(count: code.count + 1)
                return terminated.withMutableBytesForCaller { dst in
                    code.withBytes { dst.copyMemory(from: $0) }
                    return callHook { msg, size in
                        callback(p.raw, dst.baseAddress!.assumingMemoryBound(to: CChar.self), UInt(code.count), msg, size)
                    }
                }
            }
        }
        s.updateHooks { $0.deliverResetCode = hook }
    }
}

/// Registers the function told about security events (a `passcode_notice`, e.g. the passcode
/// was reset), so the host can tell the user.
/// - Parameters:
///   - store: The store.
///   - callback: Called with `payload` and the notice; NULL removes it.
///   - payload: Handed back unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`; in service mode also `PASSCODE_ERR_SERVICE_UNAVAILABLE` when
///   passcoded cannot be told (the handle keeps the callbacks it had).
@c(passcode_set_notice_callback)  // man: passcode-callbacks
public func passcode_set_notice_callback(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.updateHooks { $0.notify = intHook(callback, payload) } }
}

/// Registers the hook asked before any setting change is committed (a host keeps its backend
/// in step this way). It runs with no library lock held, so it may take its time. When it
/// fails, the change is not made, the old value stays, and the caller gets
/// `PASSCODE_ERR_HOOK_FAILED` with the hook's message. In service mode it runs in the host too,
/// asked by passcoded in the middle of the call: an answer later than 10 s is a refusal, and it
/// cannot call the library (`PASSCODE_ERR_MISUSE`).
/// - Parameters:
///   - store: The store.
///   - callback: Gets the setting's name (e.g. "auto_lock_seconds"), the old and the new value as
///     text; returns 0 to allow, non-zero to refuse (optionally writing a message). NULL removes it.
///   - payload: Handed back unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`; in service mode also `PASSCODE_ERR_SERVICE_UNAVAILABLE` when
///   passcoded cannot be told (the handle keeps the callbacks it had).
@c(passcode_set_settings_hook)  // man: passcode-callbacks
public func passcode_set_settings_hook(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UInt) -> Int32)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        var hook: (@Sendable (String, String, String) -> String?)?
        if let callback {
            let p = Payload(raw: payload)
            hook = { key, old, new in
                key.withCString { k in old.withCString { o in new.withCString { n in
                    callHook { msg, size in callback(p.raw, k, o, n, msg, size) }
                } } }
            }
        }
        try s.updateHooks { $0.settingChange = hook }
    }
}

/// Registers the callback asked before each change of the passcode's life is committed (set,
/// changed, reset, disabled, enabled, removed, forgot), so a host can keep a backend that
/// mirrors its lock state in step. It hears only the `passcode_lifecycle_event`,
/// never digits, hashes or keys. It runs with no library lock held, after every check that
/// could refuse the change (a wrong current passcode is counted and refused first). When it
/// fails, nothing changes, and the caller gets `PASSCODE_ERR_HOOK_FAILED` with its message; a
/// flow shows that message and stays where it was. "Forgot" asks it before the logout callback
/// runs. A maximum-failure logout is not asked (it cannot be refused): the logout callback tells it.
/// In service mode it runs in the host, asked by passcoded as the settings hook is (10 s at most).
/// - Parameters:
///   - store: The store.
///   - callback: Gets `payload` and the event; returns 0 to allow, non-zero to refuse
///     (optionally writing a message of at most `message_size` bytes with the NUL). NULL removes it.
///   - payload: Handed back unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`; in service mode also `PASSCODE_ERR_SERVICE_UNAVAILABLE` when
///   passcoded cannot be told (the handle keeps the callbacks it had).
@c(passcode_set_lifecycle_callback)  // man: passcode-callbacks
public func passcode_set_lifecycle_callback(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<CChar>?, UInt) -> Int32)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        var hook: (@Sendable (Int32) -> String?)?
        if let callback {
            let p = Payload(raw: payload)
            hook = { event in callHook { msg, size in callback(p.raw, event, msg, size) } }
        }
        try s.updateHooks { $0.lifecycle = hook }
    }
}
