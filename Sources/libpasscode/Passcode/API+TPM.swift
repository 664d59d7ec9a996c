// The C API of the TPM binding (PasscodeStore+TPM.swift, passcode-tpm(7)).
import CPasscodeShims
import PasscodeBackend
import PasscodeCore

// MARK: - TPM

/// Binds the store to a TPM 2.0. A store that gets its first passcode on a handle opened with
/// this option is bound: its passcode then needs a secret only that TPM unseals (a copy of the
/// file on another machine, or kept after the TPM is cleared, cannot check a single guess, not
/// even offline), every wrong guess also counts against the TPM's own dictionary-attack
/// lockout, and a monotonic counter in the TPM sees an older copy of the file put back
/// (`PASSCODE_ERR_TPM_ROLLBACK`). A bound store opens only with this option
/// (`PASSCODE_ERR_TPM_REQUIRED`), and `passcode_open` fails with `PASSCODE_ERR_TPM_UNAVAILABLE`
/// when the option is given and no TPM answers; it never falls back to no TPM. tpm2-tss
/// (libtss2-esys.so.0, libtss2-tctildr.so.0) is loaded at that moment, not before. An existing
/// store is bound with `passcode_tpm_bind`. The TPM's owner hierarchy must have an empty
/// authorization (the default), or, provisioned, the library must hold it
/// (`passcode_options_set_tpm_owner_auth_file`; else `PASSCODE_ERR_TPM_OWNER_AUTH`).
/// - Parameters:
///   - options: The options object.
///   - tcti: A tpm2-tss TCTI string ("device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321",
///     "tabrmd:"), or NULL for the kernel's resource manager, /dev/tpmrm0. Copied.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or `PASSCODE_ERR_MISUSE` (an empty,
///   overlong or non-UTF-8 string).
@c(passcode_options_set_tpm)  // man: passcode-tpm
public func passcode_options_set_tpm(_ options: OpaquePointer?, _ tcti: UnsafePointer<CChar>?) -> Int32 {
    let status = setOptionText(options, tcti, limit: 1024, valid: { _ in true }) { $0.tpm = $1 ?? StoreOptions.defaultTPM }
    if status == Status.ok.rawValue { Handles.options.get(options)?.chose("the TPM option") }
    return status
}

/// Sets a text option: NULL gives `set` nil (the default); an empty, overlong (`limit` bytes or
/// more), non-UTF-8 or not `valid` text is `PASSCODE_ERR_MISUSE`.
private func setOptionText(_ options: OpaquePointer?, _ pointer: UnsafePointer<CChar>?, limit: Int, valid: (String) -> Bool,
                           _ set: (inout StoreOptions, String?) -> Void) -> Int32 {
    guard let box = Handles.options.get(options) else { return Status.errInvalidHandle.rawValue }
    guard let pointer else {
        set(&box.options, nil)
        return Status.ok.rawValue
    }
    let n = strnlen(pointer, limit)
    guard n > 0, n < limit, let text = String(validatingCString: pointer), valid(text) else { return Status.errMisuse.rawValue }
    set(&box.options, text)
    return Status.ok.rawValue
}

/// Where the library reads the TPM's owner authorization (provisioned mode, passcode-tpm(7)):
/// a file of root's that only root may read (mode 600), holding 64 hex digits, which
/// `scripts/tpm-provision.sh` writes when it sets the owner authorization. When the file exists,
/// every new passcode of a store bound with this handle gets a PIN_FAIL index with the policy's
/// guess limit, and the attempt counter becomes one only the owner may increment. When it does
/// not, the binding is unprovisioned. A file with wider permissions, another owner or other
/// content is `PASSCODE_ERR_TPM_OWNER_AUTH` at the first TPM use, never ignored.
/// - Parameters:
///   - options: The options object.
///   - path: The file's path (copied), or NULL for the default, /etc/passcode/tpm-owner-auth.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_INVALID_HANDLE`, or `PASSCODE_ERR_MISUSE` (an empty,
///   relative, overlong or non-UTF-8 path).
@c(passcode_options_set_tpm_owner_auth_file)  // man: passcode-tpm
public func passcode_options_set_tpm_owner_auth_file(_ options: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    let status = setOptionText(options, path, limit: 4096, valid: { $0.hasPrefix("/") }) {
        $0.tpmOwnerAuthFile = $1 ?? StoreOptions.defaultTPMOwnerAuthFile
    }
    if status == Status.ok.rawValue { Handles.options.get(options)?.chose("the TPM owner authorization file") }
    return status
}

/// Binds a store that already has a passcode to the TPM of its `passcode_options_set_tpm`
/// option. Checks the passcode first (counted like `passcode_verify`); the data key stays.
/// - Parameters:
///   - store: A store opened with `passcode_options_set_tpm`.
///   - digits: The passcode's digits.
///   - length: Their number.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_MISUSE` (opened without the option);
///   `PASSCODE_ERR_STATE` (already bound); any status of `passcode_verify`; a TPM status.
@c(passcode_tpm_bind)  // man: passcode-tpm
public func passcode_tpm_bind(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withStore(store, refusedInService: "binding to a TPM the host names") { (s) throws(PasscodeError) in try s.bindTPM(current: secret(digits, length, what: "the passcode")) }
}

/// Unbinds a bound store: checks the passcode through the TPM (counted like
/// `passcode_verify`), wraps the data key under the passcode alone again, and removes the
/// TPM's attempt counter. The store then opens without the TPM option.
/// - Parameters:
///   - store: A bound store.
///   - digits: The passcode's digits.
///   - length: Their number.
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_STATE` (not bound); any status of `passcode_verify`.
@c(passcode_tpm_unbind)  // man: passcode-tpm
public func passcode_tpm_unbind(_ store: OpaquePointer?, _ digits: UnsafePointer<CChar>?, _ length: UInt) -> Int32 {
    withStore(store, refusedInService: "unbinding the TPM") { (s) throws(PasscodeError) in try s.unbindTPM(current: secret(digits, length, what: "the passcode")) }
}

/// Whether the store is bound to a TPM.
/// - Parameters:
///   - store: The store.
///   - out: Receives 1 or 0.
/// In service mode passcoded answers for its store: the TPM is the service's to choose (its
/// configuration's `tpm` key, passcoded(8)); a store it made while one is named is bound.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (NULL out), `PASSCODE_ERR_INVALID_HANDLE`, or a store error.
@c(passcode_tpm_is_bound)  // man: passcode-tpm
public func passcode_tpm_is_bound(_ store: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard out != nil else { throw PasscodeError.misuse("the out pointer is NULL") }
        try put(out, try s.isTPMBound() ? 1 : 0)
    }
}

/// What the store's TPM binding promises, and the TPM settings it rests on, one value per call
/// (`passcode_tpm_posture_item`). Asks the TPM of the store's `passcode_options_set_tpm` option
/// (TPM2_GetCapability: TPM2_PT_PERMANENT, TPM2_PT_MAX_AUTH_FAIL, TPM2_PT_LOCKOUT_INTERVAL,
/// TPM2_PT_LOCKOUT_RECOVERY); counts nothing and changes nothing.
///
/// What a binding promises, said plainly: always *no offline search off this machine*
/// (`PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH` is 1 for a bound store): a copy of the file
/// cannot check a single guess without this TPM. A *hardware guess limit*
/// (`PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT`) only where the TPM is provisioned: the
/// owner authorization set and held by the library alone, and the store's passcode check going
/// through a PIN_FAIL index; it holds against any process without the owner authorization, not
/// against root, who can read the file that holds it: all guesses on a passcode, the library's
/// and another process's (TPM2_PolicySecret on the index), come out of the index's one limit,
/// because the library charges the guesses it did not make to the store (counted as failures,
/// logged as `PASSCODE_LOG_KIND_TAMPER_DETECTED`) and writes them back into the index's
/// count after each success. What it cannot prevent: any process that reaches the TPM can use up
/// that limit with wrong guesses (no file needed), and the owner must then reset the passcode;
/// and on a TPM not yet provisioned, a `tss` member can set the owner authorization first,
/// which keeps the administrator from provisioning it. The store file names the PIN_FAIL index,
/// and the file is input: only the index the sealed object's policy names counts (the object is
/// loaded with the policy computed for the named index, which the TPM refuses for any other);
/// a file naming another index reports the store not bound (all three promises 0), and
/// `passcode_verify` refuses it with `PASSCODE_ERR_TPM_MISMATCH`. Without it, a process that can reach the TPM (root, or the `tss`
/// group) and reads the file can guess through the TPM directly, clearing its DA lockout with
/// `tpm2_dictionarylockout -c` whenever the lockout authorization is empty; the library's
/// counters bind only callers that go through it.
///
/// In service mode passcoded answers for its own TPM (the one passcoded.conf names) and the
/// caller's store there; passcoded holds that TPM's owner authorization itself, read as root
/// before it dropped its privileges, so the host needs none and never sees it.
/// - Parameters:
///   - store: A store opened with `passcode_options_set_tpm` (bound or not), or in service mode.
///   - item: A `passcode_tpm_posture_item`.
///   - out: Receives the value (0 or 1 for the yes/no items, seconds or counts for the others).
/// - Returns: `PASSCODE_OK`; `PASSCODE_ERR_MISUSE` (an unknown item, a NULL out, a store
///   opened without the TPM option, or in service mode a passcoded whose configuration names no TPM);
///   `PASSCODE_ERR_INVALID_HANDLE`; a TPM status
///   (`PASSCODE_ERR_TPM_UNAVAILABLE`, `PASSCODE_ERR_TPM`, `PASSCODE_ERR_TPM_OWNER_AUTH` when the
///   owner authorization file is not the TPM's); a store error.
@c(passcode_tpm_posture)  // man: passcode-tpm
public func passcode_tpm_posture(_ store: OpaquePointer?, _ item: Int32, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    withBackend(store) { (s) throws(PasscodeError) in
        guard TPMPostureItem(checked: item) != nil else { throw PasscodeError.misuse("unknown TPM posture item \(item)") }
        guard out != nil else { throw PasscodeError.misuse("the out pointer is NULL") }
        try put(out, try s.tpmPostureValue(item))
    }
}
