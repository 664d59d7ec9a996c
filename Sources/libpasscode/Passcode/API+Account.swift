// The C ABI for the account-security screen.
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

/// What a `passcode_session_list *` stands for.
typealias SessionListBox = SnapshotBox<DeviceSession>

extension Handles {
    static let sessionLists = HandleTable<SessionListBox>(tag: 0x5f)
}

func text(_ p: UnsafePointer<CChar>?, _ what: String) throws(PasscodeError) -> String {
    guard let p else { throw PasscodeError.misuse("\(what) is NULL") }
    guard strnlen(p, 1025) <= 1024 else { throw PasscodeError.misuse("\(what) is longer than 1024 bytes") }
    guard let s = String(validatingCString: p) else { throw PasscodeError.format("\(what) is not valid UTF-8") }
    return s
}

// MARK: - Account security

/// Checks a change of the account password that the host's backend owns: the current one is
/// not empty, the new one has 8 to 256 characters (Unicode code points, any characters), and the
/// confirmation equals it. On success the time of the change is recorded
/// (`PASSCODE_SETTING_LAST_PASSWORD_CHANGE`); the host then sends the change to its backend.
/// The passwords are bytes (UTF-8), copied and wiped; never logged. In service mode they go to
/// passcoded as bytes in a sensitive message, and the time is recorded there, by its clock.
/// - Parameters:
///   - store: The store.
///   - current: The current password.
///   - current_length: Its length in bytes.
///   - new_password: The new password.
///   - new_length: Its length in bytes.
///   - confirmation: The new password typed again.
///   - confirmation_length: Its length in bytes.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_PASSWORD_EMPTY`, `PASSCODE_ERR_PASSWORD_TOO_SHORT`,
///   `PASSCODE_ERR_PASSWORD_TOO_LONG` (also for a new password longer than 4096 bytes, not read),
///   `PASSCODE_ERR_PASSWORD_MISMATCH`, `PASSCODE_ERR_FORMAT` (invalid UTF-8), `PASSCODE_ERR_MISUSE`
///   (NULL, or a current password longer than 4096 bytes, not read), `PASSCODE_ERR_INVALID_HANDLE`,
///   `PASSCODE_ERR_CLOCK_OUT_OF_RANGE`, or a store error.
@c(passcode_password_change_check)  // man: passcode-account
public func passcode_password_change_check(_ store: OpaquePointer?, _ current: UnsafePointer<CChar>?, _ current_length: UInt,
                                           _ new_password: UnsafePointer<CChar>?, _ new_length: UInt,
                                           _ confirmation: UnsafePointer<CChar>?, _ confirmation_length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        if current == nil && current_length == 0 { throw PasscodeError.passwordEmpty }
        // Lengths first, nothing read past 4096 bytes: a longer new password is too long (256
        // code points are at most 1024 bytes), a longer confirmation cannot match it.
        guard current_length <= 4096 else { throw PasscodeError.misuse("the current password is longer than 4096 bytes") }
        if new_length > 4096 { throw PasscodeError.passwordTooLong(maximum: PasswordRules.maximumLength) }
        try s.checkPasswordChange(current: secret(current, current_length, what: "the current password"),
                                  new: secret(new_password, new_length, what: "the new password"),
                                  confirmation: confirmation_length > 4096 ? SecretBytes(count: 0)
                                                : secret(confirmation, confirmation_length, what: "the confirmation"))
    }
}

/// Records a device session (adds it, or updates the one with the same id). Marking a session
/// as this device's unmarks any other. In service mode passcoded keeps the sessions.
/// - Parameters:
///   - store: The store.
///   - id: The backend's session id (NUL-terminated UTF-8, 1 to 256 bytes).
///   - device_name: E.g. "iPad Pro".
///   - platform: E.g. "iPadOS".
///   - last_active_ms: Wall-clock milliseconds since 1970.
///   - location: E.g. "London, UK", or NULL.
///   - is_current: 1 for this device's session, else 0.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_FORMAT`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_session_record)  // man: passcode-account
public func passcode_session_record(_ store: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ device_name: UnsafePointer<CChar>?,
                                    _ platform: UnsafePointer<CChar>?, _ last_active_ms: Int64,
                                    _ location: UnsafePointer<CChar>?, _ is_current: Int32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard is_current == 0 || is_current == 1 else { throw PasscodeError.misuse("is_current must be 0 or 1") }
        try s.recordSession(DeviceSession(id: try text(id, "the session id"), deviceName: try text(device_name, "the device name"),
                                          platform: try text(platform, "the platform"), lastActiveWallMs: last_active_ms,
                                          location: location == nil ? nil : try text(location, "the location"),
                                          isCurrent: is_current == 1))
    }
}

/// Takes a snapshot of the sessions: this device's first, then the most recently active. In
/// service mode the snapshot comes from passcoded in one answer, then is read here.
/// - Parameters:
///   - store: The store.
///   - out_list: Receives the list; release it with `passcode_session_list_free`.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_session_list_new)  // man: passcode-account
public func passcode_session_list_new(_ store: OpaquePointer?, _ out_list: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out_list?.pointee = nil
    return withBackend(store) { (s) throws(PasscodeError) in
        guard let out_list else { throw PasscodeError.misuse("the out pointer is NULL") }
        out_list.pointee = Handles.sessionLists.add(SessionListBox(try s.sessions()))
    }
}

/// The number of sessions in a list.
/// - Parameters:
///   - list: The list.
/// - Returns: The count; 0 for NULL or an invalid list.
@c(passcode_session_list_count)  // man: passcode-account
public func passcode_session_list_count(_ list: OpaquePointer?) -> UInt {
    UInt(Handles.sessionLists.get(list)?.items.count ?? 0)
}

/// One session of a list. The strings belong to the list and live until it is freed.
/// - Parameters:
///   - list: The list.
///   - index: 0 to count - 1.
///   - out_id: Receives the id; may be NULL (as may every out pointer here).
///   - out_device_name: Receives the device name.
///   - out_platform: Receives the platform.
///   - out_last_active_ms: Receives the last activity, wall-clock milliseconds.
///   - out_location: Receives the location, or NULL when none was recorded.
///   - out_is_current: Receives 1 for this device's session.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (index out of range), `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_session_list_get)  // man: passcode-account
public func passcode_session_list_get(_ list: OpaquePointer?, _ index: UInt,
                                      _ out_id: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                      _ out_device_name: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                      _ out_platform: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                      _ out_last_active_ms: UnsafeMutablePointer<Int64>?,
                                      _ out_location: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                      _ out_is_current: UnsafeMutablePointer<Int32>?) -> Int32 {
    guard let box = Handles.sessionLists.get(list) else { return Status.errInvalidHandle.rawValue }
    guard index < UInt(box.items.count) else { return Status.errMisuse.rawValue }
    let s = box.items[Int(index)]
    out_id?.pointee = box.keep(s.id)
    out_device_name?.pointee = box.keep(s.deviceName)
    out_platform?.pointee = box.keep(s.platform)
    out_last_active_ms?.pointee = s.lastActiveWallMs
    out_location?.pointee = s.location.map { box.keep($0) }
    out_is_current?.pointee = s.isCurrent ? 1 : 0
    return Status.ok.rawValue
}

/// Releases a session list and its strings. NULL does nothing.
/// - Parameters:
///   - list: The list, or NULL.
@c(passcode_session_list_free)  // man: passcode-account
public func passcode_session_list_free(_ list: OpaquePointer?) {
    Handles.sessionLists.remove(list)
}

/// Registers the hook asked before a session is signed out, so the backend can revoke it.
/// When it fails, the session stays and the caller gets `PASSCODE_ERR_HOOK_FAILED`.
/// - Parameters:
///   - store: The store.
///   - callback: Gets the session id; returns 0 when revoked, else non-zero (optionally writing
///     a message). NULL removes it.
///   - payload: Handed back unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`; in service mode also `PASSCODE_ERR_SERVICE_UNAVAILABLE` when
///   passcoded cannot be told (the handle keeps the callbacks it had).
@c(passcode_set_session_hook)  // man: passcode-account
public func passcode_set_session_hook(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UInt) -> Int32)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        var hook: (@Sendable (String) -> String?)?
        if let callback {
            let p = Payload(raw: payload)
            hook = { id in id.withCString { i in callHook { msg, size in callback(p.raw, i, msg, size) } } }
        }
        try s.updateHooks { $0.signOutSession = hook }
    }
}

/// Signs one session out, after the session hook revoked it. Never this device's own. In service
/// mode passcoded does it (the session hook is asked of the host by the service, once carried).
/// - Parameters:
///   - store: The store.
///   - id: The session id (NUL-terminated).
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_SESSION_NOT_FOUND`, `PASSCODE_ERR_SESSION_IS_CURRENT`,
///   `PASSCODE_ERR_HOOK_FAILED` (the session stays), `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_session_sign_out)  // man: passcode-account
public func passcode_session_sign_out(_ store: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.signOutSession(id: try text(id, "the session id")) }
}

/// Signs out every session but this device's. Each goes through the session hook; those whose
/// hook failed stay, and the first failure is reported. In service mode passcoded does it.
/// - Parameters:
///   - store: The store.
///   - out_count: Receives how many were signed out; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_HOOK_FAILED`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_session_sign_out_others)  // man: passcode-account
public func passcode_session_sign_out_others(_ store: OpaquePointer?, _ out_count: UnsafeMutablePointer<Int32>?) -> Int32 {
    out_count?.pointee = 0
    return withBackend(store) { (s) throws(PasscodeError) in
        let (count, failure) = try s.signOutOtherSessionsReporting()
        out_count?.pointee = Int32(clamping: count)
        if let failure { throw PasscodeError.hookFailed(failure) }
    }
}

/// Registers the function told after the account was deleted and the store wiped.
/// - Parameters:
///   - store: The store.
///   - callback: Called with `payload`; NULL removes it.
///   - payload: Handed back unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`; in service mode also `PASSCODE_ERR_SERVICE_UNAVAILABLE` when
///   passcoded cannot be told (the handle keeps the callbacks it had).
@c(passcode_set_account_deleted_callback)  // man: passcode-account
public func passcode_set_account_deleted_callback(
    _ store: OpaquePointer?,
    _ callback: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        var hook: (@Sendable () -> Void)?
        if let callback {
            let p = Payload(raw: payload)
            hook = { callback(p.raw) }
        }
        try s.updateHooks { $0.accountDeleted = hook }
    }
}

/// Deletes the account's data, only with the exact confirmation "DELETE": the passcode,
/// settings, lock state, sessions, reset codes and counters are wiped with SQLite's
/// secure_delete, the file vacuumed and its WAL truncated, so none of it can be read from the
/// file afterwards. Then the account-deleted callback runs. The store stays open and empty, its
/// lock state `PASSCODE_LOCK_REASON_LOGGED_OUT`. Refused without an account-deleted callback.
///
/// In service mode passcoded does it, on the service's store; the account-deleted callback is
/// one the service asks of the host, and until callbacks are carried it answers
/// `PASSCODE_ERR_CALLBACK_REQUIRED`, nothing touched.
/// - Parameters:
///   - store: The store.
///   - confirmation: The text the user typed (NUL-terminated).
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_CONFIRMATION_MISMATCH` (nothing touched),
///   `PASSCODE_ERR_CALLBACK_REQUIRED` (nothing touched), `PASSCODE_ERR_WIPE_PENDING` (deleted, but
///   another connection keeps old bytes in the WAL until it ends, or the next open),
///   `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_delete_account)  // man: passcode-account
public func passcode_delete_account(_ store: OpaquePointer?, _ confirmation: UnsafePointer<CChar>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let confirmation else { throw PasscodeError.misuse("the confirmation is NULL") }
        let typed = strnlen(confirmation, 64) < 64 ? String(validatingCString: confirmation) : nil
        try s.deleteAccount(confirmation: typed ?? "")
    }
}
