// When the store checks the integrity MAC, renews it, and what it does about a mismatch
// (Store/Integrity.swift says what the MAC is and covers).

extension PasscodeStore {
    /// Every security-relevant row (`Storage.securityRows`), serialised in a fixed order. The
    /// state rows the MAC needs besides its own: the store's random id (so that a sealed state
    /// cannot be moved to another store) and the MAC's format version.
    func securityStateLocked(version: Int = 2) throws(PasscodeError) -> [UInt8] {
        var out: [UInt8] = []
        Integrity.append(rows: try db.securityRows(version: version), to: &out)
        return out
    }

    /// Version 2 also binds the schema version, under a context of its own.
    private func macLocked(version: Int = 2) throws(PasscodeError) -> [UInt8] {
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
    private func resetMacLocked() throws(PasscodeError) -> [UInt8] {
        var message = Array("libpasscode reset rows v1".utf8)
        Integrity.append(try db.stateValue(.storeID) ?? .null, to: &message)
        Integrity.append(rows: try db.resetRows(), to: &message)
        return Integrity.mac(message, key: integrityKey!)
    }

    /// Whether the reset rows match their own MAC (false when it was never sealed).
    func resetRowsIntactLocked() throws(PasscodeError) -> Bool {
        guard let stored = try db.stateValue(.resetMac) else { return false }
        do { return Sodium.constantTimeEqual(stored.blob ?? [], try resetMacLocked()) } catch where Storage.isTooBig(error) { return false }
    }

    /// Renews the reset rows' MAC (inside a write transaction).
    func sealResetRowsLocked() throws(PasscodeError) {
        try db.putState(.resetMac, .blob(try resetMacLocked()))
    }

    /// The check value a store set up with this pepper keeps (a keyed hash, which reveals
    /// nothing of the pepper).
    private func pepperCheckValue() -> [UInt8] {
        Integrity.mac(Array("libpasscode pepper check v1".utf8), key: integrityKey!)
    }

    /// Checks at open that this open's pepper (or its absence) is the store's: a store set up
    /// with a pepper keeps a check value, so a host with no pepper or another one is refused
    /// before it can write anything.
    ///
    /// Only a store this very open made (`new`: built under a temporary name before it is given
    /// its own, `PasscodeStore.init`) is set up as new. A file found at the store's path with
    /// no table (truncated to nothing, or replaced by an empty database) was emptied: treated
    /// as below. A store that held our schema before and has no check value is either a store set
    /// up without a pepper (it has rows of its own: refused, "open it without one"), or a
    /// peppered store whose rows were deleted: every table emptied, or the state table alone
    /// (pointed at an empty page: a passcode with no state row is nothing the library leaves).
    /// Such a store is claimed for this pepper but not sealed, so every call says `tampered`
    /// until the reset by email, "forgot passcode" or deleting the account seals it; it never
    /// passes for a new store with no passcode, no lock and no "reset required". A store set up
    /// without a pepper and never used cannot be told from an emptied one, and is treated so.
    func checkPepperAtOpen(new: Bool) throws(PasscodeError) {
        try lock.withLock { () throws(PasscodeError) in
            let stored = try db.stateValue(.pepperCheck)
            guard integrityKey != nil else {
                if stored != nil {
                    throw PasscodeError.wrongPepper("this store was set up with a pepper; open it with the same pepper (passcode_options_set_pepper)")
                }
                return
            }
            let check = pepperCheckValue()
            if let stored {
                guard Sodium.constantTimeEqual(stored.blob ?? [], check) else {
                    throw PasscodeError.wrongPepper("the pepper is not the one this store was set up with")
                }
                return
            }
            try db.write { () throws(PasscodeError) in
                if try db.hasState(.pepperCheck) { return }  // another process set it up meanwhile
                let empty = try securityStateLocked().isEmpty
                if empty && new {
                    try sealLocked()  // adds the check value
                    return
                }
                let stateGone = try db.passcodeExists() ? db.stateIsEmpty() : false
                guard empty || stateGone else {
                    throw PasscodeError.wrongPepper("this store was set up without a pepper; open it without one")
                }
                try db.addState(.pepperCheck, .blob(check))  // claimed, not sealed: tampered
            }
        }
    }

    /// Whether the state matches its MAC. A peppered store is sealed by the open that sets it
    /// up, so one with no MAC row had its rows deleted: never intact (`checkPepperAtOpen`). A
    /// store last sealed by 0.6 or older (a version-1 MAC, no version row) is accepted as long
    /// as its MAC holds, and sealed as version 2 by its next write.
    func isIntactLocked() throws(PasscodeError) -> Bool {
        guard let stored = try db.stateValue(.integrityMac) else { return false }
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
    /// nothing to authenticate them with (passcode(7)); with one, only while the MAC holds.
    func macHoldsLocked() throws(PasscodeError) -> Bool {
        guard integrityKey != nil else { return true }
        return try isIntactLocked()
    }

    /// The write that ends a detected edit (reset completed, forgot passcode) cannot tell the
    /// user's settings and state from the attacker's, so it keeps none of them: every setting
    /// (the custom lockout table too) goes back to its default, and the attempt, lock and
    /// biometric state to theirs, before the store is sealed again. Logged with the tamper
    /// event. The passcode length a reset takes is the default too (`passcodeLength`). The data
    /// key counts as handed out (the safe answer: the host is told when a reset replaces it).
    /// Every device session is dropped (signed out: a planted one cannot be told from the
    /// user's), and the log says that the entries before this one may have been edited or
    /// deleted. Kept: the TPM binding's rows (a reset seals in the host's TPM and records its
    /// own binding: `deviceForReset`; the TPM checks the rest).
    func resetUnauthenticatedLocked(now: ClockReading) throws(PasscodeError) {
        try db.deleteAllSettings()
        try db.delete(AttemptState.self)
        try db.delete(LockState.self)
        try db.delete(BiometricState.self)
        try update(KeyState.self) { $0.handedOut = true }
        let sessions = try db.deleteAllSessions()
        try logLocked(.tamperDetected, "settings and lock state reset to their defaults and \(sessions) device sessions signed out: they could not be authenticated; the log before this entry may have been edited", now: now)
    }

    /// Logs a detected edit, once until the state is sealed again.
    func logTamperOnceLocked() throws(PasscodeError) {
        let latest = try db.latestEventKind()
        if latest != Int64(SecurityEvent.tamperDetected.rawValue) { try logLocked(.tamperDetected, now: try now()) }
    }

    /// Renews the MAC (inside a write transaction): the store id and the version first, then
    /// the reset rows' MAC, then the MAC over everything (those rows included).
    func sealLocked() throws(PasscodeError) {
        if try !db.hasState(.pepperCheck) { try db.addState(.pepperCheck, .blob(pepperCheckValue())) }
        if try !db.hasState(.storeID) { try db.addState(.storeID, .blob(Sodium.randomBytes(16))) }
        try db.putState(.integrityVersion, .int(2))
        try sealResetRowsLocked()
        try db.putState(.integrityMac, .blob(try macLocked()))
    }

}
