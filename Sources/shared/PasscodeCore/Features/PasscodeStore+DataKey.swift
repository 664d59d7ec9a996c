// The data key: 32 random bytes per store that a passcode unlock releases to the host, and
// that seals the host's data (`passcode_seal`).
//
// The key is stored only wrapped (XChaCha20-Poly1305) under a key-encryption key that one
// Argon2id evaluation of the passcode (of its keyed BLAKE2b, with a pepper) derives. Opening
// the wrap *is* the passcode check: there is no separate hash, so the file offers no test of a
// guess cheaper than one Argon2id evaluation, and with a pepper none at all without the pepper.
// A second copy may be wrapped under a host's recovery key, so that a reset by email can keep
// the key. In memory the key lives in `sodium_malloc` memory (guard pages, locked, wiped on
// release), held per handle: "released" while the app is unlocked, "held" while locked so that a
// biometric unlock policy allows can release it again. Nothing else keeps it.

extension PasscodeStore {
    // MARK: - Holding the key in memory (all under `lock`)

    /// Keeps `key` (a copy) released on this handle; `useRecorded` when the caller's transaction
    /// already recorded that the host uses it. `session` (after a passcode entry: the wrap's KEK)
    /// goes to the session keyring when `sessionWanted`, which the caller's transaction read
    /// (`sessionKeyringWantedLocked`), so that no second read follows a passcode entry.
    func holdKey(_ key: SecretBytes, useRecorded: Bool = false, session: SessionEntry?, sessionWanted: Bool) {
        lock.withLock {
            guard !isClosedLocked else { return }  // closed while this call ran: keep nothing
            heldKey = HeldKey(key)
            heldKey?.useRecorded = useRecorded
            heldKey?.session = session
            publishSessionEntryLocked(wanted: sessionWanted)
        }
    }

    /// Wipes the key from this handle: lock now, the 48-hour rule, 5 failed matches, maximum
    /// failures, forgot, remove, delete account. Except for "lock now" (after which a biometric
    /// match may unlock again, as on iOS) the session keyring's entry goes too.
    func dropKeyLocked(revokeSession: Bool = true) {
        if revokeSession { revokeSessionKeyLocked() }
        heldKey = nil
    }

    /// The app locked: the key stays only for a biometric unlock.
    func suspendKeyLocked() {
        heldKey?.released = false
    }

    /// Whether this handle holds the data key released (tests, the Python binding's repr).
    public var isKeyReleased: Bool { lock.withLock { heldKey?.released == true } }

    /// Records that the host has the key or data sealed with it, so that a reset that must
    /// replace it says so (a read, and a write only the first time; then once per unlock).
    /// Calls that already write a transaction use `markKeyUsedLocked` inside it instead.
    func recordKeyHandedOut() throws(PasscodeError) {
        if lock.withLock({ heldKey?.useRecorded == true }) { return }
        if try read(.check, { () throws(PasscodeError) in try load(KeyState.self).handedOut }) {
            lock.withLock { heldKey?.useRecorded = true }
        } else {
            try write { () throws(PasscodeError) in try markKeyUsedLocked() }
        }
    }

    /// Inside a write transaction: the host uses the key this handle holds.
    func markKeyUsedLocked() throws(PasscodeError) {
        try update(KeyState.self) { $0.handedOut = true }
        heldKey?.useRecorded = true
    }

    // MARK: - Releasing the key

    /// Verifies like `verify` and returns the data key (`passcode_unlock_key`).
    public func unlockKey(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes {
        try verify(code, handingOutKey: true)
    }

    // MARK: - Recovery key

    /// Wraps the released data key under a host's 32-byte recovery key (`passcode_set_recovery_key`),
    /// replacing an earlier one.
    public func setRecoveryKey(_ recoveryKey: SecretBytes) throws(PasscodeError) {
        guard recoveryKey.count == Sodium.keyBytes else { throw PasscodeError.misuse("the recovery key must be \(Sodium.keyBytes) bytes") }
        guard let key = lock.withLock({ heldKey?.released == true ? heldKey?.key.copy() : nil }) else { throw PasscodeError.keyNotReleased }
        let blob = RecoveryWrap.make(key, recoveryKey: recoveryKey)
        try write { () throws(PasscodeError) in
            guard try passcodeRowLocked() != nil else { throw PasscodeError.noPasscode }
            try db.putRecoveryWrap(blob)
            try markKeyUsedLocked()  // a host that keeps a recovery key means to keep the data
        }
    }

    /// Removes the recovery copy (`passcode_clear_recovery_key`). Without it a reset replaces the
    /// data key, so this weakens what the user keeps: as a weakening setting change it needs the
    /// app unlocked and, while a passcode is set, a fresh proof of it on this handle.
    public func clearRecoveryKey() throws(PasscodeError) {
        let now = try now()
        try write { () throws(PasscodeError) in
            try checkChangeAllowedLocked("the recovery key", weakens: true, now: now)
            try db.deleteRecoveryWrap()
        }
    }

    /// Whether a recovery copy exists (`passcode_has_recovery_key`).
    public func hasRecoveryKey() throws(PasscodeError) -> Bool {
        try cachedRead(.recoveryKey, .recover) { () throws(PasscodeError) in try recoveryWrapLocked() != nil }
    }

    func recoveryWrapLocked() throws(PasscodeError) -> [UInt8]? {
        try db.recoveryWrap(sealedBytes: KeyWrap.sealedBytes)
    }

    // MARK: - Sealing

    /// The key while released on this handle, else `keyNotReleased`.
    private func releasedKey() throws(PasscodeError) -> HeldKey {
        guard let held = lock.withLock({ heldKey }), held.released else { throw PasscodeError.keyNotReleased }
        return held
    }

    /// Encrypts `plain` into `out` (`passcode_seal`); returns the sealed length,
    /// `plain.count + SealedBox.overhead`. `out` must be that large.
    public func seal(_ plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int {
        var held = try releasedKey()
        if !held.useRecorded {
            try recordKeyHandedOut()
            held = try releasedKey()
        }
        return try SealedBox.seal(plain, into: out, with: held)
    }

    /// Decrypts what `seal` made into `out` (`passcode_unseal`); returns the plain length.
    public func unseal(_ sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int {
        try SealedBox.open(sealed, into: out, with: try releasedKey())
    }
}
