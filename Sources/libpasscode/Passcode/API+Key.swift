// The C ABI for the data key: releasing it on unlock, sealing the host's data with it, and the
// recovery key that lets a reset by email keep it. See Sources/shared/PasscodeCore/Features/PasscodeStore+DataKey.swift (and Crypto/KeyWrap.swift).
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

// MARK: - Data key and sealing

/// The data key's size in bytes (32), for the buffers of `passcode_unlock_key`,
/// `passcode_biometric_unlock_key`, `passcode_flow_take_key` and `passcode_set_recovery_key`.
/// - Returns: 32.
@c(passcode_key_bytes)  // man: passcode-key
public func passcode_key_bytes() -> UInt {
    32
}

/// Copies `key` into the caller's buffer, which must be exactly `passcode_key_bytes()` long.
private func deliver(_ key: SecretBytes, to out: UnsafeMutablePointer<UInt8>?, _ length: UInt) {
    key.withBytes { UnsafeMutableRawPointer(out!).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
}

/// Checks the key buffer's pointer and size before anything else, even the handle, and touches
/// the buffer only once both are right: NULL or any other length (16, SIZE_MAX) is
/// `PASSCODE_ERR_MISUSE` with nothing written. Then the 32 bytes are zeroed, so that every later
/// failure (an invalid handle included) leaves them zeroed.
private func prepareKeyBuffer<Box: FailureKeeper>(_ out: UnsafeMutablePointer<UInt8>?, _ length: UInt,
                                                  _ table: HandleTable<Box>, _ handle: OpaquePointer?) -> Int32? {
    guard let out else { return refused(table, handle, PasscodeError.misuse("the key buffer is NULL")) }
    guard length == passcode_key_bytes() else {
        return refused(table, handle, PasscodeError.misuse(
            "the key buffer must be passcode_key_bytes() (\(passcode_key_bytes())) bytes, not \(length)"))
    }
    memset(out, 0, Int(length))
    return nil
}

/// Verifies the passcode exactly like `passcode_verify` (counted before the answer, lockout,
/// repeats, events; a success unlocks) and on success writes the store's data key: 32 random
/// bytes made when the first passcode was set, stored only wrapped under the passcode, the
/// same across change, disable and enable, cost upgrades and reopening. The key stays released
/// on this handle for `passcode_seal` until the app locks; wipe your copy with
/// `sodium_memzero` (or `explicit_bzero`) when done. In service mode passcoded checks and
/// counts the passcode and answers a correct one with the key (a sensitive reply, wiped when
/// freed); this handle keeps its own copy for `passcode_seal`, as an embedded handle does.
/// - Parameters:
///   - store: The store.
///   - digits: The passcode's ASCII digits. Copied and wiped.
///   - length: Number of digits.
///   - out_key: Receives the key; zeroed on every failure once its pointer and length are right
///     (also for an invalid handle); untouched when they are not.
///   - key_length: `passcode_key_bytes()`.
/// - Returns: `PASSCODE_OK`, any status of `passcode_verify`, or `PASSCODE_ERR_MISUSE` (NULL
///   buffer or another length, SIZE_MAX included: checked before the handle, nothing written to
///   the buffer, nothing checked or counted).
@c(passcode_unlock_key)  // man: passcode-key
public func passcode_unlock_key(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt,
                                _ out_key: UnsafeMutablePointer<UInt8>?, _ key_length: UInt) -> Int32 {
    if let status = prepareKeyBuffer(out_key, key_length, Handles.stores, store) { return status }
    return withBackend(store) { (s) throws(PasscodeError) in
        deliver(try s.unlockKey(secret(digits, length, what: "the passcode")), to: out_key, key_length)
    }
}

/// The host reports a successful biometric match, as `passcode_biometric_unlock`, and gets the
/// data key. Only a handle that holds the key since a passcode unlock in this process can give
/// it: after a launch, "lock now", the 48-hour rule, 5 failed matches, the maximum failures,
/// forgot passcode, removal or deleting the account only the passcode can release it again.
/// In service mode passcoded checks the finger itself through fprintd, as `passcode_biometric_unlock`
/// says, and answers a match with the key its handle holds since a passcode unlock; when it
/// holds none ("lock now" wiped it) the refusal is `PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY`,
/// given before any finger is asked for, as the embedded store gives it (`passcode_biometric_unlock`
/// still unlocks without the key).
/// - Parameters:
///   - store: The store.
///   - out_key: Receives the key; zeroed on every failure once its pointer and length are right
///     (also for an invalid handle); untouched when they are not.
///   - key_length: `passcode_key_bytes()`.
///   - out_refusal: Receives the `passcode_biometric_refusal` (NONE when unlocked); may be NULL.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PASSCODE_REQUIRED` (still locked; the refusal is
///   `PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY` when policy allows but this process holds no key);
///   `PASSCODE_ERR_NO_SESSION_KEYRING` (policy allows, this handle holds no key, and the process
///   has no session keyring of its own to keep one across launches in: still locked, the refusal
///   `PASSCODE_BIOMETRIC_REFUSAL_KEY_NOT_IN_MEMORY`; enter the passcode);
///   `PASSCODE_ERR_MISUSE` (NULL buffer or another length, SIZE_MAX included, checked before the
///   handle: nothing written, nothing reported);
///   `PASSCODE_ERR_INVALID_HANDLE`; `PASSCODE_ERR_CLOCK_OUT_OF_RANGE`; a store error.
@c(passcode_biometric_unlock_key)  // man: passcode-key
public func passcode_biometric_unlock_key(_ store: OpaquePointer?, _ out_key: UnsafeMutablePointer<UInt8>?,
                                          _ key_length: UInt, _ out_refusal: UnsafeMutablePointer<Int32>?) -> Int32 {
    if let status = prepareKeyBuffer(out_key, key_length, Handles.stores, store) { return status }
    out_refusal?.pointee = BiometricRefusal.none.rawValue
    return withBackend(store) { (s) throws(PasscodeError) in
        do throws(PasscodeError) {
            deliver(try s.biometricUnlockKey(), to: out_key, key_length)
        } catch PasscodeError.passcodeRequired(let r) {
            out_refusal?.pointee = r.rawValue
            throw PasscodeError.passcodeRequired(r)
        } catch PasscodeError.noSessionKeyring {
            out_refusal?.pointee = BiometricRefusal.keyNotInMemory.rawValue
            throw PasscodeError.noSessionKeyring
        } catch {
            serviceRefusal(s, error, out_refusal)
            throw error
        }
    }
}

/// After a flow finished with `PASSCODE_FLOW_RESULT_SUCCESS` (unlock, create, change, disable,
/// reset), writes the data key, once: the flow wipes its copy, and a second call fails.
/// - Parameters:
///   - flow: The flow.
///   - out_key: Receives the key; zeroed on every failure once its pointer and length are right
///     (also for an invalid handle); untouched when they are not.
///   - key_length: `passcode_key_bytes()`.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_KEY_NOT_RELEASED` (not finished with success, or
///   already taken); `PASSCODE_ERR_MISUSE` (NULL buffer or another length, SIZE_MAX included, checked
///   before the handle, nothing written; or the flow's store was closed); `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_flow_take_key)  // man: passcode-key
public func passcode_flow_take_key(_ flow: OpaquePointer?, _ out_key: UnsafeMutablePointer<UInt8>?,
                                   _ key_length: UInt) -> Int32 {
    if let status = prepareKeyBuffer(out_key, key_length, Handles.flows, flow) { return status }
    return withFlow(flow) { (_, f) throws(PasscodeError) in
        guard let key = try f.takeKey() else { throw PasscodeError.keyNotReleased }
        deliver(key, to: out_key, key_length)
    }
}

/// What `passcode_seal` adds to the data: a 36-byte header (format, key id, nonce) and a 16-byte
/// tag, as libsodium's `crypto_aead_xchacha20poly1305_ietf_abytes()` gives its overhead.
/// - Returns: 52.
@c(passcode_seal_overhead)  // man: passcode-key
public func passcode_seal_overhead() -> UInt {
    UInt(SealedBox.overhead)
}

/// Encrypts the caller's data with the data key (XChaCha20-Poly1305, a random nonce, a
/// versioned header), so a host protects its notes or tokens without touching crypto. Only
/// while the key is released on this handle: after a passcode unlock, until the app locks.
/// In service mode too the data is sealed in this process, with the key this handle received
/// after its own correct passcode: another process of the user must unlock for itself.
/// - Parameters:
///   - store: The store.
///   - plain: The data; may be NULL when `plain_length` is 0.
///   - plain_length: Its length: at most 2^32 bytes (4 GiB); a larger one is refused.
///   - out: Receives the sealed data; may be NULL when `out_capacity` is 0.
///   - out_capacity: Room in `out`: `plain_length + passcode_seal_overhead()`.
///   - out_length: Receives the sealed length (also when the room was too small).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_KEY_NOT_RELEASED`; `PASSCODE_ERR_BUFFER_TOO_SMALL`
///   (nothing written but the length); `PASSCODE_ERR_MISUSE` (NULL pointers; a length over the
///   maximum or a capacity over 2^47 - 1, no buffer can have: checked before the handle,
///   nothing read or written); `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_seal)  // man: passcode-key
public func passcode_seal(_ store: OpaquePointer?, _ plain: UnsafePointer<UInt8>?, _ plain_length: UInt,
                          _ out: UnsafeMutablePointer<UInt8>?, _ out_capacity: UInt, _ out_length: UnsafeMutablePointer<UInt>?) -> Int32 {
    if let error = sealSizeError(plain_length, SealedBox.maxPlain, out, out_capacity, what: "the data") {
        return refused(Handles.stores, store, error)
    }
    return withBackend(store) { (s) throws(PasscodeError) in
        let input = try buffer(plain, plain_length, what: "the data")
        try put(out_length, plain_length + UInt(SealedBox.overhead))
        let output = try mutableBuffer(out, out_capacity)
        _ = try s.seal(input, into: output)
    }
}

/// Decrypts what `passcode_seal` made on this store. Only while the key is released on this handle.
/// - Parameters:
///   - store: The store.
///   - sealed: The sealed data.
///   - sealed_length: Its length: at most 2^32 + `passcode_seal_overhead()` bytes.
///   - out: Receives the data; may be NULL when `out_capacity` is 0.
///   - out_capacity: Room in `out`: `sealed_length - passcode_seal_overhead()` is enough.
///   - out_length: Receives the data's length (also when the room was too small).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_BAD_CIPHERTEXT` (too short, not libpasscode's, an
///   unknown version, changed or damaged); `PASSCODE_ERR_FOREIGN_CIPHERTEXT` (another store's key,
///   or this store's before a reset replaced it); `PASSCODE_ERR_KEY_NOT_RELEASED`;
///   `PASSCODE_ERR_BUFFER_TOO_SMALL`; `PASSCODE_ERR_MISUSE` (NULL pointers; a length over the
///   maximum or a capacity over 2^47 - 1: checked before the handle, nothing read or
///   written); `PASSCODE_ERR_INVALID_HANDLE`. On failure nothing is left in `out`.
@c(passcode_unseal)  // man: passcode-key
public func passcode_unseal(_ store: OpaquePointer?, _ sealed: UnsafePointer<UInt8>?, _ sealed_length: UInt,
                            _ out: UnsafeMutablePointer<UInt8>?, _ out_capacity: UInt, _ out_length: UnsafeMutablePointer<UInt>?) -> Int32 {
    if let error = sealSizeError(sealed_length, SealedBox.maxPlain + UInt(SealedBox.overhead), out, out_capacity, what: "the sealed data") {
        return refused(Handles.stores, store, error)
    }
    return withBackend(store) { (s) throws(PasscodeError) in
        let input = try buffer(sealed, sealed_length, what: "the sealed data")
        guard out_length != nil else { throw PasscodeError.misuse("the out pointer is NULL") }
        if sealed_length >= UInt(SealedBox.overhead) { try put(out_length, sealed_length - UInt(SealedBox.overhead)) }
        let output = try mutableBuffer(out, out_capacity)
        try put(out_length, UInt(try s.unseal(input, into: output)))
    }
}

/// Wraps the released data key also under a host's recovery key: 32 bytes the host keeps
/// elsewhere (derived from the account password, or held by its backend), so that
/// `passcode_reset_complete_with_recovery_key` keeps the data key. Replaces an earlier one.
///
/// In service mode the data key never leaves passcoded: the recovery key goes there (bytes in a
/// sensitive message; its length is checked on both sides), and the key counts as released when
/// this handle set or checked the passcode within the last 5 minutes and the app is unlocked: the
/// service checks that passcode again in the same call (counted as a verify), on a handle of the
/// call's own. Otherwise `PASSCODE_ERR_KEY_NOT_RELEASED`, as embedded without an unlock.
/// - Parameters:
///   - store: The store.
///   - recovery_key: 32 bytes. Copied and wiped.
///   - length: `passcode_key_bytes()`.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_KEY_NOT_RELEASED` (unlock with the passcode first);
///   `PASSCODE_ERR_NO_PASSCODE`; `PASSCODE_ERR_MISUSE`; `PASSCODE_ERR_INVALID_HANDLE`; a store error.
@c(passcode_set_recovery_key)  // man: passcode-key
public func passcode_set_recovery_key(_ store: OpaquePointer?, _ recovery_key: UnsafePointer<UInt8>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.setRecoveryKey(secretKey(recovery_key, length, what: "the recovery key")) }
}

/// Deletes the recovery copy of the data key; a reset then replaces the key. That loses what the
/// user keeps, so it is defended as a weakening setting change: the app unlocked and, while a
/// passcode is set, the passcode entered on this handle within 5 minutes (`passcode_authorize`).
/// In service mode passcoded does it, with the proof of this handle's bus connection.
/// - Parameters:
///   - store: The store.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_APP_LOCKED`, `PASSCODE_ERR_PASSCODE_REQUIRED` (nothing
///   changed), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_clear_recovery_key)  // man: passcode-key
public func passcode_clear_recovery_key(_ store: OpaquePointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.clearRecoveryKey() }
}

/// Whether a recovery copy of the data key exists. In service mode passcoded answers it.
/// - Parameters:
///   - store: The store.
///   - out: Receives 1 or 0.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_has_recovery_key)  // man: passcode-key
public func passcode_has_recovery_key(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.hasRecoveryKey() ? 1 : 0) }
}

/// `passcode_reset_complete` that keeps the data key: the recovery key opens the store's
/// recovery copy, and the key is wrapped under the new passcode. A wrong recovery key changes
/// nothing and does not use up the reset code. In service mode passcoded does it (the code, the
/// new passcode and the recovery key as bytes in a sensitive message; the key stays there).
/// - Parameters:
///   - store: The store.
///   - code: The reset code's digits.
///   - code_length: Their number.
///   - new_digits: The new passcode.
///   - new_length: Its length.
///   - recovery_key: The 32 bytes given to `passcode_set_recovery_key`. Copied and wiped.
///   - recovery_length: `passcode_key_bytes()`.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_WRONG_RECOVERY_KEY`; any status of `passcode_reset_complete`
///   but `PASSCODE_ERR_KEY_REPLACED`.
@c(passcode_reset_complete_with_recovery_key)  // man: passcode-key
public func passcode_reset_complete_with_recovery_key(_ store: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ code_length: UInt,
                                                      _ new_digits: UnsafePointer<CChar>?, _ new_length: UInt,
                                                      _ recovery_key: UnsafePointer<UInt8>?, _ recovery_length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        _ = try s.resetPasscode(code: secret(code, code_length, what: "the reset code"),
                                newPasscode: secret(new_digits, new_length, what: "the new passcode"),
                                recoveryKey: secretKey(recovery_key, recovery_length, what: "the recovery key"))
    }
}

// MARK: Buffers

/// The sizes of `passcode_seal` and `passcode_unseal`, before the handle and before any buffer
/// is read or written: a data length over its stated maximum, or a capacity no buffer can have
/// (over 2^47 - 1 bytes, or past the end of the address space), is a caller's bug,
/// `PASSCODE_ERR_MISUSE`, and the sum with the overhead
/// cannot overflow after this.
private func sealSizeError(_ length: UInt, _ maximum: UInt, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: UInt,
                           what: String) -> PasscodeError? {
    guard length <= maximum else { return PasscodeError.misuse("\(what) is too long (\(length) bytes; at most \(maximum))") }
    guard !impossibleBuffer(out, capacity) else { return PasscodeError.misuse("the output capacity \(capacity) is no buffer's size") }
    return nil
}

private func secretKey(_ pointer: UnsafePointer<UInt8>?, _ length: UInt, what: String) throws(PasscodeError) -> SecretBytes {
    guard let pointer else { throw PasscodeError.misuse("\(what) is NULL") }
    guard length == passcode_key_bytes() else { throw PasscodeError.misuse("\(what) must be \(passcode_key_bytes()) bytes, not \(length)") }
    return SecretBytes(copying: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
}

private func buffer(_ pointer: UnsafePointer<UInt8>?, _ length: UInt, what: String) throws(PasscodeError) -> UnsafeRawBufferPointer {
    guard length <= UInt(Int.max) else { throw PasscodeError.misuse("\(what) is too long") }
    if length == 0 { return UnsafeRawBufferPointer(start: pointer, count: 0) }
    guard let pointer else { throw PasscodeError.misuse("\(what) is NULL") }
    return UnsafeRawBufferPointer(start: pointer, count: Int(length))
}

private func mutableBuffer(_ pointer: UnsafeMutablePointer<UInt8>?, _ capacity: UInt) throws(PasscodeError) -> UnsafeMutableRawBufferPointer {
    if capacity == 0 { return UnsafeMutableRawBufferPointer(start: pointer, count: 0) }
    guard let pointer else { throw PasscodeError.misuse("the output buffer is NULL") }
    return UnsafeMutableRawBufferPointer(start: pointer, count: Int(clamping: capacity))
}
