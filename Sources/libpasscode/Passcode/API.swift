// The C ABI for stores and the passcode: thin functions that check arguments, convert, call
// the Swift core and map errors. Doc comments here become include/passcode.h.
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

/// A raw payload pointer handed back to the host unchanged.
struct Payload: @unchecked Sendable { let raw: UnsafeMutableRawPointer? }

// MARK: - Options

/// Creates an options object for `passcode_open`, holding the defaults: Argon2id INTERACTIVE,
/// no pepper, weak passcodes refused, the system clock, a 10-second busy timeout.
/// - Parameters:
///   - out_options: Receives the new object; release it with `passcode_options_free`.
/// - Returns: `PASSCODE_OK`, or `PASSCODE_ERR_MISUSE` when `out` is NULL.
/// Threads: an options object must not be changed from two threads at once.
@c(passcode_options_new)  // man: passcode-options
public func passcode_options_new(_ out_options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out_options else { return Status.errMisuse.rawValue }
    out_options.pointee = Handles.options.add(OptionsBox())
    return Status.ok.rawValue
}

/// Releases an options object. Stores opened with it keep their own copy. NULL does nothing.
/// - Parameters:
///   - options: The object, or NULL.
@c(passcode_options_free)  // man: passcode-options
public func passcode_options_free(_ options: OpaquePointer?) {
    Handles.options.remove(options)
}

/// The Argon2id presets of `passcode_options_set_cost`.
@c(passcode_cost)
public enum Cost: Int32 {
    /// libsodium INTERACTIVE: t=2, 64 MiB (default).
    case interactive = 0
    /// libsodium MODERATE: t=3, 256 MiB.
    case moderate = 1
    /// libsodium SENSITIVE: t=4, 1 GiB.
    case sensitive = 2
}

/// Chooses an Argon2id preset for new hashes. Stored hashes made with other parameters are
/// re-hashed at the next successful verify.
/// - Parameters:
///   - options: The options object.
///   - cost: A `passcode_cost` value.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or `PASSCODE_ERR_MISUSE` for an unknown cost.
@c(passcode_options_set_cost)  // man: passcode-options
public func passcode_options_set_cost(_ options: OpaquePointer?, _ cost: Int32) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    switch Cost(rawValue: cost) {
    case .interactive: box.options.cost = .interactive
    case .moderate: box.options.cost = .moderate
    case .sensitive: box.options.cost = .sensitive
    case nil: return Status.errMisuse.rawValue
    }
    box.chose("the Argon2id cost")
    return Status.ok.rawValue
}

/// Chooses explicit Argon2id parameters (libsodium's opslimit and memlimit in bytes).
/// - Parameters:
///   - options: The options object.
///   - ops_limit: Passes over memory, at least 1.
///   - mem_limit: Bytes of memory, at least 8192.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or `PASSCODE_ERR_MISUSE` outside libsodium's limits.
@c(passcode_options_set_cost_explicit)  // man: passcode-options
public func passcode_options_set_cost_explicit(_ options: OpaquePointer?, _ ops_limit: UInt64, _ mem_limit: UInt) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    guard mem_limit <= UInt(Int.max) else { return Status.errMisuse.rawValue }
    let cost = HashCost(opsLimit: ops_limit, memLimit: Int(mem_limit))
    guard cost.isValid else { return Status.errMisuse.rawValue }
    box.options.cost = cost
    box.chose("the Argon2id cost")
    return Status.ok.rawValue
}

/// Sets a pepper: 32 secret bytes mixed into every hash with a keyed BLAKE2b, so that the
/// store file alone cannot be brute-forced, and a MAC keyed from it detects edits of the
/// store's security state (`PASSCODE_ERR_TAMPERED`). Keep it outside the store and use it from
/// the first open on: a store set up with a pepper opens only with the same one, and one set up
/// without opens only without (`PASSCODE_ERR_WRONG_PEPPER`). The bytes are copied; wipe your copy.
/// - Parameters:
///   - options: The options object.
///   - pepper: 32 bytes, or NULL with length 0 to remove the pepper.
///   - length: Must be 32 (or 0 with NULL).
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or `PASSCODE_ERR_MISUSE` for another length.
@c(passcode_options_set_pepper)  // man: passcode-options
public func passcode_options_set_pepper(_ options: OpaquePointer?, _ pepper: UnsafePointer<UInt8>?, _ length: UInt) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    if pepper == nil && length == 0 {
        box.options.pepper = nil
        return Status.ok.rawValue
    }
    guard let pepper, length == 32 else { return Status.errMisuse.rawValue }
    box.options.pepper = SecretBytes(copying: UnsafeRawBufferPointer(start: pepper, count: 32))
    box.chose("the pepper")
    return Status.ok.rawValue
}

/// Whether a passcode unlock keeps the key that opens the data key in the Linux kernel's
/// session keyring (default 1), so that a biometric match in a later process of the same boot
/// and login session releases the data key too (passcode_biometric_unlock_key). The entry is
/// readable only by its possessors (processes of this login session), expires after 48 hours,
/// is forgotten at reboot, and exists only while biometric unlock is on and
/// PASSCODE_SETTING_PASSCODE_AFTER_EVERY_LAUNCH is off. It is removed on 5 failed matches, the
/// maximum failures, forgot passcode, removal, a reset, deleting the account, and when either
/// setting changes. Code running as the same user in the same session can read it, as it could
/// read the unlocked app's memory. With 0 nothing is kept: after a new launch only the
/// passcode releases the key (plain passcode_biometric_unlock still unlocks by policy).
/// - Parameters:
///   - options: The options object.
///   - enabled: 1 to use the session keyring, 0 not to.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE` or `PASSCODE_ERR_MISUSE`.
@c(passcode_options_set_session_keyring)  // man: passcode-options
public func passcode_options_set_session_keyring(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    setOptionFlag(options, enabled) { $0.sessionKeyring = $1 }
}

/// Sets one on/off option from a C int that must be 0 or 1.
private func setOptionFlag(_ options: OpaquePointer?, _ value: Int32, _ set: (inout StoreOptions, Bool) -> Void) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    guard value == 0 || value == 1 else { return Status.errMisuse.rawValue }
    set(&box.options, value == 1)
    return Status.ok.rawValue
}

/// Accepts passcodes the weak-passcode rules would refuse (runs like 1234, common choices).
/// For hosts that must; the default refuses them.
/// - Parameters:
///   - options: The options object.
///   - allow: 1 to accept weak passcodes, 0 to refuse them.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE` or `PASSCODE_ERR_MISUSE`.
@c(passcode_options_set_allow_weak)  // man: passcode-options
public func passcode_options_set_allow_weak(_ options: OpaquePointer?, _ allow: Int32) -> Int32 {
    let status = setOptionFlag(options, allow) { $0.allowWeak = $1 }
    if status == Status.ok.rawValue && allow == 1 { Handles.options.get(options)?.chose("allow_weak") }
    return status
}

/// Supplies the clock (embedded hosts with their own time source, and tests). The callback
/// fills a boot-time clock in milliseconds that never follows the wall clock, the wall clock
/// in milliseconds since 1970 (lockouts and reset codes check it too, and it is shown in the
/// log), and a boot id that changes at every reboot. Readings must be in range: the boot clock
/// 0 to 2^61 - 1 ms, the wall clock -(2^61 - 1) to 2^61 - 1 ms; a call that reads the clock
/// refuses any other with `PASSCODE_ERR_CLOCK_OUT_OF_RANGE` and changes nothing.
/// It may be called from any thread that uses the store, and must not call libpasscode.
/// - Parameters:
///   - options: The options object.
///   - clock: The callback, or NULL for the system clock (CLOCK_BOOTTIME and the kernel's boot id).
///   - payload: Handed back to `clock` unchanged.
/// - Returns: `PASSCODE_OK` or `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_options_set_clock)  // man: passcode-options
public func passcode_options_set_clock(
    _ options: OpaquePointer?,
    _ clock: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int64>?, UnsafeMutablePointer<Int64>?, UnsafeMutablePointer<UInt64>?) -> Void)?,
    _ payload: UnsafeMutableRawPointer?
) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    guard let clock else {
        box.options.clock = SystemClock.read
        return Status.ok.rawValue
    }
    box.chose("the clock")
    let p = Payload(raw: payload)
    box.options.clock = {
        var boot: Int64 = 0, wall: Int64 = 0, id: UInt64 = 0
        clock(p.raw, &boot, &wall, &id)
        return ClockReading(bootMs: boot, wallMs: wall, bootID: id)
    }
    return Status.ok.rawValue
}

/// How long a call waits for another process that holds the store before giving up with
/// `PASSCODE_ERR_BUSY`.
/// - Parameters:
///   - options: The options object.
///   - milliseconds: 0 to 600000; the default is 10000.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE` or `PASSCODE_ERR_MISUSE`.
@c(passcode_options_set_busy_timeout)  // man: passcode-options
public func passcode_options_set_busy_timeout(_ options: OpaquePointer?, _ milliseconds: Int32) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    guard milliseconds >= 0 && milliseconds <= 600_000 else { return Status.errMisuse.rawValue }
    box.options.busyTimeoutMs = milliseconds
    return Status.ok.rawValue
}

/// Service mode: `passcode_open` reaches the store `app_id` that passcoded keeps for the calling
/// user (under /var/lib/passcode/UID/, another user's folder: code running as the same user
/// cannot read, write, delete or copy it), over the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when
/// set), instead of opening a file; the open's `path` is ignored. The library loads
/// libsystemd.so.0 at that moment. The service chooses the clock, the Argon2id cost, the pepper,
/// the weak-passcode rule and the TPM: an open in service mode with any of those options set
/// fails with `PASSCODE_ERR_REFUSED_IN_SERVICE_MODE` (the message names the option), as do
/// `passcode_set_reset_delivery_callback` (a reset code handed to the host), `passcode_tpm_bind`
/// and `passcode_tpm_unbind`. passcoded does the secret work itself: `passcode_reset_request`
/// has it mail the code to the store's recipient (`passcode_reset_recipient_set`), and
/// `passcode_biometric_unlock` and `passcode_biometric_unlock_key` have it read the finger
/// through fprintd (the host reports no match). Every other call works, with the statuses and
/// messages of the embedded store. A weakening change (a setting, the lockout
/// table) needs the passcode entered on the same handle within 5 minutes, as embedded: passcoded
/// keeps that proof for the handle's bus connection, on its own clock. The data key reaches the
/// handle only in the reply to a correct passcode, and sealing runs in the host with it; a
/// callback that can refuse (settings hook, lifecycle, session hook) is asked by passcoded in the
/// middle of the call and cannot call the library then (`PASSCODE_ERR_MISUSE`). After
/// `fork()`, a child may go on using a handle it inherited, as with the embedded store: its
/// first call opens a bus connection of the child's own (the parent's is neither used nor
/// closed by the child), and both processes reach the same store. Fork only while no other
/// thread is in a call on that handle (the child's copy would wait for that call forever).
/// - Parameters:
///   - options: The options object.
///   - app_id: The application's id: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or
///     digit (the service refuses others with `PASSCODE_ERR_MISUSE` at the open); NULL turns
///     service mode off (the embedded store, the default). Copied. Inside a Flatpak sandbox up
///     to 255 bytes, and the service admits only the app's verified id or names under it
///     (passcode-service(3), "Using libpasscode from a Flatpak").
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or `PASSCODE_ERR_MISUSE` (an empty,
///   overlong or non-UTF-8 string).
@c(passcode_options_set_service)  // man: passcode-options
public func passcode_options_set_service(_ options: OpaquePointer?, _ app_id: UnsafePointer<CChar>?) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    guard let app_id else {
        box.serviceAppID = nil
        return Status.ok.rawValue
    }
    // In a sandbox the service admits the app's verified id, up to 255 bytes (Flatpak's limit).
    let most = ServiceClient.inSandbox ? 255 : 64
    let n = strnlen(app_id, most + 1)
    guard n > 0, n <= most, let text = String(validatingCString: app_id) else { return Status.errMisuse.rawValue }
    box.serviceAppID = text
    return Status.ok.rawValue
}

// MARK: - Stores

/// Opens the store at `path`, creating it with mode 0600 when it does not exist. Several
/// processes may open the same store; each sees the others' changes. A new store is built under
/// a temporary name beside `path` (`PATH.new-HEX`) and then linked to `path`, so a crash
/// never leaves an empty store; an empty file found at `path` was not made by the library, and
/// with a pepper it opens as a store whose rows were deleted (`PASSCODE_ERR_TAMPERED` until a reset).
/// - Parameters:
///   - path: A file path (NUL-terminated). Its folder must exist.
///   - options: An options object, or NULL for the defaults. Not kept: free it when you like.
///   - out_store: Receives the handle (NULL on failure); release it with `passcode_close`.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_MISUSE` (NULL path or out), `PASSCODE_ERR_INVALID_HANDLE`
///   (bad options), `PASSCODE_ERR_NOT_FOUND` (no such folder), `PASSCODE_ERR_IS_DIRECTORY`,
///   `PASSCODE_ERR_READ_ONLY`, `PASSCODE_ERR_NOT_A_STORE`, `PASSCODE_ERR_NEWER_SCHEMA`,
///   `PASSCODE_ERR_CORRUPT`, `PASSCODE_ERR_FULL`, `PASSCODE_ERR_BUSY`, `PASSCODE_ERR_IO`,
///   `PASSCODE_ERR_PERMISSION` (the file, its -journal, -wal or -shm belongs to another user or
///   may be read or written by group or others, or the folder is another user's or may be written
///   by group or others, sticky bit or not: the message names the file or folder and why; such a
///   journal or WAL is never replayed), `PASSCODE_ERR_FOREIGN_SCHEMA` (the file's schema has an
///   object no libpasscode made, e.g. a planted trigger), `PASSCODE_ERR_WRONG_PEPPER`, `PASSCODE_ERR_TPM_REQUIRED`
///   (a store bound to a TPM, opened without `passcode_options_set_tpm`), `PASSCODE_ERR_TPM_UNAVAILABLE`
///   (the option given and no TPM answers, or tpm2-tss missing), `PASSCODE_ERR_TPM_OWNER_AUTH`
///   (the owner authorization file is there but unsafe or malformed).
///   On failure nothing is changed, and `passcode_errmsg(NULL)` says why. Nothing is created
///   either, except when the new store was made whole and the open after it failed (busy, say):
///   it stays, since another process may already use it.
/// Threads: a store handle may be used from several threads at once.
@c(passcode_open)  // man: passcode-stores
public func passcode_open(_ path: UnsafePointer<CChar>?, _ options: OpaquePointer?, _ out_store: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out_store else {
        Handles.openMessage.set("the out pointer is NULL")
        return Status.errMisuse.rawValue
    }
    out_store.pointee = nil
    guard let path else {
        Handles.openMessage.set("the store path is NULL")
        return Status.errMisuse.rawValue
    }
    var opts = StoreOptions()
    var service: (appID: String, hostChoices: [String])?
    if options != nil {
        guard let box = Handles.options.get(options) else {
            Handles.openMessage.set("the options handle is not valid")
            return Status.errInvalidHandle.rawValue
        }
        opts = box.options
        service = box.serviceAppID.map { ($0, box.hostChoices) }
    }
    do throws(PasscodeError) {
        let backend: any StoreBackend
        var embedded: PasscodeStore?
        if let service {
            if let first = service.hostChoices.first {
                let all = service.hostChoices.count > 1 ? " (options chosen: \(service.hostChoices.joined(separator: ", ")))" : ""
                // The TPM: passcoded binds its stores to the one its configuration names, and holds
                // that TPM's owner authorization itself; a host never picks one.
                let tpm = service.hostChoices.contains { $0.hasPrefix("the TPM") }
                    ? "; the TPM is the one passcoded.conf names (passcode_tpm_posture reports it)" : ""
                throw PasscodeError.refusedInServiceMode("\(first) is refused in service mode: the service chooses it alone\(tpm)\(all)")
            }
            backend = try ServiceClient.connect(appID: service.appID)
        } else {
            let store = try PasscodeStore(path: String(cString: path), options: opts)
            embedded = store
            backend = store
        }
        out_store.pointee = Handles.stores.add(StoreBox(backend, store: embedded))
        return Status.ok.rawValue
    } catch {
        Handles.openMessage.set(error.message)
        return error.status.rawValue
    }
}

/// Closes a store handle. The handle is invalid afterwards (calls with it return
/// `PASSCODE_ERR_INVALID_HANDLE`), and so are its flows: every call on a flow of this store
/// returns `PASSCODE_ERR_MISUSE` until `passcode_flow_free`. The data key the handle and its
/// flows held is wiped from memory at once; a call still running on another thread finishes
/// without keeping it. NULL does nothing.
/// - Parameters:
///   - store: The handle, or NULL.
@c(passcode_close)  // man: passcode-stores
public func passcode_close(_ store: OpaquePointer?) {
    guard let box = Handles.stores.remove(store) else { return }
    box.backend.close()
    for flow in Handles.flows.boxes(where: { $0.storeBox === box }) { flow.invalidate() }
}

/// Removes the store: its file, the file's -wal and -shm, the session keyring's entry for it,
/// and for a store bound to a TPM its attempt counter and guess-limit index there. In service
/// mode the store passcoded keeps for this app id goes, which frees one of the user's stores
/// (passcoded keeps at most 32 per user, then answers `PASSCODE_ERR_FULL` to a new app id).
/// With a passcode set, the passcode is required and checked exactly like `passcode_verify`
/// (counted before its answer is known; a lockout, the reset required or a logout answers as
/// there), then the lifecycle callback is asked (`PASSCODE_LIFECYCLE_EVENT_REMOVED`) and can refuse.
/// With no passcode set (also while the lock state is `PASSCODE_LOCK_REASON_LOGGED_OUT`) nothing
/// is needed: pass NULL and 0.
///
/// Afterwards every call on this handle but `passcode_close` answers `PASSCODE_ERR_STORE_REMOVED`
/// (close it as usual), and so does every other handle open on the store, in this process or
/// another, from its next call that reads the store: none of them writes to the removed file
/// (embedded). In service mode another handle of the same app id reaches the app id's store as
/// it is now: after a removal, a new, empty one, as a new `passcode_open` would. `passcode_open`
/// on the same path (or app id) makes a new, empty store. A removal cut short by a crash is
/// finished by the next open of the path.
/// - Parameters:
///   - store: The store.
///   - digits: The passcode's ASCII digits when one is set (copied and wiped), else NULL.
///   - length: Their number; 0 with NULL.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_PASSCODE_REQUIRED` (a passcode is set and none was
///   given: not counted); `PASSCODE_ERR_NO_PASSCODE` (a passcode was given and none is set);
///   `PASSCODE_ERR_FORMAT` (not counted); any status of `passcode_verify`
///   (`PASSCODE_ERR_WRONG_PASSCODE` is counted); `PASSCODE_ERR_HOOK_FAILED` (the lifecycle
///   callback refused); `PASSCODE_ERR_STATE` (another process changed the passcode meanwhile);
///   `PASSCODE_ERR_TAMPERED`; `PASSCODE_ERR_BUSY`; `PASSCODE_ERR_STORE_REMOVED` (already removed);
///   `PASSCODE_ERR_MISUSE` (NULL digits with a length); `PASSCODE_ERR_INVALID_HANDLE`; or a store
///   error. On every failure nothing was removed.
@c(passcode_store_remove)  // man: passcode-stores
public func passcode_store_remove(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withHandle(Handles.stores, store) { (box) throws(PasscodeError) in
        try box.checkNotRemoved()
        let code = length == 0 ? nil : try secret(digits, length, what: "the passcode")
        try box.backend.removeStore(current: code)
        box.markRemoved()
        // Its flows end, wiping what they held (each call on them answers STORE_REMOVED).
        for flow in Handles.flows.boxes(where: { $0.storeBox === box }) { flow.invalidate() }
    }
}

/// The detailed message of the calling thread's last failed call on `store`, or of its last
/// failed `passcode_open` when `store` is NULL (like errno, it is kept per thread, so threads
/// sharing a handle never see or overwrite each other's). Never contains a passcode or a code.
/// - Parameters:
///   - store: A handle, or NULL.
/// - Returns: A string owned by the library, valid until this thread's next failing call on
///   the same handle (or until the handle is closed); "" when there was none.
@c(passcode_errmsg)  // man: passcode-stores
public func passcode_errmsg(_ store: OpaquePointer?) -> UnsafePointer<CChar>? {
    if store == nil { return Handles.openMessage.pointer ?? CStrings.intern("") }
    guard let box = Handles.stores.get(store) else { return CStrings.intern(Status.errInvalidHandle.text) }
    return box.messagePointer ?? CStrings.intern("")
}

/// The wait in seconds that the calling thread's last failed call on `store` carried:
/// for `PASSCODE_ERR_LOCKED_OUT`, until the next attempt is allowed; for
/// `PASSCODE_ERR_RATE_LIMITED`, until the next reset-code request. 0 after any other failure.
/// Kept per thread and handle like `passcode_errmsg`, so no second call races a clock.
/// - Parameters:
///   - store: A handle.
/// - Returns: The seconds, or 0 (also for NULL or a closed handle).
@c(passcode_errwait)  // man: passcode-stores
public func passcode_errwait(_ store: OpaquePointer?) -> Int64 {
    Handles.stores.get(store)?.waitSeconds ?? 0
}

// MARK: - Passcode

/// Sets the first passcode and turns the lock on. No earlier passcode was proved, so the
/// policy starts from its safe defaults: every setting whose value is weaker than its default
/// (`passcode_setting_weakens` from the default to it) goes back to the default, and a custom
/// lockout table goes, whoever set them while no passcode existed (before the first setup, or
/// while logged out); the security log says what was reset (`PASSCODE_LOG_KIND_SETTING_CHANGED`).
/// The passcode gives this handle the proof (`passcode_authorize`) to set a weaker rule again.
/// The same holds after a reset (`passcode_reset_complete`).
/// - Parameters:
///   - store: The store.
///   - digits: The passcode's ASCII digits (need not be NUL-terminated). Copied and wiped; wipe yours.
///   - length: Number of digits: `passcode_length` (6, or what this handle chose with
///     `passcode_set_length`).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_FORMAT`, `PASSCODE_ERR_WEAK_PASSCODE` (the message
///   says why), `PASSCODE_ERR_ALREADY_SET`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_set)  // man: passcode-verify
public func passcode_set(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.setFirstPasscode(secret(digits, length, what: "the passcode")) }
}

/// Checks a passcode. The attempt is recorded durably before the check, in the main database
/// file (not only its write-ahead log), so killing the process or deleting the -wal and -shm
/// files never gives a free guess; success clears the failure counter and unlocks. Typing
/// the same wrong passcode again within 5 minutes is not counted twice. When another connection
/// holds the store's log open longer than the busy timeout, the attempt stays counted and the
/// call returns `PASSCODE_ERR_BUSY` without checking the passcode.
/// - Parameters:
///   - store: The store.
///   - digits: The passcode's ASCII digits. Copied and wiped.
///   - length: Number of digits.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_WRONG_PASSCODE`; `PASSCODE_ERR_LOCKED_OUT` (not
///   checked; see `passcode_lockout_remaining`); `PASSCODE_ERR_RESET_REQUIRED`;
///   `PASSCODE_ERR_LOGGED_OUT`; `PASSCODE_ERR_NO_PASSCODE`; `PASSCODE_ERR_FORMAT` (not counted);
///   `PASSCODE_ERR_MISUSE`; `PASSCODE_ERR_INVALID_HANDLE`; a store error; and for a store bound
///   to a TPM (`passcode_options_set_tpm`) `PASSCODE_ERR_TPM_LOCKOUT` and `PASSCODE_ERR_TPM_MISMATCH`
///   (not counted), `PASSCODE_ERR_TPM_ROLLBACK`, `PASSCODE_ERR_TPM_UNAVAILABLE`, `PASSCODE_ERR_TPM`, and
///   provisioned `PASSCODE_ERR_TPM_GUESS_LIMIT` and `PASSCODE_ERR_TPM_OWNER_AUTH`.
@c(passcode_verify)  // man: passcode-verify
public func passcode_verify(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.checkPasscode(secret(digits, length, what: "the passcode")) }
}

/// Proves the user before a setting change that weakens protection (see
/// `passcode_setting_weakens`): checks the passcode exactly like `passcode_verify` (counted
/// before the answer, lockout, repeats; a success also unlocks). For the next 5 minutes on the
/// boot clock, weakening changes on this handle are allowed. A correct `passcode_verify`, a flow,
/// `passcode_set`, `passcode_change` and a completed reset give the same proof; a biometric
/// unlock does not. A proof names its passcode: any change of the passcode (set, change, forgot,
/// reset, removal, an edit of the store file), on any handle or in any process, ends every
/// proof of the one before, and only the handle that made the change holds one for the new.
/// - Parameters:
///   - store: The store.
///   - digits: The passcode's ASCII digits. Copied and wiped.
///   - length: Number of digits.
/// - Returns: Any status of `passcode_verify`.
@c(passcode_authorize)  // man: passcode-verify
public func passcode_authorize(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.authorize(secret(digits, length, what: "the passcode")) }
}

/// Replaces the passcode. The new one is checked first (format, strength: not counted), then
/// the current one (counted like `passcode_verify`).
/// - Parameters:
///   - store: The store.
///   - current: The current passcode's digits.
///   - current_length: Its length.
///   - new_digits: The new passcode's digits.
///   - new_length: Its length (the store's length).
/// - Returns: `PASSCODE_OK`, or any status of `passcode_verify` and `passcode_set`.
@c(passcode_change)  // man: passcode-verify
public func passcode_change(_ store: OpaquePointer?, _ current: UnsafePointer<CChar>?, _ current_length: UInt,
                            _ new_digits: UnsafePointer<CChar>?, _ new_length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        try s.changePasscode(current: secret(current, current_length, what: "the current passcode"),
                             new: secret(new_digits, new_length, what: "the new passcode"))
    }
}

/// Turns the lock off after checking the passcode. The passcode stays stored, so
/// `passcode_enable` turns the lock on again with the same one.
/// - Parameters:
///   - store: The store.
///   - digits: The current passcode's digits.
///   - length: Their number.
/// - Returns: `PASSCODE_OK`, any status of `passcode_verify`, or `PASSCODE_ERR_HOOK_FAILED`.
@c(passcode_disable)  // man: passcode-verify
public func passcode_disable(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.turnOff(current: secret(digits, length, what: "the passcode")) }
}

/// Turns the lock on again with the stored passcode. Needs no passcode: it only adds safety.
/// - Parameters:
///   - store: The store.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_NO_PASSCODE`, `PASSCODE_ERR_HOOK_FAILED`,
///   `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_enable)  // man: passcode-verify
public func passcode_enable(_ store: OpaquePointer?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.enable() }
}

/// Removes the passcode after checking it; the lock goes off and every counter is cleared.
/// - Parameters:
///   - store: The store.
///   - digits: The current passcode's digits.
///   - length: Their number.
/// - Returns: `PASSCODE_OK`, or any status of `passcode_verify`.
@c(passcode_remove)  // man: passcode-verify
public func passcode_remove(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.removePasscode(current: secret(digits, length, what: "the passcode")) }
}

/// Whether a passcode is set.
/// - Parameters:
///   - store: The store.
///   - out: Receives 1 or 0.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (NULL out), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_is_set)  // man: passcode-verify
@_optimize(speed)  // on the lock screen's poll path (scripts/embedded_build.sh)
public func passcode_is_set(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.isPasscodeSet() ? 1 : 0) }
}

/// Whether the passcode lock is on (a passcode is set and not disabled).
/// - Parameters:
///   - store: The store.
///   - out: Receives 1 or 0.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_is_enabled)  // man: passcode-verify
public func passcode_is_enabled(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.isLockEnabled() ? 1 : 0) }
}

/// The number of digits a passcode has in this store: the set passcode's; with none set, the
/// number this handle's first passcode must have (6, unless this handle chose another with
/// `passcode_set_length`).
/// - Parameters:
///   - store: The store.
///   - out: Receives 4 to 12.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_length)  // man: passcode-verify
public func passcode_length(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, Int32(try s.passcodeLength())) }
}

/// Chooses the number of digits of the first passcode this handle sets; only while no passcode
/// is set. The choice is this handle's alone (in service mode, its bus connection's) and is
/// used by its own next `passcode_set`: another handle, or another process of the user, that
/// sets the passcode gets the default of 6, so no other code can make the app's passcode
/// shorter. Not stored: a handle opened later starts from 6 again.
/// - Parameters:
///   - store: The store.
///   - length: 4 to 12.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_SETTING` (out of range), `PASSCODE_ERR_STATE`
///   (a passcode is set), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_set_length)  // man: passcode-verify
public func passcode_set_length(_ store: OpaquePointer?, _ length: Int32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try s.setPasscodeLength(Int(length)) }
}

/// Failed attempts since the last successful unlock, to show the user.
/// - Parameters:
///   - store: The store.
///   - out: Receives the count.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_failed_attempts)  // man: passcode-verify
public func passcode_failed_attempts(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, Int32(clamping: try s.failedAttempts())) }
}

/// Seconds until the next attempt is allowed, 0 when there is no lockout. Measured on the
/// boot-time clock: changing the wall clock neither shortens nor lengthens it; after a reboot
/// a pending lockout starts again in full.
/// - Parameters:
///   - store: The store.
///   - out: Receives the seconds, rounded up.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_lockout_remaining)  // man: passcode-verify
public func passcode_lockout_remaining(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.lockoutRemainingSeconds()) }
}

/// Whether the maximum number of failures was reached and only a reset lets a passcode in.
/// - Parameters:
///   - store: The store.
///   - out: Receives 1 or 0.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_is_reset_required)  // man: passcode-verify
public func passcode_is_reset_required(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in try put(out, try s.isResetRequired() ? 1 : 0) }
}

// MARK: - Settings

/// Reads a setting.
/// - Parameters:
///   - store: The store.
///   - setting: A `passcode_setting` value.
///   - out: Receives the value.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (unknown setting, NULL out),
///   `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_setting_get)  // man: passcode-settings
public func passcode_setting_get(_ store: OpaquePointer?, _ setting: Int32, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let which = Setting(checked: setting) else { throw PasscodeError.misuse("unknown setting \(setting)") }
        try put(out, try s.get(which))
    }
}

/// Changes a setting, after the settings hook (if any) agreed. Every process sees the change.
/// The library defends its policy: while the app is locked no setting changes; a change that
/// weakens protection (`passcode_setting_weakens`; each `passcode_setting` says which of its
/// changes do) needs the passcode entered on this handle within 5 minutes
/// (`passcode_authorize`), and the passcode not changed since. With no passcode set, nothing
/// needs proof, but a weaker value set then does not outlive the next passcode (`passcode_set`).
/// Strengthening needs none.
/// - Parameters:
///   - store: The store.
///   - setting: A `passcode_setting` value.
///   - value: The new value (see `passcode_setting` for each one's choices).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_APP_LOCKED`; `PASSCODE_ERR_PASSCODE_REQUIRED` (a
///   weakening change without a fresh proof: nothing changed, the hook was not asked);
///   `PASSCODE_ERR_INVALID_SETTING` (a value not offered, biometrics
///   without a passcode, the lock turned off without the passcode); `PASSCODE_ERR_BIOMETRIC_UNAVAILABLE`;
///   `PASSCODE_ERR_STATE`; `PASSCODE_ERR_HOOK_FAILED` (the old value stays; `passcode_errmsg` has
///   the hook's message); `PASSCODE_ERR_MISUSE` (unknown setting); `PASSCODE_ERR_INVALID_HANDLE`; a store error.
@c(passcode_setting_set)  // man: passcode-settings
public func passcode_setting_set(_ store: OpaquePointer?, _ setting: Int32, _ value: Int64) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let which = Setting(checked: setting) else { throw PasscodeError.misuse("unknown setting \(setting)") }
        try s.set(which, to: value)
    }
}

/// Runs a call about a setting itself (no store), recording a failure for `passcode_errmsg(NULL)`.
private func withSetting(_ setting: Int32, _ body: (Setting) throws(PasscodeError) -> Void) -> Int32 {
    do throws(PasscodeError) {
        guard let which = Setting(checked: setting) else { throw PasscodeError.misuse("unknown setting \(setting)") }
        try body(which)
        return Status.ok.rawValue
    } catch {
        Handles.openMessage.set(error.message)
        return error.status.rawValue
    }
}

/// The smallest and largest value a setting allows, as zstd's `ZSTD_cParam_getBounds` gives
/// them, so a front end builds its controls from the library instead of a copy. Settings with
/// a list of choices (`passcode_setting_choices`) allow only those inside the bounds.
/// - Parameters:
///   - setting: A `passcode_setting` value.
///   - out_min: Receives the smallest allowed value.
///   - out_max: Receives the largest allowed value.
/// - Returns: `PASSCODE_OK`, or `PASSCODE_ERR_MISUSE` (unknown setting, NULL out pointer).
@c(passcode_setting_bounds)  // man: passcode-settings
public func passcode_setting_bounds(_ setting: Int32, _ out_min: UnsafeMutablePointer<Int64>?, _ out_max: UnsafeMutablePointer<Int64>?) -> Int32 {
    withSetting(setting) { (which) throws(PasscodeError) in
        guard out_min != nil && out_max != nil else { throw PasscodeError.misuse("the out pointer is NULL") }
        try put(out_min, which.spec.range.lowerBound)
        try put(out_max, which.spec.range.upperBound)
    }
}

/// The values a setting offers, in the order to show them (the auto-lock choices, the lockout
/// schedules, the maximum-failure actions). A setting without a list allows every value in
/// its bounds and gives a count of 0.
/// - Parameters:
///   - setting: A `passcode_setting` value.
///   - out_values: Receives up to `capacity` values; may be NULL when `capacity` is 0.
///   - capacity: Room in `out_values`, in values; more than (2^47 - 1) / 8 is no buffer's size
///     (`PASSCODE_ERR_MISUSE`, nothing written).
///   - out_count: Receives the number of choices (also when the room was too small).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_BUFFER_TOO_SMALL` (nothing written but the count);
///   `PASSCODE_ERR_MISUSE` (unknown setting, NULL out_count, NULL out_values with room).
@c(passcode_setting_choices)  // man: passcode-settings
public func passcode_setting_choices(_ setting: Int32, _ out_values: UnsafeMutablePointer<Int64>?, _ capacity: UInt,
                                     _ out_count: UnsafeMutablePointer<UInt>?) -> Int32 {
    withSetting(setting) { (which) throws(PasscodeError) in
        guard capacity <= maxBufferBytes / 8, !impossibleBuffer(out_values, capacity * 8) else {
            throw PasscodeError.misuse("the capacity \(capacity) is no buffer's size")
        }
        let choices = which.spec.choices ?? []
        try put(out_count, UInt(choices.count))
        guard capacity >= UInt(choices.count) else { throw PasscodeError.bufferTooSmall(needed: choices.count * 8) }
        if choices.isEmpty { return }
        guard let out_values else { throw PasscodeError.misuse("the values pointer is NULL") }
        for (i, v) in choices.enumerated() { out_values[i] = v }
    }
}

/// A setting's value in a new store.
/// - Parameters:
///   - setting: A `passcode_setting` value.
///   - out: Receives the default.
/// - Returns: `PASSCODE_OK`, or `PASSCODE_ERR_MISUSE` (unknown setting, NULL out).
@c(passcode_setting_default)  // man: passcode-settings
public func passcode_setting_default(_ setting: Int32, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withSetting(setting) { (which) throws(PasscodeError) in try put(out, which.spec.defaultValue) }
}

/// Whether changing a setting from `old_value` to `new_value` weakens protection. Such a
/// change is what an attacker with the app in hand would make first; each `passcode_setting`
/// says which of its changes do, from the same definition this answers from.
/// - Parameters:
///   - setting: A `passcode_setting` value.
///   - old_value: The value now.
///   - new_value: The value asked for.
///   - out_weakens: Receives 1 when the change weakens protection, else 0.
/// - Returns: `PASSCODE_OK`, or `PASSCODE_ERR_MISUSE` (unknown setting, NULL out).
@c(passcode_setting_weakens)  // man: passcode-settings
public func passcode_setting_weakens(_ setting: Int32, _ old_value: Int64, _ new_value: Int64,
                                     _ out_weakens: UnsafeMutablePointer<Int32>?) -> Int32 {
    withSetting(setting) { (which) throws(PasscodeError) in try put(out_weakens, which.spec.weakening.weakens(from: old_value, to: new_value) ? 1 : 0) }
}

/// The name a setting is stored under: the name the settings hook hears
/// (`passcode_set_settings_hook`) and the one the security log's setting changes show.
/// - Parameters:
///   - setting: Any value (an int32_t, for a loop over them).
/// - Returns: A static string owned by the library ("auto_lock_seconds"); NULL for a value that
///   is no `passcode_setting` (so `for (s = 0; passcode_setting_name(s); s++)` visits them all).
@c(passcode_setting_name)  // man: passcode-settings
public func passcode_setting_name(_ setting: Int32) -> UnsafePointer<CChar>? {
    guard let which = Setting(checked: setting) else { return nil }
    return CStrings.intern(which.spec.key)
}

/// Installs a custom lockout table and selects it (`PASSCODE_LOCKOUT_SCHEDULE_CUSTOM`). Any
/// change of the lockout table weakens protection: with a passcode set it needs the passcode
/// entered on this handle within 5 minutes (`passcode_authorize`), and the app unlocked.
/// In service mode as in `passcode_setting_set`: the proof is the passcode entered on this
/// handle's bus connection within 5 minutes, kept by passcoded; the statuses are the embedded
/// store's.
/// - Parameters:
///   - store: The store.
///   - delays: `delays[i]` is the wait in seconds after failure i+1; the last entry repeats.
///   - count: Entries in `delays`, 1 to 100; each 0 to 366 days.
///   - max_failures: The failure that triggers the maximum-failure action; 0 for never.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_APP_LOCKED`, `PASSCODE_ERR_PASSCODE_REQUIRED`,
///   `PASSCODE_ERR_INVALID_SETTING`, `PASSCODE_ERR_MISUSE` (NULL delays),
///   `PASSCODE_ERR_HOOK_FAILED`, `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_set_custom_schedule)  // man: passcode-settings
public func passcode_set_custom_schedule(_ store: OpaquePointer?, _ delays: UnsafePointer<UInt32>?, _ count: UInt, _ max_failures: UInt32) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard let delays else { throw PasscodeError.misuse("the delays pointer is NULL") }
        try PasscodeStore.checkCustomScheduleCount(Int(clamping: count))  // before the buffer is read
        let values = UnsafeBufferPointer(start: delays, count: Int(count)).map { Int64($0) }
        try s.setCustomSchedule(delays: values, maxFailures: Int(max_failures))
    }
}
