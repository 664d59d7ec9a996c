// The C ABI for reset codes and "forgot passcode".
import PasscodeBackend
import PasscodeCore

// MARK: - Reset codes and forgot passcode

/// Makes a new reset code (random digits, `PASSCODE_SETTING_RESET_CODE_LENGTH` long, 8 by
/// default) and hands it once to the delivery callback. Only a salted hash is stored; it expires
/// after `PASSCODE_SETTING_RESET_CODE_LIFETIME_SECONDS` and replaces any earlier code. Works
/// during a passcode lockout.
///
/// In service mode passcoded makes the code (the same rules) and mails it itself, through the
/// relay its administrator configured, to the store's confirmed recipient
/// (`passcode_reset_recipient_set`, then `passcode_reset_recipient_confirm`); no code is handed
/// to the host and the delivery callback is not called. While a code is pending (unexpired,
/// tries left) a request sends and spends nothing and answers `PASSCODE_OK`: the code already
/// sent stands (`passcode_reset_pending` says one is). The administrator's mail limits
/// (passcoded.conf) apply on top of the store's own.
/// `passcode_reset_recipient` then gives the masked address to show (its first character, three stars and the domain).
/// - Parameters:
///   - store: The store.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_RATE_LIMITED` (by default one a minute and five a
///   day; the message says when the next is allowed); `PASSCODE_ERR_HOOK_FAILED` (delivery
///   failed: the code was discarded, the message is the host's); `PASSCODE_ERR_STATE` (no
///   delivery callback); in service mode `PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE` (no relay
///   configured, none reachable, or no confirmed recipient: a failed send counts against the
///   day's requests; "forgot passcode" stays); `PASSCODE_ERR_INVALID_HANDLE`; or a store error.
@c(passcode_reset_request)  // man: passcode-reset
public func passcode_reset_request(_ store: OpaquePointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in _ = try s.requestReset() }
}

/// Service mode: asks for a new address to mail this store's reset codes to ("" removes the
/// recipient and any address waiting). It needs the passcode, checked by passcoded in the same
/// call and counted as any attempt. passcoded mails the address a confirmation code; the address
/// becomes the recipient only when `passcode_reset_recipient_confirm` gives that code back (so
/// that no one makes passcoded mail an address whose owner did not agree). Setting a passcode
/// on a store that had none removes the recipient, in the same transaction.
/// - Parameters:
///   - store: The store.
///   - address: NUL-terminated, an address (local part, at sign, domain) in printable ASCII, at most 254 bytes; "" removes it.
///   - digits: The passcode. Copied and wiped.
///   - length: Its number of digits.
/// - Returns: `PASSCODE_OK` (the confirmation code is on its way), `PASSCODE_ERR_WRONG_PASSCODE`,
///   `PASSCODE_ERR_LOCKED_OUT`, `PASSCODE_ERR_NO_PASSCODE`, `PASSCODE_ERR_MISUSE` (no address,
///   or not one), `PASSCODE_ERR_RATE_LIMITED` (the administrator's mail limits: the message says
///   when), `PASSCODE_ERR_RESET_DELIVERY_UNAVAILABLE` (no relay, or it refused the mail),
///   `PASSCODE_ERR_STATE` (the embedded store: codes go to the delivery callback),
///   `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_recipient_set)  // man: passcode-reset
public func passcode_reset_recipient_set(_ store: OpaquePointer?, _ address: UnsafePointer<CChar>?,
                                         _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let address else { throw PasscodeError.misuse("the address is NULL") }
        _ = try s.setResetRecipient(String(cString: address), passcode: secret(digits, length, what: "the passcode"))
    }
}

/// Service mode: confirms the address `passcode_reset_recipient_set` set, with the code passcoded
/// mailed to it. Until then reset codes are not mailed to it (they go to the address confirmed
/// before, if any). It needs the passcode too, checked by passcoded in the same call and counted
/// as any attempt. The code has 5 tries and lives a day; then the address must be set again.
/// - Parameters:
///   - store: The store.
///   - code: The confirmation code's digits (8). Copied and wiped.
///   - code_length: Its number of digits.
///   - digits: The passcode. Copied and wiped.
///   - length: Its number of digits.
/// - Returns: `PASSCODE_OK` (the address is the recipient now: `passcode_reset_recipient` shows
///   it), `PASSCODE_ERR_WRONG_RESET_CODE` (tries left in the message), `PASSCODE_ERR_RESET_CODE_EXPIRED`
///   (expired or its tries spent: set the address again), `PASSCODE_ERR_FORMAT` (not 8 digits),
///   `PASSCODE_ERR_STATE` (no address waiting; or the embedded store), `PASSCODE_ERR_WRONG_PASSCODE`,
///   `PASSCODE_ERR_LOCKED_OUT`, `PASSCODE_ERR_NO_PASSCODE`, `PASSCODE_ERR_MISUSE`,
///   `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_recipient_confirm)  // man: passcode-reset
public func passcode_reset_recipient_confirm(_ store: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ code_length: UInt,
                                             _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        _ = try s.confirmResetRecipient(code: secret(code, code_length, what: "the confirmation code"),
                                        passcode: secret(digits, length, what: "the passcode"))
    }
}

/// Service mode: the masked address reset codes are mailed to (its first character, three stars and the domain), "" when
/// none is confirmed (an address still waiting for its confirmation code is not shown). The full address is never given back.
/// - Parameters:
///   - store: The store.
///   - out: Receives the masked address, NUL-terminated.
///   - size: The bytes `out` holds (256 is always enough).
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_BUFFER_TOO_SMALL`, `PASSCODE_ERR_MISUSE`,
///   `PASSCODE_ERR_STATE` (the embedded store), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_recipient)  // man: passcode-reset
public func passcode_reset_recipient(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<CChar>?, _ size: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let out else { throw PasscodeError.misuse("the out pointer is NULL") }
        let masked = Array(try s.resetRecipient().utf8)
        guard UInt(masked.count) < size else { throw PasscodeError.bufferTooSmall(needed: masked.count + 1) }
        for (i, b) in masked.enumerated() { out[i] = CChar(bitPattern: b) }
        out[masked.count] = 0
    }
}

/// Seconds until `passcode_reset_request` is allowed again, 0 when it is allowed now.
/// In service mode passcoded answers it (its clock and the store's requests).
/// - Parameters:
///   - store: The store.
///   - out: Receives the seconds.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_retry_after)  // man: passcode-reset
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
/// bytes in a sensitive message); the code is the one passcoded mailed.
/// - Parameters:
///   - store: The store.
///   - code: The code's digits. Copied and wiped.
///   - length: Their number.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_WRONG_RESET_CODE`, `PASSCODE_ERR_RESET_CODE_EXPIRED`,
///   `PASSCODE_ERR_NO_RESET_CODE`, `PASSCODE_ERR_FORMAT`,
///   `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_reset_check)  // man: passcode-reset
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
/// bytes in a sensitive message); the code is the one passcoded mailed.
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
@c(passcode_reset_complete)  // man: passcode-reset
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
@c(passcode_reset_pending)  // man: passcode-reset
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
@c(passcode_forgot)  // man: passcode-reset
public func passcode_forgot(_ store: OpaquePointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.forgotPasscode() }
}
