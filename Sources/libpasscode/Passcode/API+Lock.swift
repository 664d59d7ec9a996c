// The C ABI for lock state, app lifecycle and biometric policy.
import CPasscodeTypes
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

// MARK: - Lock state and app lifecycle

/// Reports what happened to the app; libpasscode decides whether it is now locked. At launch
/// the app locks whenever the lock is on (unless `PASSCODE_SETTING_LOCK_AT_LAUNCH` is 0);
/// returning from the background locks after at least the auto-lock timeout (with "immediately",
/// after a 5-second grace period), or after a restart. A launch after a process was killed in
/// the background applies the same rule to the time since it went there, so with lock at launch
/// off a kill never resets the auto-lock timer. Nothing locks while the lock is off.
/// - Parameters:
///   - store: The store.
///   - event: A `passcode_app_event` value.
///   - out_locked: Receives 1 when the app is locked after the event, else 0; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (unknown event), `PASSCODE_ERR_INVALID_HANDLE`,
///   `PASSCODE_ERR_CLOCK_OUT_OF_RANGE`, or a store error, such as `PASSCODE_ERR_BUSY` when another
///   process holds the store's write lock past the busy timeout. On any error the event was not
///   recorded: show the lock screen as if the answer were "locked" (a process of the same user
///   that holds the lock can delay the record, never unlock the app).
///
/// In service mode (`passcode_options_set_service`) passcoded records the event with the same
/// rules and statuses; the process that reported BACKGROUND is the caller the bus names (its
/// pid, and its start time read from /proc by the service), never an argument, and whether it
/// is gone at a launch is checked by the service.
@c(passcode_event_report)  // man: passcode-lock
public func passcode_event_report(_ store: OpaquePointer?, _ event: Int32, _ out_locked: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let e = AppEvent(checked: event) else { throw PasscodeError.misuse("unknown event \(event)") }
        let status = try s.report(e)
        out_locked?.pointee = status.locked ? 1 : 0
    }
}

/// Whether the app is locked now, and why. Every process using the store sees the same state.
/// - Parameters:
///   - store: The store.
///   - out_locked: Receives 1 or 0.
///   - out_reason: Receives a `passcode_lock_reason`; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (NULL out_locked), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_lock_state)  // man: passcode-lock
public func passcode_lock_state(_ store: OpaquePointer?, _ out_locked: UnsafeMutablePointer<Int32>?, _ out_reason: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        let status = try s.lockStatus()
        try put(out_locked, status.locked ? 1 : 0)
        out_reason?.pointee = status.reason.rawValue
    }
}

/// Everything a lock screen draws, in one call: the lock state and its reason, the lockout
/// seconds left, the failures since the last unlock, whether a reset is required, the biometric
/// check, lead, kind and label, and whether a passcode is set and the lock on. Read under one
/// lock from the handle's cache while the store is unchanged, so it costs about one
/// passcode_is_set(); like it, a change any connection commits shows at the next call. Made
/// for polling on every redraw (a lockout countdown); the fields agree with each other and
/// with the single calls of the same moment.
/// - Parameters:
///   - store: The store.
///   - screen: The struct to fill; set its `size` to `sizeof(passcode_lock_screen)` first.
///     Fields beyond `size` are not touched; fields within it that this library does not know
///     are set to 0.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_MISUSE` (NULL `screen`, or a `size` smaller than the
///   smallest version, one ending with `reason`, or over 4096: not set); `PASSCODE_ERR_INVALID_HANDLE`;
///   or a store error. On failure `screen` is unchanged.
@c(passcode_lock_screen_read)  // man: passcode-lock
@_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
public func passcode_lock_screen_read(_ store: OpaquePointer?, _ screen: UnsafeMutableRawPointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let screen else { throw PasscodeError.misuse("the lock-screen struct is NULL") }
        let size = Int(screen.load(as: Int.self))
        guard size >= LockScreenABI.smallest else {
            throw PasscodeError.misuse("the lock-screen struct's size is \(size); set it to sizeof(passcode_lock_screen)")
        }
        guard size <= 4096 else {
            throw PasscodeError.misuse("the lock-screen struct's size is \(size), not a size: set it to sizeof(passcode_lock_screen)")
        }
        // The C struct, made by the store once while nothing changes (LockScreenABI.write).
        let known = MemoryLayout<passcode_lock_screen>.size
        let start = MemoryLayout<Int>.size  // `size` is the caller's
        try s.copyLockScreen(to: screen + start, from: start, count: min(size, known) - start, make: LockScreenABI.write)
        if size > known { memset(screen + known, 0, size - known) }  // a newer caller's fields: unknown here
    }
}

/// The layout facts of `passcode_lock_screen`, from the C header the library is built with.
enum LockScreenABI {
    /// The first version's fields: size, locked, reason.
    static let smallest: Int = {
        // The offset of `reason`, from the addresses of the struct and of the field (no key path).
        var screen = passcode_lock_screen()
        let offset = withUnsafeMutablePointer(to: &screen) { base in
            withUnsafeMutablePointer(to: &base.pointee.reason) { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
        }
        return offset + MemoryLayout<Int32>.size
    }()

    /// Writes `v` as the C struct (its `size` 0, its padding zero) to `out`, a `LockScreenImage`.
    static func write(_ v: LockScreen, to out: UnsafeMutableRawPointer) {
        var c = passcode_lock_screen()
        withUnsafeMutableBytes(of: &c) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }  // the padding too: no stray bytes to the caller
        c.locked = v.status.locked ? 1 : 0
        c.reason = v.status.reason.rawValue
        c.lockout_seconds = v.lockoutSeconds
        c.failed_attempts = Int32(clamping: v.failedAttempts)
        c.reset_required = v.resetRequired ? 1 : 0
        c.biometric_refusal = v.refusal.rawValue
        c.biometric_lead = v.lead ? 1 : 0
        c.biometric_kind = v.kind.rawValue
        c.passcode_set = v.passcodeSet ? 1 : 0
        c.lock_enabled = v.lockEnabled ? 1 : 0
        c.security_label = label(v.kind)
        precondition(MemoryLayout<passcode_lock_screen>.size <= MemoryLayout<LockScreenImage>.size, "passcode_lock_screen outgrew LockScreenImage")
        withUnsafeBytes(of: &c) { out.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }

    /// The security label of `kind` as a static C string, in the host's language (gettext's
    /// string lives as long as the process). The struct made with it is kept while the store does
    /// not change, so a host that switches its language sees the new label from the next change.
    @_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
    static func label(_ kind: BiometricKind) -> UnsafePointer<CChar>? {
        Localized.staticText(Message.label(kind))
    }
}

// MARK: - Biometrics

/// Tells the library whether this device has biometrics, and of which kind. A report changes
/// no setting: while biometrics are unavailable, policy refuses them
/// (`PASSCODE_BIOMETRIC_REFUSAL_BIOMETRIC_UNAVAILABLE`), so with "Require on App Launch" on a launch still
/// locks and asks for the passcode, and the user's settings are as they were when a reader returns.
/// - Parameters:
///   - store: The store.
///   - available: 1 or 0.
///   - kind: A `passcode_biometric_kind` value.
/// In service mode the host's word is not taken: the report is the moment passcoded asks fprintd,
/// and what it records is fprintd's answer (a reader with a finger enrolled for the caller's
/// user: available, kind fingerprint; otherwise unavailable, with the host's kind for the label).
/// passcoded asks again at each biometric unlock. Either way a report unlocks nothing.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (bad values), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_biometric_set_available)  // man: passcode-biometrics
public func passcode_biometric_set_available(_ store: OpaquePointer?, _ available: Int32, _ kind: Int32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard available == 0 || available == 1 else { throw PasscodeError.misuse("available must be 0 or 1") }
        guard let k = BiometricKind(checked: kind) else { throw PasscodeError.misuse("unknown biometric kind \(kind)") }
        try s.setBiometricAvailability(available == 1, kind: k)
    }
}

/// The label of the security settings entry: "Passcode & Face ID", "Passcode & Touch ID",
/// "Passcode & Fingerprint" or "Passcode & Biometric", from the reported biometric kind, in the
/// host's language (its code: passcode_message_of() with PASSCODE_MESSAGE_TOPIC_SECURITY_LABEL).
/// - Parameters:
///   - store: The store.
///   - out: Receives a static string owned by the library.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_security_label)  // man: passcode-biometrics
public func passcode_security_label(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, LockScreenABI.label(try s.biometricKind())) }
}

/// Whether a biometric match may unlock now, without changing anything (to decide whether
/// to show the biometric button or prompt). In service mode passcoded decides it, with its own
/// clock (as `passcode_lock_screen_read`'s `biometric_refusal`).
/// - Parameters:
///   - store: The store.
///   - out_refusal: Receives `PASSCODE_BIOMETRIC_REFUSAL_NONE` when it may, else the reason
///     the passcode is needed (a `passcode_biometric_refusal`).
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_biometric_check)  // man: passcode-biometrics
public func passcode_biometric_check(_ store: OpaquePointer?, _ out_refusal: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out_refusal, try s.biometricRefusal().rawValue) }
}

/// Whether the lock screen should open the biometric prompt by itself, before the user touches
/// anything ("the prompt shows automatically"; "Require on App Launch").
/// 1 only while the app is locked and a biometric match may unlock (passcode_biometric_check
/// says NONE), and then for every lock except one made by a launch without "Require on App
/// Launch". The two launch settings combine so:
///
/// | lock at launch | require on launch | a launch            | the lock screen leads with       |
/// |----------------|-------------------|---------------------|----------------------------------|
/// | 0              | 0                 | does not lock       | (later locks) the biometric prompt |
/// | 1 (default)    | 0                 | locks               | the passcode pad, biometric button |
/// | 0              | 1                 | locks               | the biometric prompt             |
/// | 1              | 1                 | locks               | the biometric prompt             |
///
/// In every row the biometric prompt is offered only when policy allows: never for the first
/// unlock after a device restart, nor (with PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH) after a
/// launch; then the answer is 0 and the pad shows. In service mode passcoded decides it (as
/// `passcode_lock_screen_read`'s `biometric_lead`).
/// - Parameters:
///   - store: The store.
///   - out_lead: Receives 1 to start with the biometric prompt, 0 to show the passcode pad.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_biometric_lead)  // man: passcode-biometrics
public func passcode_biometric_lead(_ store: OpaquePointer?, _ out_lead: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out_lead, try s.biometricLead() ? 1 : 0) }
}

/// Reports a successful biometric match. The app unlocks only if policy allows: biometric
/// unlock on, biometrics available, no lockout or reset pending, not the first unlock after
/// launch or a restart, the passcode entered within 48 hours, fewer than 5 failed matches.
/// Report each match once: a success is never reused.
///
/// In service mode the host's word on a match is not taken: passcoded checks the finger itself
/// through fprintd (the default reader, claimed for the caller's user, waited for up to
/// passcoded.conf's `fprint_timeout`, always released), and the same rules apply to its answer.
/// A no-match is counted as `passcode_biometric_failed` counts it and answers
/// `PASSCODE_ERR_PASSCODE_REQUIRED`; no finger read in time answers `PASSCODE_ERR_BIOMETRIC_TIMEOUT`;
/// the reader in use by another program `PASSCODE_ERR_BIOMETRIC_READER_BUSY`; no reader or no
/// enrolled finger `PASSCODE_ERR_BIOMETRIC_UNAVAILABLE` (these three count nothing; the message
/// says which); too many checks waiting in passcoded at once `PASSCODE_ERR_BUSY`.
/// - Parameters:
///   - store: The store.
///   - out_refusal: Receives the `passcode_biometric_refusal` (NONE when unlocked); may be NULL.
/// - Returns: `PASSCODE_OK` (unlocked), `PASSCODE_ERR_PASSCODE_REQUIRED` (still locked; ask
///   for the passcode), in service mode `PASSCODE_ERR_BIOMETRIC_TIMEOUT`,
///   `PASSCODE_ERR_BIOMETRIC_READER_BUSY`, `PASSCODE_ERR_BIOMETRIC_UNAVAILABLE` or `PASSCODE_ERR_BUSY`,
///   `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_biometric_unlock)  // man: passcode-biometrics
public func passcode_biometric_unlock(_ store: OpaquePointer?, _ out_refusal: UnsafeMutablePointer<Int32>?) -> Int32 {
    out_refusal?.pointee = BiometricRefusal.none.rawValue
    return withBackend(store) { (s) throws(PasscodeError) in
        do throws(PasscodeError) {
            try s.biometricUnlock()
        } catch PasscodeError.passcodeRequired(let r) {
            out_refusal?.pointee = r.rawValue
            throw PasscodeError.passcodeRequired(r)
        } catch {
            serviceRefusal(s, error, out_refusal)
            throw error
        }
    }
}

/// Reports a failed biometric match. After 5 since the last unlock the passcode is needed.
/// In service mode passcoded counts it the same way (a failure only counts against biometrics).
/// - Parameters:
///   - store: The store.
///   - out_count: Receives the failed matches since the last unlock; may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_biometric_failed)  // man: passcode-biometrics
public func passcode_biometric_failed(_ store: OpaquePointer?, _ out_count: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        let n = try s.biometricFailed()
        out_count?.pointee = Int32(clamping: n)
    }
}

/// Service mode: passcoded's PASSCODE_REQUIRED after a fingerprint check carries its message; the
/// refusal is the one that message names, else the one the lock screen reads now.
func serviceRefusal(_ s: any StoreBackend, _ error: PasscodeError, _ out: UnsafeMutablePointer<Int32>?) {
    guard case .service(let status, let message, _) = error, status == Status.errPasscodeRequired.rawValue else { return }
    // The refusal passcoded gave is in the core's own text of it (KEY_NOT_IN_MEMORY is one the
    // lock screen's policy never answers); else the policy's now.
    if let said = BiometricRefusal.allCases.first(where: { $0 != .none && PasscodeError.passcodeRequired($0).message == message }) {
        out?.pointee = said.rawValue
    } else if let r = try? s.biometricRefusal() {
        out?.pointee = r.rawValue
    }
}
