// When the store checks the integrity MAC, renews it, and what it does about a mismatch
// (Store/Integrity.swift says what the MAC is and covers).

extension PasscodeStore {
    /// Every security-relevant row (`Storage.securityRows`), serialised in a fixed order. The
    /// state rows the MAC needs besides its own: the store's random id (so that a sealed state
    /// cannot be moved to another store) and the MAC's format version.
    func securityStateLocked(version: Int = 2) throws -> [UInt8] {
        var out: [UInt8] = []
        Integrity.append(rows: try db.securityRows(version: version), to: &out)
        return out
    }

    /// Version 2 also binds the schema version, under a context of its own.
    private func macLocked(version: Int = 2) throws -> [UInt8] {
        var message: [UInt8] = []
        if version >= 2 {
            message = Array("libpasscode integrity v2".utf8)
            Integrity.append(try db.schemaVersion(), to: &message)
        }
        message += try securityStateLocked(version: version)
        return Integrity.mac(message, key: integrityKey!)
    }

    /// The reset code and the reset requests, with the store id: checked by the reset path,
    /// which goes on while the store is tampered, so that their edits never count.
    private func resetMacLocked() throws -> [UInt8] {
        var message = Array("libpasscode reset rows v1".utf8)
        Integrity.append(try db.stateValue(.storeID) ?? .null, to: &message)
        Integrity.append(rows: try db.resetRows(), to: &message)
        return Integrity.mac(message, key: integrityKey!)
    }

    /// Whether the reset rows match their own MAC (false when it was never sealed).
    func resetRowsIntactLocked() throws -> Bool {
        guard let stored = try db.stateValue(.resetMac) else { return false }
        do { return Sodium.constantTimeEqual(stored.blob ?? [], try resetMacLocked()) } catch where Storage.isTooBig(error) { return false }
    }

    /// Renews the reset rows' MAC (inside a write transaction).
    func sealResetRowsLocked() throws {
        try db.putState(.resetMac, .blob(try resetMacLocked()))
    }

    /// Checks at open that this open's pepper (or its absence) is the store's: a store set up
    /// with a pepper keeps a check value (a keyed hash, which reveals nothing of the pepper), so
    /// a host with no pepper or another one is refused before it can write anything.
    func checkPepperAtOpen() throws {
        try lock.withLock {
            let stored = try db.stateValue(.pepperCheck)
            guard let key = integrityKey else {
                if stored != nil {
                    throw PasscodeError.wrongPepper("this store was set up with a pepper; open it with the same pepper (passcode_options_set_pepper)")
                }
                return
            }
            let check = Integrity.mac(Array("libpasscode pepper check v1".utf8), key: key)
            if let stored {
                guard Sodium.constantTimeEqual(stored.blob ?? [], check) else {
                    throw PasscodeError.wrongPepper("the pepper is not the one this store was set up with")
                }
                return
            }
            try db.write {
                guard try securityStateLocked().isEmpty else {
                    throw PasscodeError.wrongPepper("this store was set up without a pepper; open it without one")
                }
                try db.addState(.pepperCheck, .blob(check))
                try sealLocked()
            }
        }
    }

    /// Whether the state matches its MAC; a store that was never sealed must be empty. A
    /// store last sealed by 0.6 or older (a version-1 MAC, no version row) is accepted as long
    /// as its MAC holds, and sealed as version 2 by its next write.
    func isIntactLocked() throws -> Bool {
        guard let stored = try db.stateValue(.integrityMac) else {
            return try securityStateLocked().isEmpty
        }
        let mac = stored.blob ?? []
        // A value over the length limit cannot be read, so it fails the MAC: an edit.
        do {
            if Sodium.constantTimeEqual(mac, try macLocked()) { return true }
        } catch where Storage.isTooBig(error) { return false }
        let version = try db.stateValue(.integrityVersion)
        guard version == nil else { return false }
        return Sodium.constantTimeEqual(mac, try macLocked(version: 1))
    }

    /// Whether the file's settings and state may be used as they are: without a pepper there is
    /// nothing to authenticate them with (README, security model); with one, only while the MAC holds.
    func macHoldsLocked() throws -> Bool {
        guard integrityKey != nil else { return true }
        return try isIntactLocked()
    }

    /// The write that ends a detected edit (reset completed, forgot passcode) cannot tell the
    /// user's settings and state from the attacker's, so it keeps none of them: every setting
    /// (the custom lockout table too) goes back to its default, and the attempt, lock and
    /// biometric state to theirs, before the store is sealed again. Logged with the tamper
    /// event. The passcode length a reset takes is the default too (`passcodeLength`). Kept:
    /// the TPM binding's rows (the reset records its own; the TPM checks them) and whether the
    /// data key was handed out (it decides only what the reset reports, no guess).
    func resetUnauthenticatedLocked(now: ClockReading) throws {
        try db.deleteAllSettings()
        try db.delete(AttemptState.self)
        try db.delete(LockState.self)
        try db.delete(BiometricState.self)
        try logLocked(.tamperDetected, "settings and lock state reset to their defaults: they could not be authenticated", now: now)
    }

    /// Logs a detected edit, once until the state is sealed again.
    func logTamperOnceLocked() throws {
        let latest = try db.latestEventKind()
        if latest != Int64(SecurityEvent.tamperDetected.rawValue) { try logLocked(.tamperDetected, now: try now()) }
    }

    /// Renews the MAC (inside a write transaction): the store id and the version first, then
    /// the reset rows' MAC, then the MAC over everything (those rows included).
    func sealLocked() throws {
        if try !db.hasState(.storeID) { try db.addState(.storeID, .blob(Sodium.randomBytes(16))) }
        try db.putState(.integrityVersion, .int(2))
        try sealResetRowsLocked()
        try db.putState(.integrityMac, .blob(try macLocked()))
    }

}
