// The C ABI for another user's store, named by uid: what pam_passcode(8) and passcodectl(8) call.
// Through passcoded only (a handle in service mode, whose app id names the store: `login` for
// the PAM module). Root may name any uid; any other caller only its own.
import CPasscodeTypes
import PasscodeBackend
import PasscodeCore

// MARK: - A user's store by uid

/// The state of a user's store, named by uid, as a lock screen or `passcodectl status` shows it.
/// Needs a handle in service mode (`passcode_options_set_service`): the store is the one of the
/// handle's app id that passcoded keeps for `uid`. Root may name any uid, any other caller only
/// its own. Reads only: nothing is counted, and a user with no store gets is_set 0.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
///   - out_is_set: Receives 1 when a passcode is set, else 0; may be NULL.
///   - out_failures: Receives the failures since the last unlock; may be NULL.
///   - out_lockout_seconds: Receives the seconds left in a lockout (0: none); may be NULL.
///   - out_reset_required: Receives 1 when only a reset lets the user in again; may be NULL.
///   - out_length: Receives the passcode's number of digits; may be NULL.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PERMISSION` (another uid, named by a caller that is
///   not root); `PASSCODE_ERR_NOT_IN_SERVICE_MODE` (an embedded handle);
///   `PASSCODE_ERR_SERVICE_UNAVAILABLE`; `PASSCODE_ERR_INVALID_HANDLE`; or a store error.
@c(passcode_user_state)  // man: passcode-user
public func passcode_user_state(_ store: OpaquePointer?, _ uid: UInt32, _ out_is_set: UnsafeMutablePointer<Int32>?,
                                _ out_failures: UnsafeMutablePointer<UInt32>?, _ out_lockout_seconds: UnsafeMutablePointer<Int64>?,
                                _ out_reset_required: UnsafeMutablePointer<Int32>?, _ out_length: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        let state = try s.userState(uid: uid)
        out_is_set?.pointee = state.isSet ? 1 : 0
        out_failures?.pointee = state.failures
        out_lockout_seconds?.pointee = state.lockoutSeconds
        out_reset_required?.pointee = state.resetRequired ? 1 : 0
        out_length?.pointee = state.length
    }
}

/// The lock state of a user's login store, named by uid, as a greeter or a screen locker draws
/// it ("locked for 4 minutes, 3 wrong answers left") without parsing text: what pam_passcode(8)
/// puts in PAM_PASSCODE_STATE, and what passcoded's login objects push to their watchers.
/// Needs a handle in service mode whose app id is a login store (`login` or `login.NAME`);
/// root may name any uid, any other caller only its own. Reads only: nothing is counted.
/// - Parameters:
///   - store: A handle in service mode on a login store.
///   - uid: The user.
///   - out_state: Receives a `passcode_login_state` (OPEN, LOCKED_OUT, RESET_REQUIRED or
///     NO_PASSCODE); may be NULL.
///   - out_lockout_seconds: Receives the seconds left in a lockout (0: none); may be NULL.
///   - out_failures: Receives the failures since the last unlock; may be NULL.
///   - out_attempts_left: Receives the wrong passcodes before the next delay or required reset
///     (1: the next one), -1 when none is ahead; may be NULL.
///   - out_next_delay: Receives the seconds of the delay that wrong passcode starts, -1 when it
///     requires a reset instead, 0 when none is ahead; may be NULL.
///   - out_fingerprint_refusal: Receives a `passcode_biometric_refusal`: NONE when a finger may
///     be used now, else why not; may be NULL.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PERMISSION` (another uid, named by a caller that is
///   not root, or an app id that is not a login store); `PASSCODE_ERR_NOT_IN_SERVICE_MODE` (an
///   embedded handle); `PASSCODE_ERR_SERVICE_UNAVAILABLE`; `PASSCODE_ERR_INVALID_HANDLE`; or a
///   store error.
@c(passcode_user_lockout)  // man: passcode-user
public func passcode_user_lockout(_ store: OpaquePointer?, _ uid: UInt32, _ out_state: UnsafeMutablePointer<Int32>?,
                                  _ out_lockout_seconds: UnsafeMutablePointer<Int64>?, _ out_failures: UnsafeMutablePointer<UInt32>?,
                                  _ out_attempts_left: UnsafeMutablePointer<Int32>?, _ out_next_delay: UnsafeMutablePointer<Int64>?,
                                  _ out_fingerprint_refusal: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        let l = try s.userLockout(uid: uid)
        out_state?.pointee = l.state.rawValue
        out_lockout_seconds?.pointee = l.lockoutSeconds
        out_failures?.pointee = l.failures
        out_attempts_left?.pointee = l.attemptsLeft
        out_next_delay?.pointee = l.nextDelaySeconds
        out_fingerprint_refusal?.pointee = l.fingerprintRefusal.rawValue
    }
}

/// Checks a user's passcode, named by uid: one attempt, counted durably before the answer as
/// `passcode_verify` counts it (the same wrong passcode twice counts once; a success clears
/// the failures). Needs a handle in service mode; root may name any uid, any other caller only
/// its own (a screen locker running as the user).
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
///   - digits: The passcode's ASCII digits. Copied and wiped.
///   - length: Number of digits.
/// - Returns: `PASSCODE_OK`; any status of `passcode_verify` (`PASSCODE_ERR_LOCKED_OUT` with the
///   wait in `passcode_errwait`); `PASSCODE_ERR_PERMISSION`; `PASSCODE_ERR_NOT_IN_SERVICE_MODE`;
///   `PASSCODE_ERR_SERVICE_UNAVAILABLE` (the attempt may have been counted).
@c(passcode_user_verify)  // man: passcode-user
public func passcode_user_verify(_ store: OpaquePointer?, _ uid: UInt32, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.userVerify(uid: uid, secret(digits, length, what: "the passcode")) }
}

/// Sets a user's first passcode, named by uid; its length is the passcode's (4 to 12 digits).
/// Root only: a user's own process cannot enrol the passcode that its PAM stack then accepts.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
///   - digits: The passcode's ASCII digits. Copied and wiped.
///   - length: Number of digits.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PERMISSION` (not root); `PASSCODE_ERR_ALREADY_SET`;
///   `PASSCODE_ERR_FORMAT`; `PASSCODE_ERR_WEAK_PASSCODE`; `PASSCODE_ERR_INVALID_SETTING` (a length
///   out of range); `PASSCODE_ERR_NOT_IN_SERVICE_MODE`; `PASSCODE_ERR_SERVICE_UNAVAILABLE`.
@c(passcode_user_set)  // man: passcode-user
public func passcode_user_set(_ store: OpaquePointer?, _ uid: UInt32, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.userSet(uid: uid, secret(digits, length, what: "the passcode")) }
}

/// Changes a user's passcode, named by uid, with the current one (counted as a verify). Root
/// may name any uid, any other caller only its own; the current passcode is needed either way.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
///   - current: The current passcode's digits.
///   - current_length: Its length.
///   - new_digits: The new passcode's digits.
///   - new_length: Its length (the store's length).
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_PERMISSION`, or any status of `passcode_change`.
@c(passcode_user_change)  // man: passcode-user
public func passcode_user_change(_ store: OpaquePointer?, _ uid: UInt32, _ current: UnsafePointer<CChar>?, _ current_length: UInt,
                                 _ new_digits: UnsafePointer<CChar>?, _ new_length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        try s.userChange(uid: uid, current: secret(current, current_length, what: "the current passcode"),
                         new: secret(new_digits, new_length, what: "the new passcode"))
    }
}

/// Removes a user's passcode, named by uid: with the passcode (root, or the user), or without
/// it (`digits` NULL: root only). The lock goes off and every counter is cleared.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
///   - digits: The current passcode's digits, or NULL.
///   - length: Their number (0 with NULL).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PERMISSION`; `PASSCODE_ERR_NO_PASSCODE`; with a
///   passcode, any status of `passcode_verify`.
@c(passcode_user_remove)  // man: passcode-user
public func passcode_user_remove(_ store: OpaquePointer?, _ uid: UInt32, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        if digits == nil && length == 0 {
            try s.userRemove(uid: uid, current: nil)
        } else {
            let code = try secret(digits, length, what: "the passcode")
            guard code.count > 0 else { throw PasscodeError.format("the passcode is empty") }
            try s.userRemove(uid: uid, current: code)
        }
    }
}

/// Clears a user's failures, lockout and required reset, keeping the passcode (as
/// `faillock --reset` clears its tally). Root only; logged as a completed reset.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PERMISSION` (not root); `PASSCODE_ERR_NO_PASSCODE`;
///   `PASSCODE_ERR_NOT_IN_SERVICE_MODE`; `PASSCODE_ERR_SERVICE_UNAVAILABLE`; or a store error.
@c(passcode_user_reset)  // man: passcode-user
public func passcode_user_reset(_ store: OpaquePointer?, _ uid: UInt32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.userReset(uid: uid) }
}

/// Whether passcoded may read a finger for a user's store now, named by uid (pam_passcode's
/// `fingerprint` option asks before it offers the finger): fprintd has a reader with a finger
/// of the user's enrolled, the calling process is in an active local session on a seat, and the
/// core's rules allow a match (for a login store the PAM stack turns the finger on; a passcode
/// entered in this boot and within 48 hours, fewer than 5 failed matches since, no lockout).
/// Nothing is claimed or counted. Root may name any uid, any other caller only its own.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
/// - Returns: `PASSCODE_OK` (a finger may be read); `PASSCODE_ERR_PASSCODE_REQUIRED` (not now:
///   `passcode_errmsg` says why); `PASSCODE_ERR_PERMISSION`; `PASSCODE_ERR_NOT_IN_SERVICE_MODE`;
///   `PASSCODE_ERR_SERVICE_UNAVAILABLE`; or a store error.
@c(passcode_user_fingerprint_ready)  // man: passcode-user
public func passcode_user_fingerprint_ready(_ store: OpaquePointer?, _ uid: UInt32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.userFingerprintReady(uid: uid) }
}

/// Has passcoded read a finger for a user's store, named by uid, and waits for it (up to
/// passcoded.conf's `fprint_timeout`): passcoded claims the reader, and always stops and
/// releases it. A match unlocks as the core counts a biometric match; a no-match counts as a
/// failed match. Root may name any uid, any other caller only its own.
/// `passcode_user_fingerprint_cancel`, from another thread, ends the wait at once.
/// - Parameters:
///   - store: A handle in service mode, used by no other thread meanwhile but for the cancel.
///   - uid: The user.
/// - Returns: `PASSCODE_OK` (a match); `PASSCODE_ERR_PASSCODE_REQUIRED` (no match, or the rules
///   need the passcode now; `passcode_errmsg` says which); `PASSCODE_ERR_BIOMETRIC_UNAVAILABLE`
///   (no reader, no finger enrolled, or the caller not at the machine);
///   `PASSCODE_ERR_BIOMETRIC_READER_BUSY`; `PASSCODE_ERR_BIOMETRIC_TIMEOUT`;
///   `PASSCODE_ERR_RATE_LIMITED`; `PASSCODE_ERR_STATE` (cancelled: nothing counted);
///   `PASSCODE_ERR_PERMISSION`; `PASSCODE_ERR_NOT_IN_SERVICE_MODE`;
///   `PASSCODE_ERR_SERVICE_UNAVAILABLE`; or a store error.
@c(passcode_user_fingerprint_unlock)  // man: passcode-user
public func passcode_user_fingerprint_unlock(_ store: OpaquePointer?, _ uid: UInt32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.userFingerprintUnlock(uid: uid) }
}

/// Ends the `passcode_user_fingerprint_unlock` waiting on `store`, from any thread: its
/// connection is shut down, so passcoded stops the read and releases the reader at once, and
/// the waiting call answers `PASSCODE_ERR_STATE`, nothing counted. Every later read on the
/// handle answers the same at once (a cancel between two reads is not lost); close the handle
/// after it. Other calls are not cut short.
/// - Parameters:
///   - store: The handle the read waits on.
/// - Returns: `PASSCODE_OK` (also with no read waiting, and for an embedded handle);
///   `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_user_fingerprint_cancel)  // man: passcode-user
public func passcode_user_fingerprint_cancel(_ store: OpaquePointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in s.userFingerprintCancel() }
}

/// Takes a snapshot of a user's security event log, named by uid, newest first; read it with
/// `passcode_event_log_count` and `passcode_event_log_get`, free it with `passcode_event_log_free`.
/// Root may name any uid, any other caller only its own.
/// - Parameters:
///   - store: A handle in service mode.
///   - uid: The user.
///   - out_log: Receives the snapshot; NULL on failure.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_MISUSE` (NULL out_log); `PASSCODE_ERR_PERMISSION`;
///   `PASSCODE_ERR_NOT_IN_SERVICE_MODE`; `PASSCODE_ERR_SERVICE_UNAVAILABLE`; or a store error.
@c(passcode_user_event_log_new)  // man: passcode-user
public func passcode_user_event_log_new(_ store: OpaquePointer?, _ uid: UInt32, _ out_log: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out_log?.pointee = nil
    return withBackend(store) { (s) throws(PasscodeError) in
        guard let out_log else { throw PasscodeError.misuse("the out pointer is NULL") }
        out_log.pointee = Handles.eventLogs.add(EventLogBox(try s.userEvents(uid: uid)))
    }
}
