// The C ABI for reset codes and "forgot passcode".
import PasscodeBackend
import PasscodeCore

// MARK: - Reset codes and forgot passcode

/// Makes a new reset code (random digits, `PASSCODE_SETTING_RESET_CODE_LENGTH` long, 8 by
/// default) and hands it once to the delivery callback. Only a salted hash is stored; it expires
/// after `PASSCODE_SETTING_RESET_CODE_LIFETIME_SECONDS` and replaces any earlier code. Works
/// during a passcode lockout.
///
/// In service mode: `PASSCODE_ERR_REFUSED_IN_SERVICE_MODE` (the code would be handed to the
/// host), nothing is requested; a later release moves delivery into the service.
/// - Parameters:
///   - store: The store.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_RATE_LIMITED` (by default one a minute and five a
///   day; the message says when the next is allowed); `PASSCODE_ERR_HOOK_FAILED` (delivery
///   failed: the code was discarded, the message is the host's); `PASSCODE_ERR_STATE` (no
///   delivery callback); `PASSCODE_ERR_INVALID_HANDLE`; or a store error.
@c(passcode_reset_request)
public func passcode_reset_request(_ store: OpaquePointer?) -> Int32 {
    withStore(store, refusedInService: "a reset code handed to the host") { (s) throws(PasscodeError) in try s.requestResetCode() }
}

/// Seconds until `passcode_reset_request` is allowed again, 0 when it is allowed now.
/// In service mode passcoded answers it (its clock and the store's requests).
/// - Parameters:
///   - store: The store.
///   - out: Receives the seconds.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_retry_after)
public func passcode_reset_retry_after(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.resetRetryAfterSeconds()) }
}

/// Checks a reset code without using it up, so a front end can move on to the new passcode.
/// A check is one Argon2id evaluation. It takes one of the code's 5 tries before the answer is
/// known (a correct code gives it back); the 5th wrong one discards the code. Only the newest
/// code exists: an older one is simply wrong. Reset-code tries never count against the passcode
/// lockout.
///
/// In service mode passcoded answers it with the same statuses and messages (the code travels as
/// bytes in a sensitive message); no code can be requested there yet (`passcode_reset_request` is
/// refused), so none is pending unless one was made before.
/// - Parameters:
///   - store: The store.
///   - code: The code's digits. Copied and wiped.
///   - length: Their number.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_WRONG_RESET_CODE`, `PASSCODE_ERR_RESET_CODE_EXPIRED`,
///   `PASSCODE_ERR_NO_RESET_CODE`, `PASSCODE_ERR_FORMAT`,
///   `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_check)
public func passcode_reset_check(_ store: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.checkReset(secret(code, length, what: "the reset code")) }
}

/// Sets a new passcode with a valid reset code: the code is used up; the lockout, the failure
/// counter, a "reset required" state and the lock are cleared; the notice callback hears
/// `PASSCODE_NOTICE_PASSCODE_RESET`. The way out of the maximum-failure state.
///
/// A reset code proves who the user is, not the passcode, so it cannot open the data key: a
/// new one replaces it, and if the old one was ever used by the host (`passcode_unlock_key`,
/// `passcode_seal`, a flow's key, a recovery key) the call says so with `PASSCODE_ERR_KEY_REPLACED`, after completing
/// the reset. To keep the key, use `passcode_reset_complete_with_recovery_key`. For the same
/// reason the new passcode starts from the safe defaults, as a first one does (`passcode_set`):
/// a weaker rule, and biometric unlock, are set again with the proof the new passcode gives; and
/// it has the default length of 6 digits, whatever the passcode it replaces had.
///
/// In service mode passcoded answers it with the same statuses and messages (the code travels as
/// bytes in a sensitive message); no code can be requested there yet (`passcode_reset_request` is
/// refused), so none is pending unless one was made before.
/// In service mode the new data key stays in the service, and the new passcode proves the user on
/// this handle for 5 minutes (as after `passcode_verify`).
/// - Parameters:
///   - store: The store.
///   - code: The reset code's digits.
///   - code_length: Their number.
///   - new_digits: The new passcode: 6 digits, the default length (weak ones are refused).
///   - new_length: Its length.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_KEY_REPLACED` (done, with a new data key), any status
///   of `passcode_reset_check`, `PASSCODE_ERR_WEAK_PASSCODE`, `PASSCODE_ERR_FORMAT`, or a store error.
@c(passcode_reset_complete)
public func passcode_reset_complete(_ store: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ code_length: UInt,
                                    _ new_digits: UnsafePointer<CChar>?, _ new_length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        let replaced = try s.resetPasscode(code: secret(code, code_length, what: "the reset code"),
                                           newPasscode: secret(new_digits, new_length, what: "the new passcode"), recoveryKey: nil)
        if replaced { throw PasscodeError.keyReplaced }
    }
}

/// Whether an unexpired reset code is waiting to be used. In service mode passcoded answers it.
/// - Parameters:
///   - store: The store.
///   - out: Receives 1 or 0.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_pending)
public func passcode_reset_pending(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.isResetCodePending() ? 1 : 0) }
}

/// "Forgot passcode" on the lock screen: removes the passcode, counters and any pending reset
/// code, and calls the logout callback with `PASSCODE_LOGOUT_REASON_FORGOT_PASSCODE`; the host
/// logs the user out. Refused without a logout callback (an app that stayed signed in would be
/// unlocked with no proof). Afterwards the lock state is `PASSCODE_LOCK_REASON_LOGGED_OUT` until
/// a new passcode is set. The old hash is wiped from the file and its WAL.
///
/// In service mode passcoded does it, on the service's store; the logout callback is one the
/// service asks of the host, and until callbacks are carried it answers
/// `PASSCODE_ERR_CALLBACK_REQUIRED`, nothing changed.
/// - Parameters:
///   - store: The store.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_CALLBACK_REQUIRED` (nothing changed),
///   `PASSCODE_ERR_WIPE_PENDING` (done, but another connection keeps old bytes in the WAL for now),
///   `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_forgot)
public func passcode_forgot(_ store: OpaquePointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.forgotPasscode() }
}
